/*
 * test_out_dir: a report written all at once or not at all, in a
 * temporary directory: files staged in a private directory, committed by
 * rename, the earlier report's files this one lacks removed (only those
 * its manifest lists), the earlier report put back when a rename fails
 * half-way, nothing left behind by an abort; the staging directory a
 * killed run left finished or removed by the next run, and a run that
 * waits for another's lock told who holds it, then giving up. Issue 34:
 * nothing outside the output directory is followed, emptied or moved in
 * (another user's staging directory is left alone; a staging directory
 * swapped for a symbolic link is not followed, neither by the clean-up
 * nor by the writers), and a FIFO or a device where a journal or a
 * manifest should be does not hang the run. (The marks that tell a
 * staging directory from a directory merely named like one:
 * test_out_dir_stale.c.)
 */
#define _GNU_SOURCE /* setresuid, setgroups, MAP_ANONYMOUS */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "out_dir.h"
#include "out_file.h"
#include "test_util.h"

/* The names any report may have, as main gives them. */
static const char *const report[] = {"report.xlsx", "plans.csv", "memory.png"};
#define NREPORT (sizeof report / sizeof *report)

struct fixture {
    char top[64];
    char dir[96]; /* the output directory: top/out */
};

static int setup(void **state)
{
    static struct fixture f;
    snprintf(f.top, sizeof f.top, "/tmp/test_out_dir_XXXXXX");
    if (!mkdtemp(f.top))
        return -1;
    snprintf(f.dir, sizeof f.dir, "%s/out", f.top);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    return util_remove_tree(f->top);
}

/* Directories in dir whose name starts with ".roofplan-" (staging). */
static int staged_dirs(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL) {
        char path[1024];
        struct stat st;
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        n += strncmp(e->d_name, ".roofplan-", 10) == 0 &&
             lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
    }
    closedir(d);
    return n;
}

/* The earlier report: report.xlsx and plans.csv with the manifest an
 * earlier run wrote, and a file of the user's that is no report file. */
static void earlier_report(const struct fixture *f)
{
    struct out_dir o;
    struct diag d;
    bool waited;
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    out_dir_close(&o);
    util_write_text(f->dir, "report.xlsx", "old report\n");
    util_write_text(f->dir, "plans.csv", "old plans\n");
    util_write_text(f->dir, ".roofplan-manifest", "report.xlsx\nplans.csv\n");
    util_write_text(f->dir, "notes.txt", "mine\n");
}

/* A pid no process has: a child that has exited and been reaped. */
static long ended_pid(void)
{
    pid_t pid = fork();
    int status;
    assert_true(pid >= 0);
    if (pid == 0)
        _exit(0);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    return (long)pid;
}

/* Writes into the staging directory `stage` the mark run (pid, since)
 * puts there (out_dir_stale.h: one line naming the directory's device
 * and inode, and the run); 0, or -1 on a failure. No assertion: a child
 * process calls it too. */
static int mark_stage(const char *stage, long pid, long long since)
{
    char path[1100];
    struct stat st;
    FILE *f;
    snprintf(path, sizeof path, "%s/.roofplan-stage", stage);
    if (stat(stage, &st) != 0 || !(f = fopen(path, "w")))
        return -1;
    fprintf(f,
            "roofplan staging directory: dev %llu ino %llu pid %ld since "
            "%lld\n",
            (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, pid,
            since);
    return fclose(f) == 0 ? 0 : -1;
}

/* Makes the staging directory a run (pid, since) would have made, with
 * its mark, `journal` (NULL: none) and a staged report.xlsx; its path
 * into buf. */
static void killed_stage(const struct fixture *f,
                         long pid,
                         long long since,
                         const char *journal,
                         char *buf,
                         size_t size)
{
    snprintf(buf, size, "%s/.roofplan-%ld-%lld-Ab12Cd", f->dir, pid, since);
    assert_int_equal(mkdir(buf, 0700), 0);
    assert_int_equal(mark_stage(buf, pid, since), 0);
    util_write_text(buf, "report.xlsx", "new report\n");
    if (journal)
        util_write_text(buf, ".commit", journal);
}

/* The output directory and its parents are made; the staging directory
 * is private (0700) and inside it; staged paths are under it, reached by
 * its descriptor (/proc/self/fd/N, the same directory). */
static void test_out_dir_open_makes_dirs(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    struct stat st, by_fd;
    char deep[160], path[1024], want[64];
    bool waited = true;
    snprintf(deep, sizeof deep, "%s/a/b/c", f->top);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, deep, NULL, &waited, &d), STATUS_OK);
    assert_false(waited);
    assert_int_equal(stat(o.stage, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(strncmp(o.stage, deep, strlen(deep)), 0);
    out_dir_path(&o, "report.xlsx", path, sizeof path);
    snprintf(want, sizeof want, "/proc/self/fd/%d/report.xlsx", o.stage_fd);
    assert_string_equal(path, want);
    assert_int_equal(stat(o.handle, &by_fd), 0);
    assert_true(by_fd.st_dev == st.st_dev && by_fd.st_ino == st.st_ino);
    out_dir_close(&o);
    assert_int_equal(staged_dirs(deep), 0);
    assert_string_equal(o.handle, "");
}

/* The new report replaces the earlier one: report.xlsx is the new one,
 * plans.csv (not in this report) is gone, the user's notes.txt stays, the
 * staging directory is gone. */
static void test_out_dir_commit_replaces_report(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char path[1024];
    bool waited;
    FILE *fp;
    earlier_report(f);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    out_dir_path(&o, "report.xlsx", path, sizeof path);
    fp = fopen(path, "w");
    assert_non_null(fp);
    fputs("new report\n", fp);
    assert_int_equal(fclose(fp), 0);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "old report\n");
    assert_int_equal(out_dir_commit(&o, report, NREPORT, &d), STATUS_OK);
    out_dir_close(&o);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "new report\n");
    assert_string_equal(util_read_text(f->dir, "plans.csv"), "(none)");
    assert_string_equal(util_read_text(f->dir, "notes.txt"), "mine\n");
    assert_int_equal(staged_dirs(f->dir), 0);
    /* the new manifest lists this report's one file */
    assert_string_equal(util_read_text(f->dir, ".roofplan-manifest"),
                        "# roofplan: the files of the report in this "
                        "directory; a later report\n"
                        "# removes only files listed here\n"
                        "report.xlsx\n");
}

/* Issue 20, defect 9: in a directory without a manifest (it never held a
 * report) files merely named like report files are the user's: a report
 * without them removes none. Another command's names in a manifest (a
 * compare.xlsx) are kept in the next one. */
static void test_out_dir_commit_removes_only_listed(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    bool waited;
    assert_int_equal(mkdir(f->dir, 0777), 0);
    util_write_text(f->dir, "plans.csv", "my plans\n");
    util_write_text(f->dir, "memory.png", "my chart\n");
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    util_write_text(o.stage, "report.xlsx", "new report\n");
    assert_int_equal(out_dir_commit(&o, report, NREPORT, &d), STATUS_OK);
    out_dir_close(&o);
    assert_string_equal(util_read_text(f->dir, "plans.csv"), "my plans\n");
    assert_string_equal(util_read_text(f->dir, "memory.png"), "my chart\n");
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "new report\n");
    /* a manifest of report.xlsx and compare.xlsx: the next report (with
     * plans.csv) removes nothing and keeps compare.xlsx listed */
    util_write_text(f->dir, "compare.xlsx", "a comparison\n");
    util_write_text(f->dir, ".roofplan-manifest",
                    "report.xlsx\ncompare.xlsx\n../notes.txt\n");
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    util_write_text(o.stage, "plans.csv", "new plans\n");
    assert_int_equal(out_dir_commit(&o, report, NREPORT, &d), STATUS_OK);
    out_dir_close(&o);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "(none)");
    assert_string_equal(util_read_text(f->dir, "memory.png"), "my chart\n");
    assert_string_equal(util_read_text(f->dir, "compare.xlsx"),
                        "a comparison\n");
    assert_string_equal(util_read_text(f->dir, ".roofplan-manifest"),
                        "# roofplan: the files of the report in this "
                        "directory; a later report\n"
                        "# removes only files listed here\n"
                        "compare.xlsx\nplans.csv\n");
}

/* Issue 20, defect 6: the staging directory of a run killed in its
 * commit (complete journal: report.xlsx still staged, plans.csv to go)
 * is finished by the next run: the directory holds the killed run's
 * report, whole. One killed before its journal was complete (or had
 * none) is removed with the earlier report left as it was. */
static void test_out_dir_open_finishes_killed_commit(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char stage[1024];
    bool waited;
    long long now = (long long)time(NULL);
    earlier_report(f);
    killed_stage(f, ended_pid(), now,
                 "move report.xlsx\nremove plans.csv\nend\n", stage,
                 sizeof stage);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    assert_int_equal(o.stale, 1);
    assert_int_equal(o.finished, 1);
    assert_int_equal(staged_dirs(f->dir), 1); /* its own */
    out_dir_close(&o);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "new report\n");
    assert_string_equal(util_read_text(f->dir, "plans.csv"), "(none)");
    assert_string_equal(util_read_text(f->dir, "notes.txt"), "mine\n");

    /* a journal cut short: never committed */
    util_remove_tree(f->dir);
    earlier_report(f);
    killed_stage(f, ended_pid(), now, "move report.xlsx\nremove pla", stage,
                 sizeof stage);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    assert_int_equal(o.stale, 1);
    assert_int_equal(o.finished, 0);
    out_dir_close(&o);
    assert_int_equal(staged_dirs(f->dir), 0);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "old report\n");
    assert_string_equal(util_read_text(f->dir, "plans.csv"), "old plans\n");
}

/* Issue 20, defect 6: only the staging directories of runs that ended
 * go. A live process that started before `since` owns its own (here the
 * test itself); one whose pid is alive but started after `since` is a
 * later process given the pid: its run has ended. That one took the
 * lock ten minutes before this test began: on any machine up longer, a
 * start time read as the boot time (field 21 of /proc/PID/stat, always
 * 0, in place of the start time, field 22) kept it. */
static void test_out_dir_open_keeps_live_stage(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char live[1024], reused[1024];
    bool waited;
    long long now = (long long)time(NULL);
    earlier_report(f);
    killed_stage(f, (long)getpid(), now, NULL, live, sizeof live);
    /* started ten minutes after it took the lock: another process now */
    snprintf(reused, sizeof reused, "%s/.roofplan-%ld-%lld-Zz99Yy", f->dir,
             (long)getpid(), now - 600);
    assert_int_equal(mkdir(reused, 0700), 0);
    assert_int_equal(mark_stage(reused, (long)getpid(), now - 600), 0);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    out_dir_close(&o);
    assert_int_equal(access(live, F_OK), 0);
    assert_int_equal(access(reused, F_OK), -1);
    assert_int_equal(staged_dirs(f->dir), 1);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "old report\n");
}

/* What the waiting callback was told. */
struct told {
    int calls;
    long pid;
    double timeout_s;
};

static void waiting(void *user,
                    const char *dir,
                    const struct out_dir_holder *h,
                    double timeout_s)
{
    struct told *t = user;
    (void)dir;
    t->calls++;
    t->pid = h->pid;
    t->timeout_s = timeout_s;
}

/* Issue 20, defect 8: a run that finds the directory locked says once who
 * holds it (the run whose staging directory is there: pid and since) and
 * gives up after its time limit; with 0 it gives up at once. */
static void test_out_dir_open_gives_up_waiting(void **state)
{
    struct fixture *f = *state;
    struct out_dir holder, o;
    struct diag d;
    struct told t = {0, 0, 0};
    struct out_dir_wait w = {0.2, waiting, &t};
    char want[256];
    bool waited;
    diag_init(&d);
    assert_int_equal(out_dir_open(&holder, f->dir, NULL, &waited, &d),
                     STATUS_OK);
    assert_int_equal(out_dir_open(&o, f->dir, &w, &waited, &d), STATUS_IO);
    assert_true(waited);
    assert_int_equal(t.calls, 1);
    assert_int_equal(t.pid, (long)getpid());
    assert_true(t.timeout_s == 0.2);
    snprintf(want, sizeof want, "%s: another run (pid %ld, since ", f->dir,
             (long)getpid());
    assert_int_equal(strncmp(d.msg, want, strlen(want)), 0);
    assert_non_null(strstr(d.msg, "UTC) is writing a report here; gave up "
                                  "after 0.2 s (--wait SECONDS waits longer)"));
    out_dir_close(&o);
    w.timeout_s = 0;
    t.calls = 0;
    assert_int_equal(out_dir_open(&o, f->dir, &w, &waited, &d), STATUS_IO);
    assert_int_equal(t.calls, 0);
    assert_non_null(strstr(d.msg, "gave up after 0 s"));
    out_dir_close(&o);
    out_dir_close(&holder);
    assert_int_equal(out_dir_open(&o, f->dir, &w, &waited, &d), STATUS_OK);
    assert_false(waited);
    out_dir_close(&o);
}

/*
 * A rename that fails half-way (the place the earlier plans.csv is kept
 * in is taken by a directory: EISDIR) after report.xlsx and memory.png
 * were moved in: the earlier report is put back — report.xlsx and
 * plans.csv as they were, memory.png (new) gone — the new files are back
 * in the staging directory, and the message names the file. Renames
 * only: it works where link() is refused.
 */
static void test_out_dir_commit_rolls_back(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char path[1024], want[1200];
    static const char *const order[] = {"report.xlsx", "memory.png",
                                        "plans.csv"};
    bool waited;
    earlier_report(f);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    util_write_text(o.stage, "report.xlsx", "new report\n");
    util_write_text(o.stage, "memory.png", "new chart\n");
    util_write_text(o.stage, "plans.csv", "new plans\n");
    out_dir_path(&o, ".prev.plans.csv", path, sizeof path);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(out_dir_commit(&o, order, 3, &d), STATUS_IO);
    snprintf(want, sizeof want, "%s/plans.csv: cannot write: Is a directory",
             f->dir);
    assert_string_equal(d.msg, want);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "old report\n");
    assert_string_equal(util_read_text(f->dir, "plans.csv"), "old plans\n");
    assert_string_equal(util_read_text(f->dir, "memory.png"), "(none)");
    assert_string_equal(util_read_text(o.stage, "report.xlsx"), "new report\n");
    assert_string_equal(util_read_text(o.stage, "memory.png"), "new chart\n");
    assert_string_equal(util_read_text(o.stage, ".commit"), "(none)");
    assert_int_equal(rmdir(path), 0); /* abort removes files, not dirs */
    out_dir_close(&o);
    assert_int_equal(staged_dirs(f->dir), 0);
}

/* An abort (a failed writer, a signal) removes the staging directory and
 * what was staged; the earlier report stays as it was. */
static void test_out_dir_abort_leaves_earlier_report(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    bool waited;
    earlier_report(f);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    util_write_text(o.stage, "report.xlsx", "half a report\n");
    out_dir_abort(&o);
    assert_string_equal(o.stage, "");
    assert_int_equal(staged_dirs(f->dir), 0);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "old report\n");
    assert_string_equal(util_read_text(f->dir, "plans.csv"), "old plans\n");
    out_dir_close(&o); /* a second abort does nothing */
}

/* Bad output directories: empty, too long, below a file. */
static void test_out_dir_open_refuses(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char big[OUT_DIR_MAX + 2], below[160], want[256];
    bool waited;
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, "", NULL, &waited, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "--out: empty directory name");
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(out_dir_open(&o, big, NULL, &waited, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "--out: the directory name has 901 "
                               "characters; at most 900 fit");
    util_write_text(f->top, "file", "x\n");
    snprintf(below, sizeof below, "%s/file/out", f->top);
    assert_int_equal(out_dir_open(&o, below, NULL, &waited, &d), STATUS_IO);
    snprintf(want, sizeof want, "%s: cannot create: Not a directory", below);
    assert_string_equal(d.msg, want);
    out_dir_close(&o);
}

/* ---- Issue 34: nothing outside the output directory ---- */

/* A directory outside the output directory (top/victim, 0700) with two
 * files of its owner: what no clean-up of a staging directory may empty,
 * follow or move in. Its path into buf. */
static void make_victim(const struct fixture *f, char *buf, size_t size)
{
    snprintf(buf, size, "%s/victim", f->top);
    assert_int_equal(mkdir(buf, 0700), 0);
    util_write_text(buf, "report.xlsx", "the victim's own\n");
    util_write_text(buf, "keep.txt", "kept\n");
}

/* The victim directory holds its two files as they were. */
static void assert_victim_whole(const char *victim)
{
    assert_string_equal(util_read_text(victim, "report.xlsx"),
                        "the victim's own\n");
    assert_string_equal(util_read_text(victim, "keep.txt"), "kept\n");
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
}

/*
 * The child of plant_swapper(): becomes user uid (when >= 0), makes the
 * staging directory `stage` of an ended run (pid, since: its name's)
 * with its mark and a FIFO as its journal, says so on `ready`, then waits up to
 * 10 s for a run to open the FIFO to read it. When one does, it swaps the
 * staging directory for a symbolic link to `victim` and writes a complete
 * journal that moves report.xlsx in: a run that works on the staging directory
 * by its path from then on works in the victim's directory. Exits 1 when a run
 * opened the FIFO, 0 when none did, 2 and more on a failure.
 */
static void swapper(const char *stage,
                    long pid,
                    long long since,
                    const char *victim,
                    long uid,
                    long gid,
                    int ready)
{
    static const char journal[] = "move report.xlsx\nend\n";
    char fifo[1024], aside[1024];
    int fd = -1, i;
    if (uid >= 0 && (setgroups(0, NULL) != 0 ||
                     setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0 ||
                     setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0))
        _exit(2);
    snprintf(fifo, sizeof fifo, "%s/.commit", stage);
    snprintf(aside, sizeof aside, "%s.aside", stage);
    if (mkdir(stage, 0700) != 0 || mark_stage(stage, pid, since) != 0 ||
        mkfifo(fifo, 0600) != 0)
        _exit(3);
    if (write(ready, "r", 1) != 1)
        _exit(4);
    /* a writer's open without blocking succeeds once a reader has the
     * FIFO open (or waits in its open for a writer) */
    for (i = 0; i < 2000 && fd < 0; i++) {
        fd = open(fifo, O_WRONLY | O_NONBLOCK);
        if (fd < 0)
            sleep_ms(5);
    }
    if (fd < 0)
        _exit(0);
    if (rename(stage, aside) != 0 || symlink(victim, stage) != 0 ||
        write(fd, journal, sizeof journal - 1) != (ssize_t)sizeof journal - 1)
        _exit(5);
    close(fd);
    _exit(1);
}

/* Starts swapper() as user uid (-1: this one) on the staging directory
 * of run (pid, since) in f's output directory, its path into stage;
 * returns once the directory is in place. */
static pid_t plant_swapper(const struct fixture *f,
                           long pid,
                           long long since,
                           const char *victim,
                           long uid,
                           long gid,
                           char *stage,
                           size_t size)
{
    int ready[2];
    pid_t child;
    char c;
    snprintf(stage, size, "%s/.roofplan-%ld-%lld-Ab12Cd", f->dir, pid, since);
    assert_int_equal(pipe(ready), 0);
    child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        close(ready[0]);
        swapper(stage, pid, since, victim, uid, gid, ready[1]);
    }
    close(ready[1]);
    assert_int_equal(read(ready[0], &c, 1), 1);
    close(ready[0]);
    return child;
}

/* Ends the swapper; true when a run had opened its FIFO (it exited 1
 * before it was stopped). */
static bool stop_swapper(pid_t pid)
{
    int status;
    kill(pid, SIGKILL);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    if (WIFEXITED(status) && WEXITSTATUS(status) > 1)
        fail_msg("the swapper failed (exit %d)", WEXITSTATUS(status));
    return WIFEXITED(status) && WEXITSTATUS(status) == 1;
}

/*
 * Issue 34, item 1: where the tests run as root, another user (nobody)
 * plants a stale staging directory in a folder both may write (0777)
 * whose journal is a FIFO; when a run reads it, the directory becomes a
 * link to root's own directory. The run leaves another user's staging
 * directory alone and counts it (the command says so on stderr): root's
 * directory keeps its files and nothing of it moves into the output
 * directory. Before, the run read the FIFO, followed the link and
 * emptied root's directory.
 */
static void test_out_dir_open_leaves_other_users_stage(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    struct passwd *pw = getpwnam("nobody");
    char victim[1024], stage[1024];
    struct stat st;
    bool waited, opened;
    pid_t pid;
    if (geteuid() != 0) {
        print_message("skipped: not root, so no second user to plant a "
                      "staging directory (the symbolic link tests below "
                      "run as one user)\n");
        skip();
    }
    make_victim(f, victim, sizeof victim);
    assert_int_equal(chmod(f->top, 0711), 0); /* nobody may pass */
    assert_int_equal(mkdir(f->dir, 0777), 0);
    assert_int_equal(chmod(f->dir, 0777), 0);
    pid = plant_swapper(f, ended_pid(), (long long)time(NULL), victim,
                        pw ? (long)pw->pw_uid : 65534,
                        pw ? (long)pw->pw_gid : 65534, stage, sizeof stage);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    opened = stop_swapper(pid);
    out_dir_close(&o);
    assert_victim_whole(victim);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "(none)");
    assert_false(opened);
    assert_int_equal(o.foreign, 1);
    assert_int_equal(o.stale, 0);
    assert_int_equal(lstat(stage, &st), 0); /* left as it was */
    assert_true(S_ISDIR(st.st_mode));
    assert_int_equal(st.st_uid, pw ? pw->pw_uid : 65534);
}

/*
 * Issue 34, item 1, by one user: the same staging directory of an ended
 * run, its FIFO journal swapped for a link to a directory outside when
 * read. The FIFO is no journal (a commit that never began): the staging
 * directory itself is emptied and removed, never through the link.
 */
static void test_out_dir_open_stage_swapped_for_link(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char victim[1024], stage[1024];
    bool waited, opened;
    pid_t pid;
    make_victim(f, victim, sizeof victim);
    assert_int_equal(mkdir(f->dir, 0777), 0);
    pid = plant_swapper(f, ended_pid(), (long long)time(NULL), victim, -1, -1,
                        stage, sizeof stage);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    opened = stop_swapper(pid);
    out_dir_close(&o);
    assert_victim_whole(victim);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "(none)");
    assert_false(opened);
    assert_int_equal(o.stale, 1);
    assert_int_equal(o.finished, 0);
    assert_int_equal(o.foreign, 0);
    assert_int_equal(staged_dirs(f->dir), 0);
}

/* Swaps the run's own staging directory for a link to victim, as
 * another user who may write the output directory can; the directory
 * itself goes aside (its path into aside). */
static void swap_own_stage(const struct out_dir *o,
                           const char *victim,
                           char *aside,
                           size_t size)
{
    snprintf(aside, size, "%s.aside", o->stage);
    assert_int_equal(rename(o->stage, aside), 0);
    assert_int_equal(symlink(victim, o->stage), 0);
}

/* Issue 34, item 1: a run's own staging directory swapped for a link to
 * a directory outside before it aborts: the abort empties its own
 * directory, wherever it now is, and not the one the link names. */
static void test_out_dir_abort_not_through_link(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char victim[1024], aside[1200];
    bool waited;
    make_victim(f, victim, sizeof victim);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    util_write_text(o.stage, "report.xlsx", "half a report\n");
    swap_own_stage(&o, victim, aside, sizeof aside);
    out_dir_abort(&o);
    assert_victim_whole(victim);
    assert_string_equal(util_read_text(aside, "report.xlsx"), "(none)");
    out_dir_close(&o);
}

/* Issue 34, item 1: the same swap before the commit: the files staged
 * in the run's own directory move in, and nothing of the directory the
 * link names (its report.xlsx) is moved in or written to. */
static void test_out_dir_commit_not_through_link(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char victim[1024], aside[1200];
    bool waited;
    make_victim(f, victim, sizeof victim);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    util_write_text(o.stage, "report.xlsx", "new report\n");
    swap_own_stage(&o, victim, aside, sizeof aside);
    assert_int_equal(out_dir_commit(&o, report, NREPORT, &d), STATUS_OK);
    out_dir_close(&o);
    assert_victim_whole(victim);
    assert_string_equal(util_read_text(victim, ".roofplan-manifest"), "(none)");
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "new report\n");
    assert_string_equal(util_read_text(aside, "report.xlsx"), "(none)");
}

/* The number of entries of dir (but . and ..). */
static int entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* swap_own_stage() done by user uid (-1: this one) in a child process. */
static void swap_stage_as(const struct out_dir *o,
                          const char *victim,
                          long uid,
                          long gid,
                          char *aside,
                          size_t size)
{
    pid_t pid;
    int status;
    snprintf(aside, size, "%s.aside", o->stage);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        if (uid >= 0 && (setgroups(0, NULL) != 0 ||
                         setresgid((gid_t)gid, (gid_t)gid, (gid_t)gid) != 0 ||
                         setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0))
            _exit(2);
        if (rename(o->stage, aside) != 0 || symlink(victim, o->stage) != 0)
            _exit(3);
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/*
 * Issue 34, item 1, the writers: in a folder another user may write
 * (0777, not sticky), that user (nobody, where the tests run as root;
 * else this user) swaps the run's staging directory for a link to a
 * directory of the run's user while the run writes. A file written at
 * out_dir_path() as the writers write it (a temporary file beside it,
 * then a rename: out_file) goes into the run's own directory, wherever
 * that now is, and the commit moves it in; nothing is written into the
 * directory the link names. Before, the writers' path went through the
 * link: the victim's report.xlsx was replaced.
 */
static void test_out_dir_path_not_through_link(void **state)
{
    struct fixture *f = *state;
    struct passwd *pw = getpwnam("nobody");
    struct out_dir o;
    struct diag d;
    char victim[1024], aside[1200], path[1200], tmp[1300];
    long uid = -1, gid = -1;
    bool waited;
    FILE *fp;
    make_victim(f, victim, sizeof victim);
    if (geteuid() == 0) {
        uid = pw ? (long)pw->pw_uid : 65534;
        gid = pw ? (long)pw->pw_gid : 65534;
        assert_int_equal(chmod(f->top, 0711), 0); /* nobody may pass */
    }
    assert_int_equal(mkdir(f->dir, 0777), 0);
    assert_int_equal(chmod(f->dir, 0777), 0);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    swap_stage_as(&o, victim, uid, gid, aside, sizeof aside);
    out_dir_path(&o, "report.xlsx", path, sizeof path);
    assert_int_equal(out_file_temp(path, tmp, sizeof tmp, &d), STATUS_OK);
    fp = fopen(tmp, "w");
    assert_non_null(fp);
    fputs("new report\n", fp);
    assert_int_equal(fclose(fp), 0);
    assert_int_equal(out_file_commit(tmp, path, &d), STATUS_OK);
    assert_victim_whole(victim);
    assert_int_equal(entries(victim), 2);
    assert_string_equal(util_read_text(aside, "report.xlsx"), "new report\n");
    assert_int_equal(out_dir_commit(&o, report, NREPORT, &d), STATUS_OK);
    out_dir_close(&o);
    assert_victim_whole(victim);
    assert_int_equal(entries(victim), 2);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "new report\n");
}

/* What a bounded child hands back. */
struct bounded {
    struct diag d;
    size_t stale, finished;
};

/* Runs fn in a child process given 5 s (SIGALRM ends it): a run that
 * hangs fails the test rather than holding the suite. */
static void bounded(void (*fn)(const struct fixture *, struct bounded *),
                    const struct fixture *f,
                    struct bounded *out)
{
    struct bounded *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE,
                                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    pid_t pid;
    int status;
    assert_true(shared != MAP_FAILED);
    memset(shared, 0, sizeof *shared);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        alarm(5);
        fn(f, shared);
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    *out = *shared;
    munmap(shared, sizeof *shared);
    if (!WIFEXITED(status))
        fail_msg("the run hung: ended by signal %d after 5 s",
                 WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* A run that only opens the directory (and cleans up). */
static void open_only(const struct fixture *f, struct bounded *b)
{
    struct out_dir o;
    bool waited;
    diag_init(&b->d);
    if (out_dir_open(&o, f->dir, NULL, &waited, &b->d) == STATUS_OK) {
        b->stale = o.stale;
        b->finished = o.finished;
    }
    out_dir_close(&o);
}

/* A run that stages report.xlsx and commits it. */
static void commit_one(const struct fixture *f, struct bounded *b)
{
    struct out_dir o;
    char path[1200];
    bool waited;
    FILE *fp;
    diag_init(&b->d);
    if (out_dir_open(&o, f->dir, NULL, &waited, &b->d) == STATUS_OK) {
        out_dir_path(&o, "report.xlsx", path, sizeof path);
        fp = fopen(path, "w");
        if (fp && fputs("new report\n", fp) != EOF && fclose(fp) == 0)
            out_dir_commit(&o, report, NREPORT, &b->d);
    }
    out_dir_close(&o);
}

/* Issue 34, item 6: a FIFO as the journal of a stale staging directory
 * (no writer ever comes): not a journal, the commit never began; the
 * directory goes, the earlier report stays. Before, the run waited for
 * a writer forever. */
static void test_out_dir_open_fifo_journal_does_not_hang(void **state)
{
    struct fixture *f = *state;
    struct bounded b;
    char stage[1024], fifo[1100];
    earlier_report(f);
    killed_stage(f, ended_pid(), (long long)time(NULL), NULL, stage,
                 sizeof stage);
    snprintf(fifo, sizeof fifo, "%s/.commit", stage);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    bounded(open_only, f, &b);
    assert_int_equal(b.d.status, STATUS_OK);
    assert_int_equal(b.stale, 1);
    assert_int_equal(b.finished, 0);
    assert_int_equal(staged_dirs(f->dir), 0);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "old report\n");
}

/* With the earlier report's manifest (at `path`) replaced by something
 * else, a commit is refused with `why` and the earlier report kept. */
static void
refused_manifest(const struct fixture *f, const char *path, const char *why)
{
    struct bounded b;
    char want[1200];
    bounded(commit_one, f, &b);
    snprintf(want, sizeof want, "%s: %s", path, why);
    assert_int_equal(b.d.status, STATUS_IO);
    assert_string_equal(b.d.msg, want);
    assert_string_equal(util_read_text(f->dir, "report.xlsx"), "old report\n");
    assert_string_equal(util_read_text(f->dir, "plans.csv"), "old plans\n");
    assert_int_equal(staged_dirs(f->dir), 0);
}

/* Issue 34, item 6: a FIFO as the manifest: refused at once (before, the
 * commit waited for a writer forever, with SIGINT and SIGTERM held). */
static void test_out_dir_commit_refuses_fifo_manifest(void **state)
{
    struct fixture *f = *state;
    char path[1024];
    earlier_report(f);
    snprintf(path, sizeof path, "%s/.roofplan-manifest", f->dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(mkfifo(path, 0600), 0);
    refused_manifest(f, path, "not a regular file");
}

/* Issue 34, item 6: a link to /dev/zero as the manifest: not followed,
 * refused (before, the commit read zeros forever at full CPU). */
static void test_out_dir_commit_refuses_manifest_link(void **state)
{
    struct fixture *f = *state;
    char path[1024];
    earlier_report(f);
    snprintf(path, sizeof path, "%s/.roofplan-manifest", f->dir);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(symlink("/dev/zero", path), 0);
    refused_manifest(f, path, "not a regular file");
}

/* Issue 34, item 6: a manifest larger than any roofplan writes (64
 * names of the report and 64 kept, each at most 255 bytes with its
 * prefix: OUT_DIR_LIST_MAX bytes) is not read: refused with its size. */
static void test_out_dir_commit_refuses_huge_manifest(void **state)
{
    struct fixture *f = *state;
    char path[1024], why[128];
    FILE *fp;
    size_t i;
    earlier_report(f);
    snprintf(path, sizeof path, "%s/.roofplan-manifest", f->dir);
    fp = fopen(path, "w");
    assert_non_null(fp);
    for (i = 0; i <= OUT_DIR_LIST_MAX / 10; i++)
        fputs("plans.csv\n", fp);
    assert_int_equal(fclose(fp), 0);
    snprintf(why, sizeof why, "too large (%d bytes; at most %d)",
             (OUT_DIR_LIST_MAX / 10 + 1) * 10, OUT_DIR_LIST_MAX);
    refused_manifest(f, path, why);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_out_dir_open_makes_dirs, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_commit_replaces_report,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_commit_rolls_back, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_out_dir_abort_leaves_earlier_report, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_open_refuses, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_commit_removes_only_listed,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_out_dir_open_finishes_killed_commit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_open_keeps_live_stage,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_open_gives_up_waiting,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_out_dir_open_leaves_other_users_stage, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_out_dir_open_stage_swapped_for_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_abort_not_through_link,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_commit_not_through_link,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_path_not_through_link,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_out_dir_open_fifo_journal_does_not_hang, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_out_dir_commit_refuses_fifo_manifest, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_out_dir_commit_refuses_manifest_link, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_out_dir_commit_refuses_huge_manifest, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
