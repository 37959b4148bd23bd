/*
 * test_compare: one (model, hardware) pair's row — what it copies from
 * the files, the sweep's counts, the best plan by the ranking's rule
 * (fitting first, then faster), and a pair with no valid plan, which is
 * not an error. DeepSeek-V3 and the H800 (snapshots) over the snapshot
 * sweep narrowed by --set to DeepSeek's published plan and its three
 * recompute policies.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "figures.h"
#include "rank.h"
#include "test_util.h"

#define SNAP "tests/data/snap/"

struct fixture {
    struct model m;
    struct hardware hw;
    struct cost_ctx ctx;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct diag d;
    diag_init(&d);
    if (!f || model_load(SNAP "models/deepseek-v3.ini", &f->m, NULL, 0, &d) ||
        hardware_load(SNAP "hardware/h800.ini", &f->hw, NULL, 0, &d) ||
        cost_ctx_init(&f->ctx, &f->m, &f->hw, COMM_TOPO, &d))
        return -1;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    cost_ctx_release(&f->ctx);
    model_release(&f->m);
    hardware_release(&f->hw);
    free(f);
    return 0;
}

/*
 * The pair's row as `compare` makes it (cli_commands.c): the names from
 * the files, rank_run with the report's default, figures_recommend on its
 * ranking, compare_row_recommend. Returns rank_run's status (why: its
 * message); the row keeps no plan unless it is STATUS_OK.
 */
static enum status sweep_pair(struct fixture *f,
                              const struct sweep_file *sf,
                              size_t threads,
                              struct compare_row *row,
                              struct diag *why)
{
    struct ranking *rank = calloc(1, sizeof *rank);
    struct report_inputs in;
    struct views v;
    struct rank_options opt;
    enum status st;
    assert_non_null(rank);
    compare_row_init(row, &f->m, &f->hw);
    memset(&in, 0, sizeof in);
    in.m = &f->m;
    in.hw = &f->hw;
    in.sweep = sf;
    memset(&v, 0, sizeof v);
    memset(&opt, 0, sizeof opt);
    opt.threads = threads;
    st = rank_run(rank, &f->ctx, sf, &opt, why);
    if (st == STATUS_OK) {
        assert_int_equal(figures_recommend(&in, rank, &v, why), STATUS_OK);
        compare_row_recommend(row, &v);
    }
    views_free(&v);
    ranking_free(rank);
    free(rank);
    return st;
}

/* The snapshot sweep with every dimension fixed to DeepSeek's plan, but
 * the recompute policies listed in `recompute` and tp in `tp`. */
static void load_sweep(struct sweep_file *sf, const char *tp, const char *rc)
{
    static const char *const fixed[] = {"space.gpus=2048",
                                        "space.pp=16",
                                        "space.ep=64",
                                        "space.zero=1",
                                        "space.mbs=1",
                                        "space.gbs=15360",
                                        "space.schedule=dualpipe",
                                        "space.precision=fp8"};
    struct datafile_set s[10];
    struct diag d;
    size_t i;
    diag_init(&d);
    for (i = 0; i < 8; i++)
        if (datafile_parse_set(fixed[i], &s[i], &d) != STATUS_OK)
            fail_msg("%s", d.msg);
    if (datafile_parse_set(tp, &s[8], &d) != STATUS_OK ||
        datafile_parse_set(rc, &s[9], &d) != STATUS_OK ||
        sweep_load(SNAP "sweeps/default.ini", sf, s, 10, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

/*
 * Three combinations, each a valid plan (DeepSeek's, with none,
 * selective or full recomputation): valid = 3. The row's plan is the
 * report's rule applied by hand to the three evaluated here: among those
 * that fit within the sweep's tie_pct (2%) of the fastest that fits, the
 * one with the most free memory (issue 18: compare names the plan the
 * report recommends). The files' own values are copied: the H800
 * snapshot's 2048 GPUs of 79.21 GiB at 2 USD an hour, DeepSeek's 14.8T
 * tokens.
 */
static void test_compare_row_best_plan(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct compare_row row;
    struct diag d;
    static const char *const policies[] = {
        "recompute=none", "recompute=selective", "recompute=full"};
    int best = -1, rec = -1, k;
    double best_step = 0, step[3], free_gib[3];
    bool fits[3];
    uint64_t fitting = 0;
    diag_init(&d);
    load_sweep(&sf, "space.tp=1", "space.recompute=none selective full");
    for (k = 0; k < 3; k++) {
        struct plan p;
        struct cost_result r;
        char text[200];
        snprintf(text, sizeof text,
                 "gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe "
                 "precision=fp8 mbs=1 gbs=15360 %s",
                 policies[k]);
        util_plan(&f->m, &f->hw, text, &p);
        assert_int_equal(cost_ctx_prepare(&f->ctx, p.pp, p.vpp, p.schedule, &d),
                         STATUS_OK);
        cost_evaluate(&f->ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
        fits[k] = r.fits;
        step[k] = cost_rank_step(&r);
        free_gib[k] = (r.mem.capacity - r.mem.total) / UTIL_GIB;
        if (r.fits) {
            fitting++;
            if (best < 0 || step[k] < best_step) {
                best = k;
                best_step = step[k];
            }
        }
    }
    assert_true(best >= 0);
    for (k = 0; k < 3; k++)
        if (fits[k] && step[k] <= best_step * 1.02 &&
            (rec < 0 || free_gib[k] > free_gib[rec]))
            rec = k;
    assert_int_equal(sweep_pair(f, &sf, 2, &row, &d), STATUS_OK);
    assert_true(row.any);
    assert_int_equal(row.valid, 3);
    assert_int_equal(row.fitting, fitting);
    assert_true(row.recommended.fits);
    assert_int_equal(row.recommended.plan.recompute, rec);
    assert_near(cost_rank_step(&row.recommended), step[rec], 1e-12);
    assert_string_equal(row.recommended.family, "ZeRO-1+PP+EP");
    assert_string_equal(row.model, "DeepSeek-V3");
    assert_string_equal(row.gpu, "NVIDIA H800 SXM5 80GB");
    assert_string_equal(row.model_path, SNAP "models/deepseek-v3.ini");
    assert_string_equal(row.hardware_path, SNAP "hardware/h800.ini");
    assert_int_equal(row.gpus, 2048);
    assert_near(row.hbm_gib, 79.21, 0);
    assert_near(row.gpu_hour_usd, 2, 0);
    assert_near(row.tokens, 14.8e12, 0);
    assert_near(row.params_total, f->m.params_total, 0);
    sweep_release(&sf);
}

/* tp 3 and 5 divide neither the 128 heads nor the GPUs: no valid plan.
 * The ranking says why (the message `compare` puts in the row, going on
 * to the next pair: tests/integration/85_compare.sh); the row keeps the
 * pair's names and no plan. */
static void test_compare_row_nothing_valid(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct compare_row row;
    struct diag d;
    load_sweep(&sf, "space.tp=3 5", "space.recompute=full");
    diag_init(&d);
    assert_int_equal(sweep_pair(f, &sf, 1, &row, &d), STATUS_RANGE);
    assert_false(row.any);
    assert_int_equal(row.valid, 0);
    assert_non_null(strstr(d.msg, SNAP "sweeps/default.ini: no valid plan: "
                                       "all 2 combinations were rejected "
                                       "(most often: "));
    assert_string_equal(row.model, "DeepSeek-V3");
    sweep_release(&sf);
}

/*
 * compare_rank (issue 18): expected against expected. Four made-up rows
 * in this order: A calibrated at $5M expected, B at the speed of light
 * only at $1M (a floor: not comparable with A's), C calibrated at $3M
 * ($9M at its speed of light: the expected cost decides), D with no
 * valid plan. By hand: C (1), A (2), then B apart (1 of its kind), D
 * last (no rank).
 */
static void test_compare_rank_expected_apart(void **state)
{
    struct compare_row *rows = calloc(4, sizeof *rows);
    (void)state;
    assert_non_null(rows);
    snprintf(rows[0].model, sizeof rows[0].model, "A");
    rows[0].any = true;
    rows[0].recommended.work.x.known = true;
    rows[0].recommended.t.x_cost = 5e6;
    rows[0].recommended.t.cost_usd = 2e6;
    snprintf(rows[1].model, sizeof rows[1].model, "B");
    rows[1].any = true;
    rows[1].recommended.t.cost_usd = 1e6;
    snprintf(rows[2].model, sizeof rows[2].model, "C");
    rows[2].any = true;
    rows[2].recommended.work.x.known = true;
    rows[2].recommended.t.x_cost = 3e6;
    rows[2].recommended.t.cost_usd = 9e6;
    snprintf(rows[3].model, sizeof rows[3].model, "D");
    compare_rank(rows, 4);
    assert_string_equal(rows[0].model, "C");
    assert_true(rows[0].calibrated);
    assert_int_equal(rows[0].rank, 1);
    assert_string_equal(rows[1].model, "A");
    assert_int_equal(rows[1].rank, 2);
    assert_string_equal(rows[2].model, "B");
    assert_false(rows[2].calibrated);
    assert_int_equal(rows[2].rank, 1);
    assert_string_equal(rows[3].model, "D");
    assert_int_equal(rows[3].rank, 0);
    free(rows);
}

/*
 * compare_rank (issue 37): models are grouped, each in the order its file
 * first comes, and only a model's clusters are ranked against each other
 * (a budget and a recipe are the model's). Rows in this order: m1.ini on
 * cluster P at $5M expected, m2.ini on P at $1M, m1.ini on Q at $3M. By
 * hand: m1 first (it comes first), Q (1) before P (2); then m2 on P (1).
 * Ranked as one list, m2's $1M would lead.
 */
static void test_compare_rank_groups_by_model(void **state)
{
    static const char *const path[] = {"m1.ini", "m2.ini", "m1.ini"};
    static const char *const gpu[] = {"P", "P", "Q"};
    static const double cost[] = {5e6, 1e6, 3e6};
    struct compare_row *rows = calloc(3, sizeof *rows);
    size_t i;
    (void)state;
    assert_non_null(rows);
    for (i = 0; i < 3; i++) {
        snprintf(rows[i].model_path, sizeof rows[i].model_path, "%s", path[i]);
        snprintf(rows[i].gpu, sizeof rows[i].gpu, "%s", gpu[i]);
        rows[i].any = true;
        rows[i].recommended.work.x.known = true;
        rows[i].recommended.t.x_cost = cost[i];
    }
    compare_rank(rows, 3);
    assert_string_equal(rows[0].model_path, "m1.ini");
    assert_string_equal(rows[0].gpu, "Q");
    assert_int_equal(rows[0].rank, 1);
    assert_int_equal(rows[0].group, 0);
    assert_string_equal(rows[1].model_path, "m1.ini");
    assert_string_equal(rows[1].gpu, "P");
    assert_int_equal(rows[1].rank, 2);
    assert_string_equal(rows[2].model_path, "m2.ini");
    assert_int_equal(rows[2].rank, 1);
    assert_int_equal(rows[2].group, 1);
    free(rows);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_row_best_plan),
        cmocka_unit_test(test_compare_rank_expected_apart),
        cmocka_unit_test(test_compare_rank_groups_by_model),
        cmocka_unit_test(test_compare_row_nothing_valid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
