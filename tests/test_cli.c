/*
 * test_cli: what roofplan's commands share (cli.c): the exit code of
 * each status (DESIGN.md §2: 0 success, 1 runtime failure, 2 bad usage
 * or input), the defaults file (paths resolved against the data
 * directory, a bad key named with file and line), SOURCE_DATE_EPOCH,
 * and where the data, the templates and the training recipe are found.
 * Tests that change the working directory run in a temporary one and
 * go back in their teardown, whatever happened.
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
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "test_util.h"

/* ---- A temporary working directory ---- */

struct tmp_cwd {
    char home[1024]; /* where the test binary ran from */
    char dir[64];    /* the temporary directory, the cwd during the test */
};

static int enter_tmp(void **state)
{
    static struct tmp_cwd t;
    snprintf(t.dir, sizeof t.dir, "/tmp/roofplan-test-cli-XXXXXX");
    if (!getcwd(t.home, sizeof t.home) || !mkdtemp(t.dir) || chdir(t.dir) != 0)
        return -1;
    *state = &t;
    return 0;
}

static int leave_tmp(void **state)
{
    struct tmp_cwd *t = *state;
    if (chdir(t->home) != 0)
        return -1;
    return util_remove_tree(t->dir) == 0 ? 0 : -1;
}

/* Writes text to path (relative to the cwd), making directory `dir`
 * first when it is not NULL. */
static void write_file(const char *dir, const char *path, const char *text)
{
    FILE *f;
    if (dir && mkdir(dir, 0700) != 0)
        fail_msg("%s: cannot create", dir);
    f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        fail_msg("%s: cannot write", path);
}

#define DEFAULTS                                                  \
    "[inputs]\nmodel = models/m.ini\nhardware = hardware/h.ini\n" \
    "sweep = sweeps/s.ini\ntraining = training/mine.ini\n"        \
    "stack = stacks/st.ini\n"

/* ---- Exit codes ---- */

/* DESIGN.md §2: bad usage or input is 2 (a file that cannot be read is
 * input when it was one), any other failure 1. */
static void test_cli_exit_code_by_status(void **state)
{
    (void)state;
    assert_int_equal(cli_exit_code(STATUS_OK, CLI_IO_OUTPUT), 0);
    assert_int_equal(cli_exit_code(STATUS_OK, CLI_IO_INPUT), 0);
    assert_int_equal(cli_exit_code(STATUS_USAGE, CLI_IO_OUTPUT), 2);
    assert_int_equal(cli_exit_code(STATUS_PARSE, CLI_IO_OUTPUT), 2);
    assert_int_equal(cli_exit_code(STATUS_RANGE, CLI_IO_OUTPUT), 2);
    assert_int_equal(cli_exit_code(STATUS_IO, CLI_IO_INPUT), 2);
    assert_int_equal(cli_exit_code(STATUS_IO, CLI_IO_OUTPUT), 1);
    assert_int_equal(cli_exit_code(STATUS_NOMEM, CLI_IO_INPUT), 1);
    assert_int_equal(cli_exit_code(STATUS_XLSX, CLI_IO_OUTPUT), 1);
    assert_int_equal(cli_exit_code(STATUS_PLOT, CLI_IO_OUTPUT), 1);
    assert_int_equal(CLI_EXIT_RUNTIME, 1);
    assert_int_equal(CLI_EXIT_INPUT, 2);
}

/* ---- The defaults file ---- */

/* Each path is the data directory's, joined with one slash. */
static void test_cli_read_defaults_file_resolves_paths(void **state)
{
    char path[] = "/tmp/roofplan-test-defaults-XXXXXX";
    struct cli_defaults def;
    struct diag d;
    (void)state;
    util_temp_file(path, DEFAULTS, strlen(DEFAULTS));
    diag_init(&d);
    memset(&def, 0, sizeof def);
    assert_int_equal(cli_read_defaults_file(path, "/opt/rp/data", &def, &d),
                     STATUS_OK);
    assert_string_equal(def.model, "/opt/rp/data/models/m.ini");
    assert_string_equal(def.hardware, "/opt/rp/data/hardware/h.ini");
    assert_string_equal(def.sweep, "/opt/rp/data/sweeps/s.ini");
    assert_string_equal(def.training, "/opt/rp/data/training/mine.ini");
    assert_string_equal(def.stack, "/opt/rp/data/stacks/st.ini");
    unlink(path);
}

/* A key the schema lacks is named with its file and line (7, after the
 * five good keys), with the keys [inputs] accepts; an input error (2). */
static void test_cli_read_defaults_file_bad_key(void **state)
{
    static const char text[] = DEFAULTS "modle = typo.ini\n";
    char path[] = "/tmp/roofplan-test-defaults-XXXXXX";
    struct cli_defaults def;
    struct diag d;
    (void)state;
    util_temp_file(path, text, strlen(text));
    diag_init(&d);
    assert_int_equal(cli_read_defaults_file(path, "data", &def, &d),
                     STATUS_PARSE);
    util_expect_msg(&d, path,
                    ":7: inputs.modle: unknown key (accepted in [inputs]: "
                    "model hardware sweep training stack)");
    assert_int_equal(cli_exit_code(d.status, CLI_IO_INPUT), CLI_EXIT_INPUT);
    unlink(path);
}

/* Every key is required: a file without `stack` is refused, naming it. */
static void test_cli_read_defaults_file_missing_key(void **state)
{
    static const char text[] = "[inputs]\nmodel = a\nhardware = b\n"
                               "sweep = c\ntraining = d\n";
    char path[] = "/tmp/roofplan-test-defaults-XXXXXX";
    struct cli_defaults def;
    struct diag d;
    (void)state;
    util_temp_file(path, text, strlen(text));
    diag_init(&d);
    assert_int_not_equal(cli_read_defaults_file(path, "data", &def, &d),
                         STATUS_OK);
    assert_non_null(strstr(d.msg, ": inputs.stack: missing (required"));
    assert_int_equal(strncmp(d.msg, path, strlen(path)), 0);
    unlink(path);
}

/* ---- SOURCE_DATE_EPOCH ---- */

struct saved_env {
    char value[64];
    bool set;
};

static int save_epoch(void **state)
{
    static struct saved_env s;
    const char *e = getenv("SOURCE_DATE_EPOCH");
    s.set = e != NULL;
    snprintf(s.value, sizeof s.value, "%s", e ? e : "");
    *state = &s;
    return 0;
}

static int restore_epoch(void **state)
{
    const struct saved_env *s = *state;
    return s->set ? setenv("SOURCE_DATE_EPOCH", s->value, 1)
                  : unsetenv("SOURCE_DATE_EPOCH");
}

/* Whole seconds in 0 .. 9999-12-31T23:59:59Z: 1970-01-01 to
 * 10000-01-01 is 8030 years, of which leap (2424 up to 9999 less 477 up
 * to 1969) 1947: 8030 x 365 + 1947 = 2932897 days; x 86400 - 1 =
 * 253402300799 s. */
static void test_cli_generation_time_epoch(void **state)
{
    int64_t t = -1;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(setenv("SOURCE_DATE_EPOCH", "1700000000", 1), 0);
    assert_true(cli_generation_time(&t, &d));
    assert_true(t == 1700000000);
    assert_int_equal(setenv("SOURCE_DATE_EPOCH", "0", 1), 0);
    assert_true(cli_generation_time(&t, &d));
    assert_true(t == 0);
    assert_true(2932897LL * 86400 - 1 == 253402300799LL);
    assert_int_equal(setenv("SOURCE_DATE_EPOCH", "253402300799", 1), 0);
    assert_true(cli_generation_time(&t, &d));
    assert_true(t == 253402300799LL);
    assert_int_equal(d.status, STATUS_OK);
}

/* Out of range or not whole seconds: a usage error quoting the value. */
static void test_cli_generation_time_bad(void **state)
{
    static const char *const bad[] = {"253402300800", "-1",   "12.5",
                                      "1e9",          "soon", ""};
    size_t i;
    (void)state;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int64_t t = 42;
        struct diag d;
        char want[256];
        diag_init(&d);
        assert_int_equal(setenv("SOURCE_DATE_EPOCH", bad[i], 1), 0);
        assert_false(cli_generation_time(&t, &d));
        assert_int_equal(d.status, STATUS_USAGE);
        snprintf(want, sizeof want,
                 "SOURCE_DATE_EPOCH: expected whole seconds since 1970 in "
                 "0..253402300799 (year 9999), got \"%s\"",
                 bad[i]);
        assert_string_equal(d.msg, want);
        assert_true(t == 42); /* untouched */
    }
}

/* Unset: now, between two readings of the clock around the call. */
static void test_cli_generation_time_now(void **state)
{
    int64_t t, before, after;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(unsetenv("SOURCE_DATE_EPOCH"), 0);
    before = (int64_t)time(NULL);
    assert_true(cli_generation_time(&t, &d));
    after = (int64_t)time(NULL);
    assert_true(t >= before && t <= after);
}

/* ---- Where the files are ---- */

/* From a directory with no data/defaults.ini (and no installed tree
 * beside the test binary), the checkout's, found beside the executable:
 * this test runs as build/debug/test_cli, so ../../data of its folder.
 * No path is built into the binary (issue 20: a moved checkout kept
 * reading the old one). */
static void test_cli_data_directory_beside_executable(void **state)
{
    char buf[1100], *exe, *want;
    size_t n;
    (void)state;
    exe = realpath("/proc/self/exe", NULL);
    assert_non_null(exe);
    *strrchr(exe, '/') = '\0';
    n = strlen(exe) + 32;
    want = malloc(n);
    assert_non_null(want);
    cli_data_directory(buf, sizeof buf);
    snprintf(want, n, "%s/../../data", exe);
    assert_string_equal(buf, want);
    cli_template_directory(buf, sizeof buf);
    snprintf(want, n, "%s/../../templates", exe);
    assert_string_equal(buf, want);
    free(want);
    free(exe);
}

/* ./data is taken only when it holds defaults.ini; ./templates only
 * with memory.gp.in. */
static void test_cli_data_directory_prefers_cwd(void **state)
{
    char buf[1100];
    (void)state;
    assert_int_equal(mkdir("data", 0700), 0);
    cli_data_directory(buf, sizeof buf);
    assert_string_not_equal(buf, "data"); /* empty: not ours */
    write_file(NULL, "data/defaults.ini", DEFAULTS);
    cli_data_directory(buf, sizeof buf);
    assert_string_equal(buf, "data");
    write_file("templates", "templates/memory.gp.in", "# template\n");
    cli_template_directory(buf, sizeof buf);
    assert_string_equal(buf, "templates");
}

/* -t wins, as given; else defaults.ini's recipe under the data
 * directory; with defaults.ini unreadable as one, the data directory's
 * training/default.ini. */
static void test_cli_training_path(void **state)
{
    struct cli_config cfg;
    char buf[1100];
    (void)state;
    memset(&cfg, 0, sizeof cfg);
    cfg.training_path = "my/recipe.ini";
    assert_ptr_equal(cli_training_path(&cfg, buf, sizeof buf),
                     cfg.training_path);
    cfg.training_path = NULL;
    write_file("data", "data/defaults.ini", DEFAULTS);
    assert_string_equal(cli_training_path(&cfg, buf, sizeof buf),
                        "data/training/mine.ini");
    write_file(NULL, "data/defaults.ini", "[inputs]\nbogus = 1\n");
    assert_string_equal(cli_training_path(&cfg, buf, sizeof buf),
                        "data/training/default.ini");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cli_exit_code_by_status),
        cmocka_unit_test(test_cli_read_defaults_file_resolves_paths),
        cmocka_unit_test(test_cli_read_defaults_file_bad_key),
        cmocka_unit_test(test_cli_read_defaults_file_missing_key),
        cmocka_unit_test_setup_teardown(test_cli_generation_time_epoch,
                                        save_epoch, restore_epoch),
        cmocka_unit_test_setup_teardown(test_cli_generation_time_bad,
                                        save_epoch, restore_epoch),
        cmocka_unit_test_setup_teardown(test_cli_generation_time_now,
                                        save_epoch, restore_epoch),
        cmocka_unit_test_setup_teardown(
            test_cli_data_directory_beside_executable, enter_tmp, leave_tmp),
        cmocka_unit_test_setup_teardown(test_cli_data_directory_prefers_cwd,
                                        enter_tmp, leave_tmp),
        cmocka_unit_test_setup_teardown(test_cli_training_path, enter_tmp,
                                        leave_tmp),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
