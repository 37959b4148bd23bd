/*
 * roofplan: speed-of-light planning of parallel LLM training.
 *
 * The command line (DESIGN.md §2): subcommands, options, exit codes. The
 * only file that prints to the terminal or exits.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "cost.h"
#include "csv_out.h"
#include "datafile.h"
#include "diag.h"
#include "eval_out.h"
#include "hardware.h"
#include "hf_config.h"
#include "model.h"
#include "plan.h"
#include "plot_out.h"
#include "report.h"
#include "sweep.h"
#include "xlsx_out.h"

#ifndef ROOFPLAN_VERSION
#define ROOFPLAN_VERSION "0.1.0"
#endif
#ifndef ROOFPLAN_DATADIR
#define ROOFPLAN_DATADIR "data"
#endif

#define PROG     "roofplan"
#define SETS_MAX 64

enum { EXIT_RUNTIME = 1, EXIT_INPUT = 2 };

struct config {
    const char *model_path, *hw_path, *sweep_path, *out_dir;
    const char *training_path; /* -t: recipe for a config.json model */
    struct datafile_set sets[SETS_MAX];
    size_t nsets;
    enum comm_model comm;
    bool json, csv, no_charts, quiet;
    size_t top;              /* --top N; 0: Excel's limit */
    size_t threads;          /* --threads N; 0: online CPUs */
    char command_line[1024]; /* as typed, for the About sheet */
};

struct inputs {
    struct model m;
    struct hardware hw;
    struct sweep_file sweep;
    bool have_m, have_hw, have_sweep;
};

static const char usage_text[] =
    "usage: roofplan report [OPTIONS]          sweep the plan space; write "
    "workbook + charts\n"
    "       roofplan eval   [OPTIONS] PLAN     evaluate one plan; print its "
    "breakdown\n"
    "       roofplan check  FILE...            validate data files; print "
    "nothing on success\n"
    "       roofplan --help | --version\n"
    "\n"
    "  -m, --model FILE       model: INI or Hugging Face config.json "
    "(default data/models/deepseek-v3.ini)\n"
    "  -t, --training FILE    training recipe where the model file is silent "
    "(default data/training/default.ini)\n"
    "  -g, --hardware FILE    cluster    (default data/hardware/h800.ini)\n"
    "  -s, --sweep FILE       plan space (default data/sweeps/default.ini)\n"
    "  -o, --out DIR          output dir (default out)\n"
    "      --set SEC.KEY=VAL  override any data-file value (repeatable)\n"
    "      --comm-model topo|flat\n"
    "      --json             (eval) machine-readable output on stdout\n"
    "      --csv              (report) also write plans.csv\n"
    "      --no-charts        (report) skip gnuplot\n"
    "      --top N            (report) keep the N best plans (default: all, "
    "up to Excel's row limit)\n"
    "      --threads N        (report) sweep on N threads (default: online "
    "CPUs); same output\n"
    "  -q, --quiet            no progress on stderr\n"
    "\n"
    "PLAN is key=value pairs, as several arguments or one argument separated\n"
    "by spaces or commas: gpus tp pp ep cp zero schedule vpp precision\n"
    "recompute mbs gbs (dp is derived; giving it is checked). Omitted keys\n"
    "take the sweep file's [defaults]. DeepSeek-V3's published plan:\n"
    "  roofplan eval gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe \\\n"
    "      precision=fp8 recompute=selective mbs=1 gbs=15360\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure, 2 bad usage or bad input.\n";

/* Prints every line of d's message as "roofplan: line". */
static void print_diag(const struct diag *d)
{
    const char *line = d->msg;
    while (*line) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(stderr, "%s: %.*s\n", PROG, len, line);
        if (!nl)
            break;
        line = nl + 1;
    }
}

static int exit_code(enum status st, bool input)
{
    switch (st) {
    case STATUS_OK:
        return 0;
    case STATUS_USAGE:
    case STATUS_PARSE:
    case STATUS_RANGE:
        return EXIT_INPUT;
    case STATUS_IO:
        return input ? EXIT_INPUT : EXIT_RUNTIME;
    default:
        return EXIT_RUNTIME;
    }
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", PROG);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s: try '%s --help'\n", PROG, PROG);
    return EXIT_INPUT;
}

/* The default data file: relative to the working directory, else the
 * data directory the build was configured with. */
static const char *default_path(const char *rel, char *buf, size_t size)
{
    if (access(rel, R_OK) == 0)
        return rel;
    snprintf(buf, size, "%s/%s", ROOFPLAN_DATADIR, rel + strlen("data/"));
    return access(buf, R_OK) == 0 ? buf : rel;
}

static void release_inputs(struct inputs *in)
{
    if (in->have_m)
        model_release(&in->m);
    if (in->have_hw)
        hardware_release(&in->hw);
    if (in->have_sweep)
        sweep_release(&in->sweep);
}

/* Every --set must have matched a section of a file that was loaded. */
static enum status check_sets_used(struct config *cfg, struct diag *d)
{
    size_t i;
    for (i = 0; i < cfg->nsets; i++)
        if (!cfg->sets[i].used)
            diag_add(d, STATUS_USAGE,
                     "--set %s: unknown section [%s] (model: model attention "
                     "ffn moe mtp training fp8; hardware: gpu cluster; sweep: "
                     "space defaults)",
                     cfg->sets[i].arg, cfg->sets[i].section);
    diag_finish(d);
    return d->status;
}

static enum status
load_inputs(struct config *cfg, struct inputs *in, struct diag *d)
{
    char b1[1024], b2[1024], b3[1024], b4[1024];
    const char *mp =
        cfg->model_path
            ? cfg->model_path
            : default_path("data/models/deepseek-v3.ini", b1, sizeof b1);
    const char *hp =
        cfg->hw_path ? cfg->hw_path
                     : default_path("data/hardware/h800.ini", b2, sizeof b2);
    const char *sp = cfg->sweep_path ? cfg->sweep_path
                                     : default_path("data/sweeps/default.ini",
                                                    b3, sizeof b3);
    const char *tp =
        cfg->training_path
            ? cfg->training_path
            : default_path("data/training/default.ini", b4, sizeof b4);
    struct diag d2, d3;
    diag_init(&d2);
    diag_init(&d3);
    memset(in, 0, sizeof *in);
    in->have_m = model_load_with_training(mp, tp, &in->m, cfg->sets, cfg->nsets,
                                          d) == STATUS_OK;
    in->have_hw =
        hardware_load(hp, &in->hw, cfg->sets, cfg->nsets, &d2) == STATUS_OK;
    in->have_sweep =
        sweep_load(sp, &in->sweep, cfg->sets, cfg->nsets, &d3) == STATUS_OK;
    /* Report the problems of all three files, not only the first. */
    if (d2.status != STATUS_OK)
        diag_add(d, d2.status, "%s", d2.msg);
    if (d3.status != STATUS_OK)
        diag_add(d, d3.status, "%s", d3.msg);
    if (d->status == STATUS_OK)
        check_sets_used(cfg, d);
    return d->status;
}

static int cmd_eval(struct config *cfg, char **args, size_t nargs)
{
    struct inputs in;
    struct diag d;
    struct plan defaults, p;
    struct cost_ctx ctx;
    struct cost_result r;
    struct comm_collective coll[COMM_LIST_MAX];
    struct eval_view view;
    size_t ncoll = 0;
    long given_dp = 0;
    int rc = 0;

    diag_init(&d);
    if (nargs == 0)
        return usage_error("eval: %s", "missing PLAN (e.g. tp=1 pp=16 ep=64)");
    if (load_inputs(cfg, &in, &d) != STATUS_OK) {
        print_diag(&d);
        release_inputs(&in);
        return exit_code(d.status, true);
    }
    sweep_defaults(&in.sweep, &in.m, &in.hw, &defaults);
    if (plan_parse(args, nargs, &defaults, &p, &given_dp, &d) != STATUS_OK) {
        print_diag(&d);
        fprintf(stderr, "%s: try '%s --help'\n", PROG, PROG);
        release_inputs(&in);
        return EXIT_INPUT;
    }
    if (plan_check(&p, &in.m, &in.hw, false, &d) != PLAN_OK) {
        fprintf(stderr, "%s: PLAN: %s\n", PROG, d.msg);
        release_inputs(&in);
        return EXIT_INPUT;
    }
    if (given_dp && given_dp != p.dp) {
        fprintf(stderr,
                "%s: PLAN token 'dp=%ld': gpus/(tp*pp*cp) = %ld/%ld = %ld\n",
                PROG, given_dp, p.gpus, p.tp * p.pp * p.cp, p.dp);
        release_inputs(&in);
        return EXIT_INPUT;
    }
    if (cost_ctx_init(&ctx, &in.m, &in.hw, cfg->comm, &d) != STATUS_OK ||
        cost_ctx_prepare(&ctx, p.pp, p.vpp, p.schedule, &d) != STATUS_OK) {
        print_diag(&d);
        cost_ctx_release(&ctx);
        release_inputs(&in);
        return exit_code(d.status, true);
    }
    cost_evaluate(&ctx, &p, &r, coll, COMM_LIST_MAX, &ncoll);
    plan_family(&p, r.family, sizeof r.family);
    view.ctx = &ctx;
    view.r = &r;
    view.coll = coll;
    view.ncoll = ncoll;
    if (cfg->json)
        eval_out_json(stdout, &view);
    else
        eval_out_text(stdout, &view);
    if (fflush(stdout) != 0 || ferror(stdout)) {
        perror(PROG ": stdout");
        rc = EXIT_RUNTIME;
    }
    cost_ctx_release(&ctx);
    release_inputs(&in);
    return rc;
}

/* Creates dir and its parents (mkdir -p). */
static enum status make_dirs(const char *dir, struct diag *d)
{
    char path[1024];
    size_t i, n = strlen(dir);
    if (n >= sizeof path)
        return diag_set(d, STATUS_IO, "%s: path too long", dir);
    memcpy(path, dir, n + 1);
    for (i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return diag_set(d, STATUS_IO, "%s: cannot create: %s", path,
                            strerror(errno));
        path[i] = i < n ? '/' : '\0';
    }
    {
        struct stat st;
        if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
            return diag_set(d, STATUS_IO, "%s: not a directory", dir);
    }
    return STATUS_OK;
}

static int64_t generation_time(void)
{
    const char *e = getenv("SOURCE_DATE_EPOCH");
    long v;
    if (e && datafile_parse_long(e, &v) && v >= 0)
        return (int64_t)v;
    return (int64_t)time(NULL);
}

/* gnuplot's deadline: ROOFPLAN_GNUPLOT_TIMEOUT seconds when set (tests,
 * slow machines), else plot_out's default. */
static struct plot_options plot_options(void)
{
    struct plot_options o = {0, NULL, NULL};
    const char *e = getenv("ROOFPLAN_GNUPLOT_TIMEOUT");
    double v;
    if (e && datafile_parse_double(e, &v) && v > 0)
        o.timeout_s = v;
    return o;
}

static void progress(void *user, uint64_t done, uint64_t total)
{
    (void)user;
    fprintf(stderr, "\r%s: %llu of %llu combinations (%.0f%%)", PROG,
            (unsigned long long)done, (unsigned long long)total,
            100.0 * (double)done / (double)total);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) +
           (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* The best plan of each family, fastest first, on stdout. */
static void print_summary(const struct report *r)
{
    size_t i;
    printf("%-16s %9s %-8s %8s %9s %6s  %s\n", "family", "step s", "bound",
           "comm/cmp", "mem GiB", "fits", "best plan");
    for (i = 0; i < r->nfamilies; i++) {
        const struct report_family *f = &r->family[r->families_by_step[i]];
        char plan[256];
        plan_format(&f->best.plan, plan, sizeof plan);
        printf("%-16s %9.3f %-8s %8.2f %9.1f %6s  %s\n", f->name,
               f->best.t.step, cost_bound_str(f->best.t.bound),
               f->best.t.comm_compute_ratio, f->best.mem.total / 1073741824.0,
               f->best.fits ? "yes" : "no", plan);
    }
    printf("\nvalidation: speed-of-light prediction (measured, where "
           "published)\n");
    for (i = 0; i < r->nvalidations; i++) {
        const struct report_validation *v = &r->validation[i];
        const struct cost_result *p = &v->predicted;
        char step[32] = "", tflops[32] = "", mfu[32] = "";
        if (v->measured_step_s > 0)
            snprintf(step, sizeof step, " (%.2f)", v->measured_step_s);
        if (v->measured_tflops_per_gpu > 0)
            snprintf(tflops, sizeof tflops, " (%.0f)",
                     v->measured_tflops_per_gpu);
        if (v->measured_mfu > 0)
            snprintf(mfu, sizeof mfu, " (%.1f%%)", 100 * v->measured_mfu);
        printf("  %-48s %6.2f s/step%s, %4.0f TFLOP/s/GPU%s, MFU %5.1f%%%s%s\n",
               v->name, p->t.step, step, p->work.model_flops / p->t.step / 1e12,
               tflops, 100 * p->t.mfu, mfu, p->fits ? "" : "; does not fit");
    }
}

/* Charts drawing while the workbook is written (xlsx_images.ready). */
struct chart_wait {
    struct plot_job job;
    struct plot_files files;
    struct diag d;
    struct xlsx_images *img;
    bool pending; /* plot_out_start succeeded, _finish not yet called */
};

/* The PNG gnuplot drew for chart `name` this run, or NULL. */
static const char *chart_png(const struct plot_files *charts, const char *name)
{
    size_t i;
    for (i = 0; charts && i < charts->ncharts; i++)
        if (strcmp(charts->chart[i].name, name) == 0 && charts->chart[i].png[0])
            return charts->chart[i].png;
    return NULL;
}

/* Waits for gnuplot, once; its errors go to cw->d. */
static void charts_finish(struct chart_wait *cw)
{
    if (cw->pending) {
        cw->pending = false;
        plot_out_finish(&cw->job, &cw->files, &cw->d);
    }
}

/* xlsx_images.ready: waits for gnuplot and hands over its PNGs. */
static void charts_ready(void *user)
{
    struct chart_wait *cw = user;
    charts_finish(cw);
    cw->img->roofline_ib = chart_png(&cw->files, "roofline-ib");
    cw->img->roofline_nvlink = chart_png(&cw->files, "roofline-nvlink");
    cw->img->step_breakdown = chart_png(&cw->files, "step-breakdown");
}

/* The plans Excel's limit or --top left out of the report, for the CSV. */
struct dropped_plans {
    const struct report *r;
    const struct cost_ctx *ctx;
    const struct sweep_file *sweep;
};

/* csv_extra.each: a second pass over the sweep for the plans not kept. */
static void each_dropped(void *user,
                         void (*emit)(void *out, const struct report_row *row),
                         void *out)
{
    const struct dropped_plans *dp = user;
    report_each_dropped(dp->r, dp->ctx, dp->sweep, emit, out);
}

/* Writes <out>/report.xlsx (with the charts of cw, drawing meanwhile;
 * cw may be NULL) and, with --csv, <out>/plans.csv with every plan;
 * lists the files written in `list`. */
static enum status write_report_files(const struct config *cfg,
                                      const struct report *rep,
                                      const struct cost_ctx *ctx,
                                      const struct sweep_file *sweep,
                                      struct chart_wait *cw,
                                      char *list,
                                      size_t size,
                                      struct diag *d)
{
    char xlsx[1024], csv[1024];
    struct xlsx_images img;

    memset(&img, 0, sizeof img);
    if (cw) {
        cw->img = &img;
        img.ready = charts_ready;
        img.user = cw;
    }
    snprintf(xlsx, sizeof xlsx, "%s/report.xlsx", cfg->out_dir);
    if (xlsx_out_write(rep, xlsx, &img, d) != STATUS_OK)
        return d->status;
    snprintf(list, size, "%s", xlsx);
    if (cfg->csv) {
        snprintf(csv, sizeof csv, "%s/plans.csv", cfg->out_dir);
        struct dropped_plans dp = {rep, ctx, sweep};
        struct csv_extra extra = {each_dropped, &dp};
        if (csv_out_write(rep, csv, rep->dropped > 0 ? &extra : NULL, d) !=
            STATUS_OK)
            return d->status;
        snprintf(list + strlen(list), size - strlen(list), ", %s", csv);
    }
    return STATUS_OK;
}

static int cmd_report(struct config *cfg, char **args, size_t nargs)
{
    struct inputs in;
    struct diag d;
    struct cost_ctx ctx, other;
    struct report rep;
    struct report_options opt;
    struct timespec t0;
    struct chart_wait charts;
    struct plot_options popt;
    char vdir[1024], written[2200];
    int rc = 0;

    if (nargs > 0)
        return usage_error("report: unexpected argument '%s'", args[0]);
    clock_gettime(CLOCK_MONOTONIC, &t0);
    diag_init(&d);
    memset(&ctx, 0, sizeof ctx);
    memset(&other, 0, sizeof other);
    memset(&rep, 0, sizeof rep);
    memset(&charts, 0, sizeof charts);
    if (load_inputs(cfg, &in, &d) != STATUS_OK)
        goto fail_input;
    if (cost_ctx_init(&ctx, &in.m, &in.hw, cfg->comm, &d) != STATUS_OK ||
        cost_ctx_init(&other, &in.m, &in.hw,
                      cfg->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO,
                      &d) != STATUS_OK)
        goto fail_runtime;
    memset(&opt, 0, sizeof opt);
    opt.top = cfg->top;
    opt.threads = cfg->threads;
    if (opt.threads == 0) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        opt.threads = cpus > 0 ? (size_t)cpus : 1;
    }
    opt.validation_dir = default_path("data/validation", vdir, sizeof vdir);
    opt.command_line = cfg->command_line;
    opt.version = ROOFPLAN_VERSION;
    opt.generated = generation_time();
    if (!cfg->quiet && isatty(fileno(stderr)))
        opt.progress = progress;
    if (report_build(&rep, &ctx, &other, &in.sweep, &opt, &d) != STATUS_OK) {
        if (opt.progress)
            fputc('\n', stderr);
        if (d.status == STATUS_NOMEM)
            goto fail_runtime;
        goto fail_input;
    }
    rep.elapsed_s = seconds_since(&t0);
    if (opt.progress)
        fputc('\n', stderr);
    if (make_dirs(cfg->out_dir, &d) != STATUS_OK)
        goto fail_runtime;
    /* gnuplot draws the charts while the workbook's other sheets are
     * written; the workbook embeds them last. A gnuplot failure is
     * reported after everything else is written. */
    diag_init(&charts.d);
    popt = plot_options();
    if (!cfg->no_charts) {
        charts.pending = plot_out_start(&rep, cfg->out_dir, &popt, &charts.job,
                                        &charts.files, &charts.d) == STATUS_OK;
        if (charts.files.gnuplot_missing)
            fprintf(stderr, "%s: warning: %s\n", PROG, charts.files.warning);
    }
    print_summary(&rep);
    if (write_report_files(cfg, &rep, &ctx, &in.sweep,
                           cfg->no_charts ? NULL : &charts, written,
                           sizeof written, &d) != STATUS_OK)
        goto fail_runtime;
    charts_finish(&charts); /* when the workbook did not need them */
    if (!cfg->quiet)
        fprintf(stderr,
                "%s: %llu plans enumerated, %llu valid, %llu fit in memory; "
                "sweep %.3f s, total %.3f s; wrote %s\n",
                PROG, (unsigned long long)rep.enumerated,
                (unsigned long long)rep.valid, (unsigned long long)rep.fitting,
                rep.elapsed_s, seconds_since(&t0), written);
    if (rep.dropped > 0 && !cfg->quiet)
        fprintf(stderr, "%s: %llu valid plans left out of the workbook\n", PROG,
                (unsigned long long)rep.dropped);
    if (charts.d.status != STATUS_OK) {
        print_diag(&charts.d);
        rc = EXIT_RUNTIME;
    }
    goto done;
fail_input:
    print_diag(&d);
    rc = exit_code(d.status, true);
    goto done;
fail_runtime:
    print_diag(&d);
    rc = EXIT_RUNTIME;
done:
    charts_finish(&charts); /* never leave gnuplot running */
    report_free(&rep);
    cost_ctx_release(&ctx);
    cost_ctx_release(&other);
    release_inputs(&in);
    return rc;
}

static int cmd_check(struct config *cfg, char **files, size_t n)
{
    static const char *const model_sections[] = {
        "model", "attention", "ffn", "moe", "mtp", "training", "fp8"};
    size_t i, j;
    int rc = 0;
    char tbuf[1024];
    const char *tp =
        cfg->training_path
            ? cfg->training_path
            : default_path("data/training/default.ini", tbuf, sizeof tbuf);
    if (n == 0)
        return usage_error("check: %s", "missing FILE");
    for (i = 0; i < n; i++) {
        struct diag d;
        char section[64];
        bool is_model = false;
        diag_init(&d);
        if (hf_config_is_json(files[i])) {
            struct model m;
            if (model_load_with_training(files[i], tp, &m, cfg->sets,
                                         cfg->nsets, &d) == STATUS_OK)
                model_release(&m);
        } else if (datafile_first_section(files[i], section, sizeof section,
                                          &d) == STATUS_OK) {
            for (j = 0; j < sizeof model_sections / sizeof *model_sections; j++)
                if (strcmp(section, model_sections[j]) == 0)
                    is_model = true;
            if (strcmp(section, "training") == 0) { /* a recipe */
                model_check_training(files[i], cfg->sets, cfg->nsets, &d);
            } else if (is_model) {
                struct model m;
                if (model_load(files[i], &m, cfg->sets, cfg->nsets, &d) ==
                    STATUS_OK)
                    model_release(&m);
            } else if (strcmp(section, "gpu") == 0 ||
                       strcmp(section, "cluster") == 0) {
                struct hardware h;
                if (hardware_load(files[i], &h, cfg->sets, cfg->nsets, &d) ==
                    STATUS_OK)
                    hardware_release(&h);
            } else if (strcmp(section, "space") == 0 ||
                       strcmp(section, "defaults") == 0) {
                struct sweep_file s;
                if (sweep_load(files[i], &s, cfg->sets, cfg->nsets, &d) ==
                    STATUS_OK)
                    sweep_release(&s);
            } else if (strcmp(section, "run") == 0) {
                char buf[sizeof(struct report_validation) + 1024];
                struct datafile_meta meta;
                if (datafile_load(files[i], &validation_schema, buf, &meta,
                                  cfg->sets, cfg->nsets, &d) == STATUS_OK)
                    datafile_meta_release(&meta);
            } else {
                diag_set(&d, STATUS_PARSE,
                         "%s: not a roofplan data file (%s%s%s; expected "
                         "[model], [training], [gpu], [space] or [run] "
                         "first, or a config.json)",
                         files[i], section[0] ? "its first section is [" : "",
                         section[0] ? section : "it has no [section]",
                         section[0] ? "]" : "");
            }
        }
        if (d.status != STATUS_OK) {
            print_diag(&d);
            rc = EXIT_INPUT;
        }
    }
    return rc;
}

/* Applies one parsed option; returns -1 to go on, else an exit code. */
static int
apply_option(struct config *cfg, int opt, const char *arg, const char *token)
{
    struct diag d;
    switch (opt) {
    case 'm':
        cfg->model_path = arg;
        return -1;
    case 'g':
        cfg->hw_path = arg;
        return -1;
    case 's':
        cfg->sweep_path = arg;
        return -1;
    case 't':
        cfg->training_path = arg;
        return -1;
    case 'o':
        cfg->out_dir = arg;
        return -1;
    case 'S':
        diag_init(&d);
        if (cfg->nsets == SETS_MAX)
            return usage_error("--set %s: too many overrides", arg);
        if (datafile_parse_set(arg, &cfg->sets[cfg->nsets], &d) != STATUS_OK) {
            print_diag(&d);
            fprintf(stderr, "%s: try '%s --help'\n", PROG, PROG);
            return EXIT_INPUT;
        }
        cfg->nsets++;
        return -1;
    case 'C':
        if (strcmp(arg, "topo") == 0)
            cfg->comm = COMM_TOPO;
        else if (strcmp(arg, "flat") == 0)
            cfg->comm = COMM_FLAT;
        else
            return usage_error("--comm-model %s: expected topo or flat", arg);
        return -1;
    case 'j':
        cfg->json = true;
        return -1;
    case 'c':
        cfg->csv = true;
        return -1;
    case 'n':
        cfg->no_charts = true;
        return -1;
    case 'q':
        cfg->quiet = true;
        return -1;
    case 'T': {
        long n;
        if (!datafile_parse_long(arg, &n) || n < 1)
            return usage_error("--top %s: expected a positive integer", arg);
        cfg->top = (size_t)n;
        return -1;
    }
    case 'P': {
        long n;
        if (!datafile_parse_long(arg, &n) || n < 1 || n > 1024)
            return usage_error("--threads %s: expected an integer in 1..1024",
                               arg);
        cfg->threads = (size_t)n;
        return -1;
    }
    case 'h':
        fputs(usage_text, stdout);
        return 0;
    case 'V':
        printf("%s %s\n", PROG, ROOFPLAN_VERSION);
        return 0;
    default:
        return usage_error("unknown option or missing argument: '%s'", token);
    }
}

int main(int argc, char **argv)
{
    static const struct option options[] = {
        {"model", required_argument, NULL, 'm'},
        {"hardware", required_argument, NULL, 'g'},
        {"sweep", required_argument, NULL, 's'},
        {"training", required_argument, NULL, 't'},
        {"out", required_argument, NULL, 'o'},
        {"set", required_argument, NULL, 'S'},
        {"comm-model", required_argument, NULL, 'C'},
        {"json", no_argument, NULL, 'j'},
        {"csv", no_argument, NULL, 'c'},
        {"no-charts", no_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {"top", required_argument, NULL, 'T'},
        {"threads", required_argument, NULL, 'P'},
        {NULL, 0, NULL, 0}};
    struct config cfg;
    const char *command;
    char **args;
    size_t nargs;
    int opt;

    /* Over a file-size limit (ulimit -f) a write must fail with EFBIG, to
     * be reported and the earlier report kept, not kill the process. */
    signal(SIGXFSZ, SIG_IGN);
    memset(&cfg, 0, sizeof cfg);
    cfg.out_dir = "out";
    {
        int i;
        size_t used = 0;
        for (i = 0; i < argc && used < sizeof cfg.command_line; i++)
            used += (size_t)snprintf(cfg.command_line + used,
                                     sizeof cfg.command_line - used, "%s%s",
                                     i ? " " : "", argv[i]);
    }
    cfg.comm = COMM_TOPO;
    opterr = 0;
    /* GNU getopt permutes: options may come before or after the command
     * and the PLAN tokens. */
    while ((opt = getopt_long(argc, argv, "m:g:s:t:o:qh", options, NULL)) !=
           -1) {
        int rc = apply_option(&cfg, opt, optarg, argv[optind - 1]);
        if (rc >= 0)
            return rc;
    }
    if (optind >= argc)
        return usage_error("%s", "missing command (report, eval or check)");
    command = argv[optind];
    args = argv + optind + 1;
    nargs = (size_t)(argc - optind - 1);
    if (strcmp(command, "eval") == 0)
        return cmd_eval(&cfg, args, nargs);
    if (strcmp(command, "check") == 0)
        return cmd_check(&cfg, args, nargs);
    if (strcmp(command, "schema") == 0) { /* data/README.md's tables */
        printf("### Model files (data/models/*.ini)\n\n");
        datafile_schema_markdown(&model_schema, stdout);
        printf("\n### Hardware files (data/hardware/*.ini)\n\n");
        datafile_schema_markdown(&hardware_schema, stdout);
        printf("\n### Sweep files (data/sweeps/*.ini)\n\n");
        datafile_schema_markdown(&sweep_schema, stdout);
        return fflush(stdout) == 0 ? 0 : EXIT_RUNTIME;
    }
    if (strcmp(command, "report") == 0)
        return cmd_report(&cfg, args, nargs);
    return usage_error("unknown command '%s' (report, eval or check)", command);
}
