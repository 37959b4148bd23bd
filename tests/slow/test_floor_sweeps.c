/*
 * test_floor_sweeps (the slow tier: make test-slow): the speed of light
 * is a floor of the expected step. Every plan of the default sweep, on
 * the default inputs (DeepSeek-V3 on 2048 H800, its calibration and
 * stack) and on every validation run's inputs (data/validation: model,
 * cluster, calibration and stack as the run names them), has an
 * expected step at or above its speed of light
 * (issue 17; issue 19 prunes the sweep with it, which is sound only if
 * it holds). Like test_anchors, this reads the shipped data/ files on
 * purpose: a calibration or stack edit that breaks the floor fails here.
 * Over the same plans, what the sweep prunes and reuses with it
 * (check_memo: the bound from the ranks' full work, the work a thread's
 * cache keeps, the sensitivity grids' bounds). The step-end DP term by
 * hand is tests/test_floor.c's.
 *
 * Stage: rank (whole sweeps: the floor under every expected step)
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
#include "cost.h"
#include "hardware.h"
#include "model.h"
#include "rank.h"
#include "rank_cache.h"
#include "rank_prune.h"
#include "stack.h"
#include "sweep.h"
#include "terms.h"
#include "test_util.h"
#include "validation.h"

/* The largest relative shortfall the rounding of two sums of the same
 * terms in another order may leave. */
#define FLOOR_EPS 1e-9

struct tally {
    const struct cost_ctx *ctx;
    size_t plans, below;
    double worst; /* lowest expected / speed of light */
    struct plan worst_plan;
    struct rank_cache *cache; /* a sweep thread's (zeroed before the sweep) */
    struct rank_cache *cold;  /* forgotten before each use */
    size_t tightened;         /* plans whose ranks' links raised their bound */
};

/* The same numbers, bit for bit: the times, work, memory, ranks and
 * partition of two results of one plan. */
static void assert_same(const struct cost_result *a,
                        const struct cost_result *b,
                        const char *what,
                        const struct plan *p)
{
    char text[300];
    if (memcmp(&a->t, &b->t, sizeof a->t) == 0 &&
        memcmp(&a->work, &b->work, sizeof a->work) == 0 &&
        memcmp(&a->mem, &b->mem, sizeof a->mem) == 0 && a->rank == b->rank &&
        a->balance_precision == b->balance_precision && a->fits == b->fits)
        return;
    plan_format(p, text, sizeof text);
    fail_msg("%s: %s: step %.17g against %.17g, expected %.17g against %.17g",
             text, what, a->t.step, b->t.step, a->t.expected, b->t.expected);
}

/* rank_prune_bounds of p from compute alone on t's cold cache (forgotten
 * first: what a thread weighs for a plan it meets first). */
static bool
cold_bounds(struct tally *t, const struct plan *p, double *step, double *any)
{
    rank_cache_forget(t->cold);
    rank_cache_hint(t->cold, p);
    return rank_prune_bounds(t->ctx, p, t->cold, RANK_PRUNE_COMPUTE, -1, step,
                             any);
}

/*
 * What the sweep's threads take for plan p (rank.c) against r, its
 * cost_evaluate without a hint: through the thread's cache (struct
 * rank_cache keeps the last plan's ranks' work) the bound with the ranks'
 * full work (rank_prune_bounds, weighed up to a share of the floor), the
 * floor and the expected step give r's numbers bit for bit (every other
 * plan the expected step first: the work it keeps must not carry the
 * expected step's into the floor) and the bound is at most r's floor; r's
 * slowest rank re-timed with a link slower is at least the floor, with a link k
 * times faster at least the floor / k (rank.c, grid_step: the sensitivity
 * grids' bound).
 */
static void check_memo(struct tally *t,
                       const struct plan *p,
                       const struct cost_result *r,
                       bool full_first)
{
    static const double scale[] = {0.25, 0.7, 1, 1.4, 2, 8};
    static const double share[] = {0.3, 0.6, 0.9, 0.99, 0.9999};
    struct cost_hint *hint = rank_cache_hint(t->cache, p);
    struct cost_memories known;
    struct cost_result floor, a, b;
    double step, any, loose, any0;
    const struct cost_work *w = &r->work;
    size_t i;
    int ib;
    char text[300];
    plan_format(p, text, sizeof text);
    cost_memory(t->ctx, p, 1e30, hint, &known);
    memset(&floor, 0, sizeof floor);
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    cost_evaluate(t->ctx, p, COST_FLOOR, NULL, &floor);
    if (full_first) { /* the ranks weighed with the expected step first */
        cost_evaluate(t->ctx, p, COST_FLOOR | COST_EXPECTED, hint, &b);
        assert_same(&b, r, "the expected step through the cache", p);
    }
    /* each target a share of the floor: the ranks are weighed until the
     * bound is above it, where it must still be at most the floor */
    for (i = 0;
         i < sizeof share / sizeof share[0] && cold_bounds(t, p, &loose, &any0);
         i++) {
        double at_most = share[i] * r->t.step;
        if (!rank_prune_bounds(t->ctx, p, t->cache, RANK_PRUNE_FULL, at_most,
                               &step, &any) ||
            !(step > at_most))
            continue; /* (not above: may be one partition's alone) */
        if (!(step <= r->t.step) || !(any == any0) || !(any <= r->t.step))
            fail_msg("%s: bound %.17g (compute alone %.17g), any rank "
                     "%.17g, above the floor %.17g",
                     text, step, loose, any, r->t.step);
        if (step > loose)
            t->tightened++;
    }
    /* the bounds from compute the cache keeps for p (weighed above, or
     * now) are those weighed cold, bit for bit */
    if (cold_bounds(t, p, &loose, &any0)) {
        double kept_step, kept_any;
        assert_true(rank_prune_bounds(t->ctx, p, t->cache, RANK_PRUNE_COMPUTE,
                                      -1, &kept_step, &kept_any));
        assert_true(rank_prune_bounds(t->ctx, p, t->cache, RANK_PRUNE_COMPUTE,
                                      -1, &step, &any));
        if (!(kept_step == loose && kept_any == any0 && step == loose &&
              any == any0))
            fail_msg("%s: bounds from compute through the cache %.17g, "
                     "%.17g, cold %.17g, %.17g",
                     text, kept_step, kept_any, loose, any0);
    }
    /* (the work kept holds no expected step's) */
    cost_evaluate(t->ctx, p, COST_FLOOR, hint, &a);
    assert_same(&a, &floor, "the floor through the cache", p);
    memset(&b, 0, sizeof b);
    cost_evaluate(t->ctx, p, COST_FLOOR | COST_EXPECTED, hint, &b);
    assert_same(&b, r, "the expected step through the cache", p);
    if (!(w->bubble_coef * (1 + w->ramp_skew) >= 0))
        return; /* (the grids' bounds need a bubble that grows) */
    for (ib = 0; ib < 2; ib++)
        for (i = 0; i < sizeof scale / sizeof scale[0]; i++) {
            const struct hardware *hw = t->ctx->hw;
            double base = ib ? hw->ib_bps : hw->nvlink_bps;
            double at = r->t.step * (scale[i] > 1 ? 1 / scale[i] : 1);
            struct hardware other;
            struct cost_times ti;
            struct terms_env e = {w, &other, NULL, 0, &ti};
            hardware_at_link(hw, ib, base * scale[i] / 1e9, &other);
            memset(&ti, 0, sizeof ti);
            terms_step(&e, &ti);
            if (!(ti.step >= at * (1 - FLOOR_EPS)))
                fail_msg("%s: %s x %g: step %.17g below the floor's bound "
                         "%.17g",
                         text, ib ? "IB" : "NVLink", scale[i], ti.step, at);
        }
}

static void
visit(void *user, struct plan *p, enum plan_reason why, uint64_t index)
{
    struct tally *t = user;
    struct cost_result r;
    double q;
    if (why != PLAN_OK)
        return;
    cost_evaluate(t->ctx, p, COST_FLOOR | COST_EXPECTED, NULL, &r);
    check_memo(t, p, &r, index % 2 == 0);
    if (!r.work.x.known)
        return;
    t->plans++;
    q = r.t.expected / r.t.step;
    if (q < 1 - FLOOR_EPS)
        t->below++;
    if (t->plans == 1 || q < t->worst) {
        t->worst = q;
        t->worst_plan = r.plan;
    }
}

/* Sweeps the default space, with `nsets` overrides (--set) of it, on m
 * and hw (hw->cal its calibration; its headroom is set to the sweep's, as
 * roofplan's report does) with stack st; fails with the worst plan when
 * any expected step is below its speed of light. */
static void sweep_floor(const char *what,
                        const struct model *m,
                        struct hardware *hw,
                        const struct stack *st,
                        const char *const *sets,
                        size_t nsets)
{
    struct datafile_set s[4];
    struct sweep_file sf;
    struct cost_ctx ctx;
    struct tally t;
    struct diag d;
    char text[512];
    size_t i;
    diag_init(&d);
    assert_non_null(hw->cal);
    assert_true(nsets <= 4);
    for (i = 0; i < nsets; i++)
        util_set(&s[i], sets[i]);
    if (sweep_load("data/sweeps/default.ini", &sf, s, nsets, &d))
        fail_msg("%s: %s", what, d.msg);
    hw->headroom_pct = sf.spec.r_headroom_pct;
    if (cost_ctx_init(&ctx, m, hw, COMM_TOPO, &d))
        fail_msg("%s: %s", what, d.msg);
    ctx.stack = st;
    if (rank_prepare(&sf, &ctx, &d))
        fail_msg("%s: %s", what, d.msg);
    memset(&t, 0, sizeof t);
    t.ctx = &ctx;
    t.cache = calloc(2, sizeof *t.cache);
    assert_non_null(t.cache);
    t.cold = &t.cache[1];
    sweep_run(&sf, m, hw, 0, 1, visit, NULL, &t);
    free(t.cache);
    plan_format(&t.worst_plan, text, sizeof text);
    print_message("%s: %zu plans, lowest expected/SOL %.6f (%s); %zu "
                  "bounds raised by the ranks' links\n",
                  what, t.plans, t.worst, text, t.tightened);
    assert_true(t.plans > 100); /* else the sweep checked nothing */
    if (t.below > 0)
        fail_msg("%s: %zu of %zu plans expected below the speed of light, "
                 "down to %.6fx (%s)",
                 what, t.below, t.plans, t.worst, text);
    cost_ctx_release(&ctx);
    sweep_release(&sf);
}

/* sweep_floor over the shipped DeepSeek-V3 model on the H800 cluster,
 * with its calibration (checked against the hardware and the floor) and
 * DeepSeek's stack, the sweep's lists changed by sets. */
static void
shipped_sweep(const char *label, const char *const *sets, size_t nsets)
{
    struct model m;
    struct hardware hw;
    struct calibration cal;
    struct stack st;
    struct diag d;
    diag_init(&d);
    util_model(&m, "data/models/deepseek-v3.ini", NULL, 0);
    if (hardware_load("data/hardware/h800.ini", &hw, NULL, 0, &d) ||
        calibration_load("data/calibration/h800.ini", &cal, NULL, 0, &d) ||
        calibration_check_hardware(&cal, &hw, &d) ||
        calibration_check_floor(&cal, &hw, &d) ||
        stack_load("data/stacks/deepseek-hai.ini", &st, NULL, 0, &d))
        fail_msg("%s", d.msg);
    hw.cal = &cal;
    sweep_floor(label, &m, &hw, &st, sets, nsets);
    stack_release(&st);
    calibration_release(&cal);
    hardware_release(&hw);
    model_release(&m);
}

static void test_floor_default_inputs(void **state)
{
    (void)state;
    shipped_sweep("defaults", NULL, 0);
}

/* The same on 16384 GPUs with context parallelism 4 and a 4096-sequence
 * batch: link-bound plans with a step-end sync exposed at the floor (1,365
 * of its 40,320 plans were below the floor with the floor's old DP
 * window, down to 0.905x). */
static void test_floor_link_bound_space(void **state)
{
    static const char *const sets[] = {"space.gpus=16384", "space.cp=4",
                                       "space.gbs=4096"};
    (void)state;
    shipped_sweep("16384 GPUs, cp 4, gbs 4096", sets, 3);
}

static void test_floor_validation_inputs(void **state)
{
    struct validation_runs all;
    const struct validation_run *runs;
    size_t n, i;
    struct diag d;
    (void)state;
    diag_init(&d);
    if (validation_load_dir("data", &all, &d))
        fail_msg("%s", d.msg);
    runs = all.run;
    n = all.n;
    assert_true(n >= 6);
    for (i = 0; i < n; i++) {
        struct validation_inputs in;
        if (validation_load_inputs(&runs[i], "data/training/default.ini",
                                   "data", NULL, NULL, &in, &d))
            fail_msg("%s: %s", runs[i].path, d.msg);
        assert_non_null(in.stack);
        sweep_floor(runs[i].path, in.m, &in.own_hw, in.stack, NULL, 0);
        validation_inputs_release(&in);
    }
    validation_runs_release(&all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor_default_inputs),
        cmocka_unit_test(test_floor_link_bound_space),
        cmocka_unit_test(test_floor_validation_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
