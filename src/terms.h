/*
 * terms: the time model, written once. Two registries side by side:
 *
 * - inputs: every named cell a workbook formula may read, with the
 *   data-file key it comes from (section.key of the hardware or model
 *   file), its unit and the SI value of one unit; and the derived names
 *   (COMPUTE_DERATE, BF16_TFLOPS_USED, ...) with their formula over
 *   inputs and the same in C.
 * - terms: every time term of a plan and what follows from it (compute,
 *   IB, ..., step, MFU, cost), each with its C expression and its Excel
 *   formula template beside it. cost_times() runs the C expressions; the
 *   workbook writes the templates (plans_table compiles them, and rejects
 *   a name that is not an input here); tests/test_terms.c evaluates every
 *   template on sample plans and compares it with the C value.
 *
 * Templates read per-plan work as {key} (a column of plans_table: work in
 * the units its header names, TFLOP, GB, GiB) and inputs by their
 * workbook names (IB_GBPS) in the data file's units. The C expressions
 * read struct cost_work and struct hardware in SI units. This module is
 * part of the evaluate stage: it knows no file format and calls nothing
 * but libm.
 */
#ifndef PROJ_TERMS_H
#define PROJ_TERMS_H

#include <stdbool.h>
#include <stddef.h>

#include "hardware.h"
#include "memory.h"
#include "model.h"

struct cost_work;
struct cost_times;

/* Where an input's value comes from. */
enum terms_origin {
    TERMS_HARDWARE, /* a key of the hardware file */
    TERMS_MODEL,    /* a key of the model file */
    TERMS_DERIVED   /* a formula over other inputs */
};

/* What a term's C expression reads. */
struct terms_env {
    const struct cost_work *w;
    const struct hardware *hw;
    const struct model *m;
    int precision;              /* enum model_precision of the plan */
    const struct cost_times *t; /* terms evaluated so far */
};

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

/* The inputs, data-file keys first, then the derived names in an order
 * where each reads only earlier ones. *n receives the count. */
const struct terms_input *terms_inputs(size_t *n);

/* The input named `name` (exact, upper case), or NULL. */
const struct terms_input *terms_input_find(const char *name);

/*
 * The value a workbook cell of input `in` holds for this hardware and
 * model, in the input's unit (what the Assumptions sheet shows): the
 * data-file value for keys, the C expression for derived names. Returns
 * false when the key is not a number of the file (a programming error
 * the tests catch).
 */
bool terms_input_value(const struct terms_input *in,
                       const struct hardware *hw,
                       const struct model *m,
                       double *out);

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
    TERMS_COUNT
};

/* One term: its key (the Plans column that shows it), its Excel
 * template, and its C expression. */
struct terms_term {
    int id;              /* enum terms_id */
    const char *key;     /* "ib" */
    const char *formula; /* "{ib_gb}/IB_GBPS+{ib_calls}*IB_LATENCY_US*1E-06" */
    double (*c)(const struct terms_env *e); /* the same, SI units */
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

/* The value of term `id` in t (the bound as its enum cost_bound). */
double terms_time(const struct cost_times *t, int id);

/* The terms, in enum terms_id order; *n receives TERMS_COUNT. */
const struct terms_term *terms_all(size_t *n);

/* The term with this key ("step"), or NULL. */
const struct terms_term *terms_find(const char *key);

/*
 * Time on one link for `bytes` over it in `calls` calls: bytes over the
 * achievable bandwidth plus one latency per call. The C side of the
 * link-time template below, for per-collective times.
 */
double terms_link_time(double bytes, double calls, double bps, double lat_s);

/* Templates of one collective's time on a link, over {gb} (GB moved) and
 * {calls}; no latency without bytes. */
#define TERMS_IB_TIME "{gb}/IB_GBPS+IF({gb}>0,{calls}*IB_LATENCY_US*1E-06,0)"
#define TERMS_NVLINK_TIME \
    "{gb}/NVLINK_GBPS+IF({gb}>0,{calls}*NVLINK_LATENCY_US*1E-06,0)"

/*
 * The binding term: max(compute, ib, nvlink, hbm) and, in *bound, which
 * (enum cost_bound; ties go to the earlier term).
 */
double
terms_core(double compute, double ib, double nvlink, double hbm, int *bound);

/*
 * True when `name` may appear in a template: an input of terms_inputs()
 * or one of the spreadsheet functions templates use (MAX, MIN, IF).
 * Used by template compilers to reject a misspelt or renamed name.
 */
bool terms_name_known(const char *name, bool is_function);

#endif
