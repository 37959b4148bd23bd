/*
 * test_xlsx_comm: the Communication sheet written alone from a report on
 * the snapshots (tests/data/snap: DeepSeek-V3 on 2048 H800) and read
 * back: the header, each collective's IB and NVLink times (the link-time
 * template over h800.ini's 50 GB/s and 160 GB/s and its collectives
 * file's Simple ring steps, 3.4 us in a node and 14 us across,
 * tests/data/snap/collectives/nccl.ini: recomputed here from the row's
 * volumes, the share of the link's rate its algorithm and protocol reach
 * and the latency charged to each link, in those steps), each block's
 * subtotal, and the blocks' order: each family under both models,
 * fastest family first, then the published plan.
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
#include "xlsx_comm.h"
#include "test_util.h"

#define HEAD 3 /* the header row (1-based); the collectives follow */

#define SUBTOTAL "Subtotal (links overlap: each link's time is its own)"

static void write_comm(struct xlsx_book *b)
{
    xlsx_comm_write(b, xlsx_book_sheet(b, XLSX_COMM_SHEET));
}

static int setup(void **state)
{
    struct util_book *f = util_book_new("test_xlsx_comm", false);
    util_book_write(f, XLSX_BOOK_TABLES, write_comm);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    util_book_free(*state);
    return 0;
}

/* The link time by hand: GB / (share x GB/s), plus the latency charged
 * to the link, in-node steps of 3.4 us and network steps of 14 us. */
static double
link_s(double gb, double share, double gbps, double steps, double net)
{
    return gb / (share * gbps) + steps * 3.4e-6 + net * 14e-6;
}

static void test_xlsx_comm_write_header(void **state)
{
    struct util_book *f = *state;
    static const char *const want[] = {"Family",
                                       "Comm model",
                                       "Collective",
                                       "Kind",
                                       "Group (GPUs)",
                                       "GPUs per node",
                                       "Nodes",
                                       "Calls per step",
                                       "Volume (GB)",
                                       "IB (GB)",
                                       "NVLink (GB)",
                                       "Algorithm/protocol",
                                       "Share of link rate",
                                       "IB latency, in-node steps",
                                       "IB latency, network steps",
                                       "NVLink latency, in-node steps",
                                       "IB time (s)",
                                       "NVLink time (s)"};
    char buf[64];
    size_t k;
    for (k = 0; k < sizeof want / sizeof want[0]; k++)
        assert_string_equal(
            util_xlsx_text_at(&f->x, (char)('A' + k), HEAD, buf, sizeof buf),
            want[k]);
    assert_non_null(strstr(f->x.sheet, "<autoFilter ref=\"A3:R"));
}

/* Every collective row: Q and R are the link-time templates over the
 * named inputs, cached with the times at h800.ini's rates; a group
 * inside one node sends nothing over IB. Every block ends with a
 * subtotal of its rows (SUBTOTAL(9, ...), which skips other subtotals
 * when filtered). */
static void test_xlsx_comm_write_times_and_subtotals(void **state)
{
    struct util_book *f = *state;
    char buf[160], want[160], ref[32];
    size_t row, first = HEAD + 1, blocks = 0, colls = 0;
    double sum[4] = {0, 0, 0, 0};
    for (row = HEAD + 1; util_xlsx_text_at(&f->x, 'A', row, buf, sizeof buf)[0];
         row++) {
        double share = util_xlsx_num_at(&f->x, 'M', row),
               ib = util_xlsx_num_at(&f->x, 'J', row);
        double nv = util_xlsx_num_at(&f->x, 'K', row);
        if (strcmp(util_xlsx_text_at(&f->x, 'C', row, buf, sizeof buf),
                   SUBTOTAL) == 0) {
            assert_true(row > first); /* no empty block */
            assert_near(ib, sum[0], 1e-12);
            assert_near(nv, sum[1], 1e-12);
            assert_near(util_xlsx_num_at(&f->x, 'Q', row), sum[2], 1e-12);
            assert_near(util_xlsx_num_at(&f->x, 'R', row), sum[3], 1e-12);
            snprintf(ref, sizeof ref, "Q%zu", row);
            snprintf(want, sizeof want, "SUBTOTAL(9,Q%zu:Q%zu)", first,
                     row - 1);
            assert_string_equal(util_xlsx_formula(&f->x, ref, buf, sizeof buf),
                                want);
            memset(sum, 0, sizeof sum);
            first = row + 1;
            blocks++;
            continue;
        }
        colls++;
        assert_near(util_xlsx_num_at(&f->x, 'Q', row),
                    link_s(ib, share, 50, util_xlsx_num_at(&f->x, 'N', row),
                           util_xlsx_num_at(&f->x, 'O', row)),
                    1e-12);
        assert_near(
            util_xlsx_num_at(&f->x, 'R', row),
            link_s(nv, share, 160, util_xlsx_num_at(&f->x, 'P', row), 0),
            1e-12);
        assert_true(share > 0);
        if (util_xlsx_num_at(&f->x, 'G', row) == 1)
            assert_near(ib, 0, 0);
        sum[0] += ib;
        sum[1] += nv;
        sum[2] += util_xlsx_num_at(&f->x, 'Q', row);
        sum[3] += util_xlsx_num_at(&f->x, 'R', row);
        snprintf(ref, sizeof ref, "Q%zu", row);
        snprintf(want, sizeof want,
                 "J%zu/(M%zu*IB_GBPS)+(N%zu*COLL_STEP_US+O%zu*COLL_NET_STEP_US)"
                 "*1E-06",
                 row, row, row, row);
        assert_string_equal(util_xlsx_formula(&f->x, ref, buf, sizeof buf),
                            want);
        snprintf(ref, sizeof ref, "R%zu", row);
        snprintf(want, sizeof want,
                 "K%zu/(M%zu*NVLINK_GBPS)+P%zu*COLL_STEP_US*1E-06", row, row,
                 row);
        assert_string_equal(util_xlsx_formula(&f->x, ref, buf, sizeof buf),
                            want);
    }
    assert_int_equal(first, row); /* the last row is a subtotal */
    assert_true(colls > blocks && blocks >= 2);
}

/* The blocks: the fastest family first under this report's model (topo)
 * then the other (flat), ..., the published plan last. */
static void test_xlsx_comm_write_block_order(void **state)
{
    struct util_book *f = *state;
    const struct util_parts *r = &f->s.rep;
    const char *fastest = r->rank.family[r->rank.families_by_step[0]].name;
    char buf[160];
    size_t row, last = 0, flat = 0;
    assert_string_equal(
        util_xlsx_text_at(&f->x, 'A', HEAD + 1, buf, sizeof buf), fastest);
    assert_string_equal(
        util_xlsx_text_at(&f->x, 'B', HEAD + 1, buf, sizeof buf), "topo");
    for (row = HEAD + 1; util_xlsx_text_at(&f->x, 'A', row, buf, sizeof buf)[0];
         row++) {
        last = row;
        if (!flat && strcmp(util_xlsx_text_at(&f->x, 'B', row, buf, sizeof buf),
                            "flat") == 0)
            flat = row;
    }
    assert_true(flat > HEAD + 1);
    /* the fastest family's flat block follows its topo block */
    assert_string_equal(util_xlsx_text_at(&f->x, 'A', flat, buf, sizeof buf),
                        fastest);
    assert_string_equal(
        util_xlsx_text_at(&f->x, 'C', flat - 1, buf, sizeof buf), SUBTOTAL);
    assert_string_equal(util_xlsx_text_at(&f->x, 'A', last, buf, sizeof buf),
                        "published plan");
    assert_string_equal(util_xlsx_text_at(&f->x, 'B', last, buf, sizeof buf),
                        "flat");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_comm_write_header),
        cmocka_unit_test(test_xlsx_comm_write_times_and_subtotals),
        cmocka_unit_test(test_xlsx_comm_write_block_order),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
