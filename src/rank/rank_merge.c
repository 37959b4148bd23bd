/*
 * rank_merge: the shards folded into the ranking (rank_shard.h), in a
 * fixed order, so the ranking is the same whatever the number of threads.
 */
#include "rank_shard.h"

#include <stdlib.h>
#include <string.h>

/* The shards' counts into r; returns the rows their own heaps keep. */
static size_t merge_counts(struct ranking *r, const struct shard *sh, size_t n)
{
    size_t t, total = 0;
    int why;
    for (t = 0; t < n; t++) {
        r->valid += sh[t].valid;
        r->floor_only += sh[t].floor_only;
        r->fitting += sh[t].fitting;
        for (why = 0; why < PLAN_REASONS; why++)
            r->rejected[why] += sh[t].rejected[why];
        total += sh[t].own.n;
    }
    return total;
}

/* Each rejection's examples: the first ones in enumeration order. */
static void merge_examples(struct ranking *r, const struct shard *sh, size_t n)
{
    size_t t, k;
    int why;
    for (why = 0; why < PLAN_REASONS; why++) {
        uint64_t last = 0;
        bool any = false;
        while (r->nexamples[why] < RANKING_EXAMPLES) {
            size_t bt = 0, bk = 0;
            bool found = false;
            for (t = 0; t < n; t++)
                for (k = 0; k < sh[t].nexamples[why]; k++) {
                    uint64_t at = sh[t].example_at[why][k];
                    if ((any && at <= last) ||
                        (found && at >= sh[bt].example_at[why][bk]))
                        continue;
                    bt = t;
                    bk = k;
                    found = true;
                }
            if (!found)
                break;
            memcpy(r->examples[why][r->nexamples[why]++],
                   sh[bt].examples[why][bk], sizeof r->examples[why][0]);
            last = sh[bt].example_at[why][bk];
            any = true;
        }
    }
}

/* The families: every key a shard met, in order of their first plan in
 * the enumeration, into r->family; r->family_of_key[key] its index, -1
 * for a key no shard met. */
static enum status merge_families(struct ranking *r,
                                  const struct shard *sh,
                                  size_t n,
                                  struct diag *d)
{
    int *index_of_key = r->family_of_key;
    size_t t, k, f, nkeys = 0;
    for (k = 0; k < FAMILY_KEYS; k++) {
        index_of_key[k] = -1;
        for (t = 0; t < n && sh[t].family_first[k] == UINT64_MAX; t++)
            ;
        nkeys += t < n;
    }
    if (ranking_families(r, nkeys, d) != STATUS_OK)
        return d->status;
    for (f = 0; f < nkeys; f++) {
        uint64_t first = UINT64_MAX;
        size_t key = 0;
        for (k = 0; k < FAMILY_KEYS; k++)
            for (t = 0; t < n; t++)
                if (index_of_key[k] < 0 && sh[t].family_first[k] < first) {
                    first = sh[t].family_first[k];
                    key = k;
                }
        index_of_key[key] = (int)f;
        for (t = 0; t < n; t++)
            if (sh[t].family_first[key] != UINT64_MAX) {
                diag_snprintf(r->family[f].name, sizeof r->family[f].name, "%s",
                              sh[t].family[key].name);
                rank_family_merge(&r->family[f], &sh[t].family[key]);
            }
    }
    return STATUS_OK;
}

/* The rows: the shared heap's, taken over, or every shard's own (total
 * of them), moved into r->rows. */
static enum status merge_rows(struct ranking *r,
                              struct shard *sh,
                              size_t n,
                              struct heap *shared,
                              size_t total,
                              struct diag *d)
{
    size_t t;
    if (shared) {
        r->rows = shared->rows;
        r->nrows = shared->n;
        shared->rows = NULL;
        free(shared->keys);
        shared->keys = NULL;
        return STATUS_OK;
    }
    r->rows = malloc((total ? total : 1) * sizeof *r->rows);
    if (!r->rows)
        return diag_set(d, STATUS_NOMEM, "out of memory ranking %zu plans",
                        total);
    for (t = 0; t < n; t++) {
        if (sh[t].own.n > 0)
            memcpy(r->rows + r->nrows, sh[t].own.rows,
                   sh[t].own.n * sizeof *r->rows);
        r->nrows += sh[t].own.n;
        free(sh[t].own.rows);
        free(sh[t].own.keys);
        sh[t].own.rows = NULL;
        sh[t].own.keys = NULL;
    }
    return STATUS_OK;
}

enum status rank_merge(struct ranking *r,
                       struct shard *sh,
                       size_t n,
                       struct heap *shared,
                       size_t top,
                       struct diag *d)
{
    size_t k, total = merge_counts(r, sh, n);
    merge_examples(r, sh, n);
    if (merge_families(r, sh, n, d) != STATUS_OK ||
        merge_rows(r, sh, n, shared, total, d) != STATUS_OK)
        return d->status;
    /* ranked, the top kept */
    if (!rank_sort_rows(r->rows, r->nrows))
        return diag_set(d, STATUS_NOMEM, "out of memory ranking %zu plans",
                        r->nrows);
    if (r->nrows > top)
        r->nrows = top;
    for (k = 0; k < r->nrows; k++)
        r->rows[k].family = r->family_of_key[r->rows[k].family];
    r->dropped = r->valid - r->nrows;
    return STATUS_OK;
}
