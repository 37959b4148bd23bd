/*
 * cli_report: the `report` command: read the inputs, sweep and rank the
 * plans (with progress on stderr), derive the figures, print the summary,
 * write the workbook, plans.csv and the charts into a staging directory
 * and commit them at once (the directory and the signal guard that keeps
 * it whole: cli_out.c; the summary printed: cli_summary.c). Computes
 * nothing itself: rank, figures and the writers do.
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cost.h"
#include "csv_out.h"
#include "figures.h"
#include "hf_config.h"
#include "plan.h"
#include "rank.h"
#include "report_inputs.h"
#include "scale.h"
#include "sweep.h"
#include "views.h"
#include "validation.h"
#include "xlsx_out.h"

/* gnuplot's deadline into *s: ROOFPLAN_GNUPLOT_TIMEOUT seconds (tests,
 * slow machines), a number above 0; 0 (plot_out's default) when unset or
 * empty. False, with the problem in d, for anything else: a value that
 * was not a number was ignored without a word (issue 34). */
static bool gnuplot_timeout(double *s, struct diag *d)
{
    const char *e = getenv("ROOFPLAN_GNUPLOT_TIMEOUT");
    char shown[160];
    *s = 0;
    if (!e || !*e)
        return true;
    if (datafile_parse_double(e, s) && *s > 0)
        return true;
    *s = 0;
    datafile_text_quote(e, shown, sizeof shown);
    diag_set(d, STATUS_USAGE,
             "ROOFPLAN_GNUPLOT_TIMEOUT (environment): expected seconds, a "
             "number above 0, got \"%s\"",
             shown);
    return false;
}

/* gnuplot's deadline, timeout_s (gnuplot_timeout); the templates found
 * like the data (cli_template_directory). */
static struct plot_options
plot_options(double timeout_s, char *tdir, size_t size)
{
    struct plot_options o = {0, NULL, NULL};
    o.timeout_s = timeout_s;
    cli_template_directory(tdir, size);
    o.template_dir = tdir;
    return o;
}

/* rank_options.progress: the sweep's threads count into the line. */
static void sweep_progress(void *user, uint64_t more)
{
    progress_add(user, more);
}

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) +
           (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

/* ---- report: the stages in order, committed all at once ---- */

#define WORKBOOK  "report.xlsx"
#define PLANS_CSV "plans.csv"

/* The files a report may hold, in the order of its manifest: the
 * workbook, plans.csv and each chart's files (plot_charts_name with each
 * plot_out_suffix); the earlier report's ones this report does not write
 * are removed when it is committed. */
#define REPORT_FILES (2 + PLOT_CHARTS * PLOT_FILES)
_Static_assert(REPORT_FILES <= OUT_DIR_REPORT_MAX,
               "out_dir_commit keeps track of every file of a report");
struct report_files {
    char name[REPORT_FILES][64];
    const char *list[REPORT_FILES];
};

static void report_files(struct report_files *f)
{
    size_t c, k, n = 0;
    snprintf(f->name[n++], sizeof f->name[0], "%s", WORKBOOK);
    snprintf(f->name[n++], sizeof f->name[0], "%s", PLANS_CSV);
    for (c = 0; c < PLOT_CHARTS; c++)
        for (k = 0; k < PLOT_FILES; k++)
            snprintf(f->name[n++], sizeof f->name[0], "%s%s",
                     plot_charts_name(c), plot_out_suffix((enum plot_file)k));
    for (n = 0; n < REPORT_FILES; n++)
        f->list[n] = f->name[n];
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

/* Copies the regular file from into to, created (not replaced: to's
 * directory is new and private). */
static bool copy_file(const char *from, const char *to)
{
    char buf[65536];
    FILE *in = fopen(from, "rb"), *out = in ? fopen(to, "wbx") : NULL;
    size_t n;
    bool ok = in && out;
    while (ok && (n = fread(buf, 1, sizeof buf, in)) > 0)
        ok = fwrite(buf, 1, n, out) == n;
    ok = ok && !ferror(in);
    if (in)
        fclose(in);
    if (out && fclose(out) != 0)
        ok = false;
    return ok;
}

/*
 * After gnuplot failed: the charts' scripts and data live in the failed
 * report's staging directory, which is removed with it (the output
 * directory keeps the earlier report), so a message naming them there or
 * in the output directory named a file that is not there (issue 34).
 * Copies each chart's <name>.gp and <name>.dat (the script reads its data
 * as ./<name>.dat: it re-runs there) into a new directory under $TMPDIR
 * (else /tmp), its path into kept; false, leaving nothing, on failure.
 */
static bool
keep_charts(const struct plot_files *charts, char *kept, size_t size)
{
    static const char *const ext[2] = {".gp", ".dat"};
    const char *tmp = getenv("TMPDIR");
    char to[PLOT_CHARTS][2][PATH_MAX];
    size_t c, k, n = 0;
    bool ok = true;
    if (!tmp || tmp[0] != '/')
        tmp = "/tmp";
    if ((size_t)snprintf(kept, size, "%s/roofplan-charts.XXXXXX", tmp) >=
            size ||
        !mkdtemp(kept))
        return false;
    for (c = 0; ok && c < charts->ncharts; c++) {
        const char *from[2] = {charts->chart[c].script, charts->chart[c].data};
        for (k = 0; ok && k < 2; k++) {
            ok = (size_t)snprintf(to[c][k], PATH_MAX, "%s/%s%s", kept,
                                  charts->chart[c].name, ext[k]) < PATH_MAX &&
                 copy_file(from[k], to[c][k]);
            n++; /* (a failed copy may have made its file) */
        }
    }
    if (!ok) {
        for (c = 0; c < n; c++)
            unlink(to[c / 2][c % 2]);
        rmdir(kept);
    }
    return ok;
}

/* Everything `report` holds between its stages. */
struct report_run {
    struct cli_inputs in;
    struct validation_runs runs;
    struct validation_inputs *vin; /* [runs.n]: the first nvin loaded */
    size_t nvin;
    struct cost_ctx ctx, other;
    struct report_inputs inputs; /* what the report is of */
    struct ranking rank;         /* rank's hand-over */
    struct views views;          /* figures': what the writers show */
    struct scale scale; /* several sizes, --days, --budget (views.scale) */
    struct out_dir out;
    struct plot_job job;
    struct plot_files charts;
    bool job_pending; /* plot_out_start succeeded, _finish not yet called */
    double gnuplot_timeout_s; /* 0: plot_out's default (gnuplot_timeout) */
    struct progress progress; /* the line on stderr */
};

/* A failed report's message, printed: files named where they are (the
 * charts' scripts kept after a gnuplot failure: keep_charts). */
static void print_failure(struct diag *d, struct report_run *rr)
{
    char kept[PATH_MAX];
    bool plot = d->status == STATUS_PLOT && !rr->job_pending &&
                !atomic_load(&rr->job.stop) && rr->out.stage[0] &&
                (strstr(d->msg, rr->out.stage) ||
                 (rr->out.handle[0] && strstr(d->msg, rr->out.handle)));
    if (plot && keep_charts(&rr->charts, kept, sizeof kept)) {
        cli_restage(d, rr->out.handle, kept);
        cli_restage(d, rr->out.stage, kept);
        cli_print_diag(d);
        fprintf(stderr,
                "%s: the charts' scripts and data are kept in %s (the "
                "report was not written): run `gnuplot NAME.gp` there to "
                "see a chart's error\n",
                CLI_PROG, kept);
        return;
    }
    if (plot) { /* not kept: the files went with the staging directory */
        char stage[sizeof rr->out.stage + 1];
        char handle[sizeof rr->out.handle + 1];
        snprintf(stage, sizeof stage, "%s/", rr->out.stage);
        snprintf(handle, sizeof handle, "%s/", rr->out.handle);
        cli_restage(d, handle, "");
        cli_restage(d, stage, "");
        cli_print_diag(d);
        fprintf(stderr,
                "%s: the charts' scripts could not be kept (in $TMPDIR or "
                "/tmp); the report was not written\n",
                CLI_PROG);
        return;
    }
    cli_unstage(d, &rr->out);
    cli_print_diag(d);
}

/* Reads the validation runs and the inputs each is predicted with. */
static enum status load_validations(struct report_run *rr,
                                    const char *data_dir,
                                    const char *recipe,
                                    struct diag *d)
{
    size_t i;
    if (validation_load_dir(data_dir, &rr->runs, d) != STATUS_OK)
        return d->status;
    rr->vin = calloc(rr->runs.n ? rr->runs.n : 1, sizeof *rr->vin);
    if (!rr->vin)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    for (i = 0; i < rr->runs.n; i++) {
        const struct validation_run *run = &rr->runs.run[i];
        if (validation_load_inputs(run, recipe, data_dir, &rr->in.m, &rr->in.hw,
                                   &rr->vin[i], d) != STATUS_OK)
            return d->status;
        rr->nvin = i + 1;
        if (report_inputs_add(&rr->inputs, "validation", run->path, d) !=
            STATUS_OK)
            return d->status;
    }
    return STATUS_OK;
}

/* What the workbook's wait needs: the run and its signal guard. */
struct chart_wait {
    struct report_run *rr;
    struct cli_guard *g;
};

/* xlsx_out_write_waiting's wait: the PNGs gnuplot has been drawing
 * while plans.csv and the workbook's big sheets were written (it draws
 * the SVGs and PDFs while the workbook is packed: write_report waits
 * for those); then the workbook's packing, a step of its own on the
 * progress line. */
static enum status
wait_charts(void *user, struct xlsx_images *img, struct diag *d)
{
    struct chart_wait *w = user;
    struct report_run *rr = w->rr;
    enum status st = STATUS_OK;
    if (rr->job_pending) {
        progress_begin(&rr->progress, "charts", "charts", rr->charts.ncharts);
        rr->job.progress = &rr->progress;
        st = plot_out_wait_png(&rr->job, &rr->charts, d);
        progress_end(&rr->progress);
        if (st != STATUS_OK) {
            /* _wait_png has waited for every run: nothing left */
            rr->job_pending = false;
            cli_guard_set(w->g, &rr->out, NULL);
            return st;
        }
    }
    img->roofline_ib = chart_png(&rr->charts, "roofline-ib");
    img->roofline_nvlink = chart_png(&rr->charts, "roofline-nvlink");
    img->step_breakdown = chart_png(&rr->charts, "step-breakdown");
    img->memory = chart_png(&rr->charts, "memory");
    img->sensitivity_ib = chart_png(&rr->charts, "sensitivity-ib");
    img->sensitivity_nvlink = chart_png(&rr->charts, "sensitivity-nvlink");
    img->waterfall = chart_png(&rr->charts, "waterfall");
    progress_begin(&rr->progress, "packing " WORKBOOK, "", 0);
    return STATUS_OK;
}

/* The plans plans.csv lists. */
static uint64_t csv_plans(const struct cli_config *cfg, const struct views *r)
{
    return cfg->all_plans ? r->rank->valid
           : cfg->top     ? r->rank->nrows
                          : r->nsheet;
}

/* Starts gnuplot on the charts, writes plans.csv and the workbook while
 * it draws them, and embeds them in the workbook when they are done, all
 * into the staging directory; lists the names in `written`. */
static enum status write_report(const struct cli_config *cfg,
                                struct report_run *rr,
                                struct cli_guard *g,
                                char *written,
                                size_t size,
                                struct diag *d)
{
    char path[OUT_DIR_MAX + 64], tdir[1100];
    struct plot_options popt =
        plot_options(rr->gnuplot_timeout_s, tdir, sizeof tdir);
    struct chart_wait w = {rr, g};
    enum status st;

    written[0] = '\0';
    if (!cfg->no_charts) {
        /* the signal thread stops gnuplot from the first spawn on (the
         * job is zeroed: see plot_out_start); a signal in the middle of
         * the spawns would otherwise leave the ones spawned running */
        cli_guard_set(g, &rr->out, &rr->job);
        st = plot_out_start(&rr->views, rr->out.handle, &popt, &rr->job,
                            &rr->charts, d);
        if (st != STATUS_OK)
            return st;
        if (rr->charts.gnuplot_missing)
            return diag_set(d, STATUS_PLOT,
                            "gnuplot not found on PATH: the charts cannot be "
                            "drawn (install gnuplot, e.g. apt-get install "
                            "gnuplot-nox, or run with --no-charts)");
        rr->job_pending = true;
    }
    snprintf(written, size, "%s/" WORKBOOK, cfg->out_dir);
    if (!cfg->no_csv) {
        out_dir_path(&rr->out, PLANS_CSV, path, sizeof path);
        progress_begin(&rr->progress, PLANS_CSV, "plans",
                       csv_plans(cfg, &rr->views));
        st = csv_out_write(&rr->views, path,
                           cfg->all_plans ? CSV_OUT_ALL
                           : cfg->top     ? CSV_OUT_KEPT
                                          : CSV_OUT_SHEET,
                           d);
        progress_end(&rr->progress);
        if (st != STATUS_OK)
            return st;
        snprintf(written + strlen(written), size - strlen(written),
                 ", %s/" PLANS_CSV, cfg->out_dir);
    }
    /* the workbook's big sheets while gnuplot draws (a failure there
     * leaves job_pending: the caller stops gnuplot) */
    out_dir_path(&rr->out, WORKBOOK, path, sizeof path);
    progress_begin(&rr->progress, WORKBOOK, "Plans rows", rr->views.nsheet);
    st = xlsx_out_write_waiting(&rr->views, path, wait_charts, &w, d);
    progress_end(&rr->progress);
    if (st != STATUS_OK)
        return st;
    /* the SVGs and PDFs gnuplot drew while the workbook was packed */
    if (rr->job_pending) {
        rr->job_pending = false;
        progress_begin(&rr->progress, "SVG and PDF", "charts",
                       rr->charts.ncharts);
        st = plot_out_finish(&rr->job, &rr->charts, d);
        cli_guard_set(g, &rr->out, NULL);
        progress_end(&rr->progress);
        if (st != STATUS_OK)
            return st;
    }
    if (!cfg->no_charts)
        snprintf(written + strlen(written), size - strlen(written),
                 " and %zu charts", rr->charts.ncharts);
    return STATUS_OK;
}

/* read inputs -> enumerate, evaluate, rank -> derive figures -> write,
 * then commit the whole report or nothing. */
/* The report's inputs: every file it rests on with its checksum, the
 * training recipe (in words for the summary and About; on stderr too for
 * a config.json model; recipe holds its path unless -t gave it), the
 * validation runs; 0, else the exit code. */
static int report_inputs(const struct cli_config *cfg,
                         struct report_run *rr,
                         const char *data_dir,
                         char *recipe,
                         size_t size,
                         struct diag *d)
{
    char words[CLI_RECIPE_TEXT];
    enum cli_recipe_origin origin;
    const char *tp;
    rr->inputs.m = &rr->in.m;
    rr->inputs.hw = &rr->in.hw;
    rr->inputs.sweep = &rr->in.sweep;
    rr->inputs.comm = cfg->comm;
    snprintf(rr->inputs.command_line, sizeof rr->inputs.command_line, "%s",
             cfg->command_line);
    snprintf(rr->inputs.version, sizeof rr->inputs.version, "%s",
             ROOFPLAN_VERSION);
    if (!cli_generation_time(&rr->inputs.generated, d))
        return CLI_EXIT_INPUT;
    tp = cli_training_path(cfg, recipe, size); /* -t's, or recipe */
    origin =
        cli_recipe_words(cfg, &rr->in.m, &rr->in.sweep, words, sizeof words);
    rr->inputs.recipe_json = origin != CLI_RECIPE_OWN;
    rr->inputs.recipe_default = origin == CLI_RECIPE_BORROWED;
    rr->inputs.recipe = strdup(words);
    if (!rr->inputs.recipe) {
        diag_set(d, STATUS_NOMEM, "out of memory");
        return CLI_EXIT_RUNTIME;
    }
    if (rr->in.have_stack) {
        snprintf(words, sizeof words, "%s; release: %s", rr->in.stack.spec.name,
                 rr->in.stack.spec.framework_release);
        rr->inputs.stack_words = strdup(words);
        if (!rr->inputs.stack_words) {
            diag_set(d, STATUS_NOMEM, "out of memory");
            return CLI_EXIT_RUNTIME;
        }
    }
    /* stdout's summary says it too; stderr keeps the warning where stdout
     * goes to a file */
    if (rr->inputs.recipe_json)
        fprintf(stderr, "%s: %s: training recipe %s\n", CLI_PROG,
                rr->in.m.meta.path, rr->inputs.recipe);
    if (report_inputs_add(&rr->inputs, "model", rr->in.m.meta.path, d) ||
        (rr->inputs.recipe_json &&
         report_inputs_add(&rr->inputs, "training", tp, d)) ||
        report_inputs_add(&rr->inputs, "hardware", rr->in.hw.meta.path, d) ||
        (rr->in.have_cal && report_inputs_add(&rr->inputs, "calibration",
                                              rr->in.cal.meta.path, d)) ||
        (rr->in.have_stack &&
         report_inputs_add(&rr->inputs, "stack", rr->in.stack.meta.path, d)) ||
        report_inputs_add(&rr->inputs, "sweep", rr->in.sweep.meta.path, d) ||
        load_validations(rr, data_dir, tp, d))
        return cli_exit_code(d->status, CLI_IO_INPUT);
    return 0;
}

/* Enumerates, evaluates and ranks the sweep (cfg's --top, --all-plans,
 * --threads), with its progress line. */
static enum status sweep_and_rank(const struct cli_config *cfg,
                                  struct report_run *rr,
                                  const struct sweep_file *sweep,
                                  struct ranking *rank,
                                  struct diag *d)
{
    struct rank_options opt;
    long cpus;
    enum status st;

    memset(&opt, 0, sizeof opt);
    opt.top = cfg->top;
    /* without --top the report shows the Plans sheet's plans: keep only
     * those (--all-plans: every plan up to Excel's row limit) */
    opt.sheet_only = !cfg->all_plans;
    cpus = sysconf(_SC_NPROCESSORS_ONLN);
    opt.threads = cfg->threads ? cfg->threads : cpus > 0 ? (size_t)cpus : 1;
    /* --all-plans: plans.csv lists every plan, so the sweep spills them */
    opt.spill_dir = cfg->no_csv || !cfg->all_plans ? NULL : rr->out.handle;
    rr->inputs.all_plans = cfg->all_plans;
    rr->inputs.expected = rr->in.have_cal && rr->in.have_stack;
    opt.progress = sweep_progress;
    opt.progress_user = &rr->progress;
    rr->inputs.progress = &rr->progress;
    progress_begin(&rr->progress, "sweep", "combinations", sweep_count(sweep));
    st = rank_run(rank, &rr->ctx, sweep, &opt, d);
    progress_end(&rr->progress);
    return st;
}

/* The counts on stderr (unless -q), and where the plans not on the Plans
 * sheet are. */
static void say_counts(const struct cli_config *cfg,
                       const struct report_run *rr,
                       double total_s,
                       const char *written)
{
    if (!cfg->quiet)
        fprintf(stderr,
                "%s: %llu plans enumerated, %llu valid, %llu fit in memory; "
                "sweep %.3f s (%llu not timed at the expected rates: "
                "none could enter the kept plans), total %.3f s; wrote %s\n",
                CLI_PROG, (unsigned long long)rr->rank.enumerated,
                (unsigned long long)rr->rank.valid,
                (unsigned long long)rr->rank.fitting, rr->rank.elapsed_s,
                (unsigned long long)rr->rank.floor_only, total_s, written);
    if (rr->rank.valid > rr->views.nsheet && !cfg->quiet)
        fprintf(stderr,
                "%s: %llu valid plans are not on the Plans sheet (%s; "
                "--all-plans puts every kept plan there and every plan in "
                "plans.csv)\n",
                CLI_PROG,
                (unsigned long long)(rr->rank.valid - rr->views.nsheet),
                cfg->no_csv      ? "--no-csv: no plans.csv"
                : cfg->all_plans ? "plans.csv has them"
                : cfg->top       ? "plans.csv has the kept ones"
                                 : "nor in plans.csv");
}

/* Enumerates, evaluates and ranks one space (rank_run), and what rank
 * hands over besides the rows (rank_finish, the validation runs). */
static enum status rank_space(const struct cli_config *cfg,
                              struct report_run *rr,
                              const struct sweep_file *sweep,
                              struct ranking *rank,
                              const struct timespec *t0,
                              struct diag *d)
{
    if (sweep_and_rank(cfg, rr, sweep, rank, d) != STATUS_OK)
        return d->status;
    rank->elapsed_s = seconds_since(t0);
    if (rank_finish(rank, sweep, &rr->ctx, &rr->other, d) != STATUS_OK ||
        rank_finish_validations(rank, rr->runs.run, rr->vin, rr->nvin, &rr->ctx,
                                &rr->other, d) != STATUS_OK)
        return d->status;
    return STATUS_OK;
}

/* Each cluster size of the sweep ranked on its own (plans of different
 * sizes are never ranked against each other), its recommended plan in
 * sizes[k]; the size the report details (scale_main) moved into
 * rr->rank. */
static enum status rank_each_size(const struct cli_config *cfg,
                                  struct report_run *rr,
                                  const long *gpus,
                                  size_t n,
                                  const struct timespec *t0,
                                  struct diag *d)
{
    struct ranking *ranks = calloc(n, sizeof *ranks);
    struct scale_size *sizes = calloc(n, sizeof *sizes);
    size_t k, main_k;
    enum status st = STATUS_OK;
    if (!ranks || !sizes) {
        st = diag_set(d, STATUS_NOMEM, "out of memory");
        goto done;
    }
    for (k = 0; k < n && st == STATUS_OK; k++) {
        struct sweep_file one;
        struct report_inputs in = rr->inputs; /* borrowed, not freed */
        struct views v;
        memset(&v, 0, sizeof v);
        sweep_at_size(&rr->in.sweep, gpus[k], &one);
        in.sweep = &one;
        st = rank_space(cfg, rr, &one, &ranks[k], t0, d);
        if (st == STATUS_OK)
            st = figures_views(&in, &ranks[k], &v, d);
        if (st == STATUS_OK)
            scale_size_of(&v, &sizes[k]);
        views_free(&v);
    }
    if (st == STATUS_OK &&
        !scale_of(sizes, n, rr->in.sweep.spec.r_scale_efficiency, cfg->days,
                  cfg->budget_usd, &rr->scale))
        st = diag_set(d, STATUS_NOMEM, "out of memory");
    if (st == STATUS_OK) {
        /* gpus is ascending, like the scale's sizes */
        main_k = scale_main(&rr->scale, rr->in.hw.spec.gpus);
        rr->rank = ranks[main_k];
        memset(&ranks[main_k], 0, sizeof ranks[main_k]);
    }
done:
    for (k = 0; ranks && k < n; k++)
        ranking_free(&ranks[k]);
    free(ranks);
    free(sizes);
    return st;
}

/* Enumerate, evaluate, rank (an I/O failure there is its spill file's),
 * then derive the figures: one space, or each cluster size of several on
 * its own (rank_each_size); the scale where there are several sizes, a
 * deadline or a budget. */
static enum status rank_sizes(const struct cli_config *cfg,
                              struct report_run *rr,
                              const struct timespec *t0,
                              struct diag *d)
{
    long gpus[DATAFILE_LIST_MAX];
    size_t n = sweep_sizes(&rr->in.sweep, &rr->in.hw, gpus);
    struct scale_size one;
    /* a space too large to sweep is refused as a whole (rank_run says so
     * with its count), not size by size */
    if (n > 1 && sweep_count(&rr->in.sweep) <= SWEEP_MAX_COMBINATIONS) {
        if (rank_each_size(cfg, rr, gpus, n, t0, d) != STATUS_OK)
            return d->status;
    } else if (rank_space(cfg, rr, &rr->in.sweep, &rr->rank, t0, d) !=
               STATUS_OK) {
        return d->status;
    }
    if (figures_views(&rr->inputs, &rr->rank, &rr->views, d) != STATUS_OK)
        return d->status;
    if (n <= 1 && (cfg->days > 0 || cfg->budget_usd > 0)) {
        scale_size_of(&rr->views, &one);
        if (!scale_of(&one, 1, rr->in.sweep.spec.r_scale_efficiency, cfg->days,
                      cfg->budget_usd, &rr->scale))
            return diag_set(d, STATUS_NOMEM, "out of memory");
    }
    rr->views.scale = rr->scale.n > 0 ? &rr->scale : NULL;
    return STATUS_OK;
}

static int run_report(const struct cli_config *cfg,
                      struct report_run *rr,
                      struct cli_guard *g,
                      const char *data_dir,
                      struct diag *d)
{
    char recipe[1300];
    struct timespec t0;
    char written[3 * OUT_DIR_MAX];
    struct report_files files;
    int rc;

    clock_gettime(CLOCK_MONOTONIC, &t0);
    rc = report_inputs(cfg, rr, data_dir, recipe, sizeof recipe, d);
    if (rc != 0)
        return rc;
    if (cost_ctx_init(&rr->ctx, &rr->in.m, &rr->in.hw, cfg->comm, d) ||
        cost_ctx_init(&rr->other, &rr->in.m, &rr->in.hw,
                      cfg->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO, d))
        return CLI_EXIT_RUNTIME;
    rr->ctx.stack = rr->other.stack = rr->in.have_stack ? &rr->in.stack : NULL;
    /* the output directory: locked, with a private staging directory;
     * the guard knows it before the staging directory exists (rr->out is
     * zeroed: nothing to undo yet), so a signal while it is made removes
     * it, not only one after */
    cli_guard_set(g, &rr->out, NULL);
    if (cli_out_open(cfg, &rr->out, d) != STATUS_OK)
        return cli_exit_code(d->status, CLI_IO_OUTPUT);
    if (rank_sizes(cfg, rr, &t0, d) != STATUS_OK)
        return cli_exit_code(d->status, CLI_IO_OUTPUT);
    cli_print_summary(&rr->views);
    /* the summary (stdout) before the counts (stderr) where both go to
     * one pipe: stdout is block-buffered there */
    fflush(stdout);
    /* write, then commit the report at once (a signal waits for it) */
    if (write_report(cfg, rr, g, written, sizeof written, d) != STATUS_OK)
        return CLI_EXIT_RUNTIME;
    pthread_mutex_lock(&g->lock);
    report_files(&files);
    if (out_dir_commit(&rr->out, files.list, REPORT_FILES, d) != STATUS_OK) {
        pthread_mutex_unlock(&g->lock);
        return CLI_EXIT_RUNTIME;
    }
    pthread_mutex_unlock(&g->lock);
    say_counts(cfg, rr, seconds_since(&t0), written);
    return 0;
}

int cli_cmd_report(struct cli_config *cfg, char **args, size_t nargs)
{
    struct report_run *rr;
    struct cli_guard g;
    struct diag d;
    char data_dir[1024];
    size_t i;
    int rc;

    if (nargs > 0)
        return cli_usage_error("report: unexpected argument '%s'", args[0]);
    if (cfg->out_dir[0] == '\0')
        return cli_usage_error("--out %s: expected a directory name", "\"\"");
    rr = calloc(1, sizeof *rr); /* the report is large: not on the stack */
    if (!rr) {
        fprintf(stderr, "%s: out of memory\n", CLI_PROG);
        return CLI_EXIT_RUNTIME;
    }
    rr->out.lock_fd = -1;
    /* anywhere with --progress; else on a terminal unless -q */
    progress_init(&rr->progress, stderr, CLI_PROG,
                  cfg->progress                           ? PROGRESS_ALWAYS
                  : !cfg->quiet && isatty(fileno(stderr)) ? PROGRESS_SLOW
                                                          : PROGRESS_NEVER);
    diag_init(&d);
    cli_guard_start(&g);
    if (!gnuplot_timeout(&rr->gnuplot_timeout_s, &d) ||
        cli_load_inputs(cfg, &rr->in, &d) != STATUS_OK) {
        rc = cli_exit_code(d.status, CLI_IO_INPUT);
    } else {
        cli_data_directory(data_dir, sizeof data_dir);
        rc = run_report(cfg, rr, &g, data_dir, &d);
    }
    progress_end(&rr->progress); /* a line left open ends before a message */
    if (rc != 0 && d.status != STATUS_OK)
        print_failure(&d, rr);
    if (rr->job_pending)
        plot_out_abort(&rr->job);
    pthread_mutex_lock(&g.lock);
    g.out = NULL;
    g.job = NULL;
    out_dir_close(&rr->out);
    pthread_mutex_unlock(&g.lock);
    cli_guard_stop(&g);
    views_free(&rr->views);
    scale_free(&rr->scale);
    ranking_free(&rr->rank);
    report_inputs_free(&rr->inputs);
    cost_ctx_release(&rr->ctx);
    cost_ctx_release(&rr->other);
    for (i = 0; i < rr->nvin; i++)
        validation_inputs_release(&rr->vin[i]);
    free(rr->vin);
    validation_runs_release(&rr->runs);
    cli_release_inputs(&rr->in);
    progress_release(&rr->progress);
    free(rr);
    if (rc == 0)
        rc = cli_flush_stdout();
    return rc;
}
