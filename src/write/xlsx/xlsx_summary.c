/*
 * xlsx_summary: the Summary and Families sheets (see xlsx_summary.h).
 * Their columns are those of the family table (on Families); the
 * Summary's key figures and paragraphs use the same grid (labels under
 * Family, values under the other model's Step, paragraphs merged from
 * Family to Why). Every sentence is the
 * report's (figures); the figures that follow the inputs are formulas
 * over the Plans sheet's named columns (PLANS_*), cached with the C
 * values, and the names BEST_* and RECOMMENDED_* are defined over cells
 * of this sheet.
 */
#include "xlsx_summary.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "plans_table.h"
#include "terms.h"
#include "xlsx_table.h"
#include "xlsx_waterfall.h"

#define GIB 1073741824.0

/* The line the Summary shows once an input differs from its shipped
 * value (INPUTS_AS_SHIPPED FALSE). */
#define EDITED_WARNING                                                   \
    "Inputs edited: the figures on this sheet follow them, but the "     \
    "sentences under Verdict and the plan's words describe the shipped " \
    "inputs; rerun roofplan for the words of the new inputs."

/* The paragraphs are merged from Family to Best plan (139 characters,
 * 1052 px at Calibri 11: inside a 1366-px screen, issue 18); a little
 * under that for wrapping them. */
#define TEXT_LAST  "plan"
#define TEXT_WIDTH 134.0

/* The message a figure shows when an input makes it undefined (a rate
 * of 0 divides by zero): instead of #DIV/0! in every cell. */
#define INPUT_ERROR   "\"check the inputs on Assumptions\""
#define OR_MESSAGE(f) "IFERROR(" f "," INPUT_ERROR ")"
/* A family's figure from its Plans row; "n/a" when an input makes it
 * undefined. */
#define FAMILY_CELL(column) "IFERROR(INDEX(" column ",{row}),\"n/a\")"

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

/* Where the key figures go on the same grid. */
#define KV_LABEL "family"
#define KV_VALUE "step_o"
#define KV_NOTE  "bound_o"

/* A family's best plan on the Plans sheet: the fastest that fits, else
 * the fastest, of the rows whose family is the name in {family}. */
#define FAM_FIT "(PLANS_FAMILY={family})*PLANS_FITS"
#define FAMILY_ROW                                                   \
    "IF(SUMPRODUCT(" FAM_FIT ")>0,MATCH(MIN(IF(" FAM_FIT             \
    ",PLANS_RANK_S)),IF(" FAM_FIT ",PLANS_RANK_S),0),MATCH(MIN(IF("  \
    "PLANS_FAMILY={family},PLANS_RANK_S)),IF(PLANS_FAMILY={family}," \
    "PLANS_RANK_S),0))"

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

/* One family row, prepared before it is written. */
struct fam_row {
    const struct report *r;
    const struct report_family *f;
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
        xlsx_value_num(out, (double)fr->f->sheet_row + 1);
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
        xlsx_value_text(out, fr->f->why);
        break;
    }
}

static const struct xlsx_table table = {columns, NCOLS, XLSX_FMT_HEAD, get};

static size_t col(const char *key)
{
    return xlsx_table_col(&table, key);
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
    xlsx_book_height(b, ws, row,
                     xlsx_book_text_height(strlen(text_), TEXT_WIDTH, pt));
}

/* Defines name over the value cell of the key figure at row. */
static void name_cell(struct xlsx_book *b, size_t row, const char *name)
{
    char ref[64], c[8];
    plans_table_col_name(col(KV_VALUE), c, sizeof c);
    snprintf(ref, sizeof ref, "=%s!$%s$%zu", XLSX_SUMMARY_SHEET, c, row + 1);
    xlsx_book_define(b, name, ref);
}

/* Defines name over the cell at row, column c. */
static void name_at(struct xlsx_book *b, size_t row, size_t c, const char *name)
{
    char ref[64], cn[8];
    plans_table_col_name(c, cn, sizeof cn);
    snprintf(ref, sizeof ref, "=%s!$%s$%zu", XLSX_SUMMARY_SHEET, cn, row + 1);
    xlsx_book_define(b, name, ref);
}

/* One key figure: label, value (a formula when live, else the C value;
 * numeric, or text when s is not NULL), note. */
static void kv(struct xlsx_book *b,
               lxw_worksheet *ws,
               size_t row,
               const char *label,
               const char *formula,
               bool array,
               double v,
               const char *s,
               enum xlsx_fmt f,
               const char *note)
{
    struct xlsx_value x;
    memset(&x, 0, sizeof x);
    x.kind = s ? XLSX_TEXT : XLSX_NUM;
    x.num = v;
    x.str = s;
    x.fmt = f;
    x.array = array;
    x.formula = b->big ? NULL : formula;
    xlsx_book_str(b, ws, row, col(KV_LABEL), label,
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    xlsx_table_cell(b, ws, &table, row, col(KV_VALUE), &x);
    if (note)
        xlsx_book_str(b, ws, row, col(KV_NOTE), note,
                      xlsx_book_fmt(b, XLSX_FMT_NOTE));
}

/* "IFERROR(INDEX(PLANS_x,RECOMMENDED_ROW),msg)" into buf. */
static const char *pick(const char *column, char *buf, size_t size)
{
    snprintf(buf, size, "IFERROR(INDEX(%s,RECOMMENDED_ROW)," INPUT_ERROR ")",
             column);
    return buf;
}

/* ---- The first screen: live sentences and the shipped-inputs flag ---- */

/* A sentence built twice: as a formula over live cells (f) and as its
 * value at the report's inputs (v), the formula's cached result. */
struct live_text {
    char f[3072], v[1024];
    bool over; /* a buffer ran out: a programming error */
};

static void
live_append(struct live_text *t, char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
live_append(struct live_text *t, char *dst, size_t size, const char *fmt, ...)
{
    size_t n = strlen(dst);
    va_list ap;
    int w;
    va_start(ap, fmt);
    w = vsnprintf(dst + n, size - n, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= size - n)
        t->over = true;
}

/* Literal text: a quoted string in the formula (quotes doubled). */
static void live_lit(struct live_text *t, const char *s)
{
    const char *p;
    live_append(t, t->f, sizeof t->f, "%s\"", t->f[0] ? "&" : "");
    for (p = s; *p; p++) {
        char c[2] = {*p, 0};
        live_append(t, t->f, sizeof t->f, "%s", c);
        if (*p == '"')
            live_append(t, t->f, sizeof t->f, "\"");
    }
    live_append(t, t->f, sizeof t->f, "\"");
    live_append(t, t->v, sizeof t->v, "%s", s);
}

/* A number: TEXT(expr, "0.0" or "0.00") in the formula, v printed with
 * the same decimals. */
static void
live_num(struct live_text *t, const char *expr, int decimals, double v)
{
    live_append(t, t->f, sizeof t->f, "%sTEXT(%s,\"0.%s\")", t->f[0] ? "&" : "",
                expr, decimals > 1 ? "00" : "0");
    live_append(t, t->v, sizeof t->v, "%.*f", decimals, v);
}

/* A text expression of the formula, cached as s. */
static void live_expr(struct live_text *t, const char *expr, const char *s)
{
    live_append(t, t->f, sizeof t->f, "%s%s", t->f[0] ? "&" : "", expr);
    live_append(t, t->v, sizeof t->v, "%s", s);
}

/* The sentence merged over Family..Best plan from column c on, as a
 * live formula with its cached value. */
static void live_write(struct xlsx_book *b,
                       lxw_worksheet *ws,
                       size_t row,
                       size_t c,
                       const struct live_text *t,
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
                     xlsx_book_text_height(strlen(t->v), TEXT_WIDTH, pt));
}

/*
 * INPUTS_AS_SHIPPED's formula: every input the Assumptions sheet offers
 * for editing (the registry's data-file keys this cluster has) compared
 * with the value it was written with, to 1e-9 of it: 1 (shown TRUE) when
 * all hold, else 0 (FALSE), a number as the Fits cells are (libxlsxwriter
 * caches no booleans). Returns false when the buffer is too small.
 */
static bool shipped_formula(const struct report *r, char *buf, size_t size)
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
            !terms_input_available(&in[i], r->hw) ||
            terms_input_field(&in[i]) < 0 ||
            !terms_input_value(&in[i], r->hw, r->m, r->sweep, &v))
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

/* "$9.87M": a cost in millions, two decimals. */
static void live_usd(struct live_text *t, const char *name, double usd)
{
    char e[80];
    snprintf(e, sizeof e, "%s/1E+06", name);
    live_lit(t, "$");
    live_num(t, e, 2, usd / 1e6);
    live_lit(t, "M");
}

/* " (range LOW to HIGH)" of a name with _LOW and _HIGH. */
static void live_range(struct live_text *t,
                       const char *name,
                       bool usd,
                       double v,
                       const struct report_headline *h)
{
    char lo[64], hi[64];
    snprintf(lo, sizeof lo, "%s_LOW", name);
    snprintf(hi, sizeof hi, "%s_HIGH", name);
    live_lit(t, " (range ");
    if (usd)
        live_usd(t, lo, v * h->range_lo);
    else
        live_num(t, lo, 1, v * h->range_lo);
    live_lit(t, " to ");
    if (usd)
        live_usd(t, hi, v * h->range_hi);
    else
        live_num(t, hi, 1, v * h->range_hi);
    live_lit(t, ")");
}

/*
 * The first screen (issue 18): a warning line that shows when an input
 * was edited, the verdict in one live sentence, the recommended plan in
 * words, its expected days and cost with their ranges beside the speed
 * of light's, and the flag INPUTS_AS_SHIPPED. Every figure is a formula
 * over the named cells below (RECOMMENDED_*) and GPU_HOUR_USD; the plan's
 * words are the report's while RECOMMENDED_ROW is the report's row, else
 * the live plan's key=value form.
 */
static size_t glance(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct report *r = b->r;
    const struct report_headline *h = &r->headline;
    const struct report_cost *sol = &h->sol, *x = &h->expected;
    const struct report_cost *c = h->has_expected ? x : sol;
    struct live_text t;
    char flag[8192], plan_f[400], note[160];
    size_t warn_row = row;

    /* the warning: "" while INPUTS_AS_SHIPPED is TRUE; its row tall
     * enough for the text it shows when FALSE */
    xlsx_book_merge(b, ws, row, col("family"), col(TEXT_LAST), "",
                    xlsx_book_fmt(b, XLSX_FMT_WARN));
    snprintf(flag, sizeof flag, "=IF(INPUTS_AS_SHIPPED,\"\",\"%s\")",
             EDITED_WARNING);
    xlsx_book_formula_str(b, ws, row, col("family"), flag, "",
                          xlsx_book_fmt(b, XLSX_FMT_WARN));
    xlsx_book_height(
        b, ws, row++,
        xlsx_book_text_height(strlen(EDITED_WARNING), TEXT_WIDTH, 11));
    if (!shipped_formula(r, flag, sizeof flag)) {
        xlsx_book_invalid(b, "INPUTS_AS_SHIPPED");
        return row;
    }
    if (!h->any)
        goto flag_row;

    /* the verdict, live */
    memset(&t, 0, sizeof t);
    snprintf(plan_f, sizeof plan_f,
             "IF(RECOMMENDED_ROW=%ld,\"%s\",RECOMMENDED_PLAN)",
             (long)r->sheet_recommended + 1, h->title);
    live_lit(&t, h->fits ? "Recommended: " : "No plan fits; the fastest: ");
    live_expr(&t, plan_f, h->title);
    live_lit(&t, " at ");
    live_num(&t, "RECOMMENDED_STEP_S", 1, c->step_s);
    live_lit(&t, h->has_expected ? " s per step expected" : " s per step");
    if (h->has_expected && h->has_range)
        live_range(&t, "RECOMMENDED_STEP_S", false, x->step_s, h);
    if (h->has_expected) {
        live_lit(&t, "; speed of light ");
        live_num(&t, "RECOMMENDED_STEP_S_SOL", 1, sol->step_s);
        live_lit(&t, " s");
    } else {
        live_lit(&t, " at the speed of light (no calibration)");
    }
    live_lit(&t, ": ");
    live_num(&t, "RECOMMENDED_DAYS", 1, c->days);
    live_lit(&t, " days and ");
    live_usd(&t, "RECOMMENDED_COST", c->cost_usd);
    live_lit(&t, " at $");
    live_num(&t, "GPU_HOUR_USD", 2, r->hw->spec.gpu_hour_usd);
    live_lit(&t, " per GPU-hour.");
    live_write(b, ws, row++, col("family"), &t, XLSX_FMT_HEADLINE, 12);

    /* the plan in words */
    xlsx_book_str(b, ws, row, col("family"), "Recommended plan",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    memset(&t, 0, sizeof t);
    live_expr(&t, plan_f, h->title);
    live_write(b, ws, row++, col("step"), &t, XLSX_FMT_BOLD, 11);

    /* days and cost, each with its range and the floor */
    xlsx_book_str(b, ws, row, col("family"),
                  h->has_expected ? "Expected days" : "Days (speed of light)",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    memset(&t, 0, sizeof t);
    live_num(&t, "RECOMMENDED_DAYS", 1, c->days);
    if (h->has_expected && h->has_range)
        live_range(&t, "RECOMMENDED_DAYS", false, x->days, h);
    if (h->has_expected) {
        live_lit(&t, "; speed of light ");
        live_num(&t, "RECOMMENDED_DAYS_SOL", 1, sol->days);
    }
    live_lit(&t, " days for the token budget");
    live_write(b, ws, row++, col("step"), &t, XLSX_FMT_TEXT, 11);

    xlsx_book_str(b, ws, row, col("family"),
                  h->has_expected ? "Expected cost" : "Cost (speed of light)",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    memset(&t, 0, sizeof t);
    live_usd(&t, "RECOMMENDED_COST", c->cost_usd);
    if (h->has_expected && h->has_range)
        live_range(&t, "RECOMMENDED_COST", true, x->cost_usd, h);
    if (h->has_expected) {
        live_lit(&t, "; speed of light ");
        live_usd(&t, "RECOMMENDED_COST_SOL", sol->cost_usd);
    }
    live_lit(&t, " at $");
    live_num(&t, "GPU_HOUR_USD", 2, r->hw->spec.gpu_hour_usd);
    live_lit(&t, " per GPU-hour");
    live_write(b, ws, row++, col("step"), &t, XLSX_FMT_TEXT, 11);

flag_row:
    xlsx_book_str(b, ws, row, col("family"), "Inputs as shipped",
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    xlsx_book_formula_num(b, ws, row, col("step"), flag, 1,
                          xlsx_book_fmt(b, XLSX_FMT_FITS));
    name_at(b, row, col("step"), "INPUTS_AS_SHIPPED");
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
            room += columns[c++].width;
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
    const struct report *r = b->r;
    const struct report_headline *h = &r->headline;
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
    const struct report_headline *h = &b->r->headline;
    const struct report_cost *e = &h->expected;
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
    xlsx_table_cell(b, ws, &table, row, col("step"), &c);
    if (!ranged[k])
        return;
    name_at(b, row, col("step"), ranged[k]);
    if (!h->has_range)
        return;
    for (side = 0; side < 2; side++) { /* low in Bound, high in Comm/compute */
        snprintf(fx, sizeof fx, "IFERROR(%s*%s," INPUT_ERROR ")", formula[k],
                 side ? "EXPECTED_SPREAD_HIGH" : "EXPECTED_SPREAD_LOW");
        c.num = v[k] * (side ? h->range_hi : h->range_lo);
        c.formula = b->big ? NULL : fx;
        xlsx_table_cell(b, ws, &table, row, col(side ? "ratio" : "bound"), &c);
        snprintf(name, sizeof name, "%s_%s", ranged[k], side ? "HIGH" : "LOW");
        name_at(b, row, col(side ? "ratio" : "bound"), name);
    }
}

/* The validation runs' spread of measured over expected: the ranges'
 * factors (EXPECTED_SPREAD_LOW, _HIGH), values at the report's inputs. */
static size_t spread(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct report_headline *h = &b->r->headline;
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
        xlsx_table_cell(b, ws, &table, row, col(side ? "ratio" : "bound"), &c);
        name_at(b, row, col(side ? "ratio" : "bound"),
                side ? "EXPECTED_SPREAD_HIGH" : "EXPECTED_SPREAD_LOW");
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

/* The recommended plan's figures and the names over them: live. */
static size_t key_figures(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct report *r = b->r;
    const struct report_headline *h = &r->headline;
    const struct report_cost *sol = &h->sol;
    char f[200], note[200], plan[256];
    const struct report_row *best =
        r->sheet_best >= 0 ? report_sheet_row(r, (size_t)r->sheet_best)
                           : (r->nsheet ? report_sheet_row(r, 0) : NULL);
    double best_row = r->sheet_best >= 0 ? (double)r->sheet_best + 1 : 1;
    double rec_row = (double)r->sheet_recommended + 1;

    if (!h->any || !best)
        return row;
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

    plan_format(&best->plan, plan, sizeof plan);
    kv(b, ws, row, "Fastest fitting plan",
       OR_MESSAGE("INDEX(PLANS_PLAN,FASTEST_ROW)"), false, 0, plan,
       XLSX_FMT_TEXT, NULL);
    name_cell(b, row++, "FASTEST_PLAN");
    kv(b, ws, row,
       r->expected ? "its expected step time (s)"
                   : "its speed-of-light step time (s)",
       OR_MESSAGE(FASTEST_STEP), true, best->step, NULL, XLSX_FMT_SEC,
       r->expected ? "the smallest expected step among plans that fit "
                     "(plans rank by it; PLANS_RANK_S)"
                   : "the smallest step among plans that fit (PLANS_RANK_S)");
    name_cell(b, row++, "FASTEST_STEP_S");
    kv(b, ws, row, "its row on Plans", OR_MESSAGE(FASTEST_ROW_F), true,
       best_row, NULL, XLSX_FMT_INT, NULL);
    name_cell(b, row++, "FASTEST_ROW");
    snprintf(note, sizeof note,
             "within TIE_PCT (%g%%) of the fastest and fitting: ties",
             r->tie_pct);
    kv(b, ws, row++, "Ties", OR_MESSAGE("SUMPRODUCT(" TIE ")"), false,
       (double)h->ties, NULL, XLSX_FMT_CNT, note);
    plan_format(&h->plan.plan, plan, sizeof plan);
    kv(b, ws, row, "Recommended: most free memory of the ties",
       OR_MESSAGE("INDEX(PLANS_PLAN,RECOMMENDED_ROW)"), false, 0, plan,
       XLSX_FMT_LABEL, NULL);
    name_cell(b, row++, "RECOMMENDED_PLAN");
    kv(b, ws, row, "its row on Plans", OR_MESSAGE(RECOMMENDED_ROW_F), true,
       rec_row, NULL, XLSX_FMT_INT, NULL);
    name_cell(b, row++, "RECOMMENDED_ROW");
    kv(b, ws, row, "Step time (s)", pick("PLANS_STEP_S", f, sizeof f), false,
       sol->step_s, NULL, XLSX_FMT_SEC,
       "pipeline bubble + optimizer step + the busiest of compute, IB, "
       "NVLink, HBM (overlapped)");
    expected_figure(b, ws, row, 0);
    if (!h->has_expected)
        name_cell(b, row, "RECOMMENDED_STEP_S");
    name_cell(b, row++, "RECOMMENDED_STEP_S_SOL");
    kv(b, ws, row, "Tokens/s per GPU", pick("PLANS_TPS", f, sizeof f), false,
       sol->tokens_per_s_per_gpu, NULL, XLSX_FMT_CNT, NULL);
    expected_figure(b, ws, row++, 1);
    kv(b, ws, row, "MFU", pick("PLANS_MFU", f, sizeof f), false, sol->mfu, NULL,
       XLSX_FMT_PCT,
       "model FLOPs over each precision's own peak (FP8 GEMMs at the FP8 "
       "peak, the rest at BF16's): at most 100%");
    expected_figure(b, ws, row++, 2);
    kv(b, ws, row, "MFU of the BF16 peak",
       pick("PLANS_MFU_BF16_PEAK", f, sizeof f), false, sol->mfu_bf16_peak,
       NULL, XLSX_FMT_PCT,
       "model FLOPs / (step x BF16 dense peak), as DeepSeek reports it: an "
       "FP8 plan can exceed 100%");
    expected_figure(b, ws, row++, 3);
    snprintf(note, sizeof note,
             "the model's budget of %.1fT tokens (TRAINING_TOKENS) on %ld "
             "GPUs",
             r->m->spec.tokens / 1e12, h->plan.plan.gpus);
    kv(b, ws, row, "Days for the token budget", pick("PLANS_DAYS", f, sizeof f),
       false, sol->days, NULL, XLSX_FMT_DAYS, note);
    if (!h->has_expected)
        name_cell(b, row, "RECOMMENDED_DAYS");
    name_cell(b, row, "RECOMMENDED_DAYS_SOL");
    expected_figure(b, ws, row++, 4);
    kv(b, ws, row, "GPU-hours for the budget",
       "IFERROR(INDEX(PLANS_COST,RECOMMENDED_ROW)/GPU_HOUR_USD," INPUT_ERROR
       ")",
       false, sol->gpu_hours, NULL, XLSX_FMT_CNT, NULL);
    expected_figure(b, ws, row++, 5);
    snprintf(note, sizeof note, "at GPU_HOUR_USD ($%.2f per GPU-hour)",
             r->hw->spec.gpu_hour_usd);
    kv(b, ws, row, "Cost for the budget", pick("PLANS_COST", f, sizeof f),
       false, sol->cost_usd, NULL, XLSX_FMT_USD_M, note);
    if (!h->has_expected)
        name_cell(b, row, "RECOMMENDED_COST");
    name_cell(b, row, "RECOMMENDED_COST_SOL");
    expected_figure(b, ws, row++, 6);
    kv(b, ws, row, "GPU-hours per 1T tokens", pick("PLANS_GPUH", f, sizeof f),
       false, sol->gpu_hours_per_trillion, NULL, XLSX_FMT_CNT, NULL);
    expected_figure(b, ws, row++, 7);
    snprintf(note, sizeof note,
             "heaviest pipeline rank, of %.1f GiB (HBM_GIB); fits at %.1f "
             "(HEADROOM_PCT %g%% kept free)",
             h->capacity_gib, h->usable_gib, r->headroom_pct);
    kv(b, ws, row++, "Memory per GPU (GiB)",
       pick("PLANS_MEM_TOTAL", f, sizeof f), false, h->memory_gib, NULL,
       XLSX_FMT_GIB, note);
    kv(b, ws, row++, "Free memory per GPU (GiB)",
       pick("PLANS_HEADROOM_GIB", f, sizeof f), false, h->headroom_gib, NULL,
       XLSX_FMT_GIB, NULL);
    row = spread(b, ws, row);
    return row + 1;
}

/* The notes: the published plan, the sweep, the plans left out. */
static size_t notes(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct report *r = b->r;
    xlsx_book_str(b, ws, row++, col("family"), "Notes",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    if (r->note_published[0])
        paragraph(b, ws, row++, r->note_published, XLSX_FMT_WRAP, 11);
    paragraph(b, ws, row++, r->note_sweep, XLSX_FMT_WRAP, 11);
    if (r->note_left_out[0])
        paragraph(b, ws, row++, r->note_left_out, XLSX_FMT_WARN, 11);
    paragraph(b, ws, row++,
              b->big ? "With this many plans, Plans holds their first 20 "
                       "columns as values (no live formulas) and an "
                       "autofilter, and this sheet's figures are values; "
                       "plans.csv has every column."
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

/* The family table, fastest family first. */
static size_t families(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct report *r = b->r;
    const char *cm = comm_model_str(r->comm), *co = xlsx_book_other_model(r);
    struct xlsx_column cols[NCOLS];
    struct xlsx_table t = table;
    char h[6][96];
    static const int model_col[6] = {S_STEP,   S_BOUND,   S_RATIO,
                                     S_STEP_O, S_BOUND_O, S_RATIO_O};
    struct fam_row fr;
    size_t i, k, first;
    lxw_conditional_format cf;
    char grey[PLANS_FORMULA_MAX];

    memcpy(cols, columns, sizeof cols);
    for (k = 0; k < 6; k++) { /* "Step, topo (s)", "Bound, flat" */
        const char *head = columns[model_col[k]].header;
        if (k % 3 == 0) /* the steps are the ranking's */
            head = r->expected ? "Expected step" : "Speed-of-light step";
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
    xlsx_book_height(b, ws, row++, r->expected ? 62 : 44);
    first = row;
    for (i = 0; i < r->nfamilies; i++) {
        size_t fi = (size_t)r->families_by_step[i];
        char a[32], b2[32];
        fr.r = r;
        fr.f = &r->family[fi];
        fr.live = !b->big && fr.f->sheet_row >= 0;
        fr.swatch = xlsx_book_fill(b, fr.f->color);
        plan_format(&fr.f->best.plan, fr.plan, sizeof fr.plan);
        report_thousands((double)fr.f->fitting, a, sizeof a);
        report_thousands((double)fr.f->plans, b2, sizeof b2);
        snprintf(fr.count, sizeof fr.count, "%s / %s", a, b2);
        xlsx_table_row(b, ws, &t, row, &fr);
        xlsx_book_height(b, ws, row,
                         fmax(xlsx_book_text_height(strlen(fr.f->why),
                                                    columns[S_WHY].width, 9),
                              xlsx_book_text_height(strlen(fr.plan),
                                                    columns[S_PLAN].width, 9)));
        row++;
    }
    if (row > first && !b->big) {
        /* live: a family that stops fitting turns its bound grey and its
         * fit red */
        memset(&cf, 0, sizeof cf);
        cf.type = LXW_CONDITIONAL_TYPE_CELL;
        cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
        cf.value_string = "0"; /* 1 / 0 formulas, shown TRUE / FALSE */
        cf.format = xlsx_book_fmt(b, XLSX_FMT_CF_RED);
        xlsx_book_check(b,
                        worksheet_conditional_format_range(
                            ws, (lxw_row_t)first, (lxw_col_t)col("fits"),
                            (lxw_row_t)(row - 1), (lxw_col_t)col("fits"), &cf),
                        "worksheet_conditional_format_range (fits)");
        if (xlsx_table_formula(&table, "NOT({fits})", first, grey,
                               sizeof grey)) {
            memset(&cf, 0, sizeof cf);
            cf.type = LXW_CONDITIONAL_TYPE_FORMULA;
            cf.value_string = grey;
            cf.format = xlsx_book_fmt(b, XLSX_FMT_NA_BOUND);
            xlsx_book_check(b,
                            worksheet_conditional_format_range(
                                ws, (lxw_row_t)first, (lxw_col_t)col("bound"),
                                (lxw_row_t)(row - 1), (lxw_col_t)col("bound"),
                                &cf),
                            "worksheet_conditional_format_range (bound)");
        }
    }
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

/* The column grid both sheets share (the family table's columns). */
static void grid(struct xlsx_book *b, lxw_worksheet *ws)
{
    size_t k;
    for (k = 0; k < NCOLS; k++) /* one range each: the layout's grid */
        xlsx_book_width(b, ws, k, k, columns[k].width);
}

void xlsx_summary_write(struct xlsx_book *b, lxw_worksheet *ws)
{
    const struct report *r = b->r;
    /* the effect's words over Family and Step (the expected figures'
     * column), the seconds and share in the narrow columns after it */
    const struct xlsx_waterfall_cols waterfall_cols = {
        col("family"), col("bound"),   col("ratio"),
        col("step_o"), col("bound_o"), NCOLS - 1};
    size_t row = 0;

    worksheet_set_tab_color(ws, XLSX_COLOR_SECTION);
    xlsx_book_page(b, ws, XLSX_PAGE_REPORT);
    grid(b, ws);
    xlsx_book_strf(b, ws, row++, col("family"),
                   xlsx_book_fmt(b, XLSX_FMT_TITLE),
                   "Parallelism plan for %s on %ld x %s", r->m->spec.name,
                   r->hw->spec.gpus, r->hw->spec.gpu_name);
    xlsx_book_strf(
        b, ws, row++, col("family"), xlsx_book_fmt(b, XLSX_FMT_SUBTITLE),
        "%s; %s communication model (also shown: %s); roofplan %s, %s",
        r->hw->spec.cluster_name, comm_model_str(r->comm),
        xlsx_book_other_model(r), r->version, r->when);
    row = glance(b, ws, row);
    row = links(b, ws, row) + 1;
    row = verdict(b, ws, row);
    row = key_figures(b, ws, row);
    row = xlsx_waterfall_table(b, ws, row, &waterfall_cols);
    row = notes(b, ws, row);
    /* the page a manager prints: all of it on one landscape page */
    worksheet_fit_to_pages(ws, 1, 1);
    xlsx_book_print_area(b, ws, 0, row - 1, NCOLS - 1);
    worksheet_activate(ws);
}

void xlsx_summary_families(struct xlsx_book *b,
                           lxw_worksheet *ws,
                           const char *step_png,
                           const char *waterfall_png)
{
    const struct report *r = b->r;
    lxw_row_t breaks[3] = {0, 0, 0}; /* each chart on its page */
    size_t row = 0, nbreaks = 0;

    worksheet_set_tab_color(ws, XLSX_COLOR_SECTION);
    xlsx_book_page(b, ws, XLSX_PAGE_REPORT);
    grid(b, ws);
    xlsx_book_strf(b, ws, row++, col("family"),
                   xlsx_book_fmt(b, XLSX_FMT_TITLE),
                   "Plan families for %s on %ld x %s", r->m->spec.name,
                   r->hw->spec.gpus, r->hw->spec.gpu_name);
    xlsx_book_link(b, ws, row++, col("family"), XLSX_SUMMARY_SHEET,
                   "Back to the Summary");
    row = families(b, ws, row + 1);
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
