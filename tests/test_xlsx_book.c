/*
 * test_xlsx_book: the workbook's life cycle and its helpers — every
 * format made from the table (aliases and shared number formats), cells
 * that cannot hold a value, a failed call that leaves the earlier file,
 * a full disk (a file-size limit) that truncates a part and is caught
 * before the rename, and the shared text helpers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "xlsx_book.h"
#include "test_util.h"

struct fixture {
    struct util_parts rep; /* only stored by the book */
    char dir[64];
    char path[128];
};

static int setup(void **state)
{
    static struct fixture f;
    memset(&f, 0, sizeof f);
    util_parts_init(&f.rep);
    f.rep.in.comm = COMM_TOPO;
    f.rep.in.generated = 1700000000;
    snprintf(f.dir, sizeof f.dir, "/tmp/test_xlsx_book.XXXXXX");
    if (!mkdtemp(f.dir))
        return -1;
    snprintf(f.path, sizeof f.path, "%s/report.xlsx", f.dir);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    unlink(f->path);
    rmdir(f->dir);
    return 0;
}

/* Entries of dir other than . and .. */
static size_t count_files(const char *dir)
{
    DIR *dp = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    if (!dp)
        return 0;
    while ((e = readdir(dp)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(dp);
    return n;
}

static void test_xlsx_book_formats_from_table(void **state)
{
    struct fixture *f = *state;
    struct xlsx_book b;
    struct diag d;
    struct lxw_format *four;
    int id;
    diag_init(&d);
    assert_int_equal(
        xlsx_book_open(&b, &f->rep.v, f->path, XLSX_BOOK_TABLES, &d),
        STATUS_OK);
    assert_non_null(xlsx_book_sheet(&b, "Sheet"));
    for (id = XLSX_FMT_NONE + 1; id < XLSX_FMT_COUNT; id++)
        assert_non_null(xlsx_book_fmt(&b, (enum xlsx_fmt)id));
    assert_null(xlsx_book_fmt(&b, XLSX_FMT_NONE));
    assert_ptr_equal(xlsx_book_fmt(&b, XLSX_FMT_DAYS),
                     xlsx_book_fmt(&b, XLSX_FMT_GIB));
    assert_ptr_equal(xlsx_book_fmt(&b, XLSX_FMT_GBPS),
                     xlsx_book_fmt(&b, XLSX_FMT_BIG));
    /* a column's number format shares the plain format of the table */
    assert_ptr_equal(xlsx_book_number(&b, "0.000"),
                     xlsx_book_fmt(&b, XLSX_FMT_SEC));
    assert_ptr_equal(xlsx_book_number(&b, "0"),
                     xlsx_book_fmt(&b, XLSX_FMT_INT));
    /* "0.0000" is only the derived cells' (grey): a plain one is made,
     * once */
    four = xlsx_book_number(&b, "0.0000");
    assert_non_null(four);
    assert_ptr_not_equal(four, xlsx_book_fmt(&b, XLSX_FMT_DERIVED));
    assert_ptr_equal(xlsx_book_number(&b, "0.0000"), four);
    assert_null(xlsx_book_number(&b, NULL));
    /* three formats per bound, in enum cost_bound order */
    assert_int_equal(xlsx_book_bound_fmt(COST_IB, XLSX_BOUND_SECONDS),
                     XLSX_FMT_BOUND0 + 4);
    assert_int_equal(xlsx_book_bound_fmt(COST_HBM, XLSX_BOUND_CF),
                     XLSX_FMT_COUNT - 1);
    assert_int_equal(xlsx_book_close(&b, &d), STATUS_OK);
    assert_int_equal(count_files(f->dir), 1);
}

/* Values a cell cannot hold: a number that is not finite becomes "n/a"
 * (libxlsxwriter would print "nan" into the XML), a formula's cached
 * result 0; text starting with '=' stays text. */
static void test_xlsx_book_cells(void **state)
{
    struct fixture *f = *state;
    struct xlsx_book b;
    struct lxw_worksheet *ws;
    struct diag d;
    char *xml, *sst;
    diag_init(&d);
    assert_int_equal(
        xlsx_book_open(&b, &f->rep.v, f->path, XLSX_BOOK_TABLES, &d),
        STATUS_OK);
    ws = xlsx_book_sheet(&b, "Sheet");
    xlsx_book_num(&b, ws, 0, 0, NAN, NULL);
    xlsx_book_num(&b, ws, 0, 1, 2.5, NULL);
    xlsx_book_formula_num(&b, ws, 0, 2, "=B1*2", INFINITY, NULL);
    xlsx_book_formula_num(&b, ws, 0, 3, "=B1*2", 5, NULL);
    xlsx_book_str(&b, ws, 1, 0, "=HYPERLINK(\"x\")", NULL);
    xlsx_book_strf(&b, ws, 1, 1, NULL, "%d GPUs", 2048);
    assert_int_equal(xlsx_book_close(&b, &d), STATUS_OK);
    xml = util_zip_part(f->path, "xl/worksheets/sheet1.xml");
    sst = util_zip_part(f->path, "xl/sharedStrings.xml");
    assert_null(strstr(xml, "nan"));
    assert_null(strstr(xml, "inf"));
    assert_non_null(strstr(sst, "<t>n/a</t>"));
    assert_non_null(strstr(xml, "<c r=\"B1\"><v>2.5</v></c>"));
    assert_non_null(strstr(xml, "<c r=\"C1\"><f>B1*2</f><v>0</v></c>"));
    assert_non_null(strstr(xml, "<c r=\"D1\"><f>B1*2</f><v>5</v></c>"));
    assert_null(strstr(xml, "<f>HYPERLINK"));
    assert_non_null(strstr(sst, "<t>=HYPERLINK(\"x\")</t>"));
    assert_non_null(strstr(sst, "<t>2048 GPUs</t>"));
    free(xml);
    free(sst);
}

/* No byte of part p is 0x80 or above but in a well-formed UTF-8
 * sequence of 2 to 4 bytes (RFC 3629 lead and continuation bytes), and
 * no C0 control but tab, newline and carriage return (XML 1.0 Char). */
static bool xml_utf8(const char *p)
{
    const unsigned char *s = (const unsigned char *)p;
    while (*s) {
        int n = *s >= 0xF0 && *s <= 0xF4   ? 3
                : *s >= 0xE0 && *s <= 0xEF ? 2
                : *s >= 0xC2 && *s <= 0xDF ? 1
                                           : 0;
        int k;
        if (*s >= 0x80 && n == 0)
            return false;
        if (*s < 0x20 && *s != '\t' && *s != '\n' && *s != '\r')
            return false;
        for (k = 1; k <= n; k++)
            if ((s[k] & 0xC0) != 0x80)
                return false;
        s += n + 1;
    }
    return true;
}

/*
 * Issue 34 item 4: text that is not UTF-8 (an output folder or argv[0] in
 * Latin-1: "M\xe4rz") or holds control characters reaches the workbook
 * through every writer of text (a cell, printf, a merged range, a link,
 * a formula's cached text, a table's header, the document properties)
 * as \xNN: each part is UTF-8 (openpyxl refused the sharedStrings.xml;
 * LibreOffice dropped the cells). Valid text, newlines included, is
 * written unchanged.
 */
static void test_xlsx_book_text_not_utf8(void **state)
{
    struct fixture *f = *state;
    struct xlsx_book b;
    struct lxw_worksheet *ws;
    struct lxw_format *head[1] = {NULL};
    const char *headers[1] = {"col \xe4"};
    struct diag d;
    char *part;
    size_t i;
    static const char *const parts[] = {
        "xl/sharedStrings.xml", "xl/worksheets/sheet1.xml", "docProps/core.xml",
        "xl/tables/table1.xml"};
    diag_init(&d);
    assert_int_equal(
        xlsx_book_open(&b, &f->rep.v, f->path, XLSX_BOOK_TABLES, &d),
        STATUS_OK);
    ws = xlsx_book_sheet(&b, "Sheet");
    xlsx_book_properties(&b, "title \xe4", "subject \x1b[2J", "c", 1);
    xlsx_book_str(&b, ws, 0, 0, "-o /tmp/M\xe4rz/out", NULL);
    xlsx_book_strf(&b, ws, 0, 1, NULL, "%s", "/M\xe4rz/roofplan");
    xlsx_book_merge(&b, ws, 1, 0, 2, "merged \xe4\x01", NULL);
    xlsx_book_link(&b, ws, 2, 0, "Sheet", "link \xe4");
    xlsx_book_formula_str(&b, ws, 2, 1, "=\"a\"", "cached \xe4", NULL);
    xlsx_book_str(&b, ws, 3, 0, "two\nlines caf\xc3\xa9", NULL);
    xlsx_book_str(&b, ws, 5, 0, "x", NULL);
    xlsx_book_table(&b, ws, "T", 4, 5, 1, headers, head);
    assert_int_equal(xlsx_book_close(&b, &d), STATUS_OK);
    for (i = 0; i < sizeof parts / sizeof parts[0]; i++) {
        part = util_zip_part(f->path, parts[i]);
        if (!xml_utf8(part))
            fail_msg("%s is not UTF-8 XML text", parts[i]);
        free(part);
    }
    part = util_zip_part(f->path, "xl/sharedStrings.xml");
    assert_non_null(strstr(part, "<t>-o /tmp/M\\xE4rz/out</t>"));
    assert_non_null(strstr(part, "<t>/M\\xE4rz/roofplan</t>"));
    assert_non_null(strstr(part, "<t>merged \\xE4\\x01</t>"));
    assert_non_null(strstr(part, "<t>link \\xE4</t>"));
    assert_non_null(strstr(part, "two\nlines caf\xc3\xa9</t>"));
    free(part);
    part = util_zip_part(f->path, "xl/worksheets/sheet1.xml");
    assert_non_null(strstr(part, "<v>cached \\xE4</v>"));
    free(part);
    part = util_zip_part(f->path, "docProps/core.xml");
    assert_non_null(strstr(part, "title \\xE4"));
    assert_non_null(strstr(part, "subject \\x1B[2J"));
    free(part);
    part = util_zip_part(f->path, "xl/tables/table1.xml");
    assert_non_null(strstr(part, "name=\"col \\xE4\""));
    free(part);
}

/* A failed call is reported by name at close; the earlier file stays
 * and no temporary file is left. */
static void test_xlsx_book_close_after_failed_call(void **state)
{
    struct fixture *f = *state;
    struct xlsx_book b;
    struct lxw_worksheet *ws;
    struct diag d;
    char want[256];
    diag_init(&d);
    util_write_text(NULL, f->path, "previous workbook");
    assert_int_equal(
        xlsx_book_open(&b, &f->rep.v, f->path, XLSX_BOOK_TABLES, &d),
        STATUS_OK);
    ws = xlsx_book_sheet(&b, "Sheet");
    xlsx_book_num(&b, ws, 2000000, 0, 1, NULL); /* past Excel's last row */
    xlsx_book_invalid(&b, "a later failure");   /* not the first */
    assert_int_equal(xlsx_book_close(&b, &d), STATUS_XLSX);
    snprintf(want, sizeof want, "%s: row index: ", f->path);
    assert_memory_equal(d.msg, want, strlen(want));
    assert_string_equal(util_read_text(NULL, f->path), "previous workbook");
    assert_int_equal(count_files(f->dir), 1);
}

/* A file-size limit (as a full disk) cuts the sheet's scratch file;
 * libxlsxwriter zips what is left without complaint. The check before
 * the rename catches it: STATUS_IO naming the part, the earlier file
 * intact, no temporary file left (the scratch files are in the same
 * directory and already unlinked). */
static void test_xlsx_book_full_disk(void **state)
{
    struct fixture *f = *state;
    struct xlsx_book b;
    struct lxw_worksheet *ws;
    struct rlimit old, lim;
    struct diag d;
    char want[256];
    size_t row, col;
    diag_init(&d);
    util_write_text(NULL, f->path, "previous workbook");
    assert_int_equal(
        xlsx_book_open(&b, &f->rep.v, f->path, XLSX_BOOK_TABLES, &d),
        STATUS_OK);
    ws = xlsx_book_sheet(&b, "Sheet");
    /* about 1.3 MB of sheet XML that deflates to about a tenth */
    for (row = 0; row < 10000; row++)
        for (col = 0; col < 4; col++)
            xlsx_book_num(&b, ws, row, col, 1, NULL);
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    lim = old;
    lim.rlim_cur = 512 * 1024;
    signal(SIGXFSZ, SIG_IGN); /* a write over the limit fails (EFBIG) */
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &lim), 0);
    assert_int_equal(xlsx_book_close(&b, &d), STATUS_IO);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    snprintf(want, sizeof want,
             "%s: incomplete workbook part xl/worksheets/sheet1.xml (disk "
             "full?)",
             f->path);
    assert_string_equal(d.msg, want);
    assert_string_equal(util_read_text(NULL, f->path), "previous workbook");
    assert_int_equal(count_files(f->dir), 1);
}

static void test_xlsx_book_open_unwritable(void **state)
{
    struct fixture *f = *state;
    struct xlsx_book b;
    struct diag d;
    diag_init(&d);
    assert_int_equal(xlsx_book_open(&b, &f->rep.v, "/nonexistent-dir/r.xlsx",
                                    XLSX_BOOK_TABLES, &d),
                     STATUS_IO);
    assert_string_equal(
        d.msg, "/nonexistent-dir/r.xlsx: cannot write: No such file or "
               "directory");
}

static void test_xlsx_book_text(void **state)
{
    struct fixture *f = *state;
    char buf[64];
    /* the report's date as figures wrote it (test_figures checks it) */
    snprintf(f->rep.v.when, sizeof f->rep.v.when, "2023-11-14 22:13 UTC");
    xlsx_book_when(&f->rep.v, buf, sizeof buf);
    assert_string_equal(buf, "2023-11-14 22:13 UTC");
    assert_string_equal(xlsx_book_other_model(&f->rep.v), "flat");
    /* 100 characters in a 20-wide column at 11 pt: 20 x 11/11 x 1.05 =
     * 21 a line, ceil(100/21) = 5 lines of 11 x 1.32 pt, + 3 */
    assert_near(xlsx_book_text_height(100, 20, 11), 5 * 11 * 1.32 + 3, 1e-12);
    assert_near(xlsx_book_text_height(0, 20, 11), 11 * 1.32 + 3, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_book_formats_from_table),
        cmocka_unit_test(test_xlsx_book_cells),
        cmocka_unit_test(test_xlsx_book_text_not_utf8),
        cmocka_unit_test(test_xlsx_book_close_after_failed_call),
        cmocka_unit_test(test_xlsx_book_full_disk),
        cmocka_unit_test(test_xlsx_book_open_unwritable),
        cmocka_unit_test(test_xlsx_book_text),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
