/*
 * terms_inputs: the names a workbook formula may read — every named input
 * cell with the data-file key it comes from (section.key of the hardware,
 * model, sweep, calibration or stack file), its unit and the SI value of
 * one unit; the derived names (COMPUTE_DERATE, BF16_TFLOPS_USED, ...)
 * with their formula over inputs and the same in C; the names the
 * workbook defines over its own tables (PLANS_RANK_S, ...) — and the
 * template syntax every compiler of a template shares
 * (terms_template_token). The term registry of the time model (terms.h,
 * evaluate) writes its templates over these names; the writers compile
 * them against these. Nothing here times a plan: it sits below evaluate
 * so that the writers name the inputs without seeing how a plan is
 * evaluated.
 *
 * Calls: the data files' schemas (datafile, hardware, model, sweep,
 * calibration, stack: where each input's key and value live).
 */
#ifndef PROJ_TERMS_INPUTS_H
#define PROJ_TERMS_INPUTS_H

#include <stdbool.h>
#include <stddef.h>

#include "hardware.h"
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
