/*
 * model_partition: the split of a model's units (its layers, then its MTP
 * modules) into contiguous pipeline chunks balanced by forward cost, and
 * each chunk's sums (parameters, FLOPs, saved bytes, collectives) that
 * memory.c and cost.c read.
 *
 * Owns: struct model_chunk, struct model_partition and the two splits
 * (the largest chunk least; the largest DualPipe pair least). Calls
 * model_unit_kind() and reads the per-layer numbers model_derive put in
 * struct model; nothing of a plan but the number of chunks and the
 * weights of FP8 and BF16 work.
 */
#ifndef PROJ_MODEL_PARTITION_H
#define PROJ_MODEL_PARTITION_H

#include <stdbool.h>

#include "diag.h"
#include "model_inventory.h"
#include "model_pattern.h"

struct model;

/* A contiguous run of layers (a pipeline chunk), per token sums. */
struct model_chunk {
    long first, count; /* units [first, first+count): layers then MTP */
    long moe_layers;
    long mtp_units; /* MTP modules among the units */
    bool has_embedding, has_head;
    double params_dense, params_expert, params_embedding;
    double params_fp8, params_fp8_expert;     /* run in FP8 (see model_layer) */
    double max_layer_dense, max_layer_expert; /* one layer, for ZeRO-3 */
    double fwd_fp8, fwd_other, fwd_linear;
    double recompute_fp8[MODEL_RECOMPUTES];
    double recompute_other[MODEL_RECOMPUTES];
    double recompute_core[MODEL_RECOMPUTES]; /* see model_layer */
    double recompute_scores;
    double act_bytes[MODEL_PRECISIONS][MODEL_RECOMPUTES];
    double act_rep[MODEL_PRECISIONS][MODEL_RECOMPUTES];
    /* the largest layer's backward working set (a maximum, not a sum) */
    double work_bytes[MODEL_PRECISIONS][MODEL_RECOMPUTES];
    double work_rep[MODEL_PRECISIONS][MODEL_RECOMPUTES];
    double tp_collectives; /* per pass, embedding and head included */
    double tp_regathers;   /* backward re-gathers (model_layer's), head
                            * included */
    double regather_fwd;   /* the FLOPs/token of the GEMMs they feed */
    double tp_recompute[MODEL_RECOMPUTES];
    double ep_recompute[MODEL_RECOMPUTES]; /* MoE layers redoing all-to-all */
    double kv_elems;
    double state_elems; /* scan layers' states, per sequence (summed) */
    long scan_layers;   /* layers that pass a state under context
                         * parallelism (linear attention, SSM) */
    unsigned short kinds[MODEL_LAYER_KINDS]; /* units of each layer kind */
    double gemm_fwd[MODEL_GEMMS]; /* sums of the units' (model_layer) */
    double core_fwd;
    double scan_fwd[MODEL_SCANS];
    double ew_fwd[MODEL_EWS]; /* with the head's loss (softmax, vocab) */
    double cast_in, cast_in_sp, cast_grad, cast_grad_sp; /* model_layer's */
};

/* How model_partition balances the chunks. */
enum model_balance {
    MODEL_BALANCE_CHUNK, /* the largest chunk (one chunk per rank) */
    MODEL_BALANCE_PAIR   /* the largest pair (c, chunks-1-c): DualPipe's
                          * rank c runs both */
};

struct model_partition {
    long chunks;
    struct model_chunk *chunk; /* [chunks] */
};

/*
 * Splits the model's units into `chunks` contiguous chunks, a unit costing
 * fp8_weight x its FP8-eligible forward FLOPs + bf16_weight x the rest
 * (pass 1/rate for each, or 1 and 1 for FLOPs), the output head counted
 * on the last chunk. MODEL_BALANCE_CHUNK minimises the largest chunk;
 * MODEL_BALANCE_PAIR (chunks even) the largest pair of chunks c and
 * chunks-1-c, which one DualPipe rank runs. Embedding on the first chunk,
 * output head on the last. Returns STATUS_RANGE when chunks > units (or
 * odd for pairs). Allocates p->chunk; free with model_partition_release().
 */
enum status model_partition(const struct model *m,
                            long chunks,
                            double fp8_weight,
                            double bf16_weight,
                            enum model_balance balance,
                            struct model_partition *p,
                            struct diag *d);

/*
 * The split a framework makes by layer counts: exactly `first` decoder
 * layers on the first chunk and `last` on the last (either may be 0: a
 * chunk holding only the embedding, or only the head, as Megatron-LM's
 * --account-for-embedding/loss-in-pipeline-split leave one), the other
 * layers in equal runs over the other chunks (Megatron refuses a split
 * where they do not divide evenly); the embedding on the first chunk, the
 * output head and every MTP module on the last (Megatron Core's MTP docs:
 * "By default, all MTP layers sit on the last pipeline stage"). How a
 * plan's keys give these counts is plan_split_layers(). Returns
 * STATUS_RANGE when model_partition_split_ok() does not hold. Allocates
 * p->chunk; free with model_partition_release().
 */
enum status model_partition_split(const struct model *m,
                                  long chunks,
                                  long first,
                                  long last,
                                  struct model_partition *p,
                                  struct diag *d);

/*
 * How a plan's layers split over its pipeline chunks when it gives no
 * counts (plan_split_layers: a plan's pp_split, a stack's framework
 * split). Balanced: roofplan's split by forward time
 * (model_partition). The others are Megatron-LM's rules
 * (megatron/core/transformer/transformer_block.py,
 * get_num_layers_to_build): uniform, every chunk the same number of
 * decoder layers; embedding, loss, embedding_loss:
 * --account-for-embedding-in-pipeline-split and/or
 * --account-for-loss-in-pipeline-split count the embedding and the loss
 * (with the head) as one layer each, so the first and/or last chunk holds
 * one decoder layer fewer than the others. A new rule is a constant here
 * and its word in model_split_word's table.
 */
enum model_split {
    MODEL_SPLIT_BALANCED,
    MODEL_SPLIT_UNIFORM,
    MODEL_SPLIT_EMBEDDING,
    MODEL_SPLIT_LOSS,
    MODEL_SPLIT_EMBEDDING_LOSS,
    MODEL_SPLITS
};

/* The word of split rule `split` ("embedding_loss"), as plans, sweeps
 * and stacks write it; NULL outside 0..MODEL_SPLITS-1 (a datafile
 * word function: datafile_schema.h). */
const char *model_split_word(int split);

/* Whether `layers` split into `chunks` (>= 2) with exactly `first` and
 * `last` layers on the first and last chunk leave each other chunk an
 * equal number of layers, at least one. */
bool model_partition_split_ok(long layers, long chunks, long first, long last);

/* Forward cost of chunk c by the weights of model_partition (head
 * included when c holds it). */
double model_chunk_cost(const struct model_chunk *c,
                        double fp8_weight,
                        double bf16_weight);

/* Frees p->chunk and zeroes p; p may be NULL or already released. */
void model_partition_release(struct model_partition *p);

/*
 * Adds chunk c into sum: sums of counts, parameters, FLOPs and saved
 * bytes; the larger of the per-layer maxima (and working sets);
 * embedding/head flags or-ed.
 * A zeroed sum plus one chunk equals the chunk (but for `first`).
 */
void model_chunk_add(struct model_chunk *sum, const struct model_chunk *c);

#endif
