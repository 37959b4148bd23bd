/*
 * plot_roofline: the two roofline charts (DESIGN.md §6), laid out from
 * the report's roofline views (figures: the points, one block per family;
 * the roofs, slopes and axis ranges; which families are labelled). The
 * data file has one block per family of the plans that fit (intensity
 * over the link, attained TFLOP/s), drawn translucent in the family's
 * colour; then the best plan of each labelled family; then the
 * baseline's best plan when none of it fits. The script gets the roofs
 * and slopes as plot commands and every label already placed
 * (plot_labels), since only here is known what lies where in pixels.
 *
 * May call: plot_labels, plot_format, plot_template, plot_text, report,
 * cost, libm, libc.
 */
#define _GNU_SOURCE /* M_PI */
#include "plot_roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "result.h"
#include "plot_format.h"
#include "plot_labels.h"
#include "terms_memory.h"

#define GIB 1073741824.0

/* The labelled families' numbers, the roofs', the published plan's and
 * the baseline's labels: the label table must hold them all. */
_Static_assert(VIEWS_LABELLED + 16 <= PLOT_LABELS_MAX,
               "plot_labels cannot hold the roofline's labels");

/* Alpha of the plans' dots ('#AARRGGBB', AA the transparency): dense
 * clouds of plans show their density, none hides another family. */
#define DOT_ALPHA 0xA0u

/* Title, subtitles and axis labels: what the chart shows and how to
 * read it, with the counts it drew. */
static void roofline_text(const struct views *r,
                          const struct views_roofline *o,
                          enum hardware_link which,
                          struct plot_template_vars *v)
{
    const bool ib = which == HARDWARE_LINK_IB;
    const struct hardware *hw = r->in->hw;
    char text[512], title[1024], a[32], b[32], c[32];

    snprintf(text, sizeof text, "roofline over %s, speed of light",
             ib ? "InfiniBand (inter-node)" : "NVLink (intra-node)");
    plot_format_title(r, text, title, sizeof title);
    plot_template_set_str(v, "TITLE", title);
    plot_format_num((double)o->npoints, a, sizeof a);
    plot_format_num((double)r->rank->valid, b, sizeof b);
    plot_format_num(
        terms_mem_usable(hw->spec.hbm_gib * GIB, r->rank->headroom_pct) / GIB,
        c, sizeof c);
    snprintf(text, sizeof text,
             "Each dot is a plan that fits in %s GiB (%s of %s valid "
             "plans%s). Numbered: the best plan of the %d fastest families.",
             c, a, b, o->nobytes ? "; those with traffic on this link" : "",
             VIEWS_LABELLED);
    plot_template_set_str(v, "SUB1", text);
    plot_format_num(hw->compute_derate, a, sizeof a);
    snprintf(text, sizeof text,
             "Left of a ridge: %s-bound; right of it, compute can hide the "
             "%s traffic the stack overlaps. Solid roofs: achievable "
             "(measured GEMM%s%s%s); dashed: datasheet peak.",
             o->link, o->link, hw->compute_derate < 1 ? " at a " : "",
             hw->compute_derate < 1 ? a : "",
             hw->compute_derate < 1 ? " clock derate" : "");
    plot_template_set_str(v, "SUB2", text);
    snprintf(text, sizeof text,
             "operational intensity over %s: FLOPs per byte, per GPU per step",
             o->link);
    plot_template_set_str(v, "XLABEL", text);
    /* one line along the plot's height (about 55 characters at 17 pt) */
    plot_template_set_str(v, "YLABEL",
                          "TFLOP/s per GPU at the speed of light "
                          "(FLOPs / step)");
}

/* The families' key: colour, translucent colour, marker (filled for FP8
 * plans, open for BF16), "1  ZeRO-1+TP+PP+EP  7.23 s" with the step the
 * families are ordered by (the expected step where the report has one,
 * else the speed of light), and the key's title saying which. */
static void family_key(const struct views *r, struct plot_template_vars *v)
{
    struct plot_text *keys = plot_template_var(v, "FAMILIES");
    size_t i, n = r->nblocks;
    char text[160], a[32];
    plot_template_set_num(v, "NFAM", (double)n);
    /* the key is ordered by the step plans rank by, and shows it */
    plot_template_set_str(v, "KEY_TITLE",
                          r->in->expected
                              ? "plans that fit, by family (expected step)"
                              : "plans that fit, by family (speed-of-light "
                                "step)");
    plot_text_printf(keys,
                     "array fam_color[%zu]\narray fam_dot[%zu]\narray "
                     "fam_key[%zu]\narray fam_pt[%zu]\n",
                     n ? n : 1, n ? n : 1, n ? n : 1, n ? n : 1);
    if (n == 0) /* gnuplot evaluates a loop's body once even when it
                 * runs zero times: give it something to read */
        plot_text_printf(keys, "fam_color[1] = '#000000'; fam_dot[1] = "
                               "'#000000'; fam_key[1] = ''; fam_pt[1] = 6\n");
    for (i = 0; i < n; i++) {
        const struct views_block *b = &r->blocks[i];
        const struct ranking_family *f = &r->rank->family[b->family];
        const struct views_family *vf = &r->family[b->family];
        diag_snprintf(text, sizeof text, "%ld  %s  %.2f s", b->number, f->name,
                      cost_rank_step(&f->best));
        plot_format_color(vf->color, a, sizeof a);
        plot_text_printf(keys, "fam_color[%zu] = ", i + 1);
        plot_text_add_quoted(keys, a);
        snprintf(a, sizeof a, "#%02X%06X", DOT_ALPHA,
                 (unsigned)(vf->color & 0xFFFFFFu));
        plot_text_printf(keys, "; fam_dot[%zu] = ", i + 1);
        plot_text_add_quoted(keys, a);
        plot_text_printf(keys, "; fam_key[%zu] = ", i + 1);
        plot_text_add_quoted(keys, text);
        plot_text_printf(keys, "; fam_pt[%zu] = %d\n", i + 1,
                         plot_format_point(vf->marker));
    }
}

/* The roofs right of their ridge and the slopes up to their roof, as
 * plot commands, sampled with '+' like functions (`set samples` points)
 * but with the template's nofpe_trap (a function plot sets a SIGFPE
 * handler at each sample); their labels placed. */
static void roofs(const struct views_roofline *o,
                  struct plot_labels *L,
                  struct plot_template_vars *v)
{
    struct plot_text *plot = plot_template_var(v, "ROOF_PLOTS"),
                     *code = plot_template_var(v, "ROOFS");
    double top = o->nroofs ? o->roof[0].tflops : 0;
    char text[160], a[32];
    size_t i;
    for (i = 0; i < o->nroofs; i++) {
        const struct views_roof *f = &o->roof[i];
        const char *color = f->peak ? "#555555" : "#000000";
        plot_text_printf(plot,
                         "'+' using 1:($1 >= %.12g ? %.12g : 1/0) with lines "
                         "lw %s dt %s lc rgb '%s' notitle, \\\n    ",
                         f->ridge, f->tflops, f->peak ? "2" : "3",
                         f->peak ? "(12,6)" : "1", color);
        plot_text_printf(code,
                         "set label '' at %.12g, %.12g point pt 7 ps 1.6 lc "
                         "rgb '%s' front\n",
                         f->ridge, f->tflops, color);
        plot_labels_take_hline(L, f->ridge, f->tflops);
        plot_labels_take_point(L, plot_labels_px_x(L, f->ridge),
                               plot_labels_px_y(L, f->tflops), 14, 14);
    }
    for (i = 0; i < o->nslopes; i++) {
        double s = o->slope_bps[i];
        plot_text_printf(plot,
                         "'+' using 1:($1 * %.12g < %.12g ? $1 * %.12g : 1/0) "
                         "with lines lw %s dt %s lc rgb '%s' notitle, \\\n    ",
                         s / 1e12,
                         i == 0 && o->nslopes > 1 ? o->top_achievable : top,
                         s / 1e12, i == 0 ? "3" : "2", i == 0 ? "1" : "(12,6)",
                         i == 0 ? "#000000" : "#555555");
    }
    for (i = 0; i < o->nroofs; i++) {
        const struct views_roof *f = &o->roof[i];
        plot_format_num(f->tflops, a, sizeof a);
        diag_snprintf(text, sizeof text, "%s %s TFLOP/s", f->name, a);
        plot_labels_place_roof(L, code, text, f->tflops,
                               f->peak ? "#555555" : "#000000");
    }
}

/* The slopes' names along them, in the empty corner above. */
static void slope_names(const struct views_roofline *o,
                        struct plot_labels *L,
                        struct plot_text *code)
{
    size_t i;
    char text[160], a[32];
    double ppdx = PLOT_LABELS_CANVAS_W * (L->r - L->l) / (L->lx1 - L->lx0);
    double ppdy = PLOT_LABELS_CANVAS_H * (L->t - L->b) / (L->ly1 - L->ly0);
    for (i = 0; i < o->nslopes; i++) {
        double s = o->slope_bps[i], ys, xs, ang, cx, cy, w;
        /* one line: its name above it; two: achievable below, peak above */
        double side = i == 0 && o->nslopes > 1 ? -16 : 16;
        struct plot_box bx;
        plot_format_num(s / 1e9, a, sizeof a);
        snprintf(text, sizeof text, "%s %s %s GB/s", o->link,
                 i == 0 ? "achievable" : "peak", a);
        ys = sqrt(o->ylo * o->roof[o->nroofs - 1].tflops);
        xs = ys * 1e12 / s;
        if (xs < o->xlo * 1.5) {
            xs = o->xlo * 1.5;
            ys = xs * s / 1e12;
        }
        ang = atan(ppdy / ppdx);
        cx = plot_labels_px_x(L, xs) - sin(ang) * side;
        cy = plot_labels_px_y(L, ys) - cos(ang) * side;
        w = plot_labels_text_px(text, 14);
        bx.x0 = cx - w / 2 * cos(ang) - 10;
        bx.x1 = cx + w / 2 * cos(ang) + 10;
        bx.y0 = cy - w / 2 * sin(ang) - 10;
        bx.y1 = cy + w / 2 * sin(ang) + 10;
        plot_labels_take(L, &bx);
        plot_text_printf(code, "set label ");
        plot_text_add_quoted(code, text);
        plot_text_printf(
            code,
            " at %.6g, %.6g center rotate by %.3g front font ',14' "
            "textcolor rgb '%s'\n",
            plot_labels_data_x(L, cx), plot_labels_data_y(L, cy),
            ang * 180 / M_PI, i == 0 ? "#000000" : "#555555");
    }
}

/* The data's first blocks: every plan that fits, one block per family,
 * at its intensity over link l (0 IB, 1 NVLink). */
static void family_blocks(const struct views *r,
                          const struct views_roofline *o,
                          size_t l,
                          const char *name,
                          struct plot_text *dat)
{
    size_t i, k;
    plot_text_printf(
        dat,
        "# %s: every plan that fits in memory, one block per family "
        "(index i-1 is fam_key[i] in the script)\n"
        "# intensity (FLOP per byte over %s per GPU per step), "
        "attained TFLOP/s per GPU (executed FLOPs / step time), "
        "precision (0 bf16, 1 fp8), step time s\n",
        name, o->link);
    for (k = 0; k < r->nblocks; k++) {
        const struct views_block *b = &r->blocks[k];
        plot_text_printf(dat, "# block %zu\n", k);
        for (i = b->first; i < b->first + b->n; i++) {
            const struct views_point *p = &r->points[i];
            if (p->x[l] > 0)
                plot_text_printf(dat, "%.12g %.12g %d %.12g\n", p->x[l], p->y,
                                 p->fp8, p->step);
        }
        /* a family with no bytes on this link keeps its index valid */
        plot_text_printf(dat, "%.12g %.12g 0 0\n\n\n", o->xlo / 10,
                         o->ylo / 10);
    }
}

/* The block after them: the best plan of each labelled family, drawn
 * large (its marks taken in the label layout). */
static void best_block(const struct views *r,
                       const struct views_roofline *o,
                       size_t l,
                       struct plot_labels *L,
                       struct plot_text *dat)
{
    size_t k, nbest = 0;
    plot_text_printf(dat,
                     "# block %zu: the best plan of the labelled families: "
                     "intensity, TFLOP/s, colour 0xRRGGBB, precision\n",
                     r->nblocks);
    for (k = 0; k < r->nblocks; k++) {
        const struct views_block *b = &r->blocks[k];
        const struct views_point *p = &r->points[b->first];
        if (!b->labelled || !(p->x[l] > 0))
            continue;
        plot_text_printf(dat, "%.12g %.12g %lu %d\n", p->x[l], p->y,
                         (unsigned long)r->family[b->family].color, p->fp8);
        plot_labels_take_point(L, plot_labels_px_x(L, p->x[l]),
                               plot_labels_px_y(L, p->y), 22, 22);
        nbest++;
    }
    if (nbest == 0) /* keeps the index valid: one point off the axes */
        plot_text_printf(dat, "%.12g %.12g 0 0\n", o->xlo / 10, o->ylo / 10);
}

/* The last block: the baseline's best plan when none of it fits. */
static void baseline_block(const struct views *r,
                           const struct views_roofline *o,
                           size_t l,
                           struct plot_labels *L,
                           struct plot_template_vars *v,
                           struct plot_text *dat)
{
    const struct views_baseline *base = &r->baseline;
    plot_text_printf(dat,
                     "\n\n# block %zu: the baseline's best plan (%s) when "
                     "none of it fits: intensity, TFLOP/s\n",
                     r->nblocks + 1, base->name);
    plot_template_set_num(v, "HAVE_BASELINE", 0);
    if (base->has_point && base->x[l] > 0) {
        plot_text_printf(dat, "%.12g %.12g\n", base->x[l], base->y);
        plot_labels_take_point(L, plot_labels_px_x(L, base->x[l]),
                               plot_labels_px_y(L, base->y), 26, 26);
        plot_template_set_num(v, "HAVE_BASELINE", 1);
    } else {
        plot_text_printf(dat, "%.12g %.12g\n", o->xlo / 10, o->ylo / 10);
    }
}

/* The published and the recommended plan's marks and labels. */
static void plan_marks(const struct views *r,
                       size_t l,
                       struct plot_labels *L,
                       struct plot_template_vars *v)
{
    struct plot_text *labels = plot_template_var(v, "LABELS");
    plot_template_set_num(v, "HAVE_PUBLISHED", 0);
    if (r->has_published_point && r->published_x[l] > 0) {
        const struct validate_result *val = &r->rank->validation[r->published];
        double px = r->published_x[l], y = r->published_y;
        {
            plot_text_printf(labels,
                             "set label '' at %.12g, %.12g point pt 6 ps 4 lw "
                             "3 lc rgb '#000000' front\n",
                             px, y);
            plot_labels_take_point(L, plot_labels_px_x(L, px),
                                   plot_labels_px_y(L, y), 40, 40);
            plot_labels_place(L, labels,
                              val->predicted.fits
                                  ? "published plan"
                                  : "published plan (does not fit)",
                              val->name, px, y, 14, NAN);
            plot_template_set_num(v, "HAVE_PUBLISHED", 1);
        }
    }
    if (r->has_recommended_point && r->recommended_x[l] > 0) {
        double px = r->recommended_x[l], y = r->recommended_y;
        plot_text_printf(labels,
                         "set label '' at %.12g, %.12g point pt 4 ps 4.5 lw "
                         "3 lc rgb '#000000' front\n",
                         px, y);
        plot_labels_take_point(L, plot_labels_px_x(L, px),
                               plot_labels_px_y(L, y), 44, 44);
        plot_labels_place(L, labels, "recommended plan", NULL, px, y, 14, NAN);
    }
}

/* The ridges' values, the baseline and the labelled families' numbers. */
static void value_labels(const struct views *r,
                         const struct views_roofline *o,
                         size_t l,
                         struct plot_labels *L,
                         struct plot_template_vars *v)
{
    struct plot_text *labels = plot_template_var(v, "LABELS");
    const struct views_baseline *base = &r->baseline;
    char text[512];
    size_t i, k;
    for (i = 0; i < o->nroofs; i++) {
        const struct views_roof *f = &o->roof[i];
        char a[32];
        plot_format_si(f->ridge, a, sizeof a);
        snprintf(text, sizeof text, f->peak ? "%s" : "ridge %s FLOP/B", a);
        plot_labels_place(L, plot_template_var(v, "ROOFS"), text, NULL,
                          f->ridge, f->tflops, 13,
                          3 * M_PI / 4); /* above-left: the empty side */
    }
    if (base->has_point && base->x[l] > 0) {
        snprintf(text, sizeof text, "%s (the baseline): its best plan",
                 base->name);
        plot_labels_place(L, labels, text, "does not fit in memory", base->x[l],
                          base->y, 14, NAN);
    }
    for (k = 0; k < r->nblocks; k++) {
        const struct views_block *b = &r->blocks[k];
        const struct views_point *p = &r->points[b->first];
        if (!b->labelled || !(p->x[l] > 0))
            continue;
        snprintf(text, sizeof text, "%ld", b->number);
        plot_labels_place(L, labels, text, NULL, p->x[l], p->y, 14, NAN);
    }
}

void plot_roofline_fill(const struct views *r,
                        enum hardware_link which,
                        struct plot_template_vars *v,
                        struct plot_text *dat)
{
    const bool ib = which == HARDWARE_LINK_IB;
    const struct views_roofline *o = &r->roofline[ib ? 0 : 1];
    size_t l = ib ? 0 : 1;
    struct plot_labels layout, *L = &layout;

    family_blocks(r, o, l, ib ? "roofline-ib" : "roofline-nvlink", dat);
    plot_labels_init(L, 0.075, 0.735, 0.125, 0.835, o->xlo, o->xhi, o->ylo,
                     o->yhi);
    plot_template_set_num(v, "XMIN", o->xlo);
    plot_template_set_num(v, "XMAX", o->xhi);
    plot_template_set_num(v, "YMIN", o->ylo);
    plot_template_set_num(v, "YMAX", o->yhi);
    plot_template_set_num(v, "LMARGIN", L->l);
    plot_template_set_num(v, "RMARGIN", L->r);
    plot_template_set_num(v, "BMARGIN", L->b);
    plot_template_set_num(v, "TMARGIN", L->t);

    best_block(r, o, l, L, dat);
    baseline_block(r, o, l, L, v, dat);
    family_key(r, v);
    roofs(o, L, v);
    slope_names(o, L, plot_template_var(v, "ROOFS"));
    /* The published plan, the ridges' values, the baseline, the labelled
     * families' numbers. */
    plan_marks(r, l, L, v);
    value_labels(r, o, l, L, v);
    roofline_text(r, o, which, v);
}
