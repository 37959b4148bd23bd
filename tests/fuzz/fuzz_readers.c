/*
 * fuzz_readers: the data-file readers that have no target of their own,
 * through the one loader harness (fuzz_load) the other targets use: the
 * input's first byte picks the reader — a stack file (stack_load), a
 * validation run (validation_load) or a kernel file for `import trace`
 * (trace_rules_load) — and the rest is the file. Each must never crash,
 * leak or hit undefined behaviour; a file that loads says nothing in its
 * diag, one that does not says why, in text; what loads keeps its
 * schema's ranges and its text text.
 *
 * Stage: input (the stack, validation and kernel-file readers)
 */
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "fuzz_util.h"
#include "stack.h"
#include "trace_classify.h"
#include "validation.h"

static struct fuzz_file input;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    fuzz_file_init(&input);
    return 0;
}

/* ---- stack files ---- */

static enum status stack_loader(const char *path, void *dest, struct diag *d)
{
    return stack_load(path, dest, NULL, 0, d);
}

static void stack_verify(const void *dest)
{
    const struct stack *s = dest;
    fuzz_need_loaded(stack_schema(), &s->spec, &s->meta);
}

static void stack_free(void *dest)
{
    stack_release(dest);
}

/* ---- validation runs (their model and hardware are resolved against
 * the shipped data directory, as report does) ---- */

static enum status
validation_loader(const char *path, void *dest, struct diag *d)
{
    char dir[64];
    return validation_load(path, fuzz_data_path("", dir, sizeof dir), dest, d);
}

static void validation_free(void *dest)
{
    (void)dest; /* a run holds no memory of its own */
}

static void validation_verify(const void *dest)
{
    const struct validation_run *run = dest;
    fuzz_need_text(run->name, false);
    fuzz_need_text(run->source, false);
    fuzz_need_text(run->plan, false);
}

/* ---- kernel files: a pointer to the rules is the loaded value ---- */

static enum status kernels_loader(const char *path, void *dest, struct diag *d)
{
    struct trace_rules **rules = dest;
    *rules = trace_rules_load(path, d);
    return *rules ? STATUS_OK : d->status;
}

static void kernels_verify(const void *dest)
{
    struct trace_rules *const *rules = dest;
    const char *library = NULL;
    fuzz_need_text(trace_rules_source(*rules), false);
    /* a name no pattern can be sure to match: classified, never lost */
    (void)trace_rules_classify(*rules, "a_kernel_of_no_library", &library);
    if (!library)
        abort();
    fuzz_need_text(library, false);
}

static void kernels_free(void *dest)
{
    struct trace_rules **rules = dest;
    trace_rules_free(*rules);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    switch (data[0] % 3) {
    case 0:
        fuzz_load(&input, data + 1, size - 1, sizeof(struct stack),
                  stack_loader, stack_verify, stack_free);
        break;
    case 1:
        fuzz_load(&input, data + 1, size - 1, sizeof(struct validation_run),
                  validation_loader, validation_verify, validation_free);
        break;
    default:
        fuzz_load(&input, data + 1, size - 1, sizeof(struct trace_rules *),
                  kernels_loader, kernels_verify, kernels_free);
        break;
    }
    return 0;
}
