/*
 * plot_out: the design-review charts of a report (DESIGN.md §6), the one
 * interface the rest of roofplan calls. For each chart it writes a data
 * file and a gnuplot script (plot_charts), then runs gnuplot on the
 * scripts (plot_run) to draw PNG (1600x900), SVG and, where gnuplot has
 * the pdfcairo terminal, PDF. The scripts and data stay beside the
 * images so anyone can restyle a chart and re-run gnuplot.
 *
 * It writes every file straight into the directory it is given and
 * removes nothing there: the caller gives it a fresh private directory
 * (the report's staging directory) and publishes the files only when
 * everything succeeded. gnuplot is found on PATH by absolute entries
 * only, spawned by its absolute path, in its own process group, with its
 * output captured (bounded) and a deadline counted from its start.
 *
 * It computes nothing about plans: every number comes from struct views.
 *
 * May call: plot_charts, plot_run, plot_template, diag, report, libc.
 */
#ifndef PROJ_PLOT_OUT_H
#define PROJ_PLOT_OUT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "plot_charts.h"
#include "plot_run.h"
#include "views.h"

#define PLOT_PATH_MAX    1100
#define PLOT_TIMEOUT_S   30.0 /* default deadline of a gnuplot run */
#define PLOT_WARNING_MAX 512

/* The files of one chart, in the order a report lists them: its images
 * (the first PLOT_IMAGES), its gnuplot script and its data. */
enum plot_file {
    PLOT_FILE_PNG,
    PLOT_FILE_SVG,
    PLOT_FILE_PDF, /* where gnuplot has the pdfcairo terminal */
    PLOT_FILE_SCRIPT,
    PLOT_FILE_DATA,
    PLOT_FILES
};
#define PLOT_IMAGES PLOT_FILE_SCRIPT /* png, svg, pdf */

struct plot_options {
    double timeout_s;         /* per run, from its start, > 0; 0: default */
    const char *template_dir; /* NULL: plot_template_dir() */
    const char *gnuplot;      /* program (plot_run_find); NULL: "gnuplot" */
};

/* One chart's files; a path is "" when that file was not written. */
struct plot_chart {
    char name[32]; /* "roofline-ib", ... (file names without extension) */
    char script[PLOT_PATH_MAX];
    char data[PLOT_PATH_MAX];
    char png[PLOT_PATH_MAX];
    char svg[PLOT_PATH_MAX];
    char pdf[PLOT_PATH_MAX]; /* "" without gnuplot's pdfcairo terminal */
};

struct plot_files {
    /* the charts the report has (plot_charts_wanted), in
     * plot_charts_name() order: ncharts of them */
    struct plot_chart chart[PLOT_CHARTS];
    size_t ncharts;
    bool rendered;        /* gnuplot drew every chart's PNG and SVG */
    bool gnuplot_missing; /* no gnuplot on PATH: scripts and data only */
    char warning[PLOT_WARNING_MAX]; /* "" or one line for the user */
};

/* An image file as it was before gnuplot ran, so that one left in dir
 * by an earlier run never passes for this run's (see plot_out_finish). */
struct plot_stamp {
    bool exists;
    unsigned long long dev, ino;
    long long mtime_s, mtime_ns;
};

/*
 * gnuplot runs in flight between plot_out_start() and _finish(). The
 * caller owns it; runs[i] is the gnuplot of out->chart[i] (i < nruns):
 * runs[i].pid its process (and process group), runs[i].running whether
 * it is still out (an atomic: read it with atomic_load).
 */
struct plot_job {
    struct plot_run runs[PLOT_CHARTS];
    size_t nruns; /* the charts written, out->ncharts */
    char dir[PLOT_PATH_MAX];
    char gnuplot[PLOT_PATH_MAX]; /* absolute path of the program spawned */
    double timeout_s;
    bool started;     /* gnuplot was found and spawned; _finish not yet run */
    atomic_bool stop; /* plot_out_abort() was called: spawn nothing more */
    atomic_bool spawning; /* a spawn is in flight: its child is not yet in
                             runs[].running, abort waits for it */
    struct plot_stamp before[PLOT_CHARTS][PLOT_IMAGES]; /* by runs[] */
    /* where _finish counts the charts as gnuplot ends them (borrowed;
     * NULL: nowhere); set by the caller, _start leaves it */
    struct progress *progress;
};

/* The suffix of a chart's file f (".png", ".gp", ".dat"); "" outside the
 * enum. The files of chart c are plot_charts_name(c) with each. */
const char *plot_out_suffix(enum plot_file f);

/*
 * Writes the charts of r into the existing directory dir:
 * roofline-ib, roofline-nvlink, step-breakdown, memory, sensitivity-ib,
 * sensitivity-nvlink and, when the recommended plan has an expected
 * step, waterfall (without one: no waterfall file, and no error),
 * each as <name>.dat and <name>.gp, then renders them with gnuplot (all
 * at once, each under opt->timeout_s from its start). opt may be
 * NULL (defaults). out receives the paths written. Nothing in dir is
 * removed; files of these names are overwritten (never through a
 * symbolic link).
 *
 * Returns STATUS_OK when the charts were drawn, and also when gnuplot is
 * not on PATH (out->gnuplot_missing, out->warning says how to draw them);
 * STATUS_IO when a file cannot be read or written; STATUS_PARSE for a bad
 * template; STATUS_PLOT when gnuplot fails, times out or is stopped (the
 * message names the chart and carries the end of gnuplot's output). The
 * scripts and data are kept in every case but the first two.
 *
 *   struct plot_files pf;
 *   if (plot_out_write(&rep, "out", NULL, &pf, &d) != STATUS_OK) ...
 */
enum status plot_out_write(const struct views *r,
                           const char *dir,
                           const struct plot_options *opt,
                           struct plot_files *out,
                           struct diag *d);

/*
 * plot_out_write() in two halves, so the caller can work while gnuplot
 * draws: _start writes every script and data file and spawns gnuplot
 * (or sets out->gnuplot_missing); _finish waits (each run to its
 * deadline, counted from its spawn) and checks each chart, as
 * plot_out_write describes. Call _finish exactly once after a successful
 * _start; out and job must stay valid in between. When _start fails it
 * leaves no gnuplot running and needs no _finish.
 *
 * Zero the job once (memset, or `= {0}`) before it is shared with a
 * thread that may call plot_out_abort(): _start initialises every field
 * but `stop` and `spawning`, so an abort that comes even before _start
 * stops it (_start then spawns nothing and returns STATUS_PLOT).
 */
enum status plot_out_start(const struct views *r,
                           const char *dir,
                           const struct plot_options *opt,
                           struct plot_job *job,
                           struct plot_files *out,
                           struct diag *d);

enum status
plot_out_finish(struct plot_job *job, struct plot_files *out, struct diag *d);

/*
 * Waits (as _finish does, deadlines kept) only until gnuplot has drawn
 * every chart's PNG, each checked complete, and fills out->chart[].png;
 * gnuplot goes on with the SVG and PDF meanwhile. The PNGs are final:
 * the caller may read them at once (to embed them in a workbook). Call
 * it at most once, between a successful _start and the _finish that
 * must still follow (it checks the rest and fills the SVG and PDF
 * paths). Returns STATUS_OK, also without gnuplot (no paths then); when
 * a run ends before its PNG (failed, timed out, stopped) it is _finish
 * itself, with its error (a later _finish returns STATUS_OK at once).
 */
enum status
plot_out_wait_png(struct plot_job *job, struct plot_files *out, struct diag *d);

/*
 * Stops the job: kills the process group of every gnuplot still running
 * (SIGKILL), reaps it, and keeps plot_out_start() from spawning more.
 * Calls only kill(), waitpid() and nanosleep() (and atomic operations on
 * the job), so it is safe on the error paths and from a signal-handling
 * thread while the main thread is in plot_out_start() or _finish(); it
 * frees nothing. A spawn in flight on another thread is waited for (a
 * fork and an exec), so that its gnuplot is killed too.
 * _finish still has to be called after a successful _start: it closes
 * the pipes and reports each stopped chart ("gnuplot was stopped"). A job
 * that was zeroed and never started is fine; calling it twice is too.
 */
void plot_out_abort(struct plot_job *job);

#endif
