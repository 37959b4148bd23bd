/*
 * compare: the best plan of each (model, hardware) pair (see compare.h).
 */
#include "compare.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    if (!r)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    r->m = m;
    r->hw = hw;
    r->sweep = sf;
    r->comm = ctx->comm;
    memset(&opt, 0, sizeof opt);
    opt.top = 1; /* the best plan, fitting first */
    opt.threads = threads;
    diag_init(&why);
    st = rank_run(r, ctx, sf, &opt, &why);
    if (st == STATUS_OK) {
        const struct report_row *b = &r->rows[0];
        row->any = true;
        row->valid = r->valid;
        row->fitting = r->fitting;
        /* its collectives are not needed: the row shows totals */
        cost_evaluate(ctx, &b->plan, &row->best, NULL, 0, NULL);
        plan_family(&b->plan, row->best.family, sizeof row->best.family);
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
