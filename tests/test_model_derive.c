/*
 * test_model_derive: parameters and FLOPs from a model's spec — layer
 * shapes, what recomputation redoes, the TP collectives per layer, and
 * the MTP convention of MFU. Models are snapshots (tests/data/snap/) and
 * fixtures (tests/data/); every value is worked out by hand in the
 * comment above its test. The published totals are test_anchors.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "model.h"
#include "test_util.h"

#define DEEPSEEK "tests/data/snap/models/deepseek-v3.ini"

/* MLA per layer: q_a 7168x1536 + q_b 1536x128x192 + kv_a 7168x576 +
 * kv_b 512x128x256 + o 128x128x7168 = 187,105,280 matmul weights, plus the
 * two latent RMSNorms (1536 + 512): shared/facts §1 "187.1M". One expert
 * 3x7168x2048 = 44,040,192. */
static void test_model_derive_deepseek_layer_shapes(void **state)
{
    struct model m;
    const struct model_layer *moe;
    (void)state;
    util_model(&m, DEEPSEEK, NULL, 0);
    moe = &m.layer[MODEL_LAYER_MOE];
    assert_near(moe->params_expert, 256.0 * 44040192, 1e-12);
    /* non-expert: MLA + latent norms + 2 RMSNorms + shared expert + router */
    assert_near(moe->params_dense,
                187105280.0 + 2048 + 2 * 7168 + 44040192.0 + 256.0 * 7168,
                1e-12);
    /* The operands the FP8 recipe casts, elements per token. MLA: q_a
     * and kv_a read the gathered hidden (2 x 7168 in, 1536 + 576 out),
     * q_b and kv_b the latents (1536 + 512 in; 128 x 192 + 128 x 256
     * out), o is row-parallel (128 x 128 in, 7168 out gathered). Eight
     * routed experts, not split: 8 x (7168 + 2048) in, 8 x (2 x 2048 +
     * 7168) out. The shared expert, TP-split as a dense FFN: 7168
     * gathered and 2048 in, 2 x 2048 and 7168 gathered out. The router
     * stays BF16 (fp8.router = false). */
    assert_near(moe->cast_in, 1536 + 512 + 16384 + 8 * 9216.0 + 2048, 0);
    assert_near(moe->cast_in_sp, 2 * 7168 + 7168.0, 0);
    assert_near(moe->cast_grad, 1536 + 576 + 24576 + 32768 + 8 * 11264.0 + 4096,
                0);
    assert_near(moe->cast_grad_sp, 7168 + 7168.0, 0);
    model_release(&m);
}

/*
 * MTP runs whenever mtp.depth > 0 (issue 11 item 2): its module is a
 * pipeline unit (61 layers + 1 = 62) and its FLOPs are always run; what
 * MFU counts is the file's convention. The snapshot leaves it out
 * (mtp.count_in_mfu = false, as DeepSeek's 250 GFLOP/token does): MFU's
 * FLOPs are the main model's. Counted in, they are the FLOPs run.
 */
static void test_model_derive_mtp_always_runs(void **state)
{
    struct model m;
    struct datafile_set s;
    (void)state;
    util_model(&m, DEEPSEEK, NULL, 0);
    assert_int_equal(m.units, 62);
    assert_true(m.flops_per_token == m.flops_per_token_main);
    assert_near(m.flops_per_token_run,
                m.flops_per_token_main + m.flops_per_token_mtp, 1e-15);
    assert_true(m.flops_per_token_mtp > 0);
    model_release(&m);
    util_set(&s, "mtp.count_in_mfu=true");
    util_model(&m, DEEPSEEK, &s, 1);
    assert_true(m.flops_per_token == m.flops_per_token_run);
    assert_int_equal(m.units, 62);
    model_release(&m);
}

/*
 * Megatron-LM's module names (transformer_config.py recompute_modules):
 * `mlp` recomputes the dense FFN of Korthikanti's GPT layer
 * (tests/data/gpt-korthikanti.ini), redoing its two GEMMs: 2 x 2 x h x 4h
 * = 16h^2 FLOPs per token; the FFN's all-gather and reduce-scatter are
 * inside the module, so 2 TP collectives are redone.
 */
static void test_model_derive_recompute_mlp(void **state)
{
    struct model m;
    struct datafile_set s;
    double h = 12288;
    const struct model_layer *L;
    (void)state;
    util_set(&s, "training.selective=mlp");
    util_model(&m, "tests/data/gpt-korthikanti.ini", &s, 1);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->recompute_other[MODEL_RECOMPUTE_SELECTIVE] +
                    L->recompute_fp8[MODEL_RECOMPUTE_SELECTIVE],
                16 * h * h, 1e-12);
    assert_near(L->tp_recompute[MODEL_RECOMPUTE_SELECTIVE], 2, 0);
    model_release(&m);
}

/*
 * `core_attn` (Korthikanti et al. 2022 §5) reruns the attention core of
 * gpt-korthikanti (h 12288, 96 heads, s 2048, causal, unfused, dropout):
 * QK^T and PV, 2 x 2 x s x h FLOPs a token over the causal half, 2sh =
 * 50,331,648, the same as what a full recomputation reruns of it; and
 * its s x s traffic, 10as = 10 x 96 x 2048 = 1,966,080 bytes a token
 * (Table 2's softmax output, dropout mask and output, written and read).
 * A full recomputation reruns the whole forward (all of ew_fwd), so
 * recompute_scores is the selective rerun's only.
 */
static void test_model_derive_recompute_core_attn(void **state)
{
    struct model m;
    const struct model_layer *L;
    (void)state;
    util_model(&m, "tests/data/gpt-korthikanti.ini", NULL, 0);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->recompute_core[MODEL_RECOMPUTE_SELECTIVE], 50331648.0,
                1e-12);
    assert_near(L->recompute_core[MODEL_RECOMPUTE_FULL], 50331648.0, 1e-12);
    assert_near(L->recompute_core[MODEL_RECOMPUTE_NONE], 0, 0);
    assert_near(L->recompute_other[MODEL_RECOMPUTE_SELECTIVE], 50331648.0,
                1e-12);
    assert_near(L->recompute_scores, 1966080.0, 1e-12);
    model_release(&m);
}

/*
 * `alternate_mm`, torchtitan's op-level policy (parallelize_llama.py
 * @9dec370: every second aten.mm of a block rerun, counted in forward
 * order). Llama 3.1 70B (h 8192, 64 heads, 8 KV heads of 128, SwiGLU
 * width 28672): the block's matmuls are wq, wk, wv, wo, w1, w3, w2, so
 * wk (8192 x 1024), wo (8192 x 8192) and w3 (8192 x 28672) rerun:
 * 2 x 8192 x (1024 + 8192 + 28672) = 620,756,992 FLOPs a token, the
 * attention core not (its kernel's output is saved). Korthikanti's GPT
 * layer (MHA, GeLU 4h): q, k, v, o, up, down: k, o and down, 2 x (h^2 +
 * h^2 + 4h^2) = 12h^2 at h 12288.
 */
static void test_model_derive_recompute_alternate_mm(void **state)
{
    struct model m;
    struct datafile_set s;
    double h = 12288;
    const struct model_layer *L;
    (void)state;
    util_set(&s, "training.selective=alternate_mm");
    util_model(&m, "tests/data/snap/models/llama-3.1-70b.ini", &s, 1);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->recompute_other[MODEL_RECOMPUTE_SELECTIVE] +
                    L->recompute_fp8[MODEL_RECOMPUTE_SELECTIVE],
                620756992.0, 1e-12);
    assert_near(L->recompute_core[MODEL_RECOMPUTE_SELECTIVE], 0, 0);
    model_release(&m);
    util_set(&s, "training.selective=alternate_mm");
    util_model(&m, "tests/data/gpt-korthikanti.ini", &s, 1);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->recompute_other[MODEL_RECOMPUTE_SELECTIVE] +
                    L->recompute_fp8[MODEL_RECOMPUTE_SELECTIVE],
                12 * h * h, 1e-12);
    model_release(&m);
}

/*
 * Megatron-LM's backward re-gathers under sequence parallelism
 * (model_derive.c tp_regathers): one per TP-split block, at the
 * column-parallel GEMMs that open it. Korthikanti's GPT layer (h 12288,
 * MHA, GeLU 4h): two blocks, two re-gathers; the GEMMs they feed are QKV
 * (h x 3h) and the FFN's up projection (h x 4h): 2 x 7h^2 = 14h^2 FLOPs
 * a token. tiny-moe's MoE layer (no shared experts: its routed experts
 * are not TP-split) re-gathers for its attention only: q, k, v of
 * hidden 1024 with 8 heads (MHA), 2 x 3 x 1024^2.
 */
static void test_model_derive_tp_regathers(void **state)
{
    struct model m;
    double h = 12288;
    const struct model_layer *L;
    (void)state;
    util_model(&m, "tests/data/gpt-korthikanti.ini", NULL, 0);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->tp_regathers, 2, 0);
    assert_near(L->regather_fwd, 14 * h * h, 1e-12);
    model_release(&m);
    util_model(&m, "tests/data/tiny-moe.ini", NULL, 0);
    L = &m.layer[MODEL_LAYER_MOE];
    assert_near(L->tp_regathers, 1, 0);
    assert_near(L->regather_fwd, 2 * 3 * 1024.0 * 1024, 1e-12);
    model_release(&m);
}

/*
 * `moe` recomputes DeepSeek-V3's whole MoE block: the router (2 x 256 x
 * 7168 FLOPs) and nine experts (8 routed + 1 shared: 9 x 3 x 7168 x 2048
 * x 2), and the dispatch and combine all-to-alls again.
 */
static void test_model_derive_recompute_moe(void **state)
{
    struct model m;
    struct datafile_set s;
    const struct model_layer *L;
    (void)state;
    util_set(&s, "training.selective=moe");
    util_model(&m, DEEPSEEK, &s, 1);
    L = &m.layer[MODEL_LAYER_MOE];
    assert_near(L->recompute_fp8[MODEL_RECOMPUTE_SELECTIVE] +
                    L->recompute_other[MODEL_RECOMPUTE_SELECTIVE],
                2.0 * 256 * 7168 + 9.0 * 3 * 7168 * 2048 * 2, 1e-12);
    assert_true(L->ep_recompute[MODEL_RECOMPUTE_SELECTIVE]);
    assert_false(L->ep_recompute[MODEL_RECOMPUTE_NONE]);
    model_release(&m);
}

/*
 * TP with sequence parallelism: an all-gather and a reduce-scatter around
 * each TP-split block per pass (Korthikanti §4.2.2). A dense layer has
 * two blocks (attention, FFN): 4. Routed experts are split over ep, not
 * tp, so a MoE layer without shared experts (tests/data/tiny-moe.ini)
 * has the attention's 2, and DeepSeek-V3's (one TP-split shared expert,
 * as Megatron-LM's SharedExpertMLP) 4.
 */
static void test_model_derive_tp_collectives_per_layer(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "tests/data/tiny-moe.ini", NULL, 0);
    assert_near(m.layer[MODEL_LAYER_MOE].tp_collectives, 2, 0);
    model_release(&m);
    util_model(&m, DEEPSEEK, NULL, 0);
    assert_near(m.layer[MODEL_LAYER_MOE].tp_collectives, 4, 0);
    assert_near(m.layer[MODEL_LAYER_DENSE].tp_collectives, 4, 0);
    model_release(&m);
}

/*
 * tests/data/tiny-moe.ini by hand (MHA, SwiGLU, RMSNorm, untied): per
 * layer attention 4 x 1024^2 = 4,194,304, two norms 2,048, router 16 x
 * 1024 = 16,384; one expert 3 x 1024 x 512 = 1,572,864, 16 of them
 * 25,165,824, 2 active 3,145,728. Embedding and head 2 x 1000 x 1024 =
 * 2,048,000, final norm 1,024. Total 2,049,024 + 4 x (4,212,736 +
 * 25,165,824) = 119,563,264; active 2,049,024 + 4 x (4,212,736 +
 * 3,145,728) = 31,482,880. Forward FLOPs per token per layer: 2 x
 * (4,194,304 + 16,384 + 3,145,728) + the causal scores 2 x 8 x 128 x 512
 * x 2 = 2,097,152: 16,809,984; x 4 + the head 2 x 1024 x 1000 =
 * 69,287,936; x 3 (forward and backward) = 207,863,808.
 */
static void test_model_derive_tiny_moe_by_hand(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "tests/data/tiny-moe.ini", NULL, 0);
    assert_near(m.params_total, 119563264.0, 1e-15);
    assert_near(m.params_active, 31482880.0, 1e-15);
    assert_near(m.flops_per_token, 207863808.0, 1e-15);
    /* FP8 operands a layer casts (attention and experts in FP8, the
     * router not): QKV reads the gathered 1024 and writes 3 x 1024, the
     * output projection reads 1024 and its gradient is gathered (1024);
     * two routed experts, not split, read 1024 + 512 and write 2 x 512 +
     * 1024 each. */
    assert_near(m.layer[MODEL_LAYER_MOE].cast_in, 1024 + 2 * 1536.0, 0);
    assert_near(m.layer[MODEL_LAYER_MOE].cast_in_sp, 1024, 0);
    assert_near(m.layer[MODEL_LAYER_MOE].cast_grad, 3072 + 2 * 2048.0, 0);
    assert_near(m.layer[MODEL_LAYER_MOE].cast_grad_sp, 1024, 0);
    model_release(&m);
}

/* QK-norm adds two head_dim-wide RMSNorms per layer: Qwen3-235B's
 * snapshot, 94 layers x 2 x 128. */
static void test_model_derive_qk_norm_params(void **state)
{
    struct model on, off;
    struct datafile_set s;
    (void)state;
    util_model(&on, "tests/data/snap/models/qwen3-235b-a22b.ini", NULL, 0);
    util_set(&s, "attention.qk_norm=false");
    util_model(&off, "tests/data/snap/models/qwen3-235b-a22b.ini", &s, 1);
    assert_near(on.params_total - off.params_total, 94.0 * 2 * 128, 1e-12);
    model_release(&on);
    model_release(&off);
}

/* q/k/v biases: query 64x128 and key/value 2x8x128 per layer, 80 layers
 * (Llama 3.1 70B's snapshot). */
static void test_model_derive_qkv_bias(void **state)
{
    struct model on, off;
    struct datafile_set s;
    (void)state;
    util_model(&off, "tests/data/snap/models/llama-3.1-70b.ini", NULL, 0);
    util_set(&s, "attention.qkv_bias=true");
    util_model(&on, "tests/data/snap/models/llama-3.1-70b.ini", &s, 1);
    assert_near(on.params_total - off.params_total, 80.0 * (8192 + 2 * 1024),
                1e-12);
    model_release(&on);
    model_release(&off);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_derive_deepseek_layer_shapes),
        cmocka_unit_test(test_model_derive_mtp_always_runs),
        cmocka_unit_test(test_model_derive_recompute_mlp),
        cmocka_unit_test(test_model_derive_recompute_moe),
        cmocka_unit_test(test_model_derive_recompute_core_attn),
        cmocka_unit_test(test_model_derive_recompute_alternate_mm),
        cmocka_unit_test(test_model_derive_tp_regathers),
        cmocka_unit_test(test_model_derive_tp_collectives_per_layer),
        cmocka_unit_test(test_model_derive_tiny_moe_by_hand),
        cmocka_unit_test(test_model_derive_qk_norm_params),
        cmocka_unit_test(test_model_derive_qkv_bias),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
