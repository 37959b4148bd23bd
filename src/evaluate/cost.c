/*
 * cost: work of each pipeline rank, the slowest rank's times, MFU (the
 * partitions and layouts they run on are cost_prepare.c's).
 *
 * Bubbles: each schedule's rule is in its row (src/plan/schedule.c),
 * in units of F+B, the forward and full backward times of one
 * micro-batch through one stage. F+B is the step's core time over the
 * micro-batches; F, B and W split it by FLOPs (W = the GEMMs' forward
 * FLOPs).
 */
#include "cost.h"

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

const struct model_partition *cost_result_partition(const struct cost_ctx *ctx,
                                                    const struct cost_result *r)
{
    const struct cost_parts *cp =
        cost_ctx_parts(ctx, &r->plan, r->balance_precision);
    return cp ? &cp->part : NULL;
}

void cost_rank_memory(const struct cost_ctx *ctx,
                      const struct cost_result *r,
                      long rank,
                      struct memory *out)
{
    const struct model_partition *part = cost_result_partition(ctx, r);
    struct plan_rank v;
    memset(out, 0, sizeof *out);
    out->rank = -1;
    if (!part || rank < 0 || rank >= r->plan.pp)
        return;
    plan_rank_view(&r->plan, part, rank, &v);
    memory_view(ctx->m, ctx->hw, &r->plan, &v, out);
}

const char *cost_phase_str(int phase)
{
    static const char *const s[COST_PHASES] = {"warmup", "steady", "cooldown",
                                               "bubble", "optimizer"};
    return phase >= 0 && phase < COST_PHASES ? s[phase] : "?";
}

double cost_warmup_microbatches(const struct plan *p, long rank, double m)
{
    double n;
    if (p->pp <= 1)
        return 0;
    n = plan_schedule_of(p->schedule)->warmup(p, rank);
    return n < m ? n : m;
}

void cost_phases(const struct cost_result *r, double phase[COST_PHASES])
{
    const struct cost_times *t = &r->t;
    const struct cost_work *w = &r->work;
    bool x = w->x.known;
    double core = x ? t->x_core : t->core;
    double fwd = x ? w->x.fwd_share : w->fwd_share;
    double n = cost_warmup_microbatches(&r->plan, cost_result_rank(r),
                                        w->microbatches);
    double unit = w->microbatches > 0 ? core / w->microbatches : 0;
    phase[COST_WARMUP] = n * fwd * unit;
    phase[COST_COOLDOWN] = n * (1 - fwd) * unit;
    phase[COST_STEADY] = core - phase[COST_WARMUP] - phase[COST_COOLDOWN];
    phase[COST_BUBBLE] = x ? t->x_bubble : t->bubble;
    phase[COST_OPTIMIZER] =
        x ? t->x_optimizer + t->x_dp : t->optimizer + t->dp_exposed;
}

long cost_result_rank(const struct cost_result *r)
{
    return r->work.x.known ? r->work.x.rank : r->rank;
}

double cost_rank_step(const struct cost_result *r)
{
    return r->work.x.known ? r->t.expected : r->t.step;
}

double
cost_core(double compute, double ib, double nvlink, double hbm, int *bound)
{
    return terms_core(compute, ib, nvlink, hbm, bound);
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
    terms_expected(&e, NULL, t);
}

/* Bubble in units of the core time of one micro-batch: the schedule's
 * rule (see top). */
static double
bubble_coef(const struct plan *p, double fwd, double wgrad, double total)
{
    double f = fwd / total, w = wgrad / total, b = 1 - f;
    if (p->pp == 1)
        return 0;
    return plan_schedule_of(p->schedule)->bubble(p, f, w, b);
}

/*
 * HBM bytes per token per MoE layer of the token permutation around the
 * all-to-all (Megatron-LM moe_utils.py permute/unpermute; DeepEP fuses
 * them into its kernels but the bytes still cross HBM): permute reads the
 * token and writes its top_k dispatch copies, unpermute reads the top_k
 * combined copies and writes their weighted sum, in each pass (forward
 * with the dispatch/combine dtypes, backward with their gradients').
 */
static double
permute_bytes(const struct model_spec *s, bool fp8, double fwd, double bwd)
{
    double h = (double)s->hidden, k = (double)s->top_k;
    double ab = s->activation_bytes;
    double d = fp8 ? s->dispatch_bytes : ab, c = fp8 ? s->combine_bytes : ab;
    double dg = fp8 ? s->dispatch_grad_bytes : ab;
    double cg = fp8 ? s->combine_grad_bytes : ab;
    return fwd * (2 * h * ab + k * h * (d + c)) +
           bwd * (2 * h * ab + k * h * (dg + cg));
}

/* The work of one pipeline rank that needs neither its memory nor its
 * collectives: FLOPs per step at each precision's rate, the schedule's
 * bubble coefficient and forward share over them, the optimizer's bytes.
 * The one arithmetic of rank_work and cost_floor_bounds. */
struct rank_flops {
    double fp8, bf16; /* FLOPs at the FP8 and at the BF16 rate */
    double bubble_coef, fwd_share;
    double optimizer_bytes;
};

/* What rank_flops reads of the plan alone, the same for every rank. */
struct rank_plan {
    double tokens;       /* per micro-batch per GPU */
    double rd, rx;       /* the optimizer's shards: dense, expert */
    double opt_per_byte; /* optimizer bytes per byte of weights */
};

static void
rank_plan(const struct model *m, const struct plan *p, struct rank_plan *k)
{
    const struct model_spec *s = &m->spec;
    double seq = (double)(p->mbs * s->seq_len);
    k->tokens = seq / ((double)p->tp * (double)p->cp);
    k->rd = p->zero >= 1 ? memory_dense_replicas(p) : 1;
    k->rx = p->zero >= 1 ? memory_expert_replicas(p) : 1;
    /* Adam: read gradient, read+write master and both moments, write the
     * compute copy of the weights (FP8 copies under the FP8 recipe: as
     * many bytes, struct memory), for this GPU's optimizer shard. */
    k->opt_per_byte = s->grad_bytes + 2 * s->master_bytes +
                      4 * s->moment_bytes + s->weight_bytes;
}

static void rank_flops(const struct plan *p,
                       const struct rank_plan *k,
                       const struct plan_rank *v,
                       struct rank_flops *f)
{
    const struct model_chunk *c = &v->sum;
    double tp = (double)p->tp, ep = (double)p->ep;
    double dense = c->params_dense / tp, expert = c->params_expert / ep;
    double mb = (double)p->microbatches * v->mb_share; /* per chunk */
    double t = mb * k->tokens;
    int rec = p->recompute;
    double lin8 = 3 * c->fwd_fp8 + c->recompute_fp8[rec];
    double other = 3 * c->fwd_other + c->recompute_other[rec];
    if (p->precision == MODEL_FP8) {
        f->fp8 = t * lin8;
        f->bf16 = t * other;
    } else {
        f->fp8 = 0;
        f->bf16 = t * (lin8 + other);
    }
    f->bubble_coef = bubble_coef(p, t * (c->fwd_fp8 + c->fwd_other),
                                 t * c->fwd_linear, f->fp8 + f->bf16);
    f->fwd_share = t * (c->fwd_fp8 + c->fwd_other) / (f->fp8 + f->bf16);
    f->optimizer_bytes = (dense / k->rd + expert / k->rx) * k->opt_per_byte;
}

/* The expected step's work of rank v of p into w->x, from its
 * speed-of-light work (w) and collectives' totals (ct) as rank_work
 * gives them; with memo NULL (or no calibration or stack) only
 * w->x.known = false. */
static void rank_expected(const struct cost_ctx *ctx,
                          const struct plan *p,
                          const struct plan_rank *v,
                          const struct comm_totals *ct,
                          struct expected_memo *memo,
                          struct cost_work *w)
{
    const struct model_spec *s = &ctx->m->spec;
    double seq = (double)(p->mbs * s->seq_len);
    double tokens = seq / ((double)p->tp * (double)p->cp);
    double mb = (double)p->microbatches * v->mb_share; /* per chunk */
    if (ctx->hw->cal && ctx->stack && memo) {
        struct expected_rank rk = {&v->sum, tokens, mb, ct, w, memo};
        expected_fill(ctx->m, ctx->hw, ctx->hw->cal, ctx->stack, p, &rk, &w->x);
    } else {
        w->x.known = false;
    }
}

/* Work of one pipeline rank: everything but model_flops and tokens, and
 * its collectives' totals into *ct. grads_per_step as memory_view
 * decided for the rank; rp: rank_plan's of p. */
static void rank_work(const struct cost_ctx *ctx,
                      const struct plan *p,
                      const struct rank_plan *rp,
                      const struct plan_rank *v,
                      const struct comm_groups *groups,
                      bool grads_per_step,
                      struct expected_memo *memo,
                      struct cost_work *w,
                      struct comm_totals *ct,
                      struct comm_collective *list,
                      size_t max,
                      size_t *nlist)
{
    const struct model_spec *s = &ctx->m->spec;
    const struct model_chunk *c = &v->sum;
    double tp = (double)p->tp, ep = (double)p->ep;
    double seq = (double)(p->mbs * s->seq_len);
    double tokens = seq / (tp * (double)p->cp);
    double mb = (double)p->microbatches * v->mb_share; /* per chunk */
    double t = mb * tokens;
    int prec = p->precision, rec = p->recompute;
    bool fp8 = prec == MODEL_FP8, full = rec == MODEL_RECOMPUTE_FULL;
    double wb = s->weight_bytes;
    /* this GPU's weights; the embedding is a lookup, not a GEMM read */
    double expert = c->params_expert / ep;
    double gpu = (c->params_dense - c->params_embedding) / tp + expert;
    double gpu8 = fp8 ? c->params_fp8 / tp + c->params_fp8_expert / ep : 0;
    double read = gpu8 * 1 + (gpu - gpu8) * wb; /* FP8 copies: 1 byte */
    /* activations saved per micro-batch per GPU (sequence parallelism or
     * not: memory_tp_bytes) */
    double saved = seq * memory_tp_bytes(p, c->act_bytes[prec][rec],
                                         c->act_rep[prec][rec]);
    struct rank_flops fl;
    size_t nl;

    memset(w, 0, sizeof *w);
    rank_flops(p, rp, v, &fl);
    w->fp8_flops = fl.fp8;
    w->bf16_flops = fl.bf16;
    /* Per micro-batch: weights read in forward, backward (and the
     * recomputed forward), gradients accumulated (read + write) or, when
     * reduce-scattered every micro-batch, written once; ZeRO-3 gathers
     * weights into HBM twice; saved activations written and read back;
     * MoE tokens permuted and unpermuted. */
    w->permute_bytes =
        p->ep > 1
            ? t * permute_bytes(s, fp8,
                                (double)c->moe_layers + c->ep_recompute[rec],
                                (double)c->moe_layers)
            : 0;
    /* activations offloaded to host memory (pp = 1: this rank's first
     * layers): copied out in the forward and back in the backward, each
     * way across the host link and HBM once more */
    w->offload_bytes = memory_offload_bytes(ctx->m, p);
    w->hbm_bytes = mb * (read * (full ? 3 : 2) +
                         gpu * s->grad_bytes * (grads_per_step ? 2 : 1) +
                         (p->zero >= 3 ? 2 * gpu * wb : 0) + 2 * saved +
                         2 * w->offload_bytes) +
                   w->permute_bytes;
    w->optimizer_bytes = fl.optimizer_bytes;
    w->bubble_coef = fl.bubble_coef;
    w->fwd_share = fl.fwd_share;
    w->microbatches = (double)p->microbatches;

    nl = comm_view(ctx->m, p, v, groups, &ctx->ep, grads_per_step, list, max,
                   ct);
    if (nlist)
        *nlist = nl;
    w->ib_bytes = ct->ib_bytes;
    w->nvlink_bytes = ct->nvlink_bytes;
    w->ib_calls = ct->ib_calls;
    w->nvlink_calls = ct->nvlink_calls;
    w->ib_steady_bytes = ct->phase_ib[COMM_STEADY];
    w->nvlink_steady_bytes = ct->phase_nvlink[COMM_STEADY];
    w->ib_steady_calls = ct->phase_ib_calls[COMM_STEADY];
    w->nvlink_steady_calls = ct->phase_nvlink_calls[COMM_STEADY];
    w->ib_sync_bytes = ct->phase_ib[COMM_SYNC];
    w->nvlink_sync_bytes = ct->phase_nvlink[COMM_SYNC];
    w->ib_sync_calls = ct->phase_ib_calls[COMM_SYNC];
    w->nvlink_sync_calls = ct->phase_nvlink_calls[COMM_SYNC];
    w->ib_gather_bytes = ct->phase_ib[COMM_GATHER];
    w->nvlink_gather_bytes = ct->phase_nvlink[COMM_GATHER];
    w->ib_gather_calls = ct->phase_ib_calls[COMM_GATHER];
    w->nvlink_gather_calls = ct->phase_nvlink_calls[COMM_GATHER];
    /* what a micro-batch's own compute waits for */
    w->ib_dep_bytes =
        ct->what_ib[COMM_EP] + ct->what_ib[COMM_TP] + ct->what_ib[COMM_CP];
    w->nvlink_dep_bytes = ct->what_nvlink[COMM_EP] + ct->what_nvlink[COMM_TP] +
                          ct->what_nvlink[COMM_CP];
    w->ib_dep_calls = ct->what_ib_calls[COMM_EP] + ct->what_ib_calls[COMM_TP] +
                      ct->what_ib_calls[COMM_CP];
    w->nvlink_dep_calls = ct->what_nvlink_calls[COMM_EP] +
                          ct->what_nvlink_calls[COMM_TP] +
                          ct->what_nvlink_calls[COMM_CP];
    w->ep_ib_bytes = ct->what_ib[COMM_EP];
    w->ep_nvlink_bytes = ct->what_nvlink[COMM_EP];
    w->ep_ib_calls = ct->what_ib_calls[COMM_EP];
    w->ep_nvlink_calls = ct->what_nvlink_calls[COMM_EP];
    rank_expected(ctx, p, v, ct, memo, w); /* the expected step's work */
}

/* Whether plans a and b agree in every field (plan_same: a new field
 * too) but their batch (gbs and the micro-batches it gives), all a
 * rank's memory may not share between them. */
static bool same_but_batch(const struct plan *a, const struct plan *b)
{
    struct plan x = *a, y = *b;
    x.gbs = y.gbs = x.microbatches = y.microbatches = 0;
    return plan_same(&x, &y);
}

/* memo (or NULL) for plan p: its rank memories kept where p differs from
 * the plan they were weighed for only in the micro-batches. Call before
 * memo_view for p. */
static struct cost_memo *memo_for(struct cost_memo *memo, const struct plan *p)
{
    bool same;
    if (!memo)
        return NULL;
    same = memo->gen != 0 && same_but_batch(&memo->key, p);
    if (!same) {
        memo->gen++;
        memo->key = *p;
    }
    /* the ranks' work: for this very plan (key and work_key agree but in
     * the batch, both set to the last plan) */
    if (!same || memo->work_gen == 0 || memo->work_gbs != p->gbs ||
        memo->work_microbatches != p->microbatches) {
        memo->work_gen++;
        memo->work_gbs = p->gbs;
        memo->work_microbatches = p->microbatches;
    }
    return memo;
}

/* p's partitions and their prepared layouts (cost_ctx_plan_parts):
 * memo's (where it is not NULL), kept while the plan
 * agrees with the one they were found for in what they read (its
 * pipeline, schedule, precision and layer split), else found into
 * *spare. */
static const struct cost_plan_parts *plan_parts(const struct cost_ctx *ctx,
                                                struct cost_memo *memo,
                                                const struct plan *p,
                                                struct cost_plan_parts *spare)
{
    struct cost_plan_parts *out = memo ? &memo->parts : spare;
    const struct plan *k = memo ? &memo->parts_key : NULL;
    if (memo && memo->parts_known && k->pp == p->pp && k->vpp == p->vpp &&
        k->schedule == p->schedule && k->precision == p->precision &&
        plan_split_same(k, p))
        return out;
    cost_ctx_plan_parts(ctx, p, out);
    if (memo) {
        memo->parts_known = true;
        memo->parts_key = *p;
    }
    return out;
}

/* memory_view of rank v of p, through memo (memo_for(memo, p)) where it
 * is not NULL: v is then the k-th distinct rank of a prepared layout of
 * partition `slot` (0: balanced for p's precision, 1: the BF16 one an
 * FP8 plan may run on). */
static void memo_view(const struct cost_ctx *ctx,
                      struct cost_memo *memo,
                      int slot,
                      long k,
                      const struct plan *p,
                      const struct plan_rank *v,
                      struct memory *out)
{
    struct cost_memo_rank *e;
    double inflight[COST_MEMO_CHUNKS];
    size_t i, n = (size_t)v->chunks;
    bool same;
    if (!memo || k >= COST_MEMO_RANKS || n > COST_MEMO_CHUNKS) {
        memory_view(ctx->m, ctx->hw, p, v, out);
        return;
    }
    e = &memo->rank[slot][k];
    /* what memory_view reads of the micro-batch count (fill) */
    plan_inflight_chunks(p, v->rank, n, inflight);
    same = e->gen == memo->gen && e->v == v;
    for (i = 0; i < n && same; i++)
        same = inflight[i] == e->inflight[i];
    if (same) {
        *out = e->mem;
        return;
    }
    memory_view_inflight(ctx->m, ctx->hw, p, v, inflight, out);
    e->gen = memo->gen;
    e->v = v;
    memcpy(e->inflight, inflight, n * sizeof *inflight);
    e->mem = *out;
}

/* The work of distinct rank v of plan p, with its memory into *mem
 * (known's, when not NULL, else through mm: memo_view's, the k-th
 * distinct rank of partition slot). Through mm (memo_for(mm, p)) where
 * it is not NULL: the speed-of-light work it keeps for the rank, weighed
 * for p before, is taken (rank_work's, bit for bit: the same arithmetic
 * on the same plan) and only the expected step's is added (memo).
 * Returns the work: *w, or with borrow (and memo NULL: the speed of
 * light alone) the memo's own copy where it keeps the rank, read in
 * place, without copying it (valid until the memo weighs another plan). */
static const struct cost_work *view_work(const struct cost_ctx *ctx,
                                         const struct plan *p,
                                         const struct rank_plan *rp,
                                         const struct plan_rank *v,
                                         const struct comm_groups *groups,
                                         struct expected_memo *memo,
                                         const struct memory *known,
                                         struct cost_memo *mm,
                                         int slot,
                                         long k,
                                         struct memory *mem,
                                         struct cost_work *w,
                                         bool borrow)
{
    const struct model *m = ctx->m;
    double tokens = (double)p->gbs * (double)m->spec.seq_len;
    struct cost_memo_work *kept =
        mm && k < COST_MEMO_WORKS ? &mm->work[slot][k] : NULL;
    /* where the work is weighed: in place in the memo when it is
     * borrowed there (the speed of light alone), else in *w */
    struct cost_work *to = kept && borrow && !memo ? &kept->w : w;
    struct comm_totals own;
    /* own is written by rank_work before it is read: only its address
     * is taken here */
    /* cppcheck-suppress uninitvar */
    struct comm_totals *ct = kept ? &kept->ct : &own;
    if (kept && kept->gen == mm->work_gen && kept->v == v) {
        *mem = kept->mem;
        if (to == &kept->w)
            return to;
        *w = kept->w;
        if (memo)
            rank_expected(ctx, p, v, &kept->ct, memo, w);
        return w;
    }
    if (known) /* memory_view's of this rank (cost_memory_candidates) */
        *mem = *known;
    else
        memo_view(ctx, mm, slot, k, p, v, mem);
    /* the speed of light's work first, the expected step's added below
     * (rank_work's order: the expected step reads only the former) */
    rank_work(ctx, p, rp, v, groups, mem->grads_per_step, NULL, to, ct, NULL, 0,
              NULL);
    to->tokens = tokens;
    to->gpus = (double)p->gpus;
    to->model_flops = tokens * m->flops_per_token / to->gpus;
    to->model_fp8_flops = p->precision == MODEL_FP8
                              ? tokens * m->flops_per_token_fp8 / to->gpus
                              : 0;
    if (kept) {
        kept->gen = mm->work_gen;
        kept->v = v;
        if (to != &kept->w)
            kept->w = *to;
        kept->mem = *mem;
    }
    if (memo)
        rank_expected(ctx, p, v, ct, memo, to);
    return to;
}

/* The ramp unit of work w at both rate sets: t's ramp and x_ramp. The
 * expected set's with the stack's free factors neutral: they scale every
 * rank alike, so the stages' balance (cost_ramp_skew) does not move with
 * them and a fit may re-time the work with another factor. */
static void ramps(const struct cost_ctx *ctx,
                  const struct cost_work *w,
                  struct cost_times *t)
{
    struct terms_env e = {w, ctx->hw, ctx->m, MODEL_BF16, t};
    memset(t, 0, sizeof *t);
    terms_ramp(&e, false, t);
    if (w->x.known) { /* (the speed of light alone has no expected set) */
        struct cost_work neutral = *w;
        neutral.x.compute_overhead = neutral.x.network_efficiency = 1;
        e.w = &neutral;
        terms_ramp(&e, true, t);
    }
}

double cost_ramp_skew(double sum, double count, double own)
{
    if (count <= 1 || own <= 0)
        return 0;
    return (sum - own) / ((count - 1) * own) - 1;
}

/* The first distinct ranks' memories known holds for the partition of
 * cp, their count into *n; NULL (and 0) where it weighed none there or
 * known is NULL. */
static const struct memory *known_ranks(const struct cost_memories *known,
                                        const struct cost_parts *cp,
                                        size_t *n)
{
    size_t i;
    *n = 0;
    for (i = 0; known && i < known->n; i++)
        if (known->parts[i] == cp) {
            *n = known->known[i];
            return known->rank[i];
        }
    return NULL;
}

/* Distinct ranks whose work evaluate_on keeps between its passes (32
 * DualPipe stages of DeepSeek-V3 have 10). */
#define EVALUATE_SEEN 16

/* One distinct rank's work, times and memory (evaluate_on). */
struct rank_eval {
    struct cost_work w;
    struct cost_times t;
    struct memory mem;
};

/* Evaluates p on the partition of cp (slot 0: balanced for p's
 * precision, 1: the BF16 one, memo_view): every distinct rank's work and
 * its ramp unit, then each rank's step with the others' ramps in its
 * bubble; the slowest rank's work and step times, the heaviest rank's
 * memory. */
static void evaluate_on(const struct cost_ctx *ctx,
                        const struct plan *p,
                        const struct cost_parts *cp,
                        const struct cost_layout *layout,
                        int slot,
                        const struct comm_groups *groups,
                        struct expected_memo *memo,
                        const struct cost_memories *known,
                        struct cost_result *r)
{
    /* the first ranks' memories, where the caller weighed them on cp */
    const struct memory *kmem;
    /* the thread's memo for prepared ranks (memo_view) */
    struct cost_memo *mm = memo_for(known && layout ? known->memo : NULL, p);
    size_t nk;
    double ep_sum = 0, compute_sum = 0, sum = 0, xsum = 0, count = 0;
    struct plan_rank own;
    long k, n = layout ? (long)layout->nreps : p->pp, x_rank = -1;
    double x_step = 0;
    /* The first pass's work and ramps of the first distinct ranks, which
     * the second pass reads (and re-steps in place) instead of evaluating
     * them again; a rank beyond them is evaluated into `spare` each pass.
     * The slowest rank's and the slowest expected rank's are pointed to,
     * and copied out only when they sit in `spare` (a later rank reuses
     * it): whole structs are not copied per rank. */
    struct rank_eval seen[EVALUATE_SEEN], spare, slow_copy;
    struct expected_work x_copy;
    const struct rank_eval *slow = NULL;
    const struct expected_work *x = NULL;
    struct rank_plan rp;
    int pass;

    rank_plan(ctx->m, p, &rp);

    kmem = known_ranks(known, cp, &nk);
    r->rank = -1;
    for (pass = 0; pass < 2; pass++)
        for (k = 0; k < n; k++) {
            const struct plan_rank *v = layout ? &layout->views[k] : &own;
            /* the ranks this one stands for */
            double like = layout ? (double)layout->ranks[k] : 1;
            bool kept = layout && k < EVALUATE_SEEN;
            /* e is written by view_work and ramps before it is read
             * (pass 0, or a rank beyond seen[]) */
            /* cppcheck-suppress uninitvar */
            struct rank_eval *e = kept ? &seen[k] : &spare;
            struct cost_work *w = &e->w;
            struct cost_times *t = &e->t;
            if (!layout) /* not prepared: slower, same result */
                plan_rank_view(p, &cp->part, k, &own);
            if (pass == 0 || !kept) {
                view_work(ctx, p, &rp, v, groups, memo,
                          (size_t)k < nk ? &kmem[k] : NULL, mm, slot, k,
                          &e->mem, w, false);
                ramps(ctx, w, t);
            }
            if (pass == 0) {
                sum += like * t->ramp;
                xsum += like * t->x_ramp;
                count += like;
                /* the ranks weigh the pipeline-wide EP ratio */
                ep_sum += like * t->ep;
                compute_sum += like * t->compute;
                if (k == 0 || e->mem.total > r->mem.total)
                    r->mem = e->mem;
                continue;
            }
            w->ramp_skew = cost_ramp_skew(sum, count, t->ramp);
            if (w->x.known)
                w->x.ramp_skew = cost_ramp_skew(xsum, count, t->x_ramp);
            w->x.rank = v->rank;
            w->x.sol_ramp_skew = w->ramp_skew;
            {
                /* t holds the ramps' terms: only the skew moved, and the
                 * expected set's factors where they are not neutral */
                struct terms_env te = {w, ctx->hw, ctx->m, MODEL_BF16, t};
                terms_restep(&te, false, t);
                if (w->x.known && w->x.compute_overhead == 1 &&
                    w->x.network_efficiency == 1)
                    terms_restep(&te, true, t);
                else if (w->x.known)
                    terms_expected_step(&te, t);
            }
            if (w->x.known) { /* the slowest rank at the expected rates */
                if (x_rank < 0 || t->expected > x_step) {
                    x_rank = v->rank;
                    x_step = t->expected;
                    if (kept) {
                        x = &w->x;
                    } else {
                        x_copy = w->x;
                        x = &x_copy;
                    }
                }
            }
            if (r->rank < 0 || t->step > slow->t.step) {
                r->rank = v->rank;
                if (kept) {
                    slow = e;
                } else {
                    slow_copy = *e;
                    slow = &slow_copy;
                }
            }
        }
    if (slow) {
        r->work = slow->w;
        r->t = slow->t;
        r->grads_per_step = slow->mem.grads_per_step;
    }
    /* the expected terms of the slowest rank at their rates (issue 17:
     * the last stage holds the head and MTP and can be slower there) */
    if (x)
        r->work.x = *x;
    r->ep_ratio = compute_sum > 0 ? ep_sum / compute_sum : 0;
}

/*
 * cost_times(&r->work, ...) into r->t, from where evaluate_on leaves it:
 * r->t holds the slowest rank's speed-of-light step terms as terms_step
 * gives them from r->work (its ramps' terms read no skew, and the terms
 * from the bubble on were re-stepped with the skew r->work holds), so
 * only what follows from the step is added (terms_derived); the expected
 * set, whose work may be another rank's (r->work.x), is evaluated whole
 * (every expected term: none of the first rank's stays). The same
 * numbers, without stepping the slowest rank a third time.
 */
static void finish_times(const struct cost_ctx *ctx,
                         const struct plan *p,
                         struct cost_result *r)
{
    struct terms_env e = {&r->work, ctx->hw, ctx->m, p->precision, &r->t};
    terms_derived(&e, &r->t);
    terms_expected(&e, NULL, &r->t);
}

/* comm_groups_init(g, ctx->hw, p, ctx->comm), through memo where it is
 * not NULL (struct cost_memo: one ctx per memo), with the stack's MoE
 * dispatcher: the groups p's collectives run over. */
static void groups_of(const struct cost_ctx *ctx,
                      struct cost_memo *memo,
                      const struct plan *p,
                      struct comm_groups *g)
{
    long key[6] = {p->tp, p->cp, p->dp, p->edp, p->ep, p->pp};
    if (!memo) {
        comm_groups_init(g, ctx->hw, p, ctx->comm);
    } else {
        if (!memo->has_groups ||
            memcmp(key, memo->groups_of, sizeof key) != 0) {
            comm_groups_init(&memo->groups, ctx->hw, p, ctx->comm);
            memcpy(memo->groups_of, key, sizeof key);
            memo->has_groups = true;
        }
        *g = memo->groups;
    }
    if (ctx->stack) /* the stack's kernel moves the MoE tokens */
        g->dispatcher = ctx->stack->spec.ep_dispatcher;
}

/* cost_evaluate, or with expected false its speed of light alone (no
 * memo: rank_work leaves the expected work unknown). */
static void evaluate(const struct cost_ctx *ctx,
                     const struct plan *p,
                     const struct cost_memories *known,
                     struct cost_result *r,
                     struct comm_collective *list,
                     size_t max,
                     size_t *nlist,
                     bool expected)
{
    struct cost_memo *mm = memo_for(known ? known->memo : NULL, p);
    const struct cost_parts *cp, *alt;
    const struct cost_plan_parts *pp;
    struct cost_plan_parts spare;
    struct comm_groups groups;
    struct expected_memo memo_, *memo;

    memo = NULL;
    if (expected) {
        memset(&memo_, 0, sizeof memo_);
        memo = &memo_;
    }
    r->plan = *p; /* every other field is set below */
    r->family[0] = '\0';
    r->balance_precision = p->precision;
    pp = plan_parts(ctx, mm, p, &spare);
    cp = pp->parts[0];
    groups_of(ctx, mm, p, &groups);
    evaluate_on(ctx, p, cp, pp->layouts[0], 0, &groups, memo, known, r);
    /*
     * FP8 stages are balanced by time at the FP8 rates, which packs more
     * layers where the BF16 head and embedding are not. That is the
     * fastest split while compute binds. When a link binds, the critical
     * rank is paced by its layers' bytes, which the FLOP balance (the
     * BF16 partition) spreads evenly. The plan can run either split, and
     * a speed of light takes the cheapest way to run it: evaluate both
     * and keep the faster. On the BF16 split an FP8 plan moves the BF16
     * plan's bytes (or fewer, FP8 dispatch) in less compute time, so
     * balancing never makes FP8 slower than BF16.
     */
    alt = r->t.bound != COST_COMPUTE ? pp->parts[1] : NULL;
    if (alt) {
        struct cost_result other = *r;
        evaluate_on(ctx, p, alt, pp->layouts[1], 1, &groups, memo, known,
                    &other);
        if (other.t.step < r->t.step * (1 - 1e-12)) {
            *r = other;
            r->balance_precision = MODEL_BF16;
            cp = alt;
        }
    }
    if (list) {
        const struct cost_layout *layout = cost_parts_layout(cp, p);
        const struct plan_rank *critical = NULL;
        struct plan_rank own;
        struct cost_work w;
        size_t k;
        long rank = cost_result_rank(r);
        struct memory mem;
        struct rank_plan rp;
        struct comm_totals ct;
        for (k = 0; layout && k < layout->nreps && !critical; k++)
            if (layout->views[k].rank == rank)
                critical = &layout->views[k];
        if (!critical) {
            plan_rank_view(p, &cp->part, rank, &own);
            critical = &own;
        }
        rank_plan(ctx->m, p, &rp);
        memory_view(ctx->m, ctx->hw, p, critical, &mem);
        rank_work(ctx, p, &rp, critical, &groups, mem.grads_per_step, memo, &w,
                  &ct, list, max, nlist);
    }
    finish_times(ctx, p, r);
    r->fits = r->mem.total <= r->mem.capacity;
}

void cost_evaluate(const struct cost_ctx *ctx,
                   const struct plan *p,
                   struct cost_result *r,
                   struct comm_collective *list,
                   size_t max,
                   size_t *nlist)
{
    evaluate(ctx, p, NULL, r, list, max, nlist, true);
}

/* The heaviest rank's memory of p on the partition of cp, as
 * evaluate_on's first pass keeps it in r->mem, or the first rank's whose
 * total is above `above` (then the heaviest's is too); the first ranks'
 * memories into rank[], their count into *known. */
static void heaviest(const struct cost_ctx *ctx,
                     const struct plan *p,
                     const struct cost_parts *cp,
                     const struct cost_layout *layout,
                     struct cost_memo *memo,
                     int slot,
                     double above,
                     struct memory *mem,
                     struct memory rank[COST_KNOWN_RANKS],
                     size_t *known)
{
    long k, n = layout ? (long)layout->nreps : p->pp;
    struct plan_rank own;
    struct memory spare;
    *known = 0;
    for (k = 0; k < n; k++) {
        /* own and spare are written (plan_rank_view, memory_view)
         * before they are read: only their addresses are taken here */
        /* cppcheck-suppress uninitvar */
        const struct plan_rank *v = layout ? &layout->views[k] : &own;
        /* cppcheck-suppress uninitvar */
        struct memory *e = k < COST_KNOWN_RANKS ? &rank[k] : &spare;
        if (!layout)
            plan_rank_view(p, &cp->part, k, &own);
        memo_view(ctx, layout ? memo : NULL, slot, k, p, v, e);
        if (k < COST_KNOWN_RANKS)
            *known = (size_t)k + 1;
        if (k == 0 || e->total > mem->total)
            *mem = *e;
        if (mem->total > above)
            return;
    }
}

size_t cost_memory_candidates(const struct cost_ctx *ctx,
                              const struct plan *p,
                              double above,
                              struct cost_memories *out)
{
    struct cost_memo *mm = memo_for(out->memo, p);
    struct cost_plan_parts spare;
    const struct cost_plan_parts *pp = plan_parts(ctx, mm, p, &spare);
    size_t i;
    out->parts[0] = pp->parts[0];
    out->parts[1] = pp->parts[1];
    out->n = out->parts[1] ? 2 : 1;
    for (i = 0; i < out->n; i++)
        heaviest(ctx, p, out->parts[i], pp->layouts[i], mm, (int)i, above,
                 &out->mem[i], out->rank[i], &out->known[i]);
    return out->n;
}

/* Distinct ranks rank_bounds weighs; a layout with more has no bound. */
#define BOUND_RANKS COST_MEMO_BOUND_RANKS

/* The bounds from compute of rank_bounds over the n distinct ranks of p
 * on the partition of cp (its prepared layout, or NULL): each rank's
 * bubble bound and its sum with the rank's compute and optimizer into
 * bubble[] and step[], their largest into *hi and the smallest compute
 * and optimizer into *lo; false when it knows none (a rank's bubble
 * coefficient below 0). rp: rank_plan's of p. */
static bool compute_bounds(const struct cost_ctx *ctx,
                           const struct plan *p,
                           const struct cost_parts *cp,
                           const struct cost_layout *layout,
                           const struct rank_plan *rp,
                           long n,
                           double *bubble,
                           double *step,
                           double *hi,
                           double *lo)
{
    long k;
    double sum = 0, count = 0, mb = (double)p->microbatches;
    double c[BOUND_RANKS], fixed[BOUND_RANKS], coef[BOUND_RANKS];
    struct plan_rank own;
    struct rank_flops fl;
    for (k = 0; k < n; k++) {
        /* own is written by plan_rank_view before it is read: only its
         * address is taken here */
        /* cppcheck-suppress uninitvar */
        const struct plan_rank *v = layout ? &layout->views[k] : &own;
        double like = layout ? (double)layout->ranks[k] : 1;
        if (!layout)
            plan_rank_view(p, &cp->part, k, &own);
        rank_flops(p, rp, v, &fl);
        if (!(fl.bubble_coef >= 0))
            return false;
        c[k] = terms_sol_compute(ctx->hw, fl.bf16, fl.fp8);
        fixed[k] = fl.optimizer_bytes / ctx->hw->hbm_bps + c[k];
        coef[k] = fl.bubble_coef;
        sum += like * c[k];
        count += like;
    }
    for (k = 0; k < n; k++) {
        /* the other ranks' mean ramp, at least their mean compute */
        double others =
            count > 1 && c[k] > 0 ? (sum - c[k]) / (count - 1) : c[k];
        bubble[k] = coef[k] * others / mb;
        step[k] = bubble[k] + fixed[k];
        if (k == 0 || step[k] > *hi)
            *hi = step[k];
        if (k == 0 || fixed[k] < *lo)
            *lo = fixed[k];
    }
    return true;
}

/* Over the distinct ranks of p on the partition of cp (its prepared
 * layout, or NULL; slot as evaluate_on's): the largest lower bound of a
 * rank's step into *hi, the smallest of a rank's step at any link
 * bandwidth into *lo (compute_bounds); false when it knows none. Through
 * mm (memo_for(mm, p), or NULL) the bounds from compute are weighed once
 * per plan and partition. Where *hi is at most at_most and groups is not
 * NULL (p's, groups_of), the ranks' full work tightens it (their links,
 * HBM and exposed DP besides their compute), one rank at a time from the
 * likeliest slowest, until it is above at_most: known's memories (or
 * NULL) as evaluate_on takes them. */
static bool rank_bounds(const struct cost_ctx *ctx,
                        const struct plan *p,
                        const struct cost_parts *cp,
                        const struct cost_layout *layout,
                        int slot,
                        const struct cost_memories *known,
                        struct cost_memo *mm,
                        const struct comm_groups *groups,
                        double at_most,
                        double *hi,
                        double *lo)
{
    long k, n = layout ? (long)layout->nreps : p->pp;
    double bubble[BOUND_RANKS], step[BOUND_RANKS];
    struct cost_memo_bound *kept = mm && layout ? &mm->bound[slot] : NULL;
    const struct memory *kmem;
    struct rank_plan rp;
    size_t nk;
    if (n < 1 || n > BOUND_RANKS)
        return false;
    rank_plan(ctx->m, p, &rp);
    if (kept && kept->gen == mm->work_gen) {
        if (!kept->known)
            return false;
        *hi = kept->hi;
        *lo = kept->lo;
        memcpy(bubble, kept->bubble, (size_t)n * sizeof *bubble);
        memcpy(step, kept->step, (size_t)n * sizeof *step);
    } else {
        bool ok =
            compute_bounds(ctx, p, cp, layout, &rp, n, bubble, step, hi, lo);
        if (kept) {
            kept->gen = mm->work_gen;
            kept->known = ok;
            if (ok) {
                kept->hi = *hi;
                kept->lo = *lo;
                memcpy(kept->bubble, bubble, (size_t)n * sizeof *bubble);
                memcpy(kept->step, step, (size_t)n * sizeof *step);
            }
        }
        if (!ok)
            return false;
    }
    if (!groups || !layout || *hi > at_most)
        return true;
    /*
     * A rank's step is its bubble + optimizer + core + exposed DP, and
     * only the bubble reads the other ranks (their ramps, at least their
     * compute: above). Its work, as evaluate_on weighs it, gives the
     * other three exactly (terms_step: they read no skew), so their sum
     * with the bubble's bound bounds its step from below, links and all.
     * The ranks go from the largest compute bound down: the first one
     * above at_most settles it and the others are not weighed.
     */
    kmem = known_ranks(known, cp, &nk);
    for (;;) {
        struct rank_eval e;
        struct terms_env te = {NULL, ctx->hw, ctx->m, MODEL_BF16, &e.t};
        long next = -1;
        double full;
        for (k = 0; k < n; k++) /* the largest not weighed yet */
            if (step[k] >= 0 && (next < 0 || step[k] > step[next]))
                next = k;
        if (next < 0)
            return true;
        step[next] = -1; /* weighed */
        /* the work read in place where the memo keeps it */
        te.w = view_work(ctx, p, &rp, &layout->views[next], groups, NULL,
                         (size_t)next < nk ? &kmem[next] : NULL, mm, slot, next,
                         &e.mem, &e.w, true);
        terms_step(&te, &e.t); /* (writes every term it reads) */
        full = bubble[next] + e.t.optimizer + e.t.core + e.t.dp_exposed;
        if (full > *hi)
            *hi = full;
        if (*hi > at_most)
            return true;
    }
}

/*
 * Why these bound the floor (terms.c): a rank's step is its bubble +
 * optimizer + core + exposed DP, the last at least 0 and its core at
 * least its compute term. Its bubble is the coefficient x (1 + skew) x
 * its ramp / micro-batches, where (1 + skew) x ramp is the other ranks'
 * mean ramp (cost_ramp_skew), and a ramp is at least its compute: with a
 * coefficient of at least 0 the bubble is at least the coefficient x the
 * other ranks' mean compute / micro-batches. Compute and optimizer do not
 * move with the links' bandwidth and are computed here by the same
 * arithmetic as in rank_work and terms_rates_sol, so the slowest rank's
 * step is at least the largest such sum, and any rank's step at any IB
 * or NVLink bandwidth at least its compute + optimizer (the sensitivity
 * grids keep the skew of the base rates: only bubble >= 0 is known
 * there). With known, a rank's core and exposed DP replace its compute
 * where that bound is not enough (rank_bounds). An FP8 plan may run on
 * either partition (evaluate): the smaller bound of the two. The margin
 * covers rounding (a few ulps).
 */
bool cost_floor_bounds(const struct cost_ctx *ctx,
                       const struct plan *p,
                       const struct cost_memories *known,
                       bool full,
                       double at_most,
                       double *step,
                       double *any_rank)
{
    struct cost_memo *mm = memo_for(known ? known->memo : NULL, p);
    const struct cost_parts *cp, *alt;
    const struct cost_plan_parts *pp;
    struct cost_plan_parts spare;
    struct comm_groups groups;
    const struct comm_groups *g = NULL;
    /* rank_bounds compares its sums unrounded */
    double above = at_most / (1 - 1e-9);
    double hi, lo, hi2, lo2;
    pp = plan_parts(ctx, mm, p, &spare);
    cp = pp->parts[0];
    if (known && full) {
        groups_of(ctx, mm, p, &groups);
        g = &groups;
    }
    if (!cp || !rank_bounds(ctx, p, cp, pp->layouts[0], 0, known, mm, g, above,
                            &hi, &lo))
        return false;
    alt = pp->parts[1];
    if (alt && !(hi * (1 - 1e-9) <= at_most)) { /* else: see cost.h */
        if (!rank_bounds(ctx, p, alt, pp->layouts[1], 1, known, mm, g, above,
                         &hi2, &lo2))
            return false;
        hi = hi2 < hi ? hi2 : hi;
        lo = lo2 < lo ? lo2 : lo;
    }
    *step = hi * (1 - 1e-9);
    *any_rank = lo * (1 - 1e-9);
    return true;
}

void cost_evaluate_floor(const struct cost_ctx *ctx,
                         const struct plan *p,
                         struct cost_result *r)
{
    evaluate(ctx, p, NULL, r, NULL, 0, NULL, false);
}

void cost_evaluate_floor_known(const struct cost_ctx *ctx,
                               const struct plan *p,
                               const struct cost_memories *known,
                               struct cost_result *r)
{
    evaluate(ctx, p, known, r, NULL, 0, NULL, false);
}

void cost_evaluate_known(const struct cost_ctx *ctx,
                         const struct plan *p,
                         const struct cost_memories *known,
                         struct cost_result *r)
{
    evaluate(ctx, p, known, r, NULL, 0, NULL, true);
}
