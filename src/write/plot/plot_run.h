/*
 * plot_run: finding gnuplot and supervising its processes.
 *
 * Owns: the PATH lookup (absolute entries only, so an empty or relative
 * entry can never pick up a program from the output directory), the
 * spawn (fork and exec of the absolute path, no shell, in the caller's
 * directory of choice, in a process group of its own, signal mask empty
 * and SIGINT/SIGTERM/SIGPIPE at their defaults whatever the parent
 * blocks or ignores, killed by the kernel when the spawning thread dies
 * on Linux: spawn from a thread that lives as long as the run), the child's
 * stdout and stderr through a pipe of which at most PLOT_RUN_KEEP bytes are
 * kept, a deadline counted from the spawn, and killing a process group at its
 * deadline or on abort. Knows nothing about charts.
 *
 * May call: diag, POSIX (fork, exec, pipe, poll, waitpid, kill), libc,
 * prctl on Linux.
 *
 * Threads: plot_run_abort() may run on another thread (a signal-handling
 * one) at any time, also during plot_run_wait(); the two agree through
 * `running`, so each child is killed and reaped exactly once.
 */
#ifndef PROJ_PLOT_RUN_H
#define PROJ_PLOT_RUN_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "diag.h"
#include "progress.h"

#define PLOT_RUN_KEEP     16384 /* bytes of a child's output kept (the last) */
#define PLOT_RUN_WAIT_MAX 16    /* runs one plot_run_wait() may watch */

/* One child process. plot_run_init() before anything else. */
struct plot_run {
    pid_t pid;               /* also its process group id; valid when spawned */
    atomic_bool running;     /* spawned and not yet claimed by wait or abort */
    bool spawned;            /* plot_run_spawn() succeeded */
    bool exited;             /* reaped by plot_run_wait(): status is valid */
    bool timed_out;          /* killed at its deadline (status valid) */
    bool aborted;            /* killed by plot_run_abort(): status unknown */
    int status;              /* from waitpid(); -1 when it could not be had */
    int fd;                  /* read end of its output pipe; -1 when closed */
    double deadline_s;       /* CLOCK_MONOTONIC seconds: spawn + timeout */
    char out[PLOT_RUN_KEEP]; /* the last bytes it wrote, a ring */
    size_t out_len;          /* bytes held in out, <= PLOT_RUN_KEEP */
    size_t out_next;         /* where the next byte goes in out */
    unsigned long long out_total; /* bytes it wrote in all */
};

/* Makes run "not spawned": nothing to wait for, abort or close. */
void plot_run_init(struct plot_run *run);

/*
 * Finds program `name` and writes its absolute path into full. A name
 * with a '/' is that file (made absolute against the working directory);
 * otherwise each entry of `path` (a PATH value; NULL: "/usr/bin:/bin")
 * is tried in order, skipping empty and relative entries (POSIX reads
 * those as the working directory, which for us may be a directory of
 * untrusted files). Returns true when an executable regular file was
 * found and its path fits size.
 *
 *   char gp[PATH_MAX];
 *   if (plot_run_find("gnuplot", getenv("PATH"), gp, sizeof gp)) ...
 */
bool plot_run_find(const char *name, const char *path, char *full, size_t size);

/*
 * Starts `prog arg` (prog an absolute path, as plot_run_find gives) with
 * working directory dir, stdin from /dev/null, stdout and stderr into a
 * pipe that plot_run_wait() drains, in a new process group, with an
 * empty signal mask and SIGINT, SIGTERM and SIGPIPE at their default
 * actions, and (Linux) SIGKILL when the calling thread ends: a run killed
 * with SIGKILL leaves no gnuplot behind. Its deadline is timeout_s (> 0)
 * seconds from now. run must
 * be initialised and not spawned. Returns STATUS_PLOT "dir/arg: cannot
 * run prog: reason" when it cannot be started (run stays not spawned),
 * STATUS_IO when no pipe can be made.
 */
enum status plot_run_spawn(struct plot_run *run,
                           const char *prog,
                           const char *dir,
                           const char *arg,
                           double timeout_s,
                           struct diag *d);

/*
 * plot_run_spawn() with one more variable in the child's environment:
 * extra_env ("NAME=value", borrowed for the call) unless NAME is set in
 * ours already (the user's value wins); NULL adds nothing. Meant for
 * hints that change nothing but speed: the child gets our environment
 * as it is when the copy cannot be made.
 *
 *   plot_run_spawn_env(&run, gp, dir, "memory.gp",
 *                      "GLIBC_TUNABLES=glibc.malloc.hugetlb=1", 30, &d);
 */
enum status plot_run_spawn_env(struct plot_run *run,
                               const char *prog,
                               const char *dir,
                               const char *arg,
                               const char *extra_env,
                               double timeout_s,
                               struct diag *d);

/*
 * Waits for the spawned runs among runs[0..n) (n <= PLOT_RUN_WAIT_MAX),
 * reading their output meanwhile (a child that writes much never blocks
 * on a full pipe, and only the last PLOT_RUN_KEEP bytes are kept), until
 * each has exited (exited, status) or passed its deadline: then its
 * process group is killed with SIGKILL and it is reaped (timed_out).
 * Either way nothing of its process group outlives it: what an exited
 * child left running in its group is killed too. A run that
 * plot_run_abort() claimed ends as `aborted`. Closes every pipe.
 * Returns at once for runs already waited for.
 */
void plot_run_wait(struct plot_run *runs, size_t n);

/* plot_run_wait() that counts each run into progress (may be NULL) as it
 * ends. */
void plot_run_wait_counting(struct plot_run *runs,
                            size_t n,
                            struct progress *progress);

/*
 * plot_run_wait_counting() that returns early: once each spawned run of
 * runs[0..n) has ended or ready(user, i) has said true for it (a file it
 * writes is complete, say). A run found ready is not asked again; it
 * goes on running, its pipe open, until a later plot_run_wait() (which
 * must follow) or plot_run_abort(). Counts each run into progress (may
 * be NULL) as it ends or gets ready. Deadlines are kept meanwhile, as in
 * plot_run_wait().
 *
 *   plot_run_wait_ready(runs, n, png_done, &job, NULL);
 *   ... use the PNGs ...
 *   plot_run_wait(runs, n);
 */
void plot_run_wait_ready(struct plot_run *runs,
                         size_t n,
                         bool (*ready)(void *user, size_t i),
                         void *user,
                         struct progress *progress);

/*
 * Kills the process group of every run in runs[0..n) that is still
 * running (SIGKILL) and reaps it. Calls only kill() and waitpid() (and
 * atomic operations on `running`): safe from a signal-handling thread
 * or a signal handler, while another thread is in plot_run_wait(). It
 * frees nothing and closes nothing: plot_run_wait() or plot_run_release()
 * still does that.
 */
void plot_run_abort(struct plot_run *runs, size_t n);

/*
 * The end of what run wrote, for a message: its last size - 1 bytes (at
 * most), control characters but newlines made spaces, blank lines and
 * spaces trimmed at both ends. buf is "" when it wrote nothing.
 */
void plot_run_output(const struct plot_run *run, char *buf, size_t size);

/* Closes run's pipe if still open (after an abort without a wait). */
void plot_run_release(struct plot_run *run);

#endif
