/*
 * replay: a plan's steps effect by effect, its phases and ranks (see
 * replay.h).
 */
#include "replay.h"

#include <string.h>

void replay_fill(const struct cost_result *c,
                 const struct model *m,
                 const struct hardware *hw,
                 struct replay *out)
{
    memset(out, 0, sizeof *out);
    if (!c->work.x.known || !(c->t.expected > 0))
        return;
    out->known = true;
    out->effects = expected_effect_shown(&c->work.x, EXPECTED_FACTORS)
                       ? EXPECTED_EFFECTS
                       : EXPECTED_FACTORS;
    /* each bar is the step with one more effect on minus the step before
     * it, so they telescope to expected - sol whatever the effects'
     * interactions (a max() of overlapped terms makes each bar depend on
     * the order) */
    expected_waterfall(&c->work, hw, m, c->plan.precision, &out->sol,
                       out->step);
    cost_phases(c, out->phases);
    out->rank = cost_result_rank(c);
    out->floor_rank = c->rank;
}
