/*
 * report: the document the stages fill (see report.h): its inputs'
 * checksums, its release, and read-only helpers for the writers.
 */
#include "report.h"

#include <math.h>
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

enum status report_add_input(struct report *r,
                             const char *role,
                             const char *path,
                             struct diag *d)
{
    struct report_input *in;
    if (r->ninputs == REPORT_INPUTS_MAX) /* the About sheet lists all */
        return diag_add(d, STATUS_RANGE, "%s: more than %d input files", path,
                        REPORT_INPUTS_MAX);
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

void report_row_of(const struct cost_result *c,
                   int family,
                   struct report_row *row)
{
    memset(row, 0, sizeof *row);
    row->plan = c->plan;
    row->work = c->work;
    row->t = c->t;
    row->mem = c->mem;
    row->ep_ratio = c->ep_ratio;
    row->step = cost_rank_step(c);
    row->family = family;
    row->fits = c->fits;
    row->rank = c->rank;
}

void report_row_result(const struct report_row *row, struct cost_result *c)
{
    memset(c, 0, sizeof *c);
    c->plan = row->plan;
    c->work = row->work;
    c->t = row->t;
    c->mem = row->mem;
    c->fits = row->fits;
    c->rank = row->rank;
    c->ep_ratio = row->ep_ratio;
}

void report_free(struct report *r)
{
    size_t i;
    if (!r)
        return;
    for (i = 0; i < r->ninputs; i++) {
        free(r->input[i].path);
        r->input[i].path = NULL;
    }
    r->ninputs = 0;
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
    free(r->replays);
    r->replays = NULL;
    r->nreplays = 0;
    for (i = 0; i < r->nspill; i++)
        if (r->spill[i])
            fclose(r->spill[i]);
    free(r->spill);
    r->spill = NULL;
    r->nspill = 0;
    free(r->sheet);
    r->sheet = NULL;
    r->nsheet = 0;
    free(r->points);
    r->points = NULL;
    r->npoints = 0;
    free(r->roof_pick);
    r->roof_pick = NULL;
    r->nroof_pick = 0;
}

size_t report_row_rank(const struct report *r, size_t index)
{
    return r->nranked == 0 || index < r->nranked ? index + 1 : 0;
}

const struct report_row *report_sheet_row(const struct report *r, size_t i)
{
    return &r->rows[r->sheet[i]];
}

long report_family_index(const struct report *r, const char *name)
{
    size_t i;
    for (i = 0; i < r->nfamilies; i++)
        if (strcmp(r->family[i].name, name) == 0)
            return (long)i;
    return -1;
}

void report_thousands(double v, char *buf, size_t size)
{
    char digits[64], out[96];
    size_t n, i, o = 0;
    if (!isfinite(v) || fabs(v) >= 1e18) {
        snprintf(buf, size, "%.3g", v);
        return;
    }
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    n = strlen(digits);
    if (v < 0 && digits[0] != '0')
        out[o++] = '-';
    for (i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    snprintf(buf, size, "%s", out);
}

void report_sig3(double v, char *buf, size_t size)
{
    char e[32];
    double x;
    int decimals;
    if (!isfinite(v) || fabs(v) >= 1e15) {
        snprintf(buf, size, "%.3g", v);
        return;
    }
    snprintf(e, sizeof e, "%.2e", v); /* rounded to 3 significant digits */
    x = strtod(e, NULL);
    decimals = x == 0 ? 0 : 2 - (int)floor(log10(fabs(x)));
    snprintf(buf, size, "%.*f", decimals > 0 ? decimals : 0, x);
}
