/*
 * figures_waterfall: the waterfalls of the report (see
 * figures_waterfall.h).
 */
#include "figures_waterfall.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void figures_waterfall_of(const struct cost_result *c,
                          const struct replay *x,
                          const char *name,
                          struct views_waterfall *w)
{
    double last, gap;
    int k;
    memset(w, 0, sizeof *w);
    if (!x->known)
        return;
    w->known = true;
    w->plan = c->plan;
    w->effects = x->effects;
    diag_snprintf(w->name, sizeof w->name, "%s", name);
    /* the waterfall starts from the plan's speed of light; where another
     * rank sets it, the expected step's rank's own floor is a step */
    w->rank_step = x->rank != x->floor_rank && x->sol != c->t.step;
    w->sol = w->rank_step ? c->t.step : x->sol;
    w->rank_sol = x->sol;
    last = w->rank_sol;
    for (k = 0; k < EXPECTED_EFFECTS; k++) {
        w->add[k] = x->step[k] - last;
        w->cum[k] = x->step[k];
        last = x->step[k];
        if (w->add[k] > w->add[w->largest])
            w->largest = k;
    }
    w->expected = x->step[EXPECTED_EFFECTS - 1];
    memcpy(w->phases, x->phases, sizeof w->phases);
    w->rank = x->rank;
    w->floor_rank = x->floor_rank;
    gap = w->expected - w->sol;
    for (k = 0; k < EXPECTED_EFFECTS; k++)
        w->share[k] = fabs(gap) > 0 ? w->add[k] / gap : 0;
    w->rank_share = fabs(gap) > 0 ? (w->rank_sol - w->sol) / gap : 0;
}

void figures_waterfall(struct views *r)
{
    memset(r->waterfall, 0, sizeof r->waterfall);
    /* the recommended plan's replay: rank evaluated every candidate
     * (rank_finish_replays) */
    if (r->headline.any && r->sheet[r->sheet_recommended] < r->rank->nreplays)
        figures_waterfall_of(&r->headline.plan,
                             &r->rank->replays[r->sheet[r->sheet_recommended]],
                             "recommended plan", &r->waterfall[0]);
    if (r->published >= 0) {
        const struct validate_result *v = &r->rank->validation[r->published];
        struct views_waterfall *w = &r->waterfall[1];
        /* a run on these inputs: this report's model and cluster, with
         * its calibration; the run's stack is in its work already */
        figures_waterfall_of(&v->predicted, &v->replay, v->name, w);
        w->measured = v->measured_step_eq;
        w->measured_from_tflops =
            !(v->measured_step_s > 0) && v->measured_step_eq > 0;
    }
}
