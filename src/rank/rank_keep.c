/*
 * rank_keep: what the sweep keeps when no --top is given (rank.h):
 * instead of every plan up to Excel's row limit (about 1 GB for a sweep of
 * ten million combinations), the Plans sheet's plans: the best
 * report.plans_sheet plans and each family's best, added here from the
 * families after the merge. Memory then stays flat however large the
 * sweep; plans.csv lists the same plans, --all-plans every plan (from the
 * spill, rank_spill.c).
 */
#include "rank.h"

#include <stdlib.h>
#include <string.h>

size_t rank_keep_sheet_top(const struct sweep_file *sf)
{
    long n = sf->spec.r_plans_sheet;
    return n > 0 ? (size_t)n : 1;
}

/* qsort comparator over rows: rank order (rank_before). */
static int compare_rows(const void *x, const void *y)
{
    const struct ranking_row *a = x, *b = y;
    if (rank_before(a->fits, a->step, &a->plan, b->fits, b->step, &b->plan))
        return -1;
    return rank_before(b->fits, b->step, &b->plan, a->fits, a->step, &a->plan)
               ? 1
               : 0;
}

enum status rank_keep_family_bests(struct ranking *r, struct diag *d)
{
    bool *present = calloc(r->nfamilies ? r->nfamilies : 1, sizeof *present);
    size_t i, missing = 0;
    struct ranking_row *rows;
    if (!present)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    for (i = 0; i < r->nrows; i++)
        if (r->rows[i].family >= 0 && (size_t)r->rows[i].family < r->nfamilies)
            present[r->rows[i].family] = true;
    for (i = 0; i < r->nfamilies; i++)
        if (r->family[i].has_best && !present[i])
            missing++;
    r->nranked = r->nrows;
    rows = missing ? realloc(r->rows, (r->nrows + missing) * sizeof *rows)
                   : r->rows;
    if (missing && !rows) {
        free(present);
        return diag_set(d, STATUS_NOMEM, "out of memory ranking %zu plans",
                        r->nrows + missing);
    }
    r->rows = rows;
    for (i = 0; i < r->nfamilies; i++)
        if (r->family[i].has_best && !present[i])
            /* the row the sweep's visitor would have kept */
            ranking_row_of(&r->family[i].best, (int)i, &r->rows[r->nrows++]);
    free(present);
    if (missing == 0)
        return STATUS_OK;
    /* the rows added rank after the kept ones: only they need ordering */
    qsort(r->rows + r->nranked, r->nrows - r->nranked, sizeof *r->rows,
          compare_rows);
    r->dropped = r->valid - r->nrows;
    return STATUS_OK;
}
