/*
 * fit: the stack's free factors fitted to a measured run, and the
 * leave-one-out table (see fit.h).
 *
 * A run is evaluated once (cost_evaluate picks its critical pipeline rank
 * by the speed of light, which no factor changes); its expected step at
 * any factor value is then cost_times() of the same work with that value
 * in the work's copy of the factor (expected_fill copies the stack's),
 * which is what an evaluation with the factor in the stack would give.
 */
#include "fit.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "figures.h"
#include "validate.h"

/* Bisection halves lo..hi until the midpoint repeats an end: at most
 * about 60 steps on [0.25, 2] in doubles; the cap only guards. */
#define BISECT_MAX 200

/* A run evaluated once: what its expected step at other factor values
 * is computed from. */
struct probe {
    const struct hardware *hw;
    const struct model *m;
    int precision;
    struct cost_work work;
    struct cost_times t; /* with the stack's own factors */
};

/* Why a run has no expected step: "run.key: problem". */
struct why_not {
    const char *key;
    char text[1024];
};

/*
 * Evaluates run's plan on its inputs with stack st into *pr; false with
 * the reason in why (no stack, no calibration, a plan that does not
 * apply), or in d (the context could not be built).
 */
static bool probe_open(const struct validation_run *run,
                       const struct validation_inputs *in,
                       const struct stack *st,
                       enum comm_model comm,
                       struct probe *pr,
                       struct why_not *why,
                       struct diag *d)
{
    struct cost_ctx ctx;
    struct cost_result r;
    struct plan p;
    struct diag pd;
    diag_init(&pd);
    memset(pr, 0, sizeof *pr);
    if (!st) {
        why->key = "stack";
        snprintf(why->text, sizeof why->text,
                 "missing: no stack, so no expected step (the free factors "
                 "are the stack's)");
        return false;
    }
    if (!in->hw->cal) {
        why->key = "hardware";
        diag_snprintf(why->text, sizeof why->text,
                      "no calibration for %.*s in the data directory's "
                      "calibration/ (by the hardware file's name): no "
                      "expected step",
                      diag_utf8_prec(run->hardware_path, 300),
                      run->hardware_path);
        return false;
    }
    if (validate_plan(run, in, &p, &pd) != STATUS_OK) {
        why->key = "plan";
        diag_snprintf(why->text, sizeof why->text, "%s", pd.msg);
        return false;
    }
    if (cost_ctx_init(&ctx, in->m, in->hw, comm, d) != STATUS_OK)
        return false;
    ctx.stack = st;
    if (cost_ctx_prepare_plan(&ctx, &p, d) != STATUS_OK) {
        cost_ctx_release(&ctx);
        return false;
    }
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
    cost_ctx_release(&ctx);
    if (!(isfinite(r.t.expected) && r.t.expected > 0)) {
        /* a fit would stop at a bound on it and apply that (issue 34:
         * compute_overhead = 2 fitted on a NaN step) */
        why->key = "plan";
        snprintf(why->text, sizeof why->text,
                 "its expected step is not a positive finite time: "
                 "nothing to fit (a bug in roofplan's time model: please "
                 "report it with this run file)");
        return false;
    }
    pr->hw = in->hw;
    pr->m = in->m;
    pr->precision = p.precision;
    pr->work = r.work;
    pr->t = r.t;
    return true;
}

/* The run's expected step with factor f at v. */
static double expected_at(const struct probe *pr, enum stack_factor f, double v)
{
    struct cost_work w = pr->work;
    struct cost_times t;
    if (f == STACK_COMPUTE_OVERHEAD)
        w.x.compute_overhead = v;
    else
        w.x.network_efficiency = v;
    cost_times(&w, pr->hw, pr->m, pr->precision, &t);
    return t.expected;
}

/* The factor's value in the probe's work (the stack's). */
static double factor_of(const struct probe *pr, enum stack_factor f)
{
    return f == STACK_COMPUTE_OVERHEAD ? pr->work.x.compute_overhead
                                       : pr->work.x.network_efficiency;
}

/*
 * Value of factor f in lo..hi at which the expected step is `target`:
 * bisection between the bound where the step is shorter (fast) and the
 * one where it is longer (slow); a target outside their steps stops at
 * the nearer bound (*bound -1 for lo, +1 for hi).
 */
static double solve(const struct probe *pr,
                    enum stack_factor f,
                    double lo,
                    double hi,
                    double target,
                    int *bound)
{
    double t_lo = expected_at(pr, f, lo), t_hi = expected_at(pr, f, hi);
    bool rising = t_hi >= t_lo; /* compute_overhead; efficiency falls */
    double fast = rising ? lo : hi, slow = rising ? hi : lo;
    double t_fast = rising ? t_lo : t_hi, t_slow = rising ? t_hi : t_lo;
    int k;
    *bound = 0;
    if (target <= t_fast) {
        *bound = fast == lo ? -1 : 1;
        return fast;
    }
    if (target >= t_slow) {
        *bound = slow == lo ? -1 : 1;
        return slow;
    }
    for (k = 0; k < BISECT_MAX; k++) {
        double mid = fast + (slow - fast) / 2;
        double t = expected_at(pr, f, mid);
        if (mid == fast || mid == slow || t == target)
            return mid;
        if (t < target)
            fast = mid;
        else
            slow = mid;
    }
    return fast + (slow - fast) / 2;
}

enum status fit_run(const struct validation_run *run,
                    const struct validation_inputs *in,
                    enum comm_model comm,
                    struct fit_result *out,
                    struct diag *d)
{
    struct probe pr;
    struct why_not why;
    int f;
    memset(out, 0, sizeof *out);
    diag_snprintf(out->run_name, sizeof out->run_name, "%s", run->name);
    snprintf(out->run_path, sizeof out->run_path, "%s", run->path);
    if (run->measured_step_s <= 0 && run->measured_tflops_per_gpu <= 0)
        return diag_set(d, STATUS_RANGE,
                        "%s: run.step_s: missing: --calibrate needs the "
                        "run's measured step_s or tflops_per_gpu",
                        run->path);
    if (!probe_open(run, in, in->stack, comm, &pr, &why, d)) {
        long line = validation_line(run, why.key);
        if (d->status != STATUS_OK)
            return d->status;
        if (line > 0)
            return diag_set(d, STATUS_RANGE, "%s:%ld: run.%s: %s", run->path,
                            line, why.key, why.text);
        return diag_set(d, STATUS_RANGE, "%s: run.%s: %s", run->path, why.key,
                        why.text);
    }
    diag_snprintf(out->stack_name, sizeof out->stack_name, "%s",
                  in->stack->spec.name);
    out->measured_s = validation_measured_step(run, pr.work.model_flops);
    out->default_s = pr.t.expected;
    /* the factor whose 1% more overhead lengthens the step most */
    out->factor = STACK_COMPUTE_OVERHEAD;
    for (f = 0; f < STACK_FACTORS; f++) {
        enum stack_factor k = (enum stack_factor)f;
        double v = factor_of(&pr, k);
        double moved = k == STACK_COMPUTE_OVERHEAD ? v * 1.01 : v / 1.01;
        out->sensitivity[f] = expected_at(&pr, k, moved) / pr.t.expected - 1;
        if (out->sensitivity[f] > out->sensitivity[out->factor])
            out->factor = k;
    }
    stack_factor_bounds(out->factor, &out->lo, &out->hi);
    out->start = factor_of(&pr, out->factor);
    out->value =
        solve(&pr, out->factor, out->lo, out->hi, out->measured_s, &out->bound);
    out->fitted_s = expected_at(&pr, out->factor, out->value);
    return STATUS_OK;
}

static bool same_file(const char *a, const char *b)
{
    /* realpath() allocates: no buffer to outgrow */
    char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
    bool same = ra && rb && strcmp(ra, rb) == 0;
    free(ra);
    free(rb);
    return same;
}

void fit_result_release(struct fit_result *r)
{
    if (!r)
        return;
    free(r->rows);
    r->rows = NULL;
    r->nrows = 0;
}

enum status fit_transfer(struct fit_result *r,
                         const struct validation_run *runs,
                         const struct validation_inputs *in,
                         size_t n,
                         enum comm_model comm,
                         struct diag *d)
{
    size_t i;
    fit_result_release(r);
    r->rows = calloc(n ? n : 1, sizeof *r->rows); /* a row per run at most */
    if (!r->rows)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    for (i = 0; i < n; i++) {
        struct fit_row *row = &r->rows[r->nrows];
        struct probe pr;
        struct why_not why;
        if (same_file(runs[i].path, r->run_path) ||
            (runs[i].measured_step_s <= 0 &&
             runs[i].measured_tflops_per_gpu <= 0))
            continue;
        memset(row, 0, sizeof *row);
        diag_snprintf(row->name, sizeof row->name, "%s", runs[i].name);
        diag_snprintf(row->path, sizeof row->path, "%s", runs[i].path);
        r->nrows++;
        if (!probe_open(&runs[i], &in[i], in[i].stack, comm, &pr, &why, d)) {
            if (d->status != STATUS_OK)
                return d->status;
            diag_snprintf(row->note, sizeof row->note, "run.%s: %s", why.key,
                          why.text);
            continue;
        }
        row->measured_s =
            validation_measured_step(&runs[i], pr.work.model_flops);
        row->default_s = pr.t.expected;
        row->fitted_s = expected_at(&pr, r->factor, r->value);
    }
    return STATUS_OK;
}

/* What fit_calibrate holds: the run, the data directory's runs, and the
 * inputs of each (large: on the heap). */
struct calibrate_work {
    struct validation_run run;
    struct validation_inputs in;
    bool have_in;
    struct validation_runs runs;
    struct validation_inputs *ins; /* [runs.n]: the first nins loaded */
    size_t nins;
};

enum status fit_calibrate(const char *run_path,
                          const char *data_dir,
                          const char *recipe,
                          enum comm_model comm,
                          const struct model *m,
                          const struct hardware *hw,
                          struct fit_result *out,
                          struct diag *d)
{
    struct calibrate_work *w = calloc(1, sizeof *w);
    size_t i;
    if (!w)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    if (validation_load(run_path, data_dir, &w->run, d) != STATUS_OK ||
        validation_load_inputs(&w->run, recipe, data_dir, m, hw, &w->in, d) !=
            STATUS_OK)
        goto done;
    w->have_in = true;
    if (fit_run(&w->run, &w->in, comm, out, d) != STATUS_OK ||
        validation_load_dir(data_dir, &w->runs, d) != STATUS_OK)
        goto done;
    w->ins = calloc(w->runs.n ? w->runs.n : 1, sizeof *w->ins);
    if (!w->ins) {
        diag_set(d, STATUS_NOMEM, "out of memory");
        goto done;
    }
    for (i = 0; i < w->runs.n; i++) {
        if (validation_load_inputs(&w->runs.run[i], recipe, data_dir, m, hw,
                                   &w->ins[i], d) != STATUS_OK)
            goto done;
        w->nins = i + 1;
    }
    fit_transfer(out, w->runs.run, w->ins, w->runs.n, comm, d);
done:
    for (i = 0; i < w->nins; i++)
        validation_inputs_release(&w->ins[i]);
    free(w->ins);
    validation_runs_release(&w->runs);
    if (w->have_in)
        validation_inputs_release(&w->in);
    free(w);
    return d->status;
}

enum status
fit_apply(const struct fit_result *r, struct stack *s, struct diag *d)
{
    long i = datafile_field_index(stack_schema(), "stack",
                                  stack_factor_key(r->factor));
    char src[1600];
    size_t n;
    stack_factor_set(&s->spec, r->factor, r->value);
    n = (size_t)snprintf(src, sizeof src,
                         "fitted by --calibrate to %s (%s): measured %.4g "
                         "s/step, expected %.4g s with the stack's factors%s",
                         r->run_name, r->run_path, r->measured_s, r->default_s,
                         r->bound ? "; stopped at a bound" : "");
    free(s->meta.source[i]);
    s->meta.source[i] = malloc(n + 1);
    if (!s->meta.source[i])
        return diag_set(d, STATUS_NOMEM, "out of memory");
    memcpy(s->meta.source[i], src, n + 1);
    s->meta.given[i] = true;
    s->meta.line[i] = 0;
    free(s->meta.set_arg[i]); /* a --set of it is replaced */
    s->meta.set_arg[i] = NULL;
    return STATUS_OK;
}

/* Error of expected x against measured m, percent. */
static double pct(double x, double m)
{
    return 100 * (x / m - 1);
}

void fit_write_text(const struct fit_result *r,
                    const struct stack *applied,
                    FILE *out)
{
    const char *key = stack_factor_key(r->factor);
    double sum_before = 0, sum_after = 0;
    size_t i, counted = 0;
    fprintf(out, "calibrate: %s (%s), stack %s\n", r->run_name, r->run_path,
            r->stack_name);
    fprintf(out, "  step growth for 1%% more overhead:");
    for (i = 0; i < STACK_FACTORS; i++)
        fprintf(out, "%s %s %+.2f%%", i ? "," : "",
                stack_factor_key((enum stack_factor)i),
                100 * r->sensitivity[i]);
    fprintf(out, " (fits %s)\n", key);
    fprintf(out, "  fitted %s = %.4f (bounds %g..%g", key, r->value, r->lo,
            r->hi);
    if (r->bound == 0)
        fprintf(out, ", inside)\n");
    else if (r->fitted_s >= r->measured_s)
        /* stopped at the least-overhead end (the fast one), whatever the
         * stack's own value: the measured step is shorter than it allows */
        fprintf(out,
                "; BOUND HIT at %g: with the least overhead the expected "
                "step is already %.1f%% above the measured)\n",
                r->value, pct(r->fitted_s, r->measured_s));
    else
        fprintf(out,
                "; BOUND HIT at %g: with the most overhead the expected "
                "step is still %.1f%% below the measured)\n",
                r->value, -pct(r->fitted_s, r->measured_s));
    fprintf(out,
            "  measured %.3f s/step; expected %.3f s with the stack's "
            "factors (%+.1f%%), %.3f s fitted (residual %+.2f%%)\n",
            r->measured_s, r->default_s, pct(r->default_s, r->measured_s),
            r->fitted_s, pct(r->fitted_s, r->measured_s));
    fprintf(out,
            "\nleave-one-out: the other measured runs, each on its own "
            "inputs and stack, with its stack's %s and with the fitted one\n",
            key);
    fprintf(out, "  %-48s %9s %9s %7s %9s %7s\n", "run", "measured", "expected",
            "error", "fitted", "error");
    for (i = 0; i < r->nrows; i++) {
        const struct fit_row *w = &r->rows[i];
        if (w->default_s <= 0) {
            fprintf(out, "  %-48.*s %s\n", diag_utf8_prec(w->name, 48), w->name,
                    w->note);
            continue;
        }
        fprintf(out, "  %-48.*s %9.3f %9.3f %+6.1f%% %9.3f %+6.1f%%\n",
                diag_utf8_prec(w->name, 48), w->name, w->measured_s,
                w->default_s, pct(w->default_s, w->measured_s), w->fitted_s,
                pct(w->fitted_s, w->measured_s));
        sum_before += fabs(pct(w->default_s, w->measured_s));
        sum_after += fabs(pct(w->fitted_s, w->measured_s));
        counted++;
    }
    if (counted > 0)
        fprintf(out, "  %-48s %9s %9s %6.1f%% %9s %6.1f%%\n", "mean |error|",
                "", "", sum_before / (double)counted, "",
                sum_after / (double)counted);
    else
        fprintf(out, "  (no other measured run with an expected step)\n");
    if (applied)
        fprintf(out, "  every plan below runs stack %s with %s = %.4f\n\n",
                applied->spec.name, key, r->value);
}
