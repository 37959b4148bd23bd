/*
 * validation: published measured runs (data/validation/NAME.ini, one [run]
 * per file): the run's name and source, the model and hardware files it
 * ran (relative to the data directory), its plan in PLAN syntax and the
 * figures it measured. Part of the read-inputs stage: it reads and checks
 * the files; predicting each run is the figures stage's work.
 */
#ifndef PROJ_VALIDATION_H
#define PROJ_VALIDATION_H

#include <stdbool.h>
#include <stddef.h>

#include "datafile.h"
#include "diag.h"
#include "hardware.h"
#include "model.h"
#include "stack.h"
#include "calibration.h"

#define VALIDATION_SETS_MAX 8 /* `set` overrides of one run */

struct validation_run {
    char path[1024];  /* the file */
    char name[128];   /* "DeepSeek-V3 pre-training (ISCA'25 Table 4)" */
    char source[200]; /* of the [run] section */
    char model_path[1024], hardware_path[1024]; /* resolved */
    char plan[DATAFILE_TEXT_MAX];               /* PLAN syntax */
    char stack_path[1024]; /* the run's framework (resolved); "" if none */
    /* the cluster it was measured on (`cluster`): runs naming the same
     * one must keep their measured order; "" when none shares it */
    char cluster[128];
    /* what the run did not publish: "vpp=2,4,7 zero=1,2" (PLAN keys, each
     * with its possible values); "" when the plan is complete */
    char unpublished[DATAFILE_TEXT_MAX];
    /* what the run changed in its files (`set`, as --set): its inputs are
     * then its own, never the report's */
    struct datafile_set sets[VALIDATION_SETS_MAX];
    size_t nsets;
    double measured_step_s;         /* 0 when not published */
    double measured_tflops_per_gpu; /* 0 when not published */
    double measured_mfu;            /* fraction of the BF16 peak; 0 if none */
    double measured_gpu_hours_per_trillion; /* 0 when not published */
    long line[DATAFILE_FIELDS_MAX];         /* per schema field: its line, 0 if
                                               absent (validation_line) */
};

/* The schema of validation files ([run] name, model, hardware, plan and
 * the measured figures), for `check` and data/README.md. */
const struct datafile_schema *validation_schema(void);

/*
 * Reads one validation file into *run; its model and hardware paths are
 * resolved against data_dir (the directory holding models/, hardware/,
 * validation/). Returns the datafile status with every problem in d.
 */
enum status validation_load(const char *path,
                            const char *data_dir,
                            struct validation_run *run,
                            struct diag *d);

/* The runs of a data directory, as validation_load_dir read them. */
struct validation_runs {
    struct validation_run *run; /* [n], in file name order (owned) */
    size_t n;
};

/*
 * Reads every *.ini in data_dir/validation, in name order, into *out
 * (however many there are): all of them or none. A missing directory
 * gives no runs and STATUS_OK. Stops at the first bad file (the runs
 * before it stay in out: release it whatever the status), STATUS_NOMEM
 * when out of memory. Release with validation_runs_release().
 */
enum status validation_load_dir(const char *data_dir,
                                struct validation_runs *out,
                                struct diag *d);

/* Frees the runs r holds; r may be zeroed. */
void validation_runs_release(struct validation_runs *r);

/* The line of [run] `key` in run's file; 0 when absent (or no such key). */
long validation_line(const struct validation_run *run, const char *key);

/*
 * The run's measured step in seconds: its step_s when published, else
 * its model FLOPs per GPU per step (model_flops, the run's batch on its
 * plan) at the measured TFLOP/s per GPU; 0 when it published neither.
 */
double validation_measured_step(const struct validation_run *run,
                                double model_flops);

/*
 * The spread of the expected step over the published runs: the smallest
 * and largest measured/expected over the runs with both (a run's
 * measured step as validation_measured_step gives it, its expected step
 * on its own inputs and stack). An expected figure's range is then
 * expected x lo .. expected x hi. Start from {0}; add each run.
 */
struct validation_range {
    size_t n;      /* runs with a measured and an expected step */
    double lo, hi; /* measured over expected; 0 while n is 0 */
};

/* Counts the run with measured step m and expected step x (seconds) into
 * r; a run without either (0, negative or not finite) is left out. */
void validation_range_add(struct validation_range *r, double m, double x);

/* The calibration group a run checks or an expected step is read with
 * (calibration.validation_group, else the calibration's gpu). */
const char *validation_group(const struct calibration *cal);

#define VALIDATION_GROUP_MAX 160

/*
 * The key runs are banded by (validation_band_fit): the calibration's
 * group and the stack's family (stack.validation_family, else its name),
 * "hopper-132sm/megatron-class", into buf: a run's band says how well
 * this calibration with this kind of framework has been checked. No
 * stack: the calibration's group alone; no calibration: "".
 */
void validation_band_key(const struct calibration *cal,
                         const struct stack *st,
                         char *buf,
                         size_t size);

/* One published run as validation_band_fit reads it. */
struct validation_point {
    char group[VALIDATION_GROUP_MAX]; /* validation_band_key of its run */
    double ratio;                     /* measured over expected, > 0 */
};

/*
 * How far an expected step read with one calibration may be from a run's:
 * the factors lo <= 1 <= hi its range takes from the published runs
 * (validation_band_fit). A group checked by runs takes their mean error
 * and the run-to-run spread all runs share, wider by how little its runs
 * pin that mean down; an unchecked group is wide and says so (runs 0).
 */
struct validation_band {
    size_t runs;       /* the group's runs (0: unchecked) */
    size_t all_runs;   /* the runs of every group */
    double lo, hi;     /* the expected step's factors, lo <= 1 <= hi */
    double mean;       /* the group's mean log(measured / expected) */
    double sigma;      /* the run-to-run spread of log(measured /
                          expected) within a group, pooled */
    double k;          /* the spreads that hold every run (see below) */
    double offset_max; /* the largest group mean, |log|: an unchecked
                          group's unknown offset */
    char group[VALIDATION_GROUP_MAX]; /* the group it is of */
};

/*
 * The band of `group` from n runs (pts; a ratio that is not a positive
 * finite number is left out), in log(measured / expected), r_i for run i
 * of group j(i) with n_j runs and mean m_j:
 *   sigma = sqrt(sum (r_i - m_j(i))^2 / sum (n_j - 1)), the pooled
 *           within-group spread (0 with no group of two runs);
 *   sigma, k and max_j |m_j| below are over the runs of the groups of
 *   `group`'s stack family (the key's part after '/': for
 *   "h20/megatron-class" every group ending "/megatron-class"), over every run
 *   where that family's runs hold no group of two;
 *   k     = max_i |r_i - m_j(i)| / (sigma sqrt(1 + 1/n_j(i))): as many
 *           spreads as hold every run around its group's mean;
 *   a group with n runs: exp(m +- k sigma sqrt(1 + 1/n)) (a new run's
 *           spread about a mean known from n runs: sigma^2 (1 + 1/n));
 *   a group with none: exp(+-(k sigma sqrt(2) + max_j |m_j|)): its mean
 *           as unknown as one run's, and off by as much as any checked
 *           group's mean is.
 * lo and hi are then widened to hold 1 (the expected step itself).
 * Returns false (band zeroed) when no run has a ratio.
 */
bool validation_band_fit(const struct validation_point *pts,
                         size_t n,
                         const char *group,
                         struct validation_band *band);

/* The model, hardware, calibration and stack a run is predicted with. */
struct validation_inputs {
    bool current; /* the report's own files: m and hw point at its inputs */
    bool loaded;  /* own_m and own_hw hold the run's files (release them) */
    bool has_cal, has_stack; /* own_cal, own_stack loaded (release them) */
    struct model own_m;
    struct hardware own_hw;
    struct calibration own_cal;
    struct stack own_stack;
    const struct model *m;
    const struct hardware *hw; /* its cal: the calibration, if any */
    const struct stack *stack; /* NULL: no expected step */
};

/*
 * The inputs run is predicted with: the report's own m and hw (with their
 * --set overrides) when the run names the same files, else the run's
 * files as they are (a config.json model with the training recipe at
 * `recipe`), with their calibration (data_dir/calibration, by the
 * hardware file's name) and the run's stack, for the expected step; m and
 * hw may be NULL (`check`: no report). Release with
 * validation_inputs_release().
 */
enum status validation_load_inputs(const struct validation_run *run,
                                   const char *recipe,
                                   const char *data_dir,
                                   const struct model *m,
                                   const struct hardware *hw,
                                   struct validation_inputs *out,
                                   struct diag *d);

void validation_inputs_release(struct validation_inputs *in);

#endif
