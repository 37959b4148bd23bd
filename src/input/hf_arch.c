/*
 * hf_arch: the supported architectures' config.json keys (see the header).
 *
 * Keys and their meaning follow transformers' configuration_*.py and
 * modeling_*.py for each class. Keys that set a shape are required:
 * roofplan does not fill in transformers' defaults for them, since a
 * published config always states them and a default that drifts between
 * transformers versions would change the model silently. Keys whose
 * absence is common and unambiguous (tie_word_embeddings, biases,
 * num_key_value_heads, head_dim, sliding-window switches) take the class's
 * default, and the source says so.
 */
#include "hf_arch.h"

#include <stdio.h>
#include <string.h>

#include "hf_arch_layers.h"
#include "hf_config.h"

enum arch {
    ARCH_LLAMA,
    ARCH_QWEN2,
    ARCH_QWEN3,
    ARCH_QWEN3_MOE,
    ARCH_MIXTRAL,
    ARCH_DEEPSEEK_V3,
    ARCH_GPT_OSS,
    ARCH_GLM4_MOE,
    ARCH_LLAMA4,
    ARCH_QWEN3_NEXT,
    ARCH_DEEPSEEK_V32,
    ARCH_NEMOTRON_H,
    ARCHS
};

static const struct {
    const char *name;       /* architectures[0] */
    const char *model_type; /* used when architectures is absent */
    const char *modeling;   /* transformers file that builds the layers */
    void (*read)(struct hf_reader *r); /* its keys (hf_arch_layers.c);
                                        * NULL: hf_arch_read's own */
} arch_info[ARCHS] = {
    [ARCH_LLAMA] = {.name = "LlamaForCausalLM",
                    .model_type = "llama",
                    .modeling = "modeling_llama.py"},
    [ARCH_QWEN2] = {.name = "Qwen2ForCausalLM",
                    .model_type = "qwen2",
                    .modeling = "modeling_qwen2.py"},
    [ARCH_QWEN3] = {.name = "Qwen3ForCausalLM",
                    .model_type = "qwen3",
                    .modeling = "modeling_qwen3.py"},
    [ARCH_QWEN3_MOE] = {.name = "Qwen3MoeForCausalLM",
                        .model_type = "qwen3_moe",
                        .modeling = "modeling_qwen3_moe.py"},
    [ARCH_MIXTRAL] = {.name = "MixtralForCausalLM",
                      .model_type = "mixtral",
                      .modeling = "modeling_mixtral.py"},
    [ARCH_DEEPSEEK_V3] = {.name = "DeepseekV3ForCausalLM",
                          .model_type = "deepseek_v3",
                          .modeling = "modeling_deepseek_v3.py"},
    [ARCH_GPT_OSS] = {.name = "GptOssForCausalLM",
                      .model_type = "gpt_oss",
                      .modeling = "modeling_gpt_oss.py",
                      .read = hf_arch_gpt_oss},
    [ARCH_GLM4_MOE] = {.name = "Glm4MoeForCausalLM",
                       .model_type = "glm4_moe",
                       .modeling = "modeling_glm4_moe.py",
                       .read = hf_arch_glm4_moe},
    [ARCH_LLAMA4] = {.name = "Llama4ForConditionalGeneration",
                     .model_type = "llama4",
                     .modeling = "modeling_llama4.py",
                     .read = hf_arch_llama4},
    [ARCH_QWEN3_NEXT] = {.name = "Qwen3NextForCausalLM",
                         .model_type = "qwen3_next",
                         .modeling = "modeling_qwen3_next.py",
                         .read = hf_arch_qwen3_next},
    [ARCH_DEEPSEEK_V32] = {.name = "DeepseekV32ForCausalLM",
                           .model_type = "deepseek_v32",
                           .modeling = "DeepSeek-V3.2's inference/model.py",
                           .read = hf_arch_deepseek_v32},
    [ARCH_NEMOTRON_H] = {.name = "NemotronHForCausalLM",
                         .model_type = "nemotron_h",
                         .modeling = "modeling_nemotron_h.py",
                         .read = hf_arch_nemotron_h},
};

const char *hf_arch_modeling(const struct hf_reader *r)
{
    return arch_info[r->arch].modeling;
}

void hf_arch_names(char *buf, size_t size)
{
    const char *sorted[ARCHS] = {NULL};
    size_t at = 0;
    int a, b;
    for (a = 0; a < ARCHS; a++) { /* insertion sort: a dozen rows */
        for (b = a; b > 0 && strcmp(sorted[b - 1], arch_info[a].name) > 0; b--)
            sorted[b] = sorted[b - 1];
        sorted[b] = arch_info[a].name;
    }
    buf[0] = '\0';
    for (a = 0; a < ARCHS && at < size; a++) {
        int k = snprintf(buf + at, size - at, "%s%s", a ? ", " : "", sorted[a]);
        if (k < 0)
            return;
        at += (size_t)k;
    }
}

/* ---- Shared by every architecture ---- */

/* The file's name without folders, ".json" and ".config"; "config" alone
 * names the model by its folder (a downloaded repository's). */
static void model_name(struct hf_reader *r)
{
    char buf[512], *base, *dot;
    long fi = hf_reader_field("model", "name");
    char *name = hf_reader_slot(r, fi);
    size_t size = model_schema()->fields[fi].size;

    diag_snprintf(buf, sizeof buf, "%s", r->path);
    base = strrchr(buf, '/');
    base = base ? base + 1 : buf;
    dot = strrchr(base, '.');
    if (dot && strcmp(dot, ".json") == 0)
        *dot = '\0';
    dot = strrchr(base, '.');
    if (dot && strcmp(dot, ".config") == 0)
        *dot = '\0';
    if (strcmp(base, "config") == 0 && base > buf) {
        char *slash;
        base[-1] = '\0';
        slash = strrchr(buf, '/');
        base = slash ? slash + 1 : buf;
    }
    if (!*base || strcmp(base, "config") == 0 || strcmp(base, ".") == 0)
        base = (char *)arch_info[r->arch].name;
    diag_snprintf(name, size, "%s", base); /* whole characters */
    hf_reader_source(r, fi, "the file's name (config.json names no model)");
}

void hf_arch_common(struct hf_reader *r)
{
    const char *arch = arch_info[r->arch].name;
    const cJSON *act = hf_reader_take(r, "hidden_act");
    char why[160];
    bool tied;

    model_name(r);
    hf_reader_int_field(r, "num_hidden_layers", "model", "layers", HF_REQUIRED,
                        0, "");
    hf_reader_int_field(r, "hidden_size", "model", "hidden", HF_REQUIRED, 0,
                        "");
    hf_reader_int_field(r, "vocab_size", "model", "vocab", HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "num_attention_heads", "attention", "heads",
                        HF_REQUIRED, 0, "");
    if (hf_reader_get_bool(r, "tie_word_embeddings", false, &tied)) {
        long fi = hf_reader_field("model", "tied_embeddings");
        *(bool *)hf_reader_slot(r, fi) = tied;
        if (cJSON_GetObjectItemCaseSensitive(r->root, "tie_word_embeddings"))
            hf_reader_source(r, fi, "tie_word_embeddings");
        else
            hf_reader_source(
                r, fi,
                "tie_word_embeddings absent: false, the default of "
                "%s's configuration class",
                arch);
    }
    /* Every class here builds a gated MLP, act(gate(x)) * up(x) then down:
     * with SiLU that is SwiGLU, three matrices. Another activation keeps
     * the shapes but is not what the model's names say: refuse it. */
    if (!hf_reader_absent(act) &&
        (!cJSON_IsString(act) || strcmp(act->valuestring, "silu") != 0)) {
        char got[96];
        hf_reader_show(act, got, sizeof got);
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'hidden_act': %s is not modelled (only \"silu\": "
                 "the SwiGLU MLP)",
                 r->path, got);
    }
    snprintf(why, sizeof why, "%s hidden_act silu: gated SiLU MLP (%s)",
             hf_reader_absent(act) ? "absent:" : "",
             arch_info[r->arch].modeling);
    hf_reader_fix_int(r, "ffn", "activation", MODEL_SWIGLU, why);
    snprintf(why, sizeof why, "%s uses RMSNorm (%s)", arch,
             arch_info[r->arch].modeling);
    hf_reader_fix_int(r, "model", "norm", MODEL_RMSNORM, why);
    hf_reader_fix_long(r, "model", "max_positions", 0,
                       "RoPE: no learned position embeddings");
}

/* layer_types (newer transformers): every layer full causal attention. */
static void check_layer_types(struct hf_reader *r)
{
    const cJSON *types = hf_reader_take(r, "layer_types"), *it;
    int i = 0;
    if (hf_reader_absent(types))
        return;
    if (!cJSON_IsArray(types)) {
        char got[96];
        hf_reader_show(types, got, sizeof got);
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'layer_types': expected an array, got %s", r->path,
                 got);
        return;
    }
    cJSON_ArrayForEach(it, types)
    {
        if (!cJSON_IsString(it) ||
            strcmp(it->valuestring, "full_attention") != 0) {
            char got[96];
            hf_reader_show(it, got, sizeof got);
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'layer_types': layer %d is %s: only "
                     "\"full_attention\" layers are modelled (no sliding-"
                     "window or linear attention)",
                     r->path, i, got);
            return;
        }
        i++;
    }
}

/* Sliding-window attention changes the attention FLOPs and saved tensors:
 * refuse it where enabled. Qwen's window applies only with
 * use_sliding_window; Mixtral's whenever sliding_window is a number. */
static void check_window(struct hf_reader *r)
{
    bool on;
    if (r->arch == ARCH_QWEN2 || r->arch == ARCH_QWEN3 ||
        r->arch == ARCH_QWEN3_MOE) {
        hf_reader_take(r, "sliding_window");
        hf_reader_take(r, "max_window_layers");
        if (hf_reader_get_bool(r, "use_sliding_window", false, &on) && on)
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'use_sliding_window': true: sliding-window "
                     "attention is not modelled (only full causal attention)",
                     r->path);
    } else if (r->arch == ARCH_MIXTRAL) {
        const cJSON *w = hf_reader_take(r, "sliding_window");
        if (!hf_reader_absent(w)) {
            char got[96];
            hf_reader_show(w, got, sizeof got);
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'sliding_window': %s: sliding-window attention "
                     "is not modelled (only null, full causal attention)",
                     r->path, got);
        }
    }
    check_layer_types(r);
}

/* Attention and MLP biases as the classes build them. roofplan's
 * model.linear_bias puts biases on every Linear; attention.qkv_bias on the
 * query, key and value projections only (Qwen2). */
static void read_biases(struct hf_reader *r)
{
    bool att = false, mlp = false;
    const char *arch = arch_info[r->arch].name;
    char why[200];

    if (r->arch == ARCH_QWEN2) {
        snprintf(why, sizeof why,
                 "Qwen2 q/k/v projections carry biases, o_proj and MLP none "
                 "(%s)",
                 arch_info[r->arch].modeling);
        hf_reader_fix_bool(r, "model", "linear_bias", false, why);
        hf_reader_fix_bool(r, "attention", "qkv_bias", true, why);
        return;
    }
    if (r->arch != ARCH_MIXTRAL)
        hf_reader_get_bool(r, "attention_bias", false, &att);
    if (r->arch == ARCH_LLAMA)
        hf_reader_get_bool(r, "mlp_bias", false, &mlp);
    if (r->arch == ARCH_DEEPSEEK_V3 && att)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'attention_bias': true: biases on MLA projections "
                 "are not modelled",
                 r->path);
    else if (att && !mlp)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'attention_bias': true without MLP biases: biases "
                 "on the attention projections alone are not modelled",
                 r->path);
    else if (mlp && !att)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'mlp_bias': true without attention biases: biases "
                 "on the MLP alone are not modelled",
                 r->path);
    snprintf(why, sizeof why, "%s (%s)",
             r->arch == ARCH_MIXTRAL ? "Mixtral: no biases"
             : r->arch == ARCH_LLAMA ? "attention_bias and mlp_bias"
                                     : "attention_bias (the MLP has none)",
             arch);
    hf_reader_fix_bool(r, "model", "linear_bias", att && mlp, why);
    hf_reader_fix_bool(r, "attention", "qkv_bias", false, why);
}

/* GQA/MHA: key/value heads, head dimension, QK-norm. */
void hf_arch_gqa(struct hf_reader *r)
{
    struct model_spec *s = r->spec;
    long kv = 0;
    bool found;
    char want[64];

    snprintf(want, sizeof want, "an integer in 1..%ld",
             s->heads > 0 ? s->heads : 100000);
    if (hf_reader_get_int(r, "num_key_value_heads", 1,
                          s->heads > 0 ? (double)s->heads : 1e5, want, &found,
                          &kv)) {
        if (!found)
            kv = s->heads;
        if (s->heads > 0 && kv > 0 && s->heads % kv != 0)
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'num_key_value_heads': must divide "
                     "num_attention_heads (%ld), got %ld",
                     r->path, s->heads, kv);
        hf_reader_fix_int(
            r, "attention", "type", kv == s->heads ? MODEL_MHA : MODEL_GQA,
            found ? "num_key_value_heads (= heads: MHA; fewer: GQA)"
                  : "num_key_value_heads absent: as many as heads (MHA)");
        if (kv == s->heads)
            hf_reader_fix_long(r, "attention", "kv_heads", 0,
                               "MHA: key/value heads as attention.heads");
        else
            hf_reader_fix_long(r, "attention", "kv_heads", kv,
                               "num_key_value_heads");
    }
    hf_reader_int_field(r, "head_dim", "attention", "head_dim", HF_OPTIONAL, 0,
                        "absent: hidden_size / num_attention_heads");
    hf_reader_fix_long(r, "attention", "q_lora_rank", 0, "not MLA");
    hf_reader_fix_long(r, "attention", "kv_lora_rank", 0, "not MLA");
    hf_reader_fix_long(r, "attention", "qk_nope_head_dim", 0, "not MLA");
    hf_reader_fix_long(r, "attention", "qk_rope_head_dim", 0, "not MLA");
    hf_reader_fix_long(r, "attention", "v_head_dim", 0, "not MLA");
    hf_reader_fix_bool(
        r, "attention", "qk_norm",
        r->arch == ARCH_QWEN3 || r->arch == ARCH_QWEN3_MOE,
        r->arch == ARCH_QWEN3 || r->arch == ARCH_QWEN3_MOE
            ? "Qwen3: RMSNorm over each query and key head (q_norm, "
              "k_norm)"
            : "no QK-norm in this architecture");
    if (r->arch == ARCH_QWEN3 || r->arch == ARCH_QWEN3_MOE) {
        /* Qwen3-Coder's config carries these; transformers' Qwen3 classes
         * do not read them (q/k norms always, biases by attention_bias). */
        hf_reader_take(r, "use_qk_norm");
        hf_reader_take(r, "qkv_bias");
    }
}

void hf_arch_mla(struct hf_reader *r)
{
    hf_reader_fix_int(r, "attention", "type", MODEL_MLA,
                      "DeepseekV3: multi-head latent attention");
    hf_reader_int_field(r, "q_lora_rank", "attention", "q_lora_rank",
                        HF_OPTIONAL, 0, "null: no query compression");
    if (!cJSON_GetObjectItemCaseSensitive(r->root, "q_lora_rank"))
        diag_add(r->d, STATUS_PARSE,
                 "%s: key 'q_lora_rank': missing (required for %s; a number, "
                 "or null for no query compression)",
                 r->path, arch_info[r->arch].name);
    hf_reader_int_field(r, "kv_lora_rank", "attention", "kv_lora_rank",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "qk_nope_head_dim", "attention", "qk_nope_head_dim",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "qk_rope_head_dim", "attention", "qk_rope_head_dim",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "v_head_dim", "attention", "v_head_dim", HF_REQUIRED,
                        0, "");
    /* MLA's key/value heads are the query heads; transformers' class keeps
     * num_key_value_heads (and head_dim = the RoPE width) unused here. */
    hf_reader_take(r, "num_key_value_heads");
    hf_reader_take(r, "head_dim");
    hf_reader_fix_long(r, "attention", "kv_heads", 0, "MLA: not used");
    hf_reader_fix_long(r, "attention", "head_dim", 0, "MLA: not used");
    hf_reader_fix_bool(r, "attention", "qk_norm", false,
                       "MLA: latent RMSNorms only");
}

/* No MoE: the [moe] fields are zero. */
void hf_arch_no_moe(struct hf_reader *r, const char *why)
{
    hf_reader_fix_long(r, "moe", "routed_experts", 0, why);
    hf_reader_fix_long(r, "moe", "shared_experts", 0, why);
    hf_reader_fix_long(r, "moe", "top_k", 0, why);
    hf_reader_fix_long(r, "moe", "expert_width", 0, why);
    hf_reader_fix_long(r, "moe", "first_dense_layers", 0, why);
    hf_reader_fix_long(r, "moe", "node_limit", 0, why);
}

void hf_arch_qwen_moe_widths(struct hf_reader *r)
{
    hf_reader_int_field(r, "num_experts", "moe", "routed_experts", HF_REQUIRED,
                        0, "");
    hf_reader_int_field(r, "num_experts_per_tok", "moe", "top_k", HF_REQUIRED,
                        0, "");
    hf_reader_int_field(r, "moe_intermediate_size", "moe", "expert_width",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "intermediate_size", "ffn", "width", HF_REQUIRED, 0,
                        "");
}

void hf_arch_local_experts(struct hf_reader *r)
{
    hf_reader_int_field(r, "num_local_experts", "moe", "routed_experts",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "num_experts_per_tok", "moe", "top_k", HF_REQUIRED,
                        0, "");
    hf_reader_int_field(r, "intermediate_size", "moe", "expert_width",
                        HF_REQUIRED, 0, "");
}

void hf_arch_check_top_k(struct hf_reader *r)
{
    const struct model_spec *s = r->spec;
    if (s->routed_experts > 0 && s->top_k > s->routed_experts)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'num_experts_per_tok': expected at most the %ld "
                 "experts, got %ld",
                 r->path, s->routed_experts, s->top_k);
}

/*
 * Qwen3Moe: layer i is MoE unless listed in mlp_only_layers, and only when
 * (i + 1) % decoder_sparse_step == 0. Modelled: step 1 with the dense
 * layers a leading run (0 .. k-1), as DeepSeek's first_k_dense_replace.
 */
static void read_qwen3_moe(struct hf_reader *r)
{
    struct model_spec *s = r->spec;
    const cJSON *only = hf_reader_take(r, "mlp_only_layers"), *it;
    const cJSON *shared = hf_reader_take(r, "shared_expert_intermediate_size");
    long step = 1, k = 0, i = 0;
    bool found;

    hf_arch_qwen_moe_widths(r);
    hf_reader_fix_long(r, "moe", "shared_experts", 0,
                       "Qwen3Moe: no shared experts");
    hf_reader_fix_long(r, "moe", "node_limit", 0,
                       "Qwen3Moe: no node-limited routing");
    if (hf_reader_get_int(r, "decoder_sparse_step", 1, 1e4,
                          "an integer in 1..10000", &found, &step) &&
        step != 1)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'decoder_sparse_step': %ld (MoE on every %ldth "
                 "layer) is not modelled; only 1 (every layer MoE, but for "
                 "leading dense layers)",
                 r->path, step, step);
    /* Qwen3-Coder's config has it at 0; transformers' class builds no
     * shared expert whatever it says, and a size would suggest one. */
    if (!hf_reader_absent(shared) &&
        (!cJSON_IsNumber(shared) || shared->valuedouble != 0)) {
        char got[96];
        hf_reader_show(shared, got, sizeof got);
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'shared_expert_intermediate_size': %s: shared "
                 "experts are not built by Qwen3MoeForCausalLM (only 0)",
                 r->path, got);
    }
    if (!hf_reader_absent(only)) {
        if (!cJSON_IsArray(only)) {
            char got[96];
            hf_reader_show(only, got, sizeof got);
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'mlp_only_layers': expected an array of layer "
                     "numbers, got %s",
                     r->path, got);
            return;
        }
        /* Dense layers must be 0, 1, ..., k-1 in order. */
        cJSON_ArrayForEach(it, only)
        {
            if (!cJSON_IsNumber(it) || it->valuedouble != (double)i) {
                char got[96];
                hf_reader_show(it, got, sizeof got);
                diag_add(r->d, STATUS_RANGE,
                         "%s: key 'mlp_only_layers': entry %ld is %s: only "
                         "leading dense layers (0, 1, ..., k-1) are modelled",
                         r->path, i, got);
                return;
            }
            i++;
        }
        k = i;
    }
    if (k > s->layers && s->layers > 0)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'mlp_only_layers': %ld dense layers but "
                 "num_hidden_layers is %ld",
                 r->path, k, s->layers);
    hf_reader_fix_long(r, "moe", "first_dense_layers", k,
                       k ? "mlp_only_layers (a leading run of dense layers)"
                         : "mlp_only_layers empty: every layer MoE");
    hf_arch_check_top_k(r);
}

static void read_mixtral(struct hf_reader *r)
{
    hf_arch_local_experts(r);
    hf_reader_fix_long(r, "ffn", "width", 0,
                       "Mixtral: every layer MoE, no dense FFN");
    hf_reader_fix_long(r, "moe", "shared_experts", 0,
                       "Mixtral: no shared experts");
    hf_reader_fix_long(r, "moe", "first_dense_layers", 0,
                       "Mixtral: every layer MoE");
    hf_reader_fix_long(r, "moe", "node_limit", 0,
                       "Mixtral: no node-limited routing");
    hf_arch_check_top_k(r);
}

/*
 * DeepSeek-V3: routed and shared experts after first_k_dense_replace dense
 * layers, MoE on every layer after (moe_layer_freq 1), group-limited
 * routing (a token's experts in at most topk_group of n_group groups).
 * Groups are taken as nodes, as DeepSeek deploys them (arXiv 2412.19437
 * §2.1.2: 8 groups, at most 4 nodes per token).
 */
void hf_arch_deepseek_moe(struct hf_reader *r)
{
    struct model_spec *s = r->spec;
    long freq = 1, groups = 8, top_groups = 4;
    bool found, g1, g2;
    const cJSON *routed;

    hf_reader_int_field(r, "intermediate_size", "ffn", "width", HF_REQUIRED, 0,
                        "");
    routed = cJSON_GetObjectItemCaseSensitive(r->root, "n_routed_experts");
    if (hf_reader_absent(routed)) {
        hf_reader_take(r, "n_routed_experts");
        hf_reader_take(r, "n_shared_experts");
        hf_reader_take(r, "num_experts_per_tok");
        hf_reader_take(r, "moe_intermediate_size");
        hf_reader_take(r, "first_k_dense_replace");
        hf_reader_take(r, "moe_layer_freq");
        hf_reader_take(r, "n_group");
        hf_reader_take(r, "topk_group");
        hf_arch_no_moe(r, "n_routed_experts null: dense model");
        return;
    }
    hf_reader_int_field(r, "n_routed_experts", "moe", "routed_experts",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "n_shared_experts", "moe", "shared_experts",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "num_experts_per_tok", "moe", "top_k", HF_REQUIRED,
                        0, "");
    hf_reader_int_field(r, "moe_intermediate_size", "moe", "expert_width",
                        HF_REQUIRED, 0, "");
    hf_reader_int_field(r, "first_k_dense_replace", "moe", "first_dense_layers",
                        HF_REQUIRED, 0, "");
    if (hf_reader_get_int(r, "moe_layer_freq", 1, 1e4, "an integer in 1..10000",
                          &found, &freq) &&
        freq != 1)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'moe_layer_freq': %ld (MoE on every %ldth layer) is "
                 "not modelled; only 1 (MoE after first_k_dense_replace)",
                 r->path, freq, freq);
    if (s->first_dense_layers > s->layers && s->layers > 0)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'first_k_dense_replace': expected at most "
                 "num_hidden_layers (%ld), got %ld",
                 r->path, s->layers, s->first_dense_layers);
    /* Absent: DeepseekV3Config's defaults, 8 groups and 4 per token. */
    g1 = hf_reader_get_int(r, "n_group", 1, 1e5, "an integer in 1..100000",
                           &found, &groups);
    g2 = hf_reader_get_int(r, "topk_group", 1, 1e5, "an integer in 1..100000",
                           &found, &top_groups);
    if (g1 && g2) {
        if (top_groups > groups)
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'topk_group': expected at most n_group (%ld), "
                     "got %ld",
                     r->path, groups, top_groups);
        hf_reader_fix_long(
            r, "moe", "node_limit",
            groups > 1 && top_groups < groups ? top_groups : 0,
            groups > 1 && top_groups < groups
                ? "topk_group of n_group expert groups, a group per node "
                  "(arXiv 2412.19437 §2.1.2)"
                : "n_group/topk_group: no group limit");
        /* DeepseekV3's gate picks groups by the sum of their top-2 expert
         * scores, so every picked group (node) receives experts. */
        hf_reader_fix_int(
            r, "moe", "node_routing",
            groups > 1 && top_groups < groups ? MODEL_ROUTING_AFFINITY
                                              : MODEL_ROUTING_UNIFORM,
            "DeepseekV3 gate: groups picked by their top-2 expert "
            "affinities (arXiv 2412.19437 §2.1.2)");
    }
    hf_arch_check_top_k(r);
}

/* Sets r's architecture to the one whose class name (by_type: model_type)
 * is value; else reports `key` as unsupported. */
static bool
arch_set(struct hf_reader *r, const char *key, const char *value, bool by_type)
{
    char got[96];
    int a;
    for (a = 0; a < ARCHS; a++)
        if (strcmp(value, by_type ? arch_info[a].model_type
                                  : arch_info[a].name) == 0) {
            r->arch = a;
            r->arch_name = arch_info[a].name;
            return true;
        }
    diag_add(r->d, STATUS_PARSE,
             "%s: key '%s': \"%s\" is not supported "
             "(supported: " HF_CONFIG_SUPPORTED ")",
             r->path, key, hf_reader_quote(value, 80, got, sizeof got));
    return false;
}

/* architectures[0], else model_type. */
bool hf_arch_find(struct hf_reader *r)
{
    const cJSON *list =
        cJSON_GetObjectItemCaseSensitive(r->root, "architectures");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(r->root, "model_type");
    const cJSON *first =
        cJSON_IsArray(list) ? cJSON_GetArrayItem(list, 0) : NULL;
    char got[96];

    if (!hf_reader_absent(list)) {
        if (!cJSON_IsString(first)) {
            hf_reader_show(first ? first : list, got, sizeof got);
            diag_add(r->d, STATUS_PARSE,
                     "%s: key 'architectures': expected a list of class "
                     "names, got %s",
                     r->path, got);
            return false;
        }
        return arch_set(r, "architectures", first->valuestring, false);
    }
    if (cJSON_IsString(type))
        return arch_set(r, "model_type", type->valuestring, true);
    diag_add(r->d, STATUS_PARSE,
             "%s: key 'architectures': missing, and no model_type "
             "(supported: " HF_CONFIG_SUPPORTED ")",
             r->path);
    return false;
}

void hf_arch_read(struct hf_reader *r)
{
    if (arch_info[r->arch].read) {
        arch_info[r->arch].read(r);
        return;
    }
    hf_arch_common(r);
    read_biases(r);
    if (r->arch == ARCH_DEEPSEEK_V3) {
        hf_arch_mla(r);
        hf_arch_deepseek_moe(r);
        hf_reader_int_field(r, "num_nextn_predict_layers", "mtp", "depth",
                            HF_OPTIONAL, 0, "absent: no MTP modules");
    } else {
        hf_arch_gqa(r);
        check_window(r);
        if (r->arch == ARCH_QWEN3_MOE)
            read_qwen3_moe(r);
        else if (r->arch == ARCH_MIXTRAL)
            read_mixtral(r);
        else {
            hf_reader_int_field(r, "intermediate_size", "ffn", "width",
                                HF_REQUIRED, 0, "");
            hf_arch_no_moe(r, "dense model");
        }
        hf_reader_fix_long(r, "mtp", "depth", 0,
                           "no MTP modules in this architecture");
    }
}
