/*
 * rank_prune: bounds of a plan's speed of light from its ranks' FLOPs
 * and, where those are not enough, their work (see rank_prune.h).
 *
 * Why they bound the floor (terms.c): a rank's step is its bubble +
 * optimizer + core + exposed DP, the last at least 0 and its core at
 * least its compute term. Its bubble is the coefficient x (1 + skew) x
 * its ramp / micro-batches, where (1 + skew) x ramp is the other ranks'
 * mean ramp (cost_ramp_skew), and a ramp is at least its compute: with a
 * coefficient of at least 0 the bubble is at least the coefficient x the
 * other ranks' mean compute / micro-batches. Compute and optimizer do not
 * move with the links' bandwidth, so the slowest rank's step is at least
 * the largest such sum, and any rank's step at any IB or NVLink bandwidth
 * at least its compute + optimizer (the sensitivity grids keep the skew
 * of the base rates: only bubble >= 0 is known there). terms_step_floor
 * writes these sums with the terms' own functions. A rank's work gives
 * its core and exposed DP exactly (they read no skew), so where the
 * compute bound is not enough they replace it, one rank at a time. An
 * FP8 plan may run on either partition (cost_evaluate): the smaller
 * bound of the two. The margin covers rounding (a few ulps).
 */
#include "rank_prune.h"

#include <string.h>

#include "terms.h"

/* The bounds from compute of the n distinct ranks of partition part
 * into b: each rank's step bound and the bound of the other ranks' mean
 * ramp its bubble is over, their largest into b->hi and the smallest
 * compute + optimizer into b->lo; b->known false where a rank's bubble
 * coefficient is below 0. */
static void compute_bounds(const struct cost_ctx *ctx,
                           const struct plan *p,
                           const struct cost_hint_part *part,
                           struct rank_cache_bound *b)
{
    size_t k, n = part->nranks;
    double sum = 0, count = 0, c[COST_HINT_RANKS];
    struct cost_work w;
    struct terms_env e = {&w, ctx->hw, ctx->m, MODEL_BF16, NULL};
    b->valid = true;
    b->known = false;
    for (k = 0; k < n; k++) {
        const struct cost_hint_rank *r = &part->rank[k];
        if (!(r->flops.bubble_coef >= 0))
            return;
        c[k] = terms_sol_compute(ctx->hw, r->flops.bf16, r->flops.fp8);
        sum += r->like * c[k];
        count += r->like;
    }
    memset(&w, 0, sizeof w);
    w.microbatches = (double)p->microbatches;
    for (k = 0; k < n; k++) {
        const struct cost_flops *f = &part->rank[k].flops;
        double fixed;
        w.fp8_flops = f->fp8;
        w.bf16_flops = f->bf16;
        w.bubble_coef = f->bubble_coef;
        w.fwd_share = f->fwd_share;
        w.optimizer_bytes = f->optimizer_bytes;
        /* the other ranks' mean ramp, at least their mean compute */
        b->ramp[k] = count > 1 && c[k] > 0 ? (sum - c[k]) / (count - 1) : c[k];
        b->step[k] =
            terms_step_floor(&e, b->ramp[k], TERMS_FLOOR_FLOPS, &fixed);
        if (k == 0 || b->step[k] > b->hi)
            b->hi = b->step[k];
        if (k == 0 || fixed < b->lo)
            b->lo = fixed;
    }
    b->known = n > 0;
}

/* Over the distinct ranks of p on partition s (struct cost_hint): the
 * largest lower bound of a rank's step into *hi, the smallest of a
 * rank's step at any link bandwidth into *lo (compute_bounds); false
 * when it knows none. With full, where *hi is at most at_most, the
 * ranks' full work tightens it, one rank at a time from the likeliest
 * slowest, until it is above at_most. */
static bool part_bounds(const struct cost_ctx *ctx,
                        const struct plan *p,
                        struct rank_cache *c,
                        int s,
                        bool full,
                        double at_most,
                        double *hi,
                        double *lo)
{
    struct rank_cache_bound *b = &c->bound[s];
    struct cost_hint_part *part = &c->hint.part[s];
    double step[COST_HINT_RANKS];
    size_t k, n = part->nranks;
    if (!b->valid)
        compute_bounds(ctx, p, part, b);
    if (!b->known)
        return false;
    *hi = b->hi;
    *lo = b->lo;
    if (!full || *hi > at_most)
        return true;
    /* The ranks go from the largest compute bound down: the first one
     * above at_most settles it and the others are not weighed. */
    memcpy(step, b->step, n * sizeof *step);
    for (;;) {
        struct cost_hint_rank *r;
        struct terms_env te = {NULL, ctx->hw, ctx->m, MODEL_BF16, NULL};
        size_t next = n;
        double bound;
        for (k = 0; k < n; k++) /* the largest not weighed yet */
            if (step[k] >= 0 && (next == n || step[k] > step[next]))
                next = k;
        if (next == n)
            return true;
        step[next] = -1; /* weighed */
        r = &part->rank[next];
        if (!(r->have & COST_HAVE_WORK)) {
            r->need |= COST_HAVE_WORK;
            cost_evaluate(ctx, p, COST_RANKS, &c->hint, NULL);
        }
        te.w = &r->w;
        bound = terms_step_floor(&te, b->ramp[next], TERMS_FLOOR_WORK, NULL);
        if (bound > *hi)
            *hi = bound;
        if (*hi > at_most)
            return true;
    }
}

bool rank_prune_bounds(const struct cost_ctx *ctx,
                       const struct plan *p,
                       struct rank_cache *c,
                       bool full,
                       double at_most,
                       double *step,
                       double *any_rank)
{
    const struct cost_hint_part *part = c->hint.part;
    /* part_bounds compares its sums unrounded */
    double above = at_most / (1 - 1e-9);
    double hi, lo, hi2, lo2;
    /* the distinct ranks and their FLOPs, once per plan */
    if (!c->bound[0].valid)
        cost_evaluate(ctx, p, COST_RANKS, &c->hint, NULL);
    if (!part[0].runs || part[0].nranks == 0 ||
        !part_bounds(ctx, p, c, 0, full, above, &hi, &lo))
        return false;
    if (part[1].runs && !(hi * (1 - 1e-9) <= at_most)) { /* else: see .h */
        if (part[1].nranks == 0 ||
            !part_bounds(ctx, p, c, 1, full, above, &hi2, &lo2))
            return false;
        hi = hi2 < hi ? hi2 : hi;
        lo = lo2 < lo ? lo2 : lo;
    }
    *step = hi * (1 - 1e-9);
    *any_rank = lo * (1 - 1e-9);
    return true;
}
