/*
 * plan_check: why a plan cannot run on a model and cluster (plan.h,
 * plan_check and its parts): each rule with its reason and a sentence
 * naming the values and what is accepted, and the fields each reason's
 * verdict depends on (plan_reason_fields), which a sweep uses to count a
 * block of rejected combinations at once.
 */
#include "plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "model_partition.h"

const char *plan_reason_str(enum plan_reason r)
{
    static const char *const names[PLAN_REASONS] = {
        [PLAN_OK] = "valid",
        [PLAN_BAD_GPUS] = "gpus do not fill whole nodes",
        [PLAN_BAD_DIVIDE] = "tp*pp*cp does not divide gpus",
        [PLAN_BAD_TP_NODE] = "tp larger than a node",
        [PLAN_BAD_TP_HEADS] = "tp does not divide the attention heads",
        [PLAN_BAD_CP_SEQ] = "cp does not divide the sequence",
        [PLAN_BAD_EP_DENSE] = "ep > 1 on a dense model",
        [PLAN_BAD_EP_EXPERTS] = "ep does not divide the routed experts",
        [PLAN_BAD_EP_GROUP] = "ep does not divide tp*cp*dp",
        [PLAN_BAD_PP_LAYERS] = "more pipeline chunks than layers",
        [PLAN_BAD_BATCH] = "gbs not a multiple of dp*mbs",
        [PLAN_BAD_DUALPIPE] = "DualPipe needs even pp and micro-batches",
        [PLAN_BAD_INTERLEAVED] =
            "interleaved needs vpp >= 2 and micro-batches a multiple of pp",
        [PLAN_BAD_VPP] = "vpp > 1 without the interleaved schedule",
        [PLAN_BAD_NO_FP8] = "fp8 on a GPU without FP8",
        [PLAN_SAME_SCHEDULE] = "pp=1: schedule has no effect (duplicate)",
        [PLAN_SAME_ZERO] = ("no data parallelism: ZeRO has no effect "
                            "(duplicate)"),
        [PLAN_SAME_PLAN] = "same plan as an earlier combination (duplicate)",
        [PLAN_BAD_SP_MOE] = "MoE with tp > 1 needs sequence parallelism",
        [PLAN_BAD_PP_SPLIT] = "pp_first/pp_last leave the other stages "
                              "unequal layers",
        [PLAN_BAD_OFFLOAD] = "offload needs pp=1, no recomputation and "
                             "the GPU's host link",
    };
    if ((int)r >= 0 && r < PLAN_REASONS && names[r])
        return names[r];
    return "unknown reason";
}

static enum plan_reason
reject(struct diag *d, enum plan_reason r, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static enum plan_reason
reject(struct diag *d, enum plan_reason r, const char *fmt, ...)
{
    va_list ap;
    if (!d)
        return r;
    va_start(ap, fmt);
    diag_init(d);
    d->status = STATUS_RANGE;
    d->lines = 1;
    vsnprintf(d->msg, sizeof d->msg, fmt, ap);
    va_end(ap);
    return r;
}

/* The fields plan_check's checks read, cumulated in its order: each
 * reason's row is the set up to the last check giving it. Keep in step
 * with plan_check (tests/test_plan.c varies every other field of
 * rejected plans and holds their reason). */
#define F_GPUS  PLAN_FIELD_GPUS
#define F_SPLIT (F_GPUS | PLAN_FIELD_TP | PLAN_FIELD_PP | PLAN_FIELD_CP)
#define F_SP    (F_SPLIT | PLAN_FIELD_SP)
#define F_EP    (F_SP | PLAN_FIELD_EP)
#define F_VPP   (F_EP | PLAN_FIELD_SCHEDULE | PLAN_FIELD_VPP)
#define F_LAYERS \
    (F_VPP | PLAN_FIELD_PP_FIRST | PLAN_FIELD_PP_LAST | PLAN_FIELD_PP_SPLIT)
#define F_BATCH   (F_LAYERS | PLAN_FIELD_GBS | PLAN_FIELD_MBS)
#define F_FP8     (F_BATCH | PLAN_FIELD_PRECISION)
#define F_ZERO    (F_FP8 | PLAN_FIELD_ZERO)
#define F_OFFLOAD (F_ZERO | PLAN_FIELD_RECOMPUTE | PLAN_FIELD_OFFLOAD)

unsigned plan_reason_fields(enum plan_reason r)
{
    static const unsigned fields[PLAN_REASONS] = {
        [PLAN_OK] = PLAN_FIELDS,
        [PLAN_BAD_GPUS] = F_GPUS,
        [PLAN_BAD_DIVIDE] = F_SPLIT,
        [PLAN_BAD_TP_NODE] = F_SPLIT,
        [PLAN_BAD_TP_HEADS] = F_SPLIT,
        [PLAN_BAD_SP_MOE] = F_SP,
        [PLAN_BAD_CP_SEQ] = F_SP,
        [PLAN_BAD_EP_DENSE] = F_EP,
        [PLAN_BAD_EP_EXPERTS] = F_EP,
        [PLAN_BAD_EP_GROUP] = F_EP,
        [PLAN_BAD_VPP] = F_VPP,
        [PLAN_BAD_PP_SPLIT] = F_LAYERS,
        [PLAN_BAD_PP_LAYERS] = F_LAYERS,
        [PLAN_BAD_BATCH] = F_BATCH,
        /* the shape rules, after the batch (interleaved's vpp >= 2 too) */
        [PLAN_BAD_DUALPIPE] = F_BATCH,
        [PLAN_BAD_INTERLEAVED] = F_BATCH,
        [PLAN_BAD_NO_FP8] = F_FP8,
        [PLAN_SAME_SCHEDULE] = F_FP8,
        [PLAN_SAME_ZERO] = F_ZERO,
        [PLAN_SAME_PLAN] = PLAN_FIELDS,
        /* the last check: pp (in F_ZERO), recompute and offload */
        [PLAN_BAD_OFFLOAD] = F_OFFLOAD,
    };
    if ((int)r >= 0 && r < PLAN_REASONS)
        return fields[r];
    return PLAN_FIELDS;
}

void plan_vpp_schedules(char *buf, size_t size)
{
    size_t used = 0;
    int i;
    buf[0] = '\0';
    for (i = 0; i < PLAN_SCHEDULES; i++)
        if (plan_schedule_of(i)->vpp && used < size)
            used +=
                (size_t)snprintf(buf + used, size - used, "%s%s",
                                 used ? "|" : "", plan_schedule_of(i)->name);
}

enum plan_reason plan_check_vpp(const struct plan *p, struct diag *d)
{
    const struct plan_schedule_row *sch = plan_schedule_of(p->schedule);
    if (!sch->vpp && p->vpp != 1) {
        char names[64] = "";
        if (d)
            plan_vpp_schedules(names, sizeof names);
        return reject(d, PLAN_BAD_VPP,
                      "vpp=%ld needs schedule=%s (other schedules take vpp=1)",
                      p->vpp, names);
    }
    if (sch->vpp && p->vpp < 2)
        return reject(d, sch->shape_reason,
                      "schedule=%s needs vpp >= 2, got vpp=%ld", sch->name,
                      p->vpp);
    return PLAN_OK;
}

enum plan_reason plan_check_split(struct plan *p,
                                  const struct model *m,
                                  const struct hardware *hw,
                                  struct diag *d)
{
    const struct model_spec *s = &m->spec;
    long gpn = hw->spec.gpus_per_node, dom = hw->domain;
    long split, stage;
    long heads_kv = s->attention == MODEL_GQA ? s->kv_heads : s->heads;

    p->dp = p->edp = p->microbatches = 0;
    if (p->gpus > gpn ? p->gpus % gpn != 0 : gpn % p->gpus != 0)
        return reject(d, PLAN_BAD_GPUS,
                      "gpus=%ld does not fill whole nodes of %ld GPUs", p->gpus,
                      gpn);
    split = p->tp * p->pp * p->cp;
    if (p->gpus % split != 0)
        return reject(d, PLAN_BAD_DIVIDE,
                      "tp*pp*cp=%ld does not divide gpus=%ld", split, p->gpus);
    p->dp = p->gpus / split;
    if (p->tp > dom)
        return reject(d, PLAN_BAD_TP_NODE,
                      "tp=%ld is larger than a node (%ld GPUs): tensor "
                      "parallelism stays on NVLink",
                      p->tp, dom);
    if (p->gpus > dom && dom % p->tp != 0)
        return reject(d, PLAN_BAD_TP_NODE,
                      "tp=%ld does not divide the NVLink domain (%ld GPUs): "
                      "some tensor-parallel groups would straddle two",
                      p->tp, dom);
    if (s->heads % p->tp != 0 ||
        (heads_kv % p->tp != 0 && p->tp % heads_kv != 0))
        return reject(d, PLAN_BAD_TP_HEADS,
                      "tp=%ld does not divide the %ld attention heads (or the "
                      "key/value heads)",
                      p->tp, s->heads);
    if (p->no_sp && p->tp > 1 && s->routed_experts > 0)
        return reject(d, PLAN_BAD_SP_MOE,
                      "sp=0 with tp=%ld on a MoE model: expert layers take "
                      "sequence-parallel tokens (Megatron-LM requires it)",
                      p->tp);
    if (s->seq_len % p->cp != 0)
        return reject(d, PLAN_BAD_CP_SEQ,
                      "cp=%ld does not divide the sequence length %ld", p->cp,
                      s->seq_len);
    if (p->ep > 1 && s->routed_experts == 0)
        return reject(d, PLAN_BAD_EP_DENSE,
                      "ep=%ld on a dense model (it has no routed experts)",
                      p->ep);
    if (s->routed_experts > 0 && s->routed_experts % p->ep != 0)
        return reject(d, PLAN_BAD_EP_EXPERTS,
                      "ep=%ld does not divide the %ld routed experts", p->ep,
                      s->routed_experts);
    stage = p->tp * p->cp * p->dp;
    if (stage % p->ep != 0)
        return reject(d, PLAN_BAD_EP_GROUP,
                      "ep=%ld does not divide tp*cp*dp=%ld (the GPUs of a "
                      "pipeline stage)",
                      p->ep, stage);
    p->edp = stage / p->ep;
    return PLAN_OK;
}

/* Megatron-LM's pipeline layout (pp_layout): its shape, the decoder
 * layers and the MTP modules it places. */
static enum plan_reason check_layout(const struct plan *p,
                                     const struct model_spec *s,
                                     long chunks,
                                     struct diag *d)
{
    long first = 0, last = 0;
    char layout[64];
    plan_layout_format(p, layout, sizeof layout);
    if (!plan_split_shape_ok(p))
        return reject(d, PLAN_BAD_PP_SPLIT,
                      "pp_layout=%s: %ld chunks with pp=%ld and vpp=%ld: "
                      "a layout lists pp*vpp chunks (pp >= 2), without "
                      "pp_first/pp_last or pp_split",
                      layout, p->layout_chunks, p->pp, p->vpp);
    plan_split_layers(p, s->layers, &first, &last);
    if (!model_partition_split_ok(s->layers, chunks, first, last))
        return reject(d, PLAN_BAD_PP_SPLIT,
                      "pp_layout=%s places %ld decoder layers; the model "
                      "has %ld",
                      layout,
                      p->layout_first + p->layout_last +
                          p->layout_middle * (chunks - 2),
                      s->layers);
    if (p->layout_mtp != s->mtp_depth)
        return reject(d, PLAN_BAD_PP_SPLIT,
                      "pp_layout=%s places %ld MTP modules ('m'); the "
                      "model has %ld (Megatron-LM's rule)",
                      layout, p->layout_mtp, s->mtp_depth);
    return PLAN_OK;
}

/* A split by counts (pp_first, pp_last) or by a rule (pp_split): its
 * shape, and equal layers over the other chunks. */
static enum plan_reason check_split(const struct plan *p,
                                    const struct model_spec *s,
                                    long chunks,
                                    struct diag *d)
{
    long first = 0, last = 0;
    bool counts = p->pp_first > 0 || p->pp_last > 0;
    if (!plan_split_shape_ok(p))
        return reject(d, PLAN_BAD_PP_SPLIT,
                      "pp_first=%ld pp_last=%ld pp_split=%s with pp=%ld "
                      "and vpp=%ld: a layer split needs pp >= 2, "
                      "pp_first/pp_last need vpp = 1 and pp_split "
                      "balanced (Megatron-LM's rules)",
                      p->pp_first, p->pp_last, plan_split_str(p->pp_split),
                      p->pp, p->vpp);
    plan_split_layers(p, s->layers, &first, &last);
    if (counts && !model_partition_split_ok(s->layers, chunks, first, last))
        return reject(d, PLAN_BAD_PP_SPLIT,
                      "pp_first=%ld pp_last=%ld: with pp=%ld and vpp=%ld "
                      "the other %ld layers must split equally over the "
                      "other stages, at least one each (Megatron-LM's "
                      "rule for --decoder-first/last-pipeline-num-layers; "
                      "pp >= 2, vpp = 1)",
                      p->pp_first, p->pp_last, p->pp, p->vpp,
                      s->layers - p->pp_first - p->pp_last);
    if (!model_partition_split_ok(s->layers, chunks, first, last))
        return reject(d, PLAN_BAD_PP_SPLIT,
                      "pp_split=%s: %ld layers, with the embedding and "
                      "the loss counted as the split counts them, do "
                      "not split equally over pp*vpp=%ld chunks, at "
                      "least one decoder layer each in the middle "
                      "(Megatron-LM's rule)",
                      plan_split_str(p->pp_split), s->layers, chunks);
    return PLAN_OK;
}

/* How the layers split over the pp*vpp chunks: a layout, counts or a
 * rule, else no more chunks than units (layers and MTP modules). */
static enum plan_reason check_layers(const struct plan *p,
                                     const struct model *m,
                                     long chunks,
                                     struct diag *d)
{
    const struct model_spec *s = &m->spec;
    if (p->layout_chunks > 0)
        return check_layout(p, s, chunks, d);
    if (p->pp_first > 0 || p->pp_last > 0 ||
        p->pp_split != MODEL_SPLIT_BALANCED)
        return check_split(p, s, chunks, d);
    if (chunks > m->units && s->mtp_depth > 0)
        /* an MTP module may fill a chunk alone (Megatron-LM's layouts:
         * "...|mL"), so the units count; named apart from the layers */
        return reject(d, PLAN_BAD_PP_LAYERS,
                      "pp*vpp=%ld pipeline chunks for %ld decoder layers and "
                      "%ld MTP module%s: at most %ld chunks, each holding "
                      "one or more",
                      chunks, s->layers, s->mtp_depth,
                      s->mtp_depth == 1 ? "" : "s", m->units);
    if (chunks > m->units)
        return reject(d, PLAN_BAD_PP_LAYERS,
                      "pp*vpp=%ld pipeline chunks for %ld layers", chunks,
                      m->units);
    return PLAN_OK;
}

/* The schedule's shape rules on pp and the micro-batches (its row). */
static enum plan_reason check_shape(const struct plan *p, struct diag *d)
{
    const struct plan_schedule_row *sch = plan_schedule_of(p->schedule);
    if ((sch->pp_even && p->pp % 2 != 0) ||
        (sch->mb_even && p->microbatches % 2 != 0))
        return reject(d, sch->shape_reason,
                      "schedule=%s needs %s, got pp=%ld and %ld", sch->name,
                      sch->pp_even && sch->mb_even
                          ? "an even pp and an even number of micro-batches"
                      : sch->pp_even ? "an even pp"
                                     : "an even number of micro-batches",
                      p->pp, p->microbatches);
    if (sch->mb_pp && p->microbatches % p->pp != 0)
        return reject(d, sch->shape_reason,
                      "schedule=%s needs micro-batches (%ld) to be a "
                      "multiple of pp=%ld",
                      sch->name, p->microbatches, p->pp);
    return PLAN_OK;
}

enum plan_reason plan_check_rest(struct plan *p,
                                 const struct model *m,
                                 const struct hardware *hw,
                                 enum plan_check_mode mode,
                                 struct diag *d)
{
    enum plan_reason why;

    p->microbatches = 0;
    why = plan_check_vpp(p, d);
    if (why == PLAN_OK)
        why = check_layers(p, m, p->pp * p->vpp, d);
    if (why != PLAN_OK)
        return why;
    if (p->gbs % (p->dp * p->mbs) != 0)
        return reject(d, PLAN_BAD_BATCH,
                      "gbs=%ld is not a multiple of dp*mbs=%ld", p->gbs,
                      p->dp * p->mbs);
    p->microbatches = p->gbs / (p->dp * p->mbs);
    why = check_shape(p, d);
    if (why != PLAN_OK)
        return why;
    if (p->precision == MODEL_FP8 && hw->spec.fp8_peak_tflops <= 0)
        return reject(d, PLAN_BAD_NO_FP8,
                      "precision=fp8 on a GPU without FP8 tensor cores "
                      "(%s)",
                      hw->spec.gpu_name);
    if (mode == PLAN_CHECK_DISTINCT && p->pp == 1 && p->schedule != PLAN_1F1B)
        return reject(d, PLAN_SAME_SCHEDULE,
                      "pp=%ld: the schedule has no effect", p->pp);
    if (mode == PLAN_CHECK_DISTINCT && p->zero > 0 && p->dp * p->cp == 1 &&
        p->edp == 1)
        return reject(d, PLAN_SAME_ZERO,
                      "zero=%ld without data parallelism has no effect",
                      p->zero);
    return plan_check_offload(p, m, hw, d);
}

enum plan_reason plan_check_offload(const struct plan *p,
                                    const struct model *m,
                                    const struct hardware *hw,
                                    struct diag *d)
{
    if (p->offload == 0)
        return PLAN_OK;
    /* Megatron-Core's TransformerConfig: "no support for Pipeline
     * parallelism with CPU offloading", "CPU offloading does not work when
     * activation recomputation is enabled", "CPU offloading can be done
     * only for layers less than" the layers */
    if (p->pp > 1)
        return reject(d, PLAN_BAD_OFFLOAD,
                      "offload=%ld with pp=%ld: activation offloading runs "
                      "without pipeline parallelism (Megatron-Core's rule)",
                      p->offload, p->pp);
    if (p->recompute != MODEL_RECOMPUTE_NONE)
        return reject(d, PLAN_BAD_OFFLOAD,
                      "offload=%ld with recompute=%s: activation offloading "
                      "runs without recomputation (Megatron-Core's rule)",
                      p->offload, plan_recompute_str(p->recompute));
    if (p->offload >= m->spec.layers)
        return reject(d, PLAN_BAD_OFFLOAD,
                      "offload=%ld of %ld layers: at most %ld (the last "
                      "layer's activations stay on the GPU)",
                      p->offload, m->spec.layers, m->spec.layers - 1);
    if (hw->spec.host_link_gbps <= 0)
        return reject(d, PLAN_BAD_OFFLOAD,
                      "offload=%ld: the hardware file gives no "
                      "gpu.host_link_gbps (the GPU's link to host memory)",
                      p->offload);
    return PLAN_OK;
}

enum plan_reason plan_check(struct plan *p,
                            const struct model *m,
                            const struct hardware *hw,
                            enum plan_check_mode mode,
                            struct diag *d)
{
    enum plan_reason why = plan_check_split(p, m, hw, d);
    if (why != PLAN_OK)
        return why;
    return plan_check_rest(p, m, hw, mode, d);
}
