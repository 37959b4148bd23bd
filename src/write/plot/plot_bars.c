/*
 * plot_bars: the two bar charts of the recommended plan and the fastest
 * plan of each family, laid out from the report's bars (figures: which
 * plans, in what order, each segment's seconds, the axes' data extents). The
 * data file has one row per family (y position, then the segments); the script
 * gets the family names as y tick labels, colour swatches beside them and, for
 * the step chart, the line between the families that fit and those that
 * do not. The memory chart draws those that fit and those that do not in
 * two panels, each on its own scale, so a bar is never cut.
 *
 * May call: plot_format, plot_template, plot_text, report, cost, memory,
 * libm, libc.
 */
#include "plot_bars.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "result.h"
#include "plot_format.h"
#include "terms_memory.h"

#define GIB 1073741824.0

/* Colours of the step segments (Paul Tol's "vibrant", colour-blind-safe);
 * families keep their report colour. */
#define COLOR_COMPUTE   "#0077BB"
#define COLOR_IB        "#EE7733"
#define COLOR_NVLINK    "#CC3311"
#define COLOR_HBM       "#EE3377"
#define COLOR_BUBBLE    "#BBBBBB"
#define COLOR_OPTIMIZER "#009988"
#define COLOR_EXPECTED  "#004488" /* Tol's "high-contrast" dark blue */

/* The plot area of the bar charts (screen fractions). */
#define AREA_BOTTOM 0.125
#define AREA_TOP    0.755
#define PANEL_GAP   0.10 /* between the memory chart's two panels */

/* Tick labels, swatches and their object numbers from `object0`, for the
 * bars first..first+n-1 at y = n .. 1, into tics and code. */
static void bar_axis(const struct views *r,
                     size_t first,
                     size_t n,
                     size_t object0,
                     struct plot_text *tics,
                     struct plot_text *code)
{
    size_t i;
    plot_text_printf(tics, "set ytics (");
    for (i = 0; i < n; i++) {
        const struct views_bar *b = &r->bars[first + i];
        const struct ranking_family *f = &r->rank->family[b->family];
        const struct views_family *vf = &r->family[b->family];
        char hex[16], name[64];
        double y = (double)(n - i);
        plot_text_printf(tics, "%s", i ? ", " : "");
        snprintf(name, sizeof name, "%s%s", b->recommended ? "* " : "",
                 f->name);
        plot_text_add_quoted(tics, name);
        plot_text_printf(tics, " %g", y);
        plot_format_color(vf->color, hex, sizeof hex);
        plot_text_printf(
            code,
            "set object %zu rect from graph -0.014, first %g to graph "
            "-0.004, first %g fc rgb '%s' fs solid 1.0 noborder front "
            "noclip\n",
            object0 + i, y - 0.3, y + 0.3, hex);
    }
    plot_text_printf(tics, ")\n");
}

/* " N more famil(y|ies) not shown." appended to text. */
static void omitted(const struct views *r, char *text, size_t size)
{
    size_t len = strlen(text);
    if (r->bars_omitted)
        snprintf(text + len, size - len, " %zu more famil%s not shown.",
                 r->bars_omitted, r->bars_omitted == 1 ? "y" : "ies");
}

void plot_bars_fill_steps(const struct views *r,
                          struct plot_template_vars *v,
                          struct plot_text *dat)
{
    size_t n = r->nbars, nfit = r->nbars_fit, i;
    char text[512], a[32];

    plot_text_printf(
        dat, "# step-breakdown: the recommended plan, then the fastest "
             "plan of each family, fastest first; seconds per step\n"
             "# y, compute, exposed IB, exposed NVLink, exposed HBM, "
             "pipeline bubble, optimizer, step (overlapped), step (serial), "
             "fits (1/0), bound (0 compute, 1 IB, 2 NVLink, 3 HBM), "
             "expected step (0: none)\n");
    for (i = 0; i < n; i++) {
        const struct views_bar *b = &r->bars[i];
        plot_text_printf(dat,
                         "%zu %.12g %.12g %.12g %.12g %.12g %.12g %.12g %.12g "
                         "%d %d %.12g\n",
                         n - i, b->compute, b->exposed[COST_IB],
                         b->exposed[COST_NVLINK], b->exposed[COST_HBM],
                         b->bubble, b->optimizer, b->step, b->serial, b->fits,
                         b->bound, b->expected);
    }
    /* slower bars run off the right edge with their value written there */
    plot_template_set_num(v, "XMAX",
                          n ? plot_format_nice_ceil(r->steps_max * 1.12) : 1);
    plot_template_set_num(v, "NROWS", (double)n);
    bar_axis(r, 0, n, 1, plot_template_var(v, "YTICS"),
             plot_template_var(v, "SWATCHES"));
    if (nfit > 0 && nfit < n)
        plot_text_printf(
            plot_template_var(v, "SWATCHES"),
            "set arrow from graph 0, first %g to graph 1, first %g "
            "nohead dt (8,6) lw 1.5 lc rgb '#555555' front\n",
            (double)(n - nfit) + 0.5, (double)(n - nfit) + 0.5);
    plot_template_set_str(v, "C_COMPUTE", COLOR_COMPUTE);
    plot_template_set_str(v, "C_IB", COLOR_IB);
    plot_template_set_str(v, "C_NVLINK", COLOR_NVLINK);
    plot_template_set_str(v, "C_HBM", COLOR_HBM);
    plot_template_set_str(v, "C_BUBBLE", COLOR_BUBBLE);
    plot_template_set_str(v, "C_OPTIMIZER", COLOR_OPTIMIZER);
    plot_template_set_str(v, "C_EXPECTED", COLOR_EXPECTED);
    plot_template_set_num(v, "EXPECTED", r->in->expected ? 1 : 0);
    plot_format_title(r, "where the step time goes (* the recommended plan)",
                      text, sizeof text);
    plot_template_set_str(v, "TITLE", text);
    if (r->in->expected)
        snprintf(text, sizeof text,
                 "Solid: the speed of light (only the binding link's time "
                 "beyond compute is exposed); hatched: on to the expected "
                 "step; diamond: no overlap.");
    else
        snprintf(text, sizeof text,
                 "Speed of light. Only the binding link's time beyond "
                 "compute is exposed (it overlaps compute). Diamond: the "
                 "step with no overlap.");
    plot_template_set_str(v, "SUB1", text);
    plot_format_num(
        terms_mem_usable(r->in->hw->capacity_bytes, r->rank->headroom_pct) /
            GIB,
        a, sizeof a);
    if (nfit < n)
        snprintf(text, sizeof text,
                 "Below the dashed line no plan of the family fits in %s GiB "
                 "(%g%% of HBM kept free; its fastest plan is shown).",
                 a, r->rank->headroom_pct);
    else
        snprintf(text, sizeof text,
                 "Every family shown has a plan that fits in %s GiB (%g%% of "
                 "HBM kept free).",
                 a, r->rank->headroom_pct);
    omitted(r, text, sizeof text);
    plot_template_set_str(v, "SUB2", text);
    plot_template_set_str(v, "XLABEL",
                          r->in->expected ? "time per step (speed of light, "
                                            "then expected), s"
                                          : "time per step at the speed of "
                                            "light, s");
}

/* One panel's rows (bars first..first+n-1) as a data block. */
static void memory_block(const struct views *r,
                         size_t first,
                         size_t n,
                         struct plot_text *dat)
{
    size_t i;
    for (i = 0; i < n; i++) {
        const struct views_bar *b = &r->bars[first + i];
        const struct memory *m = &b->mem;
        plot_text_printf(
            dat, "%zu %.12g %.12g %.12g %.12g %.12g %.12g %.12g %d\n", n - i,
            m->weights / GIB, m->grads / GIB, m->optimizer / GIB,
            m->activations / GIB, m->other / GIB, m->total / GIB,
            m->capacity / GIB, b->fits);
    }
    if (n == 0) /* keeps `index` valid for a panel the script skips */
        plot_text_printf(dat, "0 0 0 0 0 0 0 0 0\n");
    plot_text_printf(dat, "\n\n");
}

void plot_bars_fill_memory(const struct views *r,
                           struct plot_template_vars *v,
                           struct plot_text *dat)
{
    size_t nfit = r->nbars_fit, nunfit = r->nbars - r->nbars_fit;
    double cap = r->in->hw->capacity_bytes / GIB;
    double usable =
        terms_mem_usable(r->in->hw->capacity_bytes, r->rank->headroom_pct) /
        GIB;
    double area = AREA_TOP - AREA_BOTTOM, gap = nfit && nunfit ? PANEL_GAP : 0;
    double h1 = nunfit == 0 ? area
                : nfit == 0
                    ? 0
                    : (area - gap) * (double)nfit / (double)(nfit + nunfit);
    char text[512], a[32], b[32];

    /* keep the smaller panel readable */
    if (nfit && nunfit && h1 < 0.16)
        h1 = 0.16;
    if (nfit && nunfit && area - gap - h1 < 0.16)
        h1 = area - gap - 0.16;
    plot_text_printf(
        dat, "# memory: per GPU on the heaviest pipeline rank, the "
             "recommended plan, then the fastest plan of each family, GiB; "
             "block 0: those that fit, block 1: "
             "those that do not\n"
             "# y, weights, gradients, optimizer state, activations, other, "
             "total, HBM capacity, fits (1/0)\n");
    memory_block(r, 0, nfit, dat);
    memory_block(r, nfit, nunfit, dat);
    plot_template_set_num(v, "NFIT", (double)nfit);
    plot_template_set_num(v, "NUNFIT", (double)nunfit);
    plot_template_set_num(v, "XMAX",
                          plot_format_nice_ceil(r->memory_fit_max * 1.12));
    plot_template_set_num(v, "XMAX2",
                          nunfit
                              ? plot_format_nice_ceil(r->memory_unfit_max * 1.3)
                              : 1); /* room for "N GiB: does not fit" */
    plot_template_set_num(v, "CAPACITY", cap);
    plot_template_set_num(v, "USABLE", usable);
    plot_template_set_num(v, "TOP1", AREA_TOP);
    plot_template_set_num(v, "BOTTOM1", AREA_TOP - h1);
    plot_template_set_num(v, "TOP2", AREA_TOP - h1 - gap);
    plot_template_set_num(v, "BOTTOM2", AREA_BOTTOM);
    bar_axis(r, 0, nfit, 1, plot_template_var(v, "YTICS"),
             plot_template_var(v, "SWATCHES"));
    bar_axis(r, nfit, nunfit, 1, plot_template_var(v, "YTICS2"),
             plot_template_var(v, "SWATCHES2"));
    plot_format_num(cap, a, sizeof a);
    plot_format_num(usable, b, sizeof b);
    snprintf(text, sizeof text, "HBM %s GiB", a);
    plot_template_set_str(v, "CAP_LABEL", text);
    snprintf(text, sizeof text, "fits: %s GiB (%g%% free)", b,
             r->rank->headroom_pct);
    plot_template_set_str(v, "USABLE_LABEL", text);
    snprintf(text, sizeof text,
             "Do not fit in %s GiB (own scale: each bar whole)", b);
    plot_template_set_str(v, "UNFIT_LABEL", text);
    plot_format_title(r, "memory per GPU (* the recommended plan)", text,
                      sizeof text);
    plot_template_set_str(v, "TITLE", text);
    snprintf(text, sizeof text,
             "Heaviest pipeline rank: weights (ZeRO-3: with the gathered "
             "layers), gradients and optimizer state after ZeRO sharding, "
             "activations in flight, runtime.");
    plot_template_set_str(v, "SUB1", text);
    snprintf(text, sizeof text,
             "A plan fits when it leaves %g%% of HBM free (dashed line). "
             "Families where nothing fits are drawn below, on their own "
             "scale.",
             r->rank->headroom_pct);
    omitted(r, text, sizeof text);
    plot_template_set_str(v, "SUB2", text);
    plot_template_set_str(v, "XLABEL", "memory per GPU, GiB");
    plot_template_set_str(v, "C_WEIGHTS", "#0077BB");
    plot_template_set_str(v, "C_GRADS", "#33BBEE");
    plot_template_set_str(v, "C_OPTIMIZER", "#009988");
    plot_template_set_str(v, "C_ACTIVATIONS", "#EE7733");
    plot_template_set_str(v, "C_OTHER", "#BBBBBB");
}
