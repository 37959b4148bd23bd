/*
 * test_rank_spill: the ranking rule (rank_before) by hand, the spill
 * files of every valid plan and the cursor that reads them back for
 * plans.csv (rank_spill.c). Two spill files, as two sweep threads would
 * leave them, are merged by enumeration index after the kept rows; a
 * spilled plan that is among the kept ones is not listed twice. Plans
 * differ only in their step and fit, so the order follows from
 * rank_before's rule (fitting first, then the faster step).
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

#include "rank.h"
#include "test_util.h"

/* A row of family key `key` with this step and fit. */
static struct ranking_row row_of(int key, double step_s, bool fits)
{
    struct ranking_row row;
    memset(&row, 0, sizeof row);
    row.plan.gpus = 8;
    row.plan.tp = row.plan.pp = row.plan.ep = row.plan.dp = 1;
    row.step = step_s;
    row.fits = fits;
    row.family = key;
    return row;
}

/* The number of entries in dir besides . and .. */
static size_t entries(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0;
    assert_non_null(d);
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/*
 * Kept: one fitting plan of 1.0 s. Spilled by enumeration index: 0 (file
 * A, fits, 2.0 s), 1 (file B, fits, 3.0 s), 2 (file B, does not fit,
 * 0.1 s), 3 (file A, fits, 0.5 s: ranks before the last kept plan, so it
 * is one of the kept ones and is skipped). Expected: the kept plan with
 * rank 1, then indexes 0, 1, 2 with rank 0, families mapped from their
 * keys (5 -> 0, 9 -> 1).
 */
static void test_rank_cursor_merges_spill_files(void **state)
{
    char dir[] = "/tmp/roofplan-test-rank-XXXXXX";
    struct ranking r;
    struct ranking_row kept = row_of(0, 1.0, true), rows[4], got;
    struct ranking_cursor c;
    FILE *spill[2] = {NULL, NULL};
    struct diag d;
    size_t rank, i;
    const double want_step[] = {1.0, 2.0, 3.0, 0.1};
    const int want_family[] = {0, 0, 1, 1};
    (void)state;
    diag_init(&d);
    assert_non_null(mkdtemp(dir));
    assert_int_equal(rank_spill_open(dir, &spill[0], &d), STATUS_OK);
    assert_int_equal(rank_spill_open(dir, &spill[1], &d), STATUS_OK);
    assert_int_equal(entries(dir), 0); /* unlinked at creation */
    rows[0] = row_of(5, 2.0, true);
    rows[1] = row_of(9, 3.0, true);
    rows[2] = row_of(9, 0.1, false);
    rows[3] = row_of(5, 0.5, true);
    assert_true(rank_spill_write(spill[0], &rows[0], 0));
    assert_true(rank_spill_write(spill[1], &rows[1], 1));
    assert_true(rank_spill_write(spill[1], &rows[2], 2));
    assert_true(rank_spill_write(spill[0], &rows[3], 3));

    memset(&r, 0, sizeof r);
    r.rows = &kept;
    r.nrows = 1;
    r.spill = spill;
    r.nspill = 2;
    r.family_of_key[5] = 0;
    r.family_of_key[9] = 1;
    ranking_cursor_init(&c, &r);
    for (i = 0; i < 4; i++) {
        assert_true(ranking_cursor_next(&c, &got, &rank));
        assert_near(got.step, want_step[i], 1e-15);
        assert_int_equal(got.family, want_family[i]);
        assert_int_equal(rank, i == 0 ? 1 : 0);
    }
    assert_false(ranking_cursor_next(&c, &got, &rank));
    assert_false(c.failed);
    ranking_cursor_release(&c);
    fclose(spill[0]);
    fclose(spill[1]);
    assert_int_equal(rmdir(dir), 0);
}

/* A spill directory that does not exist: the path and the system's
 * reason. */
static void test_rank_spill_open_missing_dir(void **state)
{
    struct diag d;
    FILE *f = NULL;
    (void)state;
    diag_init(&d);
    assert_int_equal(rank_spill_open("/nonexistent-roofplan-dir", &f, &d),
                     STATUS_IO);
    assert_null(f);
    assert_string_equal(d.msg, "/nonexistent-roofplan-dir: cannot write: No "
                               "such file or directory");
}

/* A plan with every dimension 1 on 64 GPUs, batch 64. */
static struct plan plan_of(void)
{
    struct plan p;
    memset(&p, 0, sizeof p);
    p.gpus = 64;
    p.tp = p.pp = p.cp = p.ep = p.vpp = p.mbs = p.dp = 1;
    p.gbs = 64;
    return p;
}

/*
 * The rule by hand: a plan that fits ranks before one that does not,
 * however much faster that one is (10 s fitting before 1 s not); between
 * two that fit alike, the faster first; on equal steps, the dimensions
 * in enumeration order (gpus, tp, pp, cp, ep, zero, schedule, vpp,
 * precision, recompute, mbs, gbs), smaller first, the first that
 * differs deciding: tp 2 pp 4 before tp 4 pp 1; 64 GPUs at tp 8 before
 * 128 at tp 1; equal but mbs 1 < 2. A plan never ranks before itself.
 */
static void test_rank_before_by_hand(void **state)
{
    struct plan p = plan_of(), q = plan_of();
    (void)state;
    assert_true(rank_before(true, 10, &p, false, 1, &q));
    assert_false(rank_before(false, 1, &q, true, 10, &p));
    assert_true(rank_before(true, 1, &p, true, 2, &q));
    assert_false(rank_before(true, 2, &p, true, 1, &q));
    assert_true(rank_before(false, 1, &p, false, 2, &q));
    p.tp = 2;
    p.pp = 4;
    q.tp = 4;
    q.pp = 1;
    assert_true(rank_before(true, 5, &p, true, 5, &q));
    assert_false(rank_before(true, 5, &q, true, 5, &p));
    p = plan_of();
    q = plan_of();
    p.tp = 8;
    q.gpus = 128;
    assert_true(rank_before(true, 5, &p, true, 5, &q));
    assert_false(rank_before(true, 5, &q, true, 5, &p));
    p = plan_of();
    q = plan_of();
    q.mbs = 2;
    assert_true(rank_before(true, 5, &p, true, 5, &q));
    p.zero = 1; /* zero decides before mbs */
    assert_false(rank_before(true, 5, &p, true, 5, &q));
    q = p;
    assert_false(rank_before(true, 5, &p, true, 5, &q));
    assert_false(rank_before(true, 5, &q, true, 5, &p));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_before_by_hand),
        cmocka_unit_test(test_rank_cursor_merges_spill_files),
        cmocka_unit_test(test_rank_spill_open_missing_dir),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
