/*
 * plot_sensitivity: the "sensitivity-ib" and "sensitivity-nvlink"
 * charts: the step time of each family's best fitting plan at each
 * bandwidth of the report's grid (log-log), today's bandwidth marked,
 * and the baseline: its crossover line where it turns compute-bound on
 * this link, else a line saying what binds instead. A baseline with no
 * fitting plan is drawn dashed from its fastest plan, re-timed (figures).
 *
 * May call: plot_format, plot_template, plot_text, report, cost.
 */
#ifndef PROJ_PLOT_SENSITIVITY_H
#define PROJ_PLOT_SENSITIVITY_H

#include <stdbool.h>

#include "plot_template.h"
#include "plot_text.h"
#include "views.h"

/*
 * Fills the placeholders of templates/sensitivity-ib.gp.in (which:
 * HARDWARE_LINK_IB) or sensitivity-nvlink.gp.in into v and appends the chart's
 * data file to dat (one block per family: GB/s, step time s, bound).
 */
void plot_sensitivity_fill(const struct views *r,
                           enum hardware_link which,
                           struct plot_template_vars *v,
                           struct plot_text *dat);

#endif
