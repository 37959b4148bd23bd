/*
 * fuzz_nccl_import: the input as nccl-tests output, through
 * nccl_import_read() and, when it reads, nccl_import_write(). It must
 * never crash, leak or hit undefined behaviour; a read that fails must
 * say why, one that succeeds must say nothing, and what is written must
 * fit a data-file line.
 *
 * Stage: input (src/input/nccl_import.c)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "nccl_import.h"
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct nccl_import *imp = calloc(1, sizeof *imp);
    struct diag d;
    char *text = NULL, *line;
    size_t len = 0;
    FILE *out;
    if (!imp)
        abort();
    fuzz_file_write(&input, data, size);
    diag_init(&d);
    if (nccl_import_read(imp, input.path, NCCL_IMPORT_LINK_AUTO, NULL, &d) !=
        STATUS_OK) {
        if (!d.msg[0])
            abort(); /* a failure must say why */
        free(imp);
        return 0;
    }
    if (d.msg[0])
        abort();
    out = open_memstream(&text, &len);
    if (!out)
        abort();
    (void)nccl_import_write(imp, out, "memory", &d);
    if (fclose(out) != 0)
        abort();
    for (line = text; line && *line;) {
        char *end = strchr(line, '\n');
        size_t n = end ? (size_t)(end - line) : strlen(line);
        if (n > 198)
            abort(); /* the fragment must load as a calibration file */
        line = end ? end + 1 : NULL;
    }
    free(text);
    free(imp);
    return 0;
}
