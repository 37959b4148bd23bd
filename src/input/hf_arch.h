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

#endif
