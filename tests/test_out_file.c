/*
 * test_out_file: atomic replacement of one output file, in a temporary
 * directory: the temporary file beside its target with a new file's
 * permissions, the rename over the target, and on every failure no
 * temporary file left and the target as it was.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "out_file.h"
#include "test_util.h"

struct fixture {
    char dir[64];
};

static int setup(void **state)
{
    static struct fixture f;
    snprintf(f.dir, sizeof f.dir, "/tmp/test_out_file_XXXXXX");
    if (!mkdtemp(f.dir))
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    return util_remove_tree(f->dir);
}

/* "DIR/x.csv" is staged as "DIR/.x.csv.XXXXXX", mode 0666 less the
 * umask (022: 0644, where mkstemp alone gives 0600), and renamed over
 * the earlier x.csv. */
static void test_out_file_replaces_target(void **state)
{
    struct fixture *f = *state;
    char path[128], tmp[160], prefix[128];
    struct stat st;
    struct diag d;
    mode_t old = umask(022);
    snprintf(path, sizeof path, "%s/x.csv", f->dir);
    snprintf(prefix, sizeof prefix, "%s/.x.csv.", f->dir);
    util_write_text(NULL, path, "earlier\n");
    diag_init(&d);
    assert_int_equal(out_file_temp(path, tmp, sizeof tmp, &d), STATUS_OK);
    umask(old);
    assert_int_equal(strncmp(tmp, prefix, strlen(prefix)), 0);
    assert_int_equal(strlen(tmp), strlen(prefix) + 6);
    assert_int_equal(stat(tmp, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0644);
    util_write_text(NULL, tmp, "new\n");
    assert_string_equal(util_read_text(NULL, path),
                        "earlier\n"); /* untouched until the commit */
    assert_int_equal(out_file_commit(tmp, path, &d), STATUS_OK);
    assert_string_equal(util_read_text(NULL, path), "new\n");
    assert_int_not_equal(access(tmp, F_OK), 0);
}

/* A rename over a directory fails (EISDIR): the temporary file goes, the
 * directory stays, and the message names the target. */
static void test_out_file_commit_failure_removes_temp(void **state)
{
    struct fixture *f = *state;
    char path[128], tmp[160], want[256];
    struct stat st;
    struct diag d;
    snprintf(path, sizeof path, "%s/sub", f->dir);
    assert_int_equal(mkdir(path, 0700), 0);
    diag_init(&d);
    assert_int_equal(out_file_temp(path, tmp, sizeof tmp, &d), STATUS_OK);
    assert_int_equal(out_file_commit(tmp, path, &d), STATUS_IO);
    snprintf(want, sizeof want, "%s: cannot write: Is a directory", path);
    assert_string_equal(d.msg, want);
    assert_int_not_equal(access(tmp, F_OK), 0);
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

/* No directory to write in, or no room for the temporary name. */
static void test_out_file_temp_failures(void **state)
{
    struct fixture *f = *state;
    char path[128], tmp[160], want[256], small[8];
    struct diag d;
    snprintf(path, sizeof path, "%s/none/x.csv", f->dir);
    diag_init(&d);
    assert_int_equal(out_file_temp(path, tmp, sizeof tmp, &d), STATUS_IO);
    snprintf(want, sizeof want, "%s: cannot write: No such file or directory",
             path);
    assert_string_equal(d.msg, want);
    assert_int_equal(out_file_temp("x.csv", small, sizeof small, &d),
                     STATUS_IO);
    assert_string_equal(d.msg, "x.csv: cannot write: path too long");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_out_file_replaces_target),
        cmocka_unit_test(test_out_file_commit_failure_removes_temp),
        cmocka_unit_test(test_out_file_temp_failures),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
