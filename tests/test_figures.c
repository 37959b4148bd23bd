/*
 * test_figures: the figures stage's entry points (figures.c): the date
 * figures_views() writes and the sentence on the speed of light against
 * a published run (which calibration and stack a validation run's
 * expected step came from is test_validate.c's). The report is the shared
 * hand-made one (util_figures_setup in tests/util.c). The Plans sheet's rows,
 * the headline and the sentences are test_figures_headline.c's; colours,
 * crossovers and charts test_figures_charts.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "test_util.h"

/* 1700000000 s = 19675 days + 80000 s: 2023-11-14 22:13:20 UTC. */
static void test_figures_date(void **state)
{
    const struct util_parts *r = &((struct util_figures *)*state)->r;
    assert_string_equal(r->v.when, "2023-11-14 22:13 UTC");
}

/* A published run on these inputs: the sentence gives measured over the
 * speed of light, 19.926 / 7.655 = 2.603 (DeepSeek-V3's numbers). */
static void test_figures_difference_from_published_run(void **state)
{
    struct util_figures *f = *state;
    struct util_parts r = f->r; /* shallow: rows stay the fixture's */
    struct diag d;
    r.rank.nvalidations = 1;
    r.rank.validation = calloc(1, sizeof *r.rank.validation);
    assert_non_null(r.rank.validation);
    snprintf(r.rank.validation[0].name, sizeof r.rank.validation[0].name,
             "run");
    r.rank.validation[0].current = true;
    r.rank.validation[0].measured_step_s = 19.926;
    r.rank.validation[0].predicted.t.step = 7.655;
    diag_init(&d);
    assert_int_equal(figures_views(&r.in, &r.rank, &r.v, &d), STATUS_OK);
    assert_int_equal(r.v.published, 0);
    assert_true(r.v.headline.has_ratio);
    assert_near(r.v.headline.measured_over_sol, 19.926 / 7.655, 1e-12);
    assert_non_null(
        strstr(r.v.headline.difference, "2.60x its speed of light"));
    views_free(&r.v); /* the copy's own: figures_views made them anew */
    free(r.rank.validation);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_date),
        cmocka_unit_test(test_figures_difference_from_published_run),
    };
    return cmocka_run_group_tests(tests, util_figures_setup,
                                  util_figures_teardown);
}
