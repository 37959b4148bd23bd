/*
 * plot_out: the design-review charts of a report (DESIGN.md §6). For each
 * chart it writes a data file (numbers only, fixed formats) and a gnuplot
 * script made from templates/<chart>.gp.in with its @PLACEHOLDERS@ filled,
 * then runs gnuplot on the scripts to draw PNG (1600x900), SVG and, where
 * gnuplot has the pdfcairo terminal, PDF. The scripts and data stay beside
 * the images so anyone can restyle a chart and re-run gnuplot.
 *
 * Text from data files (model, cluster, family and run names) reaches a
 * script only as a single-quoted gnuplot string made by one escaping
 * function, under `noenhanced`; output and data paths are built here and
 * start with "./" (gnuplot runs in the output directory). gnuplot runs
 * through posix_spawnp (no shell), in its own process group, killed at a
 * deadline, with its stderr captured for the message.
 *
 * It computes nothing about plans: every number comes from struct report
 * (and cost_times() for the sensitivity of a family with no fitting plan).
 */
#ifndef PROJ_PLOT_OUT_H
#define PROJ_PLOT_OUT_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "report.h"

#define PLOT_CHARTS      5
#define PLOT_PATH_MAX    1100
#define PLOT_TIMEOUT_S   30.0 /* default deadline of a gnuplot run */
#define PLOT_BARS_MAX    20   /* families drawn in the bar charts */
#define PLOT_WARNING_MAX 512

struct plot_options {
    double timeout_s;         /* per run, > 0; 0: PLOT_TIMEOUT_S */
    const char *template_dir; /* NULL: ./templates, else the built-in one */
    const char *gnuplot;      /* program, looked up on PATH; NULL: gnuplot */
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
    struct plot_chart chart[PLOT_CHARTS]; /* in the order of the issue */
    size_t ncharts;
    bool rendered;        /* gnuplot drew every chart's PNG and SVG */
    bool gnuplot_missing; /* no gnuplot on PATH: scripts and data only */
    char warning[PLOT_WARNING_MAX]; /* "" or one line for the user */
};

/*
 * The template directory used when opt->template_dir is NULL: "templates"
 * when it exists in the working directory, else the one the build was
 * configured with (ROOFPLAN_TEMPLATEDIR). The returned string is static.
 */
const char *plot_out_template_dir(void);

/*
 * Writes the five charts of r into the existing directory dir:
 * roofline-ib, roofline-nvlink, step-breakdown, memory and sensitivity-ib,
 * each as <name>.dat and <name>.gp, then renders them with gnuplot (all
 * five at once, each under opt->timeout_s). Images of an earlier run with
 * these names are removed first, so a missing image is never a stale one.
 * opt may be NULL (defaults). out receives the paths written.
 *
 * Returns STATUS_OK when the charts were drawn, and also when gnuplot is
 * not on PATH (out->gnuplot_missing, out->warning says how to draw them);
 * STATUS_IO when a file cannot be read or written; STATUS_PARSE for a bad
 * template; STATUS_PLOT when gnuplot fails or times out (the message
 * names the chart and carries gnuplot's stderr). The scripts and data are
 * kept in every case but the first two.
 *
 *   struct plot_files pf;
 *   if (plot_out_write(&rep, "out", NULL, &pf, &d) != STATUS_OK) ...
 */
enum status plot_out_write(const struct report *r,
                           const char *dir,
                           const struct plot_options *opt,
                           struct plot_files *out,
                           struct diag *d);

/* gnuplot processes in flight between plot_out_start and _finish. */
struct plot_run {
    int pid;
    FILE *err; /* the child's stdout and stderr */
    bool running, timed_out, spawned;
    int status; /* from waitpid */
};

struct plot_job {
    struct plot_run runs[PLOT_CHARTS];
    char dir[PLOT_PATH_MAX];
    double timeout_s;
    bool started; /* gnuplot was found and spawned */
};

/*
 * plot_out_write() in two halves, so the caller can work while gnuplot
 * draws: _start writes every script and data file and spawns gnuplot
 * (or sets out->gnuplot_missing); _finish waits (to the timeout) and
 * checks each chart, as plot_out_write describes. Call _finish exactly
 * once after a successful _start; out must stay valid in between.
 */
enum status plot_out_start(const struct report *r,
                           const char *dir,
                           const struct plot_options *opt,
                           struct plot_job *job,
                           struct plot_files *out,
                           struct diag *d);

enum status
plot_out_finish(struct plot_job *job, struct plot_files *out, struct diag *d);

/*
 * Writes text into buf as a gnuplot single-quoted string literal, quotes
 * included: every ' doubled, control characters (and DEL) replaced by a
 * space, truncated at a character boundary to fit size. The one way text
 * from data files enters a script. Returns false when truncated.
 *
 *   plot_out_quote("it's", buf, sizeof buf);   // buf: 'it''s'
 */
bool plot_out_quote(const char *text, char *buf, size_t size);

#endif
