/*
 * test_xlsx_compare: the workbook of `roofplan compare` from hand-made
 * rows (no sweep): the title and header, a pair at the speed of light
 * only ("n/a" in the expected columns), a calibrated pair, a pair with no
 * valid plan (its reason in the plan column), the command line under the
 * table, and a path that cannot be written.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlsx_compare.h"
#include "test_util.h"

#define GIB  1073741824.0
#define HEAD 4 /* the header row (1-based); the models follow */
/* Rows (1-based): DeepSeek-V3's heading, its two pairs, GPT-3's heading,
 * its pair (issue 37: grouped by model, each with its recipe). */
#define DSV3 (HEAD + 1)
#define GPT3 (HEAD + 4)

struct fixture {
    struct compare_row rows[3];
    char dir[64], path[96];
    struct util_xlsx x;
};

/* Row 0: DeepSeek-V3 on 2048 H800, a PP 16 x EP 64 plan bound by IB;
 * row 1: the same on a calibrated cluster (an expected step); row 2: no
 * valid plan. The numbers are made up: the sheet only lays them out. */
static void make_rows(struct compare_row *r)
{
    memset(r, 0, 3 * sizeof *r);
    snprintf(r[0].model, sizeof r[0].model, "DeepSeek-V3");
    snprintf(r[0].gpu, sizeof r[0].gpu, "NVIDIA H800");
    snprintf(r[0].model_path, sizeof r[0].model_path, "models/dsv3.ini");
    snprintf(r[0].hardware_path, sizeof r[0].hardware_path, "hw/h800.ini");
    r[0].gpus = 2048;
    r[0].params_total = 671e9;
    r[0].params_active = 37e9;
    r[0].hbm_gib = 79.21;
    r[0].seq_len = 4096;
    r[0].valid = 1234;
    r[0].fitting = 56;
    r[0].any = true;
    snprintf(r[0].recommended.family, sizeof r[0].recommended.family,
             "ZeRO-1+PP+EP");
    r[0].recommended.plan =
        (struct plan){.gpus = 2048,
                      .tp = 1,
                      .pp = 16,
                      .ep = 64,
                      .cp = 1,
                      .zero = 1,
                      .schedule = PLAN_DUALPIPE,
                      .vpp = 1,
                      .precision = MODEL_FP8,
                      .recompute = MODEL_RECOMPUTE_SELECTIVE,
                      .mbs = 1,
                      .gbs = 15360};
    r[0].recommended.t.step = 12.5;
    r[0].recommended.t.bound = COST_IB;
    r[0].recommended.t.mfu = 0.41;
    r[0].recommended.mem.total = 60.5 * GIB;
    r[0].recommended.fits = true;
    r[0].rank = 1; /* the first at the speed of light only */
    snprintf(r[0].recipe, sizeof r[0].recipe, "Sequence 4,096 tokens.");
    r[1] = r[0];
    r[1].calibrated = true;
    snprintf(r[1].gpu, sizeof r[1].gpu, "NVIDIA H800 (calibrated)");
    r[1].recommended.work.x.known = true;
    r[1].recommended.t.expected = 19.9;
    r[1].recommended.t.x_tps = 1234.5;
    r[1].recommended.t.x_days = 40;
    r[1].recommended.t.x_cost = 5e6;
    r[1].has_range = true; /* the report's: measured over expected */
    r[1].range_lo = 0.85;
    r[1].range_hi = 1.68;
    r[2] = r[0];
    snprintf(r[2].model, sizeof r[2].model, "GPT-3 175B");
    snprintf(r[2].model_path, sizeof r[2].model_path, "models/gpt3.ini");
    r[2].group = 1;
    r[2].any = false;
    r[2].rank = 0;
    snprintf(r[2].why, sizeof r[2].why, "tp 16 exceeds 8 GPUs per node");
}

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    memset(&f, 0, sizeof f);
    make_rows(f.rows);
    snprintf(f.dir, sizeof f.dir, "/tmp/test_xlsx_compare.XXXXXX");
    if (!mkdtemp(f.dir))
        return -1;
    snprintf(f.path, sizeof f.path, "%s/compare.xlsx", f.dir);
    diag_init(&d);
    if (xlsx_compare_write(f.rows, 3, f.path, 1700000000,
                           "roofplan compare a b", &d) != STATUS_OK) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    util_xlsx_read(&f.x, f.path, 1);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    util_xlsx_free(&f->x);
    util_remove_tree(f->dir);
    return 0;
}

static const char *
text(const struct fixture *f, const char *col, size_t row, char *buf)
{
    char ref[32];
    snprintf(ref, sizeof ref, "%s%zu", col, row);
    return util_xlsx_text(&f->x, ref, buf, 512);
}

static double num(const struct fixture *f, const char *col, size_t row)
{
    char ref[32];
    snprintf(ref, sizeof ref, "%s%zu", col, row);
    return util_xlsx_num(&f->x, ref);
}

static void test_xlsx_compare_write_header(void **state)
{
    struct fixture *f = *state;
    char buf[512];
    assert_string_equal(text(f, "A", 1, buf),
                        "Recommended plan per model and cluster, side by side");
    assert_string_equal(text(f, "A", HEAD, buf),
                        "Rank (cost, expected; else speed of light)");
    assert_string_equal(text(f, "M", HEAD, buf), "Model");
    assert_string_equal(text(f, "D", HEAD, buf), "Recommended plan's family");
    /* issue 18: every figure says which it is, the expected ones first,
     * with their range (issue 37), then Fits: the printed columns; the
     * model after them (each model's heading names it in print) */
    assert_string_equal(text(f, "E", HEAD, buf), "Step, expected (s)");
    assert_string_equal(text(f, "G", HEAD, buf),
                        "Days, expected: low end of the range");
    assert_string_equal(text(f, "I", HEAD, buf),
                        "Cost for the token budget, expected (USD)");
    assert_string_equal(text(f, "K", HEAD, buf),
                        "Cost, expected: high end of the range (USD)");
    assert_string_equal(text(f, "L", HEAD, buf), "Fits");
    assert_string_equal(text(f, "O", HEAD, buf), "Step, speed of light (s)");
    assert_string_equal(text(f, "S", HEAD, buf), "MFU, speed of light");
    assert_string_equal(text(f, "T", HEAD, buf),
                        "Days for the token budget, speed of light");
    assert_string_equal(text(f, "V", HEAD, buf),
                        "Cost for the token budget, speed of light (USD)");
    assert_string_equal(text(f, "W", HEAD, buf), "Memory per GPU (GiB)");
    assert_string_equal(text(f, "AB", HEAD, buf), "Sequence length (tokens)");
    assert_string_equal(text(f, "AC", HEAD, buf), "Global batch (sequences)");
    assert_string_equal(text(f, "AD", HEAD, buf),
                        "Recommended plan (roofplan eval syntax)");
    assert_string_equal(text(f, "AE", HEAD, buf), "Model file; hardware file");
    assert_string_equal(text(f, "AF", HEAD, buf), "");
}

/* Each model's heading: its name, file and recipe, above its pairs. */
static void test_xlsx_compare_write_model_headings(void **state)
{
    struct fixture *f = *state;
    char buf[512];
    assert_string_equal(
        text(f, "A", DSV3, buf),
        "DeepSeek-V3 (models/dsv3.ini): Sequence 4,096 tokens.");
    assert_string_equal(text(f, "M", DSV3, buf), "");
    assert_string_equal(text(f, "A", GPT3, buf),
                        "GPT-3 175B (models/gpt3.ini): Sequence 4,096 tokens.");
}

/* A pair at the speed of light: marked in its rank, its numbers where
 * they belong, the expected columns "n/a" without a calibration, memory
 * in GiB, parameters in billions. */
static void test_xlsx_compare_write_sol_row(void **state)
{
    struct fixture *f = *state;
    const size_t row = DSV3 + 1;
    char buf[512];
    assert_string_equal(text(f, "A", row, buf),
                        "1, speed of light only (no calibration)");
    assert_string_equal(text(f, "M", row, buf), "DeepSeek-V3");
    assert_near(num(f, "C", row), 2048, 0);
    assert_string_equal(text(f, "D", row, buf), "ZeRO-1+PP+EP");
    assert_string_equal(text(f, "E", row, buf), "n/a");
    assert_string_equal(text(f, "G", row, buf), "n/a");
    assert_string_equal(text(f, "I", row, buf), "n/a");
    assert_near(num(f, "O", row), 12.5, 0);
    assert_string_equal(text(f, "P", row, buf), "IB");
    assert_near(num(f, "S", row), 0.41, 0);
    assert_near(num(f, "W", row), 60.5, 1e-15);
    assert_near(num(f, "X", row), 79.21, 0);
    assert_string_equal(text(f, "L", row, buf), "yes");
    assert_string_equal(text(f, "Y", row, buf), "1234 / 56");
    assert_near(num(f, "Z", row), 671, 1e-15);
    assert_near(num(f, "AA", row), 37, 1e-15);
    assert_near(num(f, "AB", row), 4096, 0);
    assert_near(num(f, "AC", row), 15360, 0);
    assert_string_equal(text(f, "AD", row, buf),
                        "gpus=2048 tp=1 pp=16 ep=64 cp=1 zero=1 "
                        "schedule=dualpipe vpp=1 precision=fp8 "
                        "recompute=selective mbs=1 gbs=15360");
    assert_string_equal(text(f, "AE", row, buf),
                        "models/dsv3.ini; hw/h800.ini");
}

static void test_xlsx_compare_write_expected_row(void **state)
{
    struct fixture *f = *state;
    const size_t row = DSV3 + 2;
    char buf[512];
    assert_string_equal(text(f, "A", row, buf), "1");
    assert_string_equal(text(f, "B", row, buf), "NVIDIA H800 (calibrated)");
    assert_near(num(f, "E", row), 19.9, 0);
    assert_near(num(f, "N", row), 1234.5, 0);
    assert_near(num(f, "O", row), 12.5, 0);
    /* the range: 40 days x 0.85 and x 1.68, $5M x 0.85 and x 1.68 */
    assert_near(num(f, "F", row), 40, 0);
    assert_near(num(f, "G", row), 34, 1e-12);
    assert_near(num(f, "H", row), 67.2, 1e-12);
    assert_near(num(f, "I", row), 5e6, 0);
    assert_near(num(f, "J", row), 4.25e6, 1e-12);
    assert_near(num(f, "K", row), 8.4e6, 1e-12);
}

/* No valid plan: the reason instead of a plan, no step, but the pair's
 * own facts (GPUs, parameters) still shown. */
static void test_xlsx_compare_write_no_valid_plan(void **state)
{
    struct fixture *f = *state;
    const size_t row = GPT3 + 1;
    char buf[512];
    assert_string_equal(text(f, "A", row, buf), "-");
    assert_string_equal(text(f, "M", row, buf), "GPT-3 175B");
    assert_string_equal(text(f, "D", row, buf), "no valid plan");
    assert_string_equal(text(f, "AD", row, buf),
                        "tp 16 exceeds 8 GPUs per node");
    assert_string_equal(text(f, "O", row, buf), "");
    assert_string_equal(text(f, "L", row, buf), "");
    assert_near(num(f, "C", row), 2048, 0);
    /* a blank row, then the command line */
    assert_string_equal(text(f, "A", row + 1, buf), "");
    assert_string_equal(text(f, "A", row + 2, buf),
                        "Command: roofplan compare a b");
}

static void test_xlsx_compare_write_unwritable(void **state)
{
    struct fixture *f = *state;
    struct diag d;
    diag_init(&d);
    assert_int_equal(
        xlsx_compare_write(f->rows, 3, "/nonexistent-dir/c.xlsx", 0, "", &d),
        STATUS_IO);
    assert_string_equal(d.msg, "/nonexistent-dir/c.xlsx: cannot write: No "
                               "such file or directory");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_compare_write_header),
        cmocka_unit_test(test_xlsx_compare_write_model_headings),
        cmocka_unit_test(test_xlsx_compare_write_sol_row),
        cmocka_unit_test(test_xlsx_compare_write_expected_row),
        cmocka_unit_test(test_xlsx_compare_write_no_valid_plan),
        cmocka_unit_test(test_xlsx_compare_write_unwritable),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
