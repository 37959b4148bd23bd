/*
 * plot_format: numbers and words as the charts show them to people:
 * thousands separators, SI prefixes, round axis ends, colours, and the
 * title every chart starts with.
 *
 * Owns: number formats and axis ends; it draws nothing and chooses no
 * data.
 *
 * May call: report (names in the title), libm, libc.
 */
#ifndef PROJ_PLOT_FORMAT_H
#define PROJ_PLOT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "views.h"

/* x with thousands separators at 100 and above ("12,870", "-1,500"),
 * three significant digits below ("1.5", "0.0123"); "%.3g" when not
 * finite. Truncated to fit size. */
void plot_format_num(double x, char *buf, size_t size);

/* x in three significant digits with an SI prefix from k to P:
 * 12870 -> "12.9k", 2.5e6 -> "2.5M", 512 -> "512". */
void plot_format_si(double x, char *buf, size_t size);

/* The power of ten at or below x (x > 0): 350 -> 100. */
double plot_format_pow10_floor(double x);

/* The power of ten at or above x (x > 0): 350 -> 1000. */
double plot_format_pow10_ceil(double x);

/* A round upper end of a linear axis at or above x (x > 0): the first of
 * 1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10 times 10^k that reaches x. */
double plot_format_nice_ceil(double x);

/* Widens [*lo, *hi] to hold v (start from lo = INFINITY, hi = 0 or
 * -INFINITY). */
void plot_format_grow_range(double v, double *lo, double *hi);

/* "#RRGGBB" of a 0xRRGGBB colour. */
void plot_format_color(uint32_t rgb, char *buf, size_t size);

/* gnuplot's point type of marker m (views_family.marker), open; the
 * filled one is this + 1. */
int plot_format_point(int marker);

/* gnuplot's dash type of dash d (views_family.dash): 1 solid, 2
 * dashed, 3 dotted, 4 dash-dot. */
int plot_format_dash(int dash);

/* The title's font size: 22 points, smaller for a title of more than 96
 * characters so that it still fits across 1600 pixels (at least 11, in
 * half points). */
double plot_format_title_pt(const char *title);

/* The font size (points) of a subtitle line: 15, smaller for a line over
 * about 150 characters so that none runs off the chart, at least 10. */
double plot_format_sub_pt(const char *line);

/* A chart's title: "<model> on <gpus> x <gpu>: <what>" (a real
 * multiplication sign, UTF-8), <gpus> the size the report details
 * (views_gpus: with --gpus, the recommended plan's). */
void plot_format_title(const struct views *r,
                       const char *what,
                       char *buf,
                       size_t size);

#endif
