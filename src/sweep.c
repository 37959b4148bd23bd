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
}
