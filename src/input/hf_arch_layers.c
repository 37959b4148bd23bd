/*
 * hf_arch_layers: readers of architectures whose layers differ (see the
 * header). Each reads the keys that say what each layer is into per-layer
 * lists of mixers and MLPs and writes them as model.pattern
 * (hf_reader_pattern); the widths of each kind of layer go to their
 * sections ([attention] window, chunk, index_*; [linear]; [ssm]).
 */
#include "hf_arch_layers.h"

#include <stdio.h>
#include <string.h>

#include "hf_arch.h"
#include "model_pattern.h"

#define LAYERS_MAX MODEL_UNITS_MAX

/* ---- Shared ---- */

static void show_problem(struct hf_reader *r,
                         const char *key,
                         const cJSON *it,
                         const char *want)
{
    char got[96];
    hf_reader_show(it, got, sizeof got);
    diag_add(r->d, STATUS_RANGE, "%s: key '%s': expected %s, got %s", r->path,
             key, want, got);
}

/* A boolean key that must have the one value modelled; absent: def. */
static void must_be(struct hf_reader *r, const char *key, bool def, bool want)
{
    bool v;
    if (hf_reader_get_bool(r, key, def, &v) && v != want)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key '%s': %s is not modelled for %s (only %s)", r->path,
                 key, v ? "true" : "false", r->arch_name,
                 want ? "true" : "false");
}

/* A string key that must be `want` (absent: fine). */
static void must_say(struct hf_reader *r, const char *key, const char *want)
{
    const cJSON *it = hf_reader_take(r, key);
    char what[96];
    if (hf_reader_absent(it) ||
        (cJSON_IsString(it) && strcmp(it->valuestring, want) == 0))
        return;
    snprintf(what, sizeof what, "\"%s\" (the only one modelled)", want);
    show_problem(r, key, it, what);
}

/* Keys that change neither parameters nor FLOPs, read past for this
 * architecture (why: what they are). */
static void read_past(struct hf_reader *r, const char *const *keys, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++)
        hf_reader_take(r, keys[i]);
}

/* A list of n integers in [lo, hi] at key; false (problem added) when
 * present but not that. *found: whether present. */
static bool int_list(struct hf_reader *r,
                     const char *key,
                     long lo,
                     long hi,
                     long *out,
                     size_t max,
                     size_t *n,
                     bool *found)
{
    const cJSON *list = hf_reader_take(r, key), *it;
    char want[96];
    *n = 0;
    *found = !hf_reader_absent(list);
    if (!*found)
        return true;
    snprintf(want, sizeof want, "a list of integers in %ld..%ld", lo, hi);
    if (!cJSON_IsArray(list)) {
        show_problem(r, key, list, want);
        return false;
    }
    cJSON_ArrayForEach(it, list)
    {
        if (!cJSON_IsNumber(it) ||
            it->valuedouble != (double)(long)it->valuedouble ||
            it->valuedouble < (double)lo || it->valuedouble > (double)hi ||
            *n == max) {
            show_problem(r, key, it, want);
            return false;
        }
        out[(*n)++] = (long)it->valuedouble;
    }
    return true;
}

/* The model's layers, or 0 when num_hidden_layers was not readable. */
static size_t layers(const struct hf_reader *r)
{
    long n = r->spec->layers;
    return n > 0 && n <= LAYERS_MAX ? (size_t)n : 0;
}

/* layer_types: each layer's attention ("full_attention" as `full`, the
 * other words as their rows); its length is the model's layers. False
 * (problem added) on another word or length; *found: present. */
static bool layer_types(struct hf_reader *r,
                        unsigned char full,
                        unsigned char *mixer,
                        bool *found)
{
    static const struct {
        const char *word;
        int mixer;
    } words[] = {{"sliding_attention", MODEL_MIX_WINDOW},
                 {"chunked_attention", MODEL_MIX_CHUNK},
                 {"linear_attention", MODEL_MIX_LINEAR}};
    const cJSON *types = hf_reader_take(r, "layer_types"), *it;
    size_t i = 0, n = layers(r), w;
    *found = !hf_reader_absent(types);
    if (!*found)
        return true;
    if (!cJSON_IsArray(types)) {
        show_problem(r, "layer_types", types, "an array");
        return false;
    }
    cJSON_ArrayForEach(it, types)
    {
        int got = -1;
        if (cJSON_IsString(it) &&
            strcmp(it->valuestring, "full_attention") == 0)
            got = full;
        for (w = 0; cJSON_IsString(it) && w < sizeof words / sizeof *words; w++)
            if (strcmp(it->valuestring, words[w].word) == 0)
                got = words[w].mixer;
        if (got < 0 || i >= n) {
            char what[120];
            snprintf(what, sizeof what,
                     i >= n ? "one entry per layer (%zu)"
                            : "full_attention, sliding_attention, "
                              "chunked_attention or linear_attention (layer "
                              "%zu)",
                     i >= n ? n : i);
            show_problem(r, "layer_types", it, what);
            return false;
        }
        mixer[i++] = (unsigned char)got;
    }
    if (i != n) {
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'layer_types': %zu entries, num_hidden_layers is "
                 "%zu",
                 r->path, i, n);
        return false;
    }
    return true;
}

/* No biases anywhere (attention_bias, and mlp_bias where the class has
 * it, false). */
static void no_biases(struct hf_reader *r, const char *why)
{
    must_be(r, "attention_bias", false, false);
    hf_reader_fix_bool(r, "model", "linear_bias", false, why);
    hf_reader_fix_bool(r, "attention", "qkv_bias", false, why);
}

/* No multi-token prediction in the architecture. */
static void no_mtp(struct hf_reader *r)
{
    hf_reader_fix_long(r, "mtp", "depth", 0,
                       "no MTP modules in this architecture");
}

/* ---- GPT-OSS ---- */

/*
 * GptOssForCausalLM: every layer MoE (num_local_experts, top
 * num_experts_per_tok, experts of intermediate_size with gate/up and down
 * biases, a router with a bias), q/k/v/o biases (attention_bias), a
 * learned sink per head, layer_types alternating sliding_attention
 * (sliding_window keys) and full_attention. The SwiGLU clamp
 * (swiglu_limit) and YaRN (initial_context_length) change no FLOPs.
 */
void hf_arch_gpt_oss(struct hf_reader *r)
{
    static const char *const past[] = {"swiglu_limit", "initial_context_length",
                                       "experts_per_token"};
    unsigned char mixer[LAYERS_MAX], mlp[LAYERS_MAX];
    size_t n, i;
    bool found, bias;

    hf_arch_common(r);
    read_past(r, past, sizeof past / sizeof *past);
    if (hf_reader_get_bool(r, "attention_bias", true, &bias) && !bias)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'attention_bias': false is not modelled for "
                 "GptOssForCausalLM (its experts and router carry biases: "
                 "only true)",
                 r->path);
    hf_reader_fix_bool(r, "model", "linear_bias", true,
                       "attention_bias: q/k/v/o biases; GptOssExperts and "
                       "GptOssTopKRouter carry biases (modeling_gpt_oss.py)");
    hf_reader_fix_bool(r, "attention", "qkv_bias", false,
                       "model.linear_bias covers them");
    hf_arch_gqa(r);
    hf_reader_fix_bool(r, "attention", "sinks", true,
                       "GptOssAttention: a learned sink logit per head");
    hf_arch_local_experts(r);
    hf_reader_fix_long(r, "ffn", "width", 0, "GPT-OSS: every layer MoE");
    hf_reader_fix_long(r, "moe", "shared_experts", 0,
                       "GPT-OSS: no shared experts");
    hf_reader_fix_long(r, "moe", "node_limit", 0,
                       "GPT-OSS: no node-limited routing");
    hf_arch_check_top_k(r);
    hf_reader_int_field(r, "sliding_window", "attention", "window", HF_OPTIONAL,
                        0, "absent: no sliding-window layers");
    n = layers(r);
    for (i = 0; i < n; i++) { /* GptOssConfig's default: even layers */
        mixer[i] = i % 2 == 0 ? MODEL_MIX_WINDOW : MODEL_MIX_FULL;
        mlp[i] = MODEL_MLP_MOE;
    }
    if (n > 0 && layer_types(r, MODEL_MIX_FULL, mixer, &found))
        hf_reader_pattern(r, "layer_types", mixer, mlp, n,
                          found ? "layer_types; every layer MoE"
                                : "layer_types absent: GptOssConfig's "
                                  "default, sliding on even layers; every "
                                  "layer MoE");
    no_mtp(r);
}

/* ---- GLM-4.5 / 4.6 ---- */

/*
 * Glm4MoeForCausalLM: DeepseekV3's MoE layout (first_k_dense_replace
 * dense layers, n_routed_experts + n_shared_experts, top
 * num_experts_per_tok, groups) on GQA attention with q/k/v biases
 * (attention_bias; o_proj has none), QK-norm where use_qk_norm, RoPE on
 * partial_rotary_factor of each head, and num_nextn_predict_layers MTP
 * layers. A block model: no pattern.
 */
void hf_arch_glm4_moe(struct hf_reader *r)
{
    bool att, qk;
    double frac = 0.5;
    const cJSON *rope;

    hf_arch_common(r);
    if (hf_reader_get_bool(r, "attention_bias", false, &att))
        hf_reader_fix_bool(r, "attention", "qkv_bias", att,
                           "attention_bias: q/k/v biases, o_proj none "
                           "(Glm4MoeAttention)");
    hf_reader_fix_bool(r, "model", "linear_bias", false,
                       "Glm4Moe: no biases but q/k/v's");
    hf_arch_gqa(r);
    if (hf_reader_get_bool(r, "use_qk_norm", false, &qk))
        hf_reader_fix_bool(r, "attention", "qk_norm", qk,
                           "use_qk_norm (Glm4MoeAttention's q_norm, k_norm)");
    rope = hf_reader_take(r, "partial_rotary_factor");
    if (!hf_reader_absent(rope)) {
        if (!cJSON_IsNumber(rope) || rope->valuedouble < 0 ||
            rope->valuedouble > 1)
            show_problem(r, "partial_rotary_factor", rope, "a number in 0..1");
        else
            frac = rope->valuedouble;
    }
    *(double *)hf_reader_slot(
        r, hf_reader_field("attention", "rope_fraction")) = frac;
    hf_reader_source(r, hf_reader_field("attention", "rope_fraction"), "%s",
                     hf_reader_absent(rope)
                         ? "partial_rotary_factor absent: Glm4MoeConfig's 0.5"
                         : "partial_rotary_factor");
    hf_arch_deepseek_moe(r);
    hf_reader_int_field(r, "num_nextn_predict_layers", "mtp", "depth",
                        HF_OPTIONAL, 0, "absent: no MTP layers");
}

/* ---- Llama 4 ---- */

/* The wrapper's keys: its text_config becomes the root the other
 * readers see (hf_config checks both objects' keys). False without a
 * text_config object. */
static bool llama4_text(struct hf_reader *r)
{
    static const char *const past[] = {
        "vision_config", /* the vision encoder: not planned */
        "boi_token_index", "eoi_token_index", "image_token_index",
        "tie_word_embeddings" /* the text model's own key decides */};
    const cJSON *text = hf_reader_take(r, "text_config");
    read_past(r, past, sizeof past / sizeof *past);
    if (!cJSON_IsObject(text)) {
        if (hf_reader_absent(text))
            diag_add(r->d, STATUS_PARSE,
                     "%s: key 'text_config': missing (required for %s: the "
                     "language model's keys)",
                     r->path, r->arch_name);
        else
            show_problem(r, "text_config", text, "an object");
        return false;
    }
    r->outer = r->root;
    r->root = text;
    return true;
}

/* Llama 4's layers: MoE on moe_layers (default every
 * interleave_moe_layer_step-th, from step - 1), RoPE and chunked
 * attention on no_rope_layers' 1s (default: all but every
 * no_rope_layer_interval-th), global NoPE attention on the rest. */
static void llama4_pattern(struct hf_reader *r)
{
    unsigned char mixer[LAYERS_MAX], mlp[LAYERS_MAX];
    long list[LAYERS_MAX], step = 1, interval = 4;
    size_t n = layers(r), k, i;
    bool found, got_moe, got_rope, ok;

    ok = hf_reader_get_int(r, "interleave_moe_layer_step", 1, 1e4,
                           "an integer in 1..10000", &found, &step);
    ok = hf_reader_get_int(r, "no_rope_layer_interval", 1, 1e4,
                           "an integer in 1..10000", &found, &interval) &&
         ok;
    for (i = 0; i < n; i++) {
        mlp[i] = (i + 1) % (size_t)step == 0 ? MODEL_MLP_MOE : MODEL_MLP_DENSE;
        mixer[i] =
            (i + 1) % (size_t)interval != 0 ? MODEL_MIX_CHUNK : MODEL_MIX_NOPE;
    }
    ok = int_list(r, "moe_layers", 0, (long)n - 1, list, LAYERS_MAX, &k,
                  &got_moe) &&
         ok;
    if (ok && got_moe) {
        for (i = 0; i < n; i++)
            mlp[i] = MODEL_MLP_DENSE;
        for (i = 0; i < k; i++)
            mlp[list[i]] = MODEL_MLP_MOE;
    }
    ok = int_list(r, "no_rope_layers", 0, 1, list, LAYERS_MAX, &k, &got_rope) &&
         ok;
    if (ok && got_rope && k > 0) { /* an empty list: the interval's */
        if (k != n) {
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'no_rope_layers': %zu entries, "
                     "num_hidden_layers is %zu",
                     r->path, k, n);
            return;
        }
        for (i = 0; i < n; i++)
            mixer[i] = list[i] ? MODEL_MIX_CHUNK : MODEL_MIX_NOPE;
    }
    if (ok && n > 0)
        hf_reader_pattern(
            r, "no_rope_layers", mixer, mlp, n,
            "no_rope_layers (1: RoPE and chunked attention, 0: global NoPE "
            "attention) and moe_layers or interleave_moe_layer_step "
            "(Llama4TextConfig)");
}

void hf_arch_llama4(struct hf_reader *r)
{
    static const char *const past[] = {
        "use_qk_norm",             /* Llama4TextL2Norm: no weights */
        "attn_temperature_tuning", /* NoPE layers' query scale */
        "attn_scale",
        "floor_scale",
        "for_llm_compressor",
        "cache_implementation",
        "_attn_implementation_autoset",
        "router_jitter_noise"};
    if (!llama4_text(r))
        return;
    read_past(r, past, sizeof past / sizeof *past);
    hf_arch_common(r);
    no_biases(r, "attention_bias false (Llama4TextAttention)");
    hf_arch_gqa(r);
    hf_arch_local_experts(r);
    hf_reader_int_field(r, "intermediate_size_mlp", "ffn", "width", HF_REQUIRED,
                        0, "");
    hf_reader_fix_long(r, "moe", "shared_experts", 1,
                       "Llama4TextMoe: one shared expert of intermediate_size");
    hf_reader_fix_long(r, "moe", "node_limit", 0,
                       "Llama 4: no node-limited routing");
    hf_arch_check_top_k(r);
    hf_reader_int_field(r, "attention_chunk_size", "attention", "chunk",
                        HF_REQUIRED, 0, "");
    llama4_pattern(r);
    no_mtp(r);
}

/* ---- Qwen3-Next ---- */

/* Qwen3-Next's MoE: num_experts of moe_intermediate_size, top
 * num_experts_per_tok, shared_expert_intermediate_size as shared experts
 * of the routed width; MoE where (i + 1) % decoder_sparse_step == 0 and i
 * is not in mlp_only_layers, a dense MLP of intermediate_size elsewhere
 * (Qwen3NextDecoderLayer). */
static void qwen3_next_moe(struct hf_reader *r, unsigned char *mlp)
{
    long only[LAYERS_MAX], step = 1, shared = 0;
    size_t n = layers(r), k, i;
    bool found, got;

    hf_arch_qwen_moe_widths(r);
    hf_reader_fix_long(r, "moe", "node_limit", 0,
                       "Qwen3-Next: no node-limited routing");
    if (hf_reader_get_int(r, "shared_expert_intermediate_size", 0, 1e7,
                          "an integer in 0..10000000", &found, &shared)) {
        long width = r->spec->expert_width;
        if (width > 0 && shared % width != 0)
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'shared_expert_intermediate_size': %ld is not "
                     "a multiple of moe_intermediate_size (%ld): shared "
                     "experts are modelled at the routed width",
                     r->path, shared, width);
        hf_reader_fix_long(r, "moe", "shared_experts",
                           width > 0 ? shared / width : 0,
                           "shared_expert_intermediate_size over "
                           "moe_intermediate_size (its sigmoid gate, one "
                           "hidden-wide row, not counted)");
    }
    hf_arch_check_top_k(r);
    hf_reader_get_int(r, "decoder_sparse_step", 1, 1e4,
                      "an integer in 1..10000", &found, &step);
    for (i = 0; i < n; i++)
        mlp[i] = (i + 1) % (size_t)step == 0 ? MODEL_MLP_MOE : MODEL_MLP_DENSE;
    if (int_list(r, "mlp_only_layers", 0, (long)n - 1, only, LAYERS_MAX, &k,
                 &got))
        for (i = 0; i < k; i++)
            mlp[only[i]] = MODEL_MLP_DENSE;
}

/* The Gated DeltaNet layers' widths. */
static void qwen3_next_linear(struct hf_reader *r)
{
    hf_reader_int_field(r, "linear_num_key_heads", "linear", "key_heads",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "linear_num_value_heads", "linear", "value_heads",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "linear_key_head_dim", "linear", "key_head_dim",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "linear_value_head_dim", "linear", "value_head_dim",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "linear_conv_kernel_dim", "linear", "conv_kernel",
                        HF_OPTIONAL, 4, "absent: Qwen3NextConfig's 4");
}

void hf_arch_qwen3_next(struct hf_reader *r)
{
    unsigned char mixer[LAYERS_MAX], mlp[LAYERS_MAX];
    long interval = 4;
    size_t n, i;
    bool found, types;
    const cJSON *rope;
    double frac = 0.25;

    hf_arch_common(r);
    no_biases(r, "attention_bias false (Qwen3NextAttention)");
    /* The published config.json says use_sliding_window false; a window
     * would change the attention FLOPs, so true is refused. */
    must_be(r, "use_sliding_window", false, false);
    hf_arch_gqa(r);
    hf_reader_fix_bool(r, "attention", "qk_norm", true,
                       "Qwen3NextAttention: q_norm and k_norm");
    hf_reader_fix_bool(r, "attention", "output_gate", true,
                       "Qwen3NextAttention: q_proj doubled, the half a "
                       "sigmoid gate on the output");
    rope = hf_reader_take(r, "partial_rotary_factor");
    if (!hf_reader_absent(rope) &&
        (!cJSON_IsNumber(rope) || rope->valuedouble < 0 ||
         rope->valuedouble > 1))
        show_problem(r, "partial_rotary_factor", rope, "a number in 0..1");
    else if (!hf_reader_absent(rope))
        frac = rope->valuedouble;
    *(double *)hf_reader_slot(
        r, hf_reader_field("attention", "rope_fraction")) = frac;
    hf_reader_source(r, hf_reader_field("attention", "rope_fraction"), "%s",
                     hf_reader_absent(rope)
                         ? "partial_rotary_factor absent: Qwen3NextConfig's "
                           "0.25"
                         : "partial_rotary_factor");
    qwen3_next_linear(r);
    qwen3_next_moe(r, mlp);
    hf_reader_get_int(r, "full_attention_interval", 1, 1e4,
                      "an integer in 1..10000", &found, &interval);
    n = layers(r);
    for (i = 0; i < n; i++) /* Qwen3NextConfig's rule without layer_types */
        mixer[i] =
            (i + 1) % (size_t)interval != 0 ? MODEL_MIX_LINEAR : MODEL_MIX_FULL;
    if (n > 0 && layer_types(r, MODEL_MIX_FULL, mixer, &types))
        hf_reader_pattern(r, "layer_types", mixer, mlp, n,
                          types ? "layer_types; MoE by decoder_sparse_step "
                                  "and mlp_only_layers"
                                : "full_attention_interval (linear attention "
                                  "but every interval-th layer); MoE by "
                                  "decoder_sparse_step and mlp_only_layers");
    if (!hf_reader_int_field(r, "num_nextn_predict_layers", "mtp", "depth",
                             HF_OPTIONAL, 0, "absent: no MTP modules"))
        hf_reader_int_field(r, "mtp_num_hidden_layers", "mtp", "depth",
                            HF_OPTIONAL, 0, "absent: no MTP modules");
}

/* ---- DeepSeek-V3.2 ---- */

/*
 * DeepseekV32ForCausalLM: DeepSeek-V3's MLA and MoE keys, every layer's
 * attention DeepSeek Sparse Attention (index_n_heads heads of
 * index_head_dim, index_topk keys per query; DeepSeek-V3.2-Exp's
 * inference/model.py, class Indexer).
 */
void hf_arch_deepseek_v32(struct hf_reader *r)
{
    unsigned char mixer[LAYERS_MAX], mlp[LAYERS_MAX];
    size_t n, i;

    hf_arch_common(r);
    no_biases(r, "DeepseekV3: no biases");
    hf_arch_mla(r);
    hf_arch_deepseek_moe(r);
    hf_reader_int_field(r, "num_nextn_predict_layers", "mtp", "depth",
                        HF_OPTIONAL, 0, "absent: no MTP modules");
    hf_reader_int_field(r, "index_n_heads", "attention", "index_heads",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "index_head_dim", "attention", "index_head_dim",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "index_topk", "attention", "index_topk", HF_REQUIRED,
                        0, "");
    n = layers(r);
    for (i = 0; i < n; i++) {
        mixer[i] = MODEL_MIX_SPARSE;
        mlp[i] = r->spec->routed_experts > 0 &&
                         (long)i >= r->spec->first_dense_layers
                     ? MODEL_MLP_MOE
                     : MODEL_MLP_DENSE;
    }
    if (n > 0 && r->spec->first_dense_layers <= r->spec->layers)
        hf_reader_pattern(r, "index_topk", mixer, mlp, n,
                          "every layer DeepSeek Sparse Attention (index_*); "
                          "first_k_dense_replace dense layers, then MoE");
}

/* ---- Nemotron-H ---- */

/* hybrid_override_pattern (or layers_block_type): a block per character,
 * 'M' Mamba-2, '*' attention (no position embeddings), '-' an MLP; 'E'
 * (MoE blocks, Nemotron 3) is not read. */
static void nemotron_pattern(struct hf_reader *r)
{
    static const struct {
        char c;
        const char *word;
        unsigned char mixer, mlp;
    } blocks[] = {{'M', "mamba", MODEL_MIX_SSM, MODEL_MLP_NONE},
                  {'*', "attention", MODEL_MIX_NOPE, MODEL_MLP_NONE},
                  {'-', "mlp", MODEL_MIX_NONE, MODEL_MLP_DENSE}};
    unsigned char mixer[LAYERS_MAX], mlp[LAYERS_MAX];
    const cJSON *pat = hf_reader_take(r, "hybrid_override_pattern");
    size_t n = layers(r), i, b, len;

    if (!cJSON_IsString(pat)) {
        if (hf_reader_absent(pat))
            diag_add(r->d, STATUS_PARSE,
                     "%s: key 'hybrid_override_pattern': missing (required "
                     "for %s: each block's kind)",
                     r->path, r->arch_name);
        else
            show_problem(r, "hybrid_override_pattern", pat, "a string");
        return;
    }
    len = strlen(pat->valuestring);
    if (len != n) {
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'hybrid_override_pattern': %zu blocks, "
                 "num_hidden_layers is %zu",
                 r->path, len, n);
        return;
    }
    for (i = 0; i < n; i++) {
        for (b = 0; b < sizeof blocks / sizeof *blocks; b++)
            if (pat->valuestring[i] == blocks[b].c)
                break;
        if (b == sizeof blocks / sizeof *blocks) {
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'hybrid_override_pattern': block %zu is '%c': "
                     "only M (Mamba-2), * (attention) and - (MLP) are "
                     "modelled",
                     r->path, i, pat->valuestring[i]);
            return;
        }
        mixer[i] = blocks[b].mixer;
        mlp[i] = blocks[b].mlp;
    }
    hf_reader_pattern(r, "hybrid_override_pattern", mixer, mlp, n,
                      "hybrid_override_pattern (M: Mamba-2 block, *: "
                      "attention block without position embeddings, -: MLP "
                      "block)");
}

/* The Mamba-2 blocks' widths (NemotronHMamba2Mixer: inner width
 * mamba_num_heads x mamba_head_dim, a convolution with a bias). */
static void nemotron_ssm(struct hf_reader *r)
{
    static const char *const past[] = {
        "expand", /* the inner width is heads x head_dim */
        "time_step_min",    "time_step_max",  "time_step_floor",
        "time_step_limit",  "time_step_rank", "mamba_ssm_cache_dtype",
        "use_mamba_kernels"};
    read_past(r, past, sizeof past / sizeof *past);
    hf_reader_int_field(r, "mamba_num_heads", "ssm", "heads", HF_REQUIRED, 0,
                        "");
    hf_reader_int_field(r, "mamba_head_dim", "ssm", "head_dim", HF_REQUIRED, 0,
                        "");
    hf_reader_int_field(r, "ssm_state_size", "ssm", "state", HF_REQUIRED, 0,
                        "");
    hf_reader_int_field(r, "n_groups", "ssm", "groups", HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "conv_kernel", "ssm", "conv_kernel", HF_OPTIONAL, 4,
                        "absent: NemotronHConfig's 4");
    hf_reader_int_field(r, "chunk_size", "ssm", "chunk", HF_OPTIONAL, 128,
                        "absent: NemotronHConfig's 128");
    must_be(r, "use_conv_bias", true, true);
    must_be(r, "mamba_proj_bias", false, false);
    must_say(r, "mamba_hidden_act", "silu");
}

void hf_arch_nemotron_h(struct hf_reader *r)
{
    static const char *const past[] = {
        "residual_in_fp32",   "rescale_prenorm_residual", "layer_norm_epsilon",
        "num_logits_to_keep", "hidden_dropout",           "sliding_window"};
    const cJSON *head;
    long mtp = 0;
    bool found;

    read_past(r, past, sizeof past / sizeof *past);
    hf_arch_common(r);
    must_say(r, "mlp_hidden_act", "relu2");
    hf_reader_fix_int(r, "ffn", "activation", MODEL_RELU2,
                      "mlp_hidden_act relu2: NemotronHMLP, up and down "
                      "projections, squared ReLU");
    no_biases(r, "attention_bias, mlp_bias and use_bias false");
    must_be(r, "mlp_bias", false, false);
    must_be(r, "use_bias", false, false);
    /* older configs name the head width attention_head_dim */
    head = hf_reader_take(r, "attention_head_dim");
    hf_arch_gqa(r);
    if (!hf_reader_absent(head)) {
        if (!cJSON_IsNumber(head) || head->valuedouble < 1 ||
            head->valuedouble > 1e5 ||
            head->valuedouble != (double)(long)head->valuedouble)
            show_problem(r, "attention_head_dim", head,
                         "an integer in 1..100000");
        else {
            r->spec->head_dim = (long)head->valuedouble;
            hf_reader_source(r, hf_reader_field("attention", "head_dim"),
                             "attention_head_dim");
        }
    }
    hf_reader_int_field(r, "intermediate_size", "ffn", "width", HF_REQUIRED, 0,
                        "");
    hf_arch_no_moe(r, "Nemotron-H: MLP blocks, no experts");
    nemotron_ssm(r);
    nemotron_pattern(r);
    if (hf_reader_get_int(r, "num_nextn_predict_layers", 0, 0,
                          "0 (Nemotron-H's MTP layers are not read)", &found,
                          &mtp))
        no_mtp(r);
}
