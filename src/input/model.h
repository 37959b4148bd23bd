/*
 * model: a transformer architecture from a model data file (INI, or a
 * Hugging Face config.json with a training recipe): the schema, loading
 * and the checks across fields, and struct model, which every later stage
 * reads.
 *
 * Owns: struct model_spec (the file as read), struct model and its
 * layer kinds. Loading calls datafile (the INI reader), hf_config (a
 * config.json) and model_derive (model_derive.h), which fills the derived
 * numbers: parameters and FLOPs per layer kind and per token, and through
 * model_inventory the saved-activation inventory. The split of the layers
 * into pipeline chunks is model_partition's. This header includes those
 * two parts' headers (their types sit in struct model and in the plan's
 * and cost's structs), so a caller of the model includes model.h alone.
 *
 * Everything here is independent of the cluster and of the parallel plan
 * (except the chunk split, which takes the number of chunks). Plans are
 * evaluated by cost.c from these numbers. All FLOPs count 2 per
 * multiply-add; "per token" means per token of the global batch.
 */
#ifndef PROJ_MODEL_H
#define PROJ_MODEL_H

#include <stdbool.h>
#include <stddef.h>

#include "datafile.h"
#include "diag.h"
#include "model_inventory.h"
#include "model_partition.h"
#include "model_pattern.h"

enum model_attention { MODEL_MHA, MODEL_GQA, MODEL_MLA };
/* Under moe.node_limit M, the nodes one token's routed experts reach:
 * drawn uniformly among the experts of M nodes, or every one of the M
 * (nodes chosen by their experts' affinity, as DeepSeek-V3 does). */
enum model_node_routing { MODEL_ROUTING_UNIFORM, MODEL_ROUTING_AFFINITY };
/* The FFN's activation: SwiGLU (gated, 3 matrices), GeLU and squared ReLU
 * (Nemotron-H's relu2; both 2 matrices). */
enum model_activation { MODEL_SWIGLU, MODEL_GELU, MODEL_RELU2 };
enum model_norm { MODEL_RMSNORM, MODEL_LAYERNORM };

/* The model file, as read (see data/README.md for meaning and units). */
struct model_spec {
    char name[128];
    long layers;
    /* layers.pattern: each layer's mixer and MLP (model_pattern.h); ""
     * when the layers are the blocks moe.first_dense_layers gives */
    char pattern[MODEL_PATTERN_MAX];
    long hidden;
    long vocab;
    bool tied_embeddings;
    long max_positions; /* learned position embeddings; 0 = none (RoPE) */
    int norm;           /* enum model_norm */
    bool linear_bias;
    bool dropout;
    bool flash_attention;
    int attention; /* enum model_attention */
    long heads;
    long kv_heads;    /* GQA */
    long head_dim;    /* MHA, GQA */
    long q_lora_rank; /* MLA; 0 = no query compression */
    long kv_lora_rank;
    long qk_nope_head_dim;
    long qk_rope_head_dim;
    long v_head_dim;
    bool qk_norm;          /* RMSNorm over each query and key head (Qwen3) */
    bool qkv_bias;         /* q/k/v projections carry biases (Qwen2) */
    long window;           /* sliding-window layers: keys a query sees */
    long chunk;            /* chunked-attention layers: tokens per chunk */
    bool sinks;            /* a learned sink logit per head (GPT-OSS) */
    bool output_gate;      /* a sigmoid gate on the attention output, its
                            * weights beside the queries' (Qwen3-Next) */
    double rope_fraction;  /* share of the q/k head width RoPE rotates */
    long index_heads;      /* sparse layers: the indexer's heads */
    long index_head_dim;   /* its head width */
    long index_topk;       /* keys each query attends to */
    long linear_key_heads; /* linear-attention (Gated DeltaNet) layers */
    long linear_value_heads;
    long linear_key_dim;   /* per head */
    long linear_value_dim; /* per head */
    long linear_conv;      /* causal convolution width (taps) */
    long linear_chunk;     /* tokens per chunk of the chunked scan */
    long ssm_heads;        /* state-space (Mamba-2) layers */
    long ssm_head_dim;
    long ssm_state;      /* state size N per head */
    long ssm_groups;     /* groups sharing B and C */
    long ssm_conv;       /* causal convolution width (taps) */
    long ssm_chunk;      /* tokens per chunk of the SSD scan */
    int activation;      /* enum model_activation */
    long ffn_width;      /* dense FFN intermediate size */
    long routed_experts; /* 0 = dense model */
    long shared_experts;
    long top_k;
    long expert_width; /* intermediate size of one expert */
    long first_dense_layers;
    long node_limit; /* a token's experts on at most this many nodes; 0 = any */
    int node_routing;      /* enum model_node_routing: nodes a token reaches */
    long mtp_depth;        /* MTP modules, trained (run) whenever > 0 */
    bool mtp_count_in_mfu; /* flops_per_token includes the MTP modules */
    long seq_len;
    double tokens;     /* training budget */
    long global_batch; /* sequences */
    double weight_bytes;
    double grad_bytes;
    double grad_comm_bytes;
    double master_bytes;
    double moment_bytes;
    double activation_bytes;
    double logits_bytes;
    struct datafile_list selective; /* modules `selective` recomputes */
    bool fp8_attention_proj;
    bool fp8_ffn;
    bool fp8_experts;
    bool fp8_head;
    bool fp8_router;
    bool fp8_cache_linear_inputs;
    bool fp8_cache_swiglu_inputs;
    bool fp8_recompute_swiglu_output;
    double fp8_cache_bytes;
    double fp8_attn_out_bytes;
    double fp8_weight_cache_bytes; /* FP8 copies kept per FP8-run weight */
    double dispatch_bytes;
    double combine_bytes;
    double dispatch_grad_bytes;
    double combine_grad_bytes;
    int fp8_scaling; /* calibration_fp8_scaling: tensor, fine, row, block */
    int fp8_amax;    /* enum model_fp8_amax: a per-tensor scale's amax */
};

/* Where a per-tensor FP8 scale's amax comes from: the history of earlier
 * steps, found by the cast kernel as it casts (Transformer Engine's
 * DelayedScaling), or the tensor itself in a pass of its own before the
 * cast (Float8CurrentScaling: the tensor is read twice). */
enum model_fp8_amax { MODEL_FP8_AMAX_DELAYED, MODEL_FP8_AMAX_CURRENT };

/* Per layer kind (dense, MoE, MTP module): everything per token
 * (model_derive; the saved bytes model_inventory's). */
struct model_layer {
    double params_dense; /* non-expert: attention, norms, FFN, shared, router */
    double params_expert;     /* routed experts */
    double params_fp8;        /* non-expert params the FP8 recipe runs in FP8 */
    double params_fp8_expert; /* routed-expert params run in FP8 */
    double params_active;     /* used by one token */
    double fwd_fp8;           /* fwd FLOPs/token of FP8-eligible GEMMs */
    double fwd_other;         /* fwd FLOPs/token always in BF16 */
    double fwd_linear;        /* fwd FLOPs/token of all GEMMs (weight grads) */
    double recompute_fp8[MODEL_RECOMPUTES]; /* extra fwd FLOPs/token */
    double recompute_other[MODEL_RECOMPUTES];
    /* Of recompute_other, the attention core's forward (QK^T and PV) the
     * recomputation reruns, FLOPs/token: its kernel, timed at the
     * attention's forward rate, not a GEMM's. */
    double recompute_core[MODEL_RECOMPUTES];
    /* The s x s traffic of an unfused attention (of ew_fwd's copies,
     * bytes/token) that a selective recomputation of the core reruns
     * (full reruns all of ew_fwd: expected_compute.c). */
    double recompute_scores;
    double act_bytes[MODEL_PRECISIONS][MODEL_RECOMPUTES]; /* saved, /token */
    /* of act_bytes, outside tensor-parallel regions (replicated over tp
     * without sequence parallelism) */
    double act_rep[MODEL_PRECISIONS][MODEL_RECOMPUTES];
    /* Backward working set of this layer, bytes per token: the tensors
     * recomputation rematerialises for it (act_bytes under `none` less
     * under the policy) and the gradient of its largest tensor, which
     * coexists with that tensor; work_rep: of it, outside TP regions. */
    double work_bytes[MODEL_PRECISIONS][MODEL_RECOMPUTES];
    double work_rep[MODEL_PRECISIONS][MODEL_RECOMPUTES];
    double tp_collectives; /* TP all-gathers + reduce-scatters per pass */
    /* With sequence parallelism Megatron-LM keeps a column-parallel
     * GEMM's input as its shard and all-gathers it again in backward
     * for the weight gradient: those all-gathers per backward pass, and
     * the forward FLOPs per token of the GEMMs they feed (the input
     * gradient GEMM each is issued under) */
    double tp_regathers;
    double regather_fwd;
    double tp_recompute[MODEL_RECOMPUTES]; /* TP ones the recompute redoes */
    bool ep_recompute[MODEL_RECOMPUTES];   /* MoE all-to-alls redone */
    double kv_elems; /* K and V elements per token (context parallel) */
    /* A scan layer's (linear attention, SSM) state, elements per
     * sequence, that context parallelism passes rank to rank. */
    double state_elems;
    /* For the expected time: forward GEMM FLOPs/token by class (they sum
     * to fwd_linear), the attention core's (QK^T and PV, causal), and the
     * forward's elementwise traffic by kernel kind, bytes/token: norms,
     * residual adds, the activation function, RoPE (model_derive.c says
     * how). */
    double gemm_fwd[MODEL_GEMMS];
    double core_fwd;
    /* the chunked scans' FLOPs/token (linear attention, SSD), by kernel
     * class (model_inventory.h), with their causal convolutions */
    double scan_fwd[MODEL_SCANS];
    double ew_fwd[MODEL_EWS];
    /* The FP8 GEMMs' operands the recipe casts, elements per token at
     * the layer's full width: the forward's inputs (cast_in) and the
     * backward's output gradients (cast_grad); of them, cast_*_sp the
     * ones sequence parallelism all-gathers (column-parallel inputs,
     * row-parallel output gradients), the rest TP-split or local. */
    double cast_in, cast_in_sp, cast_grad, cast_grad_sp;
    bool moe;  /* routed experts (all-to-alls, a chunk's MoE layers) */
    bool mtp;  /* an MTP module: outside the main model's params and MFU
                * FLOPs, runs the shared output head again */
    int mixer; /* enum model_mixer */
    int mlp;   /* enum model_mlp */
};

struct model {
    struct model_spec spec;
    struct datafile_meta meta;
    /* Derived at load (model_pattern, model_derive, model_inventory): */
    struct model_layer layer[MODEL_LAYER_KINDS]; /* by model_layer_kind;
                                                  * built where units
                                                  * have the kind */
    long units;                                  /* layers + MTP modules */
    unsigned char unit_kind[MODEL_UNITS_MAX];    /* each unit's kind */
    long kind_units[MODEL_LAYER_KINDS];          /* units of each kind */
    char kind_name[MODEL_LAYER_KINDS][48]; /* "sliding-window MoE layer" */
    int mtp_mixer, mtp_mlp;  /* an MTP module's block: the last layer's
                              * attention, the main model's MLP kind */
    double params_embedding; /* token (+ position) embedding */
    double params_head;      /* output head (0 when tied) */
    double params_final_norm;
    double params_total;  /* main model, MTP excluded */
    double params_active; /* main model, per token */
    double params_mtp;    /* unique MTP params (0 when no MTP) */
    double params_mtp_active;
    double head_fwd; /* FLOPs/token of the output head */
    /* Model FLOPs fwd+bwd per token. What MFU counts is a convention of
     * the model file (mtp.count_in_mfu: DeepSeek's 250 GFLOP/token leaves
     * MTP out); what runs always includes the MTP modules. */
    double flops_per_token;      /* counted by MFU */
    double flops_per_token_run;  /* run: main model + MTP modules */
    double flops_per_token_main; /* main model alone */
    double flops_per_token_mtp;  /* MTP modules alone (0 when depth 0) */
    double flops_per_token_fp8;  /* of flops_per_token, FP8-recipe GEMMs */
    double attn_head_dim;        /* the attention kernel's q/k head width */
    double attn_v_head_dim;      /* its value (v) head width */
    struct model_tensor tensor[MODEL_TENSORS_MAX];
    size_t tensors;
    unsigned selective; /* modules `selective` recomputes (bit mask) */
};

/*
 * The schema of model files ([model], [attention], [ffn], [moe], [mtp],
 * [training], [fp8]: the architecture and its training recipe): every
 * section and key with its type, range, unit and default; for loading,
 * `check` and data/README.md. Static: never NULL.
 */
const struct datafile_schema *model_schema(void);

/*
 * Loads the model file at path (applying --set overrides for its sections)
 * and derives parameters, FLOPs and the activation inventory. Cross-field
 * problems (GQA heads not dividing, top_k > experts, ...) are reported
 * with the line of the offending key. On failure m is released.
 * Release a loaded model with model_release(). A Hugging Face config.json
 * needs a training recipe: load it with model_load_with_training() (here it
 * is STATUS_USAGE).
 */
enum status model_load(const char *path,
                       struct model *m,
                       struct datafile_set *sets,
                       size_t nsets,
                       struct diag *d);

/*
 * Loads a model as model_load() does, from an INI model file or from a
 * Hugging Face config.json (hf_config_is_json(): its first byte after
 * blanks is '{'). A config.json gives the architecture (hf_config_read());
 * everything it does not say (the fields for which model_field_is_training()
 * is true: [training], [fp8], model.dropout, model.flash_attention,
 * mtp.enabled) comes from the training recipe at training_path, an INI
 * file of those sections only. training_path is not read for an INI model
 * file and may be NULL then; a config.json without one is STATUS_USAGE.
 * --set reaches the recipe's keys; one aimed at the architecture of a
 * config.json is STATUS_USAGE ("edit the file"). m->meta.path is path;
 * each recipe field's source names the recipe file and its line.
 */
enum status model_load_with_training(const char *path,
                                     const char *training_path,
                                     struct model *m,
                                     struct datafile_set *sets,
                                     size_t nsets,
                                     struct diag *d);

/*
 * Checks a training recipe file alone (for roofplan check): its sections,
 * keys and values, as model_load_with_training() would read them.
 */
enum status model_check_training(const char *path,
                                 struct datafile_set *sets,
                                 size_t nsets,
                                 struct diag *d);

/*
 * Whether model_schema()'s field i (0 .. model_schema()->n - 1) belongs to the
 * training recipe rather than the architecture.
 */
bool model_field_is_training(size_t i);

/* Frees what m owns (its metadata); m itself is the caller's. */
void model_release(struct model *m);

/*
 * Kind of unit u (0 .. units-1): the layers in the model's order (its
 * pattern, or dense layers then MoE layers), then its MTP modules. A u
 * past the last unit is of the last unit's kind.
 */
enum model_layer_kind model_unit_kind(const struct model *m, long u);

/* Words for a reader: "dense layer", "MoE layer", "MTP module",
 * "sliding-window MoE layer", "Mamba-2 block", ... (m's, as long as m). */
const char *model_layer_kind_name(const struct model *m,
                                  enum model_layer_kind k);

/* How many units of kind k m has (0 when it has none, e.g. MoE layers of
 * a dense model). */
long model_layer_kind_count(const struct model *m, enum model_layer_kind k);

#endif
