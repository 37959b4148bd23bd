/*
 * plot_sensitivity: the step time of each family's best fitting plan
 * against the InfiniBand or the NVLink bandwidth, laid out from the
 * report's sensitivity charts (figures: the families drawn, the
 * baseline's curve re-timed when none of it fits, the data range, and
 * what becomes of the baseline on this link: the crossover line only
 * where it really turns compute-bound, else why not).
 *
 * May call: plot_format, plot_template, plot_text, report, cost, libm,
 * libc.
 */
#include "plot_sensitivity.h"

#include <assert.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "result.h"
#include "plot_format.h"

/* The FAMILIES placeholder: gnuplot arrays of each drawn family's name
 * (with " (fastest plan; does not fit)" for the baseline re-timed),
 * colour, open marker (the filled one is + 1), dash type (a dashed
 * (10,6) line for the baseline re-timed, which no fitting family has),
 * and NFAM. */
static void family_arrays(const struct views *r,
                          const struct views_sens_chart *c,
                          struct plot_template_vars *v)
{
    struct plot_text *code = plot_template_var(v, "FAMILIES");
    size_t i, n = c->nfamilies;
    plot_template_set_num(v, "NFAM", (double)n);
    plot_text_printf(code,
                     "array fam_name[%zu]\narray fam_color[%zu]\narray "
                     "fam_dash[%zu]\narray fam_pt[%zu]\narray fam_dt[%zu]\n",
                     n ? n : 1, n ? n : 1, n ? n : 1, n ? n : 1, n ? n : 1);
    if (n == 0)
        plot_text_printf(code, "fam_name[1] = ''; fam_color[1] = '#000000'; "
                               "fam_dash[1] = 0; fam_pt[1] = 6; "
                               "fam_dt[1] = 1\n");
    for (i = 0; i < n; i++) {
        const struct ranking_family *f = &r->rank->family[c->family[i]];
        const struct views_family *vf = &r->family[c->family[i]];
        char name[96], hex[16];
        diag_snprintf(name, sizeof name, "%s%s", f->name,
                      f->sens_unfit ? " (fastest plan; does not fit)" : "");
        plot_format_color(vf->color, hex, sizeof hex);
        plot_text_printf(code, "fam_name[%zu] = ", i + 1);
        plot_text_add_quoted(code, name);
        plot_text_printf(code, "; fam_color[%zu] = ", i + 1);
        plot_text_add_quoted(code, hex);
        plot_text_printf(code,
                         "; fam_dash[%zu] = %d; fam_pt[%zu] = %d; "
                         "fam_dt[%zu] = %d\n",
                         i + 1, f->sens_unfit, i + 1,
                         plot_format_point(vf->marker), i + 1,
                         plot_format_dash(vf->dash));
    }
}

/* Where the graph's right edge is, and the room the direct labels take
 * (screen fractions and points; the template's margins). */
#define GRAPH_TOP    0.795
#define GRAPH_BOTTOM 0.125
#define LABEL_X      0.735 /* the labels' left edge, right of the graph */
#define LABEL_GAP                                         \
    0.034 /* graph fraction between two labels' centres:  \
             a 13-point line (17 px) of the 603 px graph, \
             and a little air */

/*
 * The KEY placeholder. Up to KEY_MAX families a key right of the graph;
 * past it (a key of 7 or more entries asks the reader to match colours)
 * each line is named at its right end: the labels stand right of the
 * graph in the order of the lines' last points, spread apart by
 * LABEL_GAP (pushed up, then down from the top when they run over), each
 * with its marker and a thin leader from the line's last point.
 */
#define KEY_MAX 6
static void direct_labels(const struct views *r,
                          const struct views_sens_chart *c,
                          enum hardware_link which,
                          double ylo,
                          double yhi,
                          struct plot_template_vars *v)
{
    const bool ib = which == HARDWARE_LINK_IB;
    struct plot_text *code = plot_template_var(v, "KEY");
    /* a chart draws each family at most once, and a ranking has one
     * family per family key at most */
    size_t n = c->nfamilies, i, j, order[RANKING_FAMILY_KEYS];
    double lastx[RANKING_FAMILY_KEYS], lasty[RANKING_FAMILY_KEYS];
    double pos[RANKING_FAMILY_KEYS];
    assert(n <= RANKING_FAMILY_KEYS);
    if (n <= KEY_MAX) {
        plot_text_printf(code,
                         "set key at screen 0.74, screen %.3f left top "
                         "vertical Left reverse samplen 2.5 spacing 1.15 "
                         "font ',14'\nset key title 'best plan of each "
                         "family' font ',14' left\n",
                         GRAPH_TOP);
        return;
    }
    plot_text_printf(code, "unset key\n");
    for (i = 0; i < n; i++) {
        const struct ranking_family *f = &r->rank->family[c->family[i]];
        const double *st = ib ? f->sens_ib_step : f->sens_nv_step;
        lastx[i] = lasty[i] = 0;
        for (j = 0; j < c->n; j++)
            if (st[j] > 0) {
                lastx[i] = c->gbps[j];
                lasty[i] = st[j];
            }
        pos[i] = lasty[i] > 0 ? log(lasty[i] / ylo) / log(yhi / ylo) : 0;
        order[i] = i;
    }
    for (i = 1; i < n; i++) /* insertion sort by the last point's height */
        for (j = i; j > 0 && pos[order[j]] < pos[order[j - 1]]; j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    for (i = 1; i < n; i++) /* push up */
        if (pos[order[i]] < pos[order[i - 1]] + LABEL_GAP)
            pos[order[i]] = pos[order[i - 1]] + LABEL_GAP;
    if (n > 0 && pos[order[n - 1]] > 1)
        pos[order[n - 1]] = 1;
    for (i = n - 1; i > 0; i--) /* then down from the top */
        if (pos[order[i - 1]] > pos[order[i]] - LABEL_GAP)
            pos[order[i - 1]] = pos[order[i]] - LABEL_GAP;
    for (i = 0; i < n; i++) {
        const struct ranking_family *f = &r->rank->family[c->family[i]];
        const struct views_family *vf = &r->family[c->family[i]];
        char name[96], hex[16];
        if (lasty[i] <= 0)
            continue;
        snprintf(name, sizeof name, "%s%s", f->name,
                 f->sens_unfit ? " (fastest plan; does not fit)" : "");
        plot_format_color(vf->color, hex, sizeof hex);
        plot_text_printf(code,
                         "set arrow from %.12g, %.12g to screen %.3f, graph "
                         "%.4f nohead lw 1 lc rgb '%s' back\n",
                         lastx[i], lasty[i], LABEL_X - 0.004, pos[i], hex);
        plot_text_printf(code, "set label ");
        plot_text_add_quoted(code, name);
        plot_text_printf(code,
                         " at screen %.3f, graph %.4f left font ',13' "
                         "textcolor rgb '%s' point pt %d ps 1.2 lc rgb '%s' "
                         "offset 1.3,0 front\n",
                         LABEL_X, pos[i], hex,
                         f->sens_unfit ? 6 : plot_format_point(vf->marker) + 1,
                         hex);
    }
}

/* `set ytics (...)` at 1, 2, 5 x 10^k inside [lo, hi]: a log axis that
 * spans less than two decades still gets a few labelled ticks. */
static void log_tics(struct plot_text *code, char axis, double lo, double hi)
{
    static const double mant[] = {1, 2, 5};
    double p;
    bool first = true;
    size_t i;
    plot_text_printf(code, "set %ctics (", axis);
    for (p = plot_format_pow10_floor(lo); p <= hi; p *= 10)
        for (i = 0; i < 3; i++) {
            double t = mant[i] * p;
            if (t < lo || t > hi)
                continue;
            plot_text_printf(code, "%s'%g' %.12g", first ? "" : ", ", t, t);
            first = false;
        }
    plot_text_printf(code, ")\n");
}

/* The data: each family's best fitting plan at each bandwidth, one
 * block per family (GB/s, step time s, bound). */
static void family_lines(const struct views *r,
                         const struct views_sens_chart *c,
                         enum hardware_link which,
                         struct plot_text *dat)
{
    const bool ib = which == HARDWARE_LINK_IB;
    size_t i, k;
    plot_text_printf(dat,
                     "# sensitivity-%s: step time of each family's best "
                     "fitting plan at each %s bandwidth, one block per "
                     "family (index i-1 is fam_name[i])\n"
                     "# %s GB/s, step time s, bound (0 compute, 1 IB, "
                     "2 NVLink, 3 HBM)\n",
                     ib ? "ib" : "nvlink", c->link, c->link);
    for (k = 0; k < c->nfamilies; k++) {
        const struct ranking_family *f = &r->rank->family[c->family[k]];
        const double *st = ib ? f->sens_ib_step : f->sens_nv_step;
        const int *bd = ib ? f->sens_ib_bound : f->sens_nv_bound;
        plot_text_printf(dat, "# block %zu\n", k);
        for (i = 0; i < c->n; i++)
            if (st[i] > 0)
                plot_text_printf(dat, "%.12g %.12g %d\n", c->gbps[i], st[i],
                                 bd[i]);
        plot_text_printf(dat, "\n\n");
    }
}

/* The baseline on this link: a line where it turns compute-bound (with
 * its bandwidth at the foot). */
static void baseline_mark(const struct views *r,
                          const struct views_sens_chart *c,
                          struct plot_template_vars *v)
{
    struct plot_text *code = plot_template_var(v, "MARKS");
    char text[512], a[32];
    if (c->mark_gbps > 0 && r->baseline.family >= 0) {
        char color[16];
        plot_format_color(r->family[r->baseline.family].color, color,
                          sizeof color);
        plot_text_printf(code,
                         "set arrow from %.12g, graph 0 to %.12g, graph 1 "
                         "nohead lw 3 dt (10,6) lc rgb '%s' back\n",
                         c->mark_gbps, c->mark_gbps, color);
        plot_format_num(c->mark_gbps, a, sizeof a);
        diag_snprintf(text, sizeof text, "%s: %s GB/s", r->baseline.name, a);
        plot_text_printf(code, "set label ");
        plot_text_add_quoted(code, text);
        plot_text_printf(code,
                         " at %.12g, graph 0.03 left offset 0.6,0 "
                         "front boxed font 'Sans Bold,13'\n",
                         c->mark_gbps);
    }
}

/* The title, the subtitles (the third says what binds the baseline) and
 * the axis labels. */
static void sens_words(const struct views *r,
                       const struct views_sens_chart *c,
                       const char *link,
                       struct plot_template_vars *v)
{
    char text[512], title[600];
    snprintf(text, sizeof text, "%s%s%s", c->line1, c->line2[0] ? ": " : "",
             c->line2);
    plot_template_set_str(v, "SUB3", text);
    snprintf(text, sizeof text, "step time against %s bandwidth", link);
    plot_format_title(r, text, title, sizeof title);
    plot_template_set_str(v, "TITLE", title);
    snprintf(text, sizeof text,
             "Speed of light. The best fitting plan of each family at each "
             "bandwidth (the plan may change along a line); everything else "
             "stays as today.");
    plot_template_set_str(v, "SUB1", text);
    snprintf(text, sizeof text,
             "Filled dots: compute-bound there; open: bound by a link or "
             "HBM. Flat lines do not need more %s.",
             c->link);
    plot_template_set_str(v, "SUB2", text);
    snprintf(text, sizeof text, "%s bandwidth per GPU, GB/s (log scale)", link);
    plot_template_set_str(v, "XLABEL", text);
    plot_template_set_str(v, "YLABEL",
                          "time per step at the speed of light, s (log scale)");
}

void plot_sensitivity_fill(const struct views *r,
                           enum hardware_link which,
                           struct plot_template_vars *v,
                           struct plot_text *dat)
{
    const bool ib = which == HARDWARE_LINK_IB;
    const struct views_sens_chart *c = &r->sens[ib ? 0 : 1];
    struct plot_text *tics = plot_template_var(v, "XTICS");
    double x0 = c->n ? c->gbps[0] : 1, x1 = c->n ? c->gbps[c->n - 1] : 10;
    double ylo = c->ylo / 1.25, yhi = c->yhi * 1.25;
    size_t i, step = c->n > 8 ? 2 : 1;
    char text[512], a[32];

    family_lines(r, c, which, dat);
    family_arrays(r, c, v);
    direct_labels(r, c, which, ylo, yhi, v);
    plot_template_set_num(v, "XMIN", x0 / 1.25);
    plot_template_set_num(v, "XMAX", x1 * 1.25);
    plot_template_set_num(v, "YMIN", ylo);
    plot_template_set_num(v, "YMAX", yhi);
    log_tics(plot_template_var(v, "YTICS"), 'y', ylo, yhi);
    plot_template_set_num(v, "TODAY", c->today);
    plot_text_printf(tics, "set xtics (");
    for (i = 0; i < c->n; i += step)
        plot_text_printf(tics, "%s'%g' %.12g", i ? ", " : "", c->gbps[i],
                         c->gbps[i]);
    plot_text_printf(tics, ")\n");
    plot_format_num(c->today, a, sizeof a);
    snprintf(text, sizeof text, "today: %s GB/s", a);
    plot_template_set_str(v, "TODAY_LABEL", text);

    baseline_mark(r, c, v);
    sens_words(r, c, ib ? "InfiniBand" : "NVLink", v);
}
