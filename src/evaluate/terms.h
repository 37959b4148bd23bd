/*
 * terms: the time model, written once. The registries side by side:
 *
 * - inputs: every named cell a workbook formula may read, with the
 *   data-file key it comes from (section.key of the hardware, model or
 *   sweep file), its unit and the SI value of one unit; and the derived
 *   names (COMPUTE_DERATE, BF16_TFLOPS_USED, ...) with their formula over
 *   inputs and the same in C.
 * - terms: every time term of a plan and what follows from it (compute,
 *   IB, ..., step, MFU, cost), each with its C expression and its Excel
 *   formula template beside it. cost_times() runs the C expressions; the
 *   workbook writes the templates; tests/test_terms.c evaluates every
 *   template on sample plans and compares it with the C value.
 *   The speed of light and the expected step are one family of terms
 *   (compute, HBM, links overlapped and exposed, core, ramp, bubble,
 *   step-end DP, optimizer, step, tokens/s, MFU, days, cost), each
 *   written once, evaluated under two rate sets (struct terms_rates):
 *   achievable peaks and ideal overlap for the floor; calibrated rates,
 *   the stack's overlaps and the expected effects for the forecast. Its
 *   template is instantiated once per set against the set's names
 *   (IB_GBPS or IB_GBPS*NETWORK_EFFICIENCY, {compute} or {x_compute}).
 *   The waterfall (expected.c) moves the expected set's rates to the
 *   floor's one effect at a time.
 * - memory terms (the runtime's share, total, headroom, fit) and the
 *   link time of one collective, likewise template and C side by side.
 * - names: the names the workbook defines over its own tables
 *   (PLANS_RANK_S, FASTEST_PLAN, ...), which formulas may read too, and the
 *   spreadsheet functions templates may call.
 *
 * Every template the workbook writes is compiled against this registry
 * (terms_template_token: plans_table and xlsx_table share it), so a
 * renamed or misspelt name fails the write and its unit tests.
 *
 * Templates read per-plan work as {key} (a column of plans_table: work in
 * the units its header names, TFLOP, GB, GiB) and inputs by their
 * workbook names (IB_GBPS) in the data file's units. The C expressions
 * read struct cost_work and struct hardware in SI units. This module is
 * part of the evaluate stage: it knows no file format.
 *
 * terms.c holds the time terms (each C function beside its template),
 * the registry and terms_template(); terms_step.c which terms each caller
 * evaluates (the step, the ramp and re-step, the expected step, the
 * sweep's bounds); terms_rates.c the two rate sets; terms_memory.c the
 * memory terms and terms_fits(); terms_inputs.c the inputs, the
 * workbook's names and the template lexer. terms_family.h is their
 * shared, private part (the family's slots and evaluation).
 *
 * Calls: libm; the data files' schemas (datafile, hardware, model,
 * sweep, calibration, stack: where each input's key and value live) and
 * calibration's measured rates.
 */
#ifndef PROJ_TERMS_H
#define PROJ_TERMS_H

#include <stdbool.h>
#include <stddef.h>

#include "cost_work.h"
#include "hardware.h"
#include "memory.h"
#include "model.h"
#include "terms_inputs.h"
#include "terms_memory.h"

/* What a term's C expression reads besides its rate set. */
struct terms_env {
    const struct cost_work *w;
    const struct hardware *hw;
    const struct model *m;
    int precision;              /* enum model_precision of the plan */
    const struct cost_times *t; /* terms evaluated so far */
};

/*
 * The two sets of rates and overlaps the time terms are evaluated with:
 * the same terms (one C function and one template each) give the speed
 * of light under the first and the expected step under the second.
 */
enum terms_set {
    TERMS_SOL, /* achievable peaks, ideal overlap: the floor */
    TERMS_X,   /* calibrated rates, the stack's overlaps: the forecast */
    TERMS_SETS
};

/*
 * One rate set: how it prices compute, its links' and HBM's bandwidth,
 * and the work as it sees it (what it overlaps, what it exposes; the
 * expected set's bytes after the network's efficiency at their message
 * size). terms_rates_sol / terms_rates_x fill it; the waterfall moves an
 * expected set's fields to the speed of light's, effect by effect.
 */
struct terms_rates {
    /* compute, s: max((gemm + attn) / clock + ew, host) x overhead. The speed
     * of light's gemm_s is every FLOP at the achievable rates (the rest 0,
     * clock and overhead 1); the expected set's are kernels at measured
     * (burst) rates and bandwidths */
    double gemm_s, attn_s, ew_s;
    /* the host's launch time for the same kernels, s (the speed of
     * light's: 0); compute is the larger of the kernels' and this */
    double host_s;
    /* the part of it the elementwise kernels wait for beside the GEMMs
     * and attention (a framework that syncs host and device in a layer) */
    double host_paced_s;
    double clock;              /* sustained / burst rate, (0, 1] */
    double burst_s;            /* how long the burst rate holds, s */
    double compute_overhead;   /* the stack's factor, 1 neutral */
    double ib_bps, nvlink_bps; /* the links' bandwidth, B/s */
    double hbm_bps;            /* HBM: achievable, or measured copy */
    /* bytes (at the link's rate) and latency with the micro-batches:
     * overlapped with compute (hid) and not (xp: none at the speed of
     * light) */
    double ib_hid, nv_hid, ib_xp, nv_xp;
    struct comm_lat ib_hid_lat, nv_hid_lat, ib_xp_lat, nv_xp_lat;
    /* bytes of the ramp's own traffic and of the step-end sync and
     * gather (their latency is the work's) */
    double ib_dep, nv_dep, ib_sync, nv_sync, ib_gather, nv_gather;
    /* 1 when the step-end sync (gather) hides under one micro-batch's
     * backward (forward), 0 when exposed; the speed of light: 1 */
    double grad_hide, param_hide;
    /* what that micro-batch's time is: its share of the core (true: the
     * speed of light's ideal overlap, under whatever binds the step) or
     * of its compute (false: the stack overlaps them with kernels) */
    bool dp_window_core;
    /* the other pipeline ranks' ramp units over this rank's, less 1 */
    double ramp_skew;
    /* the rank's own work (the expected set's: the slowest rank at its
     * rates, which may not be the floor's): HBM and optimizer bytes, the
     * schedule's bubble coefficient, the forward share of compute, the
     * latency of the ramp's, sync's and gather's traffic */
    double hbm_bytes, optimizer_bytes, bubble_coef, fwd_share;
    struct comm_lat ib_dep_lat, nv_dep_lat, ib_sync_lat, nv_sync_lat;
    struct comm_lat ib_gather_lat, nv_gather_lat;
};

/* The speed of light's compute term, s: FLOPs at the achievable BF16
 * and FP8 rates (its rate set's gemm_s; f_compute returns it unchanged,
 * clock and overhead 1, no elementwise or host time). */
double terms_sol_compute(const struct hardware *hw,
                         double bf16_flops,
                         double fp8_flops);

/* The speed of light's rate set for work w on hw. */
void terms_rates_sol(const struct cost_work *w,
                     const struct hardware *hw,
                     struct terms_rates *r);

/* The expected step's rate set for work w (w->x known) on hw: hw->cal's
 * clock and copy bandwidth, the stack's factors and overlaps in w->x. */
void terms_rates_x(const struct cost_work *w,
                   const struct hardware *hw,
                   struct terms_rates *r);

/* The time terms, in evaluation order. */
enum terms_id {
    TERMS_COMPUTE,
    TERMS_IB,
    TERMS_NVLINK,
    TERMS_HBM,
    TERMS_OPTIMIZER,
    TERMS_SYNC,
    TERMS_GATHER,
    TERMS_IB_STEADY,
    TERMS_NVLINK_STEADY,
    TERMS_COMM_SM,
    TERMS_OFFLOAD,
    TERMS_CORE,
    TERMS_BOUND,
    TERMS_RAMP,
    TERMS_BUBBLE,
    TERMS_DP_EXPOSED,
    TERMS_STEP,
    TERMS_SERIAL,
    TERMS_RATIO,
    TERMS_TPS,
    TERMS_MFU,
    TERMS_MFU_BF16_PEAK,
    TERMS_GPUH,
    TERMS_DAYS,
    TERMS_COST,
    /* the expected step (when a calibration and a stack are known) */
    TERMS_X_COMPUTE,
    TERMS_X_HBM,
    TERMS_X_IB_HID,
    TERMS_X_NV_HID,
    TERMS_X_COMM_SM,
    TERMS_X_OFFLOAD,
    TERMS_X_EXPOSED,
    TERMS_X_CORE,
    TERMS_X_RAMP,
    TERMS_X_BUBBLE,
    TERMS_X_SYNC,
    TERMS_X_GATHER,
    TERMS_X_DP,
    TERMS_X_OPTIMIZER,
    TERMS_EXPECTED,
    TERMS_X_TPS,
    TERMS_X_MFU,
    TERMS_X_DAYS,
    TERMS_X_COST,
    TERMS_COUNT
};

/* The first expected term: terms before it are the speed of light's. */
#define TERMS_EXPECTED_FIRST TERMS_X_COMPUTE

/* One term of one rate set: its key (the Plans column that shows it)
 * and its Excel template, instantiated from the term family's template
 * with the set's names (terms.c) where fam >= 0. */
struct terms_term {
    int id;              /* enum terms_id */
    const char *key;     /* "ib" */
    const char *formula; /* "{ib_gb}/IB_GBPS+..." */
    int set;             /* enum terms_set */
    int fam;             /* the family term it instantiates (terms.c), -1: the
                          * speed of light's own (link totals, bound, serial, ...) */
};

/*
 * Fills the step's terms of t (compute, links, sync and gather, steady
 * links, comm SMs, ep, core, bound, ramp, bubble, exposed DP, step) from
 * e->w and e->hw, in that order; e->t must be t. What ranking needs,
 * nothing more: the sweep's hot path.
 */
void terms_step(const struct terms_env *e, struct cost_times *t);

/* Fills the rest of t (serial step, ratio, tokens/s, MFU, GPU-hours,
 * days, cost) after terms_step(); needs e->m and e->precision too. */
void terms_derived(const struct terms_env *e, struct cost_times *t);

/*
 * Fills the expected terms of t (x_*, expected and what follows) after
 * terms_step() and terms_derived(), when e->w->x.known: the family's
 * terms under rate set r (NULL: terms_rates_x of e->w and e->hw).
 */
void terms_expected(const struct terms_env *e,
                    const struct terms_rates *r,
                    struct cost_times *t);

/* The expected terms up to the step (what ranking needs) under
 * terms_rates_x, when e->w->x.known. */
void terms_expected_step(const struct terms_env *e, struct cost_times *t);

/*
 * The step's terms before the bubble, through the ramp, of the speed of
 * light (set TERMS_SOL: as terms_step sets them, with the links' totals,
 * ep and the bound) or of the expected set (TERMS_X, when e->w->x.known:
 * as terms_expected_step): what a pipeline rank's ramp needs before its
 * skew is known. terms_restep adds the rest; the terms from the bubble on
 * are left as they were. Example: terms_ramp(&e, TERMS_SOL, t).
 */
void terms_ramp(const struct terms_env *e,
                enum terms_set set,
                struct cost_times *t);

/*
 * The step's terms from the bubble on, of the speed of light (set
 * TERMS_SOL) or of the expected set (TERMS_X, when e->w->x.known),
 * reading the earlier ones from t: for work whose ramp skew alone changed
 * since terms_step or terms_expected_step filled t under the same rates.
 */
void terms_restep(const struct terms_env *e,
                  enum terms_set set,
                  struct cost_times *t);

/* A pipeline rank's speed-of-light step bounded from below from its
 * FLOPs (terms_step_floors). */
struct terms_floor {
    double compute, optimizer; /* its compute and optimizer terms */
    /* at most the other ranks' mean ramp unit: their mean compute (a ramp
     * is at least its compute) */
    double ramp;
    double step; /* at most its step */
};

/*
 * Lower bounds of the speed-of-light step of each of a pipeline's n
 * distinct ranks where their memory, links and ramps are not known: rank
 * k's FLOPs, optimizer bytes and bubble coefficient f[k], standing for
 * like[k] ranks, micro-batches per step `microbatches`. The step's own
 * terms (bubble + optimizer + core + exposed DP) with the core at its
 * compute term (the core is a max over it), no exposed DP (at least 0)
 * and the bubble over the other ranks' mean compute at no skew (the
 * bubble is the schedule's coefficient x their mean ramp / micro-batches:
 * cost_ramp_skew). A rank's compute + optimizer no link's bandwidth
 * moves: a bound of its step at any. Returns false (no bound) where a
 * rank's bubble coefficient is below 0. The sweep's bounds (rank_prune.c)
 * are built from it.
 */
bool terms_step_floors(const struct hardware *hw,
                       const struct cost_flops *const *f,
                       const double *like,
                       size_t n,
                       double microbatches,
                       struct terms_floor *out);

/*
 * terms_step_floors' bound of one rank from its whole speed-of-light work
 * e->w: its core and exposed DP as the work gives them (terms_step: they
 * read no skew), the bubble over `ramp` (at most the other ranks' mean
 * ramp unit) at no skew.
 */
double terms_step_floor(const struct terms_env *e, double ramp);

/* The value of term `id` in t (the bound as its enum cost_bound). */
double terms_time(const struct cost_times *t, int id);

/* The terms, in enum terms_id order; *n receives TERMS_COUNT. */
const struct terms_term *terms_all(size_t *n);

/* The term with this key ("step"), or NULL. */
const struct terms_term *terms_find(const char *key);

/*
 * Time on one link for `bytes` over it (at its full rate) at bps, plus
 * the latency charged to it: the C side of the link-time templates.
 */
double terms_link_time(const struct hardware *hw,
                       double bytes,
                       double bps,
                       struct comm_lat lat);

/* Templates of one collective's time on a link (the Communication
 * sheet), over {ib_gb} / {nv_gb} (GB it moves over the link), {share}
 * (of the link's rate its algorithm and protocol reach) and the latency
 * charged to the link in the library's steps ({ib_steps}, {ib_net_steps},
 * {nv_steps}). terms_collective_time() is their C side. */
#define TERMS_IB_TIME                       \
    "{ib_gb}/({share}*IB_GBPS)+({ib_steps}" \
    "*COLL_STEP_US+{ib_net_steps}*COLL_NET_STEP_US)*1E-06"
#define TERMS_NVLINK_TIME \
    "{nv_gb}/({share}*NVLINK_GBPS)+{nv_steps}*COLL_STEP_US*1E-06"

/* One collective's time on a link: bytes over share x bps, plus the
 * latency charged to the link (the C side of TERMS_IB_TIME). */
double terms_collective_time(const struct hardware *hw,
                             double bytes,
                             double share,
                             double bps,
                             struct comm_lat lat);

/*
 * The template shown under `key` wherever a table has a column of that
 * key: a time term's, a memory term's, "ib_s" / "nv_s" for a
 * collective's link time; NULL for any other key.
 */
const char *terms_template(const char *key);

/* ---- Names the workbook defines, and template syntax ---- */

/*
 * The binding term: max(compute, ib, nvlink, hbm) and, in *bound, which
 * (enum cost_bound; ties go to the earlier term): cost_binding (result.h),
 * which the writers read too.
 */
double
terms_core(double compute, double ib, double nvlink, double hbm, int *bound);

#endif
