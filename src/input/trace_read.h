/*
 * trace_read: the kernels of a PyTorch profiler trace (Kineto's Chrome
 * trace JSON: {"traceEvents": [{"cat": "kernel", "name": ..., "ts": µs,
 * "dur": µs, "args": {"stream": N, "grid": [x, y, z]}}, ...]}; "Kernel"
 * in Kineto before April 2022, PyTorch 1.8 to 1.11), read as
 * a stream with yajl's event parser, gzip-compressed or not (zlib), so a
 * trace of hundreds of MB is read in constant memory: each kernel event
 * is handed to the caller's function as it ends, nothing else is kept.
 *
 * Also kept: the first device's name ("deviceProperties": [{"name": ...}])
 * and the count of events. Not read: CPU operators, annotations, flows.
 *
 * Bad input is refused with "path: event N: key: problem" (N counts the
 * elements of traceEvents from 0; before the array, "path: byte B"):
 * not a regular file (a FIFO is refused before it is opened), gzip data
 * that does not inflate, is cut short, or is followed by anything but
 * another gzip member ("path: compressed byte B: ..."), not JSON
 * or truncated JSON (yajl's message), nesting deeper than
 * TRACE_READ_DEPTH_MAX, a string longer than TRACE_READ_STRING_MAX or
 * a number longer than TRACE_READ_NUMBER_MAX (both refused before yajl
 * buffers them), a kernel without a name, ts or dur,
 * a number that is not finite, a negative duration, one above
 * TRACE_READ_DUR_MAX_US or one between 0 and TRACE_READ_DUR_MIN_US
 * (what no profiler measures: its rates would pass any number), a start
 * time beyond TRACE_READ_TS_MAX_US, no traceEvents array, no kernel events.
 *
 * Owns: the reading. Classifying and adding up the kernels is the
 * caller's (trace_import).
 */
#ifndef PROJ_TRACE_READ_H
#define PROJ_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"

#define TRACE_READ_DEPTH_MAX  64         /* nested arrays and objects */
#define TRACE_READ_STRING_MAX (1L << 20) /* bytes of one JSON string */
/* characters of one JSON number: a double printed whole is at most 24
 * ("-1.2345678901234567e-308"); the profiler's clock, 21 with its
 * fraction */
#define TRACE_READ_NUMBER_MAX 64
#define TRACE_READ_DUR_MAX_US 3.6e9 /* one hour: longer is absurd */
/* the least duration but 0: CUPTI's clock counts nanoseconds, Kineto
 * writes them in µs with three decimals */
#define TRACE_READ_DUR_MIN_US 1e-3
/* a start time, µs either side of the clock's zero: 2^53, the most a
 * double holds to the microsecond (285 years; the profiler's clock, µs
 * since 1970, is near 1.7e15) */
#define TRACE_READ_TS_MAX_US 9007199254740992.0
#define TRACE_READ_GPU_MAX   128 /* device name kept, bytes */

/* One kernel event, as read; the strings are borrowed for the call. */
struct trace_kernel {
    const char *name;
    double ts_us;  /* start, µs (the trace's clock), |ts| <= TS_MAX */
    double dur_us; /* duration, µs: 0, or DUR_MIN_US .. DUR_MAX_US */
    long stream;   /* args.stream; -1 when absent */
    long grid[3];  /* args.grid; 0 when absent */
    size_t event;  /* index in traceEvents, from 0 */
};

/*
 * Called for each kernel event; returns STATUS_OK to go on, anything
 * else (with d filled) to stop the read with that status.
 */
typedef enum status (*trace_read_fn)(void *ctx,
                                     const struct trace_kernel *k,
                                     struct diag *d);

/* What one read saw. */
struct trace_read_info {
    size_t events;  /* elements of traceEvents */
    size_t kernels; /* of them, cat "kernel" (or "Kernel") */
    /* deviceProperties[0].name, or "": as datafile_text_quote() shows
     * it, ';' replaced by '?' (it may become a data-file line) */
    char gpu[TRACE_READ_GPU_MAX];
    double bytes; /* bytes of JSON read (uncompressed) */
};

/*
 * Reads the trace at path (plain JSON or gzip) and calls fn(ctx, ...) for
 * each kernel event in file order. progress (may be NULL: quiet) receives
 * a "\r"-updated line of the share read, about every 1% of the file, and
 * a final newline. info (may be NULL) receives what was seen. Returns
 * STATUS_OK; STATUS_IO when path cannot be opened or read; STATUS_PARSE
 * for the bad input listed above; fn's status when it stops the read.
 */
enum status trace_read_file(const char *path,
                            trace_read_fn fn,
                            void *ctx,
                            FILE *progress,
                            struct trace_read_info *info,
                            struct diag *d);

/*
 * The same over len bytes of JSON in memory (not gzip), named `name` in
 * messages: for tests and the fuzz target.
 */
enum status trace_read_mem(const void *data,
                           size_t len,
                           const char *name,
                           trace_read_fn fn,
                           void *ctx,
                           struct trace_read_info *info,
                           struct diag *d);

#endif
