/*
 * test_plot_sensitivity: the sensitivity charts' data files and
 * placeholders from curves written out by hand (no time model): one
 * block per drawn family with a row per bandwidth where it has a fitting
 * plan, the axes a quarter beyond the data on a log scale with 1-2-5
 * ticks, today's bandwidth, the baseline's crossover line (only when
 * there is one and the baseline is a family) and the sentence on what
 * binds it.
 *
 * The report: Model-X on 64 GPU-Ys; families A (drawn first), B (not
 * drawn) and the baseline ZeRO-3, none of whose plans fits (its curve is
 * its fastest plan re-timed, drawn dashed).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_sensitivity.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
    struct util_parts r;
    struct plot_template_vars v;
    struct plot_text dat;
};

/* The IB grid (5 points: every one gets a tick) and the NVLink grid (9
 * points: every other one does). */
static const double grid_ib[5] = {25, 50, 100, 200, 400};
static const double grid_nv[9] = {100, 150, 200,  300, 400,
                                  600, 800, 1200, 1600};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct util_parts *r;
    struct views_sens_chart *c;
    size_t i;
    if (!f)
        return -1;
    util_parts_init(&f->r);
    util_parts_families(&f->r, RANKING_FAMILY_KEYS); /* room; none yet */
    util_parts_charts(&f->r, RANKING_FAMILY_KEYS);
    f->r.rank.nfamilies = 0;
    r = &f->r;
    snprintf(f->m.spec.name, sizeof f->m.spec.name, "Model-X");
    snprintf(f->hw.spec.gpu_name, sizeof f->hw.spec.gpu_name, "GPU-Y");
    f->hw.spec.gpus = 64;
    r->in.m = &f->m;
    r->in.hw = &f->hw;
    snprintf(r->rank.family[0].name, sizeof r->rank.family[0].name, "A");
    r->v.family[0].color = 0x0077BB;
    r->v.family[0].marker = 2; /* triangle up: gnuplot's open 8, filled 9 */
    r->v.family[0].dash = 1;   /* dashed: gnuplot's dash type 2 */
    snprintf(r->rank.family[1].name, sizeof r->rank.family[1].name, "B");
    r->v.family[1].color = 0x33BBEE;
    snprintf(r->rank.family[2].name, sizeof r->rank.family[2].name, "ZeRO-3");
    r->v.family[2].color = 0xEE3377;
    r->rank.family[2].sens_unfit = true;
    r->rank.nfamilies = 3;
    snprintf(r->v.baseline.name, sizeof r->v.baseline.name, "ZeRO-3");
    r->v.baseline.family = 2;
    /* A: IB-bound (1) up to 50 GB/s, compute-bound (0) at 4 s from 100
     * GB/s on. ZeRO-3: no plan at 25 GB/s (0: no row), IB-bound to 100,
     * then compute-bound at 8 s: its crossover is at 200 GB/s. */
    {
        static const double a[5] = {10, 6, 4, 4, 4}, z[5] = {0, 20, 12, 8, 8};
        static const int ab[5] = {1, 1, 0, 0, 0}, zb[5] = {0, 1, 1, 0, 0};
        for (i = 0; i < 5; i++) {
            r->rank.family[0].sens_ib_step[i] = a[i];
            r->rank.family[0].sens_ib_bound[i] = ab[i];
            r->rank.family[2].sens_ib_step[i] = z[i];
            r->rank.family[2].sens_ib_bound[i] = zb[i];
        }
    }
    /* NVLink: A at 3 s everywhere, compute-bound; ZeRO-3 bound by IB (1)
     * at 9 s whatever the NVLink */
    for (i = 0; i < 9; i++) {
        r->rank.family[0].sens_nv_step[i] = 3;
        r->rank.family[2].sens_nv_step[i] = 9;
        r->rank.family[2].sens_nv_bound[i] = 1;
    }
    c = &r->v.sens[0];
    c->link = "IB";
    c->gbps = grid_ib;
    c->n = 5;
    c->today = 50;
    c->family[0] = 0;
    c->family[1] = 2;
    c->nfamilies = 2;
    c->ylo = 4;  /* A's fastest */
    c->yhi = 20; /* ZeRO-3's slowest */
    c->mark_gbps = 200;
    c->line1 = strdup("ZeRO-3 turns compute-bound at 200 GB/s");
    c = &r->v.sens[1];
    c->link = "NVLink";
    c->gbps = grid_nv;
    c->n = 9;
    c->today = 400;
    c->family[0] = 0;
    c->family[1] = 2;
    c->nfamilies = 2;
    c->ylo = 3;
    c->yhi = 9;
    c->line1 = strdup("ZeRO-3 stays IB-bound");
    c->line2 = strdup("faster NVLink does not help it");
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

static void test_plot_sensitivity_ib_curves_by_hand(void **state)
{
    struct fixture *f = *state;
    plot_sensitivity_fill(&f->r.v, true, &f->v, &f->dat);
    assert_false(f->dat.nomem);
    assert_false(plot_template_vars_nomem(&f->v));
    assert_non_null(strstr(f->dat.p, "# IB GB/s, step time s, bound (0 "
                                     "compute, 1 IB, 2 NVLink, 3 HBM)\n"));
    /* GB/s, step, bound; ZeRO-3 has no row at 25 GB/s */
    assert_string_equal(util_dat_body(f->dat.p), "# block 0\n"
                                                 "25 10 1\n"
                                                 "50 6 1\n"
                                                 "100 4 0\n"
                                                 "200 4 0\n"
                                                 "400 4 0\n"
                                                 "\n\n"
                                                 "# block 1\n"
                                                 "50 20 1\n"
                                                 "100 12 1\n"
                                                 "200 8 0\n"
                                                 "400 8 0\n"
                                                 "\n\n");
    /* B is not drawn: two families, the baseline's dashed and named so */
    assert_string_equal(util_plot_var(&f->v, "NFAM"), "2");
    assert_string_equal(util_plot_var(&f->v, "FAMILIES"),
                        "array fam_name[2]\narray fam_color[2]\narray "
                        "fam_dash[2]\narray fam_pt[2]\narray fam_dt[2]\n"
                        "fam_name[1] = 'A'; fam_color[1] = '#0077BB'; "
                        "fam_dash[1] = 0; fam_pt[1] = 8; fam_dt[1] = 2\n"
                        "fam_name[2] = 'ZeRO-3 (fastest plan; does not "
                        "fit)'; fam_color[2] = '#EE3377'; fam_dash[2] = 1; "
                        "fam_pt[2] = 6; fam_dt[2] = 1\n");
    /* two lines: a key, no labels at the lines' ends */
    assert_non_null(strstr(util_plot_var(&f->v, "KEY"), "set key at screen"));
    assert_null(strstr(util_plot_var(&f->v, "KEY"), "set label"));
}

static void test_plot_sensitivity_ib_axes_by_hand(void **state)
{
    struct fixture *f = *state;
    plot_sensitivity_fill(&f->r.v, true, &f->v, &f->dat);
    /* a quarter beyond the grid and the curves: 25 / 1.25 = 20, 400 x
     * 1.25 = 500; 4 / 1.25 = 3.2, 20 x 1.25 = 25 */
    assert_string_equal(util_plot_var(&f->v, "XMIN"), "20");
    assert_string_equal(util_plot_var(&f->v, "XMAX"), "500");
    assert_string_equal(util_plot_var(&f->v, "YMIN"), "3.2");
    assert_string_equal(util_plot_var(&f->v, "YMAX"), "25");
    /* 1, 2, 5 x 10^k inside [3.2, 25]: 5, 10, 20 */
    assert_string_equal(util_plot_var(&f->v, "YTICS"),
                        "set ytics ('5' 5, '10' 10, '20' 20)\n");
    /* five grid points: each gets a tick */
    assert_string_equal(util_plot_var(&f->v, "XTICS"),
                        "set xtics ('25' 25, '50' 50, '100' 100, '200' 200, "
                        "'400' 400)\n");
    assert_string_equal(util_plot_var(&f->v, "TODAY"), "50");
    assert_string_equal(util_plot_var(&f->v, "TODAY_LABEL"),
                        "'today: 50 GB/s'");
    assert_string_equal(util_plot_var(&f->v, "TITLE"),
                        "'Model-X on 64 \xC3\x97 GPU-Y: step time against "
                        "InfiniBand bandwidth'");
    assert_string_equal(util_plot_var(&f->v, "SUB2"),
                        "'Filled dots: compute-bound there; open: bound by a "
                        "link or HBM. Flat lines do not need more IB.'");
    assert_string_equal(util_plot_var(&f->v, "XLABEL"),
                        "'InfiniBand bandwidth per GPU, GB/s (log scale)'");
    assert_string_equal(util_plot_var(&f->v, "YLABEL"),
                        "'time per step at the speed of light, s (log "
                        "scale)'");
}

/* The baseline turns compute-bound at 200 GB/s: a dashed line there in
 * its colour, its name and bandwidth at the foot, the sentence below the
 * subtitles. */
static void test_plot_sensitivity_ib_crossover_line(void **state)
{
    struct fixture *f = *state;
    plot_sensitivity_fill(&f->r.v, true, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "MARKS"),
                        "set arrow from 200, graph 0 to 200, graph 1 nohead "
                        "lw 3 dt (10,6) lc rgb '#EE3377' back\n"
                        "set label 'ZeRO-3: 200 GB/s' at 200, graph 0.03 "
                        "left offset 0.6,0 front boxed font 'Sans Bold,13'\n");
    assert_string_equal(util_plot_var(&f->v, "SUB3"),
                        "'ZeRO-3 turns compute-bound at 200 GB/s'");
}

/* No baseline family in the sweep: no line, whatever the chart says. */
static void test_plot_sensitivity_no_line_without_baseline(void **state)
{
    struct fixture *f = *state;
    f->r.v.baseline.family = -1;
    plot_sensitivity_fill(&f->r.v, true, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "MARKS"), "");
}

/* NVLink: no crossover (the baseline stays IB-bound): no line, the two
 * sentences joined by ": "; nine grid points: a tick on every other. */
static void test_plot_sensitivity_nvlink_by_hand(void **state)
{
    struct fixture *f = *state;
    const char *b;
    plot_sensitivity_fill(&f->r.v, false, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "MARKS"), "");
    assert_string_equal(util_plot_var(&f->v, "SUB3"),
                        "'ZeRO-3 stays IB-bound: faster NVLink does not help "
                        "it'");
    assert_string_equal(util_plot_var(&f->v, "XTICS"),
                        "set xtics ('100' 100, '200' 200, '400' 400, '800' "
                        "800, '1600' 1600)\n");
    /* 100 / 1.25 = 80, 1600 x 1.25 = 2000; 3 / 1.25 = 2.4, 9 x 1.25 =
     * 11.25: ticks 5 and 10 */
    assert_string_equal(util_plot_var(&f->v, "XMIN"), "80");
    assert_string_equal(util_plot_var(&f->v, "XMAX"), "2000");
    assert_string_equal(util_plot_var(&f->v, "YMIN"), "2.4");
    assert_string_equal(util_plot_var(&f->v, "YMAX"), "11.25");
    assert_string_equal(util_plot_var(&f->v, "YTICS"),
                        "set ytics ('5' 5, '10' 10)\n");
    assert_string_equal(util_plot_var(&f->v, "TODAY_LABEL"),
                        "'today: 400 GB/s'");
    assert_non_null(strstr(f->dat.p, "# NVLink GB/s, step time s"));
    /* A flat at 3 s, compute-bound; ZeRO-3 flat at 9 s, IB-bound */
    b = util_dat_body(f->dat.p);
    assert_non_null(strstr(b, "# block 0\n100 3 0\n150 3 0\n"));
    assert_non_null(strstr(b, "1600 3 0\n\n\n# block 1\n100 9 1\n"));
    assert_non_null(strstr(b, "1200 9 1\n1600 9 1\n\n\n"));
    assert_string_equal(util_plot_var(&f->v, "XLABEL"),
                        "'NVLink bandwidth per GPU, GB/s (log scale)'");
}

/* No family drawn: one-element arrays gnuplot can still read, no rows. */
static void test_plot_sensitivity_no_families(void **state)
{
    struct fixture *f = *state;
    f->r.v.sens[0].nfamilies = 0;
    plot_sensitivity_fill(&f->r.v, true, &f->v, &f->dat);
    assert_string_equal(util_dat_body(f->dat.p), "");
    assert_string_equal(util_plot_var(&f->v, "NFAM"), "0");
    assert_string_equal(util_plot_var(&f->v, "FAMILIES"),
                        "array fam_name[1]\narray fam_color[1]\narray "
                        "fam_dash[1]\narray fam_pt[1]\narray fam_dt[1]\n"
                        "fam_name[1] = ''; fam_color[1] = '#000000'; "
                        "fam_dash[1] = 0; fam_pt[1] = 6; fam_dt[1] = 1\n");
}

/*
 * Seven lines (a key would pass six entries): each named at its right
 * end instead. By hand, on the IB chart (y from 4 / 1.25 = 3.2 to 20 x
 * 1.25 = 25 s, log): A ends at 4 s, at log(4 / 3.2) / log(25 / 3.2) =
 * 0.22314 / 2.05573 = 0.1085 of the graph's height; its six copies end
 * there too and their labels are pushed up 0.034 apart (0.1425, ...,
 * 0.1085 + 6 x 0.034 = 0.3125); ZeRO-3 ends at 8 s, log(2.5) / 2.05573
 * = 0.4457, clear of them: it stays. Each label has a
 * leader from the line's last point, (400, 4) or (400, 8).
 */
static void test_plot_sensitivity_direct_labels(void **state)
{
    struct fixture *f = *state;
    struct views_sens_chart *c = &f->r.v.sens[0];
    const char *key;
    size_t i;
    for (i = 3; i < 9; i++) {
        f->r.rank.family[i] = f->r.rank.family[0];
        snprintf(f->r.rank.family[i].name, sizeof f->r.rank.family[i].name,
                 "A%zu", i);
        c->family[c->nfamilies++] = (long)i;
    }
    assert_int_equal(c->nfamilies, 8);
    plot_sensitivity_fill(&f->r.v, true, &f->v, &f->dat);
    key = util_plot_var(&f->v, "KEY");
    assert_non_null(strstr(key, "unset key\n"));
    assert_non_null(strstr(key, "set arrow from 400, 4 to screen 0.731, "
                                "graph 0.1085 nohead"));
    assert_non_null(strstr(key, "set label 'A' at screen 0.735, graph "
                                "0.1085 left"));
    assert_non_null(strstr(key, "set label 'A8' at screen 0.735, graph "
                                "0.3125 left"));
    assert_non_null(strstr(key, "set arrow from 400, 8 to screen 0.731, "
                                "graph 0.4457 nohead"));
    assert_non_null(strstr(key, "set label 'ZeRO-3 (fastest plan; does not "
                                "fit)' at screen 0.735, graph 0.4457"));
    /* A's marker at its label, filled: 9 */
    assert_non_null(strstr(key, "textcolor rgb '#0077BB' point pt 9 "));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plot_sensitivity_ib_curves_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_sensitivity_ib_axes_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_sensitivity_ib_crossover_line,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_sensitivity_no_line_without_baseline, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_sensitivity_nvlink_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_sensitivity_direct_labels,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_sensitivity_no_families,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
