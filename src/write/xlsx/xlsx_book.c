/*
 * xlsx_book: the workbook's life cycle, its formats (one table) and the
 * checked cell writers (see xlsx_book.h).
 */
#include "xlsx_book.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <xlsxwriter.h>

#include "datafile_text.h"
#include "out_file.h"
#include "terms_inputs.h"
#include "zip_check.h"

/* Colours of the formats (spreadsheet convention for inputs: blue on
 * pale yellow). */
#define C_INPUT_FONT 0x0000CC
#define C_INPUT_FILL 0xFFF9D6
#define C_HEAD_FILL  0x1F3864
#define C_NOTE       0x595959
#define C_COMPUTE    0xC6EFCE
#define C_IB         0xFFC7CE
#define C_NVLINK     0xE4D2F5
#define C_HBM        0xFFEB9C
#define C_RED_FONT   0x9C0006
#define C_GREEN_FONT 0x006100
#define C_GRID_LIGHT 0xD9D9D9
#define C_GREY_FILL  0xF2F2F2
#define C_HEADLINE   0xDDEBF7

/* Style bits of a format. */
#define S_BOLD   0x01
#define S_ITALIC 0x02
#define S_WRAP   0x04
#define S_TOP    0x08 /* vertical alignment top */
#define S_VMID   0x10 /* vertical alignment centre */
#define S_WHITE  0x20 /* white font (on a dark fill) */

/* One format: what a cell looks like. Zero fields are left at
 * libxlsxwriter's default. */
struct fmt_spec {
    int id;                /* enum xlsx_fmt */
    int same_as;           /* an alias of an earlier format; 0: none */
    const char *num;       /* number format; NULL: General (unset) */
    unsigned style;        /* S_* bits */
    uint32_t font;         /* font colour 0xRRGGBB; 0: automatic */
    double size;           /* points; 0: 11 */
    uint32_t fill;         /* background 0xRRGGBB; 0: none */
    uint8_t align;         /* LXW_ALIGN_*; 0: general */
    uint8_t border;        /* LXW_BORDER_* on all four sides */
    uint32_t border_color; /* 0xRRGGBB */
    uint8_t bottom;        /* LXW_BORDER_* underneath only */
    uint32_t bottom_color; /* 0xRRGGBB */
    uint8_t underline;     /* 1: single */
};

/* Every format, in creation order (their numbering in styles.xml follows
 * it, so reordering changes the file's bytes, not its looks). */
/* clang-format off */
#define HEAD(fill_, align_)                                                    \
    .style = S_BOLD | S_WRAP | S_VMID | S_WHITE, .fill = (fill_),              \
    .align = (align_), .border = LXW_BORDER_THIN,                              \
    .border_color = LXW_COLOR_WHITE
#define INPUT                                                                  \
    .style = S_TOP, .font = C_INPUT_FONT, .fill = C_INPUT_FILL,                \
    .align = LXW_ALIGN_LEFT, .border = LXW_BORDER_THIN,                        \
    .border_color = C_GRID_LIGHT
/* By bound: its text, its seconds, its fill for conditional formats. */
#define BOUND(n, fill_)                                                        \
    {.id = XLSX_FMT_BOUND0 + 3 * (n), .style = S_TOP, .fill = (fill_)},        \
    {.id = XLSX_FMT_BOUND0 + 3 * (n) + 1, .style = S_TOP, .fill = (fill_),     \
     .num = "0.000"},                                                          \
    {.id = XLSX_FMT_BOUND0 + 3 * (n) + 2, .style = S_TOP, .fill = (fill_)}

static const struct fmt_spec fmt_table[] = {
    {.id = XLSX_FMT_TITLE, .style = S_BOLD, .size = 16,
     .font = XLSX_COLOR_SECTION},
    {.id = XLSX_FMT_SUBTITLE, .font = C_NOTE},
    {.id = XLSX_FMT_H2, .style = S_BOLD, .size = 12,
     .font = XLSX_COLOR_SECTION, .bottom = LXW_BORDER_THIN,
     .bottom_color = XLSX_COLOR_SECTION},
    {.id = XLSX_FMT_NOTE, .style = S_ITALIC | S_TOP, .font = C_NOTE},
    {.id = XLSX_FMT_BOLD, .style = S_BOLD | S_TOP},
    {.id = XLSX_FMT_WRAP, .style = S_WRAP | S_TOP},
    {.id = XLSX_FMT_TEXT, .style = S_TOP},
    {.id = XLSX_FMT_HEADLINE, .style = S_BOLD | S_WRAP | S_TOP, .size = 12,
     .fill = C_HEADLINE, .border = LXW_BORDER_THIN,
     .border_color = XLSX_COLOR_LIVE},
    {.id = XLSX_FMT_LABEL, .style = S_BOLD | S_TOP},
    {.id = XLSX_FMT_RIGHT, .style = S_TOP, .align = LXW_ALIGN_RIGHT},
    {.id = XLSX_FMT_SMALL, .style = S_WRAP | S_TOP, .size = 9},
    {.id = XLSX_FMT_WARN, .style = S_BOLD | S_WRAP, .font = C_RED_FONT},
    {.id = XLSX_FMT_RED_LABEL, .style = S_BOLD | S_TOP, .font = C_RED_FONT},
    {.id = XLSX_FMT_LABEL_WRAP, .style = S_BOLD | S_WRAP | S_TOP},
    {.id = XLSX_FMT_NA, .style = S_ITALIC | S_TOP, .font = C_NOTE,
     .align = LXW_ALIGN_RIGHT},
    {.id = XLSX_FMT_NOTE_WRAP, .style = S_ITALIC | S_WRAP | S_TOP,
     .font = C_NOTE},
    {.id = XLSX_FMT_USD_M, .style = S_TOP, .num = "$#,##0.00,,\"M\""},
    {.id = XLSX_FMT_HEAD, HEAD(C_HEAD_FILL, LXW_ALIGN_CENTER)},
    {.id = XLSX_FMT_HEAD_LIVE, HEAD(XLSX_COLOR_LIVE, LXW_ALIGN_CENTER)},
    {.id = XLSX_FMT_HEAD_LEFT, HEAD(C_HEAD_FILL, LXW_ALIGN_LEFT)},
    {.id = XLSX_FMT_IN_NUM, INPUT, .num = "General"},
    {.id = XLSX_FMT_IN_TEXT, INPUT},
    {.id = XLSX_FMT_IN_BOOL, INPUT},
    {.id = XLSX_FMT_DERIVED, .style = S_TOP, .fill = C_GREY_FILL,
     .num = "0.0000"},
    {.id = XLSX_FMT_SEC, .style = S_TOP, .num = "0.000"},
    {.id = XLSX_FMT_SEC_BOLD, .style = S_BOLD | S_TOP, .num = "0.000"},
    {.id = XLSX_FMT_GIB, .style = S_TOP, .num = "0.0"},
    {.id = XLSX_FMT_PCT, .style = S_TOP, .num = "0.0%"},
    {.id = XLSX_FMT_CNT, .style = S_TOP, .num = "#,##0"},
    {.id = XLSX_FMT_BIG, .style = S_TOP, .num = "#,##0.0"},
    {.id = XLSX_FMT_RAT, .style = S_TOP, .num = "0.00"},
    {.id = XLSX_FMT_USD, .style = S_TOP, .num = "$#,##0"},
    {.id = XLSX_FMT_DAYS, .same_as = XLSX_FMT_GIB},
    {.id = XLSX_FMT_NUM, .style = S_TOP, .num = "General"},
    {.id = XLSX_FMT_INT, .style = S_TOP, .num = "0"},
    {.id = XLSX_FMT_SCI, .style = S_TOP, .num = "0.00E+00"},
    {.id = XLSX_FMT_GBPS, .same_as = XLSX_FMT_BIG},
    {.id = XLSX_FMT_CF_RED, .style = S_BOLD | S_TOP, .fill = C_IB,
     .font = C_RED_FONT},
    {.id = XLSX_FMT_CF_KEPT, .style = S_TOP, .fill = C_COMPUTE},
    {.id = XLSX_FMT_CF_DROPPED, .style = S_TOP, .fill = C_GREY_FILL},
    {.id = XLSX_FMT_OK, .style = S_BOLD | S_TOP, .font = C_GREEN_FONT,
     .align = LXW_ALIGN_CENTER},
    {.id = XLSX_FMT_BAD, .style = S_BOLD | S_TOP, .font = C_RED_FONT,
     .align = LXW_ALIGN_CENTER},
    {.id = XLSX_FMT_LINK, .style = S_TOP, .font = 0x0563C1, .underline = 1},
    {.id = XLSX_FMT_IN_INT, INPUT, .num = "#,##0"},
    {.id = XLSX_FMT_PLAIN, .style = S_TOP, .font = C_NOTE,
     .align = LXW_ALIGN_LEFT},
    {.id = XLSX_FMT_PLAIN_INT, .style = S_TOP, .font = C_NOTE,
     .align = LXW_ALIGN_LEFT, .num = "#,##0"},
    {.id = XLSX_FMT_NA_BOUND, .style = S_ITALIC | S_TOP, .font = C_NOTE,
     .fill = C_GREY_FILL},
    {.id = XLSX_FMT_BOOL, .style = S_TOP, .align = LXW_ALIGN_CENTER},
    {.id = XLSX_FMT_FITS, .style = S_TOP, .align = LXW_ALIGN_CENTER,
     .num = XLSX_NUM_FITS},
    {.id = XLSX_FMT_KEY_HEAD, .style = S_BOLD | S_WRAP | S_TOP,
     .font = XLSX_COLOR_SECTION, .bottom = LXW_BORDER_THIN,
     .bottom_color = XLSX_COLOR_SECTION, .align = LXW_ALIGN_RIGHT},
    /* in enum cost_bound order */
    BOUND(0, C_COMPUTE),
    BOUND(1, C_IB),
    BOUND(2, C_NVLINK),
    BOUND(3, C_HBM),
};
/* clang-format on */

#define NFMT (sizeof fmt_table / sizeof fmt_table[0])

/* A plain number format: only the number format and top alignment, so
 * any column of that number format can share it. */
static bool plain(const struct fmt_spec *s)
{
    return s->num && s->style == S_TOP && !s->font && s->size <= 0 &&
           !s->fill && !s->align && !s->border && !s->bottom && !s->same_as &&
           !s->underline;
}

static struct lxw_format *make_format(lxw_workbook *wb,
                                      const struct fmt_spec *s)
{
    lxw_format *f = workbook_add_format(wb);
    if (!f)
        return NULL;
    if (s->num)
        format_set_num_format(f, s->num);
    if (s->style & S_BOLD)
        format_set_bold(f);
    if (s->style & S_ITALIC)
        format_set_italic(f);
    if (s->style & S_WRAP)
        format_set_text_wrap(f);
    if (s->style & S_TOP)
        format_set_align(f, LXW_ALIGN_VERTICAL_TOP);
    if (s->style & S_VMID)
        format_set_align(f, LXW_ALIGN_VERTICAL_CENTER);
    if (s->style & S_WHITE)
        format_set_font_color(f, LXW_COLOR_WHITE);
    if (s->font)
        format_set_font_color(f, s->font);
    if (s->size > 0)
        format_set_font_size(f, s->size);
    if (s->fill)
        format_set_bg_color(f, s->fill);
    if (s->align)
        format_set_align(f, s->align);
    if (s->border) {
        format_set_border(f, s->border);
        format_set_border_color(f, s->border_color);
    }
    if (s->bottom) {
        format_set_bottom(f, s->bottom);
        format_set_bottom_color(f, s->bottom_color);
    }
    if (s->underline)
        format_set_underline(f, LXW_UNDERLINE_SINGLE);
    return f;
}

/* Makes every format of the table; false when out of memory. */
static bool make_formats(struct xlsx_book *b)
{
    size_t i;
    for (i = 0; i < NFMT; i++) {
        const struct fmt_spec *s = &fmt_table[i];
        b->fmt[s->id] = s->same_as ? b->fmt[s->same_as] : make_format(b->wb, s);
        if (!b->fmt[s->id])
            return false;
    }
    return true;
}

struct lxw_format *xlsx_book_fmt(const struct xlsx_book *b, enum xlsx_fmt id)
{
    return (int)id > XLSX_FMT_NONE && id < XLSX_FMT_COUNT ? b->fmt[id] : NULL;
}

enum xlsx_fmt xlsx_book_bound_fmt(int bound, enum xlsx_bound_use use)
{
    return (enum xlsx_fmt)(XLSX_FMT_BOUND0 + 3 * (bound & 3) + (int)use);
}

struct lxw_format *xlsx_book_number(struct xlsx_book *b, const char *num_format)
{
    size_t i;
    if (!num_format)
        return NULL;
    for (i = 0; i < NFMT; i++)
        if (plain(&fmt_table[i]) && strcmp(fmt_table[i].num, num_format) == 0)
            return b->fmt[fmt_table[i].id];
    for (i = 0; i < b->nextra; i++)
        if (strcmp(b->extra_num[i], num_format) == 0)
            return b->extra[i];
    if (b->nextra == sizeof b->extra / sizeof b->extra[0]) {
        xlsx_book_check(b, LXW_ERROR_PARAMETER_VALIDATION,
                        "too many number formats");
        return NULL;
    }
    {
        struct fmt_spec s;
        memset(&s, 0, sizeof s);
        s.num = num_format;
        s.style = S_TOP;
        b->extra[b->nextra] = make_format(b->wb, &s);
    }
    if (!b->extra[b->nextra]) {
        xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED,
                        "workbook_add_format");
        return NULL;
    }
    b->extra_num[b->nextra] = num_format;
    return b->extra[b->nextra++];
}

struct lxw_format *xlsx_book_fill(struct xlsx_book *b, uint32_t rgb)
{
    lxw_format *f = workbook_add_format(b->wb);
    if (!f) {
        xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED,
                        "workbook_add_format");
        return NULL;
    }
    format_set_bg_color(f, rgb);
    return f;
}

/* ---- Life cycle ---- */

enum status xlsx_book_open(struct xlsx_book *b,
                           const struct views *r,
                           const char *path,
                           enum xlsx_book_mode mode,
                           struct diag *d)
{
    lxw_workbook_options opt;
    const char *slash = strrchr(path, '/');

    memset(b, 0, sizeof *b);
    b->r = r;
    b->path = path;
    b->big = mode == XLSX_BOOK_STREAM;
    if (!slash)
        snprintf(b->tmpdir, sizeof b->tmpdir, ".");
    else if ((size_t)(slash - path) + 1 < sizeof b->tmpdir)
        snprintf(b->tmpdir, sizeof b->tmpdir, "%.*s",
                 slash == path ? 1 : (int)(slash - path), path);
    else
        return diag_set(d, STATUS_IO, "%s: cannot write: path too long", path);
    if (out_file_temp(path, b->tmp, sizeof b->tmp, d) != STATUS_OK)
        return d->status;
    memset(&opt, 0, sizeof opt);
    opt.constant_memory = b->big ? LXW_TRUE : LXW_FALSE;
    opt.tmpdir = b->tmpdir;
    b->wb = workbook_new_opt(b->tmp, &opt);
    if (!b->wb) {
        unlink(b->tmp);
        return diag_set(d, STATUS_XLSX, "%s: cannot create the workbook", path);
    }
    if (!make_formats(b))
        xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED,
                        "workbook_add_format");
    return STATUS_OK;
}

void xlsx_book_properties(struct xlsx_book *b,
                          const char *title,
                          const char *subject,
                          const char *comments,
                          int64_t created)
{
    lxw_doc_properties props;
    char *owned[3];
    memset(&props, 0, sizeof props);
    /* libxlsxwriter copies these and never writes through them */
    props.title = (char *)xlsx_book_text(b, title, &owned[0]);
    props.subject = (char *)xlsx_book_text(b, subject, &owned[1]);
    props.author = "roofplan";
    props.comments = (char *)xlsx_book_text(b, comments, &owned[2]);
    props.created = created > 0 ? (time_t)created : 1;
    xlsx_book_check(b, workbook_set_properties(b->wb, &props),
                    "workbook_set_properties");
    free(owned[0]);
    free(owned[1]);
    free(owned[2]);
}

struct lxw_worksheet *xlsx_book_sheet(struct xlsx_book *b, const char *name)
{
    lxw_worksheet *ws = workbook_add_worksheet(b->wb, name);
    if (!ws)
        xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED,
                        "workbook_add_worksheet");
    return ws;
}

enum status xlsx_book_close(struct xlsx_book *b, struct diag *d)
{
    /* workbook_close writes the file and frees the workbook; it must run
     * even after a failure, which then discards the file. */
    lxw_error cerr = workbook_close(b->wb);
    b->wb = NULL;
    if (b->err != LXW_NO_ERROR) {
        unlink(b->tmp);
        return diag_set(d, STATUS_XLSX, "%s: %s: %s", b->path, b->what,
                        lxw_strerror((lxw_error)b->err));
    }
    if (cerr != LXW_NO_ERROR) {
        unlink(b->tmp);
        return diag_set(d, STATUS_XLSX, "%s: cannot write: %s", b->path,
                        lxw_strerror(cerr));
    }
    if (zip_check_package(b->tmp, b->path, d) != STATUS_OK) {
        unlink(b->tmp);
        return d->status;
    }
    return out_file_commit(b->tmp, b->path, d);
}

void xlsx_book_abandon(struct xlsx_book *b)
{
    lxw_workbook_free(b->wb); /* frees without packaging anything */
    b->wb = NULL;
    unlink(b->tmp);
}

void xlsx_book_check(struct xlsx_book *b, unsigned err, const char *what)
{
    if (err != 0 && b->err == 0) { /* 0: LXW_NO_ERROR */
        b->err = err;
        snprintf(b->what, sizeof b->what, "%s", what);
    }
}

void xlsx_book_invalid(struct xlsx_book *b, const char *what)
{
    xlsx_book_check(b, LXW_ERROR_PARAMETER_VALIDATION, what);
}

/* ---- Cells ---- */

/* Row index as lxw_row_t, recording an error past Excel's last row. */
static lxw_row_t R(struct xlsx_book *b, size_t row)
{
    if (row >= LXW_ROW_MAX) {
        xlsx_book_check(b, LXW_ERROR_WORKSHEET_INDEX_OUT_OF_RANGE, "row index");
        return LXW_ROW_MAX - 1;
    }
    return (lxw_row_t)row;
}

/* Column index as lxw_col_t (an unknown table key gives SIZE_MAX). */
static lxw_col_t C(struct xlsx_book *b, size_t col)
{
    if (col >= LXW_COL_MAX) {
        xlsx_book_check(b, LXW_ERROR_WORKSHEET_INDEX_OUT_OF_RANGE,
                        "column index");
        return LXW_COL_MAX - 1;
    }
    return (lxw_col_t)col;
}

const char *xlsx_book_text(struct xlsx_book *b, const char *s, char **owned)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n;
    *owned = NULL;
    if (!s)
        return NULL;
    /* printable ASCII, newline and tab need no escape: the common case,
     * told without decoding (a big Plans sheet has millions of cells) */
    while ((*p >= 0x20 && *p < 0x7F) || *p == '\n' || *p == '\t')
        p++;
    if (*p == '\0')
        return s;
    n = datafile_text_xml(s, NULL, 0);
    if (n == strlen(s))
        return s;
    *owned = malloc(n + 1);
    if (!*owned) {
        xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED, "text");
        return NULL;
    }
    datafile_text_xml(s, *owned, n + 1);
    return *owned;
}

void xlsx_book_str(struct xlsx_book *b,
                   lxw_worksheet *ws,
                   size_t row,
                   size_t col,
                   const char *s,
                   lxw_format *f)
{
    char *owned;
    const char *t = xlsx_book_text(b, s, &owned);
    if (t || !s) /* (NULL: a blank cell) */
        xlsx_book_check(b,
                        worksheet_write_string(ws, R(b, row), C(b, col), t, f),
                        "worksheet_write_string");
    free(owned);
}

void xlsx_book_strf(struct xlsx_book *b,
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
    xlsx_book_str(b, ws, row, col, buf, f);
}

void xlsx_book_num(struct xlsx_book *b,
                   lxw_worksheet *ws,
                   size_t row,
                   size_t col,
                   double v,
                   lxw_format *f)
{
    if (!isfinite(v)) {
        xlsx_book_str(b, ws, row, col, "n/a", f);
        return;
    }
    xlsx_book_check(b, worksheet_write_number(ws, R(b, row), C(b, col), v, f),
                    "worksheet_write_number");
}

void xlsx_book_bool(struct xlsx_book *b,
                    lxw_worksheet *ws,
                    size_t row,
                    size_t col,
                    bool v,
                    lxw_format *f)
{
    xlsx_book_check(
        b, worksheet_write_boolean(ws, R(b, row), C(b, col), v ? 1 : 0, f),
        "worksheet_write_boolean");
}

void xlsx_book_formula_num(struct xlsx_book *b,
                           lxw_worksheet *ws,
                           size_t row,
                           size_t col,
                           const char *formula,
                           double v,
                           lxw_format *f)
{
    xlsx_book_check(b,
                    worksheet_write_formula_num(ws, R(b, row), C(b, col),
                                                formula, f,
                                                isfinite(v) ? v : 0),
                    "worksheet_write_formula_num");
}

void xlsx_book_formula_str(struct xlsx_book *b,
                           lxw_worksheet *ws,
                           size_t row,
                           size_t col,
                           const char *formula,
                           const char *v,
                           lxw_format *f)
{
    char *owned[2];
    const char *tf = xlsx_book_text(b, formula, &owned[0]);
    const char *tv = xlsx_book_text(b, v, &owned[1]);
    if ((tf || !formula) && (tv || !v))
        xlsx_book_check(
            b, worksheet_write_formula_str(ws, R(b, row), C(b, col), tf, f, tv),
            "worksheet_write_formula_str");
    free(owned[0]);
    free(owned[1]);
}

void xlsx_book_merge(struct xlsx_book *b,
                     lxw_worksheet *ws,
                     size_t row,
                     size_t first,
                     size_t last,
                     const char *s,
                     lxw_format *f)
{
    char *owned;
    const char *t = xlsx_book_text(b, s, &owned);
    if (t || !s)
        xlsx_book_check(b,
                        worksheet_merge_range(ws, R(b, row), C(b, first),
                                              R(b, row), C(b, last), t, f),
                        "worksheet_merge_range");
    free(owned);
}

void xlsx_book_width(struct xlsx_book *b,
                     lxw_worksheet *ws,
                     size_t first,
                     size_t last,
                     double width)
{
    xlsx_book_check(
        b, worksheet_set_column(ws, C(b, first), C(b, last), width, NULL),
        "worksheet_set_column");
}

void xlsx_book_height(struct xlsx_book *b,
                      lxw_worksheet *ws,
                      size_t row,
                      double height)
{
    xlsx_book_check(b, worksheet_set_row(ws, R(b, row), height, NULL),
                    "worksheet_set_row");
}

void xlsx_book_freeze(struct xlsx_book *b,
                      lxw_worksheet *ws,
                      size_t row,
                      size_t col)
{
    worksheet_freeze_panes(ws, R(b, row), C(b, col));
}

void xlsx_book_table(struct xlsx_book *b,
                     lxw_worksheet *ws,
                     const char *name,
                     size_t first,
                     size_t last,
                     size_t ncols,
                     const char *const *headers,
                     lxw_format *const *head)
{
    lxw_table_options opt;
    lxw_table_column *tc, **tcp;
    char what[96], **owned;
    size_t k;
    if (ncols == 0)
        return;
    tc = calloc(ncols, sizeof *tc);
    tcp = calloc(ncols + 1, sizeof *tcp);
    owned = calloc(ncols, sizeof *owned);
    if (!tc || !tcp || !owned) {
        xlsx_book_check(b, LXW_ERROR_MEMORY_MALLOC_FAILED, name);
        goto done;
    }
    for (k = 0; k < ncols; k++) {
        /* read only, by libxlsxwriter (owned[k]: a copy to free) */
        tc[k].header = (char *)xlsx_book_text(b, headers[k], &owned[k]);
        tc[k].header_format = head[k];
        tcp[k] = &tc[k];
    }
    memset(&opt, 0, sizeof opt);
    opt.name = (char *)name;
    opt.style_type = LXW_TABLE_STYLE_TYPE_LIGHT;
    opt.style_type_number = 1;
    opt.columns = tcp;
    snprintf(what, sizeof what, "worksheet_add_table (%s)", name);
    xlsx_book_check(b,
                    worksheet_add_table(ws, R(b, first), 0, R(b, last),
                                        C(b, ncols - 1), &opt),
                    what);
done:
    for (k = 0; owned && k < ncols; k++)
        free(owned[k]);
    free(owned);
    free(tc);
    free(tcp);
}

/* s with every '&' doubled (a header's control character), into buf. */
static void header_text(const char *s, char *buf, size_t size)
{
    size_t o = 0;
    for (; *s; s++) {
        if (o + (*s == '&' ? 2 : 1) + 1 > size) {
            o = diag_utf8_cut(buf, o); /* whole characters only */
            break;
        }
        if (*s == '&')
            buf[o++] = '&';
        buf[o++] = *s;
    }
    buf[o] = '\0';
}

void xlsx_book_page(struct xlsx_book *b, lxw_worksheet *ws, enum xlsx_page page)
{
    const struct views *r = b->r;
    char what[200], ver[64], text[256], *owned;
    const char *t;
    worksheet_set_landscape(ws);
    worksheet_fit_to_pages(ws, 1, 0);
    worksheet_set_margins(ws, 0.4, 0.4, 0.6, 0.6);
    if (page == XLSX_PAGE_REPORT)
        worksheet_gridlines(ws, LXW_HIDE_ALL_GRIDLINES);
    if (!r) /* a workbook of no single report (compare) */
        return;
    snprintf(text, sizeof text, "%.*s on %ld x %.*s",
             diag_utf8_prec(r->in->m->spec.name, 60), r->in->m->spec.name,
             views_gpus(r), diag_utf8_prec(r->in->hw->spec.gpu_name, 60),
             r->in->hw->spec.gpu_name);
    header_text(text, what, sizeof what);
    snprintf(text, sizeof text, "&L%s&R&A", what);
    t = xlsx_book_text(b, text, &owned);
    if (t)
        xlsx_book_check(b, worksheet_set_header(ws, t), "worksheet_set_header");
    free(owned);
    header_text(r->in->version, ver, sizeof ver);
    snprintf(text, sizeof text,
             "&Lroofplan %s, at the inputs of %s&RPage &P of &N", ver, r->when);
    t = xlsx_book_text(b, text, &owned);
    if (t)
        xlsx_book_check(b, worksheet_set_footer(ws, t), "worksheet_set_footer");
    free(owned);
}

void xlsx_book_repeat_row(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    xlsx_book_check(b, worksheet_repeat_rows(ws, R(b, row), R(b, row)),
                    "worksheet_repeat_rows");
}

void xlsx_book_print_area(struct xlsx_book *b,
                          lxw_worksheet *ws,
                          size_t first,
                          size_t last,
                          size_t last_col)
{
    if (last >= LXW_ROW_MAX || last_col >= LXW_COL_MAX || first > last) {
        xlsx_book_invalid(b, "print area");
        return;
    }
    xlsx_book_check(b,
                    worksheet_print_area(ws, (lxw_row_t)first, 0,
                                         (lxw_row_t)last, (lxw_col_t)last_col),
                    "worksheet_print_area");
}

void xlsx_book_link(struct xlsx_book *b,
                    lxw_worksheet *ws,
                    size_t row,
                    size_t col,
                    const char *sheet,
                    const char *text)
{
    char url[96], *owned;
    const char *t;
    if (row >= LXW_ROW_MAX || col >= LXW_COL_MAX) {
        xlsx_book_invalid(b, "link");
        return;
    }
    snprintf(url, sizeof url, "internal:'%s'!A1", sheet);
    t = xlsx_book_text(b, text, &owned);
    if (t || !text)
        xlsx_book_check(
            b,
            worksheet_write_url_opt(ws, (lxw_row_t)row, (lxw_col_t)col, url,
                                    xlsx_book_fmt(b, XLSX_FMT_LINK), t, NULL),
            "worksheet_write_url_opt");
    free(owned);
}

void xlsx_book_define(struct xlsx_book *b, const char *name, const char *ref)
{
    char what[96];
    if (!terms_name_known(name, false)) {
        snprintf(what, sizeof what, "name %s is not in the registry", name);
        xlsx_book_invalid(b, what);
        return;
    }
    xlsx_book_check(b, workbook_define_name(b->wb, name, ref),
                    "workbook_define_name");
}

/* "{=...}" of formula "=..." into buf; false when it does not fit. */
static bool braced(const char *formula, char *buf, size_t size)
{
    int n = snprintf(buf, size, "{%s}", formula);
    return n > 0 && (size_t)n < size;
}

void xlsx_book_array_num(struct xlsx_book *b,
                         lxw_worksheet *ws,
                         size_t row,
                         size_t col,
                         const char *formula,
                         double v,
                         struct lxw_format *f)
{
    char buf[2100];
    if (row >= LXW_ROW_MAX || col >= LXW_COL_MAX ||
        !braced(formula, buf, sizeof buf)) {
        xlsx_book_invalid(b, "array formula");
        return;
    }
    xlsx_book_check(b,
                    worksheet_write_array_formula_num(
                        ws, (lxw_row_t)row, (lxw_col_t)col, (lxw_row_t)row,
                        (lxw_col_t)col, buf, f, isfinite(v) ? v : 0),
                    "worksheet_write_array_formula_num");
}

/* ---- Text ---- */

double xlsx_book_text_height(size_t len, double width, double pt)
{
    double per_line = width * 11 / pt * 1.05;
    double lines = ceil((double)len / (per_line > 1 ? per_line : 1));
    return (lines < 1 ? 1 : lines) * pt * 1.32 + 3;
}

void xlsx_book_when(const struct views *r, char *buf, size_t size)
{
    snprintf(buf, size, "%s", r->when);
}

const char *xlsx_book_other_model(const struct views *r)
{
    return comm_model_str(r->in->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO);
}
