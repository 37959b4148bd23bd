/*
 * expected_comm: the expected step's communication (see expected_comm.h),
 * purpose by purpose, hidden under compute or exposed as the stack says,
 * in bytes after the network's efficiency at its message size.
 *
 * Rules, each an assumption stated where it is used:
 * - Network efficiency: a collective's message of b bytes per call runs
 *   at busbw(b) / busbw(largest measured) of the link's achievable rate,
 *   from the calibration's nccl-tests curve for its kind (efficiency 1
 *   where no curve is measured), and over IB at NCCL's share of the
 *   hardware's IB rate (calibration_nccl_ib_share; not DeepEP's kernels).
 * - What the stack overlaps: EP dispatch and combine under DualPipe's
 *   paired chunks (dualpipe, a schedule whose row pairs forward and
 *   backward chunks: paired_fb) or combined 1F1B (any schedule); TP with
 *   tp_comm_overlap; pipeline sends as stack_p2p_hidden says (interleaved:
 *   a schedule of virtual stages, its row's vpp); context-parallel keys
 *   and values with their attention (ring attention overlaps by
 *   construction); per-micro-batch DP (ZeRO-2/3) with dp_grad_overlap;
 *   the step-end sync and gather with one micro-batch's compute when
 *   dp_grad_overlap / dp_param_overlap.
 * - Dropless routing: the all-to-all on each link takes the load its
 *   busiest receiver sees (ep_link_loads).
 */
#include "expected_comm.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>

#include "cost_work.h"

/* What the network lookups read: the calibration (NULL: none, every
 * link at its full rate) and the plan's lookups (NULL: none kept). */
struct net {
    const struct calibration *cal;
    struct expected_memo *memo;
};

/* Whether a purpose's traffic hides under compute or is waited for. */
enum way { WAY_EXPOSED, WAY_HIDDEN };

static enum way way_of(bool hidden)
{
    return hidden ? WAY_HIDDEN : WAY_EXPOSED;
}

/* Efficiency of the link for NCCL's collective kind at `bytes` per call:
 * the curve's bus bandwidth there over its largest (1 without a curve),
 * times NCCL's share of the IB rate on the inter-node link. */
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

/* Bytes of one purpose's traffic on a link after the efficiency at its
 * message size (bytes per call). */
static double effective(const struct net *n,
                        enum calibration_link link,
                        enum calibration_collective kind,
                        double bytes,
                        double calls)
{
    if (bytes <= 0)
        return 0;
    return bytes / efficiency(n, link, kind, calls > 0 ? bytes / calls : bytes);
}

/* Adds a purpose's traffic to hidden or exposed (way): effective bytes (eib,
 * env), as moved (ib, nv), and calls. */
static void add(struct expected_work *x,
                enum way way,
                double eib,
                double env,
                double ib,
                double ib_calls,
                double nv,
                double nv_calls)
{
    if (way == WAY_HIDDEN) {
        x->hid_ib += eib;
        x->hid_nv += env;
        x->hid_ib_raw += ib;
        x->hid_nv_raw += nv;
        x->hid_ib_calls += ib_calls;
        x->hid_nv_calls += nv_calls;
    } else {
        x->xp_ib += eib;
        x->xp_nv += env;
        x->xp_ib_raw += ib;
        x->xp_nv_raw += nv;
        x->xp_ib_calls += ib_calls;
        x->xp_nv_calls += nv_calls;
    }
}

/* Adds a purpose's traffic to hidden or exposed, raw and effective. */
static void route(struct expected_work *x,
                  const struct net *n,
                  enum calibration_collective kind,
                  enum way way,
                  double ib,
                  double ib_calls,
                  double nv,
                  double nv_calls)
{
    add(x, way, effective(n, CALIBRATION_LINK_INTER, kind, ib, ib_calls),
        effective(n, CALIBRATION_LINK_INTRA, kind, nv, nv_calls), ib, ib_calls,
        nv, nv_calls);
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
                     const struct comm_totals *ct,
                     enum way way)
{
    const struct calibration *cal = n->cal;
    /* the most loaded rank's tokens (x->load; 1: balanced) */
    double ib = ct->what_ib[COMM_EP] * x->load_ib;
    double nv = ct->what_nvlink[COMM_EP] * x->load_nv;
    double ib_calls = ct->what_ib_calls[COMM_EP];
    double nv_calls = ct->what_nvlink_calls[COMM_EP];
    double ib_scale = 1, nv_scale = 1;
    bool hidden = way == WAY_HIDDEN;
    double *eib = hidden ? &x->hid_ib : &x->xp_ib;
    double *env = hidden ? &x->hid_nv : &x->xp_nv;
    double eib0 = *eib, env0 = *env;
    if (s->ep_dispatcher == STACK_DISPATCH_ALLTOALL) {
        struct plan_span sp = plan_span(p->ep, 1, domain);
        double e = (double)sp.size, g = (double)sp.per_node;
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
        add(x, way,
            effective(n, CALIBRATION_LINK_INTER, CALIBRATION_ALLTOALL, ib,
                      ib_calls * ib_scale),
            effective(n, CALIBRATION_LINK_INTRA, CALIBRATION_ALLTOALL, nv,
                      nv_calls * nv_scale),
            ib, ib_calls, nv, nv_calls);
    } else if (s->ep_dispatcher == STACK_DISPATCH_ALLGATHER) {
        route(x, n, CALIBRATION_ALL_GATHER, way, ib, ib_calls, nv, nv_calls);
    } else {
        double ei = s->ep_ib_efficiency > 0 ? s->ep_ib_efficiency : 1;
        double en = s->ep_nvlink_efficiency > 0 ? s->ep_nvlink_efficiency : 1;
        add(x, way, ib / ei, nv / en, ib, ib_calls, nv, nv_calls);
    }
    x->ep_hidden = hidden;
    x->ep_ib = *eib - eib0;
    x->ep_nv = *env - env0;
    x->ep_ib_raw = ib;
    x->ep_nv_raw = nv;
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

/* Communication: by purpose, hidden or exposed as the stack says. */
static void comm_work(const struct net *n,
                      const struct stack *st,
                      long domain,
                      const struct plan *p,
                      const struct comm_totals *ct,
                      const struct cost_work *w,
                      struct expected_work *x)
{
    const struct calibration *cal = n->cal;
    const struct net none = {NULL, NULL}; /* no nccl-tests curve */
    const struct stack_spec *s = &st->spec;
    const struct plan_schedule_row *sch = plan_schedule_of(p->schedule);
    enum way ep_way =
        way_of((s->ep_a2a_overlap == STACK_EP_DUALPIPE && sch->paired_fb) ||
               s->ep_a2a_overlap == STACK_EP_COMBINED_1F1B);
    enum way pp_way = way_of(stack_p2p_hidden(st, sch->vpp));
    enum calibration_collective sync =
        p->zero == 0 ? CALIBRATION_ALL_REDUCE : CALIBRATION_REDUCE_SCATTER;
    double dp_ib, dp_nv, dp_ib_calls, dp_nv_calls;
    int wt;

    ep_route(x, n, s, p, domain, ct, ep_way);
    route(x, n, CALIBRATION_ALL_GATHER, way_of(s->tp_comm_overlap),
          ct->what_ib[COMM_TP], ct->what_ib_calls[COMM_TP],
          ct->what_nvlink[COMM_TP], ct->what_nvlink_calls[COMM_TP]);
    /* no nccl-tests curve for point-to-point: the link's full rate */
    route(x, &none, CALIBRATION_ALL_GATHER, pp_way, ct->what_ib[COMM_PP],
          ct->what_ib_calls[COMM_PP], ct->what_nvlink[COMM_PP],
          ct->what_nvlink_calls[COMM_PP]);
    /* ring attention overlaps them by construction */
    route(x, &none, CALIBRATION_ALL_GATHER, WAY_HIDDEN, ct->what_ib[COMM_CP],
          ct->what_ib_calls[COMM_CP], ct->what_nvlink[COMM_CP],
          ct->what_nvlink_calls[COMM_CP]);
    /* DP with the micro-batches (ZeRO-2/3): what the steady phase holds
     * besides the purposes above */
    dp_ib = ct->phase_ib[COMM_STEADY];
    dp_nv = ct->phase_nvlink[COMM_STEADY];
    dp_ib_calls = ct->phase_ib_calls[COMM_STEADY];
    dp_nv_calls = ct->phase_nvlink_calls[COMM_STEADY];
    for (wt = COMM_TP; wt <= COMM_PP; wt++) {
        dp_ib -= ct->what_ib[wt];
        dp_nv -= ct->what_nvlink[wt];
        dp_ib_calls -= ct->what_ib_calls[wt];
        dp_nv_calls -= ct->what_nvlink_calls[wt];
    }
    route(x, n, CALIBRATION_ALL_GATHER, way_of(s->dp_grad_overlap),
          dp_ib > 0 ? dp_ib : 0, dp_ib_calls > 0 ? dp_ib_calls : 0,
          dp_nv > 0 ? dp_nv : 0, dp_nv_calls > 0 ? dp_nv_calls : 0);
    /* the ramp's own traffic (EP, TP, CP), after efficiency (DeepEP's
     * kernels are not NCCL's: its share of the IB rate is the stack's) */
    x->dep_ib = effective(n, CALIBRATION_LINK_INTER, CALIBRATION_ALLTOALL,
                          w->ib_dep_bytes, w->ib_dep_calls);
    if (cal && s->ep_dispatcher == STACK_DISPATCH_DEEPEP)
        x->dep_ib *= calibration_nccl_ib_share(cal, CALIBRATION_ALLTOALL);
    x->dep_nv = effective(n, CALIBRATION_LINK_INTRA, CALIBRATION_ALLTOALL,
                          w->nvlink_dep_bytes, w->nvlink_dep_calls);
    x->sync_ib = effective(n, CALIBRATION_LINK_INTER, sync, w->ib_sync_bytes,
                           w->ib_sync_calls);
    x->sync_nv = effective(n, CALIBRATION_LINK_INTRA, sync,
                           w->nvlink_sync_bytes, w->nvlink_sync_calls);
    x->gather_ib = effective(n, CALIBRATION_LINK_INTER, CALIBRATION_ALL_GATHER,
                             w->ib_gather_bytes, w->ib_gather_calls);
    x->gather_nv = effective(n, CALIBRATION_LINK_INTRA, CALIBRATION_ALL_GATHER,
                             w->nvlink_gather_bytes, w->nvlink_gather_calls);
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
    const struct net n = {cal, rk->memo};
    ep_link_loads(&st->spec, p, hw->domain, m->spec.routed_experts, x);
    comm_work(&n, st, hw->domain, p, rk->ct, rk->w, x);
}
