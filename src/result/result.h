/*
 * result: what evaluating a plan gives, as the stages after it read it —
 * the types the evaluate stage fills (a rank's memory, a collective with
 * its times, a plan's result, a waterfall's replay, a published run's
 * prediction; the work and times are cost_work.h's) and their names
 * (the bound, phase, collective and effect labels, the step and rank a
 * result ranks by). Nothing here evaluates a plan: this stage sits below
 * evaluate, so that rank hands its results to figures and the writers,
 * which include no evaluate header (docs/ARCHITECTURE.md, "Hand-offs").
 * The names keep their enums' prefixes (cost_, comm_, expected_).
 */
#ifndef PROJ_RESULT_H
#define PROJ_RESULT_H

#include <stdbool.h>
#include <stddef.h>

#include "comm_pick.h"
#include "cost_work.h"
#include "plan.h"
#include "scenario_steps.h"
#include "validation.h"

/* ---- Collectives (comm.c lists them and times them) ---- */

enum comm_model { COMM_TOPO, COMM_FLAT };

enum comm_kind {
    COMM_ALL_REDUCE,
    COMM_ALL_GATHER,
    COMM_REDUCE_SCATTER,
    COMM_ALL_TO_ALL,
    COMM_SEND_RECV
};

/* What a collective is for; totals are kept per purpose. */
enum comm_what {
    COMM_DP_GRADS,   /* data parallel: gradients */
    COMM_DP_WEIGHTS, /* ZeRO: weights gathered after the step / per use */
    COMM_EDP_GRADS,  /* expert data parallel: gradients */
    COMM_EDP_WEIGHTS,
    COMM_TP,          /* tensor (sequence) parallel activations */
    COMM_TP_REGATHER, /* of them, the backward's all-gathers of the
                       * column-parallel GEMMs' inputs (comm.c) */
    COMM_CP,          /* context parallel keys and values */
    COMM_EP,          /* expert parallel dispatch and combine */
    COMM_PP,          /* pipeline activations and their gradients */
    COMM_WHATS
};

/*
 * When in the step a collective runs: with the micro-batches (overlappable
 * with their compute), or once at the step's end — the gradients'
 * reduction after the last backward, the weights' all-gather after the
 * optimizer step (before the next step's first forward). The step-end
 * ones are on the critical path but for what the last backward and the
 * first forward can hide (cost.h).
 */
enum comm_phase { COMM_STEADY, COMM_SYNC, COMM_GATHER, COMM_PHASES };

struct comm_collective {
    const char *name; /* "ZeRO-3 weight all-gather (forward)" */
    int what;         /* enum comm_what */
    int kind;         /* enum comm_kind */
    int phase;        /* enum comm_phase */
    struct plan_span span;
    double calls;        /* per GPU per step */
    double bytes;        /* algorithmic volume per GPU per step */
    double ib_bytes;     /* of which over IB (per the comm model) */
    double nvlink_bytes; /* of which over NVLink */
    /* what the collectives library picks for each call (comm_algo.h):
     * its algorithm, protocol and share of the link's rate */
    struct comm_algo algo;
    /* its latency over the step (calls x the pick's), charged to the
     * link its group spans: IB across nodes, NVLink inside one */
    struct comm_lat ib_lat, nvlink_lat;
    /* s: its time on each link, and of that its latency's
     * (comm_collective_times; 0 until then) */
    double ib_s, nvlink_s, lat_s;
};

#define COMM_LIST_MAX 24

/* Short names: "all-gather", "IB"... ; never NULL. */
const char *comm_kind_str(int kind);
const char *comm_model_str(enum comm_model model);

/* ---- Memory (memory.c weighs it) ---- */

struct memory {
    long rank;         /* pipeline rank these bytes are for */
    double weights;    /* bytes, incl. ZeRO-3 gathered buffers, FP8 copies */
    double fp8_copies; /* of weights: FP8 copies and transposes kept in
                        * place of the compute copy of FP8-run weights */
    double grads;
    double optimizer;   /* master weights and Adam moments */
    double activations; /* saved activations incl. logits and working */
    double logits;      /* of which the loss's logits */
    double working;     /* of which one layer's backward working set */
    double offloaded;   /* saved activations in host memory instead (the
                         * plan's offload; not in activations or total) */
    double other;       /* CUDA context, NCCL buffers, fragmentation */
    double total;
    double capacity; /* the GPU's, from the hardware file */
    /* Gradients reduced once per step (accumulated unsharded on the GPU):
     * ZeRO-0/1 always; ZeRO-2/3 when the unsharded gradients fit, the
     * cheapest way to run the plan (they are counted in grads). false:
     * reduce-scattered every micro-batch into the shards. */
    bool grads_per_step;
};

/* ---- A plan's result (cost.c evaluates it) ---- */

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

/*
 * The binding term: max(compute, ib, nvlink, hbm) and, in *bound, which
 * (enum cost_bound; ties go to the earlier term). The speed of light's
 * and the expected step's core (terms_core) both bind by it.
 */
double
cost_binding(double compute, double ib, double nvlink, double hbm, int *bound);

/* What binds r's expected step's core (enum cost_bound), by the rule the
 * speed of light's t.bound follows; -1 when r has no expected step. */
int cost_expected_bound(const struct cost_result *r);

/* ---- The waterfall (expected.c, replay.c) ---- */

/* The effects of the waterfall, in the order they are added. */
enum expected_effect {
    EXPECTED_GEMM,    /* GEMM efficiency by shape and precision */
    EXPECTED_ATTN,    /* attention kernels, forward and backward */
    EXPECTED_MEMORY,  /* elementwise work; HBM at the measured copy rate */
    EXPECTED_CLOCK,   /* sustained clock under the power cap */
    EXPECTED_HOST,    /* host launch work the GPU waits for */
    EXPECTED_NETWORK, /* network efficiency by message size */
    EXPECTED_EXPOSED, /* communication the stack does not overlap */
    EXPECTED_LOAD,    /* dropless routing's most loaded EP rank */
    EXPECTED_FACTORS, /* the stack's free factors (fitted by --calibrate) */
    EXPECTED_EFFECTS
};

/* "GEMM efficiency by shape", ... : a waterfall bar's label. */
const char *expected_effect_label(int effect);

/*
 * Whether a waterfall shows `effect` for work x: every effect but the
 * stack's free factors, and those only when one is not neutral (an
 * unfitted stack's waterfall reads as it did before the factors).
 */
bool expected_effect_shown(const struct expected_work *x, int effect);

struct replay {
    bool known;  /* the plan has an expected step (else all zero) */
    int effects; /* the effects shown, 0..effects-1: all, or all but the
                  * stack's factors when they are neutral */
    double sol;  /* s: the speed of light (no effect on) */
    double step[EXPECTED_EFFECTS]; /* s: the step with effects 0..k on */
    /* s: the expected step's phases on its critical pipeline rank (enum
     * cost_phase), summing to it */
    double phases[COST_PHASES];
    long rank;       /* the rank of the expected step (cost_result_rank) */
    long floor_rank; /* the rank of the plan's speed of light */
};

/* ---- A published run (validate.c predicts it) ---- */

/* A published measured run and the prediction for it. */
struct validate_result {
    char name[128]; /* "DeepSeek-V3 pre-training (ISCA'25 Table 4)" */
    char source[200];
    char model_path[1024], hardware_path[1024];
    char model_name[128], gpu_name[128];
    struct plan plan;
    double measured_step_s;         /* 0 when not published */
    double measured_tflops_per_gpu; /* 0 when not published */
    double measured_mfu;            /* fraction of BF16 peak; 0 if none */
    double measured_gpu_hours_per_trillion; /* 0 when not published */
    struct cost_result predicted;
    /* When current: the critical rank's collectives, this report's comm
     * model and the other one. */
    struct comm_collective coll[COMM_LIST_MAX], coll_other[COMM_LIST_MAX];
    size_t ncoll, ncoll_other;
    bool current; /* same model and hardware files as this report */
    long rank;    /* its place in this report's ranking (1 = best);
                     0 when not current or not among the kept plans;
                     rank fills it (rank_finish_validations) */
    /* The speed of light over every completion of what the run did not
     * publish (its plan with each combination of the `unpublished`
     * choices; just the plan when there are none). */
    char unpublished[200];   /* the choices, as the file gives them */
    size_t completions;      /* valid completions evaluated */
    double sol_min_step_s;   /* the fastest completion's step */
    double sol_max_step_s;   /* the slowest completion's step */
    struct plan slowest;     /* the completion of sol_max_step_s */
    double measured_step_eq; /* the measured step, or model FLOPs per GPU
                                per step / measured TFLOP/s; 0 if neither */
    bool holds; /* every completion's SOL is at or below the measured */
    /* The files its expected step came from (predicted.work.x.known):
     * the calibration (its hardware file's, by name) and the stack (its
     * framework's, named in the run's file); "" when none. */
    char calibration_path[1024], stack_path[1024];
    /* its calibration's group (validation_group; "" when none) and its
     * scenarios on its own inputs (scenario_eval, without the published
     * runs' band: rank adds the band of its group) */
    char group[VALIDATION_GROUP_MAX];
    struct scenario_steps sc;
    /* its waterfall's steps, phases and ranks (on the inputs it names) */
    struct replay replay;
};

#endif
