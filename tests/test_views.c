/*
 * test_views: the number words the views and their writers share.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_views_thousands),
        cmocka_unit_test(test_views_sig3),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
