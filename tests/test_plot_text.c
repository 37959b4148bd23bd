/*
 * test_plot_text: the growing text buffer and the one quoting function
 * through which text from data files enters a gnuplot script.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "plot_text.h"

/* ---- Buffer ---- */

static void test_plot_text_add_grows_past_first_block(void **state)
{
    struct plot_text t = {0};
    char big[1000];
    (void)state;
    memset(big, 'x', sizeof big);
    plot_text_add(&t, "ab", 2);
    plot_text_add(&t, big, sizeof big); /* past the first 256 bytes */
    plot_text_printf(&t, "%d-%s", 42, "z");
    assert_false(t.nomem);
    assert_int_equal(t.len, 2 + 1000 + 4);
    assert_memory_equal(t.p, "ab", 2);
    assert_string_equal(t.p + 1002, "42-z");
    assert_true(t.cap >= t.len + 1);
    plot_text_clear(&t);
    assert_int_equal(t.len, 0);
    assert_string_equal(t.p, "");
    plot_text_release(&t);
    assert_null(t.p);
}

static void test_plot_text_printf_longer_than_stack_buffer(void **state)
{
    struct plot_text t = {0};
    char want[2001];
    (void)state;
    memset(want, 'y', 2000);
    want[2000] = '\0';
    /* 2000 bytes: more than the 512 formatted on the stack */
    plot_text_printf(&t, "%s", want);
    assert_int_equal(t.len, 2000);
    assert_string_equal(t.p, want);
    plot_text_release(&t);
}

static void test_plot_text_add_quoted_appends_literal(void **state)
{
    struct plot_text t = {0};
    (void)state;
    plot_text_printf(&t, "set label ");
    plot_text_add_quoted(&t, "it's\n]]>");
    assert_string_equal(t.p, "set label 'it''s ]] >'");
    plot_text_release(&t);
}

/* ---- Quoting ---- */

static void test_plot_text_quote_doubles_quotes(void **state)
{
    char buf[64];
    (void)state;
    assert_true(plot_text_quote("it's", buf, sizeof buf));
    assert_string_equal(buf, "'it''s'");
    assert_true(plot_text_quote("", buf, sizeof buf));
    assert_string_equal(buf, "''");
}

static void test_plot_text_quote_replaces_control_characters(void **state)
{
    char buf[64];
    (void)state;
    assert_true(plot_text_quote("a\nb\\\nc\td\x7f\r", buf, sizeof buf));
    assert_string_equal(buf, "'a b\\ c d  '");
}

static void test_plot_text_quote_keeps_text_literal(void **state)
{
    char buf[128];
    (void)state;
    /* gnuplot expands none of these inside single quotes */
    assert_true(plot_text_quote("`id` @m \"x\" {y}^2 & <b>", buf, sizeof buf));
    assert_string_equal(buf, "'`id` @m \"x\" {y}^2 & <b>'");
}

static void test_plot_text_quote_breaks_cdata_end(void **state)
{
    char buf[64];
    (void)state;
    /* gnuplot's SVG terminal escapes & and < but not >: "]]>" in a name
     * would end up verbatim in the SVG's character data, where XML
     * forbids it. Every occurrence is broken, also inside "]]]>". */
    assert_true(plot_text_quote("a]]>b]]]>c", buf, sizeof buf));
    assert_string_equal(buf, "'a]] >b]]] >c'");
    /* only the exact sequence: these stay as they are */
    assert_true(plot_text_quote("] ]> ]>> ]]", buf, sizeof buf));
    assert_string_equal(buf, "'] ]> ]>> ]]'");
    assert_true(plot_text_quote("]]>", buf, sizeof buf));
    assert_string_equal(buf, "']] >'");
}

static void test_plot_text_quote_worst_case_fits_documented_size(void **state)
{
    /* 2 * strlen + 3: every byte doubled ("''''") or "]]>" growing by
     * one, and the two quotes with the NUL. */
    char buf[2 * 6 + 3];
    (void)state;
    assert_true(plot_text_quote("''''''", buf, sizeof buf));
    assert_string_equal(buf, "''''''''''''''");
    assert_true(plot_text_quote("]]>]]>", buf, 2 * 6 + 3));
    assert_string_equal(buf, "']] >]] >'");
}

static void test_plot_text_quote_truncates_whole_characters(void **state)
{
    char buf[8];
    (void)state;
    /* "abcd" then a 2-byte character (U+00D7) that no longer fits with
     * the closing quote: dropped whole */
    assert_false(plot_text_quote("abcd\xC3\x97xyz", buf, sizeof buf));
    assert_string_equal(buf, "'abcd'");
    assert_false(plot_text_quote("abc'''", buf, sizeof buf));
    assert_string_equal(buf, "'abc'''");
    assert_false(plot_text_quote("x", buf, 2));
    assert_string_equal(buf, "");
    /* a character copied whole stays when the next one does not fit:
     * ' a C3 97 ' NUL is 6 bytes */
    assert_false(plot_text_quote("a\xC3\x97"
                                 "b",
                                 buf, 6));
    assert_string_equal(buf, "'a\xC3\x97'");
    /* the '>' of "]]>" needs two bytes: dropped rather than unbroken */
    assert_false(plot_text_quote("ab]]>", buf, 8));
    assert_string_equal(buf, "'ab]]'");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plot_text_add_grows_past_first_block),
        cmocka_unit_test(test_plot_text_printf_longer_than_stack_buffer),
        cmocka_unit_test(test_plot_text_add_quoted_appends_literal),
        cmocka_unit_test(test_plot_text_quote_doubles_quotes),
        cmocka_unit_test(test_plot_text_quote_replaces_control_characters),
        cmocka_unit_test(test_plot_text_quote_keeps_text_literal),
        cmocka_unit_test(test_plot_text_quote_breaks_cdata_end),
        cmocka_unit_test(test_plot_text_quote_worst_case_fits_documented_size),
        cmocka_unit_test(test_plot_text_quote_truncates_whole_characters),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
