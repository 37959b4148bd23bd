/*
 * ranking: what rank hands over (see ranking.h): a row and the result it
 * carries, the rank of a row, a family by name, a template by key, and
 * the release. The cursor over every plan is rank_spill.c's (it reads
 * the spill files that module writes).
 */
#include "ranking.h"

#include <stdlib.h>
#include <string.h>

void ranking_row_of(const struct cost_result *c,
                    int family,
                    struct ranking_row *row)
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

void ranking_row_result(const struct ranking_row *row, struct cost_result *c)
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

void ranking_free(struct ranking *r)
{
    size_t i;
    if (!r)
        return;
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
    free(r->replays);
    r->replays = NULL;
    r->nreplays = 0;
    for (i = 0; i < r->nstages; i++)
        free(r->stages[i].layers);
    free(r->stages);
    r->stages = NULL;
    r->nstages = 0;
    for (i = 0; i < r->nspill; i++)
        if (r->spill[i])
            fclose(r->spill[i]);
    free(r->spill);
    r->spill = NULL;
    r->nspill = 0;
    free(r->templates);
    r->templates = NULL;
    r->ntemplates = 0;
    free(r->family);
    free(r->families_by_step);
    r->family = NULL;
    r->families_by_step = NULL;
    r->nfamilies = 0;
    free(r->validation);
    r->validation = NULL;
    r->nvalidations = 0;
    for (i = 0; i < r->nvalidation_notes; i++)
        free(r->validation_notes[i]);
    free(r->validation_notes);
    r->validation_notes = NULL;
    r->nvalidation_notes = 0;
}

enum status ranking_families(struct ranking *r, size_t n, struct diag *d)
{
    size_t i;
    free(r->family);
    free(r->families_by_step);
    r->nfamilies = 0;
    r->family = calloc(n ? n : 1, sizeof *r->family);
    r->families_by_step = calloc(n ? n : 1, sizeof *r->families_by_step);
    if (!r->family || !r->families_by_step)
        return diag_set(d, STATUS_NOMEM, "out of memory keeping %zu families",
                        n);
    for (i = 0; i < n; i++)
        r->families_by_step[i] = (long)i;
    r->nfamilies = n;
    return STATUS_OK;
}

size_t ranking_row_rank(const struct ranking *r, size_t index)
{
    return r->nranked == 0 || index < r->nranked ? index + 1 : 0;
}

long ranking_family_index(const struct ranking *r, const char *name)
{
    size_t i;
    for (i = 0; i < r->nfamilies; i++)
        if (strcmp(r->family[i].name, name) == 0)
            return (long)i;
    return -1;
}

const char *ranking_template(const struct ranking *r, const char *key)
{
    size_t i;
    for (i = 0; i < r->ntemplates; i++)
        if (strcmp(r->templates[i].key, key) == 0)
            return r->templates[i].formula;
    return NULL;
}
