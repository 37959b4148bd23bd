/*
 * replay: what a waterfall shows of one evaluated plan, evaluated once
 * here so that the figures stage derives its bars without timing
 * anything: the step with the expected effects switched on one at a
 * time (expected_waterfall), the expected step's phases on its critical
 * pipeline rank (cost_phases), and the ranks of the expected step and of
 * the speed of light.
 *
 * Calls: cost, expected.
 */
#ifndef PROJ_REPLAY_H
#define PROJ_REPLAY_H

#include <stdbool.h>

#include "cost.h"
#include "expected.h"
#include "hardware.h"
#include "model.h"
#include "result.h"

/*
 * Fills out from plan c evaluated on m and hw (c's times and work from
 * cost_evaluate); out->known is false, the rest zero, when c has no
 * expected step.
 */
void replay_fill(const struct cost_result *c,
                 const struct model *m,
                 const struct hardware *hw,
                 struct replay *out);

#endif
