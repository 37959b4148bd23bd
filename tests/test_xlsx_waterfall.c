/*
 * test_xlsx_waterfall: the waterfall table from a hand-made waterfall (a
 * speed of light of 10 s and three effects adding 2, -0.5 and 3.5 s: an
 * expected step of 15 s), written on a sheet of its own and read back:
 * the rows, their seconds summing to expected - speed of light, the
 * shares, the cumulative steps, the note on the published run, the row
 * returned; nothing for a plan without an expected step; the chart's
 * rows.
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

#include "xlsx_waterfall.h"
#include "test_util.h"

/* Effect over A..B, seconds in C, share in D, cumulative over E..F, the
 * note over A..G. */
static const struct xlsx_waterfall_cols cols = {0, 2, 3, 4, 5, 6};

#define FIRST 2 /* the table's first row, 0-based */

struct fixture {
    struct hardware hw; /* no calibration: the note says "(none)" */
    struct util_parts rep;
    char dir[64], path[96];
};

static int setup(void **state)
{
    static struct fixture f;
    static const double add[3] = {2, -0.5, 3.5};
    struct views_waterfall *w = &f.rep.v.waterfall[0];
    size_t k;
    memset(&f, 0, sizeof f);
    util_parts_init(&f.rep);
    f.rep.in.hw = &f.hw;
    w->known = true;
    w->sol = 10;
    w->effects = 3;
    for (k = 0; k < 3; k++) {
        w->add[k] = add[k];
        w->cum[k] = (k ? w->cum[k - 1] : w->sol) + add[k];
        w->share[k] = add[k] / 5;
    }
    w->expected = w->cum[2];
    /* the 15 s by phase on rank 3, the floor's rank too */
    w->rank = w->floor_rank = 3;
    w->phases[COST_WARMUP] = 1;
    w->phases[COST_STEADY] = 10;
    w->phases[COST_COOLDOWN] = 2;
    w->phases[COST_BUBBLE] = 1.5;
    w->phases[COST_OPTIMIZER] = 0.5;
    snprintf(f.dir, sizeof f.dir, "/tmp/test_xlsx_waterfall.XXXXXX");
    if (!mkdtemp(f.dir))
        return -1;
    snprintf(f.path, sizeof f.path, "%s/w.xlsx", f.dir);
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    util_remove_tree(f->dir);
    return 0;
}

/* Writes the table at row FIRST of a new sheet; *next: the row it
 * returned; then reads the sheet into x. */
static void write_table(struct fixture *f, size_t *next, struct util_xlsx *x)
{
    struct xlsx_book b;
    struct lxw_worksheet *ws;
    struct diag d;
    diag_init(&d);
    assert_int_equal(
        xlsx_book_open(&b, &f->rep.v, f->path, XLSX_BOOK_TABLES, &d),
        STATUS_OK);
    ws = xlsx_book_sheet(&b, "Summary");
    *next = xlsx_waterfall_table(&b, ws, FIRST, &cols);
    xlsx_book_str(&b, ws, 0, 0, "top", NULL); /* the sheet is never empty */
    if (xlsx_book_close(&b, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    util_xlsx_read(x, f->path, 1);
}

/* 1-based rows: 3 the heading, 4 the header, 5 the speed of light, 6-8
 * the effects, 9 the gap, 10 the expected step, 11 the phases' header,
 * 12-16 the phases, 17 the note; the next block starts after a blank
 * row (0-based 18). */
static void test_xlsx_waterfall_table_rows(void **state)
{
    struct fixture *f = *state;
    static const char *const label[] = {
        "Speed of light (the floor)", "+ GEMM efficiency by shape",
        "+ attention kernels",        "+ elementwise and memory",
        "Gap: all effects",           "Expected step"};
    struct util_xlsx x;
    char buf[2048];
    size_t next, k;
    double sum = 0;
    write_table(f, &next, &x);
    assert_int_equal(next, 18);
    assert_non_null(strstr(util_xlsx_text_at(&x, 'A', 3, buf, sizeof buf),
                           "From the speed of light to the expected step"));
    assert_string_equal(util_xlsx_text_at(&x, 'A', 4, buf, sizeof buf),
                        "Effect");
    assert_string_equal(util_xlsx_text_at(&x, 'C', 4, buf, sizeof buf),
                        "Seconds");
    assert_string_equal(util_xlsx_text_at(&x, 'D', 4, buf, sizeof buf),
                        "Share of the gap");
    assert_string_equal(util_xlsx_text_at(&x, 'E', 4, buf, sizeof buf),
                        "Cumulative step (s)");
    for (k = 0; k < 6; k++)
        assert_string_equal(util_xlsx_text_at(&x, 'A', 5 + k, buf, sizeof buf),
                            label[k]);
    /* the effects' seconds add up to expected - speed of light = 5 s,
     * the gap row says so, and the expected step is 15 s */
    for (k = 6; k <= 8; k++)
        sum += util_xlsx_num_at(&x, 'C', k);
    assert_near(sum, 5, 1e-15);
    assert_near(util_xlsx_num_at(&x, 'C', 9), 5, 1e-15);
    assert_near(util_xlsx_num_at(&x, 'C', 5), 10, 0);
    assert_near(util_xlsx_num_at(&x, 'C', 10), 15, 0);
    /* shares of the 5 s gap: 40%, -10%, 70%, the gap 100% */
    assert_near(util_xlsx_num_at(&x, 'D', 6), 0.4, 1e-15);
    assert_near(util_xlsx_num_at(&x, 'D', 7), -0.1, 1e-15);
    assert_near(util_xlsx_num_at(&x, 'D', 8), 0.7, 1e-15);
    assert_near(util_xlsx_num_at(&x, 'D', 9), 1, 0);
    assert_true(
        isnan(util_xlsx_num_at(&x, 'D', 5))); /* no share for the totals */
    /* cumulative: 10, 12, 11.5, 15; none for the gap */
    assert_near(util_xlsx_num_at(&x, 'E', 5), 10, 0);
    assert_near(util_xlsx_num_at(&x, 'E', 6), 12, 0);
    assert_near(util_xlsx_num_at(&x, 'E', 7), 11.5, 0);
    assert_near(util_xlsx_num_at(&x, 'E', 8), 15, 0);
    assert_true(isnan(util_xlsx_num_at(&x, 'E', 9)));
    assert_near(util_xlsx_num_at(&x, 'E', 10), 15, 0);
    /* merged cells: the label over A:B, the cumulative over E:F */
    assert_non_null(strstr(x.sheet, "<mergeCell ref=\"A6:B6\"/>"));
    assert_non_null(strstr(x.sheet, "<mergeCell ref=\"E6:F6\"/>"));
    /* the phases of the 15 s: 1 + 10 + 2 + 1.5 + 0.5, shares of 15 s,
     * cumulative to the expected step */
    assert_string_equal(util_xlsx_text_at(&x, 'A', 11, buf, sizeof buf),
                        "Phases of the expected step, pipeline rank 3");
    assert_string_equal(util_xlsx_text_at(&x, 'A', 12, buf, sizeof buf),
                        "Warm-up (forwards before the first backward)");
    assert_near(util_xlsx_num_at(&x, 'C', 13), 10, 0);
    assert_near(util_xlsx_num_at(&x, 'D', 13), 10.0 / 15, 1e-15);
    assert_near(util_xlsx_num_at(&x, 'E', 16), 15, 1e-15);
    assert_non_null(strstr(x.sheet, "<mergeCell ref=\"A17:G17\"/>"));
    assert_non_null(strstr(util_xlsx_text_at(&x, 'A', 17, buf, sizeof buf),
                           "Measured rates from the calibration (none)"));
    util_xlsx_free(&x);
}

/* The published run on these inputs: expected 19 s against a measured
 * 20 s is 19 / 20 - 1 = -5%. */
static void test_xlsx_waterfall_table_published_note(void **state)
{
    struct fixture *f = *state;
    struct views_waterfall *p = &f->rep.v.waterfall[1];
    struct util_xlsx x;
    char buf[2048];
    size_t next;
    p->known = true;
    p->expected = 19;
    p->measured = 20;
    snprintf(p->name, sizeof p->name, "DeepSeek-V3 pre-training");
    write_table(f, &next, &x);
    assert_non_null(strstr(util_xlsx_text_at(&x, 'A', 17, buf, sizeof buf),
                           " The published run on these inputs (DeepSeek-V3 "
                           "pre-training): expected 19.00 s, measured 20.00 s "
                           "(-5%; see Validation)."));
    util_xlsx_free(&x);
    memset(p, 0, sizeof *p);
}

/* Without an expected step nothing is written and the row is returned
 * as it was. */
static void test_xlsx_waterfall_table_unknown(void **state)
{
    struct fixture *f = *state;
    struct util_xlsx x;
    char buf[64];
    size_t next;
    f->rep.v.waterfall[0].known = false;
    write_table(f, &next, &x);
    f->rep.v.waterfall[0].known = true;
    assert_int_equal(next, FIRST);
    assert_string_equal(util_xlsx_text_at(&x, 'A', 3, buf, sizeof buf), "");
    assert_string_equal(util_xlsx_text_at(&x, 'A', 1, buf, sizeof buf), "top");
    util_xlsx_free(&x);
}

/* The smallest PNG: one white pixel (8-bit greyscale). */
static const unsigned char png1x1[] = {
    0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D,
    0x49, 0x48, 0x44, 0x52, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01,
    0x08, 0x00, 0x00, 0x00, 0x00, 0x3A, 0x7E, 0x9B, 0x55, 0x00, 0x00, 0x00,
    0x0A, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0xF8, 0x0F, 0x00, 0x01,
    0x01, 0x01, 0x00, 0x1B, 0xB6, 0xEE, 0x56, 0x00, 0x00, 0x00, 0x00, 0x49,
    0x45, 0x4E, 0x44, 0xAE, 0x42, 0x60, 0x82};

/* The chart: a heading row, then 900 px x 0.8 = 720 px of 20 px rows
 * (36) and one more; nothing without a PNG. */
static void test_xlsx_waterfall_chart_rows(void **state)
{
    struct fixture *f = *state;
    struct xlsx_book b;
    struct lxw_worksheet *ws;
    struct diag d;
    char png[128];
    char *drawing;
    diag_init(&d);
    snprintf(png, sizeof png, "%s/waterfall.png", f->dir);
    {
        FILE *fp = fopen(png, "wb");
        assert_non_null(fp);
        assert_int_equal(fwrite(png1x1, 1, sizeof png1x1, fp), sizeof png1x1);
        assert_int_equal(fclose(fp), 0);
    }
    assert_int_equal(
        xlsx_book_open(&b, &f->rep.v, f->path, XLSX_BOOK_TABLES, &d),
        STATUS_OK);
    ws = xlsx_book_sheet(&b, "Summary");
    assert_int_equal(xlsx_waterfall_chart(&b, ws, 7, 1, NULL, 0.8), 7);
    assert_int_equal(xlsx_waterfall_chart(&b, ws, 7, 1, png, 0.8),
                     7 + 1 + 36 + 1);
    assert_int_equal(xlsx_book_close(&b, &d), STATUS_OK);
    drawing = util_zip_entry(f->path, "xl/drawings/drawing1.xml");
    assert_non_null(drawing);
    /* anchored at 0-based row 8 (below the heading), column 1 */
    assert_non_null(strstr(drawing, "<xdr:col>1</xdr:col>"));
    assert_non_null(strstr(drawing, "<xdr:row>8</xdr:row>"));
    free(drawing);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_waterfall_table_rows),
        cmocka_unit_test(test_xlsx_waterfall_table_published_note),
        cmocka_unit_test(test_xlsx_waterfall_table_unknown),
        cmocka_unit_test(test_xlsx_waterfall_chart_rows),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
