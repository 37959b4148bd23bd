/*
 * cost_work: the work of a plan's pipeline rank and the times it takes,
 * the two types the time model is written over (cost.h says how one is
 * made from the other). Work is what does not depend on the cluster's
 * speeds: FLOPs by precision, bytes per link and phase, calls, HBM
 * bytes; times divide it by the speeds of light of the hardware file
 * (terms.c, one term at a time) or by the calibrated rates (the expected
 * step; struct expected_work: what that step reads besides). Below the
 * evaluate stage (src/result/), so the term registry and the stages
 * after rank read them without knowing how a plan is evaluated (cost.h,
 * above it).
 */
#ifndef PROJ_COST_WORK_H
#define PROJ_COST_WORK_H

#include <stdbool.h>

#include "comm_pick.h"

/* Per GPU per step, for the critical pipeline rank (see cost_work.x). */
struct expected_work {
    bool known;           /* a calibration and a stack were given */
    double gemm_cal_s;    /* GEMMs at their measured rates by shape (burst) */
    double gemm_sol_s;    /* the same FLOPs at the achievable rates */
    double attn_cal_s;    /* the attention core at its measured rates */
    double attn_sol_s;    /* the same FLOPs at the achievable BF16 rate */
    double attn_ring_s;   /* of attn_cal_s, a context-parallel ring's steps
                             over another rank's keys and values: what
                             their transfer overlaps (0 without CP) */
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
     * hidden (its share ep_hidden_share) and exposed traffic, after
     * efficiency and as moved. load_ib and load_nv are the all-to-all's
     * own factors on each link (expected_fill says why they differ from
     * load). */
    double load, load_ib, load_nv;
    double gemm_bal_s, ew_bal_s;
    double ep_hidden_share;
    double ep_ib, ep_nv, ep_ib_raw, ep_nv_raw;
    /* Combined 1F1B's compute nodes (ep_overlap.h), summed over the
     * rank's MoE layers and micro-batches per step, at the expected
     * rates: before the dispatch (attention, norms, router, shared
     * experts) forward and backward, and the routed experts forward,
     * backward data and weight gradients (expected_compute.c) */
    double pair_attn_fwd_s, pair_attn_bwd_s;
    double pair_mlp_fwd_s, pair_mlp_dgrad_s, pair_mlp_wgrad_s;
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

enum cost_bound { COST_COMPUTE, COST_IB, COST_NVLINK, COST_HBM };

/* Work of the critical pipeline rank, per GPU per step. */
struct cost_work {
    double fp8_flops;       /* hardware FLOPs run at the FP8 rate */
    double bf16_flops;      /* hardware FLOPs run at the BF16 rate */
    double model_flops;     /* model FLOPs per GPU (no recompute), for MFU */
    double model_fp8_flops; /* of model_flops, the FP8-run GEMMs' */
    double fwd_share;       /* forward's share of fp8 + bf16 FLOPs, 0..1 */
    /* Bytes over each link at its full rate (every collective's bytes
     * over its algorithm and protocol's share of the rate: the Simple
     * ring's as moved; struct comm_load.at), the calls that move them,
     * and the latency charged to the link (struct comm_lat: in the
     * collectives library's steps). */
    double ib_bytes, nvlink_bytes; /* every collective */
    double ib_calls, nvlink_calls;
    struct comm_lat ib_lat, nvlink_lat;
    /* of those, what runs with the micro-batches (steady), the step-end
     * gradient reduction (sync) and weight all-gather (gather), and what
     * a micro-batch's own compute waits for (dep: EP, TP and CP traffic,
     * of steady) */
    double ib_steady_bytes, nvlink_steady_bytes;
    double ib_steady_calls, nvlink_steady_calls;
    struct comm_lat ib_steady_lat, nvlink_steady_lat;
    double ib_sync_bytes, nvlink_sync_bytes, ib_sync_calls, nvlink_sync_calls;
    struct comm_lat ib_sync_lat, nvlink_sync_lat;
    double ib_gather_bytes, nvlink_gather_bytes;
    double ib_gather_calls, nvlink_gather_calls;
    struct comm_lat ib_gather_lat, nvlink_gather_lat;
    double ib_dep_bytes, nvlink_dep_bytes, ib_dep_calls, nvlink_dep_calls;
    struct comm_lat ib_dep_lat, nvlink_dep_lat;
    double hbm_bytes;       /* weights, gradients, activations, MoE permute */
    double permute_bytes;   /* of hbm_bytes: MoE token permute/unpermute */
    double optimizer_bytes; /* the optimizer step */
    /* saved activations one micro-batch sends to host memory in its
     * forward and reads back in its backward (the plan's offload), per
     * direction */
    double offload_bytes;
    double bubble_coef; /* bubble = coef x (1 + skew) x ramp / mb */
    /* the other pipeline ranks' mean ramp unit over this rank's, less 1
     * (0: equal stages; cost_ramp_skew) */
    double ramp_skew;
    double microbatches;
    double tokens; /* per step, whole cluster */
    double gpus;
    double ep_ib_bytes, ep_nvlink_bytes; /* MoE all-to-all share */
    struct comm_lat ep_ib_lat, ep_nvlink_lat;
    struct expected_work x; /* what the expected step reads besides */
};

struct cost_times {
    double compute, ib, nvlink, hbm, optimizer; /* s, each on its own */
    double sync, gather;             /* step-end DP collectives, busiest link */
    double ib_steady, nvlink_steady; /* link time with the micro-batches */
    double comm_sm; /* compute lost to SMs running overlapped comm */
    double offload; /* compute waiting for the activation offload's copies */
    double core;    /* max(compute + comm_sm + offload, steady links, hbm) */
    double ramp;    /* the pipeline ramp's unit: compute + its own comm */
    double bubble, dp_exposed;
    double step, step_serial;
    double ep; /* MoE all-to-all alone: max(IB, NVLink) */
    int bound; /* enum cost_bound */
    double comm_compute_ratio;
    double tokens_per_s_per_gpu;
    double mfu;           /* each precision's model FLOPs over its peak */
    double mfu_bf16_peak; /* model FLOPs / (step x BF16 peak): DeepSeek's */
    double gpu_hours_per_trillion;
    double days;     /* for the model's token budget on plan.gpus */
    double cost_usd; /* days x 24 x gpus x price */
    /* The expected step (terms.c; 0 when no calibration is known):
     * compute at measured rates under the sustained clock, HBM at the
     * measured copy rate, links after the network's efficiency, what the
     * stack does not overlap exposed. */
    double x_compute, x_hbm, x_ib_hid, x_nv_hid, x_comm_sm, x_offload;
    double x_exposed;
    double x_core, x_ramp, x_bubble, x_sync, x_gather, x_dp, x_optimizer;
    double expected;
    double x_tps, x_mfu, x_days, x_cost;
};

/* What a pipeline rank's FLOPs give before its memory and collectives
 * are weighed: the fields of its struct cost_work of the same names. */
struct cost_flops {
    double fp8, bf16; /* FLOPs at the FP8 and at the BF16 rate */
    double bubble_coef, fwd_share, optimizer_bytes;
};

#endif
