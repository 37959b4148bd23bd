/*
 * test_scale: several cluster sizes side by side (see scale.h), worked by
 * hand on three sizes whose figures are set here: the efficiency against
 * the smallest size, the first size under the threshold, the answers to
 * a deadline and a budget at both ends of the range, and the words.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "scale.h"
#include "test_util.h"

/* A fitting size: gpus, tokens/s per GPU, wall-clock days (expected and
 * at the range's high end) and cost (expected and high). */
static struct scale_size
size(long gpus, double tps, double days, double hi, double usd, double usd_hi)
{
    struct scale_size z;
    memset(&z, 0, sizeof z);
    z.gpus = gpus;
    z.any = z.fits = z.expected = true;
    snprintf(z.plan, sizeof z.plan, "plan %ld", gpus);
    z.tokens_per_s_per_gpu = tps;
    z.f.wall_days = days;
    z.f.range = true;
    z.f.wall_hi = z.wall_hi = hi;
    z.f.wall_cost = usd;
    z.f.wall_cost_hi = z.cost_hi = usd_hi;
    return z;
}

/* Given out of order: 4096 GPUs at 3,000 tokens/s per GPU, 1024 at 4,000
 * and 2048 at 3,600. Sorted: 1024, 2048, 4096. Efficiency against 1024:
 * 3,600 / 4,000 = 0.9, 3,000 / 4,000 = 0.75, so at 0.8 the first under is
 * 4096 (index 2). */
static void fill(struct scale *s, double days, double budget)
{
    struct scale_size z[3];
    z[0] = size(4096, 3000, 20, 30, 12e6, 18e6);
    z[1] = size(1024, 4000, 60, 90, 9e6, 13.5e6);
    z[2] = size(2048, 3600, 33, 50, 10e6, 15e6);
    assert_true(scale_of(z, 3, 0.8, days, budget, s));
}

static void test_scale_of_efficiency_by_hand(void **state)
{
    struct scale s;
    (void)state;
    fill(&s, 0, 0);
    assert_int_equal(s.n, 3);
    assert_int_equal(s.size[0].gpus, 1024);
    assert_int_equal(s.size[1].gpus, 2048);
    assert_int_equal(s.size[2].gpus, 4096);
    assert_near(s.size[0].efficiency, 1.0, 1e-12);
    assert_near(s.size[1].efficiency, 0.9, 1e-12);
    assert_near(s.size[2].efficiency, 0.75, 1e-12);
    assert_int_equal(s.below, 2);
    assert_int_equal(s.pick[SCALE_HIGH], -1); /* nothing asked */
    scale_free(&s);
}

/* Within 40 days: at the high end 1024 takes 90, 2048 50, 4096 30: the
 * smallest is 4096; as expected 60, 33, 20: 2048. */
static void test_scale_deadline_both_ends(void **state)
{
    struct scale s;
    char buf[1024];
    (void)state;
    fill(&s, 40, 0);
    assert_int_equal(s.pick[SCALE_HIGH], 2);
    assert_int_equal(s.pick[SCALE_EXPECTED], 1);
    assert_int_equal(scale_main(&s, 1024), 2);
    scale_answer(&s, buf, sizeof buf);
    assert_string_equal(
        buf, "Within 40 days (wall-clock days with failures): 4096 GPUs "
             "(plan 4096), 30 days, $18.0M at the range's high end; 2048 "
             "GPUs (plan 2048), 33 days, $10.0M as expected.");
    /* the card's few words: the same sizes and days, no plans or costs */
    scale_answer_brief(&s, buf, sizeof buf);
    assert_string_equal(buf, "Within 40 days: 4096 GPUs at the range's high "
                             "end (30 days), 2048 as expected (33 days).");
    scale_free(&s);
}

/* Within 40 days and $14M: at the high end 4096 meets the days but costs
 * $18M: none; as expected 2048 ($10M). With $11M alone: the fastest
 * within it, as expected 2048 (33 days; 4096 costs $12M), at the high end
 * none ($13.5M is the least). */
static void test_scale_budget(void **state)
{
    struct scale s;
    char buf[1024];
    (void)state;
    fill(&s, 40, 14e6);
    assert_int_equal(s.pick[SCALE_HIGH], -1);
    assert_int_equal(s.pick[SCALE_EXPECTED], 1);
    scale_free(&s);
    fill(&s, 0, 11e6);
    assert_int_equal(s.pick[SCALE_HIGH], -1);
    assert_int_equal(s.pick[SCALE_EXPECTED], 1);
    scale_answer(&s, buf, sizeof buf);
    assert_string_equal(
        buf, "Fastest within $11.0M (wall-clock days with failures): no "
             "listed size at the range's high end (the fastest, 4096 GPUs, "
             "takes 30 days, $18.0M); 2048 GPUs (plan 2048), 33 days, $10.0M "
             "as expected.");
    scale_answer_brief(&s, buf, sizeof buf);
    assert_string_equal(buf, "Fastest within $11.0M: no listed size at the "
                             "range's high end, 2048 GPUs as expected (33 "
                             "days).");
    scale_free(&s);
}

/* Within 10 days none does: the message names the fastest; the report
 * then details the preferred size where it is listed. */
static void test_scale_none_meets(void **state)
{
    struct scale s;
    char buf[1024];
    (void)state;
    fill(&s, 10, 0);
    assert_int_equal(s.pick[SCALE_HIGH], -1);
    assert_int_equal(s.pick[SCALE_EXPECTED], -1);
    assert_int_equal(scale_main(&s, 2048), 1);
    assert_int_equal(scale_main(&s, 999), 0);
    scale_answer(&s, buf, sizeof buf);
    assert_string_equal(
        buf, "Within 10 days (wall-clock days with failures): no listed size "
             "at the range's high end (the fastest, 4096 GPUs, takes 30 "
             "days, $18.0M); no listed size as expected (the fastest, 4096 "
             "GPUs, takes 20 days, $12.0M).");
    scale_free(&s);
}

static void test_scale_line(void **state)
{
    struct scale s;
    char buf[512];
    (void)state;
    fill(&s, 0, 0);
    scale_line(&s, buf, sizeof buf);
    assert_string_equal(buf, "1024 GPUs: 60 days, $9.0M; 2048: 33 days, "
                             "$10.0M; 4096: 20 days, $12.0M");
    scale_free(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scale_of_efficiency_by_hand),
        cmocka_unit_test(test_scale_deadline_both_ends),
        cmocka_unit_test(test_scale_budget),
        cmocka_unit_test(test_scale_none_meets),
        cmocka_unit_test(test_scale_line),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
