/*
 * figures_waterfall: the waterfalls of the report (see
 * figures_waterfall.h).
 */
#include "figures_waterfall.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "expected.h"

void figures_waterfall_of(const struct cost_result *c,
                          const struct model *m,
                          const struct hardware *hw,
                          const char *name,
                          struct report_waterfall *w)
{
    double step[EXPECTED_EFFECTS], last, gap;
    int k;
    memset(w, 0, sizeof *w);
    if (!c->work.x.known || !(c->t.expected > 0))
        return;
    w->known = true;
    w->plan = c->plan;
    w->effects = expected_effect_shown(&c->work.x, EXPECTED_FACTORS)
                     ? EXPECTED_EFFECTS
                     : EXPECTED_FACTORS;
    diag_snprintf(w->name, sizeof w->name, "%s", name);
    /* The same replay as eval's waterfall: each bar is the step with one
     * more effect on minus the step before it, so they telescope to
     * expected - sol whatever the effects' interactions (a max() of
     * overlapped terms makes each bar depend on the order). */
    expected_waterfall(&c->work, hw, m, c->plan.precision, &w->sol, step);
    last = w->sol;
    for (k = 0; k < EXPECTED_EFFECTS; k++) {
        w->add[k] = step[k] - last;
        w->cum[k] = step[k];
        last = step[k];
        if (w->add[k] > w->add[w->largest])
            w->largest = k;
    }
    w->expected = step[EXPECTED_EFFECTS - 1];
    cost_phases(c, w->phases);
    w->rank = cost_result_rank(c);
    w->floor_rank = c->rank;
    gap = w->expected - w->sol;
    for (k = 0; k < EXPECTED_EFFECTS; k++)
        w->share[k] = fabs(gap) > 0 ? w->add[k] / gap : 0;
}

void figures_waterfall(struct report *r)
{
    memset(r->waterfall, 0, sizeof r->waterfall);
    if (r->headline.any)
        figures_waterfall_of(&r->headline.plan, r->m, r->hw, "recommended plan",
                             &r->waterfall[0]);
    if (r->published >= 0) {
        const struct validate_result *v = &r->validation[r->published];
        struct report_waterfall *w = &r->waterfall[1];
        /* a run on these inputs: this report's model and cluster, with
         * its calibration; the run's stack is in its work already */
        figures_waterfall_of(&v->predicted, r->m, r->hw, v->name, w);
        w->measured = v->measured_step_eq;
        w->measured_from_tflops =
            !(v->measured_step_s > 0) && v->measured_step_eq > 0;
    }
}
