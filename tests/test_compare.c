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
 * selective or full recomputation): valid = 3. The row's best is the
 * ranking's rule applied to the three evaluated here: the fastest of
 * those that fit. The files' own values are copied: the H800 snapshot's
 * 2048 GPUs of 79.21 GiB at 2 USD an hour, DeepSeek's 14.8T tokens.
 */
static void test_compare_pair_best_plan(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct compare_row row;
    struct diag d;
    static const char *const policies[] = {
        "recompute=none", "recompute=selective", "recompute=full"};
    int best = -1, k;
    double best_step = 0;
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
        cost_evaluate(&f->ctx, &p, &r, NULL, 0, NULL);
        if (r.fits) {
            fitting++;
            if (best < 0 || r.t.step < best_step) {
                best = k;
                best_step = r.t.step;
            }
        }
    }
    assert_true(best >= 0);
    assert_int_equal(compare_pair(&row, &f->ctx, &sf, 2, &d), STATUS_OK);
    assert_true(row.any);
    assert_int_equal(row.valid, 3);
    assert_int_equal(row.fitting, fitting);
    assert_true(row.best.fits);
    assert_int_equal(row.best.plan.recompute, best);
    assert_near(row.best.t.step, best_step, 1e-12);
    assert_string_equal(row.best.family, "ZeRO-1+PP+EP");
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
 * The row says why (the ranking's message) and the call succeeds, so
 * `compare` goes on to the next pair. */
static void test_compare_pair_nothing_valid(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct compare_row row;
    struct diag d;
    load_sweep(&sf, "space.tp=3 5", "space.recompute=full");
    diag_init(&d);
    assert_int_equal(compare_pair(&row, &f->ctx, &sf, 1, &d), STATUS_OK);
    assert_false(row.any);
    assert_int_equal(row.valid, 0);
    assert_non_null(strstr(row.why, SNAP "sweeps/default.ini: no valid plan: "
                                         "all 2 combinations were rejected "
                                         "(most often: "));
    assert_string_equal(row.model, "DeepSeek-V3");
    sweep_release(&sf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_compare_pair_best_plan),
        cmocka_unit_test(test_compare_pair_nothing_valid),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
