/*
 * model_inventory: what a layer saves for backward (see the header).
 *
 * The inventory is Korthikanti et al. 2022 ("Reducing Activation
 * Recomputation in Large Transformer Models", §4), extended to GQA, MLA,
 * SwiGLU and MoE; FP8 caching per DeepSeek-V3 (arXiv 2412.19437 §3.3.3).
 */
#include "model_inventory.h"

#include "model.h"
#include "model_mixer.h"

#define MOD(x) (1u << (MODEL_MOD_##x))

const char *model_module_word(int module)
{
    static const char *const words[MODEL_MODULES] = {
        [MODEL_MOD_CORE_ATTN] = "core_attn",
        [MODEL_MOD_MLA_UP_PROJ] = "mla_up_proj",
        [MODEL_MOD_MLP] = "mlp",
        [MODEL_MOD_MOE] = "moe",
        [MODEL_MOD_MOE_ACT] = "moe_act",
        [MODEL_MOD_LAYERNORM] = "layernorm",
        [MODEL_MOD_SHARED_EXPERTS] = "shared_experts",
        [MODEL_MOD_ALTERNATE_MM] = "alternate_mm",
    };
    return DATAFILE_WORD_AT(words, module);
}

/* What a layer kind is made of, as bits: a tensor sits in the kinds
 * that have all of the parts it needs. */
enum part {
    P_MIXER = 1 << 0,   /* any mixer: its norm, its residual */
    P_MLP = 1 << 1,     /* any MLP: its norm, its residual */
    P_SOFTMAX = 1 << 2, /* softmax attention */
    P_SPARSE = 1 << 3,  /* its lightning indexer */
    P_LINEAR = 1 << 4,  /* Gated DeltaNet */
    P_SSM = 1 << 5,     /* Mamba-2 */
    P_DENSE = 1 << 6,   /* a dense FFN */
    P_MOE = 1 << 7      /* routed experts */
};

/* Tensor flags: where it sits in a layer and who drops it. */
struct place {
    unsigned needs; /* enum part: the parts a layer has to save it */
    bool routed;    /* one copy per routed expert */
    bool tp_split;  /* inside a tensor-parallel region */
};

static const struct place at_any = {.needs = 0};
static const struct place at_mixer = {.needs = P_MIXER};
static const struct place at_mlp = {.needs = P_MLP};
static const struct place at_both = {.needs = P_MIXER | P_MLP};
static const struct place at_attn = {.needs = P_SOFTMAX};
static const struct place at_attn_tp = {.needs = P_SOFTMAX, .tp_split = true};
static const struct place at_dense_tp = {.needs = P_DENSE, .tp_split = true};
static const struct place at_moe = {.needs = P_MOE};
static const struct place at_moe_tp = {.needs = P_MOE, .tp_split = true};
static const struct place at_routed = {.needs = P_MOE, .routed = true};
static const struct place at_index = {.needs = P_SPARSE};
static const struct place at_linear_tp = {.needs = P_LINEAR, .tp_split = true};
static const struct place at_ssm_tp = {.needs = P_SSM, .tp_split = true};

/* The parts of layer kind k of m (enum part). */
static unsigned parts_of(const struct model *m, int k)
{
    int mixer, mlp;
    unsigned c, bits = 0;
    model_kind_parts(m, k, &mixer, &mlp);
    c = model_mixer_class(mixer);
    if (mixer != MODEL_MIX_NONE)
        bits |= P_MIXER;
    if (mlp != MODEL_MLP_NONE)
        bits |= P_MLP;
    bits |= (c & MODEL_MIXER_SOFTMAX ? P_SOFTMAX : 0) |
            (c & MODEL_MIXER_SPARSE ? P_SPARSE : 0) |
            (c & MODEL_MIXER_LINEAR ? P_LINEAR : 0) |
            (c & MODEL_MIXER_SSM ? P_SSM : 0);
    return bits | (mlp == MODEL_MLP_DENSE ? P_DENSE : 0) |
           (mlp == MODEL_MLP_MOE ? P_MOE : 0);
}

/* Whether any unit of m has all of the parts `needs`. */
static bool has(const struct model *m, unsigned needs)
{
    int k;
    for (k = 0; k < MODEL_LAYER_KINDS; k++)
        if (m->kind_units[k] > 0 && (parts_of(m, k) & needs) == needs)
            return true;
    return false;
}

static void add_tensor(struct model *m,
                       const char *name,
                       struct place at,
                       double elems,
                       int dtype,
                       int tag,
                       unsigned modules)
{
    struct model_tensor *t;
    int k;
    if (elems <= 0 || m->tensors == MODEL_TENSORS_MAX)
        return;
    t = &m->tensor[m->tensors++];
    t->name = name;
    /* every kind with the parts (an MTP module's block carries the main
     * model's MLP kind), whether or not the model has units of it */
    t->kinds = 0;
    for (k = 0; k < MODEL_LAYER_KINDS; k++)
        if ((parts_of(m, k) & at.needs) == at.needs)
            t->kinds |= 1u << k;
    t->elems = elems;
    t->routed = at.routed;
    t->dtype = dtype;
    t->tag = tag;
    t->modules = modules;
    t->tp_split = at.tp_split;
}

/*
 * What one layer saves for its backward pass, per token. For a GPT layer
 * (MHA, GeLU, dropout, no flash attention) the entries add up to
 * Korthikanti et al.'s 34h + 5as bytes per token, of which 10h lie
 * outside the tensor-parallel regions (their eq. 2: 10 + 24/t without
 * sequence parallelism). Which module's recomputation drops each tensor
 * follows Megatron-LM's modules: `layernorm` the two layer norms' outputs;
 * `mla_up_proj` the latent norms and up-projections (their checkpointed
 * qkv_up_proj_and_rope_apply); `core_attn` what the attention kernel
 * saves beyond Q, K, V; `mlp`, `moe`, `shared_experts` their modules'
 * internals (normal checkpointing keeps the module's input); `moe_act` the
 * routed experts' activation output.
 */
/* The attention's tensors, from its projections' inputs and outputs
 * (MLA's latents and up-projections, or Q, K, V) to its output and the
 * residual dropout after it. */
static void attention_tensors(struct model *m,
                              const struct model_head_widths *w)
{
    const struct model_spec *s = &m->spec;
    double h = (double)s->hidden, n = (double)s->heads;
    double S = (double)s->seq_len;
    if (s->attention == MODEL_MLA) {
        double ql = (double)s->q_lora_rank, kl = (double)s->kv_lora_rank;
        double rope = (double)s->qk_rope_head_dim;
        /* the down-projections are not split over tp: their latents are
         * replicated without sequence parallelism */
        add_tensor(m, "query latent (q norm input)", at_attn, ql, MODEL_DT_ACT,
                   MODEL_TAG_KEPT, 0);
        add_tensor(m, "query latent norm output (q up-projection input)",
                   at_attn, ql, MODEL_DT_LIN_IN, MODEL_TAG_NORM,
                   MOD(MLA_UP_PROJ) | MOD(LAYERNORM));
        add_tensor(m, "key/value latent (kv norm input)", at_attn, kl,
                   MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
        add_tensor(m, "decoupled RoPE key", at_attn, rope, MODEL_DT_ACT,
                   MODEL_TAG_KEPT, 0);
        add_tensor(m, "key/value latent norm output (kv up-projection input)",
                   at_attn, kl, MODEL_DT_LIN_IN, MODEL_TAG_NORM,
                   MOD(MLA_UP_PROJ) | MOD(LAYERNORM));
        add_tensor(m, "Q (up-projected, with RoPE)", at_attn_tp, n * w->qk,
                   MODEL_DT_ACT, MODEL_TAG_MLA_UP, MOD(MLA_UP_PROJ));
        add_tensor(m, "K (up-projected, with RoPE)", at_attn_tp, n * w->qk,
                   MODEL_DT_ACT, MODEL_TAG_MLA_UP, MOD(MLA_UP_PROJ));
        add_tensor(m, "V (up-projected)", at_attn_tp, n * w->v, MODEL_DT_ACT,
                   MODEL_TAG_MLA_UP, MOD(MLA_UP_PROJ));
    } else {
        double kvh = w->kv_heads;
        add_tensor(m, "Q", at_attn_tp, n * w->qk, MODEL_DT_ACT, MODEL_TAG_KEPT,
                   0);
        add_tensor(m, "K", at_attn_tp, kvh * w->qk, MODEL_DT_ACT,
                   MODEL_TAG_KEPT, 0);
        add_tensor(m, "V", at_attn_tp, kvh * w->v, MODEL_DT_ACT, MODEL_TAG_KEPT,
                   0);
        /* QK-norm's backward needs its inputs, the projections' outputs,
         * besides the normalised (and rotated) Q and K attention saves. */
        if (s->qk_norm) {
            add_tensor(m, "Q before QK-norm (q_norm input)", at_attn_tp,
                       n * w->qk, MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
            add_tensor(m, "K before QK-norm (k_norm input)", at_attn_tp,
                       kvh * w->qk, MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
        }
    }
    if (s->flash_attention) {
        add_tensor(m, "softmax statistics (flash attention)", at_attn_tp, n,
                   MODEL_DT_FP32, MODEL_TAG_KEPT, MOD(CORE_ATTN));
    } else {
        add_tensor(m, "softmax output (s x s)", at_attn_tp, n * S, MODEL_DT_ACT,
                   MODEL_TAG_ATTN_CORE, MOD(CORE_ATTN));
        if (s->dropout) {
            add_tensor(m, "attention dropout mask (s x s)", at_attn_tp, n * S,
                       MODEL_DT_MASK, MODEL_TAG_ATTN_CORE, MOD(CORE_ATTN));
            add_tensor(m, "attention dropout output (s x s)", at_attn_tp, n * S,
                       MODEL_DT_ACT, MODEL_TAG_ATTN_CORE, MOD(CORE_ATTN));
        }
    }
    add_tensor(m, "attention output (output projection input)", at_attn_tp,
               n * w->v, MODEL_DT_ATTN_OUT, MODEL_TAG_KEPT, 0);
    if (s->dropout)
        add_tensor(m, "residual dropout mask (attention)", at_mixer, h,
                   MODEL_DT_MASK, MODEL_TAG_KEPT, 0);
}

/* The lightning indexer's (DeepSeek-V3.2, inference/model.py's
 * Indexer): its queries and keys, its heads' weights and the keys it
 * picked (int32 indices, four bytes each), none TP-split: DeepSeek
 * replicates the indexer over the tensor-parallel group. */
static void indexer_tensors(struct model *m)
{
    const struct model_spec *s = &m->spec;
    double hi = (double)s->index_heads, di = (double)s->index_head_dim;
    add_tensor(m, "indexer queries", at_index, hi * di, MODEL_DT_ACT,
               MODEL_TAG_KEPT, 0);
    add_tensor(m, "indexer keys", at_index, di, MODEL_DT_ACT, MODEL_TAG_KEPT,
               0);
    add_tensor(m, "indexer head weights", at_index, hi, MODEL_DT_FP32,
               MODEL_TAG_KEPT, 0);
    add_tensor(m, "top-k key indices (int32)", at_index, (double)s->index_topk,
               MODEL_DT_FP32, MODEL_TAG_KEPT, 0);
}

/* Gated DeltaNet's (transformers' Qwen3NextGatedDeltaNet with the FLA
 * chunked kernel): the projections' outputs (q, k, v, z; b, a), the
 * convolution's outputs (q and k repeated to the value heads, v), the
 * decay and step (FP32), the chunked rule's intra-chunk matrix (FP32, a
 * chunk's width per value head: its backward recomputes the chunk
 * states rather than keep them), the rule's output and the gated norm's
 * output, all split over tp with the heads. */
static void linear_tensors(struct model *m)
{
    const struct model_spec *s = &m->spec;
    double hk = (double)s->linear_key_heads, hv = (double)s->linear_value_heads;
    double dk = (double)s->linear_key_dim, dv = (double)s->linear_value_dim;
    double kd = hk * dk, vd = hv * dv;
    add_tensor(m, "linear attention projections (q, k, v, z, b, a)",
               at_linear_tp, 2 * kd + 2 * vd + 2 * hv, MODEL_DT_ACT,
               MODEL_TAG_KEPT, 0);
    add_tensor(m, "linear attention q, k, v after the convolution",
               at_linear_tp, 2 * hv * dk + vd, MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
    add_tensor(m, "linear attention decay and step (g, beta)", at_linear_tp,
               2 * hv, MODEL_DT_FP32, MODEL_TAG_KEPT, 0);
    add_tensor(m, "delta rule intra-chunk matrix", at_linear_tp,
               hv * (double)s->linear_chunk, MODEL_DT_FP32, MODEL_TAG_KEPT, 0);
    add_tensor(m, "delta rule output (gated norm input)", at_linear_tp, vd,
               MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
    add_tensor(m, "gated norm output (output projection input)", at_linear_tp,
               vd, MODEL_DT_LIN_IN, MODEL_TAG_KEPT, 0);
}

/* Mamba-2's (mamba_ssm's MambaChunkScanCombinedFn and the convolution
 * before it): in_proj's output (z, x, B, C, dt), the convolution's
 * output (x, B, C), dt and its cumulative decay (FP32), the scan's
 * output and the gated norm's output, split over tp with the heads. */
static void ssm_tensors(struct model *m)
{
    const struct model_spec *s = &m->spec;
    double nh = (double)s->ssm_heads, inner = nh * (double)s->ssm_head_dim;
    double bc = 2 * (double)s->ssm_groups * (double)s->ssm_state;
    add_tensor(m, "Mamba-2 in_proj output (z, x, B, C, dt)", at_ssm_tp,
               2 * inner + bc + nh, MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
    add_tensor(m, "Mamba-2 x, B, C after the convolution", at_ssm_tp,
               inner + bc, MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
    add_tensor(m, "Mamba-2 dt and its cumulative decay", at_ssm_tp, 2 * nh,
               MODEL_DT_FP32, MODEL_TAG_KEPT, 0);
    add_tensor(m, "Mamba-2 scan output (gated norm input)", at_ssm_tp, inner,
               MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
    add_tensor(m, "Mamba-2 gated norm output (output projection input)",
               at_ssm_tp, inner, MODEL_DT_LIN_IN, MODEL_TAG_KEPT, 0);
}

/* The FFN's tensors: a dense layer's (SwiGLU or GeLU) and a MoE layer's
 * router, shared and routed experts. */
static void ffn_tensors(struct model *m)
{
    const struct model_spec *s = &m->spec;
    double h = (double)s->hidden;
    bool moe = has(m, P_MOE);
    bool dense = has(m, P_DENSE);
    double f = (double)s->ffn_width, fe = (double)s->expert_width;
    bool swiglu = s->activation == MODEL_SWIGLU;
    if (dense) {
        if (swiglu) {
            add_tensor(m, "dense gate/up output (SwiGLU input)", at_dense_tp,
                       2 * f, MODEL_DT_SWIGLU_IN, MODEL_TAG_KEPT, MOD(MLP));
            add_tensor(m, "dense SwiGLU output (down-projection input)",
                       at_dense_tp, f, MODEL_DT_LIN_IN, MODEL_TAG_SWIGLU_OUT,
                       MOD(MLP));
        } else {
            add_tensor(m, "dense FC1 output (GeLU input)", at_dense_tp, f,
                       MODEL_DT_ACT, MODEL_TAG_KEPT, MOD(MLP));
            add_tensor(m, "dense GeLU output (FC2 input)", at_dense_tp, f,
                       MODEL_DT_LIN_IN, MODEL_TAG_KEPT, MOD(MLP));
        }
    }
    if (moe) {
        double sh = (double)s->shared_experts;
        unsigned shared = MOD(MOE) | MOD(SHARED_EXPERTS);
        /* MoE with tensor parallelism needs sequence parallelism
         * (plan_check), so the routed tensors' tp flag never matters */
        add_tensor(m, "router scores", at_moe, (double)s->routed_experts,
                   MODEL_DT_FP32, MODEL_TAG_KEPT, MOD(MOE));
        add_tensor(m, "shared experts gate/up output (SwiGLU input)", at_moe_tp,
                   2 * fe * sh, MODEL_DT_SWIGLU_IN, MODEL_TAG_KEPT, shared);
        add_tensor(m, "shared experts SwiGLU output", at_moe_tp, fe * sh,
                   MODEL_DT_LIN_IN, MODEL_TAG_SWIGLU_OUT, shared);
        add_tensor(m, "routed expert input (dispatched token)", at_routed, h,
                   MODEL_DT_LIN_IN, MODEL_TAG_KEPT, MOD(MOE));
        add_tensor(m, "routed gate/up output (SwiGLU input)", at_routed, 2 * fe,
                   MODEL_DT_SWIGLU_IN, MODEL_TAG_KEPT, MOD(MOE));
        add_tensor(m, "routed SwiGLU output, gate-weighted", at_routed, fe,
                   MODEL_DT_LIN_IN, MODEL_TAG_SWIGLU_OUT,
                   MOD(MOE) | MOD(MOE_ACT));
    }
}

void model_inventory_build(struct model *m, const struct model_head_widths *w)
{
    const struct model_spec *s = &m->spec;
    double h = (double)s->hidden;

    m->tensors = 0;
    add_tensor(m, "layer input (attention norm input)", at_any, h, MODEL_DT_ACT,
               MODEL_TAG_INPUT, 0);
    add_tensor(m, "attention norm output (projection input)", at_mixer, h,
               MODEL_DT_LIN_IN, MODEL_TAG_NORM, MOD(LAYERNORM));
    if (has(m, P_SOFTMAX))
        attention_tensors(m, w);
    if (has(m, P_SPARSE))
        indexer_tensors(m);
    if (has(m, P_LINEAR))
        linear_tensors(m);
    if (has(m, P_SSM))
        ssm_tensors(m);
    add_tensor(m, "FFN norm input (residual)", at_both, h, MODEL_DT_ACT,
               MODEL_TAG_KEPT, 0);
    add_tensor(m, "FFN norm output (FFN, router and dispatch input)", at_mlp, h,
               MODEL_DT_LIN_IN, MODEL_TAG_NORM, MOD(LAYERNORM));
    ffn_tensors(m);
    if (s->dropout)
        add_tensor(m, "residual dropout mask (FFN)", at_mlp, h, MODEL_DT_MASK,
                   MODEL_TAG_KEPT, 0);
}

double model_tensor_bytes(const struct model *m,
                          const struct model_tensor *t,
                          int precision)
{
    const struct model_spec *s = &m->spec;
    bool fp8 = precision == MODEL_FP8;
    double b = s->activation_bytes;
    switch (t->dtype) {
    case MODEL_DT_FP32:
        b = 4;
        break;
    case MODEL_DT_MASK:
        b = 1;
        break;
    case MODEL_DT_LIN_IN:
        if (fp8 && s->fp8_cache_linear_inputs)
            b = s->fp8_cache_bytes;
        break;
    case MODEL_DT_SWIGLU_IN:
        if (fp8 && s->fp8_cache_swiglu_inputs)
            b = s->fp8_cache_bytes;
        break;
    case MODEL_DT_ATTN_OUT:
        if (fp8)
            b = s->fp8_attn_out_bytes;
        break;
    default:
        break;
    }
    return t->elems * b * (t->routed ? (double)s->top_k : 1);
}

bool model_tensor_kept(const struct model *m,
                       const struct model_tensor *t,
                       int precision,
                       int recompute)
{
    const struct model_spec *s = &m->spec;
    if (t->tag == MODEL_TAG_INPUT)
        return true;
    if (recompute == MODEL_RECOMPUTE_FULL)
        return false;
    if (t->tag == MODEL_TAG_SWIGLU_OUT && precision == MODEL_FP8 &&
        s->fp8_recompute_swiglu_output)
        return false;
    if (recompute == MODEL_RECOMPUTE_SELECTIVE && (t->modules & m->selective))
        return false;
    return true;
}

/* Saved bytes, their share outside TP regions and the backward working
 * set of one layer kind (see struct model_layer). */
void model_layer_bytes(const struct model *m, int k, struct model_layer *L)
{
    const struct model_spec *s = &m->spec;
    double grad = 0, grad_rep = 0;
    size_t i;
    int p, r;

    for (i = 0; i < m->tensors; i++) {
        const struct model_tensor *t = &m->tensor[i];
        double g;
        if (!(t->kinds & (1u << k)))
            continue;
        /* gradients are produced in the activation dtype */
        g = t->elems * s->activation_bytes * (t->routed ? (double)s->top_k : 1);
        if (g > grad) {
            grad = g;
            grad_rep = t->tp_split ? 0 : g;
        }
        for (p = 0; p < MODEL_PRECISIONS; p++)
            for (r = 0; r < MODEL_RECOMPUTES; r++) {
                double b;
                if (!model_tensor_kept(m, t, p, r))
                    continue;
                b = model_tensor_bytes(m, t, p);
                L->act_bytes[p][r] += b;
                if (!t->tp_split)
                    L->act_rep[p][r] += b;
            }
    }
    /* A layer's backward rematerialises what the policy dropped (all of
     * it but the input under `full`) and holds, at least while the
     * gradient of its largest tensor is produced, both of them. */
    for (p = 0; p < MODEL_PRECISIONS; p++)
        for (r = 0; r < MODEL_RECOMPUTES; r++) {
            L->work_bytes[p][r] = L->act_bytes[p][MODEL_RECOMPUTE_NONE] -
                                  L->act_bytes[p][r] + grad;
            L->work_rep[p][r] = L->act_rep[p][MODEL_RECOMPUTE_NONE] -
                                L->act_rep[p][r] + grad_rep;
        }
}
