/*
 * test_plot_charts: the list of charts (names, order, which a report
 * has: the waterfall only with an expected step) and writing one chart's
 * two files from a hand-made report: the script from its template with
 * the placeholders every chart has (the footer naming the inputs, the
 * output paths relative to the directory gnuplot runs in), the data
 * file beside it, and the errors: an unknown placeholder, a template
 * that is not there, a symbolic link planted under a file's name.
 *
 * The report: Model-X on 64 GPU-Ys, one family "A" with one bar, one
 * plan on each roofline, a three-point sensitivity grid and, for the
 * waterfall, a recommended plan from 10 s (speed of light) to 12 s
 * (expected).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot_charts.h"
#include "scale.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
    struct util_parts r;
    struct views_point pt;
    struct scale scale; /* add_scale's */
    char dir[64];       /* a fresh temporary directory per test */
};

static const double grid[3] = {50, 100, 200};

/* A roofline over one link: a roof of 500 TFLOP/s meeting a slope of
 * bps, at 500e12 / bps FLOP/B. */
static void roofline(struct views_roofline *o, const char *link, double bps)
{
    o->link = link;
    snprintf(o->roof[0].name, sizeof o->roof[0].name, "BF16 achievable");
    o->roof[0].tflops = 500;
    o->roof[0].bps = bps;
    o->roof[0].ridge = 500e12 / bps;
    o->nroofs = 1;
    o->slope_bps[0] = bps;
    o->nslopes = 1;
    o->top_achievable = 500;
    o->xlo = 10;
    o->xhi = 1e5;
    o->ylo = 10;
    o->yhi = 1000;
    o->npoints = 1;
}

/* A sensitivity chart: family A at 8, 6 and 5 s on the grid. */
static void sens(struct views_sens_chart *c, const char *link)
{
    c->link = link;
    c->gbps = grid;
    c->n = 3;
    c->today = 100;
    c->family[0] = 0;
    c->nfamilies = 1;
    c->ylo = 5;
    c->yhi = 8;
    c->line1 = strdup("No baseline in this sweep");
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct util_parts *r;
    size_t i;
    if (!f)
        return -1;
    util_parts_init(&f->r);
    util_parts_families(&f->r, RANKING_FAMILY_KEYS); /* room; none yet */
    util_parts_charts(&f->r, RANKING_FAMILY_KEYS);
    f->r.rank.nfamilies = 0;
    r = &f->r;
    snprintf(f->m.spec.name, sizeof f->m.spec.name, "Model-X");
    f->m.meta.path = "in/model-x.ini";
    snprintf(f->hw.spec.gpu_name, sizeof f->hw.spec.gpu_name, "GPU-Y");
    f->hw.meta.path = "in/gpu-y.ini";
    f->hw.spec.gpus = 64;
    f->hw.spec.hbm_gib = 80;
    f->hw.capacity_bytes = 80 * 1073741824.0;
    f->hw.compute_derate = 1;
    r->in.m = &f->m;
    r->in.hw = &f->hw;
    r->in.comm = COMM_TOPO;
    snprintf(r->in.version, sizeof r->in.version, "9.8.7");
    snprintf(r->v.when, sizeof r->v.when, "2025-01-31 12:00 UTC");
    r->rank.headroom_pct = 10;
    r->rank.valid = 1;
    snprintf(r->rank.family[0].name, sizeof r->rank.family[0].name, "A");
    r->v.family[0].color = 0x0077BB;
    r->rank.family[0].best.t.step = 5;
    r->rank.nfamilies = 1;
    r->v.baseline.family = -1;
    r->v.published = -1;
    /* one fitting plan: 4 + 1 (exposed IB) = 5 s, 6 s serial */
    r->v.bars[0].family = 0;
    r->v.bars[0].compute = 4;
    r->v.bars[0].exposed[COST_IB] = 1;
    r->v.bars[0].step = 5;
    r->v.bars[0].serial = 6;
    r->v.bars[0].fits = true;
    r->v.bars[0].bound = COST_IB;
    r->v.nbars = r->v.nbars_fit = 1;
    r->v.steps_max = 5;
    r->v.memory_fit_max = 80;
    f->pt.x[0] = 1000;
    f->pt.x[1] = 2000;
    f->pt.y = 300;
    f->pt.step = 5;
    r->v.points = &f->pt;
    r->v.npoints = 1;
    r->v.blocks[0].n = 1;
    r->v.blocks[0].labelled = true;
    r->v.blocks[0].number = 1;
    r->v.nblocks = 1;
    roofline(&r->v.roofline[0], "IB", 50e9);
    roofline(&r->v.roofline[1], "NVLink", 400e9);
    sens(&r->v.sens[0], "IB");
    sens(&r->v.sens[1], "NVLink");
    for (i = 0; i < 3; i++) {
        r->rank.family[0].sens_ib_step[i] = r->rank.family[0].sens_nv_step[i] =
            i == 0   ? 8
            : i == 1 ? 6
                     : 5;
    }
    if (!mkdtemp(strcpy(f->dir, "/tmp/roofplan-charts-XXXXXX"))) {
        free(f);
        return -1;
    }
    views_finish(&f->r.v); /* the sentences not set: "" */
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    int rc = util_remove_tree(f->dir);
    f->r.v.points = NULL; /* the fixture's own */
    f->r.v.scale = NULL;
    scale_free(&f->scale);
    util_parts_free(&f->r);
    free(f);
    return rc;
}

/* The recommended plan's waterfall: 10 s, +2 s from the first effect
 * (all of the gap), 12 s expected. */
static void add_waterfall(struct util_parts *r)
{
    struct views_waterfall *w = &r->v.waterfall[0];
    int k;
    w->known = true;
    w->sol = 10;
    w->effects = EXPECTED_FACTORS;
    w->add[0] = 2;
    w->share[0] = 1;
    for (k = 0; k < EXPECTED_EFFECTS; k++)
        w->cum[k] = 12;
    w->expected = 12;
    w->plan.gpus = 64;
    w->plan.tp = w->plan.pp = w->plan.ep = w->plan.cp = 1;
    w->plan.vpp = w->plan.mbs = 1;
    r->in.expected = true;
}

/* Two cluster sizes, 64 and 128 GPUs, each with a fitting plan (the
 * scale chart's figures are test_plot_scale's). */
static void add_scale(struct fixture *f)
{
    struct scale_size z[2];
    long k;
    memset(z, 0, sizeof z);
    for (k = 0; k < 2; k++) {
        z[k].gpus = 64 << k;
        z[k].any = z[k].fits = true;
        z[k].tokens_per_s_per_gpu = 1000 - 100 * (double)k;
        z[k].f.days = z[k].f.wall_days = z[k].wall_hi = 10 / (double)(k + 1);
        z[k].f.wall_cost = z[k].cost_hi = 1e4;
    }
    assert_true(scale_of(z, 2, 0.8, 0, 0, &f->scale));
    f->r.v.scale = &f->scale;
}

/* The whole file at path (malloc'd, NUL-terminated), or NULL. */
static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!fp)
        return NULL;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 &&
        fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
        fread(buf, 1, (size_t)n, fp) == (size_t)n)
        buf[n] = '\0';
    else {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    return buf;
}

/* Writes chart c of f's report into f->dir from tdir, into gp and dat. */
static enum status write_chart(struct fixture *f,
                               size_t c,
                               const char *tdir,
                               char *gp,
                               char *dat,
                               struct diag *d)
{
    snprintf(gp, 128, "%s/%s.gp", f->dir, plot_charts_name(c));
    snprintf(dat, 128, "%s/%s.dat", f->dir, plot_charts_name(c));
    diag_init(d);
    return plot_charts_write(&f->r.v, c, tdir, gp, dat, d);
}

static void test_plot_charts_names_in_order(void **state)
{
    static const char *const want[PLOT_CHARTS] = {
        "roofline-ib", "roofline-nvlink", "step-breakdown",
        "memory",      "sensitivity-ib",  "sensitivity-nvlink",
        "waterfall",   "summary",         "scale"};
    size_t c;
    (void)state;
    for (c = 0; c < PLOT_CHARTS; c++)
        assert_string_equal(plot_charts_name(c), want[c]);
    assert_string_equal(plot_charts_name(PLOT_CHARTS), "");
}

/* Six charts at the speed of light; the waterfall needs the recommended
 * plan's expected step, the summary card a recommended plan, the scale
 * chart (the last) several cluster sizes. */
static void test_plot_charts_wanted_waterfall_needs_expected(void **state)
{
    struct fixture *f = *state;
    size_t c;
    f->r.v.headline.any = false;
    for (c = 0; c < PLOT_CHARTS; c++)
        assert_int_equal(plot_charts_wanted(&f->r.v, c), c < 6);
    f->r.v.headline.any = true;
    for (c = 0; c < PLOT_CHARTS; c++)
        assert_int_equal(plot_charts_wanted(&f->r.v, c), c != 6 && c != 8);
    add_waterfall(&f->r);
    for (c = 0; c < PLOT_CHARTS; c++)
        assert_int_equal(plot_charts_wanted(&f->r.v, c), c != 8);
    add_scale(f);
    for (c = 0; c < PLOT_CHARTS; c++)
        assert_true(plot_charts_wanted(&f->r.v, c));
    assert_false(plot_charts_wanted(&f->r.v, PLOT_CHARTS));
}

/* Every shipped template gets every placeholder it names: each chart
 * is written, its script headed and footed, its data beside it. */
static void test_plot_charts_write_every_chart(void **state)
{
    struct fixture *f = *state;
    char gp[128], dat[128], want[256];
    struct diag d;
    size_t c;
    add_waterfall(&f->r);
    add_scale(f);
    for (c = 0; c < PLOT_CHARTS; c++) {
        const char *name = plot_charts_name(c);
        char *script, *data;
        if (write_chart(f, c, "templates", gp, dat, &d) != STATUS_OK)
            fail_msg("%s: %s", name, d.msg);
        script = slurp(gp);
        data = slurp(dat);
        assert_non_null(script);
        assert_non_null(data);
        snprintf(want, sizeof want,
                 "# %s.gp: written by roofplan from templates/%s.gp.in; "
                 "edit and re-run `gnuplot %s.gp` in this directory.\n",
                 name, name, name);
        if (strncmp(script, want, strlen(want)) != 0)
            fail_msg("%s starts \"%.120s\"", gp, script);
        assert_null(strstr(script, "@FOOTER@"));
        snprintf(want, sizeof want, "'./%s.png'", name);
        assert_non_null(strstr(script, want));
        snprintf(want, sizeof want, "'./%s.dat'", name);
        assert_non_null(strstr(script, want));
        assert_non_null(strstr(script, "'roofplan 9.8.7, topo communication "
                                       "model, at the inputs of 2025-01-31 "
                                       "12:00 UTC; model in/model-x.ini, "
                                       "hardware in/gpu-y.ini, sweep -'"));
        snprintf(want, sizeof want, "# %s", name); /* the data's header */
        assert_memory_equal(data, want, strlen(want));
        free(script);
        free(data);
    }
}

/* The data file is the chart's: A's bar, 4 s compute + 1 s exposed IB =
 * 5 s, 6 s serial, fits, IB-bound, no expected step here. */
static void test_plot_charts_write_data_by_hand(void **state)
{
    struct fixture *f = *state;
    char gp[128], dat[128], *data;
    struct diag d;
    assert_int_equal(write_chart(f, 2, "templates", gp, dat, &d), STATUS_OK);
    data = slurp(dat);
    assert_non_null(data);
    assert_non_null(strstr(data, "\n1 4 1 0 0 0 0 5 6 1 1 0\n"));
    free(data);
}

/* The common placeholders exactly, through a template of them alone; a
 * trailing '/' on the template directory is not doubled; the other
 * communication model and the sweep's path show in the footer. */
static void test_plot_charts_write_common_placeholders(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sweep;
    char tdir[128], path[192], gp[128], dat[128], want[1024], *script;
    struct diag d;
    memset(&sweep, 0, sizeof sweep);
    sweep.meta.path = "in/sweep.ini";
    f->r.in.sweep = &sweep;
    f->r.in.comm = COMM_FLAT;
    snprintf(tdir, sizeof tdir, "%s/t/", f->dir);
    assert_int_equal(mkdir(tdir, 0755), 0);
    snprintf(path, sizeof path, "%smemory.gp.in", tdir);
    util_write_text(NULL, path, "@FOOTER@\n@PNG@ @SVG@ @PDF@ @DATA@\n@NFIT@\n");
    assert_int_equal(write_chart(f, 3, tdir, gp, dat, &d), STATUS_OK);
    script = slurp(gp);
    assert_non_null(script);
    snprintf(want, sizeof want,
             "# memory.gp: written by roofplan from %smemory.gp.in; edit "
             "and re-run `gnuplot memory.gp` in this directory.\n"
             "'roofplan 9.8.7, flat communication model, at the inputs of "
             "2025-01-31 12:00 UTC; model in/model-x.ini, hardware "
             "in/gpu-y.ini, sweep in/sweep.ini'\n"
             "'./memory.png' './memory.svg' './memory.pdf' './memory.dat'\n"
             "1\n",
             tdir);
    assert_string_equal(script, want);
    free(script);
}

/* Moved from test_plot_out: an unknown placeholder names the template's
 * line, and neither file is written. */
static void test_plot_charts_write_rejects_unknown_placeholder(void **state)
{
    struct fixture *f = *state;
    char tdir[128], path[192], gp[128], dat[128], want[256];
    struct diag d;
    snprintf(tdir, sizeof tdir, "%s/templates", f->dir);
    assert_int_equal(mkdir(tdir, 0755), 0);
    snprintf(path, sizeof path, "%s/roofline-ib.gp.in", tdir);
    util_write_text(NULL, path, "# fine\nx = @NFAM@\ny = @NOPE@\n");
    assert_int_equal(write_chart(f, 0, tdir, gp, dat, &d), STATUS_PARSE);
    snprintf(want, sizeof want, "%s:3: unknown placeholder @NOPE@", path);
    assert_string_equal(d.msg, want);
    assert_int_equal(access(gp, F_OK), -1);
    assert_int_equal(access(dat, F_OK), -1);
}

static void test_plot_charts_write_missing_template(void **state)
{
    struct fixture *f = *state;
    char tdir[128], gp[128], dat[128], want[256];
    struct diag d;
    snprintf(tdir, sizeof tdir, "%s/none", f->dir);
    assert_int_equal(write_chart(f, 3, tdir, gp, dat, &d), STATUS_IO);
    snprintf(want, sizeof want,
             "%s/memory.gp.in: cannot open: No such file or directory", tdir);
    assert_string_equal(d.msg, want);
    assert_int_equal(access(gp, F_OK), -1);
}

/* Moved from test_plot_out: a symbolic link planted under the data
 * file's name is an error, and nothing is written where it points. */
static void test_plot_charts_write_follows_no_symlink(void **state)
{
    struct fixture *f = *state;
    char gp[128], dat[128], target[128], want[256];
    struct diag d;
    snprintf(dat, sizeof dat, "%s/roofline-ib.dat", f->dir);
    snprintf(target, sizeof target, "%s/elsewhere", f->dir);
    assert_int_equal(symlink(target, dat), 0);
    assert_int_equal(write_chart(f, 0, "templates", gp, dat, &d), STATUS_IO);
    snprintf(want, sizeof want,
             "%s: cannot write: Too many levels of symbolic links", dat);
    assert_string_equal(d.msg, want);
    assert_int_equal(access(target, F_OK), -1);
    assert_int_equal(access(gp, F_OK), -1); /* the data goes first */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plot_charts_names_in_order),
        cmocka_unit_test_setup_teardown(
            test_plot_charts_wanted_waterfall_needs_expected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_charts_write_every_chart,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_plot_charts_write_data_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_charts_write_common_placeholders, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_charts_write_rejects_unknown_placeholder, setup,
            teardown),
        cmocka_unit_test_setup_teardown(test_plot_charts_write_missing_template,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_plot_charts_write_follows_no_symlink, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
