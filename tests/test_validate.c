/*
 * test_validate: a published run evaluated on the inputs it names
 * (src/evaluate/validate.c): which calibration and stack its expected
 * step came from, the collective times and the waterfall's replay it
 * carries to the later stages (so that they time nothing), and a plan
 * that does not apply skipped with the reason. Inputs: the tiny MoE
 * (tests/data/tiny-moe.ini) on the H800 snapshot with its calibration
 * and DeepSeek's stack (tests/data/snap).
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
#include "stack.h"
#include "validate.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw; /* with cal */
    struct calibration cal;
    struct stack st;
    struct cost_ctx ctx, other;
    struct validation_run run;
    struct validation_inputs in;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct diag d;
    diag_init(&d);
    if (!f)
        return -1;
    util_model(&f->m, "tests/data/tiny-moe.ini", NULL, 0);
    if (hardware_load("tests/data/snap/hardware/h800.ini", &f->hw, NULL, 0,
                      &d) ||
        calibration_load("tests/data/snap/calibration/h800.ini", &f->cal, NULL,
                         0, &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", &f->st, NULL, 0,
                   &d))
        fail_msg("%s", d.msg);
    f->hw.cal = &f->cal;
    if (cost_ctx_init(&f->ctx, &f->m, &f->hw, COMM_TOPO, &d) ||
        cost_ctx_init(&f->other, &f->m, &f->hw, COMM_FLAT, &d))
        fail_msg("%s", d.msg);
    f->ctx.stack = f->other.stack = &f->st;
    snprintf(f->run.name, sizeof f->run.name, "run");
    snprintf(f->run.plan, sizeof f->run.plan,
             "gpus=64 pp=2 ep=8 zero=1 mbs=1 gbs=64");
    f->run.measured_step_s = 20;
    f->in.current = true;
    f->in.m = &f->m;
    f->in.hw = &f->hw;
    f->in.stack = &f->st;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    cost_ctx_release(&f->ctx);
    cost_ctx_release(&f->other);
    stack_release(&f->st);
    calibration_release(&f->cal);
    hardware_release(&f->hw);
    model_release(&f->m);
    free(f);
    return 0;
}

static void predict(struct fixture *f, struct validate_result *v)
{
    struct diag d, skip;
    diag_init(&d);
    diag_init(&skip);
    assert_int_equal(
        validate_predict(&f->run, &f->in, &f->ctx, &f->other, v, &skip, &d),
        STATUS_OK);
    assert_int_equal(skip.status, STATUS_OK); /* it applies */
    assert_string_equal(skip.msg, "");
}

/* A run on these inputs names the calibration and the stack its expected
 * step came from; without them, none. */
static void test_validate_predict_names_expected_inputs(void **state)
{
    struct fixture *f = *state;
    struct validate_result *v = calloc(1, sizeof *v);
    assert_non_null(v);
    predict(f, v);
    assert_true(v->predicted.work.x.known);
    assert_string_equal(v->calibration_path,
                        "tests/data/snap/calibration/h800.ini");
    assert_string_equal(v->stack_path,
                        "tests/data/snap/stacks/deepseek-hai.ini");
    /* no calibration, no stack: no expected step, no files named */
    f->hw.cal = NULL;
    f->in.stack = NULL;
    predict(f, v);
    f->hw.cal = &f->cal;
    f->in.stack = &f->st;
    assert_false(v->predicted.work.x.known);
    assert_false(v->replay.known);
    assert_string_equal(v->calibration_path, "");
    assert_string_equal(v->stack_path, "");
    free(v);
}

/* What the later stages show of the run comes timed: each collective's
 * link times, bytes over the snapshot's links at its pick's share plus
 * the latency charged there in the collectives file's Simple ring steps
 * (IB 50 GB/s, NVLink 160 GB/s: arXiv 2412.19437 section 3.2.2; 3.4 us
 * in a node and 14 us across: tests/data/snap/collectives/nccl.ini),
 * under both models; and the waterfall's replay, from the speed of light
 * to the expected step on the rank it is of. */
static void test_validate_predict_carries_times(void **state)
{
    struct fixture *f = *state;
    struct validate_result *v = calloc(1, sizeof *v);
    size_t i;
    assert_non_null(v);
    predict(f, v);
    assert_true(v->ncoll > 0 && v->ncoll_other > 0);
    for (i = 0; i < v->ncoll; i++) {
        const struct comm_collective *c = &v->coll[i];
        assert_near(c->ib_s,
                    c->ib_bytes / (c->algo.share * 50e9) +
                        c->ib_lat.steps * 3.4e-6 + c->ib_lat.net * 14e-6,
                    1e-12);
        assert_near(c->nvlink_s,
                    c->nvlink_bytes / (c->algo.share * 160e9) +
                        c->nvlink_lat.steps * 3.4e-6,
                    1e-12);
        assert_near(c->nvlink_lat.net, 0, 0);
    }
    for (i = 0; i < v->ncoll_other; i++) {
        const struct comm_collective *c = &v->coll_other[i];
        assert_near(c->ib_s,
                    c->ib_bytes / (c->algo.share * 50e9) +
                        c->ib_lat.steps * 3.4e-6 + c->ib_lat.net * 14e-6,
                    1e-12);
    }
    assert_true(v->replay.known);
    assert_near(v->replay.step[EXPECTED_EFFECTS - 1], v->predicted.t.expected,
                1e-9);
    assert_true(v->replay.sol > 0 && v->replay.sol < v->predicted.t.expected);
    assert_int_equal(v->replay.rank, cost_result_rank(&v->predicted));
    free(v);
}

/* A plan the inputs cannot run (pp 3 does not divide 64 GPUs) is skipped
 * with the reason, not an error. */
static void test_validate_predict_skips_a_plan_that_does_not_apply(void **state)
{
    struct fixture *f = *state;
    struct validate_result *v = calloc(1, sizeof *v);
    struct validation_run run = f->run;
    struct diag d, skip;
    assert_non_null(v);
    diag_init(&d);
    diag_init(&skip);
    snprintf(run.plan, sizeof run.plan, "gpus=64 pp=3 mbs=1 gbs=64");
    assert_int_equal(
        validate_predict(&run, &f->in, &f->ctx, &f->other, v, &skip, &d),
        STATUS_OK);
    assert_int_equal(skip.status, STATUS_RANGE);
    if (!strstr(skip.msg, "run: skipped, its plan does not apply to this "
                          "report's inputs: "))
        fail_msg("note: %s", skip.msg);
    free(v);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_validate_predict_names_expected_inputs),
        cmocka_unit_test(test_validate_predict_carries_times),
        cmocka_unit_test(
            test_validate_predict_skips_a_plan_that_does_not_apply),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
