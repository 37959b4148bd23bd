/*
 * cost_work: the work of a plan's pipeline rank and the times it takes,
 * the two types the time model is written over (cost.h says how one is
 * made from the other). Work is what does not depend on the cluster's
 * speeds: FLOPs by precision, bytes per link and phase, calls, HBM
 * bytes; times divide it by the speeds of light of the hardware file
 * (terms.c, one term at a time) or by the calibrated rates (the expected
 * step). A header of its own, below terms.h, so the term registry reads
 * them without knowing how a plan is evaluated (cost.h, above it).
 */
#ifndef PROJ_COST_WORK_H
#define PROJ_COST_WORK_H

#include "expected.h"

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
