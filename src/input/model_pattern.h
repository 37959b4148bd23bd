/*
 * model_pattern: what each layer of a model is. A layer is a block of
 * the residual stream with at most one token mixer (attention of some
 * kind, a linear-attention or a state-space scan) and at most one MLP
 * (dense, or routed experts), each behind its own norm. Most models are
 * one kind of layer, or leading dense layers then MoE layers (blocks);
 * today's are not: GPT-OSS alternates sliding-window and full attention,
 * Llama 4 interleaves MoE and dense MLPs and chunked and global attention,
 * Qwen3-Next runs three Gated DeltaNet layers to one attention layer,
 * Nemotron-H mixes Mamba-2, attention and MLP blocks.
 *
 * A pattern names each layer by two letters, its mixer's and its MLP's
 * (the rows of model_mixer.c and of this module's MLP table), with counts
 * for runs and groups: `3AD 58AE` (DeepSeek-V3), `18(WE AE)` (GPT-OSS),
 * `12(3LE AE)` (Qwen3-Next), `M. .D M. A. .D` (Nemotron-H's blocks).
 *
 * Owns: the MLP kinds' rows, the pattern text (parsing, with the position
 * of a problem, and writing it compactly from a per-layer list, as the
 * config.json readers do), and the layer kinds a model's units take: one
 * kind per pair of mixer and MLP that occurs, the MTP modules one more,
 * each with its words for a reader. model_derive builds each kind's
 * numbers; model_partition and memory.c walk the units by kind.
 */
#ifndef PROJ_MODEL_PATTERN_H
#define PROJ_MODEL_PATTERN_H

#include <stdbool.h>
#include <stddef.h>

struct model;

/* The longest pattern text (a config.json's, written compactly). */
#define MODEL_PATTERN_MAX 512

/* The token mixers a layer may have (model_mixer.c's rows, one each). */
enum model_mixer {
    MODEL_MIX_FULL,   /* causal softmax attention over the whole sequence */
    MODEL_MIX_NOPE,   /* the same without RoPE (Llama 4's global layers) */
    MODEL_MIX_WINDOW, /* a sliding window of attention.window keys */
    MODEL_MIX_CHUNK,  /* within chunks of attention.chunk tokens */
    MODEL_MIX_SPARSE, /* the attention.index_topk keys an indexer picks */
    MODEL_MIX_LINEAR, /* Gated DeltaNet: linear attention with a state */
    MODEL_MIX_SSM,    /* Mamba-2 (SSD): a state-space scan */
    MODEL_MIX_NONE,   /* none: an MLP-only block */
    MODEL_MIXERS
};

/* The MLP a layer may have (this module's rows). */
enum model_mlp {
    MODEL_MLP_DENSE, /* a dense FFN of ffn.width */
    MODEL_MLP_MOE,   /* routed (and shared) experts */
    MODEL_MLP_NONE,  /* none: a mixer-only block */
    MODEL_MLPS
};

/* Kinds of layer: one per pair of mixer and MLP (the cross product of
 * the two tables' rows, so a new combination is no code), and the MTP
 * modules. The full-attention dense and MoE layers and the MTP module
 * come first, in the order the units of a block model run; the others
 * follow (model_layer_kind_of). */
enum model_layer_kind {
    MODEL_LAYER_DENSE, /* full attention and a dense FFN */
    MODEL_LAYER_MOE,   /* full attention and routed experts */
    MODEL_LAYER_MTP,   /* an MTP module (its block: model_mtp_kind) */
    MODEL_LAYER_KINDS = MODEL_MIXERS * MODEL_MLPS + 1 /* count, not a kind */
};

/* The most units a model has: its layers (model.layers, at most 512)
 * and its MTP modules (mtp.depth, at most 16). */
#define MODEL_UNITS_MAX 528

/* The kind of a main-model layer with this mixer and MLP. */
enum model_layer_kind model_layer_kind_of(int mixer, int mlp);

/* The pattern letter of MLP kind `mlp` ('D', 'E', '.'); the mixers'
 * are model_mixer_letter(). */
char model_mlp_letter(int mlp);

/* The words of MLP kind `mlp` in a layer kind's name ("dense", "MoE",
 * ""); NULL outside the enum. */
const char *model_mlp_word(int mlp);

/*
 * Parses pattern text into mixer[] and mlp[] (each of room max), the
 * count of layers into *n. Grammar: items separated by blanks or not;
 * an item is a layer (a mixer letter then an MLP letter), optionally
 * preceded by a count (`58AE`), or a group in parentheses with a count
 * (`18(WE AE)`), nested at most 4 deep. On a problem returns false and
 * writes "at character N: what" into why (why_size > 0).
 */
bool model_pattern_parse(const char *text,
                         unsigned char *mixer,
                         unsigned char *mlp,
                         size_t max,
                         size_t *n,
                         char *why,
                         size_t why_size);

/*
 * Writes the n layers of mixer[] and mlp[] as pattern text into buf,
 * runs and repeated groups counted (`12(3LE AE)`), so that
 * model_pattern_parse() gives the same layers back. False when it does
 * not fit in size bytes.
 */
bool model_pattern_format(const unsigned char *mixer,
                          const unsigned char *mlp,
                          size_t n,
                          char *buf,
                          size_t size);

/*
 * Fills m's units (unit_kind[], kind_units[], units, the MTP modules'
 * mixer and MLP, the kinds' names) from m->spec: its pattern, or, where
 * it has none, dense layers then MoE layers as moe.first_dense_layers
 * says. The spec must have passed model.c's checks (a pattern that parses
 * to model.layers layers).
 */
void model_pattern_units(struct model *m);

/*
 * Writes the main-model layers among m's units [first, first + count)
 * (a pipeline chunk's; MTP modules left out) as pattern text into buf,
 * as model_pattern_format() does: "" where there are none. False when it
 * does not fit in size bytes.
 */
bool model_units_pattern(const struct model *m,
                         long first,
                         long count,
                         char *buf,
                         size_t size);

/* The mixer and MLP of layer kind k of m (the MTP module's where k is
 * MODEL_LAYER_MTP). */
void model_kind_parts(const struct model *m, int k, int *mixer, int *mlp);

#endif
