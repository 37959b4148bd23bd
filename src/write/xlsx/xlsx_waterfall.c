/*
 * xlsx_waterfall: the waterfall table and chart in the workbook (see
 * xlsx_waterfall.h).
 */
#include "xlsx_waterfall.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "calibration.h"
#include "result.h"

#define IMAGE_ROW_PX 20.0 /* the default row height, 15 pt */

/* Cells first..last: one cell, or merged when they are several. */
static void cell_str(struct xlsx_book *b,
                     lxw_worksheet *ws,
                     size_t row,
                     size_t first,
                     size_t last,
                     const char *s,
                     enum xlsx_fmt f)
{
    if (last > first)
        xlsx_book_merge(b, ws, row, first, last, s, xlsx_book_fmt(b, f));
    else
        xlsx_book_str(b, ws, row, first, s, xlsx_book_fmt(b, f));
}

static void cell_num(struct xlsx_book *b,
                     lxw_worksheet *ws,
                     size_t row,
                     size_t first,
                     size_t last,
                     double v,
                     enum xlsx_fmt f)
{
    if (last > first) /* the value in the first cell, the rest merged */
        xlsx_book_merge(b, ws, row, first, last, "", xlsx_book_fmt(b, f));
    xlsx_book_num(b, ws, row, first, v, xlsx_book_fmt(b, f));
}

/* What a row of the table is: a part of the step, or a total (the speed
 * of light, the expected step), shown in bold. */
enum line_kind { LINE_PART, LINE_TOTAL };

/* One row: label, seconds, share (NAN: blank), cumulative (NAN: blank). */
static void line(struct xlsx_book *b,
                 lxw_worksheet *ws,
                 size_t row,
                 const struct xlsx_waterfall_cols *c,
                 const char *label,
                 double s,
                 double share,
                 double cum,
                 enum line_kind kind)
{
    bool total = kind == LINE_TOTAL;
    enum xlsx_fmt sec = total ? XLSX_FMT_SEC_BOLD : XLSX_FMT_SEC;
    cell_str(b, ws, row, c->effect, c->seconds - 1, label,
             total ? XLSX_FMT_LABEL : XLSX_FMT_TEXT);
    cell_num(b, ws, row, c->seconds, c->share - 1, s, sec);
    if (!isnan(share))
        cell_num(b, ws, row, c->share, c->cumulative - 1, share, XLSX_FMT_PCT);
    if (!isnan(cum))
        cell_num(b, ws, row, c->cumulative, c->cumulative_last, cum, sec);
}

/* The same step by phase on the critical rank (cost_phases), its header
 * first; returns the row after them. */
static size_t phase_rows(struct xlsx_book *b,
                         lxw_worksheet *ws,
                         size_t row,
                         const struct xlsx_waterfall_cols *c)
{
    static const char *const phase[COST_PHASES] = {
        "Warm-up (forwards before the first backward)",
        "Steady (forward and backward paired)",
        "Cool-down (backwards after the last forward)",
        "Bubble (idle: the other stages' ramps)",
        "Optimizer step and exposed step-end DP"};
    const struct views_waterfall *w = &b->r->waterfall[0];
    const size_t first[4] = {c->effect, c->seconds, c->share, c->cumulative};
    const size_t last[4] = {c->seconds - 1, c->share - 1, c->cumulative - 1,
                            c->cumulative_last};
    char label[96];
    double cum = 0;
    size_t k;
    snprintf(label, sizeof label,
             "Phases of the expected step, pipeline rank %ld", w->rank);
    cell_str(b, ws, row, first[0], last[0], label, XLSX_FMT_HEAD_LEFT);
    cell_str(b, ws, row, first[1], last[1], "Seconds", XLSX_FMT_HEAD);
    cell_str(b, ws, row, first[2], last[2], "Share of the step", XLSX_FMT_HEAD);
    cell_str(b, ws, row, first[3], last[3], "Cumulative step (s)",
             XLSX_FMT_HEAD);
    xlsx_book_height(b, ws, row++, 30);
    for (k = 0; k < COST_PHASES; k++) {
        cum += w->phases[k];
        line(b, ws, row++, c, phase[k], w->phases[k],
             w->expected > 0 ? w->phases[k] / w->expected : NAN, cum,
             LINE_PART);
    }
    return row;
}

/* The note under the table: values, and why; the published run's
 * expected and measured step. Returns the row after it. */
static size_t table_note(struct xlsx_book *b,
                         lxw_worksheet *ws,
                         size_t row,
                         const struct xlsx_waterfall_cols *c)
{
    const struct views *r = b->r;
    const struct views_waterfall *p = &r->waterfall[1];
    char note[1400];
    size_t len;
    /* Values, and why: the effects are the time model replayed in C with
     * one effect more switched on each time (expected_waterfall); the
     * Plans sheet's live PLANS_EXPECTED_S is the last row's formula. */
    snprintf(note, sizeof note,
             "Values at the report's inputs, not live formulas: editing "
             "Assumptions re-times PLANS_EXPECTED_S on Plans but not this "
             "table (re-run roofplan). Each effect is what switching it on "
             "adds to the step with the effects above it on, so the order "
             "matters and the shares add up to 100%%. Measured rates from "
             "the calibration %s; what overlaps from the stack file.",
             r->in->hw->cal ? r->in->hw->cal->meta.path : "(none)");
    if (p->known && p->measured > 0) {
        len = strlen(note);
        snprintf(note + len, sizeof note - len,
                 " The published run on these inputs (%s): expected %.2f s, "
                 "measured %.2f s (%+.0f%%; see Validation).",
                 p->name, p->expected, p->measured,
                 100 * (p->expected / p->measured - 1));
    }
    xlsx_book_merge(b, ws, row, c->effect, c->note_last, note,
                    xlsx_book_fmt(b, XLSX_FMT_NOTE_WRAP));
    xlsx_book_height(b, ws, row++,
                     xlsx_book_text_height(strlen(note), 190, 11));
    return row;
}

size_t xlsx_waterfall_table(struct xlsx_book *b,
                            lxw_worksheet *ws,
                            size_t row,
                            const struct xlsx_waterfall_cols *c)
{
    const struct views *r = b->r;
    const struct views_waterfall *w = &r->waterfall[0];
    const size_t first[4] = {c->effect, c->seconds, c->share, c->cumulative};
    const size_t last[4] = {c->seconds - 1, c->share - 1, c->cumulative - 1,
                            c->cumulative_last};
    static const char *const head[4] = {"Effect", "Seconds", "Share of the gap",
                                        "Cumulative step (s)"};
    char label[96];
    size_t k;

    if (!w->known)
        return row;
    xlsx_book_str(b, ws, row++, c->effect,
                  "From the speed of light to the expected step (the "
                  "recommended plan, values)",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    for (k = 0; k < 4; k++)
        cell_str(b, ws, row, first[k], last[k], head[k],
                 k ? XLSX_FMT_HEAD : XLSX_FMT_HEAD_LEFT);
    xlsx_book_height(b, ws, row++, 30);
    line(b, ws, row++, c, "Speed of light (the floor)", w->sol, NAN, w->sol,
         LINE_TOTAL);
    if (w->rank_step) { /* the plan's floor is another rank's */
        snprintf(label, sizeof label,
                 "- pipeline rank %ld's own floor (rank %ld sets the plan's)",
                 w->rank, w->floor_rank);
        line(b, ws, row++, c, label, w->rank_sol - w->sol, w->rank_share,
             w->rank_sol, LINE_PART);
    }
    for (k = 0; k < (size_t)w->effects; k++) {
        snprintf(label, sizeof label, "+ %s", expected_effect_label((int)k));
        line(b, ws, row++, c, label, w->add[k], w->share[k], w->cum[k],
             LINE_PART);
    }
    line(b, ws, row++, c, "Gap: all effects", w->expected - w->sol,
         w->expected != w->sol ? 1.0 : NAN, NAN, LINE_PART);
    line(b, ws, row++, c, "Expected step", w->expected, NAN, w->expected,
         LINE_TOTAL);
    row = phase_rows(b, ws, row, c);
    row = table_note(b, ws, row, c);
    return row + 1;
}

size_t xlsx_waterfall_chart(struct xlsx_book *b,
                            lxw_worksheet *ws,
                            size_t row,
                            size_t col,
                            const char *png,
                            double scale)
{
    lxw_image_options io;
    if (!png)
        return row;
    memset(&io, 0, sizeof io);
    io.x_scale = io.y_scale = scale;
    io.description = "Waterfall from the speed of light to the expected step";
    xlsx_book_strf(b, ws, row++, col, xlsx_book_fmt(b, XLSX_FMT_H2),
                   "From the speed of light to the expected step (chart at "
                   "the inputs of %s)",
                   b->r->when);
    xlsx_book_check(b,
                    worksheet_insert_image_opt(ws, (lxw_row_t)row,
                                               (lxw_col_t)col, png, &io),
                    "worksheet_insert_image (waterfall)");
    return row + (size_t)ceil(900 * scale / IMAGE_ROW_PX) + 1;
}
