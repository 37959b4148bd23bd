/*
 * cost_result: what a caller reads of an evaluated plan (cost.h) that
 * needs the evaluate stage: its phases on the rank it ranks by, the
 * partition it runs on and a rank's memory there (the names of its bound
 * and phases, that rank and its step are result.c's, below evaluate).
 * Part of the cost module; cost.c evaluates, this file reads.
 */
#include "cost.h"

#include <string.h>

const struct model_partition *cost_result_partition(const struct cost_ctx *ctx,
                                                    const struct cost_result *r)
{
    const struct cost_parts *cp =
        cost_ctx_parts(ctx, &r->plan, r->balance_precision);
    return cp ? &cp->part : NULL;
}

void cost_rank_memory(const struct cost_ctx *ctx,
                      const struct cost_result *r,
                      long rank,
                      struct memory *out)
{
    const struct model_partition *part = cost_result_partition(ctx, r);
    struct plan_rank v;
    memset(out, 0, sizeof *out);
    out->rank = -1;
    if (!part || rank < 0 || rank >= r->plan.pp)
        return;
    plan_rank_view(&r->plan, part, rank, &v);
    memory_view(ctx->m, ctx->hw, &r->plan, &v, out);
}

double cost_warmup_microbatches(const struct plan *p, long rank, double m)
{
    double n;
    if (p->pp <= 1)
        return 0;
    n = plan_schedule_of(p->schedule)->warmup(p, rank);
    return n < m ? n : m;
}

void cost_phases(const struct cost_result *r, double phase[COST_PHASES])
{
    const struct cost_times *t = &r->t;
    const struct cost_work *w = &r->work;
    bool x = w->x.known;
    double core = x ? t->x_core : t->core;
    double fwd = x ? w->x.fwd_share : w->fwd_share;
    double n = cost_warmup_microbatches(&r->plan, cost_result_rank(r),
                                        w->microbatches);
    double unit = w->microbatches > 0 ? core / w->microbatches : 0;
    phase[COST_WARMUP] = n * fwd * unit;
    phase[COST_COOLDOWN] = n * (1 - fwd) * unit;
    phase[COST_STEADY] = core - phase[COST_WARMUP] - phase[COST_COOLDOWN];
    phase[COST_BUBBLE] = x ? t->x_bubble : t->bubble;
    phase[COST_OPTIMIZER] =
        x ? t->x_optimizer + t->x_dp : t->optimizer + t->dp_exposed;
}
