/*
 * test_datafile: strict INI loading — every bad line reported with
 * file:line: key: problem, --set overrides, sources, and hostile files
 * (binary, FIFOs, huge, odd line ends). Loaded through the hardware
 * schema (tests/data/snap/ and tests/data/bad/). Text, values and the
 * schema table are test_datafile_text.c's, test_datafile_value.c's and
 * test_datafile_schema.c's.
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

#include "datafile.h"
#include "hardware.h"
#include "model.h"
#include "test_util.h"

#define SNAP "tests/data/snap/"

static void assert_has_line(const char *msg, const char *line)
{
    if (!strstr(msg, line))
        fail_msg("message lacks \"%s\"; it was:\n%s", line, msg);
}

/* Every problem of the file, one line each, in file:line: key shape. */
static void test_datafile_load_reports_every_bad_line(void **state)
{
    struct hardware h;
    struct diag d;
    const char *p = "tests/data/bad/hw-many.ini";
    (void)state;
    diag_init(&d);
    assert_int_not_equal(hardware_load(p, &h, NULL, 0, &d), STATUS_OK);
    assert_has_line(d.msg, "tests/data/bad/hw-many.ini:11: malformed line "
                           "(expected [section], key = value or a ; "
                           "comment)");
    assert_has_line(d.msg, "tests/data/bad/hw-many.ini:12: [clusterz]: "
                           "unknown section in a hardware file (accepted: "
                           "[gpu] [cluster])");
    assert_has_line(d.msg, "hw-many.ini:10: gpu.sms: duplicate key (first "
                           "given on line 9)");
    assert_has_line(d.msg, "hw-many.ini:21: cluster.bogus: unknown key "
                           "(accepted in [cluster]: name gpus gpus_per_node");
    assert_has_line(d.msg, "hw-many.ini:4: gpu.bf16_achievable_tflops: "
                           "expected a number in 1..1000000, got \"12x\"");
    assert_has_line(d.msg, "hw-many.ini:5: gpu.fp8_peak_tflops: expected a "
                           "number in 0..1000000, got \"nan\"");
    assert_has_line(d.msg, "hw-many.ini:6: gpu.hbm_gib: expected a number in "
                           "1..1000000, got -5");
    assert_has_line(d.msg, "hw-many.ini:7: gpu.hbm_peak_tbps: expected a "
                           "number in 0.1..1000, got \"inf\"");
    assert_has_line(d.msg, "hw-many.ini:8: gpu.hbm_achievable_tbps: expected "
                           "a number in 0.1..1000, got 0");
    assert_has_line(d.msg, "hw-many.ini:9: gpu.sms: expected an integer in "
                           "1..100000, got \"132.5\"");
    assert_has_line(d.msg, "tests/data/bad/hw-many.ini: cluster.ib_gbps: "
                           "missing (required; a number in 0.1..1000000, in "
                           "GB/s)");
    assert_int_equal(d.lines, 11);
}

/* --set replaces a file value; a bad --set value names the argument. */
static void test_datafile_set_overrides(void **state)
{
    struct hardware h;
    struct diag d;
    struct datafile_set s[2];
    (void)state;
    diag_init(&d);
    assert_int_equal(datafile_parse_set("cluster.ib_gbps=25", &s[0], &d),
                     STATUS_OK);
    assert_int_equal(hardware_load(SNAP "hardware/h800.ini", &h, s, 1, &d),
                     STATUS_OK);
    assert_near(h.spec.ib_gbps, 25, 0);
    assert_true(s[0].used);
    assert_string_equal(
        datafile_meta_source(
            &h.meta, (size_t)datafile_field_index(hardware_schema(), "cluster",
                                                  "ib_gbps")),
        "--set on the command line");
    hardware_release(&h);

    assert_int_equal(datafile_parse_set("cluster.ib_gbps=fast", &s[1], &d),
                     STATUS_OK);
    assert_int_equal(hardware_load(SNAP "hardware/h800.ini", &h, &s[1], 1, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg, "--set cluster.ib_gbps=fast: expected a number "
                               "in 0.1..1000000, got \"fast\"");
}

/*
 * Issue 34 item 13a: where a value came from, for a check across keys
 * (hardware.c: ib_gbps above ib_peak_gbps): a file line, the --set as
 * typed, or the default. The --set message named the file alone.
 */
static void test_datafile_meta_where(void **state)
{
    struct hardware h;
    struct diag d;
    struct datafile_set s;
    char buf[200];
    long ib = datafile_field_index(hardware_schema(), "cluster", "ib_gbps");
    long nv = datafile_field_index(hardware_schema(), "cluster", "nvlink_gbps");
    long dom =
        datafile_field_index(hardware_schema(), "cluster", "nvlink_domain");
    (void)state;
    diag_init(&d);
    assert_int_equal(datafile_parse_set("cluster.ib_gbps=60", &s, &d),
                     STATUS_OK);
    assert_int_equal(hardware_load(SNAP "hardware/h800.ini", &h, &s, 1, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg, SNAP "hardware/h800.ini: --set "
                                    "cluster.ib_gbps=60: 60 is above "
                                    "cluster.ib_peak_gbps (50)");
    diag_init(&d);
    assert_int_equal(datafile_parse_set("cluster.ib_gbps=40", &s, &d),
                     STATUS_OK);
    assert_int_equal(hardware_load(SNAP "hardware/h800.ini", &h, &s, 1, &d),
                     STATUS_OK);
    assert_string_equal(
        datafile_meta_where(&h.meta, (size_t)ib, buf, sizeof buf),
        SNAP "hardware/h800.ini: --set cluster.ib_gbps=40");
    /* line 41 of the snapshot (test_datafile_sources) */
    assert_string_equal(
        datafile_meta_where(&h.meta, (size_t)nv, buf, sizeof buf),
        SNAP "hardware/h800.ini:41: cluster.nvlink_gbps");
    /* not in the snapshot: its default */
    assert_string_equal(
        datafile_meta_where(&h.meta, (size_t)dom, buf, sizeof buf),
        SNAP "hardware/h800.ini: cluster.nvlink_domain");
    /* cut at a character boundary, NUL-terminated */
    datafile_meta_where(&h.meta, (size_t)ib, buf, 12);
    assert_string_equal(buf, "tests/data/");
    hardware_release(&h);
}

static void test_datafile_parse_set_rejects_malformed(void **state)
{
    struct datafile_set s;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(datafile_parse_set("ib_gbps=5", &s, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "--set ib_gbps=5: expected SECTION.KEY=VALUE "
                               "(e.g. cluster.ib_gbps=100)");
    assert_int_equal(datafile_parse_set("cluster.ib_gbps", &s, &d),
                     STATUS_USAGE);
    assert_int_equal(datafile_parse_set(".x=1", &s, &d), STATUS_USAGE);
    assert_int_equal(datafile_parse_set("a.=1", &s, &d), STATUS_USAGE);
}

/* Missing, a directory, empty, binary. */
static void test_datafile_unreadable_files(void **state)
{
    struct model m;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(model_load("tests/data/no-such.ini", &m, NULL, 0, &d),
                     STATUS_IO);
    assert_string_equal(d.msg, "tests/data/no-such.ini: cannot open: No such "
                               "file or directory");
    diag_init(&d);
    assert_int_equal(model_load("tests/data", &m, NULL, 0, &d), STATUS_IO);
    assert_string_equal(d.msg, "tests/data: not a regular file");
    diag_init(&d);
    assert_int_equal(model_load("/dev/null", &m, NULL, 0, &d), STATUS_IO);
}

/* A key before the first [section] is an error, not silently ignored. */
static void test_datafile_load_rejects_key_before_section(void **state)
{
    struct hardware h;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        hardware_load("tests/data/bad/hw-key-outside.ini", &h, NULL, 0, &d),
        STATUS_PARSE);
    assert_string_equal(d.msg, "tests/data/bad/hw-key-outside.ini:2: sms: key "
                               "before any [section] (accepted in a hardware "
                               "file: [gpu] [cluster])");
}

/*
 * Each malformed line costs a pass over the file: a file of 20000 of them
 * (which took seconds, quadratic) stops listing after 39, says so, and
 * counts the problems it did not show.
 */
static void test_datafile_load_stops_listing_malformed_lines(void **state)
{
    char path[] = "/tmp/test_datafile_XXXXXX";
    struct hardware h;
    struct diag d;
    int fd = mkstemp(path);
    FILE *f;
    int i;
    (void)state;
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs("[gpu]\n", f);
    for (i = 0; i < 20000; i++)
        fputs("x\n", f);
    assert_int_equal(fclose(f), 0);
    diag_init(&d);
    assert_int_equal(hardware_load(path, &h, NULL, 0, &d), STATUS_PARSE);
    remove(path);
    assert_has_line(d.msg, ":41: malformed line; further malformed lines are "
                           "not listed (more than 39)");
    assert_non_null(strstr(d.msg, "\n... and 14 more problems"));
}

static void test_datafile_sources(void **state)
{
    struct hardware h;
    struct diag d;
    long i;
    (void)state;
    diag_init(&d);
    assert_int_equal(hardware_load(SNAP "hardware/h800.ini", &h, NULL, 0, &d),
                     STATUS_OK);
    i = datafile_field_index(hardware_schema(), "cluster", "nvlink_gbps");
    assert_string_equal(datafile_meta_source(&h.meta, (size_t)i),
                        "arXiv 2412.19437 §3.2.2: NVLink 160 GB/s achieved, "
                        "about 3.2x IB");
    assert_int_equal(h.meta.line[i], 41);
    hardware_release(&h);
}

/* ---- Hostile and odd input ---- */

/* A valid hardware file (tests/badinput's hw.ini) after `before`, with
 * line 3 (`name = G`) replaced by name_line. */
static void
hw_text(char *buf, size_t size, const char *before, const char *name_line)
{
    snprintf(buf, size,
             "%s[gpu]\n; a minimal cluster\n%s\nbf16_peak_tflops = 1000\n"
             "bf16_achievable_tflops = 800\nhbm_gib = 80\nhbm_peak_tbps = 3\n"
             "hbm_achievable_tbps = 2.5\nsms = 132\n[cluster]\nname = C\n"
             "gpus = 16\ngpus_per_node = 8\nnvlink_peak_gbps = 200\n"
             "nvlink_gbps = 160\nib_peak_gbps = 50\nib_gbps = 40\n",
             before, name_line);
}

/* Loads text as a hardware file; returns the status, message in d. */
static enum status load_hw_text(const char *text, struct diag *d)
{
    char path[] = "/tmp/test_datafile_XXXXXX";
    struct hardware h;
    enum status st;
    util_temp_file(path, text, strlen(text));
    diag_init(d);
    st = hardware_load(path, &h, NULL, 0, d);
    if (st == STATUS_OK)
        hardware_release(&h);
    remove(path);
    return st;
}

/* Control characters and invalid UTF-8 anywhere in a line (a name, a
 * source, a comment) fail the load with file:line: column; the line is
 * then ignored, so the value it held is missing. */
static void test_datafile_load_refuses_control_and_invalid_text(void **state)
{
    char text[1024];
    struct diag d;
    (void)state;
    hw_text(text, sizeof text, "", "name = G\x1b]0;pwned\x07");
    assert_int_equal(load_hw_text(text, &d), STATUS_PARSE);
    assert_has_line(d.msg, ":3: column 9: control character U+001B; data "
                           "files are UTF-8 text without control "
                           "characters");
    assert_has_line(d.msg, ": gpu.name: missing (required;");
    hw_text(text, sizeof text, "", "name = G\nname.source = caf\xe9");
    assert_int_equal(load_hw_text(text, &d), STATUS_PARSE);
    assert_has_line(d.msg, ":4: column 18: invalid UTF-8 (byte 0xE9); data "
                           "files are UTF-8 text without control "
                           "characters");
    assert_int_equal(d.lines, 1);
    hw_text(text, sizeof text, "", "name = G ; \xc2\x9b");
    assert_int_equal(load_hw_text(text, &d), STATUS_PARSE);
    assert_has_line(d.msg, ":3: column 12: control character U+009B;");
}

/* inih takes a line that starts with a blank other than space or tab as
 * the continuation of the previous value: a carriage return starting a
 * line was reported as a duplicate key. It is refused as a control
 * character; CRLF line ends stay accepted. */
static void test_datafile_load_carriage_returns(void **state)
{
    char text[1024], *c, crlf[1200];
    size_t n = 0;
    struct diag d;
    (void)state;
    hw_text(text, sizeof text, "", "name = G\n\rcontinued");
    assert_int_equal(load_hw_text(text, &d), STATUS_PARSE);
    assert_string_equal(d.msg + strcspn(d.msg, ":"),
                        ":4: column 1: carriage return (U+000D) that does "
                        "not end the line; data files are UTF-8 text "
                        "without control characters");
    hw_text(text, sizeof text, "", "name = G");
    for (c = text; *c; c++) {
        if (*c == '\n')
            crlf[n++] = '\r';
        crlf[n++] = *c;
    }
    crlf[n] = '\0';
    assert_int_equal(load_hw_text(crlf, &d), STATUS_OK);
}

/* A UTF-8 byte-order mark hid the first line's [section] from the check
 * for unknown sections (and from `check`'s choice of the file kind). */
static void test_datafile_load_skips_bom(void **state)
{
    char text[1024], path[] = "/tmp/test_datafile_XXXXXX", first[64];
    struct diag d;
    (void)state;
    hw_text(text, sizeof text, "\xef\xbb\xbf", "name = G");
    assert_int_equal(load_hw_text(text, &d), STATUS_OK);
    text[5] = 'q'; /* after the 3-byte mark, [gpu] -> [gqu] */
    assert_int_equal(load_hw_text(text, &d), STATUS_PARSE);
    assert_has_line(d.msg, ":1: [gqu]: unknown section in a hardware file");
    util_temp_file(path, text, strlen(text));
    diag_init(&d);
    assert_int_equal(datafile_first_section(path, first, sizeof first, &d),
                     STATUS_OK);
    remove(path);
    assert_string_equal(first, "gqu");
}

/* A FIFO hung the load forever (fopen waits for a writer): it is opened
 * without blocking and refused. alarm() turns a hang into a failure. */
static void test_datafile_load_refuses_fifo(void **state)
{
    char dir[] = "/tmp/test_datafile_XXXXXX", path[64], first[64];
    struct hardware h;
    struct diag d;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fifo.ini", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10);
    diag_init(&d);
    assert_int_equal(hardware_load(path, &h, NULL, 0, &d), STATUS_IO);
    assert_string_equal(d.msg + strlen(dir), "/fifo.ini: not a regular file");
    diag_init(&d);
    assert_int_equal(datafile_first_section(path, first, sizeof first, &d),
                     STATUS_IO);
    alarm(0);
    remove(path);
    rmdir(dir);
}

/* Paths reach the workbook and every message: text only. */
static void test_datafile_load_refuses_path_not_text(void **state)
{
    struct hardware h;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(hardware_load("x\x1b[2J.ini", &h, NULL, 0, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg, "x\\x1B[2J.ini: file name: column 2: control "
                               "character U+001B (roofplan shows file names "
                               "in its reports: rename the file)");
    diag_init(&d);
    assert_int_equal(hardware_load("caf\xe9.ini", &h, NULL, 0, &d),
                     STATUS_USAGE);
    assert_has_line(d.msg, "caf\\xE9.ini: file name: column 4: invalid UTF-8 "
                           "(byte 0xE9)");
}

static void test_datafile_parse_set_refuses_control_text(void **state)
{
    struct datafile_set s;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(datafile_parse_set("gpu.name=\x1b[31mred", &s, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg, "--set gpu.name=\\x1B[31mred: column 10: "
                               "control character U+001B; values are UTF-8 "
                               "text without control characters");
    diag_init(&d);
    assert_int_equal(datafile_parse_set("gpu.name=\xff", &s, &d), STATUS_USAGE);
    assert_has_line(d.msg, "--set gpu.name=\\xFF: column 10: invalid UTF-8");
    diag_init(&d);
    assert_int_equal(datafile_parse_set("gpu.name=caf\xc3\xa9", &s, &d),
                     STATUS_OK);
    assert_string_equal(s.value, "caf\xc3\xa9");
}

/* One 1 MiB file of "a=1" lines (262,144 keys) took 160 MB: each entry
 * held three 200-byte arrays. Now entries point into a string pool; the
 * load must still list the first problems and count the rest. */
static void test_datafile_load_many_keys(void **state)
{
    char path[] = "/tmp/test_datafile_XXXXXX";
    size_t n = 6 + 4 * 200000, i;
    char *text = malloc(n + 1);
    struct hardware h;
    struct diag d;
    (void)state;
    assert_non_null(text);
    memcpy(text, "[gpu]\n", 6);
    for (i = 6; i < n; i += 4)
        memcpy(text + i, "a=1\n", 4);
    util_temp_file(path, text, n);
    free(text);
    diag_init(&d);
    assert_int_equal(hardware_load(path, &h, NULL, 0, &d), STATUS_PARSE);
    remove(path);
    assert_has_line(d.msg, ":2: gpu.a: unknown key (accepted in [gpu]:");
    assert_has_line(d.msg, ":3: gpu.a: unknown key");
    /* 200000 unknown keys + the 14 required keys of [gpu] and [cluster]
     * (7 each), all counted though only the first fit in the message */
    assert_int_equal(d.lines, 200000 + 14);
    assert_has_line(d.msg, " more problems");
}

/* The same loader over text in memory (what `import trace` checks before
 * it writes): the file's every problem, at its lines, under the name
 * given; nothing read from the disk by that name. */
static void test_datafile_load_text_as_the_file(void **state)
{
    struct hardware_spec spec;
    struct datafile_meta meta;
    struct diag d;
    char *text = NULL;
    size_t len = 0;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        datafile_read("tests/data/bad/hw-many.ini", &text, &len, &d),
        STATUS_OK);
    assert_int_not_equal(datafile_load_text("in memory", text, len,
                                            hardware_schema(), &spec, &meta,
                                            &d),
                         STATUS_OK);
    assert_has_line(d.msg, "in memory:11: malformed line (expected "
                           "[section], key = value or a ; comment)");
    assert_has_line(d.msg, "in memory:9: gpu.sms: expected an integer in "
                           "1..100000, got \"132.5\"");
    assert_has_line(d.msg, "in memory: cluster.ib_gbps: missing (required; "
                           "a number in 0.1..1000000, in GB/s)");
    assert_int_equal(d.lines, 11);
    free(text);
    /* a good text loads, its lines and path as a file's */
    diag_init(&d);
    assert_int_equal(datafile_read(SNAP "hardware/h800.ini", &text, &len, &d),
                     STATUS_OK);
    assert_int_equal(datafile_load_text("in memory", text, len,
                                        hardware_schema(), &spec, &meta, &d),
                     STATUS_OK);
    assert_string_equal(meta.path, "in memory");
    assert_true(
        meta.line[datafile_field_index(hardware_schema(), "gpu", "name")] > 0);
    datafile_meta_release(&meta);
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datafile_load_reports_every_bad_line),
        cmocka_unit_test(test_datafile_set_overrides),
        cmocka_unit_test(test_datafile_meta_where),
        cmocka_unit_test(test_datafile_parse_set_rejects_malformed),
        cmocka_unit_test(test_datafile_unreadable_files),
        cmocka_unit_test(test_datafile_sources),
        cmocka_unit_test(test_datafile_load_rejects_key_before_section),
        cmocka_unit_test(test_datafile_load_stops_listing_malformed_lines),
        cmocka_unit_test(test_datafile_load_refuses_control_and_invalid_text),
        cmocka_unit_test(test_datafile_load_carriage_returns),
        cmocka_unit_test(test_datafile_load_skips_bom),
        cmocka_unit_test(test_datafile_load_refuses_fifo),
        cmocka_unit_test(test_datafile_load_refuses_path_not_text),
        cmocka_unit_test(test_datafile_parse_set_refuses_control_text),
        cmocka_unit_test(test_datafile_load_many_keys),
        cmocka_unit_test(test_datafile_load_text_as_the_file),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
