/*
 * plan: parsing, validation, family names and group placement.
 */
#include "plan.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"
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

/* ---- Parsing ---- */

struct key {
    const char *name;
    size_t offset; /* into struct plan */
    bool is_int;   /* long, else int enum */
    const char *choices;
    long min, max;
};

/* clang-format off */
static const struct key keys[] = {
    {"gpus", offsetof(struct plan, gpus), true, NULL, 1, 100000000},
    {"tp", offsetof(struct plan, tp), true, NULL, 1, 1000000},
    {"pp", offsetof(struct plan, pp), true, NULL, 1, 1000000},
    {"ep", offsetof(struct plan, ep), true, NULL, 1, 1000000},
    {"cp", offsetof(struct plan, cp), true, NULL, 1, 1000000},
    {"zero", offsetof(struct plan, zero), true, NULL, 0, PLAN_ZERO_MAX},
    {"schedule", offsetof(struct plan, schedule), false, PLAN_SCHEDULE_CHOICES, 0, 0},
    {"vpp", offsetof(struct plan, vpp), true, NULL, 1, 1000},
    {"precision", offsetof(struct plan, precision), false, PLAN_PRECISION_CHOICES, 0, 0},
    {"recompute", offsetof(struct plan, recompute), false, PLAN_RECOMPUTE_CHOICES, 0, 0},
    {"mbs", offsetof(struct plan, mbs), true, NULL, 1, 1000000},
    {"gbs", offsetof(struct plan, gbs), true, NULL, 1, 1000000000},
    {"dp", offsetof(struct plan, dp), true, NULL, 1, 100000000},
    {"sp", offsetof(struct plan, no_sp), true, NULL, 0, 1},
    {"pp_first", offsetof(struct plan, pp_first), true, NULL, 0, 1000000},
    {"pp_last", offsetof(struct plan, pp_last), true, NULL, 0, 1000000},
    {"pp_split", offsetof(struct plan, pp_split), false, PLAN_SPLIT_CHOICES, 0, 0},
    {"pp_layout", offsetof(struct plan, layout_chunks), false, NULL, 0, 0},
    {"offload", offsetof(struct plan, offload), true, NULL, 0, 1000000},
};
/* clang-format on */
#define NKEYS (sizeof keys / sizeof keys[0])

static int choice(const char *choices, const char *word)
{
    struct datafile_field f = {0};
    double v;
    char why[8];
    f.type = DATAFILE_ENUM;
    f.choices = choices;
    if (!datafile_parse_scalar(&f, word, &v, why, sizeof why))
        return -1;
    return (int)v;
}

static enum status parse_token(const char *tok,
                               struct plan *out,
                               bool *seen,
                               long *given_dp,
                               struct diag *d)
{
    const char *eq = strchr(tok, '=');
    char name[32], shown[160], key_shown[140];
    size_t i;
    /* messages quote the token: control characters shown as \xNN */
    datafile_text_quote(tok, shown, sizeof shown);
    if (!eq || eq == tok)
        return diag_set(
            d, STATUS_USAGE,
            "PLAN token '%s': expected key=value (keys: gpus tp "
            "pp ep cp zero schedule vpp precision recompute mbs "
            "gbs dp sp pp_first pp_last pp_split pp_layout offload)",
            shown);
    snprintf(name, sizeof name, "%.*s", (int)(eq - tok), tok);
    for (i = 0; i < NKEYS; i++) {
        const struct key *k = &keys[i];
        char *at = (char *)out + k->offset;
        const char *val = eq + 1;
        if (strcmp(k->name, name) != 0)
            continue;
        if (seen[i])
            return diag_set(d, STATUS_USAGE, "PLAN token '%s': %s given twice",
                            shown, name);
        seen[i] = true;
        if (!k->is_int && !k->choices) { /* pp_layout */
            char why[96];
            if (!plan_layout_parse(val, out, why, sizeof why))
                return diag_set(d, STATUS_USAGE, "PLAN token '%s': %s", shown,
                                why);
        } else if (k->is_int) {
            long v;
            if (!datafile_parse_long(val, &v) || v < k->min || v > k->max)
                return diag_set(d, STATUS_USAGE,
                                "PLAN token '%s': %s expects an integer in "
                                "%ld..%ld",
                                shown, name, k->min, k->max);
            if (strcmp(name, "dp") == 0)
                *given_dp = v;
            else if (strcmp(name, "sp") == 0) /* stored inverted */
                *(bool *)(void *)at = v == 0;
            else
                *(long *)(void *)at = v;
        } else {
            int v = choice(k->choices, val);
            if (v < 0)
                return diag_set(d, STATUS_USAGE,
                                "PLAN token '%s': %s expects one of %s", shown,
                                name, k->choices);
            *(int *)(void *)at = v;
        }
        return STATUS_OK;
    }
    datafile_text_quote(name, key_shown, sizeof key_shown);
    return diag_set(d, STATUS_USAGE,
                    "PLAN token '%s': unknown key '%s' (keys: gpus tp pp ep "
                    "cp zero schedule vpp precision recompute mbs gbs dp sp "
                    "pp_first pp_last pp_split pp_layout offload)",
                    shown, key_shown);
}

enum status plan_parse(char *const *args,
                       size_t nargs,
                       const struct plan *defaults,
                       struct plan *out,
                       long *given_dp,
                       struct diag *d)
{
    bool seen[NKEYS] = {false};
    size_t a;
    *out = *defaults;
    *given_dp = 0;
    for (a = 0; a < nargs; a++) {
        const char *c = args[a];
        while (*c) {
            char tok[128];
            size_t n = 0;
            while (*c == ' ' || *c == ',' || *c == '\t')
                c++;
            if (!*c)
                break;
            while (c[n] && c[n] != ' ' && c[n] != ',' && c[n] != '\t')
                n++;
            if (n >= sizeof tok) {
                char cut[48];
                datafile_text_quote(c, cut, sizeof cut);
                return diag_set(d, STATUS_USAGE, "PLAN token '%s': too long",
                                cut);
            }
            memcpy(tok, c, n);
            tok[n] = '\0';
            c += n;
            if (parse_token(tok, out, seen, given_dp, d) != STATUS_OK)
                return d->status;
        }
    }
    return STATUS_OK;
}

/* ---- Validation ---- */

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

enum plan_reason plan_check_rest(struct plan *p,
                                 const struct model *m,
                                 const struct hardware *hw,
                                 bool redundant,
                                 struct diag *d)
{
    const struct model_spec *s = &m->spec;
    long chunks;
    const struct plan_schedule_row *sch = plan_schedule_of(p->schedule);
    enum plan_reason why;

    p->microbatches = 0;
    why = plan_check_vpp(p, d);
    if (why != PLAN_OK)
        return why;
    chunks = p->pp * p->vpp;
    if (p->layout_chunks > 0) {
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
    } else if (p->pp_first > 0 || p->pp_last > 0 ||
               p->pp_split != PLAN_SPLIT_BALANCED) {
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
    } else if (chunks > m->units && s->mtp_depth > 0)
        /* an MTP module may fill a chunk alone (Megatron-LM's layouts:
         * "...|mL"), so the units count; named apart from the layers */
        return reject(d, PLAN_BAD_PP_LAYERS,
                      "pp*vpp=%ld pipeline chunks for %ld decoder layers and "
                      "%ld MTP module%s: at most %ld chunks, each holding "
                      "one or more",
                      chunks, s->layers, s->mtp_depth,
                      s->mtp_depth == 1 ? "" : "s", m->units);
    else if (chunks > m->units)
        return reject(d, PLAN_BAD_PP_LAYERS,
                      "pp*vpp=%ld pipeline chunks for %ld layers", chunks,
                      m->units);
    if (p->gbs % (p->dp * p->mbs) != 0)
        return reject(d, PLAN_BAD_BATCH,
                      "gbs=%ld is not a multiple of dp*mbs=%ld", p->gbs,
                      p->dp * p->mbs);
    p->microbatches = p->gbs / (p->dp * p->mbs);
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
    if (p->precision == MODEL_FP8 && hw->spec.fp8_peak_tflops <= 0)
        return reject(d, PLAN_BAD_NO_FP8,
                      "precision=fp8 on a GPU without FP8 tensor cores "
                      "(%s)",
                      hw->spec.gpu_name);
    if (redundant && p->pp == 1 && p->schedule != PLAN_1F1B)
        return reject(d, PLAN_SAME_SCHEDULE,
                      "pp=%ld: the schedule has no effect", p->pp);
    if (redundant && p->zero > 0 && p->dp * p->cp == 1 && p->edp == 1)
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
                            bool redundant,
                            struct diag *d)
{
    enum plan_reason why = plan_check_split(p, m, hw, d);
    if (why != PLAN_OK)
        return why;
    return plan_check_rest(p, m, hw, redundant, d);
}

/* ---- Names ---- */

/* The parallelism a family names after its data-parallel part, in
 * order (plan_family, plan_family_known). */
static const char *const family_parts[] = {"TP", "CP", "PP", "EP"};
#define FAMILY_PARTS (sizeof family_parts / sizeof family_parts[0])

/* The family name of data parallelism with ZeRO stage zero (zero < 0:
 * none) and the family_parts[] whose bit is set in parts. */
static void family_name(long zero, unsigned parts, char *buf, size_t size)
{
    size_t used = 0, k;
    buf[0] = '\0';
    if (zero >= 0) {
        if (zero == 0)
            used = (size_t)snprintf(buf, size, "DP");
        else
            used = (size_t)snprintf(buf, size, "ZeRO-%ld", zero);
    }
    for (k = 0; k < FAMILY_PARTS && used < size; k++)
        if (parts & (1u << k))
            used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                     used ? "+" : "", family_parts[k]);
    if (used == 0)
        snprintf(buf, size, "single GPU");
}

void plan_family(const struct plan *p, char *buf, size_t size)
{
    const long degree[FAMILY_PARTS] = {p->tp, p->cp, p->pp, p->ep};
    unsigned parts = 0;
    size_t k;
    for (k = 0; k < FAMILY_PARTS; k++)
        if (degree[k] > 1)
            parts |= 1u << k;
    family_name(p->dp > 1 ? p->zero : -1, parts, buf, size);
}

bool plan_family_known(const char *name)
{
    long zero;
    unsigned parts;
    char buf[64];
    for (zero = -1; zero <= PLAN_ZERO_MAX; zero++)
        for (parts = 0; parts < 1u << FAMILY_PARTS; parts++) {
            family_name(zero, parts, buf, sizeof buf);
            if (strcmp(buf, name) == 0)
                return true;
        }
    return false;
}

static const char *word(const char *const *words, size_t n, int i)
{
    return i >= 0 && (size_t)i < n ? words[i] : "?";
}

const char *plan_schedule_str(int schedule)
{
    return schedule >= 0 && schedule < PLAN_SCHEDULES
               ? plan_schedule_of(schedule)->name
               : "?";
}

const char *plan_precision_str(int precision)
{
    static const char *const w[] = {"bf16", "fp8"};
    return word(w, sizeof w / sizeof w[0], precision);
}

const char *plan_recompute_str(int recompute)
{
    static const char *const w[] = {"none", "selective", "full"};
    return word(w, sizeof w / sizeof w[0], recompute);
}

/* ---- Megatron-LM's pipeline layout notation ---- */

/* Longest expanded layout: 4096 symbols (Megatron's layouts for
 * 61-layer models expand to under 100). */
#define LAYOUT_MAX 4096

/* Appends the symbols of text from *at up to its end or a ')' to buf
 * (*n of them so far), each "X*N" and "(...)*N" repeated N times. */
static bool layout_expand(const char **at,
                          char *buf,
                          size_t *n,
                          int depth,
                          char *why,
                          size_t why_size)
{
    while (**at && **at != ')') {
        size_t from = *n, len;
        long times = 1;
        if (**at == '(') {
            if (depth >= 8) {
                snprintf(why, why_size, "pp_layout nests '(' too deep");
                return false;
            }
            (*at)++;
            if (!layout_expand(at, buf, n, depth + 1, why, why_size))
                return false;
            if (**at != ')') {
                snprintf(why, why_size, "pp_layout: '(' without ')'");
                return false;
            }
            (*at)++;
        } else if (strchr("EtmL|", **at)) {
            if (*n + 1 >= LAYOUT_MAX) {
                snprintf(why, why_size, "pp_layout expands past %d symbols",
                         LAYOUT_MAX);
                return false;
            }
            buf[(*n)++] = *(*at)++;
        } else {
            char one[2] = {**at, '\0'}, sym[16];
            datafile_text_quote(one, sym, sizeof sym); /* \xNN: not text */
            snprintf(why, why_size,
                     "pp_layout: '%s' is not one of E t m L | ( ) *N", sym);
            return false;
        }
        if (**at == '*') {
            char *end;
            (*at)++;
            times = strtol(*at, &end, 10);
            if (end == *at || times < 1 || times > LAYOUT_MAX) {
                snprintf(why, why_size, "pp_layout: '*' wants a count 1..%d",
                         LAYOUT_MAX);
                return false;
            }
            *at = end;
        }
        len = *n - from;
        if (len * (size_t)(times - 1) + *n >= LAYOUT_MAX) {
            snprintf(why, why_size, "pp_layout expands past %d symbols",
                     LAYOUT_MAX);
            return false;
        }
        for (; times > 1; times--, *n += len)
            memcpy(buf + *n, buf + from, len);
    }
    return true;
}

bool plan_layout_parse(const char *text,
                       struct plan *p,
                       char *why,
                       size_t why_size)
{
    char buf[LAYOUT_MAX];
    const char *at = text;
    size_t n = 0, i;
    long chunk = 0, t = 0, first = -1, middle = -1, mtp = 0;
    bool embedding = false, loss = false;
    if (!layout_expand(&at, buf, &n, 0, why, why_size))
        return false;
    if (*at == ')') {
        snprintf(why, why_size, "pp_layout: ')' without '('");
        return false;
    }
    buf[n] = '|'; /* closes the last chunk */
    for (i = 0; i <= n; i++) {
        char c = buf[i];
        if (loss && c != '|') {
            snprintf(why, why_size, "pp_layout: 'L' must end the last chunk");
            return false;
        }
        if (c == 't')
            t++;
        else if (c == 'E') {
            if (chunk != 0 || i != 0) {
                snprintf(why, why_size,
                         "pp_layout: 'E' must open the first chunk");
                return false;
            }
            embedding = true;
        } else if (c == 'm')
            mtp++;
        else if (c == 'L')
            loss = true;
        else { /* '|': chunk `chunk` ends with t decoder layers */
            if (loss && i != n) {
                snprintf(why, why_size,
                         "pp_layout: 'L' must end the last chunk");
                return false;
            }
            if (mtp > 0 && i != n) {
                snprintf(why, why_size,
                         "pp_layout: MTP modules ('m') only in the last "
                         "chunk (roofplan places them with the head)");
                return false;
            }
            if (chunk == 0)
                first = t;
            else if (i != n) {
                if (middle >= 0 && t != middle) {
                    snprintf(why, why_size,
                             "pp_layout: the chunks between the first and "
                             "the last must hold equal decoder layers (%ld "
                             "and %ld)",
                             middle, t);
                    return false;
                }
                middle = t;
            }
            if (i == n)
                break;
            chunk++;
            t = 0;
        }
    }
    if (!embedding || !loss || chunk < 1) {
        snprintf(why, why_size,
                 "pp_layout needs 'E' in the first chunk, 'L' at the end of "
                 "the last and at least two chunks");
        return false;
    }
    if (middle == 0) {
        snprintf(why, why_size,
                 "pp_layout: a middle chunk without a decoder layer");
        return false;
    }
    p->layout_chunks = chunk + 1;
    p->layout_first = first;
    p->layout_middle = middle > 0 ? middle : 0;
    p->layout_last = t;
    p->layout_mtp = mtp;
    return true;
}

/* "t", "t*N" or "" for n decoder layers. */
static void layout_layers(long n, char *buf, size_t size)
{
    if (n <= 0)
        buf[0] = '\0';
    else if (n == 1)
        snprintf(buf, size, "t");
    else
        snprintf(buf, size, "t*%ld", n);
}

void plan_layout_format(const struct plan *p, char *buf, size_t size)
{
    char first[24], middle[24], last[24], mid[64] = "", mtp[24] = "";
    if (p->layout_chunks < 2) {
        snprintf(buf, size, "%s", "");
        return;
    }
    layout_layers(p->layout_first, first, sizeof first);
    layout_layers(p->layout_middle, middle, sizeof middle);
    layout_layers(p->layout_last, last, sizeof last);
    if (p->layout_chunks > 2)
        snprintf(mid, sizeof mid, "(%s|)*%ld", middle, p->layout_chunks - 2);
    if (p->layout_mtp == 1)
        snprintf(mtp, sizeof mtp, "m");
    else if (p->layout_mtp > 1)
        snprintf(mtp, sizeof mtp, "m*%ld", p->layout_mtp);
    snprintf(buf, size, "E%s|%s%s%sL", first, mid, last, mtp);
}

const char *plan_split_str(int split)
{
    static const char *const w[] = {"balanced", "uniform", "embedding", "loss",
                                    "embedding_loss"};
    return word(w, sizeof w / sizeof w[0], split);
}

bool plan_split_shape_ok(const struct plan *p)
{
    bool counts = p->pp_first > 0 || p->pp_last > 0;
    if (p->layout_chunks > 0)
        return p->pp >= 2 && !counts && p->pp_split == PLAN_SPLIT_BALANCED &&
               p->layout_chunks == p->pp * p->vpp;
    return p->pp >= 2 &&
           !(counts && (p->vpp != 1 || p->pp_split != PLAN_SPLIT_BALANCED));
}

bool plan_split_layers(const struct plan *p,
                       long layers,
                       long *first,
                       long *last)
{
    long chunks = p->pp * p->vpp, counted = layers, each;
    bool embedding = p->pp_split == PLAN_SPLIT_EMBEDDING ||
                     p->pp_split == PLAN_SPLIT_EMBEDDING_LOSS;
    bool loss = p->pp_split == PLAN_SPLIT_LOSS ||
                p->pp_split == PLAN_SPLIT_EMBEDDING_LOSS;
    *first = *last = 0;
    if (chunks < 2)
        return p->pp_first > 0 || p->pp_last > 0 ||
               p->pp_split != PLAN_SPLIT_BALANCED || p->layout_chunks > 0;
    if (p->layout_chunks > 0) {
        /* the layout's ends; its middle chunks must be the others' share
         * (model_partition_split_ok's, checked by plan_check) */
        *first = p->layout_first;
        *last = p->layout_last;
        if (p->layout_chunks != chunks ||
            p->layout_first + p->layout_last +
                    p->layout_middle * (chunks - 2) !=
                layers)
            *first = -1; /* refused by model_partition_split_ok */
        return true;
    }
    if (p->pp_first > 0 || p->pp_last > 0) {
        /* Megatron's --decoder-first/last-pipeline-num-layers: an unset
         * end holds the others' share, at least one layer (Megatron-LM's
         * TransformerConfig: "Mismatch: 0 middle layers remaining but 1
         * middle PP stages available" for pp=2 with every layer last) */
        long fixed = (p->pp_first > 0) + (p->pp_last > 0);
        long share = chunks > fixed ? (layers - p->pp_first - p->pp_last) /
                                          (chunks - fixed)
                                    : 0;
        *first = p->pp_first > 0 ? p->pp_first : share;
        *last = p->pp_last > 0 ? p->pp_last : share;
        if (share * (chunks - fixed) != layers - p->pp_first - p->pp_last ||
            (chunks > fixed && share < 1))
            *first = -1; /* refused by model_partition_split_ok */
        return true;
    }
    if (p->pp_split == PLAN_SPLIT_BALANCED)
        return false;
    /* get_num_layers_to_build: the embedding and the loss count as a
     * layer each, the counted layers split equally, the ends build one
     * decoder layer fewer */
    counted += embedding + loss;
    each = counted / chunks;
    if (counted % chunks != 0)
        each = -1; /* refused by model_partition_split_ok */
    *first = each - embedding;
    *last = each - loss;
    return true;
}

void plan_format(const struct plan *p, char *buf, size_t size)
{
    char split[96] = "", layout[64], offload[32] = "";
    if (p->offload > 0)
        snprintf(offload, sizeof offload, " offload=%ld", p->offload);
    if (p->layout_chunks > 0) {
        plan_layout_format(p, layout, sizeof layout);
        snprintf(split, sizeof split, " pp_layout=%s", layout);
    } else if (p->pp_first > 0 || p->pp_last > 0)
        snprintf(split, sizeof split, " pp_first=%ld pp_last=%ld", p->pp_first,
                 p->pp_last);
    else if (p->pp_split != PLAN_SPLIT_BALANCED)
        snprintf(split, sizeof split, " pp_split=%s",
                 plan_split_str(p->pp_split));
    snprintf(buf, size,
             "gpus=%ld tp=%ld pp=%ld ep=%ld cp=%ld zero=%ld schedule=%s "
             "vpp=%ld precision=%s recompute=%s mbs=%ld gbs=%ld%s%s%s",
             p->gpus, p->tp, p->pp, p->ep, p->cp, p->zero,
             plan_schedule_str(p->schedule), p->vpp,
             plan_precision_str(p->precision), plan_recompute_str(p->recompute),
             p->mbs, p->gbs, p->no_sp ? " sp=0" : "", split, offload);
}

struct plan_span plan_span(long size, long stride, long domain)
{
    struct plan_span s;
    s.size = size;
    if (size <= 1) {
        s.per_node = 1;
        s.nodes = 1;
    } else if (stride >= domain) {
        s.per_node = 1;
        s.nodes = size;
    } else {
        /* ranks 0, stride, 2 stride, ...: domain of rank r is r / domain
         * (a partial last domain changes nothing for the first group).
         * Exact in double (operands below 2^53) and cheaper than two
         * 64-bit integer divisions in the sweep's inner loop. */
        double nodes =
            floor((double)(size - 1) * (double)stride / (double)domain) + 1;
        s.nodes = (long)nodes;
        s.per_node = (long)ceil((double)size / nodes);
    }
    return s;
}

size_t plan_rank_chunks(const struct plan *p,
                        long rank,
                        long *chunk,
                        double *microbatches)
{
    double m = (double)p->microbatches;
    size_t n = 0;
    long j;
    enum plan_layout l = plan_schedule_of(p->schedule)->layout;
    if (l == PLAN_LAYOUT_PAIRED && p->pp >= 2) {
        chunk[0] = rank;
        chunk[1] = p->pp - 1 - rank;
        microbatches[0] = microbatches[1] = m / 2;
        return 2;
    }
    if (l == PLAN_LAYOUT_INTERLEAVED) {
        for (j = 0; j < p->vpp && n < PLAN_RANK_CHUNKS_MAX; j++) {
            chunk[n] = rank + j * p->pp;
            microbatches[n++] = m;
        }
        return n;
    }
    chunk[0] = rank;
    microbatches[0] = m;
    return 1;
}

double plan_inflight(const struct plan *p, long rank)
{
    if (p->pp == 1)
        return 1;
    return plan_schedule_of(p->schedule)->inflight(p, rank);
}

/* DualPipe's in-flight micro-batches through chunk j of a rank (see
 * plan_inflight_chunk). */
static double inflight_paired(const struct plan *p, long rank, size_t j)
{
    double half = (double)p->microbatches / 2;
    double n = (double)(j == 0 ? p->pp - rank : rank + 1);
    return n < half ? n : half;
}

double plan_inflight_chunk(const struct plan *p, long rank, size_t j)
{
    enum plan_layout l = plan_schedule_of(p->schedule)->layout;
    long chunks = 1; /* plan_rank_chunks' count, without the chunks */
    if (l == PLAN_LAYOUT_PAIRED && p->pp >= 2)
        return inflight_paired(p, rank, j);
    if (l == PLAN_LAYOUT_INTERLEAVED) /* vpp, at most the most a rank holds */
        chunks = p->vpp < PLAN_RANK_CHUNKS_MAX ? p->vpp : PLAN_RANK_CHUNKS_MAX;
    if (chunks < 0)
        chunks = 0;
    return plan_inflight(p, rank) / (double)chunks;
}

void plan_inflight_chunks(const struct plan *p, long rank, size_t n, double *in)
{
    size_t j;
    double each;
    if (n == 0)
        return;
    if (plan_schedule_of(p->schedule)->layout == PLAN_LAYOUT_PAIRED &&
        p->pp >= 2) {
        for (j = 0; j < n; j++)
            in[j] = inflight_paired(p, rank, j);
        return;
    }
    each = plan_inflight_chunk(p, rank, 0); /* an equal share each */
    for (j = 0; j < n; j++)
        in[j] = each;
}

void plan_rank_view(const struct plan *p,
                    const struct model_partition *part,
                    long rank,
                    struct plan_rank *out)
{
    long chunk[PLAN_RANK_CHUNKS_MAX];
    double mb[PLAN_RANK_CHUNKS_MAX];
    size_t n = plan_rank_chunks(p, rank, chunk, mb), i;
    memset(out, 0, sizeof *out);
    out->rank = rank;
    out->chunks = (double)n;
    out->mb_share =
        plan_schedule_of(p->schedule)->layout == PLAN_LAYOUT_PAIRED &&
                p->pp >= 2
            ? 0.5
            : 1;
    out->part = part;
    for (i = 0; i < n; i++) {
        out->index[i] = chunk[i];
        model_chunk_add(&out->sum, &part->chunk[chunk[i]]);
        out->layer_dense[i] = part->chunk[chunk[i]].max_layer_dense;
        out->layer_expert[i] = part->chunk[chunk[i]].max_layer_expert;
        /* a chunk sends forward unless last, backward unless first */
        out->pp_sends +=
            (chunk[i] + 1 < part->chunks ? 1 : 0) + (chunk[i] > 0 ? 1 : 0);
    }
}
