/*
 * test_input_file: the one reader of input files refuses what is not a
 * regular file without waiting on it (a FIFO with no writer, a
 * directory), bounds the size, and reads or streams a regular file whole.
 * Every test with a FIFO runs under alarm(): a reader that blocks on the
 * FIFO's open is killed by SIGALRM and fails the test instead of hanging.
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_input_file_read_refuses_fifo_without_blocking),
        cmocka_unit_test(test_input_file_open_refuses_fifo_without_blocking),
        cmocka_unit_test(test_input_file_read_refuses_directory),
        cmocka_unit_test(test_input_file_read_reports_missing_file),
        cmocka_unit_test(test_input_file_read_bounds_size),
        cmocka_unit_test(test_input_file_open_streams_whole_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
