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
    {"moe", "node_routing", DATAFILE_ENUM, OFF(node_routing), 0, 0, 0, false, false, "uniform", "", "uniform|affinity", "nodes a token reaches under node_limit: uniform (experts drawn evenly from the allowed nodes) or affinity (each allowed node gets one or more)"},
    {"mtp", "depth", DATAFILE_INT, OFF(mtp_depth), 0, 0, 16, false, false, "0", "", NULL, "multi-token-prediction modules"},
    {"mtp", "count_in_mfu", DATAFILE_BOOL, OFF(mtp_count_in_mfu), 0, 0, 0, false, false, "true", "", NULL, "MFU's FLOPs per token include the MTP modules (a convention: memory, FLOPs run and time always include them)"},
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
    {"training", "selective", DATAFILE_LIST, OFF(selective), 0, 0, 0, false, false, "core_attn", "", MODEL_MODULE_CHOICES, "modules `recompute=selective` recomputes (Megatron-LM --recompute-modules names)"},
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
    {"fp8", "weight_cache_bytes", DATAFILE_DOUBLE, OFF(fp8_weight_cache_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per FP8-run weight kept for compute: its FP8 copy and transpose, in place of weight_bytes; at least 0.125 (one bit)"},
    {"fp8", "dispatch_bytes", DATAFILE_DOUBLE, OFF(dispatch_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per element of MoE dispatch (forward); at least 0.125 (one bit)"},
    {"fp8", "combine_bytes", DATAFILE_DOUBLE, OFF(combine_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per element of MoE combine (forward); at least 0.125 (one bit)"},
    {"fp8", "dispatch_grad_bytes", DATAFILE_DOUBLE, OFF(dispatch_grad_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per element of the combine's backward (gradient dispatch); at least 0.125 (one bit)"},
    {"fp8", "combine_grad_bytes", DATAFILE_DOUBLE, OFF(combine_grad_bytes), 0, 0.125, 8, false, false, "2", "bytes", NULL, "bytes per element of the dispatch's backward (gradient combine); at least 0.125 (one bit)"},
};
/* clang-format on */

static const struct datafile_schema schema = {"model", fields,
                                              sizeof fields / sizeof fields[0]};

const struct datafile_schema *model_schema(void)
{
    return &schema;
}

/* ---- Validation across fields ---- */

static long line_of(const struct model *m, const char *section, const char *key)
{
    long i = datafile_field_index(model_schema(), section, key);
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

#define MOD(x) (1u << (MODEL_MOD_##x))

/* Tensor flags: where it sits in a layer and who drops it. */
struct place {
    bool dense, moe; /* present in dense / MoE layers */
    bool routed;     /* one copy per routed expert */
    bool tp_split;   /* inside a tensor-parallel region */
};

static const struct place at_any = {true, true, false, false};
static const struct place at_any_tp = {true, true, false, true};
static const struct place at_dense_tp = {true, false, false, true};
static const struct place at_moe = {false, true, false, false};
static const struct place at_moe_tp = {false, true, false, true};
static const struct place at_routed = {false, true, true, false};

static void add_tensor(struct model *m,
                       const char *name,
                       struct place at,
                       double elems,
                       int dtype,
                       int tag,
                       unsigned modules)
{
    struct model_tensor *t;
    if (elems <= 0 || m->tensors == MODEL_TENSORS_MAX)
        return;
    t = &m->tensor[m->tensors++];
    t->name = name;
    t->in_dense = at.dense;
    t->in_moe = at.moe;
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
static void build_inventory(struct model *m)
{
    const struct model_spec *s = &m->spec;
    double h = (double)s->hidden, n = (double)s->heads;
    double S = (double)s->seq_len;
    struct attn_numbers a = attention(s);
    bool moe = s->routed_experts > 0;
    bool dense = !moe || s->first_dense_layers > 0;
    double f = (double)s->ffn_width, fe = (double)s->expert_width;
    bool swiglu = s->activation == MODEL_SWIGLU;

    m->tensors = 0;
    add_tensor(m, "layer input (attention norm input)", at_any, h, MODEL_DT_ACT,
               MODEL_TAG_INPUT, 0);
    add_tensor(m, "attention norm output (projection input)", at_any, h,
               MODEL_DT_LIN_IN, MODEL_TAG_NORM, MOD(LAYERNORM));
    if (s->attention == MODEL_MLA) {
        double ql = (double)s->q_lora_rank, kl = (double)s->kv_lora_rank;
        double rope = (double)s->qk_rope_head_dim;
        /* the down-projections are not split over tp: their latents are
         * replicated without sequence parallelism */
        add_tensor(m, "query latent (q norm input)", at_any, ql, MODEL_DT_ACT,
                   MODEL_TAG_KEPT, 0);
        add_tensor(m, "query latent norm output (q up-projection input)",
                   at_any, ql, MODEL_DT_LIN_IN, MODEL_TAG_NORM,
                   MOD(MLA_UP_PROJ) | MOD(LAYERNORM));
        add_tensor(m, "key/value latent (kv norm input)", at_any, kl,
                   MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
        add_tensor(m, "decoupled RoPE key", at_any, rope, MODEL_DT_ACT,
                   MODEL_TAG_KEPT, 0);
        add_tensor(m, "key/value latent norm output (kv up-projection input)",
                   at_any, kl, MODEL_DT_LIN_IN, MODEL_TAG_NORM,
                   MOD(MLA_UP_PROJ) | MOD(LAYERNORM));
        add_tensor(m, "Q (up-projected, with RoPE)", at_any_tp, n * a.qk_dim,
                   MODEL_DT_ACT, MODEL_TAG_MLA_UP, MOD(MLA_UP_PROJ));
        add_tensor(m, "K (up-projected, with RoPE)", at_any_tp, n * a.qk_dim,
                   MODEL_DT_ACT, MODEL_TAG_MLA_UP, MOD(MLA_UP_PROJ));
        add_tensor(m, "V (up-projected)", at_any_tp, n * a.v_dim, MODEL_DT_ACT,
                   MODEL_TAG_MLA_UP, MOD(MLA_UP_PROJ));
    } else {
        double kvh = kv_heads(s);
        add_tensor(m, "Q", at_any_tp, n * a.qk_dim, MODEL_DT_ACT,
                   MODEL_TAG_KEPT, 0);
        add_tensor(m, "K", at_any_tp, kvh * a.qk_dim, MODEL_DT_ACT,
                   MODEL_TAG_KEPT, 0);
        add_tensor(m, "V", at_any_tp, kvh * a.v_dim, MODEL_DT_ACT,
                   MODEL_TAG_KEPT, 0);
        /* QK-norm's backward needs its inputs, the projections' outputs,
         * besides the normalised (and rotated) Q and K attention saves. */
        if (s->qk_norm) {
            add_tensor(m, "Q before QK-norm (q_norm input)", at_any_tp,
                       n * a.qk_dim, MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
            add_tensor(m, "K before QK-norm (k_norm input)", at_any_tp,
                       kvh * a.qk_dim, MODEL_DT_ACT, MODEL_TAG_KEPT, 0);
        }
    }
    if (s->flash_attention) {
        add_tensor(m, "softmax statistics (flash attention)", at_any_tp, n,
                   MODEL_DT_FP32, MODEL_TAG_KEPT, MOD(CORE_ATTN));
    } else {
        add_tensor(m, "softmax output (s x s)", at_any_tp, n * S, MODEL_DT_ACT,
                   MODEL_TAG_ATTN_CORE, MOD(CORE_ATTN));
        if (s->dropout) {
            add_tensor(m, "attention dropout mask (s x s)", at_any_tp, n * S,
                       MODEL_DT_MASK, MODEL_TAG_ATTN_CORE, MOD(CORE_ATTN));
            add_tensor(m, "attention dropout output (s x s)", at_any_tp, n * S,
                       MODEL_DT_ACT, MODEL_TAG_ATTN_CORE, MOD(CORE_ATTN));
        }
    }
    add_tensor(m, "attention output (output projection input)", at_any_tp,
               n * a.v_dim, MODEL_DT_ATTN_OUT, MODEL_TAG_KEPT, 0);
    if (s->dropout)
        add_tensor(m, "residual dropout mask (attention)", at_any, h,
                   MODEL_DT_MASK, MODEL_TAG_KEPT, 0);
    add_tensor(m, "FFN norm input (residual)", at_any, h, MODEL_DT_ACT,
               MODEL_TAG_KEPT, 0);
    add_tensor(m, "FFN norm output (FFN, router and dispatch input)", at_any, h,
               MODEL_DT_LIN_IN, MODEL_TAG_NORM, MOD(LAYERNORM));
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
    if (s->dropout)
        add_tensor(m, "residual dropout mask (FFN)", at_any, h, MODEL_DT_MASK,
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

static bool recomputes(const struct model *m, int module)
{
    return (m->selective & (1u << module)) != 0;
}

/* Saved bytes, their share outside TP regions and the backward working
 * set of one layer kind (see struct model_layer). */
static void layer_bytes(const struct model *m, struct model_layer *L)
{
    const struct model_spec *s = &m->spec;
    double grad = 0, grad_rep = 0;
    size_t i;
    int p, r;

    for (i = 0; i < m->tensors; i++) {
        const struct model_tensor *t = &m->tensor[i];
        double g;
        if (!(L->moe ? t->in_moe : t->in_dense))
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

/* Fills one layer kind's numbers; mtp adds the MTP module's extras. */
static void
build_layer(struct model *m, struct model_layer *L, bool moe, bool mtp)
{
    const struct model_spec *s = &m->spec;
    struct attn_numbers a = attention(s);
    double h = (double)s->hidden;
    double fp8_attn = s->fp8_attention_proj ? 1 : 0;
    double ffn_p = 0, ffn_f = 0, exp_p = 0, exp_f = 0, shared_p = 0;
    double shared_f = 0, router_p = 0, router_f = 0, extra_p = 0;
    double extra_f = 0;
    double norms = 2 * norm_params(s, h);
    double *sel8 = &L->recompute_fp8[MODEL_RECOMPUTE_SELECTIVE];
    double *sel16 = &L->recompute_other[MODEL_RECOMPUTE_SELECTIVE];
    double shared_tp = 0;

    memset(L, 0, sizeof *L);
    L->moe = moe;
    if (moe) {
        double fe = (double)s->expert_width;
        double E = (double)s->routed_experts, k = (double)s->top_k;
        double S = (double)s->shared_experts;
        exp_p = E * ffn_params(s, fe);
        shared_p = S * ffn_params(s, fe);
        exp_f = (k + S) * ffn_fwd(s, fe);
        shared_f = S * ffn_fwd(s, fe);
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
     * whole layer; `selective` the modules listed (norms and activation
     * functions are elementwise: no GEMM FLOPs). */
    L->recompute_fp8[MODEL_RECOMPUTE_FULL] = L->fwd_fp8;
    L->recompute_other[MODEL_RECOMPUTE_FULL] = L->fwd_other;
    if (recomputes(m, MODEL_MOD_CORE_ATTN))
        *sel16 += a.core_fwd;
    if (s->attention == MODEL_MLA && recomputes(m, MODEL_MOD_MLA_UP_PROJ)) {
        *sel8 += a.up_fwd * fp8_attn;
        *sel16 += a.up_fwd * (1 - fp8_attn);
    }
    if (!moe && recomputes(m, MODEL_MOD_MLP))
        *(s->fp8_ffn ? sel8 : sel16) += ffn_f;
    if (moe && recomputes(m, MODEL_MOD_MOE)) {
        *(s->fp8_experts ? sel8 : sel16) += exp_f;
        *(s->fp8_router ? sel8 : sel16) += router_f;
    } else if (moe && recomputes(m, MODEL_MOD_SHARED_EXPERTS)) {
        *(s->fp8_experts ? sel8 : sel16) += shared_f;
    }

    /* Tensor parallel with sequence parallelism (Korthikanti et al.
     * §4.2.2): an all-gather before and a reduce-scatter after each
     * TP-split block, per pass. Routed experts are split over ep only
     * (expert tensor parallel 1), so a MoE layer has the attention's pair
     * and, when it has shared experts (TP-split as Megatron-LM's
     * SharedExpertMLP), theirs; a dense layer the attention's and the
     * FFN's. Recomputing a module redoes the pairs inside it. */
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
    layer_bytes(m, L);
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
    size_t i;

    m->selective = 0;
    for (i = 0; i < s->selective.n; i++)
        m->selective |= 1u << (unsigned)s->selective.v[i];
    build_inventory(m);
    build_layer(m, &m->layer[MODEL_LAYER_DENSE], false, false);
    build_layer(m, &m->layer[MODEL_LAYER_MOE], true, false);
    build_layer(m, &m->layer[MODEL_LAYER_MTP], moe, true);
    mtp = &m->layer[MODEL_LAYER_MTP];

    m->params_embedding = V * h + (double)s->max_positions * h;
    m->params_head = s->tied_embeddings ? 0 : V * h;
    m->params_final_norm = norm_params(s, h);
    m->head_fwd = 2 * h * V;
    /* MTP modules are trained with the model: they always run (memory,
     * FLOPs, time); only what MFU counts is a convention. */
    m->units = s->layers + s->mtp_depth;

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
    m->flops_per_token_mtp = 3 * (double)s->mtp_depth *
                             (mtp->fwd_fp8 + mtp->fwd_other + m->head_fwd);
    m->flops_per_token_run = m->flops_per_token_main + m->flops_per_token_mtp;
    m->flops_per_token = m->flops_per_token_main +
                         (s->mtp_count_in_mfu ? m->flops_per_token_mtp : 0);
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
                                          {"mtp", "count_in_mfu"}};
    const struct datafile_field *f;
    size_t k;
    if (i >= model_schema()->n)
        return false;
    f = &model_schema()->fields[i];
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (strcmp(f->section, keys[k][0]) == 0 &&
            (!keys[k][1] || strcmp(f->key, keys[k][1]) == 0))
            return true;
    return false;
}

/* A training recipe's schema: model_schema()'s training fields, copied with
 * their offsets, so a recipe loads straight into a struct model_spec. */
struct recipe_schema {
    struct datafile_field field[DATAFILE_FIELDS_MAX];
    size_t model_index[DATAFILE_FIELDS_MAX]; /* into model_schema() */
    struct datafile_schema schema;
};

static void recipe_schema_init(struct recipe_schema *r)
{
    size_t i, n = 0;
    for (i = 0; i < model_schema()->n && n < DATAFILE_FIELDS_MAX; i++)
        if (model_field_is_training(i)) {
            r->field[n] = model_schema()->fields[i];
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
            datafile_field_index(model_schema(), sets[i].section, sets[i].key);
        if (fi < 0 || model_field_is_training((size_t)fi))
            continue; /* the recipe's, or unknown: reported by the loader */
        sets[i].used = true;
        diag_add(d, STATUS_USAGE,
                 "--set %s: the architecture comes from %s (a Hugging Face "
                 "config.json): edit the file; --set reaches the training "
                 "recipe (training.*, fp8.*, model.dropout, "
                 "model.flash_attention, mtp.count_in_mfu)",
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
    st =
        datafile_load(path, model_schema(), &m->spec, &m->meta, sets, nsets, d);
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
    for (r = 0; r < MODEL_RECOMPUTES; r++) {
        c->recompute_fp8[r] += L->recompute_fp8[r];
        c->recompute_other[r] += L->recompute_other[r];
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
    if (k == MODEL_LAYER_MTP) { /* its embedding lookup and the shared
                                 * head, run once more */
        double head_fp8 = m->spec.fp8_head ? m->head_fwd : 0;
        c->mtp_units++;
        c->fwd_fp8 += head_fp8;
        c->fwd_other += m->head_fwd - head_fp8;
        c->fwd_linear += m->head_fwd;
        c->recompute_fp8[MODEL_RECOMPUTE_FULL] += head_fp8;
        c->recompute_other[MODEL_RECOMPUTE_FULL] += m->head_fwd - head_fp8;
        c->tp_collectives += 2; /* vocab-parallel embedding and head */
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

static enum status split_pairs(const double *prefix,
                               long U,
                               long chunks,
                               double head,
                               long *start,
                               struct diag *d)
{
    struct pairs g;
    size_t W = (size_t)(U + 1);
    long P = chunks / 2, r, a = 0, b = U, i, m;
    double lo = (prefix[U] + head) / (double)P, hi, gap;
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
    a = -1;
    for (i = U; i >= 0; i--)
        for (m = i + 2; m <= U; m++)
            if (REACH(&g, P - 1, i, m) && span_cost(&g, i, m) <= hi) {
                a = i;
                b = m;
            }
    if (a < 0)
        goto done;
    gap = HUGE_VAL;
    start[P] = a + 1;
    for (m = a + 1; m < b; m++) {
        double g2 = fabs(span_cost(&g, a, m) - span_cost(&g, m, b));
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
                double held = (double)(chunks - (r - 1)) * span_cost(&g, i, a) +
                              (double)r * span_cost(&g, b, m);
                if (REACH(&g, r - 1, i, m) &&
                    span_cost(&g, i, m) + extra <= span_cost(&g, a, b) + hi &&
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
done:
    free(g.reach);
    free(g.run);
    return STATUS_OK;
}
#undef CELL
#undef REACH

enum status model_partition(const struct model *m,
                            long chunks,
                            double fp8_weight,
                            double bf16_weight,
                            enum model_balance balance,
                            struct model_partition *p,
                            struct diag *d)
{
    double head = head_cost(m, fp8_weight, bf16_weight);
    long U = m->units, k, j;
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
    for (r = 0; r < MODEL_RECOMPUTES; r++) {
        sum->recompute_fp8[r] += c->recompute_fp8[r];
        sum->recompute_other[r] += c->recompute_other[r];
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
}
