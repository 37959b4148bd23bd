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
#include "result.h"
#include "validation.h"

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
