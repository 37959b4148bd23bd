/*
 * cost_prepare: the pipeline partitions and rank layouts of a model and
 * cluster (cost_prepare.h), built before the sweep and read-only after.
 */
#include "cost_prepare.h"

#include <stdlib.h>
#include <string.h>

enum status cost_ctx_init(struct cost_ctx *ctx,
                          const struct model *m,
                          const struct hardware *hw,
                          enum comm_model comm,
                          struct diag *d)
{
    int p, b;
    memset(ctx, 0, sizeof *ctx);
    ctx->m = m;
    ctx->hw = hw;
    ctx->comm = comm;
    ctx->nparts = m->units + 1;
    for (p = 0; p < MODEL_PRECISIONS; p++)
        for (b = 0; b < 2; b++) {
            ctx->parts[p][b] =
                calloc((size_t)ctx->nparts, sizeof *ctx->parts[p][b]);
            if (!ctx->parts[p][b])
                return diag_set(d, STATUS_NOMEM, "out of memory");
        }
    return comm_ep_table_init(&ctx->ep, m, hw->domain, d);
}

static int layout_kind(int schedule, long pp)
{
    enum plan_layout l = plan_schedule_of(schedule)->layout;
    if (pp > 1 && l == PLAN_LAYOUT_PAIRED)
        return COST_DUAL;
    if (l == PLAN_LAYOUT_INTERLEAVED)
        return COST_INTERLEAVED;
    return COST_SINGLE;
}

/* DualPipe's rank runs a pair of chunks: balance the pairs. */
static enum model_balance balance_of(int schedule, long pp)
{
    return layout_kind(schedule, pp) == COST_DUAL ? MODEL_BALANCE_PAIR
                                                  : MODEL_BALANCE_CHUNK;
}

/* Chunks that cost the same wherever they sit: equal in every field but
 * `first`, and alike in being first or last. Chunks come from calloc and
 * are only added to, so their padding is zero and memcmp compares them. */
static bool chunk_same(const struct model_chunk *a,
                       const struct model_chunk *b,
                       long chunks)
{
    struct model_chunk x, y;
    if ((a->first == 0) != (b->first == 0) ||
        (a->first + a->count == chunks) != (b->first + b->count == chunks))
        return false;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    x.first = y.first = 0;
    return memcmp(&x, &y, sizeof x) == 0;
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

/* True when partitions a and b hold the same chunks. Chunks come from
 * calloc and are only added to (chunk_same), so memcmp compares them. */
static bool partition_same(const struct model_partition *a,
                           const struct model_partition *b)
{
    return a->chunks == b->chunks && a->chunks > 0 &&
           memcmp(a->chunk, b->chunk, (size_t)a->chunks * sizeof *a->chunk) ==
               0;
}

enum status cost_ctx_prepare(struct cost_ctx *ctx,
                             long pp,
                             long vpp,
                             int schedule,
                             struct diag *d)
{
    long chunks = pp * vpp;
    enum model_balance bal = balance_of(schedule, pp);
    int p;
    if (chunks < 1 || chunks >= ctx->nparts)
        return diag_set(d, STATUS_RANGE,
                        "cannot split %ld layers into %ld pipeline chunks",
                        ctx->m->units, chunks);
    for (p = 0; p < MODEL_PRECISIONS; p++) {
        struct cost_parts *cp = &ctx->parts[p][bal][chunks];
        /* FP8 plans run eligible GEMMs at the FP8 rate: weigh by time. */
        double w16 = 1 / ctx->hw->bf16_flops;
        double w8 = p == MODEL_FP8 && ctx->hw->fp8_flops > 0
                        ? 1 / ctx->hw->fp8_flops
                        : w16;
        enum status st;
        if (cp->part.chunks != chunks) {
            st = model_partition(ctx->m, chunks, w8, w16, bal, &cp->part, d);
            if (st != STATUS_OK)
                return st;
        }
        st = build_layout(cp, pp, vpp, schedule, d);
        if (st != STATUS_OK)
            return st;
    }
    ctx->parts[MODEL_FP8][bal][chunks].same_as_bf16 =
        partition_same(&ctx->parts[MODEL_FP8][bal][chunks].part,
                       &ctx->parts[MODEL_BF16][bal][chunks].part);
    return STATUS_OK;
}

/* The split of `chunks` by layer counts for precision, or NULL. */
static struct cost_parts *split_of(const struct cost_ctx *ctx,
                                   int precision,
                                   long chunks,
                                   long first,
                                   long last)
{
    size_t i;
    for (i = 0; i < ctx->nsplits; i++) {
        struct cost_split *s = ctx->splits[i];
        if (s->precision == precision && s->chunks == chunks &&
            s->first == first && s->last == last)
            return &s->parts;
    }
    return NULL;
}

enum status cost_ctx_prepare_plan(struct cost_ctx *ctx,
                                  const struct plan *p,
                                  struct diag *d)
{
    long chunks = p->pp * p->vpp, first, last;
    int prec;
    if (!plan_split_layers(p, ctx->m->spec.layers, &first, &last))
        return cost_ctx_prepare(ctx, p->pp, p->vpp, p->schedule, d);
    for (prec = 0; prec < MODEL_PRECISIONS; prec++) {
        struct cost_parts *cp = split_of(ctx, prec, chunks, first, last);
        enum status st;
        if (!cp) {
            /* each split apart: its rank views point into its
             * partition, which must not move as the list grows */
            struct cost_split **grown =
                realloc(ctx->splits, (ctx->nsplits + 1) * sizeof *grown);
            struct cost_split *s;
            if (!grown)
                return diag_set(d, STATUS_NOMEM, "out of memory");
            ctx->splits = grown;
            s = calloc(1, sizeof *s);
            if (!s)
                return diag_set(d, STATUS_NOMEM, "out of memory");
            ctx->splits[ctx->nsplits++] = s;
            s->precision = prec;
            s->chunks = chunks;
            s->first = first;
            s->last = last;
            cp = &s->parts;
            st = model_partition_split(ctx->m, chunks, first, last, &cp->part,
                                       d);
            if (st != STATUS_OK)
                return st;
        }
        st = build_layout(cp, p->pp, p->vpp, p->schedule, d);
        if (st != STATUS_OK)
            return st;
    }
    {
        struct cost_parts *c8 = split_of(ctx, MODEL_FP8, chunks, first, last);
        const struct cost_parts *c16 =
            split_of(ctx, MODEL_BF16, chunks, first, last);
        c8->same_as_bf16 = partition_same(&c8->part, &c16->part);
    }
    return STATUS_OK;
}

const struct cost_parts *
cost_ctx_parts(const struct cost_ctx *ctx, const struct plan *p, int precision)
{
    long chunks = p->pp * p->vpp, first, last;
    const struct cost_parts *cp;
    if (precision < 0 || precision >= MODEL_PRECISIONS)
        return NULL;
    if (plan_split_layers(p, ctx->m->spec.layers, &first, &last)) {
        cp = split_of(ctx, precision, chunks, first, last);
        return cp && cp->part.chunks == chunks ? cp : NULL;
    }
    if (chunks < 1 || chunks >= ctx->nparts)
        return NULL;
    cp = &ctx->parts[precision][balance_of(p->schedule, p->pp)][chunks];
    return cp->part.chunks == chunks ? cp : NULL;
}

/* The BF16 partition an FP8 plan p balanced on cp may also run on
 * (cost.c), or NULL: none, or one holding cp's chunks (the same
 * memories and times: nothing to weigh twice). */
static const struct cost_parts *alt_of(const struct cost_ctx *ctx,
                                       const struct plan *p,
                                       const struct cost_parts *cp)
{
    if (p->precision != MODEL_FP8 || !cp || cp->same_as_bf16)
        return NULL;
    return cost_ctx_parts(ctx, p, MODEL_BF16);
}

const struct model_partition *cost_ctx_partition(const struct cost_ctx *ctx,
                                                 const struct plan *p)
{
    const struct cost_parts *cp = cost_ctx_parts(ctx, p, p->precision);
    return cp ? &cp->part : NULL;
}

const struct cost_layout *cost_parts_layout(const struct cost_parts *cp,
                                            const struct plan *p)
{
    int kind = layout_kind(p->schedule, p->pp);
    size_t i;
    for (i = 0; i < cp->nlayouts; i++)
        if (cp->layouts[i].kind == kind && cp->layouts[i].pp == p->pp)
            return &cp->layouts[i];
    return NULL;
}

void cost_ctx_plan_parts(const struct cost_ctx *ctx,
                         const struct plan *p,
                         struct cost_plan_parts *out)
{
    int i;
    out->parts[0] = cost_ctx_parts(ctx, p, p->precision);
    out->parts[1] = alt_of(ctx, p, out->parts[0]);
    for (i = 0; i < 2; i++)
        out->layouts[i] =
            out->parts[i] ? cost_parts_layout(out->parts[i], p) : NULL;
}

void cost_ctx_release(struct cost_ctx *ctx)
{
    long i;
    size_t j;
    int p, b;
    if (!ctx)
        return;
    for (p = 0; p < MODEL_PRECISIONS; p++)
        for (b = 0; b < 2; b++) {
            if (!ctx->parts[p][b])
                continue;
            for (i = 0; i < ctx->nparts; i++) {
                struct cost_parts *cp = &ctx->parts[p][b][i];
                model_partition_release(&cp->part);
                for (j = 0; j < cp->nlayouts; j++) {
                    free(cp->layouts[j].views);
                    free(cp->layouts[j].ranks);
                }
                free(cp->layouts);
            }
            free(ctx->parts[p][b]);
            ctx->parts[p][b] = NULL;
        }
    for (j = 0; j < ctx->nsplits; j++) {
        struct cost_parts *cp = &ctx->splits[j]->parts;
        size_t k;
        model_partition_release(&cp->part);
        for (k = 0; k < cp->nlayouts; k++) {
            free(cp->layouts[k].views);
            free(cp->layouts[k].ranks);
        }
        free(cp->layouts);
        free(ctx->splits[j]);
    }
    free(ctx->splits);
    ctx->splits = NULL;
    ctx->nsplits = 0;
    comm_ep_table_release(&ctx->ep);
}
