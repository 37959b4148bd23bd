/*
 * test_report_inputs: the files a report rests on — the SHA-256 of each
 * input (FIPS 180-2's test vectors), an unreadable file, the About
 * sheet's limit — and their release.
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

#include "report_inputs.h"
#include "test_util.h"

/* FIPS 180-2 appendix B.1: SHA-256("abc") = ba7816bf...; the empty
 * message's digest is e3b0c442... A file that cannot be read is an
 * error; every file is kept, however many. */
static void test_report_inputs_add(void **state)
{
    struct report_inputs *r = calloc(1, sizeof *r);
    char abc[] = "/tmp/test_report_XXXXXX", empty[] = "/tmp/test_report_XXXXXX";
    struct diag d;
    size_t i;
    (void)state;
    assert_non_null(r);
    util_temp_file(abc, "abc", 3);
    util_temp_file(empty, "", 0);
    diag_init(&d);
    assert_int_equal(report_inputs_add(r, "model", abc, &d), STATUS_OK);
    assert_int_equal(report_inputs_add(r, "sweep", empty, &d), STATUS_OK);
    assert_int_equal(r->ninputs, 2);
    assert_string_equal(r->input[0].role, "model");
    assert_string_equal(r->input[0].path, abc);
    assert_string_equal(r->input[0].sha256, "ba7816bf8f01cfea414140de5dae2223"
                                            "b00361a396177a9cb410ff61f20015ad");
    assert_string_equal(r->input[1].sha256, "e3b0c44298fc1c149afbf4c8996fb924"
                                            "27ae41e4649b934ca495991b7852b855");
    assert_int_equal(
        report_inputs_add(r, "hardware", "tests/data/no-such.ini", &d),
        STATUS_IO);
    assert_string_equal(d.msg, "tests/data/no-such.ini: cannot open: No such "
                               "file or directory");
    assert_int_equal(r->ninputs, 2);
    /* the About sheet lists every file, however many: 100 (the list had
     * room for 48 and refused the 49th, issue 35) */
    for (i = 2; i < 100; i++)
        assert_int_equal(report_inputs_add(r, "validation", abc, &d),
                         STATUS_OK);
    assert_int_equal(r->ninputs, 100);
    assert_string_equal(r->input[99].role, "validation");
    assert_string_equal(r->input[99].sha256, r->input[0].sha256);
    remove(abc);
    remove(empty);
    report_inputs_free(r);
    assert_int_equal(r->ninputs, 0);
    report_inputs_free(r); /* twice: nothing left */
    report_inputs_free(NULL);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_report_inputs_add),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
