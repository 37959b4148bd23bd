/*
 * collectives: the collectives file's schema and checks (see
 * collectives.h).
 */
#include "collectives.h"

#include <stdio.h>
#include <string.h>

#define OFF(member) offsetof(struct collectives_spec, member)

/* One row of the tuning table: section s holds cell [a][p]. */
#define CELL_AT(a, p, f) OFF(cell[a][p].f)
#define CELL(s, a, p)                                                         \
    {.section = s,                                                            \
     .key = "base_us",                                                        \
     .type = DATAFILE_DOUBLE,                                                 \
     .offset = CELL_AT(a, p, base_us),                                        \
     .min = 0,                                                                \
     .max = 1e6,                                                              \
     .def = "0",                                                              \
     .unit = "us",                                                            \
     .help = "base latency of one call (baseLatencies)"},                     \
        {.section = s,                                                        \
         .key = "nvlink_us",                                                  \
         .type = DATAFILE_DOUBLE,                                             \
         .offset = CELL_AT(a, p, nvlink_us),                                  \
         .min = 0,                                                            \
         .max = 1e6,                                                          \
         .def = "0",                                                          \
         .unit = "us",                                                        \
         .help = "latency of one step inside a node (hwLatencies NVLINK)"},   \
        {.section = s,                                                        \
         .key = "net_us",                                                     \
         .type = DATAFILE_DOUBLE,                                             \
         .offset = CELL_AT(a, p, net_us),                                     \
         .min = 0,                                                            \
         .max = 1e6,                                                          \
         .def = "0",                                                          \
         .unit = "us",                                                        \
         .help = "latency of one step across nodes (hwLatencies NET)"},       \
        {.section = s,                                                        \
         .key = "bw_1node",                                                   \
         .type = DATAFILE_DOUBLE,                                             \
         .offset = CELL_AT(a, p, bw_1node),                                   \
         .min = 0,                                                            \
         .max = 10,                                                           \
         .def = "0",                                                          \
         .unit = "",                                                          \
         .help = "share of the ring's bus bandwidth on one node (0: not run " \
                 "there)"},                                                   \
        {.section = s,                                                        \
         .key = "bw_2nodes",                                                  \
         .type = DATAFILE_DOUBLE,                                             \
         .offset = CELL_AT(a, p, bw_2nodes),                                  \
         .min = 0,                                                            \
         .max = 10,                                                           \
         .def = "0",                                                          \
         .unit = "",                                                          \
         .help = "the same on two nodes"},                                    \
        {.section = s,                                                        \
         .key = "bw_nodes",                                                   \
         .type = DATAFILE_DOUBLE,                                             \
         .offset = CELL_AT(a, p, bw_nodes),                                   \
         .min = 0,                                                            \
         .max = 10,                                                           \
         .def = "0",                                                          \
         .unit = "",                                                          \
         .help = "the same on more than two nodes"},                          \
    {                                                                         \
        .section = s, .key = "correction", .type = DATAFILE_STRING,           \
        .offset = CELL_AT(a, p, correction_text), .size = DATAFILE_TEXT_MAX,  \
        .min = 0, .max = 10, .def = "", .unit = "",                           \
        .help = "the share's factor by message size: bytes / 64 = 1, 2, "     \
                "4, ... (1 beyond the list; empty: none)"                     \
    }

#define RING      COLLECTIVES_RING
#define TREE      COLLECTIVES_TREE
#define PAT       COLLECTIVES_PAT
#define NVLS      COLLECTIVES_NVLS
#define NVLS_TREE COLLECTIVES_NVLS_TREE
#define LL        COLLECTIVES_LL
#define LL128     COLLECTIVES_LL128
#define SIMPLE    COLLECTIVES_SIMPLE

/* The rows the model runs, (algorithm, protocol, section), once: the
 * schema's sections and collectives_section() are derived from it. */
#define ROWS(X)                    \
    X(RING, LL, "ring_ll")         \
    X(RING, LL128, "ring_ll128")   \
    X(RING, SIMPLE, "ring_simple") \
    X(TREE, LL, "tree_ll")         \
    X(TREE, LL128, "tree_ll128")   \
    X(TREE, SIMPLE, "tree_simple") \
    X(PAT, SIMPLE, "pat_simple")   \
    X(NVLS, SIMPLE, "nvls_simple") \
    X(NVLS_TREE, SIMPLE, "nvls_tree_simple")

#define ROW(a, p, s) {a, p, s},
static const struct {
    int algo, proto;
    const char *section;
} rows[] = {ROWS(ROW)};
#undef ROW

/* clang-format off */
static const struct datafile_field fields[] = {
    {.section = "collectives", .key = "library", .type = DATAFILE_STRING, .offset = OFF(library), .size = 160, .required = true, .unit = "", .help = "the library and the version (commit) its constants are read from"},
    {.section = "collectives", .key = "net_overhead_simple", .type = DATAFILE_DOUBLE, .offset = OFF(net_overhead_simple), .min = 0, .max = 100, .def = "1", .unit = "", .help = "factor on the host's network post overhead (hardware cluster.net_overhead_us) under the Simple protocol"},
    {.section = "collectives", .key = "ppn1_tree_net", .type = DATAFILE_BOOL, .offset = OFF(ppn1_tree_net), .def = "false", .unit = "", .help = "with one GPU a node, a ring's network step takes the tree's latency (NCCL: latencies fully exposed)"},
    {.section = "collectives", .key = "ring_plateau", .type = DATAFILE_DOUBLE, .offset = OFF(ring_plateau), .min = 1, .max = 10, .def = "1", .unit = "", .help = "factor on the latency of a Simple ring all-reduce across nodes (NCCL's plateau effect)"},
    {.section = "collectives", .key = "pat_log_divisor", .type = DATAFILE_DOUBLE, .offset = OFF(pat_log_divisor), .min = 0, .max = 100, .min_open = true, .def = "1", .unit = "", .help = "PAT: the network step latency is divided by this per doubling of the nodes"},
    {.section = "collectives", .key = "pat_rank_us", .type = DATAFILE_DOUBLE, .offset = OFF(pat_rank_us), .min = 0, .max = 1e3, .def = "0", .unit = "us", .help = "PAT: latency per rank of the group (its linear part)"},
    {.section = "collectives", .key = "p2p_ll_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(p2p_ll_bytes), .min = 0, .max = 1e12, .def = "0", .unit = "B", .help = "point-to-point (send/receive, all-to-all): LL up to this many bytes per peer, Simple above"},
    {.section = "collectives", .key = "deepep_net_steps", .type = DATAFILE_DOUBLE, .offset = OFF(deepep_net_steps), .min = 0, .max = 100, .def = "1", .unit = "", .help = "network steps of one DeepEP dispatch or combine (its GPU-initiated RDMA has no per-peer host post)"},
#define FIELDS(a, p, s) CELL(s, a, p),
    ROWS(FIELDS)
#undef FIELDS
};
/* clang-format on */

static const struct datafile_schema schema = {"collectives", fields,
                                              sizeof fields / sizeof fields[0]};

const struct datafile_schema *collectives_schema(void)
{
    return &schema;
}

const char *collectives_section(int algo, int proto)
{
    size_t i;
    for (i = 0; i < sizeof rows / sizeof rows[0]; i++)
        if (rows[i].algo == algo && rows[i].proto == proto)
            return rows[i].section;
    return NULL;
}

const char *collectives_algo_label(int algo)
{
    static const char *const names[COLLECTIVES_ALGOS] = {"Ring", "Tree", "PAT",
                                                         "NVLS", "NVLS tree"};
    return algo >= 0 && algo < COLLECTIVES_ALGOS ? names[algo] : "?";
}

const char *collectives_proto_label(int proto)
{
    static const char *const names[COLLECTIVES_PROTOS] = {"LL", "LL128",
                                                          "Simple"};
    return proto >= 0 && proto < COLLECTIVES_PROTOS ? names[proto] : "?";
}

const char *collectives_pick_name(int algo, int proto, char *buf, size_t size)
{
    if (proto < 0)
        snprintf(buf, size, "DeepEP");
    else
        snprintf(buf, size, "%s/%s",
                 algo < 0 ? "P2P" : collectives_algo_label(algo),
                 collectives_proto_label(proto));
    return buf;
}

/* A problem with section.key of c's file, at its line where it has one. */
static void bad(const struct collectives *c,
                struct diag *d,
                const char *key,
                const char *why)
{
    long i = datafile_field_index(collectives_schema(), "ring_simple", key);
    char where[1200];
    if (i < 0 || !c->meta.given[i])
        diag_add(d, STATUS_RANGE, "%s: ring_simple.%s: %s", c->meta.path, key,
                 why);
    else
        diag_add(d, STATUS_RANGE, "%s: %s",
                 datafile_meta_where(&c->meta, (size_t)i, where, sizeof where),
                 why);
}

/* Splits row r's correction text (section sec) into its numbers,
 * reporting what is not a number in 0..10 or too many values. */
static void split_correction(const struct collectives *c,
                             struct collectives_cell *r,
                             const char *sec,
                             struct diag *d)
{
    long i = datafile_field_index(collectives_schema(), sec, "correction");
    const char *t = r->correction_text;
    char where[1200], word[DATAFILE_TEXT_MAX];
    r->ncorrection = 0;
    while (*t) {
        size_t len = 0;
        double x;
        while (*t == ' ' || *t == '\t' || *t == ',')
            t++;
        if (!*t)
            break;
        while (t[len] && t[len] != ' ' && t[len] != '\t' && t[len] != ',')
            len++;
        snprintf(word, sizeof word, "%.*s", (int)len, t);
        t += len;
        if (!datafile_parse_double(word, &x) || x < 0 || x > 10 ||
            r->ncorrection == COLLECTIVES_SIZES_MAX) {
            diag_add(
                d, STATUS_RANGE,
                "%s: expected at most %d numbers in 0..10, got \"%s\"",
                datafile_meta_where(&c->meta, (size_t)i, where, sizeof where),
                COLLECTIVES_SIZES_MAX, word);
            return;
        }
        r->correction[r->ncorrection++] = x;
    }
}

enum status collectives_load(const char *path,
                             struct collectives *c,
                             struct datafile_set *sets,
                             size_t nsets,
                             struct diag *d)
{
    const struct collectives_cell *ring =
        &c->spec.cell[COLLECTIVES_RING][COLLECTIVES_SIMPLE];
    enum status st;
    size_t k;
    memset(c, 0, sizeof *c);
    st = datafile_load(path, collectives_schema(), &c->spec, &c->meta, sets,
                       nsets, d);
    if (st != STATUS_OK)
        return st;
    for (k = 0; k < sizeof rows / sizeof rows[0]; k++)
        split_correction(c, &c->spec.cell[rows[k].algo][rows[k].proto],
                         rows[k].section, d);
    /* the workbook's latency inputs are the Simple ring's steps, and
     * every other latency is counted in them */
    if (!(ring->nvlink_us > 0))
        bad(c, d, "nvlink_us",
            "required above 0 (the in-node step the workbook counts "
            "latencies in)");
    if (!(ring->net_us > 0))
        bad(c, d, "net_us",
            "required above 0 (the network step the workbook counts "
            "latencies in)");
    if (!(ring->bw_1node > 0 && ring->bw_2nodes > 0 && ring->bw_nodes > 0))
        bad(c, d, "bw_nodes",
            "the Simple ring runs everywhere: bw_1node, bw_2nodes and "
            "bw_nodes above 0");
    diag_finish(d);
    if (d->status != STATUS_OK) {
        collectives_release(c);
        return d->status;
    }
    return STATUS_OK;
}

void collectives_release(struct collectives *c)
{
    if (c)
        datafile_meta_release(&c->meta);
}
