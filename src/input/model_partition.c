/*
 * model_partition: pipeline chunks of a model's units (see the header).
 */
#include "model_partition.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

/* Forward time of the output head, by the same weights as a unit. */
static double head_cost(const struct model *m, double w8, double w16)
{
    return m->head_fwd * (m->spec.fp8_head ? w8 : w16);
}

/* The loss's elementwise traffic per token, forward: the softmax reads
 * the logits and writes the probabilities (logits_bytes each). */
static double loss_bytes(const struct model *m)
{
    return 2 * (double)m->spec.vocab * m->spec.logits_bytes;
}

static void add_casts(struct model_chunk *c,
                      double in,
                      double in_sp,
                      double grad,
                      double grad_sp)
{
    c->cast_in += in;
    c->cast_in_sp += in_sp;
    c->cast_grad += grad;
    c->cast_grad_sp += grad_sp;
}

/* The output head's FP8 operands, where the recipe runs it in FP8: a
 * column-parallel (vocabulary-parallel) GEMM h -> vocab. */
static void head_casts(const struct model *m, struct model_chunk *c)
{
    if (m->spec.fp8_head)
        add_casts(c, 0, (double)m->spec.hidden, (double)m->spec.vocab, 0);
}

static double unit_cost(const struct model *m, long u, double w8, double w16)
{
    const struct model_layer *L = &m->layer[model_unit_kind(m, u)];
    double c = L->fwd_fp8 * w8 + L->fwd_other * w16;
    if (L->mtp)
        c += head_cost(m, w8, w16); /* an MTP module runs the head again */
    return c;
}

double model_chunk_cost(const struct model_chunk *c,
                        double fp8_weight,
                        double bf16_weight)
{
    return c->fwd_fp8 * fp8_weight + c->fwd_other * bf16_weight;
}

static double max2(double a, double b)
{
    return a > b ? a : b;
}

static void add_unit(const struct model *m, struct model_chunk *c, long u)
{
    enum model_layer_kind k = model_unit_kind(m, u);
    const struct model_layer *L = &m->layer[k];
    int p, r;
    c->count++;
    c->kinds[k] = (unsigned short)(c->kinds[k] + 1);
    if (L->state_elems > 0) {
        c->state_elems += L->state_elems;
        c->scan_layers++;
    }
    for (p = 0; p < MODEL_SCANS; p++)
        c->scan_fwd[p] += L->scan_fwd[p];
    if (L->moe)
        c->moe_layers++;
    c->params_dense += L->params_dense;
    c->params_expert += L->params_expert;
    c->params_fp8 += L->params_fp8;
    c->params_fp8_expert += L->params_fp8_expert;
    if (L->params_dense > c->max_layer_dense)
        c->max_layer_dense = L->params_dense;
    if (L->params_expert > c->max_layer_expert)
        c->max_layer_expert = L->params_expert;
    c->fwd_fp8 += L->fwd_fp8;
    c->fwd_other += L->fwd_other;
    c->fwd_linear += L->fwd_linear;
    c->tp_collectives += L->tp_collectives;
    c->tp_regathers += L->tp_regathers;
    c->regather_fwd += L->regather_fwd;
    for (r = 0; r < MODEL_RECOMPUTES; r++) {
        c->recompute_fp8[r] += L->recompute_fp8[r];
        c->recompute_other[r] += L->recompute_other[r];
        c->recompute_core[r] += L->recompute_core[r];
        c->tp_recompute[r] += L->tp_recompute[r];
        c->ep_recompute[r] += L->ep_recompute[r] ? 1 : 0;
    }
    for (p = 0; p < MODEL_PRECISIONS; p++)
        for (r = 0; r < MODEL_RECOMPUTES; r++) {
            c->act_bytes[p][r] += L->act_bytes[p][r];
            c->act_rep[p][r] += L->act_rep[p][r];
            c->work_bytes[p][r] =
                max2(c->work_bytes[p][r], L->work_bytes[p][r]);
            c->work_rep[p][r] = max2(c->work_rep[p][r], L->work_rep[p][r]);
        }
    c->kv_elems += L->kv_elems;
    for (p = 0; p < MODEL_GEMMS; p++)
        c->gemm_fwd[p] += L->gemm_fwd[p];
    c->core_fwd += L->core_fwd;
    for (p = 0; p < MODEL_EWS; p++)
        c->ew_fwd[p] += L->ew_fwd[p];
    c->recompute_scores += L->recompute_scores;
    add_casts(c, L->cast_in, L->cast_in_sp, L->cast_grad, L->cast_grad_sp);
    if (L->mtp) { /* its embedding lookup and the shared
                   * head, run once more */
        double head_fp8 = m->spec.fp8_head ? m->head_fwd : 0;
        c->mtp_units++;
        c->gemm_fwd[MODEL_GEMM_HEAD] += m->head_fwd;
        c->ew_fwd[MODEL_EW_LOSS] += loss_bytes(m);
        head_casts(m, c);
        c->fwd_fp8 += head_fp8;
        c->fwd_other += m->head_fwd - head_fp8;
        c->fwd_linear += m->head_fwd;
        c->recompute_fp8[MODEL_RECOMPUTE_FULL] += head_fp8;
        c->recompute_other[MODEL_RECOMPUTE_FULL] += m->head_fwd - head_fp8;
        c->tp_collectives += 2; /* vocab-parallel embedding and head */
        c->tp_regathers += 1;   /* the head is column-parallel */
        c->regather_fwd += m->head_fwd;
    }
}

static void add_head(const struct model *m, struct model_chunk *c)
{
    double head_fp8 = m->spec.fp8_head ? m->head_fwd : 0;
    c->has_head = true;
    c->params_dense += m->params_head + m->params_final_norm;
    if (m->params_head > c->max_layer_dense)
        c->max_layer_dense = m->params_head;
    if (m->spec.fp8_head)
        c->params_fp8 += m->params_head;
    c->fwd_fp8 += head_fp8;
    c->fwd_other += m->head_fwd - head_fp8;
    c->fwd_linear += m->head_fwd;
    c->recompute_fp8[MODEL_RECOMPUTE_FULL] += head_fp8;
    c->recompute_other[MODEL_RECOMPUTE_FULL] += m->head_fwd - head_fp8;
    c->tp_collectives += 1; /* vocab-parallel head */
    c->tp_regathers += 1;   /* its input, gathered, kept as the shard */
    c->regather_fwd += m->head_fwd;
    c->gemm_fwd[MODEL_GEMM_HEAD] += m->head_fwd;
    c->ew_fwd[MODEL_EW_LOSS] += loss_bytes(m);
    head_casts(m, c);
}

/*
 * Linear partition (the "painter's partition" dynamic programme): chunk
 * boundaries that minimise the largest chunk's cost, the head's counted
 * in the last chunk. O(chunks x units x log units). Writes the first unit
 * of each chunk into start[0..chunks-1] (start[chunks] = units).
 */
static enum status split_chunks(const double *prefix,
                                long U,
                                long chunks,
                                double head,
                                long *start,
                                struct diag *d)
{
    double *best = NULL;
    long *cut = NULL, k, i, j;
    best = calloc((size_t)(chunks + 1) * (size_t)(U + 1), sizeof *best);
    cut = calloc((size_t)(chunks + 1) * (size_t)(U + 1), sizeof *cut);
    if (!best || !cut) {
        free(best);
        free(cut);
        return diag_set(d, STATUS_NOMEM, "out of memory partitioning layers");
    }
#define BEST(k, i) best[(size_t)(k) * (size_t)(U + 1) + (size_t)(i)]
#define CUT(k, i)  cut[(size_t)(k) * (size_t)(U + 1) + (size_t)(i)]
    /* BEST(k, i): least max cost splitting units [0, i) into k chunks. */
    for (i = 0; i <= U; i++)
        BEST(1, i) = prefix[i] + (i == U ? head : 0);
    /* The last chunk is [j, i): BEST(k-1, j) grows with j and the last
     * chunk's cost shrinks, so the best j sits where they cross; binary
     * search finds it (O(log units) instead of a scan), and the earlier
     * of two equal candidates wins, as a scan from the left would. */
    for (k = 2; k <= chunks; k++) {
        for (i = k; i <= U; i++) {
            double tail = i == U ? head : 0, b, v;
            long lo = k - 1, hi = i - 1, at;
            while (lo < hi) { /* first j with BEST(k-1, j) >= last(j) */
                long mid = lo + (hi - lo) / 2;
                if (BEST(k - 1, mid) >= prefix[i] - prefix[mid] + tail)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            at = lo;
            b = max2(BEST(k - 1, at), prefix[i] - prefix[at] + tail);
            if (at > k - 1) {
                j = at - 1;
                v = max2(BEST(k - 1, j), prefix[i] - prefix[j] + tail);
                if (!(b < v * (1 - 1e-12))) {
                    b = v;
                    at = j;
                }
            }
            BEST(k, i) = b;
            CUT(k, i) = at;
        }
    }
    /* Walk the cuts back from (chunks, U). */
    start[chunks] = U;
    i = U;
    for (k = chunks; k >= 1; k--) {
        start[k - 1] = k == 1 ? 0 : CUT(k, i);
        i = start[k - 1];
    }
#undef BEST
#undef CUT
    free(best);
    free(cut);
    return STATUS_OK;
}

/* Largest grid the pair split takes on, pairs x (units+1)^2 cells, each
 * test walking it (about 40 tests): DeepSeek-V3 in 16 pairs needs 64,000,
 * a 126-layer model in 6 pairs 98,000. Beyond it the chunk split stands
 * in (a slower split: a looser bound). */
#define PAIR_CELLS_MAX 100000.0

/*
 * Pairs (DualPipe). Rank r of P = chunks/2 runs chunks r and chunks-1-r:
 * peeling pair r off the window of units still unassigned leaves a
 * smaller window nested in it, so the pair costs S(W_r) - S(W_r+1) (plus
 * the head, on pair 0's back chunk), the last pair its whole window.
 * Whether every pair can cost at most T is a reachability question over
 * windows [a, b): W_r+1 is reachable when a reachable W_r holds it with a
 * unit to spare on each side (each chunk gets one) and S(W_r) <=
 * S(W_r+1) + T; the least S(W_r) over windows [<= a-1, >= b+1] is a
 * running 2-D minimum, so one test costs O(pairs x units^2). Bisection
 * between the mean pair and the chunk split's largest finds the least T.
 */
struct pairs {
    const double *prefix; /* [U+1] unit costs, summed */
    long U, P;
    double head;          /* on the last chunk: pair 0's back chunk */
    unsigned char *reach; /* [P][U+1][U+1] */
    double *run;          /* [U+1][U+1] */
};

#define CELL(g, a, b) ((size_t)(a) * (size_t)((g)->U + 1) + (size_t)(b))
#define REACH(g, r, a, b)                                                  \
    (g)->reach[(size_t)(r) * (size_t)((g)->U + 1) * (size_t)((g)->U + 1) + \
               CELL(g, a, b)]

static double span_cost(const struct pairs *g, long a, long b)
{
    return g->prefix[b] - g->prefix[a];
}

static bool pairs_fit(struct pairs *g, double T)
{
    long U = g->U, P = g->P, r, a, b;
    size_t W = (size_t)(U + 1);
    memset(g->reach, 0, (size_t)P * W * W);
    REACH(g, 0, 0, U) = 1;
    for (r = 0; r + 1 < P; r++) {
        double extra = r == 0 ? g->head : 0;
        bool any = false;
        /* run(a, b): least S over reachable windows [<= a, >= b] */
        for (a = 0; a <= U; a++)
            for (b = U; b >= 0; b--) {
                double v = REACH(g, r, a, b) ? span_cost(g, a, b) : HUGE_VAL;
                if (a > 0 && g->run[CELL(g, a - 1, b)] < v)
                    v = g->run[CELL(g, a - 1, b)];
                if (b < U && g->run[CELL(g, a, b + 1)] < v)
                    v = g->run[CELL(g, a, b + 1)];
                g->run[CELL(g, a, b)] = v;
            }
        for (a = 1; a < U; a++)
            for (b = a + 2 * (P - r - 1); b < U; b++) {
                bool ok = g->run[CELL(g, a - 1, b + 1)] + extra <=
                          span_cost(g, a, b) + T;
                REACH(g, r + 1, a, b) = ok;
                any = any || ok;
            }
        if (!any)
            return false;
    }
    for (a = 0; a <= U; a++)
        for (b = a + 2; b <= U; b++)
            if (REACH(g, P - 1, a, b) && span_cost(g, a, b) <= T)
                return true;
    return false;
}

/* largest_pair of the split at start[0..chunks] (head on the last). */
static double
largest_pair(const double *prefix, double head, const long *start, long chunks)
{
    double most = 0;
    long c;
    for (c = 0; c < chunks / 2; c++) {
        double pair = prefix[start[c + 1]] - prefix[start[c]] +
                      prefix[start[chunks - c]] -
                      prefix[start[chunks - c - 1]] + (c == 0 ? head : 0);
        if (pair > most)
            most = pair;
    }
    return most;
}

/*
 * Of the splits whose largest pair is least, walk back one that keeps
 * DualPipe's activations low: rank r holds pp - r micro-batches of
 * its front chunk in flight and r + 1 of its back chunk
 * (plan_inflight_chunk), so small front chunks and large back ones
 * cost least (a chunk's cost stands in for its activations). The
 * innermost window as far forward as it goes, split where its two
 * chunks are closest; then at each step the predecessor whose chunks
 * weigh least (every reachable window leads back to W_0).
 */
static void
walk_back(const struct pairs *g, double hi, long chunks, long *start)
{
    long U = g->U, P = g->P, r, a, b = U, i, m;
    double head = g->head, gap;
    a = -1;
    for (i = U; i >= 0; i--)
        for (m = i + 2; m <= U; m++)
            if (REACH(g, P - 1, i, m) && span_cost(g, i, m) <= hi) {
                a = i;
                b = m;
            }
    if (a < 0)
        return;
    gap = HUGE_VAL;
    start[P] = a + 1;
    for (m = a + 1; m < b; m++) {
        double g2 = fabs(span_cost(g, a, m) - span_cost(g, m, b));
        if (g2 < gap * (1 - 1e-12)) {
            gap = g2;
            start[P] = m;
        }
    }
    start[chunks] = U;
    for (r = P - 1; r >= 1; r--) { /* the window pair r-1 peeled off */
        double extra = r == 1 ? head : 0;
        long na = 0, nb = U;
        start[r] = a;
        start[chunks - r] = b;
        gap = HUGE_VAL;
        for (i = 0; i < a; i++)
            for (m = U; m > b; m--) {
                double held = (double)(chunks - (r - 1)) * span_cost(g, i, a) +
                              (double)r * span_cost(g, b, m);
                if (REACH(g, r - 1, i, m) &&
                    span_cost(g, i, m) + extra <= span_cost(g, a, b) + hi &&
                    held < gap * (1 - 1e-12)) {
                    gap = held;
                    na = i;
                    nb = m;
                }
            }
        a = na;
        b = nb;
    }
    start[0] = 0;
}

static enum status split_pairs(const double *prefix,
                               long U,
                               long chunks,
                               double head,
                               long *start,
                               struct diag *d)
{
    struct pairs g;
    size_t W = (size_t)(U + 1);
    long P = chunks / 2;
    double lo = (prefix[U] + head) / (double)P, hi;
    enum status st;
    int it;

    /* the chunk split is a split: its largest pair bounds the least */
    st = split_chunks(prefix, U, chunks, head, start, d);
    if (st != STATUS_OK)
        return st;
    /* a hair above it: pairs_fit sums the same costs in another order */
    hi = largest_pair(prefix, head, start, chunks) * (1 + 1e-9);
    g.prefix = prefix;
    g.U = U;
    g.P = P;
    g.head = head;
    g.reach = malloc((size_t)P * W * W);
    g.run = malloc(W * W * sizeof *g.run);
    if (!g.reach || !g.run) {
        free(g.reach);
        free(g.run);
        return diag_set(d, STATUS_NOMEM, "out of memory partitioning layers");
    }
    for (it = 0; it < 100 && hi - lo > 1e-10 * hi; it++) {
        double mid = lo + (hi - lo) / 2;
        if (pairs_fit(&g, mid))
            hi = mid;
        else
            lo = mid;
    }
    if (!pairs_fit(&g, hi)) /* fills reach for the walk back */
        goto done;          /* never: then the chunk split stands */
    walk_back(&g, hi, chunks, start);
done:
    free(g.reach);
    free(g.run);
    return STATUS_OK;
}
#undef CELL
#undef REACH

/* The chunks of p (allocated) from the first unit of each, start[chunks]
 * = units: their units summed, the embedding on the first, the output
 * head on the last. */
static void fill(const struct model *m,
                 long chunks,
                 const long *start,
                 struct model_partition *p)
{
    long k, j;
    for (k = 0; k < chunks; k++) {
        struct model_chunk *c = &p->chunk[k];
        c->first = start[k];
        for (j = start[k]; j < start[k + 1]; j++)
            add_unit(m, c, j);
    }
    p->chunks = chunks;
    p->chunk[0].has_embedding = true;
    p->chunk[0].params_dense += m->params_embedding;
    p->chunk[0].params_embedding = m->params_embedding;
    p->chunk[0].tp_collectives += 1; /* vocab-parallel embedding */
    if (m->params_embedding > p->chunk[0].max_layer_dense) /* ZeRO-3 gathers */
        p->chunk[0].max_layer_dense = m->params_embedding;
    add_head(m, &p->chunk[chunks - 1]);
}

const char *model_split_word(int split)
{
    static const char *const words[MODEL_SPLITS] = {
        [MODEL_SPLIT_BALANCED] = "balanced",
        [MODEL_SPLIT_UNIFORM] = "uniform",
        [MODEL_SPLIT_EMBEDDING] = "embedding",
        [MODEL_SPLIT_LOSS] = "loss",
        [MODEL_SPLIT_EMBEDDING_LOSS] = "embedding_loss",
    };
    return DATAFILE_WORD_AT(words, split);
}

bool model_partition_split_ok(long layers, long chunks, long first, long last)
{
    long rest = layers - first - last, middle = chunks - 2;
    if (first < 0 || last < 0 || chunks < 2 || rest < 0)
        return false;
    if (middle == 0)
        return rest == 0;
    return rest >= middle && rest % middle == 0;
}

enum status model_partition_split(const struct model *m,
                                  long chunks,
                                  long first,
                                  long last,
                                  struct model_partition *p,
                                  struct diag *d)
{
    long L = m->spec.layers, k, each;
    long *start;
    memset(p, 0, sizeof *p);
    if (!model_partition_split_ok(L, chunks, first, last))
        return diag_set(d, STATUS_RANGE,
                        "cannot split %ld layers into %ld pipeline chunks "
                        "with %ld on the first and %ld on the last",
                        L, chunks, first, last);
    each = chunks > 2 ? (L - first - last) / (chunks - 2) : 0;
    start = calloc((size_t)chunks + 1, sizeof *start);
    p->chunk = calloc((size_t)chunks, sizeof *p->chunk);
    if (!start || !p->chunk) {
        free(start);
        model_partition_release(p);
        return diag_set(d, STATUS_NOMEM, "out of memory partitioning layers");
    }
    start[1] = first;
    for (k = 2; k < chunks; k++)
        start[k] = start[k - 1] + each;
    start[chunks] = m->units; /* the last: its layers and every MTP unit */
    fill(m, chunks, start, p);
    free(start);
    return STATUS_OK;
}

enum status model_partition(const struct model *m,
                            long chunks,
                            double fp8_weight,
                            double bf16_weight,
                            enum model_balance balance,
                            struct model_partition *p,
                            struct diag *d)
{
    double head = head_cost(m, fp8_weight, bf16_weight);
    long U = m->units, j;
    double *prefix = NULL;
    long *start = NULL;
    enum status st = STATUS_OK;

    memset(p, 0, sizeof *p);
    if (chunks < 1 || chunks > U)
        return diag_set(d, STATUS_RANGE,
                        "cannot split %ld layers into %ld pipeline chunks", U,
                        chunks);
    if (balance == MODEL_BALANCE_PAIR && chunks % 2 != 0)
        return diag_set(d, STATUS_RANGE,
                        "cannot pair %ld pipeline chunks (an odd number)",
                        chunks);
    prefix = calloc((size_t)U + 1, sizeof *prefix);
    start = calloc((size_t)chunks + 1, sizeof *start);
    p->chunk = calloc((size_t)chunks, sizeof *p->chunk);
    if (!prefix || !start || !p->chunk) {
        st = diag_set(d, STATUS_NOMEM, "out of memory partitioning layers");
        goto fail;
    }
    for (j = 0; j < U; j++)
        prefix[j + 1] = prefix[j] + unit_cost(m, j, fp8_weight, bf16_weight);
    /* Pairs need (units+1)^2 cells per pair; beyond any real model (and
     * at one pair, where every split costs the same) the chunk split
     * stands in. */
    if (balance == MODEL_BALANCE_PAIR && chunks > 2 &&
        (double)(chunks / 2) * (double)(U + 1) * (double)(U + 1) <=
            PAIR_CELLS_MAX)
        st = split_pairs(prefix, U, chunks, head, start, d);
    else
        st = split_chunks(prefix, U, chunks, head, start, d);
    if (st != STATUS_OK)
        goto fail;
    fill(m, chunks, start, p);
fail:
    free(prefix);
    free(start);
    if (st != STATUS_OK)
        model_partition_release(p);
    return st;
}

void model_partition_release(struct model_partition *p)
{
    if (!p)
        return;
    free(p->chunk);
    p->chunk = NULL;
    p->chunks = 0;
}

void model_chunk_add(struct model_chunk *sum, const struct model_chunk *c)
{
    int p, r;
    sum->count += c->count;
    sum->moe_layers += c->moe_layers;
    sum->mtp_units += c->mtp_units;
    sum->has_embedding = sum->has_embedding || c->has_embedding;
    sum->has_head = sum->has_head || c->has_head;
    sum->params_dense += c->params_dense;
    sum->params_expert += c->params_expert;
    sum->params_embedding += c->params_embedding;
    sum->params_fp8 += c->params_fp8;
    sum->params_fp8_expert += c->params_fp8_expert;
    if (c->max_layer_dense > sum->max_layer_dense)
        sum->max_layer_dense = c->max_layer_dense;
    if (c->max_layer_expert > sum->max_layer_expert)
        sum->max_layer_expert = c->max_layer_expert;
    sum->fwd_fp8 += c->fwd_fp8;
    sum->fwd_other += c->fwd_other;
    sum->fwd_linear += c->fwd_linear;
    sum->tp_collectives += c->tp_collectives;
    sum->tp_regathers += c->tp_regathers;
    sum->regather_fwd += c->regather_fwd;
    for (r = 0; r < MODEL_RECOMPUTES; r++) {
        sum->recompute_fp8[r] += c->recompute_fp8[r];
        sum->recompute_other[r] += c->recompute_other[r];
        sum->recompute_core[r] += c->recompute_core[r];
        sum->tp_recompute[r] += c->tp_recompute[r];
        sum->ep_recompute[r] += c->ep_recompute[r];
        for (p = 0; p < MODEL_PRECISIONS; p++) {
            sum->act_bytes[p][r] += c->act_bytes[p][r];
            sum->act_rep[p][r] += c->act_rep[p][r];
            sum->work_bytes[p][r] =
                max2(sum->work_bytes[p][r], c->work_bytes[p][r]);
            sum->work_rep[p][r] = max2(sum->work_rep[p][r], c->work_rep[p][r]);
        }
    }
    sum->kv_elems += c->kv_elems;
    sum->state_elems += c->state_elems;
    sum->scan_layers += c->scan_layers;
    for (p = 0; p < MODEL_LAYER_KINDS; p++)
        sum->kinds[p] = (unsigned short)(sum->kinds[p] + c->kinds[p]);
    for (p = 0; p < MODEL_GEMMS; p++)
        sum->gemm_fwd[p] += c->gemm_fwd[p];
    sum->core_fwd += c->core_fwd;
    for (p = 0; p < MODEL_SCANS; p++)
        sum->scan_fwd[p] += c->scan_fwd[p];
    for (p = 0; p < MODEL_EWS; p++)
        sum->ew_fwd[p] += c->ew_fwd[p];
    sum->recompute_scores += c->recompute_scores;
    add_casts(sum, c->cast_in, c->cast_in_sp, c->cast_grad, c->cast_grad_sp);
}
