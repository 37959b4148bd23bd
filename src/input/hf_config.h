/*
 * hf_config: a Hugging Face transformers config.json, as published beside
 * a model's weights, read (with cJSON) into the architecture fields of a
 * struct model_spec.
 *
 * Only what roofplan models is accepted: the architectures below, read key
 * by key as transformers' configuration and modeling classes define them.
 * An architecture not listed, a feature the model does not have (sliding-
 * window or linear-attention layers, MoE on every other layer, biases on
 * attention only) or a key this reader does not know is an error naming
 * the file and the key: an unknown key may change the architecture, and a
 * silently wrong parameter count is worse than a refusal. Keys that cannot
 * change parameters or FLOPs (token ids, RoPE base and scaling, router loss
 * weights, the released weights' quantization) are read past.
 *
 * What config.json does not say (sequence length, batch, precisions, bytes
 * per state) is not this module's: model.c takes it from a training
 * recipe. This module does not print.
 *
 * Owns: reading and parsing the file, its top-level keys (each once; each
 * read or read past) and the entry point. Calls datafile_read(), cJSON,
 * hf_arch (finding the architecture and reading its keys) and hf_reader
 * (the value helpers both use).
 */
#ifndef PROJ_HF_CONFIG_H
#define PROJ_HF_CONFIG_H

#include <stdbool.h>

#include "datafile.h"
#include "diag.h"
#include "model.h"

/* The architectures read, by config.json's architectures[0]. */
#define HF_CONFIG_SUPPORTED                                                 \
    "DeepseekV32ForCausalLM, DeepseekV3ForCausalLM, Glm4MoeForCausalLM, "   \
    "GptOssForCausalLM, Llama4ForConditionalGeneration, LlamaForCausalLM, " \
    "MixtralForCausalLM, NemotronHForCausalLM, Qwen2ForCausalLM, "          \
    "Qwen3ForCausalLM, Qwen3MoeForCausalLM, Qwen3NextForCausalLM"

/*
 * Whether the file at path holds JSON rather than INI: its first byte
 * after blanks (and a UTF-8 byte-order mark) is '{'. False when the file
 * cannot be read; the INI reader then reports why.
 */
bool hf_config_is_json(const char *path);

/*
 * Reads the config.json at path into the architecture fields of spec:
 * model_schema()'s [model] (name, layers, hidden, vocab, tied_embeddings,
 * max_positions, norm, linear_bias), [attention], [ffn], [moe] and
 * mtp.depth. The training-recipe fields (model_field_is_training()) are
 * left as they are. meta is initialised (path, model_schema()) and receives,
 * for each architecture field, given = true and a source naming the file
 * and the JSON key the value came from (or why it is implied); the caller
 * releases it with datafile_meta_release(). The model name is the file's
 * name without ".json" and ".config" ("config" alone: its folder's name).
 *
 * Returns STATUS_IO (unreadable), STATUS_PARSE ("path:LINE: invalid JSON
 * ...", unsupported architecture, unknown key, wrong type) or STATUS_RANGE
 * (a value out of range or a feature not modelled), with every problem
 * found in d, each naming path and the key; spec is then partly written.
 * path must be a regular file of at most 1 MiB.
 *
 * Example: hf_config_read("deepseek-v3.config.json", &m.spec, &m.meta, &d)
 * sets spec.layers = 61 with source "deepseek-v3.config.json:
 * num_hidden_layers".
 */
enum status hf_config_read(const char *path,
                           struct model_spec *spec,
                           struct datafile_meta *meta,
                           struct diag *d);

#endif
