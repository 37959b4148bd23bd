/*
 * terms_family: the term family's slots and evaluation, shared by the
 * files of the terms module and by nothing else: terms.c writes each
 * family term once (its C function beside its template) and the
 * registry; terms_step.c evaluates the family for each caller (the
 * sweep's step, a rank's ramp and re-step, the expected step, the
 * bounds); terms_rates.c fills the rate sets it is evaluated under.
 */
#ifndef PROJ_TERMS_FAMILY_H
#define PROJ_TERMS_FAMILY_H

#include "terms.h"

/*
 * The terms both rate sets evaluate (enum terms_fam), in an order where each
 * reads only earlier ones. A term's C function reads the set's rates and
 * work (struct terms_rates) and the set's earlier terms (v[]); its
 * template, a macro of the set's prefix (SOL or EXP), reads the set's
 * names below and is instantiated once per set in the registry.
 */
enum terms_fam {
    TERMS_F_COMPUTE,
    TERMS_F_HBM,
    TERMS_F_OPTIMIZER,
    TERMS_F_SYNC,
    TERMS_F_GATHER,
    TERMS_F_IB_HID,
    TERMS_F_NV_HID,
    TERMS_F_COMM_SM,
    TERMS_F_OFFLOAD,
    TERMS_F_EXPOSED,
    TERMS_F_CORE,
    TERMS_F_RAMP,
    TERMS_F_BUBBLE,
    TERMS_F_DP,
    TERMS_F_STEP,
    TERMS_F_TPS,
    TERMS_F_MFU,
    TERMS_F_DAYS,
    TERMS_F_COST,
    TERMS_F_COUNT
};

/*
 * Evaluates family terms from .. to-1 under rate set r into set `set`'s
 * terms of t (enum terms_set), reading the earlier ones from t.
 */
void terms_family_eval(const struct terms_env *e,
                       const struct terms_rates *r,
                       int set,
                       struct cost_times *t,
                       int from,
                       int to);

/* Family term f (enum terms_fam) under rate set r, reading the earlier
 * ones from v[] (indexed by enum terms_fam). */
double terms_family_term(int f,
                         const struct terms_env *e,
                         const struct terms_rates *r,
                         const double *v);

/* The speed of light's own link terms of e->w: t's ib, nvlink (every
 * collective) and ep (the MoE all-to-all alone). */
void terms_family_sol_links(const struct terms_env *e, struct cost_times *t);

/* The speed of light's own terms after the step (serial step, ratio, MFU
 * of the BF16 peak, GPU-hours), reading e->t. */
void terms_family_sol_own(const struct terms_env *e, struct cost_times *t);

/* The speed of light's compute rates (what the compute term reads) for
 * work w: every FLOP at the achievable rates as GEMM time. */
void terms_rates_sol_compute(const struct cost_work *w,
                             const struct hardware *hw,
                             struct terms_rates *r);

/* The speed of light's HBM rate and the rank's own work (what the HBM,
 * optimizer and bubble terms read). */
void terms_rates_sol_work(const struct cost_work *w,
                          const struct hardware *hw,
                          struct terms_rates *r);

#endif
