/*
 * goodput: failures, checkpoints and energy over a plan's compute days
 * (see goodput.h for the model and its sources).
 */
#include "goodput.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

void goodput_of(const struct model *m,
                const struct hardware *hw,
                double gpus,
                struct goodput *g)
{
    const struct model_spec *s = &m->spec;
    const struct hardware_spec *h = &hw->spec;
    double params = m->params_total + m->params_mtp;
    double tau, delta_h, restart_h;

    memset(g, 0, sizeof *g);
    g->gpus = gpus;
    g->checkpoint_gb =
        params * (s->weight_bytes + s->master_bytes + 2 * s->moment_bytes) /
        1e9;
    g->energy = h->node_w > 0 || h->board_w > 0;
    g->gpu_w =
        h->node_w > 0 ? h->node_w / (double)h->gpus_per_node : h->board_w;
    g->share = 1;
    g->write_s = h->storage_gbps > 0 ? g->checkpoint_gb / h->storage_gbps : 0;
    /* the read back at the same bandwidth, then the job's own start */
    g->restart_s = h->restart_min * 60 + g->write_s;
    g->failures = h->failures_per_mgpu_hour > 0 && h->storage_gbps > 0;
    if (!g->failures)
        return;
    g->failures_per_h = h->failures_per_mgpu_hour * gpus / 1e6;
    g->mtbf_h = 1 / g->failures_per_h;
    delta_h = g->write_s / 3600;
    restart_h = g->restart_s / 3600;
    /* Daly 2006, first order: sqrt(2 delta (R + M)) */
    tau = sqrt(2 * delta_h * (restart_h + g->mtbf_h));
    g->interval_s = tau * 3600;
    g->share =
        tau > 0 ? (1 - g->failures_per_h * (restart_h + (tau + delta_h) / 2)) /
                      (1 + delta_h / tau)
                : 1 - g->failures_per_h * restart_h;
}

double goodput_wall_days(const struct goodput *g, double compute_days)
{
    return g->share > 0 ? compute_days / g->share : 0;
}

void goodput_losses_of(const struct goodput *g,
                       double compute_days,
                       struct goodput_losses *l)
{
    memset(l, 0, sizeof *l);
    l->wall = goodput_wall_days(g, compute_days);
    if (!(l->wall > 0))
        return;
    l->compute = compute_days;
    if (!g->failures) /* share 1: no loss */
        return;
    l->checkpoints =
        g->interval_s > 0 ? compute_days * g->write_s / g->interval_s : 0;
    l->restarts = l->wall * g->failures_per_h * g->restart_s / 3600;
    /* lambda W (tau + delta)/2 by the model; the remainder, so that the
     * steps sum to W */
    l->lost_work = l->wall - l->compute - l->checkpoints - l->restarts;
}

/* v rounded to one decimal, as "%.1f" shows it */
static double tenth(double v)
{
    return round(v * 10) / 10;
}

void goodput_losses_shown(const struct goodput_losses *l, double shown[5])
{
    double run[5], total = 0;
    const double step[4] = {l->compute, l->checkpoints, l->restarts,
                            l->lost_work};
    int k;
    for (k = 0; k < 4; k++) {
        total += step[k];
        run[k] = tenth(total);
    }
    run[3] = tenth(l->wall); /* the sum is the wall-clock days */
    for (k = 0; k < 4; k++)
        shown[k] = run[k] - (k ? run[k - 1] : 0);
    shown[4] = run[3];
}

void goodput_losses_words(const struct goodput_losses *l,
                          char *buf,
                          size_t size)
{
    double s[5];
    goodput_losses_shown(l, s);
    snprintf(buf, size,
             "%.1f compute + %.1f checkpoint writes + %.1f restarts and "
             "read-back + %.1f work lost to failures = %.1f wall-clock days",
             s[0], s[1], s[2], s[3], s[4]);
}

double goodput_energy_mwh(const struct goodput *g,
                          const struct hardware *hw,
                          double days)
{
    return days * 24 * g->gpus * g->gpu_w * hw->spec.pue / 1e6;
}

double goodput_step_kwh(const struct goodput *g,
                        const struct hardware *hw,
                        double step_s)
{
    return step_s / 3600 * g->gpus * g->gpu_w * hw->spec.pue / 1e3;
}

double goodput_tco2e(const struct hardware *hw, double mwh)
{
    /* kg per kWh is tonnes per MWh */
    return mwh * hw->spec.grid_kg_per_kwh;
}

void goodput_headline(const struct views *r, struct goodput_figures *f)
{
    const struct views_headline *h = &r->headline;
    const struct views_cost *c = h->has_expected ? &h->expected : &h->sol;
    double usd_day;
    memset(f, 0, sizeof *f);
    if (!h->any)
        return;
    goodput_of(r->in->m, r->in->hw, (double)h->plan.plan.gpus, &f->g);
    f->step_s = c->step_s;
    f->days = c->days;
    f->wall_days = goodput_wall_days(&f->g, c->days);
    f->range = h->has_expected && h->has_range;
    f->days_lo = f->range ? c->days * h->range_lo : c->days;
    f->days_hi = f->range ? c->days * h->range_hi : c->days;
    f->wall_lo = f->range ? goodput_wall_days(&f->g, c->days * h->range_lo) : 0;
    f->wall_hi = f->range ? goodput_wall_days(&f->g, c->days * h->range_hi) : 0;
    usd_day = 24 * f->g.gpus * r->in->hw->spec.gpu_hour_usd;
    f->wall_cost = f->wall_days * usd_day;
    f->wall_cost_lo = f->wall_lo * usd_day;
    f->wall_cost_hi = f->wall_hi * usd_day;
    f->mwh = goodput_energy_mwh(&f->g, r->in->hw, f->wall_days);
    f->step_kwh = goodput_step_kwh(&f->g, r->in->hw, c->step_s);
    f->tco2e = goodput_tco2e(r->in->hw, f->mwh);
}
