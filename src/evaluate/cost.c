/*
 * cost: one plan's cost (cost.h): the work of each distinct pipeline
 * rank, the slowest rank's times, the heaviest rank's memory, MFU.
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

/*
 * The forward's share of a micro-batch on a pipeline rank that runs no
 * FLOPs: a stage of the embedding alone, which Megatron-LM's layouts allow
 * ("E|t*61mL"; docs/user-guide/features/pipeline_parallel_layout.md:
 * "Empty stages are allowed") and its account-for-embedding split makes
 * where each chunk holds one layer. Its micro-batch is the forward's
 * activations sent on and the backward's gradients received back, the
 * same bytes each way (comm.c's PP pair): half the micro-batch each. It
 * has no weight gradients to defer. (0/0 gave NaN steps.)
 */
#define EMPTY_RANK_FWD_SHARE 0.5

/* Bubble in units of the core time of one micro-batch: the schedule's
 * rule (see top); on a rank with no FLOPs, EMPTY_RANK_FWD_SHARE. */
static double
bubble_coef(const struct plan *p, double fwd, double wgrad, double total)
{
    double f = total > 0 ? fwd / total : EMPTY_RANK_FWD_SHARE;
    double w = total > 0 ? wgrad / total : 0, b = 1 - f;
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

/* What rank_flops reads of the plan alone, the same for every rank. */
struct rank_plan {
    double tokens;       /* per micro-batch per GPU */
    double rd, rx;       /* the optimizer's shards: dense, expert */
    double opt_per_byte; /* optimizer bytes per byte of weights */
};

/* One plan being weighed (one call of cost_evaluate or cost_memory):
 * what every rank of it reads. */
struct eval {
    const struct cost_ctx *ctx;
    const struct plan *p;
    struct cost_hint *hint;       /* the caller's, or NULL */
    struct cost_plan_parts parts; /* p's partitions and layouts */
    struct rank_plan rp;
    const struct comm_groups *groups; /* p's (eval_groups), or NULL */
    struct comm_groups own_groups;    /* where the hint holds none */
    struct expected_memo *memo;       /* the expected step's lookups, or NULL:
                                       * the speed of light alone */
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

/* Starts weighing p: its partitions and layouts, the hint's where it
 * holds them. */
static void eval_begin(struct eval *ev,
                       const struct cost_ctx *ctx,
                       const struct plan *p,
                       struct cost_hint *hint)
{
    ev->ctx = ctx;
    ev->p = p;
    ev->hint = hint;
    ev->groups = NULL;
    ev->memo = NULL;
    if (hint && (hint->have & COST_HAVE_PARTS)) {
        ev->parts = hint->parts;
    } else {
        cost_ctx_plan_parts(ctx, p, &ev->parts);
        if (hint) {
            hint->parts = ev->parts;
            hint->have |= COST_HAVE_PARTS;
        }
    }
    rank_plan(ctx->m, p, &ev->rp);
}

/* The groups p's collectives run over (comm_groups_init), with the
 * stack's MoE dispatcher: the hint's where it holds them. */
static const struct comm_groups *eval_groups(struct eval *ev)
{
    const struct cost_ctx *ctx = ev->ctx;
    struct comm_groups *g = ev->hint ? &ev->hint->groups : &ev->own_groups;
    if (ev->groups)
        return ev->groups;
    if (!ev->hint || !(ev->hint->have & COST_HAVE_GROUPS)) {
        comm_groups_init(g, ctx->hw, ev->p, ctx->comm);
        if (ctx->stack) { /* the stack's kernel moves the MoE tokens */
            g->dispatcher = ctx->stack->spec.ep_dispatcher;
            g->tp_regather = ctx->stack->spec.tp_regather;
        }
        if (ev->hint)
            g->memo = &ev->hint->algo;
        if (ev->hint)
            ev->hint->have |= COST_HAVE_GROUPS;
    }
    ev->groups = g;
    return g;
}

/* The hint's entry of distinct rank k of partition slot (0: balanced
 * for p's precision, 1: the BF16 one an FP8 plan may run on), for
 * holding what is weighed of it, or NULL: no hint, no prepared layout
 * (its views are not the layout's), or beyond what a hint holds. */
static struct cost_hint_rank *hint_rank(const struct eval *ev, int slot, long k)
{
    struct cost_hint_part *part;
    if (!ev->hint || !ev->parts.layouts[slot] || k >= COST_HINT_RANKS)
        return NULL;
    part = &ev->hint->part[slot];
    if ((size_t)k >= part->held)
        part->held = (size_t)k + 1;
    return &part->rank[k];
}

/* The work of one pipeline rank that needs neither its memory nor its
 * collectives: FLOPs per step at each precision's rate, the schedule's
 * bubble coefficient and forward share over them, the optimizer's
 * bytes. The one arithmetic of rank_work and COST_RANKS (the sweep's
 * bounds, rank_prune.c). */
static void rank_flops(const struct eval *ev,
                       const struct plan_rank *v,
                       struct cost_flops *f)
{
    const struct plan *p = ev->p;
    const struct rank_plan *k = &ev->rp;
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
    f->fwd_share = f->fp8 + f->bf16 > 0
                       ? t * (c->fwd_fp8 + c->fwd_other) / (f->fp8 + f->bf16)
                       : EMPTY_RANK_FWD_SHARE;
    f->optimizer_bytes = (dense / k->rd + expert / k->rx) * k->opt_per_byte;
}

/* The expected step's work of rank v into w->x, from its speed-of-light
 * work (w) and collectives' totals (ct) as rank_work gives them; without
 * ev->memo (or no calibration or stack) only w->x.known = false. */
static void rank_expected(const struct eval *ev,
                          const struct plan_rank *v,
                          const struct comm_totals *ct,
                          struct cost_work *w)
{
    const struct cost_ctx *ctx = ev->ctx;
    const struct plan *p = ev->p;
    double mb = (double)p->microbatches * v->mb_share; /* per chunk */
    if (ctx->hw->cal && ctx->stack && ev->memo) {
        struct expected_rank rk = {&v->sum, ev->rp.tokens, mb,     ct,
                                   w,       ev->memo,      v->rank};
        expected_fill(ctx->m, ctx->hw, ctx->hw->cal, ctx->stack, p, &rk, &w->x);
    } else {
        w->x.known = false;
    }
}

/* A link's load as the work holds it: bytes at the link's rate, calls,
 * latency. */
static void take(const struct comm_load *l,
                 double *bytes,
                 double *calls,
                 struct comm_lat *lat)
{
    *bytes = l->at;
    if (calls)
        *calls = l->calls;
    *lat = l->lat;
}

/* The work's bytes, calls and latency per link and phase from its
 * collectives' totals: every collective, the steady, sync and gather
 * phases, what a micro-batch's own compute waits for (dep: EP, TP and CP
 * traffic) and the MoE all-to-all alone. */
static void work_comm(const struct comm_totals *ct, struct cost_work *w)
{
    struct comm_load dep_ib = comm_dep_load(ct->what_ib);
    struct comm_load dep_nv = comm_dep_load(ct->what_nvlink);
    take(&ct->ib, &w->ib_bytes, &w->ib_calls, &w->ib_lat);
    take(&ct->nvlink, &w->nvlink_bytes, &w->nvlink_calls, &w->nvlink_lat);
    take(&ct->phase_ib[COMM_STEADY], &w->ib_steady_bytes, &w->ib_steady_calls,
         &w->ib_steady_lat);
    take(&ct->phase_nvlink[COMM_STEADY], &w->nvlink_steady_bytes,
         &w->nvlink_steady_calls, &w->nvlink_steady_lat);
    take(&ct->phase_ib[COMM_SYNC], &w->ib_sync_bytes, &w->ib_sync_calls,
         &w->ib_sync_lat);
    take(&ct->phase_nvlink[COMM_SYNC], &w->nvlink_sync_bytes,
         &w->nvlink_sync_calls, &w->nvlink_sync_lat);
    take(&ct->phase_ib[COMM_GATHER], &w->ib_gather_bytes, &w->ib_gather_calls,
         &w->ib_gather_lat);
    take(&ct->phase_nvlink[COMM_GATHER], &w->nvlink_gather_bytes,
         &w->nvlink_gather_calls, &w->nvlink_gather_lat);
    take(&dep_ib, &w->ib_dep_bytes, &w->ib_dep_calls, &w->ib_dep_lat);
    take(&dep_nv, &w->nvlink_dep_bytes, &w->nvlink_dep_calls,
         &w->nvlink_dep_lat);
    take(&ct->what_ib[COMM_EP], &w->ep_ib_bytes, NULL, &w->ep_ib_lat);
    take(&ct->what_nvlink[COMM_EP], &w->ep_nvlink_bytes, NULL,
         &w->ep_nvlink_lat);
}

/* The speed-of-light work of one pipeline rank (no expected step: w->x
 * unknown), and its collectives' totals into *ct. grads_per_step as
 * memory_view decided for the rank. */
static void rank_work(struct eval *ev,
                      const struct plan_rank *v,
                      bool grads_per_step,
                      struct cost_work *w,
                      struct comm_totals *ct,
                      struct comm_pick_site *sites)
{
    const struct model *m = ev->ctx->m;
    const struct plan *p = ev->p;
    const struct model_spec *s = &m->spec;
    const struct model_chunk *c = &v->sum;
    double tp = (double)p->tp, ep = (double)p->ep;
    double seq = (double)(p->mbs * s->seq_len);
    double mb = (double)p->microbatches * v->mb_share; /* per chunk */
    double t = mb * ev->rp.tokens;
    double tokens = (double)p->gbs * (double)s->seq_len; /* per step */
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
    struct cost_flops fl;

    memset(w, 0, sizeof *w);
    rank_flops(ev, v, &fl);
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
    w->offload_bytes = memory_offload_bytes(m, p);
    w->hbm_bytes = mb * (read * (full ? 3 : 2) +
                         gpu * s->grad_bytes * (grads_per_step ? 2 : 1) +
                         (p->zero >= 3 ? 2 * gpu * wb : 0) + 2 * saved +
                         2 * w->offload_bytes) +
                   w->permute_bytes;
    w->optimizer_bytes = fl.optimizer_bytes;
    w->bubble_coef = fl.bubble_coef;
    w->fwd_share = fl.fwd_share;
    w->microbatches = (double)p->microbatches;
    w->tokens = tokens;
    w->gpus = (double)p->gpus;
    w->model_flops = tokens * m->flops_per_token / w->gpus;
    w->model_fp8_flops = fp8 ? tokens * m->flops_per_token_fp8 / w->gpus : 0;

    comm_view(m, p, v, eval_groups(ev), &ev->ctx->ep, grads_per_step,
              &(struct comm_out){NULL, 0, ct, sites});
    work_comm(ct, w);
    w->x.known = false; /* the expected step's is rank_expected's */
}

/* memory_view of distinct rank k of partition slot (view v) into *out:
 * the hint's where it holds it, else weighed (and left in the hint). */
static void rank_memory(const struct eval *ev,
                        int slot,
                        long k,
                        const struct plan_rank *v,
                        struct memory *out)
{
    const struct cost_ctx *ctx = ev->ctx;
    struct cost_hint_rank *e = hint_rank(ev, slot, k);
    size_t n = (size_t)v->chunks;
    if (!e || n > COST_HINT_CHUNKS) {
        memory_view(ctx->m, ctx->hw, ev->p, v, out);
        return;
    }
    if (e->have & COST_HAVE_MEMORY) {
        *out = e->mem;
        return;
    }
    /* what memory_view reads of the micro-batch count, kept for the
     * hint's owner to tell whether another batch moves it */
    plan_inflight_chunks(ev->p, v->rank, n, e->inflight);
    memory_view_inflight(ctx->m, ctx->hw, ev->p, v, e->inflight, out);
    e->view = v;
    e->mem = *out;
    e->have |= COST_HAVE_MEMORY;
}

/* Distinct rank k of partition slot (view v) at the speed of light: its
 * work, collectives' totals and memory, the hint's where it holds them,
 * else weighed, into the hint where it may hold them (left there), else
 * into *spare. Returns where they are. */
static const struct cost_hint_rank *rank_sol(struct eval *ev,
                                             int slot,
                                             long k,
                                             const struct plan_rank *v,
                                             struct cost_hint_rank *spare)
{
    struct cost_hint_rank *h = hint_rank(ev, slot, k);
    struct cost_hint_rank *e = h ? h : spare;
    if (h && (h->have & COST_HAVE_WORK))
        return h;
    rank_memory(ev, slot, k, v, &e->mem);
    rank_work(ev, v, e->mem.grads_per_step, &e->w, &e->ct, h ? h->sites : NULL);
    if (h) {
        h->view = v;
        h->have |= COST_HAVE_WORK;
    }
    return e;
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
    terms_ramp(&e, TERMS_SOL, t);
    if (w->x.known) { /* (the speed of light alone has no expected set) */
        struct cost_work neutral = *w;
        neutral.x.compute_overhead = neutral.x.network_efficiency = 1;
        e.w = &neutral;
        terms_ramp(&e, TERMS_X, t);
    }
}

double cost_ramp_skew(double sum, double count, double own)
{
    if (count <= 1 || own <= 0)
        return 0;
    return (sum - own) / ((count - 1) * own) - 1;
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

/* Rank k's work (with the expected step's where ev->memo asks for it),
 * its ramps and memory into *e (view v; evaluate_on's first pass). */
static void rank_eval(struct eval *ev,
                      int slot,
                      long k,
                      const struct plan_rank *v,
                      struct rank_eval *e)
{
    struct cost_hint_rank spare;
    const struct cost_hint_rank *h = rank_sol(ev, slot, k, v, &spare);
    e->mem = h->mem;
    e->w = h->w;
    if (ev->memo) /* the expected step's work added to the speed of light's */
        rank_expected(ev, v, &h->ct, &e->w);
    ramps(ev->ctx, &e->w, &e->t);
}

/* Each rank's step with the others' ramps in its bubble: t holds the
 * ramps' terms, so only the skew moved (and the expected set's factors
 * where they are not neutral). */
static void restep(const struct cost_ctx *ctx,
                   double sum,
                   double xsum,
                   double count,
                   long rank,
                   struct rank_eval *e)
{
    struct cost_work *w = &e->w;
    struct cost_times *t = &e->t;
    struct terms_env te = {w, ctx->hw, ctx->m, MODEL_BF16, t};
    w->ramp_skew = cost_ramp_skew(sum, count, t->ramp);
    if (w->x.known)
        w->x.ramp_skew = cost_ramp_skew(xsum, count, t->x_ramp);
    w->x.rank = rank;
    w->x.sol_ramp_skew = w->ramp_skew;
    terms_restep(&te, TERMS_SOL, t);
    if (w->x.known && w->x.compute_overhead == 1 &&
        w->x.network_efficiency == 1)
        terms_restep(&te, TERMS_X, t);
    else if (w->x.known)
        terms_expected_step(&te, t);
}

/* Evaluates p on partition slot (0: balanced for p's precision, 1: the
 * BF16 one): every distinct rank's work and its ramp unit, then each
 * rank's step with the others' ramps in its bubble; the slowest rank's
 * work and step times, the heaviest rank's memory. */
static void evaluate_on(struct eval *ev, int slot, struct cost_result *r)
{
    const struct plan *p = ev->p;
    const struct cost_parts *cp = ev->parts.parts[slot];
    const struct cost_layout *layout = ev->parts.layouts[slot];
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
    int pass;

    r->rank = -1;
    for (pass = 0; pass < 2; pass++)
        for (k = 0; k < n; k++) {
            const struct plan_rank *v = layout ? &layout->views[k] : &own;
            /* the ranks this one stands for */
            double like = layout ? (double)layout->ranks[k] : 1;
            bool kept = layout && k < EVALUATE_SEEN;
            /* e is written by rank_eval before it is read (pass 0, or a
             * rank beyond seen[]) */
            /* cppcheck-suppress uninitvar */
            struct rank_eval *e = kept ? &seen[k] : &spare;
            if (!layout) /* not prepared: slower, same result */
                plan_rank_view(p, &cp->part, k, &own);
            if (pass == 0 || !kept)
                rank_eval(ev, slot, k, v, e);
            if (pass == 0) {
                sum += like * e->t.ramp;
                xsum += like * e->t.x_ramp;
                count += like;
                /* the ranks weigh the pipeline-wide EP ratio */
                ep_sum += like * e->t.ep;
                compute_sum += like * e->t.compute;
                if (k == 0 || e->mem.total > r->mem.total)
                    r->mem = e->mem;
                continue;
            }
            restep(ev->ctx, sum, xsum, count, v->rank, e);
            if (e->w.x.known) { /* the slowest rank at the expected rates */
                if (x_rank < 0 || e->t.expected > x_step) {
                    x_rank = v->rank;
                    x_step = e->t.expected;
                    if (kept) {
                        x = &e->w.x;
                    } else {
                        x_copy = e->w.x;
                        x = &x_copy;
                    }
                }
            }
            if (r->rank < 0 || e->t.step > slow->t.step) {
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

/* COST_RANKS: the distinct ranks of each partition p may run on into
 * the hint, each with its FLOPs (unless the hint holds them), and what
 * each rank's `need` asks. */
static void list_ranks(struct eval *ev)
{
    struct cost_hint *h = ev->hint;
    bool listed = (h->have & COST_HAVE_RANKS) != 0;
    int s;
    for (s = 0; s < 2; s++) {
        struct cost_hint_part *hp = &h->part[s];
        const struct cost_layout *l = ev->parts.layouts[s];
        size_t k;
        if (!listed) {
            hp->runs = ev->parts.parts[s] != NULL;
            hp->nranks = l && l->nreps <= COST_HINT_RANKS ? l->nreps : 0;
        }
        for (k = 0; k < hp->nranks; k++) {
            struct cost_hint_rank *e = hint_rank(ev, s, (long)k);
            const struct plan_rank *v = &l->views[k];
            if (!listed) {
                e->view = v;
                e->like = (double)l->ranks[k];
                rank_flops(ev, v, &e->flops);
            }
            if (e->need & COST_HAVE_MEMORY)
                rank_memory(ev, s, (long)k, v, &e->mem);
            if (e->need & COST_HAVE_WORK)
                rank_sol(ev, s, (long)k, v, NULL);
            e->need = 0;
        }
    }
    h->have |= COST_HAVE_RANKS;
}

void cost_rank_work(const struct cost_ctx *ctx,
                    const struct plan *p,
                    struct cost_hint *hint,
                    int slot,
                    size_t k)
{
    struct eval ev;
    if (hint->part[slot].rank[k].have & COST_HAVE_WORK)
        return;
    eval_begin(&ev, ctx, p, hint);
    rank_sol(&ev, slot, (long)k, hint->part[slot].rank[k].view, NULL);
}

void cost_evaluate(const struct cost_ctx *ctx,
                   const struct plan *p,
                   unsigned want,
                   struct cost_hint *hint,
                   struct cost_result *r)
{
    const struct cost_parts *alt;
    struct expected_memo memo;
    struct eval ev;

    eval_begin(&ev, ctx, p, hint);
    if ((want & COST_RANKS) && hint)
        list_ranks(&ev);
    if (!(want & (COST_FLOOR | COST_EXPECTED)))
        return;
    if (want & COST_EXPECTED) {
        memset(&memo, 0, sizeof memo);
        ev.memo = &memo;
    }
    r->plan = *p; /* every other field is set below */
    r->family[0] = '\0';
    r->balance_precision = p->precision;
    if (hint && (hint->have & COST_HAVE_SLOT)) {
        /* the partition an earlier call chose from the same speed of
         * light: the other is not weighed again (its result would lose) */
        if (hint->slot == 1)
            r->balance_precision = MODEL_BF16;
        evaluate_on(&ev, hint->slot, r);
        finish_times(ctx, p, r);
        r->fits = r->mem.total <= r->mem.capacity;
        return;
    }
    evaluate_on(&ev, 0, r);
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
    alt = r->t.bound != COST_COMPUTE ? ev.parts.parts[1] : NULL;
    if (alt) {
        struct cost_result other = *r;
        evaluate_on(&ev, 1, &other);
        if (other.t.step < r->t.step * (1 - 1e-12)) {
            *r = other;
            r->balance_precision = MODEL_BF16;
        }
    }
    if (hint) {
        hint->slot = r->balance_precision != p->precision ? 1 : 0;
        hint->have |= COST_HAVE_SLOT;
    }
    finish_times(ctx, p, r);
    r->fits = r->mem.total <= r->mem.capacity;
}

/* The heaviest rank's memory of p on partition slot, as evaluate_on's
 * first pass keeps it in r->mem, or the first rank's whose total is
 * above `above` (then the heaviest's is too). */
static void
heaviest(const struct eval *ev, int slot, double above, struct memory *mem)
{
    const struct cost_parts *cp = ev->parts.parts[slot];
    const struct cost_layout *layout = ev->parts.layouts[slot];
    long k, n = layout ? (long)layout->nreps : ev->p->pp;
    struct plan_rank own;
    struct memory e;
    for (k = 0; k < n; k++) {
        /* own is written by plan_rank_view before it is read: only its
         * address is taken here */
        /* cppcheck-suppress uninitvar */
        const struct plan_rank *v = layout ? &layout->views[k] : &own;
        if (!layout)
            plan_rank_view(ev->p, &cp->part, k, &own);
        rank_memory(ev, slot, k, v, &e);
        if (k == 0 || e.total > mem->total)
            *mem = e;
        if (mem->total > above)
            return;
    }
}

size_t cost_memory(const struct cost_ctx *ctx,
                   const struct plan *p,
                   double above,
                   struct cost_hint *hint,
                   struct cost_memories *out)
{
    struct eval ev;
    size_t i;
    eval_begin(&ev, ctx, p, hint);
    out->n = ev.parts.parts[1] ? 2 : 1;
    for (i = 0; i < out->n; i++)
        heaviest(&ev, (int)i, above, &out->mem[i]);
    return out->n;
}

size_t cost_collectives(const struct cost_ctx *ctx,
                        const struct cost_result *r,
                        struct comm_collective *list,
                        size_t max)
{
    const struct plan *p = &r->plan;
    const struct cost_parts *cp = cost_ctx_parts(ctx, p, r->balance_precision);
    const struct cost_layout *layout = cp ? cost_parts_layout(cp, p) : NULL;
    const struct plan_rank *critical = NULL;
    long rank = cost_result_rank(r);
    struct plan_rank own;
    struct memory mem;
    struct comm_totals ct;
    struct eval ev;
    size_t k;
    if (!cp)
        return 0;
    for (k = 0; layout && k < layout->nreps && !critical; k++)
        if (layout->views[k].rank == rank)
            critical = &layout->views[k];
    if (!critical) {
        plan_rank_view(p, &cp->part, rank, &own);
        critical = &own;
    }
    eval_begin(&ev, ctx, p, NULL);
    memory_view(ctx->m, ctx->hw, p, critical, &mem);
    return comm_view(ctx->m, p, critical, eval_groups(&ev), &ctx->ep,
                     mem.grads_per_step,
                     &(struct comm_out){list, max, &ct, NULL});
}
