/*
 * memory: per-GPU memory of a pipeline rank.
 *
 * ZeRO (Rajbhandari et al. 2020): stage 1 shards optimizer state, 2 also
 * gradients, 3 also weights, over the ranks holding a replica. Activations
 * follow Korthikanti et al. 2022 with sequence parallelism (every saved
 * tensor split over tp) and context parallelism (split over cp).
 */
#include "memory.h"

double memory_dense_replicas(const struct plan *p)
{
    return (double)(p->dp * p->cp) * (p->schedule == PLAN_DUALPIPE ? 2 : 1);
}

double memory_expert_replicas(const struct plan *p)
{
    return (double)p->edp * (p->schedule == PLAN_DUALPIPE ? 2 : 1);
}

void memory_view(const struct model *m,
                 const struct hardware *hw,
                 const struct plan *p,
                 const struct plan_rank *v,
                 struct memory *out)
{
    const struct model_spec *s = &m->spec;
    double tp = (double)p->tp, ep = (double)p->ep;
    double tokens = (double)(p->mbs * s->seq_len) / (tp * (double)p->cp);
    double rd = memory_dense_replicas(p), rx = memory_expert_replicas(p);
    double dense = v->sum.params_dense / tp, expert = v->sum.params_expert / ep;
    double wb = s->weight_bytes;

    out->rank = v->rank;
    out->weights =
        (dense / (p->zero >= 3 ? rd : 1) + expert / (p->zero >= 3 ? rx : 1)) *
        wb;
    if (p->zero >= 3) { /* current + prefetched layer, and its gradient */
        double layer_max = 0;
        size_t i;
        for (i = 0; i < (size_t)v->chunks && i < PLAN_RANK_CHUNKS_MAX; i++) {
            double layer = v->layer_dense[i] / tp + v->layer_expert[i] / ep;
            if (layer > layer_max)
                layer_max = layer;
        }
        out->weights += layer_max * (2 * wb + s->grad_bytes);
    }
    out->grads =
        (dense / (p->zero >= 2 ? rd : 1) + expert / (p->zero >= 2 ? rx : 1)) *
        s->grad_bytes;
    out->optimizer =
        (dense / (p->zero >= 1 ? rd : 1) + expert / (p->zero >= 1 ? rx : 1)) *
        (s->master_bytes + 2 * s->moment_bytes);
    /* In-flight micro-batches times the rank's mean chunk activations. */
    out->activations = plan_inflight(p, v->rank) * tokens *
                       v->sum.act_bytes[p->precision][p->recompute] / v->chunks;
    out->logits = 0;
    if (v->sum.has_head) /* FP32 logits of one micro-batch (Korthikanti
                          * §4.3: 4sbv/t) */
        out->logits = tokens * (double)s->vocab * s->logits_bytes *
                      (1 + (s->mtp_enabled ? (double)s->mtp_depth : 0));
    out->activations += out->logits;
    out->other =
        (hw->spec.cuda_context_gib + hw->spec.nccl_buffers_gib) * 1073741824.0 +
        hw->spec.fragmentation_pct / 100 *
            (out->weights + out->grads + out->optimizer + out->activations);
    out->total = out->weights + out->grads + out->optimizer + out->activations +
                 out->other;
    out->capacity = hw->capacity_bytes;
}
