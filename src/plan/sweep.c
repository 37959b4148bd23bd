/*
 * sweep: the sweep file's schema and the plan space.
 */
#include "sweep.h"

#include <stdio.h>
#include <string.h>

#include "model_partition.h"

#define OFF(member) offsetof(struct sweep_spec, member)
#define SC          plan_schedule_word
#define PC          plan_precision_word
#define RC          plan_recompute_word
#define LC          split_word

/* The words of a sweep's pp_split: the split rules' and `framework`
 * (SWEEP_SPLIT_FRAMEWORK, the stack file's rule). */
static const char *split_word(int i)
{
    return i == SWEEP_SPLIT_FRAMEWORK ? "framework" : model_split_word(i);
}

/* clang-format off */
static const struct datafile_field fields[] = {
    {.section = "space", .key = "gpus", .type = DATAFILE_LIST, .offset = OFF(gpus), .max = 1e8, .def = "0", .help = "cluster sizes (0: the hardware file's)"},
    {.section = "space", .key = "tp", .type = DATAFILE_LIST, .offset = OFF(tp), .min = 1, .max = 1e6, .def = "1", .help = "tensor-parallel sizes"},
    {.section = "space", .key = "pp", .type = DATAFILE_LIST, .offset = OFF(pp), .min = 1, .max = 1e6, .def = "1", .help = "pipeline-parallel sizes"},
    {.section = "space", .key = "ep", .type = DATAFILE_LIST, .offset = OFF(ep), .min = 1, .max = 1e6, .def = "1", .help = "expert-parallel sizes"},
    {.section = "space", .key = "pp_first", .type = DATAFILE_LIST, .offset = OFF(pp_first), .max = 1e6, .def = "0", .help = "decoder layers on the first pipeline stage (Megatron-LM --decoder-first-pipeline-num-layers; 0 with pp_last 0: the split balanced by time)"},
    {.section = "space", .key = "pp_last", .type = DATAFILE_LIST, .offset = OFF(pp_last), .max = 1e6, .def = "0", .help = "decoder layers on the last pipeline stage (Megatron-LM --decoder-last-pipeline-num-layers), MTP modules besides"},
    {.section = "space", .key = "pp_split", .type = DATAFILE_LIST, .offset = OFF(pp_split), .def = "balanced", .word = LC, .help = "layer splits where pp_first and pp_last are 0: balanced (roofplan's, by forward time), uniform (Megatron-LM's default), embedding, loss, embedding_loss (Megatron-LM's --account-for-embedding/loss-in-pipeline-split: the ends hold a decoder layer fewer), framework (the stack file's pp_split)"},
    {.section = "space", .key = "cp", .type = DATAFILE_LIST, .offset = OFF(cp), .min = 1, .max = 1e6, .def = "1", .help = "context-parallel sizes"},
    {.section = "space", .key = "zero", .type = DATAFILE_LIST, .offset = OFF(zero), .max = 3, .def = "0", .help = "ZeRO stages"},
    {.section = "space", .key = "schedule", .type = DATAFILE_LIST, .offset = OFF(schedule), .def = "1f1b", .word = SC, .help = "pipeline schedules"},
    {.section = "space", .key = "vpp", .type = DATAFILE_LIST, .offset = OFF(vpp), .min = 2, .max = 64, .def = "2", .help = "virtual stages per GPU, for the interleaved schedule"},
    {.section = "space", .key = "precision", .type = DATAFILE_LIST, .offset = OFF(precision), .def = "bf16", .word = PC, .help = "GEMM precisions"},
    {.section = "space", .key = "recompute", .type = DATAFILE_LIST, .offset = OFF(recompute), .def = "none", .word = RC, .help = "recomputation policies"},
    {.section = "space", .key = "offload", .type = DATAFILE_LIST, .offset = OFF(offload), .max = 1e6, .def = "0", .unit = "layers", .help = "decoder layers whose activations are offloaded to host memory (Megatron-Core's cpu_offloading_num_layers; with pp 1, no recomputation and the hardware's host_link_gbps)"},
    {.section = "space", .key = "mbs", .type = DATAFILE_LIST, .offset = OFF(mbs), .min = 1, .max = 1e6, .def = "1", .unit = "sequences", .help = "micro-batch sizes"},
    {.section = "space", .key = "gbs", .type = DATAFILE_LIST, .offset = OFF(gbs), .max = 1e9, .def = "model", .zero_word = "model", .unit = "sequences", .help = "target global batches: model (0), the model's own (its file's training.global_batch, or its recipe's for a config.json), or a number, that batch whatever the model says; each plan takes the nearest multiple of its dp x mbs (x its schedule's unit)"},
    {.section = "defaults", .key = "gpus", .type = DATAFILE_INT, .offset = OFF(d_gpus), .max = 1e8, .def = "0", .help = "GPUs (0: the hardware file's)"},
    {.section = "defaults", .key = "tp", .type = DATAFILE_INT, .offset = OFF(d_tp), .min = 1, .max = 1e6, .def = "1", .help = "tensor parallel"},
    {.section = "defaults", .key = "pp", .type = DATAFILE_INT, .offset = OFF(d_pp), .min = 1, .max = 1e6, .def = "1", .help = "pipeline parallel"},
    {.section = "defaults", .key = "ep", .type = DATAFILE_INT, .offset = OFF(d_ep), .min = 1, .max = 1e6, .def = "1", .help = "expert parallel"},
    {.section = "defaults", .key = "cp", .type = DATAFILE_INT, .offset = OFF(d_cp), .min = 1, .max = 1e6, .def = "1", .help = "context parallel"},
    {.section = "defaults", .key = "zero", .type = DATAFILE_INT, .offset = OFF(d_zero), .max = 3, .def = "0", .help = "ZeRO stage"},
    {.section = "defaults", .key = "schedule", .type = DATAFILE_ENUM, .offset = OFF(d_schedule), .def = "1f1b", .word = SC, .help = "pipeline schedule"},
    {.section = "defaults", .key = "vpp", .type = DATAFILE_INT, .offset = OFF(d_vpp), .min = 1, .max = 64, .def = "1", .help = "virtual stages per GPU"},
    {.section = "defaults", .key = "precision", .type = DATAFILE_ENUM, .offset = OFF(d_precision), .def = "bf16", .word = PC, .help = "GEMM precision"},
    {.section = "defaults", .key = "recompute", .type = DATAFILE_ENUM, .offset = OFF(d_recompute), .def = "none", .word = RC, .help = "recomputation"},
    {.section = "defaults", .key = "offload", .type = DATAFILE_INT, .offset = OFF(d_offload), .max = 1e6, .def = "0", .unit = "layers", .help = "decoder layers whose activations are offloaded to host memory"},
    {.section = "defaults", .key = "mbs", .type = DATAFILE_INT, .offset = OFF(d_mbs), .min = 1, .max = 1e6, .def = "1", .unit = "sequences", .help = "micro-batch"},
    {.section = "defaults", .key = "gbs", .type = DATAFILE_INT, .offset = OFF(d_gbs), .max = 1e9, .def = "model", .zero_word = "model", .unit = "sequences", .help = "global batch (model, 0: the model's own)"},
    {.section = "defaults", .key = "pp_first", .type = DATAFILE_INT, .offset = OFF(d_pp_first), .max = 1e6, .def = "0", .help = "decoder layers on the first pipeline stage (0 with pp_last 0: balanced)"},
    {.section = "defaults", .key = "pp_last", .type = DATAFILE_INT, .offset = OFF(d_pp_last), .max = 1e6, .def = "0", .help = "decoder layers on the last pipeline stage"},
    {.section = "defaults", .key = "pp_split", .type = DATAFILE_ENUM, .offset = OFF(d_pp_split), .def = "balanced", .word = LC, .help = "layer split where pp_first and pp_last are 0 (the [space] key's words)"},
    {.section = "defaults", .key = "sp", .type = DATAFILE_INT, .offset = OFF(d_sp), .max = 1, .def = "1", .help = "sequence parallelism with tp (1: on, 0: off)"},
    {.section = "report", .key = "baseline", .type = DATAFILE_STRING, .offset = OFF(r_baseline), .size = sizeof(((struct sweep_spec *)0)->r_baseline), .def = "ZeRO-3", .help = "family every report compares against: its name as the Plans sheet writes it (pure FSDP: ZeRO-3)"},
    {.section = "report", .key = "sens_ib_gbps", .type = DATAFILE_LIST, .offset = OFF(r_sens_ib), .min = 0.001, .max = 1e6, .def = "12.5 17.7 25 35.4 50 70.7 100 141 200 283 400", .unit = "GB/s", .help = "IB bandwidths per GPU of the sensitivity grid, ascending, at most 16"},
    {.section = "report", .key = "sens_nvlink_gbps", .type = DATAFILE_LIST, .offset = OFF(r_sens_nv), .min = 0.001, .max = 1e6, .def = "80 113 160 226 320 450 640 900", .unit = "GB/s", .help = "NVLink bandwidths per GPU of the sensitivity grid, ascending, at most 16"},
    {.section = "report", .key = "headroom_pct", .type = DATAFILE_DOUBLE, .offset = OFF(r_headroom_pct), .max = 90, .def = "10", .unit = "%", .help = "share of HBM kept free: a plan fits when its memory is at most HBM x (1 - headroom)"},
    {.section = "report", .key = "tie_pct", .type = DATAFILE_DOUBLE, .offset = OFF(r_tie_pct), .max = 50, .def = "2", .unit = "%", .help = "plans this close to the fastest fitting step are ties; the one with the most headroom is recommended"},
    {.section = "report", .key = "plans_sheet", .type = DATAFILE_INT, .offset = OFF(r_plans_sheet), .min = 1, .max = 1048575, .def = "2000", .help = "plans on the Plans sheet: those that fit, best first, and each family's best (--all-plans: every plan; plans.csv always has every plan)"},
    {.section = "report", .key = "scale_efficiency", .type = DATAFILE_DOUBLE, .offset = OFF(r_scale_efficiency), .min = 0, .max = 1, .def = "0.8", .help = "with several cluster sizes ([space] gpus, --gpus): the Scale sheet names the first size whose tokens/s per GPU falls under this share of the smallest size's (0.8: each token costs 25% more than on the smallest)"},
};
/* clang-format on */

static const struct datafile_schema schema = {.kind = "sweep",
                                              .fields = fields,
                                              .n = sizeof fields /
                                                   sizeof fields[0]};

const struct datafile_schema *sweep_schema(void)
{
    return &schema;
}

/* The largest gbs plan_parse accepts: a sweep lists no plan that `eval`
 * would refuse. */
#define GBS_MAX 1000000000L

/* Reports "path:line: defaults.key: problem", the line of key, else of
 * alt (the other key of the rule), else none (both by default). */
static void defaults_bad(const struct sweep_file *sf,
                         struct diag *d,
                         const char *key,
                         const char *alt,
                         const char *problem)
{
    long i = datafile_field_index(sweep_schema(), "defaults", key);
    long j = datafile_field_index(sweep_schema(), "defaults", alt);
    long line = i >= 0 && sf->meta.line[i] > 0   ? sf->meta.line[i]
                : j >= 0 && sf->meta.line[j] > 0 ? sf->meta.line[j]
                                                 : 0;
    /* a --set of key or alt: the argument as typed */
    const char *set = i >= 0 && sf->meta.set_arg[i]   ? sf->meta.set_arg[i]
                      : j >= 0 && sf->meta.set_arg[j] ? sf->meta.set_arg[j]
                                                      : NULL;
    if (line > 0)
        diag_add(d, STATUS_RANGE, "%s:%ld: defaults.%s: %s", sf->meta.path,
                 line, key, problem);
    else if (set)
        diag_add(d, STATUS_RANGE, "%s: --set %s: defaults.%s: %s",
                 sf->meta.path, set, key, problem);
    else
        diag_add(d, STATUS_RANGE, "%s: defaults.%s: %s", sf->meta.path, key,
                 problem);
}

/*
 * The rules of plan_check() that [defaults] can break on its own, without
 * a model or a cluster: schedule and vpp, DualPipe's even pp and, when
 * gpus and gbs are given (not 0), the divisions and the batch. The rest
 * (nodes, heads, experts, layers) is checked with the PLAN by `eval`.
 */
static void check_defaults(const struct sweep_file *sf, struct diag *d)
{
    const struct sweep_spec *s = &sf->spec;
    const struct plan_schedule_row *sch = plan_schedule_of(s->d_schedule);
    char why[200];
    long split, dp, mb;
    struct plan p;
    struct diag pd;
    memset(&p, 0, sizeof p);
    p.schedule = s->d_schedule;
    p.vpp = s->d_vpp;
    if (plan_check_vpp(&p, &pd) != PLAN_OK)
        defaults_bad(sf, d, "vpp", "schedule", pd.msg);
    if (sch->pp_even && s->d_pp % 2 != 0) {
        snprintf(why, sizeof why, "schedule=%s needs an even pp, got %ld",
                 sch->name, s->d_pp);
        defaults_bad(sf, d, "pp", "schedule", why);
    }
    if (s->d_gpus == 0)
        return;                          /* the cluster's: checked by eval */
    split = s->d_tp * s->d_pp * s->d_cp; /* at most 1e18: no overflow */
    if (s->d_gpus % split != 0) {
        snprintf(why, sizeof why, "tp*pp*cp=%ld does not divide gpus=%ld",
                 split, s->d_gpus);
        defaults_bad(sf, d, "gpus", "tp", why);
        return;
    }
    dp = s->d_gpus / split;
    if ((s->d_tp * s->d_cp * dp) % s->d_ep != 0) {
        snprintf(why, sizeof why,
                 "ep=%ld does not divide tp*cp*dp=%ld (the GPUs of a pipeline "
                 "stage)",
                 s->d_ep, s->d_tp * s->d_cp * dp);
        defaults_bad(sf, d, "ep", "gpus", why);
    }
    if (s->d_gbs == 0)
        return; /* the model's: checked by eval */
    if (s->d_gbs % (dp * s->d_mbs) != 0) {
        snprintf(why, sizeof why, "gbs=%ld is not a multiple of dp*mbs=%ld",
                 s->d_gbs, dp * s->d_mbs);
        defaults_bad(sf, d, "gbs", "mbs", why);
        return;
    }
    mb = s->d_gbs / (dp * s->d_mbs);
    if (sch->mb_even && mb % 2 != 0) {
        snprintf(why, sizeof why,
                 "schedule=%s needs an even number of micro-batches, got %ld",
                 sch->name, mb);
        defaults_bad(sf, d, "gbs", "schedule", why);
    }
    if (sch->mb_pp && mb % s->d_pp != 0) {
        snprintf(why, sizeof why,
                 "schedule=%s needs micro-batches (%ld) to be a multiple of "
                 "pp=%ld",
                 sch->name, mb, s->d_pp);
        defaults_bad(sf, d, "gbs", "schedule", why);
    }
}

/* Reports "path:line: report.key: problem" (no line when by default). */
static void report_bad(const struct sweep_file *sf,
                       struct diag *d,
                       const char *key,
                       const char *problem)
{
    long i = datafile_field_index(&schema, "report", key);
    char where[1200];
    if (i < 0)
        diag_add(d, STATUS_RANGE, "%s: report.%s: %s", sf->meta.path, key,
                 problem);
    else
        diag_add(d, STATUS_RANGE, "%s: %s",
                 datafile_meta_where(&sf->meta, (size_t)i, where, sizeof where),
                 problem);
}

/* A sensitivity grid: 1 to SWEEP_SENS_MAX bandwidths, ascending (its
 * chart's x axis and the sheet's columns read left to right). */
static void check_grid(const struct sweep_file *sf,
                       struct diag *d,
                       const char *key,
                       const struct datafile_list *l)
{
    char why[200];
    size_t i;
    if (l->n == 0 || l->n > SWEEP_SENS_MAX) {
        snprintf(why, sizeof why, "expected 1 to %d bandwidths, got %zu",
                 SWEEP_SENS_MAX, l->n);
        report_bad(sf, d, key, why);
        return;
    }
    for (i = 1; i < l->n; i++)
        if (!(l->v[i] > l->v[i - 1])) {
            snprintf(why, sizeof why, "bandwidths must ascend, got %g after %g",
                     l->v[i], l->v[i - 1]);
            report_bad(sf, d, key, why);
            return;
        }
}

enum status sweep_load(const char *path,
                       struct sweep_file *sf,
                       struct datafile_set *sets,
                       size_t nsets,
                       struct diag *d)
{
    enum status st;
    memset(sf, 0, sizeof *sf);
    st = datafile_load(path, sweep_schema(), &sf->spec, &sf->meta, sets, nsets,
                       d);
    if (st != STATUS_OK)
        return st;
    check_defaults(sf, d);
    check_grid(sf, d, "sens_ib_gbps", &sf->spec.r_sens_ib);
    check_grid(sf, d, "sens_nvlink_gbps", &sf->spec.r_sens_nv);
    if (sf->spec.r_baseline[0] == '\0')
        report_bad(sf, d, "baseline", "expected a family name, got \"\"");
    else if (!plan_family_known(sf->spec.r_baseline)) {
        char why[300];
        diag_snprintf(why, sizeof why,
                      "\"%s\" is no family name: expected one as the Plans "
                      "sheet writes it (ZeRO-0..3 as DP or ZeRO-n, then TP, "
                      "CP, PP, EP joined by '+'; e.g. ZeRO-3, ZeRO-1+PP+EP, "
                      "DP+TP)",
                      sf->spec.r_baseline);
        report_bad(sf, d, "baseline", why);
    }
    diag_finish(d);
    if (d->status != STATUS_OK)
        sweep_release(sf);
    return d->status;
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
    out->offload = s->d_offload;
    out->mbs = s->d_mbs;
    out->gbs = s->d_gbs ? s->d_gbs : m->spec.global_batch;
    out->no_sp = s->d_sp == 0;
    out->pp_first = s->d_pp_first;
    out->pp_last = s->d_pp_last;
    out->pp_split = s->d_pp_split;
}

bool sweep_names_framework_split(const struct sweep_file *sf)
{
    const struct datafile_list *l = &sf->spec.pp_split;
    size_t i;
    for (i = 0; i < l->n; i++)
        if ((int)l->v[i] == SWEEP_SPLIT_FRAMEWORK)
            return true;
    return sf->spec.d_pp_split == SWEEP_SPLIT_FRAMEWORK;
}

void sweep_use_framework_split(struct sweep_file *sf, int split)
{
    struct datafile_list *l = &sf->spec.pp_split;
    size_t i, j, n = 0;
    for (i = 0; i < l->n; i++) {
        double v = (int)l->v[i] == SWEEP_SPLIT_FRAMEWORK ? split : l->v[i];
        for (j = 0; j < n && l->v[j] != v; j++)
            ;
        if (j == n && v >= 0)
            l->v[n++] = v;
    }
    l->n = n;
    if (sf->spec.d_pp_split == SWEEP_SPLIT_FRAMEWORK && split >= 0)
        sf->spec.d_pp_split = split;
}

static uint64_t mul(uint64_t a, uint64_t b)
{
    if (a != 0 && b > UINT64_MAX / a)
        return UINT64_MAX;
    return a * b;
}

bool sweep_names_batch(const struct sweep_file *sf)
{
    size_t i;
    for (i = 0; i < sf->spec.gbs.n; i++)
        if (sf->spec.gbs.v[i] > 0)
            return true;
    return false;
}

uint64_t sweep_count(const struct sweep_file *sf)
{
    const struct sweep_spec *s = &sf->spec;
    uint64_t n = 1, sched = 0;
    size_t i;
    for (i = 0; i < s->schedule.n; i++)
        sched += plan_schedule_of((int)s->schedule.v[i])->vpp ? s->vpp.n : 1;
    n = mul(n, s->gpus.n);
    n = mul(n, s->tp.n);
    n = mul(n, s->pp.n);
    n = mul(n, s->pp_first.n);
    n = mul(n, s->pp_last.n);
    n = mul(n, s->pp_split.n);
    n = mul(n, s->cp.n);
    n = mul(n, s->ep.n);
    n = mul(n, s->zero.n);
    n = mul(n, sched);
    n = mul(n, s->precision.n);
    n = mul(n, s->recompute.n);
    n = mul(n, s->offload.n);
    n = mul(n, s->mbs.n);
    n = mul(n, s->gbs.n);
    return n;
}

/*
 * Nearest multiple of unit to target, ties upward, at least one unit and
 * at most GBS_MAX (the largest multiple below it when the nearest is
 * above). When even one unit is above GBS_MAX, target itself: no batch
 * fits, and plan_check() rejects the plan (target is below one unit).
 */
static long round_batch(long target, long unit)
{
    long k = (target + unit / 2) / unit;
    if (unit % 2 == 0 && target % unit == unit / 2)
        k = target / unit + 1;
    if (k < 1)
        k = 1;
    if (k > GBS_MAX / unit)
        k = GBS_MAX / unit;
    return k < 1 ? target : k * unit;
}

enum {
    D_GPUS,
    D_TP,
    D_PP,
    D_PPF,
    D_PPL,
    D_SPLIT,
    D_CP,
    D_EP,
    D_ZERO,
    D_SCHED,
    D_VPP,
    D_PREC,
    D_REC,
    D_OFFLOAD,
    D_MBS,
    D_GBS,
    DIMS
};

/* Entry i of the gpus list: 0 is the cluster's size. */
static long
gpus_at(const struct sweep_spec *s, size_t i, const struct hardware *hw)
{
    return s->gpus.v[i] > 0 ? (long)s->gpus.v[i] : hw->spec.gpus;
}

/* The unit plan p's global batch is rounded to a multiple of (all but
 * gbs set): its data-parallel size times mbs times the schedule's. */
static long batch_unit(const struct plan *p)
{
    long split = p->tp * p->pp * p->cp;
    long unit = (p->gpus % split == 0 ? p->gpus / split : 1) * p->mbs;
    return unit * plan_schedule_mb_unit(p->schedule, p->pp);
}

/* Global batch for entry i of the gbs list, of a plan whose batch_unit is
 * unit: the target (0: the model's) rounded as sweep.h says. */
static long
gbs_at(const struct sweep_spec *s, size_t i, const struct model *m, long unit)
{
    long target = s->gbs.v[i] > 0 ? (long)s->gbs.v[i] : m->spec.global_batch;
    return round_batch(target, unit);
}

/* The plan fields (enum plan_field) an entry of each dimension moves:
 * its own and those derived from it (vpp is 1 off the schedules with
 * virtual stages; gbs is rounded to the batch unit). */
static const unsigned dim_fields[DIMS] = {
    [D_GPUS] = PLAN_FIELD_GPUS | PLAN_FIELD_GBS,
    [D_TP] = PLAN_FIELD_TP | PLAN_FIELD_GBS,
    [D_PP] = PLAN_FIELD_PP | PLAN_FIELD_GBS,
    [D_PPF] = PLAN_FIELD_PP_FIRST,
    [D_PPL] = PLAN_FIELD_PP_LAST,
    [D_SPLIT] = PLAN_FIELD_PP_SPLIT,
    [D_CP] = PLAN_FIELD_CP | PLAN_FIELD_GBS,
    [D_EP] = PLAN_FIELD_EP,
    [D_ZERO] = PLAN_FIELD_ZERO,
    [D_SCHED] = PLAN_FIELD_SCHEDULE | PLAN_FIELD_VPP | PLAN_FIELD_GBS,
    [D_VPP] = PLAN_FIELD_VPP,
    [D_PREC] = PLAN_FIELD_PRECISION,
    [D_REC] = PLAN_FIELD_RECOMPUTE,
    [D_OFFLOAD] = PLAN_FIELD_OFFLOAD,
    [D_MBS] = PLAN_FIELD_MBS | PLAN_FIELD_GBS,
    [D_GBS] = PLAN_FIELD_GBS,
};

/* The innermost dimension that moves a field of `want`: plans whose
 * dimensions up to it agree share those fields. */
static int innermost(unsigned want)
{
    int d;
    for (d = DIMS - 1; d > 0; d--)
        if (dim_fields[d] & want)
            return d;
    return 0;
}

/* Entries of dimension d at odometer position idx (vpp only varies under
 * a schedule with virtual stages). */
static size_t
dim_len(const struct datafile_list *const *list, const size_t *idx, int d)
{
    if (d == D_VPP &&
        !plan_schedule_of((int)list[D_SCHED]->v[idx[D_SCHED]])->vpp)
        return 1;
    return list[d]->n;
}

/* Combinations from position idx, whose dimensions after `level` all
 * stand at their first entry, to the next change of a dimension up to
 * `level`: those that share idx's entries up to it. */
static uint64_t block_size(const struct datafile_list *const *list,
                           const size_t *idx,
                           int level)
{
    uint64_t n = 1;
    int d;
    for (d = level + 1; d < DIMS; d++) {
        if (d == D_SCHED && level < D_SCHED) { /* vpp with each schedule */
            uint64_t sched = 0;
            size_t i;
            for (i = 0; i < list[D_SCHED]->n; i++)
                sched += plan_schedule_of((int)list[D_SCHED]->v[i])->vpp
                             ? list[D_VPP]->n
                             : 1;
            n *= sched;
            d = D_VPP;
            continue;
        }
        n *= dim_len(list, idx, d);
    }
    return n;
}

/* Combinations before `index` in the share of thread `thread` of
 * `threads` (blocks of SWEEP_BLOCK dealt round-robin). */
static uint64_t share_before(uint64_t index, size_t thread, size_t threads)
{
    uint64_t round = (uint64_t)SWEEP_BLOCK * threads;
    uint64_t into = index % round, start = (uint64_t)SWEEP_BLOCK * thread;
    uint64_t part = into <= start                 ? 0
                    : into - start >= SWEEP_BLOCK ? SWEEP_BLOCK
                                                  : into - start;
    return index / round * SWEEP_BLOCK + part;
}

/* Sets p's fields that dimensions `from` onwards give at position idx
 * (the others stand); gbs is set by the caller (it needs the unit). */
static void plan_move(const struct sweep_spec *s,
                      const size_t *idx,
                      const struct hardware *hw,
                      int from,
                      struct plan *p)
{
    switch (from) {
    case D_GPUS:
        p->gpus = gpus_at(s, idx[D_GPUS], hw);
        /* fall through */
    case D_TP:
        p->tp = (long)s->tp.v[idx[D_TP]];
        /* fall through */
    case D_PP:
        p->pp = (long)s->pp.v[idx[D_PP]];
        /* fall through */
    case D_PPF:
        p->pp_first = (long)s->pp_first.v[idx[D_PPF]];
        /* fall through */
    case D_PPL:
        p->pp_last = (long)s->pp_last.v[idx[D_PPL]];
        /* fall through */
    case D_SPLIT:
        p->pp_split = (int)s->pp_split.v[idx[D_SPLIT]];
        /* fall through */
    case D_CP:
        p->cp = (long)s->cp.v[idx[D_CP]];
        /* fall through */
    case D_EP:
        p->ep = (long)s->ep.v[idx[D_EP]];
        /* fall through */
    case D_ZERO:
        p->zero = (long)s->zero.v[idx[D_ZERO]];
        /* fall through */
    case D_SCHED:
        p->schedule = (int)s->schedule.v[idx[D_SCHED]];
        /* fall through */
    case D_VPP:
        p->vpp =
            plan_schedule_of(p->schedule)->vpp ? (long)s->vpp.v[idx[D_VPP]] : 1;
        /* fall through */
    case D_PREC:
        p->precision = (int)s->precision.v[idx[D_PREC]];
        /* fall through */
    case D_REC:
        p->recompute = (int)s->recompute.v[idx[D_REC]];
        /* fall through */
    case D_OFFLOAD:
        p->offload = (long)s->offload.v[idx[D_OFFLOAD]];
        /* fall through */
    case D_MBS:
        p->mbs = (long)s->mbs.v[idx[D_MBS]];
        /* fall through */
    default:
        break;
    }
}

/* Whether each gpus entry resolves to the size of an earlier one (0 and
 * the cluster's size). */
static void
gpus_repeats(const struct sweep_spec *s, const struct hardware *hw, bool *again)
{
    size_t i, j;
    for (i = 0; i < s->gpus.n; i++) {
        again[i] = false;
        for (j = 0; j < i; j++)
            again[i] = again[i] || gpus_at(s, j, hw) == gpus_at(s, i, hw);
    }
}

/* The gbs entries at batch unit `unit`, and whether each rounds to the
 * batch of an earlier one. */
static void gbs_entries(const struct sweep_spec *s,
                        const struct model *m,
                        long unit,
                        long *gbs,
                        bool *again)
{
    size_t i, j;
    for (i = 0; i < s->gbs.n; i++) {
        gbs[i] = gbs_at(s, i, m, unit);
        again[i] = false;
        for (j = 0; j < i && !again[i]; j++)
            again[i] = gbs[j] == gbs[i];
    }
}

/* The innermost dimension deciding each reason (plan_reason_fields) into
 * level[]; returns the deepest of those above the last, where a block of
 * rejected combinations may start (-1 without skip: none). */
static int reason_levels(bool skip, int *level)
{
    int d, deepest = -1;
    for (d = 0; d < PLAN_REASONS; d++) {
        level[d] = innermost(plan_reason_fields((enum plan_reason)d));
        if (skip && d != PLAN_OK && level[d] < DIMS - 1 && level[d] > deepest)
            deepest = level[d];
    }
    return deepest;
}

/* Moves the odometer idx at dimension d (the ones after it stand at their
 * first entry): the dimension that moved, -1 past the last combination. */
static int advance(const struct datafile_list *const *list, size_t *idx, int d)
{
    for (; d >= 0; d--) {
        if (++idx[d] < dim_len(list, idx, d))
            break;
        idx[d] = 0;
    }
    return d;
}

/* p's verdict: outer's (plan_check_split's on the outer dimensions),
 * else plan_check_rest's; a valid plan an earlier combination gave
 * (`again`: an earlier gpus entry of the same size, 0 and the cluster's,
 * or an earlier gbs target rounding to the same batch; the lists
 * themselves hold no repeated value and no other dimension resolves)
 * is PLAN_SAME_PLAN. */
static enum plan_reason verdict(struct plan *p,
                                const struct model *m,
                                const struct hardware *hw,
                                enum plan_reason outer,
                                bool again)
{
    enum plan_reason why =
        outer != PLAN_OK ? outer
                         : plan_check_rest(p, m, hw, PLAN_CHECK_DISTINCT, NULL);
    return why == PLAN_OK && again ? PLAN_SAME_PLAN : why;
}

/* Whether skip counted the n combinations from `index` (a block rejected
 * for why) at once, the share of thread `thread` of `threads` of them:
 * they are then passed over. */
static bool skipped(sweep_skip skip,
                    void *user,
                    enum plan_reason why,
                    uint64_t index,
                    uint64_t n,
                    size_t thread,
                    size_t threads)
{
    uint64_t own = share_before(index + n, thread, threads) -
                   share_before(index, thread, threads);
    return own == 0 || skip(user, why, own);
}

void sweep_run(const struct sweep_file *sf,
               const struct model *m,
               const struct hardware *hw,
               size_t thread,
               size_t threads,
               sweep_visit visit,
               sweep_skip skip,
               void *user)
{
    const struct sweep_spec *s = &sf->spec;
    const struct datafile_list *const list[DIMS] = {
        &s->gpus,      &s->tp,       &s->pp,  &s->pp_first,
        &s->pp_last,   &s->pp_split, &s->cp,  &s->ep,
        &s->zero,      &s->schedule, &s->vpp, &s->precision,
        &s->recompute, &s->offload,  &s->mbs, &s->gbs};
    size_t idx[DIMS] = {0};
    /* an earlier entry gives the same gpus; the gbs of each entry at the
     * batch unit `unit` and whether an earlier entry gives the same */
    bool gpus_again[DATAFILE_LIST_MAX], gbs_again[DATAFILE_LIST_MAX];
    long gbs[DATAFILE_LIST_MAX], unit = 0;
    /* the innermost dimension deciding each reason, and where a block may
     * start (reason_levels) */
    int level[PLAN_REASONS], deepest = reason_levels(skip != NULL, level);
    /* the outermost dimension moved since p was set; the outermost one
     * the odometer moved last (the dimensions after it stand at their
     * first entry) */
    int from = 0, top = 0;
    /* plan_check_split's verdict on p's dimensions up to ep (the inner
     * ones do not move it) */
    enum plan_reason outer = PLAN_OK;
    struct plan p;
    uint64_t index = 0;
    int d;

    for (d = 0; d < DIMS; d++)
        if (list[d]->n == 0)
            return;
    gpus_repeats(s, hw, gpus_again);
    memset(&p, 0, sizeof p);
    for (;;) { /* an odometer over the lists, the last one fastest */
        bool mine = (index / SWEEP_BLOCK) % threads == thread;
        if (mine || top <= deepest) {
            enum plan_reason why;
            plan_move(s, idx, hw, from, &p);
            if (from <= D_EP)
                outer = plan_check_split(&p, m, hw, NULL);
            if (from <= D_MBS && batch_unit(&p) != unit) {
                unit = batch_unit(&p); /* the gbs entries rounded anew */
                gbs_entries(s, m, unit, gbs, gbs_again);
            }
            p.gbs = gbs[idx[D_GBS]];
            from = DIMS;
            why = verdict(&p, m, hw, outer,
                          gpus_again[idx[D_GPUS]] || gbs_again[idx[D_GBS]]);
            /* every combination that shares this one's entries up to
             * level[why] is rejected for why: count them at once */
            if (skip && why != PLAN_OK && level[why] >= top &&
                level[why] < DIMS - 1) {
                uint64_t n = block_size(list, idx, level[why]);
                if (skipped(skip, user, why, index, n, thread, threads)) {
                    index += n;
                    d = level[why];
                    goto next;
                }
            }
            if (mine)
                visit(user, &p, why, index);
        }
        index++;
        d = DIMS - 1;
    next:
        d = advance(list, idx, d);
        if (d < 0)
            return;
        top = d;
        if (d < from)
            from = d;
    }
}
