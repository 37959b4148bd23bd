/*
 * collectives: a collective-communication library's tuning model (NCCL's,
 * RCCL's), read from a collectives file (data/collectives/NAME.ini) that a
 * hardware file names: the latency of each algorithm and protocol (a base
 * latency and one per step inside a node and across nodes, as the
 * library's src/graph/tuning.cc gives them), the share of the bus
 * bandwidth each reaches, by node count and, where the library corrects
 * it by message size, by size; and the constants of its other latency
 * terms (PAT, the ring's plateau, point-to-point).
 *
 * This module loads and checks the file; it computes no time (the
 * evaluate stage's comm_algo does, from these values and the cluster's).
 * What depends on the platform rather than on the library (NVLink SHARP,
 * the host CPU's network post overhead, the LL protocol's bandwidth cap)
 * is the hardware file's.
 */
#ifndef PROJ_COLLECTIVES_H
#define PROJ_COLLECTIVES_H

#include <stdbool.h>
#include <stddef.h>

#include "datafile.h"
#include "diag.h"

/* The algorithms whose latency and bandwidth the file gives (NCCL's
 * enum; CollNet is left out: off unless a SHARP switch plugin is
 * enabled, NCCL_COLLNET_ENABLE). */
enum collectives_algo {
    COLLECTIVES_RING,
    COLLECTIVES_TREE,      /* all-reduce only */
    COLLECTIVES_PAT,       /* all-gather, reduce-scatter; one GPU a node */
    COLLECTIVES_NVLS,      /* NVLink SHARP, inside one NVLink domain */
    COLLECTIVES_NVLS_TREE, /* NVLink SHARP in each domain, a tree across */
    COLLECTIVES_ALGOS
};

/* NCCL's protocols. */
enum collectives_proto {
    COLLECTIVES_LL,
    COLLECTIVES_LL128,
    COLLECTIVES_SIMPLE,
    COLLECTIVES_PROTOS
};

/* Sizes a correction list may give (64 B to 2^53 bytes). */
#define COLLECTIVES_SIZES_MAX 48

/* One algorithm under one protocol (a row of the file, [ring_simple]). */
struct collectives_cell {
    double base_us;   /* baseLatencies: per call */
    double nvlink_us; /* hwLatencies[NVLINK]: per step inside a node */
    double net_us;    /* hwLatencies[NET]: per step across nodes */
    /* share of the ring's bus bandwidth it reaches (the busBw
     * refinements) on one node, two nodes, more; 0: not run there (a
     * row the file leaves out: all 0, never chosen) */
    double bw_1node, bw_2nodes, bw_nodes;
    /* the library's correction of that share by message size, from
     * bytes / 64 = 1 up by powers of two (n 0: none; the file's text in
     * correction_text) */
    char correction_text[DATAFILE_TEXT_MAX];
    double correction[COLLECTIVES_SIZES_MAX];
    size_t ncorrection;
};

struct collectives_spec {
    char library[160];
    struct collectives_cell cell[COLLECTIVES_ALGOS][COLLECTIVES_PROTOS];
    double net_overhead_simple; /* x the host's post overhead for Simple */
    bool ppn1_tree_net;         /* one GPU a node: rings take the tree's network
                                   step latency (NCCL), or their own (RCCL) */
    double ring_plateau;        /* x a multi-node Simple ring all-reduce's
                                   latency */
    double pat_log_divisor;     /* PAT: the network step over this per
                                   doubling of nodes */
    double pat_rank_us;         /* PAT: per rank of the group */
    double p2p_ll_bytes;        /* point-to-point: LL up to this per peer */
    double deepep_net_steps;    /* DeepEP's dispatch or combine: network steps
                                   per call */
};

struct collectives {
    struct collectives_spec spec;
    struct datafile_meta meta;
};

/*
 * The schema of collectives files: a [collectives] section and one section
 * per algorithm and protocol the model runs ([ring_ll] ... [nvls_tree_simple]),
 * each optional but [ring_simple], whose latencies are the workbook's
 * reference steps. Static: never NULL.
 */
const struct datafile_schema *collectives_schema(void);

/* The section name of (algorithm, protocol): "ring_simple", or NULL where
 * the model has no such row. */
const char *collectives_section(int algo, int proto);

/* "Ring", "Tree", "PAT", "NVLS", "NVLS tree" / "LL", "LL128", "Simple". */
const char *collectives_algo_label(int algo);
const char *collectives_proto_label(int proto);

/*
 * The words of a pick: "Ring/Simple", "Tree/LL128", point-to-point (algo
 * -1) "P2P/Simple", DeepEP's kernels (proto -1) "DeepEP"; into buf.
 */
const char *collectives_pick_name(int algo, int proto, char *buf, size_t size);

/*
 * Loads the collectives file at path with --set overrides of its sections
 * into c, checking that [ring_simple] is there with steps above 0 (the
 * workbook's latency inputs divide by them). On failure c is released.
 */
enum status collectives_load(const char *path,
                             struct collectives *c,
                             struct datafile_set *sets,
                             size_t nsets,
                             struct diag *d);

void collectives_release(struct collectives *c);

#endif
