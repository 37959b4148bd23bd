/*
 * test_nccl_import: real nccl-tests outputs (tests/data/nccl/SOURCES.md)
 * read into curves, and bad input named by file:line (the fragment
 * written from them is test_nccl_import_write.c's). Expected busbw values are
 * nccl-tests' own formula worked by hand: size / time x bus factor, the factor
 * 2(n-1)/n for all_reduce and (n-1)/n for the others (nccl-tests
 * PERFORMANCE.md).
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

#include "nccl_import.h"
#include "test_util.h"

#define DIR "tests/data/nccl/"

static void assert_has_line(const char *msg, const char *line)
{
    if (!strstr(msg, line))
        fail_msg("text lacks \"%s\"; it was:\n%s", line, msg);
}

/* The import is large (runs of 128 rows): one per test, on the heap. */
static int setup(void **state)
{
    *state = calloc(1, sizeof(struct nccl_import));
    return *state ? 0 : -1;
}

static int teardown(void **state)
{
    free(*state);
    return 0;
}

static void read_ok(struct nccl_import *imp,
                    const char *path,
                    enum nccl_import_link link,
                    const char *kind)
{
    struct diag d;
    diag_init(&d);
    if (nccl_import_read(imp, path, link, kind, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

static void read_fails(const char *path,
                       enum nccl_import_link link,
                       const char *kind,
                       enum status want,
                       const char *msg)
{
    struct nccl_import *imp = calloc(1, sizeof *imp);
    struct diag d;
    assert_non_null(imp);
    diag_init(&d);
    assert_int_equal(nccl_import_read(imp, path, link, kind, &d), want);
    assert_has_line(d.msg, msg);
    assert_int_equal(imp->n, 0);
    free(imp);
}

/* The text of path without its lines first..last (1-based); free it. */
static char *without_lines(const char *path, int first, int last)
{
    FILE *f = fopen(path, "r");
    char line[512];
    size_t cap = 16384, used = 0;
    char *out = calloc(1, cap);
    int n = 0;
    assert_non_null(f);
    assert_non_null(out);
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line);
        n++;
        if (n >= first && n <= last)
            continue;
        assert_true(used + len < cap);
        memcpy(out + used, line, len + 1);
        used += len;
    }
    fclose(f);
    return out;
}

/*
 * 8 x H100 on one host, all_reduce_perf 8 B .. 8 GiB. First row: 8 B in
 * 35.58 us: 8 / 35.58 x 1e-3 GB/s x 2 x 7/8 = 3.9348e-4 GB/s (printed
 * 0.00). Last: 8589934592 / 40772.4 x 1e-3 x 1.75 = 368.69 (printed).
 */
static void test_nccl_import_read_intra_all_reduce(void **state)
{
    struct nccl_import *imp = *state;
    const struct nccl_import_run *run = &imp->runs[0];
    read_ok(imp, DIR "h100-1node-all_reduce.txt", NCCL_IMPORT_LINK_AUTO, NULL);
    assert_int_equal(imp->n, 1);
    assert_string_equal(run->test, "all_reduce_perf");
    assert_false(run->skipped);
    assert_int_equal(run->kind, CALIBRATION_ALL_REDUCE);
    assert_int_equal(run->link, CALIBRATION_LINK_INTRA);
    assert_int_equal(run->ranks, 8);
    assert_int_equal(run->nodes, 1);
    assert_int_equal(run->line, 1);
    assert_string_equal(run->gpu, "NVIDIA H100 80GB HBM3");
    assert_string_equal(run->version, "2.17.9 (NCCL 2.26.2)");
    assert_true(run->busbw_from_time);
    assert_int_equal(run->n, 31); /* 2^3 .. 2^33 */
    assert_near(run->bytes[0], 8, 1e-12);
    assert_near(run->busbw_gbps[0], 3.9348e-4, 1e-4);
    assert_near(run->bytes[30], 8589934592.0, 1e-12);
    assert_near(run->busbw_gbps[30], 368.69, 1e-4);
    assert_near(run->avg_busbw_gbps, 123.961, 1e-12);
}

/*
 * all_gather_perf prints four 0-byte rows first: skipped. 128 B in
 * 35.05 us: 128 / 35.05 x 1e-3 x 7/8 = 3.1954e-3. 8 GiB in 21001.0 us:
 * 8589934592 / 21001.0 x 1e-3 x 7/8 = 357.90.
 */
static void test_nccl_import_read_all_gather_skips_empty_rows(void **state)
{
    struct nccl_import *imp = *state;
    const struct nccl_import_run *run = &imp->runs[0];
    read_ok(imp, DIR "h100-1node-all_gather.txt", NCCL_IMPORT_LINK_AUTO, NULL);
    assert_int_equal(run->kind, CALIBRATION_ALL_GATHER);
    assert_int_equal(run->n, 27); /* 2^7 .. 2^33 */
    assert_near(run->bytes[0], 128, 1e-12);
    assert_near(run->busbw_gbps[0], 3.1954e-3, 1e-4);
    assert_near(run->busbw_gbps[26], 357.90, 1e-4);
}

/*
 * One log, two tests on 2 nodes x 8 H100: alltoall_perf (imported; 32 MiB
 * in 516.6 us: 33554432 / 516.6 x 1e-3 x 15/16 = 60.893) and
 * sendrecv_perf (skipped, and listed).
 */
static void test_nccl_import_read_inter_alltoall_and_skip(void **state)
{
    struct nccl_import *imp = *state;
    read_ok(imp, DIR "h100-2node-alltoall-sendrecv.txt", NCCL_IMPORT_LINK_AUTO,
            NULL);
    assert_int_equal(imp->n, 2);
    assert_int_equal(imp->runs[0].kind, CALIBRATION_ALLTOALL);
    assert_int_equal(imp->runs[0].link, CALIBRATION_LINK_INTER);
    assert_int_equal(imp->runs[0].ranks, 16);
    assert_int_equal(imp->runs[0].nodes, 2);
    assert_int_equal(imp->runs[0].n, 10);
    assert_near(imp->runs[0].busbw_gbps[0], 60.893, 1e-4);
    assert_true(imp->runs[1].skipped);
    assert_string_equal(imp->runs[1].test, "sendrecv_perf");
    assert_int_equal(imp->runs[1].line, 40);
}

/*
 * A log re-indented in a web page, with a command line and loader warnings
 * before the output: 2 GH200 nodes x 4. Last row: 128 MiB in 1916.4 us:
 * 134217728 / 1916.4 x 1e-3 x 2 x 7/8 = 122.56.
 */
static void test_nccl_import_read_indented_log_with_noise(void **state)
{
    struct nccl_import *imp = *state;
    const struct nccl_import_run *run = &imp->runs[0];
    read_ok(imp, DIR "gh200-2node-all_reduce-indented.txt",
            NCCL_IMPORT_LINK_AUTO, NULL);
    assert_int_equal(imp->n, 1);
    assert_int_equal(run->line, 10);
    assert_int_equal(run->link, CALIBRATION_LINK_INTER);
    assert_int_equal(run->ranks, 8);
    assert_int_equal(run->nodes, 2);
    assert_string_equal(run->gpu, "NVIDIA GH200 120GB");
    assert_int_equal(run->n, 25); /* 2^3 .. 2^27 */
    assert_near(run->busbw_gbps[24], 122.56, 1e-4);
}

/* Output without the test-name line: the file name, or the caller, names
 * the collective; no device list: the caller names the link. */
static void test_nccl_import_hints(void **state)
{
    struct nccl_import *imp = *state;
    char dir[] = "/tmp/roofplan-nccl-XXXXXX";
    char named[64], plain[64], nodev[64];
    char *text;
    assert_non_null(mkdtemp(dir));
    snprintf(named, sizeof named, "%s/allreduce-run.txt", dir);
    snprintf(plain, sizeof plain, "%s/run.txt", dir);
    snprintf(nodev, sizeof nodev, "%s/all_reduce-nodev.txt", dir);
    /* Lines 1-2: "# nccl-tests version" and "# Collective test starting". */
    text = without_lines(DIR "h100-1node-all_reduce.txt", 1, 2);
    util_write_text(NULL, named, text);
    util_write_text(NULL, plain, text);
    free(text);
    /* Lines 5-13: "# Using devices" and the eight rank lines. */
    text = without_lines(DIR "h100-1node-all_reduce.txt", 5, 13);
    util_write_text(NULL, nodev, text);
    free(text);

    read_ok(imp, named, NCCL_IMPORT_LINK_AUTO, NULL);
    assert_int_equal(imp->runs[0].kind, CALIBRATION_ALL_REDUCE);
    assert_int_equal(imp->runs[0].n, 31);
    read_fails(plain, NCCL_IMPORT_LINK_AUTO, NULL, STATUS_PARSE,
               "run.txt:1: the output does not name its test");
    /* The rows say all_reduce: with the all_gather factor 7/8 the time
     * column no longer gives the printed busbw (43.50 at 1 MiB). */
    read_fails(plain, NCCL_IMPORT_LINK_AUTO, "all_gather", STATUS_PARSE,
               "is not size / time x 0.875");
    read_fails(plain, NCCL_IMPORT_LINK_AUTO, "sendrecv", STATUS_USAGE,
               "collective 'sendrecv': expected all_reduce");
    read_fails(nodev, NCCL_IMPORT_LINK_AUTO, NULL, STATUS_PARSE,
               "all_reduce-nodev.txt:1: no \"#  Rank N ... on HOST device\" "
               "lines");
    /* Without ranks, the printed busbw: 8..64 B print 0.00 and drop. */
    imp->n = 0;
    read_ok(imp, nodev, NCCL_IMPORT_LINK_INTRA, NULL);
    assert_int_equal(imp->runs[0].ranks, 0);
    assert_int_equal(imp->runs[0].nodes, 1);
    assert_false(imp->runs[0].busbw_from_time);
    assert_int_equal(imp->runs[0].n, 27);
    assert_near(imp->runs[0].busbw_gbps[26], 368.69, 1e-12);
    remove(named);
    remove(plain);
    remove(nodev);
    rmdir(dir);
}

/* Bad input: every case names the file and line. */
static void test_nccl_import_rejects_bad_input(void **state)
{
    (void)state;
    read_fails(DIR "h100-interleaved-all_reduce.txt", NCCL_IMPORT_LINK_AUTO,
               NULL, STATUS_PARSE,
               DIR "h100-interleaved-all_reduce.txt:6: a second \"nccl-tests "
                   "version\" line: the output of several runs is "
                   "interleaved");
    read_fails(DIR "truncated-all_reduce.txt", NCCL_IMPORT_LINK_AUTO, NULL,
               STATUS_PARSE,
               DIR "truncated-all_reduce.txt:16: all_reduce_perf: no data "
                   "rows with a size and busbw above 0");
    read_fails(DIR "ucc-perftest-alltoall.txt", NCCL_IMPORT_LINK_AUTO, NULL,
               STATUS_PARSE,
               DIR "ucc-perftest-alltoall.txt:1: not nccl-tests output");
    read_fails(DIR "gh200-2node-all_reduce-indented.txt",
               NCCL_IMPORT_LINK_INTRA, NULL, STATUS_PARSE,
               "gh200-2node-all_reduce-indented.txt:10: the link given is "
               "intra-node, but the ranks of the run are on 2 hosts");
    read_fails(DIR "h100-1node-all_reduce.txt", NCCL_IMPORT_LINK_INTER, NULL,
               STATUS_PARSE,
               "h100-1node-all_reduce.txt:1: the link given is inter-node, "
               "but every rank of the run is on gpu-dp-2jvzl-pqq7p");
    read_fails(DIR "no-such-file.txt", NCCL_IMPORT_LINK_AUTO, NULL, STATUS_IO,
               DIR "no-such-file.txt: cannot open");
}

/* One curve per link and collective, one GPU per calibration file. */
static void test_nccl_import_rejects_second_curve_and_gpu(void **state)
{
    struct nccl_import *imp = *state;
    struct diag d;
    read_ok(imp, DIR "h100-1node-all_reduce.txt", NCCL_IMPORT_LINK_AUTO, NULL);
    diag_init(&d);
    assert_int_equal(nccl_import_read(imp, DIR "h100-1node-all_reduce.txt",
                                      NCCL_IMPORT_LINK_AUTO, NULL, &d),
                     STATUS_PARSE);
    assert_has_line(d.msg, "h100-1node-all_reduce.txt:1: a second intra-node "
                           "all_reduce curve (the first is " DIR
                           "h100-1node-all_reduce.txt:1)");
    diag_init(&d);
    assert_int_equal(nccl_import_read(imp,
                                      DIR "gh200-2node-all_reduce-indented.txt",
                                      NCCL_IMPORT_LINK_AUTO, NULL, &d),
                     STATUS_PARSE);
    assert_has_line(d.msg, "gh200-2node-all_reduce-indented.txt:10: GPU "
                           "\"NVIDIA GH200 120GB\" differs from \"NVIDIA "
                           "H100 80GB HBM3\"");
    assert_int_equal(imp->n, 1);
}

/* A FIFO is refused, not waited on: before, the reader's fopen() blocked
 * until a writer came (alarm() fails the test instead of hanging). */
static void test_nccl_import_refuses_fifo(void **state)
{
    char dir[] = "/tmp/roofplan-nccl-XXXXXX", path[64];
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/all_reduce.txt", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    alarm(10);
    read_fails(path, NCCL_IMPORT_LINK_AUTO, NULL, STATUS_IO,
               "all_reduce.txt: not a regular file");
    alarm(0);
    unlink(path);
    rmdir(dir);
}

/* A run of one row of the given size, time (us) and printed busbw, on
 * 8 ranks of one host, written to path. */
static void write_one_row(const char *path,
                          const char *size,
                          const char *time_us,
                          const char *busbw)
{
    FILE *f = fopen(path, "w");
    int i;
    assert_non_null(f);
    fputs("# Collective test starting: all_reduce_perf\n"
          "# nThread 1 nGpus 8 minBytes 8 maxBytes 8 step: 2(factor)\n",
          f);
    for (i = 0; i < 8; i++)
        fprintf(f,
                "#  Rank %d Group 0 Pid 1 on node0 device %d [0000:%02d:00] "
                "NVIDIA H100 80GB HBM3\n",
                i, i, i);
    fprintf(f,
            "#       size   count  type  redop  root   time  algbw  busbw "
            "#wrong\n"
            "%12s  2  float  sum  -1  %s  0.00  %s  0\n",
            size, time_us, busbw);
    assert_int_equal(fclose(f), 0);
}

/*
 * A time so small that size / time overflows (8 GiB in 1e-307 us: 8.6e316
 * B/us, inf), or gives a busbw no link moves (8 B in 1e-300 us: 8 / 1e-300
 * x 1e-3 x 1.75 = 1.4e298 GB/s), is refused with its line; so is a size
 * above 2^53, which "%.0f" would not write back as read. Before, the first
 * wrote "busbw_gbps = inf" and exited 0, and `check` refused the fragment.
 */
static void test_nccl_import_rejects_tiny_time_and_odd_size(void **state)
{
    char dir[] = "/tmp/roofplan-nccl-XXXXXX", path[64];
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/run.txt", dir);
    write_one_row(path, "8589934592", "1e-307", "0.00");
    read_fails(path, NCCL_IMPORT_LINK_AUTO, NULL, STATUS_PARSE,
               "run.txt:12: busbw inf GB/s (size / time x bus factor) is "
               "above 1e+06 GB/s");
    write_one_row(path, "8", "1e-300", "0.00");
    read_fails(path, NCCL_IMPORT_LINK_AUTO, NULL, STATUS_PARSE,
               "run.txt:12: busbw 1.4e+298 GB/s");
    /* the printed busbw alone (time 0.00) is bounded the same way */
    write_one_row(path, "8", "0.00", "2e6");
    read_fails(path, NCCL_IMPORT_LINK_AUTO, NULL, STATUS_PARSE,
               "run.txt:12: busbw 2e+06 GB/s (as printed) is above");
    /* 2^54 bytes: above 2^53 */
    write_one_row(path, "18014398509481984", "35.0", "0.00");
    read_fails(path, NCCL_IMPORT_LINK_AUTO, NULL, STATUS_PARSE,
               "run.txt:12: size: expected a byte count (a whole number up "
               "to 2^53), got \"18014398509481984\"");
    unlink(path);
    rmdir(dir);
}

/*
 * 200,000 ranks, each on its own host (a device list of 200,000 lines):
 * read as one inter-node run of 200,000 ranks on 200,000 nodes. Its one
 * row, 1 MiB in 1000 us: 1048576 / 1000 x 1e-3 x 2 x 199999/200000 =
 * 2.09714151424 GB/s (all_reduce's bus factor 2(n-1)/n). Before, each
 * rank line compared its host with every host before it (O(n^2), over
 * 20 s here); the speed is `make bench`'s to measure, this checks the
 * result.
 */
static void test_nccl_import_reads_200k_hosts(void **state)
{
    struct nccl_import *imp = *state;
    const struct nccl_import_run *run = &imp->runs[0];
    char dir[] = "/tmp/roofplan-nccl-XXXXXX", path[64];
    FILE *f;
    long i;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/all_reduce.txt", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("# nThread 1 nGpus 1 minBytes 1048576 maxBytes 1048576\n", f);
    for (i = 0; i < 200000; i++)
        fprintf(f,
                "#  Rank %6ld Group  0 Pid 1 on host-%06ld device  0 "
                "[0000:29:00] NVIDIA H100 80GB HBM3\n",
                i, i);
    fputs("#  size  count  type  redop  root  time  algbw  busbw  #wrong\n"
          "1048576  262144  float  sum  -1  1000.0  1.05  2.10  0\n",
          f);
    assert_int_equal(fclose(f), 0);
    read_ok(imp, path, NCCL_IMPORT_LINK_AUTO, NULL);
    assert_int_equal(imp->n, 1);
    assert_int_equal(run->link, CALIBRATION_LINK_INTER);
    assert_int_equal(run->ranks, 200000);
    assert_int_equal(run->nodes, 200000);
    assert_int_equal(run->n, 1);
    assert_near(run->busbw_gbps[0], 2.09714151424, 1e-12);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_nccl_import_read_intra_all_reduce,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_nccl_import_read_all_gather_skips_empty_rows, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_nccl_import_read_inter_alltoall_and_skip, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_nccl_import_read_indented_log_with_noise, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nccl_import_hints, setup,
                                        teardown),
        cmocka_unit_test(test_nccl_import_rejects_bad_input),
        cmocka_unit_test_setup_teardown(
            test_nccl_import_rejects_second_curve_and_gpu, setup, teardown),
        cmocka_unit_test(test_nccl_import_refuses_fifo),
        cmocka_unit_test(test_nccl_import_rejects_tiny_time_and_odd_size),
        cmocka_unit_test_setup_teardown(test_nccl_import_reads_200k_hosts,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
