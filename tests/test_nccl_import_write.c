/*
 * test_nccl_import_write: the INI fragment written from imported runs —
 * sections by link and collective, a curve thinned evenly in log size,
 * skipped runs as comments, lines within a data file's limit — and that
 * a calibration file loads it back. Runs are read from real nccl-tests
 * outputs (tests/data/nccl/SOURCES.md) or built by hand.
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

/*
 * The fragment: 31 all_reduce sizes thinned to 16, evenly in ln(size):
 * every other power of two from 8 B to 8 GiB. Appended to a calibration
 * file it loads, and the lookups give the rows back.
 */
static void test_nccl_import_write_loads_as_calibration(void **state)
{
    struct nccl_import *imp = *state;
    char dir[] = "/tmp/roofplan-nccl-XXXXXX";
    char path[64];
    char *text = NULL;
    size_t len = 0;
    FILE *f;
    struct diag d;
    struct calibration cal;
    read_ok(imp, DIR "h100-1node-all_reduce.txt", NCCL_IMPORT_LINK_AUTO, NULL);
    read_ok(imp, DIR "h100-2node-alltoall-sendrecv.txt", NCCL_IMPORT_LINK_AUTO,
            NULL);
    f = open_memstream(&text, &len);
    assert_non_null(f);
    diag_init(&d);
    assert_int_equal(nccl_import_write(imp, f, "memory", &d), STATUS_OK);
    assert_int_equal(fclose(f), 0);
    assert_has_line(text, "[network_intra_all_reduce]\nsource = nccl-tests "
                          "all_reduce_perf 2.17.9 (NCCL 2.26.2), 8 ranks on 1 "
                          "node (NVIDIA H100 80GB HBM3)");
    assert_has_line(text, "\nbytes = 8 32 128 512 2048 8192 32768 131072 "
                          "524288 2097152 8388608 33554432 134217728 "
                          "536870912 2147483648 8589934592\n");
    assert_has_line(text, "; 16 of the 31 sizes, evenly spaced in log size");
    assert_has_line(text, "\nranks = 16\nnodes = 2\n");
    assert_has_line(text, "; skipped " DIR "h100-2node-alltoall-sendrecv.txt"
                          ":40: sendrecv_perf is not a collective roofplan "
                          "models");
    assert_true(strstr(text, "[network_intra_all_reduce]") <
                strstr(text, "[network_inter_alltoall]"));

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/cal.ini", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("[calibration]\nsource = test\ngpu = NVIDIA H100 80GB HBM3\n"
          "hardware_gpu = NVIDIA H100 SXM5 80GB\ndate = "
          "2026-12-01\n[attention_kernel]\nsource = test\n"
          "head_dims = 128\nfwd_tflops = 591\nfwd_bwd_tflops = 485\n"
          "[elementwise]\nsource = test\ncopy_tbps = 3\n[clock]\n"
          "source = test\nburst_tflops = 776\nsustained_tflops = 659\n"
          "run_s = 20\n",
          f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    free(text);
    diag_init(&d);
    if (calibration_load(path, &cal, NULL, 0, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    assert_near(calibration_busbw_gbps(&cal, CALIBRATION_LINK_INTRA,
                                       CALIBRATION_ALL_REDUCE, 8, NULL),
                imp->runs[0].busbw_gbps[0], 1e-5);
    assert_near(calibration_busbw_gbps(&cal, CALIBRATION_LINK_INTRA,
                                       CALIBRATION_ALL_REDUCE, 8589934592.0,
                                       NULL),
                368.69, 1e-5);
    assert_near(calibration_busbw_gbps(&cal, CALIBRATION_LINK_INTER,
                                       CALIBRATION_ALLTOALL, 33554432, NULL),
                60.893, 1e-4);
    assert_int_equal(calibration_curve_get(&cal, CALIBRATION_LINK_INTER,
                                           CALIBRATION_ALLTOALL)
                         ->ranks,
                     16);
    calibration_release(&cal);
    remove(path);
    rmdir(dir);
}

/*
 * A list that would pass the 198-character line limit loses points:
 * 16 sizes of 11 digits need 7 + 16 x 12 = 199 characters, 15 fit (187).
 * (Synthetic rows: this checks the formatting, not a measurement.)
 */
static void test_nccl_import_write_fits_the_line_limit(void **state)
{
    struct nccl_import *imp = *state;
    struct nccl_import_run *run = &imp->runs[0];
    char *text = NULL, *bytes, *end;
    size_t len = 0, i, count = 0;
    FILE *f;
    struct diag d;
    imp->n = 1;
    run->path = "synthetic";
    snprintf(run->test, sizeof run->test, "all_reduce_perf");
    run->kind = CALIBRATION_ALL_REDUCE;
    run->link = CALIBRATION_LINK_INTER;
    run->ranks = 16;
    run->nodes = 2;
    run->avg_busbw_gbps = -1;
    run->n = 40;
    for (i = 0; i < run->n; i++) {
        run->bytes[i] = 10000000000.0 + 1e9 * (double)i;
        run->busbw_gbps[i] = 1.5;
    }
    f = open_memstream(&text, &len);
    assert_non_null(f);
    diag_init(&d);
    assert_int_equal(nccl_import_write(imp, f, "memory", &d), STATUS_OK);
    assert_int_equal(fclose(f), 0);
    bytes = strstr(text, "\nbytes = ");
    assert_non_null(bytes);
    bytes++;
    end = strchr(bytes, '\n');
    assert_true(end - bytes <= 198);
    for (i = 0; bytes + i < end; i++)
        count += bytes[i] == ' ';
    assert_int_equal(count - 1, 15); /* a blank before "=" and each value */
    assert_has_line(bytes, "bytes = 10000000000 ");
    assert_has_line(bytes, " 49000000000\n");
    free(text);
}

static void test_nccl_import_write_needs_a_curve(void **state)
{
    struct nccl_import *imp = *state;
    struct diag d;
    diag_init(&d);
    assert_int_equal(nccl_import_write(imp, stdout, "stdout", &d),
                     STATUS_USAGE);
    assert_has_line(d.msg, "import nccl: no all_reduce, all_gather, "
                           "reduce_scatter or alltoall run to import");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_nccl_import_write_loads_as_calibration, setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_nccl_import_write_fits_the_line_limit, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nccl_import_write_needs_a_curve,
                                        setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
