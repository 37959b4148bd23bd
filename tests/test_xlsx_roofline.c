/*
 * test_xlsx_roofline: the Roofline sheet written alone from a report on
 * the snapshots (tests/data/snap: DeepSeek-V3 on 2048 H800) and read
 * back: the roofs' table (each roof's ridge at rate / bandwidth, from
 * h800.ini's 1460 and 758 TFLOP/s over 50 GB/s IB and 160 GB/s NVLink),
 * the points under their roofs, and the two native charts over the
 * sheet's ranges.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlsx_book.h"
#include "xlsx_roofline.h"
#include "test_util.h"

#define POINTS_HEAD 116 /* the points' header row (1-based) */

static void write_roofline(struct xlsx_book *b)
{
    xlsx_roofline_write(b, xlsx_book_sheet(b, XLSX_ROOFLINE_SHEET), NULL, NULL);
}

static int setup(void **state)
{
    struct util_book *f = util_book_new("test_xlsx_roofline", false);
    util_book_write(f, XLSX_BOOK_TABLES, write_roofline);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    util_book_free(*state);
    return 0;
}

/* The three rows of roof `name` (left edge, ridge, right edge): the
 * ridge at rate x 1000 / bandwidth FLOP/B (clamped to the axis), the
 * attainable rate min(rate, x x bandwidth / 1000) at each, and the
 * formulas over the names. */
static void check_roof(const struct util_book *f,
                       const char *name,
                       const char *rate_name,
                       const char *ridge_name,
                       const char *bw_name,
                       double rate,
                       double gbps)
{
    size_t row = util_xlsx_find(&f->x, "A", name), k;
    double lo, mid, hi, ridge = rate * 1000 / gbps;
    char ref[32], fm[160], want[160], buf[32];
    if (row == 0)
        fail_msg("no roof %s", name);
    lo = util_xlsx_num_at(&f->x, 'C', row);
    mid = util_xlsx_num_at(&f->x, 'C', row + 1);
    hi = util_xlsx_num_at(&f->x, 'C', row + 2);
    assert_true(lo < hi);
    assert_near(mid, fmin(fmax(ridge, lo), hi), 1e-12);
    assert_true(ridge > lo && ridge < hi); /* on the chart */
    for (k = 0; k < 3; k++) {
        double x = util_xlsx_num_at(&f->x, 'C', row + k);
        assert_near(util_xlsx_num_at(&f->x, 'D', row + k),
                    fmin(rate, x * gbps / 1000), 1e-12);
        snprintf(ref, sizeof ref, "D%zu", row + k);
        snprintf(want, sizeof want, "MIN(%s,C%zu*%s/1000)", rate_name, row + k,
                 bw_name);
        assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm), want);
    }
    assert_near(util_xlsx_num_at(&f->x, 'D', row + 1), rate,
                1e-12); /* the ridge: the roof */
    snprintf(ref, sizeof ref, "C%zu", row + 1);
    snprintf(want, sizeof want, "MIN(MAX(%s,C%zu),C%zu)", ridge_name, row,
             row + 2);
    assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm), want);
    snprintf(ref, sizeof ref, "B%zu", row + 1);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf), "ridge");
}

/* FP8 1460 TFLOP/s and BF16 758 (achievable, clock_derate 1) over IB at
 * 50 GB/s: ridges at 29,200 and 15,160 FLOP/B; over NVLink at 160 GB/s:
 * 9,125 and 4,737.5. */
static void test_xlsx_roofline_write_roofs(void **state)
{
    struct util_book *f = *state;
    assert_true(util_xlsx_find(&f->x, "A", "Roof") == 100);
    check_roof(f, "FP8 achievable over IB", "FP8_TFLOPS_USED", "RIDGE_IB_FP8",
               "IB_GBPS", 1460, 50);
    check_roof(f, "BF16 achievable over IB", "BF16_TFLOPS_USED",
               "RIDGE_IB_BF16", "IB_GBPS", 758, 50);
    check_roof(f, "FP8 achievable over NVLink", "FP8_TFLOPS_USED",
               "RIDGE_NVLINK_FP8", "NVLINK_GBPS", 1460, 160);
    check_roof(f, "BF16 achievable over NVLink", "BF16_TFLOPS_USED",
               "RIDGE_NVLINK_BF16", "NVLINK_GBPS", 758, 160);
}

/* Every point lies under its roofs: at the speed of light a step takes
 * at least its bytes over a link / that link's bandwidth and its FLOPs
 * at the fastest rate, so attained <= intensity x bandwidth and <= the
 * FP8 rate. Its attained and bound are formulas over its Plans row. */
static void test_xlsx_roofline_write_points(void **state)
{
    struct util_book *f = *state;
    const struct util_parts *r = &f->s.rep;
    size_t row, n = 0, i;
    char buf[128], fm[256], want[256], ref[32];
    assert_string_equal(util_xlsx_text(&f->x, "F116", buf, sizeof buf),
                        "Attained, speed of light (TFLOP/s)");
    for (row = POINTS_HEAD + 1;; row++, n++) {
        snprintf(ref, sizeof ref, "A%zu", row);
        if (!util_xlsx_text(&f->x, ref, buf, sizeof buf)[0])
            break;
        double y = util_xlsx_num_at(&f->x, 'F', row),
               ib = util_xlsx_num_at(&f->x, 'D', row),
               nv = util_xlsx_num_at(&f->x, 'E', row),
               plans_row = util_xlsx_num_at(&f->x, 'C', row);
        for (i = 0; i < r->rank.nfamilies; i++)
            if (strcmp(r->rank.family[i].name, buf) == 0)
                break;
        assert_true(i < r->rank.nfamilies);
        assert_true(y > 0 && y <= 1460 * (1 + 1e-12));
        if (!isnan(ib))
            assert_true(y <= ib * 50 / 1000 * (1 + 1e-12));
        if (!isnan(nv))
            assert_true(y <= nv * 160 / 1000 * (1 + 1e-12));
        assert_true(plans_row >= 1 && plans_row <= (double)r->v.nsheet);
        snprintf(ref, sizeof ref, "F%zu", row);
        snprintf(want, sizeof want,
                 "(INDEX(PLANS_FP8_TFLOP,C%zu)+INDEX(PLANS_BF16_TFLOP,C%zu))/"
                 "INDEX(PLANS_STEP_S,C%zu)",
                 row, row, row);
        assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm), want);
        snprintf(ref, sizeof ref, "G%zu", row);
        snprintf(want, sizeof want, "INDEX(PLANS_BOUND,C%zu)", row);
        assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm), want);
    }
    assert_int_equal(n, r->v.nroof_pick);
    assert_true(n > 0);
}

/* Two scatter charts, over IB (x: column D) and NVLink (x: column E),
 * both with the attained column F as y. */
static void test_xlsx_roofline_write_charts(void **state)
{
    struct util_book *f = *state;
    char *ib = util_zip_entry(f->path, "xl/charts/chart1.xml");
    char *nv = util_zip_entry(f->path, "xl/charts/chart2.xml");
    assert_non_null(ib);
    assert_non_null(nv);
    assert_non_null(strstr(ib, "<c:scatterChart>"));
    assert_non_null(strstr(ib, "<c:f>Roofline!$D$117:$D$"));
    assert_non_null(strstr(ib, "<c:f>Roofline!$F$117:$F$"));
    assert_non_null(strstr(nv, "<c:f>Roofline!$E$117:$E$"));
    assert_non_null(strstr(ib, "Roofline over IB"));
    assert_non_null(strstr(nv, "Roofline over NVLink"));
    free(ib);
    free(nv);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_roofline_write_roofs),
        cmocka_unit_test(test_xlsx_roofline_write_points),
        cmocka_unit_test(test_xlsx_roofline_write_charts),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
