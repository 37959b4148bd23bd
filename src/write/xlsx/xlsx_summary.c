/*
 * xlsx_summary: the Summary sheet (see xlsx_summary.h). Its columns are
 * those of the family table (xlsx_families, on Families): key figures
 * and paragraphs on that grid (labels under Family, values under the
 * other model's Step, paragraphs merged from Family to Best plan); its
 * first screen's sentences are live (xlsx_live); its key figures are
 * xlsx_key_figures'. Every sentence is the
 * report's (figures); the figures that follow the inputs are formulas
 * over the Plans sheet's named columns (PLANS_*), cached with the C
 * values, and the names BEST_* and RECOMMENDED_* are defined over cells
 * of this sheet.
 */
#include "xlsx_summary.h"

#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "goodput.h"
#include "scale.h"
#include "plans_table.h"
#include "terms_inputs.h"
#include "xlsx_families.h"
#include "xlsx_key_figures.h"
#include "xlsx_live.h"
#include "xlsx_out.h"
#include "xlsx_table.h"
#include "xlsx_waterfall.h"

/* The line the Summary shows once an input differs from its shipped
 * value (INPUTS_AS_SHIPPED FALSE). */
#define EDITED_WARNING                                                   \
    "Inputs edited: the figures on this sheet follow them, but the "     \
    "sentences under Verdict and the plan's words describe the shipped " \
    "inputs; rerun roofplan for the words of the new inputs."

/* The paragraphs are merged from Family to Best plan (129 characters,
 * inside a 1366-px screen, issue 18). Best plan is narrower here than
 * on Families (PLAN_WIDTH, not 34): the printed page is as wide as the
 * paragraphs, and at 139 characters LibreOffice fits it to a Letter
 * page at 69%, 7.6-point type (issue 37). */
#define TEXT_LAST  "plan"
#define PLAN_WIDTH 24.0

/* The message a figure shows when an input makes it undefined (a rate
 * of 0 divides by zero): instead of #DIV/0! in every cell. */
#define INPUT_ERROR XLSX_SUMMARY_INPUT_ERROR
/* The Summary's columns: the family table's (xlsx_families). */
#define NCOLS (xlsx_families_table()->ncols)

static size_t col(const char *key)
{
    return xlsx_table_col(xlsx_families_table(), key);
}

/* The width (characters) a text merged from column c to TEXT_LAST wraps
 * at: a little under its columns' (5 characters). */
static double text_width(size_t c)
{
    const struct xlsx_table *t = xlsx_families_table();
    double w = PLAN_WIDTH - 5;
    for (; c < col(TEXT_LAST); c++)
        w += t->col[c].width;
    return w;
}

/* ---- Blocks ---- */

/* A wrapped paragraph over the sheet's width, its row made tall enough. */
static void paragraph(struct xlsx_book *b,
                      lxw_worksheet *ws,
                      size_t row,
                      const char *text_,
                      enum xlsx_fmt f,
                      double pt)
{
    xlsx_book_merge(b, ws, row, col("family"), col(TEXT_LAST), text_,
                    xlsx_book_fmt(b, f));
    xlsx_book_height(
        b, ws, row,
        xlsx_book_text_height(strlen(text_), text_width(col("family")), pt));
}

void xlsx_summary_define(struct xlsx_book *b,
                         size_t row,
                         size_t c,
                         const char *name)
{
    char ref[64], cn[8];
    plans_table_col_name(c, cn, sizeof cn);
    snprintf(ref, sizeof ref, "=%s!$%s$%zu", XLSX_SUMMARY_SHEET, cn, row + 1);
    xlsx_book_define(b, name, ref);
}

/* ---- The first screen: live sentences and the shipped-inputs flag ---- */

/* The sentence merged over Family..Best plan from column c on, as a
 * live formula with its cached value. */
static void live_write(struct xlsx_book *b,
                       lxw_worksheet *ws,
                       size_t row,
                       size_t c,
                       const struct xlsx_live *t,
                       enum xlsx_fmt f,
                       double pt)
{
    char fx[sizeof t->f + 64];
    if (t->over) {
        xlsx_book_invalid(b, "a live sentence of the Summary");
        return;
    }
    snprintf(fx, sizeof fx, "=IFERROR(%s," INPUT_ERROR ")", t->f);
    xlsx_book_merge(b, ws, row, c, col(TEXT_LAST), "", xlsx_book_fmt(b, f));
    xlsx_book_formula_str(b, ws, row, c, fx, t->v, xlsx_book_fmt(b, f));
    xlsx_book_height(b, ws, row,
                     xlsx_book_text_height(strlen(t->v), text_width(c), pt));
}

/*
 * INPUTS_AS_SHIPPED's formula: every input the Assumptions sheet offers
 * for editing (the registry's data-file keys this cluster has) compared
 * with the value it was written with, to 1e-9 of it: 1 (shown TRUE) when
 * all hold, else 0 (FALSE), a number as the Fits cells are (libxlsxwriter
 * caches no booleans). Returns false when the buffer is too small.
 */
static bool shipped_formula(const struct views *r, char *buf, size_t size)
{
    size_t n, i, len;
    const struct terms_input *in = terms_inputs(&n);
    int w = snprintf(buf, size, "=IF(AND(TRUE");
    if (w < 0 || (size_t)w >= size)
        return false;
    len = (size_t)w;
    for (i = 0; i < n; i++) {
        double v;
        if (in[i].origin == TERMS_DERIVED ||
            !terms_input_available(&in[i], r->in->hw) ||
            terms_input_field(&in[i]) < 0 ||
            !terms_input_value(&in[i], r->in->hw, r->in->m, r->in->sweep, &v))
            continue;
        if (v == 0)
            w = snprintf(buf + len, size - len, ",%s=0", in[i].name);
        else
            w = snprintf(buf + len, size - len,
                         ",ABS(%s-(%.15g))<=1E-09*ABS(%.15g)", in[i].name, v,
                         v);
        if (w < 0 || (size_t)w >= size - len)
            return false;
        len += (size_t)w;
    }
    w = snprintf(buf + len, size - len, "),1,0)");
    return w >= 0 && (size_t)w < size - len;
}

/* How a figure of a live sentence is written: a number with one
 * decimal (tenths), or a cost (xlsx_live_usd). */
typedef void figure_fn(struct xlsx_live *t, const char *name, double v);

static void tenths(struct xlsx_live *t, const char *name, double v)
{
    xlsx_live_num(t, name, 1, v);
}

/* " (range LOW to HIGH)" of a name with _LOW and _HIGH, each written by
 * put. */
static void live_range(struct xlsx_live *t,
                       const char *name,
                       figure_fn *put,
                       double v,
                       const struct views_headline *h)
{
    char lo[64], hi[64];
    snprintf(lo, sizeof lo, "%s_LOW", name);
    snprintf(hi, sizeof hi, "%s_HIGH", name);
    xlsx_live_lit(t, " (range ");
    put(t, lo, v * h->range_lo);
    xlsx_live_lit(t, " to ");
    put(t, hi, v * h->range_hi);
    xlsx_live_lit(t, ")");
}

/* The recommended plan's words while RECOMMENDED_ROW is the report's
 * row, else the live plan's key=value form: the formula into buf. */
static const char *plan_words(const struct views *r, char *buf, size_t size)
{
    snprintf(buf, size, "IF(RECOMMENDED_ROW=%ld,\"%s\",RECOMMENDED_PLAN)",
             (long)r->sheet_recommended + 1, r->headline.title);
    return buf;
}

/* The warning that shows once an input was edited: "" while
 * INPUTS_AS_SHIPPED is TRUE; its row tall enough for the text it shows
 * when FALSE. */
static void edited_warning(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    char flag[sizeof EDITED_WARNING + 64];
    xlsx_book_merge(b, ws, row, col("family"), col(TEXT_LAST), "",
                    xlsx_book_fmt(b, XLSX_FMT_WARN));
    snprintf(flag, sizeof flag, "=IF(INPUTS_AS_SHIPPED,\"\",\"%s\")",
             EDITED_WARNING);
    xlsx_book_formula_str(b, ws, row, col("family"), flag, "",
                          xlsx_book_fmt(b, XLSX_FMT_WARN));
    xlsx_book_height(b, ws, row,
                     xlsx_book_text_height(strlen(EDITED_WARNING),
                                           text_width(col("family")), 11));
}

/* The verdict in one live sentence: the plan, its step, days and cost. */
static void glance_verdict(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    const struct views_headline *h = &r->headline;
    const struct views_cost *sol = &h->sol, *x = &h->expected;
    const struct views_cost *c = h->has_expected ? x : sol;
    struct xlsx_live t;
    char plan_f[400];

    plan_words(r, plan_f, sizeof plan_f);
    memset(&t, 0, sizeof t);
    xlsx_live_lit(&t,
                  h->fits ? "Recommended: " : "No plan fits; the fastest: ");
    xlsx_live_expr(&t, plan_f, h->title);
    xlsx_live_lit(&t, " at ");
    xlsx_live_num(&t, "RECOMMENDED_STEP_S", 1, c->step_s);
    xlsx_live_lit(&t, h->has_expected ? " s per step expected" : " s per step");
    if (h->has_expected && h->has_range)
        live_range(&t, "RECOMMENDED_STEP_S", tenths, x->step_s, h);
    if (h->has_expected) {
        xlsx_live_lit(&t, "; speed of light ");
        xlsx_live_num(&t, "RECOMMENDED_STEP_S_SOL", 1, sol->step_s);
        xlsx_live_lit(&t, " s");
    } else {
        xlsx_live_lit(&t, " at the speed of light (no calibration)");
    }
    xlsx_live_lit(&t, ": ");
    xlsx_live_num(&t, "RECOMMENDED_DAYS", 1, c->days);
    xlsx_live_lit(&t, " days and ");
    xlsx_live_usd(&t, "RECOMMENDED_COST", c->cost_usd);
    xlsx_live_lit(&t, " at $");
    xlsx_live_num(&t, "GPU_HOUR_USD", 2, r->in->hw->spec.gpu_hour_usd);
    xlsx_live_lit(&t, " per GPU-hour.");
    live_write(b, ws, row, col("family"), &t, XLSX_FMT_HEADLINE, 12);
}

/* The training recipe the plans take, in words (issue 37): a warning
 * when it is the data directory's default, borrowed, not the model's. */
static size_t recipe_row(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct report_inputs *in = b->r->in;
    enum xlsx_fmt f = in->recipe_default ? XLSX_FMT_WARN : XLSX_FMT_WRAP;
    if (!in->recipe || !in->recipe[0])
        return row;
    xlsx_book_str(b, ws, row, col("family"), "Training recipe",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    xlsx_book_merge(b, ws, row, col("step"), col(TEXT_LAST), in->recipe,
                    xlsx_book_fmt(b, f));
    xlsx_book_height(
        b, ws, row,
        xlsx_book_text_height(strlen(in->recipe), text_width(col("step")), 11));
    return row + 1;
}

/* Several cluster sizes: each one's days and cost in one line (the Scale
 * sheet details them); a deadline's or budget's answer. No row without
 * them. */
/* A label in Family and text merged from Step on, wrapped, its row tall
 * enough for it (the printed page cuts what runs past its edge). */
static void text_row(struct xlsx_book *b,
                     lxw_worksheet *ws,
                     size_t row,
                     const char *label,
                     const char *text)
{
    xlsx_book_str(b, ws, row, col("family"), label,
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    xlsx_book_merge(b, ws, row, col("step"), col(TEXT_LAST), text,
                    xlsx_book_fmt(b, XLSX_FMT_WRAP));
    xlsx_book_height(
        b, ws, row,
        xlsx_book_text_height(strlen(text), text_width(col("step")), 11));
}

static size_t glance_scale(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct scale *s = b->r->scale;
    char text[2048], line[2100];
    if (!s)
        return row;
    if (s->n > 1) {
        scale_line(s, text, sizeof text);
        snprintf(line, sizeof line, "%s (Scale sheet)", text);
        text_row(b, ws, row++, "Cluster sizes", line);
    }
    scale_answer(s, text, sizeof text);
    if (text[0])
        text_row(b, ws, row++, s->days > 0 ? "Deadline" : "Budget", text);
    return row;
}

/* A label in Family and a live line from Step on. */
static void labelled(struct xlsx_book *b,
                     lxw_worksheet *ws,
                     size_t row,
                     const char *label,
                     const struct xlsx_live *t)
{
    xlsx_book_str(b, ws, row, col("family"), label,
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    live_write(b, ws, row, col("step"), t, XLSX_FMT_WRAP, 11);
}

/* The wall-clock days and cost (failures and checkpoints, where the
 * hardware file gives a failure rate) and the energy (where it gives a
 * power): live over the Assumptions sheet's WALL_*, GOODPUT and ENERGY_*
 * (xlsx_goodput). */
static size_t glance_goodput(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    struct goodput_figures f;
    struct xlsx_live t;
    goodput_headline(b->r, &f);
    if (f.g.failures) {
        memset(&t, 0, sizeof t);
        xlsx_live_num(&t, "WALL_DAYS", 1, f.wall_days);
        if (f.range) {
            xlsx_live_lit(&t, " (range ");
            xlsx_live_num(&t, "WALL_DAYS_LOW", 1, f.wall_lo);
            xlsx_live_lit(&t, " to ");
            xlsx_live_num(&t, "WALL_DAYS_HIGH", 1, f.wall_hi);
            xlsx_live_lit(&t, ")");
        }
        xlsx_live_lit(&t, " days with failures and checkpoints: ");
        xlsx_live_num(&t, "GOODPUT*100", 1, f.g.share * 100);
        xlsx_live_lit(&t, "% effective training, a failure every ");
        xlsx_live_num(&t, "1/JOB_FAILURES_PER_H", 1, f.g.mtbf_h);
        xlsx_live_lit(&t, " h, a checkpoint every ");
        xlsx_live_num(&t, "CHECKPOINT_INTERVAL_MIN", 1, f.g.interval_s / 60);
        xlsx_live_lit(&t, " min (Assumptions)");
        labelled(b, ws, row++, "Wall-clock days", &t);
        memset(&t, 0, sizeof t);
        xlsx_live_usd(&t, "WALL_COST", f.wall_cost);
        if (f.range) {
            xlsx_live_lit(&t, " (range ");
            xlsx_live_usd(&t, "WALL_COST_LOW", f.wall_cost_lo);
            xlsx_live_lit(&t, " to ");
            xlsx_live_usd(&t, "WALL_COST_HIGH", f.wall_cost_hi);
            xlsx_live_lit(&t, ")");
        }
        xlsx_live_lit(&t, " over the wall-clock days");
        labelled(b, ws, row++, "Wall-clock cost", &t);
    }
    if (f.g.energy) {
        memset(&t, 0, sizeof t);
        xlsx_live_num(&t, "ENERGY_MWH", 0, f.mwh);
        xlsx_live_lit(&t, " MWh over the wall-clock days (");
        xlsx_live_num(&t, "ENERGY_STEP_KWH", 1, f.step_kwh);
        xlsx_live_lit(&t, " kWh per step), PUE ");
        xlsx_live_num(&t, "PUE", 2, b->r->in->hw->spec.pue);
        if (b->r->in->hw->spec.grid_kg_per_kwh > 0) {
            xlsx_live_lit(&t, "; ");
            xlsx_live_num(&t, "TCO2E", 0, f.tco2e);
            xlsx_live_lit(&t, " t CO2e location-based");
        }
        labelled(b, ws, row++, "Energy", &t);
    }
    return row;
}

/* The recommended plan's memory per GPU against the HBM, as the key
 * figures give it: live over the Plans sheet, or its value where the
 * Plans sheet holds values only (big). */
static size_t glance_memory(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views_headline *h = &b->r->headline;
    struct xlsx_live t;
    memset(&t, 0, sizeof t);
    xlsx_live_num(&t, "INDEX(PLANS_MEM_TOTAL,RECOMMENDED_ROW)", 1,
                  h->memory_gib);
    xlsx_live_lit(&t, " GiB per GPU on the heaviest pipeline rank, of ");
    xlsx_live_num(&t, "HBM_GIB", 1, h->capacity_gib);
    xlsx_live_lit(&t, " (");
    xlsx_live_num(&t, "INDEX(PLANS_HEADROOM_GIB,RECOMMENDED_ROW)", 1,
                  h->headroom_gib);
    xlsx_live_lit(&t, " free)");
    if (!b->big) {
        labelled(b, ws, row, "Memory", &t);
        return row + 1;
    }
    xlsx_book_str(b, ws, row, col("family"), "Memory",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    xlsx_book_merge(b, ws, row, col("step"), col(TEXT_LAST), t.v,
                    xlsx_book_fmt(b, XLSX_FMT_WRAP));
    return row + 1;
}

/* The plan in words, then its days and cost, each with its range and
 * the floor; returns the row after them. */
static size_t glance_budget(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    const struct views_headline *h = &r->headline;
    const struct views_cost *sol = &h->sol, *x = &h->expected;
    const struct views_cost *c = h->has_expected ? x : sol;
    struct xlsx_live t;
    char plan_f[400];

    plan_words(r, plan_f, sizeof plan_f);
    xlsx_book_str(b, ws, row, col("family"), "Recommended plan",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    memset(&t, 0, sizeof t);
    xlsx_live_expr(&t, plan_f, h->title);
    live_write(b, ws, row++, col("step"), &t, XLSX_FMT_BOLD, 11);
    row = recipe_row(b, ws, row);

    xlsx_book_str(b, ws, row, col("family"),
                  h->has_expected ? "Expected days" : "Days (speed of light)",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    memset(&t, 0, sizeof t);
    xlsx_live_num(&t, "RECOMMENDED_DAYS", 1, c->days);
    if (h->has_expected && h->has_range)
        live_range(&t, "RECOMMENDED_DAYS", tenths, x->days, h);
    if (h->has_expected) {
        xlsx_live_lit(&t, "; speed of light ");
        xlsx_live_num(&t, "RECOMMENDED_DAYS_SOL", 1, sol->days);
    }
    xlsx_live_lit(&t, " days for the token budget");
    live_write(b, ws, row++, col("step"), &t, XLSX_FMT_WRAP, 11);

    xlsx_book_str(b, ws, row, col("family"),
                  h->has_expected ? "Expected cost" : "Cost (speed of light)",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    memset(&t, 0, sizeof t);
    xlsx_live_usd(&t, "RECOMMENDED_COST", c->cost_usd);
    if (h->has_expected && h->has_range)
        live_range(&t, "RECOMMENDED_COST", xlsx_live_usd, x->cost_usd, h);
    if (h->has_expected) {
        xlsx_live_lit(&t, "; speed of light ");
        xlsx_live_usd(&t, "RECOMMENDED_COST_SOL", sol->cost_usd);
    }
    xlsx_live_lit(&t, " at $");
    xlsx_live_num(&t, "GPU_HOUR_USD", 2, r->in->hw->spec.gpu_hour_usd);
    xlsx_live_lit(&t, " per GPU-hour");
    live_write(b, ws, row++, col("step"), &t, XLSX_FMT_WRAP, 11);
    return glance_scale(b, ws,
                        glance_memory(b, ws, glance_goodput(b, ws, row)));
}

/*
 * The first screen (issue 18): a warning line that shows when an input
 * was edited, the verdict in one live sentence, the recommended plan in
 * words, its expected days and cost with their ranges beside the speed
 * of light's, and the flag INPUTS_AS_SHIPPED. Every figure is a formula
 * over the named cells below (RECOMMENDED_*) and GPU_HOUR_USD.
 */
static size_t glance(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    char flag[8192], note[160];
    size_t warn_row = row;

    edited_warning(b, ws, row++);
    if (!shipped_formula(b->r, flag, sizeof flag)) {
        xlsx_book_invalid(b, "INPUTS_AS_SHIPPED");
        return row;
    }
    if (b->r->headline.any) {
        glance_verdict(b, ws, row++);
        row = glance_budget(b, ws, row);
    }
    xlsx_book_str(b, ws, row, col("family"), "Inputs as shipped",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    xlsx_book_formula_num(b, ws, row, col("step"), flag, 1,
                          xlsx_book_fmt(b, XLSX_FMT_FITS));
    xlsx_summary_define(b, row, col("step"), "INPUTS_AS_SHIPPED");
    snprintf(note, sizeof note,
             "FALSE once an input on Assumptions differs from its shipped "
             "value: then the warning on row %zu shows",
             warn_row + 1);
    xlsx_book_merge(b, ws, row, col("bound"), col(TEXT_LAST), note,
                    xlsx_book_fmt(b, XLSX_FMT_NOTE));
    return row + 2;
}

/* The links to the sheets the Summary cites. */
static size_t links(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    static const char *const sheets[] = {
        "Families", "Glossary",      "Assumptions", "Plans",
        "Memory",   "Communication", "Roofline",    "Sensitivity",
        "Rejected", "Validation",    "About"};
    size_t i, c = col("family") + 1;
    xlsx_book_str(b, ws, row, col("family"),
                  "Sheets (links):", xlsx_book_fmt(b, XLSX_FMT_LABEL));
    for (i = 0; i < sizeof sheets / sizeof sheets[0]; i++) {
        double room = 0;
        size_t first;
        if (c > col(TEXT_LAST)) { /* the rest on the next row */
            c = col("family") + 1;
            row++;
        }
        first = c;
        while (c <= col(TEXT_LAST) && room < (double)strlen(sheets[i]) + 2)
            room += xlsx_families_table()->col[c++].width;
        /* a link's text does not run into the next cell: merge its cells */
        if (c - 1 > first)
            xlsx_book_merge(b, ws, row, first, c - 1, "",
                            xlsx_book_fmt(b, XLSX_FMT_LINK));
        xlsx_book_link(b, ws, row, first, sheets[i], sheets[i]);
    }
    return row + 1;
}

/* The verdict, why not the baseline, the speed of light against reality,
 * the ties and the other communication model, in words (at the report's
 * inputs). */
static size_t verdict(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    const struct views_headline *h = &r->headline;
    xlsx_book_str(b, ws, row++, col("family"),
                  "Verdict (in words, at the shipped inputs: see "
                  "INPUTS_AS_SHIPPED above)",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    if (!h->any) {
        paragraph(b, ws, row++, "No plan was evaluated.", XLSX_FMT_HEADLINE,
                  12);
        return row;
    }
    paragraph(b, ws, row++, h->verdict, XLSX_FMT_HEADLINE, 12);
    if (r->baseline.sentence[0])
        paragraph(b, ws, row++, r->baseline.sentence, XLSX_FMT_LABEL_WRAP, 11);
    paragraph(b, ws, row++, h->difference, XLSX_FMT_WRAP, 11);
    if (h->ties_text[0])
        paragraph(b, ws, row++, h->ties_text, XLSX_FMT_WRAP, 11);
    if (h->models[0])
        paragraph(b, ws, row++, h->models, XLSX_FMT_WRAP, 11);
    return row + 1;
}

/* The notes: the published plan, the sweep, the plans left out. */
static size_t notes(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    char big[200];
    xlsx_book_str(b, ws, row++, col("family"), "Notes",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    if (r->note_published[0])
        paragraph(b, ws, row++, r->note_published, XLSX_FMT_WRAP, 11);
    paragraph(b, ws, row++, r->note_sweep, XLSX_FMT_WRAP, 11);
    if (r->note_left_out[0])
        paragraph(b, ws, row++, r->note_left_out, XLSX_FMT_WARN, 11);
    snprintf(big, sizeof big,
             "With this many plans, Plans holds their first %d columns as "
             "values (no live formulas) and an autofilter, and this sheet's "
             "figures are values; plans.csv has every column.",
             XLSX_OUT_BIG_COLUMNS);
    paragraph(b, ws, row++,
              b->big ? big
                     : "Live: the key figures above, the names FASTEST_PLAN, "
                       "FASTEST_STEP_S, RECOMMENDED_PLAN, RECOMMENDED_STEP_S "
                       "(with _LOW, _HIGH and _SOL), RECOMMENDED_DAYS, "
                       "RECOMMENDED_COST and the blue columns of the "
                       "family table on Families are formulas over the Plans "
                       "sheet, which "
                       "re-times every plan when an input on Assumptions "
                       "changes (e.g. IB_GBPS), and so are the lines at the "
                       "top. The sentences under Verdict, the order of the "
                       "families and the other model's columns are at the "
                       "report's inputs: INPUTS_AS_SHIPPED turns FALSE, and "
                       "a warning shows at the top, once an input differs "
                       "from the value it was written with.",
              XLSX_FMT_NOTE_WRAP, 11);
    return row + 1;
}

/* The printed page's last line: where the rest of the sheet is. */
#define PRINT_NOTE                                                         \
    "Printed: the rows above. On screen below: links to the sheets, the "  \
    "key figures of the recommended plan (live), the step from the speed " \
    "of light to the expected, and the notes; Plans, Families and Memory " \
    "hold every plan's figures."

/*
 * The Summary's page: rows 0..last on one landscape page (fit to one page
 * wide and one tall over the print area). The rows printed are those a
 * 1366-px screen shows at once, some 30 rows of 11-point text, so the
 * page's scale stays above 8/11 (the type at 8 points or more) on A4 or
 * Letter: tests/integration/88_print.sh measures it in LibreOffice's PDF
 * (8.1 points on Letter, 8.7 on A4; with four cluster sizes and --days,
 * 8.1 and 8.2).
 */
static void print_setup(struct xlsx_book *b, lxw_worksheet *ws, size_t last)
{
    worksheet_fit_to_pages(ws, 1, 1);
    /* top and bottom half an inch (the other sheets' 0.6): with several
     * cluster sizes and a deadline A4's height decides, 8.0 points */
    worksheet_set_margins(ws, 0.4, 0.4, 0.5, 0.5);
    xlsx_book_print_area(b, ws, 0, last, col(TEXT_LAST));
}

void xlsx_summary_write(struct xlsx_book *b, lxw_worksheet *ws)
{
    const struct views *r = b->r;
    /* the effect's words over Family and Step (the expected figures'
     * column), the seconds and share in the narrow columns after it */
    const struct xlsx_waterfall_cols waterfall_cols = {
        col("family"), col("bound"),   col("ratio"),
        col("step_o"), col("bound_o"), NCOLS - 1};
    size_t row = 0;

    worksheet_set_tab_color(ws, XLSX_COLOR_SECTION);
    xlsx_book_page(b, ws, XLSX_PAGE_REPORT);
    xlsx_families_grid(b, ws);
    xlsx_book_width(b, ws, col(TEXT_LAST), col(TEXT_LAST), PLAN_WIDTH);
    xlsx_book_strf(b, ws, row++, col("family"),
                   xlsx_book_fmt(b, XLSX_FMT_TITLE),
                   "Parallelism plan for %s on %ld x %s", r->in->m->spec.name,
                   views_gpus(r), r->in->hw->spec.gpu_name);
    xlsx_book_strf(
        b, ws, row++, col("family"), xlsx_book_fmt(b, XLSX_FMT_SUBTITLE),
        "%s; %s communication model (also shown: %s); roofplan %s, %s",
        r->in->hw->spec.cluster_name, comm_model_str(r->in->comm),
        xlsx_book_other_model(r), r->in->version, r->when);
    row = glance(b, ws, row);
    row = verdict(b, ws, row);
    /* the page a manager prints (issue 37): the answer, its range, why,
     * memory, days, cost and energy on one landscape page at 8 points
     * or more; the detail below is the screen's */
    paragraph(b, ws, row, PRINT_NOTE, XLSX_FMT_NOTE_WRAP, 11);
    print_setup(b, ws, row);
    row = links(b, ws, row + 2) + 1;
    row = xlsx_key_figures(b, ws, row);
    row = xlsx_waterfall_table(b, ws, row, &waterfall_cols);
    row = notes(b, ws, row);
    worksheet_activate(ws);
}
