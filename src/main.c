/*
 * roofplan: speed-of-light planning of parallel LLM training.
 *
 * The command line (DESIGN.md §2): subcommands, options, exit codes. The
 * only file that prints to the terminal or exits.
 */
#include <errno.h>
#include <getopt.h>
#include <pthread.h>
#include <stddef.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "comm.h"
#include "compare.h"
#include "cost.h"
#include "csv_out.h"
#include "figures.h"
#include "nccl_import.h"
#include "stack.h"
#include "calibration.h"
#include "out_dir.h"
#include "rank.h"
#include "validation.h"
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
#include "xlsx_compare.h"
#include "xlsx_out.h"

/* Set by the Makefile: the version (defined there only), and the
 * checkout's data and template directories, the last place looked. */
#if !defined(ROOFPLAN_VERSION) || !defined(ROOFPLAN_DATADIR) || \
    !defined(ROOFPLAN_TEMPLATEDIR)
#error "build with the Makefile: it defines ROOFPLAN_VERSION and the paths"
#endif

#define PROG     "roofplan"
#define SETS_MAX 64

enum { EXIT_RUNTIME = 1, EXIT_INPUT = 2 };

struct config {
    const char *model_path, *hw_path, *sweep_path, *out_dir;
    const char *training_path;    /* -t: recipe for a config.json model */
    const char *calibration_path; /* --calibration FILE */
    const char *stack_path;       /* --stack FILE */
    struct datafile_set sets[SETS_MAX];
    size_t nsets;
    enum comm_model comm;
    bool json, no_charts, quiet;
    bool all_plans; /* --all-plans: every kept plan on the Plans sheet */
    bool no_csv;    /* --no-csv: no plans.csv (nor the sweep's spill) */
    size_t top;     /* --top N; 0: Excel's limit */
    size_t threads; /* --threads N; 0: online CPUs */
    char command_line[1024]; /* as typed, for the About sheet */
    /* every -m and -g, for compare (the other commands take the last) */
    const char *models[COMPARE_PAIRS_MAX], *hws[COMPARE_PAIRS_MAX];
    size_t nmodels, nhws;
};

struct inputs {
    struct model m;
    struct hardware hw;
    struct sweep_file sweep;
    struct calibration cal; /* hw.cal points here when loaded */
    struct stack stack;
    bool have_m, have_hw, have_sweep, have_cal, have_stack;
};

static const char usage_text[] =
    "usage: roofplan report [OPTIONS]          sweep the plan space; write "
    "workbook + charts\n"
    "       roofplan eval   [OPTIONS] PLAN     evaluate one plan; print its "
    "breakdown\n"
    "       roofplan check  FILE...            validate data files; print "
    "nothing on success\n"
    "       roofplan compare -m A -m B -g X -g Y   best plan per (model, "
    "hardware),\n"
    "                                          one workbook (compare.xlsx)\n"
    "       roofplan import nccl [--intra|--inter] [--collective NAME] "
    "FILE...\n"
    "                                          nccl-tests output -> a "
    "calibration file's\n"
    "                                          network curves (INI, on "
    "stdout)\n"
    "       roofplan schema                    the data files' keys "
    "(Markdown)\n"
    "       roofplan --help | --version\n"
    "\n"
    "  -m, --model FILE       model: INI or Hugging Face config.json "
    "(default: data/defaults.ini's)\n"
    "  -t, --training FILE    training recipe where the model file is silent "
    "(default: data/defaults.ini's)\n"
    "  -g, --hardware FILE    cluster    (default: data/defaults.ini's)\n"
    "  -s, --sweep FILE       plan space (default: data/defaults.ini's)\n"
    "  -o, --out DIR          output dir (default out)\n"
    "      --calibration FILE measured kernel/network efficiencies (default:\n"
    "                         data/calibration/ by the hardware file's name)\n"
    "      --stack FILE       training framework's overlaps (default: "
    "data/defaults.ini's)\n"
    "      --set SEC.KEY=VAL  override any data-file value (repeatable)\n"
    "      --comm-model topo|flat\n"
    "      --json             (eval) machine-readable output on stdout\n"
    "      --all-plans        (report) every plan on the Plans sheet (default: "
    "those that fit, up to the sweep's report.plans_sheet, and each family's "
    "best; plans.csv always has every plan)\n"
    "      --no-csv           (report) skip plans.csv (a sweep of millions "
    "of plans makes it gigabytes)\n"
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

/* 0 when everything printed reached stdout, else a message and 1. */
static int flush_stdout(void)
{
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    fprintf(stderr, "%s: stdout: %s\n", PROG, strerror(errno ? errno : EIO));
    return EXIT_RUNTIME;
}

static int usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", PROG);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s: try '%s --help'\n", PROG, PROG);
    return EXIT_INPUT;
}

/*
 * Where roofplan's own files are (sub is "data" or "templates"): ./sub
 * when it holds `marker` (running from the source tree), else
 * ../share/roofplan/sub beside the executable (after `make install`),
 * else the checkout it was built in. Default input files and the
 * validation runs all come from the one data directory, so a stray
 * ./data/validation elsewhere injects nothing.
 */
static void own_directory(const char *sub,
                          const char *marker,
                          const char *built,
                          char *buf,
                          size_t size)
{
    char exe[1024], probe[2200];
    ssize_t n;
    snprintf(probe, sizeof probe, "%s/%s", sub, marker);
    if (access(probe, R_OK) == 0) {
        snprintf(buf, size, "%s", sub);
        return;
    }
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        char *slash;
        exe[n] = '\0';
        slash = strrchr(exe, '/');
        if (slash) {
            *slash = '\0';
            snprintf(probe, sizeof probe, "%s/../share/roofplan/%s/%s", exe,
                     sub, marker);
            if (access(probe, R_OK) == 0) {
                snprintf(buf, size, "%s/../share/roofplan/%s", exe, sub);
                return;
            }
        }
    }
    snprintf(buf, size, "%s", built);
}

static void data_directory(char *buf, size_t size)
{
    own_directory("data", "defaults.ini", ROOFPLAN_DATADIR, buf, size);
}

/* The files defaults.ini names, relative to the data directory. */
struct defaults {
    char model[1300], hardware[1300], sweep[1300], training[1300];
    char stack[1300];
};

#define DOFF(member) offsetof(struct defaults, member)
/* clang-format off */
static const struct datafile_field default_fields[] = {
    {"inputs", "model", DATAFILE_STRING, DOFF(model), 256, 0, 0, false, true, NULL, "", NULL, "model file read when -m is not given"},
    {"inputs", "hardware", DATAFILE_STRING, DOFF(hardware), 256, 0, 0, false, true, NULL, "", NULL, "hardware file read when -g is not given"},
    {"inputs", "sweep", DATAFILE_STRING, DOFF(sweep), 256, 0, 0, false, true, NULL, "", NULL, "sweep file read when -s is not given"},
    {"inputs", "training", DATAFILE_STRING, DOFF(training), 256, 0, 0, false, true, NULL, "", NULL, "training recipe read when -t is not given (what a config.json does not say)"},
    {"inputs", "stack", DATAFILE_STRING, DOFF(stack), 256, 0, 0, false, true, NULL, "", NULL, "training framework (what it overlaps) read when --stack is not given, for the expected step"},
};
/* clang-format on */

/* Reads the defaults file at path into *def, its paths resolved against
 * data_dir. */
static enum status read_defaults_file(const char *path,
                                      const char *data_dir,
                                      struct defaults *def,
                                      struct diag *d)
{
    static const struct datafile_schema schema = {"defaults", default_fields,
                                                  sizeof default_fields /
                                                      sizeof default_fields[0]};
    struct defaults rel;
    memset(&rel, 0, sizeof rel);
    if (datafile_load(path, &schema, &rel, NULL, NULL, 0, d) != STATUS_OK)
        return d->status;
    snprintf(def->model, sizeof def->model, "%s/%.200s", data_dir, rel.model);
    snprintf(def->hardware, sizeof def->hardware, "%s/%.200s", data_dir,
             rel.hardware);
    snprintf(def->sweep, sizeof def->sweep, "%s/%.200s", data_dir, rel.sweep);
    snprintf(def->training, sizeof def->training, "%s/%.200s", data_dir,
             rel.training);
    snprintf(def->stack, sizeof def->stack, "%s/%.200s", data_dir, rel.stack);
    return STATUS_OK;
}

/* Reads data_dir/defaults.ini into *def (paths resolved). */
static enum status
read_defaults(const char *data_dir, struct defaults *def, struct diag *d)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/defaults.ini", data_dir);
    return read_defaults_file(path, data_dir, def, d);
}

static void release_inputs(struct inputs *in)
{
    if (in->have_m)
        model_release(&in->m);
    if (in->have_hw)
        hardware_release(&in->hw);
    if (in->have_sweep)
        sweep_release(&in->sweep);
    if (in->have_cal)
        calibration_release(&in->cal);
    if (in->have_stack)
        stack_release(&in->stack);
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

/* The training recipe: -t FILE, else defaults.ini's (a config.json model
 * needs one; an INI model file does not read it). */
static const char *
training_path(const struct config *cfg, char *buf, size_t size)
{
    char data_dir[1024];
    struct defaults def;
    struct diag d;
    if (cfg->training_path)
        return cfg->training_path;
    diag_init(&d);
    data_directory(data_dir, sizeof data_dir);
    if (read_defaults(data_dir, &def, &d) == STATUS_OK)
        snprintf(buf, size, "%s", def.training);
    else
        snprintf(buf, size, "%s/training/default.ini", data_dir);
    return buf;
}

/*
 * What the expected step reads: the cluster's calibration (--calibration,
 * else data/calibration/ by the hardware file's name; none is no error:
 * the report then has the speed of light only) and the training stack
 * (--stack, else defaults.ini's).
 */
static void load_expected_inputs(struct config *cfg,
                                 struct inputs *in,
                                 const char *data_dir,
                                 const char *default_stack,
                                 struct diag *d)
{
    char cal[1300];
    const char *cp = cfg->calibration_path;
    const char *stp = cfg->stack_path ? cfg->stack_path : default_stack;
    if (!cp && calibration_find(in->hw.meta.path, data_dir, cal, sizeof cal))
        cp = cal;
    if (cp) {
        in->have_cal = calibration_load(cp, &in->cal, cfg->sets, cfg->nsets,
                                        d) == STATUS_OK;
        if (in->have_cal)
            in->hw.cal = &in->cal;
    }
    if (stp && stp[0])
        in->have_stack =
            stack_load(stp, &in->stack, cfg->sets, cfg->nsets, d) == STATUS_OK;
}

static enum status
load_inputs(struct config *cfg, struct inputs *in, struct diag *d)
{
    char data_dir[1024];
    struct defaults def;
    const char *mp, *hp, *sp, *tp;
    struct diag d2, d3;
    diag_init(&d2);
    diag_init(&d3);
    memset(in, 0, sizeof *in);
    memset(&def, 0, sizeof def);
    data_directory(data_dir, sizeof data_dir);
    if ((!cfg->model_path || !cfg->hw_path || !cfg->sweep_path ||
         !cfg->training_path) &&
        read_defaults(data_dir, &def, d) != STATUS_OK)
        return d->status;
    mp = cfg->model_path ? cfg->model_path : def.model;
    hp = cfg->hw_path ? cfg->hw_path : def.hardware;
    sp = cfg->sweep_path ? cfg->sweep_path : def.sweep;
    tp = cfg->training_path ? cfg->training_path : def.training;
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
        load_expected_inputs(cfg, in, data_dir, def.stack, d);
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
    size_t ncoll = 0, i;
    long given_dp = 0;
    int rc = 0;

    diag_init(&d);
    for (i = 0; i < nargs && strspn(args[i], " \t,") == strlen(args[i]); i++)
        ;
    if (i == nargs) /* no argument, or only empty ones */
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
    ctx.stack = in.have_stack ? &in.stack : NULL;
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

/* Latest SOURCE_DATE_EPOCH accepted: 9999-12-31T23:59:59Z (the
 * workbook's dates have four-digit years). */
#define EPOCH_MAX 253402300799L

/* The report's time stamp: SOURCE_DATE_EPOCH when set (reproducible
 * builds), else now. False, with a message, when it is not a whole
 * number of seconds in 0 .. EPOCH_MAX. */
static bool generation_time(int64_t *out, struct diag *d)
{
    const char *e = getenv("SOURCE_DATE_EPOCH");
    long v;
    if (!e) {
        *out = (int64_t)time(NULL);
        return true;
    }
    if (!datafile_parse_long(e, &v) || v < 0 || v > EPOCH_MAX) {
        diag_set(d, STATUS_USAGE,
                 "SOURCE_DATE_EPOCH: expected whole seconds since 1970 in "
                 "0..%ld (year 9999), got \"%.40s\"",
                 EPOCH_MAX, e);
        return false;
    }
    *out = (int64_t)v;
    return true;
}

/* gnuplot's deadline: ROOFPLAN_GNUPLOT_TIMEOUT seconds when set (tests,
 * slow machines), else plot_out's default; the templates found like the
 * data (own_directory). */
static struct plot_options plot_options(char *tdir, size_t size)
{
    struct plot_options o = {0, NULL, NULL};
    const char *e = getenv("ROOFPLAN_GNUPLOT_TIMEOUT");
    double v;
    if (e && datafile_parse_double(e, &v) && v > 0)
        o.timeout_s = v;
    own_directory("templates", "memory.gp.in", ROOFPLAN_TEMPLATEDIR, tdir,
                  size);
    o.template_dir = tdir;
    return o;
}

/* When and how the sweep's progress is shown. */
struct progress {
    struct timespec t0;
    double next_s; /* seconds after t0 of the next line (off a terminal) */
    bool tty;      /* stderr is a terminal and -q was not given */
    bool shown;    /* a line was written: end it */
};

#define PROGRESS_QUIET_S 5.0 /* a sweep this long shows progress anyway */

static double seconds_since(const struct timespec *t0);

/* rank_options.progress: on a terminal, one line updated in place; off
 * one (or under -q), a line every PROGRESS_QUIET_S seconds once the sweep
 * has taken that long, so a long sweep never looks hung. */
static void progress(void *user, uint64_t done, uint64_t total)
{
    struct progress *pr = user;
    double s = seconds_since(&pr->t0);
    double pct = 100.0 * (double)done / (double)total;
    if (pr->tty) {
        fprintf(stderr, "\r%s: %llu of %llu combinations (%.0f%%)", PROG,
                (unsigned long long)done, (unsigned long long)total, pct);
        pr->shown = true;
    } else if (s >= pr->next_s) {
        fprintf(stderr, "%s: %llu of %llu combinations (%.0f%%) after %.0f s\n",
                PROG, (unsigned long long)done, (unsigned long long)total, pct,
                s);
        pr->next_s = s + PROGRESS_QUIET_S;
    }
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) +
           (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---- report: the stages in order, committed all at once ---- */

/* The files a report may hold; the earlier report's ones this report
 * does not write are removed when it is committed. */
static const char *const report_files[] = {"report.xlsx",
                                           "plans.csv",
                                           "roofline-ib.png",
                                           "roofline-ib.svg",
                                           "roofline-ib.pdf",
                                           "roofline-ib.gp",
                                           "roofline-ib.dat",
                                           "roofline-nvlink.png",
                                           "roofline-nvlink.svg",
                                           "roofline-nvlink.pdf",
                                           "roofline-nvlink.gp",
                                           "roofline-nvlink.dat",
                                           "step-breakdown.png",
                                           "step-breakdown.svg",
                                           "step-breakdown.pdf",
                                           "step-breakdown.gp",
                                           "step-breakdown.dat",
                                           "memory.png",
                                           "memory.svg",
                                           "memory.pdf",
                                           "memory.gp",
                                           "memory.dat",
                                           "sensitivity-ib.png",
                                           "sensitivity-ib.svg",
                                           "sensitivity-ib.pdf",
                                           "sensitivity-ib.gp",
                                           "sensitivity-ib.dat",
                                           "sensitivity-nvlink.png",
                                           "sensitivity-nvlink.svg",
                                           "sensitivity-nvlink.pdf",
                                           "sensitivity-nvlink.gp",
                                           "sensitivity-nvlink.dat",
                                           "waterfall.png",
                                           "waterfall.svg",
                                           "waterfall.pdf",
                                           "waterfall.gp",
                                           "waterfall.dat"};

/*
 * What a signal must undo while a report is being made. SIGINT, SIGTERM
 * and SIGHUP are blocked in every thread of `report` and taken by one
 * thread with sigwait(): it waits for the lock (a commit in progress
 * finishes first), kills gnuplot, removes the staging directory and exits
 * with 128 + the signal's number.
 */
struct guard {
    sigset_t set;
    pthread_mutex_t lock;
    struct out_dir *out;  /* NULL until open */
    struct plot_job *job; /* NULL unless gnuplot may be running */
    pthread_t thread;
    bool started;
};

static void *guard_wait(void *arg)
{
    struct guard *g = arg;
    int sig = 0;
    if (sigwait(&g->set, &sig) != 0)
        return NULL;
    pthread_mutex_lock(&g->lock);
    if (g->job)
        plot_out_abort(g->job);
    if (g->out)
        out_dir_abort(g->out);
    _exit(128 + sig);
}

static void guard_start(struct guard *g)
{
    memset(g, 0, sizeof *g);
    sigemptyset(&g->set);
    sigaddset(&g->set, SIGINT);
    sigaddset(&g->set, SIGTERM);
    sigaddset(&g->set, SIGHUP);
    pthread_mutex_init(&g->lock, NULL);
    /* before any other thread exists, so every one inherits the mask */
    pthread_sigmask(SIG_BLOCK, &g->set, NULL);
    g->started = pthread_create(&g->thread, NULL, guard_wait, g) == 0;
}

static void guard_stop(struct guard *g)
{
    if (g->started) {
        pthread_cancel(g->thread); /* sigwait is a cancellation point */
        pthread_join(g->thread, NULL);
    }
    pthread_mutex_destroy(&g->lock);
    pthread_sigmask(SIG_UNBLOCK, &g->set, NULL);
}

/* Sets (or clears) what the signal thread must undo. */
static void
guard_set(struct guard *g, struct out_dir *out, struct plot_job *job)
{
    pthread_mutex_lock(&g->lock);
    g->out = out;
    g->job = job;
    pthread_mutex_unlock(&g->lock);
}

/* The best plan of each family, fastest first, on stdout: its expected
 * step where the inputs have a calibration and a stack, and its speed of
 * light. */
static void print_summary(const struct report *r)
{
    size_t i;
    printf("%-16s %9s %9s %-8s %8s %9s %5s  %s\n", "family", "expect s",
           "SOL s", "bound", "comm/cmp", "mem GiB", "fits", "best plan");
    for (i = 0; i < r->nfamilies; i++) {
        const struct report_family *f = &r->family[r->families_by_step[i]];
        char plan[256], x[16] = "-";
        plan_format(&f->best.plan, plan, sizeof plan);
        if (f->best.work.x.known)
            snprintf(x, sizeof x, "%.3f", f->best.t.expected);
        printf("%-16s %9s %9.3f %-8s %8.2f %9.1f %5s  %s\n", f->name, x,
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
               tflops, 100 * p->t.mfu_bf16_peak, mfu,
               p->fits ? "" : "; does not fit");
        if (p->work.x.known)
            printf("  %-48s expected %6.2f s/step, %4.0f TFLOP/s/GPU, MFU "
                   "%5.1f%% (step %+.0f%% off the measured)\n",
                   "", p->t.expected,
                   p->work.model_flops / p->t.expected / 1e12,
                   100 * p->t.mfu_bf16_peak * p->t.step / p->t.expected,
                   v->measured_step_eq > 0
                       ? 100 * (p->t.expected / v->measured_step_eq - 1)
                       : 0);
        if (v->completions > 1)
            printf("  %-48s SOL %.2f-%.2f s over %zu completions of %s\n", "",
                   v->sol_min_step_s, v->sol_max_step_s, v->completions,
                   v->unpublished);
        if (v->measured_step_eq > 0)
            printf("  %-48s %s\n", "",
                   v->holds ? "the speed of light holds: no completion is "
                              "slower than the measured run"
                            : "SPEED OF LIGHT BROKEN: a completion is "
                              "slower than the measured run");
    }
    for (i = 0; i < r->nvalidation_notes; i++)
        printf("  %s\n", r->validation_notes[i]);
}

/* The PNG gnuplot drew for chart `name` this run, or NULL. */
static const char *chart_png(const struct plot_files *charts, const char *name)
{
    size_t i;
    for (i = 0; charts && i < charts->ncharts; i++)
        if (strcmp(charts->chart[i].name, name) == 0 && charts->chart[i].png[0])
            return charts->chart[i].png;
    return NULL;
}

/* Messages name a report's files where the user will find them: the
 * staging directory's path becomes the output directory's. */
static void unstage(struct diag *d, const struct out_dir *out)
{
    char msg[sizeof d->msg];
    size_t n = strlen(out->stage), used = 0;
    const char *s = d->msg, *hit;
    if (n == 0)
        return;
    while ((hit = strstr(s, out->stage)) != NULL && used < sizeof msg) {
        used += (size_t)snprintf(msg + used, sizeof msg - used, "%.*s%s",
                                 (int)(hit - s), s, out->dir);
        s = hit + n;
    }
    if (used < sizeof msg)
        snprintf(msg + used, sizeof msg - used, "%s", s);
    memcpy(d->msg, msg, sizeof msg);
}

/* Everything `report` holds between its stages. */
struct report_run {
    struct inputs in;
    struct validation_run runs[VALIDATION_RUNS_MAX];
    struct validation_inputs vin[VALIDATION_RUNS_MAX];
    size_t nruns;
    struct cost_ctx ctx, other;
    struct report rep;
    struct out_dir out;
    struct plot_job job;
    struct plot_files charts;
    bool job_pending; /* plot_out_start succeeded, _finish not yet called */
};

/* Reads the validation runs and the inputs each is predicted with. */
static enum status load_validations(struct report_run *rr,
                                    const char *data_dir,
                                    const char *recipe,
                                    struct diag *d)
{
    size_t i;
    if (validation_load_dir(data_dir, rr->runs, VALIDATION_RUNS_MAX, &rr->nruns,
                            d) != STATUS_OK)
        return d->status;
    for (i = 0; i < rr->nruns; i++) {
        if (validation_load_inputs(&rr->runs[i], recipe, data_dir, &rr->in.m,
                                   &rr->in.hw, &rr->vin[i], d) != STATUS_OK) {
            rr->nruns = i;
            return d->status;
        }
        if (report_add_input(&rr->rep, "validation", rr->runs[i].path, d) !=
            STATUS_OK) {
            rr->nruns = i + 1;
            return d->status;
        }
    }
    return STATUS_OK;
}

/* Draws the charts (while the CSV is written), then the workbook with
 * them, into the staging directory; lists the names in `written`. */
static enum status write_report(const struct config *cfg,
                                struct report_run *rr,
                                struct guard *g,
                                char *written,
                                size_t size,
                                struct diag *d)
{
    char path[OUT_DIR_MAX + 64], tdir[1100];
    struct xlsx_images img;
    struct plot_options popt = plot_options(tdir, sizeof tdir);
    enum status st;

    written[0] = '\0';
    if (!cfg->no_charts) {
        st = plot_out_start(&rr->rep, rr->out.stage, &popt, &rr->job,
                            &rr->charts, d);
        if (st != STATUS_OK)
            return st;
        if (rr->charts.gnuplot_missing)
            return diag_set(d, STATUS_PLOT,
                            "gnuplot not found on PATH: the charts cannot be "
                            "drawn (install gnuplot, e.g. apt-get install "
                            "gnuplot-nox, or run with --no-charts)");
        rr->job_pending = true;
        guard_set(g, &rr->out, &rr->job);
    }
    snprintf(written, size, "%s/report.xlsx", cfg->out_dir);
    if (!cfg->no_csv) {
        out_dir_path(&rr->out, "plans.csv", path, sizeof path);
        if (csv_out_write(&rr->rep, path, d) != STATUS_OK)
            return d->status;
        snprintf(written + strlen(written), size - strlen(written),
                 ", %s/plans.csv", cfg->out_dir);
    }
    if (rr->job_pending) {
        rr->job_pending = false;
        st = plot_out_finish(&rr->job, &rr->charts, d);
        guard_set(g, &rr->out, NULL);
        if (st != STATUS_OK)
            return st;
        snprintf(written + strlen(written), size - strlen(written),
                 " and %zu charts", rr->charts.ncharts);
    }
    memset(&img, 0, sizeof img);
    img.roofline_ib = chart_png(&rr->charts, "roofline-ib");
    img.roofline_nvlink = chart_png(&rr->charts, "roofline-nvlink");
    img.step_breakdown = chart_png(&rr->charts, "step-breakdown");
    img.memory = chart_png(&rr->charts, "memory");
    img.sensitivity_ib = chart_png(&rr->charts, "sensitivity-ib");
    img.sensitivity_nvlink = chart_png(&rr->charts, "sensitivity-nvlink");
    img.waterfall = chart_png(&rr->charts, "waterfall");
    out_dir_path(&rr->out, "report.xlsx", path, sizeof path);
    return xlsx_out_write(&rr->rep, path, &img, d);
}

/* read inputs -> enumerate, evaluate, rank -> derive figures -> write,
 * then commit the whole report or nothing. */
static int run_report(const struct config *cfg,
                      struct report_run *rr,
                      struct guard *g,
                      const char *data_dir,
                      struct diag *d)
{
    char recipe[1300];
    struct rank_options opt;
    struct progress pr;
    struct timespec t0;
    char written[3 * OUT_DIR_MAX];
    bool waited;
    long cpus;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    rr->rep.m = &rr->in.m;
    rr->rep.hw = &rr->in.hw;
    rr->rep.sweep = &rr->in.sweep;
    rr->rep.comm = cfg->comm;
    snprintf(rr->rep.command_line, sizeof rr->rep.command_line, "%s",
             cfg->command_line);
    snprintf(rr->rep.version, sizeof rr->rep.version, "%s", ROOFPLAN_VERSION);
    if (!generation_time(&rr->rep.generated, d))
        return EXIT_INPUT;
    training_path(cfg, recipe, sizeof recipe);
    /* read inputs */
    if (report_add_input(&rr->rep, "model", rr->in.m.meta.path, d) ||
        report_add_input(&rr->rep, "hardware", rr->in.hw.meta.path, d) ||
        report_add_input(&rr->rep, "sweep", rr->in.sweep.meta.path, d) ||
        load_validations(rr, data_dir, recipe, d))
        return exit_code(d->status, true);
    if (cost_ctx_init(&rr->ctx, &rr->in.m, &rr->in.hw, cfg->comm, d) ||
        cost_ctx_init(&rr->other, &rr->in.m, &rr->in.hw,
                      cfg->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO, d))
        return EXIT_RUNTIME;
    rr->ctx.stack = rr->other.stack = rr->in.have_stack ? &rr->in.stack : NULL;
    /* the output directory: locked, with a private staging directory */
    if (out_dir_open(&rr->out, cfg->out_dir, &waited, d) != STATUS_OK)
        return exit_code(d->status, false);
    guard_set(g, &rr->out, NULL);
    if (waited && !cfg->quiet)
        fprintf(stderr, "%s: %s: waited for another report to finish\n", PROG,
                cfg->out_dir);
    /* enumerate, evaluate, rank */
    memset(&opt, 0, sizeof opt);
    opt.top = cfg->top;
    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    opt.threads = cfg->threads ? cfg->threads : cpus > 0 ? (size_t)cpus : 1;
    /* plans.csv lists every plan: the sweep spills them */
    opt.spill_dir = cfg->no_csv ? NULL : rr->out.stage;
    rr->rep.all_plans = cfg->all_plans;
    rr->rep.expected = rr->in.have_cal && rr->in.have_stack;
    memset(&pr, 0, sizeof pr);
    pr.t0 = t0;
    pr.next_s = PROGRESS_QUIET_S;
    pr.tty = !cfg->quiet && isatty(fileno(stderr));
    opt.progress = progress;
    opt.progress_user = &pr;
    if (rank_run(&rr->rep, &rr->ctx, &rr->in.sweep, &opt, d) != STATUS_OK) {
        if (pr.shown)
            fputc('\n', stderr);
        return exit_code(d->status,
                         d->status != STATUS_NOMEM && d->status != STATUS_IO);
    }
    if (pr.shown)
        fputc('\n', stderr);
    rr->rep.elapsed_s = seconds_since(&t0);
    /* derive figures */
    if (figures_families(&rr->rep, &rr->ctx, &rr->other, d) != STATUS_OK ||
        figures_validations(&rr->rep, rr->runs, rr->vin, rr->nruns, &rr->ctx,
                            &rr->other, d) != STATUS_OK ||
        figures_views(&rr->rep, &rr->other, d) != STATUS_OK)
        return exit_code(d->status, false);
    print_summary(&rr->rep);
    /* write, then commit the report at once (a signal waits for it) */
    if (write_report(cfg, rr, g, written, sizeof written, d) != STATUS_OK)
        return EXIT_RUNTIME;
    pthread_mutex_lock(&g->lock);
    if (out_dir_commit(&rr->out, report_files,
                       sizeof report_files / sizeof report_files[0],
                       d) != STATUS_OK) {
        pthread_mutex_unlock(&g->lock);
        return EXIT_RUNTIME;
    }
    pthread_mutex_unlock(&g->lock);
    if (!cfg->quiet)
        fprintf(stderr,
                "%s: %llu plans enumerated, %llu valid, %llu fit in memory; "
                "sweep %.3f s, total %.3f s; wrote %s\n",
                PROG, (unsigned long long)rr->rep.enumerated,
                (unsigned long long)rr->rep.valid,
                (unsigned long long)rr->rep.fitting, rr->rep.elapsed_s,
                seconds_since(&t0), written);
    if (rr->rep.valid > rr->rep.nsheet && !cfg->quiet)
        fprintf(stderr,
                "%s: %llu valid plans are not on the Plans sheet (%s; "
                "--all-plans puts every kept plan there)\n",
                PROG, (unsigned long long)(rr->rep.valid - rr->rep.nsheet),
                cfg->no_csv ? "--no-csv: no plans.csv" : "plans.csv has them");
    return 0;
}

static int cmd_report(struct config *cfg, char **args, size_t nargs)
{
    struct report_run *rr;
    struct guard g;
    struct diag d;
    char data_dir[1024];
    size_t i;
    int rc;

    if (nargs > 0)
        return usage_error("report: unexpected argument '%s'", args[0]);
    if (cfg->out_dir[0] == '\0')
        return usage_error("--out %s: expected a directory name", "\"\"");
    rr = calloc(1, sizeof *rr); /* the report is large: not on the stack */
    if (!rr) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        return EXIT_RUNTIME;
    }
    rr->out.lock_fd = -1;
    diag_init(&d);
    guard_start(&g);
    if (load_inputs(cfg, &rr->in, &d) != STATUS_OK) {
        rc = exit_code(d.status, true);
    } else {
        data_directory(data_dir, sizeof data_dir);
        rc = run_report(cfg, rr, &g, data_dir, &d);
    }
    if (rc != 0 && d.status != STATUS_OK) {
        unstage(&d, &rr->out);
        print_diag(&d);
    }
    if (rr->job_pending)
        plot_out_abort(&rr->job);
    pthread_mutex_lock(&g.lock);
    g.out = NULL;
    g.job = NULL;
    out_dir_close(&rr->out);
    pthread_mutex_unlock(&g.lock);
    guard_stop(&g);
    report_free(&rr->rep);
    cost_ctx_release(&rr->ctx);
    cost_ctx_release(&rr->other);
    for (i = 0; i < rr->nruns; i++)
        validation_inputs_release(&rr->vin[i]);
    release_inputs(&rr->in);
    free(rr);
    if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
        fprintf(stderr, "%s: stdout: %s\n", PROG, strerror(errno));
        rc = EXIT_RUNTIME;
    }
    return rc;
}

/* `check` of a validation file: its fields, the model and hardware files
 * it names, and its plan on them. */
static void check_run(const char *path, const char *recipe, struct diag *d)
{
    struct validation_run *run = calloc(1, sizeof *run);
    struct validation_inputs in;
    struct plan p;
    char dir[1100];
    const char *slash;
    size_t len;
    if (!run) {
        diag_set(d, STATUS_NOMEM, "out of memory");
        return;
    }
    /* the data directory: the one holding validation/NAME.ini */
    slash = strrchr(path, '/');
    len = slash ? (size_t)(slash - path) : 0;
    snprintf(dir, sizeof dir, "%.*s%s..", (int)len, path, len ? "/" : "");
    if (validation_load(path, dir, run, d) == STATUS_OK &&
        validation_load_inputs(run, recipe, dir, NULL, NULL, &in, d) ==
            STATUS_OK) {
        struct diag why;
        diag_init(&why);
        if (figures_validation_plan(run, &in, &p, &why) != STATUS_OK)
            diag_set(d, STATUS_RANGE, "%s: run.plan: %s", path, why.msg);
        validation_inputs_release(&in);
    }
    free(run);
}

/* compare: the best plan of each (model, hardware) pair into
 * <out>/compare.xlsx, committed as a report is. */
static int compare_pairs(struct config *cfg,
                         struct compare_row *rows,
                         size_t *n,
                         struct diag *d)
{
    const char *const *models = cfg->models, *const *hws = cfg->hws;
    size_t nm = cfg->nmodels, nh = cfg->nhws, i, j;
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    size_t threads = cfg->threads ? cfg->threads : cpus > 0 ? (size_t)cpus : 1;
    const char *none[1] = {NULL}; /* the default file */
    if (nm == 0) {
        models = none;
        nm = 1;
    }
    if (nh == 0) {
        hws = none;
        nh = 1;
    }
    if (nm * nh > COMPARE_PAIRS_MAX) {
        diag_set(d, STATUS_USAGE, "compare: %zu pairs; at most %d", nm * nh,
                 COMPARE_PAIRS_MAX);
        return EXIT_INPUT;
    }
    *n = 0;
    for (i = 0; i < nm; i++)
        for (j = 0; j < nh; j++) {
            struct inputs in;
            struct cost_ctx ctx;
            enum status st;
            size_t k;
            cfg->model_path = models[i];
            cfg->hw_path = hws[j];
            for (k = 0; k < cfg->nsets; k++) /* each load marks its own */
                cfg->sets[k].used = false;
            if (load_inputs(cfg, &in, d) != STATUS_OK) {
                release_inputs(&in);
                return exit_code(d->status, true);
            }
            st = cost_ctx_init(&ctx, &in.m, &in.hw, cfg->comm, d);
            ctx.stack = in.have_stack ? &in.stack : NULL;
            if (st == STATUS_OK)
                st = compare_pair(&rows[*n], &ctx, &in.sweep, threads, d);
            cost_ctx_release(&ctx);
            release_inputs(&in);
            if (st != STATUS_OK)
                return exit_code(st, false);
            if (!cfg->quiet)
                fprintf(stderr, "%s: %s on %ld x %s: %s\n", PROG,
                        rows[*n].model, rows[*n].gpus, rows[*n].gpu,
                        rows[*n].any ? rows[*n].best.family : "no valid plan");
            (*n)++;
        }
    return 0;
}

static int cmd_compare(struct config *cfg, char **args, size_t nargs)
{
    static const char *const files[] = {"compare.xlsx"};
    struct compare_row *rows;
    struct out_dir out;
    struct guard g;
    struct diag d;
    int64_t when;
    char path[OUT_DIR_MAX + 64];
    size_t n = 0, i;
    bool waited;
    int rc;

    if (nargs > 0)
        return usage_error("compare: unexpected argument '%s'", args[0]);
    if (cfg->out_dir[0] == '\0')
        return usage_error("--out %s: expected a directory name", "\"\"");
    diag_init(&d);
    if (!generation_time(&when, &d)) {
        print_diag(&d);
        return EXIT_INPUT;
    }
    rows = calloc(COMPARE_PAIRS_MAX, sizeof *rows);
    if (!rows) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        return EXIT_RUNTIME;
    }
    memset(&out, 0, sizeof out);
    out.lock_fd = -1;
    guard_start(&g);
    rc = compare_pairs(cfg, rows, &n, &d);
    if (rc == 0) {
        if (out_dir_open(&out, cfg->out_dir, &waited, &d) != STATUS_OK) {
            rc = exit_code(d.status, false);
        } else {
            guard_set(&g, &out, NULL);
            out_dir_path(&out, "compare.xlsx", path, sizeof path);
            if (xlsx_compare_write(rows, n, path, when, cfg->command_line,
                                   &d) != STATUS_OK)
                rc = EXIT_RUNTIME;
            pthread_mutex_lock(&g.lock);
            if (rc == 0 && out_dir_commit(&out, files, 1, &d) != STATUS_OK)
                rc = EXIT_RUNTIME;
            pthread_mutex_unlock(&g.lock);
        }
    }
    if (rc == 0) {
        printf("%-28s %-30s %6s %-16s %9s %10s %12s  %s\n", "model", "GPU",
               "GPUs", "best family", "step s", "tok/s/GPU", "cost USD",
               "fits");
        for (i = 0; i < n; i++) {
            const struct compare_row *r = &rows[i];
            if (!r->any)
                printf("%-28.28s %-30.30s %6ld %s\n", r->model, r->gpu, r->gpus,
                       r->why);
            else
                printf("%-28.28s %-30.30s %6ld %-16s %9.3f %10.0f %12.0f  %s\n",
                       r->model, r->gpu, r->gpus, r->best.family,
                       r->best.t.step, r->best.t.tokens_per_s_per_gpu,
                       r->best.t.cost_usd, r->best.fits ? "yes" : "no");
        }
        if (!cfg->quiet)
            fprintf(stderr, "%s: wrote %s/compare.xlsx\n", PROG, cfg->out_dir);
    } else if (d.status != STATUS_OK) {
        unstage(&d, &out);
        print_diag(&d);
    }
    pthread_mutex_lock(&g.lock);
    g.out = NULL;
    out_dir_close(&out);
    pthread_mutex_unlock(&g.lock);
    guard_stop(&g);
    free(rows);
    if (rc == 0)
        rc = flush_stdout();
    return rc;
}

static int cmd_check(struct config *cfg, char **files, size_t n)
{
    static const char *const model_sections[] = {
        "model", "attention", "ffn", "moe", "mtp", "training", "fp8"};
    size_t i, j;
    int rc = 0;
    char tbuf[1300];
    const char *tp = training_path(cfg, tbuf, sizeof tbuf);
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
            } else if (strcmp(section, "calibration") == 0) {
                struct calibration cal;
                if (calibration_load(files[i], &cal, cfg->sets, cfg->nsets,
                                     &d) == STATUS_OK)
                    calibration_release(&cal);
            } else if (strcmp(section, "stack") == 0) {
                struct stack st;
                if (stack_load(files[i], &st, cfg->sets, cfg->nsets, &d) ==
                    STATUS_OK)
                    stack_release(&st);
            } else if (strcmp(section, "run") == 0) {
                check_run(files[i], tp, &d);
            } else if (strcmp(section, "inputs") == 0) {
                struct defaults def;
                read_defaults_file(files[i], ".", &def, &d);
            } else {
                diag_set(&d, STATUS_PARSE,
                         "%s: not a roofplan data file (%s%s%s; expected "
                         "[model], [training], [gpu], [space], [run], "
                         "[calibration], [stack] or [inputs] first, or a "
                         "config.json)",
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

/* data/README.md's tables: every kind of data file's keys. */
static int cmd_schema(void)
{
    static const struct datafile_schema defaults_schema = {
        "defaults", default_fields,
        sizeof default_fields / sizeof default_fields[0]};
    const struct {
        const char *title;
        const struct datafile_schema *schema;
    } kinds[] = {
        {"Model files (data/models/NAME.ini)", model_schema()},
        {"Hardware files (data/hardware/NAME.ini)", hardware_schema()},
        {"Sweep files (data/sweeps/NAME.ini)", sweep_schema()},
        {"Calibration files (data/calibration/NAME.ini)", calibration_schema()},
        {"Stack files (data/stacks/NAME.ini)", stack_schema()},
        {"Validation runs (data/validation/NAME.ini)", validation_schema()},
        {"The default inputs (data/defaults.ini)", &defaults_schema},
    };
    size_t i;
    for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        printf("%s### %s\n\n", i ? "\n" : "", kinds[i].title);
        datafile_schema_markdown(kinds[i].schema, stdout);
    }
    return flush_stdout();
}

/*
 * `import nccl [--intra|--inter] [--collective NAME] FILE...`: nccl-tests
 * output to a calibration file's [network_*] sections on stdout.
 */
static int cmd_import(char **args, size_t nargs)
{
    struct nccl_import *imp;
    struct diag d;
    enum nccl_import_link link = NCCL_IMPORT_LINK_AUTO;
    const char *kind = NULL;
    size_t i, files = 0;
    int rc = 0;
    if (nargs == 0 || strcmp(args[0], "nccl") != 0)
        return usage_error("import: %s", "expected 'import nccl FILE...'");
    imp = calloc(1, sizeof *imp);
    if (!imp) {
        fprintf(stderr, "%s: out of memory\n", PROG);
        return EXIT_RUNTIME;
    }
    diag_init(&d);
    for (i = 1; i < nargs && rc == 0; i++) {
        if (strcmp(args[i], "--intra") == 0) {
            link = NCCL_IMPORT_LINK_INTRA;
        } else if (strcmp(args[i], "--inter") == 0) {
            link = NCCL_IMPORT_LINK_INTER;
        } else if (strcmp(args[i], "--collective") == 0 && i + 1 < nargs) {
            kind = args[++i];
        } else if (nccl_import_read(imp, args[i], link, kind, &d) !=
                   STATUS_OK) {
            print_diag(&d);
            rc = exit_code(d.status, true);
        } else {
            files++;
        }
    }
    if (rc == 0 && files == 0)
        rc = usage_error("import nccl: %s", "missing FILE");
    if (rc == 0 && nccl_import_write(imp, stdout, "stdout", &d) != STATUS_OK) {
        print_diag(&d);
        rc = exit_code(d.status, true);
    }
    free(imp);
    return rc ? rc : flush_stdout();
}

/* Applies one parsed option; returns -1 to go on, else an exit code. */
static int
apply_option(struct config *cfg, int opt, const char *arg, const char *token)
{
    struct diag d;
    switch (opt) {
    case 'm':
        cfg->model_path = arg;
        if (cfg->nmodels == COMPARE_PAIRS_MAX)
            return usage_error("-m %s: too many models", arg);
        cfg->models[cfg->nmodels++] = arg;
        return -1;
    case 'g':
        cfg->hw_path = arg;
        if (cfg->nhws == COMPARE_PAIRS_MAX)
            return usage_error("-g %s: too many clusters", arg);
        cfg->hws[cfg->nhws++] = arg;
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
    case 'K':
        cfg->calibration_path = arg;
        return -1;
    case 'k':
        cfg->stack_path = arg;
        return -1;
    case 'c': /* --csv: plans.csv is always written; kept for scripts */
        return -1;
    case 'A':
        cfg->all_plans = true;
        return -1;
    case 'X':
        cfg->no_csv = true;
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
        return flush_stdout();
    case 'V':
        printf("%s %s\n", PROG, ROOFPLAN_VERSION);
        return flush_stdout();
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
        {"all-plans", no_argument, NULL, 'A'},
        {"no-csv", no_argument, NULL, 'X'},
        {"no-charts", no_argument, NULL, 'n'},
        {"quiet", no_argument, NULL, 'q'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {"top", required_argument, NULL, 'T'},
        {"calibration", required_argument, NULL, 'K'},
        {"stack", required_argument, NULL, 'k'},
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
    if (strcmp(command, "schema") == 0)
        return cmd_schema();
    if (strcmp(command, "import") == 0)
        return cmd_import(args, nargs);
    if (strcmp(command, "report") == 0)
        return cmd_report(&cfg, args, nargs);
    if (strcmp(command, "compare") == 0)
        return cmd_compare(&cfg, args, nargs);
    return usage_error(
        "unknown command '%s' (report, eval, check, compare, import or "
        "schema)",
        command);
}
