/*
 * test_xlsx_sensitivity: the Sensitivity sheet written alone from a
 * report on the snapshots (tests/data/snap: DeepSeek-V3 on 2048 H800)
 * and read back: the grids' headers (the sweep's default bandwidths,
 * today's marked), a family's step at today's bandwidth (its fastest
 * fitting plan, found here from the report's rows), steps that never
 * grow with bandwidth, and the crossover table.
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
#include "xlsx_sensitivity.h"
#include "test_util.h"

#define IB_TITLE "InfiniBand (per GPU per direction)"
#define NV_TITLE "NVLink (per GPU per direction)"

static void write_sensitivity(struct xlsx_book *b)
{
    xlsx_sensitivity_write(b, xlsx_book_sheet(b, XLSX_SENSITIVITY_SHEET), NULL,
                           NULL);
}

static int setup(void **state)
{
    struct util_book *f = util_book_new("test_xlsx_sensitivity", false);
    util_book_write(f, XLSX_BOOK_TABLES, write_sensitivity);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    util_book_free(*state);
    return 0;
}

/* The headers: sweep.c's default grids, IB 12.5 .. 400 GB/s (11 points)
 * and NVLink 80 .. 900 (8), h800.ini's 50 and 160 marked "(now)". */
static void test_xlsx_sensitivity_write_grid_headers(void **state)
{
    struct util_book *f = *state;
    static const char *const ib[] = {"12.5",     "17.7", "25",  "35.4",
                                     "50 (now)", "70.7", "100", "141",
                                     "200",      "283",  "400"};
    static const char *const nv[] = {"80",  "113", "160 (now)", "226",
                                     "320", "450", "640",       "900"};
    size_t hi = util_xlsx_find(&f->x, "A", IB_TITLE) + 1;
    size_t hn = util_xlsx_find(&f->x, "A", NV_TITLE) + 1;
    char buf[64];
    size_t k;
    assert_true(hi > 1 && hn > hi);
    assert_string_equal(util_xlsx_text_at(&f->x, 'A', hi, buf, sizeof buf),
                        "Family  \\  GB/s per GPU");
    for (k = 0; k < sizeof ib / sizeof ib[0]; k++)
        assert_string_equal(
            util_xlsx_text_at(&f->x, (char)('B' + k), hi, buf, sizeof buf),
            ib[k]);
    assert_string_equal(util_xlsx_text_at(&f->x, 'M', hi, buf, sizeof buf), "");
    for (k = 0; k < sizeof nv / sizeof nv[0]; k++)
        assert_string_equal(
            util_xlsx_text_at(&f->x, (char)('B' + k), hn, buf, sizeof buf),
            nv[k]);
    assert_string_equal(util_xlsx_text_at(&f->x, 'J', hn, buf, sizeof buf), "");
}

#define UNFIT " (fastest; does not fit)"

/* A family's row at today's bandwidth (IB column F, NVLink D) is the
 * step of its fastest fitting plan; the baseline, when none of its plans
 * fits, is drawn with its fastest plan (so marked); more bandwidth never
 * makes a step longer. */
static void test_xlsx_sensitivity_write_grid_rows(void **state)
{
    struct util_book *f = *state;
    const struct util_parts *r = &f->s.rep;
    size_t hi = util_xlsx_find(&f->x, "A", IB_TITLE) + 1;
    size_t hn = util_xlsx_find(&f->x, "A", NV_TITLE) + 1;
    size_t row, i, j, n = 0, len;
    char name[96], c;
    for (row = hi + 1; util_xlsx_text_at(&f->x, 'A', row, name, sizeof name)[0];
         row++) {
        double fit = INFINITY, any = INFINITY;
        bool unfit = false;
        len = strlen(name);
        if (len > strlen(UNFIT) &&
            strcmp(name + len - strlen(UNFIT), UNFIT) == 0) {
            name[len - strlen(UNFIT)] = '\0';
            unfit = true;
        }
        for (i = 0; i < r->rank.nfamilies; i++)
            if (strcmp(r->rank.family[i].name, name) == 0)
                break;
        if (i == r->rank.nfamilies) /* a note under the grid */
            break;
        n++;
        for (j = 0; j < r->rank.nrows; j++) {
            if (r->rank.rows[j].family != (int)i)
                continue;
            any = fmin(any, r->rank.rows[j].step);
            if (r->rank.rows[j].fits)
                fit = fmin(fit, r->rank.rows[j].step);
        }
        /* only fitting families are drawn, and the unfit baseline */
        assert_true(unfit ? isinf(fit) && (long)i == r->v.baseline.family
                          : isfinite(fit));
        assert_near(util_xlsx_num_at(&f->x, 'F', row), unfit ? any : fit, 1e-9);
        for (c = 'C'; c <= 'L'; c++)
            assert_true(util_xlsx_num_at(&f->x, c, row) <=
                        util_xlsx_num_at(&f->x, (char)(c - 1), row) *
                            (1 + 1e-12));
        /* the same row of the NVLink grid, at 160 GB/s */
        assert_near(util_xlsx_num_at(&f->x, 'D', hn + (row - hi)),
                    unfit ? any : fit, 1e-9);
    }
    assert_int_equal(n, r->v.sens[0].nfamilies);
    assert_true(n > 0);
}

/* The crossover table: one row per family, fastest first. "already"
 * (the link's time at or below compute now) cannot go with a plan bound
 * by that link; a plan bound by IB at h800.ini's 50 GB/s meets compute
 * only at a faster IB. */
static void test_xlsx_sensitivity_write_crossover(void **state)
{
    struct util_book *f = *state;
    const struct util_parts *r = &f->s.rep;
    size_t head = util_xlsx_find(&f->x, "C", "IB meets compute at (GB/s)");
    size_t k, ib_bound = 0;
    char bound[32], buf[96];
    assert_true(head > 0);
    assert_string_equal(util_xlsx_text_at(&f->x, 'A', head, buf, sizeof buf),
                        "Family");
    for (k = 0; k < r->rank.nfamilies; k++) {
        size_t row = head + 1 + k;
        const struct ranking_family *fam =
            &r->rank.family[r->rank.families_by_step[k]];
        assert_string_equal(util_xlsx_text_at(&f->x, 'A', row, buf, sizeof buf),
                            fam->name);
        util_xlsx_text_at(&f->x, 'B', row, bound, sizeof bound);
        if (strcmp(util_xlsx_text_at(&f->x, 'C', row, buf, sizeof buf),
                   "already") == 0)
            assert_string_not_equal(bound, "IB");
        if (strcmp(util_xlsx_text_at(&f->x, 'E', row, buf, sizeof buf),
                   "already") == 0)
            assert_string_not_equal(bound, "NVLink");
        if (strcmp(bound, "IB") == 0) {
            ib_bound++;
            assert_true(util_xlsx_num_at(&f->x, 'C', row) > 50);
            assert_true(
                util_xlsx_text_at(&f->x, 'D', row, buf, sizeof buf)[0] != '\0');
        }
    }
    assert_true(ib_bound > 0); /* the ZeRO-3 families with EP */
    assert_non_null(
        strstr(util_xlsx_text_at(&f->x, 'A', head + 1 + r->rank.nfamilies, buf,
                                 sizeof buf),
               "\"already\""));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_sensitivity_write_grid_headers),
        cmocka_unit_test(test_xlsx_sensitivity_write_grid_rows),
        cmocka_unit_test(test_xlsx_sensitivity_write_crossover),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
