/*
 * xlsx_scale: the Scale sheet (see xlsx_scale.h). Its columns are the
 * rows of cols[]: a header, a format, a width and the size's value.
 */
#include "xlsx_scale.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "scale.h"

static double v_gpus(const struct scale_size *z)
{
    return (double)z->gpus;
}
static double v_step(const struct scale_size *z)
{
    return z->step_s;
}
static double v_tps(const struct scale_size *z)
{
    return z->tokens_per_s_per_gpu;
}
static double v_eff(const struct scale_size *z)
{
    return z->efficiency;
}
static double v_days(const struct scale_size *z)
{
    return z->f.wall_days;
}
static double v_lo(const struct scale_size *z)
{
    return z->f.range ? z->f.wall_lo : z->f.wall_days;
}
static double v_hi(const struct scale_size *z)
{
    return z->wall_hi;
}
static double v_gpuh(const struct scale_size *z)
{
    return z->gpu_hours;
}
static double v_cost(const struct scale_size *z)
{
    return z->f.wall_cost;
}
static double v_cost_hi(const struct scale_size *z)
{
    return z->cost_hi;
}
static double v_mwh(const struct scale_size *z)
{
    return z->f.mwh;
}
static double v_co2(const struct scale_size *z)
{
    return z->f.tco2e;
}

struct scale_col {
    const char *head;
    enum xlsx_fmt fmt;
    double width;
    double (*num)(const struct scale_size *z); /* NULL: the plan's words */
    bool blank_zero; /* 0 means not known (no grid intensity): blank */
};

static const struct scale_col cols[] = {
    {.head = "GPUs", .fmt = XLSX_FMT_INT, .width = 8, .num = v_gpus},
    {.head = "Recommended plan", .fmt = XLSX_FMT_TEXT, .width = 62},
    {.head = "Step (s)", .fmt = XLSX_FMT_SEC, .width = 10, .num = v_step},
    {.head = "Tokens/s per GPU",
     .fmt = XLSX_FMT_CNT,
     .width = 12,
     .num = v_tps},
    {.head = "Scaling efficiency",
     .fmt = XLSX_FMT_PCT,
     .width = 11,
     .num = v_eff},
    {.head = "Days (wall-clock)",
     .fmt = XLSX_FMT_DAYS,
     .width = 11,
     .num = v_days},
    {.head = "Days, low", .fmt = XLSX_FMT_DAYS, .width = 10, .num = v_lo},
    {.head = "Days, high", .fmt = XLSX_FMT_DAYS, .width = 10, .num = v_hi},
    {.head = "GPU-hours", .fmt = XLSX_FMT_CNT, .width = 14, .num = v_gpuh},
    {.head = "Cost (USD)", .fmt = XLSX_FMT_USD, .width = 14, .num = v_cost},
    {.head = "Cost, high (USD)",
     .fmt = XLSX_FMT_USD,
     .width = 14,
     .num = v_cost_hi},
    {.head = "Energy (MWh)", .fmt = XLSX_FMT_CNT, .width = 11, .num = v_mwh},
    {.head = "tCO2e",
     .fmt = XLSX_FMT_CNT,
     .width = 9,
     .num = v_co2,
     .blank_zero = true},
};
#define NCOLS (sizeof cols / sizeof cols[0])

bool xlsx_scale_wanted(const struct views *r)
{
    return r->scale && r->scale->n > 1;
}

/* The columns' total width (characters). */
static double table_width(void)
{
    double w = 0;
    size_t c;
    for (c = 0; c < NCOLS; c++)
        w += cols[c].width;
    return w;
}

/* text over the table's width at row, wrapped, its row as tall as it
 * needs: a long line stays on the printed page. */
static void wide_text(struct xlsx_book *b,
                      struct lxw_worksheet *ws,
                      size_t row,
                      const char *text,
                      enum xlsx_fmt fmt)
{
    xlsx_book_merge(b, ws, row, 0, NCOLS - 1, text, xlsx_book_fmt(b, fmt));
    xlsx_book_height(
        b, ws, row, xlsx_book_text_height(strlen(text), table_width() - 5, 11));
}

/* The title and what the columns are, above the table. */
static size_t
head(struct xlsx_book *b, struct lxw_worksheet *ws, const struct scale *s)
{
    char line[200];
    xlsx_book_str(b, ws, 0, 0, "How many GPUs",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    wide_text(b, ws, 1,
              "Each cluster size's plans ranked on their own (never "
              "against another size's); its recommended plan by the "
              "Summary's rule. Days and cost are wall-clock, with "
              "failures and checkpoints (Assumptions); low and high: "
              "the range of the expected step. Scaling efficiency: "
              "tokens/s per GPU over the smallest size's.",
              XLSX_FMT_NOTE_WRAP);
    if (s->below >= 0)
        snprintf(line, sizeof line,
                 "Scaling efficiency falls under %.0f%% "
                 "(report.scale_efficiency) from %ld GPUs.",
                 100 * s->threshold, s->size[s->below].gpus);
    else
        snprintf(line, sizeof line,
                 "Scaling efficiency stays at or above %.0f%% "
                 "(report.scale_efficiency) at every listed size.",
                 100 * s->threshold);
    wide_text(b, ws, 2, line, XLSX_FMT_LABEL_WRAP);
    return 4;
}

/* The heading row as tall as its tallest wrapped heading. */
static void
heading_height(struct xlsx_book *b, struct lxw_worksheet *ws, size_t row)
{
    double tallest = 15;
    size_t c;
    for (c = 0; c < NCOLS; c++)
        tallest = fmax(tallest, xlsx_book_text_height(strlen(cols[c].head),
                                                      cols[c].width - 1, 11));
    xlsx_book_height(b, ws, row, tallest);
}

void xlsx_scale_write(struct xlsx_book *b, struct lxw_worksheet *ws)
{
    const struct scale *s = b->r->scale;
    char answer[2048];
    size_t i, c, row;
    if (!ws || !s)
        return;
    xlsx_book_page(b, ws, XLSX_PAGE_TABLE);
    row = head(b, ws, s);
    xlsx_book_repeat_row(b, ws, row);
    heading_height(b, ws, row);
    for (c = 0; c < NCOLS; c++) {
        xlsx_book_width(b, ws, c, c, cols[c].width);
        xlsx_book_str(b, ws, row, c, cols[c].head,
                      xlsx_book_fmt(b, XLSX_FMT_HEAD));
    }
    for (i = 0; i < s->n; i++) {
        const struct scale_size *z = &s->size[i];
        row++;
        for (c = 0; c < NCOLS; c++) {
            struct lxw_format *f = xlsx_book_fmt(b, cols[c].fmt);
            if (!cols[c].num)
                xlsx_book_str(b, ws, row, c, z->fits ? z->plan : "no plan fits",
                              f);
            else if (z->any && (z->fits || c == 0) &&
                     !(cols[c].blank_zero && cols[c].num(z) == 0))
                xlsx_book_num(b, ws, row, c, cols[c].num(z), f);
        }
    }
    scale_answer(s, answer, sizeof answer);
    if (answer[0])
        wide_text(b, ws, row + 2, answer, XLSX_FMT_LABEL_WRAP);
}
