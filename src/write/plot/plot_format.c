/*
 * plot_format: fixed number formats for chart text, so the same report
 * gives the same script byte for byte.
 *
 * May call: report, libm, libc.
 */
#include "plot_format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "views.h"

void plot_format_num(double x, char *buf, size_t size)
{
    if (size == 0)
        return;
    if (!isfinite(x) || fabs(x) < 100)
        snprintf(buf, size, "%.3g", x);
    else
        views_thousands(x, buf, size);
}

void plot_format_si(double x, char *buf, size_t size)
{
    static const char prefix[] = " kMGTP";
    size_t p = 0;
    /* 999.5 rounds to "1e+03" in %.3g: move to the next prefix first. */
    while (fabs(x) >= 999.5 && p + 1 < sizeof prefix - 1) {
        x /= 1000;
        p++;
    }
    if (p == 0)
        snprintf(buf, size, "%.3g", x);
    else
        snprintf(buf, size, "%.3g%c", x, prefix[p]);
}

double plot_format_pow10_floor(double x)
{
    return pow(10, floor(log10(x)));
}

double plot_format_pow10_ceil(double x)
{
    return pow(10, ceil(log10(x)));
}

double plot_format_nice_ceil(double x)
{
    static const double steps[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
    double p = plot_format_pow10_floor(x);
    size_t i;
    for (i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * p >= x)
            return steps[i] * p;
    return 10 * p;
}

void plot_format_grow_range(double v, double *lo, double *hi)
{
    if (v < *lo)
        *lo = v;
    if (v > *hi)
        *hi = v;
}

void plot_format_color(uint32_t rgb, char *buf, size_t size)
{
    snprintf(buf, size, "#%06X", (unsigned)(rgb & 0xFFFFFFu));
}

int plot_format_point(int marker)
{
    /* circle, square, triangle up, triangle down, diamond, pentagon */
    static const int open[VIEWS_MARKERS] = {6, 4, 8, 10, 12, 14};
    return marker >= 0 && marker < VIEWS_MARKERS ? open[marker] : 6;
}

int plot_format_dash(int dash)
{
    return dash >= 0 && dash < VIEWS_DASHES ? dash + 1 : 1;
}

/* At 22 points Sans averages 16.1 px a character (measured on gnuplot's
 * pngcairo terminal: the 83-character title "DeepSeek-V3 on 2048 x NVIDIA
 * H800 SXM5 80GB: step time against InfiniBand bandwidth" spans 1339 px),
 * so the 1552 px from the title's left edge (screen 0.015) to the right
 * (0.985) hold 96. */
#define TITLE_PT    22.0
#define TITLE_CHARS 96.0

/* A subtitle line: 15 pt fits about 150 characters across the 1600-pixel
 * charts (measured on the rendered PNGs: 9.2 to 10 px a character at
 * 15 pt, 1570 px from the left margin to the right edge). */
#define SUB_PT    15.0
#define SUB_CHARS 150.0

/* pt for text that fits `chars` characters at pt, proportionally smaller
 * for a longer one (UTF-8 characters counted once), in half points, at
 * least `least`. */
static double fit_pt(const char *text, double pt, double chars, double least)
{
    double n = 0;
    const unsigned char *p = (const unsigned char *)text;
    for (; *p; p++)
        n += (*p & 0xC0) != 0x80;
    if (n > chars)
        pt = pt * chars / n;
    return pt < least ? least : floor(pt * 2) / 2;
}

double plot_format_title_pt(const char *title)
{
    return fit_pt(title, TITLE_PT, TITLE_CHARS, 11);
}

double plot_format_sub_pt(const char *line)
{
    return fit_pt(line, SUB_PT, SUB_CHARS, 10);
}

void plot_format_title(const struct views *r,
                       const char *what,
                       char *buf,
                       size_t size)
{
    diag_snprintf(buf, size, "%s on %ld \xC3\x97 %s: %s", r->in->m->spec.name,
                  views_gpus(r), r->in->hw->spec.gpu_name, what);
}
