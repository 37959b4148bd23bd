/*
 * ranking: what the rank stage hands over (docs/ARCHITECTURE.md,
 * "Hand-offs"): the sweep's counts and examples, the kept rows in rank
 * order with every time the later stages show (ranking_row.t), the
 * families with their best and lightest plans (under both communication
 * models, with collectives and crossovers: rank_finish), the fastest plan
 * under the other model, the waterfalls' replays, the validation runs
 * predicted and placed, the [report] settings the sweep ran with, and the
 * templates of the terms the rows carry (the workbook's live formulas).
 * Filled by rank_run and rank_finish (rank.h); read by figures, which
 * derives the views from it (views.h), and through the views by the
 * writers. This header includes no evaluate header, so a reader of the
 * ranking cannot evaluate a plan; it owns the struct and its read-only
 * helpers (ranking.c; the cursor over every plan: rank_spill.c).
 */
#ifndef PROJ_RANKING_H
#define PROJ_RANKING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "diag.h"
#include "plan.h"
#include "result.h"
#include "scenario_steps.h"
#include "sweep.h"
#include "validation.h"

/* Excel's sheet has 1,048,576 rows; one is the header. */
#define RANKING_EXCEL_ROWS  1048575
#define RANKING_EXAMPLES    3 /* examples kept per rejection reason */
#define RANKING_SENS_MAX    SWEEP_SENS_MAX /* bandwidths of a grid */
#define RANKING_FAMILY_KEYS (5 * 16)       /* dp flavour x tp cp pp ep */

/* One evaluated plan as kept for output, with every time the later
 * stages show (rank fills t when it keeps the row: cost_times of work on
 * the report's hardware, as cost_evaluate gave it). */
struct ranking_row {
    struct plan plan;
    struct cost_work work;
    struct cost_times t;
    struct memory mem;
    double ep_ratio;
    double step; /* s, for ranking */
    int family;  /* index into ranking.family */
    bool fits;
    long rank; /* critical pipeline rank */
    /* its expected step under the other communication model (0: not
     * evaluated: rank_finish_other_best times the fitting rows) and its
     * scenarios with their span (rank_finish_scenarios; sc.have 0 where
     * it has no expected step) */
    double other_expected;
    struct scenario_steps sc;
};

/* Where a plan turns compute-bound as one link gets faster. */
enum ranking_cross {
    RANKING_CROSS_ALREADY, /* the link's time is at or below compute now */
    RANKING_CROSS_AT,      /* it meets compute at gbps */
    RANKING_CROSS_LATENCY  /* its per-call latency alone exceeds compute */
};

struct ranking_crossover {
    int state;      /* enum ranking_cross */
    double gbps;    /* RANKING_CROSS_AT: the link's bandwidth, GB/s */
    int then_bound; /* what binds there (enum cost_bound): compute when
                       the plan turns compute-bound; else the term that
                       still binds (another link, HBM) */
    bool in_range;  /* gbps inside the sensitivity grid's range */
};

struct ranking_family {
    char name[32];
    size_t plans, fitting; /* evaluated in this family */
    bool has_best;
    struct cost_result best;       /* fastest fitting plan (else fastest) */
    struct cost_result best_other; /* the same plan, other comm model */
    struct comm_collective coll[COMM_LIST_MAX];
    size_t ncoll;
    struct comm_collective coll_other[COMM_LIST_MAX];
    size_t ncoll_other;
    /* Best fitting step time of the family at each sensitivity point
     * (0 = no fitting plan), and its bound; rank_finish_crossovers fills
     * the baseline's from its fastest plan, re-timed, when none of it
     * fits (sens_unfit). */
    double sens_ib_step[RANKING_SENS_MAX];
    int sens_ib_bound[RANKING_SENS_MAX];
    double sens_nv_step[RANKING_SENS_MAX];
    int sens_nv_bound[RANKING_SENS_MAX];
    bool sens_unfit;
    /* The plan of the family with the least memory (rank). */
    bool has_lightest;
    struct plan lightest;
    struct memory lightest_mem;
    /* Rank (rank_finish_crossovers): where the best plan turns
     * compute-bound as IB (NVLink) gets faster. */
    struct ranking_crossover cross_ib, cross_nv;
};

/* One pipeline rank of a family's best plan, for a model whose layers
 * are a pattern (model.pattern): the layers its chunks hold, in pattern
 * letters, and its memory (rank_finish_stages). */
struct ranking_stage {
    size_t family; /* index into ranking.family */
    long rank;     /* pipeline rank, 0..pp-1 */
    char *layers;  /* "3(M. .D) M. N.", chunks joined by " | ", an MTP
                    * module as "+MTP", "-" for none (allocated) */
    double mem_total, mem_act; /* bytes per GPU of that rank */
};

/* The template of the term shown under a key (terms_template: a time
 * term's, a memory term's, a collective's link time), carried so that
 * the workbook's live formulas need no evaluate header. */
struct ranking_template {
    const char *key;     /* "step" (static: the registry's) */
    const char *formula; /* "{bubble}+{optimizer}+..." (static) */
};

struct ranking {
    /* ---- rank_run ---- */

    /* The sweep. */
    uint64_t enumerated;     /* combinations of the [space] lists */
    uint64_t valid, fitting; /* evaluated; of which fit in memory */
    uint64_t floor_only;     /* valid plans timed at the floor only: it
                                could not enter the kept plans (rank.c) */
    uint64_t rejected[PLAN_REASONS];
    char examples[PLAN_REASONS][RANKING_EXAMPLES][320];
    size_t nexamples[PLAN_REASONS];
    double elapsed_s; /* the sweep's, and the inputs' before it (cli) */

    /* Ranked plans: fitting first, then by step time; at most `top`. */
    struct ranking_row *rows;
    size_t nrows;
    /* rows[0..nranked-1] are the best plans in order (rank: index + 1);
     * the rows after them, the families' bests beyond those, are not
     * ranked (rank_keep.c). 0: every row is ranked. */
    size_t nranked;
    uint64_t dropped; /* valid plans not kept (beyond --top or Excel) */

    /* rank_run (ranking_families: one per family the sweep met, at most
     * RANKING_FAMILY_KEYS); rank_finish fills each family's best plan
     * under both models with its collectives and crossovers, and
     * families_by_step (indexes, fastest first) */
    struct ranking_family *family; /* [nfamilies] */
    size_t nfamilies;
    long *families_by_step; /* [nfamilies] */

    /* The sweep's [report] settings (rank_run copies them). */
    double sens_ib_gbps[RANKING_SENS_MAX];
    size_t nsens_ib;
    double sens_nv_gbps[RANKING_SENS_MAX];
    size_t nsens_nv;
    double headroom_pct, tie_pct; /* percent */
    size_t plans_sheet;           /* rows of the Plans sheet */

    /* Every valid plan, spilled by rank_run for ranking_cursor (NULL:
     * none; one unlinked file per sweep thread), and the family index of
     * each family key their rows carry. */
    FILE **spill;
    size_t nspill;
    int family_of_key[RANKING_FAMILY_KEYS];

    /* The templates of every term the rows carry, by key (rank_templates;
     * ranking_template finds one). */
    struct ranking_template *templates;
    size_t ntemplates;

    /* ---- rank_finish ---- */

    /* the fastest fitting kept plan under the other communication model
     * (rank_finish_other_best) */
    bool has_other_best;
    struct cost_result other_best;
    /* the published runs' band on this report's calibration
     * (rank_finish_scenarios; has_band false without a run) */
    bool has_band;
    struct validation_band band;
    /* the waterfall's replay of every plan that can be recommended: the
     * kept rows [0, nreplays), the fitting ones within tie_pct of the
     * fastest (row 0 alone when it does not fit) (rank_finish_replays) */
    struct replay *replays;
    size_t nreplays;
    /* every pipeline rank of each family's best plan, families in index
     * order, ranks in order; none unless the model has a pattern
     * (rank_finish_stages) */
    struct ranking_stage *stages; /* [nstages] */
    size_t nstages;

    /* ---- rank_finish_validations, from validate_predict ---- */
    struct validate_result *validation; /* [nvalidations] */
    size_t nvalidations;
    /* runs left out: "name: skipped, its plan does not apply ...: why"
     * (each allocated to fit) */
    char **validation_notes; /* [nvalidation_notes] */
    size_t nvalidation_notes;
};

/* The row a sweep keeps for result c of family `family` (its plan,
 * work, times, memory, fit, critical rank and step), and back: the cost
 * result a row carries (no collectives, no family name). */
void ranking_row_of(const struct cost_result *c,
                    int family,
                    struct ranking_row *row);
void ranking_row_result(const struct ranking_row *row, struct cost_result *c);

/* Frees what r owns (rows, families, replays, validation runs and notes,
 * spill files, templates); r may be zeroed. */
void ranking_free(struct ranking *r);

/*
 * n families in r (what it held of them freed): r->family zeroed,
 * r->families_by_step in index order (rank_finish_families sorts it),
 * r->nfamilies n. STATUS_NOMEM in d.
 */
enum status ranking_families(struct ranking *r, size_t n, struct diag *d);

/* The rank of r->rows[index]: index + 1, or 0 for a row beyond the
 * ranked ones (nranked). */
size_t ranking_row_rank(const struct ranking *r, size_t index);

/* Index of the family named `name`, or -1. */
long ranking_family_index(const struct ranking *r, const char *name);

/* The template carried for `key` (r->templates), or NULL: what
 * terms_template(key) gives. */
const char *ranking_template(const struct ranking *r, const char *key);

/*
 * Reads every plan of a ranking in order: r->rows first (rank 1, 2,
 * ...), then, when the sweep spilled, every other valid plan in
 * enumeration order (rank 0: not ranked). Usage:
 *
 *   struct ranking_cursor c;
 *   struct ranking_row row;
 *   size_t rank;
 *   ranking_cursor_init(&c, r);
 *   while (ranking_cursor_next(&c, &row, &rank)) ...;
 *   if (c.failed) ... (a spill file could not be read)
 *   ranking_cursor_release(&c);
 */
struct ranking_cursor {
    const struct ranking *r;
    size_t next_row;
    /* the spill files' next records, merged by enumeration index */
    struct rank_record *head; /* [r->nspill] */
    bool *have;               /* [r->nspill] */
    bool started, failed;
};

void ranking_cursor_init(struct ranking_cursor *c, const struct ranking *r);
bool ranking_cursor_next(struct ranking_cursor *c,
                         struct ranking_row *row,
                         size_t *rank);
void ranking_cursor_release(struct ranking_cursor *c);

#endif
