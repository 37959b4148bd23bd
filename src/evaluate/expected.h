/*
 * expected: the work the expected step reads beyond the speed of light's
 * — a plan's GEMMs timed at the measured rates of their shapes, the
 * attention kernels at theirs, the elementwise and loss traffic at the
 * measured bandwidths, and its communication split by what the stack
 * (the training framework) overlaps, in bytes after the network's
 * efficiency at the plan's message sizes — and the waterfall from the
 * speed of light to the expected step, one effect at a time.
 *
 * The expected step itself is a set of terms in terms.c (C beside the
 * workbook's formulas); this module fills their work (cost.c calls it for
 * each pipeline rank it evaluates) and replays the terms with the effects
 * switched on one by one. Part of the evaluate stage; calls calibration
 * and stack lookups, terms.
 */
#ifndef PROJ_EXPECTED_H
#define PROJ_EXPECTED_H

#include <stdbool.h>
#include <stddef.h>

#include "calibration.h"
#include "comm.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "stack.h"

struct cost_work;
struct cost_times;

/* Per GPU per step, for the critical pipeline rank (see cost_work.x). */
struct expected_work {
    bool known;           /* a calibration and a stack were given */
    double gemm_cal_s;    /* GEMMs at their measured rates by shape (burst) */
    double gemm_sol_s;    /* the same FLOPs at the achievable rates */
    double attn_cal_s;    /* the attention core at its measured rates */
    double attn_sol_s;    /* the same FLOPs at the achievable BF16 rate */
    double ew_s;          /* elementwise, loss and router work */
    double host_s;        /* the host's time to launch the rank's kernels
                             (the stack's per-kernel figure; 0 unmodelled) */
    double host_paced_s;  /* the part of it the GPU waits for beside the
                             GEMMs and attention (the stack's
                             host_sync_share; 0: the host runs ahead) */
    double expert_host_s; /* the host's work per local expert (the stack's
                             expert_host_us), all of it waited for: in
                             neither field above */
    /* Dropless routing (the stack's moe_load_cv): the most loaded
     * expert-parallel rank's tokens over the mean (expected_load_factor;
     * 1: balanced), which the routed experts' GEMMs, the permutes and the
     * EP all-to-all above carry; and what they were at the mean load:
     * the GEMMs' and elementwise time, and the all-to-all's share of the
     * hidden (ep_hidden) or exposed traffic, after efficiency and as
     * moved. load_ib and load_nv are the all-to-all's own factors on
     * each link (expected_fill says why they differ from load). */
    double load, load_ib, load_nv;
    double gemm_bal_s, ew_bal_s;
    bool ep_hidden;
    double ep_ib, ep_nv, ep_ib_raw, ep_nv_raw;
    /* Communication with the micro-batches: hidden under compute (hid) or
     * waited for (xp) as the stack overlaps it, the ramp's own (dep), and
     * the step-end DP sync and gather: bytes per link at its full rate
     * (struct comm_load.at) divided by the network's efficiency at the
     * plan's message size (eff), and without it (raw: the speed of
     * light's); the latency its collectives' picks bear (comm_algo.h),
     * whatever the size. */
    double hid_ib, hid_nv, hid_ib_raw, hid_nv_raw;
    struct comm_lat hid_ib_lat, hid_nv_lat;
    double xp_ib, xp_nv, xp_ib_raw, xp_nv_raw;
    struct comm_lat xp_ib_lat, xp_nv_lat;
    double dep_ib, dep_nv;
    double sync_ib, sync_nv, gather_ib, gather_nv;
    /* 1 when the stack hides the sync under the last micro-batch's
     * backward (the gather under the first's forward), 0 when exposed */
    double grad_hide, param_hide;
    /* the other pipeline ranks' mean ramp unit over this rank's at the
     * expected rates, less 1 (cost_ramp_skew) */
    double ramp_skew;
    /* The rank's own work that the expected terms read besides, copied
     * from its struct cost_work (expected_fill), so that a plan's
     * expected step can be of its slowest rank at the expected rates
     * while its speed of light is of the slowest at the floor's: */
    long rank; /* the pipeline rank (cost.c sets it) */
    double hbm_bytes, optimizer_bytes, bubble_coef, fwd_share;
    struct comm_lat ib_dep_lat, nv_dep_lat, ib_sync_lat, nv_sync_lat;
    struct comm_lat ib_gather_lat, nv_gather_lat;
    /* its ramp, sync and gather bytes without efficiency, and its skew at the
     * floor's rates (the waterfall's speed of light of this rank) */
    double ib_dep_raw, nv_dep_raw, ib_sync_raw, nv_sync_raw;
    double ib_gather_raw, nv_gather_raw;
    double sol_ramp_skew;
    /* the stack's free factors (stack.h), 1 when neutral */
    double compute_overhead;   /* x the expected compute time */
    double network_efficiency; /* x the links' bandwidth */
};

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

/*
 * The most loaded of `ep` expert-parallel ranks' routed tokens over the
 * mean, where one rank's tokens per micro-batch vary with coefficient of
 * variation cv (the stack's moe_load_cv, measured at one EP size and
 * taken as the same at any: no source gives its dependence on the
 * experts a rank holds): the largest of ep such loads lies z(ep) standard
 * deviations above the mean, 1 + cv z(ep), z(n) the expected maximum of n
 * standard normal draws (Blom 1958's Phi^-1((n - 0.375) / (n + 0.25)),
 * Phi^-1 by Abramowitz & Stegun 26.2.23: within 0.6% of the exact z for
 * n >= 8, 4.4% at n = 2). 1 where cv is 0, ep is 1 or there are fewer
 * routed experts than ranks (none: a dense model).
 */
double expected_load_factor(double cv, long ep, long experts);

/* "GEMM efficiency by shape", ... : a waterfall bar's label. */
const char *expected_effect_label(int effect);

/*
 * Whether a waterfall shows `effect` for work x: every effect but the
 * stack's free factors, and those only when one is not neutral (an
 * unfitted stack's waterfall reads as it did before the factors).
 */
bool expected_effect_shown(const struct expected_work *x, int effect);

/*
 * The calibration's lookups one plan's ranks share (its GEMMs' M and its
 * messages' sizes repeat from rank to rank): each GEMM kind's rate at its
 * M, each link and collective's efficiency at the last sizes asked. Valid
 * for one calibration and cluster: zero it for each plan (cost_evaluate
 * does).
 */
#define EXPECTED_MEMO_SIZES 4
struct expected_memo {
    struct {
        double m_rows, rate; /* rate 0: not looked up */
    } gemm[MODEL_GEMMS][2];  /* [kind][FP8] */
    struct {
        double bytes[EXPECTED_MEMO_SIZES], eff[EXPECTED_MEMO_SIZES];
        size_t n, next;
    } net[CALIBRATION_LINK_COUNT][CALIBRATION_COLLECTIVE_COUNT];
    long attn_cp;     /* the cp attn_time was found for; 0: none */
    double attn_time; /* attention's time over the measured rates' */
};

/* What one pipeline rank runs per step, as cost.c sees it. */
struct expected_rank {
    const struct model_chunk *c; /* the rank's chunks, summed */
    double tokens;               /* per micro-batch per chunk on this GPU */
    double microbatches;         /* per chunk per step */
    const struct comm_totals *ct;
    const struct cost_work *w;  /* its speed-of-light work, filled */
    struct expected_memo *memo; /* the plan's lookups, or NULL */
};

/*
 * Fills x for one rank of plan p (which passed plan_check()) on model m
 * and cluster hw, with calibration cal and stack st (either NULL: x->known
 * false, nothing else set). Allocates nothing.
 */
void expected_fill(const struct model *m,
                   const struct hardware *hw,
                   const struct calibration *cal,
                   const struct stack *st,
                   const struct plan *p,
                   const struct expected_rank *rk,
                   struct expected_work *x);

/*
 * The waterfall of an evaluated plan (t from cost_times with w): the step
 * with effects 0..k on, for each k, into step[k] (step[EXPECTED_EFFECTS-1]
 * is t->expected); sol receives the step with none on (the speed of
 * light's composition of the same work). Needs w->x.known.
 */
void expected_waterfall(const struct cost_work *w,
                        const struct hardware *hw,
                        const struct model *m,
                        int precision,
                        double *sol,
                        double step[EXPECTED_EFFECTS]);

#endif
