/*
 * plot_roofline: the roofline charts, "roofline-ib" and
 * "roofline-nvlink": every plan that fits as a point (operational
 * intensity over the link, attained TFLOP/s per GPU) under the compute
 * roofs (achievable and datasheet peak) and the link's bandwidth slopes,
 * with the best plan of each family numbered and the published plan
 * circled.
 *
 * May call: plot_labels, plot_format, plot_template, plot_text, report,
 * cost.
 */
#ifndef PROJ_PLOT_ROOFLINE_H
#define PROJ_PLOT_ROOFLINE_H

#include <stdbool.h>

#include "plot_template.h"
#include "plot_text.h"
#include "views.h"

/*
 * Fills the placeholders of templates/roofline-{ib,nvlink}.gp.in into v
 * (TITLE, SUB1, SUB2, XLABEL, YLABEL, NFAM, FAMILIES, HAVE_PUBLISHED,
 * XMIN .. YMAX, LMARGIN .. TMARGIN, ROOFS, ROOF_PLOTS, LABELS) and
 * appends the chart's data file to dat, for the link `which`. Out of
 * memory shows in v and dat (plot_text.nomem).
 */
void plot_roofline_fill(const struct views *r,
                        enum hardware_link which,
                        struct plot_template_vars *v,
                        struct plot_text *dat);

#endif
