/*
 * xlsx_small: the Rejected, Validation and About sheets (see
 * xlsx_small.h), each one column table with a few lines around it.
 */
#include "xlsx_small.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plans_table.h"
#include "xlsx_table.h"

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

/* ---- Rejected ---- */

enum rej_id { J_REASON, J_COUNT, J_SHARE, J_EXAMPLES };

/* clang-format off */
static const struct xlsx_column rej_cols[] = {
    {"reason", "Reason", "", XLSX_FMT_TEXT, 0, 44, NULL, J_REASON},
    {"count", "Combinations", "", XLSX_FMT_CNT, 0, 13, NULL, J_COUNT},
    {"share", "Share", "", XLSX_FMT_PCT, 0, 13, NULL, J_SHARE},
    {"examples", "Examples (plan: why)", "", XLSX_FMT_SMALL, 0, 110, NULL,
     J_EXAMPLES},
};
/* clang-format on */

/* A row: a reason with its examples, or a total (bold, no examples). */
struct rej_row {
    const char *label;
    bool total;
    double count;
    bool has_share;
    double share;
    char examples[REPORT_EXAMPLES * 330];
};

static void rej_get(const void *item, int id, struct xlsx_value *out)
{
    const struct rej_row *r = item;
    switch (id) {
    case J_REASON:
        text(out, r->label);
        if (r->total)
            out->fmt = XLSX_FMT_BOLD;
        break;
    case J_COUNT:
        number(out, r->count);
        break;
    case J_SHARE:
        if (r->has_share)
            number(out, r->share);
        break;
    default:
        if (!r->total)
            text(out, r->examples);
        break;
    }
}

static const struct xlsx_table rej_table = {
    rej_cols, sizeof rej_cols / sizeof rej_cols[0], XLSX_FMT_HEAD, rej_get};

/* Of every enumerated combination (0 when there were none). */
static double share(const struct report *r, uint64_t n)
{
    return r->enumerated ? (double)n / (double)r->enumerated : 0;
}

/* Reason i's examples, one per line; returns the row height they need. */
static double examples(const struct report *r, int i, char *buf, size_t size)
{
    size_t used = 0, k;
    double h = 0, width = rej_cols[J_EXAMPLES].width;
    buf[0] = '\0';
    for (k = 0; k < r->nexamples[i] && k < REPORT_EXAMPLES; k++) {
        int w = snprintf(buf + used, size - used, "%s%s", k ? "\n" : "",
                         r->examples[i][k]);
        if (w > 0 && (size_t)w < size - used)
            used += (size_t)w;
        h += xlsx_book_text_height(strlen(r->examples[i][k]), width, 9) - 3;
    }
    return h + 3;
}

void xlsx_small_rejected(struct xlsx_book *b, struct lxw_worksheet *ws)
{
    const struct report *r = b->r;
    struct rej_row jr;
    uint64_t total = 0;
    size_t row = 0, at = xlsx_table_col(&rej_table, "reason");
    int i;

    xlsx_book_page(ws, false);
    xlsx_table_widths(b, ws, &rej_table);
    xlsx_book_str(b, ws, row++, at, "Rejected combinations",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_str(b, ws, row++, at,
                  "Each combination of the sweep's [space] lists either runs "
                  "or is rejected for the first reason it fails.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    row++;
    xlsx_table_header(b, ws, &rej_table, row++);
    for (i = 1; i < PLAN_REASONS; i++)
        total += r->rejected[i];
    memset(&jr, 0, sizeof jr);
    jr.has_share = true;
    for (i = 1; i < PLAN_REASONS; i++) {
        double h;
        if (r->rejected[i] == 0)
            continue;
        jr.label = plan_reason_str((enum plan_reason)i);
        jr.count = (double)r->rejected[i];
        jr.share = share(r, r->rejected[i]);
        h = examples(r, i, jr.examples, sizeof jr.examples);
        xlsx_table_row(b, ws, &rej_table, row, &jr);
        xlsx_book_height(b, ws, row++, h);
    }
    jr.total = true;
    jr.label = "Total rejected";
    jr.count = (double)total;
    jr.share = share(r, total);
    xlsx_table_row(b, ws, &rej_table, row++, &jr);
    jr.label = "Valid (evaluated)";
    jr.count = (double)r->valid;
    jr.share = share(r, r->valid);
    xlsx_table_row(b, ws, &rej_table, row++, &jr);
    jr.label = "Enumerated";
    jr.count = (double)r->enumerated;
    jr.has_share = false;
    xlsx_table_row(b, ws, &rej_table, row, &jr);
}

/* ---- Validation ---- */

enum val_id {
    V_RUN,
    V_GPUS,
    V_M_STEP,
    V_P_STEP,
    V_RATIO,
    V_M_TFLOPS,
    V_P_TFLOPS,
    V_M_MFU,
    V_P_MFU,
    V_M_GPUH,
    V_P_GPUH,
    V_OK,
    V_BOUND,
    V_FITS,
    V_RANK
};

/* clang-format off */
static const struct xlsx_column val_cols[] = {
    {"run", "Run", "", XLSX_FMT_LABEL_WRAP, 0, 34, NULL, V_RUN},
    {"gpus", "GPUs", "", XLSX_FMT_CNT, 0, 10, NULL, V_GPUS},
    {"m_step", "Measured step", "s", XLSX_FMT_SEC, 0, 10, NULL, V_M_STEP},
    {"p_step", "Predicted step", "s", XLSX_FMT_SEC, 0, 10, NULL, V_P_STEP},
    {"ratio", "Measured / predicted", "", XLSX_FMT_RAT, 0, 10, NULL, V_RATIO},
    {"m_tflops", "Measured TFLOP/s per GPU", "", XLSX_FMT_CNT, 0, 10, NULL,
     V_M_TFLOPS},
    {"p_tflops", "Predicted TFLOP/s per GPU", "", XLSX_FMT_CNT, 0, 10, NULL,
     V_P_TFLOPS},
    {"m_mfu", "Measured MFU", "", XLSX_FMT_PCT, 0, 10, NULL, V_M_MFU},
    {"p_mfu", "Predicted MFU", "", XLSX_FMT_PCT, 0, 10, NULL, V_P_MFU},
    {"m_gpuh", "Measured GPU-h per 1T tokens", "", XLSX_FMT_CNT, 0, 10, NULL,
     V_M_GPUH},
    {"p_gpuh", "Predicted GPU-h per 1T tokens", "", XLSX_FMT_CNT, 0, 10, NULL,
     V_P_GPUH},
    {"ok", "Not slower than reality", "", XLSX_FMT_OK, 0, 10, NULL, V_OK},
    {"bound", "Predicted bound", "", XLSX_FMT_TEXT, 0, 10, NULL, V_BOUND},
    {"fits", "Fits", "", XLSX_FMT_OK, 0, 10, NULL, V_FITS},
    {"rank", "Rank here", "", XLSX_FMT_CNT, 0, 10, NULL, V_RANK},
};
/* clang-format on */
#define VAL_COLS (sizeof val_cols / sizeof val_cols[0])
#define RUN_WRAP 32.0 /* characters per line of a run's name (of 34) */

/* A run and its prediction. */
struct val_row {
    const struct report_validation *v;
    double tflops; /* predicted, per GPU */
    bool ok;       /* not slower than the measured run */
};

/* A measured figure, or "n/a" when the run did not publish it (0). */
static void measured(double v, struct xlsx_value *out)
{
    if (v > 0) {
        number(out, v);
    } else {
        text(out, "n/a");
        out->fmt = XLSX_FMT_NA;
    }
}

static void yes_no(bool ok, const char *y, const char *n, struct xlsx_value *o)
{
    text(o, ok ? y : n);
    o->fmt = ok ? XLSX_FMT_OK : XLSX_FMT_BAD;
}

static void val_get(const void *item, int id, struct xlsx_value *out)
{
    const struct val_row *vr = item;
    const struct report_validation *v = vr->v;
    const struct cost_result *p = &v->predicted;
    switch (id) {
    case V_RUN:
        text(out, v->name);
        break;
    case V_GPUS:
        number(out, (double)v->plan.gpus);
        break;
    case V_M_STEP:
        measured(v->measured_step_s, out);
        break;
    case V_P_STEP:
        number(out, p->t.step);
        break;
    case V_RATIO:
        if (v->measured_step_s > 0)
            number(out, v->measured_step_s / p->t.step);
        else
            measured(0, out);
        break;
    case V_M_TFLOPS:
        measured(v->measured_tflops_per_gpu, out);
        break;
    case V_P_TFLOPS:
        number(out, vr->tflops);
        break;
    case V_M_MFU:
        measured(v->measured_mfu, out);
        break;
    case V_P_MFU:
        number(out, p->t.mfu_bf16_peak);
        break;
    case V_M_GPUH:
        measured(v->measured_gpu_hours_per_trillion, out);
        break;
    case V_P_GPUH:
        number(out, p->t.gpu_hours_per_trillion);
        break;
    case V_OK: /* check mark, ballot x */
        yes_no(vr->ok, "\xE2\x9C\x93", "\xE2\x9C\x97", out);
        break;
    case V_BOUND:
        text(out, plans_table_bound_label(p->t.bound));
        out->fmt = xlsx_book_bound_fmt(p->t.bound, XLSX_BOUND_TEXT);
        break;
    case V_FITS:
        yes_no(p->fits, "yes", "no", out);
        break;
    default:
        if (v->current && v->rank > 0) {
            number(out, (double)v->rank);
        } else {
            text(out, v->current ? "not kept" : "other setup");
            out->fmt = XLSX_FMT_NA;
        }
        break;
    }
}

static const struct xlsx_table val_table = {val_cols, VAL_COLS, XLSX_FMT_HEAD,
                                            val_get};

/* Not slower than reality: by the first figure the run published. */
static bool not_slower(const struct report_validation *v, double tflops)
{
    const struct cost_result *p = &v->predicted;
    if (v->measured_step_s > 0)
        return p->t.step <= v->measured_step_s;
    if (v->measured_tflops_per_gpu > 0)
        return tflops >= v->measured_tflops_per_gpu;
    if (v->measured_mfu > 0)
        return p->t.mfu_bf16_peak >= v->measured_mfu;
    return v->measured_gpu_hours_per_trillion <= 0 ||
           p->t.gpu_hours_per_trillion <= v->measured_gpu_hours_per_trillion;
}

void xlsx_small_validation(struct xlsx_book *b, struct lxw_worksheet *ws)
{
    const struct report *r = b->r;
    size_t row = 0, i, at = xlsx_table_col(&val_table, "run");

    xlsx_book_page(ws, false);
    xlsx_table_widths(b, ws, &val_table);
    xlsx_book_str(b, ws, row++, at,
                  "Validation against published measured runs",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_str(b, ws, row++, at,
                  "A speed-of-light prediction must not be slower than a "
                  "real run: measured / predicted step >= 1 (or predicted "
                  "TFLOP/s and MFU at or above the measured ones). MFU is "
                  "against the BF16 peak.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    row++;
    xlsx_table_header(b, ws, &val_table, row);
    xlsx_book_height(b, ws, row++, 46);
    xlsx_book_freeze(b, ws, row, at + 1);
    if (r->nvalidations == 0)
        xlsx_book_str(b, ws, row++, at, "No validation runs (data/validation).",
                      xlsx_book_fmt(b, XLSX_FMT_NOTE));
    for (i = 0; i < r->nvalidations; i++) {
        const struct report_validation *v = &r->validation[i];
        const struct cost_result *p = &v->predicted;
        struct val_row vr;
        char plan[256], about[800];
        vr.v = v;
        vr.tflops = p->work.model_flops / p->t.step / 1e12;
        vr.ok = not_slower(v, vr.tflops);
        xlsx_table_row(b, ws, &val_table, row, &vr);
        xlsx_book_height(b, ws, row++,
                         xlsx_book_text_height(strlen(v->name), RUN_WRAP, 11));
        plan_format(&v->plan, plan, sizeof plan);
        snprintf(about, sizeof about, "%s on %s. Plan: %s. Source: %s",
                 v->model_name, v->gpu_name, plan, v->source);
        xlsx_book_merge(b, ws, row, at, VAL_COLS - 1, about,
                        xlsx_book_fmt(b, XLSX_FMT_SMALL));
        xlsx_book_height(b, ws, row++,
                         xlsx_book_text_height(strlen(about), 160, 9));
    }
}

/* ---- About ---- */

enum about_id { B_ROLE, B_PATH, B_SHA };

/* clang-format off */
static const struct xlsx_column about_cols[] = {
    {"role", "Input", "", XLSX_FMT_TEXT, 0, 22, NULL, B_ROLE},
    {"path", "Path", "", XLSX_FMT_TEXT, 0, 70, NULL, B_PATH},
    {"sha256", "SHA-256", "", XLSX_FMT_TEXT, 0, 68, NULL, B_SHA},
};
/* clang-format on */

static void about_get(const void *item, int id, struct xlsx_value *out)
{
    const struct report_input *in = item;
    text(out, id == B_ROLE ? in->role : id == B_PATH ? in->path : in->sha256);
}

static const struct xlsx_table about_table = {
    about_cols, sizeof about_cols / sizeof about_cols[0], XLSX_FMT_HEAD_LEFT,
    about_get};

/* A label and its value, in the first two columns. */
static void fact(struct xlsx_book *b,
                 struct lxw_worksheet *ws,
                 size_t row,
                 const char *label,
                 const char *value)
{
    xlsx_book_str(b, ws, row, xlsx_table_col(&about_table, "role"), label,
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    xlsx_book_str(b, ws, row, xlsx_table_col(&about_table, "path"), value,
                  xlsx_book_fmt(b, XLSX_FMT_TEXT));
}

void xlsx_small_about(struct xlsx_book *b, struct lxw_worksheet *ws)
{
    const struct report *r = b->r;
    char when[64], num[32], version[64];
    size_t row = 0, i, at = xlsx_table_col(&about_table, "role");

    xlsx_book_page(ws, false);
    xlsx_table_widths(b, ws, &about_table);
    xlsx_book_str(b, ws, row++, at, "About this workbook",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    row++;
    xlsx_book_when(r, when, sizeof when);
    snprintf(version, sizeof version, "roofplan %s", r->version);
    fact(b, ws, row++, "Generated by", version);
    fact(b, ws, row++, "Generated at", when);
    fact(b, ws, row++, "Command line", r->command_line);
    fact(b, ws, row++, "Communication model", comm_model_str(r->comm));
    xlsx_book_thousands((double)r->nrows, num, sizeof num);
    fact(b, ws, row++, "Plans kept", num);
    row++;
    xlsx_table_header(b, ws, &about_table, row++);
    for (i = 0; i < r->ninputs; i++)
        xlsx_table_row(b, ws, &about_table, row++, &r->input[i]);
    row++;
    xlsx_book_str(b, ws, row, at,
                  "The generation time comes from SOURCE_DATE_EPOCH when it "
                  "is set, so the same inputs give a byte-identical workbook.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
}
