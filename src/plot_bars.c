/*
 * plot_bars: the two bar charts of the best plan of each family. The
 * data file has one row per family (y position, then the segments); the
 * script gets the family names as y tick labels, colour swatches beside
 * them and the line between the families that fit and those that do not.
 *
 * May call: plot_format, plot_template, plot_text, report, cost, memory,
 * libm, libc.
 */
#include "plot_bars.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "memory.h"
#include "plot_format.h"

#define GIB 1073741824.0

/* Colours of the step segments (Paul Tol's "vibrant", colour-blind-safe);
 * families keep report_family_color(). */
#define COLOR_COMPUTE   "#0077BB"
#define COLOR_IB        "#EE7733"
#define COLOR_NVLINK    "#CC3311"
#define COLOR_HBM       "#EE3377"
#define COLOR_BUBBLE    "#BBBBBB"
#define COLOR_OPTIMIZER "#009988"

/*
 * The families drawn as bars, in the report's order (fitting first, then
 * by step time): all of them up to PLOT_BARS_MAX; past that, the fitting
 * ones first, and "ZeRO-3" (pure FSDP, the usual reference) kept when
 * present. Returns the count; *nfit of them fit, *omitted are left out.
 */
static size_t
bar_families(const struct report *r, long *rows, size_t *nfit, size_t *omitted)
{
    long fsdp = report_family_index(r, "ZeRO-3");
    size_t k, n = 0, have = 0, room = PLOT_BARS_MAX;
    bool fsdp_in = false;
    *nfit = 0;
    for (k = 0; k < r->nfamilies; k++)
        if (r->family[r->families_by_step[k]].has_best)
            have++;
    if (fsdp >= 0 && have > PLOT_BARS_MAX) {
        size_t pos = 0;
        for (k = 0; k < r->nfamilies && r->families_by_step[k] != fsdp; k++)
            if (r->family[r->families_by_step[k]].has_best)
                pos++;
        if (pos >= PLOT_BARS_MAX)
            room--; /* keep a place for it at the end */
    }
    for (k = 0; k < r->nfamilies; k++) {
        long f = r->families_by_step[k];
        if (!r->family[f].has_best)
            continue;
        if (n < room || (f == fsdp && !fsdp_in && n < PLOT_BARS_MAX)) {
            rows[n++] = f;
            if (f == fsdp)
                fsdp_in = true;
            if (r->family[f].best.fits)
                (*nfit)++;
        }
    }
    *omitted = have - n;
    return n;
}

/* Family names as y tick labels, colour swatches beside them, and the
 * line between the families that fit and those that do not. */
static void bar_axis(const struct report *r,
                     const long *rows,
                     size_t n,
                     size_t nfit,
                     struct plot_template_vars *v)
{
    struct plot_text *tics = plot_template_var(v, "YTICS"),
                     *code = plot_template_var(v, "SWATCHES");
    size_t i;
    plot_template_set_num(v, "NROWS", (double)n);
    plot_text_printf(tics, "set ytics (");
    for (i = 0; i < n; i++) {
        char hex[16];
        double y = (double)(n - i);
        plot_text_printf(tics, "%s", i ? ", " : "");
        plot_text_add_quoted(tics, r->family[rows[i]].name);
        plot_text_printf(tics, " %g", y);
        plot_format_color(report_family_color(r, (size_t)rows[i]), hex,
                          sizeof hex);
        plot_text_printf(
            code,
            "set object %zu rect from graph -0.014, first %g to graph "
            "-0.004, first %g fc rgb '%s' fs solid 1.0 noborder front "
            "noclip\n",
            i + 1, y - 0.3, y + 0.3, hex);
    }
    plot_text_printf(tics, ")\n");
    if (nfit > 0 && nfit < n)
        plot_text_printf(
            code,
            "set arrow from graph 0, first %g to graph 1, first %g "
            "nohead dt (8,6) lw 1.5 lc rgb '#555555' front\n",
            (double)(n - nfit) + 0.5, (double)(n - nfit) + 0.5);
    plot_template_set_num(v, "SEPARATOR",
                          nfit > 0 && nfit < n ? (double)(n - nfit) + 0.5 : 0);
}

void plot_bars_fill_steps(const struct report *r,
                          struct plot_template_vars *v,
                          struct plot_text *dat)
{
    long rows[REPORT_FAMILIES_MAX];
    size_t nfit, omitted, n = bar_families(r, rows, &nfit, &omitted), i;
    double fastest = INFINITY, xmax = 0;
    char text[512], a[32];

    plot_text_printf(
        dat, "# step-breakdown: the best plan of each family, fastest "
             "first; seconds per step\n"
             "# y, compute, exposed IB, exposed NVLink, exposed HBM, "
             "pipeline bubble, optimizer, step (overlapped), step (serial), "
             "fits (1/0), bound (0 compute, 1 IB, 2 NVLink, 3 HBM)\n");
    for (i = 0; i < n; i++) {
        const struct cost_times *t = &r->family[rows[i]].best.t;
        double exposed = t->core - t->compute;
        plot_text_printf(dat,
                         "%zu %.12g %.12g %.12g %.12g %.12g %.12g %.12g %.12g "
                         "%d %d\n",
                         n - i, t->compute, t->bound == COST_IB ? exposed : 0,
                         t->bound == COST_NVLINK ? exposed : 0,
                         t->bound == COST_HBM ? exposed : 0, t->bubble,
                         t->optimizer, t->step, t->step_serial,
                         r->family[rows[i]].best.fits, t->bound);
        if (t->step < fastest)
            fastest = t->step;
    }
    /* A linear axis that shows the competitive families whole (step within
     * 2.5x of the fastest, with their serial marker); slower bars run off
     * the right edge with their value written there. */
    for (i = 0; i < n; i++) {
        const struct cost_times *t = &r->family[rows[i]].best.t;
        if (t->step <= 2.5 * fastest) {
            if (t->step_serial > xmax)
                xmax = t->step_serial;
            if (t->step > xmax)
                xmax = t->step;
        }
    }
    plot_template_set_num(v, "XMAX",
                          n ? plot_format_nice_ceil(xmax * 1.12) : 1);
    bar_axis(r, rows, n, nfit, v);
    plot_template_set_str(v, "C_COMPUTE", COLOR_COMPUTE);
    plot_template_set_str(v, "C_IB", COLOR_IB);
    plot_template_set_str(v, "C_NVLINK", COLOR_NVLINK);
    plot_template_set_str(v, "C_HBM", COLOR_HBM);
    plot_template_set_str(v, "C_BUBBLE", COLOR_BUBBLE);
    plot_template_set_str(v, "C_OPTIMIZER", COLOR_OPTIMIZER);
    plot_format_title(r, "where the step time goes (best plan of each family)",
                      text, sizeof text);
    plot_template_set_str(v, "TITLE", text);
    plot_format_num(r->hw->spec.hbm_gib, a, sizeof a);
    snprintf(text, sizeof text,
             "Communication overlaps compute: only the part of the binding "
             "link's time beyond compute is exposed. Diamond: the step with "
             "no overlap at all.");
    plot_template_set_str(v, "SUB1", text);
    if (nfit < n)
        snprintf(text, sizeof text,
                 "Below the dashed line no plan of the family fits in %s GiB "
                 "(its fastest plan is shown).%s",
                 a, omitted ? "" : "");
    else
        snprintf(text, sizeof text,
                 "Every family shown has a plan that fits in %s GiB.", a);
    if (omitted) {
        size_t len = strlen(text);
        snprintf(text + len, sizeof text - len, " %zu more famil%s not shown.",
                 omitted, omitted == 1 ? "y" : "ies");
    }
    plot_template_set_str(v, "SUB2", text);
    plot_template_set_str(v, "XLABEL", "time per step, s");
}

void plot_bars_fill_memory(const struct report *r,
                           struct plot_template_vars *v,
                           struct plot_text *dat)
{
    long rows[REPORT_FAMILIES_MAX];
    size_t nfit, omitted, n = bar_families(r, rows, &nfit, &omitted), i;
    double cap = r->hw->capacity_bytes / GIB, xmax = cap * 1.3;
    char text[512], a[32];

    plot_text_printf(
        dat, "# memory: per GPU on the heaviest pipeline rank, the best "
             "plan of each family, GiB\n"
             "# y, weights, gradients, optimizer state, activations, other, "
             "total, HBM capacity, fits (1/0)\n");
    for (i = 0; i < n; i++) {
        const struct cost_result *b = &r->family[rows[i]].best;
        const struct memory *m = &b->mem;
        plot_text_printf(
            dat, "%zu %.12g %.12g %.12g %.12g %.12g %.12g %.12g %d\n", n - i,
            m->weights / GIB, m->grads / GIB, m->optimizer / GIB,
            m->activations / GIB, m->other / GIB, m->total / GIB,
            m->capacity / GIB, b->fits);
        if (b->fits && m->total / GIB * 1.1 > xmax)
            xmax = m->total / GIB * 1.1;
    }
    plot_template_set_num(v, "XMAX", plot_format_nice_ceil(xmax));
    plot_template_set_num(v, "CAPACITY", cap);
    bar_axis(r, rows, n, nfit, v);
    plot_format_num(cap, a, sizeof a);
    snprintf(text, sizeof text, "HBM %s GiB", a);
    plot_template_set_str(v, "CAP_LABEL", text);
    plot_format_title(r, "memory per GPU (best plan of each family)", text,
                      sizeof text);
    plot_template_set_str(v, "TITLE", text);
    snprintf(text, sizeof text,
             "Bytes on the heaviest pipeline rank: weights, gradients and "
             "optimizer state after ZeRO sharding, activations in flight, "
             "runtime overhead.");
    plot_template_set_str(v, "SUB1", text);
    snprintf(text, sizeof text,
             "Red totals do not fit in %s GiB; bars past the right edge are "
             "cut.%s",
             a, omitted ? "" : "");
    if (omitted) {
        size_t len = strlen(text);
        snprintf(text + len, sizeof text - len, " %zu more famil%s not shown.",
                 omitted, omitted == 1 ? "y" : "ies");
    }
    plot_template_set_str(v, "SUB2", text);
    plot_template_set_str(v, "XLABEL", "memory per GPU, GiB");
    plot_template_set_str(v, "C_WEIGHTS", "#0077BB");
    plot_template_set_str(v, "C_GRADS", "#33BBEE");
    plot_template_set_str(v, "C_OPTIMIZER", "#009988");
    plot_template_set_str(v, "C_ACTIVATIONS", "#EE7733");
    plot_template_set_str(v, "C_OTHER", "#BBBBBB");
}
