/*
 * fuzz_model: the input as a model file, through model_load(). It must never
 * crash, leak or hit undefined behaviour; a file that loads must say
 * nothing in its diag, one that does not must say why
 * (in text: no control characters, valid UTF-8); what loads must keep
 * its schema's ranges, its strings and sources being text.
 *
 * Stage: input (model_load: src/input/model.c)
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "model.h"
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
    return model_load(path, dest, NULL, 0, d);
}

/* Every accepted value within its schema's range, every text text. */
static void verify(const void *dest)
{
    const struct model *m = dest;
    fuzz_need_loaded(model_schema(), &m->spec, &m->meta);
}

static void release(void *dest)
{
    model_release(dest);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_load(&input, data, size, sizeof(struct model), load, verify,
              release);
    return 0;
}
