/*
 * test_out_dir: a report written all at once or not at all, in a
 * temporary directory: files staged in a private directory, committed by
 * rename, the earlier report's files this one lacks removed (only those
 * its manifest lists), the earlier report put back when a rename fails
 * half-way, nothing left behind by an abort; the staging directory a
 * killed run left finished or removed by the next run, and a run that
 * waits for another's lock told who holds it, then giving up.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "out_dir.h"
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

static void write_text(const char *dir, const char *name, const char *text)
{
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* The first line of dir/name, or "(none)" when there is no such file. */
static const char *text_of(const char *dir, const char *name)
{
    static char buf[64];
    char path[1024];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "r");
    if (!f)
        return "(none)";
    if (!fgets(buf, sizeof buf, f))
        buf[0] = '\0';
    fclose(f);
    return buf;
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

/* The whole of dir/name, or "(none)" when there is no such file. */
static const char *all_of(const char *dir, const char *name)
{
    static char buf[1024];
    char path[1024];
    size_t n;
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "r");
    if (!f)
        return "(none)";
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
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
    write_text(f->dir, "report.xlsx", "old report\n");
    write_text(f->dir, "plans.csv", "old plans\n");
    write_text(f->dir, ".roofplan-manifest", "report.xlsx\nplans.csv\n");
    write_text(f->dir, "notes.txt", "mine\n");
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

/* Makes the staging directory a run (pid, since) would have made, with
 * `journal` (NULL: none) and a staged report.xlsx; its path into buf. */
static void killed_stage(const struct fixture *f,
                         long pid,
                         long long since,
                         const char *journal,
                         char *buf,
                         size_t size)
{
    snprintf(buf, size, "%s/.roofplan-%ld-%lld-Ab12Cd", f->dir, pid, since);
    assert_int_equal(mkdir(buf, 0700), 0);
    write_text(buf, "report.xlsx", "new report\n");
    if (journal)
        write_text(buf, ".commit", journal);
}

/* The output directory and its parents are made; the staging directory
 * is private (0700) and inside it; staged paths are under it. */
static void test_out_dir_open_makes_dirs(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    struct stat st;
    char deep[160], path[1024];
    bool waited = true;
    snprintf(deep, sizeof deep, "%s/a/b/c", f->top);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, deep, NULL, &waited, &d), STATUS_OK);
    assert_false(waited);
    assert_int_equal(stat(o.stage, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    assert_int_equal(strncmp(o.stage, deep, strlen(deep)), 0);
    out_dir_path(&o, "report.xlsx", path, sizeof path);
    assert_int_equal(strncmp(path, o.stage, strlen(o.stage)), 0);
    assert_string_equal(path + strlen(o.stage), "/report.xlsx");
    out_dir_close(&o);
    assert_int_equal(staged_dirs(deep), 0);
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
    assert_string_equal(text_of(f->dir, "report.xlsx"), "old report\n");
    assert_int_equal(out_dir_commit(&o, report, NREPORT, &d), STATUS_OK);
    out_dir_close(&o);
    assert_string_equal(text_of(f->dir, "report.xlsx"), "new report\n");
    assert_string_equal(text_of(f->dir, "plans.csv"), "(none)");
    assert_string_equal(text_of(f->dir, "notes.txt"), "mine\n");
    assert_int_equal(staged_dirs(f->dir), 0);
    /* the new manifest lists this report's one file */
    assert_string_equal(all_of(f->dir, ".roofplan-manifest"),
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
    write_text(f->dir, "plans.csv", "my plans\n");
    write_text(f->dir, "memory.png", "my chart\n");
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    write_text(o.stage, "report.xlsx", "new report\n");
    assert_int_equal(out_dir_commit(&o, report, NREPORT, &d), STATUS_OK);
    out_dir_close(&o);
    assert_string_equal(text_of(f->dir, "plans.csv"), "my plans\n");
    assert_string_equal(text_of(f->dir, "memory.png"), "my chart\n");
    assert_string_equal(text_of(f->dir, "report.xlsx"), "new report\n");
    /* a manifest of report.xlsx and compare.xlsx: the next report (with
     * plans.csv) removes nothing and keeps compare.xlsx listed */
    write_text(f->dir, "compare.xlsx", "a comparison\n");
    write_text(f->dir, ".roofplan-manifest",
               "report.xlsx\ncompare.xlsx\n../notes.txt\n");
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    write_text(o.stage, "plans.csv", "new plans\n");
    assert_int_equal(out_dir_commit(&o, report, NREPORT, &d), STATUS_OK);
    out_dir_close(&o);
    assert_string_equal(text_of(f->dir, "report.xlsx"), "(none)");
    assert_string_equal(text_of(f->dir, "memory.png"), "my chart\n");
    assert_string_equal(text_of(f->dir, "compare.xlsx"), "a comparison\n");
    assert_string_equal(all_of(f->dir, ".roofplan-manifest"),
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
    assert_string_equal(text_of(f->dir, "report.xlsx"), "new report\n");
    assert_string_equal(text_of(f->dir, "plans.csv"), "(none)");
    assert_string_equal(text_of(f->dir, "notes.txt"), "mine\n");

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
    assert_string_equal(text_of(f->dir, "report.xlsx"), "old report\n");
    assert_string_equal(text_of(f->dir, "plans.csv"), "old plans\n");
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
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    out_dir_close(&o);
    assert_int_equal(access(live, F_OK), 0);
    assert_int_equal(access(reused, F_OK), -1);
    assert_int_equal(staged_dirs(f->dir), 1);
    assert_string_equal(text_of(f->dir, "report.xlsx"), "old report\n");
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
    write_text(o.stage, "report.xlsx", "new report\n");
    write_text(o.stage, "memory.png", "new chart\n");
    write_text(o.stage, "plans.csv", "new plans\n");
    out_dir_path(&o, ".prev.plans.csv", path, sizeof path);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(out_dir_commit(&o, order, 3, &d), STATUS_IO);
    snprintf(want, sizeof want, "%s/plans.csv: cannot write: Is a directory",
             f->dir);
    assert_string_equal(d.msg, want);
    assert_string_equal(text_of(f->dir, "report.xlsx"), "old report\n");
    assert_string_equal(text_of(f->dir, "plans.csv"), "old plans\n");
    assert_string_equal(text_of(f->dir, "memory.png"), "(none)");
    assert_string_equal(text_of(o.stage, "report.xlsx"), "new report\n");
    assert_string_equal(text_of(o.stage, "memory.png"), "new chart\n");
    assert_string_equal(text_of(o.stage, ".commit"), "(none)");
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
    write_text(o.stage, "report.xlsx", "half a report\n");
    out_dir_abort(&o);
    assert_string_equal(o.stage, "");
    assert_int_equal(staged_dirs(f->dir), 0);
    assert_string_equal(text_of(f->dir, "report.xlsx"), "old report\n");
    assert_string_equal(text_of(f->dir, "plans.csv"), "old plans\n");
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
    write_text(f->top, "file", "x\n");
    snprintf(below, sizeof below, "%s/file/out", f->top);
    assert_int_equal(out_dir_open(&o, below, NULL, &waited, &d), STATUS_IO);
    snprintf(want, sizeof want, "%s: cannot create: Not a directory", below);
    assert_string_equal(d.msg, want);
    out_dir_close(&o);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
