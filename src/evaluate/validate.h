/*
 * validate: the evaluate stage's part of a published measured run
 * (data/validation): the run's plan on the inputs it names, its
 * prediction there (and, when the run is on the report's own files, the
 * critical rank's collectives under both communication models), and the
 * speed of light over every completion of what the run did not publish.
 * Rank places the results among its rows (rank_finish_validations);
 * figures and writers only read them.
 *
 * Calls: plan (parse, check), cost, terms (the fit), validation (the
 * run and its inputs, already read).
 */
#ifndef PROJ_VALIDATE_H
#define PROJ_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "comm.h"
#include "cost.h"
#include "diag.h"
#include "plan.h"
#include "replay.h"
#include "scenario.h"
#include "validation.h"

/* A published measured run and the prediction for it. */
struct validate_result {
    char name[128]; /* "DeepSeek-V3 pre-training (ISCA'25 Table 4)" */
    char source[200];
    char model_path[1024], hardware_path[1024];
    char model_name[128], gpu_name[128];
    struct plan plan;
    double measured_step_s;         /* 0 when not published */
    double measured_tflops_per_gpu; /* 0 when not published */
    double measured_mfu;            /* fraction of BF16 peak; 0 if none */
    double measured_gpu_hours_per_trillion; /* 0 when not published */
    struct cost_result predicted;
    /* When current: the critical rank's collectives, this report's comm
     * model and the other one. */
    struct comm_collective coll[COMM_LIST_MAX], coll_other[COMM_LIST_MAX];
    size_t ncoll, ncoll_other;
    bool current; /* same model and hardware files as this report */
    long rank;    /* its place in this report's ranking (1 = best);
                     0 when not current or not among the kept plans;
                     rank fills it (rank_finish_validations) */
    /* The speed of light over every completion of what the run did not
     * publish (its plan with each combination of the `unpublished`
     * choices; just the plan when there are none). */
    char unpublished[200];   /* the choices, as the file gives them */
    size_t completions;      /* valid completions evaluated */
    double sol_min_step_s;   /* the fastest completion's step */
    double sol_max_step_s;   /* the slowest completion's step */
    struct plan slowest;     /* the completion of sol_max_step_s */
    double measured_step_eq; /* the measured step, or model FLOPs per GPU
                                per step / measured TFLOP/s; 0 if neither */
    bool holds; /* every completion's SOL is at or below the measured */
    /* The files its expected step came from (predicted.work.x.known):
     * the calibration (its hardware file's, by name) and the stack (its
     * framework's, named in the run's file); "" when none. */
    char calibration_path[1024], stack_path[1024];
    /* its calibration's group (validation_group; "" when none) and its
     * scenarios on its own inputs (scenario_eval, without the published
     * runs' band: rank adds the band of its group) */
    char group[VALIDATION_GROUP_MAX];
    struct scenario_steps sc;
    /* its waterfall's steps, phases and ranks (on the inputs it names) */
    struct replay replay;
};

/*
 * The plan of validation run `run` on the inputs it names (keys it omits:
 * every dimension 1, the cluster's GPUs, the model's global batch),
 * parsed and checked. STATUS_USAGE/STATUS_RANGE with the reason in d
 * when it does not parse or cannot run there.
 */
enum status validate_plan(const struct validation_run *run,
                          const struct validation_inputs *in,
                          struct plan *p,
                          struct diag *d);

/*
 * Predicts run `run` with the inputs it names (in, read by
 * validation_load_inputs) into v: with ctx and other (the report's
 * contexts, prepared here for its plans) when the run uses the report's
 * own files, else with a context of its own. A measured run ran: its plan
 * is judged against its GPUs' memory (cost_evaluate's fits), not with the
 * report's headroom, a planning margin for allocator spikes that the
 * hardware's fragmentation share already stands for (issue 17 item 9).
 * When the run's plan does not apply to those inputs (a --set what-if
 * that changed the model, say), skip gets STATUS_RANGE with the sentence
 * why (skip->status stays STATUS_OK when it applies). Returns
 * STATUS_PARSE on a bad `unpublished` list, or what preparing a context
 * returned.
 */
enum status validate_predict(const struct validation_run *run,
                             const struct validation_inputs *in,
                             struct cost_ctx *ctx,
                             struct cost_ctx *other,
                             struct validate_result *v,
                             struct diag *skip,
                             struct diag *d);

#endif
