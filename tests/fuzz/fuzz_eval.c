/*
 * fuzz_eval: the evaluation itself. The input picks a model and a
 * cluster file, up to OVERRIDES_MAX --set overrides of their values
 * (each within the schema's range, edges included) and a plan built to
 * divide evenly; every plan that passes plan_check() is evaluated under
 * both communication models and must satisfy, else abort():
 *
 * - no NaN or infinity anywhere in the work, times, memory or ratios;
 * - memory parts non-negative, summing to the total (logits within the
 *   activations);
 * - step >= each of compute, IB, NVLink, HBM, bubble and optimizer, and
 *   step_serial >= step;
 * - no bytes on a link the plan cannot use, on every pipeline rank: one
 *   GPU moves nothing; a plan inside one node moves nothing over IB; one
 *   GPU per node moves nothing over NVLink; and no TP, CP, EP or PP
 *   traffic without that kind of parallelism.
 *
 * Layers are capped at LAYERS_MAX so partitioning stays fast.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm.h"
#include "cost.h"
#include "datafile.h"
#include "diag.h"
#include "eval_out.h"
#include "fuzz_util.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"

#define OVERRIDES_MAX 12
#define LAYERS_MAX    96
#define REL_TOL       1e-9

static const char *const model_files[] = {
    "models/deepseek-v3.ini", "models/gpt3-175b.ini", "models/llama-3-405b.ini",
    "tests/data/tiny-moe.ini", "tests/data/gpt-korthikanti.ini"};
static const char *const hw_files[] = {"hardware/h800.ini", "hardware/h100.ini",
                                       "hardware/h200.ini",
                                       "hardware/b200.ini"};
#define NMODELS (sizeof model_files / sizeof model_files[0])
#define NHW     (sizeof hw_files / sizeof hw_files[0])

/* libFuzzer's entry points take no context: the absolute paths of the
 * data files and the stream the outputs are printed to (/dev/null) are
 * set once by LLVMFuzzerInitialize() in this static, then only read. */
static struct {
    char model[NMODELS][1024];
    char hw[NHW][1024];
    FILE *null;
} ctx;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    size_t i;
    (void)argc;
    (void)argv;
    for (i = 0; i < NMODELS; i++)
        fuzz_data_path(model_files[i], ctx.model[i], sizeof ctx.model[i]);
    for (i = 0; i < NHW; i++)
        fuzz_data_path(hw_files[i], ctx.hw[i], sizeof ctx.hw[i]);
    ctx.null = fopen("/dev/null", "w");
    if (!ctx.null)
        abort();
    return 0;
}

/* ---- Overrides ---- */

/* The n-th word of "a|b|c" into buf. */
static void choice_word(const char *choices, long n, char *buf, size_t size)
{
    const char *c = choices;
    long i;
    for (i = 0; i < n; i++) {
        const char *bar = strchr(c, '|');
        if (!bar)
            break;
        c = bar + 1;
    }
    snprintf(buf, size, "%.*s", (int)strcspn(c, "|"), c);
}

static long count_choices(const char *choices)
{
    long n = 1;
    for (; *choices; choices++)
        if (*choices == '|')
            n++;
    return n;
}

/* A number in f's range, edges and small values favoured. */
static double pick_number(struct fuzz_bytes *b, const struct datafile_field *f)
{
    double lo = f->min, hi = f->max, v;
    bool integer = f->type == DATAFILE_INT || f->type == DATAFILE_LIST;
    switch (fuzz_u8(b) % 6) {
    case 0:
        v = lo;
        break;
    case 1:
        v = hi;
        break;
    case 2:
        v = (double)fuzz_range(b, 1, 16);
        break;
    case 3:
        v = ldexp(1, (int)fuzz_range(b, 0, 24));
        break;
    case 4:
        v = ldexp(1, -(int)fuzz_range(b, 1, 60)); /* tiny (doubles) */
        break;
    default:
        v = lo + fuzz_unit(b) * (hi - lo);
        break;
    }
    if (integer)
        v = floor(v);
    if (v > hi)
        v = hi;
    if (v < lo || (f->min_open && v <= lo))
        v = integer ? lo + 1 : (lo + hi) / 2;
    return v;
}

/* Writes a value text for field f into buf; false to skip the field. */
static bool pick_value(struct fuzz_bytes *b,
                       const struct datafile_field *f,
                       char *buf,
                       size_t size)
{
    double v;
    switch (f->type) {
    case DATAFILE_STRING:
        return false;
    case DATAFILE_BOOL:
        snprintf(buf, size, "%s", fuzz_bool(b) ? "true" : "false");
        return true;
    case DATAFILE_ENUM:
        choice_word(f->choices, fuzz_range(b, 0, count_choices(f->choices) - 1),
                    buf, size);
        return true;
    case DATAFILE_LIST:
        if (f->choices) { /* a non-empty subset of the words */
            long n = count_choices(f->choices), i;
            unsigned mask = fuzz_u8(b);
            size_t used = 0;
            char word[64];
            buf[0] = '\0';
            for (i = 0; i < n && used < size; i++)
                if (mask & (1u << i) || (i == n - 1 && used == 0)) {
                    choice_word(f->choices, i, word, sizeof word);
                    used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                             used ? " " : "", word);
                }
            return true;
        }
        v = pick_number(b, f);
        snprintf(buf, size, "%.0f", v);
        return true;
    case DATAFILE_INT:
        v = pick_number(b, f);
        /* Bound the partitioning work (O(chunks x units^2)). */
        if (strcmp(f->key, "layers") == 0 ||
            strcmp(f->key, "first_dense_layers") == 0)
            v = fmod(v, LAYERS_MAX) + (strcmp(f->key, "layers") == 0);
        snprintf(buf, size, "%.0f", v);
        return true;
    case DATAFILE_DOUBLE:
        snprintf(buf, size, "%.17g", pick_number(b, f));
        return true;
    }
    return false;
}

/* Fills sets with up to OVERRIDES_MAX overrides; returns their count. */
static size_t pick_overrides(struct fuzz_bytes *b, struct datafile_set *sets)
{
    size_t n = 0, want = (size_t)fuzz_range(b, 0, OVERRIDES_MAX);
    while (n < want && b->size > 0) {
        const struct datafile_schema *s =
            fuzz_bool(b) ? &model_schema : &hardware_schema;
        const struct datafile_field *f =
            &s->fields[fuzz_range(b, 0, (long)s->n - 1)];
        char value[DATAFILE_TEXT_MAX], arg[DATAFILE_TEXT_MAX + 130];
        struct diag d;
        if (!pick_value(b, f, value, sizeof value))
            continue;
        snprintf(arg, sizeof arg, "%s.%s=%s", f->section, f->key, value);
        diag_init(&d);
        if (datafile_parse_set(arg, &sets[n], &d) != STATUS_OK)
            abort(); /* every generated override is well-formed */
        n++;
    }
    return n;
}

/* ---- The plan ---- */

/* A plan whose sizes multiply out: gpus = tp pp cp dp, gbs = dp mbs m. */
static void pick_plan(struct fuzz_bytes *b,
                      const struct hardware *hw,
                      char *buf,
                      size_t size)
{
    static const char *const sched[] = {"1f1b", "interleaved", "zb",
                                        "dualpipe"};
    static const char *const prec[] = {"bf16", "fp8"};
    static const char *const rec[] = {"none", "selective", "full"};
    long gpn = hw->spec.gpus_per_node;
    long tp = fuzz_bool(b) ? 1L << fuzz_range(b, 0, 4) : fuzz_range(b, 1, gpn);
    long cp = fuzz_u8(b) < 200 ? 1 : 1L << fuzz_range(b, 1, 3);
    long pp = fuzz_u8(b) < 64 ? 1 : fuzz_range(b, 1, LAYERS_MAX);
    long dp = fuzz_bool(b) ? 1L << fuzz_range(b, 0, 12) : fuzz_range(b, 1, 64);
    long ep = 1L << fuzz_range(b, 0, 10);
    long mbs = fuzz_range(b, 1, 8), m = fuzz_range(b, 1, 256);
    long sc = fuzz_range(b, 0, 3);
    long vpp = sc == 1 ? fuzz_range(b, 2, 4) : 1;
    long gpus = tp * pp * cp * dp;
    if (fuzz_u8(b) < 16) /* sometimes not a multiple at all */
        gpus = fuzz_range(b, 1, 100000000);
    snprintf(buf, size,
             "gpus=%ld tp=%ld pp=%ld cp=%ld ep=%ld zero=%ld schedule=%s "
             "vpp=%ld precision=%s recompute=%s mbs=%ld gbs=%ld",
             gpus, tp, pp, cp, ep, fuzz_range(b, 0, 3), sched[sc], vpp,
             prec[fuzz_range(b, 0, 1)], rec[fuzz_range(b, 0, 2)], mbs,
             dp * mbs * m > 1000000000 ? 1 : dp * mbs * m);
}

/* ---- Invariants ---- */

static void need(bool ok, const char *what, const char *plan)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz_eval: invariant broken: %s\n  plan %s\n", what, plan);
    abort();
}

static void finite(double v, const char *what, const char *plan)
{
    char buf[128];
    snprintf(buf, sizeof buf, "%s is finite (got %g)", what, v);
    need(isfinite(v), buf, plan);
}

/* a >= b, allowing rounding. */
static bool at_least(double a, double b)
{
    return a >= b - REL_TOL * fabs(b);
}

static void check_result(const struct cost_result *r, const char *plan)
{
    const struct cost_work *w = &r->work;
    const struct cost_times *t = &r->t;
    const struct memory *mm = &r->mem;
    const double work[] = {
        w->fp8_flops,    w->bf16_flops,     w->model_flops,
        w->ib_bytes,     w->nvlink_bytes,   w->ib_calls,
        w->nvlink_calls, w->hbm_bytes,      w->optimizer_bytes,
        w->bubble_coef,  w->microbatches,   w->tokens,
        w->gpus,         w->ep_ib_bytes,    w->ep_nvlink_bytes,
        w->ep_ib_calls,  w->ep_nvlink_calls};
    const double times[] = {t->compute,     t->ib,     t->nvlink, t->hbm,
                            t->optimizer,   t->bubble, t->core,   t->step,
                            t->step_serial, t->ep};
    const double mem[] = {mm->weights,     mm->grads,  mm->optimizer,
                          mm->activations, mm->logits, mm->other};
    double sum = 0;
    size_t i;

    for (i = 0; i < sizeof work / sizeof *work; i++) {
        finite(work[i], "a work value", plan);
        need(work[i] >= 0, "work values are non-negative", plan);
    }
    for (i = 0; i < sizeof times / sizeof *times; i++) {
        finite(times[i], "a time", plan);
        need(times[i] >= 0, "times are non-negative", plan);
        if (i < 6)
            need(at_least(t->step, times[i]), "step >= each of its terms",
                 plan);
    }
    need(t->step > 0, "step > 0", plan);
    need(at_least(t->step_serial, t->step), "step_serial >= step", plan);
    finite(t->comm_compute_ratio, "comm/compute", plan);
    finite(t->tokens_per_s_per_gpu, "tokens/s/GPU", plan);
    finite(t->mfu, "MFU", plan);
    finite(t->mfu_precision, "MFU (own precision)", plan);
    finite(t->gpu_hours_per_trillion, "GPU-hours per trillion", plan);
    finite(t->days, "days", plan);
    finite(t->cost_usd, "cost", plan);
    finite(r->ep_ratio, "EP/compute", plan);
    for (i = 0; i < sizeof mem / sizeof *mem; i++) {
        finite(mem[i], "a memory part", plan);
        need(mem[i] >= 0, "memory parts are non-negative", plan);
        if (i != 4) /* logits are part of the activations */
            sum += mem[i];
    }
    finite(mm->total, "memory total", plan);
    need(fabs(sum - mm->total) <= REL_TOL * mm->total,
         "memory parts sum to the total", plan);
    need(mm->logits <= mm->activations * (1 + REL_TOL),
         "logits within activations", plan);
}

/* Links a plan cannot use carry no bytes, on every pipeline rank. */
static void
check_links(const struct cost_ctx *cc, const struct plan *p, const char *plan)
{
    const struct model_partition *part = cost_ctx_partition(cc, p);
    long gpn = cc->hw->domain, rank; /* GPUs per NVLink domain */
    need(part != NULL, "a prepared plan has its partition", plan);
    for (rank = 0; rank < p->pp; rank++) {
        struct comm_totals t;
        comm_rank(cc->m, cc->hw, p, part, rank, cc->comm, &cc->ep, NULL, 0, &t);
        finite(t.ib_bytes, "IB bytes", plan);
        finite(t.nvlink_bytes, "NVLink bytes", plan);
        need(t.ib_bytes >= 0 && t.nvlink_bytes >= 0, "bytes >= 0", plan);
        if (p->gpus == 1)
            need(t.ib_bytes == 0 && t.nvlink_bytes == 0,
                 "one GPU moves no bytes", plan);
        if (p->gpus <= gpn)
            need(t.ib_bytes == 0, "a plan inside one node uses no IB", plan);
        if (gpn == 1)
            need(t.nvlink_bytes == 0, "one GPU per node uses no NVLink", plan);
        if (p->tp == 1)
            need(t.what_ib[COMM_TP] == 0 && t.what_nvlink[COMM_TP] == 0,
                 "tp=1: no TP bytes", plan);
        if (p->cp == 1)
            need(t.what_ib[COMM_CP] == 0 && t.what_nvlink[COMM_CP] == 0,
                 "cp=1: no CP bytes", plan);
        if (p->ep == 1)
            need(t.what_ib[COMM_EP] == 0 && t.what_nvlink[COMM_EP] == 0,
                 "ep=1: no EP bytes", plan);
        if (p->pp == 1)
            need(t.what_ib[COMM_PP] == 0 && t.what_nvlink[COMM_PP] == 0,
                 "pp=1: no PP bytes", plan);
    }
}

static void evaluate(const struct model *m,
                     const struct hardware *hw,
                     const struct plan *p,
                     const char *plan)
{
    enum comm_model models[] = {COMM_TOPO, COMM_FLAT};
    struct comm_collective coll[COMM_LIST_MAX];
    struct cost_result r;
    struct cost_ctx cc;
    struct eval_view view;
    struct diag d;
    size_t i, ncoll = 0;

    for (i = 0; i < 2; i++) {
        diag_init(&d);
        if (cost_ctx_init(&cc, m, hw, models[i], &d) != STATUS_OK ||
            cost_ctx_prepare(&cc, p->pp, p->vpp, p->schedule, &d) != STATUS_OK)
            need(false, "a checked plan can be partitioned", plan);
        cost_evaluate(&cc, p, &r, coll, COMM_LIST_MAX, &ncoll);
        check_result(&r, plan);
        check_links(&cc, p, plan);
        view.ctx = &cc;
        view.r = &r;
        view.coll = coll;
        view.ncoll = ncoll;
        eval_out_text(ctx.null, &view);
        eval_out_json(ctx.null, &view);
        cost_ctx_release(&cc);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct fuzz_bytes b = {data, size};
    struct datafile_set *sets = calloc(OVERRIDES_MAX, sizeof *sets);
    struct model *m = malloc(sizeof *m);
    struct hardware *hw = malloc(sizeof *hw);
    bool have_m = false, have_hw = false;
    const char *mp = ctx.model[fuzz_range(&b, 0, NMODELS - 1)];
    const char *hp = ctx.hw[fuzz_range(&b, 0, NHW - 1)];
    char plan_text[512];
    char *args[1];
    struct plan defaults, p;
    struct diag d;
    size_t nsets;
    long given_dp;

    if (!sets || !m || !hw)
        goto done;
    nsets = pick_overrides(&b, sets);
    diag_init(&d);
    have_m = model_load(mp, m, sets, nsets, &d) == STATUS_OK;
    diag_init(&d);
    have_hw = hardware_load(hp, hw, sets, nsets, &d) == STATUS_OK;
    if (!have_m || !have_hw || m->units > LAYERS_MAX + 16)
        goto done;
    pick_plan(&b, hw, plan_text, sizeof plan_text);
    memset(&defaults, 0, sizeof defaults);
    args[0] = plan_text;
    diag_init(&d);
    if (plan_parse(args, 1, &defaults, &p, &given_dp, &d) != STATUS_OK ||
        plan_check(&p, m, hw, false, &d) != PLAN_OK)
        goto done;
    evaluate(m, hw, &p, plan_text);
done:
    if (have_hw)
        hardware_release(hw);
    if (have_m)
        model_release(m);
    free(hw);
    free(m);
    free(sets);
    return 0;
}
