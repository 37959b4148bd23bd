/*
 * cost_prepare: what a model and cluster give every plan before any is
 * evaluated: the pipeline partitions (balanced by time at each
 * precision's rates, by chunk or by DualPipe's pair, or split by a
 * plan's layer counts) and their rank layouts (the distinct pipeline
 * ranks of a partition under one schedule's layout). Built before the
 * sweep (cost_ctx_prepare, not thread-safe), read-only after: the
 * threads share one context, and cost.c looks up a plan's partitions
 * and layouts here (cost_ctx_plan_parts). What a plan costs is cost.h's.
 */
#ifndef PROJ_COST_PREPARE_H
#define PROJ_COST_PREPARE_H

#include <stdbool.h>
#include <stddef.h>

#include "comm.h"
#include "diag.h"
#include "hardware.h"
#include "model.h"
#include "model_partition.h"
#include "plan.h"
#include "stack.h"

/* How pipeline ranks hold chunks: one each (1F1B, ZB), vpp each
 * (interleaved), a mirrored pair each (DualPipe). */
enum cost_layout_kind { COST_SINGLE, COST_INTERLEAVED, COST_DUAL };

/* The distinct pipeline ranks of a partition under one layout: ranks
 * holding identical chunks cost the same, and the lowest of them keeps the
 * most micro-batches in flight, so only these few are evaluated. */
struct cost_layout {
    int kind; /* enum cost_layout_kind */
    long pp;
    size_t nreps;
    struct plan_rank *views; /* ascending pipeline ranks */
    long *ranks;             /* [nreps]: how many ranks each one stands for */
};

struct cost_parts {
    struct model_partition part; /* .chunks == 0 until built */
    struct cost_layout *layouts;
    size_t nlayouts;
    /* FP8's: every chunk equal to the BF16 partition's (an FP8 plan on
     * either runs the same: cost_evaluate need not time both) */
    bool same_as_bf16;
};

/* A partition split by layer counts (model_partition_split) and its
 * layouts, for the plans whose pp*vpp chunks split with these exact
 * first and last chunks' layers (plan_split_layers). */
struct cost_split {
    int precision;
    long chunks, first, last;
    struct cost_parts parts;
};

/* Per model and cluster: pipeline partitions and rank layouts, built
 * before any plan is evaluated (cost_ctx_prepare), read-only after. */
struct cost_ctx {
    const struct model *m;
    const struct hardware *hw;
    enum comm_model comm;
    /* [precision][enum model_balance][chunks], chunks 1 .. units:
     * DualPipe's layout runs on pair-balanced partitions */
    struct cost_parts *parts[MODEL_PRECISIONS][2];
    long nparts;
    struct comm_ep_table ep; /* MoE dispatch expectations by ep */
    /* partitions split by layer counts (plan_split_layers) */
    struct cost_split **splits; /* each allocated apart */
    size_t nsplits;
    /* the training framework's overlaps, for the expected step (with
     * hw->cal; borrowed, set by the caller after cost_ctx_init; NULL:
     * no expected step) */
    const struct stack *stack;
};

/*
 * Prepares a context; m and hw must outlive it. Release with
 * cost_ctx_release(). Returns STATUS_NOMEM on allocation failure.
 */
enum status cost_ctx_init(struct cost_ctx *ctx,
                          const struct model *m,
                          const struct hardware *hw,
                          enum comm_model comm,
                          struct diag *d);

/*
 * Builds what plans with this pp, vpp and schedule need, if not built yet:
 * the partition into pp x vpp chunks (for both precisions: stages are
 * balanced by time at the achievable rates; DualPipe's by the pair of
 * chunks one rank runs) and its rank layout.
 * Not thread-safe; call before evaluating in parallel.
 */
enum status cost_ctx_prepare(struct cost_ctx *ctx,
                             long pp,
                             long vpp,
                             int schedule,
                             struct diag *d);

/* cost_ctx_prepare() for plan p: with a layer split (pp_first, pp_last
 * or pp_split: plan_split_layers), the partition split by those layer
 * counts (model_partition_split) instead of the balanced one. Not thread-safe,
 * as cost_ctx_prepare(). */
enum status cost_ctx_prepare_plan(struct cost_ctx *ctx,
                                  const struct plan *p,
                                  struct diag *d);

/* The partition balanced for plan p's precision and layout (prepared),
 * or NULL. */
const struct model_partition *cost_ctx_partition(const struct cost_ctx *ctx,
                                                 const struct plan *p);

/* The partitions a plan may run on and their prepared layouts (or
 * NULL): [0] balanced for its precision (split by its layer counts
 * where it gives them), [1] the BF16 one an FP8 plan may also run on
 * (NULL where it holds the same chunks: the same memories and times). */
struct cost_plan_parts {
    const struct cost_parts *parts[2];
    const struct cost_layout *layouts[2];
};

/* Plan p's partitions and layouts in ctx (prepared for p, or NULL). */
void cost_ctx_plan_parts(const struct cost_ctx *ctx,
                         const struct plan *p,
                         struct cost_plan_parts *out);

/* The prepared partition of plan p balanced for `precision` (enum
 * model_precision; split by p's layer counts where it gives them), or
 * NULL. */
const struct cost_parts *
cost_ctx_parts(const struct cost_ctx *ctx, const struct plan *p, int precision);

/* The prepared layout of plan p on partition cp, or NULL. */
const struct cost_layout *cost_parts_layout(const struct cost_parts *cp,
                                            const struct plan *p);

void cost_ctx_release(struct cost_ctx *ctx);

#endif
