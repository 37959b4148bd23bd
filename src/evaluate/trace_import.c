/*
 * trace_import: kernels added up by class and set against the model's
 * work (trace_import.h). Kernel names repeat (a step holds hundreds of
 * distinct names and up to millions of launches), so each distinct name
 * is classified once and kept in a hash table; each launch of the file
 * being read keeps only its interval, stream and class (24 bytes) for
 * the overlap, which is worked out when the file ends (its launches
 * sorted in place, each union a running merge) and added up: what is
 * kept is one file's launches and the names, each bounded
 * (struct trace_import_limits).
 */
#include "trace_import.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "datafile_text.h"
#include "expected.h"
#include "expected_compute.h"
#include "trace_read.h"

struct name_entry {
    char *name;
    uint64_t hash;
    int cls;
    size_t kernels;
    double us;
};

struct launch {
    double ts, end; /* µs */
    int32_t stream;
    uint16_t cls;
};

/* The overlap of the files read, added up (trace_import_summary's). */
struct overlap {
    long compute_stream; /* of the first file */
    double span_s, compute_busy_s, compute_all_s, comm_busy_s, hidden_s;
};

struct trace_import {
    const struct trace_rules *rules;
    struct trace_import_limits limits;
    struct name_entry *names; /* open addressing, cap a power of two */
    size_t nnames, cap, name_bytes;
    struct launch *launches; /* of the file being read */
    size_t n, ncap;
    size_t files;
    struct overlap ov;
    char first_file[256];
    char gpu[128];
    double first_ts;
};

struct trace_import *trace_import_new(const struct trace_rules *rules)
{
    struct trace_import *imp = calloc(1, sizeof *imp);
    if (!imp)
        return NULL;
    imp->rules = rules;
    imp->limits = (struct trace_import_limits)TRACE_IMPORT_LIMITS;
    imp->ov.compute_stream = -1;
    imp->cap = 256;
    imp->names = calloc(imp->cap, sizeof *imp->names);
    if (!imp->names) {
        free(imp);
        return NULL;
    }
    return imp;
}

void trace_import_set_limits(struct trace_import *imp,
                             const struct trace_import_limits *limits)
{
    imp->limits = *limits;
}

void trace_import_free(struct trace_import *imp)
{
    size_t i;
    if (!imp)
        return;
    for (i = 0; i < imp->cap; i++)
        free(imp->names[i].name);
    free(imp->names);
    free(imp->launches);
    free(imp);
}

/* FNV-1a, 64 bits. */
/* The clock the trace's compute ran at, as the expected step prices it
 * (terms.c f_compute): the base's sustained/burst loss in proportion to
 * the compute-bound kernels' share of the compute kernels' time (GEMMs
 * with the FP8 recipe's casts, which the calibration folds into their
 * rate, and attention), no burst credit (a trace samples a running job).
 * 1 without a base. */
static double trace_clock(const struct trace_import_summary *s,
                          const struct calibration *base)
{
    double bound = 0, all = 0;
    int c;
    if (!base)
        return 1;
    for (c = TRACE_GEMM_FP8; c <= TRACE_OTHER; c++) {
        all += s->cls[c].measured_s;
        if (c <= TRACE_ATTN_AUX || c == TRACE_FP8_CAST)
            bound += s->cls[c].measured_s;
    }
    return 1 -
           (1 - calibration_clock_factor(base)) * (all > 0 ? bound / all : 1);
}

static uint64_t hash_name(const char *s)
{
    uint64_t h = 1469598103934665603u;
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211u;
    }
    return h;
}

static bool rehash(struct trace_import *imp)
{
    size_t cap = imp->cap * 2, i;
    struct name_entry *t = calloc(cap, sizeof *t);
    if (!t)
        return false;
    for (i = 0; i < imp->cap; i++) {
        size_t j;
        if (!imp->names[i].name)
            continue;
        j = (size_t)imp->names[i].hash & (cap - 1);
        while (t[j].name)
            j = (j + 1) & (cap - 1);
        t[j] = imp->names[i];
    }
    free(imp->names);
    imp->names = t;
    imp->cap = cap;
    return true;
}

/* The entry of name, added (and classified) if new; NULL with d set
 * when out of memory or a new name would pass the bounds. */
static struct name_entry *lookup(struct trace_import *imp,
                                 const char *name,
                                 const char *path,
                                 size_t event,
                                 struct diag *d)
{
    uint64_t h = hash_name(name);
    size_t j, len;
    j = (size_t)h & (imp->cap - 1);
    while (imp->names[j].name) {
        if (imp->names[j].hash == h && strcmp(imp->names[j].name, name) == 0)
            return &imp->names[j];
        j = (j + 1) & (imp->cap - 1);
    }
    len = strlen(name) + 1;
    if (imp->nnames >= imp->limits.names) {
        diag_set(d, STATUS_RANGE,
                 "%s: event %zu: more than %zu distinct kernel names (a "
                 "training step has hundreds)",
                 path, event, imp->limits.names);
        return NULL;
    }
    if (len > imp->limits.name_bytes - imp->name_bytes) {
        diag_set(d, STATUS_RANGE,
                 "%s: event %zu: distinct kernel names of more than %zu "
                 "bytes (a training step has hundreds)",
                 path, event, imp->limits.name_bytes);
        return NULL;
    }
    if ((imp->nnames + 1) * 2 > imp->cap) {
        if (!rehash(imp))
            goto nomem;
        j = (size_t)h & (imp->cap - 1);
        while (imp->names[j].name)
            j = (j + 1) & (imp->cap - 1);
    }
    imp->names[j].name = strdup(name);
    if (!imp->names[j].name)
        goto nomem;
    imp->name_bytes += len;
    imp->names[j].hash = h;
    imp->names[j].cls = trace_rules_classify(imp->rules, name, NULL);
    imp->nnames++;
    return &imp->names[j];
nomem:
    diag_set(d, STATUS_NOMEM, "%s: event %zu: out of memory", path, event);
    return NULL;
}

/* ---- Overlap ---- */

static int by_start(const void *a, const void *b)
{
    const struct launch *x = a, *y = b;
    return x->ts < y->ts ? -1 : x->ts > y->ts;
}

/* Which launches a union takes: compute (not communication),
 * communication, one stream's, or all. */
enum take { TAKE_COMPUTE, TAKE_COMM, TAKE_STREAM, TAKE_ALL };

/* The length of the union of the intervals of the launches l[0..n)
 * (sorted by start) that take accepts, in µs: a running merge. */
static double
union_us(const struct launch *l, size_t n, enum take take, long stream)
{
    double t = 0, a = 0, b = 0;
    bool open = false;
    size_t i;
    for (i = 0; i < n; i++) {
        bool comm = trace_class_is_comm(l[i].cls);
        if ((take == TAKE_COMPUTE && comm) || (take == TAKE_COMM && !comm) ||
            (take == TAKE_STREAM && l[i].stream != stream))
            continue;
        if (open && l[i].ts <= b) {
            if (l[i].end > b)
                b = l[i].end;
            continue;
        }
        if (open)
            t += b - a;
        a = l[i].ts;
        b = l[i].end;
        open = true;
    }
    return open ? t + (b - a) : t;
}

/* The stream with the most non-communication time in l[0..n). */
static long busiest_stream(const struct launch *l, size_t n)
{
    struct {
        long stream;
        double us;
    } s[64];
    size_t ns = 0, i, j, best = 0;
    for (i = 0; i < n; i++) {
        if (trace_class_is_comm(l[i].cls))
            continue;
        for (j = 0; j < ns && s[j].stream != l[i].stream; j++)
            ;
        if (j == ns) {
            if (ns == sizeof s / sizeof *s)
                continue; /* more streams than a run uses: not counted */
            s[ns].stream = l[i].stream;
            s[ns++].us = 0;
        }
        s[j].us += l[i].end - l[i].ts;
    }
    for (j = 1; j < ns; j++)
        if (s[j].us > s[best].us)
            best = j;
    return ns ? s[best].stream : -1;
}

/* The overlap of the file just read (its launches, sorted here), added
 * to imp's. Hidden communication is the intersection of the compute
 * and communication unions: |C| + |M| - |C u M|. */
static void file_overlap(struct trace_import *imp)
{
    struct launch *l = imp->launches;
    size_t i, n = imp->n;
    double last, compute, comm;
    long stream;
    if (n == 0)
        return;
    qsort(l, n, sizeof *l, by_start);
    last = l[0].end;
    for (i = 1; i < n; i++)
        if (l[i].end > last)
            last = l[i].end;
    stream = busiest_stream(l, n);
    if (imp->ov.compute_stream < 0)
        imp->ov.compute_stream = stream;
    compute = union_us(l, n, TAKE_COMPUTE, 0);
    comm = union_us(l, n, TAKE_COMM, 0);
    imp->ov.span_s += (last - l[0].ts) * 1e-6;
    imp->ov.compute_busy_s += union_us(l, n, TAKE_STREAM, stream) * 1e-6;
    imp->ov.compute_all_s += compute * 1e-6;
    imp->ov.comm_busy_s += comm * 1e-6;
    imp->ov.hidden_s += (compute + comm - union_us(l, n, TAKE_ALL, 0)) * 1e-6;
}

/* ---- Reading ---- */

struct read_ctx {
    struct trace_import *imp;
    const char *path;
};

static enum status
on_kernel(void *ctx, const struct trace_kernel *k, struct diag *d)
{
    struct read_ctx *c = ctx;
    struct trace_import *imp = c->imp;
    struct name_entry *e = lookup(imp, k->name, c->path, k->event, d);
    struct launch *l;
    if (!e)
        return d->status;
    if (imp->n >= imp->limits.kernels)
        return diag_set(d, STATUS_RANGE,
                        "%s: event %zu: more than %zu kernels in one trace "
                        "(the overlap keeps each one's interval): profile "
                        "fewer steps (torch.profiler's schedule, active=1)",
                        c->path, k->event, imp->limits.kernels);
    if (imp->n == imp->ncap) {
        size_t cap = imp->ncap ? imp->ncap * 2 : 4096;
        struct launch *p;
        if (cap > imp->limits.kernels)
            cap = imp->limits.kernels;
        p = realloc(imp->launches, cap * sizeof *p);
        if (!p)
            return diag_set(d, STATUS_NOMEM, "%s: event %zu: out of memory",
                            c->path, k->event);
        imp->launches = p;
        imp->ncap = cap;
    }
    e->kernels++;
    e->us += k->dur_us;
    l = &imp->launches[imp->n++];
    l->ts = k->ts_us;
    l->end = k->ts_us + k->dur_us;
    l->stream = (int32_t)(k->stream > INT32_MAX ? INT32_MAX : k->stream);
    l->cls = (uint16_t)e->cls;
    if (imp->files == 0 && (imp->first_ts == 0 || k->ts_us < imp->first_ts))
        imp->first_ts = k->ts_us;
    return STATUS_OK;
}

/* Common to the file and memory reads: a file read whole counts. */
static enum status added(struct trace_import *imp,
                         const char *path,
                         const struct trace_read_info *info,
                         enum status st)
{
    const char *base = strrchr(path, '/');
    if (st != STATUS_OK)
        return st;
    file_overlap(imp);
    imp->n = 0; /* the next file's launches in the same array */
    if (imp->files == 0) {
        snprintf(imp->first_file, sizeof imp->first_file, "%s",
                 base ? base + 1 : path);
        snprintf(imp->gpu, sizeof imp->gpu, "%s", info->gpu);
    }
    imp->files++;
    return STATUS_OK;
}

enum status trace_import_read(struct trace_import *imp,
                              const char *path,
                              FILE *progress,
                              struct diag *d)
{
    struct read_ctx c = {imp, path};
    struct trace_read_info info;
    enum status st;
    if (imp->files >= TRACE_IMPORT_FILES_MAX)
        return diag_set(d, STATUS_USAGE, "%s: more than %d trace files", path,
                        TRACE_IMPORT_FILES_MAX);
    imp->n = 0;
    st = trace_read_file(path, on_kernel, &c, progress, &info, d);
    return added(imp, path, &info, st);
}

enum status trace_import_read_mem(struct trace_import *imp,
                                  const void *data,
                                  size_t len,
                                  const char *name,
                                  struct diag *d)
{
    struct read_ctx c = {imp, name};
    struct trace_read_info info;
    enum status st;
    if (imp->files >= TRACE_IMPORT_FILES_MAX)
        return diag_set(d, STATUS_USAGE, "%s: more than %d trace files", name,
                        TRACE_IMPORT_FILES_MAX);
    imp->n = 0;
    st = trace_read_mem(data, len, name, on_kernel, &c, &info, d);
    return added(imp, name, &info, st);
}

/* ---- Attribution ---- */

/* Unknown names by time, the longest first. */
static void list_unknown(const struct trace_import *imp,
                         struct trace_import_summary *s)
{
    size_t i, k;
    for (i = 0; i < imp->cap; i++) {
        const struct name_entry *e = &imp->names[i];
        double t = e->us * 1e-6;
        if (!e->name || e->cls != TRACE_UNKNOWN)
            continue;
        for (k = s->unknowns; k > 0 && s->unknown[k - 1].measured_s < t; k--)
            if (k < TRACE_IMPORT_UNKNOWN_MAX)
                s->unknown[k] = s->unknown[k - 1];
        if (k >= TRACE_IMPORT_UNKNOWN_MAX)
            continue;
        /* for a terminal: text as it is, anything else escaped */
        datafile_text_quote(e->name, s->unknown[k].name,
                            sizeof s->unknown[k].name);
        s->unknown[k].kernels = e->kernels;
        s->unknown[k].measured_s = t;
        if (s->unknowns < TRACE_IMPORT_UNKNOWN_MAX)
            s->unknowns++;
    }
}

/* The rate of class c in FLOP/s (or B/s), 0 when not measured. */
static double rate(const struct trace_import_summary *s, int c)
{
    const struct trace_import_class *k = &s->cls[c];
    return k->work > 0 && k->measured_s > 0 ? k->work / k->measured_s : 0;
}

/* The GEMMs: each kind's FLOPs into the class its kernels land in; then
 * each calibration class's rate over the passes of its kinds. */
static void gemms(const struct model *m,
                  const struct model_layer *L,
                  const struct plan *p,
                  struct trace_import_summary *s)
{
    double nf = s->fwd_passes, nb = s->bwd_passes;
    double expert_rows = m->spec.routed_experts > 0
                             ? s->tokens * (double)p->ep *
                                   (double)m->spec.top_k /
                                   (double)m->spec.routed_experts
                             : s->tokens;
    int fwd_cls[MODEL_GEMMS], w_cls[MODEL_GEMMS], g, k, q;
    double top[CALIBRATION_GEMM_COUNT] = {0};

    for (g = 0; g < MODEL_GEMMS; g++) {
        bool fp8 = p->precision == MODEL_FP8 && expected_gemm_fp8(&m->spec, g);
        bool routed = g == MODEL_GEMM_EXPERT_UP || g == MODEL_GEMM_EXPERT_DOWN;
        double f = s->tokens * L->gemm_fwd[g];
        fwd_cls[g] = !fp8 ? TRACE_GEMM_BF16
                     : routed && s->cls[TRACE_GEMM_FP8_GROUPED].kernels > 0
                         ? TRACE_GEMM_FP8_GROUPED
                         : TRACE_GEMM_FP8;
        w_cls[g] = fp8 && s->cls[TRACE_GEMM_FP8_WGRAD].kernels > 0
                       ? TRACE_GEMM_FP8_WGRAD
                       : fwd_cls[g];
        s->cls[fwd_cls[g]].work += (nf + nb) * f;
        s->cls[w_cls[g]].work += nb * f;
    }
    /* per calibration class and precision: its kinds' FLOPs over their
     * time at the rates of the trace classes they ran in */
    for (k = 0; k < CALIBRATION_GEMM_COUNT; k++) {
        for (q = 0; q < CALIBRATION_PRECISION_COUNT; q++) {
            double flops = 0, sec = 0, all = 0;
            bool ok = true;
            unsigned used = 0; /* the trace classes its kinds ran in */
            int c;
            for (g = 0; g < MODEL_GEMMS; g++) {
                double f = s->tokens * L->gemm_fwd[g];
                bool fp8 = fwd_cls[g] != TRACE_GEMM_BF16;
                double rf, rw;
                if ((int)expected_gemm_class(g) != k || f <= 0)
                    continue;
                all += (nf + 2 * nb) * f;
                if (fp8 != (q == CALIBRATION_FP8))
                    continue;
                rf = rate(s, fwd_cls[g]);
                rw = rate(s, w_cls[g]);
                if (rf <= 0 || (nb > 0 && rw <= 0)) {
                    ok = false;
                    continue;
                }
                flops += (nf + 2 * nb) * f;
                sec += (nf + nb) * f / rf + (nb > 0 ? nb * f / rw : 0);
                used |= 1u << fwd_cls[g] | 1u << w_cls[g];
                /* the class's M: that of its kind with the most FLOPs */
                if (f > top[k]) {
                    top[k] = f;
                    s->gemm_m[k] =
                        g == MODEL_GEMM_EXPERT_UP || g == MODEL_GEMM_EXPERT_DOWN
                            ? expert_rows
                            : s->tokens;
                }
            }
            /* a precision that does under half the class's FLOPs (the
             * BF16 router of an FP8 recipe) does not stand for it */
            if (ok && sec > 0 && flops * 2 >= all) {
                s->gemm_tflops[k][q] = flops / sec * 1e-12 / s->clock;
                for (c = 0; c < TRACE_CLASSES; c++)
                    if (used & 1u << c)
                        s->gemm_kernels[k][q] += s->cls[c].kernels;
            }
        }
    }
}

/*
 * The chunked scans (Gated DeltaNet's delta rule, Mamba-2's SSD): the
 * trace covers nf forwards of each attention layer (one attention kernel
 * each, kernels_other), so nf / (the model's attention layers) forwards
 * of the whole stack of layers, and with them of each scan layer: the
 * forward class's kernels are timed against those layers' forward FLOPs
 * (model_layer scan_fwd, per token; docs/model.md), the backward class's
 * against twice them (the expected step's 3 x the forward), and the
 * forward's rate over the clock is the calibration's [scan] rate.
 */
static void kernels_scan(const struct model *m,
                         const struct hardware *hw,
                         struct trace_import_summary *s)
{
    static const struct {
        int fwd, bwd, model_scan;
        enum calibration_scan cal;
    } scans[] = {{TRACE_SCAN_LINEAR, TRACE_SCAN_LINEAR_BWD, MODEL_SCAN_LINEAR,
                  CALIBRATION_SCAN_LINEAR},
                 {TRACE_SCAN_SSD, TRACE_SCAN_SSD_BWD, MODEL_SCAN_SSD,
                  CALIBRATION_SCAN_SSD}};
    double attn_layers = 0, stack_passes;
    size_t i;
    int k;
    for (k = 0; k < MODEL_LAYER_KINDS; k++)
        if (m->layer[k].core_fwd > 0)
            attn_layers += (double)m->kind_units[k];
    if (!(attn_layers > 0))
        return;
    stack_passes = s->fwd_passes / attn_layers;
    s->stack_passes = stack_passes;
    for (i = 0; i < sizeof scans / sizeof scans[0]; i++) {
        double f = 0, t;
        for (k = 0; k < MODEL_LAYER_KINDS; k++) {
            double u = (double)m->kind_units[k];
            f += u * m->layer[k].scan_fwd[scans[i].model_scan];
        }
        f *= stack_passes * s->tokens;
        s->cls[scans[i].fwd].work = f;
        s->cls[scans[i].fwd].sol_s = f / hw->bf16_flops;
        s->cls[scans[i].bwd].work = 2 * f;
        s->cls[scans[i].bwd].sol_s = 2 * f / hw->bf16_flops;
        t = s->cls[scans[i].fwd].measured_s;
        if (f > 0 && t > 0)
            s->scan_fwd_tflops[scans[i].cal] = f / t * 1e-12 / s->clock;
    }
}

/* Attention at the model's q/k width; norms and activations. */
static void kernels_other(const struct model *m,
                          const struct model_layer *L,
                          const struct hardware *hw,
                          struct trace_import_summary *s)
{
    double nf = s->fwd_passes, nb = s->bwd_passes, tok = s->tokens;
    double r = s->attn_bwd_ratio, f1 = tok * L->core_fwd;
    double tf, tb;
    s->cls[TRACE_ATTN_FWD].work = nf * f1;
    s->cls[TRACE_ATTN_FWD].sol_s = nf * f1 / hw->bf16_flops;
    /* in the speed of light's counting the backward is twice the forward;
     * the calibration's rates count it bwd_flops_ratio times */
    s->cls[TRACE_ATTN_BWD].work = nb * r * f1;
    s->cls[TRACE_ATTN_BWD].sol_s = nb * 2 * f1 / hw->bf16_flops;
    s->cls[TRACE_ATTN_AUX].into = TRACE_ATTN_BWD;
    s->cls[TRACE_ROPE].into = TRACE_COPY;
    tf = s->cls[TRACE_ATTN_FWD].measured_s;
    tb = s->cls[TRACE_ATTN_BWD].measured_s + s->cls[TRACE_ATTN_AUX].measured_s;
    if (nf > 0 && nb > 0 && tf > 0 && tb > 0 && f1 > 0) {
        s->head_dim = m->attn_head_dim;
        s->v_head_dim = m->attn_v_head_dim;
        s->attn_fwd_tflops = f1 / (tf / nf) * 1e-12 / s->clock;
        s->attn_fwd_bwd_tflops =
            (1 + r) * f1 / (tf / nf + tb / nb) * 1e-12 / s->clock;
    }
    s->cls[TRACE_NORM].work = (nf + 2 * nb) * tok * L->ew_fwd[MODEL_EW_NORM];
    s->cls[TRACE_ACTIVATION].work =
        (nf + 2 * nb) * tok * L->ew_fwd[MODEL_EW_ACTIVATION];
    s->cls[TRACE_COPY].work = (nf + 2 * nb) * tok * L->ew_fwd[MODEL_EW_COPY];
    s->cls[TRACE_NORM].is_bytes = s->cls[TRACE_ACTIVATION].is_bytes =
        s->cls[TRACE_COPY].is_bytes = true;
    if (rate(s, TRACE_NORM) > 0)
        s->norm_tbps = rate(s, TRACE_NORM) * 1e-12;
    if (rate(s, TRACE_ACTIVATION) > 0)
        s->activation_tbps = rate(s, TRACE_ACTIVATION) * 1e-12;
}

/* The UTC date of a trace clock in µs since the epoch, when it reads as
 * one (Kineto's clock is the wall clock; other tools start at 0). */
static void trace_date(double us, char *buf, size_t size)
{
    time_t t;
    struct tm tm;
    buf[0] = '\0';
    if (!(us > 1.4e15 && us < 4.1e15)) /* 2014 .. 2099 */
        return;
    t = (time_t)(us * 1e-6);
    if (gmtime_r(&t, &tm))
        strftime(buf, size, "%Y-%m-%d", &tm);
}

enum status trace_import_summarize(const struct trace_import *imp,
                                   const struct model *m,
                                   const struct hardware *hw,
                                   const struct plan *p,
                                   const struct calibration *base,
                                   struct trace_import_summary *s,
                                   struct diag *d)
{
    const struct model_layer *L =
        &m->layer[m->spec.routed_experts > 0 ? MODEL_LAYER_MOE
                                             : MODEL_LAYER_DENSE];
    size_t i;
    int c;
    memset(s, 0, sizeof *s);
    diag_snprintf(s->hardware_gpu, sizeof s->hardware_gpu, "%s",
                  hw->spec.gpu_name);
    for (c = 0; c < TRACE_CLASSES; c++)
        s->cls[c].into = -1;
    for (i = 0; i < imp->cap; i++) {
        const struct name_entry *e = &imp->names[i];
        if (!e->name)
            continue;
        s->cls[e->cls].kernels += e->kernels;
        s->cls[e->cls].measured_s += e->us * 1e-6;
        s->kernels += e->kernels;
        s->names++;
    }
    s->files = imp->files;
    snprintf(s->first_file, sizeof s->first_file, "%s", imp->first_file);
    snprintf(s->gpu, sizeof s->gpu, "%s", imp->gpu);
    trace_date(imp->first_ts, s->date, sizeof s->date);
    s->fwd_passes = (double)s->cls[TRACE_ATTN_FWD].kernels;
    s->bwd_passes = (double)s->cls[TRACE_ATTN_BWD].kernels;
    if (s->fwd_passes + s->bwd_passes <= 0)
        return diag_set(d, STATUS_PARSE,
                        "%s: no attention kernels (classes attn_fwd, "
                        "attn_bwd of the kernel file): the layers the trace "
                        "covers cannot be counted",
                        imp->first_file);
    s->tokens = (double)p->mbs * (double)m->spec.seq_len /
                ((double)p->tp * (double)p->cp);
    s->attn_seq_len = (double)m->spec.seq_len / (double)p->cp;
    s->attn_bwd_ratio = base ? calibration_attention_bwd_ratio(base) : 2.5;
    s->clock = trace_clock(s, base);
    gemms(m, L, p, s);
    for (c = TRACE_GEMM_FP8; c <= TRACE_GEMM_FP8_WGRAD; c++)
        s->cls[c].sol_s =
            hw->fp8_flops > 0 ? s->cls[c].work / hw->fp8_flops : 0;
    s->cls[TRACE_GEMM_BF16].sol_s =
        s->cls[TRACE_GEMM_BF16].work / hw->bf16_flops;
    kernels_other(m, L, hw, s);
    kernels_scan(m, hw, s);
    for (c = TRACE_NORM; c <= TRACE_COPY; c++)
        if (s->cls[c].is_bytes)
            s->cls[c].sol_s = s->cls[c].work / hw->hbm_bps;
    {
        double g = s->cls[TRACE_GEMM_FP8].measured_s +
                   s->cls[TRACE_GEMM_FP8_GROUPED].measured_s +
                   s->cls[TRACE_GEMM_FP8_WGRAD].measured_s;
        double cast = s->cls[TRACE_FP8_CAST].measured_s;
        if (g > 0 && cast > 0)
            s->fine_factor = g / (g + cast);
    }
    list_unknown(imp, s);
    s->compute_stream = imp->ov.compute_stream;
    s->span_s = imp->ov.span_s;
    s->compute_busy_s = imp->ov.compute_busy_s;
    s->compute_all_s = imp->ov.compute_all_s;
    s->comm_busy_s = imp->ov.comm_busy_s;
    s->hidden_s = imp->ov.hidden_s;
    return STATUS_OK;
}
