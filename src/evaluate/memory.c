/*
 * memory: per-GPU memory of a pipeline rank.
 *
 * ZeRO (Rajbhandari et al. 2020): stage 1 shards optimizer state, 2 also
 * gradients, 3 also weights, over the ranks holding a replica. Activations
 * follow Korthikanti et al. 2022: with sequence parallelism every saved
 * tensor is split over tp, without it only those inside the
 * tensor-parallel regions; context parallelism splits all over cp.
 */
#include "memory.h"

#include <string.h>

#include "terms.h"

#define GIB 1073741824.0

double memory_dense_replicas(const struct plan *p)
{
    return (double)(p->dp * p->cp) * plan_schedule_of(p->schedule)->copies;
}

double memory_expert_replicas(const struct plan *p)
{
    return (double)p->edp * plan_schedule_of(p->schedule)->copies;
}

double memory_tp_bytes(const struct plan *p, double all, double rep)
{
    double tp = (double)p->tp, cp = (double)p->cp;
    if (!p->no_sp)
        return all / (tp * cp);
    return ((all - rep) / tp + rep) / cp;
}

double memory_offload_bytes(const struct model *m, const struct plan *p)
{
    double all = 0, rep = 0;
    long u;
    if (p->offload <= 0) /* every plan of a sweep without offloading */
        return 0;
    for (u = 0; u < p->offload && u < m->spec.layers; u++) {
        const struct model_layer *L = &m->layer[model_unit_kind(m, u)];
        all += L->act_bytes[p->precision][p->recompute];
        rep += L->act_rep[p->precision][p->recompute];
    }
    return (double)(p->mbs * m->spec.seq_len) * memory_tp_bytes(p, all, rep);
}

/* Fills everything but out->grads, which the caller sets first (the
 * totals read it);
 * rd and rx: memory_dense_replicas(p), memory_expert_replicas(p);
 * given: the chunks' in-flight micro-batches (plan_inflight_chunks), or
 * NULL. */
static void fill(const struct model *m,
                 const struct hardware *hw,
                 const struct plan *p,
                 const struct plan_rank *v,
                 double rd,
                 double rx,
                 const double *given,
                 struct memory *out)
{
    const struct model_spec *s = &m->spec;
    double tp = (double)p->tp, ep = (double)p->ep;
    double seq = (double)(p->mbs * s->seq_len); /* tokens per micro-batch */
    double dense = v->sum.params_dense / tp, expert = v->sum.params_expert / ep;
    double wb = s->weight_bytes, fp8, inflight[PLAN_RANK_CHUNKS_MAX];
    int prec = p->precision, rec = p->recompute;
    size_t i, chunks = (size_t)v->chunks < PLAN_RANK_CHUNKS_MAX
                           ? (size_t)v->chunks
                           : PLAN_RANK_CHUNKS_MAX;

    out->rank = v->rank;
    /* FP8 recipe: each FP8-run weight is kept as its FP8 copy and that
     * copy's transpose (Hopper's FP8 GEMMs read both operands K-major, so
     * the backward's Dgrad needs W^T), made from the master weights once
     * per step and kept through it, as Transformer Engine caches them
     * across micro-batches; no BF16 compute copy of it is needed. The HBM
     * term reads these 1-byte copies. ZeRO-3 gathers weights per layer,
     * which keeps the compute dtype. */
    fp8 = prec == MODEL_FP8 && p->zero < 3
              ? v->sum.params_fp8 / tp + v->sum.params_fp8_expert / ep
              : 0;
    out->fp8_copies = fp8 * s->fp8_weight_cache_bytes;
    out->weights = (dense / (p->zero >= 3 ? rd : 1) +
                    expert / (p->zero >= 3 ? rx : 1) - fp8) *
                       wb +
                   out->fp8_copies;
    if (p->zero >= 3) { /* current + prefetched layer, and its gradient */
        double layer_max = 0;
        for (i = 0; i < (size_t)v->chunks && i < PLAN_RANK_CHUNKS_MAX; i++) {
            double layer = v->layer_dense[i] / tp + v->layer_expert[i] / ep;
            if (layer > layer_max)
                layer_max = layer;
        }
        out->weights += layer_max * (2 * wb + s->grad_bytes);
    }
    out->optimizer =
        (dense / (p->zero >= 1 ? rd : 1) + expert / (p->zero >= 1 ? rx : 1)) *
        (s->master_bytes + 2 * s->moment_bytes);
    /* Each chunk's activations times the micro-batches in flight
     * through it. */
    out->activations = 0;
    if (!given) {
        plan_inflight_chunks(p, v->rank, chunks, inflight);
        given = inflight;
    }
    for (i = 0; i < chunks; i++) {
        const struct model_chunk *c = &v->part->chunk[v->index[i]];
        out->activations +=
            given[i] * seq *
            memory_tp_bytes(p, c->act_bytes[prec][rec], c->act_rep[prec][rec]);
    }
    /* Offloading (pp = 1: one chunk, the first layers) keeps the last
     * layers - offload layers' activations on the GPU ("at most
     * (model_layers - num_layers) sets of activations are on GPU at any
     * time": Transformer Engine's CPU offloading guide) */
    out->offloaded = chunks > 0 ? given[0] * memory_offload_bytes(m, p) : 0;
    out->activations -= out->offloaded;
    /* One layer at a time is backpropagated: its rematerialised tensors
     * and the gradient of its largest one (model_layer.work_bytes). */
    out->working = seq * memory_tp_bytes(p, v->sum.work_bytes[prec][rec],
                                         v->sum.work_rep[prec][rec]);
    out->logits = 0;
    if (v->sum.has_head) /* FP32 logits of one micro-batch (Korthikanti
                          * §4.3: 4sbv/t), once more per MTP module */
        out->logits = seq / (tp * (double)p->cp) * (double)s->vocab *
                      s->logits_bytes * (1 + (double)s->mtp_depth);
    out->activations += out->working + out->logits;
    out->other = terms_mem_other(&hw->spec, out);
    out->total = terms_mem_total(out);
    out->capacity = hw->capacity_bytes;
}

void memory_view(const struct model *m,
                 const struct hardware *hw,
                 const struct plan *p,
                 const struct plan_rank *v,
                 struct memory *out)
{
    memory_view_inflight(m, hw, p, v, NULL, out);
}

void memory_view_inflight(const struct model *m,
                          const struct hardware *hw,
                          const struct plan *p,
                          const struct plan_rank *v,
                          const double *inflight,
                          struct memory *out)
{
    const struct model_spec *s = &m->spec;
    double tp = (double)p->tp, ep = (double)p->ep;
    double dense = v->sum.params_dense / tp, expert = v->sum.params_expert / ep;
    double full = (dense + expert) * s->grad_bytes;
    double rd = memory_dense_replicas(p), rx = memory_expert_replicas(p);

    memset(out, 0, sizeof *out); /* padding too: results are compared */
    /* Unsharded gradients, accumulated over the micro-batches and reduced
     * once: ZeRO-0/1 by definition; ZeRO-2/3 (FSDP's no_sync) when they
     * fit, since a speed of light takes the cheapest way to run the plan
     * and reducing once moves 1/microbatches of the bytes. "Fit" is the
     * plan's own rule (terms_fits, with the headroom it keeps free): a
     * plan that fits with sharded gradients is not to be judged by a
     * variant that fits only the bare HBM. */
    out->grads = full;
    fill(m, hw, p, v, rd, rx, inflight, out);
    out->grads_per_step = true;
    if (p->zero < 2 || terms_fits(out->total, out->capacity, hw->headroom_pct))
        return;
    /* Sharded gradients: fill's other parts do not read the gradients'
     * bytes, so only they and what sums them change (fill's last lines,
     * in its order: the same numbers as filling again). */
    out->grads = (dense / rd + expert / rx) * s->grad_bytes;
    out->other = terms_mem_other(&hw->spec, out);
    out->total = terms_mem_total(out);
    out->grads_per_step = false;
}
