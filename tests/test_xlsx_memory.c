/*
 * test_xlsx_memory: the Memory sheet written alone from a report on the
 * snapshots (tests/data/snap: DeepSeek-V3 on 2048 H800) and read back:
 * each row's parts sum to its total (logits inside the activations, not
 * added again), the other memory, capacity, free memory and fit follow
 * h800.ini's numbers, the rows are the published plan then one per
 * family, and the activation inventory ends with each kind of layer's
 * total.
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
#include "xlsx_memory.h"
#include "test_util.h"

/* The header row of the memory table (1-based) and its first plan row. */
#define HEAD  4
#define FIRST 5

static void write_memory(struct xlsx_book *b)
{
    xlsx_memory_write(b, xlsx_book_sheet(b, XLSX_MEMORY_SHEET), NULL);
}

static int setup(void **state)
{
    struct util_book *f = util_book_new("test_xlsx_memory", false);
    util_book_write(f, XLSX_BOOK_TABLES, write_memory);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    util_book_free(*state);
    return 0;
}

/* The plan rows: the published run (tests/data/snap/validation's
 * DeepSeek-V3 on 2048 H800 is on these inputs), then one per family. */
static size_t plan_rows(const struct util_book *f)
{
    return 1 + f->s.rep.rank.nfamilies;
}

static void test_xlsx_memory_write_header(void **state)
{
    struct util_book *f = *state;
    static const char *const want[] = {"Plan",
                                       "Weights (GiB)",
                                       "Gradients (GiB)",
                                       "Optimizer state (GiB)",
                                       "Activations (GiB)",
                                       "of which logits (GiB)",
                                       "Other (GiB)",
                                       "Total (GiB)",
                                       "Capacity (GiB)",
                                       "A plan may use (GiB)",
                                       "Free (GiB)",
                                       "Fits",
                                       "Heaviest PP rank"};
    char ref[32], buf[64];
    size_t k;
    for (k = 0; k < sizeof want / sizeof want[0]; k++) {
        snprintf(ref, sizeof ref, "%c%d", (char)('A' + k), HEAD);
        assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                            want[k]);
    }
    snprintf(ref, sizeof ref, "A%d", FIRST);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "Published: DeepSeek-V3 pre-training, 2048 x H800 "
                        "(ZeRO-1+PP+EP)");
}

/* Total = weights + gradients + optimizer + activations + other (B..E,
 * G); the logits (F) are part of the activations, so a row with logits
 * shows a total short of the sum of every column. */
static void test_xlsx_memory_write_parts_sum_to_total(void **state)
{
    struct util_book *f = *state;
    size_t row, with_logits = 0;
    char ref[32], fm[128], want[128];
    for (row = FIRST; row < FIRST + plan_rows(f); row++) {
        double parts = util_xlsx_num_at(&f->x, 'B', row) +
                       util_xlsx_num_at(&f->x, 'C', row) +
                       util_xlsx_num_at(&f->x, 'D', row) +
                       util_xlsx_num_at(&f->x, 'E', row) +
                       util_xlsx_num_at(&f->x, 'G', row);
        assert_true(parts > 0);
        assert_near(util_xlsx_num_at(&f->x, 'H', row), parts, 1e-12);
        snprintf(ref, sizeof ref, "H%zu", row);
        snprintf(want, sizeof want, "B%zu+C%zu+D%zu+E%zu+G%zu", row, row, row,
                 row, row);
        assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm), want);
        if (util_xlsx_num_at(&f->x, 'F', row) > 0) {
            with_logits++;
            assert_true(util_xlsx_num_at(&f->x, 'E', row) >=
                        util_xlsx_num_at(&f->x, 'F', row));
        }
    }
    assert_true(with_logits > 0); /* the pp=1 families hold the head */
    /* nothing after the last family */
    assert_true(isnan(util_xlsx_num_at(&f->x, 'H', FIRST + plan_rows(f))));
}

/* Other = CUDA context 0.3 + NCCL buffers 2.0 + fragmentation 5% of the
 * tensors (h800.ini); capacity 79.21 GiB, of which 90% usable (the
 * default headroom_pct 10); free = capacity - total; fits = total at
 * most the usable 71.289 GiB. */
static void test_xlsx_memory_write_other_and_fit(void **state)
{
    struct util_book *f = *state;
    size_t row, fit = 0, unfit = 0;
    char ref[32], fm[200], want[200];
    for (row = FIRST; row < FIRST + plan_rows(f); row++) {
        double tensors = util_xlsx_num_at(&f->x, 'B', row) +
                         util_xlsx_num_at(&f->x, 'C', row) +
                         util_xlsx_num_at(&f->x, 'D', row) +
                         util_xlsx_num_at(&f->x, 'E', row);
        double total = util_xlsx_num_at(&f->x, 'H', row);
        assert_near(util_xlsx_num_at(&f->x, 'G', row),
                    0.3 + 2.0 + 0.05 * tensors, 1e-12);
        assert_near(util_xlsx_num_at(&f->x, 'I', row), 79.21, 1e-12);
        assert_near(util_xlsx_num_at(&f->x, 'J', row), 79.21 * 0.9, 1e-12);
        assert_near(util_xlsx_num_at(&f->x, 'K', row), 79.21 - total, 1e-9);
        assert_near(util_xlsx_num_at(&f->x, 'L', row),
                    total <= 79.21 * 0.9 ? 1 : 0, 0);
        if (total <= 79.21 * 0.9)
            fit++;
        else
            unfit++;
    }
    assert_true(fit > 0 && unfit > 0);
    /* the published plan (PP 16, EP 64, ZeRO-1) fits */
    assert_near(util_xlsx_num_at(&f->x, 'L', FIRST), 1, 0);
    snprintf(ref, sizeof ref, "G%d", FIRST);
    snprintf(want, sizeof want,
             "CUDA_CONTEXT_GIB+NCCL_BUFFERS_GIB+FRAGMENTATION_PCT/100*(B%d+"
             "C%d+D%d+E%d)",
             FIRST, FIRST, FIRST, FIRST);
    assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm), want);
    snprintf(ref, sizeof ref, "J%d", FIRST);
    assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm),
                        "HBM_GIB*(1-HEADROOM_PCT/100)");
    snprintf(ref, sizeof ref, "L%d", FIRST);
    snprintf(want, sizeof want, "IF(H%d<=HBM_GIB*(1-HEADROOM_PCT/100),1,0)",
             FIRST);
    assert_string_equal(util_xlsx_formula(&f->x, ref, fm, sizeof fm), want);
}

/* The family rows name each family of the report once. */
static void test_xlsx_memory_write_family_rows(void **state)
{
    struct util_book *f = *state;
    const struct util_parts *r = &f->s.rep;
    size_t i;
    for (i = 0; i < r->rank.nfamilies; i++) {
        size_t row = util_xlsx_find(&f->x, "A", r->rank.family[i].name);
        assert_true(row > FIRST && row < FIRST + plan_rows(f));
    }
}

/* The inventory: its header, then a row per tensor, then the totals of
 * the dense, MoE and MTP layers (DeepSeek-V3 has all three); a dense
 * layer's selective BF16 total is at most its total with nothing
 * recomputed. */
static void test_xlsx_memory_write_inventory(void **state)
{
    struct util_book *f = *state;
    size_t head = util_xlsx_find(&f->x, "A", "Tensor");
    size_t dense = util_xlsx_find(&f->x, "A", "Saved bytes/token, dense layer");
    size_t moe = util_xlsx_find(&f->x, "A", "Saved bytes/token, MoE layer");
    size_t mtp = util_xlsx_find(&f->x, "A", "Saved bytes/token, MTP module");
    char ref[32], buf[64];
    assert_true(head > FIRST + plan_rows(f));
    assert_true(dense > head + 1);
    assert_int_equal(moe, dense + 1);
    assert_int_equal(mtp, dense + 2);
    snprintf(ref, sizeof ref, "J%zu", head);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "BF16 none");
    /* J: BF16 none, K: BF16 selective, L: BF16 full */
    assert_true(util_xlsx_num_at(&f->x, 'K', dense) <=
                util_xlsx_num_at(&f->x, 'J', dense));
    assert_true(util_xlsx_num_at(&f->x, 'L', dense) <
                util_xlsx_num_at(&f->x, 'K', dense));
    assert_true(util_xlsx_num_at(&f->x, 'L', dense) > 0);
    /* each tensor is kept or recomputed under each policy */
    snprintf(ref, sizeof ref, "J%zu", head + 1);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf), "kept");
}

/* A model of blocks (the snapshots' DeepSeek-V3) has no stages and no
 * stage rows: the sheet is as before. Given stages (rank_finish_stages
 * fills them for a patterned model; here set by hand on the fastest
 * family), they follow the memory table under their heading, one row per
 * rank: the family, its rank, its total and activations in GiB, its
 * layers as given. */
static void test_xlsx_memory_write_stage_rows(void **state)
{
    struct util_book *f = *state;
    struct ranking *r = &f->s.rep.rank;
    size_t fam = (size_t)r->families_by_step[0], head, row;
    char ref[32], buf[64];
    assert_int_equal(r->nstages, 0);
    assert_int_equal(util_xlsx_find(&f->x, "A",
                                    "Layers of each pipeline rank "
                                    "(model.pattern)"),
                     0);
    r->stages = calloc(2, sizeof *r->stages);
    assert_non_null(r->stages);
    r->stages[0] = (struct ranking_stage){fam, 0, strdup("3(M. .D)"),
                                          2 * 1073741824.0, 1073741824.0};
    r->stages[1] = (struct ranking_stage){fam, 1, strdup("M. N. | .D +MTP"),
                                          3 * 1073741824.0, 0};
    assert_non_null(r->stages[0].layers);
    assert_non_null(r->stages[1].layers);
    r->nstages = 2;
    util_book_write(f, XLSX_BOOK_TABLES, write_memory);
    head = util_xlsx_find(&f->x, "A",
                          "Layers of each pipeline rank (model.pattern)");
    assert_true(head > FIRST + plan_rows(f));
    row = head + 3; /* the note, the header, then the rows */
    snprintf(ref, sizeof ref, "E%zu", head + 2);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "Layers (model.pattern letters; chunks | )");
    snprintf(ref, sizeof ref, "A%zu", row);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        r->family[fam].name);
    assert_near(util_xlsx_num_at(&f->x, 'B', row + 1), 1, 0);
    assert_near(util_xlsx_num_at(&f->x, 'C', row), 2, 1e-12);
    assert_near(util_xlsx_num_at(&f->x, 'D', row), 1, 1e-12);
    snprintf(ref, sizeof ref, "E%zu", row + 1);
    assert_string_equal(util_xlsx_text(&f->x, ref, buf, sizeof buf),
                        "M. N. | .D +MTP");
    /* the inventory follows */
    assert_true(util_xlsx_find(&f->x, "A", "Tensor") > row + 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_xlsx_memory_write_header),
        cmocka_unit_test(test_xlsx_memory_write_parts_sum_to_total),
        cmocka_unit_test(test_xlsx_memory_write_other_and_fit),
        cmocka_unit_test(test_xlsx_memory_write_family_rows),
        cmocka_unit_test(test_xlsx_memory_write_inventory),
        cmocka_unit_test(test_xlsx_memory_write_stage_rows), /* last: it
                                                              * rewrites */
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
