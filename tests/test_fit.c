/*
 * test_fit: the stack's free factors fitted to a measured run
 * (--calibrate). The fits are checked against values planted by hand:
 * a run whose "measured" step is the expected step with a known factor
 * (computed through cost_evaluate with the factor in the stack, the path
 * the report takes), and a one-GPU run whose expected step is the sum of
 * two terms, only one of which the factor scales. Fixtures: the tiny MoE
 * model, the H800 snapshot calibration and stacks (tests/data).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibration.h"
#include "cost.h"
#include "fit.h"
#include "stack.h"
#include "test_util.h"

#define SNAP "tests/data/snap"

struct fixture {
    struct model moe;
    struct hardware hw; /* hw.cal: the H800 snapshot calibration */
    struct calibration cal;
    struct stack deepseek, megatron;
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/tiny-moe.ini", &f.moe, NULL, 0, &d) ||
        hardware_load("tests/data/hw-h800.ini", &f.hw, NULL, 0, &d) ||
        calibration_load(SNAP "/calibration/h800.ini", &f.cal, NULL, 0, &d) ||
        stack_load(SNAP "/stacks/deepseek-hai.ini", &f.deepseek, NULL, 0, &d) ||
        stack_load(SNAP "/stacks/megatron-lm.ini", &f.megatron, NULL, 0, &d)) {
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
    model_release(&f->moe);
    hardware_release(&f->hw);
    calibration_release(&f->cal);
    stack_release(&f->deepseek);
    stack_release(&f->megatron);
    return 0;
}

/* A run of the tiny model with this plan and measured step (no file:
 * its messages name `path`). */
static void
make_run(struct validation_run *run, const char *plan, double step_s)
{
    memset(run, 0, sizeof *run);
    snprintf(run->path, sizeof run->path, "tests/data/no-such-run.ini");
    snprintf(run->name, sizeof run->name, "tiny run");
    snprintf(run->plan, sizeof run->plan, "%s", plan);
    run->measured_step_s = step_s;
}

/* The run's inputs: the fixture's model and cluster, stack st. */
static void make_inputs(struct fixture *f,
                        const struct stack *st,
                        struct validation_inputs *in)
{
    memset(in, 0, sizeof *in);
    in->current = true;
    in->m = &f->moe;
    in->hw = &f->hw;
    in->stack = st;
}

/* The report's path: plan evaluated with stack st whose factors are set
 * to overhead and efficiency; its times into *t. */
static void evaluate(struct fixture *f,
                     const struct stack *st,
                     const char *plan,
                     double overhead,
                     double efficiency,
                     struct cost_times *t)
{
    struct stack copy = *st;
    struct cost_ctx ctx;
    struct cost_result r;
    struct plan p;
    copy.spec.compute_overhead = overhead;
    copy.spec.network_efficiency = efficiency;
    util_plan(&f->moe, &f->hw, plan, &p);
    util_ctx(&ctx, &f->moe, &f->hw, COMM_TOPO, &p);
    ctx.stack = &copy;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
    cost_ctx_release(&ctx);
    assert_true(r.work.x.known);
    *t = r.t;
}

#define ONE_GPU "gpus=1 mbs=1 gbs=8"

/* By hand: on one GPU there is no pipeline and no communication, so the
 * expected step is the optimizer step plus the compute (x_core is
 * x_compute; no bubble, no DP sync, nothing exposed), and only the
 * compute scales with the overhead. A run measured at optimizer + 1.3 x
 * compute is fitted with compute_overhead = 1.3. */
static void test_fit_run_by_hand_one_gpu(void **state)
{
    struct fixture *f = *state;
    struct validation_run run;
    struct validation_inputs in;
    struct fit_result r;
    struct cost_times t, planted;
    struct diag d;
    double measured;
    diag_init(&d);
    evaluate(f, &f->deepseek, ONE_GPU, 1, 1, &t);
    assert_near(t.expected, t.x_optimizer + t.x_compute, 1e-15);
    measured = t.x_optimizer + 1.3 * t.x_compute;
    /* the report's path agrees with the hand sum */
    evaluate(f, &f->deepseek, ONE_GPU, 1.3, 1, &planted);
    assert_near(planted.expected, measured, 1e-12);

    make_run(&run, ONE_GPU, measured);
    make_inputs(f, &f->deepseek, &in);
    assert_int_equal(fit_run(&run, &in, COMM_TOPO, &r, &d), STATUS_OK);
    assert_int_equal(r.factor, STACK_COMPUTE_OVERHEAD);
    assert_near(r.value, 1.3, 1e-6);
    assert_int_equal(r.bound, 0);
    assert_near(r.lo, 1, 0);
    assert_near(r.hi, 2, 0);
    assert_near(r.measured_s, measured, 0);
    assert_near(r.default_s, t.expected, 1e-15);
    assert_near(r.fitted_s, measured, 1e-9);
    /* 1% more compute lengthens the step by compute's share of it; the
     * network has nothing to slow */
    assert_near(r.sensitivity[STACK_COMPUTE_OVERHEAD],
                0.01 * t.x_compute / t.expected, 1e-9);
    assert_near(r.sensitivity[STACK_NETWORK_EFFICIENCY], 0, 0);
}

/* ZeRO-3 of the tiny model over 64 GPUs with Megatron's switches at their
 * defaults (no DP overlap): the exposed gathers outweigh compute, so the
 * fit takes the network efficiency, and recovers a planted 0.5. */
static void test_fit_run_recovers_network_efficiency(void **state)
{
    struct fixture *f = *state;
    const char *plan = "gpus=64 zero=3 mbs=1 gbs=64";
    struct validation_run run;
    struct validation_inputs in;
    struct fit_result r;
    struct cost_times planted;
    struct diag d;
    diag_init(&d);
    evaluate(f, &f->megatron, plan, 1, 0.5, &planted);
    make_run(&run, plan, planted.expected);
    make_inputs(f, &f->megatron, &in);
    assert_int_equal(fit_run(&run, &in, COMM_TOPO, &r, &d), STATUS_OK);
    assert_true(r.sensitivity[STACK_NETWORK_EFFICIENCY] >
                r.sensitivity[STACK_COMPUTE_OVERHEAD]);
    assert_int_equal(r.factor, STACK_NETWORK_EFFICIENCY);
    assert_near(r.value, 0.5, 1e-6);
    assert_int_equal(r.bound, 0);
    assert_near(r.fitted_s, planted.expected, 1e-9);
}

/* A run faster than the expected step with no overhead stops at the
 * least overhead (1); one slower than the most (2) stops there. */
static void test_fit_run_stops_at_bounds(void **state)
{
    struct fixture *f = *state;
    struct validation_run run;
    struct validation_inputs in;
    struct fit_result r;
    struct cost_times t, most;
    struct diag d;
    diag_init(&d);
    evaluate(f, &f->deepseek, ONE_GPU, 1, 1, &t);
    evaluate(f, &f->deepseek, ONE_GPU, 2, 1, &most);
    make_inputs(f, &f->deepseek, &in);

    make_run(&run, ONE_GPU, 0.9 * t.expected);
    assert_int_equal(fit_run(&run, &in, COMM_TOPO, &r, &d), STATUS_OK);
    assert_near(r.value, 1, 0);
    assert_int_equal(r.bound, -1);
    assert_near(r.fitted_s, t.expected, 1e-15);

    make_run(&run, ONE_GPU, 3 * t.expected);
    assert_int_equal(fit_run(&run, &in, COMM_TOPO, &r, &d), STATUS_OK);
    assert_near(r.value, 2, 0);
    assert_int_equal(r.bound, 1);
    assert_near(r.fitted_s, most.expected, 1e-12);
}

/* What a run needs: a measurement, a stack, a calibration, a plan that
 * applies; each missing one is named with the file and key. */
static void test_fit_run_errors(void **state)
{
    struct fixture *f = *state;
    struct validation_run run;
    struct validation_inputs in;
    struct fit_result r;
    struct hardware bare = f->hw;
    struct diag d;

    make_inputs(f, &f->deepseek, &in);
    make_run(&run, ONE_GPU, 0);
    diag_init(&d);
    assert_int_equal(fit_run(&run, &in, COMM_TOPO, &r, &d), STATUS_RANGE);
    assert_string_equal(d.msg, "tests/data/no-such-run.ini: run.step_s: "
                               "missing: --calibrate needs the run's "
                               "measured step_s or tflops_per_gpu");

    make_run(&run, ONE_GPU, 1);
    in.stack = NULL;
    diag_init(&d);
    assert_int_equal(fit_run(&run, &in, COMM_TOPO, &r, &d), STATUS_RANGE);
    assert_string_equal(d.msg, "tests/data/no-such-run.ini: run.stack: "
                               "missing: no stack, so no expected step (the "
                               "free factors are the stack's)");

    in.stack = &f->deepseek;
    bare.cal = NULL;
    in.hw = &bare;
    snprintf(run.hardware_path, sizeof run.hardware_path, "hw.ini");
    diag_init(&d);
    assert_int_equal(fit_run(&run, &in, COMM_TOPO, &r, &d), STATUS_RANGE);
    assert_string_equal(d.msg, "tests/data/no-such-run.ini: run.hardware: no "
                               "calibration for hw.ini in the data directory's "
                               "calibration/ (by the hardware file's name): no "
                               "expected step");

    in.hw = &f->hw;
    make_run(&run, "gpus=64 ep=3 mbs=1 gbs=64", 1);
    run.line[datafile_field_index(validation_schema(), "run", "plan")] = 7;
    diag_init(&d);
    assert_int_equal(fit_run(&run, &in, COMM_TOPO, &r, &d), STATUS_RANGE);
    util_expect_msg(&d, "tests/data/no-such-run.ini",
                    ":7: run.plan: ep=3 does not divide the 16 routed experts");
}

/*
 * Issue 34 item 2: a fit on a step that is not a finite time stopped at
 * the overhead's upper bound and applied it (compute_overhead = 2 on a
 * NaN). The time model gives every valid plan a finite step; a cluster
 * with no HBM bandwidth (which the hardware reader refuses, set here in
 * memory) makes an infinite one: refused, naming the run's plan.
 */
static void test_fit_run_refuses_a_step_that_is_not_finite(void **state)
{
    struct fixture *f = *state;
    struct validation_run run;
    struct validation_inputs in;
    struct fit_result r;
    struct hardware no_hbm = f->hw;
    struct diag d;
    diag_init(&d);
    no_hbm.hbm_bps = 0;
    make_inputs(f, &f->deepseek, &in);
    in.hw = &no_hbm;
    make_run(&run, ONE_GPU, 1);
    run.line[datafile_field_index(validation_schema(), "run", "plan")] = 9;
    assert_int_equal(fit_run(&run, &in, COMM_TOPO, &r, &d), STATUS_RANGE);
    assert_string_equal(d.msg, "tests/data/no-such-run.ini:9: run.plan: its "
                               "expected step is not a positive finite time: "
                               "nothing to fit (a bug in roofplan's time "
                               "model: please report it with this run file)");
}

/*
 * Issue 34 item 2: a run whose first pipeline stage holds the embedding
 * alone (Megatron-LM: "Empty stages are allowed"), measured at the step
 * its plan takes with compute_overhead 1.3: the fit recovers 1.3 (it
 * fitted 2, the bound, on the NaN step the empty stage gave).
 */
static void test_fit_run_embedding_only_first_stage(void **state)
{
    struct fixture *f = *state;
    const char *plan = "gpus=2 pp=2 pp_layout=E|t*4L mbs=1 gbs=8";
    struct validation_run run;
    struct validation_inputs in;
    struct fit_result r;
    struct cost_times planted;
    struct diag d;
    diag_init(&d);
    evaluate(f, &f->deepseek, plan, 1.3, 1, &planted);
    make_run(&run, plan, planted.expected);
    make_inputs(f, &f->deepseek, &in);
    if (fit_run(&run, &in, COMM_TOPO, &r, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(r.factor, STACK_COMPUTE_OVERHEAD);
    assert_near(r.value, 1.3, 1e-6);
    assert_int_equal(r.bound, 0);
    assert_near(r.fitted_s, planted.expected, 1e-9);
}

/* Leave-one-out: the fitted run's own file and an unmeasured run are left
 * out; another run gets its expected step with its stack's factor and
 * with the fitted one, as the report's path computes them; a run without
 * a stack gets a note. */
static void test_fit_transfer_rows(void **state)
{
    struct fixture *f = *state;
    static struct validation_run runs[4];
    struct validation_inputs in[4];
    struct fit_result r;
    struct cost_times t, fitted;
    struct diag d;
    char own[] = "/tmp/roofplan-fit-XXXXXX";
    const char *other = "gpus=64 tp=2 pp=2 ep=8 zero=1 mbs=1 gbs=64";
    diag_init(&d);
    util_temp_file(own, "[run]\n", 6);
    memset(&r, 0, sizeof r);
    snprintf(r.run_path, sizeof r.run_path, "%s", own);
    r.factor = STACK_COMPUTE_OVERHEAD;
    r.value = 1.25;

    make_run(&runs[0], ONE_GPU, 1); /* the fitted run itself */
    snprintf(runs[0].path, sizeof runs[0].path, "%s", own);
    make_run(&runs[1], other, 2);
    snprintf(runs[1].name, sizeof runs[1].name, "other");
    make_run(&runs[2], other, 0); /* not measured */
    make_run(&runs[3], other, 3);
    snprintf(runs[3].name, sizeof runs[3].name, "stackless");
    make_inputs(f, &f->deepseek, &in[0]);
    make_inputs(f, &f->megatron, &in[1]);
    make_inputs(f, &f->deepseek, &in[2]);
    make_inputs(f, NULL, &in[3]);

    assert_int_equal(fit_transfer(&r, runs, in, 4, COMM_TOPO, &d), STATUS_OK);
    unlink(own);
    assert_int_equal(r.nrows, 2);
    assert_string_equal(r.rows[0].name, "other");
    evaluate(f, &f->megatron, other, 1, 1, &t);
    evaluate(f, &f->megatron, other, 1.25, 1, &fitted);
    assert_near(r.rows[0].measured_s, 2, 0);
    assert_near(r.rows[0].default_s, t.expected, 1e-15);
    assert_near(r.rows[0].fitted_s, fitted.expected, 1e-12);
    assert_true(r.rows[0].fitted_s > r.rows[0].default_s);
    assert_string_equal(r.rows[0].note, "");
    assert_string_equal(r.rows[1].name, "stackless");
    assert_near(r.rows[1].default_s, 0, 0);
    assert_string_equal(r.rows[1].note,
                        "run.stack: missing: no stack, so no expected step "
                        "(the free factors are the stack's)");
    fit_result_release(&r);
}

/* A run file in the snapshot data directory: DeepSeek-V3's published
 * plan on 2048 H800 with DeepSeek's stack, measured 19.926 s per step
 * (ISCA'25 Table 4). The fit reproduces the measured step; its bad twin
 * (ep=7) is refused at the plan's line. */
static void test_fit_calibrate_file(void **state)
{
    static struct fit_result r;
    static const char text[] =
        "[run]\n"
        "name = DeepSeek-V3, 2048 x H800\n"
        "model = models/deepseek-v3.ini\n"
        "hardware = hardware/h800.ini\n"
        "plan = gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe "
        "precision=fp8 recompute=selective mbs=1 gbs=15360\n"
        "stack = stacks/deepseek-hai.ini\n"
        "step_s = 19.926\n";
    char path[] = "/tmp/roofplan-fit-XXXXXX";
    char bad[sizeof text + 8];
    struct diag d;
    size_t i;
    (void)state;
    diag_init(&d);
    util_temp_file(path, text, sizeof text - 1);
    assert_int_equal(
        fit_calibrate(path, SNAP, NULL, COMM_TOPO, NULL, NULL, &r, &d),
        STATUS_OK);
    unlink(path);
    assert_int_equal(r.factor, STACK_COMPUTE_OVERHEAD);
    assert_int_equal(r.bound, 0);
    assert_true(r.value > 1 && r.value < 2);
    assert_near(r.measured_s, 19.926, 0);
    assert_near(r.fitted_s, 19.926, 1e-9);
    assert_true(r.default_s < 19.926);
    /* the snapshot's runs name no stack: each one a row with its note */
    assert_int_equal(r.nrows, 4);
    for (i = 0; i < r.nrows; i++)
        assert_non_null(strstr(r.rows[i].note, "run.stack: missing"));

    fit_result_release(&r);
    snprintf(bad, sizeof bad, "%s", text);
    memcpy(strstr(bad, "ep=64"), "ep=07", 5);
    snprintf(path, sizeof path, "/tmp/roofplan-fit-XXXXXX");
    util_temp_file(path, bad, strlen(bad));
    diag_init(&d);
    assert_int_equal(
        fit_calibrate(path, SNAP, NULL, COMM_TOPO, NULL, NULL, &r, &d),
        STATUS_RANGE);
    unlink(path);
    util_expect_msg(&d, path,
                    ":5: run.plan: ep=7 does not divide the 256 routed "
                    "experts");
    fit_result_release(&r);
}

/* The fitted value goes into the report's stack, its source naming the
 * run; the other factor keeps its own. */
static void test_fit_apply_sets_value_and_source(void **state)
{
    struct fixture *f = *state;
    struct stack s;
    struct fit_result r;
    struct diag d;
    long i = datafile_field_index(stack_schema(), "stack", "compute_overhead");
    diag_init(&d);
    assert_int_equal(
        stack_load(SNAP "/stacks/megatron-lm.ini", &s, NULL, 0, &d), STATUS_OK);
    memset(&r, 0, sizeof r);
    snprintf(r.run_name, sizeof r.run_name, "GPT-3");
    snprintf(r.run_path, sizeof r.run_path, "run.ini");
    r.factor = STACK_COMPUTE_OVERHEAD;
    r.value = 1.2;
    r.measured_s = 13.75;
    r.default_s = 11.742;
    assert_int_equal(fit_apply(&r, &s, &d), STATUS_OK);
    assert_near(s.spec.compute_overhead, 1.2, 0);
    assert_near(s.spec.network_efficiency, 1, 0);
    assert_true(s.meta.given[i]);
    assert_string_equal(datafile_meta_source(&s.meta, (size_t)i),
                        "fitted by --calibrate to GPT-3 (run.ini): measured "
                        "13.75 s/step, expected 11.74 s with the stack's "
                        "factors");
    stack_release(&s);
    (void)f;
}

/* The waterfall's last bar is the fitted factors' (expected.h): on one
 * GPU an overhead of 1.3 adds 0.3 x the compute to the step and moves no
 * earlier bar; neutral factors hide the bar. */
static void test_fit_waterfall_bar(void **state)
{
    struct fixture *f = *state;
    struct stack copy = f->deepseek;
    struct cost_ctx ctx;
    struct cost_result r0, r1;
    struct plan p;
    double sol0, sol1, s0[EXPECTED_EFFECTS], s1[EXPECTED_EFFECTS];
    int k;
    util_plan(&f->moe, &f->hw, ONE_GPU, &p);
    util_ctx(&ctx, &f->moe, &f->hw, COMM_TOPO, &p);
    ctx.stack = &copy;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r0);
    copy.spec.compute_overhead = 1.3;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r1);
    cost_ctx_release(&ctx);
    expected_waterfall(&r0.work, &f->hw, &f->moe, p.precision, &sol0, s0);
    expected_waterfall(&r1.work, &f->hw, &f->moe, p.precision, &sol1, s1);
    assert_near(sol1, sol0, 0);
    for (k = 0; k < EXPECTED_FACTORS; k++)
        assert_near(s1[k], s0[k], 0);
    assert_near(s1[EXPECTED_FACTORS] - s1[EXPECTED_FACTORS - 1],
                0.3 * r0.t.x_compute, 1e-12);
    assert_near(s1[EXPECTED_FACTORS], r1.t.expected, 1e-15);
    assert_false(expected_effect_shown(&r0.work.x, EXPECTED_FACTORS));
    assert_true(expected_effect_shown(&r0.work.x, EXPECTED_GEMM));
    assert_true(expected_effect_shown(&r1.work.x, EXPECTED_FACTORS));
    assert_string_equal(expected_effect_label(EXPECTED_FACTORS),
                        "stack factors (fitted)");
}

/* fit_write_text of r into a string (the caller frees it). */
static char *written(struct fit_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    fit_write_text(r, NULL, out);
    assert_int_equal(fclose(out), 0);
    return buf;
}

/*
 * A bound hit where the stack's factor already sits at that bound was
 * explained backwards ("with the least overhead ... already -33.3%
 * above"). Stopped at the most-overhead end with the expected step below
 * the measured one, it says so: 20 s expected against 30 s measured is
 * 1 - 20/30 = 33.3% below, whether the stack started there or not; for
 * network_efficiency the most-overhead end is its lower bound, 0.25.
 */
static void test_fit_write_text_bound_at_the_stacks_value(void **state)
{
    static const char most[] =
        "BOUND HIT at %s: with the most overhead the expected step is "
        "still 33.3%% below the measured)";
    struct fit_result r;
    char want[200], *buf;
    (void)state;
    memset(&r, 0, sizeof r);
    r.factor = STACK_COMPUTE_OVERHEAD;
    r.lo = 1;
    r.hi = 2;
    r.start = r.value = 2; /* the stack's value is the bound */
    r.bound = 1;
    r.measured_s = 30;
    r.default_s = r.fitted_s = 20;
    buf = written(&r);
    snprintf(want, sizeof want, most, "2");
    if (!strstr(buf, want))
        fail_msg("lacks \"%s\":\n%s", want, buf);
    free(buf);
    r.factor = STACK_NETWORK_EFFICIENCY;
    r.lo = 0.25;
    r.hi = 1;
    r.start = r.value = 0.25;
    r.bound = -1;
    buf = written(&r);
    snprintf(want, sizeof want, most, "0.25");
    if (!strstr(buf, want))
        fail_msg("lacks \"%s\":\n%s", want, buf);
    free(buf);
    /* and the least-overhead end with the stack already there: 11 s
     * expected against 10 s measured is 10.0% above */
    r.start = r.value = 1;
    r.bound = 1;
    r.measured_s = 10;
    r.fitted_s = 11;
    buf = written(&r);
    assert_non_null(strstr(buf, "BOUND HIT at 1: with the least overhead the "
                                "expected step is already 10.0% above the "
                                "measured)"));
    free(buf);
}

/* The text says which factor, whether a bound stopped it, the residual
 * and the table with its mean errors (hand-made result). */
static void test_fit_write_text(void **state)
{
    struct fixture *f = *state;
    struct fit_result r;
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    assert_non_null(out);
    memset(&r, 0, sizeof r);
    snprintf(r.run_name, sizeof r.run_name, "Llama");
    snprintf(r.run_path, sizeof r.run_path, "llama.ini");
    snprintf(r.stack_name, sizeof r.stack_name, "Meta");
    r.factor = STACK_COMPUTE_OVERHEAD;
    r.lo = 1;
    r.hi = 2;
    r.value = 1;
    r.bound = -1;
    r.measured_s = 10;
    r.default_s = r.fitted_s = 11;
    r.rows = calloc(2, sizeof *r.rows);
    assert_non_null(r.rows);
    r.nrows = 2;
    snprintf(r.rows[0].name, sizeof r.rows[0].name, "A");
    r.rows[0].measured_s = 20;
    r.rows[0].default_s = 18; /* -10% */
    r.rows[0].fitted_s = 21;  /* +5% */
    snprintf(r.rows[1].name, sizeof r.rows[1].name, "B");
    snprintf(r.rows[1].note, sizeof r.rows[1].note, "run.stack: missing");
    fit_write_text(&r, &f->megatron, out);
    assert_int_equal(fclose(out), 0);
    assert_non_null(strstr(buf, "fitted compute_overhead = 1.0000 (bounds "
                                "1..2; BOUND HIT at 1: with the least "
                                "overhead the expected step is already 10.0% "
                                "above the measured)"));
    assert_non_null(strstr(buf, "(residual +10.00%)"));
    /* the table: A's errors, B's note, the means over A alone */
    assert_non_null(strstr(buf, "  A    "));
    assert_non_null(strstr(buf, "   20.000    18.000  -10.0%    21.000   "
                                "+5.0%\n"));
    assert_non_null(strstr(buf, "  B    "));
    assert_non_null(strstr(buf, "   run.stack: missing\n"));
    assert_non_null(strstr(buf, "  mean |error|"));
    assert_non_null(strstr(buf, "  10.0%              5.0%\n"));
    assert_non_null(strstr(buf, "every plan below runs stack Megatron-LM "
                                "(switches at their defaults) with "
                                "compute_overhead = 1.0000"));
    free(buf);
    fit_result_release(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fit_run_by_hand_one_gpu),
        cmocka_unit_test(test_fit_run_recovers_network_efficiency),
        cmocka_unit_test(test_fit_run_stops_at_bounds),
        cmocka_unit_test(test_fit_run_errors),
        cmocka_unit_test(test_fit_run_refuses_a_step_that_is_not_finite),
        cmocka_unit_test(test_fit_run_embedding_only_first_stage),
        cmocka_unit_test(test_fit_transfer_rows),
        cmocka_unit_test(test_fit_calibrate_file),
        cmocka_unit_test(test_fit_apply_sets_value_and_source),
        cmocka_unit_test(test_fit_waterfall_bar),
        cmocka_unit_test(test_fit_write_text),
        cmocka_unit_test(test_fit_write_text_bound_at_the_stacks_value),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
