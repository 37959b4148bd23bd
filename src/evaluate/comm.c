/*
 * comm: collectives of a plan, bytes per link per GPU per step.
 *
 * Counts per micro-batch follow Megatron-LM (Narayanan et al. 2021 §3.2,
 * Korthikanti et al. 2022 §4.2.2): with sequence parallelism each layer
 * does two all-gathers and two reduce-scatters of the s*b*h activations in
 * the forward pass and the same in the backward pass; pipeline stages send
 * s*b*h activations forward and their gradients back per micro-batch.
 * ZeRO (Rajbhandari et al. 2020 §7): stage 3 gathers weights in forward
 * and again in backward and reduce-scatters gradients, 3 x model size per
 * pass; stages 0-2 move 2 x model size per step. MoE dispatch/combine per
 * DeepSeek-V3 §3.2.2 and ISCA'25 §2.3.2 (FP8 dispatch, BF16 combine).
 */
#include "comm.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "collectives.h"
#include "memory.h"
#include "terms.h"

struct acc {
    struct comm_collective *list;
    size_t max, n;
    struct comm_totals *tot;
    int phase; /* enum comm_phase of what is recorded now */
    int by;    /* enum comm_algo_by of what is recorded now */
    /* the rank's: its model, plan, cluster, micro-batches per chunk and
     * whether ZeRO-2/3 gradients are reduced once per step
     * (data_parallel) */
    const struct model_spec *s;
    const struct plan *p;
    const struct hardware *hw;
    struct comm_algo_memo *memo;  /* the caller's prepared picks, or NULL */
    struct comm_pick_site *sites; /* comm_out's */
    size_t site;
    double ib_s_per_byte, nv_s_per_byte; /* 1 / the links' rates */
    double mb;
    bool per_step;
};

/* What one collective moves (record): calls, bytes in total and over
 * each link. */
struct flow {
    double calls, bytes, ib, nv;
};

/* Adds what a collective puts on one link to l. */
static inline void
load_add(struct comm_load *l, double bytes, double at, struct comm_lat lat)
{
    l->bytes += bytes;
    l->at += at;
    l->lat.steps += lat.steps;
    l->lat.net += lat.net;
}

/* The pick for one call of a collective of algorithmic volume `volume`
 * per GPU whose busiest link needs link_s at its full rate: from the
 * memo's prepared group, or one prepared here. */
static void pick_of(const struct acc *a,
                    struct plan_span span,
                    int kind,
                    double volume,
                    double link_s,
                    struct comm_algo *pick)
{
    struct comm_algo_group local, *g;
    if (a->memo) {
        g = comm_algo_memo_get(a->memo, a->hw, span, kind, a->by);
        comm_algo_memo_choose(g, volume * g->size_per_volume, link_s, pick);
        return;
    }
    comm_algo_prepare(a->hw, span, kind, a->by, &local);
    comm_algo_choose(&local, volume * local.size_per_volume, link_s, pick);
}

static inline void record(struct acc *a,
                          const char *name,
                          int what,
                          int kind,
                          struct plan_span span,
                          struct flow f)
{
    struct comm_totals *t = a->tot;
    double calls = f.calls, ib = f.ib, nv = f.nv, ib_at, nv_at;
    struct comm_algo pick;
    struct comm_lat lat, none = {0, 0};
    double link_s = ib * a->ib_s_per_byte;
    bool cross = span.nodes > 1;
    if (nv * a->nv_s_per_byte > link_s)
        link_s = nv * a->nv_s_per_byte;
    if (calls > 0) {
        double per = 1 / calls;
        double vol = f.bytes * per, ls = link_s * per;
        struct comm_pick_site *st =
            a->sites && a->site < COMM_PICK_SITES ? &a->sites[a->site++] : NULL;
        if (st && st->set && st->bytes == vol && st->link_s == ls &&
            st->kind == kind && st->by == a->by && st->span.size == span.size &&
            st->span.per_node == span.per_node &&
            st->span.nodes == span.nodes) {
            pick = st->pick;
        } else {
            pick_of(a, span, kind, vol, ls, &pick);
            if (st) {
                st->set = true;
                st->span = span;
                st->kind = kind;
                st->by = a->by;
                st->bytes = vol;
                st->link_s = ls;
                st->pick = pick;
            }
        }
    } else { /* nothing to pick: no call bears a latency */
        pick.algo = COLLECTIVES_RING;
        pick.proto = COLLECTIVES_SIMPLE;
        pick.share = pick.inv_share = 1;
        pick.lat = none;
    }
    lat.steps = calls * pick.lat.steps;
    lat.net = calls * pick.lat.net;
    ib_at = ib * pick.inv_share;
    nv_at = nv * pick.inv_share;
    /* the whole latency on the link the group spans: a ring's network
     * steps and its steps inside the nodes run one after another, and
     * the busier link's time (the phase's) is at least that link's; the
     * totals over every collective are the phases' (total_phases). A
     * link with no bytes is left as it is: the totals start at +0 and
     * gain no negative value, so adding 0 would change no bit. */
    if (ib > 0 || cross) {
        struct comm_lat on = cross ? lat : none;
        load_add(&t->what_ib[what], ib, ib_at, on);
        load_add(&t->phase_ib[a->phase], ib, ib_at, on);
    }
    if (nv > 0 || !cross) {
        struct comm_lat on = cross ? none : lat;
        load_add(&t->what_nvlink[what], nv, nv_at, on);
        load_add(&t->phase_nvlink[a->phase], nv, nv_at, on);
    }
    if (ib > 0) {
        t->what_ib[what].calls += calls;
        t->phase_ib[a->phase].calls += calls;
    }
    if (nv > 0) {
        t->what_nvlink[what].calls += calls;
        t->phase_nvlink[a->phase].calls += calls;
    }
    if (a->list && a->n < a->max) {
        struct comm_collective *c = &a->list[a->n++];
        c->name = name;
        c->what = what;
        c->kind = kind;
        c->phase = a->phase;
        c->span = span;
        c->calls = calls;
        c->bytes = f.bytes;
        c->ib_bytes = ib;
        c->nvlink_bytes = nv;
        c->algo = pick;
        c->ib_lat = cross ? lat : none;
        c->nvlink_lat = cross ? none : lat;
    }
}

/* t's totals over every collective: the sum of its phases'. */
static void total_phases(struct comm_totals *t)
{
    int k;
    for (k = 0; k < COMM_PHASES; k++) {
        load_add(&t->ib, t->phase_ib[k].bytes, t->phase_ib[k].at,
                 t->phase_ib[k].lat);
        load_add(&t->nvlink, t->phase_nvlink[k].bytes, t->phase_nvlink[k].at,
                 t->phase_nvlink[k].lat);
        t->ib.calls += t->phase_ib[k].calls;
        t->nvlink.calls += t->phase_nvlink[k].calls;
    }
}

static struct comm_group group_of(struct plan_span span, enum comm_model model)
{
    struct comm_group g;
    double size = (double)span.size, k = (double)span.per_node;
    double n = (double)span.nodes;
    g.span = span;
    if (span.size <= 1) { /* no traffic: skip the divisions */
        g.volume = g.ib = g.nv = 0;
        return g;
    }
    g.volume = span.size > 1 ? (size - 1) / size : 0;
    if (model == COMM_FLAT) {
        g.ib = n > 1 ? g.volume : 0;
        g.nv = n > 1 ? 0 : g.volume;
    } else {
        double per_gpu = 1 / k;
        g.ib = (1 - 1 / n) * per_gpu;
        g.nv = 1 - per_gpu;
    }
    return g;
}

/*
 * An all-gather, reduce-scatter or all-reduce of `buffer` bytes in total
 * (summed over its calls) over group g.
 */
static inline void ring(struct acc *a,
                        const char *name,
                        int what,
                        int kind,
                        const struct comm_group *g,
                        double calls,
                        double buffer)
{
    double passes = kind == COMM_ALL_REDUCE ? 2 : 1;
    if (g->span.size <= 1 || buffer <= 0)
        return;
    record(a, name, what, kind, g->span,
           (struct flow){calls, passes * buffer * g->volume,
                         passes * buffer * g->ib, passes * buffer * g->nv});
}

/* C(N-K, k) / C(N, k): chance that k draws from N miss K marked items. */
static double miss(double N, double K, double k)
{
    double r = 1, i;
    for (i = 0; i < k; i++) {
        if (N - K - i <= 0)
            return 0;
        r *= (N - K - i) / (N - i);
    }
    return r;
}

/* 1 - C(N-K, k)/C(N, k) summed by inclusion-exclusion: the chance that k
 * draws from a pool of N (M groups of c) hit every group, and (with the
 * e items of one GPU in the first group excluded) that they hit every
 * group but miss that GPU. */
static double binom(double n, double j)
{
    double r = 1, i;
    for (i = 0; i < j; i++)
        r = r * (n - i) / (i + 1);
    return r;
}

static double all_groups(double N, double c, double M, double k)
{
    double p = 0, j;
    for (j = 0; j <= M; j++)
        p += (fmod(j, 2) == 0 ? 1 : -1) * binom(M, j) * miss(N, j * c, k);
    return p;
}

static double
all_groups_missing_gpu(double N, double c, double M, double e, double k)
{
    double p = 0, j;
    for (j = 0; j <= M - 1; j++)
        p += (fmod(j, 2) == 0 ? 1 : -1) * binom(M - 1, j) *
             (miss(N, e + j * c, k) - miss(N, (j + 1) * c, k));
    return p;
}

void comm_ep_copies(const struct model *m,
                    struct plan_span span,
                    double *ib,
                    double *nvlink)
{
    const struct model_spec *s = &m->spec;
    double E = (double)s->routed_experts, k = (double)s->top_k;
    double n = (double)span.nodes, g = (double)span.per_node;
    double ep = (double)span.size;
    bool limited = s->node_limit > 0 && (double)s->node_limit < n;
    double M = limited ? (double)s->node_limit : n;
    double pool = M * E / n; /* experts on the M nodes a token may use */
    double nodes, gpus;
    /* M nodes holding fewer than top_k experts cannot take a token's
     * top_k (EP spread so thin that a node holds under top_k / M of
     * them): the limit cannot hold there, and routing is unlimited */
    if (limited && pool < k) {
        limited = false;
        M = n;
        pool = E;
    }
    if (limited && s->node_routing == MODEL_ROUTING_AFFINITY && k >= M) {
        /* The M nodes are chosen by their experts' affinity to the token
         * (DeepSeek-V3: the sum of each node's top-2, arXiv 2412.19437
         * §2.1.2; config n_group 8, topk_group 4), so each holds at least
         * one of its top_k experts: experts drawn from the M nodes' pool
         * given that every node gets one. Fewer experts than nodes
         * (k < M) cannot reach every node (the condition has chance 0):
         * they are drawn from the pool as the uniform case below. */
        double c = E / n, e = E / ep;
        double all = all_groups(pool, c, M, k);
        nodes = M;
        gpus = M * g * (1 - all_groups_missing_gpu(pool, c, M, e, k) / all);
    } else {
        nodes = M * (1 - miss(pool, E / n, k));
        gpus = M * g * (1 - miss(pool, E / ep, k));
    }
    *ib = nodes * (n - 1) / n;
    *nvlink = gpus * (g - 1) / g;
}

void comm_ep_dispatch(const struct model *m,
                      struct plan_span span,
                      int dispatcher,
                      enum comm_model model,
                      const struct comm_ep_table *ept,
                      double *volume,
                      double *ib,
                      double *nvlink)
{
    double k = (double)m->spec.top_k, e = (double)span.size;
    double g = (double)span.per_node, n = (double)span.nodes;
    bool cross = span.nodes > 1;
    *volume = *ib = *nvlink = 0;
    if (span.size <= 1)
        return;
    if (dispatcher == STACK_DISPATCH_ALLGATHER) {
        *volume = e - 1;
        if (model == COMM_FLAT) {
            *ib = cross ? *volume : 0;
            *nvlink = cross ? 0 : *volume;
        } else {
            *ib = n - 1;
            *nvlink = e - n;
        }
        return;
    }
    *volume = k * (e - 1) / e;
    if (model == COMM_FLAT) {
        *ib = cross ? *volume : 0;
        *nvlink = cross ? 0 : *volume;
    } else if (dispatcher == STACK_DISPATCH_ALLTOALL) {
        *ib = k * (e - g) / e;
        *nvlink = k * (g - 1) / e;
    } else if (ept && span.size < ept->n) { /* the table's span */
        *ib = ept->ib[span.size];
        *nvlink = ept->nv[span.size];
    } else {
        comm_ep_copies(m, span, ib, nvlink);
    }
}

/*
 * A schedule with two copies (DualPipe): pipeline rank r also holds the
 * chunk of rank pp-1-r, so its
 * data-parallel groups gain that rank's replicas. They sit on other nodes
 * unless both ranks' GPUs share one node (a pipeline inside a node).
 */
static struct plan_span
doubled(struct plan_span s, const struct plan *p, long rank, long domain)
{
    long stage = p->tp * p->cp * p->dp;
    long lo = rank < p->pp - 1 - rank ? rank : p->pp - 1 - rank;
    if (plan_schedule_of(p->schedule)->copies < 2)
        return s;
    s.size *= 2;
    if (s.nodes == 1 &&
        lo * stage / domain == ((p->pp - lo) * stage - 1) / domain)
        s.per_node *= 2;
    else
        s.nodes *= 2;
    return s;
}

void comm_groups_init(struct comm_groups *g,
                      const struct hardware *hw,
                      const struct plan *p,
                      enum comm_model model)
{
    long dom = hw->domain;
    g->hw = hw;
    g->memo = NULL;
    g->model = model;
    g->domain = dom;
    g->tp = group_of(plan_span(p->tp, 1, dom), model);
    g->cp = group_of(plan_span(p->cp, p->tp, dom), model);
    /* DualPipe doubles these per rank (doubled()) */
    g->dp = group_of(plan_span(p->dp * p->cp, p->tp, dom), model);
    g->edp = group_of(plan_span(p->edp, p->ep, dom), model);
    g->ep = group_of(plan_span(p->ep, 1, dom), model);
    g->pp = plan_span(p->pp, p->tp * p->cp * p->dp, dom);
    g->pp_cross = g->pp.nodes > 1;
    g->dispatcher = STACK_DISPATCH_DEEPEP;
    g->tp_regather = true;
}

/* A parameter class of the data-parallel traffic. */
enum dp_params { DP_DENSE, DP_EXPERT };

/*
 * Data-parallel traffic of one parameter class (dense or expert).
 * ZeRO-2/3 gradients: reduce-scattered once per step when they were
 * accumulated unsharded (memory allowing, struct memory), else every
 * micro-batch into the shards.
 */
static void data_parallel(struct acc *a,
                          const struct comm_group *span,
                          double params,
                          double layers,
                          enum dp_params cls)
{
    bool expert = cls == DP_EXPERT;
    const struct model_spec *s = a->s;
    const struct plan *p = a->p;
    double mb = a->mb;
    bool per_step = a->per_step;
    double wb = s->weight_bytes, gb = s->grad_comm_bytes;
    double layer_mb = layers * mb;
    int grads = expert ? COMM_EDP_GRADS : COMM_DP_GRADS;
    int weights = expert ? COMM_EDP_WEIGHTS : COMM_DP_WEIGHTS;
    if (span->span.size <= 1 || params <= 0)
        return;
    switch (p->zero) {
    case 0:
        a->phase = COMM_SYNC;
        ring(a, expert ? "expert gradient all-reduce" : "gradient all-reduce",
             grads, COMM_ALL_REDUCE, span, 1, params * gb);
        break;
    case 1:
        a->phase = COMM_SYNC;
        ring(a,
             expert ? "expert gradient reduce-scatter"
                    : "gradient reduce-scatter",
             grads, COMM_REDUCE_SCATTER, span, 1, params * gb);
        a->phase = COMM_GATHER;
        ring(a,
             expert ? "expert weight all-gather (after step)"
                    : "weight all-gather (after step)",
             weights, COMM_ALL_GATHER, span, 1, params * wb);
        break;
    case 2:
        if (per_step) {
            a->phase = COMM_SYNC;
            ring(a,
                 expert ? "expert gradient reduce-scatter (per step)"
                        : "gradient reduce-scatter (per step)",
                 grads, COMM_REDUCE_SCATTER, span, 1, params * gb);
        } else {
            ring(a,
                 expert ? "expert gradient reduce-scatter (per micro-batch)"
                        : "gradient reduce-scatter (per micro-batch)",
                 grads, COMM_REDUCE_SCATTER, span, mb, params * gb * mb);
        }
        a->phase = COMM_GATHER;
        ring(a,
             expert ? "expert weight all-gather (after step)"
                    : "weight all-gather (after step)",
             weights, COMM_ALL_GATHER, span, 1, params * wb);
        break;
    default:
        ring(a,
             expert ? "ZeRO-3 expert weight all-gather (fwd+bwd)"
                    : "ZeRO-3 weight all-gather (fwd+bwd)",
             weights, COMM_ALL_GATHER, span, 2 * layer_mb,
             2 * mb * params * wb);
        if (per_step) {
            a->phase = COMM_SYNC;
            ring(a,
                 expert ? "ZeRO-3 expert gradient reduce-scatter (per step)"
                        : "ZeRO-3 gradient reduce-scatter (per step)",
                 grads, COMM_REDUCE_SCATTER, span, layers, params * gb);
        } else {
            ring(a,
                 expert ? "ZeRO-3 expert gradient reduce-scatter"
                        : "ZeRO-3 gradient reduce-scatter",
                 grads, COMM_REDUCE_SCATTER, span, layer_mb, mb * params * gb);
        }
        break;
    }
    a->phase = COMM_STEADY;
}

enum status comm_ep_table_init(struct comm_ep_table *t,
                               const struct model *m,
                               long domain,
                               struct diag *d)
{
    long ep, E = m->spec.routed_experts;
    memset(t, 0, sizeof *t);
    if (E <= 0)
        return STATUS_OK;
    t->ib = calloc((size_t)E + 1, sizeof *t->ib);
    t->nv = calloc((size_t)E + 1, sizeof *t->nv);
    if (!t->ib || !t->nv) {
        comm_ep_table_release(t);
        return diag_set(d, STATUS_NOMEM, "out of memory");
    }
    t->n = E + 1;
    for (ep = 1; ep <= E; ep++)
        if (E % ep == 0)
            comm_ep_copies(m, plan_span(ep, 1, domain), &t->ib[ep], &t->nv[ep]);
    return STATUS_OK;
}

void comm_ep_table_release(struct comm_ep_table *t)
{
    if (!t)
        return;
    free(t->ib);
    free(t->nv);
    memset(t, 0, sizeof *t);
}

size_t comm_rank(const struct model *m,
                 const struct hardware *hw,
                 const struct plan *p,
                 const struct model_partition *part,
                 long rank,
                 enum comm_model model,
                 const struct comm_ep_table *ept,
                 const struct comm_out *out)
{
    struct comm_groups g;
    struct plan_rank v;
    struct memory mem;
    comm_groups_init(&g, hw, p, model);
    plan_rank_view(p, part, rank, &v);
    memory_view(m, hw, p, &v, &mem);
    return comm_view(m, p, &v, &g, ept, mem.grads_per_step, out);
}

/* Tensor parallelism: each call moves the micro-batch's s*b*h tensor. */
static void tp_traffic(struct acc *a,
                       const struct comm_groups *g,
                       const struct plan_rank *v)
{
    const struct plan *p = a->p;
    const struct model_chunk *sum = &v->sum;
    /* TP collectives per layer kind (model_layer.tp_collectives), forward
     * and backward, plus those the recomputation redoes. */
    double tp_calls =
        a->mb * (2 * sum->tp_collectives + sum->tp_recompute[p->recompute]);
    double seq_mb = (double)(p->mbs * a->s->seq_len); /* tokens/micro-batch */
    double per_call =
        seq_mb * (double)a->s->hidden * a->s->activation_bytes / (double)p->cp;
    double buffer = tp_calls * per_call;
    double regathers = a->mb * sum->tp_regathers;
    if (p->tp <= 1)
        return;
    if (p->no_sp) /* an all-reduce where SP has an all-gather and a
                   * reduce-scatter: the same bytes, half the calls
                   * (Korthikanti et al. 2022 §4.2.2) */
        ring(a, "TP all-reduce (no sequence parallelism)", COMM_TP,
             COMM_ALL_REDUCE, &g->tp, tp_calls / 2, buffer / 2);
    else {
        ring(a, "TP all-gather (sequence parallel)", COMM_TP, COMM_ALL_GATHER,
             &g->tp, tp_calls / 2, buffer / 2);
        ring(a, "TP reduce-scatter (sequence parallel)", COMM_TP,
             COMM_REDUCE_SCATTER, &g->tp, tp_calls / 2, buffer / 2);
        /* the backward's all-gather of each column-parallel GEMM's input,
         * kept as its shard (model_layer tp_regathers): a call as large */
        if (g->tp_regather)
            ring(a, "TP backward re-gather (sequence parallel)",
                 COMM_TP_REGATHER, COMM_ALL_GATHER, &g->tp, regathers,
                 regathers * per_call);
    }
}

/*
 * Context parallelism of a scan layer (Gated DeltaNet, Mamba-2): a rank's
 * part of the sequence starts from the state the ranks before it end
 * with, so the state (model_mixer's state_elems: heads x key x value, or
 * heads x head x state, and the convolution's last inputs) goes from rank
 * to rank, a scan, not a ring of key/value blocks: forward the state,
 * backward its gradient the other way, and forward again under full
 * recomputation. The last rank waits for cp - 1 such sends in a row: the
 * chain's critical path is counted, cp - 1 sends of one state per scan
 * layer, micro-batch and pass. States in FP32 (the references keep them
 * so: mamba_ssm's state passing, FLA's chunk states); tensor parallelism
 * splits them by heads. Over IB when the group spans nodes (a chain
 * crosses each node boundary once), else NVLink.
 */
static void cp_state_pass(struct acc *a,
                          const struct comm_groups *g,
                          const struct plan_rank *v)
{
    const struct plan *p = a->p;
    const struct model_chunk *sum = &v->sum;
    double passes = p->recompute == MODEL_RECOMPUTE_FULL ? 3 : 2;
    double calls =
        passes * a->mb * (double)sum->scan_layers * (double)(p->cp - 1);
    double bytes = passes * a->mb * (double)(p->cp - 1) * sum->state_elems *
                   (double)p->mbs * 4 / (double)p->tp;
    bool cross = g->cp.span.nodes > 1;
    if (sum->scan_layers <= 0 || bytes <= 0)
        return;
    record(a, "CP scan state pass (fwd) and its gradient (bwd)", COMM_CP,
           COMM_SEND_RECV, g->cp.span,
           (struct flow){calls, bytes, cross ? bytes : 0, cross ? 0 : bytes});
}

/* Context parallelism: K and V gathered in forward and backward, dK/dV
 * reduce-scattered in backward. */
static void cp_traffic(struct acc *a,
                       const struct comm_groups *g,
                       const struct plan_rank *v)
{
    const struct plan *p = a->p;
    const struct model_spec *s = a->s;
    const struct model_chunk *sum = &v->sum;
    bool full = p->recompute == MODEL_RECOMPUTE_FULL;
    double layer_mb = a->mb * (double)sum->count;
    double seq_mb = (double)(p->mbs * s->seq_len); /* tokens/micro-batch */
    double kv =
        a->mb * sum->kv_elems * seq_mb * s->activation_bytes / (double)p->tp;
    if (p->cp <= 1)
        return;
    ring(a, "CP key/value all-gather", COMM_CP, COMM_ALL_GATHER, &g->cp,
         (full ? 3 : 2) * layer_mb, (full ? 3 : 2) * kv);
    ring(a, "CP key/value gradient reduce-scatter", COMM_CP,
         COMM_REDUCE_SCATTER, &g->cp, layer_mb, kv);
    cp_state_pass(a, g, v);
}

/* Expert parallelism: the MoE dispatch and combine as the stack's
 * dispatcher moves them (comm_ep_dispatch). */
static void ep_traffic(struct acc *a,
                       const struct model *m,
                       const struct comm_groups *g,
                       const struct comm_ep_table *ept,
                       const struct plan_rank *v)
{
    const struct plan *p = a->p;
    const struct model_spec *s = a->s;
    const struct model_chunk *sum = &v->sum;
    double moe_mb = a->mb * (double)sum->moe_layers;
    double tokens =
        (double)(p->mbs * s->seq_len) / ((double)p->tp * (double)p->cp);
    double ib, nv, copies, dsp, cmb, h = (double)s->hidden;
    bool fp8 = p->precision == MODEL_FP8;
    double ab = s->activation_bytes;
    double d = fp8 ? s->dispatch_bytes : ab;
    double c = fp8 ? s->combine_bytes : ab;
    double dg = fp8 ? s->dispatch_grad_bytes : ab;
    double cg = fp8 ? s->combine_grad_bytes : ab;
    /* forward again where the recomputation redoes the MoE block
     * (`full`, or the `moe` module) */
    double redo = a->mb * sum->ep_recompute[p->recompute];
    double fwd = (moe_mb + redo) * tokens * h;
    double bwd = moe_mb * tokens * h;
    double calls = 2 * moe_mb + redo;
    if (p->ep <= 1 || moe_mb <= 0)
        return;
    comm_ep_dispatch(m, g->ep.span, g->dispatcher, g->model, ept, &copies, &ib,
                     &nv);
    dsp = fwd * d + bwd * dg;
    cmb = fwd * c + bwd * cg;
    if (g->dispatcher == STACK_DISPATCH_ALLGATHER) { /* Megatron's allgather
                                                      * dispatcher: the
                                                      * combine is a
                                                      * reduce-scatter, the
                                                      * backward the reverse */
        record(a, "EP dispatch all-gather (fwd) + reduce-scatter (bwd)",
               COMM_EP, COMM_ALL_GATHER, g->ep.span,
               (struct flow){calls, copies * dsp, ib * dsp, nv * dsp});
        record(a, "EP combine reduce-scatter (fwd) + all-gather (bwd)", COMM_EP,
               COMM_REDUCE_SCATTER, g->ep.span,
               (struct flow){calls, copies * cmb, ib * cmb, nv * cmb});
    } else {
        a->by = g->dispatcher == STACK_DISPATCH_DEEPEP ? COMM_BY_DEEPEP
                                                       : COMM_BY_LIBRARY;
        record(a, "EP dispatch all-to-all (fwd) + gradient (bwd)", COMM_EP,
               COMM_ALL_TO_ALL, g->ep.span,
               (struct flow){calls, copies * dsp, ib * dsp, nv * dsp});
        record(a, "EP combine all-to-all (fwd) + gradient (bwd)", COMM_EP,
               COMM_ALL_TO_ALL, g->ep.span,
               (struct flow){calls, copies * cmb, ib * cmb, nv * cmb});
        a->by = COMM_BY_LIBRARY;
    }
}

/* Pipeline parallelism: activations sent forward and their gradients
 * back, per micro-batch. */
static void pp_traffic(struct acc *a,
                       const struct comm_groups *g,
                       const struct plan_rank *v)
{
    const struct plan *p = a->p;
    double pp_sends = a->mb * v->pp_sends;
    double seq_mb = (double)(p->mbs * a->s->seq_len); /* tokens/micro-batch */
    double bytes = pp_sends * seq_mb * (double)a->s->hidden *
                   a->s->activation_bytes / ((double)p->tp * (double)p->cp);
    if (p->pp <= 1 || pp_sends <= 0)
        return;
    record(a, "PP activations (fwd) and gradients (bwd)", COMM_PP,
           COMM_SEND_RECV, g->pp,
           (struct flow){pp_sends, bytes, g->pp_cross ? bytes : 0,
                         g->pp_cross ? 0 : bytes});
}

size_t comm_view(const struct model *m,
                 const struct plan *p,
                 const struct plan_rank *v,
                 const struct comm_groups *g,
                 const struct comm_ep_table *ept,
                 bool grads_per_step,
                 const struct comm_out *out)
{
    const struct model_chunk *sum = &v->sum;
    double dense = sum->params_dense / (double)p->tp;
    double expert = sum->params_expert / (double)p->ep;
    struct acc a;

    memset(out->tot, 0, sizeof *out->tot);
    a.list = out->list;
    a.max = out->max;
    a.n = 0;
    a.tot = out->tot;
    a.phase = COMM_STEADY;
    a.by = COMM_BY_LIBRARY;
    a.s = &m->spec;
    a.hw = g->hw;
    a.memo = g->memo;
    a.sites = out->sites;
    a.site = 0;
    a.ib_s_per_byte = 1 / g->hw->ib_bps;
    a.nv_s_per_byte = 1 / g->hw->nvlink_bps;
    a.p = p;
    a.mb = (double)p->microbatches * v->mb_share; /* per chunk */
    a.per_step = grads_per_step;

    tp_traffic(&a, g, v);
    cp_traffic(&a, g, v);
    ep_traffic(&a, m, g, ept, v);
    pp_traffic(&a, g, v);
    if (plan_schedule_of(p->schedule)->copies > 1) { /* the mirrored chunk's
                                                      * replicas */
        struct comm_group dp =
            group_of(doubled(g->dp.span, p, v->rank, g->domain), g->model);
        struct comm_group edp =
            group_of(doubled(g->edp.span, p, v->rank, g->domain), g->model);
        data_parallel(&a, &dp, dense, (double)sum->count, DP_DENSE);
        data_parallel(&a, &edp, expert, (double)sum->moe_layers, DP_EXPERT);
    } else {
        data_parallel(&a, &g->dp, dense, (double)sum->count, DP_DENSE);
        data_parallel(&a, &g->edp, expert, (double)sum->moe_layers, DP_EXPERT);
    }
    total_phases(a.tot);
    return a.n;
}

struct comm_load comm_dep_load(const struct comm_load *what)
{
    struct comm_load d = what[COMM_EP];
    int k;
    for (k = COMM_TP; k <= COMM_CP; k++) {
        d.bytes += what[k].bytes;
        d.at += what[k].at;
        d.calls += what[k].calls;
        d.lat.steps += what[k].lat.steps;
        d.lat.net += what[k].lat.net;
    }
    return d;
}

void comm_collective_times(struct comm_collective *c,
                           size_t n,
                           const struct hardware *hw)
{
    size_t i;
    for (i = 0; i < n; i++) {
        c[i].ib_s = terms_collective_time(hw, c[i].ib_bytes, c[i].algo.share,
                                          hw->ib_bps, c[i].ib_lat);
        c[i].nvlink_s =
            terms_collective_time(hw, c[i].nvlink_bytes, c[i].algo.share,
                                  hw->nvlink_bps, c[i].nvlink_lat);
        c[i].lat_s =
            comm_lat_s(hw, c[i].ib_lat) + comm_lat_s(hw, c[i].nvlink_lat);
    }
}
