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
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
