/*
 * test_plot_waterfall: the waterfall chart's data file and placeholders
 * from waterfalls written out by hand (no time model): each bar starts
 * where the one above ended, the effects sum to expected - speed of
 * light, an effect that saves time runs leftwards, and the sentences
 * carry the hand-computed figures.
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

#include "plot_waterfall.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
    struct util_parts r;
    struct plot_template_vars v;
    struct plot_text dat;
};

/* One row of the data file. */
struct row {
    double y, start, end, seconds, share;
    int kind;
};

/*
 * The recommended plan, by hand: speed of light 10 s; the effects add
 * 1.5, -0.8 (a shape faster than the achievable rate), 2.0, 0.5, 0 (host
 * launches hidden), 0 and 1.2 s, so the step runs 10 -> 11.5 -> 10.7 ->
 * 12.7 -> 13.2 -> 13.2 -> 13.2 -> 14.4 s: expected 14.4 s, a gap of 4.4 s,
 * elementwise (+2.0 s, 2.0 / 4.4 = 45.5% of it) the largest.
 */
static const double sol0 = 10,
                    add0[EXPECTED_EFFECTS] = {1.5, -0.8, 2.0, 0.5, 0, 0, 1.2};
/* The published run: 9 s, then +3, +1, -0.5, +2, 0, +0.2, +0.1: 14.8 s
 * expected against 12 s measured (14.8 / 12 - 1 = +23%). */
static const double sol1 = 9,
                    add1[EXPECTED_EFFECTS] = {3, 1, -0.5, 2, 0, 0.2, 0.1};

/* The hand-made waterfalls have the seven effects a report shows with the
 * stack's factors neutral (no --calibrate): nine rows a panel. */
#define ROWS (EXPECTED_FACTORS + 2)

static void fill(struct views_waterfall *w,
                 double sol,
                 const double add[EXPECTED_EFFECTS],
                 double gap,
                 int largest)
{
    double cum = sol;
    int k;
    memset(w, 0, sizeof *w);
    w->known = true;
    w->sol = sol;
    w->effects = EXPECTED_FACTORS;
    for (k = 0; k < EXPECTED_EFFECTS; k++) {
        cum += add[k];
        w->add[k] = add[k];
        w->cum[k] = cum;
        w->share[k] = add[k] / gap;
    }
    w->expected = cum;
    w->largest = largest;
    w->plan.gpus = 2048;
    w->plan.tp = w->plan.cp = w->plan.vpp = w->plan.mbs = 1;
    w->plan.pp = 16;
    w->plan.ep = 64;
    w->plan.zero = 1;
    w->plan.schedule = PLAN_DUALPIPE;
    w->plan.gbs = 15360;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
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
    snprintf(f->r.v.headline.plan.family, sizeof f->r.v.headline.plan.family,
             "ZeRO-1+PP+EP");
    fill(&f->r.v.waterfall[0], sol0, add0, 4.4, 2);
    fill(&f->r.v.waterfall[1], sol1, add1, 5.8, 0);
    f->r.v.waterfall[1].measured = 12;
    snprintf(f->r.v.waterfall[1].name, sizeof f->r.v.waterfall[1].name,
             "Published run Z");
    views_finish(&f->r.v); /* the sentences not set: "" */
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    plot_template_vars_release(&f->v);
    plot_text_release(&f->dat);
    util_parts_free(&f->r);
    free(f);
    return 0;
}

/* The rows of data block `block` (blocks end at a blank line pair). */
static size_t rows(const char *dat, int block, struct row *out, size_t max)
{
    const char *p = dat;
    size_t n = 0;
    int b = 0;
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);
        if (len == 0) {
            if (eol && eol[1] == '\n') { /* two blank lines: next block */
                b++;
                p = eol + 2;
                continue;
            }
        } else if (p[0] != '#' && b == block && n < max) {
            struct row *r = &out[n];
            if (sscanf(p, "%lf %lf %lf %lf %lf %d", &r->y, &r->start, &r->end,
                       &r->seconds, &r->share, &r->kind) != 6)
                fail_msg("bad row: %.*s", (int)len, p);
            n++;
        }
        p = eol ? eol + 1 : p + len;
    }
    return n;
}

/* The bars of one block against the hand-made waterfall. */
static void check_block(const char *dat,
                        int block,
                        double sol,
                        const double add[EXPECTED_EFFECTS],
                        double expected)
{
    struct row r[ROWS + 1];
    double sum = 0, last = sol;
    int k;
    assert_int_equal(rows(dat, block, r, ROWS + 1), ROWS);
    /* the speed of light: from 0, at the top */
    assert_near(r[0].y, ROWS, 1e-12);
    assert_near(r[0].start, 0, 1e-12);
    assert_near(r[0].end, sol, 1e-12);
    assert_int_equal(r[0].kind, 0);
    for (k = 0; k < EXPECTED_FACTORS; k++) {
        const struct row *e = &r[1 + k];
        assert_near(e->y, ROWS - 1 - k, 1e-12);
        assert_int_equal(e->kind, 1);
        /* floating: it starts where the bar above ended */
        assert_near(e->start, last, 1e-12);
        assert_near(e->seconds, add[k], 1e-10);
        assert_near(e->end - e->start, add[k], 1e-9);
        sum += e->seconds;
        last = e->end;
    }
    /* the expected step: from 0, at the bottom, where the effects end */
    assert_near(r[ROWS - 1].y, 1, 1e-12);
    assert_int_equal(r[ROWS - 1].kind, 2);
    assert_near(r[ROWS - 1].start, 0, 1e-12);
    assert_near(r[ROWS - 1].end, expected, 1e-12);
    assert_near(last, expected, 1e-12);
    assert_near(sum, expected - sol, 1e-10);
}

static void test_plot_waterfall_fill_bars_by_hand(void **state)
{
    struct fixture *f = *state;
    struct row r[ROWS];
    assert_true(plot_waterfall_wanted(&f->r.v));
    plot_waterfall_fill(&f->r.v, &f->v, &f->dat);
    assert_false(f->dat.nomem);
    check_block(f->dat.p, 0, 10, add0, 14.4);
    check_block(f->dat.p, 1, 9, add1, 14.8);
    /* attention saves 0.8 s: its bar runs leftwards, 11.5 -> 10.7 s, and
     * is -0.8 / 4.4 = -18.2% of the gap */
    rows(f->dat.p, 0, r, ROWS);
    assert_near(r[2].start, 11.5, 1e-12);
    assert_near(r[2].end, 10.7, 1e-12);
    assert_near(r[2].share, -0.8 / 4.4, 1e-10); /* "%.12g" */
    /* the plans are named for `roofplan eval` */
    assert_non_null(strstr(f->dat.p, "# plan 0: gpus=2048 tp=1 pp=16 ep=64 "
                                     "cp=1 zero=1 schedule=dualpipe"));
    assert_non_null(strstr(f->dat.p, "(the published run; measured 12 s)"));
}

static void test_plot_waterfall_fill_placeholders_by_hand(void **state)
{
    struct fixture *f = *state;
    plot_waterfall_fill(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "NPANELS"), "2");
    /* the speed of light, 8 effects (factors neutral), the expected step */
    assert_string_equal(util_plot_var(&f->v, "NROWS"), "10");
    /* both panels on one scale: 14.8 s x 1.3 = 19.24, rounded up to 20 */
    assert_string_equal(util_plot_var(&f->v, "XMAX"), "20");
    assert_string_equal(util_plot_var(&f->v, "NSAVE"), "2"); /* -0.8 and -0.5 */
    assert_string_equal(util_plot_var(&f->v, "MEASURED"), "12");
    /* 14.4 / 10 = 1.44 */
    assert_string_equal(util_plot_var(&f->v, "TITLE"),
                        "'Model-X on 2048 \xC3\x97 GPU-Y: expected step "
                        "14.40 s, 1.44\xC3\x97 the speed of light'");
    assert_non_null(strstr(util_plot_var(&f->v, "SUB3"),
                           "Largest here: elementwise and memory, +2.00 s, "
                           "45% of the gap."));
    assert_string_equal(util_plot_var(&f->v, "MEASURED_LABEL"),
                        "'measured 12.00 s (expected +23%)'");
    assert_string_equal(util_plot_var(&f->v, "PANEL1"),
                        "'Recommended plan (ZeRO-1+PP+EP)'");
    assert_string_equal(util_plot_var(&f->v, "PANEL2"),
                        "'Published run: Published "
                        "run Z'");
    assert_non_null(strstr(util_plot_var(&f->v, "YTICS"),
                           "'speed of light' 10, 'GEMM efficiency by shape' "
                           "9"));
    assert_non_null(
        strstr(util_plot_var(&f->v, "YTICS"), "'expected step' 1)"));
}

/* No published run: one panel, and an empty second block for `index`. */
static void test_plot_waterfall_fill_one_panel(void **state)
{
    struct fixture *f = *state;
    struct row r[2];
    f->r.v.waterfall[1].known = false;
    plot_waterfall_fill(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "NPANELS"), "1");
    assert_string_equal(util_plot_var(&f->v, "MEASURED"), "0");
    /* 14.4 x 1.3 = 18.72: still 20 */
    assert_string_equal(util_plot_var(&f->v, "XMAX"), "20");
    assert_string_equal(util_plot_var(&f->v, "NSAVE"), "1");
    assert_string_equal(util_plot_var(&f->v, "PANEL2"), "''");
    assert_null(strstr(f->dat.p, "# plan 1:"));
    check_block(f->dat.p, 0, 10, add0, 14.4);
    assert_int_equal(rows(f->dat.p, 1, r, 2), 1);
    assert_near(r[0].y, 0, 0);
}

/* A long run name is cut at a character boundary for its heading. */
static void test_plot_waterfall_fill_shortens_long_names(void **state)
{
    struct fixture *f = *state;
    const char *panel;
    /* 37 ASCII bytes, then a 2-byte character across the 38-byte cut */
    snprintf(f->r.v.waterfall[1].name, sizeof f->r.v.waterfall[1].name,
             "%s\xC3\x97 and a long tail of words",
             "0123456789012345678901234567890123456");
    plot_waterfall_fill(&f->r.v, &f->v, &f->dat);
    panel = util_plot_var(&f->v, "PANEL2");
    assert_string_equal(panel, "'Published run: "
                               "0123456789012345678901234567890123456...'");
}

/*
 * The recommended plan's floor set by another pipeline rank (issue 36
 * item 4): the plan's speed of light 10.5 s, its critical rank's own
 * 10 s. The chart starts at 10.5 s, steps down 0.5 s (-0.5 / (14.4 -
 * 10.5) = -12.8% of the gap) to 10 s, then the same effects to 14.4 s:
 * 1.37x the plan's floor (14.4 / 10.5). Both panels get the row (the
 * published run's of no length, at its 9 s) to keep them aligned: 11
 * rows; 3 bars save time (-0.5, -0.8, -0.5).
 */
static void test_plot_waterfall_fill_rank_floor_step(void **state)
{
    struct fixture *f = *state;
    struct views_waterfall *w = &f->r.v.waterfall[0];
    struct row r[ROWS + 2];
    size_t k;
    w->rank_step = true;
    w->rank_sol = 10;
    w->sol = 10.5;
    w->rank_share = -0.5 / 3.9;
    for (k = 0; k < EXPECTED_EFFECTS; k++)
        w->share[k] = w->add[k] / 3.9;
    plot_waterfall_fill(&f->r.v, &f->v, &f->dat);
    assert_int_equal(rows(f->dat.p, 0, r, ROWS + 2), ROWS + 1);
    assert_near(r[0].y, ROWS + 1, 0);
    assert_near(r[0].end, 10.5, 1e-12);
    assert_int_equal(r[1].kind, 1);
    assert_near(r[1].start, 10.5, 1e-12);
    assert_near(r[1].end, 10, 1e-12);
    assert_near(r[1].seconds, -0.5, 1e-12);
    assert_near(r[1].share, -0.5 / 3.9, 1e-10);
    assert_near(r[2].start, 10, 1e-12); /* GEMM: 10 -> 11.5 */
    assert_near(r[2].end, 11.5, 1e-12);
    assert_near(r[ROWS].end, 14.4, 1e-12);
    assert_int_equal(rows(f->dat.p, 1, r, ROWS + 2), ROWS + 1);
    assert_near(r[1].start, 9, 1e-12);
    assert_near(r[1].end, 9, 1e-12);
    assert_string_equal(util_plot_var(&f->v, "NROWS"), "11");
    assert_string_equal(util_plot_var(&f->v, "NSAVE"), "3");
    assert_string_equal(util_plot_var(&f->v, "TITLE"),
                        "'Model-X on 2048 \xC3\x97 GPU-Y: expected step "
                        "14.40 s, 1.37\xC3\x97 the speed of light'");
    assert_non_null(strstr(util_plot_var(&f->v, "YTICS"),
                           "'speed of light' 11, 'critical rank''s own "
                           "floor' 10, 'GEMM efficiency by shape' 9"));
}

static void test_plot_waterfall_wanted_needs_expected(void **state)
{
    struct fixture *f = *state;
    assert_true(plot_waterfall_wanted(&f->r.v));
    f->r.v.waterfall[0].known = false;
    assert_false(plot_waterfall_wanted(&f->r.v));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plot_waterfall_fill_bars_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_waterfall_fill_placeholders_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_waterfall_fill_one_panel,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_waterfall_fill_shortens_long_names, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_waterfall_fill_rank_floor_step, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_waterfall_wanted_needs_expected, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
