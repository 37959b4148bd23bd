/*
 * test_out_dir: a report written all at once or not at all, in a
 * temporary directory: files staged in a private directory, committed by
 * rename, the earlier report's files this one lacks removed, the earlier
 * report put back when a rename fails half-way, and nothing left behind
 * by an abort.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

/* Entries of dir whose name starts with ".roofplan-" (staging). */
static int staged_dirs(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        n += strncmp(e->d_name, ".roofplan-", 10) == 0;
    closedir(d);
    return n;
}

/* The earlier report: report.xlsx and plans.csv, and a file of the
 * user's that is no report file. */
static void earlier_report(const struct fixture *f)
{
    struct out_dir o;
    struct diag d;
    bool waited;
    diag_init(&d);
    assert_int_equal(out_dir_open(&o, f->dir, &waited, &d), STATUS_OK);
    out_dir_close(&o);
    write_text(f->dir, "report.xlsx", "old report\n");
    write_text(f->dir, "plans.csv", "old plans\n");
    write_text(f->dir, "notes.txt", "mine\n");
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
    assert_int_equal(out_dir_open(&o, deep, &waited, &d), STATUS_OK);
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
    assert_int_equal(out_dir_open(&o, f->dir, &waited, &d), STATUS_OK);
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
}

/*
 * A rename that fails half-way (the staged plans.csv is a directory, the
 * earlier one a file: ENOTDIR) after report.xlsx and memory.png were
 * moved in: the earlier report is put back — report.xlsx and plans.csv
 * as they were, memory.png (new) gone — and the message names the file.
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
    assert_int_equal(out_dir_open(&o, f->dir, &waited, &d), STATUS_OK);
    write_text(o.stage, "report.xlsx", "new report\n");
    write_text(o.stage, "memory.png", "new chart\n");
    out_dir_path(&o, "plans.csv", path, sizeof path);
    assert_int_equal(mkdir(path, 0700), 0);
    assert_int_equal(out_dir_commit(&o, order, 3, &d), STATUS_IO);
    snprintf(want, sizeof want, "%s/plans.csv: cannot write: Not a directory",
             f->dir);
    assert_string_equal(d.msg, want);
    assert_string_equal(text_of(f->dir, "report.xlsx"), "old report\n");
    assert_string_equal(text_of(f->dir, "plans.csv"), "old plans\n");
    assert_string_equal(text_of(f->dir, "memory.png"), "(none)");
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
    assert_int_equal(out_dir_open(&o, f->dir, &waited, &d), STATUS_OK);
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
    assert_int_equal(out_dir_open(&o, "", &waited, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "--out: empty directory name");
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    assert_int_equal(out_dir_open(&o, big, &waited, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "--out: the directory name has 901 "
                               "characters; at most 900 fit");
    write_text(f->top, "file", "x\n");
    snprintf(below, sizeof below, "%s/file/out", f->top);
    assert_int_equal(out_dir_open(&o, below, &waited, &d), STATUS_IO);
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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
