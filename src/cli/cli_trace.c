/*
 * cli_trace: `roofplan import trace [-m MODEL] [-g HW] [--plan PLAN]
 * [--calibration BASE] FILE.json[.gz]...` — PyTorch profiler traces to a
 * calibration file on stdout and the per-class table on stderr
 * (trace_import.h). The base calibration is --calibration, else the
 * hardware's own (data/calibration/NAME.ini); the plan is --plan's
 * tokens over the sweep's defaults, as `eval` reads them.
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_import.h"

#define PLAN_TOKENS_MAX 32

/* Splits text (modified) at blanks into at most max tokens. */
static size_t split(char *text, char **tok, size_t max)
{
    size_t n = 0;
    char *p = text;
    while (*p && n < max) {
        while (*p == ' ' || *p == '\t')
            *p++ = '\0';
        if (!*p)
            break;
        tok[n++] = p;
        while (*p && *p != ' ' && *p != '\t')
            p++;
    }
    return n;
}

/* The plan: --plan's tokens over the sweep's defaults. Only what the
 * import reads is checked (tp, cp, ep, mbs, precision): the trace is of
 * one GPU, so the cluster's size and the global batch need not agree. */
static int read_plan(const struct cli_config *cfg,
                     const struct cli_inputs *in,
                     struct plan *p)
{
    struct plan defaults;
    struct diag d;
    char text[1024], *tok[PLAN_TOKENS_MAX];
    size_t n = 0;
    long given_dp = 0, experts = in->m.spec.routed_experts;
    diag_init(&d);
    sweep_defaults(&in->sweep, &in->m, &in->hw, &defaults);
    if (cfg->plan_text) {
        if (strlen(cfg->plan_text) >= sizeof text)
            return cli_usage_error("--plan: %s", "longer than 1023 bytes");
        snprintf(text, sizeof text, "%s", cfg->plan_text);
        n = split(text, tok, PLAN_TOKENS_MAX);
    }
    if (plan_parse(tok, n, &defaults, p, &given_dp, &d) != STATUS_OK) {
        cli_print_diag(&d);
        fprintf(stderr, "%s: try '%s --help'\n", CLI_PROG, CLI_PROG);
        return CLI_EXIT_INPUT;
    }
    if ((experts > 0 && experts % p->ep != 0) || (experts == 0 && p->ep > 1)) {
        fprintf(stderr,
                "%s: --plan: ep=%ld does not divide the %ld routed experts "
                "of %s\n",
                CLI_PROG, p->ep, experts, in->m.spec.name);
        return CLI_EXIT_INPUT;
    }
    return 0;
}

int cli_cmd_import_trace(struct cli_config *cfg, char **args, size_t nargs)
{
    struct cli_inputs in;
    struct diag d;
    struct plan p;
    struct trace_rules *rules = NULL;
    struct trace_import *imp = NULL;
    struct trace_import_summary *s = NULL;
    char path[1300], data_dir[1024], planbuf[512], cmd[700];
    const char *base_name;
    FILE *progress = !cfg->quiet && isatty(2) ? stderr : NULL;
    size_t i;
    int rc = 0;

    if (nargs == 0)
        return cli_usage_error("import trace: %s", "missing FILE");
    if (nargs > TRACE_IMPORT_FILES_MAX) {
        /* counted before any is read: a long read then a refusal helps
         * nobody */
        char many[96];
        snprintf(many, sizeof many, "%zu trace files, at most %d in one import",
                 nargs, TRACE_IMPORT_FILES_MAX);
        return cli_usage_error("import trace: %s", many);
    }
    diag_init(&d);
    if (cli_load_inputs(cfg, &in, &d) != STATUS_OK) {
        cli_print_diag(&d);
        cli_release_inputs(&in);
        return cli_exit_code(d.status, true);
    }
    rc = read_plan(cfg, &in, &p);
    if (rc)
        goto done;
    if (!in.have_cal) {
        diag_set(&d, STATUS_USAGE,
                 "import trace: %s has no calibration to complete (the "
                 "trace measures no clock, no network): give "
                 "--calibration BASE",
                 in.hw.meta.path);
        goto fail;
    }
    cli_data_directory(data_dir, sizeof data_dir);
    snprintf(path, sizeof path, "%s/kernels.ini", data_dir);
    rules = trace_rules_load(path, &d);
    imp = rules ? trace_import_new(rules) : NULL;
    s = calloc(1, sizeof *s);
    if (!rules || !imp || !s) {
        if (d.status == STATUS_OK)
            diag_set(&d, STATUS_NOMEM, "out of memory");
        goto fail;
    }
    for (i = 0; i < nargs; i++)
        if (trace_import_read(imp, args[i], progress, &d) != STATUS_OK)
            goto fail;
    if (trace_import_summarize(imp, &in.m, &in.hw, &p,
                               in.have_cal ? &in.cal : NULL, s,
                               &d) != STATUS_OK)
        goto fail;
    base_name = in.have_cal ? strrchr(in.cal.meta.path, '/') : NULL;
    base_name = base_name     ? base_name + 1
                : in.have_cal ? in.cal.meta.path
                              : "no base calibration";
    plan_format(&p, planbuf, sizeof planbuf);
    snprintf(cmd, sizeof cmd, "model %s, plan %.400s", in.m.spec.name, planbuf);
    fprintf(stderr, "%s: %s on %s\n", CLI_PROG, in.m.spec.name, planbuf);
    trace_import_table(s, stderr);
    if (trace_import_write(s, in.have_cal ? &in.cal : NULL, base_name, cmd,
                           &in.hw, stdout, &d) != STATUS_OK) {
        /* a calibration refused is bad input (2); stdout that cannot be
         * written is not: 1, as for `import nccl` and `eval` */
        cli_print_diag(&d);
        rc = cli_exit_code(d.status, false);
    }
    goto done;
fail:
    cli_print_diag(&d);
    rc = cli_exit_code(d.status, true);
done:
    free(s);
    trace_import_free(imp);
    trace_rules_free(rules);
    cli_release_inputs(&in);
    return rc ? rc : cli_flush_stdout();
}
