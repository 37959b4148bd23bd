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
 * of the base rates: only bubble >= 0 is known there). terms_step_floors
 * writes these sums with the terms' own functions. A rank's work gives
 * its core and exposed DP exactly (they read no skew), so where the
 * compute bound is not enough they replace it, one rank at a time. An
 * FP8 plan may run on either partition (cost_evaluate): the smaller
 * bound of the two. The margin covers rounding (a few ulps).
 */
#include "rank_prune.h"

#include <string.h>

#include "terms.h"

/* The bounds from compute of the distinct ranks of partition part into
 * b (terms_step_floors): each rank's step bound and the bound of the
 * other ranks' mean ramp its bubble is over, their largest into b->hi
 * and the smallest compute + optimizer into b->lo; b->known false where
 * there is none (a rank's bubble coefficient below 0). */
static void compute_bounds(const struct cost_ctx *ctx,
                           const struct plan *p,
                           const struct cost_hint_part *part,
                           struct rank_cache_bound *b)
{
    const struct cost_flops *f[COST_HINT_RANKS];
    double like[COST_HINT_RANKS];
    struct terms_floor fl[COST_HINT_RANKS];
    size_t k, n = part->nranks;
    b->valid = true;
    for (k = 0; k < n; k++) {
        f[k] = &part->rank[k].flops;
        like[k] = part->rank[k].like;
    }
    b->known = n > 0 && terms_step_floors(ctx->hw, f, like, n,
                                          (double)p->microbatches, fl);
    for (k = 0; b->known && k < n; k++) {
        double fixed = fl[k].optimizer + fl[k].compute;
        b->ramp[k] = fl[k].ramp;
        b->step[k] = fl[k].step;
        if (k == 0 || b->step[k] > b->hi)
            b->hi = b->step[k];
        if (k == 0 || fixed < b->lo)
            b->lo = fixed;
    }
}

/* Over the distinct ranks of p on partition s (struct cost_hint): the
 * largest lower bound of a rank's step into *hi, the smallest of a
 * rank's step at any link bandwidth into *lo (compute_bounds); false
 * when it knows none. With RANK_PRUNE_FULL, where *hi is at most at_most, the
 * ranks' full work tightens it, one rank at a time from the likeliest
 * slowest, until it is above at_most. */
static bool part_bounds(const struct cost_ctx *ctx,
                        const struct plan *p,
                        struct rank_cache *c,
                        int s,
                        enum rank_prune_depth depth,
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
    if (depth != RANK_PRUNE_FULL || *hi > at_most)
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
        cost_rank_work(ctx, p, &c->hint, s, next);
        te.w = &r->w;
        bound = terms_step_floor(&te, b->ramp[next]);
        if (bound > *hi)
            *hi = bound;
        if (*hi > at_most)
            return true;
    }
}

bool rank_prune_bounds(const struct cost_ctx *ctx,
                       const struct plan *p,
                       struct rank_cache *c,
                       enum rank_prune_depth depth,
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
        !part_bounds(ctx, p, c, 0, depth, above, &hi, &lo))
        return false;
    if (part[1].runs && !(hi * (1 - 1e-9) <= at_most)) { /* else: see .h */
        if (part[1].nranks == 0 ||
            !part_bounds(ctx, p, c, 1, depth, above, &hi2, &lo2))
            return false;
        hi = hi2 < hi ? hi2 : hi;
        lo = lo2 < lo ? lo2 : lo;
    }
    *step = hi * (1 - 1e-9);
    *any_rank = lo * (1 - 1e-9);
    return true;
}
