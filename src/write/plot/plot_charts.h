/*
 * plot_charts: the charts of a report as files: for chart c, its
 * data file (numbers only, fixed formats) and its gnuplot script, made
 * from templates/<name>.gp.in with every @PLACEHOLDER@ filled. Running
 * gnuplot on them is plot_run's business; which files a report has is
 * plot_out's.
 *
 * Owns: the list of charts (names, order, which module fills each), the
 * placeholders every script has (FOOTER, with the date of the inputs the
 * chart shows; PNG, SVG, PDF, DATA: output
 * paths relative to the directory gnuplot runs in, starting with "./"),
 * and writing the two files.
 *
 * May call: plot_roofline, plot_bars, plot_sensitivity, plot_waterfall,
 * plot_template, plot_text, report, diag, libc.
 */
#ifndef PROJ_PLOT_CHARTS_H
#define PROJ_PLOT_CHARTS_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "views.h"

/* The charts: the rows of plot_charts.c's table (a static assertion
 * holds the two equal). */
#define PLOT_CHARTS 9

/* Name of chart c (< PLOT_CHARTS), also its files' base name, in the
 * order of plot_charts.c's rows ("roofline-ib", "roofline-nvlink", ...,
 * "summary", the one-page card); "" past the last. */
const char *plot_charts_name(size_t c);

/* Whether report r has chart c: every chart but "waterfall", which needs
 * the recommended plan's expected step (a calibration and a stack),
 * "summary", which needs a recommended plan, and "scale", which needs
 * several cluster sizes (--gpus). A chart r does not have gets
 * no file at all. */
bool plot_charts_wanted(const struct views *r, size_t c);

/*
 * Writes chart c of r (one r has: plot_charts_wanted): its data at data_path
 * and its script at script_path, from the template tdir/<name>.gp.in. Each file
 * is written straight to its path (created or truncated, never through a
 * symbolic link, no temporary name): the caller writes into a directory of its
 * own and publishes it whole. Returns STATUS_IO ("path: cannot write:
 * reason", or a template that cannot be read), STATUS_PARSE for an
 * unknown placeholder in the template ("tpath:LINE: unknown placeholder
 * @NAME@"), STATUS_NOMEM.
 */
enum status plot_charts_write(const struct views *r,
                              size_t c,
                              const char *tdir,
                              const char *script_path,
                              const char *data_path,
                              struct diag *d);

#endif
