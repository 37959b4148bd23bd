/*
 * xlsx_sensitivity: the Sensitivity sheet (see xlsx_sensitivity.h). The
 * grid's columns are the report's bandwidths, so its table is built when
 * the sheet is written; the crossover table is fixed.
 */
#include "xlsx_sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "xlsx_table.h"

#define GRID_MAX \
    (REPORT_SENS_IB > REPORT_SENS_NV ? REPORT_SENS_IB : REPORT_SENS_NV)
/* Columns given the grid's width: one beyond the widest grid. */
#define GRID_WIDTH_COLS (GRID_MAX + 1)
#define G_FAMILY        (-1) /* id of the grid's first column */

/* A family's row of one grid. */
struct grid_row {
    const struct report_family *f;
    bool nv; /* the NVLink grid, else IB */
};

static void get_grid(const void *item, int id, struct xlsx_value *out)
{
    const struct grid_row *g = item;
    double step;
    int b;
    if (id == G_FAMILY) {
        out->kind = XLSX_TEXT;
        out->str = g->f->name;
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
                   const double *gbps,
                   size_t n,
                   double now,
                   bool nv)
{
    const struct report *r = b->r;
    struct xlsx_column cols[GRID_MAX + 1];
    struct xlsx_table t = {cols, n + 1, XLSX_FMT_HEAD, get_grid};
    char heads[GRID_MAX][32];
    size_t i, k, skipped = 0;

    memset(cols, 0, sizeof cols);
    cols[0].key = "family";
    cols[0].header = "Family  \\  GB/s per GPU";
    cols[0].fmt = XLSX_FMT_BOLD;
    cols[0].head_fmt = XLSX_FMT_HEAD_LEFT;
    cols[0].id = G_FAMILY;
    for (k = 0; k < n && k < GRID_MAX; k++) {
        snprintf(heads[k], sizeof heads[k], "%g%s", gbps[k],
                 fabs(gbps[k] - now) < 1e-9 ? " (now)" : "");
        cols[k + 1].key = heads[k];
        cols[k + 1].header = heads[k];
        cols[k + 1].fmt = XLSX_FMT_SEC;
        cols[k + 1].id = (int)k;
    }
    t.ncols = k + 1;
    xlsx_book_str(b, ws, row++, xlsx_table_col(&t, "family"), title,
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_table_header(b, ws, &t, row++);
    for (i = 0; i < r->nfamilies; i++) {
        struct grid_row g = {&r->family[r->families_by_step[i]], nv};
        if (g.f->fitting == 0) {
            skipped++;
            continue;
        }
        xlsx_table_row(b, ws, &t, row++, &g);
    }
    if (skipped > 0)
        xlsx_book_strf(b, ws, row++, xlsx_table_col(&t, "family"),
                       xlsx_book_fmt(b, XLSX_FMT_NOTE),
                       "%zu families without a plan that fits are left out "
                       "(see the crossover table below).",
                       skipped);
    return row + 1;
}

/* ---- Crossover ---- */

enum cross_id { X_FAMILY, X_IB, X_NV };

/* clang-format off */
static const struct xlsx_column cross_cols[] = {
    {"family", "Family", "", XLSX_FMT_BOLD, XLSX_FMT_HEAD_LEFT, 24, NULL,
     X_FAMILY},
    {"ib", "IB", "GB/s", XLSX_FMT_GBPS, 0, 10, NULL, X_IB},
    {"nvlink", "NVLink", "GB/s", XLSX_FMT_GBPS, 0, 10, NULL, X_NV},
};
/* clang-format on */

static void get_cross(const void *item, int id, struct xlsx_value *out)
{
    const struct report_family *f = item;
    double v = id == X_IB ? f->ib_crossover_gbps : f->nv_crossover_gbps;
    if (id == X_FAMILY) {
        out->kind = XLSX_TEXT;
        out->str = f->name;
        if (strcmp(f->name, "ZeRO-3") == 0) /* the FSDP baseline */
            out->fmt = XLSX_FMT_RED_LABEL;
    } else if (v <= 0) {
        out->kind = XLSX_TEXT;
        out->str = v < 0 ? "never" : "already";
        out->fmt = XLSX_FMT_RIGHT;
    } else {
        out->kind = XLSX_NUM;
        out->num = v;
    }
}

static const struct xlsx_table cross = {
    cross_cols, sizeof cross_cols / sizeof cross_cols[0], XLSX_FMT_HEAD,
    get_cross};

void xlsx_sensitivity_write(struct xlsx_book *b, struct lxw_worksheet *ws)
{
    const struct report *r = b->r;
    static const char *const bn[4] = {"compute-bound", "IB-bound",
                                      "NVLink-bound", "HBM-bound"};
    size_t row = 0, i, at = xlsx_table_col(&cross, "family");

    xlsx_book_page(ws, true);
    xlsx_book_width(b, ws, at, at, cross_cols[X_FAMILY].width);
    xlsx_book_width(b, ws, at + 1, at + GRID_WIDTH_COLS,
                    cross_cols[X_IB].width);
    xlsx_book_str(b, ws, row++, at, "Sensitivity to link bandwidth",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_str(b, ws, row++, at,
                  "Step time (s) of each family's best fitting plan if the "
                  "link were this fast, everything else as in Assumptions; "
                  "the colour names the bound.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    for (i = 0; i < 4; i++) /* the legend, two grid columns each */
        xlsx_book_merge(
            b, ws, row, at + 1 + 2 * i, at + 2 + 2 * i, bn[i],
            xlsx_book_fmt(b, xlsx_book_bound_fmt((int)i, XLSX_BOUND_TEXT)));
    row += 2;
    row = grid(b, ws, row, "InfiniBand (per GPU per direction)",
               r->sens_ib_gbps, REPORT_SENS_IB, r->hw->spec.ib_gbps, false);
    row = grid(b, ws, row, "NVLink (per GPU per direction)", r->sens_nv_gbps,
               REPORT_SENS_NV, r->hw->spec.nvlink_gbps, true);

    xlsx_book_str(b, ws, row++, at,
                  "Crossover: bandwidth at which the best plan turns "
                  "compute-bound",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_table_header(b, ws, &cross, row);
    xlsx_book_height(b, ws, row++, 32);
    for (i = 0; i < r->nfamilies; i++)
        xlsx_table_row(b, ws, &cross, row++,
                       &r->family[r->families_by_step[i]]);
    xlsx_book_str(b, ws, row, at,
                  "\"already\": the link's time is at or below compute now; "
                  "\"never\": its per-call latency alone exceeds the compute "
                  "time.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
}
