/*
 * comm_algo: the library's pick for one call of a collective (see
 * comm_algo.h). The formulas are NCCL's ncclTopoTuneModel and
 * ncclTopoGetAlgoTime (src/graph/tuning.cc, NVIDIA/nccl @5067397; RCCL's
 * differ in their constants, which its file gives); the constants are the
 * collectives file's and the hardware file's. Every latency is summed in
 * microseconds split in two, what runs in the node (base, in-node steps,
 * PAT's per-rank part) and what crosses the network, then counted in the
 * library's Simple ring steps (struct comm_lat).
 */
#include "comm_algo.h"

#include <math.h>
#include <stdlib.h>

#include "collectives.h"
#include "comm.h"

#define RING      COLLECTIVES_RING
#define TREE      COLLECTIVES_TREE
#define PAT       COLLECTIVES_PAT
#define NVLS      COLLECTIVES_NVLS
#define NVLS_TREE COLLECTIVES_NVLS_TREE
#define LL        COLLECTIVES_LL
#define SIMPLE    COLLECTIVES_SIMPLE

/* A group as the formulas read it, and its call. */
struct call {
    const struct hardware *hw;
    const struct collectives_spec *c;
    double g, k, n; /* ranks, GPUs per node, nodes */
    int kind;       /* enum comm_kind */
};

/* One candidate: microseconds in the node and across the network, and
 * the share of the link's rate. */
struct cand {
    double gpu_us, net_us, share;
};

/* NCCL's log2i: the floor of log2(v) for v >= 1, -1 below. */
static int log2i(double v)
{
    int e;
    if (v < 1)
        return -1;
    frexp(v, &e);
    return e - 1;
}

/* The row's bandwidth share on this call's node count (0: not run). */
static double share_of(const struct call *x, const struct collectives_cell *r)
{
    return x->n <= 1 ? r->bw_1node : x->n <= 2 ? r->bw_2nodes : r->bw_nodes;
}

/* The LL protocol's cap: the hardware's llMaxBw over the bus bandwidth
 * the ring would reach (NCCL's busBw: the NVLink rate inside a node, the
 * k NICs' across nodes), as a share; 1 without a cap. */
static double ll_cap(const struct call *x)
{
    const struct hardware_spec *s = &x->hw->spec;
    double cap = x->n <= 1   ? s->ll_max_1node_gbps
                 : x->n <= 2 ? s->ll_max_2nodes_gbps
                             : s->ll_max_nodes_gbps;
    double bus = x->n <= 1 ? s->nvlink_gbps : x->k * s->ib_gbps;
    return cap > 0 && bus > 0 ? cap / bus : 1;
}

/* The host's post per network send under protocol p. */
static double overhead(const struct call *x, int p)
{
    return x->hw->spec.net_overhead_us *
           (p == SIMPLE ? x->c->net_overhead_simple : 1);
}

/* A ring: nsteps steps, the network's across nodes. */
static void ring(const struct call *x, int p, struct cand *out)
{
    const struct collectives_cell *r = &x->c->cell[RING][p];
    bool ar = x->kind == COMM_ALL_REDUCE;
    double nsteps = ar ? 2 * (x->g - 1) : x->g - 1;
    double inter_steps = x->n <= 1 ? 0 : ar ? 2 * (x->n - 1) : x->n - 1;
    double intra = r->nvlink_us, inter = r->net_us;
    if (x->k <= 1 && x->c->ppn1_tree_net)
        inter = x->c->cell[TREE][p].net_us;
    if (x->n > 1 && overhead(x, p) > intra)
        intra = overhead(x, p);
    out->gpu_us = r->base_us + (nsteps - inter_steps) * intra;
    out->net_us = inter_steps * inter;
    if (ar && p == SIMPLE && x->n > 1) { /* the ring's plateau */
        out->gpu_us *= x->c->ring_plateau;
        out->net_us *= x->c->ring_plateau;
    }
    out->share = share_of(x, r);
    if (p == LL && out->share > ll_cap(x))
        out->share = ll_cap(x);
}

/* A tree (all-reduce): up and down the node, then log2(n) levels. */
static void tree(const struct call *x, int p, struct cand *out)
{
    const struct collectives_cell *r = &x->c->cell[TREE][p];
    double share = share_of(x, r);
    if (p == LL && share > ll_cap(x))
        share = ll_cap(x);
    out->gpu_us = r->base_us + 2 * (x->k - 1) * r->nvlink_us;
    out->net_us = 2 * log2i(x->n) * r->net_us;
    /* half the ring's algorithm bandwidth: (g - 1) / g of its share of
     * the all-reduce's ring bytes, 2 (g - 1) / g of the buffer */
    out->share = share * (x->g - 1) / x->g;
}

/* PAT (all-gather, reduce-scatter; one GPU a node). */
static void pat(const struct call *x, struct cand *out)
{
    const struct collectives_cell *r = &x->c->cell[PAT][SIMPLE];
    out->gpu_us = r->base_us + x->g * x->c->pat_rank_us;
    out->net_us = log2i(x->n) * (r->net_us / x->c->pat_log_divisor);
    /* busBw x 0.75 with no conversion to algorithm bandwidth: over the
     * ring's bytes, (g - 1) / g */
    out->share = share_of(x, r) * (x->g - 1) / x->g;
}

/* NVLS inside a domain; NVLS tree across domains (all-reduce). */
static void nvls(const struct call *x, struct cand *out)
{
    int a = x->n > 1 ? NVLS_TREE : NVLS;
    const struct collectives_cell *r = &x->c->cell[a][SIMPLE];
    double f = (x->g - 1) / x->g, s = x->hw->spec.nvls_share;
    out->gpu_us = r->base_us + r->nvlink_us;
    out->net_us = a == NVLS_TREE ? 2 * log2i(x->n) * r->net_us : 0;
    if (a == NVLS_TREE) /* bound by the network, as the ring is */
        out->share = share_of(x, r);
    else if (x->kind == COMM_ALL_REDUCE) /* two operations pipelined */
        out->share = share_of(x, r) * s * 2;
    else /* (ppn - 1) / ppn, no conversion to algorithm bandwidth */
        out->share = share_of(x, r) * s * f * f;
}

/* Point-to-point under protocol p: a send, or an all-to-all to every
 * peer at once (by the library, or DeepEP's kernels). */
static void p2p(const struct call *x, int by, int p, struct cand *c)
{
    bool a2a = x->kind == COMM_ALL_TO_ALL;
    const struct collectives_cell *r = &x->c->cell[RING][p];
    c->gpu_us = r->base_us + (x->k > 1 || !a2a ? r->nvlink_us : 0);
    c->net_us = 0;
    if (x->n > 1 && by == COMM_BY_DEEPEP) {
        c->net_us = x->c->deepep_net_steps * r->net_us;
    } else if (x->n > 1) { /* the host posts a send to each peer off it */
        c->gpu_us = r->base_us + (a2a && x->k > 1 ? r->nvlink_us : 0);
        c->net_us = r->net_us + (a2a ? x->g - x->k : 1) * overhead(x, p);
    }
    c->share = share_of(x, r);
    if (p == LL && c->share > ll_cap(x))
        c->share = ll_cap(x);
    if (!(c->share > 0))
        c->share = 1;
}

/* Appends candidate c of (a, p) to g where it runs (a share above 0),
 * with row r's correction by size where `corrected`. */
static void keep(struct comm_algo_group *g,
                 const struct hardware *hw,
                 const struct cand *c,
                 int a,
                 int p,
                 const struct collectives_cell *corrected)
{
    struct comm_algo_cand *k;
    if (!(c->share > 0) || g->n >= COMM_ALGO_CANDS)
        return;
    k = &g->cand[g->n++];
    k->lat_s = (c->gpu_us + c->net_us) * 1e-6;
    k->lat.steps = c->gpu_us * 1e-6 / hw->coll_step_s;
    k->lat.net = c->net_us * 1e-6 / hw->coll_net_step_s;
    k->share = c->share;
    k->inv_share = 1 / c->share;
    k->corr =
        corrected && corrected->ncorrection ? corrected->correction : NULL;
    k->ncorr = corrected ? corrected->ncorrection : 0;
    k->algo = (signed char)a;
    k->proto = (signed char)p;
}

/* The collectives' candidates of this call's group and kind. */
static void prepare_collective(const struct call *x, struct comm_algo_group *g)
{
    struct cand c;
    int p;
    bool ar = x->kind == COMM_ALL_REDUCE;
    for (p = 0; p < COLLECTIVES_PROTOS; p++) {
        ring(x, p, &c); /* RCCL's ring correction: across nodes only */
        keep(g, x->hw, &c, RING, p, x->n > 1 ? &x->c->cell[RING][p] : NULL);
        if (ar) {
            tree(x, p, &c);
            keep(g, x->hw, &c, TREE, p, &x->c->cell[TREE][p]);
        }
    }
    if (!ar && x->k <= 1 && x->n > 1) {
        pat(x, &c);
        keep(g, x->hw, &c, PAT, SIMPLE, NULL);
    }
    if (x->hw->spec.nvls_share > 0 && x->k >= 2 && (ar || x->n <= 1)) {
        nvls(x, &c);
        keep(g, x->hw, &c, x->n > 1 ? NVLS_TREE : NVLS, SIMPLE, NULL);
    }
}

/* The first of g's uncorrected candidates of least time at link time x
 * (-1: none). */
static int least_at(const struct comm_algo_group *g, double x)
{
    double best = INFINITY;
    int w = -1;
    size_t i;
    for (i = 0; i < g->n; i++) {
        const struct comm_algo_cand *k = &g->cand[i];
        double t = k->lat_s + x * k->inv_share;
        if (!k->corr && t < best) {
            best = t;
            w = (int)i;
        }
    }
    return w;
}

static int ascending(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/*
 * g's lower envelope of the uncorrected candidates' times, lat + x /
 * share, lines in x: every crossing of two of them above 0 sorted, the
 * least between each two crossings (at their middle, and beyond the
 * last), consecutive segments of the same candidate merged. A call's
 * choice is then a look along the bounds (comm_algo_choose).
 */
static void envelope(struct comm_algo_group *g)
{
    double x[COMM_ALGO_CANDS * COMM_ALGO_CANDS] = {0};
    size_t n = 0, i, j;
    for (i = 0; i < g->n; i++)
        for (j = i + 1; j < g->n; j++) {
            const struct comm_algo_cand *a = &g->cand[i], *b = &g->cand[j];
            double c;
            if (a->corr || b->corr || a->inv_share == b->inv_share)
                continue;
            c = (b->lat_s - a->lat_s) / (a->inv_share - b->inv_share);
            if (c > 0)
                x[n++] = c;
        }
    qsort(x, n, sizeof x[0], ascending);
    g->ncorrected = 0;
    for (i = 0; i < g->n; i++)
        if (g->cand[i].corr)
            g->corrected[g->ncorrected++] = (unsigned char)i;
    g->nseg = 0;
    for (i = 0; i <= n; i++) {
        double at = i == 0  ? (n ? x[0] / 2 : 1)
                    : i < n ? (x[i - 1] + x[i]) / 2
                            : 2 * x[n - 1];
        int w = least_at(g, at);
        if (w < 0)
            return;
        if (g->nseg > 0 && g->seg[g->nseg - 1] == (unsigned char)w) {
            g->bound[g->nseg - 1] = i < n ? x[i] : INFINITY;
            continue;
        }
        if (g->nseg == COMM_ALGO_SEGS) { /* cannot happen (see .h) */
            g->bound[g->nseg - 1] = INFINITY;
            return;
        }
        g->seg[g->nseg] = (unsigned char)w;
        g->bound[g->nseg++] = i < n ? x[i] : INFINITY;
    }
}

void comm_algo_prepare(const struct hardware *hw,
                       struct plan_span span,
                       int kind,
                       int by,
                       struct comm_algo_group *g)
{
    struct call x;
    struct cand c;
    g->span = span;
    g->kind = kind;
    g->by = by;
    g->set = true;
    g->last_set = false;
    g->by_size = false;
    g->ll_bytes = 0;
    g->n = g->nseg = g->ncorrected = 0;
    g->size_per_volume = 1;
    if (span.size > 1 && kind == COMM_ALL_REDUCE)
        g->size_per_volume = (double)span.size / (2 * ((double)span.size - 1));
    else if (span.size > 1 &&
             (kind == COMM_ALL_GATHER || kind == COMM_REDUCE_SCATTER))
        g->size_per_volume = (double)span.size / ((double)span.size - 1);
    if (!hw->coll || span.size <= 1)
        return;
    x.hw = hw;
    x.c = &hw->coll->spec;
    x.g = (double)span.size;
    x.k = (double)span.per_node;
    x.n = (double)span.nodes;
    x.kind = kind;
    if (kind == COMM_ALL_TO_ALL && by == COMM_BY_DEEPEP) {
        p2p(&x, by, SIMPLE, &c);
        keep(g, hw, &c, -1, SIMPLE, NULL);
        g->cand[0].proto = -1; /* DeepEP's own kernels */
    } else if (kind == COMM_ALL_TO_ALL || kind == COMM_SEND_RECV) {
        p2p(&x, by, LL, &c);
        keep(g, hw, &c, -1, LL, NULL);
        p2p(&x, by, SIMPLE, &c);
        keep(g, hw, &c, -1, SIMPLE, NULL);
        g->by_size = true;
        g->ll_bytes =
            x.c->p2p_ll_bytes * (kind == COMM_ALL_TO_ALL ? x.g - 1 : 1);
    } else {
        prepare_collective(&x, g);
    }
    envelope(g);
}

/* The correction of candidate k's share at a size of log2(bytes / 64)
 * `at` (NCCL's logSize; 1 beyond the list). */
static double corrected(const struct comm_algo_cand *k, int at)
{
    return at >= 0 && (size_t)at < k->ncorr ? k->corr[at] : 1;
}

void comm_algo_choose(const struct comm_algo_group *g,
                      double bytes,
                      double link_s,
                      struct comm_algo *out)
{
    const struct comm_algo_cand *best = NULL;
    double best_s = INFINITY, share = 1, inv = 1;
    int at = -2; /* log2(bytes / 64), found at the first use */
    size_t i;
    if (g->by_size && g->n == 2) { /* LL up to ll_bytes a call */
        best = &g->cand[bytes <= g->ll_bytes ? 0 : 1];
        share = best->share;
        inv = best->inv_share;
    } else if (g->nseg > 0) { /* along the envelope */
        for (i = 0; i + 1 < g->nseg && link_s >= g->bound[i]; i++)
            ;
        best = &g->cand[g->seg[i]];
        share = best->share;
        inv = best->inv_share;
        best_s = best->lat_s + link_s * inv;
    }
    for (i = 0; i < g->ncorrected && !g->by_size; i++) { /* corrected */
        const struct comm_algo_cand *k = &g->cand[g->corrected[i]];
        double s, t;
        if (at == -2)
            at = log2i(floor(bytes / 64));
        s = k->share * corrected(k, at);
        t = s > 0 ? k->lat_s + link_s / s : INFINITY;
        if (t < best_s || (t == best_s && best && k < best)) {
            best_s = t;
            best = k;
            share = s;
            inv = 1 / s;
        }
    }
    if (!best) { /* nothing runs: the ring at no latency (no collectives
                  * file, or a group of one) */
        out->algo = RING;
        out->proto = SIMPLE;
        out->lat.steps = out->lat.net = 0;
        out->share = out->inv_share = 1;
        return;
    }
    out->algo = best->algo;
    out->proto = best->proto;
    out->lat = best->lat;
    out->share = share;
    out->inv_share = inv;
}

void comm_algo_memo_choose(struct comm_algo_group *g,
                           double bytes,
                           double link_s,
                           struct comm_algo *out)
{
    if (g->last_set && g->last_bytes == bytes && g->last_link_s == link_s) {
        *out = g->last;
        return;
    }
    comm_algo_choose(g, bytes, link_s, out);
    g->last_set = true;
    g->last_bytes = bytes;
    g->last_link_s = link_s;
    g->last = *out;
}

struct comm_algo_group *comm_algo_memo_get(struct comm_algo_memo *m,
                                           const struct hardware *hw,
                                           struct plan_span span,
                                           int kind,
                                           int by)
{
    /* Fibonacci hashing of the key's parts, its top bits the slot */
    unsigned long long h =
        ((unsigned long long)span.size * 1000003ull +
         (unsigned long long)span.per_node * 10007ull +
         (unsigned long long)span.nodes * 101ull +
         (unsigned long long)kind * 7ull + (unsigned long long)by) *
        0x9E3779B97F4A7C15ull;
    struct comm_algo_group *g = &m->slot[h >> (64 - COMM_ALGO_MEMO_BITS)];
    if (!g->set || g->kind != kind || g->by != by ||
        g->span.size != span.size || g->span.per_node != span.per_node ||
        g->span.nodes != span.nodes)
        comm_algo_prepare(hw, span, kind, by, g);
    return g;
}

void comm_algo_pick(const struct hardware *hw,
                    struct plan_span span,
                    int kind,
                    int by,
                    double bytes,
                    double link_s,
                    struct comm_algo *out)
{
    struct comm_algo_group g;
    comm_algo_prepare(hw, span, kind, by, &g);
    comm_algo_choose(&g, bytes, link_s, out);
}

double comm_lat_s(const struct hardware *hw, struct comm_lat lat)
{
    return lat.steps * hw->coll_step_s + lat.net * hw->coll_net_step_s;
}
