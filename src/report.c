/*
 * report: the document the stages fill (see report.h): its inputs'
 * checksums, its release, and read-only helpers for the writers.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha256.h>

enum status report_add_input(struct report *r,
                             const char *role,
                             const char *path,
                             struct diag *d)
{
    struct report_input *in;
    if (r->ninputs == REPORT_INPUTS_MAX)
        return STATUS_OK;
    in = &r->input[r->ninputs];
    snprintf(in->role, sizeof in->role, "%s", role);
    snprintf(in->path, sizeof in->path, "%s", path);
    if (!SHA256File(path, in->sha256))
        return diag_set(d, STATUS_IO, "%s: cannot read for its checksum", path);
    r->ninputs++;
    return STATUS_OK;
}

void report_free(struct report *r)
{
    size_t i;
    if (!r)
        return;
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
    for (i = 0; i < r->nspill; i++)
        if (r->spill[i])
            fclose(r->spill[i]);
    free(r->spill);
    r->spill = NULL;
    r->nspill = 0;
}

void report_row_times(const struct report *r,
                      const struct report_row *row,
                      struct cost_times *t)
{
    cost_times(&row->work, r->hw, r->m, row->plan.precision, t);
}

uint32_t report_family_color(const struct report *r, size_t family)
{
    static const uint32_t palette[16] = {
        0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9,
        0x332288, 0x882255, 0x117733, 0xAA4499, 0x999933, 0x44AA99,
        0xCC6677, 0xDDCC77, 0x88CCEE, 0x661100};
    size_t i, fitting = 0;
    if (family >= r->nfamilies)
        return 0x999999;
    if (!r->family[family].best.fits) /* no plan of it fits: grey, but
                                       * the classic FSDP baseline */
        return strcmp(r->family[family].name, "ZeRO-3") == 0 ? 0x000000
                                                             : 0x999999;
    for (i = 0; i < r->nfamilies; i++) {
        size_t k = (size_t)r->families_by_step[i];
        if (k == family)
            return palette[fitting % 16];
        if (r->family[k].best.fits)
            fitting++;
    }
    return 0x999999;
}

long report_family_index(const struct report *r, const char *name)
{
    size_t i;
    for (i = 0; i < r->nfamilies; i++)
        if (strcmp(r->family[i].name, name) == 0)
            return (long)i;
    return -1;
}
