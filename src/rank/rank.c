/*
 * rank: the sweep's visitor (counts, families, the kept plans, the
 * families' sensitivity), its threads and their merge (see rank.h). The
 * ranking rule, the spill files and the cursor over every plan are
 * rank_spill.c's.
 */
#define _GNU_SOURCE /* qsort_r */
#include "rank.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model_partition.h"
#include "rank_cache.h"
#include "rank_prune.h"
#include "terms.h"

/* The layer splits of the space's pp_first, pp_last and pp_split lists
 * that plan_check() accepts with this pp and vpp. */
static enum status prepare_splits(const struct sweep_spec *s,
                                  struct cost_ctx *ctx,
                                  long pp,
                                  long vpp,
                                  int sched,
                                  struct diag *d)
{
    size_t a, b, c;
    struct plan p;
    memset(&p, 0, sizeof p);
    p.pp = pp;
    p.vpp = vpp;
    p.schedule = sched;
    for (a = 0; a < s->pp_first.n; a++)
        for (b = 0; b < s->pp_last.n; b++)
            for (c = 0; c < s->pp_split.n; c++) {
                long first, last;
                p.pp_first = (long)s->pp_first.v[a];
                p.pp_last = (long)s->pp_last.v[b];
                p.pp_split = (int)s->pp_split.v[c];
                if (!plan_split_shape_ok(&p) ||
                    !plan_split_layers(&p, ctx->m->spec.layers, &first,
                                       &last) ||
                    !model_partition_split_ok(ctx->m->spec.layers, pp * vpp,
                                              first, last))
                    continue;
                if (cost_ctx_prepare_plan(ctx, &p, d) != STATUS_OK)
                    return d->status;
            }
    return STATUS_OK;
}

enum status
rank_prepare(const struct sweep_file *sf, struct cost_ctx *ctx, struct diag *d)
{
    const struct sweep_spec *s = &sf->spec;
    size_t i, j, k;
    for (i = 0; i < s->pp.n; i++)
        for (j = 0; j < s->schedule.n; j++) {
            int sched = (int)s->schedule.v[j];
            const struct plan_schedule_row *row = plan_schedule_of(sched);
            bool inter = row->vpp;
            for (k = 0; k < (inter ? s->vpp.n : 1); k++) {
                long pp = (long)s->pp.v[i];
                long vpp = inter ? (long)s->vpp.v[k] : 1;
                /* plan_check rejects these: an odd pp where the schedule
                 * needs an even one, more chunks than layers to balance */
                if (row->pp_even && pp % 2 != 0)
                    continue;
                if (((double)pp * (double)vpp <= (double)ctx->m->units &&
                     cost_ctx_prepare(ctx, pp, vpp, sched, d) != STATUS_OK) ||
                    prepare_splits(s, ctx, pp, vpp, sched, d) != STATUS_OK)
                    return d->status;
            }
        }
    return STATUS_OK;
}

static bool better(const struct ranking_row *a, const struct ranking_row *b)
{
    return rank_before(a->fits, a->step, &a->plan, b->fits, b->step, &b->plan);
}

/* A family's best plan against a candidate's result. */
static bool beats_best(const struct cost_result *c,
                       const struct ranking_family *f)
{
    return rank_before(c->fits, cost_rank_step(c), &c->plan, f->best.fits,
                       cost_rank_step(&f->best), &f->best.plan);
}

/* ---- The sweep visitor ---- */

#define FAMILY_KEYS RANKING_FAMILY_KEYS

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
    struct ranking_row *rows;
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
    const struct rank_options *opt;
    /* the cluster at each sensitivity bandwidth (only that rate differs) */
    const struct hardware *sens_ib, *sens_nv;
    const double *sens_ib_gbps, *sens_nv_gbps;
    /* each point's link rate over the cluster's where faster, else 1
     * (grid_need) */
    const double *sens_ib_faster, *sens_nv_faster;
    size_t nsens_ib, nsens_nv;
    double headroom_pct; /* of HBM kept free (terms_fits) */
    FILE *spill;         /* every valid plan, or NULL */
    bool spill_failed;
    uint64_t enumerated;
    size_t thread, nthreads, top, cap;
    bool nomem;
    uint64_t valid, fitting, done, rejected[PLAN_REASONS];
    uint64_t floor_only; /* valid plans whose expected step was skipped */
    uint64_t example_at[PLAN_REASONS][RANKING_EXAMPLES]; /* combination */
    char examples[PLAN_REASONS][RANKING_EXAMPLES][320];
    size_t nexamples[PLAN_REASONS];
    struct ranking_family family[FAMILY_KEYS];
    uint64_t family_first[FAMILY_KEYS]; /* UINT64_MAX: not seen */
    /* Kept plans (row.family holds the family key): the shard's own heap,
     * or, for large --top, one heap all shards share under a lock. */
    struct heap own;
    struct heap *shared;
    pthread_mutex_t *lock;
    struct ranking_row worst; /* the shared heap's root, when last seen */
    bool have_worst;
    struct rank_cache cache; /* the thread's hint from plan to plan */
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
    return rank_before(a->fits, a->step, &h->rows[a->slot].plan, b->fits,
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
static void heap_push(struct heap *h, const struct ranking_row *row)
{
    struct heap_key key;
    key.step = row->step;
    key.fits = row->fits;
    if (h->n < h->top) {
        if (h->n == h->cap) {
            size_t cap = h->cap ? h->cap * 2 : 1024;
            struct ranking_row *rows;
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
    if (rank_before(row->fits, row->step, &row->plan, h->keys[0].fits,
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
    const struct ranking_row *r = rows;
    if (rank_before(a->fits, a->step, &r[a->slot].plan, b->fits, b->step,
                    &r[b->slot].plan))
        return -1;
    return rank_before(b->fits, b->step, &r[b->slot].plan, a->fits, a->step,
                       &r[a->slot].plan)
               ? 1
               : 0;
}

/*
 * Sorts rows best first, as ranks_before orders them: sorts 16-byte keys,
 * then moves each row once (following the permutation's cycles), instead
 * of qsort moving whole rows about log n times each.
 */
static bool sort_rows(struct ranking_row *rows, size_t n)
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
        struct ranking_row hold;
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

static void keep_row(struct shard *b, const struct ranking_row *row)
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
 * The family's best step over one bandwidth grid (the cluster at each
 * rate: hw[0..n-1], rates gbps), into step[] and bound[]: the plan's work
 * re-timed by the time model on the cluster with that one rate changed
 * (terms_step: only the link terms move). The step does not grow with a
 * link's rate (every term is a sum, maximum or minimum of the link times,
 * or a non-negative multiple of one, when the bubble's coefficient is not
 * negative), so the step at the grid's fastest rate bounds the others
 * from below: a point whose best step is already below it is skipped.
 */
static void sensitivity_grid(const struct cost_work *w,
                             const struct hardware *hw,
                             const double *gbps,
                             size_t n,
                             double *step,
                             int *bound)
{
    size_t i, fastest = 0;
    double floor_s = 0;
    bool monotone = w->bubble_coef * (1 + w->ramp_skew) >= 0;
    for (i = 1; i < n; i++)
        if (gbps[i] > gbps[fastest])
            fastest = i;
    for (i = 0; i < n; i++) {
        size_t k = i == 0 ? fastest : i == fastest ? 0 : i;
        struct cost_times t;
        struct terms_env e = {w, &hw[k], NULL, 0, &t};
        if (i > 0 && monotone && step[k] > 0 && floor_s > step[k])
            continue;
        terms_step(&e, &t);
        if (i == 0)
            floor_s = t.step;
        keep_min(&step[k], &bound[k], t.step, t.bound);
    }
}

/* The family's best step at other IB and NVLink bandwidths. */
static void sensitivity(const struct shard *b,
                        struct ranking_family *f,
                        const struct cost_result *res)
{
    sensitivity_grid(&res->work, b->sens_ib, b->sens_ib_gbps, b->nsens_ib,
                     f->sens_ib_step, f->sens_ib_bound);
    sensitivity_grid(&res->work, b->sens_nv, b->sens_nv_gbps, b->nsens_nv,
                     f->sens_nv_step, f->sens_nv_bound);
}

/* True when plan p with memory m is lighter than the family's lightest:
 * less memory, then the plan's order (thread order must not matter). */
static bool lighter(const struct plan *p,
                    const struct memory *m,
                    const struct ranking_family *f)
{
    if (!f->has_lightest || m->total != f->lightest_mem.total)
        return !f->has_lightest || m->total < f->lightest_mem.total;
    return rank_before(true, 0, p, true, 0, &f->lightest);
}

/* Appends a valid plan to the shard's spill file (in enumeration order). */
static void
spill(struct shard *b, const struct ranking_row *row, uint64_t index)
{
    if (!b->spill || b->spill_failed)
        return;
    if (!rank_spill_write(b->spill, row, index))
        b->spill_failed = true;
}

/*
 * True when a plan whose speed of light is floor (its result so far,
 * cost_evaluate's COST_FLOOR) can enter neither the kept plans nor its family's
 * best: its rank step at the expected rates is at least the floor (the
 * floor holds by construction), so nothing the report shows needs it
 * (issue 19 item 2). The caller asks only where f has a best and there
 * is no spill (which lists every plan's times). A stale root of the shared heap
 * is no better than the current one, so reading it without the lock only skips
 * fewer plans.
 */
static bool cannot_enter(const struct shard *b,
                         const struct cost_result *floor,
                         const struct ranking_family *f)
{
    double step = cost_rank_step(floor);
    const struct heap *h = &b->own;
    if (beats_best(floor, f)) /* the caller: f has a best, no spill */
        return false;
    if (b->shared)
        return b->have_worst &&
               !rank_before(floor->fits, step, &floor->plan, b->worst.fits,
                            b->worst.step, &b->worst.plan);
    return h->n == h->top && h->n > 0 &&
           !rank_before(floor->fits, step, &floor->plan, h->keys[0].fits,
                        h->keys[0].step, &h->rows[h->keys[0].slot].plan);
}

/* The step a plan must beat to enter the kept plans when they are all
 * full and fit, else -1 (a stale root of the shared heap is no better
 * than the current one: comparing with it skips fewer plans). */
static double kept_worst_fitting(const struct shard *b)
{
    const struct heap *h = &b->own;
    if (b->shared)
        return b->have_worst && b->worst.fits ? b->worst.step : -1;
    if (h->n == h->top && h->n > 0 && h->keys[0].fits)
        return h->keys[0].step;
    return -1;
}

/*
 * Raises *need to the bound of a plan's speed of light (on the sweep's
 * cluster) that puts the step its slowest rank takes at every point of a
 * sensitivity grid (grid: its steps; faster: r, the point's link rate
 * over the cluster's where faster, else 1) above the grid's step there
 * (keep_min would change none of them), where a bound of any rank's step
 * at any link rate (any) does not already: where the link is no faster,
 * the step there is at least the floor (it does not fall as a link
 * slows: sensitivity_grid); where it is r times faster, at least the
 * floor / r (each time term is at
 * least its value on a cluster with every rate r times faster and every
 * latency r times shorter, where every term, so the step, takes 1 / r of
 * its time: the step grows with each term, terms.c). False when a point
 * has no fitting plan yet (the plan would set it).
 */
static bool grid_need(const double *grid,
                      const double *faster,
                      size_t n,
                      double any,
                      double *need)
{
    size_t i;
    for (i = 0; i < n; i++) {
        double at;
        if (!(grid[i] > 0))
            return false;
        if (any > grid[i])
            continue;
        at = grid[i] * faster[i];
        if (at > *need)
            *need = at;
    }
    return true;
}

/* grid_need over both of f's grids. */
static bool grids_need(const struct shard *b,
                       const struct ranking_family *f,
                       double any,
                       double *need)
{
    return grid_need(f->sens_ib_step, b->sens_ib_faster, b->nsens_ib, any,
                     need) &&
           grid_need(f->sens_nv_step, b->sens_nv_faster, b->nsens_nv, any,
                     need);
}

/*
 * True when plan p need not be timed at all, only its memory known: its
 * memories (cost_memory: it runs with one of them) agree on
 * whether it fits, none is lighter than f's lightest, the kept plans are
 * full and all fit, and either it does not fit where f's best does
 * (rank_before puts the fitting plans first: it can enter neither
 * whatever its step) or its speed of light's lower bound
 * (rank_prune_bounds: its ranks' compute, then, where that is not
 * enough, their full work one rank at a time) is above f's best step
 * (both fitting, or neither) and, fitting, above the kept plans' worst
 * step and every point of f's sensitivity grids (which its work re-timed
 * there could not lower: grid_need).
 * Then it is counted as cannot_enter would count it, from res->mem and
 * res->fits (the memory of a rank it may run with, which fits and is
 * lighter as its heaviest rank's would), and nothing the report shows
 * needs its times. The caller asks only where cannot_enter would be
 * asked, with the thread's cache holding the hint for p (the memories
 * weighed are left there for cost_evaluate).
 */
static bool untimed(struct shard *b,
                    const struct plan *p,
                    const struct ranking_family *f,
                    struct cost_result *res)
{
    struct cost_memories known;
    const struct memory *m = known.mem;
    size_t i, n;
    bool fits;
    double worst = kept_worst_fitting(b), step, any_rank;
    double usable =
        terms_mem_usable(b->ctx->hw->capacity_bytes, b->headroom_pct);
    if (worst < 0 || !f->has_lightest)
        return false;
    /* a rank above both the usable bytes and f's lightest: the plan
     * neither fits nor is lighter, whatever its other ranks hold */
    n = cost_memory(b->ctx, p,
                    usable > f->lightest_mem.total ? usable
                                                   : f->lightest_mem.total,
                    &b->cache.hint, &known);
    fits = terms_fits(m[0].total, m[0].capacity, b->headroom_pct);
    for (i = 0; i < n; i++)
        if (terms_fits(m[i].total, m[i].capacity, b->headroom_pct) != fits ||
            lighter(p, &m[i], f))
            return false;
    if (fits && !f->best.fits) /* it beats that best */
        return false;
    /* Not fitting where f's best fits, it enters neither whatever its
     * step; else only if it is slower than f's best (both fit or
     * neither) and, fitting, than the kept plans' worst. */
    if (fits || !f->best.fits) {
        double best = cost_rank_step(&f->best);
        /* what the step's bound must be above: f's best and, fitting,
         * the kept plans' worst and the grids' points (grids_need) */
        double least = fits && worst > best ? worst : best, need = least;
        /* the ranks' compute first, then, where that bound is not above
         * need, their full work (rank_prune_bounds; the compute weighed
         * once, through the thread's cache); until it is above
         * need, the bounds may be one partition's alone (cost.h), so the
         * grids' need is weighed again with both partitions' any_rank */
        if (!rank_prune_bounds(b->ctx, p, &b->cache, false, least, &step,
                               &any_rank) ||
            (fits && !grids_need(b, f, any_rank, &need)))
            return false;
        if (!(step > need)) {
            if (!rank_prune_bounds(b->ctx, p, &b->cache, true, need, &step,
                                   &any_rank) ||
                !(step > need))
                return false;
            need = least;
            if (fits && (!grids_need(b, f, any_rank, &need) || !(step > need)))
                return false;
        }
    }
    res->mem = m[0];
    res->fits = fits;
    return true;
}

static void
visit(void *user, struct plan *p, enum plan_reason why, uint64_t index)
{
    struct shard *b = user;
    struct cost_result res;
    struct cost_hint *hint;
    struct ranking_row row;
    struct ranking_family *f;
    int key;
    bool floor_only = false, timed = true;

    if (b->opt->progress && (++b->done & 0xfff) == 0)
        b->opt->progress(b->opt->progress_user, 0x1000);
    if (why != PLAN_OK) {
        b->rejected[why]++;
        if (b->nexamples[why] < RANKING_EXAMPLES) {
            struct diag d;
            char text[200];
            size_t k = b->nexamples[why]++;
            diag_init(&d);
            plan_check(p, b->ctx->m, b->ctx->hw, true, &d);
            plan_format(p, text, sizeof text);
            diag_snprintf(b->examples[why][k], sizeof b->examples[why][k],
                          "%.*s: %.*s", diag_utf8_prec(text, 160), text,
                          diag_utf8_prec(d.msg, 150), d.msg);
            b->example_at[why][k] = index;
        }
        return;
    }
    key = family_key(p);
    f = &b->family[key];
    hint = rank_cache_hint(&b->cache, p);
    /* the floor first where the expected step may not be needed */
    if (b->ctx->hw->cal && b->ctx->stack && !b->spill && f->has_best) {
        if (untimed(b, p, f, &res)) {
            floor_only = true;
            timed = false;
        } else {
            cost_evaluate(b->ctx, p, COST_FLOOR, hint, &res);
            res.fits =
                terms_fits(res.mem.total, res.mem.capacity, b->headroom_pct);
            floor_only = cannot_enter(b, &res, f);
        }
    }
    if (!floor_only) {
        cost_evaluate(b->ctx, p, COST_FLOOR | COST_EXPECTED, hint, &res);
        res.fits = terms_fits(res.mem.total, res.mem.capacity, b->headroom_pct);
    }
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
    if (lighter(p, &res.mem, f)) {
        f->lightest = *p;
        f->lightest_mem = res.mem;
        f->has_lightest = true;
    }
    /* speed-of-light terms only: the floor's work has them (an untimed
     * plan changes no point of the grids) */
    if (res.fits && timed)
        sensitivity(b, f, &res);
    if (floor_only) {
        b->floor_only++;
        return;
    }
    if (!f->has_best || beats_best(&res, f)) {
        f->best = res;
        f->has_best = true;
    }
    ranking_row_of(&res, key, &row); /* res.plan is *p (cost_evaluate) */
    spill(b, &row, index);
    keep_row(b, &row);
}

/* sweep_skip: count rejected combinations as visit would, once the
 * reason's examples are kept (the first ones in enumeration order). */
static bool skip(void *user, enum plan_reason why, uint64_t count)
{
    struct shard *b = user;
    uint64_t before = b->done;
    if (b->nexamples[why] < RANKING_EXAMPLES)
        return false;
    b->rejected[why] += count;
    b->done += count;
    /* progress in whole steps of 0x1000, as visit reports them */
    if (b->opt->progress && (b->done >> 12) != (before >> 12))
        b->opt->progress(b->opt->progress_user,
                         ((b->done >> 12) - (before >> 12)) << 12);
    return true;
}

static void *run_shard(void *arg)
{
    struct shard *b = arg;
    sweep_run(b->sf, b->ctx->m, b->ctx->hw, b->thread, b->nthreads, visit, skip,
              b);
    if (b->opt->progress && (b->done & 0xfff) != 0) /* the rest counted */
        b->opt->progress(b->opt->progress_user, b->done & 0xfff);
    return NULL;
}

/* Folds shard `from` into family `to` of the report. */
static void merge_family(struct ranking_family *to,
                         const struct ranking_family *from)
{
    size_t i;
    to->plans += from->plans;
    to->fitting += from->fitting;
    if (from->has_best) {
        if (!to->has_best || beats_best(&from->best, to))
            to->best = from->best;
        to->has_best = true;
    }
    if (from->has_lightest &&
        lighter(&from->lightest, &from->lightest_mem, to)) {
        to->lightest = from->lightest;
        to->lightest_mem = from->lightest_mem;
        to->has_lightest = true;
    }
    for (i = 0; i < RANKING_SENS_MAX; i++)
        if (from->sens_ib_step[i] > 0)
            keep_min(&to->sens_ib_step[i], &to->sens_ib_bound[i],
                     from->sens_ib_step[i], from->sens_ib_bound[i]);
    for (i = 0; i < RANKING_SENS_MAX; i++)
        if (from->sens_nv_step[i] > 0)
            keep_min(&to->sens_nv_step[i], &to->sens_nv_bound[i],
                     from->sens_nv_step[i], from->sens_nv_bound[i]);
}

/* Merges the shards into r: the same result for any number of shards. */
static enum status merge(struct ranking *r,
                         struct shard *sh,
                         size_t n,
                         struct heap *shared,
                         size_t top,
                         struct diag *d)
{
    int index_of_key[FAMILY_KEYS];
    size_t t, k, f, nkeys = 0, total = 0;
    int why;

    for (t = 0; t < n; t++) {
        r->valid += sh[t].valid;
        r->floor_only += sh[t].floor_only;
        r->fitting += sh[t].fitting;
        for (why = 0; why < PLAN_REASONS; why++)
            r->rejected[why] += sh[t].rejected[why];
        total += sh[t].own.n;
    }
    /* examples: the first ones in enumeration order */
    for (why = 0; why < PLAN_REASONS; why++) {
        uint64_t last = 0;
        bool any = false;
        while (r->nexamples[why] < RANKING_EXAMPLES) {
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
    /* families: every key a shard met, in order of their first plan in
     * the enumeration */
    for (k = 0; k < FAMILY_KEYS; k++) {
        index_of_key[k] = -1;
        for (t = 0; t < n && sh[t].family_first[k] == UINT64_MAX; t++)
            ;
        nkeys += t < n;
    }
    if (ranking_families(r, nkeys, d) != STATUS_OK)
        return d->status;
    for (f = 0; f < nkeys; f++) {
        uint64_t first = UINT64_MAX;
        size_t key = 0;
        for (k = 0; k < FAMILY_KEYS; k++)
            for (t = 0; t < n; t++)
                if (index_of_key[k] < 0 && sh[t].family_first[k] < first) {
                    first = sh[t].family_first[k];
                    key = k;
                }
        index_of_key[key] = (int)f;
        for (t = 0; t < n; t++)
            if (sh[t].family_first[key] != UINT64_MAX) {
                diag_snprintf(r->family[f].name, sizeof r->family[f].name, "%s",
                              sh[t].family[key].name);
                merge_family(&r->family[f], &sh[t].family[key]);
            }
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
    memcpy(r->family_of_key, index_of_key, sizeof index_of_key);
    r->dropped = r->valid - r->nrows;
    return STATUS_OK;
}

/* ---- The stage ---- */

enum status rank_run(struct ranking *r,
                     struct cost_ctx *ctx,
                     const struct sweep_file *sf,
                     const struct rank_options *opt,
                     struct diag *d)
{
    struct shard *sh;
    struct heap shared;
    const struct sweep_spec *spec = &sf->spec;
    struct hardware hw_ib[RANKING_SENS_MAX], hw_nv[RANKING_SENS_MAX];
    double ib_faster[RANKING_SENS_MAX], nv_faster[RANKING_SENS_MAX];
    pthread_mutex_t lock;
    pthread_t *tid;
    size_t i, t, nthreads, started;
    /* heap slots are 32-bit; more plans than that would not fit anyway */
    size_t top = opt->top && opt->top < UINT32_MAX ? opt->top
                 : opt->top                        ? UINT32_MAX
                 : opt->sheet_only                 ? rank_keep_sheet_top(sf)
                                                   : RANKING_EXCEL_ROWS;
    bool nomem = false, spill_failed = false;
    enum status st = STATUS_OK;

    r->enumerated = sweep_count(sf);
    if (r->enumerated > SWEEP_MAX_COMBINATIONS)
        return diag_set(d, STATUS_RANGE,
                        "%s: the plan space has %s%llu combinations; at most "
                        "%llu are swept (narrow the [space] lists)",
                        sf->meta.path,
                        r->enumerated == UINT64_MAX ? "more than " : "",
                        (unsigned long long)r->enumerated,
                        (unsigned long long)SWEEP_MAX_COMBINATIONS);
    if (rank_prepare(sf, ctx, d) != STATUS_OK ||
        rank_templates(r, d) != STATUS_OK)
        return d->status;

    nthreads = opt->threads ? opt->threads : 1;
    sh = calloc(nthreads, sizeof *sh);
    tid = calloc(nthreads, sizeof *tid);
    if (!sh || !tid) {
        free(sh);
        free(tid);
        return diag_set(d, STATUS_NOMEM, "out of memory");
    }
    if (opt->spill_dir) {
        r->spill = calloc(nthreads, sizeof *r->spill);
        if (!r->spill) {
            free(sh);
            free(tid);
            return diag_set(d, STATUS_NOMEM, "out of memory");
        }
        r->nspill = nthreads;
        for (t = 0; t < nthreads && st == STATUS_OK; t++)
            st = rank_spill_open(opt->spill_dir, &r->spill[t], d);
        if (st != STATUS_OK) {
            free(sh);
            free(tid);
            return st;
        }
    }
    /* the [report] settings: sweep_load checked the grids' lengths */
    r->nsens_ib = spec->r_sens_ib.n < RANKING_SENS_MAX ? spec->r_sens_ib.n
                                                       : RANKING_SENS_MAX;
    r->nsens_nv = spec->r_sens_nv.n < RANKING_SENS_MAX ? spec->r_sens_nv.n
                                                       : RANKING_SENS_MAX;
    for (i = 0; i < r->nsens_ib; i++) {
        r->sens_ib_gbps[i] = spec->r_sens_ib.v[i];
        hardware_at_link(ctx->hw, true, r->sens_ib_gbps[i], &hw_ib[i]);
        ib_faster[i] = hw_ib[i].ib_bps > ctx->hw->ib_bps
                           ? hw_ib[i].ib_bps / ctx->hw->ib_bps
                           : 1;
    }
    for (i = 0; i < r->nsens_nv; i++) {
        r->sens_nv_gbps[i] = spec->r_sens_nv.v[i];
        hardware_at_link(ctx->hw, false, r->sens_nv_gbps[i], &hw_nv[i]);
        nv_faster[i] = hw_nv[i].nvlink_bps > ctx->hw->nvlink_bps
                           ? hw_nv[i].nvlink_bps / ctx->hw->nvlink_bps
                           : 1;
    }
    r->headroom_pct = spec->r_headroom_pct;
    r->tie_pct = spec->r_tie_pct;
    r->plans_sheet = (size_t)spec->r_plans_sheet;
    memset(&shared, 0, sizeof shared);
    shared.top = top;
    pthread_mutex_init(&lock, NULL);
    for (t = 0; t < nthreads; t++) {
        sh[t].ctx = ctx;
        sh[t].sf = sf;
        sh[t].opt = opt;
        sh[t].sens_ib = hw_ib;
        sh[t].sens_nv = hw_nv;
        sh[t].sens_ib_gbps = r->sens_ib_gbps;
        sh[t].sens_nv_gbps = r->sens_nv_gbps;
        sh[t].sens_ib_faster = ib_faster;
        sh[t].sens_nv_faster = nv_faster;
        sh[t].nsens_ib = r->nsens_ib;
        sh[t].nsens_nv = r->nsens_nv;
        sh[t].headroom_pct = r->headroom_pct;
        sh[t].spill = r->spill ? r->spill[t] : NULL;
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
    for (t = 0; t < nthreads; t++) {
        nomem = nomem || sh[t].own.nomem;
        spill_failed = spill_failed || sh[t].spill_failed ||
                       (sh[t].spill && fflush(sh[t].spill) != 0);
    }
    if (!nomem && !spill_failed)
        st = merge(r, sh, nthreads, sh[0].shared, top, d);
    if (!nomem && !spill_failed && st == STATUS_OK && opt->sheet_only &&
        !opt->top)
        st = rank_keep_family_bests(r, d);
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
    if (spill_failed)
        return diag_set(d, STATUS_IO, "%s/plans.csv: cannot write: %s",
                        opt->spill_dir, strerror(errno ? errno : EIO));
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
    return STATUS_OK;
}
