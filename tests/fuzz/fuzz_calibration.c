/*
 * fuzz_calibration: the input as a calibration file, through
 * calibration_load(). It must never crash, leak or hit undefined
 * behaviour; a file that loads must say nothing in its diag, one that
 * does not must say why.
 *
 * Stage: input (calibration_load: src/input/calibration.c)
 */
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "diag.h"
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
    return calibration_load(path, dest, NULL, 0, d);
}

static void verify(const void *dest)
{
    const struct calibration *cal = dest;
    fuzz_need_loaded(calibration_schema(), &cal->spec, &cal->meta);
}

static void release(void *dest)
{
    calibration_release(dest);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_load(&input, data, size, sizeof(struct calibration), load, verify,
              release);
    return 0;
}
