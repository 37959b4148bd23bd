/*
 * sweep: the plan space of a sweep file ([space]: a list per dimension),
 * the defaults `roofplan eval` takes for keys a PLAN leaves out
 * ([defaults]), and what a report of the space shows ([report]: the
 * baseline family, the sensitivity grids, the memory headroom, ties and
 * the Plans sheet's length). Enumeration lives here too; ranking is
 * rank.c's.
 */
#ifndef PROJ_SWEEP_H
#define PROJ_SWEEP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datafile.h"
#include "diag.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"

struct sweep_spec {
    struct datafile_list gpus, tp, pp, ep, cp, zero, schedule, vpp;
    struct datafile_list pp_first, pp_last; /* plan.h: layer-count splits */
    struct datafile_list pp_split;          /* enum model_split */
    struct datafile_list precision, recompute, mbs, gbs;
    struct datafile_list offload; /* plan.h: layers offloaded */
    long d_gpus, d_tp, d_pp, d_ep, d_cp, d_zero;
    int d_schedule;
    long d_vpp;
    int d_precision, d_recompute;
    long d_mbs, d_gbs;
    long d_sp; /* sequence parallelism with tp: 1 (default) or 0 */
    long d_pp_first, d_pp_last;
    int d_pp_split; /* enum model_split */
    long d_offload;
    /* [report] */
    char r_baseline[32];            /* family name: "ZeRO-3" */
    struct datafile_list r_sens_ib; /* GB/s, ascending, >= 0.001 */
    struct datafile_list r_sens_nv; /* GB/s, ascending, >= 0.001 */
    double r_headroom_pct;          /* of HBM kept free, 0..90 */
    double r_tie_pct;               /* of the fastest step, 0..50 */
    long r_plans_sheet;             /* rows of the Plans sheet */
    double r_scale_efficiency;      /* Scale sheet's threshold, 0..1 */
};

/* Values a [report] sensitivity grid may hold. */
#define SWEEP_SENS_MAX 16

struct sweep_file {
    struct sweep_spec spec;
    struct datafile_meta meta;
};

/*
 * The schema of sweep files (the plan space and the [defaults] of a PLAN):
 * every section and key with its type, range, unit and default; for
 * loading, `check` and data/README.md. Static: never NULL.
 */
const struct datafile_schema *sweep_schema(void);

/*
 * Loads a sweep file with --set overrides and checks that [defaults] is a
 * plan by itself where no model or cluster is needed (schedule and vpp,
 * DualPipe's even pp; with gpus and gbs given, the divisions and the
 * batch), naming file:line: defaults.key. On failure sf is released.
 */
enum status sweep_load(const char *path,
                       struct sweep_file *sf,
                       struct datafile_set *sets,
                       size_t nsets,
                       struct diag *d);

/* Frees what sf owns (its metadata); sf itself is the caller's. */
void sweep_release(struct sweep_file *sf);

/*
 * The [defaults] plan; gpus = 0 takes the cluster's GPUs and gbs = 0
 * (`model`) the model's global batch.
 */
void sweep_defaults(const struct sweep_file *sf,
                    const struct model *m,
                    const struct hardware *hw,
                    struct plan *out);

/*
 * Whether the sweep names a global batch of its own: a number in [space]
 * gbs, not only `model` (0). Its plans then take that batch (rounded per
 * plan), whatever the model's recipe says; with `model` alone, the
 * shipped default, each plan takes the model's own (its file's
 * training.global_batch, or its recipe's).
 */
bool sweep_names_batch(const struct sweep_file *sf);

/* Combinations a sweep enumerates (interleaved takes each vpp; the other
 * schedules vpp = 1); UINT64_MAX when the product overflows. */
uint64_t sweep_count(const struct sweep_file *sf);

/* The pp_split word `framework` ([space] list or [defaults]): the stack
 * file's pp_split, filled in by sweep_use_framework_split. */
#define SWEEP_SPLIT_FRAMEWORK MODEL_SPLITS

/* Whether sf names the split `framework` (in [space] or [defaults]). */
bool sweep_names_framework_split(const struct sweep_file *sf);

/* `framework` in sf's pp_split list and default replaced by split (enum
 * plan_split: the stack's), a word the list then holds twice kept once,
 * in its first place; split -1 (no stack): dropped from the list, and
 * the default left as it is (sweep_names_framework_split then tells
 * whether one remains). */
void sweep_use_framework_split(struct sweep_file *sf, int split);

/* Largest sweep roofplan accepts (about an hour at 2-3M plans/s). */
#define SWEEP_MAX_COMBINATIONS 10000000000ULL

/*
 * Called once per combination with the plan (its gbs rounded to the
 * nearest multiple of dp x mbs x (2 for DualPipe, pp for interleaved),
 * ties upward, at least one micro-batch per rank, at most 1e9 as PLAN
 * accepts) and plan_check()'s verdict (redundant plans rejected too); a
 * valid plan that an earlier combination already gave (gbs targets that
 * round alike, a gpus of 0 beside the cluster's size) comes with
 * PLAN_SAME_PLAN, so each plan is ranked once. p is valid until return.
 */
typedef void (*sweep_visit)(void *user,
                            struct plan *p,
                            enum plan_reason why,
                            uint64_t index);

/*
 * Called instead of visit for `count` combinations of this thread's share
 * that are rejected for `why` (not PLAN_OK): a block of the enumeration
 * varying only dimensions that do not decide why (plan_reason_fields).
 * Returns true when it counted them; false when it wants each one
 * visited (it keeps examples of why, say): then they are.
 */
typedef bool (*sweep_skip)(void *user, enum plan_reason why, uint64_t count);

/*
 * Enumerates the space in a fixed order (gpus, tp, pp, pp_first, pp_last,
 * pp_split, cp, ep, zero, schedule, vpp, precision, recompute, offload,
 * mbs, gbs), calling visit for each combination of this thread's share:
 * blocks of SWEEP_BLOCK consecutive combinations dealt round-robin to
 * `threads` threads. `index` is the combination's place in the whole
 * enumeration. Where skip is not NULL, a block of combinations rejected
 * for one reason by entries of the outer dimensions alone (tp*pp*cp not
 * dividing gpus, ep not dividing a stage, more chunks than layers) is
 * handed to skip instead, one call for the thread's share of it: the same
 * counts as visiting each. Allocates nothing.
 */
void sweep_run(const struct sweep_file *sf,
               const struct model *m,
               const struct hardware *hw,
               size_t thread,
               size_t threads,
               sweep_visit visit,
               sweep_skip skip,
               void *user);

#define SWEEP_BLOCK 4096

/*
 * The cluster sizes sf's [space] gpus names, each once (0 resolved to
 * hw's size), ascending, into out (room for DATAFILE_LIST_MAX); returns
 * how many.
 */
size_t
sweep_sizes(const struct sweep_file *sf, const struct hardware *hw, long *out);

/*
 * out = sf with its [space] gpus list the one size `gpus`: the space of
 * one cluster size, ranked on its own (plans of different sizes are never
 * ranked against each other). out borrows sf's metadata: never pass it to
 * sweep_release.
 */
void sweep_at_size(const struct sweep_file *sf,
                   long gpus,
                   struct sweep_file *out);

#endif
