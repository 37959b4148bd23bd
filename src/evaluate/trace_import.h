/*
 * trace_import: a calibration from PyTorch profiler traces of one's own
 * run, for `roofplan import trace FILE...`. The kernels (trace_read) are
 * classified by name (trace_classify), added up per class, and set
 * against the work the model does in what the trace covers:
 *
 * - What it covers: one layer forward per attention-forward kernel and
 *   one layer backward per attention-backward kernel (the attention core
 *   runs once per layer and pass), each over the tokens one GPU holds per
 *   micro-batch under the plan, mbs x seq / (tp cp); the layers are taken
 *   to be of the model's main kind (MoE when it has routed experts).
 * - The work of each class, from the model's own terms (model_layer's
 *   forward FLOPs per GEMM kind, attention core and elementwise bytes per
 *   token): a GEMM does its forward FLOPs once forward and twice backward
 *   (input and weight gradients), each in the class its kernels land in —
 *   weight gradients in gemm_*_wgrad when the trace has such kernels,
 *   routed experts in gemm_fp8_grouped when it has those, else with the
 *   forward; which GEMMs run in FP8 is the plan's precision and the
 *   model's recipe (expected_gemm_fp8). Attention: the core's forward
 *   FLOPs, backward bwd_flops_ratio x forward (the calibration's
 *   counting). Norms and activations move their forward's bytes once
 *   forward and twice backward, as the expected step counts them.
 * - The rate of each class is its work over its summed kernel time; the
 *   speed of light's time is the same work at the hardware's achievable
 *   rates; efficiency = speed-of-light time / measured time.
 * - Overlap: per trace, the compute stream (the stream with the most
 *   non-communication kernel time) and its busy time (the union of its
 *   kernels), and the communication kernels' busy time split into what
 *   runs while some compute kernel runs (hidden) and what does not;
 *   worked out as each file ends, then added up.
 *
 * - The clock: a trace is taken in a running job, at the sustained clock
 *   under the power cap, while a calibration's GEMM and attention rates
 *   are burst rates that the expected step slows by the clock factor
 *   (calibration.h); so the measured compute rates are written divided
 *   by the clock they ran at, lest the power cap count twice: the base's
 *   factor as the expected step applies it to the trace's kernels (its
 *   loss x the compute-bound share of their time, terms.c). Elementwise
 *   bandwidths are memory-bound and written as measured.
 *
 * The calibration written is the base calibration (the hardware's, or
 * --calibration) with what the trace measures put in: the GEMM classes'
 * FP8 (or BF16) rates, the attention kernel at the model's head width,
 * the norm and activation bandwidths, and the FP8 recipe's casts as
 * fp8_scaling.fine_grained_factor (GEMM time / (GEMM + cast time)); every
 * other value kept from the base with a source saying so.
 */
#ifndef PROJ_TRACE_IMPORT_H
#define PROJ_TRACE_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "calibration.h"
#include "diag.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "trace_classify.h"

#define TRACE_IMPORT_FILES_MAX   256 /* trace files in one import */
#define TRACE_IMPORT_UNKNOWN_MAX 10  /* unknown kernel names listed */

/* The kernels read so far, by class and by name. Opaque. */
struct trace_import;

/*
 * What an import keeps, bounded: a trace beyond a bound is refused
 * (STATUS_RANGE, "path: event N: ..."), not read into memory without end.
 * Each kernel of the file being read is kept for the overlap (24 bytes:
 * its interval, stream and class; the file's overlap is added up when it
 * ends and its kernels dropped); each distinct name once.
 */
struct trace_import_limits {
    size_t kernels;    /* kernels of one file (2^22: 96 MiB) */
    size_t names;      /* distinct kernel names over the files */
    size_t name_bytes; /* their text, NULs included */
};
/* The bounds of trace_import_new(): 2^22 kernels in one file (at about
 * 1 KB of JSON a kernel with its CPU operator and launch, a 4 GB trace;
 * one step of DeepSeek-V3 on a GPU holds about 10^5), 2^16 names of
 * 64 MiB (DeepSeek's H800 trace has 89 of 8 KB) */
#define TRACE_IMPORT_LIMITS          \
    {                                \
        1u << 22, 1u << 16, 1u << 26 \
    }

/* An empty import classifying with rules (borrowed: must outlive it),
 * with the bounds TRACE_IMPORT_LIMITS; NULL when out of memory. Free with
 * trace_import_free(). */
struct trace_import *trace_import_new(const struct trace_rules *rules);

/* Sets imp's bounds (before the first read; tests lower them). */
void trace_import_set_limits(struct trace_import *imp,
                             const struct trace_import_limits *limits);

/* Frees imp; NULL is a no-op. */
void trace_import_free(struct trace_import *imp);

/*
 * Reads one trace file (trace_read_file(): plain or gzip JSON; progress
 * may be NULL) and adds its kernels. On failure the message names the
 * file and the event, and the import holds part of the file: free it.
 */
enum status trace_import_read(struct trace_import *imp,
                              const char *path,
                              FILE *progress,
                              struct diag *d);

/* The same over JSON in memory, named name (tests, fuzzing). */
enum status trace_import_read_mem(struct trace_import *imp,
                                  const void *data,
                                  size_t len,
                                  const char *name,
                                  struct diag *d);

/* One class over the traces. */
struct trace_import_class {
    size_t kernels;
    double measured_s; /* summed kernel durations */
    double work;       /* FLOPs, or bytes when is_bytes; 0: no model term */
    bool is_bytes;
    double sol_s; /* work at the hardware's achievable rate */
    int into;     /* the class whose efficiency counts this time; -1 */
};

/* A name no pattern matched, with its time. */
struct trace_import_unknown {
    char name[160]; /* the start of the name */
    size_t kernels;
    double measured_s;
};

/* What the traces say, against the model and plan. */
struct trace_import_summary {
    struct trace_import_class cls[TRACE_CLASSES];
    size_t files, kernels, names;
    char first_file[256];          /* the first trace's base name */
    char gpu[128];                 /* the trace's device name, or "" */
    char hardware_gpu[128];        /* the hardware file's gpu.name (-g) */
    char date[16];                 /* the first kernel's UTC date, or "" */
    double fwd_passes, bwd_passes; /* layer forwards and backwards */
    double tokens;                 /* per micro-batch per GPU */
    /* overlap, summed over the traces */
    long compute_stream; /* of the first trace */
    double span_s, compute_busy_s, compute_all_s, comm_busy_s, hidden_s;
    /* measured calibration values; 0: not measured */
    double gemm_tflops[CALIBRATION_GEMM_COUNT][CALIBRATION_PRECISION_COUNT];
    double gemm_m[CALIBRATION_GEMM_COUNT];
    size_t gemm_kernels[CALIBRATION_GEMM_COUNT][CALIBRATION_PRECISION_COUNT];
    double head_dim, attn_fwd_tflops, attn_fwd_bwd_tflops, attn_bwd_ratio;
    double v_head_dim;   /* the attention kernel's value width */
    double attn_seq_len; /* tokens it ran over: seq_len / cp */
    /* the clock the trace ran at, from the base's sustained / burst
     * factor, (0, 1]: the GEMM and attention rates above are the
     * measured ones over it (see the file comment) */
    double clock;
    double norm_tbps, activation_tbps, fine_factor;
    /* the chunked scans' forward rates (enum calibration_scan), over the
     * clock as the attention's; 0: not measured */
    double scan_fwd_tflops[CALIBRATION_SCAN_COUNT];
    double stack_passes; /* forwards of the whole layer stack the trace
                          * covers: attention forwards over the model's
                          * attention layers */
    size_t unknowns;     /* entries in unknown */
    struct trace_import_unknown unknown[TRACE_IMPORT_UNKNOWN_MAX];
};

/*
 * Sets the kernels read against model m under plan p (checked) on
 * hardware hw, with base the calibration whose counting (the attention
 * backward ratio) the rates follow (may be NULL: 2.5). Returns
 * STATUS_PARSE when the traces hold no attention kernel: the layers they
 * cover cannot be counted (the message names the first trace).
 */
enum status trace_import_summarize(const struct trace_import *imp,
                                   const struct model *m,
                                   const struct hardware *hw,
                                   const struct plan *p,
                                   const struct calibration *base,
                                   struct trace_import_summary *s,
                                   struct diag *d);

/*
 * Writes the calibration file: base (its values and, where the trace is
 * silent, a source naming base_name) with the measured values of s put
 * in, each with a source naming the trace, the kernels and their count.
 * Each GEMM class the trace measures gets one M, whole, with a rate of
 * each precision the trace or the base has (the base's at that M); the
 * attention kernel one head width with its v width and the sequence it
 * ran over. The whole text is built first and checked as `roofplan
 * check` would check it beside hw (the hardware the trace was set
 * against, whose gpu.name it names): if the loader or hw's peaks or
 * speed-of-light rates refuse it, nothing is written and d says why
 * (STATUS_RANGE or STATUS_PARSE, the first line naming the trace and
 * command, "model M, plan P"). Then it is written with one call: on
 * failure (STATUS_IO, STATUS_NOMEM) nothing or all of it may have
 * reached out, never a part the caller cannot tell from whole.
 */
enum status trace_import_write(const struct trace_import_summary *s,
                               const struct calibration *base,
                               const char *base_name,
                               const char *command,
                               const struct hardware *hw,
                               FILE *out,
                               struct diag *d);

/* The per-class table and the overlap, as Markdown, to out. */
void trace_import_table(const struct trace_import_summary *s, FILE *out);

#endif
