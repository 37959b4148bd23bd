/*
 * xlsx_compare: the comparison workbook (see xlsx_compare.h): a title,
 * one column table of the pairs, the command line.
 */
#include "xlsx_compare.h"

#include <stdio.h>
#include <string.h>

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
    {"rank", "Rank (cost, expected; else speed of light)", "", XLSX_FMT_TEXT, 0, 16, NULL, K_RANK},
    {"model", "Model", "", XLSX_FMT_BOLD, 0, 22, NULL, K_MODEL},
    {"gpu", "GPU", "", XLSX_FMT_TEXT, 0, 26, NULL, K_GPU},
    {"gpus", "GPUs", "", XLSX_FMT_CNT, 0, 8, NULL, K_GPUS},
    {"family", "Recommended plan's family", "", XLSX_FMT_TEXT, 0, 18, NULL, K_FAMILY},
    {"xstep", "Step, expected", "s", XLSX_FMT_SEC, 0, 10, NULL, K_XSTEP},
    {"xtps", "Tokens/s per GPU, expected", "", XLSX_FMT_CNT, 0, 11, NULL, K_XTPS},
    {"xdays", "Days for the token budget, expected", "", XLSX_FMT_DAYS, 0, 11, NULL, K_XDAYS},
    {"xcost", "Cost for the token budget, expected", "USD", XLSX_FMT_USD, 0, 14, NULL, K_XCOST},
    {"step", "Step, speed of light", "s", XLSX_FMT_SEC, 0, 12, NULL, K_STEP},
    {"bound", "Bound (speed of light)", "", XLSX_FMT_TEXT, 0, 9, NULL, K_BOUND},
    {"ratio", "Comm/compute", "", XLSX_FMT_RAT, 0, 10, NULL, K_RATIO},
    {"tps", "Tokens/s per GPU, speed of light", "", XLSX_FMT_CNT, 0, 11, NULL, K_TPS},
    {"mfu", "MFU, speed of light", "", XLSX_FMT_PCT, 0, 8, NULL, K_MFU},
    {"days", "Days for the token budget, speed of light", "", XLSX_FMT_DAYS, 0, 11, NULL, K_DAYS},
    {"gpuh", "GPU-hours per 1T tokens, speed of light", "", XLSX_FMT_CNT, 0, 12, NULL, K_GPUH},
    {"cost", "Cost for the token budget, speed of light", "USD", XLSX_FMT_USD, 0, 14, NULL, K_COST},
    {"mem", "Memory per GPU", "GiB", XLSX_FMT_GIB, 0, 10, NULL, K_MEM},
    {"hbm", "HBM per GPU", "GiB", XLSX_FMT_GIB, 0, 9, NULL, K_HBM},
    {"fits", "Fits", "", XLSX_FMT_TEXT, 0, 6, NULL, K_FITS},
    {"valid", "Plans valid / fitting", "", XLSX_FMT_TEXT, 0, 14, NULL, K_VALID},
    {"params", "Parameters", "B", XLSX_FMT_BIG, 0, 11, NULL, K_PARAMS},
    {"active", "Active per token", "B", XLSX_FMT_BIG, 0, 11, NULL, K_ACTIVE},
    {"seq", "Sequence length", "tokens", XLSX_FMT_CNT, 0, 9, NULL, K_SEQ},
    {"gbs", "Global batch", "sequences", XLSX_FMT_CNT, 0, 10, NULL, K_GBS},
    {"plan", "Recommended plan (roofplan eval syntax)", "", XLSX_FMT_SMALL, 0, 90, NULL, K_PLAN},
    {"files", "Model file; hardware file", "", XLSX_FMT_SMALL, 0, 70, NULL, K_FILES},
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

    if (xlsx_book_open(&b, NULL, path, false, d) != STATUS_OK)
        return d->status;
    ws = xlsx_book_sheet(&b, "Compare");
    xlsx_book_properties(&b, "Parallelism plans: models and clusters compared",
                         "roofplan compare", "Generated by roofplan compare.",
                         generated);
    if (b.err == 0 && ws) {
        xlsx_book_page(&b, ws, false);
        xlsx_book_str(&b, ws, row++, 0,
                      "Recommended plan per model and cluster, side by side",
                      xlsx_book_fmt(&b, XLSX_FMT_TITLE));
        xlsx_book_str(&b, ws, row++, 0,
                      "Each row sweeps the same plan space on one model and "
                      "one cluster and shows the plan roofplan report "
                      "recommends (of the fitting plans within the sweep's "
                      "tie_pct of the fastest, by its expected step where the "
                      "cluster has a calibration, else by its speed of light, "
                      "the one with the most free memory). Rows rank by the "
                      "expected cost of each model's token budget; a cluster "
                      "without a calibration has the speed of light only, a "
                      "floor no run can beat, and ranks apart, after them. "
                      "Each model runs at its own sequence length and "
                      "batch (its file's, or its training recipe's). MFU "
                      "is against each precision's own peak.",
                      xlsx_book_fmt(&b, XLSX_FMT_NOTE));
        row++;
        xlsx_table_widths(&b, ws, &table);
        xlsx_table_header(&b, ws, &table, row++);
        xlsx_book_freeze(&b, ws, row, 2);
        for (i = 0; i < n; i++)
            xlsx_table_row(&b, ws, &table, row++, &rows[i]);
        row++;
        xlsx_book_strf(&b, ws, row, 0, xlsx_book_fmt(&b, XLSX_FMT_SMALL),
                       "Command: %.*s", diag_utf8_prec(command_line, 1000),
                       command_line);
    }
    return xlsx_book_close(&b, d);
}
