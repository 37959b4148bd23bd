/*
 * xlsx_assumptions: the Assumptions sheet (see xlsx_assumptions.h). Three
 * blocks on one grid of columns: the inputs the formulas read (the time
 * model's registry, terms_inputs: editable, named, validated), the rates
 * derived from them (their registry formulas), and every other value of
 * the data files, plainly styled, which applies when roofplan runs again.
 */
#include "xlsx_assumptions.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <xlsxwriter.h>

#include "calibration.h"
#include "collectives.h"
#include "plans_table.h"
#include "stack.h"
#include "sweep.h"
#include "terms_inputs.h"
#include "xlsx_goodput.h"
#include "xlsx_table.h"

enum col_id { A_NAME, A_VALUE, A_UNIT, A_MEANING, A_KEY, A_SOURCE };

/* clang-format off */
static const struct xlsx_column columns[] = {
    {.key = "name", .header = "Name", .fmt = XLSX_FMT_TEXT, .width = 26, .id = A_NAME},
    {.key = "value", .header = "Value", .fmt = XLSX_FMT_IN_NUM, .width = 22, .id = A_VALUE},
    {.key = "unit", .header = "Unit", .fmt = XLSX_FMT_TEXT, .width = 9, .id = A_UNIT},
    {.key = "meaning", .header = "Meaning", .fmt = XLSX_FMT_TEXT, .width = 60, .id = A_MEANING},
    {.key = "key", .header = "File: section.key", .fmt = XLSX_FMT_TEXT, .width = 30, .id = A_KEY},
    {.key = "source", .header = "Source", .fmt = XLSX_FMT_TEXT, .width = 90, .id = A_SOURCE},
};
/* clang-format on */
#define NCOLS (sizeof columns / sizeof columns[0])

enum row_kind {
    ROW_INPUT,   /* an input of the registry: editable, named */
    ROW_DERIVED, /* a derived name of the registry: its formula */
    ROW_RERUN,   /* a data-file value no formula reads */
    ROW_VALUE    /* a model total computed by roofplan */
};

struct row {
    int kind;
    const struct terms_input *in; /* ROW_INPUT, ROW_DERIVED */
    /* ROW_INPUT, ROW_RERUN: the field and where its value lives */
    const struct datafile_meta *meta;
    const struct datafile_schema *schema;
    long field;
    const void *spec;
    const char *file;         /* "hardware", "model", "sweep" */
    double v;                 /* ROW_INPUT, ROW_DERIVED, ROW_VALUE */
    const char *label, *unit; /* ROW_VALUE */
};

/* The text of a field's value (strings, enums, lists, bools). */
static void field_text(const struct datafile_field *f,
                       const void *spec,
                       char *buf,
                       size_t size)
{
    const char *base = (const char *)spec + f->offset;
    buf[0] = '\0';
    if (f->type == DATAFILE_STRING) {
        snprintf(buf, size, "%.*s", (int)f->size, base);
    } else if (f->type == DATAFILE_BOOL) {
        snprintf(buf, size, "%s",
                 *(const bool *)(const void *)base ? "TRUE" : "FALSE");
    } else if (f->type == DATAFILE_ENUM || f->type == DATAFILE_LIST) {
        const struct datafile_list *l = (const void *)base;
        size_t n = f->type == DATAFILE_ENUM ? 1 : l->n, i, used = 0;
        for (i = 0; i < n && used + 1 < size; i++) {
            double v = f->type == DATAFILE_ENUM
                           ? *(const int *)(const void *)base
                           : l->v[i];
            char item[64] = "";
            if (f->word) {
                const char *w = f->word((int)v);
                snprintf(item, sizeof item, "%s", w ? w : "");
            } else {
                snprintf(item, sizeof item, "%g", v);
            }
            used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                     i ? " " : "", item);
        }
    }
}

/* A whole number of 10,000 and above reads better with separators
 * (TRAINING_TOKENS: 14,800,000,000,000). */
static bool thousands(double v)
{
    return fabs(v) >= 1e4 && v == floor(v);
}

static const struct datafile_field *field_of(const struct row *r)
{
    return &r->schema->fields[r->field];
}

static void get(const void *item, int id, struct xlsx_value *out)
{
    const struct row *r = item;
    const struct datafile_field *f =
        r->kind == ROW_INPUT || r->kind == ROW_RERUN ? field_of(r) : NULL;
    switch (id) {
    case A_NAME:
        if (r->in)
            xlsx_value_text(out, r->in->name);
        else if (r->kind == ROW_VALUE)
            xlsx_value_text(out, r->label);
        break;
    case A_VALUE:
        if (r->kind == ROW_INPUT) {
            xlsx_value_num(out, r->v);
            out->fmt = thousands(r->v) ? XLSX_FMT_IN_INT : XLSX_FMT_IN_NUM;
        } else if (r->kind == ROW_DERIVED) {
            xlsx_value_num(out, r->v);
            out->formula = r->in->formula;
            out->fmt = XLSX_FMT_DERIVED;
        } else if (r->kind == ROW_VALUE) {
            xlsx_value_num(out, r->v);
            out->fmt = XLSX_FMT_BIG;
        } else if (f->type == DATAFILE_INT || f->type == DATAFILE_DOUBLE) {
            double v =
                f->type == DATAFILE_INT
                    ? (double)*(
                          const long *)(const void *)((const char *)r->spec +
                                                      f->offset)
                    : *(const double *)(const void *)((const char *)r->spec +
                                                      f->offset);
            xlsx_value_num(out, v);
            out->fmt = thousands(v) ? XLSX_FMT_PLAIN_INT : XLSX_FMT_PLAIN;
        } else {
            field_text(f, r->spec, out->buf, sizeof out->buf);
            xlsx_value_text(out, out->buf);
            out->fmt = XLSX_FMT_PLAIN;
        }
        break;
    case A_UNIT:
        xlsx_value_text(out, r->in ? r->in->unit
                             : f   ? (f->unit ? f->unit : "")
                                   : r->unit);
        break;
    case A_MEANING:
        if (r->kind == ROW_DERIVED)
            xlsx_value_text(out, r->in->meaning);
        else if (f)
            xlsx_value_text(out, f->help ? f->help : "");
        break;
    case A_KEY:
        if (f) {
            snprintf(out->buf, sizeof out->buf, "%s: %s.%s", r->file,
                     f->section, f->key);
            xlsx_value_text(out, out->buf);
        } else if (r->kind == ROW_DERIVED) {
            snprintf(out->buf, sizeof out->buf, "=%s", r->in->formula);
            xlsx_value_text(out, out->buf); /* the formula, for a printout */
        }
        break;
    default:
        if (f && r->meta)
            xlsx_value_text(out,
                            datafile_meta_source(r->meta, (size_t)r->field));
        else if (f)
            xlsx_value_text(out, "default");
        break;
    }
    if (r->kind == ROW_RERUN && out->fmt == XLSX_FMT_TEXT)
        out->fmt = XLSX_FMT_PLAIN;
}

static const struct xlsx_table table = {columns, NCOLS, XLSX_FMT_HEAD_LEFT,
                                        get};

/* The Value cell of row `row` as an absolute reference. */
static void value_ref(size_t row, char *buf, size_t size)
{
    char col[8];
    plans_table_col_name(xlsx_table_col(&table, "value"), col, sizeof col);
    snprintf(buf, size, "=%s!$%s$%zu", XLSX_ASSUMPTIONS_SHEET, col, row + 1);
}

/* Data validation of an input from its schema range: an edit outside it
 * (IB_GBPS = 0, which would divide every plan's time by zero) is refused
 * with a message instead of filling the sheets with #DIV/0!. */
static void validate(struct xlsx_book *b,
                     lxw_worksheet *ws,
                     size_t row,
                     const struct row *r)
{
    const struct datafile_field *f = field_of(r);
    char what[160], msg[256], title[40], *owned[2];
    lxw_data_validation dv;
    size_t col = xlsx_table_col(&table, "value");
    memset(&dv, 0, sizeof dv);
    dv.validate = f->type == DATAFILE_INT ? LXW_VALIDATION_TYPE_INTEGER
                                          : LXW_VALIDATION_TYPE_DECIMAL;
    if (f->max >= HUGE_VAL) {
        dv.criteria = f->min_open
                          ? LXW_VALIDATION_CRITERIA_GREATER_THAN
                          : LXW_VALIDATION_CRITERIA_GREATER_THAN_OR_EQUAL_TO;
        dv.value_number = f->min;
    } else {
        dv.criteria = LXW_VALIDATION_CRITERIA_BETWEEN;
        /* (min, max]: the smallest step above min Excel keeps */
        dv.minimum_number =
            f->min_open ? f->min + fmax(fabs(f->min), 1) * 1e-12 : f->min;
        dv.maximum_number = f->max;
    }
    datafile_describe(f, what, sizeof what);
    diag_snprintf(title, sizeof title, "%.*s", diag_utf8_prec(r->in->name, 31),
                  r->in->name);
    diag_snprintf(msg, sizeof msg, "%s: %s%s%s (the %s file's %s.%s).",
                  r->in->name, what, r->in->unit[0] ? " " : "", r->in->unit,
                  r->file, f->section, f->key);
    /* read only, by libxlsxwriter */
    dv.error_title = (char *)xlsx_book_text(b, title, &owned[0]);
    dv.error_message = (char *)xlsx_book_text(b, msg, &owned[1]);
    dv.show_error = LXW_VALIDATION_ON;
    dv.error_type = LXW_VALIDATION_ERROR_TYPE_STOP;
    if (dv.error_title && dv.error_message)
        xlsx_book_check(b,
                        worksheet_data_validation_cell(ws, (lxw_row_t)row,
                                                       (lxw_col_t)col, &dv),
                        "worksheet_data_validation_cell");
    free(owned[0]);
    free(owned[1]);
}

/* Writes row r at `row`, naming (and validating) an input's or derived
 * name's Value cell. */
static void
put_row(struct xlsx_book *b, lxw_worksheet *ws, size_t row, const struct row *r)
{
    char ref[96];
    xlsx_table_row(b, ws, &table, row, r);
    if (r->kind != ROW_INPUT && r->kind != ROW_DERIVED)
        return;
    value_ref(row, ref, sizeof ref);
    xlsx_book_define(b, r->in->name, ref);
    if (r->kind == ROW_INPUT)
        validate(b, ws, row, r);
}

/* The file an input comes from, its struct and its meta. */
static void source_of(const struct views *r, int origin, struct row *out)
{
    out->meta = NULL;
    out->spec = NULL;
    out->schema = NULL;
    switch (origin) {
    case TERMS_HARDWARE:
        out->meta = &r->in->hw->meta;
        out->spec = &r->in->hw->spec;
        out->schema = hardware_schema();
        out->file = "hardware";
        break;
    case TERMS_MODEL:
        out->meta = &r->in->m->meta;
        out->spec = &r->in->m->spec;
        out->schema = model_schema();
        out->file = "model";
        break;
    case TERMS_CALIBRATION: /* none without a calibration: no row */
        out->meta = r->in->hw->cal ? &r->in->hw->cal->meta : NULL;
        out->spec = r->in->hw->cal ? (const void *)&r->in->hw->cal->spec : NULL;
        out->schema = calibration_schema();
        out->file = "calibration";
        break;
    case TERMS_STACK: /* the stack's free factors, with the expected step */
        out->meta = r->in->hw->stack ? &r->in->hw->stack->meta : NULL;
        out->spec =
            r->in->hw->stack ? (const void *)&r->in->hw->stack->spec : NULL;
        out->schema = stack_schema();
        out->file = "stack";
        break;
    case TERMS_COLLECTIVES: /* without a collectives file: 0, "default" */
        out->meta = r->in->hw->coll ? &r->in->hw->coll->meta : NULL;
        out->spec =
            r->in->hw->coll ? (const void *)&r->in->hw->coll->spec : NULL;
        out->schema = collectives_schema();
        out->file = "collectives";
        break;
    default:
        out->meta = r->in->sweep ? &r->in->sweep->meta : NULL;
        out->spec = r->in->sweep ? (const void *)&r->in->sweep->spec : NULL;
        out->schema = sweep_schema();
        out->file = "sweep";
        break;
    }
}

/* The registry's inputs (editable), then its derived names. */
static size_t inputs(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    size_t n, i;
    const struct terms_input *in = terms_inputs(&n);
    int pass;
    for (pass = 0; pass < 2; pass++) {
        xlsx_book_str(b, ws, row++, 0,
                      pass == 0 ? "Inputs the formulas read: edit one and "
                                  "Plans, Summary, Memory, Communication "
                                  "and Roofline follow"
                                : "Derived rates (formulas over the inputs)",
                      xlsx_book_fmt(b, XLSX_FMT_H2));
        xlsx_table_header(b, ws, &table, row++);
        for (i = 0; i < n; i++) {
            struct row rw;
            memset(&rw, 0, sizeof rw);
            rw.in = &in[i];
            if ((in[i].origin == TERMS_DERIVED) != (pass == 1) ||
                !terms_input_available(&in[i], r->in->hw))
                continue;
            rw.kind = pass == 0 ? ROW_INPUT : ROW_DERIVED;
            if (pass == 0) {
                source_of(r, in[i].origin, &rw);
                rw.field = terms_input_field(&in[i]);
                if (rw.field < 0 || !rw.spec) {
                    /* no sweep file: the schema's default */
                    rw.spec = NULL;
                }
            }
            if (!terms_input_value(&in[i], r->in->hw, r->in->m, r->in->sweep,
                                   &rw.v) ||
                (pass == 0 && rw.field < 0)) {
                xlsx_book_invalid(b, in[i].name);
                continue;
            }
            if (pass == 0 && !rw.spec)
                rw.meta = NULL;
            put_row(b, ws, row++, &rw);
        }
        row++;
    }
    return row;
}

/* A data file's fields that no formula reads, plainly styled. */
static size_t rerun_file(struct xlsx_book *b,
                         lxw_worksheet *ws,
                         size_t row,
                         int origin,
                         const char *only_section)
{
    size_t n, i, k;
    const struct terms_input *in = terms_inputs(&n);
    struct row rw;
    memset(&rw, 0, sizeof rw);
    rw.kind = ROW_RERUN;
    source_of(b->r, origin, &rw);
    if (!rw.spec)
        return row;
    for (k = 0; k < rw.schema->n; k++) {
        bool read = false;
        if (only_section &&
            strcmp(rw.schema->fields[k].section, only_section) != 0)
            continue;
        for (i = 0; i < n && !read; i++)
            read =
                in[i].origin == origin && terms_input_field(&in[i]) == (long)k;
        if (read ||
            (rw.schema->fields[k].quiet && rw.meta && !rw.meta->given[k]))
            continue;
        rw.field = (long)k;
        put_row(b, ws, row++, &rw);
    }
    return row;
}

/* The model's totals, as values. */
static size_t model_totals(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct model *m = b->r->in->m;
    const struct row rows[] = {
        {ROW_VALUE, NULL, NULL, NULL, 0, NULL, NULL, m->params_total / 1e9,
         "parameters, main model (embedding and head counted)", "B"},
        {ROW_VALUE, NULL, NULL, NULL, 0, NULL, NULL, m->params_active / 1e9,
         "parameters active per token", "B"},
        {ROW_VALUE, NULL, NULL, NULL, 0, NULL, NULL, m->flops_per_token / 1e9,
         "model FLOPs per token, forward + backward (with MTP if enabled)",
         "GFLOP"},
        {ROW_VALUE, NULL, NULL, NULL, 0, NULL, NULL,
         m->flops_per_token_main / 1e9,
         "model FLOPs per token, main model only", "GFLOP"},
    };
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        xlsx_table_row(b, ws, &table, row++, &rows[i]);
    return row;
}

void xlsx_assumptions_write(struct xlsx_book *b, lxw_worksheet *ws)
{
    const struct views *r = b->r;
    size_t row = 0;

    worksheet_set_tab_color(ws, XLSX_COLOR_INPUTS);
    xlsx_book_page(b, ws, XLSX_PAGE_TABLE);
    xlsx_table_widths(b, ws, &table);
    xlsx_book_str(b, ws, row++, 0,
                  "Assumptions: the inputs, with their units and sources",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    /* the legend: a sample cell of each kind and what it means */
    xlsx_book_str(b, ws, row, 0, "input", xlsx_book_fmt(b, XLSX_FMT_IN_TEXT));
    xlsx_book_str(b, ws, row++, 1,
                  "Blue on yellow: an input a formula reads (a named cell, "
                  "e.g. IB_GBPS). Edit it and the plans re-time, re-fit and "
                  "re-rank; a value out of range is refused with a message.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    xlsx_book_str(b, ws, row, 0, "derived", xlsx_book_fmt(b, XLSX_FMT_DERIVED));
    xlsx_book_str(b, ws, row++, 1, "Grey: a formula over the inputs.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    xlsx_book_str(b, ws, row, 0, "re-run", xlsx_book_fmt(b, XLSX_FMT_PLAIN));
    xlsx_book_str(b, ws, row++, 1,
                  "Grey text: applies when roofplan is run again (per-plan "
                  "FLOPs, bytes and memory parts are values computed from "
                  "it); editing it here changes nothing.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    row++;
    xlsx_book_freeze(b, ws, row, 0);
    row = inputs(b, ws, row);
    row = xlsx_goodput_write(b, ws, row);

    xlsx_book_str(b, ws, row++, 0,
                  "Applies when roofplan is run again (values no formula "
                  "reads)",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_table_header(b, ws, &table, row++);
    xlsx_book_strf(b, ws, row++, 0, xlsx_book_fmt(b, XLSX_FMT_BOLD),
                   "Hardware: %s", r->in->hw->meta.path);
    row = rerun_file(b, ws, row, TERMS_HARDWARE, NULL);
    if (r->in->hw->coll) { /* the algorithms' choice is made from these */
        xlsx_book_strf(b, ws, row++, 0, xlsx_book_fmt(b, XLSX_FMT_BOLD),
                       "Collectives: %s", r->in->hw->coll->meta.path);
        row = rerun_file(b, ws, row, TERMS_COLLECTIVES, NULL);
    }
    xlsx_book_strf(b, ws, row++, 0, xlsx_book_fmt(b, XLSX_FMT_BOLD),
                   "Model: %s", r->in->m->meta.path);
    row = rerun_file(b, ws, row, TERMS_MODEL, NULL);
    if (r->in->sweep) {
        xlsx_book_strf(b, ws, row++, 0, xlsx_book_fmt(b, XLSX_FMT_BOLD),
                       "Sweep: %s ([report])", r->in->sweep->meta.path);
        row = rerun_file(b, ws, row, TERMS_SWEEP, "report");
    }
    xlsx_book_str(b, ws, row++, 0, "Derived from the model (values)",
                  xlsx_book_fmt(b, XLSX_FMT_BOLD));
    row = model_totals(b, ws, row);
    xlsx_book_print_area(b, ws, 0, row - 1, NCOLS - 1);
}
