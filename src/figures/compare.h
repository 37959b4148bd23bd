/*
 * compare: the question a team asks before buying or renting — for each
 * (model, hardware) pair, the recommended plan of the same sweep, its
 * step, throughput and cost side by side. One row per pair; derived from
 * a ranking of that pair's plans (rank_run) and the report's rule for the
 * recommended plan (figures_recommend) and nothing else, so each row is
 * what `roofplan report` recommends for the pair. The rows rank by the
 * expected cost of each model's token budget among the pairs with an
 * expected step (a calibration and a stack); the others, at the speed of
 * light only, rank apart after them.
 *
 * The sweep is the cli's to run (rank_run, then figures_recommend);
 * this module fills a row from what they give and ranks the rows. Knows
 * no output format.
 */
#ifndef PROJ_COMPARE_H
#define PROJ_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "result.h"
#include "views.h"

#define COMPARE_PAIRS_MAX 64

struct compare_row {
    char model[128], gpu[128], cluster[128]; /* names from the files */
    char model_path[1024], hardware_path[1024];
    long gpus;
    double params_total, params_active; /* whole model */
    double hbm_gib;                     /* per GPU */
    double gpu_hour_usd;
    double tokens;                  /* the model's training budget */
    long seq_len;                   /* the model's sequence length (tokens) */
    uint64_t valid, fitting;        /* plans of the sweep for this pair */
    bool any;                       /* a valid plan exists */
    char why[400];                  /* !any: why nothing is valid */
    struct cost_result recommended; /* the report's recommended plan */
    bool fastest_differs;           /* the fastest fitting plan is another */
    struct plan fastest;
    double fastest_step; /* s, the step the ranking uses */
    bool calibrated;     /* the recommended plan has an expected step */
    /* the expected figures' range as the report gives it (its
     * scenarios' span over the expected step: the expected step, days and
     * cost times these), where the pair has an expected step */
    bool has_range;
    double range_lo, range_hi;
    char recipe[1600]; /* the model's training recipe in words */
    size_t group;      /* compare_rank: the model's group, 0.. */
    long rank;         /* compare_rank: 1.. among its model's rows of its kind
                          (calibrated, or speed of light only); 0: no valid plan */
};

/*
 * Groups rows[0..n) by model (its file, in the order the models first
 * come), then ranks each model's clusters and sorts them: the pairs with
 * an expected step first, by its cost for the model's token budget
 * (expected against expected), then those at the speed of light only, by
 * its cost, then those with no valid plan; ties keep their order. Models
 * are never ranked against each other: their budgets and recipes differ.
 * Sets each row's group, calibrated and rank (1.. within its model and
 * kind).
 */
void compare_rank(struct compare_row *rows, size_t n);

/*
 * Starts row for the pair of model m and cluster hw: their names, sizes
 * and prices, no plan yet (any false). For a pair where no combination
 * of the sweep is valid, the caller leaves it so and says why in
 * row->why.
 */
void compare_row_init(struct compare_row *row,
                      const struct model *m,
                      const struct hardware *hw);

/*
 * Fills row's plans from the pair's views v (figures_recommend of the
 * pair's ranking, rank_run with the report's --top default: its ties are
 * among its Plans sheet): the counts, the recommended plan (the report's
 * rule: among the fitting plans within the sweep's tie_pct of the
 * fastest, the one with the most free memory) as rank timed it, and the
 * fastest fitting plan when it is another.
 */
void compare_row_recommend(struct compare_row *row, const struct views *v);

#endif
