/*
 * test_views: the number words the views and their writers share.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "views.h"

/* Thousands separators, rounding to whole numbers (by hand). */
static void test_views_thousands(void **state)
{
    char buf[32];
    (void)state;
    views_thousands(12345678.4, buf, sizeof buf);
    assert_string_equal(buf, "12,345,678");
    views_thousands(-1234.6, buf, sizeof buf);
    assert_string_equal(buf, "-1,235");
    views_thousands(999, buf, sizeof buf);
    assert_string_equal(buf, "999");
    views_thousands(0.2, buf, sizeof buf);
    assert_string_equal(buf, "0");
    views_thousands(2e18, buf, sizeof buf);
    assert_string_equal(buf, "2e+18");
}

/* Three significant digits in fixed notation (by hand). */
static void test_views_sig3(void **state)
{
    char buf[32];
    (void)state;
    views_sig3(16.14, buf, sizeof buf);
    assert_string_equal(buf, "16.1");
    views_sig3(0.90149, buf, sizeof buf);
    assert_string_equal(buf, "0.901");
    views_sig3(1614.9, buf, sizeof buf);
    assert_string_equal(buf, "1610");
    views_sig3(47.46, buf, sizeof buf);
    assert_string_equal(buf, "47.5");
}

/* Percentages for sentences (issue 36): 5.6 -> "6"; 0.96 rounds to
 * "1"; 0.3 keeps a decimal, never "0"; 0.04 is "under 0.1". */
static void test_views_pct(void **state)
{
    char buf[32];
    (void)state;
    views_pct(5.6, buf, sizeof buf);
    assert_string_equal(buf, "6");
    views_pct(0.96, buf, sizeof buf);
    assert_string_equal(buf, "1");
    views_pct(0.3, buf, sizeof buf);
    assert_string_equal(buf, "0.3");
    views_pct(0.04, buf, sizeof buf);
    assert_string_equal(buf, "under 0.1");
}

/*
 * A sentence is as long as its words (issue 35: sentences were cut at
 * 1,600 bytes): 3,000 characters kept whole; one said again replaces the
 * first (freed: ASan would report it); views_finish leaves each unset
 * sentence "" (a writer reads every one as a string) and those set as
 * they were; views_free releases them all.
 */
static void test_views_say_whole_sentences(void **state)
{
    struct views v;
    char *long_text = malloc(3001);
    (void)state;
    assert_non_null(long_text);
    memset(long_text, 'x', 3000);
    long_text[3000] = '\0';
    memset(&v, 0, sizeof v);
    views_say(&v, &v.note_sweep, "first %d", 1);
    views_say(&v, &v.note_sweep, "%s.", long_text);
    assert_int_equal(strlen(v.note_sweep), 3001);
    assert_memory_equal(v.note_sweep, long_text, 3000);
    assert_false(v.nomem);
    assert_null(v.headline.verdict);
    assert_true(views_finish(&v));
    assert_string_equal(v.headline.verdict, "");
    assert_string_equal(v.sens[1].line2, "");
    assert_int_equal(strlen(v.note_sweep), 3001);
    views_free(&v);
    assert_null(v.note_sweep);
    assert_null(v.headline.verdict);
    free(long_text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views_thousands),
        cmocka_unit_test(test_views_sig3),
        cmocka_unit_test(test_views_pct),
        cmocka_unit_test(test_views_say_whole_sentences),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
