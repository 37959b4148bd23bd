/*
 * xlsx_key_figures: the Summary's key figures of the recommended plan
 * (see xlsx_key_figures.h): the fastest fitting plan, the ties and the
 * recommended one, its step, throughput, MFU, days, GPU-hours, cost and
 * memory at the speed of light with the expected ones and their range
 * beside them, live over the Plans sheet's named columns, and the names
 * defined over them (FASTEST_*, RECOMMENDED_*).
 */
#include "xlsx_key_figures.h"

#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "plan.h"
#include "plans_table.h"
#include "xlsx_families.h"
#include "xlsx_summary.h"
#include "xlsx_table.h"

#define INPUT_ERROR   XLSX_SUMMARY_INPUT_ERROR
#define OR_MESSAGE(f) "IFERROR(" f "," INPUT_ERROR ")"

/* Where the key figures go on the same grid. */
#define KV_LABEL "family"
#define KV_VALUE "step_o"
#define KV_NOTE  "bound_o"

/* The fastest plan that fits (the fastest when none does), and among the
 * plans within TIE_PCT of it the one with the most free memory. */
#define ANY_FITS "SUMPRODUCT(PLANS_FITS)>0"
#define FASTEST_STEP \
    "IF(" ANY_FITS ",MIN(IF(PLANS_FITS,PLANS_RANK_S)),MIN(PLANS_RANK_S))"
#define FASTEST_ROW_F                                                      \
    "IF(" ANY_FITS ",MATCH(FASTEST_STEP_S,IF(PLANS_FITS,PLANS_RANK_S),0)," \
    "MATCH(FASTEST_STEP_S,PLANS_RANK_S,0))"
#define TIE "PLANS_FITS*(PLANS_RANK_S<=FASTEST_STEP_S*(1+TIE_PCT/100))"
#define RECOMMENDED_ROW_F                                       \
    "IFERROR(MATCH(MAX(IF(" TIE ",PLANS_HEADROOM_GIB)),IF(" TIE \
    ",PLANS_HEADROOM_GIB),0),FASTEST_ROW)"

/* The Summary's columns: the family table's (xlsx_families). */
static size_t col(const char *key)
{
    return xlsx_table_col(xlsx_families_table(), key);
}

/* Defines name over the value cell of the key figure at row. */
static void name_cell(struct xlsx_book *b, size_t row, const char *name)
{
    char ref[64], c[8];
    plans_table_col_name(col(KV_VALUE), c, sizeof c);
    snprintf(ref, sizeof ref, "=%s!$%s$%zu", XLSX_SUMMARY_SHEET, c, row + 1);
    xlsx_book_define(b, name, ref);
}

/* One key figure: its label, its value (live: the formula, cached as
 * the C value v, or the text s when not NULL) and a note. */
struct key_figure {
    const char *label;
    const char *formula; /* without '='; NULL: the value alone */
    bool array;          /* an array formula (over whole columns) */
    double v;
    const char *s;
    enum xlsx_fmt fmt;
    const char *note; /* NULL: none */
};

/* Key figure k on row `row`: label, value (a formula when live). */
static void kv(struct xlsx_book *b,
               lxw_worksheet *ws,
               size_t row,
               const struct key_figure *k)
{
    struct xlsx_value x;
    memset(&x, 0, sizeof x);
    x.kind = k->s ? XLSX_TEXT : XLSX_NUM;
    x.num = k->v;
    x.str = k->s;
    x.fmt = k->fmt;
    x.array = k->array;
    x.formula = b->big ? NULL : k->formula;
    xlsx_book_str(b, ws, row, col(KV_LABEL), k->label,
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    xlsx_table_cell(b, ws, xlsx_families_table(), row, col(KV_VALUE), &x);
    if (k->note)
        xlsx_book_str(b, ws, row, col(KV_NOTE), k->note,
                      xlsx_book_fmt(b, XLSX_FMT_NOTE));
}

/* "IFERROR(INDEX(PLANS_x,RECOMMENDED_ROW),msg)" into buf. */
static const char *pick(const char *column, char *buf, size_t size)
{
    snprintf(buf, size, "IFERROR(INDEX(%s,RECOMMENDED_ROW)," INPUT_ERROR ")",
             column);
    return buf;
}

/*
 * The expected figure k (0 the step .. 7 GPU-hours per 1T tokens, the
 * order of the key figures' rows) beside the speed of light's on `row`,
 * live, when the recommended plan has an expected step. Written with its
 * row: the workbook may be in constant-memory mode, where a row once
 * left cannot be written again.
 */
static void
expected_figure(struct xlsx_book *b, lxw_worksheet *ws, size_t row, int k)
{
    static const char *const formula[] = {
        "INDEX(PLANS_EXPECTED_S,RECOMMENDED_ROW)",
        "INDEX(PLANS_X_TPS,RECOMMENDED_ROW)",
        "INDEX(PLANS_X_MFU,RECOMMENDED_ROW)",
        ("INDEX(PLANS_MFU_BF16_PEAK,RECOMMENDED_ROW)*INDEX(PLANS_STEP_S,"
         "RECOMMENDED_ROW)/INDEX(PLANS_EXPECTED_S,RECOMMENDED_ROW)"),
        "INDEX(PLANS_X_DAYS,RECOMMENDED_ROW)",
        "INDEX(PLANS_X_COST,RECOMMENDED_ROW)/GPU_HOUR_USD",
        "INDEX(PLANS_X_COST,RECOMMENDED_ROW)",
        "1E+12/INDEX(PLANS_X_TPS,RECOMMENDED_ROW)/3600"};
    static const enum xlsx_fmt fmt[] = {
        XLSX_FMT_SEC,  XLSX_FMT_CNT, XLSX_FMT_PCT,   XLSX_FMT_PCT,
        XLSX_FMT_DAYS, XLSX_FMT_CNT, XLSX_FMT_USD_M, XLSX_FMT_CNT};
    const struct views_headline *h = &b->r->headline;
    const struct views_cost *e = &h->expected;
    const double v[] = {e->step_s,   e->tokens_per_s_per_gpu,
                        e->mfu,      e->mfu_bf16_peak,
                        e->days,     e->gpu_hours,
                        e->cost_usd, e->gpu_hours_per_trillion};
    /* the figures with a range (issue 18): the step, days and cost */
    static const char *const ranged[] = {
        "RECOMMENDED_STEP_S", NULL, NULL, NULL, "RECOMMENDED_DAYS", NULL,
        "RECOMMENDED_COST",   NULL};
    struct xlsx_value c;
    char fx[300], name[64];
    int side;
    if (!h->has_expected || k < 0 || k >= (int)(sizeof v / sizeof v[0]))
        return;
    memset(&c, 0, sizeof c);
    snprintf(fx, sizeof fx, "IFERROR(%s," INPUT_ERROR ")", formula[k]);
    c.kind = XLSX_NUM;
    c.num = v[k];
    c.fmt = fmt[k];
    c.formula = b->big ? NULL : fx;
    xlsx_table_cell(b, ws, xlsx_families_table(), row, col("step"), &c);
    if (!ranged[k])
        return;
    xlsx_summary_define(b, row, col("step"), ranged[k]);
    if (!h->has_range)
        return;
    for (side = 0; side < 2; side++) { /* low in Bound, high in Comm/compute */
        snprintf(fx, sizeof fx, "IFERROR(%s*%s," INPUT_ERROR ")", formula[k],
                 side ? "EXPECTED_SPREAD_HIGH" : "EXPECTED_SPREAD_LOW");
        c.num = v[k] * (side ? h->range_hi : h->range_lo);
        c.formula = b->big ? NULL : fx;
        xlsx_table_cell(b, ws, xlsx_families_table(), row,
                        col(side ? "ratio" : "bound"), &c);
        snprintf(name, sizeof name, "%s_%s", ranged[k], side ? "HIGH" : "LOW");
        xlsx_summary_define(b, row, col(side ? "ratio" : "bound"), name);
    }
}

/* The validation runs' spread of measured over expected: the ranges'
 * factors (EXPECTED_SPREAD_LOW, _HIGH), values at the report's inputs. */
static size_t spread(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views_headline *h = &b->r->headline;
    struct xlsx_value c;
    char note[300];
    int side;
    if (!h->has_range)
        return row;
    xlsx_book_str(b, ws, row, col(KV_LABEL),
                  "Published runs: measured / expected",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    memset(&c, 0, sizeof c);
    c.kind = XLSX_NUM;
    c.fmt = XLSX_FMT_RAT;
    for (side = 0; side < 2; side++) {
        c.num = side ? h->range_hi : h->range_lo;
        xlsx_table_cell(b, ws, xlsx_families_table(), row,
                        col(side ? "ratio" : "bound"), &c);
        xlsx_summary_define(b, row, col(side ? "ratio" : "bound"),
                            side ? "EXPECTED_SPREAD_HIGH"
                                 : "EXPECTED_SPREAD_LOW");
    }
    snprintf(note, sizeof note,
             "the smallest and largest over the %zu published runs on "
             "Validation (each on its own inputs and stack): the expected "
             "figures' low and high",
             h->range_runs);
    xlsx_book_str(b, ws, row, col(KV_NOTE), note,
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    return row + 1;
}

/* The key figures' heading and the captions of their columns. */
static size_t key_head(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views_headline *h = &b->r->headline;
    xlsx_book_strf(b, ws, row++, col("family"), xlsx_book_fmt(b, XLSX_FMT_H2),
                   "The recommended plan%s",
                   b->big ? " (values)"
                          : ": live, these figures follow edits on "
                            "Assumptions");
    xlsx_book_str(b, ws, row, col(KV_VALUE), "speed of light",
                  xlsx_book_fmt(b, XLSX_FMT_KEY_HEAD));
    if (h->has_expected)
        xlsx_book_str(b, ws, row, col("step"), "expected",
                      xlsx_book_fmt(b, XLSX_FMT_KEY_HEAD));
    if (h->has_range) {
        xlsx_book_str(b, ws, row, col("bound"), "expected low",
                      xlsx_book_fmt(b, XLSX_FMT_KEY_HEAD));
        xlsx_book_str(b, ws, row, col("ratio"), "expected high",
                      xlsx_book_fmt(b, XLSX_FMT_KEY_HEAD));
    }
    xlsx_book_height(b, ws, row, 30);
    xlsx_book_str(b, ws, row++, col(KV_NOTE),
                  h->has_expected
                      ? "expected: on real kernels and network (calibrated); "
                        "speed of light: no run of this plan is faster"
                      : "a floor: no run of this plan is faster (see the "
                        "difference above)",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));

    return row;
}

/* The fastest fitting plan, the ties and the recommended one among them,
 * with the names over them (FASTEST_*, RECOMMENDED_PLAN, _ROW). */
static size_t key_choice(struct xlsx_book *b,
                         lxw_worksheet *ws,
                         size_t row,
                         const struct ranking_row *best)
{
    const struct views *r = b->r;
    const struct views_headline *h = &r->headline;
    char note[200], plan[256];
    double best_row = r->sheet_best >= 0 ? (double)r->sheet_best + 1 : 1;
    double rec_row = (double)r->sheet_recommended + 1;

    plan_format(&best->plan, plan, sizeof plan);
    kv(b, ws, row,
       &(struct key_figure){.label = "Fastest fitting plan",
                            .formula =
                                OR_MESSAGE("INDEX(PLANS_PLAN,FASTEST_ROW)"),
                            .s = plan,
                            .fmt = XLSX_FMT_TEXT});
    name_cell(b, row++, "FASTEST_PLAN");
    kv(b, ws, row,
       &(struct key_figure){
           .label = r->in->expected ? "its expected step time (s)"
                                    : "its speed-of-light step time (s)",
           .formula = OR_MESSAGE(FASTEST_STEP),
           .array = true,
           .v = best->step,
           .fmt = XLSX_FMT_SEC,
           .note =
               r->in->expected
                   ? "the smallest expected step among plans that fit "
                     "(plans rank by it; PLANS_RANK_S)"
                   : "the smallest step among plans that fit (PLANS_RANK_S)"});
    name_cell(b, row++, "FASTEST_STEP_S");
    kv(b, ws, row,
       &(struct key_figure){.label = "its row on Plans",
                            .formula = OR_MESSAGE(FASTEST_ROW_F),
                            .array = true,
                            .v = best_row,
                            .fmt = XLSX_FMT_INT});
    name_cell(b, row++, "FASTEST_ROW");
    snprintf(note, sizeof note,
             "within TIE_PCT (%g%%) of the fastest and fitting: ties",
             r->rank->tie_pct);
    kv(b, ws, row++,
       &(struct key_figure){.label = "Ties",
                            .formula = OR_MESSAGE("SUMPRODUCT(" TIE ")"),
                            .v = (double)h->ties,
                            .fmt = XLSX_FMT_CNT,
                            .note = note});
    plan_format(&h->plan.plan, plan, sizeof plan);
    kv(b, ws, row,
       &(struct key_figure){
           .label = "Recommended: most free memory of the ties",
           .formula = OR_MESSAGE("INDEX(PLANS_PLAN,RECOMMENDED_ROW)"),
           .s = plan,
           .fmt = XLSX_FMT_LABEL});
    name_cell(b, row++, "RECOMMENDED_PLAN");
    kv(b, ws, row,
       &(struct key_figure){.label = "its row on Plans",
                            .formula = OR_MESSAGE(RECOMMENDED_ROW_F),
                            .array = true,
                            .v = rec_row,
                            .fmt = XLSX_FMT_INT});
    name_cell(b, row++, "RECOMMENDED_ROW");
    return row;
}

/* The recommended plan's step, throughput and MFU, the speed of light's
 * and the expected beside it. */
static size_t key_speed(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views_headline *h = &b->r->headline;
    const struct views_cost *sol = &h->sol;
    char f[200];

    kv(b, ws, row,
       &(struct key_figure){
           .label = "Step time (s)",
           .formula = pick("PLANS_STEP_S", f, sizeof f),
           .v = sol->step_s,
           .fmt = XLSX_FMT_SEC,
           .note =
               "pipeline bubble + optimizer step + the busiest of compute, IB, "
               "NVLink, HBM (overlapped)"});
    expected_figure(b, ws, row, 0);
    if (!h->has_expected)
        name_cell(b, row, "RECOMMENDED_STEP_S");
    name_cell(b, row++, "RECOMMENDED_STEP_S_SOL");
    kv(b, ws, row,
       &(struct key_figure){.label = "Tokens/s per GPU",
                            .formula = pick("PLANS_TPS", f, sizeof f),
                            .v = sol->tokens_per_s_per_gpu,
                            .fmt = XLSX_FMT_CNT});
    expected_figure(b, ws, row++, 1);
    kv(b, ws, row,
       &(struct key_figure){.label = "MFU",
                            .formula = pick("PLANS_MFU", f, sizeof f),
                            .v = sol->mfu,
                            .fmt = XLSX_FMT_PCT,
                            .note = "model FLOPs over each precision's own "
                                    "peak (FP8 GEMMs at the FP8 "
                                    "peak, the rest at BF16's): at most 100%"});
    expected_figure(b, ws, row++, 2);
    kv(b, ws, row,
       &(struct key_figure){.label = "MFU of the BF16 peak",
                            .formula = pick("PLANS_MFU_BF16_PEAK", f, sizeof f),
                            .v = sol->mfu_bf16_peak,
                            .fmt = XLSX_FMT_PCT,
                            .note = "model FLOPs / (step x BF16 dense peak), "
                                    "as DeepSeek reports it: an "
                                    "FP8 plan can exceed 100%"});
    expected_figure(b, ws, row++, 3);
    return row;
}

/* What the token budget costs the recommended plan (days, GPU-hours,
 * dollars) and its memory. */
static size_t key_budget(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    const struct views_headline *h = &r->headline;
    const struct views_cost *sol = &h->sol;
    char f[200], note[200];

    /* whose budget it is (issue 37): a borrowed recipe's is not the
     * model's */
    snprintf(note, sizeof note,
             r->in->recipe_default
                 ? "the default recipe's budget of %.1fT tokens "
                   "(TRAINING_TOKENS; borrowed, not the model's own) on %ld "
                   "GPUs"
             : r->in->recipe_json
                 ? "the training file's budget of %.1fT tokens "
                   "(TRAINING_TOKENS) on %ld GPUs"
                 : "the model's budget of %.1fT tokens (TRAINING_TOKENS) on "
                   "%ld GPUs",
             r->in->m->spec.tokens / 1e12, h->plan.plan.gpus);
    kv(b, ws, row,
       &(struct key_figure){.label = "Days for the token budget",
                            .formula = pick("PLANS_DAYS", f, sizeof f),
                            .v = sol->days,
                            .fmt = XLSX_FMT_DAYS,
                            .note = note});
    if (!h->has_expected)
        name_cell(b, row, "RECOMMENDED_DAYS");
    name_cell(b, row, "RECOMMENDED_DAYS_SOL");
    expected_figure(b, ws, row++, 4);
    kv(b, ws, row,
       &(struct key_figure){.label = "GPU-hours for the budget",
                            .formula = "IFERROR(INDEX(PLANS_COST,RECOMMENDED_"
                                       "ROW)/GPU_HOUR_USD," INPUT_ERROR ")",
                            .v = sol->gpu_hours,
                            .fmt = XLSX_FMT_CNT});
    expected_figure(b, ws, row++, 5);
    snprintf(note, sizeof note, "at GPU_HOUR_USD ($%.2f per GPU-hour)",
             r->in->hw->spec.gpu_hour_usd);
    kv(b, ws, row,
       &(struct key_figure){.label = "Cost for the budget",
                            .formula = pick("PLANS_COST", f, sizeof f),
                            .v = sol->cost_usd,
                            .fmt = XLSX_FMT_USD_M,
                            .note = note});
    if (!h->has_expected)
        name_cell(b, row, "RECOMMENDED_COST");
    name_cell(b, row, "RECOMMENDED_COST_SOL");
    expected_figure(b, ws, row++, 6);
    kv(b, ws, row,
       &(struct key_figure){.label = "GPU-hours per 1T tokens",
                            .formula = pick("PLANS_GPUH", f, sizeof f),
                            .v = sol->gpu_hours_per_trillion,
                            .fmt = XLSX_FMT_CNT});
    expected_figure(b, ws, row++, 7);
    snprintf(note, sizeof note,
             "heaviest pipeline rank, of %.1f GiB (HBM_GIB); fits at %.1f "
             "(HEADROOM_PCT %g%% kept free)",
             h->capacity_gib, h->usable_gib, r->rank->headroom_pct);
    kv(b, ws, row++,
       &(struct key_figure){.label = "Memory per GPU (GiB)",
                            .formula = pick("PLANS_MEM_TOTAL", f, sizeof f),
                            .v = h->memory_gib,
                            .fmt = XLSX_FMT_GIB,
                            .note = note});
    kv(b, ws, row++,
       &(struct key_figure){.label = "Free memory per GPU (GiB)",
                            .formula = pick("PLANS_HEADROOM_GIB", f, sizeof f),
                            .v = h->headroom_gib,
                            .fmt = XLSX_FMT_GIB});
    return row;
}

size_t xlsx_key_figures(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    const struct ranking_row *best =
        r->sheet_best >= 0 ? views_sheet_row(r, (size_t)r->sheet_best)
                           : (r->nsheet ? views_sheet_row(r, 0) : NULL);

    if (!r->headline.any || !best)
        return row;
    row = key_head(b, ws, row);
    row = key_choice(b, ws, row, best);
    row = key_speed(b, ws, row);
    row = key_budget(b, ws, row);
    row = spread(b, ws, row);
    return row + 1;
}
