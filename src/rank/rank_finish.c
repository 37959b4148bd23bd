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
static void refit(const struct ranking *r, struct cost_result *c)
{
    c->fits = terms_fits(c->mem.total, c->mem.capacity, r->headroom_pct);
}

enum status rank_finish_families(struct ranking *r,
                                 struct cost_ctx *ctx,
                                 struct cost_ctx *other,
                                 struct diag *d)
{
    size_t i, j;
    for (i = 0; i < r->nfamilies; i++) {
        struct ranking_family *f = &r->family[i];
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
            const struct ranking_family *g =
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

/* ---- Each pipeline rank's layers (a patterned model) ---- */

/* The layers of rank `rank` of plan p on partition part, in pattern
 * letters, its chunks joined by " | " (allocated; NULL: no memory). */
static char *rank_layers(const struct model *m,
                         const struct plan *p,
                         const struct model_partition *part,
                         long rank)
{
    long idx[PLAN_RANK_CHUNKS_MAX];
    double mb[PLAN_RANK_CHUNKS_MAX];
    size_t n = plan_rank_chunks(p, rank, idx, mb), i, at = 0;
    size_t size = n * (MODEL_PATTERN_MAX + 8) + 2;
    char *text = malloc(size), chunk[MODEL_PATTERN_MAX];
    if (!text)
        return NULL;
    text[0] = '\0';
    for (i = 0; i < n; i++) {
        const struct model_chunk *c = &part->chunk[idx[i]];
        int w;
        if (!model_units_pattern(m, c->first, c->count, chunk, sizeof chunk))
            snprintf(chunk, sizeof chunk, "?");
        w = snprintf(text + at, size - at, "%s%s%s", i ? " | " : "",
                     chunk[0] ? chunk : "-", c->mtp_units ? " +MTP" : "");
        if (w > 0 && (size_t)w < size - at)
            at += (size_t)w;
    }
    return text;
}

enum status rank_finish_stages(struct ranking *r,
                               const struct cost_ctx *ctx,
                               struct diag *d)
{
    size_t i, n = 0;
    if (ctx->m->spec.pattern[0] == '\0')
        return STATUS_OK;
    for (i = 0; i < r->nfamilies; i++)
        n += (size_t)r->family[i].best.plan.pp;
    r->stages = calloc(n ? n : 1, sizeof *r->stages);
    if (!r->stages)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    for (i = 0; i < r->nfamilies; i++) {
        const struct cost_result *c = &r->family[i].best;
        const struct model_partition *part = cost_result_partition(ctx, c);
        long k;
        for (k = 0; part && k < c->plan.pp; k++) {
            struct ranking_stage *st = &r->stages[r->nstages];
            struct memory mem;
            st->layers = rank_layers(ctx->m, &c->plan, part, k);
            if (!st->layers)
                return diag_set(d, STATUS_NOMEM, "out of memory");
            r->nstages++;
            st->family = i;
            st->rank = k;
            cost_rank_memory(ctx, c, k, &mem);
            st->mem_total = mem.total;
            st->mem_act = mem.activations;
        }
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
 * Where plan c (this report's model) turns compute-bound as link
 * `which`'s bandwidth grows, everything else as it is, by the bound's own
 * rule (terms_core): the bandwidth at which the link's time with the
 * micro-batches (bytes / bandwidth + its collectives' latency; the step-end DP
 * traffic is its own, exposed term) meets the compute side of the
 * overlapped core, compute plus the SMs that overlapped communication
 * takes (all of its run while the link is at least as long), and what
 * binds there (re-timed a hair above it, so a tie in the rounding does
 * not decide). "Already" when the link is within the compute side now.
 */
static void crossover(const struct ranking *r,
                      const struct hardware *hw,
                      const struct cost_result *c,
                      enum hardware_link which,
                      struct ranking_crossover *x)
{
    const bool ib = which == HARDWARE_LINK_IB;
    const struct cost_work *w = &c->work;
    const struct cost_times *t = &c->t;
    const struct hardware_spec *s = &hw->spec;
    double link = ib ? t->ib_steady : t->nvlink_steady;
    double bytes = ib ? w->ib_steady_bytes : w->nvlink_steady_bytes;
    double lat = comm_lat_s(hw, ib ? w->ib_steady_lat : w->nvlink_steady_lat);
    const double *grid = ib ? r->sens_ib_gbps : r->sens_nv_gbps;
    size_t n = ib ? r->nsens_ib : r->nsens_nv;
    double side = t->compute * (1 + (double)s->comm_sms / (double)s->sms);
    double room = side - lat;
    struct hardware h;
    struct cost_times at;
    memset(x, 0, sizeof *x);
    x->then_bound = t->bound;
    if (link <= t->compute + t->comm_sm) {
        x->state = RANKING_CROSS_ALREADY;
        return;
    }
    if (room <= 0) {
        x->state = RANKING_CROSS_LATENCY;
        return;
    }
    x->state = RANKING_CROSS_AT;
    x->gbps = bytes / room / 1e9;
    hardware_at_link(hw, which, x->gbps * (1 + 1e-9), &h);
    retime(w, &h, &at);
    x->then_bound = at.bound;
    x->in_range = n > 0 && x->gbps >= grid[0] && x->gbps <= grid[n - 1];
}

/* The baseline's curves when none of its plans fits: its fastest plan,
 * re-timed at each bandwidth of the grids. */
static void baseline_curves(struct ranking *r,
                            const struct hardware *hw,
                            const struct sweep_file *sf)
{
    struct ranking_family *f;
    char name[sizeof r->family[0].name];
    long k;
    size_t i;
    /* the baseline as figures names it (views_baseline.name) */
    diag_snprintf(name, sizeof name, "%s", sf ? sf->spec.r_baseline : "");
    k = ranking_family_index(r, name);
    if (k < 0)
        return;
    f = &r->family[k];
    if (f->fitting > 0 || !f->has_best)
        return;
    f->sens_unfit = true;
    for (i = 0; i < r->nsens_ib; i++) {
        struct hardware h;
        struct cost_times t;
        hardware_at_link(hw, HARDWARE_LINK_IB, r->sens_ib_gbps[i], &h);
        retime(&f->best.work, &h, &t);
        f->sens_ib_step[i] = t.step;
        f->sens_ib_bound[i] = t.bound;
    }
    for (i = 0; i < r->nsens_nv; i++) {
        struct hardware h;
        struct cost_times t;
        hardware_at_link(hw, HARDWARE_LINK_NVLINK, r->sens_nv_gbps[i], &h);
        retime(&f->best.work, &h, &t);
        f->sens_nv_step[i] = t.step;
        f->sens_nv_bound[i] = t.bound;
    }
}

void rank_finish_crossovers(struct ranking *r,
                            const struct hardware *hw,
                            const struct sweep_file *sf)
{
    size_t i;
    for (i = 0; i < r->nfamilies; i++) {
        struct ranking_family *f = &r->family[i];
        crossover(r, hw, &f->best, HARDWARE_LINK_IB, &f->cross_ib);
        crossover(r, hw, &f->best, HARDWARE_LINK_NVLINK, &f->cross_nv);
    }
    baseline_curves(r, hw, sf);
}

/* ---- The other communication model ---- */

enum status rank_finish_other_best(struct ranking *r,
                                   const struct sweep_file *sf,
                                   struct cost_ctx *other,
                                   struct diag *d)
{
    struct cost_result *best = &r->other_best;
    size_t i;
    r->has_other_best = false;
    if (sf && rank_prepare(sf, other, d) != STATUS_OK)
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
static size_t robust_ties(const struct ranking *r, size_t n)
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

enum status rank_finish_replays(struct ranking *r,
                                const struct model *m,
                                const struct hardware *hw,
                                struct diag *d)
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
        const struct ranking_row *row = &r->rows[i];
        struct cost_result c;
        ranking_row_result(row, &c);
        replay_fill(&c, m, hw, &r->replays[i]);
    }
    r->nreplays = n;
    return STATUS_OK;
}

/* ---- The templates ---- */

enum status rank_templates(struct ranking *r, struct diag *d)
{
    static const char *const links[] = {"ib_s", "nv_s"};
    size_t nt, nm, i, n = 0;
    const struct terms_term *t = terms_all(&nt);
    const struct terms_mem_term *m = terms_memory(&nm);
    free(r->templates);
    r->ntemplates = 0;
    r->templates = calloc(nt + nm + 2, sizeof *r->templates);
    if (!r->templates)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    /* in terms_template's order: a time term's key, then a memory term's */
    for (i = 0; i < nt; i++)
        r->templates[n++] = (struct ranking_template){t[i].key, t[i].formula};
    for (i = 0; i < nm; i++)
        r->templates[n++] = (struct ranking_template){m[i].key, m[i].formula};
    for (i = 0; i < 2; i++)
        r->templates[n++] =
            (struct ranking_template){links[i], terms_template(links[i])};
    r->ntemplates = n;
    return STATUS_OK;
}

/* ---- Validation runs ---- */

enum status rank_finish_validations(struct ranking *r,
                                    const struct validation_run *runs,
                                    const struct validation_inputs *in,
                                    size_t n,
                                    struct cost_ctx *ctx,
                                    struct cost_ctx *other,
                                    struct diag *d)
{
    size_t i, k;
    /* room for every run: each is predicted or noted */
    struct validate_result *all =
        realloc(r->validation, (r->nvalidations + n + 1) * sizeof *all);
    char **notes = all ? realloc(r->validation_notes,
                                 (r->nvalidation_notes + n + 1) * sizeof *notes)
                       : NULL;
    if (all)
        r->validation = all;
    if (notes)
        r->validation_notes = notes;
    if (!all || !notes)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    for (i = 0; i < n; i++) {
        struct validate_result *v = &r->validation[r->nvalidations];
        struct diag skip;
        diag_init(&skip);
        if (validate_predict(&runs[i], &in[i], ctx, other, v, &skip, d) !=
            STATUS_OK)
            return d->status;
        if (skip.status != STATUS_OK) {
            char *note = strdup(skip.msg);
            if (!note)
                return diag_set(d, STATUS_NOMEM, "out of memory");
            r->validation_notes[r->nvalidation_notes++] = note;
            continue;
        }
        r->nvalidations++;
        if (!v->current)
            continue;
        /* its rank among the kept plans (0: not kept, or kept as its
         * family's best beyond the ranked ones, rank_keep.c) */
        for (k = 0; k < r->nrows; k++)
            if (memcmp(&r->rows[k].plan, &v->plan, sizeof v->plan) == 0) {
                v->rank = (long)ranking_row_rank(r, k);
                break;
            }
    }
    if (rank_finish_scenarios(r, ctx, NULL, d) != STATUS_OK)
        return d->status;
    /* the plans the ranges may recommend need their waterfalls too */
    return rank_finish_replays(r, ctx->m, ctx->hw, d);
}

/* ---- Scenarios ---- */

/* The band of `group` from the placed runs with an expected step (pts:
 * room for every run). */
static bool band_of(const struct ranking *r,
                    struct validation_point *pts,
                    const char *group,
                    struct validation_band *band)
{
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

enum status rank_finish_scenarios(struct ranking *r,
                                  const struct cost_ctx *ctx,
                                  const struct validation_band *band,
                                  struct diag *d)
{
    const struct model *m = ctx->m;
    const struct hardware *hw = ctx->hw;
    char key[VALIDATION_GROUP_MAX];
    size_t i;
    struct validation_point *pts = calloc(r->nvalidations + 1, sizeof *pts);
    if (!pts)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    if (band) {
        r->band = *band;
        r->has_band = band->all_runs > 0;
    } else {
        validation_band_key(hw->cal, ctx->stack, key, sizeof key);
        r->has_band = hw->cal && band_of(r, pts, key, &r->band);
    }
    for (i = 0; i < r->nrows; i++) {
        struct ranking_row *row = &r->rows[i];
        scenario_eval(&row->work, &row->t, hw, m, row->plan.precision,
                      r->has_band ? &r->band : NULL, &row->sc);
        scenario_add(&row->sc, SCENARIO_OTHER_COMM, row->other_expected);
    }
    /* each run with its own group's band, on its own inputs */
    for (i = 0; i < r->nvalidations; i++) {
        struct validate_result *v = &r->validation[i];
        struct validation_band b;
        double x = v->sc.step[SCENARIO_EXPECTED];
        if (!scenario_known(&v->sc) || !band_of(r, pts, v->group, &b))
            continue;
        scenario_add(&v->sc, SCENARIO_RUNS_FAST, x * b.lo);
        scenario_add(&v->sc, SCENARIO_RUNS_SLOW, x * b.hi);
    }
    free(pts);
    return STATUS_OK;
}

enum status rank_finish(struct ranking *r,
                        const struct sweep_file *sf,
                        struct cost_ctx *ctx,
                        struct cost_ctx *other,
                        struct diag *d)
{
    if (rank_finish_families(r, ctx, other, d) != STATUS_OK ||
        rank_finish_stages(r, ctx, d) != STATUS_OK)
        return d->status;
    rank_finish_crossovers(r, ctx->hw, sf);
    if (rank_finish_other_best(r, sf, other, d) != STATUS_OK)
        return d->status;
    return rank_finish_replays(r, ctx->m, ctx->hw, d);
}
