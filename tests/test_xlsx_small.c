/*
 * test_xlsx_small: the Rejected, Validation, About and Glossary sheets
 * written from a report on the snapshots (tests/data/snap: DeepSeek-V3 on
 * 2048 H800 with the H800 calibration and DeepSeek's stack, and the
 * snapshots' validation runs) and read back: the rejected counts adding
 * up to the enumerated combinations, the families with no fitting plan;
 * each validation run's measured figures (the run files' numbers) beside
 * the predicted ones; About's facts and an input's SHA-256 (sha256sum of
 * the file); the glossary's terms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xlsx_book.h"
#include "xlsx_small.h"
#include "test_util.h"

/* The sheets in tab order. */
enum { REJECTED = 1, VALIDATION, ABOUT, GLOSSARY };

#define MODEL_FILE "tests/data/snap/models/deepseek-v3.ini"

/* The four small sheets, in the order REJECTED .. GLOSSARY. */
static void write_small(struct xlsx_book *b)
{
    xlsx_small_rejected(b, xlsx_book_sheet(b, XLSX_REJECTED_SHEET));
    xlsx_small_validation(b, xlsx_book_sheet(b, XLSX_VALIDATION_SHEET));
    xlsx_small_about(b, xlsx_book_sheet(b, XLSX_ABOUT_SHEET));
    xlsx_small_glossary(b, xlsx_book_sheet(b, XLSX_GLOSSARY_SHEET));
}

static int setup(void **state)
{
    struct util_book *f = util_book_new("test_xlsx_small", true);
    struct diag d;
    diag_init(&d);
    if (report_inputs_add(&f->s.rep.in, "model", MODEL_FILE, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    util_book_write(f, XLSX_BOOK_TABLES, write_small);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    util_book_free(*state);
    return 0;
}

/* Every combination runs or is rejected: the reasons' counts add up to
 * the total rejected, which with the valid plans makes the enumerated
 * combinations; shares are of the enumerated. */
static void test_xlsx_small_rejected_counts(void **state)
{
    struct util_book *f = *state;
    struct util_xlsx x;
    char buf[256];
    size_t head, total, row;
    double sum = 0, enumerated;
    util_xlsx_read(&x, f->path, REJECTED);
    head = util_xlsx_find(&x, "A", "Reason");
    total = util_xlsx_find(&x, "A", "Total rejected");
    assert_true(head == 4 && total > head + 1);
    assert_string_equal(util_xlsx_text_at(&x, 'B', head, buf, sizeof buf),
                        "Combinations");
    for (row = head + 1; row < total; row++)
        sum += util_xlsx_num_at(&x, 'B', row);
    assert_near(util_xlsx_num_at(&x, 'B', total), sum, 0);
    assert_string_equal(util_xlsx_text_at(&x, 'A', total + 1, buf, sizeof buf),
                        "Valid (evaluated)");
    assert_string_equal(util_xlsx_text_at(&x, 'A', total + 2, buf, sizeof buf),
                        "Enumerated");
    enumerated = util_xlsx_num_at(&x, 'B', total + 2);
    assert_near(util_xlsx_num_at(&x, 'B', total + 1) + sum, enumerated, 0);
    for (row = head + 1; row <= total + 1; row++)
        assert_near(util_xlsx_num_at(&x, 'C', row),
                    util_xlsx_num_at(&x, 'B', row) / enumerated, 1e-15);
    assert_true(
        isnan(util_xlsx_num_at(&x, 'C', total + 2))); /* no share of itself */
    util_xlsx_free(&x);
}

/* The families none of whose plans fits (found here from the report's
 * rows): each named once below the heading, with its count of plans. */
static void test_xlsx_small_rejected_families(void **state)
{
    struct util_book *f = *state;
    const struct util_parts *r = &f->s.rep;
    struct util_xlsx x;
    size_t head, i, j, unfit = 0;
    util_xlsx_read(&x, f->path, REJECTED);
    head = util_xlsx_find(&x, "A",
                          "Families rejected: valid plans, none of which fits "
                          "in memory with the headroom");
    assert_true(head > 0);
    for (i = 0; i < r->rank.nfamilies; i++) {
        size_t plans = 0, fitting = 0, row;
        for (j = 0; j < r->rank.nrows; j++)
            if (r->rank.rows[j].family == (int)i) {
                plans++;
                fitting += r->rank.rows[j].fits;
            }
        row = util_xlsx_find(&x, "A", r->rank.family[i].name);
        if (fitting > 0) {
            assert_int_equal(row, 0);
            continue;
        }
        unfit++;
        assert_true(row > head);
        assert_near(util_xlsx_num_at(&x, 'B', row), (double)plans, 0);
    }
    assert_true(unfit > 0); /* ZeRO-1 alone holds 671B nowhere */
    util_xlsx_free(&x);
}

/* The row of run `name` on Validation; fails when absent. */
static size_t run_row(const struct util_xlsx *x, const char *name)
{
    size_t row = util_xlsx_find(x, "A", name);
    if (row == 0)
        fail_msg("no run %s", name);
    return row;
}

/* DeepSeek-V3 on 2048 H800 (tests/data/snap/validation): measured 19.926
 * s, 385 TFLOP/s, MFU 38.94%, 180,000 GPU-hours per 1T tokens; measured
 * / speed of light = C / D, the speed of light not slower (check mark);
 * the speed-of-light TFLOP/s is its MFU x the 989 TFLOP/s BF16 peak. The
 * run file names no stack, so it has no expected step ("n/a", stack
 * "none") though the calibration is found by the hardware file's name. */
static void test_xlsx_small_validation_measured_vs_predicted(void **state)
{
    struct util_book *f = *state;
    struct util_xlsx x;
    char buf[512];
    size_t row;
    double sol;
    util_xlsx_read(&x, f->path, VALIDATION);
    assert_string_equal(util_xlsx_text_at(&x, 'C', 5, buf, sizeof buf),
                        "Measured step (s)");
    row = run_row(&x, "DeepSeek-V3 pre-training, 2048 x H800");
    assert_near(util_xlsx_num_at(&x, 'B', row), 2048, 0);
    assert_near(util_xlsx_num_at(&x, 'C', row), 19.926, 0);
    sol = util_xlsx_num_at(&x, 'D', row);
    assert_true(sol > 0 && sol <= 19.926);
    assert_near(util_xlsx_num_at(&x, 'E', row), 19.926 / sol, 1e-12);
    assert_string_equal(util_xlsx_text_at(&x, 'F', row, buf, sizeof buf),
                        "n/a");
    assert_string_equal(util_xlsx_text_at(&x, 'G', row, buf, sizeof buf),
                        "n/a");
    assert_string_equal(util_xlsx_text_at(&x, 'U', row, buf, sizeof buf),
                        "none");
    assert_near(util_xlsx_num_at(&x, 'H', row), 385, 0);
    assert_near(util_xlsx_num_at(&x, 'I', row),
                util_xlsx_num_at(&x, 'L', row) * 989, 1e-12);
    assert_near(util_xlsx_num_at(&x, 'K', row), 0.3894, 0);
    assert_near(util_xlsx_num_at(&x, 'N', row), 180000, 0);
    assert_string_equal(util_xlsx_text_at(&x, 'P', row, buf, sizeof buf),
                        "\xE2\x9C\x93");
    assert_string_equal(util_xlsx_text_at(&x, 'T', row, buf, sizeof buf),
                        "tests/data/snap/calibration/h800.ini");
    /* the row below: the run's model, GPU, plan and source */
    assert_non_null(strstr(util_xlsx_text_at(&x, 'A', row + 1, buf, sizeof buf),
                           "Plan: gpus=2048 tp=1 pp=16 ep=64 cp=1 zero=1 "
                           "schedule=dualpipe"));
    util_xlsx_free(&x);
}

/* Runs that published no step: Megatron's GPT-3 on 1536 A100 gives
 * 105.75 TFLOP/s, its step "n/a"; its speed-of-light TFLOP/s is its MFU
 * x A100's 312 TFLOP/s BF16 peak, and not below the measured 105.75. */
static void test_xlsx_small_validation_without_step(void **state)
{
    struct util_book *f = *state;
    struct util_xlsx x;
    char buf[64];
    size_t row;
    util_xlsx_read(&x, f->path, VALIDATION);
    row = run_row(&x, "GPT-3 175B, 1536 x A100, PTD-P");
    assert_near(util_xlsx_num_at(&x, 'B', row), 1536, 0);
    assert_string_equal(util_xlsx_text_at(&x, 'C', row, buf, sizeof buf),
                        "n/a");
    assert_string_equal(util_xlsx_text_at(&x, 'E', row, buf, sizeof buf),
                        "n/a");
    assert_near(util_xlsx_num_at(&x, 'H', row), 105.75, 0);
    assert_near(util_xlsx_num_at(&x, 'I', row),
                util_xlsx_num_at(&x, 'L', row) * 312, 1e-12);
    assert_true(util_xlsx_num_at(&x, 'I', row) >= 105.75);
    assert_string_equal(util_xlsx_text_at(&x, 'P', row, buf, sizeof buf),
                        "\xE2\x9C\x93");
    /* Korthikanti's GPT-3 on 64 A100: 13.75 s, MFU 51.4% */
    row = run_row(&x, "GPT-3 175B, 64 x A100, SP + selective recompute");
    assert_near(util_xlsx_num_at(&x, 'C', row), 13.75, 0);
    assert_near(util_xlsx_num_at(&x, 'K', row), 0.514, 0);
    assert_true(util_xlsx_num_at(&x, 'D', row) <= 13.75);
    util_xlsx_free(&x);
}

/* About: the report's facts; 1700000000 s after the epoch is 2023-11-14
 * 22:13:20 UTC; the model file's SHA-256 as sha256sum prints it. */
static void test_xlsx_small_about(void **state)
{
    struct util_book *f = *state;
    struct util_xlsx x;
    char buf[256];
    size_t row;
    util_xlsx_read(&x, f->path, ABOUT);
    assert_string_equal(util_xlsx_text_at(&x, 'A', 1, buf, sizeof buf),
                        "About this workbook");
    row = util_xlsx_find(&x, "A", "Generated at");
    assert_string_equal(util_xlsx_text_at(&x, 'B', row, buf, sizeof buf),
                        "2023-11-14 22:13 UTC");
    assert_string_equal(util_xlsx_text_at(&x, 'B', row - 1, buf, sizeof buf),
                        "roofplan test");
    assert_string_equal(util_xlsx_text_at(&x, 'B', row + 1, buf, sizeof buf),
                        "roofplan report");
    assert_string_equal(util_xlsx_text_at(&x, 'B', row + 2, buf, sizeof buf),
                        "topo");
    row = util_xlsx_find(&x, "A", "model");
    assert_true(row > 0);
    assert_string_equal(util_xlsx_text_at(&x, 'B', row, buf, sizeof buf),
                        MODEL_FILE);
    assert_string_equal(
        util_xlsx_text_at(&x, 'C', row, buf, sizeof buf),
        "d273fdde34a89163e28d835ea6976faf1cd0db9e64185ca7c2eabfc4077df349");
    assert_string_equal(util_xlsx_text_at(&x, 'A', row - 1, buf, sizeof buf),
                        "Input");
    util_xlsx_free(&x);
}

/* Issue 18: a config.json model on the default recipe — About says the
 * recipe it ran with and warns, in the row below, that it is the default
 * one, not the model's own (named in the recipe's words, as its data file
 * names it: the code names no recipe, issue 37). */
static int setup_recipe(void **state)
{
    struct util_book *f = util_book_new("test_xlsx_small", true);
    free(f->s.rep.in.recipe);
    f->s.rep.in.recipe =
        strdup("data/training/default.ini: sequence 4096 tokens");
    f->s.rep.in.recipe_json = true;
    f->s.rep.in.recipe_default = true;
    util_book_write(f, XLSX_BOOK_TABLES, write_small);
    *state = f;
    return 0;
}

static void test_xlsx_small_about_recipe(void **state)
{
    struct util_book *f = *state;
    struct util_xlsx x;
    char buf[400];
    size_t row;
    util_xlsx_read(&x, f->path, ABOUT);
    row = util_xlsx_find(&x, "A", "Training recipe");
    assert_true(row > 0);
    assert_string_equal(util_xlsx_text_at(&x, 'B', row, buf, sizeof buf),
                        "data/training/default.ini: sequence 4096 tokens");
    assert_non_null(
        strstr(util_xlsx_text_at(&x, 'B', row + 1, buf, sizeof buf),
               "Warning: this config.json model runs with the default "
               "training recipe, named above (its sequence length"));
    util_xlsx_free(&x);
}

/* Glossary: a link back to the Summary, the header, 26 terms from the
 * speed of light to the cost. */
static void test_xlsx_small_glossary(void **state)
{
    struct util_book *f = *state;
    struct util_xlsx x;
    char buf[512];
    char *rels;
    util_xlsx_read(&x, f->path, GLOSSARY);
    assert_string_equal(util_xlsx_text_at(&x, 'A', 1, buf, sizeof buf),
                        "Glossary");
    assert_string_equal(util_xlsx_text_at(&x, 'A', 2, buf, sizeof buf),
                        "Back to the Summary");
    assert_non_null(strstr(x.sheet, "location=\"'Summary'!A1\""));
    assert_string_equal(util_xlsx_text_at(&x, 'A', 4, buf, sizeof buf), "Term");
    assert_string_equal(util_xlsx_text_at(&x, 'B', 4, buf, sizeof buf),
                        "Meaning");
    assert_string_equal(util_xlsx_text_at(&x, 'A', 5, buf, sizeof buf),
                        "speed of light (SOL)");
    assert_string_equal(util_xlsx_text_at(&x, 'A', 30, buf, sizeof buf),
                        "GPU-hours, cost");
    assert_string_equal(util_xlsx_text_at(&x, 'A', 31, buf, sizeof buf), "");
    /* an internal link needs no relationship part */
    rels = util_zip_entry(f->path, "xl/worksheets/_rels/sheet4.xml.rels");
    assert_null(rels);
    util_xlsx_free(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_small_rejected_counts),
        cmocka_unit_test(test_xlsx_small_rejected_families),
        cmocka_unit_test(test_xlsx_small_validation_measured_vs_predicted),
        cmocka_unit_test(test_xlsx_small_validation_without_step),
        cmocka_unit_test(test_xlsx_small_about),
        cmocka_unit_test_setup_teardown(test_xlsx_small_about_recipe,
                                        setup_recipe, teardown),
        cmocka_unit_test(test_xlsx_small_glossary),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
