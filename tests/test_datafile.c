/*
 * test_datafile: strict INI loading — every bad line reported with
 * file:line: key: problem, --set overrides, lists and ranges.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"
#include "hardware.h"
#include "model.h"
#include "sweep.h"
#include "test_util.h"

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
                           "expected a number in (0, 1000000], got \"12x\"");
    assert_has_line(d.msg, "hw-many.ini:5: gpu.fp8_peak_tflops: expected a "
                           "number in 0..1000000, got \"nan\"");
    assert_has_line(d.msg, "hw-many.ini:6: gpu.hbm_gib: expected a number in "
                           "(0, 1000000], got -5");
    assert_has_line(d.msg, "hw-many.ini:7: gpu.hbm_peak_tbps: expected a "
                           "number in (0, 1000], got \"inf\"");
    assert_has_line(d.msg, "hw-many.ini:8: gpu.hbm_achievable_tbps: expected "
                           "a number in (0, 1000], got 0");
    assert_has_line(d.msg, "hw-many.ini:9: gpu.sms: expected an integer in "
                           "1..100000, got \"132.5\"");
    assert_has_line(d.msg, "tests/data/bad/hw-many.ini: cluster.ib_gbps: "
                           "missing (required; a number in (0, 1000000], in "
                           "GB/s)");
    assert_int_equal(d.lines, 11);
}

/* Rules across keys name the key and its line. */
static void test_datafile_cross_field_checks(void **state)
{
    struct hardware h;
    struct model m;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        hardware_load("tests/data/bad/hw-cross.ini", &h, NULL, 0, &d),
        STATUS_RANGE);
    assert_has_line(d.msg, "hw-cross.ini:4: gpu.bf16_achievable_tflops: 1000 "
                           "is above gpu.bf16_peak_tflops (989)");
    assert_has_line(d.msg, "hw-cross.ini:9: gpu.comm_sms: expected fewer "
                           "than gpu.sms (132), got 132");
    assert_has_line(d.msg, "hw-cross.ini:12: cluster.gpus: 20 GPUs do not "
                           "fill whole nodes of 8 (gpus_per_node)");
    diag_init(&d);
    assert_int_not_equal(
        model_load("tests/data/bad/model-cross.ini", &m, NULL, 0, &d),
        STATUS_OK);
    assert_has_line(d.msg, "model-cross.ini:20: training.selective: expected "
                           "one of core_attn|mla_up_proj|mlp|moe|moe_act|"
                           "layernorm|shared_experts, got \"bogus\"");
}

static void test_datafile_cross_field_model(void **state)
{
    struct model m;
    struct diag d;
    struct datafile_set s;
    (void)state;
    diag_init(&d);
    assert_int_equal(datafile_parse_set("training.selective=layernorm", &s, &d),
                     STATUS_OK);
    assert_int_equal(
        model_load("tests/data/bad/model-cross.ini", &m, &s, 1, &d),
        STATUS_RANGE);
    assert_has_line(d.msg, "model-cross.ini:9: attention.kv_heads: must "
                           "divide attention.heads (8), got 3");
    assert_has_line(d.msg, "model-cross.ini:14: moe.top_k: expected "
                           "1..routed_experts (8), got 9");
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
    assert_int_equal(hardware_load("data/hardware/h800.ini", &h, s, 1, &d),
                     STATUS_OK);
    assert_near(h.spec.ib_gbps, 25, 0);
    assert_true(s[0].used);
    assert_string_equal(datafile_meta_source(&h.meta, 20),
                        "--set on the command line");
    hardware_release(&h);

    assert_int_equal(datafile_parse_set("cluster.ib_gbps=fast", &s[1], &d),
                     STATUS_OK);
    assert_int_equal(hardware_load("data/hardware/h800.ini", &h, &s[1], 1, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg, "--set cluster.ib_gbps=fast: expected a number "
                               "in (0, 1000000], got \"fast\"");
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

/* Strict numbers (jq): the whole text, finite, no trailing garbage. */
static void test_datafile_parse_numbers_strict(void **state)
{
    double v;
    long l;
    (void)state;
    assert_true(datafile_parse_double("14.8e12", &v));
    assert_near(v, 14.8e12, 0);
    assert_false(datafile_parse_double("12x", &v));
    assert_false(datafile_parse_double("", &v));
    assert_false(datafile_parse_double("1e999", &v));
    assert_false(datafile_parse_double("nan", &v));
    assert_false(datafile_parse_double("-inf", &v));
    assert_true(datafile_parse_long("-42", &l));
    assert_int_equal(l, -42);
    assert_false(datafile_parse_long("99999999999999999999", &l));
    assert_false(datafile_parse_long("4.0", &l));
}

/* Lists: values, doubling and stepping ranges, words; duplicates fold. */
static void test_datafile_lists_and_ranges(void **state)
{
    struct sweep_file sf;
    struct diag d;
    struct datafile_set s[3];
    (void)state;
    diag_init(&d);
    datafile_parse_set("space.pp=1..64 x2", &s[0], &d);
    datafile_parse_set("space.mbs=2..8 +2, 2", &s[1], &d);
    datafile_parse_set("space.schedule=zb,dualpipe", &s[2], &d);
    assert_int_equal(sweep_load("data/sweeps/default.ini", &sf, s, 3, &d),
                     STATUS_OK);
    assert_int_equal(sf.spec.pp.n, 7);
    assert_near(sf.spec.pp.v[6], 64, 0);
    assert_int_equal(sf.spec.mbs.n, 4);
    assert_near(sf.spec.mbs.v[3], 8, 0);
    assert_int_equal(sf.spec.schedule.n, 2);
    assert_near(sf.spec.schedule.v[1], 3, 0); /* dualpipe */
    sweep_release(&sf);

    datafile_parse_set("space.pp=64..1", &s[0], &d);
    assert_int_equal(sweep_load("data/sweeps/default.ini", &sf, s, 1, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg,
                        "--set space.pp=64..1: range \"64..1\" runs backwards");
    diag_init(&d);
    datafile_parse_set("space.pp=1..4 x1", &s[0], &d);
    assert_int_equal(sweep_load("data/sweeps/default.ini", &sf, s, 1, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg, "--set space.pp=1..4 x1: range step \"x1\": "
                               "expected xK (K > 1) or +K (K > 0)");
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
    assert_int_equal(hardware_load("data/hardware/h800.ini", &h, NULL, 0, &d),
                     STATUS_OK);
    i = datafile_field_index(&hardware_schema, "cluster", "nvlink_gbps");
    assert_string_equal(datafile_meta_source(&h.meta, (size_t)i),
                        "arXiv 2412.19437 §3.2.2: NVLink 160 GB/s achieved, "
                        "about 3.2x IB");
    assert_int_equal(h.meta.line[i], 41);
    hardware_release(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_datafile_load_reports_every_bad_line),
        cmocka_unit_test(test_datafile_cross_field_checks),
        cmocka_unit_test(test_datafile_cross_field_model),
        cmocka_unit_test(test_datafile_set_overrides),
        cmocka_unit_test(test_datafile_parse_set_rejects_malformed),
        cmocka_unit_test(test_datafile_parse_numbers_strict),
        cmocka_unit_test(test_datafile_lists_and_ranges),
        cmocka_unit_test(test_datafile_unreadable_files),
        cmocka_unit_test(test_datafile_sources),
        cmocka_unit_test(test_datafile_load_rejects_key_before_section),
        cmocka_unit_test(test_datafile_load_stops_listing_malformed_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
