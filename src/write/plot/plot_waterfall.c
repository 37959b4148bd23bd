/*
 * plot_waterfall: the waterfall chart laid out from the report's
 * waterfalls (figures_waterfall). The data file has one block per panel,
 * a row per bar; the script gets the row labels as y tick labels, the
 * panels' places, the shared x range and the sentences. Both panels use
 * the same x scale, so the two plans' bars compare by length.
 *
 * May call: plot_format, plot_template, plot_text, report, expected,
 * plan, libm, libc.
 */
#include "plot_waterfall.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "result.h"
#include "plan.h"
#include "plot_format.h"

/* Paul Tol's "vibrant" colours (colour-blind-safe), as in the other bar
 * charts: the floor light, the answer strong, effects that add time
 * orange, effects that save time teal. */
#define COLOR_SOL      "#33BBEE"
#define COLOR_ADD      "#EE7733"
#define COLOR_SAVE     "#009988"
#define COLOR_EXPECTED "#0077BB"
#define COLOR_MEASURED "#000000"

/* The panels (screen fractions): one across the width, or two side by
 * side on the same scale with the row labels left of the first. */
#define AREA_LEFT  0.215
#define AREA_RIGHT 0.975
#define PANEL_GAP  0.035

#define NAME_SHOWN 38 /* bytes of a run's name in a panel's heading */

bool plot_waterfall_wanted(const struct views *r)
{
    return r->waterfall[0].known;
}

/* One panel's rows, top to bottom, as a data block. */
static void block(const struct views_waterfall *w,
                  int nrows,
                  bool rank_row,
                  struct plot_text *dat)
{
    double last = w->sol;
    int k, y = nrows - 1;
    plot_text_printf(dat, "%d 0 %.12g %.12g 0 0\n", nrows, w->sol, w->sol);
    if (rank_row) { /* the expected step's rank's own floor (or no step) */
        double to = w->rank_step ? w->rank_sol : w->sol;
        plot_text_printf(dat, "%d %.12g %.12g %.12g %.12g 1\n", y--, last, to,
                         to - w->sol, w->rank_step ? w->rank_share : 0);
        last = to;
    }
    for (k = 0; k < nrows - 2 - rank_row; k++) {
        plot_text_printf(dat, "%d %.12g %.12g %.12g %.12g 1\n", y--, last,
                         w->cum[k], w->add[k], w->share[k]);
        last = w->cum[k];
    }
    plot_text_printf(dat, "1 0 %.12g %.12g 0 2\n\n\n", w->expected,
                     w->expected);
}

/* name cut to NAME_SHOWN bytes at a character boundary, with "...". */
static void shorten(const char *name, char buf[NAME_SHOWN + 4])
{
    size_t n = strlen(name), cut = NAME_SHOWN;
    if (n <= NAME_SHOWN) {
        memcpy(buf, name, n + 1);
        return;
    }
    cut = diag_utf8_cut(name, cut); /* not inside a UTF-8 sequence */
    memcpy(buf, name, cut);
    memcpy(buf + cut, "...", 4);
}

/* The plan in PLAN syntax without what the title says (the GPUs) and the
 * dimensions left at 1 that need no saying (cp, vpp), to fit a line. */
static void compact(const struct plan *p, char *buf, size_t size)
{
    char cp[32] = "", vpp[32] = "";
    if (p->cp > 1)
        snprintf(cp, sizeof cp, " cp=%ld", p->cp);
    if (p->vpp > 1)
        snprintf(vpp, sizeof vpp, " vpp=%ld", p->vpp);
    snprintf(buf, size,
             "tp=%ld pp=%ld ep=%ld%s zero=%ld schedule=%s%s precision=%s "
             "recompute=%s mbs=%ld gbs=%ld%s",
             p->tp, p->pp, p->ep, cp, p->zero, plan_schedule_str(p->schedule),
             vpp, plan_precision_str(p->precision),
             plan_recompute_str(p->recompute), p->mbs, p->gbs,
             p->no_sp ? " sp=0" : "");
}

/* Whether a panel has the step to its expected step's rank's own floor
 * (then both have the row, to keep the rows aligned). */
static bool rank_row(const struct views_waterfall *w)
{
    return w[0].rank_step || (w[1].known && w[1].rank_step);
}

/* The row labels: the speed of light, the expected step's rank's own
 * floor where it differs, the effects, the expected step. */
static void ytics(struct plot_text *t, int nrows, bool rank)
{
    int k, y = nrows - 1;
    plot_text_printf(t, "set ytics (");
    plot_text_add_quoted(t, "speed of light");
    plot_text_printf(t, " %d", nrows);
    if (rank) {
        plot_text_printf(t, ", ");
        plot_text_add_quoted(t, "critical rank's own floor");
        plot_text_printf(t, " %d", y--);
    }
    for (k = 0; k < nrows - 2 - rank; k++) {
        plot_text_printf(t, ", ");
        plot_text_add_quoted(t, expected_effect_label(k));
        plot_text_printf(t, " %d", y--);
    }
    plot_text_printf(t, ", ");
    plot_text_add_quoted(t, "expected step");
    plot_text_printf(t, " 1)\n");
}

/* The widest point any bar or the measured line reaches (s). */
static double reach(const struct views_waterfall *w, size_t n)
{
    double hi = 0;
    size_t i;
    int k;
    for (i = 0; i < n; i++) {
        hi = fmax(hi, fmax(w[i].sol, w[i].expected));
        hi = fmax(hi, w[i].measured);
        for (k = 0; k < w[i].effects; k++)
            hi = fmax(hi, w[i].cum[k]);
    }
    return hi > 0 ? hi : 1;
}

/* Bars that save time (drawn in their own colour and keyed only then). */
static int savings(const struct views_waterfall *w, size_t n)
{
    size_t i;
    int k, count = 0;
    for (i = 0; i < n; i++) {
        count += w[i].rank_step && w[i].rank_sol < w[i].sol;
        for (k = 0; k < w[i].effects; k++)
            count += w[i].add[k] < 0;
    }
    return count;
}

/* The sentences above the chart. */
static void
sentences(const struct views *r, bool two, struct plot_template_vars *v)
{
    const struct views_waterfall *w = &r->waterfall[0], *p = &r->waterfall[1];
    char text[640], what[256], plan[256], name[NAME_SHOWN + 4];
    double gap = w->expected - w->sol;

    snprintf(what, sizeof what,
             "expected step %.2f s, %.2f\xC3\x97 the speed of light",
             w->expected, w->expected / w->sol);
    plot_format_title(r, what, text, sizeof text);
    plot_template_set_str(v, "TITLE", text);
    compact(&w->plan, plan, sizeof plan);
    snprintf(text, sizeof text, "%s recommended plan: %s.",
             two ? "Left, the" : "The", plan);
    plot_template_set_str(v, "SUB1", text);
    if (two) {
        compact(&p->plan, plan, sizeof plan);
        snprintf(text, sizeof text, "Right, the published run's plan: %s.",
                 plan);
    } else {
        snprintf(text, sizeof text,
                 "No published run on these inputs to compare with (the "
                 "Validation sheet has runs on other inputs).");
    }
    plot_template_set_str(v, "SUB2", text);
    snprintf(text, sizeof text,
             "A bar: what one effect adds, with those above it on. Largest "
             "here: %s, %+.2f s, %.0f%% of the gap.",
             expected_effect_label(w->largest), w->add[w->largest],
             100 * (gap != 0 ? w->add[w->largest] / gap : 0));
    plot_template_set_str(v, "SUB3", text);
    snprintf(text, sizeof text, "Recommended plan (%s)",
             r->headline.plan.family);
    plot_template_set_str(v, "PANEL1", text);
    shorten(two ? p->name : "", name);
    diag_snprintf(text, sizeof text, "Published run: %s", name);
    plot_template_set_str(v, "PANEL2", two ? text : "");
    if (two && p->measured > 0)
        snprintf(text, sizeof text, "measured %.2f s%s (expected %+.0f%%)",
                 p->measured, p->measured_from_tflops ? " (from TFLOP/s)" : "",
                 100 * (p->expected / p->measured - 1));
    else
        text[0] = '\0';
    plot_template_set_str(v, "MEASURED_LABEL", text);
}

int plot_waterfall_rows(const struct views *r)
{
    const struct views_waterfall *w = r->waterfall;
    int n = w[0].effects;
    if (w[1].known && w[1].effects > n)
        n = w[1].effects;
    return n + 2 + rank_row(w);
}

void plot_waterfall_fill(const struct views *r,
                         struct plot_template_vars *v,
                         struct plot_text *dat)
{
    const struct views_waterfall *w = r->waterfall;
    int nrows = plot_waterfall_rows(r);
    bool two = w[1].known;
    size_t n = two ? 2 : 1;
    double width = AREA_RIGHT - AREA_LEFT;
    double panel = two ? (width - PANEL_GAP) / 2 : width;
    char plan[256];

    plan_format(&w[0].plan, plan, sizeof plan);
    plot_text_printf(dat,
                     "# waterfall: from the speed of light to the expected "
                     "step, seconds per step\n"
                     "# plan 0: %s\n",
                     plan);
    if (two) {
        plan_format(&w[1].plan, plan, sizeof plan);
        plot_text_printf(dat,
                         "# plan 1: %s (the published run; measured "
                         "%.12g s)\n",
                         plan, w[1].measured);
    }
    plot_text_printf(dat,
                     "# block 0: the recommended plan; block 1: the "
                     "published run on these inputs (zeros: none)\n"
                     "# y, start, end, seconds (end - start), share of "
                     "expected - speed of light, kind (0 speed of light, 1 "
                     "effect, 2 expected step)\n");
    block(&w[0], nrows, rank_row(w), dat);
    if (two)
        block(&w[1], nrows, rank_row(w), dat);
    else
        plot_text_printf(dat, "0 0 0 0 0 0\n");
    plot_template_set_num(v, "NPANELS", (double)n);
    /* room right of the longest bar for its value */
    plot_template_set_num(v, "XMAX", plot_format_nice_ceil(reach(w, n) * 1.3));
    plot_template_set_num(v, "NROWS", nrows);
    plot_template_set_num(v, "NSAVE", savings(w, n));
    plot_template_set_num(v, "MEASURED", two ? w[1].measured : 0);
    plot_template_set_num(v, "L1", AREA_LEFT);
    plot_template_set_num(v, "R1", AREA_LEFT + panel);
    plot_template_set_num(v, "L2", AREA_RIGHT - panel);
    plot_template_set_num(v, "R2", AREA_RIGHT);
    ytics(plot_template_var(v, "YTICS"), nrows, rank_row(w));
    sentences(r, two, v);
    plot_template_set_str(v, "XLABEL", "time per step, s");
    plot_template_set_str(v, "C_SOL", COLOR_SOL);
    plot_template_set_str(v, "C_ADD", COLOR_ADD);
    plot_template_set_str(v, "C_SAVE", COLOR_SAVE);
    plot_template_set_str(v, "C_EXPECTED", COLOR_EXPECTED);
    plot_template_set_str(v, "C_MEASURED", COLOR_MEASURED);
}
