/*
 * xlsx_compare: the comparison workbook (see xlsx_compare.h): a title,
 * one column table of the pairs, the command line.
 *
 * get() is one switch over the table's columns (over 80 lines): the
 * value of each column of the rows above beside its key, one concept;
 * cut in parts, a column's value would sit away from its case.
 */
#include "xlsx_compare.h"

#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "plan.h"
#include "xlsx_book.h"
#include "xlsx_table.h"

enum id {
    K_RANK,
    K_MODEL,
    K_GPU,
    K_GPUS,
    K_FAMILY,
    K_STEP,
    K_XSTEP,
    K_BOUND,
    K_RATIO,
    K_TPS,
    K_MFU,
    K_DAYS,
    K_GPUH,
    K_COST,
    K_XTPS,
    K_XDAYS,
    K_XCOST,
    K_XDAYS_LO,
    K_XDAYS_HI,
    K_XCOST_LO,
    K_XCOST_HI,
    K_MEM,
    K_HBM,
    K_FITS,
    K_VALID,
    K_PARAMS,
    K_ACTIVE,
    K_SEQ,
    K_GBS,
    K_PLAN,
    K_FILES
};

/* clang-format off */
static const struct xlsx_column cols[] = {
    {.key = "rank", .header = "Rank (cost, expected; else speed of light)", .fmt = XLSX_FMT_TEXT, .width = 10, .id = K_RANK},
    {.key = "gpu", .header = "GPU", .fmt = XLSX_FMT_TEXT, .width = 23, .id = K_GPU},
    {.key = "gpus", .header = "GPUs", .fmt = XLSX_FMT_CNT, .width = 7, .id = K_GPUS},
    {.key = "family", .header = "Recommended plan's family", .fmt = XLSX_FMT_TEXT, .width = 17, .id = K_FAMILY},
    {.key = "xstep", .header = "Step, expected", .unit = "s", .fmt = XLSX_FMT_SEC, .width = 9, .id = K_XSTEP},
    {.key = "xdays", .header = "Days for the token budget, expected", .fmt = XLSX_FMT_DAYS, .width = 9, .id = K_XDAYS},
    {.key = "xdays_lo", .header = "Days, expected: low end of the range", .fmt = XLSX_FMT_DAYS, .width = 8, .id = K_XDAYS_LO},
    {.key = "xdays_hi", .header = "Days, expected: high end of the range", .fmt = XLSX_FMT_DAYS, .width = 8, .id = K_XDAYS_HI},
    {.key = "xcost", .header = "Cost for the token budget, expected", .unit = "USD", .fmt = XLSX_FMT_USD_M, .width = 10, .id = K_XCOST},
    {.key = "xcost_lo", .header = "Cost, expected: low end of the range", .unit = "USD", .fmt = XLSX_FMT_USD_M, .width = 9, .id = K_XCOST_LO},
    {.key = "xcost_hi", .header = "Cost, expected: high end of the range", .unit = "USD", .fmt = XLSX_FMT_USD_M, .width = 9, .id = K_XCOST_HI},
    {.key = "fits", .header = "Fits", .fmt = XLSX_FMT_TEXT, .width = 5, .id = K_FITS},
    {.key = "model", .header = "Model", .fmt = XLSX_FMT_BOLD, .width = 22, .id = K_MODEL},
    {.key = "xtps", .header = "Tokens/s per GPU, expected", .fmt = XLSX_FMT_CNT, .width = 11, .id = K_XTPS},
    {.key = "step", .header = "Step, speed of light", .unit = "s", .fmt = XLSX_FMT_SEC, .width = 12, .id = K_STEP},
    {.key = "bound", .header = "Bound (speed of light)", .fmt = XLSX_FMT_TEXT, .width = 9, .id = K_BOUND},
    {.key = "ratio", .header = "Comm/compute", .fmt = XLSX_FMT_RAT, .width = 10, .id = K_RATIO},
    {.key = "tps", .header = "Tokens/s per GPU, speed of light", .fmt = XLSX_FMT_CNT, .width = 11, .id = K_TPS},
    {.key = "mfu", .header = "MFU, speed of light", .fmt = XLSX_FMT_PCT, .width = 8, .id = K_MFU},
    {.key = "days", .header = "Days for the token budget, speed of light", .fmt = XLSX_FMT_DAYS, .width = 11, .id = K_DAYS},
    {.key = "gpuh", .header = "GPU-hours per 1T tokens, speed of light", .fmt = XLSX_FMT_CNT, .width = 12, .id = K_GPUH},
    {.key = "cost", .header = "Cost for the token budget, speed of light", .unit = "USD", .fmt = XLSX_FMT_USD, .width = 14, .id = K_COST},
    {.key = "mem", .header = "Memory per GPU", .unit = "GiB", .fmt = XLSX_FMT_GIB, .width = 10, .id = K_MEM},
    {.key = "hbm", .header = "HBM per GPU", .unit = "GiB", .fmt = XLSX_FMT_GIB, .width = 9, .id = K_HBM},
    {.key = "valid", .header = "Plans valid / fitting", .fmt = XLSX_FMT_TEXT, .width = 14, .id = K_VALID},
    {.key = "params", .header = "Parameters", .unit = "B", .fmt = XLSX_FMT_BIG, .width = 11, .id = K_PARAMS},
    {.key = "active", .header = "Active per token", .unit = "B", .fmt = XLSX_FMT_BIG, .width = 11, .id = K_ACTIVE},
    {.key = "seq", .header = "Sequence length", .unit = "tokens", .fmt = XLSX_FMT_CNT, .width = 9, .id = K_SEQ},
    {.key = "gbs", .header = "Global batch", .unit = "sequences", .fmt = XLSX_FMT_CNT, .width = 10, .id = K_GBS},
    {.key = "plan", .header = "Recommended plan (roofplan eval syntax)", .fmt = XLSX_FMT_SMALL, .width = 90, .id = K_PLAN},
    {.key = "files", .header = "Model file; hardware file", .fmt = XLSX_FMT_SMALL, .width = 70, .id = K_FILES},
};
/* clang-format on */

static void get(const void *item, int id, struct xlsx_value *out)
{
    const struct compare_row *r = item;
    const struct cost_times *t = &r->recommended.t;
    const double gib = 1073741824.0;
    switch (id) {
    case K_MODEL:
        xlsx_value_text(out, r->model);
        return;
    case K_GPU:
        xlsx_value_text(out, r->gpu);
        return;
    case K_GPUS:
        xlsx_value_num(out, (double)r->gpus);
        return;
    case K_PARAMS:
        xlsx_value_num(out, r->params_total / 1e9);
        return;
    case K_ACTIVE:
        xlsx_value_num(out, r->params_active / 1e9);
        return;
    case K_HBM:
        xlsx_value_num(out, r->hbm_gib);
        return;
    case K_SEQ:
        xlsx_value_num(out, (double)r->seq_len);
        return;
    case K_FILES:
        snprintf(out->buf, sizeof out->buf, "%.*s; %.*s",
                 diag_utf8_prec(r->model_path, 230), r->model_path,
                 diag_utf8_prec(r->hardware_path, 230), r->hardware_path);
        xlsx_value_text(out, out->buf);
        return;
    default:
        break;
    }
    if (id == K_RANK) {
        if (!r->any)
            xlsx_value_text(out, "-");
        else if (r->calibrated)
            snprintf(out->buf, sizeof out->buf, "%ld", r->rank);
        else
            snprintf(out->buf, sizeof out->buf,
                     "%ld, speed of light only (no calibration)", r->rank);
        if (r->any)
            xlsx_value_text(out, out->buf);
        return;
    }
    if (!r->any) { /* no valid plan: the reason in the family column */
        if (id == K_FAMILY)
            xlsx_value_text(out, "no valid plan");
        else if (id == K_PLAN)
            xlsx_value_text(out, r->why);
        return;
    }
    switch (id) {
    case K_FAMILY:
        xlsx_value_text(out, r->recommended.family);
        return;
    case K_STEP:
        xlsx_value_num(out, t->step);
        return;
    case K_XSTEP:
    case K_XTPS:
    case K_XDAYS:
    case K_XCOST:
        if (!r->recommended.work.x.known) { /* no calibration or no stack */
            xlsx_value_text(out, "n/a");
            return;
        }
        xlsx_value_num(out, id == K_XSTEP   ? t->expected
                            : id == K_XTPS  ? t->x_tps
                            : id == K_XDAYS ? t->x_days
                                            : t->x_cost);
        return;
    case K_XDAYS_LO:
    case K_XDAYS_HI:
    case K_XCOST_LO:
    case K_XCOST_HI:
        if (!r->calibrated || !r->has_range) { /* the report's: none */
            xlsx_value_text(out, "n/a");
            return;
        }
        xlsx_value_num(
            out,
            (id == K_XDAYS_LO || id == K_XDAYS_HI ? t->x_days : t->x_cost) *
                (id == K_XDAYS_LO || id == K_XCOST_LO ? r->range_lo
                                                      : r->range_hi));
        return;
    case K_BOUND:
        xlsx_value_text(out, cost_bound_label(t->bound));
        return;
    case K_RATIO:
        xlsx_value_num(out, t->comm_compute_ratio);
        return;
    case K_TPS:
        xlsx_value_num(out, t->tokens_per_s_per_gpu);
        return;
    case K_MFU:
        xlsx_value_num(out, t->mfu);
        return;
    case K_DAYS:
        xlsx_value_num(out, t->days);
        return;
    case K_GPUH:
        xlsx_value_num(out, t->gpu_hours_per_trillion);
        return;
    case K_COST:
        xlsx_value_num(out, t->cost_usd);
        return;
    case K_MEM:
        xlsx_value_num(out, r->recommended.mem.total / gib);
        return;
    case K_FITS:
        xlsx_value_text(out, r->recommended.fits ? "yes" : "no");
        return;
    case K_VALID:
        snprintf(out->buf, sizeof out->buf, "%llu / %llu",
                 (unsigned long long)r->valid, (unsigned long long)r->fitting);
        xlsx_value_text(out, out->buf);
        return;
    case K_GBS:
        xlsx_value_num(out, (double)r->recommended.plan.gbs);
        return;
    case K_PLAN:
        plan_format(&r->recommended.plan, out->buf, sizeof out->buf);
        xlsx_value_text(out, out->buf);
        return;
    default:
        return;
    }
}

static const struct xlsx_table table = {cols, sizeof cols / sizeof cols[0],
                                        XLSX_FMT_HEAD, get};

/* The sheet's note, over the printed columns. */
#define NOTE                                                                   \
    "Each row sweeps the same plan space on one model and one cluster and "    \
    "shows the plan roofplan report recommends (of the fitting plans within "  \
    "the sweep's tie_pct of the fastest, by its expected step where the "      \
    "cluster has a calibration, else by its speed of light, the one with the " \
    "most free memory). The rows are grouped by model, each at its own "       \
    "recipe (its sequence length, batch and token budget, under its name), "   \
    "and only a model's clusters are ranked against each other, by the "       \
    "expected cost of its token budget; a cluster without a calibration has "  \
    "the speed of light only, a floor no run can beat, and ranks apart, "      \
    "after them. An expected figure's range is the report's (the span of the " \
    "plan's scenarios: the published runs' band, the DP overlaps off, the "    \
    "other communication model). MFU is against each precision's "             \
    "own peak. Printed: the columns up to Fits, each model named in its "      \
    "heading."

/* The last column printed. */
#define PRINT_LAST "fits"

/* The width (characters) of columns first..last. */
static double width(size_t first, size_t last)
{
    double w = 0;
    for (; first <= last && first < table.ncols; first++)
        w += table.col[first].width;
    return w;
}

/* The header row tall enough for its longest heading, wrapped in its
 * column (the headings are bold, 11 points). */
static void header_height(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    char h[160];
    size_t k;
    double tallest = 15;
    for (k = 0; k < table.ncols; k++) {
        double ht;
        xlsx_table_heading(&table.col[k], h, sizeof h);
        ht = xlsx_book_text_height(strlen(h), table.col[k].width - 1, 11);
        if (ht > tallest)
            tallest = ht;
    }
    xlsx_book_height(b, ws, row, tallest);
}

/* A model's heading: its name, file and recipe over the printed columns. */
static void model_heading(struct xlsx_book *b,
                          lxw_worksheet *ws,
                          size_t row,
                          const struct compare_row *r,
                          size_t last)
{
    char text[sizeof r->recipe + 400];
    snprintf(text, sizeof text, "%.*s (%.*s): %s",
             diag_utf8_prec(r->model, 120), r->model,
             diag_utf8_prec(r->model_path, 200), r->model_path, r->recipe);
    xlsx_book_merge(b, ws, row, 0, last, text,
                    xlsx_book_fmt(b, XLSX_FMT_LABEL_WRAP));
    xlsx_book_height(
        b, ws, row,
        xlsx_book_text_height(strlen(text), width(0, last) - 5, 11));
}

enum status xlsx_compare_write(const struct compare_row *rows,
                               size_t n,
                               const char *path,
                               int64_t generated,
                               const char *command_line,
                               struct diag *d)
{
    struct xlsx_book b;
    struct lxw_worksheet *ws;
    size_t i, row = 0;

    if (xlsx_book_open(&b, NULL, path, XLSX_BOOK_TABLES, d) != STATUS_OK)
        return d->status;
    ws = xlsx_book_sheet(&b, "Compare");
    xlsx_book_properties(&b, "Parallelism plans: models and clusters compared",
                         "roofplan compare", "Generated by roofplan compare.",
                         generated);
    if (b.err == 0 && ws) {
        size_t last = (size_t)xlsx_table_col(&table, PRINT_LAST);
        xlsx_book_page(&b, ws, XLSX_PAGE_TABLE);
        xlsx_book_str(&b, ws, row++, 0,
                      "Recommended plan per model and cluster, side by side",
                      xlsx_book_fmt(&b, XLSX_FMT_TITLE));
        xlsx_book_merge(&b, ws, row, 0, last, NOTE,
                        xlsx_book_fmt(&b, XLSX_FMT_NOTE_WRAP));
        xlsx_book_height(
            &b, ws, row++,
            xlsx_book_text_height(strlen(NOTE), width(0, last) - 5, 11));
        row++;
        xlsx_table_widths(&b, ws, &table);
        header_height(&b, ws, row);
        xlsx_table_header(&b, ws, &table, row);
        xlsx_book_repeat_row(&b, ws, row++);
        xlsx_book_freeze(&b, ws, row, 2);
        for (i = 0; i < n; i++) {
            if (i == 0 || rows[i].group != rows[i - 1].group)
                model_heading(&b, ws, row++, &rows[i], last);
            xlsx_table_row(&b, ws, &table, row++, &rows[i]);
        }
        /* printed: the columns up to Fits, one page wide; the rest are
         * the screen's */
        xlsx_book_print_area(&b, ws, 0, row - 1, last);
        row++;
        xlsx_book_strf(&b, ws, row, 0, xlsx_book_fmt(&b, XLSX_FMT_SMALL),
                       "Command: %.*s", diag_utf8_prec(command_line, 1000),
                       command_line);
    }
    return xlsx_book_close(&b, d);
}
