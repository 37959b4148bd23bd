/*
 * xlsx_plans: the Plans sheet (see xlsx_plans.h). The columns, their
 * values and formula templates are plans_table's, shared with plans.csv;
 * the rows are the report's sheet rows (figures).
 */
#include "xlsx_plans.h"

#include <stdlib.h>
#include <string.h>

#include <xlsxwriter.h>

#include "plans_table.h"
#include "xlsx_table.h"

#define PRINT_PLANS 60      /* Plans rows on the printout */
#define PRINT_LAST  "bound" /* the last column on the printout */
#define COLS_MAX    192     /* more columns than plans_table has is an error */

/* The ties of the fastest fitting plan (Summary's FASTEST_STEP_S), live,
 * on the column the plans rank by ("%s": its key). */
#define TIE_TEMPLATE "AND({fits},{%s}<=FASTEST_STEP_S*(1+TIE_PCT/100))"

/* Conditional formats of the data rows 1..last: the bound's fill, a red
 * "does not fit", a data bar for MFU, the fastest plan's ties. */
static void conditional(struct xlsx_book *b, lxw_worksheet *ws, size_t last)
{
    const char *key = plans_table_rank_key(b->r);
    long step = plans_table_find(key);
    struct plans_formula tie;
    char tie_template[96];
    char tie_text[PLANS_FORMULA_MAX];
    static const char *const label[4] = {"\"compute\"", "\"IB\"", "\"NVLink\"",
                                         "\"HBM\""};
    long bound = plans_table_find("bound"), fits = plans_table_find("fits");
    long mfu = plans_table_find("mfu");
    lxw_conditional_format cf;
    int k;
    if (bound < 0 || fits < 0 || mfu < 0 || last < 1 || last >= LXW_ROW_MAX)
        return;
    for (k = 0; k < 4; k++) {
        memset(&cf, 0, sizeof cf);
        cf.type = LXW_CONDITIONAL_TYPE_CELL;
        cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
        cf.value_string = (char *)label[k];
        cf.format = xlsx_book_fmt(b, xlsx_book_bound_fmt(k, XLSX_BOUND_CF));
        xlsx_book_check(b,
                        worksheet_conditional_format_range(
                            ws, 1, (lxw_col_t)bound, (lxw_row_t)last,
                            (lxw_col_t)bound, &cf),
                        "worksheet_conditional_format_range (bound)");
    }
    memset(&cf, 0, sizeof cf);
    cf.type = LXW_CONDITIONAL_TYPE_CELL;
    cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
    cf.value_string = b->big ? "FALSE" : "0"; /* values, or 1 / 0 formulas */
    cf.format = xlsx_book_fmt(b, XLSX_FMT_CF_RED);
    xlsx_book_check(b,
                    worksheet_conditional_format_range(ws, 1, (lxw_col_t)fits,
                                                       (lxw_row_t)last,
                                                       (lxw_col_t)fits, &cf),
                    "worksheet_conditional_format_range (fits)");
    memset(&cf, 0, sizeof cf);
    cf.type = LXW_CONDITIONAL_DATA_BAR;
    cf.bar_color = 0x63BE7B;
    cf.bar_solid = 1;
    cf.min_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
    cf.min_value = 0;
    xlsx_book_check(b,
                    worksheet_conditional_format_range(ws, 1, (lxw_col_t)mfu,
                                                       (lxw_row_t)last,
                                                       (lxw_col_t)mfu, &cf),
                    "worksheet_conditional_format_range (MFU)");
    if (step < 0 || b->big)
        return;
    snprintf(tie_template, sizeof tie_template, TIE_TEMPLATE, key);
    if (!plans_table_formula_compile(tie_template, &tie)) {
        xlsx_book_invalid(b, "Plans: tie template");
        return;
    }
    plans_table_formula_expand(&tie, 2, tie_text, sizeof tie_text);
    memset(&cf, 0, sizeof cf);
    cf.type = LXW_CONDITIONAL_TYPE_FORMULA;
    cf.value_string = tie_text;
    cf.format = xlsx_book_fmt(b, XLSX_FMT_CF_KEPT);
    xlsx_book_check(b,
                    worksheet_conditional_format_range(ws, 1, (lxw_col_t)step,
                                                       (lxw_row_t)last,
                                                       (lxw_col_t)step, &cf),
                    "worksheet_conditional_format_range (ties)");
}

/* The workbook names of the columns' ranges (PLANS_FITS, ...), and
 * PLANS_RANK_S over the column the ranking uses. */
static void names(struct xlsx_book *b,
                  const struct plans_column *cols,
                  size_t n,
                  size_t last)
{
    long rank = plans_table_find(plans_table_rank_key(b->r));
    char ref[96], col[8];
    size_t k;
    if (last < 1)
        return;
    for (k = 0; k < n; k++) {
        if (!cols[k].name && (long)k != rank)
            continue;
        plans_table_col_name(k, col, sizeof col);
        snprintf(ref, sizeof ref, "=%s!$%s$2:$%s$%zu", XLSX_PLANS_SHEET, col,
                 col, last + 1);
        if (cols[k].name)
            xlsx_book_define(b, cols[k].name, ref);
        if ((long)k == rank)
            xlsx_book_define(b, "PLANS_RANK_S", ref);
    }
}

/* One plan's cells at sheet row `row`: formulas (with the C values
 * cached) where the column has a template, unless big. */
static void plan_row(struct xlsx_book *b,
                     lxw_worksheet *ws,
                     size_t i,
                     const struct plans_column *cols,
                     const struct plans_formula *t,
                     struct lxw_format *const *fmt,
                     size_t n)
{
    const struct views *r = b->r;
    const struct ranking_row *row = views_sheet_row(r, i);
    char formula[PLANS_FORMULA_MAX];
    size_t k;
    for (k = 0; k < n; k++) {
        struct plans_value v;
        plans_table_value_row(&cols[k], r, row,
                              ranking_row_rank(r->rank, r->sheet[i]), &row->t,
                              &v);
        if (v.kind == PLANS_EMPTY)
            continue;
        if (plans_table_formula(&cols[k], b->r->rank) && !b->big) {
            plans_table_formula_expand(&t[k], (unsigned long)i + 2, formula,
                                       sizeof formula);
            if (v.kind == PLANS_NUMBER)
                xlsx_book_formula_num(b, ws, i + 1, k, formula, v.num, fmt[k]);
            else if (v.kind == PLANS_BOOL) /* 1 / 0, shown TRUE / FALSE */
                xlsx_book_formula_num(b, ws, i + 1, k, formula, v.flag ? 1 : 0,
                                      fmt[k]);
            else
                xlsx_book_formula_str(b, ws, i + 1, k, formula, v.str, fmt[k]);
        } else if (v.kind == PLANS_NUMBER) {
            xlsx_book_num(b, ws, i + 1, k, v.num, fmt[k]);
        } else if (v.kind == PLANS_BOOL) {
            xlsx_book_bool(b, ws, i + 1, k, v.flag, fmt[k]);
        } else {
            xlsx_book_str(b, ws, i + 1, k, v.str, fmt[k]);
        }
    }
}

void xlsx_plans_write(struct xlsx_book *b,
                      lxw_worksheet *ws,
                      size_t big_columns)
{
    const struct views *r = b->r;
    size_t n, i, k, ncols;
    const struct plans_column *cols = plans_table_columns(&ncols);
    struct plans_formula *t = NULL;
    struct lxw_format *fmt[COLS_MAX], *head[COLS_MAX];
    char heads[COLS_MAX][96];
    const char *hp[COLS_MAX];
    size_t last = r->nsheet; /* last data row (0-based); header at 0 */

    worksheet_set_tab_color(ws, XLSX_COLOR_LIVE);
    if (ncols > COLS_MAX) { /* never cut columns silently */
        xlsx_book_invalid(b, "Plans: more columns than COLS_MAX");
        return;
    }
    n = ncols;
    if (b->big && n > big_columns) /* see xlsx_out.h */
        n = big_columns;
    if (r->nsheet + 1 > LXW_ROW_MAX) {
        xlsx_book_check(b, LXW_ERROR_WORKSHEET_INDEX_OUT_OF_RANGE,
                        "Plans: more rows than a sheet holds");
        return;
    }
    t = calloc(n, sizeof *t);
    if (!t) {
        xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED,
                        "Plans: formula templates");
        return;
    }
    for (k = 0; k < n; k++) {
        plans_table_header(&cols[k], heads[k], sizeof heads[k]);
        hp[k] = heads[k];
        head[k] = xlsx_book_fmt(b, plans_table_formula(&cols[k], b->r->rank)
                                       ? XLSX_FMT_HEAD_LIVE
                                       : XLSX_FMT_HEAD);
        fmt[k] = xlsx_book_number(b, cols[k].num_format);
        if (plans_table_formula(&cols[k], b->r->rank) &&
            !plans_table_formula_compile(
                plans_table_formula(&cols[k], b->r->rank), &t[k]))
            xlsx_book_invalid(b, "Plans: formula template");
        xlsx_book_check(b,
                        worksheet_set_column(ws, (lxw_col_t)k, (lxw_col_t)k,
                                             cols[k].width, fmt[k]),
                        "worksheet_set_column");
    }
    xlsx_book_height(b, ws, 0, 46);
    if (!b->big && r->nsheet > 0) {
        xlsx_book_table(b, ws, "PlansTable", 0, last, n, hp, head);
    } else {
        for (k = 0; k < n; k++) /* values only in this mode */
            xlsx_book_str(b, ws, 0, k, heads[k],
                          xlsx_book_fmt(b, XLSX_FMT_HEAD));
        xlsx_book_check(
            b,
            worksheet_autofilter(ws, 0, 0, (lxw_row_t)last, (lxw_col_t)(n - 1)),
            "worksheet_autofilter");
    }
    xlsx_book_freeze(b, ws, 1, plans_table_frozen());

    for (i = 0; i < r->nsheet && b->err == 0; i++) {
        plan_row(b, ws, i, cols, t, fmt, n);
        progress_add(r->in->progress, 1);
    }
    free(t);
    conditional(b, ws, last);
    names(b, cols, n, last);
    xlsx_book_page(b, ws, XLSX_PAGE_TABLE);
    xlsx_book_repeat_row(b, ws, 0);
    {
        /* printed: the plan, its steps with their range and its bound,
         * the columns up to Bound (129 characters: one Letter or A4 page
         * wide at 8 points or more, tests/integration/88_print.sh); the
         * rest is the screen's and plans.csv's (issue 37) */
        long core = plans_table_find(PRINT_LAST);
        size_t lastcol = core > 0 && (size_t)core < n ? (size_t)core : n - 1;
        size_t lastrow = last < PRINT_PLANS ? last : PRINT_PLANS;
        xlsx_book_print_area(b, ws, 0, lastrow, lastcol);
    }
}
