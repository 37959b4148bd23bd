/*
 * eval_out: `roofplan eval` output — a readable breakdown of one plan, or
 * one JSON object (DESIGN.md §2) — written to a stream the caller owns.
 */
#ifndef PROJ_EVAL_OUT_H
#define PROJ_EVAL_OUT_H

#include <stddef.h>
#include <stdio.h>

#include "hardware.h"
#include "model.h"
#include "model_partition.h"
#include "stack.h"
#include "result.h"
#include "scenario_steps.h"
#include "validation.h"

/* One evaluated plan with everything the outputs show. */
struct eval_view {
    const struct model *m;     /* the model, cluster and communication */
    const struct hardware *hw; /* model the plan was evaluated on */
    enum comm_model comm;
    const struct cost_result *r;
    const struct comm_collective *coll; /* of the critical rank */
    size_t ncoll;
    /* the expected step's scenarios and range (scenario_eval, with the
     * other communication model's step added; sc.have 0: none) and the
     * published runs' band they read (band.all_runs 0: none) */
    struct scenario_steps sc;
    struct validation_band band;
    /* What the writer lays out beyond r, evaluated by the caller (eval):
     * every pipeline rank's memory, rank_mem[k] for k < nrank_mem (r's
     * plan.pp; cost_rank_memory, a rank of -1 when it has none), the
     * partition the plan runs on (cost_result_partition; NULL: none) and
     * the expected step's replay (replay_fill). The writer evaluates
     * nothing. */
    const struct memory *rank_mem;
    size_t nrank_mem;
    const struct model_partition *part;
    const struct replay *replay;
    /* the stack the expected step is of (NULL: none): its name and its
     * framework's release, the software generation the figures reflect */
    const struct stack *stack;
};

/* Human-readable breakdown with a one-line verdict. */
void eval_out_text(FILE *out, const struct eval_view *v);

/* One JSON object and a newline. */
void eval_out_json(FILE *out, const struct eval_view *v);

/* Writes s as a JSON string literal (quotes and escapes included). */
void eval_out_json_string(FILE *out, const char *s);

#endif
