/*
 * xlsx_roofline: the Roofline sheet (see xlsx_roofline.h). Layout: the
 * two charts stacked (rows 3-47, printed on one portrait page), the
 * roofs' formula table below them, then the points. Each series of
 * points is one block of rows (a chart series takes one range), so the
 * points are measured first (the axes and roofs need their ranges) and
 * written after the roofs, keeping rows in ascending order for the
 * constant_memory mode.
 */
#include "xlsx_roofline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlsxwriter.h>

#include "plans_table.h"
#include "xlsx_table.h"

#define PER_FAMILY 12 /* best plans per family on the roofline */
#define SERIES_MAX 12 /* families with their own series */

/* Rows of the layout. */
#define CHART_ROW_IB 3  /* top of the IB chart */
#define CHART_ROW_NV 26 /* top of the NVLink chart */
#define PRINT_LAST   48 /* last row printed: the two charts */
#define ROOF_ROW0    52 /* first row of the roofs' table */
#define DATA_ROW     68 /* first row of the points */

/* ---- The points ---- */

enum point_id { P_FAMILY, P_RANK, P_IB, P_NV, P_Y, P_BOUND, P_PLAN };

/* x = executed (FP8 + BF16) FLOPs / bytes over the link, y = the same
 * FLOPs / step, as in the gnuplot rooflines, so that attainable =
 * min(roof, intensity x bandwidth) holds. */
/* clang-format off */
static const struct xlsx_column point_cols[] = {
    {"family", "Family", "", XLSX_FMT_TEXT, 0, 24, NULL, P_FAMILY},
    {"rank", "Rank", "", XLSX_FMT_INT, 0, 15, NULL, P_RANK},
    {"ib", "IB intensity", "FLOP/B", XLSX_FMT_CNT, 0, 15, NULL, P_IB},
    {"nvlink", "NVLink intensity", "FLOP/B", XLSX_FMT_CNT, 0, 15, NULL, P_NV},
    {"attained", "Attained", "TFLOP/s", XLSX_FMT_BIG, 0, 15, NULL, P_Y},
    {"bound", "Bound", "", XLSX_FMT_TEXT, 0, 15, NULL, P_BOUND},
    {"plan", "Plan (roofplan eval syntax)", "", XLSX_FMT_TEXT, 0, 100, NULL,
     P_PLAN},
};
/* clang-format on */

struct point {
    const char *family;
    size_t rank;
    double ib_x, nv_x; /* FLOP/B; 0 when the plan uses no such link */
    double y;          /* TFLOP/s */
    int bound;
    char plan[256];
};

static void number(struct xlsx_value *out, double v)
{
    out->kind = XLSX_NUM;
    out->num = v;
}

static void text(struct xlsx_value *out, const char *s)
{
    out->kind = XLSX_TEXT;
    out->str = s;
}

static void point_get(const void *item, int id, struct xlsx_value *out)
{
    const struct point *p = item;
    switch (id) {
    case P_FAMILY:
        text(out, p->family);
        break;
    case P_RANK:
        number(out, (double)p->rank);
        break;
    case P_IB:
        if (p->ib_x > 0)
            number(out, p->ib_x);
        break;
    case P_NV:
        if (p->nv_x > 0)
            number(out, p->nv_x);
        break;
    case P_Y:
        number(out, p->y);
        break;
    case P_BOUND:
        text(out, plans_table_bound_label(p->bound));
        out->fmt = xlsx_book_bound_fmt(p->bound, XLSX_BOUND_TEXT);
        break;
    default:
        text(out, p->plan);
        break;
    }
}

static const struct xlsx_table points = {
    point_cols, sizeof point_cols / sizeof point_cols[0], XLSX_FMT_HEAD,
    point_get};

/* ---- The roofs ---- */

enum roof_id { R_ROOF, R_POINT, R_X, R_Y };

/* clang-format off */
static const struct xlsx_column roof_cols[] = {
    {"roof", "Roof", "", XLSX_FMT_TEXT, 0, 0, NULL, R_ROOF},
    {"point", "Point", "", XLSX_FMT_TEXT, 0, 0, NULL, R_POINT},
    {"x", "x", "FLOP/B", XLSX_FMT_CNT, 0, 0, NULL, R_X},
    {"y", "y", "TFLOP/s", XLSX_FMT_BIG, 0, 0, NULL, R_Y},
};
/* clang-format on */

/* One of a roof's three points: the left edge on the link's slope, the
 * ridge, the right edge; x and y are formulas where they can be. */
struct roof_point {
    const char *name;    /* "BF16 achievable over IB" */
    int at;              /* 0 left edge, 1 ridge, 2 right edge */
    const char *roof;    /* its rate's name: BF16_TFLOPS_USED */
    const char *bw;      /* the link's: IB_GBPS */
    double roof_v, bw_v; /* TFLOP/s, GB/s: the C values */
    double x_lo, x_hi;   /* the chart's x range */
};

static double ridge_x(const struct roof_point *p)
{
    return fmin(fmax(p->roof_v * 1000 / p->bw_v, p->x_lo), p->x_hi);
}

static void roof_get(const void *item, int id, struct xlsx_value *out)
{
    static const char *const at[3] = {"left edge", "ridge", "right edge"};
    const struct roof_point *p = item;
    double x = p->at == 0 ? p->x_lo : p->at == 1 ? ridge_x(p) : p->x_hi;
    switch (id) {
    case R_ROOF:
        text(out, p->name);
        break;
    case R_POINT:
        text(out, at[p->at]);
        break;
    case R_X:
        number(out, x);
        if (p->at == 1) { /* the ridge, kept between the edges */
            snprintf(out->buf, sizeof out->buf,
                     "MIN(MAX(%s*1000/%s,{x@-1}),{x@+1})", p->roof, p->bw);
            out->formula = out->buf;
        }
        break;
    default: /* attainable = min(roof, intensity x bandwidth) */
        number(out, fmin(p->roof_v, x * p->bw_v / 1000));
        snprintf(out->buf, sizeof out->buf, "MIN(%s,{x}*%s/1000)", p->roof,
                 p->bw);
        out->formula = out->buf;
        break;
    }
}

static const struct xlsx_table roofs = {
    roof_cols, sizeof roof_cols / sizeof roof_cols[0], XLSX_FMT_HEAD, roof_get};

/* ---- Series and layout ---- */

/* Series of the roofline: families with their own colour, then "other". */
struct series {
    long family[SERIES_MAX]; /* family index */
    size_t n;
    size_t first[SERIES_MAX + 1], last[SERIES_MAX + 1]; /* rows of each */
    bool any[SERIES_MAX + 1];
};

static long series_of(const struct series *s, long family)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        if (s->family[i] == family)
            return (long)i;
    return (long)s->n; /* "other families" */
}

/* One chart over a link. */
struct chart {
    const char *link;    /* "IB", "NVLink" */
    const char *bw_name; /* IB_GBPS */
    const char *x_key;   /* its intensity column: "ib" */
    double bw;           /* GB/s */
    double x_lo, x_hi, y_lo, y_hi;
};

/* What the picked plans span: x per link (lo, hi) and the lowest y. */
struct extent {
    double lo[2], hi[2], ylo;
};

/* The point of row i. */
static void point_of(const struct report *r, size_t i, struct point *p)
{
    const struct report_row *rw = &r->rows[i];
    const struct cost_work *w = &rw->work;
    struct cost_times t;
    double flops = w->fp8_flops + w->bf16_flops;
    report_row_times(r, rw, &t);
    p->family = r->family[rw->family].name;
    p->rank = i + 1;
    p->ib_x = w->ib_bytes > 0 ? flops / w->ib_bytes : 0;
    p->nv_x = w->nvlink_bytes > 0 ? flops / w->nvlink_bytes : 0;
    p->y = flops / t.step / 1e12;
    p->bound = t.bound;
    plan_format(&rw->plan, p->plan, sizeof p->plan);
}

/* The picked rows, series by series (each series one block of rows from
 * DATA_ROW): with write false only measures the blocks and extent e. */
static void put_points(struct xlsx_book *b,
                       lxw_worksheet *ws,
                       struct series *s,
                       const size_t *pick,
                       size_t npick,
                       bool write,
                       struct extent *e)
{
    const struct report *r = b->r;
    size_t row = DATA_ROW, i, k;
    struct point p;
    for (k = 0; k <= s->n; k++) {
        s->any[k] = false;
        s->first[k] = row;
        for (i = 0; i < npick; i++) {
            if ((size_t)series_of(s, r->rows[pick[i]].family) != k)
                continue;
            point_of(r, pick[i], &p);
            if (p.ib_x > 0) {
                e->lo[0] = fmin(e->lo[0], p.ib_x);
                e->hi[0] = fmax(e->hi[0], p.ib_x);
            }
            if (p.nv_x > 0) {
                e->lo[1] = fmin(e->lo[1], p.nv_x);
                e->hi[1] = fmax(e->hi[1], p.nv_x);
            }
            e->ylo = fmin(e->ylo, p.y);
            s->any[k] = true;
            if (write)
                xlsx_table_row(b, ws, &points, row, &p);
            row++;
        }
        s->last[k] = row - 1;
    }
}

/* Axis ranges: whole decades around the points and the ridges. */
static void axes_ranges(const struct hardware *hw,
                        const struct extent *e,
                        struct chart c[2])
{
    double top = fmax(hw->fp8_peak_flops, hw->bf16_peak_flops) / 1e12;
    size_t k;
    c[0].link = "IB";
    c[0].bw_name = "IB_GBPS";
    c[0].x_key = "ib";
    c[0].bw = hw->ib_bps / 1e9;
    c[1].link = "NVLink";
    c[1].bw_name = "NVLINK_GBPS";
    c[1].x_key = "nvlink";
    c[1].bw = hw->nvlink_bps / 1e9;
    for (k = 0; k < 2; k++) {
        double bps = k ? hw->nvlink_bps : hw->ib_bps;
        double ridge =
            (hw->fp8_flops > 0 ? hw->fp8_flops : hw->bf16_flops) / bps;
        double a = fmin(isfinite(e->lo[k]) ? e->lo[k] : ridge, ridge / 10);
        double bb = fmax(e->hi[k] > 0 ? e->hi[k] : ridge, ridge * 10);
        c[k].x_lo = pow(10, floor(log10(a)));
        c[k].x_hi = pow(10, ceil(log10(bb)));
        c[k].y_hi = pow(10, ceil(log10(top * 1.05)));
        c[k].y_lo = pow(10, floor(log10(fmin(isfinite(e->ylo) ? e->ylo : 1,
                                             c[k].x_lo * bps / 1e12))));
        if (c[k].y_lo < c[k].y_hi / 1e4)
            c[k].y_lo = c[k].y_hi / 1e4;
    }
}

static void axes(lxw_chart *ch, const struct chart *c)
{
    char title[160];
    lxw_chart_font tf;
    snprintf(title, sizeof title,
             "Roofline over %s: attained vs operational intensity", c->link);
    chart_title_set_name(ch, title);
    memset(&tf, 0, sizeof tf);
    tf.size = 12;
    tf.bold = 1;
    chart_title_set_name_font(ch, &tf);
    snprintf(title, sizeof title,
             "operational intensity over %s (FLOP per byte, per GPU per "
             "step)",
             c->link);
    chart_axis_set_name(ch->x_axis, title);
    chart_axis_set_name(ch->y_axis,
                        "attained TFLOP/s per GPU (executed FLOPs / step)");
    chart_axis_set_log_base(ch->x_axis, 10);
    chart_axis_set_log_base(ch->y_axis, 10);
    chart_axis_set_min(ch->x_axis, c->x_lo);
    chart_axis_set_max(ch->x_axis, c->x_hi);
    chart_axis_set_min(ch->y_axis, c->y_lo);
    chart_axis_set_max(ch->y_axis, c->y_hi);
    chart_axis_set_num_format(ch->x_axis, "#,##0");
    chart_axis_set_num_format(ch->y_axis, "#,##0");
    chart_axis_set_crossing_min(ch->x_axis);
    chart_axis_set_crossing_min(ch->y_axis);
    chart_legend_set_position(ch, LXW_CHART_LEGEND_RIGHT);
}

/* A series over xs/ys; NULL after recording the failure. */
static lxw_chart_series *
add_series(struct xlsx_book *b, lxw_chart *ch, const char *xs, const char *ys)
{
    lxw_chart_series *se = chart_add_series(ch, xs, ys);
    if (!se)
        xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED, "chart_add_series");
    return se;
}

/* The plan series of chart c: one per block of points. */
static bool plan_series(struct xlsx_book *b,
                        lxw_chart *ch,
                        const struct chart *c,
                        const struct series *s)
{
    const struct report *r = b->r;
    size_t k;
    for (k = 0; k <= s->n; k++) {
        char xs[96], ys[96];
        lxw_chart_fill fill;
        lxw_chart_line line;
        lxw_chart_series *se;
        uint32_t color =
            k < s->n ? report_family_color(r, (size_t)s->family[k]) : 0xB0B0B0;
        if (!s->any[k])
            continue;
        xlsx_table_range(&points, XLSX_ROOFLINE_SHEET, c->x_key, s->first[k],
                         s->last[k], xs, sizeof xs);
        xlsx_table_range(&points, XLSX_ROOFLINE_SHEET, "attained", s->first[k],
                         s->last[k], ys, sizeof ys);
        se = add_series(b, ch, xs, ys);
        if (!se)
            return false;
        chart_series_set_name(se, k < s->n ? r->family[s->family[k]].name
                                           : "other families");
        chart_series_set_marker_type(se, LXW_CHART_MARKER_CIRCLE);
        chart_series_set_marker_size(se, 5);
        memset(&fill, 0, sizeof fill);
        fill.color = color;
        chart_series_set_marker_fill(se, &fill);
        memset(&line, 0, sizeof line);
        line.color = color;
        chart_series_set_marker_line(se, &line);
    }
    return true;
}

/* The achievable BF16 and FP8 roofs of chart l: their rows in the roofs'
 * table (six per link) and a series each. */
static bool roof_series(struct xlsx_book *b,
                        lxw_worksheet *ws,
                        lxw_chart *ch,
                        const struct chart *c,
                        size_t l)
{
    static const char *const rate[2] = {"BF16_TFLOPS_USED", "FP8_TFLOPS_USED"};
    const struct hardware *hw = b->r->hw;
    const double rate_v[2] = {hw->bf16_flops / 1e12, hw->fp8_flops / 1e12};
    size_t q;
    for (q = 0; q < 2; q++) {
        char xs[96], ys[96], name[64];
        size_t r0 = ROOF_ROW0 + l * 6 + q * 3;
        struct roof_point p = {name,      0,     rate[q], c->bw_name,
                               rate_v[q], c->bw, c->x_lo, c->x_hi};
        lxw_chart_series *se;
        lxw_chart_line line;
        if (q == 1 && hw->fp8_flops <= 0)
            continue;
        snprintf(name, sizeof name, "%s achievable over %s", q ? "FP8" : "BF16",
                 c->link);
        for (p.at = 0; p.at < 3; p.at++)
            xlsx_table_row(b, ws, &roofs, r0 + (size_t)p.at, &p);
        xlsx_table_range(&roofs, XLSX_ROOFLINE_SHEET, "x", r0, r0 + 2, xs,
                         sizeof xs);
        xlsx_table_range(&roofs, XLSX_ROOFLINE_SHEET, "y", r0, r0 + 2, ys,
                         sizeof ys);
        se = add_series(b, ch, xs, ys);
        if (!se)
            return false;
        chart_series_set_name(se, name);
        chart_series_set_marker_type(se, LXW_CHART_MARKER_NONE);
        memset(&line, 0, sizeof line);
        line.color = q ? LXW_COLOR_BLACK : 0x595959;
        line.width = 2.25;
        if (!q)
            line.dash_type = LXW_CHART_LINE_DASH_DASH;
        chart_series_set_line(se, &line);
    }
    return true;
}

/* Both charts with their roofs; false when libxlsxwriter ran out. */
static bool charts(struct xlsx_book *b,
                   lxw_worksheet *ws,
                   const struct chart c[2],
                   const struct series *s)
{
    size_t l;
    for (l = 0; l < 2; l++) {
        lxw_chart_options co;
        lxw_chart *ch = workbook_add_chart(b->wb, LXW_CHART_SCATTER);
        if (!ch) {
            xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED,
                            "workbook_add_chart");
            return false;
        }
        if (!plan_series(b, ch, &c[l], s) || !roof_series(b, ws, ch, &c[l], l))
            return false;
        axes(ch, &c[l]);
        memset(&co, 0, sizeof co);
        co.x_scale = 1.45;
        co.y_scale = 1.45;
        co.description = l ? "Roofline over NVLink" : "Roofline over IB";
        xlsx_book_check(b,
                        worksheet_insert_chart_opt(
                            ws, l ? CHART_ROW_NV : CHART_ROW_IB, 0, ch, &co),
                        "worksheet_insert_chart");
    }
    return true;
}

/* The gnuplot charts, right of the points' columns. */
static void images(struct xlsx_book *b,
                   lxw_worksheet *ws,
                   const char *ib_png,
                   const char *nvlink_png)
{
    const char *png[2] = {ib_png, nvlink_png};
    size_t l;
    for (l = 0; l < 2; l++) {
        lxw_image_options io;
        if (!png[l])
            continue;
        memset(&io, 0, sizeof io);
        io.x_scale = io.y_scale = 0.6;
        io.description =
            l ? "Roofline over NVLink (gnuplot)" : "Roofline over IB (gnuplot)";
        xlsx_book_check(
            b,
            worksheet_insert_image_opt(ws, l ? CHART_ROW_NV : CHART_ROW_IB,
                                       (lxw_col_t)points.ncols, png[l], &io),
            "worksheet_insert_image (roofline)");
    }
}

/* The rows to plot: the first few of each family (rows are ranked,
 * fitting first), into pick (r->nfamilies * PER_FAMILY + 1 entries). */
static size_t pick_rows(const struct report *r, size_t *pick)
{
    size_t per_family[REPORT_FAMILIES_MAX] = {0}, n = 0, i;
    for (i = 0; i < r->nrows; i++) {
        int fam = r->rows[i].family;
        if (fam < 0 || (size_t)fam >= REPORT_FAMILIES_MAX ||
            per_family[fam] >= PER_FAMILY)
            continue;
        per_family[fam]++;
        pick[n++] = i;
    }
    return n;
}

void xlsx_roofline_write(struct xlsx_book *b,
                         lxw_worksheet *ws,
                         const char *ib_png,
                         const char *nvlink_png)
{
    const struct report *r = b->r;
    struct series s;
    struct chart c[2];
    struct extent e = {{INFINITY, INFINITY}, {0, 0}, INFINITY};
    size_t *pick, npick, i;
    long z3 = report_family_index(r, "ZeRO-3");
    size_t at = xlsx_table_col(&points, "family");
    size_t right = xlsx_table_col(&points, "bound"); /* the charts' width */

    xlsx_book_page(ws, true);
    worksheet_set_portrait(ws);
    xlsx_table_widths(b, ws, &points);
    xlsx_book_str(b, ws, 0, at,
                  "Roofline: which link keeps each plan from the compute roof",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_merge(b, ws, 1, at, right,
                    "x = (FP8 + BF16 FLOPs) / bytes over the link, per GPU "
                    "per step; y = the same FLOPs / step time. Roofs are "
                    "formulas over Assumptions (change IB_GBPS and they "
                    "move); the points are the best few plans of each "
                    "family.",
                    xlsx_book_fmt(b, XLSX_FMT_NOTE_WRAP));
    xlsx_book_height(b, ws, 1, 30);

    /* Series: the fastest families, ZeRO-3 always, then "other". */
    s.n = 0;
    for (i = 0; i < r->nfamilies && s.n < SERIES_MAX - 1; i++)
        s.family[s.n++] = r->families_by_step[i];
    if (z3 >= 0 && series_of(&s, z3) == (long)s.n)
        s.family[s.n++] = z3;

    pick = calloc(r->nfamilies * PER_FAMILY + 1, sizeof *pick);
    if (!pick) {
        xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED, "Roofline points");
        return;
    }
    npick = pick_rows(r, pick);
    put_points(b, ws, &s, pick, npick, false, &e);
    axes_ranges(r->hw, &e, c);

    xlsx_book_str(b, ws, ROOF_ROW0 - 2, at, "Roofs (formulas over Assumptions)",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_table_header(b, ws, &roofs, ROOF_ROW0 - 1);
    if (charts(b, ws, c, &s)) {
        xlsx_book_str(b, ws, DATA_ROW - 2, at, "Plans on the charts (values)",
                      xlsx_book_fmt(b, XLSX_FMT_H2));
        xlsx_table_header(b, ws, &points, DATA_ROW - 1);
        put_points(b, ws, &s, pick, npick, true, &e);
        images(b, ws, ib_png, nvlink_png);
        xlsx_book_check(
            b, worksheet_print_area(ws, 0, 0, PRINT_LAST, (lxw_col_t)right),
            "worksheet_print_area");
    }
    free(pick);
}
