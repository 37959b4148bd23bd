/*
 * xlsx_assumptions: the Assumptions sheet (see xlsx_assumptions.h). One
 * column table serves three kinds of row: an input (a value, or a
 * number the user may edit), a derived rate (a formula over the names),
 * and a derived model total (a value).
 */
#include "xlsx_assumptions.h"

#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "plans_table.h"
#include "xlsx_table.h"

enum col_id { A_SECTION, A_KEY, A_NAME, A_VALUE, A_UNIT, A_MEANING, A_SOURCE };

/* clang-format off */
static const struct xlsx_column columns[] = {
    {"section", "Section", "", XLSX_FMT_TEXT, 0, 10, NULL, A_SECTION},
    {"key", "Key", "", XLSX_FMT_TEXT, 0, 24, NULL, A_KEY},
    {"name", "Name", "", XLSX_FMT_TEXT, 0, 28, NULL, A_NAME},
    {"value", "Value", "", XLSX_FMT_IN_NUM, 0, 24, NULL, A_VALUE},
    {"unit", "Unit", "", XLSX_FMT_TEXT, 0, 9, NULL, A_UNIT},
    {"meaning", "Meaning", "", XLSX_FMT_TEXT, 0, 52, NULL, A_MEANING},
    {"source", "Source", "", XLSX_FMT_TEXT, 0, 90, NULL, A_SOURCE},
};
/* clang-format on */

enum row_kind {
    ROW_INPUT,   /* a field of a data file */
    ROW_DERIVED, /* a formula over the inputs, with a name */
    ROW_VALUE    /* a model total computed by roofplan */
};

struct row {
    int kind;
    /* ROW_INPUT */
    const struct datafile_meta *meta;
    size_t field;
    const void *spec;
    bool hardware;
    /* ROW_DERIVED, ROW_VALUE */
    const char *name, *formula, *unit, *meaning;
    double v;
};

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

static void text(struct xlsx_value *out, const char *s)
{
    out->kind = XLSX_TEXT;
    out->str = s;
}

static void number(struct xlsx_value *out, double v)
{
    out->kind = XLSX_NUM;
    out->num = v;
}

/* An input's value: numbers and flags editable, text for reference. */
static void input_value(const struct row *r, struct xlsx_value *out)
{
    const struct datafile_field *f = &r->meta->schema->fields[r->field];
    const void *p = (const char *)r->spec + f->offset;
    switch (f->type) {
    case DATAFILE_INT:
        number(out, (double)*(const long *)p);
        break;
    case DATAFILE_DOUBLE:
        number(out, *(const double *)p);
        break;
    case DATAFILE_BOOL:
        out->kind = XLSX_BOOL;
        out->flag = *(const bool *)p;
        out->fmt = XLSX_FMT_IN_BOOL;
        break;
    default:
        field_text(f, r->spec, out->buf, sizeof out->buf);
        text(out, out->buf);
        out->fmt = XLSX_FMT_IN_TEXT;
        break;
    }
}

static void input_get(const struct row *r, int id, struct xlsx_value *out)
{
    const struct datafile_field *f = &r->meta->schema->fields[r->field];
    switch (id) {
    case A_SECTION:
        text(out, f->section);
        break;
    case A_KEY:
        text(out, f->key);
        break;
    case A_NAME:
        input_name(f, r->hardware, out->buf, sizeof out->buf);
        text(out, out->buf);
        break;
    case A_VALUE:
        input_value(r, out);
        break;
    case A_UNIT:
        text(out, f->unit ? f->unit : "");
        break;
    case A_MEANING:
        text(out, f->help ? f->help : "");
        break;
    default:
        text(out, datafile_meta_source(r->meta, r->field));
        break;
    }
}

static void get(const void *item, int id, struct xlsx_value *out)
{
    const struct row *r = item;
    if (r->kind == ROW_INPUT) {
        input_get(r, id, out);
        return;
    }
    switch (id) {
    case A_SECTION:
        text(out, "derived");
        break;
    case A_NAME:
        if (r->kind == ROW_DERIVED)
            text(out, r->name);
        break;
    case A_VALUE:
        number(out, r->v);
        if (r->kind == ROW_DERIVED) {
            out->formula = r->formula + 1; /* past its '=' */
            out->fmt = XLSX_FMT_DERIVED;
        } else {
            out->fmt = XLSX_FMT_BIG;
        }
        break;
    case A_UNIT:
        text(out, r->unit);
        break;
    case A_MEANING:
        text(out, r->meaning);
        break;
    case A_SOURCE: /* the formula, for those who read a printout */
        if (r->kind == ROW_DERIVED)
            text(out, r->formula);
        break;
    default:
        break;
    }
}

static const struct xlsx_table table = {
    columns, sizeof columns / sizeof columns[0], XLSX_FMT_HEAD_LEFT, get};

/* Writes row r at `row` and defines its name over the Value cell. */
static void put_row(struct xlsx_book *b,
                    struct lxw_worksheet *ws,
                    size_t row,
                    const struct row *r)
{
    char name[96], ref[96], col[8];
    xlsx_table_row(b, ws, &table, row, r);
    if (r->kind == ROW_VALUE)
        return;
    if (r->kind == ROW_INPUT)
        input_name(&r->meta->schema->fields[r->field], r->hardware, name,
                   sizeof name);
    else
        snprintf(name, sizeof name, "%s", r->name);
    plans_table_col_name(xlsx_table_col(&table, "value"), col, sizeof col);
    snprintf(ref, sizeof ref, "=%s!$%s$%zu", XLSX_ASSUMPTIONS_SHEET, col,
             row + 1);
    xlsx_book_check(b, workbook_define_name(b->wb, name, ref),
                    "workbook_define_name");
}

/* One data file's inputs under a heading; returns the next row. */
static size_t inputs(struct xlsx_book *b,
                     struct lxw_worksheet *ws,
                     size_t row,
                     const char *what,
                     const struct datafile_meta *meta,
                     const void *spec,
                     bool hardware)
{
    struct row r;
    size_t i;
    xlsx_book_strf(b, ws, row++, xlsx_table_col(&table, "section"),
                   xlsx_book_fmt(b, XLSX_FMT_H2), "%s: %s", what, meta->path);
    memset(&r, 0, sizeof r);
    r.kind = ROW_INPUT;
    r.meta = meta;
    r.spec = spec;
    r.hardware = hardware;
    for (i = 0; i < meta->schema->n; i++) {
        r.field = i;
        put_row(b, ws, row++, &r);
    }
    return row;
}

/* The rates the plans are timed with: formulas over the inputs, named,
 * with the C values cached (cost.c computes the same). */
static size_t
derived_rates(struct xlsx_book *b, struct lxw_worksheet *ws, size_t row)
{
    const struct hardware *hw = b->r->hw;
    const struct row rows[] = {
        {ROW_DERIVED, NULL, 0, NULL, false, "COMPUTE_DERATE", "=CLOCK_DERATE",
         "",
         "share of the achievable GEMM rate compute keeps (the clock "
         "derate; SMs running communication are charged only while it "
         "runs, as the comm SM term)",
         hw->compute_derate},
        {ROW_DERIVED, NULL, 0, NULL, false, "BF16_TFLOPS_USED",
         "=BF16_ACHIEVABLE_TFLOPS*COMPUTE_DERATE", "TFLOP/s",
         "BF16 rate the plans are timed with", hw->bf16_flops / 1e12},
        {ROW_DERIVED, NULL, 0, NULL, false, "FP8_TFLOPS_USED",
         "=FP8_ACHIEVABLE_TFLOPS*COMPUTE_DERATE", "TFLOP/s",
         "FP8 rate the plans are timed with", hw->fp8_flops / 1e12},
        {ROW_DERIVED, NULL, 0, NULL, false, "RIDGE_IB_BF16",
         "=BF16_TFLOPS_USED*1000/IB_GBPS", "FLOP/B",
         "ridge point over IB: below this intensity a BF16 plan is IB-bound",
         hw->bf16_flops / hw->ib_bps},
        {ROW_DERIVED, NULL, 0, NULL, false, "RIDGE_NVLINK_BF16",
         "=BF16_TFLOPS_USED*1000/NVLINK_GBPS", "FLOP/B",
         "ridge point over NVLink for BF16", hw->bf16_flops / hw->nvlink_bps},
    };
    size_t i;
    xlsx_book_str(b, ws, row++, xlsx_table_col(&table, "section"),
                  "Derived rates", xlsx_book_fmt(b, XLSX_FMT_H2));
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        put_row(b, ws, row++, &rows[i]);
    return row;
}

/* The model's totals, as values: changing the architecture needs a new
 * run of roofplan. */
static size_t
model_totals(struct xlsx_book *b, struct lxw_worksheet *ws, size_t row)
{
    const struct model *m = b->r->m;
    const struct row rows[] = {
        {ROW_VALUE, NULL, 0, NULL, false, NULL, NULL, "B",
         "parameters, main model (embedding and head counted)",
         m->params_total / 1e9},
        {ROW_VALUE, NULL, 0, NULL, false, NULL, NULL, "B",
         "parameters active per token", m->params_active / 1e9},
        {ROW_VALUE, NULL, 0, NULL, false, NULL, NULL, "GFLOP",
         "model FLOPs per token, forward + backward (with MTP if enabled)",
         m->flops_per_token / 1e9},
        {ROW_VALUE, NULL, 0, NULL, false, NULL, NULL, "GFLOP",
         "model FLOPs per token, main model only",
         m->flops_per_token_main / 1e9},
    };
    size_t i;
    xlsx_book_str(b, ws, row++, xlsx_table_col(&table, "section"),
                  "Derived from the model (values)",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        xlsx_table_row(b, ws, &table, row++, &rows[i]);
    return row;
}

void xlsx_assumptions_write(struct xlsx_book *b, struct lxw_worksheet *ws)
{
    const struct report *r = b->r;
    size_t row = 0;
    size_t c0 = xlsx_table_col(&table, "section");
    size_t c1 = xlsx_table_col(&table, "key");

    worksheet_set_tab_color(ws, XLSX_COLOR_INPUTS);
    xlsx_book_page(ws, false);
    xlsx_table_widths(b, ws, &table);
    xlsx_book_str(b, ws, row++, c0,
                  "Assumptions: every input, with its unit and source",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    /* the legend: a sample cell of each kind and what it means */
    xlsx_book_str(b, ws, row, c0, "input", xlsx_book_fmt(b, XLSX_FMT_IN_TEXT));
    xlsx_book_str(b, ws, row++, c1,
                  "Blue on yellow: an input. Edit it and every formula in "
                  "Plans, Memory, Communication and Roofline re-times (each "
                  "is a named cell, e.g. IB_GBPS).",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    xlsx_book_str(b, ws, row, c0, "derived",
                  xlsx_book_fmt(b, XLSX_FMT_DERIVED));
    xlsx_book_str(b, ws, row++, c1,
                  "Grey: a formula over the inputs. Model inputs are shown "
                  "for reference: changing the architecture needs a new run "
                  "of roofplan (per-plan FLOPs and bytes are values).",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    row++;
    xlsx_table_header(b, ws, &table, row);
    xlsx_book_freeze(b, ws, row + 1, 0);
    row++;

    row = inputs(b, ws, row, "Hardware", &r->hw->meta, &r->hw->spec, true);
    row = derived_rates(b, ws, row + 1);
    row = inputs(b, ws, row + 1, "Model", &r->m->meta, &r->m->spec, false);
    model_totals(b, ws, row + 1);
}
