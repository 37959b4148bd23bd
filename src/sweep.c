/*
 * sweep: the sweep file's schema and the plan space.
 */
#include "sweep.h"

#include <string.h>

#define OFF(member) offsetof(struct sweep_spec, member)
#define SC          PLAN_SCHEDULE_CHOICES
#define PC          PLAN_PRECISION_CHOICES
#define RC          PLAN_RECOMPUTE_CHOICES

/* clang-format off */
static const struct datafile_field fields[] = {
    {"space", "gpus", DATAFILE_LIST, OFF(gpus), 0, 0, 1e8, false, false, "0", "", NULL, "cluster sizes (0: the hardware file's)"},
    {"space", "tp", DATAFILE_LIST, OFF(tp), 0, 1, 1e6, false, false, "1", "", NULL, "tensor-parallel sizes"},
    {"space", "pp", DATAFILE_LIST, OFF(pp), 0, 1, 1e6, false, false, "1", "", NULL, "pipeline-parallel sizes"},
    {"space", "ep", DATAFILE_LIST, OFF(ep), 0, 1, 1e6, false, false, "1", "", NULL, "expert-parallel sizes"},
    {"space", "cp", DATAFILE_LIST, OFF(cp), 0, 1, 1e6, false, false, "1", "", NULL, "context-parallel sizes"},
    {"space", "zero", DATAFILE_LIST, OFF(zero), 0, 0, 3, false, false, "0", "", NULL, "ZeRO stages"},
    {"space", "schedule", DATAFILE_LIST, OFF(schedule), 0, 0, 0, false, false, "1f1b", "", SC, "pipeline schedules"},
    {"space", "vpp", DATAFILE_LIST, OFF(vpp), 0, 2, 64, false, false, "2", "", NULL, "virtual stages per GPU, for the interleaved schedule"},
    {"space", "precision", DATAFILE_LIST, OFF(precision), 0, 0, 0, false, false, "bf16", "", PC, "GEMM precisions"},
    {"space", "recompute", DATAFILE_LIST, OFF(recompute), 0, 0, 0, false, false, "none", "", RC, "recomputation policies"},
    {"space", "mbs", DATAFILE_LIST, OFF(mbs), 0, 1, 1e6, false, false, "1", "sequences", NULL, "micro-batch sizes"},
    {"space", "gbs", DATAFILE_LIST, OFF(gbs), 0, 0, 1e9, false, false, "0", "sequences", NULL, "target global batches (0: the model file's)"},
    {"defaults", "gpus", DATAFILE_INT, OFF(d_gpus), 0, 0, 1e8, false, false, "0", "", NULL, "GPUs (0: the hardware file's)"},
    {"defaults", "tp", DATAFILE_INT, OFF(d_tp), 0, 1, 1e6, false, false, "1", "", NULL, "tensor parallel"},
    {"defaults", "pp", DATAFILE_INT, OFF(d_pp), 0, 1, 1e6, false, false, "1", "", NULL, "pipeline parallel"},
    {"defaults", "ep", DATAFILE_INT, OFF(d_ep), 0, 1, 1e6, false, false, "1", "", NULL, "expert parallel"},
    {"defaults", "cp", DATAFILE_INT, OFF(d_cp), 0, 1, 1e6, false, false, "1", "", NULL, "context parallel"},
    {"defaults", "zero", DATAFILE_INT, OFF(d_zero), 0, 0, 3, false, false, "0", "", NULL, "ZeRO stage"},
    {"defaults", "schedule", DATAFILE_ENUM, OFF(d_schedule), 0, 0, 0, false, false, "1f1b", "", SC, "pipeline schedule"},
    {"defaults", "vpp", DATAFILE_INT, OFF(d_vpp), 0, 1, 64, false, false, "1", "", NULL, "virtual stages per GPU"},
    {"defaults", "precision", DATAFILE_ENUM, OFF(d_precision), 0, 0, 0, false, false, "bf16", "", PC, "GEMM precision"},
    {"defaults", "recompute", DATAFILE_ENUM, OFF(d_recompute), 0, 0, 0, false, false, "none", "", RC, "recomputation"},
    {"defaults", "mbs", DATAFILE_INT, OFF(d_mbs), 0, 1, 1e6, false, false, "1", "sequences", NULL, "micro-batch"},
    {"defaults", "gbs", DATAFILE_INT, OFF(d_gbs), 0, 0, 1e9, false, false, "0", "sequences", NULL, "global batch (0: the model file's)"},
    {"defaults", "sp", DATAFILE_INT, OFF(d_sp), 0, 0, 1, false, false, "1", "", NULL, "sequence parallelism with tp (1: on, 0: off)"},
};
/* clang-format on */

const struct datafile_schema sweep_schema = {"sweep", fields,
                                             sizeof fields / sizeof fields[0]};

enum status sweep_load(const char *path,
                       struct sweep_file *sf,
                       struct datafile_set *sets,
                       size_t nsets,
                       struct diag *d)
{
    memset(sf, 0, sizeof *sf);
    return datafile_load(path, &sweep_schema, &sf->spec, &sf->meta, sets, nsets,
                         d);
}

void sweep_release(struct sweep_file *sf)
{
    if (sf)
        datafile_meta_release(&sf->meta);
}

void sweep_defaults(const struct sweep_file *sf,
                    const struct model *m,
                    const struct hardware *hw,
                    struct plan *out)
{
    const struct sweep_spec *s = &sf->spec;
    memset(out, 0, sizeof *out);
    out->gpus = s->d_gpus ? s->d_gpus : hw->spec.gpus;
    out->tp = s->d_tp;
    out->pp = s->d_pp;
    out->ep = s->d_ep;
    out->cp = s->d_cp;
    out->zero = s->d_zero;
    out->schedule = s->d_schedule;
    out->vpp = s->d_vpp;
    out->precision = s->d_precision;
    out->recompute = s->d_recompute;
    out->mbs = s->d_mbs;
    out->gbs = s->d_gbs ? s->d_gbs : m->spec.global_batch;
    out->no_sp = s->d_sp == 0;
}

static uint64_t mul(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

uint64_t sweep_count(const struct sweep_file *sf)
{
    const struct sweep_spec *s = &sf->spec;
    uint64_t n = 1, sched = 0;
    size_t i;
    for (i = 0; i < s->schedule.n; i++)
        sched += (int)s->schedule.v[i] == PLAN_INTERLEAVED ? s->vpp.n : 1;
    n = mul(n, s->gpus.n);
    n = mul(n, s->tp.n);
    n = mul(n, s->pp.n);
    n = mul(n, s->cp.n);
    n = mul(n, s->ep.n);
    n = mul(n, s->zero.n);
    n = mul(n, sched);
    n = mul(n, s->precision.n);
    n = mul(n, s->recompute.n);
    n = mul(n, s->mbs.n);
    n = mul(n, s->gbs.n);
    return n;
}

enum status
sweep_prepare(const struct sweep_file *sf, struct cost_ctx *ctx, struct diag *d)
{
    const struct sweep_spec *s = &sf->spec;
    size_t i, j, k;
    for (i = 0; i < s->pp.n; i++)
        for (j = 0; j < s->schedule.n; j++) {
            int sched = (int)s->schedule.v[j];
            bool inter = sched == PLAN_INTERLEAVED;
            for (k = 0; k < (inter ? s->vpp.n : 1); k++) {
                long pp = (long)s->pp.v[i];
                long vpp = inter ? (long)s->vpp.v[k] : 1;
                /* plan_check rejects these; DualPipe needs an even pp */
                if ((double)pp * (double)vpp > (double)ctx->m->units ||
                    (sched == PLAN_DUALPIPE && pp % 2 != 0))
                    continue;
                if (cost_ctx_prepare(ctx, pp, vpp, sched, d) != STATUS_OK)
                    return d->status;
            }
        }
    return STATUS_OK;
}

/* Nearest multiple of unit to target, ties upward, at least one unit. */
static long round_batch(long target, long unit)
{
    long k = (target + unit / 2) / unit;
    if (unit % 2 == 0 && target % unit == unit / 2)
        k = target / unit + 1;
    return (k < 1 ? 1 : k) * unit;
}

enum {
    D_GPUS,
    D_TP,
    D_PP,
    D_CP,
    D_EP,
    D_ZERO,
    D_SCHED,
    D_VPP,
    D_PREC,
    D_REC,
    D_MBS,
    D_GBS,
    DIMS
};

/* The plan at odometer position idx (gbs rounded, see sweep.h). */
static void plan_at(const struct sweep_spec *s,
                    const size_t *idx,
                    const struct model *m,
                    const struct hardware *hw,
                    struct plan *p)
{
    long split, unit, target;
    p->gpus = s->gpus.v[idx[D_GPUS]] > 0 ? (long)s->gpus.v[idx[D_GPUS]]
                                         : hw->spec.gpus;
    p->tp = (long)s->tp.v[idx[D_TP]];
    p->pp = (long)s->pp.v[idx[D_PP]];
    p->cp = (long)s->cp.v[idx[D_CP]];
    p->ep = (long)s->ep.v[idx[D_EP]];
    p->zero = (long)s->zero.v[idx[D_ZERO]];
    p->schedule = (int)s->schedule.v[idx[D_SCHED]];
    p->vpp = p->schedule == PLAN_INTERLEAVED ? (long)s->vpp.v[idx[D_VPP]] : 1;
    p->precision = (int)s->precision.v[idx[D_PREC]];
    p->recompute = (int)s->recompute.v[idx[D_REC]];
    p->mbs = (long)s->mbs.v[idx[D_MBS]];
    target = s->gbs.v[idx[D_GBS]] > 0 ? (long)s->gbs.v[idx[D_GBS]]
                                      : m->spec.global_batch;
    split = p->tp * p->pp * p->cp;
    unit = (p->gpus % split == 0 ? p->gpus / split : 1) * p->mbs;
    if (p->schedule == PLAN_DUALPIPE)
        unit *= 2;
    else if (p->schedule == PLAN_INTERLEAVED)
        unit *= p->pp;
    p->gbs = round_batch(target, unit);
}

void sweep_run(const struct sweep_file *sf,
               const struct model *m,
               const struct hardware *hw,
               size_t thread,
               size_t threads,
               sweep_visit visit,
               void *user)
{
    const struct sweep_spec *s = &sf->spec;
    const struct datafile_list *list[DIMS] = {
        &s->gpus,     &s->tp,  &s->pp,        &s->cp,        &s->ep,  &s->zero,
        &s->schedule, &s->vpp, &s->precision, &s->recompute, &s->mbs, &s->gbs};
    size_t idx[DIMS] = {0};
    struct plan p;
    uint64_t index = 0;
    int d;

    for (d = 0; d < DIMS; d++)
        if (list[d]->n == 0)
            return;
    memset(&p, 0, sizeof p);
    for (;;) { /* an odometer over the lists, the last one fastest */
        if ((index / SWEEP_BLOCK) % threads == thread) {
            plan_at(s, idx, m, hw, &p);
            visit(user, &p, plan_check(&p, m, hw, true, NULL), index);
        }
        index++;
        for (d = DIMS - 1; d >= 0; d--) {
            /* vpp only varies under the interleaved schedule */
            size_t len = d == D_VPP && (int)s->schedule.v[idx[D_SCHED]] !=
                                           PLAN_INTERLEAVED
                             ? 1
                             : list[d]->n;
            if (++idx[d] < len)
                break;
            idx[d] = 0;
        }
        if (d < 0)
            return;
    }
}
