/*
 * hf_config: a Hugging Face config.json into a model_spec (see the header).
 *
 * Keys and their meaning follow transformers' configuration_*.py and
 * modeling_*.py for each class (LlamaConfig, Qwen2Config, Qwen3Config,
 * Qwen3MoeConfig, MixtralConfig, DeepseekV3Config). Keys that set a shape
 * are required: roofplan does not fill in transformers' defaults for them,
 * since a published config always states them and a default that drifts
 * between transformers versions would change the model silently. Keys
 * whose absence is common and unambiguous (tie_word_embeddings, biases,
 * num_key_value_heads, head_dim, sliding-window switches) take the class's
 * default, and the source says so.
 */
#include "hf_config.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cjson/cJSON.h>

#define USED_MAX 512  /* top-level keys tracked; more are "unknown" */
#define KEYS_MAX 1024 /* top-level keys accepted (a config has ~50) */

enum arch {
    ARCH_LLAMA,
    ARCH_QWEN2,
    ARCH_QWEN3,
    ARCH_QWEN3_MOE,
    ARCH_MIXTRAL,
    ARCH_DEEPSEEK_V3,
    ARCHS
};

static const struct {
    const char *name;       /* architectures[0] */
    const char *model_type; /* used when architectures is absent */
    const char *modeling;   /* transformers file that builds the layers */
} arch_info[ARCHS] = {
    {"LlamaForCausalLM", "llama", "modeling_llama.py"},
    {"Qwen2ForCausalLM", "qwen2", "modeling_qwen2.py"},
    {"Qwen3ForCausalLM", "qwen3", "modeling_qwen3.py"},
    {"Qwen3MoeForCausalLM", "qwen3_moe", "modeling_qwen3_moe.py"},
    {"MixtralForCausalLM", "mixtral", "modeling_mixtral.py"},
    {"DeepseekV3ForCausalLM", "deepseek_v3", "modeling_deepseek_v3.py"},
};

/*
 * Keys read past for every architecture: none can change a parameter
 * count, a FLOP count or a saved activation.
 * - bookkeeping and token ids;
 * - RoPE's base, scaling and variants (use_mrope): RoPE has no parameters
 *   and its FLOPs are elementwise, like the norms' (the model counts
 *   neither); the context limit (not the training sequence length, which
 *   is the recipe's) and the RMSNorm epsilon;
 * - pretraining_tp (Llama: slices the head's matmul, same FLOPs);
 * - quantization_config: how the released weights are stored; the
 *   training precisions are the recipe's;
 * - attention_dropout: dropout is the recipe's model.dropout;
 * - router arithmetic and auxiliary losses: the expert count and top-k
 *   fix the FLOPs, not how scores are normalised or balanced;
 * - ep_size: DeepSeek's reference inference code's expert parallelism.
 */
static const char *const read_past[] = {
    "architectures",
    "model_type",
    "auto_map",
    "transformers_version",
    "torch_dtype",
    "dtype",
    "_name_or_path",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "use_cache",
    "initializer_range",
    "rms_norm_eps",
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "rope_interleave",
    "use_mrope",
    "max_position_embeddings",
    "pretraining_tp",
    "quantization_config",
    "attention_dropout",
    "norm_topk_prob",
    "output_router_logits",
    "router_aux_loss_coef",
    "router_jitter_noise",
    "aux_loss_alpha",
    "seq_aux",
    "scoring_func",
    "topk_method",
    "routed_scaling_factor",
    "ep_size",
};

struct reader {
    const char *path;
    const cJSON *root;
    enum arch arch;
    struct model_spec *spec;
    struct datafile_meta *meta;
    const cJSON *used[USED_MAX]; /* keys read (or deliberately passed) */
    size_t nused;
    struct diag *d;
};

/* ---- Reading the file ---- */

bool hf_config_is_json(const char *path)
{
    char *buf = NULL;
    size_t n, i = 0;
    struct diag d;
    bool json;
    diag_init(&d);
    if (datafile_read(path, &buf, &n, &d) != STATUS_OK)
        return false;
    while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
                     buf[i] == '\r'))
        i++;
    json = i < n && buf[i] == '{';
    free(buf);
    return json;
}

/* ---- Values and sources ---- */

/* Text from the file as a message may quote it: at most max bytes, control
 * characters as '?' (a newline would split the message's line). */
static const char *quote(const char *text, size_t max, char *buf, size_t size)
{
    size_t i;
    snprintf(buf, size, "%.*s", (int)(max < size ? max : size - 1), text);
    for (i = 0; buf[i]; i++)
        if ((unsigned char)buf[i] < 0x20 || buf[i] == 0x7f)
            buf[i] = '?';
    return buf;
}

/* A JSON value as a message shows it: 7168, "gelu", true, null, an array. */
static void show(const cJSON *it, char *buf, size_t size)
{
    char text[64];
    if (cJSON_IsNumber(it))
        snprintf(buf, size, "%.17g", it->valuedouble);
    else if (cJSON_IsString(it))
        snprintf(buf, size, "\"%s\"",
                 quote(it->valuestring, 60, text, sizeof text));
    else if (cJSON_IsTrue(it))
        snprintf(buf, size, "true");
    else if (cJSON_IsFalse(it))
        snprintf(buf, size, "false");
    else if (cJSON_IsNull(it))
        snprintf(buf, size, "null");
    else if (cJSON_IsArray(it))
        snprintf(buf, size, "an array");
    else
        snprintf(buf, size, "an object");
}

/* The top-level value of key (marked as read), or NULL when absent. */
static const cJSON *take(struct reader *r, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(r->root, key);
    if (it && r->nused < USED_MAX)
        r->used[r->nused++] = it;
    return it;
}

static bool absent(const cJSON *it)
{
    return !it || cJSON_IsNull(it);
}

static long field(const char *section, const char *key)
{
    return datafile_field_index(model_schema(), section, key);
}

static void *slot(struct reader *r, long fi)
{
    return (char *)r->spec + model_schema()->fields[fi].offset;
}

/* Records field fi as given by this file, with "path: <text>" as source. */
__attribute__((format(printf, 3, 4))) static void
source(struct reader *r, long fi, const char *fmt, ...)
{
    char text[2 * DATAFILE_TEXT_MAX];
    char *copy;
    int n = snprintf(text, sizeof text, "%s: ", r->path);
    va_list ap;
    size_t len;
    if (n < 0 || (size_t)n >= sizeof text)
        n = 0;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    va_end(ap);
    len = strlen(text) + 1;
    copy = malloc(len);
    if (copy)
        memcpy(copy, text, len);
    free(r->meta->source[fi]);
    r->meta->source[fi] = copy;
    r->meta->given[fi] = true;
    r->meta->line[fi] = 0;
}

/*
 * The integer at key into *out: false (problem added) when present but not
 * an integer in [min, max]; *found tells whether a number was given
 * (absent and null leave *out alone).
 */
static bool get_int(struct reader *r,
                    const char *key,
                    double min,
                    double max,
                    const char *want,
                    bool *found,
                    long *out)
{
    const cJSON *it = take(r, key);
    char got[96];
    *found = false;
    if (absent(it))
        return true;
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) ||
        it->valuedouble != floor(it->valuedouble) || it->valuedouble < min ||
        it->valuedouble > max) {
        show(it, got, sizeof got);
        diag_add(r->d, STATUS_RANGE, "%s: key '%s': expected %s, got %s",
                 r->path, key, want, got);
        return false;
    }
    *out = (long)it->valuedouble;
    *found = true;
    return true;
}

/*
 * Reads key as an integer into model_schema()'s section.name (its range).
 * Absent or null: an error when required, else def with why as source.
 * Returns whether a value was given.
 */
static bool int_field(struct reader *r,
                      const char *key,
                      const char *section,
                      const char *name,
                      bool required,
                      long def,
                      const char *why)
{
    long fi = field(section, name), v = def;
    const struct datafile_field *f = &model_schema()->fields[fi];
    char want[160];
    bool found;
    datafile_describe(f, want, sizeof want);
    if (!get_int(r, key, f->min, f->max, want, &found, &v))
        return false;
    if (found) {
        *(long *)slot(r, fi) = v;
        source(r, fi, "%s", key);
        return true;
    }
    if (required) {
        diag_add(r->d, STATUS_PARSE, "%s: key '%s': %s (required for %s; %s)",
                 r->path, key,
                 cJSON_GetObjectItemCaseSensitive(r->root, key) ? "null"
                                                                : "missing",
                 arch_info[r->arch].name, want);
        return false;
    }
    *(long *)slot(r, fi) = def;
    source(r, fi, "%s %s", key, why);
    return false;
}

/* A value the architecture implies (no key says it), with why. */
static void fix_long(struct reader *r,
                     const char *section,
                     const char *name,
                     long v,
                     const char *why)
{
    long fi = field(section, name);
    *(long *)slot(r, fi) = v;
    source(r, fi, "%s", why);
}

static void fix_int(struct reader *r,
                    const char *section,
                    const char *name,
                    int v,
                    const char *why)
{
    long fi = field(section, name);
    *(int *)slot(r, fi) = v;
    source(r, fi, "%s", why);
}

static void fix_bool(struct reader *r,
                     const char *section,
                     const char *name,
                     bool v,
                     const char *why)
{
    long fi = field(section, name);
    *(bool *)slot(r, fi) = v;
    source(r, fi, "%s", why);
}

/* The boolean at key; absent or null: def. False on a non-boolean. */
static bool get_bool(struct reader *r, const char *key, bool def, bool *out)
{
    const cJSON *it = take(r, key);
    char got[96];
    *out = def;
    if (absent(it))
        return true;
    if (!cJSON_IsBool(it)) {
        show(it, got, sizeof got);
        diag_add(r->d, STATUS_RANGE,
                 "%s: key '%s': expected true or false, got %s", r->path, key,
                 got);
        return false;
    }
    *out = cJSON_IsTrue(it);
    return true;
}

/* ---- Shared by every architecture ---- */

/* The file's name without folders, ".json" and ".config"; "config" alone
 * names the model by its folder (a downloaded repository's). */
static void model_name(struct reader *r)
{
    char buf[512], *base, *dot;
    long fi = field("model", "name");
    char *name = slot(r, fi);
    size_t size = model_schema()->fields[fi].size;

    snprintf(buf, sizeof buf, "%s", r->path);
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
    snprintf(name, size, "%s", base);
    source(r, fi, "the file's name (config.json names no model)");
}

static void read_common(struct reader *r)
{
    const char *arch = arch_info[r->arch].name;
    const cJSON *act = take(r, "hidden_act");
    char why[160];
    bool tied;

    model_name(r);
    int_field(r, "num_hidden_layers", "model", "layers", true, 0, "");
    int_field(r, "hidden_size", "model", "hidden", true, 0, "");
    int_field(r, "vocab_size", "model", "vocab", true, 0, "");
    int_field(r, "num_attention_heads", "attention", "heads", true, 0, "");
    if (get_bool(r, "tie_word_embeddings", false, &tied)) {
        long fi = field("model", "tied_embeddings");
        *(bool *)slot(r, fi) = tied;
        if (cJSON_GetObjectItemCaseSensitive(r->root, "tie_word_embeddings"))
            source(r, fi, "tie_word_embeddings");
        else
            source(r, fi,
                   "tie_word_embeddings absent: false, the default of "
                   "%s's configuration class",
                   arch);
    }
    /* Every class here builds a gated MLP, act(gate(x)) * up(x) then down:
     * with SiLU that is SwiGLU, three matrices. Another activation keeps
     * the shapes but is not what the model's names say: refuse it. */
    if (!absent(act) &&
        (!cJSON_IsString(act) || strcmp(act->valuestring, "silu") != 0)) {
        char got[96];
        show(act, got, sizeof got);
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'hidden_act': %s is not modelled (only \"silu\": "
                 "the SwiGLU MLP)",
                 r->path, got);
    }
    snprintf(why, sizeof why, "%s hidden_act silu: gated SiLU MLP (%s)",
             absent(act) ? "absent:" : "", arch_info[r->arch].modeling);
    fix_int(r, "ffn", "activation", MODEL_SWIGLU, why);
    snprintf(why, sizeof why, "%s uses RMSNorm (%s)", arch,
             arch_info[r->arch].modeling);
    fix_int(r, "model", "norm", MODEL_RMSNORM, why);
    fix_long(r, "model", "max_positions", 0,
             "RoPE: no learned position embeddings");
}

/* layer_types (newer transformers): every layer full causal attention. */
static void check_layer_types(struct reader *r)
{
    const cJSON *types = take(r, "layer_types"), *it;
    int i = 0;
    if (absent(types))
        return;
    if (!cJSON_IsArray(types)) {
        char got[96];
        show(types, got, sizeof got);
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
            show(it, got, sizeof got);
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
static void check_window(struct reader *r)
{
    bool on;
    if (r->arch == ARCH_QWEN2 || r->arch == ARCH_QWEN3 ||
        r->arch == ARCH_QWEN3_MOE) {
        take(r, "sliding_window");
        take(r, "max_window_layers");
        if (get_bool(r, "use_sliding_window", false, &on) && on)
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'use_sliding_window': true: sliding-window "
                     "attention is not modelled (only full causal attention)",
                     r->path);
    } else if (r->arch == ARCH_MIXTRAL) {
        const cJSON *w = take(r, "sliding_window");
        if (!absent(w)) {
            char got[96];
            show(w, got, sizeof got);
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
static void read_biases(struct reader *r)
{
    bool att = false, mlp = false;
    const char *arch = arch_info[r->arch].name;
    char why[200];

    if (r->arch == ARCH_QWEN2) {
        snprintf(why, sizeof why,
                 "Qwen2 q/k/v projections carry biases, o_proj and MLP none "
                 "(%s)",
                 arch_info[r->arch].modeling);
        fix_bool(r, "model", "linear_bias", false, why);
        fix_bool(r, "attention", "qkv_bias", true, why);
        return;
    }
    if (r->arch != ARCH_MIXTRAL)
        get_bool(r, "attention_bias", false, &att);
    if (r->arch == ARCH_LLAMA)
        get_bool(r, "mlp_bias", false, &mlp);
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
    fix_bool(r, "model", "linear_bias", att && mlp, why);
    fix_bool(r, "attention", "qkv_bias", false, why);
}

/* GQA/MHA: key/value heads, head dimension, QK-norm. */
static void read_gqa(struct reader *r)
{
    struct model_spec *s = r->spec;
    long kv = 0;
    bool found;
    char want[64];

    snprintf(want, sizeof want, "an integer in 1..%ld",
             s->heads > 0 ? s->heads : 100000);
    if (get_int(r, "num_key_value_heads", 1,
                s->heads > 0 ? (double)s->heads : 1e5, want, &found, &kv)) {
        if (!found)
            kv = s->heads;
        if (s->heads > 0 && kv > 0 && s->heads % kv != 0)
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'num_key_value_heads': must divide "
                     "num_attention_heads (%ld), got %ld",
                     r->path, s->heads, kv);
        fix_int(r, "attention", "type", kv == s->heads ? MODEL_MHA : MODEL_GQA,
                found ? "num_key_value_heads (= heads: MHA; fewer: GQA)"
                      : "num_key_value_heads absent: as many as heads (MHA)");
        if (kv == s->heads)
            fix_long(r, "attention", "kv_heads", 0,
                     "MHA: key/value heads as attention.heads");
        else
            fix_long(r, "attention", "kv_heads", kv, "num_key_value_heads");
    }
    int_field(r, "head_dim", "attention", "head_dim", false, 0,
              "absent: hidden_size / num_attention_heads");
    fix_long(r, "attention", "q_lora_rank", 0, "not MLA");
    fix_long(r, "attention", "kv_lora_rank", 0, "not MLA");
    fix_long(r, "attention", "qk_nope_head_dim", 0, "not MLA");
    fix_long(r, "attention", "qk_rope_head_dim", 0, "not MLA");
    fix_long(r, "attention", "v_head_dim", 0, "not MLA");
    fix_bool(r, "attention", "qk_norm",
             r->arch == ARCH_QWEN3 || r->arch == ARCH_QWEN3_MOE,
             r->arch == ARCH_QWEN3 || r->arch == ARCH_QWEN3_MOE
                 ? "Qwen3: RMSNorm over each query and key head (q_norm, "
                   "k_norm)"
                 : "no QK-norm in this architecture");
    if (r->arch == ARCH_QWEN3 || r->arch == ARCH_QWEN3_MOE) {
        /* Qwen3-Coder's config carries these; transformers' Qwen3 classes
         * do not read them (q/k norms always, biases by attention_bias). */
        take(r, "use_qk_norm");
        take(r, "qkv_bias");
    }
}

static void read_mla(struct reader *r)
{
    fix_int(r, "attention", "type", MODEL_MLA,
            "DeepseekV3: multi-head latent attention");
    int_field(r, "q_lora_rank", "attention", "q_lora_rank", false, 0,
              "null: no query compression");
    if (!cJSON_GetObjectItemCaseSensitive(r->root, "q_lora_rank"))
        diag_add(r->d, STATUS_PARSE,
                 "%s: key 'q_lora_rank': missing (required for %s; a number, "
                 "or null for no query compression)",
                 r->path, arch_info[r->arch].name);
    int_field(r, "kv_lora_rank", "attention", "kv_lora_rank", true, 0, "");
    int_field(r, "qk_nope_head_dim", "attention", "qk_nope_head_dim", true, 0,
              "");
    int_field(r, "qk_rope_head_dim", "attention", "qk_rope_head_dim", true, 0,
              "");
    int_field(r, "v_head_dim", "attention", "v_head_dim", true, 0, "");
    /* MLA's key/value heads are the query heads; transformers' class keeps
     * num_key_value_heads (and head_dim = the RoPE width) unused here. */
    take(r, "num_key_value_heads");
    take(r, "head_dim");
    fix_long(r, "attention", "kv_heads", 0, "MLA: not used");
    fix_long(r, "attention", "head_dim", 0, "MLA: not used");
    fix_bool(r, "attention", "qk_norm", false, "MLA: latent RMSNorms only");
}

/* No MoE: the [moe] fields are zero. */
static void dense_moe_fields(struct reader *r, const char *why)
{
    fix_long(r, "moe", "routed_experts", 0, why);
    fix_long(r, "moe", "shared_experts", 0, why);
    fix_long(r, "moe", "top_k", 0, why);
    fix_long(r, "moe", "expert_width", 0, why);
    fix_long(r, "moe", "first_dense_layers", 0, why);
    fix_long(r, "moe", "node_limit", 0, why);
}

static void check_top_k(struct reader *r)
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
static void read_qwen3_moe(struct reader *r)
{
    struct model_spec *s = r->spec;
    const cJSON *only = take(r, "mlp_only_layers"), *it;
    const cJSON *shared = take(r, "shared_expert_intermediate_size");
    long step = 1, k = 0, i = 0;
    bool found;

    int_field(r, "num_experts", "moe", "routed_experts", true, 0, "");
    int_field(r, "num_experts_per_tok", "moe", "top_k", true, 0, "");
    int_field(r, "moe_intermediate_size", "moe", "expert_width", true, 0, "");
    int_field(r, "intermediate_size", "ffn", "width", true, 0, "");
    fix_long(r, "moe", "shared_experts", 0, "Qwen3Moe: no shared experts");
    fix_long(r, "moe", "node_limit", 0, "Qwen3Moe: no node-limited routing");
    if (get_int(r, "decoder_sparse_step", 1, 1e4, "an integer in 1..10000",
                &found, &step) &&
        step != 1)
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'decoder_sparse_step': %ld (MoE on every %ldth "
                 "layer) is not modelled; only 1 (every layer MoE, but for "
                 "leading dense layers)",
                 r->path, step, step);
    /* Qwen3-Coder's config has it at 0; transformers' class builds no
     * shared expert whatever it says, and a size would suggest one. */
    if (!absent(shared) &&
        (!cJSON_IsNumber(shared) || shared->valuedouble != 0)) {
        char got[96];
        show(shared, got, sizeof got);
        diag_add(r->d, STATUS_RANGE,
                 "%s: key 'shared_expert_intermediate_size': %s: shared "
                 "experts are not built by Qwen3MoeForCausalLM (only 0)",
                 r->path, got);
    }
    if (!absent(only)) {
        if (!cJSON_IsArray(only)) {
            char got[96];
            show(only, got, sizeof got);
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
                show(it, got, sizeof got);
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
    fix_long(r, "moe", "first_dense_layers", k,
             k ? "mlp_only_layers (a leading run of dense layers)"
               : "mlp_only_layers empty: every layer MoE");
    check_top_k(r);
}

static void read_mixtral(struct reader *r)
{
    int_field(r, "num_local_experts", "moe", "routed_experts", true, 0, "");
    int_field(r, "num_experts_per_tok", "moe", "top_k", true, 0, "");
    int_field(r, "intermediate_size", "moe", "expert_width", true, 0, "");
    fix_long(r, "ffn", "width", 0, "Mixtral: every layer MoE, no dense FFN");
    fix_long(r, "moe", "shared_experts", 0, "Mixtral: no shared experts");
    fix_long(r, "moe", "first_dense_layers", 0, "Mixtral: every layer MoE");
    fix_long(r, "moe", "node_limit", 0, "Mixtral: no node-limited routing");
    check_top_k(r);
}

/*
 * DeepSeek-V3: routed and shared experts after first_k_dense_replace dense
 * layers, MoE on every layer after (moe_layer_freq 1), group-limited
 * routing (a token's experts in at most topk_group of n_group groups).
 * Groups are taken as nodes, as DeepSeek deploys them (arXiv 2412.19437
 * §2.1.2: 8 groups, at most 4 nodes per token).
 */
static void read_deepseek_moe(struct reader *r)
{
    struct model_spec *s = r->spec;
    long freq = 1, groups = 8, top_groups = 4;
    bool found, g1, g2;
    const cJSON *routed;

    int_field(r, "intermediate_size", "ffn", "width", true, 0, "");
    routed = cJSON_GetObjectItemCaseSensitive(r->root, "n_routed_experts");
    if (absent(routed)) {
        take(r, "n_routed_experts");
        take(r, "n_shared_experts");
        take(r, "num_experts_per_tok");
        take(r, "moe_intermediate_size");
        take(r, "first_k_dense_replace");
        take(r, "moe_layer_freq");
        take(r, "n_group");
        take(r, "topk_group");
        dense_moe_fields(r, "n_routed_experts null: dense model");
        return;
    }
    int_field(r, "n_routed_experts", "moe", "routed_experts", true, 0, "");
    int_field(r, "n_shared_experts", "moe", "shared_experts", true, 0, "");
    int_field(r, "num_experts_per_tok", "moe", "top_k", true, 0, "");
    int_field(r, "moe_intermediate_size", "moe", "expert_width", true, 0, "");
    int_field(r, "first_k_dense_replace", "moe", "first_dense_layers", true, 0,
              "");
    if (get_int(r, "moe_layer_freq", 1, 1e4, "an integer in 1..10000", &found,
                &freq) &&
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
    g1 = get_int(r, "n_group", 1, 1e5, "an integer in 1..100000", &found,
                 &groups);
    g2 = get_int(r, "topk_group", 1, 1e5, "an integer in 1..100000", &found,
                 &top_groups);
    if (g1 && g2) {
        if (top_groups > groups)
            diag_add(r->d, STATUS_RANGE,
                     "%s: key 'topk_group': expected at most n_group (%ld), "
                     "got %ld",
                     r->path, groups, top_groups);
        fix_long(r, "moe", "node_limit",
                 groups > 1 && top_groups < groups ? top_groups : 0,
                 groups > 1 && top_groups < groups
                     ? "topk_group of n_group expert groups, a group per node "
                       "(arXiv 2412.19437 §2.1.2)"
                     : "n_group/topk_group: no group limit");
        /* DeepseekV3's gate picks groups by the sum of their top-2 expert
         * scores, so every picked group (node) receives experts. */
        fix_int(r, "moe", "node_routing",
                groups > 1 && top_groups < groups ? MODEL_ROUTING_AFFINITY
                                                  : MODEL_ROUTING_UNIFORM,
                "DeepseekV3 gate: groups picked by their top-2 expert "
                "affinities (arXiv 2412.19437 §2.1.2)");
    }
    check_top_k(r);
}

/* ---- The file ---- */

static bool read_past_key(const char *key)
{
    size_t i;
    for (i = 0; i < sizeof read_past / sizeof *read_past; i++)
        if (strcmp(key, read_past[i]) == 0)
            return true;
    return false;
}

/* architectures[0], else model_type. */
static bool find_arch(struct reader *r)
{
    const cJSON *list =
        cJSON_GetObjectItemCaseSensitive(r->root, "architectures");
    const cJSON *type = cJSON_GetObjectItemCaseSensitive(r->root, "model_type");
    const cJSON *first =
        cJSON_IsArray(list) ? cJSON_GetArrayItem(list, 0) : NULL;
    int a;
    char got[96];

    if (!absent(list)) {
        if (!cJSON_IsString(first)) {
            show(first ? first : list, got, sizeof got);
            diag_add(r->d, STATUS_PARSE,
                     "%s: key 'architectures': expected a list of class "
                     "names, got %s",
                     r->path, got);
            return false;
        }
        for (a = 0; a < ARCHS; a++)
            if (strcmp(first->valuestring, arch_info[a].name) == 0)
                break;
        if (a == ARCHS) {
            diag_add(r->d, STATUS_PARSE,
                     "%s: key 'architectures': \"%s\" is not supported "
                     "(supported: " HF_CONFIG_SUPPORTED ")",
                     r->path, quote(first->valuestring, 80, got, sizeof got));
            return false;
        }
        r->arch = (enum arch)a;
        return true;
    }
    if (cJSON_IsString(type)) {
        for (a = 0; a < ARCHS; a++)
            if (strcmp(type->valuestring, arch_info[a].model_type) == 0)
                break;
        if (a == ARCHS) {
            diag_add(r->d, STATUS_PARSE,
                     "%s: key 'model_type': \"%s\" is not supported "
                     "(supported: " HF_CONFIG_SUPPORTED ")",
                     r->path, quote(type->valuestring, 80, got, sizeof got));
            return false;
        }
        r->arch = (enum arch)a;
        return true;
    }
    diag_add(r->d, STATUS_PARSE,
             "%s: key 'architectures': missing, and no model_type "
             "(supported: " HF_CONFIG_SUPPORTED ")",
             r->path);
    return false;
}

/* Every top-level key once; every key known or read past. */
static void check_keys(struct reader *r, bool after_reading)
{
    const cJSON *it, *other;
    size_t i;
    char key[96];
    cJSON_ArrayForEach(it, r->root)
    {
        bool used = false;
        quote(it->string, 80, key, sizeof key);
        if (!after_reading) {
            for (other = r->root->child; other != it; other = other->next)
                if (strcmp(other->string, it->string) == 0)
                    diag_add(r->d, STATUS_PARSE, "%s: key '%s': given twice",
                             r->path, key);
            continue;
        }
        for (i = 0; i < r->nused && !used; i++)
            used = r->used[i] == it;
        if (!used && !read_past_key(it->string))
            diag_add(r->d, STATUS_PARSE,
                     "%s: key '%s': not understood for %s (it may describe "
                     "a feature roofplan does not model; supported: "
                     "" HF_CONFIG_SUPPORTED ")",
                     r->path, key, arch_info[r->arch].name);
    }
}

/* "path:LINE: invalid JSON ..." from the offset cJSON stopped at. */
static void syntax_error(const char *path,
                         const char *text,
                         size_t len,
                         const char *end,
                         struct diag *d)
{
    size_t at =
        end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    size_t i, start = 0, stop;
    long line = 1;
    char near[48];
    for (i = 0; i < at; i++)
        if (text[i] == '\n') {
            line++;
            start = i + 1;
        }
    stop = at;
    while (stop < len && stop - at < 24 && text[stop] != '\n' &&
           text[stop] != '\r' && text[stop] != '\0')
        stop++;
    snprintf(near, sizeof near, "%.*s", (int)(stop - at), text + at);
    for (i = 0; near[i]; i++)
        if ((unsigned char)near[i] < 0x20)
            near[i] = ' ';
    if (at >= len)
        diag_add(d, STATUS_PARSE,
                 "%s:%ld: invalid JSON: unexpected end of file (column %zu)",
                 path, line, at - start + 1);
    else
        diag_add(d, STATUS_PARSE, "%s:%ld: invalid JSON at column %zu: \"%s\"",
                 path, line, at - start + 1, near);
}

enum status hf_config_read(const char *path,
                           struct model_spec *spec,
                           struct datafile_meta *meta,
                           struct diag *d)
{
    struct reader r;
    char *text = NULL;
    size_t len = 0;
    const char *end = NULL;
    cJSON *root;
    enum status st;

    memset(meta, 0, sizeof *meta);
    snprintf(meta->path, sizeof meta->path, "%s", path);
    meta->schema = model_schema();
    st = datafile_read(path, &text, &len, d);
    if (st != STATUS_OK)
        return st;
    if (memchr(text, '\0', len)) {
        const char *nul = memchr(text, '\0', len), *c;
        long line = 1;
        for (c = text; c < nul; c++)
            line += *c == '\n';
        diag_add(d, STATUS_PARSE, "%s:%ld: holds a NUL byte (not a text file?)",
                 path, line);
        free(text);
        return d->status;
    }
    /* The end pointer, not cJSON_GetErrorPtr(): that is a global, and
     * loading may run beside other threads' parsing. The length includes
     * the terminating NUL, which require_null_terminated looks for. */
    root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    if (!root) {
        syntax_error(path, text, len, end, d);
        free(text);
        diag_finish(d);
        return d->status;
    }
    memset(&r, 0, sizeof r);
    r.path = path;
    r.root = root;
    r.spec = spec;
    r.meta = meta;
    r.d = d;
    if (!cJSON_IsObject(root)) {
        diag_add(d, STATUS_PARSE,
                 "%s: expected a JSON object (a transformers config.json)",
                 path);
        goto done;
    }
    if (cJSON_GetArraySize(root) > KEYS_MAX) {
        diag_add(d, STATUS_PARSE,
                 "%s: %d top-level keys (at most %d): not a transformers "
                 "config.json",
                 path, cJSON_GetArraySize(root), KEYS_MAX);
        goto done;
    }
    check_keys(&r, false);
    if (!find_arch(&r))
        goto done;
    read_common(&r);
    read_biases(&r);
    if (r.arch == ARCH_DEEPSEEK_V3) {
        read_mla(&r);
        read_deepseek_moe(&r);
        int_field(&r, "num_nextn_predict_layers", "mtp", "depth", false, 0,
                  "absent: no MTP modules");
    } else {
        read_gqa(&r);
        check_window(&r);
        if (r.arch == ARCH_QWEN3_MOE)
            read_qwen3_moe(&r);
        else if (r.arch == ARCH_MIXTRAL)
            read_mixtral(&r);
        else {
            int_field(&r, "intermediate_size", "ffn", "width", true, 0, "");
            dense_moe_fields(&r, "dense model");
        }
        fix_long(&r, "mtp", "depth", 0, "no MTP modules in this architecture");
    }
    check_keys(&r, true);
done:
    cJSON_Delete(root);
    free(text);
    diag_finish(d);
    return d->status;
}
