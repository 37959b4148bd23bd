/*
 * xlsx_families: the Families sheet and its family table (see
 * xlsx_families.h). The table's columns are the grid the Summary lays
 * its key figures and paragraphs on too (xlsx_summary.c).
 */
#include "xlsx_families.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "plans_table.h"
#include "xlsx_summary.h"
#include "xlsx_waterfall.h"

#define GIB 1073741824.0

/* A family's figure from its Plans row; "n/a" when an input makes it
 * undefined. */
#define FAMILY_CELL(column) "IFERROR(INDEX(" column ",{row}),\"n/a\")"

/* A family's best plan on the Plans sheet: the fastest that fits, else
 * the fastest, of the rows whose family is the name in {family}. */
#define FAM_FIT "(PLANS_FAMILY={family})*PLANS_FITS"
#define FAMILY_ROW                                                   \
    "IF(SUMPRODUCT(" FAM_FIT ")>0,MATCH(MIN(IF(" FAM_FIT             \
    ",PLANS_RANK_S)),IF(" FAM_FIT ",PLANS_RANK_S),0),MATCH(MIN(IF("  \
    "PLANS_FAMILY={family},PLANS_RANK_S)),IF(PLANS_FAMILY={family}," \
    "PLANS_RANK_S),0))"

enum col_id {
    S_SWATCH,
    S_FAMILY,
    S_STEP,
    S_BOUND,
    S_RATIO,
    S_STEP_O, /* the other communication model */
    S_BOUND_O,
    S_RATIO_O,
    S_MEM,
    S_FITS,
    S_ROW,
    S_COUNT,
    S_PLAN,
    S_WHY
};

/* The headers of the six model columns are set when written (they name
 * the models). */
/* clang-format off */
static const struct xlsx_column columns[] = {
    {.key = "swatch", .fmt = XLSX_FMT_NONE, .width = 2, .id = S_SWATCH},
    {.key = "family", .header = "Family", .fmt = XLSX_FMT_LABEL, .width = 24, .id = S_FAMILY},
    {.key = "step", .header = "Step", .unit = "s", .fmt = XLSX_FMT_SEC, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 9, .id = S_STEP},
    {.key = "bound", .header = "Bound", .fmt = XLSX_FMT_TEXT, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 8, .id = S_BOUND},
    {.key = "ratio", .header = "Comm/ compute", .fmt = XLSX_FMT_RAT, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 8, .id = S_RATIO},
    {.key = "step_o", .header = "Step", .unit = "s", .fmt = XLSX_FMT_SEC, .width = 9, .id = S_STEP_O},
    {.key = "bound_o", .header = "Bound", .fmt = XLSX_FMT_TEXT, .width = 8, .id = S_BOUND_O},
    {.key = "ratio_o", .header = "Comm/ compute", .fmt = XLSX_FMT_RAT, .width = 8, .id = S_RATIO_O},
    {.key = "mem", .header = "Memory", .unit = "GiB", .fmt = XLSX_FMT_GIB, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 8, .id = S_MEM},
    {.key = "fits", .header = "Fits", .fmt = XLSX_FMT_FITS, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 6, .id = S_FITS},
    {.key = "row", .header = "Plans row", .fmt = XLSX_FMT_INT, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 6, .id = S_ROW},
    {.key = "count", .header = "Fitting / evaluated", .fmt = XLSX_FMT_RIGHT, .width = 11, .id = S_COUNT},
    {.key = "plan", .header = "Best plan", .fmt = XLSX_FMT_SMALL, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 34, .id = S_PLAN},
    {.key = "why", .header = "Why (plain words)", .fmt = XLSX_FMT_SMALL, .width = 60, .id = S_WHY},
};
/* clang-format on */
#define NCOLS (sizeof columns / sizeof columns[0])

/* One family row, prepared before it is written. */
struct fam_row {
    const struct views *r;
    const struct ranking_family *f;
    const struct views_family *vf; /* its colour, row and sentence */
    struct lxw_format *swatch;
    char count[80], plan[256];
    bool live; /* its best plan is on the Plans sheet */
};

/* A bound: its colour when the plan fits; grey when it does not (a
 * family that does not fit is not "compute" green). */
static void bound(struct xlsx_value *out, int b, bool fits)
{
    xlsx_value_text(out, plans_table_bound_label(b));
    out->fmt =
        fits ? xlsx_book_bound_fmt(b, XLSX_BOUND_TEXT) : XLSX_FMT_NA_BOUND;
}

/* A live formula over the family's Plans row, when it is there. */
static void
live(const struct fam_row *fr, const char *tmpl, struct xlsx_value *out)
{
    if (fr->live)
        out->formula = tmpl;
}

static void get(const void *item, int id, struct xlsx_value *out)
{
    const struct fam_row *fr = item;
    const struct cost_result *b = &fr->f->best, *o = &fr->f->best_other;
    switch (id) {
    case S_SWATCH:
        xlsx_value_text(out, "");
        out->raw = fr->swatch;
        break;
    case S_FAMILY:
        xlsx_value_text(out, fr->f->name);
        break;
    case S_STEP:
        xlsx_value_num(out, cost_rank_step(b));
        live(fr, FAMILY_CELL("PLANS_RANK_S"), out);
        break;
    case S_BOUND:
        bound(out, b->t.bound, b->fits);
        live(fr, FAMILY_CELL("PLANS_BOUND"), out);
        break;
    case S_RATIO:
        xlsx_value_num(out, b->t.comm_compute_ratio);
        live(fr, FAMILY_CELL("PLANS_RATIO"), out);
        break;
    case S_STEP_O:
        xlsx_value_num(out, cost_rank_step(o));
        break;
    case S_BOUND_O:
        bound(out, o->t.bound, o->fits);
        break;
    case S_RATIO_O:
        xlsx_value_num(out, o->t.comm_compute_ratio);
        break;
    case S_MEM:
        xlsx_value_num(out, b->mem.total / GIB);
        live(fr, FAMILY_CELL("PLANS_MEM_TOTAL"), out);
        break;
    case S_FITS:
        out->kind = XLSX_BOOL;
        out->flag = b->fits;
        live(fr, FAMILY_CELL("PLANS_FITS"), out);
        break;
    case S_ROW:
        if (!fr->live)
            break;
        xlsx_value_num(out, (double)fr->vf->sheet_row + 1);
        out->formula = "IFERROR(" FAMILY_ROW ",\"n/a\")";
        out->array = true;
        break;
    case S_COUNT:
        xlsx_value_text(out, fr->count);
        break;
    case S_PLAN:
        xlsx_value_text(out, fr->plan);
        live(fr, FAMILY_CELL("PLANS_PLAN"), out);
        break;
    default:
        xlsx_value_text(out, fr->vf->why);
        break;
    }
}

static const struct xlsx_table table = {.col = columns,
                                        .ncols = NCOLS,
                                        .head_fmt = XLSX_FMT_HEAD,
                                        .get = get};

const struct xlsx_table *xlsx_families_table(void)
{
    return &table;
}

static size_t col(const char *key)
{
    return xlsx_table_col(&table, key);
}

void xlsx_families_grid(struct xlsx_book *b, lxw_worksheet *ws)
{
    size_t k;
    for (k = 0; k < NCOLS; k++) /* one range each: the layout's grid */
        xlsx_book_width(b, ws, k, k, columns[k].width);
}

/* Live formats of the family rows first..last: a family that stops
 * fitting turns its bound grey and its fit red. */
static void
live_formats(struct xlsx_book *b, lxw_worksheet *ws, size_t first, size_t last)
{
    lxw_conditional_format cf;
    char grey[PLANS_FORMULA_MAX];
    memset(&cf, 0, sizeof cf);
    cf.type = LXW_CONDITIONAL_TYPE_CELL;
    cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
    cf.value_string = "0"; /* 1 / 0 formulas, shown TRUE / FALSE */
    cf.format = xlsx_book_fmt(b, XLSX_FMT_CF_RED);
    xlsx_book_check(b,
                    worksheet_conditional_format_range(
                        ws, (lxw_row_t)first, (lxw_col_t)col("fits"),
                        (lxw_row_t)last, (lxw_col_t)col("fits"), &cf),
                    "worksheet_conditional_format_range (fits)");
    if (xlsx_table_formula(&table, "NOT({fits})", first, grey, sizeof grey)) {
        memset(&cf, 0, sizeof cf);
        cf.type = LXW_CONDITIONAL_TYPE_FORMULA;
        cf.value_string = grey;
        cf.format = xlsx_book_fmt(b, XLSX_FMT_NA_BOUND);
        xlsx_book_check(b,
                        worksheet_conditional_format_range(
                            ws, (lxw_row_t)first, (lxw_col_t)col("bound"),
                            (lxw_row_t)last, (lxw_col_t)col("bound"), &cf),
                        "worksheet_conditional_format_range (bound)");
    }
}

/* The family table, fastest family first. */
static size_t family_table(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    const char *cm = comm_model_str(r->in->comm),
               *co = xlsx_book_other_model(r);
    struct xlsx_column cols[NCOLS];
    struct xlsx_table t = table;
    char h[6][96];
    static const int model_col[6] = {S_STEP,   S_BOUND,   S_RATIO,
                                     S_STEP_O, S_BOUND_O, S_RATIO_O};
    struct fam_row fr;
    size_t i, k, first;

    memcpy(cols, columns, sizeof cols);
    for (k = 0; k < 6; k++) { /* "Step, topo (s)", "Bound, flat" */
        const char *head = columns[model_col[k]].header;
        if (k % 3 == 0) /* the steps are the ranking's */
            head = r->in->expected ? "Expected step" : "Speed-of-light step";
        snprintf(h[k], sizeof h[k], "%s, %s%s", head, k < 3 ? cm : co,
                 k < 3 ? "" : " (values)");
        cols[model_col[k]].header = h[k];
    }
    t.col = cols;
    xlsx_book_str(b, ws, row++, col("family"),
                  "Best plan per family (the fastest that fits, else the "
                  "fastest), fastest first",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_table_header(b, ws, &t, row);
    /* "Expected step, flat (values) (s)" wraps to five lines */
    xlsx_book_height(b, ws, row++, r->in->expected ? 62 : 44);
    first = row;
    for (i = 0; i < r->rank->nfamilies; i++) {
        size_t fi = (size_t)r->rank->families_by_step[i];
        char a[32], b2[32];
        fr.r = r;
        fr.f = &r->rank->family[fi];
        fr.vf = &r->family[fi];
        fr.live = !b->big && fr.vf->sheet_row >= 0;
        fr.swatch = xlsx_book_fill(b, fr.vf->color);
        plan_format(&fr.f->best.plan, fr.plan, sizeof fr.plan);
        views_thousands((double)fr.f->fitting, a, sizeof a);
        views_thousands((double)fr.f->plans, b2, sizeof b2);
        snprintf(fr.count, sizeof fr.count, "%s / %s", a, b2);
        xlsx_table_row(b, ws, &t, row, &fr);
        xlsx_book_height(b, ws, row,
                         fmax(xlsx_book_text_height(strlen(fr.vf->why),
                                                    columns[S_WHY].width, 9),
                              xlsx_book_text_height(strlen(fr.plan),
                                                    columns[S_PLAN].width, 9)));
        row++;
    }
    if (row > first && !b->big)
        live_formats(b, ws, first, row - 1);
    xlsx_book_merge(b, ws, row++, col("family"), NCOLS - 1,
                    "Bound: the resource whose time sets the overlapped step "
                    "(grey: the plan does not fit). Comm/compute: the "
                    "busiest link's time over the compute time (below 1, "
                    "communication can hide under compute where the stack "
                    "overlaps it; Why names what it leaves exposed). Blue "
                    "headers: "
                    "live formulas over the Plans sheet.",
                    xlsx_book_fmt(b, XLSX_FMT_NOTE));
    return row + 1;
}

void xlsx_families_write(struct xlsx_book *b,
                         lxw_worksheet *ws,
                         const char *step_png,
                         const char *waterfall_png)
{
    const struct views *r = b->r;
    lxw_row_t breaks[3] = {0, 0, 0}; /* each chart on its page */
    size_t row = 0, nbreaks = 0;

    worksheet_set_tab_color(ws, XLSX_COLOR_SECTION);
    xlsx_book_page(b, ws, XLSX_PAGE_REPORT);
    xlsx_families_grid(b, ws);
    xlsx_book_strf(b, ws, row++, col("family"),
                   xlsx_book_fmt(b, XLSX_FMT_TITLE),
                   "Plan families for %s on %ld x %s", r->in->m->spec.name,
                   views_gpus(r), r->in->hw->spec.gpu_name);
    xlsx_book_link(b, ws, row++, col("family"), XLSX_SUMMARY_SHEET,
                   "Back to the Summary");
    row = family_table(b, ws, row + 1);
    if (step_png) {
        lxw_image_options io;
        breaks[nbreaks++] = (lxw_row_t)row;
        memset(&io, 0, sizeof io);
        io.x_scale = io.y_scale = 0.8;
        io.description = "Step-time breakdown per family";
        xlsx_book_strf(
            b, ws, row++, col("family"), xlsx_book_fmt(b, XLSX_FMT_H2),
            "Step time per family (chart at the inputs of %s)", r->when);
        xlsx_book_check(b,
                        worksheet_insert_image_opt(ws, (lxw_row_t)row,
                                                   (lxw_col_t)col("family"),
                                                   step_png, &io),
                        "worksheet_insert_image (step breakdown)");
        row += 37; /* 720 px */
    }
    if (waterfall_png) {
        breaks[nbreaks++] = (lxw_row_t)row;
        row =
            xlsx_waterfall_chart(b, ws, row, col("family"), waterfall_png, 0.8);
    }
    if (nbreaks > 0)
        xlsx_book_check(b, worksheet_set_h_pagebreaks(ws, breaks),
                        "worksheet_set_h_pagebreaks");
    xlsx_book_print_area(b, ws, 0, row, NCOLS - 1);
}
