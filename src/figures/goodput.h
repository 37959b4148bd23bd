/*
 * goodput: what failures, checkpoints and power add to a plan's compute
 * days — the wall-clock days, their cost, the energy and its emissions —
 * from the hardware file's reliability, storage and power inputs and the
 * model's training state. Closed-form arithmetic over inputs a run has
 * already read (no plan is timed here): the figures stage and the
 * writers call it with the compute days rank gave a plan.
 *
 * The model (Young 1974, "A first order approximation to the optimum
 * checkpoint interval", CACM 17(9); Daly 2006, "A higher order estimate of
 * the optimum checkpoint interval for restart dumps", FGCS 22(3)): a job
 * of N GPUs fails at rate lambda = N x failures per GPU-hour (failures
 * independent, so the job's rate is the sum of its GPUs': the linear
 * model of Kokolis et al. 2024, arXiv 2410.21680, whose MTTF falls as
 * 1/N); a checkpoint of the weights and optimizer state takes delta =
 * bytes / storage bandwidth to write and as long to read back; a restart
 * takes R = the restart time + delta. Daly's first-order optimum interval
 * between checkpoints is tau = sqrt(2 delta (R + M)), M = 1/lambda (Young's
 * sqrt(2 delta M) with the restart counted). Each checkpoint adds delta to
 * each tau of compute; each failure loses R and on average half an
 * interval and its checkpoint, (tau + delta)/2. So wall-clock time W for
 * compute time C is W = C (1 + delta/tau) + lambda W (R + (tau + delta)/2),
 * and the effective-training share C/W is
 *
 *   share = (1 - lambda (R + (tau + delta)/2)) / (1 + delta/tau).
 *
 * Energy counts every GPU-hour of the wall-clock days at the node's power
 * per GPU (the host, NICs and fans with it; the board power where the
 * file gives no node power) times the data centre's PUE; its emissions are
 * that energy times the grid's location-based intensity (kg CO2e per
 * kWh), the way Llama 3's model card reports "location-based greenhouse
 * gas emissions" (GPU-hours x power x intensity).
 */
#ifndef PROJ_GOODPUT_H
#define PROJ_GOODPUT_H

#include <stdbool.h>
#include <stddef.h>

#include "hardware.h"
#include "model.h"
#include "views.h"

struct goodput {
    bool failures;         /* the hardware file gives a failure rate */
    double gpus;           /* the job's GPUs */
    double checkpoint_gb;  /* weights + optimizer state, GB (1e9 B) */
    double write_s;        /* delta: one checkpoint's write, s */
    double restart_s;      /* R: restart, the checkpoint's read included, s */
    double failures_per_h; /* lambda: the job's failures per hour */
    double mtbf_h;         /* M = 1/lambda, h; 0 without failures */
    double interval_s;     /* tau, Daly's first order, s; 0: none */
    double share;          /* effective-training share, 0..1; <= 0: the job
                              fails faster than it recovers */
    bool energy;           /* the hardware file gives a power */
    double gpu_w;          /* power per GPU at the wall's side of the PUE:
                              node_w / gpus_per_node, else board_w */
};

/*
 * Fills g for a job of `gpus` GPUs training model m on hardware hw (its
 * spec's failure rate, storage bandwidth, restart time and power). The
 * checkpoint is the whole model's weights (weight_bytes each) and
 * optimizer state (master_bytes + 2 moment_bytes each), MTP included: the
 * memory model's bytes per parameter, counted once. Without a failure
 * rate, share is 1 and the interval 0.
 */
void goodput_of(const struct model *m,
                const struct hardware *hw,
                double gpus,
                struct goodput *g);

/* Wall-clock days for `compute_days` of training under g: compute_days /
 * share; 0 when share <= 0 (the job never finishes). */
double goodput_wall_days(const struct goodput *g, double compute_days);

/* Energy of `days` wall-clock days on g's GPUs at hw's PUE, MWh (0 without
 * a power in the hardware file). */
double goodput_energy_mwh(const struct goodput *g,
                          const struct hardware *hw,
                          double days);

/* Energy of one step of `step_s` seconds on g's GPUs at hw's PUE, kWh. */
double goodput_step_kwh(const struct goodput *g,
                        const struct hardware *hw,
                        double step_s);

/* Emissions of `mwh`, tonnes CO2e, at hw's grid intensity (0 when the file
 * gives none). */
double goodput_tco2e(const struct hardware *hw, double mwh);

/*
 * The days by loss, from compute days to wall-clock days: W = C + C
 * delta/tau (each interval's checkpoint write) + lambda W R (each
 * failure's restart and read-back) + lambda W (tau + delta)/2 (each
 * failure's lost work: half an interval and its checkpoint, on average),
 * the wall-clock equation of the model above split term by term. The
 * lost work is taken as what remains, so the steps sum to `wall`.
 */
struct goodput_losses {
    double compute;     /* C, days */
    double checkpoints; /* the checkpoint writes, days */
    double restarts;    /* the restarts, the checkpoint's read included */
    double lost_work;   /* work redone after failures, days */
    double wall;        /* W = goodput_wall_days(C); all 0 when W is 0 */
};

/* Fills l for `compute_days` under g (no failure rate: every loss 0). */
void goodput_losses_of(const struct goodput *g,
                       double compute_days,
                       struct goodput_losses *l);

/* The steps of l as shown to a tenth of a day: compute, checkpoint
 * writes, restarts, lost work, wall-clock; each step the difference of
 * its running totals rounded (round half away from zero, as Excel's
 * ROUND), so shown[0..3] add up to shown[4], the wall-clock days
 * rounded. */
void goodput_losses_shown(const struct goodput_losses *l, double shown[5]);

/* Room for goodput_losses_words's sentence. */
#define GOODPUT_LOSSES_TEXT 200

/*
 * l in words, goodput_losses_shown's steps, so that the steps shown add
 * up to the wall-clock days shown: "48.0 compute + 0.6 checkpoint writes + 1.3
 * restarts and read-back + 2.1 work lost to failures = 52.0 wall-clock days".
 */
void goodput_losses_words(const struct goodput_losses *l,
                          char *buf,
                          size_t size);

/* The recommended plan's figures under goodput (what the Summary, the
 * card and stdout show): its days (expected where it has them, else the
 * speed of light's) as compute days and as wall-clock days, with the
 * range where the headline has one, their cost, energy and emissions. */
struct goodput_figures {
    struct goodput g;
    double step_s;                      /* its step, s */
    double days;                        /* compute days */
    double days_lo, days_hi;            /* compute; = days without range */
    double wall_days, wall_lo, wall_hi; /* wall-clock; lo/hi with range */
    bool range;
    double wall_cost, wall_cost_lo, wall_cost_hi; /* USD */
    double mwh, step_kwh, tco2e;
};

/* Fills f from r's headline (nothing but zeros when !r->headline.any). */
void goodput_headline(const struct views *r, struct goodput_figures *f);

#endif
