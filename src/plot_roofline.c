/*
 * plot_roofline: the two roofline charts (DESIGN.md §6). The data file
 * has one block per family of the plans that fit (intensity over the
 * link, attained TFLOP/s), then the best plan of each family; the script
 * gets the roofs and slopes as plot commands and every label already
 * placed (plot_labels), since only here is known what lies where.
 *
 * May call: plot_labels, plot_format, plot_template, plot_text, report,
 * cost, libm, libc.
 */
#define _GNU_SOURCE /* M_PI */
#include "plot_roofline.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "plot_format.h"
#include "plot_labels.h"

/* Every family's best plan gets a number label, plus the roofs' and the
 * published plan's labels: the label table must hold them all. */
_Static_assert(REPORT_FAMILIES_MAX + 16 <= PLOT_LABELS_MAX,
               "plot_labels cannot hold a label per family");

struct roof {
    const char *name; /* "BF16 achievable" */
    double tflops;    /* the roof */
    double bw;        /* B/s of the slope it meets */
    bool peak;
};

/* Plots of the roofline: the work that crosses the chosen link. */
static double link_bytes(const struct cost_work *w, bool ib)
{
    return ib ? w->ib_bytes : w->nvlink_bytes;
}

/* Executed FLOPs per byte over the link, and FLOP/s attained per GPU. */
static bool roof_point(const struct cost_work *w,
                       const struct cost_times *t,
                       bool ib,
                       double *x,
                       double *y)
{
    double flops = w->fp8_flops + w->bf16_flops, bytes = link_bytes(w, ib);
    if (!(bytes > 0) || !(t->step > 0) || !(flops > 0))
        return false;
    *x = flops / bytes;
    *y = flops / t->step / 1e12;
    return true;
}

/* Title, subtitles and axis labels: what the chart shows and how to
 * read it, with the counts it drew. */
static void roofline_text(const struct report *r,
                          bool ib,
                          size_t npoints,
                          size_t nobytes,
                          struct plot_template_vars *v)
{
    const struct hardware *hw = r->hw;
    const char *link = ib ? "IB" : "NVLink";
    char text[512], title[1024], a[32], b[32], c[32];

    snprintf(text, sizeof text, "roofline over %s",
             ib ? "InfiniBand (inter-node)" : "NVLink (intra-node)");
    plot_format_title(r, text, title, sizeof title);
    plot_template_set_str(v, "TITLE", title);
    plot_format_num((double)npoints, a, sizeof a);
    plot_format_num((double)r->valid, b, sizeof b);
    plot_format_num(hw->spec.hbm_gib, c, sizeof c);
    snprintf(text, sizeof text,
             "Each dot is a plan that fits in %s GiB (%s of %s valid "
             "plans%s). Left of a ridge a plan is %s-bound; right of it, "
             "compute can hide its %s traffic.",
             c, a, b, nobytes ? "; those with traffic on this link" : "", link,
             link);
    plot_template_set_str(v, "SUB1", text);
    plot_format_num(hw->compute_derate, a, sizeof a);
    if (hw->compute_derate < 1)
        snprintf(text, sizeof text,
                 "Solid roofs: achievable (measured GEMM at a %s clock "
                 "derate); dashed: datasheet peak. Numbered: the best plan "
                 "of each family.",
                 a);
    else
        snprintf(text, sizeof text,
                 "Solid roofs: achievable (measured GEMM); dashed: datasheet "
                 "peak. Numbered: the best plan of each family.");
    plot_template_set_str(v, "SUB2", text);
    snprintf(text, sizeof text,
             "operational intensity over %s: FLOPs per byte, per GPU per step",
             link);
    plot_template_set_str(v, "XLABEL", text);
    plot_template_set_str(
        v, "YLABEL", "attained TFLOP/s per GPU (executed FLOPs / step time)");
}

void plot_roofline_fill(const struct report *r,
                        bool ib,
                        struct plot_template_vars *v,
                        struct plot_text *dat)
{
    const struct hardware *hw = r->hw;
    const char *link = ib ? "IB" : "NVLink";
    double bw = ib ? hw->ib_bps : hw->nvlink_bps;
    double bw_peak =
        1e9 * (ib ? hw->spec.ib_peak_gbps : hw->spec.nvlink_peak_gbps);
    struct roof roofs[4];
    size_t nroofs = 0, i, k, nfam = 0, npoints = 0, nobytes = 0;
    long fam[REPORT_FAMILIES_MAX];
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0, top = 0;
    double top_ach = 0;
    struct plot_labels layout, *L = &layout;
    struct plot_text *labels = plot_template_var(v, "LABELS"),
                     *roof_code = plot_template_var(v, "ROOFS");
    struct plot_text *plot = plot_template_var(v, "ROOF_PLOTS"),
                     *keys = plot_template_var(v, "FAMILIES");
    char text[512], a[32];

    /* Highest first: their labels are placed in this order. */
    if (hw->fp8_flops > 0) {
        roofs[nroofs++] =
            (struct roof){"FP8 peak", hw->fp8_peak_flops / 1e12, bw_peak, true};
        roofs[nroofs++] =
            (struct roof){"FP8 achievable", hw->fp8_flops / 1e12, bw, false};
    }
    roofs[nroofs++] =
        (struct roof){"BF16 peak", hw->bf16_peak_flops / 1e12, bw_peak, true};
    roofs[nroofs++] =
        (struct roof){"BF16 achievable", hw->bf16_flops / 1e12, bw, false};
    for (i = 0; i < nroofs; i++) {
        plot_format_grow_range(roofs[i].tflops * 1e12 / roofs[i].bw, &xlo,
                               &xhi);
        if (roofs[i].tflops > top)
            top = roofs[i].tflops;
        if (!roofs[i].peak && roofs[i].tflops > top_ach)
            top_ach = roofs[i].tflops;
    }

    /* One block per family with a fitting plan, fastest family first. */
    plot_text_printf(
        dat,
        "# %s: every plan that fits in memory, one block per family "
        "(index i-1 is fam_name[i] in the script)\n"
        "# intensity (FLOP per byte over %s per GPU per step), "
        "attained TFLOP/s per GPU (executed FLOPs / step time), "
        "precision (0 bf16, 1 fp8), step time s\n",
        ib ? "roofline-ib" : "roofline-nvlink", link);
    for (k = 0; k < r->nfamilies; k++) {
        long f = r->families_by_step[k];
        size_t count = 0;
        for (i = 0; i < r->nrows; i++) {
            const struct report_row *row = &r->rows[i];
            struct cost_times t;
            double x, y;
            if (row->family != f || !row->fits)
                continue;
            report_row_times(r, row, &t);
            if (!roof_point(&row->work, &t, ib, &x, &y)) {
                nobytes++;
                continue;
            }
            if (count++ == 0)
                plot_text_printf(dat, "# block %zu\n", nfam);
            plot_text_printf(dat, "%.12g %.12g %d %.12g\n", x, y,
                             row->plan.precision == MODEL_FP8, t.step);
            plot_format_grow_range(x, &xlo, &xhi);
            plot_format_grow_range(y, &ylo, &yhi);
        }
        if (count > 0) {
            fam[nfam++] = f;
            npoints += count;
            plot_text_printf(dat, "\n\n");
        }
    }
    if (!(ylo < INFINITY))
        ylo = top / 100;
    xlo = plot_format_pow10_floor(xlo / 1.5);
    xhi = plot_format_pow10_ceil(xhi * 1.5);
    if (xhi / xlo < 1e3)
        xhi = xlo * 1e3;
    ylo = plot_format_pow10_floor(ylo / 1.5);
    if (ylo > top / 100)
        ylo = plot_format_pow10_floor(top / 100);
    yhi = top * 2.2;

    plot_labels_init(L, 0.075, 0.735, 0.125, 0.835, xlo, xhi, ylo, yhi);
    plot_template_set_num(v, "XMIN", xlo);
    plot_template_set_num(v, "XMAX", xhi);
    plot_template_set_num(v, "YMIN", ylo);
    plot_template_set_num(v, "YMAX", yhi);
    plot_template_set_num(v, "LMARGIN", L->l);
    plot_template_set_num(v, "RMARGIN", L->r);
    plot_template_set_num(v, "BMARGIN", L->b);
    plot_template_set_num(v, "TMARGIN", L->t);

    /* The best plan of each family: a block the template draws large. */
    plot_text_printf(dat,
                     "# block %zu: the best plan of each family above: "
                     "intensity, TFLOP/s, colour 0xRRGGBB, precision\n",
                     nfam);
    for (i = 0; i < nfam; i++) {
        const struct report_family *f = &r->family[fam[i]];
        double x, y;
        if (!roof_point(&f->best.work, &f->best.t, ib, &x, &y))
            continue;
        plot_text_printf(dat, "%.12g %.12g %lu %d\n", x, y,
                         (unsigned long)report_family_color(r, (size_t)fam[i]),
                         f->best.plan.precision == MODEL_FP8);
        plot_labels_take_point(L, plot_labels_px_x(L, x),
                               plot_labels_px_y(L, y), 22, 22);
    }
    if (nfam == 0) /* keeps `index NFAM` valid: one point off the axes */
        plot_text_printf(dat, "%.12g %.12g 0 0\n", xlo / 10, ylo / 10);

    /* Families: colour and key text "1  ZeRO-1+TP+PP+EP  7.23 s"; the
     * number also labels the family's best plan on the chart. */
    plot_template_set_num(v, "NFAM", (double)nfam);
    plot_text_printf(keys, "array fam_color[%zu]\narray fam_key[%zu]\n",
                     nfam ? nfam : 1, nfam ? nfam : 1);
    if (nfam == 0) /* gnuplot evaluates a loop's body once even when it
                    * runs zero times: give it something to read */
        plot_text_printf(keys, "fam_color[1] = '#000000'; fam_key[1] = ''\n");
    for (i = 0; i < nfam; i++) {
        const struct report_family *f = &r->family[fam[i]];
        plot_format_color(report_family_color(r, (size_t)fam[i]), a, sizeof a);
        snprintf(text, sizeof text, "%zu  %s  %.2f s", i + 1, f->name,
                 f->best.t.step);
        plot_text_printf(keys, "fam_color[%zu] = ", i + 1);
        plot_text_add_quoted(keys, a);
        plot_text_printf(keys, "; fam_key[%zu] = ", i + 1);
        plot_text_add_quoted(keys, text);
        plot_text_printf(keys, "\n");
    }

    /* Roofs right of their ridge; slopes up to their highest roof. */
    for (i = 0; i < nroofs; i++) {
        const struct roof *o = &roofs[i];
        double ridge = o->tflops * 1e12 / o->bw;
        const char *color = o->peak ? "#555555" : "#000000";
        plot_text_printf(plot,
                         "(x >= %.12g ? %.12g : 1/0) with lines lw %s dt %s lc "
                         "rgb '%s' notitle, \\\n    ",
                         ridge, o->tflops, o->peak ? "2" : "3",
                         o->peak ? "(12,6)" : "1", color);
        plot_text_printf(
            roof_code,
            "set label '' at %.12g, %.12g point pt 7 ps 1.6 lc rgb "
            "'%s' front\n",
            ridge, o->tflops, color);
        plot_labels_take_hline(L, ridge, o->tflops);
        plot_labels_take_point(L, plot_labels_px_x(L, ridge),
                               plot_labels_px_y(L, o->tflops), 14, 14);
    }
    for (i = 0; i < 2; i++) {
        double s = i == 0 ? bw : bw_peak;
        if (i == 1 && s == bw)
            break;
        plot_text_printf(plot,
                         "(x * %.12g < %.12g ? x * %.12g : 1/0) with lines lw "
                         "%s dt %s lc rgb '%s' notitle, \\\n    ",
                         s / 1e12, (i == 0 && bw != bw_peak ? top_ach : top),
                         s / 1e12, i == 0 ? "3" : "2", i == 0 ? "1" : "(12,6)",
                         i == 0 ? "#000000" : "#555555");
    }
    for (i = 0; i < nroofs; i++) {
        const struct roof *o = &roofs[i];
        plot_format_num(o->tflops, a, sizeof a);
        snprintf(text, sizeof text, "%s %s TFLOP/s", o->name, a);
        plot_labels_place_roof(L, roof_code, text, o->tflops,
                               o->peak ? "#555555" : "#000000");
    }
    /* The slopes' names along them, in the empty corner above. */
    for (i = 0; i < 2; i++) {
        double s = i == 0 ? bw : bw_peak, ys, xs, ang, cx, cy, w;
        double ppdx = PLOT_LABELS_CANVAS_W * (L->r - L->l) / (L->lx1 - L->lx0);
        double ppdy = PLOT_LABELS_CANVAS_H * (L->t - L->b) / (L->ly1 - L->ly0);
        /* one line: its name above it; two: achievable below, peak above */
        double side = i == 0 && bw != bw_peak ? -16 : 16;
        struct plot_box bx;
        if (i == 1 && s == bw)
            break;
        plot_format_num(s / 1e9, a, sizeof a);
        snprintf(text, sizeof text, "%s %s %s GB/s", link,
                 i == 0 ? "achievable" : "peak", a);
        ys = sqrt(ylo * roofs[nroofs - 1].tflops);
        xs = ys * 1e12 / s;
        if (xs < xlo * 1.5) {
            xs = xlo * 1.5;
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
        plot_text_printf(roof_code, "set label ");
        plot_text_add_quoted(roof_code, text);
        plot_text_printf(
            roof_code,
            " at %.6g, %.6g center rotate by %.3g front font ',14' "
            "textcolor rgb '%s'\n",
            plot_labels_data_x(L, cx), plot_labels_data_y(L, cy),
            ang * 180 / M_PI, i == 0 ? "#000000" : "#555555");
    }

    /* The published plan, the ridges' values, each family's number. */
    plot_template_set_num(v, "HAVE_PUBLISHED", 0);
    for (i = 0; i < r->nvalidations; i++) {
        const struct report_validation *val = &r->validation[i];
        double x, y;
        if (!val->current ||
            !roof_point(&val->predicted.work, &val->predicted.t, ib, &x, &y))
            continue;
        plot_text_printf(
            labels,
            "set label '' at %.12g, %.12g point pt 6 ps 4 lw 3 lc rgb "
            "'#000000' front\n",
            x, y);
        plot_labels_take_point(L, plot_labels_px_x(L, x),
                               plot_labels_px_y(L, y), 40, 40);
        plot_labels_place(L, labels,
                          val->predicted.fits ? "published plan"
                                              : "published plan (does not fit)",
                          val->name, x, y, 14, NAN);
        plot_template_set_num(v, "HAVE_PUBLISHED", 1);
        break;
    }
    for (i = 0; i < nroofs; i++) {
        const struct roof *o = &roofs[i];
        double ridge = o->tflops * 1e12 / o->bw;
        plot_format_si(ridge, a, sizeof a);
        snprintf(text, sizeof text, o->peak ? "%s" : "ridge %s FLOP/B", a);
        plot_labels_place(L, roof_code, text, NULL, ridge, o->tflops, 13,
                          3 * M_PI / 4); /* above-left: the empty side */
    }
    for (i = 0; i < nfam; i++) {
        const struct report_family *f = &r->family[fam[i]];
        double x, y;
        snprintf(text, sizeof text, "%zu", i + 1);
        if (roof_point(&f->best.work, &f->best.t, ib, &x, &y))
            plot_labels_place(L, labels, text, NULL, x, y, 14, NAN);
    }

    roofline_text(r, ib, npoints, nobytes, v);
}
