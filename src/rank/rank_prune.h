/*
 * rank_prune: a plan's speed of light bounded from below without timing
 * it, so a sweep keeping the best plans skips what cannot enter them
 * (rank.c decides what it must beat). The bounds are the step's own
 * terms with what is not yet known bounded (terms_step_floors, terms.c,
 * beside the terms it bounds); the ranks' FLOPs and work are evaluate's
 * (cost_evaluate's COST_RANKS), weighed once per plan through the
 * thread's cache (rank_cache.h).
 */
#ifndef PROJ_RANK_PRUNE_H
#define PROJ_RANK_PRUNE_H

#include <stdbool.h>

#include "cost.h"
#include "plan.h"
#include "rank_cache.h"

/* How far rank_prune_bounds goes: the ranks' compute bounds alone, or,
 * where they are not above at_most, the ranks' full work too. */
enum rank_prune_depth { RANK_PRUNE_COMPUTE, RANK_PRUNE_FULL };

/*
 * Lower bounds of p's speed of light without timing it, from its ranks'
 * compute, optimizer step and bubble (rank_prune.c says why they bound
 * it): *step of the step cost_evaluate gives p (its slowest rank's),
 * *any_rank of the step of any of its ranks, also on the cluster with
 * another IB or NVLink bandwidth (the sensitivity grids re-time the
 * slowest rank's work there). Returns false when it knows none (a rank
 * whose schedule's bubble coefficient is below 0, or a layout not
 * prepared or with more distinct ranks than a hint holds). An FP8 plan's
 * bounds are the smaller of its two partitions'; where the first one's
 * *step is already at most at_most, so is the plan's, and that one is
 * given without weighing the other (for a caller that asks only whether
 * *step is above at_most; -1: always both). With full, where that *step
 * is at most at_most, the ranks' full speed-of-light work tightens it
 * (their links, HBM and exposed DP too), one distinct rank at a time
 * until it is above at_most: a plan far above at_most costs one rank's
 * work instead of the floor's every rank on both partitions. c: the
 * thread's cache, rank_cache_hint(c, p) called for p; the bounds from
 * compute are weighed once per plan there (a RANK_PRUNE_FULL call after
 * a RANK_PRUNE_COMPUTE one takes them: the same numbers). Same preconditions as
 * cost_evaluate; allocates nothing.
 */
bool rank_prune_bounds(const struct cost_ctx *ctx,
                       const struct plan *p,
                       struct rank_cache *c,
                       enum rank_prune_depth depth,
                       double at_most,
                       double *step,
                       double *any_rank);

#endif
