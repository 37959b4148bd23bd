/*
 * fuzz_hf: the input as a Hugging Face config.json, through
 * model_load_with_training() with the default training recipe (cJSON,
 * then hf_config's key-by-key reading). It must never crash, leak or hit
 * undefined behaviour; a file that loads must say nothing in its diag, one
 * that does not must say why.
 *
 * Stage: input (the config.json readers: src/input/hf_*.c)
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "model.h"
#include "fuzz_util.h"

/* libFuzzer calls the entry points without a context argument: the
 * in-memory input file and the recipe's path live in statics, set once by
 * LLVMFuzzerInitialize() and only read afterwards. */
static struct fuzz_file input;
static char recipe[1024];

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_file_init(&input);
    fuzz_data_path("training/default.ini", recipe, sizeof recipe);
    return 0;
}

static enum status load(const char *path, void *dest, struct diag *d)
{
    return model_load_with_training(path, recipe, dest, NULL, 0, d);
}

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
