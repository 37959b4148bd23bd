/*
 * test_plot_summary: the summary card's placeholders and data from a
 * report written out by hand (no time model): the figures to three
 * significant digits, the plan and the verdict wrapped at a space, the
 * waterfall's bars end to end, the fitting plans' points and the
 * recommended one, and a card without a calibration.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_summary.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
    struct util_parts r;
    struct views_point pts[3];
    struct plot_template_vars v;
    struct plot_text dat;
};

/*
 * By hand: the speed of light 9.397 s, 25.61 days, $2.5204M; expected
 * 16.129 s, 43.95 days, $4.3251M. Three significant digits, trailing
 * zeros kept: "9.40", "25.6", "2.52"; "16.1", "44.0" (43.95 rounds up),
 * "4.33". Waterfall: 9.397 s, then +1.412 and -0.4 s ("-0.400 s"):
 * 9.397 -> 10.809 -> 10.409 s, the expected step. The range: the
 * validation runs took 0.9 to 1.2x their expected step: 14.5 to 19.4 s,
 * 39.6 to 52.7 days, $3.89M to $5.19M.
 */
static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct views_headline *h;
    struct views_waterfall *w;
    if (!f)
        return -1;
    util_parts_init(&f->r);
    util_parts_families(&f->r, RANKING_FAMILY_KEYS); /* room; none yet */
    util_parts_charts(&f->r, RANKING_FAMILY_KEYS);
    f->r.rank.nfamilies = 0;
    snprintf(f->m.spec.name, sizeof f->m.spec.name, "Model-X");
    snprintf(f->hw.spec.gpu_name, sizeof f->hw.spec.gpu_name, "GPU-Y");
    f->hw.spec.gpus = 2048;
    f->r.in.m = &f->m;
    f->r.in.hw = &f->hw;
    h = &f->r.v.headline;
    h->any = h->fits = h->has_expected = true;
    snprintf(h->words, sizeof h->words,
             "TP 2 x PP 16 (zero-bubble (ZB1P)) x EP 32, ZeRO-1 over DP 64, "
             "FP8, no recomputation, micro-batch 1, global batch 15360 "
             "sequences");
    h->plan.plan.gpus = 2048; /* TP 2 x PP 16 x DP 64 */
    h->why = strdup("Compute-bound: short");
    h->sol.step_s = 9.397;
    h->sol.days = 25.61;
    h->sol.cost_usd = 2.5204e6;
    h->expected.step_s = 16.129;
    h->expected.days = 43.95;
    h->expected.cost_usd = 4.3251e6;
    h->memory_gib = 60.43;
    h->has_range = true;
    h->range_lo = 0.9;
    h->range_hi = 1.2;
    h->range_runs = 6;
    h->range_words = strdup("the span of its scenarios: the published runs' "
                            "band 0.90 to 1.20x");
    h->capacity_gib = 79.21;
    w = &f->r.v.waterfall[0];
    w->known = true;
    w->sol = 9.397;
    w->effects = 2;
    w->cum[0] = 10.809;
    w->cum[1] = 10.409;
    w->expected = 10.409;
    /* two plans with IB bytes, one without (not drawn over IB) */
    f->pts[0].x[0] = 1e4;
    f->pts[0].y = 500;
    f->pts[1].x[0] = 0;
    f->pts[1].y = 600;
    f->pts[2].x[0] = 2e5;
    f->pts[2].y = 800;
    f->r.v.points = f->pts;
    f->r.v.npoints = 3;
    f->r.v.has_recommended_point = true;
    f->r.v.recommended_x[0] = 2e5;
    f->r.v.recommended_y = 800;
    f->r.v.roofline[0].xlo = 100;
    f->r.v.roofline[0].xhi = 1e7;
    f->r.v.roofline[0].ylo = 1;
    f->r.v.roofline[0].yhi_decade = 1e4;
    views_finish(&f->r.v); /* the sentences not set: "" */
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    plot_template_vars_release(&f->v);
    plot_text_release(&f->dat);
    f->r.v.points = NULL; /* the fixture's own */
    util_parts_free(&f->r);
    free(f);
    return 0;
}

/* With --gpus the card details one size of several: its title names the
 * cluster its plan is for (4096 GPUs here), not the hardware file's. */
static void test_plot_summary_title_names_the_plans_size(void **state)
{
    struct fixture *f = *state;
    f->r.v.headline.plan.plan.gpus = 4096;
    plot_summary_fill(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "TITLE"),
                        "'Model-X on 4096 \xC3\x97 GPU-Y: planning summary'");
}

static void test_plot_summary_words_by_hand(void **state)
{
    struct fixture *f = *state;
    assert_true(plot_summary_wanted(&f->r.v));
    plot_summary_fill(&f->r.v, &f->v, &f->dat);
    assert_false(f->dat.nomem);
    assert_string_equal(util_plot_var(&f->v, "TITLE"),
                        "'Model-X on 2048 \xC3\x97 GPU-Y: planning summary'");
    assert_string_equal(util_plot_var(&f->v, "EXPECTED"),
                        "'Expected: 16.1 s per step, 44.0 days, $4.33M for "
                        "the token budget'");
    assert_string_equal(util_plot_var(&f->v, "SOL"),
                        "'Speed of light (the floor no run beats): 9.40 s "
                        "per step, 25.6 days, $2.52M for the token budget'");
    /* "Recommended: " + the words is 147 bytes: cut at the last space
     * before byte 100, after "no recomputation," */
    assert_string_equal(util_plot_var(&f->v, "PLAN"),
                        "'Recommended: TP 2 x PP 16 (zero-bubble (ZB1P)) x "
                        "EP 32, ZeRO-1 over DP 64, FP8, no recomputation,'");
    assert_string_equal(util_plot_var(&f->v, "PLAN2"),
                        "'micro-batch 1, global batch 15360 sequences'");
    assert_string_equal(util_plot_var(&f->v, "RANGE"),
                        "'Range: 14.5 to 19.4 s, 39.6 to 52.7 days, $3.89M "
                        "to $5.19M (the span of its scenarios: the published "
                        "runs'' band 0.90 to 1.20x)'");
    assert_string_equal(util_plot_var(&f->v, "VERDICT1"),
                        "'Compute-bound: short'");
    assert_string_equal(util_plot_var(&f->v, "VERDICT2"), "''");
    assert_string_equal(util_plot_var(&f->v, "MEMORY"),
                        "'Memory: 60.4 of 79.2 GiB per GPU on its heaviest "
                        "pipeline rank (fits).'");
}

/* The card's range line fits its width (RANGE_CHARS, 170): a range's
 * words too long for it are cut at their first clause's end, then at
 * their first phrase; the choice over the fastest plan has its own line.
 * The default report's words (its stdout), 197 bytes with the numbers
 * up to the first ";", give "(the span of its scenarios)". */
static void test_plot_summary_range_fits_the_card(void **state)
{
    struct fixture *f = *state;
    struct views_headline *h = &f->r.v.headline;
    free(h->range_words);
    h->range_words = strdup(
        "the span of its scenarios: the 21 published runs on its "
        "calibration's group (hopper-132sm/megatron-class), 0.83 to 1.25x "
        "their expected step; the DP overlaps off 19.0 s; flat communication "
        "model 19.5 s");
    free(h->choice);
    h->choice = strdup("Chosen over the fastest expected plan.");
    assert_non_null(h->range_words);
    assert_non_null(h->choice);
    plot_summary_fill(&f->r.v, &f->v, &f->dat);
    assert_false(f->dat.nomem);
    assert_string_equal(util_plot_var(&f->v, "RANGE"),
                        "'Range: 14.5 to 19.4 s, 39.6 to 52.7 days, $3.89M "
                        "to $5.19M (the span of its scenarios)'");
    assert_string_equal(util_plot_var(&f->v, "CHOICE"),
                        "'Chosen over the fastest expected plan.'");
}

/* Issue 37: whose recipe the card names, and the wall-clock days and
 * energy. By hand, as test_goodput's Llama 3 405B: 405e9 parameters at 14
 * bytes on 16,384 GPUs, 19.73 failures per 1M GPU-h, 2000 GB/s, 10 min:
 * share 0.924005; 43.95 / 0.924005 = 47.565 days (39.555 and 52.74 give
 * 42.808 and 57.078), x 24 x 16384 x $2 = $37.406M; at 700 W and PUE 1:
 * 47.565 x 24 x 16384 x 700 / 1e6 = 13,092 MWh. */
static void test_plot_summary_recipe_and_goodput(void **state)
{
    struct fixture *f = *state;
    f->m.spec.seq_len = 4096;
    f->m.spec.tokens = 14.8e12;
    f->m.spec.weight_bytes = 2;
    f->m.spec.master_bytes = 4;
    f->m.spec.moment_bytes = 4;
    f->m.params_total = 405e9;
    f->r.v.headline.plan.plan.gbs = 15360;
    f->r.v.headline.plan.plan.gpus = 16384;
    f->hw.spec.gpu_hour_usd = 2;
    f->hw.spec.gpus_per_node = 8;
    f->hw.spec.failures_per_mgpu_hour = 19.73;
    f->hw.spec.storage_gbps = 2000;
    f->hw.spec.restart_min = 10;
    f->hw.spec.board_w = 700;
    f->hw.spec.pue = 1;
    f->r.in.recipe_json = f->r.in.recipe_default = true;
    plot_summary_fill(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "RECIPE"),
                        "'Recipe: BORROWED default recipe, not the model''s "
                        "own: 15,360 x 4,096 tokens per step, 14.8T tokens'");
    assert_string_equal(util_plot_var(&f->v, "GOODPUT"),
                        "'Wall-clock: 47.6 days (42.8 to 57.1), $37.4M with "
                        "failures and checkpoints (92.4% effective "
                        "training); energy 13,092 MWh'");
    plot_template_vars_release(&f->v);
    plot_text_release(&f->dat);
    f->r.in.recipe_default = false;
    plot_summary_fill(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "RECIPE"),
                        "'Recipe: the -t training file: 15,360 x 4,096 "
                        "tokens per step, 14.8T tokens'");
}

static void test_plot_summary_data_by_hand(void **state)
{
    struct fixture *f = *state;
    plot_summary_fill(&f->r.v, &f->v, &f->dat);
    /* the waterfall: the floor, two effects end to end, the answer */
    assert_non_null(strstr(f->dat.p, "0 4 0 9.397 \"9.40 s\"\n"
                                     "1 3 9.397 10.809 \"+1.41 s\"\n"
                                     "1 2 10.809 10.409 \"-0.400 s\"\n"
                                     "2 1 0 10.409 \"10.4 s\"\n\n\n"));
    assert_string_equal(util_plot_var(&f->v, "HAVE_WF"), "1");
    assert_string_equal(util_plot_var(&f->v, "NROWS"), "4");
    /* 10.809 s the widest bar: x to 1.2 x that, rounded up nicely */
    assert_true(atof(util_plot_var(&f->v, "WF_XMAX")) >= 1.2 * 10.809);
    /* the plans over IB: the one without IB bytes is left out */
    assert_non_null(strstr(f->dat.p, "10000 500\n200000 800\n\n\n"));
    assert_null(strstr(f->dat.p, " 600\n"));
    assert_non_null(strstr(f->dat.p, "# block 2: the recommended plan\n"
                                     "200000 800\n"));
    assert_string_equal(util_plot_var(&f->v, "HAVE_POINT"), "1");
}

/* No calibration: no waterfall (one empty row keeps block 0 in place)
 * and the expected line says why. */
static void test_plot_summary_without_calibration(void **state)
{
    struct fixture *f = *state;
    f->r.v.headline.has_expected = false;
    f->r.v.waterfall[0].known = false;
    plot_summary_fill(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "HAVE_WF"), "0");
    assert_string_equal(util_plot_var(&f->v, "EXPECTED"),
                        "'Expected: not computed (no calibration for this "
                        "GPU)'");
    assert_non_null(strstr(f->dat.p, "0 1 0 0 \"\"\n\n\n"));
    f->r.v.headline.any = false;
    assert_false(plot_summary_wanted(&f->r.v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plot_summary_recipe_and_goodput,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_summary_range_fits_the_card,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_summary_title_names_the_plans_size, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_summary_words_by_hand, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plot_summary_data_by_hand, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plot_summary_without_calibration,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
