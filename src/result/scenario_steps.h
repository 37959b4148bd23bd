/*
 * scenario_steps: a plan's expected step under what the model does not
 * know, one named scenario per row, and its range, the span of them, as
 * the stages after rank read it: the rows' names (scenario_key, _words,
 * _source) and the carried steps. Nothing here evaluates a plan; the
 * evaluate stage fills the steps (scenario.h: scenario_eval) and rank
 * adds the other communication model's (scenario_add).
 */
#ifndef PROJ_SCENARIO_STEPS_H
#define PROJ_SCENARIO_STEPS_H

#include <stdbool.h>

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

/* Adds scenario s's step (s > 0; ignored unless positive and finite)
 * to *ss and widens its span (after scenario_eval). */
void scenario_add(struct scenario_steps *ss, enum scenario s, double step);

/* Whether *ss has a range: its expected step was evaluated. */
bool scenario_known(const struct scenario_steps *ss);

#endif
