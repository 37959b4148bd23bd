/*
 * xlsx_small: the Rejected, Validation, About and Glossary sheets (see
 * xlsx_small.h), each one column table with a few lines around it.
 *
 * val_get() is one switch over the Validation table's columns (over 80
 * lines): each column's value beside its case, one concept.
 */
#include "xlsx_small.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "plans_table.h"
#include "xlsx_table.h"

/* ---- Rejected ---- */

enum rej_id { J_REASON, J_COUNT, J_SHARE, J_EXAMPLES };

/* clang-format off */
static const struct xlsx_column rej_cols[] = {
    {.key = "reason", .header = "Reason", .fmt = XLSX_FMT_TEXT, .width = 44, .id = J_REASON},
    {.key = "count", .header = "Combinations", .fmt = XLSX_FMT_CNT, .width = 13, .id = J_COUNT},
    {.key = "share", .header = "Share", .fmt = XLSX_FMT_PCT, .width = 13, .id = J_SHARE},
    {.key = "examples", .header = "Examples (plan: why)", .fmt = XLSX_FMT_SMALL, .width = 110, .id = J_EXAMPLES},
};
/* clang-format on */

/* A row: a reason with its examples, or a total (bold, no examples). */
struct rej_row {
    const char *label;
    bool total;
    double count;
    bool has_share;
    double share;
    char examples[RANKING_EXAMPLES * 330];
};

static void rej_get(const void *item, int id, struct xlsx_value *out)
{
    const struct rej_row *r = item;
    switch (id) {
    case J_REASON:
        xlsx_value_text(out, r->label);
        if (r->total)
            out->fmt = XLSX_FMT_BOLD;
        break;
    case J_COUNT:
        xlsx_value_num(out, r->count);
        break;
    case J_SHARE:
        if (r->has_share)
            xlsx_value_num(out, r->share);
        break;
    default:
        if (!r->total)
            xlsx_value_text(out, r->examples);
        break;
    }
}

static const struct xlsx_table rej_table = {
    rej_cols, sizeof rej_cols / sizeof rej_cols[0], XLSX_FMT_HEAD, rej_get};

/* Of every enumerated combination (0 when there were none). */
static double share(const struct views *r, uint64_t n)
{
    return r->rank->enumerated ? (double)n / (double)r->rank->enumerated : 0;
}

/* Reason i's examples, one per line; returns the row height they need. */
static double examples(const struct views *r, int i, char *buf, size_t size)
{
    size_t used = 0, k;
    double h = 0, width = rej_cols[J_EXAMPLES].width;
    buf[0] = '\0';
    for (k = 0; k < r->rank->nexamples[i] && k < RANKING_EXAMPLES; k++) {
        int w = snprintf(buf + used, size - used, "%s%s", k ? "\n" : "",
                         r->rank->examples[i][k]);
        if (w > 0 && (size_t)w < size - used)
            used += (size_t)w;
        h += xlsx_book_text_height(strlen(r->rank->examples[i][k]), width, 9) -
             3;
    }
    return h + 3;
}

/* The families no plan of which fits, the baseline first with why it
 * loses; returns the next row. */
static size_t
rejected_families(struct xlsx_book *b, struct lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    size_t i, n = 0;
    xlsx_book_str(b, ws, row++, 0,
                  "Families rejected: valid plans, none of which fits in "
                  "memory with the headroom",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    if (r->baseline.family >= 0) {
        xlsx_book_merge(b, ws, row, 0, rej_table.ncols - 1,
                        r->baseline.sentence,
                        xlsx_book_fmt(b, XLSX_FMT_NOTE_WRAP));
        xlsx_book_height(
            b, ws, row++,
            xlsx_book_text_height(strlen(r->baseline.sentence), 170, 11));
    }
    for (i = 0; i < r->rank->nfamilies; i++) {
        long k = r->rank->families_by_step[i];
        const struct ranking_family *f = &r->rank->family[k];
        const struct views_family *vf = &r->family[k];
        if (f->fitting > 0)
            continue;
        xlsx_book_str(b, ws, row, 0, f->name,
                      xlsx_book_fmt(b, k == r->baseline.family
                                           ? XLSX_FMT_RED_LABEL
                                           : XLSX_FMT_LABEL));
        xlsx_book_num(b, ws, row, 1, (double)f->plans,
                      xlsx_book_fmt(b, XLSX_FMT_CNT));
        xlsx_book_str(b, ws, row, 3, vf->why, xlsx_book_fmt(b, XLSX_FMT_SMALL));
        xlsx_book_height(b, ws, row++,
                         xlsx_book_text_height(strlen(vf->why),
                                               rej_cols[J_EXAMPLES].width, 9));
        n++;
    }
    if (n == 0)
        xlsx_book_str(b, ws, row++, 0,
                      "none: every family has a plan that fits",
                      xlsx_book_fmt(b, XLSX_FMT_NOTE));
    return row;
}

void xlsx_small_rejected(struct xlsx_book *b, struct lxw_worksheet *ws)
{
    const struct views *r = b->r;
    struct rej_row jr;
    uint64_t total = 0;
    size_t row = 0, at = xlsx_table_col(&rej_table, "reason");
    int i;

    xlsx_book_page(b, ws, XLSX_PAGE_TABLE);
    xlsx_table_widths(b, ws, &rej_table);
    xlsx_book_str(b, ws, row++, at, "Rejected combinations and families",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_str(b, ws, row++, at,
                  "Each combination of the sweep's [space] lists either runs "
                  "or is rejected for the first reason it fails.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    row++;
    xlsx_table_header(b, ws, &rej_table, row++);
    for (i = 1; i < PLAN_REASONS; i++)
        total += r->rank->rejected[i];
    memset(&jr, 0, sizeof jr);
    jr.has_share = true;
    for (i = 1; i < PLAN_REASONS; i++) {
        double h;
        if (r->rank->rejected[i] == 0)
            continue;
        jr.label = plan_reason_str((enum plan_reason)i);
        jr.count = (double)r->rank->rejected[i];
        jr.share = share(r, r->rank->rejected[i]);
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
    jr.count = (double)r->rank->valid;
    jr.share = share(r, r->rank->valid);
    xlsx_table_row(b, ws, &rej_table, row++, &jr);
    jr.label = "Enumerated";
    jr.count = (double)r->rank->enumerated;
    jr.has_share = false;
    xlsx_table_row(b, ws, &rej_table, row++, &jr);
    row = rejected_families(b, ws, row + 1);
    xlsx_book_print_area(b, ws, 0, row, rej_table.ncols - 1);
}

/* ---- Validation ---- */

enum val_id {
    V_RUN,
    V_GPUS,
    V_M_STEP,
    V_P_STEP,
    V_RATIO,
    V_X_STEP,
    V_X_ERR,
    V_M_TFLOPS,
    V_P_TFLOPS,
    V_X_TFLOPS,
    V_M_MFU,
    V_P_MFU,
    V_X_MFU,
    V_M_GPUH,
    V_P_GPUH,
    V_OK,
    V_BOUND,
    V_FITS,
    V_RANK,
    V_CAL,
    V_STACK
};

/* clang-format off */
static const struct xlsx_column val_cols[] = {
    {.key = "run", .header = "Run", .fmt = XLSX_FMT_LABEL_WRAP, .width = 34, .id = V_RUN},
    {.key = "gpus", .header = "GPUs", .fmt = XLSX_FMT_CNT, .width = 10, .id = V_GPUS},
    {.key = "m_step", .header = "Measured step", .unit = "s", .fmt = XLSX_FMT_SEC, .width = 10, .id = V_M_STEP},
    {.key = "p_step", .header = "Speed-of-light step", .unit = "s", .fmt = XLSX_FMT_SEC, .width = 10, .id = V_P_STEP},
    {.key = "ratio", .header = "Measured / speed of light", .fmt = XLSX_FMT_RAT, .width = 10, .id = V_RATIO},
    {.key = "x_step", .header = "Expected step", .unit = "s", .fmt = XLSX_FMT_SEC, .width = 10, .id = V_X_STEP},
    {.key = "x_err", .header = "Expected vs measured", .fmt = XLSX_FMT_PCT, .width = 10, .id = V_X_ERR},
    {.key = "m_tflops", .header = "Measured TFLOP/s per GPU", .fmt = XLSX_FMT_CNT, .width = 10, .id = V_M_TFLOPS},
    {.key = "p_tflops", .header = "Speed-of-light TFLOP/s per GPU", .fmt = XLSX_FMT_CNT, .width = 10, .id = V_P_TFLOPS},
    {.key = "x_tflops", .header = "Expected TFLOP/s per GPU", .fmt = XLSX_FMT_CNT, .width = 10, .id = V_X_TFLOPS},
    {.key = "m_mfu", .header = "Measured MFU", .fmt = XLSX_FMT_PCT, .width = 10, .id = V_M_MFU},
    {.key = "p_mfu", .header = "Speed-of-light MFU", .fmt = XLSX_FMT_PCT, .width = 10, .id = V_P_MFU},
    {.key = "x_mfu", .header = "Expected MFU", .fmt = XLSX_FMT_PCT, .width = 10, .id = V_X_MFU},
    {.key = "m_gpuh", .header = "Measured GPU-h per 1T tokens", .fmt = XLSX_FMT_CNT, .width = 10, .id = V_M_GPUH},
    {.key = "p_gpuh", .header = "Speed-of-light GPU-h per 1T tokens", .fmt = XLSX_FMT_CNT, .width = 10, .id = V_P_GPUH},
    {.key = "ok", .header = "Speed of light not slower than reality", .fmt = XLSX_FMT_OK, .width = 10, .id = V_OK},
    {.key = "bound", .header = "Speed-of-light bound", .fmt = XLSX_FMT_TEXT, .width = 10, .id = V_BOUND},
    {.key = "fits", .header = "Fits", .fmt = XLSX_FMT_BOOL, .width = 10, .id = V_FITS},
    {.key = "rank", .header = "Rank here", .fmt = XLSX_FMT_CNT, .width = 10, .id = V_RANK},
    {.key = "cal", .header = "Calibration file (expected)", .fmt = XLSX_FMT_SMALL, .width = 22, .id = V_CAL},
    {.key = "stack", .header = "Stack file (expected)", .fmt = XLSX_FMT_SMALL, .width = 22, .id = V_STACK},
};
/* clang-format on */
#define VAL_COLS (sizeof val_cols / sizeof val_cols[0])
#define RUN_WRAP 32.0 /* characters per line of a run's name (of 34) */

/* A run and its prediction. */
struct val_row {
    const struct validate_result *v;
    double tflops; /* predicted, per GPU */
    bool ok;       /* not slower than the measured run */
    bool expected; /* the run has an expected step */
};

/* A measured figure, or "n/a" when the run did not publish it (0). */
static void measured(double v, struct xlsx_value *out)
{
    if (v > 0) {
        xlsx_value_num(out, v);
    } else {
        xlsx_value_text(out, "n/a");
        out->fmt = XLSX_FMT_NA;
    }
}

static void yes_no(bool ok, const char *y, const char *n, struct xlsx_value *o)
{
    xlsx_value_text(o, ok ? y : n);
    o->fmt = ok ? XLSX_FMT_OK : XLSX_FMT_BAD;
}

/* A file the expected step came from, or "none". */
static void file_or_none(const char *path, struct xlsx_value *out)
{
    xlsx_value_text(out, path[0] ? path : "none");
    if (!path[0])
        out->fmt = XLSX_FMT_NA;
}

static void val_get(const void *item, int id, struct xlsx_value *out)
{
    const struct val_row *vr = item;
    const struct validate_result *v = vr->v;
    const struct cost_result *p = &v->predicted;
    switch (id) {
    case V_RUN:
        xlsx_value_text(out, v->name);
        break;
    case V_GPUS:
        xlsx_value_num(out, (double)v->plan.gpus);
        break;
    case V_M_STEP:
        measured(v->measured_step_s, out);
        break;
    case V_P_STEP:
        xlsx_value_num(out, p->t.step);
        break;
    case V_RATIO:
        if (v->measured_step_s > 0)
            xlsx_value_num(out, v->measured_step_s / p->t.step);
        else
            measured(0, out);
        break;
    case V_X_STEP:
        measured(vr->expected ? p->t.expected : 0, out);
        break;
    case V_X_ERR: /* the step's error, from TFLOP/s without a step */
        if (vr->expected && v->measured_step_eq > 0)
            xlsx_value_num(out, p->t.expected / v->measured_step_eq - 1);
        else
            measured(0, out);
        break;
    case V_X_TFLOPS:
        measured(vr->expected ? p->work.model_flops / p->t.expected / 1e12 : 0,
                 out);
        break;
    case V_X_MFU: /* of the BF16 peak, as the measured and SOL columns */
        measured(vr->expected ? p->t.mfu_bf16_peak * p->t.step / p->t.expected
                              : 0,
                 out);
        break;
    case V_CAL:
        file_or_none(v->calibration_path, out);
        break;
    case V_STACK:
        file_or_none(v->stack_path, out);
        break;
    case V_M_TFLOPS:
        measured(v->measured_tflops_per_gpu, out);
        break;
    case V_P_TFLOPS:
        xlsx_value_num(out, vr->tflops);
        break;
    case V_M_MFU:
        measured(v->measured_mfu, out);
        break;
    case V_P_MFU:
        xlsx_value_num(out, p->t.mfu_bf16_peak);
        break;
    case V_M_GPUH:
        measured(v->measured_gpu_hours_per_trillion, out);
        break;
    case V_P_GPUH:
        xlsx_value_num(out, p->t.gpu_hours_per_trillion);
        break;
    case V_OK: /* check mark, ballot x */
        yes_no(vr->ok, "\xE2\x9C\x93", "\xE2\x9C\x97", out);
        break;
    case V_BOUND:
        xlsx_value_text(out, plans_table_bound_label(p->t.bound));
        out->fmt = xlsx_book_bound_fmt(p->t.bound, XLSX_BOUND_TEXT);
        break;
    case V_FITS:
        out->kind = XLSX_BOOL;
        out->flag = p->fits;
        out->fmt = XLSX_FMT_BOOL;
        break;
    default:
        if (v->current && v->rank > 0) {
            xlsx_value_num(out, (double)v->rank);
        } else {
            xlsx_value_text(out, v->current ? "not kept" : "other setup");
            out->fmt = XLSX_FMT_NA;
        }
        break;
    }
}

static const struct xlsx_table val_table = {val_cols, VAL_COLS, XLSX_FMT_HEAD,
                                            val_get};

/* A note merged over the table's width, its row tall enough. */
static void note_row(struct xlsx_book *b,
                     struct lxw_worksheet *ws,
                     size_t row,
                     const char *text_)
{
    xlsx_book_merge(b, ws, row, 0, VAL_COLS - 1, text_,
                    xlsx_book_fmt(b, XLSX_FMT_NOTE_WRAP));
    xlsx_book_height(b, ws, row, xlsx_book_text_height(strlen(text_), 230, 11));
}

/* Not slower than reality: by the first figure the run published. */
static bool not_slower(const struct validate_result *v, double tflops)
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
    const struct views *r = b->r;
    size_t row = 0, i, at = xlsx_table_col(&val_table, "run");

    xlsx_book_page(b, ws, XLSX_PAGE_TABLE);
    xlsx_table_widths(b, ws, &val_table);
    xlsx_book_str(b, ws, row++, at,
                  "Validation against published measured runs",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    note_row(b, ws, row++,
             "A speed-of-light prediction must not be slower than a real "
             "run: measured / speed-of-light step >= 1 (or its TFLOP/s and "
             "MFU at or above the measured ones). MFU is against the BF16 "
             "peak. Expected: on real kernels and network; expected vs "
             "measured = expected step / measured step - 1 (the measured "
             "step from the measured TFLOP/s per GPU where the run "
             "published no step).");
    note_row(b, ws, row++,
             "Which inputs came from where: each run's model and hardware "
             "files are the ones its validation file names (below the "
             "run); its calibration is the measured file for that hardware "
             "(data/calibration, by the hardware file's name) and its stack "
             "the framework file its validation file names (both in the "
             "last columns). None of these was fitted to the measured runs "
             "on this sheet.");
    row++;
    xlsx_table_header(b, ws, &val_table, row);
    xlsx_book_repeat_row(b, ws, row); /* the runs outgrow a page */
    xlsx_book_height(b, ws, row++, 62);
    xlsx_book_freeze(b, ws, row, at + 1);
    if (r->rank->nvalidations == 0)
        xlsx_book_str(b, ws, row++, at, "No validation runs (data/validation).",
                      xlsx_book_fmt(b, XLSX_FMT_NOTE));
    for (i = 0; i < r->rank->nvalidations; i++) {
        const struct validate_result *v = &r->rank->validation[i];
        const struct cost_result *p = &v->predicted;
        struct val_row vr;
        char plan[256], about[800];
        vr.v = v;
        vr.tflops = p->work.model_flops / p->t.step / 1e12;
        vr.ok = not_slower(v, vr.tflops);
        vr.expected = p->work.x.known && p->t.expected > 0;
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
    for (i = 0; i < r->rank->nvalidation_notes; i++)
        xlsx_book_str(b, ws, row++, at, r->rank->validation_notes[i],
                      xlsx_book_fmt(b, XLSX_FMT_NOTE));
    xlsx_book_print_area(b, ws, 0, row, VAL_COLS - 1);
}

/* ---- About ---- */

enum about_id { B_ROLE, B_PATH, B_SHA };

/* clang-format off */
static const struct xlsx_column about_cols[] = {
    {.key = "role", .header = "Input", .fmt = XLSX_FMT_TEXT, .width = 22, .id = B_ROLE},
    {.key = "path", .header = "Path", .fmt = XLSX_FMT_TEXT, .width = 70, .id = B_PATH},
    {.key = "sha256", .header = "SHA-256", .fmt = XLSX_FMT_TEXT, .width = 68, .id = B_SHA},
};
/* clang-format on */

static void about_get(const void *item, int id, struct xlsx_value *out)
{
    const struct report_input *in = item;
    xlsx_value_text(out, id == B_ROLE   ? in->role
                         : id == B_PATH ? in->path
                                        : in->sha256);
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
    const struct views *r = b->r;
    char when[64], num[32], version[64];
    size_t row = 0, i, at = xlsx_table_col(&about_table, "role");

    xlsx_book_page(b, ws, XLSX_PAGE_TABLE);
    xlsx_table_widths(b, ws, &about_table);
    xlsx_book_str(b, ws, row++, at, "About this workbook",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    row++;
    xlsx_book_when(r, when, sizeof when);
    snprintf(version, sizeof version, "roofplan %s", r->in->version);
    fact(b, ws, row++, "Generated by", version);
    fact(b, ws, row++, "Generated at", when);
    fact(b, ws, row++, "Command line", r->in->command_line);
    fact(b, ws, row++, "Communication model", comm_model_str(r->in->comm));
    views_thousands((double)r->rank->nrows, num, sizeof num);
    fact(b, ws, row++, "Plans kept", num);
    views_thousands((double)r->nsheet, num, sizeof num);
    fact(b, ws, row++, "Plans on the Plans sheet", num);
    fact(b, ws, row++, "Baseline family", r->baseline.name);
    if (r->in->recipe && r->in->recipe[0])
        fact(b, ws, row++, "Training recipe", r->in->recipe);
    if (r->in->stack_words) /* the software generation it reflects */
        fact(b, ws, row++, "Stack (expected step)", r->in->stack_words);
    if (r->in->recipe_default)
        xlsx_book_str(b, ws, row++, xlsx_table_col(&about_table, "path"),
                      "Warning: this config.json model runs with the default "
                      "training recipe, named above (its sequence length, "
                      "batch and token budget), not its own: every time, day "
                      "and cost here is for that recipe. Pass -t FILE with "
                      "the model's own.",
                      xlsx_book_fmt(b, XLSX_FMT_WARN));
    row++;
    xlsx_table_header(b, ws, &about_table, row++);
    for (i = 0; i < r->in->ninputs; i++)
        xlsx_table_row(b, ws, &about_table, row++, &r->in->input[i]);
    row++;
    xlsx_book_str(b, ws, row, at,
                  "The generation time comes from SOURCE_DATE_EPOCH when it "
                  "is set, so the same inputs give a byte-identical workbook.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    xlsx_book_print_area(b, ws, 0, row, about_table.ncols - 1);
}

/* ---- Glossary ---- */

/* clang-format off */
static const struct xlsx_column glo_cols[] = {
    {.key = "term", .header = "Term", .fmt = XLSX_FMT_LABEL_WRAP, .width = 24, .id = 0},
    {.key = "meaning", .header = "Meaning", .fmt = XLSX_FMT_WRAP, .width = 110, .id = 1},
};
/* clang-format on */

struct glossary_entry {
    const char *term, *meaning;
};

/* The words the report uses, in reading order of the Summary. */
static const struct glossary_entry glossary[] = {
    {"speed of light (SOL)",
     "The floor of a plan's step time: every resource at its achievable "
     "rate (measured, not the datasheet's), everything that can overlap "
     "overlapped. No real run of the plan is faster; real runs take longer "
     "(see Validation for how much)."},
    {"expected time",
     "What a plan should take on real kernels and a real network, from a "
     "measured calibration: the speed of light plus what each effect adds."},
    {"step", "One optimizer step: the global batch through forward and "
             "backward, then the optimizer's update."},
    {"fits / headroom",
     "A plan fits when its memory per GPU (heaviest pipeline rank) leaves "
     "the sweep's headroom share of HBM free (HEADROOM_PCT on Assumptions); "
     "free memory is HBM minus what the plan needs."},
    {"ties",
     "Plans within TIE_PCT of the fastest fitting plan: the model cannot "
     "tell them apart; the one with the most free memory is recommended."},
    {"family",
     "Plans named by their non-trivial dimensions, data parallelism first: "
     "ZeRO-1+PP+EP is ZeRO-1 data parallelism with pipeline and expert "
     "parallelism."},
    {"baseline", "The family every report compares against (the sweep "
                 "file's report.baseline): pure FSDP (ZeRO-3) by default."},
    {"DP, ZeRO-0..3, FSDP",
     "Data parallelism: every GPU group holds a replica. ZeRO-1 shards the "
     "optimizer state over the replicas, ZeRO-2 also the gradients, ZeRO-3 "
     "(PyTorch's FSDP) also the weights, gathered layer by layer in forward "
     "and backward."},
    {"TP", "Tensor parallelism: each layer's matrices split over GPUs of a "
           "node (with sequence parallelism)."},
    {"PP", "Pipeline parallelism: the layers split into stages on different "
           "GPUs, micro-batches flowing through them."},
    {"EP", "Expert parallelism: a MoE layer's experts spread over GPUs; "
           "tokens travel to their experts and back (all-to-all)."},
    {"CP", "Context parallelism: the sequence split over GPUs."},
    {"expert DP (EDP)", "The replicas of each expert: tp x cp x dp / ep."},
    {"1F1B, interleaved, zb, DualPipe",
     "Pipeline schedules. 1F1B: one forward, one backward; its bubble is "
     "(p-1)(F+B). Interleaved: vpp chunks per GPU, the bubble divided by "
     "vpp. zb (ZB1P, zero-bubble): weight gradients fill the bubble. "
     "DualPipe (DeepSeek-V3): two pipelines in opposite directions, "
     "forward and backward chunks overlapped with their communication."},
    {"micro-batch, global batch",
     "Sequences per forward/backward pass of one pipeline stage (mbs), and "
     "per optimizer step over the whole cluster (gbs)."},
    {"recompute: none, selective, full",
     "What backward recomputes instead of keeping: nothing; DeepSeek's "
     "selective set (norms, MLA up-projections); everything but each "
     "layer's input."},
    {"FP8, BF16", "GEMM precisions: FP8 GEMMs run at the FP8 rate where the "
                  "recipe allows; the rest at BF16."},
    {"topo (hierarchical) model",
     "Collectives split their traffic: the share between nodes over each "
     "node's IB links, the share inside a node over NVLink; MoE dispatch "
     "with node-limited routing."},
    {"flat model",
     "The seed spreadsheet's method: a collective whose group spans nodes "
     "moves its whole volume over IB; inside a node, over NVLink."},
    {"IB, NVLink, HBM",
     "InfiniBand between nodes (per GPU), NVLink inside a node, the GPU's "
     "own memory; each with its achievable bandwidth on Assumptions."},
    {"bound", "The resource whose time sets the overlapped step: compute, "
              "IB, NVLink or HBM. Compute-bound is the goal: communication "
              "hides under compute."},
    {"comm/compute", "The busiest link's time over the compute time; below "
                     "1, communication can hide under compute where the "
                     "training framework overlaps it (the stack file; the "
                     "step-end gradient sync often is not)."},
    {"MFU",
     "Model FLOPs utilisation: model FLOPs per step over (step time x peak "
     "FLOP/s). Of the BF16 peak (DeepSeek's convention: an FP8 plan can "
     "exceed 100%), or of the plan's own precision's peak."},
    {"roofline, operational intensity, ridge",
     "A plan's FLOPs per byte over a link (its intensity) against its "
     "attained FLOP/s; the compute roof is flat, the link's slope is "
     "intensity x bandwidth. The ridge (roof / bandwidth) is the intensity "
     "below which the link, not compute, limits the plan."},
    {"crossover", "The bandwidth at which a plan's link time falls to its "
                  "compute time (Sensitivity)."},
    {"GPU-hours, cost",
     "Days x 24 x GPUs for the model's token budget, times GPU_HOUR_USD."},
};

static void glo_get(const void *item, int id, struct xlsx_value *out)
{
    const struct glossary_entry *e = item;
    xlsx_value_text(out, id == 0 ? e->term : e->meaning);
}

static const struct xlsx_table glo_table = {
    glo_cols, sizeof glo_cols / sizeof glo_cols[0], XLSX_FMT_HEAD_LEFT,
    glo_get};

void xlsx_small_glossary(struct xlsx_book *b, struct lxw_worksheet *ws)
{
    size_t row = 0, i, n = sizeof glossary / sizeof glossary[0];
    xlsx_book_page(b, ws, XLSX_PAGE_TABLE);
    xlsx_table_widths(b, ws, &glo_table);
    xlsx_book_str(b, ws, row++, 0, "Glossary",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_link(b, ws, row++, 0, "Summary", "Back to the Summary");
    row++;
    xlsx_table_header(b, ws, &glo_table, row++);
    for (i = 0; i < n; i++) {
        xlsx_table_row(b, ws, &glo_table, row, &glossary[i]);
        xlsx_book_height(b, ws, row++,
                         xlsx_book_text_height(strlen(glossary[i].meaning),
                                               glo_cols[1].width, 11));
    }
    xlsx_book_print_area(b, ws, 0, row - 1, 1);
}
