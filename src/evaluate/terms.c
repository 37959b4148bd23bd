/*
 * terms: the time terms of the model (see terms.h); the inputs' registry
 * is terms_inputs.c's, the memory terms terms_memory.c's.
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

#include "calibration.h"
#include "cost.h"

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
terms_collective_time(double bytes, double calls, double bps, double lat_s)
{
    return bytes / bps + (bytes > 0 ? calls * lat_s : 0);
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

/* ---- The expected step (expected.h fills w->x) ---- */

/* The stack's free factors (1: neutral, and then exactly today's
 * arithmetic): compute_overhead multiplies the expected compute,
 * network_efficiency the links' bandwidth (not their latency). */

static double x_compute(const struct terms_env *e)
{
    const struct expected_work *x = &e->w->x;
    return ((x->gemm_cal_s + x->attn_cal_s) / e->clock + x->ew_s) *
           x->compute_overhead;
}

/* phase_time at the links' bandwidth under the network efficiency. */
static double x_phase_time(const struct terms_env *e,
                           double ib,
                           double ib_calls,
                           double nv,
                           double nv_calls)
{
    const struct hardware *hw = e->hw;
    double eff = e->w->x.network_efficiency;
    return max2(
        terms_link_time(ib, ib_calls, hw->ib_bps * eff, hw->ib_latency_s),
        terms_link_time(nv, nv_calls, hw->nvlink_bps * eff,
                        hw->nvlink_latency_s));
}

static double x_hbm(const struct terms_env *e)
{
    return e->w->hbm_bytes / e->copy_bps;
}

static double x_ib_hid(const struct terms_env *e)
{
    const struct expected_work *x = &e->w->x;
    return terms_link_time(x->hid_ib, x->hid_ib_calls,
                           e->hw->ib_bps * x->network_efficiency,
                           e->hw->ib_latency_s);
}

static double x_nv_hid(const struct terms_env *e)
{
    const struct expected_work *x = &e->w->x;
    return terms_link_time(x->hid_nv, x->hid_nv_calls,
                           e->hw->nvlink_bps * x->network_efficiency,
                           e->hw->nvlink_latency_s);
}

static double x_comm_sm(const struct terms_env *e)
{
    const struct cost_times *t = e->t;
    const struct hardware_spec *s = &e->hw->spec;
    double comm = max2(t->x_ib_hid, t->x_nv_hid);
    return (t->x_compute < comm ? t->x_compute : comm) * (double)s->comm_sms /
           (double)s->sms;
}

static double x_exposed(const struct terms_env *e)
{
    const struct expected_work *x = &e->w->x;
    return x_phase_time(e, x->xp_ib, x->xp_ib_calls, x->xp_nv, x->xp_nv_calls);
}

static double x_core(const struct terms_env *e)
{
    const struct cost_times *t = e->t;
    int bound;
    return terms_core(t->x_compute + t->x_comm_sm, t->x_ib_hid, t->x_nv_hid,
                      t->x_hbm, &bound) +
           t->x_exposed;
}

static double x_ramp(const struct terms_env *e)
{
    const struct cost_work *w = e->w;
    return max2(e->t->x_compute, e->t->x_hbm) +
           x_phase_time(e, w->x.dep_ib, w->ib_dep_calls, w->x.dep_nv,
                        w->nvlink_dep_calls);
}

static double x_bubble(const struct terms_env *e)
{
    return e->w->bubble_coef * e->t->x_ramp / e->w->microbatches;
}

static double x_sync(const struct terms_env *e)
{
    const struct cost_work *w = e->w;
    return x_phase_time(e, w->x.sync_ib, w->ib_sync_calls, w->x.sync_nv,
                        w->nvlink_sync_calls);
}

static double x_gather(const struct terms_env *e)
{
    const struct cost_work *w = e->w;
    return x_phase_time(e, w->x.gather_ib, w->ib_gather_calls, w->x.gather_nv,
                        w->nvlink_gather_calls);
}

/* As dp_exposed, but only what the stack overlaps hides (hide 1 or 0). */
static double x_dp(const struct terms_env *e)
{
    const struct cost_times *t = e->t;
    const struct cost_work *w = e->w;
    return max2(0, t->x_sync - w->x.grad_hide * t->x_compute *
                                   (1 - w->fwd_share) / w->microbatches) +
           max2(0, t->x_gather - w->x.param_hide * t->x_compute * w->fwd_share /
                                     w->microbatches);
}

static double x_optimizer(const struct terms_env *e)
{
    return e->w->optimizer_bytes / e->copy_bps;
}

static double x_expected(const struct terms_env *e)
{
    const struct cost_times *t = e->t;
    return t->x_bubble + t->x_optimizer + t->x_core + t->x_dp;
}

static double x_tps(const struct terms_env *e)
{
    return e->w->tokens / (e->t->expected * e->w->gpus);
}

static double x_mfu(const struct terms_env *e)
{
    return e->t->mfu * e->t->step / e->t->expected;
}

static double x_days(const struct terms_env *e)
{
    return e->m->spec.tokens / (e->t->x_tps * e->w->gpus) / 86400;
}

static double x_cost(const struct terms_env *e)
{
    return e->t->x_days * 24 * e->w->gpus * e->hw->spec.gpu_hour_usd;
}

#define IB_LAT "*IB_LATENCY_US*1E-06"
#define NV_LAT "*NVLINK_LATENCY_US*1E-06"
/* the expected terms' bandwidths: the links' under the network efficiency */
#define IB_X "(IB_GBPS*NETWORK_EFFICIENCY)"
#define NV_X "(NVLINK_GBPS*NETWORK_EFFICIENCY)"

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
    {TERMS_X_COMPUTE, "x_compute",
     "(({gemm_s}+{attn_s})/CLOCK_FACTOR+{ew_s})*COMPUTE_OVERHEAD", x_compute},
    {TERMS_X_HBM, "x_hbm", "{hbm_gb}/(HBM_COPY_TBPS*1000)", x_hbm},
    {TERMS_X_IB_HID, "x_ib_hid", "{x_ib_hid_gb}/" IB_X "+{x_ib_hid_calls}" IB_LAT,
     x_ib_hid},
    {TERMS_X_NV_HID, "x_nv_hid",
     "{x_nv_hid_gb}/" NV_X "+{x_nv_hid_calls}" NV_LAT, x_nv_hid},
    {TERMS_X_COMM_SM, "x_comm_sm",
     "MIN({x_compute},MAX({x_ib_hid},{x_nv_hid}))*COMM_SMS/SMS", x_comm_sm},
    {TERMS_X_EXPOSED, "x_exposed",
     "MAX({x_ib_xp_gb}/" IB_X "+{x_ib_xp_calls}" IB_LAT ","
     "{x_nv_xp_gb}/" NV_X "+{x_nv_xp_calls}" NV_LAT ")", x_exposed},
    {TERMS_X_CORE, "x_core",
     "MAX({x_compute}+{x_comm_sm},{x_ib_hid},{x_nv_hid},{x_hbm})+{x_exposed}",
     x_core},
    {TERMS_X_RAMP, "x_ramp",
     "MAX({x_compute},{x_hbm})+MAX({x_ib_dep_gb}/" IB_X "+{ib_dep_calls}" IB_LAT
     ",{x_nv_dep_gb}/" NV_X "+{nv_dep_calls}" NV_LAT ")", x_ramp},
    {TERMS_X_BUBBLE, "x_bubble", "{bubble_coef}*{x_ramp}/{microbatches}",
     x_bubble},
    {TERMS_X_SYNC, "x_sync",
     "MAX({x_ib_sync_gb}/" IB_X "+{ib_sync_calls}" IB_LAT ","
     "{x_nv_sync_gb}/" NV_X "+{nv_sync_calls}" NV_LAT ")", x_sync},
    {TERMS_X_GATHER, "x_gather",
     "MAX({x_ib_gather_gb}/" IB_X "+{ib_gather_calls}" IB_LAT ","
     "{x_nv_gather_gb}/" NV_X "+{nv_gather_calls}" NV_LAT ")", x_gather},
    {TERMS_X_DP, "x_dp",
     "MAX(0,{x_sync}-{grad_hide}*{x_compute}*(1-{fwd_share})/{microbatches})+"
     "MAX(0,{x_gather}-{param_hide}*{x_compute}*{fwd_share}/{microbatches})",
     x_dp},
    {TERMS_X_OPTIMIZER, "x_optimizer", "{opt_gb}/(HBM_COPY_TBPS*1000)",
     x_optimizer},
    {TERMS_EXPECTED, "expected", "{x_bubble}+{x_optimizer}+{x_core}+{x_dp}",
     x_expected},
    {TERMS_X_TPS, "x_tps", "{tokens}/({expected}*{gpus})", x_tps},
    {TERMS_X_MFU, "x_mfu", "{mfu}*{step}/{expected}", x_mfu},
    {TERMS_X_DAYS, "x_days", "TRAINING_TOKENS/({x_tps}*{gpus})/86400", x_days},
    {TERMS_X_COST, "x_cost", "{x_days}*24*{gpus}*GPU_HOUR_USD", x_cost},
};
/* clang-format on */

const char *terms_template(const char *key)
{
    size_t i, n;
    const struct terms_term *t = terms_find(key);
    const struct terms_mem_term *mem = terms_memory(&n);
    if (t)
        return t->formula;
    for (i = 0; i < n; i++)
        if (strcmp(mem[i].key, key) == 0)
            return mem[i].formula;
    if (strcmp(key, "ib_s") == 0)
        return TERMS_IB_TIME;
    if (strcmp(key, "nv_s") == 0)
        return TERMS_NVLINK_TIME;
    return NULL;
}

/* ---- The step ---- */

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

void terms_expected_rates(struct terms_env *e, const struct hardware *hw)
{
    e->clock = hw->cal ? calibration_clock_factor(hw->cal) : 1;
    e->copy_bps =
        hw->cal
            ? calibration_elementwise_tbps(hw->cal, CALIBRATION_EW_COPY) * 1e12
            : hw->hbm_bps;
}

void terms_expected(const struct terms_env *e, struct cost_times *t)
{
    if (!e->w->x.known)
        return;
    t->x_compute = x_compute(e);
    t->x_hbm = x_hbm(e);
    t->x_ib_hid = x_ib_hid(e);
    t->x_nv_hid = x_nv_hid(e);
    t->x_comm_sm = x_comm_sm(e);
    t->x_exposed = x_exposed(e);
    t->x_core = x_core(e);
    t->x_ramp = x_ramp(e);
    t->x_bubble = x_bubble(e);
    t->x_sync = x_sync(e);
    t->x_gather = x_gather(e);
    t->x_dp = x_dp(e);
    t->x_optimizer = x_optimizer(e);
    t->expected = x_expected(e);
    t->x_tps = x_tps(e);
    t->x_mfu = x_mfu(e);
    t->x_days = x_days(e);
    t->x_cost = x_cost(e);
}

double terms_time(const struct cost_times *t, int id)
{
    switch (id) {
    case TERMS_X_COMPUTE:
        return t->x_compute;
    case TERMS_X_HBM:
        return t->x_hbm;
    case TERMS_X_IB_HID:
        return t->x_ib_hid;
    case TERMS_X_NV_HID:
        return t->x_nv_hid;
    case TERMS_X_COMM_SM:
        return t->x_comm_sm;
    case TERMS_X_EXPOSED:
        return t->x_exposed;
    case TERMS_X_CORE:
        return t->x_core;
    case TERMS_X_RAMP:
        return t->x_ramp;
    case TERMS_X_BUBBLE:
        return t->x_bubble;
    case TERMS_X_SYNC:
        return t->x_sync;
    case TERMS_X_GATHER:
        return t->x_gather;
    case TERMS_X_DP:
        return t->x_dp;
    case TERMS_X_OPTIMIZER:
        return t->x_optimizer;
    case TERMS_EXPECTED:
        return t->expected;
    case TERMS_X_TPS:
        return t->x_tps;
    case TERMS_X_MFU:
        return t->x_mfu;
    case TERMS_X_DAYS:
        return t->x_days;
    case TERMS_X_COST:
        return t->x_cost;
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
