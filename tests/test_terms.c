/*
 * test_terms: the time model's two sides agree (terms.c). Every term's
 * Excel template, compiled as the workbook writes it, is evaluated by
 * the tests' small spreadsheet evaluator (util_evaluate in tests/util.c)
 * on a sample of plans, and must give the C value cost_times() gave;
 * the memory terms' templates likewise on the same rows; the bound's
 * ties and a collective's link time by hand. The inputs' registry and
 * the template lexer are test_terms_inputs.c's, the fit rule
 * test_terms_memory.c's. Fixtures are the snapshots in tests/data, so
 * editing data/ does not move them.
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
#include "stack.h"
#include "plans_table.h"
#include "sweep.h"
#include "xlsx_table.h"
#include "views.h"
#include "terms.h"
#include "test_util.h"

struct fixture {
    struct model moe, gpt;
    struct hardware hw;
    struct calibration cal; /* hw.cal: the expected terms are checked too */
    struct stack stack;
    struct util_parts *rep; /* empty: plans_table_value_row reads families */
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/tiny-moe.ini", &f.moe, NULL, 0, &d) ||
        model_load("tests/data/gpt-korthikanti.ini", &f.gpt, NULL, 0, &d) ||
        hardware_load("tests/data/hw-h800.ini", &f.hw, NULL, 0, &d) ||
        calibration_load("tests/data/snap/calibration/h800.ini", &f.cal, NULL,
                         0, &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", &f.stack, NULL, 0,
                   &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    f.hw.cal = &f.cal;
    f.hw.stack = &f.stack; /* its free factors are inputs too */
    /* a host link slow enough that offloaded copies outlast GPT-3's
     * passes (test_terms_offload_by_hand): 10 GB/s a way */
    f.hw.spec.host_link_gbps = 10;
    f.hw.host_link_bps = 10e9;
    f.rep = calloc(1, sizeof *f.rep);
    if (!f.rep)
        return -1;
    f.rep->in.m = &f.moe;
    f.rep->in.hw = &f.hw;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    model_release(&f->moe);
    model_release(&f->gpt);
    hardware_release(&f->hw);
    calibration_release(&f->cal);
    stack_release(&f->stack);
    free(f->rep);
    return 0;
}

/* ---- The tests ---- */

/* The row of the Plans table for plan `text` of model m, and its times. */
static void plan_row(const struct fixture *f,
                     const struct model *m,
                     const char *text,
                     struct util_sheet *sh,
                     struct cost_times *t,
                     struct memory *mem)
{
    struct plan p;
    struct cost_ctx ctx;
    struct cost_result r;
    struct ranking_row row;
    size_t n, i;
    const struct plans_column *cols = plans_table_columns(&n);
    util_plan(m, &f->hw, text, &p);
    util_ctx(&ctx, m, &f->hw, COMM_TOPO, &p);
    ctx.stack = &f->stack;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
    assert_true(r.work.x.known);
    cost_ctx_release(&ctx);
    memset(&row, 0, sizeof row);
    row.plan = p;
    row.work = r.work;
    row.t = r.t;
    row.mem = r.mem;
    row.fits = r.fits;
    row.family = -1;
    if (mem)
        *mem = r.mem;
    cost_times(&r.work, &f->hw, m, p.precision, t);
    f->rep->in.m = m;
    memset(sh, 0, sizeof *sh);
    sh->hw = &f->hw;
    sh->m = m;
    assert_true(n <= sizeof sh->cell / sizeof sh->cell[0]);
    sh->ncells = n;
    for (i = 0; i < n; i++) {
        struct plans_value v;
        plans_table_value_row(&cols[i], &f->rep->v, &row, 1, t, &v);
        sh->cell[i].kind = v.kind == PLANS_NUMBER ? UTIL_NUM
                           : v.kind == PLANS_BOOL ? UTIL_BOOL
                                                  : UTIL_STR;
        sh->cell[i].num = v.num;
        sh->cell[i].flag = v.flag;
        snprintf(sh->cell[i].str, sizeof sh->cell[i].str, "%s", v.str);
    }
}

/* Every memory term's template on the same row gives the C value: the
 * runtime's share and the total as memory.c computed them, the headroom,
 * and the fit with the sweep's default headroom (10%). */
static void check_memory(const struct fixture *f,
                         const struct util_sheet *sh,
                         const struct memory *mem)
{
    size_t n, i;
    const struct terms_mem_term *mt = terms_memory(&n);
    struct terms_mem_env env = {mem, &f->hw, 10};
    assert_int_equal(n, TERMS_MEM_COUNT);
    for (i = 0; i < n; i++) {
        struct plans_formula fm;
        char text[PLANS_FORMULA_MAX];
        struct util_value v;
        assert_int_equal(mt[i].id, (int)i);
        if (!plans_table_formula_compile(mt[i].formula, &fm))
            fail_msg("%s: template does not compile: %s", mt[i].key,
                     mt[i].formula);
        plans_table_formula_expand(&fm, 1, text, sizeof text);
        v = util_evaluate(text, sh);
        assert_int_equal(v.kind, UTIL_NUM);
        assert_near(v.num, mt[i].c(&env), 1e-12);
    }
    /* the C side repeats memory.c */
    assert_near(mt[TERMS_MEM_OTHER].c(&env) * 1073741824.0, mem->other, 1e-12);
    assert_near(mt[TERMS_MEM_TOTAL].c(&env) * 1073741824.0, mem->total, 1e-12);
}

/* Every term's template, on row 2 of a sheet holding the plan, gives the
 * C value of the term within 1e-12 (the units differ: GB over GB/s in
 * the sheet, bytes over B/s in C). */
static void check_terms(const struct util_sheet *sh, const struct cost_times *t)
{
    size_t n, i;
    const struct terms_term *terms = terms_all(&n);
    assert_int_equal(n, TERMS_COUNT);
    for (i = 0; i < n; i++) {
        struct plans_formula fm;
        char text[PLANS_FORMULA_MAX];
        struct util_value v;
        assert_int_equal(terms[i].id, (int)i);
        if (!plans_table_formula_compile(terms[i].formula, &fm))
            fail_msg("term %s: template does not compile: %s", terms[i].key,
                     terms[i].formula);
        plans_table_formula_expand(&fm, 1, text, sizeof text);
        v = util_evaluate(text, sh);
        if (terms[i].id == TERMS_BOUND) {
            assert_int_equal(v.kind, UTIL_STR);
            assert_string_equal(v.str, cost_bound_label(t->bound));
        } else {
            assert_int_equal(v.kind, UTIL_NUM);
            assert_near(v.num, terms_time(t, terms[i].id), 1e-12);
        }
    }
}

static void test_terms_templates_match_c(void **state)
{
    struct fixture *f = *state;
    static const char *const moe_plans[] = {
        "gpus=64 tp=2 pp=2 ep=8 zero=1 mbs=1 gbs=64",
        "gpus=64 pp=4 ep=16 zero=1 schedule=dualpipe precision=fp8 "
        "recompute=selective mbs=1 gbs=64",
        "gpus=64 zero=3 recompute=full mbs=1 gbs=64",
        "gpus=64 tp=4 pp=2 schedule=interleaved vpp=2 zero=2 mbs=2 gbs=64",
    };
    static const char *const gpt_plans[] = {
        "gpus=64 tp=8 pp=8 mbs=1 gbs=64 recompute=selective",
        /* activation offloading: hidden, exposed, nearly every layer */
        "gpus=64 tp=8 mbs=1 gbs=64 offload=2",
        "gpus=64 tp=8 mbs=1 gbs=64 offload=40",
        "gpus=64 tp=8 mbs=1 gbs=64 offload=95",
    };
    struct util_sheet sh;
    struct cost_times t;
    struct memory mem;
    size_t i;
    int pass;
    double neutral[sizeof moe_plans / sizeof moe_plans[0]];
    /* the stack's free factors neutral, then fitted-like (inside their
     * bounds), so the templates' COMPUTE_OVERHEAD and NETWORK_EFFICIENCY
     * are checked against the C where they change the terms; then a
     * burst window (CLOCK_BURST_S) half the first plan's compute, which
     * some plans' kernels outlast and some not; then host launch work
     * (1000 kernels of 1 ms a layer) longer than every plan's kernels */
    for (pass = 0; pass < 4; pass++) {
        f->stack.spec.compute_overhead = pass == 1 ? 1.37 : 1;
        f->stack.spec.network_efficiency = pass == 1 ? 0.61 : 1;
        f->cal.spec.burst_s = pass == 2 ? neutral[0] / 2 : 0;
        f->stack.spec.host_us_per_kernel = pass == 3 ? 1000 : 0;
        f->stack.spec.kernels_per_layer = pass == 3 ? 1000 : 0;
        for (i = 0; i < sizeof moe_plans / sizeof moe_plans[0]; i++) {
            plan_row(f, &f->moe, moe_plans[i], &sh, &t, &mem);
            /* the overhead multiplies the whole expected compute */
            if (pass == 0)
                neutral[i] = t.x_compute;
            else if (pass == 1)
                assert_near(t.x_compute, 1.37 * neutral[i], 1e-12);
            else if (pass == 2 && i == 0) /* the window eases the clock */
                assert_true(t.x_compute < neutral[i]);
            else if (pass == 3)
                assert_true(t.x_compute > neutral[i]);
            check_terms(&sh, &t);
            check_memory(f, &sh, &mem);
        }
        for (i = 0; i < sizeof gpt_plans / sizeof gpt_plans[0]; i++) {
            plan_row(f, &f->gpt, gpt_plans[i], &sh, &t, &mem);
            check_terms(&sh, &t);
            check_memory(f, &sh, &mem);
        }
    }
    f->stack.spec.compute_overhead = 1;
    f->stack.spec.network_efficiency = 1;
    f->cal.spec.burst_s = 0;
    f->stack.spec.host_us_per_kernel = 0;
    f->stack.spec.kernels_per_layer = 0;
}

/* One term family, two rate sets: the expected set's terms under the
 * speed of light's rates (terms_rates_sol) are the speed of light's
 * terms, bit for bit (the same C functions on the same numbers), and
 * its exposed communication is zero (ideal overlap hides everything).
 * Every expected row of the registry instantiates the family term its
 * speed-of-light twin does, and each family term is in both sets. */
static void test_terms_one_family_two_sets(void **state)
{
    struct fixture *f = *state;
    static const char *const plans[] = {
        "gpus=64 tp=2 pp=2 ep=8 zero=1 mbs=1 gbs=64",
        "gpus=64 pp=4 ep=16 zero=1 schedule=dualpipe precision=fp8 "
        "recompute=selective mbs=1 gbs=64",
        "gpus=64 zero=3 recompute=full mbs=1 gbs=64",
    };
    size_t n, i, j, k;
    const struct terms_term *terms = terms_all(&n);
    for (i = 0; i < n; i++) {
        int twins = 0;
        if (terms[i].fam < 0) {
            assert_int_equal(terms[i].set, TERMS_SOL);
            continue;
        }
        for (j = 0; j < n; j++)
            if (j != i && terms[j].fam == terms[i].fam) {
                assert_int_not_equal(terms[j].set, terms[i].set);
                twins++;
            }
        /* exposed communication is the expected set's alone */
        assert_int_equal(twins, terms[i].id == TERMS_X_EXPOSED ? 0 : 1);
    }
    for (k = 0; k < sizeof plans / sizeof plans[0]; k++) {
        struct util_sheet sh;
        struct cost_times t;
        struct cost_work w;
        struct terms_rates r;
        struct plan p;
        util_plan(&f->moe, &f->hw, plans[k], &p);
        plan_row(f, &f->moe, plans[k], &sh, &t, NULL);
        {
            struct cost_ctx ctx;
            struct cost_result res;
            util_ctx(&ctx, &f->moe, &f->hw, COMM_TOPO, &p);
            ctx.stack = &f->stack;
            cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &res);
            cost_ctx_release(&ctx);
            w = res.work;
        }
        {
            struct terms_env e = {&w, &f->hw, &f->moe, p.precision, &t};
            terms_rates_sol(&w, &f->hw, &r);
            terms_expected(&e, &r, &t);
        }
        for (i = 0; i < n; i++) {
            if (terms[i].set != TERMS_X)
                continue;
            if (terms[i].id == TERMS_X_EXPOSED) {
                assert_true(terms_time(&t, terms[i].id) == 0);
                continue;
            }
            for (j = 0; j < n; j++)
                if (terms[j].set == TERMS_SOL && terms[j].fam == terms[i].fam)
                    break;
            assert_true(j < n);
            if (terms_time(&t, terms[i].id) != terms_time(&t, terms[j].id))
                fail_msg("%s: %.17g under the speed of light's rates, %s "
                         "%.17g",
                         terms[i].key, terms_time(&t, terms[i].id),
                         terms[j].key, terms_time(&t, terms[j].id));
        }
    }
}

/* terms_restep (cost.c's second pass: only the ramp skew moved) leaves
 * every term as terms_step and terms_expected_step compute them afresh,
 * bit for bit, for each set. */
static void test_terms_restep_equals_a_fresh_step(void **state)
{
    struct fixture *f = *state;
    static const char *const plans[] = {
        "gpus=64 tp=2 pp=2 ep=8 zero=1 mbs=1 gbs=64",
        "gpus=64 pp=4 ep=16 zero=1 schedule=dualpipe precision=fp8 "
        "recompute=selective mbs=1 gbs=64",
        "gpus=64 pp=4 zero=3 schedule=zb recompute=full mbs=1 gbs=64",
    };
    size_t k;
    for (k = 0; k < sizeof plans / sizeof plans[0]; k++) {
        struct cost_ctx ctx;
        struct cost_result res;
        struct cost_times again, fresh;
        struct cost_work w;
        struct plan p;
        struct terms_env e = {&w, &f->hw, &f->moe, MODEL_BF16, &again};
        util_plan(&f->moe, &f->hw, plans[k], &p);
        util_ctx(&ctx, &f->moe, &f->hw, COMM_TOPO, &p);
        ctx.stack = &f->stack;
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &res);
        cost_ctx_release(&ctx);
        w = res.work;
        assert_true(w.x.known);
        w.ramp_skew = w.x.ramp_skew = 0;
        memset(&again, 0, sizeof again);
        terms_step(&e, &again);
        terms_expected_step(&e, &again);
        w.ramp_skew = 0.375;
        w.x.ramp_skew = -0.125;
        terms_restep(&e, TERMS_SOL, &again);
        terms_restep(&e, TERMS_X, &again);
        memset(&fresh, 0, sizeof fresh);
        e.t = &fresh;
        terms_step(&e, &fresh);
        terms_expected_step(&e, &fresh);
        assert_true(fresh.bubble > 0 && fresh.x_bubble > 0);
        assert_memory_equal(&again, &fresh, sizeof fresh);
    }
}

/* The bound's IF chain keeps the first maximum, as terms_core does:
 * with compute = IB, the plan is compute-bound (hand-made row). */
static void test_terms_bound_ties_go_to_compute(void **state)
{
    struct fixture *f = *state;
    struct util_sheet sh;
    struct cost_times t;
    struct plans_formula fm;
    char text[PLANS_FORMULA_MAX];
    struct util_value v;
    int bound;
    plan_row(f, &f->moe, "gpus=64 tp=2 pp=2 ep=8 zero=1 mbs=1 gbs=64", &sh, &t,
             NULL);
    sh.cell[plans_table_find("comm_sm")] = util_num(0);
    sh.cell[plans_table_find("ib_steady")] =
        sh.cell[plans_table_find("compute")];
    sh.cell[plans_table_find("core")] = sh.cell[plans_table_find("compute")];
    sh.cell[plans_table_find("nv_steady")] = util_num(0);
    sh.cell[plans_table_find("hbm")] = util_num(0);
    assert_true(plans_table_formula_compile(terms_find("bound")->formula, &fm));
    plans_table_formula_expand(&fm, 1, text, sizeof text);
    v = util_evaluate(text, &sh);
    assert_string_equal(v.str, "compute");
    assert_true(terms_core(2, 2, 1, 1, &bound) == 2);
    assert_int_equal(bound, COST_COMPUTE);
    assert_true(terms_core(2, 3, 3, 1, &bound) == 3);
    assert_int_equal(bound, COST_IB);
}

/*
 * Activation offloading: GPT-3 with sequence parallelism saves sbh(34 +
 * 5as/h)/t a layer (Korthikanti et al. 2022 §4.2.2; s = 2048, h = 12288,
 * 5as/h = 80, t = 8): 40 layers copy 40 x 2048 x 12288 x 114 / 8 bytes =
 * 14.35 GB each way per micro-batch, 1.435 s at 10 GB/s, longer than a
 * micro-batch's forward or backward (8 micro-batches of 175B's FLOPs on
 * 64 GPUs). Both copies outlast their passes, so the wait is 8 x (2 copy -
 * one micro-batch's compute) = 16 copy - compute, in either rate set. With
 * 6 layers (0.215 s a way) the backward (two thirds of a micro-batch's
 * FLOPs: training is 3 x forward) hides its copy and the forward not: 8 x
 * (copy - compute / 24); with 2 the forward hides its copy too; without
 * offload there is no wait.
 */
static void test_terms_offload_by_hand(void **state)
{
    struct fixture *f = *state;
    struct util_sheet sh;
    struct cost_times t;
    double copy = 40 * 2048.0 * 12288 * 114 / 8 / 10e9;
    plan_row(f, &f->gpt, "gpus=64 tp=8 mbs=1 gbs=64 offload=40", &sh, &t, NULL);
    assert_true(t.compute / 8 / 3 * 2 < copy); /* the backward is shorter */
    assert_near(t.offload, 16 * copy - t.compute, 1e-9);
    assert_near(t.x_offload, 16 * copy - t.x_compute, 1e-9);
    assert_near(t.core, t.compute + t.comm_sm + t.offload, 1e-9);
    plan_row(f, &f->gpt, "gpus=64 tp=8 mbs=1 gbs=64 offload=6", &sh, &t, NULL);
    assert_true(t.compute / 24 < copy * 6 / 40 &&
                copy * 6 / 40 < t.compute / 12);
    assert_near(t.offload, 8 * (copy * 6 / 40 - t.compute / 24), 1e-9);
    plan_row(f, &f->gpt, "gpus=64 tp=8 mbs=1 gbs=64 offload=2", &sh, &t, NULL);
    assert_true(t.offload == 0);
    plan_row(f, &f->gpt, "gpus=64 tp=8 mbs=1 gbs=64", &sh, &t, NULL);
    assert_true(t.offload == 0 && t.x_offload == 0);
}

/* A collective's link-time templates (the Communication sheet's) give
 * terms_collective_time(): 90 GB over 50 GB/s at a share of 0.92 of it,
 * and a latency of 2,000 in-node steps and 500 network steps at the
 * collectives file's Simple ring steps (tests/data/snap/collectives/
 * nccl.ini: 3.4 us and 14 us), by hand 90 / 46 + 0.0068 + 0.007 s; the
 * NVLink column moves nothing and is charged no latency: 0. */
static void test_terms_collective_time_by_hand(void **state)
{
    struct fixture *f = *state;
    struct xlsx_column cols[] = {
        {"share", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 0},
        {"ib_gb", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 1},
        {"nv_gb", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 2},
        {"ib_steps", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 3},
        {"ib_net_steps", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 4},
        {"nv_steps", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 5},
        {"ib_s", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 6},
        {"nv_s", NULL, "", XLSX_FMT_NONE, 0, 0, NULL, 7},
    };
    struct xlsx_table t = {cols, 8, XLSX_FMT_NONE, NULL};
    struct util_sheet sh;
    char text[XLSX_TABLE_FORMULA_MAX];
    double want = 90.0 / 46 + 2000 * 3.4e-6 + 500 * 14e-6;
    memset(&sh, 0, sizeof sh);
    sh.hw = &f->hw;
    sh.m = &f->moe;
    sh.ncells = 6;
    sh.cell[0] = util_num(0.92);
    sh.cell[1] = util_num(90);
    sh.cell[2] = util_num(0);
    sh.cell[3] = util_num(2000);
    sh.cell[4] = util_num(500);
    sh.cell[5] = util_num(0);
    assert_true(
        xlsx_table_formula(&t, terms_template("ib_s"), 0, text, sizeof text));
    assert_near(util_evaluate(text, &sh).num, want, 1e-12);
    assert_near(terms_collective_time(&f->hw, 90e9, 0.92, f->hw.ib_bps,
                                      (struct comm_lat){2000, 500}),
                want, 1e-12);
    assert_true(
        xlsx_table_formula(&t, terms_template("nv_s"), 0, text, sizeof text));
    assert_near(util_evaluate(text, &sh).num, 0, 1e-15);
    assert_near(terms_collective_time(&f->hw, 0, 0.92, f->hw.nvlink_bps,
                                      (struct comm_lat){0, 0}),
                0, 1e-15);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_terms_templates_match_c),
        cmocka_unit_test(test_terms_one_family_two_sets),
        cmocka_unit_test(test_terms_restep_equals_a_fresh_step),
        cmocka_unit_test(test_terms_bound_ties_go_to_compute),
        cmocka_unit_test(test_terms_offload_by_hand),
        cmocka_unit_test(test_terms_collective_time_by_hand),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
