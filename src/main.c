/*
 * roofplan: speed-of-light planning of parallel LLM training.
 *
 * The command line (DESIGN.md §2): the options, the usage text, and the
 * dispatch to the commands (cli_report.c, cli_commands.c; what they share
 * is in cli.c). With them, the only code that prints to the terminal or
 * exits.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "comm.h"
#include "compare.h"
#include "datafile.h"
#include "diag.h"

/* Set by the Makefile: the version (defined there only). */
#ifndef ROOFPLAN_VERSION
#error "build with the Makefile: it defines ROOFPLAN_VERSION"
#endif

static const char usage_text[] =
    "usage: roofplan report [OPTIONS]          sweep the plan space; write "
    "workbook + charts\n"
    "       roofplan eval   [OPTIONS] PLAN     evaluate one plan; print its "
    "breakdown\n"
    "       roofplan check  FILE...            validate data files (a "
    "calibration\n"
    "                                          against the hardware beside "
    "it, else\n"
    "                                          the data directory's for its "
    "GPU); print\n"
    "                                          nothing on success\n"
    "       roofplan compare -m A -m B -g X -g Y   best plan per (model, "
    "hardware),\n"
    "                                          one workbook (compare.xlsx)\n"
    "       roofplan import nccl [--intra|--inter] [--collective NAME] "
    "FILE...\n"
    "                                          nccl-tests output -> a "
    "calibration file's\n"
    "                                          network curves (INI, on "
    "stdout)\n"
    "       roofplan import trace [--plan PLAN] FILE.json[.gz]...\n"
    "                                          PyTorch profiler traces -> "
    "a calibration\n"
    "                                          file (stdout), per-class "
    "table (stderr)\n"
    "       roofplan schema                    the data files' keys "
    "(Markdown)\n"
    "       roofplan --help | --version\n"
    "\n";

/* The options (a second string: C99 compilers need only take 4095
 * characters in one). */
static const char usage_options[] =
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
    "      --calibrate RUN    fit the stack's free factors to one measured "
    "run (a\n"
    "                         data/validation-style INI); print the fit and "
    "its\n"
    "                         leave-one-out errors; plans run with it\n"
    "      --set SEC.KEY=VAL  override any data-file value (repeatable)\n"
    "      --gpus N,N,...     (report) cluster sizes, each planned on its own "
    "(the\n"
    "                         sweep's [space] gpus); several: a Scale sheet "
    "and chart\n"
    "      --days D           (report) the smallest listed size whose plan "
    "finishes\n"
    "                         within D wall-clock days (range's high end, "
    "expected)\n"
    "      --budget USD       (report) with --days: also within USD; alone: "
    "the\n"
    "                         fastest listed size within USD\n"
    "      --comm-model topo|flat\n"
    "      --json             (eval) machine-readable output on stdout\n"
    "      --all-plans        (report) every plan on the Plans sheet (default: "
    "those that fit, up to the sweep's report.plans_sheet, and each family's "
    "best; plans.csv: every valid plan)\n"
    "      --no-csv           (report) skip plans.csv (by default it holds "
    "the Plans sheet's plans; with --top N the N best)\n"
    "      --no-charts        (report) skip gnuplot\n"
    "      --top N            (report) keep the N best plans (default: the "
    "Plans sheet's;\n"
    "                         with --all-plans every plan, up to Excel's row "
    "limit)\n"
    "      --threads N        (report) sweep on N threads (default: online "
    "CPUs); same output\n"
    "      --wait SECONDS     (report, compare) wait at most this long for "
    "another\n"
    "                         run writing into the same directory (default "
    "60;\n"
    "                         0: do not wait)\n"
    "      --intra, --inter   (import nccl) the link of output without a "
    "device list\n"
    "      --collective NAME  (import nccl) the collective of output that "
    "does not name it\n"
    "      --progress         (report) how far each long step has gone, "
    "with the\n"
    "                         time left, on stderr even when it is not a "
    "terminal\n"
    "                         (default: on a terminal, for steps over about "
    "a\n"
    "                         second)\n"
    "  -q, --quiet            no progress on stderr (unless --progress)\n"
    "\n"
    "PLAN is key=value pairs, as several arguments or one argument separated\n"
    "by spaces or commas: gpus tp pp ep cp zero schedule vpp precision\n"
    "recompute mbs gbs (dp is derived; giving it is checked), and sp=0|1\n"
    "(sequence parallelism), pp_first pp_last pp_split pp_layout (the\n"
    "layer split), offload (layers whose activations wait in host memory).\n"
    "Omitted keys take the sweep file's [defaults]. DeepSeek-V3's\n"
    "published plan:\n"
    "  roofplan eval gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe \\\n"
    "      precision=fp8 recompute=selective mbs=1 gbs=15360\n"
    "\n"
    "Exit status: 0 success, 1 runtime failure, 2 bad usage or bad input.\n";

/* ---- Commands and options: one row each ---- */

static int schema(struct cli_config *cfg, char **args, size_t nargs)
{
    (void)cfg, (void)args, (void)nargs;
    return cli_cmd_schema();
}

/* A command: its word and what runs it; import_options: it takes --intra,
 * --inter and --collective (import nccl). */
struct command {
    const char *name;
    int (*run)(struct cli_config *cfg, char **args, size_t nargs);
    bool import_options;
};

static const struct command commands[] = {
    {.name = "report", .run = cli_cmd_report},
    {.name = "eval", .run = cli_cmd_eval},
    {.name = "check", .run = cli_cmd_check},
    {.name = "compare", .run = cli_cmd_compare},
    {.name = "import", .run = cli_cmd_import, .import_options = true},
    {.name = "schema", .run = schema},
};
#define NCOMMANDS (sizeof commands / sizeof commands[0])

/* "report, eval, ... or schema": the commands' words. */
static void command_names(char *buf, size_t size)
{
    size_t c, used = 0;
    buf[0] = '\0';
    for (c = 0; c < NCOMMANDS && used < size; c++) {
        int n = snprintf(buf + used, size - used, "%s%s",
                         c == 0              ? ""
                         : c + 1 < NCOMMANDS ? ", "
                                             : " or ",
                         commands[c].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

struct opt_row;

/* An option that does more than store: returns -1 to go on, else an exit
 * code. arg is its argument, token the argument as typed. */
typedef int opt_fn(struct cli_config *cfg,
                   const struct opt_row *o,
                   const char *arg,
                   const char *token);

/* What an option does. */
enum opt_kind {
    OPT_TEXT, /* stores its argument in the const char * at `field` */
    OPT_FLAG, /* sets the bool at `field` */
    OPT_CALL  /* calls `call` */
};

/* One option: --name, its getopt code (its letter, where -letter is an
 * option too: `letter`), whether it takes an argument, and what it does.
 * A new option is a row (and its lines in usage_text). */
struct opt_row {
    const char *name;
    int code;
    bool letter;  /* -code as well as --name */
    bool has_arg; /* a required argument */
    enum opt_kind kind;
    size_t field; /* OPT_TEXT, OPT_FLAG: offset in struct cli_config */
    opt_fn *call; /* OPT_CALL */
};

static int opt_model(struct cli_config *cfg,
                     const struct opt_row *o,
                     const char *arg,
                     const char *token)
{
    (void)o, (void)token;
    cfg->model_path = arg;
    if (cfg->nmodels == COMPARE_PAIRS_MAX)
        return cli_usage_error("-m %s: too many models", arg);
    cfg->models[cfg->nmodels++] = arg;
    return -1;
}

static int opt_hardware(struct cli_config *cfg,
                        const struct opt_row *o,
                        const char *arg,
                        const char *token)
{
    (void)o, (void)token;
    cfg->hw_path = arg;
    if (cfg->nhws == COMPARE_PAIRS_MAX)
        return cli_usage_error("-g %s: too many clusters", arg);
    cfg->hws[cfg->nhws++] = arg;
    return -1;
}

static int opt_set(struct cli_config *cfg,
                   const struct opt_row *o,
                   const char *arg,
                   const char *token)
{
    struct diag d;
    (void)o, (void)token;
    diag_init(&d);
    if (cfg->nsets == CLI_SETS_MAX)
        return cli_usage_error("--set %s: too many overrides", arg);
    if (datafile_parse_set(arg, &cfg->sets[cfg->nsets], &d) != STATUS_OK) {
        cli_print_diag(&d);
        fprintf(stderr, "%s: try '%s --help'\n", CLI_PROG, CLI_PROG);
        return CLI_EXIT_INPUT;
    }
    cfg->nsets++;
    return -1;
}

static int opt_comm(struct cli_config *cfg,
                    const struct opt_row *o,
                    const char *arg,
                    const char *token)
{
    (void)o, (void)token;
    if (strcmp(arg, "topo") == 0)
        cfg->comm = COMM_TOPO;
    else if (strcmp(arg, "flat") == 0)
        cfg->comm = COMM_FLAT;
    else
        return cli_usage_error("--comm-model %s: expected topo or flat", arg);
    return -1;
}

/* --gpus 1024,2048: the sweep's [space] gpus as an override (--set
 * space.gpus="1024 2048"), each entry a positive integer. */
static int opt_gpus(struct cli_config *cfg,
                    const struct opt_row *o,
                    const char *arg,
                    const char *token)
{
    char set[DATAFILE_TEXT_MAX], *p;
    struct diag d;
    long n;
    (void)o, (void)token;
    if (cfg->nsets == CLI_SETS_MAX)
        return cli_usage_error("--gpus %s: too many overrides", arg);
    if ((size_t)snprintf(set, sizeof set, "space.gpus=%s", arg) >= sizeof set)
        return cli_usage_error("--gpus %s: too long", arg);
    for (p = set + strlen("space.gpus="); *p; p++)
        if (*p == ',')
            *p = ' ';
    for (p = set + strlen("space.gpus="); *p;) {
        char *end;
        while (*p == ' ')
            p++;
        if (!*p)
            break;
        errno = 0;
        n = strtol(p, &end, 10);
        if (end == p || errno || n < 1 || (*end && *end != ' '))
            return cli_usage_error(
                "--gpus %s: expected cluster sizes, positive integers "
                "separated by commas",
                arg);
        p = end;
    }
    diag_init(&d);
    if (datafile_parse_set(set, &cfg->sets[cfg->nsets], &d) != STATUS_OK) {
        cli_print_diag(&d);
        return CLI_EXIT_INPUT;
    }
    cfg->nsets++;
    return -1;
}

/* --days D, --budget USD: a number above 0. */
static int opt_target(struct cli_config *cfg,
                      const struct opt_row *o,
                      const char *arg,
                      const char *token)
{
    double v;
    (void)token;
    if (o->code == 'D' && (!datafile_parse_double(arg, &v) || !(v > 0)))
        return cli_usage_error("--days %s: expected days, a number above 0",
                               arg);
    if (o->code == 'B' && (!datafile_parse_double(arg, &v) || !(v > 0)))
        return cli_usage_error(
            "--budget %s: expected US dollars, a number above 0", arg);
    if (o->code == 'D')
        cfg->days = v;
    else
        cfg->budget_usd = v;
    return -1;
}

/* --csv: plans.csv is always written; kept for scripts. */
static int opt_none(struct cli_config *cfg,
                    const struct opt_row *o,
                    const char *arg,
                    const char *token)
{
    (void)cfg, (void)o, (void)arg, (void)token;
    return -1;
}

static int opt_top(struct cli_config *cfg,
                   const struct opt_row *o,
                   const char *arg,
                   const char *token)
{
    long n;
    (void)o, (void)token;
    if (!datafile_parse_long(arg, &n) || n < 1)
        return cli_usage_error("--top %s: expected a positive integer", arg);
    cfg->top = (size_t)n;
    return -1;
}

static int opt_threads(struct cli_config *cfg,
                       const struct opt_row *o,
                       const char *arg,
                       const char *token)
{
    long n;
    (void)o, (void)token;
    if (!datafile_parse_long(arg, &n) || n < 1 || n > 1024)
        return cli_usage_error("--threads %s: expected an integer in 1..1024",
                               arg);
    cfg->threads = (size_t)n;
    return -1;
}

static int opt_wait(struct cli_config *cfg,
                    const struct opt_row *o,
                    const char *arg,
                    const char *token)
{
    double v;
    (void)o, (void)token;
    if (!datafile_parse_double(arg, &v) || !(v >= 0) || v > OUT_DIR_WAIT_MAX_S)
        return cli_usage_error("--wait %s: expected seconds in 0..86400", arg);
    cfg->wait_s = v;
    return -1;
}

/* --intra, --inter: the link of nccl-tests output without a device list. */
static int opt_link(struct cli_config *cfg,
                    const struct opt_row *o,
                    const char *arg,
                    const char *token)
{
    enum nccl_import_link link =
        o->code == 'I' ? NCCL_IMPORT_LINK_INTRA : NCCL_IMPORT_LINK_INTER;
    (void)arg;
    if (cfg->import_link != NCCL_IMPORT_LINK_AUTO && cfg->import_link != link)
        return cli_usage_error("%s: give --intra or --inter, not both", token);
    cfg->import_link = link;
    return -1;
}

static int opt_collective(struct cli_config *cfg,
                          const struct opt_row *o,
                          const char *arg,
                          const char *token)
{
    (void)o, (void)token;
    if (cfg->import_kind && strcmp(cfg->import_kind, arg) != 0)
        return cli_usage_error("--collective %s: given twice", arg);
    cfg->import_kind = arg;
    return -1;
}

static int opt_help(struct cli_config *cfg,
                    const struct opt_row *o,
                    const char *arg,
                    const char *token)
{
    (void)cfg, (void)o, (void)arg, (void)token;
    fputs(usage_text, stdout);
    fputs(usage_options, stdout);
    return cli_flush_stdout();
}

static int opt_version(struct cli_config *cfg,
                       const struct opt_row *o,
                       const char *arg,
                       const char *token)
{
    (void)cfg, (void)o, (void)arg, (void)token;
    printf("%s %s\n", CLI_PROG, ROOFPLAN_VERSION);
    return cli_flush_stdout();
}

#define TEXT(f) .kind = OPT_TEXT, .field = offsetof(struct cli_config, f)
#define FLAG(f) .kind = OPT_FLAG, .field = offsetof(struct cli_config, f)
#define CALL(f) .kind = OPT_CALL, .call = f

/* clang-format off */
static const struct opt_row opts[] = {
    {.name = "model", .code = 'm', .letter = true, .has_arg = true, CALL(opt_model)},
    {.name = "hardware", .code = 'g', .letter = true, .has_arg = true, CALL(opt_hardware)},
    {.name = "sweep", .code = 's', .letter = true, .has_arg = true, TEXT(sweep_path)},
    {.name = "training", .code = 't', .letter = true, .has_arg = true, TEXT(training_path)},
    {.name = "out", .code = 'o', .letter = true, .has_arg = true, TEXT(out_dir)},
    {.name = "set", .code = 'S', .has_arg = true, CALL(opt_set)},
    {.name = "gpus", .code = 'G', .has_arg = true, CALL(opt_gpus)},
    {.name = "days", .code = 'D', .has_arg = true, CALL(opt_target)},
    {.name = "budget", .code = 'B', .has_arg = true, CALL(opt_target)},
    {.name = "comm-model", .code = 'C', .has_arg = true, CALL(opt_comm)},
    {.name = "json", .code = 'j', FLAG(json)},
    {.name = "csv", .code = 'c', CALL(opt_none)},
    {.name = "all-plans", .code = 'A', FLAG(all_plans)},
    {.name = "no-csv", .code = 'X', FLAG(no_csv)},
    {.name = "no-charts", .code = 'n', FLAG(no_charts)},
    {.name = "quiet", .code = 'q', .letter = true, FLAG(quiet)},
    {.name = "progress", .code = 'R', FLAG(progress)},
    {.name = "help", .code = 'h', .letter = true, CALL(opt_help)},
    {.name = "version", .code = 'V', CALL(opt_version)},
    {.name = "top", .code = 'T', .has_arg = true, CALL(opt_top)},
    {.name = "calibration", .code = 'K', .has_arg = true, TEXT(calibration_path)},
    {.name = "stack", .code = 'k', .has_arg = true, TEXT(stack_path)},
    {.name = "calibrate", .code = 'F', .has_arg = true, TEXT(calibrate_path)},
    {.name = "threads", .code = 'P', .has_arg = true, CALL(opt_threads)},
    {.name = "wait", .code = 'W', .has_arg = true, CALL(opt_wait)},
    {.name = "plan", .code = 'L', .has_arg = true, TEXT(plan_text)},
    {.name = "intra", .code = 'I', CALL(opt_link)},
    {.name = "inter", .code = 'E', CALL(opt_link)},
    {.name = "collective", .code = 'U', .has_arg = true, CALL(opt_collective)},
};
/* clang-format on */
#undef TEXT
#undef FLAG
#undef CALL
#define NOPTS (sizeof opts / sizeof opts[0])

/* getopt_long's tables from the rows: the long options (NULL-ended) and
 * the short ones ("m:g:..."). */
static void getopt_tables(struct option *longs, char *shorts)
{
    size_t i, n = 0;
    for (i = 0; i < NOPTS; i++) {
        longs[i] = (struct option){
            .name = opts[i].name,
            .has_arg = opts[i].has_arg ? required_argument : no_argument,
            .val = opts[i].code};
        if (opts[i].letter) {
            shorts[n++] = (char)opts[i].code;
            if (opts[i].has_arg)
                shorts[n++] = ':';
        }
    }
    longs[NOPTS] = (struct option){0};
    shorts[n] = '\0';
}

/* Applies one parsed option (getopt's code, '?' for one it does not
 * know); returns -1 to go on, else an exit code. */
static int apply_option(struct cli_config *cfg,
                        int code,
                        const char *arg,
                        const char *token)
{
    size_t i;
    for (i = 0; i < NOPTS; i++) {
        const struct opt_row *o = &opts[i];
        char *at = (char *)cfg + o->field;
        if (o->code != code)
            continue;
        if (o->kind == OPT_TEXT)
            *(const char **)(void *)at = arg;
        else if (o->kind == OPT_FLAG)
            *(bool *)(void *)at = true;
        else
            return o->call(cfg, o, arg, token);
        return -1;
    }
    return cli_usage_error("unknown option or missing argument: '%s'", token);
}

int main(int argc, char **argv)
{
    struct option longs[NOPTS + 1];
    char shorts[2 * NOPTS + 1], names[128], unknown[160];
    size_t c;
    struct cli_config cfg;
    const char *command;
    char **args;
    size_t nargs;
    int opt;

    /* Over a file-size limit (ulimit -f) a write must fail with EFBIG, to
     * be reported and the earlier report kept, not kill the process. */
    signal(SIGXFSZ, SIG_IGN);
    /* A reader that stops reading (| head) must not kill a run half-way
     * through its report: a write to the pipe fails with EPIPE instead,
     * and the summary on stdout ends there quietly (cli_flush_stdout). */
    signal(SIGPIPE, SIG_IGN);
    memset(&cfg, 0, sizeof cfg);
    cfg.out_dir = "out";
    cfg.wait_s = OUT_DIR_WAIT_DEFAULT_S;
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
    getopt_tables(longs, shorts);
    while ((opt = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
        int rc = apply_option(&cfg, opt, optarg, argv[optind - 1]);
        if (rc >= 0)
            return rc;
    }
    if (optind >= argc)
        return cli_usage_error("%s", "missing command (report, eval or check)");
    command = argv[optind];
    args = argv + optind + 1;
    nargs = (size_t)(argc - optind - 1);
    for (c = 0; c < NCOMMANDS && strcmp(command, commands[c].name) != 0; c++)
        ;
    if ((c == NCOMMANDS || !commands[c].import_options) &&
        (cfg.import_link != NCCL_IMPORT_LINK_AUTO || cfg.import_kind))
        return cli_usage_error("%s: --intra, --inter and --collective are "
                               "options of 'import nccl'",
                               command);
    if (c < NCOMMANDS)
        return commands[c].run(&cfg, args, nargs);
    command_names(names, sizeof names);
    /* the words are the rows' (no '%'): the command is the one argument */
    snprintf(unknown, sizeof unknown, "unknown command '%%s' (%s)", names);
    return cli_usage_error(unknown, command);
}
