/*
 * test_report: the report document's own helpers — the SHA-256 of each
 * input (FIPS 180-2's test vectors), the family colours and indexes on a
 * report set up by hand, a kept row's times from its work (by hand on the
 * H800 snapshot's rates), and release.
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

#include "report.h"
#include "test_util.h"

/* FIPS 180-2 appendix B.1: SHA-256("abc") = ba7816bf...; the empty
 * message's digest is e3b0c442... A file that cannot be read is an
 * error; past REPORT_INPUTS_MAX inputs are left out, silently. */
static void test_report_add_input(void **state)
{
    struct report *r = calloc(1, sizeof *r);
    char abc[] = "/tmp/test_report_XXXXXX", empty[] = "/tmp/test_report_XXXXXX";
    struct diag d;
    size_t i;
    (void)state;
    assert_non_null(r);
    util_temp_file(abc, "abc", 3);
    util_temp_file(empty, "", 0);
    diag_init(&d);
    assert_int_equal(report_add_input(r, "model", abc, &d), STATUS_OK);
    assert_int_equal(report_add_input(r, "sweep", empty, &d), STATUS_OK);
    assert_int_equal(r->ninputs, 2);
    assert_string_equal(r->input[0].role, "model");
    assert_string_equal(r->input[0].path, abc);
    assert_string_equal(r->input[0].sha256, "ba7816bf8f01cfea414140de5dae2223"
                                            "b00361a396177a9cb410ff61f20015ad");
    assert_string_equal(r->input[1].sha256, "e3b0c44298fc1c149afbf4c8996fb924"
                                            "27ae41e4649b934ca495991b7852b855");
    assert_int_equal(
        report_add_input(r, "hardware", "tests/data/no-such.ini", &d),
        STATUS_IO);
    assert_string_equal(d.msg, "tests/data/no-such.ini: cannot open: No such "
                               "file or directory");
    assert_int_equal(r->ninputs, 2);
    for (i = 2; i < REPORT_INPUTS_MAX; i++)
        assert_int_equal(report_add_input(r, "validation", abc, &d), STATUS_OK);
    /* one more than the About sheet holds is an error, not a file left
     * off the list unseen */
    diag_init(&d);
    assert_int_equal(report_add_input(r, "validation", abc, &d), STATUS_RANGE);
    assert_non_null(strstr(d.msg, "more than"));
    assert_int_equal(r->ninputs, REPORT_INPUTS_MAX);
    remove(abc);
    remove(empty);
    report_free(r);
    free(r);
}

/*
 * Four families, found by name (the colours are figures_views', tested in
 * test_figures); a name not among them is -1.
 */
static void test_report_family_index(void **state)
{
    struct report *r = calloc(1, sizeof *r);
    static const char *const names[] = {"A", "ZeRO-3", "C", "D"};
    static const bool fits[] = {true, false, true, false};
    size_t i;
    (void)state;
    assert_non_null(r);
    r->nfamilies = 4;
    for (i = 0; i < 4; i++) {
        snprintf(r->family[i].name, sizeof r->family[i].name, "%s", names[i]);
        r->family[i].best.fits = fits[i];
    }
    r->families_by_step[0] = 2;
    r->families_by_step[1] = 0;
    r->families_by_step[2] = 3;
    r->families_by_step[3] = 1;
    assert_int_equal(report_family_index(r, "ZeRO-3"), 1);
    assert_int_equal(report_family_index(r, "D"), 3);
    assert_int_equal(report_family_index(r, "E"), -1);
    free(r);
}

/* Release frees the rows and closes the spill files; a zeroed report and
 * NULL are fine, and so is a second release. */
static void test_report_free(void **state)
{
    struct report *r = calloc(1, sizeof *r);
    (void)state;
    assert_non_null(r);
    report_free(NULL);
    report_free(r);
    r->rows = calloc(4, sizeof *r->rows);
    r->nrows = 4;
    r->spill = calloc(2, sizeof *r->spill);
    assert_non_null(r->spill);
    r->nspill = 2;
    r->spill[0] = tmpfile();
    assert_non_null(r->spill[0]);
    report_free(r); /* ASan reports a leak if a file or the rows stay */
    assert_null(r->rows);
    assert_int_equal(r->nrows, 0);
    assert_null(r->spill);
    assert_int_equal(r->nspill, 0);
    report_free(r);
    free(r);
}

/* Thousands separators, rounding to whole numbers (by hand). */
static void test_report_thousands(void **state)
{
    char buf[32];
    (void)state;
    report_thousands(12345678.4, buf, sizeof buf);
    assert_string_equal(buf, "12,345,678");
    report_thousands(-1234.6, buf, sizeof buf);
    assert_string_equal(buf, "-1,235");
    report_thousands(999, buf, sizeof buf);
    assert_string_equal(buf, "999");
    report_thousands(0.2, buf, sizeof buf);
    assert_string_equal(buf, "0");
    report_thousands(2e18, buf, sizeof buf);
    assert_string_equal(buf, "2e+18");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_thousands),
        cmocka_unit_test(test_report_add_input),
        cmocka_unit_test(test_report_family_index),
        cmocka_unit_test(test_report_free),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
