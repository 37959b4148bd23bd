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
 * - The token mixers (attention of each kind, linear attention, state
 *   space): model_mixer.c, with their sources.
 * - Saved activations: model_inventory.c.
 *
 * A layer is a block with at most one mixer and at most one MLP, each
 * behind its own norm and residual add (model_pattern.h); a layer kind is
 * a pair of them (or an MTP module), built by build_layer from its parts.
 * The units, the parameter and FLOP totals and the Memory sheet's totals
 * walk the kinds; none names one.
 */
#include "model_derive.h"

#include <math.h>
#include <string.h>

#include "model.h"
#include "model_inventory.h"
#include "model_mixer.h"

/* Matrices of an FFN of intermediate width f (SwiGLU 3, GeLU and squared
 * ReLU 2). */
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
                     struct model_operands *o,
                     double f,
                     double times,
                     bool split)
{
    double h = (double)s->hidden;
    double up = (s->activation == MODEL_SWIGLU ? 2 : 1) * f;
    if (split) {
        model_operands_column(o, h, up, times);
        model_operands_row(o, f, h, times);
    } else {
        o->in += times * (h + f);
        o->grad += times * (up + h);
    }
}

/* The operands of the GEMMs the FP8 recipe runs (model_layer's cast_*). */
static void cast_layer(const struct model_spec *s,
                       const struct model_operands *attn,
                       int mlp,
                       bool mtp,
                       struct model_layer *L)
{
    struct model_operands o = {0};
    double h = (double)s->hidden;
    bool moe = mlp == MODEL_MLP_MOE;
    if (s->fp8_attention_proj) {
        o = *attn;
        if (mtp) /* the [h; emb] projection */
            model_operands_column(&o, 2 * h, h, 1);
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
    if (mlp == MODEL_MLP_DENSE && s->fp8_ffn)
        ffn_cast(s, &o, (double)s->ffn_width, 1, true);
    L->cast_in = o.in;
    L->cast_in_sp = o.in_sp;
    L->cast_grad = o.grad;
    L->cast_grad_sp = o.grad_sp;
}

/* What a layer kind's MLP adds: its dense FFN or its routed and shared
 * experts with their router, parameters and forward FLOPs per token. */
struct ffn_numbers {
    double ffn_p, ffn_f;       /* the dense FFN */
    double exp_p, exp_f;       /* every expert's (routed and shared) */
    double shared_p, shared_f; /* of them, the shared experts' */
    double router_p, router_f;
};

static struct ffn_numbers ffn_numbers(const struct model_spec *s, int mlp)
{
    struct ffn_numbers f = {0};
    double h = (double)s->hidden;
    if (mlp == MODEL_MLP_MOE) {
        double fe = (double)s->expert_width;
        double E = (double)s->routed_experts, k = (double)s->top_k;
        double S = (double)s->shared_experts;
        f.exp_p = E * ffn_params(s, fe);
        f.shared_p = S * ffn_params(s, fe);
        f.exp_f = (k + S) * ffn_fwd(s, fe);
        f.shared_f = S * ffn_fwd(s, fe);
        f.router_p = E * h;
        if (s->linear_bias) /* a bias per expert's logit (GPT-OSS) */
            f.router_p += E;
        f.router_f = 2 * E * h;
    } else if (mlp == MODEL_MLP_DENSE) {
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
                         const struct model_mixer_numbers *a,
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

/* Without fused (flash) attention the s x s scores are materialised:
 * Korthikanti et al. 2022 Table 2 saves the softmax output (2as bytes
 * per token), the dropout mask (as) and its output (2as); each is
 * written and read once more in the forward: 10as bytes (a lower bound:
 * the raw scores and the mask step add more). */
static double scores_bytes(const struct model_spec *s,
                           const struct model_layer *L)
{
    if (s->flash_attention ||
        !(model_mixer_class(L->mixer) & MODEL_MIXER_SOFTMAX))
        return 0;
    return (s->dropout ? 10.0 : 4.0) * (double)s->heads * (double)s->seq_len;
}

/*
 * Elementwise traffic of L's forward pass, BF16 elements (2 bytes each,
 * activation_bytes): a norm (read and write h) and a residual add (two
 * reads and a write of h) per block (`blocks`: a mixer's, an MLP's), the
 * mixer's inner norms and gates, the activation function (SwiGLU reads
 * gate and up and writes their product over its width; GeLU and squared
 * ReLU read and write it), RoPE (reads and writes the rotated part of
 * queries and keys). Backward moves about twice as much (expected.c).
 */
static void elementwise(const struct model_spec *s,
                        const struct model_mixer_numbers *a,
                        double blocks,
                        struct model_layer *L)
{
    double h = (double)s->hidden;
    double act_w =
        L->mlp == MODEL_MLP_MOE
            ? (double)(s->top_k + s->shared_experts) * (double)s->expert_width
        : L->mlp == MODEL_MLP_DENSE ? (double)s->ffn_width
                                    : 0;
    L->ew_fwd[MODEL_EW_NORM] =
        s->activation_bytes * 2 * (blocks + (L->mtp ? 3 : 0)) * h +
        s->activation_bytes * a->norm_elems;
    L->ew_fwd[MODEL_EW_COPY] =
        s->activation_bytes * (blocks * 3 * h + 2 * a->rope_elems);
    L->ew_fwd[MODEL_EW_COPY] += scores_bytes(s, L);
    L->ew_fwd[MODEL_EW_ACTIVATION] =
        s->activation_bytes * (s->activation == MODEL_SWIGLU ? 3 : 2) * act_w +
        s->activation_bytes * a->act_elems;
}

/*
 * torchtitan's op-level selective checkpointing (`alternate_mm`; its
 * _apply_ac_to_transformer_block and _save_list, torchtitan/parallelisms/
 * parallelize_llama.py @9dec370): of each layer's ops it saves the
 * outputs of the attention kernel and of every odd-numbered aten.mm,
 * counted in forward order ("Saves output of all compute ops, except
 * every second mm"), and reruns the rest: the even-numbered matmuls and
 * every elementwise op (expected_compute.c reruns the layer's
 * elementwise work). A GQA mixer's order is q, k, v, o (even: k and o,
 * model_mixer.c); a dense FFN's continues the count, w1, w3, w2 with
 * SwiGLU (torchtitan's FeedForward: w2(silu(w1(x)) * w3(x))), up and down
 * without, each of hidden x width. Other mixers (mms 0) and routed
 * experts (grouped GEMMs, not aten.mm) add none: their order is not
 * modelled.
 */
static void alternate_mm_flops(const struct model_spec *s,
                               const struct model_mixer_numbers *a,
                               const struct ffn_numbers *f,
                               const struct model_layer *L,
                               double *sel8,
                               double *sel16)
{
    double fp8_attn = s->fp8_attention_proj ? 1 : 0;
    double ffn_mms = s->activation == MODEL_SWIGLU ? 3 : 2, even = 0, k;
    *sel8 += a->even_fwd * fp8_attn;
    *sel16 += a->even_fwd * (1 - fp8_attn);
    if (L->mlp != MODEL_MLP_DENSE || a->mms <= 0)
        return;
    for (k = a->mms + 1; k <= a->mms + ffn_mms; k++)
        even += fmod(k, 2) == 0 ? 1 : 0;
    *(s->fp8_ffn ? sel8 : sel16) += f->ffn_f * even / ffn_mms;
}

/* Recomputation redoes forward work in the backward pass: `full` the
 * whole layer; `selective` the modules listed (norms and activation
 * functions are elementwise: no GEMM FLOPs). The attention core reruns
 * as what it is (Korthikanti et al. 2022 §5: QK^T, softmax, dropout and
 * attention over V): its kernel's forward FLOPs (recompute_core, timed
 * at the attention rate) and, unfused, its s x s traffic once more
 * (recompute_scores; a full recomputation reruns all of the layer's
 * elementwise work, expected_compute.c). */
static void recompute_flops(const struct model *m,
                            const struct model_mixer_numbers *a,
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
    L->recompute_core[MODEL_RECOMPUTE_FULL] = a->core_fwd;
    if (recomputes(m, MODEL_MOD_CORE_ATTN)) {
        *sel16 += a->core_fwd;
        L->recompute_core[MODEL_RECOMPUTE_SELECTIVE] = a->core_fwd;
        L->recompute_scores = scores_bytes(s, L);
    }
    if (s->attention == MODEL_MLA && recomputes(m, MODEL_MOD_MLA_UP_PROJ)) {
        *sel8 += a->up_fwd * fp8_attn;
        *sel16 += a->up_fwd * (1 - fp8_attn);
    }
    if (L->mlp == MODEL_MLP_DENSE && recomputes(m, MODEL_MOD_MLP))
        *(s->fp8_ffn ? sel8 : sel16) += f->ffn_f;
    if (moe && recomputes(m, MODEL_MOD_MOE)) {
        *(s->fp8_experts ? sel8 : sel16) += f->exp_f;
        *(s->fp8_router ? sel8 : sel16) += f->router_f;
    } else if (moe && recomputes(m, MODEL_MOD_SHARED_EXPERTS)) {
        *(s->fp8_experts ? sel8 : sel16) += f->shared_f;
    }
    if (recomputes(m, MODEL_MOD_ALTERNATE_MM))
        alternate_mm_flops(s, a, f, L, sel8, sel16);
}

/* Tensor parallel with sequence parallelism (Korthikanti et al. §4.2.2):
 * an all-gather before and a reduce-scatter after each TP-split block,
 * per pass: the mixer (attention heads, a linear attention's or an SSM's
 * heads are split over tp, as Megatron-LM splits them), a dense FFN, and
 * in a MoE layer the shared experts (TP-split as Megatron-LM's
 * SharedExpertMLP; routed experts are split over ep only, expert tensor
 * parallel 1). Recomputing a module redoes the pairs inside it. */
static void tp_collectives(const struct model *m, struct model_layer *L)
{
    const struct model_spec *s = &m->spec;
    bool moe = L->moe;
    double shared_tp = 0;
    if (moe && s->shared_experts > 0)
        shared_tp = 2;
    L->tp_collectives = (L->mixer != MODEL_MIX_NONE ? 2 : 0) +
                        (moe                         ? shared_tp
                         : L->mlp == MODEL_MLP_DENSE ? 2
                                                     : 0);
    L->tp_recompute[MODEL_RECOMPUTE_FULL] = L->tp_collectives;
    if (L->mlp == MODEL_MLP_DENSE && recomputes(m, MODEL_MOD_MLP))
        L->tp_recompute[MODEL_RECOMPUTE_SELECTIVE] += 2;
    if (moe && (recomputes(m, MODEL_MOD_MOE) ||
                recomputes(m, MODEL_MOD_SHARED_EXPERTS)))
        L->tp_recompute[MODEL_RECOMPUTE_SELECTIVE] += shared_tp;
    L->ep_recompute[MODEL_RECOMPUTE_FULL] = moe;
    L->ep_recompute[MODEL_RECOMPUTE_SELECTIVE] =
        moe && recomputes(m, MODEL_MOD_MOE);
}

/*
 * Megatron-LM's backward all-gather under sequence parallelism
 * (megatron/core/tensor_parallel/layers.py,
 * LinearWithGradAccumulationAndAsyncCommunication: the forward keeps a
 * column-parallel GEMM's input as its shard; backward all-gathers it
 * again for the weight gradient, async, issued before the input
 * gradient's GEMM, "Here we rely on CUDA_DEVICE_MAX_CONNECTIONS=1 to
 * ensure that the gather is scheduled before the input gradient
 * computation", and waited for after it; Korthikanti et al. 2022
 * §4.2.2). One per TP-split block, at the column-parallel GEMMs that
 * open it (the mixer's, a dense FFN's or the shared experts' up
 * projection): half of the block's all-gather and reduce-scatter pairs.
 * regather_fwd: those GEMMs' forward FLOPs per token, which their input
 * gradient repeats (the time the all-gather runs under, expected_comm.c).
 */
static void tp_regathers(const struct model_mixer_numbers *a,
                         struct model_layer *L)
{
    double up = L->gemm_fwd[MODEL_GEMM_DENSE_UP] +
                (L->moe ? L->gemm_fwd[MODEL_GEMM_SHARED_UP] : 0);
    L->tp_regathers = L->tp_collectives / 2;
    L->regather_fwd = (L->mixer != MODEL_MIX_NONE ? a->col_fwd : 0) +
                      (L->tp_regathers > 0 ? up : 0);
}

/* The parameter and FLOP sums of one layer kind from its parts. */
static void layer_sums(const struct model_spec *s,
                       const struct model_mixer_numbers *a,
                       const struct ffn_numbers *f,
                       double norms,
                       double extra_p,
                       double extra_f,
                       struct model_layer *L)
{
    double h = (double)s->hidden;
    double fp8_attn = s->fp8_attention_proj ? 1 : 0;
    double scan = 0;
    int k;
    for (k = 0; k < MODEL_SCANS; k++) {
        L->scan_fwd[k] = a->scan_fwd[k];
        scan += a->scan_fwd[k];
    }
    L->params_dense =
        a->params + norms + f->ffn_p + f->shared_p + f->router_p + extra_p;
    L->params_expert = f->exp_p;
    L->params_fp8 = a->params * fp8_attn + (s->fp8_ffn ? f->ffn_p : 0) +
                    (s->fp8_experts ? f->shared_p : 0) +
                    (s->fp8_router ? f->router_p : 0) +
                    (s->fp8_attention_proj ? 2 * h * h * (L->mtp ? 1 : 0) : 0);
    L->params_fp8_expert = s->fp8_experts ? f->exp_p : 0;
    L->params_active = a->params + norms + f->ffn_p + extra_p + f->router_p +
                       (L->moe ? (double)(s->top_k + s->shared_experts) *
                                     ffn_params(s, (double)s->expert_width)
                               : 0);
    L->fwd_fp8 = a->proj_fwd * fp8_attn + (s->fp8_ffn ? f->ffn_f : 0) +
                 (s->fp8_experts ? f->exp_f : 0) +
                 (s->fp8_router ? f->router_f : 0) + extra_f * fp8_attn;
    L->fwd_linear = a->proj_fwd + f->ffn_f + f->exp_f + f->router_f + extra_f;
    L->fwd_other = a->core_fwd + scan + L->fwd_linear - L->fwd_fp8;
}

/* Fills one layer kind's numbers from its parts: its mixer, its MLP and
 * whether it is an MTP module. */
static void build_layer(const struct model *m,
                        struct model_layer *L,
                        int mixer,
                        int mlp,
                        bool mtp)
{
    const struct model_spec *s = &m->spec;
    struct model_mixer_numbers a;
    struct ffn_numbers f = ffn_numbers(s, mlp);
    double h = (double)s->hidden;
    double extra_p = 0, extra_f = 0;
    double blocks =
        (mixer != MODEL_MIX_NONE ? 1 : 0) + (mlp != MODEL_MLP_NONE ? 1 : 0);
    double norms = blocks * model_norm_params(s, h);

    memset(L, 0, sizeof *L);
    model_mixer_numbers(s, mixer, &a);
    L->mixer = mixer;
    L->mlp = mlp;
    L->moe = mlp == MODEL_MLP_MOE;
    L->mtp = mtp;
    if (mtp) {
        /* DeepSeek-V3 MTP module: two input norms, the projection of
         * [h; emb] (2d x d), a transformer block and a final norm; the
         * embedding and output head are shared (§2.2). */
        extra_p = 2 * h * h + 3 * model_norm_params(s, h);
        extra_f = 2 * 2 * h * h;
    }
    layer_sums(s, &a, &f, norms, extra_p, extra_f, L);
    L->kv_elems = a.kv_elems;
    L->state_elems = a.state_elems;
    gemm_classes(s, &a, &f, extra_f, L);
    L->core_fwd = a.core_fwd;
    cast_layer(s, &a.cast, mlp, mtp, L);
    elementwise(s, &a, blocks, L);
    recompute_flops(m, &a, &f, L);
    tp_collectives(m, L);
    tp_regathers(&a, L);
}

/* ---- The layer kinds ---- */

const char *model_layer_kind_name(const struct model *m,
                                  enum model_layer_kind k)
{
    return m->kind_name[k];
}

long model_layer_kind_count(const struct model *m, enum model_layer_kind k)
{
    return m->kind_units[k];
}

enum model_layer_kind model_unit_kind(const struct model *m, long u)
{
    if (m->units <= 0)
        return MODEL_LAYER_DENSE;
    if (u >= m->units)
        u = m->units - 1;
    return (enum model_layer_kind)m->unit_kind[u];
}

/* The attention kernel's widths: those of the softmax mixer most layers
 * have (full attention's where none has one). */
static void kernel_widths(const struct model *m, double *qk, double *v)
{
    struct model_mixer_numbers a;
    int k, best = -1, mixer, mlp, at = MODEL_MIX_FULL;
    for (k = 0; k < MODEL_LAYER_KINDS; k++) {
        model_kind_parts(m, k, &mixer, &mlp);
        if (k == MODEL_LAYER_MTP ||
            !(model_mixer_class(mixer) & MODEL_MIXER_SOFTMAX))
            continue;
        if (m->kind_units[k] > best) {
            best = (int)m->kind_units[k];
            at = mixer;
        }
    }
    model_mixer_numbers(&m->spec, at, &a);
    *qk = a.qk_dim;
    *v = a.v_dim;
}

/* Adds the kinds the units have into the model's parameter and FLOP
 * totals (the MTP modules into theirs); the FP8-run FLOPs of the main
 * model (*fwd8) and of the MTP modules (*mtp8), forward. */
static double
sum_kinds(struct model *m, double head8, double *fwd8, double *mtp8)
{
    double fwd = 0;
    int k;
    for (k = 0; k < MODEL_LAYER_KINDS; k++) {
        const struct model_layer *L = &m->layer[k];
        double n = (double)m->kind_units[k];
        if (n == 0)
            continue;
        if (L->mtp) {
            m->params_mtp += n * (L->params_dense + L->params_expert);
            m->params_mtp_active += n * L->params_active;
            m->flops_per_token_mtp +=
                3 * n * (L->fwd_fp8 + L->fwd_other + m->head_fwd);
            *mtp8 += n * (L->fwd_fp8 + head8);
        } else {
            m->params_total += n * (L->params_dense + L->params_expert);
            m->params_active += n * L->params_active;
            fwd += n * (L->fwd_fp8 + L->fwd_other);
            *fwd8 += n * L->fwd_fp8;
        }
    }
    return fwd;
}

void model_derive(struct model *m)
{
    const struct model_spec *s = &m->spec;
    double h = (double)s->hidden, V = (double)s->vocab;
    struct model_mixer_numbers a;
    struct model_head_widths widths;
    double fwd, fwd8 = 0, mtp8 = 0, head8;
    size_t i;
    int k;

    m->selective = 0;
    for (i = 0; i < s->selective.n; i++)
        m->selective |= 1u << (unsigned)s->selective.v[i];
    model_pattern_units(m);
    model_mixer_numbers(s, MODEL_MIX_FULL, &a);
    widths.qk = a.qk_dim;
    widths.v = a.v_dim;
    widths.kv_heads = model_mixer_kv_heads(s);
    model_inventory_build(m, &widths);
    /* the block model's kinds always (their numbers are read where a
     * model has none of them), the others where units have them */
    for (k = 0; k < MODEL_LAYER_KINDS; k++) {
        int mixer, mlp;
        if (k > MODEL_LAYER_MTP && m->kind_units[k] == 0)
            continue;
        model_kind_parts(m, k, &mixer, &mlp);
        build_layer(m, &m->layer[k], mixer, mlp, k == MODEL_LAYER_MTP);
        model_layer_bytes(m, k, &m->layer[k]);
    }

    m->params_embedding = V * h + (double)s->max_positions * h;
    m->params_head = s->tied_embeddings ? 0 : V * h;
    m->params_final_norm = model_norm_params(s, h);
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
    fwd = sum_kinds(m, head8, &fwd8, &mtp8);
    m->flops_per_token_main = 3 * (fwd + m->head_fwd);
    m->flops_per_token_run = m->flops_per_token_main + m->flops_per_token_mtp;
    m->flops_per_token = m->flops_per_token_main +
                         (s->mtp_count_in_mfu ? m->flops_per_token_mtp : 0);
    kernel_widths(m, &m->attn_head_dim, &m->attn_v_head_dim);
    m->flops_per_token_fp8 =
        3 * (fwd8 + head8 + (s->mtp_count_in_mfu ? mtp8 : 0));
}
