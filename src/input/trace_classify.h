/*
 * trace_classify: which kind of work a GPU kernel does, from its name,
 * by the patterns of a kernel file (data/kernels.ini): a new library's
 * kernels need a line there, not code.
 *
 * The file: a [kernels] section with its `source`, then one section per
 * class (a section may come back; the file's order is the order of the
 * tries), each with the `library` its kernels come from and one or more
 * `pattern` lines, fnmatch(3) patterns matched against the whole kernel
 * name (`*` matches any text, `/` included):
 *
 *   [kernels]
 *   source = the libraries' kernel names, read from their sources
 *   [gemm_fp8_grouped]
 *   library = DeepGEMM (github.com/deepseek-ai/DeepGEMM)
 *   pattern = *m_grouped_fp8*
 *
 * A name takes the class of the first pattern it matches, else
 * TRACE_UNKNOWN (listed by the caller, never dropped). Owns: the class
 * list and the rules. Calls inih and fnmatch.
 */
#ifndef PROJ_TRACE_CLASSIFY_H
#define PROJ_TRACE_CLASSIFY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"

/* The classes, in the order of the table. */
enum trace_class {
    TRACE_GEMM_FP8,         /* FP8 GEMMs: projections, dense, shared, dgrad */
    TRACE_GEMM_FP8_GROUPED, /* FP8 grouped GEMMs over experts, fwd + dgrad */
    TRACE_GEMM_FP8_WGRAD,   /* FP8 weight-gradient GEMMs */
    TRACE_GEMM_BF16,        /* BF16 GEMMs (every pass) */
    TRACE_ATTN_FWD,         /* attention forward, one kernel per layer */
    TRACE_ATTN_BWD,         /* attention backward, one kernel per layer */
    TRACE_ATTN_AUX,         /* the backward's pre- and post-processing */
    TRACE_SCAN_LINEAR,      /* Gated DeltaNet's chunked delta rule, fwd */
    TRACE_SCAN_LINEAR_BWD,  /* its backward */
    TRACE_SCAN_SSD,         /* Mamba-2's chunked SSD scan, forward */
    TRACE_SCAN_SSD_BWD,     /* its backward */
    TRACE_NORM,             /* RMSNorm / LayerNorm, forward and backward */
    TRACE_ACTIVATION,       /* SwiGLU / GeLU, forward and backward */
    TRACE_ROPE,             /* rotary position embedding */
    TRACE_FP8_CAST,         /* FP8 quantisation, casts and transposes */
    TRACE_COPY,             /* copies, adds, fills, other elementwise */
    TRACE_OTHER,            /* routing, top-k, reductions: no model term */
    TRACE_NCCL_ALL_REDUCE,
    TRACE_NCCL_ALL_GATHER,
    TRACE_NCCL_REDUCE_SCATTER,
    TRACE_NCCL_ALLTOALL,
    TRACE_NCCL_SENDRECV,
    TRACE_EP_DISPATCH, /* expert-parallel dispatch (DeepEP, ...) */
    TRACE_EP_COMBINE,
    TRACE_EP_NOTIFY, /* their layout and notify kernels */
    TRACE_UNKNOWN,   /* matched no pattern */
    TRACE_CLASSES
};

/* "gemm_fp8", ...: the section name of class c ("unknown" for
 * TRACE_UNKNOWN); NULL for a value out of range. */
const char *trace_class_key(int c);

/* "FP8 GEMM", ...: a table label. */
const char *trace_class_label(int c);

/* Whether class c is communication (NCCL or expert-parallel kernels). */
bool trace_class_is_comm(int c);

/* The kernel file's keys and the classes, as Markdown tables (for
 * `roofplan schema` and data/README.md). */
void trace_classify_markdown(FILE *out);

/* The rules of one kernel file. Opaque. */
struct trace_rules;

/*
 * Loads the kernel file at path. Every problem is reported, one line
 * each, as "path:line: [section] key: problem": an unknown class or key,
 * a pattern before its section's library, an empty or malformed pattern,
 * no [kernels] section first, no source, no pattern at all. Returns NULL
 * then (d: STATUS_PARSE, or STATUS_IO). Free with trace_rules_free().
 */
struct trace_rules *trace_rules_load(const char *path, struct diag *d);

/* Frees rules; NULL is a no-op. */
void trace_rules_free(struct trace_rules *rules);

/*
 * The class of a kernel named name, and (library may be NULL) the library
 * of the rule that matched it ("" for TRACE_UNKNOWN; borrowed from rules).
 */
int trace_rules_classify(const struct trace_rules *rules,
                         const char *name,
                         const char **library);

/* The kernel file's source text (borrowed). */
const char *trace_rules_source(const struct trace_rules *rules);

#endif
