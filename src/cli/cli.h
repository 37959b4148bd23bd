/*
 * cli: what roofplan's commands share (DESIGN.md §2): the parsed options,
 * the inputs every command reads (model, hardware, sweep, calibration,
 * stack, found through data/defaults.ini when not named), the exit codes
 * and the messages on stderr. With main.c, the only code that prints to
 * the terminal. The commands return their exit code for main to return;
 * only the signal guard ends the process itself (128 + the signal).
 *
 * cli.c holds the shared part, cli_recipe.c the training recipe in words,
 * cli_report.c the `report` command (and the signal guard `compare` also
 * uses), cli_commands.c the other commands.
 */
#ifndef PROJ_CLI_H
#define PROJ_CLI_H

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "calibration.h"
#include "comm.h"
#include "compare.h"
#include "datafile.h"
#include "diag.h"
#include "hardware.h"
#include "model.h"
#include "nccl_import.h"
#include "out_dir.h"
#include "plot_out.h"
#include "stack.h"
#include "sweep.h"

#define CLI_PROG     "roofplan"
#define CLI_SETS_MAX 64 /* --set overrides on one command line */

/* Exit codes besides 0 (DESIGN.md §2). */
enum { CLI_EXIT_RUNTIME = 1, CLI_EXIT_INPUT = 2 };

/* The options, parsed once by main; the paths point into argv. */
struct cli_config {
    const char *model_path, *hw_path, *sweep_path, *out_dir;
    const char *training_path;    /* -t: recipe for a config.json model */
    const char *calibration_path; /* --calibration FILE */
    const char *stack_path;       /* --stack FILE */
    const char *calibrate_path;   /* --calibrate RUN.ini */
    const char *plan_text;        /* --plan "tp=1 ep=64 ..." (import trace) */
    struct datafile_set sets[CLI_SETS_MAX];
    size_t nsets;
    enum comm_model comm;
    bool json, no_charts, quiet;
    bool progress;     /* --progress: progress lines even off a terminal */
    bool all_plans;    /* --all-plans: every kept plan on the Plans sheet */
    bool no_csv;       /* --no-csv: no plans.csv (nor the sweep's spill) */
    size_t top;        /* --top N; 0: Excel's limit */
    size_t threads;    /* --threads N; 0: online CPUs */
    double wait_s;     /* --wait SECONDS for another run's lock */
    double days;       /* --days D: the deadline, wall-clock days; 0 none */
    double budget_usd; /* --budget USD; 0: none */
    char command_line[1024]; /* as typed, for the About sheet */
    /* every -m and -g, for compare (the other commands take the last) */
    const char *models[COMPARE_PAIRS_MAX], *hws[COMPARE_PAIRS_MAX];
    size_t nmodels, nhws;
    /* import nccl: --intra or --inter (AUTO: neither), --collective NAME
     * (NULL: none); options like the others, in any position */
    enum nccl_import_link import_link;
    const char *import_kind;
    /* compare with several clusters: --calibration applies to those
     * whose GPU it names (calibration.hardware_gpu), the others take
     * their own; calibration_applied counts the pairs it timed */
    bool calibration_matching_only;
    size_t calibration_applied;
};

/* The files a command reads; each have_ flag says its member is loaded. */
struct cli_inputs {
    struct model m;
    struct hardware hw;
    struct sweep_file sweep;
    struct calibration cal; /* hw.cal points here when loaded */
    struct stack stack;
    bool have_m, have_hw, have_sweep, have_cal, have_stack;
};

/* The files defaults.ini names, each resolved against the data directory. */
struct cli_defaults {
    char model[1300], hardware[1300], sweep[1300], training[1300];
    char stack[1300];
};

/*
 * What a signal must undo while a report (or compare.xlsx) is being made.
 * SIGINT, SIGTERM and SIGHUP are blocked in every thread and taken by one
 * thread with sigwait(): it waits for `lock` (a commit in progress
 * finishes first), kills gnuplot, removes the staging directory and exits
 * with 128 + the signal's number. Hold `lock` around out_dir_commit().
 */
struct cli_guard {
    sigset_t set;
    pthread_mutex_t lock;
    struct out_dir *out;  /* NULL until open */
    struct plot_job *job; /* NULL unless gnuplot may be running */
    pthread_t thread;
    bool started;
};

/* ---- Shared (cli.c) ---- */

/* Prints every line of d's message on stderr as "roofplan: line". */
void cli_print_diag(const struct diag *d);

/* Which file a STATUS_IO failure was about (cli_exit_code). */
enum cli_io {
    CLI_IO_OUTPUT, /* one the command writes: a runtime failure */
    CLI_IO_INPUT   /* one the command reads: bad input */
};

/*
 * The exit code for status st: 0 for STATUS_OK, CLI_EXIT_INPUT for bad
 * usage or input (STATUS_IO too with CLI_IO_INPUT: an input file could not
 * be read), else CLI_EXIT_RUNTIME.
 */
int cli_exit_code(enum status st, enum cli_io io);

/* 0 when everything printed reached stdout, or when its reader stopped
 * reading (a pipe to `head`: a normal, quiet end), else a message on
 * stderr and CLI_EXIT_RUNTIME. */
int cli_flush_stdout(void);

/*
 * Prints "roofplan: " + fmt (one %s, filled with arg) and the hint to try
 * --help on stderr; returns CLI_EXIT_INPUT.
 * Example: return cli_usage_error("check: %s", "missing FILE");
 */
int cli_usage_error(const char *fmt, const char *arg);

/*
 * Where roofplan's data files are, into buf: ./data when it holds
 * defaults.ini (running from the source tree), else
 * ../share/roofplan/data beside the executable (after `make install`),
 * else the checkout it was built in.
 */
void cli_data_directory(char *buf, size_t size);

/* Where the gnuplot templates are, into buf: found as the data are. */
void cli_template_directory(char *buf, size_t size);

/* The defaults file's schema (for `schema`); static, never freed. */
const struct datafile_schema *cli_defaults_schema(void);

/*
 * Reads the defaults file at path into *def, its paths resolved against
 * data_dir. Returns datafile_load()'s status, d filled on failure.
 */
enum status cli_read_defaults_file(const char *path,
                                   const char *data_dir,
                                   struct cli_defaults *def,
                                   struct diag *d);

/*
 * The training recipe: -t FILE, else defaults.ini's (a config.json model
 * needs one; an INI model file does not read it), else the data
 * directory's training/default.ini. Returns cfg's path or buf.
 */
const char *
cli_training_path(const struct cli_config *cfg, char *buf, size_t size);

/*
 * Prints report r's summary on stdout: the recommended plan first, then
 * the fastest plan of each family, fastest first (its expected step where
 * the inputs have a calibration and a stack, and its speed of light), and
 * the validation runs.
 */
void cli_print_summary(const struct views *r);

/* Room for a recipe in words (cli_recipe_words): a sentence or two. */
#define CLI_RECIPE_TEXT 1600

/* Whose training recipe a run plans at (cli_recipe_words). */
enum cli_recipe_origin {
    CLI_RECIPE_OWN,     /* an INI model file's own [training] section */
    CLI_RECIPE_FILE,    /* a config.json's: the training file of -t */
    CLI_RECIPE_BORROWED /* a config.json's: the data directory's default
                           recipe (defaults.ini's), not the model's own */
};

/*
 * The training recipe a run plans at, in words, into buf (cli_recipe.c):
 * whose it is, with the name its file gives it (its [training] section's
 * `source`); its sequence length, global batch (sequences, and tokens per
 * step; for an INI model the batch's own `source`), token budget, each
 * with the --set that changed it; and, where sweep sf (NULL: none) names
 * a batch of its own, that batch and where it was said. The report's
 * `recipe` and the first lines of its summary on stdout; messages about a
 * config.json model on stderr. Knows no recipe by name.
 *
 *   "the model file's own, data/models/llama-3-405b.ini [training] (arXiv
 *    2407.21783 §3.1.1 and §3.4.1). Sequence 8,192 tokens; global batch
 *    2,048 sequences, 16.8M tokens per step (Table 4: ...); token budget
 *    15.6T tokens."
 */
enum cli_recipe_origin cli_recipe_words(const struct cli_config *cfg,
                                        const struct model *m,
                                        const struct sweep_file *sf,
                                        char *buf,
                                        size_t size);

/* "Recipe: " and a recipe in words (cli_recipe_words) on stdout, wrapped
 * at spaces near 100 columns, the lines after the first indented: the
 * first lines of report's, eval's and compare's text. Nothing for "". */
void cli_print_recipe(const char *words);

/*
 * Loads the model, hardware and sweep files (the options', else
 * defaults.ini's), reporting the problems of all three, then the
 * calibration (--calibration, else data/calibration/ by the hardware
 * file's name; none is no error) and the stack (--stack, else
 * defaults.ini's); then checks that every --set was used (marking
 * cfg->sets). Release *in with cli_release_inputs() whatever this returns.
 */
enum status
cli_load_inputs(struct cli_config *cfg, struct cli_inputs *in, struct diag *d);

/* Frees what cli_load_inputs() loaded. */
void cli_release_inputs(struct cli_inputs *in);

/*
 * The report's time stamp into *out: SOURCE_DATE_EPOCH when set
 * (reproducible builds), else now. False, with d filled (STATUS_USAGE),
 * when it is not a whole number of seconds in 0 .. 9999-12-31T23:59:59Z.
 */
bool cli_generation_time(int64_t *out, struct diag *d);

/* ---- report (cli_report.c) ---- */

/*
 * Blocks SIGINT, SIGTERM and SIGHUP and starts the thread that takes
 * them. Call before any other thread exists, so each inherits the mask;
 * end with cli_guard_stop().
 */
void cli_guard_start(struct cli_guard *g);

/* Sets (or clears, with NULL) what the signal thread must undo. */
void cli_guard_set(struct cli_guard *g,
                   struct out_dir *out,
                   struct plot_job *job);

/* Stops the signal thread and unblocks the signals. */
void cli_guard_stop(struct cli_guard *g);

/* d's message with every occurrence of `from` replaced by `to`, where
 * what follows it is no digit (so "/proc/self/fd/5" is not found in
 * "/proc/self/fd/57"). */
void cli_restage(struct diag *d, const char *from, const char *to);

/* Rewrites d's message so the staging directory's path, and the path
 * the writers reach it by (/proc/self/fd/N), read as the output
 * directory's: messages name files where the user will find them. */
void cli_unstage(struct diag *d, const struct out_dir *out);

/*
 * Opens the output directory for report and compare: waits up to
 * cfg->wait_s for another run's lock, saying who holds it (unless -q),
 * and notes the staging directories of ended runs it cleaned up.
 */
enum status
cli_out_open(const struct cli_config *cfg, struct out_dir *out, struct diag *d);

/*
 * `report`: sweeps the plan space, prints the families' summary on
 * stdout and commits the workbook, plans.csv and the charts to
 * cfg->out_dir at once. args are the arguments after the command (none
 * accepted). Returns the exit code.
 */
int cli_cmd_report(struct cli_config *cfg, char **args, size_t nargs);

/* ---- the other commands (cli_commands.c); each returns the exit code ---- */

/* `eval PLAN`: one plan's breakdown on stdout (text, or --json). */
int cli_cmd_eval(struct cli_config *cfg, char **args, size_t nargs);

/* `check FILE...`: validates each data file by its first section; prints
 * nothing on success. */
int cli_cmd_check(struct cli_config *cfg, char **files, size_t n);

/* `compare`: the best plan of each (-m, -g) pair, in a table on stdout
 * and cfg->out_dir/compare.xlsx. Rewrites cfg's model and hardware paths. */
int cli_cmd_compare(struct cli_config *cfg, char **args, size_t nargs);

/* `schema`: every kind of data file's keys as Markdown (data/README.md). */
int cli_cmd_schema(void);

/* `import trace FILE...` (cli_trace.c): profiler traces to a calibration
 * on stdout, the per-class table on stderr. */
int cli_cmd_import_trace(struct cli_config *cfg, char **args, size_t nargs);

/* `import nccl [--intra|--inter] [--collective NAME] FILE...`: nccl-tests
 * output to a calibration file's [network_*] sections on stdout; the
 * link and collective hints (cfg's import_link, import_kind) apply to
 * every FILE. */
int cli_cmd_import(struct cli_config *cfg, char **args, size_t nargs);

#endif
