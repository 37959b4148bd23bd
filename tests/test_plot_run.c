/*
 * test_plot_run: finding a program on PATH, and running fake gnuplots
 * (small shell scripts in a temporary directory): exit status and
 * output, the output cap, the deadline counted from the spawn, abort,
 * and the signal state a child starts with.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "plot_run.h"

struct fixture {
    char dir[64];  /* a fresh temporary directory per test */
    char prog[96]; /* dir/fake, written by the test */
    struct plot_run run;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    if (!f)
        return -1;
    snprintf(f->dir, sizeof f->dir, "/tmp/roofplan-run-XXXXXX");
    if (!mkdtemp(f->dir)) {
        free(f);
        return -1;
    }
    snprintf(f->prog, sizeof f->prog, "%s/fake", f->dir);
    plot_run_init(&f->run);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    char cmd[128];
    int rc;
    plot_run_abort(&f->run, 1); /* never leave a child behind */
    plot_run_release(&f->run);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", f->dir);
    rc = system(cmd);
    free(f);
    return rc == 0 ? 0 : -1;
}

static void write_script(const char *path, const char *text)
{
    FILE *fp = fopen(path, "w");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(chmod(path, 0755), 0);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* Gone: no such process, or a zombie nobody reaps (a container's init
 * may not); either way it runs no more. */
static bool process_gone(pid_t pid)
{
    char path[64], buf[256], *p;
    FILE *fp;
    size_t n;
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return true;
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    fp = fopen(path, "r");
    if (!fp)
        return true;
    n = fread(buf, 1, sizeof buf - 1, fp);
    fclose(fp);
    buf[n] = '\0';
    p = strrchr(buf, ')'); /* "pid (comm) S ..." */
    return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* ---- Finding ---- */

static void test_plot_run_find_skips_empty_and_relative_entries(void **state)
{
    struct fixture *f = *state;
    char full[PATH_MAX], cwd[PATH_MAX], rel[PATH_MAX], path[PATH_MAX + 64];
    (void)state;
    write_script(f->prog, "#!/bin/sh\nexit 0\n");
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->dir), 0);
    /* POSIX reads an empty entry as ".": the directory holds "fake", but
     * it must not be found that way, in any position */
    assert_false(plot_run_find("fake", "", full, sizeof full));
    assert_false(plot_run_find("fake", ":", full, sizeof full));
    assert_false(plot_run_find("fake", ":/nonexistent", full, sizeof full));
    assert_false(plot_run_find("fake", "/nonexistent:", full, sizeof full));
    assert_false(plot_run_find("fake", "/nonexistent::/x", full, sizeof full));
    assert_false(plot_run_find("fake", ".", full, sizeof full));
    /* nor through a relative entry naming the directory from its parent */
    assert_int_equal(chdir("/tmp"), 0);
    snprintf(rel, sizeof rel, "%s", f->dir + strlen("/tmp/"));
    assert_false(plot_run_find("fake", rel, full, sizeof full));
    assert_int_equal(chdir(cwd), 0);
    /* an absolute entry finds it, and the path is absolute */
    snprintf(path, sizeof path, ":/nonexistent:%s:/usr/bin", f->dir);
    assert_true(plot_run_find("fake", path, full, sizeof full));
    assert_string_equal(full, f->prog);
}

static void test_plot_run_find_needs_executable_file(void **state)
{
    struct fixture *f = *state;
    char full[PATH_MAX], sub[128];
    write_script(f->prog, "#!/bin/sh\nexit 0\n");
    assert_int_equal(chmod(f->prog, 0644), 0); /* not executable */
    assert_false(plot_run_find("fake", f->dir, full, sizeof full));
    snprintf(sub, sizeof sub, "%s/sub", f->dir); /* a directory */
    assert_int_equal(mkdir(sub, 0755), 0);
    assert_false(plot_run_find("sub", f->dir, full, sizeof full));
    assert_false(plot_run_find("missing", f->dir, full, sizeof full));
    /* the first match on PATH wins */
    assert_int_equal(chmod(f->prog, 0755), 0);
    assert_true(plot_run_find("sh", "/bin:/usr/bin", full, sizeof full));
    assert_string_equal(full, "/bin/sh");
}

static void test_plot_run_find_name_with_slash(void **state)
{
    struct fixture *f = *state;
    char full[PATH_MAX], cwd[PATH_MAX], want[PATH_MAX + 16];
    write_script(f->prog, "#!/bin/sh\nexit 0\n");
    /* absolute: itself, whatever PATH says */
    assert_true(plot_run_find(f->prog, "", full, sizeof full));
    assert_string_equal(full, f->prog);
    /* relative: made absolute here, so a later chdir cannot change it */
    assert_non_null(getcwd(cwd, sizeof cwd));
    assert_int_equal(chdir(f->dir), 0);
    assert_true(plot_run_find("./fake", NULL, full, sizeof full));
    assert_int_equal(chdir(cwd), 0);
    snprintf(want, sizeof want, "%s/./fake", f->dir);
    assert_string_equal(full, want);
    /* too long for the buffer: not found rather than cut */
    assert_false(plot_run_find(f->prog, NULL, full, 8));
}

/* ---- Running ---- */

static void test_plot_run_spawn_captures_output_and_status(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    char msg[256], cwd_file[128];
    /* runs in dir with the argument; stdout and stderr both captured;
     * stdin is /dev/null */
    write_script(f->prog, "#!/bin/sh\necho \"out $1\"\necho 'err' >&2\n"
                          "pwd >cwd.txt\nread x && echo 'had stdin'\n"
                          "exit 3\n");
    diag_init(&d);
    assert_int_equal(
        plot_run_spawn(&f->run, f->prog, f->dir, "roofline-ib.gp", 10, &d),
        STATUS_OK);
    assert_true(f->run.spawned);
    assert_true(atomic_load(&f->run.running));
    plot_run_wait(&f->run, 1);
    assert_false(atomic_load(&f->run.running));
    assert_true(f->run.exited);
    assert_false(f->run.timed_out);
    assert_true(WIFEXITED(f->run.status));
    assert_int_equal(WEXITSTATUS(f->run.status), 3);
    assert_int_equal(f->run.fd, -1); /* the pipe is closed */
    plot_run_output(&f->run, msg, sizeof msg);
    assert_string_equal(msg, "out roofline-ib.gp\nerr");
    snprintf(cwd_file, sizeof cwd_file, "%s/cwd.txt", f->dir);
    assert_int_equal(access(cwd_file, F_OK), 0);
}

static void test_plot_run_spawn_env_adds_a_variable(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    char msg[256];
    write_script(
        f->prog,
        "#!/bin/sh\necho \"[$ROOFPLAN_TEST_HINT] $ROOFPLAN_TEST_OTHER\"\n");
    unsetenv("ROOFPLAN_TEST_HINT");
    setenv("ROOFPLAN_TEST_OTHER", "kept", 1);
    diag_init(&d);
    assert_int_equal(plot_run_spawn_env(&f->run, f->prog, f->dir, "a.gp",
                                        "ROOFPLAN_TEST_HINT=a=1:b=2", 10, &d),
                     STATUS_OK);
    plot_run_wait(&f->run, 1);
    plot_run_output(&f->run, msg, sizeof msg);
    /* added, and the rest of ours kept */
    unsetenv("ROOFPLAN_TEST_OTHER");
    assert_string_equal(msg, "[a=1:b=2] kept");
}

static void test_plot_run_spawn_env_keeps_the_users_value(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    char msg[256];
    write_script(f->prog, "#!/bin/sh\necho \"[$ROOFPLAN_TEST_HINT]\"\n");
    setenv("ROOFPLAN_TEST_HINT", "mine", 1);
    diag_init(&d);
    assert_int_equal(plot_run_spawn_env(&f->run, f->prog, f->dir, "a.gp",
                                        "ROOFPLAN_TEST_HINT=ours", 10, &d),
                     STATUS_OK);
    plot_run_wait(&f->run, 1);
    unsetenv("ROOFPLAN_TEST_HINT");
    plot_run_output(&f->run, msg, sizeof msg);
    assert_string_equal(msg, "[mine]");
}

static void test_plot_run_output_is_capped(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    char msg[64];
    /* 1,000,000 bytes and a line: the child must not block on a full
     * pipe (64 KiB), only the last PLOT_RUN_KEEP bytes are kept, and
     * the message shows the end. */
    write_script(f->prog, "#!/bin/sh\nhead -c 1000000 /dev/zero | tr '\\0' x"
                          "\necho\necho 'the end' >&2\n");
    diag_init(&d);
    assert_int_equal(plot_run_spawn(&f->run, f->prog, f->dir, "x", 20, &d),
                     STATUS_OK);
    plot_run_wait(&f->run, 1);
    assert_true(f->run.exited);
    assert_false(f->run.timed_out);
    assert_int_equal(WEXITSTATUS(f->run.status), 0);
    assert_int_equal(f->run.out_total, 1000000 + 1 + 8);
    assert_int_equal(f->run.out_len, PLOT_RUN_KEEP);
    plot_run_output(&f->run, msg, sizeof msg);
    /* the last 63 bytes, "x...x\nthe end\n", less the final newline */
    assert_int_equal(strlen(msg), 62);
    assert_string_equal(msg + 62 - 8, "\nthe end");
    assert_int_equal(msg[0], 'x');
}

static void test_plot_run_deadline_counts_from_spawn(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    double t0, waited;
    write_script(f->prog, "#!/bin/sh\nexec sleep 30\n");
    diag_init(&d);
    assert_int_equal(plot_run_spawn(&f->run, f->prog, f->dir, "x", 0.3, &d),
                     STATUS_OK);
    sleep_s(0.5); /* the caller's other work outlasts the deadline */
    t0 = now_s();
    plot_run_wait(&f->run, 1);
    waited = now_s() - t0;
    /* killed at once: the 0.3 s were spent before the wait began */
    assert_true(f->run.timed_out);
    assert_true(WIFSIGNALED(f->run.status));
    assert_int_equal(WTERMSIG(f->run.status), SIGKILL);
    if (waited > 0.2)
        fail_msg("waited %.3f s after a deadline already past", waited);
}

static void test_plot_run_finished_child_is_not_killed_late(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    write_script(f->prog, "#!/bin/sh\necho done\nexit 0\n");
    diag_init(&d);
    assert_int_equal(plot_run_spawn(&f->run, f->prog, f->dir, "x", 0.3, &d),
                     STATUS_OK);
    sleep_s(0.5); /* waited for only after its deadline */
    plot_run_wait(&f->run, 1);
    assert_true(f->run.exited);
    assert_false(f->run.timed_out);
    assert_int_equal(WEXITSTATUS(f->run.status), 0);
}

/* The pid a fake wrote into dir/child.pid. */
static pid_t read_pid(const struct fixture *f)
{
    char path[128], line[32] = "", *end;
    FILE *fp;
    long pid;
    snprintf(path, sizeof path, "%s/child.pid", f->dir);
    fp = fopen(path, "r");
    assert_non_null(fp);
    assert_non_null(fgets(line, sizeof line, fp));
    fclose(fp);
    pid = strtol(line, &end, 10);
    assert_true(pid > 0);
    return (pid_t)pid;
}

static void test_plot_run_kills_group_at_deadline(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    char msg[32];
    pid_t grandchild;
    double t0 = now_s();
    /* a shell that starts a grandchild and waits: both must go */
    write_script(f->prog, "#!/bin/sh\nsleep 60 &\necho $! >child.pid\n"
                          "echo 'still thinking' >&2\nwait\n");
    diag_init(&d);
    assert_int_equal(plot_run_spawn(&f->run, f->prog, f->dir, "x", 0.5, &d),
                     STATUS_OK);
    assert_int_equal(getpgid(f->run.pid), f->run.pid); /* its own group */
    plot_run_wait(&f->run, 1);
    assert_true(now_s() - t0 < 5);
    assert_true(f->run.timed_out);
    grandchild = read_pid(f);
    for (t0 = now_s(); !process_gone(grandchild) && now_s() - t0 < 2;)
        sleep_s(0.01);
    assert_true(process_gone(grandchild));
    plot_run_output(&f->run, msg, sizeof msg);
    assert_string_equal(msg, "still thinking");
}

static void test_plot_run_exit_leaves_nothing_behind(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    pid_t grandchild;
    double t0;
    /* exits at once, leaving a grandchild running in its group (its
     * output elsewhere, so the pipe ends with the shell) */
    write_script(f->prog, "#!/bin/sh\nsleep 60 >/dev/null 2>&1 &\n"
                          "echo $! >child.pid\nexit 0\n");
    diag_init(&d);
    assert_int_equal(plot_run_spawn(&f->run, f->prog, f->dir, "x", 10, &d),
                     STATUS_OK);
    plot_run_wait(&f->run, 1);
    assert_true(f->run.exited);
    assert_int_equal(WEXITSTATUS(f->run.status), 0);
    grandchild = read_pid(f);
    for (t0 = now_s(); !process_gone(grandchild) && now_s() - t0 < 2;)
        sleep_s(0.01);
    assert_true(process_gone(grandchild));
}

static void test_plot_run_abort_kills_hanging_child(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    pid_t pid;
    double t0;
    write_script(f->prog, "#!/bin/sh\nexec sleep 60\n");
    diag_init(&d);
    assert_int_equal(plot_run_spawn(&f->run, f->prog, f->dir, "x", 60, &d),
                     STATUS_OK);
    pid = f->run.pid;
    t0 = now_s();
    plot_run_abort(&f->run, 1);
    assert_true(now_s() - t0 < 5);
    assert_false(atomic_load(&f->run.running));
    /* reaped: no zombie of ours left (waitpid finds no such child) */
    assert_int_equal(waitpid(pid, NULL, WNOHANG), -1);
    assert_int_equal(errno, ECHILD);
    /* a second abort and a wait afterwards are harmless */
    plot_run_abort(&f->run, 1);
    plot_run_wait(&f->run, 1);
    assert_true(f->run.aborted);
    assert_false(f->run.timed_out);
    assert_int_equal(f->run.fd, -1);
}

/* Runs the fake, which sends itself signal `sig` (a name for kill),
 * while the parent blocks SIGTERM and ignores SIGINT and SIGPIPE, as
 * the caller's main thread does; returns its wait status. */
static int status_after_self_signal(struct fixture *f, const char *sig)
{
    struct diag d;
    sigset_t block, old;
    struct sigaction ign, old_int, old_pipe;
    sigemptyset(&block);
    sigaddset(&block, SIGTERM);
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    assert_int_equal(sigprocmask(SIG_BLOCK, &block, &old), 0);
    assert_int_equal(sigaction(SIGINT, &ign, &old_int), 0);
    assert_int_equal(sigaction(SIGPIPE, &ign, &old_pipe), 0);
    diag_init(&d);
    plot_run_init(&f->run);
    assert_int_equal(plot_run_spawn(&f->run, f->prog, f->dir, sig, 10, &d),
                     STATUS_OK);
    sigprocmask(SIG_SETMASK, &old, NULL);
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGPIPE, &old_pipe, NULL);
    plot_run_wait(&f->run, 1);
    assert_true(f->run.exited);
    return f->run.status;
}

static void test_plot_run_child_gets_default_signals(void **state)
{
    struct fixture *f = *state;
    int s;
    /* were the mask or the ignored dispositions inherited, the shell
     * would survive its own signal and exit 7 */
    write_script(f->prog, "#!/bin/sh\nkill -$1 $$\nexit 7\n");
    s = status_after_self_signal(f, "TERM");
    assert_true(WIFSIGNALED(s));
    assert_int_equal(WTERMSIG(s), SIGTERM);
    s = status_after_self_signal(f, "INT");
    assert_true(WIFSIGNALED(s));
    assert_int_equal(WTERMSIG(s), SIGINT);
    s = status_after_self_signal(f, "PIPE");
    assert_true(WIFSIGNALED(s));
    assert_int_equal(WTERMSIG(s), SIGPIPE);
}

static void test_plot_run_spawn_reports_failure(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(plot_run_spawn(&f->run, "/bin/sh", "/nonexistent/out",
                                    "memory.gp", 10, &d),
                     STATUS_PLOT);
    assert_string_equal(d.msg, "/nonexistent/out/memory.gp: cannot run "
                               "/bin/sh: No such file or directory");
    assert_false(f->run.spawned);
    assert_false(atomic_load(&f->run.running));
    assert_int_equal(f->run.fd, -1);
    plot_run_wait(&f->run, 1); /* nothing to wait for */
}

int main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
    const struct CMUnitTest tests[] = {
        T(test_plot_run_find_skips_empty_and_relative_entries),
        T(test_plot_run_find_needs_executable_file),
        T(test_plot_run_find_name_with_slash),
        T(test_plot_run_spawn_captures_output_and_status),
        T(test_plot_run_spawn_env_adds_a_variable),
        T(test_plot_run_spawn_env_keeps_the_users_value),
        T(test_plot_run_output_is_capped),
        T(test_plot_run_deadline_counts_from_spawn),
        T(test_plot_run_finished_child_is_not_killed_late),
        T(test_plot_run_kills_group_at_deadline),
        T(test_plot_run_exit_leaves_nothing_behind),
        T(test_plot_run_abort_kills_hanging_child),
        T(test_plot_run_child_gets_default_signals),
        T(test_plot_run_spawn_reports_failure),
    };
#undef T
    return cmocka_run_group_tests(tests, NULL, NULL);
}
