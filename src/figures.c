/*
 * figures: what the writers show, derived once (see figures.h). Families
 * and validation runs first; then the views, each from what the earlier
 * ones fixed: the Plans sheet's rows, the recommended plan, colours and
 * crossovers, the sentences, the charts.
 */
#include "figures.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "eval_out.h"
#include "figures_waterfall.h"
#include "rank.h"
#include "sweep.h"
#include "terms.h"

#define GIB 1073741824.0

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
        if (cost_ctx_prepare(ctx, p.pp, p.vpp, p.schedule, d) != STATUS_OK ||
            cost_ctx_prepare(other, p.pp, p.vpp, p.schedule, d) != STATUS_OK)
            return d->status;
        cost_evaluate(ctx, &p, &f->best, f->coll, COMM_LIST_MAX, &f->ncoll);
        cost_evaluate(other, &p, &f->best_other, f->coll_other, COMM_LIST_MAX,
                      &f->ncoll_other);
        refit(r, &f->best);
        refit(r, &f->best_other);
        snprintf(f->best.family, sizeof f->best.family, "%s", f->name);
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
                     "keys), got \"%.40s\"",
                     CHOICES_MAX, tok);
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
            st = cost_ctx_prepare(use, p.pp, p.vpp, p.schedule, d);
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
 * plan does not apply to them. */
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
    snprintf(v->name, sizeof v->name, "%s", run->name);
    snprintf(v->source, sizeof v->source, "%s", run->source);
    snprintf(v->model_path, sizeof v->model_path, "%s", run->model_path);
    snprintf(v->hardware_path, sizeof v->hardware_path, "%s",
             run->hardware_path);
    snprintf(v->model_name, sizeof v->model_name, "%s", in->m->spec.name);
    snprintf(v->gpu_name, sizeof v->gpu_name, "%s", in->hw->spec.gpu_name);
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
            snprintf(r->validation_notes[r->nvalidation_notes++],
                     sizeof r->validation_notes[0],
                     "%.120s: skipped, its plan does not apply to %s: %.200s",
                     run->name,
                     in->current ? "this report's inputs" : "its inputs",
                     why.msg);
        return STATUS_OK;
    }
    if (in->current) {
        struct cost_result alt;
        if (cost_ctx_prepare(ctx, v->plan.pp, v->plan.vpp, v->plan.schedule,
                             d) != STATUS_OK ||
            cost_ctx_prepare(other, v->plan.pp, v->plan.vpp, v->plan.schedule,
                             d) != STATUS_OK)
            return d->status;
        const struct stack *mine = ctx->stack;
        ctx->stack = in->stack; /* the run's framework, not the report's */
        cost_evaluate(ctx, &v->plan, &v->predicted, v->coll, COMM_LIST_MAX,
                      &v->ncoll);
        ctx->stack = mine;
        cost_evaluate(other, &v->plan, &alt, v->coll_other, COMM_LIST_MAX,
                      &v->ncoll_other);
        refit(r, &v->predicted);
    } else {
        struct cost_ctx own;
        st = cost_ctx_init(&own, in->m, in->hw, ctx->comm, d);
        own.stack = in->stack;
        if (st == STATUS_OK)
            st = cost_ctx_prepare(&own, v->plan.pp, v->plan.vpp,
                                  v->plan.schedule, d);
        if (st == STATUS_OK) {
            cost_evaluate(&own, &v->plan, &v->predicted, NULL, 0, NULL);
            refit(r, &v->predicted);
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

/* ---- Views: small helpers ---- */

static double pow10_floor(double x)
{
    return pow(10, floor(log10(x)));
}

static double pow10_ceil(double x)
{
    return pow(10, ceil(log10(x)));
}

/* The cluster with its IB (ib) or NVLink bandwidth set to gbps; only the
 * link's rate differs (a shallow copy). */
static void
hw_at(const struct hardware *hw, bool ib, double gbps, struct hardware *out)
{
    *out = *hw;
    if (ib) {
        out->spec.ib_gbps = gbps;
        out->ib_bps = gbps * 1e9;
    } else {
        out->spec.nvlink_gbps = gbps;
        out->nvlink_bps = gbps * 1e9;
    }
}

/* The step of work w on hardware h (terms_step: what ranking needs). */
static void retime(const struct cost_work *w,
                   const struct hardware *h,
                   struct cost_times *t)
{
    struct terms_env e = {w, h, NULL, MODEL_BF16, t, 1, 0};
    memset(t, 0, sizeof *t);
    terms_step(&e, t);
}

/* "IB" or "NVLink". */
static const char *link_name(bool ib)
{
    return ib ? "IB" : "NVLink";
}

/* 12,345,678 */
static void thousands(double v, char *buf, size_t size)
{
    char digits[64];
    size_t n, i, o = 0;
    if (!isfinite(v) || fabs(v) >= 1e18) {
        snprintf(buf, size, "%.3g", v);
        return;
    }
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    n = strlen(digits);
    if (v <= -0.5 && o + 1 < size)
        buf[o++] = '-';
    for (i = 0; i < n && o + 2 < size; i++) {
        buf[o++] = digits[i];
        if ((n - i - 1) % 3 == 0 && i + 1 < n)
            buf[o++] = ',';
    }
    buf[o] = '\0';
}

/* The other communication model's name. */
static const char *other_model(const struct report *r)
{
    return comm_model_str(r->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO);
}

/* "hierarchical (topo)" / "flat". */
static const char *model_words(enum comm_model comm)
{
    return comm == COMM_TOPO ? "the hierarchical (topo) model"
                             : "the flat model";
}

/* ---- Words for plans ---- */

static const char *schedule_words(int s)
{
    switch (s) {
    case PLAN_INTERLEAVED:
        return "interleaved 1F1B";
    case PLAN_ZB:
        return "zero-bubble (ZB1P)";
    case PLAN_DUALPIPE:
        return "DualPipe";
    default:
        return "1F1B";
    }
}

static const char *recompute_words(int r)
{
    switch (r) {
    case MODEL_RECOMPUTE_SELECTIVE:
        return "selective recomputation";
    case MODEL_RECOMPUTE_FULL:
        return "full recomputation";
    default:
        return "no recomputation";
    }
}

/* "TP 2 x PP 2 (zero-bubble (ZB1P)) x EP 256, ZeRO-1 over DP 1024, FP8,
 * no recomputation, micro-batch 1, global batch 15360 sequences". */
static void plan_words(const struct plan *p, char *buf, size_t size)
{
    char pp[96] = "", dp[64];
    if (p->pp > 1 && p->schedule == PLAN_INTERLEAVED)
        snprintf(pp, sizeof pp, " x PP %ld (interleaved 1F1B, %ld chunks)",
                 p->pp, p->vpp);
    else if (p->pp > 1)
        snprintf(pp, sizeof pp, " x PP %ld (%s)", p->pp,
                 schedule_words(p->schedule));
    if (p->zero > 0)
        snprintf(dp, sizeof dp, "ZeRO-%ld over DP %ld", p->zero, p->dp);
    else
        snprintf(dp, sizeof dp, "plain DP %ld", p->dp);
    snprintf(buf, size,
             "TP %ld%s x EP %ld%s, %s, %s, %s, micro-batch %ld, global "
             "batch %ld sequences",
             p->tp, pp, p->ep, p->cp > 1 ? " x CP" : "", dp,
             p->precision == MODEL_FP8 ? "FP8" : "BF16",
             recompute_words(p->recompute), p->mbs, p->gbs);
}

/* "TP 2, PP 2 (zb), EP 256, ZeRO-1, FP8, recompute none, mbs 1". */
static void plan_short(const struct plan *p, char *buf, size_t size)
{
    char pp[48] = "", dp[32] = "";
    if (p->pp > 1)
        snprintf(pp, sizeof pp, ", PP %ld (%s)", p->pp,
                 plan_schedule_str(p->schedule));
    if (p->dp > 1 && p->zero > 0)
        snprintf(dp, sizeof dp, ", ZeRO-%ld", p->zero);
    else if (p->dp > 1)
        snprintf(dp, sizeof dp, ", plain DP");
    snprintf(buf, size, "TP %ld%s, EP %ld%s%s, %s, recompute %s, mbs %ld",
             p->tp, pp, p->ep, p->cp > 1 ? ", CP" : "", dp,
             p->precision == MODEL_FP8 ? "FP8" : "BF16",
             plan_recompute_str(p->recompute), p->mbs);
}

/* The verdict of c in words, its first letter upper case. */
static void verdict(const struct cost_result *c, char *buf, size_t size)
{
    eval_out_verdict(c, buf, size);
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 'a' + 'A');
}

/* ---- The Plans sheet, the fastest and the recommended plan ---- */

/* The rows of the Plans sheet (see report.h), each family's row on it,
 * the fastest fitting plan and, among the plans within tie_pct of it,
 * the one with the most memory free. */
static enum status sheet_rows(struct report *r, struct diag *d)
{
    bool seen[REPORT_FAMILIES_MAX] = {false};
    size_t i, nfit = 0;
    long best = -1, rec = -1;
    double limit = 0;
    r->sheet = malloc((r->nrows ? r->nrows : 1) * sizeof *r->sheet);
    if (!r->sheet)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    r->nsheet = 0;
    r->sheet_left_out = 0;
    for (i = 0; i < r->nfamilies; i++)
        r->family[i].sheet_row = -1;
    for (i = 0; i < r->nrows; i++) {
        const struct report_row *row = &r->rows[i];
        bool first = row->family >= 0 &&
                     (size_t)row->family < REPORT_FAMILIES_MAX &&
                     !seen[row->family];
        bool take =
            r->all_plans || first || (row->fits && nfit < r->plans_sheet);
        if (first)
            seen[row->family] = true;
        if (row->fits && take)
            nfit++;
        else if (row->fits)
            r->sheet_left_out++;
        if (!take)
            continue;
        if (first)
            r->family[row->family].sheet_row = (long)r->nsheet;
        r->sheet[r->nsheet++] = i;
    }
    /* rows are ranked fitting first: the first is the fastest that fits */
    r->sheet_best = r->nsheet > 0 && r->rows[r->sheet[0]].fits ? 0 : -1;
    best = r->sheet_best;
    r->headline.ties = 0;
    if (best >= 0)
        limit = r->rows[r->sheet[0]].step * (1 + r->tie_pct / 100);
    for (i = 0; best >= 0 && i < r->nsheet; i++) {
        const struct report_row *row = &r->rows[r->sheet[i]];
        const struct report_row *have;
        if (!row->fits || !(row->step <= limit))
            continue;
        r->headline.ties++;
        have = rec >= 0 ? &r->rows[r->sheet[rec]] : NULL;
        /* the most free memory; the first (faster) on equal */
        if (!have || row->mem.capacity - row->mem.total >
                         have->mem.capacity - have->mem.total)
            rec = (long)i;
    }
    r->sheet_recommended = rec >= 0 ? rec : (r->nsheet > 0 ? 0 : -1);
    return STATUS_OK;
}

/* ---- Colours ---- */

/* Colour-blind-safe palettes (Okabe & Ito 2008; Paul Tol's "muted") for
 * the families with a fitting plan, fastest first (past 16 they repeat);
 * grey where nothing fits, black for the baseline (every report compares
 * against it). */
static void colors(struct report *r)
{
    static const uint32_t palette[16] = {
        0x0072B2, 0xD55E00, 0x009E73, 0xCC79A7, 0xE69F00, 0x56B4E9,
        0x332288, 0x882255, 0x117733, 0xAA4499, 0x999933, 0x44AA99,
        0xCC6677, 0xDDCC77, 0x88CCEE, 0x661100};
    size_t i, fitting = 0;
    for (i = 0; i < r->nfamilies; i++) {
        long k = r->families_by_step[i];
        struct report_family *f = &r->family[k];
        if (f->best.fits)
            f->color = palette[fitting++ % 16];
        else
            f->color = k == r->baseline.family ? 0x000000 : 0x999999;
    }
}

/* ---- Crossovers and the baseline's curves ---- */

/*
 * Where plan c (this report's model) turns compute-bound as the IB (ib)
 * or NVLink bandwidth grows, everything else as it is: the bandwidth at
 * which the link's time (bytes / bandwidth + calls x latency) meets the
 * compute time, and what binds there (re-timed a hair above it, so a tie
 * in the rounding does not decide).
 */
static void crossover(const struct report *r,
                      const struct cost_result *c,
                      bool ib,
                      struct report_crossover *x)
{
    const struct cost_work *w = &c->work;
    const struct cost_times *t = &c->t;
    double link = ib ? t->ib : t->nvlink;
    double bytes = ib ? w->ib_bytes : w->nvlink_bytes;
    double calls = ib ? w->ib_calls : w->nvlink_calls;
    double lat = ib ? r->hw->ib_latency_s : r->hw->nvlink_latency_s;
    const double *grid = ib ? r->sens_ib_gbps : r->sens_nv_gbps;
    size_t n = ib ? r->nsens_ib : r->nsens_nv;
    double room = t->compute - calls * lat;
    struct hardware h;
    struct cost_times at;
    memset(x, 0, sizeof *x);
    x->then_bound = t->bound;
    if (link <= t->compute) {
        x->state = REPORT_CROSS_ALREADY;
        return;
    }
    if (room <= 0) {
        x->state = REPORT_CROSS_LATENCY;
        return;
    }
    x->state = REPORT_CROSS_AT;
    x->gbps = bytes / room / 1e9;
    hw_at(r->hw, ib, x->gbps * (1 + 1e-9), &h);
    retime(w, &h, &at);
    x->then_bound = at.bound;
    x->in_range = n > 0 && x->gbps >= grid[0] && x->gbps <= grid[n - 1];
}

/* The baseline's curves when none of its plans fits: its fastest plan,
 * re-timed at each bandwidth of the grids. */
static void baseline_curves(struct report *r)
{
    struct report_family *f;
    size_t i;
    if (r->baseline.family < 0)
        return;
    f = &r->family[r->baseline.family];
    if (f->fitting > 0 || !f->has_best)
        return;
    f->sens_unfit = true;
    for (i = 0; i < r->nsens_ib; i++) {
        struct hardware h;
        struct cost_times t;
        hw_at(r->hw, true, r->sens_ib_gbps[i], &h);
        retime(&f->best.work, &h, &t);
        f->sens_ib_step[i] = t.step;
        f->sens_ib_bound[i] = t.bound;
    }
    for (i = 0; i < r->nsens_nv; i++) {
        struct hardware h;
        struct cost_times t;
        hw_at(r->hw, false, r->sens_nv_gbps[i], &h);
        retime(&f->best.work, &h, &t);
        f->sens_nv_step[i] = t.step;
        f->sens_nv_bound[i] = t.bound;
    }
}

/* ---- Sentences ---- */

/* The plain-words sentence for a family: the verdict under this
 * report's comm model, the other model's when it names another link,
 * and whether the plan fits. */
static void family_why(const struct report *r, struct report_family *f)
{
    char v[400], other[200] = "", fit[300] = "";
    verdict(&f->best, v, sizeof v);
    if (f->best_other.t.bound != f->best.t.bound)
        snprintf(other, sizeof other, " The %s model says %s-bound (%.2f).",
                 other_model(r), cost_bound_label(f->best_other.t.bound),
                 f->best_other.t.comm_compute_ratio);
    if (!f->best.fits)
        snprintf(fit, sizeof fit,
                 " No plan of this family fits in %.1f GiB per GPU (%.1f "
                 "less the %g%% headroom): the fastest needs %.0f GiB.",
                 f->best.mem.capacity / GIB * (1 - r->headroom_pct / 100),
                 f->best.mem.capacity / GIB, r->headroom_pct,
                 f->best.mem.total / GIB);
    snprintf(f->why, sizeof f->why, "%s.%s%s", v, other, fit);
    plan_short(&f->best.plan, f->plan_short, sizeof f->plan_short);
}

/* What a plan costs for the token budget (the headline's figures). */
static void costs(const struct cost_result *c, struct report_cost *k)
{
    k->step_s = c->t.step;
    k->tokens_per_s_per_gpu = c->t.tokens_per_s_per_gpu;
    k->mfu = c->t.mfu;
    k->mfu_bf16_peak = c->t.mfu_bf16_peak;
    k->days = c->t.days;
    k->gpu_hours = c->t.days * 24 * (double)c->plan.gpus;
    k->cost_usd = c->t.cost_usd;
    k->gpu_hours_per_trillion = c->t.gpu_hours_per_trillion;
}

/*
 * The recommended plan's costs: the speed of light from its times and,
 * where the plan has calibrated times (a calibration and a stack), the
 * expected ones; xlsx_summary then leads with the expected figures and
 * shows the speed of light as the floor beside them.
 */
static void headline_costs(struct report_headline *h)
{
    const struct cost_result *c = &h->plan;
    struct report_cost *k = &h->expected;
    costs(c, &h->sol);
    memset(k, 0, sizeof *k);
    h->has_expected = c->work.x.known && c->t.expected > 0;
    if (!h->has_expected)
        return;
    k->step_s = c->t.expected;
    k->tokens_per_s_per_gpu = c->t.x_tps;
    k->mfu = c->t.x_mfu;
    k->mfu_bf16_peak = c->t.mfu_bf16_peak * c->t.step / c->t.expected;
    k->days = c->t.x_days;
    k->gpu_hours = c->t.x_days * 24 * (double)c->plan.gpus;
    k->cost_usd = c->t.x_cost;
    k->gpu_hours_per_trillion =
        c->t.gpu_hours_per_trillion * c->t.expected / c->t.step;
}

/* The sentence on the difference between the speed of light and what a
 * run takes: the published run on these inputs, else the range over the
 * validation runs that published a step time. */
static void difference(const struct report *r, struct report_headline *h)
{
    double lo = INFINITY, hi = 0;
    size_t i, n = 0;
    if (h->has_expected) {
        snprintf(h->difference, sizeof h->difference,
                 "Expected: %.2f s per step on real kernels and network; the "
                 "speed of light, %.2f s, is a floor no run of this plan "
                 "beats (%.2fx apart).",
                 h->expected.step_s, h->sol.step_s,
                 h->expected.step_s / h->sol.step_s);
        return;
    }
    if (r->published >= 0) {
        const struct report_validation *v = &r->validation[r->published];
        if (v->measured_step_s > 0 && v->predicted.t.step > 0) {
            h->has_ratio = true;
            h->measured_over_sol = v->measured_step_s / v->predicted.t.step;
            snprintf(h->difference, sizeof h->difference,
                     "These are speed-of-light figures: a floor, not a "
                     "forecast. The published run on these inputs (%s) took "
                     "%.2f s per step, %.2fx its speed of light of %.2f s "
                     "(see Validation); expect a real run of the recommended "
                     "plan to be slower by a similar factor until expected "
                     "times from a calibration are shown here.",
                     v->name, v->measured_step_s, h->measured_over_sol,
                     v->predicted.t.step);
            return;
        }
    }
    for (i = 0; i < r->nvalidations; i++) {
        const struct report_validation *v = &r->validation[i];
        double q;
        if (!(v->measured_step_s > 0) || !(v->predicted.t.step > 0))
            continue;
        q = v->measured_step_s / v->predicted.t.step;
        lo = fmin(lo, q);
        hi = fmax(hi, q);
        n++;
    }
    if (n > 0)
        snprintf(h->difference, sizeof h->difference,
                 "These are speed-of-light figures: a floor, not a forecast. "
                 "Published runs took %.2f to %.2fx their speed of light "
                 "(see Validation); expect a real run to be slower by a "
                 "similar factor.",
                 lo, hi);
    else
        snprintf(h->difference, sizeof h->difference,
                 "These are speed-of-light figures: a floor, not a forecast; "
                 "no published run here says how far real runs are from it.");
}

/* The fastest fitting plan under the other communication model, among
 * the fitting kept plans (memory does not depend on the model). */
static enum status other_best(struct report *r,
                              struct cost_ctx *other,
                              struct cost_result *best,
                              bool *found,
                              struct diag *d)
{
    size_t i;
    *found = false;
    if (r->sweep && sweep_prepare(r->sweep, other, d) != STATUS_OK)
        return d->status;
    for (i = 0; i < r->nrows && r->rows[i].fits; i++) {
        struct cost_result c;
        const struct plan *p = &r->rows[i].plan;
        if (cost_ctx_prepare(other, p->pp, p->vpp, p->schedule, d) != STATUS_OK)
            return d->status;
        cost_evaluate(other, p, &c, NULL, 0, NULL);
        if (!*found || rank_before(true, cost_rank_step(&c), &c.plan, true,
                                   cost_rank_step(best), &best->plan)) {
            *best = c;
            *found = true;
        }
    }
    return STATUS_OK;
}

/* The recommended plan as a cost result (this report's model). */
static void sheet_result(const struct report *r, long at, struct cost_result *c)
{
    const struct report_row *row = &r->rows[r->sheet[at]];
    memset(c, 0, sizeof *c);
    c->plan = row->plan;
    c->work = row->work;
    c->mem = row->mem;
    c->fits = row->fits;
    c->rank = row->rank;
    c->ep_ratio = row->ep_ratio;
    report_row_times(r, row, &c->t);
    snprintf(c->family, sizeof c->family, "%s", r->family[row->family].name);
}

static enum status
headline(struct report *r, struct cost_ctx *other, struct diag *d)
{
    struct report_headline *h = &r->headline;
    struct cost_result ob;
    char words[400], v[400];
    bool found;
    double usable;
    if (r->sheet_recommended < 0)
        return STATUS_OK;
    h->any = true;
    sheet_result(r, r->sheet_recommended, &h->plan);
    h->fits = h->plan.fits;
    h->family = r->rows[r->sheet[r->sheet_recommended]].family;
    headline_costs(h);
    h->memory_gib = h->plan.mem.total / GIB;
    h->capacity_gib = h->plan.mem.capacity / GIB;
    h->usable_gib = h->capacity_gib * (1 - r->headroom_pct / 100);
    h->headroom_gib = h->capacity_gib - h->memory_gib;
    usable = h->usable_gib;
    plan_words(&h->plan.plan, words, sizeof words);
    verdict(&h->plan, v, sizeof v);
    if (h->fits)
        snprintf(h->verdict, sizeof h->verdict,
                 "Recommended plan: %s - %s. %s. It needs %.1f of %.1f GiB "
                 "per GPU (%.1f GiB free; a plan fits at %.1f GiB or less, "
                 "keeping %g%% free).",
                 h->plan.family, words, v, h->memory_gib, h->capacity_gib,
                 h->headroom_gib, usable, r->headroom_pct);
    else
        snprintf(h->verdict, sizeof h->verdict,
                 "No plan fits in %.1f GiB per GPU (%.1f less the %g%% "
                 "headroom). The fastest, %s (%s), needs %.0f GiB. %s.",
                 usable, h->capacity_gib, r->headroom_pct, h->plan.family,
                 words, h->memory_gib, v);
    difference(r, h);
    /* ties */
    if (r->sheet_best >= 0) {
        const struct report_row *b = &r->rows[r->sheet[r->sheet_best]];
        h->best = b->plan;
        h->best_step_s = b->step;
        h->best_headroom_gib = (b->mem.capacity - b->mem.total) / GIB;
        h->best_differs = r->sheet_recommended != r->sheet_best;
        if (h->best_differs)
            snprintf(h->ties_text, sizeof h->ties_text,
                     "%zu plans are within %g%% of the fastest fitting plan "
                     "(%s, %.3f s%s, %.1f GiB free): ties at this precision. "
                     "The recommended one is %.1f%% slower and keeps the most "
                     "memory free, %.1f GiB.",
                     h->ties, r->tie_pct, r->family[b->family].name, b->step,
                     r->expected ? " expected" : "", h->best_headroom_gib,
                     100 * (cost_rank_step(&h->plan) / b->step - 1),
                     h->headroom_gib);
        else if (h->ties > 1)
            snprintf(h->ties_text, sizeof h->ties_text,
                     "%zu plans are within %g%% of it (ties at this "
                     "precision); it keeps the most memory free of them.",
                     h->ties, r->tie_pct);
        else
            snprintf(h->ties_text, sizeof h->ties_text,
                     "No other plan is within %g%% of it.", r->tie_pct);
    }
    /* the other communication model */
    if (other_best(r, other, &ob, &found, d) != STATUS_OK)
        return d->status;
    if (found && r->sheet_best >= 0) {
        const struct report_row *b = &r->rows[r->sheet[r->sheet_best]];
        char fam[32], sh[256];
        plan_family(&ob.plan, fam, sizeof fam);
        plan_short(&ob.plan, sh, sizeof sh);
        if (memcmp(&ob.plan, &b->plan, sizeof ob.plan) == 0)
            snprintf(h->models, sizeof h->models,
                     "Both communication models pick the same fastest plan "
                     "(%.3f s under %s, %.3f s under %s%s).",
                     b->step, comm_model_str(r->comm), cost_rank_step(&ob),
                     other_model(r), r->expected ? ", expected" : "");
        else
            snprintf(h->models, sizeof h->models,
                     "The best plan changes with the communication model: "
                     "under %s the fastest fitting plan is %s (%s), %.3f "
                     "s%s, where %s gives %s.",
                     model_words(r->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO),
                     fam, sh, cost_rank_step(&ob),
                     r->expected ? " expected" : "", model_words(r->comm),
                     r->family[b->family].name);
    }
    return STATUS_OK;
}

/* Why not the baseline, in one sentence with numbers. */
static void baseline_sentence(struct report *r)
{
    struct report_baseline *b = &r->baseline;
    const struct report_family *f;
    const struct report_headline *h = &r->headline;
    char bound[200], mem[300], x[96] = "";
    double usable;
    if (b->family < 0) {
        snprintf(b->sentence, sizeof b->sentence,
                 "The sweep has no plan of the baseline family %s (the "
                 "sweep file's report.baseline).",
                 b->name);
        return;
    }
    f = &r->family[b->family];
    b->fits = f->fitting > 0;
    b->bound = f->best.t.bound;
    b->bound_other = f->best_other.t.bound;
    b->slowdown =
        h->any && h->sol.step_s > 0 ? f->best.t.step / h->sol.step_s : 0;
    b->lightest_gib = f->has_lightest ? f->lightest_mem.total / GIB : 0;
    b->lightest_weights_gib =
        f->has_lightest ? f->lightest_mem.weights / GIB : 0;
    usable = f->best.mem.capacity / GIB * (1 - r->headroom_pct / 100);
    if (b->bound == b->bound_other)
        snprintf(bound, sizeof bound,
                 "%s-bound under both communication models",
                 cost_bound_label(b->bound));
    else
        snprintf(bound, sizeof bound, "bound by %s under %s and by %s under %s",
                 cost_bound_label(b->bound), model_words(r->comm),
                 cost_bound_label(b->bound_other),
                 model_words(r->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO));
    if (!b->fits)
        snprintf(mem, sizeof mem,
                 "it needs %.0f GiB per GPU of the %.1f a plan may use (its "
                 "lightest plan; the weights with the gathered layers alone "
                 "are %.1f GiB)",
                 b->lightest_gib, usable, b->lightest_weights_gib);
    else
        snprintf(mem, sizeof mem,
                 "it fits (its lightest plan needs %.1f of %.1f GiB per GPU)",
                 b->lightest_gib, usable);
    if (h->has_expected && f->best.work.x.known)
        snprintf(x, sizeof x, "; expected %.2f s against %.2f s",
                 f->best.t.expected, h->expected.step_s);
    snprintf(b->sentence, sizeof b->sentence,
             "Why not %s (FSDP, the baseline): %s, and its best plan is "
             "%.1fx slower than the recommended one at the speed of light "
             "(%.2f s against %.2f s per step%s), %s.",
             b->name, mem, b->slowdown, f->best.t.step, h->sol.step_s, x,
             bound);
}

/* Notes under the headline: the published plan and the sweep. */
static void notes(struct report *r)
{
    char a[32], b[32], c[32], e[32];
    uint64_t rejected =
        r->enumerated >= r->valid ? r->enumerated - r->valid : 0;
    if (r->published >= 0) {
        const struct report_validation *v = &r->validation[r->published];
        char words[400];
        plan_words(&v->plan, words, sizeof words);
        thousands((double)r->nrows, b, sizeof b);
        if (v->rank > 0)
            snprintf(r->note_published, sizeof r->note_published,
                     "The published plan (%s: %s) ranks %ld of %s: "
                     "predicted %.3f s per step, %s-bound, %s.",
                     v->name, words, v->rank, b, v->predicted.t.step,
                     cost_bound_label(v->predicted.t.bound),
                     v->predicted.fits ? "fits with the headroom"
                                       : "does not fit with the headroom");
        else
            snprintf(r->note_published, sizeof r->note_published,
                     "The published plan (%s: %s) is not among the plans "
                     "kept here; predicted %.3f s per step, %s-bound.",
                     v->name, words, v->predicted.t.step,
                     cost_bound_label(v->predicted.t.bound));
    }
    thousands((double)r->enumerated, a, sizeof a);
    thousands((double)r->valid, b, sizeof b);
    thousands((double)r->fitting, c, sizeof c);
    thousands((double)rejected, e, sizeof e);
    snprintf(r->note_sweep, sizeof r->note_sweep,
             "Sweep: %s combinations, %s valid plans evaluated (%s fit with "
             "%g%% of HBM kept free), %s rejected (see Rejected).",
             a, b, c, r->headroom_pct, e);
    r->note_left_out[0] = '\0';
    if (r->dropped > 0 || r->sheet_left_out > 0) {
        thousands((double)r->nsheet, a, sizeof a);
        thousands((double)(r->dropped + (r->nrows - r->nsheet)), b, sizeof b);
        snprintf(r->note_left_out, sizeof r->note_left_out,
                 "Plans shows %s plans: those that fit, best first, up to "
                 "the sweep's report.plans_sheet, and each family's best; %s "
                 "more are in plans.csv (--all-plans puts every kept plan on "
                 "the sheet).",
                 a, b);
    }
}

/* ---- Charts ---- */

/* Executed FLOPs per byte over each link and attained TFLOP/s. */
static bool
point_of(const struct cost_work *w, double step, double x[2], double *y)
{
    double flops = w->fp8_flops + w->bf16_flops;
    if (!(step > 0) || !(flops > 0))
        return false;
    x[0] = w->ib_bytes > 0 ? flops / w->ib_bytes : 0;
    x[1] = w->nvlink_bytes > 0 ? flops / w->nvlink_bytes : 0;
    *y = flops / step / 1e12;
    return true;
}

/* Every fitting kept plan, one block per family, fastest family first. */
static enum status points(struct report *r, struct diag *d)
{
    size_t count[REPORT_FAMILIES_MAX] = {0}, at[REPORT_FAMILIES_MAX];
    size_t i, k, n = 0;
    for (i = 0; i < r->nrows && r->rows[i].fits; i++)
        if (r->rows[i].family >= 0)
            count[r->rows[i].family]++;
    r->points = malloc((i ? i : 1) * sizeof *r->points);
    if (!r->points)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    r->nblocks = 0;
    for (k = 0; k < r->nfamilies; k++) {
        long f = r->families_by_step[k];
        struct report_block *b;
        if (count[f] == 0)
            continue;
        b = &r->blocks[r->nblocks];
        b->family = f;
        b->first = n;
        b->n = 0;
        b->number = (long)r->nblocks + 1;
        b->labelled = r->nblocks < REPORT_LABELLED;
        at[f] = n;
        n += count[f];
        r->nblocks++;
    }
    for (i = 0; i < r->nrows && r->rows[i].fits; i++) {
        const struct report_row *row = &r->rows[i];
        struct report_point *p;
        struct cost_times t;
        if (row->family < 0)
            continue;
        p = &r->points[at[row->family]++];
        report_row_times(r, row, &t);
        if (!point_of(&row->work, t.step, p->x, &p->y))
            p->x[0] = p->x[1] = p->y = 0;
        p->step = t.step;
        p->fp8 = row->plan.precision == MODEL_FP8;
    }
    r->npoints = n;
    for (k = 0; k < r->nblocks; k++)
        r->blocks[k].n = count[r->blocks[k].family];
    return STATUS_OK;
}

/* One roofline's roofs, slopes and axis ranges. */
static void roofline(struct report *r, bool ib, struct report_roofline *o)
{
    const struct hardware *hw = r->hw;
    double bw = ib ? hw->ib_bps : hw->nvlink_bps;
    double bw_peak =
        1e9 * (ib ? hw->spec.ib_peak_gbps : hw->spec.nvlink_peak_gbps);
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, top = 0;
    size_t i, l = ib ? 0 : 1;
    memset(o, 0, sizeof *o);
    o->link = link_name(ib);
    o->bw_name = ib ? "IB_GBPS" : "NVLINK_GBPS";
    /* highest first: the charts place their labels in this order */
    if (hw->fp8_flops > 0) {
        struct report_roof *a = &o->roof[o->nroofs++];
        snprintf(a->name, sizeof a->name, "FP8 peak");
        a->tflops = hw->fp8_peak_flops / 1e12;
        a->bps = bw_peak;
        a->peak = true;
        a = &o->roof[o->nroofs++];
        snprintf(a->name, sizeof a->name, "FP8 achievable");
        snprintf(a->rate_name, sizeof a->rate_name, "FP8_TFLOPS_USED");
        snprintf(a->ridge_name, sizeof a->ridge_name, "RIDGE_%s_FP8",
                 ib ? "IB" : "NVLINK");
        a->tflops = hw->fp8_flops / 1e12;
        a->bps = bw;
    }
    {
        struct report_roof *a = &o->roof[o->nroofs++];
        snprintf(a->name, sizeof a->name, "BF16 peak");
        a->tflops = hw->bf16_peak_flops / 1e12;
        a->bps = bw_peak;
        a->peak = true;
        a = &o->roof[o->nroofs++];
        snprintf(a->name, sizeof a->name, "BF16 achievable");
        snprintf(a->rate_name, sizeof a->rate_name, "BF16_TFLOPS_USED");
        snprintf(a->ridge_name, sizeof a->ridge_name, "RIDGE_%s_BF16",
                 ib ? "IB" : "NVLINK");
        a->tflops = hw->bf16_flops / 1e12;
        a->bps = bw;
    }
    o->slope_bps[o->nslopes++] = bw;
    if (bw_peak != bw)
        o->slope_bps[o->nslopes++] = bw_peak;
    for (i = 0; i < o->nroofs; i++) {
        struct report_roof *a = &o->roof[i];
        a->ridge = a->tflops * 1e12 / a->bps;
        xlo = fmin(xlo, a->ridge);
        xhi = fmax(xhi, a->ridge);
        top = fmax(top, a->tflops);
        if (!a->peak)
            o->top_achievable = fmax(o->top_achievable, a->tflops);
    }
    for (i = 0; i < r->npoints; i++) {
        const struct report_point *p = &r->points[i];
        if (!(p->x[l] > 0)) {
            o->nobytes++;
            continue;
        }
        o->npoints++;
        xlo = fmin(xlo, p->x[l]);
        xhi = fmax(xhi, p->x[l]);
        ylo = fmin(ylo, p->y);
    }
    if (r->baseline.has_point && r->baseline.x[l] > 0) {
        xlo = fmin(xlo, r->baseline.x[l]);
        xhi = fmax(xhi, r->baseline.x[l]);
        ylo = fmin(ylo, r->baseline.y);
    }
    if (!(ylo < INFINITY))
        ylo = top / 100;
    o->xlo = pow10_floor(xlo / 1.5);
    o->xhi = pow10_ceil(xhi * 1.5);
    if (o->xhi / o->xlo < 1e3)
        o->xhi = o->xlo * 1e3;
    o->ylo = pow10_floor(ylo / 1.5);
    if (o->ylo > top / 100)
        o->ylo = pow10_floor(top / 100);
    o->yhi = top * 2.2; /* room above the highest roof for its label */
    o->yhi_decade = pow10_ceil(o->yhi);
}

/* The native charts' plans: the first few Plans rows of each series'
 * family, the series the fastest families, the baseline, then "other
 * families". */
static enum status picks(struct report *r, struct diag *d)
{
    size_t k, i, n = 0, per[REPORT_FAMILIES_MAX] = {0};
    long series_of[REPORT_FAMILIES_MAX];
    r->roof_pick = malloc((r->nfamilies * REPORT_ROOF_PER_FAMILY + 1) *
                          sizeof *r->roof_pick);
    if (!r->roof_pick)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    r->nseries = 0;
    for (k = 0; k < r->nfamilies && r->nseries < REPORT_SERIES_MAX - 1; k++)
        r->series[r->nseries++].family = r->families_by_step[k];
    for (k = 0; k < r->nseries; k++)
        if (r->series[k].family == r->baseline.family)
            break;
    if (k == r->nseries && r->baseline.family >= 0)
        r->series[r->nseries++].family = r->baseline.family;
    r->series[r->nseries].family = -1; /* the rest */
    for (k = 0; k < REPORT_FAMILIES_MAX; k++)
        series_of[k] = (long)r->nseries;
    for (k = 0; k < r->nseries; k++)
        series_of[r->series[k].family] = (long)k;
    for (k = 0; k <= r->nseries; k++) {
        struct report_series *s = &r->series[k];
        s->first = n;
        s->color = s->family >= 0 ? r->family[s->family].color : 0xB0B0B0;
        for (i = 0; i < r->nsheet; i++) {
            const struct report_row *row = report_sheet_row(r, i);
            struct report_pick *p = &r->roof_pick[n];
            struct cost_times t;
            if (row->family < 0 || series_of[row->family] != (long)k ||
                per[row->family] >= REPORT_ROOF_PER_FAMILY)
                continue;
            report_row_times(r, row, &t);
            if (!point_of(&row->work, t.step, p->x, &p->y))
                continue;
            per[row->family]++;
            p->sheet = i;
            p->bound = t.bound;
            n++;
        }
        s->n = n - s->first;
    }
    r->nroof_pick = n;
    return STATUS_OK;
}

/* The bar charts' families, in the report's order (fitting first, then
 * by step time): all up to REPORT_BARS_MAX; past that, the fitting ones
 * first, and the baseline kept. */
static void bars(struct report *r)
{
    long base = r->baseline.family;
    size_t k, have = 0, room = REPORT_BARS_MAX;
    bool base_in = false;
    double fastest = INFINITY;
    r->nbars = r->nbars_fit = 0;
    for (k = 0; k < r->nfamilies; k++)
        if (r->family[r->families_by_step[k]].has_best)
            have++;
    if (base >= 0 && have > REPORT_BARS_MAX) {
        size_t pos = 0;
        for (k = 0; k < r->nfamilies && r->families_by_step[k] != base; k++)
            if (r->family[r->families_by_step[k]].has_best)
                pos++;
        if (pos >= REPORT_BARS_MAX)
            room--; /* keep a place for it at the end */
    }
    for (k = 0; k < r->nfamilies; k++) {
        long f = r->families_by_step[k];
        const struct cost_result *c = &r->family[f].best;
        struct report_bar *b;
        double exposed;
        if (!r->family[f].has_best)
            continue;
        if (!(r->nbars < room ||
              (f == base && !base_in && r->nbars < REPORT_BARS_MAX)))
            continue;
        base_in = base_in || f == base;
        b = &r->bars[r->nbars++];
        memset(b, 0, sizeof *b);
        b->family = f;
        b->compute = c->t.compute;
        /* only the binding term's time beyond compute is exposed */
        exposed = c->t.core - c->t.compute;
        if (c->t.bound != COST_COMPUTE)
            b->exposed[c->t.bound] = exposed;
        b->bubble = c->t.bubble;
        b->optimizer = c->t.optimizer;
        b->step = c->t.step;
        b->serial = c->t.step_serial;
        b->fits = c->fits;
        b->bound = c->t.bound;
        if (b->fits)
            r->nbars_fit++;
        fastest = fmin(fastest, b->step);
    }
    r->bars_omitted = have - r->nbars;
    /* the competitive families whole: step within 2.5x of the fastest,
     * with their serial marker */
    r->steps_max = 0;
    r->memory_fit_max = r->hw->capacity_bytes / GIB;
    r->memory_unfit_max = 0;
    for (k = 0; k < r->nbars; k++) {
        const struct report_bar *b = &r->bars[k];
        const struct memory *m = &r->family[b->family].best.mem;
        if (b->step <= 2.5 * fastest)
            r->steps_max = fmax(r->steps_max, fmax(b->serial, b->step));
        if (b->fits)
            r->memory_fit_max = fmax(r->memory_fit_max, m->total / GIB);
        else
            r->memory_unfit_max = fmax(r->memory_unfit_max, m->total / GIB);
    }
}

/* What becomes of the baseline on one link's chart, in two lines. */
static void
sens_words(const struct report *r, bool ib, struct report_sens_chart *c)
{
    const struct report_baseline *b = &r->baseline;
    const struct report_family *f;
    const struct report_crossover *x;
    const char *link = link_name(ib);
    char a[32], grid_end[64];
    if (b->family < 0)
        return;
    f = &r->family[b->family];
    x = ib ? &f->cross_ib : &f->cross_nv;
    thousands(x->gbps, a, sizeof a);
    snprintf(grid_end, sizeof grid_end, " (beyond this chart's %g GB/s)",
             c->n ? c->gbps[c->n - 1] : 0);
    if (x->state == REPORT_CROSS_LATENCY) {
        snprintf(c->line1, sizeof c->line1,
                 "%s: no %s bandwidth makes it compute-bound", b->name, link);
        snprintf(c->line2, sizeof c->line2,
                 "its %s latency alone exceeds its compute time", link);
    } else if (x->state == REPORT_CROSS_ALREADY) {
        if (f->best.t.bound == COST_COMPUTE)
            snprintf(c->line1, sizeof c->line1, "%s is compute-bound already",
                     b->name);
        else
            snprintf(c->line1, sizeof c->line1,
                     "%s: %s does not bind, %s does: no crossover on this "
                     "chart",
                     b->name, link, cost_bound_label(f->best.t.bound));
        snprintf(c->line2, sizeof c->line2,
                 "its %s time is at or below its compute time now", link);
    } else if (x->then_bound == COST_COMPUTE) {
        snprintf(c->line1, sizeof c->line1,
                 "%s turns compute-bound at %s GB/s of %s%s", b->name, a, link,
                 x->in_range ? "" : grid_end);
        snprintf(c->line2, sizeof c->line2,
                 "there its %s time meets its compute time", link);
        if (x->in_range)
            c->mark_gbps = x->gbps;
    } else {
        snprintf(c->line1, sizeof c->line1,
                 "%s: no %s bandwidth alone makes it compute-bound", b->name,
                 link);
        snprintf(c->line2, sizeof c->line2,
                 "at %s GB/s its %s time meets compute, but %s still binds", a,
                 link, cost_bound_label(x->then_bound));
    }
}

/* One sensitivity chart: the families with a fitting plan, and the
 * baseline re-timed when none of it fits. */
static void sens_chart(struct report *r, bool ib)
{
    struct report_sens_chart *c = &r->sens[ib ? 0 : 1];
    size_t k, i;
    memset(c, 0, sizeof *c);
    c->link = link_name(ib);
    c->gbps = ib ? r->sens_ib_gbps : r->sens_nv_gbps;
    c->n = ib ? r->nsens_ib : r->nsens_nv;
    c->today = ib ? r->hw->spec.ib_gbps : r->hw->spec.nvlink_gbps;
    c->ylo = INFINITY;
    for (k = 0; k < r->nfamilies; k++) {
        long f = r->families_by_step[k];
        const struct report_family *rf = &r->family[f];
        const double *step = ib ? rf->sens_ib_step : rf->sens_nv_step;
        bool any = false;
        for (i = 0; i < c->n; i++)
            if (step[i] > 0) {
                any = true;
                c->ylo = fmin(c->ylo, step[i]);
                c->yhi = fmax(c->yhi, step[i]);
            }
        if (any)
            c->family[c->nfamilies++] = f;
    }
    if (!(c->ylo < INFINITY)) {
        c->ylo = 1;
        c->yhi = 10;
    }
    sens_words(r, ib, c);
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
    snprintf(r->baseline.name, sizeof r->baseline.name, "%s",
             r->sweep ? r->sweep->spec.r_baseline : "");
    r->baseline.family = report_family_index(r, r->baseline.name);
    r->published = -1;
    for (i = 0; i < r->nvalidations && r->published < 0; i++)
        if (r->validation[i].current)
            r->published = (long)i;
    memset(&r->headline, 0, sizeof r->headline);
    if (sheet_rows(r, d) != STATUS_OK)
        return d->status;
    colors(r);
    for (i = 0; i < r->nfamilies; i++) {
        struct report_family *f = &r->family[i];
        crossover(r, &f->best, true, &f->cross_ib);
        crossover(r, &f->best, false, &f->cross_nv);
        family_why(r, f);
    }
    baseline_curves(r);
    if (headline(r, other, d) != STATUS_OK)
        return d->status;
    figures_waterfall(r);
    baseline_sentence(r);
    notes(r);
    if (r->baseline.family >= 0 && !r->baseline.fits) {
        const struct report_family *f = &r->family[r->baseline.family];
        r->baseline.has_point = point_of(&f->best.work, f->best.t.step,
                                         r->baseline.x, &r->baseline.y);
    }
    if (r->published >= 0) {
        const struct cost_result *c = &r->validation[r->published].predicted;
        r->has_published_point =
            point_of(&c->work, c->t.step, r->published_x, &r->published_y);
    }
    if (points(r, d) != STATUS_OK || picks(r, d) != STATUS_OK)
        return d->status;
    roofline(r, true, &r->roofline[0]);
    roofline(r, false, &r->roofline[1]);
    bars(r);
    sens_chart(r, true);
    sens_chart(r, false);
    return STATUS_OK;
}
