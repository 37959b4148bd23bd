/*
 * test_datafile_value: strict numbers (jq's rules: plain decimal, finite,
 * no subnormals), a field's scalar checked against its range or choices,
 * what a field accepts in words, and lists with ranges — directly on
 * fields defined here, and through a sweep file's --set (the snapshot
 * tests/data/snap/sweeps/default.ini).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <float.h>
#include <math.h>
#include <string.h>

#include "datafile_value.h"
#include "sweep.h"
#include "test_util.h"

#define SNAP "tests/data/snap/"

static void assert_has_line(const char *msg, const char *line)
{
    if (!strstr(msg, line))
        fail_msg("message lacks \"%s\"; it was:\n%s", line, msg);
}

/* The words of a schedule field, as a row table's word function answers. */
static const char *schedule_word(int i)
{
    static const char *const w[] = {"1f1b", "zb", "dualpipe"};
    return i >= 0 && i < 3 ? w[i] : NULL;
}

/* Fields as a schema would define them (only what parsing reads). */
static const struct datafile_field counts = {.section = "space",
                                             .key = "tp",
                                             .type = DATAFILE_LIST,
                                             .min = 1,
                                             .max = 64};
static const struct datafile_field words = {.section = "space",
                                            .key = "schedule",
                                            .type = DATAFILE_LIST,
                                            .word = schedule_word};
static const struct datafile_field rate = {.section = "gpu",
                                           .key = "clock_derate",
                                           .type = DATAFILE_DOUBLE,
                                           .min = 0,
                                           .max = 1,
                                           .min_open = true};
static const struct datafile_field flag = {.section = "model",
                                           .key = "dropout",
                                           .type = DATAFILE_BOOL};
static const struct datafile_field name = {.section = "model",
                                           .key = "name",
                                           .type = DATAFILE_STRING,
                                           .size = 16};
static const struct datafile_field at_least = {.section = "cluster",
                                               .key = "gpus",
                                               .type = DATAFILE_DOUBLE,
                                               .min = 0.5,
                                               .max = HUGE_VAL};

/* What each kind of field accepts, in the words of every message. */
static void test_datafile_describe(void **state)
{
    char buf[160];
    (void)state;
    datafile_describe(&counts, buf, sizeof buf);
    assert_string_equal(buf, "an integer in 1..64");
    datafile_describe(&words, buf, sizeof buf);
    assert_string_equal(buf, "one of 1f1b|zb|dualpipe");
    datafile_describe(&rate, buf, sizeof buf);
    assert_string_equal(buf, "a number in (0, 1]");
    datafile_describe(&flag, buf, sizeof buf);
    assert_string_equal(buf, "true or false");
    datafile_describe(&name, buf, sizeof buf); /* 16 bytes: 15 and a NUL */
    assert_string_equal(buf, "text of at most 15 characters");
    datafile_describe(&at_least, buf, sizeof buf);
    assert_string_equal(buf, "a number >= 0.5");
}

/* A scalar is checked against its range (an open bound excludes itself)
 * or its choices (their index), and the problem quotes the text. */
static void test_datafile_parse_scalar(void **state)
{
    char why[200];
    double v;
    (void)state;
    assert_true(datafile_parse_scalar(&rate, "1", &v, why, sizeof why));
    assert_near(v, 1, 0);
    assert_false(datafile_parse_scalar(&rate, "0", &v, why, sizeof why));
    assert_string_equal(why, "expected a number in (0, 1], got 0");
    assert_false(datafile_parse_scalar(&rate, "1.5", &v, why, sizeof why));
    assert_string_equal(why, "expected a number in (0, 1], got 1.5");
    assert_false(datafile_parse_scalar(&counts, "2.5", &v, why, sizeof why));
    assert_string_equal(why, "expected an integer in 1..64, got \"2.5\"");
    assert_true(datafile_parse_scalar(&words, "dualpipe", &v, why, sizeof why));
    assert_near(v, 2, 0);
    assert_false(datafile_parse_scalar(&words, "zb1", &v, why, sizeof why));
    assert_string_equal(why, "expected one of 1f1b|zb|dualpipe, got \"zb1\"");
}

/* Lists by hand: "1..8 x2, 3 3" is 1 2 4 8, then 3 (its repeat folds);
 * "2..10 +4" is 2 6 10; words are their choices' indexes; a range of
 * words and an empty list are refused, and so is a range end out of the
 * field's range. */
static void test_datafile_parse_list(void **state)
{
    struct datafile_list l;
    char why[200];
    (void)state;
    assert_true(
        datafile_parse_list(&counts, "1..8 x2, 3 3", &l, why, sizeof why));
    assert_int_equal(l.n, 5);
    assert_near(l.v[3], 8, 0);
    assert_near(l.v[4], 3, 0);
    assert_true(datafile_parse_list(&counts, "2..10 +4", &l, why, sizeof why));
    assert_int_equal(l.n, 3);
    assert_near(l.v[1], 6, 0);
    assert_true(
        datafile_parse_list(&words, "zb dualpipe zb", &l, why, sizeof why));
    assert_int_equal(l.n, 2);
    assert_near(l.v[0], 1, 0);
    assert_near(l.v[1], 2, 0);
    assert_false(datafile_parse_list(&words, "1..2", &l, why, sizeof why));
    assert_string_equal(why, "a range (\"1..2\") needs numbers");
    assert_false(datafile_parse_list(&counts, " , ", &l, why, sizeof why));
    assert_string_equal(why, "empty list");
    assert_false(datafile_parse_list(&counts, "1..65", &l, why, sizeof why));
    assert_string_equal(why, "expected an integer in 1..64, got 65");
}

/* A number field whose 0 means "not this file's" may take a word for it
 * (a sweep's gbs: `model`, the model's own batch, issue 37): the word is
 * 0 in a list and alone, said in what the field accepts; other words stay
 * refused, and a range of the word means nothing. */
static const struct datafile_field batches = {.section = "space",
                                              .key = "gbs",
                                              .type = DATAFILE_LIST,
                                              .max = 1e9,
                                              .zero_word = "model"};
static const struct datafile_field batch = {.section = "defaults",
                                            .key = "gbs",
                                            .type = DATAFILE_INT,
                                            .max = 1e9,
                                            .zero_word = "model"};

static void test_datafile_zero_word(void **state)
{
    struct datafile_list l;
    char why[200];
    double v;
    (void)state;
    datafile_describe(&batch, why, sizeof why);
    assert_string_equal(why, "an integer in 0..1000000000, or model (0)");
    assert_true(datafile_parse_scalar(&batch, "model", &v, why, sizeof why));
    assert_near(v, 0, 0);
    assert_true(datafile_parse_scalar(&batch, "4096", &v, why, sizeof why));
    assert_near(v, 4096, 0);
    assert_false(datafile_parse_scalar(&batch, "models", &v, why, sizeof why));
    assert_string_equal(why, "expected an integer in 0..1000000000, or model "
                             "(0), got \"models\"");
    /* no word without zero_word */
    assert_false(datafile_parse_scalar(&counts, "model", &v, why, sizeof why));
    assert_true(
        datafile_parse_list(&batches, "model 2048, 0", &l, why, sizeof why));
    assert_int_equal(l.n, 2); /* model and 0 are one value: folded */
    assert_near(l.v[0], 0, 0);
    assert_near(l.v[1], 2048, 0);
    assert_false(
        datafile_parse_list(&batches, "model..4096 x2", &l, why, sizeof why));
    assert_string_equal(why, "a range (\"model..4096\") needs numbers");
    assert_false(
        datafile_parse_list(&batches, "1024..model", &l, why, sizeof why));
    assert_string_equal(why, "a range (\"1024..model\") needs numbers");
}

/* Strict numbers (jq): the whole text, finite, no trailing garbage. */
static void test_datafile_parse_numbers_strict(void **state)
{
    double v;
    long l;
    (void)state;
    assert_true(datafile_parse_double("14.8e12", &v));
    assert_near(v, 14.8e12, 0);
    assert_false(datafile_parse_double("12x", &v));
    assert_false(datafile_parse_double("", &v));
    assert_false(datafile_parse_double("1e999", &v));
    assert_false(datafile_parse_double("nan", &v));
    assert_false(datafile_parse_double("-inf", &v));
    assert_true(datafile_parse_long("-42", &l));
    assert_int_equal(l, -42);
    assert_false(datafile_parse_long("99999999999999999999", &l));
    assert_false(datafile_parse_long("4.0", &l));
}

/* Hexadecimal floats pass strtod and can be exact subnormals (0x1p-1074
 * = 4.9e-324 with no ERANGE); blanks, "inf" and "nan" pass strtod too. */
static void test_datafile_parse_numbers_refuses_hex_and_subnormals(void **state)
{
    double v;
    long l;
    (void)state;
    assert_false(datafile_parse_double("0x1p-1074", &v));
    assert_false(datafile_parse_double("0x10", &v));
    assert_false(datafile_parse_double("4.9e-324", &v));
    /* the largest subnormal, 2^-1022 - 2^-1074, is refused; DBL_MIN,
     * 2^-1022 = 2.2250738585072014e-308, is the smallest accepted */
    assert_false(datafile_parse_double("2.2250738585072009e-308", &v));
    assert_true(datafile_parse_double("2.2250738585072014e-308", &v));
    assert_true(v == DBL_MIN);
    assert_false(datafile_parse_double(" 5", &v));
    assert_false(datafile_parse_double("5 ", &v));
    assert_false(datafile_parse_double("infinity", &v));
    assert_false(datafile_parse_double("1e", &v));
    assert_false(datafile_parse_double(".", &v));
    assert_false(datafile_parse_double("-", &v));
    assert_true(datafile_parse_double("-.5", &v));
    assert_near(v, -0.5, 0);
    assert_true(datafile_parse_double("5.", &v));
    assert_near(v, 5, 0);
    assert_true(datafile_parse_double("+1E+3", &v));
    assert_near(v, 1000, 0);
    assert_true(datafile_parse_double("0", &v));
    assert_near(v, 0, 0);
    assert_false(datafile_parse_long("0x10", &l));
    assert_false(datafile_parse_long(" 1", &l));
    assert_false(datafile_parse_long("1e2", &l));
    assert_false(datafile_parse_long("+", &l));
    assert_true(datafile_parse_long("+7", &l));
    assert_int_equal(l, 7);
}

/* Lists: values, doubling and stepping ranges, words; duplicates fold. */
static void test_datafile_lists_and_ranges(void **state)
{
    struct sweep_file sf;
    struct diag d;
    struct datafile_set s[3];
    (void)state;
    diag_init(&d);
    datafile_parse_set("space.pp=1..64 x2", &s[0], &d);
    datafile_parse_set("space.mbs=2..8 +2, 2", &s[1], &d);
    datafile_parse_set("space.schedule=zb,dualpipe", &s[2], &d);
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, s, 3, &d),
                     STATUS_OK);
    assert_int_equal(sf.spec.pp.n, 7);
    assert_near(sf.spec.pp.v[6], 64, 0);
    assert_int_equal(sf.spec.mbs.n, 4);
    assert_near(sf.spec.mbs.v[3], 8, 0);
    assert_int_equal(sf.spec.schedule.n, 2);
    assert_near(sf.spec.schedule.v[1], 3, 0); /* dualpipe */
    sweep_release(&sf);

    datafile_parse_set("space.pp=64..1", &s[0], &d);
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, s, 1, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg,
                        "--set space.pp=64..1: range \"64..1\" runs backwards");
    diag_init(&d);
    datafile_parse_set("space.pp=1..4 x1", &s[0], &d);
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, s, 1, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg, "--set space.pp=1..4 x1: range step \"x1\": "
                               "expected xK (K > 1) or +K (K > 0)");
}

/* Fractional steps through integers were truncated into repeated values
 * (1..4 +0.5 gave tp 1 1 2 2 3 3 4: duplicate plans); a multiplying
 * range from 0 never grows and was reported as too long. */
static void test_datafile_ranges_refuse_fractional_and_zero_start(void **state)
{
    struct sweep_file sf;
    struct diag d;
    struct datafile_set s;
    (void)state;
    diag_init(&d);
    datafile_parse_set("space.tp=1..4 +0.5", &s, &d);
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, &s, 1, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg, "--set space.tp=1..4 +0.5: range step "
                               "\"+0.5\": expected a whole step (the values "
                               "are integers)");
    diag_init(&d);
    datafile_parse_set("space.pp=2..64 x1.5", &s, &d);
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, &s, 1, &d),
                     STATUS_USAGE);
    assert_has_line(d.msg, "range step \"x1.5\": expected a whole step");
    diag_init(&d);
    datafile_parse_set("space.gpus=0..64 x2", &s, &d);
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, &s, 1, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg, "--set space.gpus=0..64 x2: range \"0..64 "
                               "x2\": a multiplying range must start above 0 "
                               "(0 never grows)");
    diag_init(&d);
    datafile_parse_set("space.gpus=0..64 +16", &s, &d); /* 0 16 32 48 64 */
    assert_int_equal(sweep_load(SNAP "sweeps/default.ini", &sf, &s, 1, &d),
                     STATUS_OK);
    assert_int_equal(sf.spec.gpus.n, 5);
    assert_near(sf.spec.gpus.v[4], 64, 0);
    sweep_release(&sf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datafile_describe),
        cmocka_unit_test(test_datafile_parse_scalar),
        cmocka_unit_test(test_datafile_parse_list),
        cmocka_unit_test(test_datafile_zero_word),
        cmocka_unit_test(test_datafile_parse_numbers_strict),
        cmocka_unit_test(
            test_datafile_parse_numbers_refuses_hex_and_subnormals),
        cmocka_unit_test(test_datafile_lists_and_ranges),
        cmocka_unit_test(test_datafile_ranges_refuse_fractional_and_zero_start),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
