/*
 * xlsx_book: one workbook being written — opening it on a temporary file
 * beside the target, the table of every cell format, the checked
 * cell-writing helpers the sheet modules share, and closing it: the file
 * is verified (zip_check) and only then renamed over the target. With
 * the sheet modules (xlsx_summary, xlsx_plans, ...) the only code that
 * includes xlsxwriter.h; this header names libxlsxwriter's types only as
 * incomplete structs, so xlsx_out and xlsx_table need not include it.
 *
 * Errors: every libxlsxwriter call goes through xlsx_book_check(), which
 * keeps the first failure and the call's name; the writers carry on and
 * xlsx_book_close() reports it. Strings from data files go through
 * xlsx_book_str() only, so a value starting with '=' stays text; numbers
 * that are not finite are written as the text "n/a". Every string handed
 * to libxlsxwriter passes through xlsx_book_text() first, so the XML is
 * UTF-8 whatever the text (an output path or argv[0] in Latin-1).
 */
#ifndef PROJ_XLSX_BOOK_H
#define PROJ_XLSX_BOOK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "views.h"

struct lxw_workbook;
struct lxw_worksheet;
struct lxw_format;

#define XLSX_BOOK_PATH_MAX 1100

/* The number format that shows a formula's 1 / 0 as TRUE / FALSE (see
 * terms_memory.c, TERMS_MEM_FITS). */
#define XLSX_NUM_FITS "\"TRUE\";\"TRUE\";\"FALSE\""

/* Colours shared by formats and sheets (0xRRGGBB). */
#define XLSX_COLOR_SECTION 0x1F3864 /* titles; the Summary's tab */
#define XLSX_COLOR_LIVE    0x2E75B6 /* live-formula headers; Plans' tab */
#define XLSX_COLOR_INPUTS  0xFFC000 /* the Assumptions tab */

/* The workbook's cell formats, in the order they are created (which
 * fixes their numbering in styles.xml). */
enum xlsx_fmt {
    XLSX_FMT_NONE, /* no format: General, Calibri 11 */
    XLSX_FMT_TITLE,
    XLSX_FMT_SUBTITLE,
    XLSX_FMT_H2,
    XLSX_FMT_NOTE,
    XLSX_FMT_BOLD,
    XLSX_FMT_WRAP,
    XLSX_FMT_TEXT,
    XLSX_FMT_HEADLINE,
    XLSX_FMT_LABEL,
    XLSX_FMT_RIGHT,
    XLSX_FMT_SMALL,
    XLSX_FMT_WARN,
    XLSX_FMT_RED_LABEL,
    XLSX_FMT_LABEL_WRAP,
    XLSX_FMT_NA,
    XLSX_FMT_NOTE_WRAP,
    XLSX_FMT_USD_M,
    XLSX_FMT_HEAD,
    XLSX_FMT_HEAD_LIVE, /* header of a formula column */
    XLSX_FMT_HEAD_LEFT,
    XLSX_FMT_IN_NUM, /* an editable input */
    XLSX_FMT_IN_TEXT,
    XLSX_FMT_IN_BOOL,
    XLSX_FMT_DERIVED, /* a formula over the inputs */
    XLSX_FMT_SEC,
    XLSX_FMT_SEC_BOLD,
    XLSX_FMT_GIB,
    XLSX_FMT_PCT,
    XLSX_FMT_CNT,
    XLSX_FMT_BIG,
    XLSX_FMT_RAT,
    XLSX_FMT_USD,
    XLSX_FMT_DAYS, /* the same format as XLSX_FMT_GIB */
    XLSX_FMT_NUM,
    XLSX_FMT_INT,
    XLSX_FMT_SCI,
    XLSX_FMT_GBPS, /* the same format as XLSX_FMT_BIG */
    XLSX_FMT_CF_RED,
    XLSX_FMT_CF_KEPT,
    XLSX_FMT_CF_DROPPED,
    XLSX_FMT_OK,
    XLSX_FMT_BAD,
    XLSX_FMT_LINK,   /* a hyperlink to another sheet */
    XLSX_FMT_IN_INT, /* an editable input, with thousands separators */
    XLSX_FMT_PLAIN,  /* a value that applies when roofplan runs again */
    XLSX_FMT_PLAIN_INT,
    XLSX_FMT_NA_BOUND, /* the bound of a plan that does not fit */
    XLSX_FMT_BOOL,     /* TRUE / FALSE, centred */
    XLSX_FMT_FITS,     /* a 1 / 0 formula result shown as TRUE / FALSE */
    XLSX_FMT_KEY_HEAD, /* a column head of the key figures */
    /* By bound (enum cost_bound: compute, IB, NVLink, HBM), three each:
     * text with the bound's fill, seconds with it, and the fill alone
     * for conditional formats; see xlsx_book_bound_fmt(). */
    XLSX_FMT_BOUND0,
    XLSX_FMT_COUNT = XLSX_FMT_BOUND0 + 12
};

/* Which of a bound's three formats xlsx_book_bound_fmt() gives. */
enum xlsx_bound_use { XLSX_BOUND_TEXT, XLSX_BOUND_SECONDS, XLSX_BOUND_CF };

/* One workbook being written; the fields are read by the sheet modules,
 * written only by xlsx_book_*. */
struct xlsx_book {
    struct lxw_workbook *wb;
    const struct views *r;           /* borrowed: what the sheets show */
    const char *path;                /* the final path, for messages */
    char tmp[XLSX_BOOK_PATH_MAX];    /* the file being written */
    char tmpdir[XLSX_BOOK_PATH_MAX]; /* libxlsxwriter's scratch files */
    bool big;       /* constant_memory mode: no Excel tables, values only */
    unsigned err;   /* first lxw_error; 0 (LXW_NO_ERROR) when none */
    char what[160]; /* the call that failed */
    struct lxw_format *fmt[XLSX_FMT_COUNT]; /* NULL for XLSX_FMT_NONE */
    struct lxw_format *extra[16];           /* made by xlsx_book_number */
    const char *extra_num[16];              /* theirs (borrowed) */
    size_t nextra;
};

/* How libxlsxwriter keeps a workbook's cells until it is closed. */
enum xlsx_book_mode {
    XLSX_BOOK_TABLES, /* in memory: any order, Excel tables */
    XLSX_BOOK_STREAM  /* constant_memory: rows in ascending order, written
                       * as they come, no Excel tables (a big Plans sheet) */
};

/*
 * Starts the workbook for r, to be renamed over path by
 * xlsx_book_close(): creates the temporary file beside path (out_file),
 * opens the workbook on it with libxlsxwriter's scratch files in the
 * same directory (so a full disk there shows in every part), and makes
 * every format, in `mode`. b need not be initialised.
 * Returns STATUS_OK, STATUS_IO ("path: cannot write: reason") or
 * STATUS_XLSX; on failure nothing is left on disk and b needs no close.
 * A format that cannot be made is recorded in b->err (the sheets are
 * then skipped) and reported by xlsx_book_close().
 */
enum status xlsx_book_open(struct xlsx_book *b,
                           const struct views *r,
                           const char *path,
                           enum xlsx_book_mode mode,
                           struct diag *d);

/*
 * Document properties; strings are copied by libxlsxwriter. created is
 * seconds since the epoch; 0 would mean "now" to libxlsxwriter, so it
 * is written as 1.
 */
void xlsx_book_properties(struct xlsx_book *b,
                          const char *title,
                          const char *subject,
                          const char *comments,
                          int64_t created);

/* Adds a worksheet named name (the order of calls is the tab order);
 * NULL after recording the failure. */
struct lxw_worksheet *xlsx_book_sheet(struct xlsx_book *b, const char *name);

/*
 * Writes the workbook out and frees it; always call it after a
 * successful open. Then, unless a call failed on the way, checks the
 * finished file with zip_check (every part complete, every CRC good:
 * libxlsxwriter does not check its writes to scratch files) and renames
 * it over path. On any failure the temporary file is removed and an
 * earlier file at path is left as it was. Returns STATUS_OK; STATUS_XLSX
 * "path: <call>: <lxw_strerror>" for the first failed call or "path:
 * cannot write: <lxw_strerror>" when closing fails; STATUS_IO "path:
 * incomplete workbook part xl/worksheets/sheet3.xml (disk full?)" and
 * the like from zip_check, or from the rename.
 */
enum status xlsx_book_close(struct xlsx_book *b, struct diag *d);

/* Drops an open workbook without writing it (a step it waited for
 * failed): frees it and removes its temporary file. */
void xlsx_book_abandon(struct xlsx_book *b);

/* Records lxw_error err (passed as unsigned: this header does not see the
 * enum) of call `what` when it is the first failure. */
void xlsx_book_check(struct xlsx_book *b, unsigned err, const char *what);

/* Records a programmer's error (a bad formula template, an unknown
 * column) as libxlsxwriter's parameter validation error, named what. */
void xlsx_book_invalid(struct xlsx_book *b, const char *what);

/* The format id (NULL for XLSX_FMT_NONE or an unknown id). */
struct lxw_format *xlsx_book_fmt(const struct xlsx_book *b, enum xlsx_fmt id);

/* The format of bound (enum cost_bound) for use. */
enum xlsx_fmt xlsx_book_bound_fmt(int bound, enum xlsx_bound_use use);

/*
 * The plain format (vertical alignment top and nothing else) with number
 * format num_format, from the table when it has one, else made once and
 * kept: one object per number format, because libxlsxwriter 1.1.4
 * rehashes a format on every cell when another object has the same
 * properties. num_format must live as long as b (a column table's
 * string). NULL for num_format NULL (text), or after recording a
 * failure.
 */
struct lxw_format *xlsx_book_number(struct xlsx_book *b,
                                    const char *num_format);

/* A format with fill colour 0xRRGGBB and nothing else (a swatch); NULL
 * after recording a failure. */
struct lxw_format *xlsx_book_fill(struct xlsx_book *b, uint32_t rgb);

/*
 * s as the workbook's XML may carry it (datafile_text_xml: invalid UTF-8
 * and control characters but newline and tab as \xNN): s itself where
 * nothing needs escaping, else a malloc'd copy also stored in *owned,
 * which the caller frees once libxlsxwriter has copied it (*owned NULL
 * otherwise). NULL (and NULL) for NULL, or after recording a failure
 * when out of memory. The one gate of text into the workbook:
 *
 *   char *owned;
 *   const char *t = xlsx_book_text(b, path, &owned);
 *   if (t)
 *       chart_title_set_name(chart, t);
 *   free(owned);
 */
const char *xlsx_book_text(struct xlsx_book *b, const char *s, char **owned);

/* ---- Cells (row and col 0-based; past Excel's limits the failure is
 * recorded and nothing written) ---- */

void xlsx_book_str(struct xlsx_book *b,
                   struct lxw_worksheet *ws,
                   size_t row,
                   size_t col,
                   const char *s,
                   struct lxw_format *f);

/* printf into a cell as text (truncated at 2047 bytes). */
void xlsx_book_strf(struct xlsx_book *b,
                    struct lxw_worksheet *ws,
                    size_t row,
                    size_t col,
                    struct lxw_format *f,
                    const char *fmt,
                    ...) __attribute__((format(printf, 6, 7)));

/* A number; not finite: the text "n/a" in the same format. */
void xlsx_book_num(struct xlsx_book *b,
                   struct lxw_worksheet *ws,
                   size_t row,
                   size_t col,
                   double v,
                   struct lxw_format *f);

void xlsx_book_bool(struct xlsx_book *b,
                    struct lxw_worksheet *ws,
                    size_t row,
                    size_t col,
                    bool v,
                    struct lxw_format *f);

/* A formula ("=..." ) with its numeric cached result, the C value; one
 * that is not finite is cached as 0 (the formula shows the error). */
void xlsx_book_formula_num(struct xlsx_book *b,
                           struct lxw_worksheet *ws,
                           size_t row,
                           size_t col,
                           const char *formula,
                           double v,
                           struct lxw_format *f);

/* A formula with a text cached result ("TRUE", "IB", ...). */
void xlsx_book_formula_str(struct xlsx_book *b,
                           struct lxw_worksheet *ws,
                           size_t row,
                           size_t col,
                           const char *formula,
                           const char *v,
                           struct lxw_format *f);

/* Text merged over columns first..last of one row. */
void xlsx_book_merge(struct xlsx_book *b,
                     struct lxw_worksheet *ws,
                     size_t row,
                     size_t first,
                     size_t last,
                     const char *s,
                     struct lxw_format *f);

/* Width (characters) of columns first..last, one <col> range. */
void xlsx_book_width(struct xlsx_book *b,
                     struct lxw_worksheet *ws,
                     size_t first,
                     size_t last,
                     double width);

/* Height of a row in points. */
void xlsx_book_height(struct xlsx_book *b,
                      struct lxw_worksheet *ws,
                      size_t row,
                      double height);

/* Freezes the rows above row and the columns left of col. */
void xlsx_book_freeze(struct xlsx_book *b,
                      struct lxw_worksheet *ws,
                      size_t row,
                      size_t col);

/*
 * An Excel table (autofilter, banded rows) over rows first..last and
 * columns 0..ncols-1, first being the header row: headers[k] with format
 * head[k]. name must be unique in the workbook. Refused (and recorded)
 * in constant_memory mode; callers skip it then.
 */
void xlsx_book_table(struct xlsx_book *b,
                     struct lxw_worksheet *ws,
                     const char *name,
                     size_t first,
                     size_t last,
                     size_t ncols,
                     const char *const *headers,
                     struct lxw_format *const *head);

/* What a sheet holds, for its page setup. */
enum xlsx_page {
    XLSX_PAGE_TABLE, /* tables of data: gridlines shown */
    XLSX_PAGE_REPORT /* text and charts: no gridlines */
};

/* Landscape, one page wide, a header (the report's model and cluster,
 * the sheet's name) and a footer (roofplan's version, the date of the
 * inputs, page N of M); gridlines as `page` says. */
void xlsx_book_page(struct xlsx_book *b,
                    struct lxw_worksheet *ws,
                    enum xlsx_page page);

/* Prints row `row` (0-based: a table's header) atop every page. */
void xlsx_book_repeat_row(struct xlsx_book *b,
                          struct lxw_worksheet *ws,
                          size_t row);

/* Prints rows first..last, columns 0..last_col (0-based). */
void xlsx_book_print_area(struct xlsx_book *b,
                          struct lxw_worksheet *ws,
                          size_t first,
                          size_t last,
                          size_t last_col);

/* A hyperlink to cell A1 of sheet `sheet`, shown as text. */
void xlsx_book_link(struct xlsx_book *b,
                    struct lxw_worksheet *ws,
                    size_t row,
                    size_t col,
                    const char *sheet,
                    const char *text);

/*
 * Defines workbook name `name` over ref ("=Plans!$K$2:$K$40"). The name
 * must be in the time model's registry (an input or one of terms_names):
 * any other is recorded as an error, so the workbook never defines a name
 * that formulas could not be checked against.
 */
void xlsx_book_define(struct xlsx_book *b, const char *name, const char *ref);

/* An array formula ("=MIN(IF(...))", written as "{=...}") in one cell,
 * with its cached numeric result (libxlsxwriter 1.1.4 caches no text
 * for array formulas: text comes from plain formulas over their
 * results). */
void xlsx_book_array_num(struct xlsx_book *b,
                         struct lxw_worksheet *ws,
                         size_t row,
                         size_t col,
                         const char *formula,
                         double v,
                         struct lxw_format *f);

/* ---- Text shared by the sheets ---- */

/* Row height (points) for text of len characters wrapped in a column
 * width characters wide at pt points (about 1.1 characters of a small
 * font per unit of width). */
double xlsx_book_text_height(size_t len, double width, double pt);

/* r->in->generated as "2025-01-31 12:00 UTC" (figures' r->when). */
void xlsx_book_when(const struct views *r, char *buf, size_t size);

/* The communication model the report shows beside its own ("flat" for
 * a topo report, "topo" for a flat one). */
const char *xlsx_book_other_model(const struct views *r);

#endif
