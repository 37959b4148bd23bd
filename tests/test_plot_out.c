/*
 * test_plot_out: the charts' data and scripts against tests/golden/
 * (plot_charts and the chart modules), hostile names rendered by the
 * real gnuplot, the images (PNG size, SVG that parses), fake gnuplots
 * that hang, fail or draw nothing, plot_out_abort(), and what the output
 * directory is left with (nothing removed). One chart's files on their
 * own (an unknown placeholder, a planted symbolic link): test_plot_charts.
 *
 * The report is a narrow sweep of DeepSeek-V3 on H800 (a few hundred
 * plans), once at the speed of light only (no calibration: no waterfall
 * chart, and no file of it) and once with the H800 calibration and
 * DeepSeek's stack (the snapshots in tests/data/snap), which adds the
 * waterfall. ROOFPLAN_GOLDEN_UPDATE=1 rewrites the golden files instead
 * of comparing (`make golden`).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "calibration.h"
#include "cost.h"
#include "datafile.h"
#include "plot_out.h"
#include "scale.h"
#include "test_util.h"
#include "views.h"
#include "stack.h"
#include "sweep.h"

static const char *const narrow[] = {"space.tp=1",
                                     "space.pp=1 16",
                                     "space.ep=1 64",
                                     "space.zero=1 3",
                                     "space.schedule=1f1b dualpipe",
                                     "space.precision=fp8",
                                     "space.recompute=selective",
                                     "space.mbs=1"};

static const char *const charts[PLOT_CHARTS] = {
    "roofline-ib", "roofline-nvlink", "step-breakdown",
    "memory",      "sensitivity-ib",  "sensitivity-nvlink",
    "waterfall",   "summary",         "scale"};
#define WATERFALL 6

struct fixture {
    struct model m;
    struct hardware hw, hw_x; /* hw_x.cal = &cal */
    struct calibration cal;
    struct stack stack;
    struct sweep_file sweep;
    struct cost_ctx ctx, other, ctx_x, other_x;
    struct util_parts rep;   /* speed of light only: seven charts */
    struct util_parts rep_x; /* with the expected step and two cluster
                                sizes (scale): every chart */
    struct scale scale;      /* rep_x's */
    char dir[64];            /* a fresh temporary directory per test */
};

/* rep_x's recommended plan as the smaller of two cluster sizes, and at
 * twice the GPUs a plan at 90% of its tokens/s per GPU: the scale chart
 * (its figures are test_plot_scale's). */
static bool two_sizes(const struct views *v, struct scale *s)
{
    struct scale_size z[2];
    scale_size_of(v, &z[0]);
    z[1] = z[0];
    z[1].gpus *= 2;
    z[1].tokens_per_s_per_gpu *= 0.9;
    return scale_of(z, 2, 0.8, 0, 0, s);
}

static int setup(void **state)
{
    static struct fixture f;
    struct datafile_set sets[sizeof narrow / sizeof narrow[0]];
    struct diag d;
    size_t i;
    diag_init(&d);
    memset(&f, 0, sizeof f);
    for (i = 0; i < sizeof narrow / sizeof narrow[0]; i++)
        if (datafile_parse_set(narrow[i], &sets[i], &d) != STATUS_OK)
            return -1;
    if (model_load("data/models/deepseek-v3.ini", &f.m, NULL, 0, &d) ||
        hardware_load("data/hardware/h800.ini", &f.hw, NULL, 0, &d) ||
        hardware_load("data/hardware/h800.ini", &f.hw_x, NULL, 0, &d) ||
        calibration_load("tests/data/snap/calibration/h800.ini", &f.cal, NULL,
                         0, &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", &f.stack, NULL, 0,
                   &d) ||
        sweep_load("data/sweeps/default.ini", &f.sweep, sets,
                   sizeof narrow / sizeof narrow[0], &d) ||
        cost_ctx_init(&f.ctx, &f.m, &f.hw, COMM_TOPO, &d) ||
        cost_ctx_init(&f.other, &f.m, &f.hw, COMM_FLAT, &d) ||
        cost_ctx_init(&f.ctx_x, &f.m, &f.hw_x, COMM_TOPO, &d) ||
        cost_ctx_init(&f.other_x, &f.m, &f.hw_x, COMM_FLAT, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    f.hw_x.cal = &f.cal;
    f.ctx_x.stack = f.other_x.stack = &f.stack;
    util_report(&f.rep, &f.ctx, &f.other, &f.sweep, 0, "data", 0);
    util_report(&f.rep_x, &f.ctx_x, &f.other_x, &f.sweep, 0, "data", 0);
    if (!two_sizes(&f.rep_x.v, &f.scale))
        return -1;
    f.rep_x.v.scale = &f.scale;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    f->rep_x.v.scale = NULL;
    scale_free(&f->scale);
    util_parts_free(&f->rep);
    util_parts_free(&f->rep_x);
    cost_ctx_release(&f->ctx);
    cost_ctx_release(&f->other);
    cost_ctx_release(&f->ctx_x);
    cost_ctx_release(&f->other_x);
    sweep_release(&f->sweep);
    stack_release(&f->stack);
    calibration_release(&f->cal);
    hardware_release(&f->hw);
    hardware_release(&f->hw_x);
    model_release(&f->m);
    return 0;
}

static int make_dir(void **state)
{
    struct fixture *f = *state;
    snprintf(f->dir, sizeof f->dir, "/tmp/roofplan-plot-XXXXXX");
    return mkdtemp(f->dir) ? 0 : -1;
}

static int remove_dir(void **state)
{
    struct fixture *f = *state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    return system(cmd) == 0 ? 0 : -1;
}

/* The whole file at path (malloc'd, NUL-terminated), or NULL. */
static char *slurp(const char *path, size_t *len)
{
    FILE *fp = fopen(path, "rb");
    char *buf = NULL;
    long n;
    if (!fp)
        return NULL;
    if (fseek(fp, 0, SEEK_END) == 0 && (n = ftell(fp)) >= 0 &&
        fseek(fp, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) &&
        fread(buf, 1, (size_t)n, fp) == (size_t)n) {
        buf[n] = '\0';
        if (len)
            *len = (size_t)n;
    } else {
        free(buf);
        buf = NULL;
    }
    fclose(fp);
    return buf;
}

static bool have_gnuplot(void)
{
    return system("command -v gnuplot >/dev/null 2>&1") == 0;
}

static void write_script(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(chmod(path, 0755), 0);
}

/* ---- Golden files ---- */

/* The file got_path against tests/golden/<name>; rewritten instead with
 * ROOFPLAN_GOLDEN_UPDATE. */
static void check_golden(const char *got_path, const char *name)
{
    char want_path[128];
    char *got, *want;
    size_t got_len = 0, want_len = 0;
    bool same;
    snprintf(want_path, sizeof want_path, "tests/golden/%s", name);
    got = slurp(got_path, &got_len);
    assert_non_null(got);
    if (getenv("ROOFPLAN_GOLDEN_UPDATE")) {
        FILE *fp = fopen(want_path, "wb");
        assert_non_null(fp);
        assert_int_equal(fwrite(got, 1, got_len, fp), got_len);
        assert_int_equal(fclose(fp), 0);
    }
    want = slurp(want_path, &want_len);
    same = want && got_len == want_len && memcmp(got, want, got_len) == 0;
    free(got);
    free(want);
    if (!same)
        fail_msg("%s differs from %s (diff them; `make golden` accepts the "
                 "new output)",
                 got_path, want_path);
}

static void test_plot_out_write_matches_golden(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0, "templates", "/nonexistent/gnuplot"};
    struct plot_files pf;
    struct diag d;
    size_t i, k;
    diag_init(&d);
    assert_int_equal(plot_out_write(&f->rep.v, f->dir, &opt, &pf, &d),
                     STATUS_OK);
    assert_true(pf.gnuplot_missing);
    assert_false(pf.rendered);
    assert_int_equal(pf.ncharts, PLOT_CHARTS - 2); /* no waterfall, scale */
    assert_string_equal(pf.chart[WATERFALL].name, "summary");
    for (i = 0; i < pf.ncharts; i++)
        for (k = 0; k < 2; k++) {
            const char *ext = k ? ".dat" : ".gp";
            char got_path[128], name[64];
            snprintf(got_path, sizeof got_path, "%s/%s%s", f->dir,
                     pf.chart[i].name, ext);
            snprintf(name, sizeof name, "%s%s", pf.chart[i].name, ext);
            assert_string_equal(k ? pf.chart[i].data : pf.chart[i].script,
                                got_path);
            check_golden(got_path, name);
        }
}

/* With the expected step, the waterfall is the seventh chart. */
static void test_plot_out_write_waterfall_matches_golden(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0, "templates", "/nonexistent/gnuplot"};
    struct plot_files pf;
    struct diag d;
    char path[128];
    diag_init(&d);
    assert_true(f->rep_x.v.waterfall[0].known);
    assert_true(f->rep_x.v.waterfall[1].known); /* DeepSeek's published run */
    assert_int_equal(plot_out_write(&f->rep_x.v, f->dir, &opt, &pf, &d),
                     STATUS_OK);
    assert_int_equal(pf.ncharts, PLOT_CHARTS);
    assert_string_equal(pf.chart[WATERFALL].name, "waterfall");
    snprintf(path, sizeof path, "%s/waterfall.gp", f->dir);
    assert_string_equal(pf.chart[WATERFALL].script, path);
    check_golden(path, "waterfall.gp");
    snprintf(path, sizeof path, "%s/waterfall.dat", f->dir);
    assert_string_equal(pf.chart[WATERFALL].data, path);
    check_golden(path, "waterfall.dat");
}

/* Without the expected step: no waterfall file at all, and no error. */
static void test_plot_out_write_skips_waterfall_without_expected(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0, "templates", NULL};
    struct plot_files pf;
    struct diag d;
    char path[128];
    size_t i;
    static const char *const ext[] = {".gp", ".dat", ".png", ".svg", ".pdf"};
    assert_false(f->rep.v.waterfall[0].known);
    diag_init(&d);
    if (plot_out_write(&f->rep.v, f->dir, &opt, &pf, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(pf.ncharts, PLOT_CHARTS - 2); /* one size: no scale */
    for (i = 0; i < pf.ncharts; i++)
        assert_string_not_equal(pf.chart[i].name, "waterfall");
    for (i = 0; i < sizeof ext / sizeof ext[0]; i++) {
        snprintf(path, sizeof path, "%s/waterfall%s", f->dir, ext[i]);
        if (access(path, F_OK) == 0)
            fail_msg("%s written for a report without an expected step", path);
    }
}

static void test_plot_out_write_warns_without_gnuplot(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0, "templates", "/nonexistent/gnuplot"};
    struct plot_files pf;
    struct diag d;
    diag_init(&d);
    assert_int_equal(plot_out_write(&f->rep.v, f->dir, &opt, &pf, &d),
                     STATUS_OK);
    assert_true(pf.gnuplot_missing);
    assert_non_null(strstr(pf.warning, "make plots"));
    assert_non_null(strstr(pf.warning, "gnuplot roofline-ib.gp"));
    assert_string_equal(pf.chart[0].png, "");
}

/* ---- Rendering ---- */

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           (uint32_t)p[3];
}

/* Every chart is 1600x900; the summary card a taller page, 1600x1000. */
static void check_png(const char *path, uint32_t height)
{
    static const unsigned char sig[8] = {0x89, 'P',  'N',  'G',
                                         '\r', '\n', 0x1a, '\n'};
    size_t len = 0;
    unsigned char *png = (unsigned char *)slurp(path, &len);
    if (!png)
        fail_msg("%s: missing", path);
    assert_true(len > 33);
    assert_memory_equal(png, sig, 8);
    assert_memory_equal(png + 12, "IHDR", 4);
    if (be32(png + 16) != 1600 || be32(png + 20) != height)
        fail_msg("%s: %ux%u, expected 1600x%u", path, be32(png + 16),
                 be32(png + 20), height);
    free(png);
}

static void check_svg(const char *path)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd,
             "/usr/bin/python3 -c 'import sys, xml.etree.ElementTree as E; "
             "E.parse(sys.argv[1])' '%s'",
             path);
    if (system(cmd) != 0)
        fail_msg("%s: not well-formed XML", path);
}

static void test_plot_out_write_renders_png_and_svg(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0, "templates", NULL};
    struct plot_files pf;
    struct diag d;
    size_t i;
    if (!have_gnuplot())
        skip();
    diag_init(&d);
    if (plot_out_write(&f->rep_x.v, f->dir, &opt, &pf, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    assert_true(pf.rendered);
    assert_false(pf.gnuplot_missing);
    assert_int_equal(pf.ncharts, PLOT_CHARTS);
    for (i = 0; i < PLOT_CHARTS; i++) {
        char want[128];
        snprintf(want, sizeof want, "%s/%s.png", f->dir, charts[i]);
        assert_string_equal(pf.chart[i].png, want);
        check_png(pf.chart[i].png,
                  strcmp(charts[i], "summary") == 0 ? 1000 : 900);
        check_svg(pf.chart[i].svg);
        assert_string_not_equal(pf.chart[i].pdf, ""); /* pdfcairo: TOOLING */
    }
}

/* gnuplot runs in the output directory: each command would leave a
 * pwnedN file there. */
#define HOSTILE                                                    \
    "`touch pwned1` system(\"touch pwned2\") @macro it's \\\nset " \
    "output '|touch pwned3'\n!touch pwned4"

static void test_plot_out_write_shows_hostile_names_literally(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0, "templates", NULL};
    struct plot_files pf;
    struct diag d;
    struct util_parts rep = f->rep_x; /* shallow: rows stay f->rep_x's */
    struct model m = f->m;
    struct hardware hw = f->hw;
    const char *name = HOSTILE;
    char path[128], *svg, *gp;
    size_t i;
    if (!have_gnuplot())
        skip();
    util_parts_link(&rep); /* the copy's views read the copy's parts */
    snprintf(m.spec.name, sizeof m.spec.name, "%s", name);
    snprintf(hw.spec.gpu_name, sizeof hw.spec.gpu_name, "%s", name);
    /* "]]>": gnuplot's SVG terminal leaves '>' unescaped */
    snprintf(rep.rank.family[rep.rank.families_by_step[0]].name,
             sizeof rep.rank.family[0].name, "@x@ `id`\n!id ' ]]>");
    for (i = 0; i < rep.rank.nvalidations; i++)
        snprintf(rep.rank.validation[i].name,
                 sizeof rep.rank.validation[i].name, "%s", name);
    /* the published run's name in the waterfall's panel heading */
    snprintf(rep.v.waterfall[1].name, sizeof rep.v.waterfall[1].name, "%s",
             name);
    rep.in.m = &m;
    rep.in.hw = &hw;
    diag_init(&d);
    if (plot_out_write(&rep.v, f->dir, &opt, &pf, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    for (i = 1; i <= 4; i++) {
        snprintf(path, sizeof path, "%s/pwned%zu", f->dir, i);
        if (access(path, F_OK) == 0)
            fail_msg("%s exists: a name was executed", path);
    }
    assert_int_equal(pf.ncharts, PLOT_CHARTS);
    for (i = 0; i < PLOT_CHARTS; i++)
        check_svg(pf.chart[i].svg);
    /* the text is shown as given, newlines as spaces */
    svg = slurp(pf.chart[0].svg, NULL);
    assert_non_null(svg);
    assert_non_null(strstr(svg, "@macro"));
    assert_non_null(strstr(svg, "system("));
    assert_non_null(strstr(svg, "`touch "));
    assert_non_null(strstr(svg, "@x@ `id`"));
    assert_non_null(strstr(svg, "!id ' ]] >"));
    free(svg);
    gp = slurp(pf.chart[0].script, NULL);
    assert_non_null(gp);
    assert_non_null(strstr(gp, "it''s \\ set output ''|touch "));
    free(gp);
}

/* ---- Fake gnuplots ---- */

static void test_plot_out_write_kills_a_hanging_gnuplot(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0.5, "templates", NULL};
    struct plot_files pf;
    struct diag d;
    char prog[128];
    struct timespec t0, t1;
    double took;
    snprintf(prog, sizeof prog, "%s/gnuplot", f->dir);
    write_script(prog, "#!/bin/sh\necho 'still thinking' >&2\nsleep 60\n");
    opt.gnuplot = prog;
    diag_init(&d);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(plot_out_write(&f->rep.v, f->dir, &opt, &pf, &d),
                     STATUS_PLOT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    took = (double)(t1.tv_sec - t0.tv_sec) +
           (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    if (took > 5)
        fail_msg("took %.1f s with a 0.5 s timeout", took);
    assert_false(pf.rendered);
    assert_non_null(strstr(d.msg, "roofline-ib.gp: gnuplot did not finish "
                                  "within 0.5 s and was killed: still "
                                  "thinking"));
    assert_non_null(strstr(d.msg, "sensitivity-ib.gp: gnuplot did not"));
    /* the scripts and data stay for the user */
    assert_int_equal(access(pf.chart[4].script, R_OK), 0);
    assert_int_equal(access(pf.chart[4].data, R_OK), 0);
}

static void test_plot_out_write_reports_gnuplot_stderr(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0, "templates", NULL};
    struct plot_files pf;
    struct diag d;
    char prog[128], want[256];
    snprintf(prog, sizeof prog, "%s/gnuplot", f->dir);
    write_script(prog, "#!/bin/sh\necho \"\\\"$1\\\" line 3: no such "
                       "terminal\" >&2\nexit 3\n");
    opt.gnuplot = prog;
    diag_init(&d);
    assert_int_equal(plot_out_write(&f->rep.v, f->dir, &opt, &pf, &d),
                     STATUS_PLOT);
    snprintf(want, sizeof want,
             "%s/memory.gp: gnuplot failed (exit status 3): \"memory.gp\" "
             "line 3: no such terminal",
             f->dir);
    assert_non_null(strstr(d.msg, want));
    assert_false(pf.rendered);
}

/* A fake gnuplot that hangs, for the abort tests. */
static void hanging_gnuplot(struct fixture *f, char *prog, size_t size)
{
    snprintf(prog, size, "%s/gnuplot", f->dir);
    write_script(prog, "#!/bin/sh\nexec sleep 60\n");
}

static void test_plot_out_abort_stops_gnuplot(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {60, "templates", NULL};
    struct plot_files pf;
    struct plot_job job;
    struct diag d;
    char prog[128], want[256];
    struct timespec t0, t1;
    size_t c;
    hanging_gnuplot(f, prog, sizeof prog);
    opt.gnuplot = prog;
    memset(&job, 0, sizeof job);
    diag_init(&d);
    assert_int_equal(plot_out_start(&f->rep.v, f->dir, &opt, &job, &pf, &d),
                     STATUS_OK);
    assert_string_equal(job.gnuplot, prog);
    assert_int_equal(job.nruns, pf.ncharts);
    for (c = 0; c < job.nruns; c++) {
        assert_true(atomic_load(&job.runs[c].running));
        assert_int_equal(getpgid(job.runs[c].pid), job.runs[c].pid);
    }
    clock_gettime(CLOCK_MONOTONIC, &t0);
    plot_out_abort(&job);
    for (c = 0; c < PLOT_CHARTS; c++)
        assert_false(atomic_load(&job.runs[c].running));
    assert_int_equal(plot_out_finish(&job, &pf, &d), STATUS_PLOT);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    /* nowhere near the 60 s deadline */
    assert_true(t1.tv_sec - t0.tv_sec < 5);
    snprintf(want, sizeof want, "%s/roofline-ib.gp: gnuplot was stopped",
             f->dir);
    assert_non_null(strstr(d.msg, want));
    assert_non_null(strstr(d.msg, "sensitivity-ib.gp: gnuplot was stopped"));
    assert_false(pf.rendered);
    plot_out_abort(&job); /* again: nothing left to do */
}

static void test_plot_out_abort_before_start_spawns_nothing(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {60, "templates", NULL};
    struct plot_files pf;
    struct plot_job job;
    struct diag d;
    char prog[128], want[256];
    size_t c;
    hanging_gnuplot(f, prog, sizeof prog);
    opt.gnuplot = prog;
    memset(&job, 0, sizeof job);
    plot_out_abort(&job); /* the signal came first */
    diag_init(&d);
    assert_int_equal(plot_out_start(&f->rep.v, f->dir, &opt, &job, &pf, &d),
                     STATUS_PLOT);
    snprintf(want, sizeof want,
             "%s: gnuplot was stopped before the charts were drawn", f->dir);
    assert_string_equal(d.msg, want);
    for (c = 0; c < PLOT_CHARTS; c++) {
        assert_false(job.runs[c].spawned);
        assert_int_equal(job.runs[c].fd, -1);
    }
    assert_false(job.started);
}

/* A fake gnuplot that writes its chart's PNG (`png`: a printf format of
 * its bytes) and then hangs, as a gnuplot drawing its SVG and PDF. */
static void
png_then_hang(struct fixture *f, const char *png, char *prog, size_t size)
{
    char text[512];
    snprintf(prog, size, "%s/gnuplot", f->dir);
    snprintf(text, sizeof text,
             "#!/bin/sh\nprintf '%s' >\"${1%%.gp}.png\"\nexec sleep 60\n", png);
    write_script(prog, text);
}

/* A whole PNG (signature, IHDR, IEND; the CRCs are not looked at) and
 * the same without its IEND. */
#define PNG_HEAD                                                              \
    "\\211PNG\\r\\n\\032\\n\\0\\0\\0\\015IHDR\\0\\0\\0\\1\\0\\0\\0\\1\\10\\6" \
    "\\0\\0\\0CRC!"
#define PNG_WHOLE PNG_HEAD "\\0\\0\\0\\0IEND\\256B`\\202"

static void test_plot_out_wait_png_returns_before_gnuplot_ends(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {60, "templates", NULL};
    struct plot_files pf;
    struct plot_job job;
    struct diag d;
    char prog[128], want[256];
    struct timespec t0, t1;
    size_t c;
    png_then_hang(f, PNG_WHOLE, prog, sizeof prog);
    opt.gnuplot = prog;
    memset(&job, 0, sizeof job);
    diag_init(&d);
    assert_int_equal(plot_out_start(&f->rep.v, f->dir, &opt, &job, &pf, &d),
                     STATUS_OK);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    assert_int_equal(plot_out_wait_png(&job, &pf, &d), STATUS_OK);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    assert_true(t1.tv_sec - t0.tv_sec < 5); /* not the 60 s of sleep */
    for (c = 0; c < pf.ncharts; c++) {
        snprintf(want, sizeof want, "%s/%s.png", f->dir, pf.chart[c].name);
        assert_string_equal(pf.chart[c].png, want);
        assert_string_equal(pf.chart[c].svg, "");
        assert_true(atomic_load(&job.runs[c].running)); /* still drawing */
    }
    /* _finish still follows: here the SVGs never come */
    plot_out_abort(&job);
    assert_int_equal(plot_out_finish(&job, &pf, &d), STATUS_PLOT);
    assert_false(pf.rendered);
}

static void test_plot_out_wait_png_waits_for_a_whole_png(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0.5, "templates", NULL};
    struct plot_files pf;
    struct plot_job job;
    struct diag d;
    char prog[128], want[256];
    png_then_hang(f, PNG_HEAD, prog, sizeof prog);
    opt.gnuplot = prog;
    memset(&job, 0, sizeof job);
    diag_init(&d);
    assert_int_equal(plot_out_start(&f->rep.v, f->dir, &opt, &job, &pf, &d),
                     STATUS_OK);
    /* no IEND: not ready until the deadline, and then _finish's verdict */
    assert_int_equal(plot_out_wait_png(&job, &pf, &d), STATUS_PLOT);
    snprintf(want, sizeof want,
             "%s/roofline-ib.gp: gnuplot did not finish within 0.5 s", f->dir);
    assert_non_null(strstr(d.msg, want));
    assert_false(pf.rendered);
    assert_false(job.started);
    /* a _finish after that has nothing left to do */
    diag_init(&d);
    assert_int_equal(plot_out_finish(&job, &pf, &d), STATUS_OK);
}

static void test_plot_out_wait_png_reports_a_failed_gnuplot(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {60, "templates", NULL};
    struct plot_files pf;
    struct plot_job job;
    struct diag d;
    char prog[128], want[256];
    snprintf(prog, sizeof prog, "%s/gnuplot", f->dir);
    write_script(prog, "#!/bin/sh\necho 'no such terminal' >&2\nexit 3\n");
    opt.gnuplot = prog;
    memset(&job, 0, sizeof job);
    diag_init(&d);
    assert_int_equal(plot_out_start(&f->rep.v, f->dir, &opt, &job, &pf, &d),
                     STATUS_OK);
    assert_int_equal(plot_out_wait_png(&job, &pf, &d), STATUS_PLOT);
    snprintf(want, sizeof want,
             "%s/memory.gp: gnuplot failed (exit status 3): no such terminal",
             f->dir);
    assert_non_null(strstr(d.msg, want));
    assert_string_equal(pf.chart[0].png, "");
}

static void test_plot_out_write_keeps_earlier_files(void **state)
{
    struct fixture *f = *state;
    struct plot_options opt = {0, "templates", NULL};
    struct plot_files pf;
    struct diag d;
    char prog[128], old_png[128], other[128], want[256];
    struct timespec t = {0, 20000000};
    /* an image from an earlier run, and a file of someone else's */
    snprintf(old_png, sizeof old_png, "%s/roofline-ib.png", f->dir);
    snprintf(other, sizeof other, "%s/notes.txt", f->dir);
    write_script(old_png, "old image");
    write_script(other, "mine");
    nanosleep(&t, NULL); /* a later mtime for anything written now */
    /* a gnuplot that succeeds without drawing anything */
    snprintf(prog, sizeof prog, "%s/gnuplot", f->dir);
    write_script(prog, "#!/bin/sh\nexit 0\n");
    opt.gnuplot = prog;
    diag_init(&d);
    assert_int_equal(plot_out_write(&f->rep.v, f->dir, &opt, &pf, &d),
                     STATUS_PLOT);
    /* the earlier image does not pass for this run's */
    snprintf(want, sizeof want,
             "%s/roofline-ib.gp: gnuplot wrote no %s/roofline-ib.png", f->dir,
             f->dir);
    assert_non_null(strstr(d.msg, want));
    assert_string_equal(pf.chart[0].png, "");
    /* and nothing was removed */
    assert_int_equal(access(old_png, F_OK), 0);
    assert_int_equal(access(other, F_OK), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_plot_out_write_matches_golden,
                                        make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_write_waterfall_matches_golden, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_write_skips_waterfall_without_expected, make_dir,
            remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_write_warns_without_gnuplot, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_plot_out_write_renders_png_and_svg,
                                        make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_write_shows_hostile_names_literally, make_dir,
            remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_write_kills_a_hanging_gnuplot, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_write_reports_gnuplot_stderr, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(test_plot_out_abort_stops_gnuplot,
                                        make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_abort_before_start_spawns_nothing, make_dir,
            remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_wait_png_returns_before_gnuplot_ends, make_dir,
            remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_wait_png_waits_for_a_whole_png, make_dir, remove_dir),
        cmocka_unit_test_setup_teardown(
            test_plot_out_wait_png_reports_a_failed_gnuplot, make_dir,
            remove_dir),
        cmocka_unit_test_setup_teardown(test_plot_out_write_keeps_earlier_files,
                                        make_dir, remove_dir),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
