/*
 * xlsx_table: a block of a sheet defined as a table of columns — key,
 * header, unit, cell format (which carries the number format), width,
 * and either a value (from the table's getter) or a formula template —
 * in the spirit of plans_table, so that no sheet writes a cell at a
 * column number of its own. Templates name other columns of the same
 * row as {key}, or of a row above or below as {key@-1}, {key@+1}; names
 * from the Assumptions sheet are used as they are:
 *
 *   "{ib_gb}/IB_GBPS+{ib_net_steps}*COLL_NET_STEP_US*1E-06"
 *   at row 7 (0-based) -> "=J8/IB_GBPS+H8*COLL_NET_STEP_US*1E-06"
 *
 * Writes through xlsx_book; does not include xlsxwriter.h.
 */
#ifndef PROJ_XLSX_TABLE_H
#define PROJ_XLSX_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "xlsx_book.h"

#define XLSX_TABLE_FORMULA_MAX 600 /* an expanded formula */

enum xlsx_kind {
    XLSX_EMPTY, /* no cell */
    XLSX_NUM,
    XLSX_TEXT,
    XLSX_BOOL
};

/* One cell as the getter gives it. Before the call, fmt and formula hold
 * the column's; the getter may replace them for this row. A formula
 * cell's value is its cached result (the C value); an XLSX_BOOL formula
 * returns 1 or 0 (XLSX_FMT_FITS shows it as TRUE / FALSE). */
struct xlsx_value {
    int kind; /* enum xlsx_kind */
    double num;
    bool flag;
    const char *str;     /* XLSX_TEXT; may point into buf */
    const char *formula; /* template without '='; NULL: a value */
    bool array;          /* the formula is an array formula (numbers) */
    enum xlsx_fmt fmt;
    struct lxw_format *raw; /* a format made for this cell; NULL: fmt */
    char buf[480];          /* for the getter's text or template */
};

struct xlsx_column {
    const char *key;        /* id in templates: "ib_gb" */
    const char *header;     /* "IB"; NULL: no header cell */
    const char *unit;       /* "GB" -> header "IB (GB)"; "": none */
    enum xlsx_fmt fmt;      /* of the cells */
    enum xlsx_fmt head_fmt; /* of the header; XLSX_FMT_NONE: the table's */
    double width;           /* characters; 0: set by another block */
    const char *formula;    /* template without '='; NULL: a value */
    int id;                 /* which value the getter gives */
};

struct xlsx_table {
    const struct xlsx_column *col; /* in sheet order, from column A */
    size_t ncols;
    enum xlsx_fmt head_fmt; /* of header cells */
    /* Fills out for column id of the row described by item. */
    void (*get)(const void *item, int id, struct xlsx_value *out);
};

/* Sheet column (0-based) of key, or SIZE_MAX when t has none (a write
 * there then fails as out of range). */
size_t xlsx_table_col(const struct xlsx_table *t, const char *key);

/* A getter's cell: the number v, or the text s (not copied). */
void xlsx_value_num(struct xlsx_value *out, double v);

void xlsx_value_text(struct xlsx_value *out, const char *s);

/* "IB (GB)": the header with its unit, into buf. */
void xlsx_table_heading(const struct xlsx_column *c, char *buf, size_t size);

/* Writes the header row at row. */
void xlsx_table_header(struct xlsx_book *b,
                       struct lxw_worksheet *ws,
                       const struct xlsx_table *t,
                       size_t row);

/*
 * Writes cell v (a value, or v->formula compiled against t's columns for
 * row `row`, cached with v's value) at row, col. A template that does not
 * compile is recorded as an error (xlsx_book_invalid), so a name missing
 * from the registry fails the workbook. t may be NULL: a template with
 * no {key}.
 */
void xlsx_table_cell(struct xlsx_book *b,
                     struct lxw_worksheet *ws,
                     const struct xlsx_table *t,
                     size_t row,
                     size_t col,
                     const struct xlsx_value *v);

/* Writes one row at row: each column from t->get(item, id, ...), a
 * formula where the value has one (expanded for this row). */
void xlsx_table_row(struct xlsx_book *b,
                    struct lxw_worksheet *ws,
                    const struct xlsx_table *t,
                    size_t row,
                    const void *item);

/* Sets the widths of t's columns (those above 0): adjacent columns of
 * equal width share one range. */
void xlsx_table_widths(struct xlsx_book *b,
                       struct lxw_worksheet *ws,
                       const struct xlsx_table *t);

/* An Excel table named name over the header at row first and the rows
 * below it to last, with t's headings. */
void xlsx_table_excel(struct xlsx_book *b,
                      struct lxw_worksheet *ws,
                      const struct xlsx_table *t,
                      const char *name,
                      size_t first,
                      size_t last);

/*
 * Expands template tmpl for 0-based row `row` into buf, with a leading
 * '='. False (buf then unusable) for an unknown key, a name the time
 * model's registry does not know (terms_template_token: a renamed input
 * fails here as in plans_table), an unbalanced brace or quote, a
 * reference above row 1, or a result longer than size.
 */
bool xlsx_table_formula(const struct xlsx_table *t,
                        const char *tmpl,
                        size_t row,
                        char *buf,
                        size_t size);

/* Absolute reference to rows first..last (0-based) of column key on
 * sheet, as a chart series takes it: "=Roofline!$C$69:$C$80". */
void xlsx_table_range(const struct xlsx_table *t,
                      const char *sheet,
                      const char *key,
                      size_t first,
                      size_t last,
                      char *buf,
                      size_t size);

#endif
