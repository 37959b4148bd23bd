/*
 * Tests of trace_read: the streaming reader of profiler traces (plain and
 * gzip JSON), the kernels it hands on and its refusals, on small traces
 * written here.
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

#include "trace_read.h"
#include "test_util.h"

struct seen {
    size_t n;
    char name[2][64];
    double ts[2], dur[2];
    long stream[2], grid[2][3];
    size_t event[2];
};

static enum status
count(void *ctx, const struct trace_kernel *k, struct diag *d)
{
    struct seen *s = ctx;
    (void)d;
    if (s->n < 2) {
        snprintf(s->name[s->n], sizeof s->name[0], "%s", k->name);
        s->ts[s->n] = k->ts_us;
        s->dur[s->n] = k->dur_us;
        s->stream[s->n] = k->stream;
        memcpy(s->grid[s->n], k->grid, sizeof k->grid);
        s->event[s->n] = k->event;
    }
    s->n++;
    return STATUS_OK;
}

static enum status read_text(const char *json, struct seen *s, struct diag *d)
{
    memset(s, 0, sizeof *s);
    diag_init(d);
    return trace_read_mem(json, strlen(json), "t.json", count, s, NULL, d);
}

static void test_trace_read_mem_kernels(void **state)
{
    /* a CPU operator, then two kernels (the second without args), then
     * an annotation: the kernels in file order, their fields as given */
    static const char json[] =
        "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, "
        "\"name\": \"NVIDIA H800\"}], \"traceEvents\": ["
        "{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", "
        "\"ts\": 5, \"dur\": 9},"
        "{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"gemm_a\", "
        "\"ts\": 100.5, \"dur\": 52, \"args\": {\"stream\": 7, "
        "\"grid\": [112, 1, 1], \"nested\": {\"stream\": 9}}},"
        "{\"cat\": \"kernel\", \"dur\": 3, \"ts\": 200, \"name\": \"b\"},"
        "{\"cat\": \"user_annotation\", \"name\": \"attn(F)\", \"ts\": 1, "
        "\"dur\": 2}]}";
    struct seen s;
    struct diag d;
    struct trace_read_info info;
    (void)state;
    memset(&s, 0, sizeof s);
    diag_init(&d);
    assert_int_equal(
        trace_read_mem(json, strlen(json), "t.json", count, &s, &info, &d),
        STATUS_OK);
    assert_int_equal(s.n, 2);
    assert_string_equal(s.name[0], "gemm_a");
    assert_near(s.ts[0], 100.5, 1e-12);
    assert_near(s.dur[0], 52, 1e-12);
    assert_int_equal(s.stream[0], 7);
    assert_int_equal(s.grid[0][0], 112);
    assert_int_equal(s.grid[0][1], 1);
    assert_int_equal(s.event[0], 1);
    assert_string_equal(s.name[1], "b");
    assert_int_equal(s.stream[1], -1);
    assert_int_equal(s.event[1], 2);
    assert_int_equal(info.events, 4);
    assert_int_equal(info.kernels, 2);
    assert_string_equal(info.gpu, "NVIDIA H800");
}

static void test_trace_read_device_name_printable(void **state)
{
    /* the device name becomes a `gpu = ` line: a newline (JSON "\n") or
     * a ';' must not start a line or a comment there */
    static const char json[] =
        "{\"deviceProperties\": [{\"name\": \"H800\\n[clock]; x\"}], "
        "\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"k\", "
        "\"ts\": 1, \"dur\": 2}]}";
    struct seen s;
    struct diag d;
    struct trace_read_info info;
    (void)state;
    memset(&s, 0, sizeof s);
    diag_init(&d);
    assert_int_equal(
        trace_read_mem(json, strlen(json), "t.json", count, &s, &info, &d),
        STATUS_OK);
    assert_string_equal(info.gpu, "H800\\x0A[clock]? x");
}

static void test_trace_read_old_kineto_category(void **state)
{
    /* Kineto wrote "cat": "Kernel" from its first commit (ecaafbe8,
     * 2020-09-21, output_json.cpp handleGpuActivity) until "Refactor 5/n"
     * (1679e50e, 2022-04-08) took the category from ActivityType's names
     * ("kernel"): the traces of PyTorch 1.8 to 1.11. An event as that
     * code wrote it (tid "stream N", the args it listed); "KERNEL" is
     * neither spelling */
    static const char json[] =
        "{\"schemaVersion\": 1, \"traceEvents\": [\n"
        "  {\n    \"ph\": \"X\", \"cat\": \"Kernel\", \"ts\": "
        "1616000000000100, "
        "\"dur\": 52,\n    \"pid\": 0, \"tid\": \"stream 7\",\n"
        "    \"name\": \"volta_sgemm_128x64_nn\",\n    \"args\": {\n"
        "      \"queued\": 0, \"device\": 0, \"context\": 1,\n"
        "      \"stream\": 7, \"correlation\": 311, \"external id\": 22,\n"
        "      \"registers per thread\": 128,\n      \"shared memory\": 0,\n"
        "      \"warps per SM\": 4.5,\n      \"grid\": [112, 1, 1],\n"
        "      \"block\": [256, 1, 1]\n    }\n  },\n"
        "  {\"ph\": \"X\", \"cat\": \"KERNEL\", \"name\": \"x\", \"ts\": 1, "
        "\"dur\": 1}]}";
    struct seen s;
    struct diag d;
    struct trace_read_info info;
    (void)state;
    memset(&s, 0, sizeof s);
    diag_init(&d);
    assert_int_equal(
        trace_read_mem(json, strlen(json), "t.json", count, &s, &info, &d),
        STATUS_OK);
    assert_int_equal(s.n, 1);
    assert_string_equal(s.name[0], "volta_sgemm_128x64_nn");
    assert_near(s.dur[0], 52, 1e-12);
    assert_int_equal(s.stream[0], 7);
    assert_int_equal(s.grid[0][0], 112);
    assert_int_equal(info.kernels, 1);
}

/* One refusal: the exact message. */
static void refused(const char *json, const char *msg)
{
    struct seen s;
    struct diag d;
    assert_int_equal(read_text(json, &s, &d), STATUS_PARSE);
    assert_string_equal(d.msg, msg);
}

/* One refusal by yajl: the message's start (yajl words the rest). */
static void refused_prefix(const char *json, const char *start)
{
    struct seen s;
    struct diag d;
    assert_int_equal(read_text(json, &s, &d), STATUS_PARSE);
    if (strncmp(d.msg, start, strlen(start)) != 0)
        fail_msg("message \"%s\" does not begin with \"%s\"", d.msg, start);
}

#define K(dur) \
    "{\"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": " dur "}"

static void test_trace_read_rejects_bad_input(void **state)
{
    (void)state;
    refused("{\"a\": [1, 2]}",
            "t.json: traceEvents: missing (not a Chrome trace JSON of the "
            "PyTorch profiler)");
    refused("{\"traceEvents\": [{\"cat\": \"cpu_op\", \"name\": \"x\", "
            "\"ts\": 1, \"dur\": 2}]}",
            "t.json: traceEvents: no kernel events (cat \"kernel\", or "
            "\"Kernel\" before 2022) among 1 events: was the profiler's CUDA "
            "activity on?");
    refused("{\"traceEvents\": [" K("1") ", " K("-5") "]}",
            "t.json: event 1: dur: negative duration");
    refused("{\"traceEvents\": [" K("4e9") "]}",
            "t.json: event 0: dur: absurd duration (over an hour for one "
            "kernel)");
    /* a positive duration under a nanosecond (found by fuzz_trace: one
     * of 1e-300 us gave an infinite attention rate and a table line of
     * 300 digits) */
    refused("{\"traceEvents\": [" K("1") ", " K("1e-300") "]}",
            "t.json: event 1: dur: shorter than a nanosecond (the "
            "profiler's clock counts nanoseconds)");
    refused("{\"traceEvents\": [" K("0.0009") "]}",
            "t.json: event 0: dur: shorter than a nanosecond (the "
            "profiler's clock counts nanoseconds)");
    /* a start 2^53 + 2 microseconds from the clock's zero (the fuzzer's
     * 1.7e195 made a 271-character line of the calibration it wrote) */
    refused("{\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"k\", "
            "\"ts\": -9007199254740994, \"dur\": 2}]}",
            "t.json: event 0: ts: beyond 2^53 microseconds: not the "
            "profiler's clock");
    refused("{\"traceEvents\": [" K("1e999") "]}",
            "t.json: event 0: dur: not a finite number: 1e999");
    refused("{\"traceEvents\": [" K("\"12\"") "]}",
            "t.json: event 0: dur: expected a number, got a string");
    refused("{\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"k\", "
            "\"ts\": 1}]}",
            "t.json: event 0: dur: missing in a kernel event");
    refused("[" K("1") "]",
            "t.json: JSON: expected an object with traceEvents, got an "
            "array");
    /* NaN is no JSON: yajl refuses it where it stands */
    refused_prefix("{\"traceEvents\": [" K("1") ", " K("NaN") "]}",
                   "t.json: event 1: not JSON: ");
    refused_prefix("{\"traceEvents\": [" K("1") ", {\"cat\": \"ker",
                   "t.json: event 1: truncated JSON: ");
    refused_prefix("hello", "t.json: byte 1: not JSON: ");
    refused_prefix("", "t.json: byte 0: truncated JSON: ");
}

static void test_trace_read_rejects_nesting_bomb(void **state)
{
    /* 65 nested arrays inside the top object: one level too many */
    char json[300];
    size_t i, n = 0;
    (void)state;
    n += (size_t)snprintf(json, sizeof json, "{\"x\": ");
    for (i = 0; i < 64; i++)
        json[n++] = '[';
    json[n] = '\0';
    refused(json, "t.json: JSON: nesting deeper than 64 levels");
}

static void test_trace_read_rejects_huge_string(void **state)
{
    /* a name of TRACE_READ_STRING_MAX + 1 bytes, refused before yajl
     * buffers it, in the event that holds it */
    size_t n = (size_t)TRACE_READ_STRING_MAX + 1;
    const char *head = "{\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"";
    char *json = malloc(strlen(head) + n + 8);
    struct seen s;
    struct diag d;
    (void)state;
    assert_non_null(json);
    strcpy(json, head);
    memset(json + strlen(head), 'a', n);
    strcpy(json + strlen(head) + n, "\"}]}");
    assert_int_equal(read_text(json, &s, &d), STATUS_PARSE);
    assert_string_equal(d.msg,
                        "t.json: event 0: string: longer than 1048576 bytes");
    free(json);
}

static void test_trace_read_rejects_long_number(void **state)
{
    /* a number of TRACE_READ_NUMBER_MAX + 1 digits where nothing reads
     * it: refused before yajl buffers it (yajl lexes a number cut by a
     * chunk's end again from its start with each chunk: a 16 MB number
     * took 10 s); one of TRACE_READ_NUMBER_MAX digits reads */
    char json[512], digits[TRACE_READ_NUMBER_MAX + 2];
    struct seen s;
    struct diag d;
    (void)state;
    memset(digits, '7', TRACE_READ_NUMBER_MAX + 1);
    digits[TRACE_READ_NUMBER_MAX + 1] = '\0';
    snprintf(json, sizeof json,
             "{\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"k\", "
             "\"ts\": 1, \"dur\": 2, \"x\": %s}]}",
             digits);
    refused(json, "t.json: event 0: number: longer than 64 characters");
    digits[TRACE_READ_NUMBER_MAX] = '\0';
    snprintf(json, sizeof json,
             "{\"traceEvents\": [{\"cat\": \"kernel\", \"name\": \"k\", "
             "\"ts\": 1, \"dur\": 2, \"x\": %s}]}",
             digits);
    assert_int_equal(read_text(json, &s, &d), STATUS_OK);
    assert_int_equal(s.n, 1);
    /* before the events (the byte where it passes the bound), and a
     * fraction with its exponent counts whole */
    snprintf(json, sizeof json, "{\"a\": -0.%se+5}", digits);
    refused(json, "t.json: byte 70: number: longer than 64 characters");
}

static void test_trace_read_file_refuses_fifo(void **state)
{
    /* a FIFO with no writer: an open for reading would wait forever */
    char dir[] = "/tmp/roofplan-trace-XXXXXX", path[64];
    struct seen s;
    struct diag d;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/fifo.json", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    memset(&s, 0, sizeof s);
    diag_init(&d);
    /* refused by the one input reader (input_file_open), as every input */
    assert_int_equal(trace_read_file(path, count, &s, NULL, NULL, &d),
                     STATUS_IO);
    util_expect_msg(&d, path, ": not a regular file");
    assert_int_equal(util_remove_tree(dir), 0);
}

static void test_trace_read_file_gzip(void **state)
{
    /* the same trace through gzip reads the same */
    char dir[] = "/tmp/roofplan-trace-XXXXXX", path[64], cmd[160];
    struct seen s;
    struct diag d;
    FILE *f;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/t.json", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("{\"traceEvents\": [" K("7") "]}", f);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "gzip -n '%s'", path);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/t.json.gz", dir);
    memset(&s, 0, sizeof s);
    diag_init(&d);
    assert_int_equal(trace_read_file(path, count, &s, NULL, NULL, &d),
                     STATUS_OK);
    assert_int_equal(s.n, 1);
    assert_near(s.dur[0], 7, 1e-12);
    assert_int_equal(util_remove_tree(dir), 0);
}

/* Writes text to dir/name and gzips it there (gzip -n: name.gz). */
static void gzip_file(const char *dir, const char *name, const char *text)
{
    char path[128], cmd[256];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    snprintf(cmd, sizeof cmd, "gzip -n '%s'", path);
    assert_int_equal(system(cmd), 0);
}

static void test_trace_read_file_gzip_members_and_trailing_data(void **state)
{
    /* RFC 1952 2.2: a gzip file is a series of members; gzip -d reads
     * them one after another (here the JSON cut in two, one member
     * each). zlib's gzread() also takes anything else after a member
     * as its end, silently: that is refused, at the byte of the
     * compressed file it starts at (the two members' sizes) */
    char dir[] = "/tmp/roofplan-trace-XXXXXX", path[64], cmd[256], want[160];
    struct seen s;
    struct diag d;
    struct stat st;
    FILE *f;
    (void)state;
    assert_non_null(mkdtemp(dir));
    gzip_file(dir, "a", "{\"traceEvents\": [" K("7") ", ");
    gzip_file(dir, "b", K("9") "]}");
    snprintf(cmd, sizeof cmd, "cat '%s/a.gz' '%s/b.gz' >'%s/t.json.gz'", dir,
             dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(path, sizeof path, "%s/t.json.gz", dir);
    memset(&s, 0, sizeof s);
    diag_init(&d);
    assert_int_equal(trace_read_file(path, count, &s, NULL, NULL, &d),
                     STATUS_OK);
    assert_int_equal(s.n, 2);
    assert_near(s.dur[1], 9, 1e-12);
    /* the same with text after the second member */
    assert_int_equal(stat(path, &st), 0);
    f = fopen(path, "a");
    assert_non_null(f);
    fputs("garbage\n", f);
    assert_int_equal(fclose(f), 0);
    memset(&s, 0, sizeof s);
    diag_init(&d);
    assert_int_equal(trace_read_file(path, count, &s, NULL, NULL, &d),
                     STATUS_PARSE);
    snprintf(want, sizeof want,
             ": compressed byte %lld: data after the gzip stream that is "
             "no gzip member",
             (long long)st.st_size);
    util_expect_msg(&d, path, want);
    assert_int_equal(util_remove_tree(dir), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_read_mem_kernels),
        cmocka_unit_test(test_trace_read_device_name_printable),
        cmocka_unit_test(test_trace_read_old_kineto_category),
        cmocka_unit_test(test_trace_read_rejects_bad_input),
        cmocka_unit_test(test_trace_read_rejects_nesting_bomb),
        cmocka_unit_test(test_trace_read_rejects_huge_string),
        cmocka_unit_test(test_trace_read_rejects_long_number),
        cmocka_unit_test(test_trace_read_file_refuses_fifo),
        cmocka_unit_test(test_trace_read_file_gzip),
        cmocka_unit_test(test_trace_read_file_gzip_members_and_trailing_data),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
