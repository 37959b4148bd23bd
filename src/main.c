/*
 * roofplan: speed-of-light planning of parallel LLM training.
 *
 * The command line (DESIGN.md §2): the options, the usage text, and the
 * dispatch to the commands (cli_report.c, cli_commands.c; what they share
 * is in cli.c). With them, the only code that prints to the terminal or
 * exits.
 */
#include <getopt.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
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
    "      --calibrate RUN    fit the stack's free factors to one measured "
    "run (a\n"
    "                         data/validation-style INI); print the fit and "
    "its\n"
    "                         leave-one-out errors; plans run with it\n"
    "      --set SEC.KEY=VAL  override any data-file value (repeatable)\n"
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

/* Applies one parsed option; returns -1 to go on, else an exit code. */
static int apply_option(struct cli_config *cfg,
                        int opt,
                        const char *arg,
                        const char *token)
{
    struct diag d;
    switch (opt) {
    case 'm':
        cfg->model_path = arg;
        if (cfg->nmodels == COMPARE_PAIRS_MAX)
            return cli_usage_error("-m %s: too many models", arg);
        cfg->models[cfg->nmodels++] = arg;
        return -1;
    case 'g':
        cfg->hw_path = arg;
        if (cfg->nhws == COMPARE_PAIRS_MAX)
            return cli_usage_error("-g %s: too many clusters", arg);
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
        if (cfg->nsets == CLI_SETS_MAX)
            return cli_usage_error("--set %s: too many overrides", arg);
        if (datafile_parse_set(arg, &cfg->sets[cfg->nsets], &d) != STATUS_OK) {
            cli_print_diag(&d);
            fprintf(stderr, "%s: try '%s --help'\n", CLI_PROG, CLI_PROG);
            return CLI_EXIT_INPUT;
        }
        cfg->nsets++;
        return -1;
    case 'C':
        if (strcmp(arg, "topo") == 0)
            cfg->comm = COMM_TOPO;
        else if (strcmp(arg, "flat") == 0)
            cfg->comm = COMM_FLAT;
        else
            return cli_usage_error("--comm-model %s: expected topo or flat",
                                   arg);
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
    case 'F':
        cfg->calibrate_path = arg;
        return -1;
    case 'L':
        cfg->plan_text = arg;
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
    case 'R':
        cfg->progress = true;
        return -1;
    case 'T': {
        long n;
        if (!datafile_parse_long(arg, &n) || n < 1)
            return cli_usage_error("--top %s: expected a positive integer",
                                   arg);
        cfg->top = (size_t)n;
        return -1;
    }
    case 'P': {
        long n;
        if (!datafile_parse_long(arg, &n) || n < 1 || n > 1024)
            return cli_usage_error(
                "--threads %s: expected an integer in 1..1024", arg);
        cfg->threads = (size_t)n;
        return -1;
    }
    case 'W': {
        double v;
        if (!datafile_parse_double(arg, &v) || !(v >= 0) ||
            v > OUT_DIR_WAIT_MAX_S)
            return cli_usage_error("--wait %s: expected seconds in 0..86400",
                                   arg);
        cfg->wait_s = v;
        return -1;
    }
    case 'I':
    case 'E': {
        enum nccl_import_link link =
            opt == 'I' ? NCCL_IMPORT_LINK_INTRA : NCCL_IMPORT_LINK_INTER;
        if (cfg->import_link != NCCL_IMPORT_LINK_AUTO &&
            cfg->import_link != link)
            return cli_usage_error("%s: give --intra or --inter, not both",
                                   token);
        cfg->import_link = link;
        return -1;
    }
    case 'U':
        if (cfg->import_kind && strcmp(cfg->import_kind, arg) != 0)
            return cli_usage_error("--collective %s: given twice", arg);
        cfg->import_kind = arg;
        return -1;
    case 'h':
        fputs(usage_text, stdout);
        return cli_flush_stdout();
    case 'V':
        printf("%s %s\n", CLI_PROG, ROOFPLAN_VERSION);
        return cli_flush_stdout();
    default:
        return cli_usage_error("unknown option or missing argument: '%s'",
                               token);
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
        {"progress", no_argument, NULL, 'R'},
        {"help", no_argument, NULL, 'h'},
        {"version", no_argument, NULL, 'V'},
        {"top", required_argument, NULL, 'T'},
        {"calibration", required_argument, NULL, 'K'},
        {"stack", required_argument, NULL, 'k'},
        {"calibrate", required_argument, NULL, 'F'},
        {"threads", required_argument, NULL, 'P'},
        {"wait", required_argument, NULL, 'W'},
        {"plan", required_argument, NULL, 'L'},
        {"intra", no_argument, NULL, 'I'},
        {"inter", no_argument, NULL, 'E'},
        {"collective", required_argument, NULL, 'U'},
        {NULL, 0, NULL, 0}};
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
    while ((opt = getopt_long(argc, argv, "m:g:s:t:o:qh", options, NULL)) !=
           -1) {
        int rc = apply_option(&cfg, opt, optarg, argv[optind - 1]);
        if (rc >= 0)
            return rc;
    }
    if (optind >= argc)
        return cli_usage_error("%s", "missing command (report, eval or check)");
    command = argv[optind];
    args = argv + optind + 1;
    nargs = (size_t)(argc - optind - 1);
    if (strcmp(command, "import") == 0)
        return cli_cmd_import(&cfg, args, nargs);
    if (cfg.import_link != NCCL_IMPORT_LINK_AUTO || cfg.import_kind)
        return cli_usage_error("%s: --intra, --inter and --collective are "
                               "options of 'import nccl'",
                               command);
    if (strcmp(command, "eval") == 0)
        return cli_cmd_eval(&cfg, args, nargs);
    if (strcmp(command, "check") == 0)
        return cli_cmd_check(&cfg, args, nargs);
    if (strcmp(command, "schema") == 0)
        return cli_cmd_schema();
    if (strcmp(command, "report") == 0)
        return cli_cmd_report(&cfg, args, nargs);
    if (strcmp(command, "compare") == 0)
        return cli_cmd_compare(&cfg, args, nargs);
    return cli_usage_error(
        "unknown command '%s' (report, eval, check, compare, import or "
        "schema)",
        command);
}
