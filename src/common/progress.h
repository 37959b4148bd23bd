/*
 * progress: one line on a terminal that says how far a long step has
 * gone and about how long it has left ("roofplan: sweep: 4,571,136 of
 * 10,160,640 combinations (45%), 3.2 s, about 3.9 s left"), rewritten in
 * place with '\r' at most PROGRESS_EVERY_S apart, and ended with a line of
 * the step's total when it finishes. Counters are atomic, so the sweep's
 * threads count into one phase; one thread at a time writes (the others
 * skip a turn). Computes nothing and knows no step: the commands name
 * them. Not a log: a step shorter than PROGRESS_AFTER_S shows nothing
 * unless asked (always).
 */
#ifndef PROJ_PROGRESS_H
#define PROJ_PROGRESS_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define PROGRESS_EVERY_S 0.25 /* s between two updates of the line */
#define PROGRESS_AFTER_S 1.0  /* s a step runs before its line shows */
#define PROGRESS_LINE    160  /* characters of a line, at most */

struct progress {
    FILE *out;        /* borrowed: stderr */
    const char *prog; /* borrowed: "roofplan", each line's prefix */
    bool on;          /* lines are written at all */
    bool always;      /* from a step's start, not after PROGRESS_AFTER_S */
    pthread_mutex_t lock;
    atomic_uint_fast64_t done;    /* of total, this step */
    uint64_t total;               /* 0: unknown (no share, no time left) */
    char what[48], unit[32];      /* "sweep", "combinations" */
    struct timespec t0;           /* the step's start */
    atomic_uint_fast64_t next_ns; /* the next update, ns after t0 */
    size_t width;                 /* characters of the line shown */
    bool shown;                   /* the line is on the screen: end it */
    bool active;                  /* between progress_begin and _end */
};

/* When progress lines show. */
enum progress_show {
    PROGRESS_NEVER,
    PROGRESS_SLOW,  /* a step's line once it has run PROGRESS_AFTER_S */
    PROGRESS_ALWAYS /* each step's line from its start */
};

/*
 * Prepares p to write to `out` as `show` says, each line starting "prog:
 * " (both borrowed; they must outlive p). Release with progress_release().
 * Example, --progress, else a terminal without -q:
 *
 *   progress_init(&p, stderr, "roofplan",
 *                 asked ? PROGRESS_ALWAYS : tty && !quiet ? PROGRESS_SLOW
 *                                                         : PROGRESS_NEVER);
 */
void progress_init(struct progress *p,
                   FILE *out,
                   const char *prog,
                   enum progress_show show);

/* Frees p's lock; ends an open line. p may be NULL. */
void progress_release(struct progress *p);

/*
 * Starts step `what` of `total` `unit`s (total 0: not known; the line
 * then says only what is done and for how long; unit "": a step without
 * a count, "roofplan: packing report.xlsx, 1.2 s"). Ends the step before,
 * if any. Not thread-safe: the thread that runs the steps calls it. p may
 * be NULL (all calls are then no-ops).
 */
void progress_begin(struct progress *p,
                    const char *what,
                    const char *unit,
                    uint64_t total);

/* Counts `more` units done in the step; rewrites the line when it is
 * due. Thread-safe. */
void progress_add(struct progress *p, uint64_t more);

/* Ends the step: its line, when one was shown, becomes "what: N unit in
 * T s" and a newline. */
void progress_end(struct progress *p);

/*
 * The line for a step at `done` of `total` (0: unknown) after elapsed_s,
 * into buf (at most size - 1 characters): what progress writes after its
 * '\r'. For tests; prog is the program's name.
 */
void progress_format(const char *prog,
                     const char *what,
                     const char *unit,
                     uint64_t done,
                     uint64_t total,
                     double elapsed_s,
                     bool finished,
                     char *buf,
                     size_t size);

#endif
