/*
 * rank: the sweep's visitor (counts, families, the kept plans, the
 * families' sensitivity) and its threads (see rank.h). The kept plans'
 * heap is rank_heap.c's, a family's fold rank_family.c's, the shards'
 * merge rank_merge.c's (rank_shard.h, their shared part); the ranking
 * rule, the spill files and the cursor over every plan are rank_spill.c's.
 */
#include "rank_shard.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "model_partition.h"
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

/* ---- The sweep visitor ---- */

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
    if (rank_family_beats(floor, f)) /* the caller: f has a best, no spill */
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
 * (rank_family.c's fold would change none of them), where a bound of any rank's
 * step at any link rate (any) does not already: where the link is no faster,
 * the step there is at least the floor (it does not fall as a link
 * slows: rank_family.c, sensitivity_grid); where it is r times faster, at least
 * the floor / r (each time term is at least its value on a cluster with every
 * rate r times faster and every latency r times shorter, where every term, so
 * the step, takes 1 / r of its time: the step grows with each term, terms.c).
 * False when a point has no fitting plan yet (the plan would set it).
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
            rank_family_lighter(p, &m[i], f))
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
        if (!rank_prune_bounds(b->ctx, p, &b->cache, RANK_PRUNE_COMPUTE, least,
                               &step, &any_rank) ||
            (fits && !grids_need(b, f, any_rank, &need)))
            return false;
        if (!(step > need)) {
            if (!rank_prune_bounds(b->ctx, p, &b->cache, RANK_PRUNE_FULL, need,
                                   &step, &any_rank) ||
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
            plan_check(p, b->ctx->m, b->ctx->hw, PLAN_CHECK_DISTINCT, &d);
            plan_format(p, text, sizeof text);
            diag_snprintf(b->examples[why][k], sizeof b->examples[why][k],
                          "%.*s: %.*s", diag_utf8_prec(text, 160), text,
                          diag_utf8_prec(d.msg, 150), d.msg);
            b->example_at[why][k] = index;
        }
        return;
    }
    key = rank_family_key(p);
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
    if (rank_family_lighter(p, &res.mem, f)) {
        f->lightest = *p;
        f->lightest_mem = res.mem;
        f->has_lightest = true;
    }
    /* speed-of-light terms only: the floor's work has them (an untimed
     * plan changes no point of the grids) */
    if (res.fits && timed)
        rank_family_sensitivity(b, f, &res);
    if (floor_only) {
        b->floor_only++;
        return;
    }
    if (!f->has_best || rank_family_beats(&res, f)) {
        f->best = res;
        f->has_best = true;
    }
    ranking_row_of(&res, key, &row); /* res.plan is *p (cost_evaluate) */
    spill(b, &row, index);
    rank_keep_row(b, &row);
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

/* ---- The stage ---- */

/* The cluster at each sensitivity bandwidth (only that rate differs)
 * and that rate over the cluster's where faster, else 1 (grid_need). */
struct sens_grids {
    struct hardware ib[RANKING_SENS_MAX], nv[RANKING_SENS_MAX];
    double ib_faster[RANKING_SENS_MAX], nv_faster[RANKING_SENS_MAX];
};

/* The sweep's size checked, the context prepared for its plans, the
 * templates the rows carry. */
static enum status rank_start(struct ranking *r,
                              struct cost_ctx *ctx,
                              const struct sweep_file *sf,
                              struct diag *d)
{
    r->enumerated = sweep_count(sf);
    if (r->enumerated > SWEEP_MAX_COMBINATIONS)
        return diag_set(d, STATUS_RANGE,
                        "%s: the plan space has %s%llu combinations; at most "
                        "%llu are swept (narrow the [space] lists)",
                        sf->meta.path,
                        r->enumerated == UINT64_MAX ? "more than " : "",
                        (unsigned long long)r->enumerated,
                        (unsigned long long)SWEEP_MAX_COMBINATIONS);
    if (rank_prepare(sf, ctx, d) != STATUS_OK)
        return d->status;
    return rank_templates(r, d);
}

/* A spill file per thread in opt->spill_dir, when given. */
static enum status open_spills(struct ranking *r,
                               const struct rank_options *opt,
                               size_t nthreads,
                               struct diag *d)
{
    size_t t;
    if (!opt->spill_dir)
        return STATUS_OK;
    r->spill = calloc(nthreads, sizeof *r->spill);
    if (!r->spill)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    r->nspill = nthreads;
    for (t = 0; t < nthreads; t++)
        if (rank_spill_open(opt->spill_dir, &r->spill[t], d) != STATUS_OK)
            return d->status;
    return STATUS_OK;
}

/* The sweep's [report] settings into r (sweep_load checked the grids'
 * lengths), and the cluster at each point of the grids into g. */
static void report_settings(struct ranking *r,
                            const struct hardware *hw,
                            const struct sweep_spec *spec,
                            struct sens_grids *g)
{
    size_t i;
    r->nsens_ib = spec->r_sens_ib.n < RANKING_SENS_MAX ? spec->r_sens_ib.n
                                                       : RANKING_SENS_MAX;
    r->nsens_nv = spec->r_sens_nv.n < RANKING_SENS_MAX ? spec->r_sens_nv.n
                                                       : RANKING_SENS_MAX;
    for (i = 0; i < r->nsens_ib; i++) {
        r->sens_ib_gbps[i] = spec->r_sens_ib.v[i];
        hardware_at_link(hw, HARDWARE_LINK_IB, r->sens_ib_gbps[i], &g->ib[i]);
        g->ib_faster[i] =
            g->ib[i].ib_bps > hw->ib_bps ? g->ib[i].ib_bps / hw->ib_bps : 1;
    }
    for (i = 0; i < r->nsens_nv; i++) {
        r->sens_nv_gbps[i] = spec->r_sens_nv.v[i];
        hardware_at_link(hw, HARDWARE_LINK_NVLINK, r->sens_nv_gbps[i],
                         &g->nv[i]);
        g->nv_faster[i] = g->nv[i].nvlink_bps > hw->nvlink_bps
                              ? g->nv[i].nvlink_bps / hw->nvlink_bps
                              : 1;
    }
    r->headroom_pct = spec->r_headroom_pct;
    r->tie_pct = spec->r_tie_pct;
    r->plans_sheet = (size_t)spec->r_plans_sheet;
}

/* Shard t of n: what it reads (r's settings, the grids g), its spill file
 * and its heap of `top`, or the shared one under lock. */
static void shard_init(struct shard *b,
                       const struct ranking *r,
                       const struct sens_grids *g,
                       size_t t,
                       size_t n)
{
    size_t i;
    b->sens_ib = g->ib;
    b->sens_nv = g->nv;
    b->sens_ib_gbps = r->sens_ib_gbps;
    b->sens_nv_gbps = r->sens_nv_gbps;
    b->sens_ib_faster = g->ib_faster;
    b->sens_nv_faster = g->nv_faster;
    b->nsens_ib = r->nsens_ib;
    b->nsens_nv = r->nsens_nv;
    b->headroom_pct = r->headroom_pct;
    b->spill = r->spill ? r->spill[t] : NULL;
    b->enumerated = r->enumerated;
    b->thread = t;
    b->nthreads = n;
    for (i = 0; i < FAMILY_KEYS; i++)
        b->family_first[i] = UINT64_MAX;
}

/* Runs shards sh[0..n): 1 to n-1 on threads of their own (tid), 0 on
 * this one, any whose thread did not start after them. */
static void run_shards(struct shard *sh, pthread_t *tid, size_t n)
{
    size_t t, started;
    for (t = 1; t < n; t++)
        if (pthread_create(&tid[t], NULL, run_shard, &sh[t]) != 0)
            break;
    started = t;
    run_shard(&sh[0]);
    for (t = 1; t < started; t++)
        pthread_join(tid[t], NULL);
    for (t = started; t < n; t++) /* threads that did not start */
        run_shard(&sh[t]);
}

/* The error of a sweep with no valid plan: its most frequent reason. */
static enum status no_valid_plan(const struct ranking *r,
                                 const struct sweep_file *sf,
                                 struct diag *d)
{
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

/* The heap's size: --top (heap slots are 32-bit; more plans than that
 * would not fit anyway), else the Plans sheet's or Excel's rows. */
static size_t top_of(const struct sweep_file *sf,
                     const struct rank_options *opt)
{
    return opt->top && opt->top < UINT32_MAX ? opt->top
           : opt->top                        ? UINT32_MAX
           : opt->sheet_only                 ? rank_keep_sheet_top(sf)
                                             : RANKING_EXCEL_ROWS;
}

/* After the shards ran: whether one ran out of memory or its spill file
 * failed (*nomem, *spill_failed). */
static void shards_failed(const struct shard *sh,
                          size_t n,
                          const struct heap *shared,
                          bool *nomem,
                          bool *spill_failed)
{
    size_t t;
    *nomem = shared->nomem;
    *spill_failed = false;
    for (t = 0; t < n; t++) {
        *nomem = *nomem || sh[t].own.nomem;
        *spill_failed = *spill_failed || sh[t].spill_failed ||
                        (sh[t].spill && fflush(sh[t].spill) != 0);
    }
}

enum status rank_run(struct ranking *r,
                     struct cost_ctx *ctx,
                     const struct sweep_file *sf,
                     const struct rank_options *opt,
                     struct diag *d)
{
    struct shard *sh;
    struct heap shared;
    struct sens_grids *g;
    pthread_mutex_t lock;
    pthread_t *tid;
    size_t t, nthreads = opt->threads ? opt->threads : 1;
    size_t top = top_of(sf, opt);
    bool nomem = false, spill_failed = false;
    enum status st = STATUS_OK;

    if (rank_start(r, ctx, sf, d) != STATUS_OK)
        return d->status;
    sh = calloc(nthreads, sizeof *sh);
    tid = calloc(nthreads, sizeof *tid);
    g = calloc(1, sizeof *g);
    if (!sh || !tid || !g)
        st = diag_set(d, STATUS_NOMEM, "out of memory");
    if (st != STATUS_OK || open_spills(r, opt, nthreads, d) != STATUS_OK) {
        free(sh);
        free(tid);
        free(g);
        return d->status;
    }
    report_settings(r, ctx->hw, &sf->spec, g);
    memset(&shared, 0, sizeof shared);
    shared.top = top;
    pthread_mutex_init(&lock, NULL);
    for (t = 0; t < nthreads; t++) {
        sh[t].ctx = ctx;
        sh[t].sf = sf;
        sh[t].opt = opt;
        sh[t].own.top = top;
        if (top >= SHARED_HEAP_MIN && nthreads > 1) {
            sh[t].shared = &shared;
            sh[t].lock = &lock;
        }
        shard_init(&sh[t], r, g, t, nthreads);
    }
    run_shards(sh, tid, nthreads);
    shards_failed(sh, nthreads, &shared, &nomem, &spill_failed);
    if (!nomem && !spill_failed)
        st = rank_merge(r, sh, nthreads, sh[0].shared, top, d);
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
    free(g);
    if (nomem)
        return diag_set(d, STATUS_NOMEM, "out of memory keeping %zu plans",
                        top);
    if (spill_failed)
        return diag_set(d, STATUS_IO, "%s/plans.csv: cannot write: %s",
                        opt->spill_dir, strerror(errno ? errno : EIO));
    if (st != STATUS_OK)
        return st;
    return r->valid == 0 ? no_valid_plan(r, sf, d) : STATUS_OK;
}
