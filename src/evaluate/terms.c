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

#include <math.h>
#include <stddef.h>
#include <string.h>

#include "calibration.h"
#include "cost_work.h"

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

/* ---- The term family: each term once, in C and as a template ---- */

/*
 * The terms both rate sets evaluate (enum fam), in an order where each
 * reads only earlier ones. A term's C function reads the set's rates and
 * work (struct terms_rates) and the set's earlier terms (v[]); its
 * template, a macro of the set's prefix (SOL or EXP), reads the set's
 * names below and is instantiated once per set in the registry.
 */
enum fam {
    F_COMPUTE,
    F_HBM,
    F_OPTIMIZER,
    F_SYNC,
    F_GATHER,
    F_IB_HID,
    F_NV_HID,
    F_COMM_SM,
    F_OFFLOAD,
    F_EXPOSED,
    F_CORE,
    F_RAMP,
    F_BUBBLE,
    F_DP,
    F_STEP,
    F_TPS,
    F_MFU,
    F_DAYS,
    F_COST,
    F_COUNT
};

/* The rate sets' names in templates: SOL_* for the speed of light,
 * EXP_* for the expected step. */
#define IB_LAT "*IB_LATENCY_US*1E-06"
#define NV_LAT "*NVLINK_LATENCY_US*1E-06"
/* compute: FLOPs at the achievable rates / kernels at measured rates */
#define SOL_COMPUTE_TIME             \
    "{bf16_tflop}/BF16_TFLOPS_USED+" \
    "IF({fp8_tflop}>0,{fp8_tflop}/FP8_TFLOPS_USED,0)"
#define EXP_KERNELS "({gemm_s}+{attn_s}+{ew_s})"
#define EXP_CLOCK                         \
    "(1-(1-CLOCK_FACTOR)*IF(" EXP_KERNELS \
    ">0,({gemm_s}+{attn_s})/" EXP_KERNELS \
    "*MAX(0,1-CLOCK_BURST_S/" EXP_KERNELS "),0))"
#define EXP_COMPUTE_TIME                                     \
    "MAX(({gemm_s}+{attn_s})/" EXP_CLOCK                     \
    "+MAX({ew_s},{host_s}*HOST_SYNC_SHARE+{expert_host_s})," \
    "{host_s}+{expert_host_s})*COMPUTE_OVERHEAD"
/* the links' and HBM's bandwidth */
#define SOL_IB_RATE  "IB_GBPS"
#define EXP_IB_RATE  "(IB_GBPS*NETWORK_EFFICIENCY)"
#define SOL_NV_RATE  "NVLINK_GBPS"
#define EXP_NV_RATE  "(NVLINK_GBPS*NETWORK_EFFICIENCY)"
#define SOL_HBM_RATE "(HBM_ACHIEVABLE_TBPS*1000)"
/* the copy bandwidth, no faster than the floor's HBM (issue 17) */
#define EXP_HBM_RATE "(MIN(HBM_COPY_TBPS,HBM_ACHIEVABLE_TBPS)*1000)"
/* the work as each set sees it: overlapped traffic, exposed traffic
 * (the speed of light's overlap is ideal: none), the ramp's, the
 * step-end sync's and gather's (the expected: after efficiency) */
#define SOL_IB_HID       "{ib_steady_gb}"
#define EXP_IB_HID       "{x_ib_hid_gb}"
#define SOL_IB_HID_CALLS "{ib_steady_calls}"
#define EXP_IB_HID_CALLS "{x_ib_hid_calls}"
#define SOL_NV_HID       "{nv_steady_gb}"
#define EXP_NV_HID       "{x_nv_hid_gb}"
#define SOL_NV_HID_CALLS "{nv_steady_calls}"
#define EXP_NV_HID_CALLS "{x_nv_hid_calls}"
#define EXP_IB_XP        "{x_ib_xp_gb}"
#define EXP_IB_XP_CALLS  "{x_ib_xp_calls}"
#define EXP_NV_XP        "{x_nv_xp_gb}"
#define EXP_NV_XP_CALLS  "{x_nv_xp_calls}"
#define SOL_IB_DEP       "{ib_dep_gb}"
#define EXP_IB_DEP       "{x_ib_dep_gb}"
#define SOL_NV_DEP       "{nv_dep_gb}"
#define EXP_NV_DEP       "{x_nv_dep_gb}"
#define SOL_IB_SYNC      "{ib_sync_gb}"
#define EXP_IB_SYNC      "{x_ib_sync_gb}"
#define SOL_NV_SYNC      "{nv_sync_gb}"
#define EXP_NV_SYNC      "{x_nv_sync_gb}"
#define SOL_IB_GATHER    "{ib_gather_gb}"
#define EXP_IB_GATHER    "{x_ib_gather_gb}"
#define SOL_NV_GATHER    "{nv_gather_gb}"
#define EXP_NV_GATHER    "{x_nv_gather_gb}"
/* the rank's own work: HBM and optimizer bytes, bubble coefficient,
 * forward share, the calls of the ramp's, sync's and gather's traffic
 * (the expected set's may be another rank's: the slowest at its rates) */
#define SOL_HBM_GB          "{hbm_gb}"
#define EXP_HBM_GB          "{x_hbm_gb}"
#define SOL_OPT_GB          "{opt_gb}"
#define EXP_OPT_GB          "{x_opt_gb}"
#define SOL_BUBBLE_COEF     "{bubble_coef}"
#define EXP_BUBBLE_COEF     "{x_bubble_coef}"
#define SOL_FWD_SHARE       "{fwd_share}"
#define EXP_FWD_SHARE       "{x_fwd_share}"
#define SOL_IB_DEP_CALLS    "{ib_dep_calls}"
#define EXP_IB_DEP_CALLS    "{x_ib_dep_calls}"
#define SOL_NV_DEP_CALLS    "{nv_dep_calls}"
#define EXP_NV_DEP_CALLS    "{x_nv_dep_calls}"
#define SOL_IB_SYNC_CALLS   "{ib_sync_calls}"
#define EXP_IB_SYNC_CALLS   "{x_ib_sync_calls}"
#define SOL_NV_SYNC_CALLS   "{nv_sync_calls}"
#define EXP_NV_SYNC_CALLS   "{x_nv_sync_calls}"
#define SOL_IB_GATHER_CALLS "{ib_gather_calls}"
#define EXP_IB_GATHER_CALLS "{x_ib_gather_calls}"
#define SOL_NV_GATHER_CALLS "{nv_gather_calls}"
#define EXP_NV_GATHER_CALLS "{x_nv_gather_calls}"
/* the stack hides the step-end sync / gather (the speed of light: 1) */
#define SOL_GRAD_HIDE  ""
#define EXP_GRAD_HIDE  "{grad_hide}*"
#define SOL_PARAM_HIDE ""
#define EXP_PARAM_HIDE "{param_hide}*"
/* the set's own terms: the Plans columns that show them */
#define SOL_T_COMPUTE      "{compute}"
#define EXP_T_COMPUTE      "{x_compute}"
#define SOL_T_HBM          "{hbm}"
#define EXP_T_HBM          "{x_hbm}"
#define SOL_T_OPTIMIZER    "{optimizer}"
#define EXP_T_OPTIMIZER    "{x_optimizer}"
#define SOL_T_SYNC         "{sync}"
#define EXP_T_SYNC         "{x_sync}"
#define SOL_T_GATHER       "{gather}"
#define EXP_T_GATHER       "{x_gather}"
#define SOL_T_IB_HID       "{ib_steady}"
#define EXP_T_IB_HID       "{x_ib_hid}"
#define SOL_T_NV_HID       "{nv_steady}"
#define EXP_T_NV_HID       "{x_nv_hid}"
#define SOL_T_COMM_SM      "{comm_sm}"
#define EXP_T_COMM_SM      "{x_comm_sm}"
#define SOL_T_OFFLOAD      "{offload}"
#define EXP_T_OFFLOAD      "{x_offload}"
#define SOL_T_PLUS_EXPOSED ""
#define EXP_T_PLUS_EXPOSED "+{x_exposed}"
#define SOL_T_CORE         "{core}"
#define EXP_T_CORE         "{x_core}"
#define SOL_T_RAMP         "{ramp}"
#define EXP_T_RAMP         "{x_ramp}"
#define SOL_T_BUBBLE       "{bubble}"
#define EXP_T_BUBBLE       "{x_bubble}"
#define SOL_T_DP           "{dp_exposed}"
#define EXP_T_DP           "{x_dp}"
#define SOL_T_STEP         "{step}"
#define EXP_T_STEP         "{expected}"
#define SOL_T_TPS          "{tps}"
#define EXP_T_TPS          "{x_tps}"
#define SOL_T_DAYS         "{days}"
#define EXP_T_DAYS         "{x_days}"

/* A link's time: GB over the set's rate, plus a latency per call. */
#define LINK(S, LINK_RATE, gb, calls, lat) gb "/" S##LINK_RATE "+" calls lat
/* A phase on both links: the busier one. */
#define PHASE(S, ib, ib_calls, nv, nv_calls) \
    "MAX(" LINK(S, _IB_RATE, ib, ib_calls,   \
                IB_LAT) "," LINK(S, _NV_RATE, nv, nv_calls, NV_LAT) ")"

/* The busier link's time for a phase's bytes and calls. */
static double phase_time(const struct hardware *hw,
                         const struct terms_rates *r,
                         double ib,
                         double ib_calls,
                         double nv,
                         double nv_calls)
{
    return max2(
        terms_link_time(ib, ib_calls, r->ib_bps, hw->ib_latency_s),
        terms_link_time(nv, nv_calls, r->nvlink_bps, hw->nvlink_latency_s));
}

/* Compute: GEMMs and attention under the clock, elementwise work, or the
 * host's time to launch them where that is longer (launches run ahead of
 * the GPU: expected.c), times the stack's compute overhead. Where the
 * framework syncs host and device in a layer, the launches of the short
 * kernels between the GEMMs (host_paced_s) replace the elementwise time
 * where they are longer: the host cannot queue them under the GEMMs.
 * The clock: the power cap holds the board's power averaged over a window
 * of about the burst time (the H200 ran 8192^3 GEMMs at the burst rate
 * for ~100 ms, then at the sustained rate, throttle reason power cap), so
 * it throttles where compute-bound kernels (GEMMs, attention) fill that
 * window. Memory-bound kernels (elementwise) draw less; taken to draw no
 * more than the cap allows, the rate lost, 1 - sustained/burst, scales
 * with the compute-bound kernels' share of the kernels' time (linear: an
 * assumption; no memory-bound kernel's power is measured). Each step's
 * compute starts after the step-end idle (optimizer, DP sync, bubble), so
 * its first burst_s run at the burst rate: the loss applies to the share
 * beyond it, max(0, 1 - burst_s / kernels). A long GEMM-bound step takes
 * the whole measured factor; a short or memory-bound one less. The speed of
 * light's set holds all its FLOPs at the achievable rates as GEMM time (clock
 * and overhead 1, no elementwise: the same number, bit for bit); the expected
 * set the kernels at their measured (burst) rates and bandwidths. Each set's
 * template names its own pricing (SOL_COMPUTE_TIME, EXP_COMPUTE_TIME). */
#define T_COMPUTE(S) S##_COMPUTE_TIME
static double f_compute(const struct terms_env *e,
                        const struct terms_rates *r,
                        const double *v)
{
    double bound = r->gemm_s + r->attn_s, kernels = bound + r->ew_s;
    double clock = 1;
    (void)e;
    (void)v;
    /* at a clock factor of 1 (the speed of light's) the loss is 0 x a
     * number, not NaN: the clock stays 1 and bound / 1 is bound, without
     * the divisions */
    if (r->clock == 1 && isfinite(bound) && !isnan(r->burst_s))
        return max2(bound + max2(r->ew_s, r->host_paced_s), r->host_s) *
               r->compute_overhead;
    if (kernels > 0)
        clock = 1 - (1 - r->clock) * bound / kernels *
                        max2(0, 1 - r->burst_s / kernels);
    return max2(bound / clock + max2(r->ew_s, r->host_paced_s), r->host_s) *
           r->compute_overhead;
}

#define T_HBM(S) S##_HBM_GB "/" S##_HBM_RATE
static double
f_hbm(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)e;
    (void)v;
    return r->hbm_bytes / r->hbm_bps;
}

#define T_OPTIMIZER(S) S##_OPT_GB "/" S##_HBM_RATE
static double f_optimizer(const struct terms_env *e,
                          const struct terms_rates *r,
                          const double *v)
{
    (void)e;
    (void)v;
    return r->optimizer_bytes / r->hbm_bps;
}

#define T_SYNC(S) \
    PHASE(S, S##_IB_SYNC, S##_IB_SYNC_CALLS, S##_NV_SYNC, S##_NV_SYNC_CALLS)
static double
f_sync(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)v;
    return phase_time(e->hw, r, r->ib_sync, r->ib_sync_calls, r->nv_sync,
                      r->nv_sync_calls);
}

#define T_GATHER(S)                                             \
    PHASE(S, S##_IB_GATHER, S##_IB_GATHER_CALLS, S##_NV_GATHER, \
          S##_NV_GATHER_CALLS)
static double f_gather(const struct terms_env *e,
                       const struct terms_rates *r,
                       const double *v)
{
    (void)v;
    return phase_time(e->hw, r, r->ib_gather, r->ib_gather_calls, r->nv_gather,
                      r->nv_gather_calls);
}

/* The traffic the set overlaps with compute, on each link. */
#define T_IB_HID(S) LINK(S, _IB_RATE, S##_IB_HID, S##_IB_HID_CALLS, IB_LAT)
static double f_ib_hid(const struct terms_env *e,
                       const struct terms_rates *r,
                       const double *v)
{
    (void)v;
    return terms_link_time(r->ib_hid, r->ib_hid_calls, r->ib_bps,
                           e->hw->ib_latency_s);
}

#define T_NV_HID(S) LINK(S, _NV_RATE, S##_NV_HID, S##_NV_HID_CALLS, NV_LAT)
static double f_nv_hid(const struct terms_env *e,
                       const struct terms_rates *r,
                       const double *v)
{
    (void)v;
    return terms_link_time(r->nv_hid, r->nv_hid_calls, r->nvlink_bps,
                           e->hw->nvlink_latency_s);
}

/* SMs that run overlapped communication kernels are lost to compute
 * while those run (DeepSeek-V3 §3.2.2: 20 of 132 H800 SMs). */
#define T_COMM_SM(S)                                                          \
    "MIN(" S##_T_COMPUTE ",MAX(" S##_T_IB_HID "," S##_T_NV_HID "))*COMM_SMS/" \
                                                               "SMS"
static double f_comm_sm(const struct terms_env *e,
                        const struct terms_rates *r,
                        const double *v)
{
    const struct hardware_spec *s = &e->hw->spec;
    double comm = max2(v[F_IB_HID], v[F_NV_HID]);
    (void)r;
    return (v[F_COMPUTE] < comm ? v[F_COMPUTE] : comm) * (double)s->comm_sms /
           (double)s->sms;
}

/* Activation offloading (the plan's offload; Transformer Engine's CPU
 * offloading, default scheduling): a micro-batch's first layers copy
 * their saved activations to host memory as they are saved, beside its
 * forward, and back before their backward needs them, beside its
 * backward; the layers after them wait where a copy outlasts the pass it
 * runs beside ("both compute and reload may be stalled"). Each way at
 * the host link's rate per direction (PCIe and NVLink-C2C are full
 * duplex); the pass: the set's compute per micro-batch split by the
 * forward's share of the FLOPs. */
#define OFFLOAD_COPY "{offload_gb}/HOST_LINK_GBPS"
#define T_OFFLOAD(S)                                                          \
    "IF({offload_gb}>0,{microbatches}*(MAX(0," OFFLOAD_COPY "-" S##_T_COMPUTE \
        "*" S##_FWD_SHARE "/{microbatches})+MAX(0," OFFLOAD_COPY              \
                          "-" S##_T_COMPUTE "*(1-" S##_FWD_SHARE              \
        ")/{microbatches})),0)"
static double f_offload(const struct terms_env *e,
                        const struct terms_rates *r,
                        const double *v)
{
    double mb = e->w->microbatches, copy, pass;
    if (!(e->w->offload_bytes > 0))
        return 0;
    copy = e->w->offload_bytes / e->hw->host_link_bps;
    pass = v[F_COMPUTE] / mb;
    return mb * (max2(0, copy - pass * r->fwd_share) +
                 max2(0, copy - pass * (1 - r->fwd_share)));
}

/* What the set does not overlap (the speed of light: nothing, 0). */
#define T_EXPOSED(S) \
    PHASE(S, S##_IB_XP, S##_IB_XP_CALLS, S##_NV_XP, S##_NV_XP_CALLS)
static double f_exposed(const struct terms_env *e,
                        const struct terms_rates *r,
                        const double *v)
{
    (void)v;
    return phase_time(e->hw, r, r->ib_xp, r->ib_xp_calls, r->nv_xp,
                      r->nv_xp_calls);
}

#define T_CORE(S)                                                             \
    "MAX(" S##_T_COMPUTE "+" S##_T_COMM_SM "+" S##_T_OFFLOAD "," S##_T_IB_HID \
        "," S##_T_NV_HID "," S##_T_HBM ")" S##_T_PLUS_EXPOSED
static double
f_core(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    int bound;
    (void)e;
    (void)r;
    return terms_core(v[F_COMPUTE] + v[F_COMM_SM] + v[F_OFFLOAD], v[F_IB_HID],
                      v[F_NV_HID], v[F_HBM], &bound) +
           v[F_EXPOSED];
}

/* Warm-up and cool-down run a micro-batch's chunks unpaired: its own EP,
 * TP and CP traffic is not hidden there (DualPipe README: only paired
 * forward and backward chunks overlap). */
#define T_RAMP(S)                                  \
    "MAX(" S##_T_COMPUTE "," S##_T_HBM ")+" PHASE( \
        S, S##_IB_DEP, S##_IB_DEP_CALLS, S##_NV_DEP, S##_NV_DEP_CALLS)
static double
f_ramp(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    return max2(v[F_COMPUTE], v[F_HBM]) + phase_time(e->hw, r, r->ib_dep,
                                                     r->ib_dep_calls, r->nv_dep,
                                                     r->nv_dep_calls);
}

/* The schedule's coefficient of the other stages' ramp units: this
 * rank's ramp x (1 + skew) (cost_ramp_skew). */
#define SOL_RAMP_SKEW "{ramp_skew}"
#define EXP_RAMP_SKEW "{x_ramp_skew}"
#define T_BUBBLE(S) \
    S##_BUBBLE_COEF "*(1+" S##_RAMP_SKEW ")*" S##_T_RAMP "/{microbatches}"
static double f_bubble(const struct terms_env *e,
                       const struct terms_rates *r,
                       const double *v)
{
    return r->bubble_coef * (1 + r->ramp_skew) * v[F_RAMP] / e->w->microbatches;
}

/* The step-end collectives hide only under the last micro-batch's
 * backward (gradients reduce as their layers finish) and the first
 * micro-batch's forward (weights gathered as layers need them), and
 * only where the set overlaps them (hide 1 or 0). How long that
 * micro-batch lasts is the set's window: the expected step's stack
 * overlaps them with the micro-batch's compute kernels ({x_compute});
 * the speed of light's ideal overlap hides them under the whole
 * micro-batch, whatever binds it ({core}: compute or a link's steady
 * traffic). With the core as the window the floor is monotone in every
 * rate: core + MAX(0, sync - core x (1 - fwd) / mb) + MAX(0, gather -
 * core x fwd / mb) grows with core (slope at least 1 - 1/mb), and the
 * expected step's compute window is at most its core, so its exposed
 * sync is at least what the core window leaves. Under the compute
 * window a link-bound floor would hide less behind its faster compute
 * than the expected step behind its slower one (issue 17: 25,574 of the
 * large sweep's 5.76M plans had an expected step below the floor). */
#define SOL_DP_WINDOW SOL_T_CORE
#define EXP_DP_WINDOW EXP_T_COMPUTE
#define T_DP(S)                                                              \
    "MAX(0," S##_T_SYNC "-" S##_GRAD_HIDE S##_DP_WINDOW "*(1-" S##_FWD_SHARE \
        ")/{microbatches})+"                                                 \
        "MAX(0," S##_T_GATHER "-" S##_PARAM_HIDE S##_DP_WINDOW               \
        "*" S##_FWD_SHARE "/{microbatches})"
static double
f_dp(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    const struct cost_work *w = e->w;
    double window = r->dp_window_core ? v[F_CORE] : v[F_COMPUTE];
    return max2(0, v[F_SYNC] - r->grad_hide * window * (1 - r->fwd_share) /
                                   w->microbatches) +
           max2(0, v[F_GATHER] -
                       r->param_hide * window * r->fwd_share / w->microbatches);
}

#define T_STEP(S) S##_T_BUBBLE "+" S##_T_OPTIMIZER "+" S##_T_CORE "+" S##_T_DP
static double
f_step(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)e;
    (void)r;
    return v[F_BUBBLE] + v[F_OPTIMIZER] + v[F_CORE] + v[F_DP];
}

#define T_TPS(S) "{tokens}/(" S##_T_STEP "*{gpus})"
static double
f_tps(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)r;
    return e->w->tokens / (v[F_STEP] * e->w->gpus);
}

/* Each precision's model FLOPs over its own peak: never above 100%. */
#define T_MFU(S)                                                    \
    "(IF({model_fp8_tflop}>0,{model_fp8_tflop}/FP8_PEAK_TFLOPS,0)+" \
    "({model_tflop}-{model_fp8_tflop})/BF16_PEAK_TFLOPS)/" S##_T_STEP
static double
f_mfu(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    const struct cost_work *w = e->w;
    double fp8 =
        w->model_fp8_flops > 0 ? w->model_fp8_flops / e->hw->fp8_peak_flops : 0;
    (void)r;
    return (fp8 +
            (w->model_flops - w->model_fp8_flops) / e->hw->bf16_peak_flops) /
           v[F_STEP];
}

#define T_DAYS(S) "TRAINING_TOKENS/(" S##_T_TPS "*{gpus})/86400"
static double
f_days(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)r;
    return e->m->spec.tokens / (v[F_TPS] * e->w->gpus) / 86400;
}

#define T_COST(S) S##_T_DAYS "*24*{gpus}*GPU_HOUR_USD"
static double
f_cost(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)r;
    return v[F_DAYS] * 24 * e->w->gpus * e->hw->spec.gpu_hour_usd;
}

static double (*const family[F_COUNT])(const struct terms_env *,
                                       const struct terms_rates *,
                                       const double *) = {
    f_compute, f_hbm,     f_optimizer, f_sync, f_gather, f_ib_hid, f_nv_hid,
    f_comm_sm, f_offload, f_exposed,   f_core, f_ramp,   f_bubble, f_dp,
    f_step,    f_tps,     f_mfu,       f_days, f_cost};

/* Where set `set` keeps family term f in t, or NULL (the speed of light
 * exposes nothing: no column). */
static double *slot(struct cost_times *t, int set, int f)
{
    static const size_t off[F_COUNT][TERMS_SETS] = {
#define BOTH(a, b) \
    {offsetof(struct cost_times, a), offsetof(struct cost_times, b)}
        [F_COMPUTE] = BOTH(compute, x_compute),
        [F_HBM] = BOTH(hbm, x_hbm),
        [F_OPTIMIZER] = BOTH(optimizer, x_optimizer),
        [F_SYNC] = BOTH(sync, x_sync),
        [F_GATHER] = BOTH(gather, x_gather),
        [F_IB_HID] = BOTH(ib_steady, x_ib_hid),
        [F_NV_HID] = BOTH(nvlink_steady, x_nv_hid),
        [F_COMM_SM] = BOTH(comm_sm, x_comm_sm),
        [F_OFFLOAD] = BOTH(offload, x_offload),
        [F_EXPOSED] = {(size_t)-1, offsetof(struct cost_times, x_exposed)},
        [F_CORE] = BOTH(core, x_core),
        [F_RAMP] = BOTH(ramp, x_ramp),
        [F_BUBBLE] = BOTH(bubble, x_bubble),
        [F_DP] = BOTH(dp_exposed, x_dp),
        [F_STEP] = BOTH(step, expected),
        [F_TPS] = BOTH(tokens_per_s_per_gpu, x_tps),
        [F_MFU] = BOTH(mfu, x_mfu),
        [F_DAYS] = BOTH(days, x_days),
        [F_COST] = BOTH(cost_usd, x_cost),
#undef BOTH
    };
    if (off[f][set] == (size_t)-1)
        return NULL;
    return (double *)(void *)((char *)t + off[f][set]);
}

/* Evaluates family terms from .. to-1 under rate set r into set `set`'s
 * terms of t, reading the earlier ones from t. */
static void evaluate(const struct terms_env *e,
                     const struct terms_rates *r,
                     int set,
                     struct cost_times *t,
                     int from,
                     int to)
{
    double v[F_COUNT];
    int f;
    for (f = 0; f < from; f++) {
        const double *s = slot(t, set, f);
        v[f] = s ? *s : 0;
    }
    for (f = from; f < to; f++) {
        double *s;
        v[f] = family[f](e, r, v);
        s = slot(t, set, f);
        if (s)
            *s = v[f];
    }
}

/* ---- The speed of light's own terms ---- */

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

static double t_mfu_bf16_peak(const struct terms_env *e)
{
    return e->w->model_flops / (e->t->step * e->hw->bf16_peak_flops);
}

static double t_gpuh(const struct terms_env *e)
{
    return 1e12 / e->t->tokens_per_s_per_gpu / 3600;
}

/* The registry: each family term instantiated for both sets (SOL, EXP),
 * and the speed of light's own (total link times, bound, serial step,
 * ratio, GPU-hours). */
#define SOL_ROW(id, key, T, f)        \
    {                                 \
        id, key, T(SOL), TERMS_SOL, f \
    }
#define EXP_ROW(id, key, T, f)      \
    {                               \
        id, key, T(EXP), TERMS_X, f \
    }

/* clang-format off */
static const struct terms_term terms[] = {
    SOL_ROW(TERMS_COMPUTE, "compute", T_COMPUTE, F_COMPUTE),
    {TERMS_IB, "ib", "{ib_gb}/IB_GBPS+{ib_calls}" IB_LAT, TERMS_SOL, -1},
    {TERMS_NVLINK, "nvlink", "{nv_gb}/NVLINK_GBPS+{nv_calls}" NV_LAT,
     TERMS_SOL, -1},
    SOL_ROW(TERMS_HBM, "hbm", T_HBM, F_HBM),
    SOL_ROW(TERMS_OPTIMIZER, "optimizer", T_OPTIMIZER, F_OPTIMIZER),
    SOL_ROW(TERMS_SYNC, "sync", T_SYNC, F_SYNC),
    SOL_ROW(TERMS_GATHER, "gather", T_GATHER, F_GATHER),
    SOL_ROW(TERMS_IB_STEADY, "ib_steady", T_IB_HID, F_IB_HID),
    SOL_ROW(TERMS_NVLINK_STEADY, "nv_steady", T_NV_HID, F_NV_HID),
    SOL_ROW(TERMS_COMM_SM, "comm_sm", T_COMM_SM, F_COMM_SM),
    SOL_ROW(TERMS_OFFLOAD, "offload", T_OFFLOAD, F_OFFLOAD),
    SOL_ROW(TERMS_CORE, "core", T_CORE, F_CORE),
    /* The first of compute, IB, NVLink, HBM equal to the maximum: the
     * term terms_core() keeps (it moves on only when strictly greater). */
    {TERMS_BOUND, "bound",
     "IF({core}={compute}+{comm_sm}+{offload},\"compute\","
     "IF({core}={ib_steady},"
     "\"IB\",IF({core}={nv_steady},\"NVLink\",\"HBM\")))", TERMS_SOL, -1},
    SOL_ROW(TERMS_RAMP, "ramp", T_RAMP, F_RAMP),
    SOL_ROW(TERMS_BUBBLE, "bubble", T_BUBBLE, F_BUBBLE),
    SOL_ROW(TERMS_DP_EXPOSED, "dp_exposed", T_DP, F_DP),
    SOL_ROW(TERMS_STEP, "step", T_STEP, F_STEP),
    {TERMS_SERIAL, "serial",
     "{bubble}+{optimizer}+MAX({compute},{hbm})+{ib}+{nvlink}", TERMS_SOL, -1},
    {TERMS_RATIO, "ratio", "MAX({ib},{nvlink})/{compute}", TERMS_SOL, -1},
    SOL_ROW(TERMS_TPS, "tps", T_TPS, F_TPS),
    SOL_ROW(TERMS_MFU, "mfu", T_MFU, F_MFU),
    {TERMS_MFU_BF16_PEAK, "mfu_bf16_peak",
     "{model_tflop}/({step}*BF16_PEAK_TFLOPS)", TERMS_SOL, -1},
    {TERMS_GPUH, "gpuh", "1E+12/{tps}/3600", TERMS_SOL, -1},
    SOL_ROW(TERMS_DAYS, "days", T_DAYS, F_DAYS),
    SOL_ROW(TERMS_COST, "cost", T_COST, F_COST),
    EXP_ROW(TERMS_X_COMPUTE, "x_compute", T_COMPUTE, F_COMPUTE),
    EXP_ROW(TERMS_X_HBM, "x_hbm", T_HBM, F_HBM),
    EXP_ROW(TERMS_X_IB_HID, "x_ib_hid", T_IB_HID, F_IB_HID),
    EXP_ROW(TERMS_X_NV_HID, "x_nv_hid", T_NV_HID, F_NV_HID),
    EXP_ROW(TERMS_X_COMM_SM, "x_comm_sm", T_COMM_SM, F_COMM_SM),
    EXP_ROW(TERMS_X_OFFLOAD, "x_offload", T_OFFLOAD, F_OFFLOAD),
    EXP_ROW(TERMS_X_EXPOSED, "x_exposed", T_EXPOSED, F_EXPOSED),
    EXP_ROW(TERMS_X_CORE, "x_core", T_CORE, F_CORE),
    EXP_ROW(TERMS_X_RAMP, "x_ramp", T_RAMP, F_RAMP),
    EXP_ROW(TERMS_X_BUBBLE, "x_bubble", T_BUBBLE, F_BUBBLE),
    EXP_ROW(TERMS_X_SYNC, "x_sync", T_SYNC, F_SYNC),
    EXP_ROW(TERMS_X_GATHER, "x_gather", T_GATHER, F_GATHER),
    EXP_ROW(TERMS_X_DP, "x_dp", T_DP, F_DP),
    EXP_ROW(TERMS_X_OPTIMIZER, "x_optimizer", T_OPTIMIZER, F_OPTIMIZER),
    EXP_ROW(TERMS_EXPECTED, "expected", T_STEP, F_STEP),
    EXP_ROW(TERMS_X_TPS, "x_tps", T_TPS, F_TPS),
    EXP_ROW(TERMS_X_MFU, "x_mfu", T_MFU, F_MFU),
    EXP_ROW(TERMS_X_DAYS, "x_days", T_DAYS, F_DAYS),
    EXP_ROW(TERMS_X_COST, "x_cost", T_COST, F_COST),
};
/* clang-format on */

/* ---- The rate sets ---- */

double terms_sol_compute(const struct hardware *hw,
                         double bf16_flops,
                         double fp8_flops)
{
    /* every FLOP at the achievable rates (attention and elementwise
     * work included in the FLOPs), at the burst clock the rates state */
    return bf16_flops / hw->bf16_flops +
           (fp8_flops > 0 ? fp8_flops / hw->fp8_flops : 0);
}

/* The speed of light's compute rates (what f_compute reads) for work w:
 * every FLOP at the achievable rates as GEMM time. */
static void rates_sol_compute(const struct cost_work *w,
                              const struct hardware *hw,
                              struct terms_rates *r)
{
    r->gemm_s = terms_sol_compute(hw, w->bf16_flops, w->fp8_flops);
    r->attn_s = r->ew_s = r->host_s = r->host_paced_s = r->burst_s = 0;
    r->clock = r->compute_overhead = 1;
}

/* The speed of light's HBM rate and the rank's own work (what the HBM,
 * optimizer and bubble terms read). */
static void rates_sol_work(const struct cost_work *w,
                           const struct hardware *hw,
                           struct terms_rates *r)
{
    r->hbm_bps = hw->hbm_bps;
    r->ramp_skew = w->ramp_skew;
    r->hbm_bytes = w->hbm_bytes;
    r->optimizer_bytes = w->optimizer_bytes;
    r->bubble_coef = w->bubble_coef;
    r->fwd_share = w->fwd_share;
}

void terms_rates_sol(const struct cost_work *w,
                     const struct hardware *hw,
                     struct terms_rates *r)
{
    /* every field is set: no memset (this runs several times per rank) */
    rates_sol_compute(w, hw, r);
    rates_sol_work(w, hw, r);
    r->ib_xp = r->ib_xp_calls = r->nv_xp = r->nv_xp_calls = 0;
    r->ib_bps = hw->ib_bps;
    r->nvlink_bps = hw->nvlink_bps;
    /* ideal overlap: every steady byte hidden, the step-end collectives
     * under one micro-batch each */
    r->ib_hid = w->ib_steady_bytes;
    r->ib_hid_calls = w->ib_steady_calls;
    r->nv_hid = w->nvlink_steady_bytes;
    r->nv_hid_calls = w->nvlink_steady_calls;
    r->ib_dep = w->ib_dep_bytes;
    r->nv_dep = w->nvlink_dep_bytes;
    r->ib_sync = w->ib_sync_bytes;
    r->nv_sync = w->nvlink_sync_bytes;
    r->ib_gather = w->ib_gather_bytes;
    r->nv_gather = w->nvlink_gather_bytes;
    r->grad_hide = r->param_hide = 1;
    r->dp_window_core = true;
    r->ib_dep_calls = w->ib_dep_calls;
    r->nv_dep_calls = w->nvlink_dep_calls;
    r->ib_sync_calls = w->ib_sync_calls;
    r->nv_sync_calls = w->nvlink_sync_calls;
    r->ib_gather_calls = w->ib_gather_calls;
    r->nv_gather_calls = w->nvlink_gather_calls;
}

void terms_rates_x(const struct cost_work *w,
                   const struct hardware *hw,
                   struct terms_rates *r)
{
    const struct expected_work *x = &w->x;
    memset(r, 0, sizeof *r);
    r->gemm_s = x->gemm_cal_s;
    r->attn_s = x->attn_cal_s;
    r->ew_s = x->ew_s;
    /* the per-expert host work is the host's and is waited for */
    r->host_s = x->host_s + x->expert_host_s;
    r->host_paced_s = x->host_paced_s + x->expert_host_s;
    r->clock = hw->cal ? calibration_clock_factor(hw->cal) : 1;
    r->burst_s = hw->cal ? calibration_burst_s(hw->cal) : 0;
    r->compute_overhead = x->compute_overhead;
    r->ib_bps = hw->ib_bps * x->network_efficiency;
    r->nvlink_bps = hw->nvlink_bps * x->network_efficiency;
    r->hbm_bps = hw->hbm_bps;
    if (hw->cal &&
        calibration_elementwise_tbps(hw->cal, CALIBRATION_EW_COPY) * 1e12 <
            hw->hbm_bps)
        r->hbm_bps =
            calibration_elementwise_tbps(hw->cal, CALIBRATION_EW_COPY) * 1e12;
    r->ib_hid = x->hid_ib;
    r->ib_hid_calls = x->hid_ib_calls;
    r->nv_hid = x->hid_nv;
    r->nv_hid_calls = x->hid_nv_calls;
    r->ib_xp = x->xp_ib;
    r->ib_xp_calls = x->xp_ib_calls;
    r->nv_xp = x->xp_nv;
    r->nv_xp_calls = x->xp_nv_calls;
    r->ib_dep = x->dep_ib;
    r->nv_dep = x->dep_nv;
    r->ib_sync = x->sync_ib;
    r->nv_sync = x->sync_nv;
    r->ib_gather = x->gather_ib;
    r->nv_gather = x->gather_nv;
    r->grad_hide = x->grad_hide;
    r->param_hide = x->param_hide;
    r->ramp_skew = x->ramp_skew;
    r->hbm_bytes = x->hbm_bytes;
    r->optimizer_bytes = x->optimizer_bytes;
    r->bubble_coef = x->bubble_coef;
    r->fwd_share = x->fwd_share;
    r->ib_dep_calls = x->ib_dep_calls;
    r->nv_dep_calls = x->nv_dep_calls;
    r->ib_sync_calls = x->ib_sync_calls;
    r->nv_sync_calls = x->nv_sync_calls;
    r->ib_gather_calls = x->ib_gather_calls;
    r->nv_gather_calls = x->nv_gather_calls;
}

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

/* terms_step's terms up to family term `to` (exclusive). */
static void step_sol(const struct terms_env *e, struct cost_times *t, int to)
{
    const struct cost_work *w = e->w;
    const struct hardware *hw = e->hw;
    struct terms_rates r;
    terms_rates_sol(w, hw, &r);
    t->ib = t_ib(e);
    t->nvlink = t_nvlink(e);
    /* the MoE all-to-all alone (no column: the EP/compute ratio) */
    t->ep = max2(terms_link_time(w->ep_ib_bytes, w->ep_ib_calls, hw->ib_bps,
                                 hw->ib_latency_s),
                 terms_link_time(w->ep_nvlink_bytes, w->ep_nvlink_calls,
                                 hw->nvlink_bps, hw->nvlink_latency_s));
    evaluate(e, &r, TERMS_SOL, t, 0, to);
    terms_core(t->compute + t->comm_sm + t->offload, t->ib_steady,
               t->nvlink_steady, t->hbm, &t->bound);
}

void terms_step(const struct terms_env *e, struct cost_times *t)
{
    step_sol(e, t, F_TPS);
}

void terms_ramp(const struct terms_env *e, bool expected, struct cost_times *t)
{
    struct terms_rates r;
    if (!expected) {
        step_sol(e, t, F_BUBBLE);
    } else if (e->w->x.known) {
        terms_rates_x(e->w, e->hw, &r);
        evaluate(e, &r, TERMS_X, t, 0, F_BUBBLE);
    }
}

void terms_derived(const struct terms_env *e, struct cost_times *t)
{
    struct terms_rates r;
    terms_rates_sol(e->w, e->hw, &r);
    t->step_serial = t_serial(e);
    t->comm_compute_ratio = t_ratio(e);
    evaluate(e, &r, TERMS_SOL, t, F_TPS, F_MFU + 1);
    t->mfu_bf16_peak = t_mfu_bf16_peak(e);
    t->gpu_hours_per_trillion = t_gpuh(e);
    evaluate(e, &r, TERMS_SOL, t, F_DAYS, F_COUNT);
}

void terms_expected_step(const struct terms_env *e, struct cost_times *t)
{
    struct terms_rates r;
    if (!e->w->x.known)
        return;
    terms_rates_x(e->w, e->hw, &r);
    evaluate(e, &r, TERMS_X, t, 0, F_TPS);
}

void terms_restep(const struct terms_env *e,
                  bool expected,
                  struct cost_times *t)
{
    struct terms_rates r;
    if (!expected) {
        terms_rates_sol(e->w, e->hw, &r);
        evaluate(e, &r, TERMS_SOL, t, F_BUBBLE, F_TPS);
    } else if (e->w->x.known) {
        terms_rates_x(e->w, e->hw, &r);
        evaluate(e, &r, TERMS_X, t, F_BUBBLE, F_TPS);
    }
}

bool terms_step_floors(const struct hardware *hw,
                       const struct cost_flops *const *f,
                       const double *like,
                       size_t n,
                       double microbatches,
                       struct terms_floor *out)
{
    struct cost_work w;
    struct terms_env e = {&w, hw, NULL, MODEL_BF16, NULL};
    struct terms_rates r;
    double v[F_COUNT] = {0}, sum = 0, count = 0;
    size_t k;
    memset(&w, 0, sizeof w);
    w.microbatches = microbatches;
    for (k = 0; k < n; k++) { /* compute and optimizer: no skew read */
        if (!(f[k]->bubble_coef >= 0))
            return false;
        w.fp8_flops = f[k]->fp8;
        w.bf16_flops = f[k]->bf16;
        w.optimizer_bytes = f[k]->optimizer_bytes;
        rates_sol_compute(&w, hw, &r);
        rates_sol_work(&w, hw, &r);
        out[k].compute = f_compute(&e, &r, v);
        out[k].optimizer = f_optimizer(&e, &r, v);
        sum += like[k] * out[k].compute;
        count += like[k];
    }
    for (k = 0; k < n; k++) {
        double c = out[k].compute;
        /* the other ranks' mean ramp, at least their mean compute (a
         * ramp is at least its compute), over which the bubble is the
         * coefficient's share at no skew (cost_ramp_skew) */
        out[k].ramp = count > 1 && c > 0 ? (sum - c) / (count - 1) : c;
        w.bubble_coef = f[k]->bubble_coef;
        rates_sol_work(&w, hw, &r);
        v[F_RAMP] = out[k].ramp;
        v[F_BUBBLE] = f_bubble(&e, &r, v);
        v[F_OPTIMIZER] = out[k].optimizer;
        v[F_CORE] = c; /* the core is a max over compute */
        v[F_DP] = 0;   /* exposed DP is at least 0 */
        out[k].step = f_step(&e, &r, v);
    }
    return true;
}

double terms_step_floor(const struct terms_env *e, double ramp)
{
    struct terms_rates r;
    struct cost_times t;
    struct terms_env own = *e;
    double v[F_COUNT] = {0};
    own.t = &t;
    step_sol(&own, &t, F_TPS); /* (writes every term it reads) */
    v[F_OPTIMIZER] = t.optimizer;
    v[F_CORE] = t.core;
    v[F_DP] = t.dp_exposed;
    rates_sol_work(e->w, e->hw, &r);
    r.ramp_skew = 0; /* ramp is the others' mean already */
    v[F_RAMP] = ramp;
    v[F_BUBBLE] = f_bubble(e, &r, v);
    return f_step(e, &r, v);
}

void terms_expected(const struct terms_env *e,
                    const struct terms_rates *r,
                    struct cost_times *t)
{
    struct terms_rates own;
    if (!e->w->x.known)
        return;
    if (!r) {
        terms_rates_x(e->w, e->hw, &own);
        r = &own;
    }
    evaluate(e, r, TERMS_X, t, 0, F_COUNT);
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
    case TERMS_X_OFFLOAD:
        return t->x_offload;
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
    case TERMS_OFFLOAD:
        return t->offload;
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
