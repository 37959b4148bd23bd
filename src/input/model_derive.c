/*
 * model_derive: parameters and FLOPs of a transformer from its spec (see
 * the header).
 *
 * Sources of the formulas:
 * - FLOPs: 2 per multiply-add; backward = 2 x forward, so a training step
 *   costs 3 x forward (Kaplan et al. 2020; Narayanan et al. 2021). Causal
 *   attention scores cover half of the s x s matrix (QK^T and PV over s/2
 *   keys on average), as DeepSeek's 250 GFLOPs/token (ISCA'25 Table 2) and
 *   Megatron-Bridge's flop_utils.py count them.
 * - MLA shapes: DeepSeek-V2/V3 (q_a, q_b, kv_a, kv_b, o projections).
 * - Saved activations: model_inventory.c.
 *
 * The kinds of layer (dense, MoE, MTP module) are rows of one table,
 * kinds[] below: words for a reader, how many units of the kind a model
 * has, how one is built. The units, the parameter and FLOP totals and the
 * Memory sheet's totals walk the rows; none names a kind.
 */
#include "model_derive.h"

#include <string.h>

#include "model.h"
#include "model_inventory.h"

static double hd_mha(const struct model_spec *s)
{
    return (double)(s->head_dim ? s->head_dim : s->hidden / s->heads);
}

static double kv_heads(const struct model_spec *s)
{
    if (s->attention == MODEL_GQA)
        return (double)s->kv_heads;
    return (double)s->heads;
}

static double norm_params(const struct model_spec *s, double width)
{
    return s->norm == MODEL_LAYERNORM ? 2 * width : width;
}

/* Operands of a layer's GEMMs, elements per token (see model_layer's
 * cast_*): inputs and output gradients, local (TP-split or not split)
 * or all-gathered by sequence parallelism. */
struct cast_operands {
    double in, in_sp, grad, grad_sp;
};

/* A column-parallel GEMM of width k -> n: its input gathered, its
 * output split. */
static void column(struct cast_operands *o, double k, double n, double times)
{
    o->in_sp += times * k;
    o->grad += times * n;
}

/* A row-parallel GEMM k -> n: its input split, its output's gradient
 * gathered. */
static void row(struct cast_operands *o, double k, double n, double times)
{
    o->in += times * k;
    o->grad_sp += times * n;
}

struct attn_numbers {
    double params;             /* projections, biases, latent norms */
    double proj_fwd;           /* projection GEMM FLOPs/token */
    double up_fwd;             /* MLA up-projection GEMM FLOPs/token */
    double core_fwd;           /* QK^T and PV FLOPs/token, causal */
    double qk_dim;             /* per-head query/key dimension */
    double v_dim;              /* per-head value dimension */
    double kv_elems;           /* K and V elements per token (all heads) */
    struct cast_operands cast; /* the projections' operands */
};

static struct attn_numbers attention(const struct model_spec *s)
{
    struct attn_numbers a = {0};
    double h = (double)s->hidden, n = (double)s->heads;
    double ctx = (double)s->seq_len / 2; /* causal: mean keys per query */

    if (s->attention == MODEL_MLA) {
        double ql = (double)s->q_lora_rank, kl = (double)s->kv_lora_rank;
        double nope = (double)s->qk_nope_head_dim;
        double rope = (double)s->qk_rope_head_dim;
        double v = (double)s->v_head_dim;
        double q_down = ql > 0 ? h * ql : 0;
        double q_up = ql > 0 ? ql * n * (nope + rope) : h * n * (nope + rope);
        double kv_down = h * (kl + rope);
        double kv_up = kl * n * (nope + v);
        double out = n * v * h;
        a.params = q_down + q_up + kv_down + kv_up + out +
                   (ql > 0 ? norm_params(s, ql) : 0) + norm_params(s, kl);
        a.up_fwd = 2 * (ql > 0 ? q_up : 0) + 2 * kv_up;
        a.proj_fwd = 2 * (q_down + q_up + kv_down + kv_up + out);
        a.qk_dim = nope + rope;
        a.v_dim = v;
        /* down projections from the gathered hidden; up projections
         * from the latents (split as their outputs); the output
         * projection row-parallel */
        if (ql > 0) {
            column(&a.cast, h, ql, 1);
            a.cast.in += ql;
            a.cast.grad += n * (nope + rope);
        } else {
            column(&a.cast, h, n * (nope + rope), 1);
        }
        column(&a.cast, h, kl + rope, 1);
        a.cast.in += kl;
        a.cast.grad += n * (nope + v);
        row(&a.cast, n * v, h, 1);
    } else {
        double d = hd_mha(s), kvh = kv_heads(s);
        double q = h * n * d, kv = 2 * h * kvh * d, out = n * d * h;
        a.params = q + kv + out;
        if (s->linear_bias)
            a.params += n * d + 2 * kvh * d + h;
        else if (s->qkv_bias)
            a.params += n * d + 2 * kvh * d;
        if (s->qk_norm) /* one d-wide norm each for queries and keys */
            a.params += 2 * norm_params(s, d);
        a.proj_fwd = 2 * (q + kv + out);
        a.qk_dim = d;
        a.v_dim = d;
        column(&a.cast, h, (n + 2 * kvh) * d, 1); /* fused QKV */
        row(&a.cast, n * d, h, 1);
    }
    a.core_fwd = 2 * n * a.qk_dim * ctx + 2 * n * a.v_dim * ctx;
    a.kv_elems = n * (a.qk_dim + a.v_dim);
    if (s->attention != MODEL_MLA)
        a.kv_elems = kv_heads(s) * (a.qk_dim + a.v_dim);
    return a;
}

/* Matrices of an FFN of intermediate width f (SwiGLU 3, GeLU 2). */
static double ffn_params(const struct model_spec *s, double f)
{
    double h = (double)s->hidden;
    double p = (s->activation == MODEL_SWIGLU ? 3 : 2) * h * f;
    if (s->linear_bias)
        p += (s->activation == MODEL_SWIGLU ? 2 : 1) * f + h;
    return p;
}

static double ffn_fwd(const struct model_spec *s, double f)
{
    return 2 * (s->activation == MODEL_SWIGLU ? 3 : 2) * (double)s->hidden * f;
}

static bool recomputes(const struct model *m, int module)
{
    return (m->selective & (1u << module)) != 0;
}

/* An FFN of width f's operands: the up (and gate) projection
 * column-parallel, the down projection row-parallel; `split` false for
 * routed experts (expert tensor parallel 1: nothing gathered). */
static void ffn_cast(const struct model_spec *s,
                     struct cast_operands *o,
                     double f,
                     double times,
                     bool split)
{
    double h = (double)s->hidden;
    double up = (s->activation == MODEL_SWIGLU ? 2 : 1) * f;
    if (split) {
        column(o, h, up, times);
        row(o, f, h, times);
    } else {
        o->in += times * (h + f);
        o->grad += times * (up + h);
    }
}

/* The operands of the GEMMs the FP8 recipe runs (model_layer's cast_*). */
static void cast_layer(const struct model_spec *s,
                       const struct cast_operands *attn,
                       bool moe,
                       bool mtp,
                       struct model_layer *L)
{
    struct cast_operands o = {0};
    double h = (double)s->hidden;
    if (s->fp8_attention_proj) {
        o = *attn;
        if (mtp) /* the [h; emb] projection */
            column(&o, 2 * h, h, 1);
    }
    if (moe && s->fp8_experts) {
        ffn_cast(s, &o, (double)s->expert_width, (double)s->top_k, false);
        ffn_cast(s, &o, (double)s->expert_width, (double)s->shared_experts,
                 true);
    }
    if (moe && s->fp8_router) { /* on the sequence-split hidden */
        o.in += h;
        o.grad += (double)s->routed_experts;
    }
    if (!moe && s->fp8_ffn)
        ffn_cast(s, &o, (double)s->ffn_width, 1, true);
    L->cast_in = o.in;
    L->cast_in_sp = o.in_sp;
    L->cast_grad = o.grad;
    L->cast_grad_sp = o.grad_sp;
}

/* What a layer kind adds to the attention: its FFN (dense) or its
 * routed and shared experts with their router, parameters and forward
 * FLOPs per token. */
struct ffn_numbers {
    double ffn_p, ffn_f;       /* the dense FFN */
    double exp_p, exp_f;       /* every expert's (routed and shared) */
    double shared_p, shared_f; /* of them, the shared experts' */
    double router_p, router_f;
};

static struct ffn_numbers ffn_numbers(const struct model_spec *s, bool moe)
{
    struct ffn_numbers f = {0};
    double h = (double)s->hidden;
    if (moe) {
        double fe = (double)s->expert_width;
        double E = (double)s->routed_experts, k = (double)s->top_k;
        double S = (double)s->shared_experts;
        f.exp_p = E * ffn_params(s, fe);
        f.shared_p = S * ffn_params(s, fe);
        f.exp_f = (k + S) * ffn_fwd(s, fe);
        f.shared_f = S * ffn_fwd(s, fe);
        f.router_p = E * h;
        f.router_f = 2 * E * h;
    } else {
        f.ffn_p = ffn_params(s, (double)s->ffn_width);
        f.ffn_f = ffn_fwd(s, (double)s->ffn_width);
    }
    return f;
}

/* L's forward GEMM FLOPs by class: an FFN's up (and gate) projection is 2
 * of SwiGLU's 3 matrices (1 of GeLU's 2), its down projection the rest.
 * The MTP module's [h; emb] projection (extra_f) runs with the
 * attention's. */
static void gemm_classes(const struct model_spec *s,
                         const struct attn_numbers *a,
                         const struct ffn_numbers *f,
                         double extra_f,
                         struct model_layer *L)
{
    double up = s->activation == MODEL_SWIGLU ? 2.0 / 3 : 0.5;
    L->gemm_fwd[MODEL_GEMM_ATTN] = a->proj_fwd + extra_f;
    L->gemm_fwd[MODEL_GEMM_DENSE_UP] = f->ffn_f * up;
    L->gemm_fwd[MODEL_GEMM_DENSE_DOWN] = f->ffn_f * (1 - up);
    L->gemm_fwd[MODEL_GEMM_EXPERT_UP] = (f->exp_f - f->shared_f) * up;
    L->gemm_fwd[MODEL_GEMM_EXPERT_DOWN] = (f->exp_f - f->shared_f) * (1 - up);
    L->gemm_fwd[MODEL_GEMM_SHARED_UP] = f->shared_f * up;
    L->gemm_fwd[MODEL_GEMM_SHARED_DOWN] = f->shared_f * (1 - up);
    L->gemm_fwd[MODEL_GEMM_ROUTER] = f->router_f;
}

/*
 * Elementwise traffic of L's forward pass, BF16 elements (2 bytes each,
 * activation_bytes): two norms (read and write h each), two residual adds
 * (two reads and a write of h), the activation function (SwiGLU reads
 * gate and up and writes their product over its width; GeLU reads and
 * writes it), RoPE (reads and writes the rotated part of queries and
 * keys). Backward moves about twice as much (expected.c).
 */
static void elementwise(const struct model_spec *s,
                        const struct attn_numbers *a,
                        struct model_layer *L)
{
    double h = (double)s->hidden;
    double act_w = L->moe ? (double)(s->top_k + s->shared_experts) *
                                (double)s->expert_width
                          : (double)s->ffn_width;
    double rope = s->attention == MODEL_MLA
                      ? (double)s->qk_rope_head_dim * ((double)s->heads + 1)
                      : a->qk_dim * ((double)s->heads + kv_heads(s));
    L->ew_fwd[MODEL_EW_NORM] =
        s->activation_bytes * 2 * (2 + (L->mtp ? 3 : 0)) * h;
    L->ew_fwd[MODEL_EW_COPY] = s->activation_bytes * (2 * 3 * h + 2 * rope);
    /* Without fused (flash) attention the s x s scores are materialised:
     * Korthikanti et al. 2022 Table 2 saves the softmax output (2as
     * bytes per token), the dropout mask (as) and its output (2as); each
     * is written and read once more in the forward: 10as bytes (a lower
     * bound: the raw scores and the mask step add more). */
    if (!s->flash_attention)
        L->ew_fwd[MODEL_EW_COPY] +=
            (s->dropout ? 10.0 : 4.0) * (double)s->heads * (double)s->seq_len;
    L->ew_fwd[MODEL_EW_ACTIVATION] =
        s->activation_bytes * (s->activation == MODEL_SWIGLU ? 3 : 2) * act_w;
}

/* Recomputation redoes forward work in the backward pass: `full` the
 * whole layer; `selective` the modules listed (norms and activation
 * functions are elementwise: no GEMM FLOPs). */
static void recompute_flops(const struct model *m,
                            const struct attn_numbers *a,
                            const struct ffn_numbers *f,
                            struct model_layer *L)
{
    const struct model_spec *s = &m->spec;
    double fp8_attn = s->fp8_attention_proj ? 1 : 0;
    double *sel8 = &L->recompute_fp8[MODEL_RECOMPUTE_SELECTIVE];
    double *sel16 = &L->recompute_other[MODEL_RECOMPUTE_SELECTIVE];
    bool moe = L->moe;
    L->recompute_fp8[MODEL_RECOMPUTE_FULL] = L->fwd_fp8;
    L->recompute_other[MODEL_RECOMPUTE_FULL] = L->fwd_other;
    if (recomputes(m, MODEL_MOD_CORE_ATTN))
        *sel16 += a->core_fwd;
    if (s->attention == MODEL_MLA && recomputes(m, MODEL_MOD_MLA_UP_PROJ)) {
        *sel8 += a->up_fwd * fp8_attn;
        *sel16 += a->up_fwd * (1 - fp8_attn);
    }
    if (!moe && recomputes(m, MODEL_MOD_MLP))
        *(s->fp8_ffn ? sel8 : sel16) += f->ffn_f;
    if (moe && recomputes(m, MODEL_MOD_MOE)) {
        *(s->fp8_experts ? sel8 : sel16) += f->exp_f;
        *(s->fp8_router ? sel8 : sel16) += f->router_f;
    } else if (moe && recomputes(m, MODEL_MOD_SHARED_EXPERTS)) {
        *(s->fp8_experts ? sel8 : sel16) += f->shared_f;
    }
}

/* Tensor parallel with sequence parallelism (Korthikanti et al. §4.2.2):
 * an all-gather before and a reduce-scatter after each TP-split block,
 * per pass. Routed experts are split over ep only (expert tensor parallel
 * 1), so a MoE layer has the attention's pair and, when it has shared
 * experts (TP-split as Megatron-LM's SharedExpertMLP), theirs; a dense
 * layer the attention's and the FFN's. Recomputing a module redoes the
 * pairs inside it. */
static void tp_collectives(const struct model *m, struct model_layer *L)
{
    const struct model_spec *s = &m->spec;
    bool moe = L->moe;
    double shared_tp = 0;
    if (moe && s->shared_experts > 0)
        shared_tp = 2;
    L->tp_collectives = 2 + (moe ? shared_tp : 2);
    L->tp_recompute[MODEL_RECOMPUTE_FULL] = L->tp_collectives;
    if (!moe && recomputes(m, MODEL_MOD_MLP))
        L->tp_recompute[MODEL_RECOMPUTE_SELECTIVE] += 2;
    if (moe && (recomputes(m, MODEL_MOD_MOE) ||
                recomputes(m, MODEL_MOD_SHARED_EXPERTS)))
        L->tp_recompute[MODEL_RECOMPUTE_SELECTIVE] += shared_tp;
    L->ep_recompute[MODEL_RECOMPUTE_FULL] = moe;
    L->ep_recompute[MODEL_RECOMPUTE_SELECTIVE] =
        moe && recomputes(m, MODEL_MOD_MOE);
}

/* What a layer kind is built from (build_layer). */
enum layer_parts {
    LAYER_DENSE = 0,    /* a dense FFN */
    LAYER_MOE = 1 << 0, /* routed (and shared) experts instead */
    LAYER_MTP = 1 << 1  /* and the MTP module's extras */
};

/* Fills one layer kind's numbers from its parts. */
static void
build_layer(const struct model *m, struct model_layer *L, unsigned parts)
{
    const struct model_spec *s = &m->spec;
    struct attn_numbers a = attention(s);
    bool moe = parts & LAYER_MOE, mtp = parts & LAYER_MTP;
    struct ffn_numbers f = ffn_numbers(s, moe);
    double h = (double)s->hidden;
    double fp8_attn = s->fp8_attention_proj ? 1 : 0;
    double extra_p = 0, extra_f = 0;
    double norms = 2 * norm_params(s, h);

    memset(L, 0, sizeof *L);
    L->moe = moe;
    L->mtp = mtp;
    if (mtp) {
        /* DeepSeek-V3 MTP module: two input norms, the projection of
         * [h; emb] (2d x d), a transformer block and a final norm; the
         * embedding and output head are shared (§2.2). */
        extra_p = 2 * h * h + 3 * norm_params(s, h);
        extra_f = 2 * 2 * h * h;
    }
    L->params_dense =
        a.params + norms + f.ffn_p + f.shared_p + f.router_p + extra_p;
    L->params_expert = f.exp_p;
    L->params_fp8 = a.params * fp8_attn + (s->fp8_ffn ? f.ffn_p : 0) +
                    (s->fp8_experts ? f.shared_p : 0) +
                    (s->fp8_router ? f.router_p : 0) +
                    (s->fp8_attention_proj ? 2 * h * h * (mtp ? 1 : 0) : 0);
    L->params_fp8_expert = s->fp8_experts ? f.exp_p : 0;
    L->params_active = a.params + norms + f.ffn_p + extra_p + f.router_p +
                       (moe ? (double)(s->top_k + s->shared_experts) *
                                  ffn_params(s, (double)s->expert_width)
                            : 0);
    L->fwd_fp8 = a.proj_fwd * fp8_attn + (s->fp8_ffn ? f.ffn_f : 0) +
                 (s->fp8_experts ? f.exp_f : 0) +
                 (s->fp8_router ? f.router_f : 0) + extra_f * fp8_attn;
    L->fwd_linear = a.proj_fwd + f.ffn_f + f.exp_f + f.router_f + extra_f;
    L->fwd_other = a.core_fwd + L->fwd_linear - L->fwd_fp8;
    L->kv_elems = a.kv_elems;
    gemm_classes(s, &a, &f, extra_f, L);
    L->core_fwd = a.core_fwd;
    cast_layer(s, &a.cast, moe, mtp, L);
    elementwise(s, &a, L);
    recompute_flops(m, &a, &f, L);
    tp_collectives(m, L);
}

/* ---- The layer kinds: one row each, in the order of the units ---- */

static long dense_count(const struct model_spec *s)
{
    return s->routed_experts > 0 ? s->first_dense_layers : s->layers;
}

static long moe_count(const struct model_spec *s)
{
    return s->routed_experts > 0 ? s->layers - s->first_dense_layers : 0;
}

/* MTP modules are trained with the model: they always run (memory,
 * FLOPs, time); only what MFU counts is a convention. */
static long mtp_count(const struct model_spec *s)
{
    return s->mtp_depth;
}

static void dense_build(const struct model *m, struct model_layer *L)
{
    build_layer(m, L, LAYER_DENSE);
}

static void moe_build(const struct model *m, struct model_layer *L)
{
    build_layer(m, L, LAYER_MOE);
}

/* DeepSeek-V3's MTP module carries the main model's FFN kind. */
static void mtp_build(const struct model *m, struct model_layer *L)
{
    build_layer(m, L,
                LAYER_MTP |
                    (m->spec.routed_experts > 0 ? LAYER_MOE : LAYER_DENSE));
}

static const struct model_layer_kind_row {
    const char *name;                          /* words for a reader */
    long (*count)(const struct model_spec *s); /* units of this kind */
    void (*build)(const struct model *m, struct model_layer *L);
} kinds[MODEL_LAYER_KINDS] = {
    [MODEL_LAYER_DENSE] = {"dense layer", dense_count, dense_build},
    [MODEL_LAYER_MOE] = {"MoE layer", moe_count, moe_build},
    [MODEL_LAYER_MTP] = {"MTP module", mtp_count, mtp_build},
};

const char *model_layer_kind_name(enum model_layer_kind k)
{
    return kinds[k].name;
}

long model_layer_kind_count(const struct model *m, enum model_layer_kind k)
{
    return kinds[k].count(&m->spec);
}

enum model_layer_kind model_unit_kind(const struct model *m, long u)
{
    int k;
    for (k = 0; k < MODEL_LAYER_KINDS - 1; k++) {
        long n = kinds[k].count(&m->spec);
        if (u < n)
            break;
        u -= n;
    }
    return (enum model_layer_kind)k;
}

void model_derive(struct model *m)
{
    const struct model_spec *s = &m->spec;
    double h = (double)s->hidden, V = (double)s->vocab;
    struct attn_numbers a = attention(s);
    struct model_head_widths widths;
    double fwd = 0, fwd8 = 0, mtp8 = 0, head8;
    size_t i;
    int k;

    m->selective = 0;
    for (i = 0; i < s->selective.n; i++)
        m->selective |= 1u << (unsigned)s->selective.v[i];
    widths.qk = a.qk_dim;
    widths.v = a.v_dim;
    widths.kv_heads = kv_heads(s);
    model_inventory_build(m, &widths);
    m->units = 0;
    for (k = 0; k < MODEL_LAYER_KINDS; k++) {
        kinds[k].build(m, &m->layer[k]);
        model_layer_bytes(m, k, &m->layer[k]);
        m->units += kinds[k].count(s);
    }

    m->params_embedding = V * h + (double)s->max_positions * h;
    m->params_head = s->tied_embeddings ? 0 : V * h;
    m->params_final_norm = norm_params(s, h);
    m->head_fwd = 2 * h * V;
    head8 = s->fp8_head ? m->head_fwd : 0;

    /* Per kind present: the main model's layers into its params and
     * FLOPs (3 x forward: forward + backward), the MTP modules into
     * theirs; each MTP module runs its block and the shared output head
     * again. Of the FLOPs, the GEMMs an FP8 plan runs in FP8 (MFU weighs
     * them by the FP8 peak). */
    m->params_total =
        m->params_embedding + m->params_head + m->params_final_norm;
    m->params_active = m->params_total;
    m->params_mtp = 0;
    m->params_mtp_active = 0;
    m->flops_per_token_mtp = 0;
    for (k = 0; k < MODEL_LAYER_KINDS; k++) {
        const struct model_layer *L = &m->layer[k];
        double n = (double)kinds[k].count(s);
        if (n == 0)
            continue;
        if (L->mtp) {
            m->params_mtp += n * (L->params_dense + L->params_expert);
            m->params_mtp_active += n * L->params_active;
            m->flops_per_token_mtp +=
                3 * n * (L->fwd_fp8 + L->fwd_other + m->head_fwd);
            mtp8 += n * (L->fwd_fp8 + head8);
        } else {
            m->params_total += n * (L->params_dense + L->params_expert);
            m->params_active += n * L->params_active;
            fwd += n * (L->fwd_fp8 + L->fwd_other);
            fwd8 += n * L->fwd_fp8;
        }
    }
    m->flops_per_token_main = 3 * (fwd + m->head_fwd);
    m->flops_per_token_run = m->flops_per_token_main + m->flops_per_token_mtp;
    m->flops_per_token = m->flops_per_token_main +
                         (s->mtp_count_in_mfu ? m->flops_per_token_mtp : 0);
    m->attn_head_dim = attention(s).qk_dim;
    m->attn_v_head_dim = attention(s).v_dim;
    m->flops_per_token_fp8 =
        3 * (fwd8 + head8 + (s->mtp_count_in_mfu ? mtp8 : 0));
}
