/*
 * xlsx_sensitivity: the Sensitivity sheet (see xlsx_sensitivity.h). The
 * grids' columns are the report's bandwidths (the sweep's [report]
 * grids), so their tables are built when the sheet is written; the
 * crossover table is fixed. Every number is the report's (figures).
 */
#include "xlsx_sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "xlsx_table.h"

#define GRID_WIDTH_COLS (RANKING_SENS_MAX + 1)
#define G_FAMILY        (-1) /* id of the grid's first column */
#define FAMILY_WIDTH    34.0

/* A family's row of one grid. */
struct grid_row {
    const struct ranking_family *f;
    bool nv; /* the NVLink grid, else IB */
    char name[96];
};

static void get_grid(const void *item, int id, struct xlsx_value *out)
{
    const struct grid_row *g = item;
    double step;
    int b;
    if (id == G_FAMILY) {
        out->kind = XLSX_TEXT;
        out->str = g->name;
        return;
    }
    step = g->nv ? g->f->sens_nv_step[id] : g->f->sens_ib_step[id];
    b = g->nv ? g->f->sens_nv_bound[id] : g->f->sens_ib_bound[id];
    if (step > 0) {
        out->kind = XLSX_NUM;
        out->num = step;
        out->fmt = xlsx_book_bound_fmt(b, XLSX_BOUND_SECONDS);
    } else {
        out->kind = XLSX_TEXT;
        out->str = "no fit";
        out->fmt = XLSX_FMT_NOTE;
    }
}

/* One grid: a family per row, a bandwidth per column; returns the next
 * row. */
static size_t grid(struct xlsx_book *b,
                   struct lxw_worksheet *ws,
                   size_t row,
                   const char *title,
                   const struct views_sens_chart *c,
                   bool nv)
{
    const struct views *r = b->r;
    struct xlsx_column cols[RANKING_SENS_MAX + 1];
    struct xlsx_table t = {cols, c->n + 1, XLSX_FMT_HEAD, get_grid};
    char heads[RANKING_SENS_MAX][32];
    size_t i, k, skipped = 0;

    memset(cols, 0, sizeof cols);
    cols[0].key = "family";
    cols[0].header = "Family  \\  GB/s per GPU";
    cols[0].fmt = XLSX_FMT_BOLD;
    cols[0].head_fmt = XLSX_FMT_HEAD_LEFT;
    cols[0].id = G_FAMILY;
    for (k = 0; k < c->n && k < RANKING_SENS_MAX; k++) {
        snprintf(heads[k], sizeof heads[k], "%g%s", c->gbps[k],
                 fabs(c->gbps[k] - c->today) < 1e-9 ? " (now)" : "");
        cols[k + 1].key = heads[k];
        cols[k + 1].header = heads[k];
        cols[k + 1].fmt = XLSX_FMT_SEC;
        cols[k + 1].id = (int)k;
    }
    t.ncols = k + 1;
    xlsx_book_str(b, ws, row++, 0, title, xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_table_header(b, ws, &t, row++);
    for (i = 0; i < c->nfamilies; i++) {
        struct grid_row g;
        g.f = &r->rank->family[c->family[i]];
        g.nv = nv;
        diag_snprintf(g.name, sizeof g.name, "%s%s", g.f->name,
                      g.f->sens_unfit ? " (fastest; does not fit)" : "");
        xlsx_table_row(b, ws, &t, row++, &g);
    }
    for (i = 0; i < r->rank->nfamilies; i++)
        skipped +=
            r->rank->family[i].fitting == 0 && !r->rank->family[i].sens_unfit;
    if (skipped > 0)
        xlsx_book_strf(b, ws, row++, 0, xlsx_book_fmt(b, XLSX_FMT_NOTE),
                       "%zu families without a plan that fits are left out "
                       "(see the crossover table below).",
                       skipped);
    if (c->line1[0])
        xlsx_book_strf(b, ws, row++, 0, xlsx_book_fmt(b, XLSX_FMT_LABEL),
                       "%s: %s.", c->line1, c->line2);
    return row + 1;
}

/* ---- Crossover ---- */

enum cross_id { X_FAMILY, X_BOUND, X_IB, X_IB_THEN, X_NV, X_NV_THEN };

/* clang-format off */
static const struct xlsx_column cross_cols[] = {
    {.key = "family", .header = "Family", .fmt = XLSX_FMT_BOLD, .head_fmt = XLSX_FMT_HEAD_LEFT, .width = 0, .id = X_FAMILY},
    {.key = "bound", .header = "Bound now", .fmt = XLSX_FMT_TEXT, .width = 0, .id = X_BOUND},
    {.key = "ib", .header = "IB meets compute at", .unit = "GB/s", .fmt = XLSX_FMT_GBPS, .width = 0, .id = X_IB},
    {.key = "ib_then", .header = "then bound by", .fmt = XLSX_FMT_TEXT, .width = 0, .id = X_IB_THEN},
    {.key = "nvlink", .header = "NVLink meets compute at", .unit = "GB/s", .fmt = XLSX_FMT_GBPS, .width = 0, .id = X_NV},
    {.key = "nv_then", .header = "then bound by", .fmt = XLSX_FMT_TEXT, .width = 0, .id = X_NV_THEN},
};
/* clang-format on */

struct cross_row {
    const struct views *r;
    const struct ranking_family *f;
    bool baseline;
};

static void then_bound(const struct ranking_crossover *x,
                       struct xlsx_value *out)
{
    out->kind = XLSX_TEXT;
    if (x->state != RANKING_CROSS_AT) {
        out->str = "";
        return;
    }
    out->str = cost_bound_label(x->then_bound);
    out->fmt = xlsx_book_bound_fmt(x->then_bound, XLSX_BOUND_TEXT);
}

static void get_cross(const void *item, int id, struct xlsx_value *out)
{
    const struct cross_row *c = item;
    const struct ranking_family *f = c->f;
    const struct ranking_crossover *x =
        id == X_IB || id == X_IB_THEN ? &f->cross_ib : &f->cross_nv;
    switch (id) {
    case X_FAMILY:
        out->kind = XLSX_TEXT;
        out->str = f->name;
        if (c->baseline)
            out->fmt = XLSX_FMT_RED_LABEL;
        break;
    case X_BOUND:
        out->kind = XLSX_TEXT;
        out->str = cost_bound_label(f->best.t.bound);
        out->fmt = f->best.fits
                       ? xlsx_book_bound_fmt(f->best.t.bound, XLSX_BOUND_TEXT)
                       : XLSX_FMT_NA_BOUND;
        break;
    case X_IB:
    case X_NV:
        if (x->state == RANKING_CROSS_AT) {
            out->kind = XLSX_NUM;
            out->num = x->gbps;
        } else {
            out->kind = XLSX_TEXT;
            out->str = x->state == RANKING_CROSS_ALREADY ? "already" : "never";
            out->fmt = XLSX_FMT_RIGHT;
        }
        break;
    default:
        then_bound(x, out);
        break;
    }
}

static const struct xlsx_table cross = {
    cross_cols, sizeof cross_cols / sizeof cross_cols[0], XLSX_FMT_HEAD,
    get_cross};

/* The gnuplot charts, each on its own block of rows. */
static size_t images(struct xlsx_book *b,
                     struct lxw_worksheet *ws,
                     size_t row,
                     const char *ib_png,
                     const char *nvlink_png)
{
    const char *png[2] = {ib_png, nvlink_png};
    size_t l;
    for (l = 0; l < 2; l++) {
        lxw_image_options io;
        if (!png[l])
            continue;
        xlsx_book_strf(b, ws, row++, 0, xlsx_book_fmt(b, XLSX_FMT_H2),
                       "Step time against %s bandwidth (chart at the inputs "
                       "of %s)",
                       l ? "NVLink" : "InfiniBand", b->r->when);
        memset(&io, 0, sizeof io);
        io.x_scale = io.y_scale = 0.6; /* 960 x 540 px: 27 rows of 20 */
        io.description = l ? "Sensitivity to NVLink bandwidth"
                           : "Sensitivity to InfiniBand bandwidth";
        xlsx_book_check(
            b, worksheet_insert_image_opt(ws, (lxw_row_t)row, 0, png[l], &io),
            "worksheet_insert_image (sensitivity)");
        row += 29;
    }
    return row;
}

void xlsx_sensitivity_write(struct xlsx_book *b,
                            struct lxw_worksheet *ws,
                            const char *ib_png,
                            const char *nvlink_png)
{
    const struct views *r = b->r;
    static const char *const bn[4] = {"compute-bound", "IB-bound",
                                      "NVLink-bound", "HBM-bound"};
    size_t row = 0, i, last;

    xlsx_book_page(b, ws, XLSX_PAGE_REPORT);
    xlsx_book_width(b, ws, 0, 0, FAMILY_WIDTH);
    xlsx_book_width(b, ws, 1, GRID_WIDTH_COLS, 11);
    xlsx_book_str(b, ws, row++, 0, "Sensitivity to link bandwidth",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_str(b, ws, row++, 0,
                  "Step time (s, speed of light) of each family's best "
                  "fitting plan if the link were this fast, everything else "
                  "as in Assumptions; the colour names the bound. The "
                  "baseline is shown even when none of its plans fits (its "
                  "fastest plan, re-timed).",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    for (i = 0; i < 4; i++) /* the legend, two grid columns each */
        xlsx_book_merge(
            b, ws, row, 1 + 2 * i, 2 + 2 * i, bn[i],
            xlsx_book_fmt(b, xlsx_book_bound_fmt((int)i, XLSX_BOUND_TEXT)));
    row += 2;
    row = grid(b, ws, row, "InfiniBand (per GPU per direction)", &r->sens[0],
               false);
    row = grid(b, ws, row, "NVLink (per GPU per direction)", &r->sens[1], true);

    xlsx_book_str(b, ws, row++, 0,
                  "Crossover: the bandwidth at which the best plan's link "
                  "time meets its compute time, and what binds there",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_table_header(b, ws, &cross, row);
    xlsx_book_height(b, ws, row++, 32);
    for (i = 0; i < r->rank->nfamilies; i++) {
        long k = r->rank->families_by_step[i];
        struct cross_row c = {r, &r->rank->family[k], k == r->baseline.family};
        xlsx_table_row(b, ws, &cross, row++, &c);
    }
    xlsx_book_str(b, ws, row++, 0,
                  "\"already\": the link's time is at or below compute now; "
                  "\"never\": its per-call latency alone exceeds the compute "
                  "time. The plan turns compute-bound at the crossover only "
                  "when compute binds there.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    last = row;
    row = images(b, ws, row + 1, ib_png, nvlink_png);
    xlsx_book_print_area(b, ws, 0, row > last + 1 ? row : last,
                         GRID_WIDTH_COLS);
}
