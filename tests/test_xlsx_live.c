/*
 * test_xlsx_live: a live sentence is built twice, as a formula and as its
 * value. The expected strings are written by hand from the rules in
 * xlsx_live.h: literal text quoted with '"' doubled and joined by '&', a
 * number through TEXT(expr,"0.0") beside its value at one (or two)
 * decimals, a cost in millions as "$" & TEXT(name/1E+06,"0.00") & "M".
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "xlsx_live.h"

static void test_xlsx_live_pieces(void **state)
{
    struct xlsx_live t;
    (void)state;
    memset(&t, 0, sizeof t);
    xlsx_live_lit(&t, "say \"hi\" at ");
    xlsx_live_num(&t, "STEP_S", 1, 17.66);
    xlsx_live_lit(&t, " s, ");
    xlsx_live_usd(&t, "COST", 4731000);
    xlsx_live_expr(&t, "PLAN_CELL", " tp=2");
    assert_string_equal(t.f, "\"say \"\"hi\"\" at \"&TEXT(STEP_S,\"0.0\")&"
                             "\" s, \"&\"$\"&TEXT(COST/1E+06,\"0.00\")&"
                             "\"M\"&PLAN_CELL");
    assert_string_equal(t.v, "say \"hi\" at 17.7 s, $4.73M tp=2");
    assert_false(t.over);
}

/* A sentence longer than its buffer is flagged, not cut silently. */
static void test_xlsx_live_over(void **state)
{
    struct xlsx_live t;
    size_t i;
    (void)state;
    memset(&t, 0, sizeof t);
    for (i = 0; i < 200; i++)
        xlsx_live_lit(&t, "0123456789");
    assert_true(t.over);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_live_pieces),
        cmocka_unit_test(test_xlsx_live_over),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
