/*
 * model_schema: the model file's schema (every section and key of
 * model.h's struct model_spec with its type, range, unit and default) and
 * which of its fields are the training recipe's. Declared in model.h; in
 * a file of its own so that the Hugging Face readers, which fill the same
 * fields, depend on the schema and not on the loader that calls them.
 */
#include "model.h"

#include <stddef.h>
#include <string.h>

#include "calibration.h"

#define OFF(member) offsetof(struct model_spec, member)

/* The words of the model file's enum keys, each by its constant. */
static const char *norm_word(int i)
{
    static const char *const w[] = {
        [MODEL_RMSNORM] = "rmsnorm", [MODEL_LAYERNORM] = "layernorm"};
    return DATAFILE_WORD_AT(w, i);
}

static const char *attention_word(int i)
{
    static const char *const w[] = {
        [MODEL_MHA] = "mha", [MODEL_GQA] = "gqa", [MODEL_MLA] = "mla"};
    return DATAFILE_WORD_AT(w, i);
}

static const char *activation_word(int i)
{
    static const char *const w[] = {
        [MODEL_SWIGLU] = "swiglu", [MODEL_GELU] = "gelu"};
    return DATAFILE_WORD_AT(w, i);
}

static const char *routing_word(int i)
{
    static const char *const w[] = {[MODEL_ROUTING_UNIFORM] = "uniform",
                                    [MODEL_ROUTING_AFFINITY] = "affinity"};
    return DATAFILE_WORD_AT(w, i);
}

static const char *scaling_word(int i)
{
    static const char *const w[] = {[CALIBRATION_FP8_TENSOR] = "tensor",
                                    [CALIBRATION_FP8_FINE] = "fine",
                                    [CALIBRATION_FP8_ROW] = "row",
                                    [CALIBRATION_FP8_BLOCK] = "block"};
    return DATAFILE_WORD_AT(w, i);
}

static const char *amax_word(int i)
{
    static const char *const w[] = {[MODEL_FP8_AMAX_DELAYED] = "delayed",
                                    [MODEL_FP8_AMAX_CURRENT] = "current"};
    return DATAFILE_WORD_AT(w, i);
}

/* clang-format off */
static const struct datafile_field fields[] = {
    {"model", "name", DATAFILE_STRING, OFF(name), 128, 0, 0, false, true, NULL, "", NULL, "model name shown in reports"},
    {"model", "layers", DATAFILE_INT, OFF(layers), 0, 1, 512, false, true, NULL, "", NULL, "transformer layers (main model; at most 512: published models have up to about 130, and partitioning a pipeline costs layers squared)"},
    {"model", "hidden", DATAFILE_INT, OFF(hidden), 0, 1, 1e6, false, true, NULL, "", NULL, "model (hidden) dimension d"},
    {"model", "vocab", DATAFILE_INT, OFF(vocab), 0, 1, 1e8, false, true, NULL, "", NULL, "vocabulary size V"},
    {"model", "tied_embeddings", DATAFILE_BOOL, OFF(tied_embeddings), 0, 0, 0, false, false, "false", "", NULL, "output head shares the embedding matrix"},
    {"model", "max_positions", DATAFILE_INT, OFF(max_positions), 0, 0, 1e8, false, false, "0", "", NULL, "learned position embeddings (0: none, e.g. RoPE)"},
    {"model", "norm", DATAFILE_ENUM, OFF(norm), 0, 0, 0, false, false, "rmsnorm", "", norm_word, "normalisation (layernorm adds a bias)"},
    {"model", "linear_bias", DATAFILE_BOOL, OFF(linear_bias), 0, 0, 0, false, false, "false", "", NULL, "Linear layers carry biases"},
    {"model", "dropout", DATAFILE_BOOL, OFF(dropout), 0, 0, 0, false, false, "false", "", NULL, "dropout in training (saves masks)"},
    {"model", "flash_attention", DATAFILE_BOOL, OFF(flash_attention), 0, 0, 0, false, false, "true", "", NULL, "fused attention: no s x s tensors saved"},
    {"attention", "type", DATAFILE_ENUM, OFF(attention), 0, 0, 0, false, true, NULL, "", attention_word, "attention kind"},
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
    {"ffn", "activation", DATAFILE_ENUM, OFF(activation), 0, 0, 0, false, false, "swiglu", "", activation_word, "FFN kind (SwiGLU: 3 matrices, GeLU: 2)"},
    {"ffn", "width", DATAFILE_INT, OFF(ffn_width), 0, 0, 1e7, false, true, NULL, "", NULL, "dense FFN intermediate size"},
    {"moe", "routed_experts", DATAFILE_INT, OFF(routed_experts), 0, 0, 1e5, false, false, "0", "", NULL, "routed experts per MoE layer (0: dense model)"},
    {"moe", "shared_experts", DATAFILE_INT, OFF(shared_experts), 0, 0, 1e3, false, false, "0", "", NULL, "shared (always active) experts per MoE layer"},
    {"moe", "top_k", DATAFILE_INT, OFF(top_k), 0, 0, 1e3, false, false, "0", "", NULL, "routed experts per token"},
    {"moe", "expert_width", DATAFILE_INT, OFF(expert_width), 0, 0, 1e7, false, false, "0", "", NULL, "intermediate size of one expert"},
    {"moe", "first_dense_layers", DATAFILE_INT, OFF(first_dense_layers), 0, 0, 512, false, false, "0", "", NULL, "leading layers with a dense FFN (at most 512, as layers)"},
    {"moe", "node_limit", DATAFILE_INT, OFF(node_limit), 0, 0, 1e5, false, false, "0", "", NULL, "a token's routed experts sit on at most this many nodes (0: no limit)"},
    {"moe", "node_routing", DATAFILE_ENUM, OFF(node_routing), 0, 0, 0, false, false, "uniform", "", routing_word, "nodes a token reaches under node_limit: uniform (experts drawn evenly from the allowed nodes) or affinity (each allowed node gets one or more)"},
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
    {"training", "selective", DATAFILE_LIST, OFF(selective), 0, 0, 0, false, false, "core_attn", "", model_module_word, "modules `recompute=selective` recomputes (Megatron-LM --recompute-modules names)"},
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
    {"fp8", "scaling", DATAFILE_ENUM, OFF(fp8_scaling), 0, 0, 0, false, false, "tensor", "", scaling_word, "FP8 scale granularity: one per tensor; fine-grained of a kind not said (the calibration's fine_grained_factor); per row (cuBLAS row-wise); per 1x128 activation tile and 128x128 weight block (DeepSeek-V3, DeepGEMM). Each but tensor runs the FP8 GEMMs at the calibration's factor for it"},
    {"fp8", "amax", DATAFILE_ENUM, OFF(fp8_amax), 0, 0, 0, false, false, "delayed", "", amax_word, "where a per-tensor scale (scaling = tensor) takes its amax: the history of earlier steps, found as the cast runs (Transformer Engine DelayedScaling); or the tensor itself, in a pass before the cast (Float8CurrentScaling): every cast tensor is read twice"},
};
/* clang-format on */

static const struct datafile_schema schema = {"model", fields,
                                              sizeof fields / sizeof fields[0]};

const struct datafile_schema *model_schema(void)
{
    return &schema;
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
