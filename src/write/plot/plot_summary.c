/*
 * plot_summary: the summary card, laid out from the report (see
 * plot_summary.h).
 *
 * May call: plot_format, plot_template, plot_text, report, expected,
 * libm, libc.
 */
#include "plot_summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "goodput.h"
#include "scale.h"
#include "result.h"
#include "plot_format.h"

/* A verdict line holds about this many bytes at the card's font before
 * it would run off the page; a longer verdict wraps once at a space. */
#define LINE_CHARS  150
#define PLAN_CHARS  100 /* the same for the plan, in bold and larger */
#define RANGE_CHARS 170 /* the range's line, in a smaller font */

bool plot_summary_wanted(const struct views *r)
{
    return r->headline.any;
}

/* "16.1 s per step, 43.7 days, $4.31M" of one cost. */
static void
cost_words(const struct views_cost *c, const char *what, char *buf, size_t n)
{
    char s[32], d[32], m[32];
    views_sig3(c->step_s, s, sizeof s);
    views_sig3(c->days, d, sizeof d);
    views_sig3(c->cost_usd / 1e6, m, sizeof m);
    snprintf(buf, n, "%s: %s s per step, %s days, $%sM for the token budget",
             what, s, d, m);
}

/* text in two placeholders, k1 and k2, cut at the last space before
 * `width` bytes when longer (a space is ASCII: the cut keeps whole
 * characters); the second line is cut at a character boundary by the
 * quoting if it is still too long. */
static void two_lines(const char *text,
                      size_t width,
                      const char *k1,
                      const char *k2,
                      struct plot_template_vars *v)
{
    size_t len = strlen(text), cut = len;
    char first[LINE_CHARS + 1];
    if (width > LINE_CHARS)
        width = LINE_CHARS;
    if (len > width) {
        cut = width;
        while (cut > 0 && text[cut] != ' ')
            cut--;
        if (cut == 0) /* one long word: at a character boundary */
            for (cut = width; cut > 0 && (text[cut] & 0xC0) == 0x80; cut--)
                ;
    }
    memcpy(first, text, cut);
    first[cut] = '\0';
    plot_template_set_str(v, k1, first);
    plot_template_set_str(v, k2, text + cut + (text[cut] == ' '));
}

/* "Wall-clock: 58.0 days (49.5 to 72.7), $45.6M with failures and
 * checkpoints (92.4% effective); energy 32,000 MWh, 13,248 t CO2e": what
 * the hardware file's failure rate and power give (goodput.h); "" when
 * it gives neither. */
static void goodput_line(const struct views *r, struct plot_template_vars *v)
{
    struct goodput_figures f;
    char text[1024] = "", d[32], lo[32], hi[32], c[32], e[32], t[32];
    size_t n = 0;
    goodput_headline(r, &f);
    if (f.g.failures) {
        char range[80] = "";
        views_sig3(f.wall_days, d, sizeof d);
        views_sig3(f.wall_cost / 1e6, c, sizeof c);
        if (f.range) {
            views_sig3(f.wall_lo, lo, sizeof lo);
            views_sig3(f.wall_hi, hi, sizeof hi);
            snprintf(range, sizeof range, " (%s to %s)", lo, hi);
        }
        n = (size_t)snprintf(text, sizeof text,
                             "Wall-clock: %s days%s, $%sM with failures and "
                             "checkpoints (%.1f%% effective training)",
                             d, range, c, 100 * f.g.share);
    }
    if (f.g.energy && n < sizeof text) {
        views_thousands(f.mwh, e, sizeof e);
        n += (size_t)snprintf(text + n, sizeof text - n, "%senergy %s MWh",
                              n ? "; " : "Energy: ", e);
        if (r->in->hw->spec.grid_kg_per_kwh > 0 && n < sizeof text) {
            views_thousands(f.tco2e, t, sizeof t);
            snprintf(text + n, sizeof text - n, ", %s t CO2e", t);
        }
    }
    if (r->scale && r->scale->n > 1) {
        /* several cluster sizes: "N GPUs: D days, $C; 2N: ..." in its
         * place (the detailed size's goodput is on the sheets; no label of
         * its own: one size's card stays as it was) */
        static const char pre[] = "Wall-clock with failures: ";
        memcpy(text, pre, sizeof pre);
        scale_line(r->scale, text + sizeof pre - 1,
                   sizeof text - (sizeof pre - 1));
    }
    plot_template_set_str(v, "GOODPUT", text);
}

/* "Recipe: the model file's own: 2048 x 8192 tokens per step, 15.6T
 * tokens" (issue 37: whose recipe the plans take, never silently a
 * borrowed one). */
static void recipe_line(const struct views *r, struct plot_template_vars *v)
{
    const struct model_spec *s = &r->in->m->spec;
    char text[2048], b[32], q[32];
    size_t n;
    const char *whose = r->in->recipe_default
                            ? "BORROWED default recipe, not the model's own"
                        : r->in->recipe_json ? "the -t training file"
                                             : "the model file's own";
    views_thousands((double)r->headline.plan.plan.gbs, b, sizeof b);
    views_thousands((double)s->seq_len, q, sizeof q);
    n = (size_t)snprintf(text, sizeof text,
                         "Recipe: %s: %s x %s tokens per step, %.1fT tokens",
                         whose, b, q, s->tokens / 1e12);
    if (r->scale && n < sizeof text) {
        /* a deadline's or budget's answer after it, in its few words
         * (whole, the line ran off the card) */
        char answer[1024];
        scale_answer_brief(r->scale, answer, sizeof answer);
        if (answer[0])
            snprintf(text + n, sizeof text - n, ". %s", answer);
    }
    plot_template_set_str(v, "RECIPE", text);
}

/* The card's range line: the step, days and cost ranges, and what the
 * range spans in as many of its words as fit the line (RANGE_CHARS):
 * whole, else up to its first clause's end (";"), else its first
 * phrase (before ":"); the Summary and stdout give them whole. */
static void range_line(const struct views_headline *h,
                       const char *s1,
                       const char *s2,
                       const char *d1,
                       const char *d2,
                       const char *c1,
                       const char *c2,
                       char *text,
                       size_t size)
{
    static const char stops[] = {'\0', ';', ':'};
    size_t k;
    for (k = 0; k < sizeof stops; k++) {
        const char *w = h->range_words;
        const char *end = stops[k] ? strchr(w, stops[k]) : NULL;
        int len = end ? (int)(end - w) : (int)strlen(w);
        int n = snprintf(text, size,
                         "Range: %s to %s s, %s to %s days, $%sM to $%sM "
                         "(%.*s)",
                         s1, s2, d1, d2, c1, c2, len, w);
        if (n >= 0 && (size_t)n <= RANGE_CHARS)
            return;
    }
}

/* The words at the top of the card. */
static void words(const struct views *r, struct plot_template_vars *v)
{
    const struct views_headline *h = &r->headline;
    char text[4800], title[1024], a[32], b[32]; /* text: a range's words */
    plot_format_title(r, "planning summary", title, sizeof title);
    plot_template_set_str(v, "TITLE", title);
    snprintf(text, sizeof text, "%s: %s",
             h->fits ? "Recommended" : "Nothing fits; the fastest", h->words);
    two_lines(text, PLAN_CHARS, "PLAN", "PLAN2", v);
    if (h->has_expected)
        cost_words(&h->expected, "Expected", text, sizeof text);
    else
        snprintf(text, sizeof text,
                 "Expected: not computed (no calibration for this GPU)");
    plot_template_set_str(v, "EXPECTED", text);
    if (h->has_expected && h->has_range) {
        char s1[32], s2[32], d1[32], d2[32], c1[32], c2[32];
        views_sig3(h->expected.step_s * h->range_lo, s1, sizeof s1);
        views_sig3(h->expected.step_s * h->range_hi, s2, sizeof s2);
        views_sig3(h->expected.days * h->range_lo, d1, sizeof d1);
        views_sig3(h->expected.days * h->range_hi, d2, sizeof d2);
        views_sig3(h->expected.cost_usd * h->range_lo / 1e6, c1, sizeof c1);
        views_sig3(h->expected.cost_usd * h->range_hi / 1e6, c2, sizeof c2);
        range_line(h, s1, s2, d1, d2, c1, c2, text, sizeof text);
    } else
        text[0] = '\0';
    plot_template_set_str(v, "RANGE", text);
    /* why this plan over the fastest central one, on a line of its own */
    plot_template_set_str(v, "CHOICE",
                          h->has_expected && h->has_range ? h->choice : "");
    cost_words(&h->sol, "Speed of light (the floor no run beats)", text,
               sizeof text);
    plot_template_set_str(v, "SOL", text);
    two_lines(h->why, LINE_CHARS, "VERDICT1", "VERDICT2", v);
    views_sig3(h->memory_gib, a, sizeof a);
    views_sig3(h->capacity_gib, b, sizeof b);
    snprintf(text, sizeof text,
             "Memory: %s of %s GiB per GPU on its heaviest "
             "pipeline rank (%s).",
             a, b, h->fits ? "fits" : "does not fit");
    plot_template_set_str(v, "MEMORY", text);
    goodput_line(r, v);
    recipe_line(r, v);
}

/* One bar of the card's waterfall, from..to at row y, with its label. */
static void wf_bar(struct plot_text *tics,
                   struct plot_text *dat,
                   const char *label,
                   int y,
                   double from,
                   double to)
{
    char s[32];
    views_sig3(fabs(to - from), s, sizeof s);
    plot_text_printf(tics, ", ");
    plot_text_add_quoted(tics, label);
    plot_text_printf(tics, " %d", y);
    plot_text_printf(dat, "1 %d %.12g %.12g \"%s%s s\"\n", y, from, to,
                     to - from < 0 ? "-" : "+", s);
}

/* The waterfall of the recommended plan: block 0, the y tic labels and
 * the x range. */
static void waterfall(const struct views *r,
                      struct plot_template_vars *v,
                      struct plot_text *dat)
{
    const struct views_waterfall *w = &r->waterfall[0];
    struct plot_text *tics = plot_template_var(v, "WF_YTICS");
    int k, nrows = w->known ? w->effects + 2 + w->rank_step : 0;
    double last = w->sol, top = w->expected;
    char s[32];
    plot_template_set_num(v, "HAVE_WF", w->known);
    plot_template_set_num(v, "NROWS", nrows);
    plot_template_set_str(v, "WF_TITLE",
                          w->known ? "From the speed of light to the "
                                     "expected step (s)"
                                   : "From the speed of light to the "
                                     "expected step");
    plot_text_printf(dat, "# block 0: the recommended plan's waterfall\n"
                          "# kind (0 speed of light, 1 effect, 2 expected), "
                          "y, start s, end s, label\n");
    if (!w->known) {
        plot_template_set_num(v, "WF_XMAX", 1);
        plot_text_printf(dat, "0 1 0 0 \"\"\n\n\n");
        return;
    }
    plot_text_printf(tics, "set ytics nomirror font ',13' (");
    /* the plan's speed of light, then the expected step's rank's own
     * floor where another rank sets the plan's */
    plot_text_add_quoted(tics, "speed of light");
    plot_text_printf(tics, " %d", nrows);
    views_sig3(w->sol, s, sizeof s);
    plot_text_printf(dat, "0 %d 0 %.12g \"%s s\"\n", nrows, w->sol, s);
    if (w->rank_step) {
        char label[64];
        snprintf(label, sizeof label, "rank %ld's own floor", w->rank);
        wf_bar(tics, dat, label, nrows - 1, last, w->rank_sol);
        last = w->rank_sol;
    }
    for (k = 0; k < w->effects; k++) {
        wf_bar(tics, dat, expected_effect_label(k),
               nrows - 1 - w->rank_step - k, last, w->cum[k]);
        last = w->cum[k];
        top = fmax(top, last);
    }
    plot_text_printf(tics, ", ");
    plot_text_add_quoted(tics, "expected step");
    plot_text_printf(tics, " 1)\n");
    views_sig3(w->expected, s, sizeof s);
    plot_text_printf(dat, "2 1 0 %.12g \"%s s\"\n\n\n", w->expected, s);
    plot_template_set_num(v, "WF_XMAX", plot_format_nice_ceil(top * 1.2));
}

/* The roofline over InfiniBand: blocks 1 and 2, its roofs as curves
 * sampled with '+' (the template's nofpe_trap spares them the SIGFPE
 * handler a function plot sets at each sample). */
static void roofline(const struct views *r,
                     struct plot_template_vars *v,
                     struct plot_text *dat)
{
    const struct views_roofline *o = &r->roofline[0];
    struct plot_text *code = plot_template_var(v, "RF_ROOF_PLOTS");
    size_t i;
    plot_template_set_str(v, "RF_TITLE",
                          "Roofline over InfiniBand, speed of light");
    plot_template_set_str(v, "RF_XLABEL",
                          "FLOPs per byte over IB, per GPU per step");
    plot_template_set_num(v, "RF_XMIN", o->xlo);
    plot_template_set_num(v, "RF_XMAX", o->xhi);
    plot_template_set_num(v, "RF_YMIN", o->ylo);
    plot_template_set_num(v, "RF_YMAX", o->yhi_decade);
    for (i = 0; i < o->nroofs; i++) {
        const struct views_roof *f = &o->roof[i];
        plot_text_printf(code,
                         "'+' using 1:($1 >= %.12g ? %.12g : 1/0) with lines "
                         "lw %s dt %s lc rgb '%s' notitle, ",
                         f->ridge, f->tflops, f->peak ? "1.5" : "2.5",
                         f->peak ? "(12,6)" : "1",
                         f->peak ? "#555555" : "#000000");
    }
    if (o->nslopes > 0 && o->nroofs > 0) {
        double s = o->slope_bps[0] / 1e12;
        double top = o->nslopes > 1 ? o->top_achievable : o->roof[0].tflops;
        plot_text_printf(code,
                         "'+' using 1:($1 * %.12g < %.12g ? $1 * %.12g : 1/0) "
                         "with lines lw 2.5 lc rgb '#000000' notitle, ",
                         s, top, s);
    }
    plot_text_printf(dat, "# block 1: every fitting plan over IB (FLOP per "
                          "byte, TFLOP/s)\n");
    for (i = 0; i < r->npoints; i++)
        if (r->points[i].x[0] > 0)
            plot_text_printf(dat, "%.12g %.12g\n", r->points[i].x[0],
                             r->points[i].y);
    plot_text_printf(dat, "\n\n# block 2: the recommended plan\n");
    plot_template_set_num(v, "HAVE_POINT",
                          r->has_recommended_point && r->recommended_x[0] > 0);
    if (r->has_recommended_point && r->recommended_x[0] > 0)
        plot_text_printf(dat, "%.12g %.12g\n", r->recommended_x[0],
                         r->recommended_y);
    else
        plot_text_printf(dat, "NaN NaN\n");
}

void plot_summary_fill(const struct views *r,
                       struct plot_template_vars *v,
                       struct plot_text *dat)
{
    plot_text_printf(dat, "# summary: the summary card's data\n");
    words(r, v);
    waterfall(r, v, dat);
    roofline(r, v, dat);
}
