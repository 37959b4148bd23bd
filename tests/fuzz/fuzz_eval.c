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
 * - step >= each of compute, the steady IB and NVLink traffic (what runs
 *   with the micro-batches), HBM, bubble and optimizer, and
 *   step_serial >= step;
 * - no bytes on a link the plan cannot use, on every pipeline rank: one
 *   GPU moves nothing; a plan inside one node moves nothing over IB; one
 *   GPU per node moves nothing over NVLink; and no TP, CP, EP or PP
 *   traffic without that kind of parallelism.
 *
 * Layers are capped at LAYERS_MAX so partitioning stays fast.
 *
 * Overrides reach the ranges' ends: each edge, the next double inside it,
 * and values that must be refused (the next double outside, subnormals,
 * hexadecimal text, names with control characters or invalid UTF-8): a
 * file that loads with one of those aborts, and whatever loads must keep
 * its schema's ranges. The text and JSON outputs must be text (valid
 * UTF-8, no control characters but newline and tab).
 *
 * Stage: evaluate (one plan's evaluation under both comm models)
 */
#include <float.h>
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
#include "replay.h"

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
 * data files are set once by LLVMFuzzerInitialize() in this static, then
 * only read. */
static struct {
    char model[NMODELS][1024];
    char hw[NHW][1024];
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
    return 0;
}

/* ---- Overrides ---- */

/* The n-th word an enum field accepts into buf. */
static void choice_word(datafile_word_fn *word, long n, char *buf, size_t size)
{
    const char *w = word((int)n);
    snprintf(buf, size, "%s", w ? w : "");
}

/* The words an enum field accepts. */
static long count_choices(datafile_word_fn *word)
{
    long n = 0;
    while (word((int)n))
        n++;
    return n;
}

/* A number in f's range, edges and small values favoured; or, where
 * *refused is set, one the schema must refuse. */
static double
pick_number(struct fuzz_bytes *b, const struct datafile_field *f, bool *refused)
{
    double lo = f->min, hi = f->max, v;
    bool integer = f->type == DATAFILE_INT || f->type == DATAFILE_LIST;
    *refused = false;
    switch (fuzz_u8(b) % 10) {
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
    case 5: /* just inside an edge */
        if (integer)
            return fuzz_bool(b) ? lo + 1 : hi - 1;
        return fuzz_bool(b) ? nextafter(lo, hi) : nextafter(hi, lo);
    case 6: /* just outside an edge */
        *refused = true;
        if (integer)
            return fuzz_bool(b) ? lo - 1 : hi + 1;
        return fuzz_bool(b) ? nextafter(lo, -HUGE_VAL)
                            : nextafter(hi, HUGE_VAL);
    case 7: /* subnormal: 2^-1074 .. 2^-1023 (refused by the parser) */
        *refused = true;
        if (integer)
            return hi + 1;
        return ldexp(1, -(int)fuzz_range(b, 1023, 1074));
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

/* A name: plain, UTF-8 beyond ASCII, markup that writers must escape, or
 * (with *refused) text that is not: controls, invalid UTF-8. */
static void
pick_text(struct fuzz_bytes *b, char *buf, size_t size, bool *refused)
{
    static const char *const ok[] = {
        "GPU", "H800 SXM5 80GB", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80",
        "a]]>b <&> \"q\" 'a' \\ %s ${x} `id`", "tab\there"};
    static const char *const bad[] = {"\x1b[31mred",
                                      "\x1b]0;title\x07",
                                      ("csi\xc2\x9b"
                                       "2J"),
                                      "del\x7f",
                                      "cr\rhere",
                                      "latin1 caf\xe9",
                                      "over\xc0\xaflong",
                                      "sur\xed\xa0\x80",
                                      "cut\xe2\x82",
                                      "big\xf4\x90\x80\x80",
                                      "non\xef\xbf\xbf"};
    *refused = fuzz_bool(b);
    if (*refused)
        snprintf(buf, size, "%s",
                 bad[fuzz_range(b, 0, sizeof bad / sizeof *bad - 1)]);
    else
        snprintf(buf, size, "%s",
                 ok[fuzz_range(b, 0, sizeof ok / sizeof *ok - 1)]);
}

/* Writes a value text for field f into buf; false to skip the field.
 * *refused: the value is one the loader must refuse. */
static bool pick_value(struct fuzz_bytes *b,
                       const struct datafile_field *f,
                       char *buf,
                       size_t size,
                       bool *refused)
{
    double v;
    *refused = false;
    switch (f->type) {
    case DATAFILE_STRING:
        pick_text(b, buf, size, refused);
        return true;
    case DATAFILE_BOOL:
        snprintf(buf, size, "%s", fuzz_bool(b) ? "true" : "false");
        return true;
    case DATAFILE_ENUM:
        choice_word(f->word, fuzz_range(b, 0, count_choices(f->word) - 1), buf,
                    size);
        return true;
    case DATAFILE_LIST:
        if (f->word) { /* a non-empty subset of the words */
            long n = count_choices(f->word), i;
            unsigned mask = fuzz_u8(b);
            size_t used = 0;
            char word[64];
            buf[0] = '\0';
            for (i = 0; i < n && used < size; i++)
                if (mask & (1u << i) || (i == n - 1 && used == 0)) {
                    choice_word(f->word, i, word, sizeof word);
                    used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                             used ? " " : "", word);
                }
            return true;
        }
        v = pick_number(b, f, refused);
        snprintf(buf, size, "%.0f", v);
        return true;
    case DATAFILE_INT:
        v = pick_number(b, f, refused);
        /* Bound the partitioning work (O(chunks x units^2)). */
        if (!*refused && (strcmp(f->key, "layers") == 0 ||
                          strcmp(f->key, "first_dense_layers") == 0))
            v = fmod(v, LAYERS_MAX) + (strcmp(f->key, "layers") == 0);
        snprintf(buf, size, "%.0f", v);
        return true;
    case DATAFILE_DOUBLE:
        v = pick_number(b, f, refused);
        if (!*refused && fuzz_u8(b) < 16) { /* the same value in hex */
            snprintf(buf, size, "%a", v);
            *refused = true;
        } else {
            snprintf(buf, size, "%.17g", v);
        }
        return true;
    }
    return false;
}

/* The overrides picked, and whether each schema got one it must refuse. */
struct picks {
    size_t n;
    bool refuse_model, refuse_hw;
};

/* Fills sets with up to OVERRIDES_MAX overrides of distinct fields (so
 * none is replaced by a later one); counts them in pk. An override that
 * is not text must fail datafile_parse_set() and is dropped. */
static void pick_overrides(struct fuzz_bytes *b,
                           struct datafile_set *sets,
                           struct picks *pk)
{
    size_t want = (size_t)fuzz_range(b, 0, OVERRIDES_MAX), j;
    const struct datafile_field *used[OVERRIDES_MAX];
    memset(pk, 0, sizeof *pk);
    while (pk->n < want && b->size > 0) {
        bool is_model = fuzz_bool(b), refused, again = false;
        const struct datafile_schema *s =
            is_model ? model_schema() : hardware_schema();
        const struct datafile_field *f =
            &s->fields[fuzz_range(b, 0, (long)s->n - 1)];
        char value[DATAFILE_TEXT_MAX], arg[DATAFILE_TEXT_MAX + 130];
        struct diag d;
        for (j = 0; j < pk->n; j++)
            again = again || used[j] == f;
        if (again || !pick_value(b, f, value, sizeof value, &refused))
            continue;
        snprintf(arg, sizeof arg, "%s.%s=%s", f->section, f->key, value);
        diag_init(&d);
        if (datafile_parse_set(arg, &sets[pk->n], &d) != STATUS_OK) {
            /* only text that is not text fails here, saying so in text */
            if (!(f->type == DATAFILE_STRING && refused))
                abort();
            fuzz_need_text(d.msg, true);
            continue;
        }
        if (f->type == DATAFILE_STRING && refused)
            abort(); /* control characters or invalid UTF-8 accepted */
        if (refused && is_model)
            pk->refuse_model = true;
        else if (refused)
            pk->refuse_hw = true;
        used[pk->n++] = f;
    }
}

/* ---- The plan ---- */

/* The layer split (" key=value", or "" for roofplan's own) into buf of
 * PICK_SPLIT_MAX: Megatron-LM's rules, first/last counts, or a layout
 * whose end chunks may hold no decoder layer (issue 34 item 2: a first
 * stage of the embedding alone gave NaN steps). Picked last: an input
 * that ends before it keeps roofplan's split, as the corpus's older
 * inputs did. */
#define PICK_SPLIT_MAX 160
static void
pick_split(struct fuzz_bytes *b, const struct model *m, long chunks, char *buf)
{
    static const char *const rule[] = {"uniform", "embedding", "loss",
                                       "embedding_loss"};
    long layers = m->spec.layers, first, each = 0, middle = chunks - 2;
    char mid[48] = "", ends[2][32] = {"", ""}, mtp[32] = "";
    buf[0] = '\0';
    switch (fuzz_u8(b) % 4) {
    case 1:
        snprintf(buf, PICK_SPLIT_MAX, " pp_split=%s",
                 rule[fuzz_range(b, 0, 3)]);
        return;
    case 2:
        first = fuzz_range(b, 0, layers);
        snprintf(buf, PICK_SPLIT_MAX, " pp_first=%ld pp_last=%ld", first,
                 fuzz_range(b, 0, layers));
        return;
    case 3: /* E t*first | (t*each|)*middle t*last m*mtp L */
        first = fuzz_range(b, 0, layers);
        if (middle > 0) {
            each = fuzz_range(b, 1, layers / middle > 1 ? layers / middle : 1);
            snprintf(mid, sizeof mid, "(t*%ld|)*%ld", each, middle);
        } else {
            middle = 0;
        }
        if (first > 0)
            snprintf(ends[0], sizeof ends[0], "t*%ld", first);
        if (layers - first - each * middle > 0)
            snprintf(ends[1], sizeof ends[1], "t*%ld",
                     layers - first - each * middle);
        if (m->spec.mtp_depth > 0)
            snprintf(mtp, sizeof mtp, "m*%ld", m->spec.mtp_depth);
        snprintf(buf, PICK_SPLIT_MAX, " pp_layout=E%s|%s%s%sL", ends[0], mid,
                 ends[1], mtp);
        return;
    default:
        return;
    }
}

/* A plan whose sizes multiply out: gpus = tp pp cp dp, gbs = dp mbs m;
 * the layer split last (pick_split). */
static void pick_plan(struct fuzz_bytes *b,
                      const struct model *model,
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
    char split[PICK_SPLIT_MAX];
    size_t used;
    if (fuzz_u8(b) < 16) /* sometimes not a multiple at all */
        gpus = fuzz_range(b, 1, 100000000);
    snprintf(buf, size,
             "gpus=%ld tp=%ld pp=%ld cp=%ld ep=%ld zero=%ld schedule=%s "
             "vpp=%ld precision=%s recompute=%s mbs=%ld gbs=%ld",
             gpus, tp, pp, cp, ep, fuzz_range(b, 0, 3), sched[sc], vpp,
             prec[fuzz_range(b, 0, 1)], rec[fuzz_range(b, 0, 2)], mbs,
             dp * mbs * m > 1000000000 ? 1 : dp * mbs * m);
    pick_split(b, model, pp * vpp, split);
    used = strlen(buf);
    snprintf(buf + used, size - used, "%s", split);
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
    const double work[] = {w->fp8_flops,
                           w->bf16_flops,
                           w->model_flops,
                           w->ib_bytes,
                           w->nvlink_bytes,
                           w->ib_calls,
                           w->nvlink_calls,
                           w->ib_lat.steps,
                           w->ib_lat.net,
                           w->nvlink_lat.steps,
                           w->hbm_bytes,
                           w->optimizer_bytes,
                           w->bubble_coef,
                           w->microbatches,
                           w->tokens,
                           w->gpus,
                           w->ep_ib_bytes,
                           w->ep_nvlink_bytes,
                           w->ep_ib_lat.steps,
                           w->ep_ib_lat.net,
                           w->ep_nvlink_lat.steps};
    /* the first six are terms of the step (IB and NVLink by their
     * steady part: the step-end sync and gather hide under compute
     * but for dp_exposed) */
    const double times[] = {
        t->compute,     t->ib_steady, t->nvlink_steady, t->hbm,  t->optimizer,
        t->bubble,      t->ib,        t->nvlink,        t->core, t->step,
        t->step_serial, t->ep,        t->comm_sm,       t->sync, t->gather,
        t->ramp,        t->dp_exposed};
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
    finite(t->mfu_bf16_peak, "MFU (of the BF16 peak)", plan);
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
        comm_rank(cc->m, cc->hw, p, part, rank, cc->comm, &cc->ep,
                  &(struct comm_out){NULL, 0, &t, NULL});
        finite(t.ib.bytes, "IB bytes", plan);
        finite(t.nvlink.bytes, "NVLink bytes", plan);
        need(t.ib.bytes >= 0 && t.nvlink.bytes >= 0, "bytes >= 0", plan);
        if (p->gpus == 1)
            need(t.ib.bytes == 0 && t.nvlink.bytes == 0,
                 "one GPU moves no bytes", plan);
        finite(t.ib.lat.steps + t.ib.lat.net + t.nvlink.lat.steps,
               "latency steps", plan);
        need(t.ib.lat.steps >= 0 && t.ib.lat.net >= 0 &&
                 t.nvlink.lat.steps >= 0 && t.nvlink.lat.net == 0,
             "latency >= 0, NVLink's all in-node steps", plan);
        need(t.ib.at >= t.ib.bytes * (1 - REL_TOL) &&
                 t.nvlink.at >= t.nvlink.bytes * (1 - REL_TOL) / 2,
             "bytes at full rate: a share of at most 1 (NVLS: 2)", plan);
        if (p->gpus <= gpn)
            need(t.ib.bytes == 0 && t.ib.lat.steps + t.ib.lat.net == 0,
                 "a plan inside one node uses no IB", plan);
        if (gpn == 1)
            need(t.nvlink.bytes == 0, "one GPU per node uses no NVLink", plan);
        if (p->tp == 1)
            need(t.what_ib[COMM_TP].bytes == 0 &&
                     t.what_nvlink[COMM_TP].bytes == 0,
                 "tp=1: no TP bytes", plan);
        if (p->cp == 1)
            need(t.what_ib[COMM_CP].bytes == 0 &&
                     t.what_nvlink[COMM_CP].bytes == 0,
                 "cp=1: no CP bytes", plan);
        if (p->ep == 1)
            need(t.what_ib[COMM_EP].bytes == 0 &&
                     t.what_nvlink[COMM_EP].bytes == 0,
                 "ep=1: no EP bytes", plan);
        if (p->pp == 1)
            need(t.what_ib[COMM_PP].bytes == 0 &&
                     t.what_nvlink[COMM_PP].bytes == 0,
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
    struct memory *rank_mem;
    struct replay replay;
    struct diag d;
    size_t i, k, ncoll = 0, len = 0;
    char *text = NULL;
    FILE *mem;

    for (i = 0; i < 2; i++) {
        diag_init(&d);
        if (cost_ctx_init(&cc, m, hw, models[i], &d) != STATUS_OK ||
            cost_ctx_prepare_plan(&cc, p, &d) != STATUS_OK)
            need(false, "a checked plan can be partitioned", plan);
        cost_evaluate(&cc, p, COST_FLOOR | COST_EXPECTED, NULL, &r);
        ncoll = cost_collectives(&cc, &r, coll, COMM_LIST_MAX);
        check_result(&r, plan);
        check_links(&cc, p, plan);
        /* what eval shows, evaluated as cli_cmd_eval does: the writer
         * lays it out */
        comm_collective_times(coll, ncoll, hw);
        rank_mem = calloc((size_t)p->pp, sizeof *rank_mem);
        if (!rank_mem)
            abort();
        for (k = 0; k < (size_t)p->pp; k++)
            cost_rank_memory(&cc, &r, (long)k, &rank_mem[k]);
        replay_fill(&r, m, hw, &replay);
        memset(&view, 0, sizeof view);
        view.m = cc.m;
        view.hw = cc.hw;
        view.comm = cc.comm;
        view.r = &r;
        view.coll = coll;
        view.ncoll = ncoll;
        view.rank_mem = rank_mem;
        view.nrank_mem = (size_t)p->pp;
        view.part = cost_result_partition(&cc, &r);
        view.replay = &replay;
        mem = open_memstream(&text, &len);
        if (!mem)
            abort();
        eval_out_text(mem, &view);
        eval_out_json(mem, &view);
        if (fclose(mem) != 0)
            abort();
        fuzz_need_text(text, true); /* names reach the terminal */
        free(text);
        text = NULL;
        free(rank_mem);
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
    struct picks pk;
    long given_dp;

    if (!sets || !m || !hw)
        goto done;
    pick_overrides(&b, sets, &pk);
    diag_init(&d);
    have_m = model_load(mp, m, sets, pk.n, &d) == STATUS_OK;
    if (have_m && pk.refuse_model)
        abort(); /* a value out of range, subnormal or hex accepted */
    if (have_m)
        fuzz_need_loaded(model_schema(), &m->spec, &m->meta);
    else
        fuzz_need_text(d.msg, true);
    diag_init(&d);
    have_hw = hardware_load(hp, hw, sets, pk.n, &d) == STATUS_OK;
    if (have_hw && pk.refuse_hw)
        abort();
    if (have_hw)
        fuzz_need_loaded(hardware_schema(), &hw->spec, &hw->meta);
    else
        fuzz_need_text(d.msg, true);
    if (!have_m || !have_hw || m->units > LAYERS_MAX + 16)
        goto done;
    pick_plan(&b, m, hw, plan_text, sizeof plan_text);
    memset(&defaults, 0, sizeof defaults);
    args[0] = plan_text;
    diag_init(&d);
    if (plan_parse(args, 1, &defaults, &p, &given_dp, &d) != STATUS_OK ||
        plan_check(&p, m, hw, PLAN_CHECK_RUNNABLE, &d) != PLAN_OK)
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
