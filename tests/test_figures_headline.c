/*
 * test_figures_headline: the Plans sheet's rows, the fastest and the
 * recommended plan among the ties, the headline and the sentence on why
 * not the baseline (figures_headline.c). Most run on the shared
 * hand-made report (util_figures_setup in tests/util.c, which says how
 * each of its numbers comes about); the ties rule also on rows made
 * here, through figures_sheet_rows() directly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "figures_internal.h"
#include "test_util.h"

/* The sheet: the two fitting plans the limit allows, then the
 * baseline's best; the third fitting plan is left out. */
static void test_figures_sheet_rows(void **state)
{
    const struct util_parts *r = &((struct util_figures *)*state)->r;
    assert_int_equal(r->v.nsheet, 3);
    assert_int_equal(r->v.sheet[0], 0);
    assert_int_equal(r->v.sheet[1], 1);
    assert_int_equal(r->v.sheet[2], 3);
    assert_int_equal(r->v.sheet_left_out, 1);
    assert_int_equal(r->v.family[0].sheet_row, 0);
    assert_int_equal(r->v.family[1].sheet_row, 2);
    assert_non_null(strstr(r->v.note_left_out, "Plans shows 3 plans"));
}

/* Fastest 10.0 s with 79.21 - 60 = 19.21 GiB free; 10.15 s is within
 * 2% (10.2 s) with 39.21 GiB: the recommended plan. */
static void test_figures_recommended_among_ties(void **state)
{
    const struct util_parts *r = &((struct util_figures *)*state)->r;
    const struct views_headline *h = &r->v.headline;
    assert_int_equal(r->v.sheet_best, 0);
    assert_int_equal(r->v.sheet_recommended, 1);
    assert_int_equal(h->ties, 2);
    assert_true(h->any && h->fits && h->best_differs);
    assert_near(h->sol.step_s, 10.15, 1e-12);
    assert_near(h->best_step_s, 10.0, 1e-12);
    assert_near(h->headroom_gib, 79.21 - 40, 1e-12);
    assert_near(h->best_headroom_gib, 79.21 - 60, 1e-12);
    assert_near(h->usable_gib, 79.21 * 0.9, 1e-12);
    assert_false(h->has_expected);
    /* no published run: the sentence says so */
    assert_false(h->has_ratio);
    assert_non_null(strstr(h->difference, "floor"));
    assert_non_null(strstr(h->ties_text, "2 plans are within 2%"));
    assert_non_null(strstr(h->verdict, "Recommended plan: ZeRO-1+PP+EP"));
}

/* Why not the baseline: 20.014 / 10.15 = 1.972x slower, 500 GiB of the
 * 71.289 a plan may use, IB-bound here and NVLink-bound under flat. */
static void test_figures_baseline_sentence(void **state)
{
    const struct util_parts *r = &((struct util_figures *)*state)->r;
    const struct views_baseline *b = &r->v.baseline;
    assert_false(b->fits);
    assert_near(b->slowdown, 20.014 / 10.15, 1e-12);
    assert_near(b->lightest_gib, 500, 1e-12);
    assert_int_equal(b->bound, COST_IB);
    assert_int_equal(b->bound_other, COST_NVLINK);
    assert_non_null(strstr(b->sentence, "Why not ZeRO-3"));
    assert_non_null(strstr(b->sentence, "it needs 500 GiB per GPU of the "
                                        "71.3 a plan may use"));
    assert_non_null(strstr(b->sentence, "2.0x slower"));
    assert_non_null(strstr(b->sentence, "bound by IB under the hierarchical "
                                        "(topo) model and by NVLink under "
                                        "the flat model"));
    assert_true(b->has_point);
}

/* Issue 36 item 5: under a recommended ZeRO-3 plan inside PP 4 x EP 256
 * the sentence says what the baseline is and how the plans differ; under
 * the shared report's ZeRO-1 plan it does not. */
static void test_figures_baseline_sentence_zero3(void **state)
{
    struct util_parts *r = &((struct util_figures *)*state)->r;
    struct plan keep = r->v.headline.plan.plan;
    struct plan *p = &r->v.headline.plan.plan;
    p->zero = 3;
    p->tp = p->cp = 1;
    p->pp = 4;
    p->ep = 256;
    figures_baseline_sentence(&r->v);
    assert_non_null(strstr(r->v.baseline.sentence,
                           "Why not ZeRO-3 (FSDP, the baseline; pure FSDP, "
                           "ZeRO-3 over every GPU with no TP, PP or EP, where "
                           "the recommended plan shards with ZeRO-3 inside "
                           "PP 4 x EP 256): "));
    *p = keep;
    figures_baseline_sentence(&r->v);
    assert_non_null(strstr(r->v.baseline.sentence,
                           "Why not ZeRO-3 (FSDP, the baseline): "));
}

/* A report of hand-made rows (family 0 alone) for figures_sheet_rows:
 * each row fits or not, its step and its free memory in GiB. */
static void tie_rows(struct util_parts *r,
                     struct ranking_row *rows,
                     const bool *fits,
                     const double *step_s,
                     const double *free_gib,
                     size_t n)
{
    size_t i;
    util_parts_init(r);
    for (i = 0; i < n; i++) {
        memset(&rows[i], 0, sizeof rows[i]);
        rows[i].fits = fits[i];
        rows[i].step = step_s[i];
        rows[i].mem.capacity = 80 * UTIL_GIB;
        rows[i].mem.total = (80 - free_gib[i]) * UTIL_GIB;
        rows[i].family = 0;
    }
    r->rank.rows = rows;
    r->rank.nrows = n;
    util_parts_families(r, 1);
    r->rank.tie_pct = 5;
    r->rank.plans_sheet = 10;
}

/* Frees what tie_rows and figures_sheet_rows allocated (the rows are the
 * caller's). */
static void untie(struct util_parts *r)
{
    r->rank.rows = NULL;
    r->rank.nrows = 0;
    util_parts_free(r);
}

/*
 * The ties rule by hand: within tie_pct (5%) of the fastest fitting
 * step, 10.0 s, the limit is 10.5 s. Rows (fitting first, as ranked):
 * 10.0 s with 5 GiB free, 10.3 s with 20, 10.45 s with 15, 10.8 s with
 * 50 (beyond 10.5 s: not a tie however much it frees) and 9 s not
 * fitting. Ties: the first three; the most free among them is 10.3 s's
 * 20 GiB, sheet row 1. Every fitting row is on the sheet (limit 10) and
 * the family's first; the non-fitting row is not.
 */
static void test_figures_sheet_rows_ties_rule(void **state)
{
    const bool fits[] = {true, true, true, true, false};
    const double step[] = {10.0, 10.3, 10.45, 10.8, 9.0};
    const double free_gib[] = {5, 20, 15, 50, 0};
    struct ranking_row rows[5];
    struct util_parts r;
    struct diag d;
    (void)state;
    diag_init(&d);
    tie_rows(&r, rows, fits, step, free_gib, 5);
    assert_int_equal(figures_sheet_rows(&r.v, &d), STATUS_OK);
    assert_int_equal(r.v.nsheet, 4);
    assert_int_equal(r.v.sheet_left_out, 0);
    assert_int_equal(r.v.family[0].sheet_row, 0);
    assert_int_equal(r.v.sheet_best, 0);
    assert_int_equal(r.v.headline.ties, 3);
    assert_int_equal(r.v.sheet_recommended, 1);
    untie(&r);
}

/* Equal free memory among ties: the first, faster one is kept (10.0 s
 * and 10.2 s both free 20 GiB: row 0). With a 0% window the fastest
 * ties only with itself. */
static void test_figures_sheet_rows_equal_free_keeps_faster(void **state)
{
    const bool fits[] = {true, true};
    const double step[] = {10.0, 10.2};
    const double free_gib[] = {20, 20};
    struct ranking_row rows[2];
    struct util_parts r;
    struct diag d;
    (void)state;
    diag_init(&d);
    tie_rows(&r, rows, fits, step, free_gib, 2);
    assert_int_equal(figures_sheet_rows(&r.v, &d), STATUS_OK);
    assert_int_equal(r.v.headline.ties, 2);
    assert_int_equal(r.v.sheet_recommended, 0);
    untie(&r);
    tie_rows(&r, rows, fits, step, free_gib, 2);
    r.rank.tie_pct = 0;
    rows[1].mem.total = 0; /* all 80 GiB free, but 2% slower */
    assert_int_equal(figures_sheet_rows(&r.v, &d), STATUS_OK);
    assert_int_equal(r.v.headline.ties, 1);
    assert_int_equal(r.v.sheet_recommended, 0);
    untie(&r);
}

/* Nothing fits: no fastest fitting plan, no ties; the recommended row
 * falls back to the sheet's first (the family's best, 12 s). */
static void test_figures_sheet_rows_nothing_fits(void **state)
{
    const bool fits[] = {false, false};
    const double step[] = {12.0, 13.0};
    const double free_gib[] = {-5, -1};
    struct ranking_row rows[2];
    struct util_parts r;
    struct diag d;
    (void)state;
    diag_init(&d);
    tie_rows(&r, rows, fits, step, free_gib, 2);
    assert_int_equal(figures_sheet_rows(&r.v, &d), STATUS_OK);
    assert_int_equal(r.v.nsheet, 1);
    assert_int_equal(r.v.sheet_best, -1);
    assert_int_equal(r.v.headline.ties, 0);
    assert_int_equal(r.v.sheet_recommended, 0);
    untie(&r);
}

/* The verdict by hand: IB 9.4 s per 1 s of compute, the overlapped step
 * 9.4 s of which 8.4 s waiting: 89%; compute-bound with IB the busier
 * link at 0.5 s per second; HBM 3 s per 2 s of compute: 1.50. */
static void test_figures_verdict(void **state)
{
    struct cost_result r;
    char buf[512];
    (void)state;
    memset(&r, 0, sizeof r);
    r.t.bound = COST_IB;
    r.t.compute = 1;
    r.t.ib = 9.4;
    r.t.nvlink = 2;
    r.t.core = 9.4;
    figures_verdict(&r, buf, sizeof buf);
    assert_string_equal(buf, "IB-bound: 9.4 s of IB traffic per second of "
                             "compute; the GPUs wait on IB 89% of the "
                             "overlapped step");
    r.t.bound = COST_COMPUTE;
    r.t.compute = 2;
    r.t.ib = 1;
    r.t.nvlink = 0.5;
    figures_verdict(&r, buf, sizeof buf);
    /* issue 18: nothing moves with the micro-batches: no word on hiding */
    assert_string_equal(buf, "compute-bound: the busiest link (IB) needs "
                             "0.50 s per second of compute");
    /* 0.8 s of IB with the micro-batches, 0.40 s per second of compute;
     * no stack, so no claim that a run hides it */
    r.t.ib_steady = 0.8;
    figures_verdict(&r, buf, sizeof buf);
    assert_string_equal(buf, "compute-bound: the busiest link (IB) needs "
                             "0.50 s per second of compute; at the speed of "
                             "light its traffic with the micro-batches (0.40 "
                             "s per second of compute) hides under compute "
                             "(no stack says how much a real run overlaps)");
    /* a stack that overlaps it all: it can hide */
    r.work.x.known = true;
    r.t.expected = 4;
    figures_verdict(&r, buf, sizeof buf);
    assert_string_equal(buf, "compute-bound: the busiest link (IB) needs "
                             "0.50 s per second of compute; the stack "
                             "overlaps its traffic with the micro-batches "
                             "(0.40 s per second of compute): it can hide "
                             "under compute");
    /* a stack that leaves 0.75 s exposed, and a step-end gradient sync
     * (3 s, no gather) of which 1.25 s is beyond the last micro-batch's
     * backward in a 3.5 s step: both named with their seconds */
    r.t.x_exposed = 0.75;
    r.t.sync = 3;
    r.t.dp_exposed = 1.25;
    r.t.step = 3.5;
    figures_verdict(&r, buf, sizeof buf);
    assert_string_equal(buf, "compute-bound: the busiest link (IB) needs "
                             "0.50 s per second of compute; the stack does "
                             "not overlap all of its traffic with the "
                             "micro-batches: 0.75 s of communication is "
                             "exposed in the expected step; the step-end "
                             "gradient sync is exposed: 1.25 s of the 3.50 s "
                             "step");
    r.t.dp_exposed = 0;
    r.t.bound = COST_HBM;
    r.t.hbm = 3;
    figures_verdict(&r, buf, sizeof buf);
    assert_string_equal(buf, "HBM-bound: 1.50 s of memory traffic per second "
                             "of compute (GEMMs too small to reuse their "
                             "weights)");
    /* activation offloading (40 layers): its copies hidden, then 0.37 s
     * a step waited for in the expected step (the floor's 0.2 s is not
     * the one named: the expected step is known) */
    r.t.bound = COST_COMPUTE;
    r.t.x_exposed = 0;
    r.t.ib_steady = 0;
    r.plan.offload = 40;
    figures_verdict(&r, buf, sizeof buf);
    assert_string_equal(buf, "compute-bound: the busiest link (IB) needs "
                             "0.50 s per second of compute; the copies of 40 "
                             "layers' activations to and from host memory "
                             "hide under the passes");
    r.t.offload = 0.2;
    r.t.x_offload = 0.37;
    figures_verdict(&r, buf, sizeof buf);
    assert_string_equal(buf, "compute-bound: the busiest link (IB) needs "
                             "0.50 s per second of compute; the GPU waits "
                             "0.37 s a step for the copies of 40 layers' "
                             "activations to and from host memory");
}

/* Issue 36 item 5: IB-bound at the floor (2.4 s of IB per 1 s of
 * compute, the core 2.4 s of which 1.4 s waiting: 58%), compute-bound at
 * the expected rates (its 14.41 s of IB with the micro-batches under
 * 17.55 s of compute: the kernels' measured rates are slower than their
 * peak, so the same traffic now hides). With the IB 18 s, IB-bound at
 * both: the sentence is the floor's alone. */
static void test_figures_verdict_floor_and_expected(void **state)
{
    struct cost_result r;
    char buf[640];
    (void)state;
    memset(&r, 0, sizeof r);
    r.t.bound = COST_IB;
    r.t.compute = 1;
    r.t.ib = 2.4;
    r.t.core = 2.4;
    r.work.x.known = true;
    r.t.expected = 18;
    r.t.x_compute = 17.55;
    r.t.x_ib_hid = 14.41;
    assert_int_equal(cost_expected_bound(&r), COST_COMPUTE);
    figures_verdict(&r, buf, sizeof buf);
    assert_string_equal(buf, "floor IB-bound, expected compute-bound: at the "
                             "speed of light 2.4 s of IB traffic per second "
                             "of compute, the GPUs waiting on IB 58% of the "
                             "overlapped step; at the expected rates its "
                             "14.41 s of IB traffic with the micro-batches "
                             "hides under 17.55 s of compute");
    r.t.x_ib_hid = 18;
    assert_int_equal(cost_expected_bound(&r), COST_IB);
    figures_verdict(&r, buf, sizeof buf);
    assert_string_equal(buf, "IB-bound: 2.4 s of IB traffic per second of "
                             "compute; the GPUs wait on IB 58% of the "
                             "overlapped step");
    r.work.x.known = false; /* no expected step: no expected bound */
    assert_int_equal(cost_expected_bound(&r), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_sheet_rows),
        cmocka_unit_test(test_figures_verdict),
        cmocka_unit_test(test_figures_verdict_floor_and_expected),
        cmocka_unit_test(test_figures_recommended_among_ties),
        cmocka_unit_test(test_figures_baseline_sentence),
        cmocka_unit_test(test_figures_baseline_sentence_zero3),
        cmocka_unit_test(test_figures_sheet_rows_ties_rule),
        cmocka_unit_test(test_figures_sheet_rows_equal_free_keeps_faster),
        cmocka_unit_test(test_figures_sheet_rows_nothing_fits),
    };
    return cmocka_run_group_tests(tests, util_figures_setup,
                                  util_figures_teardown);
}
