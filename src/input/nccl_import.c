/*
 * nccl_import: a line reader for nccl-tests' stdout, one run at a time.
 *
 * The layout followed is nccl-tests' own (src/util.cu: writeDeviceReport,
 * writeResultHeader, writeBenchmarkLinePreamble/Body, writeResultFooter):
 * run header lines, then "#  Rank" device lines, then the column header,
 * one row per size, and the "# Avg bus bandwidth" footer. Rows are split
 * on blanks and read through the column header, not by fixed offsets: the
 * widths changed between versions and logs are often re-indented.
 */
#include "nccl_import.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "input_file.h"

#define FILE_MAX_BYTES ((size_t)64 << 20)
#define TOKENS_MAX     64
/* A size must be a whole number of bytes that a double holds exactly
 * (2^53, IEEE 754 binary64's 53-bit significand), so that "%.0f" writes
 * it back as read and sizes that ascend still ascend in the fragment. */
#define BYTES_MAX 9007199254740992.0
/* A bus bandwidth at most the GB/s a hardware file accepts for a link
 * (hardware.c, cluster.nvlink_gbps and ib_gbps: at most 1e6): a tiny
 * time gives a busbw no link moves, or inf. */
#define BUSBW_MAX_GBPS 1e6

struct host {
    char name[128];
};

/* The run being read. */
struct reader {
    const char *path;
    struct nccl_import_run run;
    bool open;          /* a run has started */
    bool seen_version;  /* its "# nccl-tests version" line */
    bool seen_starting; /* its "# Collective test starting" line */
    bool seen_nthread;  /* its "# nThread" line */
    long header_line;   /* its column header, 0 if none yet */
    int col_size, col_type, col_redop, col_time, col_busbw;
    char first_type[32], first_redop[32]; /* of its first row */
    size_t nrows;                         /* rows of the curve, as printed */
    double row_bytes[NCCL_IMPORT_ROWS_MAX];
    double row_time_us[NCCL_IMPORT_ROWS_MAX]; /* out-of-place; -1: none */
    double row_busbw[NCCL_IMPORT_ROWS_MAX];   /* printed, two decimals */
    long row_line[NCCL_IMPORT_ROWS_MAX];
    long nranks;          /* "#  Rank" lines */
    unsigned char *ranks; /* seen flags by rank number */
    size_t ranks_cap;
    struct host *hosts; /* the distinct hosts, in order of appearance */
    size_t nhosts, hosts_cap;
    size_t *slot;              /* hash index into hosts: index + 1, 0 empty */
    size_t nslots;             /* a power of two, at least 2 x hosts_cap */
    char pending_version[128]; /* a version line before its run header */
    long pending_line;
};

/* Splits s in place on blanks; returns the number of tokens. */
static int tokenize(char *s, char **tok)
{
    int n = 0;
    while (*s && n < TOKENS_MAX) {
        while (*s == ' ' || *s == '\t')
            *s++ = '\0';
        if (!*s)
            break;
        tok[n++] = s;
        while (*s && *s != ' ' && *s != '\t')
            s++;
    }
    return n;
}

static bool all_digits(const char *s)
{
    return *s && strspn(s, "0123456789") == strlen(s);
}

static bool starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* The collective a test or file name names, by the names nccl-tests uses. */
static bool kind_from_name(const char *name, enum calibration_collective *out)
{
    static const struct {
        const char *word;
        enum calibration_collective kind;
    } words[] = {
        {"reduce_scatter", CALIBRATION_REDUCE_SCATTER},
        {"reducescatter", CALIBRATION_REDUCE_SCATTER},
        {"all_gather", CALIBRATION_ALL_GATHER},
        {"allgather", CALIBRATION_ALL_GATHER},
        {"alltoall", CALIBRATION_ALLTOALL},
        {"all_reduce", CALIBRATION_ALL_REDUCE},
        {"allreduce", CALIBRATION_ALL_REDUCE},
    };
    size_t i;
    for (i = 0; i < sizeof words / sizeof words[0]; i++) {
        if (strstr(name, words[i].word)) {
            *out = words[i].kind;
            return true;
        }
    }
    return false;
}

/* "all_reduce_perf" names exactly a collective roofplan models. */
static bool kind_from_test(const char *test, enum calibration_collective *out)
{
    char base[64];
    size_t len = strlen(test);
    if (len > 5 && strcmp(test + len - 5, "_perf") == 0)
        len -= 5;
    snprintf(base, sizeof base, "%.*s", (int)len, test);
    return calibration_collective_from_key(base, out);
}

static void reader_reset_run(struct reader *r, long line)
{
    memset(&r->run, 0, sizeof r->run);
    r->run.path = r->path;
    r->run.line = r->pending_line ? r->pending_line : line;
    r->run.avg_busbw_gbps = -1;
    snprintf(r->run.version, sizeof r->run.version, "%s", r->pending_version);
    r->seen_version = r->pending_version[0] != '\0';
    r->pending_version[0] = '\0';
    r->pending_line = 0;
    r->open = true;
    r->seen_starting = r->seen_nthread = false;
    r->header_line = 0;
    r->col_size = r->col_type = r->col_redop = r->col_time = -1;
    r->col_busbw = -1;
    r->nrows = 0;
    r->first_type[0] = r->first_redop[0] = '\0';
    r->nranks = 0;
    if (r->ranks)
        memset(r->ranks, 0, r->ranks_cap);
    r->nhosts = 0;
    if (r->slot)
        memset(r->slot, 0, r->nslots * sizeof *r->slot);
}

static enum status
interleaved(const struct reader *r, long line, const char *what, struct diag *d)
{
    return diag_add(d, STATUS_PARSE,
                    "%s:%ld: %s: the output of several runs is interleaved "
                    "(processes started without MPI each print their own "
                    "run); use nccl-tests built with MPI=1, or give each "
                    "run its own file",
                    r->path, line, what);
}

/* FNV-1a over the host name as stored (cut to the size of struct host). */
static size_t host_hash(const char *name)
{
    uint64_t h = 14695981039346656037ULL;
    for (; *name; name++) {
        h ^= (unsigned char)*name;
        h *= 1099511628211ULL;
    }
    return (size_t)h;
}

/* Rebuilds the hash index of r's hosts with nslots slots (a power of 2). */
static bool host_rehash(struct reader *r, size_t nslots)
{
    size_t *slot = calloc(nslots, sizeof *slot), i;
    if (!slot)
        return false;
    for (i = 0; i < r->nhosts; i++) {
        size_t k = host_hash(r->hosts[i].name) & (nslots - 1);
        while (slot[k])
            k = (k + 1) & (nslots - 1);
        slot[k] = i + 1;
    }
    free(r->slot);
    r->slot = slot;
    r->nslots = nslots;
    return true;
}

/*
 * Adds host to r's distinct hosts unless it is there: a hash lookup
 * (open addressing, at most half full), so a device list of n ranks on n
 * hosts costs O(n), not O(n^2). False when out of memory.
 */
static bool host_add(struct reader *r, const char *host)
{
    struct host key;
    size_t k, i;
    snprintf(key.name, sizeof key.name, "%s", host);
    if (r->nslots == 0 && !host_rehash(r, 64))
        return false;
    k = host_hash(key.name) & (r->nslots - 1);
    while (r->slot[k]) {
        if (strcmp(r->hosts[r->slot[k] - 1].name, key.name) == 0)
            return true;
        k = (k + 1) & (r->nslots - 1);
    }
    if (r->nhosts == r->hosts_cap) {
        size_t cap = r->hosts_cap ? 2 * r->hosts_cap : 16;
        struct host *grown = realloc(r->hosts, cap * sizeof *grown);
        if (!grown)
            return false;
        r->hosts = grown;
        r->hosts_cap = cap;
    }
    i = r->nhosts++;
    r->hosts[i] = key;
    if (2 * r->nhosts > r->nslots)
        return host_rehash(r, 2 * r->nslots);
    r->slot[k] = i + 1;
    return true;
}

/* Records one "#  Rank N ... on HOST device D [bus] NAME" line. */
static enum status rank_line(struct reader *r,
                             char **tok,
                             int n,
                             const char *text,
                             long line,
                             struct diag *d)
{
    long rank;
    const char *host = NULL;
    int i;
    size_t len;
    char what[64];
    if (n < 2 || !datafile_parse_long(tok[1], &rank) || rank < 0 ||
        rank > 10000000)
        return STATUS_OK; /* a truncated "..." line: not a device line */
    for (i = 2; i + 1 < n; i++)
        if (strcmp(tok[i], "on") == 0)
            host = tok[i + 1];
    if (!host)
        return STATUS_OK;
    if ((size_t)rank >= r->ranks_cap) {
        size_t cap = r->ranks_cap ? r->ranks_cap : 64;
        unsigned char *grown;
        while (cap <= (size_t)rank)
            cap *= 2;
        grown = realloc(r->ranks, cap);
        if (!grown)
            return diag_add(d, STATUS_NOMEM, "%s: out of memory", r->path);
        memset(grown + r->ranks_cap, 0, cap - r->ranks_cap);
        r->ranks = grown;
        r->ranks_cap = cap;
    }
    if (r->ranks[rank]) {
        snprintf(what, sizeof what, "rank %ld is listed twice", rank);
        return interleaved(r, line, what, d);
    }
    r->ranks[rank] = 1;
    r->nranks++;
    if (!host_add(r, host))
        return diag_add(d, STATUS_NOMEM, "%s: out of memory", r->path);
    if (rank == 0 || !r->run.gpu[0]) {
        /* The device name follows the "[bus id]" after "device N". */
        const char *close = strchr(text, ']');
        if (close) {
            close++;
            while (*close == ' ' || *close == '\t')
                close++;
            snprintf(r->run.gpu, sizeof r->run.gpu, "%s", close);
            len = strlen(r->run.gpu);
            while (len > 0 &&
                   (r->run.gpu[len - 1] == ' ' || r->run.gpu[len - 1] == '\t'))
                r->run.gpu[--len] = '\0';
        }
    }
    return STATUS_OK;
}

/* The column header: where size, type, redop and busbw are. */
static void header_line(struct reader *r, char **tok, int n, long line)
{
    int i;
    r->header_line = line;
    for (i = 0; i < n; i++) {
        if (r->col_size < 0 &&
            (strcmp(tok[i], "size") == 0 || strcmp(tok[i], "bytes") == 0))
            r->col_size = i;
        else if (r->col_type < 0 && strcmp(tok[i], "type") == 0)
            r->col_type = i;
        else if (r->col_redop < 0 &&
                 (strcmp(tok[i], "redop") == 0 || strcmp(tok[i], "op") == 0))
            r->col_redop = i;
        else if (r->col_time < 0 && (strcmp(tok[i], "time") == 0 ||
                                     strcmp(tok[i], "cputime") == 0))
            r->col_time = i; /* the first: out-of-place */
        else if (r->col_busbw < 0 && strcmp(tok[i], "busbw") == 0)
            r->col_busbw = i;
    }
}

static enum status
data_row(struct reader *r, char **tok, int n, long line, struct diag *d)
{
    struct nccl_import_run *run = &r->run;
    double size, busbw, time_us;
    const char *type =
        r->col_type >= 0 && r->col_type < n ? tok[r->col_type] : "";
    const char *redop =
        r->col_redop >= 0 && r->col_redop < n ? tok[r->col_redop] : "";
    enum calibration_collective kind;
    if (run->test[0] && !kind_from_test(run->test, &kind))
        return STATUS_OK; /* a test roofplan does not model: skipped */
    if (n <= r->col_busbw || n <= r->col_size)
        return diag_add(d, STATUS_PARSE,
                        "%s:%ld: data row: %d columns, but the header (line "
                        "%ld) puts busbw in column %d",
                        r->path, line, n, r->header_line, r->col_busbw + 1);
    if (!datafile_parse_double(tok[r->col_size], &size) || size < 0 ||
        size != floor(size) || size > BYTES_MAX)
        return diag_add(d, STATUS_PARSE,
                        "%s:%ld: size: expected a byte count (a whole number "
                        "up to 2^53), got \"%s\"",
                        r->path, line, tok[r->col_size]);
    if (!datafile_parse_double(tok[r->col_busbw], &busbw) || busbw < 0)
        return diag_add(d, STATUS_PARSE,
                        "%s:%ld: busbw: expected a number of GB/s, got "
                        "\"%s\"",
                        r->path, line, tok[r->col_busbw]);
    /* With -d all / -o all, sizes repeat per type and operation: the
     * first (type, redop) of the run is the curve. */
    if (!r->first_type[0] && !r->first_redop[0]) {
        snprintf(r->first_type, sizeof r->first_type, "%s", type);
        snprintf(r->first_redop, sizeof r->first_redop, "%s", redop);
    } else if (strcmp(type, r->first_type) != 0 ||
               strcmp(redop, r->first_redop) != 0) {
        return STATUS_OK;
    }
    if (size <= 0)
        return STATUS_OK; /* the 0-byte rows all_gather prints */
    if (r->nrows > 0 && !(size > r->row_bytes[r->nrows - 1]))
        return diag_add(d, STATUS_PARSE,
                        "%s:%ld: size %.0f after %.0f: sizes must ascend "
                        "within a run",
                        r->path, line, size, r->row_bytes[r->nrows - 1]);
    if (r->nrows == NCCL_IMPORT_ROWS_MAX)
        return diag_add(d, STATUS_PARSE,
                        "%s:%ld: more than %d sizes in one run; sweep with a "
                        "factor (-f 2) rather than a step (-i)",
                        r->path, line, NCCL_IMPORT_ROWS_MAX);
    if (r->col_time < 0 || r->col_time >= n ||
        !datafile_parse_double(tok[r->col_time], &time_us) || time_us <= 0)
        time_us = -1;
    r->row_bytes[r->nrows] = size;
    r->row_time_us[r->nrows] = time_us;
    r->row_busbw[r->nrows] = busbw;
    r->row_line[r->nrows] = line;
    r->nrows++;
    return STATUS_OK;
}

/* The most a calibration file accepts for key of the curve's section. */
static double field_max(enum calibration_link link,
                        enum calibration_collective kind,
                        const char *key)
{
    const struct datafile_schema *schema = calibration_schema();
    char section[64];
    long fi;
    calibration_network_section(link, kind, section, sizeof section);
    fi = datafile_field_index(schema, section, key);
    return fi < 0 ? 0 : schema->fields[fi].max;
}

/* The link a run was measured on: the hint, checked against the hosts. */
static enum status
run_link(struct reader *r, enum nccl_import_link hint, struct diag *d)
{
    struct nccl_import_run *run = &r->run;
    bool several = r->nhosts > 1;
    if (r->nranks == 0) {
        if (hint == NCCL_IMPORT_LINK_AUTO)
            return diag_add(
                d, STATUS_PARSE,
                "%s:%ld: no \"#  Rank N ... on HOST device\" "
                "lines to tell an intra-node run from an "
                "inter-node one: give the link (--intra or --inter)",
                r->path, run->line);
        run->link = hint == NCCL_IMPORT_LINK_INTRA ? CALIBRATION_LINK_INTRA
                                                   : CALIBRATION_LINK_INTER;
        run->nodes = hint == NCCL_IMPORT_LINK_INTRA ? 1 : 0;
        return STATUS_OK;
    }
    if (hint == NCCL_IMPORT_LINK_INTER && !several)
        return diag_add(d, STATUS_PARSE,
                        "%s:%ld: the link given is inter-node, but every "
                        "rank of the run is on %s",
                        r->path, run->line, r->hosts[0].name);
    if (hint == NCCL_IMPORT_LINK_INTRA && several)
        return diag_add(d, STATUS_PARSE,
                        "%s:%ld: the link given is intra-node, but the ranks "
                        "of the run are on %zu hosts",
                        r->path, run->line, r->nhosts);
    run->link = several ? CALIBRATION_LINK_INTER : CALIBRATION_LINK_INTRA;
    run->ranks = r->nranks;
    run->nodes = (long)r->nhosts;
    if ((double)run->ranks > field_max(run->link, run->kind, "ranks") ||
        (double)run->nodes > field_max(run->link, run->kind, "nodes"))
        return diag_add(d, STATUS_PARSE,
                        "%s:%ld: %ld ranks on %ld hosts: a calibration "
                        "curve holds at most %g ranks and %g nodes",
                        r->path, run->line, run->ranks, run->nodes,
                        field_max(run->link, run->kind, "ranks"),
                        field_max(run->link, run->kind, "nodes"));
    return STATUS_OK;
}

/*
 * The run's curve from its rows. nccl-tests prints busbw with two
 * decimals, so small sizes read 0.00 or 0.01; the time column keeps about
 * four digits. Where the rank count is known, busbw is recomputed as
 * nccl-tests computes it: size / time x bus factor (2(n-1)/n for
 * all_reduce, (n-1)/n for all_gather, reduce_scatter and alltoall), and
 * checked against the printed busbw where that has 3+ digits.
 */
static enum status curve(struct reader *r, struct diag *d)
{
    struct nccl_import_run *run = &r->run;
    double n = (double)run->ranks;
    double factor =
        run->kind == CALIBRATION_ALL_REDUCE ? 2 * (n - 1) / n : (n - 1) / n;
    bool timed = run->ranks >= 2;
    size_t i;
    for (i = 0; i < r->nrows; i++)
        timed = timed && r->row_time_us[i] > 0;
    run->n = 0;
    for (i = 0; i < r->nrows; i++) {
        double bw = r->row_busbw[i];
        if (timed) {
            /* B/us = 1e6 B/s = 1e-3 GB/s */
            bw = r->row_bytes[i] / r->row_time_us[i] * 1e-3 * factor;
            run->busbw_from_time = true;
            if (r->row_busbw[i] >= 10 && fabs(bw / r->row_busbw[i] - 1) > 0.01)
                return diag_add(d, STATUS_PARSE,
                                "%s:%ld: busbw %g is not size / time x %g "
                                "(%g) for %ld ranks: is every rank in the "
                                "device list?",
                                r->path, r->row_line[i], r->row_busbw[i],
                                factor, bw, run->ranks);
        }
        if (!(bw <= BUSBW_MAX_GBPS))
            return diag_add(d, STATUS_PARSE,
                            "%s:%ld: busbw %g GB/s (%s) is above %g GB/s, "
                            "what a link can move: is the time column in "
                            "microseconds?",
                            r->path, r->row_line[i], bw,
                            timed ? "size / time x bus factor" : "as printed",
                            BUSBW_MAX_GBPS);
        if (bw <= 0)
            continue;
        run->bytes[run->n] = r->row_bytes[i];
        run->busbw_gbps[run->n] = bw;
        run->n++;
    }
    return STATUS_OK;
}

/* Ends the current run: checks it and adds it to imp. */
static enum status finish_run(struct reader *r,
                              struct nccl_import *imp,
                              enum nccl_import_link link_hint,
                              const char *kind_hint,
                              struct diag *d)
{
    struct nccl_import_run *run = &r->run;
    const char *base = strrchr(r->path, '/');
    enum status st;
    size_t i;
    r->open = false;
    base = base ? base + 1 : r->path;
    if (run->test[0]) {
        run->skipped = !kind_from_test(run->test, &run->kind);
    } else if (kind_hint) {
        if (!kind_from_name(kind_hint, &run->kind))
            return diag_add(d, STATUS_USAGE,
                            "collective '%s': expected all_reduce, "
                            "all_gather, reduce_scatter or alltoall",
                            kind_hint);
    } else if (!kind_from_name(base, &run->kind)) {
        return diag_add(
            d, STATUS_PARSE,
            "%s:%ld: the output does not name its test (no \"# "
            "Collective test starting\" line) and neither does "
            "the file name: give it (--collective NAME), or name the "
            "file after it (all_reduce, all_gather, "
            "reduce_scatter, alltoall)",
            r->path, run->line);
    }
    if (!run->test[0])
        snprintf(run->test, sizeof run->test, "%s_perf",
                 calibration_collective_key(run->kind));
    if (!run->skipped) {
        if (r->header_line == 0)
            return diag_add(d, STATUS_PARSE,
                            "%s:%ld: %s: no \"#  size  count  type ... "
                            "busbw\" column header in the run",
                            r->path, run->line, run->test);
        st = run_link(r, link_hint, d);
        if (st != STATUS_OK)
            return st;
        st = curve(r, d);
        if (st != STATUS_OK)
            return st;
        if (run->n == 0)
            return diag_add(d, STATUS_PARSE,
                            "%s:%ld: %s: no data rows with a size and busbw "
                            "above 0 after the column header",
                            r->path, r->header_line, run->test);
        for (i = 0; i < imp->n; i++) {
            const struct nccl_import_run *o = &imp->runs[i];
            if (o->skipped)
                continue;
            if (o->link == run->link && o->kind == run->kind)
                return diag_add(
                    d, STATUS_PARSE,
                    "%s:%ld: a second %s-node %s curve (the "
                    "first is %s:%ld); import one run per "
                    "collective and link",
                    r->path, run->line, calibration_link_key(run->link),
                    calibration_collective_key(run->kind), o->path, o->line);
            if (o->gpu[0] && run->gpu[0] && strcmp(o->gpu, run->gpu) != 0)
                return diag_add(d, STATUS_PARSE,
                                "%s:%ld: GPU \"%s\" differs from \"%s\" in "
                                "%s:%ld; a calibration file is for one GPU",
                                r->path, run->line, run->gpu, o->gpu, o->path,
                                o->line);
        }
    }
    if (imp->n == NCCL_IMPORT_RUNS_MAX)
        return diag_add(d, STATUS_PARSE, "%s:%ld: more than %d runs", r->path,
                        run->line, NCCL_IMPORT_RUNS_MAX);
    imp->runs[imp->n++] = *run;
    return STATUS_OK;
}

/* A line that starts a run: version, "Collective test starting", nThread. */
static enum status run_start_line(struct reader *r,
                                  struct nccl_import *imp,
                                  bool *seen,
                                  const char *what,
                                  long line,
                                  enum nccl_import_link link_hint,
                                  const char *kind_hint,
                                  struct diag *d)
{
    enum status st;
    if (r->open && r->header_line > 0) {
        st = finish_run(r, imp, link_hint, kind_hint, d);
        if (st != STATUS_OK)
            return st;
    }
    if (r->open && *seen)
        return interleaved(r, line, what, d);
    if (!r->open)
        reader_reset_run(r, line);
    *seen = true;
    return STATUS_OK;
}

/* "# nccl-tests version 2.13.8 nccl-headers=... nccl-library=22104":
 * printed before "Collective test starting", it opens a run only
 * together with the lines after it. */
static enum status version_line(struct reader *r,
                                struct nccl_import *imp,
                                char **tok,
                                int n,
                                long line,
                                enum nccl_import_link link_hint,
                                const char *kind_hint,
                                struct diag *d)
{
    const char *lib = "";
    int i;
    long code;
    char text[128], nccl[40] = "";
    enum status st;
    for (i = 0; i < n; i++)
        if (starts_with(tok[i], "nccl-library="))
            lib = tok[i] + strlen("nccl-library=");
    /* NCCL_VERSION_CODE: major * 10000 + minor * 100 + patch */
    if (*lib && datafile_parse_long(lib, &code) && code >= 10000)
        snprintf(nccl, sizeof nccl, " (NCCL %ld.%ld.%ld)", code / 10000,
                 code % 10000 / 100, code % 100);
    snprintf(text, sizeof text, "%s%s", n > 2 ? tok[2] : "", nccl);
    if (r->open && r->header_line == 0 && r->seen_version)
        return interleaved(r, line,
                           "a second \"nccl-tests version\" "
                           "line",
                           d);
    if (r->open && r->header_line > 0) {
        st = finish_run(r, imp, link_hint, kind_hint, d);
        if (st != STATUS_OK)
            return st;
    }
    if (r->open) {
        snprintf(r->run.version, sizeof r->run.version, "%s", text);
        r->seen_version = true;
    } else {
        snprintf(r->pending_version, sizeof r->pending_version, "%s", text);
        r->pending_line = line;
    }
    return STATUS_OK;
}

/* A comment that may be the table's column header ("size ... busbw"). */
static enum status
column_header(struct reader *r, char **tok, int n, long line, struct diag *d)
{
    int i;
    bool has_size = false, has_busbw = false;
    for (i = 0; i < n; i++) {
        has_size |= strcmp(tok[i], "size") == 0 || strcmp(tok[i], "bytes") == 0;
        has_busbw |= strcmp(tok[i], "busbw") == 0;
    }
    if (has_size && has_busbw) {
        if (!r->open)
            reader_reset_run(r, line);
        if (r->header_line > 0 && r->run.n > 0)
            return interleaved(r, line,
                               "a second column header after data rows", d);
        if (r->header_line == 0)
            header_line(r, tok, n, line);
    }
    return STATUS_OK;
}

static enum status comment_line(struct reader *r,
                                struct nccl_import *imp,
                                char *body,
                                long line,
                                enum nccl_import_link link_hint,
                                const char *kind_hint,
                                struct diag *d)
{
    char copy[1024];
    char *tok[TOKENS_MAX];
    int n;
    enum status st;
    snprintf(copy, sizeof copy, "%s", body);
    n = tokenize(copy, tok);
    if (n == 0)
        return STATUS_OK;
    if (starts_with(body, "nccl-tests version"))
        return version_line(r, imp, tok, n, line, link_hint, kind_hint, d);
    if (starts_with(body, "Collective test starting:")) {
        st = run_start_line(r, imp, &r->seen_starting,
                            "a second \"Collective test starting\" line", line,
                            link_hint, kind_hint, d);
        if (st != STATUS_OK)
            return st;
        snprintf(r->run.test, sizeof r->run.test, "%s", n > 3 ? tok[3] : "");
        return STATUS_OK;
    }
    if (strcmp(tok[0], "nThread") == 0)
        return run_start_line(r, imp, &r->seen_nthread,
                              "a run header (\"# nThread\") before the "
                              "previous run printed its table",
                              line, link_hint, kind_hint, d);
    if (strcmp(tok[0], "Rank") == 0 && r->open && r->header_line == 0)
        return rank_line(r, tok, n, body, line, d);
    if (starts_with(body, "Avg bus bandwidth") && r->open) {
        const char *colon = strchr(body, ':');
        char num[64];
        double v;
        if (colon && sscanf(colon + 1, "%63s", num) == 1 &&
            datafile_parse_double(num, &v))
            r->run.avg_busbw_gbps = v;
        return STATUS_OK;
    }
    if (starts_with(body, "Out of bounds values") && r->open &&
        strstr(body, "FAILED"))
        return diag_add(d, STATUS_PARSE,
                        "%s:%ld: nccl-tests found wrong results (%s): a run "
                        "that computes wrong values is no measurement",
                        r->path, line, body);
    return column_header(r, tok, n, line, d);
}

enum status nccl_import_read(struct nccl_import *imp,
                             const char *path,
                             enum nccl_import_link link_hint,
                             const char *kind_hint,
                             struct diag *d)
{
    struct reader r;
    char *text = NULL, *line, *next;
    size_t len = 0;
    size_t before = imp->n;
    long lineno = 0;
    enum status st;
    enum calibration_collective k;

    if (kind_hint && !kind_from_name(kind_hint, &k))
        return diag_add(d, STATUS_USAGE,
                        "collective '%s': expected all_reduce, all_gather, "
                        "reduce_scatter or alltoall",
                        kind_hint);
    memset(&r, 0, sizeof r);
    r.path = path;
    st = input_file_read(path, FILE_MAX_BYTES, &text, &len, d);
    if (st != STATUS_OK)
        return st;
    if (memchr(text, '\0', len)) {
        st = diag_add(d, STATUS_PARSE,
                      "%s:1: not nccl-tests output (a binary file)", path);
        goto done;
    }
    for (line = text; line && *line; line = next) {
        char *end = strchr(line, '\n');
        char *s = line;
        next = end ? end + 1 : NULL;
        if (end)
            *end = '\0';
        lineno++;
        if (end && end > line && end[-1] == '\r')
            end[-1] = '\0';
        while (*s == ' ' || *s == '\t')
            s++;
        if (*s == '#') {
            s++;
            while (*s == ' ' || *s == '\t')
                s++;
            st = comment_line(&r, imp, s, lineno, link_hint, kind_hint, d);
        } else if (r.open && r.header_line > 0) {
            char *tok[TOKENS_MAX];
            int n = tokenize(s, tok);
            st = n > 0 && all_digits(tok[0]) ? data_row(&r, tok, n, lineno, d)
                                             : STATUS_OK;
        } else {
            st = STATUS_OK; /* another program's line */
        }
        if (st != STATUS_OK)
            goto done;
    }
    if (r.open) {
        st = finish_run(&r, imp, link_hint, kind_hint, d);
        if (st != STATUS_OK)
            goto done;
    }
    if (imp->n == before)
        st = diag_add(d, STATUS_PARSE,
                      "%s:1: not nccl-tests output: no run header (\"# "
                      "nThread ...\" or \"# Collective test starting: ...\") "
                      "and no \"#  size ... busbw\" column header",
                      path);
done:
    if (st != STATUS_OK)
        imp->n = before;
    free(text);
    free(r.ranks);
    free(r.hosts);
    free(r.slot);
    return st;
}
