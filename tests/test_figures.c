/*
 * test_figures: the views the figures stage derives, on a report built
 * by hand so that every expected value follows from a few numbers: the
 * Plans sheet's rows, the fastest and the recommended plan, the ties,
 * the baseline's crossovers, curves and sentence, colours, points, bars,
 * the date, the sentence on the speed of light against a published
 * run, and which calibration and stack a validation run's expected step
 * came from. The cluster is tests/data/hw-h800.ini (IB 50 GB/s and 55 us,
 * NVLink 160 GB/s, HBM 79.21 GiB); plans are tests/data/tiny-moe.ini's.
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
#include "figures.h"
#include "stack.h"
#include "terms.h"
#include "test_util.h"

#define GIB 1073741824.0

struct fixture {
    struct model m;
    struct hardware hw;
    struct sweep_file sf; /* zeroed: only its [report] baseline is read */
    struct cost_ctx other;
    struct report r;
};

/* A row whose step is step_s of BF16 compute alone (no bubble, no
 * optimizer), with mem_gib of memory, ib_gb and nv_gb over the links. */
static void make_row(const struct fixture *f,
                     const char *plan,
                     int family,
                     double step_s,
                     double mem_gib,
                     double ib_gb,
                     double nv_gb,
                     struct report_row *row)
{
    memset(row, 0, sizeof *row);
    util_plan(&f->m, &f->hw, plan, &row->plan);
    row->work.bf16_flops = step_s * f->hw.bf16_flops;
    row->work.model_flops = row->work.bf16_flops;
    row->work.ib_bytes = ib_gb * 1e9;
    row->work.ib_calls = ib_gb > 0 ? 1000 : 0;
    row->work.nvlink_bytes = nv_gb * 1e9;
    /* all of it with the micro-batches (none at the step's end) */
    row->work.ib_steady_bytes = row->work.ib_bytes;
    row->work.ib_steady_calls = row->work.ib_calls;
    row->work.nvlink_steady_bytes = row->work.nvlink_bytes;
    row->work.microbatches = 1;
    row->work.tokens = 64 * 1024;
    row->work.gpus = 64;
    row->mem.total = mem_gib * GIB;
    row->mem.weights = mem_gib * GIB;
    row->mem.capacity = f->hw.capacity_bytes;
    row->fits = terms_fits(row->mem.total, row->mem.capacity, 10);
    row->family = family;
    row->step = step_s;
}

/* The family's best plan as figures_families leaves it. */
static void make_best(const struct fixture *f,
                      const struct report_row *row,
                      struct cost_result *c)
{
    memset(c, 0, sizeof *c);
    c->plan = row->plan;
    c->work = row->work;
    c->mem = row->mem;
    c->fits = row->fits;
    cost_times(&row->work, &f->hw, &f->m, row->plan.precision, &c->t);
}

/*
 * Four plans of two families. A (ZeRO-1+PP+EP) fits: 10.0 s with 60 GiB
 * (and 100 GB over IB: 2.055 s, hidden), 10.15 s with 40 GiB (within
 * 2%), 10.5 s with 30 GiB. B (the baseline,
 * ZeRO-3) does not: 10 s of compute, 1000 GB over IB in 1000 calls and
 * 3000 GB over NVLink: IB 1000/50 + 1000 x 55 us = 20.055 s, NVLink
 * 3000/160 = 18.75 s, so 20.055 s, IB-bound.
 */
static int setup(void **state)
{
    static struct fixture f;
    struct report *r = &f.r;
    struct diag d;
    size_t i;
    memset(&f, 0, sizeof f);
    diag_init(&d);
    if (model_load("tests/data/tiny-moe.ini", &f.m, NULL, 0, &d) ||
        hardware_load("tests/data/hw-h800.ini", &f.hw, NULL, 0, &d) ||
        cost_ctx_init(&f.other, &f.m, &f.hw, COMM_FLAT, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    snprintf(f.sf.spec.r_baseline, sizeof f.sf.spec.r_baseline, "ZeRO-3");
    r->m = &f.m;
    r->hw = &f.hw;
    r->sweep = &f.sf;
    r->comm = COMM_TOPO;
    r->generated = 1700000000;
    r->headroom_pct = 10;
    r->tie_pct = 2;
    r->plans_sheet = 2;
    r->nsens_ib = 3;
    r->sens_ib_gbps[0] = 12.5;
    r->sens_ib_gbps[1] = 50;
    r->sens_ib_gbps[2] = 400;
    r->nsens_nv = 2;
    r->sens_nv_gbps[0] = 160;
    r->sens_nv_gbps[1] = 900;
    r->rows = calloc(4, sizeof *r->rows);
    if (!r->rows)
        return -1;
    r->nrows = 4;
    make_row(&f, "gpus=64 pp=2 ep=8 zero=1 mbs=1 gbs=64", 0, 10.0, 60, 100, 0,
             &r->rows[0]);
    make_row(&f, "gpus=64 pp=2 ep=8 zero=1 mbs=2 gbs=64", 0, 10.15, 40, 0, 0,
             &r->rows[1]);
    make_row(&f, "gpus=64 pp=4 ep=8 zero=1 mbs=1 gbs=64", 0, 10.5, 30, 0, 0,
             &r->rows[2]);
    make_row(&f, "gpus=64 zero=3 mbs=1 gbs=64", 1, 10.0, 500, 1000, 3000,
             &r->rows[3]);
    r->rows[3].step = 20.055;
    r->valid = r->enumerated = 4;
    r->fitting = 3;
    r->nfamilies = 2;
    snprintf(r->family[0].name, sizeof r->family[0].name, "ZeRO-1+PP+EP");
    snprintf(r->family[1].name, sizeof r->family[1].name, "ZeRO-3");
    for (i = 0; i < 2; i++) {
        struct report_family *fam = &r->family[i];
        make_best(&f, &r->rows[i ? 3 : 0], &fam->best);
        fam->best_other = fam->best;
        fam->has_best = true;
        fam->plans = i ? 1 : 3;
        fam->fitting = i ? 0 : 3;
        fam->has_lightest = true;
        fam->lightest = r->rows[i ? 3 : 2].plan;
        fam->lightest_mem = r->rows[i ? 3 : 2].mem;
        r->families_by_step[i] = (long)i;
    }
    /* the flat model calls the baseline NVLink-bound */
    r->family[1].best_other.t.bound = COST_NVLINK;
    diag_init(&d);
    if (figures_views(r, &f.other, &d) != STATUS_OK) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    report_free(&f->r);
    cost_ctx_release(&f->other);
    hardware_release(&f->hw);
    model_release(&f->m);
    return 0;
}

/* The sheet: the two fitting plans the limit allows, then the
 * baseline's best; the third fitting plan is left out. */
static void test_figures_sheet_rows(void **state)
{
    const struct report *r = &((struct fixture *)*state)->r;
    assert_int_equal(r->nsheet, 3);
    assert_int_equal(r->sheet[0], 0);
    assert_int_equal(r->sheet[1], 1);
    assert_int_equal(r->sheet[2], 3);
    assert_int_equal(r->sheet_left_out, 1);
    assert_int_equal(r->family[0].sheet_row, 0);
    assert_int_equal(r->family[1].sheet_row, 2);
    assert_non_null(strstr(r->note_left_out, "Plans shows 3 plans"));
}

/* Fastest 10.0 s with 79.21 - 60 = 19.21 GiB free; 10.15 s is within
 * 2% (10.2 s) with 39.21 GiB: the recommended plan. */
static void test_figures_recommended_among_ties(void **state)
{
    const struct report *r = &((struct fixture *)*state)->r;
    const struct report_headline *h = &r->headline;
    assert_int_equal(r->sheet_best, 0);
    assert_int_equal(r->sheet_recommended, 1);
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

/* The baseline's crossovers (by hand, IB 50 GB/s with 55 us latency):
 * IB meets its 10 s of compute at 1000 GB / (10 - 1000 x 55 us) =
 * 100.553 GB/s, where NVLink (18.75 s) still binds; NVLink meets it at
 * 3000 / 10 = 300 GB/s, where IB (20.055 s) binds. */
static void test_figures_baseline_crossovers(void **state)
{
    const struct report *r = &((struct fixture *)*state)->r;
    const struct report_family *b = &r->family[1];
    assert_int_equal(r->baseline.family, 1);
    assert_int_equal(b->cross_ib.state, REPORT_CROSS_AT);
    assert_near(b->cross_ib.gbps, 1000 / (10 - 1000 * 55e-6), 1e-12);
    assert_int_equal(b->cross_ib.then_bound, COST_NVLINK);
    assert_true(b->cross_ib.in_range);
    assert_int_equal(b->cross_nv.state, REPORT_CROSS_AT);
    assert_near(b->cross_nv.gbps, 300, 1e-12);
    assert_int_equal(b->cross_nv.then_bound, COST_IB);
    /* the fitting family moves no NVLink bytes: already below compute */
    assert_int_equal(r->family[0].cross_nv.state, REPORT_CROSS_ALREADY);
    /* the charts draw no crossover line: the baseline never turns
     * compute-bound on one link alone */
    assert_true(r->sens[0].mark_gbps == 0);
    assert_string_equal(r->sens[0].line1, "ZeRO-3: no IB bandwidth alone "
                                          "makes it compute-bound");
    assert_non_null(strstr(r->sens[0].line2, "NVLink still binds"));
    assert_non_null(strstr(r->sens[1].line2, "IB still binds"));
}

/* None of the baseline fits: its curves are its fastest plan re-timed.
 * At 12.5 GB/s IB is 1000/12.5 + 0.055 = 80.055 s; at 400 GB/s it is
 * 2.555 s and NVLink's 18.75 s binds. */
static void test_figures_baseline_curves(void **state)
{
    const struct report *r = &((struct fixture *)*state)->r;
    const struct report_family *b = &r->family[1];
    assert_true(b->sens_unfit);
    assert_near(b->sens_ib_step[0], 80.055, 1e-12);
    assert_int_equal(b->sens_ib_bound[0], COST_IB);
    assert_near(b->sens_ib_step[2], 18.75, 1e-12);
    assert_int_equal(b->sens_ib_bound[2], COST_NVLINK);
    /* NVLink at 900 GB/s: 3.33 s; IB's 20.055 s binds */
    assert_near(b->sens_nv_step[1], 20.055, 1e-12);
    assert_int_equal(r->sens[0].nfamilies, 1); /* A has no fitting curve */
    assert_int_equal(r->sens[0].family[0], 1);
}

/* Why not the baseline: 20.055 / 10.15 = 1.976x slower, 500 GiB of the
 * 71.289 a plan may use, IB-bound here and NVLink-bound under flat. */
static void test_figures_baseline_sentence(void **state)
{
    const struct report *r = &((struct fixture *)*state)->r;
    const struct report_baseline *b = &r->baseline;
    assert_false(b->fits);
    assert_near(b->slowdown, 20.055 / 10.15, 1e-12);
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

/* Colours: the fitting family first in the palette, the baseline black;
 * points: the three fitting plans in one block, at the BF16 rate (their
 * work is BF16 compute alone), the first 10 s x rate / 100 GB. */
static void test_figures_colours_and_points(void **state)
{
    const struct report *r = &((struct fixture *)*state)->r;
    double rate = r->hw->bf16_flops / 1e12;
    assert_int_equal(r->family[0].color, 0x0072B2);
    assert_int_equal(r->family[1].color, 0x000000);
    assert_int_equal(r->npoints, 3);
    assert_int_equal(r->nblocks, 1);
    assert_int_equal(r->blocks[0].family, 0);
    assert_true(r->blocks[0].labelled);
    /* its IB, 100 GB / 50 GB/s + 1000 calls x 55 us = 2.055 s, runs on
     * 20 of 132 SMs while compute does: the step is 10 + 2.055 x 20/132 */
    assert_near(r->points[0].y, rate * 10 / (10 + 2.055 * 20 / 132), 1e-12);
    assert_near(r->points[0].x[0], 10 * rate * 1e12 / 100e9, 1e-12);
    assert_true(r->points[1].x[0] == 0); /* no IB bytes */
    /* IB roofline: BF16 achievable ridge at rate / 50 GB/s */
    assert_near(r->roofline[0].roof[r->roofline[0].nroofs - 1].ridge,
                rate * 1e12 / 50e9, 1e-12);
    assert_true(r->roofline[0].xlo <= r->roofline[0].roof[0].ridge);
    assert_true(r->roofline[0].yhi_decade >= r->roofline[0].yhi);
}

/* Bars: the fitting family, then the baseline; the axis holds both whole
 * (20.055 <= 2.5 x 10) with the baseline's serial step, 10 + 20.055 +
 * 18.75 s. */
static void test_figures_bars(void **state)
{
    const struct report *r = &((struct fixture *)*state)->r;
    assert_int_equal(r->nbars, 2);
    assert_int_equal(r->nbars_fit, 1);
    assert_int_equal(r->bars[1].family, 1);
    assert_near(r->bars[1].exposed[COST_IB], 10.055, 1e-12);
    assert_near(r->steps_max, 10 + 20.055 + 18.75, 1e-12);
    assert_near(r->memory_unfit_max, 500, 1e-12);
    assert_near(r->memory_fit_max, 79.21, 1e-12);
}

/* 1700000000 s = 19675 days + 80000 s: 2023-11-14 22:13:20 UTC. */
static void test_figures_date(void **state)
{
    const struct report *r = &((struct fixture *)*state)->r;
    assert_string_equal(r->when, "2023-11-14 22:13 UTC");
}

/* A published run on these inputs: the sentence gives measured over the
 * speed of light, 19.926 / 7.655 = 2.603 (DeepSeek-V3's numbers). */
static void test_figures_difference_from_published_run(void **state)
{
    struct fixture *f = *state;
    struct report r = f->r; /* shallow: rows stay the fixture's */
    struct diag d;
    r.sheet = NULL;
    r.points = NULL;
    r.roof_pick = NULL;
    r.nvalidations = 1;
    memset(&r.validation[0], 0, sizeof r.validation[0]);
    snprintf(r.validation[0].name, sizeof r.validation[0].name, "run");
    r.validation[0].current = true;
    r.validation[0].measured_step_s = 19.926;
    r.validation[0].predicted.t.step = 7.655;
    diag_init(&d);
    assert_int_equal(figures_views(&r, &f->other, &d), STATUS_OK);
    assert_int_equal(r.published, 0);
    assert_true(r.headline.has_ratio);
    assert_near(r.headline.measured_over_sol, 19.926 / 7.655, 1e-12);
    assert_non_null(strstr(r.headline.difference, "2.60x its speed of light"));
    free(r.sheet);
    free(r.points);
    free(r.roof_pick);
}

/* A validation run on these inputs names the calibration and the stack
 * its expected step came from; without them, none. */
static void test_figures_validations_name_expected_inputs(void **state)
{
    struct fixture *f = *state;
    struct report *r = calloc(1, sizeof *r);
    struct validation_run run;
    struct validation_inputs in;
    struct calibration cal;
    struct stack st;
    struct hardware hw = f->hw; /* shallow: with a calibration */
    struct cost_ctx ctx, other;
    struct diag d;
    const struct report_validation *v;
    assert_non_null(r);
    diag_init(&d);
    if (calibration_load("tests/data/snap/calibration/h800.ini", &cal, NULL, 0,
                         &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", &st, NULL, 0, &d))
        fail_msg("%s", d.msg);
    hw.cal = &cal;
    memset(&run, 0, sizeof run);
    snprintf(run.name, sizeof run.name, "run");
    snprintf(run.plan, sizeof run.plan,
             "gpus=64 pp=2 ep=8 zero=1 mbs=1 "
             "gbs=64");
    run.measured_step_s = 20;
    memset(&in, 0, sizeof in);
    in.current = true;
    in.m = &f->m;
    in.hw = &hw;
    in.stack = &st;
    r->m = &f->m;
    r->hw = &hw;
    r->headroom_pct = 10;
    if (cost_ctx_init(&ctx, &f->m, &hw, COMM_TOPO, &d) ||
        cost_ctx_init(&other, &f->m, &hw, COMM_FLAT, &d))
        fail_msg("%s", d.msg);
    ctx.stack = other.stack = &st;
    assert_int_equal(figures_validations(r, &run, &in, 1, &ctx, &other, &d),
                     STATUS_OK);
    assert_int_equal(r->nvalidations, 1);
    v = &r->validation[0];
    assert_true(v->predicted.work.x.known);
    assert_string_equal(v->calibration_path,
                        "tests/data/snap/calibration/h800.ini");
    assert_string_equal(v->stack_path,
                        "tests/data/snap/stacks/deepseek-hai.ini");
    /* no calibration, no stack: no expected step, no files named */
    hw.cal = NULL;
    in.stack = NULL;
    r->nvalidations = 0;
    assert_int_equal(figures_validations(r, &run, &in, 1, &ctx, &other, &d),
                     STATUS_OK);
    assert_false(v->predicted.work.x.known);
    assert_string_equal(v->calibration_path, "");
    assert_string_equal(v->stack_path, "");
    cost_ctx_release(&ctx);
    cost_ctx_release(&other);
    stack_release(&st);
    calibration_release(&cal);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_figures_sheet_rows),
        cmocka_unit_test(test_figures_recommended_among_ties),
        cmocka_unit_test(test_figures_baseline_crossovers),
        cmocka_unit_test(test_figures_baseline_curves),
        cmocka_unit_test(test_figures_baseline_sentence),
        cmocka_unit_test(test_figures_colours_and_points),
        cmocka_unit_test(test_figures_bars),
        cmocka_unit_test(test_figures_date),
        cmocka_unit_test(test_figures_difference_from_published_run),
        cmocka_unit_test(test_figures_validations_name_expected_inputs),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
