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
    return STATUS_OK;
}

enum status cost_ctx_prepare(struct cost_ctx *ctx, long chunks, struct diag *d)
{
    int p;
    if (chunks < 1 || chunks >= ctx->nparts)
        return diag_set(d, STATUS_RANGE,
                        "cannot split %ld layers into %ld pipeline chunks",
                        ctx->m->units, chunks);
    for (p = 0; p < MODEL_PRECISIONS; p++) {
        /* FP8 plans run eligible GEMMs at the FP8 rate: weigh by time. */
        double w16 = 1 / ctx->hw->bf16_flops;
        double w8 = p == MODEL_FP8 && ctx->hw->fp8_flops > 0
                        ? 1 / ctx->hw->fp8_flops
                        : w16;
        enum status st;
        if (ctx->parts[p][chunks].chunks == chunks)
            continue;
        st =
            model_partition(ctx->m, chunks, w8, w16, &ctx->parts[p][chunks], d);
        if (st != STATUS_OK)
            return st;
    }
    return STATUS_OK;
}

void cost_ctx_release(struct cost_ctx *ctx)
{
    long i;
    int p;
    if (!ctx)
        return;
    for (p = 0; p < MODEL_PRECISIONS; p++) {
        if (!ctx->parts[p])
            continue;
        for (i = 0; i < ctx->nparts; i++)
            model_partition_release(&ctx->parts[p][i]);
        free(ctx->parts[p]);
        ctx->parts[p] = NULL;
    }
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

void cost_times(const struct cost_work *w,
                const struct hardware *hw,
                const struct model *m,
                int precision,
                struct cost_times *t)
{
    double peak =
        precision == MODEL_FP8 ? hw->fp8_peak_flops : hw->bf16_peak_flops;
    memset(t, 0, sizeof *t);
    t->compute = w->bf16_flops / hw->bf16_flops +
                 (w->fp8_flops > 0 ? w->fp8_flops / hw->fp8_flops : 0);
    t->ib = w->ib_bytes / hw->ib_bps + w->ib_calls * hw->ib_latency_s;
    t->nvlink = w->nvlink_bytes / hw->nvlink_bps +
                w->nvlink_calls * hw->nvlink_latency_s;
    t->hbm = w->hbm_bytes / hw->hbm_bps;
    t->optimizer = w->optimizer_bytes / hw->hbm_bps;
    t->ep =
        max2(w->ep_ib_bytes / hw->ib_bps + w->ep_ib_calls * hw->ib_latency_s,
             w->ep_nvlink_bytes / hw->nvlink_bps +
                 w->ep_nvlink_calls * hw->nvlink_latency_s);
    t->bound = COST_COMPUTE;
    t->core = t->compute;
    if (t->ib > t->core) {
        t->core = t->ib;
        t->bound = COST_IB;
    }
    if (t->nvlink > t->core) {
        t->core = t->nvlink;
        t->bound = COST_NVLINK;
    }
    if (t->hbm > t->core) {
        t->core = t->hbm;
        t->bound = COST_HBM;
    }
    t->bubble = w->bubble_coef * t->core / w->microbatches;
    t->step = t->bubble + t->optimizer + t->core;
    t->step_serial =
        t->bubble + t->optimizer + max2(t->compute, t->hbm) + t->ib + t->nvlink;
    t->comm_compute_ratio = max2(t->ib, t->nvlink) / t->compute;
    t->tokens_per_s_per_gpu = w->tokens / (t->step * w->gpus);
    t->mfu = w->model_flops / (t->step * hw->bf16_peak_flops);
    t->mfu_precision = w->model_flops / (t->step * peak);
    t->gpu_hours_per_trillion = 1e12 / t->tokens_per_s_per_gpu / 3600;
    t->days = m->spec.tokens / (t->tokens_per_s_per_gpu * w->gpus) / 86400;
    t->cost_usd = t->days * 24 * w->gpus * hw->spec.gpu_hour_usd;
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

/* Work of pipeline rank `rank`: everything but model_flops and tokens. */
static void rank_work(const struct cost_ctx *ctx,
                      const struct plan *p,
                      const struct model_partition *part,
                      long rank,
                      struct cost_work *w,
                      struct comm_collective *list,
                      size_t max,
                      size_t *nlist)
{
    const struct model_spec *s = &ctx->m->spec;
    long chunk[PLAN_RANK_CHUNKS_MAX];
    double mbs[PLAN_RANK_CHUNKS_MAX];
    size_t n = plan_rank_chunks(p, rank, chunk, mbs), i;
    double tp = (double)p->tp, ep = (double)p->ep;
    double tokens = (double)(p->mbs * s->seq_len) / (tp * (double)p->cp);
    int prec = p->precision, rec = p->recompute;
    bool fp8 = prec == MODEL_FP8, full = rec == MODEL_RECOMPUTE_FULL;
    double wb = s->weight_bytes, fwd = 0, wgrad = 0, dense = 0, expert = 0;
    struct comm_totals ct;
    size_t nl;

    memset(w, 0, sizeof *w);
    for (i = 0; i < n; i++) {
        const struct model_chunk *c = &part->chunk[chunk[i]];
        double t = mbs[i] * tokens;
        double lin8 = 3 * c->fwd_fp8 + c->recompute_fp8[rec];
        double other = 3 * c->fwd_other + c->recompute_other[rec];
        double gpu = (c->params_dense - c->params_embedding) / tp +
                     c->params_expert / ep;
        double all = c->params_dense - c->params_embedding + c->params_expert;
        double f8 = fp8 && all > 0 ? c->params_fp8 / all : 0;
        double read = gpu * (f8 * 1 + (1 - f8) * wb);
        if (fp8) {
            w->fp8_flops += t * lin8;
            w->bf16_flops += t * other;
        } else {
            w->bf16_flops += t * (lin8 + other);
        }
        fwd += t * (c->fwd_fp8 + c->fwd_other);
        wgrad += t * c->fwd_linear;
        /* Per micro-batch: weights read in forward, backward (and the
         * recomputed forward), gradients accumulated (read + write) or,
         * under ZeRO-2/3, written once; ZeRO-3 gathers weights into HBM
         * twice; saved activations written and read back. */
        w->hbm_bytes += mbs[i] * (read * (full ? 3 : 2) +
                                  gpu * s->grad_bytes * (p->zero >= 2 ? 1 : 2) +
                                  (p->zero >= 3 ? 2 * gpu * wb : 0) +
                                  2 * tokens * c->act_bytes[prec][rec]);
        dense += c->params_dense / tp;
        expert += c->params_expert / ep;
    }
    /* Adam: read gradient, read+write master and both moments, write the
     * compute copy of the weights, for this GPU's optimizer shard. */
    w->optimizer_bytes =
        (dense / (p->zero >= 1 ? memory_dense_replicas(p) : 1) +
         expert / (p->zero >= 1 ? memory_expert_replicas(p) : 1)) *
        (s->grad_bytes + 2 * s->master_bytes + 4 * s->moment_bytes + wb);
    w->bubble_coef = bubble_coef(p, fwd, wgrad, w->fp8_flops + w->bf16_flops);
    w->microbatches = (double)p->microbatches;

    nl = comm_rank(ctx->m, ctx->hw, p, part, rank, ctx->comm, list, max, &ct);
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

void cost_evaluate(const struct cost_ctx *ctx,
                   const struct plan *p,
                   struct cost_result *r,
                   struct comm_collective *list,
                   size_t max,
                   size_t *nlist)
{
    const struct model *m = ctx->m;
    const struct model_partition *part =
        &ctx->parts[p->precision][p->pp * p->vpp];
    double ep_sum = 0, compute_sum = 0;
    double tokens = (double)p->gbs * (double)m->spec.seq_len;
    long rank;

    memset(r, 0, sizeof *r);
    r->plan = *p;
    plan_family(p, r->family, sizeof r->family);
    r->rank = -1;
    for (rank = 0; rank < p->pp; rank++) {
        struct cost_work w;
        struct cost_times t;
        struct memory mem;
        rank_work(ctx, p, part, rank, &w, NULL, 0, NULL);
        w.tokens = tokens;
        w.gpus = (double)p->gpus;
        w.model_flops = tokens * m->flops_per_token / w.gpus;
        cost_times(&w, ctx->hw, m, p->precision, &t);
        ep_sum += t.ep;
        compute_sum += t.compute;
        if (r->rank < 0 || t.step > r->t.step) {
            r->rank = rank;
            r->work = w;
            r->t = t;
        }
        memory_rank(m, ctx->hw, p, part, rank, &mem);
        if (rank == 0 || mem.total > r->mem.total)
            r->mem = mem;
    }
    if (list) {
        struct cost_work w;
        rank_work(ctx, p, part, r->rank, &w, list, max, nlist);
    }
    r->fits = r->mem.total <= r->mem.capacity;
    r->ep_ratio = ep_sum / compute_sum;
}
