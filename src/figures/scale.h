/*
 * scale: how many GPUs. A report of several cluster sizes ranks each
 * size's plans on its own (plans of different sizes are never ranked
 * against each other by step time) and derives each size's views; this
 * module sets the recommended plan of each side by side — its days with
 * failures and checkpoints (goodput_headline), GPU-hours, cost, energy,
 * tokens/s per GPU and the scaling efficiency against the smallest size
 * — and answers a deadline (--days) or a budget (--budget) from them.
 * It times nothing: it reads the views figures_views made of each size.
 */
#ifndef PROJ_SCALE_H
#define PROJ_SCALE_H

#include <stdbool.h>
#include <stddef.h>

#include "goodput.h"
#include "views.h"

/* One cluster size: its recommended plan's figures. */
struct scale_size {
    long gpus;
    bool any;       /* a plan of this size was evaluated */
    bool fits;      /* its recommended plan fits (else: none does) */
    bool expected;  /* its figures are expected, else speed of light */
    char plan[200]; /* the recommended plan in a few words */
    double step_s;  /* its step (expected, else speed of light), s */
    double tokens_per_s_per_gpu;
    double efficiency;        /* tokens/s per GPU over the smallest size's, 0..;
                                 0 when either is unknown */
    struct goodput_figures f; /* wall-clock days, range, cost, energy */
    double wall_hi;           /* days at the range's high end (wall_days
                                 where the size has no range) */
    double cost_hi;           /* USD at the range's high end (likewise) */
    double gpu_hours;         /* wall-clock GPU-hours */
};

/* Which end of a size's range a deadline or budget is held to. */
enum scale_end { SCALE_HIGH, SCALE_EXPECTED, SCALE_ENDS };

/* The sizes, smallest first, and the answers. */
struct scale {
    struct scale_size *size; /* owned, [n] */
    size_t n;
    double threshold; /* report.scale_efficiency, 0..1 */
    long below;       /* first size under threshold; -1: none */
    double days;      /* --days; 0: none */
    double budget;    /* --budget, USD; 0: none */
    /* per end: the size that answers (smallest within the deadline and
     * budget; with a budget alone the fastest within it); -1: none */
    long pick[SCALE_ENDS];
};

/* z: the recommended plan of v (the views figures_views made of one
 * size's ranking), its days, cost and energy (goodput_headline). */
void scale_size_of(const struct views *v, struct scale_size *z);

/*
 * Fills s from sizes[n] (copied, any order; scale_size_of each),
 * threshold, days and budget (0: none): sorts them ascending, their
 * efficiency against the smallest, the first under threshold and the
 * answers. false when out of memory (s is then empty). Free with
 * scale_free.
 */
bool scale_of(const struct scale_size *sizes,
              size_t n,
              double threshold,
              double days,
              double budget,
              struct scale *s);

void scale_free(struct scale *s);

/*
 * The deadline's or budget's answer in one or two sentences into buf:
 * "Within 40 days: 2048 GPUs (TP 8 × ...), 38.1 days at the range's high
 * end; 1024 GPUs as expected (39.0 days)." or why none does. "" when s
 * has neither a deadline nor a budget.
 */
void scale_answer(const struct scale *s, char *buf, size_t size);

/* The same answer in a few words, for the summary card: "Within 40
 * days: 4096 GPUs at the range's high end (33.5 days), 4096 as expected
 * (26.8 days)." (the plans and costs are the Scale sheet's). */
void scale_answer_brief(const struct scale *s, char *buf, size_t size);

/* One line over the sizes: "1024 GPUs: 80.1 days, $12.3M; 2048: 41.0
 * days, $12.6M; ..." (wall-clock days, expected). */
void scale_line(const struct scale *s, char *buf, size_t size);

/* The index of the size the rest of the report details: the deadline's
 * or budget's answer (high end first), else the size `preferred` when
 * listed, else the smallest. */
size_t scale_main(const struct scale *s, long preferred);

#endif
