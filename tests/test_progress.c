/*
 * test_progress: the progress line (progress.c): its text at each stage
 * of a step, and what a step writes when asked (always): a line at its
 * start, the count from several threads adding at once, and a closing
 * line with the step's total. Never timing: the updates' spacing is
 * PROGRESS_EVERY_S, which a test on a loaded machine cannot hold to.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "progress.h"

static void test_progress_format_lines(void **state)
{
    char buf[PROGRESS_LINE];
    (void)state;
    progress_format("roofplan", "sweep", "combinations", 4571136, 10160640, 3.2,
                    false, buf, sizeof buf);
    assert_string_equal(buf, "roofplan: sweep: 4,571,136 of 10,160,640 "
                             "combinations (45%), 3.2 s, about 3.9 s left");
    progress_format("roofplan", "sweep", "combinations", 1000, 1000000, 20,
                    false, buf, sizeof buf);
    assert_string_equal(buf, "roofplan: sweep: 1,000 of 1,000,000 "
                             "combinations (0%), 20.0 s, about 19980 s left");
    progress_format("roofplan", "charts", "charts", 0, 8, 0, false, buf,
                    sizeof buf);
    assert_string_equal(buf, "roofplan: charts: 0 of 8 charts, 0.0 s");
    progress_format("roofplan", "report.xlsx", "rows", 12, 0, 1.25, false, buf,
                    sizeof buf);
    assert_string_equal(buf, "roofplan: report.xlsx: 12 rows, 1.2 s");
    progress_format("roofplan", "sweep", "combinations", 48384, 48384, 0.84,
                    true, buf, sizeof buf);
    assert_string_equal(buf, "roofplan: sweep: 48,384 combinations in 0.8 s");
}

struct adder {
    struct progress *p;
    int n;
};

static void *add_many(void *arg)
{
    struct adder *a = arg;
    int i;
    for (i = 0; i < a->n; i++)
        progress_add(a->p, 1);
    return NULL;
}

/* Reads the whole of f into a string of the caller's (free). */
static char *slurp(FILE *f)
{
    long n;
    char *s;
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n >= 0);
    rewind(f);
    s = calloc((size_t)n + 1, 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
    return s;
}

static void test_progress_threads_count_into_one_line(void **state)
{
    struct progress p;
    struct adder a = {&p, 50000};
    pthread_t t[4];
    FILE *f = tmpfile();
    char *s, *last;
    size_t i;
    (void)state;
    assert_non_null(f);
    progress_init(&p, f, "roofplan", PROGRESS_ALWAYS);
    progress_begin(&p, "sweep", "combinations", 200000);
    for (i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&t[i], NULL, add_many, &a), 0);
    for (i = 0; i < 4; i++)
        pthread_join(t[i], NULL);
    progress_end(&p);
    progress_release(&p);
    s = slurp(f);
    /* begins with the step's first line, rewritten in place with '\r',
     * and ends with its total on a line of its own */
    assert_true(strncmp(s,
                        "\rroofplan: sweep: 0 of 200,000 combinations, "
                        "0.0 s",
                        strlen("\rroofplan: sweep: 0 of 200,000 "
                               "combinations, 0.0 s")) == 0);
    assert_ptr_equal(strchr(s, '\n'), s + strlen(s) - 1);
    last = strrchr(s, '\r');
    assert_non_null(last);
    assert_true(strncmp(last, "\rroofplan: sweep: 200,000 combinations in ",
                        strlen("\rroofplan: sweep: 200,000 combinations "
                               "in ")) == 0);
    free(s);
    fclose(f);
}

/* Off (a pipe without --progress, or -q): nothing is written. */
static void test_progress_off_writes_nothing(void **state)
{
    struct progress p;
    FILE *f = tmpfile();
    (void)state;
    assert_non_null(f);
    progress_init(&p, f, "roofplan", PROGRESS_NEVER);
    progress_begin(&p, "sweep", "combinations", 10);
    progress_add(&p, 10);
    progress_end(&p);
    progress_release(&p);
    assert_int_equal(ftell(f), 0);
    progress_begin(NULL, "sweep", "combinations", 10); /* no-ops */
    progress_add(NULL, 1);
    progress_end(NULL);
    progress_release(NULL);
    fclose(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_progress_format_lines),
        cmocka_unit_test(test_progress_threads_count_into_one_line),
        cmocka_unit_test(test_progress_off_writes_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
