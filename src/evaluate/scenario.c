/*
 * scenario: the rows of the scenarios (scenario.h) and their steps. Each
 * row is what the expected step does not know, named and sourced:
 * - the published runs' band (validation_band): the expected step x its
 *   group's factors. It stands for every error the runs measured at
 *   once: kernel rates, network efficiency, what the model leaves out.
 *   Our calibrations state no spread of their own (one measurement per
 *   kernel and size), so kernel rates and network efficiency have no
 *   scenario apart from it (docs/model.md, the expected step's range).
 * - the data-parallel overlaps off: Megatron-LM's --overlap-grad-reduce
 *   and --overlap-param-gather are the user's flags (off unless set,
 *   megatron/training/arguments.py); a stack that sets them is taken at
 *   its word in the expected step, and this scenario is the run where
 *   they are not set: the step-end gradient sync and weight gather
 *   exposed (grad_hide, param_hide 0; terms.c's dp_exposed).
 * - the other communication model (comm.h): the caller evaluates it.
 */
#include "scenario.h"

#include <math.h>
#include <string.h>

#include "terms.h"

/* The expected step of w with the step-end DP overlaps off. */
static double dp_overlap_off(const struct terms_env *e, struct cost_times *t)
{
    struct terms_rates r;
    terms_rates_x(e->w, e->hw, &r);
    r.grad_hide = r.param_hide = 0;
    terms_expected(e, &r, t);
    return t->expected;
}

void scenario_eval(const struct cost_work *w,
                   const struct cost_times *t,
                   const struct hardware *hw,
                   const struct model *m,
                   int precision,
                   const struct validation_band *band,
                   struct scenario_steps *out)
{
    struct cost_times own = *t;
    struct terms_env e = {w, hw, m, precision, &own};
    double x = t->expected;
    memset(out, 0, sizeof *out);
    out->floor = out->low = out->high = t->step;
    if (!w->x.known || !(x > 0))
        return;
    out->have = 1u << SCENARIO_EXPECTED;
    out->step[SCENARIO_EXPECTED] = x;
    out->low = fmax(out->floor, x);
    out->high = x;
    out->slow = SCENARIO_EXPECTED;
    if (band && band->all_runs > 0) {
        scenario_add(out, SCENARIO_RUNS_FAST, x * band->lo);
        scenario_add(out, SCENARIO_RUNS_SLOW, x * band->hi);
    }
    scenario_add(out, SCENARIO_DP_OVERLAP_OFF, dp_overlap_off(&e, &own));
}
