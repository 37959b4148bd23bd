/*
 * comm: every collective a plan implies, with its group, where the
 * group's GPUs sit, and the bytes it moves per GPU per step over each link
 * (InfiniBand across nodes, NVLink inside one; a "node" is an NVLink
 * domain, hardware.domain, which may span hosts), under two models:
 *
 * - COMM_FLAT: a collective whose group spans nodes moves its whole
 *   per-GPU volume over the GPU's IB link; inside one node, over NVLink.
 * - COMM_TOPO: hierarchical collectives. A group of k GPUs per node on n
 *   nodes sends the inter-node share of all-gather/reduce-scatter traffic
 *   over the node's k IB links (IB bytes per GPU = S (n-1)/n / k) and the
 *   intra-node share over NVLink (S (k-1)/k); all-to-all splits by the
 *   share of peers off-node; MoE dispatch as the stack's dispatcher moves
 *   tokens (comm_ep_dispatch: NCCL all-to-all, all-gather, or DeepEP's
 *   once per destination node over IB, then fanned out over NVLink).
 *
 * Volumes per GPU for a buffer of S bytes over g GPUs (ring algorithms,
 * NCCL's "algorithm bandwidth" convention): all-gather and reduce-scatter
 * S (g-1)/g, all-reduce 2 S (g-1)/g.
 */
#ifndef PROJ_COMM_H
#define PROJ_COMM_H

#include <stdbool.h>
#include <stddef.h>

#include "comm_algo.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "result.h"
#include "stack.h"

/* What a rank's collectives put on one link, per GPU per step. */
struct comm_load {
    double bytes; /* as moved */
    /* at the link's full rate: each collective's bytes over its
     * algorithm and protocol's share of it (the Simple ring's: as moved) */
    double at;
    double calls;        /* calls that move bytes over it */
    struct comm_lat lat; /* latency charged to it (struct comm_collective) */
};

struct comm_totals {
    struct comm_load ib, nvlink;
    struct comm_load what_ib[COMM_WHATS], what_nvlink[COMM_WHATS];
    /* of the above, by phase (enum comm_phase) */
    struct comm_load phase_ib[COMM_PHASES], phase_nvlink[COMM_PHASES];
};

/* comm_ep_copies() for every ep dividing the routed experts, by ep. */
struct comm_ep_table {
    long n;     /* entries: routed experts + 1 */
    double *ib; /* [n] */
    double *nv; /* [n] */
};

/*
 * Fills t for model m with `domain` GPUs per NVLink domain (topo model).
 * Allocates; release with comm_ep_table_release(). A dense model gives an
 * empty table.
 */
enum status comm_ep_table_init(struct comm_ep_table *t,
                               const struct model *m,
                               long domain,
                               struct diag *d);

void comm_ep_table_release(struct comm_ep_table *t);

/* A parallel group as the traffic model sees it: per byte of an
 * all-gather/reduce-scatter buffer, the algorithmic volume per GPU and
 * the bytes over IB and over NVLink. */
struct comm_group {
    struct plan_span span;
    double volume; /* (g-1)/g */
    double ib, nv; /* per buffer byte, by the comm model */
};

/* Every group of a plan; the same for all its pipeline ranks. */
struct comm_groups {
    const struct hardware *hw; /* whose library picks the algorithms */
    /* the caller's prepared picks by group and kind (comm_algo.h), or
     * NULL: prepared per collective (comm_groups_init: NULL) */
    struct comm_algo_memo *memo;
    enum comm_model model;
    long domain; /* GPUs per NVLink domain */
    struct comm_group tp, cp, dp, edp, ep;
    struct plan_span pp;
    bool pp_cross;    /* pipeline neighbours on different nodes */
    int dispatcher;   /* enum stack_ep_dispatcher: how EP moves tokens
                         (comm_groups_init: deepep; the caller sets the
                         stack's) */
    bool tp_regather; /* the backward's re-gathers under sequence
                         parallelism (comm_groups_init: true, as
                         Megatron-LM; the caller sets the stack's) */
};

/* Places plan p's groups on hw's nodes (p passed plan_check()). */
void comm_groups_init(struct comm_groups *g,
                      const struct hardware *hw,
                      const struct plan *p,
                      enum comm_model model);

/* Where comm_view and comm_rank put a rank's collectives: each one, up to
 * max, into list (NULL: none listed), and their totals into *tot. */
/* One collective's pick as a rank's comm_view last made it, with every
 * input of the pick on one cluster: the group, kind and how its tokens
 * move (by), and one call's size and link time (struct comm_out). */
struct comm_pick_site {
    bool set;
    struct plan_span span;
    int kind, by;
    double bytes, link_s;
    struct comm_algo pick;
};
#define COMM_PICK_SITES 16

struct comm_out {
    struct comm_collective *list;
    size_t max;
    struct comm_totals *tot; /* always filled */
    /* NULL, or COMM_PICK_SITES picks of the rank's last comm_view on the
     * same cluster, by the order its collectives are recorded in: a
     * collective whose inputs equal its site's takes the site's pick
     * (the pick is a function of them), else picks and fills the site */
    struct comm_pick_site *sites;
};

/*
 * comm_rank() for a rank view, with the plan's groups already placed.
 * grads_per_step: ZeRO-2/3 gradients were accumulated unsharded and are
 * reduce-scattered once per step (struct memory), else per micro-batch.
 */
size_t comm_view(const struct model *m,
                 const struct plan *p,
                 const struct plan_rank *v,
                 const struct comm_groups *groups,
                 const struct comm_ep_table *ep,
                 bool grads_per_step,
                 const struct comm_out *out);

/*
 * Collectives of pipeline rank `rank` under plan p (which passed
 * plan_check()) and its partition part. ep (may be NULL) caches the MoE
 * dispatch expectations. ZeRO-2/3 gradients are reduced once per step or
 * per micro-batch as memory_view() decides for the rank. Fills
 * *out->tot; when out->list is not NULL also writes up to out->max
 * collectives there and returns their count (0 otherwise). Allocates
 * nothing.
 */
size_t comm_rank(const struct model *m,
                 const struct hardware *hw,
                 const struct plan *p,
                 const struct model_partition *part,
                 long rank,
                 enum comm_model model,
                 const struct comm_ep_table *ep,
                 const struct comm_out *out);

/*
 * Expected copies of one token that DeepEP-style MoE dispatch sends over
 * IB and over NVLink, for an EP group spanning `span` (topo model): a
 * token crosses IB once per distinct remote node its experts lie on (to
 * the GPU of its own local index there) and NVLink once per further
 * distinct GPU on each node reached (DeepEP's normal kernels, github.com/
 * deepseek-ai/DeepEP docs/legacy.md: "forwarding data from NVLink domain
 * to RDMA domain"). With a node limit M, the token's top_k experts lie on
 * M of the group's nodes, else on any (hypergeometric expectations:
 * experts drawn uniformly from the allowed nodes' pool; under
 * moe.node_routing = affinity, given that each of the M nodes receives
 * one, so all M are reached).
 */
void comm_ep_copies(const struct model *m,
                    struct plan_span span,
                    double *ib,
                    double *nvlink);

/*
 * Copies of one token (per hidden element, one direction: dispatch, or
 * combine, whose traffic mirrors it) that MoE dispatcher `dispatcher`
 * (enum stack_ep_dispatcher) moves for an EP group spanning `span`: the
 * algorithmic volume and, by the comm model, the copies over IB and over
 * NVLink (the bytes per GPU are these times tokens x hidden x bytes per
 * element). With e = span.size GPUs, g per node, k = top_k:
 * - STACK_DISPATCH_ALLTOALL (NCCL all-to-all, Megatron's alltoall
 *   dispatcher): one copy per (token, chosen expert); of the k experts,
 *   k (e-g)/e lie off-node (IB) and k (g-1)/e on other GPUs of the node
 *   (NVLink), k/e on the sending GPU: volume k (e-1)/e.
 * - STACK_DISPATCH_ALLGATHER (Megatron's allgather dispatcher): every
 *   rank gathers every token of the group, then reduce-scatters the
 *   combine; a ring all-gather of e tokens' buffer: volume e-1 per token,
 *   hierarchically (topo) n-1 over IB and e-n over NVLink, n = e/g.
 * - STACK_DISPATCH_DEEPEP: comm_ep_copies() (once per node over IB, then
 *   over NVLink); volume k (e-1)/e as the algorithmic convention.
 * Under COMM_FLAT a group spanning nodes moves the volume over IB.
 * ept (may be NULL) caches comm_ep_copies() by e.
 */
void comm_ep_dispatch(const struct model *m,
                      struct plan_span span,
                      int dispatcher,
                      enum comm_model model,
                      const struct comm_ep_table *ept,
                      double *volume,
                      double *ib,
                      double *nvlink);

/* What a micro-batch's own compute waits for on a link: the EP, TP and
 * CP loads of what[] (indexed by enum comm_what) summed. */
struct comm_load comm_dep_load(const struct comm_load *what);

/*
 * Fills each of c[0..n)'s times on hw's links (ib_s, nvlink_s): its
 * bytes over the link's bandwidth times its pick's share, plus the
 * latency charged to the link (terms_collective_time, the C side of the
 * workbook's link-time templates), so that no later stage computes them.
 */
void comm_collective_times(struct comm_collective *c,
                           size_t n,
                           const struct hardware *hw);

#endif
