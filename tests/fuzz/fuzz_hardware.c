/*
 * fuzz_hardware: the input as a hardware file, through hardware_load(). It must
 * never crash, leak or hit undefined behaviour; a file that loads must say
 * nothing in its diag, one that does not must say why
 * (in text: no control characters, valid UTF-8); what loads must keep
 * its schema's ranges, its strings and sources being text.
 *
 * Stage: input (hardware_load: src/input/hardware.c)
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "hardware.h"
#include "fuzz_util.h"

/* libFuzzer calls the entry points without a context argument: the
 * in-memory input file lives in this static, set once by
 * LLVMFuzzerInitialize() and only read afterwards. */
static struct fuzz_file input;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_file_init(&input);
    return 0;
}

static enum status load(const char *path, void *dest, struct diag *d)
{
    return hardware_load(path, dest, NULL, 0, d);
}

/* Every accepted value within its schema's range, every text text. */
static void verify(const void *dest)
{
    const struct hardware *h = dest;
    fuzz_need_loaded(hardware_schema(), &h->spec, &h->meta);
}

static void release(void *dest)
{
    hardware_release(dest);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_load(&input, data, size, sizeof(struct hardware), load, verify,
              release);
    return 0;
}
