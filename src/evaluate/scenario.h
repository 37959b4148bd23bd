/*
 * scenario: a plan's expected step under what the model does not know,
 * one named scenario per row, and its range, the span of them: the
 * expected step itself; the published runs' band on this calibration
 * (validation_band: how far runs on its group took more or less than
 * their expected step, wide where none checks it); the data-parallel
 * overlaps off (a switch the framework leaves to the user); the other
 * communication model. The range never goes below the plan's speed of
 * light. Part of the evaluate stage: it re-prices an evaluated plan's
 * work under other rates (terms.h) and re-times nothing else; the other
 * model's step is the caller's to add (rank evaluates it).
 */
#ifndef PROJ_SCENARIO_H
#define PROJ_SCENARIO_H

#include <stdbool.h>
#include <stddef.h>

#include "cost.h"
#include "hardware.h"
#include "model.h"
#include "validation.h"

/* The scenarios, in the order a range names them. */
enum scenario {
    SCENARIO_EXPECTED,       /* the expected step itself */
    SCENARIO_RUNS_FAST,      /* x the band's lo */
    SCENARIO_RUNS_SLOW,      /* x the band's hi */
    SCENARIO_DP_OVERLAP_OFF, /* step-end DP sync and gather exposed */
    SCENARIO_OTHER_COMM,     /* the other communication model's step */
    SCENARIOS
};

/* A plan's steps under the scenarios and their span. */
struct scenario_steps {
    unsigned have;          /* bit 1 << s: step[s] evaluated */
    double step[SCENARIOS]; /* s; 0 where not evaluated */
    double low, high;       /* s: the span, low at least the floor */
    enum scenario slow;     /* the scenario at high */
    double floor;           /* s: the plan's speed of light */
};

/* "expected", "runs_fast", "runs_slow", "dp_overlap_off",
 * "other_comm_model": the key eval --json and plans.csv name it by. */
const char *scenario_key(int s);

/* "the published runs' slow end", ...: the scenario in a sentence. */
const char *scenario_words(int s);

/* Where the scenario's numbers come from, in a sentence. */
const char *scenario_source(int s);

/*
 * The scenarios of evaluated plan w/t (t from cost_evaluate with its
 * expected step: w->x.known) on hw, model m, at precision, with
 * calibration band `band` (NULL: no published run, the runs' scenarios
 * left out) into *out: every one but SCENARIO_OTHER_COMM, and the span.
 * Nothing where the expected step is unknown (out->have 0, low and high
 * the speed of light). Allocates nothing; t is read, not changed.
 */
void scenario_eval(const struct cost_work *w,
                   const struct cost_times *t,
                   const struct hardware *hw,
                   const struct model *m,
                   int precision,
                   const struct validation_band *band,
                   struct scenario_steps *out);

/* Adds scenario s's step (s > 0; ignored unless positive and finite)
 * to *ss and widens its span (after scenario_eval). */
void scenario_add(struct scenario_steps *ss, enum scenario s, double step);

/* Whether *ss has a range: its expected step was evaluated. */
bool scenario_known(const struct scenario_steps *ss);

#endif
