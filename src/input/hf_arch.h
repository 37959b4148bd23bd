/*
 * hf_arch: the architectures a config.json may name (HF_CONFIG_SUPPORTED),
 * each read key by key as transformers' configuration and modeling
 * classes define it (LlamaConfig, Qwen2Config, Qwen3Config,
 * Qwen3MoeConfig, MixtralConfig, DeepseekV3Config), into the architecture
 * fields of a model_spec.
 *
 * Owns: the table of architectures and what each implies (SwiGLU MLP,
 * RMSNorm, RoPE, biases, MLA or GQA, the MoE layout and routing). Calls
 * hf_reader for every value. hf_config parses the file, calls
 * hf_arch_find() and hf_arch_read(), and refuses the keys left unread.
 */
#ifndef PROJ_HF_ARCH_H
#define PROJ_HF_ARCH_H

#include <stdbool.h>
#include <stddef.h>

#include "hf_reader.h"

/*
 * Finds the architecture from architectures[0], else model_type, and sets
 * r->arch and r->arch_name. False (a STATUS_PARSE problem in r->d) when it
 * is missing or not supported.
 */
bool hf_arch_find(struct hf_reader *r);

/*
 * Reads the architecture fields of r->spec for r->arch (found by
 * hf_arch_find()): [model] but the recipe's keys, [attention], [ffn],
 * [moe] and mtp.depth, each with its source; problems go to r->d.
 */
void hf_arch_read(struct hf_reader *r);

/* The supported class names, sorted, joined with ", " into buf (what
 * HF_CONFIG_SUPPORTED spells; a test holds the two together). */
void hf_arch_names(char *buf, size_t size);

/* The transformers file (or reference code) that builds r's layers, for
 * sources. */
const char *hf_arch_modeling(const struct hf_reader *r);

/* ---- Readers of keys several architectures share (hf_arch_layers.c's
 * readers call them too) ---- */

/* The model's name, layers, hidden, vocab, heads, tied embeddings; the
 * gated SiLU MLP (hidden_act silu), RMSNorm, no learned positions. */
void hf_arch_common(struct hf_reader *r);

/* GQA/MHA: key/value heads, head dimension, QK-norm (Qwen3's), the MLA
 * fields zero. */
void hf_arch_gqa(struct hf_reader *r);

/* MLA: the query and key/value latents and head widths (DeepseekV3). */
void hf_arch_mla(struct hf_reader *r);

/* DeepseekV3's MoE keys: routed and shared experts after
 * first_k_dense_replace dense layers, group-limited routing. */
void hf_arch_deepseek_moe(struct hf_reader *r);

/* No MoE: the [moe] fields zero, with why as their source. */
void hf_arch_no_moe(struct hf_reader *r, const char *why);

/* Qwen's MoE widths: num_experts, num_experts_per_tok,
 * moe_intermediate_size (an expert) and intermediate_size (a dense
 * layer's FFN), each required (Qwen3Moe, Qwen3-Next). */
void hf_arch_qwen_moe_widths(struct hf_reader *r);

/* Mixtral's MoE widths: num_local_experts, num_experts_per_tok and
 * intermediate_size as an expert's width, each required (Mixtral,
 * GPT-OSS, Llama 4). */
void hf_arch_local_experts(struct hf_reader *r);

/* top_k at most the experts (a problem naming num_experts_per_tok). */
void hf_arch_check_top_k(struct hf_reader *r);

#endif
