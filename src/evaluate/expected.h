/*
 * expected: the work the expected step reads beyond the speed of light's
 * — a plan's GEMMs timed at the measured rates of their shapes, the
 * attention kernels at theirs, the elementwise and loss traffic at the
 * measured bandwidths, and its communication split by what the stack
 * (the training framework) overlaps, in bytes after the network's
 * efficiency at the plan's message sizes — and the waterfall from the
 * speed of light to the expected step, one effect at a time.
 *
 * The expected step itself is a set of terms in terms.c (C beside the
 * workbook's formulas); this module fills their work (cost.c calls it for
 * each pipeline rank it evaluates) and replays the terms with the effects
 * switched on one by one. Part of the evaluate stage; calls calibration
 * and stack lookups, terms.
 */
#ifndef PROJ_EXPECTED_H
#define PROJ_EXPECTED_H

#include <stdbool.h>
#include <stddef.h>

#include "calibration.h"
#include "comm.h"
#include "cost_work.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "result.h"
#include "stack.h"

/*
 * The most loaded of `ep` expert-parallel ranks' routed tokens over the
 * mean, where one rank's tokens per micro-batch vary with coefficient of
 * variation cv (the stack's moe_load_cv, measured at one EP size and
 * taken as the same at any: no source gives its dependence on the
 * experts a rank holds): the largest of ep such loads lies z(ep) standard
 * deviations above the mean, 1 + cv z(ep), z(n) the expected maximum of n
 * standard normal draws (Blom 1958's Phi^-1((n - 0.375) / (n + 0.25)),
 * Phi^-1 by Abramowitz & Stegun 26.2.23: within 0.6% of the exact z for
 * n >= 8, 4.4% at n = 2). 1 where cv is 0, ep is 1 or there are fewer
 * routed experts than ranks (none: a dense model).
 */
double expected_load_factor(double cv, long ep, long experts);

/*
 * The calibration's lookups one plan's ranks share (its GEMMs' M and its
 * messages' sizes repeat from rank to rank): each GEMM kind's rate at its
 * M, each link and collective's efficiency at the last sizes asked. Valid
 * for one calibration and cluster: zero it for each plan (cost_evaluate
 * does).
 */
#define EXPECTED_MEMO_SIZES 4
struct expected_memo {
    struct {
        double m_rows, rate; /* rate 0: not looked up */
    } gemm[MODEL_GEMMS][2];  /* [kind][FP8] */
    struct {
        double bytes[EXPECTED_MEMO_SIZES], eff[EXPECTED_MEMO_SIZES];
        size_t n, next;
    } net[CALIBRATION_LINK_COUNT][CALIBRATION_COLLECTIVE_COUNT];
    long attn_cp;     /* the cp attn_time was found for; 0: none */
    double attn_time; /* attention's time over the measured rates' */
};

/* What one pipeline rank runs per step, as cost.c sees it. */
struct expected_rank {
    const struct model_chunk *c; /* the rank's chunks, summed */
    double tokens;               /* per micro-batch per chunk on this GPU */
    double microbatches;         /* per chunk per step */
    const struct comm_totals *ct;
    const struct cost_work *w;  /* its speed-of-light work, filled */
    struct expected_memo *memo; /* the plan's lookups, or NULL */
    long rank;                  /* its pipeline rank (0: the first) */
};

/*
 * Fills x for one rank of plan p (which passed plan_check()) on model m
 * and cluster hw, with calibration cal and stack st (either NULL: x->known
 * false, nothing else set). Allocates nothing.
 */
void expected_fill(const struct model *m,
                   const struct hardware *hw,
                   const struct calibration *cal,
                   const struct stack *st,
                   const struct plan *p,
                   const struct expected_rank *rk,
                   struct expected_work *x);

/*
 * The waterfall of an evaluated plan (t from cost_times with w): the step
 * with effects 0..k on, for each k, into step[k] (step[EXPECTED_EFFECTS-1]
 * is t->expected); sol receives the step with none on (the speed of
 * light's composition of the same work). Needs w->x.known.
 */
void expected_waterfall(const struct cost_work *w,
                        const struct hardware *hw,
                        const struct model *m,
                        int precision,
                        double *sol,
                        double step[EXPECTED_EFFECTS]);

#endif
