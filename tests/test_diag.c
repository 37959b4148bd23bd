/*
 * test_diag: the bounded multi-line error record — whole lines only, and a
 * closing count of the problems it could not show.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "diag.h"

static size_t count_lines(const char *msg)
{
    size_t n = *msg ? 1 : 0;
    for (; *msg; msg++)
        if (*msg == '\n')
            n++;
    return n;
}

static const char *last_line(const char *msg)
{
    const char *nl = strrchr(msg, '\n');
    return nl ? nl + 1 : msg;
}

/* Past DIAG_LINES_MAX lines, only a count: "... and 5 more problems". */
static void test_diag_finish_counts_lines_over_the_cap(void **state)
{
    struct diag d;
    int i;
    (void)state;
    diag_init(&d);
    for (i = 1; i <= DIAG_LINES_MAX + 5; i++)
        diag_add(&d, STATUS_PARSE, "x.ini:%d: bad", i);
    diag_finish(&d);
    assert_int_equal(d.status, STATUS_PARSE);
    assert_int_equal(count_lines(d.msg), DIAG_LINES_MAX + 1);
    assert_string_equal(last_line(d.msg), "... and 5 more problems");
}

/*
 * Lines that no longer fit the buffer (long paths) are counted, never cut
 * in the middle, and the note still fits: it was lost before.
 */
static void test_diag_add_keeps_whole_lines_when_full(void **state)
{
    struct diag d;
    char path[201];
    size_t shown;
    char want[64];
    int i;
    (void)state;
    memset(path, 'p', sizeof path - 1);
    path[sizeof path - 1] = '\0';
    diag_init(&d);
    for (i = 1; i <= 30; i++)
        diag_add(&d, STATUS_PARSE, "%s:%d: bad", path, i);
    diag_finish(&d);
    shown = count_lines(d.msg) - 1;
    assert_true(shown < 30);
    snprintf(want, sizeof want, ":%zu: bad\n... and %zu more problems", shown,
             30 - shown);
    assert_non_null(strstr(d.msg, want));
}

/* A single line longer than the buffer is cut rather than lost. */
static void test_diag_set_cuts_an_overlong_line(void **state)
{
    static char huge[DIAG_MSG_MAX * 2];
    struct diag d;
    (void)state;
    memset(huge, 'h', sizeof huge - 1);
    diag_set(&d, STATUS_IO, "%s: cannot open", huge);
    assert_int_equal(d.status, STATUS_IO);
    assert_true(strlen(d.msg) > DIAG_MSG_MAX / 2);
    assert_true(strlen(d.msg) < DIAG_MSG_MAX);
}

/*
 * Cut inside a character, a message would stop being text (the fuzz
 * targets reject it, as a terminal would garble it). Whatever the
 * alignment, the cut line ends after a whole "\u20ac" (3 bytes: E2 82 AC).
 */
static void test_diag_cut_keeps_whole_characters(void **state)
{
    static char euros[DIAG_MSG_MAX * 2];
    const char *prefixes[] = {"", "x", "xy", "xyz"};
    size_t i, n;
    struct diag d;
    (void)state;
    for (n = 0; n + 3 < sizeof euros; n += 3)
        memcpy(euros + n, "\xe2\x82\xac", 3);
    euros[n] = '\0';
    for (i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
        size_t len;
        diag_set(&d, STATUS_PARSE, "%s%s", prefixes[i], euros);
        len = strlen(d.msg);
        assert_true(len > DIAG_MSG_MAX / 2);
        assert_int_equal((len - strlen(prefixes[i])) % 3, 0);
        assert_memory_equal(d.msg + len - 3, "\xe2\x82\xac", 3);
    }
}

/*
 * A name copied into a fixed buffer (a model named by its folder, 127
 * bytes of room) is cut, never made into something not text. "\xD0\xB4"
 * (Cyrillic de) is 2 bytes: 7 bytes of room hold 3 whole characters and
 * half of a fourth, which is dropped; "\xF0\x9F\x9A\x80" (4 bytes) in 6
 * bytes of room after "ab" fits whole, in 5 not at all.
 */
static void test_diag_snprintf_cuts_at_a_character_boundary(void **state)
{
    const char *de4 = "\xD0\xB4\xD0\xB4\xD0\xB4\xD0\xB4";
    char buf[8];
    (void)state;
    assert_int_equal(diag_snprintf(buf, sizeof buf, "%s", de4), 8);
    assert_string_equal(buf, "\xD0\xB4\xD0\xB4\xD0\xB4");
    assert_int_equal(diag_snprintf(buf, 7, "ab%s", "\xF0\x9F\x9A\x80"), 6);
    assert_string_equal(buf, "ab\xF0\x9F\x9A\x80");
    assert_int_equal(diag_snprintf(buf, 6, "ab%s", "\xF0\x9F\x9A\x80"), 6);
    assert_string_equal(buf, "ab");
    assert_int_equal(diag_snprintf(buf, sizeof buf, "%s", "abc"), 3);
    assert_string_equal(buf, "abc");
    /* the same cut as diag_utf8_cut, and as "%.*s" with diag_utf8_prec */
    assert_int_equal(diag_utf8_cut(de4, 7), 6);
    assert_int_equal(diag_utf8_cut(de4, 6), 6);
    assert_int_equal(diag_utf8_cut("abc", 2), 2);
    assert_int_equal(diag_utf8_prec(de4, 5), 4);
    assert_int_equal(diag_utf8_prec(de4, 100), 8);
    assert_int_equal(diag_utf8_prec("ab", 2), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_diag_finish_counts_lines_over_the_cap),
        cmocka_unit_test(test_diag_add_keeps_whole_lines_when_full),
        cmocka_unit_test(test_diag_set_cuts_an_overlong_line),
        cmocka_unit_test(test_diag_cut_keeps_whole_characters),
        cmocka_unit_test(test_diag_snprintf_cuts_at_a_character_boundary),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
