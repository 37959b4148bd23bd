/*
 * plot_waterfall: the "waterfall" chart, from the speed of light to the
 * expected step of the recommended plan — its speed of light, one
 * floating bar per effect of the expected step (what switching it on
 * adds, in the order expected.c applies them), and the expected step —
 * and, in a second panel on the same scale, the same for the published
 * run on these inputs with its measured step drawn as a line. The bars
 * are the report's (figures_waterfall); this module lays them out.
 *
 * May call: plot_format, plot_template, plot_text, report, expected,
 * plan, libc.
 */
#ifndef PROJ_PLOT_WATERFALL_H
#define PROJ_PLOT_WATERFALL_H

#include <stdbool.h>

#include "plot_template.h"
#include "plot_text.h"
#include "views.h"

/* Rows of one panel: the speed of light, the effects shown (the most
 * either panel shows, views_waterfall.effects), the expected step (also
 * the y of the top row; the expected step is at y = 1). */
int plot_waterfall_rows(const struct views *r);

/* Whether the chart has anything to show: the recommended plan has an
 * expected step (r->waterfall[0].known). Without it no file is written. */
bool plot_waterfall_wanted(const struct views *r);

/*
 * Fills the placeholders of templates/waterfall.gp.in into v and appends
 * the chart's data file to dat: block 0 the recommended plan, block 1 the
 * published run (a row of zeros when there is none, so `index 1` stays
 * valid for a panel the script skips). Each block has
 * plot_waterfall_rows() rows, top to bottom, "y start end seconds share
 * kind": the bar runs from start to end (s; end < start for an effect
 * that saves time), seconds = end - start, share its part of expected -
 * speed of light (0 for the totals), kind 0 the speed of light (start 0),
 * 1 an effect (start: the end of the row above), 2 the expected step
 * (start 0, end: the expected step). Comment lines name each block's
 * plan ("# plan 0: gpus=2048 tp=1 ...") and the measured step. Needs
 * plot_waterfall_wanted(r).
 */
void plot_waterfall_fill(const struct views *r,
                         struct plot_template_vars *v,
                         struct plot_text *dat);

#endif
