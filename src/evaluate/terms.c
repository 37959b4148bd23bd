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
#include "comm_algo.h"
#include "cost_work.h"
#include "terms_family.h"

/* ---- Terms ---- */

static double max2(double a, double b)
{
    return a > b ? a : b;
}

double terms_link_time(const struct hardware *hw,
                       double bytes,
                       double bps,
                       struct comm_lat lat)
{
    return bytes / bps + comm_lat_s(hw, lat);
}

double terms_collective_time(const struct hardware *hw,
                             double bytes,
                             double share,
                             double bps,
                             struct comm_lat lat)
{
    return bytes / (share * bps) + comm_lat_s(hw, lat);
}

double
terms_core(double compute, double ib, double nvlink, double hbm, int *bound)
{
    return cost_binding(compute, ib, nvlink, hbm, bound);
}

/* ---- The term family: each term once, in C and as a template ---- */

/* The rate sets' names in templates: SOL_* for the speed of light,
 * EXP_* for the expected step. */
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
#define SOL_IB_HID_STEPS "{ib_steady_steps}"
#define EXP_IB_HID_STEPS "{x_ib_hid_steps}"
#define SOL_IB_HID_NET   "{ib_steady_net_steps}"
#define EXP_IB_HID_NET   "{x_ib_hid_net_steps}"
#define SOL_NV_HID       "{nv_steady_gb}"
#define EXP_NV_HID       "{x_nv_hid_gb}"
#define SOL_NV_HID_STEPS "{nv_steady_steps}"
#define EXP_NV_HID_STEPS "{x_nv_hid_steps}"
#define EXP_IB_XP        "{x_ib_xp_gb}"
#define EXP_IB_XP_STEPS  "{x_ib_xp_steps}"
#define EXP_IB_XP_NET    "{x_ib_xp_net_steps}"
#define EXP_NV_XP        "{x_nv_xp_gb}"
#define EXP_NV_XP_STEPS  "{x_nv_xp_steps}"
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
 * forward share, the latency of the ramp's, sync's and gather's traffic
 * (the expected set's may be another rank's: the slowest at its rates) */
#define SOL_HBM_GB          "{hbm_gb}"
#define EXP_HBM_GB          "{x_hbm_gb}"
#define SOL_OPT_GB          "{opt_gb}"
#define EXP_OPT_GB          "{x_opt_gb}"
#define SOL_BUBBLE_COEF     "{bubble_coef}"
#define EXP_BUBBLE_COEF     "{x_bubble_coef}"
#define SOL_FWD_SHARE       "{fwd_share}"
#define EXP_FWD_SHARE       "{x_fwd_share}"
#define SOL_IB_DEP_STEPS    "{ib_dep_steps}"
#define EXP_IB_DEP_STEPS    "{x_ib_dep_steps}"
#define SOL_IB_DEP_NET      "{ib_dep_net_steps}"
#define EXP_IB_DEP_NET      "{x_ib_dep_net_steps}"
#define SOL_NV_DEP_STEPS    "{nv_dep_steps}"
#define EXP_NV_DEP_STEPS    "{x_nv_dep_steps}"
#define SOL_IB_SYNC_STEPS   "{ib_sync_steps}"
#define EXP_IB_SYNC_STEPS   "{x_ib_sync_steps}"
#define SOL_IB_SYNC_NET     "{ib_sync_net_steps}"
#define EXP_IB_SYNC_NET     "{x_ib_sync_net_steps}"
#define SOL_NV_SYNC_STEPS   "{nv_sync_steps}"
#define EXP_NV_SYNC_STEPS   "{x_nv_sync_steps}"
#define SOL_IB_GATHER_STEPS "{ib_gather_steps}"
#define EXP_IB_GATHER_STEPS "{x_ib_gather_steps}"
#define SOL_IB_GATHER_NET   "{ib_gather_net_steps}"
#define EXP_IB_GATHER_NET   "{x_ib_gather_net_steps}"
#define SOL_NV_GATHER_STEPS "{nv_gather_steps}"
#define EXP_NV_GATHER_STEPS "{x_nv_gather_steps}"
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

/* A link's time: GB over the set's rate, plus the latency of its
 * collectives in the library's steps (struct comm_lat): in-node steps
 * and, on IB, network steps. */
#define LINK_IB(S, gb, steps, net)                     \
    gb "/" S##_IB_RATE "+(" steps "*COLL_STEP_US+" net \
                       "*COLL_NET_STEP_US)*1E-06"
#define LINK_NV(S, gb, steps) gb "/" S##_NV_RATE "+" steps "*COLL_STEP_US*1E-06"
/* A phase on both links: the busier one. */
#define PHASE(S, P)                                             \
    "MAX(" LINK_IB(S, S##_IB_##P, S##_IB_##P##_STEPS,           \
                   S##_IB_##P##_NET) "," LINK_NV(S, S##_NV_##P, \
                                                 S##_NV_##P##_STEPS) ")"

/* The busier link's time for a phase's bytes and latency. */
static double phase_time(const struct hardware *hw,
                         const struct terms_rates *r,
                         double ib,
                         struct comm_lat ib_lat,
                         double nv,
                         struct comm_lat nv_lat)
{
    return max2(terms_link_time(hw, ib, r->ib_bps, ib_lat),
                terms_link_time(hw, nv, r->nvlink_bps, nv_lat));
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

#define T_SYNC(S) PHASE(S, SYNC)
static double
f_sync(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)v;
    return phase_time(e->hw, r, r->ib_sync, r->ib_sync_lat, r->nv_sync,
                      r->nv_sync_lat);
}

#define T_GATHER(S) PHASE(S, GATHER)
static double f_gather(const struct terms_env *e,
                       const struct terms_rates *r,
                       const double *v)
{
    (void)v;
    return phase_time(e->hw, r, r->ib_gather, r->ib_gather_lat, r->nv_gather,
                      r->nv_gather_lat);
}

/* The traffic the set overlaps with compute, on each link. */
#define T_IB_HID(S) LINK_IB(S, S##_IB_HID, S##_IB_HID_STEPS, S##_IB_HID_NET)
static double f_ib_hid(const struct terms_env *e,
                       const struct terms_rates *r,
                       const double *v)
{
    (void)v;
    return terms_link_time(e->hw, r->ib_hid, r->ib_bps, r->ib_hid_lat);
}

#define T_NV_HID(S) LINK_NV(S, S##_NV_HID, S##_NV_HID_STEPS)
static double f_nv_hid(const struct terms_env *e,
                       const struct terms_rates *r,
                       const double *v)
{
    (void)v;
    return terms_link_time(e->hw, r->nv_hid, r->nvlink_bps, r->nv_hid_lat);
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
    double comm = max2(v[TERMS_F_IB_HID], v[TERMS_F_NV_HID]);
    (void)r;
    return (v[TERMS_F_COMPUTE] < comm ? v[TERMS_F_COMPUTE] : comm) *
           (double)s->comm_sms / (double)s->sms;
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
    pass = v[TERMS_F_COMPUTE] / mb;
    return mb * (max2(0, copy - pass * r->fwd_share) +
                 max2(0, copy - pass * (1 - r->fwd_share)));
}

/* What the set does not overlap (the speed of light: nothing, 0). */
#define T_EXPOSED(S) PHASE(S, XP)
static double f_exposed(const struct terms_env *e,
                        const struct terms_rates *r,
                        const double *v)
{
    (void)v;
    return phase_time(e->hw, r, r->ib_xp, r->ib_xp_lat, r->nv_xp, r->nv_xp_lat);
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
    return terms_core(
               v[TERMS_F_COMPUTE] + v[TERMS_F_COMM_SM] + v[TERMS_F_OFFLOAD],
               v[TERMS_F_IB_HID], v[TERMS_F_NV_HID], v[TERMS_F_HBM], &bound) +
           v[TERMS_F_EXPOSED];
}

/* Warm-up and cool-down run a micro-batch's chunks unpaired: its own EP,
 * TP and CP traffic is not hidden there (DualPipe README: only paired
 * forward and backward chunks overlap). */
#define T_RAMP(S) "MAX(" S##_T_COMPUTE "," S##_T_HBM ")+" PHASE(S, DEP)
static double
f_ramp(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    return max2(v[TERMS_F_COMPUTE], v[TERMS_F_HBM]) +
           phase_time(e->hw, r, r->ib_dep, r->ib_dep_lat, r->nv_dep,
                      r->nv_dep_lat);
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
    return r->bubble_coef * (1 + r->ramp_skew) * v[TERMS_F_RAMP] /
           e->w->microbatches;
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
    double window = r->dp_window_core ? v[TERMS_F_CORE] : v[TERMS_F_COMPUTE];
    return max2(0, v[TERMS_F_SYNC] - r->grad_hide * window *
                                         (1 - r->fwd_share) / w->microbatches) +
           max2(0, v[TERMS_F_GATHER] -
                       r->param_hide * window * r->fwd_share / w->microbatches);
}

#define T_STEP(S) S##_T_BUBBLE "+" S##_T_OPTIMIZER "+" S##_T_CORE "+" S##_T_DP
static double
f_step(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)e;
    (void)r;
    return v[TERMS_F_BUBBLE] + v[TERMS_F_OPTIMIZER] + v[TERMS_F_CORE] +
           v[TERMS_F_DP];
}

#define T_TPS(S) "{tokens}/(" S##_T_STEP "*{gpus})"
static double
f_tps(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)r;
    return e->w->tokens / (v[TERMS_F_STEP] * e->w->gpus);
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
           v[TERMS_F_STEP];
}

#define T_DAYS(S) "TRAINING_TOKENS/(" S##_T_TPS "*{gpus})/86400"
static double
f_days(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)r;
    return e->m->spec.tokens / (v[TERMS_F_TPS] * e->w->gpus) / 86400;
}

#define T_COST(S) S##_T_DAYS "*24*{gpus}*GPU_HOUR_USD"
static double
f_cost(const struct terms_env *e, const struct terms_rates *r, const double *v)
{
    (void)r;
    return v[TERMS_F_DAYS] * 24 * e->w->gpus * e->hw->spec.gpu_hour_usd;
}

static double (*const family[TERMS_F_COUNT])(const struct terms_env *,
                                             const struct terms_rates *,
                                             const double *) = {
    f_compute, f_hbm,     f_optimizer, f_sync, f_gather, f_ib_hid, f_nv_hid,
    f_comm_sm, f_offload, f_exposed,   f_core, f_ramp,   f_bubble, f_dp,
    f_step,    f_tps,     f_mfu,       f_days, f_cost};

/* Where set `set` keeps family term f in t, or NULL (the speed of light
 * exposes nothing: no column). */
static double *slot(struct cost_times *t, int set, int f)
{
    static const size_t off[TERMS_F_COUNT][TERMS_SETS] = {
#define BOTH(a, b) \
    {offsetof(struct cost_times, a), offsetof(struct cost_times, b)}
        [TERMS_F_COMPUTE] = BOTH(compute, x_compute),
        [TERMS_F_HBM] = BOTH(hbm, x_hbm),
        [TERMS_F_OPTIMIZER] = BOTH(optimizer, x_optimizer),
        [TERMS_F_SYNC] = BOTH(sync, x_sync),
        [TERMS_F_GATHER] = BOTH(gather, x_gather),
        [TERMS_F_IB_HID] = BOTH(ib_steady, x_ib_hid),
        [TERMS_F_NV_HID] = BOTH(nvlink_steady, x_nv_hid),
        [TERMS_F_COMM_SM] = BOTH(comm_sm, x_comm_sm),
        [TERMS_F_OFFLOAD] = BOTH(offload, x_offload),
        [TERMS_F_EXPOSED] = {(size_t)-1,
                             offsetof(struct cost_times, x_exposed)},
        [TERMS_F_CORE] = BOTH(core, x_core),
        [TERMS_F_RAMP] = BOTH(ramp, x_ramp),
        [TERMS_F_BUBBLE] = BOTH(bubble, x_bubble),
        [TERMS_F_DP] = BOTH(dp_exposed, x_dp),
        [TERMS_F_STEP] = BOTH(step, expected),
        [TERMS_F_TPS] = BOTH(tokens_per_s_per_gpu, x_tps),
        [TERMS_F_MFU] = BOTH(mfu, x_mfu),
        [TERMS_F_DAYS] = BOTH(days, x_days),
        [TERMS_F_COST] = BOTH(cost_usd, x_cost),
#undef BOTH
    };
    if (off[f][set] == (size_t)-1)
        return NULL;
    return (double *)(void *)((char *)t + off[f][set]);
}

void terms_family_eval(const struct terms_env *e,
                       const struct terms_rates *r,
                       int set,
                       struct cost_times *t,
                       int from,
                       int to)
{
    double v[TERMS_F_COUNT];
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

double terms_family_term(int f,
                         const struct terms_env *e,
                         const struct terms_rates *r,
                         const double *v)
{
    return family[f](e, r, v);
}

/* ---- The speed of light's own terms ---- */

void terms_family_sol_links(const struct terms_env *e, struct cost_times *t)
{
    const struct cost_work *w = e->w;
    const struct hardware *hw = e->hw;
    t->ib = terms_link_time(hw, w->ib_bytes, hw->ib_bps, w->ib_lat);
    t->nvlink =
        terms_link_time(hw, w->nvlink_bytes, hw->nvlink_bps, w->nvlink_lat);
    /* the MoE all-to-all alone (no column: the EP/compute ratio) */
    t->ep = max2(terms_link_time(hw, w->ep_ib_bytes, hw->ib_bps, w->ep_ib_lat),
                 terms_link_time(hw, w->ep_nvlink_bytes, hw->nvlink_bps,
                                 w->ep_nvlink_lat));
}

void terms_family_sol_own(const struct terms_env *e, struct cost_times *t)
{
    t->step_serial =
        t->bubble + t->optimizer + max2(t->compute, t->hbm) + t->ib + t->nvlink;
    t->comm_compute_ratio = max2(t->ib, t->nvlink) / t->compute;
    t->mfu_bf16_peak = e->w->model_flops / (t->step * e->hw->bf16_peak_flops);
    t->gpu_hours_per_trillion = 1e12 / t->tokens_per_s_per_gpu / 3600;
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
    SOL_ROW(TERMS_COMPUTE, "compute", T_COMPUTE, TERMS_F_COMPUTE),
    {TERMS_IB, "ib", "{ib_gb}/IB_GBPS+({ib_steps}*COLL_STEP_US+{ib_net_steps}*COLL_NET_STEP_US)*1E-06", TERMS_SOL, -1},
    {TERMS_NVLINK, "nvlink", "{nv_gb}/NVLINK_GBPS+{nv_steps}*COLL_STEP_US*1E-06", TERMS_SOL, -1},
    SOL_ROW(TERMS_HBM, "hbm", T_HBM, TERMS_F_HBM),
    SOL_ROW(TERMS_OPTIMIZER, "optimizer", T_OPTIMIZER, TERMS_F_OPTIMIZER),
    SOL_ROW(TERMS_SYNC, "sync", T_SYNC, TERMS_F_SYNC),
    SOL_ROW(TERMS_GATHER, "gather", T_GATHER, TERMS_F_GATHER),
    SOL_ROW(TERMS_IB_STEADY, "ib_steady", T_IB_HID, TERMS_F_IB_HID),
    SOL_ROW(TERMS_NVLINK_STEADY, "nv_steady", T_NV_HID, TERMS_F_NV_HID),
    SOL_ROW(TERMS_COMM_SM, "comm_sm", T_COMM_SM, TERMS_F_COMM_SM),
    SOL_ROW(TERMS_OFFLOAD, "offload", T_OFFLOAD, TERMS_F_OFFLOAD),
    SOL_ROW(TERMS_CORE, "core", T_CORE, TERMS_F_CORE),
    /* The first of compute, IB, NVLink, HBM equal to the maximum: the
     * term terms_core() keeps (it moves on only when strictly greater). */
    {TERMS_BOUND, "bound",
     "IF({core}={compute}+{comm_sm}+{offload},\"compute\","
     "IF({core}={ib_steady},"
     "\"IB\",IF({core}={nv_steady},\"NVLink\",\"HBM\")))", TERMS_SOL, -1},
    SOL_ROW(TERMS_RAMP, "ramp", T_RAMP, TERMS_F_RAMP),
    SOL_ROW(TERMS_BUBBLE, "bubble", T_BUBBLE, TERMS_F_BUBBLE),
    SOL_ROW(TERMS_DP_EXPOSED, "dp_exposed", T_DP, TERMS_F_DP),
    SOL_ROW(TERMS_STEP, "step", T_STEP, TERMS_F_STEP),
    {TERMS_SERIAL, "serial",
     "{bubble}+{optimizer}+MAX({compute},{hbm})+{ib}+{nvlink}", TERMS_SOL, -1},
    {TERMS_RATIO, "ratio", "MAX({ib},{nvlink})/{compute}", TERMS_SOL, -1},
    SOL_ROW(TERMS_TPS, "tps", T_TPS, TERMS_F_TPS),
    SOL_ROW(TERMS_MFU, "mfu", T_MFU, TERMS_F_MFU),
    {TERMS_MFU_BF16_PEAK, "mfu_bf16_peak",
     "{model_tflop}/({step}*BF16_PEAK_TFLOPS)", TERMS_SOL, -1},
    {TERMS_GPUH, "gpuh", "1E+12/{tps}/3600", TERMS_SOL, -1},
    SOL_ROW(TERMS_DAYS, "days", T_DAYS, TERMS_F_DAYS),
    SOL_ROW(TERMS_COST, "cost", T_COST, TERMS_F_COST),
    EXP_ROW(TERMS_X_COMPUTE, "x_compute", T_COMPUTE, TERMS_F_COMPUTE),
    EXP_ROW(TERMS_X_HBM, "x_hbm", T_HBM, TERMS_F_HBM),
    EXP_ROW(TERMS_X_IB_HID, "x_ib_hid", T_IB_HID, TERMS_F_IB_HID),
    EXP_ROW(TERMS_X_NV_HID, "x_nv_hid", T_NV_HID, TERMS_F_NV_HID),
    EXP_ROW(TERMS_X_COMM_SM, "x_comm_sm", T_COMM_SM, TERMS_F_COMM_SM),
    EXP_ROW(TERMS_X_OFFLOAD, "x_offload", T_OFFLOAD, TERMS_F_OFFLOAD),
    EXP_ROW(TERMS_X_EXPOSED, "x_exposed", T_EXPOSED, TERMS_F_EXPOSED),
    EXP_ROW(TERMS_X_CORE, "x_core", T_CORE, TERMS_F_CORE),
    EXP_ROW(TERMS_X_RAMP, "x_ramp", T_RAMP, TERMS_F_RAMP),
    EXP_ROW(TERMS_X_BUBBLE, "x_bubble", T_BUBBLE, TERMS_F_BUBBLE),
    EXP_ROW(TERMS_X_SYNC, "x_sync", T_SYNC, TERMS_F_SYNC),
    EXP_ROW(TERMS_X_GATHER, "x_gather", T_GATHER, TERMS_F_GATHER),
    EXP_ROW(TERMS_X_DP, "x_dp", T_DP, TERMS_F_DP),
    EXP_ROW(TERMS_X_OPTIMIZER, "x_optimizer", T_OPTIMIZER, TERMS_F_OPTIMIZER),
    EXP_ROW(TERMS_EXPECTED, "expected", T_STEP, TERMS_F_STEP),
    EXP_ROW(TERMS_X_TPS, "x_tps", T_TPS, TERMS_F_TPS),
    EXP_ROW(TERMS_X_MFU, "x_mfu", T_MFU, TERMS_F_MFU),
    EXP_ROW(TERMS_X_DAYS, "x_days", T_DAYS, TERMS_F_DAYS),
    EXP_ROW(TERMS_X_COST, "x_cost", T_COST, TERMS_F_COST),
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

/* Where each term's value sits in struct cost_times (the bound, an int,
 * apart). */
#define AT(f) offsetof(struct cost_times, f)
static const size_t time_at[TERMS_COUNT] = {
    [TERMS_COMPUTE] = AT(compute),
    [TERMS_IB] = AT(ib),
    [TERMS_NVLINK] = AT(nvlink),
    [TERMS_HBM] = AT(hbm),
    [TERMS_OPTIMIZER] = AT(optimizer),
    [TERMS_SYNC] = AT(sync),
    [TERMS_GATHER] = AT(gather),
    [TERMS_IB_STEADY] = AT(ib_steady),
    [TERMS_NVLINK_STEADY] = AT(nvlink_steady),
    [TERMS_COMM_SM] = AT(comm_sm),
    [TERMS_OFFLOAD] = AT(offload),
    [TERMS_CORE] = AT(core),
    [TERMS_BOUND] = AT(bound),
    [TERMS_RAMP] = AT(ramp),
    [TERMS_BUBBLE] = AT(bubble),
    [TERMS_DP_EXPOSED] = AT(dp_exposed),
    [TERMS_STEP] = AT(step),
    [TERMS_SERIAL] = AT(step_serial),
    [TERMS_RATIO] = AT(comm_compute_ratio),
    [TERMS_TPS] = AT(tokens_per_s_per_gpu),
    [TERMS_MFU] = AT(mfu),
    [TERMS_MFU_BF16_PEAK] = AT(mfu_bf16_peak),
    [TERMS_GPUH] = AT(gpu_hours_per_trillion),
    [TERMS_DAYS] = AT(days),
    [TERMS_COST] = AT(cost_usd),
    [TERMS_X_COMPUTE] = AT(x_compute),
    [TERMS_X_HBM] = AT(x_hbm),
    [TERMS_X_IB_HID] = AT(x_ib_hid),
    [TERMS_X_NV_HID] = AT(x_nv_hid),
    [TERMS_X_COMM_SM] = AT(x_comm_sm),
    [TERMS_X_OFFLOAD] = AT(x_offload),
    [TERMS_X_EXPOSED] = AT(x_exposed),
    [TERMS_X_CORE] = AT(x_core),
    [TERMS_X_RAMP] = AT(x_ramp),
    [TERMS_X_BUBBLE] = AT(x_bubble),
    [TERMS_X_SYNC] = AT(x_sync),
    [TERMS_X_GATHER] = AT(x_gather),
    [TERMS_X_DP] = AT(x_dp),
    [TERMS_X_OPTIMIZER] = AT(x_optimizer),
    [TERMS_EXPECTED] = AT(expected),
    [TERMS_X_TPS] = AT(x_tps),
    [TERMS_X_MFU] = AT(x_mfu),
    [TERMS_X_DAYS] = AT(x_days),
    [TERMS_X_COST] = AT(x_cost),
};
#undef AT

double terms_time(const struct cost_times *t, int id)
{
    const char *at;
    if (id < 0 || id >= TERMS_COUNT)
        return 0;
    if (id == TERMS_BOUND)
        return t->bound;
    at = (const char *)t + time_at[id];
    return *(const double *)(const void *)at;
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
