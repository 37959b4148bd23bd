/*
 * terms_step: which of the family's terms each caller evaluates, and in
 * what order (see terms.h): the sweep's step (terms_step, the hot path),
 * what follows from it (terms_derived), a pipeline rank's ramp and its
 * re-step once the other ranks' ramps are known (terms_ramp,
 * terms_restep), the expected step (terms_expected_step,
 * terms_expected), and the sweep's lower bounds built from the same
 * terms (terms_step_floors, terms_step_floor).
 */
#include "terms.h"

#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "cost_work.h"
#include "terms_family.h"

/* terms_step's terms up to family term `to` (exclusive). */
static void step_sol(const struct terms_env *e, struct cost_times *t, int to)
{
    struct terms_rates r;
    terms_rates_sol(e->w, e->hw, &r);
    terms_family_sol_links(e, t);
    terms_family_eval(e, &r, TERMS_SOL, t, 0, to);
    terms_core(t->compute + t->comm_sm + t->offload, t->ib_steady,
               t->nvlink_steady, t->hbm, &t->bound);
}

void terms_step(const struct terms_env *e, struct cost_times *t)
{
    step_sol(e, t, TERMS_F_TPS);
}

void terms_ramp(const struct terms_env *e,
                enum terms_set set,
                struct cost_times *t)
{
    struct terms_rates r;
    if (set == TERMS_SOL) {
        step_sol(e, t, TERMS_F_BUBBLE);
    } else if (e->w->x.known) {
        terms_rates_x(e->w, e->hw, &r);
        terms_family_eval(e, &r, TERMS_X, t, 0, TERMS_F_BUBBLE);
    }
}

void terms_derived(const struct terms_env *e, struct cost_times *t)
{
    struct terms_rates r;
    terms_rates_sol(e->w, e->hw, &r);
    terms_family_eval(e, &r, TERMS_SOL, t, TERMS_F_TPS, TERMS_F_COUNT);
    terms_family_sol_own(e, t);
}

void terms_expected_step(const struct terms_env *e, struct cost_times *t)
{
    struct terms_rates r;
    if (!e->w->x.known)
        return;
    terms_rates_x(e->w, e->hw, &r);
    terms_family_eval(e, &r, TERMS_X, t, 0, TERMS_F_TPS);
}

void terms_restep(const struct terms_env *e,
                  enum terms_set set,
                  struct cost_times *t)
{
    struct terms_rates r;
    if (set == TERMS_SOL) {
        terms_rates_sol(e->w, e->hw, &r);
        terms_family_eval(e, &r, TERMS_SOL, t, TERMS_F_BUBBLE, TERMS_F_TPS);
    } else if (e->w->x.known) {
        terms_rates_x(e->w, e->hw, &r);
        terms_family_eval(e, &r, TERMS_X, t, TERMS_F_BUBBLE, TERMS_F_TPS);
    }
}

bool terms_step_floors(const struct hardware *hw,
                       const struct cost_flops *const *f,
                       const double *like,
                       size_t n,
                       double microbatches,
                       struct terms_floor *out)
{
    struct cost_work w;
    struct terms_env e = {&w, hw, NULL, MODEL_BF16, NULL};
    struct terms_rates r;
    double v[TERMS_F_COUNT] = {0}, sum = 0, count = 0;
    size_t k;
    memset(&w, 0, sizeof w);
    w.microbatches = microbatches;
    for (k = 0; k < n; k++) { /* compute and optimizer: no skew read */
        if (!(f[k]->bubble_coef >= 0))
            return false;
        w.fp8_flops = f[k]->fp8;
        w.bf16_flops = f[k]->bf16;
        w.optimizer_bytes = f[k]->optimizer_bytes;
        terms_rates_sol_compute(&w, hw, &r);
        terms_rates_sol_work(&w, hw, &r);
        out[k].compute = terms_family_term(TERMS_F_COMPUTE, &e, &r, v);
        out[k].optimizer = terms_family_term(TERMS_F_OPTIMIZER, &e, &r, v);
        sum += like[k] * out[k].compute;
        count += like[k];
    }
    for (k = 0; k < n; k++) {
        double c = out[k].compute;
        /* the other ranks' mean ramp, at least their mean compute (a
         * ramp is at least its compute), over which the bubble is the
         * coefficient's share at no skew (cost_ramp_skew) */
        out[k].ramp = count > 1 && c > 0 ? (sum - c) / (count - 1) : c;
        w.bubble_coef = f[k]->bubble_coef;
        terms_rates_sol_work(&w, hw, &r);
        v[TERMS_F_RAMP] = out[k].ramp;
        v[TERMS_F_BUBBLE] = terms_family_term(TERMS_F_BUBBLE, &e, &r, v);
        v[TERMS_F_OPTIMIZER] = out[k].optimizer;
        v[TERMS_F_CORE] = c; /* the core is a max over compute */
        v[TERMS_F_DP] = 0;   /* exposed DP is at least 0 */
        out[k].step = terms_family_term(TERMS_F_STEP, &e, &r, v);
    }
    return true;
}

double terms_step_floor(const struct terms_env *e, double ramp)
{
    struct terms_rates r;
    struct cost_times t;
    struct terms_env own = *e;
    double v[TERMS_F_COUNT] = {0};
    own.t = &t;
    step_sol(&own, &t, TERMS_F_TPS); /* (writes every term it reads) */
    v[TERMS_F_OPTIMIZER] = t.optimizer;
    v[TERMS_F_CORE] = t.core;
    v[TERMS_F_DP] = t.dp_exposed;
    terms_rates_sol_work(e->w, e->hw, &r);
    r.ramp_skew = 0; /* ramp is the others' mean already */
    v[TERMS_F_RAMP] = ramp;
    v[TERMS_F_BUBBLE] = terms_family_term(TERMS_F_BUBBLE, e, &r, v);
    return terms_family_term(TERMS_F_STEP, e, &r, v);
}

void terms_expected(const struct terms_env *e,
                    const struct terms_rates *r,
                    struct cost_times *t)
{
    struct terms_rates own;
    if (!e->w->x.known)
        return;
    if (!r) {
        terms_rates_x(e->w, e->hw, &own);
        r = &own;
    }
    terms_family_eval(e, r, TERMS_X, t, 0, TERMS_F_COUNT);
}
