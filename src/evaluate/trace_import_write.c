/*
 * trace_import_write: the calibration file and the per-class table of an
 * import (trace_import.h). The file walks the calibration schema, so it
 * has every key the base calibration gives, in the schema's order: the
 * measured value where the trace has one, the base's value elsewhere,
 * each with its own source line. Measured values are written to four
 * significant digits (a trace of one step measures no finer).
 */
#include "trace_import.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"
#include "datafile_text.h"

#define LINE 200 /* inih's line, as the loader reads it */

/* One measured value for section.key. */
struct put {
    char section[48];
    char key[32];
    char value[LINE];
    char source[LINE];
};

struct puts {
    struct put v[64];
    size_t n;
};

static void put(struct puts *p,
                const char *section,
                const char *key,
                const char *value,
                const char *source)
{
    struct put *v;
    if (p->n == sizeof p->v / sizeof *p->v)
        return;
    v = &p->v[p->n++];
    snprintf(v->section, sizeof v->section, "%s", section);
    snprintf(v->key, sizeof v->key, "%s", key);
    snprintf(v->value, sizeof v->value, "%s", value);
    snprintf(v->source, sizeof v->source, "%s", source);
}

static const struct put *
find(const struct puts *p, const char *section, const char *key)
{
    size_t i;
    for (i = 0; i < p->n; i++)
        if (strcmp(p->v[i].section, section) == 0 &&
            strcmp(p->v[i].key, key) == 0)
            return &p->v[i];
    return NULL;
}

static const char *
trace_name(const struct trace_import_summary *s, char *buf, size_t size)
{
    char name[40];
    size_t i;
    /* a file name is any bytes: as text, escaped where it is not */
    datafile_text_quote(s->first_file, name, sizeof name);
    if (s->files > 1)
        snprintf(buf, size, "%zu traces (%s, ...)", s->files, name);
    else
        snprintf(buf, size, "trace %s", name);
    /* nor a comment on the line */
    for (i = 0; buf[i]; i++)
        if (buf[i] == ';')
            buf[i] = '?';
    return buf;
}

/* The GEMM classes the trace measures: one M each, whole, and a rate of
 * each precision at it. */
static void measured_gemms(const struct trace_import_summary *s,
                           const struct calibration *base,
                           const char *base_name,
                           const char *t,
                           struct puts *p)
{
    char v[2 * LINE], src[2 * LINE], sec[48];
    int k, q;
    for (k = 0; k < CALIBRATION_GEMM_COUNT; k++) {
        /* M is a whole count of rows (the loader's rule): a routed
         * expert's average (Kimi K2 at ep=8: 682.7) to the nearest */
        double m = fmax(1, round(s->gemm_m[k]));
        bool any = false;
        for (q = 0; q < CALIBRATION_PRECISION_COUNT; q++)
            any = any || s->gemm_tflops[k][q] > 0;
        if (!any)
            continue;
        snprintf(sec, sizeof sec, "gemm_%s",
                 calibration_gemm_key((enum calibration_gemm)k));
        snprintf(v, sizeof v, "%.0f", m);
        snprintf(src, sizeof src,
                 "%s: tokens per GPU per micro-batch (routed experts: x ep "
                 "x top_k / experts, rounded) of the plan",
                 t);
        put(p, sec, "m_tokens", v, src);
        /* each rate list has one value per M: where the trace has no
         * GEMM of a precision, the base's rate at this M, not the
         * base's whole list */
        for (q = 0; q < CALIBRATION_PRECISION_COUNT; q++) {
            const char *pk =
                calibration_precision_key((enum calibration_precision)q);
            char key[32];
            snprintf(key, sizeof key, "%s_tflops", pk);
            if (s->gemm_tflops[k][q] > 0) {
                snprintf(v, sizeof v, "%.4g", s->gemm_tflops[k][q]);
                snprintf(src, sizeof src,
                         "%s: %zu %s GEMM kernels (wgrad included), the "
                         "model's FLOPs over their time / clock %.3g "
                         "[computed]",
                         t, s->gemm_kernels[k][q], q ? "FP8" : "BF16",
                         s->clock);
            } else {
                double r = base ? calibration_gemm_tflops(
                                      base, (enum calibration_gemm)k,
                                      (enum calibration_precision)q, m, NULL)
                                : 0;
                if (r <= 0)
                    continue;
                snprintf(v, sizeof v, "%.4g", r);
                snprintf(src, sizeof src,
                         "%s at M = %.0f (the trace has no %s GEMM of "
                         "this class) [derived]",
                         base_name, m, q ? "FP8" : "BF16");
            }
            put(p, sec, key, v, src);
        }
    }
}

/* The chunked scans' forward rates ([scan]), where the trace has them. */
static void measured_scans(const struct trace_import_summary *s,
                           const char *t,
                           struct puts *p)
{
    static const struct {
        enum calibration_scan cal;
        int cls;
        const char *key;
    } rows[] = {
        {CALIBRATION_SCAN_LINEAR, TRACE_SCAN_LINEAR, "linear_fwd_tflops"},
        {CALIBRATION_SCAN_SSD, TRACE_SCAN_SSD, "ssd_fwd_tflops"}};
    char v[2 * LINE], src[2 * LINE];
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        if (!(s->scan_fwd_tflops[rows[i].cal] > 0))
            continue;
        snprintf(v, sizeof v, "%.4g", s->scan_fwd_tflops[rows[i].cal]);
        snprintf(src, sizeof src,
                 "%s: %zu forward scan kernels over %.4g passes of the "
                 "layers, the model's scan FLOPs over their time / clock "
                 "%.3g [computed]",
                 t, s->cls[rows[i].cls].kernels, s->stack_passes, s->clock);
        put(p, "scan", rows[i].key, v, src);
    }
}

/* The values the trace measured, with their sources. */
static void measured(const struct trace_import_summary *s,
                     const struct calibration *base,
                     const char *base_name,
                     struct puts *p)
{
    char t[80], v[2 * LINE], src[2 * LINE];
    trace_name(s, t, sizeof t);
    measured_gemms(s, base, base_name, t, p);
    if (s->attn_fwd_tflops > 0) {
        /* one head width, and its v width (the base's list, one per
         * width of its own, would not match) */
        snprintf(v, sizeof v, "%.0f", s->head_dim);
        snprintf(src, sizeof src, "%s: the model's q/k head width", t);
        put(p, "attention_kernel", "head_dims", v, src);
        snprintf(v, sizeof v, "%.0f",
                 s->v_head_dim > 0 ? s->v_head_dim : s->head_dim);
        snprintf(src, sizeof src, "%s: the model's v head width", t);
        put(p, "attention_kernel", "v_head_dims", v, src);
        /* what [attention_length] scales the rates from */
        snprintf(v, sizeof v, "%.0f", s->attn_seq_len);
        snprintf(src, sizeof src,
                 "%s: the sequence the rates above ran over (the model's, "
                 "over cp)",
                 t);
        put(p, "attention_kernel", "seq_len", v, src);
        snprintf(v, sizeof v, "%.4g", s->attn_fwd_tflops);
        snprintf(src, sizeof src,
                 "%s: %zu attention forward kernels, the model's causal "
                 "FLOPs over their time / clock %.3g [computed]",
                 t, s->cls[TRACE_ATTN_FWD].kernels, s->clock);
        put(p, "attention_kernel", "fwd_tflops", v, src);
        snprintf(v, sizeof v, "%.4g", s->attn_fwd_bwd_tflops);
        snprintf(src, sizeof src,
                 "%s: %zu fwd, %zu bwd (+%zu pre/post) kernels, bwd %.3g "
                 "x fwd FLOPs, / clock %.3g [computed]",
                 t, s->cls[TRACE_ATTN_FWD].kernels,
                 s->cls[TRACE_ATTN_BWD].kernels, s->cls[TRACE_ATTN_AUX].kernels,
                 s->attn_bwd_ratio, s->clock);
        put(p, "attention_kernel", "fwd_bwd_tflops", v, src);
        snprintf(v, sizeof v, "%.4g", s->attn_bwd_ratio);
        put(p, "attention_kernel", "bwd_flops_ratio", v,
            "the counting of the rates above (kept from the base)");
    }
    measured_scans(s, t, p);
    if (s->norm_tbps > 0) {
        snprintf(v, sizeof v, "%.4g", s->norm_tbps);
        snprintf(src, sizeof src,
                 "%s: %zu norm kernels (fwd + bwd) over the model's norm "
                 "bytes x 3 [computed]",
                 t, s->cls[TRACE_NORM].kernels);
        put(p, "elementwise", "norm_tbps", v, src);
    }
    if (s->activation_tbps > 0) {
        snprintf(v, sizeof v, "%.4g", s->activation_tbps);
        snprintf(src, sizeof src,
                 "%s: %zu activation kernels (fwd + bwd) over the model's "
                 "activation bytes x 3 [computed]",
                 t, s->cls[TRACE_ACTIVATION].kernels);
        put(p, "elementwise", "activation_tbps", v, src);
    }
    if (s->fine_factor >= 0.1) {
        snprintf(v, sizeof v, "%.4g", s->fine_factor);
        snprintf(src, sizeof src,
                 "%s: FP8 GEMM time / (GEMM + %zu cast and transpose "
                 "kernels' time) [computed]",
                 t, s->cls[TRACE_FP8_CAST].kernels);
        put(p, "fp8_scaling", "fine_grained_factor", v, src);
        /* the factor's denominator holds the casts: the expected step
         * adds none for a recipe that takes it */
        put(p, "fp8_scaling", "fine_grained_casts", "true",
            "the factor above: its cast and transpose kernels are in it");
    }
}

/* The base's value of field f as text. */
static void base_value(const struct datafile_field *f,
                       const struct calibration *base,
                       char *buf,
                       size_t size)
{
    const char *at = (const char *)&base->spec + f->offset;
    switch (f->type) {
    case DATAFILE_STRING:
        snprintf(buf, size, "%s", at);
        break;
    case DATAFILE_DOUBLE: {
        double x;
        memcpy(&x, at, sizeof x);
        snprintf(buf, size, "%.17g", x);
        break;
    }
    case DATAFILE_INT: {
        long x;
        memcpy(&x, at, sizeof x);
        snprintf(buf, size, "%ld", x);
        break;
    }
    case DATAFILE_BOOL: {
        bool x;
        memcpy(&x, at, sizeof x);
        snprintf(buf, size, "%s", x ? "true" : "false");
        break;
    }
    default: /* the calibration schema has no other types */
        buf[0] = '\0';
    }
}

/* The [calibration] section's own values. */
static void header(const struct trace_import_summary *s,
                   const struct calibration *base,
                   const char *base_name,
                   const char *command,
                   struct puts *p)
{
    char t[80], v[2 * LINE];
    trace_name(s, t, sizeof t);
    snprintf(v, sizeof v,
             "%s (PyTorch profiler), %zu kernels; the rest "
             "kept from %s",
             t, s->kernels, base_name);
    put(p, "calibration", "source", v, "");
    if (s->gpu[0])
        put(p, "calibration", "gpu", s->gpu, "");
    else if (base)
        put(p, "calibration", "gpu", base->spec.gpu, "");
    /* the rates are checked against the hardware the import ran with */
    put(p, "calibration", "hardware_gpu", s->hardware_gpu,
        "the hardware file's gpu.name the trace was set against (-g)");
    if (s->date[0])
        put(p, "calibration", "date", s->date, "");
    else if (base)
        put(p, "calibration", "date", base->spec.date, "");
    put(p, "calibration", "software", "as traced (see the trace)", "");
    snprintf(v, sizeof v,
             "%.80s where the trace is silent, as each "
             "source says",
             base_name);
    put(p, "calibration", "derived_from", v, "");
    put(p, "", "command", command, "");
}

/* Writes "key[.source] = text\n", text cut to fit a data-file line
 * (LINE - 2 bytes) on a UTF-8 character's boundary. */
static void line(FILE *f, const char *key, const char *suffix, const char *text)
{
    size_t head = strlen(key) + strlen(suffix) + 3, n = strlen(text);
    size_t max = head < LINE - 2 ? LINE - 2 - head : 0;
    if (n > max) {
        n = max;
        while (n > 0 && ((unsigned char)text[n] & 0xC0) == 0x80)
            n--;
    }
    fprintf(f, "%s%s = %.*s\n", key, suffix, (int)n, text);
}

static enum status write_text(const struct trace_import_summary *s,
                              const struct calibration *base,
                              const char *base_name,
                              const struct puts *p,
                              FILE *f)
{
    const struct datafile_schema *sc = calibration_schema();
    const char *section = "";
    char v[2 * LINE];
    size_t i;
    fprintf(f,
            "; Measured by `roofplan import trace` from %zu PyTorch "
            "profiler trace%s;\n; values the trace does not measure are "
            "%.60s's, as their sources say.\n",
            s->files, s->files == 1 ? "" : "s", base_name);
    line(f, "; attributed to", "", find(p, "", "command")->value);
    for (i = 0; i < sc->n; i++) {
        const struct datafile_field *fd = &sc->fields[i];
        const struct put *m = find(p, fd->section, fd->key);
        /* the base's own [calibration] (driver, ...) is not the trace's */
        bool given = base && base->meta.given[i] &&
                     strcmp(fd->section, "calibration") != 0;
        if (!m && !given)
            continue;
        if (strcmp(section, fd->section) != 0) {
            section = fd->section;
            fprintf(f, "\n[%s]\n", section);
            if (strcmp(section, "calibration") == 0)
                line(f, "source", "", find(p, "calibration", "source")->value);
        }
        if (m) {
            line(f, fd->key, "", m->value);
            if (m->source[0])
                line(f, fd->key, ".source", m->source);
            continue;
        }
        base_value(fd, base, v, sizeof v);
        line(f, fd->key, "", v);
        snprintf(v, sizeof v, "kept from %s (the trace is silent)", base_name);
        line(f, fd->key, ".source", v);
    }
    return STATUS_OK;
}

/*
 * The text written, checked as `roofplan check` checks it beside hw: the
 * calibration loader (the schema's ranges, each list as long as its
 * keys, M and head widths whole), then hw's peaks and the rates its speed
 * of light takes (calibration_check_hardware, calibration_check_floor).
 * A trace of another model, plan or GPU than the run's gives such rates
 * (a BF16 rate 125 times the peak when the plan's precision is not the
 * trace's); so does a trace whose kernels are too short to be real.
 */
static enum status check_text(const struct trace_import_summary *s,
                              const struct hardware *hw,
                              const char *command,
                              const char *text,
                              size_t len,
                              struct diag *d)
{
    struct calibration cal;
    struct diag found;
    char t[80], name[120];
    trace_name(s, t, sizeof t);
    snprintf(name, sizeof name, "the calibration from %s", t);
    diag_init(&found);
    if (calibration_load_text(name, text, len, &cal, &found) == STATUS_OK) {
        if (calibration_check_hardware(&cal, hw, &found) == STATUS_OK)
            calibration_check_floor(&cal, hw, &found);
        calibration_release(&cal);
    }
    if (found.status == STATUS_OK)
        return STATUS_OK;
    diag_set(d, found.status,
             "import trace: nothing written: the calibration from %s (%.*s) "
             "is not one roofplan accepts; are the trace, the model (-m), the "
             "plan (--plan: tp, cp, ep, mbs, precision) and the GPU (-g) the "
             "run's?",
             t, diag_utf8_prec(command, 300), command);
    diag_add(d, found.status, "%s", found.msg);
    diag_finish(d);
    return d->status;
}

enum status trace_import_write(const struct trace_import_summary *s,
                               const struct calibration *base,
                               const char *base_name,
                               const char *command,
                               const struct hardware *hw,
                               FILE *out,
                               struct diag *d)
{
    struct puts *p = calloc(1, sizeof *p);
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    enum status st = STATUS_OK;
    if (!p)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    header(s, base, base_name, command, p);
    measured(s, base, base_name, p);
    mem = open_memstream(&text, &len);
    if (!mem) {
        free(p);
        return diag_set(d, STATUS_NOMEM, "out of memory");
    }
    write_text(s, base, base_name, p, mem);
    if (fclose(mem) != 0 || !text) {
        free(text);
        free(p);
        return diag_set(d, STATUS_NOMEM, "out of memory");
    }
    if (check_text(s, hw, command, text, len, d) != STATUS_OK)
        st = d->status;
    else if (fwrite(text, 1, len, out) != len || fflush(out) != 0)
        st =
            diag_set(d, STATUS_IO, "stdout: cannot write: %s", strerror(errno));
    free(text);
    free(p);
    return st;
}

/* ---- The table ---- */

static void ms(FILE *out, double s)
{
    fprintf(out, " %.2f |", s * 1e3);
}

void trace_import_table(const struct trace_import_summary *s, FILE *out)
{
    int c;
    size_t i;
    fprintf(out,
            "%zu kernels (%zu distinct names) in %zu trace%s; %.0f "
            "layer forwards and %.0f backwards of %.0f tokens each\n\n",
            s->kernels, s->names, s->files, s->files == 1 ? "" : "s",
            s->fwd_passes, s->bwd_passes, s->tokens);
    fprintf(out, "| class | kernels | measured ms | speed-of-light ms | "
                 "efficiency |\n|---|---:|---:|---:|---:|\n");
    for (c = 0; c < TRACE_CLASSES; c++) {
        const struct trace_import_class *k = &s->cls[c];
        double t = k->measured_s;
        int j;
        if (k->kernels == 0 && c != TRACE_UNKNOWN)
            continue;
        for (j = 0; j < TRACE_CLASSES; j++)
            if (s->cls[j].into == c)
                t += s->cls[j].measured_s;
        fprintf(out, "| %s | %zu |", trace_class_label(c), k->kernels);
        ms(out, k->measured_s);
        if (k->into >= 0)
            fprintf(out, " (in %s) | |\n", trace_class_label(k->into));
        else if (k->sol_s > 0 && t > 0) {
            ms(out, k->sol_s);
            fprintf(out, " %.2f |\n", k->sol_s / t);
        } else
            fprintf(out, " - | - |\n");
    }
    fprintf(out,
            "\ncompute stream %ld busy %.2f ms of a %.2f ms span; "
            "compute on any stream %.2f ms\n",
            s->compute_stream, s->compute_busy_s * 1e3, s->span_s * 1e3,
            s->compute_all_s * 1e3);
    fprintf(out,
            "communication kernels busy %.2f ms: %.2f ms hidden under "
            "compute, %.2f ms exposed\n",
            s->comm_busy_s * 1e3, s->hidden_s * 1e3,
            (s->comm_busy_s - s->hidden_s) * 1e3);
    if (s->unknowns)
        fprintf(out, "\nunknown kernels (add a pattern to data/kernels.ini), "
                     "longest first:\n");
    for (i = 0; i < s->unknowns; i++)
        fprintf(out, "  %8.3f ms %6zu x  %s\n", s->unknown[i].measured_s * 1e3,
                s->unknown[i].kernels, s->unknown[i].name);
}
