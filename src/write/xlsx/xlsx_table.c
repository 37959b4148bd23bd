/*
 * xlsx_table: column tables written through xlsx_book (see xlsx_table.h).
 * Column letters come from plans_table_col_name(), the one A1 naming of
 * the project.
 */
#include "xlsx_table.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plans_table.h"
#include "terms_inputs.h"

#define KEY_MAX  32
#define COLS_MAX 64 /* columns of an Excel table */

size_t xlsx_table_col(const struct xlsx_table *t, const char *key)
{
    size_t k;
    for (k = 0; t && k < t->ncols; k++)
        if (strcmp(t->col[k].key, key) == 0)
            return k;
    return SIZE_MAX;
}

void xlsx_value_num(struct xlsx_value *out, double v)
{
    out->kind = XLSX_NUM;
    out->num = v;
}

void xlsx_value_text(struct xlsx_value *out, const char *s)
{
    out->kind = XLSX_TEXT;
    out->str = s;
}

void xlsx_table_heading(const struct xlsx_column *c, char *buf, size_t size)
{
    if (!c->header)
        snprintf(buf, size, "%s", "");
    else if (c->unit && c->unit[0])
        snprintf(buf, size, "%s (%s)", c->header, c->unit);
    else
        snprintf(buf, size, "%s", c->header);
}

static enum xlsx_fmt head_fmt(const struct xlsx_table *t, size_t k)
{
    return t->col[k].head_fmt ? t->col[k].head_fmt : t->head_fmt;
}

void xlsx_table_header(struct xlsx_book *b,
                       struct lxw_worksheet *ws,
                       const struct xlsx_table *t,
                       size_t row)
{
    char h[160];
    size_t k;
    for (k = 0; k < t->ncols; k++) {
        if (!t->col[k].header)
            continue;
        xlsx_table_heading(&t->col[k], h, sizeof h);
        xlsx_book_str(b, ws, row, k, h, xlsx_book_fmt(b, head_fmt(t, k)));
    }
}

/* Appends s to buf at *used; false when it does not fit. */
static bool append(char *buf, size_t size, size_t *used, const char *s)
{
    size_t n = strlen(s);
    if (*used + n + 1 > size)
        return false;
    memcpy(buf + *used, s, n + 1);
    *used += n;
    return true;
}

bool xlsx_table_formula(const struct xlsx_table *t,
                        const char *tmpl,
                        size_t row,
                        char *buf,
                        size_t size)
{
    const char *s = tmpl;
    size_t used = 0;
    if (size < 2)
        return false;
    buf[used++] = '=';
    buf[used] = '\0';
    while (*s) {
        if (*s == '{') {
            const char *end = strchr(s, '}'), *at;
            char key[KEY_MAX], ref[40], col[8];
            long delta = 0;
            size_t len, k;
            if (!end || (size_t)(end - s - 1) >= sizeof key)
                return false;
            len = (size_t)(end - s - 1);
            memcpy(key, s + 1, len);
            key[len] = '\0';
            at = strchr(key, '@');
            if (at) { /* {key@-1}: the row above */
                char *stop;
                delta = strtol(at + 1, &stop, 10);
                if (stop == at + 1 || *stop != '\0')
                    return false;
                key[at - key] = '\0';
            }
            k = xlsx_table_col(t, key);
            if (k == SIZE_MAX || (delta < 0 && (size_t)-delta > row))
                return false;
            plans_table_col_name(k, col, sizeof col);
            snprintf(ref, sizeof ref, "%s%zu", col,
                     (size_t)((long)row + delta) + 1);
            if (!append(buf, size, &used, ref))
                return false;
            s = end + 1;
        } else {
            /* a string as it is; anything else one token the registry
             * knows (an unknown name fails, as in plans_table) */
            const char *end = *s == '"' ? strchr(s + 1, '"') : NULL;
            size_t len = *s == '"' ? (end ? (size_t)(end - s) + 1 : 0)
                                   : terms_template_token(s);
            if (len == 0 || used + len + 1 > size)
                return false;
            memcpy(buf + used, s, len);
            used += len;
            buf[used] = '\0';
            s += len;
        }
    }
    return true;
}

void xlsx_table_cell(struct xlsx_book *b,
                     struct lxw_worksheet *ws,
                     const struct xlsx_table *t,
                     size_t row,
                     size_t col,
                     const struct xlsx_value *v)
{
    char formula[XLSX_TABLE_FORMULA_MAX];
    struct lxw_format *f = v->raw ? v->raw : xlsx_book_fmt(b, v->fmt);
    static const struct xlsx_table none = {NULL, 0, XLSX_FMT_NONE, NULL};
    if (v->kind == XLSX_EMPTY)
        return;
    if (v->formula) {
        if (!xlsx_table_formula(t ? t : &none, v->formula, row, formula,
                                sizeof formula)) {
            char what[160];
            snprintf(what, sizeof what, "formula template %.120s", v->formula);
            xlsx_book_invalid(b, what);
            return;
        }
        if (v->array && v->kind == XLSX_NUM)
            xlsx_book_array_num(b, ws, row, col, formula, v->num, f);
        else if (v->kind == XLSX_NUM)
            xlsx_book_formula_num(b, ws, row, col, formula, v->num, f);
        else if (v->kind == XLSX_BOOL) /* a 1 / 0 result: see XLSX_FMT_FITS */
            xlsx_book_formula_num(b, ws, row, col, formula, v->flag ? 1 : 0, f);
        else
            xlsx_book_formula_str(b, ws, row, col, formula, v->str, f);
    } else if (v->kind == XLSX_NUM) {
        xlsx_book_num(b, ws, row, col, v->num, f);
    } else if (v->kind == XLSX_BOOL) {
        xlsx_book_bool(b, ws, row, col, v->flag, f);
    } else {
        xlsx_book_str(b, ws, row, col, v->str, f);
    }
}

void xlsx_table_row(struct xlsx_book *b,
                    struct lxw_worksheet *ws,
                    const struct xlsx_table *t,
                    size_t row,
                    const void *item)
{
    struct xlsx_value v;
    size_t k;
    for (k = 0; k < t->ncols; k++) {
        v.kind = XLSX_EMPTY;
        v.num = 0;
        v.flag = false;
        v.str = "";
        v.formula = t->col[k].formula;
        v.array = false;
        v.fmt = t->col[k].fmt;
        v.raw = NULL;
        v.buf[0] = '\0';
        t->get(item, t->col[k].id, &v);
        xlsx_table_cell(b, ws, t, row, k, &v);
    }
}

void xlsx_table_widths(struct xlsx_book *b,
                       struct lxw_worksheet *ws,
                       const struct xlsx_table *t)
{
    size_t k = 0, end;
    while (k < t->ncols) {
        double w = t->col[k].width;
        for (end = k + 1; end < t->ncols && t->col[end].width == w; end++)
            ;
        if (w > 0)
            xlsx_book_width(b, ws, k, end - 1, w);
        k = end;
    }
}

void xlsx_table_excel(struct xlsx_book *b,
                      struct lxw_worksheet *ws,
                      const struct xlsx_table *t,
                      const char *name,
                      size_t first,
                      size_t last)
{
    char heads[COLS_MAX][160];
    const char *hp[COLS_MAX];
    struct lxw_format *fp[COLS_MAX];
    size_t k;
    if (t->ncols > COLS_MAX) {
        xlsx_book_invalid(b, name);
        return;
    }
    for (k = 0; k < t->ncols; k++) {
        xlsx_table_heading(&t->col[k], heads[k], sizeof heads[k]);
        hp[k] = heads[k];
        fp[k] = xlsx_book_fmt(b, head_fmt(t, k));
    }
    xlsx_book_table(b, ws, name, first, last, t->ncols, hp, fp);
}

void xlsx_table_range(const struct xlsx_table *t,
                      const char *sheet,
                      const char *key,
                      size_t first,
                      size_t last,
                      char *buf,
                      size_t size)
{
    char col[8] = "?";
    size_t k = xlsx_table_col(t, key);
    if (k != SIZE_MAX)
        plans_table_col_name(k, col, sizeof col);
    snprintf(buf, size, "=%s!$%s$%zu:$%s$%zu", sheet, col, first + 1, col,
             last + 1);
}
