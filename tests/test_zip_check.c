/*
 * test_zip_check: packages written here with minizip's zip API — a good
 * one passes; one whose XML part was cut short (as on a full disk) fails
 * naming that part; a bad CRC, a file that is no zip, and the XML shapes
 * a part may take (declaration, comment, prefix, self-closing root,
 * trailing newline).
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

#include <minizip/zip.h>
#include <zlib.h>

#include "zip_check.h"

/* One entry: its name and contents; crc 0: the right one. */
struct entry {
    const char *name;
    const char *text;
    unsigned long crc; /* a wrong CRC to record (stored, raw), or 0 */
};

static char path[64];

static int setup(void **state)
{
    int fd;
    (void)state;
    snprintf(path, sizeof path, "/tmp/test_zip_check.XXXXXX");
    fd = mkstemp(path);
    if (fd < 0)
        return -1;
    close(fd);
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    unlink(path);
    return 0;
}

/* Writes the n entries e into the zip at path (deflated, or stored
 * with the given wrong CRC). */
static void write_zip(const struct entry *e, size_t n)
{
    zipFile zf = zipOpen64(path, APPEND_STATUS_CREATE);
    size_t i;
    assert_non_null(zf);
    for (i = 0; i < n; i++) {
        unsigned len = (unsigned)strlen(e[i].text);
        if (e[i].crc) {
            assert_int_equal(zipOpenNewFileInZip2(zf, e[i].name, NULL, NULL, 0,
                                                  NULL, 0, NULL, 0, 0, 1),
                             ZIP_OK);
            assert_int_equal(zipWriteInFileInZip(zf, e[i].text, len), ZIP_OK);
            assert_int_equal(zipCloseFileInZipRaw(zf, len, e[i].crc), ZIP_OK);
        } else {
            assert_int_equal(zipOpenNewFileInZip64(zf, e[i].name, NULL, NULL, 0,
                                                   NULL, 0, NULL, Z_DEFLATED, 6,
                                                   0),
                             ZIP_OK);
            assert_int_equal(zipWriteInFileInZip(zf, e[i].text, len), ZIP_OK);
            assert_int_equal(zipCloseFileInZip(zf), ZIP_OK);
        }
    }
    assert_int_equal(zipClose(zf, NULL), ZIP_OK);
}

/* The parts of a small workbook as libxlsxwriter writes them. */
static const char sheet[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
    "<worksheet xmlns=\"http://schemas.openxmlformats.org/spreadsheetml/"
    "2006/main\"><sheetData><row r=\"1\"><c r=\"A1\"><v>1</v></c></row>"
    "</sheetData></worksheet>";
static const char rels[] =
    "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n"
    "<Relationships xmlns=\"http://schemas.openxmlformats.org/package/2006/"
    "relationships\"><Relationship Id=\"rId1\" Target=\"x\"/>"
    "</Relationships>\n";
static const char chart[] =
    "<?xml version=\"1.0\"?><!-- a comment -->\r\n<c:chartSpace "
    "xmlns:c=\"x\" a='>'><c:chart/></c:chartSpace>  \n";

static void test_zip_check_package_good(void **state)
{
    const struct entry e[] = {
        {"[Content_Types].xml", "<Types a=\"b\"/>", 0},
        {"_rels/.rels", rels, 0},
        {"xl/worksheets/sheet1.xml", sheet, 0},
        {"xl/charts/chart1.xml", chart, 0},
        {"xl/media/image1.png", "\x89PNG not XML, not checked for tags", 0},
    };
    struct diag d;
    (void)state;
    diag_init(&d);
    write_zip(e, sizeof e / sizeof e[0]);
    assert_int_equal(zip_check_package(path, "out/report.xlsx", &d), STATUS_OK);
    assert_string_equal(d.msg, "");
}

/* The sheet cut where a full disk would cut it: zipped intact (its CRC
 * matches what was read back), yet it lacks </worksheet>. */
static void test_zip_check_package_truncated_part(void **state)
{
    char cut[sizeof sheet];
    const struct entry e[] = {
        {"_rels/.rels", rels, 0},
        {"xl/worksheets/sheet3.xml", cut, 0},
    };
    struct diag d;
    (void)state;
    diag_init(&d);
    memcpy(cut, sheet, sizeof sheet);
    cut[strlen(sheet) - 5] = '\0'; /* "...</sheetData></works" */
    write_zip(e, sizeof e / sizeof e[0]);
    assert_int_equal(zip_check_package(path, "out/report.xlsx", &d), STATUS_IO);
    assert_string_equal(d.msg, "out/report.xlsx: incomplete workbook part "
                               "xl/worksheets/sheet3.xml (disk full?)");
}

/* A part cut inside its XML declaration, before the root: incomplete. */
static void test_zip_check_package_no_root(void **state)
{
    const struct entry e[] = {{"xl/workbook.xml", "<?xml version=", 0}};
    struct diag d;
    (void)state;
    diag_init(&d);
    write_zip(e, 1);
    assert_int_equal(zip_check_package(path, "r.xlsx", &d), STATUS_IO);
    assert_string_equal(
        d.msg, "r.xlsx: incomplete workbook part xl/workbook.xml (disk full?)");
}

/* A self-closing root must end the part; another element may not. */
static void test_zip_check_package_self_closing_root(void **state)
{
    const struct entry ok[] = {{"a.rels", "<?xml?>\n<Types/>\n", 0}};
    const struct entry cut[] = {{"a.rels", "<Types><Default/>", 0}};
    struct diag d;
    (void)state;
    diag_init(&d);
    write_zip(ok, 1);
    assert_int_equal(zip_check_package(path, "r.xlsx", &d), STATUS_OK);
    write_zip(cut, 1);
    assert_int_equal(zip_check_package(path, "r.xlsx", &d), STATUS_IO);
    assert_string_equal(d.msg,
                        "r.xlsx: incomplete workbook part a.rels (disk full?)");
}

/* A part whose bytes do not match its CRC (any entry, XML or not). */
static void test_zip_check_package_bad_crc(void **state)
{
    const struct entry e[] = {{"xl/media/image1.png", "some bytes", 1234}};
    struct diag d;
    (void)state;
    diag_init(&d);
    write_zip(e, 1);
    assert_int_equal(zip_check_package(path, "r.xlsx", &d), STATUS_IO);
    assert_string_equal(d.msg, "r.xlsx: corrupt workbook part "
                               "xl/media/image1.png: CRC mismatch (minizip "
                               "error -105)");
}

static void test_zip_check_package_not_a_zip(void **state)
{
    FILE *f = fopen(path, "w");
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_non_null(f);
    fputs("previous workbook", f);
    assert_int_equal(fclose(f), 0);
    assert_int_equal(zip_check_package(path, "r.xlsx", &d), STATUS_IO);
    assert_string_equal(
        d.msg, "r.xlsx: cannot read the written workbook: not a zip file");
    assert_int_equal(zip_check_package("/nonexistent/x.zip", "x.xlsx", &d),
                     STATUS_IO);
}

/* A part larger than the buffers: its first and last bytes are what
 * count, whatever lies between. */
static void test_zip_check_package_large_part(void **state)
{
    size_t n = 300000, i;
    char *big = malloc(n + 64);
    const struct entry *e;
    struct entry one;
    struct diag d;
    (void)state;
    assert_non_null(big);
    snprintf(big, n, "<sst count=\"1\">");
    for (i = strlen(big); i < n; i++)
        big[i] = (char)('a' + i % 26);
    snprintf(big + n, 64, "</sst>");
    one.name = "xl/sharedStrings.xml";
    one.text = big;
    one.crc = 0;
    e = &one;
    diag_init(&d);
    write_zip(e, 1);
    assert_int_equal(zip_check_package(path, "r.xlsx", &d), STATUS_OK);
    big[n + 4] = '\0'; /* "</ss" */
    write_zip(e, 1);
    assert_int_equal(zip_check_package(path, "r.xlsx", &d), STATUS_IO);
    free(big);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_zip_check_package_good),
        cmocka_unit_test(test_zip_check_package_truncated_part),
        cmocka_unit_test(test_zip_check_package_no_root),
        cmocka_unit_test(test_zip_check_package_self_closing_root),
        cmocka_unit_test(test_zip_check_package_bad_crc),
        cmocka_unit_test(test_zip_check_package_not_a_zip),
        cmocka_unit_test(test_zip_check_package_large_part),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
