/*
 * compare: the recommended plan of each (model, hardware) pair (see
 * compare.h).
 */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "scenario_steps.h"

void compare_row_init(struct compare_row *row,
                      const struct model *m,
                      const struct hardware *hw)
{
    memset(row, 0, sizeof *row);
    diag_snprintf(row->model, sizeof row->model, "%s", m->spec.name);
    diag_snprintf(row->gpu, sizeof row->gpu, "%s", hw->spec.gpu_name);
    diag_snprintf(row->cluster, sizeof row->cluster, "%s",
                  hw->spec.cluster_name);
    snprintf(row->model_path, sizeof row->model_path, "%s", m->meta.path);
    snprintf(row->hardware_path, sizeof row->hardware_path, "%s",
             hw->meta.path);
    row->gpus = hw->spec.gpus;
    row->params_total = m->params_total;
    row->params_active = m->params_active;
    row->hbm_gib = hw->spec.hbm_gib;
    row->gpu_hour_usd = hw->spec.gpu_hour_usd;
    row->tokens = m->spec.tokens;
    row->seq_len = m->spec.seq_len;
}

void compare_row_recommend(struct compare_row *row, const struct views *v)
{
    const struct ranking_row *b =
        views_sheet_row(v, (size_t)v->sheet_recommended);
    double x;
    row->any = true;
    row->valid = v->rank->valid;
    row->fitting = v->rank->fitting;
    /* the kept row as rank timed it (its collectives are not needed: the
     * row shows totals) */
    row->recommended.plan = b->plan;
    row->recommended.work = b->work;
    row->recommended.t = b->t;
    row->recommended.mem = b->mem;
    row->recommended.fits = b->fits; /* with the sweep's headroom */
    row->recommended.rank = b->rank;
    row->recommended.ep_ratio = b->ep_ratio;
    plan_family(&b->plan, row->recommended.family,
                sizeof row->recommended.family);
    row->calibrated = row->recommended.work.x.known;
    /* the range as the report gives it (figures_headline): the span of
     * the plan's scenarios over its expected step */
    x = b->sc.step[SCENARIO_EXPECTED];
    row->has_range = row->calibrated && scenario_known(&b->sc) && x > 0;
    row->range_lo = row->has_range ? b->sc.low / x : 0;
    row->range_hi = row->has_range ? b->sc.high / x : 0;
    if (v->sheet_best >= 0 && v->sheet_best != v->sheet_recommended) {
        const struct ranking_row *f = views_sheet_row(v, (size_t)v->sheet_best);
        row->fastest_differs = true;
        row->fastest = f->plan;
        row->fastest_step = f->step;
    }
}

/* The kind of a row: 0 expected, 1 speed of light only, 2 nothing valid. */
static int kind(const struct compare_row *r)
{
    return !r->any ? 2 : r->calibrated ? 0 : 1;
}

static double cost_of(const struct compare_row *r)
{
    return r->calibrated ? r->recommended.t.x_cost : r->recommended.t.cost_usd;
}

/* Whether a ranks before b: its model's group, its kind, then its
 * cost. */
static bool before(const struct compare_row *a, const struct compare_row *b)
{
    if (a->group != b->group)
        return a->group < b->group;
    if (kind(a) != kind(b))
        return kind(a) < kind(b);
    return kind(a) < 2 && cost_of(a) < cost_of(b);
}

void compare_rank(struct compare_row *rows, size_t n)
{
    size_t i, j, groups = 0;
    long next[2] = {1, 1};
    for (i = 0; i < n; i++) {
        rows[i].calibrated = rows[i].any && rows[i].recommended.work.x.known;
        for (j = 0; j < i; j++) /* the group of the first row of its file */
            if (strcmp(rows[j].model_path, rows[i].model_path) == 0)
                break;
        rows[i].group = j < i ? rows[j].group : groups++;
    }
    /* insertion sort: stable, and n is at most COMPARE_PAIRS_MAX */
    for (i = 1; i < n; i++) {
        struct compare_row *t = malloc(sizeof *t);
        if (!t) /* unsorted, still ranked below */
            break;
        *t = rows[i];
        for (j = i; j > 0 && before(t, &rows[j - 1]); j--)
            rows[j] = rows[j - 1];
        rows[j] = *t;
        free(t);
    }
    for (i = 0; i < n; i++) {
        if (i > 0 && rows[i].group != rows[i - 1].group)
            next[0] = next[1] = 1; /* each model ranks its own clusters */
        rows[i].rank = kind(&rows[i]) < 2 ? next[kind(&rows[i])]++ : 0;
    }
}
