/*
 * rank_cache: what a sweep thread keeps from the plan it weighed last for
 * the next, and hands to evaluate as a hint (struct cost_hint, cost.h):
 * the partitions, placements, rank memories, FLOPs and work cost_evaluate
 * and cost_memory weighed, and the bounds rank_prune.c built. The sweep
 * runs the global batch fastest, so most plans differ from the last one
 * in the batch alone, and a rank's memory depends on the batch only
 * through its micro-batches in flight.
 *
 * The key is the whole plan: a plan that differs from the last in any
 * field but the batch (gbs and the micro-batches it gives) keeps nothing;
 * one that differs in the batch alone keeps the memories of the ranks
 * whose in-flight counts did not move; the same plan keeps everything
 * (its work, FLOPs and the partition its speed of light chose).
 * plan_same() compares every field of struct plan (generated with it:
 * plan.h's PLAN_MEMBERS), so a new field is in the key by default.
 * tests/test_rank_cache.c varies every field of a plan and holds the
 * cached results to the cold ones.
 */
#ifndef PROJ_RANK_CACHE_H
#define PROJ_RANK_CACHE_H

#include <stdbool.h>

#include "cost.h"
#include "plan.h"

/* rank_prune's bounds from compute of one partition, for the cache's
 * plan. */
struct rank_cache_bound {
    bool valid; /* weighed for the cache's plan */
    bool known; /* false: no bound (a bubble coefficient below 0) */
    double hi, lo;
    /* each distinct rank's: the bound of the other ranks' mean ramp its
     * bubble is over, and of its step from its compute */
    double ramp[COST_HINT_RANKS], step[COST_HINT_RANKS];
};

/* One sweep thread's, for one context (caller-owned; zeroed: empty). */
struct rank_cache {
    bool used;        /* false: no plan yet */
    struct plan key;  /* the last plan with its batch masked */
    struct plan plan; /* the last plan */
    struct cost_hint hint;
    struct rank_cache_bound bound[2]; /* by partition (struct cost_hint) */
};

/*
 * The hint for plan p (which passed plan_check()), for cost_evaluate,
 * cost_memory and rank_prune_bounds on p: what c kept from the last
 * plan where p shares it, the rest cleared. Call it once per plan, before
 * any of them; the hint is valid until the next call. Allocates nothing.
 */
struct cost_hint *rank_cache_hint(struct rank_cache *c, const struct plan *p);

/* Forgets everything c keeps: the next plan starts as from a zeroed
 * cache (what a test compares a kept cache with). */
void rank_cache_forget(struct rank_cache *c);

#endif
