/*
 * comm_algo: the algorithm and protocol the collectives library (NCCL,
 * RCCL: the hardware file's collectives file) would pick for one call of
 * a collective, and what it costs: its latency and the share of the
 * link's rate its bytes move at. The time of a call is its latency plus
 * its busiest link's bytes over that link's rate times the share; the
 * library picks the algorithm and protocol of least time
 * (ncclTopoGetAlgoTime), and so does this module, from the file's
 * values, for the group's ranks g, GPUs per node k and nodes n
 * (struct plan_span) and the call's size:
 *
 * - ring (every collective): a base latency, then nsteps steps (g - 1 for
 *   all-gather and reduce-scatter, 2 (g - 1) for all-reduce) of which
 *   n - 1 (2 (n - 1)) cross the network; a step inside a node takes at
 *   least the host's network post overhead when the ring spans nodes;
 * - tree (all-reduce): base + 2 ((k - 1) in-node + log2(n) network
 *   steps), at half the ring's algorithm bandwidth;
 * - PAT (all-gather, reduce-scatter, one GPU a node): base + log2(n)
 *   network steps / pat_log_divisor + g x pat_rank_us;
 * - NVLS inside one NVLink domain, NVLS tree (all-reduce) across, where
 *   the hardware has NVLink SHARP;
 * - under each, the protocols LL, LL128 and Simple at their latencies and
 *   bandwidth shares (LL capped at the hardware's ll_max);
 * - point-to-point: a pipeline send, and an all-to-all as NCCL runs it,
 *   grouped sends and receives to every peer at once (enqueue.cc: up to
 *   p2pnChannels / channels per peer x 8 peers in flight, every EP group
 *   here), LL up to p2p_ll_bytes per peer: base + one step in the node +
 *   one network step and the host's post to each peer off the node; a
 *   DeepEP dispatch or combine: base + one step in the node +
 *   deepep_net_steps network steps (its GPU posts its own RDMA).
 *
 * Latency is counted in two units, the library's Simple ring step inside
 * a node and across nodes (struct comm_lat): base latencies and every
 * in-node term in the first, the network's in the second, so that the
 * workbook's two latency inputs re-time every collective (docs/model.md;
 * the two types, comm_pick.h, sit below evaluate).
 * Part of the evaluate stage; reads the hardware's collectives file.
 */
#ifndef PROJ_COMM_ALGO_H
#define PROJ_COMM_ALGO_H

#include <stdbool.h>
#include <stddef.h>

#include "comm_pick.h"
#include "hardware.h"
#include "plan.h"

/* How a collective is run besides its kind: by the library, or an
 * all-to-all by DeepEP's kernels. */
enum comm_algo_by { COMM_BY_LIBRARY, COMM_BY_DEEPEP };

/* Candidates a group and kind may run (all-reduce: 3 rings, 3 trees,
 * NVLS or NVLS tree). */
#define COMM_ALGO_CANDS 8
/* Segments of their lower envelope: each line at most once (the least of
 * lines in x is concave), room for ties left twice that. */
#define COMM_ALGO_SEGS (2 * COMM_ALGO_CANDS)

/* One candidate of a group and kind: its latency per call, and its share
 * of the link's rate before the library's correction by size. */
struct comm_algo_cand {
    double lat_s;        /* per call, s */
    struct comm_lat lat; /* per call */
    double share, inv_share;
    const double *corr; /* its share's factor by size (NULL: none) */
    size_t ncorr;
    signed char algo, proto;
};

/* What the library may run for one group and kind, prepared once
 * (comm_algo_prepare) and chosen from per call (comm_algo_choose). */
struct comm_algo_group {
    struct plan_span span;
    int kind, by;
    bool set;        /* prepared (a memo slot's) */
    bool by_size;    /* point-to-point: cand[0] (LL) up to ll_bytes a
                        peer, else cand[1], not the least time */
    double ll_bytes; /* of a call's bytes: p2p_ll_bytes x peers */
    /* NCCL's size of a call over the collective's algorithmic volume per
     * GPU (all-gather, reduce-scatter g / (g - 1), all-reduce g / (2 (g -
     * 1)), else 1) */
    double size_per_volume;
    size_t n;
    struct comm_algo_cand cand[COMM_ALGO_CANDS];
    /* The least time among the candidates without a correction by size,
     * as a function of a call's link time x: cand[seg[i]] from bound[i
     * - 1] (0 for i = 0) up to bound[i] (the last: beyond), nseg
     * segments (0: every candidate is corrected by size). */
    size_t nseg;
    double bound[COMM_ALGO_SEGS];
    unsigned char seg[COMM_ALGO_SEGS];
    /* the candidates corrected by size, by index */
    size_t ncorrected;
    unsigned char corrected[COMM_ALGO_CANDS];
    /* a memo slot's last choice (comm_algo_memo_pick): for one call of
     * NCCL's size last_bytes whose busiest link needs last_link_s */
    bool last_set;
    double last_bytes, last_link_s;
    struct comm_algo last;
};

/* Fills g with what hw's library may run for kind `kind` run `by` over
 * group span (comm_algo_pick's candidates, their latencies and shares).
 * g borrows hw's collectives file. */
void comm_algo_prepare(const struct hardware *hw,
                       struct plan_span span,
                       int kind,
                       int by,
                       struct comm_algo_group *g);

/* comm_algo_pick's choice among g's candidates for one call of NCCL's
 * size `bytes` whose busiest link needs link_s at its full rate. */
void comm_algo_choose(const struct comm_algo_group *g,
                      double bytes,
                      double link_s,
                      struct comm_algo *out);

/* Prepared groups kept by their group and kind, for one cluster: a
 * caller's cache (a sweep thread's, in struct cost_hint), valid for any
 * plan on that cluster. Zeroed, it holds nothing. */
#define COMM_ALGO_MEMO_BITS 9
#define COMM_ALGO_MEMO      (1 << COMM_ALGO_MEMO_BITS)
struct comm_algo_memo {
    struct comm_algo_group slot[COMM_ALGO_MEMO];
};

/* The prepared group of (span, kind, by) on hw: m's where it holds it,
 * else prepared into m (the slot it hashes to). */
struct comm_algo_group *comm_algo_memo_get(struct comm_algo_memo *m,
                                           const struct hardware *hw,
                                           struct plan_span span,
                                           int kind,
                                           int by);

/* comm_algo_choose on g (a memo's slot) for one call of NCCL's size
 * `bytes` and link time link_s, the slot's last choice where both are
 * the last ones (the same values: the same choice). */
void comm_algo_memo_choose(struct comm_algo_group *g,
                           double bytes,
                           double link_s,
                           struct comm_algo *out);

/*
 * The algorithm and protocol hw's collectives library picks for one call
 * of a collective of kind `kind` (enum comm_kind) run `by` (enum
 * comm_algo_by) over group `span`, of NCCL's size `bytes` (the buffer:
 * all-gather and reduce-scatter the whole gathered one, all-reduce its
 * input; point-to-point, one peer's), whose busiest link needs `link_s`
 * seconds at the link's full rate: the one of least latency + link_s /
 * share. Without a collectives file (hw->coll NULL): the ring's Simple
 * protocol at no latency. A group of one rank moves nothing (share 1, no
 * latency). Allocates nothing; example:
 *
 *     struct comm_algo a;
 *     comm_algo_pick(hw, plan_span(1024, 1, 8), COMM_ALL_GATHER,
 *                    COMM_BY_LIBRARY, 380e6, 0.94e-3, &a);
 */
void comm_algo_pick(const struct hardware *hw,
                    struct plan_span span,
                    int kind,
                    int by,
                    double bytes,
                    double link_s,
                    struct comm_algo *out);

/* The time of latency lat on hw, s: steps x the library's in-node step
 * plus net x its network step. */
double comm_lat_s(const struct hardware *hw, struct comm_lat lat);

#endif
