/*
 * nccl_import_write: imported runs as a calibration file's network
 * sections (see the header).
 */
#include "nccl_import_write.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#include "calibration.h"
#include "nccl_import.h"

#define LINE_MAX_CHARS 198 /* a data-file line (datafile.h) */

/* Picks at most k rows of run, evenly spaced in ln(size), ends kept. */
static size_t pick(const struct nccl_import_run *run, size_t k, size_t *idx)
{
    double lo, hi;
    size_t i, j, prev = 0;
    if (run->n <= k) {
        for (i = 0; i < run->n; i++)
            idx[i] = i;
        return run->n;
    }
    lo = log(run->bytes[0]);
    hi = log(run->bytes[run->n - 1]);
    idx[0] = 0;
    for (i = 1; i < k; i++) {
        double target = lo + (hi - lo) * (double)i / (double)(k - 1);
        size_t best = prev + 1;
        /* leave a row for each pick still to come */
        for (j = prev + 1; j <= run->n - (k - i); j++)
            if (fabs(log(run->bytes[j]) - target) <
                fabs(log(run->bytes[best]) - target))
                best = j;
        idx[i] = best;
        prev = best;
    }
    return k;
}

/* Formats "key = v1 v2 ..." for the picked rows; false if too long. */
static bool list_line(char *buf,
                      size_t size,
                      const char *key,
                      const double *v,
                      const size_t *idx,
                      size_t n,
                      const char *fmt)
{
    size_t used, i;
    int w = snprintf(buf, size, "%s =", key);
    if (w < 0 || (size_t)w >= size)
        return false;
    used = (size_t)w;
    for (i = 0; i < n; i++) {
        w = snprintf(buf + used, size - used, " ");
        if (w < 0 || (size_t)w >= size - used)
            return false;
        used += (size_t)w;
        w = snprintf(buf + used, size - used, fmt, v[idx[i]]);
        if (w < 0 || (size_t)w >= size - used)
            return false;
        used += (size_t)w;
    }
    return used <= LINE_MAX_CHARS;
}

/* Text safe for an INI value: printable, no ';' (an inline comment). */
static void ini_text(char *dst, size_t size, const char *src)
{
    size_t i;
    snprintf(dst, size, "%s", src);
    for (i = 0; dst[i]; i++)
        if ((unsigned char)dst[i] < 0x20 || (unsigned char)dst[i] >= 0x7f ||
            dst[i] == ';')
            dst[i] = '?';
}

static void
source_text(const struct nccl_import_run *run, char *buf, size_t size)
{
    char gpu[128], where[300], version[160], nodes[48];
    const char *base = strrchr(run->path, '/');
    const char *how = run->busbw_from_time ? "busbw = size / out-of-place "
                                             "time x bus factor"
                                           : "out-of-place busbw";
    size_t limit = LINE_MAX_CHARS - strlen("source = ");
    int pass, w = 0;
    ini_text(gpu, sizeof gpu, run->gpu);
    ini_text(version, sizeof version, run->version);
    if (run->nodes > 0)
        snprintf(nodes, sizeof nodes, " on %ld node%s", run->nodes,
                 run->nodes == 1 ? "" : "s");
    else
        nodes[0] = '\0';
    /* The whole path if it fits, else its last part, else cut short. */
    for (pass = 0; pass < 2; pass++) {
        ini_text(where, sizeof where,
                 pass == 0 || !base ? run->path : base + 1);
        w = snprintf(buf, size,
                     "nccl-tests %s%s%s, %ld ranks%s%s%s%s, %s, "
                     "%s:%ld",
                     run->test, version[0] ? " " : "", version, run->ranks,
                     nodes, gpu[0] ? " (" : "", gpu, gpu[0] ? ")" : "", how,
                     where, run->line);
        if (w >= 0 && (size_t)w <= limit)
            return;
    }
    if (limit + 1 < size)
        snprintf(buf + limit - 3, size - (limit - 3), "...");
}

enum status nccl_import_write(const struct nccl_import *imp,
                              FILE *out,
                              const char *name,
                              struct diag *d)
{
    size_t l, c, i, curves = 0;
    for (i = 0; i < imp->n; i++)
        curves += !imp->runs[i].skipped;
    if (curves == 0)
        return diag_add(d, STATUS_USAGE,
                        "import nccl: no all_reduce, all_gather, "
                        "reduce_scatter or alltoall run to import");
    fprintf(out, "; Network curves read from nccl-tests output by `roofplan "
                 "import nccl`:\n; the [network_*] sections of a calibration "
                 "file (busbw in GB/s by message size).\n");
    for (i = 0; i < imp->n; i++) {
        const struct nccl_import_run *run = &imp->runs[i];
        const char *base = strrchr(run->path, '/');
        char where[300], line[LINE_MAX_CHARS + 1];
        int w;
        if (!run->skipped)
            continue;
        /* a data-file line: the whole path if it fits, else its last
         * part, else cut short */
        ini_text(where, sizeof where, run->path);
        w = snprintf(line, sizeof line,
                     "; skipped %s:%ld: %s is not a collective roofplan "
                     "models",
                     where, run->line, run->test);
        if ((w < 0 || (size_t)w >= sizeof line) && base) {
            ini_text(where, sizeof where, base + 1);
            w = snprintf(line, sizeof line,
                         "; skipped %s:%ld: %s is not a collective roofplan "
                         "models",
                         where, run->line, run->test);
        }
        if (w < 0 || (size_t)w >= sizeof line) /* ends "...", a comment */
            memcpy(line + sizeof line - 4, "...", 4);
        fprintf(out, "%s\n", line);
    }
    for (l = 0; l < CALIBRATION_LINK_COUNT; l++) {
        for (c = 0; c < CALIBRATION_COLLECTIVE_COUNT; c++) {
            for (i = 0; i < imp->n; i++) {
                const struct nccl_import_run *run = &imp->runs[i];
                char section[64], src[400];
                char bytes[512], busbw[512];
                size_t idx[NCCL_IMPORT_POINTS], k = NCCL_IMPORT_POINTS, n;
                if (run->skipped || run->link != l || run->kind != c)
                    continue;
                do {
                    n = pick(run, k, idx);
                } while ((!list_line(bytes, sizeof bytes, "bytes", run->bytes,
                                     idx, n, "%.0f") ||
                          !list_line(busbw, sizeof busbw, "busbw_gbps",
                                     run->busbw_gbps, idx, n, "%.6g")) &&
                         --k >= 2);
                calibration_network_section((enum calibration_link)l,
                                            (enum calibration_collective)c,
                                            section, sizeof section);
                source_text(run, src, sizeof src);
                fprintf(out, "\n[%s]\nsource = %s\n", section, src);
                if (run->avg_busbw_gbps >= 0)
                    fprintf(out,
                            "; nccl-tests \"Avg bus bandwidth\": %g GB/s\n",
                            run->avg_busbw_gbps);
                if (n < run->n)
                    fprintf(out,
                            "; %zu of the %zu sizes, evenly spaced in "
                            "log size\n",
                            n, run->n);
                fprintf(out, "%s\n%s\nranks = %ld\nnodes = %ld\n", bytes, busbw,
                        run->ranks, run->nodes);
            }
        }
    }
    if (ferror(out))
        return diag_add(d, STATUS_IO, "%s: cannot write: %s", name,
                        strerror(errno));
    return STATUS_OK;
}
