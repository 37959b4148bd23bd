/*
 * test_figures: the figures stage's entry points (figures.c): the date
 * figures_views() writes, the sentence on the speed of light against a
 * published run, and which calibration and stack a validation run's
 * expected step came from. The report is the shared hand-made one
 * (util_figures_setup in tests/util.c). The Plans sheet's rows, the
 * headline and the sentences are test_figures_headline.c's; colours,
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

#include "calibration.h"
#include "figures.h"
#include "rank.h"
#include "stack.h"
#include "test_util.h"

/* 1700000000 s = 19675 days + 80000 s: 2023-11-14 22:13:20 UTC. */
static void test_figures_date(void **state)
{
    const struct report *r = &((struct util_figures *)*state)->r;
    assert_string_equal(r->when, "2023-11-14 22:13 UTC");
}

/* A published run on these inputs: the sentence gives measured over the
 * speed of light, 19.926 / 7.655 = 2.603 (DeepSeek-V3's numbers). */
static void test_figures_difference_from_published_run(void **state)
{
    struct util_figures *f = *state;
    struct report r = f->r; /* shallow: rows stay the fixture's */
    struct diag d;
    r.sheet = NULL;
    r.points = NULL;
    r.roof_pick = NULL;
    r.nvalidations = 1;
    memset(&r.validation[0], 0, sizeof r.validation[0]);
    snprintf(r.validation[0].name, sizeof r.validation[0].name, "run");
    r.validation[0].current = true;
    r.validation[0].measured_step_s = 19.926;
    r.validation[0].predicted.t.step = 7.655;
    diag_init(&d);
    assert_int_equal(figures_views(&r, &d), STATUS_OK);
    assert_int_equal(r.published, 0);
    assert_true(r.headline.has_ratio);
    assert_near(r.headline.measured_over_sol, 19.926 / 7.655, 1e-12);
    assert_non_null(strstr(r.headline.difference, "2.60x its speed of light"));
    free(r.sheet);
    free(r.points);
    free(r.roof_pick);
}

/* A validation run on these inputs names the calibration and the stack
 * its expected step came from; without them, none. */
static void test_figures_validations_name_expected_inputs(void **state)
{
    struct util_figures *f = *state;
    struct report *r = calloc(1, sizeof *r);
    struct validation_run run;
    struct validation_inputs in;
    struct calibration cal;
    struct stack st;
    struct hardware hw = f->hw; /* shallow: with a calibration */
    struct cost_ctx ctx, other;
    struct diag d;
    const struct validate_result *v;
    assert_non_null(r);
    diag_init(&d);
    if (calibration_load("tests/data/snap/calibration/h800.ini", &cal, NULL, 0,
                         &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", &st, NULL, 0, &d))
        fail_msg("%s", d.msg);
    hw.cal = &cal;
    memset(&run, 0, sizeof run);
    snprintf(run.name, sizeof run.name, "run");
    snprintf(run.plan, sizeof run.plan,
             "gpus=64 pp=2 ep=8 zero=1 mbs=1 "
             "gbs=64");
    run.measured_step_s = 20;
    memset(&in, 0, sizeof in);
    in.current = true;
    in.m = &f->m;
    in.hw = &hw;
    in.stack = &st;
    r->m = &f->m;
    r->hw = &hw;
    r->headroom_pct = 10;
    if (cost_ctx_init(&ctx, &f->m, &hw, COMM_TOPO, &d) ||
        cost_ctx_init(&other, &f->m, &hw, COMM_FLAT, &d))
        fail_msg("%s", d.msg);
    ctx.stack = other.stack = &st;
    assert_int_equal(rank_finish_validations(r, &run, &in, 1, &ctx, &other, &d),
                     STATUS_OK);
    assert_int_equal(r->nvalidations, 1);
    v = &r->validation[0];
    assert_true(v->predicted.work.x.known);
    assert_string_equal(v->calibration_path,
                        "tests/data/snap/calibration/h800.ini");
    assert_string_equal(v->stack_path,
                        "tests/data/snap/stacks/deepseek-hai.ini");
    /* no calibration, no stack: no expected step, no files named */
    hw.cal = NULL;
    in.stack = NULL;
    r->nvalidations = 0;
    assert_int_equal(rank_finish_validations(r, &run, &in, 1, &ctx, &other, &d),
                     STATUS_OK);
    assert_false(v->predicted.work.x.known);
    assert_string_equal(v->calibration_path, "");
    assert_string_equal(v->stack_path, "");
    cost_ctx_release(&ctx);
    cost_ctx_release(&other);
    stack_release(&st);
    calibration_release(&cal);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_date),
        cmocka_unit_test(test_figures_difference_from_published_run),
        cmocka_unit_test(test_figures_validations_name_expected_inputs),
    };
    return cmocka_run_group_tests(tests, util_figures_setup,
                                  util_figures_teardown);
}
