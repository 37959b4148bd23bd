/*
 * figures_internal: what figures.c, figures_headline.c and
 * figures_charts.c share; private to the figures module (no other module
 * includes it). figures_views() calls these in the order below, each
 * reading what the earlier ones fixed in r: the Plans sheet's rows, the
 * colours, the crossovers, the sentences and the headline, then the
 * charts. Each fills fields of r (report.h, "Figures") and nothing else.
 *
 * Calls: cost, terms, plan, sweep, rank (rank_before), eval_out
 * (figures_verdict), report.
 */
#ifndef PROJ_FIGURES_INTERNAL_H
#define PROJ_FIGURES_INTERNAL_H

#include <stddef.h>

#include "result.h"
#include "diag.h"
#include "views.h"

/* ---- figures_headline.c ---- */

/* Each family's view (r->family, one per r->rank->family, allocated here
 * with no colour yet and no row on the Plans sheet; views_free releases
 * it). Returns STATUS_OK or STATUS_NOMEM. */
enum status figures_families(struct views *r, struct diag *d);

/*
 * The Plans sheet's rows (r->sheet, allocated here; views_free releases
 * it), each family's row on it, the fastest fitting plan and, among the
 * plans within r->rank->tie_pct of it, the one with the most memory free
 * (r->sheet_best, r->sheet_recommended, r->headline.ties). Returns
 * STATUS_OK or STATUS_NOMEM.
 */
enum status figures_sheet_rows(struct views *r, struct diag *d);

/* Each family's sentence (why) and short plan text, from its best plan
 * under both communication models. */
void figures_family_words(struct views *r);

/*
 * The headline of the recommended plan (after figures_sheet_rows): its
 * costs at the speed of light and expected, verdict, the difference from
 * the published runs, the ties, and the sentence on the fastest plan
 * under the other communication model (r->rank->other_best, from rank).
 */
void figures_headline(struct views *r);

/* Why not the baseline, in one sentence with numbers; also the
 * baseline's fit, bounds, slowdown and lightest plan (r->baseline). */
void figures_baseline_sentence(struct views *r);

/* The notes under the headline: the published plan's rank and the
 * sweep's counts. */
void figures_notes(struct views *r);

/* ---- figures_charts.c ---- */

/* Each family's colour, marker and dash: no two fitting families differ
 * by hue alone; grey where nothing fits, black for the baseline. */
void figures_colors(struct views *r);

/*
 * The charts (after figures_baseline_sentence): the baseline's and the
 * published run's roofline points, every fitting kept plan's point
 * (r->points), the native charts' picks (r->roof_pick), both rooflines,
 * the bars and both sensitivity charts. Allocates r->points and
 * r->roof_pick (views_free releases them). Returns STATUS_OK or
 * STATUS_NOMEM.
 */
enum status figures_charts(struct views *r, struct diag *d);

#endif
