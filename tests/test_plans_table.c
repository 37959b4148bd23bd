/*
 * test_plans_table: the Plans columns (plans_table.c): lookup by key in
 * sheet order, unique keys and workbook names, headers with units,
 * column letters, formula templates compiled and expanded to exact A1
 * formulas, and each kind of value read from a hand-made row: plan
 * dimensions, times, work in the header's units, memory in GiB, the fit,
 * and no cell for the expected figures without an expected step.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plans_table.h"
#include "rank.h"
#include "terms.h"
#include "test_util.h"

#define GIB 1073741824.0

/* The leading columns in sheet order (plans_table.c's table): rank,
 * family, tp, pp, ep, zero, schedule, precision, recompute, mbs (the
 * frozen ten), then the step; the plan's text is the last. */
static void test_plans_table_find_in_sheet_order(void **state)
{
    static const char *const lead[] = {
        "rank",     "family",    "tp",        "pp",  "ep",  "zero",
        "schedule", "precision", "recompute", "mbs", "step"};
    size_t n, i;
    const struct plans_column *cols = plans_table_columns(&n);
    (void)state;
    for (i = 0; i < sizeof lead / sizeof lead[0]; i++)
        assert_int_equal(plans_table_find(lead[i]), (long)i);
    assert_int_equal(plans_table_frozen(), 10);
    assert_int_equal(plans_table_find("plan"), (long)n - 1);
    assert_string_equal(cols[n - 1].header, "Plan (roofplan eval syntax)");
    assert_int_equal(plans_table_find("nonesuch"), -1);
    assert_int_equal(plans_table_find(""), -1);
    assert_int_equal(plans_table_find("Step"), -1); /* keys, not headers */
}

/* Keys are unique (a template's {key} must name one column); each
 * workbook name is unique, registered with terms (so a formula may read
 * it) and upper case; a formula column's template compiles. */
static void test_plans_table_names_unique(void **state)
{
    size_t n, i, k;
    const struct plans_column *cols = plans_table_columns(&n);
    struct ranking rk; /* the templates, as rank carries them */
    struct diag d;
    (void)state;
    memset(&rk, 0, sizeof rk);
    diag_init(&d);
    assert_int_equal(rank_templates(&rk, &d), STATUS_OK);
    for (i = 0; i < n; i++) {
        const char *tmpl = plans_table_formula(&cols[i], &rk);
        struct plans_formula fm;
        for (k = i + 1; k < n; k++) {
            assert_string_not_equal(cols[i].key, cols[k].key);
            if (cols[i].name && cols[k].name)
                assert_string_not_equal(cols[i].name, cols[k].name);
        }
        if (cols[i].name)
            assert_non_null(terms_name_find(cols[i].name));
        if (cols[i].formula &&
            !(tmpl && plans_table_formula_compile(tmpl, &fm)))
            fail_msg("%s: template does not compile", cols[i].key);
    }
    ranking_free(&rk);
}

/* "Step, speed of light (s)" (issue 18: every time says which it is);
 * no parentheses without a unit; "FP8 work (TFLOP)". */
static void test_plans_table_header(void **state)
{
    size_t n;
    const struct plans_column *cols = plans_table_columns(&n);
    char buf[160];
    (void)state;
    plans_table_header(&cols[plans_table_find("step")], buf, sizeof buf);
    assert_string_equal(buf, "Step, speed of light (s)");
    plans_table_header(&cols[plans_table_find("expected")], buf, sizeof buf);
    assert_string_equal(buf, "Expected step (s)");
    plans_table_header(&cols[plans_table_find("days")], buf, sizeof buf);
    assert_string_equal(buf, "Days for token budget, speed of light");
    plans_table_header(&cols[plans_table_find("x_days")], buf, sizeof buf);
    assert_string_equal(buf, "Expected days for token budget");
    plans_table_header(&cols[plans_table_find("family")], buf, sizeof buf);
    assert_string_equal(buf, "Family");
    plans_table_header(&cols[plans_table_find("fp8_tflop")], buf, sizeof buf);
    assert_string_equal(buf, "FP8 work (TFLOP)");
}

/* Bijective base 26: 0 A, 25 Z, 26 AA, 27 AB, 51 AZ, 52 BA, 701 ZZ
 * (26 + 26 x 26 - 1), 702 AAA. */
static void test_plans_table_col_name(void **state)
{
    static const struct {
        size_t col;
        const char *name;
    } cases[] = {{0, "A"},   {25, "Z"},  {26, "AA"},  {27, "AB"},
                 {51, "AZ"}, {52, "BA"}, {701, "ZZ"}, {702, "AAA"}};
    char buf[8];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        plans_table_col_name(cases[i].col, buf, sizeof buf);
        assert_string_equal(buf, cases[i].name);
    }
    plans_table_col_name(27, buf, 2); /* truncated to fit */
    assert_string_equal(buf, "A");
}

/* Templates to exact formulas: tp is column C, pp D, rank A, mbs J,
 * precision H (the order above); strings are copied as they are; the
 * row number follows each reference, however many digits it has. */
static void test_plans_table_formula_compile_expand(void **state)
{
    struct plans_formula fm;
    char buf[PLANS_FORMULA_MAX];
    (void)state;
    assert_true(plans_table_formula_compile("{tp}*{pp}", &fm));
    assert_string_equal(fm.text, "=C*D");
    assert_int_equal(fm.n, 2);
    plans_table_formula_expand(&fm, 7, buf, sizeof buf);
    assert_string_equal(buf, "=C7*D7");
    plans_table_formula_expand(&fm, 1048576, buf, sizeof buf);
    assert_string_equal(buf, "=C1048576*D1048576");
    assert_true(plans_table_formula_compile("{rank}+{mbs}/IB_GBPS", &fm));
    plans_table_formula_expand(&fm, 12, buf, sizeof buf);
    assert_string_equal(buf, "=A12+J12/IB_GBPS");
    assert_true(
        plans_table_formula_compile("IF({precision}=\"fp8\",1E+12,0)", &fm));
    plans_table_formula_expand(&fm, 3, buf, sizeof buf);
    assert_string_equal(buf, "=IF(H3=\"fp8\",1E+12,0)");
}

/* A buffer too small keeps whole pieces: "=C7*2" needs 6 bytes; in 6
 * it is whole, in 5 only "=C7" (a reference never loses its row). */
static void test_plans_table_formula_expand_truncates(void **state)
{
    struct plans_formula fm;
    char buf[8];
    (void)state;
    assert_true(plans_table_formula_compile("{tp}*2", &fm));
    plans_table_formula_expand(&fm, 7, buf, 6);
    assert_string_equal(buf, "=C7*2");
    plans_table_formula_expand(&fm, 7, buf, 5);
    assert_string_equal(buf, "=C7");
    plans_table_formula_expand(&fm, 7, buf, 3);
    assert_string_equal(buf, "");
}

/* Unknown keys and names, unbalanced braces and quotes, and more
 * references than PLANS_FORMULA_REFS (24) do not compile. */
static void test_plans_table_formula_compile_rejects(void **state)
{
    struct plans_formula fm;
    char many[400];
    size_t i, used = 0;
    (void)state;
    assert_false(plans_table_formula_compile("{nonesuch}+1", &fm));
    assert_false(plans_table_formula_compile("{tp", &fm));
    assert_false(plans_table_formula_compile("{tp}&\"open", &fm));
    assert_false(plans_table_formula_compile("{tp}*NOT_AN_INPUT", &fm));
    for (i = 0; i < 24; i++)
        used += (size_t)snprintf(many + used, sizeof many - used, "%s{tp}",
                                 i ? "+" : "");
    assert_true(plans_table_formula_compile(many, &fm));
    snprintf(many + used, sizeof many - used, "+{tp}");
    assert_false(plans_table_formula_compile(many, &fm));
}

/* A hand-made row: 64 GPUs, tp 2, pp 4 (interleaved, 2 virtual stages),
 * ep 8, ZeRO-1, FP8, selective recompute, micro-batch 2, batch 1024;
 * 3e15 FP8 FLOPs and 2.5e11 bytes over IB per step; 2 GiB of weights
 * and 60 of 80 GiB in all. */
static void hand_row(struct ranking_row *row)
{
    memset(row, 0, sizeof *row);
    row->plan.gpus = 64;
    row->plan.tp = 2;
    row->plan.pp = 4;
    row->plan.ep = 8;
    row->plan.cp = 1;
    row->plan.zero = 1;
    row->plan.schedule = PLAN_INTERLEAVED;
    row->plan.vpp = 2;
    row->plan.precision = MODEL_FP8;
    row->plan.recompute = MODEL_RECOMPUTE_SELECTIVE;
    row->plan.mbs = 2;
    row->plan.gbs = 1024;
    row->plan.dp = 8;
    row->work.fp8_flops = 3e15;
    row->work.ib_bytes = 2.5e11;
    row->mem.weights = 2 * GIB;
    row->mem.total = 60 * GIB;
    row->mem.capacity = 80 * GIB;
    row->fits = true;
    row->family = 0;
}

/* Column `key`'s value for row (rank `rank`, times t) into *v. */
static void value_of(const struct util_parts *r,
                     const struct ranking_row *row,
                     size_t rank,
                     const struct cost_times *t,
                     const char *key,
                     struct plans_value *v)
{
    size_t n;
    const struct plans_column *cols = plans_table_columns(&n);
    long k = plans_table_find(key);
    assert_true(k >= 0);
    plans_table_value_row(&cols[k], &r->v, row, rank, t, v);
}

/* Each kind of value, by hand from hand_row: dimensions and their
 * words, the family's name (or "?" outside the families), TFLOP (3e15 /
 * 1e12 = 3000), GB (2.5e11 / 1e9 = 250), GiB (2), the headroom 80 - 60
 * = 20 GiB, the fit, a time (12.5 s) and the bound's label, the rank
 * (empty text for an unranked plan), the plan in eval syntax. */
static void test_plans_table_value_by_hand(void **state)
{
    struct util_parts *r = calloc(1, sizeof *r);
    struct ranking_row row;
    struct cost_times t;
    struct plans_value v;
    size_t n;
    const struct plans_column *cols = plans_table_columns(&n);
    (void)state;
    assert_non_null(r);
    util_parts_init(r);
    util_parts_families(r, 1);
    snprintf(r->rank.family[0].name, sizeof r->rank.family[0].name,
             "ZeRO-1+PP+EP");
    hand_row(&row);
    memset(&t, 0, sizeof t);
    t.step = 12.5;
    t.bound = COST_IB;
    value_of(r, &row, 3, &t, "rank", &v);
    assert_int_equal(v.kind, PLANS_NUMBER);
    assert_true(v.num == 3);
    value_of(r, &row, 0, &t, "rank", &v);
    assert_int_equal(v.kind, PLANS_TEXT);
    assert_string_equal(v.str, "");
    value_of(r, &row, 1, &t, "family", &v);
    assert_string_equal(v.str, "ZeRO-1+PP+EP");
    value_of(r, &row, 1, &t, "pp", &v);
    assert_true(v.kind == PLANS_NUMBER && v.num == 4);
    value_of(r, &row, 1, &t, "schedule", &v);
    assert_string_equal(v.str, "interleaved");
    value_of(r, &row, 1, &t, "precision", &v);
    assert_string_equal(v.str, "fp8");
    value_of(r, &row, 1, &t, "recompute", &v);
    assert_string_equal(v.str, "selective");
    value_of(r, &row, 1, &t, "fp8_tflop", &v);
    assert_near(v.num, 3000, 1e-15);
    value_of(r, &row, 1, &t, "ib_gb", &v);
    assert_near(v.num, 250, 1e-15);
    value_of(r, &row, 1, &t, "mem_weights", &v);
    assert_near(v.num, 2, 1e-15);
    value_of(r, &row, 1, &t, "headroom", &v);
    assert_near(v.num, 20, 1e-15);
    value_of(r, &row, 1, &t, "fits", &v);
    assert_int_equal(v.kind, PLANS_BOOL);
    assert_true(v.flag);
    value_of(r, &row, 1, &t, "step", &v);
    assert_near(v.num, 12.5, 1e-15);
    value_of(r, &row, 1, &t, "bound", &v);
    assert_string_equal(v.str, "IB");
    value_of(r, &row, 1, &t, "plan", &v);
    assert_string_equal(v.str, "gpus=64 tp=2 pp=4 ep=8 cp=1 zero=1 "
                               "schedule=interleaved vpp=2 precision=fp8 "
                               "recompute=selective mbs=2 gbs=1024");
    row.family = -1;
    value_of(r, &row, 1, &t, "family", &v);
    assert_string_equal(v.str, "?");
    /* plans_table_value: the kept row at index 0 shows rank 1 */
    r->rank.rows = &row;
    r->rank.nrows = 1;
    plans_table_value(&cols[plans_table_find("rank")], &r->v, 0, &t, &v);
    assert_true(v.kind == PLANS_NUMBER && v.num == 1);
    r->rank.rows = NULL; /* the test's own */
    util_parts_free(r);
    free(r);
}

/* Without an expected step (no calibration: work.x.known false) the
 * expected columns have no cell, the speed of light's do; with one,
 * they show the expected term (14 s) and the expected work (GEMMs
 * 9.5 s; 3e10 bytes overlapped over IB = 30 GB). */
static void test_plans_table_expected_empty_without_calibration(void **state)
{
    static const char *const expected[] = {
        "expected",    "x_tps",  "x_mfu",      "x_compute",
        "x_optimizer", "gemm_s", "x_ib_hid_gb"};
    struct util_parts *r = calloc(1, sizeof *r);
    struct ranking_row row;
    struct cost_times t;
    struct plans_value v;
    size_t i;
    (void)state;
    assert_non_null(r);
    util_parts_init(r);
    hand_row(&row);
    memset(&t, 0, sizeof t);
    t.step = 12.5;
    t.expected = 14;
    for (i = 0; i < sizeof expected / sizeof expected[0]; i++) {
        value_of(r, &row, 1, &t, expected[i], &v);
        if (v.kind != PLANS_EMPTY)
            fail_msg("%s: a cell without an expected step", expected[i]);
    }
    value_of(r, &row, 1, &t, "step", &v);
    assert_int_equal(v.kind, PLANS_NUMBER);
    row.work.x.known = true;
    row.work.x.gemm_cal_s = 9.5;
    row.work.x.hid_ib = 3e10;
    value_of(r, &row, 1, &t, "expected", &v);
    assert_int_equal(v.kind, PLANS_NUMBER);
    assert_near(v.num, 14, 1e-15);
    value_of(r, &row, 1, &t, "gemm_s", &v);
    assert_near(v.num, 9.5, 1e-15);
    value_of(r, &row, 1, &t, "x_ib_hid_gb", &v);
    assert_near(v.num, 30, 1e-15);
    util_parts_free(r);
    free(r);
}

/* The ranking's column: the expected step once the report has one. */
/* Each column is one row: its unit and the scale its field is shown
 * over agree (GB = 1e9 bytes, TFLOP = 1e12 FLOP, a field in GiB over
 * 2^30 bytes; the units the workbook's formulas divide by rates in,
 * plans_table.c), and the frozen panes end at the tenth column, the
 * micro-batch (rank, family, tp, pp, ep, zero, schedule, precision,
 * recompute, mbs: the plan's identity). */
static void test_plans_table_units_are_scales(void **state)
{
    size_t n, i, gb = 0, tflop = 0;
    const struct plans_column *cols = plans_table_columns(&n);
    (void)state;
    for (i = 0; i < n; i++) {
        if (!cols[i].unit)
            continue;
        if (strcmp(cols[i].unit, "GB") == 0) {
            assert_true(cols[i].scale == 1e9);
            gb++;
        } else if (strcmp(cols[i].unit, "TFLOP") == 0) {
            assert_true(cols[i].scale == 1e12);
            tflop++;
        } else if (strcmp(cols[i].unit, "GiB") == 0 &&
                   strcmp(cols[i].key, "headroom") != 0) {
            assert_true(cols[i].scale == GIB);
        } else {
            assert_true(cols[i].scale == 1);
        }
    }
    assert_true(gb >= 20 && tflop == 4);
    assert_int_equal(plans_table_frozen(), 10);
    assert_string_equal(cols[plans_table_frozen() - 1].key, "mbs");
}

static void test_plans_table_rank_key(void **state)
{
    struct util_parts *r = calloc(1, sizeof *r);
    (void)state;
    assert_non_null(r);
    util_parts_init(r);
    assert_string_equal(plans_table_rank_key(&r->v), "step");
    r->in.expected = true;
    assert_string_equal(plans_table_rank_key(&r->v), "expected");
    util_parts_free(r);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plans_table_find_in_sheet_order),
        cmocka_unit_test(test_plans_table_names_unique),
        cmocka_unit_test(test_plans_table_header),
        cmocka_unit_test(test_plans_table_col_name),
        cmocka_unit_test(test_plans_table_formula_compile_expand),
        cmocka_unit_test(test_plans_table_formula_expand_truncates),
        cmocka_unit_test(test_plans_table_formula_compile_rejects),
        cmocka_unit_test(test_plans_table_value_by_hand),
        cmocka_unit_test(test_plans_table_expected_empty_without_calibration),
        cmocka_unit_test(test_plans_table_rank_key),
        cmocka_unit_test(test_plans_table_units_are_scales),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
