/*
 * plot_run: fork and exec (with PR_SET_PDEATHSIG on Linux, which
 * posix_spawn cannot set), a pipe per child drained with poll(), a
 * deadline per child, kill(-pgid) and waitpid().
 *
 * Who reaps a child: whoever flips its `running` from true to false
 * (atomic exchange) kills and reaps it, and nobody else touches its pid
 * afterwards. plot_run_wait() notices an exit without reaping it
 * (waitid with WNOWAIT) and only then claims it, so a pid is never used
 * after another thread may have reaped it and the kernel recycled it.
 *
 * May call: diag, POSIX, libc.
 */
#define _GNU_SOURCE /* environ, pipe2 */
#include "plot_run.h"

#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <time.h>
#include <unistd.h>

/* Bytes read from one pipe before the deadlines are looked at again: a
 * child that writes without pause cannot keep the loop from them. */
#define DRAIN_MAX (1 << 20)
/* The longest poll(): how late an exit is noticed (there is no
 * SIGCHLD handler; the signals belong to the caller). */
#define POLL_MS 5

void plot_run_init(struct plot_run *run)
{
    run->pid = 0;
    atomic_store(&run->running, false);
    run->spawned = run->exited = run->timed_out = run->aborted = false;
    run->status = -1;
    run->fd = -1;
    run->deadline_s = 0;
    run->out_len = run->out_next = 0;
    run->out_total = 0;
}

/* ---- Finding the program ---- */

static bool is_executable(const char *path)
{
    struct stat st;
    return access(path, X_OK) == 0 && stat(path, &st) == 0 &&
           S_ISREG(st.st_mode);
}

bool plot_run_find(const char *name, const char *path, char *full, size_t size)
{
    const char *p;
    int n;
    if (name[0] == '\0')
        return false;
    if (strchr(name, '/')) {
        char cwd[PATH_MAX];
        if (name[0] == '/')
            n = snprintf(full, size, "%s", name);
        else if (getcwd(cwd, sizeof cwd))
            n = snprintf(full, size, "%s/%s", cwd, name);
        else
            return false;
        return n > 0 && (size_t)n < size && is_executable(full);
    }
    if (!path)
        path = "/usr/bin:/bin";
    for (p = path;;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        /* "" and "bin" mean directories relative to wherever we run:
         * never look there. */
        if (len > 0 && p[0] == '/') {
            n = snprintf(full, size, "%.*s/%s", (int)len, p, name);
            if (n > 0 && (size_t)n < size && is_executable(full))
                return true;
        }
        if (!end)
            break;
        p = end + 1;
    }
    if (size > 0)
        full[0] = '\0';
    return false;
}

/* ---- Spawning ---- */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The child, between fork and exec: only async-signal-safe calls (the
 * parent may have other threads). Writes errno to errfd and exits 127
 * when it cannot exec. */
static _Noreturn void child(const char *prog,
                            const char *dir,
                            char **argv,
                            char **envp,
                            int out,
                            int errfd,
                            pid_t parent)
{
    struct sigaction dfl;
    sigset_t none;
    int fd, e;
#ifdef __linux__
    /* Dies with the run: a run killed with SIGKILL cannot stop its
     * gnuplot itself (the next run would find it still writing). Kept
     * across exec. The parent may have died before this line. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
        _exit(127);
#else
    (void)parent;
#endif
    /* a group of its own: killing -pid reaches whatever gnuplot starts,
     * and a Ctrl-C at the terminal reaches only us (we then abort it) */
    if (setpgid(0, 0) != 0)
        goto fail;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigemptyset(&dfl.sa_mask);
    if (sigaction(SIGINT, &dfl, NULL) != 0 ||
        sigaction(SIGTERM, &dfl, NULL) != 0 ||
        sigaction(SIGPIPE, &dfl, NULL) != 0)
        goto fail;
    sigemptyset(&none);
    if (sigprocmask(SIG_SETMASK, &none, NULL) != 0 || chdir(dir) != 0)
        goto fail;
    fd = open("/dev/null", O_RDONLY);
    if (fd < 0 || dup2(fd, 0) < 0 || dup2(out, 1) < 0 || dup2(out, 2) < 0)
        goto fail;
    execve(prog, argv, envp);
fail:
    e = errno;
    while (write(errfd, &e, sizeof e) < 0 && errno == EINTR)
        ;
    _exit(127);
}

enum status plot_run_spawn(struct plot_run *run,
                           const char *prog,
                           const char *dir,
                           const char *arg,
                           double timeout_s,
                           struct diag *d)
{
    return plot_run_spawn_env(run, prog, dir, arg, NULL, timeout_s, d);
}

/* environ with `extra` ("NAME=value") added unless NAME is set there;
 * NULL when there is nothing to add (or no memory: extra is only ever a
 * hint). Free the array only, not its strings. */
static char **with_env(const char *extra)
{
    const char *eq = extra ? strchr(extra, '=') : NULL;
    size_t n, i;
    char **env;
    if (!eq)
        return NULL;
    for (n = 0; environ[n]; n++)
        if (strncmp(environ[n], extra, (size_t)(eq - extra) + 1) == 0)
            return NULL;
    env = malloc((n + 2) * sizeof *env);
    if (!env)
        return NULL;
    for (i = 0; i < n; i++)
        env[i] = environ[i];
    env[n] = (char *)extra;
    env[n + 1] = NULL;
    return env;
}

enum status plot_run_spawn_env(struct plot_run *run,
                               const char *prog,
                               const char *dir,
                               const char *arg,
                               const char *extra_env,
                               double timeout_s,
                               struct diag *d)
{
    char *argv[3], **env;
    int pipefd[2], errpipe[2], e = 0;
    pid_t parent = getpid(), pid;
    ssize_t got;

    assert(!run->spawned && prog[0] == '/');
    /* O_CLOEXEC: no other child (another gnuplot, or anything the caller
     * starts meanwhile) may hold either end, or EOF would never come. */
    if (pipe2(pipefd, O_CLOEXEC) != 0)
        return diag_set(d, STATUS_IO, "cannot create a pipe: %s",
                        strerror(errno));
    /* Only our end is non-blocking; the child writes as usual. The error
     * pipe tells why exec failed; closed by a successful exec. */
    if (fcntl(pipefd[0], F_SETFL, O_NONBLOCK) != 0 ||
        pipe2(errpipe, O_CLOEXEC) != 0) {
        e = errno;
        close(pipefd[0]);
        close(pipefd[1]);
        return diag_set(d, STATUS_IO, "cannot set up a pipe: %s", strerror(e));
    }
    argv[0] = (char *)prog;
    argv[1] = (char *)arg;
    argv[2] = NULL;
    /* built before the fork: the child may only make async-signal-safe
     * calls (the parent may have other threads) */
    env = with_env(extra_env);
    /* The clock starts here, not when someone first waits. */
    run->deadline_s = now_s() + timeout_s;
    pid = fork();
    if (pid == 0)
        child(prog, dir, argv, env ? env : environ, pipefd[1], errpipe[1],
              parent);
    if (pid < 0)
        e = errno;
    free(env); /* the child has its own copy */
    close(pipefd[1]);
    close(errpipe[1]);
    /* Until exec (or its failure) the child has not set its group: wait
     * for that, so that kill(-pid) from now on reaches it. */
    if (pid > 0) {
        int why = 0;
        do
            got = read(errpipe[0], &why, sizeof why);
        while (got < 0 && errno == EINTR);
        e = got == (ssize_t)sizeof why ? why : 0; /* EOF: it runs prog */
    }
    close(errpipe[0]);
    if (pid > 0 && e != 0) {
        int status;
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    if (e != 0) {
        close(pipefd[0]);
        return diag_set(d, STATUS_PLOT, "%s/%s: cannot run %s: %s", dir, arg,
                        prog, strerror(e));
    }
    run->pid = pid;
    run->fd = pipefd[0];
    run->spawned = true;
    atomic_store(&run->running, true); /* after pid: abort reads it next */
    return STATUS_OK;
}

/* ---- Output ---- */

static void keep(struct plot_run *run, const char *p, size_t n)
{
    run->out_total += n;
    /* A ring: once full, each byte overwrites the oldest. */
    while (n > 0) {
        size_t room = PLOT_RUN_KEEP - run->out_next;
        size_t k = n < room ? n : room;
        memcpy(run->out + run->out_next, p, k);
        run->out_next = (run->out_next + k) % PLOT_RUN_KEEP;
        run->out_len =
            run->out_len + k > PLOT_RUN_KEEP ? PLOT_RUN_KEEP : run->out_len + k;
        p += k;
        n -= k;
    }
}

/* Reads what the pipe holds now (at most DRAIN_MAX bytes); closes it at
 * end of file or on an error. */
static void drain(struct plot_run *run)
{
    char chunk[8192];
    size_t total = 0;
    while (run->fd >= 0 && total < DRAIN_MAX) {
        ssize_t got = read(run->fd, chunk, sizeof chunk);
        if (got > 0) {
            keep(run, chunk, (size_t)got);
            total += (size_t)got;
        } else if (got < 0 && errno == EINTR) {
            continue;
        } else if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return;
        } else {
            close(run->fd);
            run->fd = -1;
        }
    }
}

void plot_run_output(const struct plot_run *run, char *buf, size_t size)
{
    size_t n, i, start;
    if (size == 0)
        return;
    n = run->out_len < size - 1 ? run->out_len : size - 1;
    /* The ring's oldest wanted byte is n before the next write position. */
    start = (run->out_next + PLOT_RUN_KEEP - n) % PLOT_RUN_KEEP;
    for (i = 0; i < n; i++)
        buf[i] = run->out[(start + i) % PLOT_RUN_KEEP];
    buf[n] = '\0';
    for (i = 0; i < n; i++)
        if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n') || buf[i] == 0x7F)
            buf[i] = ' ';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    for (i = 0; buf[i] == '\n' || buf[i] == ' '; i++)
        ;
    memmove(buf, buf + i, n - i + 1);
}

/* ---- Waiting and killing ---- */

/* True for the one caller that takes the child over from `running`. */
static bool claim(struct plot_run *run)
{
    return atomic_exchange(&run->running, false);
}

static int reap(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR)
            return -1;
    return status;
}

static bool done(const struct plot_run *run)
{
    return !run->spawned || run->exited || run->timed_out || run->aborted;
}

/* Looks at one run still out: exited, gone, past its deadline? */
static void check(struct plot_run *run, double now)
{
    siginfo_t si;
    int rc;
    if (!atomic_load(&run->running)) {
        run->aborted = true; /* plot_run_abort() has it */
        return;
    }
    memset(&si, 0, sizeof si);
    rc = waitid(P_PID, (id_t)run->pid, &si, WEXITED | WNOHANG | WNOWAIT);
    if (rc == 0 && si.si_pid == run->pid) {
        if (!claim(run)) {
            run->aborted = true;
            return;
        }
        /* Anything it started and left behind goes with it. Safe: until
         * reaped, the zombie keeps its pid, so the group id cannot have
         * been given to another process. */
        kill(-run->pid, SIGKILL);
        run->status = reap(run->pid);
        run->exited = true;
        drain(run);         /* what it wrote just before it ended */
        if (run->fd >= 0) { /* a grandchild may hold the pipe: let go */
            close(run->fd);
            run->fd = -1;
        }
    } else if (rc != 0 && errno != EINTR) {
        /* ECHILD: reaped behind our back, by an abort that has just
         * claimed it or by a caller's waitpid(-1). */
        if (claim(run)) {
            run->status = -1;
            run->exited = true;
        } else {
            run->aborted = true;
        }
    } else if (now >= run->deadline_s) {
        if (!claim(run)) {
            run->aborted = true;
            return;
        }
        kill(-run->pid, SIGKILL);
        run->status = reap(run->pid);
        run->timed_out = true;
    }
}

void plot_run_wait(struct plot_run *runs, size_t n)
{
    plot_run_wait_counting(runs, n, NULL);
}

/* The wait of plot_run_wait_counting and _wait_ready: until every run
 * has ended or, with `ready`, is ready. */
static void wait_runs(struct plot_run *runs,
                      size_t n,
                      bool (*ready)(void *user, size_t i),
                      void *user,
                      struct progress *progress)
{
    struct pollfd pfd[PLOT_RUN_WAIT_MAX];
    bool is_ready[PLOT_RUN_WAIT_MAX] = {false};
    size_t i, counted = 0;
    assert(n <= PLOT_RUN_WAIT_MAX);
    for (;;) {
        size_t waiting = 0, nfd = 0;
        double now = now_s(), next = INFINITY;
        int ms;
        for (i = 0; i < n; i++) {
            struct plot_run *run = &runs[i];
            if (done(run))
                continue;
            drain(run);
            check(run, now);
            if (done(run))
                continue;
            /* once ready, ready for good: no need to ask again */
            if (ready && !is_ready[i])
                is_ready[i] = ready(user, i);
            if (!is_ready[i])
                waiting++;
            if (run->deadline_s < next)
                next = run->deadline_s;
            if (run->fd >= 0) {
                pfd[nfd].fd = run->fd;
                pfd[nfd].events = POLLIN;
                pfd[nfd].revents = 0;
                nfd++;
            }
        }
        progress_add(progress, n - waiting - counted); /* 0 adds time only */
        counted = n - waiting;
        if (waiting == 0)
            break;
        /* Sleep until output comes, the next deadline, or POLL_MS. */
        ms = next - now < POLL_MS / 1000.0 ? (int)((next - now) * 1000) + 1
                                           : POLL_MS;
        if (ms < 1)
            ms = 1;
        poll(pfd, (nfds_t)nfd, ms);
    }
}

void plot_run_wait_counting(struct plot_run *runs,
                            size_t n,
                            struct progress *progress)
{
    size_t i;
    wait_runs(runs, n, NULL, NULL, progress);
    for (i = 0; i < n; i++) {
        drain(&runs[i]); /* what a killed child wrote last */
        plot_run_release(&runs[i]);
    }
}

void plot_run_wait_ready(struct plot_run *runs,
                         size_t n,
                         bool (*ready)(void *user, size_t i),
                         void *user,
                         struct progress *progress)
{
    wait_runs(runs, n, ready, user, progress);
}

void plot_run_abort(struct plot_run *runs, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        int status;
        if (!claim(&runs[i]))
            continue;
        kill(-runs[i].pid, SIGKILL);
        while (waitpid(runs[i].pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
}

void plot_run_release(struct plot_run *run)
{
    if (run->fd >= 0) {
        close(run->fd);
        run->fd = -1;
    }
}
