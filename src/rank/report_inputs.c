/*
 * report_inputs: the files a report rests on, with their checksums (see
 * report_inputs.h).
 */
#include "report_inputs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha256.h>

#include "input_file.h"

/* The SHA-256 of the file at path, as 64 hex digits, into hex[65]. */
static enum status checksum(const char *path,
                            char hex[SHA256_DIGEST_STRING_LENGTH],
                            struct diag *d)
{
    SHA2_CTX ctx;
    unsigned char chunk[65536];
    size_t n, size;
    FILE *f;
    if (input_file_open(path, 0, &f, &size, d) != STATUS_OK)
        return d->status;
    SHA256Init(&ctx);
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
        SHA256Update(&ctx, chunk, n);
    if (ferror(f)) {
        fclose(f);
        return diag_add(d, STATUS_IO, "%s: cannot read for its checksum", path);
    }
    fclose(f);
    SHA256End(&ctx, hex);
    return STATUS_OK;
}

enum status report_inputs_add(struct report_inputs *r,
                              const char *role,
                              const char *path,
                              struct diag *d)
{
    struct report_input *in;
    if (r->ninputs == r->cap) { /* the About sheet lists them all */
        size_t cap = r->cap ? 2 * r->cap : 16;
        struct report_input *grown =
            cap > r->cap ? realloc(r->input, cap * sizeof *grown) : NULL;
        if (!grown)
            return diag_add(d, STATUS_NOMEM, "%s: out of memory", path);
        r->input = grown;
        r->cap = cap;
    }
    in = &r->input[r->ninputs];
    snprintf(in->role, sizeof in->role, "%s", role);
    if (checksum(path, in->sha256, d) != STATUS_OK)
        return d->status;
    in->path = strdup(path);
    if (!in->path)
        return diag_add(d, STATUS_NOMEM, "%s: out of memory", path);
    r->ninputs++;
    return STATUS_OK;
}

void report_inputs_free(struct report_inputs *in)
{
    size_t i;
    if (!in)
        return;
    for (i = 0; i < in->ninputs; i++)
        free(in->input[i].path);
    free(in->input);
    in->input = NULL;
    in->ninputs = in->cap = 0;
    free(in->recipe);
    in->recipe = NULL;
    free(in->stack_words);
    in->stack_words = NULL;
}
