/*
 * terms: the inputs and time terms of the model (see terms.h).
 *
 * Each C expression below keeps the arithmetic of the template beside it
 * in SI units; the rounding may differ from the spreadsheet's by a few
 * ulps (the template divides GB by GB/s where C divides bytes by B/s),
 * which tests/test_terms.c bounds at 1e-12 relative. The cached value of
 * every formula cell is the C result.
 *
 * Bubbles (DualPipe README table; Narayanan et al. 2021 §2.2; Qi et al.
 * 2024) reach these terms as a coefficient of the work: bubble =
 * coefficient x core / micro-batches (cost.c derives the coefficient per
 * schedule).
 */
#include "terms.h"

#include <stddef.h>
#include <string.h>

#include "cost.h"

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

#define HW TERMS_HARDWARE
#define MO TERMS_MODEL
#define DE TERMS_DERIVED

/* clang-format off */
static const struct terms_input inputs[] = {
    {"BF16_PEAK_TFLOPS", HW, "gpu", "bf16_peak_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"BF16_ACHIEVABLE_TFLOPS", HW, "gpu", "bf16_achievable_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"FP8_PEAK_TFLOPS", HW, "gpu", "fp8_peak_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"FP8_ACHIEVABLE_TFLOPS", HW, "gpu", "fp8_achievable_tflops", "TFLOP/s", 1e12, NULL, NULL, NULL},
    {"HBM_GIB", HW, "gpu", "hbm_gib", "GiB", 1073741824.0, NULL, NULL, NULL},
    {"HBM_ACHIEVABLE_TBPS", HW, "gpu", "hbm_achievable_tbps", "TB/s", 1e12, NULL, NULL, NULL},
    {"SMS", HW, "gpu", "sms", "", 1, NULL, NULL, NULL},
    {"COMM_SMS", HW, "gpu", "comm_sms", "", 1, NULL, NULL, NULL},
    {"CLOCK_DERATE", HW, "gpu", "clock_derate", "", 1, NULL, NULL, NULL},
    {"NVLINK_GBPS", HW, "cluster", "nvlink_gbps", "GB/s", 1e9, NULL, NULL, NULL},
    {"IB_GBPS", HW, "cluster", "ib_gbps", "GB/s", 1e9, NULL, NULL, NULL},
    {"NVLINK_LATENCY_US", HW, "cluster", "nvlink_latency_us", "us", 1e-6, NULL, NULL, NULL},
    {"IB_LATENCY_US", HW, "cluster", "ib_latency_us", "us", 1e-6, NULL, NULL, NULL},
    {"GPU_HOUR_USD", HW, "cluster", "gpu_hour_usd", "USD", 1, NULL, NULL, NULL},
    {"TRAINING_TOKENS", MO, "training", "tokens", "tokens", 1, NULL, NULL, NULL},

    {"COMPUTE_DERATE", DE, NULL, NULL, "", 1, "CLOCK_DERATE", derate,
     "share of the achievable GEMM rate compute keeps (the clock derate; "
     "SMs running communication are the comm SM term)"},
    {"BF16_TFLOPS_USED", DE, NULL, NULL, "TFLOP/s", 1e12,
     "BF16_ACHIEVABLE_TFLOPS*COMPUTE_DERATE", bf16_used,
     "BF16 rate the plans are timed with"},
    {"FP8_TFLOPS_USED", DE, NULL, NULL, "TFLOP/s", 1e12,
     "FP8_ACHIEVABLE_TFLOPS*COMPUTE_DERATE", fp8_used,
     "FP8 rate the plans are timed with"},
    {"RIDGE_IB_BF16", DE, NULL, NULL, "FLOP/B", 1,
     "BF16_TFLOPS_USED*1000/IB_GBPS", ridge_ib,
     "ridge point over IB: below this intensity a BF16 plan is IB-bound"},
    {"RIDGE_NVLINK_BF16", DE, NULL, NULL, "FLOP/B", 1,
     "BF16_TFLOPS_USED*1000/NVLINK_GBPS", ridge_nvlink,
     "ridge point over NVLink for BF16"},
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

bool terms_input_value(const struct terms_input *in,
                       const struct hardware *hw,
                       const struct model *m,
                       double *out)
{
    const struct datafile_meta *meta;
    const char *spec;
    const struct datafile_field *f;
    long i;
    if (in->origin == TERMS_DERIVED) {
        *out = in->value(hw);
        return true;
    }
    meta = in->origin == TERMS_HARDWARE ? &hw->meta : &m->meta;
    spec = in->origin == TERMS_HARDWARE ? (const char *)&hw->spec
                                        : (const char *)&m->spec;
    if (!meta->schema)
        return false;
    i = datafile_field_index(meta->schema, in->section, in->key);
    if (i < 0)
        return false;
    f = &meta->schema->fields[i];
    if (f->type == DATAFILE_DOUBLE)
        *out = *(const double *)(const void *)(spec + f->offset);
    else if (f->type == DATAFILE_INT)
        *out = (double)*(const long *)(const void *)(spec + f->offset);
    else
        return false;
    return true;
}

bool terms_name_known(const char *name, bool is_function)
{
    static const char *const functions[] = {"MAX", "MIN", "IF"};
    size_t i;
    if (!is_function)
        return terms_input_find(name) != NULL;
    for (i = 0; i < sizeof functions / sizeof functions[0]; i++)
        if (strcmp(functions[i], name) == 0)
            return true;
    return false;
}

/* ---- Terms ---- */

static double max2(double a, double b)
{
    return a > b ? a : b;
}

double terms_link_time(double bytes, double calls, double bps, double lat_s)
{
    return bytes / bps + calls * lat_s;
}

double
terms_core(double compute, double ib, double nvlink, double hbm, int *bound)
{
    double core = compute;
    *bound = COST_COMPUTE;
    if (ib > core) {
        core = ib;
        *bound = COST_IB;
    }
    if (nvlink > core) {
        core = nvlink;
        *bound = COST_NVLINK;
    }
    if (hbm > core) {
        core = hbm;
        *bound = COST_HBM;
    }
    return core;
}

/* Each function is the C side of the template in the table below, in
 * the same order of operations. */

static double t_compute(const struct terms_env *e)
{
    const struct cost_work *w = e->w;
    return w->bf16_flops / e->hw->bf16_flops +
           (w->fp8_flops > 0 ? w->fp8_flops / e->hw->fp8_flops : 0);
}

static double t_ib(const struct terms_env *e)
{
    return terms_link_time(e->w->ib_bytes, e->w->ib_calls, e->hw->ib_bps,
                           e->hw->ib_latency_s);
}

static double t_nvlink(const struct terms_env *e)
{
    return terms_link_time(e->w->nvlink_bytes, e->w->nvlink_calls,
                           e->hw->nvlink_bps, e->hw->nvlink_latency_s);
}

static double t_hbm(const struct terms_env *e)
{
    return e->w->hbm_bytes / e->hw->hbm_bps;
}

static double t_optimizer(const struct terms_env *e)
{
    return e->w->optimizer_bytes / e->hw->hbm_bps;
}

/* The busier link's time for a phase's bytes and calls. */
static double phase_time(const struct hardware *hw,
                         double ib,
                         double ib_calls,
                         double nv,
                         double nv_calls)
{
    return max2(
        terms_link_time(ib, ib_calls, hw->ib_bps, hw->ib_latency_s),
        terms_link_time(nv, nv_calls, hw->nvlink_bps, hw->nvlink_latency_s));
}

static double t_sync(const struct terms_env *e)
{
    const struct cost_work *w = e->w;
    return phase_time(e->hw, w->ib_sync_bytes, w->ib_sync_calls,
                      w->nvlink_sync_bytes, w->nvlink_sync_calls);
}

static double t_gather(const struct terms_env *e)
{
    const struct cost_work *w = e->w;
    return phase_time(e->hw, w->ib_gather_bytes, w->ib_gather_calls,
                      w->nvlink_gather_bytes, w->nvlink_gather_calls);
}

static double t_ib_steady(const struct terms_env *e)
{
    return terms_link_time(e->w->ib_steady_bytes, e->w->ib_steady_calls,
                           e->hw->ib_bps, e->hw->ib_latency_s);
}

static double t_nvlink_steady(const struct terms_env *e)
{
    return terms_link_time(e->w->nvlink_steady_bytes, e->w->nvlink_steady_calls,
                           e->hw->nvlink_bps, e->hw->nvlink_latency_s);
}

/* SMs that run overlapped communication kernels are lost to compute
 * while those run (DeepSeek-V3 §3.2.2: 20 of 132 H800 SMs). */
static double t_comm_sm(const struct terms_env *e)
{
    const struct cost_times *t = e->t;
    const struct hardware_spec *s = &e->hw->spec;
    double comm = max2(t->ib_steady, t->nvlink_steady);
    return (t->compute < comm ? t->compute : comm) * (double)s->comm_sms /
           (double)s->sms;
}

static double t_core(const struct terms_env *e)
{
    int bound;
    return terms_core(e->t->compute + e->t->comm_sm, e->t->ib_steady,
                      e->t->nvlink_steady, e->t->hbm, &bound);
}

static double t_bound(const struct terms_env *e)
{
    int bound;
    terms_core(e->t->compute + e->t->comm_sm, e->t->ib_steady,
               e->t->nvlink_steady, e->t->hbm, &bound);
    return bound;
}

/* Warm-up and cool-down run a micro-batch's chunks unpaired: its own EP,
 * TP and CP traffic is not hidden there (DualPipe README: only paired
 * forward and backward chunks overlap). */
static double t_ramp(const struct terms_env *e)
{
    const struct cost_work *w = e->w;
    return max2(e->t->compute, e->t->hbm) +
           phase_time(e->hw, w->ib_dep_bytes, w->ib_dep_calls,
                      w->nvlink_dep_bytes, w->nvlink_dep_calls);
}

static double t_bubble(const struct terms_env *e)
{
    return e->w->bubble_coef * e->t->ramp / e->w->microbatches;
}

/* The step-end collectives hide only under the last micro-batch's
 * backward (gradients reduce as their layers finish) and the first
 * micro-batch's forward (weights gathered as layers need them). */
static double t_dp_exposed(const struct terms_env *e)
{
    const struct cost_times *t = e->t;
    const struct cost_work *w = e->w;
    return max2(0,
                t->sync - t->compute * (1 - w->fwd_share) / w->microbatches) +
           max2(0, t->gather - t->compute * w->fwd_share / w->microbatches);
}

static double t_step(const struct terms_env *e)
{
    return e->t->bubble + e->t->optimizer + e->t->core + e->t->dp_exposed;
}

static double t_serial(const struct terms_env *e)
{
    const struct cost_times *t = e->t;
    return t->bubble + t->optimizer + max2(t->compute, t->hbm) + t->ib +
           t->nvlink;
}

static double t_ratio(const struct terms_env *e)
{
    return max2(e->t->ib, e->t->nvlink) / e->t->compute;
}

static double t_tps(const struct terms_env *e)
{
    return e->w->tokens / (e->t->step * e->w->gpus);
}

/* Each precision's model FLOPs over its own peak: never above 100%. */
static double t_mfu(const struct terms_env *e)
{
    const struct cost_work *w = e->w;
    double fp8 =
        w->model_fp8_flops > 0 ? w->model_fp8_flops / e->hw->fp8_peak_flops : 0;
    return (fp8 +
            (w->model_flops - w->model_fp8_flops) / e->hw->bf16_peak_flops) /
           e->t->step;
}

static double t_mfu_bf16_peak(const struct terms_env *e)
{
    return e->w->model_flops / (e->t->step * e->hw->bf16_peak_flops);
}

static double t_gpuh(const struct terms_env *e)
{
    return 1e12 / e->t->tokens_per_s_per_gpu / 3600;
}

static double t_days(const struct terms_env *e)
{
    return e->m->spec.tokens / (e->t->tokens_per_s_per_gpu * e->w->gpus) /
           86400;
}

static double t_cost(const struct terms_env *e)
{
    return e->t->days * 24 * e->w->gpus * e->hw->spec.gpu_hour_usd;
}

#define IB_LAT "*IB_LATENCY_US*1E-06"
#define NV_LAT "*NVLINK_LATENCY_US*1E-06"

/* clang-format off */
static const struct terms_term terms[] = {
    {TERMS_COMPUTE, "compute",
     "{bf16_tflop}/BF16_TFLOPS_USED+"
     "IF({fp8_tflop}>0,{fp8_tflop}/FP8_TFLOPS_USED,0)", t_compute},
    {TERMS_IB, "ib", "{ib_gb}/IB_GBPS+{ib_calls}" IB_LAT, t_ib},
    {TERMS_NVLINK, "nvlink", "{nv_gb}/NVLINK_GBPS+{nv_calls}" NV_LAT,
     t_nvlink},
    {TERMS_HBM, "hbm", "{hbm_gb}/(HBM_ACHIEVABLE_TBPS*1000)", t_hbm},
    {TERMS_OPTIMIZER, "optimizer", "{opt_gb}/(HBM_ACHIEVABLE_TBPS*1000)",
     t_optimizer},
    {TERMS_SYNC, "sync",
     "MAX({ib_sync_gb}/IB_GBPS+{ib_sync_calls}" IB_LAT ","
     "{nv_sync_gb}/NVLINK_GBPS+{nv_sync_calls}" NV_LAT ")", t_sync},
    {TERMS_GATHER, "gather",
     "MAX({ib_gather_gb}/IB_GBPS+{ib_gather_calls}" IB_LAT ","
     "{nv_gather_gb}/NVLINK_GBPS+{nv_gather_calls}" NV_LAT ")", t_gather},
    {TERMS_IB_STEADY, "ib_steady",
     "{ib_steady_gb}/IB_GBPS+{ib_steady_calls}" IB_LAT, t_ib_steady},
    {TERMS_NVLINK_STEADY, "nv_steady",
     "{nv_steady_gb}/NVLINK_GBPS+{nv_steady_calls}" NV_LAT, t_nvlink_steady},
    {TERMS_COMM_SM, "comm_sm",
     "MIN({compute},MAX({ib_steady},{nv_steady}))*COMM_SMS/SMS", t_comm_sm},
    {TERMS_CORE, "core",
     "MAX({compute}+{comm_sm},{ib_steady},{nv_steady},{hbm})", t_core},
    /* The first of compute, IB, NVLink, HBM equal to the maximum: the
     * term terms_core() keeps (it moves on only when strictly greater). */
    {TERMS_BOUND, "bound",
     "IF({core}={compute}+{comm_sm},\"compute\",IF({core}={ib_steady},"
     "\"IB\",IF({core}={nv_steady},\"NVLink\",\"HBM\")))", t_bound},
    {TERMS_RAMP, "ramp",
     "MAX({compute},{hbm})+MAX({ib_dep_gb}/IB_GBPS+{ib_dep_calls}" IB_LAT ","
     "{nv_dep_gb}/NVLINK_GBPS+{nv_dep_calls}" NV_LAT ")", t_ramp},
    {TERMS_BUBBLE, "bubble", "{bubble_coef}*{ramp}/{microbatches}", t_bubble},
    {TERMS_DP_EXPOSED, "dp_exposed",
     "MAX(0,{sync}-{compute}*(1-{fwd_share})/{microbatches})+"
     "MAX(0,{gather}-{compute}*{fwd_share}/{microbatches})", t_dp_exposed},
    {TERMS_STEP, "step", "{bubble}+{optimizer}+{core}+{dp_exposed}", t_step},
    {TERMS_SERIAL, "serial",
     "{bubble}+{optimizer}+MAX({compute},{hbm})+{ib}+{nvlink}", t_serial},
    {TERMS_RATIO, "ratio", "MAX({ib},{nvlink})/{compute}", t_ratio},
    {TERMS_TPS, "tps", "{tokens}/({step}*{gpus})", t_tps},
    {TERMS_MFU, "mfu",
     "(IF({model_fp8_tflop}>0,{model_fp8_tflop}/FP8_PEAK_TFLOPS,0)+"
     "({model_tflop}-{model_fp8_tflop})/BF16_PEAK_TFLOPS)/{step}", t_mfu},
    {TERMS_MFU_BF16_PEAK, "mfu_bf16_peak",
     "{model_tflop}/({step}*BF16_PEAK_TFLOPS)", t_mfu_bf16_peak},
    {TERMS_GPUH, "gpuh", "1E+12/{tps}/3600", t_gpuh},
    {TERMS_DAYS, "days", "TRAINING_TOKENS/({tps}*{gpus})/86400", t_days},
    {TERMS_COST, "cost", "{days}*24*{gpus}*GPU_HOUR_USD", t_cost},
};
/* clang-format on */

void terms_step(const struct terms_env *e, struct cost_times *t)
{
    const struct cost_work *w = e->w;
    const struct hardware *hw = e->hw;
    t->compute = t_compute(e);
    t->ib = t_ib(e);
    t->nvlink = t_nvlink(e);
    t->hbm = t_hbm(e);
    t->optimizer = t_optimizer(e);
    t->sync = t_sync(e);
    t->gather = t_gather(e);
    t->ib_steady = t_ib_steady(e);
    t->nvlink_steady = t_nvlink_steady(e);
    t->comm_sm = t_comm_sm(e);
    /* the MoE all-to-all alone (no column: the EP/compute ratio) */
    t->ep = max2(terms_link_time(w->ep_ib_bytes, w->ep_ib_calls, hw->ib_bps,
                                 hw->ib_latency_s),
                 terms_link_time(w->ep_nvlink_bytes, w->ep_nvlink_calls,
                                 hw->nvlink_bps, hw->nvlink_latency_s));
    t->core = terms_core(t->compute + t->comm_sm, t->ib_steady,
                         t->nvlink_steady, t->hbm, &t->bound);
    t->ramp = t_ramp(e);
    t->bubble = t_bubble(e);
    t->dp_exposed = t_dp_exposed(e);
    t->step = t_step(e);
}

void terms_derived(const struct terms_env *e, struct cost_times *t)
{
    t->step_serial = t_serial(e);
    t->comm_compute_ratio = t_ratio(e);
    t->tokens_per_s_per_gpu = t_tps(e);
    t->mfu = t_mfu(e);
    t->mfu_bf16_peak = t_mfu_bf16_peak(e);
    t->gpu_hours_per_trillion = t_gpuh(e);
    t->days = t_days(e);
    t->cost_usd = t_cost(e);
}

double terms_time(const struct cost_times *t, int id)
{
    switch (id) {
    case TERMS_COMPUTE:
        return t->compute;
    case TERMS_IB:
        return t->ib;
    case TERMS_NVLINK:
        return t->nvlink;
    case TERMS_HBM:
        return t->hbm;
    case TERMS_OPTIMIZER:
        return t->optimizer;
    case TERMS_SYNC:
        return t->sync;
    case TERMS_GATHER:
        return t->gather;
    case TERMS_IB_STEADY:
        return t->ib_steady;
    case TERMS_NVLINK_STEADY:
        return t->nvlink_steady;
    case TERMS_COMM_SM:
        return t->comm_sm;
    case TERMS_CORE:
        return t->core;
    case TERMS_BOUND:
        return t->bound;
    case TERMS_RAMP:
        return t->ramp;
    case TERMS_BUBBLE:
        return t->bubble;
    case TERMS_DP_EXPOSED:
        return t->dp_exposed;
    case TERMS_STEP:
        return t->step;
    case TERMS_SERIAL:
        return t->step_serial;
    case TERMS_RATIO:
        return t->comm_compute_ratio;
    case TERMS_TPS:
        return t->tokens_per_s_per_gpu;
    case TERMS_MFU:
        return t->mfu;
    case TERMS_MFU_BF16_PEAK:
        return t->mfu_bf16_peak;
    case TERMS_GPUH:
        return t->gpu_hours_per_trillion;
    case TERMS_DAYS:
        return t->days;
    case TERMS_COST:
        return t->cost_usd;
    default:
        return 0;
    }
}

const struct terms_term *terms_all(size_t *n)
{
    *n = sizeof terms / sizeof terms[0];
    return terms;
}

const struct terms_term *terms_find(const char *key)
{
    size_t i;
    for (i = 0; i < sizeof terms / sizeof terms[0]; i++)
        if (strcmp(terms[i].key, key) == 0)
            return &terms[i];
    return NULL;
}
