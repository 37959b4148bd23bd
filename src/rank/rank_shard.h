/*
 * rank_shard: the rank stage's own part (not for other stages): one
 * thread's share of the sweep (struct shard) and its bounded heap of kept
 * plans, and the functions rank.c's visitor, rank_heap.c, rank_family.c
 * and rank_merge.c share over them. rank.h is the stage's interface.
 */
#ifndef PROJ_RANK_SHARD_H
#define PROJ_RANK_SHARD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "rank.h"
#include "rank_cache.h"

#define FAMILY_KEYS RANKING_FAMILY_KEYS

/*
 * The best `top` plans seen. rows holds them in no order; keys is a
 * max-heap on "worse" over small keys pointing into rows, so sifting moves
 * 16 bytes, not whole rows.
 */
struct heap_key {
    double step;
    uint32_t slot; /* index into rows */
    bool fits;
};

struct heap {
    struct ranking_row *rows;
    struct heap_key *keys;
    size_t n, cap, top;
    bool nomem;
};

/* Above this --top, shards share one heap: memory for `top` plans once,
 * not once per thread. */
#define SHARED_HEAP_MIN 65536

/*
 * One thread's share of the sweep: its own counts, examples, families (by
 * key) and kept plans, merged in a fixed order afterwards so the report is
 * the same whatever the number of threads.
 */
struct shard {
    const struct cost_ctx *ctx;
    const struct sweep_file *sf;
    const struct rank_options *opt;
    /* the cluster at each sensitivity bandwidth (only that rate differs) */
    const struct hardware *sens_ib, *sens_nv;
    const double *sens_ib_gbps, *sens_nv_gbps;
    /* each point's link rate over the cluster's where faster, else 1
     * (grid_need) */
    const double *sens_ib_faster, *sens_nv_faster;
    size_t nsens_ib, nsens_nv;
    double headroom_pct; /* of HBM kept free (terms_fits) */
    FILE *spill;         /* every valid plan, or NULL */
    bool spill_failed;
    uint64_t enumerated;
    size_t thread, nthreads, top, cap;
    bool nomem;
    uint64_t valid, fitting, done, rejected[PLAN_REASONS];
    uint64_t floor_only; /* valid plans whose expected step was skipped */
    uint64_t example_at[PLAN_REASONS][RANKING_EXAMPLES]; /* combination */
    char examples[PLAN_REASONS][RANKING_EXAMPLES][320];
    size_t nexamples[PLAN_REASONS];
    struct ranking_family family[FAMILY_KEYS];
    uint64_t family_first[FAMILY_KEYS]; /* UINT64_MAX: not seen */
    /* Kept plans (row.family holds the family key): the shard's own heap,
     * or, for large --top, one heap all shards share under a lock. */
    struct heap own;
    struct heap *shared;
    pthread_mutex_t *lock;
    struct ranking_row worst; /* the shared heap's root, when last seen */
    bool have_worst;
    struct rank_cache cache; /* the thread's hint from plan to plan */
};

/* ---- rank_heap.c: the kept plans ---- */

/* Whether row a ranks before row b (rank_before). */
bool rank_row_better(const struct ranking_row *a, const struct ranking_row *b);

/* Keeps row in h if it is among its `top` best (h->nomem when it cannot
 * grow). */
void rank_heap_push(struct heap *h, const struct ranking_row *row);

/* Keeps row in b's heap: its own, or the shared one under the lock. */
void rank_keep_row(struct shard *b, const struct ranking_row *row);

/* Sorts rows[0..n) best first, as rank_before orders them; false when
 * out of memory (rows untouched). */
bool rank_sort_rows(struct ranking_row *rows, size_t n);

/* ---- rank_family.c: a family's fold ---- */

/* The family key of plan p: its DP flavour and which of tp, cp, pp, ep
 * exceed 1 (< FAMILY_KEYS). */
int rank_family_key(const struct plan *p);

/* Whether result c beats family f's best (f->best; rank_before). */
bool rank_family_beats(const struct cost_result *c,
                       const struct ranking_family *f);

/* Whether plan p with memory m is lighter than f's lightest: less
 * memory, then the plan's order (thread order must not matter). */
bool rank_family_lighter(const struct plan *p,
                         const struct memory *m,
                         const struct ranking_family *f);

/* Family f's best step at b's other IB and NVLink bandwidths, res's work
 * re-timed on each (res fits). */
void rank_family_sensitivity(const struct shard *b,
                             struct ranking_family *f,
                             const struct cost_result *res);

/* Folds a shard's family `from` into the ranking's family `to`. */
void rank_family_merge(struct ranking_family *to,
                       const struct ranking_family *from);

/* ---- rank_merge.c ---- */

/*
 * Merges shards sh[0..n) into r (their heaps, or the shared heap when
 * given, taken over and freed): counts, the first examples of each
 * rejection in enumeration order, the families in order of their first
 * plan, the rows ranked and cut to top. The same result for any number
 * of shards. STATUS_NOMEM in d.
 */
enum status rank_merge(struct ranking *r,
                       struct shard *sh,
                       size_t n,
                       struct heap *shared,
                       size_t top,
                       struct diag *d);

#endif
