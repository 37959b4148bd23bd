/*
 * cost: a plan's time per step from its work. Work is what does not depend
 * on the cluster's speeds (FLOPs by precision, bytes per link and phase,
 * calls, HBM bytes, memory); times divide work by the speeds of light of
 * the hardware file. Each time term is defined once, in terms.c, with its
 * C expression beside the spreadsheet formula that repeats it, so editing
 * a rate in the workbook re-times every plan:
 *
 *   compute   = FP8 GEMM FLOPs / FP8 rate + other FLOPs / BF16 rate
 *   ib        = IB bytes / IB bandwidth + calls x IB latency; nvlink alike
 *   sync, gather = the step-end gradient reduction and weight all-gather
 *   steady    = a link's time less sync and gather (with the micro-batches)
 *   comm_sm   = min(compute, busiest steady link) x comm SMs / SMs
 *   offload   = the activation offload's copies beyond the forward (out)
 *               and backward (back) they run beside, per micro-batch
 *   core      = max(compute + comm_sm + offload, ib steady, nvlink
 *               steady, hbm)
 *   ramp      = max(compute, hbm) + the EP, TP and CP traffic's time
 *               (pipeline warm-up and cool-down overlap none of it)
 *   bubble    = bubble_coef x (1 + skew) x ramp / micro-batches (per
 *               schedule; skew: the other stages' ramps over this one's)
 *   dp_exposed = sync beyond one micro-batch's backward + gather beyond
 *               one micro-batch's forward (its share of the core: the
 *               floor's ideal overlap; the expected step's, of compute)
 *   step      = bubble + optimizer + core + dp_exposed
 *   serial    = bubble + optimizer + max(compute, hbm) + ib + nvlink
 */
#ifndef PROJ_COST_H
#define PROJ_COST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "comm.h"
#include "cost_prepare.h"
#include "cost_work.h"
#include "diag.h"
#include "expected.h"
#include "hardware.h"
#include "memory.h"
#include "model.h"
#include "plan.h"

struct cost_result {
    struct plan plan;
    char family[32];
    struct cost_work work;
    struct cost_times t;
    struct memory mem; /* heaviest rank */
    bool fits;
    long rank;       /* critical (slowest) pipeline rank */
    double ep_ratio; /* MoE all-to-all / compute, summed over ranks */
    /* the partition the plan runs on: balanced by time at this
     * precision's rates (enum model_precision; see cost_evaluate) */
    int balance_precision;
    bool grads_per_step; /* critical rank: ZeRO-2/3 gradients reduced once
                          * per step (struct memory) */
};

/* The partition evaluated plan r runs on (r->balance_precision), or
 * NULL when not prepared. */
const struct model_partition *
cost_result_partition(const struct cost_ctx *ctx, const struct cost_result *r);

/*
 * Memory of pipeline rank `rank` (0 .. pp-1) of evaluated plan r, on the
 * partition it runs on; out->rank = -1 when not prepared. For the
 * per-rank table of `eval`. Allocates nothing.
 */
void cost_rank_memory(const struct cost_ctx *ctx,
                      const struct cost_result *r,
                      long rank,
                      struct memory *out);

/*
 * Evaluates plan p (which passed plan_check(), with cost_ctx_prepare done
 * for it) into *r; r->family is left empty (see plan_family). An FP8 plan
 * whose critical rank is not compute-bound is also evaluated on the
 * BF16 (FLOP-balanced) partition and runs on the faster. When list
 * is not NULL, also writes the collectives (up to max) of the rank the
 * plan ranks by (cost_result_rank)
 * and stores their count in *nlist. Allocates nothing; safe to call from
 * several threads on one prepared ctx.
 */
void cost_evaluate(const struct cost_ctx *ctx,
                   const struct plan *p,
                   struct cost_result *r,
                   struct comm_collective *list,
                   size_t max,
                   size_t *nlist);

/*
 * The speed of light of p alone: cost_evaluate without the expected step
 * (r->work.x.known false, so cost_rank_step(r) is the floor), the same
 * memory, fit, critical rank and speed-of-light times. It is a lower bound
 * of the rank step cost_evaluate gives p (the floor holds by construction:
 * tests/test_floor.c), so a sweep keeping the best plans may skip the
 * expected step of a plan whose floor cannot enter (rank.c).
 */
void cost_evaluate_floor(const struct cost_ctx *ctx,
                         const struct plan *p,
                         struct cost_result *r);

/* The first distinct ranks whose memories cost_memory_candidates keeps. */
#define COST_KNOWN_RANKS 8

/* Distinct ranks per partition whose memories a struct cost_memo keeps,
 * and the chunks a rank may hold for it to keep its memory. */
#define COST_MEMO_RANKS  64
#define COST_MEMO_CHUNKS 8

/* One rank's memory in a struct cost_memo. */
struct cost_memo_rank {
    uint64_t gen;              /* the memo's gen when weighed; 0: none */
    const struct plan_rank *v; /* the prepared view it is of */
    double inflight[COST_MEMO_CHUNKS]; /* plan_inflight_chunk's, by chunk */
    struct memory mem;                 /* memory_view's */
};

/* Distinct ranks per partition whose work a struct cost_memo keeps for
 * the plan it last weighed. */
#define COST_MEMO_WORKS 16

/* One distinct rank's speed-of-light work in a struct cost_memo: what
 * rank_work gives it without the expected step (w.x unknown), its
 * collectives' totals (for the expected step's work) and its memory. */
struct cost_memo_work {
    uint64_t gen;              /* the memo's work_gen when weighed; 0: none */
    const struct plan_rank *v; /* the prepared view it is of */
    struct cost_work w;
    struct comm_totals ct;
    struct memory mem;
};

/* Distinct ranks per partition whose speed-of-light bounds from compute
 * a struct cost_memo keeps (cost_floor_bounds). */
#define COST_MEMO_BOUND_RANKS 64

/* One partition's bounds from its ranks' compute, optimizer and bubble
 * (cost_floor_bounds), for the plan a struct cost_memo last weighed. */
struct cost_memo_bound {
    uint64_t gen; /* the memo's work_gen when weighed; 0: none */
    bool known;   /* false: no bound (a bubble coefficient below 0) */
    double hi, lo;
    double bubble[COST_MEMO_BOUND_RANKS], step[COST_MEMO_BOUND_RANKS];
};

/*
 * A sweep thread's memory of the last plan's rank memories (caller-owned,
 * zeroed before first use, one per thread): a rank's memory depends on
 * the plan's global batch only through the micro-batches in flight, so a
 * plan that differs from the last one only in gbs (the sweep's fastest
 * dimension) takes the memories of its prepared ranks whose in-flight
 * counts did not move instead of weighing them again: the same numbers.
 */
struct cost_memo {
    uint64_t gen;    /* bumped when key changes; 0: unused */
    struct plan key; /* the plan, its gbs and micro-batches aside */
    struct cost_memo_rank rank[2][COST_MEMO_RANKS]; /* [partition][rank] */
    /* comm_groups_init's placement for the last plan, by what it reads
     * of it (tp, cp, dp, edp, ep, pp; the sweep's inner dimensions keep
     * them) */
    bool has_groups;
    long groups_of[6];
    struct comm_groups groups;
    /* The last plan's distinct ranks' work, by partition and rank: the
     * bound (cost_floor_bounds), the floor and the expected step of one
     * plan weigh each rank once (the expected step adds its own work to
     * it). work_gen is bumped when the plan changes in any field. */
    uint64_t work_gen;
    long work_gbs, work_microbatches; /* of the plan work_gen is for */
    struct cost_memo_work work[2][COST_MEMO_WORKS];
    /* the last plan's partitions and layouts (cost_ctx_plan_parts, read
     * by plans that agree with the one they were found for, parts_key,
     * in its pipeline, schedule, precision and split), and its bounds
     * from compute by partition (a bound weighed first from compute
     * alone, then with the ranks' full work, weighs the compute once) */
    bool parts_known;
    struct plan parts_key;
    struct cost_plan_parts parts;
    struct cost_memo_bound bound[2];
};

/* What cost_memory_candidates weighed: each candidate's memory and the
 * memories of its partition's first distinct ranks, which
 * cost_evaluate_floor_known takes instead of weighing them again; memo,
 * set by the caller (or NULL), the thread's memo they are weighed
 * through (cost_memory_candidates, cost_evaluate_floor_known and
 * cost_evaluate_known). */
struct cost_memories {
    size_t n;                          /* candidates: 1 or 2 */
    struct memory mem[2];              /* candidate i's (see below) */
    const struct cost_parts *parts[2]; /* the partition it runs on */
    size_t known[2]; /* its first ranks weighed, 0 .. COST_KNOWN_RANKS */
    struct memory rank[2][COST_KNOWN_RANKS];
    struct cost_memo *memo;
};

/*
 * The memory cost_evaluate_floor and cost_evaluate may give p in r->mem,
 * without timing it, into out->mem[]: the heaviest rank's on the
 * partition balanced for p's precision (mem[0]) and, for an FP8 plan, on
 * the BF16 partition it runs on where that is faster (mem[1]; which one
 * it runs on takes its times; none where that partition holds the same
 * chunks: the same memories). Where a rank's total is above `above`
 * bytes, that rank's memory instead (the heaviest's total is above it
 * too: a caller that only asks whether it is, say whether it fits, need
 * not weigh the other ranks). Returns how many (out->n, 1 or 2). For a
 * sweep that needs only a plan's memory: one that fits nowhere cannot
 * enter kept plans that all fit (rank.c). Same preconditions as
 * cost_evaluate; allocates nothing.
 */
size_t cost_memory_candidates(const struct cost_ctx *ctx,
                              const struct plan *p,
                              double above,
                              struct cost_memories *out);

/* cost_evaluate_floor(ctx, p, r) with the rank memories `known` holds for
 * p (cost_memory_candidates of the same plan and ctx) taken instead of
 * weighed again: the same result. */
void cost_evaluate_floor_known(const struct cost_ctx *ctx,
                               const struct plan *p,
                               const struct cost_memories *known,
                               struct cost_result *r);

/* cost_evaluate(ctx, p, r, NULL, 0, NULL) with the rank memories `known`
 * holds for p taken as cost_evaluate_floor_known takes them (known->n 0:
 * none, only its memo): the same result. */
void cost_evaluate_known(const struct cost_ctx *ctx,
                         const struct plan *p,
                         const struct cost_memories *known,
                         struct cost_result *r);

/*
 * Lower bounds of p's speed of light without timing it, from its ranks'
 * compute, optimizer step and bubble (cost.c says why they bound it,
 * above cost_floor_bounds): *step of the step cost_evaluate_floor gives p (its
 * slowest rank's), *any_rank of the step of any of its ranks, also on
 * the cluster with another IB or NVLink bandwidth (the sensitivity grids
 * re-time the slowest rank's work there). Returns false when it knows
 * none (a rank whose schedule's bubble coefficient is below 0). For a
 * sweep: a plan whose bound cannot enter is not timed at all (rank.c).
 * An FP8 plan's bounds are the smaller of its two partitions'; where the
 * first one's *step is already at most at_most, so is the plan's, and
 * that one is given without weighing the other (for a caller that asks
 * only whether *step is above at_most; -1: always both). With known
 * (cost_memory_candidates of the same plan and ctx; NULL: none) and
 * full, where that *step is at most at_most, the ranks' full
 * speed-of-light work tightens it (their links, HBM and exposed DP too),
 * one distinct rank at a time until it is above at_most: a plan far
 * above at_most costs one rank's work instead of cost_evaluate_floor's
 * every rank on both partitions. Through known's memo the bounds from
 * compute are weighed once per plan: a call with full after one without
 * takes them (the same numbers). Same preconditions as cost_evaluate;
 * allocates nothing.
 */
bool cost_floor_bounds(const struct cost_ctx *ctx,
                       const struct plan *p,
                       const struct cost_memories *known,
                       bool full,
                       double at_most,
                       double *step,
                       double *any_rank);

/* Times from work and the hardware's rates (the spreadsheet's formulas). */
void cost_times(const struct cost_work *w,
                const struct hardware *hw,
                const struct model *m,
                int precision,
                struct cost_times *t);

/*
 * max(compute, ib, nvlink, hbm) and, in *bound, which term it is (ties go
 * to the earlier term). The binding rule of cost_times(), for callers that
 * re-time plans at other bandwidths.
 */
double
cost_core(double compute, double ib, double nvlink, double hbm, int *bound);

/*
 * The skew of a rank's ramp: the other ranks' mean ramp unit over its
 * own (own), less 1, from the sum over all `count` ranks (sum). The
 * pipeline's warm-up and cool-down on a rank's critical path run one
 * micro-batch of each other stage, not of this one (Narayanan et al.
 * 2021 §2.2, 1F1B: the step is m x the slowest stage's forward and
 * backward plus one of each other stage's), so the bubble is the
 * schedule's coefficient x (1 + skew) x the rank's ramp unit. 0 with no
 * other rank or no ramp.
 */
double cost_ramp_skew(double sum, double count, double own);

/*
 * The phases of a step on the critical pipeline rank, in seconds, summing
 * to the step:
 * - warmup: the rank's forward passes before its first backward (the
 *   schedule's warm-up micro-batches, at its forward share of a
 *   micro-batch's core time);
 * - cooldown: the matching backward passes after its last forward;
 * - steady: the rest of the core (forward and backward paired);
 * - bubble: the rank idle, waiting for the other stages' ramps;
 * - optimizer: the optimizer step and the exposed step-end DP sync and
 *   gather.
 */
enum cost_phase {
    COST_WARMUP,
    COST_STEADY,
    COST_COOLDOWN,
    COST_BUBBLE,
    COST_OPTIMIZER,
    COST_PHASES
};

/* "warmup", "steady", "cooldown", "bubble", "optimizer". */
const char *cost_phase_str(int phase);

/*
 * Micro-batches of warm-up (forward passes before the first backward) on
 * pipeline rank `rank` of plan p with m micro-batches, in micro-batches of
 * the rank's work, at most m: 1F1B and ZB1P p - rank - 1 (Megatron-LM
 * schedules.py; ZB1P keeps 1F1B's warm-up, Qi et al. 2024); interleaved
 * ((p - rank - 1) x 2 + (v - 1) x p) chunk forwards of 1/v each
 * (Megatron-LM's interleaved schedule); DualPipe p chunk forwards
 * (DualPipe's steps 1-2: (p/2 - h - 1) x 2 forwards, then h + 1 forward
 * pairs, h the rank's distance to the nearer end).
 */
double cost_warmup_microbatches(const struct plan *p, long rank, double m);

/* The phases (enum cost_phase) of r's expected step when known, else of
 * its speed of light, on the rank that is slowest there
 * (cost_result_rank). */
void cost_phases(const struct cost_result *r, double phase[COST_PHASES]);

/* The pipeline rank whose step r ranks by: the slowest at the expected
 * rates where the expected step is known (r->work.x.rank), else the
 * slowest at the speed of light (r->rank). */
long cost_result_rank(const struct cost_result *r);

/* The step a plan ranks by: the expected one where it is known, else the
 * speed of light. */
double cost_rank_step(const struct cost_result *r);

/* "compute", "IB", "NVLink", "HBM": for sentences and charts. */
const char *cost_bound_label(int bound);

/* "compute", "ib", "nvlink", "hbm". */
const char *cost_bound_str(int bound);

#endif
