/*
 * figures: the derive-figures stage. From the ranked report (rank.c) it
 * computes what the writers show and nothing computes again: each
 * family's best plan re-evaluated with its collectives under both
 * communication models, the bandwidths at which its links would fall to
 * its compute time, the families in order, and the validation runs'
 * predictions with their place in the ranking.
 *
 * Calls: cost, plan, validation (its runs and inputs, already read).
 */
#ifndef PROJ_FIGURES_H
#define PROJ_FIGURES_H

#include <stddef.h>

#include "cost.h"
#include "diag.h"
#include "report.h"
#include "validation.h"

/*
 * Fills each family's best plan (and the same plan under the other
 * communication model, `other`) with its collectives, its crossover
 * bandwidths and r->families_by_step. ctx and other are prepared here
 * for the plans they evaluate.
 */
enum status figures_families(struct report *r,
                             struct cost_ctx *ctx,
                             struct cost_ctx *other,
                             struct diag *d);

/*
 * The plan of validation run `run` on the inputs it names (keys it omits:
 * every dimension 1, the cluster's GPUs, the model's global batch),
 * parsed and checked. STATUS_USAGE/STATUS_RANGE with the reason in d
 * when it does not parse or cannot run there.
 */
enum status figures_validation_plan(const struct validation_run *run,
                                    const struct validation_inputs *in,
                                    struct plan *p,
                                    struct diag *d);

/*
 * Predicts each validation run with the inputs it names (in[i], read by
 * validation_load_inputs) into r->validation: with ctx and other when
 * the run uses this report's own files, else with a context of its own.
 * A run whose plan does not apply to those inputs (a --set what-if that
 * changed the model, say) is skipped and a note says why
 * (r->validation_notes). Also ranks the runs among r->rows.
 */
enum status figures_validations(struct report *r,
                                const struct validation_run *runs,
                                const struct validation_inputs *in,
                                size_t n,
                                struct cost_ctx *ctx,
                                struct cost_ctx *other,
                                struct diag *d);

#endif
