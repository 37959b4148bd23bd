/*
 * test_figures_charts: the families' colours, the baseline's crossovers
 * and sensitivity curves, the roofline points and roofs, and the bars
 * (figures_charts.c). Most run on the shared hand-made report
 * (util_figures_setup in tests/util.c, which says how each of its
 * numbers comes about); the bars also on made-up terms, through
 * figures_charts() directly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "figures_internal.h"
#include "test_util.h"

/* The baseline's crossovers (by hand, IB 50 GB/s, and a latency of one 14 us
 * network step a call: tests/data/snap/collectives/nccl.ini): a link meets the
 * compute side of the overlapped core, 10 s of compute plus the 20 of 132 SMs
 * its overlapped traffic takes, 10 x (1 + 20/132) = 11.51515 s. IB meets it at
 * 1000 GB / (11.51515 - 1000 x 14 us) = 86.948 GB/s, where NVLink (18.75 s)
 * still binds; NVLink meets it at 3000 / 11.51515 = 260.53 GB/s, where IB
 * (20.014 s) binds. */
static void test_figures_baseline_crossovers(void **state)
{
    const struct util_parts *r = &((struct util_figures *)*state)->r;
    const struct ranking_family *b = &r->rank.family[1];
    assert_int_equal(r->v.baseline.family, 1);
    assert_int_equal(b->cross_ib.state, RANKING_CROSS_AT);
    assert_near(b->cross_ib.gbps, 1000 / (10 * (1 + 20.0 / 132) - 1000 * 14e-6),
                1e-12);
    assert_int_equal(b->cross_ib.then_bound, COST_NVLINK);
    assert_true(b->cross_ib.in_range);
    assert_int_equal(b->cross_nv.state, RANKING_CROSS_AT);
    assert_near(b->cross_nv.gbps, 3000 / (10 * (1 + 20.0 / 132)), 1e-12);
    assert_int_equal(b->cross_nv.then_bound, COST_IB);
    /* the fitting family moves no NVLink bytes: already below compute */
    assert_int_equal(r->rank.family[0].cross_nv.state, RANKING_CROSS_ALREADY);
    /* the charts draw no crossover line: the baseline never turns
     * compute-bound on one link alone */
    assert_true(r->v.sens[0].mark_gbps == 0);
    assert_string_equal(r->v.sens[0].line1, "ZeRO-3: no IB bandwidth alone "
                                            "makes it compute-bound");
    assert_non_null(strstr(r->v.sens[0].line2, "NVLink still binds"));
    assert_non_null(strstr(r->v.sens[1].line2, "IB still binds"));
}

/* None of the baseline fits: its curves are its fastest plan re-timed.
 * At 12.5 GB/s IB is 1000/12.5 + 0.014 = 80.014 s; at 400 GB/s it is
 * 2.514 s and NVLink's 18.75 s binds. */
static void test_figures_baseline_curves(void **state)
{
    const struct util_parts *r = &((struct util_figures *)*state)->r;
    const struct ranking_family *b = &r->rank.family[1];
    assert_true(b->sens_unfit);
    assert_near(b->sens_ib_step[0], 80.014, 1e-12);
    assert_int_equal(b->sens_ib_bound[0], COST_IB);
    assert_near(b->sens_ib_step[2], 18.75, 1e-12);
    assert_int_equal(b->sens_ib_bound[2], COST_NVLINK);
    /* NVLink at 900 GB/s: 3.33 s; IB's 20.014 s binds */
    assert_near(b->sens_nv_step[1], 20.014, 1e-12);
    assert_int_equal(r->v.sens[0].nfamilies, 1); /* A has no fitting curve */
    assert_int_equal(r->v.sens[0].family[0], 1);
}

/* Colours: the fitting family first in the palette, the baseline black;
 * points: the three fitting plans in one block, at the BF16 rate (their
 * work is BF16 compute alone), the first 10 s x rate / 100 GB. */
static void test_figures_colours_and_points(void **state)
{
    const struct util_parts *r = &((struct util_figures *)*state)->r;
    double rate = r->in.hw->bf16_flops / 1e12;
    assert_int_equal(r->v.family[0].color, 0x0072B2);
    assert_int_equal(r->v.family[1].color, 0x000000);
    assert_int_equal(r->v.npoints, 3);
    assert_int_equal(r->v.nblocks, 1);
    assert_int_equal(r->v.blocks[0].family, 0);
    assert_true(r->v.blocks[0].labelled);
    /* its IB, 100 GB / 50 GB/s + 1000 network steps x 14 us = 2.014 s, runs on
     * 20 of 132 SMs while compute does: the step is 10 + 2.014 x 20/132 */
    assert_near(r->v.points[0].y, rate * 10 / (10 + 2.014 * 20 / 132), 1e-12);
    assert_near(r->v.points[0].x[0], 10 * rate * 1e12 / 100e9, 1e-12);
    assert_true(r->v.points[1].x[0] == 0); /* no IB bytes */
    /* IB roofline: BF16 achievable ridge at rate / 50 GB/s */
    assert_near(r->v.roofline[0].roof[r->v.roofline[0].nroofs - 1].ridge,
                rate * 1e12 / 50e9, 1e-12);
    assert_true(r->v.roofline[0].xlo <= r->v.roofline[0].roof[0].ridge);
    assert_true(r->v.roofline[0].yhi_decade >= r->v.roofline[0].yhi);
}

/* Bars (issue 18): the recommended plan first — A's 10.15 s plan with
 * 40 GiB, the tie with the most free memory, not A's fastest — then A's
 * fastest (10 s, 60 GiB), then the baseline; the axis holds all whole
 * (20.014 <= 2.5 x 10) with the baseline's serial step, 10 + 20.014 +
 * 18.75 s. */
static void test_figures_bars(void **state)
{
    const struct util_parts *r = &((struct util_figures *)*state)->r;
    assert_int_equal(r->v.nbars, 3);
    assert_int_equal(r->v.nbars_fit, 2);
    assert_true(r->v.bars[0].recommended);
    assert_int_equal(r->v.bars[0].family, 0);
    assert_near(r->v.bars[0].step, 10.15, 1e-12);
    assert_near(r->v.bars[0].mem.total, 40 * UTIL_GIB, 1e-3);
    assert_false(r->v.bars[1].recommended);
    assert_int_equal(r->v.bars[1].family, 0);
    assert_near(r->v.bars[1].mem.total, 60 * UTIL_GIB, 1e-3);
    assert_int_equal(r->v.bars[2].family, 1);
    assert_near(r->v.bars[2].exposed[COST_IB], 10.014, 1e-12);
    assert_near(r->v.steps_max, 10 + 20.014 + 18.75, 1e-12);
    assert_near(r->v.memory_unfit_max, 500, 1e-12);
    assert_near(r->v.memory_fit_max, 79.21, 1e-12);
}

/* A family's best plan with made-up terms (s), as the bars read them. */
static void made_up_best(struct ranking_family *fam,
                         double compute,
                         double core,
                         int bound,
                         double bubble,
                         double optimizer,
                         double dp_exposed,
                         double step,
                         double serial)
{
    struct cost_result *c = &fam->best;
    memset(c, 0, sizeof *c);
    c->t.compute = compute;
    c->t.core = core;
    c->t.bound = bound;
    c->t.bubble = bubble;
    c->t.optimizer = optimizer;
    c->t.dp_exposed = dp_exposed;
    c->t.step = step;
    c->t.step_serial = serial;
    fam->has_best = true;
}

/*
 * The bars by hand on two made-up families (the fixture's cluster: IB
 * 50 GB/s, NVLink 160 GB/s, 79.21 GiB). Each bar's parts add up to its
 * step, bubble + optimizer + core + exposed DP (terms.c):
 * - family 0 fits (70 GiB), IB-bound: compute 6 s, core 8 s, bubble
 *   1.5 s, optimizer 0.25 s, exposed DP 0.5 s, step 10.25 s, serial 12 s.
 *   Its step-end sync is 25 GB over IB (0.5 s) and 160 GB over NVLink
 *   (1 s), so the exposed DP goes on NVLink. Bar: compute 6, IB 2,
 *   NVLink 0.5, bubble 1.5, optimizer 0.25: 10.25 s.
 * - family 1 does not fit (100 GiB), compute-bound: compute 6 s, core
 *   6.3 s (SMs lost to overlapped comm), no bubble, optimizer 0.2 s,
 *   exposed DP 0.1 s of a 50 GB IB gather (nothing on NVLink), step
 *   6.6 s, serial 7 s. Bar: compute 6.3, IB 0.1, optimizer 0.2: 6.6 s.
 * Axis: the fastest ranking step is 6.6 s; both are within 2.5 x 6.6 =
 * 16.5 s, so the longest is family 0's serial 12 s. Memory: the fitting
 * panel spans the 79.21 GiB capacity (70 is less), the other 100 GiB.
 */
static void test_figures_bars_by_hand(void **state)
{
    struct util_figures *f = *state;
    struct util_parts *r = calloc(1, sizeof *r);
    const struct views_bar *b;
    struct diag d;
    assert_non_null(r);
    util_parts_init(r);
    diag_init(&d);
    r->in.m = &f->m;
    r->in.hw = &f->hw;
    r->v.baseline.family = -1;
    r->v.published = -1;
    util_parts_families(r, 2);
    made_up_best(&r->rank.family[0], 6, 8, COST_IB, 1.5, 0.25, 0.5, 10.25, 12);
    r->rank.family[0].best.work.ib_sync_bytes = 25e9;
    r->rank.family[0].best.work.nvlink_sync_bytes = 160e9;
    r->rank.family[0].best.fits = true;
    r->rank.family[0].best.mem.total = 70 * UTIL_GIB;
    made_up_best(&r->rank.family[1], 6, 6.3, COST_COMPUTE, 0, 0.2, 0.1, 6.6, 7);
    r->rank.family[1].best.work.ib_gather_bytes = 50e9;
    r->rank.family[1].best.mem.total = 100 * UTIL_GIB;
    assert_int_equal(figures_charts(&r->v, &d), STATUS_OK);
    assert_int_equal(r->v.nbars, 2);
    assert_int_equal(r->v.nbars_fit, 1);
    assert_int_equal(r->v.bars_omitted, 0);
    b = &r->v.bars[0];
    assert_int_equal(b->family, 0);
    assert_near(b->compute, 6, 1e-15);
    assert_near(b->exposed[COST_IB], 2, 1e-15);
    assert_near(b->exposed[COST_NVLINK], 0.5, 1e-15);
    assert_near(b->exposed[COST_HBM], 0, 1e-15);
    assert_near(b->bubble, 1.5, 1e-15);
    assert_near(b->optimizer, 0.25, 1e-15);
    assert_near(b->compute + b->exposed[COST_IB] + b->exposed[COST_NVLINK] +
                    b->bubble + b->optimizer,
                10.25, 1e-15);
    assert_near(b->step, 10.25, 1e-15);
    assert_int_equal(b->bound, COST_IB);
    b = &r->v.bars[1];
    assert_int_equal(b->family, 1);
    assert_false(b->fits);
    assert_near(b->compute, 6.3, 1e-15);
    assert_near(b->exposed[COST_IB], 0.1, 1e-15);
    assert_near(b->exposed[COST_NVLINK], 0, 1e-15);
    assert_near(b->compute + b->exposed[COST_IB] + b->bubble + b->optimizer,
                6.6, 1e-14);
    assert_near(r->v.steps_max, 12, 1e-15);
    assert_near(r->v.memory_fit_max, 79.21, 1e-12);
    assert_near(r->v.memory_unfit_max, 100, 1e-12);
    util_parts_free(r);
    free(r);
}

/* Styles (issue 18: two sensitivity lines told apart by hue alone were
 * one line to a red-green colour-blind reader): 24 fitting families,
 * fastest first, each with its own (marker, dash), the first six solid in
 * the six hues with markers 0-5, the seventh dashed in the second hue
 * (colour (6 + 1) mod 6 = 1), not the first's blue again; an unfit family
 * grey. */
static void test_figures_styles_not_by_hue_alone(void **state)
{
    static struct util_parts r;
    bool seen[VIEWS_MARKERS][VIEWS_DASHES];
    size_t i;
    (void)state;
    util_parts_init(&r);
    memset(seen, 0, sizeof seen);
    util_parts_families(&r, 25);
    r.v.baseline.family = -1;
    for (i = 0; i < r.rank.nfamilies; i++) {
        r.rank.families_by_step[i] = (long)i;
        r.rank.family[i].best.fits = i < 24;
    }
    figures_colors(&r.v);
    for (i = 0; i < 24; i++) {
        const struct views_family *f = &r.v.family[i];
        assert_false(seen[f->marker][f->dash]);
        seen[f->marker][f->dash] = true;
    }
    assert_int_equal(r.v.family[0].color, 0x0072B2);
    assert_int_equal(r.v.family[0].marker, 0);
    assert_int_equal(r.v.family[0].dash, 0);
    assert_int_equal(r.v.family[5].marker, 5);
    assert_int_equal(r.v.family[5].dash, 0);
    assert_int_equal(r.v.family[6].color, 0xD55E00);
    assert_int_equal(r.v.family[6].marker, 0);
    assert_int_equal(r.v.family[6].dash, 1);
    assert_int_equal(r.v.family[24].color, 0x999999);
    util_parts_free(&r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_styles_not_by_hue_alone),
        cmocka_unit_test(test_figures_baseline_crossovers),
        cmocka_unit_test(test_figures_baseline_curves),
        cmocka_unit_test(test_figures_colours_and_points),
        cmocka_unit_test(test_figures_bars),
        cmocka_unit_test(test_figures_bars_by_hand),
    };
    return cmocka_run_group_tests(tests, util_figures_setup,
                                  util_figures_teardown);
}
