/*
 * test_out_dir_stale: the marks that tell the clean-up a staging
 * directory a run of this user made from a directory merely named like
 * one (issue 34, item 1). A run marks its staging directory; the next run
 * removes a stale one only when that mark is a regular file of its user
 * naming the very directory it is in. A directory of the user's that
 * another user renamed into a staging directory's name, one with a mark
 * copied from elsewhere, or with a mark of another user's, is left alone
 * with its files, and counted. (The rest of the clean-up: test_out_dir.c.)
 */
#define _GNU_SOURCE /* setresuid, setgroups */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "out_dir.h"
#include "test_util.h"

struct fixture {
    char top[64];
    char dir[96]; /* the output directory: top/out */
};

static int setup(void **state)
{
    static struct fixture f;
    snprintf(f.top, sizeof f.top, "/tmp/test_out_dir_stale_XXXXXX");
    if (!mkdtemp(f.top))
        return -1;
    snprintf(f.dir, sizeof f.dir, "%s/out", f.top);
    if (mkdir(f.dir, 0777) != 0)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    return util_remove_tree(f->top);
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

/* The mark a run (pid, since) puts into its staging directory `stage`,
 * as out_dir_stale.h spells it: the directory's device and inode as
 * stat gives them, and the run. */
static void
mark_text(const char *stage, long pid, long long since, char *buf, size_t size)
{
    struct stat st;
    assert_int_equal(stat(stage, &st), 0);
    snprintf(buf, size,
             "roofplan staging directory: dev %llu ino %llu pid %ld since "
             "%lld\n",
             (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, pid,
             since);
}

/* The name of the staging directory of an ended run, made now, in f's
 * output directory, into buf; its pid and time into *pid, *since. */
static void
stale_name(const struct fixture *f, long *pid, long long *since, char *buf)
{
    *pid = ended_pid();
    *since = (long long)time(NULL);
    snprintf(buf, 1024, "%s/.roofplan-%ld-%lld-Ab12Cd", f->dir, *pid, *since);
}

/* Runs fn(arg) in a child process, as user nobody when `nobody` (the
 * tests run as root) or else as this user; fails the test unless it
 * returns 0. */
static void as_other(bool nobody, int (*fn)(const void *), const void *arg)
{
    struct passwd *pw = getpwnam("nobody");
    uid_t uid = pw ? pw->pw_uid : 65534;
    gid_t gid = pw ? pw->pw_gid : 65534;
    pid_t pid = fork();
    int status;
    assert_true(pid >= 0);
    if (pid == 0) {
        if (nobody &&
            (setgroups(0, NULL) != 0 || setresgid(gid, gid, gid) != 0 ||
             setresuid(uid, uid, uid) != 0))
            _exit(2);
        _exit(fn(arg));
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* A directory and the name it is renamed to. */
struct rename_args {
    const char *from, *to;
};

static int rename_dir(const void *arg)
{
    const struct rename_args *r = arg;
    return rename(r->from, r->to) == 0 ? 0 : 3;
}

/* A run killed without a word (kill -9; here a child that exits without
 * closing): its staging directory's path into buf. */
static void killed_run(const struct fixture *f, char *buf, size_t size)
{
    int fds[2], status;
    ssize_t got;
    pid_t pid;
    assert_int_equal(pipe(fds), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        struct out_dir o;
        struct diag d;
        char path[1200];
        bool waited;
        FILE *fp;
        diag_init(&d);
        if (out_dir_open(&o, f->dir, NULL, &waited, &d) != STATUS_OK)
            _exit(2);
        out_dir_path(&o, "plans.csv", path, sizeof path);
        fp = fopen(path, "w");
        if (!fp || fputs("half\n", fp) == EOF || fclose(fp) != 0 ||
            write(fds[1], o.stage, sizeof o.stage) != (ssize_t)sizeof o.stage)
            _exit(3);
        _exit(0);
    }
    close(fds[1]);
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    assert_int_equal(WEXITSTATUS(status), 0);
    got = read(fds[0], buf, size);
    close(fds[0]);
    assert_true(got > 0);
    buf[size - 1] = '\0';
}

/* The run marks its staging directory: OUT_DIR_STAGE_MARK holds one line
 * naming the directory (device, inode) and the run (pid, since: as its
 * name says), a regular file of the run's user, 0600. When the run ends
 * without a word (kill -9), the next run removes its staging directory. */
static void test_out_dir_stale_mark_written_and_honoured(void **state)
{
    struct fixture *f = *state;
    struct out_dir next;
    struct diag d;
    struct stat st;
    char stage[OUT_DIR_MAX + 64], want[256], mark[1100], *end;
    const char *p;
    long pid;
    long long since;
    bool waited;
    killed_run(f, stage, sizeof stage);
    p = stage + strlen(f->dir) + strlen("/.roofplan-");
    pid = strtol(p, &end, 10);
    assert_true(*end == '-');
    since = strtoll(end + 1, &end, 10);
    assert_true(*end == '-');
    mark_text(stage, pid, since, want, sizeof want);
    assert_string_equal(util_read_text(stage, ".roofplan-stage"), want);
    snprintf(mark, sizeof mark, "%s/.roofplan-stage", stage);
    assert_int_equal(lstat(mark, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    assert_int_equal(st.st_uid, geteuid());
    assert_int_equal(st.st_mode & 0777, 0600);
    assert_string_equal(util_read_text(stage, "plans.csv"), "half\n");
    diag_init(&d);
    assert_int_equal(out_dir_open(&next, f->dir, NULL, &waited, &d), STATUS_OK);
    out_dir_close(&next);
    assert_int_equal(next.stale, 1);
    assert_int_equal(next.unmarked, 0);
    assert_int_equal(access(stage, F_OK), -1);
}

/*
 * Issue 34, item 1, a renamed directory: in a folder another user may
 * write (0777, not sticky), that user (nobody, where the tests run as
 * root; else this user) renames a directory of the run's user, with its
 * files, into the name of an ended run's staging directory. The next run
 * leaves it alone with its files, and counts it; before, it emptied and
 * removed it.
 */
static void test_out_dir_stale_leaves_renamed_dir(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char mine[1024], stale[1024];
    struct rename_args r = {mine, stale};
    long pid;
    long long since;
    bool waited;
    if (geteuid() == 0)
        assert_int_equal(chmod(f->top, 0711), 0); /* nobody may pass */
    assert_int_equal(chmod(f->dir, 0777), 0);
    snprintf(mine, sizeof mine, "%s/results", f->dir);
    assert_int_equal(mkdir(mine, 0755), 0);
    util_write_text(mine, "notes.txt", "mine\n");
    util_write_text(mine, "report.xlsx", "my own\n");
    stale_name(f, &pid, &since, stale);
    as_other(geteuid() == 0, rename_dir, &r);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    out_dir_close(&o);
    assert_int_equal(o.unmarked, 1);
    assert_int_equal(o.stale, 0);
    assert_int_equal(o.foreign, 0);
    assert_string_equal(util_read_text(stale, "notes.txt"), "mine\n");
    assert_string_equal(util_read_text(stale, "report.xlsx"), "my own\n");
}

/* A stale staging directory whose mark names another directory (copied
 * from another run's: device and inode not this directory's) is no run's
 * own: left alone with its files, counted. Before, it was removed. */
static void test_out_dir_stale_leaves_copied_mark(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char stale[1024], other[1024], mark[256];
    long pid;
    long long since;
    bool waited;
    stale_name(f, &pid, &since, stale);
    assert_int_equal(mkdir(stale, 0700), 0);
    snprintf(other, sizeof other, "%s/other", f->top);
    assert_int_equal(mkdir(other, 0700), 0);
    mark_text(other, pid, since, mark, sizeof mark);
    util_write_text(stale, ".roofplan-stage", mark);
    util_write_text(stale, "notes.txt", "kept\n");
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    out_dir_close(&o);
    assert_int_equal(o.unmarked, 1);
    assert_int_equal(o.stale, 0);
    assert_string_equal(util_read_text(stale, "notes.txt"), "kept\n");
    assert_string_equal(util_read_text(stale, ".roofplan-stage"), mark);
}

/* What nobody writes: the mark text at path. */
struct mark_args {
    const char *path, *text;
};

static int write_mark(const void *arg)
{
    const struct mark_args *m = arg;
    FILE *f = fopen(m->path, "w");
    if (!f)
        return 3;
    fputs(m->text, f);
    return fclose(f) == 0 ? 0 : 4;
}

/* Where the tests run as root: a directory of root's that nobody may
 * write (0777), renamed into a staging directory's name, with a mark
 * nobody wrote naming it rightly. A mark of another user's is none:
 * left alone, counted. Before, the directory was emptied and removed. */
static void test_out_dir_stale_leaves_other_users_mark(void **state)
{
    struct fixture *f = *state;
    struct out_dir o;
    struct diag d;
    char stale[1024], mark[256], path[1100];
    struct mark_args m = {path, mark};
    long pid;
    long long since;
    bool waited;
    if (geteuid() != 0) {
        print_message("skipped: not root, so no second user to write a "
                      "mark\n");
        skip();
    }
    assert_int_equal(chmod(f->top, 0711), 0);
    stale_name(f, &pid, &since, stale);
    assert_int_equal(mkdir(stale, 0777), 0);
    assert_int_equal(chmod(stale, 0777), 0);
    util_write_text(stale, "notes.txt", "root's\n");
    mark_text(stale, pid, since, mark, sizeof mark);
    snprintf(path, sizeof path, "%s/.roofplan-stage", stale);
    as_other(true, write_mark, &m);
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, NULL, &waited, &d), STATUS_OK);
    out_dir_close(&o);
    assert_int_equal(o.unmarked, 1);
    assert_int_equal(o.stale, 0);
    assert_string_equal(util_read_text(stale, "notes.txt"), "root's\n");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_out_dir_stale_mark_written_and_honoured, setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_stale_leaves_renamed_dir,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_out_dir_stale_leaves_copied_mark,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_out_dir_stale_leaves_other_users_mark, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
