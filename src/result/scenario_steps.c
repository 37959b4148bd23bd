/*
 * scenario_steps: the rows of the scenarios (scenario_steps.h), their
 * names and sources, and the span their steps make. What each row stands
 * for and why is said beside the evaluation that fills it (evaluate/
 * scenario.c).
 */
#include "scenario_steps.h"

#include <math.h>

struct scenario_row {
    const char *key;    /* eval --json and plans.csv */
    const char *words;  /* in a sentence */
    const char *source; /* where its numbers come from */
};

static const struct scenario_row rows[SCENARIOS] = {
    [SCENARIO_EXPECTED] = {.key = "expected",
                           .words = "the expected step",
                           .source = "the calibration's rates, the stack's "
                                     "overlaps, this communication model"},
    [SCENARIO_RUNS_FAST] = {.key = "runs_fast",
                            .words = "the published runs' fast end",
                            .source = "the validation runs on this "
                                      "calibration's group "
                                      "(validation_band)"},
    [SCENARIO_RUNS_SLOW] = {.key = "runs_slow",
                            .words = "the published runs' slow end",
                            .source = "the validation runs on this "
                                      "calibration's group "
                                      "(validation_band)"},
    [SCENARIO_DP_OVERLAP_OFF] = {.key = "dp_overlap_off",
                                 .words = "the DP overlaps off",
                                 .source = "Megatron-LM's "
                                           "--overlap-grad-reduce and "
                                           "--overlap-param-gather, the "
                                           "user's flags, not set"},
    [SCENARIO_OTHER_COMM] = {.key = "other_comm_model",
                             .words = "the other communication model",
                             .source = "comm.h: topo (hierarchical) and "
                                       "flat, the tool's two models"},
};

const char *scenario_key(int s)
{
    return s >= 0 && s < SCENARIOS ? rows[s].key : "?";
}

const char *scenario_words(int s)
{
    return s >= 0 && s < SCENARIOS ? rows[s].words : "?";
}

const char *scenario_source(int s)
{
    return s >= 0 && s < SCENARIOS ? rows[s].source : "?";
}

bool scenario_known(const struct scenario_steps *ss)
{
    return (ss->have & (1u << SCENARIO_EXPECTED)) != 0;
}

void scenario_add(struct scenario_steps *ss, enum scenario s, double step)
{
    if (!(step > 0) || !isfinite(step) || s <= SCENARIO_EXPECTED ||
        s >= SCENARIOS || !scenario_known(ss))
        return;
    ss->have |= 1u << s;
    ss->step[s] = step;
    ss->low = fmax(ss->floor, fmin(ss->low, step));
    if (step > ss->high) {
        ss->high = step;
        ss->slow = s;
    }
}
