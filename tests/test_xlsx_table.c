/*
 * test_xlsx_table: column tables — {key} templates expanded to A1
 * references (same row, a row above or below), headings with units,
 * chart ranges, and a small table written and read back: values,
 * formulas with their cached results, per-row formats and formulas,
 * empty cells, merged widths, an Excel table, a bad template.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test_util.h"
#include "xlsx_table.h"

enum { T_NAME, T_A, T_B, T_SUM, T_OK, T_NOTE };

/* clang-format off */
static const struct xlsx_column cols[] = {
    {"name", "Name", "", XLSX_FMT_TEXT, XLSX_FMT_HEAD_LEFT, 10, NULL, T_NAME},
    {"a", "A", "GB", XLSX_FMT_BIG, 0, 8, NULL, T_A},
    {"b", "B", "GB", XLSX_FMT_BIG, 0, 8, NULL, T_B},
    {"sum", "Sum", "GB", XLSX_FMT_BIG, XLSX_FMT_HEAD_LIVE, 0, "{a}+{b}",
     T_SUM},
    {"ok", "Small", "", XLSX_FMT_TEXT, 0, 12, "{sum}<=IB_GBPS", T_OK},
    {"note", NULL, "", XLSX_FMT_NOTE, 0, 12, NULL, T_NOTE},
};
/* clang-format on */

struct row {
    const char *name;
    double a, b;
    const char *formula; /* this row's Sum, or NULL */
    bool bold;
};

static void get(const void *item, int id, struct xlsx_value *out)
{
    const struct row *r = item;
    switch (id) {
    case T_NAME:
        out->kind = XLSX_TEXT;
        out->str = r->name;
        if (r->bold)
            out->fmt = XLSX_FMT_BOLD;
        break;
    case T_A:
    case T_B:
        out->kind = XLSX_NUM;
        out->num = id == T_A ? r->a : r->b;
        break;
    case T_SUM:
        out->kind = XLSX_NUM;
        out->num = r->a + r->b;
        if (r->formula)
            out->formula = r->formula;
        break;
    case T_OK:
        out->kind = XLSX_BOOL;
        out->flag = r->a + r->b <= 50;
        break;
    default: /* T_NOTE: no cell */
        break;
    }
}

static const struct xlsx_table table = {cols, sizeof cols / sizeof cols[0],
                                        XLSX_FMT_HEAD, get};

static void test_xlsx_table_formula_expands(void **state)
{
    char buf[128];
    (void)state;
    assert_true(xlsx_table_formula(&table, "{a}+{b}", 6, buf, sizeof buf));
    assert_string_equal(buf, "=B7+C7");
    assert_true(xlsx_table_formula(&table, "{sum}/IB_GBPS+IF({a}>0,1,0)", 0,
                                   buf, sizeof buf));
    assert_string_equal(buf, "=D1/IB_GBPS+IF(B1>0,1,0)");
    /* the row above and below (0-based row 52 is row 53) */
    assert_true(xlsx_table_formula(
        &table, "MIN(MAX(RIDGE_IB_BF16,{a@-1}),{a@+1})", 52, buf, sizeof buf));
    assert_string_equal(buf, "=MIN(MAX(RIDGE_IB_BF16,B52),B54)");
    assert_true(xlsx_table_formula(&table, "HBM_GIB", 3, buf, sizeof buf));
    assert_string_equal(buf, "=HBM_GIB");
}

static void test_xlsx_table_formula_rejects(void **state)
{
    char buf[128], small[8];
    (void)state;
    assert_false(xlsx_table_formula(&table, "{nosuch}+1", 1, buf, sizeof buf));
    assert_false(xlsx_table_formula(&table, "{a", 1, buf, sizeof buf));
    assert_false(xlsx_table_formula(&table, "{a@-1}", 0, buf, sizeof buf));
    assert_false(xlsx_table_formula(&table, "{a@x}", 3, buf, sizeof buf));
    /* a name the time model's registry does not know (a renamed input) */
    assert_false(xlsx_table_formula(&table, "{a}/R", 3, buf, sizeof buf));
    assert_false(xlsx_table_formula(&table, "{a}+{b}+1", 1, small,
                                    sizeof small)); /* "=B2+C2+1" is 8 */
}

static void test_xlsx_table_names(void **state)
{
    char buf[96];
    (void)state;
    assert_int_equal(xlsx_table_col(&table, "sum"), 3);
    assert_int_equal(xlsx_table_col(&table, "nosuch"), SIZE_MAX);
    xlsx_table_heading(&cols[T_A], buf, sizeof buf);
    assert_string_equal(buf, "A (GB)");
    xlsx_table_heading(&cols[T_OK], buf, sizeof buf);
    assert_string_equal(buf, "Small");
    xlsx_table_heading(&cols[T_NOTE], buf, sizeof buf);
    assert_string_equal(buf, "");
    xlsx_table_range(&table, "Roofline", "b", 68, 79, buf, sizeof buf);
    assert_string_equal(buf, "=Roofline!$C$69:$C$80");
}

/* Header at row 0, three rows under it; on a second sheet the same rows
 * under an Excel table. */
static void test_xlsx_table_write(void **state)
{
    static struct util_parts rep;
    const struct row rows[] = {
        {"x", 10, 20, NULL, false},
        {"y", 30, 40, "{a}*2", true},
        {"z", 1, 2, NULL, false},
    };
    char dir[64] = "/tmp/test_xlsx_table.XXXXXX", path[96];
    struct xlsx_book b;
    struct lxw_worksheet *ws;
    struct diag d;
    char *xml, *tab;
    size_t i;
    (void)state;
    diag_init(&d);
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.xlsx", dir);
    util_parts_init(&rep);
    assert_int_equal(xlsx_book_open(&b, &rep.v, path, XLSX_BOOK_TABLES, &d),
                     STATUS_OK);
    ws = xlsx_book_sheet(&b, "Sheet");
    xlsx_table_widths(&b, ws, &table);
    xlsx_table_header(&b, ws, &table, 0);
    for (i = 0; i < 3; i++)
        xlsx_table_row(&b, ws, &table, i + 1, &rows[i]);
    ws = xlsx_book_sheet(&b, "Table"); /* the same under an Excel table */
    for (i = 0; i < 3; i++)
        xlsx_table_row(&b, ws, &table, i + 1, &rows[i]);
    xlsx_table_excel(&b, ws, &table, "Things", 0, 3);
    assert_int_equal(xlsx_book_close(&b, &d), STATUS_OK);
    xml = util_zip_part(path, "xl/worksheets/sheet1.xml");
    tab = util_zip_part(path, "xl/tables/table1.xml");
    /* widths: 10 | 8 8 | (sum: none) | 12 12, in runs */
    assert_non_null(strstr(xml, "<col min=\"1\" max=\"1\" width=\"10.7"));
    assert_non_null(strstr(xml, "<col min=\"2\" max=\"3\" width=\"8.7"));
    assert_non_null(strstr(xml, "<col min=\"5\" max=\"6\" width=\"12.7"));
    assert_null(strstr(xml, "<col min=\"4\""));
    /* formulas expanded per row, with the C values cached */
    assert_non_null(strstr(xml, "<f>B2+C2</f><v>30</v>"));
    assert_non_null(strstr(xml, "<f>B4+C4</f><v>3</v>"));
    assert_non_null(strstr(xml, "<f>B3*2</f><v>70</v>")); /* this row's */
    /* a boolean formula caches 1 / 0 (libxlsxwriter caches no boolean) */
    assert_non_null(strstr(xml, "<f>D2&lt;=IB_GBPS</f><v>1</v>"));
    assert_non_null(strstr(xml, "<f>D3&lt;=IB_GBPS</f><v>0</v>"));
    assert_null(strstr(xml, "r=\"F2\"")); /* the getter gave nothing */
    assert_null(strstr(xml, "r=\"F1\"")); /* no header */
    assert_non_null(strstr(tab, "name=\"Things\""));
    assert_non_null(strstr(tab, "ref=\"A1:F4\""));
    assert_non_null(strstr(tab, "name=\"A (GB)\""));
    free(xml);
    free(tab);
    unlink(path);
    rmdir(dir);
}

/* A template naming no column is a programmer's error: the write fails
 * at close, naming it. */
static void test_xlsx_table_bad_template(void **state)
{
    static struct util_parts rep;
    static const struct xlsx_column bad[] = {
        {"a", "A", "", XLSX_FMT_NUM, 0, 0, "{nosuch}+1", 0},
    };
    const struct xlsx_table t = {bad, 1, XLSX_FMT_HEAD, get};
    const struct row r = {"x", 1, 2, NULL, false};
    char dir[64] = "/tmp/test_xlsx_table.XXXXXX", path[96], want[160];
    struct xlsx_book b;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.xlsx", dir);
    util_parts_init(&rep);
    assert_int_equal(xlsx_book_open(&b, &rep.v, path, XLSX_BOOK_TABLES, &d),
                     STATUS_OK);
    xlsx_table_row(&b, xlsx_book_sheet(&b, "Sheet"), &t, 1, &r);
    assert_int_equal(xlsx_book_close(&b, &d), STATUS_XLSX);
    snprintf(want, sizeof want, "%s: formula template {nosuch}+1: ", path);
    assert_memory_equal(d.msg, want, strlen(want));
    assert_int_equal(access(path, F_OK), -1);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_table_formula_expands),
        cmocka_unit_test(test_xlsx_table_formula_rejects),
        cmocka_unit_test(test_xlsx_table_names),
        cmocka_unit_test(test_xlsx_table_write),
        cmocka_unit_test(test_xlsx_table_bad_template),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
