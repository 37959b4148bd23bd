/*
 * test_model: loading the model file — the checks across fields (each
 * naming its key and line), the kinds of its units, an INI file as its
 * own recipe. The schema and the recipe's share of it are
 * test_model_schema.c's; parameters and FLOPs are
 * test_model_derive.c's, saved activations test_model_inventory.c's,
 * pipeline chunks test_model_partition.c's, published totals
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

#define DEEPSEEK "tests/data/snap/models/deepseek-v3.ini"

static void assert_has_line(const char *msg, const char *line)
{
    if (!strstr(msg, line))
        fail_msg("message lacks \"%s\"; it was:\n%s", line, msg);
}

/* Rules across keys name the key and its line: tests/data/bad/
 * model-cross.ini has 3 GQA key/value heads for 8 heads (line 9) and
 * top_k 9 of 8 experts (line 14); a bad recompute module is a value
 * error of its own line (20), reported before the rules run. */
static void test_model_load_cross_field_checks(void **state)
{
    struct model m;
    struct diag d;
    struct datafile_set s;
    (void)state;
    diag_init(&d);
    assert_int_not_equal(
        model_load("tests/data/bad/model-cross.ini", &m, NULL, 0, &d),
        STATUS_OK);
    assert_has_line(d.msg,
                    "model-cross.ini:20: training.selective: expected "
                    "one of core_attn|mla_up_proj|mlp|moe|moe_act|"
                    "layernorm|shared_experts|alternate_mm, got \"bogus\"");
    diag_init(&d);
    util_set(&s, "training.selective=layernorm");
    assert_int_equal(
        model_load("tests/data/bad/model-cross.ini", &m, &s, 1, &d),
        STATUS_RANGE);
    assert_has_line(d.msg, "model-cross.ini:9: attention.kv_heads: must "
                           "divide attention.heads (8), got 3");
    assert_has_line(d.msg, "model-cross.ini:14: moe.top_k: expected "
                           "1..routed_experts (8), got 9");
}

/* MLA has its own latent norms: QK-norm on MLA is refused, not guessed. */
static void test_model_load_qk_norm_not_on_mla(void **state)
{
    struct model m;
    struct datafile_set s;
    struct diag d;
    (void)state;
    diag_init(&d);
    util_set(&s, "attention.qk_norm=true");
    assert_int_equal(model_load(DEEPSEEK, &m, &s, 1, &d), STATUS_RANGE);
    assert_string_equal(d.msg, DEEPSEEK ": --set attention.qk_norm=true: not "
                                        "modelled for type mla (MLA "
                                        "normalises its latents)");
}

/* DeepSeek-V3: 61 layers, the first 3 dense, then MoE, then one MTP
 * module: units 0-2 dense, 3-60 MoE, 61 MTP. A dense model's units are
 * all dense. */
static void test_model_unit_kind(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, DEEPSEEK, NULL, 0);
    assert_int_equal(m.units, 62);
    assert_int_equal(model_unit_kind(&m, 0), MODEL_LAYER_DENSE);
    assert_int_equal(model_unit_kind(&m, 2), MODEL_LAYER_DENSE);
    assert_int_equal(model_unit_kind(&m, 3), MODEL_LAYER_MOE);
    assert_int_equal(model_unit_kind(&m, 60), MODEL_LAYER_MOE);
    assert_int_equal(model_unit_kind(&m, 61), MODEL_LAYER_MTP);
    model_release(&m);
    util_model(&m, "tests/data/gpt-korthikanti.ini", NULL, 0);
    assert_int_equal(model_unit_kind(&m, 95), MODEL_LAYER_DENSE);
    model_release(&m);
}

/* The layer kinds' rows: DeepSeek-V3 has 3 dense layers, 58 MoE layers
 * and 1 MTP module, the units in that order; GPT-3 (Korthikanti's) 96
 * dense layers only. The Memory sheet names a kind by its words. */
static void test_model_layer_kind_rows(void **state)
{
    struct model m;
    long n = 0;
    int k;
    (void)state;
    util_model(&m, DEEPSEEK, NULL, 0);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_DENSE), 3);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_MOE), 58);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_MTP), 1);
    for (k = 0; k < MODEL_LAYER_KINDS; k++)
        n += model_layer_kind_count(&m, k);
    assert_int_equal(n, m.units);
    assert_true(m.layer[MODEL_LAYER_MOE].moe);
    assert_true(m.layer[MODEL_LAYER_MTP].mtp);
    assert_false(m.layer[MODEL_LAYER_MOE].mtp);
    assert_string_equal(model_layer_kind_name(&m, MODEL_LAYER_DENSE),
                        "dense layer");
    assert_string_equal(model_layer_kind_name(&m, MODEL_LAYER_MOE),
                        "MoE layer");
    assert_string_equal(model_layer_kind_name(&m, MODEL_LAYER_MTP),
                        "MTP module");
    model_release(&m);
    util_model(&m, "tests/data/gpt-korthikanti.ini", NULL, 0);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_DENSE), 96);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_MOE), 0);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_MTP), 0);
    model_release(&m);
}

/* An INI model file is its own recipe: model_load_with_training() reads
 * it as model_load() does, without a recipe path. */
static void test_model_load_with_training_ini(void **state)
{
    struct model a, b;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(model_load_with_training(DEEPSEEK, NULL, &a, NULL, 0, &d),
                     STATUS_OK);
    util_model(&b, DEEPSEEK, NULL, 0);
    assert_true(a.params_total == b.params_total);
    assert_true(a.flops_per_token == b.flops_per_token);
    assert_int_equal(a.spec.seq_len, 4096);
    model_release(&a);
    model_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_load_cross_field_checks),
        cmocka_unit_test(test_model_load_qk_norm_not_on_mla),
        cmocka_unit_test(test_model_unit_kind),
        cmocka_unit_test(test_model_layer_kind_rows),
        cmocka_unit_test(test_model_load_with_training_ini),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
