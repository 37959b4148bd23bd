/*
 * compare: the question a team asks before buying or renting — for each
 * (model, hardware) pair, the best plan of the same sweep, its step,
 * throughput and cost side by side. One row per pair; derived from a
 * ranking of that pair's plans (rank_run) and nothing else, so each row
 * is what `roofplan report` would print as the best plan for the pair.
 *
 * Calls: rank (the sweep), report (its rows). Knows no output format.
 */
#ifndef PROJ_COMPARE_H
#define PROJ_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cost.h"
#include "diag.h"
#include "sweep.h"

#define COMPARE_PAIRS_MAX 64

struct compare_row {
    char model[128], gpu[128], cluster[128]; /* names from the files */
    char model_path[1024], hardware_path[1024];
    long gpus;
    double params_total, params_active; /* whole model */
    double hbm_gib;                     /* per GPU */
    double gpu_hour_usd;
    double tokens;           /* the model's training budget */
    uint64_t valid, fitting; /* plans of the sweep for this pair */
    bool any;                /* a valid plan exists */
    char why[400];           /* !any: why nothing is valid */
    struct cost_result best; /* the best plan (fitting first) */
};

/*
 * Sweeps sf on ctx's model and cluster and fills row with the best plan
 * (threads as for rank_run). A pair where no combination is valid is not
 * an error: row->any is false and row->why says why. Returns STATUS_NOMEM
 * or STATUS_IO (the sweep's failures), else STATUS_OK.
 */
enum status compare_pair(struct compare_row *row,
                         struct cost_ctx *ctx,
                         const struct sweep_file *sf,
                         size_t threads,
                         struct diag *d);

#endif
