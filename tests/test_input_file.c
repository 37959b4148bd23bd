/*
 * test_input_file: the one reader of input files refuses what is not a
 * regular file without waiting on it (a FIFO with no writer, a
 * directory), bounds the size, and reads or streams a regular file whole.
 * Every test with a FIFO runs under alarm(): a reader that blocks on the
 * FIFO's open is killed by SIGALRM and fails the test instead of hanging.
 * input_file_read_at() (a file of roofplan's own, by a directory
 * descriptor) follows no link and takes a missing file for none.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_file.h"
#include "test_util.h"

/* A FIFO in a fresh temporary directory; path receives its name. */
static void make_fifo(char *dir, char *path, size_t size)
{
    assert_non_null(mkdtemp(dir));
    snprintf(path, size, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
}

static void test_input_file_read_refuses_fifo_without_blocking(void **state)
{
    char dir[] = "/tmp/roofplan-in-XXXXXX", path[64], *text = NULL;
    size_t len = 0;
    struct diag d;
    (void)state;
    make_fifo(dir, path, sizeof path);
    diag_init(&d);
    alarm(10);
    assert_int_equal(input_file_read(path, 1024, &text, &len, &d), STATUS_IO);
    alarm(0);
    util_expect_msg(&d, path, ": not a regular file");
    assert_null(text);
    unlink(path);
    rmdir(dir);
}

static void test_input_file_open_refuses_fifo_without_blocking(void **state)
{
    char dir[] = "/tmp/roofplan-in-XXXXXX", path[64];
    FILE *f = (FILE *)1;
    size_t size = 0;
    struct diag d;
    (void)state;
    make_fifo(dir, path, sizeof path);
    diag_init(&d);
    alarm(10);
    assert_int_equal(input_file_open(path, 0, &f, &size, &d), STATUS_IO);
    alarm(0);
    util_expect_msg(&d, path, ": not a regular file");
    assert_null(f);
    unlink(path);
    rmdir(dir);
}

static void test_input_file_read_refuses_directory(void **state)
{
    char *text = NULL;
    size_t len = 0;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(input_file_read("tests", 1024, &text, &len, &d),
                     STATUS_IO);
    assert_string_equal(d.msg, "tests: not a regular file");
}

static void test_input_file_read_reports_missing_file(void **state)
{
    char *text = NULL;
    size_t len = 0;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        input_file_read("/nonexistent/x.ini", 1024, &text, &len, &d),
        STATUS_IO);
    assert_string_equal(d.msg, "/nonexistent/x.ini: cannot open: No such "
                               "file or directory");
}

static void test_input_file_read_bounds_size(void **state)
{
    char path[] = "/tmp/roofplan-in-XXXXXX", *text = NULL;
    size_t len = 0;
    struct diag d;
    (void)state;
    util_temp_file(path, "12345", 5);
    diag_init(&d);
    /* 5 bytes against a bound of 4: refused before reading */
    assert_int_equal(input_file_read(path, 4, &text, &len, &d), STATUS_PARSE);
    util_expect_msg(&d, path, ": too large (5 bytes; at most 4)");
    assert_null(text);
    /* and at the bound itself, read */
    diag_init(&d);
    assert_int_equal(input_file_read(path, 5, &text, &len, &d), STATUS_OK);
    assert_int_equal(len, 5);
    assert_string_equal(text, "12345");
    free(text);
    unlink(path);
}

static void test_input_file_open_streams_whole_file(void **state)
{
    char path[] = "/tmp/roofplan-in-XXXXXX", buf[32];
    FILE *f = NULL;
    size_t size = 0, n;
    struct diag d;
    (void)state;
    util_temp_file(path, "a\nbc\n", 5);
    diag_init(&d);
    assert_int_equal(input_file_open(path, 0, &f, &size, &d), STATUS_OK);
    assert_non_null(f);
    assert_int_equal(size, 5);
    n = fread(buf, 1, sizeof buf, f);
    assert_int_equal(n, 5);
    assert_memory_equal(buf, "a\nbc\n", 5);
    assert_int_equal(fclose(f), 0);
    unlink(path);
}

/* A temporary directory holding `name` with `text`, opened; its path
 * into dir (a mkdtemp template). */
static int dir_with(char *dir, const char *name, const char *text)
{
    char path[128];
    FILE *f;
    int fd;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    assert_true(fd >= 0);
    return fd;
}

/* Reads a file of the directory; a missing one is none, not an error. */
static void test_input_file_read_at_reads_and_misses(void **state)
{
    char dir[] = "/tmp/roofplan-in-XXXXXX", *text = NULL;
    size_t len = 9;
    struct diag d;
    int fd = dir_with(dir, "list", "a\nb\n");
    (void)state;
    diag_init(&d);
    assert_int_equal(
        input_file_read_at(fd, "list", "D/list", 64, &text, &len, &d),
        STATUS_OK);
    assert_int_equal(len, 4);
    assert_string_equal(text, "a\nb\n");
    free(text);
    assert_int_equal(
        input_file_read_at(fd, "none", "D/none", 64, &text, &len, &d),
        STATUS_OK);
    assert_null(text);
    assert_int_equal(len, 0);
    assert_int_equal(d.status, STATUS_OK);
    /* bounded as input_file_read() */
    assert_int_equal(
        input_file_read_at(fd, "list", "D/list", 3, &text, &len, &d),
        STATUS_PARSE);
    assert_string_equal(d.msg, "D/list: too large (4 bytes; at most 3)");
    close(fd);
    util_remove_tree(dir);
}

/* Issue 34, item 6: a link, even to a regular file of the same
 * directory, or to /dev/zero, is not followed: not a regular file
 * (input_file_read() of the same path reads through it). */
static void test_input_file_read_at_refuses_link(void **state)
{
    char dir[] = "/tmp/roofplan-in-XXXXXX", path[128], *text = NULL;
    size_t len = 0;
    struct diag d;
    int fd = dir_with(dir, "list", "a\n");
    (void)state;
    snprintf(path, sizeof path, "%s/link", dir);
    assert_int_equal(symlink("list", path), 0);
    diag_init(&d);
    assert_int_equal(input_file_read(path, 64, &text, &len, &d), STATUS_OK);
    assert_string_equal(text, "a\n");
    free(text);
    text = NULL;
    assert_int_equal(
        input_file_read_at(fd, "link", "D/link", 64, &text, &len, &d),
        STATUS_IO);
    assert_string_equal(d.msg, "D/link: not a regular file");
    assert_null(text);
    snprintf(path, sizeof path, "%s/zero", dir);
    assert_int_equal(symlink("/dev/zero", path), 0);
    diag_init(&d);
    alarm(10);
    assert_int_equal(
        input_file_read_at(fd, "zero", "D/zero", 64, &text, &len, &d),
        STATUS_IO);
    alarm(0);
    assert_string_equal(d.msg, "D/zero: not a regular file");
    close(fd);
    util_remove_tree(dir);
}

/* A FIFO is refused at once, without waiting for a writer. */
static void test_input_file_read_at_refuses_fifo(void **state)
{
    char dir[] = "/tmp/roofplan-in-XXXXXX", path[128], *text = NULL;
    size_t len = 0;
    struct diag d;
    int fd = dir_with(dir, "list", "a\n");
    (void)state;
    snprintf(path, sizeof path, "%s/fifo", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    diag_init(&d);
    alarm(10);
    assert_int_equal(
        input_file_read_at(fd, "fifo", "D/fifo", 64, &text, &len, &d),
        STATUS_IO);
    alarm(0);
    assert_string_equal(d.msg, "D/fifo: not a regular file");
    close(fd);
    util_remove_tree(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_file_read_refuses_fifo_without_blocking),
        cmocka_unit_test(test_input_file_open_refuses_fifo_without_blocking),
        cmocka_unit_test(test_input_file_read_refuses_directory),
        cmocka_unit_test(test_input_file_read_reports_missing_file),
        cmocka_unit_test(test_input_file_read_bounds_size),
        cmocka_unit_test(test_input_file_open_streams_whole_file),
        cmocka_unit_test(test_input_file_read_at_reads_and_misses),
        cmocka_unit_test(test_input_file_read_at_refuses_link),
        cmocka_unit_test(test_input_file_read_at_refuses_fifo),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
