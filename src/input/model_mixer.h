/*
 * model_mixer: the token mixers a layer may have, one row each (its
 * pattern letter, its words, what it is made of), and what one of them
 * costs per token: parameters, projection and core FLOPs, the widths its
 * attention kernel runs at, what context parallelism moves for it and
 * the operands its projections cast to FP8.
 *
 * The mixers: softmax attention (MHA, GQA or MLA projections) over the
 * whole causal sequence, without RoPE, over a sliding window, within
 * chunks, or over the top-k keys a lightning indexer picks (DeepSeek
 * Sparse Attention); Gated DeltaNet's linear attention; Mamba-2's SSD.
 * Where each formula comes from is said beside it in model_mixer.c.
 *
 * Owns: the mixer rows and struct model_mixer_numbers. Calls nothing;
 * model_derive builds a layer kind from these numbers, model_pattern
 * reads the rows' letters and words, model_inventory their parts.
 */
#ifndef PROJ_MODEL_MIXER_H
#define PROJ_MODEL_MIXER_H

#include <stdbool.h>

#include "model_inventory.h"

struct model_spec;

/* Operands of a layer's GEMMs, elements per token (model_layer's
 * cast_*): inputs and output gradients, local (TP-split or not split) or
 * all-gathered by sequence parallelism. */
struct model_operands {
    double in, in_sp, grad, grad_sp;
};

/* A column-parallel GEMM of width k -> n, `times` of them: its input
 * gathered, its output split. */
void model_operands_column(struct model_operands *o,
                           double k,
                           double n,
                           double times);

/* A row-parallel GEMM k -> n: its input split, its output's gradient
 * gathered. */
void model_operands_row(struct model_operands *o,
                        double k,
                        double n,
                        double times);

/* What a mixer is made of (model_inventory keys its saved tensors on
 * these bits, model_derive its norms and TP regions). */
enum model_mixer_class {
    MODEL_MIXER_SOFTMAX = 1 << 0, /* softmax attention: Q, K, V, scores */
    MODEL_MIXER_SPARSE = 1 << 1,  /* a lightning indexer picks its keys */
    MODEL_MIXER_LINEAR = 1 << 2,  /* Gated DeltaNet */
    MODEL_MIXER_SSM = 1 << 3,     /* Mamba-2 */
    MODEL_MIXER_ROPE = 1 << 4     /* rotates queries and keys (RoPE) */
};

/* The pattern letter of mixer `mixer` ('A', 'N', 'W', 'C', 'S', 'L',
 * 'M', '.'); 0 outside enum model_mixer. */
char model_mixer_letter(int mixer);

/* The words of mixer `mixer` in a layer kind's name ("attention",
 * "sliding-window attention", "Mamba-2", ...; "" for none); NULL outside
 * the enum. */
const char *model_mixer_word(int mixer);

/* The class bits of mixer `mixer` (enum model_mixer_class); 0 for none. */
unsigned model_mixer_class(int mixer);

/* One layer's mixer, per token of the sequence (model.training.seq_len),
 * forward. */
struct model_mixer_numbers {
    double params;   /* projections, biases, norms, convolutions, sinks */
    double proj_fwd; /* projection GEMM FLOPs (attention GEMM class) */
    double col_fwd;  /* of proj_fwd, the column-parallel projections':
                      * those whose input sequence parallelism gathers
                      * (what re-gathers it in backward, model_layer
                      * regather_fwd) */
    double mms;      /* matmuls its projections run, in forward order */
    double even_fwd; /* of proj_fwd, the even-numbered matmuls' (2nd, 4th,
                      * ...: what recompute module alternate_mm reruns;
                      * 0 with mms 0 where the order is not modelled) */
    double up_fwd;   /* of them, MLA's up-projections */
    double core_fwd; /* softmax core, causal: QK^T and PV over the keys a
                      * query sees, and the indexer's scores */
    double scan_fwd[MODEL_SCANS]; /* chunked scans and their convolutions */
    double qk_dim;      /* the attention kernel's query/key head width */
    double v_dim;       /* its value head width */
    double kv_elems;    /* K and V elements a context-parallel rank
                         * gathers per token (all heads) */
    double state_elems; /* a scan's state per sequence, passed along the
                         * context-parallel ranks */
    double rope_elems;  /* query and key elements RoPE rotates */
    double norm_elems;  /* elements its inner norms read and write */
    double act_elems;   /* elements its gates and activations move */
    struct model_operands cast; /* the projections' operands */
};

/*
 * The numbers of one layer's mixer `mixer` (enum model_mixer) for spec s,
 * which has passed model.c's checks (the mixer's keys given). All zero
 * for MODEL_MIX_NONE.
 */
void model_mixer_numbers(const struct model_spec *s,
                         int mixer,
                         struct model_mixer_numbers *out);

/* Parameters of a norm over `width` (RMSNorm: a scale; LayerNorm: and a
 * bias). */
double model_norm_params(const struct model_spec *s, double width);

/* Key/value heads of the softmax attention (GQA's, else every head). */
double model_mixer_kv_heads(const struct model_spec *s);

/*
 * Keys a query of a causal sequence of seq tokens attends to, on average,
 * counted as model_derive counts full attention (seq/2: half the square):
 * within a window of w keys, w - w^2/(2 seq) (seq/2 when seq <= w); within
 * chunks of c tokens, the chunks' halves weighted by their tokens.
 */
double model_mixer_window_keys(double seq, double w);
double model_mixer_chunk_keys(double seq, double c);

#endif
