/*
 * figures_waterfall: the waterfalls from the speed of light to the
 * expected step that the report shows (the `waterfall` chart, the
 * Summary's table): the recommended plan's and, when the report has one,
 * the published run's on these inputs with its measured step beside it.
 * Part of the derive-figures stage (figures_views calls it once the
 * headline is known); the steps it shows were evaluated before it
 * (struct replay: rank's for the recommended plan, validate's for the
 * published run), so it times nothing.
 *
 * Calls: report.
 */
#ifndef PROJ_FIGURES_WATERFALL_H
#define PROJ_FIGURES_WATERFALL_H

#include "result.h"
#include "views.h"

/*
 * Fills w from plan c and its replay x (replay_fill): the plan's speed
 * of light (c's, the one every other view prints), the step down to the
 * expected step's rank's own floor where another rank sets the plan's,
 * each effect's bar, the cumulative step, each bar's share of the
 * gap and the largest effect. name is copied (truncated to fit).
 * w->known is false, and nothing else set, when c has no expected step
 * (no calibration or no stack). measured is left 0.
 */
void figures_waterfall_of(const struct cost_result *c,
                          const struct replay *x,
                          const char *name,
                          struct views_waterfall *w);

/*
 * Fills r->waterfall: [0] from the headline's recommended plan, [1] from
 * the published run on these inputs (r->published, its prediction with
 * its own stack) with its measured step, or the measured TFLOP/s per GPU
 * as a step when it published no step. Either is left unknown when its
 * plan has no expected step; [1] also when the report has no published
 * run. Call after the headline is filled.
 */
void figures_waterfall(struct views *r);

#endif
