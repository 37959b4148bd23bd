/*
 * validation: reading published measured runs (see validation.h).
 */
#include "validation.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct validation_spec {
    char name[128];
    char model[256];
    char hardware[256];
    char plan[DATAFILE_TEXT_MAX];
    char unpublished[DATAFILE_TEXT_MAX];
    char sets[DATAFILE_TEXT_MAX];
    char stack[256];
    char cluster[128];
    double step_s, tflops_per_gpu, mfu, gpu_hours_per_trillion;
};

#define VOFF(member) offsetof(struct validation_spec, member)
/* clang-format off */
static const struct datafile_field fields[] = {
    {.section = "run", .key = "name", .type = DATAFILE_STRING, .offset = VOFF(name), .size = 128, .required = true, .help = "the measured run"},
    {.section = "run", .key = "model", .type = DATAFILE_STRING, .offset = VOFF(model), .size = 256, .required = true, .help = "model file, relative to the data directory"},
    {.section = "run", .key = "hardware", .type = DATAFILE_STRING, .offset = VOFF(hardware), .size = 256, .required = true, .help = "hardware file, relative to the data directory"},
    {.section = "run", .key = "plan", .type = DATAFILE_STRING, .offset = VOFF(plan), .size = DATAFILE_TEXT_MAX, .required = true, .help = "the run's plan in PLAN syntax"},
    {.section = "run", .key = "unpublished", .type = DATAFILE_STRING, .offset = VOFF(unpublished), .size = DATAFILE_TEXT_MAX, .def = "", .help = "what the run did not publish, as PLAN keys with their possible values (\"vpp=2,4 zero=1,2\"): its speed of light must hold for every completion"},
    {.section = "run", .key = "stack", .type = DATAFILE_STRING, .offset = VOFF(stack), .size = 256, .def = "", .help = "the run's training framework (a stack file, relative to the data directory), for the expected step"},
    {.section = "run", .key = "set", .type = DATAFILE_STRING, .offset = VOFF(sets), .size = DATAFILE_TEXT_MAX, .def = "", .help = "what the run changed in its model, training recipe, hardware, calibration or stack file, as --set arguments (\"training.seq_len=131072\", \"stack.tp_comm_overlap=true\")"},
    {.section = "run", .key = "cluster", .type = DATAFILE_STRING, .offset = VOFF(cluster), .size = 128, .def = "", .help = "the cluster the run was measured on, named as its source lets one tell (runs that name the same cluster ran the same model on the same GPUs and GPU count there: the expected steps must keep their measured order); \"\" when no other run shares it"},
    {.section = "run", .key = "step_s", .type = DATAFILE_DOUBLE, .offset = VOFF(step_s), .max = 1e9, .def = "0", .unit = "s", .help = "measured time per step (0: not published)"},
    {.section = "run", .key = "tflops_per_gpu", .type = DATAFILE_DOUBLE, .offset = VOFF(tflops_per_gpu), .max = 1e6, .def = "0", .unit = "TFLOP/s", .help = "measured model TFLOP/s per GPU"},
    {.section = "run", .key = "mfu", .type = DATAFILE_DOUBLE, .offset = VOFF(mfu), .max = 1, .def = "0", .help = "measured MFU against the BF16 peak"},
    {.section = "run", .key = "gpu_hours_per_trillion", .type = DATAFILE_DOUBLE, .offset = VOFF(gpu_hours_per_trillion), .max = 1e12, .def = "0", .unit = "GPU-h", .help = "measured GPU-hours per trillion tokens"},
};
/* clang-format on */

static const struct datafile_schema schema = {.kind = "validation",
                                              .fields = fields,
                                              .n = sizeof fields /
                                                   sizeof fields[0]};

const struct datafile_schema *validation_schema(void)
{
    return &schema;
}

/* Resolves `rel` against the data directory. */
static void
data_path(const char *data_dir, const char *rel, char *out, size_t size)
{
    if (rel[0] == '/')
        snprintf(out, size, "%s", rel);
    else
        snprintf(out, size, "%s/%s", data_dir, rel);
}

/* The run's `set` overrides, each as --set parses it. */
static enum status parse_sets(const char *path,
                              const char *text,
                              struct validation_run *run,
                              struct diag *d)
{
    const char *s = text;
    run->nsets = 0;
    for (;;) {
        char tok[DATAFILE_TEXT_MAX];
        size_t n;
        struct diag why;
        s += strspn(s, " \t");
        if (!*s)
            return STATUS_OK;
        n = strcspn(s, " \t");
        snprintf(tok, sizeof tok, "%.*s", (int)n, s);
        s += n;
        diag_init(&why);
        if (run->nsets == VALIDATION_SETS_MAX)
            return diag_set(d, STATUS_RANGE, "%s: run.set: at most %d", path,
                            VALIDATION_SETS_MAX);
        if (datafile_parse_set(tok, &run->sets[run->nsets], &why) != STATUS_OK)
            return diag_set(d, STATUS_PARSE, "%s: run.set: %s", path, why.msg);
        run->nsets++;
    }
}

enum status validation_load(const char *path,
                            const char *data_dir,
                            struct validation_run *run,
                            struct diag *d)
{
    struct validation_spec vs;
    struct datafile_meta meta;
    enum status st;

    memset(&vs, 0, sizeof vs);
    memset(run, 0, sizeof *run);
    st = datafile_load(path, &schema, &vs, &meta, NULL, 0, d);
    if (st != STATUS_OK)
        return st;
    /* Published figures are 0 (absent) or physical: a tiny one would
     * make predicted/measured overflow. */
    {
        const struct {
            const char *key;
            double v, min;
        } floor[] = {{"step_s", vs.step_s, 1e-3},
                     {"tflops_per_gpu", vs.tflops_per_gpu, 1e-3},
                     {"mfu", vs.mfu, 1e-4},
                     {"gpu_hours_per_trillion", vs.gpu_hours_per_trillion, 1}};
        size_t k;
        for (k = 0; k < sizeof floor / sizeof floor[0]; k++)
            if (floor[k].v > 0 && floor[k].v < floor[k].min) {
                long i = datafile_field_index(&schema, "run", floor[k].key);
                diag_add(d, STATUS_RANGE,
                         "%s:%ld: run.%s: expected 0 (not published) or at "
                         "least %g, got %g",
                         path, i >= 0 ? meta.line[i] : 0L, floor[k].key,
                         floor[k].min, floor[k].v);
            }
        if (d->status != STATUS_OK) {
            datafile_meta_release(&meta);
            return d->status;
        }
    }
    diag_snprintf(run->path, sizeof run->path, "%s", path);
    memcpy(run->line, meta.line, sizeof run->line);
    diag_snprintf(run->name, sizeof run->name, "%s", vs.name);
    snprintf(run->source, sizeof run->source, "%s",
             datafile_meta_source(&meta, 0));
    datafile_meta_release(&meta);
    data_path(data_dir, vs.model, run->model_path, sizeof run->model_path);
    data_path(data_dir, vs.hardware, run->hardware_path,
              sizeof run->hardware_path);
    if (vs.stack[0])
        data_path(data_dir, vs.stack, run->stack_path, sizeof run->stack_path);
    snprintf(run->plan, sizeof run->plan, "%s", vs.plan);
    snprintf(run->cluster, sizeof run->cluster, "%s", vs.cluster);
    snprintf(run->unpublished, sizeof run->unpublished, "%s", vs.unpublished);
    if (parse_sets(path, vs.sets, run, d) != STATUS_OK) {
        datafile_meta_release(&meta);
        return d->status;
    }
    run->measured_step_s = vs.step_s;
    run->measured_tflops_per_gpu = vs.tflops_per_gpu;
    run->measured_mfu = vs.mfu;
    run->measured_gpu_hours_per_trillion = vs.gpu_hours_per_trillion;
    return STATUS_OK;
}

long validation_line(const struct validation_run *run, const char *key)
{
    long i = datafile_field_index(&schema, "run", key);
    return i < 0 ? 0 : run->line[i];
}

double validation_measured_step(const struct validation_run *run,
                                double model_flops)
{
    if (run->measured_step_s > 0)
        return run->measured_step_s;
    if (run->measured_tflops_per_gpu > 0)
        return model_flops / (run->measured_tflops_per_gpu * 1e12);
    return 0;
}

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The *.ini names in directory vdir, sorted, into *names (each and the
 * list allocated; *count of them). False when out of memory. */
static bool ini_names(DIR *dir, char ***names, size_t *count)
{
    struct dirent *e;
    size_t cap = 0;
    *names = NULL;
    *count = 0;
    while ((e = readdir(dir)) != NULL) {
        size_t len = strlen(e->d_name);
        if (len <= 4 || e->d_name[0] == '.' ||
            strcmp(e->d_name + len - 4, ".ini") != 0)
            continue;
        if (*count == cap) {
            char **grown;
            cap = cap ? 2 * cap : 32;
            grown = realloc(*names, cap * sizeof *grown);
            if (!grown)
                return false;
            *names = grown;
        }
        (*names)[*count] = malloc(len + 1);
        if (!(*names)[*count])
            return false;
        memcpy((*names)[(*count)++], e->d_name, len + 1);
    }
    qsort(*names, *count, sizeof **names, compare_names);
    return true;
}

enum status validation_load_dir(const char *data_dir,
                                struct validation_runs *out,
                                struct diag *d)
{
    char vdir[1024];
    DIR *dir;
    char **names;
    size_t count, i;
    enum status st = STATUS_OK;
    bool listed;

    memset(out, 0, sizeof *out);
    snprintf(vdir, sizeof vdir, "%s/validation", data_dir);
    dir = opendir(vdir);
    if (!dir)
        return STATUS_OK; /* no validation runs: the sheet says so */
    listed = ini_names(dir, &names, &count);
    closedir(dir);
    /* every run or none: a run left out would move the range unseen */
    if (!listed)
        st = diag_set(d, STATUS_NOMEM, "%s: out of memory listing the runs",
                      vdir);
    else if (count > 0 && !(out->run = calloc(count, sizeof *out->run)))
        st = diag_set(d, STATUS_NOMEM, "%s: out of memory reading %zu runs",
                      vdir, count);
    for (i = 0; i < count; i++) {
        char path[2100];
        snprintf(path, sizeof path, "%s/%s", vdir, names[i]);
        if (st == STATUS_OK) {
            st = validation_load(path, data_dir, &out->run[out->n], d);
            if (st == STATUS_OK)
                out->n++;
        }
        free(names[i]);
    }
    free(names);
    return st;
}

void validation_runs_release(struct validation_runs *r)
{
    if (!r)
        return;
    free(r->run);
    r->run = NULL;
    r->n = 0;
}

static bool same_file(const char *a, const char *b)
{
    /* realpath() allocates: no buffer to outgrow */
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    bool same = ra && rb && strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

enum status validation_load_inputs(const struct validation_run *run,
                                   const char *recipe,
                                   const char *data_dir,
                                   const struct model *m,
                                   const struct hardware *hw,
                                   struct validation_inputs *out,
                                   struct diag *d)
{
    struct datafile_set sets[VALIDATION_SETS_MAX];
    char cal[1300];
    size_t i;
    bool unused = false;
    memset(out, 0, sizeof *out);
    /* each load marks the overrides it takes: copies, so the run stays
     * const and every file sees every override */
    memcpy(sets, run->sets, sizeof sets);
    out->current = m && hw && run->nsets == 0 &&
                   same_file(run->model_path, m->meta.path) &&
                   same_file(run->hardware_path, hw->meta.path);
    if (out->current) {
        out->m = m;
        out->hw = hw;
    } else {
        if (model_load_with_training(run->model_path, recipe, &out->own_m, sets,
                                     run->nsets, d) != STATUS_OK)
            return d->status;
        if (hardware_load(run->hardware_path, &out->own_hw, sets, run->nsets,
                          d) != STATUS_OK) {
            model_release(&out->own_m);
            return d->status;
        }
        out->loaded = true;
        /* the run is judged with the report's headroom (memory_view) */
        out->own_hw.headroom_pct = hw ? hw->headroom_pct : 0;
        out->m = &out->own_m;
        out->hw = &out->own_hw;
        if (data_dir &&
            calibration_find(run->hardware_path, data_dir, cal, sizeof cal)) {
            if (calibration_load(cal, &out->own_cal, sets, run->nsets, d) !=
                STATUS_OK) {
                validation_inputs_release(out);
                return d->status;
            }
            out->has_cal = true;
            if (calibration_check_hardware(&out->own_cal, &out->own_hw, d) !=
                STATUS_OK) {
                validation_inputs_release(out);
                return d->status;
            }
            out->own_hw.cal = &out->own_cal;
        }
    }
    if (run->stack_path[0]) {
        if (stack_load(run->stack_path, &out->own_stack, sets, run->nsets, d) !=
            STATUS_OK) {
            validation_inputs_release(out); /* what the run loaded so far */
            return d->status;
        }
        out->has_stack = true;
        out->stack = &out->own_stack;
    }
    /* an override no file of the run took would be dropped unseen */
    for (i = 0; i < run->nsets; i++)
        if (!sets[i].used) {
            diag_add(d, STATUS_USAGE,
                     "%s:%ld: run.set: %s: no file of the run has section "
                     "[%s] (its model, training recipe, hardware, calibration "
                     "and stack)",
                     run->path, validation_line(run, "set"), sets[i].arg,
                     sets[i].section);
            unused = true;
        }
    if (!unused)
        return STATUS_OK;
    diag_finish(d);
    validation_inputs_release(out);
    return d->status;
}

void validation_inputs_release(struct validation_inputs *in)
{
    if (!in)
        return;
    if (in->has_cal)
        calibration_release(&in->own_cal);
    if (in->has_stack)
        stack_release(&in->own_stack);
    if (in->loaded) {
        model_release(&in->own_m);
        hardware_release(&in->own_hw);
    }
    in->loaded = in->has_cal = in->has_stack = false;
}

void validation_range_add(struct validation_range *r, double m, double x)
{
    double q;
    if (!(m > 0) || !(x > 0) || !isfinite(m) || !isfinite(x))
        return;
    q = m / x;
    r->lo = r->n ? fmin(r->lo, q) : q;
    r->hi = r->n ? fmax(r->hi, q) : q;
    r->n++;
}
