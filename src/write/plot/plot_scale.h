/*
 * plot_scale: the "scale" chart, how many GPUs — for each cluster size
 * of a report of several (scale.h: each size ranked on its own), its
 * recommended plan's days for the token budget (compute and wall-clock,
 * each with the range of the expected step as error bars), its
 * wall-clock cost with its range, and its scaling efficiency against the
 * smallest size with the threshold (report.scale_efficiency) drawn and
 * the first size under it marked. Three panels over one x axis of
 * cluster sizes (log scale). The figures are scale.c's; this module lays
 * them out.
 *
 * May call: plot_format, plot_template, plot_text, scale, goodput,
 * views, libm, libc.
 */
#ifndef PROJ_PLOT_SCALE_H
#define PROJ_PLOT_SCALE_H

#include <stdbool.h>

#include "plot_template.h"
#include "plot_text.h"
#include "views.h"

/* Whether the report has the chart: more than one cluster size (the
 * Scale sheet's rule, r->scale->n > 1) with a plan that fits at one of
 * them. Without it no file is written. */
bool plot_scale_wanted(const struct views *r);

/*
 * Fills the placeholders of templates/scale.gp.in into v and appends the
 * chart's data file to dat: a row per size whose recommended plan fits,
 * smallest first, "gpus compute compute_lo compute_hi wall wall_lo
 * wall_hi cost cost_lo cost_hi efficiency_pct first_under": days
 * (compute: at the expected step, else the speed of light; wall-clock:
 * with failures and checkpoints, goodput.h), lo/hi the range's ends (the
 * value itself where the size has no range), cost in USD over the
 * wall-clock days, efficiency in percent (tokens/s per GPU over the
 * smallest size's), first_under 1 on the first size under the threshold
 * (else 0). A size with no fitting plan is a comment line. Needs
 * plot_scale_wanted(r).
 */
void plot_scale_fill(const struct views *r,
                     struct plot_template_vars *v,
                     struct plot_text *dat);

#endif
