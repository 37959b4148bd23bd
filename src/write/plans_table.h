/*
 * plans_table: the columns of the Plans sheet and of plans.csv, defined
 * once — header, unit, number format, width, and either a value getter
 * or a spreadsheet formula template. The Plans sheet (xlsx_plans) writes
 * the formulas (with the C value as their cached result); csv_out writes
 * every column's value. This module knows no file format and includes no
 * third-party header.
 *
 * Formula templates use workbook-level names from the Assumptions sheet
 * (IB_GBPS, COMPUTE_DERATE, ...) and refer to other columns of the same
 * row as {key}, e.g. "{bubble}+{optimizer}+{core}";
 * plans_table_formula_compile() turns them into A1 references and refuses
 * a name terms_inputs.h does not know. A column that shows a time term
 * takes the term's template from the registry (terms.h), as the ranking
 * carries it (ranking_template), so the sheet repeats cost_times() term
 * for term.
 */
#ifndef PROJ_PLANS_TABLE_H
#define PROJ_PLANS_TABLE_H

#include <stdbool.h>
#include <stddef.h>

#include "result.h"
#include "views.h"

enum plans_kind {
    PLANS_NUMBER, /* double */
    PLANS_TEXT,   /* string */
    PLANS_BOOL,   /* TRUE / FALSE */
    PLANS_EMPTY   /* no cell: an expected figure without a calibration */
};

struct plans_column {
    const char *key;        /* id used in formula templates: "step" */
    const char *header;     /* "Step" */
    const char *unit;       /* "s"; NULL when none */
    const char *num_format; /* Excel number format: "0.000"; NULL: text */
    double width;           /* column width in characters */
    int kind;               /* enum plans_kind */
    const char *formula;    /* template without '='; NULL: a value; "":
                               the term of the same key (terms.h) */
    const char *name;       /* the workbook name of its range (terms_names):
                               "PLANS_FITS"; NULL: none */
    /* private: where plans_table_value() reads the value: a source, the
     * field's offset in its struct and the scale it is shown over */
    int id;
    size_t off;
    double scale;
};

/* One cell's value; str points into buf or at a string constant. */
struct plans_value {
    int kind; /* enum plans_kind */
    double num;
    bool flag;
    const char *str;
    char buf[320];
};

/* The columns, in sheet order; *n receives their count. Never NULL. */
const struct plans_column *plans_table_columns(size_t *n);

/* Leading columns that identify a plan (frozen on the Plans sheet). */
size_t plans_table_frozen(void);

/* The formula template of column c: the registry's (terms_template, as
 * r carries it: ranking_template) when the column shows a term of the
 * time or memory model, its own otherwise; NULL for a value column. */
const char *plans_table_formula(const struct plans_column *c,
                                const struct ranking *r);

/* Key of the column whose step the ranking uses (its range is also
 * named PLANS_RANK_S): the speed-of-light "step" until the expected step
 * has a column. */
const char *plans_table_rank_key(const struct views *r);

/* Index of the column with this key, or -1. */
long plans_table_find(const char *key);

/*
 * Value of column c for kept row `row` of r, whose times t are the
 * row's own (ranking_row.t, filled by rank). For formula columns this is
 * the C result the formula must reproduce (its cached value). `index`
 * is the row's position in r->rank->rows (0-based; the rank shown is
 * index + 1).
 */
void plans_table_value(const struct plans_column *c,
                       const struct views *r,
                       size_t index,
                       const struct cost_times *t,
                       struct plans_value *out);

/* plans_table_value() for any row (family indexing r->family); rank 0
 * leaves the Rank column empty (a plan beyond the ranked ones). */
void plans_table_value_row(const struct plans_column *c,
                           const struct views *r,
                           const struct ranking_row *row,
                           size_t rank,
                           const struct cost_times *t,
                           struct plans_value *out);

/* "Step (s)": header with the unit in parentheses, into buf. */
void plans_table_header(const struct plans_column *c, char *buf, size_t size);

/* Display label of a bound: "compute", "IB", "NVLink", "HBM". */
const char *plans_table_bound_label(int bound);

#define PLANS_FORMULA_MAX  600 /* an expanded formula */
#define PLANS_FORMULA_REFS 24  /* {key} references in one template */

/* A formula template compiled once: its text with each {key} turned into
 * column letters, and where each row number goes. */
struct plans_formula {
    char text[PLANS_FORMULA_MAX];
    size_t at[PLANS_FORMULA_REFS];
    size_t n;
};

/*
 * Compiles a template such as "{ib}/IB_GBPS" (with a leading '=' added).
 * Returns false when a key is unknown, a name is not an input of the time
 * model's registry (terms_name_known: a renamed or misspelt input), a
 * brace or quote unbalanced, or the text too long.
 */
bool plans_table_formula_compile(const char *tmpl, struct plans_formula *f);

/*
 * The formula for spreadsheet row row1 (1-based) into buf:
 * "{ib}/IB_GBPS" at row 7 -> "=AB7/IB_GBPS". Truncates to fit size.
 */
void plans_table_formula_expand(const struct plans_formula *f,
                                unsigned long row1,
                                char *buf,
                                size_t size);

/* Spreadsheet column letters of 0-based column index col ("A", "AB"). */
void plans_table_col_name(size_t col, char *buf, size_t size);

#endif
