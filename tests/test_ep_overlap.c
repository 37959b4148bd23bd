/*
 * test_ep_overlap: combined 1F1B's paired layer (ep_overlap.h) by hand
 * from the two-stream order of Megatron Core's
 * TransformerLayerSchedulePlan.run (NVIDIA/Megatron-LM @d98e8a6,
 * megatron/core/models/common/model_chunk_schedule_plan.py):
 *   comm: combine_bwd | dispatch_fwd -> dispatch_bwd       | combine_fwd
 *   comp: attn_fwd    | mlp_dgrad -> mlp_wgrad -> mlp_fwd  | attn_bwd
 * each node starting when its stream is free and its input is ready;
 * and the warm-up share from schedules.py's count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "ep_overlap.h"

static struct ep_overlap_layer
layer(double af, double ab, double mf, double md, double mw, double a2a)
{
    struct ep_overlap_layer l = {.attn_fwd = af,
                                 .attn_bwd = ab,
                                 .mlp_fwd = mf,
                                 .mlp_dgrad = md,
                                 .mlp_wgrad = mw,
                                 .dispatch_fwd = a2a,
                                 .combine_fwd = a2a,
                                 .dispatch_bwd = a2a,
                                 .combine_bwd = a2a};
    return l;
}

/*
 * attn 1 (fwd) and 2 (bwd), mlp 1, 1, 1, each all-to-all 1.5, by the
 * streams: combine_bwd 0..1.5 beside attn_fwd 0..1; mlp_dgrad waits for
 * combine_bwd: 1.5..2.5, dispatch_fwd 1.5..3; mlp_wgrad 2.5..3.5;
 * dispatch_bwd after dispatch_fwd and mlp_dgrad: 3..4.5; mlp_fwd after
 * mlp_wgrad and dispatch_fwd: 3.5..4.5; combine_fwd and attn_bwd from
 * 4.5: combine_fwd ends at 6, attn_bwd at 6.5: the layer takes 6.5 s.
 * The compute stream ran 6 s of it and waited 0.5 s (1..1.5, for
 * combine_bwd before mlp_dgrad).
 */
static void test_paired_layer_by_streams(void **state)
{
    struct ep_overlap_layer l = layer(1, 2, 1, 1, 1, 1.5);
    (void)state;
    assert_float_equal(ep_overlap_paired_s(&l), 6.5, 1e-12);
    assert_float_equal(ep_overlap_exposed_s(&l, 1, 0), 0.5, 1e-12);
}

/*
 * The sum of the pairs' maxima is not the max of the sums: compute 6 s
 * against 6 s of all-to-all (four of 1.5) would hide whole as one max;
 * paired, the compute stream waits 0.5 s a layer, 100 layers 50 s. A
 * quarter of them unpaired (warm-up and cool-down) wait for all 6 s of
 * theirs: 25 x 6 + 75 x 0.5 = 187.5 s.
 */
static void test_exposed_sum_of_maxima(void **state)
{
    struct ep_overlap_layer l = layer(1, 2, 1, 1, 1, 1.5);
    (void)state;
    assert_float_equal(ep_overlap_exposed_s(&l, 100, 0), 50, 1e-9);
    assert_float_equal(ep_overlap_exposed_s(&l, 100, 0.25), 187.5, 1e-9);
    /* all unpaired: every all-to-all waited for */
    assert_float_equal(ep_overlap_exposed_s(&l, 100, 1), 600, 1e-9);
}

/*
 * Without --delay-wgrad-compute the experts' backward computes its weight
 * gradients with its data gradients (expected_comm.c folds them: wgrad
 * 0, dgrad 2), so the dispatch's backward starts later: t1 = 1.5,
 * dispatch_bwd ends max(1.5, 2) + 1.5 = 3.5, mlp_fwd max(2, 1.5) + 1 = 3,
 * t2 = 3.5, t3 = 2: 7 s against 6.5 with the weight gradients delayed;
 * the compute stream waits 1 s, not 0.5.
 */
static void test_weight_gradients_not_delayed(void **state)
{
    struct ep_overlap_layer l = layer(1, 2, 1, 2, 0, 1.5);
    (void)state;
    assert_float_equal(ep_overlap_paired_s(&l), 7, 1e-12);
    assert_float_equal(ep_overlap_exposed_s(&l, 1, 0), 1, 1e-12);
}

/*
 * Communication-bound: all-to-alls of 3 against nodes of 1: t1 = 3,
 * dispatch_bwd ends max(3, 1) + 3 = 6 after t1, mlp_fwd max(2, 3) + 1
 * = 4: t2 = 6; t3 = max(3, 1) = 3: 12 s, the all-to-alls' 4 x 3 whole;
 * the compute stream's 5 s ran under them: 7 s waited.
 */
static void test_comm_bound_layer(void **state)
{
    struct ep_overlap_layer l = layer(1, 1, 1, 1, 1, 3);
    (void)state;
    assert_float_equal(ep_overlap_paired_s(&l), 12, 1e-12);
    assert_float_equal(ep_overlap_exposed_s(&l, 1, 0), 7, 1e-12);
}

/*
 * Compute-bound: all-to-alls of 0.25 under nodes of 1: t1 = 1, t2 =
 * max(max(0.25, 1) + 0.25, max(2, 0.25) + 1) = 3, t3 = 1: 5 s, the
 * compute's own 5 s: nothing waited.
 */
static void test_compute_bound_layer(void **state)
{
    struct ep_overlap_layer l = layer(1, 1, 1, 1, 1, 0.25);
    (void)state;
    assert_float_equal(ep_overlap_paired_s(&l), 5, 1e-12);
    assert_float_equal(ep_overlap_exposed_s(&l, 10, 0), 0, 1e-12);
}

/*
 * schedules.py: interleaved warm-up 2 (pp - rank - 1) + (vpp - 1) pp + 1
 * with the overlap. PP8 VPP4, 128 micro-batches: rank 0 2 x 7 + 3 x 8 +
 * 1 = 39 of 512 forwards; rank 7: 0 + 24 + 1 = 25 of 512. No pipeline:
 * 1 of the micro-batches. More warm-up than forwards: all unpaired.
 */
static void test_unpaired_share(void **state)
{
    (void)state;
    assert_float_equal(ep_overlap_unpaired(8, 4, 0, 128), 39.0 / 512, 1e-12);
    assert_float_equal(ep_overlap_unpaired(8, 4, 7, 128), 25.0 / 512, 1e-12);
    assert_float_equal(ep_overlap_unpaired(1, 1, 0, 16), 1.0 / 16, 1e-12);
    assert_float_equal(ep_overlap_unpaired(8, 4, 0, 8), 1, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_paired_layer_by_streams),
        cmocka_unit_test(test_exposed_sum_of_maxima),
        cmocka_unit_test(test_weight_gradients_not_delayed),
        cmocka_unit_test(test_comm_bound_layer),
        cmocka_unit_test(test_compute_bound_layer),
        cmocka_unit_test(test_unpaired_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
