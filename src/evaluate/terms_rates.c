/*
 * terms_rates: the two rate sets the term family is evaluated under (see
 * terms.h, struct terms_rates): the speed of light's achievable peaks
 * and ideal overlap, and the expected step's calibrated rates, the
 * stack's overlaps and the work after the network's efficiency. What a
 * template names for each (SOL_* and EXP_*) sits beside the terms in
 * terms.c.
 */
#include "terms.h"

#include <string.h>

#include "calibration.h"
#include "cost_work.h"
#include "terms_family.h"

double terms_sol_compute(const struct hardware *hw,
                         double bf16_flops,
                         double fp8_flops)
{
    /* every FLOP at the achievable rates (attention and elementwise
     * work included in the FLOPs), at the burst clock the rates state */
    return bf16_flops / hw->bf16_flops +
           (fp8_flops > 0 ? fp8_flops / hw->fp8_flops : 0);
}

void terms_rates_sol_compute(const struct cost_work *w,
                             const struct hardware *hw,
                             struct terms_rates *r)
{
    r->gemm_s = terms_sol_compute(hw, w->bf16_flops, w->fp8_flops);
    r->attn_s = r->ew_s = r->host_s = r->host_paced_s = r->burst_s = 0;
    r->clock = r->compute_overhead = 1;
}

void terms_rates_sol_work(const struct cost_work *w,
                          const struct hardware *hw,
                          struct terms_rates *r)
{
    r->hbm_bps = hw->hbm_bps;
    r->ramp_skew = w->ramp_skew;
    r->hbm_bytes = w->hbm_bytes;
    r->optimizer_bytes = w->optimizer_bytes;
    r->bubble_coef = w->bubble_coef;
    r->fwd_share = w->fwd_share;
}

void terms_rates_sol(const struct cost_work *w,
                     const struct hardware *hw,
                     struct terms_rates *r)
{
    /* every field is set: no memset (this runs several times per rank) */
    terms_rates_sol_compute(w, hw, r);
    terms_rates_sol_work(w, hw, r);
    r->ib_xp = r->nv_xp = 0;
    r->ib_xp_lat = r->nv_xp_lat = (struct comm_lat){0, 0};
    r->ib_bps = hw->ib_bps;
    r->nvlink_bps = hw->nvlink_bps;
    /* ideal overlap: every steady byte hidden, the step-end collectives
     * under one micro-batch each */
    r->ib_hid = w->ib_steady_bytes;
    r->ib_hid_lat = w->ib_steady_lat;
    r->nv_hid = w->nvlink_steady_bytes;
    r->nv_hid_lat = w->nvlink_steady_lat;
    r->ib_dep = w->ib_dep_bytes;
    r->nv_dep = w->nvlink_dep_bytes;
    r->ib_sync = w->ib_sync_bytes;
    r->nv_sync = w->nvlink_sync_bytes;
    r->ib_gather = w->ib_gather_bytes;
    r->nv_gather = w->nvlink_gather_bytes;
    r->grad_hide = r->param_hide = 1;
    r->dp_window_core = true;
    r->ib_dep_lat = w->ib_dep_lat;
    r->nv_dep_lat = w->nvlink_dep_lat;
    r->ib_sync_lat = w->ib_sync_lat;
    r->nv_sync_lat = w->nvlink_sync_lat;
    r->ib_gather_lat = w->ib_gather_lat;
    r->nv_gather_lat = w->nvlink_gather_lat;
}

void terms_rates_x(const struct cost_work *w,
                   const struct hardware *hw,
                   struct terms_rates *r)
{
    const struct expected_work *x = &w->x;
    memset(r, 0, sizeof *r);
    r->gemm_s = x->gemm_cal_s;
    r->attn_s = x->attn_cal_s;
    r->ew_s = x->ew_s;
    /* the per-expert host work is the host's and is waited for */
    r->host_s = x->host_s + x->expert_host_s;
    r->host_paced_s = x->host_paced_s + x->expert_host_s;
    r->clock = hw->cal ? calibration_clock_factor(hw->cal) : 1;
    r->burst_s = hw->cal ? calibration_burst_s(hw->cal) : 0;
    r->compute_overhead = x->compute_overhead;
    r->ib_bps = hw->ib_bps * x->network_efficiency;
    r->nvlink_bps = hw->nvlink_bps * x->network_efficiency;
    r->hbm_bps = hw->hbm_bps;
    if (hw->cal &&
        calibration_elementwise_tbps(hw->cal, CALIBRATION_EW_COPY) * 1e12 <
            hw->hbm_bps)
        r->hbm_bps =
            calibration_elementwise_tbps(hw->cal, CALIBRATION_EW_COPY) * 1e12;
    r->ib_hid = x->hid_ib;
    r->ib_hid_lat = x->hid_ib_lat;
    r->nv_hid = x->hid_nv;
    r->nv_hid_lat = x->hid_nv_lat;
    r->ib_xp = x->xp_ib;
    r->ib_xp_lat = x->xp_ib_lat;
    r->nv_xp = x->xp_nv;
    r->nv_xp_lat = x->xp_nv_lat;
    r->ib_dep = x->dep_ib;
    r->nv_dep = x->dep_nv;
    r->ib_sync = x->sync_ib;
    r->nv_sync = x->sync_nv;
    r->ib_gather = x->gather_ib;
    r->nv_gather = x->gather_nv;
    r->grad_hide = x->grad_hide;
    r->param_hide = x->param_hide;
    r->ramp_skew = x->ramp_skew;
    r->hbm_bytes = x->hbm_bytes;
    r->optimizer_bytes = x->optimizer_bytes;
    r->bubble_coef = x->bubble_coef;
    r->fwd_share = x->fwd_share;
    r->ib_dep_lat = x->ib_dep_lat;
    r->nv_dep_lat = x->nv_dep_lat;
    r->ib_sync_lat = x->ib_sync_lat;
    r->nv_sync_lat = x->nv_sync_lat;
    r->ib_gather_lat = x->ib_gather_lat;
    r->nv_gather_lat = x->nv_gather_lat;
}
