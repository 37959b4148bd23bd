/*
 * figures: the derive-figures stage. From what rank handed over (the
 * kept rows with their times, each family's best plan under both
 * communication models with its collectives and crossovers, the
 * families in order, the fastest plan under the other model, the
 * validation runs' predictions with their place in the ranking:
 * rank_finish) it derives what the writers show, once, and evaluates
 * nothing: (figures_views) the Plans sheet's rows, the fastest and the
 * recommended plan and the ties, the headline and the sentence on why
 * the baseline (FSDP) loses, the families' colours and sentences, the
 * roofline points, roofs and axis ranges, the families each chart shows,
 * the sensitivity curves, the bars, and the waterfalls from the speed of
 * light to the expected step (figures_waterfall).
 *
 * figures.c holds these entry points; figures_headline.c the Plans
 * sheet's rows, the headline and the sentences; figures_charts.c the
 * colours and charts (their shared functions: figures_internal.h,
 * private to this module).
 *
 * Calls: cost (labels, the ranking step), terms (memory terms), plan,
 * sweep, rank (rank_before), figures_waterfall. figures_verdict is the
 * verdict sentence `eval` prints too.
 */
#ifndef PROJ_FIGURES_H
#define PROJ_FIGURES_H

#include <stddef.h>

#include "diag.h"
#include "ranking.h"
#include "report_inputs.h"
#include "result.h"
#include "views.h"

/*
 * The Plans sheet's rows of ranking `rank` after rank_run (as
 * figures_views makes them), the fastest fitting plan (v->sheet_best) and
 * the recommended one (v->sheet_recommended: among the fitting plans
 * within rank->tie_pct of the fastest, the one with the most free
 * memory), for callers that need no other view (compare). v is set
 * anew (what it held is not freed: pass it zeroed or released) and
 * borrows in and rank. Allocates v->sheet and v->family (views_free
 * releases them). STATUS_NOMEM in d.
 */
enum status figures_recommend(const struct report_inputs *in,
                              const struct ranking *rank,
                              struct views *v,
                              struct diag *d);

/*
 * Derives every view (views.h) of ranking `rank` on inputs `in` into v,
 * set anew (what it held is not freed: pass it zeroed or released),
 * after rank_finish() and rank_finish_validations(), from what
 * they carry: the Plans sheet's rows (rank->plans_sheet fitting plans and
 * every family's best; every kept plan with in->all_plans), the
 * recommended plan and its headline, the baseline (in->sweep's [report]
 * baseline), colours, crossovers, sentences, rooflines, native chart
 * picks, bars, sensitivity charts and the waterfalls of the recommended
 * plan and the published run. v borrows in and rank (v->in, v->rank:
 * the writers read them through v). Allocates v's arrays and every
 * sentence, each to fit (views_free releases them). Returns STATUS_OK or
 * STATUS_NOMEM.
 */
enum status figures_views(const struct report_inputs *in,
                          const struct ranking *rank,
                          struct views *v,
                          struct diag *d);

/*
 * One sentence saying why the plan is or is not compute-bound, e.g.
 * "IB-bound: 9.4 s of IB traffic per second of compute". The verdict of
 * `eval`, the Summary and the charts.
 */
void figures_verdict(const struct cost_result *r, char *buf, size_t size);

#endif
