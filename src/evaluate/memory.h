/*
 * memory: bytes per GPU of one pipeline rank under a plan — weights (and
 * the FP8 recipe's cached FP8 copies), gradients and optimizer state
 * (each with the model file's dtype, sharded by the ZeRO stage:
 * non-expert parts over dp*cp, expert parts over edp, both doubled for
 * DualPipe's two copies), ZeRO-3's gathered-layer buffers, saved
 * activations times the micro-batches in flight, the backward working set
 * of one layer, the last stage's logits, and the runtime's own share
 * ("other").
 */
#ifndef PROJ_MEMORY_H
#define PROJ_MEMORY_H

#include <stdbool.h>

#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "result.h"

/*
 * Bytes per GPU one micro-batch saves in the first p->offload decoder
 * layers (the plan's offload, Transformer Engine's CPU offloading: what
 * goes to host memory in its forward and comes back in its backward);
 * 0 without offload.
 */
double memory_offload_bytes(const struct model *m, const struct plan *p);

/*
 * Memory of one pipeline rank under plan p (which passed plan_check()),
 * from its view (plan_rank_view: the chunks it holds, summed). Decides
 * out->grads_per_step (see struct memory) for ZeRO-2/3.
 */
void memory_view(const struct model *m,
                 const struct hardware *hw,
                 const struct plan *p,
                 const struct plan_rank *v,
                 struct memory *out);

/* memory_view with the rank's in-flight micro-batches per chunk given
 * (plan_inflight_chunks(p, v->rank, v->chunks, inflight), for a caller
 * that has them; NULL: computed): the same numbers. */
void memory_view_inflight(const struct model *m,
                          const struct hardware *hw,
                          const struct plan *p,
                          const struct plan_rank *v,
                          const double *inflight,
                          struct memory *out);

/* Replicas that share (ZeRO-shard) one non-expert / expert parameter. */
double memory_dense_replicas(const struct plan *p);
double memory_expert_replicas(const struct plan *p);

/*
 * Saved bytes per token of the micro-batch on one GPU, from bytes per
 * token of the whole sequence split in `all` and its part outside
 * tensor-parallel regions `rep`: all / (tp cp) with sequence parallelism;
 * rep stays whole over tp without it (Korthikanti et al. 2022 §4.2.2).
 */
double memory_tp_bytes(const struct plan *p, double all, double rep);

#endif
