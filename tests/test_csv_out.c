/*
 * test_csv_out: plans.csv (csv_out.c) as RFC 4180 text: a field quoted
 * only when it holds a comma, a quote, CR or LF, with its quotes doubled;
 * a small report's file — the header and one row, CRLF line ends, one
 * field per Plans column — against hand-written text; a file that cannot
 * be written leaves nothing behind; by default the file holds the Plans
 * sheet's rows only, with --top every kept one (issue 18, item 10). The cluster
 * is tests/data/hw-h800.ini (BF16 758 TFLOP/s achievable); the model
 * tests/data/tiny-moe.ini.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "csv_out.h"
#include "plans_table.h"
#include "test_util.h"

#define GIB 1073741824.0

/* csv_out_field's text for s. */
static void field_text(const char *s, char *buf, size_t size)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_true(csv_out_field(f, s));
    assert_int_equal(fclose(f), 0);
    snprintf(buf, size, "%s", text);
    free(text);
}

/* RFC 4180 §2.6-2.7 by hand: plain text as is; a comma, a quote, CR or
 * LF puts the field in quotes and each quote is doubled. */
static void test_csv_out_field_quoting(void **state)
{
    char buf[128];
    (void)state;
    field_text("ZeRO-1+PP+EP", buf, sizeof buf);
    assert_string_equal(buf, "ZeRO-1+PP+EP");
    field_text("", buf, sizeof buf);
    assert_string_equal(buf, "");
    field_text("Step (s)", buf, sizeof buf);
    assert_string_equal(buf, "Step (s)");
    field_text("a,b", buf, sizeof buf);
    assert_string_equal(buf, "\"a,b\"");
    field_text("say \"hi\"", buf, sizeof buf);
    assert_string_equal(buf, "\"say \"\"hi\"\"\"");
    field_text("two\nlines", buf, sizeof buf);
    assert_string_equal(buf, "\"two\nlines\"");
    field_text("cr\r", buf, sizeof buf);
    assert_string_equal(buf, "\"cr\r\"");
    field_text("\"", buf, sizeof buf);
    assert_string_equal(buf, "\"\"\"\"");
}

/* Fields of one CSV line (quotes honoured), up to its CRLF. */
static size_t count_fields(const char *line)
{
    size_t n = 1;
    bool quoted = false;
    for (; *line && !(!quoted && line[0] == '\r' && line[1] == '\n'); line++)
        if (*line == '"')
            quoted = !quoted;
        else if (*line == ',' && !quoted)
            n++;
    return n;
}

/* Reads the whole file at path into a string the caller frees. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *buf = calloc(1, 1 << 16);
    size_t n;
    assert_non_null(f);
    assert_non_null(buf);
    n = fread(buf, 1, (1 << 16) - 1, f);
    assert_true(n > 0 && n < (1 << 16) - 1);
    fclose(f);
    return buf;
}

/*
 * One kept plan of family `ZeRO-1, "odd"` (a name with a comma and
 * quotes): tp 2, pp 2 interleaved (vpp 2), ep 8, ZeRO-1, BF16, selective
 * recompute, micro-batch 2; its work 10 s of BF16 compute alone
 * (10 x 758e12 FLOPs), 60 of the H800's 79.21 GiB. By hand the row
 * begins: rank 1, the family quoted with its quotes doubled, 2, 2, 8,
 * 1, interleaved, bf16, selective, 2, the step 10 (compute alone, no
 * link, bubble or optimizer), no expected step (empty: no calibration),
 * bound compute, comm/compute 0, fits TRUE, headroom 19.21 GiB; and
 * ends with the plan in eval syntax.
 */
static void test_csv_out_write_small_report(void **state)
{
    static const char head[] = "Rank,Family,TP,PP,EP,ZeRO,Schedule,Precision,"
                               "Recompute,Micro-batch (seq),"
                               "\"Step, speed of light (s)\","
                               "Expected step (s),\"Expected low (its "
                               "scenarios' span, never below the speed of "
                               "light) (s)\",Expected high (its slowest "
                               "scenario) (s),Bound,Comm/compute,Fits,"
                               "HBM free (GiB),";
    char dir[] = "/tmp/roofplan-test-csv-XXXXXX", path[128];
    struct model m;
    struct hardware hw;
    struct util_parts *r = calloc(1, sizeof *r);
    struct ranking_row row;
    struct diag d;
    char *text, *row_line, want[1024];
    size_t ncols;
    (void)state;
    assert_non_null(r);
    util_parts_init(r);
    diag_init(&d);
    util_model(&m, "tests/data/tiny-moe.ini", NULL, 0);
    if (hardware_load("tests/data/hw-h800.ini", &hw, NULL, 0, &d))
        fail_msg("%s", d.msg);
    util_plan(&m, &hw,
              "gpus=64 tp=2 pp=2 ep=8 zero=1 schedule=interleaved vpp=2 "
              "precision=bf16 recompute=selective mbs=2 gbs=64",
              &row.plan);
    memset(&row.work, 0, sizeof row.work);
    memset(&row.mem, 0, sizeof row.mem);
    row.work.bf16_flops = 10 * 758e12;
    row.work.model_flops = row.work.bf16_flops;
    row.work.microbatches = 1;
    row.work.tokens = 64 * 4096;
    row.work.gpus = 64;
    row.mem.total = 60 * GIB;
    row.mem.capacity = hw.capacity_bytes;
    row.fits = true;
    row.family = 0;
    row.step = 10;
    /* its times as rank keeps them: 10 x 758e12 BF16 FLOPs at 758
     * TFLOP/s, 10 s */
    cost_times(&row.work, &hw, &m, row.plan.precision, &row.t);
    r->in.m = &m;
    r->in.hw = &hw;
    r->rank.rows = &row;
    r->rank.nrows = 1;
    util_parts_families(r, 1);
    snprintf(r->rank.family[0].name, sizeof r->rank.family[0].name,
             "ZeRO-1, \"odd\"");

    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/plans.csv", dir);
    assert_int_equal(csv_out_write(&r->v, path, CSV_OUT_KEPT, &d), STATUS_OK);
    text = slurp(path);
    plans_table_columns(&ncols);
    assert_int_equal(strncmp(text, head, strlen(head)), 0);
    assert_int_equal(count_fields(text), ncols);
    row_line = strstr(text, "\r\n");
    assert_non_null(row_line);
    assert_non_null(strstr(text, ",Plan (roofplan eval syntax)\r\n1,"));
    row_line += 2;
    assert_int_equal(count_fields(row_line), ncols);
    snprintf(want, sizeof want,
             "1,\"ZeRO-1, \"\"odd\"\"\",2,2,8,1,interleaved,bf16,selective,2,"
             "10,,,,compute,0,TRUE,%.17g,",
             79.21 - 60);
    if (strncmp(row_line, want, strlen(want)) != 0)
        fail_msg("row begins\n%.200s\nexpected\n%s", row_line, want);
    snprintf(want, sizeof want,
             ",gpus=64 tp=2 pp=2 ep=8 cp=1 zero=1 schedule=interleaved vpp=2 "
             "precision=bf16 recompute=selective mbs=2 gbs=64\r\n");
    assert_true(strlen(row_line) > strlen(want));
    assert_string_equal(row_line + strlen(row_line) - strlen(want), want);
    free(text);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0); /* no temporary file left */
    hardware_release(&hw);
    model_release(&m);
    r->rank.rows = NULL; /* the test's own */
    util_parts_free(r);
    free(r);
}

/* Lines of text (CRLF-ended) and the first field of line k (0: the
 * header) into buf. */
static size_t csv_lines(const char *text, size_t k, char *buf, size_t size)
{
    size_t n = 0;
    const char *p = text;
    buf[0] = '\0';
    while (*p) {
        const char *end = strstr(p, "\r\n");
        if (!end)
            break;
        if (n == k)
            snprintf(buf, size, "%.*s", (int)strcspn(p, ","), p);
        n++;
        p = end + 2;
    }
    return n;
}

/*
 * Three kept plans ranked 1..3 of which the Plans sheet shows the first
 * and the third (as when the second is beyond report.plans_sheet and the
 * third is a family's best): by default plans.csv has the header and
 * those two, ranks 1 and 3, as the sheet; with --top (CSV_OUT_KEPT) all
 * three, ranks 1, 2, 3.
 */
static void test_csv_out_write_scope(void **state)
{
    char dir[] = "/tmp/roofplan-test-csv-XXXXXX", path[128], first[32];
    struct model m;
    struct hardware hw;
    struct util_parts *r = calloc(1, sizeof *r);
    struct ranking_row rows[3];
    size_t sheet[2] = {0, 2}, i;
    struct diag d;
    char *text;
    (void)state;
    assert_non_null(r);
    util_parts_init(r);
    diag_init(&d);
    util_model(&m, "tests/data/tiny-moe.ini", NULL, 0);
    if (hardware_load("tests/data/hw-h800.ini", &hw, NULL, 0, &d))
        fail_msg("%s", d.msg);
    memset(rows, 0, sizeof rows);
    for (i = 0; i < 3; i++) {
        util_plan(&m, &hw, "gpus=64 tp=2 pp=1 ep=8 zero=1 mbs=1 gbs=64",
                  &rows[i].plan);
        rows[i].work.bf16_flops = (double)(i + 1) * 758e12;
        rows[i].work.model_flops = rows[i].work.bf16_flops;
        rows[i].work.microbatches = 1;
        rows[i].work.tokens = 64 * 4096;
        rows[i].work.gpus = 64;
        rows[i].mem.total = 60 * GIB;
        rows[i].mem.capacity = hw.capacity_bytes;
        rows[i].fits = true;
        rows[i].step = (double)(i + 1);
        cost_times(&rows[i].work, &hw, &m, rows[i].plan.precision, &rows[i].t);
    }
    r->in.m = &m;
    r->in.hw = &hw;
    r->rank.rows = rows;
    r->rank.nrows = 3;
    r->v.sheet = sheet;
    r->v.nsheet = 2;
    util_parts_families(r, 1);
    snprintf(r->rank.family[0].name, sizeof r->rank.family[0].name,
             "ZeRO-1+TP+EP");
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/plans.csv", dir);

    assert_int_equal(csv_out_write(&r->v, path, CSV_OUT_SHEET, &d), STATUS_OK);
    text = slurp(path);
    assert_int_equal(csv_lines(text, 1, first, sizeof first), 3);
    assert_string_equal(first, "1");
    csv_lines(text, 2, first, sizeof first);
    assert_string_equal(first, "3");
    free(text);

    assert_int_equal(csv_out_write(&r->v, path, CSV_OUT_KEPT, &d), STATUS_OK);
    text = slurp(path);
    assert_int_equal(csv_lines(text, 2, first, sizeof first), 4);
    assert_string_equal(first, "2");
    free(text);

    assert_int_equal(unlink(path), 0);
    assert_int_equal(rmdir(dir), 0);
    hardware_release(&hw);
    model_release(&m);
    r->rank.rows = NULL; /* the test's own */
    r->v.sheet = NULL;
    util_parts_free(r);
    free(r);
}

/* A directory that does not exist: the target's path and the reason,
 * and no file made. */
static void test_csv_out_write_missing_dir(void **state)
{
    struct util_parts *r = calloc(1, sizeof *r);
    struct diag d;
    (void)state;
    assert_non_null(r);
    util_parts_init(r);
    diag_init(&d);
    assert_int_equal(csv_out_write(&r->v, "/nonexistent-roofplan-dir/plans.csv",
                                   CSV_OUT_SHEET, &d),
                     STATUS_IO);
    assert_string_equal(d.msg, "/nonexistent-roofplan-dir/plans.csv: cannot "
                               "write: No such file or directory");
    util_parts_free(r);
    free(r);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_csv_out_field_quoting),
        cmocka_unit_test(test_csv_out_write_small_report),
        cmocka_unit_test(test_csv_out_write_scope),
        cmocka_unit_test(test_csv_out_write_missing_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
