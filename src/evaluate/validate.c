/*
 * validate: a published measured run evaluated on the inputs it names
 * (see validate.h): its plan, its prediction, and the speed of light over
 * every completion of what it did not publish.
 */
#include "validate.h"

#include <stdio.h>
#include <string.h>

#include "scenario.h"

enum status validate_plan(const struct validation_run *run,
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
    if (plan_check(p, in->m, in->hw, PLAN_CHECK_RUNNABLE, d) != PLAN_OK)
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
                               struct validate_result *v,
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
            plan_check(&p, in->m, in->hw, PLAN_CHECK_RUNNABLE, &why) ==
                PLAN_OK) {
            struct cost_result r;
            st = cost_ctx_prepare_plan(use, &p, d);
            if (st != STATUS_OK)
                break;
            cost_evaluate(use, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
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

enum status validate_predict(const struct validation_run *run,
                             const struct validation_inputs *in,
                             struct cost_ctx *ctx,
                             struct cost_ctx *other,
                             struct validate_result *v,
                             struct diag *skip,
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
    if (in->hw->cal) {
        snprintf(v->calibration_path, sizeof v->calibration_path, "%s",
                 in->hw->cal->meta.path);
        validation_band_key(in->hw->cal, in->stack, v->group, sizeof v->group);
    }
    if (in->stack)
        snprintf(v->stack_path, sizeof v->stack_path, "%s",
                 in->stack->meta.path);

    diag_init(&why);
    if (validate_plan(run, in, &v->plan, &why) != STATUS_OK) {
        diag_set(skip, STATUS_RANGE,
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
        cost_evaluate(ctx, &v->plan, COST_FLOOR | COST_EXPECTED, NULL,
                      &v->predicted);
        v->ncoll = cost_collectives(ctx, &v->predicted, v->coll, COMM_LIST_MAX);
        ctx->stack = mine;
        cost_evaluate(other, &v->plan, COST_FLOOR | COST_EXPECTED, NULL, &alt);
        v->ncoll_other =
            cost_collectives(other, &alt, v->coll_other, COMM_LIST_MAX);
        comm_collective_times(v->coll, v->ncoll, in->hw);
        comm_collective_times(v->coll_other, v->ncoll_other, in->hw);
    } else {
        struct cost_ctx own;
        st = cost_ctx_init(&own, in->m, in->hw, ctx->comm, d);
        own.stack = in->stack;
        if (st == STATUS_OK)
            st = cost_ctx_prepare_plan(&own, &v->plan, d);
        if (st == STATUS_OK)
            cost_evaluate(&own, &v->plan, COST_FLOOR | COST_EXPECTED, NULL,
                          &v->predicted);
        cost_ctx_release(&own);
    }
    plan_family(&v->plan, v->predicted.family, sizeof v->predicted.family);
    scenario_eval(&v->predicted.work, &v->predicted.t, in->hw, in->m,
                  v->plan.precision, NULL, &v->sc);
    replay_fill(&v->predicted, in->m, in->hw, &v->replay);
    if (st == STATUS_OK)
        st = completions(run, in, ctx, v, d);
    return st;
}
