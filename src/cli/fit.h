/*
 * fit: `--calibrate RUN.ini`, the stack's free factors fitted to one
 * measured run, and whether the fit transfers to the other measured runs.
 *
 * The expected step times every kernel and collective at its calibrated
 * rate; a real framework adds what those measurements cannot see (launch
 * gaps, host overhead, stragglers, contention between collectives). The
 * stack names that as free factors (stack.h: compute_overhead in [1, 2],
 * network_efficiency in [0.25, 1], 1 neutral). Given one run with its
 * plan, stack and measured step (the schema of data/validation/NAME.ini),
 * the fit picks ONE factor, the one the run's expected step is most
 * sensitive to (the larger step growth for 1% more overhead through the
 * factor; compute_overhead on a tie), and finds by bisection the value
 * within its bounds at which the run's expected step equals the measured
 * one. The expected step is continuous in each factor and grows with the
 * overhead wherever compute or the pipeline ramp binds, so the bounds
 * bracket the answer whenever one exists; otherwise the value stops at
 * the bound nearer to it, and the result says so.
 *
 * Leave-one-out: every other measured run of the data directory, each on
 * its own inputs and stack, with its stack's factors and with the fitted
 * factor in their place: how far one calibration transfers.
 *
 * Part of the derive-figures stage: it predicts a run as the Validation
 * sheet does (validate_plan), then times it with cost and terms
 * (earlier stages); reads runs with validation. Prints only through
 * fit_write_text's stream.
 */
#ifndef PROJ_FIT_H
#define PROJ_FIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "comm.h"
#include "diag.h"
#include "hardware.h"
#include "model.h"
#include "stack.h"
#include "validation.h"

/* One other measured run, before and after the fit. */
struct fit_row {
    char name[128];
    char path[1024];
    double measured_s; /* its measured step (or from its TFLOP/s) */
    double default_s;  /* expected with its stack's own factors; 0: none */
    double fitted_s;   /* expected with the fitted factor; 0: none */
    char note[200];    /* "" or why it has no expected step */
};

struct fit_result {
    char run_name[128];
    char run_path[1024];
    char stack_name[128];     /* the run's stack */
    enum stack_factor factor; /* the factor fitted */
    double lo, hi;            /* its bounds (the stack schema's) */
    double start;             /* its value in the run's stack (1 unless set) */
    double value;             /* fitted, in lo..hi */
    int bound;                /* 0: inside; -1: stopped at lo; +1: at hi */
    /* step growth of the run (fraction) for 1% more overhead through
     * each factor: x 1.01 compute, / 1.01 network efficiency */
    double sensitivity[STACK_FACTORS];
    double measured_s;    /* the run's measured step */
    double default_s;     /* its expected step with its stack's factors */
    double fitted_s;      /* with the fitted value */
    struct fit_row *rows; /* [nrows]: the leave-one-out table (owned) */
    size_t nrows;
};

/* Frees the table r holds (fit_transfer's rows); r may be zeroed. */
void fit_result_release(struct fit_result *r);

/*
 * Fits the factor (see above) to run, predicted with in (as
 * validation_load_inputs loaded it) under communication model comm, into
 * *out (rows left empty). The run needs a measured step_s or
 * tflops_per_gpu, a stack and a calibration for its hardware, and a plan
 * that applies to its inputs; else STATUS_RANGE with
 * "path:line: run.key: problem" in d. Allocates nothing that outlives it.
 */
enum status fit_run(const struct validation_run *run,
                    const struct validation_inputs *in,
                    enum comm_model comm,
                    struct fit_result *out,
                    struct diag *d);

/*
 * The leave-one-out table of fit r: runs[0..n) with their inputs in[],
 * except the fitted run's own file and runs without a measurement, into
 * r->rows. A run without an expected step (no stack, no calibration, a
 * plan that does not apply) gets a row with its note: every such run,
 * however many (r->rows allocated here, what r held freed; release with
 * fit_result_release). STATUS_NOMEM or a cost_ctx_prepare failure in
 * d.
 */
enum status fit_transfer(struct fit_result *r,
                         const struct validation_run *runs,
                         const struct validation_inputs *in,
                         size_t n,
                         enum comm_model comm,
                         struct diag *d);

/*
 * Everything `--calibrate run_path` does before the report: reads the
 * run (its paths resolved against data_dir, as data/validation's; a
 * config.json model with the recipe at `recipe`), fits it (fit_run), and
 * fills the leave-one-out table from data_dir/validation (release out
 * with fit_result_release). m and hw are
 * the report's own inputs (a run naming the same files is predicted with
 * them, as in the report), or NULL. Errors name the file, line and key;
 * STATUS_IO when it cannot be read.
 *
 *   struct fit_result *r = calloc(1, sizeof *r);
 *   if (fit_calibrate("run.ini", "data", recipe, COMM_TOPO, &m, &hw, r, &d))
 *       ... d.msg ...
 */
enum status fit_calibrate(const char *run_path,
                          const char *data_dir,
                          const char *recipe,
                          enum comm_model comm,
                          const struct model *m,
                          const struct hardware *hw,
                          struct fit_result *out,
                          struct diag *d);

/*
 * Sets the fitted factor in stack s (the report's: every plan then runs
 * with it) and makes its source name the run, for the Assumptions sheet.
 * STATUS_NOMEM in d when the source cannot be copied.
 */
enum status
fit_apply(const struct fit_result *r, struct stack *s, struct diag *d);

/*
 * The fit as text: the run, the sensitivities, the fitted value and
 * whether a bound stopped it, the run's residual, and the leave-one-out
 * table (measured, expected with the stacks' factors and fitted, each
 * error in percent of the measured; mean absolute errors). applied (may
 * be NULL) is the stack the fit was applied to, named on the last line.
 */
void fit_write_text(const struct fit_result *r,
                    const struct stack *applied,
                    FILE *out);

#endif
