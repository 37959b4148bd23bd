/*
 * rank_family: a family's fold (rank_shard.h): its key, whether a plan
 * beats its best or is lighter than its lightest, its best step over the
 * sensitivity grids, and two shards' families folded into one.
 */
#include "rank_shard.h"

#include "terms.h"

int rank_family_key(const struct plan *p)
{
    int dp = p->dp > 1 ? (int)p->zero : 4;
    return dp * 16 + (p->tp > 1) * 8 + (p->cp > 1) * 4 + (p->pp > 1) * 2 +
           (p->ep > 1);
}

/* A family's best plan against a candidate's result. */
bool rank_family_beats(const struct cost_result *c,
                       const struct ranking_family *f)
{
    return rank_before(c->fits, cost_rank_step(c), &c->plan, f->best.fits,
                       cost_rank_step(&f->best), &f->best.plan);
}

/* True when plan p with memory m is lighter than the family's lightest:
 * less memory, then the plan's order (thread order must not matter). */
bool rank_family_lighter(const struct plan *p,
                         const struct memory *m,
                         const struct ranking_family *f)
{
    if (!f->has_lightest || m->total != f->lightest_mem.total)
        return !f->has_lightest || m->total < f->lightest_mem.total;
    return rank_before(true, 0, p, true, 0, &f->lightest);
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
void rank_family_sensitivity(const struct shard *b,
                             struct ranking_family *f,
                             const struct cost_result *res)
{
    sensitivity_grid(&res->work, b->sens_ib, b->sens_ib_gbps, b->nsens_ib,
                     f->sens_ib_step, f->sens_ib_bound);
    sensitivity_grid(&res->work, b->sens_nv, b->sens_nv_gbps, b->nsens_nv,
                     f->sens_nv_step, f->sens_nv_bound);
}

/* Folds shard `from` into family `to` of the report. */
void rank_family_merge(struct ranking_family *to,
                       const struct ranking_family *from)
{
    size_t i;
    to->plans += from->plans;
    to->fitting += from->fitting;
    if (from->has_best) {
        if (!to->has_best || rank_family_beats(&from->best, to))
            to->best = from->best;
        to->has_best = true;
    }
    if (from->has_lightest &&
        rank_family_lighter(&from->lightest, &from->lightest_mem, to)) {
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
