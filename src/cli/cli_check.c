/*
 * cli_check: the `check` command: each file given validated as what its
 * first section says it is (the kinds of data file, one row each; a
 * config.json as a model), a calibration also against the hardware files
 * given or the data directory's for its GPU, a validation run with its
 * plan on its model and hardware. Prints nothing on success.
 */
#include "cli.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "hf_config.h"
#include "plan.h"
#include "trace_classify.h"
#include "validate.h"
#include "validation.h"

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
        if (validate_plan(run, &in, &p, &why) != STATUS_OK)
            diag_set(d, STATUS_RANGE, "%s: run.plan: %s", path, why.msg);
        validation_inputs_release(&in);
    }
    free(run);
}

/* Whether path is a hardware file that loads (into hw, to release). */
static bool load_hardware_file(struct cli_config *cfg,
                               const char *path,
                               struct hardware *hw)
{
    struct diag d;
    char section[64];
    diag_init(&d);
    if (hf_config_is_json(path) ||
        datafile_first_section(path, section, sizeof section, &d) !=
            STATUS_OK ||
        (strcmp(section, "gpu") != 0 && strcmp(section, "cluster") != 0))
        return false;
    /* a hardware file that does not load is reported on its own turn */
    return hardware_load(path, hw, cfg->sets, cfg->nsets, &d) == STATUS_OK;
}

/* The calibration checked against one hardware file: its peaks, then
 * the rates its speed of light takes. */
static void check_against(const struct calibration *cal,
                          const struct hardware *hw,
                          struct diag *d)
{
    if (calibration_check_hardware(cal, hw, d) == STATUS_OK)
        calibration_check_floor(cal, hw, d);
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A calibration given alone: checked against each hardware file of the
 * data directory for its GPU (calibration.hardware_gpu is its gpu.name),
 * in name order, as `eval` and `report` would check it with that file;
 * a GPU none of them has is not checked. */
static void check_against_shipped(struct cli_config *cfg,
                                  const struct calibration *cal,
                                  struct diag *d)
{
    char data[1024], dir[1100], path[1400], *names[64];
    struct hardware hw;
    struct dirent *e;
    size_t n = 0, i;
    DIR *dd;
    cli_data_directory(data, sizeof data);
    snprintf(dir, sizeof dir, "%s/hardware", data);
    dd = opendir(dir);
    if (!dd)
        return;
    while ((e = readdir(dd)) != NULL && n < sizeof names / sizeof *names) {
        size_t len = strlen(e->d_name);
        if (len > 4 && e->d_name[0] != '.' &&
            strcmp(e->d_name + len - 4, ".ini") == 0) {
            names[n] = strdup(e->d_name);
            if (names[n])
                n++;
        }
    }
    closedir(dd);
    qsort(names, n, sizeof *names, compare_names);
    for (i = 0; i < n; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        if (load_hardware_file(cfg, path, &hw)) {
            if (calibration_for_gpu(cal, &hw))
                check_against(cal, &hw, d);
            hardware_release(&hw);
        }
        free(names[i]);
    }
}

/*
 * check FILE...: a calibration given beside hardware files is checked
 * against each of them that is for its GPU (no rate above its peaks, nor
 * above the rates its speed of light takes: calibration_check_floor); when
 * none is, it is refused as a calibration for another GPU (with one
 * hardware file, calibration_check_hardware says which GPU that is).
 * Given without hardware files, against the data directory's for its GPU
 * (check_against_shipped): what `eval` would refuse, `check` refuses.
 */
static void check_calibration_hardware(struct cli_config *cfg,
                                       char **files,
                                       size_t n,
                                       const struct calibration *cal,
                                       struct diag *d)
{
    struct hardware hw;
    size_t j, nhw = 0, matched = 0;
    char where[600];
    for (j = 0; j < n; j++) {
        if (!load_hardware_file(cfg, files[j], &hw))
            continue;
        nhw++;
        matched += calibration_for_gpu(cal, &hw);
        hardware_release(&hw);
    }
    if (nhw == 0) {
        check_against_shipped(cfg, cal, d);
        return;
    }
    if (matched == 0 && nhw > 1) {
        datafile_meta_where(&cal->meta,
                            (size_t)datafile_field_index(calibration_schema(),
                                                         "calibration",
                                                         "hardware_gpu"),
                            where, sizeof where);
        diag_add(d, STATUS_RANGE,
                 "%s: \"%s\" is the GPU of none "
                 "of the %zu hardware files given",
                 where, cal->spec.hardware_gpu, nhw);
        return;
    }
    for (j = 0; j < n; j++) {
        if (!load_hardware_file(cfg, files[j], &hw))
            continue;
        if (nhw == 1 || calibration_for_gpu(cal, &hw))
            check_against(cal, &hw, d);
        hardware_release(&hw);
    }
}

/* What `check` knows of the file it checks. */
struct check_args {
    struct cli_config *cfg;
    char **files; /* every file given: a calibration is checked against
                     the hardware files among them */
    size_t n;
    const char *path;     /* the file checked */
    const char *training; /* the training recipe a config.json takes */
};

static void check_model(const struct check_args *a, struct diag *d)
{
    struct model m;
    if (model_load(a->path, &m, a->cfg->sets, a->cfg->nsets, d) == STATUS_OK)
        model_release(&m);
}

static void check_training(const struct check_args *a, struct diag *d)
{
    model_check_training(a->path, a->cfg->sets, a->cfg->nsets, d);
}

static void check_hardware(const struct check_args *a, struct diag *d)
{
    struct hardware h;
    if (hardware_load(a->path, &h, a->cfg->sets, a->cfg->nsets, d) == STATUS_OK)
        hardware_release(&h);
}

static void check_sweep(const struct check_args *a, struct diag *d)
{
    struct sweep_file s;
    if (sweep_load(a->path, &s, a->cfg->sets, a->cfg->nsets, d) == STATUS_OK)
        sweep_release(&s);
}

static void check_run_file(const struct check_args *a, struct diag *d)
{
    check_run(a->path, a->training, d);
}

static void check_calibration(const struct check_args *a, struct diag *d)
{
    struct calibration cal;
    if (calibration_load(a->path, &cal, a->cfg->sets, a->cfg->nsets, d) ==
        STATUS_OK) {
        check_calibration_hardware(a->cfg, a->files, a->n, &cal, d);
        calibration_release(&cal);
    }
}

static void check_stack(const struct check_args *a, struct diag *d)
{
    struct stack st;
    if (stack_load(a->path, &st, a->cfg->sets, a->cfg->nsets, d) == STATUS_OK)
        stack_release(&st);
}

static void check_collectives(const struct check_args *a, struct diag *d)
{
    struct collectives c;
    if (collectives_load(a->path, &c, a->cfg->sets, a->cfg->nsets, d) ==
        STATUS_OK)
        collectives_release(&c);
}

static void check_defaults(const struct check_args *a, struct diag *d)
{
    struct cli_defaults def;
    cli_read_defaults_file(a->path, ".", &def, d);
}

static void check_kernels(const struct check_args *a, struct diag *d)
{
    trace_rules_free(trace_rules_load(a->path, d));
}

/* A kind of data file `check` knows by its first section: the sections
 * that name it (the first one is how messages name the kind) and its
 * check. A new kind of file is a row. */
struct file_kind {
    const char *sections; /* blank-separated */
    void (*check)(const struct check_args *a, struct diag *d);
};

static const struct file_kind file_kinds[] = {
    {.sections = "model attention ffn moe mtp fp8", .check = check_model},
    {.sections = "training", .check = check_training},
    {.sections = "gpu cluster", .check = check_hardware},
    {.sections = "space defaults", .check = check_sweep},
    {.sections = "run", .check = check_run_file},
    {.sections = "calibration", .check = check_calibration},
    {.sections = "stack", .check = check_stack},
    {.sections = "collectives", .check = check_collectives},
    {.sections = "inputs", .check = check_defaults},
    {.sections = "kernels", .check = check_kernels},
};
#define FILE_KINDS (sizeof file_kinds / sizeof file_kinds[0])

/* The kind whose sections hold `section`, or NULL. */
static const struct file_kind *file_kind_of(const char *section)
{
    size_t k, len = strlen(section);
    for (k = 0; k < FILE_KINDS && len > 0; k++) {
        const char *w = file_kinds[k].sections;
        while (*w) {
            size_t n = strcspn(w, " ");
            if (n == len && strncmp(w, section, n) == 0)
                return &file_kinds[k];
            w += n + (w[n] == ' ');
        }
    }
    return NULL;
}

/* "[model], [training], ... or [kernels]": each kind's first section. */
static void file_kind_list(char *buf, size_t size)
{
    size_t k, used = 0;
    buf[0] = '\0';
    for (k = 0; k < FILE_KINDS && used < size; k++) {
        const char *w = file_kinds[k].sections;
        int m = snprintf(buf + used, size - used, "%s[%.*s]",
                         k == 0               ? ""
                         : k + 1 < FILE_KINDS ? ", "
                                              : " or ",
                         (int)strcspn(w, " "), w);
        if (m < 0)
            break;
        used += (size_t)m;
    }
}

/* Checks one file: a config.json, or a data file by its first section. */
static void check_file(const struct check_args *a, struct diag *d)
{
    const struct file_kind *kind;
    char section[64], kinds[256];
    if (hf_config_is_json(a->path)) {
        struct model m;
        if (model_load_with_training(a->path, a->training, &m, a->cfg->sets,
                                     a->cfg->nsets, d) == STATUS_OK)
            model_release(&m);
        return;
    }
    if (datafile_first_section(a->path, section, sizeof section, d) !=
        STATUS_OK)
        return;
    kind = file_kind_of(section);
    if (kind) {
        kind->check(a, d);
        return;
    }
    file_kind_list(kinds, sizeof kinds);
    diag_set(d, STATUS_PARSE,
             "%s: not a roofplan data file (%s%s%s; expected %s first, or a "
             "config.json)",
             a->path, section[0] ? "its first section is [" : "",
             section[0] ? section : "it has no [section]",
             section[0] ? "]" : "", kinds);
}

int cli_cmd_check(struct cli_config *cfg, char **files, size_t n)
{
    char tbuf[1300];
    struct check_args a = {.cfg = cfg, .files = files, .n = n};
    size_t i;
    int rc = 0;
    a.training = cli_training_path(cfg, tbuf, sizeof tbuf);
    if (n == 0)
        return cli_usage_error("check: %s", "missing FILE");
    for (i = 0; i < n; i++) {
        struct diag d;
        diag_init(&d);
        a.path = files[i];
        check_file(&a, &d);
        if (d.status != STATUS_OK) {
            cli_print_diag(&d);
            rc = CLI_EXIT_INPUT;
        }
    }
    return rc;
}
