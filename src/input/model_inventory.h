/*
 * model_inventory: the per-tensor inventory of what one transformer layer
 * saves for its backward pass, per token (Korthikanti et al. 2022 §4,
 * extended to GQA, MLA, SwiGLU and MoE), and what it costs in bytes under
 * a precision and a recompute policy.
 *
 * Owns: the precision and recompute axes every saved-activation number is
 * kept along, struct model_tensor (the model's tensor list) and each layer
 * kind's saved bytes and backward working set (model_layer's act_bytes,
 * act_rep, work_bytes, work_rep). Calls nothing: it reads the model's spec
 * and recompute selection. model_derive builds the list and asks for the
 * bytes; the workbook's Memory sheet shows the list. Knows no plan: the
 * tensor-parallel and pipeline splits are memory.c's.
 */
#ifndef PROJ_MODEL_INVENTORY_H
#define PROJ_MODEL_INVENTORY_H

#include <stdbool.h>

struct model;
struct model_layer;

enum model_precision { MODEL_BF16, MODEL_FP8, MODEL_PRECISIONS };

/* The GEMMs of a layer by kind, for the expected time's measured rates
 * (calibration.h maps each to a measured class). */
enum model_gemm {
    MODEL_GEMM_ATTN,        /* attention projections (MLA's five) */
    MODEL_GEMM_DENSE_UP,    /* dense FFN up (+ gate) */
    MODEL_GEMM_DENSE_DOWN,  /* dense FFN down */
    MODEL_GEMM_EXPERT_UP,   /* routed experts' up (+ gate), top_k of them */
    MODEL_GEMM_EXPERT_DOWN, /* routed experts' down */
    MODEL_GEMM_SHARED_UP,   /* shared experts' up (+ gate) */
    MODEL_GEMM_SHARED_DOWN, /* shared experts' down */
    MODEL_GEMM_ROUTER,      /* the router's logits */
    MODEL_GEMM_HEAD,        /* the output head (and MTP's run of it) */
    MODEL_GEMMS
};

/* Elementwise traffic of a layer by the kind of kernel that moves it
 * (calibration.h measures each's bandwidth). */
enum model_ew {
    MODEL_EW_NORM,       /* RMSNorm / LayerNorm */
    MODEL_EW_ACTIVATION, /* SwiGLU / GeLU */
    MODEL_EW_COPY,       /* residual adds, RoPE: streaming read + write */
    MODEL_EW_LOSS,       /* softmax over the vocabulary: a reduction */
    MODEL_EWS
};

/* The chunked scans of linear-attention and state-space layers, by the
 * kernel that runs them (calibration.h's scan rates time each). */
enum model_scan {
    MODEL_SCAN_LINEAR, /* Gated DeltaNet's chunked delta rule */
    MODEL_SCAN_SSD,    /* Mamba-2's chunked state-space scan (SSD) */
    MODEL_SCANS
};

enum model_recompute {
    MODEL_RECOMPUTE_NONE,
    MODEL_RECOMPUTE_SELECTIVE,
    MODEL_RECOMPUTE_FULL,
    MODEL_RECOMPUTES
};

/* What kind of tensor a saved tensor is (for display: the workbook's
 * inventory). Which recomputation drops it is model_tensor.modules. */
enum model_tag {
    MODEL_TAG_INPUT,      /* layer input: kept under every policy */
    MODEL_TAG_KEPT,       /* kept unless a module holding it is recomputed */
    MODEL_TAG_NORM,       /* norm outputs */
    MODEL_TAG_MLA_UP,     /* MLA up-projection outputs (Q, K, V) */
    MODEL_TAG_ATTN_CORE,  /* s x s attention intermediates (no flash) */
    MODEL_TAG_SWIGLU_OUT, /* SwiGLU outputs */
    MODEL_TAGS
};

/*
 * Recomputable modules, named as Megatron-LM's `--recompute-modules`
 * (megatron/core/transformer/transformer_config.py, recompute_modules), so
 * a published recipe is typed as it is: `training.selective = core_attn
 * mla_up_proj mlp moe moe_act layernorm shared_experts`.
 */
enum model_module {
    MODEL_MOD_CORE_ATTN,      /* attention core: s x s tensors or softmax
                               * statistics; redoes the QK^T and PV FLOPs */
    MODEL_MOD_MLA_UP_PROJ,    /* MLA latent norms, up-projections, RoPE */
    MODEL_MOD_MLP,            /* the dense FFN (its internals) */
    MODEL_MOD_MOE,            /* the MoE block: router, dispatch, experts,
                               * shared experts, combine (all-to-all again) */
    MODEL_MOD_MOE_ACT,        /* the routed experts' activation function */
    MODEL_MOD_LAYERNORM,      /* the input and pre-FFN norms */
    MODEL_MOD_SHARED_EXPERTS, /* the shared experts (their internals) */
    MODEL_MOD_ALTERNATE_MM,   /* not a Megatron-LM module: torchtitan's
                               * op-level policy (model_derive.c
                               * recompute_flops), every second matmul of a
                               * layer and its elementwise work rerun */
    MODEL_MODULES
};

/* The Megatron-LM name of module `module` (enum model_module:
 * "core_attn"), NULL outside the enum (a datafile word function: the
 * model schema's training.selective accepts these words). */
const char *model_module_word(int module);

/* Storage classes of saved tensors; bytes per element per precision. */
enum model_dtype {
    MODEL_DT_ACT,       /* activation dtype (BF16) */
    MODEL_DT_FP32,      /* e.g. softmax statistics, router scores; 4 bytes
                         * (int32 key indices too) */
    MODEL_DT_MASK,      /* dropout masks, 1 byte */
    MODEL_DT_LIN_IN,    /* input of a Linear: FP8-cached under the recipe */
    MODEL_DT_SWIGLU_IN, /* SwiGLU input: FP8-cached under the recipe */
    MODEL_DT_ATTN_OUT,  /* input of the attention output projection */
    MODEL_DTYPES
};

/* One saved tensor of a layer, per token. */
struct model_tensor {
    const char *name;
    unsigned kinds;   /* bit 1 << enum model_layer_kind for each kind of
                       * layer that saves it */
    double elems;     /* elements per token (per routed copy if routed) */
    bool routed;      /* multiplied by top_k (one copy per routed expert) */
    int dtype;        /* enum model_dtype */
    int tag;          /* enum model_tag (display) */
    unsigned modules; /* bit 1 << enum model_module for each module whose
                       * recomputation drops it (0: only `full` does) */
    bool tp_split;    /* inside a tensor-parallel region: split over tp even
                       * without sequence parallelism (Korthikanti et al.
                       * §4.2.2: 24 of a GPT layer's 34 sbh) */
};

#define MODEL_TENSORS_MAX 64

/* The attention's per-head widths, by which the inventory sizes Q, K, V
 * and the attention output (model_derive computes them with the
 * attention's parameters and FLOPs). */
struct model_head_widths {
    double qk;       /* query/key width of one head */
    double v;        /* value width of one head */
    double kv_heads; /* key/value heads (MHA, GQA; not read for MLA) */
};

/*
 * Fills m->tensor[0 .. m->tensors) from m->spec: what one layer saves for
 * backward, per token, with where each tensor sits (dense or MoE layers,
 * inside a tensor-parallel region or not), its storage class and the
 * recomputed modules that drop it.
 */
void model_inventory_build(struct model *m, const struct model_head_widths *w);

/*
 * Adds to L's act_bytes and act_rep the bytes per token one layer of kind
 * k (an enum model_layer_kind: the tensors with k's bit in kinds) saves under
 * each precision and policy, and sets its backward working set (work_bytes,
 * work_rep). L's byte arrays start at zero; m's inventory is built and
 * m->selective set.
 */
void model_layer_bytes(const struct model *m, int k, struct model_layer *L);

/*
 * Bytes per token tensor t takes under a precision (before any tensor or
 * context parallel split); a routed tensor counts its top_k copies.
 */
double model_tensor_bytes(const struct model *m,
                          const struct model_tensor *t,
                          int precision);

/* Whether tensor t is kept under the policy and precision. */
bool model_tensor_kept(const struct model *m,
                       const struct model_tensor *t,
                       int precision,
                       int recompute);

#endif
