/*
 * test_model_partition: pipeline chunks — every unit once and in order,
 * balanced by cost, DualPipe's pairs least (checked against brute force),
 * and the chunk sums. The model is DeepSeek-V3's snapshot
 * (tests/data/snap/): 61 layers (3 dense, 58 MoE) and one MTP module.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "model.h"
#include "test_util.h"

#define SNAP "tests/data/snap/"

/* Stages cover every unit once, in order, embedding first, head last:
 * 61 layers and the MTP module (62 units). */
static void test_model_partition_covers_layers(void **state)
{
    struct model m;
    struct model_partition p;
    struct diag d;
    long k, next = 0, total = 0;
    (void)state;
    diag_init(&d);
    util_model(&m, SNAP "models/deepseek-v3.ini", NULL, 0);
    assert_int_equal(model_partition(&m, 16, 1, 1, MODEL_BALANCE_CHUNK, &p, &d),
                     STATUS_OK);
    for (k = 0; k < p.chunks; k++) {
        assert_int_equal(p.chunk[k].first, next);
        assert_true(p.chunk[k].count >= 1);
        next += p.chunk[k].count;
        total += p.chunk[k].moe_layers;
    }
    assert_int_equal(next, 62);
    /* 58 MoE layers (61, the first 3 dense) and the MTP module's block */
    assert_int_equal(total, 59);
    assert_int_equal(p.chunk[15].mtp_units, 1);
    assert_true(p.chunk[0].has_embedding);
    assert_true(p.chunk[15].has_head);
    model_partition_release(&p);
    /* 63 chunks for 62 units cannot be made */
    assert_int_equal(model_partition(&m, 63, 1, 1, MODEL_BALANCE_CHUNK, &p, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg,
                        "cannot split 62 layers into 63 pipeline chunks");
    model_release(&m);
}

/* Balanced by FLOPs: 61 near-equal layers, the MTP module (a layer and
 * the head again, ~2.5 layers) and the head (~1.4 layers) over 16 stages,
 * ~4.1 layer-equivalents each: the largest holds 4 layers. */
/*
 * Issue 17 item 2: the split a framework makes by layer counts. DeepSeek-V3
 * (61 layers, then 1 MTP module) on 16 stages with Megatron-LM's
 * --decoder-first-pipeline-num-layers 1 and --decoder-last-...-layers 4:
 * 1 layer and the embedding first, (61 - 1 - 4)/14 = 4 layers on each
 * middle stage, 4 layers, the MTP module and the head last (Megatron
 * Core's MTP docs: MTP on the last stage by default). Llama 3 405B's 126
 * layers on 16 stages with a layer fewer on the first and last (arXiv
 * 2407.21783 §3.3.2): 7, 14 x 8, 7. Megatron refuses uneven middles.
 */
static void test_model_partition_split_counts(void **state)
{
    struct model m;
    struct model_partition p;
    struct diag d;
    long k;
    (void)state;
    diag_init(&d);
    util_model(&m, SNAP "models/deepseek-v3.ini", NULL, 0);
    assert_int_equal(model_partition_split(&m, 16, 1, 4, &p, &d), STATUS_OK);
    assert_int_equal(p.chunks, 16);
    assert_int_equal(p.chunk[0].count, 1);
    assert_true(p.chunk[0].has_embedding);
    assert_false(p.chunk[0].has_head);
    for (k = 1; k < 15; k++) {
        assert_int_equal(p.chunk[k].first, 1 + 4 * (k - 1));
        assert_int_equal(p.chunk[k].count, 4);
        assert_int_equal(p.chunk[k].mtp_units, 0);
    }
    assert_int_equal(p.chunk[15].first, 57);
    assert_int_equal(p.chunk[15].count, 5); /* 4 layers and the MTP module */
    assert_int_equal(p.chunk[15].mtp_units, 1);
    assert_true(p.chunk[15].has_head);
    model_partition_release(&p);
    /* 52 layers over 14 stages: refused */
    assert_int_equal(model_partition_split(&m, 16, 5, 4, &p, &d), STATUS_RANGE);
    assert_string_equal(d.msg, "cannot split 61 layers into 16 pipeline "
                               "chunks with 5 on the first and 4 on the last");
    model_release(&m);
    assert_true(model_partition_split_ok(126, 16, 7, 7));
    assert_true(model_partition_split_ok(64, 16, 4, 4));  /* uniform */
    assert_false(model_partition_split_ok(64, 16, 0, 0)); /* 64 for 14 */
    assert_false(model_partition_split_ok(61, 16, 4, 4));
    assert_true(model_partition_split_ok(4, 2, 2, 2));
    assert_false(model_partition_split_ok(4, 2, 3, 2));
    assert_false(model_partition_split_ok(17, 16, 1, 1)); /* 15 for 14 */
    assert_true(model_partition_split_ok(16, 16, 1, 1));  /* 14 for 14 */
    assert_true(model_partition_split_ok(94, 96, 0, 0));  /* 94 for 94 */
    assert_false(model_partition_split_ok(94, 96, 0, -1));
}

/*
 * Ends that hold no decoder layer: Qwen3-235B-A22B's 94 layers on PP 32
 * x VPP 3 = 96 chunks with Megatron-LM's --account-for-embedding-in-
 * pipeline-split and --account-for-loss-in-pipeline-split (the Megatron-
 * MoE-ModelZoo's Qwen3 A2A run): 96 counted layers, one per chunk, so
 * the first chunk holds the embedding alone and the last the head alone.
 */
static void test_model_partition_split_empty_ends(void **state)
{
    struct model m;
    struct model_partition p;
    struct diag d;
    long k;
    (void)state;
    diag_init(&d);
    util_model(&m, SNAP "models/qwen3-235b-a22b.ini", NULL, 0);
    assert_int_equal(model_partition_split(&m, 96, 0, 0, &p, &d), STATUS_OK);
    assert_int_equal(p.chunks, 96);
    assert_int_equal(p.chunk[0].count, 0);
    assert_true(p.chunk[0].has_embedding);
    assert_true(p.chunk[0].params_dense > 0); /* the embedding's */
    for (k = 1; k < 95; k++) {
        assert_int_equal(p.chunk[k].first, k - 1);
        assert_int_equal(p.chunk[k].count, 1);
    }
    assert_int_equal(p.chunk[95].count, 0);
    assert_true(p.chunk[95].has_head);
    assert_true(p.chunk[95].fwd_linear > 0); /* the head's GEMM */
    model_partition_release(&p);
    model_release(&m);
}

static void test_model_partition_balanced(void **state)
{
    struct model m;
    struct model_partition p;
    struct diag d;
    long k, most = 0;
    (void)state;
    diag_init(&d);
    util_model(&m, SNAP "models/deepseek-v3.ini", NULL, 0);
    assert_int_equal(model_partition(&m, 16, 1, 1, MODEL_BALANCE_CHUNK, &p, &d),
                     STATUS_OK);
    for (k = 0; k < p.chunks; k++)
        if (p.chunk[k].count > most)
            most = p.chunk[k].count;
    assert_int_equal(most, 4);
    model_partition_release(&p);
    model_release(&m);
}

/* Largest pair (c, n-1-c) of a split of m's units at start[0..n]. */
static double
largest_pair(const double *prefix, double head, const long *start, long n)
{
    double most = 0;
    long c;
    for (c = 0; c < n / 2; c++) {
        double pair = prefix[start[c + 1]] - prefix[start[c]] +
                      prefix[start[n - c]] - prefix[start[n - c - 1]] +
                      (c == 0 ? head : 0);
        if (pair > most)
            most = pair;
    }
    return most;
}

/*
 * Issue 11 item 1: DualPipe's rank c runs chunks c and n-1-c, so the
 * split must minimise the largest pair. Checked against every split of
 * DeepSeek-V3's 62 units into 6 chunks (C(61, 5) = 5,949,147 of them),
 * by FLOPs: each unit's forward FLOPs (an MTP module's with the head run
 * again), the head's on the last chunk. The chunk-balanced split, which
 * the pair split replaces, is no better.
 */
static void test_model_partition_pairs_brute_force(void **state)
{
    struct model m;
    struct model_partition pair, chunk;
    struct diag d;
    double prefix[63], best = HUGE_VAL, head;
    long u, st[7], got[7], k;
    (void)state;
    diag_init(&d);
    util_model(&m, SNAP "models/deepseek-v3.ini", NULL, 0);
    head = m.head_fwd;
    prefix[0] = 0;
    for (u = 0; u < 62; u++) {
        const struct model_layer *L = &m.layer[model_unit_kind(&m, u)];
        prefix[u + 1] =
            prefix[u] + L->fwd_fp8 + L->fwd_other + (u >= 61 ? m.head_fwd : 0);
    }
    st[0] = 0;
    st[6] = 62;
    for (st[1] = 1; st[1] < 62; st[1]++)
        for (st[2] = st[1] + 1; st[2] < 62; st[2]++)
            for (st[3] = st[2] + 1; st[3] < 62; st[3]++)
                for (st[4] = st[3] + 1; st[4] < 62; st[4]++)
                    for (st[5] = st[4] + 1; st[5] < 62; st[5]++) {
                        double v = largest_pair(prefix, head, st, 6);
                        if (v < best)
                            best = v;
                    }
    assert_int_equal(
        model_partition(&m, 6, 1, 1, MODEL_BALANCE_PAIR, &pair, &d), STATUS_OK);
    assert_int_equal(
        model_partition(&m, 6, 1, 1, MODEL_BALANCE_CHUNK, &chunk, &d),
        STATUS_OK);
    for (k = 0; k < 6; k++)
        got[k] = pair.chunk[k].first;
    got[6] = 62;
    assert_near(largest_pair(prefix, head, got, 6), best, 1e-9);
    for (k = 0; k < 6; k++)
        got[k] = chunk.chunk[k].first;
    assert_true(largest_pair(prefix, head, got, 6) >= best);
    /* a pair's cost is what model_chunk_cost sums */
    assert_near(model_chunk_cost(&pair.chunk[0], 1, 1) +
                    model_chunk_cost(&pair.chunk[5], 1, 1),
                prefix[pair.chunk[1].first] +
                    (prefix[62] - prefix[pair.chunk[5].first]) + head,
                1e-12);
    model_partition_release(&pair);
    assert_int_equal(
        model_partition(&m, 5, 1, 1, MODEL_BALANCE_PAIR, &pair, &d),
        STATUS_RANGE);
    model_partition_release(&chunk);
    model_release(&m);
}

/*
 * The pair split is never worse than the chunk split, and is a split:
 * every chunk non-empty, in order. DeepSeek-V3 with and without its MTP
 * module, every even chunk count to 32, by FP8 time (weights 1/rate at
 * 1460 and 758 TFLOP/s x 112/132 SMs, as cost_ctx_prepare passes them
 * for the H800). Without MTP at 16 chunks the
 * chunk split is already the best pair split (rounding once left the
 * pair search nothing to walk back: chunks of 0 layers).
 */
static void test_model_partition_pairs_never_worse(void **state)
{
    struct datafile_set s;
    struct diag d;
    int depth;
    (void)state;
    diag_init(&d);
    for (depth = 0; depth <= 1; depth++) {
        struct model m;
        long chunks, k, u;
        double prefix[64];
        double w8 = 132 / (1460e12 * 112), w16 = 132 / (758e12 * 112);
        util_set(&s, depth ? "mtp.depth=1" : "mtp.depth=0");
        util_model(&m, SNAP "models/deepseek-v3.ini", &s, 1);
        prefix[0] = 0;
        for (u = 0; u < m.units; u++) {
            const struct model_layer *L = &m.layer[model_unit_kind(&m, u)];
            prefix[u + 1] = prefix[u] + L->fwd_fp8 * w8 + L->fwd_other * w16 +
                            (u >= 61 ? m.head_fwd * w16 : 0);
        }
        for (chunks = 4; chunks <= 32; chunks += 2) {
            struct model_partition pair, chunk;
            long a[33], b[33];
            assert_int_equal(model_partition(&m, chunks, w8, w16,
                                             MODEL_BALANCE_PAIR, &pair, &d),
                             STATUS_OK);
            assert_int_equal(model_partition(&m, chunks, w8, w16,
                                             MODEL_BALANCE_CHUNK, &chunk, &d),
                             STATUS_OK);
            for (k = 0; k < chunks; k++) {
                assert_true(pair.chunk[k].count >= 1);
                a[k] = pair.chunk[k].first;
                b[k] = chunk.chunk[k].first;
            }
            a[chunks] = b[chunks] = m.units;
            for (k = 0; k < chunks; k++)
                assert_int_equal(a[k] + pair.chunk[k].count, a[k + 1]);
            assert_true(largest_pair(prefix, m.head_fwd * w16, a, chunks) <=
                        largest_pair(prefix, m.head_fwd * w16, b, chunks) *
                            (1 + 1e-9));
            model_partition_release(&pair);
            model_partition_release(&chunk);
        }
        model_release(&m);
    }
}

/*
 * Sums add, maxima take the larger, flags or: chunk a (2 units, 3e9 dense
 * parameters, largest dense layer 2e9, working set 5 bytes, the
 * embedding) plus chunk b (3 units, 1e9 dense parameters, largest layer
 * 1e9, working set 7 bytes, the head) = 5 units, 4e9 parameters, largest
 * layer 2e9, working set 7, both flags. A zeroed sum plus a is a.
 */
static void test_model_chunk_add_sums_and_maxima(void **state)
{
    struct model_chunk a, b, sum;
    (void)state;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    memset(&sum, 0, sizeof sum);
    a.count = 2;
    a.params_dense = 3e9;
    a.max_layer_dense = 2e9;
    a.work_bytes[MODEL_FP8][MODEL_RECOMPUTE_FULL] = 5;
    a.act_bytes[MODEL_FP8][MODEL_RECOMPUTE_FULL] = 11;
    a.has_embedding = true;
    b.count = 3;
    b.params_dense = 1e9;
    b.max_layer_dense = 1e9;
    b.work_bytes[MODEL_FP8][MODEL_RECOMPUTE_FULL] = 7;
    b.act_bytes[MODEL_FP8][MODEL_RECOMPUTE_FULL] = 13;
    b.has_head = true;
    model_chunk_add(&sum, &a);
    assert_memory_equal(&sum, &a, sizeof a);
    model_chunk_add(&sum, &b);
    assert_int_equal(sum.count, 5);
    assert_near(sum.params_dense, 4e9, 0);
    assert_near(sum.max_layer_dense, 2e9, 0);
    assert_near(sum.work_bytes[MODEL_FP8][MODEL_RECOMPUTE_FULL], 7, 0);
    assert_near(sum.act_bytes[MODEL_FP8][MODEL_RECOMPUTE_FULL], 24, 0);
    assert_true(sum.has_embedding && sum.has_head);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_partition_covers_layers),
        cmocka_unit_test(test_model_partition_balanced),
        cmocka_unit_test(test_model_partition_pairs_brute_force),
        cmocka_unit_test(test_model_partition_pairs_never_worse),
        cmocka_unit_test(test_model_chunk_add_sums_and_maxima),
        cmocka_unit_test(test_model_partition_split_counts),
        cmocka_unit_test(test_model_partition_split_empty_ends),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
