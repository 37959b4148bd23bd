/*
 * test_model_inventory: what a layer saves for backward — the bytes of
 * each tensor by precision, which recomputation drops it, the share
 * outside tensor-parallel regions and the backward working set. Models
 * are fixtures (tests/data/gpt-korthikanti.ini: Korthikanti et al.'s GPT
 * layer) and snapshots (tests/data/snap/); the published 34sbh itself is
 * test_anchors.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "model.h"
#include "test_util.h"

#define GPT      "tests/data/gpt-korthikanti.ini"
#define DEEPSEEK "tests/data/snap/models/deepseek-v3.ini"

/* The tensor of m named name; fails the test when there is none. */
static const struct model_tensor *tensor(const struct model *m,
                                         const char *name)
{
    size_t i;
    for (i = 0; i < m->tensors; i++)
        if (strcmp(m->tensor[i].name, name) == 0)
            return &m->tensor[i];
    fail_msg("no tensor \"%s\"", name);
    return NULL;
}

/*
 * Korthikanti's GPT layer by hand (their §4.1 lists the same tensors):
 * per token, with h = 12288, a = 96, s = 2048, 2-byte activations, 1-byte
 * masks: layer input 2h, LayerNorm output 2h, Q K V 6h, softmax output
 * 2as, its dropout mask as and output 2as, attention output 2h, dropout
 * mask h, FFN norm input 2h and output 2h, FC1 output 8h, GeLU output 8h,
 * dropout mask h: 34h + 5as. `mlp` recomputation drops the FC1 and GeLU
 * outputs (16h): 18h + 5as left. Outside the tensor-parallel regions lie
 * the two LayerNorm inputs (2h + 2h), their outputs (2h + 2h) and the two
 * residual dropout masks (h + h): 10h.
 */
static void test_model_inventory_gpt_layer_by_hand(void **state)
{
    struct model m;
    struct datafile_set s;
    double h = 12288, a = 96, sq = 2048;
    const struct model_layer *L;
    (void)state;
    util_set(&s, "training.selective=mlp");
    util_model(&m, GPT, &s, 1);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_NONE],
                34 * h + 5 * a * sq, 1e-12);
    assert_near(L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_SELECTIVE],
                18 * h + 5 * a * sq, 1e-12);
    /* the layer input alone survives full recomputation */
    assert_near(L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_FULL], 2 * h, 1e-12);
    assert_near(L->act_rep[MODEL_BF16][MODEL_RECOMPUTE_NONE], 10 * h, 1e-12);
    assert_near(L->act_rep[MODEL_BF16][MODEL_RECOMPUTE_FULL], 2 * h, 1e-12);
    model_release(&m);
}

/*
 * `moe` recomputes DeepSeek-V3's whole MoE block: it drops, per token,
 * the FP32 router scores (256 x 4 = 1024 B), the shared expert's gate/up
 * and SwiGLU outputs (3 x 2048 x 2 = 12288 B), and per routed copy (x 8)
 * the dispatched token (7168), gate/up (4096) and SwiGLU output (2048),
 * 2 bytes each: 8 x 13312 x 2 = 212992 B; 226304 B in all (BF16).
 */
static void test_model_inventory_moe_recompute(void **state)
{
    struct model m;
    struct datafile_set s;
    const struct model_layer *L;
    (void)state;
    util_set(&s, "training.selective=moe");
    util_model(&m, DEEPSEEK, &s, 1);
    L = &m.layer[MODEL_LAYER_MOE];
    assert_near(L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_NONE] -
                    L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_SELECTIVE],
                226304, 1e-12);
    model_release(&m);
}

/*
 * Issue 11 item 7: a layer's backward rematerialises what recomputation
 * dropped and holds the gradient of its largest tensor beside it. GPT-3
 * (Korthikanti's layer), full recomputation: 34h + 5as - 2h (all but the
 * input) + the softmax output's gradient, a s elements x 2 bytes = 2as
 * (the largest: 2as = 393216 > the FC1 output's 8h = 98304): 32h + 7as
 * bytes per token, 1.55 GiB for a 2048-token sequence.
 */
static void test_model_inventory_backward_working_set(void **state)
{
    struct model m;
    double h = 12288, a = 96, sq = 2048;
    const struct model_layer *L;
    (void)state;
    util_model(&m, GPT, NULL, 0);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->work_bytes[MODEL_BF16][MODEL_RECOMPUTE_FULL],
                32 * h + 7 * a * sq, 1e-12);
    /* selective (core_attn): the 5as of s x s tensors and that gradient */
    assert_near(L->work_bytes[MODEL_BF16][MODEL_RECOMPUTE_SELECTIVE],
                7 * a * sq, 1e-12);
    model_release(&m);
}

/* QK-norm saves its inputs, the projected Q (64 heads x 128) and K (4 x
 * 128), in BF16 for backward: Qwen3-235B's snapshot. */
static void test_model_inventory_qk_norm(void **state)
{
    struct model on, off;
    struct datafile_set s;
    (void)state;
    util_model(&on, "tests/data/snap/models/qwen3-235b-a22b.ini", NULL, 0);
    util_set(&s, "attention.qk_norm=false");
    util_model(&off, "tests/data/snap/models/qwen3-235b-a22b.ini", &s, 1);
    assert_near(
        on.layer[MODEL_LAYER_MOE].act_bytes[MODEL_BF16][MODEL_RECOMPUTE_NONE] -
            off.layer[MODEL_LAYER_MOE]
                .act_bytes[MODEL_BF16][MODEL_RECOMPUTE_NONE],
        2.0 * (64 * 128 + 4 * 128), 1e-12);
    model_release(&on);
    model_release(&off);
}

/*
 * Bytes by storage class, DeepSeek-V3's snapshot (activation_bytes 2,
 * fp8.cache_bytes 1.03125: 1 byte and a 4-byte scale per 128 elements;
 * attn_out_bytes 1.5; top_k 8): the dispatched token, 7168 elements per
 * routed copy, a Linear input: 7168 x 2 x 8 = 114,688 B in BF16 and
 * 7168 x 1.03125 x 8 = 59,136 B FP8-cached; the attention output, 128
 * heads x 128 = 16,384 elements: 32,768 B and 24,576 B; the router
 * scores, 256 FP32 in either: 1,024 B.
 */
static void test_model_tensor_bytes_by_precision(void **state)
{
    struct model m;
    const struct model_tensor *t;
    (void)state;
    util_model(&m, DEEPSEEK, NULL, 0);
    t = tensor(&m, "routed expert input (dispatched token)");
    assert_near(model_tensor_bytes(&m, t, MODEL_BF16), 114688, 1e-15);
    assert_near(model_tensor_bytes(&m, t, MODEL_FP8), 59136, 1e-15);
    t = tensor(&m, "attention output (output projection input)");
    assert_near(model_tensor_bytes(&m, t, MODEL_BF16), 32768, 1e-15);
    assert_near(model_tensor_bytes(&m, t, MODEL_FP8), 24576, 1e-15);
    t = tensor(&m, "router scores");
    assert_near(model_tensor_bytes(&m, t, MODEL_BF16), 1024, 1e-15);
    assert_near(model_tensor_bytes(&m, t, MODEL_FP8), 1024, 1e-15);
    model_release(&m);
}

/*
 * Which policy keeps what (DeepSeek-V3's snapshot: selective = layernorm
 * mla_up_proj, fp8.recompute_swiglu_output = true): the layer input under
 * every policy; a norm output dropped by `selective` (layernorm) and
 * `full`; the SwiGLU output dropped under FP8 even without recomputation
 * (the recipe recomputes it) but kept in BF16; Q kept by `selective`
 * only when mla_up_proj is not listed.
 */
static void test_model_tensor_kept_by_policy(void **state)
{
    struct model m;
    struct datafile_set s;
    const struct model_tensor *t;
    int r;
    (void)state;
    util_model(&m, DEEPSEEK, NULL, 0);
    t = tensor(&m, "layer input (attention norm input)");
    for (r = 0; r < MODEL_RECOMPUTES; r++)
        assert_true(model_tensor_kept(&m, t, MODEL_FP8, r));
    t = tensor(&m, "attention norm output (projection input)");
    assert_true(model_tensor_kept(&m, t, MODEL_BF16, MODEL_RECOMPUTE_NONE));
    assert_false(
        model_tensor_kept(&m, t, MODEL_BF16, MODEL_RECOMPUTE_SELECTIVE));
    assert_false(model_tensor_kept(&m, t, MODEL_BF16, MODEL_RECOMPUTE_FULL));
    t = tensor(&m, "routed SwiGLU output, gate-weighted");
    assert_false(model_tensor_kept(&m, t, MODEL_FP8, MODEL_RECOMPUTE_NONE));
    assert_true(model_tensor_kept(&m, t, MODEL_BF16, MODEL_RECOMPUTE_NONE));
    t = tensor(&m, "Q (up-projected, with RoPE)");
    assert_false(
        model_tensor_kept(&m, t, MODEL_BF16, MODEL_RECOMPUTE_SELECTIVE));
    model_release(&m);
    util_set(&s, "training.selective=core_attn");
    util_model(&m, DEEPSEEK, &s, 1);
    t = tensor(&m, "Q (up-projected, with RoPE)");
    assert_true(
        model_tensor_kept(&m, t, MODEL_BF16, MODEL_RECOMPUTE_SELECTIVE));
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_inventory_gpt_layer_by_hand),
        cmocka_unit_test(test_model_inventory_moe_recompute),
        cmocka_unit_test(test_model_inventory_backward_working_set),
        cmocka_unit_test(test_model_inventory_qk_norm),
        cmocka_unit_test(test_model_tensor_bytes_by_precision),
        cmocka_unit_test(test_model_tensor_kept_by_policy),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
