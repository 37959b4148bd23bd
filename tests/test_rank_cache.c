/*
 * test_rank_cache: what a sweep thread keeps from one plan for the next
 * (rank_cache.c, handed to evaluate as a hint) changes no answer.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "rank_cache.h"
#include "test_util.h"

static struct rank_cache kept; /* zeroed, as a sweep thread's */

/* The same numbers, bit for bit: the times, work, memory, ranks and
 * partition of two results of one plan. */
static bool same_result(const struct cost_result *a,
                        const struct cost_result *b)
{
    return memcmp(&a->t, &b->t, sizeof a->t) == 0 &&
           memcmp(&a->work, &b->work, sizeof a->work) == 0 &&
           memcmp(&a->mem, &b->mem, sizeof a->mem) == 0 && a->rank == b->rank &&
           a->balance_precision == b->balance_precision && a->fits == b->fits;
}

/*
 * A rank's memory kept across plans that differ only in gbs is what
 * weighing it again gives, bit for bit, where the micro-batches in
 * flight move (DualPipe's pp + 1 capped by half the micro-batches: 16
 * stages, 8 or 4 micro-batches each way at gbs 2048 or 1024 on 128
 * data-parallel replicas) and where they do not (15360 and 30720), on
 * both of an FP8 plan's partitions (DeepSeek-V3 on 2048 H800s); the
 * hint holds exactly the ranks memory_view weighs alone, and the plan
 * weighed through it is the plan weighed alone.
 */
static void test_rank_cache_batch_keeps_memories(void **state)
{
    static const long gbs[] = {15360, 2048, 1024, 30720, 15360, 1024};
    struct model m;
    struct hardware hw;
    struct cost_ctx ctx;
    struct plan p;
    struct diag d;
    size_t i, s, k, held = 0;
    (void)state;
    diag_init(&d);
    util_model(&m, "tests/data/snap/models/deepseek-v3.ini", NULL, 0);
    if (hardware_load("tests/data/snap/hardware/h800.ini", &hw, NULL, 0, &d))
        fail_msg("%s", d.msg);
    rank_cache_forget(&kept);
    for (i = 0; i < sizeof gbs / sizeof gbs[0]; i++) {
        struct cost_memories with, without;
        struct cost_result a, b;
        struct cost_hint *hint;
        char text[200];
        snprintf(text, sizeof text,
                 "gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe "
                 "precision=fp8 recompute=selective mbs=1 gbs=%ld",
                 gbs[i]);
        util_plan(&m, &hw, text, &p);
        if (i == 0)
            util_ctx(&ctx, &m, &hw, COMM_TOPO, &p);
        hint = rank_cache_hint(&kept, &p);
        assert_int_equal(cost_memory(&ctx, &p, 1e30, hint, &with),
                         cost_memory(&ctx, &p, 1e30, NULL, &without));
        assert_int_equal(with.n, 2);
        assert_memory_equal(with.mem, without.mem, sizeof with.mem);
        for (s = 0; s < 2; s++)
            for (k = 0; k < hint->part[s].held; k++) {
                const struct cost_hint_rank *e = &hint->part[s].rank[k];
                struct memory alone;
                if (!(e->have & COST_HAVE_MEMORY))
                    continue;
                memory_view(&m, &hw, &p, e->view, &alone);
                assert_memory_equal(&e->mem, &alone, sizeof alone);
                held++;
            }
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, hint, &a);
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &b);
        assert_true(same_result(&a, &b));
    }
    assert_true(held > 2 * sizeof gbs / sizeof gbs[0]); /* both partitions */
    cost_ctx_release(&ctx);
    hardware_release(&hw);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_cache_batch_keeps_memories),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
