/*
 * plot_summary: the summary card (summary.png, .svg, .pdf): one landscape
 * page with the verdict, the recommended plan in words, its expected step,
 * days and cost beside the speed of light, the waterfall of the
 * recommended plan and the roofline over InfiniBand, laid out from the
 * report's headline, waterfall and roofline (figures).
 *
 * May call: plot_format, plot_template, plot_text, report, expected,
 * libc.
 */
#ifndef PROJ_PLOT_SUMMARY_H
#define PROJ_PLOT_SUMMARY_H

#include <stdbool.h>

#include "plot_template.h"
#include "plot_text.h"
#include "views.h"

/* True when the report has a recommended plan to show. */
bool plot_summary_wanted(const struct views *r);

/*
 * Fills the card's placeholders and its data: block 0 the waterfall's
 * rows (kind 0 speed of light, 1 an effect, 2 the expected step; row y;
 * bar start and end in s; the bar's label), block 1 every fitting plan's
 * point over InfiniBand (FLOP per byte, TFLOP/s), block 2 the recommended
 * plan's point.
 */
void plot_summary_fill(const struct views *r,
                       struct plot_template_vars *v,
                       struct plot_text *dat);

#endif
