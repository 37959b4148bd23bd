/*
 * figures: what the writers show, derived once (see figures.h). Families
 * and validation runs first; then the views, each from what the earlier
 * ones fixed: the Plans sheet's rows, the recommended plan, colours and
 * crossovers, the sentences, the charts. This file holds the stage's
 * entry points and the validation runs' predictions; the words are
 * figures_headline.c's, the charts figures_charts.c's, the waterfalls
 * figures_waterfall.c's.
 */
#include "figures.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "figures_internal.h"
#include "figures_waterfall.h"
#include "rank.h"
#include "terms.h"

/* The fit of c with the report's headroom (cost_evaluate does not know
 * it). */
static void refit(const struct report *r, struct cost_result *c)
{
    c->fits = terms_fits(c->mem.total, c->mem.capacity, r->headroom_pct);
}

enum status figures_families(struct report *r,
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
        cost_evaluate(ctx, &p, &f->best, f->coll, COMM_LIST_MAX, &f->ncoll);
        cost_evaluate(other, &p, &f->best_other, f->coll_other, COMM_LIST_MAX,
                      &f->ncoll_other);
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

/* ---- Validation runs ---- */

enum status figures_validation_plan(const struct validation_run *run,
                                    const struct validation_inputs *in,
                                    struct plan *p,
                                    struct diag *d)
{
    struct plan defaults;
    char *args[1];
    char plan_text[DATAFILE_TEXT_MAX];
    long given_dp;
    memset(&defaults, 0, sizeof defaults);
    defaults.gpus = in->hw->spec.gpus;
    defaults.tp = defaults.pp = defaults.ep = defaults.cp = 1;
    defaults.vpp = defaults.mbs = 1;
    defaults.gbs = in->m->spec.global_batch;
    snprintf(plan_text, sizeof plan_text, "%s", run->plan);
    args[0] = plan_text;
    if (plan_parse(args, 1, &defaults, p, &given_dp, d) != STATUS_OK)
        return d->status;
    if (plan_check(p, in->m, in->hw, false, d) != PLAN_OK)
        return d->status ? d->status : diag_set(d, STATUS_RANGE, "invalid");
    return STATUS_OK;
}

#define CHOICES_MAX     8  /* unpublished keys */
#define VALUES_MAX      16 /* values of one key */
#define COMPLETIONS_MAX 4096

/* One unpublished key and its possible values, as PLAN tokens. */
struct choice {
    char key[32];
    char value[VALUES_MAX][32];
    size_t n;
};

/* Copies the run of text up to any of stop (or its end) into out, and
 * returns where it stopped. */
static const char *
word(const char *text, const char *stop, char *out, size_t size)
{
    size_t n = strcspn(text, stop);
    snprintf(out, size, "%.*s", (int)n, text);
    return text + n;
}

/* Parses "vpp=2,4,7 zero=1,2" into choices; false (with why) on a token
 * without '=' or values, or too many. */
static bool
parse_choices(const char *text, struct choice *c, size_t *n, struct diag *why)
{
    const char *s = text;
    *n = 0;
    for (;;) {
        char tok[DATAFILE_TEXT_MAX];
        const char *v;
        s += strspn(s, " \t");
        if (!*s)
            return true;
        s = word(s, " \t", tok, sizeof tok);
        v = strchr(tok, '=');
        if (!v || v == tok || !v[1] || *n == CHOICES_MAX) {
            diag_set(why, STATUS_PARSE,
                     "run.unpublished: expected KEY=V1,V2,... (at most %d "
                     "keys), got \"%.*s\"",
                     CHOICES_MAX, diag_utf8_prec(tok, 40), tok);
            return false;
        }
        snprintf(c[*n].key, sizeof c[*n].key, "%.*s", (int)(v - tok), tok);
        c[*n].n = 0;
        for (v++; *v; v += *v == ',') {
            if (c[*n].n == VALUES_MAX) {
                diag_set(why, STATUS_PARSE,
                         "run.unpublished: at most %d values for %s",
                         VALUES_MAX, c[*n].key);
                return false;
            }
            v = word(v, ",", c[*n].value[c[*n].n++], sizeof c[0].value[0]);
        }
        (*n)++;
    }
}

/*
 * The speed of light over every completion of the run's plan by its
 * unpublished choices: the fastest and the slowest step, and whether
 * every one is at or below the measured step (the promise a SOL makes).
 * A completion plan_check() refuses is not a way the run could have run.
 */
static enum status completions(const struct validation_run *run,
                               const struct validation_inputs *in,
                               struct cost_ctx *ctx,
                               struct report_validation *v,
                               struct diag *d)
{
    struct choice c[CHOICES_MAX];
    size_t nc = 0, idx[CHOICES_MAX] = {0}, k, tried = 0;
    struct cost_ctx own;
    struct cost_ctx *use = ctx;
    struct diag why;
    enum status st = STATUS_OK;
    const double model_flops = v->predicted.work.model_flops;

    snprintf(v->unpublished, sizeof v->unpublished, "%s", run->unpublished);
    diag_init(&why);
    if (!parse_choices(run->unpublished, c, &nc, &why))
        return diag_set(d, STATUS_PARSE, "%s: %s", run->path, why.msg);
    if (!in->current) {
        st = cost_ctx_init(&own, in->m, in->hw, ctx->comm, d);
        own.stack = in->stack;
        if (st != STATUS_OK) {
            cost_ctx_release(&own);
            return st;
        }
        use = &own;
    }
    v->completions = 0;
    for (;;) {
        char text[DATAFILE_TEXT_MAX] = "";
        char *args[1];
        struct plan p;
        long given_dp;
        size_t used = 0;
        for (k = 0; k < nc; k++)
            used +=
                (size_t)snprintf(text + used, sizeof text - used, "%s%s=%s",
                                 k ? " " : "", c[k].key, c[k].value[idx[k]]);
        args[0] = text;
        diag_init(&why);
        p = v->plan;
        if (tried++ < COMPLETIONS_MAX &&
            (nc == 0 ||
             plan_parse(args, 1, &v->plan, &p, &given_dp, &why) == STATUS_OK) &&
            plan_check(&p, in->m, in->hw, false, &why) == PLAN_OK) {
            struct cost_result r;
            st = cost_ctx_prepare_plan(use, &p, d);
            if (st != STATUS_OK)
                break;
            cost_evaluate(use, &p, &r, NULL, 0, NULL);
            if (v->completions == 0 || r.t.step < v->sol_min_step_s)
                v->sol_min_step_s = r.t.step;
            if (v->completions == 0 || r.t.step > v->sol_max_step_s) {
                v->sol_max_step_s = r.t.step;
                v->slowest = p;
            }
            v->completions++;
        }
        /* the next combination, the last key fastest */
        for (k = nc; k > 0; k--) {
            if (++idx[k - 1] < c[k - 1].n)
                break;
            idx[k - 1] = 0;
        }
        if (k == 0)
            break;
    }
    if (!in->current)
        cost_ctx_release(&own);
    if (st != STATUS_OK)
        return st;
    /* the measured step: published, or the model FLOPs at the measured
     * rate (the same model FLOPs per GPU per step whatever the
     * completion: the batch is the run's) */
    v->measured_step_eq =
        v->measured_step_s > 0 ? v->measured_step_s
        : v->measured_tflops_per_gpu > 0
            ? model_flops / (v->measured_tflops_per_gpu * 1e12)
            : 0;
    v->holds = v->completions > 0 && (v->measured_step_eq == 0 ||
                                      v->sol_max_step_s <= v->measured_step_eq);
    return STATUS_OK;
}

/* Predicts run `run` with its inputs into v; false (and a note) when its
 * plan does not apply to them. A measured run ran: its plan is judged
 * against its GPUs' memory (cost_evaluate's fits), not with the report's
 * headroom, a planning margin for allocator spikes that the hardware's
 * fragmentation share already stands for (issue 17 item 9). */
static enum status predict(struct report *r,
                           const struct validation_run *run,
                           const struct validation_inputs *in,
                           struct cost_ctx *ctx,
                           struct cost_ctx *other,
                           struct report_validation *v,
                           bool *applies,
                           struct diag *d)
{
    struct diag why;
    enum status st = STATUS_OK;

    memset(v, 0, sizeof *v);
    diag_snprintf(v->name, sizeof v->name, "%s", run->name);
    diag_snprintf(v->source, sizeof v->source, "%s", run->source);
    snprintf(v->model_path, sizeof v->model_path, "%s", run->model_path);
    snprintf(v->hardware_path, sizeof v->hardware_path, "%s",
             run->hardware_path);
    diag_snprintf(v->model_name, sizeof v->model_name, "%s", in->m->spec.name);
    diag_snprintf(v->gpu_name, sizeof v->gpu_name, "%s", in->hw->spec.gpu_name);
    v->measured_step_s = run->measured_step_s;
    v->measured_tflops_per_gpu = run->measured_tflops_per_gpu;
    v->measured_mfu = run->measured_mfu;
    v->measured_gpu_hours_per_trillion = run->measured_gpu_hours_per_trillion;
    v->current = in->current;
    if (in->hw->cal)
        snprintf(v->calibration_path, sizeof v->calibration_path, "%s",
                 in->hw->cal->meta.path);
    if (in->stack)
        snprintf(v->stack_path, sizeof v->stack_path, "%s",
                 in->stack->meta.path);

    diag_init(&why);
    *applies = figures_validation_plan(run, in, &v->plan, &why) == STATUS_OK;
    if (!*applies) {
        if (r->nvalidation_notes < REPORT_VALIDATIONS_MAX)
            diag_snprintf(r->validation_notes[r->nvalidation_notes++],
                          sizeof r->validation_notes[0],
                          "%.*s: skipped, its plan does not apply to %s: %.*s",
                          diag_utf8_prec(run->name, 120), run->name,
                          in->current ? "this report's inputs" : "its inputs",
                          diag_utf8_prec(why.msg, 200), why.msg);
        return STATUS_OK;
    }
    if (in->current) {
        struct cost_result alt;
        if (cost_ctx_prepare_plan(ctx, &v->plan, d) != STATUS_OK ||
            cost_ctx_prepare_plan(other, &v->plan, d) != STATUS_OK)
            return d->status;
        const struct stack *mine = ctx->stack;
        ctx->stack = in->stack; /* the run's framework, not the report's */
        cost_evaluate(ctx, &v->plan, &v->predicted, v->coll, COMM_LIST_MAX,
                      &v->ncoll);
        ctx->stack = mine;
        cost_evaluate(other, &v->plan, &alt, v->coll_other, COMM_LIST_MAX,
                      &v->ncoll_other);
    } else {
        struct cost_ctx own;
        st = cost_ctx_init(&own, in->m, in->hw, ctx->comm, d);
        own.stack = in->stack;
        if (st == STATUS_OK)
            st = cost_ctx_prepare_plan(&own, &v->plan, d);
        if (st == STATUS_OK) {
            cost_evaluate(&own, &v->plan, &v->predicted, NULL, 0, NULL);
        }
        cost_ctx_release(&own);
    }
    plan_family(&v->plan, v->predicted.family, sizeof v->predicted.family);
    if (st == STATUS_OK)
        st = completions(run, in, ctx, v, d);
    return st;
}

enum status figures_validations(struct report *r,
                                const struct validation_run *runs,
                                const struct validation_inputs *in,
                                size_t n,
                                struct cost_ctx *ctx,
                                struct cost_ctx *other,
                                struct diag *d)
{
    size_t i, k;
    for (i = 0; i < n && r->nvalidations < REPORT_VALIDATIONS_MAX; i++) {
        struct report_validation *v = &r->validation[r->nvalidations];
        bool applies;
        if (predict(r, &runs[i], &in[i], ctx, other, v, &applies, d) !=
            STATUS_OK)
            return d->status;
        if (!applies)
            continue;
        r->nvalidations++;
        if (!v->current)
            continue;
        for (k = 0; k < r->nrows; k++) /* its rank among the kept plans */
            if (memcmp(&r->rows[k].plan, &v->plan, sizeof v->plan) == 0) {
                v->rank = (long)k + 1;
                break;
            }
    }
    return STATUS_OK;
}

enum status figures_recommend(struct report *r, struct diag *d)
{
    return figures_sheet_rows(r, d);
}

enum status
figures_views(struct report *r, struct cost_ctx *other, struct diag *d)
{
    time_t when = (time_t)r->generated;
    struct tm tm;
    size_t i;
    if (!gmtime_r(&when, &tm) ||
        strftime(r->when, sizeof r->when, "%Y-%m-%d %H:%M UTC", &tm) == 0)
        snprintf(r->when, sizeof r->when, "%lld", (long long)r->generated);
    /* the baseline and the published run on these inputs */
    memset(&r->baseline, 0, sizeof r->baseline);
    diag_snprintf(r->baseline.name, sizeof r->baseline.name, "%s",
                  r->sweep ? r->sweep->spec.r_baseline : "");
    r->baseline.family = report_family_index(r, r->baseline.name);
    r->published = -1;
    for (i = 0; i < r->nvalidations && r->published < 0; i++)
        if (r->validation[i].current)
            r->published = (long)i;
    memset(&r->headline, 0, sizeof r->headline);
    if (figures_sheet_rows(r, d) != STATUS_OK)
        return d->status;
    figures_colors(r);
    figures_crossovers(r);
    figures_family_words(r);
    if (figures_headline(r, other, d) != STATUS_OK)
        return d->status;
    figures_waterfall(r);
    figures_baseline_sentence(r);
    figures_notes(r);
    return figures_charts(r, d);
}
