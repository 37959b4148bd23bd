/*
 * plot_bars: the bar charts of the best plan of each family,
 * "step-breakdown" (where the step time goes: compute, exposed
 * communication, bubble, optimizer; the no-overlap step as a marker)
 * and "memory" (per GPU on the heaviest pipeline rank, against the HBM
 * capacity and the memory a plan may use; those that do not fit in a
 * panel of their own scale). The families are the report's bars
 * (figures: at most VIEWS_BARS_MAX, the baseline kept).
 *
 * May call: plot_format, plot_template, plot_text, report, cost, memory.
 */
#ifndef PROJ_PLOT_BARS_H
#define PROJ_PLOT_BARS_H

#include "plot_template.h"
#include "plot_text.h"
#include "views.h"

/*
 * Fills the placeholders of templates/step-breakdown.gp.in into v and
 * appends the chart's data file to dat (one row per family, fastest
 * first, seconds per step).
 */
void plot_bars_fill_steps(const struct views *r,
                          struct plot_template_vars *v,
                          struct plot_text *dat);

/*
 * Fills the placeholders of templates/memory.gp.in into v and appends
 * the chart's data file to dat (one row per family, GiB per GPU; block 0
 * the families that fit, block 1 those that do not).
 */
void plot_bars_fill_memory(const struct views *r,
                           struct plot_template_vars *v,
                           struct plot_text *dat);

#endif
