/*
 * scenario: a plan's expected step under what the model does not know,
 * one named scenario per row, and its range, the span of them: the
 * expected step itself; the published runs' band on this calibration
 * (validation_band: how far runs on its group took more or less than
 * their expected step, wide where none checks it); the data-parallel
 * overlaps off (a switch the framework leaves to the user); the other
 * communication model. The range never goes below the plan's speed of
 * light. The rows and the carried steps are scenario_steps.h's (below
 * evaluate, read after rank). Part of the evaluate stage: it re-prices
 * an evaluated plan's work under other rates (terms.h) and re-times
 * nothing else; the other model's step is the caller's to add (rank
 * evaluates it).
 */
#ifndef PROJ_SCENARIO_H
#define PROJ_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "cost.h"
#include "hardware.h"
#include "model.h"
#include "scenario_steps.h"
#include "validation.h"

/*
 * The scenarios of evaluated plan w/t (t from cost_evaluate with its
 * expected step: w->x.known) on hw, model m, at precision, with
 * calibration band `band` (NULL: no published run, the runs' scenarios
 * left out) into *out: every one but SCENARIO_OTHER_COMM, and the span.
 * Nothing where the expected step is unknown (out->have 0, low and high
 * the speed of light). Allocates nothing; t is read, not changed.
 */
void scenario_eval(const struct cost_work *w,
                   const struct cost_times *t,
                   const struct hardware *hw,
                   const struct model *m,
                   int precision,
                   const struct validation_band *band,
                   struct scenario_steps *out);

#endif
