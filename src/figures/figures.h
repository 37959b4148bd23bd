/*
 * figures: the derive-figures stage. From the ranked report (rank.c) it
 * computes what the writers show, once, so that no writer computes it
 * again: each family's best plan re-evaluated with its collectives under
 * both communication models, the families in order, the validation runs'
 * predictions with their place in the ranking, and (figures_views) every
 * view: the Plans sheet's rows, the fastest and the recommended plan and
 * the ties, the headline and the sentence on why the baseline (FSDP)
 * loses, the families' colours, crossovers and sentences, the roofline
 * points, roofs and axis ranges, the families each chart shows, the
 * sensitivity curves with the baseline re-timed, the bars, and the
 * waterfalls from the speed of light to the expected step
 * (figures_waterfall).
 *
 * figures.c holds these entry points and the validation runs'
 * predictions; figures_headline.c the Plans sheet's rows, the headline
 * and the sentences; figures_charts.c the colours, crossovers and charts
 * (their shared functions: figures_internal.h, private to this module).
 *
 * Calls: cost, terms, plan, sweep, rank (rank_before), figures_waterfall,
 * validation (its runs and inputs, already read). figures_verdict is the
 * verdict sentence `eval` prints too.
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
 * communication model, `other`) with its collectives and
 * r->families_by_step; a plan fits when it leaves r->headroom_pct of HBM
 * free. ctx and other are prepared here for the plans they evaluate.
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

/*
 * The Plans sheet's rows of r after rank_run (as figures_views makes
 * them), the fastest fitting plan (r->sheet_best) and the recommended
 * one (r->sheet_recommended: among the fitting plans within r->tie_pct of
 * the fastest, the one with the most free memory), for callers that need
 * no other view (compare). Allocates r->sheet. STATUS_NOMEM in d.
 */
enum status figures_recommend(struct report *r, struct diag *d);

/*
 * Derives every view of r (report.h, "Figures") after
 * figures_families() and figures_validations(): the Plans sheet's rows
 * (r->plans_sheet fitting plans and every family's best; every kept plan
 * with r->all_plans), the recommended plan and its headline, the
 * baseline (r->sweep's [report] baseline), colours, crossovers,
 * sentences, rooflines, native chart picks, bars, sensitivity charts and
 * the waterfalls of the recommended plan and the published run.
 * other (the other communication model) is prepared here for every
 * layout of r->sweep and re-evaluates the fitting kept plans to name the
 * fastest under that model. Allocates r->sheet, r->points and
 * r->roof_pick (report_free releases them). Returns STATUS_OK or
 * STATUS_NOMEM.
 */
enum status
figures_views(struct report *r, struct cost_ctx *other, struct diag *d);

/*
 * One sentence saying why the plan is or is not compute-bound, e.g.
 * "IB-bound: 9.4 s of IB traffic per second of compute". The verdict of
 * `eval`, the Summary and the charts.
 */
void figures_verdict(const struct cost_result *r, char *buf, size_t size);

#endif
