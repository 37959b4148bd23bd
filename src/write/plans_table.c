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

#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "terms.h"

#define GIB 1073741824.0

enum col_id {
    C_RANK,
    C_FAMILY,
    C_TP,
    C_PP,
    C_EP,
    C_ZERO,
    C_SCHEDULE,
    C_PRECISION,
    C_RECOMPUTE,
    C_MBS,
    C_STEP,
    C_BOUND,
    C_RATIO,
    C_FITS,
    C_HEADROOM,
    C_MFU,
    C_MFU_BF16,
    C_TPS,
    C_DAYS,
    C_GPUH,
    C_COST,
    C_SERIAL,
    C_COMPUTE,
    C_IB,
    C_NVLINK,
    C_HBM,
    C_OPT,
    C_CORE,
    C_BUBBLE,
    C_SYNC,
    C_GATHER,
    C_IB_STEADY,
    C_NV_STEADY,
    C_COMM_SM,
    C_RAMP,
    C_DP_EXPOSED,
    C_FP8,
    C_BF16,
    C_MODEL,
    C_MODEL_FP8,
    C_FWD_SHARE,
    C_IB_GB,
    C_NV_GB,
    C_IB_CALLS,
    C_NV_CALLS,
    C_IB_STEADY_GB,
    C_IB_STEADY_CALLS,
    C_NV_STEADY_GB,
    C_NV_STEADY_CALLS,
    C_IB_SYNC_GB,
    C_IB_SYNC_CALLS,
    C_NV_SYNC_GB,
    C_NV_SYNC_CALLS,
    C_IB_GATHER_GB,
    C_IB_GATHER_CALLS,
    C_NV_GATHER_GB,
    C_NV_GATHER_CALLS,
    C_IB_DEP_GB,
    C_IB_DEP_CALLS,
    C_NV_DEP_GB,
    C_NV_DEP_CALLS,
    C_HBM_GB,
    C_OPT_GB,
    C_BUBBLE_COEF,
    C_RAMP_SKEW,
    C_MICROBATCHES,
    C_TOKENS,
    C_GPUS,
    C_MEM_WEIGHTS,
    C_MEM_GRADS,
    C_MEM_OPT,
    C_MEM_ACT,
    C_MEM_OTHER,
    C_MEM_TOTAL,
    C_DP,
    C_CP,
    C_EDP,
    C_VPP,
    C_GBS,
    C_PLAN,
    C_XTERM, /* an expected term (terms.h), by the column's key */
    C_XWORK  /* the expected step's work (expected.h), by the key */
};

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
    {"rank", "Rank", "", F_INT, 7, NUM, NULL, C_RANK, NULL},
    {"family", "Family", "", NULL, 17, TEXT, NULL, C_FAMILY, "PLANS_FAMILY"},
    {"tp", "TP", "", F_INT, 5, NUM, NULL, C_TP, NULL},
    {"pp", "PP", "", F_INT, 5, NUM, NULL, C_PP, NULL},
    {"ep", "EP", "", F_INT, 5, NUM, NULL, C_EP, NULL},
    {"zero", "ZeRO", "", F_INT, 6, NUM, NULL, C_ZERO, NULL},
    {"schedule", "Schedule", "", NULL, 11, TEXT, NULL, C_SCHEDULE, NULL},
    {"precision", "Precision", "", NULL, 9, TEXT, NULL, C_PRECISION, NULL},
    {"recompute", "Recompute", "", NULL, 10, TEXT, NULL, C_RECOMPUTE, NULL},
    {"mbs", "Micro-batch", "seq", F_INT, 9, NUM, NULL, C_MBS, NULL},

    {"step", "Step, speed of light", "s", F_SEC, 9, NUM, TERM, C_STEP, "PLANS_STEP_S"},
    {"expected", "Expected step", "s", F_SEC, 9, NUM, TERM, C_XTERM, "PLANS_EXPECTED_S"},
    {"bound", "Bound", "", NULL, 9, TEXT, TERM, C_BOUND, "PLANS_BOUND"},
    {"ratio", "Comm/compute", "", F_RAT, 9, NUM, TERM, C_RATIO, "PLANS_RATIO"},
    {"fits", "Fits", "", F_FITS, 7, BOOL, TERM, C_FITS, "PLANS_FITS"},
    {"headroom", "HBM free", "GiB", F_GIB, 8, NUM, TERM, C_HEADROOM, "PLANS_HEADROOM_GIB"},
    {"mfu", "MFU, speed of light (each precision at its peak)", "", F_PCT, 10, NUM, TERM, C_MFU, "PLANS_MFU"},
    {"mfu_bf16_peak", "MFU of BF16 peak, speed of light (DeepSeek's)", "", F_PCT, 11, NUM, TERM, C_MFU_BF16, "PLANS_MFU_BF16_PEAK"},
    {"tps", "Tokens/s per GPU, speed of light", "", F_CNT, 10, NUM, TERM, C_TPS, "PLANS_TPS"},
    {"days", "Days for token budget, speed of light", "", F_DAYS, 10, NUM, TERM, C_DAYS, "PLANS_DAYS"},
    {"gpuh", "GPU-hours per 1T tokens, speed of light", "", F_CNT, 11, NUM, TERM, C_GPUH, "PLANS_GPUH"},
    {"cost", "Cost for token budget, speed of light", "USD", F_USD, 13, NUM, TERM, C_COST, "PLANS_COST"},
    {"x_tps", "Expected tokens/s per GPU", "", F_CNT, 10, NUM, TERM, C_XTERM, "PLANS_X_TPS"},
    {"x_mfu", "Expected MFU", "", F_PCT, 9, NUM, TERM, C_XTERM, "PLANS_X_MFU"},
    {"x_days", "Expected days for token budget", "", F_DAYS, 10, NUM, TERM, C_XTERM, "PLANS_X_DAYS"},
    {"x_cost", "Expected cost for token budget", "USD", F_USD, 13, NUM, TERM, C_XTERM, "PLANS_X_COST"},
    {"serial", "Step, no overlap, speed of light", "s", F_SEC, 10, NUM, TERM, C_SERIAL, NULL},
    {"compute", "Compute, speed of light", "s", F_SEC, 9, NUM, TERM, C_COMPUTE, NULL},
    {"ib", "IB, speed of light", "s", F_SEC, 9, NUM, TERM, C_IB, NULL},
    {"nvlink", "NVLink, speed of light", "s", F_SEC, 9, NUM, TERM, C_NVLINK, NULL},
    {"hbm", "HBM, speed of light", "s", F_SEC, 9, NUM, TERM, C_HBM, NULL},
    {"optimizer", "Optimizer step, speed of light", "s", F_SEC, 10, NUM, TERM, C_OPT, NULL},
    {"sync", "Step-end gradient sync, speed of light", "s", F_SEC, 10, NUM, TERM, C_SYNC, NULL},
    {"gather", "Step-end weight gather, speed of light", "s", F_SEC, 10, NUM, TERM, C_GATHER, NULL},
    {"ib_steady", "IB with micro-batches, speed of light", "s", F_SEC, 10, NUM, TERM, C_IB_STEADY, NULL},
    {"nv_steady", "NVLink with micro-batches, speed of light", "s", F_SEC, 10, NUM, TERM, C_NV_STEADY, NULL},
    {"comm_sm", "Compute lost to comm SMs, speed of light", "s", F_SEC, 10, NUM, TERM, C_COMM_SM, NULL},
    {"core", "Overlapped core, speed of light", "s", F_SEC, 10, NUM, TERM, C_CORE, NULL},
    {"ramp", "Pipeline ramp unit, speed of light", "s", F_SEC, 10, NUM, TERM, C_RAMP, NULL},
    {"bubble", "Pipeline bubble, speed of light", "s", F_SEC, 10, NUM, TERM, C_BUBBLE, NULL},
    {"dp_exposed", "Exposed step-end DP, speed of light", "s", F_SEC, 10, NUM, TERM, C_DP_EXPOSED, NULL},
    {"x_compute", "Expected compute", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_hbm", "Expected HBM", "s", F_SEC, 9, NUM, TERM, C_XTERM, NULL},
    {"x_ib_hid", "Expected IB, overlapped", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_nv_hid", "Expected NVLink, overlapped", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_comm_sm", "Expected compute lost to comm SMs", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_exposed", "Expected comm not overlapped", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_core", "Expected core", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_ramp", "Expected ramp unit", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_bubble", "Expected bubble", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_sync", "Expected step-end sync", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_gather", "Expected step-end gather", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_dp", "Expected exposed DP", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},
    {"x_optimizer", "Expected optimizer step", "s", F_SEC, 10, NUM, TERM, C_XTERM, NULL},

    {"fp8_tflop", "FP8 work", "TFLOP", F_BIG, 11, NUM, NULL, C_FP8, "PLANS_FP8_TFLOP"},
    {"bf16_tflop", "BF16 work", "TFLOP", F_BIG, 11, NUM, NULL, C_BF16, "PLANS_BF16_TFLOP"},
    {"model_tflop", "Model work", "TFLOP", F_BIG, 11, NUM, NULL, C_MODEL, NULL},
    {"model_fp8_tflop", "Model work in FP8", "TFLOP", F_BIG, 11, NUM, NULL, C_MODEL_FP8, NULL},
    {"fwd_share", "Forward share of compute", "", F_RAT, 9, NUM, NULL, C_FWD_SHARE, NULL},
    {"ib_gb", "IB traffic", "GB", F_BIG, 10, NUM, NULL, C_IB_GB, NULL},
    {"nv_gb", "NVLink traffic", "GB", F_BIG, 10, NUM, NULL, C_NV_GB, NULL},
    {"ib_calls", "IB calls", "", F_CNT, 9, NUM, NULL, C_IB_CALLS, NULL},
    {"nv_calls", "NVLink calls", "", F_CNT, 9, NUM, NULL, C_NV_CALLS, NULL},
    {"ib_steady_gb", "IB with micro-batches", "GB", F_BIG, 10, NUM, NULL, C_IB_STEADY_GB, NULL},
    {"ib_steady_calls", "IB calls with micro-batches", "", F_CNT, 9, NUM, NULL, C_IB_STEADY_CALLS, NULL},
    {"nv_steady_gb", "NVLink with micro-batches", "GB", F_BIG, 10, NUM, NULL, C_NV_STEADY_GB, NULL},
    {"nv_steady_calls", "NVLink calls with micro-batches", "", F_CNT, 9, NUM, NULL, C_NV_STEADY_CALLS, NULL},
    {"ib_sync_gb", "IB step-end sync", "GB", F_BIG, 10, NUM, NULL, C_IB_SYNC_GB, NULL},
    {"ib_sync_calls", "IB sync calls", "", F_CNT, 9, NUM, NULL, C_IB_SYNC_CALLS, NULL},
    {"nv_sync_gb", "NVLink step-end sync", "GB", F_BIG, 10, NUM, NULL, C_NV_SYNC_GB, NULL},
    {"nv_sync_calls", "NVLink sync calls", "", F_CNT, 9, NUM, NULL, C_NV_SYNC_CALLS, NULL},
    {"ib_gather_gb", "IB step-end gather", "GB", F_BIG, 10, NUM, NULL, C_IB_GATHER_GB, NULL},
    {"ib_gather_calls", "IB gather calls", "", F_CNT, 9, NUM, NULL, C_IB_GATHER_CALLS, NULL},
    {"nv_gather_gb", "NVLink step-end gather", "GB", F_BIG, 10, NUM, NULL, C_NV_GATHER_GB, NULL},
    {"nv_gather_calls", "NVLink gather calls", "", F_CNT, 9, NUM, NULL, C_NV_GATHER_CALLS, NULL},
    {"ib_dep_gb", "IB EP/TP/CP traffic", "GB", F_BIG, 10, NUM, NULL, C_IB_DEP_GB, NULL},
    {"ib_dep_calls", "IB EP/TP/CP calls", "", F_CNT, 9, NUM, NULL, C_IB_DEP_CALLS, NULL},
    {"nv_dep_gb", "NVLink EP/TP/CP traffic", "GB", F_BIG, 10, NUM, NULL, C_NV_DEP_GB, NULL},
    {"nv_dep_calls", "NVLink EP/TP/CP calls", "", F_CNT, 9, NUM, NULL, C_NV_DEP_CALLS, NULL},
    {"gemm_s", "GEMMs at measured rates", "s", F_SEC, 10, NUM, NULL, C_XWORK, NULL},
    {"attn_s", "Attention at measured rates", "s", F_SEC, 10, NUM, NULL, C_XWORK, NULL},
    {"ew_s", "Elementwise at measured rates", "s", F_SEC, 10, NUM, NULL, C_XWORK, NULL},
    {"x_ib_hid_gb", "IB overlapped, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_ib_hid_calls", "IB overlapped calls", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_nv_hid_gb", "NVLink overlapped, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_nv_hid_calls", "NVLink overlapped calls", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_ib_xp_gb", "IB not overlapped, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_ib_xp_calls", "IB not overlapped calls", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_nv_xp_gb", "NVLink not overlapped, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_nv_xp_calls", "NVLink not overlapped calls", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_ib_dep_gb", "IB EP/TP/CP, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_nv_dep_gb", "NVLink EP/TP/CP, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_ib_sync_gb", "IB sync, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_nv_sync_gb", "NVLink sync, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_ib_gather_gb", "IB gather, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_nv_gather_gb", "NVLink gather, effective", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"grad_hide", "Stack hides the sync (1/0)", "", F_INT, 8, NUM, NULL, C_XWORK, NULL},
    {"param_hide", "Stack hides the gather (1/0)", "", F_INT, 8, NUM, NULL, C_XWORK, NULL},
    {"hbm_gb", "HBM traffic", "GB", F_BIG, 10, NUM, NULL, C_HBM_GB, NULL},
    {"opt_gb", "Optimizer traffic", "GB", F_BIG, 10, NUM, NULL, C_OPT_GB, NULL},
    {"bubble_coef", "Bubble coefficient", "", "0.000", 10, NUM, NULL, C_BUBBLE_COEF, NULL},
    {"ramp_skew", "Other stages' ramp / own - 1", "", "0.000", 10, NUM, NULL, C_RAMP_SKEW, NULL},
    {"x_ramp_skew", "Expected other stages' ramp / own - 1", "", "0.000", 10, NUM, NULL, C_XWORK, NULL},
    {"x_hbm_gb", "HBM traffic, expected's rank", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_opt_gb", "Optimizer traffic, expected's rank", "GB", F_BIG, 10, NUM, NULL, C_XWORK, NULL},
    {"x_bubble_coef", "Bubble coefficient, expected's rank", "", "0.000", 10, NUM, NULL, C_XWORK, NULL},
    {"x_fwd_share", "Forward share, expected's rank", "", F_RAT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_ib_dep_calls", "IB EP/TP/CP calls, expected's rank", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_nv_dep_calls", "NVLink EP/TP/CP calls, expected's rank", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_ib_sync_calls", "IB sync calls, expected's rank", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_nv_sync_calls", "NVLink sync calls, expected's rank", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_ib_gather_calls", "IB gather calls, expected's rank", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"x_nv_gather_calls", "NVLink gather calls, expected's rank", "", F_CNT, 9, NUM, NULL, C_XWORK, NULL},
    {"microbatches", "Micro-batches", "", F_CNT, 9, NUM, NULL, C_MICROBATCHES, NULL},
    {"tokens", "Tokens per step", "", F_CNT, 12, NUM, NULL, C_TOKENS, NULL},
    {"gpus", "GPUs", "", F_CNT, 7, NUM, NULL, C_GPUS, NULL},

    {"mem_weights", "Weights", "GiB", F_GIB, 9, NUM, NULL, C_MEM_WEIGHTS, NULL},
    {"mem_grads", "Gradients", "GiB", F_GIB, 9, NUM, NULL, C_MEM_GRADS, NULL},
    {"mem_opt", "Optimizer state", "GiB", F_GIB, 9, NUM, NULL, C_MEM_OPT, NULL},
    {"mem_act", "Activations", "GiB", F_GIB, 10, NUM, NULL, C_MEM_ACT, NULL},
    {"mem_other", "Other memory", "GiB", F_GIB, 9, NUM, TERM, C_MEM_OTHER, NULL},
    {"mem_total", "Memory total", "GiB", F_GIB, 9, NUM, TERM, C_MEM_TOTAL, "PLANS_MEM_TOTAL"},

    {"dp", "DP", "", F_INT, 6, NUM, NULL, C_DP, NULL},
    {"cp", "CP", "", F_INT, 5, NUM, NULL, C_CP, NULL},
    {"edp", "Expert DP", "", F_INT, 7, NUM, NULL, C_EDP, NULL},
    {"vpp", "VPP", "", F_INT, 5, NUM, NULL, C_VPP, NULL},
    {"gbs", "Global batch", "seq", F_CNT, 9, NUM, NULL, C_GBS, NULL},
    {"plan", "Plan (roofplan eval syntax)", "", NULL, 100, TEXT, NULL, C_PLAN, "PLANS_PLAN"},
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
    return (size_t)C_MBS + 1;
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

/* Plan columns. */
static bool plan_value(int id,
                       const struct report_row *row,
                       size_t rank,
                       struct plans_value *out)
{
    const struct plan *p = &row->plan;
    switch (id) {
    case C_RANK:
        if (rank > 0)
            number(out, (double)rank);
        else
            text(out, ""); /* a plan beyond the ranked ones */
        return true;
    case C_TP:
        number(out, (double)p->tp);
        return true;
    case C_PP:
        number(out, (double)p->pp);
        return true;
    case C_EP:
        number(out, (double)p->ep);
        return true;
    case C_ZERO:
        number(out, (double)p->zero);
        return true;
    case C_SCHEDULE:
        text(out, plan_schedule_str(p->schedule));
        return true;
    case C_PRECISION:
        text(out, plan_precision_str(p->precision));
        return true;
    case C_RECOMPUTE:
        text(out, plan_recompute_str(p->recompute));
        return true;
    case C_MBS:
        number(out, (double)p->mbs);
        return true;
    case C_DP:
        number(out, (double)p->dp);
        return true;
    case C_CP:
        number(out, (double)p->cp);
        return true;
    case C_EDP:
        number(out, (double)p->edp);
        return true;
    case C_VPP:
        number(out, (double)p->vpp);
        return true;
    case C_GBS:
        number(out, (double)p->gbs);
        return true;
    case C_PLAN:
        plan_format(p, out->buf, sizeof out->buf);
        text(out, out->buf);
        return true;
    default:
        return false;
    }
}

/* Times and what follows from them: the formula columns. */
static bool
time_value(int id, const struct cost_times *t, struct plans_value *out)
{
    switch (id) {
    case C_STEP:
        number(out, t->step);
        return true;
    case C_BOUND:
        text(out, plans_table_bound_label(t->bound));
        return true;
    case C_RATIO:
        number(out, t->comm_compute_ratio);
        return true;
    case C_MFU:
        number(out, t->mfu);
        return true;
    case C_MFU_BF16:
        number(out, t->mfu_bf16_peak);
        return true;
    case C_TPS:
        number(out, t->tokens_per_s_per_gpu);
        return true;
    case C_DAYS:
        number(out, t->days);
        return true;
    case C_GPUH:
        number(out, t->gpu_hours_per_trillion);
        return true;
    case C_COST:
        number(out, t->cost_usd);
        return true;
    case C_SERIAL:
        number(out, t->step_serial);
        return true;
    case C_COMPUTE:
        number(out, t->compute);
        return true;
    case C_IB:
        number(out, t->ib);
        return true;
    case C_NVLINK:
        number(out, t->nvlink);
        return true;
    case C_HBM:
        number(out, t->hbm);
        return true;
    case C_OPT:
        number(out, t->optimizer);
        return true;
    case C_CORE:
        number(out, t->core);
        return true;
    case C_BUBBLE:
        number(out, t->bubble);
        return true;
    case C_SYNC:
        number(out, t->sync);
        return true;
    case C_GATHER:
        number(out, t->gather);
        return true;
    case C_IB_STEADY:
        number(out, t->ib_steady);
        return true;
    case C_NV_STEADY:
        number(out, t->nvlink_steady);
        return true;
    case C_COMM_SM:
        number(out, t->comm_sm);
        return true;
    case C_RAMP:
        number(out, t->ramp);
        return true;
    case C_DP_EXPOSED:
        number(out, t->dp_exposed);
        return true;
    default:
        return false;
    }
}

/* Work and memory: values that do not depend on the cluster's speeds. */
static bool
work_value(int id, const struct report_row *row, struct plans_value *out)
{
    const struct cost_work *w = &row->work;
    const struct memory *m = &row->mem;
    switch (id) {
    case C_FP8:
        number(out, w->fp8_flops / 1e12);
        return true;
    case C_BF16:
        number(out, w->bf16_flops / 1e12);
        return true;
    case C_MODEL:
        number(out, w->model_flops / 1e12);
        return true;
    case C_MODEL_FP8:
        number(out, w->model_fp8_flops / 1e12);
        return true;
    case C_FWD_SHARE:
        number(out, w->fwd_share);
        return true;
    case C_IB_STEADY_GB:
        number(out, w->ib_steady_bytes / 1e9);
        return true;
    case C_IB_STEADY_CALLS:
        number(out, w->ib_steady_calls);
        return true;
    case C_NV_STEADY_GB:
        number(out, w->nvlink_steady_bytes / 1e9);
        return true;
    case C_NV_STEADY_CALLS:
        number(out, w->nvlink_steady_calls);
        return true;
    case C_IB_SYNC_GB:
        number(out, w->ib_sync_bytes / 1e9);
        return true;
    case C_IB_SYNC_CALLS:
        number(out, w->ib_sync_calls);
        return true;
    case C_NV_SYNC_GB:
        number(out, w->nvlink_sync_bytes / 1e9);
        return true;
    case C_NV_SYNC_CALLS:
        number(out, w->nvlink_sync_calls);
        return true;
    case C_IB_GATHER_GB:
        number(out, w->ib_gather_bytes / 1e9);
        return true;
    case C_IB_GATHER_CALLS:
        number(out, w->ib_gather_calls);
        return true;
    case C_NV_GATHER_GB:
        number(out, w->nvlink_gather_bytes / 1e9);
        return true;
    case C_NV_GATHER_CALLS:
        number(out, w->nvlink_gather_calls);
        return true;
    case C_IB_DEP_GB:
        number(out, w->ib_dep_bytes / 1e9);
        return true;
    case C_IB_DEP_CALLS:
        number(out, w->ib_dep_calls);
        return true;
    case C_NV_DEP_GB:
        number(out, w->nvlink_dep_bytes / 1e9);
        return true;
    case C_NV_DEP_CALLS:
        number(out, w->nvlink_dep_calls);
        return true;
    case C_IB_GB:
        number(out, w->ib_bytes / 1e9);
        return true;
    case C_NV_GB:
        number(out, w->nvlink_bytes / 1e9);
        return true;
    case C_IB_CALLS:
        number(out, w->ib_calls);
        return true;
    case C_NV_CALLS:
        number(out, w->nvlink_calls);
        return true;
    case C_HBM_GB:
        number(out, w->hbm_bytes / 1e9);
        return true;
    case C_OPT_GB:
        number(out, w->optimizer_bytes / 1e9);
        return true;
    case C_BUBBLE_COEF:
        number(out, w->bubble_coef);
        return true;
    case C_RAMP_SKEW:
        number(out, w->ramp_skew);
        return true;
    case C_MICROBATCHES:
        number(out, w->microbatches);
        return true;
    case C_TOKENS:
        number(out, w->tokens);
        return true;
    case C_GPUS:
        number(out, w->gpus);
        return true;
    case C_MEM_WEIGHTS:
        number(out, m->weights / GIB);
        return true;
    case C_MEM_GRADS:
        number(out, m->grads / GIB);
        return true;
    case C_MEM_OPT:
        number(out, m->optimizer / GIB);
        return true;
    case C_MEM_ACT:
        number(out, m->activations / GIB);
        return true;
    case C_MEM_OTHER:
        number(out, m->other / GIB);
        return true;
    case C_MEM_TOTAL:
        number(out, m->total / GIB);
        return true;
    default:
        return false;
    }
}

void plans_table_value(const struct plans_column *c,
                       const struct report *r,
                       size_t index,
                       const struct cost_times *t,
                       struct plans_value *out)
{
    plans_table_value_row(c, r, &r->rows[index], index + 1, t, out);
}

/* The expected step's work by column key (expected.h): a field and the
 * unit it is shown in. */
static bool xwork_value(const char *key,
                        const struct expected_work *x,
                        struct plans_value *out)
{
    const struct {
        const char *key;
        double v, scale;
    } f[] = {{"gemm_s", x->gemm_cal_s, 1},
             {"attn_s", x->attn_cal_s, 1},
             {"ew_s", x->ew_s, 1},
             {"x_ib_hid_gb", x->hid_ib, 1e9},
             {"x_ib_hid_calls", x->hid_ib_calls, 1},
             {"x_nv_hid_gb", x->hid_nv, 1e9},
             {"x_nv_hid_calls", x->hid_nv_calls, 1},
             {"x_ib_xp_gb", x->xp_ib, 1e9},
             {"x_ib_xp_calls", x->xp_ib_calls, 1},
             {"x_nv_xp_gb", x->xp_nv, 1e9},
             {"x_nv_xp_calls", x->xp_nv_calls, 1},
             {"x_ib_dep_gb", x->dep_ib, 1e9},
             {"x_nv_dep_gb", x->dep_nv, 1e9},
             {"x_ib_sync_gb", x->sync_ib, 1e9},
             {"x_nv_sync_gb", x->sync_nv, 1e9},
             {"x_ib_gather_gb", x->gather_ib, 1e9},
             {"x_nv_gather_gb", x->gather_nv, 1e9},
             {"grad_hide", x->grad_hide, 1},
             {"param_hide", x->param_hide, 1},
             {"x_ramp_skew", x->ramp_skew, 1},
             {"x_hbm_gb", x->hbm_bytes, 1e9},
             {"x_opt_gb", x->optimizer_bytes, 1e9},
             {"x_bubble_coef", x->bubble_coef, 1},
             {"x_fwd_share", x->fwd_share, 1},
             {"x_ib_dep_calls", x->ib_dep_calls, 1},
             {"x_nv_dep_calls", x->nv_dep_calls, 1},
             {"x_ib_sync_calls", x->ib_sync_calls, 1},
             {"x_nv_sync_calls", x->nv_sync_calls, 1},
             {"x_ib_gather_calls", x->ib_gather_calls, 1},
             {"x_nv_gather_calls", x->nv_gather_calls, 1}};
    size_t i;
    for (i = 0; i < sizeof f / sizeof f[0]; i++)
        if (strcmp(f[i].key, key) == 0) {
            number(out, f[i].v / f[i].scale);
            return true;
        }
    return false;
}

void plans_table_value_row(const struct plans_column *c,
                           const struct report *r,
                           const struct report_row *row,
                           size_t rank,
                           const struct cost_times *t,
                           struct plans_value *out)
{
    out->kind = PLANS_NUMBER;
    out->num = 0;
    out->flag = false;
    out->str = "";
    if (c->id == C_FAMILY) {
        text(out, row->family >= 0 && (size_t)row->family < r->nfamilies
                      ? r->family[row->family].name
                      : "?");
    } else if (c->id == C_FITS) {
        out->kind = PLANS_BOOL;
        out->flag = row->fits;
    } else if (c->id == C_HEADROOM) {
        number(out, terms_mem_headroom(&row->mem) / GIB);
    } else if (c->id == C_XTERM || c->id == C_XWORK) {
        const struct terms_term *term = terms_find(c->key);
        if (!row->work.x.known) /* no calibration: no expected figures */
            out->kind = PLANS_EMPTY;
        else if (c->id == C_XTERM && term)
            number(out, terms_time(t, term->id));
        else
            xwork_value(c->key, &row->work.x, out);
    } else if (!plan_value(c->id, row, rank, out) &&
               !time_value(c->id, t, out)) {
        work_value(c->id, row, out);
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
