/*
 * test_memory: bytes per GPU of a pipeline rank, hand-checked: sequence
 * parallelism or not, recomputation's working set, FP8 weight copies,
 * how ZeRO-2 keeps its gradients.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "memory.h"
#include "test_util.h"

struct fixture {
    struct model gpt, tiny;
    struct hardware hw;
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/gpt-korthikanti.ini", &f.gpt, NULL, 0, &d) ||
        model_load("tests/data/tiny-moe.ini", &f.tiny, NULL, 0, &d) ||
        hardware_load("tests/data/snap/hardware/h800.ini", &f.hw, NULL, 0, &d))
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    model_release(&f->gpt);
    model_release(&f->tiny);
    hardware_release(&f->hw);
    return 0;
}

/* Memory of pipeline rank `rank` of `text` on model m and hardware hw. */
static void rank_memory(const struct model *m,
                        const struct hardware *hw,
                        const char *text,
                        long rank,
                        struct memory *out)
{
    struct plan p;
    struct cost_ctx ctx;
    struct plan_rank v;
    util_plan(m, hw, text, &p);
    util_ctx(&ctx, m, hw, COMM_TOPO, &p);
    plan_rank_view(&p, cost_ctx_partition(&ctx, &p), rank, &v);
    memory_view(m, hw, &p, &v, out);
    cost_ctx_release(&ctx);
}

/*
 * Korthikanti et al. 2022 §4.2.2: without sequence parallelism a layer
 * keeps sbh(10 + 24/t + 5as/(ht)), with it sbh(34 + 5as/h)/t: sp=0 adds
 * 10 s h x (1 - 1/t) bytes per layer. GPT-3, t = 8, one stage of 96
 * layers, one micro-batch of 2048 tokens: 96 x 2048 x 10 x 12288 x 7/8.
 */
static void test_memory_without_sequence_parallel(void **state)
{
    struct fixture *f = *state;
    struct memory sp, nosp;
    rank_memory(&f->gpt, &f->hw, "gpus=8 tp=8 gbs=1", 0, &sp);
    rank_memory(&f->gpt, &f->hw, "gpus=8 tp=8 gbs=1 sp=0", 0, &nosp);
    assert_near(nosp.activations - sp.activations,
                96 * 2048.0 * 10 * 12288 * 7 / 8, 1e-9);
}

/*
 * Activation offloading (the plan's offload): the first N layers'
 * activations leave the GPU ("at most (model_layers - num_layers) sets of
 * activations are on GPU at any time", Transformer Engine's CPU
 * offloading guide). GPT-3 with sequence parallelism keeps sbh(34 +
 * 5as/h)/t a layer (Korthikanti et al. 2022 §4.2.2): t = 8, s = 2048,
 * h = 12288, a = 96 (5as/h = 80), one micro-batch in flight (pp = 1):
 * 40 layers x 2048 x 12288 x 114 / 8 bytes go to host memory, the same
 * bytes the step's work copies each way per micro-batch.
 */
static void test_memory_offload(void **state)
{
    struct fixture *f = *state;
    struct hardware hw = f->hw;
    struct memory all, off;
    double s = 2048, h = 12288, t = 8, layer = s * h * (34 + 80) / t;
    struct plan p;
    hw.spec.host_link_gbps = 55;
    rank_memory(&f->gpt, &hw, "gpus=8 tp=8 gbs=1", 0, &all);
    rank_memory(&f->gpt, &hw, "gpus=8 tp=8 gbs=1 offload=40", 0, &off);
    assert_near(off.offloaded, 40 * layer, 1e-9);
    assert_near(all.activations - off.activations, 40 * layer, 1e-9);
    assert_near(all.offloaded, 0, 0);
    util_plan(&f->gpt, &hw, "gpus=8 tp=8 gbs=1 offload=40", &p);
    assert_near(memory_offload_bytes(&f->gpt, &p), 40 * layer, 1e-9);
}

/*
 * Issue 11 item 7: full recomputation keeps each layer's input (2 s h /t
 * with SP) but the layer being backpropagated is rematerialised, with the
 * gradient of its largest tensor: (32h + 7as) s / t (test_model). GPT-3,
 * t = 8, 96 layers, one micro-batch of s = 2048, plus the FP32 logits
 * s V x 4 / t (tied head, V = 51200).
 */
static void test_memory_full_recompute_working_set(void **state)
{
    struct fixture *f = *state;
    struct memory m;
    double s = 2048, h = 12288, a = 96, t = 8;
    rank_memory(&f->gpt, &f->hw, "gpus=8 tp=8 gbs=1 recompute=full", 0, &m);
    assert_near(m.working, (32 * h + 7 * a * s) * s / t, 1e-12);
    assert_near(m.logits, s * 51200 * 4 / t, 1e-12);
    assert_near(m.activations, 96 * s * 2 * h / t + m.working + m.logits,
                1e-12);
}

/*
 * Issue 11 item 10: under the FP8 recipe each FP8-run weight is kept as
 * its FP8 copy and transpose (fp8.weight_cache_bytes, 2 by default) in
 * place of a BF16 compute copy. tiny-moe on one GPU: per layer the
 * attention's 4 h^2 = 4,194,304 and the 16 experts' 16 x 3 x 1024 x 512 =
 * 25,165,824 run in FP8 (not the router), 4 layers: 117,440,512
 * parameters, 2 bytes each of copies; at 3 bytes the weights grow by one
 * byte each.
 */
static void test_memory_fp8_weight_copies(void **state)
{
    struct fixture *f = *state;
    struct memory two, three;
    struct model m = f->tiny;
    double fp8 = 4 * (4194304.0 + 25165824.0);
    rank_memory(&m, &f->hw, "gpus=1 gbs=1 precision=fp8", 0, &two);
    assert_near(two.fp8_copies, 2 * fp8, 1e-12);
    m.spec.fp8_weight_cache_bytes = 3;
    rank_memory(&m, &f->hw, "gpus=1 gbs=1 precision=fp8", 0, &three);
    assert_near(three.weights - two.weights, fp8, 1e-12);
    /* BF16 keeps no copies */
    rank_memory(&m, &f->hw, "gpus=1 gbs=1 precision=bf16", 0, &two);
    assert_near(two.fp8_copies, 0, 0);
}

/*
 * Issue 11 item 4: ZeRO-2 accumulates unsharded gradients (counted here)
 * and reduces them once per step when they fit; otherwise it keeps its
 * shard, 1/dp of them, and reduce-scatters every micro-batch. GPT-3 on
 * 128 H800, tp=8 pp=8: dp = 2, so the shard is half.
 */
static void test_memory_zero2_gradients(void **state)
{
    struct fixture *f = *state;
    struct memory fits, tight;
    struct hardware small = f->hw;
    const char *plan = "gpus=128 tp=8 pp=8 zero=2 gbs=16";
    rank_memory(&f->gpt, &f->hw, plan, 0, &fits);
    assert_true(fits.grads_per_step);
    assert_true(fits.total <= fits.capacity);
    small.spec.hbm_gib = 1;
    hardware_derive(&small);
    rank_memory(&f->gpt, &small, plan, 0, &tight);
    assert_false(tight.grads_per_step);
    assert_near(tight.grads, fits.grads / 2, 1e-12);
    /* ZeRO-1 always holds them whole and reduces once */
    rank_memory(&f->gpt, &small, "gpus=128 tp=8 pp=8 zero=1 gbs=16", 0, &tight);
    assert_true(tight.grads_per_step);
    assert_near(tight.grads, fits.grads, 1e-12);
}

/*
 * Issue 17 item 9: the gradients ZeRO-2 keeps are chosen by the rule that
 * judges the plan, headroom included. GPT-3 on 128 H800, tp=8 pp=8, dp =
 * 2: with the unsharded gradients rank 0 needs fits.total bytes. Keep
 * free just enough HBM that this total no longer fits (usable one byte
 * short of it): the plan runs with the shard, half the gradients,
 * reduce-scattered per micro-batch, and is smaller by that half plus its
 * 5% fragmentation (h800.ini fragmentation_pct).
 */
static void test_memory_zero2_gradients_keep_headroom(void **state)
{
    struct fixture *f = *state;
    struct memory whole, shard;
    struct hardware hw = f->hw;
    const char *plan = "gpus=128 tp=8 pp=8 zero=2 gbs=16";
    rank_memory(&f->gpt, &hw, plan, 0, &whole);
    assert_true(whole.grads_per_step);
    hw.headroom_pct = 100 * (1 - (whole.total - 1) / whole.capacity);
    rank_memory(&f->gpt, &hw, plan, 0, &shard);
    assert_false(shard.grads_per_step);
    assert_near(shard.grads, whole.grads / 2, 1e-12);
    assert_near(whole.total - shard.total, whole.grads / 2 * 1.05, 1e-12);
    /* a plan that fits with its headroom keeps reducing once */
    hw.headroom_pct = 100 * (1 - (whole.total + 1) / whole.capacity);
    rank_memory(&f->gpt, &hw, plan, 0, &shard);
    assert_true(shard.grads_per_step);
}

/* memory_tp_bytes: all / (tp cp) with SP; without, rep stays whole over
 * tp: (100 - 40)/4 + 40 = 55, over cp = 2: 27.5. */
static void test_memory_tp_bytes(void **state)
{
    struct plan p;
    (void)state;
    memset(&p, 0, sizeof p);
    p.tp = 4;
    p.cp = 2;
    assert_near(memory_tp_bytes(&p, 100, 40), 12.5, 1e-12);
    p.no_sp = true;
    assert_near(memory_tp_bytes(&p, 100, 40), 27.5, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_memory_offload),
        cmocka_unit_test(test_memory_without_sequence_parallel),
        cmocka_unit_test(test_memory_full_recompute_working_set),
        cmocka_unit_test(test_memory_fp8_weight_copies),
        cmocka_unit_test(test_memory_zero2_gradients),
        cmocka_unit_test(test_memory_zero2_gradients_keep_headroom),
        cmocka_unit_test(test_memory_tp_bytes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
