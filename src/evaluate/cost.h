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
 *
 * This module weighs one plan: its pipeline ranks' work and memory on the
 * partitions cost_prepare.h built, the slowest rank's times, the
 * heaviest rank's memory. It keeps nothing between plans: what a sweep
 * reuses from one plan to the next (a rank's memory or work) it hands in
 * as a hint (struct cost_hint), which the sweep owns and keeps true for
 * the plan it passes it with (rank_cache.c); what the sweep may skip, it
 * decides (rank_prune.c). Two entry points weigh a plan: cost_evaluate()
 * and cost_memory().
 */
#ifndef PROJ_COST_H
#define PROJ_COST_H

#include <stdbool.h>
#include <stddef.h>

#include "comm.h"
#include "cost_prepare.h"
#include "cost_work.h"
#include "diag.h"
#include "expected.h"
#include "hardware.h"
#include "memory.h"
#include "model.h"
#include "plan.h"
#include "result.h"

/* What cost_evaluate weighs (bits, combined with |). */
enum cost_want {
    /* the speed of light: the result's work, times, memory, fit and
     * critical rank, without the expected step (r->work.x.known false) */
    COST_FLOOR = 1 << 0,
    /* and the expected step, where ctx has a calibration and a stack */
    COST_EXPECTED = 1 << 1,
    /* no result (out may be NULL): the hint's distinct ranks, each with
     * its FLOPs and what its `need` asks (struct cost_hint_part) */
    COST_RANKS = 1 << 2
};

/* What a hint holds, as bits: of a distinct rank (struct cost_hint_rank:
 * what it holds, or what COST_RANKS is to weigh of it) and of the plan
 * (struct cost_hint). */
enum cost_have {
    COST_HAVE_MEMORY = 1 << 0, /* a rank's mem and inflight */
    COST_HAVE_WORK = 1 << 1,   /* a rank's w and ct */
    COST_HAVE_PARTS = 1 << 2,  /* the plan's partitions and layouts */
    COST_HAVE_GROUPS = 1 << 3, /* the plan's groups */
    /* the plan's distinct ranks listed: each part's runs and nranks, each
     * rank's view, like and flops (COST_RANKS) */
    COST_HAVE_RANKS = 1 << 4,
    /* the partition the plan's speed of light runs on (cost_evaluate's
     * choice between its two: struct cost_hint's slot) */
    COST_HAVE_SLOT = 1 << 5
};

/* Distinct ranks per partition a hint holds (32 DualPipe stages of
 * DeepSeek-V3 have 10), and the chunks a rank may hold for its memory
 * to be held. */
#define COST_HINT_RANKS  64
#define COST_HINT_CHUNKS 8

/* One distinct pipeline rank of a partition in a hint. */
struct cost_hint_rank {
    unsigned have; /* enum cost_have: which of mem and w hold */
    unsigned need; /* enum cost_have: what COST_RANKS is to weigh */
    const struct plan_rank *view; /* its prepared view (cost_prepare.h) */
    double like;                  /* how many ranks it stands for */
    /* its chunks' micro-batches in flight (plan_inflight_chunks), what
     * its memory reads of the batch */
    double inflight[COST_HINT_CHUNKS];
    struct memory mem;
    struct cost_flops flops;
    struct cost_work w;    /* no expected step (w.x.known false) */
    struct comm_totals ct; /* its collectives' totals */
    /* the library's pick for each of its collectives as its comm_view
     * last made them, keyed by every input of the pick (group, kind,
     * per-call size and link time: struct comm_pick_site), so valid for
     * any plan on the context's cluster (kept whatever `have` says): the
     * batch moves a collective's calls, rarely its size per call */
    struct comm_pick_site sites[COMM_PICK_SITES];
};

/* The distinct ranks of one partition a plan may run on. */
struct cost_hint_part {
    bool runs;     /* COST_RANKS: the plan may run on this partition */
    size_t nranks; /* COST_RANKS: its distinct ranks (0: none listed:
                    * not prepared, or more than COST_HINT_RANKS) */
    size_t held;   /* the entries from rank[held] on hold nothing */
    struct cost_hint_rank rank[COST_HINT_RANKS];
};

/*
 * What a caller hands cost_evaluate and cost_memory besides the plan, for
 * plan p: what it holds (the have bits) is taken as p's instead of being
 * weighed again, and what they weigh is left in it. The caller owns it
 * and keeps it true for the plan it passes it with: zeroed, it holds
 * nothing; between two plans it clears what the second does not share
 * (rank_cache.c: a rank's memory is the same for plans equal but in the
 * batch where the rank's micro-batches in flight are; its work and FLOPs
 * for the same plan only). One per thread and context.
 */
struct cost_hint {
    unsigned have; /* COST_HAVE_PARTS, _GROUPS, _RANKS, _SLOT (enum
                    * cost_have) */
    struct cost_plan_parts parts;
    /* COST_HAVE_SLOT: the partition cost_evaluate chose for the plan (0
     * or 1, part[] below); the choice reads the speed of light alone, so
     * a later call for the same plan weighs that partition only */
    int slot;
    struct comm_groups groups; /* the plan's, with the stack's dispatcher */
    /* the collectives' prepared picks by group and kind: any plan's on
     * the context's cluster (kept whatever the have bits say) */
    struct comm_algo_memo algo;
    /* [0] the partition balanced for the plan's precision, [1] the BF16
     * one an FP8 plan may run on (cost_plan_parts) */
    struct cost_hint_part part[2];
};

/*
 * Weighs plan p (which passed plan_check(), with cost_ctx_prepare done for
 * it) as `want` asks (enum cost_want) into *out; out->family is left
 * empty (see plan_family). An FP8 plan whose critical rank is not
 * compute-bound is also weighed on the BF16 (FLOP-balanced) partition and
 * runs on the faster. The speed of light is a lower bound of the rank
 * step the expected step gives (the floor holds by construction:
 * tests/test_floor.c), so a sweep may skip the expected step of a plan
 * whose floor cannot enter (rank.c). hint: NULL, or what the caller
 * keeps for p (struct cost_hint); the result is the same either way.
 * Allocates nothing; safe to call from several threads on one prepared
 * ctx, each with its own hint. Example:
 *
 *     struct cost_result r;
 *     cost_evaluate(ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
 */
void cost_evaluate(const struct cost_ctx *ctx,
                   const struct plan *p,
                   unsigned want,
                   struct cost_hint *hint,
                   struct cost_result *out);

/* What cost_memory weighed: 1 or 2 candidates' memories. */
struct cost_memories {
    size_t n;             /* candidates: 1 or 2 */
    struct memory mem[2]; /* candidate i's (see cost_memory) */
};

/*
 * The speed-of-light work of distinct rank k of p's partition slot (its w
 * and ct, with its memory) into hint->part[slot].rank[k], unless the hint
 * holds it: what COST_RANKS weighs of a rank whose `need` asks for
 * COST_HAVE_WORK, for that rank alone (rank_prune.c weighs the ranks one
 * at a time). The hint must hold p's ranks (cost_evaluate with
 * COST_RANKS) and k be below hint->part[slot].nranks.
 */
void cost_rank_work(const struct cost_ctx *ctx,
                    const struct plan *p,
                    struct cost_hint *hint,
                    int slot,
                    size_t k);

/*
 * The memory cost_evaluate may give p in out->mem, without timing it,
 * into out->mem[]: the heaviest rank's on the partition balanced for p's
 * precision (mem[0]) and, for an FP8 plan, on the BF16 partition it runs
 * on where that is faster (mem[1]; which one it runs on takes its times;
 * none where that partition holds the same chunks: the same memories).
 * Where a rank's total is above `above` bytes, that rank's memory instead
 * (the heaviest's total is above it too: a caller that only asks whether
 * it is, say whether it fits, need not weigh the other ranks). Returns
 * how many (out->n, 1 or 2). The ranks' memories are left in hint (NULL:
 * none) for cost_evaluate. For a sweep that needs only a plan's memory:
 * one that fits nowhere cannot enter kept plans that all fit (rank.c).
 * Same preconditions as cost_evaluate; allocates nothing.
 */
size_t cost_memory(const struct cost_ctx *ctx,
                   const struct plan *p,
                   double above,
                   struct cost_hint *hint,
                   struct cost_memories *out);

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
 * The collectives (up to max into list) of the pipeline rank evaluated
 * plan r ranks by (cost_result_rank), on the partition it runs on; returns
 * their count (0 when not prepared). For `eval`'s and the workbook's
 * collective tables. Allocates nothing.
 */
size_t cost_collectives(const struct cost_ctx *ctx,
                        const struct cost_result *r,
                        struct comm_collective *list,
                        size_t max);

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

#endif
