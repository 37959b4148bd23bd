/*
 * plans_table: the Plans columns (see plans_table.h).
 *
 * Work columns are stored in the units their headers name (TFLOP = 1e12
 * FLOP, GB = 1e9 bytes, GiB = 2^30 bytes), so the formulas divide them by
 * rates in matching units (TFLOP/s, GB/s; HBM TB/s x 1000). That changes
 * the rounding of cost_times() by at most a few ulps; the cached results
 * are the C values themselves.
 */
#include "plans_table.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "terms.h"

#define GIB 1073741824.0

/* Where a column's value comes from: a field of one of the row's structs
 * (the row gives its offset and the scale it is shown over), or a value
 * derived by plans_table_value_row(). */
enum col_src {
    C_PLAN_FIELD,  /* a long of struct plan */
    C_TIME_FIELD,  /* a double of struct cost_times (the row's times) */
    C_WORK_FIELD,  /* a double of struct cost_work, over scale */
    C_MEM_FIELD,   /* a double of struct memory (bytes), in GiB */
    C_XWORK_FIELD, /* a double of struct expected_work, over scale; empty
                      without a calibration */
    C_XTERM,       /* an expected term (terms.h), by the column's key */
    C_RANK,
    C_FAMILY,
    C_SCHEDULE,
    C_PRECISION,
    C_RECOMPUTE,
    C_BOUND,
    C_FITS,
    C_HEADROOM,
    C_PLAN
};

/* A column's source: field f of struct T (of type `type`: the compound
 * literal fails to compile on another), shown over scale sc. */
#define FIELD(src, T, type, f, sc)                                           \
    .id = (src), .off = offsetof(T, f) + 0 * sizeof((type *){&((T *)0)->f}), \
    .scale = (sc)
#define PLAN_FIELD(f)     FIELD(C_PLAN_FIELD, struct plan, long, f, 1)
#define TIME_FIELD(f)     FIELD(C_TIME_FIELD, struct cost_times, double, f, 1)
#define WORK_FIELD(f, sc) FIELD(C_WORK_FIELD, struct cost_work, double, f, sc)
#define MEM_FIELD(f)      FIELD(C_MEM_FIELD, struct memory, double, f, GIB)
#define XWORK_FIELD(f, sc) \
    FIELD(C_XWORK_FIELD, struct expected_work, double, f, sc)
#define DERIVED(src) .id = (src), .off = 0, .scale = 1

/* The column shows a time term: its formula is the term's (terms.c). */
#define TERM   ""
#define NUM    PLANS_NUMBER
#define TEXT   PLANS_TEXT
#define BOOL   PLANS_BOOL
#define F_INT  "0"
#define F_SEC  "0.000"
#define F_BIG  "#,##0.0"
#define F_GIB  "0.0"
#define F_PCT  "0.0%"
#define F_CNT  "#,##0"
#define F_RAT  "0.00"
#define F_USD  "$#,##0"
#define F_DAYS "0.0"
#define F_FITS "\"TRUE\";\"TRUE\";\"FALSE\"" /* a 1 / 0 formula result */

/* clang-format off */
static const struct plans_column columns[] = {
    {"rank", "Rank", "", F_INT, 7, NUM, NULL, NULL, DERIVED(C_RANK)},
    {"family", "Family", "", NULL, 17, TEXT, NULL, "PLANS_FAMILY", DERIVED(C_FAMILY)},
    {"tp", "TP", "", F_INT, 5, NUM, NULL, NULL, PLAN_FIELD(tp)},
    {"pp", "PP", "", F_INT, 5, NUM, NULL, NULL, PLAN_FIELD(pp)},
    {"ep", "EP", "", F_INT, 5, NUM, NULL, NULL, PLAN_FIELD(ep)},
    {"zero", "ZeRO", "", F_INT, 6, NUM, NULL, NULL, PLAN_FIELD(zero)},
    {"schedule", "Schedule", "", NULL, 11, TEXT, NULL, NULL, DERIVED(C_SCHEDULE)},
    {"precision", "Precision", "", NULL, 9, TEXT, NULL, NULL, DERIVED(C_PRECISION)},
    {"recompute", "Recompute", "", NULL, 10, TEXT, NULL, NULL, DERIVED(C_RECOMPUTE)},
    {"mbs", "Micro-batch", "seq", F_INT, 9, NUM, NULL, NULL, PLAN_FIELD(mbs)},

    {"step", "Step, speed of light", "s", F_SEC, 9, NUM, TERM, "PLANS_STEP_S", TIME_FIELD(step)},
    {"expected", "Expected step", "s", F_SEC, 9, NUM, TERM, "PLANS_EXPECTED_S", DERIVED(C_XTERM)},
    {"bound", "Bound", "", NULL, 9, TEXT, TERM, "PLANS_BOUND", DERIVED(C_BOUND)},
    {"ratio", "Comm/compute", "", F_RAT, 9, NUM, TERM, "PLANS_RATIO", TIME_FIELD(comm_compute_ratio)},
    {"fits", "Fits", "", F_FITS, 7, BOOL, TERM, "PLANS_FITS", DERIVED(C_FITS)},
    {"headroom", "HBM free", "GiB", F_GIB, 8, NUM, TERM, "PLANS_HEADROOM_GIB", DERIVED(C_HEADROOM)},
    {"mfu", "MFU, speed of light (each precision at its peak)", "", F_PCT, 10, NUM, TERM, "PLANS_MFU", TIME_FIELD(mfu)},
    {"mfu_bf16_peak", "MFU of BF16 peak, speed of light (DeepSeek's)", "", F_PCT, 11, NUM, TERM, "PLANS_MFU_BF16_PEAK", TIME_FIELD(mfu_bf16_peak)},
    {"tps", "Tokens/s per GPU, speed of light", "", F_CNT, 10, NUM, TERM, "PLANS_TPS", TIME_FIELD(tokens_per_s_per_gpu)},
    {"days", "Days for token budget, speed of light", "", F_DAYS, 10, NUM, TERM, "PLANS_DAYS", TIME_FIELD(days)},
    {"gpuh", "GPU-hours per 1T tokens, speed of light", "", F_CNT, 11, NUM, TERM, "PLANS_GPUH", TIME_FIELD(gpu_hours_per_trillion)},
    {"cost", "Cost for token budget, speed of light", "USD", F_USD, 13, NUM, TERM, "PLANS_COST", TIME_FIELD(cost_usd)},
    {"x_tps", "Expected tokens/s per GPU", "", F_CNT, 10, NUM, TERM, "PLANS_X_TPS", DERIVED(C_XTERM)},
    {"x_mfu", "Expected MFU", "", F_PCT, 9, NUM, TERM, "PLANS_X_MFU", DERIVED(C_XTERM)},
    {"x_days", "Expected days for token budget", "", F_DAYS, 10, NUM, TERM, "PLANS_X_DAYS", DERIVED(C_XTERM)},
    {"x_cost", "Expected cost for token budget", "USD", F_USD, 13, NUM, TERM, "PLANS_X_COST", DERIVED(C_XTERM)},
    {"serial", "Step, no overlap, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(step_serial)},
    {"compute", "Compute, speed of light", "s", F_SEC, 9, NUM, TERM, NULL, TIME_FIELD(compute)},
    {"ib", "IB, speed of light", "s", F_SEC, 9, NUM, TERM, NULL, TIME_FIELD(ib)},
    {"nvlink", "NVLink, speed of light", "s", F_SEC, 9, NUM, TERM, NULL, TIME_FIELD(nvlink)},
    {"hbm", "HBM, speed of light", "s", F_SEC, 9, NUM, TERM, NULL, TIME_FIELD(hbm)},
    {"optimizer", "Optimizer step, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(optimizer)},
    {"sync", "Step-end gradient sync, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(sync)},
    {"gather", "Step-end weight gather, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(gather)},
    {"ib_steady", "IB with micro-batches, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(ib_steady)},
    {"nv_steady", "NVLink with micro-batches, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(nvlink_steady)},
    {"comm_sm", "Compute lost to comm SMs, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(comm_sm)},
    {"offload", "Waiting for activation offload, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(offload)},
    {"core", "Overlapped core, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(core)},
    {"ramp", "Pipeline ramp unit, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(ramp)},
    {"bubble", "Pipeline bubble, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(bubble)},
    {"dp_exposed", "Exposed step-end DP, speed of light", "s", F_SEC, 10, NUM, TERM, NULL, TIME_FIELD(dp_exposed)},
    {"x_compute", "Expected compute", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_hbm", "Expected HBM", "s", F_SEC, 9, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_ib_hid", "Expected IB, overlapped", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_nv_hid", "Expected NVLink, overlapped", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_comm_sm", "Expected compute lost to comm SMs", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_offload", "Expected wait for activation offload", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_exposed", "Expected comm not overlapped", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_core", "Expected core", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_ramp", "Expected ramp unit", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_bubble", "Expected bubble", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_sync", "Expected step-end sync", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_gather", "Expected step-end gather", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_dp", "Expected exposed DP", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},
    {"x_optimizer", "Expected optimizer step", "s", F_SEC, 10, NUM, TERM, NULL, DERIVED(C_XTERM)},

    {"fp8_tflop", "FP8 work", "TFLOP", F_BIG, 11, NUM, NULL, "PLANS_FP8_TFLOP", WORK_FIELD(fp8_flops, 1e12)},
    {"bf16_tflop", "BF16 work", "TFLOP", F_BIG, 11, NUM, NULL, "PLANS_BF16_TFLOP", WORK_FIELD(bf16_flops, 1e12)},
    {"model_tflop", "Model work", "TFLOP", F_BIG, 11, NUM, NULL, NULL, WORK_FIELD(model_flops, 1e12)},
    {"model_fp8_tflop", "Model work in FP8", "TFLOP", F_BIG, 11, NUM, NULL, NULL, WORK_FIELD(model_fp8_flops, 1e12)},
    {"fwd_share", "Forward share of compute", "", F_RAT, 9, NUM, NULL, NULL, WORK_FIELD(fwd_share, 1)},
    {"ib_gb", "IB traffic at full rate", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(ib_bytes, 1e9)},
    {"nv_gb", "NVLink traffic at full rate", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(nvlink_bytes, 1e9)},
    {"ib_steps", "IB latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_lat.steps, 1)},
    {"ib_net_steps", "IB latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_lat.net, 1)},
    {"nv_steps", "NVLink latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(nvlink_lat.steps, 1)},
    {"ib_steady_gb", "IB with micro-batches", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(ib_steady_bytes, 1e9)},
    {"ib_steady_steps", "IB with micro-batches latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_steady_lat.steps, 1)},
    {"ib_steady_net_steps", "IB with micro-batches latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_steady_lat.net, 1)},
    {"nv_steady_gb", "NVLink with micro-batches", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(nvlink_steady_bytes, 1e9)},
    {"nv_steady_steps", "NVLink with micro-batches latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(nvlink_steady_lat.steps, 1)},
    {"ib_sync_gb", "IB step-end sync", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(ib_sync_bytes, 1e9)},
    {"ib_sync_steps", "IB sync latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_sync_lat.steps, 1)},
    {"ib_sync_net_steps", "IB sync latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_sync_lat.net, 1)},
    {"nv_sync_gb", "NVLink step-end sync", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(nvlink_sync_bytes, 1e9)},
    {"nv_sync_steps", "NVLink sync latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(nvlink_sync_lat.steps, 1)},
    {"ib_gather_gb", "IB step-end gather", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(ib_gather_bytes, 1e9)},
    {"ib_gather_steps", "IB gather latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_gather_lat.steps, 1)},
    {"ib_gather_net_steps", "IB gather latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_gather_lat.net, 1)},
    {"nv_gather_gb", "NVLink step-end gather", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(nvlink_gather_bytes, 1e9)},
    {"nv_gather_steps", "NVLink gather latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(nvlink_gather_lat.steps, 1)},
    {"ib_dep_gb", "IB EP/TP/CP traffic", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(ib_dep_bytes, 1e9)},
    {"ib_dep_steps", "IB EP/TP/CP latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_dep_lat.steps, 1)},
    {"ib_dep_net_steps", "IB EP/TP/CP latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(ib_dep_lat.net, 1)},
    {"nv_dep_gb", "NVLink EP/TP/CP traffic", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(nvlink_dep_bytes, 1e9)},
    {"nv_dep_steps", "NVLink EP/TP/CP latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, WORK_FIELD(nvlink_dep_lat.steps, 1)},
    {"gemm_s", "GEMMs at measured rates", "s", F_SEC, 10, NUM, NULL, NULL, XWORK_FIELD(gemm_cal_s, 1)},
    {"attn_s", "Attention at measured rates", "s", F_SEC, 10, NUM, NULL, NULL, XWORK_FIELD(attn_cal_s, 1)},
    {"ew_s", "Elementwise at measured rates", "s", F_SEC, 10, NUM, NULL, NULL, XWORK_FIELD(ew_s, 1)},
    {"host_s", "Host launch work", "s", F_SEC, 10, NUM, NULL, NULL, XWORK_FIELD(host_s, 1)},
    {"expert_host_s", "Host work per expert", "s", F_SEC, 10, NUM, NULL, NULL, XWORK_FIELD(expert_host_s, 1)},
    {"x_ib_hid_gb", "IB overlapped, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(hid_ib, 1e9)},
    {"x_ib_hid_steps", "IB overlapped latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(hid_ib_lat.steps, 1)},
    {"x_ib_hid_net_steps", "IB overlapped latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(hid_ib_lat.net, 1)},
    {"x_nv_hid_gb", "NVLink overlapped, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(hid_nv, 1e9)},
    {"x_nv_hid_steps", "NVLink overlapped latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(hid_nv_lat.steps, 1)},
    {"x_ib_xp_gb", "IB not overlapped, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(xp_ib, 1e9)},
    {"x_ib_xp_steps", "IB not overlapped latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(xp_ib_lat.steps, 1)},
    {"x_ib_xp_net_steps", "IB not overlapped latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(xp_ib_lat.net, 1)},
    {"x_nv_xp_gb", "NVLink not overlapped, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(xp_nv, 1e9)},
    {"x_nv_xp_steps", "NVLink not overlapped latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(xp_nv_lat.steps, 1)},
    {"x_ib_dep_gb", "IB EP/TP/CP, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(dep_ib, 1e9)},
    {"x_nv_dep_gb", "NVLink EP/TP/CP, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(dep_nv, 1e9)},
    {"x_ib_sync_gb", "IB sync, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(sync_ib, 1e9)},
    {"x_nv_sync_gb", "NVLink sync, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(sync_nv, 1e9)},
    {"x_ib_gather_gb", "IB gather, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(gather_ib, 1e9)},
    {"x_nv_gather_gb", "NVLink gather, effective", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(gather_nv, 1e9)},
    {"grad_hide", "Stack hides the sync (1/0)", "", F_INT, 8, NUM, NULL, NULL, XWORK_FIELD(grad_hide, 1)},
    {"param_hide", "Stack hides the gather (1/0)", "", F_INT, 8, NUM, NULL, NULL, XWORK_FIELD(param_hide, 1)},
    {"hbm_gb", "HBM traffic", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(hbm_bytes, 1e9)},
    {"opt_gb", "Optimizer traffic", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(optimizer_bytes, 1e9)},
    {"offload_gb", "Activations offloaded per micro-batch, each way", "GB", F_BIG, 10, NUM, NULL, NULL, WORK_FIELD(offload_bytes, 1e9)},
    {"bubble_coef", "Bubble coefficient", "", "0.000", 10, NUM, NULL, NULL, WORK_FIELD(bubble_coef, 1)},
    {"ramp_skew", "Other stages' ramp / own - 1", "", "0.000", 10, NUM, NULL, NULL, WORK_FIELD(ramp_skew, 1)},
    {"x_ramp_skew", "Expected other stages' ramp / own - 1", "", "0.000", 10, NUM, NULL, NULL, XWORK_FIELD(ramp_skew, 1)},
    {"x_hbm_gb", "HBM traffic, expected's rank", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(hbm_bytes, 1e9)},
    {"x_opt_gb", "Optimizer traffic, expected's rank", "GB", F_BIG, 10, NUM, NULL, NULL, XWORK_FIELD(optimizer_bytes, 1e9)},
    {"x_bubble_coef", "Bubble coefficient, expected's rank", "", "0.000", 10, NUM, NULL, NULL, XWORK_FIELD(bubble_coef, 1)},
    {"x_fwd_share", "Forward share, expected's rank", "", F_RAT, 9, NUM, NULL, NULL, XWORK_FIELD(fwd_share, 1)},
    {"x_ib_dep_steps", "IB EP/TP/CP, expected's rank latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(ib_dep_lat.steps, 1)},
    {"x_ib_dep_net_steps", "IB EP/TP/CP, expected's rank latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(ib_dep_lat.net, 1)},
    {"x_nv_dep_steps", "NVLink EP/TP/CP, expected's rank latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(nv_dep_lat.steps, 1)},
    {"x_ib_sync_steps", "IB sync, expected's rank latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(ib_sync_lat.steps, 1)},
    {"x_ib_sync_net_steps", "IB sync, expected's rank latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(ib_sync_lat.net, 1)},
    {"x_nv_sync_steps", "NVLink sync, expected's rank latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(nv_sync_lat.steps, 1)},
    {"x_ib_gather_steps", "IB gather, expected's rank latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(ib_gather_lat.steps, 1)},
    {"x_ib_gather_net_steps", "IB gather, expected's rank latency, network steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(ib_gather_lat.net, 1)},
    {"x_nv_gather_steps", "NVLink gather, expected's rank latency, in-node steps", "", F_BIG, 9, NUM, NULL, NULL, XWORK_FIELD(nv_gather_lat.steps, 1)},
    {"microbatches", "Micro-batches", "", F_CNT, 9, NUM, NULL, NULL, WORK_FIELD(microbatches, 1)},
    {"tokens", "Tokens per step", "", F_CNT, 12, NUM, NULL, NULL, WORK_FIELD(tokens, 1)},
    {"gpus", "GPUs", "", F_CNT, 7, NUM, NULL, NULL, WORK_FIELD(gpus, 1)},

    {"mem_weights", "Weights", "GiB", F_GIB, 9, NUM, NULL, NULL, MEM_FIELD(weights)},
    {"mem_grads", "Gradients", "GiB", F_GIB, 9, NUM, NULL, NULL, MEM_FIELD(grads)},
    {"mem_opt", "Optimizer state", "GiB", F_GIB, 9, NUM, NULL, NULL, MEM_FIELD(optimizer)},
    {"mem_act", "Activations", "GiB", F_GIB, 10, NUM, NULL, NULL, MEM_FIELD(activations)},
    {"mem_offloaded", "Activations in host memory (not in the total)", "GiB", F_GIB, 10, NUM, NULL, NULL, MEM_FIELD(offloaded)},
    {"mem_other", "Other memory", "GiB", F_GIB, 9, NUM, TERM, NULL, MEM_FIELD(other)},
    {"mem_total", "Memory total", "GiB", F_GIB, 9, NUM, TERM, "PLANS_MEM_TOTAL", MEM_FIELD(total)},

    {"dp", "DP", "", F_INT, 6, NUM, NULL, NULL, PLAN_FIELD(dp)},
    {"cp", "CP", "", F_INT, 5, NUM, NULL, NULL, PLAN_FIELD(cp)},
    {"edp", "Expert DP", "", F_INT, 7, NUM, NULL, NULL, PLAN_FIELD(edp)},
    {"vpp", "VPP", "", F_INT, 5, NUM, NULL, NULL, PLAN_FIELD(vpp)},
    {"gbs", "Global batch", "seq", F_CNT, 9, NUM, NULL, NULL, PLAN_FIELD(gbs)},
    {"offload_layers", "Layers offloaded to host", "", F_INT, 8, NUM, NULL, NULL, PLAN_FIELD(offload)},
    {"plan", "Plan (roofplan eval syntax)", "", NULL, 100, TEXT, NULL, "PLANS_PLAN", DERIVED(C_PLAN)},
};
/* clang-format on */

#define NCOLUMNS (sizeof columns / sizeof columns[0])

const struct plans_column *plans_table_columns(size_t *n)
{
    *n = NCOLUMNS;
    return columns;
}

size_t plans_table_frozen(void)
{
    return (size_t)plans_table_find("mbs") + 1;
}

const char *plans_table_formula(const struct plans_column *c)
{
    if (!c->formula || c->formula[0] != '\0')
        return c->formula;
    return terms_template(c->key);
}

const char *plans_table_rank_key(const struct report *r)
{
    return r->expected ? "expected" : "step";
}

long plans_table_find(const char *key)
{
    size_t i;
    for (i = 0; i < NCOLUMNS; i++)
        if (strcmp(columns[i].key, key) == 0)
            return (long)i;
    return -1;
}

const char *plans_table_bound_label(int bound)
{
    return cost_bound_label(bound);
}

void plans_table_header(const struct plans_column *c, char *buf, size_t size)
{
    if (c->unit[0])
        snprintf(buf, size, "%s (%s)", c->header, c->unit);
    else
        snprintf(buf, size, "%s", c->header);
}

static void number(struct plans_value *out, double v)
{
    out->kind = PLANS_NUMBER;
    out->num = v;
}

static void text(struct plans_value *out, const char *s)
{
    out->kind = PLANS_TEXT;
    out->str = s;
}

void plans_table_value(const struct plans_column *c,
                       const struct report *r,
                       size_t index,
                       const struct cost_times *t,
                       struct plans_value *out)
{
    plans_table_value_row(c, r, &r->rows[index], report_row_rank(r, index), t,
                          out);
}

/* The double at byte offset off of *base. */
static double field(const void *base, size_t off)
{
    double v;
    memcpy(&v, (const char *)base + off, sizeof v);
    return v;
}

void plans_table_value_row(const struct plans_column *c,
                           const struct report *r,
                           const struct report_row *row,
                           size_t rank,
                           const struct cost_times *t,
                           struct plans_value *out)
{
    const struct plan *p = &row->plan;
    long v;
    out->kind = PLANS_NUMBER;
    out->num = 0;
    out->flag = false;
    out->str = "";
    switch (c->id) {
    case C_PLAN_FIELD:
        memcpy(&v, (const char *)p + c->off, sizeof v);
        number(out, (double)v);
        break;
    case C_TIME_FIELD:
        number(out, field(t, c->off));
        break;
    case C_WORK_FIELD:
        number(out, field(&row->work, c->off) / c->scale);
        break;
    case C_MEM_FIELD:
        number(out, field(&row->mem, c->off) / c->scale);
        break;
    case C_XWORK_FIELD:
    case C_XTERM:
        if (!row->work.x.known) /* no calibration: no expected figures */
            out->kind = PLANS_EMPTY;
        else if (c->id == C_XWORK_FIELD)
            number(out, field(&row->work.x, c->off) / c->scale);
        else if (terms_find(c->key))
            number(out, terms_time(t, terms_find(c->key)->id));
        break;
    case C_RANK:
        if (rank > 0)
            number(out, (double)rank);
        else
            text(out, ""); /* a plan beyond the ranked ones */
        break;
    case C_FAMILY:
        text(out, row->family >= 0 && (size_t)row->family < r->nfamilies
                      ? r->family[row->family].name
                      : "?");
        break;
    case C_SCHEDULE:
        text(out, plan_schedule_str(p->schedule));
        break;
    case C_PRECISION:
        text(out, plan_precision_str(p->precision));
        break;
    case C_RECOMPUTE:
        text(out, plan_recompute_str(p->recompute));
        break;
    case C_BOUND:
        text(out, plans_table_bound_label(t->bound));
        break;
    case C_FITS:
        out->kind = PLANS_BOOL;
        out->flag = row->fits;
        break;
    case C_HEADROOM:
        number(out, terms_mem_headroom(&row->mem) / GIB);
        break;
    case C_PLAN:
        plan_format(p, out->buf, sizeof out->buf);
        text(out, out->buf);
        break;
    default:
        break;
    }
}

void plans_table_col_name(size_t col, char *buf, size_t size)
{
    char rev[8];
    size_t n = 0, i;
    col++; /* bijective base 26: A..Z, AA.. */
    while (col > 0 && n < sizeof rev) {
        rev[n++] = (char)('A' + (col - 1) % 26);
        col = (col - 1) / 26;
    }
    for (i = 0; i < n && i + 1 < size; i++)
        buf[i] = rev[n - 1 - i];
    if (size > 0)
        buf[i < size ? i : size - 1] = '\0';
}

bool plans_table_formula_compile(const char *src, struct plans_formula *t)
{
    size_t used = 0;
    const char *s = src;
    t->n = 0;
    t->text[used++] = '=';
    while (*s) {
        if (*s == '{') {
            const char *end = strchr(s, '}');
            char key[32], col[8];
            long idx;
            size_t len, cl;
            if (!end || (size_t)(end - s - 1) >= sizeof key ||
                t->n == PLANS_FORMULA_REFS)
                return false;
            len = (size_t)(end - s - 1);
            memcpy(key, s + 1, len);
            key[len] = '\0';
            idx = plans_table_find(key);
            if (idx < 0)
                return false;
            plans_table_col_name((size_t)idx, col, sizeof col);
            cl = strlen(col);
            if (used + cl + 1 >= sizeof t->text)
                return false;
            memcpy(t->text + used, col, cl);
            used += cl;
            t->at[t->n++] = used;
            s = end + 1;
        } else if (*s == '"') { /* a string: copied as is */
            const char *end = strchr(s + 1, '"');
            size_t len;
            if (!end)
                return false;
            len = (size_t)(end - s) + 1;
            if (used + len + 1 >= sizeof t->text)
                return false;
            memcpy(t->text + used, s, len);
            used += len;
            s = end + 1;
        } else {
            size_t len = terms_template_token(s);
            if (len == 0)
                return false; /* an unknown name */
            if (used + len + 1 >= sizeof t->text)
                return false;
            memcpy(t->text + used, s, len);
            used += len;
            s += len;
        }
    }
    t->text[used] = '\0';
    return true;
}

void plans_table_formula_expand(const struct plans_formula *t,
                                unsigned long row1,
                                char *buf,
                                size_t size)
{
    char num[24];
    size_t nl, from = 0, used = 0, k;
    int w = snprintf(num, sizeof num, "%lu", row1);
    nl = w > 0 ? (size_t)w : 0;
    if (size == 0)
        return;
    for (k = 0; k <= t->n; k++) {
        size_t to = k < t->n ? t->at[k] : strlen(t->text);
        size_t len = to - from;
        /* the text after the last reference takes no row number */
        if (used + len + (k < t->n ? nl : 0) + 1 > size)
            break;
        memcpy(buf + used, t->text + from, len);
        used += len;
        if (k < t->n) {
            memcpy(buf + used, num, nl);
            used += nl;
        }
        from = to;
    }
    buf[used] = '\0';
}
