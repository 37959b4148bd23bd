/*
 * cost: work of each pipeline rank, the slowest rank's times, MFU.
 *
 * Bubbles (DualPipe README table; Narayanan et al. 2021 §2.2; Qi et al.
 * 2024), with F, B, W the forward, full backward and weight-gradient
 * times of one micro-batch through one stage:
 *   1F1B (p-1)(F+B); interleaved (p-1)(F+B)/v; ZB1P (p-1)(F+B-2W);
 *   DualPipe (p/2-1)(F&B+B-3W), F&B = F+B (forward and backward chunks
 *   overlapped). F+B is the step's core time over the micro-batches;
 *   F, B and W split it by FLOPs (W = the GEMMs' forward FLOPs).
 */
#include "cost.h"

#include <stdlib.h>
#include <string.h>

#include "terms.h"

const char *cost_bound_label(int bound)
{
    static const char *const names[] = {"compute", "IB", "NVLink", "HBM"};
    if (bound >= COST_COMPUTE && bound <= COST_HBM)
        return names[bound];
    return "?";
}

const char *cost_bound_str(int bound)
{
    static const char *const names[] = {"compute", "ib", "nvlink", "hbm"};
    if (bound >= COST_COMPUTE && bound <= COST_HBM)
        return names[bound];
    return "?";
}

enum status cost_ctx_init(struct cost_ctx *ctx,
                          const struct model *m,
                          const struct hardware *hw,
                          enum comm_model comm,
                          struct diag *d)
{
    int p;
    memset(ctx, 0, sizeof *ctx);
    ctx->m = m;
    ctx->hw = hw;
    ctx->comm = comm;
    ctx->nparts = m->units + 1;
    for (p = 0; p < MODEL_PRECISIONS; p++) {
        ctx->parts[p] = calloc((size_t)ctx->nparts, sizeof *ctx->parts[p]);
        if (!ctx->parts[p])
            return diag_set(d, STATUS_NOMEM, "out of memory");
    }
    return comm_ep_table_init(&ctx->ep, m, hw->spec.gpus_per_node, d);
}

static int layout_kind(int schedule, long pp)
{
    if (pp > 1 && schedule == PLAN_DUALPIPE)
        return COST_DUAL;
    if (schedule == PLAN_INTERLEAVED)
        return COST_INTERLEAVED;
    return COST_SINGLE;
}

/* Chunks that cost the same wherever they sit (all but `first`). */
static bool chunk_same(const struct model_chunk *a,
                       const struct model_chunk *b,
                       long chunks)
{
    int p, r;
    if (a->count != b->count || a->moe_layers != b->moe_layers ||
        a->has_embedding != b->has_embedding || a->has_head != b->has_head ||
        (a->first == 0) != (b->first == 0) ||
        (a->first + a->count == chunks) != (b->first + b->count == chunks))
        return false;
    if (a->params_dense != b->params_dense ||
        a->params_expert != b->params_expert ||
        a->params_fp8 != b->params_fp8 ||
        a->params_embedding != b->params_embedding ||
        a->max_layer_dense != b->max_layer_dense ||
        a->max_layer_expert != b->max_layer_expert ||
        a->fwd_fp8 != b->fwd_fp8 || a->fwd_other != b->fwd_other ||
        a->fwd_linear != b->fwd_linear || a->kv_elems != b->kv_elems)
        return false;
    for (r = 0; r < MODEL_RECOMPUTES; r++) {
        if (a->recompute_fp8[r] != b->recompute_fp8[r] ||
            a->recompute_other[r] != b->recompute_other[r])
            return false;
        for (p = 0; p < MODEL_PRECISIONS; p++)
            if (a->act_bytes[p][r] != b->act_bytes[p][r])
                return false;
    }
    return true;
}

static enum status build_layout(struct cost_parts *cp,
                                long pp,
                                long vpp,
                                int schedule,
                                struct diag *d)
{
    struct plan p;
    struct cost_layout *grown, *l;
    long r, chunk[PLAN_RANK_CHUNKS_MAX], other[PLAN_RANK_CHUNKS_MAX];
    double mb[PLAN_RANK_CHUNKS_MAX];
    size_t i;
    int kind = layout_kind(schedule, pp);

    for (i = 0; i < cp->nlayouts; i++)
        if (cp->layouts[i].kind == kind && cp->layouts[i].pp == pp)
            return STATUS_OK;
    grown = realloc(cp->layouts, (cp->nlayouts + 1) * sizeof *grown);
    if (!grown)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    cp->layouts = grown;
    l = &cp->layouts[cp->nlayouts];
    l->kind = kind;
    l->pp = pp;
    l->nreps = 0;
    l->views = calloc((size_t)pp, sizeof *l->views);
    l->ranks = calloc((size_t)pp, sizeof *l->ranks);
    cp->nlayouts++;
    if (!l->views || !l->ranks)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    memset(&p, 0, sizeof p);
    p.pp = pp;
    p.vpp = vpp;
    p.schedule = schedule;
    p.microbatches = 2;
    for (r = 0; r < pp; r++) {
        size_t n = plan_rank_chunks(&p, r, chunk, mb), k, j;
        bool seen = false;
        for (k = 0; k < l->nreps && !seen; k++) {
            size_t m = plan_rank_chunks(&p, l->views[k].rank, other, mb);
            bool same = m == n;
            for (j = 0; j < n && same; j++)
                same = chunk_same(&cp->part.chunk[chunk[j]],
                                  &cp->part.chunk[other[j]], cp->part.chunks);
            if (same)
                l->ranks[k]++;
            seen = same;
        }
        if (!seen) {
            l->ranks[l->nreps] = 1;
            plan_rank_view(&p, &cp->part, r, &l->views[l->nreps++]);
        }
    }
    return STATUS_OK;
}

enum status cost_ctx_prepare(struct cost_ctx *ctx,
                             long pp,
                             long vpp,
                             int schedule,
                             struct diag *d)
{
    long chunks = pp * vpp;
    int p;
    if (chunks < 1 || chunks >= ctx->nparts)
        return diag_set(d, STATUS_RANGE,
                        "cannot split %ld layers into %ld pipeline chunks",
                        ctx->m->units, chunks);
    for (p = 0; p < MODEL_PRECISIONS; p++) {
        struct cost_parts *cp = &ctx->parts[p][chunks];
        /* FP8 plans run eligible GEMMs at the FP8 rate: weigh by time. */
        double w16 = 1 / ctx->hw->bf16_flops;
        double w8 = p == MODEL_FP8 && ctx->hw->fp8_flops > 0
                        ? 1 / ctx->hw->fp8_flops
                        : w16;
        enum status st;
        if (cp->part.chunks != chunks) {
            st = model_partition(ctx->m, chunks, w8, w16, &cp->part, d);
            if (st != STATUS_OK)
                return st;
        }
        st = build_layout(cp, pp, vpp, schedule, d);
        if (st != STATUS_OK)
            return st;
    }
    return STATUS_OK;
}

const struct model_partition *cost_ctx_partition(const struct cost_ctx *ctx,
                                                 const struct plan *p)
{
    long chunks = p->pp * p->vpp;
    if (chunks < 1 || chunks >= ctx->nparts)
        return NULL;
    if (ctx->parts[p->precision][chunks].part.chunks != chunks)
        return NULL;
    return &ctx->parts[p->precision][chunks].part;
}

void cost_ctx_release(struct cost_ctx *ctx)
{
    long i;
    size_t j;
    int p;
    if (!ctx)
        return;
    for (p = 0; p < MODEL_PRECISIONS; p++) {
        if (!ctx->parts[p])
            continue;
        for (i = 0; i < ctx->nparts; i++) {
            struct cost_parts *cp = &ctx->parts[p][i];
            model_partition_release(&cp->part);
            for (j = 0; j < cp->nlayouts; j++) {
                free(cp->layouts[j].views);
                free(cp->layouts[j].ranks);
            }
            free(cp->layouts);
        }
        free(ctx->parts[p]);
        ctx->parts[p] = NULL;
    }
    comm_ep_table_release(&ctx->ep);
}

double
cost_core(double compute, double ib, double nvlink, double hbm, int *bound)
{
    return terms_core(compute, ib, nvlink, hbm, bound);
}

/* The time terms and the step: what ranking needs, nothing more. */
static void step_times(const struct cost_work *w,
                       const struct hardware *hw,
                       struct cost_times *t)
{
    struct terms_env e = {w, hw, NULL, MODEL_BF16, t};
    terms_step(&e, t);
}

void cost_times(const struct cost_work *w,
                const struct hardware *hw,
                const struct model *m,
                int precision,
                struct cost_times *t)
{
    struct terms_env e = {w, hw, m, precision, t};
    memset(t, 0, sizeof *t);
    terms_step(&e, t);
    terms_derived(&e, t);
}

/* Bubble in units of the core time of one micro-batch (see top). */
static double
bubble_coef(const struct plan *p, double fwd, double wgrad, double total)
{
    double pp = (double)p->pp;
    double f = fwd / total, w = wgrad / total, b = 1 - f;
    if (p->pp == 1)
        return 0;
    switch (p->schedule) {
    case PLAN_INTERLEAVED:
        return (pp - 1) / (double)p->vpp;
    case PLAN_ZB:
        return (pp - 1) * (1 - 2 * w);
    case PLAN_DUALPIPE:
        return (pp / 2 - 1) * (1 + b - 3 * w);
    default:
        return pp - 1;
    }
}

/* Work of one pipeline rank: everything but model_flops and tokens. */
static void rank_work(const struct cost_ctx *ctx,
                      const struct plan *p,
                      const struct plan_rank *v,
                      const struct comm_groups *groups,
                      struct cost_work *w,
                      struct comm_collective *list,
                      size_t max,
                      size_t *nlist)
{
    const struct model_spec *s = &ctx->m->spec;
    const struct model_chunk *c = &v->sum;
    double tp = (double)p->tp, ep = (double)p->ep;
    double tokens = (double)(p->mbs * s->seq_len) / (tp * (double)p->cp);
    double mb = (double)p->microbatches * v->mb_share; /* per chunk */
    double t = mb * tokens;
    int prec = p->precision, rec = p->recompute;
    bool fp8 = prec == MODEL_FP8, full = rec == MODEL_RECOMPUTE_FULL;
    double wb = s->weight_bytes;
    double lin8 = 3 * c->fwd_fp8 + c->recompute_fp8[rec];
    double other = 3 * c->fwd_other + c->recompute_other[rec];
    /* this GPU's weights; the embedding is a lookup, not a GEMM read */
    double dense = c->params_dense / tp, expert = c->params_expert / ep;
    double gpu = (c->params_dense - c->params_embedding) / tp + expert;
    double gpu8 = fp8 ? c->params_fp8 / tp + c->params_fp8_expert / ep : 0;
    double read = gpu8 * 1 + (gpu - gpu8) * wb; /* FP8 copies: 1 byte */
    struct comm_totals ct;
    size_t nl;

    memset(w, 0, sizeof *w);
    if (fp8) {
        w->fp8_flops = t * lin8;
        w->bf16_flops = t * other;
    } else {
        w->bf16_flops = t * (lin8 + other);
    }
    /* Per micro-batch: weights read in forward, backward (and the
     * recomputed forward), gradients accumulated (read + write) or, under
     * ZeRO-2/3, written once; ZeRO-3 gathers weights into HBM twice;
     * saved activations written and read back. */
    w->hbm_bytes = mb * (read * (full ? 3 : 2) +
                         gpu * s->grad_bytes * (p->zero >= 2 ? 1 : 2) +
                         (p->zero >= 3 ? 2 * gpu * wb : 0) +
                         2 * tokens * c->act_bytes[prec][rec]);
    /* Adam: read gradient, read+write master and both moments, write the
     * compute copy of the weights, for this GPU's optimizer shard. */
    w->optimizer_bytes =
        (dense / (p->zero >= 1 ? memory_dense_replicas(p) : 1) +
         expert / (p->zero >= 1 ? memory_expert_replicas(p) : 1)) *
        (s->grad_bytes + 2 * s->master_bytes + 4 * s->moment_bytes + wb);
    w->bubble_coef =
        bubble_coef(p, t * (c->fwd_fp8 + c->fwd_other), t * c->fwd_linear,
                    w->fp8_flops + w->bf16_flops);
    w->microbatches = (double)p->microbatches;

    nl = comm_view(ctx->m, p, v, groups, &ctx->ep, list, max, &ct);
    if (nlist)
        *nlist = nl;
    w->ib_bytes = ct.ib_bytes;
    w->nvlink_bytes = ct.nvlink_bytes;
    w->ib_calls = ct.ib_calls;
    w->nvlink_calls = ct.nvlink_calls;
    w->ep_ib_bytes = ct.what_ib[COMM_EP];
    w->ep_nvlink_bytes = ct.what_nvlink[COMM_EP];
    w->ep_ib_calls = ct.what_ib_calls[COMM_EP];
    w->ep_nvlink_calls = ct.what_nvlink_calls[COMM_EP];
}

/* The prepared layout of plan p (cost_ctx_prepare), or NULL. */
static const struct cost_layout *layout_of(const struct cost_parts *cp,
                                           const struct plan *p)
{
    int kind = layout_kind(p->schedule, p->pp);
    size_t i;
    for (i = 0; i < cp->nlayouts; i++)
        if (cp->layouts[i].kind == kind && cp->layouts[i].pp == p->pp)
            return &cp->layouts[i];
    return NULL;
}

void cost_evaluate(const struct cost_ctx *ctx,
                   const struct plan *p,
                   struct cost_result *r,
                   struct comm_collective *list,
                   size_t max,
                   size_t *nlist)
{
    const struct model *m = ctx->m;
    const struct cost_parts *cp = &ctx->parts[p->precision][p->pp * p->vpp];
    const struct cost_layout *layout = layout_of(cp, p);
    double tokens = (double)p->gbs * (double)m->spec.seq_len;
    double ep_sum = 0, compute_sum = 0;
    struct comm_groups groups;
    const struct plan_rank *critical = NULL;
    struct plan_rank own;
    long k, n = layout ? (long)layout->nreps : p->pp;

    r->plan = *p; /* every other field is set below */
    r->family[0] = '\0';
    r->rank = -1;
    comm_groups_init(&groups, ctx->hw, p, ctx->comm);
    for (k = 0; k < n; k++) {
        const struct plan_rank *v = layout ? &layout->views[k] : &own;
        struct cost_work w;
        struct cost_times t;
        struct memory mem;
        /* the ranks this one stands for weigh the pipeline-wide EP ratio */
        double like = layout ? (double)layout->ranks[k] : 1;
        if (!layout) /* not prepared: slower, same result */
            plan_rank_view(p, &cp->part, k, &own);
        rank_work(ctx, p, v, &groups, &w, NULL, 0, NULL);
        w.tokens = tokens;
        w.gpus = (double)p->gpus;
        w.model_flops = tokens * m->flops_per_token / w.gpus;
        step_times(&w, ctx->hw, &t);
        ep_sum += like * t.ep;
        compute_sum += like * t.compute;
        if (r->rank < 0 || t.step > r->t.step) {
            r->rank = v->rank;
            r->work = w;
            r->t = t;
            if (layout)
                critical = v;
        }
        memory_view(m, ctx->hw, p, v, &mem);
        if (k == 0 || mem.total > r->mem.total)
            r->mem = mem;
    }
    if (list) {
        struct cost_work w;
        if (!critical) {
            plan_rank_view(p, &cp->part, r->rank, &own);
            critical = &own;
        }
        rank_work(ctx, p, critical, &groups, &w, list, max, nlist);
    }
    cost_times(&r->work, ctx->hw, m, p->precision, &r->t);
    r->fits = r->mem.total <= r->mem.capacity;
    r->ep_ratio = compute_sum > 0 ? ep_sum / compute_sum : 0;
}
