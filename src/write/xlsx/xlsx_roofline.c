/*
 * xlsx_roofline: the Roofline sheet (see xlsx_roofline.h). Layout: the
 * two native charts stacked (rows 3-47, printed on one portrait page),
 * the gnuplot renderings below them, each on its own rows, the roofs'
 * formula table, then the points. Each series of points is one block of
 * rows (a chart series takes one range); the points, series, roofs and
 * axis ranges are the report's (figures). A point's attained rate is a
 * formula over its Plans row, so points follow an edited input as the
 * roofs do.
 */
#include "xlsx_roofline.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlsxwriter.h>

#include "plans_table.h"
#include "xlsx_table.h"

/* Rows of the layout (20 px each). */
#define CHART_ROW_IB 3  /* top of the IB chart */
#define CHART_ROW_NV 26 /* top of the NVLink chart */
#define PRINT_LAST   48 /* last row of the first page: the two charts */
#define IMAGE_ROW_IB 51 /* the gnuplot charts: 405 px, 21 rows each */
#define IMAGE_ROW_NV 75
#define IMAGE_SCALE  0.45 /* 720 px wide: the page's width */
#define ROOF_ROW0    100  /* first row of the roofs' table */
#define DATA_ROW     116  /* first row of the points */

/* ---- The points ---- */

enum point_id { P_FAMILY, P_RANK, P_ROW, P_IB, P_NV, P_Y, P_BOUND, P_PLAN };

/* x = executed (FP8 + BF16) FLOPs / bytes over the link, y = the same
 * FLOPs / step, as in the gnuplot rooflines, so that attainable =
 * min(roof, intensity x bandwidth) holds. x does not depend on the
 * inputs (a value); y and the bound are read from the plan's Plans row
 * ({row}: its position in the PLANS_* ranges). */
#define Y_TEMPLATE                                                  \
    "(INDEX(PLANS_FP8_TFLOP,{row})+INDEX(PLANS_BF16_TFLOP,{row}))/" \
    "INDEX(PLANS_STEP_S,{row})"
/* clang-format off */
static const struct xlsx_column point_cols[] = {
    {.key = "family", .header = "Family", .fmt = XLSX_FMT_TEXT, .width = 24, .id = P_FAMILY},
    {.key = "rank", .header = "Rank", .fmt = XLSX_FMT_INT, .width = 12, .id = P_RANK},
    {.key = "row", .header = "Plans row", .fmt = XLSX_FMT_INT, .width = 10, .id = P_ROW},
    {.key = "ib", .header = "IB intensity", .unit = "FLOP/B", .fmt = XLSX_FMT_CNT, .width = 14, .id = P_IB},
    {.key = "nvlink", .header = "NVLink intensity", .unit = "FLOP/B", .fmt = XLSX_FMT_CNT, .width = 14, .id = P_NV},
    {.key = "attained", .header = "Attained, speed of light", .unit = "TFLOP/s", .fmt = XLSX_FMT_BIG, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 14, .id = P_Y},
    {.key = "bound", .header = "Bound", .fmt = XLSX_FMT_TEXT, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 12, .id = P_BOUND},
    {.key = "plan", .header = "Plan (roofplan eval syntax)", .fmt = XLSX_FMT_TEXT, .width = 100, .id = P_PLAN},
};
/* clang-format on */

struct point {
    const char *family;
    size_t rank;
    size_t row;        /* 1-based position in the Plans ranges */
    double ib_x, nv_x; /* FLOP/B; 0 when the plan uses no such link */
    double y;          /* TFLOP/s */
    int bound;
    bool live; /* y and bound as formulas (not in constant_memory mode) */
    char plan[256];
};

static void point_get(const void *item, int id, struct xlsx_value *out)
{
    const struct point *p = item;
    switch (id) {
    case P_FAMILY:
        xlsx_value_text(out, p->family);
        break;
    case P_RANK:
        xlsx_value_num(out, (double)p->rank);
        break;
    case P_ROW:
        xlsx_value_num(out, (double)p->row);
        break;
    case P_IB:
        if (p->ib_x > 0)
            xlsx_value_num(out, p->ib_x);
        break;
    case P_NV:
        if (p->nv_x > 0)
            xlsx_value_num(out, p->nv_x);
        break;
    case P_Y:
        xlsx_value_num(out, p->y);
        if (p->live)
            out->formula = Y_TEMPLATE;
        break;
    case P_BOUND:
        xlsx_value_text(out, plans_table_bound_label(p->bound));
        out->fmt = xlsx_book_bound_fmt(p->bound, XLSX_BOUND_TEXT);
        if (p->live)
            out->formula = "INDEX(PLANS_BOUND,{row})";
        break;
    default:
        xlsx_value_text(out, p->plan);
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
    {.key = "roof", .header = "Roof", .fmt = XLSX_FMT_TEXT, .width = 0, .id = R_ROOF},
    {.key = "point", .header = "Point", .fmt = XLSX_FMT_TEXT, .width = 0, .id = R_POINT},
    {.key = "x", .header = "x", .unit = "FLOP/B", .fmt = XLSX_FMT_CNT, .width = 0, .id = R_X},
    {.key = "y", .header = "y", .unit = "TFLOP/s", .fmt = XLSX_FMT_BIG, .width = 0, .id = R_Y},
};
/* clang-format on */

/* One of a roof's three points: the left edge on the link's slope, the
 * ridge, the right edge; x and y are formulas where they can be. */
struct roof_point {
    const char *name;                /* "BF16 achievable over IB" */
    int at;                          /* 0 left edge, 1 ridge, 2 right edge */
    const struct views_roof *roof;   /* its rate, ridge and their names */
    const struct views_roofline *rl; /* the chart: x range, link's name */
};

static double ridge_x(const struct roof_point *p)
{
    return fmin(fmax(p->roof->ridge, p->rl->xlo), p->rl->xhi);
}

static void roof_get(const void *item, int id, struct xlsx_value *out)
{
    static const char *const at[3] = {"left edge", "ridge", "right edge"};
    const struct roof_point *p = item;
    double x = p->at == 0 ? p->rl->xlo : p->at == 1 ? ridge_x(p) : p->rl->xhi;
    switch (id) {
    case R_ROOF:
        xlsx_value_text(out, p->name);
        break;
    case R_POINT:
        xlsx_value_text(out, at[p->at]);
        break;
    case R_X:
        xlsx_value_num(out, x);
        if (p->at == 1) { /* the ridge, kept between the edges */
            snprintf(out->buf, sizeof out->buf, "MIN(MAX(%s,{x@-1}),{x@+1})",
                     p->roof->ridge_name);
            out->formula = out->buf;
        }
        break;
    default: /* attainable = min(roof, intensity x bandwidth) */
        xlsx_value_num(out, fmin(p->roof->tflops, x * p->roof->bps / 1e12));
        snprintf(out->buf, sizeof out->buf, "MIN(%s,{x}*%s/1000)",
                 p->roof->rate_name, p->rl->bw_name);
        out->formula = out->buf;
        break;
    }
}

static const struct xlsx_table roofs = {
    roof_cols, sizeof roof_cols / sizeof roof_cols[0], XLSX_FMT_HEAD, roof_get};

/* ---- Charts and layout ---- */

/* The point of pick p. */
static void point_of(const struct xlsx_book *b,
                     const struct views_pick *pk,
                     struct point *p)
{
    const struct views *r = b->r;
    const struct ranking_row *rw = views_sheet_row(r, pk->sheet);
    p->family = r->rank->family[rw->family].name;
    p->rank = r->sheet[pk->sheet] + 1;
    p->row = pk->sheet + 1;
    p->ib_x = pk->x[0];
    p->nv_x = pk->x[1];
    p->y = pk->y;
    p->bound = pk->bound;
    p->live = !b->big;
    plan_format(&rw->plan, p->plan, sizeof p->plan);
}

/* The chart's title (axis NULL) or axis's name, through the workbook's
 * gate of text (xlsx_book_text). */
static void chart_name(struct xlsx_book *b,
                       lxw_chart *ch,
                       lxw_chart_axis *axis,
                       const char *s)
{
    char *owned;
    const char *t = xlsx_book_text(b, s, &owned);
    if (t && axis)
        chart_axis_set_name(axis, t);
    else if (t)
        chart_title_set_name(ch, t);
    free(owned);
}

/* A series' name, through the workbook's gate of text. */
static void
series_name(struct xlsx_book *b, lxw_chart_series *se, const char *s)
{
    char *owned;
    const char *t = xlsx_book_text(b, s, &owned);
    if (t)
        chart_series_set_name(se, t);
    free(owned);
}

static void axes(struct xlsx_book *b,
                 lxw_chart *ch,
                 const struct views_roofline *o,
                 bool live)
{
    char title[200];
    lxw_chart_font tf;
    snprintf(title, sizeof title,
             "Roofline over %s: attained vs operational intensity%s", o->link,
             live ? " (live)" : "");
    chart_name(b, ch, NULL, title);
    memset(&tf, 0, sizeof tf);
    tf.size = 12;
    tf.bold = 1;
    chart_title_set_name_font(ch, &tf);
    snprintf(title, sizeof title,
             "operational intensity over %s (FLOP per byte, per GPU per "
             "step)",
             o->link);
    chart_name(b, ch, ch->x_axis, title);
    chart_name(b, ch, ch->y_axis,
               "attained TFLOP/s per GPU at the speed of light (executed "
               "FLOPs / step)");
    chart_axis_set_log_base(ch->x_axis, 10);
    chart_axis_set_log_base(ch->y_axis, 10);
    chart_axis_set_min(ch->x_axis, o->xlo);
    chart_axis_set_max(ch->x_axis, o->xhi);
    chart_axis_set_min(ch->y_axis, o->ylo);
    chart_axis_set_max(ch->y_axis, o->yhi_decade);
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

/* The plan series of chart l: one per block of points. */
static bool plan_series(struct xlsx_book *b, lxw_chart *ch, size_t l)
{
    const struct views *r = b->r;
    size_t k;
    for (k = 0; k <= r->nseries; k++) {
        const struct views_series *s = &r->series[k];
        char xs[96], ys[96];
        lxw_chart_fill fill;
        lxw_chart_line line;
        lxw_chart_series *se;
        if (s->n == 0)
            continue;
        xlsx_table_range(&points, XLSX_ROOFLINE_SHEET, l ? "nvlink" : "ib",
                         DATA_ROW + s->first, DATA_ROW + s->first + s->n - 1,
                         xs, sizeof xs);
        xlsx_table_range(&points, XLSX_ROOFLINE_SHEET, "attained",
                         DATA_ROW + s->first, DATA_ROW + s->first + s->n - 1,
                         ys, sizeof ys);
        se = add_series(b, ch, xs, ys);
        if (!se)
            return false;
        if (s->family < 0)
            series_name(b, se, "other families");
        else if (s->family == r->baseline.family && !r->baseline.fits)
            series_name(b, se, "baseline (does not fit)");
        else
            series_name(b, se, r->rank->family[s->family].name);
        chart_series_set_marker_type(se, s->family == r->baseline.family
                                             ? LXW_CHART_MARKER_X
                                             : LXW_CHART_MARKER_CIRCLE);
        chart_series_set_marker_size(se, 5);
        memset(&fill, 0, sizeof fill);
        fill.color = s->color;
        chart_series_set_marker_fill(se, &fill);
        memset(&line, 0, sizeof line);
        line.color = s->color;
        chart_series_set_marker_line(se, &line);
    }
    return true;
}

/* The achievable roofs of chart l: their rows in the roofs' table (three
 * per roof) and a series each. */
static bool roof_series(struct xlsx_book *b,
                        lxw_worksheet *ws,
                        lxw_chart *ch,
                        size_t l,
                        size_t *row)
{
    const struct views_roofline *o = &b->r->roofline[l];
    size_t q;
    for (q = 0; q < o->nroofs; q++) {
        const struct views_roof *f = &o->roof[q];
        char xs[96], ys[96], name[64];
        struct roof_point p = {name, 0, f, o};
        size_t r0 = *row;
        lxw_chart_series *se;
        lxw_chart_line line;
        if (f->peak)
            continue;
        diag_snprintf(name, sizeof name, "%s over %s", f->name, o->link);
        for (p.at = 0; p.at < 3; p.at++)
            xlsx_table_row(b, ws, &roofs, r0 + (size_t)p.at, &p);
        *row += 3;
        xlsx_table_range(&roofs, XLSX_ROOFLINE_SHEET, "x", r0, r0 + 2, xs,
                         sizeof xs);
        xlsx_table_range(&roofs, XLSX_ROOFLINE_SHEET, "y", r0, r0 + 2, ys,
                         sizeof ys);
        se = add_series(b, ch, xs, ys);
        if (!se)
            return false;
        series_name(b, se, name);
        chart_series_set_marker_type(se, LXW_CHART_MARKER_NONE);
        memset(&line, 0, sizeof line);
        line.color =
            strncmp(f->name, "FP8", 3) == 0 ? LXW_COLOR_BLACK : 0x595959;
        line.width = 2.25;
        if (strncmp(f->name, "FP8", 3) != 0)
            line.dash_type = LXW_CHART_LINE_DASH_DASH;
        chart_series_set_line(se, &line);
    }
    return true;
}

/* Both charts with their roofs; false when libxlsxwriter ran out. */
static bool charts(struct xlsx_book *b, lxw_worksheet *ws)
{
    size_t l, row = ROOF_ROW0;
    for (l = 0; l < 2; l++) {
        lxw_chart_options co;
        lxw_chart *ch = workbook_add_chart(b->wb, LXW_CHART_SCATTER);
        if (!ch) {
            xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED,
                            "workbook_add_chart");
            return false;
        }
        if (!plan_series(b, ch, l) || !roof_series(b, ws, ch, l, &row))
            return false;
        axes(b, ch, &b->r->roofline[l], !b->big);
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

/* The gnuplot charts below the native ones, each on its own rows (540
 * px at this scale: 27 rows), with a caption that dates them. */
static void images(struct xlsx_book *b,
                   lxw_worksheet *ws,
                   const char *ib_png,
                   const char *nvlink_png)
{
    const char *png[2] = {ib_png, nvlink_png};
    size_t l;
    for (l = 0; l < 2; l++) {
        lxw_image_options io;
        size_t row = l ? IMAGE_ROW_NV : IMAGE_ROW_IB;
        if (!png[l])
            continue;
        xlsx_book_strf(b, ws, row - 1, 0, xlsx_book_fmt(b, XLSX_FMT_H2),
                       "Every plan that fits, over %s (gnuplot, at the inputs "
                       "of %s)",
                       l ? "NVLink" : "IB", b->r->when);
        memset(&io, 0, sizeof io);
        io.x_scale = io.y_scale = IMAGE_SCALE;
        io.description =
            l ? "Roofline over NVLink (gnuplot)" : "Roofline over IB (gnuplot)";
        xlsx_book_check(
            b, worksheet_insert_image_opt(ws, (lxw_row_t)row, 0, png[l], &io),
            "worksheet_insert_image (roofline)");
    }
}

void xlsx_roofline_write(struct xlsx_book *b,
                         lxw_worksheet *ws,
                         const char *ib_png,
                         const char *nvlink_png)
{
    const struct views *r = b->r;
    size_t at = xlsx_table_col(&points, "family");
    size_t right = xlsx_table_col(&points, "bound"); /* the charts' width */
    size_t i;

    xlsx_book_page(b, ws, XLSX_PAGE_REPORT);
    worksheet_set_portrait(ws);
    xlsx_table_widths(b, ws, &points);
    xlsx_book_str(b, ws, 0, at,
                  "Roofline: which link keeps each plan from the compute roof",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_merge(b, ws, 1, at, right,
                    "x = (FP8 + BF16 FLOPs) / bytes over the link, per GPU "
                    "per step; y = the same FLOPs / step time (speed of "
                    "light). Roofs and points are formulas over Assumptions: "
                    "change IB_GBPS and both move. The points are the best "
                    "few plans of each family on the Plans sheet.",
                    xlsx_book_fmt(b, XLSX_FMT_NOTE_WRAP));
    xlsx_book_height(b, ws, 1, 44);

    images(b, ws, ib_png, nvlink_png);
    xlsx_book_str(b, ws, ROOF_ROW0 - 2, at, "Roofs (formulas over Assumptions)",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_table_header(b, ws, &roofs, ROOF_ROW0 - 1);
    if (charts(b, ws)) {
        struct point p;
        xlsx_book_str(b, ws, DATA_ROW - 2, at,
                      "Plans on the charts (attained and bound: formulas over "
                      "their Plans row)",
                      xlsx_book_fmt(b, XLSX_FMT_H2));
        xlsx_table_header(b, ws, &points, DATA_ROW - 1);
        for (i = 0; i < r->nroof_pick; i++) {
            point_of(b, &r->roof_pick[i], &p);
            xlsx_table_row(b, ws, &points, DATA_ROW + i, &p);
        }
        xlsx_book_print_area(
            b, ws, 0, ib_png || nvlink_png ? IMAGE_ROW_NV + 22 : PRINT_LAST,
            right);
        if (ib_png || nvlink_png) { /* the gnuplot charts on page 2 */
            lxw_row_t breaks[] = {IMAGE_ROW_IB - 1, 0};
            xlsx_book_check(b, worksheet_set_h_pagebreaks(ws, breaks),
                            "worksheet_set_h_pagebreaks");
        }
    }
}
