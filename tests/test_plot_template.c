/*
 * test_plot_template: reading a template and filling its @PLACEHOLDERS@
 * (values inserted once, never rescanned; unknown names are errors with
 * their line).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "plot_template.h"

/* Expands template text with v into a new string (test-owned). */
static enum status expand_text(const char *text,
                               struct plot_template_vars *v,
                               char **out,
                               struct diag *d)
{
    struct plot_text tpl = {0}, got = {0};
    enum status st;
    plot_text_add(&tpl, text, strlen(text));
    st = plot_template_expand(&tpl, "t.gp.in", v, &got, d);
    plot_text_release(&tpl);
    *out = got.p ? got.p : calloc(1, 1);
    return st;
}

static void test_plot_template_expand_fills_placeholders(void **state)
{
    struct plot_template_vars v;
    struct diag d;
    char *out;
    (void)state;
    memset(&v, 0, sizeof v);
    diag_init(&d);
    plot_template_set_num(&v, "XMAX", 0.1 + 0.2); /* %.12g: 0.3 */
    plot_template_set_str(&v, "TITLE", "it's");
    plot_text_printf(plot_template_var(&v, "CODE"), "a\n");
    plot_text_printf(plot_template_var(&v, "CODE"), "b\n");
    assert_int_equal(
        expand_text("x = @XMAX@\nt = @TITLE@\n@CODE@end", &v, &out, &d),
        STATUS_OK);
    assert_string_equal(out, "x = 0.3\nt = 'it''s'\na\nb\nend");
    free(out);
    plot_template_vars_release(&v);
}

static void test_plot_template_expand_never_rescans_values(void **state)
{
    struct plot_template_vars v;
    struct diag d;
    char *out;
    (void)state;
    memset(&v, 0, sizeof v);
    diag_init(&d);
    /* a model named "@B@" stays text even though B is a placeholder */
    plot_template_set_str(&v, "A", "@B@");
    plot_template_set_num(&v, "B", 2);
    assert_int_equal(expand_text("@A@ @B@", &v, &out, &d), STATUS_OK);
    assert_string_equal(out, "'@B@' 2");
    free(out);
    plot_template_vars_release(&v);
}

static void test_plot_template_expand_copies_stray_at_signs(void **state)
{
    struct plot_template_vars v;
    struct diag d;
    char *out;
    (void)state;
    memset(&v, 0, sizeof v);
    diag_init(&d);
    plot_template_set_num(&v, "N", 7);
    /* not a placeholder: lower case, empty, unclosed, at the end */
    assert_int_equal(expand_text("a@b@ @@ x@N@ @N @", &v, &out, &d), STATUS_OK);
    assert_string_equal(out, "a@b@ @@ x7 @N @");
    free(out);
    plot_template_vars_release(&v);
}

static void test_plot_template_expand_rejects_unknown_name(void **state)
{
    struct plot_template_vars v;
    struct diag d;
    char *out;
    (void)state;
    memset(&v, 0, sizeof v);
    diag_init(&d);
    plot_template_set_num(&v, "NFAM", 1);
    assert_int_equal(expand_text("# x\n@NFAM@\ny = @NOPE@\n", &v, &out, &d),
                     STATUS_PARSE);
    assert_string_equal(d.msg, "t.gp.in:3: unknown placeholder @NOPE@");
    free(out);
    plot_template_vars_release(&v);
}

static void test_plot_template_var_overflow_marks_full(void **state)
{
    struct plot_template_vars v;
    char name[16];
    size_t i;
    (void)state;
    memset(&v, 0, sizeof v);
    for (i = 0; i < PLOT_TEMPLATE_VARS_MAX; i++) {
        snprintf(name, sizeof name, "V%zu", i);
        plot_template_set_num(&v, name, (double)i);
    }
    assert_false(plot_template_vars_nomem(&v));
    plot_template_set_num(&v, "ONE_TOO_MANY", 1);
    assert_true(v.full);
    assert_true(plot_template_vars_nomem(&v));
    plot_template_vars_release(&v);
    assert_int_equal(v.n, 0);
}

static void test_plot_template_read_reports_missing_file(void **state)
{
    struct plot_text t = {0};
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(plot_template_read("/nonexistent/x.gp.in", &t, &d),
                     STATUS_IO);
    assert_string_equal(d.msg, "/nonexistent/x.gp.in: cannot open: No such "
                               "file or directory");
    plot_text_release(&t);
}

static void test_plot_template_read_reads_whole_file(void **state)
{
    char path[] = "/tmp/roofplan-tpl-XXXXXX";
    struct plot_text t = {0};
    struct diag d;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "set x\n@A@\n", 10), 10);
    assert_int_equal(close(fd), 0);
    diag_init(&d);
    assert_int_equal(plot_template_read(path, &t, &d), STATUS_OK);
    assert_int_equal(t.len, 10);
    assert_string_equal(t.p, "set x\n@A@\n");
    plot_text_release(&t);
    unlink(path);
}

static void test_plot_template_read_rejects_huge_file(void **state)
{
    char path[] = "/tmp/roofplan-tpl-XXXXXX", want[128];
    struct plot_text t = {0};
    struct diag d;
    int fd = mkstemp(path);
    (void)state;
    assert_true(fd >= 0);
    /* one byte over the limit (sparse: no disk used) */
    assert_int_equal(ftruncate(fd, PLOT_TEMPLATE_MAX + 1), 0);
    assert_int_equal(close(fd), 0);
    diag_init(&d);
    assert_int_equal(plot_template_read(path, &t, &d), STATUS_IO);
    snprintf(want, sizeof want, "%s: larger than %d bytes", path,
             PLOT_TEMPLATE_MAX);
    assert_string_equal(d.msg, want);
    plot_text_release(&t);
    unlink(path);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plot_template_expand_fills_placeholders),
        cmocka_unit_test(test_plot_template_expand_never_rescans_values),
        cmocka_unit_test(test_plot_template_expand_copies_stray_at_signs),
        cmocka_unit_test(test_plot_template_expand_rejects_unknown_name),
        cmocka_unit_test(test_plot_template_var_overflow_marks_full),
        cmocka_unit_test(test_plot_template_read_reports_missing_file),
        cmocka_unit_test(test_plot_template_read_reads_whole_file),
        cmocka_unit_test(test_plot_template_read_rejects_huge_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
