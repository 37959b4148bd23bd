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

struct replay {
    bool known;  /* the plan has an expected step (else all zero) */
    int effects; /* the effects shown, 0..effects-1: all, or all but the
                  * stack's factors when they are neutral */
    double sol;  /* s: the speed of light (no effect on) */
    double step[EXPECTED_EFFECTS]; /* s: the step with effects 0..k on */
    /* s: the expected step's phases on its critical pipeline rank (enum
     * cost_phase), summing to it */
    double phases[COST_PHASES];
    long rank;       /* the rank of the expected step (cost_result_rank) */
    long floor_rank; /* the rank of the plan's speed of light */
};

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
