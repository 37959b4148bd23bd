/*
 * hf_arch_layers: the config.json readers of architectures whose layers
 * differ from one another, each writing model.pattern from the keys that
 * say what each layer is: GPT-OSS (layer_types: sliding-window and full
 * attention), GLM-4.5/4.6 (leading dense layers, partial RoPE, MTP),
 * Llama 4 (its text_config: MoE every interleave_moe_layer_step layers,
 * chunked attention but for the no_rope_layers), Qwen3-Next (Gated
 * DeltaNet and gated attention by full_attention_interval), DeepSeek-V3.2
 * (DeepSeek Sparse Attention's index_* keys) and Nemotron-H
 * (hybrid_override_pattern: Mamba-2, attention and MLP blocks).
 *
 * Each is a row's reader in hf_arch.c's table; they call hf_arch's
 * shared readers and hf_reader's helpers. Keys and their meaning follow
 * transformers' configuration and modeling classes (and DeepSeek-V3.2's
 * reference inference code), each named beside its reader.
 */
#ifndef PROJ_HF_ARCH_LAYERS_H
#define PROJ_HF_ARCH_LAYERS_H

#include "hf_reader.h"

/* GptOssForCausalLM (transformers' configuration_gpt_oss.py,
 * modeling_gpt_oss.py). */
void hf_arch_gpt_oss(struct hf_reader *r);

/* Glm4MoeForCausalLM (configuration_glm4_moe.py, modeling_glm4_moe.py). */
void hf_arch_glm4_moe(struct hf_reader *r);

/* Llama4ForConditionalGeneration: its text_config (configuration_llama4.py,
 * modeling_llama4.py); the vision encoder is not planned. */
void hf_arch_llama4(struct hf_reader *r);

/* Qwen3NextForCausalLM (configuration_qwen3_next.py,
 * modeling_qwen3_next.py). */
void hf_arch_qwen3_next(struct hf_reader *r);

/* DeepseekV32ForCausalLM (DeepSeek-V3.2-Exp's inference/model.py: the
 * DeepseekV3 keys and the indexer's). */
void hf_arch_deepseek_v32(struct hf_reader *r);

/* NemotronHForCausalLM (configuration_nemotron_h.py,
 * modeling_nemotron_h.py). */
void hf_arch_nemotron_h(struct hf_reader *r);

#endif
