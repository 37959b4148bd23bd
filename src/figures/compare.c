/*
 * compare: the recommended plan of each (model, hardware) pair (see
 * compare.h).
 */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "rank.h"
#include "report.h"

enum status compare_pair(struct compare_row *row,
                         struct cost_ctx *ctx,
                         const struct sweep_file *sf,
                         size_t threads,
                         struct diag *d)
{
    const struct model *m = ctx->m;
    const struct hardware *hw = ctx->hw;
    struct report *r = calloc(1, sizeof *r); /* large: not on the stack */
    struct rank_options opt;
    struct diag why;
    enum status st;

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
    if (!r)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    r->m = m;
    r->hw = hw;
    r->sweep = sf;
    r->comm = ctx->comm;
    memset(&opt, 0, sizeof opt);
    opt.top = 0; /* as the report: its ties are among its Plans sheet */
    opt.threads = threads;
    diag_init(&why);
    st = rank_run(r, ctx, sf, &opt, &why);
    if (st == STATUS_OK)
        st = figures_recommend(r, &why);
    if (st == STATUS_OK) {
        const struct report_row *b =
            report_sheet_row(r, (size_t)r->sheet_recommended);
        row->any = true;
        row->valid = r->valid;
        row->fitting = r->fitting;
        /* the kept row as rank timed it (its collectives are not
         * needed: the row shows totals) */
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
        if (r->sheet_best >= 0 && r->sheet_best != r->sheet_recommended) {
            const struct report_row *f =
                report_sheet_row(r, (size_t)r->sheet_best);
            row->fastest_differs = true;
            row->fastest = f->plan;
            row->fastest_step = f->step;
        }
    } else if (st == STATUS_RANGE) { /* nothing valid: say why, go on */
        diag_snprintf(row->why, sizeof row->why, "%s", why.msg);
        st = STATUS_OK;
    } else {
        diag_set(d, st, "%s", why.msg);
    }
    report_free(r);
    free(r);
    return st;
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

/* Whether a ranks before b: its kind first, then its cost. */
static bool before(const struct compare_row *a, const struct compare_row *b)
{
    if (kind(a) != kind(b))
        return kind(a) < kind(b);
    return kind(a) < 2 && cost_of(a) < cost_of(b);
}

void compare_rank(struct compare_row *rows, size_t n)
{
    size_t i, j;
    long next[2] = {1, 1};
    for (i = 0; i < n; i++)
        rows[i].calibrated = rows[i].any && rows[i].recommended.work.x.known;
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
    for (i = 0; i < n; i++)
        rows[i].rank = kind(&rows[i]) < 2 ? next[kind(&rows[i])]++ : 0;
}
