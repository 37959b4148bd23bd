/*
 * test_xlsx_assumptions: the Assumptions sheet written alone from a report
 * on the snapshots (tests/data/snap: DeepSeek-V3 on 2048 H800) and read
 * back: an input's row and its workbook name, a derived rate's formula
 * and cached value, the input's data validation, a value that applies on
 * a re-run, the model's totals, and the calibration's inputs present only
 * with a calibration. Expected values are the snapshot files' numbers.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlsx_assumptions.h"
#include "xlsx_book.h"
#include "test_util.h"

/* The Assumptions sheet of the report alone. */
static void write_assumptions(struct xlsx_book *b)
{
    xlsx_assumptions_write(b, xlsx_book_sheet(b, XLSX_ASSUMPTIONS_SHEET));
}

static int setup_with(void **state, bool expected)
{
    struct util_book *f = util_book_new("test_xlsx_assumptions", expected);
    util_book_write(f, XLSX_BOOK_TABLES, write_assumptions);
    *state = f;
    return 0;
}

static int setup(void **state)
{
    return setup_with(state, false);
}

static int setup_expected(void **state)
{
    return setup_with(state, true);
}

static int teardown(void **state)
{
    util_book_free(*state);
    return 0;
}

/* IB_GBPS: the row named in column A holds hardware/h800.ini's
 * cluster.ib_gbps = 50 GB/s with its key and source, and the workbook
 * name IB_GBPS is that Value cell (column B). */
static void test_xlsx_assumptions_write_named_input(void **state)
{
    struct util_book *f = *state;
    char ref[32], buf[256], want[64];
    size_t row = util_xlsx_find(&f->x, "A", "IB_GBPS");
    assert_true(row > 0);
    snprintf(ref, sizeof ref, "B%zu", row);
    assert_near(util_xlsx_num(&f->x, ref), 50, 0);
    snprintf(ref, sizeof ref, "C%zu", row);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf), "GB/s");
    snprintf(ref, sizeof ref, "E%zu", row);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "hardware: cluster.ib_gbps");
    snprintf(ref, sizeof ref, "F%zu", row);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "arXiv 2412.19437 §3.2.2: IB 50 GB/s; DeepEP EP64 "
                        "measured 51/50 GB/s");
    snprintf(want, sizeof want, "Assumptions!$B$%zu", row);
    assert_non_null(util_xlsx_name(&f->x, "IB_GBPS", buf, sizeof buf));
    assert_string_equal(buf, want);
    /* an input is a value the reader edits, not a formula */
    snprintf(ref, sizeof ref, "B%zu", row);
    assert_string_equal(util_xlsx_formula(&f->x, ref, buf, sizeof buf), "");
    /* COLL_NET_STEP_US: 14 us, the collectives file's (the one the
     * hardware file names, tests/data/snap/collectives/nccl.ini) */
    row = util_xlsx_find(&f->x, "A", "COLL_NET_STEP_US");
    assert_true(row > 0);
    snprintf(ref, sizeof ref, "B%zu", row);
    assert_near(util_xlsx_num(&f->x, ref), 14, 0);
    snprintf(ref, sizeof ref, "E%zu", row);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "collectives: ring_simple.net_us");
}

/* A derived rate is its registry formula over the names, cached at the
 * inputs: FP8_TFLOPS_USED = FP8_ACHIEVABLE_TFLOPS x COMPUTE_DERATE =
 * 1460 x 1.0 (clock_derate), RIDGE_IB_FP8 = 1460 x 1000 / 50 = 29,200
 * FLOP/B; column E shows the formula as text for a printout. */
static void test_xlsx_assumptions_write_derived_rate(void **state)
{
    struct util_book *f = *state;
    char ref[32], buf[256], want[64];
    size_t used = util_xlsx_find(&f->x, "A", "FP8_TFLOPS_USED");
    size_t ridge = util_xlsx_find(&f->x, "A", "RIDGE_IB_FP8");
    assert_true(used > 0 && ridge > used);
    snprintf(ref, sizeof ref, "B%zu", used);
    assert_string_equal(util_xlsx_formula(&f->x, ref, buf, sizeof buf),
                        "FP8_ACHIEVABLE_TFLOPS*COMPUTE_DERATE");
    assert_near(util_xlsx_num(&f->x, ref), 1460, 1e-12);
    snprintf(ref, sizeof ref, "B%zu", ridge);
    assert_string_equal(util_xlsx_formula(&f->x, ref, buf, sizeof buf),
                        "FP8_TFLOPS_USED*1000/IB_GBPS");
    assert_near(util_xlsx_num(&f->x, ref), 29200, 1e-12);
    snprintf(ref, sizeof ref, "E%zu", ridge);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "=FP8_TFLOPS_USED*1000/IB_GBPS");
    snprintf(want, sizeof want, "Assumptions!$B$%zu", ridge);
    assert_non_null(util_xlsx_name(&f->x, "RIDGE_IB_FP8", buf, sizeof buf));
    assert_string_equal(buf, want);
    /* the derived block follows the inputs: IB_GBPS comes first */
    assert_true(util_xlsx_find(&f->x, "A", "IB_GBPS") < used);
}

/* s occurs in [from, end). */
static bool within(const char *from, const char *end, const char *s)
{
    const char *at = strstr(from, s);
    return at != NULL && at < end;
}

/* An edit of IB_GBPS outside hardware.c's range (0.1 .. 1e6 GB/s) is
 * refused: a decimal validation between those bounds on its cell. */
static void test_xlsx_assumptions_write_validation(void **state)
{
    struct util_book *f = *state;
    char tag[64];
    const char *dv, *end;
    size_t row = util_xlsx_find(&f->x, "A", "IB_GBPS");
    snprintf(tag, sizeof tag, "sqref=\"B%zu\"", row);
    dv = strstr(f->x.sheet, tag);
    assert_non_null(dv);
    end = strstr(dv, "</dataValidation>");
    assert_non_null(end);
    while (dv > f->x.sheet && strncmp(dv, "<dataValidation ", 16) != 0)
        dv--;
    assert_true(within(dv, end, "type=\"decimal\""));
    assert_true(within(dv, end, "<formula1>0.1</formula1>"));
    assert_true(within(dv, end, "<formula2>1000000</formula2>"));
    assert_true(within(dv, end, "error=\"IB_GBPS: "));
}

/* A value no formula reads is shown plainly with its key and source:
 * hbm_peak_tbps = 3.35 TB/s (hardware/h800.ini). */
static void test_xlsx_assumptions_write_rerun_value(void **state)
{
    struct util_book *f = *state;
    char ref[32], buf[256];
    size_t row = util_xlsx_find(&f->x, "E", "hardware: gpu.hbm_peak_tbps");
    assert_true(row > util_xlsx_find(&f->x, "A", "RIDGE_IB_FP8"));
    snprintf(ref, sizeof ref, "B%zu", row);
    assert_near(util_xlsx_num(&f->x, ref), 3.35, 1e-12);
    snprintf(ref, sizeof ref, "C%zu", row);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf), "TB/s");
    /* its own name is no workbook name: no formula reads it */
    snprintf(ref, sizeof ref, "A%zu", row);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf), "");
    /* an input is not repeated among these */
    assert_int_equal(util_xlsx_find(&f->x, "E", "hardware: cluster.ib_gbps"),
                     util_xlsx_find(&f->x, "A", "IB_GBPS"));
}

/* The model's totals in billions: DeepSeek-V3 has 671B parameters and
 * 37B active per token (arXiv 2412.19437 §1); roofplan's count of the
 * snapshot model is within 1% of both. */
static void test_xlsx_assumptions_write_model_totals(void **state)
{
    struct util_book *f = *state;
    char ref[32];
    size_t total = util_xlsx_find(
        &f->x, "A", "parameters, main model (embedding and head counted)");
    size_t active = util_xlsx_find(&f->x, "A", "parameters active per token");
    assert_true(total > 0 && active == total + 1);
    snprintf(ref, sizeof ref, "B%zu", total);
    assert_near(util_xlsx_num(&f->x, ref), 671, 0.01);
    snprintf(ref, sizeof ref, "B%zu", active);
    assert_near(util_xlsx_num(&f->x, ref), 37, 0.02);
}

/* Without a calibration no calibration input is offered (it would read a
 * file the report has not got); with h800.ini, CLOCK_BURST_TFLOPS = 776
 * and CLOCK_FACTOR = 659 / 776 ([clock] of the snapshot). */
static void test_xlsx_assumptions_write_without_calibration(void **state)
{
    struct util_book *f = *state;
    char buf[64];
    assert_int_equal(util_xlsx_find(&f->x, "A", "CLOCK_BURST_TFLOPS"), 0);
    assert_int_equal(util_xlsx_find(&f->x, "A", "CLOCK_FACTOR"), 0);
    assert_null(util_xlsx_name(&f->x, "CLOCK_FACTOR", buf, sizeof buf));
}

static void test_xlsx_assumptions_write_with_calibration(void **state)
{
    struct util_book *f = *state;
    char ref[32], buf[128];
    size_t burst = util_xlsx_find(&f->x, "A", "CLOCK_BURST_TFLOPS");
    size_t factor = util_xlsx_find(&f->x, "A", "CLOCK_FACTOR");
    assert_true(burst > 0 && factor > burst);
    snprintf(ref, sizeof ref, "B%zu", burst);
    assert_near(util_xlsx_num(&f->x, ref), 776, 0);
    snprintf(ref, sizeof ref, "E%zu", burst);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "calibration: clock.burst_tflops");
    snprintf(ref, sizeof ref, "B%zu", factor);
    assert_string_equal(util_xlsx_formula(&f->x, ref, buf, sizeof buf),
                        "CLOCK_SUSTAINED_TFLOPS/CLOCK_BURST_TFLOPS");
    assert_near(util_xlsx_num(&f->x, ref), 659.0 / 776.0, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_xlsx_assumptions_write_named_input,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_xlsx_assumptions_write_derived_rate, setup, teardown),
        cmocka_unit_test_setup_teardown(test_xlsx_assumptions_write_validation,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_xlsx_assumptions_write_rerun_value,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_xlsx_assumptions_write_model_totals, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_xlsx_assumptions_write_without_calibration, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_xlsx_assumptions_write_with_calibration, setup_expected,
            teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
