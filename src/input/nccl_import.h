/*
 * nccl_import: reads the stdout of NVIDIA's nccl-tests (all_reduce_perf,
 * all_gather_perf, reduce_scatter_perf, alltoall_perf) and writes the bus
 * bandwidth curves it measured as the [network_*] sections of a
 * calibration file (calibration.h), for `roofplan import nccl FILE...`.
 *
 * What it reads, per run (a file may hold several, one after the other):
 *   # Collective test starting: all_reduce_perf      (names the test)
 *   # nThread 1 nGpus 8 minBytes 8 maxBytes ...       (starts a run)
 *   #  Rank  0 Group  0 Pid 1586058 on HOST device  0 [0000:29:00] GPU
 *   #       size  count  type  redop  root  time  algbw  busbw  #wrong ...
 *          8388608  2097152  float  sum  -1  79.89  105.01  183.76  0 ...
 *   # Avg bus bandwidth    : 123.961
 * Columns are found by their header names, so older layouts (no `root`,
 * `error` for `#wrong`, `bytes` for `size`) read too; lines of other
 * programs between them (MPI warnings, "NCCL version ...") are skipped and
 * leading blanks are ignored. The curve is the out-of-place bus bandwidth,
 * recomputed from the time column where the rank count is known (the
 * printed busbw has two decimals: small sizes read 0.00) and checked
 * against the printed busbw.
 *
 * Which collective: the "# Collective test starting: NAME" line; older
 * nccl-tests do not print it, and then the caller's kind hint, else the
 * file name (it must contain all_reduce, all_gather, reduce_scatter or
 * alltoall). Other tests (sendrecv_perf, broadcast_perf, ...) are skipped
 * and listed as comments in the fragment.
 *
 * Which link: intra-node when every "#  Rank" line names the same host,
 * inter-node when they name several; the caller's hint overrides this when
 * the output has no device list, and must agree with it when it has one.
 * ranks = the rank lines, nodes = the distinct hosts (0 = unknown when the
 * device list is missing).
 *
 * Owns: reading the output into struct nccl_import. Calls datafile's
 * strict numbers and calibration's collective and link names; writing the
 * fragment is nccl_import_write's (this header includes its header, so
 * the command's code includes one).
 */
#ifndef PROJ_NCCL_IMPORT_H
#define PROJ_NCCL_IMPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "calibration.h"
#include "diag.h"
#include "nccl_import_write.h"

#define NCCL_IMPORT_ROWS_MAX 128 /* data rows kept from one run */
#define NCCL_IMPORT_RUNS_MAX 32  /* runs, imported and skipped */
#define NCCL_IMPORT_POINTS   16  /* points written per curve, at most */

enum nccl_import_link {
    NCCL_IMPORT_LINK_AUTO, /* from the hosts in the device list */
    NCCL_IMPORT_LINK_INTRA,
    NCCL_IMPORT_LINK_INTER
};

/* One nccl-tests run found in a file. */
struct nccl_import_run {
    const char *path; /* nccl_import_read()'s path (borrowed), any length */
    long line;        /* the run's first line */
    char test[64];    /* "all_reduce_perf", as the output names it */
    bool skipped;     /* a test roofplan does not model */
    enum calibration_collective kind;
    enum calibration_link link;
    long ranks;        /* 0: unknown */
    long nodes;        /* 0: unknown */
    char gpu[128];     /* device name of rank 0, "" if not listed */
    char version[128]; /* "# nccl-tests version ..." text, "" if absent */
    size_t n;          /* rows kept: size > 0 and busbw > 0 */
    double bytes[NCCL_IMPORT_ROWS_MAX];
    double busbw_gbps[NCCL_IMPORT_ROWS_MAX];
    bool busbw_from_time;  /* busbw recomputed from the time column */
    double avg_busbw_gbps; /* "# Avg bus bandwidth" line; -1 if absent */
};

/* Runs read so far; zero it (or `= {0}`) before the first read. */
struct nccl_import {
    size_t n;
    struct nccl_import_run runs[NCCL_IMPORT_RUNS_MAX];
};

/*
 * Reads the nccl-tests output at path and appends its runs to imp.
 * link_hint: see the file comment. kind_hint: "all_reduce" (or
 * "all_reduce_perf"), ... for output that does not name its test; NULL
 * to take it from the output or the file name. Bad input returns
 * STATUS_PARSE with "path:line: problem": not nccl-tests output (no run
 * header), a run with no data rows, a row that does not parse, sizes not
 * ascending, the output of several runs interleaved (a rank listed twice,
 * or a run starting before the previous one printed its table), a link
 * hint the device list contradicts, a second curve for the same link and
 * collective, or a different GPU than an earlier run. STATUS_USAGE for a
 * kind_hint that names no collective; STATUS_IO if path cannot be read
 * (input_file_read(): a FIFO or directory is refused without waiting).
 * On failure imp keeps the runs of earlier calls only. The runs point at
 * path: it must live as long as imp (argv does).
 */
enum status nccl_import_read(struct nccl_import *imp,
                             const char *path,
                             enum nccl_import_link link_hint,
                             const char *kind_hint,
                             struct diag *d);

#endif
