/*
 * test_plot_scale: the "scale" chart's data and placeholders from a
 * hand-made scale of three sizes of Model-X on GPU-Y at $2 a GPU-hour,
 * threshold 90%:
 *   64 GPUs: 1,000 tokens/s per GPU; compute days 20 (18 to 25),
 *     wall-clock 21 (19 to 26), cost 21 x 24 x 64 x $2 = $64,512 ($58,368
 *     to $79,872);
 *   128 GPUs: no plan evaluated;
 *   256 GPUs: 850 tokens/s per GPU, 850 / 1000 = 85% of the smallest's,
 *     under 90%: the first size under; compute 5 (4.5 to 6.25), wall-clock
 *     5.5 (4.95 to 6.875), cost 5.5 x 24 x 256 x $2 = $67,584 ($60,825.6 to
 *     $84,480).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_scale.h"
#include "scale.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
    struct util_parts r;
    struct scale s;
    struct plot_template_vars v;
    struct plot_text dat;
};

/* A size whose plan fits: its figures as scale_size_of would give them. */
static void size(struct scale_size *z,
                 long gpus,
                 double tps,
                 const double days[3],
                 const double wall[3])
{
    double usd_day = 24 * (double)gpus * 2;
    memset(z, 0, sizeof *z);
    z->gpus = gpus;
    z->any = z->fits = z->expected = true;
    z->tokens_per_s_per_gpu = tps;
    z->f.g.failures = true;
    z->f.g.share = days[0] / wall[0];
    z->f.range = true;
    z->f.days = days[0];
    z->f.days_lo = days[1];
    z->f.days_hi = days[2];
    z->f.wall_days = wall[0];
    z->f.wall_lo = wall[1];
    z->f.wall_hi = z->wall_hi = wall[2];
    z->f.wall_cost = wall[0] * usd_day;
    z->f.wall_cost_lo = wall[1] * usd_day;
    z->f.wall_cost_hi = z->cost_hi = wall[2] * usd_day;
}

static int setup(void **state)
{
    static const double d64[3] = {20, 18, 25}, w64[3] = {21, 19, 26};
    static const double d256[3] = {5, 4.5, 6.25}, w256[3] = {5.5, 4.95, 6.875};
    struct fixture *f = calloc(1, sizeof *f);
    struct scale_size z[3];
    if (!f)
        return -1;
    util_parts_init(&f->r);
    snprintf(f->m.spec.name, sizeof f->m.spec.name, "Model-X");
    snprintf(f->hw.spec.gpu_name, sizeof f->hw.spec.gpu_name, "GPU-Y");
    f->hw.spec.gpus = 2048; /* the hardware file's: not a size here */
    f->hw.spec.gpu_hour_usd = 2;
    f->r.in.m = &f->m;
    f->r.in.hw = &f->hw;
    size(&z[0], 256, 850, d256, w256); /* any order: scale_of sorts */
    size(&z[1], 64, 1000, d64, w64);
    memset(&z[2], 0, sizeof z[2]);
    z[2].gpus = 128;
    if (!scale_of(z, 3, 0.9, 0, 0, &f->s))
        return -1;
    f->r.v.scale = &f->s;
    views_finish(&f->r.v); /* the sentences not set: "" */
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    plot_template_vars_release(&f->v);
    plot_text_release(&f->dat);
    f->r.v.scale = NULL;
    scale_free(&f->s);
    util_parts_free(&f->r);
    free(f);
    return 0;
}

/* A size per row, smallest first, by hand (the header above); the size
 * without a plan a comment. */
static void test_plot_scale_data_by_hand(void **state)
{
    struct fixture *f = *state;
    const char *rows;
    assert_true(plot_scale_wanted(&f->r.v));
    plot_scale_fill(&f->r.v, &f->v, &f->dat);
    assert_false(f->dat.nomem);
    rows = strstr(f->dat.p, "\n64 ");
    assert_non_null(rows);
    assert_string_equal(rows + 1,
                        "64 20 18 25 21 19 26 64512 58368 79872 100 0\n"
                        "# 128 GPUs: no plan fits\n"
                        "256 5 4.5 6.25 5.5 4.95 6.875 67584 60825.6 84480 "
                        "85 1\n");
}

/* The x tick labels are the sizes, all three; the axes' ends and units;
 * the threshold and the first size under it, in words. */
static void test_plot_scale_placeholders_by_hand(void **state)
{
    struct fixture *f = *state;
    plot_scale_fill(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "TITLE"),
                        "'Model-X on 64 to 256 \xC3\x97 GPU-Y: how many GPUs'");
    assert_string_equal(util_plot_var(&f->v, "XTICS"),
                        "set xtics ('64' 64, '128' 128, '256' 256)\n");
    /* the highest error bar x 1.2 rounded up (plot_format_nice_ceil):
     * 26 x 1.2 = 31.2 -> 40 days; $84,480 -> $K, 84.48 x 1.2 -> 120 */
    assert_string_equal(util_plot_var(&f->v, "DAYS_MAX"), "40");
    assert_string_equal(util_plot_var(&f->v, "COST_DIV"), "1000");
    assert_string_equal(util_plot_var(&f->v, "COST_MAX"), "120");
    assert_string_equal(util_plot_var(&f->v, "COST_LABEL"),
                        "'cost, $K (wall-clock)'");
    assert_string_equal(util_plot_var(&f->v, "EFF_MAX"), "120");
    assert_string_equal(util_plot_var(&f->v, "THRESHOLD"), "90");
    assert_string_equal(util_plot_var(&f->v, "UNDER_LABEL"),
                        "'first under 90%: 256 GPUs'");
    assert_string_equal(util_plot_var(&f->v, "SUB3"),
                        "'Scaling efficiency (tokens/s per GPU against 64 "
                        "GPUs'') falls under 90% (report.scale_efficiency) "
                        "from 256 GPUs.'");
    /* 20/21 = 95.2% and 5/5.5 = 90.9% effective training */
    assert_non_null(strstr(util_plot_var(&f->v, "SUB2"),
                           "(90.9% to 95.2% effective training"));
}

/* One size, or none that fits: no chart. */
static void test_plot_scale_wanted(void **state)
{
    struct fixture *f = *state;
    f->s.n = 1;
    assert_false(plot_scale_wanted(&f->r.v));
    f->s.n = 3;
    f->s.size[0].fits = f->s.size[2].fits = false;
    assert_false(plot_scale_wanted(&f->r.v));
    f->s.size[2].fits = true;
    assert_true(plot_scale_wanted(&f->r.v));
    f->r.v.scale = NULL;
    assert_false(plot_scale_wanted(&f->r.v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plot_scale_data_by_hand, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plot_scale_placeholders_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_scale_wanted, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
