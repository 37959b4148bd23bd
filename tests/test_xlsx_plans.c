/*
 * test_xlsx_plans: the Plans sheet written alone from a report on the
 * snapshots (tests/data/snap: DeepSeek-V3 on 2048 H800, a narrowed sweep)
 * and read back: the header row, the step formula of a row built from the
 * time model's template and its cached value, the rank order, the fit
 * rule against the memory column, the names over the columns, the
 * ranking column with an expected step, and the values-only large mode.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlsx_book.h"
#include "xlsx_out.h"
#include "xlsx_plans.h"
#include "test_util.h"

static void write_plans(struct xlsx_book *b)
{
    xlsx_plans_write(b, xlsx_book_sheet(b, XLSX_PLANS_SHEET),
                     XLSX_OUT_BIG_COLUMNS);
}

static int setup_with(void **state, bool expected, enum xlsx_book_mode mode)
{
    struct util_book *f = util_book_new("test_xlsx_plans", expected);
    util_book_write(f, mode, write_plans);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return setup_with(state, false, XLSX_BOOK_TABLES);
}

static int setup_expected(void **state)
{
    return setup_with(state, true, XLSX_BOOK_TABLES);
}

static int setup_big(void **state)
{
    return setup_with(state, false, XLSX_BOOK_STREAM);
}

static int teardown(void **state)
{
    util_book_free(*state);
    return 0;
}

/* Excel's name of 0-based column k (A, ..., Z, AA, ...). */
static void col_name(size_t k, char *buf, size_t size)
{
    if (k < 26)
        snprintf(buf, size, "%c", (char)('A' + k));
    else
        snprintf(buf, size, "%c%c", (char)('A' + k / 26 - 1),
                 (char)('A' + k % 26));
}

/* The column whose header (row 1) is head, into col; fails when none. */
static void col_of(const struct util_xlsx *x, const char *head, char *col)
{
    char ref[32], buf[128];
    size_t k;
    for (k = 0; k < 26 * 27; k++) {
        col_name(k, col, 4);
        snprintf(ref, sizeof ref, "%s1", col);
        if (strcmp(util_xlsx_text(x, ref, buf, sizeof buf), head) == 0)
            return;
    }
    fail_msg("no column %s", head);
}

static double num_at(const struct util_xlsx *x, const char *col, size_t row)
{
    char ref[32];
    snprintf(ref, sizeof ref, "%s%zu", col, row);
    return util_xlsx_num(x, ref);
}

/* The header row: plans_table's headers with their units, the plan's
 * coordinates first, then the step and what it is made of. */
static void test_xlsx_plans_write_header(void **state)
{
    struct util_book *f = *state;
    static const char *const want[][2] = {
        {"A1", "Rank"},
        {"B1", "Family"},
        {"C1", "TP"},
        {"J1", "Micro-batch (seq)"},
        {"K1", "Step, speed of light (s)"},
        {"Q1", "Fits"},
        {"AH1", "Optimizer step, speed of light (s)"},
        {"AN1", "Waiting for activation offload, speed of light (s)"},
        {"AO1", "Overlapped core, speed of light (s)"},
        {"AQ1", "Pipeline bubble, speed of light (s)"},
        {"AR1", "Exposed step-end DP, speed of light (s)"},
    };
    char buf[128];
    size_t i;
    for (i = 0; i < sizeof want / sizeof want[0]; i++)
        assert_string_equal(util_xlsx_text(&f->x, want[i][0], buf, sizeof buf),
                            want[i][1]);
    /* an Excel table over the rows (autofilter, banded rows) */
    assert_non_null(strstr(f->x.sheet, "<tablePart "));
}

/* The step is the time model's template {bubble}+{optimizer}+{core}+
 * {dp_exposed} (terms.c) over columns AQ, AH, AO and AR of the same row,
 * and its cached value is their sum, on the first and the last row. */
static void test_xlsx_plans_write_step_formula(void **state)
{
    struct util_book *f = *state;
    size_t n = f->s.rep.v.nsheet, rows[2], i;
    char ref[32], fm[256], want[64];
    assert_true(n > 2);
    rows[0] = 2;
    rows[1] = n + 1;
    for (i = 0; i < 2; i++) {
        size_t r = rows[i];
        double sum = num_at(&f->x, "AQ", r) + num_at(&f->x, "AH", r) +
                     num_at(&f->x, "AO", r) + num_at(&f->x, "AR", r);
        snprintf(ref, sizeof ref, "K%zu", r);
        snprintf(want, sizeof want, "AQ%zu+AH%zu+AO%zu+AR%zu", r, r, r, r);
        assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm), want);
        assert_true(sum > 0);
        assert_near(util_xlsx_num(&f->x, ref), sum, 1e-12);
    }
    /* nothing past the last plan */
    snprintf(ref, sizeof ref, "K%zu", n + 2);
    assert_true(util_xlsx_num(&f->x, ref) != util_xlsx_num(&f->x, ref));
}

/* Rows in rank order: ranks increase down the sheet, the fitting plans
 * come first, fastest first (the step ranks without a calibration). */
static void test_xlsx_plans_write_rank_order(void **state)
{
    struct util_book *f = *state;
    size_t n = f->s.rep.v.nsheet, r;
    bool seen_unfit = false;
    for (r = 3; r <= n + 1; r++) {
        double fit0 = num_at(&f->x, "Q", r - 1), fit1 = num_at(&f->x, "Q", r);
        assert_true(num_at(&f->x, "A", r) > num_at(&f->x, "A", r - 1));
        if (fit1 == 0)
            seen_unfit = true;
        else
            assert_false(seen_unfit); /* no fitting plan after one that
                                       * does not fit */
        if (fit0 == fit1)
            assert_true(num_at(&f->x, "K", r) >= num_at(&f->x, "K", r - 1));
    }
    assert_near(num_at(&f->x, "A", 2), 1, 0);
}

/* Fits is IF({mem_total}<=HBM_GIB*(1-HEADROOM_PCT/100),1,0): h800.ini's
 * 79.21 GiB with the default 10% kept free, 71.289 GiB usable, checked
 * against every row's cached memory total; both outcomes occur (pure
 * ZeRO-1 of a 671B model does not fit on 2048 GPUs). */
static void test_xlsx_plans_write_fits(void **state)
{
    struct util_book *f = *state;
    char mem[4], ref[16], fm[200], want[200];
    size_t n = f->s.rep.v.nsheet, r, yes = 0, no = 0;
    col_of(&f->x, "Memory total (GiB)", mem);
    for (r = 2; r <= n + 1; r++) {
        double total = num_at(&f->x, mem, r);
        double fits = num_at(&f->x, "Q", r);
        assert_true(total > 0);
        assert_near(fits, total <= 79.21 * 0.9 ? 1 : 0, 0);
        if (fits == 1)
            yes++;
        else
            no++;
    }
    assert_true(yes > 0 && no > 0);
    snprintf(ref, sizeof ref, "Q%zu", n + 1);
    snprintf(want, sizeof want, "IF(%s%zu<=HBM_GIB*(1-HEADROOM_PCT/100),1,0)",
             mem, n + 1);
    assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm), want);
}

/* The names over the columns' data rows 2..n+1: PLANS_STEP_S over Step
 * (K), PLANS_FITS over Fits (Q), PLANS_PLAN over the last column; the
 * ranking's PLANS_RANK_S is the step's range without a calibration. */
static void test_xlsx_plans_write_names(void **state)
{
    struct util_book *f = *state;
    char buf[96], want[96], plan[4];
    size_t last = f->s.rep.v.nsheet + 1;
    snprintf(want, sizeof want, "Plans!$K$2:$K$%zu", last);
    assert_non_null(util_xlsx_name(&f->x, "PLANS_STEP_S", buf, sizeof buf));
    assert_string_equal(buf, want);
    assert_non_null(util_xlsx_name(&f->x, "PLANS_RANK_S", buf, sizeof buf));
    assert_string_equal(buf, want);
    snprintf(want, sizeof want, "Plans!$Q$2:$Q$%zu", last);
    assert_non_null(util_xlsx_name(&f->x, "PLANS_FITS", buf, sizeof buf));
    assert_string_equal(buf, want);
    col_of(&f->x, "Plan (roofplan eval syntax)", plan);
    snprintf(want, sizeof want, "Plans!$%s$2:$%s$%zu", plan, plan, last);
    assert_non_null(util_xlsx_name(&f->x, "PLANS_PLAN", buf, sizeof buf));
    assert_string_equal(buf, want);
    /* the first plan's text is the eval syntax of the fastest plan */
    snprintf(want, sizeof want, "%s2", plan);
    assert_non_null(
        strstr(util_xlsx_text(&f->x, want, buf, sizeof buf), "gpus=2048"));
}

/* With a calibration and a stack the plans rank by the expected step
 * (column L): PLANS_RANK_S is over it, and the fitting plans come in
 * its order; the expected step is at least the speed of light's. */
static void test_xlsx_plans_write_expected_ranks(void **state)
{
    struct util_book *f = *state;
    char buf[96], want[96];
    size_t n = f->s.rep.v.nsheet, r;
    assert_string_equal(util_xlsx_text(&f->x, "L1", buf, sizeof buf),
                        "Expected step (s)");
    snprintf(want, sizeof want, "Plans!$L$2:$L$%zu", n + 1);
    assert_non_null(util_xlsx_name(&f->x, "PLANS_RANK_S", buf, sizeof buf));
    assert_string_equal(buf, want);
    for (r = 2; r <= n + 1; r++) {
        assert_true(num_at(&f->x, "L", r) >= num_at(&f->x, "K", r));
        if (r > 2 && num_at(&f->x, "Q", r) == 1)
            assert_true(num_at(&f->x, "L", r) >= num_at(&f->x, "L", r - 1));
    }
}

/* The large mode: the first 22 columns (A..V) as values, no formula, no
 * Excel table but an autofilter; the step is the same number. */
static void test_xlsx_plans_write_big(void **state)
{
    struct util_book *f = *state;
    char buf[96];
    size_t n = f->s.rep.v.nsheet;
    double sum;
    assert_string_equal(util_xlsx_text(&f->x, "V1", buf, sizeof buf),
                        "Days for token budget, speed of light");
    assert_string_equal(util_xlsx_text(&f->x, "W1", buf, sizeof buf), "");
    assert_string_equal(util_xlsx_formula(&f->x, "K2", buf, sizeof buf), "");
    assert_null(strstr(f->x.sheet, "<f>"));
    assert_null(strstr(f->x.sheet, "<tablePart "));
    assert_non_null(strstr(f->x.sheet, "<autoFilter "));
    assert_string_equal(util_xlsx_text(&f->x, "Q2", buf, sizeof buf), "TRUE");
    /* tokens/s per GPU (U) x step (K) x GPUs is the batch: the sweep's
     * 15360 sequences (the fastest plan, PP 16 x EP 64, has DP 128,
     * which divides it) of 4096 tokens (the model's seq_len) */
    sum = num_at(&f->x, "U", 2) * num_at(&f->x, "K", 2) * 2048;
    assert_near(sum, 15360.0 * 4096, 1e-9);
    assert_true(n > 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_xlsx_plans_write_header, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_xlsx_plans_write_step_formula,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_xlsx_plans_write_rank_order, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_xlsx_plans_write_fits, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_xlsx_plans_write_names, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_xlsx_plans_write_expected_ranks,
                                        setup_expected, teardown),
        cmocka_unit_test_setup_teardown(test_xlsx_plans_write_big, setup_big,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
