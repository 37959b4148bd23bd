/*
 * test_plot_bars: the step-breakdown and memory charts' data files and
 * placeholders from bars written out by hand (no time model, no sweep):
 * one row per family with its segments in the documented column order,
 * fastest family at the top, the dashed line between the families that
 * fit and those that do not, the memory chart's two panels on their own
 * scales, the axis ends, and the sentences with their figures.
 *
 * The report: Model-X on 64 GPU-Ys of 80 GiB, 10% of HBM kept free
 * (usable 80 x 0.9 = 72 GiB); families A and B fit, C does not. Every
 * number is a binary fraction, so "%.12g" prints it exactly.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "plot_bars.h"
#include "test_util.h"

#define GIB 1073741824.0

struct fixture {
    struct model m;
    struct hardware hw;
    struct util_parts r;
    struct plot_template_vars v;
    struct plot_text dat;
};

/* Family i: its name, colour and best plan's memory (GiB). */
static void family(struct util_parts *r,
                   size_t i,
                   const char *name,
                   uint32_t color,
                   const double gib[6])
{
    struct memory *m = &r->rank.family[i].best.mem;
    snprintf(r->rank.family[i].name, sizeof r->rank.family[i].name, "%s", name);
    r->v.family[i].color = color;
    m->weights = gib[0] * GIB;
    m->grads = gib[1] * GIB;
    m->optimizer = gib[2] * GIB;
    m->activations = gib[3] * GIB;
    m->other = gib[4] * GIB;
    m->total = gib[5] * GIB;
    m->capacity = 80 * GIB;
    if (i + 1 > r->rank.nfamilies)
        r->rank.nfamilies = i + 1;
}

/* Bar i: family fam's best plan (its memory, set by family()), seconds
 * per step. */
static void bar(struct util_parts *r,
                size_t i,
                long fam,
                const double s[9],
                bool fits,
                int bound)
{
    struct views_bar *b = &r->v.bars[i];
    b->family = fam;
    b->compute = s[0];
    b->exposed[COST_IB] = s[1];
    b->exposed[COST_NVLINK] = s[2];
    b->exposed[COST_HBM] = s[3];
    b->bubble = s[4];
    b->optimizer = s[5];
    b->step = s[6];
    b->serial = s[7];
    b->expected = s[8];
    b->fits = fits;
    b->bound = bound;
    b->mem = r->rank.family[fam].best.mem;
}

/*
 * Steps (s): compute + exposed IB + NVLink + HBM + bubble + optimizer:
 *   A: 4 + 1.5 + 0.25 + 0 + 0.5 + 0.125 = 6.375 (IB-bound), serial 8;
 *   B: 5 + 0 + 0 + 0.75 + 1 + 0.25 = 7 (HBM-bound), serial 9.5;
 *   C: 6 + 3 + 0 + 0 + 0 + 0.5 = 9.5 (IB-bound), serial 12, no fit.
 * Memory (GiB): weights, grads, optimizer, activations, other, total:
 *   A: 10 + 5 + 20 + 30 + 3 = 68; B: 8 + 4 + 16 + 40 + 3 = 71;
 *   C: 40 + 20 + 60 + 50 + 3.5 = 173.5.
 */
static const double steps_a[9] = {4, 1.5, 0.25, 0, 0.5, 0.125, 6.375, 8, 0},
                    steps_b[9] = {5, 0, 0, 0.75, 1, 0.25, 7, 9.5, 0},
                    steps_c[9] = {6, 3, 0, 0, 0, 0.5, 9.5, 12, 0};
static const double mem_a[6] = {10, 5, 20, 30, 3, 68},
                    mem_b[6] = {8, 4, 16, 40, 3, 71},
                    mem_c[6] = {40, 20, 60, 50, 3.5, 173.5};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct util_parts *r;
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
    f->hw.capacity_bytes = 80 * GIB;
    r->in.m = &f->m;
    r->in.hw = &f->hw;
    r->rank.headroom_pct = 10;
    family(r, 0, "A", 0x0000FF, mem_a);
    family(r, 1, "B", 0x00FF00, mem_b);
    family(r, 2, "C", 0xFF0000, mem_c);
    bar(r, 0, 0, steps_a, true, COST_IB);
    bar(r, 1, 1, steps_b, true, COST_HBM);
    bar(r, 2, 2, steps_c, false, COST_IB);
    r->v.nbars = 3;
    r->v.nbars_fit = 2;
    /* figures' extents: the competitive (fitting) families' longest
     * step, B's 7 s; the fitting panel's longest bar or the capacity,
     * whichever is longer: 80 GiB; C's 173.5 GiB */
    r->v.steps_max = 7;
    r->v.memory_fit_max = 80;
    r->v.memory_unfit_max = 173.5;
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

/* The data file without its comment lines. */
static void data_rows(const char *dat, char *out, size_t size)
{
    size_t n = 0;
    const char *p = dat;
    assert_non_null(dat);
    while (*p) {
        const char *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) + 1 : strlen(p);
        if (p[0] != '#') {
            assert_true(n + len < size);
            memcpy(out + n, p, len);
            n += len;
        }
        p += len;
    }
    out[n] = '\0';
}

/* ---- step-breakdown ---- */

static void test_plot_bars_steps_rows_by_hand(void **state)
{
    struct fixture *f = *state;
    char rows[512];
    plot_bars_fill_steps(&f->r.v, &f->v, &f->dat);
    assert_false(f->dat.nomem);
    assert_false(plot_template_vars_nomem(&f->v));
    /* y (3 = top, the fastest), compute, exposed IB, NVLink, HBM,
     * bubble, optimizer, step, serial, fits, bound (1 IB, 3 HBM),
     * expected step (0: no calibration) */
    data_rows(f->dat.p, rows, sizeof rows);
    assert_string_equal(rows, "3 4 1.5 0.25 0 0.5 0.125 6.375 8 1 1 0\n"
                              "2 5 0 0 0.75 1 0.25 7 9.5 1 3 0\n"
                              "1 6 3 0 0 0 0.5 9.5 12 0 1 0\n");
    /* the header names the 12 columns, the expected step last */
    assert_non_null(strstr(f->dat.p, "fits (1/0), bound (0 compute, 1 IB, "
                                     "2 NVLink, 3 HBM), expected step (0: "
                                     "none)\n"));
}

static void test_plot_bars_steps_placeholders_by_hand(void **state)
{
    struct fixture *f = *state;
    plot_bars_fill_steps(&f->r.v, &f->v, &f->dat);
    /* 7 s x 1.12 = 7.84, up to the next of 1, 1.2, 1.5, 2, 2.5, 3, 4, 5,
     * 6, 8, 10: 8 (C's 9.5 s runs off the edge) */
    assert_string_equal(util_plot_var(&f->v, "XMAX"), "8");
    assert_string_equal(util_plot_var(&f->v, "NROWS"), "3");
    assert_string_equal(util_plot_var(&f->v, "EXPECTED"), "0");
    assert_string_equal(util_plot_var(&f->v, "YTICS"),
                        "set ytics ('A' 3, 'B' 2, "
                        "'C' 1)\n");
    /* swatches at y +- 0.3 in the families' colours; the dashed line
     * between B (y 2) and C (y 1): 3 - 2 + 0.5 = 1.5 */
    assert_string_equal(
        util_plot_var(&f->v, "SWATCHES"),
        "set object 1 rect from graph -0.014, first 2.7 to graph -0.004, "
        "first 3.3 fc rgb '#0000FF' fs solid 1.0 noborder front noclip\n"
        "set object 2 rect from graph -0.014, first 1.7 to graph -0.004, "
        "first 2.3 fc rgb '#00FF00' fs solid 1.0 noborder front noclip\n"
        "set object 3 rect from graph -0.014, first 0.7 to graph -0.004, "
        "first 1.3 fc rgb '#FF0000' fs solid 1.0 noborder front noclip\n"
        "set arrow from graph 0, first 1.5 to graph 1, first 1.5 nohead "
        "dt (8,6) lw 1.5 lc rgb '#555555' front\n");
    assert_string_equal(util_plot_var(&f->v, "TITLE"),
                        "'Model-X on 64 \xC3\x97 GPU-Y: where the step time "
                        "goes (* the recommended plan)'");
    assert_string_equal(util_plot_var(&f->v, "SUB1"),
                        "'Speed of light. Only the binding link''s time "
                        "beyond compute is exposed (it overlaps compute). "
                        "Diamond: the step with no overlap.'");
    /* 80 GiB x (1 - 10%) = 72 GiB */
    assert_string_equal(util_plot_var(&f->v, "SUB2"),
                        "'Below the dashed line no plan of the family fits "
                        "in 72 GiB (10% of HBM kept free; its fastest plan "
                        "is shown).'");
    assert_string_equal(util_plot_var(&f->v, "XLABEL"),
                        "'time per step at the speed of light, s'");
    assert_string_equal(util_plot_var(&f->v, "C_IB"), "'#EE7733'");
}

/* With a calibration: the expected step in the 12th column, the hatched
 * segments explained; every family fits: no dashed line. */
static void test_plot_bars_steps_expected_all_fit(void **state)
{
    struct fixture *f = *state;
    char rows[512];
    f->r.in.expected = true;
    f->r.v.bars[0].expected = 8.25;
    f->r.v.bars[1].expected = 9.125;
    f->r.v.nbars = 2;                  /* C left out: A and B, both fit */
    f->r.v.bars[0].recommended = true; /* issue 18: marked, first */
    plot_bars_fill_steps(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "YTICS"),
                        "set ytics ('* A' 2, 'B' 1)\n");
    data_rows(f->dat.p, rows, sizeof rows);
    assert_string_equal(rows, "2 4 1.5 0.25 0 0.5 0.125 6.375 8 1 1 8.25\n"
                              "1 5 0 0 0.75 1 0.25 7 9.5 1 3 9.125\n");
    assert_string_equal(util_plot_var(&f->v, "EXPECTED"), "1");
    assert_string_equal(util_plot_var(&f->v, "NROWS"), "2");
    assert_null(strstr(util_plot_var(&f->v, "SWATCHES"), "set arrow"));
    assert_string_equal(util_plot_var(&f->v, "SUB1"),
                        "'Solid: the speed of light (only the binding link''s "
                        "time beyond compute is exposed); hatched: on to "
                        "the expected step; diamond: no overlap.'");
    assert_string_equal(util_plot_var(&f->v, "SUB2"),
                        "'Every family shown has a plan that fits in 72 GiB "
                        "(10% of HBM kept free).'");
}

/* The competitive families' longest step sets the axis: 10 s x 1.12 =
 * 11.2, up to 12 (1.2 x 10). */
static void test_plot_bars_steps_axis_end(void **state)
{
    struct fixture *f = *state;
    f->r.v.steps_max = 10;
    plot_bars_fill_steps(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "XMAX"), "12");
}

/* Families past VIEWS_BARS_MAX: counted in the second subtitle. */
static void test_plot_bars_steps_omitted_families(void **state)
{
    struct fixture *f = *state;
    f->r.v.bars_omitted = 2;
    plot_bars_fill_steps(&f->r.v, &f->v, &f->dat);
    assert_string_equal(util_plot_var(&f->v, "SUB2"),
                        "'Below the dashed line no plan of the family fits "
                        "in 72 GiB (10% of HBM kept free; its fastest plan "
                        "is shown). 2 more families not shown.'");
    plot_template_vars_release(&f->v);
    f->r.v.bars_omitted = 1;
    plot_bars_fill_steps(&f->r.v, &f->v, &f->dat);
    assert_non_null(strstr(util_plot_var(&f->v, "SUB2"),
                           "shown). 1 more family not shown.'"));
}

/* No bars at all: an axis of 1 and no rows. */
static void test_plot_bars_steps_empty(void **state)
{
    struct fixture *f = *state;
    char rows[64];
    f->r.v.nbars = f->r.v.nbars_fit = 0;
    f->r.v.steps_max = 0;
    plot_bars_fill_steps(&f->r.v, &f->v, &f->dat);
    data_rows(f->dat.p, rows, sizeof rows);
    assert_string_equal(rows, "");
    assert_string_equal(util_plot_var(&f->v, "XMAX"), "1");
    assert_string_equal(util_plot_var(&f->v, "NROWS"), "0");
    assert_string_equal(util_plot_var(&f->v, "YTICS"), "set ytics ()\n");
    assert_string_equal(util_plot_var(&f->v, "SWATCHES"), "");
}

/* ---- memory ---- */

/* The value of placeholder name as a number. */
static double num(const struct plot_template_vars *v, const char *name)
{
    const char *s = util_plot_var(v, name);
    char *end;
    double x = strtod(s, &end);
    if (end == s || *end)
        fail_msg("%s = \"%s\": not a number", name, s);
    return x;
}

static void test_plot_bars_memory_panels_by_hand(void **state)
{
    struct fixture *f = *state;
    char rows[512];
    plot_bars_fill_memory(&f->r.v, &f->v, &f->dat);
    assert_false(f->dat.nomem);
    assert_false(plot_template_vars_nomem(&f->v));
    /* block 0, those that fit (A at y 2, B at y 1); block 1, C alone at
     * y 1: weights, grads, optimizer, activations, other, total, the
     * HBM capacity, fits */
    data_rows(f->dat.p, rows, sizeof rows);
    assert_string_equal(rows, "2 10 5 20 30 3 68 80 1\n"
                              "1 8 4 16 40 3 71 80 1\n"
                              "\n\n"
                              "1 40 20 60 50 3.5 173.5 80 0\n"
                              "\n\n");
    assert_string_equal(util_plot_var(&f->v, "NFIT"), "2");
    assert_string_equal(util_plot_var(&f->v, "NUNFIT"), "1");
    /* 80 GiB x 1.12 = 89.6 -> 100; 173.5 GiB x 1.3 = 225.55 -> 250 */
    assert_string_equal(util_plot_var(&f->v, "XMAX"), "100");
    assert_string_equal(util_plot_var(&f->v, "XMAX2"), "250");
    assert_string_equal(util_plot_var(&f->v, "CAPACITY"), "80");
    assert_string_equal(util_plot_var(&f->v, "USABLE"), "72");
    /* plot area 0.125 .. 0.755 (0.63), less a gap of 0.1 between the
     * panels, shared 2 : 1 by the rows: the first 0.53 x 2/3 = 0.35333
     * high, from 0.755 down to 0.40167; the second from 0.755 - 0.35333
     * - 0.1 = 0.30167 down to 0.125 */
    assert_near(num(&f->v, "TOP1"), 0.755, 1e-12);
    assert_near(num(&f->v, "BOTTOM1"), 0.755 - 0.53 * 2 / 3, 1e-11);
    assert_near(num(&f->v, "TOP2"), 0.655 - 0.53 * 2 / 3, 1e-11);
    assert_near(num(&f->v, "BOTTOM2"), 0.125, 1e-12);
    assert_string_equal(util_plot_var(&f->v, "YTICS"),
                        "set ytics ('A' 2, 'B' 1)\n");
    assert_string_equal(util_plot_var(&f->v, "YTICS2"), "set ytics ('C' 1)\n");
    /* each panel numbers its swatches from 1 */
    assert_string_equal(
        util_plot_var(&f->v, "SWATCHES2"),
        "set object 1 rect from graph -0.014, first 0.7 to graph -0.004, "
        "first 1.3 fc rgb '#FF0000' fs solid 1.0 noborder front noclip\n");
    assert_string_equal(util_plot_var(&f->v, "CAP_LABEL"), "'HBM 80 GiB'");
    assert_string_equal(util_plot_var(&f->v, "USABLE_LABEL"),
                        "'fits: 72 GiB (10% "
                        "free)'");
    assert_string_equal(util_plot_var(&f->v, "UNFIT_LABEL"),
                        "'Do not fit in 72 GiB (own scale: each bar whole)'");
    assert_string_equal(util_plot_var(&f->v, "TITLE"),
                        "'Model-X on 64 \xC3\x97 GPU-Y: memory per GPU (* the "
                        "recommended plan)'");
    assert_string_equal(util_plot_var(&f->v, "SUB2"),
                        "'A plan fits when it leaves 10% of HBM free "
                        "(dashed line). Families where nothing fits are "
                        "drawn below, on their own scale.'");
    assert_string_equal(util_plot_var(&f->v, "XLABEL"),
                        "'memory per GPU, GiB'");
}

/* Every family fits: the first panel takes the whole area, the second is
 * an empty block (one zero row keeps gnuplot's `index 1` valid). */
static void test_plot_bars_memory_all_fit(void **state)
{
    struct fixture *f = *state;
    char rows[512];
    f->r.v.nbars = 2;
    f->r.v.bars_omitted = 3;
    plot_bars_fill_memory(&f->r.v, &f->v, &f->dat);
    data_rows(f->dat.p, rows, sizeof rows);
    assert_string_equal(rows, "2 10 5 20 30 3 68 80 1\n"
                              "1 8 4 16 40 3 71 80 1\n"
                              "\n\n"
                              "0 0 0 0 0 0 0 0 0\n"
                              "\n\n");
    assert_string_equal(util_plot_var(&f->v, "NUNFIT"), "0");
    assert_string_equal(util_plot_var(&f->v, "XMAX2"), "1");
    /* no gap: panel 1 from 0.755 down to 0.125 */
    assert_near(num(&f->v, "BOTTOM1"), 0.125, 1e-12);
    assert_near(num(&f->v, "TOP2"), 0.125, 1e-12);
    assert_string_equal(util_plot_var(&f->v, "YTICS2"), "set ytics ()\n");
    assert_non_null(strstr(util_plot_var(&f->v, "SUB2"),
                           "scale. 3 more families not shown.'"));
}

/* Five families that do not fit against one that does: the fitting
 * panel's share, 0.53 / 6 = 0.088, is raised to the 0.16 a panel keeps;
 * one that fits against five: the other panel's 0.088 is. */
static void test_plot_bars_memory_keeps_small_panel_readable(void **state)
{
    struct fixture *f = *state;
    size_t i;
    for (i = 0; i < 6; i++)
        bar(&f->r, i, 2, steps_c, i == 0, COST_IB);
    f->r.v.nbars = 6;
    f->r.v.nbars_fit = 1;
    plot_bars_fill_memory(&f->r.v, &f->v, &f->dat);
    /* panel 1: 0.755 .. 0.595; the gap; panel 2: 0.495 .. 0.125 */
    assert_near(num(&f->v, "BOTTOM1"), 0.595, 1e-12);
    assert_near(num(&f->v, "TOP2"), 0.495, 1e-12);
    assert_string_equal(util_plot_var(&f->v, "NUNFIT"), "5");
    plot_template_vars_release(&f->v);
    f->r.v.nbars_fit = 5;
    for (i = 0; i < 6; i++)
        f->r.v.bars[i].fits = i < 5;
    plot_bars_fill_memory(&f->r.v, &f->v, &f->dat);
    /* panel 2 keeps 0.16: panel 1 is 0.63 - 0.1 - 0.16 = 0.37 high */
    assert_near(num(&f->v, "BOTTOM1"), 0.385, 1e-12);
    assert_near(num(&f->v, "TOP2"), 0.285, 1e-12);
    assert_near(num(&f->v, "BOTTOM2"), 0.125, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plot_bars_steps_rows_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_bars_steps_placeholders_by_hand, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_bars_steps_expected_all_fit,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_bars_steps_axis_end, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plot_bars_steps_omitted_families,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_bars_steps_empty, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_plot_bars_memory_panels_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_bars_memory_all_fit, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_bars_memory_keeps_small_panel_readable, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
