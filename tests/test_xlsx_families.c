/*
 * test_xlsx_families: the Families sheet written alone from a report on
 * the snapshots (tests/data/snap: DeepSeek-V3 on 2048 H800, a narrowed
 * sweep) and read back: one row per family, fastest first, each the
 * family's best plan (found here from the report's rows), live over
 * Plans.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "xlsx_book.h"
#include "xlsx_families.h"
#include "test_util.h"

static void write_families(struct xlsx_book *b)
{
    xlsx_families_write(b, xlsx_book_sheet(b, XLSX_FAMILIES_SHEET), NULL, NULL);
}

static int setup(void **state)
{
    struct util_book *f = util_book_new("test_xlsx_families", false);
    util_book_write(f, XLSX_BOOK_TABLES, write_families);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    util_book_free(*state);
    return 0;
}

/* The family table: its header's Family cell, then one row per family,
 * fastest first; each row's step is the family's best (the fastest of
 * its fitting plans, else its fastest), live over Plans by its row. */
static void test_xlsx_families_write(void **state)
{
    struct util_book *f = *state;
    const struct util_parts *r = &f->s.rep;
    size_t head = util_xlsx_find(&f->x, "B", "Family"), k, i;
    double prev = 0;
    char ref[32], buf[160], want[160];
    assert_true(head > 0 && r->rank.nfamilies > 1);
    assert_string_equal(util_xlsx_text(&f->x, "C1", buf, sizeof buf), "");
    snprintf(ref, sizeof ref, "C%zu", head);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "Speed-of-light step, topo (s)");
    for (k = 0; k < r->rank.nfamilies; k++) {
        size_t row = head + 1 + k;
        double fit = INFINITY, any = INFINITY, want_step, got;
        bool any_fits = false;
        snprintf(ref, sizeof ref, "B%zu", row);
        util_xlsx_text(&f->x, ref, buf, sizeof buf);
        for (i = 0; i < r->rank.nfamilies; i++)
            if (strcmp(r->rank.family[i].name, buf) == 0)
                break;
        assert_true(i < r->rank.nfamilies); /* a family's name */
        for (size_t j = 0; j < r->rank.nrows; j++) {
            const struct ranking_row *rw = &r->rank.rows[j];
            if (rw->family != (int)i)
                continue;
            any = fmin(any, rw->step);
            if (rw->fits) {
                fit = fmin(fit, rw->step);
                any_fits = true;
            }
        }
        want_step = any_fits ? fit : any;
        snprintf(ref, sizeof ref, "C%zu", row);
        got = util_xlsx_num(&f->x, ref);
        assert_near(got, want_step, 1e-12);
        snprintf(want, sizeof want, "IFERROR(INDEX(PLANS_RANK_S,K%zu),\"n/a\")",
                 row);
        assert_string_equal(util_xlsx_formula(&f->x, ref, buf, sizeof buf),
                            want);
        /* Fits (J): TRUE as a cached 1 */
        snprintf(ref, sizeof ref, "J%zu", row);
        assert_near(util_xlsx_num(&f->x, ref), any_fits ? 1 : 0, 0);
        if (k > 0 && any_fits)
            assert_true(got >= prev);
        if (any_fits)
            prev = got;
    }
    /* the row after the last family is the note, not a family */
    snprintf(ref, sizeof ref, "C%zu", head + 1 + r->rank.nfamilies);
    assert_true(isnan(util_xlsx_num(&f->x, ref)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_xlsx_families_write, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
