/*
 * test_plot_format: numbers as the charts print them, checked against
 * values written out by hand.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "plot_format.h"
#include "test_util.h"

static void test_plot_format_num_groups_thousands(void **state)
{
    char buf[32];
    (void)state;
    plot_format_num(12870, buf, sizeof buf);
    assert_string_equal(buf, "12,870");
    plot_format_num(1234567.4, buf, sizeof buf);
    assert_string_equal(buf, "1,234,567");
    plot_format_num(-1500, buf, sizeof buf);
    assert_string_equal(buf, "-1,500");
    plot_format_num(100, buf, sizeof buf);
    assert_string_equal(buf, "100");
    /* below 100: three significant digits */
    plot_format_num(1.5, buf, sizeof buf);
    assert_string_equal(buf, "1.5");
    plot_format_num(99.96, buf, sizeof buf);
    assert_string_equal(buf, "100");
    plot_format_num(0.012345, buf, sizeof buf);
    assert_string_equal(buf, "0.0123");
    plot_format_num(INFINITY, buf, sizeof buf);
    assert_string_equal(buf, "inf");
}

static void test_plot_format_num_truncates_to_size(void **state)
{
    char buf[5];
    (void)state;
    /* "12,870" does not fit in 4 characters: cut as snprintf cuts, to
     * the first 4, still terminated */
    plot_format_num(12870, buf, sizeof buf);
    assert_int_equal(strlen(buf), 4);
    assert_string_equal(buf, "12,8");
}

static void test_plot_format_si_picks_prefix(void **state)
{
    char buf[32];
    (void)state;
    plot_format_si(512, buf, sizeof buf);
    assert_string_equal(buf, "512");
    plot_format_si(12870, buf, sizeof buf);
    assert_string_equal(buf, "12.9k");
    plot_format_si(2.5e6, buf, sizeof buf);
    assert_string_equal(buf, "2.5M");
    /* 999.7 would print as "1e+03" without a prefix */
    plot_format_si(999.7, buf, sizeof buf);
    assert_string_equal(buf, "1k");
}

static void test_plot_format_axis_ends(void **state)
{
    (void)state;
    assert_near(plot_format_pow10_floor(350), 100, 1e-12);
    assert_near(plot_format_pow10_ceil(350), 1000, 1e-12);
    assert_near(plot_format_pow10_floor(0.05), 0.01, 1e-12);
    assert_near(plot_format_nice_ceil(7.3), 8, 1e-12);
    assert_near(plot_format_nice_ceil(21), 25, 1e-12);
    assert_near(plot_format_nice_ceil(110), 120, 1e-12);
    assert_near(plot_format_nice_ceil(100), 100, 1e-12);
    assert_near(plot_format_nice_ceil(0.9), 1, 1e-12);
}

static void test_plot_format_grow_range_widens(void **state)
{
    double lo = INFINITY, hi = 0;
    (void)state;
    plot_format_grow_range(5, &lo, &hi);
    plot_format_grow_range(2, &lo, &hi);
    plot_format_grow_range(9, &lo, &hi);
    assert_near(lo, 2, 0);
    assert_near(hi, 9, 0);
}

static void test_plot_format_color_is_rrggbb(void **state)
{
    char buf[16];
    (void)state;
    plot_format_color(0x0077BB, buf, sizeof buf);
    assert_string_equal(buf, "#0077BB");
    plot_format_color(0xFF0077BBu, buf, sizeof buf); /* alpha byte dropped */
    assert_string_equal(buf, "#0077BB");
}

/* The title's font (issue 18: titles clipped with long model names): 22
 * points up to 96 characters (the 1552 px across at 16.1 px a character,
 * measured), then 22 x 96 / n in half points, at least 11. 83 characters
 * (DeepSeek's sensitivity title): 22; 150: 22 x 96 / 150 = 14.08 -> 14;
 * 120 (multi-byte characters count once: 40 x "\xC3\x97" + 80 x "a"):
 * 17.6 -> 17.5; 300: 7.04 -> 11. */
static void test_plot_format_title_pt(void **state)
{
    char t[700];
    (void)state;
    memset(t, 'a', 83);
    t[83] = '\0';
    assert_true(plot_format_title_pt(t) == 22);
    memset(t, 'a', 150);
    t[150] = '\0';
    assert_true(plot_format_title_pt(t) == 14);
    t[0] = '\0';
    for (int i = 0; i < 40; i++)
        strcat(t, "\xC3\x97");
    memset(t + 80, 'a', 80);
    t[160] = '\0';
    assert_true(plot_format_title_pt(t) == 17.5);
    memset(t, 'a', 300);
    t[300] = '\0';
    assert_true(plot_format_title_pt(t) == 11);
}

/* A subtitle line (issue 18 item 8: nothing clipped): 150 characters
 * keep 15 pt; 200: 15 x 150 / 200 = 11.25 -> 11; 163: 13.80 -> 13.5;
 * 400: 5.6 -> the floor, 10. */
static void test_plot_format_sub_pt(void **state)
{
    char t[500];
    (void)state;
    memset(t, 'a', 150);
    t[150] = '\0';
    assert_true(plot_format_sub_pt(t) == 15);
    memset(t, 'a', 200);
    t[200] = '\0';
    assert_true(plot_format_sub_pt(t) == 11);
    t[163] = '\0';
    assert_true(plot_format_sub_pt(t) == 13.5);
    memset(t, 'a', 400);
    t[400] = '\0';
    assert_true(plot_format_sub_pt(t) == 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plot_format_title_pt),
        cmocka_unit_test(test_plot_format_sub_pt),
        cmocka_unit_test(test_plot_format_num_groups_thousands),
        cmocka_unit_test(test_plot_format_num_truncates_to_size),
        cmocka_unit_test(test_plot_format_si_picks_prefix),
        cmocka_unit_test(test_plot_format_axis_ends),
        cmocka_unit_test(test_plot_format_grow_range_widens),
        cmocka_unit_test(test_plot_format_color_is_rrggbb),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
