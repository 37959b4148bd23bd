/*
 * test_plot_roofline: the roofline charts' data files and placeholders
 * from points, roofs and slopes written out by hand (no time model): one
 * block per family of the plans with bytes on the link (intensity =
 * FLOP/B on the x axis, TFLOP/s on the y axis), the labelled families'
 * best plans, the baseline's point, the family key, the roofs right of
 * their ridge and the slopes up to their roof, and the sentences with
 * their counts. Where labels land is plot_labels' business (its own
 * tests); here only that each is written.
 *
 * The report: Model-X on 64 GPU-Ys of 80 GiB, 10% kept free (72 GiB
 * usable). Over IB: achievable 40 GB/s, peak 50 GB/s; roofs FP8 peak
 * 1,000 TFLOP/s (ridge 1e15 / 50e9 = 20,000 FLOP/B), FP8 achievable 600
 * (600e12 / 40e9 = 15,000) and BF16 achievable 300 (7,500). Over NVLink:
 * 400 GB/s only; FP8 600 (600e12 / 400e9 = 1,500), BF16 300 (750).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_roofline.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
    struct util_parts r;
    struct views_point pts[6];
    struct plot_template_vars v;
    struct plot_text dat;
};

static void roof(struct views_roofline *o,
                 const char *name,
                 double tflops,
                 double bps,
                 double ridge,
                 bool peak)
{
    struct views_roof *f = &o->roof[o->nroofs++];
    snprintf(f->name, sizeof f->name, "%s", name);
    f->tflops = tflops;
    f->bps = bps;
    f->ridge = ridge;
    f->peak = peak;
}

static void point(struct views_point *p,
                  double x_ib,
                  double x_nv,
                  double y,
                  double step,
                  bool fp8)
{
    p->x[0] = x_ib;
    p->x[1] = x_nv;
    p->y = y;
    p->step = step;
    p->fp8 = fp8;
}

static void family(struct util_parts *r,
                   size_t i,
                   const char *name,
                   uint32_t color,
                   double best_step,
                   size_t first,
                   size_t n,
                   bool labelled)
{
    snprintf(r->rank.family[i].name, sizeof r->rank.family[i].name, "%s", name);
    r->v.family[i].color = color;
    r->rank.family[i].best.t.step = best_step;
    r->v.blocks[i].family = (long)i;
    r->v.blocks[i].first = first;
    r->v.blocks[i].n = n;
    r->v.blocks[i].labelled = labelled;
    r->v.blocks[i].number = (long)i + 1;
    r->rank.nfamilies = r->v.nblocks = i + 1;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct util_parts *r;
    struct views_roofline *o;
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
    f->hw.spec.hbm_gib = 80;
    f->hw.compute_derate = 0.9;
    r->in.m = &f->m;
    r->in.hw = &f->hw;
    r->rank.headroom_pct = 10;
    r->rank.valid = 1234;
    /* A (blue 0x0000FF = 255): three plans; B (green 0x00FF00 = 65280):
     * two, the second with no IB bytes; C (red): one, not labelled */
    point(&f->pts[0], 2000, 50000, 400, 5, true);
    point(&f->pts[1], 1000, 0, 300, 6.5, true);
    point(&f->pts[2], 500, 8000, 200, 8, false);
    point(&f->pts[3], 4000, 100000, 500, 5.5, true);
    point(&f->pts[4], 0, 3000, 100, 20, true);
    point(&f->pts[5], 300, 700, 50, 30, false);
    r->v.points = f->pts;
    r->v.npoints = 6;
    family(r, 0, "A", 0x0000FF, 5, 0, 3, true);
    family(r, 1, "B", 0x00FF00, 5.5, 3, 2, true);
    family(r, 2, "C", 0xFF0000, 30, 5, 1, false);
    /* the baseline: none of it fits; its best plan over IB only */
    snprintf(r->v.baseline.name, sizeof r->v.baseline.name, "ZeRO-3");
    r->v.baseline.has_point = true;
    r->v.baseline.x[0] = 150;
    r->v.baseline.y = 20;
    /* the published plan, over IB only */
    r->rank.validation = calloc(1, sizeof *r->rank.validation);
    if (!r->rank.validation)
        return -1;
    snprintf(r->rank.validation[0].name, sizeof r->rank.validation[0].name,
             "Run-P");
    r->rank.validation[0].predicted.fits = true;
    r->rank.nvalidations = 1;
    r->v.published = 0;
    r->v.has_published_point = true;
    r->v.published_x[0] = 800;
    r->v.published_y = 350;

    o = &r->v.roofline[0];
    o->link = "IB";
    roof(o, "FP8 peak", 1000, 50e9, 20000, true);
    roof(o, "FP8 achievable", 600, 40e9, 15000, false);
    roof(o, "BF16 achievable", 300, 40e9, 7500, false);
    o->slope_bps[0] = 40e9;
    o->slope_bps[1] = 50e9;
    o->nslopes = 2;
    o->top_achievable = 600;
    o->xlo = 100;
    o->xhi = 1e6;
    o->ylo = 10;
    o->yhi = 2000;
    o->npoints = 5; /* all but B's second */
    o->nobytes = 1;
    o = &r->v.roofline[1];
    o->link = "NVLink";
    roof(o, "FP8 achievable", 600, 400e9, 1500, false);
    roof(o, "BF16 achievable", 300, 400e9, 750, false);
    o->slope_bps[0] = 400e9;
    o->nslopes = 1;
    o->top_achievable = 600;
    o->xlo = 10;
    o->xhi = 1e6;
    o->ylo = 10;
    o->yhi = 2000;
    o->npoints = 5; /* all but A's second */
    o->nobytes = 1;
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

/* Fails unless s starts with prefix. */
static void assert_prefix(const char *s, const char *prefix)
{
    if (strncmp(s, prefix, strlen(prefix)) != 0)
        fail_msg("got \"%s\", expected it to start with \"%s\"", s, prefix);
}

static void test_plot_roofline_ib_points_by_hand(void **state)
{
    struct fixture *f = *state;
    plot_roofline_fill(&f->r.v, true, &f->v, &f->dat);
    assert_false(f->dat.nomem);
    assert_false(plot_template_vars_nomem(&f->v));
    /* intensity over IB, TFLOP/s, fp8, step; B's plan with no IB bytes
     * left out; each block closed by a point off the axes (xlo / 10 =
     * 10, ylo / 10 = 1); then A's and B's best (C is not labelled) with
     * their colours; then the baseline's point */
    assert_string_equal(
        util_dat_body(f->dat.p),
        "# block 0\n2000 400 1 5\n1000 300 1 6.5\n500 200 0 8\n10 1 0 0\n\n\n"
        "# block 1\n4000 500 1 5.5\n10 1 0 0\n\n\n"
        "# block 2\n300 50 0 30\n10 1 0 0\n\n\n"
        "# block 3: the best plan of the labelled families: intensity, "
        "TFLOP/s, colour 0xRRGGBB, precision\n"
        "2000 400 255 1\n4000 500 65280 1\n\n\n"
        "# block 4: the baseline's best plan (ZeRO-3) when none of it "
        "fits: intensity, TFLOP/s\n"
        "150 20\n");
    assert_string_equal(util_plot_var(&f->v, "HAVE_BASELINE"), "1");
    assert_string_equal(util_plot_var(&f->v, "HAVE_PUBLISHED"), "1");
    assert_string_equal(util_plot_var(&f->v, "NFAM"), "3");
    /* no calibration: the key is by the speed-of-light step, and says so */
    assert_string_equal(util_plot_var(&f->v, "KEY_TITLE"),
                        "'plans that fit, by family (speed-of-light step)'");
    /* the translucent dot: alpha 0xA0 before the colour */
    assert_string_equal(
        util_plot_var(&f->v, "FAMILIES"),
        "array fam_color[3]\narray fam_dot[3]\narray fam_key[3]\narray "
        "fam_pt[3]\n"
        "fam_color[1] = '#0000FF'; fam_dot[1] = '#A00000FF'; fam_key[1] = "
        "'1  A  5.00 s'; fam_pt[1] = 6\n"
        "fam_color[2] = '#00FF00'; fam_dot[2] = '#A000FF00'; fam_key[2] = "
        "'2  B  5.50 s'; fam_pt[2] = 6\n"
        "fam_color[3] = '#FF0000'; fam_dot[3] = '#A0FF0000'; fam_key[3] = "
        "'3  C  30.00 s'; fam_pt[3] = 6\n");
    /* no calibration here: the key is ordered by the speed of light */
    assert_string_equal(util_plot_var(&f->v, "KEY_TITLE"),
                        "'plans that fit, by family (speed-of-light step)'");
}

static void test_plot_roofline_ib_roofs_by_hand(void **state)
{
    struct fixture *f = *state;
    const char *roofs;
    plot_roofline_fill(&f->r.v, true, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "XMIN"), "100");
    assert_string_equal(util_plot_var(&f->v, "XMAX"), "1000000");
    assert_string_equal(util_plot_var(&f->v, "YMIN"), "10");
    assert_string_equal(util_plot_var(&f->v, "YMAX"), "2000");
    assert_string_equal(util_plot_var(&f->v, "LMARGIN"), "0.075");
    assert_string_equal(util_plot_var(&f->v, "RMARGIN"), "0.735");
    assert_string_equal(util_plot_var(&f->v, "BMARGIN"), "0.125");
    assert_string_equal(util_plot_var(&f->v, "TMARGIN"), "0.835");
    /* each roof from its ridge rightwards (peak dashed and grey); the
     * achievable slope, 40e9 / 1e12 = 0.04 TFLOP/s per FLOP/B, up to the
     * achievable roof (600); the peak one, 0.05, up to the highest (1000) */
    assert_string_equal(
        util_plot_var(&f->v, "ROOF_PLOTS"),
        "'+' using 1:($1 >= 20000 ? 1000 : 1/0) with lines lw 2 dt (12,6) "
        "lc rgb '#555555' notitle, \\\n    "
        "'+' using 1:($1 >= 15000 ? 600 : 1/0) with lines lw 3 dt 1 lc rgb "
        "'#000000' notitle, \\\n    "
        "'+' using 1:($1 >= 7500 ? 300 : 1/0) with lines lw 3 dt 1 lc rgb "
        "'#000000' notitle, \\\n    "
        "'+' using 1:($1 * 0.04 < 600 ? $1 * 0.04 : 1/0) with lines lw 3 dt "
        "1 lc rgb '#000000' notitle, \\\n    "
        "'+' using 1:($1 * 0.05 < 1000 ? $1 * 0.05 : 1/0) with lines lw 2 "
        "dt (12,6) lc rgb '#555555' notitle, \\\n    ");
    /* a dot on each ridge, then the labels */
    roofs = util_plot_var(&f->v, "ROOFS");
    assert_prefix(roofs, "set label '' at 20000, 1000 point pt 7 ps 1.6 lc "
                         "rgb '#555555' front\n"
                         "set label '' at 15000, 600 point pt 7 ps 1.6 lc "
                         "rgb '#000000' front\n"
                         "set label '' at 7500, 300 point pt 7 ps 1.6 lc "
                         "rgb '#000000' front\n");
    assert_non_null(strstr(roofs, "'FP8 peak 1,000 TFLOP/s'"));
    assert_non_null(strstr(roofs, "'FP8 achievable 600 TFLOP/s'"));
    assert_non_null(strstr(roofs, "'BF16 achievable 300 TFLOP/s'"));
    /* the slopes named along them: a slope of 1 on log-log axes at
     * atan(pixels per y decade / pixels per x decade) = atan((900 x
     * 0.71 / log10(2000 / 10)) / (1600 x 0.66 / 4)) = atan(277.70 /
     * 264) = 46.4 degrees */
    assert_non_null(strstr(roofs, "'IB achievable 40 GB/s'"));
    assert_non_null(strstr(roofs, "'IB peak 50 GB/s'"));
    assert_non_null(strstr(roofs, "center rotate by 46.4 front"));
    /* the ridges' intensities, SI: "ridge 15k", "ridge 7.5k"; the
     * peak's bare */
    assert_non_null(strstr(roofs, "'ridge 15k FLOP/B'"));
    assert_non_null(strstr(roofs, "'ridge 7.5k FLOP/B'"));
    assert_non_null(strstr(roofs, "'20k'"));
}

static void test_plot_roofline_ib_labels_and_text(void **state)
{
    struct fixture *f = *state;
    const char *labels;
    plot_roofline_fill(&f->r.v, true, &f->v, &f->dat);
    labels = util_plot_var(&f->v, "LABELS");
    /* the published plan circled first, then labelled */
    assert_prefix(labels, "set label '' at 800, 350 point pt 6 ps 4 lw 3 lc "
                          "rgb '#000000' front\n");
    assert_non_null(strstr(labels, "'published plan'"));
    assert_non_null(strstr(labels, "'Run-P'"));
    assert_non_null(strstr(labels, "'ZeRO-3 (the baseline): its best "
                                   "plan'"));
    assert_non_null(strstr(labels, "'does not fit in memory'"));
    /* the labelled families' numbers; C (3) is not labelled */
    assert_non_null(strstr(labels, "set label '1' at"));
    assert_non_null(strstr(labels, "set label '2' at"));
    assert_null(strstr(labels, "set label '3' at"));
    assert_string_equal(util_plot_var(&f->v, "TITLE"),
                        "'Model-X on 64 \xC3\x97 GPU-Y: roofline over "
                        "InfiniBand (inter-node), speed of light'");
    assert_string_equal(util_plot_var(&f->v, "SUB1"),
                        "'Each dot is a plan that fits in 72 GiB (5 of 1,234 "
                        "valid plans; those with traffic on this link). "
                        "Numbered: the best plan of the 5 fastest families.'");
    assert_string_equal(util_plot_var(&f->v, "SUB2"),
                        "'Left of a ridge: IB-bound; right of it, compute "
                        "can hide the IB traffic the stack overlaps. Solid "
                        "roofs: achievable (measured GEMM at a 0.9 clock "
                        "derate); dashed: datasheet peak.'");
    assert_string_equal(util_plot_var(&f->v, "XLABEL"),
                        "'operational intensity over IB: FLOPs per byte, "
                        "per GPU per step'");
    assert_string_equal(util_plot_var(&f->v, "YLABEL"),
                        "'TFLOP/s per GPU at the speed of light "
                        "(FLOPs / step)'");
}

/* Over NVLink: A's plan with no NVLink bytes left out; the baseline and
 * the published plan have none either (off the chart); one slope, up to
 * the highest roof. */
static void test_plot_roofline_nvlink_by_hand(void **state)
{
    struct fixture *f = *state;
    f->hw.compute_derate = 1;
    f->r.v.published_x[1] = 0;
    plot_roofline_fill(&f->r.v, false, &f->v, &f->dat);
    assert_string_equal(
        util_dat_body(f->dat.p),
        "# block 0\n50000 400 1 5\n8000 200 0 8\n1 1 0 0\n\n\n"
        "# block 1\n100000 500 1 5.5\n3000 100 1 20\n1 1 0 0\n\n\n"
        "# block 2\n700 50 0 30\n1 1 0 0\n\n\n"
        "# block 3: the best plan of the labelled families: intensity, "
        "TFLOP/s, colour 0xRRGGBB, precision\n"
        "50000 400 255 1\n100000 500 65280 1\n\n\n"
        "# block 4: the baseline's best plan (ZeRO-3) when none of it "
        "fits: intensity, TFLOP/s\n"
        "1 1\n");
    assert_string_equal(util_plot_var(&f->v, "HAVE_BASELINE"), "0");
    assert_string_equal(util_plot_var(&f->v, "HAVE_PUBLISHED"), "0");
    assert_null(strstr(util_plot_var(&f->v, "LABELS"), "published plan"));
    assert_null(strstr(util_plot_var(&f->v, "LABELS"), "baseline"));
    /* 400e9 / 1e12 = 0.4 */
    assert_string_equal(
        util_plot_var(&f->v, "ROOF_PLOTS"),
        "'+' using 1:($1 >= 1500 ? 600 : 1/0) with lines lw 3 dt 1 lc rgb "
        "'#000000' notitle, \\\n    "
        "'+' using 1:($1 >= 750 ? 300 : 1/0) with lines lw 3 dt 1 lc rgb "
        "'#000000' notitle, \\\n    "
        "'+' using 1:($1 * 0.4 < 600 ? $1 * 0.4 : 1/0) with lines lw 3 dt 1 "
        "lc rgb '#000000' notitle, \\\n    ");
    /* five x decades: atan(277.70 / (1600 x 0.66 / 5)) = 52.7 degrees */
    assert_non_null(strstr(util_plot_var(&f->v, "ROOFS"),
                           "'NVLink achievable 400 "
                           "GB/s' at"));
    assert_non_null(
        strstr(util_plot_var(&f->v, "ROOFS"), "rotate by 52.7 front"));
    assert_non_null(
        strstr(util_plot_var(&f->v, "ROOFS"), "'ridge 1.5k FLOP/B'"));
    assert_null(strstr(util_plot_var(&f->v, "ROOFS"), "NVLink peak"));
    assert_string_equal(util_plot_var(&f->v, "SUB2"),
                        "'Left of a ridge: NVLink-bound; right of it, compute "
                        "can hide the NVLink traffic the stack overlaps. "
                        "Solid roofs: achievable (measured GEMM); dashed: "
                        "datasheet peak.'");
    assert_non_null(strstr(util_plot_var(&f->v, "TITLE"),
                           ": roofline over NVLink "
                           "(intra-node), speed of "
                           "light'"));
    assert_non_null(strstr(util_plot_var(&f->v, "SUB1"),
                           "(5 of 1,234 valid plans; "
                           "those with traffic on this "
                           "link). Numbered"));
}

/* Nothing labelled and every plan with bytes on the link: the labelled
 * block and the baseline's keep their index with a point off the axes,
 * and the count needs no qualifier. */
static void test_plot_roofline_nothing_labelled(void **state)
{
    struct fixture *f = *state;
    size_t k;
    for (k = 0; k < f->r.v.nblocks; k++)
        f->r.v.blocks[k].labelled = false;
    f->r.v.baseline.has_point = false;
    f->r.v.roofline[0].nobytes = 0;
    plot_roofline_fill(&f->r.v, true, &f->v, &f->dat);
    assert_non_null(strstr(f->dat.p, "colour 0xRRGGBB, precision\n"
                                     "10 1 0 0\n\n\n"));
    assert_non_null(strstr(f->dat.p, "intensity, TFLOP/s\n10 1\n"));
    assert_string_equal(util_plot_var(&f->v, "HAVE_BASELINE"), "0");
    assert_null(strstr(util_plot_var(&f->v, "LABELS"), "set label '1' at"));
    assert_non_null(strstr(util_plot_var(&f->v, "SUB1"),
                           "(5 of 1,234 valid plans). "
                           "Numbered"));
}

/* No family at all: one-element arrays gnuplot's loop can read. */
static void test_plot_roofline_no_families(void **state)
{
    struct fixture *f = *state;
    f->r.v.nblocks = 0;
    f->r.v.has_published_point = false;
    plot_roofline_fill(&f->r.v, true, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "NFAM"), "0");
    assert_string_equal(util_plot_var(&f->v, "FAMILIES"),
                        "array fam_color[1]\narray fam_dot[1]\narray "
                        "fam_key[1]\narray fam_pt[1]\nfam_color[1] = "
                        "'#000000'; fam_dot[1] = '#000000'; fam_key[1] = ''; "
                        "fam_pt[1] = 6\n");
    assert_non_null(
        strstr(util_dat_body(f->dat.p), "# block 0: the best plan"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plot_roofline_ib_points_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_roofline_ib_roofs_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_roofline_ib_labels_and_text,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_roofline_nvlink_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_roofline_nothing_labelled,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_roofline_no_families, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
