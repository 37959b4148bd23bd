/*
 * expected: the expected step's work and its waterfall (see expected.h):
 * expected_fill sets a rank's load and calls expected_compute.c (GEMMs,
 * attention, elementwise and host work) and expected_comm.c (its
 * collectives by purpose, hidden or exposed, after efficiency); the
 * waterfall replays the terms with the effects switched on one by one.
 *
 * Rules, each an assumption stated where it is used (the compute's and
 * the communication's in their files):
 * - The stack's free factors (stack.h) come last in the waterfall: what a
 *   fit to a measured run adds on top of every measured effect.
 */
#include "expected.h"

#include <math.h>
#include <string.h>

#include "cost.h"
#include "expected_comm.h"
#include "expected_compute.h"
#include "terms.h"

double expected_load_factor(double cv, long ep, long experts)
{
    /* Abramowitz & Stegun 26.2.23: the x with upper tail q (0 < q <= 0.5) */
    static const double c0 = 2.515517, c1 = 0.802853, c2 = 0.010328;
    static const double d1 = 1.432788, d2 = 0.189269, d3 = 0.001308;
    double q, t, z;
    if (cv <= 0 || ep <= 1 || experts < ep)
        return 1;
    q = 0.625 / ((double)ep + 0.25); /* Blom: 1 - (n - 0.375) / (n + 0.25) */
    t = sqrt(-2 * log(q));
    z = t - (c0 + t * (c1 + t * c2)) / (1 + t * (d1 + t * (d2 + t * d3)));
    return 1 + cv * z;
}

void expected_fill(const struct model *m,
                   const struct hardware *hw,
                   const struct calibration *cal,
                   const struct stack *st,
                   const struct plan *p,
                   const struct expected_rank *rk,
                   struct expected_work *x)
{
    memset(x, 0, sizeof *x);
    if (!cal || !st)
        return;
    x->known = true;
    x->compute_overhead = st->spec.compute_overhead;
    x->network_efficiency = st->spec.network_efficiency;
    x->load = expected_load_factor(st->spec.moe_load_cv, p->ep,
                                   m->spec.routed_experts);
    expected_compute_fill(m, hw, cal, st, p, rk, x);
    expected_comm_fill(m, hw, cal, st, p, rk, x);
    {
        const struct cost_work *w = rk->w;
        x->hbm_bytes = w->hbm_bytes;
        x->optimizer_bytes = w->optimizer_bytes;
        x->bubble_coef = w->bubble_coef;
        x->fwd_share = w->fwd_share;
        x->ib_dep_lat = w->ib_dep_lat;
        x->nv_dep_lat = w->nvlink_dep_lat;
        x->ib_sync_lat = w->ib_sync_lat;
        x->nv_sync_lat = w->nvlink_sync_lat;
        x->ib_gather_lat = w->ib_gather_lat;
        x->nv_gather_lat = w->nvlink_gather_lat;
        x->ib_dep_raw = w->ib_dep_bytes;
        x->nv_dep_raw = w->nvlink_dep_bytes;
        x->ib_sync_raw = w->ib_sync_bytes;
        x->nv_sync_raw = w->nvlink_sync_bytes;
        x->ib_gather_raw = w->ib_gather_bytes;
        x->nv_gather_raw = w->nvlink_gather_bytes;
    }
}

/* The all-to-all's bytes `b` taken from the hidden and exposed traffic
 * in the shares it was routed (ep_hidden_share hidden; 1 or 0 but under
 * combined 1F1B, expected_comm.c). */
static void ep_less(double hidden_share, double b, double *hid, double *xp)
{
    if (hidden_share >= 1)
        *hid -= b;
    else if (hidden_share <= 0)
        *xp -= b;
    else {
        *hid -= b * hidden_share;
        *xp -= b * (1 - hidden_share);
    }
}

/* Rate set r (the expected one of w) with the effects from `from` on
 * moved to the speed of light's rates, work and overlaps. */
static void switch_off(const struct cost_work *w,
                       const struct hardware *hw,
                       int from,
                       struct terms_rates *r)
{
    const struct expected_work *x = &w->x;
    /* the loaded rank's share beyond the mean (0: balanced), on each
     * link's all-to-all */
    double extra_ib = x->load_ib > 1 ? 1 - 1 / x->load_ib : 0;
    double extra_nv = x->load_nv > 1 ? 1 - 1 / x->load_nv : 0;
    if (from <= EXPECTED_FACTORS) {
        r->compute_overhead = 1;
        r->ib_bps = hw->ib_bps;
        r->nvlink_bps = hw->nvlink_bps;
    }
    if (from <= EXPECTED_LOAD) { /* every EP rank the mean load */
        r->gemm_s = x->gemm_bal_s;
        r->ew_s = x->ew_bal_s;
        /* the all-to-all's bytes after efficiency scaled to the mean (at
         * the loaded message's efficiency) */
        ep_less(x->ep_hidden_share, x->ep_ib * extra_ib, &r->ib_hid, &r->ib_xp);
        ep_less(x->ep_hidden_share, x->ep_nv * extra_nv, &r->nv_hid, &r->nv_xp);
    }
    if (from <= EXPECTED_GEMM) { /* the stages' balance moves with it */
        r->gemm_s = x->gemm_sol_s;
        r->ramp_skew = x->sol_ramp_skew;
    }
    if (from <= EXPECTED_ATTN)
        r->attn_s = x->attn_sol_s;
    if (from <= EXPECTED_MEMORY) {
        r->ew_s = 0;
        r->hbm_bps = hw->hbm_bps;
    }
    if (from <= EXPECTED_HOST)
        r->host_s = r->host_paced_s = 0;
    if (from <= EXPECTED_CLOCK)
        r->clock = 1;
    if (from <= EXPECTED_NETWORK) {
        r->ib_hid = x->hid_ib_raw;
        r->nv_hid = x->hid_nv_raw;
        r->ib_xp = x->xp_ib_raw;
        r->nv_xp = x->xp_nv_raw;
        ep_less(x->ep_hidden_share, x->ep_ib_raw * extra_ib, &r->ib_hid,
                &r->ib_xp);
        ep_less(x->ep_hidden_share, x->ep_nv_raw * extra_nv, &r->nv_hid,
                &r->nv_xp);
        r->ib_dep = x->ib_dep_raw;
        r->nv_dep = x->nv_dep_raw;
        r->ib_sync = x->ib_sync_raw;
        r->nv_sync = x->nv_sync_raw;
        r->ib_gather = x->ib_gather_raw;
        r->nv_gather = x->nv_gather_raw;
    }
    if (from <= EXPECTED_EXPOSED) { /* everything overlapped, as the SOL */
        r->ib_hid += r->ib_xp;
        r->nv_hid += r->nv_xp;
        r->ib_hid_lat.steps += r->ib_xp_lat.steps;
        r->ib_hid_lat.net += r->ib_xp_lat.net;
        r->nv_hid_lat.steps += r->nv_xp_lat.steps;
        r->nv_hid_lat.net += r->nv_xp_lat.net;
        r->ib_xp = r->nv_xp = 0;
        r->ib_xp_lat = r->nv_xp_lat = (struct comm_lat){0, 0};
        r->grad_hide = r->param_hide = 1;
        r->dp_window_core = true;
    }
}

void expected_waterfall(const struct cost_work *w,
                        const struct hardware *hw,
                        const struct model *m,
                        int precision,
                        double *sol,
                        double step[EXPECTED_EFFECTS])
{
    int k;
    struct cost_times t;
    struct terms_env e = {w, hw, m, precision, &t};
    memset(&t, 0, sizeof t);
    terms_step(&e, &t);
    terms_derived(&e, &t);
    for (k = -1; k < EXPECTED_EFFECTS; k++) {
        struct terms_rates r;
        terms_rates_x(w, hw, &r);
        switch_off(w, hw, k + 1, &r);
        terms_expected(&e, &r, &t);
        if (k < 0)
            *sol = t.expected;
        else
            step[k] = t.expected;
    }
}
