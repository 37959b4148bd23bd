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
#include "terms_inputs.h"
#include "terms_memory.h"

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
    C_XTIME_FIELD, /* a double of struct cost_times of the expected step;
                      empty without a calibration */
    C_RANGE_FIELD, /* a double of struct scenario_steps (the row's range);
                      empty without an expected step */
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
#define XTIME_FIELD(f) FIELD(C_XTIME_FIELD, struct cost_times, double, f, 1)
#define RANGE_FIELD(f) FIELD(C_RANGE_FIELD, struct scenario_steps, double, f, 1)
#define DERIVED(src)   .id = (src), .off = 0, .scale = 1

/* The column shows a term: its formula is the term's template (terms.c,
 * terms_memory.c) as the ranking carries it (ranking_template). */
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
    {.key = "rank", .header = "Rank", .num_format = F_INT, .width = 7, .kind = NUM, DERIVED(C_RANK)},
    {.key = "family", .header = "Family", .width = 17, .kind = TEXT, .name = "PLANS_FAMILY", DERIVED(C_FAMILY)},
    {.key = "tp", .header = "TP", .num_format = F_INT, .width = 5, .kind = NUM, PLAN_FIELD(tp)},
    {.key = "pp", .header = "PP", .num_format = F_INT, .width = 5, .kind = NUM, PLAN_FIELD(pp)},
    {.key = "ep", .header = "EP", .num_format = F_INT, .width = 5, .kind = NUM, PLAN_FIELD(ep)},
    {.key = "zero", .header = "ZeRO", .num_format = F_INT, .width = 6, .kind = NUM, PLAN_FIELD(zero)},
    {.key = "schedule", .header = "Schedule", .width = 11, .kind = TEXT, DERIVED(C_SCHEDULE)},
    {.key = "precision", .header = "Precision", .width = 9, .kind = TEXT, DERIVED(C_PRECISION)},
    {.key = "recompute", .header = "Recompute", .width = 10, .kind = TEXT, DERIVED(C_RECOMPUTE)},
    {.key = "mbs", .header = "Micro-batch", .unit = "seq", .num_format = F_INT, .width = 9, .kind = NUM, PLAN_FIELD(mbs)},

    {.key = "step", .header = "Step, speed of light", .unit = "s", .num_format = F_SEC, .width = 9, .kind = NUM, .formula = TERM, .name = "PLANS_STEP_S", TIME_FIELD(step)},
    {.key = "expected", .header = "Expected step", .unit = "s", .num_format = F_SEC, .width = 9, .kind = NUM, .formula = TERM, .name = "PLANS_EXPECTED_S", XTIME_FIELD(expected)},
    {.key = "low", .header = "Expected low (its scenarios' span, never below the speed of light)", .unit = "s", .num_format = F_SEC, .width = 9, .kind = NUM, .name = "PLANS_LOW_S", RANGE_FIELD(low)},
    {.key = "high", .header = "Expected high (its slowest scenario)", .unit = "s", .num_format = F_SEC, .width = 9, .kind = NUM, .name = "PLANS_HIGH_S", RANGE_FIELD(high)},
    {.key = "bound", .header = "Bound", .width = 9, .kind = TEXT, .formula = TERM, .name = "PLANS_BOUND", DERIVED(C_BOUND)},
    {.key = "ratio", .header = "Comm/compute", .num_format = F_RAT, .width = 9, .kind = NUM, .formula = TERM, .name = "PLANS_RATIO", TIME_FIELD(comm_compute_ratio)},
    {.key = "fits", .header = "Fits", .num_format = F_FITS, .width = 7, .kind = BOOL, .formula = TERM, .name = "PLANS_FITS", DERIVED(C_FITS)},
    {.key = "headroom", .header = "HBM free", .unit = "GiB", .num_format = F_GIB, .width = 8, .kind = NUM, .formula = TERM, .name = "PLANS_HEADROOM_GIB", DERIVED(C_HEADROOM)},
    {.key = "mfu", .header = "MFU, speed of light (each precision at its peak)", .num_format = F_PCT, .width = 10, .kind = NUM, .formula = TERM, .name = "PLANS_MFU", TIME_FIELD(mfu)},
    {.key = "mfu_bf16_peak", .header = "MFU of BF16 peak, speed of light (DeepSeek's)", .num_format = F_PCT, .width = 11, .kind = NUM, .formula = TERM, .name = "PLANS_MFU_BF16_PEAK", TIME_FIELD(mfu_bf16_peak)},
    {.key = "tps", .header = "Tokens/s per GPU, speed of light", .num_format = F_CNT, .width = 10, .kind = NUM, .formula = TERM, .name = "PLANS_TPS", TIME_FIELD(tokens_per_s_per_gpu)},
    {.key = "days", .header = "Days for token budget, speed of light", .num_format = F_DAYS, .width = 10, .kind = NUM, .formula = TERM, .name = "PLANS_DAYS", TIME_FIELD(days)},
    {.key = "gpuh", .header = "GPU-hours per 1T tokens, speed of light", .num_format = F_CNT, .width = 11, .kind = NUM, .formula = TERM, .name = "PLANS_GPUH", TIME_FIELD(gpu_hours_per_trillion)},
    {.key = "cost", .header = "Cost for token budget, speed of light", .unit = "USD", .num_format = F_USD, .width = 13, .kind = NUM, .formula = TERM, .name = "PLANS_COST", TIME_FIELD(cost_usd)},
    {.key = "x_tps", .header = "Expected tokens/s per GPU", .num_format = F_CNT, .width = 10, .kind = NUM, .formula = TERM, .name = "PLANS_X_TPS", XTIME_FIELD(x_tps)},
    {.key = "x_mfu", .header = "Expected MFU", .num_format = F_PCT, .width = 9, .kind = NUM, .formula = TERM, .name = "PLANS_X_MFU", XTIME_FIELD(x_mfu)},
    {.key = "x_days", .header = "Expected days for token budget", .num_format = F_DAYS, .width = 10, .kind = NUM, .formula = TERM, .name = "PLANS_X_DAYS", XTIME_FIELD(x_days)},
    {.key = "x_cost", .header = "Expected cost for token budget", .unit = "USD", .num_format = F_USD, .width = 13, .kind = NUM, .formula = TERM, .name = "PLANS_X_COST", XTIME_FIELD(x_cost)},
    {.key = "serial", .header = "Step, no overlap, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(step_serial)},
    {.key = "compute", .header = "Compute, speed of light", .unit = "s", .num_format = F_SEC, .width = 9, .kind = NUM, .formula = TERM, TIME_FIELD(compute)},
    {.key = "ib", .header = "IB, speed of light", .unit = "s", .num_format = F_SEC, .width = 9, .kind = NUM, .formula = TERM, TIME_FIELD(ib)},
    {.key = "nvlink", .header = "NVLink, speed of light", .unit = "s", .num_format = F_SEC, .width = 9, .kind = NUM, .formula = TERM, TIME_FIELD(nvlink)},
    {.key = "hbm", .header = "HBM, speed of light", .unit = "s", .num_format = F_SEC, .width = 9, .kind = NUM, .formula = TERM, TIME_FIELD(hbm)},
    {.key = "optimizer", .header = "Optimizer step, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(optimizer)},
    {.key = "sync", .header = "Step-end gradient sync, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(sync)},
    {.key = "gather", .header = "Step-end weight gather, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(gather)},
    {.key = "ib_steady", .header = "IB with micro-batches, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(ib_steady)},
    {.key = "nv_steady", .header = "NVLink with micro-batches, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(nvlink_steady)},
    {.key = "comm_sm", .header = "Compute lost to comm SMs, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(comm_sm)},
    {.key = "offload", .header = "Waiting for activation offload, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(offload)},
    {.key = "core", .header = "Overlapped core, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(core)},
    {.key = "ramp", .header = "Pipeline ramp unit, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(ramp)},
    {.key = "bubble", .header = "Pipeline bubble, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(bubble)},
    {.key = "dp_exposed", .header = "Exposed step-end DP, speed of light", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, TIME_FIELD(dp_exposed)},
    {.key = "x_compute", .header = "Expected compute", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_compute)},
    {.key = "x_hbm", .header = "Expected HBM", .unit = "s", .num_format = F_SEC, .width = 9, .kind = NUM, .formula = TERM, XTIME_FIELD(x_hbm)},
    {.key = "x_ib_hid", .header = "Expected IB, overlapped", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_ib_hid)},
    {.key = "x_nv_hid", .header = "Expected NVLink, overlapped", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_nv_hid)},
    {.key = "x_comm_sm", .header = "Expected compute lost to comm SMs", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_comm_sm)},
    {.key = "x_offload", .header = "Expected wait for activation offload", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_offload)},
    {.key = "x_exposed", .header = "Expected comm not overlapped", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_exposed)},
    {.key = "x_core", .header = "Expected core", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_core)},
    {.key = "x_ramp", .header = "Expected ramp unit", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_ramp)},
    {.key = "x_bubble", .header = "Expected bubble", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_bubble)},
    {.key = "x_sync", .header = "Expected step-end sync", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_sync)},
    {.key = "x_gather", .header = "Expected step-end gather", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_gather)},
    {.key = "x_dp", .header = "Expected exposed DP", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_dp)},
    {.key = "x_optimizer", .header = "Expected optimizer step", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, .formula = TERM, XTIME_FIELD(x_optimizer)},

    {.key = "fp8_tflop", .header = "FP8 work", .unit = "TFLOP", .num_format = F_BIG, .width = 11, .kind = NUM, .name = "PLANS_FP8_TFLOP", WORK_FIELD(fp8_flops, 1e12)},
    {.key = "bf16_tflop", .header = "BF16 work", .unit = "TFLOP", .num_format = F_BIG, .width = 11, .kind = NUM, .name = "PLANS_BF16_TFLOP", WORK_FIELD(bf16_flops, 1e12)},
    {.key = "model_tflop", .header = "Model work", .unit = "TFLOP", .num_format = F_BIG, .width = 11, .kind = NUM, WORK_FIELD(model_flops, 1e12)},
    {.key = "model_fp8_tflop", .header = "Model work in FP8", .unit = "TFLOP", .num_format = F_BIG, .width = 11, .kind = NUM, WORK_FIELD(model_fp8_flops, 1e12)},
    {.key = "fwd_share", .header = "Forward share of compute", .num_format = F_RAT, .width = 9, .kind = NUM, WORK_FIELD(fwd_share, 1)},
    {.key = "ib_gb", .header = "IB traffic at full rate", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(ib_bytes, 1e9)},
    {.key = "nv_gb", .header = "NVLink traffic at full rate", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(nvlink_bytes, 1e9)},
    {.key = "ib_steps", .header = "IB latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_lat.steps, 1)},
    {.key = "ib_net_steps", .header = "IB latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_lat.net, 1)},
    {.key = "nv_steps", .header = "NVLink latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(nvlink_lat.steps, 1)},
    {.key = "ib_steady_gb", .header = "IB with micro-batches", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(ib_steady_bytes, 1e9)},
    {.key = "ib_steady_steps", .header = "IB with micro-batches latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_steady_lat.steps, 1)},
    {.key = "ib_steady_net_steps", .header = "IB with micro-batches latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_steady_lat.net, 1)},
    {.key = "nv_steady_gb", .header = "NVLink with micro-batches", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(nvlink_steady_bytes, 1e9)},
    {.key = "nv_steady_steps", .header = "NVLink with micro-batches latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(nvlink_steady_lat.steps, 1)},
    {.key = "ib_sync_gb", .header = "IB step-end sync", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(ib_sync_bytes, 1e9)},
    {.key = "ib_sync_steps", .header = "IB sync latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_sync_lat.steps, 1)},
    {.key = "ib_sync_net_steps", .header = "IB sync latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_sync_lat.net, 1)},
    {.key = "nv_sync_gb", .header = "NVLink step-end sync", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(nvlink_sync_bytes, 1e9)},
    {.key = "nv_sync_steps", .header = "NVLink sync latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(nvlink_sync_lat.steps, 1)},
    {.key = "ib_gather_gb", .header = "IB step-end gather", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(ib_gather_bytes, 1e9)},
    {.key = "ib_gather_steps", .header = "IB gather latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_gather_lat.steps, 1)},
    {.key = "ib_gather_net_steps", .header = "IB gather latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_gather_lat.net, 1)},
    {.key = "nv_gather_gb", .header = "NVLink step-end gather", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(nvlink_gather_bytes, 1e9)},
    {.key = "nv_gather_steps", .header = "NVLink gather latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(nvlink_gather_lat.steps, 1)},
    {.key = "ib_dep_gb", .header = "IB EP/TP/CP traffic", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(ib_dep_bytes, 1e9)},
    {.key = "ib_dep_steps", .header = "IB EP/TP/CP latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_dep_lat.steps, 1)},
    {.key = "ib_dep_net_steps", .header = "IB EP/TP/CP latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(ib_dep_lat.net, 1)},
    {.key = "nv_dep_gb", .header = "NVLink EP/TP/CP traffic", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(nvlink_dep_bytes, 1e9)},
    {.key = "nv_dep_steps", .header = "NVLink EP/TP/CP latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, WORK_FIELD(nvlink_dep_lat.steps, 1)},
    {.key = "gemm_s", .header = "GEMMs at measured rates", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, XWORK_FIELD(gemm_cal_s, 1)},
    {.key = "attn_s", .header = "Attention at measured rates", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, XWORK_FIELD(attn_cal_s, 1)},
    {.key = "ew_s", .header = "Elementwise at measured rates", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, XWORK_FIELD(ew_s, 1)},
    {.key = "host_s", .header = "Host launch work", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, XWORK_FIELD(host_s, 1)},
    {.key = "expert_host_s", .header = "Host work per expert", .unit = "s", .num_format = F_SEC, .width = 10, .kind = NUM, XWORK_FIELD(expert_host_s, 1)},
    {.key = "x_ib_hid_gb", .header = "IB overlapped, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(hid_ib, 1e9)},
    {.key = "x_ib_hid_steps", .header = "IB overlapped latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(hid_ib_lat.steps, 1)},
    {.key = "x_ib_hid_net_steps", .header = "IB overlapped latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(hid_ib_lat.net, 1)},
    {.key = "x_nv_hid_gb", .header = "NVLink overlapped, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(hid_nv, 1e9)},
    {.key = "x_nv_hid_steps", .header = "NVLink overlapped latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(hid_nv_lat.steps, 1)},
    {.key = "x_ib_xp_gb", .header = "IB not overlapped, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(xp_ib, 1e9)},
    {.key = "x_ib_xp_steps", .header = "IB not overlapped latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(xp_ib_lat.steps, 1)},
    {.key = "x_ib_xp_net_steps", .header = "IB not overlapped latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(xp_ib_lat.net, 1)},
    {.key = "x_nv_xp_gb", .header = "NVLink not overlapped, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(xp_nv, 1e9)},
    {.key = "x_nv_xp_steps", .header = "NVLink not overlapped latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(xp_nv_lat.steps, 1)},
    {.key = "x_ib_dep_gb", .header = "IB EP/TP/CP, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(dep_ib, 1e9)},
    {.key = "x_nv_dep_gb", .header = "NVLink EP/TP/CP, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(dep_nv, 1e9)},
    {.key = "x_ib_sync_gb", .header = "IB sync, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(sync_ib, 1e9)},
    {.key = "x_nv_sync_gb", .header = "NVLink sync, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(sync_nv, 1e9)},
    {.key = "x_ib_gather_gb", .header = "IB gather, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(gather_ib, 1e9)},
    {.key = "x_nv_gather_gb", .header = "NVLink gather, effective", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(gather_nv, 1e9)},
    {.key = "grad_hide", .header = "Stack hides the sync (1/0)", .num_format = F_INT, .width = 8, .kind = NUM, XWORK_FIELD(grad_hide, 1)},
    {.key = "param_hide", .header = "Stack hides the gather (1/0)", .num_format = F_INT, .width = 8, .kind = NUM, XWORK_FIELD(param_hide, 1)},
    {.key = "hbm_gb", .header = "HBM traffic", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(hbm_bytes, 1e9)},
    {.key = "opt_gb", .header = "Optimizer traffic", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(optimizer_bytes, 1e9)},
    {.key = "offload_gb", .header = "Activations offloaded per micro-batch, each way", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, WORK_FIELD(offload_bytes, 1e9)},
    {.key = "bubble_coef", .header = "Bubble coefficient", .num_format = "0.000", .width = 10, .kind = NUM, WORK_FIELD(bubble_coef, 1)},
    {.key = "ramp_skew", .header = "Other stages' ramp / own - 1", .num_format = "0.000", .width = 10, .kind = NUM, WORK_FIELD(ramp_skew, 1)},
    {.key = "x_ramp_skew", .header = "Expected other stages' ramp / own - 1", .num_format = "0.000", .width = 10, .kind = NUM, XWORK_FIELD(ramp_skew, 1)},
    {.key = "x_hbm_gb", .header = "HBM traffic, expected's rank", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(hbm_bytes, 1e9)},
    {.key = "x_opt_gb", .header = "Optimizer traffic, expected's rank", .unit = "GB", .num_format = F_BIG, .width = 10, .kind = NUM, XWORK_FIELD(optimizer_bytes, 1e9)},
    {.key = "x_bubble_coef", .header = "Bubble coefficient, expected's rank", .num_format = "0.000", .width = 10, .kind = NUM, XWORK_FIELD(bubble_coef, 1)},
    {.key = "x_fwd_share", .header = "Forward share, expected's rank", .num_format = F_RAT, .width = 9, .kind = NUM, XWORK_FIELD(fwd_share, 1)},
    {.key = "x_ib_dep_steps", .header = "IB EP/TP/CP, expected's rank latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(ib_dep_lat.steps, 1)},
    {.key = "x_ib_dep_net_steps", .header = "IB EP/TP/CP, expected's rank latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(ib_dep_lat.net, 1)},
    {.key = "x_nv_dep_steps", .header = "NVLink EP/TP/CP, expected's rank latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(nv_dep_lat.steps, 1)},
    {.key = "x_ib_sync_steps", .header = "IB sync, expected's rank latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(ib_sync_lat.steps, 1)},
    {.key = "x_ib_sync_net_steps", .header = "IB sync, expected's rank latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(ib_sync_lat.net, 1)},
    {.key = "x_nv_sync_steps", .header = "NVLink sync, expected's rank latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(nv_sync_lat.steps, 1)},
    {.key = "x_ib_gather_steps", .header = "IB gather, expected's rank latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(ib_gather_lat.steps, 1)},
    {.key = "x_ib_gather_net_steps", .header = "IB gather, expected's rank latency, network steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(ib_gather_lat.net, 1)},
    {.key = "x_nv_gather_steps", .header = "NVLink gather, expected's rank latency, in-node steps", .num_format = F_BIG, .width = 9, .kind = NUM, XWORK_FIELD(nv_gather_lat.steps, 1)},
    {.key = "microbatches", .header = "Micro-batches", .num_format = F_CNT, .width = 9, .kind = NUM, WORK_FIELD(microbatches, 1)},
    {.key = "tokens", .header = "Tokens per step", .num_format = F_CNT, .width = 12, .kind = NUM, WORK_FIELD(tokens, 1)},
    {.key = "gpus", .header = "GPUs", .num_format = F_CNT, .width = 7, .kind = NUM, WORK_FIELD(gpus, 1)},

    {.key = "mem_weights", .header = "Weights", .unit = "GiB", .num_format = F_GIB, .width = 9, .kind = NUM, MEM_FIELD(weights)},
    {.key = "mem_grads", .header = "Gradients", .unit = "GiB", .num_format = F_GIB, .width = 9, .kind = NUM, MEM_FIELD(grads)},
    {.key = "mem_opt", .header = "Optimizer state", .unit = "GiB", .num_format = F_GIB, .width = 9, .kind = NUM, MEM_FIELD(optimizer)},
    {.key = "mem_act", .header = "Activations", .unit = "GiB", .num_format = F_GIB, .width = 10, .kind = NUM, MEM_FIELD(activations)},
    {.key = "mem_offloaded", .header = "Activations in host memory (not in the total)", .unit = "GiB", .num_format = F_GIB, .width = 10, .kind = NUM, MEM_FIELD(offloaded)},
    {.key = "mem_other", .header = "Other memory", .unit = "GiB", .num_format = F_GIB, .width = 9, .kind = NUM, .formula = TERM, MEM_FIELD(other)},
    {.key = "mem_total", .header = "Memory total", .unit = "GiB", .num_format = F_GIB, .width = 9, .kind = NUM, .formula = TERM, .name = "PLANS_MEM_TOTAL", MEM_FIELD(total)},

    {.key = "dp", .header = "DP", .num_format = F_INT, .width = 6, .kind = NUM, PLAN_FIELD(dp)},
    {.key = "cp", .header = "CP", .num_format = F_INT, .width = 5, .kind = NUM, PLAN_FIELD(cp)},
    {.key = "edp", .header = "Expert DP", .num_format = F_INT, .width = 7, .kind = NUM, PLAN_FIELD(edp)},
    {.key = "vpp", .header = "VPP", .num_format = F_INT, .width = 5, .kind = NUM, PLAN_FIELD(vpp)},
    {.key = "gbs", .header = "Global batch", .unit = "seq", .num_format = F_CNT, .width = 9, .kind = NUM, PLAN_FIELD(gbs)},
    {.key = "offload_layers", .header = "Layers offloaded to host", .num_format = F_INT, .width = 8, .kind = NUM, PLAN_FIELD(offload)},
    {.key = "plan", .header = "Plan (roofplan eval syntax)", .width = 100, .kind = TEXT, .name = "PLANS_PLAN", DERIVED(C_PLAN)},
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

const char *plans_table_formula(const struct plans_column *c,
                                const struct ranking *r)
{
    if (!c->formula || c->formula[0] != '\0')
        return c->formula;
    return ranking_template(r, c->key);
}

const char *plans_table_rank_key(const struct views *r)
{
    return r->in->expected ? "expected" : "step";
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
    if (c->unit && c->unit[0])
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
                       const struct views *r,
                       size_t index,
                       const struct cost_times *t,
                       struct plans_value *out)
{
    plans_table_value_row(c, r, &r->rank->rows[index],
                          ranking_row_rank(r->rank, index), t, out);
}

/* The double at byte offset off of *base. */
static double field(const void *base, size_t off)
{
    double v;
    memcpy(&v, (const char *)base + off, sizeof v);
    return v;
}

void plans_table_value_row(const struct plans_column *c,
                           const struct views *r,
                           const struct ranking_row *row,
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
    case C_XTIME_FIELD:
        if (!row->work.x.known) /* no calibration: no expected figures */
            out->kind = PLANS_EMPTY;
        else if (c->id == C_XWORK_FIELD)
            number(out, field(&row->work.x, c->off) / c->scale);
        else
            number(out, field(t, c->off));
        break;
    case C_RANGE_FIELD:
        if (scenario_known(&row->sc))
            number(out, field(&row->sc, c->off));
        else
            out->kind = PLANS_EMPTY;
        break;
    case C_RANK:
        if (rank > 0)
            number(out, (double)rank);
        else
            text(out, ""); /* a plan beyond the ranked ones */
        break;
    case C_FAMILY:
        text(out, row->family >= 0 && (size_t)row->family < r->rank->nfamilies
                      ? r->rank->family[row->family].name
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
