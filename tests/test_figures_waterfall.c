/*
 * test_figures_waterfall: the report's waterfalls agree with the time
 * model evaluated the ordinary way. The replay (replay_fill through
 * expected_waterfall, one effect switched on at a time) must start at the speed
 * of light that cost_evaluate() gave the plan and end at its expected step, its
 * bars must add up to the difference, and the published run's waterfall carries
 * its measured step. Fixtures are the snapshots in tests/data (DeepSeek-V3 on
 * H800 with the H800 calibration and DeepSeek's stack).
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

#include "calibration.h"
#include "cost.h"
#include "figures_waterfall.h"
#include "replay.h"
#include "stack.h"
#include "test_util.h"

/* DeepSeek's published plan (ISCA'25 Table 4) and a zero-bubble one. */
#define DEEPSEEK                                                         \
    "gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe precision=fp8 " \
    "recompute=selective mbs=1 gbs=15360"
#define ZB                                                         \
    "gpus=2048 tp=2 pp=16 ep=32 zero=1 schedule=zb precision=fp8 " \
    "recompute=none mbs=1 gbs=15360"

struct fixture {
    struct model m;
    struct hardware hw;
    struct calibration cal;
    struct stack stack;
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/snap/models/deepseek-v3.ini", &f.m, NULL, 0,
                   &d) ||
        hardware_load("tests/data/snap/hardware/h800.ini", &f.hw, NULL, 0,
                      &d) ||
        calibration_load("tests/data/snap/calibration/h800.ini", &f.cal, NULL,
                         0, &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", &f.stack, NULL, 0,
                   &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    f.hw.cal = &f.cal;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    model_release(&f->m);
    hardware_release(&f->hw);
    calibration_release(&f->cal);
    stack_release(&f->stack);
    return 0;
}

/* Plan `text` evaluated with the stack (NULL: none) into c. */
static void evaluate(const struct fixture *f,
                     const char *text,
                     const struct stack *st,
                     struct cost_result *c)
{
    struct plan p;
    struct cost_ctx ctx;
    util_plan(&f->m, &f->hw, text, &p);
    util_ctx(&ctx, &f->m, &f->hw, COMM_TOPO, &p);
    ctx.stack = st;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, c);
    cost_ctx_release(&ctx);
}

/* The waterfall of c against c's own times. */
static void check_against_times(const struct fixture *f,
                                const struct cost_result *c)
{
    struct views_waterfall w;
    struct replay x;
    double sum = 0, shares = 0;
    int k, largest = 0;
    replay_fill(c, &f->m, &f->hw, &x);
    figures_waterfall_of(c, &x, "recommended plan", &w);
    assert_true(w.known);
    assert_string_equal(w.name, "recommended plan");
    assert_memory_equal(&w.plan, &c->plan, sizeof w.plan);
    /* no effect on: the plan's speed of light as cost_evaluate composed
     * it, the one every other view prints (issue 36 item 4) */
    assert_int_equal(w.rank, cost_result_rank(c));
    assert_near(w.sol, c->t.step, 1e-9);
    /* then, where another rank sets the plan's floor, the expected step's
     * rank's own floor as a step (never above the plan's) */
    assert_int_equal(w.rank_step, w.rank != c->rank && x.sol != c->t.step);
    assert_near(w.rank_sol, x.sol, 0);
    assert_true(w.rank_sol <= w.sol * (1 + 1e-12));
    if (!w.rank_step)
        assert_near(w.rank_sol, w.sol, 1e-9);
    /* every effect on: the expected step */
    assert_near(w.expected, c->t.expected, 1e-9);
    assert_true(w.expected > w.sol);
    sum = w.rank_sol - w.sol;
    shares = w.rank_share;
    assert_near(w.rank_share, sum / (w.expected - w.sol), 1e-12);
    for (k = 0; k < EXPECTED_EFFECTS; k++) {
        sum += w.add[k];
        shares += w.share[k];
        assert_near(w.cum[k], w.sol + sum, 1e-9);
        assert_near(w.share[k], w.add[k] / (w.expected - w.sol), 1e-12);
        if (w.add[k] > w.add[largest])
            largest = k;
    }
    /* the steps sum from the plan's speed of light to the expected step */
    assert_near(sum, c->t.expected - w.sol, 1e-9);
    assert_near(shares, 1, 1e-12);
    assert_int_equal(w.largest, largest);
    assert_near(w.measured, 0, 0);
}

static void test_figures_waterfall_of_spans_sol_to_expected(void **state)
{
    struct fixture *f = *state;
    struct cost_result c;
    evaluate(f, DEEPSEEK, &f->stack, &c);
    assert_true(c.work.x.known);
    check_against_times(f, &c);
    /* the zero-bubble plan is slowest at the expected rates on pipeline
     * rank 0 and at the speed of light on rank 15 (`roofplan eval` on
     * these snapshots: "pipeline rank 0 ... at the speed of light rank
     * 15"), so its waterfall has the step down to rank 0's own floor */
    evaluate(f, ZB, &f->stack, &c);
    assert_int_equal(cost_result_rank(&c), 0);
    assert_int_equal(c.rank, 15);
    check_against_times(f, &c);
}

/* No stack: no expected step, so no waterfall. */
static void test_figures_waterfall_of_unknown_without_stack(void **state)
{
    struct fixture *f = *state;
    struct cost_result c;
    struct views_waterfall w;
    struct replay x;
    evaluate(f, DEEPSEEK, NULL, &c);
    assert_false(c.work.x.known);
    memset(&w, 0xff, sizeof w);
    memset(&x, 0xff, sizeof x);
    replay_fill(&c, &f->m, &f->hw, &x);
    assert_false(x.known);
    figures_waterfall_of(&c, &x, "x", &w);
    assert_false(w.known);
    assert_near(w.sol, 0, 0);
}

static void test_figures_waterfall_fills_both_panels(void **state)
{
    struct fixture *f = *state;
    struct util_parts *r = calloc(1, sizeof *r);
    struct views_waterfall own;
    struct replay rec;
    size_t sheet[1] = {0};
    assert_non_null(r);
    util_parts_init(r);
    r->in.m = &f->m;
    r->in.hw = &f->hw;
    r->v.headline.any = true;
    evaluate(f, ZB, &f->stack, &r->v.headline.plan);
    /* the recommended plan is kept row 0, whose replay rank made */
    replay_fill(&r->v.headline.plan, &f->m, &f->hw, &rec);
    r->v.sheet = sheet;
    r->v.nsheet = 1;
    r->v.sheet_recommended = 0;
    r->rank.replays = &rec;
    r->rank.nreplays = 1;
    r->rank.nvalidations = 1;
    r->rank.validation = calloc(1, sizeof *r->rank.validation);
    assert_non_null(r->rank.validation);
    r->v.published = 0;
    snprintf(r->rank.validation[0].name, sizeof r->rank.validation[0].name,
             "DeepSeek-V3 pre-training");
    evaluate(f, DEEPSEEK, &f->stack, &r->rank.validation[0].predicted);
    replay_fill(&r->rank.validation[0].predicted, &f->m, &f->hw,
                &r->rank.validation[0].replay);
    /* DeepSeek ISCA'25 Table 4: 19.926 s per step */
    r->rank.validation[0].measured_step_s = 19.926;
    r->rank.validation[0].measured_step_eq = 19.926;
    figures_waterfall(&r->v);
    figures_waterfall_of(&r->v.headline.plan, &rec, "recommended plan", &own);
    assert_memory_equal(&r->v.waterfall[0], &own, sizeof own);
    assert_true(r->v.waterfall[1].known);
    assert_string_equal(r->v.waterfall[1].name, "DeepSeek-V3 pre-training");
    assert_near(r->v.waterfall[1].expected,
                r->rank.validation[0].predicted.t.expected, 1e-9);
    assert_near(r->v.waterfall[1].measured, 19.926, 1e-12);
    assert_false(r->v.waterfall[1].measured_from_tflops);
    /* a run that published TFLOP/s only: its step from them */
    r->rank.validation[0].measured_step_s = 0;
    r->rank.validation[0].measured_step_eq = 20.5;
    figures_waterfall(&r->v);
    assert_near(r->v.waterfall[1].measured, 20.5, 1e-12);
    assert_true(r->v.waterfall[1].measured_from_tflops);
    /* no published run on these inputs: one waterfall */
    r->v.published = -1;
    figures_waterfall(&r->v);
    assert_true(r->v.waterfall[0].known);
    assert_false(r->v.waterfall[1].known);
    /* a recommended row without a replay: no waterfall (not a stale one) */
    r->rank.nreplays = 0;
    figures_waterfall(&r->v);
    assert_false(r->v.waterfall[0].known);
    r->v.sheet = NULL;
    r->rank.replays = NULL; /* the test's own */
    util_parts_free(r);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_waterfall_of_spans_sol_to_expected),
        cmocka_unit_test(test_figures_waterfall_of_unknown_without_stack),
        cmocka_unit_test(test_figures_waterfall_fills_both_panels),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
