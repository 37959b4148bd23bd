/*
 * model: parameters, FLOPs and saved activations of a transformer, from
 * its model data file alone.
 *
 * Sources of the formulas:
 * - FLOPs: 2 per multiply-add; backward = 2 x forward, so a training step
 *   costs 3 x forward (Kaplan et al. 2020; Narayanan et al. 2021). Causal
 *   attention scores cover half of the s x s matrix (QK^T and PV over s/2
 *   keys on average), as DeepSeek's 250 GFLOPs/token (ISCA'25 Table 2) and
 *   Megatron-Bridge's flop_utils.py count them.
 * - Saved activations: the per-tensor inventory of Korthikanti et al. 2022
 *   ("Reducing Activation Recomputation in Large Transformer Models", §4),
 *   extended to GQA, MLA, SwiGLU and MoE; FP8 caching per DeepSeek-V3
 *   (arXiv 2412.19437 §3.3.3).
 * - MLA shapes: DeepSeek-V2/V3 (q_a, q_b, kv_a, kv_b, o projections).
 */
#include "model.h"

#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hf_config.h"

#define OFF(member) offsetof(struct model_spec, member)
#define BIG         1e9

/* clang-format off */
static const struct datafile_field fields[] = {
    {"model", "name", DATAFILE_STRING, OFF(name), 128, 0, 0, false, true, NULL, "", NULL, "model name shown in reports"},
    {"model", "layers", DATAFILE_INT, OFF(layers), 0, 1, 512, false, true, NULL, "", NULL, "transformer layers (main model; at most 512: published models have up to about 130, and partitioning a pipeline costs layers squared)"},
    {"model", "hidden", DATAFILE_INT, OFF(hidden), 0, 1, 1e6, false, true, NULL, "", NULL, "model (hidden) dimension d"},
    {"model", "vocab", DATAFILE_INT, OFF(vocab), 0, 1, 1e8, false, true, NULL, "", NULL, "vocabulary size V"},
    {"model", "tied_embeddings", DATAFILE_BOOL, OFF(tied_embeddings), 0, 0, 0, false, false, "false", "", NULL, "output head shares the embedding matrix"},
    {"model", "max_positions", DATAFILE_INT, OFF(max_positions), 0, 0, 1e8, false, false, "0", "", NULL, "learned position embeddings (0: none, e.g. RoPE)"},
    {"model", "norm", DATAFILE_ENUM, OFF(norm), 0, 0, 0, false, false, "rmsnorm", "", "rmsnorm|layernorm", "normalisation (layernorm adds a bias)"},
    {"model", "linear_bias", DATAFILE_BOOL, OFF(linear_bias), 0, 0, 0, false, false, "false", "", NULL, "Linear layers carry biases"},
    {"model", "dropout", DATAFILE_BOOL, OFF(dropout), 0, 0, 0, false, false, "false", "", NULL, "dropout in training (saves masks)"},
    {"model", "flash_attention", DATAFILE_BOOL, OFF(flash_attention), 0, 0, 0, false, false, "true", "", NULL, "fused attention: no s x s tensors saved"},
    {"attention", "type", DATAFILE_ENUM, OFF(attention), 0, 0, 0, false, true, NULL, "", "mha|gqa|mla", "attention kind"},
    {"attention", "heads", DATAFILE_INT, OFF(heads), 0, 1, 1e5, false, true, NULL, "", NULL, "attention (query) heads"},
    {"attention", "kv_heads", DATAFILE_INT, OFF(kv_heads), 0, 0, 1e5, false, false, "0", "", NULL, "GQA key/value heads (0: as heads)"},
    {"attention", "head_dim", DATAFILE_INT, OFF(head_dim), 0, 0, 1e5, false, false, "0", "", NULL, "MHA/GQA head dimension (0: hidden/heads)"},
    {"attention", "q_lora_rank", DATAFILE_INT, OFF(q_lora_rank), 0, 0, 1e6, false, false, "0", "", NULL, "MLA query latent rank d_c' (0: no query compression)"},
    {"attention", "kv_lora_rank", DATAFILE_INT, OFF(kv_lora_rank), 0, 0, 1e6, false, false, "0", "", NULL, "MLA key/value latent rank d_c"},
    {"attention", "qk_nope_head_dim", DATAFILE_INT, OFF(qk_nope_head_dim), 0, 0, 1e5, false, false, "0", "", NULL, "MLA per-head query/key dimension without RoPE"},
    {"attention", "qk_rope_head_dim", DATAFILE_INT, OFF(qk_rope_head_dim), 0, 0, 1e5, false, false, "0", "", NULL, "MLA decoupled RoPE dimension"},
    {"attention", "v_head_dim", DATAFILE_INT, OFF(v_head_dim), 0, 0, 1e5, false, false, "0", "", NULL, "MLA per-head value dimension"},
    {"attention", "qk_norm", DATAFILE_BOOL, OFF(qk_norm), 0, 0, 0, false, false, "false", "", NULL, "RMSNorm over each query and key head (Qwen3; MHA/GQA)"},
    {"attention", "qkv_bias", DATAFILE_BOOL, OFF(qkv_bias), 0, 0, 0, false, false, "false", "", NULL, "query/key/value projections carry biases (Qwen2; MHA/GQA)"},
    {"ffn", "activation", DATAFILE_ENUM, OFF(activation), 0, 0, 0, false, false, "swiglu", "", "swiglu|gelu", "FFN kind (SwiGLU: 3 matrices, GeLU: 2)"},
    {"ffn", "width", DATAFILE_INT, OFF(ffn_width), 0, 0, 1e7, false, true, NULL, "", NULL, "dense FFN intermediate size"},
    {"moe", "routed_experts", DATAFILE_INT, OFF(routed_experts), 0, 0, 1e5, false, false, "0", "", NULL, "routed experts per MoE layer (0: dense model)"},
    {"moe", "shared_experts", DATAFILE_INT, OFF(shared_experts), 0, 0, 1e3, false, false, "0", "", NULL, "shared (always active) experts per MoE layer"},
    {"moe", "top_k", DATAFILE_INT, OFF(top_k), 0, 0, 1e3, false, false, "0", "", NULL, "routed experts per token"},
    {"moe", "expert_width", DATAFILE_INT, OFF(expert_width), 0, 0, 1e7, false, false, "0", "", NULL, "intermediate size of one expert"},
    {"moe", "first_dense_layers", DATAFILE_INT, OFF(first_dense_layers), 0, 0, 512, false, false, "0", "", NULL, "leading layers with a dense FFN (at most 512, as layers)"},
    {"moe", "node_limit", DATAFILE_INT, OFF(node_limit), 0, 0, 1e5, false, false, "0", "", NULL, "a token's routed experts sit on at most this many nodes (0: no limit)"},
    {"mtp", "depth", DATAFILE_INT, OFF(mtp_depth), 0, 0, 16, false, false, "0", "", NULL, "multi-token-prediction modules"},
    {"mtp", "enabled", DATAFILE_BOOL, OFF(mtp_enabled), 0, 0, 0, false, false, "false", "", NULL, "count MTP modules in memory and FLOPs"},
    {"training", "seq_len", DATAFILE_INT, OFF(seq_len), 0, 1, 1e8, false, true, NULL, "tokens", NULL, "sequence length s"},
    {"training", "tokens", DATAFILE_DOUBLE, OFF(tokens), 0, 1, 1e18, false, true, NULL, "tokens", NULL, "training token budget (at least 1)"},
    {"training", "global_batch", DATAFILE_INT, OFF(global_batch), 0, 1, 1e9, false, true, NULL, "sequences", NULL, "global batch"},
    {"training", "weight_bytes", DATAFILE_DOUBLE, OFF(weight_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per weight kept for compute; at least 0.125 (one bit)"},
    {"training", "grad_bytes", DATAFILE_DOUBLE, OFF(grad_bytes), 0, 0.125, 8, false, false, "4", "bytes", NULL, "bytes per accumulated gradient; at least 0.125 (one bit)"},
    {"training", "grad_comm_bytes", DATAFILE_DOUBLE, OFF(grad_comm_bytes), 0, 0.125, 8, false, false, "4", "bytes", NULL, "bytes per gradient element in data-parallel reductions; at least 0.125 (one bit)"},
    {"training", "master_bytes", DATAFILE_DOUBLE, OFF(master_bytes), 0, 0, 8, false, false, "4", "bytes", NULL, "bytes per master weight (0: none)"},
    {"training", "moment_bytes", DATAFILE_DOUBLE, OFF(moment_bytes), 0, 0, 8, false, false, "4", "bytes", NULL, "bytes per Adam moment (two moments)"},
    {"training", "activation_bytes", DATAFILE_DOUBLE, OFF(activation_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per saved activation element (BF16); at least 0.125 (one bit)"},
    {"training", "logits_bytes", DATAFILE_DOUBLE, OFF(logits_bytes), 0, 0.125, 8, false, false, "4", "bytes", NULL, "bytes per logit kept for the loss; at least 0.125 (one bit)"},
    {"training", "selective", DATAFILE_LIST, OFF(selective), 0, 0, 0, false, false, "attn_core", "", MODEL_TAG_CHOICES, "tensor classes `recompute=selective` drops"},
    {"fp8", "attention_proj", DATAFILE_BOOL, OFF(fp8_attention_proj), 0, 0, 0, false, false, "true", "", NULL, "attention projection GEMMs in FP8"},
    {"fp8", "ffn", DATAFILE_BOOL, OFF(fp8_ffn), 0, 0, 0, false, false, "true", "", NULL, "dense FFN GEMMs in FP8"},
    {"fp8", "experts", DATAFILE_BOOL, OFF(fp8_experts), 0, 0, 0, false, false, "true", "", NULL, "expert GEMMs in FP8"},
    {"fp8", "head", DATAFILE_BOOL, OFF(fp8_head), 0, 0, 0, false, false, "false", "", NULL, "output head GEMM in FP8"},
    {"fp8", "router", DATAFILE_BOOL, OFF(fp8_router), 0, 0, 0, false, false, "false", "", NULL, "router GEMM in FP8"},
    {"fp8", "cache_linear_inputs", DATAFILE_BOOL, OFF(fp8_cache_linear_inputs), 0, 0, 0, false, false, "true", "", NULL, "Linear inputs saved for backward in FP8"},
    {"fp8", "cache_swiglu_inputs", DATAFILE_BOOL, OFF(fp8_cache_swiglu_inputs), 0, 0, 0, false, false, "true", "", NULL, "SwiGLU inputs saved in FP8"},
    {"fp8", "recompute_swiglu_output", DATAFILE_BOOL, OFF(fp8_recompute_swiglu_output), 0, 0, 0, false, false, "false", "", NULL, "SwiGLU outputs recomputed, not saved"},
    {"fp8", "cache_bytes", DATAFILE_DOUBLE, OFF(fp8_cache_bytes), 0, 0.125, 8, false, false, "1", "bytes", NULL, "bytes per FP8-cached element, scales included; at least 0.125 (one bit)"},
    {"fp8", "attn_out_bytes", DATAFILE_DOUBLE, OFF(fp8_attn_out_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per element of the saved attention output; at least 0.125 (one bit)"},
    {"fp8", "dispatch_bytes", DATAFILE_DOUBLE, OFF(dispatch_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per element of MoE dispatch (forward); at least 0.125 (one bit)"},
    {"fp8", "combine_bytes", DATAFILE_DOUBLE, OFF(combine_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per element of MoE combine (forward); at least 0.125 (one bit)"},
    {"fp8", "dispatch_grad_bytes", DATAFILE_DOUBLE, OFF(dispatch_grad_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per element of the combine's backward (gradient dispatch); at least 0.125 (one bit)"},
    {"fp8", "combine_grad_bytes", DATAFILE_DOUBLE, OFF(combine_grad_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per element of the dispatch's backward (gradient combine); at least 0.125 (one bit)"},
};
/* clang-format on */

const struct datafile_schema model_schema = {"model", fields,
                                             sizeof fields / sizeof fields[0]};

/* ---- Validation across fields ---- */

static long line_of(const struct model *m, const char *section, const char *key)
{
    long i = datafile_field_index(&model_schema, section, key);
    return i < 0 ? 0 : m->meta.line[i];
}

/* Reports "path:line: section.key: problem" for a cross-field check. */
static void bad(struct model *m,
                struct diag *d,
                const char *section,
                const char *key,
                const char *problem)
{
    long line = line_of(m, section, key);
    if (line > 0)
        diag_add(d, STATUS_RANGE, "%s:%ld: %s.%s: %s", m->meta.path, line,
                 section, key, problem);
    else
        diag_add(d, STATUS_RANGE, "%s: %s.%s: %s", m->meta.path, section, key,
                 problem);
}

static void check_spec(struct model *m, struct diag *d)
{
    struct model_spec *s = &m->spec;
    char why[200];

    if (s->attention == MODEL_GQA) {
        if (s->kv_heads == 0)
            bad(m, d, "attention", "kv_heads", "required for type gqa");
        else if (s->heads % s->kv_heads != 0) {
            snprintf(why, sizeof why,
                     "must divide attention.heads (%ld), got %ld", s->heads,
                     s->kv_heads);
            bad(m, d, "attention", "kv_heads", why);
        }
    }
    if (s->attention == MODEL_MLA) {
        if (s->kv_lora_rank == 0)
            bad(m, d, "attention", "kv_lora_rank", "required for type mla");
        if (s->qk_nope_head_dim == 0)
            bad(m, d, "attention", "qk_nope_head_dim", "required for type mla");
        if (s->v_head_dim == 0)
            bad(m, d, "attention", "v_head_dim", "required for type mla");
    } else if (s->head_dim == 0 && s->hidden % s->heads != 0) {
        snprintf(why, sizeof why,
                 "hidden (%ld) is not a multiple of heads (%ld): give "
                 "attention.head_dim",
                 s->hidden, s->heads);
        bad(m, d, "attention", "head_dim", why);
    }
    if (s->routed_experts > 0) {
        if (s->top_k < 1 || s->top_k > s->routed_experts) {
            snprintf(why, sizeof why,
                     "expected 1..routed_experts (%ld), got %ld",
                     s->routed_experts, s->top_k);
            bad(m, d, "moe", "top_k", why);
        }
        if (s->expert_width < 1)
            bad(m, d, "moe", "expert_width",
                "required (> 0) when routed_experts > 0");
        if (s->first_dense_layers > s->layers) {
            snprintf(why, sizeof why, "expected at most layers (%ld), got %ld",
                     s->layers, s->first_dense_layers);
            bad(m, d, "moe", "first_dense_layers", why);
        }
        if (s->first_dense_layers > 0 && s->ffn_width < 1)
            bad(m, d, "ffn", "width",
                "required (> 0) for the leading dense layers");
    } else {
        if (s->ffn_width < 1)
            bad(m, d, "ffn", "width", "required (> 0) for a dense model");
        if (s->shared_experts || s->top_k || s->node_limit)
            bad(m, d, "moe", "routed_experts",
                "is 0 (dense model) but other [moe] keys are set");
    }
    if (s->mtp_enabled && s->mtp_depth == 0)
        bad(m, d, "mtp", "enabled", "true but mtp.depth is 0");
}

/* ---- Per-layer numbers ---- */

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

struct attn_numbers {
    double params;   /* projections, biases, latent norms */
    double proj_fwd; /* projection GEMM FLOPs/token */
    double up_fwd;   /* MLA up-projection GEMM FLOPs/token */
    double core_fwd; /* QK^T and PV FLOPs/token, causal */
    double qk_dim;   /* per-head query/key dimension */
    double v_dim;    /* per-head value dimension */
    double kv_elems; /* K and V elements per token (all heads) */
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

/* ---- Activation inventory ---- */

static void add_tensor(struct model *m,
                       const char *name,
                       bool dense,
                       bool moe,
                       double elems,
                       bool routed,
                       int dtype,
                       int tag)
{
    struct model_tensor *t;
    if (elems <= 0 || m->tensors == MODEL_TENSORS_MAX)
        return;
    t = &m->tensor[m->tensors++];
    t->name = name;
    t->in_dense = dense;
    t->in_moe = moe;
    t->elems = elems;
    t->routed = routed;
    t->dtype = dtype;
    t->tag = tag;
}

/*
 * What one layer saves for its backward pass, per token. For a GPT layer
 * (MHA, GeLU, dropout, no flash attention) the entries add up to
 * Korthikanti et al.'s 34h + 5as bytes per token.
 */
static void build_inventory(struct model *m)
{
    const struct model_spec *s = &m->spec;
    double h = (double)s->hidden, n = (double)s->heads;
    double S = (double)s->seq_len;
    struct attn_numbers a = attention(s);
    bool any = true, moe = s->routed_experts > 0;
    bool dense = !moe || s->first_dense_layers > 0;
    double f = (double)s->ffn_width, fe = (double)s->expert_width;
    bool swiglu = s->activation == MODEL_SWIGLU;

    m->tensors = 0;
    add_tensor(m, "layer input (attention norm input)", any, any, h, false,
               MODEL_DT_ACT, MODEL_TAG_INPUT);
    add_tensor(m, "attention norm output (projection input)", any, any, h,
               false, MODEL_DT_LIN_IN, MODEL_TAG_NORM);
    if (s->attention == MODEL_MLA) {
        double ql = (double)s->q_lora_rank, kl = (double)s->kv_lora_rank;
        double rope = (double)s->qk_rope_head_dim;
        add_tensor(m, "query latent (q norm input)", any, any, ql, false,
                   MODEL_DT_ACT, MODEL_TAG_KEPT);
        add_tensor(m, "query latent norm output (q up-projection input)", any,
                   any, ql, false, MODEL_DT_LIN_IN, MODEL_TAG_NORM);
        add_tensor(m, "key/value latent (kv norm input)", any, any, kl, false,
                   MODEL_DT_ACT, MODEL_TAG_KEPT);
        add_tensor(m, "decoupled RoPE key", any, any, rope, false, MODEL_DT_ACT,
                   MODEL_TAG_KEPT);
        add_tensor(m, "key/value latent norm output (kv up-projection input)",
                   any, any, kl, false, MODEL_DT_LIN_IN, MODEL_TAG_NORM);
        add_tensor(m, "Q (up-projected, with RoPE)", any, any, n * a.qk_dim,
                   false, MODEL_DT_ACT, MODEL_TAG_MLA_UP);
        add_tensor(m, "K (up-projected, with RoPE)", any, any, n * a.qk_dim,
                   false, MODEL_DT_ACT, MODEL_TAG_MLA_UP);
        add_tensor(m, "V (up-projected)", any, any, n * a.v_dim, false,
                   MODEL_DT_ACT, MODEL_TAG_MLA_UP);
    } else {
        double kvh = kv_heads(s);
        add_tensor(m, "Q", any, any, n * a.qk_dim, false, MODEL_DT_ACT,
                   MODEL_TAG_KEPT);
        add_tensor(m, "K", any, any, kvh * a.qk_dim, false, MODEL_DT_ACT,
                   MODEL_TAG_KEPT);
        add_tensor(m, "V", any, any, kvh * a.v_dim, false, MODEL_DT_ACT,
                   MODEL_TAG_KEPT);
        /* QK-norm's backward needs its inputs, the projections' outputs,
         * besides the normalised (and rotated) Q and K attention saves. */
        if (s->qk_norm) {
            add_tensor(m, "Q before QK-norm (q_norm input)", any, any,
                       n * a.qk_dim, false, MODEL_DT_ACT, MODEL_TAG_KEPT);
            add_tensor(m, "K before QK-norm (k_norm input)", any, any,
                       kvh * a.qk_dim, false, MODEL_DT_ACT, MODEL_TAG_KEPT);
        }
    }
    if (s->flash_attention) {
        add_tensor(m, "softmax statistics (flash attention)", any, any, n,
                   false, MODEL_DT_FP32, MODEL_TAG_KEPT);
    } else {
        add_tensor(m, "softmax output (s x s)", any, any, n * S, false,
                   MODEL_DT_ACT, MODEL_TAG_ATTN_CORE);
        if (s->dropout) {
            add_tensor(m, "attention dropout mask (s x s)", any, any, n * S,
                       false, MODEL_DT_MASK, MODEL_TAG_ATTN_CORE);
            add_tensor(m, "attention dropout output (s x s)", any, any, n * S,
                       false, MODEL_DT_ACT, MODEL_TAG_ATTN_CORE);
        }
    }
    add_tensor(m, "attention output (output projection input)", any, any,
               n * a.v_dim, false, MODEL_DT_ATTN_OUT, MODEL_TAG_KEPT);
    if (s->dropout)
        add_tensor(m, "residual dropout mask (attention)", any, any, h, false,
                   MODEL_DT_MASK, MODEL_TAG_KEPT);
    add_tensor(m, "FFN norm input (residual)", any, any, h, false, MODEL_DT_ACT,
               MODEL_TAG_KEPT);
    add_tensor(m, "FFN norm output (FFN, router and dispatch input)", any, any,
               h, false, MODEL_DT_LIN_IN, MODEL_TAG_NORM);
    if (dense) {
        if (swiglu) {
            add_tensor(m, "dense gate/up output (SwiGLU input)", true, false,
                       2 * f, false, MODEL_DT_SWIGLU_IN, MODEL_TAG_KEPT);
            add_tensor(m, "dense SwiGLU output (down-projection input)", true,
                       false, f, false, MODEL_DT_LIN_IN, MODEL_TAG_SWIGLU_OUT);
        } else {
            add_tensor(m, "dense FC1 output (GeLU input)", true, false, f,
                       false, MODEL_DT_ACT, MODEL_TAG_KEPT);
            add_tensor(m, "dense GeLU output (FC2 input)", true, false, f,
                       false, MODEL_DT_LIN_IN, MODEL_TAG_KEPT);
        }
    }
    if (moe) {
        double sh = (double)s->shared_experts;
        add_tensor(m, "router scores", false, true, (double)s->routed_experts,
                   false, MODEL_DT_FP32, MODEL_TAG_KEPT);
        add_tensor(m, "shared experts gate/up output (SwiGLU input)", false,
                   true, 2 * fe * sh, false, MODEL_DT_SWIGLU_IN,
                   MODEL_TAG_KEPT);
        add_tensor(m, "shared experts SwiGLU output", false, true, fe * sh,
                   false, MODEL_DT_LIN_IN, MODEL_TAG_SWIGLU_OUT);
        add_tensor(m, "routed expert input (dispatched token)", false, true, h,
                   true, MODEL_DT_LIN_IN, MODEL_TAG_KEPT);
        add_tensor(m, "routed gate/up output (SwiGLU input)", false, true,
                   2 * fe, true, MODEL_DT_SWIGLU_IN, MODEL_TAG_KEPT);
        add_tensor(m, "routed SwiGLU output, gate-weighted", false, true, fe,
                   true, MODEL_DT_LIN_IN, MODEL_TAG_SWIGLU_OUT);
    }
    if (s->dropout)
        add_tensor(m, "residual dropout mask (FFN)", any, any, h, false,
                   MODEL_DT_MASK, MODEL_TAG_KEPT);
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

static bool selective_drops(const struct model_spec *s, int tag)
{
    size_t i;
    for (i = 0; i < s->selective.n; i++)
        if ((int)s->selective.v[i] == tag)
            return tag != MODEL_TAG_INPUT; /* the input is always kept */
    return false;
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
    if (recompute == MODEL_RECOMPUTE_SELECTIVE && selective_drops(s, t->tag))
        return false;
    return true;
}

/* Fills one layer kind's numbers; mtp adds the MTP module's extras. */
static void
build_layer(struct model *m, struct model_layer *L, bool moe, bool mtp)
{
    const struct model_spec *s = &m->spec;
    struct attn_numbers a = attention(s);
    double h = (double)s->hidden;
    double fp8_attn = s->fp8_attention_proj ? 1 : 0;
    double ffn_p = 0, ffn_f = 0, exp_p = 0, exp_f = 0, shared_p = 0;
    double router_p = 0, router_f = 0, extra_p = 0, extra_f = 0;
    double norms = 2 * norm_params(s, h);
    size_t i;
    int p, r;

    memset(L, 0, sizeof *L);
    L->moe = moe;
    if (moe) {
        double fe = (double)s->expert_width;
        double E = (double)s->routed_experts, k = (double)s->top_k;
        double S = (double)s->shared_experts;
        exp_p = E * ffn_params(s, fe);
        shared_p = S * ffn_params(s, fe);
        exp_f = (k + S) * ffn_fwd(s, fe);
        router_p = E * h;
        router_f = 2 * E * h;
    } else {
        ffn_p = ffn_params(s, (double)s->ffn_width);
        ffn_f = ffn_fwd(s, (double)s->ffn_width);
    }
    if (mtp) {
        /* DeepSeek-V3 MTP module: two input norms, the projection of
         * [h; emb] (2d x d), a transformer block and a final norm; the
         * embedding and output head are shared (§2.2). */
        extra_p = 2 * h * h + 3 * norm_params(s, h);
        extra_f = 2 * 2 * h * h;
    }
    L->params_dense = a.params + norms + ffn_p + shared_p + router_p + extra_p;
    L->params_expert = exp_p;
    L->params_fp8 = a.params * fp8_attn + (s->fp8_ffn ? ffn_p : 0) +
                    (s->fp8_experts ? shared_p : 0) +
                    (s->fp8_router ? router_p : 0) +
                    (s->fp8_attention_proj ? 2 * h * h * (mtp ? 1 : 0) : 0);
    L->params_fp8_expert = s->fp8_experts ? exp_p : 0;
    L->params_active = a.params + norms + ffn_p + extra_p + router_p +
                       (moe ? (double)(s->top_k + s->shared_experts) *
                                  ffn_params(s, (double)s->expert_width)
                            : 0);
    L->fwd_fp8 = a.proj_fwd * fp8_attn + (s->fp8_ffn ? ffn_f : 0) +
                 (s->fp8_experts ? exp_f : 0) + (s->fp8_router ? router_f : 0) +
                 extra_f * fp8_attn;
    L->fwd_linear = a.proj_fwd + ffn_f + exp_f + router_f + extra_f;
    L->fwd_other = a.core_fwd + L->fwd_linear - L->fwd_fp8;
    L->kv_elems = a.kv_elems;

    /* Recomputation redoes forward work in the backward pass: `full` the
     * whole layer; `selective` the producers of the tensors it drops
     * (norms and SwiGLU are elementwise: no GEMM FLOPs). */
    L->recompute_fp8[MODEL_RECOMPUTE_FULL] = L->fwd_fp8;
    L->recompute_other[MODEL_RECOMPUTE_FULL] = L->fwd_other;
    if (s->attention == MODEL_MLA && selective_drops(s, MODEL_TAG_MLA_UP)) {
        L->recompute_fp8[MODEL_RECOMPUTE_SELECTIVE] += a.up_fwd * fp8_attn;
        L->recompute_other[MODEL_RECOMPUTE_SELECTIVE] +=
            a.up_fwd * (1 - fp8_attn);
    }
    if (!s->flash_attention && selective_drops(s, MODEL_TAG_ATTN_CORE))
        L->recompute_other[MODEL_RECOMPUTE_SELECTIVE] += a.core_fwd;

    for (p = 0; p < MODEL_PRECISIONS; p++)
        for (r = 0; r < MODEL_RECOMPUTES; r++)
            for (i = 0; i < m->tensors; i++) {
                const struct model_tensor *t = &m->tensor[i];
                if (!(moe ? t->in_moe : t->in_dense))
                    continue;
                if (model_tensor_kept(m, t, p, r))
                    L->act_bytes[p][r] += model_tensor_bytes(m, t, p);
            }
}

static void derive(struct model *m)
{
    const struct model_spec *s = &m->spec;
    double h = (double)s->hidden, V = (double)s->vocab;
    bool moe = s->routed_experts > 0;
    long dense_layers = moe ? s->first_dense_layers : s->layers;
    long moe_layers = s->layers - dense_layers;
    struct model_layer *mtp;
    double fwd;

    build_inventory(m);
    build_layer(m, &m->layer[MODEL_LAYER_DENSE], false, false);
    build_layer(m, &m->layer[MODEL_LAYER_MOE], true, false);
    build_layer(m, &m->layer[MODEL_LAYER_MTP], moe, true);
    mtp = &m->layer[MODEL_LAYER_MTP];

    m->params_embedding = V * h + (double)s->max_positions * h;
    m->params_head = s->tied_embeddings ? 0 : V * h;
    m->params_final_norm = norm_params(s, h);
    m->head_fwd = 2 * h * V;
    m->units = s->layers + (s->mtp_enabled ? s->mtp_depth : 0);

    m->params_total =
        m->params_embedding + m->params_head + m->params_final_norm +
        (double)dense_layers * m->layer[MODEL_LAYER_DENSE].params_dense;
    m->params_active = m->params_total;
    if (moe_layers > 0) {
        const struct model_layer *L = &m->layer[MODEL_LAYER_MOE];
        m->params_total +=
            (double)moe_layers * (L->params_dense + L->params_expert);
        m->params_active += (double)moe_layers * L->params_active;
    }
    m->params_mtp =
        (double)s->mtp_depth * (mtp->params_dense + mtp->params_expert);
    m->params_mtp_active = (double)s->mtp_depth * mtp->params_active;

    /* Model FLOPs per token: 3 x forward (forward + backward). */
    fwd = (double)dense_layers * (m->layer[MODEL_LAYER_DENSE].fwd_fp8 +
                                  m->layer[MODEL_LAYER_DENSE].fwd_other) +
          (double)moe_layers * (m->layer[MODEL_LAYER_MOE].fwd_fp8 +
                                m->layer[MODEL_LAYER_MOE].fwd_other) +
          m->head_fwd;
    m->flops_per_token_main = 3 * fwd;
    /* Each MTP module runs its block and the shared output head again. */
    m->flops_per_token_mtp =
        s->mtp_enabled ? 3 * (double)s->mtp_depth *
                             (mtp->fwd_fp8 + mtp->fwd_other + m->head_fwd)
                       : 0;
    m->flops_per_token = m->flops_per_token_main + m->flops_per_token_mtp;
}

/* ---- Models from a Hugging Face config.json and a training recipe ---- */

/* QK-norm and q/k/v biases are modelled for MHA/GQA projections only. */
static void check_attention_extras(struct model *m, struct diag *d)
{
    if (m->spec.attention != MODEL_MLA)
        return;
    if (m->spec.qk_norm)
        bad(m, d, "attention", "qk_norm",
            "not modelled for type mla (MLA normalises its latents)");
    if (m->spec.qkv_bias)
        bad(m, d, "attention", "qkv_bias", "not modelled for type mla");
}

/* What a config.json does not say: how the model is trained. */
bool model_field_is_training(size_t i)
{
    static const char *const keys[][2] = {{"training", NULL},
                                          {"fp8", NULL},
                                          {"model", "dropout"},
                                          {"model", "flash_attention"},
                                          {"mtp", "enabled"}};
    const struct datafile_field *f;
    size_t k;
    if (i >= model_schema.n)
        return false;
    f = &model_schema.fields[i];
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strcmp(f->section, keys[k][0]) == 0 &&
            (!keys[k][1] || strcmp(f->key, keys[k][1]) == 0))
            return true;
    return false;
}

/* A training recipe's schema: model_schema's training fields, copied with
 * their offsets, so a recipe loads straight into a struct model_spec. */
struct recipe_schema {
    struct datafile_field field[DATAFILE_FIELDS_MAX];
    size_t model_index[DATAFILE_FIELDS_MAX]; /* into model_schema */
    struct datafile_schema schema;
};

static void recipe_schema_init(struct recipe_schema *r)
{
    size_t i, n = 0;
    for (i = 0; i < model_schema.n && n < DATAFILE_FIELDS_MAX; i++)
        if (model_field_is_training(i)) {
            r->field[n] = model_schema.fields[i];
            r->model_index[n++] = i;
        }
    r->schema.kind = "training recipe";
    r->schema.fields = r->field;
    r->schema.n = n;
}

/* --set of an architecture key cannot reach a config.json's values. */
static void reject_architecture_sets(const char *path,
                                     struct datafile_set *sets,
                                     size_t nsets,
                                     struct diag *d)
{
    size_t i;
    for (i = 0; i < nsets; i++) {
        long fi =
            datafile_field_index(&model_schema, sets[i].section, sets[i].key);
        if (fi < 0 || model_field_is_training((size_t)fi))
            continue; /* the recipe's, or unknown: reported by the loader */
        sets[i].used = true;
        diag_add(d, STATUS_USAGE,
                 "--set %s: the architecture comes from %s (a Hugging Face "
                 "config.json): edit the file; --set reaches the training "
                 "recipe (training.*, fp8.*, model.dropout, "
                 "model.flash_attention, mtp.enabled)",
                 sets[i].arg, path);
    }
}

/* Sources of the recipe's fields: the recipe file and line they came from
 * (the Assumptions sheet shows them), --set, or the schema's default. */
static void merge_recipe_meta(struct model *m,
                              const struct recipe_schema *rs,
                              const struct datafile_meta *t,
                              const char *training_path)
{
    size_t j;
    for (j = 0; j < rs->schema.n; j++) {
        size_t i = rs->model_index[j], len;
        const char *src = datafile_meta_source(t, j);
        char text[2 * DATAFILE_TEXT_MAX + 600];
        char *copy;
        if (t->given[j] && t->line[j] == 0)
            snprintf(text, sizeof text, "%s", src); /* --set */
        else if (t->given[j])
            snprintf(text, sizeof text, "%s:%ld%s%s", training_path, t->line[j],
                     *src ? ": " : "", src);
        else
            snprintf(text, sizeof text, "%s: default%s%s%s", training_path,
                     *src ? " (section source: " : "", src, *src ? ")" : "");
        len = strlen(text) + 1;
        copy = malloc(len);
        if (copy)
            memcpy(copy, text, len);
        free(m->meta.source[i]);
        m->meta.source[i] = copy;
        m->meta.given[i] = t->given[j];
        m->meta.line[i] = 0; /* meta.path is the config.json's */
    }
}

static enum status load_json(const char *path,
                             const char *training_path,
                             struct model *m,
                             struct datafile_set *sets,
                             size_t nsets,
                             struct diag *d)
{
    struct recipe_schema rs;
    struct datafile_meta tmeta;

    memset(m, 0, sizeof *m);
    memset(&tmeta, 0, sizeof tmeta);
    if (!training_path)
        return diag_add(d, STATUS_USAGE,
                        "%s: a Hugging Face config.json needs a training "
                        "recipe for what it does not say (-t FILE, e.g. "
                        "data/training/default.ini)",
                        path);
    reject_architecture_sets(path, sets, nsets, d);
    recipe_schema_init(&rs);
    datafile_load(training_path, &rs.schema, &m->spec, &tmeta, sets, nsets, d);
    /* Read the config.json even when the recipe failed: report both. */
    hf_config_read(path, &m->spec, &m->meta, d);
    if (d->status != STATUS_OK) {
        datafile_meta_release(&tmeta);
        model_release(m);
        diag_finish(d);
        return d->status;
    }
    merge_recipe_meta(m, &rs, &tmeta, training_path);
    datafile_meta_release(&tmeta);
    /* A recipe's mtp.enabled trains the model's MTP modules, if it has
     * any: one recipe serves models with and without them. */
    if (m->spec.mtp_depth == 0)
        m->spec.mtp_enabled = false;
    check_spec(m, d);
    check_attention_extras(m, d);
    diag_finish(d);
    if (d->status != STATUS_OK) {
        model_release(m);
        return d->status;
    }
    derive(m);
    return STATUS_OK;
}

enum status model_load_with_training(const char *path,
                                     const char *training_path,
                                     struct model *m,
                                     struct datafile_set *sets,
                                     size_t nsets,
                                     struct diag *d)
{
    if (hf_config_is_json(path))
        return load_json(path, training_path, m, sets, nsets, d);
    return model_load(path, m, sets, nsets, d);
}

enum status model_check_training(const char *path,
                                 struct datafile_set *sets,
                                 size_t nsets,
                                 struct diag *d)
{
    struct recipe_schema rs;
    struct datafile_meta meta;
    struct model_spec spec;
    enum status st;
    memset(&spec, 0, sizeof spec);
    recipe_schema_init(&rs);
    st = datafile_load(path, &rs.schema, &spec, &meta, sets, nsets, d);
    if (st == STATUS_OK)
        datafile_meta_release(&meta);
    return st;
}

enum status model_load(const char *path,
                       struct model *m,
                       struct datafile_set *sets,
                       size_t nsets,
                       struct diag *d)
{
    enum status st;
    if (hf_config_is_json(path))
        return load_json(path, NULL, m, sets, nsets, d);
    memset(m, 0, sizeof *m);
    st = datafile_load(path, &model_schema, &m->spec, &m->meta, sets, nsets, d);
    if (st != STATUS_OK)
        return st;
    check_spec(m, d);
    check_attention_extras(m, d);
    diag_finish(d);
    if (d->status != STATUS_OK) {
        model_release(m);
        return d->status;
    }
    derive(m);
    return STATUS_OK;
}

void model_release(struct model *m)
{
    if (m)
        datafile_meta_release(&m->meta);
}

enum model_layer_kind model_unit_kind(const struct model *m, long u)
{
    const struct model_spec *s = &m->spec;
    if (u >= s->layers)
        return MODEL_LAYER_MTP;
    if (s->routed_experts > 0 && u >= s->first_dense_layers)
        return MODEL_LAYER_MOE;
    return MODEL_LAYER_DENSE;
}

/* ---- Pipeline chunks ---- */

/* Forward time of the output head, by the same weights as a unit. */
static double head_cost(const struct model *m, double w8, double w16)
{
    return m->head_fwd * (m->spec.fp8_head ? w8 : w16);
}

static double unit_cost(const struct model *m, long u, double w8, double w16)
{
    const struct model_layer *L = &m->layer[model_unit_kind(m, u)];
    double c = L->fwd_fp8 * w8 + L->fwd_other * w16;
    if (u >= m->spec.layers)
        c += head_cost(m, w8, w16); /* an MTP module runs the head again */
    return c;
}

static void add_unit(const struct model *m, struct model_chunk *c, long u)
{
    enum model_layer_kind k = model_unit_kind(m, u);
    const struct model_layer *L = &m->layer[k];
    int p, r;
    c->count++;
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
    for (r = 0; r < MODEL_RECOMPUTES; r++) {
        c->recompute_fp8[r] += L->recompute_fp8[r];
        c->recompute_other[r] += L->recompute_other[r];
    }
    for (p = 0; p < MODEL_PRECISIONS; p++)
        for (r = 0; r < MODEL_RECOMPUTES; r++)
            c->act_bytes[p][r] += L->act_bytes[p][r];
    c->kv_elems += L->kv_elems;
    if (k == MODEL_LAYER_MTP) { /* the shared head, run once more */
        double head_fp8 = m->spec.fp8_head ? m->head_fwd : 0;
        c->fwd_fp8 += head_fp8;
        c->fwd_other += m->head_fwd - head_fp8;
        c->fwd_linear += m->head_fwd;
        c->recompute_fp8[MODEL_RECOMPUTE_FULL] += head_fp8;
        c->recompute_other[MODEL_RECOMPUTE_FULL] += m->head_fwd - head_fp8;
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
}

/*
 * Linear partition (the "painter's partition" dynamic programme): chunk
 * boundaries that minimise the largest chunk's forward time, the head's
 * counted in the last chunk. O(chunks x units x log units), run once per
 * chunk count and precision, outside any plan loop.
 */
enum status model_partition(const struct model *m,
                            long chunks,
                            double fp8_weight,
                            double bf16_weight,
                            struct model_partition *p,
                            struct diag *d)
{
    double head = head_cost(m, fp8_weight, bf16_weight);
    long U = m->units, k, i, j;
    double *prefix = NULL, *best = NULL;
    long *cut = NULL;
    enum status st = STATUS_OK;

    memset(p, 0, sizeof *p);
    if (chunks < 1 || chunks > U)
        return diag_set(d, STATUS_RANGE,
                        "cannot split %ld layers into %ld pipeline chunks", U,
                        chunks);
    prefix = calloc((size_t)U + 1, sizeof *prefix);
    best = calloc((size_t)(chunks + 1) * (size_t)(U + 1), sizeof *best);
    cut = calloc((size_t)(chunks + 1) * (size_t)(U + 1), sizeof *cut);
    p->chunk = calloc((size_t)chunks, sizeof *p->chunk);
    if (!prefix || !best || !cut || !p->chunk) {
        st = diag_set(d, STATUS_NOMEM, "out of memory partitioning layers");
        goto fail;
    }
    for (i = 0; i < U; i++)
        prefix[i + 1] = prefix[i] + unit_cost(m, i, fp8_weight, bf16_weight);
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
            b = BEST(k - 1, at) > prefix[i] - prefix[at] + tail
                    ? BEST(k - 1, at)
                    : prefix[i] - prefix[at] + tail;
            if (at > k - 1) {
                j = at - 1;
                v = BEST(k - 1, j) > prefix[i] - prefix[j] + tail
                        ? BEST(k - 1, j)
                        : prefix[i] - prefix[j] + tail;
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
    i = U;
    for (k = chunks; k >= 1; k--) {
        long start = k == 1 ? 0 : CUT(k, i);
        struct model_chunk *c = &p->chunk[k - 1];
        c->first = start;
        for (j = start; j < i; j++)
            add_unit(m, c, j);
        i = start;
    }
#undef BEST
#undef CUT
    p->chunks = chunks;
    p->chunk[0].has_embedding = true;
    p->chunk[0].params_dense += m->params_embedding;
    p->chunk[0].params_embedding = m->params_embedding;
    if (m->params_embedding > p->chunk[0].max_layer_dense) /* ZeRO-3 gathers */
        p->chunk[0].max_layer_dense = m->params_embedding;
    add_head(m, &p->chunk[chunks - 1]);
fail:
    free(prefix);
    free(best);
    free(cut);
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
    for (r = 0; r < MODEL_RECOMPUTES; r++) {
        sum->recompute_fp8[r] += c->recompute_fp8[r];
        sum->recompute_other[r] += c->recompute_other[r];
        for (p = 0; p < MODEL_PRECISIONS; p++)
            sum->act_bytes[p][r] += c->act_bytes[p][r];
    }
    sum->kv_elems += c->kv_elems;
}
