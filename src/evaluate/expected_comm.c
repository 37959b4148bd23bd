/*
 * expected_comm: the expected step's communication (see expected_comm.h),
 * purpose by purpose, hidden under compute or exposed as the stack says,
 * in bytes after the network's efficiency at its message size.
 *
 * Rules, each an assumption stated where it is used:
 * - Network efficiency: a collective's message of b bytes per call runs
 *   at eff(b) of the link's rate (after its algorithm and protocol's
 *   share, comm_algo.h), from the calibration's nccl-tests curve for its
 *   kind (efficiency 1 where no curve is measured), and over IB at NCCL's
 *   share of the hardware's IB rate (calibration_nccl_ib_share; not
 *   DeepEP's kernels). The curve's time at b, measured on its own ranks
 *   and nodes, holds the latency of the algorithm NCCL ran there and that
 *   algorithm's share: both are taken out (the bandwidth left is b over
 *   the measured time less that latency, over that share relative to its
 *   share at the largest size), so the plan's own latency and share,
 *   charged beside it, are not counted twice (docs/model.md).
 * - What the stack overlaps: EP dispatch and combine under DualPipe's
 *   paired chunks (dualpipe, a schedule whose row pairs forward and
 *   backward chunks: paired_fb), or under combined 1F1B's paired layer
 *   nodes (any schedule) all but what its compute stream waits for
 *   (combined_1f1b_hidden, ep_overlap.h); TP with
 *   tp_comm_overlap; pipeline sends as stack_p2p_hidden says (interleaved:
 *   a schedule of virtual stages, its row's vpp); context-parallel keys
 *   and values with their attention as a ring overlaps them (each step's
 *   block is sent while the step before computes: what the transfers
 *   take beyond the ring's attention is exposed); per-micro-batch DP (ZeRO-2/3)
 * with dp_grad_overlap; the step-end sync and gather with one micro-batch's
 * compute when dp_grad_overlap / dp_param_overlap.
 * - Dropless routing: the all-to-all on each link takes the load its
 *   busiest receiver sees (ep_link_loads).
 */
#include "expected_comm.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "cost_work.h"
#include "ep_overlap.h"

/* What the network lookups read: the calibration (NULL: none, every
 * link at its full rate), the cluster (whose collectives library ran the
 * curves) and the plan's lookups (NULL: none kept). */
struct net {
    const struct calibration *cal;
    const struct hardware *hw;
    struct expected_memo *memo;
};

/* Whether a purpose's traffic hides under compute or is waited for. */
enum way { WAY_EXPOSED, WAY_HIDDEN };

static enum way way_of(bool hidden)
{
    return hidden ? WAY_HIDDEN : WAY_EXPOSED;
}

/* The comm_kind NCCL measured a curve of kind `kind` with, and its bus
 * bandwidth factor on r ranks (nccl-tests: busbw = algbw x factor). */
static int curve_kind(enum calibration_collective kind, double r, double *f)
{
    switch (kind) {
    case CALIBRATION_ALL_REDUCE:
        *f = 2 * (r - 1) / r;
        return COMM_ALL_REDUCE;
    case CALIBRATION_ALL_GATHER:
        *f = (r - 1) / r;
        return COMM_ALL_GATHER;
    case CALIBRATION_REDUCE_SCATTER:
        *f = (r - 1) / r;
        return COMM_REDUCE_SCATTER;
    default:
        *f = (r - 1) / r;
        return COMM_ALL_TO_ALL;
    }
}

/*
 * The curve's bus bandwidth at `bytes` (GB/s) with the latency and the
 * share of the algorithm NCCL picked there on the curve's own ranks and
 * nodes taken out (relative to its share at the curve's largest size,
 * whose busbw is `top`): bytes x factor over the measured time less that
 * latency, over the share's ratio. The curve's busbw where its ranks are
 * not known or no collectives file is loaded.
 */
static double bandwidth_only(const struct net *n,
                             const struct calibration_curve *c,
                             enum calibration_collective kind,
                             double bytes,
                             double at,
                             double top)
{
    struct plan_span span;
    struct comm_algo pick, big;
    double f, t, lat, r = (double)c->ranks;
    int k;
    if (!n->hw || !n->hw->coll || c->ranks < 2 || c->nodes < 1 ||
        c->ranks % c->nodes != 0)
        return at;
    span.size = c->ranks;
    span.nodes = c->nodes;
    span.per_node = c->ranks / c->nodes;
    k = curve_kind(kind, r, &f);
    t = bytes * f / (at * 1e9); /* the measured time, s */
    comm_algo_pick(n->hw, span, k, COMM_BY_LIBRARY, bytes,
                   bytes * f / (top * 1e9), &pick);
    comm_algo_pick(n->hw, span, k, COMM_BY_LIBRARY, c->bytes[c->n - 1],
                   c->bytes[c->n - 1] * f / (top * 1e9), &big);
    lat = comm_lat_s(n->hw, pick.lat);
    if (t <= lat)
        return INFINITY;
    return bytes * f / (t - lat) / 1e9 / (pick.share / big.share);
}

/* Efficiency of the link for NCCL's collective kind at `bytes` per call:
 * the curve's bus bandwidth there without its latency over its largest
 * (1 without a curve, at most 1), times NCCL's share of the IB rate on
 * the inter-node link. */
static double efficiency(const struct net *n,
                         enum calibration_link link,
                         enum calibration_collective kind,
                         double bytes)
{
    const struct calibration *cal = n->cal;
    struct expected_memo *memo = n->memo;
    const struct calibration_curve *c =
        cal ? calibration_curve_get(cal, link, kind) : NULL;
    double level = cal && link == CALIBRATION_LINK_INTER
                       ? calibration_nccl_ib_share(cal, kind)
                       : 1;
    double at, top, eff;
    size_t i;
    if (!c || c->n == 0 || bytes <= 0)
        return level;
    if (memo)
        for (i = 0; i < memo->net[link][kind].n; i++)
            if (memo->net[link][kind].bytes[i] == bytes)
                return memo->net[link][kind].eff[i] * level;
    at = calibration_busbw_gbps(cal, link, kind, bytes, NULL);
    top = calibration_busbw_gbps(cal, link, kind, c->bytes[c->n - 1], NULL);
    if (at > 0 && top > 0)
        at = bandwidth_only(n, c, kind, bytes, at, top);
    eff = at <= 0 || top <= 0 ? 1 : at < top ? at / top : 1;
    if (memo) { /* the oldest size gives way */
        i = memo->net[link][kind].next;
        memo->net[link][kind].bytes[i] = bytes;
        memo->net[link][kind].eff[i] = eff;
        memo->net[link][kind].next = (i + 1) % EXPECTED_MEMO_SIZES;
        if (memo->net[link][kind].n < EXPECTED_MEMO_SIZES)
            memo->net[link][kind].n++;
    }
    return eff * level;
}

/* Bytes of one purpose's traffic on a link (l: at the link's rate, and
 * as moved for its message size, bytes over calls x `per`) after the
 * efficiency at that size. */
static double effective(const struct net *n,
                        enum calibration_link link,
                        enum calibration_collective kind,
                        const struct comm_load *l,
                        double per)
{
    double calls = l->calls * per;
    if (l->at <= 0)
        return 0;
    return l->at /
           efficiency(n, link, kind, calls > 0 ? l->bytes / calls : l->bytes);
}

static void lat_add(struct comm_lat *to, struct comm_lat lat)
{
    to->steps += lat.steps;
    to->net += lat.net;
}

/* Adds a purpose's traffic to hidden or exposed (way): effective bytes
 * (eib, env), bytes at the links' rates and the latency (ib, nv). */
static void add(struct expected_work *x,
                enum way way,
                double eib,
                double env,
                const struct comm_load *ib,
                const struct comm_load *nv)
{
    if (way == WAY_HIDDEN) {
        x->hid_ib += eib;
        x->hid_nv += env;
        x->hid_ib_raw += ib->at;
        x->hid_nv_raw += nv->at;
        lat_add(&x->hid_ib_lat, ib->lat);
        lat_add(&x->hid_nv_lat, nv->lat);
    } else {
        x->xp_ib += eib;
        x->xp_nv += env;
        x->xp_ib_raw += ib->at;
        x->xp_nv_raw += nv->at;
        lat_add(&x->xp_ib_lat, ib->lat);
        lat_add(&x->xp_nv_lat, nv->lat);
    }
}

/* Adds a purpose's traffic to hidden or exposed, raw and effective. */
static void route(struct expected_work *x,
                  const struct net *n,
                  enum calibration_collective kind,
                  enum way way,
                  const struct comm_load *ib,
                  const struct comm_load *nv)
{
    add(x, way, effective(n, CALIBRATION_LINK_INTER, kind, ib, 1),
        effective(n, CALIBRATION_LINK_INTRA, kind, nv, 1), ib, nv);
}

/* l with its bytes, calls and latency x f: a share of a purpose's. */
static struct comm_load share(struct comm_load l, double f)
{
    l.bytes *= f;
    l.at *= f;
    l.calls *= f;
    l.lat.steps *= f;
    l.lat.net *= f;
    return l;
}

/* Traffic ib and nv that runs under `under` seconds of compute: its
 * time (its busier link's at the links' expected rates, latency left out
 * of the comparison) beyond `under` exposed, the rest hidden, routed at
 * curve's rates (a curve of NULLs: the link's full rate). */
static void route_under(struct expected_work *x,
                        const struct net *n,
                        const struct net *curve,
                        const struct comm_load *ib,
                        const struct comm_load *nv,
                        double under)
{
    /* seconds at the links' expected rates (terms_rates.c) */
    double t_ib =
        ib->at > 0 ? ib->at / (n->hw->ib_bps * x->network_efficiency) : 0;
    double t_nv =
        nv->at > 0 ? nv->at / (n->hw->nvlink_bps * x->network_efficiency) : 0;
    double t = t_ib > t_nv ? t_ib : t_nv, f = 0;
    struct comm_load hib, hnv, xib, xnv;
    if (t > under && t > 0)
        f = (t - under) / t;
    hib = share(*ib, 1 - f);
    hnv = share(*nv, 1 - f);
    xib = share(*ib, f);
    xnv = share(*nv, f);
    route(x, curve, CALIBRATION_ALL_GATHER, WAY_HIDDEN, &hib, &hnv);
    route(x, curve, CALIBRATION_ALL_GATHER, WAY_EXPOSED, &xib, &xnv);
}

/*
 * Context parallelism as a ring runs it (Transformer Engine's p2p, as
 * Megatron-LM and torchtitan's ring attention do): step i attends to the
 * block received in step i - 1 while the next block is sent, so a step
 * waits where its transfer outlasts its compute. All steps over other
 * ranks' blocks alike, the transfers' time beyond those steps' attention
 * (x->attn_ring_s) is exposed, the rest hidden. The transfer's time is
 * its busier link's, at the link's rate (no nccl-tests curve: the ring's
 * sends are point-to-point), latency left out of the comparison. A
 * stack that all-gathers them before the attention (cp_comm = allgather:
 * Llama 3, arXiv 2407.21783 §3.3.2, "the all-gather communication
 * latency is exposed in the critical path") waits for all of it; one
 * that issues one all-gather as the first, local block's attention
 * starts and waits for it at the second (cp_comm = allgather_first:
 * PyTorch's _AllGatherRotater, torchtitan's default rotate method, "to
 * all-gather all kv shards on ranks after the first sub-SDPA
 * computation") hides it under that block's attention only.
 */
static void cp_route(struct expected_work *x,
                     const struct net *n,
                     const struct stack_spec *s,
                     const struct comm_totals *ct)
{
    const struct net none = {NULL, NULL, NULL}; /* no nccl-tests curve */
    /* the attention the transfers run under */
    double under = s->cp_comm == STACK_CP_RING ? x->attn_ring_s
                   : s->cp_comm == STACK_CP_ALLGATHER_FIRST
                       ? x->attn_cal_s - x->attn_ring_s
                       : 0;
    route_under(x, n, &none, &ct->what_ib[COMM_CP], &ct->what_nvlink[COMM_CP],
                under);
}

/*
 * The backward's re-gathers of the column-parallel GEMMs' inputs under
 * sequence parallelism (comm.c; model_derive.c tp_regathers): Megatron-LM
 * issues each one async before the input gradient's GEMM of the layer it
 * feeds and waits for it after that GEMM, so it runs under that GEMM:
 * what its transfer takes beyond that GEMM's time is exposed, the rest
 * hidden (as cp_route, at the link's expected rate, latency left out of
 * the comparison). Those GEMMs' time is their share of the rank's GEMM
 * time at its mean rate: their forward FLOPs (regather_fwd) over all of
 * the GEMMs' passes (3 x fwd_linear, 4 x under full recomputation).
 * Hidden whole where the stack overlaps all TP traffic (tp_comm_overlap).
 */
static void regather_route(struct expected_work *x,
                           const struct net *n,
                           const struct stack_spec *s,
                           const struct plan *p,
                           const struct model_chunk *c,
                           const struct comm_totals *ct)
{
    double passes = p->recompute == MODEL_RECOMPUTE_FULL ? 4 : 3;
    double under = s->tp_comm_overlap  ? HUGE_VAL
                   : c->fwd_linear > 0 ? x->gemm_cal_s * c->regather_fwd /
                                             (passes * c->fwd_linear)
                                       : 0;
    route_under(x, n, n, &ct->what_ib[COMM_TP_REGATHER],
                &ct->what_nvlink[COMM_TP_REGATHER], under);
}

/* l with its bytes (as moved and at the rate) x f: a loaded rank's. */
static struct comm_load loaded(struct comm_load l, double f)
{
    l.bytes *= f;
    l.at *= f;
    return l;
}

/*
 * Combined 1F1B (ep_overlap.h): the share of the all-to-all (eib, env:
 * bytes at each link's rate after efficiency) that hides under the other
 * micro-batch's compute. Its time is the busier link's at the expected
 * rates (latency left out, as cp_route's), a quarter to each of the
 * layer's four all-to-alls; the compute nodes are the rank's
 * (x->pair_*, expected_compute.c) times the stack's compute overhead;
 * without delay_wgrad (--delay-wgrad-compute) the experts' weight
 * gradients are computed with their data gradients, before the dispatch's
 * backward can start.
 * What the compute stream waits for (ep_overlap_exposed_s) is exposed,
 * the rest hidden.
 */
static double combined_1f1b_hidden(const struct expected_work *x,
                                   const struct net *n,
                                   const struct stack_spec *s,
                                   const struct plan *p,
                                   const struct expected_rank *rk,
                                   double eib,
                                   double env)
{
    double t_ib = eib > 0 ? eib / (n->hw->ib_bps * x->network_efficiency) : 0;
    double t_nv =
        env > 0 ? env / (n->hw->nvlink_bps * x->network_efficiency) : 0;
    double t = t_ib > t_nv ? t_ib : t_nv;
    double layers = (double)rk->c->moe_layers * rk->microbatches;
    double k = x->compute_overhead / layers, q = t / (4 * layers), exposed;
    struct ep_overlap_layer l;
    if (!(t > 0) || !(layers > 0))
        return 1;
    l.attn_fwd = x->pair_attn_fwd_s * k;
    l.attn_bwd = x->pair_attn_bwd_s * k;
    l.mlp_fwd = x->pair_mlp_fwd_s * k;
    l.mlp_dgrad = x->pair_mlp_dgrad_s * k;
    l.mlp_wgrad = x->pair_mlp_wgrad_s * k;
    if (!s->delay_wgrad) { /* the experts' backward computes both */
        l.mlp_dgrad += l.mlp_wgrad;
        l.mlp_wgrad = 0;
    }
    l.dispatch_fwd = l.combine_fwd = l.dispatch_bwd = l.combine_bwd = q;
    exposed = ep_overlap_exposed_s(
        &l, layers,
        ep_overlap_unpaired(p->pp, p->vpp, rk->rank, rk->microbatches));
    return exposed >= t ? 0 : 1 - exposed / t;
}

/*
 * The MoE dispatch and combine by the stack's dispatcher (comm.h
 * comm_ep_dispatch): NCCL all-to-all at the nccl-tests all-to-all curve
 * for its message per peer (nccl-tests' size is the per-rank buffer, one
 * share of it per rank of the measured run: the per-peer message times
 * the curve's ranks, the EP group's where the curve does not say), the
 * all-gather dispatcher at the all-gather curve, DeepEP's kernels at
 * their measured share of each link's rate (the stack's
 * ep_ib_efficiency, ep_nvlink_efficiency), not at NCCL's curves.
 */
static void ep_route(struct expected_work *x,
                     const struct net *n,
                     const struct stack_spec *s,
                     const struct plan *p,
                     long domain,
                     const struct expected_rank *rk,
                     enum way way)
{
    const struct calibration *cal = n->cal;
    const struct comm_totals *ct = rk->ct;
    /* the most loaded rank's tokens (x->load; 1: balanced) */
    struct comm_load ib = loaded(ct->what_ib[COMM_EP], x->load_ib);
    struct comm_load nv = loaded(ct->what_nvlink[COMM_EP], x->load_nv);
    double eib, env, h;
    /* the sums before (ep_ib, ep_nv: what this adds to them) */
    double hib0 = x->hid_ib, hnv0 = x->hid_nv, xib0 = x->xp_ib, xnv0 = x->xp_nv;
    if (s->ep_dispatcher == STACK_DISPATCH_ALLTOALL) {
        struct plan_span sp = plan_span(p->ep, 1, domain);
        double e = (double)sp.size, g = (double)sp.per_node;
        double ib_scale = 1, nv_scale = 1;
        const struct calibration_curve *ci =
            cal ? calibration_curve_get(cal, CALIBRATION_LINK_INTER,
                                        CALIBRATION_ALLTOALL)
                : NULL;
        const struct calibration_curve *cn =
            cal ? calibration_curve_get(cal, CALIBRATION_LINK_INTRA,
                                        CALIBRATION_ALLTOALL)
                : NULL;
        double ri = ci && ci->ranks > 0 ? (double)ci->ranks : e;
        double rn = cn && cn->ranks > 0 ? (double)cn->ranks : g;
        /* looked up at bytes / (calls x peers / ranks): the message per
         * peer x the curve's ranks */
        if (e > g)
            ib_scale = (e - g) / ri;
        if (g > 1)
            nv_scale = (g - 1) / rn;
        eib = effective(n, CALIBRATION_LINK_INTER, CALIBRATION_ALLTOALL, &ib,
                        ib_scale);
        env = effective(n, CALIBRATION_LINK_INTRA, CALIBRATION_ALLTOALL, &nv,
                        nv_scale);
    } else if (s->ep_dispatcher == STACK_DISPATCH_ALLGATHER) {
        eib = effective(n, CALIBRATION_LINK_INTER, CALIBRATION_ALL_GATHER, &ib,
                        1);
        env = effective(n, CALIBRATION_LINK_INTRA, CALIBRATION_ALL_GATHER, &nv,
                        1);
    } else {
        double ei = s->ep_ib_efficiency > 0 ? s->ep_ib_efficiency : 1;
        double en = s->ep_nvlink_efficiency > 0 ? s->ep_nvlink_efficiency : 1;
        eib = ib.at / ei;
        env = nv.at / en;
    }
    h = way == WAY_EXPOSED ? 0
        : s->ep_a2a_overlap == STACK_EP_COMBINED_1F1B
            ? combined_1f1b_hidden(x, n, s, p, rk, eib, env)
            : 1;
    if (h > 0) {
        struct comm_load hib = share(ib, h), hnv = share(nv, h);
        add(x, WAY_HIDDEN, eib * h, env * h, &hib, &hnv);
    }
    if (h < 1) {
        struct comm_load xib = share(ib, 1 - h), xnv = share(nv, 1 - h);
        add(x, WAY_EXPOSED, eib * (1 - h), env * (1 - h), &xib, &xnv);
    }
    x->ep_hidden_share = h;
    x->ep_ib = (x->hid_ib - hib0) + (x->xp_ib - xib0);
    x->ep_nv = (x->hid_nv - hnv0) + (x->xp_nv - xnv0);
    x->ep_ib_raw = ib.at;
    x->ep_nv_raw = nv.at;
}

/*
 * The all-to-all's load on each link (x->load_ib, x->load_nv) under
 * dropless routing. What waits is the busiest receiver of each link:
 * - NCCL all-to-all: each copy of a token goes to its expert's GPU, over
 *   IB from another node: both links carry the most loaded rank's share,
 *   x->load.
 * - All-gather: every token goes to every rank, whatever its experts:
 *   no rank receives more than another (1, 1).
 * - DeepEP: a token crosses IB once per destination node, to the GPU of
 *   its sender's index there, which forwards it over NVLink to its
 *   experts' GPUs. A GPU's NVLink receives its own experts' tokens (the
 *   most loaded rank's share); its NIC, its index's share of everything
 *   bound for its node: the node's load, the sum of its `g` EP ranks'
 *   loads, whose spread is cv / sqrt(g) where the ranks' loads vary
 *   independently (the one spread the stack gives is per rank), the most
 *   loaded of the group's nodes 1 + cv / sqrt(g) z(nodes).
 */
static void ep_link_loads(const struct stack_spec *s,
                          const struct plan *p,
                          long domain,
                          long experts,
                          struct expected_work *x)
{
    struct plan_span sp;
    if (x->load <= 1 || s->ep_dispatcher == STACK_DISPATCH_ALLGATHER) {
        x->load_ib = x->load_nv = 1;
        return;
    }
    switch (s->ep_dispatcher) {
    case STACK_DISPATCH_DEEPEP:
        sp = plan_span(p->ep, 1, domain);
        x->load_nv = x->load;
        x->load_ib = sp.nodes > 1
                         ? expected_load_factor(s->moe_load_cv /
                                                    sqrt((double)sp.per_node),
                                                sp.nodes, experts)
                         : 1;
        return;
    default:
        x->load_ib = x->load_nv = x->load;
        return;
    }
}

/* l less m (what the steady phase holds besides a purpose), at least 0
 * in each part. */
static struct comm_load less(struct comm_load l, const struct comm_load *m)
{
    l.bytes = l.bytes - m->bytes > 0 ? l.bytes - m->bytes : 0;
    l.at = l.at - m->at > 0 ? l.at - m->at : 0;
    l.calls = l.calls - m->calls > 0 ? l.calls - m->calls : 0;
    l.lat.steps =
        l.lat.steps - m->lat.steps > 0 ? l.lat.steps - m->lat.steps : 0;
    l.lat.net = l.lat.net - m->lat.net > 0 ? l.lat.net - m->lat.net : 0;
    return l;
}

/* Communication: by purpose, hidden or exposed as the stack says. */
static void comm_work(const struct net *n,
                      const struct stack *st,
                      long domain,
                      const struct plan *p,
                      const struct expected_rank *rk,
                      struct expected_work *x)
{
    const struct comm_totals *ct = rk->ct;
    const struct calibration *cal = n->cal;
    const struct net none = {NULL, NULL, NULL}; /* no nccl-tests curve */
    const struct stack_spec *s = &st->spec;
    const struct plan_schedule_row *sch = plan_schedule_of(p->schedule);
    enum way ep_way =
        way_of((s->ep_a2a_overlap == STACK_EP_DUALPIPE && sch->paired_fb) ||
               s->ep_a2a_overlap == STACK_EP_COMBINED_1F1B);
    enum way pp_way = way_of(stack_p2p_hidden(st, sch->vpp));
    enum calibration_collective sync =
        p->zero == 0 ? CALIBRATION_ALL_REDUCE : CALIBRATION_REDUCE_SCATTER;
    struct comm_load dp_ib = ct->phase_ib[COMM_STEADY];
    struct comm_load dp_nv = ct->phase_nvlink[COMM_STEADY];
    struct comm_load dep_ib = comm_dep_load(ct->what_ib);
    struct comm_load dep_nv = comm_dep_load(ct->what_nvlink);
    int wt;

    ep_route(x, n, s, p, domain, rk, ep_way);
    route(x, n, CALIBRATION_ALL_GATHER, way_of(s->tp_comm_overlap),
          &ct->what_ib[COMM_TP], &ct->what_nvlink[COMM_TP]);
    regather_route(x, n, s, p, rk->c, ct);
    /* no nccl-tests curve for point-to-point: the link's full rate */
    route(x, &none, CALIBRATION_ALL_GATHER, pp_way, &ct->what_ib[COMM_PP],
          &ct->what_nvlink[COMM_PP]);
    cp_route(x, n, s, ct);
    /* DP with the micro-batches (ZeRO-2/3): what the steady phase holds
     * besides the purposes above */
    for (wt = COMM_TP; wt <= COMM_PP; wt++) {
        dp_ib = less(dp_ib, &ct->what_ib[wt]);
        dp_nv = less(dp_nv, &ct->what_nvlink[wt]);
    }
    route(x, n, CALIBRATION_ALL_GATHER, way_of(s->dp_grad_overlap), &dp_ib,
          &dp_nv);
    /* the ramp's own traffic (EP, TP, CP), after efficiency (DeepEP's
     * kernels are not NCCL's: its share of the IB rate is the stack's) */
    x->dep_ib =
        effective(n, CALIBRATION_LINK_INTER, CALIBRATION_ALLTOALL, &dep_ib, 1);
    if (cal && s->ep_dispatcher == STACK_DISPATCH_DEEPEP)
        x->dep_ib *= calibration_nccl_ib_share(cal, CALIBRATION_ALLTOALL);
    x->dep_nv =
        effective(n, CALIBRATION_LINK_INTRA, CALIBRATION_ALLTOALL, &dep_nv, 1);
    x->sync_ib =
        effective(n, CALIBRATION_LINK_INTER, sync, &ct->phase_ib[COMM_SYNC], 1);
    x->sync_nv = effective(n, CALIBRATION_LINK_INTRA, sync,
                           &ct->phase_nvlink[COMM_SYNC], 1);
    x->gather_ib = effective(n, CALIBRATION_LINK_INTER, CALIBRATION_ALL_GATHER,
                             &ct->phase_ib[COMM_GATHER], 1);
    x->gather_nv = effective(n, CALIBRATION_LINK_INTRA, CALIBRATION_ALL_GATHER,
                             &ct->phase_nvlink[COMM_GATHER], 1);
    x->grad_hide = s->dp_grad_overlap ? 1 : 0;
    x->param_hide = s->dp_param_overlap ? 1 : 0;
}

void expected_comm_fill(const struct model *m,
                        const struct hardware *hw,
                        const struct calibration *cal,
                        const struct stack *st,
                        const struct plan *p,
                        const struct expected_rank *rk,
                        struct expected_work *x)
{
    const struct net n = {cal, hw, rk->memo};
    ep_link_loads(&st->spec, p, hw->domain, m->spec.routed_experts, x);
    comm_work(&n, st, hw->domain, p, rk, x);
}
