/*
 * cli: the part of the command line every command shares: messages and
 * exit codes, where the data files are, the defaults file, and loading
 * the inputs. Not the commands themselves (cli_report.c, cli_commands.c)
 * nor the options (main.c).
 */
#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "fit.h"

void cli_print_diag(const struct diag *d)
{
    const char *line = d->msg;
    while (*line) {
        const char *nl = strchr(line, '\n');
        int len = nl ? (int)(nl - line) : (int)strlen(line);
        fprintf(stderr, "%s: %.*s\n", CLI_PROG, len, line);
        if (!nl)
            break;
        line = nl + 1;
    }
}

int cli_exit_code(enum status st, enum cli_io io)
{
    switch (st) {
    case STATUS_OK:
        return 0;
    case STATUS_USAGE:
    case STATUS_PARSE:
    case STATUS_RANGE:
        return CLI_EXIT_INPUT;
    case STATUS_IO:
        return io == CLI_IO_INPUT ? CLI_EXIT_INPUT : CLI_EXIT_RUNTIME;
    default:
        return CLI_EXIT_RUNTIME;
    }
}

/* 0 when everything printed reached stdout, else a message and 1. */
/* Nobody reads stdout any more: a pipe (or socket) whose reader has gone
 * (| head, | true). With SIGPIPE ignored (main), writes there fail with
 * EPIPE; the error flag may be all that is left of it by now. */
static bool stdout_reader_gone(int err)
{
    struct stat st;
    struct pollfd p;
    if (err == EPIPE)
        return true;
    if (fstat(STDOUT_FILENO, &st) != 0 ||
        !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
        return false;
    p.fd = STDOUT_FILENO;
    p.events = POLLOUT;
    p.revents = 0;
    return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

int cli_flush_stdout(void)
{
    int err;
    errno = 0;
    if (fflush(stdout) == 0 && !ferror(stdout))
        return 0;
    err = errno;
    /* the reader stopped reading: a normal end of what we print */
    if (stdout_reader_gone(err))
        return 0;
    fprintf(stderr, "%s: stdout: %s\n", CLI_PROG, strerror(err ? err : EIO));
    return CLI_EXIT_RUNTIME;
}

int cli_usage_error(const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", CLI_PROG);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s: try '%s --help'\n", CLI_PROG, CLI_PROG);
    return CLI_EXIT_INPUT;
}

/*
 * Where roofplan's own files are (sub is "data" or "templates"): ./sub
 * when it holds `marker` (running from the source tree), else, beside the
 * executable, ../share/roofplan/sub (after `make install`), ../sub (the
 * release build in build/) or ../../sub (the sanitizer build and the
 * tests in build/debug/). No path is built into the binary: a checkout
 * moved or copied elsewhere finds its own files. When none holds the
 * marker, "sub" as it is, and opening it names what is missing.
 */
/* a, b, c and d one after the other, in memory of the caller's (free);
 * NULL when out of memory. */
static char *concat4(const char *a, const char *b, const char *c, const char *d)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + strlen(d) + 1;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s%s%s%s", a, b, c, d);
    return s;
}

static void
own_directory(const char *sub, const char *marker, char *buf, size_t size)
{
    static const char *const beside[] = {"../share/roofplan/", "../", "../../"};
    char *exe, *slash, *probe;
    size_t i;
    snprintf(buf, size, "%s", sub);
    probe = concat4(sub, "/", marker, "");
    if (probe && access(probe, R_OK) == 0) {
        free(probe);
        return;
    }
    free(probe);
    exe = realpath("/proc/self/exe", NULL);
    slash = exe ? strrchr(exe, '/') : NULL;
    if (slash) {
        *slash = '\0';
        for (i = 0; i < sizeof beside / sizeof beside[0]; i++) {
            char *dir = concat4(exe, "/", beside[i], sub);
            probe = dir ? concat4(dir, "/", marker, "") : NULL;
            if (probe && access(probe, R_OK) == 0) {
                snprintf(buf, size, "%s", dir);
                i = sizeof beside / sizeof beside[0] - 1;
            }
            free(probe);
            free(dir);
        }
    }
    free(exe);
}

void cli_data_directory(char *buf, size_t size)
{
    own_directory("data", "defaults.ini", buf, size);
}

void cli_template_directory(char *buf, size_t size)
{
    own_directory("templates", "memory.gp.in", buf, size);
}

#define DOFF(member) offsetof(struct cli_defaults, member)
/* clang-format off */
static const struct datafile_field default_fields[] = {
    {.section = "inputs", .key = "model", .type = DATAFILE_STRING, .offset = DOFF(model), .size = 256, .required = true, .help = "model file read when -m is not given"},
    {.section = "inputs", .key = "hardware", .type = DATAFILE_STRING, .offset = DOFF(hardware), .size = 256, .required = true, .help = "hardware file read when -g is not given"},
    {.section = "inputs", .key = "sweep", .type = DATAFILE_STRING, .offset = DOFF(sweep), .size = 256, .required = true, .help = "sweep file read when -s is not given"},
    {.section = "inputs", .key = "training", .type = DATAFILE_STRING, .offset = DOFF(training), .size = 256, .required = true, .help = "training recipe read when -t is not given (what a config.json does not say)"},
    {.section = "inputs", .key = "stack", .type = DATAFILE_STRING, .offset = DOFF(stack), .size = 256, .required = true, .help = "training framework (what it overlaps) read when --stack is not given, for the expected step"},
};
/* clang-format on */
static const struct datafile_schema defaults_schema = {
    .kind = "defaults",
    .fields = default_fields,
    .n = sizeof default_fields / sizeof default_fields[0]};

const struct datafile_schema *cli_defaults_schema(void)
{
    return &defaults_schema;
}

/* Reads the defaults file at path into *def, its paths resolved against
 * data_dir. */
enum status cli_read_defaults_file(const char *path,
                                   const char *data_dir,
                                   struct cli_defaults *def,
                                   struct diag *d)
{
    struct cli_defaults rel;
    memset(&rel, 0, sizeof rel);
    if (datafile_load(path, &defaults_schema, &rel, NULL, NULL, 0, d) !=
        STATUS_OK)
        return d->status;
    snprintf(def->model, sizeof def->model, "%s/%.*s", data_dir,
             diag_utf8_prec(rel.model, 200), rel.model);
    snprintf(def->hardware, sizeof def->hardware, "%s/%.*s", data_dir,
             diag_utf8_prec(rel.hardware, 200), rel.hardware);
    snprintf(def->sweep, sizeof def->sweep, "%s/%.*s", data_dir,
             diag_utf8_prec(rel.sweep, 200), rel.sweep);
    snprintf(def->training, sizeof def->training, "%s/%.*s", data_dir,
             diag_utf8_prec(rel.training, 200), rel.training);
    snprintf(def->stack, sizeof def->stack, "%s/%.*s", data_dir,
             diag_utf8_prec(rel.stack, 200), rel.stack);
    return STATUS_OK;
}

/* Reads data_dir/defaults.ini into *def (paths resolved). */
static enum status
read_defaults(const char *data_dir, struct cli_defaults *def, struct diag *d)
{
    char path[1100];
    snprintf(path, sizeof path, "%s/defaults.ini", data_dir);
    return cli_read_defaults_file(path, data_dir, def, d);
}

void cli_release_inputs(struct cli_inputs *in)
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
static enum status check_sets_used(struct cli_config *cfg, struct diag *d)
{
    size_t i;
    for (i = 0; i < cfg->nsets; i++)
        if (!cfg->sets[i].used)
            diag_add(d, STATUS_USAGE,
                     "--set %s: unknown section [%s] (model: model attention "
                     "ffn moe mtp training fp8; hardware: gpu cluster; sweep: "
                     "space defaults; stack: stack; calibration: its own)",
                     cfg->sets[i].arg, cfg->sets[i].section);
    diag_finish(d);
    return d->status;
}

/* The training recipe: -t FILE, else defaults.ini's (a config.json model
 * needs one; an INI model file does not read it). */
const char *
cli_training_path(const struct cli_config *cfg, char *buf, size_t size)
{
    char data_dir[1024];
    struct cli_defaults def;
    struct diag d;
    if (cfg->training_path)
        return cfg->training_path;
    diag_init(&d);
    cli_data_directory(data_dir, sizeof data_dir);
    if (read_defaults(data_dir, &def, &d) == STATUS_OK)
        snprintf(buf, size, "%s", def.training);
    else
        snprintf(buf, size, "%s/training/default.ini", data_dir);
    return buf;
}

/*
 * What the expected step reads: the cluster's calibration (--calibration,
 * else data/calibration/ by the hardware file's name; none is no error:
 * the report then has the speed of light only), refused when it is for
 * another GPU or a rate is above the hardware's peaks (with compare's
 * several clusters, --calibration is for those whose GPU it names, the
 * others take their own); and the training stack (--stack, else
 * defaults.ini's).
 */
static void load_expected_inputs(struct cli_config *cfg,
                                 struct cli_inputs *in,
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
        if (in->have_cal && cp == cfg->calibration_path &&
            cfg->calibration_matching_only &&
            !calibration_for_gpu(&in->cal, &in->hw)) {
            /* compare: another cluster's calibration; this one's own */
            calibration_release(&in->cal);
            cp = calibration_find(in->hw.meta.path, data_dir, cal, sizeof cal)
                     ? cal
                     : NULL;
            in->have_cal = cp && calibration_load(cp, &in->cal, cfg->sets,
                                                  cfg->nsets, d) == STATUS_OK;
        } else if (in->have_cal && cp == cfg->calibration_path) {
            cfg->calibration_applied++;
        }
        if (in->have_cal &&
            calibration_check_hardware(&in->cal, &in->hw, d) != STATUS_OK) {
            calibration_release(&in->cal);
            in->have_cal = false;
        }
        if (in->have_cal)
            in->hw.cal = &in->cal;
    }
    if (stp && stp[0])
        in->have_stack =
            stack_load(stp, &in->stack, cfg->sets, cfg->nsets, d) == STATUS_OK;
    if (in->have_stack)
        in->hw.stack = &in->stack;
}

/*
 * --calibrate RUN.ini: the stack's free factors fitted to the run (fit.h),
 * the fit and its leave-one-out table printed (on stderr beside --json),
 * and the fitted value given to the report's stack.
 */
static void calibrate(const struct cli_config *cfg,
                      struct cli_inputs *in,
                      const char *data_dir,
                      const char *recipe,
                      struct diag *d)
{
    struct fit_result *fr = calloc(1, sizeof *fr);
    if (!fr) {
        diag_set(d, STATUS_NOMEM, "out of memory");
        return;
    }
    if (fit_calibrate(cfg->calibrate_path, data_dir, recipe, cfg->comm, &in->m,
                      &in->hw, fr, d) == STATUS_OK &&
        (!in->have_stack || fit_apply(fr, &in->stack, d) == STATUS_OK))
        fit_write_text(fr, in->have_stack ? &in->stack : NULL,
                       cfg->json ? stderr : stdout);
    fit_result_release(fr);
    free(fr);
}

enum status
cli_load_inputs(struct cli_config *cfg, struct cli_inputs *in, struct diag *d)
{
    char data_dir[1024];
    struct cli_defaults def;
    const char *mp, *hp, *sp, *tp;
    struct diag d2, d3;
    diag_init(&d2);
    diag_init(&d3);
    memset(in, 0, sizeof *in);
    memset(&def, 0, sizeof def);
    cli_data_directory(data_dir, sizeof data_dir);
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
    /* The plans' memory keeps the sweep's headroom free (memory_view) */
    if (in->have_hw && in->have_sweep)
        in->hw.headroom_pct = in->sweep.spec.r_headroom_pct;
    /* Report the problems of all three files, not only the first. */
    if (d2.status != STATUS_OK)
        diag_add(d, d2.status, "%s", d2.msg);
    if (d3.status != STATUS_OK)
        diag_add(d, d3.status, "%s", d3.msg);
    if (d->status == STATUS_OK)
        load_expected_inputs(cfg, in, data_dir, def.stack, d);
    /* the sweep's `framework` split is the stack's; without a stack the
     * word tries nothing, but a sweep left without a split (or a default
     * that is only that word) cannot run */
    if (d->status == STATUS_OK && sweep_names_framework_split(&in->sweep)) {
        sweep_use_framework_split(
            &in->sweep, in->have_stack ? in->stack.spec.pp_split : -1);
        if (in->sweep.spec.pp_split.n == 0 ||
            sweep_names_framework_split(&in->sweep)) {
            /* the list's line (the [defaults] key's when only it names
             * the word), or the --set that gave it */
            long i = datafile_field_index(sweep_schema(), "space", "pp_split");
            char where[1200];
            if (i >= 0)
                datafile_meta_where(&in->sweep.meta, (size_t)i, where,
                                    sizeof where);
            else
                diag_snprintf(where, sizeof where, "%s: space.pp_split", sp);
            diag_set(d, STATUS_USAGE,
                     "%s: 'framework' is the stack file's split, and no stack "
                     "file is given (--stack, or data/defaults.ini's stack)",
                     where);
        }
    }
    if (d->status == STATUS_OK && cfg->calibrate_path)
        calibrate(cfg, in, data_dir, tp, d);
    if (d->status == STATUS_OK)
        check_sets_used(cfg, d);
    return d->status;
}

/* Latest SOURCE_DATE_EPOCH accepted: 9999-12-31T23:59:59Z (the
 * workbook's dates have four-digit years). */
#define EPOCH_MAX 253402300799L

/* The report's time stamp: SOURCE_DATE_EPOCH when set (reproducible
 * builds), else now. False, with a message, when it is not a whole
 * number of seconds in 0 .. EPOCH_MAX. */
bool cli_generation_time(int64_t *out, struct diag *d)
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
                 "0..%ld (year 9999), got \"%.*s\"",
                 EPOCH_MAX, diag_utf8_prec(e, 40), e);
        return false;
    }
    *out = (int64_t)v;
    return true;
}
