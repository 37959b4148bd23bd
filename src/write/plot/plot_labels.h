/*
 * plot_labels: where the labels of a log-log chart go, so that none
 * covers another label, a marker or a line, and leader lines do not
 * cross. gnuplot has no placement that avoids overlaps; this module
 * computes it in pixels of the fixed 1600x900 layout every template
 * uses and writes the `set label` / `set arrow` commands.
 *
 * Owns: the pixel <-> data mapping of one plot area, the boxes taken so
 * far, the text width estimate, and the greedy placement. Knows nothing
 * about plans or reports.
 *
 * May call: plot_text, libm, libc.
 */
#ifndef PROJ_PLOT_LABELS_H
#define PROJ_PLOT_LABELS_H

#include <stdbool.h>
#include <stddef.h>

#include "plot_text.h"

/* The canvas of every chart (pixels); templates use the same size. */
#define PLOT_LABELS_CANVAS_W 1600.0
#define PLOT_LABELS_CANVAS_H 900.0
/* Cairo terminals draw a point of font size as 4/3 pixel (96 dpi). */
#define PLOT_LABELS_PX_PER_PT (96.0 / 72.0)
/* Labels (and leaders) one chart may place; boxes taken: twice that and
 * some for markers and lines. Past these, boxes are not recorded. */
#define PLOT_LABELS_MAX   80
#define PLOT_LABELS_BOXES (PLOT_LABELS_MAX * 2 + 16)

/* A rectangle in pixels, y down; a leader line is stored as the segment
 * (x0,y0)-(x1,y1). */
struct plot_box {
    double x0, y0, x1, y1;
};

/* One chart's plot area and what is already drawn on it. */
struct plot_labels {
    double l, r, b, t;         /* plot area, screen fractions 0..1 */
    double lx0, lx1, ly0, ly1; /* log10 of the axis ranges */
    struct plot_box taken[PLOT_LABELS_BOXES];
    bool text[PLOT_LABELS_BOXES]; /* taken[i] holds a label's text */
    size_t ntaken;
    struct plot_box leader[PLOT_LABELS_MAX];
    size_t nleaders;
};

/*
 * Empties L for a plot area with margins l, r, b, t (screen fractions,
 * the values the template gets as @LMARGIN@ ...; l < r, b < t) and
 * logarithmic axes from xlo to xhi and ylo to yhi (> 0, lo < hi).
 */
void plot_labels_init(struct plot_labels *L,
                      double l,
                      double r,
                      double b,
                      double t,
                      double xlo,
                      double xhi,
                      double ylo,
                      double yhi);

/* Pixel column of data x, pixel row (from the top) of data y. */
double plot_labels_px_x(const struct plot_labels *L, double x);
double plot_labels_px_y(const struct plot_labels *L, double y);

/* Data x at pixel column px, data y at pixel row py. */
double plot_labels_data_x(const struct plot_labels *L, double px);
double plot_labels_data_y(const struct plot_labels *L, double py);

/* Width of UTF-8 text in pixels at font size pt: an estimate from DejaVu
 * Sans advances by kind of character (narrow .,:'il() 0.33 em; capitals,
 * +=@mw and non-ASCII 0.72 em; the rest 0.58 em). */
double plot_labels_text_px(const char *text, double pt);

/* Marks box b (not text) as covered. */
void plot_labels_take(struct plot_labels *L, const struct plot_box *b);

/* Marks a w x h pixel box centred on pixel (px, py) as covered: a marker. */
void plot_labels_take_point(struct plot_labels *L,
                            double px,
                            double py,
                            double w,
                            double h);

/* Marks a horizontal line at data y from data x to the right edge of the
 * plot area (a roof) as covered. */
void plot_labels_take_hline(struct plot_labels *L, double x, double y);

/*
 * Places a label (one line, or two when line2 is not NULL) for the
 * point (x, y), in data coordinates, at font size pt, and appends its
 * `set label` commands (and a leader `set arrow` when the label sits
 * more than 14 pixels away) to code. Candidates lie on rings around the
 * point (16 directions, distances from 8 to 310 pixels); a candidate
 * must stay inside the plot area and off every taken box; the nearest
 * wins, with a penalty of 400 for a leader that crosses a label or
 * another leader and 60 for a direction more than 60 degrees from
 * `prefer` (radians from the +x axis, y up; NAN: none). Returns false
 * (and appends nothing) when no spot is free.
 */
bool plot_labels_place(struct plot_labels *L,
                       struct plot_text *code,
                       const char *text,
                       const char *line2,
                       double x,
                       double y,
                       double pt,
                       double prefer);

/*
 * Places the label of a roof at data height `roof`: right-aligned at
 * the right end of the plot area, above the line or else below it,
 * moved left by half its width at a time (up to 5 times) until clear,
 * at font size 13 in colour `color` ("#RRGGBB"). Appends its `set label`
 * to code; appends nothing when no spot is free.
 */
void plot_labels_place_roof(struct plot_labels *L,
                            struct plot_text *code,
                            const char *text,
                            double roof,
                            const char *color);

#endif
