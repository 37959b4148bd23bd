/*
 * report: the sweep's visitor (counts, families, ranking, sensitivity),
 * the best plans' collectives under both communication models, and the
 * validation runs (data/validation, one .ini file per run).
 */
#define _GNU_SOURCE /* qsort_r */
#include "report.h"

#include <dirent.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha256.h>

#include "eval_out.h"

static const double sens_ib[REPORT_SENS_IB] = {12.5, 17.7, 25,  35.4, 50, 70.7,
                                               100,  141,  200, 283,  400};
static const double sens_nv[REPORT_SENS_NV] = {80,  113, 160, 226,
                                               320, 450, 640, 900};

/* ---- Ranking ---- */

/* True when plan a (fits, step) ranks before plan b: fitting first, then
 * faster, then by plan, so the order never depends on enumeration or
 * thread order. */
static bool ranks_before(bool fa,
                         double sa,
                         const struct plan *p,
                         bool fb,
                         double sb,
                         const struct plan *q)
{
    const long ka[] = {p->gpus,      p->tp,        p->pp,       p->cp,
                       p->ep,        p->zero,      p->schedule, p->vpp,
                       p->precision, p->recompute, p->mbs,      p->gbs};
    const long kb[] = {q->gpus,      q->tp,        q->pp,       q->cp,
                       q->ep,        q->zero,      q->schedule, q->vpp,
                       q->precision, q->recompute, q->mbs,      q->gbs};
    size_t i;
    if (fa != fb)
        return fa;
    if (sa != sb)
        return sa < sb;
    for (i = 0; i < sizeof ka / sizeof ka[0]; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i];
    return false;
}

static bool better(const struct report_row *a, const struct report_row *b)
{
    return ranks_before(a->fits, a->step, &a->plan, b->fits, b->step, &b->plan);
}

/* A family's best plan against a candidate's result. */
static bool beats_best(const struct cost_result *c,
                       const struct report_family *f)
{
    return ranks_before(c->fits, c->t.step, &c->plan, f->best.fits,
                        f->best.t.step, &f->best.plan);
}

/* ---- The sweep visitor ---- */

#define FAMILY_KEYS \
    (5 * 16) /* dp flavour (DP, ZeRO-1..3, none) x tp cp pp ep */

/*
 * The best `top` plans seen. rows holds them in no order; keys is a
 * max-heap on "worse" over small keys pointing into rows, so sifting moves
 * 16 bytes, not whole rows.
 */
struct heap_key {
    double step;
    uint32_t slot; /* index into rows */
    bool fits;
};

struct heap {
    struct report_row *rows;
    struct heap_key *keys;
    size_t n, cap, top;
    bool nomem;
};

/* Above this --top, shards share one heap: memory for `top` plans once,
 * not once per thread. */
#define SHARED_HEAP_MIN 65536

/*
 * One thread's share of the sweep: its own counts, examples, families (by
 * key) and kept plans, merged in a fixed order afterwards so the report is
 * the same whatever the number of threads.
 */
struct shard {
    const struct cost_ctx *ctx;
    const struct sweep_file *sf;
    const struct report_options *opt;
    const double *sens_ib, *sens_nv;
    uint64_t enumerated;
    size_t thread, nthreads, top, cap;
    bool nomem;
    uint64_t valid, fitting, done, rejected[PLAN_REASONS];
    uint64_t example_at[PLAN_REASONS][REPORT_EXAMPLES]; /* combination */
    char examples[PLAN_REASONS][REPORT_EXAMPLES][320];
    size_t nexamples[PLAN_REASONS];
    struct report_family family[FAMILY_KEYS];
    uint64_t family_first[FAMILY_KEYS]; /* UINT64_MAX: not seen */
    /* Kept plans (row.family holds the family key): the shard's own heap,
     * or, for large --top, one heap all shards share under a lock. */
    struct heap own;
    struct heap *shared;
    pthread_mutex_t *lock;
    struct report_row worst; /* the shared heap's root, when last seen */
    bool have_worst;
};

static int family_key(const struct plan *p)
{
    int dp = p->dp > 1 ? (int)p->zero : 4;
    return dp * 16 + (p->tp > 1) * 8 + (p->cp > 1) * 4 + (p->pp > 1) * 2 +
           (p->ep > 1);
}

/* True when heap key a ranks before key b (see ranks_before). */
static bool key_before(const struct heap *h,
                       const struct heap_key *a,
                       const struct heap_key *b)
{
    return ranks_before(a->fits, a->step, &h->rows[a->slot].plan, b->fits,
                        b->step, &h->rows[b->slot].plan);
}

static void sift_down(struct heap *h, size_t i)
{
    struct heap_key *k = h->keys;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        struct heap_key t;
        if (l < h->n && key_before(h, &k[w], &k[l]))
            w = l;
        if (r < h->n && key_before(h, &k[w], &k[r]))
            w = r;
        if (w == i)
            return;
        t = k[i];
        k[i] = k[w];
        k[w] = t;
        i = w;
    }
}

static void sift_up(struct heap *h, size_t i)
{
    struct heap_key *k = h->keys;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        struct heap_key t;
        if (!key_before(h, &k[parent], &k[i]))
            return;
        t = k[i];
        k[i] = k[parent];
        k[parent] = t;
        i = parent;
    }
}

/* Keeps row if it is among the heap's `top` best. */
static void heap_push(struct heap *h, const struct report_row *row)
{
    struct heap_key key;
    key.step = row->step;
    key.fits = row->fits;
    if (h->n < h->top) {
        if (h->n == h->cap) {
            size_t cap = h->cap ? h->cap * 2 : 1024;
            struct report_row *rows;
            struct heap_key *keys;
            if (cap > h->top)
                cap = h->top;
            rows = realloc(h->rows, cap * sizeof *rows);
            if (rows)
                h->rows = rows;
            keys = realloc(h->keys, cap * sizeof *keys);
            if (keys)
                h->keys = keys;
            if (!rows || !keys) {
                h->nomem = true;
                return;
            }
            h->cap = cap;
        }
        h->rows[h->n] = *row;
        key.slot = (uint32_t)h->n;
        h->keys[h->n] = key;
        sift_up(h, h->n++);
        return;
    }
    if (ranks_before(row->fits, row->step, &row->plan, h->keys[0].fits,
                     h->keys[0].step, &h->rows[h->keys[0].slot].plan)) {
        key.slot = h->keys[0].slot;
        h->rows[key.slot] = *row;
        h->keys[0] = key;
        sift_down(h, 0);
    }
}

/* qsort_r comparator over heap keys whose rows are `rows`. */
static int compare_keys(const void *x, const void *y, void *rows)
{
    const struct heap_key *a = x, *b = y;
    const struct report_row *r = rows;
    if (ranks_before(a->fits, a->step, &r[a->slot].plan, b->fits, b->step,
                     &r[b->slot].plan))
        return -1;
    return ranks_before(b->fits, b->step, &r[b->slot].plan, a->fits, a->step,
                        &r[a->slot].plan)
               ? 1
               : 0;
}

/*
 * Sorts rows best first, as ranks_before orders them: sorts 16-byte keys,
 * then moves each row once (following the permutation's cycles), instead
 * of qsort moving whole rows about log n times each.
 */
static bool sort_rows(struct report_row *rows, size_t n)
{
    struct heap_key *k = malloc((n ? n : 1) * sizeof *k);
    size_t i;
    if (!k)
        return false;
    for (i = 0; i < n; i++) {
        k[i].step = rows[i].step;
        k[i].fits = rows[i].fits;
        k[i].slot = (uint32_t)i;
    }
    qsort_r(k, n, sizeof *k, compare_keys, rows);
    /* position i takes the row at k[i].slot */
    for (i = 0; i < n; i++) {
        size_t at = i, from;
        struct report_row hold;
        if (k[i].slot == i || k[i].slot == UINT32_MAX)
            continue;
        hold = rows[i];
        while ((from = k[at].slot) != i) {
            rows[at] = rows[from];
            k[at].slot = UINT32_MAX; /* placed */
            at = from;
        }
        rows[at] = hold;
        k[at].slot = UINT32_MAX;
    }
    free(k);
    return true;
}

static void keep_row(struct shard *b, const struct report_row *row)
{
    struct heap *h = b->shared;
    if (!h) {
        heap_push(&b->own, row);
        return;
    }
    /* The shared heap's root only gets better, so a plan no better than
     * a root seen before cannot enter: skip it without the lock. */
    if (b->have_worst && !better(row, &b->worst))
        return;
    pthread_mutex_lock(b->lock);
    heap_push(h, row);
    if (h->n == h->top) {
        b->worst = h->rows[h->keys[0].slot];
        b->have_worst = true;
    }
    pthread_mutex_unlock(b->lock);
}

/* Keeps the smaller step; on a tie the lower bound code (thread order
 * must not matter). */
static void keep_min(double *step, int *bound, double s, int b)
{
    if (*step == 0 || s < *step || (s == *step && b < *bound)) {
        *step = s;
        *bound = b;
    }
}

/*
 * The family's best step at other IB and NVLink bandwidths: only the
 * link term changes, so each point is a few flops (cost_times' rules:
 * cost_core, bubble = coef x core / micro-batches).
 */
static void sensitivity(const struct shard *b,
                        struct report_family *f,
                        const struct cost_result *res)
{
    const struct hardware *hw = b->ctx->hw;
    const struct cost_work *w = &res->work;
    const struct cost_times *t = &res->t;
    double ib_lat = w->ib_calls * hw->ib_latency_s;
    double nv_lat = w->nvlink_calls * hw->nvlink_latency_s;
    size_t i;
    for (i = 0; i < REPORT_SENS_IB; i++) {
        int bound;
        double ib = w->ib_bytes / (b->sens_ib[i] * 1e9) + ib_lat;
        double core = cost_core(t->compute, ib, t->nvlink, t->hbm, &bound);
        keep_min(&f->sens_ib_step[i], &f->sens_ib_bound[i],
                 w->bubble_coef * core / w->microbatches + t->optimizer + core,
                 bound);
    }
    for (i = 0; i < REPORT_SENS_NV; i++) {
        int bound;
        double nv = w->nvlink_bytes / (b->sens_nv[i] * 1e9) + nv_lat;
        double core = cost_core(t->compute, t->ib, nv, t->hbm, &bound);
        keep_min(&f->sens_nv_step[i], &f->sens_nv_bound[i],
                 w->bubble_coef * core / w->microbatches + t->optimizer + core,
                 bound);
    }
}

static void
visit(void *user, struct plan *p, enum plan_reason why, uint64_t index)
{
    struct shard *b = user;
    struct cost_result res;
    struct report_row row;
    struct report_family *f;
    int key;

    if (b->opt->progress && b->thread == 0 && (++b->done & 0xffff) == 0)
        b->opt->progress(b->opt->progress_user, b->done * b->nthreads,
                         b->enumerated);
    if (why != PLAN_OK) {
        b->rejected[why]++;
        if (b->nexamples[why] < REPORT_EXAMPLES) {
            struct diag d;
            char text[200];
            size_t k = b->nexamples[why]++;
            diag_init(&d);
            plan_check(p, b->ctx->m, b->ctx->hw, true, &d);
            plan_format(p, text, sizeof text);
            snprintf(b->examples[why][k], sizeof b->examples[why][k],
                     "%.160s: %.150s", text, d.msg);
            b->example_at[why][k] = index;
        }
        return;
    }
    cost_evaluate(b->ctx, p, &res, NULL, 0, NULL);
    key = family_key(p);
    f = &b->family[key];
    if (b->family_first[key] == UINT64_MAX) {
        b->family_first[key] = index;
        plan_family(p, f->name, sizeof f->name);
    }
    b->valid++;
    f->plans++;
    if (res.fits) {
        b->fitting++;
        f->fitting++;
    }
    memset(&row, 0, sizeof row);
    row.plan = *p;
    row.work = res.work;
    row.mem = res.mem;
    row.ep_ratio = res.ep_ratio;
    row.step = res.t.step;
    row.family = key;
    row.fits = res.fits;
    row.rank = res.rank;
    if (!f->has_best || beats_best(&res, f)) {
        f->best = res;
        f->has_best = true;
    }
    if (res.fits)
        sensitivity(b, f, &res);
    keep_row(b, &row);
}

static void *run_shard(void *arg)
{
    struct shard *b = arg;
    sweep_run(b->sf, b->ctx->m, b->ctx->hw, b->thread, b->nthreads, visit, b);
    return NULL;
}

/* Folds shard `from` into family `to` of the report. */
static void merge_family(struct report_family *to,
                         const struct report_family *from)
{
    size_t i;
    to->plans += from->plans;
    to->fitting += from->fitting;
    if (from->has_best) {
        if (!to->has_best || beats_best(&from->best, to))
            to->best = from->best;
        to->has_best = true;
    }
    for (i = 0; i < REPORT_SENS_IB; i++)
        if (from->sens_ib_step[i] > 0)
            keep_min(&to->sens_ib_step[i], &to->sens_ib_bound[i],
                     from->sens_ib_step[i], from->sens_ib_bound[i]);
    for (i = 0; i < REPORT_SENS_NV; i++)
        if (from->sens_nv_step[i] > 0)
            keep_min(&to->sens_nv_step[i], &to->sens_nv_bound[i],
                     from->sens_nv_step[i], from->sens_nv_bound[i]);
}

/* Merges the shards into r: the same result for any number of shards. */
static enum status merge(struct report *r,
                         struct shard *sh,
                         size_t n,
                         struct heap *shared,
                         size_t top,
                         struct diag *d)
{
    int index_of_key[FAMILY_KEYS];
    size_t t, k, total = 0;
    int why;

    for (t = 0; t < n; t++) {
        r->valid += sh[t].valid;
        r->fitting += sh[t].fitting;
        for (why = 0; why < PLAN_REASONS; why++)
            r->rejected[why] += sh[t].rejected[why];
        total += sh[t].own.n;
    }
    /* examples: the first ones in enumeration order */
    for (why = 0; why < PLAN_REASONS; why++) {
        uint64_t last = 0;
        bool any = false;
        while (r->nexamples[why] < REPORT_EXAMPLES) {
            size_t bt = 0, bk = 0;
            bool found = false;
            for (t = 0; t < n; t++)
                for (k = 0; k < sh[t].nexamples[why]; k++) {
                    uint64_t at = sh[t].example_at[why][k];
                    if ((any && at <= last) ||
                        (found && at >= sh[bt].example_at[why][bk]))
                        continue;
                    bt = t;
                    bk = k;
                    found = true;
                }
            if (!found)
                break;
            memcpy(r->examples[why][r->nexamples[why]++],
                   sh[bt].examples[why][bk], sizeof r->examples[why][0]);
            last = sh[bt].example_at[why][bk];
            any = true;
        }
    }
    /* families: in order of their first plan in the enumeration */
    for (k = 0; k < FAMILY_KEYS; k++)
        index_of_key[k] = -1;
    for (;;) {
        uint64_t first = UINT64_MAX;
        size_t key = 0;
        for (k = 0; k < FAMILY_KEYS; k++)
            for (t = 0; t < n; t++)
                if (index_of_key[k] < 0 && sh[t].family_first[k] < first) {
                    first = sh[t].family_first[k];
                    key = k;
                }
        if (first == UINT64_MAX || r->nfamilies == REPORT_FAMILIES_MAX)
            break;
        index_of_key[key] = (int)r->nfamilies;
        memset(&r->family[r->nfamilies], 0, sizeof r->family[0]);
        for (t = 0; t < n; t++)
            if (sh[t].family_first[key] != UINT64_MAX) {
                snprintf(r->family[r->nfamilies].name, sizeof r->family[0].name,
                         "%s", sh[t].family[key].name);
                merge_family(&r->family[r->nfamilies], &sh[t].family[key]);
            }
        r->nfamilies++;
    }
    /* plans: every shard's best (or the shared heap), ranked, the top
     * kept */
    if (shared) {
        r->rows = shared->rows;
        r->nrows = shared->n;
        shared->rows = NULL;
        free(shared->keys);
        shared->keys = NULL;
    } else {
        r->rows = malloc((total ? total : 1) * sizeof *r->rows);
        if (!r->rows)
            return diag_set(d, STATUS_NOMEM, "out of memory ranking %zu plans",
                            total);
        for (t = 0; t < n; t++) {
            if (sh[t].own.n > 0)
                memcpy(r->rows + r->nrows, sh[t].own.rows,
                       sh[t].own.n * sizeof *r->rows);
            r->nrows += sh[t].own.n;
            free(sh[t].own.rows);
            free(sh[t].own.keys);
            sh[t].own.rows = NULL;
            sh[t].own.keys = NULL;
        }
    }
    if (!sort_rows(r->rows, r->nrows))
        return diag_set(d, STATUS_NOMEM, "out of memory ranking %zu plans",
                        r->nrows);
    if (r->nrows > top)
        r->nrows = top;
    for (k = 0; k < r->nrows; k++)
        r->rows[k].family = index_of_key[r->rows[k].family];
    r->dropped = r->valid - r->nrows;
    return STATUS_OK;
}

/* ---- After the sweep ---- */

/* Bandwidth (GB/s) that brings bytes + calls x latency down to compute. */
static double crossover(double bytes,
                        double calls,
                        double latency_s,
                        double link_s,
                        double compute_s)
{
    double room = compute_s - calls * latency_s;
    if (link_s <= compute_s)
        return 0;
    if (room <= 0)
        return -1;
    return bytes / room / 1e9;
}

static void finish_families(struct report *r,
                            const struct cost_ctx *ctx,
                            const struct cost_ctx *other)
{
    size_t i, j;
    for (i = 0; i < r->nfamilies; i++) {
        struct report_family *f = &r->family[i];
        const struct cost_work *w = &f->best.work;
        const struct cost_times *t = &f->best.t;
        struct plan p = f->best.plan;
        cost_evaluate(ctx, &p, &f->best, f->coll, COMM_LIST_MAX, &f->ncoll);
        cost_evaluate(other, &p, &f->best_other, f->coll_other, COMM_LIST_MAX,
                      &f->ncoll_other);
        snprintf(f->best.family, sizeof f->best.family, "%s", f->name);
        snprintf(f->best_other.family, sizeof f->best_other.family, "%s",
                 f->name);
        f->ib_crossover_gbps = crossover(
            w->ib_bytes, w->ib_calls, ctx->hw->ib_latency_s, t->ib, t->compute);
        f->nv_crossover_gbps =
            crossover(w->nvlink_bytes, w->nvlink_calls,
                      ctx->hw->nvlink_latency_s, t->nvlink, t->compute);
        r->families_by_step[i] = (long)i;
    }
    /* insertion sort of family indexes by their best plan's rank */
    for (i = 1; i < r->nfamilies; i++) {
        long k = r->families_by_step[i];
        for (j = i; j > 0; j--) {
            const struct report_family *g =
                &r->family[r->families_by_step[j - 1]];
            if (!beats_best(&r->family[k].best, g))
                break;
            r->families_by_step[j] = r->families_by_step[j - 1];
        }
        r->families_by_step[j] = k;
    }
}

/* ---- Validation runs ---- */

struct validation_spec {
    char name[128];
    char model[256];
    char hardware[256];
    char plan[DATAFILE_TEXT_MAX];
    double step_s, tflops_per_gpu, mfu, gpu_hours_per_trillion;
};

#define VOFF(member) offsetof(struct validation_spec, member)
/* clang-format off */
static const struct datafile_field validation_fields[] = {
    {"run", "name", DATAFILE_STRING, VOFF(name), 128, 0, 0, false, true, NULL, "", NULL, "the measured run"},
    {"run", "model", DATAFILE_STRING, VOFF(model), 256, 0, 0, false, true, NULL, "", NULL, "model file, relative to the data directory"},
    {"run", "hardware", DATAFILE_STRING, VOFF(hardware), 256, 0, 0, false, true, NULL, "", NULL, "hardware file, relative to the data directory"},
    {"run", "plan", DATAFILE_STRING, VOFF(plan), DATAFILE_TEXT_MAX, 0, 0, false, true, NULL, "", NULL, "the run's plan in PLAN syntax"},
    {"run", "step_s", DATAFILE_DOUBLE, VOFF(step_s), 0, 0, 1e9, false, false, "0", "s", NULL, "measured time per step (0: not published)"},
    {"run", "tflops_per_gpu", DATAFILE_DOUBLE, VOFF(tflops_per_gpu), 0, 0, 1e6, false, false, "0", "TFLOP/s", NULL, "measured model TFLOP/s per GPU"},
    {"run", "mfu", DATAFILE_DOUBLE, VOFF(mfu), 0, 0, 1, false, false, "0", "", NULL, "measured MFU against the BF16 peak"},
    {"run", "gpu_hours_per_trillion", DATAFILE_DOUBLE, VOFF(gpu_hours_per_trillion), 0, 0, 1e12, false, false, "0", "GPU-h", NULL, "measured GPU-hours per trillion tokens"},
};
/* clang-format on */

const struct datafile_schema validation_schema = {
    "validation", validation_fields,
    sizeof validation_fields / sizeof validation_fields[0]};

static int compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Resolves `rel` against the data directory (the validation dir's parent). */
static void data_path(const char *vdir, const char *rel, char *out, size_t size)
{
    if (rel[0] == '/')
        snprintf(out, size, "%s", rel);
    else
        snprintf(out, size, "%s/../%s", vdir, rel);
}

static bool same_file(const char *a, const char *b)
{
    char ra[PATH_MAX], rb[PATH_MAX];
    return realpath(a, ra) && realpath(b, rb) && strcmp(ra, rb) == 0;
}

static enum status
add_input(struct report *r, const char *role, const char *path, struct diag *d)
{
    struct report_input *in;
    if (r->ninputs == REPORT_INPUTS_MAX)
        return STATUS_OK;
    in = &r->input[r->ninputs];
    snprintf(in->role, sizeof in->role, "%s", role);
    snprintf(in->path, sizeof in->path, "%s", path);
    if (!SHA256File(path, in->sha256))
        return diag_set(d, STATUS_IO, "%s: cannot read for its checksum", path);
    r->ninputs++;
    return STATUS_OK;
}

static enum status one_validation(struct report *r,
                                  const char *vdir,
                                  const char *path,
                                  const struct cost_ctx *ctx,
                                  const struct cost_ctx *other,
                                  struct diag *d)
{
    struct validation_spec vs;
    struct datafile_meta meta;
    struct report_validation *v;
    struct model m;
    struct hardware hw;
    struct cost_ctx own;
    struct plan defaults;
    char *args[1];
    char plan_text[DATAFILE_TEXT_MAX];
    long given_dp;
    enum status st;

    memset(&vs, 0, sizeof vs);
    st = datafile_load(path, &validation_schema, &vs, &meta, NULL, 0, d);
    if (st != STATUS_OK)
        return st;
    if (r->nvalidations == REPORT_VALIDATIONS_MAX) {
        datafile_meta_release(&meta);
        return STATUS_OK;
    }
    v = &r->validation[r->nvalidations];
    memset(v, 0, sizeof *v);
    snprintf(v->name, sizeof v->name, "%s", vs.name);
    snprintf(v->source, sizeof v->source, "%s", datafile_meta_source(&meta, 0));
    datafile_meta_release(&meta);
    data_path(vdir, vs.model, v->model_path, sizeof v->model_path);
    data_path(vdir, vs.hardware, v->hardware_path, sizeof v->hardware_path);
    v->measured_step_s = vs.step_s;
    v->measured_tflops_per_gpu = vs.tflops_per_gpu;
    v->measured_mfu = vs.mfu;
    v->measured_gpu_hours_per_trillion = vs.gpu_hours_per_trillion;
    v->current = same_file(v->model_path, ctx->m->meta.path) &&
                 same_file(v->hardware_path, ctx->hw->meta.path);

    if (v->current) {
        m = *ctx->m; /* shallow copies: only read below */
        hw = *ctx->hw;
    } else {
        char recipe[PATH_MAX]; /* for a config.json model */
        data_path(vdir, "training/default.ini", recipe, sizeof recipe);
        if (model_load_with_training(v->model_path, recipe, &m, NULL, 0, d) !=
            STATUS_OK)
            return d->status;
        if (hardware_load(v->hardware_path, &hw, NULL, 0, d) != STATUS_OK) {
            model_release(&m);
            return d->status;
        }
    }
    snprintf(v->model_name, sizeof v->model_name, "%s", m.spec.name);
    snprintf(v->gpu_name, sizeof v->gpu_name, "%s", hw.spec.gpu_name);
    memset(&defaults, 0, sizeof defaults);
    defaults.gpus = hw.spec.gpus;
    defaults.tp = defaults.pp = defaults.ep = defaults.cp = 1;
    defaults.vpp = defaults.mbs = 1;
    defaults.gbs = m.spec.global_batch;
    snprintf(plan_text, sizeof plan_text, "%s", vs.plan);
    args[0] = plan_text;
    st = plan_parse(args, 1, &defaults, &v->plan, &given_dp, d);
    if (st == STATUS_OK && plan_check(&v->plan, &m, &hw, false, d) != PLAN_OK)
        st = d->status;
    if (st != STATUS_OK) {
        char why[DIAG_MSG_MAX];
        snprintf(why, sizeof why, "%s", d->msg);
        diag_set(d, STATUS_RANGE, "%s: run.plan: %s", path, why);
    } else if (v->current) {
        if (cost_ctx_prepare((struct cost_ctx *)ctx, v->plan.pp, v->plan.vpp,
                             v->plan.schedule, d) == STATUS_OK &&
            cost_ctx_prepare((struct cost_ctx *)other, v->plan.pp, v->plan.vpp,
                             v->plan.schedule, d) == STATUS_OK) {
            struct cost_result alt;
            cost_evaluate(ctx, &v->plan, &v->predicted, v->coll, COMM_LIST_MAX,
                          &v->ncoll);
            cost_evaluate(other, &v->plan, &alt, v->coll_other, COMM_LIST_MAX,
                          &v->ncoll_other);
        }
    } else if (cost_ctx_init(&own, &m, &hw, ctx->comm, d) == STATUS_OK &&
               cost_ctx_prepare(&own, v->plan.pp, v->plan.vpp, v->plan.schedule,
                                d) == STATUS_OK) {
        cost_evaluate(&own, &v->plan, &v->predicted, NULL, 0, NULL);
    }
    plan_family(&v->plan, v->predicted.family, sizeof v->predicted.family);
    if (!v->current) {
        cost_ctx_release(&own);
        model_release(&m);
        hardware_release(&hw);
    }
    if (d->status != STATUS_OK)
        return d->status;
    r->nvalidations++;
    return add_input(r, "validation", path, d);
}

static enum status load_validations(struct report *r,
                                    const char *vdir,
                                    const struct cost_ctx *ctx,
                                    const struct cost_ctx *other,
                                    struct diag *d)
{
    DIR *dir = opendir(vdir);
    struct dirent *e;
    char *names[256];
    size_t n = 0, i;
    enum status st = STATUS_OK;
    if (!dir)
        return STATUS_OK; /* no validation runs: the sheet says so */
    while ((e = readdir(dir)) != NULL && n < 256) {
        size_t len = strlen(e->d_name);
        if (len > 4 && strcmp(e->d_name + len - 4, ".ini") == 0) {
            names[n] = malloc(len + 1);
            if (!names[n])
                break;
            memcpy(names[n++], e->d_name, len + 1);
        }
    }
    closedir(dir);
    qsort(names, n, sizeof names[0], compare_names);
    for (i = 0; i < n; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", vdir, names[i]);
        if (st == STATUS_OK)
            st = one_validation(r, vdir, path, ctx, other, d);
        free(names[i]);
    }
    return st;
}

/* Rank (1-based) of the current validation plans among the kept rows. */
static void rank_validations(struct report *r)
{
    size_t i, k;
    for (i = 0; i < r->nvalidations; i++) {
        struct report_validation *v = &r->validation[i];
        if (!v->current)
            continue;
        for (k = 0; k < r->nrows; k++)
            if (memcmp(&r->rows[k].plan, &v->plan, sizeof v->plan) == 0) {
                v->rank = (long)k + 1;
                break;
            }
    }
}

/* ---- Public ---- */

enum status report_build(struct report *r,
                         const struct cost_ctx *ctx,
                         const struct cost_ctx *ctx_other,
                         const struct sweep_file *sf,
                         const struct report_options *opt,
                         struct diag *d)
{
    struct shard *sh;
    struct heap shared;
    pthread_mutex_t lock;
    pthread_t *tid;
    size_t i, t, nthreads, started;
    /* heap slots are 32-bit; more plans than that would not fit anyway */
    size_t top = opt->top && opt->top < UINT32_MAX ? opt->top
                 : opt->top                        ? UINT32_MAX
                                                   : REPORT_EXCEL_ROWS;
    bool nomem = false;
    enum status st = STATUS_OK;

    memset(r, 0, sizeof *r);
    r->m = ctx->m;
    r->hw = ctx->hw;
    r->sweep = sf;
    r->comm = ctx->comm;
    snprintf(r->command_line, sizeof r->command_line, "%s",
             opt->command_line ? opt->command_line : "");
    snprintf(r->version, sizeof r->version, "%s",
             opt->version ? opt->version : "");
    r->generated = opt->generated;
    r->enumerated = sweep_count(sf);
    if (r->enumerated > SWEEP_MAX_COMBINATIONS)
        return diag_set(d, STATUS_RANGE,
                        "%s: the plan space has %s%llu combinations; at most "
                        "%llu are swept (narrow the [space] lists)",
                        sf->meta.path,
                        r->enumerated == UINT64_MAX ? "more than " : "",
                        (unsigned long long)r->enumerated,
                        (unsigned long long)SWEEP_MAX_COMBINATIONS);
    if (sweep_prepare(sf, (struct cost_ctx *)ctx, d) != STATUS_OK ||
        sweep_prepare(sf, (struct cost_ctx *)ctx_other, d) != STATUS_OK)
        return d->status;
    if (add_input(r, "model", ctx->m->meta.path, d) != STATUS_OK ||
        add_input(r, "hardware", ctx->hw->meta.path, d) != STATUS_OK ||
        add_input(r, "sweep", sf->meta.path, d) != STATUS_OK)
        return d->status;

    nthreads = opt->threads ? opt->threads : 1;
    sh = calloc(nthreads, sizeof *sh);
    tid = calloc(nthreads, sizeof *tid);
    if (!sh || !tid) {
        free(sh);
        free(tid);
        return diag_set(d, STATUS_NOMEM, "out of memory");
    }
    for (i = 0; i < REPORT_SENS_IB; i++)
        r->sens_ib_gbps[i] = sens_ib[i];
    for (i = 0; i < REPORT_SENS_NV; i++)
        r->sens_nv_gbps[i] = sens_nv[i];
    memset(&shared, 0, sizeof shared);
    shared.top = top;
    pthread_mutex_init(&lock, NULL);
    for (t = 0; t < nthreads; t++) {
        sh[t].ctx = ctx;
        sh[t].sf = sf;
        sh[t].opt = opt;
        sh[t].sens_ib = r->sens_ib_gbps;
        sh[t].sens_nv = r->sens_nv_gbps;
        sh[t].enumerated = r->enumerated;
        sh[t].thread = t;
        sh[t].nthreads = nthreads;
        sh[t].own.top = top;
        if (top >= SHARED_HEAP_MIN && nthreads > 1) {
            sh[t].shared = &shared;
            sh[t].lock = &lock;
        }
        for (i = 0; i < FAMILY_KEYS; i++)
            sh[t].family_first[i] = UINT64_MAX;
    }
    for (t = 1; t < nthreads; t++)
        if (pthread_create(&tid[t], NULL, run_shard, &sh[t]) != 0)
            break;
    started = t;
    run_shard(&sh[0]);
    for (t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    for (t = started; t < nthreads; t++) /* threads that did not start */
        run_shard(&sh[t]);
    nomem = shared.nomem;
    for (t = 0; t < nthreads; t++)
        nomem = nomem || sh[t].own.nomem;
    if (!nomem)
        st = merge(r, sh, nthreads, sh[0].shared, top, d);
    for (t = 0; t < nthreads; t++) {
        free(sh[t].own.rows);
        free(sh[t].own.keys);
    }
    free(shared.rows);
    free(shared.keys);
    pthread_mutex_destroy(&lock);
    free(sh);
    free(tid);
    if (nomem)
        return diag_set(d, STATUS_NOMEM, "out of memory keeping %zu plans",
                        top);
    if (st != STATUS_OK)
        return st;
    if (r->valid == 0) {
        int worst = 1, k;
        for (k = 1; k < PLAN_REASONS; k++)
            if (r->rejected[k] > r->rejected[worst])
                worst = k;
        return diag_set(d, STATUS_RANGE,
                        "%s: no valid plan: all %llu combinations were "
                        "rejected (most often: %s, %llu times; e.g. %s)",
                        sf->meta.path, (unsigned long long)r->enumerated,
                        plan_reason_str((enum plan_reason)worst),
                        (unsigned long long)r->rejected[worst],
                        r->nexamples[worst] ? r->examples[worst][0] : "-");
    }
    finish_families(r, ctx, ctx_other);
    if (opt->validation_dir)
        st = load_validations(r, opt->validation_dir, ctx, ctx_other, d);
    rank_validations(r);
    return st;
}

void report_free(struct report *r)
{
    if (!r)
        return;
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
}

void report_row_times(const struct report *r,
                      const struct report_row *row,
                      struct cost_times *t)
{
    cost_times(&row->work, r->hw, r->m, row->plan.precision, t);
}

uint32_t report_family_color(const struct report *r, size_t family)
{
    static const uint32_t palette[16] = {
        0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9,
        0x332288, 0x882255, 0x117733, 0xAA4499, 0x999933, 0x44AA99,
        0xCC6677, 0xDDCC77, 0x88CCEE, 0x661100};
    size_t i, fitting = 0;
    if (family >= r->nfamilies)
        return 0x999999;
    if (!r->family[family].best.fits) /* no plan of it fits: grey, but
                                       * the classic FSDP baseline */
        return strcmp(r->family[family].name, "ZeRO-3") == 0 ? 0x000000
                                                             : 0x999999;
    for (i = 0; i < r->nfamilies; i++) {
        size_t k = (size_t)r->families_by_step[i];
        if (k == family)
            return palette[fitting % 16];
        if (r->family[k].best.fits)
            fitting++;
    }
    return 0x999999;
}

long report_family_index(const struct report *r, const char *name)
{
    size_t i;
    for (i = 0; i < r->nfamilies; i++)
        if (strcmp(r->family[i].name, name) == 0)
            return (long)i;
    return -1;
}

struct dropped {
    const struct report *r;
    const struct cost_ctx *ctx;
    void (*emit)(void *out, const struct report_row *row);
    void *out;
    int index_of_key[FAMILY_KEYS];
};

static void
visit_dropped(void *user, struct plan *p, enum plan_reason why, uint64_t index)
{
    struct dropped *dr = user;
    const struct report *r = dr->r;
    struct cost_result res;
    struct report_row row;
    int key;
    (void)index;
    if (why != PLAN_OK)
        return;
    cost_evaluate(dr->ctx, p, &res, NULL, 0, NULL);
    /* kept plans rank before or at the last kept one */
    if (r->nrows > 0 &&
        !ranks_before(r->rows[r->nrows - 1].fits, r->rows[r->nrows - 1].step,
                      &r->rows[r->nrows - 1].plan, res.fits, res.t.step, p))
        return;
    key = family_key(p);
    if (dr->index_of_key[key] < 0) {
        char name[32];
        plan_family(p, name, sizeof name);
        dr->index_of_key[key] = (int)report_family_index(r, name);
    }
    memset(&row, 0, sizeof row);
    row.plan = *p;
    row.work = res.work;
    row.mem = res.mem;
    row.ep_ratio = res.ep_ratio;
    row.step = res.t.step;
    row.family = dr->index_of_key[key];
    row.fits = res.fits;
    row.rank = res.rank;
    dr->emit(dr->out, &row);
}

void report_each_dropped(const struct report *r,
                         const struct cost_ctx *ctx,
                         const struct sweep_file *sf,
                         void (*emit)(void *out, const struct report_row *row),
                         void *out)
{
    struct dropped dr;
    size_t k;
    dr.r = r;
    dr.ctx = ctx;
    dr.emit = emit;
    dr.out = out;
    for (k = 0; k < FAMILY_KEYS; k++)
        dr.index_of_key[k] = -1;
    sweep_run(sf, ctx->m, ctx->hw, 0, 1, visit_dropped, &dr);
}
