/*
 * terms_inputs: the registry of the workbook's inputs (see
 * terms_inputs.h): the data-file keys its formulas read, the derived names
 * with their formula and C side, their values for a cluster, model and
 * sweep file; the names the workbook defines over its own tables; and the
 * one lexer of the template compilers, which accepts only the names
 * registered here.
 */
#include "terms_inputs.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "calibration.h"
#include "collectives.h"
#include "stack.h"
#include "sweep.h"

/* ---- Inputs ---- */

static double derate(const struct hardware *hw)
{
    return hw->compute_derate;
}

static double bf16_used(const struct hardware *hw)
{
    return hw->bf16_flops / 1e12;
}

static double fp8_used(const struct hardware *hw)
{
    return hw->fp8_flops / 1e12;
}

static double ridge_ib(const struct hardware *hw)
{
    return hw->bf16_flops / hw->ib_bps;
}

static double ridge_nvlink(const struct hardware *hw)
{
    return hw->bf16_flops / hw->nvlink_bps;
}

static double ridge_ib_fp8(const struct hardware *hw)
{
    return hw->fp8_flops / hw->ib_bps;
}

static double ridge_nvlink_fp8(const struct hardware *hw)
{
    return hw->fp8_flops / hw->nvlink_bps;
}

static double clock_factor(const struct hardware *hw)
{
    return hw->cal ? calibration_clock_factor(hw->cal) : 1;
}

#define HW TERMS_HARDWARE
#define MO TERMS_MODEL
#define SW TERMS_SWEEP
#define CA TERMS_CALIBRATION
#define ST TERMS_STACK
#define CO TERMS_COLLECTIVES
#define DE TERMS_DERIVED

/* clang-format off */
static const struct terms_input inputs[] = {
    {"BF16_PEAK_TFLOPS", HW, "gpu", "bf16_peak_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"BF16_ACHIEVABLE_TFLOPS", HW, "gpu", "bf16_achievable_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"FP8_PEAK_TFLOPS", HW, "gpu", "fp8_peak_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"FP8_ACHIEVABLE_TFLOPS", HW, "gpu", "fp8_achievable_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"HBM_GIB", HW, "gpu", "hbm_gib", "GiB", 1073741824.0, NULL, NULL, NULL},
    {"CUDA_CONTEXT_GIB", HW, "gpu", "cuda_context_gib", "GiB", 1073741824.0, NULL, NULL, NULL},
    {"NCCL_BUFFERS_GIB", HW, "gpu", "nccl_buffers_gib", "GiB", 1073741824.0, NULL, NULL, NULL},
    {"FRAGMENTATION_PCT", HW, "gpu", "fragmentation_pct", "%", 0.01, NULL, NULL, NULL},
    {"HBM_ACHIEVABLE_TBPS", HW, "gpu", "hbm_achievable_tbps", "TB/s", 1e12, NULL, NULL, NULL},
    {"SMS", HW, "gpu", "sms", "", 1, NULL, NULL, NULL},
    {"COMM_SMS", HW, "gpu", "comm_sms", "", 1, NULL, NULL, NULL},
    {"HOST_LINK_GBPS", HW, "gpu", "host_link_gbps", "GB/s", 1e9, NULL, NULL, NULL},
    {"CLOCK_DERATE", HW, "gpu", "clock_derate", "", 1, NULL, NULL, NULL},
    {"NVLINK_GBPS", HW, "cluster", "nvlink_gbps", "GB/s", 1e9, NULL, NULL, NULL},
    {"IB_GBPS", HW, "cluster", "ib_gbps", "GB/s", 1e9, NULL, NULL, NULL},
    {"COLL_STEP_US", CO, "ring_simple", "nvlink_us", "us", 1e-6, NULL, NULL, NULL},
    {"COLL_NET_STEP_US", CO, "ring_simple", "net_us", "us", 1e-6, NULL, NULL, NULL},
    {"GPU_HOUR_USD", HW, "cluster", "gpu_hour_usd", "USD", 1, NULL, NULL, NULL},
    {"FAILURES_PER_MGPU_HOUR", HW, "cluster", "failures_per_mgpu_hour", "/1M GPU-h", 1e-6, NULL, NULL, NULL},
    {"STORAGE_GBPS", HW, "cluster", "storage_gbps", "GB/s", 1e9, NULL, NULL, NULL},
    {"RESTART_MIN", HW, "cluster", "restart_min", "min", 60, NULL, NULL, NULL},
    {"BOARD_W", HW, "gpu", "board_w", "W", 1, NULL, NULL, NULL},
    {"NODE_W", HW, "cluster", "node_w", "W", 1, NULL, NULL, NULL},
    {"PUE", HW, "cluster", "pue", "", 1, NULL, NULL, NULL},
    {"GRID_KG_PER_KWH", HW, "cluster", "grid_kg_per_kwh", "kg/kWh", 1, NULL, NULL, NULL},
    {"TRAINING_TOKENS", MO, "training", "tokens", "tokens", 1, NULL, NULL, NULL},
    {"HEADROOM_PCT", SW, "report", "headroom_pct", "%", 0.01, NULL, NULL, NULL},
    {"TIE_PCT", SW, "report", "tie_pct", "%", 0.01, NULL, NULL, NULL},
    {"CLOCK_BURST_TFLOPS", CA, "clock", "burst_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"CLOCK_SUSTAINED_TFLOPS", CA, "clock", "sustained_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"CLOCK_BURST_S", CA, "clock", "burst_s", "s", 1, NULL, NULL, NULL},
    {"HBM_COPY_TBPS", CA, "elementwise", "copy_tbps", "TB/s", 1e12, NULL, NULL, NULL},
    {"COMPUTE_OVERHEAD", ST, "stack", "compute_overhead", "", 1, NULL, NULL, NULL},
    {"NETWORK_EFFICIENCY", ST, "stack", "network_efficiency", "", 1, NULL, NULL, NULL},
    {"HOST_SYNC_SHARE", ST, "stack", "host_sync_share", "", 1, NULL, NULL, NULL},

    {"COMPUTE_DERATE", DE, NULL, NULL, "", 1, "CLOCK_DERATE", derate,
     "share of the achievable GEMM rate compute keeps (the clock derate; "
     "SMs running communication are the comm SM term)"},
    {"BF16_TFLOPS_USED", DE, NULL, NULL, "TFLOP/s", 1e12,
     "BF16_ACHIEVABLE_TFLOPS*COMPUTE_DERATE", bf16_used,
     "BF16 rate the plans are timed with"},
    {"FP8_TFLOPS_USED", DE, NULL, NULL, "TFLOP/s", 1e12,
     "FP8_ACHIEVABLE_TFLOPS*COMPUTE_DERATE", fp8_used,
     "FP8 rate the plans are timed with"},
    {"CLOCK_FACTOR", DE, NULL, NULL, "", 1,
     "CLOCK_SUSTAINED_TFLOPS/CLOCK_BURST_TFLOPS", clock_factor,
     "sustained / burst GEMM rate under the power cap (measured): the "
     "expected step divides compute-bound time by it"},
    {"RIDGE_IB_BF16", DE, NULL, NULL, "FLOP/B", 1,
     "BF16_TFLOPS_USED*1000/IB_GBPS", ridge_ib,
     "ridge point over IB: below this intensity a BF16 plan is IB-bound"},
    {"RIDGE_NVLINK_BF16", DE, NULL, NULL, "FLOP/B", 1,
     "BF16_TFLOPS_USED*1000/NVLINK_GBPS", ridge_nvlink,
     "ridge point over NVLink for BF16"},
    {"RIDGE_IB_FP8", DE, NULL, NULL, "FLOP/B", 1,
     "FP8_TFLOPS_USED*1000/IB_GBPS", ridge_ib_fp8,
     "ridge point over IB for FP8 GEMMs"},
    {"RIDGE_NVLINK_FP8", DE, NULL, NULL, "FLOP/B", 1,
     "FP8_TFLOPS_USED*1000/NVLINK_GBPS", ridge_nvlink_fp8,
     "ridge point over NVLink for FP8 GEMMs"},
};
/* clang-format on */

#define NINPUTS (sizeof inputs / sizeof inputs[0])

const struct terms_input *terms_inputs(size_t *n)
{
    *n = NINPUTS;
    return inputs;
}

const struct terms_input *terms_input_find(const char *name)
{
    size_t i;
    for (i = 0; i < NINPUTS; i++)
        if (strcmp(inputs[i].name, name) == 0)
            return &inputs[i];
    return NULL;
}

/* The schema an input's key belongs to. */
static const struct datafile_schema *schema_of(int origin)
{
    switch (origin) {
    case TERMS_HARDWARE:
        return hardware_schema();
    case TERMS_MODEL:
        return model_schema();
    case TERMS_SWEEP:
        return sweep_schema();
    case TERMS_CALIBRATION:
        return calibration_schema();
    case TERMS_STACK:
        return stack_schema();
    case TERMS_COLLECTIVES:
        return collectives_schema();
    default:
        return NULL;
    }
}

long terms_input_field(const struct terms_input *in)
{
    const struct datafile_schema *schema = schema_of(in->origin);
    return schema ? datafile_field_index(schema, in->section, in->key) : -1;
}

bool terms_input_value(const struct terms_input *in,
                       const struct hardware *hw,
                       const struct model *m,
                       const struct sweep_file *sf,
                       double *out)
{
    const struct datafile_field *f;
    const char *spec;
    long i;
    if (in->origin == TERMS_DERIVED) {
        *out = in->value(hw);
        return true;
    }
    i = terms_input_field(in);
    if (i < 0)
        return false;
    f = &schema_of(in->origin)->fields[i];
    if (in->origin == TERMS_HARDWARE) {
        spec = (const char *)&hw->spec;
    } else if (in->origin == TERMS_CALIBRATION) {
        if (!hw->cal)
            return false;
        spec = (const char *)&hw->cal->spec;
    } else if (in->origin == TERMS_STACK) {
        if (!hw->stack)
            return false;
        spec = (const char *)&hw->stack->spec;
    } else if (in->origin == TERMS_COLLECTIVES) {
        if (!hw->coll) { /* no collectives file: no latency */
            *out = 0;
            return true;
        }
        spec = (const char *)&hw->coll->spec;
    } else if (in->origin == TERMS_MODEL) {
        spec = (const char *)&m->spec;
    } else if (sf) {
        spec = (const char *)&sf->spec;
    } else { /* no sweep file: the schema's default */
        char why[160];
        return f->def && datafile_parse_scalar(f, f->def, out, why, sizeof why);
    }
    if (f->type == DATAFILE_DOUBLE)
        *out = *(const double *)(const void *)(spec + f->offset);
    else if (f->type == DATAFILE_INT)
        *out = (double)*(const long *)(const void *)(spec + f->offset);
    else
        return false;
    return true;
}

/* ---- Names the workbook defines ---- */

/* clang-format off */
static const struct terms_name names[] = {
    {"PLANS_PLAN", "Plans: each plan in roofplan eval syntax"},
    {"PLANS_FAMILY", "Plans: each plan's family"},
    {"PLANS_RANK_S", "Plans: the step time the ranking uses (s)"},
    {"PLANS_STEP_S", "Plans: the speed-of-light step time (s)"},
    {"PLANS_EXPECTED_S", "Plans: the expected step time (s)"},
    {"PLANS_LOW_S", "Plans: the expected step's low end, its scenarios' span (s)"},
    {"PLANS_HIGH_S", "Plans: the expected step's high end, its slowest scenario (s)"},
    {"PLANS_X_TPS", "Plans: expected tokens/s per GPU"},
    {"PLANS_X_MFU", "Plans: expected MFU"},
    {"PLANS_X_DAYS", "Plans: expected days for the token budget"},
    {"PLANS_X_COST", "Plans: expected cost of the token budget (USD)"},
    {"PLANS_FITS", "Plans: TRUE when the plan fits with the headroom kept free"},
    {"PLANS_BOUND", "Plans: the binding resource"},
    {"PLANS_RATIO", "Plans: the busiest link's time over compute"},
    {"PLANS_MFU", "Plans: MFU, each precision's FLOPs over its own peak"},
    {"PLANS_MFU_BF16_PEAK", "Plans: MFU of the BF16 peak (DeepSeek's convention)"},
    {"PLANS_TPS", "Plans: tokens/s per GPU"},
    {"PLANS_DAYS", "Plans: days for the token budget"},
    {"PLANS_GPUH", "Plans: GPU-hours per 1T tokens"},
    {"PLANS_COST", "Plans: cost of the token budget (USD)"},
    {"PLANS_MEM_TOTAL", "Plans: memory per GPU (GiB)"},
    {"PLANS_HEADROOM_GIB", "Plans: HBM left free (GiB)"},
    {"PLANS_FP8_TFLOP", "Plans: work per GPU per step at the FP8 rate (TFLOP)"},
    {"PLANS_BF16_TFLOP", "Plans: work per GPU per step at the BF16 rate (TFLOP)"},
    {"FASTEST_ROW", "Summary: the fastest fitting plan's position in the Plans ranges"},
    {"FASTEST_PLAN", "Summary: the fastest fitting plan"},
    {"FASTEST_STEP_S", "Summary: its step time, the one plans rank by (s)"},
    {"RECOMMENDED_ROW", "Summary: the recommended plan's position in the Plans ranges"},
    {"RECOMMENDED_PLAN", "Summary: among the ties, the plan with the most headroom"},
    {"RECOMMENDED_STEP_S", "Summary: its expected step time (s; the speed of light's without a calibration)"},
    {"RECOMMENDED_STEP_S_LOW", "Summary: the low end of its expected step (s): x EXPECTED_SPREAD_LOW"},
    {"RECOMMENDED_STEP_S_HIGH", "Summary: the high end of its expected step (s): x EXPECTED_SPREAD_HIGH"},
    {"RECOMMENDED_STEP_S_SOL", "Summary: its step time at the speed of light (s)"},
    {"RECOMMENDED_DAYS", "Summary: its expected days for the token budget"},
    {"RECOMMENDED_DAYS_LOW", "Summary: the low end of its expected days"},
    {"RECOMMENDED_DAYS_HIGH", "Summary: the high end of its expected days"},
    {"RECOMMENDED_DAYS_SOL", "Summary: its days at the speed of light"},
    {"RECOMMENDED_COST", "Summary: its expected cost of the token budget (USD)"},
    {"RECOMMENDED_COST_LOW", "Summary: the low end of its expected cost (USD)"},
    {"RECOMMENDED_COST_HIGH", "Summary: the high end of its expected cost (USD)"},
    {"RECOMMENDED_COST_SOL", "Summary: its cost at the speed of light (USD)"},
    {"EXPECTED_SPREAD_LOW", "Summary: the smallest measured/expected step over the published runs"},
    {"EXPECTED_SPREAD_HIGH", "Summary: the largest measured/expected step over the published runs"},
    {"GOODPUT_GPUS", "Assumptions: the recommended plan's GPUs"},
    {"CHECKPOINT_GB", "Assumptions: one checkpoint, the model's weights and optimizer state (GB)"},
    {"CHECKPOINT_WRITE_S", "Assumptions: its write at STORAGE_GBPS (s)"},
    {"RESTART_S", "Assumptions: a restart, RESTART_MIN and the checkpoint's read (s)"},
    {"JOB_FAILURES_PER_H", "Assumptions: the job's failures per hour"},
    {"CHECKPOINT_INTERVAL_MIN", "Assumptions: the checkpoint interval that loses least time (Daly 2006, min)"},
    {"GOODPUT", "Assumptions: the effective-training share, compute over wall-clock time"},
    {"WALL_DAYS", "Assumptions: the recommended plan's wall-clock days, failures and checkpoints included"},
    {"WALL_DAYS_LOW", "Assumptions: the low end of its wall-clock days"},
    {"WALL_DAYS_HIGH", "Assumptions: the high end of its wall-clock days"},
    {"WALL_COST", "Assumptions: its cost over the wall-clock days (USD)"},
    {"WALL_COST_LOW", "Assumptions: the low end of its wall-clock cost (USD)"},
    {"WALL_COST_HIGH", "Assumptions: the high end of its wall-clock cost (USD)"},
    {"DAYS_CHECKPOINT_WRITES", "Assumptions: days lost to checkpoint writes, of WALL_DAYS"},
    {"DAYS_RESTARTS", "Assumptions: days lost to restarts and the checkpoint's read, of WALL_DAYS"},
    {"DAYS_LOST_WORK", "Assumptions: days of work redone after failures, of WALL_DAYS"},
    {"GPU_POWER_W", "Assumptions: power per GPU, its share of the node's (W)"},
    {"ENERGY_MWH", "Assumptions: energy over the wall-clock days, PUE included (MWh)"},
    {"ENERGY_STEP_KWH", "Assumptions: energy of one expected step, PUE included (kWh)"},
    {"TCO2E", "Assumptions: location-based emissions of that energy (t CO2e)"},
    {"INPUTS_AS_SHIPPED", "Summary: TRUE while every input on Assumptions holds its shipped value"},
};
/* clang-format on */

const struct terms_name *terms_names(size_t *n)
{
    *n = sizeof names / sizeof names[0];
    return names;
}

const struct terms_name *terms_name_find(const char *name)
{
    size_t i;
    for (i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i].name, name) == 0)
            return &names[i];
    return NULL;
}

bool terms_name_known(const char *name, bool is_function)
{
    /* What the sheets call; each works alike in Excel, LibreOffice and
     * gnumeric (MIN(IF(...)) and friends as array formulas). */
    static const char *const functions[] = {
        "MAX",  "MIN",   "IF",         "AND",      "OR",
        "NOT",  "INDEX", "MATCH",      "IFERROR",  "ISNUMBER",
        "TEXT", "ROUND", "SUMPRODUCT", "SUBTOTAL", "SQRT"};
    size_t i;
    if (!is_function)
        return terms_input_find(name) != NULL || terms_name_find(name) != NULL;
    for (i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (strcmp(functions[i], name) == 0)
            return true;
    return false;
}

size_t terms_template_token(const char *s)
{
    size_t n = 0;
    if ((s[0] >= '0' && s[0] <= '9') || s[0] == '.') {
        while ((s[n] >= '0' && s[n] <= '9') || s[n] == '.')
            n++;
        if (s[n] == 'E' && (s[n + 1] == '+' || s[n + 1] == '-') &&
            s[n + 2] >= '0' && s[n + 2] <= '9') {
            n += 2;
            while (s[n] >= '0' && s[n] <= '9')
                n++;
        }
        return n;
    }
    if ((s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_') {
        char name[64];
        while ((s[n] >= 'A' && s[n] <= 'Z') || (s[n] >= '0' && s[n] <= '9') ||
               s[n] == '_')
            n++;
        if (n >= sizeof name)
            return 0;
        memcpy(name, s, n);
        name[n] = '\0';
        return terms_name_known(name, s[n] == '(') ? n : 0;
    }
    if ((s[0] >= 'a' && s[0] <= 'z') || s[0] == '$' || s[0] == '!' ||
        s[0] == '\'' || s[0] == '\0')
        return 0; /* references are written {key}, names upper case */
    return 1;
}

bool terms_input_available(const struct terms_input *in,
                           const struct hardware *hw)
{
    const char *f;
    if (in->origin == TERMS_CALIBRATION)
        return hw->cal != NULL;
    if (in->origin == TERMS_STACK)
        return hw->cal != NULL && hw->stack != NULL;
    if (in->origin != TERMS_DERIVED)
        return true;
    /* a derived name needs every input its formula names */
    for (f = in->formula; *f;) {
        size_t n = terms_template_token(f);
        if (n == 0)
            return false;
        if (n > 1 && f[0] >= 'A' && f[0] <= 'Z') {
            char name[64];
            const struct terms_input *k;
            snprintf(name, sizeof name, "%.*s", (int)n, f);
            k = terms_input_find(name);
            if (k && k != in && !terms_input_available(k, hw))
                return false;
        }
        f += n;
    }
    return true;
}
