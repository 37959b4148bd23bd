/*
 * memory: bytes per GPU of one pipeline rank under a plan — weights,
 * gradients and optimizer state (each with the model file's dtype, sharded
 * by the ZeRO stage: non-expert parts over dp*cp, expert parts over edp,
 * both doubled for DualPipe's two copies), ZeRO-3's gathered-layer
 * buffers, saved activations times the micro-batches in flight, the last
 * stage's logits, and the runtime's own share ("other").
 */
#ifndef PROJ_MEMORY_H
#define PROJ_MEMORY_H

#include "hardware.h"
#include "model.h"
#include "plan.h"

struct memory {
    long rank;      /* pipeline rank these bytes are for */
    double weights; /* bytes, incl. ZeRO-3 gathered buffers */
    double grads;
    double optimizer;   /* master weights and Adam moments */
    double activations; /* saved activations incl. logits */
    double logits;      /* of which the loss's logits */
    double other;       /* CUDA context, NCCL buffers, fragmentation */
    double total;
    double capacity; /* the GPU's, from the hardware file */
};

/*
 * Memory of one pipeline rank under plan p (which passed plan_check()),
 * from its view (plan_rank_view: the chunks it holds, summed).
 */
void memory_view(const struct model *m,
                 const struct hardware *hw,
                 const struct plan *p,
                 const struct plan_rank *v,
                 struct memory *out);

/* Replicas that share (ZeRO-shard) one non-expert / expert parameter. */
double memory_dense_replicas(const struct plan *p);
double memory_expert_replicas(const struct plan *p);

#endif
