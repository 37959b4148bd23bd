/*
 * xlsx_out: the planning workbook, sheet by sheet.
 *
 * Conventions. Every libxlsxwriter call that returns lxw_error goes
 * through chk(), which keeps the first failure (and the call's name) in
 * struct xw; each sheet writer runs to its end and xlsx_out_write()
 * checks the record after each sheet. Rows of every sheet are written in
 * ascending order so that the constant_memory mode used for very large
 * reports works unchanged. Strings from data files (names, sources,
 * paths) go through worksheet_write_string only, so a value starting
 * with '=' stays text. Numbers that are not finite are written as text
 * ("n/a"): libxlsxwriter would otherwise print "nan" into the XML.
 */
#include "xlsx_out.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xlsxwriter.h>

#include "eval_out.h"
#include "out_file.h"
#include "plans_table.h"

#define GIB 1073741824.0

/* Sheet names; formulas and defined names refer to them. */
#define SH_SUMMARY     "Summary"
#define SH_ASSUMPTIONS "Assumptions"
#define SH_PLANS       "Plans"
#define SH_MEMORY      "Memory"
#define SH_COMM        "Communication"
#define SH_ROOFLINE    "Roofline"
#define SH_SENS        "Sensitivity"
#define SH_REJECTED    "Rejected"
#define SH_VALIDATION  "Validation"
#define SH_ABOUT       "About"

#define ROOF_PER_FAMILY 12 /* best plans per family on the roofline */
#define ROOF_SERIES_MAX 12 /* families with their own series */
#define PRINT_PLANS     60 /* Plans rows on the printout */
#define FORMULA_MAX     PLANS_FORMULA_MAX /* an expanded formula */

/* Colours: inputs (spreadsheet convention: blue on pale yellow). */
#define C_INPUT_FONT 0x0000CC
#define C_INPUT_FILL 0xFFF9D6
#define C_HEAD_FILL  0x1F3864
#define C_LIVE_FILL  0x2E75B6
#define C_SECTION    0x1F3864
#define C_NOTE       0x595959
#define C_COMPUTE    0xC6EFCE
#define C_IB         0xFFC7CE
#define C_NVLINK     0xE4D2F5
#define C_HBM        0xFFEB9C
#define C_RED_FONT   0x9C0006
#define C_GREEN_FONT 0x006100
#define C_GRID_LIGHT 0xD9D9D9

/* The formats of the whole workbook, made once. */
struct formats {
    lxw_format *title, *subtitle, *h2, *note, *bold, *wrap, *text;
    lxw_format *headline, *label, *right, *small, *warn, *red_label;
    lxw_format *label_wrap, *na, *note_wrap;
    lxw_format *head, *head_live, *head_left;
    lxw_format *in_num, *in_text, *in_bool, *derived;
    lxw_format *sec, *sec_bold, *gib, *pct, *cnt, *big, *rat, *usd, *days;
    lxw_format *usd_m;
    lxw_format *num, *integer, *sci, *gbps;
    lxw_format *bound[4];    /* fill by enum cost_bound, for text */
    lxw_format *sens[4];     /* seconds with a bound's fill */
    lxw_format *cf_bound[4]; /* conditional formats (fill only) */
    lxw_format *cf_red, *cf_kept, *cf_dropped;
    lxw_format *ok, *bad;
    lxw_format *plans[64]; /* one per Plans column */
};

/* State of one workbook being written. */
struct xw {
    lxw_workbook *wb;
    const struct report *r;
    const struct xlsx_images *img;
    const char *path; /* the final path, for messages */
    bool big;         /* constant_memory mode, no Excel table */
    lxw_error err;    /* first failure */
    char what[160];   /* the call that failed */
    struct formats f;
};

/* ---- Error bookkeeping and small writers ---- */

/* Keeps the first libxlsxwriter failure and the call that caused it. */
static void chk(struct xw *x, lxw_error e, const char *what)
{
    if (e != LXW_NO_ERROR && x->err == LXW_NO_ERROR) {
        x->err = e;
        snprintf(x->what, sizeof x->what, "%s", what);
    }
}

/* Row index as lxw_row_t, recording an error past Excel's last row. */
static lxw_row_t R(struct xw *x, size_t row)
{
    if (row >= LXW_ROW_MAX) {
        chk(x, LXW_ERROR_WORKSHEET_INDEX_OUT_OF_RANGE, "row index");
        return LXW_ROW_MAX - 1;
    }
    return (lxw_row_t)row;
}

/* Column index as lxw_col_t (all our sheets are far narrower). */
static lxw_col_t C(struct xw *x, size_t col)
{
    if (col >= LXW_COL_MAX) {
        chk(x, LXW_ERROR_WORKSHEET_INDEX_OUT_OF_RANGE, "column index");
        return LXW_COL_MAX - 1;
    }
    return (lxw_col_t)col;
}

static void put_str(struct xw *x,
                    lxw_worksheet *ws,
                    size_t row,
                    size_t col,
                    const char *s,
                    lxw_format *f)
{
    chk(x, worksheet_write_string(ws, R(x, row), C(x, col), s, f),
        "worksheet_write_string");
}

static void put_num(struct xw *x,
                    lxw_worksheet *ws,
                    size_t row,
                    size_t col,
                    double v,
                    lxw_format *f)
{
    if (!isfinite(v)) {
        put_str(x, ws, row, col, "n/a", f);
        return;
    }
    chk(x, worksheet_write_number(ws, R(x, row), C(x, col), v, f),
        "worksheet_write_number");
}

static void put_bool(struct xw *x,
                     lxw_worksheet *ws,
                     size_t row,
                     size_t col,
                     bool v,
                     lxw_format *f)
{
    chk(x, worksheet_write_boolean(ws, R(x, row), C(x, col), v ? 1 : 0, f),
        "worksheet_write_boolean");
}

/* A formula with its numeric cached result (the C value). A result that
 * is not finite is cached as 0; the formula shows the error itself. */
static void put_fnum(struct xw *x,
                     lxw_worksheet *ws,
                     size_t row,
                     size_t col,
                     const char *formula,
                     double v,
                     lxw_format *f)
{
    chk(x,
        worksheet_write_formula_num(ws, R(x, row), C(x, col), formula, f,
                                    isfinite(v) ? v : 0),
        "worksheet_write_formula_num");
}

static void put_fstr(struct xw *x,
                     lxw_worksheet *ws,
                     size_t row,
                     size_t col,
                     const char *formula,
                     const char *v,
                     lxw_format *f)
{
    chk(x, worksheet_write_formula_str(ws, R(x, row), C(x, col), formula, f, v),
        "worksheet_write_formula_str");
}

/* printf into a cell as text. */
static void put_strf(struct xw *x,
                     lxw_worksheet *ws,
                     size_t row,
                     size_t col,
                     lxw_format *f,
                     const char *fmt,
                     ...) __attribute__((format(printf, 6, 7)));

static void put_strf(struct xw *x,
                     lxw_worksheet *ws,
                     size_t row,
                     size_t col,
                     lxw_format *f,
                     const char *fmt,
                     ...)
{
    char buf[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    put_str(x, ws, row, col, buf, f);
}

static void col_width(struct xw *x,
                      lxw_worksheet *ws,
                      size_t first,
                      size_t last,
                      double width)
{
    chk(x, worksheet_set_column(ws, C(x, first), C(x, last), width, NULL),
        "worksheet_set_column");
}

static void
row_height(struct xw *x, lxw_worksheet *ws, size_t row, double height)
{
    chk(x, worksheet_set_row(ws, R(x, row), height, NULL), "worksheet_set_row");
}

/* A row-wide text (merged over cols first..last, wrapped). */
static void put_merged(struct xw *x,
                       lxw_worksheet *ws,
                       size_t row,
                       size_t first,
                       size_t last,
                       const char *s,
                       lxw_format *f)
{
    chk(x,
        worksheet_merge_range(ws, R(x, row), C(x, first), R(x, row), C(x, last),
                              s, f),
        "worksheet_merge_range");
}

/* Landscape, one page wide, gridlines hidden on screen for report-like
 * sheets (not for tables of data). */
static void page_setup(lxw_worksheet *ws, bool report_like)
{
    worksheet_set_landscape(ws);
    worksheet_fit_to_pages(ws, 1, 0);
    worksheet_set_margins(ws, 0.4, 0.4, 0.5, 0.5);
    if (report_like)
        worksheet_gridlines(ws, LXW_HIDE_ALL_GRIDLINES);
}

/* Relative A1 reference on the same sheet. */
static void rel_ref(size_t row, size_t col, char *buf, size_t size)
{
    char letters[8];
    plans_table_col_name(col, letters, sizeof letters);
    snprintf(buf, size, "%s%zu", letters, row + 1);
}

static const char *schedule_words(int s)
{
    switch (s) {
    case PLAN_INTERLEAVED:
        return "interleaved 1F1B";
    case PLAN_ZB:
        return "zero-bubble (ZB1P)";
    case PLAN_DUALPIPE:
        return "DualPipe";
    default:
        return "1F1B";
    }
}

static const char *recompute_words(int r)
{
    switch (r) {
    case MODEL_RECOMPUTE_SELECTIVE:
        return "selective recomputation";
    case MODEL_RECOMPUTE_FULL:
        return "full recomputation";
    default:
        return "no recomputation";
    }
}

/* A plan in words: "TP 2 x PP 2 (zero-bubble (ZB1P)) x EP 256, ZeRO-1
 * over DP 1024, FP8, no recomputation, micro-batch 1, global batch 15360
 * sequences". */
static void plan_words(const struct plan *p, char *buf, size_t size)
{
    char pp[96] = "", dp[64];
    if (p->pp > 1 && p->schedule == PLAN_INTERLEAVED)
        snprintf(pp, sizeof pp, " x PP %ld (interleaved 1F1B, %ld chunks)",
                 p->pp, p->vpp);
    else if (p->pp > 1)
        snprintf(pp, sizeof pp, " x PP %ld (%s)", p->pp,
                 schedule_words(p->schedule));
    if (p->zero > 0)
        snprintf(dp, sizeof dp, "ZeRO-%ld over DP %ld", p->zero, p->dp);
    else
        snprintf(dp, sizeof dp, "plain DP %ld", p->dp);
    snprintf(buf, size,
             "TP %ld%s x EP %ld%s, %s, %s, %s, micro-batch %ld, global "
             "batch %ld sequences",
             p->tp, pp, p->ep, p->cp > 1 ? " x CP" : "", dp,
             p->precision == MODEL_FP8 ? "FP8" : "BF16",
             recompute_words(p->recompute), p->mbs, p->gbs);
}

/* 12,345,678 */
static void thousands(double v, char *buf, size_t size)
{
    char digits[64], out[96];
    size_t n, i, o = 0;
    if (!isfinite(v) || fabs(v) >= 1e18) {
        snprintf(buf, size, "%.3g", v);
        return;
    }
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    n = strlen(digits);
    if (v < 0 && digits[0] != '0')
        out[o++] = '-';
    for (i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    snprintf(buf, size, "%s", out);
}

/* UTC date and time of r->generated, "2025-01-31 12:00 UTC". */
static void generated_text(const struct report *r, char *buf, size_t size)
{
    time_t t = (time_t)r->generated;
    struct tm tm;
    if (gmtime_r(&t, &tm) == NULL ||
        strftime(buf, size, "%Y-%m-%d %H:%M UTC", &tm) == 0)
        snprintf(buf, size, "%lld", (long long)r->generated);
}

static const char *comm_other_str(const struct report *r)
{
    return comm_model_str(r->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO);
}

/* ---- Formats ---- */

static lxw_format *fmt_num(lxw_workbook *wb, const char *num_format)
{
    lxw_format *f = workbook_add_format(wb);
    if (f && num_format)
        format_set_num_format(f, num_format);
    if (f)
        format_set_align(f, LXW_ALIGN_VERTICAL_TOP);
    return f;
}

static lxw_format *
fmt_fill(lxw_workbook *wb, lxw_color_t fill, const char *num_format)
{
    lxw_format *f = fmt_num(wb, num_format);
    if (f)
        format_set_bg_color(f, fill);
    return f;
}

static lxw_format *fmt_head(lxw_workbook *wb, lxw_color_t fill)
{
    lxw_format *f = workbook_add_format(wb);
    if (!f)
        return NULL;
    format_set_bold(f);
    format_set_text_wrap(f);
    format_set_font_color(f, LXW_COLOR_WHITE);
    format_set_bg_color(f, fill);
    format_set_align(f, LXW_ALIGN_CENTER);
    format_set_align(f, LXW_ALIGN_VERTICAL_CENTER);
    format_set_border(f, LXW_BORDER_THIN);
    format_set_border_color(f, LXW_COLOR_WHITE);
    return f;
}

static lxw_format *fmt_input(lxw_workbook *wb, const char *num_format)
{
    lxw_format *f = fmt_fill(wb, C_INPUT_FILL, num_format);
    if (!f)
        return NULL;
    format_set_font_color(f, C_INPUT_FONT);
    format_set_border(f, LXW_BORDER_THIN);
    format_set_border_color(f, C_GRID_LIGHT);
    format_set_align(f, LXW_ALIGN_LEFT);
    return f;
}

/* Creates every format; false when libxlsxwriter is out of memory. */
static bool make_formats(struct xw *x)
{
    static const lxw_color_t bound_fill[4] = {C_COMPUTE, C_IB, C_NVLINK, C_HBM};
    struct formats *f = &x->f;
    lxw_workbook *wb = x->wb;
    size_t i, n;
    const struct plans_column *cols = plans_table_columns(&n);

    f->title = workbook_add_format(wb);
    f->subtitle = workbook_add_format(wb);
    f->h2 = workbook_add_format(wb);
    f->note = workbook_add_format(wb);
    f->bold = workbook_add_format(wb);
    f->wrap = workbook_add_format(wb);
    f->text = workbook_add_format(wb);
    f->headline = workbook_add_format(wb);
    f->label = workbook_add_format(wb);
    f->right = workbook_add_format(wb);
    f->small = workbook_add_format(wb);
    f->warn = workbook_add_format(wb);
    f->red_label = workbook_add_format(wb);
    f->label_wrap = workbook_add_format(wb);
    f->na = workbook_add_format(wb);
    f->note_wrap = workbook_add_format(wb);
    f->usd_m = fmt_num(wb, "$#,##0.00,,\"M\"");
    f->head = fmt_head(wb, C_HEAD_FILL);
    f->head_live = fmt_head(wb, C_LIVE_FILL);
    f->head_left = fmt_head(wb, C_HEAD_FILL);
    f->in_num = fmt_input(wb, "General");
    f->in_text = fmt_input(wb, NULL);
    f->in_bool = fmt_input(wb, NULL);
    f->derived = fmt_fill(wb, 0xF2F2F2, "0.0000");
    f->sec = fmt_num(wb, "0.000");
    f->sec_bold = fmt_num(wb, "0.000");
    f->gib = fmt_num(wb, "0.0");
    f->pct = fmt_num(wb, "0.0%");
    f->cnt = fmt_num(wb, "#,##0");
    f->big = fmt_num(wb, "#,##0.0");
    f->rat = fmt_num(wb, "0.00");
    f->usd = fmt_num(wb, "$#,##0");
    f->days = f->gib;
    f->num = fmt_num(wb, "General");
    f->integer = fmt_num(wb, "0");
    f->sci = fmt_num(wb, "0.00E+00");
    f->gbps = f->big;
    f->cf_red = fmt_fill(wb, C_IB, NULL);
    f->cf_kept = fmt_fill(wb, C_COMPUTE, NULL);
    f->cf_dropped = fmt_fill(wb, 0xF2F2F2, NULL);
    f->ok = workbook_add_format(wb);
    f->bad = workbook_add_format(wb);
    for (i = 0; i < 4; i++) {
        f->bound[i] = fmt_fill(wb, bound_fill[i], NULL);
        f->sens[i] = fmt_fill(wb, bound_fill[i], "0.000");
        f->cf_bound[i] = fmt_fill(wb, bound_fill[i], NULL);
    }
    /* One format object per number format: libxlsxwriter 1.1.4 hashes a
     * format on every cell when another object has the same properties
     * (it caches the index only on the first), which tripled the time to
     * write Plans. Text columns take no format at all. */
    for (i = 0; i < n && i < sizeof f->plans / sizeof f->plans[0]; i++) {
        lxw_format *const mine[] = {f->sec, f->gib, f->pct, f->cnt,
                                    f->big, f->rat, f->usd, f->integer};
        const char *const nf[] = {"0.000",   "0.0",  "0.0%",   "#,##0",
                                  "#,##0.0", "0.00", "$#,##0", "0"};
        size_t k;
        f->plans[i] = NULL;
        for (k = 0; k < sizeof nf / sizeof nf[0] && cols[i].num_format; k++)
            if (strcmp(cols[i].num_format, nf[k]) == 0)
                f->plans[i] = mine[k];
        if (cols[i].num_format && !f->plans[i])
            f->plans[i] = fmt_num(wb, cols[i].num_format);
    }
    if (!f->title || !f->subtitle || !f->h2 || !f->note || !f->bold ||
        !f->wrap || !f->text || !f->headline || !f->label || !f->head ||
        !f->right || !f->small || !f->warn || !f->red_label || !f->usd_m ||
        !f->label_wrap || !f->na || !f->note_wrap || !f->head_live ||
        !f->head_left || !f->in_num || !f->in_text || !f->in_bool ||
        !f->derived || !f->sec || !f->sec_bold || !f->gib || !f->pct ||
        !f->cnt || !f->big || !f->rat || !f->usd || !f->days || !f->num ||
        !f->integer || !f->sci || !f->gbps || !f->cf_red || !f->cf_kept ||
        !f->cf_dropped || !f->ok || !f->bad)
        return false;
    for (i = 0; i < 4; i++)
        if (!f->bound[i] || !f->sens[i] || !f->cf_bound[i])
            return false;
    for (i = 0; i < n && i < sizeof f->plans / sizeof f->plans[0]; i++)
        if (!f->plans[i] && cols[i].num_format)
            return false;

    format_set_bold(f->title);
    format_set_font_size(f->title, 16);
    format_set_font_color(f->title, C_SECTION);
    format_set_font_color(f->subtitle, C_NOTE);
    format_set_bold(f->h2);
    format_set_font_size(f->h2, 12);
    format_set_font_color(f->h2, C_SECTION);
    format_set_bottom(f->h2, LXW_BORDER_THIN);
    format_set_bottom_color(f->h2, C_SECTION);
    format_set_italic(f->note);
    format_set_align(f->note, LXW_ALIGN_VERTICAL_TOP);
    format_set_font_color(f->note, C_NOTE);
    format_set_bold(f->bold);
    format_set_align(f->bold, LXW_ALIGN_VERTICAL_TOP);
    format_set_text_wrap(f->wrap);
    format_set_align(f->wrap, LXW_ALIGN_VERTICAL_TOP);
    format_set_align(f->text, LXW_ALIGN_VERTICAL_TOP);
    format_set_bold(f->headline);
    format_set_font_size(f->headline, 12);
    format_set_text_wrap(f->headline);
    format_set_align(f->headline, LXW_ALIGN_VERTICAL_TOP);
    format_set_bg_color(f->headline, 0xDDEBF7);
    format_set_border(f->headline, LXW_BORDER_THIN);
    format_set_border_color(f->headline, C_LIVE_FILL);
    format_set_bold(f->label);
    format_set_align(f->label, LXW_ALIGN_VERTICAL_TOP);
    format_set_align(f->right, LXW_ALIGN_RIGHT);
    format_set_align(f->right, LXW_ALIGN_VERTICAL_TOP);
    format_set_font_size(f->small, 9);
    format_set_text_wrap(f->small);
    format_set_align(f->small, LXW_ALIGN_VERTICAL_TOP);
    format_set_bold(f->warn);
    format_set_text_wrap(f->warn);
    format_set_font_color(f->warn, C_RED_FONT);
    format_set_italic(f->note_wrap);
    format_set_font_color(f->note_wrap, C_NOTE);
    format_set_text_wrap(f->note_wrap);
    format_set_align(f->note_wrap, LXW_ALIGN_VERTICAL_TOP);
    format_set_italic(f->na);
    format_set_font_color(f->na, C_NOTE);
    format_set_align(f->na, LXW_ALIGN_RIGHT);
    format_set_align(f->na, LXW_ALIGN_VERTICAL_TOP);
    format_set_bold(f->label_wrap);
    format_set_text_wrap(f->label_wrap);
    format_set_align(f->label_wrap, LXW_ALIGN_VERTICAL_TOP);
    format_set_bold(f->red_label);
    format_set_font_color(f->red_label, C_RED_FONT);
    format_set_align(f->head_left, LXW_ALIGN_LEFT);
    format_set_bold(f->sec_bold);
    format_set_font_color(f->ok, C_GREEN_FONT);
    format_set_bold(f->ok);
    format_set_align(f->ok, LXW_ALIGN_CENTER);
    format_set_align(f->ok, LXW_ALIGN_VERTICAL_TOP);
    format_set_align(f->bad, LXW_ALIGN_VERTICAL_TOP);
    format_set_font_color(f->bad, C_RED_FONT);
    format_set_bold(f->bad);
    format_set_align(f->bad, LXW_ALIGN_CENTER);
    format_set_font_color(f->cf_red, C_RED_FONT);
    format_set_bold(f->cf_red);
    format_set_align(f->in_bool, LXW_ALIGN_LEFT);
    return true;
}

/* ---- Assumptions: names of the inputs ---- */

/* True when name would read as an A1 cell reference (e.g. "FP8"). */
static bool looks_like_cell(const char *name)
{
    size_t letters = 0, digits = 0;
    const char *s = name;
    while (*s >= 'A' && *s <= 'Z') {
        letters++;
        s++;
    }
    while (*s >= '0' && *s <= '9') {
        digits++;
        s++;
    }
    return *s == '\0' && letters >= 1 && letters <= 3 && digits >= 1;
}

/*
 * Workbook name of an input: hardware keys as they are (IB_GBPS,
 * BF16_ACHIEVABLE_TFLOPS; GPU_NAME, CLUSTER_NAME), model keys with their
 * section (MODEL_LAYERS, TRAINING_TOKENS, FP8_CACHE_BYTES).
 */
static void input_name(const struct datafile_field *f,
                       bool hardware,
                       char *buf,
                       size_t size)
{
    size_t i;
    if (hardware && strcmp(f->key, "name") != 0)
        snprintf(buf, size, "%s", f->key);
    else
        snprintf(buf, size, "%s_%s", f->section, f->key);
    for (i = 0; buf[i]; i++) {
        char c = buf[i];
        if (c >= 'a' && c <= 'z')
            buf[i] = (char)(c - 'a' + 'A');
        else if (!((c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')))
            buf[i] = '_';
    }
    i = strlen(buf);
    if (looks_like_cell(buf) && i + 1 < size) {
        buf[i] = '_';
        buf[i + 1] = '\0';
    }
}

/* The text of an input's value (strings, enums, lists, bools). */
static void field_text(const struct datafile_field *f,
                       const void *spec,
                       char *buf,
                       size_t size)
{
    const char *base = (const char *)spec + f->offset;
    buf[0] = '\0';
    if (f->type == DATAFILE_STRING) {
        snprintf(buf, size, "%.*s", (int)f->size, base);
    } else if (f->type == DATAFILE_ENUM || f->type == DATAFILE_LIST) {
        const struct datafile_list *l = (const void *)base;
        size_t n = f->type == DATAFILE_ENUM ? 1 : l->n, i, used = 0;
        for (i = 0; i < n && used + 1 < size; i++) {
            double v = f->type == DATAFILE_ENUM
                           ? *(const int *)(const void *)base
                           : l->v[i];
            char item[64] = "";
            if (f->choices) {
                const char *c = f->choices;
                long k = (long)v;
                while (k > 0 && c) {
                    c = strchr(c, '|');
                    if (c)
                        c++;
                    k--;
                }
                if (c)
                    snprintf(item, sizeof item, "%.*s", (int)strcspn(c, "|"),
                             c);
            } else {
                snprintf(item, sizeof item, "%g", v);
            }
            used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                     i ? " " : "", item);
        }
    }
}

/* Writes one input row: section, key, name, value, unit, meaning,
 * source; defines the name. */
static void input_row(struct xw *x,
                      lxw_worksheet *ws,
                      size_t row,
                      const struct datafile_meta *meta,
                      size_t i,
                      const void *spec,
                      bool hardware)
{
    const struct datafile_field *f = &meta->schema->fields[i];
    const char *base = (const char *)spec + f->offset;
    char name[96], ref[96], text[DATAFILE_TEXT_MAX * 2];
    input_name(f, hardware, name, sizeof name);
    put_str(x, ws, row, 0, f->section, x->f.text);
    put_str(x, ws, row, 1, f->key, x->f.text);
    put_str(x, ws, row, 2, name, x->f.text);
    switch (f->type) {
    case DATAFILE_INT:
        put_num(x, ws, row, 3, (double)*(const long *)(const void *)base,
                x->f.in_num);
        break;
    case DATAFILE_DOUBLE:
        put_num(x, ws, row, 3, *(const double *)(const void *)base,
                x->f.in_num);
        break;
    case DATAFILE_BOOL:
        put_bool(x, ws, row, 3, *(const bool *)(const void *)base,
                 x->f.in_bool);
        break;
    default:
        field_text(f, spec, text, sizeof text);
        put_str(x, ws, row, 3, text, x->f.in_text);
        break;
    }
    put_str(x, ws, row, 4, f->unit ? f->unit : "", x->f.text);
    put_str(x, ws, row, 5, f->help ? f->help : "", x->f.text);
    put_str(x, ws, row, 6, datafile_meta_source(meta, i), x->f.text);
    snprintf(ref, sizeof ref, "=%s!$D$%zu", SH_ASSUMPTIONS, row + 1);
    chk(x, workbook_define_name(x->wb, name, ref), "workbook_define_name");
}

/* A derived value: name, formula over inputs, cached C value. */
static void derived_row(struct xw *x,
                        lxw_worksheet *ws,
                        size_t row,
                        const char *name,
                        const char *formula,
                        double v,
                        const char *unit,
                        const char *meaning)
{
    char ref[96];
    put_str(x, ws, row, 0, "derived", x->f.text);
    put_str(x, ws, row, 2, name, x->f.text);
    put_fnum(x, ws, row, 3, formula, v, x->f.derived);
    put_str(x, ws, row, 4, unit, x->f.text);
    put_str(x, ws, row, 5, meaning, x->f.text);
    put_str(x, ws, row, 6, formula, x->f.text);
    snprintf(ref, sizeof ref, "=%s!$D$%zu", SH_ASSUMPTIONS, row + 1);
    chk(x, workbook_define_name(x->wb, name, ref), "workbook_define_name");
}

static void sheet_assumptions(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    const struct hardware *hw = r->hw;
    const struct model *m = r->m;
    static const char *const heads[] = {"Section", "Key",     "Name",  "Value",
                                        "Unit",    "Meaning", "Source"};
    size_t row = 0, i;

    page_setup(ws, false);
    col_width(x, ws, 0, 0, 10);
    col_width(x, ws, 1, 1, 24);
    col_width(x, ws, 2, 2, 28);
    col_width(x, ws, 3, 3, 24);
    col_width(x, ws, 4, 4, 9);
    col_width(x, ws, 5, 5, 52);
    col_width(x, ws, 6, 6, 90);
    put_str(x, ws, row++, 0,
            "Assumptions: every input, with its unit and "
            "source",
            x->f.title);
    put_str(x, ws, row, 0, "input", x->f.in_text);
    put_str(x, ws, row++, 1,
            "Blue on yellow: an input. Edit it and every formula in Plans, "
            "Memory, Communication and Roofline re-times (each is a named "
            "cell, e.g. IB_GBPS).",
            x->f.note);
    put_str(x, ws, row, 0, "derived", x->f.derived);
    put_str(x, ws, row++, 1,
            "Grey: a formula over the inputs. Model inputs are shown for "
            "reference: changing the architecture needs a new run of "
            "roofplan (per-plan FLOPs and bytes are values).",
            x->f.note);
    row++;
    for (i = 0; i < 7; i++)
        put_str(x, ws, row, i, heads[i], x->f.head_left);
    worksheet_freeze_panes(ws, R(x, row + 1), 0);
    row++;

    put_strf(x, ws, row++, 0, x->f.h2, "Hardware: %s", hw->meta.path);
    for (i = 0; i < hw->meta.schema->n; i++)
        input_row(x, ws, row++, &hw->meta, i, &hw->spec, true);
    row++;
    put_str(x, ws, row++, 0, "Derived rates", x->f.h2);
    {
        char f1[160];
        derived_row(x, ws, row++, "COMPUTE_DERATE",
                    "=CLOCK_DERATE*(1-COMM_SMS/SMS)", hw->compute_derate, "",
                    "share of the achievable GEMM rate left to compute "
                    "(clock derate x SMs not reserved for communication)");
        derived_row(x, ws, row++, "BF16_TFLOPS_USED",
                    "=BF16_ACHIEVABLE_TFLOPS*COMPUTE_DERATE",
                    hw->bf16_flops / 1e12, "TFLOP/s",
                    "BF16 rate the plans are timed with");
        derived_row(x, ws, row++, "FP8_TFLOPS_USED",
                    "=FP8_ACHIEVABLE_TFLOPS*COMPUTE_DERATE",
                    hw->fp8_flops / 1e12, "TFLOP/s",
                    "FP8 rate the plans are timed with");
        snprintf(f1, sizeof f1, "=BF16_TFLOPS_USED*1000/IB_GBPS");
        derived_row(x, ws, row++, "RIDGE_IB_BF16", f1,
                    hw->bf16_flops / hw->ib_bps, "FLOP/B",
                    "ridge point over IB: below this intensity a BF16 plan "
                    "is IB-bound");
        derived_row(x, ws, row++, "RIDGE_NVLINK_BF16",
                    "=BF16_TFLOPS_USED*1000/NVLINK_GBPS",
                    hw->bf16_flops / hw->nvlink_bps, "FLOP/B",
                    "ridge point over NVLink for BF16");
    }
    row++;
    put_strf(x, ws, row++, 0, x->f.h2, "Model: %s", m->meta.path);
    for (i = 0; i < m->meta.schema->n; i++)
        input_row(x, ws, row++, &m->meta, i, &m->spec, false);
    row++;
    put_str(x, ws, row++, 0, "Derived from the model (values)", x->f.h2);
    {
        static const char *const what[] = {
            "parameters, main model (embedding and head counted)",
            "parameters active per token",
            "model FLOPs per token, forward + backward (with MTP if enabled)",
            "model FLOPs per token, main model only"};
        const double v[] = {m->params_total / 1e9, m->params_active / 1e9,
                            m->flops_per_token / 1e9,
                            m->flops_per_token_main / 1e9};
        static const char *const unit[] = {"B", "B", "GFLOP", "GFLOP"};
        for (i = 0; i < 4; i++) {
            put_str(x, ws, row, 0, "derived", x->f.text);
            put_num(x, ws, row, 3, v[i], x->f.big);
            put_str(x, ws, row, 4, unit[i], x->f.text);
            put_str(x, ws, row++, 5, what[i], x->f.text);
        }
    }
}

/* ---- Plans ---- */

static void plans_conditional(struct xw *x, lxw_worksheet *ws, size_t last)
{
    static const char *const label[4] = {"\"compute\"", "\"IB\"", "\"NVLink\"",
                                         "\"HBM\""};
    long bound = plans_table_find("bound"), fits = plans_table_find("fits");
    long mfu = plans_table_find("mfu");
    lxw_conditional_format cf;
    int b;
    if (bound < 0 || fits < 0 || mfu < 0 || last < 1)
        return;
    for (b = 0; b < 4; b++) {
        memset(&cf, 0, sizeof cf);
        cf.type = LXW_CONDITIONAL_TYPE_CELL;
        cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
        cf.value_string = (char *)label[b];
        cf.format = x->f.cf_bound[b];
        chk(x,
            worksheet_conditional_format_range(ws, 1, C(x, (size_t)bound),
                                               R(x, last), C(x, (size_t)bound),
                                               &cf),
            "worksheet_conditional_format_range (bound)");
    }
    memset(&cf, 0, sizeof cf);
    cf.type = LXW_CONDITIONAL_TYPE_CELL;
    cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
    cf.value_string = "FALSE";
    cf.format = x->f.cf_red;
    chk(x,
        worksheet_conditional_format_range(ws, 1, C(x, (size_t)fits),
                                           R(x, last), C(x, (size_t)fits), &cf),
        "worksheet_conditional_format_range (fits)");
    memset(&cf, 0, sizeof cf);
    cf.type = LXW_CONDITIONAL_DATA_BAR;
    cf.bar_color = 0x63BE7B;
    cf.bar_solid = 1;
    cf.min_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
    cf.min_value = 0;
    chk(x,
        worksheet_conditional_format_range(ws, 1, C(x, (size_t)mfu), R(x, last),
                                           C(x, (size_t)mfu), &cf),
        "worksheet_conditional_format_range (MFU)");
}

static void sheet_plans(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    size_t n, i, k, ncols;
    const struct plans_column *cols = plans_table_columns(&ncols);
    struct plans_formula *t = NULL;
    lxw_table_column tc[64], *tcp[65];
    char heads[64][96];
    char formula[FORMULA_MAX];
    size_t last = r->nrows; /* last data row (0-based); header at 0 */

    n = ncols < 64 ? ncols : 64;
    if (x->big && n > XLSX_OUT_BIG_COLUMNS) /* see xlsx_out.h */
        n = XLSX_OUT_BIG_COLUMNS;
    if (r->nrows + 1 > LXW_ROW_MAX) {
        chk(x, LXW_ERROR_WORKSHEET_INDEX_OUT_OF_RANGE,
            "Plans: more rows than a sheet holds");
        return;
    }
    t = calloc(n, sizeof *t);
    if (!t) {
        chk(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "Plans: formula templates");
        return;
    }
    for (k = 0; k < n; k++) {
        plans_table_header(&cols[k], heads[k], sizeof heads[k]);
        if (cols[k].formula &&
            !plans_table_formula_compile(cols[k].formula, &t[k]))
            chk(x, LXW_ERROR_PARAMETER_VALIDATION, "Plans: formula template");
        chk(x,
            worksheet_set_column(ws, C(x, k), C(x, k), cols[k].width,
                                 x->f.plans[k]),
            "worksheet_set_column");
    }
    row_height(x, ws, 0, 46);
    if (!x->big && r->nrows > 0) {
        lxw_table_options opt;
        memset(tc, 0, sizeof tc);
        for (k = 0; k < n; k++) {
            tc[k].header = heads[k];
            tc[k].header_format = cols[k].formula ? x->f.head_live : x->f.head;
            tcp[k] = &tc[k];
        }
        tcp[n] = NULL;
        memset(&opt, 0, sizeof opt);
        opt.name = "PlansTable";
        opt.style_type = LXW_TABLE_STYLE_TYPE_LIGHT;
        opt.style_type_number = 1;
        opt.columns = tcp;
        chk(x, worksheet_add_table(ws, 0, 0, R(x, last), C(x, n - 1), &opt),
            "worksheet_add_table");
    } else {
        for (k = 0; k < n; k++) /* values only in this mode */
            put_str(x, ws, 0, k, heads[k], x->f.head);
        chk(x, worksheet_autofilter(ws, 0, 0, R(x, last), C(x, n - 1)),
            "worksheet_autofilter");
    }
    worksheet_freeze_panes(ws, 1, C(x, plans_table_frozen()));

    for (i = 0; i < r->nrows && x->err == LXW_NO_ERROR; i++) {
        struct cost_times tm;
        report_row_times(r, &r->rows[i], &tm);
        for (k = 0; k < n; k++) {
            struct plans_value v;
            lxw_format *f = x->f.plans[k];
            plans_table_value(&cols[k], r, i, &tm, &v);
            if (cols[k].formula && !x->big) {
                plans_table_formula_expand(&t[k], (unsigned long)i + 2, formula,
                                           sizeof formula);
                if (v.kind == PLANS_NUMBER)
                    put_fnum(x, ws, i + 1, k, formula, v.num, f);
                else
                    put_fstr(x, ws, i + 1, k, formula,
                             v.kind == PLANS_BOOL ? (v.flag ? "TRUE" : "FALSE")
                                                  : v.str,
                             f);
            } else if (v.kind == PLANS_NUMBER) {
                put_num(x, ws, i + 1, k, v.num, f);
            } else if (v.kind == PLANS_BOOL) {
                put_bool(x, ws, i + 1, k, v.flag, f);
            } else {
                put_str(x, ws, i + 1, k, v.str, f);
            }
        }
    }
    free(t);
    plans_conditional(x, ws, last);
    page_setup(ws, false);
    chk(x, worksheet_repeat_rows(ws, 0, 0), "worksheet_repeat_rows");
    {
        long core = plans_table_find("bubble");
        size_t lastcol = core > 0 && (size_t)core < n ? (size_t)core : n - 1;
        size_t lastrow = last < PRINT_PLANS ? last : PRINT_PLANS;
        chk(x, worksheet_print_area(ws, 0, 0, R(x, lastrow), C(x, lastcol)),
            "worksheet_print_area");
    }
}

/* ---- Summary ---- */

/* Row height (points) for text of `len` characters wrapped in a column
 * `width` characters wide at `pt` points: about 1.1 characters of a
 * small font per unit of width. */
static double text_height(size_t len, double width, double pt)
{
    double per_line = width * 11 / pt * 1.05;
    double lines = ceil((double)len / (per_line > 1 ? per_line : 1));
    return (lines < 1 ? 1 : lines) * pt * 1.32 + 3;
}

/* "TP 2, PP 2 (zb), EP 256, ZeRO-1, FP8, recompute none, mbs 1". */
static void plan_short(const struct plan *p, char *buf, size_t size)
{
    char pp[48] = "", dp[32] = "";
    if (p->pp > 1)
        snprintf(pp, sizeof pp, ", PP %ld (%s)", p->pp,
                 plan_schedule_str(p->schedule));
    if (p->dp > 1 && p->zero > 0)
        snprintf(dp, sizeof dp, ", ZeRO-%ld", p->zero);
    else if (p->dp > 1)
        snprintf(dp, sizeof dp, ", plain DP");
    snprintf(buf, size, "TP %ld%s, EP %ld%s%s, %s, recompute %s, mbs %ld",
             p->tp, pp, p->ep, p->cp > 1 ? ", CP" : "", dp,
             p->precision == MODEL_FP8 ? "FP8" : "BF16",
             plan_recompute_str(p->recompute), p->mbs);
}

/* The plain-words sentence for a family: the verdict under this
 * report's comm model, the other model's when it names another link,
 * and whether the plan fits. */
static void family_why(const struct report *r,
                       const struct report_family *f,
                       char *buf,
                       size_t size)
{
    char v[400], other[200] = "", fit[200] = "";
    eval_out_verdict(&f->best, v, sizeof v);
    if (f->best_other.t.bound != f->best.t.bound)
        snprintf(other, sizeof other, " The %s model says %s-bound (%.2f).",
                 comm_other_str(r),
                 plans_table_bound_label(f->best_other.t.bound),
                 f->best_other.t.comm_compute_ratio);
    if (!f->best.fits)
        snprintf(fit, sizeof fit,
                 " No plan of this family fits: the fastest needs %.0f GiB "
                 "per GPU.",
                 f->best.mem.total / GIB);
    snprintf(buf, size, "%c%s.%s%s",
             v[0] >= 'a' && v[0] <= 'z' ? (char)(v[0] - 'a' + 'A') : v[0],
             v + 1, other, fit);
}

/* Summary columns: A colour swatch, B family / labels, ... M why. */
enum {
    S_SWATCH,
    S_FAMILY,
    S_STEP,
    S_BOUND,
    S_RATIO,
    S_STEP_O,
    S_BOUND_O,
    S_RATIO_O,
    S_MEM,
    S_FITS,
    S_COUNT,
    S_PLAN,
    S_WHY,
    S_LAST = S_WHY
};
#define S_VALUE S_STEP_O /* key figures: value column */
#define S_NOTE  S_BOUND_O

/* A label / value / note row of the Summary's key figures. */
static void kv(struct xw *x,
               lxw_worksheet *ws,
               size_t row,
               const char *label,
               double v,
               lxw_format *f,
               const char *note)
{
    put_str(x, ws, row, S_FAMILY, label, x->f.label);
    put_num(x, ws, row, S_VALUE, v, f);
    put_str(x, ws, row, S_NOTE, note, x->f.note);
}

static const struct report_validation *published(const struct report *r)
{
    size_t i;
    for (i = 0; i < r->nvalidations; i++)
        if (r->validation[i].current)
            return &r->validation[i];
    return NULL;
}

/* Summary width in characters from S_FAMILY to S_LAST, for wrapping. */
#define S_TEXT_WIDTH 190.0

/* A wrapped paragraph over the Summary's width. */
static void paragraph(struct xw *x,
                      lxw_worksheet *ws,
                      size_t row,
                      const char *text,
                      lxw_format *f,
                      double pt)
{
    put_merged(x, ws, row, S_FAMILY, S_LAST, text, f);
    row_height(x, ws, row, text_height(strlen(text), S_TEXT_WIDTH, pt));
}

static void summary_headline(struct xw *x, lxw_worksheet *ws, size_t *rowp)
{
    const struct report *r = x->r;
    const struct report_family *bf =
        r->nfamilies ? &r->family[r->families_by_step[0]] : NULL;
    const struct cost_result *b = bf ? &bf->best : NULL;
    const struct model *m = r->m;
    char words[400], verdict[400], text[1600], t1[48], t2[48];
    size_t row = *rowp;
    double gpus, gpu_hours;

    put_str(x, ws, row++, S_FAMILY, "Verdict", x->f.h2);
    if (!b) {
        put_str(x, ws, row++, S_FAMILY, "No plan was evaluated.",
                x->f.headline);
        *rowp = row;
        return;
    }
    plan_words(&b->plan, words, sizeof words);
    eval_out_verdict(b, verdict, sizeof verdict);
    gpus = (double)b->plan.gpus;
    gpu_hours = b->t.days * 24 * gpus;
    thousands(b->t.tokens_per_s_per_gpu, t1, sizeof t1);
    thousands(gpu_hours, t2, sizeof t2);
    if (b->fits)
        snprintf(text, sizeof text,
                 "Best plan: %s - %s. It is %s. At the speed of light it "
                 "takes %.2f s per step: %s tokens/s per GPU, MFU %.0f%% of "
                 "the BF16 peak; the %.1fT-token budget takes %.1f days on "
                 "%.0f GPUs (%s GPU-hours, $%.2fM).",
                 bf->name, words, verdict, b->t.step, t1, 100 * b->t.mfu,
                 m->spec.tokens / 1e12, b->t.days, gpus, t2,
                 b->t.cost_usd / 1e6);
    else
        snprintf(text, sizeof text,
                 "No plan fits in %.1f GiB per GPU. The fastest, %s (%s), "
                 "needs %.0f GiB; it is %s.",
                 b->mem.capacity / GIB, bf->name, words, b->mem.total / GIB,
                 verdict);
    paragraph(x, ws, row++, text, x->f.headline, 12);
    row++;

    put_strf(x, ws, row++, S_FAMILY, x->f.h2,
             "Best plan, key figures (%s model)", comm_model_str(r->comm));
    kv(x, ws, row++, "Step time (s)", b->t.step, x->f.sec,
       "pipeline bubble + optimizer step + the busiest of compute, IB, "
       "NVLink, HBM (overlapped)");
    kv(x, ws, row++, "Tokens/s per GPU", b->t.tokens_per_s_per_gpu, x->f.cnt,
       "");
    kv(x, ws, row++, "MFU, of the BF16 peak", b->t.mfu, x->f.pct,
       "model FLOPs / (step x BF16 dense peak), DeepSeek's convention: an "
       "FP8 plan can exceed 100%");
    kv(x, ws, row++,
       b->plan.precision == MODEL_FP8 ? "MFU, of the FP8 peak"
                                      : "MFU, of its own precision's peak",
       b->t.mfu_precision, x->f.pct,
       "against the peak of the plan's own precision");
    {
        char note[160];
        snprintf(note, sizeof note,
                 "the model's budget of %.1fT tokens on %.0f GPUs",
                 m->spec.tokens / 1e12, gpus);
        kv(x, ws, row++, "Days for the token budget", b->t.days, x->f.days,
           note);
    }
    kv(x, ws, row++, "GPU-hours for the budget", gpu_hours, x->f.cnt, "");
    {
        char note[160];
        snprintf(note, sizeof note, "at $%.2f per GPU-hour",
                 r->hw->spec.gpu_hour_usd);
        kv(x, ws, row++, "Cost for the budget", b->t.cost_usd, x->f.usd_m,
           note);
    }
    kv(x, ws, row++, "GPU-hours per 1T tokens", b->t.gpu_hours_per_trillion,
       x->f.cnt, "");
    {
        char note[160];
        snprintf(note, sizeof note,
                 "heaviest pipeline rank, of %.1f GiB per GPU",
                 b->mem.capacity / GIB);
        kv(x, ws, row++, "Memory per GPU (GiB)", b->mem.total / GIB, x->f.gib,
           note);
    }
    *rowp = row + 1;
}

static void summary_families(struct xw *x, lxw_worksheet *ws, size_t *rowp)
{
    const struct report *r = x->r;
    char h[7][64];
    size_t row = *rowp, i, k;
    const char *cm = comm_model_str(r->comm), *co = comm_other_str(r);
    const char *heads[S_LAST + 1] = {"",
                                     "Family",
                                     NULL,
                                     NULL,
                                     NULL,
                                     NULL,
                                     NULL,
                                     NULL,
                                     "Memory (GiB)",
                                     "Fits",
                                     "Fitting / evaluated",
                                     "Best plan",
                                     "Why (plain words)"};

    put_str(x, ws, row++, S_FAMILY,
            "Best plan per family (the fastest that fits, else the "
            "fastest), fastest first",
            x->f.h2);
    snprintf(h[1], sizeof h[1], "Step, %s (s)", cm);
    snprintf(h[2], sizeof h[2], "Bound, %s", cm);
    snprintf(h[3], sizeof h[3], "Comm/ compute, %s", cm);
    snprintf(h[4], sizeof h[4], "Step, %s (s)", co);
    snprintf(h[5], sizeof h[5], "Bound, %s", co);
    snprintf(h[6], sizeof h[6], "Comm/ compute, %s", co);
    for (k = 1; k <= 6; k++)
        heads[S_FAMILY + k] = h[k];
    for (k = S_FAMILY; k <= S_LAST; k++)
        put_str(x, ws, row, k, heads[k], x->f.head);
    row_height(x, ws, row++, 44);
    for (i = 0; i < r->nfamilies; i++) {
        size_t fi = (size_t)r->families_by_step[i];
        const struct report_family *f = &r->family[fi];
        char why[900], plan[256], cnt[80], a[32], b2[32];
        lxw_format *swatch = workbook_add_format(x->wb);
        if (swatch)
            format_set_bg_color(swatch, report_family_color(r, fi));
        family_why(r, f, why, sizeof why);
        plan_short(&f->best.plan, plan, sizeof plan);
        thousands((double)f->fitting, a, sizeof a);
        thousands((double)f->plans, b2, sizeof b2);
        snprintf(cnt, sizeof cnt, "%s / %s", a, b2);
        put_str(x, ws, row, S_SWATCH, "", swatch);
        put_str(x, ws, row, S_FAMILY, f->name, x->f.label);
        put_num(x, ws, row, S_STEP, f->best.t.step, x->f.sec);
        put_str(x, ws, row, S_BOUND, plans_table_bound_label(f->best.t.bound),
                x->f.bound[f->best.t.bound & 3]);
        put_num(x, ws, row, S_RATIO, f->best.t.comm_compute_ratio, x->f.rat);
        put_num(x, ws, row, S_STEP_O, f->best_other.t.step, x->f.sec);
        put_str(x, ws, row, S_BOUND_O,
                plans_table_bound_label(f->best_other.t.bound),
                x->f.bound[f->best_other.t.bound & 3]);
        put_num(x, ws, row, S_RATIO_O, f->best_other.t.comm_compute_ratio,
                x->f.rat);
        put_num(x, ws, row, S_MEM, f->best.mem.total / GIB, x->f.gib);
        put_str(x, ws, row, S_FITS, f->best.fits ? "yes" : "no",
                f->best.fits ? x->f.ok : x->f.bad);
        put_str(x, ws, row, S_COUNT, cnt, x->f.right);
        put_str(x, ws, row, S_PLAN, plan, x->f.small);
        put_str(x, ws, row, S_WHY, why, x->f.small);
        row_height(x, ws, row,
                   fmax(text_height(strlen(why), 64, 9),
                        text_height(strlen(plan), 34, 9)));
        row++;
    }
    put_merged(x, ws, row++, S_FAMILY, S_LAST,
               "Bound: the resource whose time sets the overlapped step. "
               "Comm/compute: the busiest link's time over the compute time "
               "(below 1, communication can hide under compute).",
               x->f.note);
    *rowp = row + 1;
}

static void summary_notes(struct xw *x, lxw_worksheet *ws, size_t *rowp)
{
    const struct report *r = x->r;
    const struct report_validation *v = published(r);
    long z3 = report_family_index(r, "ZeRO-3");
    char a[32], b[32], c[32], d[32], text[1200];
    size_t row = *rowp;
    uint64_t rejected =
        r->enumerated >= r->valid ? r->enumerated - r->valid : 0;

    put_str(x, ws, row++, S_FAMILY, "Notes", x->f.h2);
    if (v) {
        char words[400];
        plan_words(&v->plan, words, sizeof words);
        thousands((double)r->nrows, b, sizeof b);
        if (v->rank > 0)
            snprintf(text, sizeof text,
                     "The published plan (%s: %s) ranks %ld of %s: "
                     "predicted %.3f s per step, %s-bound, %s.",
                     v->name, words, v->rank, b, v->predicted.t.step,
                     plans_table_bound_label(v->predicted.t.bound),
                     v->predicted.fits ? "fits in memory"
                                       : "does not fit in memory");
        else
            snprintf(text, sizeof text,
                     "The published plan (%s: %s) is not among the plans "
                     "kept here; predicted %.3f s per step, %s-bound.",
                     v->name, words, v->predicted.t.step,
                     plans_table_bound_label(v->predicted.t.bound));
        paragraph(x, ws, row++, text, x->f.wrap, 11);
    }
    if (z3 >= 0) {
        const struct report_family *f = &r->family[z3];
        char ib[120], nv[120];
        const struct hardware_spec *s = &r->hw->spec;
        if (f->ib_crossover_gbps < 0)
            snprintf(ib, sizeof ib,
                     "no IB bandwidth would do (latency alone exceeds "
                     "compute)");
        else if (f->ib_crossover_gbps == 0)
            snprintf(ib, sizeof ib, "IB already keeps up");
        else
            snprintf(ib, sizeof ib, "IB at %.0f GB/s per GPU (now %g)",
                     f->ib_crossover_gbps, s->ib_gbps);
        if (f->nv_crossover_gbps < 0)
            snprintf(nv, sizeof nv, "no NVLink bandwidth would do");
        else if (f->nv_crossover_gbps == 0)
            snprintf(nv, sizeof nv, "NVLink already keeps up");
        else
            snprintf(nv, sizeof nv, "NVLink at %.0f GB/s (now %g)",
                     f->nv_crossover_gbps, s->nvlink_gbps);
        snprintf(text, sizeof text,
                 "ZeRO-3 (FSDP) would turn compute-bound with %s and %s; its "
                 "best plan is %s-bound now, comm/compute %.2f (see "
                 "Sensitivity).",
                 ib, nv, plans_table_bound_label(f->best.t.bound),
                 f->best.t.comm_compute_ratio);
        paragraph(x, ws, row++, text, x->f.wrap, 11);
    }
    thousands((double)r->enumerated, a, sizeof a);
    thousands((double)r->valid, b, sizeof b);
    thousands((double)r->fitting, c, sizeof c);
    thousands((double)rejected, d, sizeof d);
    snprintf(text, sizeof text,
             "Sweep: %s combinations, %s valid plans evaluated (%s fit in "
             "memory), %s rejected (see Rejected).",
             a, b, c, d);
    paragraph(x, ws, row++, text, x->f.wrap, 11);
    if (r->dropped > 0) {
        thousands((double)r->dropped, a, sizeof a);
        thousands((double)r->nrows, b, sizeof b);
        snprintf(text, sizeof text,
                 "%s valid plans were left out of Plans, which keeps the "
                 "best %s (Excel's row limit or --top).",
                 a, b);
        paragraph(x, ws, row++, text, x->f.warn, 11);
    }
    paragraph(x, ws, row++,
              x->big ? "Figures on this sheet are as computed by roofplan. "
                       "With this many plans, Plans holds their first 20 "
                       "columns as values (no live formulas) and an "
                       "autofilter; plans.csv (--csv) has every column."
                     : "Figures on this sheet are as computed by roofplan. "
                       "The Plans sheet re-times every plan live when an "
                       "input on Assumptions changes (e.g. IB_GBPS).",
              x->f.note, 11);
    *rowp = row + 1;
}

static void sheet_summary(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    static const double widths[S_LAST + 1] = {2, 24, 9, 8,  8,  9, 8,
                                              8, 8,  5, 11, 34, 64};
    char when[64];
    size_t row = 0, k;

    page_setup(ws, true);
    for (k = 0; k <= S_LAST; k++)
        col_width(x, ws, k, k, widths[k]);
    generated_text(r, when, sizeof when);
    put_strf(x, ws, row++, S_FAMILY, x->f.title,
             "Parallelism plan for %s on %ld x %s", r->m->spec.name,
             r->hw->spec.gpus, r->hw->spec.gpu_name);
    put_strf(x, ws, row++, S_FAMILY, x->f.subtitle,
             "%s; %s communication model (also shown: %s); roofplan %s, %s",
             r->hw->spec.cluster_name, comm_model_str(r->comm),
             comm_other_str(r), r->version, when);
    row++;
    summary_headline(x, ws, &row);
    summary_notes(x, ws, &row);
    summary_families(x, ws, &row);
    if (x->img && x->img->step_breakdown) {
        lxw_image_options io;
        memset(&io, 0, sizeof io);
        io.x_scale = io.y_scale = 0.8;
        io.description = "Step-time breakdown per family";
        put_str(x, ws, row++, S_FAMILY, "Step time per family", x->f.h2);
        chk(x,
            worksheet_insert_image_opt(ws, R(x, row), S_FAMILY,
                                       x->img->step_breakdown, &io),
            "worksheet_insert_image (step breakdown)");
    }
}

/* ---- Memory ---- */

static void memory_row(struct xw *x,
                       lxw_worksheet *ws,
                       size_t row,
                       const char *label,
                       lxw_format *lf,
                       const struct cost_result *c)
{
    char f[160], t[16], cap[16];
    put_str(x, ws, row, 0, label, lf);
    put_num(x, ws, row, 1, c->mem.weights / GIB, x->f.gib);
    put_num(x, ws, row, 2, c->mem.grads / GIB, x->f.gib);
    put_num(x, ws, row, 3, c->mem.optimizer / GIB, x->f.gib);
    put_num(x, ws, row, 4, c->mem.activations / GIB, x->f.gib);
    put_num(x, ws, row, 5, c->mem.logits / GIB, x->f.gib);
    put_num(x, ws, row, 6, c->mem.other / GIB, x->f.gib);
    snprintf(f, sizeof f, "=B%zu+C%zu+D%zu+E%zu+G%zu", row + 1, row + 1,
             row + 1, row + 1, row + 1);
    put_fnum(x, ws, row, 7, f, c->mem.total / GIB, x->f.gib);
    put_fnum(x, ws, row, 8, "=HBM_GIB", c->mem.capacity / GIB, x->f.gib);
    rel_ref(row, 7, t, sizeof t);
    rel_ref(row, 8, cap, sizeof cap);
    snprintf(f, sizeof f, "=%s-%s", cap, t);
    put_fnum(x, ws, row, 9, f, (c->mem.capacity - c->mem.total) / GIB,
             x->f.gib);
    snprintf(f, sizeof f, "=%s<=%s", t, cap);
    put_fstr(x, ws, row, 10, f, c->fits ? "TRUE" : "FALSE", x->f.text);
    put_num(x, ws, row, 11, (double)c->mem.rank, x->f.integer);
}

static const char *dtype_name(int dt)
{
    switch (dt) {
    case MODEL_DT_FP32:
        return "FP32";
    case MODEL_DT_MASK:
        return "mask (1 byte)";
    case MODEL_DT_LIN_IN:
        return "Linear input (FP8-cached)";
    case MODEL_DT_SWIGLU_IN:
        return "SwiGLU input (FP8-cached)";
    case MODEL_DT_ATTN_OUT:
        return "attention output";
    default:
        return "activation dtype";
    }
}

static const char *tag_name(int tag)
{
    static const char *const names[] = {"layer input",
                                        "kept",
                                        "norm output",
                                        "MLA up-projection",
                                        "attention core (s x s)",
                                        "SwiGLU output"};
    return tag >= 0 && tag < MODEL_TAGS ? names[tag] : "?";
}

static void sheet_memory(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    const struct model *m = r->m;
    static const char *const heads[] = {"Plan",
                                        "Weights (GiB)",
                                        "Gradients (GiB)",
                                        "Optimizer state (GiB)",
                                        "Activations (GiB)",
                                        "of which logits (GiB)",
                                        "Other (GiB)",
                                        "Total (GiB)",
                                        "Capacity (GiB)",
                                        "Headroom (GiB)",
                                        "Fits",
                                        "Heaviest PP rank"};
    static const char *const ih[] = {"Tensor",
                                     "Dense layers",
                                     "MoE layers",
                                     "Elements per token",
                                     "Routed (x top-k)",
                                     "Storage",
                                     "Tag",
                                     "Bytes/token BF16",
                                     "Bytes/token FP8",
                                     "BF16 none",
                                     "BF16 selective",
                                     "BF16 full",
                                     "FP8 none",
                                     "FP8 selective",
                                     "FP8 full"};
    lxw_conditional_format cf;
    size_t row = 0, i, k, first;
    int p, rc;

    page_setup(ws, false);
    col_width(x, ws, 0, 0, 46);
    col_width(x, ws, 1, 4, 11);
    col_width(x, ws, 5, 5, 24);
    col_width(x, ws, 6, 6, 18);
    col_width(x, ws, 7, 14, 11);
    put_str(x, ws, row++, 0, "Memory per GPU", x->f.title);
    put_str(x, ws, row++, 0,
            "Heaviest pipeline rank of each family's best plan and of the "
            "published plan; Total, Capacity (=HBM_GIB), Headroom and Fits "
            "are formulas.",
            x->f.note);
    row++;
    for (k = 0; k < 12; k++)
        put_str(x, ws, row, k, heads[k], x->f.head);
    row_height(x, ws, row++, 32);
    first = row;
    for (i = 0; i < r->nvalidations; i++) {
        const struct report_validation *v = &r->validation[i];
        char label[200];
        if (!v->current)
            continue;
        snprintf(label, sizeof label, "Published: %s (%s)", v->name,
                 v->predicted.family);
        memory_row(x, ws, row++, label, x->f.label, &v->predicted);
    }
    for (i = 0; i < r->nfamilies; i++) {
        const struct report_family *f = &r->family[r->families_by_step[i]];
        memory_row(x, ws, row++, f->name, x->f.text, &f->best);
    }
    if (row > first) {
        memset(&cf, 0, sizeof cf);
        cf.type = LXW_CONDITIONAL_TYPE_CELL;
        cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
        cf.value_string = "FALSE";
        cf.format = x->f.cf_red;
        chk(x,
            worksheet_conditional_format_range(ws, R(x, first), 10,
                                               R(x, row - 1), 10, &cf),
            "worksheet_conditional_format_range (memory)");
        memset(&cf, 0, sizeof cf);
        cf.type = LXW_CONDITIONAL_DATA_BAR;
        cf.bar_color = 0x9BC2E6;
        cf.bar_solid = 1;
        chk(x,
            worksheet_conditional_format_range(ws, R(x, first), 7,
                                               R(x, row - 1), 7, &cf),
            "worksheet_conditional_format_range (memory bar)");
    }
    row += 2;

    put_strf(x, ws, row++, 0, x->f.h2,
             "Activation inventory of %s: what one layer saves for backward, "
             "per token",
             m->spec.name);
    put_str(x, ws, row++, 0,
            "Kept or recomputed under each precision and recompute policy "
            "(selective drops the tags listed in the model file's "
            "training.selective).",
            x->f.note);
    for (k = 0; k < 15; k++)
        put_str(x, ws, row, k, ih[k], x->f.head);
    row_height(x, ws, row++, 32);
    first = row;
    for (i = 0; i < m->tensors; i++) {
        const struct model_tensor *t = &m->tensor[i];
        put_str(x, ws, row, 0, t->name ? t->name : "?", x->f.text);
        put_str(x, ws, row, 1, t->in_dense ? "yes" : "-", x->f.text);
        put_str(x, ws, row, 2, t->in_moe ? "yes" : "-", x->f.text);
        put_num(x, ws, row, 3, t->elems, x->f.cnt);
        put_str(x, ws, row, 4, t->routed ? "yes" : "-", x->f.text);
        put_str(x, ws, row, 5, dtype_name(t->dtype), x->f.text);
        put_str(x, ws, row, 6, tag_name(t->tag), x->f.text);
        put_num(x, ws, row, 7, model_tensor_bytes(m, t, MODEL_BF16), x->f.cnt);
        put_num(x, ws, row, 8, model_tensor_bytes(m, t, MODEL_FP8), x->f.cnt);
        k = 9;
        for (p = 0; p < MODEL_PRECISIONS; p++)
            for (rc = 0; rc < MODEL_RECOMPUTES; rc++)
                put_str(x, ws, row, k++,
                        model_tensor_kept(m, t, p, rc) ? "kept" : "recomputed",
                        x->f.text);
        row++;
    }
    if (row > first) {
        memset(&cf, 0, sizeof cf);
        cf.type = LXW_CONDITIONAL_TYPE_CELL;
        cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
        cf.value_string = "\"recomputed\"";
        cf.format = x->f.cf_dropped;
        chk(x,
            worksheet_conditional_format_range(ws, R(x, first), 9,
                                               R(x, row - 1), 14, &cf),
            "worksheet_conditional_format_range (inventory)");
        cf.value_string = "\"kept\"";
        cf.format = x->f.cf_kept;
        chk(x,
            worksheet_conditional_format_range(ws, R(x, first), 9,
                                               R(x, row - 1), 14, &cf),
            "worksheet_conditional_format_range (inventory)");
    }
    {
        static const char *const kinds[] = {"Saved bytes/token, dense layer",
                                            "Saved bytes/token, MoE layer",
                                            "Saved bytes/token, MTP module"};
        int kind;
        for (kind = 0; kind < 3; kind++) {
            if (kind == MODEL_LAYER_MOE && m->spec.routed_experts == 0)
                continue;
            if (kind == MODEL_LAYER_MTP && m->spec.mtp_depth == 0)
                continue;
            put_str(x, ws, row, 0, kinds[kind], x->f.bold);
            k = 9;
            for (p = 0; p < MODEL_PRECISIONS; p++)
                for (rc = 0; rc < MODEL_RECOMPUTES; rc++)
                    put_num(x, ws, row, k++, m->layer[kind].act_bytes[p][rc],
                            x->f.cnt);
            row++;
        }
    }
}

/* ---- Communication ---- */

static void comm_rows(struct xw *x,
                      lxw_worksheet *ws,
                      size_t *rowp,
                      const char *name,
                      const char *model,
                      const struct comm_collective *c,
                      size_t n)
{
    const struct hardware *hw = x->r->hw;
    size_t row = *rowp, i;
    for (i = 0; i < n; i++) {
        char fm[200], ib[16], nv[16], calls[16];
        double ibs = c[i].ib_bytes / hw->ib_bps +
                     (c[i].ib_bytes > 0 ? c[i].calls * hw->ib_latency_s : 0);
        double nvs =
            c[i].nvlink_bytes / hw->nvlink_bps +
            (c[i].nvlink_bytes > 0 ? c[i].calls * hw->nvlink_latency_s : 0);
        put_str(x, ws, row, 0, name, x->f.text);
        put_str(x, ws, row, 1, model, x->f.text);
        put_str(x, ws, row, 2, c[i].name ? c[i].name : "?", x->f.text);
        put_str(x, ws, row, 3, comm_kind_str(c[i].kind), x->f.text);
        put_num(x, ws, row, 4, (double)c[i].span.size, x->f.cnt);
        put_num(x, ws, row, 5, (double)c[i].span.per_node, x->f.cnt);
        put_num(x, ws, row, 6, (double)c[i].span.nodes, x->f.cnt);
        put_num(x, ws, row, 7, c[i].calls, x->f.cnt);
        put_num(x, ws, row, 8, c[i].bytes / 1e9, x->f.big);
        put_num(x, ws, row, 9, c[i].ib_bytes / 1e9, x->f.big);
        put_num(x, ws, row, 10, c[i].nvlink_bytes / 1e9, x->f.big);
        rel_ref(row, 9, ib, sizeof ib);
        rel_ref(row, 10, nv, sizeof nv);
        rel_ref(row, 7, calls, sizeof calls);
        snprintf(fm, sizeof fm, "=%s/IB_GBPS+IF(%s>0,%s*IB_LATENCY_US*1E-06,0)",
                 ib, ib, calls);
        put_fnum(x, ws, row, 11, fm, ibs, x->f.sec);
        snprintf(fm, sizeof fm,
                 "=%s/NVLINK_GBPS+IF(%s>0,%s*NVLINK_LATENCY_US*1E-06,0)", nv,
                 nv, calls);
        put_fnum(x, ws, row, 12, fm, nvs, x->f.sec);
        row++;
    }
    *rowp = row;
}

static void sheet_comm(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    static const char *const heads[] = {
        "Family",         "Comm model",    "Collective",  "Kind",
        "Group (GPUs)",   "GPUs per node", "Nodes",       "Calls per step",
        "Volume (GB)",    "IB (GB)",       "NVLink (GB)", "IB time (s)",
        "NVLink time (s)"};
    lxw_table_column tc[13], *tcp[14];
    size_t row = 3, i, k, first = 3;

    page_setup(ws, false);
    col_width(x, ws, 0, 0, 17);
    col_width(x, ws, 1, 1, 8);
    col_width(x, ws, 2, 2, 44);
    col_width(x, ws, 3, 3, 14);
    col_width(x, ws, 4, 12, 10);
    put_str(x, ws, 0, 0,
            "Communication of each family's best plan and of the published "
            "plan",
            x->f.title);
    put_strf(x, ws, 1, 0, x->f.note,
             "Critical pipeline rank, per GPU per step, under both models "
             "(%s is this report's); times are formulas over IB_GBPS, "
             "NVLINK_GBPS and the latencies. Links overlap: the plan's IB "
             "(NVLink) time is the sum of its IB (NVLink) column.",
             comm_model_str(r->comm));
    /* Header first (rows go out in ascending order); the table, when
     * there is one, writes the same header again. */
    for (k = 0; k < 13; k++)
        put_str(x, ws, first - 1, k, heads[k],
                k >= 11 ? x->f.head_live : x->f.head);
    row_height(x, ws, first - 1, 32);
    for (i = 0; i < r->nfamilies; i++) {
        const struct report_family *f = &r->family[r->families_by_step[i]];
        comm_rows(x, ws, &row, f->name, comm_model_str(r->comm), f->coll,
                  f->ncoll);
        comm_rows(x, ws, &row, f->name, comm_other_str(r), f->coll_other,
                  f->ncoll_other);
    }
    for (i = 0; i < r->nvalidations; i++) { /* the published plan's */
        const struct report_validation *v = &r->validation[i];
        if (!v->current)
            continue;
        comm_rows(x, ws, &row, "published plan", comm_model_str(r->comm),
                  v->coll, v->ncoll);
        comm_rows(x, ws, &row, "published plan", comm_other_str(r),
                  v->coll_other, v->ncoll_other);
    }
    if (row > first && !x->big) {
        lxw_table_options opt;
        memset(tc, 0, sizeof tc);
        for (k = 0; k < 13; k++) {
            tc[k].header = (char *)heads[k];
            tc[k].header_format = k >= 11 ? x->f.head_live : x->f.head;
            tcp[k] = &tc[k];
        }
        tcp[13] = NULL;
        memset(&opt, 0, sizeof opt);
        opt.name = "Collectives";
        opt.style_type = LXW_TABLE_STYLE_TYPE_LIGHT;
        opt.style_type_number = 1;
        opt.columns = tcp;
        chk(x,
            worksheet_add_table(ws, R(x, first - 1), 0, R(x, row - 1), 12,
                                &opt),
            "worksheet_add_table (Collectives)");
    }
    worksheet_freeze_panes(ws, R(x, first), 0);
    chk(x, worksheet_repeat_rows(ws, R(x, first - 1), R(x, first - 1)),
        "worksheet_repeat_rows");
}

/* ---- Roofline ---- */

/* Series of the roofline: families with their own colour, then "other". */
struct roof_series {
    long family[ROOF_SERIES_MAX]; /* family index */
    size_t n;
};

static long series_of(const struct roof_series *s, long family)
{
    size_t i;
    for (i = 0; i < s->n; i++)
        if (s->family[i] == family)
            return (long)i;
    return (long)s->n; /* "other families" */
}

/* One roofline chart over a link; points in rows [first, last] of the
 * data block, roof rows at roof_row. */
struct roof_chart {
    const char *link;    /* "IB", "NVLink" */
    const char *bw_name; /* IB_GBPS */
    size_t x_col;        /* intensity column of the point table */
    double x_lo, x_hi, y_lo, y_hi;
};

static void roof_axes(struct xw *x, lxw_chart *ch, const struct roof_chart *c)
{
    char title[160];
    lxw_chart_font tf;
    (void)x;
    snprintf(title, sizeof title,
             "Roofline over %s: attained vs operational intensity", c->link);
    chart_title_set_name(ch, title);
    memset(&tf, 0, sizeof tf);
    tf.size = 12;
    tf.bold = 1;
    chart_title_set_name_font(ch, &tf);
    snprintf(title, sizeof title,
             "operational intensity over %s (FLOP per byte, per GPU per "
             "step)",
             c->link);
    chart_axis_set_name(ch->x_axis, title);
    chart_axis_set_name(ch->y_axis,
                        "attained TFLOP/s per GPU (executed FLOPs / step)");
    chart_axis_set_log_base(ch->x_axis, 10);
    chart_axis_set_log_base(ch->y_axis, 10);
    chart_axis_set_min(ch->x_axis, c->x_lo);
    chart_axis_set_max(ch->x_axis, c->x_hi);
    chart_axis_set_min(ch->y_axis, c->y_lo);
    chart_axis_set_max(ch->y_axis, c->y_hi);
    chart_axis_set_num_format(ch->x_axis, "#,##0");
    chart_axis_set_num_format(ch->y_axis, "#,##0");
    chart_axis_set_crossing_min(ch->x_axis);
    chart_axis_set_crossing_min(ch->y_axis);
    chart_legend_set_position(ch, LXW_CHART_LEGEND_RIGHT);
}

/* Rows of the roofline's point table, series by series (each series one
 * block of rows); with write false only measures: the x ranges (lo, hi
 * per link), the lowest y and each block's rows. */
static void roof_points(struct xw *x,
                        lxw_worksheet *ws,
                        const struct roof_series *s,
                        const size_t *pick,
                        size_t npick,
                        size_t first_row,
                        bool write,
                        double lo[2],
                        double hi[2],
                        double *ylo,
                        size_t *block_first,
                        size_t *block_last,
                        bool *block_any)
{
    const struct report *r = x->r;
    size_t row = first_row, i, k;
    for (k = 0; k <= s->n; k++) {
        block_any[k] = false;
        block_first[k] = row;
        for (i = 0; i < npick; i++) {
            const struct report_row *rw = &r->rows[pick[i]];
            const struct cost_work *w = &rw->work;
            struct cost_times t;
            double flops = w->fp8_flops + w->bf16_flops, y;
            char plan[256];
            if ((size_t)series_of(s, rw->family) != k)
                continue;
            report_row_times(r, rw, &t);
            /* executed FLOPs on both axes, as the gnuplot rooflines:
             * attainable = min(roof, intensity x bandwidth) holds */
            y = flops / t.step / 1e12;
            if (w->ib_bytes > 0) {
                lo[0] = fmin(lo[0], flops / w->ib_bytes);
                hi[0] = fmax(hi[0], flops / w->ib_bytes);
            }
            if (w->nvlink_bytes > 0) {
                lo[1] = fmin(lo[1], flops / w->nvlink_bytes);
                hi[1] = fmax(hi[1], flops / w->nvlink_bytes);
            }
            *ylo = fmin(*ylo, y);
            block_any[k] = true;
            if (!write) {
                row++;
                continue;
            }
            put_str(x, ws, row, 0, r->family[rw->family].name, x->f.text);
            put_num(x, ws, row, 1, (double)pick[i] + 1, x->f.integer);
            if (w->ib_bytes > 0)
                put_num(x, ws, row, 2, flops / w->ib_bytes, x->f.cnt);
            if (w->nvlink_bytes > 0)
                put_num(x, ws, row, 3, flops / w->nvlink_bytes, x->f.cnt);
            put_num(x, ws, row, 4, y, x->f.big);
            put_str(x, ws, row, 5, plans_table_bound_label(t.bound),
                    x->f.bound[t.bound & 3]);
            plan_format(&rw->plan, plan, sizeof plan);
            put_str(x, ws, row, 6, plan, x->f.text);
            row++;
        }
        block_last[k] = row - 1;
    }
}

static void sheet_roofline(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    const struct hardware *hw = r->hw;
    struct roof_series s;
    size_t *pick = NULL, npick = 0, i, k, row;
    size_t per_family[REPORT_FAMILIES_MAX] = {0};
    size_t block_first[ROOF_SERIES_MAX + 1], block_last[ROOF_SERIES_MAX + 1];
    bool block_any[ROOF_SERIES_MAX + 1];
    struct roof_chart rc[2];
    double lo[2] = {INFINITY, INFINITY}, hi[2] = {0, 0};
    double ylo = INFINITY;
    long z3 = report_family_index(r, "ZeRO-3");
    /* Layout: the two charts stacked (rows 3-47, printed on one portrait
     * page), the roofs' formula table below them, then the points. */
    const size_t data_row = 68, roof_row0 = 52;
    static const char *const heads[] = {"Family",
                                        "Rank",
                                        "IB intensity (FLOP/B)",
                                        "NVLink intensity (FLOP/B)",
                                        "Attained (TFLOP/s)",
                                        "Bound",
                                        "Plan (roofplan eval syntax)"};

    page_setup(ws, true);
    worksheet_set_portrait(ws);
    col_width(x, ws, 0, 0, 24);
    col_width(x, ws, 1, 5, 15);
    col_width(x, ws, 6, 6, 100);
    put_str(x, ws, 0, 0,
            "Roofline: which link keeps each plan from the "
            "compute roof",
            x->f.title);
    put_merged(x, ws, 1, 0, 5,
               "x = (FP8 + BF16 FLOPs) / bytes over the link, per GPU per "
               "step; y = the same FLOPs / step time. Roofs are formulas over "
               "Assumptions (change IB_GBPS and they move); the points are "
               "the best few plans of each family.",
               x->f.note_wrap);
    row_height(x, ws, 1, 30);

    /* Series: the fastest families, ZeRO-3 always, then "other". */
    s.n = 0;
    for (i = 0; i < r->nfamilies && s.n < ROOF_SERIES_MAX - 1; i++)
        s.family[s.n++] = r->families_by_step[i];
    if (z3 >= 0 && series_of(&s, z3) == (long)s.n)
        s.family[s.n++] = z3;

    pick = calloc(r->nfamilies * ROOF_PER_FAMILY + 1, sizeof *pick);
    if (!pick) {
        chk(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "Roofline points");
        return;
    }
    /* rows are ranked (fitting first): the first few of each family */
    for (i = 0; i < r->nrows; i++) {
        int fam = r->rows[i].family;
        if (fam < 0 || (size_t)fam >= REPORT_FAMILIES_MAX ||
            per_family[fam] >= ROOF_PER_FAMILY)
            continue;
        per_family[fam]++;
        pick[npick++] = i;
    }

    /* The point table, grouped by series so each is one block: measured
     * first (the roofs' ranges come from it), written after the roofs so
     * rows go out in ascending order. */
    roof_points(x, ws, &s, pick, npick, data_row, false, lo, hi, &ylo,
                block_first, block_last, block_any);
    /* Axis ranges: whole decades around the points and the ridges. */
    {
        double ridge[2] = {hw->fp8_flops > 0 ? hw->fp8_flops / hw->ib_bps
                                             : hw->bf16_flops / hw->ib_bps,
                           hw->fp8_flops > 0 ? hw->fp8_flops / hw->nvlink_bps
                                             : hw->bf16_flops / hw->nvlink_bps};
        double top = fmax(hw->fp8_peak_flops, hw->bf16_peak_flops) / 1e12;
        for (k = 0; k < 2; k++) {
            double a = fmin(isfinite(lo[k]) ? lo[k] : ridge[k], ridge[k] / 10);
            double b = fmax(hi[k] > 0 ? hi[k] : ridge[k], ridge[k] * 10);
            rc[k].x_lo = pow(10, floor(log10(a)));
            rc[k].x_hi = pow(10, ceil(log10(b)));
            rc[k].y_hi = pow(10, ceil(log10(top * 1.05)));
            rc[k].y_lo = pow(
                10,
                floor(log10(fmin(
                    isfinite(ylo) ? ylo : 1,
                    rc[k].x_lo * (k ? hw->nvlink_bps : hw->ib_bps) / 1e12))));
            if (rc[k].y_lo < rc[k].y_hi / 1e4)
                rc[k].y_lo = rc[k].y_hi / 1e4;
        }
        rc[0].link = "IB";
        rc[0].bw_name = "IB_GBPS";
        rc[0].x_col = 2;
        rc[1].link = "NVLink";
        rc[1].bw_name = "NVLINK_GBPS";
        rc[1].x_col = 3;
    }

    /* Roof table: per link, achievable BF16 and FP8 roofs (3 points:
     * the left edge on the link's slope, the ridge, the right edge) and
     * the spec peaks (flat). x and y are formulas. */
    put_str(x, ws, roof_row0 - 2, 0, "Roofs (formulas over Assumptions)",
            x->f.h2);
    {
        static const char *const rh[] = {"Roof", "Point", "x (FLOP/B)",
                                         "y (TFLOP/s)"};
        for (k = 0; k < 4; k++)
            put_str(x, ws, roof_row0 - 1, k, rh[k], x->f.head);
    }
    {
        lxw_chart *ch[2];
        size_t l;
        row = roof_row0;
        for (l = 0; l < 2; l++) {
            static const char *const roofs[2] = {"BF16_TFLOPS_USED",
                                                 "FP8_TFLOPS_USED"};
            const double roof_v[2] = {hw->bf16_flops / 1e12,
                                      hw->fp8_flops / 1e12};
            double bw = (l ? hw->nvlink_bps : hw->ib_bps) / 1e9;
            lxw_chart_series *se;
            size_t q;
            (void)row;
            ch[l] = workbook_add_chart(x->wb, LXW_CHART_SCATTER);
            if (!ch[l]) {
                chk(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "workbook_add_chart");
                goto done;
            }
            /* plan series */
            for (k = 0; k <= s.n; k++) {
                char xs[96], ys[96];
                lxw_chart_fill fill;
                lxw_chart_line line;
                uint32_t color =
                    k < s.n ? report_family_color(r, (size_t)s.family[k])
                            : 0xB0B0B0;
                if (!block_any[k])
                    continue;
                snprintf(xs, sizeof xs, "=%s!$%c$%zu:$%c$%zu", SH_ROOFLINE,
                         (char)('A' + rc[l].x_col), block_first[k] + 1,
                         (char)('A' + rc[l].x_col), block_last[k] + 1);
                snprintf(ys, sizeof ys, "=%s!$E$%zu:$E$%zu", SH_ROOFLINE,
                         block_first[k] + 1, block_last[k] + 1);
                se = chart_add_series(ch[l], xs, ys);
                if (!se) {
                    chk(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "chart_add_series");
                    goto done;
                }
                chart_series_set_name(se, k < s.n ? r->family[s.family[k]].name
                                                  : "other families");
                chart_series_set_marker_type(se, LXW_CHART_MARKER_CIRCLE);
                chart_series_set_marker_size(se, 5);
                memset(&fill, 0, sizeof fill);
                fill.color = color;
                chart_series_set_marker_fill(se, &fill);
                memset(&line, 0, sizeof line);
                line.color = color;
                chart_series_set_marker_line(se, &line);
            }
            /* roofs */
            for (q = 0; q < 2; q++) {
                char xs[96], ys[96], f1[200], name[64];
                size_t r0 = roof_row0 + l * 6 + q * 3;
                lxw_chart_line line;
                if (q == 1 && hw->fp8_flops <= 0)
                    continue;
                snprintf(name, sizeof name, "%s achievable over %s",
                         q ? "FP8" : "BF16", rc[l].link);
                put_str(x, ws, r0, 0, name, x->f.text);
                put_str(x, ws, r0, 1, "left edge", x->f.text);
                put_num(x, ws, r0, 2, rc[l].x_lo, x->f.cnt);
                snprintf(f1, sizeof f1, "=MIN(%s,C%zu*%s/1000)", roofs[q],
                         r0 + 1, rc[l].bw_name);
                put_fnum(x, ws, r0, 3, f1,
                         fmin(roof_v[q], rc[l].x_lo * bw / 1000), x->f.big);
                put_str(x, ws, r0 + 1, 0, name, x->f.text);
                put_str(x, ws, r0 + 1, 1, "ridge", x->f.text);
                snprintf(f1, sizeof f1, "=MIN(MAX(%s*1000/%s,C%zu),C%zu)",
                         roofs[q], rc[l].bw_name, r0 + 1, r0 + 3);
                put_fnum(
                    x, ws, r0 + 1, 2, f1,
                    fmin(fmax(roof_v[q] * 1000 / bw, rc[l].x_lo), rc[l].x_hi),
                    x->f.cnt);
                snprintf(f1, sizeof f1, "=MIN(%s,C%zu*%s/1000)", roofs[q],
                         r0 + 2, rc[l].bw_name);
                put_fnum(x, ws, r0 + 1, 3, f1,
                         fmin(roof_v[q],
                              fmin(fmax(roof_v[q] * 1000 / bw, rc[l].x_lo),
                                   rc[l].x_hi) *
                                  bw / 1000),
                         x->f.big);
                put_str(x, ws, r0 + 2, 0, name, x->f.text);
                put_str(x, ws, r0 + 2, 1, "right edge", x->f.text);
                put_num(x, ws, r0 + 2, 2, rc[l].x_hi, x->f.cnt);
                snprintf(f1, sizeof f1, "=MIN(%s,C%zu*%s/1000)", roofs[q],
                         r0 + 3, rc[l].bw_name);
                put_fnum(x, ws, r0 + 2, 3, f1,
                         fmin(roof_v[q], rc[l].x_hi * bw / 1000), x->f.big);
                snprintf(xs, sizeof xs, "=%s!$C$%zu:$C$%zu", SH_ROOFLINE,
                         r0 + 1, r0 + 3);
                snprintf(ys, sizeof ys, "=%s!$D$%zu:$D$%zu", SH_ROOFLINE,
                         r0 + 1, r0 + 3);
                se = chart_add_series(ch[l], xs, ys);
                if (!se) {
                    chk(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "chart_add_series");
                    goto done;
                }
                chart_series_set_name(se, name);
                chart_series_set_marker_type(se, LXW_CHART_MARKER_NONE);
                memset(&line, 0, sizeof line);
                line.color = q ? LXW_COLOR_BLACK : 0x595959;
                line.width = 2.25;
                if (!q)
                    line.dash_type = LXW_CHART_LINE_DASH_DASH;
                chart_series_set_line(se, &line);
            }
            roof_axes(x, ch[l], &rc[l]);
            {
                lxw_chart_options co;
                memset(&co, 0, sizeof co);
                co.x_scale = 1.45;
                co.y_scale = 1.45;
                co.description =
                    l ? "Roofline over NVLink" : "Roofline over IB";
                chk(x,
                    worksheet_insert_chart_opt(ws, l ? 26 : 3, 0, ch[l], &co),
                    "worksheet_insert_chart");
            }
        }
        (void)row;
    }
    put_str(x, ws, data_row - 2, 0, "Plans on the charts (values)", x->f.h2);
    for (k = 0; k < 7; k++)
        put_str(x, ws, data_row - 1, k, heads[k], x->f.head);
    roof_points(x, ws, &s, pick, npick, data_row, true, lo, hi, &ylo,
                block_first, block_last, block_any);
    if (x->img && (x->img->roofline_ib || x->img->roofline_nvlink)) {
        const char *png[2] = {x->img->roofline_ib, x->img->roofline_nvlink};
        size_t l;
        for (l = 0; l < 2; l++) {
            lxw_image_options io;
            if (!png[l])
                continue;
            memset(&io, 0, sizeof io);
            io.x_scale = io.y_scale = 0.6;
            io.description = l ? "Roofline over NVLink (gnuplot)"
                               : "Roofline over IB (gnuplot)";
            chk(x, worksheet_insert_image_opt(ws, l ? 26 : 3, 7, png[l], &io),
                "worksheet_insert_image (roofline)");
        }
    }
    chk(x, worksheet_print_area(ws, 0, 0, 48, 5), "worksheet_print_area");
done:
    free(pick);
}

/* ---- Sensitivity ---- */

static void sens_table(struct xw *x,
                       lxw_worksheet *ws,
                       size_t *rowp,
                       const char *title,
                       const double *gbps,
                       size_t n,
                       double now,
                       bool nv)
{
    const struct report *r = x->r;
    size_t row = *rowp, i, k, skipped = 0;
    put_str(x, ws, row++, 0, title, x->f.h2);
    put_str(x, ws, row, 0, "Family  \\  GB/s per GPU", x->f.head_left);
    for (k = 0; k < n; k++) {
        char h[32];
        snprintf(h, sizeof h, "%g%s", gbps[k],
                 fabs(gbps[k] - now) < 1e-9 ? " (now)" : "");
        put_str(x, ws, row, k + 1, h, x->f.head);
    }
    row++;
    for (i = 0; i < r->nfamilies; i++) {
        const struct report_family *f = &r->family[r->families_by_step[i]];
        if (f->fitting == 0) {
            skipped++;
            continue;
        }
        put_str(x, ws, row, 0, f->name, x->f.bold);
        for (k = 0; k < n; k++) {
            double step = nv ? f->sens_nv_step[k] : f->sens_ib_step[k];
            int b = nv ? f->sens_nv_bound[k] : f->sens_ib_bound[k];
            if (step > 0)
                put_num(x, ws, row, k + 1, step, x->f.sens[b & 3]);
            else
                put_str(x, ws, row, k + 1, "no fit", x->f.note);
        }
        row++;
    }
    if (skipped > 0)
        put_strf(x, ws, row++, 0, x->f.note,
                 "%zu families without a plan that fits are left out (see "
                 "the crossover table below).",
                 skipped);
    *rowp = row + 1;
}

static void sheet_sens(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    size_t row = 0, i, b;
    static const char *const bn[4] = {"compute-bound", "IB-bound",
                                      "NVLink-bound", "HBM-bound"};

    page_setup(ws, true);
    col_width(x, ws, 0, 0, 24);
    col_width(x, ws, 1, 12, 10);
    put_str(x, ws, row++, 0, "Sensitivity to link bandwidth", x->f.title);
    put_str(x, ws, row++, 0,
            "Step time (s) of each family's best fitting plan if the link "
            "were this fast, everything else as in Assumptions; the colour "
            "names the bound.",
            x->f.note);
    for (b = 0; b < 4; b++)
        put_merged(x, ws, row, 1 + 2 * b, 2 + 2 * b, bn[b], x->f.bound[b]);
    row += 2;
    sens_table(x, ws, &row, "InfiniBand (per GPU per direction)",
               r->sens_ib_gbps, REPORT_SENS_IB, r->hw->spec.ib_gbps, false);
    sens_table(x, ws, &row, "NVLink (per GPU per direction)", r->sens_nv_gbps,
               REPORT_SENS_NV, r->hw->spec.nvlink_gbps, true);

    put_str(x, ws, row++, 0,
            "Crossover: bandwidth at which the best plan "
            "turns compute-bound",
            x->f.h2);
    put_str(x, ws, row, 0, "Family", x->f.head_left);
    put_str(x, ws, row, 1, "IB (GB/s)", x->f.head);
    put_str(x, ws, row, 2, "NVLink (GB/s)", x->f.head);
    row_height(x, ws, row, 32);
    row++;
    for (i = 0; i < r->nfamilies; i++) {
        const struct report_family *f = &r->family[r->families_by_step[i]];
        const double v[2] = {f->ib_crossover_gbps, f->nv_crossover_gbps};
        size_t k;
        put_str(x, ws, row, 0, f->name,
                strcmp(f->name, "ZeRO-3") == 0 ? x->f.red_label : x->f.bold);
        for (k = 0; k < 2; k++) {
            if (v[k] < 0)
                put_str(x, ws, row, 1 + k, "never", x->f.right);
            else if (v[k] == 0)
                put_str(x, ws, row, 1 + k, "already", x->f.right);
            else
                put_num(x, ws, row, 1 + k, v[k], x->f.gbps);
        }
        row++;
    }
    put_str(x, ws, row++, 0,
            "\"already\": the link's time is at or below compute now; "
            "\"never\": its per-call latency alone exceeds the compute "
            "time.",
            x->f.note);
}

/* ---- Rejected ---- */

static void sheet_rejected(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    static const char *const heads[] = {"Reason", "Combinations", "Share",
                                        "Examples (plan: why)"};
    uint64_t total = 0;
    size_t row = 0, k;
    int i;

    page_setup(ws, false);
    col_width(x, ws, 0, 0, 44);
    col_width(x, ws, 1, 2, 13);
    col_width(x, ws, 3, 3, 110);
    put_str(x, ws, row++, 0, "Rejected combinations", x->f.title);
    put_str(x, ws, row++, 0,
            "Each combination of the sweep's [space] lists either runs or is "
            "rejected for the first reason it fails.",
            x->f.note);
    row++;
    for (k = 0; k < 4; k++)
        put_str(x, ws, row, k, heads[k], x->f.head);
    row++;
    for (i = 1; i < PLAN_REASONS; i++)
        total += r->rejected[i];
    for (i = 1; i < PLAN_REASONS; i++) {
        if (r->rejected[i] == 0)
            continue;
        put_str(x, ws, row, 0, plan_reason_str((enum plan_reason)i), x->f.text);
        put_num(x, ws, row, 1, (double)r->rejected[i], x->f.cnt);
        put_num(x, ws, row, 2,
                r->enumerated ? (double)r->rejected[i] / (double)r->enumerated
                              : 0,
                x->f.pct);
        {
            char ex[REPORT_EXAMPLES * 330];
            size_t used = 0;
            double h = 0;
            ex[0] = '\0';
            for (k = 0; k < r->nexamples[i] && k < REPORT_EXAMPLES; k++) {
                int w = snprintf(ex + used, sizeof ex - used, "%s%s",
                                 k ? "\n" : "", r->examples[i][k]);
                if (w > 0 && (size_t)w < sizeof ex - used)
                    used += (size_t)w;
                h += text_height(strlen(r->examples[i][k]), 110, 9) - 3;
            }
            put_str(x, ws, row, 3, ex, x->f.small);
            row_height(x, ws, row, h + 3);
        }
        row++;
    }
    put_str(x, ws, row, 0, "Total rejected", x->f.bold);
    put_num(x, ws, row, 1, (double)total, x->f.cnt);
    put_num(x, ws, row++, 2,
            r->enumerated ? (double)total / (double)r->enumerated : 0,
            x->f.pct);
    put_str(x, ws, row, 0, "Valid (evaluated)", x->f.bold);
    put_num(x, ws, row, 1, (double)r->valid, x->f.cnt);
    put_num(x, ws, row++, 2,
            r->enumerated ? (double)r->valid / (double)r->enumerated : 0,
            x->f.pct);
    put_str(x, ws, row, 0, "Enumerated", x->f.bold);
    put_num(x, ws, row++, 1, (double)r->enumerated, x->f.cnt);
}

/* ---- Validation ---- */

/* Measured value or "n/a" when the run did not publish it (0). */
static void measured(struct xw *x,
                     lxw_worksheet *ws,
                     size_t row,
                     size_t col,
                     double v,
                     lxw_format *f)
{
    if (v > 0)
        put_num(x, ws, row, col, v, f);
    else
        put_str(x, ws, row, col, "n/a", x->f.na);
}

static void sheet_validation(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    static const char *const heads[] = {"Run",
                                        "GPUs",
                                        "Measured step (s)",
                                        "Predicted step (s)",
                                        "Measured / predicted",
                                        "Measured TFLOP/s per GPU",
                                        "Predicted TFLOP/s per GPU",
                                        "Measured MFU",
                                        "Predicted MFU",
                                        "Measured GPU-h per 1T tokens",
                                        "Predicted GPU-h per 1T tokens",
                                        "Not slower than reality",
                                        "Predicted bound",
                                        "Fits",
                                        "Rank here"};
    enum { NH = sizeof heads / sizeof heads[0] };
    size_t row = 0, i, k;

    page_setup(ws, false);
    col_width(x, ws, 0, 0, 34);
    col_width(x, ws, 1, NH - 1, 10);
    put_str(x, ws, row++, 0, "Validation against published measured runs",
            x->f.title);
    put_str(x, ws, row++, 0,
            "A speed-of-light prediction must not be slower than a real run: "
            "measured / predicted step >= 1 (or predicted TFLOP/s and MFU at "
            "or above the measured ones). MFU is against the BF16 peak.",
            x->f.note);
    row++;
    for (k = 0; k < NH; k++)
        put_str(x, ws, row, k, heads[k], x->f.head);
    row_height(x, ws, row++, 46);
    worksheet_freeze_panes(ws, R(x, row), 1);
    if (r->nvalidations == 0)
        put_str(x, ws, row++, 0, "No validation runs (data/validation).",
                x->f.note);
    for (i = 0; i < r->nvalidations; i++) {
        const struct report_validation *v = &r->validation[i];
        const struct cost_result *p = &v->predicted;
        double tflops = p->work.model_flops / p->t.step / 1e12;
        bool ok;
        char plan[256], text[800];
        if (v->measured_step_s > 0)
            ok = p->t.step <= v->measured_step_s;
        else if (v->measured_tflops_per_gpu > 0)
            ok = tflops >= v->measured_tflops_per_gpu;
        else if (v->measured_mfu > 0)
            ok = p->t.mfu >= v->measured_mfu;
        else
            ok = v->measured_gpu_hours_per_trillion <= 0 ||
                 p->t.gpu_hours_per_trillion <=
                     v->measured_gpu_hours_per_trillion;
        put_str(x, ws, row, 0, v->name, x->f.label_wrap);
        put_num(x, ws, row, 1, (double)v->plan.gpus, x->f.cnt);
        measured(x, ws, row, 2, v->measured_step_s, x->f.sec);
        put_num(x, ws, row, 3, p->t.step, x->f.sec);
        if (v->measured_step_s > 0)
            put_num(x, ws, row, 4, v->measured_step_s / p->t.step, x->f.rat);
        else
            put_str(x, ws, row, 4, "n/a", x->f.na);
        measured(x, ws, row, 5, v->measured_tflops_per_gpu, x->f.cnt);
        put_num(x, ws, row, 6, tflops, x->f.cnt);
        measured(x, ws, row, 7, v->measured_mfu, x->f.pct);
        put_num(x, ws, row, 8, p->t.mfu, x->f.pct);
        measured(x, ws, row, 9, v->measured_gpu_hours_per_trillion, x->f.cnt);
        put_num(x, ws, row, 10, p->t.gpu_hours_per_trillion, x->f.cnt);
        put_str(x, ws, row, 11, ok ? "\xE2\x9C\x93" : "\xE2\x9C\x97",
                ok ? x->f.ok : x->f.bad);
        put_str(x, ws, row, 12, plans_table_bound_label(p->t.bound),
                x->f.bound[p->t.bound & 3]);
        put_str(x, ws, row, 13, p->fits ? "yes" : "no",
                p->fits ? x->f.ok : x->f.bad);
        if (v->current && v->rank > 0)
            put_num(x, ws, row, 14, (double)v->rank, x->f.cnt);
        else
            put_str(x, ws, row, 14, v->current ? "not kept" : "other setup",
                    x->f.na);
        row_height(x, ws, row, text_height(strlen(v->name), 32, 11));
        row++;
        plan_format(&v->plan, plan, sizeof plan);
        snprintf(text, sizeof text, "%s on %s. Plan: %s. Source: %s",
                 v->model_name, v->gpu_name, plan, v->source);
        put_merged(x, ws, row, 0, NH - 1, text, x->f.small);
        row_height(x, ws, row, text_height(strlen(text), 160, 9));
        row++;
    }
}

/* ---- About ---- */

static void sheet_about(struct xw *x, lxw_worksheet *ws)
{
    const struct report *r = x->r;
    char when[64], num[32];
    size_t row = 0, i;

    page_setup(ws, false);
    col_width(x, ws, 0, 0, 22);
    col_width(x, ws, 1, 1, 70);
    col_width(x, ws, 2, 2, 68);
    put_str(x, ws, row++, 0, "About this workbook", x->f.title);
    row++;
    generated_text(r, when, sizeof when);
    put_str(x, ws, row, 0, "Generated by", x->f.label);
    put_strf(x, ws, row++, 1, x->f.text, "roofplan %s", r->version);
    put_str(x, ws, row, 0, "Generated at", x->f.label);
    put_str(x, ws, row++, 1, when, x->f.text);
    put_str(x, ws, row, 0, "Command line", x->f.label);
    put_str(x, ws, row++, 1, r->command_line, x->f.text);
    put_str(x, ws, row, 0, "Communication model", x->f.label);
    put_str(x, ws, row++, 1, comm_model_str(r->comm), x->f.text);
    thousands((double)r->nrows, num, sizeof num);
    put_str(x, ws, row, 0, "Plans kept", x->f.label);
    put_str(x, ws, row++, 1, num, x->f.text);
    row++;
    put_str(x, ws, row, 0, "Input", x->f.head_left);
    put_str(x, ws, row, 1, "Path", x->f.head_left);
    put_str(x, ws, row++, 2, "SHA-256", x->f.head_left);
    for (i = 0; i < r->ninputs; i++) {
        put_str(x, ws, row, 0, r->input[i].role, x->f.text);
        put_str(x, ws, row, 1, r->input[i].path, x->f.text);
        put_str(x, ws, row++, 2, r->input[i].sha256, x->f.text);
    }
    row++;
    put_str(x, ws, row++, 0,
            "The generation time comes from SOURCE_DATE_EPOCH when it is "
            "set, so the same inputs give a byte-identical workbook.",
            x->f.note);
}

/* ---- The workbook ---- */

static enum status xlsx_error(struct xw *x, struct diag *d)
{
    return diag_set(d, STATUS_XLSX, "%s: %s: %s", x->path, x->what,
                    lxw_strerror(x->err));
}

enum status xlsx_out_write(const struct report *r,
                           const char *path,
                           const struct xlsx_images *images,
                           struct diag *d)
{
    static const char *const names[] = {
        SH_SUMMARY,  SH_ASSUMPTIONS, SH_PLANS,    SH_MEMORY,     SH_COMM,
        SH_ROOFLINE, SH_SENS,        SH_REJECTED, SH_VALIDATION, SH_ABOUT};
    enum { NSHEETS = sizeof names / sizeof names[0] };
    lxw_worksheet *ws[NSHEETS];
    lxw_workbook_options wopt;
    lxw_doc_properties props;
    struct xw *x;
    char tmp[1100], subject[400];
    lxw_error cerr;
    size_t i;

    if (images) {
        const char *png[3] = {images->roofline_ib, images->roofline_nvlink,
                              images->step_breakdown};
        for (i = 0; i < 3; i++)
            if (png[i] && access(png[i], R_OK) != 0)
                return diag_set(d, STATUS_IO, "%s: cannot embed %s: %s", path,
                                png[i], strerror(errno));
    }
    if (out_file_temp(path, tmp, sizeof tmp, d) != STATUS_OK)
        return d->status;
    x = calloc(1, sizeof *x);
    if (!x) {
        unlink(tmp);
        return diag_set(d, STATUS_NOMEM, "%s: out of memory", path);
    }
    x->r = r;
    x->img = images;
    x->path = path;
    x->big = r->nrows > XLSX_OUT_TABLE_ROWS_MAX;
    memset(&wopt, 0, sizeof wopt);
    wopt.constant_memory = x->big ? LXW_TRUE : LXW_FALSE;
    x->wb = workbook_new_opt(tmp, &wopt);
    if (!x->wb) {
        free(x);
        unlink(tmp);
        return diag_set(d, STATUS_XLSX, "%s: cannot create the workbook", path);
    }
    for (i = 0; i < NSHEETS; i++) {
        ws[i] = workbook_add_worksheet(x->wb, names[i]);
        if (!ws[i])
            chk(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "workbook_add_worksheet");
    }
    if (x->err == LXW_NO_ERROR && !make_formats(x))
        chk(x, LXW_ERROR_MEMORY_MALLOC_FAILED, "workbook_add_format");

    memset(&props, 0, sizeof props);
    snprintf(subject, sizeof subject, "%s on %ld x %s", r->m->spec.name,
             r->hw->spec.gpus, r->hw->spec.gpu_name);
    props.title = "Parallelism plans: memory, FLOPs, communication";
    props.subject = subject;
    props.author = "roofplan";
    props.comments = "Generated by roofplan; see the About sheet.";
    /* libxlsxwriter takes 0 as "now": keep the epoch itself fixed. */
    props.created = r->generated > 0 ? (time_t)r->generated : 1;
    chk(x, workbook_set_properties(x->wb, &props), "workbook_set_properties");

    if (x->err == LXW_NO_ERROR) {
        worksheet_set_tab_color(ws[0], C_SECTION);
        worksheet_set_tab_color(ws[1], 0xFFC000);
        worksheet_set_tab_color(ws[2], C_LIVE_FILL);
        /* The sheets with images last: the caller's charts draw while
         * the others are written (images->ready). */
        sheet_assumptions(x, ws[1]);
        sheet_plans(x, ws[2]);
        sheet_memory(x, ws[3]);
        sheet_comm(x, ws[4]);
        sheet_sens(x, ws[6]);
        sheet_rejected(x, ws[7]);
        sheet_validation(x, ws[8]);
        sheet_about(x, ws[9]);
        if (images && images->ready)
            images->ready(images->user);
        sheet_summary(x, ws[0]);
        sheet_roofline(x, ws[5]);
        worksheet_activate(ws[0]);
    }

    /* workbook_close writes the file and frees the workbook; it must run
     * even after a failure, which then discards the file. */
    cerr = workbook_close(x->wb);
    if (x->err != LXW_NO_ERROR) {
        enum status st = xlsx_error(x, d);
        free(x);
        unlink(tmp);
        return st;
    }
    free(x);
    if (cerr != LXW_NO_ERROR) {
        unlink(tmp);
        return diag_set(d, STATUS_XLSX, "%s: cannot write: %s", path,
                        lxw_strerror(cerr));
    }
    return out_file_commit(tmp, path, d);
}
