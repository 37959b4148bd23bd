/*
 * util_xlsx: reading a written workbook back in the unit tests — a zip
 * entry, a sheet's cells by address (number, text, formula), a column's
 * row of a text, the defined names (see test_util.h).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minizip/unzip.h>

#include "test_util.h"
#include "xlsx_book.h"

char *util_zip_entry(const char *path, const char *name)
{
    unzFile uf = unzOpen64(path);
    unz_file_info64 info;
    char *buf;
    if (!uf)
        fail_msg("%s: not a zip file", path);
    if (unzLocateFile(uf, name, 1) != UNZ_OK) {
        unzClose(uf);
        return NULL;
    }
    assert_int_equal(
        unzGetCurrentFileInfo64(uf, &info, NULL, 0, NULL, 0, NULL, 0), UNZ_OK);
    buf = calloc(1, (size_t)info.uncompressed_size + 1);
    assert_non_null(buf);
    assert_int_equal(unzOpenCurrentFile(uf), UNZ_OK);
    assert_int_equal(
        unzReadCurrentFile(uf, buf, (unsigned)info.uncompressed_size),
        (int)info.uncompressed_size);
    assert_int_equal(unzCloseCurrentFile(uf), UNZ_OK);
    unzClose(uf);
    return buf;
}

/* Appends text[0..len) to buf (of size n, used so far: *used) with the
 * XML entities decoded; truncates at n - 1. */
static void
xml_decode(const char *text, size_t len, char *buf, size_t n, size_t *used)
{
    static const struct {
        const char *name;
        char c;
    } ent[] = {{"&amp;", '&'},
               {"&lt;", '<'},
               {"&gt;", '>'},
               {"&quot;", '"'},
               {"&apos;", '\''}};
    size_t i = 0, k;
    while (i < len && *used + 1 < n) {
        char c = text[i++];
        if (c == '&')
            for (k = 0; k < sizeof ent / sizeof ent[0]; k++)
                if (strncmp(text + i - 1, ent[k].name, strlen(ent[k].name)) ==
                    0) {
                    c = ent[k].c;
                    i += strlen(ent[k].name) - 1;
                    break;
                }
        buf[(*used)++] = c;
    }
    buf[*used] = '\0';
}

/* The text of every <t> element in [p, end), decoded, into a malloc'd
 * string (a shared string: plain, or rich text of several runs). */
static char *t_text(const char *p, const char *end)
{
    size_t cap = (size_t)(end - p) + 1, used = 0;
    char *out = malloc(cap);
    assert_non_null(out);
    out[0] = '\0';
    while ((p = strstr(p, "<t")) != NULL && p < end) {
        const char *open = strchr(p, '>'), *close;
        if (!open || open >= end)
            break;
        if (p[2] != '>' && p[2] != ' ') { /* <tag...>, not <t> */
            p = open;
            continue;
        }
        if (open[-1] == '/') { /* <t/>: empty */
            p = open;
            continue;
        }
        close = strstr(open, "</t>");
        if (!close || close > end)
            break;
        xml_decode(open + 1, (size_t)(close - open - 1), out, cap, &used);
        p = close + 4;
    }
    return out;
}

void util_xlsx_read(struct util_xlsx *x, const char *path, int sheet)
{
    char name[64], *sst;
    const char *p;
    size_t cap = 0;
    memset(x, 0, sizeof *x);
    x->book = util_zip_entry(path, "xl/workbook.xml");
    snprintf(name, sizeof name, "xl/worksheets/sheet%d.xml", sheet);
    x->sheet = util_zip_entry(path, name);
    if (!x->book || !x->sheet)
        fail_msg("%s: no %s", path, x->book ? name : "xl/workbook.xml");
    sst = util_zip_entry(path, "xl/sharedStrings.xml");
    for (p = sst; p && (p = strstr(p, "<si>")) != NULL;) {
        const char *end = strstr(p, "</si>");
        assert_non_null(end);
        if (x->nstrings == cap) {
            cap = cap ? 2 * cap : 64;
            x->strings = realloc(x->strings, cap * sizeof *x->strings);
            assert_non_null(x->strings);
        }
        x->strings[x->nstrings++] = t_text(p + 4, end);
        p = end + 5;
    }
    free(sst);
}

void util_xlsx_free(struct util_xlsx *x)
{
    size_t i;
    for (i = 0; i < x->nstrings; i++)
        free(x->strings[i]);
    free(x->strings);
    free(x->book);
    free(x->sheet);
    memset(x, 0, sizeof *x);
}

/* Cell ref of the sheet: its start tag's attributes in [*attr, *body),
 * its content in [*body, *end) (empty for <c .../>). false when the
 * sheet has no such cell. */
static bool cell_at(const struct util_xlsx *x,
                    const char *ref,
                    const char **attr,
                    const char **body,
                    const char **end)
{
    char tag[32];
    const char *c, *gt;
    snprintf(tag, sizeof tag, "<c r=\"%s\"", ref); /* the quote ends it */
    c = strstr(x->sheet, tag);
    if (!c)
        return false;
    gt = strchr(c, '>');
    assert_non_null(gt);
    *attr = c;
    if (gt[-1] == '/') {
        *body = *end = gt;
        return true;
    }
    *body = gt + 1;
    *end = strstr(*body, "</c>");
    assert_non_null(*end);
    return true;
}

/* The content of element <name> (or <name ...>) in [p, end), as
 * [*from, *to); false when there is none. */
static bool element(const char *p,
                    const char *end,
                    const char *name,
                    const char **from,
                    const char **to)
{
    char open[16], close[16];
    size_t len;
    snprintf(open, sizeof open, "<%s", name);
    snprintf(close, sizeof close, "</%s>", name);
    len = strlen(open);
    for (; (p = strstr(p, open)) != NULL && p < end; p += len) {
        const char *gt;
        if (p[len] != '>' && p[len] != ' ')
            continue;
        gt = strchr(p, '>');
        if (!gt || gt >= end || gt[-1] == '/')
            return false;
        *from = gt + 1;
        *to = strstr(*from, close);
        return *to != NULL && *to <= end;
    }
    return false;
}

/* The value of attribute t of a cell's start tag ("" when none). */
static void cell_type(const char *attr, const char *body, char *t, size_t n)
{
    const char *p = strstr(attr, " t=\"");
    t[0] = '\0';
    if (p && p < body)
        snprintf(t, n, "%.*s", (int)strcspn(p + 4, "\""), p + 4);
}

double util_xlsx_num(const struct util_xlsx *x, const char *ref)
{
    const char *attr, *body, *end, *v, *ve;
    char t[16];
    if (!cell_at(x, ref, &attr, &body, &end))
        return NAN;
    cell_type(attr, body, t, sizeof t);
    if (t[0] && strcmp(t, "n") != 0)
        return NAN;
    if (!element(body, end, "v", &v, &ve))
        return NAN;
    return strtod(v, NULL);
}

const char *
util_xlsx_text(const struct util_xlsx *x, const char *ref, char *buf, size_t n)
{
    const char *attr, *body, *end, *v, *ve;
    char t[16];
    size_t used = 0;
    buf[0] = '\0';
    if (!cell_at(x, ref, &attr, &body, &end))
        return buf;
    cell_type(attr, body, t, sizeof t);
    if (strcmp(t, "inlineStr") == 0) {
        char *s = t_text(body, end);
        snprintf(buf, n, "%s", s);
        free(s);
    } else if (element(body, end, "v", &v, &ve)) {
        if (strcmp(t, "s") == 0) {
            long k = strtol(v, NULL, 10);
            assert_true(k >= 0 && (size_t)k < x->nstrings);
            snprintf(buf, n, "%s", x->strings[k]);
        } else if (strcmp(t, "b") == 0) {
            snprintf(buf, n, "%s", *v == '1' ? "TRUE" : "FALSE");
        } else {
            xml_decode(v, (size_t)(ve - v), buf, n, &used);
        }
    }
    return buf;
}

const char *util_xlsx_formula(const struct util_xlsx *x,
                              const char *ref,
                              char *buf,
                              size_t n)
{
    const char *attr, *body, *end, *f, *fe;
    size_t used = 0;
    buf[0] = '\0';
    if (cell_at(x, ref, &attr, &body, &end) && element(body, end, "f", &f, &fe))
        xml_decode(f, (size_t)(fe - f), buf, n, &used);
    return buf;
}

size_t
util_xlsx_find(const struct util_xlsx *x, const char *col, const char *text)
{
    size_t len = strlen(col);
    const char *p = x->sheet;
    char ref[32], got[2048];
    while ((p = strstr(p, "<c r=\"")) != NULL) {
        p += 6;
        if (strncmp(p, col, len) != 0 || p[len] < '0' || p[len] > '9')
            continue;
        snprintf(ref, sizeof ref, "%.*s", (int)strcspn(p, "\""), p);
        if (strcmp(util_xlsx_text(x, ref, got, sizeof got), text) == 0)
            return (size_t)strtoul(ref + len, NULL, 10);
    }
    return 0;
}

const char *
util_xlsx_name(const struct util_xlsx *x, const char *name, char *buf, size_t n)
{
    char tag[128];
    const char *p, *end;
    size_t used = 0;
    snprintf(tag, sizeof tag, "<definedName name=\"%s\">", name);
    p = strstr(x->book, tag);
    if (!p)
        return NULL;
    p += strlen(tag);
    end = strstr(p, "</definedName>");
    assert_non_null(end);
    buf[0] = '\0';
    xml_decode(p, (size_t)(end - p), buf, n, &used);
    return buf;
}

double util_xlsx_num_at(const struct util_xlsx *x, char col, size_t row)
{
    char ref[32];
    snprintf(ref, sizeof ref, "%c%zu", col, row);
    return util_xlsx_num(x, ref);
}

const char *util_xlsx_text_at(const struct util_xlsx *x,
                              char col,
                              size_t row,
                              char *buf,
                              size_t n)
{
    char ref[32];
    snprintf(ref, sizeof ref, "%c%zu", col, row);
    return util_xlsx_text(x, ref, buf, n);
}

char *util_zip_part(const char *path, const char *name)
{
    char *buf = util_zip_entry(path, name);
    if (!buf)
        fail_msg("%s: no entry %s", path, name);
    return buf;
}

struct util_book *util_book_new(const char *name, bool expected)
{
    struct util_book *f = calloc(1, sizeof *f);
    assert_non_null(f);
    util_snap_report(&f->s, expected);
    snprintf(f->dir, sizeof f->dir, "/tmp/%s.XXXXXX", name);
    if (!mkdtemp(f->dir))
        fail_msg("mkdtemp %s: %s", f->dir, strerror(errno));
    snprintf(f->path, sizeof f->path, "%s/book.xlsx", f->dir);
    return f;
}

void util_book_write(struct util_book *f,
                     enum xlsx_book_mode mode,
                     void (*write)(struct xlsx_book *b))
{
    struct xlsx_book b;
    struct diag d;
    diag_init(&d);
    if (xlsx_book_open(&b, &f->s.rep.v, f->path, mode, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    write(&b);
    if (xlsx_book_close(&b, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    util_xlsx_free(&f->x);
    util_xlsx_read(&f->x, f->path, 1);
}

void util_book_free(struct util_book *f)
{
    util_xlsx_free(&f->x);
    util_remove_tree(f->dir);
    util_snap_free(&f->s);
    free(f);
}
