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

struct sweep_file;

/* Where an input's value comes from. */
enum terms_origin {
    TERMS_HARDWARE,    /* a key of the hardware file */
    TERMS_MODEL,       /* a key of the model file */
    TERMS_SWEEP,       /* a key of the sweep file's [report] */
    TERMS_CALIBRATION, /* a key of the hardware's calibration file */
    TERMS_STACK,       /* a key of the training stack's file (hw->stack) */
    TERMS_COLLECTIVES, /* a key of the collectives file (hw->coll) */
    TERMS_DERIVED      /* a formula over other inputs */
};

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

/* One named input of the workbook's formulas. */
struct terms_input {
    const char *name;    /* workbook name: "IB_GBPS" */
    int origin;          /* enum terms_origin */
    const char *section; /* data-file section ("cluster"); NULL if derived */
    const char *key;     /* data-file key ("ib_gbps"); NULL if derived */
    const char *unit;    /* "GB/s" */
    double si;           /* SI value of one unit (1e9 B/s per GB/s) */
    const char *formula; /* derived: template over other inputs */
    /* derived: the same in C, in the input's unit */
    double (*value)(const struct hardware *hw);
    const char *meaning; /* derived: one line for the Assumptions sheet */
};

/*
 * Whether input `in` exists for this cluster: a calibration key only with
 * a calibration (hw->cal), a stack key only with a calibration and a
 * stack (hw->stack: the expected step), a derived name only when every
 * input its formula names does. A workbook defines only these.
 */
bool terms_input_available(const struct terms_input *in,
                           const struct hardware *hw);

/* The inputs, data-file keys first, then the derived names in an order
 * where each reads only earlier ones. *n receives the count. */
const struct terms_input *terms_inputs(size_t *n);

/* The input named `name` (exact, upper case), or NULL. */
const struct terms_input *terms_input_find(const char *name);

/*
 * The value a workbook cell of input `in` holds for this hardware, model
 * and sweep file (sf may be NULL: sweep inputs then take their schema
 * default), in the input's unit (what the Assumptions sheet shows): the
 * data-file value for keys, the C expression for derived names. Returns
 * false when the key is not a number of the file (a programming error
 * the tests catch).
 */
bool terms_input_value(const struct terms_input *in,
                       const struct hardware *hw,
                       const struct model *m,
                       const struct sweep_file *sf,
                       double *out);

/* Index into the input's file schema's fields of input `in` (not
 * derived), or -1: where its source and line live. */
long terms_input_field(const struct terms_input *in);

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

/* ---- Memory terms: what a plan needs and whether it fits ---- */

enum terms_mem_id {
    TERMS_MEM_OTHER,    /* CUDA context, NCCL buffers, fragmentation */
    TERMS_MEM_TOTAL,    /* the parts summed */
    TERMS_MEM_HEADROOM, /* capacity left free */
    TERMS_MEM_FITS,     /* 1 when total <= capacity x (1 - headroom
                           share), else 0 (shown as TRUE / FALSE) */
    TERMS_MEM_COUNT
};

/* What a memory term's C expression reads: the parts of struct memory in
 * bytes (other and total as memory_view() computed them), the hardware
 * and the sweep's headroom share (percent). */
struct terms_mem_env {
    const struct memory *mem;
    const struct hardware *hw;
    double headroom_pct;
};

/* One memory term: its key (the Plans column that shows it), template
 * over {mem_weights} {mem_grads} {mem_opt} {mem_act} {mem_other}
 * {mem_total} (GiB), and C expression (GiB; fits: 1 or 0). */
struct terms_mem_term {
    int id;              /* enum terms_mem_id */
    const char *key;     /* "mem_total" */
    const char *formula; /* "{mem_weights}+...+{mem_other}" */
    double (*c)(const struct terms_mem_env *e);
};

/* The memory terms, in enum terms_mem_id order; *n receives the count. */
const struct terms_mem_term *terms_memory(size_t *n);

/*
 * Whether total bytes fit in capacity bytes with headroom_pct percent of
 * it kept free: total <= capacity x (1 - headroom_pct / 100). The one
 * rule of "fits" (rank, figures and the Plans formula).
 */
bool terms_fits(double total, double capacity, double headroom_pct);

/*
 * The memory terms in bytes, each written once (the TERMS_MEM_* rows
 * divide these by 2^30, which is exact; a GiB figure elsewhere is one of
 * these over 2^30 too):
 *   other    CUDA context and NCCL buffers (GiB in hw) plus the
 *            fragmentation share of the parts m holds (weights,
 *            gradients, optimizer, activations)
 *   total    those parts and m->other
 *   usable   what a plan may use of capacity, headroom_pct kept free
 *   headroom what m leaves free of m->capacity
 */
double terms_mem_other(const struct hardware_spec *hw, const struct memory *m);
double terms_mem_total(const struct memory *m);
double terms_mem_usable(double capacity, double headroom_pct);
double terms_mem_headroom(const struct memory *m);

/*
 * The template shown under `key` wherever a table has a column of that
 * key: a time term's, a memory term's, "ib_s" / "nv_s" for a
 * collective's link time; NULL for any other key.
 */
const char *terms_template(const char *key);

/* ---- Names the workbook defines, and template syntax ---- */

/* A name the workbook defines over its own cells (not an input). */
struct terms_name {
    const char *name;    /* "PLANS_RANK_S" */
    const char *meaning; /* one line, for the Glossary */
};

/* The workbook's own names; *n receives the count. */
const struct terms_name *terms_names(size_t *n);

/* The workbook name `name`, or NULL. */
const struct terms_name *terms_name_find(const char *name);

/*
 * The binding term: max(compute, ib, nvlink, hbm) and, in *bound, which
 * (enum cost_bound; ties go to the earlier term).
 */
double
terms_core(double compute, double ib, double nvlink, double hbm, int *bound);

/*
 * True when `name` may appear in a template: an input of terms_inputs()
 * or a name of terms_names() (is_function false), or one of the
 * spreadsheet functions templates call (MAX, MIN, IF, INDEX, MATCH,
 * IFERROR, ...; is_function true). Used by template compilers to reject a
 * misspelt or renamed name.
 */
bool terms_name_known(const char *name, bool is_function);

/*
 * Length of the template token at s when it is neither a {key} nor a
 * "string" (the compilers handle those): a number (1E+12 included), a
 * name or function terms_name_known() accepts, or one character of
 * punctuation. 0 when s starts a name nobody defined, a lower-case word,
 * or a reference written out ($, !, '): templates refer to cells as
 * {key} and to inputs by name only. The one lexer of plans_table's and
 * xlsx_table's compilers.
 */
size_t terms_template_token(const char *s);

#endif
