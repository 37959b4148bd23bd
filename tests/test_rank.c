/*
 * test_rank: the sweep's evaluation and ranking stage (rank.c) with the
 * spill of every valid plan: after rank_run() with --top and a spill
 * directory, the cursor lists each valid plan exactly once, the kept
 * ones first in rank order, then every other in enumeration order, none
 * of which ranks before the last kept plan. The ranking's own checks
 * (order, families, threads, --top) are test_sweep.c's; the rule and the
 * spill files by hand test_rank_spill.c's. Fixtures: the snapshots in
 * tests/data/snap.
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

#include "rank.h"
#include "terms.h"
#include "test_util.h"

/* The 32-combination space below (its --set arguments). */
#define SPACE_32                                                        \
    "space.tp=1 2", "space.pp=1 16", "space.ep=8 64", "space.zero=1 3", \
        "space.schedule=1f1b dualpipe", "space.precision=fp8",          \
        "space.recompute=selective", "space.mbs=1"

/*
 * A space of 2 tp x 2 pp x 2 ep x 2 zero x 2 schedules = 32
 * combinations of DeepSeek-V3 on 2048 H800s, on two threads, keeping
 * the best 3.
 */
static void test_rank_run_spill_lists_every_plan_once(void **state)
{
    static const char *const sets[] = {SPACE_32};
    char dir[] = "/tmp/roofplan-test-rank-XXXXXX";
    struct datafile_set s[8];
    struct model m;
    struct hardware hw;
    struct sweep_file sf;
    struct cost_ctx ctx;
    struct rank_options opt;
    struct ranking *r = calloc(1, sizeof *r);
    struct ranking_row *seen;
    struct ranking_row row;
    struct ranking_cursor c;
    struct diag d;
    size_t i, j, n = 0, rank;
    (void)state;
    assert_non_null(r);
    diag_init(&d);
    for (i = 0; i < 8; i++)
        util_set(&s[i], sets[i]);
    util_model(&m, "tests/data/snap/models/deepseek-v3.ini", NULL, 0);
    if (hardware_load("tests/data/snap/hardware/h800.ini", &hw, NULL, 0, &d) ||
        sweep_load("tests/data/snap/sweeps/default.ini", &sf, s, 8, &d) ||
        cost_ctx_init(&ctx, &m, &hw, COMM_TOPO, &d))
        fail_msg("%s", d.msg);
    assert_int_equal(sweep_count(&sf), 32);
    assert_non_null(mkdtemp(dir));
    memset(&opt, 0, sizeof opt);
    opt.top = 3;
    opt.threads = 2;
    opt.spill_dir = dir;
    assert_int_equal(rank_run(r, &ctx, &sf, &opt, &d), STATUS_OK);
    assert_true(r->valid > 3); /* else the spill has nothing to add */
    assert_int_equal(r->nrows, 3);
    assert_int_equal(r->dropped, r->valid - 3);
    assert_true(r->nspill >= 1);

    seen = calloc(r->valid + 1, sizeof *seen);
    assert_non_null(seen);
    ranking_cursor_init(&c, r);
    while (ranking_cursor_next(&c, &row, &rank)) {
        assert_true(n < r->valid);
        if (n < 3) {
            assert_int_equal(rank, n + 1);
            assert_memory_equal(&row.plan, &r->rows[n].plan, sizeof row.plan);
        } else {
            const struct ranking_row *last = &r->rows[2];
            assert_int_equal(rank, 0);
            assert_false(rank_before(row.fits, row.step, &row.plan, last->fits,
                                     last->step, &last->plan));
            assert_true(row.family >= 0 && (size_t)row.family < r->nfamilies);
        }
        for (j = 0; j < n; j++)
            assert_memory_not_equal(&seen[j].plan, &row.plan, sizeof row.plan);
        seen[n++] = row;
    }
    assert_false(c.failed);
    assert_int_equal(n, r->valid);
    ranking_cursor_release(&c);
    free(seen);
    ranking_free(r);
    free(r);
    assert_int_equal(rmdir(dir), 0); /* the spill files were unlinked */
    cost_ctx_release(&ctx);
    sweep_release(&sf);
    hardware_release(&hw);
    model_release(&m);
}

/* The family's best step at bandwidth i of a grid, by brute force: every
 * fitting plan of the family re-timed on the cluster at that rate. */
static double sens_by_hand(const struct ranking_row *rows,
                           size_t n,
                           int family,
                           const struct hardware *hw,
                           bool ib,
                           double gbps)
{
    struct hardware at;
    double best = 0;
    size_t k;
    hardware_at_link(hw, ib, gbps, &at);
    for (k = 0; k < n; k++) {
        struct cost_times t;
        struct terms_env e = {&rows[k].work, &at, NULL, 0, &t};
        if (!rows[k].fits || rows[k].family != family)
            continue;
        terms_step(&e, &t);
        if (best == 0 || t.step < best)
            best = t.step;
    }
    return best;
}

/*
 * The sensitivity grids skip a bandwidth where the plan's step at the
 * grid's fastest rate is already above the family's best
 * (rank_family.c, sensitivity_grid): each family's best step at each IB and
 * NVLink rate must still be the minimum over all its fitting plans, computed
 * here plan by plan from the spilled rows (one thread and two).
 */
static void test_rank_sensitivity_is_each_familys_best(void **state)
{
    static const char *const sets[] = {"space.tp=1 2",
                                       "space.pp=1 8 16",
                                       "space.ep=8 32 64",
                                       "space.zero=1 2 3",
                                       "space.schedule=1f1b zb dualpipe",
                                       "space.precision=bf16 fp8",
                                       "space.recompute=selective full",
                                       "space.mbs=1 2"};
    size_t threads;
    (void)state;
    for (threads = 1; threads <= 2; threads++) {
        char dir[] = "/tmp/roofplan-test-rank-XXXXXX";
        struct datafile_set s[8];
        struct model m;
        struct hardware hw;
        struct sweep_file sf;
        struct cost_ctx ctx;
        struct rank_options opt;
        struct ranking *r = calloc(1, sizeof *r);
        struct ranking_row *rows, row;
        struct ranking_cursor c;
        struct diag d;
        size_t i, n = 0, rank, checked = 0;
        assert_non_null(r);
        diag_init(&d);
        for (i = 0; i < 8; i++)
            util_set(&s[i], sets[i]);
        util_model(&m, "tests/data/snap/models/deepseek-v3.ini", NULL, 0);
        if (hardware_load("tests/data/snap/hardware/h800.ini", &hw, NULL, 0,
                          &d) ||
            sweep_load("tests/data/snap/sweeps/default.ini", &sf, s, 8, &d) ||
            cost_ctx_init(&ctx, &m, &hw, COMM_TOPO, &d))
            fail_msg("%s", d.msg);
        assert_non_null(mkdtemp(dir));
        memset(&opt, 0, sizeof opt);
        opt.top = 5;
        opt.threads = threads;
        opt.spill_dir = dir;
        assert_int_equal(rank_run(r, &ctx, &sf, &opt, &d), STATUS_OK);
        assert_true(r->nsens_ib > 1 && r->nsens_nv > 1);
        rows = calloc(r->valid + 1, sizeof *rows);
        assert_non_null(rows);
        ranking_cursor_init(&c, r);
        while (ranking_cursor_next(&c, &row, &rank))
            rows[n++] = row;
        assert_false(c.failed);
        assert_int_equal(n, r->valid);
        for (i = 0; i < r->nfamilies; i++) {
            size_t k;
            if (r->family[i].fitting == 0)
                continue;
            for (k = 0; k < r->nsens_ib; k++)
                assert_true(r->family[i].sens_ib_step[k] ==
                            sens_by_hand(rows, n, (int)i, &hw, true,
                                         r->sens_ib_gbps[k]));
            for (k = 0; k < r->nsens_nv; k++)
                assert_true(r->family[i].sens_nv_step[k] ==
                            sens_by_hand(rows, n, (int)i, &hw, false,
                                         r->sens_nv_gbps[k]));
            checked++;
        }
        assert_true(checked > 1);
        ranking_cursor_release(&c);
        free(rows);
        ranking_free(r);
        free(r);
        assert_int_equal(rmdir(dir), 0);
        cost_ctx_release(&ctx);
        sweep_release(&sf);
        hardware_release(&hw);
        model_release(&m);
    }
}

/*
 * rank_run on DeepSeek-V3 on 2048 H800s (the snapshots in tests/data/snap)
 * over the default sweep with `sets`, on two threads with opt's --top,
 * spill and sheet rule; with `calibrated` the H800 calibration and
 * DeepSeek's stack give every plan its expected step.
 */
static void run_space(struct ranking *r,
                      const char *const *sets,
                      size_t nsets,
                      bool calibrated,
                      struct rank_options opt)
{
    struct datafile_set s[16];
    struct model m;
    struct hardware hw;
    struct calibration cal;
    struct stack st;
    struct sweep_file sf;
    struct cost_ctx ctx;
    struct diag d;
    size_t i;
    assert_true(nsets <= 16);
    diag_init(&d);
    for (i = 0; i < nsets; i++)
        util_set(&s[i], sets[i]);
    util_model(&m, "tests/data/snap/models/deepseek-v3.ini", NULL, 0);
    if (hardware_load("tests/data/snap/hardware/h800.ini", &hw, NULL, 0, &d) ||
        (calibrated && (calibration_load("tests/data/snap/calibration/h800.ini",
                                         &cal, NULL, 0, &d) ||
                        stack_load("tests/data/snap/stacks/deepseek-hai.ini",
                                   &st, NULL, 0, &d))) ||
        sweep_load("tests/data/snap/sweeps/default.ini", &sf, s, nsets, &d))
        fail_msg("%s", d.msg);
    if (calibrated)
        hw.cal = &cal;
    if (cost_ctx_init(&ctx, &m, &hw, COMM_TOPO, &d))
        fail_msg("%s", d.msg);
    if (calibrated)
        ctx.stack = &st;
    opt.threads = 2;
    assert_int_equal(rank_run(r, &ctx, &sf, &opt, &d), STATUS_OK);
    cost_ctx_release(&ctx);
    sweep_release(&sf);
    if (calibrated) {
        stack_release(&st);
        calibration_release(&cal);
    }
    hardware_release(&hw);
    model_release(&m);
}

/*
 * Every family a sweep meets is kept, however many (issue 35: the report
 * had room for 64 and dropped the rest, whose plans then had no family).
 * 6 cluster sizes x tp, pp, ep, cp each 1 or 2 x ZeRO 0 to 3: a plan's
 * family is its DP flavour (none where dp is 1, else its ZeRO stage) and
 * which of tp, cp, pp, ep exceed 1, 5 x 16 = 80 keys. With up to 32 GPUs
 * every key's tp x cp x pp x ep (at most 16) runs at dp 1 and at dp 2 or
 * more, but for two: ep must divide tp*cp*dp (plan_check), so EP without
 * DP needs tp or cp above 1, and "EP" and "PP+EP" (dp 1) are never met:
 * 78 families, more than 64. The families' plans add up to the valid
 * plans, and every kept plan names a family there is.
 */
static void test_rank_run_keeps_every_family(void **state)
{
    static const char *const sets[] = {"space.gpus=1 2 4 8 16 32",
                                       "space.tp=1 2",
                                       "space.pp=1 2",
                                       "space.ep=1 2",
                                       "space.cp=1 2",
                                       "space.zero=0 1 2 3",
                                       "space.schedule=1f1b",
                                       "space.precision=bf16",
                                       "space.recompute=full",
                                       "space.mbs=1",
                                       "space.gbs=64"};
    struct ranking *r = calloc(1, sizeof *r);
    struct rank_options opt;
    uint64_t plans = 0;
    size_t i;
    (void)state;
    assert_non_null(r);
    memset(&opt, 0, sizeof opt);
    opt.top = 100000; /* every plan kept */
    run_space(r, sets, sizeof sets / sizeof sets[0], false, opt);
    assert_int_equal(r->nfamilies, 78);
    for (i = 0; i < r->nfamilies; i++)
        plans += r->family[i].plans;
    assert_int_equal(plans, r->valid);
    assert_int_equal(r->nrows, r->valid);
    for (i = 0; i < r->nrows; i++) {
        assert_true(r->rows[i].family >= 0);
        assert_true((size_t)r->rows[i].family < r->nfamilies);
    }
    ranking_free(r);
    free(r);
}

/* The rows of a rank_run on the 32-combination space above with the Plans
 * sheet at 3 plans (threads 2): every plan kept, or only the sheet's. */
static void run_sheet_space(struct ranking *r, bool sheet_only)
{
    static const char *const sets[] = {SPACE_32, "report.plans_sheet=3"};
    struct rank_options opt;
    memset(&opt, 0, sizeof opt);
    opt.sheet_only = sheet_only;
    run_space(r, sets, 9, false, opt);
}

/*
 * Without --top the sweep keeps the Plans sheet's plans only: the best
 * report.plans_sheet (3) in rank order, ranked 1, 2, 3, then the best plan
 * of each family not among them, unranked, in rank order: the same rows,
 * in the same order, as the first 3 of every plan kept and the first of
 * each other family.
 */
static void test_rank_run_sheet_only_keeps_the_sheets_plans(void **state)
{
    struct ranking *all = calloc(1, sizeof *all);
    struct ranking *sheet = calloc(1, sizeof *sheet);
    bool seen[RANKING_FAMILY_KEYS] = {false};
    size_t i, n = 0;
    (void)state;
    assert_non_null(all);
    assert_non_null(sheet);
    run_sheet_space(all, false);
    run_sheet_space(sheet, true);
    assert_int_equal(all->nrows, all->valid);
    assert_int_equal(sheet->valid, all->valid);
    assert_int_equal(sheet->nranked, 3);
    assert_int_equal(sheet->nfamilies, all->nfamilies);
    for (i = 0; i < all->nrows; i++) {
        const struct ranking_row *want = &all->rows[i];
        bool first = !seen[want->family];
        seen[want->family] = true;
        if (i >= 3 && !first)
            continue;
        assert_true(n < sheet->nrows);
        assert_memory_equal(&sheet->rows[n].plan, &want->plan,
                            sizeof want->plan);
        assert_true(sheet->rows[n].step == want->step);
        /* the times the writers lay out, a family's best added too */
        assert_memory_equal(&sheet->rows[n].t, &want->t, sizeof want->t);
        assert_int_equal(sheet->rows[n].family, want->family);
        assert_int_equal(sheet->rows[n].fits, want->fits);
        assert_int_equal(ranking_row_rank(sheet, n), n < 3 ? n + 1 : 0);
        n++;
    }
    assert_true(n > 3); /* some family's best is beyond the first 3 */
    assert_int_equal(sheet->nrows, n);
    assert_int_equal(sheet->dropped, sheet->valid - n);
    ranking_free(all);
    ranking_free(sheet);
    free(all);
    free(sheet);
}

/*
 * Issue 19 item 2: with the best plans kept (--top 5), a plan whose speed
 * of light cannot enter them nor beat its family's best is not timed at
 * the expected rates (the floor is a lower bound of the expected step:
 * test_floor.c). Run twice on DeepSeek-V3's shipped calibration and
 * stack over a 288-combination space: once with a spill directory (which
 * lists every plan's times, so nothing is skipped) and once without. The
 * kept rows, every family's best and lightest plan, the counts and the
 * sensitivity grids are the same, bit for bit; the second run skipped
 * some expected steps (floor_only > 0), the first none.
 */
static void run_calibrated(struct ranking *r, const char *spill_dir)
{
    static const char *const sets[] = {"space.tp=1 2 4",
                                       "space.pp=1 8 16",
                                       "space.ep=8 64",
                                       "space.zero=1 3",
                                       "space.schedule=1f1b dualpipe",
                                       "space.precision=fp8 bf16",
                                       "space.recompute=selective",
                                       "space.mbs=1 2"};
    struct rank_options opt;
    memset(&opt, 0, sizeof opt);
    opt.top = 5;
    opt.spill_dir = spill_dir;
    run_space(r, sets, 8, true, opt);
    assert_int_equal(r->enumerated, 288);
}

static void test_rank_run_floor_skips_what_cannot_enter(void **state)
{
    struct ranking *all = calloc(1, sizeof *all);
    struct ranking *pruned = calloc(1, sizeof *pruned);
    char dir[] = "/tmp/roofplan-test-rank-XXXXXX";
    size_t i;
    (void)state;
    assert_non_null(all);
    assert_non_null(pruned);
    assert_non_null(mkdtemp(dir));
    run_calibrated(all, dir);
    run_calibrated(pruned, NULL);
    assert_int_equal(all->floor_only, 0);
    assert_true(pruned->floor_only > 0);
    assert_true(pruned->floor_only < pruned->valid);
    assert_int_equal(pruned->valid, all->valid);
    assert_int_equal(pruned->fitting, all->fitting);
    assert_int_equal(pruned->nrows, 5);
    assert_int_equal(all->nrows, 5);
    for (i = 0; i < 5; i++) {
        assert_memory_equal(&pruned->rows[i].plan, &all->rows[i].plan,
                            sizeof all->rows[i].plan);
        assert_true(pruned->rows[i].step == all->rows[i].step);
        assert_true(all->rows[i].work.x.known); /* ranked by the expected */
    }
    assert_int_equal(pruned->nfamilies, all->nfamilies);
    for (i = 0; i < all->nfamilies; i++) {
        const struct ranking_family *a = &all->family[i],
                                    *b = &pruned->family[i];
        assert_string_equal(b->name, a->name);
        assert_int_equal(b->plans, a->plans);
        assert_int_equal(b->fitting, a->fitting);
        assert_memory_equal(&b->best.plan, &a->best.plan, sizeof a->best.plan);
        assert_true(cost_rank_step(&b->best) == cost_rank_step(&a->best));
        assert_memory_equal(&b->lightest, &a->lightest, sizeof a->lightest);
        assert_memory_equal(b->sens_ib_step, a->sens_ib_step,
                            sizeof a->sens_ib_step);
        assert_memory_equal(b->sens_nv_step, a->sens_nv_step,
                            sizeof a->sens_nv_step);
    }
    ranking_free(all);
    ranking_free(pruned);
    free(all);
    free(pruned);
    assert_int_equal(rmdir(dir), 0);
}

/*
 * A sweep's answer does not depend on the order of a list (issue 34 item
 * 12): Llama 3.1 70B on 64 GB200, as the validation run
 * llama3-70b-gb200-mbridge-fsdp-offload.ini runs it (FSDP over 64 GPUs,
 * FP8, mbs 2, gbs 256, no recomputation), with [space] offload = 0 40 and
 * 40 0, on one thread (one thread's memo sees both plans, in the list's
 * order). Each plan the sweep ranks has the memory, fit, critical rank
 * and steps cost_evaluate gives it alone on a fresh context. The run's
 * source (Megatron-Bridge's recipe, cpu_offloading_num_layers 40) runs
 * it with 40 layers offloaded on GB200's 184 GiB, and the run's file
 * says that without offloading the plan needs 256 GiB: offload=40 fits,
 * offload=0 does not. (The sweep's memo once kept a plan's rank memories
 * for the next plan that differed in offload alone: the offload-40 plan
 * at 260.8 GiB after offload=0, the offload-0 plan at 150.4 GiB, fitting,
 * after offload=40.)
 */
static void sweep_offload(const char *offload)
{
    const char *sets[] = {"space.gpus=64",
                          "space.tp=1",
                          "space.pp=1",
                          "space.ep=1",
                          "space.cp=1",
                          "space.zero=3",
                          "space.schedule=1f1b",
                          "space.pp_split=balanced",
                          "space.precision=fp8",
                          "space.recompute=none",
                          "space.mbs=2",
                          "space.gbs=256",
                          offload};
    size_t nsets = sizeof sets / sizeof sets[0];
    struct datafile_set s[16];
    struct model m;
    struct hardware hw;
    struct calibration cal;
    struct stack st;
    struct sweep_file sf;
    struct cost_ctx ctx;
    struct rank_options opt;
    struct ranking *r = calloc(1, sizeof *r);
    struct diag d;
    size_t i;
    assert_non_null(r);
    diag_init(&d);
    for (i = 0; i < nsets; i++)
        util_set(&s[i], sets[i]);
    util_model(&m, "tests/data/snap/models/llama-3.1-70b.ini", NULL, 0);
    if (hardware_load("tests/data/snap/hardware/gb200-nvl72.ini", &hw, NULL, 0,
                      &d) ||
        calibration_load("tests/data/snap/calibration/gb200-nvl72.ini", &cal,
                         NULL, 0, &d) ||
        stack_load("tests/data/snap/stacks/megatron-lm.ini", &st, NULL, 0,
                   &d) ||
        sweep_load("tests/data/snap/sweeps/default.ini", &sf, s, nsets, &d) ||
        cost_ctx_init(&ctx, &m, &hw, COMM_TOPO, &d))
        fail_msg("%s", d.msg);
    hw.cal = &cal;
    ctx.stack = &st;
    memset(&opt, 0, sizeof opt);
    opt.top = 10;
    opt.threads = 1;
    assert_int_equal(rank_run(r, &ctx, &sf, &opt, &d), STATUS_OK);
    assert_int_equal(r->valid, 2);
    assert_int_equal(r->nrows, 2);
    for (i = 0; i < r->nrows; i++) {
        const struct ranking_row *row = &r->rows[i];
        struct cost_ctx cold;
        struct cost_result c;
        char text[200];
        plan_format(&row->plan, text, sizeof text);
        util_ctx(&cold, &m, &hw, COMM_TOPO, &row->plan);
        cold.stack = &st;
        cost_evaluate(&cold, &row->plan, COST_FLOOR | COST_EXPECTED, NULL, &c);
        if (!(row->mem.total == c.mem.total && row->t.step == c.t.step &&
              row->t.expected == c.t.expected && row->rank == c.rank &&
              row->fits == terms_fits(c.mem.total, c.mem.capacity,
                                      sf.spec.r_headroom_pct)))
            fail_msg("%s: %s: the sweep's %.1f GiB, step %.6f s, expected "
                     "%.6f s; alone %.1f GiB, %.6f s, %.6f s",
                     offload, text, row->mem.total / 1073741824.0, row->t.step,
                     row->t.expected, c.mem.total / 1073741824.0, c.t.step,
                     c.t.expected);
        assert_int_equal(row->fits, row->plan.offload == 40);
        cost_ctx_release(&cold);
    }
    ranking_free(r);
    free(r);
    cost_ctx_release(&ctx);
    sweep_release(&sf);
    stack_release(&st);
    calibration_release(&cal);
    hardware_release(&hw);
    model_release(&m);
}

static void test_rank_run_offload_in_any_order(void **state)
{
    (void)state;
    sweep_offload("space.offload=0 40");
    sweep_offload("space.offload=40 0");
}

/* One family's best plan on a patterned model, by the plan's own
 * counts: tests/data/hybrid-seven.ini's layers `SE M. .D CD NE LE`
 * split 2 + 4 (pp_first=2, pp_last=4) put its first two layers on rank
 * 0 and the other four on rank 1, as the pattern reads; the heaviest
 * rank's memory is the one cost_evaluate gives the plan. A model of
 * blocks (tiny-moe.ini) gets no stages. */
static void test_rank_finish_stages_patterned(void **state)
{
    static const char *const models[] = {"tests/data/hybrid-seven.ini",
                                         "tests/data/tiny-moe.ini"};
    struct hardware hw;
    struct diag d;
    size_t i;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        hardware_load("tests/data/snap/hardware/h800.ini", &hw, NULL, 0, &d),
        STATUS_OK);
    for (i = 0; i < 2; i++) {
        struct model m;
        struct cost_ctx ctx;
        struct ranking r;
        struct plan p;
        memset(&r, 0, sizeof r);
        assert_int_equal(model_load(models[i], &m, NULL, 0, &d), STATUS_OK);
        util_plan(&m, &hw,
                  i == 0 ? "gpus=8 tp=1 pp=2 pp_first=2 pp_last=4 mbs=1 "
                           "gbs=8 precision=bf16"
                         : "gpus=16 tp=1 pp=2 ep=4 mbs=1 gbs=64 "
                           "precision=bf16",
                  &p);
        util_ctx(&ctx, &m, &hw, COMM_TOPO, &p);
        assert_int_equal(ranking_families(&r, 1, &d), STATUS_OK);
        cost_evaluate(&ctx, &p, COST_FLOOR, NULL, &r.family[0].best);
        assert_int_equal(rank_finish_stages(&r, &ctx, &d), STATUS_OK);
        if (i == 0) {
            long heavy = r.family[0].best.mem.rank;
            assert_int_equal(r.nstages, 2);
            assert_int_equal(r.stages[0].rank, 0);
            assert_int_equal(r.stages[1].family, 0);
            assert_string_equal(r.stages[0].layers, "SE M.");
            assert_string_equal(r.stages[1].layers, ".D CD NE LE");
            assert_true(heavy == 0 || heavy == 1);
            assert_near(r.stages[heavy].mem_total, r.family[0].best.mem.total,
                        1e-12);
        } else {
            assert_int_equal(r.nstages, 0);
        }
        ranking_free(&r);
        cost_ctx_release(&ctx);
        model_release(&m);
    }
    hardware_release(&hw);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_run_spill_lists_every_plan_once),
        cmocka_unit_test(test_rank_sensitivity_is_each_familys_best),
        cmocka_unit_test(test_rank_run_sheet_only_keeps_the_sheets_plans),
        cmocka_unit_test(test_rank_run_keeps_every_family),
        cmocka_unit_test(test_rank_run_floor_skips_what_cannot_enter),
        cmocka_unit_test(test_rank_run_offload_in_any_order),
        cmocka_unit_test(test_rank_finish_stages_patterned),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
