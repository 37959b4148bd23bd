/*
 * rank_finish: what rank hands over besides the ranked rows (see
 * rank.h): each family's best plan under both communication models with
 * its collectives, the families in order, where each best plan turns
 * compute-bound as a link gets faster, the baseline's curves when none
 * of its plans fits, and the fastest fitting plan under the other model.
 * Every time the later stages show is evaluated here, once.
 */
#include "rank.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "terms.h"

/* The fit of c with the report's headroom (cost_evaluate does not know
 * it). */
static void refit(const struct report *r, struct cost_result *c)
{
    c->fits = terms_fits(c->mem.total, c->mem.capacity, r->headroom_pct);
}

enum status rank_finish_families(struct report *r,
                                 struct cost_ctx *ctx,
                                 struct cost_ctx *other,
                                 struct diag *d)
{
    size_t i, j;
    for (i = 0; i < r->nfamilies; i++) {
        struct report_family *f = &r->family[i];
        struct plan p = f->best.plan;
        if (cost_ctx_prepare_plan(ctx, &p, d) != STATUS_OK ||
            cost_ctx_prepare_plan(other, &p, d) != STATUS_OK)
            return d->status;
        cost_evaluate(ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &f->best);
        f->ncoll = cost_collectives(ctx, &f->best, f->coll, COMM_LIST_MAX);
        cost_evaluate(other, &p, COST_FLOOR | COST_EXPECTED, NULL,
                      &f->best_other);
        f->ncoll_other = cost_collectives(other, &f->best_other, f->coll_other,
                                          COMM_LIST_MAX);
        comm_collective_times(f->coll, f->ncoll, ctx->hw);
        comm_collective_times(f->coll_other, f->ncoll_other, other->hw);
        refit(r, &f->best);
        refit(r, &f->best_other);
        diag_snprintf(f->best.family, sizeof f->best.family, "%s", f->name);
        snprintf(f->best_other.family, sizeof f->best_other.family, "%s",
                 f->name);
        r->families_by_step[i] = (long)i;
    }
    /* insertion sort of family indexes by their best plan's rank */
    for (i = 1; i < r->nfamilies; i++) {
        long k = r->families_by_step[i];
        for (j = i; j > 0; j--) {
            const struct report_family *g =
                &r->family[r->families_by_step[j - 1]];
            const struct cost_result *c = &r->family[k].best;
            if (!rank_before(c->fits, cost_rank_step(c), &c->plan, g->best.fits,
                             cost_rank_step(&g->best), &g->best.plan))
                break;
            r->families_by_step[j] = r->families_by_step[j - 1];
        }
        r->families_by_step[j] = k;
    }
    return STATUS_OK;
}

/* ---- Crossovers and the baseline's curves ---- */

/* The step of work w on hardware h (terms_step: what ranking needs). */
static void retime(const struct cost_work *w,
                   const struct hardware *h,
                   struct cost_times *t)
{
    struct terms_env e = {w, h, NULL, MODEL_BF16, t};
    memset(t, 0, sizeof *t);
    terms_step(&e, t);
}

/*
 * Where plan c (this report's model) turns compute-bound as the IB (ib)
 * or NVLink bandwidth grows, everything else as it is, by the bound's own
 * rule (terms_core): the bandwidth at which the link's time with the
 * micro-batches (bytes / bandwidth + its collectives' latency; the step-end DP
 * traffic is its own, exposed term) meets the compute side of the
 * overlapped core, compute plus the SMs that overlapped communication
 * takes (all of its run while the link is at least as long), and what
 * binds there (re-timed a hair above it, so a tie in the rounding does
 * not decide). "Already" when the link is within the compute side now.
 */
static void crossover(const struct report *r,
                      const struct cost_result *c,
                      bool ib,
                      struct report_crossover *x)
{
    const struct cost_work *w = &c->work;
    const struct cost_times *t = &c->t;
    const struct hardware_spec *s = &r->hw->spec;
    double link = ib ? t->ib_steady : t->nvlink_steady;
    double bytes = ib ? w->ib_steady_bytes : w->nvlink_steady_bytes;
    double lat =
        comm_lat_s(r->hw, ib ? w->ib_steady_lat : w->nvlink_steady_lat);
    const double *grid = ib ? r->sens_ib_gbps : r->sens_nv_gbps;
    size_t n = ib ? r->nsens_ib : r->nsens_nv;
    double side = t->compute * (1 + (double)s->comm_sms / (double)s->sms);
    double room = side - lat;
    struct hardware h;
    struct cost_times at;
    memset(x, 0, sizeof *x);
    x->then_bound = t->bound;
    if (link <= t->compute + t->comm_sm) {
        x->state = REPORT_CROSS_ALREADY;
        return;
    }
    if (room <= 0) {
        x->state = REPORT_CROSS_LATENCY;
        return;
    }
    x->state = REPORT_CROSS_AT;
    x->gbps = bytes / room / 1e9;
    hardware_at_link(r->hw, ib, x->gbps * (1 + 1e-9), &h);
    retime(w, &h, &at);
    x->then_bound = at.bound;
    x->in_range = n > 0 && x->gbps >= grid[0] && x->gbps <= grid[n - 1];
}

/* The baseline's curves when none of its plans fits: its fastest plan,
 * re-timed at each bandwidth of the grids. */
static void baseline_curves(struct report *r)
{
    struct report_family *f;
    char name[sizeof r->baseline.name];
    long k;
    size_t i;
    /* the baseline as figures names it (report_baseline.name) */
    diag_snprintf(name, sizeof name, "%s",
                  r->sweep ? r->sweep->spec.r_baseline : "");
    k = report_family_index(r, name);
    if (k < 0)
        return;
    f = &r->family[k];
    if (f->fitting > 0 || !f->has_best)
        return;
    f->sens_unfit = true;
    for (i = 0; i < r->nsens_ib; i++) {
        struct hardware h;
        struct cost_times t;
        hardware_at_link(r->hw, true, r->sens_ib_gbps[i], &h);
        retime(&f->best.work, &h, &t);
        f->sens_ib_step[i] = t.step;
        f->sens_ib_bound[i] = t.bound;
    }
    for (i = 0; i < r->nsens_nv; i++) {
        struct hardware h;
        struct cost_times t;
        hardware_at_link(r->hw, false, r->sens_nv_gbps[i], &h);
        retime(&f->best.work, &h, &t);
        f->sens_nv_step[i] = t.step;
        f->sens_nv_bound[i] = t.bound;
    }
}

void rank_finish_crossovers(struct report *r)
{
    size_t i;
    for (i = 0; i < r->nfamilies; i++) {
        struct report_family *f = &r->family[i];
        crossover(r, &f->best, true, &f->cross_ib);
        crossover(r, &f->best, false, &f->cross_nv);
    }
    baseline_curves(r);
}

/* ---- The other communication model ---- */

enum status
rank_finish_other_best(struct report *r, struct cost_ctx *other, struct diag *d)
{
    struct cost_result *best = &r->other_best;
    size_t i;
    r->has_other_best = false;
    if (r->sweep && rank_prepare(r->sweep, other, d) != STATUS_OK)
        return d->status;
    for (i = 0; i < r->nrows && r->rows[i].fits; i++) {
        struct cost_result c;
        const struct plan *p = &r->rows[i].plan;
        if (cost_ctx_prepare_plan(other, p, d) != STATUS_OK)
            return d->status;
        cost_evaluate(other, p, COST_FLOOR | COST_EXPECTED, NULL, &c);
        if (c.work.x.known)
            r->rows[i].other_expected = c.t.expected;
        if (!r->has_other_best ||
            rank_before(true, cost_rank_step(&c), &c.plan, true,
                        cost_rank_step(best), &best->plan)) {
            *best = c;
            r->has_other_best = true;
        }
    }
    return STATUS_OK;
}

/* ---- The waterfalls' replays ---- */

/* n, or past the last fitting row whose range's high end is within
 * tie_pct of the smallest (the plans figures_sheet_rows may recommend,
 * once rank_finish_scenarios filled the ranges). */
static size_t robust_ties(const struct report *r, size_t n)
{
    double least = 0;
    size_t i;
    for (i = 0; i < r->nrows; i++)
        if (r->rows[i].fits && scenario_known(&r->rows[i].sc) &&
            (least == 0 || r->rows[i].sc.high < least))
            least = r->rows[i].sc.high;
    for (i = 0; least > 0 && i < r->nrows; i++)
        if (r->rows[i].fits && scenario_known(&r->rows[i].sc) &&
            r->rows[i].sc.high <= least * (1 + r->tie_pct / 100) && i >= n)
            n = i + 1;
    return n;
}

enum status rank_finish_replays(struct report *r, struct diag *d)
{
    size_t n = 0, i;
    free(r->replays);
    r->replays = NULL;
    r->nreplays = 0;
    if (r->nrows == 0)
        return STATUS_OK;
    /* the recommended plan is a tie of the fastest fitting plan (rows
     * are ranked fitting first, then by step), or row 0 when none fits */
    if (r->rows[0].fits) {
        double limit = r->rows[0].step * (1 + r->tie_pct / 100);
        while (n < r->nrows && r->rows[n].fits && r->rows[n].step <= limit)
            n++;
        n = robust_ties(r, n);
    } else {
        n = 1;
    }
    r->replays = calloc(n, sizeof *r->replays);
    if (!r->replays)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    for (i = 0; i < n; i++) {
        const struct report_row *row = &r->rows[i];
        struct cost_result c;
        report_row_result(row, &c);
        replay_fill(&c, r->m, r->hw, &r->replays[i]);
    }
    r->nreplays = n;
    return STATUS_OK;
}

/* ---- Validation runs ---- */

enum status rank_finish_validations(struct report *r,
                                    const struct validation_run *runs,
                                    const struct validation_inputs *in,
                                    size_t n,
                                    struct cost_ctx *ctx,
                                    struct cost_ctx *other,
                                    struct diag *d)
{
    size_t i, k;
    for (i = 0; i < n && r->nvalidations < REPORT_VALIDATIONS_MAX; i++) {
        struct validate_result *v = &r->validation[r->nvalidations];
        struct diag skip;
        diag_init(&skip);
        if (validate_predict(&runs[i], &in[i], ctx, other, v, &skip, d) !=
            STATUS_OK)
            return d->status;
        if (skip.status != STATUS_OK) {
            if (r->nvalidation_notes < REPORT_VALIDATIONS_MAX)
                diag_snprintf(r->validation_notes[r->nvalidation_notes++],
                              sizeof r->validation_notes[0], "%s", skip.msg);
            continue;
        }
        r->nvalidations++;
        if (!v->current)
            continue;
        /* its rank among the kept plans (0: not kept, or kept as its
         * family's best beyond the ranked ones, rank_keep.c) */
        for (k = 0; k < r->nrows; k++)
            if (memcmp(&r->rows[k].plan, &v->plan, sizeof v->plan) == 0) {
                v->rank = (long)report_row_rank(r, k);
                break;
            }
    }
    rank_finish_scenarios(r);
    /* the plans the ranges may recommend need their waterfalls too */
    return rank_finish_replays(r, d);
}

/* ---- Scenarios ---- */

/* The band of `group` from the placed runs with an expected step. */
static bool
band_of(const struct report *r, const char *group, struct validation_band *band)
{
    struct validation_point pts[REPORT_VALIDATIONS_MAX];
    size_t i, n = 0;
    for (i = 0; i < r->nvalidations; i++) {
        const struct validate_result *v = &r->validation[i];
        if (!v->predicted.work.x.known || !(v->predicted.t.expected > 0))
            continue;
        snprintf(pts[n].group, sizeof pts[n].group, "%s", v->group);
        pts[n++].ratio = v->measured_step_eq / v->predicted.t.expected;
    }
    return validation_band_fit(pts, n, group, band);
}

void rank_finish_scenarios(struct report *r)
{
    size_t i;
    r->has_band =
        r->hw->cal && band_of(r, validation_group(r->hw->cal), &r->band);
    for (i = 0; i < r->nrows; i++) {
        struct report_row *row = &r->rows[i];
        scenario_eval(&row->work, &row->t, r->hw, r->m, row->plan.precision,
                      r->has_band ? &r->band : NULL, &row->sc);
        scenario_add(&row->sc, SCENARIO_OTHER_COMM, row->other_expected);
    }
    /* each run with its own group's band, on its own inputs */
    for (i = 0; i < r->nvalidations; i++) {
        struct validate_result *v = &r->validation[i];
        struct validation_band b;
        double x = v->sc.step[SCENARIO_EXPECTED];
        if (!scenario_known(&v->sc) || !band_of(r, v->group, &b))
            continue;
        scenario_add(&v->sc, SCENARIO_RUNS_FAST, x * b.lo);
        scenario_add(&v->sc, SCENARIO_RUNS_SLOW, x * b.hi);
    }
}

enum status rank_finish(struct report *r,
                        struct cost_ctx *ctx,
                        struct cost_ctx *other,
                        struct diag *d)
{
    if (rank_finish_families(r, ctx, other, d) != STATUS_OK)
        return d->status;
    rank_finish_crossovers(r);
    if (rank_finish_other_best(r, other, d) != STATUS_OK)
        return d->status;
    return rank_finish_replays(r, d);
}
