/*
 * test_model: parameters, FLOPs, activation inventory, partitions.
 * Expected values come from published figures, cited at each test.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "model.h"
#include "test_util.h"

static void
load(struct model *m, const char *path, struct datafile_set *sets, size_t nsets)
{
    struct diag d;
    diag_init(&d);
    if (model_load(path, m, sets, nsets, &d) != STATUS_OK)
        fail_msg("%s: %s", path, d.msg);
}

static void set(struct datafile_set *s, const char *arg)
{
    struct diag d;
    diag_init(&d);
    if (datafile_parse_set(arg, s, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

/* DeepSeek-V3 report §4.2 and README_WEIGHTS.md: 671B total, 37B active
 * (36.7B + 0.9B head counted separately = 37.5B with embedding and head:
 * shared/facts §1, "671.0B total, 37.55B active"). */
static void test_model_deepseek_params(void **state)
{
    struct model m;
    (void)state;
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_near(m.params_total, 671.0e9, 0.003);
    assert_near(m.params_active, 37.5e9, 0.01);
    model_release(&m);
}

/* MLA per layer: q_a 7168x1536 + q_b 1536x128x192 + kv_a 7168x576 +
 * kv_b 512x128x256 + o 128x128x7168 = 187,105,280 matmul weights, plus the
 * two latent RMSNorms (1536 + 512): shared/facts §1 "187.1M". One expert
 * 3x7168x2048 = 44,040,192. */
static void test_model_deepseek_layer_shapes(void **state)
{
    struct model m;
    const struct model_layer *moe;
    (void)state;
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    moe = &m.layer[MODEL_LAYER_MOE];
    assert_near(moe->params_expert, 256.0 * 44040192, 1e-12);
    /* non-expert: MLA + latent norms + 2 RMSNorms + shared expert + router */
    assert_near(moe->params_dense,
                187105280.0 + 2048 + 2 * 7168 + 44040192.0 + 256.0 * 7168,
                1e-12);
    model_release(&m);
}

/* DeepSeek ISCA'25 (arXiv 2505.09343) Table 2: 250 GFLOPs per token for
 * training DeepSeek-V3 at 4K, causal, MTP excluded. */
static void test_model_deepseek_flops(void **state)
{
    struct model m;
    (void)state;
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_near(m.flops_per_token, 250e9, 0.02);
    model_release(&m);
}

/* With the MTP module counted: 260.6 GFLOPs/token (shared/facts §3, from
 * the config; Megatron-Bridge flop_utils.py counts MTP the same way). */
static void test_model_deepseek_flops_with_mtp(void **state)
{
    struct model m;
    struct datafile_set s;
    (void)state;
    set(&s, "mtp.enabled=true");
    load(&m, "data/models/deepseek-v3.ini", &s, 1);
    assert_near(m.flops_per_token, 260.6e9, 0.02);
    /* README_WEIGHTS.md: MTP has 11.5B unique parameters (we count the
     * eh_proj and norms too: 11.6B, shared/facts §1). */
    assert_near(m.params_mtp, 11.6e9, 0.01);
    model_release(&m);
}

/* Korthikanti et al. 2022 §4.1, eq. (1): a GPT layer with dropout and no
 * flash attention saves s*b*h*(34 + 5*a*s/h) bytes: 34h + 5as per token. */
static void test_model_korthikanti_no_recompute(void **state)
{
    struct model m;
    double h = 12288, a = 96, s = 2048;
    (void)state;
    load(&m, "tests/data/gpt-korthikanti.ini", NULL, 0);
    assert_near(
        m.layer[MODEL_LAYER_DENSE].act_bytes[MODEL_BF16][MODEL_RECOMPUTE_NONE],
        34 * h + 5 * a * s, 1e-12);
    model_release(&m);
}

/* Korthikanti Table 2: selective recomputation leaves 34 s*b*h (sequence
 * parallel divides it by t, in memory.c); full recomputation 2 s*b*h. */
static void test_model_korthikanti_recompute(void **state)
{
    struct model m;
    double h = 12288;
    (void)state;
    load(&m, "tests/data/gpt-korthikanti.ini", NULL, 0);
    assert_near(m.layer[MODEL_LAYER_DENSE]
                    .act_bytes[MODEL_BF16][MODEL_RECOMPUTE_SELECTIVE],
                34 * h, 1e-12);
    assert_near(
        m.layer[MODEL_LAYER_DENSE].act_bytes[MODEL_BF16][MODEL_RECOMPUTE_FULL],
        2 * h, 1e-12);
    model_release(&m);
}

/* Brown et al. 2020 Table 2.1: GPT-3 175.0B (Megatron-LM Table 2 lists the
 * same shape at 174.6B with its vocabulary). */
static void test_model_gpt3_params(void **state)
{
    struct model m;
    (void)state;
    load(&m, "data/models/gpt3-175b.ini", NULL, 0);
    assert_near(m.params_total, 175.0e9, 0.005);
    model_release(&m);
}

/* Llama 3 paper (arXiv 2407.21783) Table 3: 405B parameters. */
static void test_model_llama3_params(void **state)
{
    struct model m;
    (void)state;
    load(&m, "data/models/llama-3-405b.ini", NULL, 0);
    assert_near(m.params_total, 405e9, 0.005);
    /* Llama 3 §3.2.1: 3.8e25 FLOPs for 15.6T tokens = 2.44e12 per token,
     * counted as 6N (no attention scores); causal attention at 8K adds
     * about 4%, the embedding lookup none. */
    assert_near(m.flops_per_token, 3.8e25 / 15.6e12, 0.05);
    model_release(&m);
}

/* Stages cover every layer once, in order, embedding first, head last. */
static void test_model_partition_covers_layers(void **state)
{
    struct model m;
    struct model_partition p;
    struct diag d;
    long k, next = 0, total = 0;
    (void)state;
    diag_init(&d);
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_int_equal(model_partition(&m, 16, 1, 1, &p, &d), STATUS_OK);
    for (k = 0; k < p.chunks; k++) {
        assert_int_equal(p.chunk[k].first, next);
        assert_true(p.chunk[k].count >= 1);
        next += p.chunk[k].count;
        total += p.chunk[k].moe_layers;
    }
    assert_int_equal(next, 61);
    assert_int_equal(total, 58); /* 61 layers, the first 3 dense */
    assert_true(p.chunk[0].has_embedding);
    assert_true(p.chunk[15].has_head);
    model_partition_release(&p);
    /* 62 chunks for 61 layers cannot be made */
    assert_int_equal(model_partition(&m, 62, 1, 1, &p, &d), STATUS_RANGE);
    assert_string_equal(d.msg,
                        "cannot split 61 layers into 62 pipeline chunks");
    model_release(&m);
}

/* Balanced by FLOPs: 61 near-equal layers plus a head worth ~1.4 layers
 * over 16 stages cannot beat 4 layers in the largest stage. */
static void test_model_partition_balanced(void **state)
{
    struct model m;
    struct model_partition p;
    struct diag d;
    long k, most = 0;
    (void)state;
    diag_init(&d);
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_int_equal(model_partition(&m, 16, 1, 1, &p, &d), STATUS_OK);
    for (k = 0; k < p.chunks; k++)
        if (p.chunk[k].count > most)
            most = p.chunk[k].count;
    assert_int_equal(most, 4);
    model_partition_release(&p);
    model_release(&m);
}

/* Qwen3-235B-A22B's card (huggingface.co/Qwen/Qwen3-235B-A22B): "235B in
 * total and 22B activated", "Non-Embedding: 234B", each within half a unit
 * of its last digit. */
static void test_model_qwen3_235b_card(void **state)
{
    struct model m;
    (void)state;
    load(&m, "data/models/qwen3-235b-a22b.ini", NULL, 0);
    assert_near(m.params_total, 235e9, 0.5 / 235);
    assert_near(m.params_active, 22e9, 0.5 / 22);
    assert_near(m.params_total - m.params_embedding - m.params_head, 234e9,
                0.5 / 234);
    model_release(&m);
}

/* Kimi K2, by hand from the checkpoint's tensor shapes (tests/data/hf/
 * README.md): MLA 1536x7168 + 12288x1536 + 576x7168 + 16384x512 +
 * 7168x8192 + latent norms 2048 = 101,124,096 and two norms 14,336 per
 * layer; 61 layers; the dense FFN 3x7168x18432 = 396,361,728; 60 MoE
 * layers of 385 experts (384 routed + 1 shared) x 3x7168x2048 plus the
 * router 384x7168: 16,958,226,432 each; embedding and head 2x163840x7168;
 * final norm 7168. Total 1,026,408,209,408. The card says "1T" and "32B"
 * (the technical report, arXiv 2507.20534 Table 2: 1.04T, 32.6B); we count
 * 32.86B active with the embedding and the head. */
static void test_model_kimi_k2_card(void **state)
{
    struct model m;
    (void)state;
    load(&m, "data/models/kimi-k2.ini", NULL, 0);
    assert_near(m.params_total, 1026408209408.0, 1e-15);
    assert_near(m.params_total, 1e12, 0.5 / 10); /* "1T": 1 significant digit */
    assert_near(m.params_active, 32e9, 1.0 / 32); /* within 1B of "32B" */
    assert_near(m.params_active, 32.6e9, 0.01);
    model_release(&m);
}

/* Mistral's announcement (mistral.ai/news/mixtral-8x22b): "39B active
 * parameters out of 141B", within half a unit of the last digit. */
static void test_model_mixtral_8x22b_card(void **state)
{
    struct model m;
    (void)state;
    load(&m, "data/models/mixtral-8x22b.ini", NULL, 0);
    assert_near(m.params_total, 141e9, 0.5 / 141);
    assert_near(m.params_active, 39e9, 0.5 / 39);
    model_release(&m);
}

/* Llama 3.1 70B, by hand: per layer q and o 8192x8192, k and v 8192x1024,
 * MLP 3x8192x28672, two norms: 855,654,400; x 80 + final norm 8192 +
 * embedding and head 2x128256x8192 = 70,553,706,496. The card's "70B"
 * names the size; within 1%. */
static void test_model_llama31_70b_card(void **state)
{
    struct model m;
    (void)state;
    load(&m, "data/models/llama-3.1-70b.ini", NULL, 0);
    assert_near(m.params_total, 70553706496.0, 1e-15);
    assert_near(m.params_total, 70e9, 0.01);
    model_release(&m);
}

/* QK-norm adds two head_dim-wide norms per layer and saves its inputs, the
 * projected Q (64 heads x 128) and K (4 x 128), in BF16 for backward. */
static void test_model_qk_norm(void **state)
{
    struct model on, off;
    struct datafile_set s;
    (void)state;
    load(&on, "data/models/qwen3-235b-a22b.ini", NULL, 0);
    set(&s, "attention.qk_norm=false");
    load(&off, "data/models/qwen3-235b-a22b.ini", &s, 1);
    assert_near(on.params_total - off.params_total, 94.0 * 2 * 128, 1e-12);
    assert_near(
        on.layer[MODEL_LAYER_MOE].act_bytes[MODEL_BF16][MODEL_RECOMPUTE_NONE] -
            off.layer[MODEL_LAYER_MOE]
                .act_bytes[MODEL_BF16][MODEL_RECOMPUTE_NONE],
        2.0 * (64 * 128 + 4 * 128), 1e-12);
    model_release(&on);
    model_release(&off);
}

/* q/k/v biases: query 64x128 and key/value 2x8x128 per layer. */
static void test_model_qkv_bias(void **state)
{
    struct model on, off;
    struct datafile_set s;
    (void)state;
    load(&off, "data/models/llama-3.1-70b.ini", NULL, 0);
    set(&s, "attention.qkv_bias=true");
    load(&on, "data/models/llama-3.1-70b.ini", &s, 1);
    assert_near(on.params_total - off.params_total, 80.0 * (8192 + 2 * 1024),
                1e-12);
    model_release(&on);
    model_release(&off);
}

/* MLA has its own latent norms: QK-norm on MLA is refused, not guessed. */
static void test_model_qk_norm_not_on_mla(void **state)
{
    struct model m;
    struct datafile_set s;
    struct diag d;
    (void)state;
    diag_init(&d);
    set(&s, "attention.qk_norm=true");
    assert_int_equal(model_load("data/models/deepseek-v3.ini", &m, &s, 1, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg,
                        "data/models/deepseek-v3.ini: attention.qk_norm: "
                        "not modelled for type mla (MLA normalises its "
                        "latents)");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_deepseek_params),
        cmocka_unit_test(test_model_deepseek_layer_shapes),
        cmocka_unit_test(test_model_deepseek_flops),
        cmocka_unit_test(test_model_deepseek_flops_with_mtp),
        cmocka_unit_test(test_model_korthikanti_no_recompute),
        cmocka_unit_test(test_model_korthikanti_recompute),
        cmocka_unit_test(test_model_gpt3_params),
        cmocka_unit_test(test_model_llama3_params),
        cmocka_unit_test(test_model_partition_covers_layers),
        cmocka_unit_test(test_model_partition_balanced),
        cmocka_unit_test(test_model_qwen3_235b_card),
        cmocka_unit_test(test_model_kimi_k2_card),
        cmocka_unit_test(test_model_mixtral_8x22b_card),
        cmocka_unit_test(test_model_llama31_70b_card),
        cmocka_unit_test(test_model_qk_norm),
        cmocka_unit_test(test_model_qkv_bias),
        cmocka_unit_test(test_model_qk_norm_not_on_mla),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
