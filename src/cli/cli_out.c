/*
 * cli_out: the output directory of `report` and `compare` (cli.h): opened
 * under its lock (saying who holds it while waiting), guarded against
 * signals so that a run stopped half-way leaves the earlier report whole,
 * and messages that name the output directory, not the staging one.
 */
#include "cli.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ---- The signal guard (struct cli_guard, cli.h) ---- */

/* The thread that takes the blocked signals. */
static void *guard_wait(void *arg)
{
    struct cli_guard *g = arg;
    int sig = 0;
    if (sigwait(&g->set, &sig) != 0)
        return NULL;
    pthread_mutex_lock(&g->lock);
    if (g->job)
        plot_out_abort(g->job);
    if (g->out)
        out_dir_abort(g->out);
    _exit(128 + sig);
}

void cli_guard_start(struct cli_guard *g)
{
    memset(g, 0, sizeof *g);
    sigemptyset(&g->set);
    sigaddset(&g->set, SIGINT);
    sigaddset(&g->set, SIGTERM);
    sigaddset(&g->set, SIGHUP);
    pthread_mutex_init(&g->lock, NULL);
    /* before any other thread exists, so every one inherits the mask */
    pthread_sigmask(SIG_BLOCK, &g->set, NULL);
    g->started = pthread_create(&g->thread, NULL, guard_wait, g) == 0;
}

void cli_guard_stop(struct cli_guard *g)
{
    if (g->started) {
        pthread_cancel(g->thread); /* sigwait is a cancellation point */
        pthread_join(g->thread, NULL);
    }
    pthread_mutex_destroy(&g->lock);
    pthread_sigmask(SIG_UNBLOCK, &g->set, NULL);
}

/* Sets (or clears) what the signal thread must undo. */
void cli_guard_set(struct cli_guard *g,
                   struct out_dir *out,
                   struct plot_job *job)
{
    pthread_mutex_lock(&g->lock);
    g->out = out;
    g->job = job;
    pthread_mutex_unlock(&g->lock);
}

/* ---- The directory ---- */

void cli_restage(struct diag *d, const char *from, const char *to)
{
    char msg[sizeof d->msg];
    size_t n = strlen(from), used = 0;
    const char *s = d->msg, *at = d->msg, *hit;
    if (n == 0)
        return;
    while ((hit = strstr(at, from)) != NULL && used < sizeof msg) {
        at = hit + n;
        if (*at >= '0' && *at <= '9')
            continue;
        used += (size_t)snprintf(msg + used, sizeof msg - used, "%.*s%s",
                                 (int)(hit - s), s, to);
        s = at;
    }
    if (used < sizeof msg)
        snprintf(msg + used, sizeof msg - used, "%s", s);
    memcpy(d->msg, msg, sizeof msg);
}

void cli_unstage(struct diag *d, const struct out_dir *out)
{
    cli_restage(d, out->handle, out->dir);
    cli_restage(d, out->stage, out->dir);
}

/* out_dir_wait.waiting: says who holds the lock while we wait. */
static void say_waiting(void *user,
                        const char *dir,
                        const struct out_dir_holder *h,
                        double timeout_s)
{
    char when[32] = "?";
    time_t t = (time_t)h->since;
    struct tm tm;
    (void)user;
    if (!h->pid) {
        fprintf(stderr,
                "%s: %s: another run is writing a report here; waiting up "
                "to %g s (--wait)\n",
                CLI_PROG, dir, timeout_s);
        return;
    }
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    fprintf(stderr,
            "%s: %s: another run (pid %ld, since %s) is writing a report "
            "here; waiting up to %g s (--wait)\n",
            CLI_PROG, dir, h->pid, when, timeout_s);
}

enum status
cli_out_open(const struct cli_config *cfg, struct out_dir *out, struct diag *d)
{
    struct out_dir_wait w;
    bool waited;
    w.timeout_s = cfg->wait_s;
    w.waiting = cfg->quiet ? NULL : say_waiting;
    w.user = NULL;
    if (out_dir_open(out, cfg->out_dir, &w, &waited, d) != STATUS_OK)
        return d->status;
    if (cfg->quiet)
        return STATUS_OK;
    if (waited)
        fprintf(stderr, "%s: %s: waited for another report to finish\n",
                CLI_PROG, cfg->out_dir);
    if (out->finished)
        fprintf(stderr,
                "%s: %s: completed the commit of a run killed while "
                "committing its report\n",
                CLI_PROG, cfg->out_dir);
    if (out->stale > out->finished)
        fprintf(stderr,
                "%s: %s: removed %zu staging director%s of runs that "
                "ended without committing\n",
                CLI_PROG, cfg->out_dir, out->stale - out->finished,
                out->stale - out->finished == 1 ? "y" : "ies");
    if (out->foreign)
        fprintf(stderr,
                "%s: %s: left %zu staging director%s of another user's "
                "ended runs alone (only that user's runs remove them)\n",
                CLI_PROG, cfg->out_dir, out->foreign,
                out->foreign == 1 ? "y" : "ies");
    if (out->unmarked)
        fprintf(stderr,
                "%s: %s: left %zu director%s named like a staging directory "
                "alone: no run of roofplan marked %s as its own (another "
                "user may have renamed a directory of yours so; an earlier "
                "version's stale one can be removed by hand)\n",
                CLI_PROG, cfg->out_dir, out->unmarked,
                out->unmarked == 1 ? "y" : "ies",
                out->unmarked == 1 ? "it" : "them");
    return STATUS_OK;
}
