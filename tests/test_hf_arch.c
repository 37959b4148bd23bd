/*
 * test_hf_arch: each supported architecture's config.json keys — what
 * they become in the model's spec (with the file and key as source), the
 * published parameter counts of small configs worked by hand, and the
 * features an architecture's keys may ask for that roofplan does not
 * model (sliding windows, MoE layouts, lone biases), refused with the
 * file and the key. Read through hf_config_read() with the snapshot
 * recipe (tests/data/snap/training/default.ini).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hf_config.h"
#include "model.h"
#include "test_util.h"

#define RECIPE "tests/data/snap/training/default.ini"
#define HF     "tests/data/hf/"

static void
load(struct model *m, const char *path, struct datafile_set *sets, size_t n)
{
    struct diag d;
    diag_init(&d);
    if (model_load_with_training(path, RECIPE, m, sets, n, &d) != STATUS_OK)
        fail_msg("%s: %s", path, d.msg);
}

#define LLAMA_BASE                                                         \
    "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"vocab_size\": 100, " \
    "\"num_attention_heads\": 4, \"intermediate_size\": 128"

/* What each JSON key became, with the file and key as its source. */
static void test_hf_arch_read_deepseek_fields(void **state)
{
    struct model m;
    long fi;
    (void)state;
    load(&m, HF "deepseek-v3.config.json", NULL, 0);
    assert_string_equal(m.spec.name, "deepseek-v3");
    assert_int_equal(m.spec.layers, 61);
    assert_int_equal(m.spec.attention, MODEL_MLA);
    assert_int_equal(m.spec.q_lora_rank, 1536);
    assert_int_equal(m.spec.routed_experts, 256);
    assert_int_equal(m.spec.shared_experts, 1);
    assert_int_equal(m.spec.first_dense_layers, 3);
    assert_int_equal(m.spec.node_limit, 4); /* topk_group 4 of n_group 8 */
    assert_int_equal(m.spec.mtp_depth, 1);
    assert_false(m.spec.mtp_count_in_mfu); /* the recipe's */
    fi = datafile_field_index(model_schema(), "model", "layers");
    assert_string_equal(datafile_meta_source(&m.meta, (size_t)fi),
                        HF "deepseek-v3.config.json: num_hidden_layers");
    /* A recipe value: the recipe file and line (seq_len is on line 14). */
    fi = datafile_field_index(model_schema(), "training", "seq_len");
    assert_string_equal(datafile_meta_source(&m.meta, (size_t)fi),
                        RECIPE ":14: arXiv 2412.19437 §4.2 (DeepSeek-V3 "
                               "pre-training hyper-parameters)");
    model_release(&m);
}

/* Qwen2.5-7B's card: "Number of Parameters: 7.61B; Number of Parameters
 * (Non-Embedding): 6.53B". By hand: per layer q 3584x3584 + k, v 3584x512
 * + o 3584x3584 = 29,360,128, q/k/v biases 3584 + 512 + 512 = 4,608, MLP
 * 3 x 3584 x 18944 = 203,685,888, two norms 7,168: 233,057,792; x 28 =
 * 6,525,618,176 + final norm 3,584; embedding and head 2 x 152064 x 3584 =
 * 1,089,994,752. Total 7,615,616,512. */
static void test_hf_arch_qwen2_qkv_bias(void **state)
{
    struct model m;
    (void)state;
    load(&m, HF "qwen2.5-7b.config.json", NULL, 0);
    assert_true(m.spec.qkv_bias);
    assert_false(m.spec.linear_bias);
    assert_near(m.params_total, 7615616512.0, 1e-15);
    assert_near(m.params_total - m.params_embedding - m.params_head, 6.53e9,
                0.001);
    model_release(&m);
}

/* Qwen3-8B's card: "Number of Parameters: 8.2B; Non-Embedding: 6.95B".
 * Per layer: q 4096x4096 + k, v 4096x1024 + o 4096x4096 = 41,943,040,
 * q_norm and k_norm 2 x 128, MLP 3 x 4096 x 12288 = 150,994,944, norms
 * 8,192: 192,946,432; x 36 = 6,946,071,552 + 4,096; plus 2 x 151936 x
 * 4096 = 1,244,659,712. Total 8,190,735,360. */
static void test_hf_arch_qwen3_qk_norm(void **state)
{
    struct model m;
    (void)state;
    load(&m, HF "qwen3-8b.config.json", NULL, 0);
    assert_true(m.spec.qk_norm);
    assert_int_equal(m.spec.head_dim, 128);
    assert_near(m.params_total, 8190735360.0, 1e-15);
    assert_near(m.params_total - m.params_embedding - m.params_head, 6.95e9,
                0.001);
    model_release(&m);
}

static void test_hf_arch_unknown_architecture(void **state)
{
    struct diag d;
    char t[64];
    (void)state;
    assert_int_equal(
        util_model_text("{\"architectures\": [\"GPT2LMHeadModel\"], " LLAMA_BASE
                        "}",
                        RECIPE, t, sizeof t, &d),
        STATUS_PARSE);
    util_expect_msg(
        &d, t,
        ": key 'architectures': \"GPT2LMHeadModel\" is not supported "
        "(supported: " HF_CONFIG_SUPPORTED ")");
}

static void test_hf_arch_sliding_window(void **state)
{
    struct diag d;
    char t[64];
    (void)state;
    assert_int_equal(
        util_model_text("{\"architectures\": [\"Qwen2ForCausalLM\"], "
                        "\"use_sliding_window\": true, "
                        "\"sliding_window\": 4096, " LLAMA_BASE "}",
                        RECIPE, t, sizeof t, &d),
        STATUS_RANGE);
    util_expect_msg(
        &d, t,
        ": key 'use_sliding_window': true: sliding-window attention "
        "is not modelled (only full causal attention)");
    assert_int_equal(
        util_model_text("{\"architectures\": [\"MixtralForCausalLM\"], "
                        "\"sliding_window\": 4096, "
                        "\"num_local_experts\": 8, "
                        "\"num_experts_per_tok\": 2, " LLAMA_BASE "}",
                        RECIPE, t, sizeof t, &d),
        STATUS_RANGE);
    util_expect_msg(&d, t,
                    ": key 'sliding_window': 4096: sliding-window attention is "
                    "not modelled (only null, full causal attention)");
    assert_int_equal(
        util_model_text("{\"model_type\": \"qwen3\", \"layer_types\": "
                        "[\"full_attention\", \"sliding_attention\"], "
                        "" LLAMA_BASE "}",
                        RECIPE, t, sizeof t, &d),
        STATUS_RANGE);
    util_expect_msg(
        &d, t,
        ": key 'layer_types': layer 1 is \"sliding_attention\": only "
        "\"full_attention\" layers are modelled (no sliding-window or "
        "linear attention)");
}

static void test_hf_arch_missing_key(void **state)
{
    struct diag d;
    char t[64];
    (void)state;
    assert_int_equal(
        util_model_text("{\"architectures\": [\"LlamaForCausalLM\"], "
                        "\"num_hidden_layers\": 2, \"vocab_size\": 100, "
                        "\"num_attention_heads\": 4, "
                        "\"intermediate_size\": 128}",
                        RECIPE, t, sizeof t, &d),
        STATUS_PARSE);
    util_expect_msg(
        &d, t,
        ": key 'hidden_size': missing (required for LlamaForCausalLM; "
        "an integer in 1..1000000)");
}

static void test_hf_arch_wrong_values(void **state)
{
    struct diag d;
    char t[64];
    (void)state;
    assert_int_equal(
        util_model_text("{\"model_type\": \"llama\", \"hidden_size\": "
                        "64.5, \"num_hidden_layers\": 2, "
                        "\"vocab_size\": 100, \"num_attention_heads\": "
                        "4, \"intermediate_size\": 128}",
                        RECIPE, t, sizeof t, &d),
        STATUS_RANGE);
    util_expect_msg(
        &d, t,
        ": key 'hidden_size': expected an integer in 1..1000000, got "
        "64.5");
    assert_int_equal(
        util_model_text("{\"model_type\": \"llama\", \"hidden_act\": "
                        "\"gelu\", " LLAMA_BASE "}",
                        RECIPE, t, sizeof t, &d),
        STATUS_RANGE);
    util_expect_msg(
        &d, t,
        ": key 'hidden_act': \"gelu\" is not modelled (only \"silu\": "
        "the SwiGLU MLP)");
    assert_int_equal(util_model_text("{\"model_type\": \"llama\", "
                                     "\"num_key_value_heads\": 3, " LLAMA_BASE
                                     "}",
                                     RECIPE, t, sizeof t, &d),
                     STATUS_RANGE);
    util_expect_msg(
        &d, t,
        ": key 'num_key_value_heads': must divide num_attention_heads "
        "(4), got 3");
    assert_int_equal(util_model_text("{\"model_type\": \"qwen3\", "
                                     "\"attention_bias\": true, " LLAMA_BASE
                                     "}",
                                     RECIPE, t, sizeof t, &d),
                     STATUS_RANGE);
    util_expect_msg(
        &d, t,
        ": key 'attention_bias': true without MLP biases: biases on "
        "the attention projections alone are not modelled");
    /* Text quoted from the file cannot break the message's line: the
     * newline shows as \x0A, as the data files' messages show it. */
    assert_int_equal(util_model_text("{\"architectures\": [\"A\\nB\"]}", RECIPE,
                                     t, sizeof t, &d),
                     STATUS_PARSE);
    util_expect_msg(
        &d, t,
        ": key 'architectures': \"A\\x0AB\" is not supported (supported: "
        "" HF_CONFIG_SUPPORTED ")");
}

/* MoE layouts the model cannot express are refused, not approximated. */
static void test_hf_arch_moe_layouts(void **state)
{
    struct diag d;
    char t[64];
    (void)state;
    assert_int_equal(
        util_model_text("{\"model_type\": \"qwen3_moe\", "
                        "\"num_experts\": 8, \"num_experts_per_tok\": "
                        "2, \"moe_intermediate_size\": 32, "
                        "\"decoder_sparse_step\": 2, " LLAMA_BASE "}",
                        RECIPE, t, sizeof t, &d),
        STATUS_RANGE);
    util_expect_msg(
        &d, t,
        ": key 'decoder_sparse_step': 2 (MoE on every 2th layer) is "
        "not modelled; only 1 (every layer MoE, but for leading dense "
        "layers)");
    assert_int_equal(
        util_model_text("{\"model_type\": \"qwen3_moe\", "
                        "\"num_experts\": 8, \"num_experts_per_tok\": "
                        "2, \"moe_intermediate_size\": 32, "
                        "\"mlp_only_layers\": [1], " LLAMA_BASE "}",
                        RECIPE, t, sizeof t, &d),
        STATUS_RANGE);
    util_expect_msg(&d, t,
                    ": key 'mlp_only_layers': entry 0 is 1: only leading dense "
                    "layers (0, 1, ..., k-1) are modelled");
    /* A leading run is first_dense_layers. */
    assert_int_equal(
        util_model_text("{\"model_type\": \"qwen3_moe\", "
                        "\"num_experts\": 8, \"num_experts_per_tok\": "
                        "2, \"moe_intermediate_size\": 32, "
                        "\"mlp_only_layers\": [0], " LLAMA_BASE "}",
                        RECIPE, t, sizeof t, &d),
        STATUS_OK);
    assert_int_equal(util_model_text("{\"model_type\": \"mixtral\", "
                                     "\"num_local_experts\": 8, "
                                     "\"num_experts_per_tok\": 9, " LLAMA_BASE
                                     "}",
                                     RECIPE, t, sizeof t, &d),
                     STATUS_RANGE);
    util_expect_msg(
        &d, t,
        ": key 'num_experts_per_tok': expected at most the 8 experts, "
        "got 9");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hf_arch_read_deepseek_fields),
        cmocka_unit_test(test_hf_arch_qwen2_qkv_bias),
        cmocka_unit_test(test_hf_arch_qwen3_qk_norm),
        cmocka_unit_test(test_hf_arch_unknown_architecture),
        cmocka_unit_test(test_hf_arch_sliding_window),
        cmocka_unit_test(test_hf_arch_missing_key),
        cmocka_unit_test(test_hf_arch_wrong_values),
        cmocka_unit_test(test_hf_arch_moe_layouts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
