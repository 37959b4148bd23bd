/*
 * plot_sensitivity: the "sensitivity-ib" chart: the step time of each
 * family's best fitting plan at each IB bandwidth of the report's grid
 * (log-log), today's bandwidth marked, and ZeRO-3's crossover. A ZeRO-3
 * family with no fitting plan is drawn dashed from its fastest plan,
 * re-timed at each bandwidth.
 *
 * May call: plot_format, plot_template, plot_text, report, cost,
 * hardware.
 */
#ifndef PROJ_PLOT_SENSITIVITY_H
#define PROJ_PLOT_SENSITIVITY_H

#include "plot_template.h"
#include "plot_text.h"
#include "report.h"

/*
 * Fills the placeholders of templates/sensitivity-ib.gp.in into v and
 * appends the chart's data file to dat (one block per family: IB GB/s,
 * step time s, bound).
 */
void plot_sensitivity_fill(const struct report *r,
                           struct plot_template_vars *v,
                           struct plot_text *dat);

#endif
