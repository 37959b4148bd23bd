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
    static const char *const w[] = {[MODEL_SWIGLU] = "swiglu",
                                    [MODEL_GELU] = "gelu",
                                    [MODEL_RELU2] = "relu2"};
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
    {.section = "model", .key = "name", .type = DATAFILE_STRING, .offset = OFF(name), .size = 128, .required = true, .help = "model name shown in reports"},
    {.section = "model", .key = "layers", .type = DATAFILE_INT, .offset = OFF(layers), .min = 1, .max = 512, .required = true, .help = "transformer layers (main model; at most 512: published models have up to about 130, and partitioning a pipeline costs layers squared)"},
    {.section = "model", .key = "pattern", .type = DATAFILE_STRING, .offset = OFF(pattern), .size = MODEL_PATTERN_MAX, .def = "", .quiet = true, .help = "each layer's token mixer and MLP, two letters a layer, with counts for runs and groups (3AD 58AE; 18(WE AE); the letters: docs/model.md, layer patterns); empty: moe.first_dense_layers dense layers, then MoE layers"},
    {.section = "model", .key = "hidden", .type = DATAFILE_INT, .offset = OFF(hidden), .min = 1, .max = 1e6, .required = true, .help = "model (hidden) dimension d"},
    {.section = "model", .key = "vocab", .type = DATAFILE_INT, .offset = OFF(vocab), .min = 1, .max = 1e8, .required = true, .help = "vocabulary size V"},
    {.section = "model", .key = "tied_embeddings", .type = DATAFILE_BOOL, .offset = OFF(tied_embeddings), .def = "false", .help = "output head shares the embedding matrix"},
    {.section = "model", .key = "max_positions", .type = DATAFILE_INT, .offset = OFF(max_positions), .max = 1e8, .def = "0", .help = "learned position embeddings (0: none, e.g. RoPE)"},
    {.section = "model", .key = "norm", .type = DATAFILE_ENUM, .offset = OFF(norm), .def = "rmsnorm", .word = norm_word, .help = "normalisation (layernorm adds a bias)"},
    {.section = "model", .key = "linear_bias", .type = DATAFILE_BOOL, .offset = OFF(linear_bias), .def = "false", .help = "Linear layers carry biases"},
    {.section = "model", .key = "dropout", .type = DATAFILE_BOOL, .offset = OFF(dropout), .def = "false", .help = "dropout in training (saves masks)"},
    {.section = "model", .key = "flash_attention", .type = DATAFILE_BOOL, .offset = OFF(flash_attention), .def = "true", .help = "fused attention: no s x s tensors saved"},
    {.section = "attention", .key = "type", .type = DATAFILE_ENUM, .offset = OFF(attention), .required = true, .word = attention_word, .help = "attention kind"},
    {.section = "attention", .key = "heads", .type = DATAFILE_INT, .offset = OFF(heads), .min = 1, .max = 1e5, .required = true, .help = "attention (query) heads"},
    {.section = "attention", .key = "kv_heads", .type = DATAFILE_INT, .offset = OFF(kv_heads), .max = 1e5, .def = "0", .help = "GQA key/value heads (0: as heads)"},
    {.section = "attention", .key = "head_dim", .type = DATAFILE_INT, .offset = OFF(head_dim), .max = 1e5, .def = "0", .help = "MHA/GQA head dimension (0: hidden/heads)"},
    {.section = "attention", .key = "q_lora_rank", .type = DATAFILE_INT, .offset = OFF(q_lora_rank), .max = 1e6, .def = "0", .help = "MLA query latent rank d_c' (0: no query compression)"},
    {.section = "attention", .key = "kv_lora_rank", .type = DATAFILE_INT, .offset = OFF(kv_lora_rank), .max = 1e6, .def = "0", .help = "MLA key/value latent rank d_c"},
    {.section = "attention", .key = "qk_nope_head_dim", .type = DATAFILE_INT, .offset = OFF(qk_nope_head_dim), .max = 1e5, .def = "0", .help = "MLA per-head query/key dimension without RoPE"},
    {.section = "attention", .key = "qk_rope_head_dim", .type = DATAFILE_INT, .offset = OFF(qk_rope_head_dim), .max = 1e5, .def = "0", .help = "MLA decoupled RoPE dimension"},
    {.section = "attention", .key = "v_head_dim", .type = DATAFILE_INT, .offset = OFF(v_head_dim), .max = 1e5, .def = "0", .help = "MLA per-head value dimension"},
    {.section = "attention", .key = "qk_norm", .type = DATAFILE_BOOL, .offset = OFF(qk_norm), .def = "false", .help = "RMSNorm over each query and key head (Qwen3; MHA/GQA)"},
    {.section = "attention", .key = "qkv_bias", .type = DATAFILE_BOOL, .offset = OFF(qkv_bias), .def = "false", .help = "query/key/value projections carry biases (Qwen2; MHA/GQA)"},
    {.section = "attention", .key = "window", .type = DATAFILE_INT, .offset = OFF(window), .max = 1e8, .def = "0", .unit = "tokens", .quiet = true, .help = "keys a sliding-window layer's query attends to (pattern letter W)"},
    {.section = "attention", .key = "chunk", .type = DATAFILE_INT, .offset = OFF(chunk), .max = 1e8, .def = "0", .unit = "tokens", .quiet = true, .help = "tokens per chunk of a chunked-attention layer (pattern letter C): a query sees its chunk's keys up to itself"},
    {.section = "attention", .key = "sinks", .type = DATAFILE_BOOL, .offset = OFF(sinks), .def = "false", .quiet = true, .help = "a learned sink logit per head (GPT-OSS)"},
    {.section = "attention", .key = "output_gate", .type = DATAFILE_BOOL, .offset = OFF(output_gate), .def = "false", .quiet = true, .help = "a sigmoid gate on the attention output, projected beside the queries (Qwen3-Next; MHA/GQA)"},
    {.section = "attention", .key = "rope_fraction", .type = DATAFILE_DOUBLE, .offset = OFF(rope_fraction), .max = 1, .def = "1", .quiet = true, .help = "share of a query/key head RoPE rotates (partial RoPE; MHA/GQA)"},
    {.section = "attention", .key = "index_heads", .type = DATAFILE_INT, .offset = OFF(index_heads), .max = 1e4, .def = "0", .quiet = true, .help = "sparse layers (pattern letter S): the lightning indexer's heads"},
    {.section = "attention", .key = "index_head_dim", .type = DATAFILE_INT, .offset = OFF(index_head_dim), .max = 1e5, .def = "0", .quiet = true, .help = "the indexer's head dimension"},
    {.section = "attention", .key = "index_topk", .type = DATAFILE_INT, .offset = OFF(index_topk), .max = 1e8, .def = "0", .unit = "tokens", .quiet = true, .help = "keys the indexer picks for each query"},
    {.section = "linear", .key = "key_heads", .type = DATAFILE_INT, .offset = OFF(linear_key_heads), .max = 1e5, .def = "0", .quiet = true, .help = "linear-attention (Gated DeltaNet, pattern letter L) query/key heads"},
    {.section = "linear", .key = "value_heads", .type = DATAFILE_INT, .offset = OFF(linear_value_heads), .max = 1e5, .def = "0", .quiet = true, .help = "its value heads (a multiple of key_heads)"},
    {.section = "linear", .key = "key_head_dim", .type = DATAFILE_INT, .offset = OFF(linear_key_dim), .max = 1e5, .def = "0", .quiet = true, .help = "query/key head dimension"},
    {.section = "linear", .key = "value_head_dim", .type = DATAFILE_INT, .offset = OFF(linear_value_dim), .max = 1e5, .def = "0", .quiet = true, .help = "value head dimension"},
    {.section = "linear", .key = "conv_kernel", .type = DATAFILE_INT, .offset = OFF(linear_conv), .min = 1, .max = 64, .def = "4", .quiet = true, .help = "taps of its causal convolution (transformers' linear_conv_kernel_dim default)"},
    {.section = "linear", .key = "chunk", .type = DATAFILE_INT, .offset = OFF(linear_chunk), .min = 1, .max = 4096, .def = "64", .unit = "tokens", .quiet = true, .help = "chunk of the chunked delta rule (the reference implementation's 64)"},
    {.section = "ssm", .key = "heads", .type = DATAFILE_INT, .offset = OFF(ssm_heads), .max = 1e5, .def = "0", .quiet = true, .help = "state-space (Mamba-2, pattern letter M) heads"},
    {.section = "ssm", .key = "head_dim", .type = DATAFILE_INT, .offset = OFF(ssm_head_dim), .max = 1e5, .def = "0", .quiet = true, .help = "its head dimension P (inner width: heads x head_dim)"},
    {.section = "ssm", .key = "state", .type = DATAFILE_INT, .offset = OFF(ssm_state), .max = 1e5, .def = "0", .quiet = true, .help = "state size N per head"},
    {.section = "ssm", .key = "groups", .type = DATAFILE_INT, .offset = OFF(ssm_groups), .max = 1e5, .def = "0", .quiet = true, .help = "groups sharing B and C (divides heads)"},
    {.section = "ssm", .key = "conv_kernel", .type = DATAFILE_INT, .offset = OFF(ssm_conv), .min = 1, .max = 64, .def = "4", .quiet = true, .help = "taps of its causal convolution (Mamba-2's d_conv default)"},
    {.section = "ssm", .key = "chunk", .type = DATAFILE_INT, .offset = OFF(ssm_chunk), .min = 1, .max = 4096, .def = "256", .unit = "tokens", .quiet = true, .help = "chunk of the SSD scan (Mamba-2's chunk_size default)"},
    {.section = "ffn", .key = "activation", .type = DATAFILE_ENUM, .offset = OFF(activation), .def = "swiglu", .word = activation_word, .help = "FFN kind (SwiGLU: 3 matrices, GeLU: 2)"},
    {.section = "ffn", .key = "width", .type = DATAFILE_INT, .offset = OFF(ffn_width), .max = 1e7, .required = true, .help = "dense FFN intermediate size"},
    {.section = "moe", .key = "routed_experts", .type = DATAFILE_INT, .offset = OFF(routed_experts), .max = 1e5, .def = "0", .help = "routed experts per MoE layer (0: dense model)"},
    {.section = "moe", .key = "shared_experts", .type = DATAFILE_INT, .offset = OFF(shared_experts), .max = 1e3, .def = "0", .help = "shared (always active) experts per MoE layer"},
    {.section = "moe", .key = "top_k", .type = DATAFILE_INT, .offset = OFF(top_k), .max = 1e3, .def = "0", .help = "routed experts per token"},
    {.section = "moe", .key = "expert_width", .type = DATAFILE_INT, .offset = OFF(expert_width), .max = 1e7, .def = "0", .help = "intermediate size of one expert"},
    {.section = "moe", .key = "first_dense_layers", .type = DATAFILE_INT, .offset = OFF(first_dense_layers), .max = 512, .def = "0", .help = "leading layers with a dense FFN (at most 512, as layers)"},
    {.section = "moe", .key = "node_limit", .type = DATAFILE_INT, .offset = OFF(node_limit), .max = 1e5, .def = "0", .help = "a token's routed experts sit on at most this many nodes (0: no limit)"},
    {.section = "moe", .key = "node_routing", .type = DATAFILE_ENUM, .offset = OFF(node_routing), .def = "uniform", .word = routing_word, .help = "nodes a token reaches under node_limit: uniform (experts drawn evenly from the allowed nodes) or affinity (each allowed node gets one or more)"},
    {.section = "mtp", .key = "depth", .type = DATAFILE_INT, .offset = OFF(mtp_depth), .max = 16, .def = "0", .help = "multi-token-prediction modules"},
    {.section = "mtp", .key = "count_in_mfu", .type = DATAFILE_BOOL, .offset = OFF(mtp_count_in_mfu), .def = "true", .help = "MFU's FLOPs per token include the MTP modules (a convention: memory, FLOPs run and time always include them)"},
    {.section = "training", .key = "seq_len", .type = DATAFILE_INT, .offset = OFF(seq_len), .min = 1, .max = 1e8, .required = true, .unit = "tokens", .help = "sequence length s"},
    {.section = "training", .key = "tokens", .type = DATAFILE_DOUBLE, .offset = OFF(tokens), .min = 1, .max = 1e18, .required = true, .unit = "tokens", .help = "training token budget (at least 1)"},
    {.section = "training", .key = "global_batch", .type = DATAFILE_INT, .offset = OFF(global_batch), .min = 1, .max = 1e9, .required = true, .unit = "sequences", .help = "global batch"},
    {.section = "training", .key = "weight_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(weight_bytes), .min = 0.125, .max = 8, .def = "2", .unit = "bytes", .help = "bytes per weight kept for compute; at least 0.125 (one bit)"},
    {.section = "training", .key = "grad_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(grad_bytes), .min = 0.125, .max = 8, .def = "4", .unit = "bytes", .help = "bytes per accumulated gradient; at least 0.125 (one bit)"},
    {.section = "training", .key = "grad_comm_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(grad_comm_bytes), .min = 0.125, .max = 8, .def = "4", .unit = "bytes", .help = "bytes per gradient element in data-parallel reductions; at least 0.125 (one bit)"},
    {.section = "training", .key = "master_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(master_bytes), .max = 8, .def = "4", .unit = "bytes", .help = "bytes per master weight (0: none)"},
    {.section = "training", .key = "moment_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(moment_bytes), .max = 8, .def = "4", .unit = "bytes", .help = "bytes per Adam moment (two moments)"},
    {.section = "training", .key = "activation_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(activation_bytes), .min = 0.125, .max = 8, .def = "2", .unit = "bytes", .help = "bytes per saved activation element (BF16); at least 0.125 (one bit)"},
    {.section = "training", .key = "logits_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(logits_bytes), .min = 0.125, .max = 8, .def = "4", .unit = "bytes", .help = "bytes per logit kept for the loss; at least 0.125 (one bit)"},
    {.section = "training", .key = "selective", .type = DATAFILE_LIST, .offset = OFF(selective), .def = "core_attn", .word = model_module_word, .help = "modules `recompute=selective` recomputes (Megatron-LM --recompute-modules names; alternate_mm: torchtitan's op-level policy, every second matmul of a layer and its elementwise ops)"},
    {.section = "fp8", .key = "attention_proj", .type = DATAFILE_BOOL, .offset = OFF(fp8_attention_proj), .def = "true", .help = "attention projection GEMMs in FP8"},
    {.section = "fp8", .key = "ffn", .type = DATAFILE_BOOL, .offset = OFF(fp8_ffn), .def = "true", .help = "dense FFN GEMMs in FP8"},
    {.section = "fp8", .key = "experts", .type = DATAFILE_BOOL, .offset = OFF(fp8_experts), .def = "true", .help = "expert GEMMs in FP8"},
    {.section = "fp8", .key = "head", .type = DATAFILE_BOOL, .offset = OFF(fp8_head), .def = "false", .help = "output head GEMM in FP8"},
    {.section = "fp8", .key = "router", .type = DATAFILE_BOOL, .offset = OFF(fp8_router), .def = "false", .help = "router GEMM in FP8"},
    {.section = "fp8", .key = "cache_linear_inputs", .type = DATAFILE_BOOL, .offset = OFF(fp8_cache_linear_inputs), .def = "true", .help = "Linear inputs saved for backward in FP8"},
    {.section = "fp8", .key = "cache_swiglu_inputs", .type = DATAFILE_BOOL, .offset = OFF(fp8_cache_swiglu_inputs), .def = "true", .help = "SwiGLU inputs saved in FP8"},
    {.section = "fp8", .key = "recompute_swiglu_output", .type = DATAFILE_BOOL, .offset = OFF(fp8_recompute_swiglu_output), .def = "false", .help = "SwiGLU outputs recomputed, not saved"},
    {.section = "fp8", .key = "cache_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(fp8_cache_bytes), .min = 0.125, .max = 8, .def = "1", .unit = "bytes", .help = "bytes per FP8-cached element, scales included; at least 0.125 (one bit)"},
    {.section = "fp8", .key = "attn_out_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(fp8_attn_out_bytes), .min = 0.125, .max = 8, .def = "2", .unit = "bytes", .help = "bytes per element of the saved attention output; at least 0.125 (one bit)"},
    {.section = "fp8", .key = "weight_cache_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(fp8_weight_cache_bytes), .min = 0.125, .max = 8, .def = "2", .unit = "bytes", .help = "bytes per FP8-run weight kept for compute: its FP8 copy and transpose, in place of weight_bytes; at least 0.125 (one bit)"},
    {.section = "fp8", .key = "dispatch_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(dispatch_bytes), .min = 0.125, .max = 8, .def = "2", .unit = "bytes", .help = "bytes per element of MoE dispatch (forward); at least 0.125 (one bit)"},
    {.section = "fp8", .key = "combine_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(combine_bytes), .min = 0.125, .max = 8, .def = "2", .unit = "bytes", .help = "bytes per element of MoE combine (forward); at least 0.125 (one bit)"},
    {.section = "fp8", .key = "dispatch_grad_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(dispatch_grad_bytes), .min = 0.125, .max = 8, .def = "2", .unit = "bytes", .help = "bytes per element of the combine's backward (gradient dispatch); at least 0.125 (one bit)"},
    {.section = "fp8", .key = "combine_grad_bytes", .type = DATAFILE_DOUBLE, .offset = OFF(combine_grad_bytes), .min = 0.125, .max = 8, .def = "2", .unit = "bytes", .help = "bytes per element of the dispatch's backward (gradient combine); at least 0.125 (one bit)"},
    {.section = "fp8", .key = "scaling", .type = DATAFILE_ENUM, .offset = OFF(fp8_scaling), .def = "tensor", .word = scaling_word, .help = "FP8 scale granularity: one per tensor; fine-grained of a kind not said (the calibration's fine_grained_factor); per row (cuBLAS row-wise); per 1x128 activation tile and 128x128 weight block (DeepSeek-V3, DeepGEMM). Each but tensor runs the FP8 GEMMs at the calibration's factor for it"},
    {.section = "fp8", .key = "amax", .type = DATAFILE_ENUM, .offset = OFF(fp8_amax), .def = "delayed", .word = amax_word, .help = "where a per-tensor scale (scaling = tensor) takes its amax: the history of earlier steps, found as the cast runs (Transformer Engine DelayedScaling); or the tensor itself, in a pass before the cast (Float8CurrentScaling): every cast tensor is read twice"},
};
/* clang-format on */

static const struct datafile_schema schema = {.kind = "model",
                                              .fields = fields,
                                              .n = sizeof fields /
                                                   sizeof fields[0]};

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
