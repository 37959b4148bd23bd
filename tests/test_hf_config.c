/*
 * test_hf_config: Hugging Face config.json files as models. A published
 * config and our INI file for the same model must give the same
 * parameters, FLOPs and memory; published parameter counts are checked
 * against the model cards; bad and unsupported configs name file and key.
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

/* The text of model_schema() field i's value in spec, as an INI file would
 * give it (for --set). */
static void
value_text(const struct model_spec *spec, size_t i, char *buf, size_t size)
{
    const struct datafile_field *f = &model_schema()->fields[i];
    const char *at = (const char *)spec + f->offset;
    size_t k, used = 0;
    switch (f->type) {
    case DATAFILE_INT:
        snprintf(buf, size, "%ld", *(const long *)(const void *)at);
        break;
    case DATAFILE_DOUBLE:
        snprintf(buf, size, "%.17g", *(const double *)(const void *)at);
        break;
    case DATAFILE_BOOL:
        snprintf(buf, size, "%s",
                 *(const bool *)(const void *)at ? "true" : "false");
        break;
    case DATAFILE_LIST: {
        const struct datafile_list *l = (const void *)at;
        buf[0] = '\0';
        for (k = 0; k < l->n && used < size; k++) {
            /* a choice list: the index's name in "a|b|c" */
            const char *c = f->choices;
            int idx = (int)l->v[k], j;
            for (j = 0; j < idx; j++)
                c = strchr(c, '|') + 1;
            used += (size_t)snprintf(buf + used, size - used, "%s%.*s",
                                     k ? " " : "", (int)strcspn(c, "|"), c);
        }
        break;
    }
    default:
        fail_msg("field %s.%s: no text for its type", f->section, f->key);
    }
}

/*
 * --set arguments giving every training-recipe value of the INI model m,
 * so that a config.json loaded with them has m's recipe exactly.
 */
static size_t recipe_of(const struct model *m, struct datafile_set *sets)
{
    size_t i, n = 0;
    for (i = 0; i < model_schema()->n; i++) {
        char value[DATAFILE_TEXT_MAX], arg[DATAFILE_TEXT_MAX + 130];
        struct diag d;
        if (!model_field_is_training(i))
            continue;
        value_text(&m->spec, i, value, sizeof value);
        snprintf(arg, sizeof arg, "%s.%s=%s", model_schema()->fields[i].section,
                 model_schema()->fields[i].key, value);
        diag_init(&d);
        if (datafile_parse_set(arg, &sets[n++], &d) != STATUS_OK)
            fail_msg("%s", d.msg);
    }
    return n;
}

/* Step time and memory of one plan on the H800 cluster file. */
static void
evaluate(const struct model *m, const char *plan_text, struct cost_result *r)
{
    struct hardware hw;
    struct plan p;
    struct cost_ctx ctx;
    struct diag d;
    diag_init(&d);
    if (hardware_load("tests/data/snap/hardware/h800.ini", &hw, NULL, 0, &d) !=
        STATUS_OK)
        fail_msg("%s", d.msg);
    util_plan(m, &hw, plan_text, &p);
    util_ctx(&ctx, m, &hw, COMM_TOPO, &p);
    cost_evaluate(&ctx, &p, r, NULL, 0, NULL);
    cost_ctx_release(&ctx);
    hardware_release(&hw);
}

/*
 * The config.json and our INI for the same model, under the INI's own
 * training recipe: equal parameters, FLOPs, memory and step time.
 */
static void same_model(const char *json, const char *ini, const char *plan)
{
    struct model a, b;
    struct datafile_set sets[64];
    struct cost_result ra, rb;
    size_t n;
    load(&b, ini, NULL, 0);
    n = recipe_of(&b, sets);
    load(&a, json, sets, n);
    assert_near(a.params_total, b.params_total, 1e-12);
    assert_near(a.params_active, b.params_active, 1e-12);
    assert_near(a.params_mtp + 1, b.params_mtp + 1, 1e-12);
    assert_near(a.flops_per_token, b.flops_per_token, 1e-12);
    evaluate(&a, plan, &ra);
    evaluate(&b, plan, &rb);
    assert_near(ra.mem.total, rb.mem.total, 1e-12);
    assert_near(ra.mem.activations, rb.mem.activations, 1e-12);
    assert_near(ra.t.step, rb.t.step, 1e-12);
    model_release(&a);
    model_release(&b);
}

/* The acceptance check: DeepSeek-V3 as published, with the default
 * recipe (DeepSeek's own), is the INI file (the snapshot of
 * data/models/deepseek-v3.ini). */
static void test_hf_config_deepseek_v3_is_the_ini(void **state)
{
    const char *plan = "gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe "
                       "precision=fp8 recompute=selective mbs=1 gbs=15360";
    struct model a, b;
    struct cost_result ra, rb;
    (void)state;
    same_model(HF "deepseek-v3.config.json",
               "tests/data/snap/models/deepseek-v3.ini", plan);
    /* The default recipe is DeepSeek-V3's: no --set needed. */
    load(&a, HF "deepseek-v3.config.json", NULL, 0);
    load(&b, "tests/data/snap/models/deepseek-v3.ini", NULL, 0);
    evaluate(&a, plan, &ra);
    evaluate(&b, plan, &rb);
    assert_near(ra.mem.total, rb.mem.total, 1e-12);
    assert_near(ra.t.step, rb.t.step, 1e-12);
    assert_near(a.flops_per_token, b.flops_per_token, 1e-12);
    model_release(&a);
    model_release(&b);
}

/* Llama 3.1 405B's config.json and llama-3-405b.ini (Llama 3 paper Table
 * 3): the same architecture (126 layers, 16384, 128/8 heads, FFN 53248). */
static void test_hf_config_llama_405b_is_the_ini(void **state)
{
    (void)state;
    same_model(HF "llama-3.1-405b.config.json",
               "tests/data/snap/models/llama-3-405b.ini",
               "gpus=2048 tp=8 pp=16 gbs=2048 recompute=selective");
}

static void test_hf_config_kimi_k2_is_the_ini(void **state)
{
    (void)state;
    same_model(HF "kimi-k2-instruct.config.json",
               "tests/data/snap/models/kimi-k2.ini",
               "gpus=2048 pp=16 ep=64 zero=1 gbs=16384 precision=fp8 "
               "recompute=selective");
}

static void test_hf_config_qwen3_235b_is_the_ini(void **state)
{
    (void)state;
    same_model(HF "qwen3-235b-a22b-instruct-2507.config.json",
               "tests/data/snap/models/qwen3-235b-a22b.ini",
               "gpus=2048 pp=8 ep=32 zero=1 gbs=2048 recompute=selective");
}

/* DeepSeek-R1-Distill-Llama-70B's config.json stands in for Llama 3.1
 * 70B's (tests/data/hf/README.md): the same architecture keys. */
static void test_hf_config_llama_70b_is_the_ini(void **state)
{
    (void)state;
    same_model(HF "deepseek-r1-distill-llama-70b.config.json",
               "tests/data/snap/models/llama-3.1-70b.ini",
               "gpus=2048 tp=8 pp=4 gbs=2048");
}

/* Not a published file (tests/data/hf/README.md): the MixtralForCausalLM
 * reader against mixtral-8x22b.ini. */
static void test_hf_config_mixtral_is_the_ini(void **state)
{
    (void)state;
    same_model(HF "synthetic/mixtral-8x22b.json",
               "tests/data/snap/models/mixtral-8x22b.ini",
               "gpus=2048 tp=8 ep=8 gbs=2048");
}

/* What each JSON key became, with the file and key as its source. */
static void test_hf_config_read_deepseek_fields(void **state)
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
static void test_hf_config_qwen2_qkv_bias(void **state)
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
static void test_hf_config_qwen3_qk_norm(void **state)
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

/* A config.json takes --set for its recipe, never for its architecture. */
static void test_hf_config_set_reaches_recipe_only(void **state)
{
    struct model m;
    struct datafile_set s[2];
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(datafile_parse_set("training.seq_len=8192", &s[0], &d),
                     STATUS_OK);
    load(&m, HF "qwen3-8b.config.json", s, 1);
    assert_int_equal(m.spec.seq_len, 8192);
    model_release(&m);
    assert_int_equal(datafile_parse_set("attention.heads=16", &s[1], &d),
                     STATUS_OK);
    assert_int_equal(model_load_with_training(HF "qwen3-8b.config.json", RECIPE,
                                              &m, &s[1], 1, &d),
                     STATUS_USAGE);
    assert_string_equal(
        d.msg, "--set attention.heads=16: the architecture comes from "
               "tests/data/hf/qwen3-8b.config.json (a Hugging Face "
               "config.json): edit the file; --set reaches the training "
               "recipe (training.*, fp8.*, model.dropout, "
               "model.flash_attention, mtp.count_in_mfu)");
}

/* The recipe's mtp.count_in_mfu counts the model's MTP modules in MFU's
 * FLOPs per token, if it has any. */
static void test_hf_config_mtp_only_where_present(void **state)
{
    struct model m;
    struct datafile_set s;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(datafile_parse_set("mtp.count_in_mfu=true", &s, &d),
                     STATUS_OK);
    load(&m, HF "kimi-k2-instruct.config.json", &s, 1);
    assert_int_equal(m.spec.mtp_depth, 0); /* num_nextn_predict_layers 0 */
    assert_true(m.flops_per_token == m.flops_per_token_main);
    model_release(&m);
    load(&m, HF "deepseek-v3.config.json", &s, 1);
    assert_int_equal(m.spec.mtp_depth, 1);
    /* With MTP: 260.6 GFLOPs/token (test_model.c, shared/facts §3). */
    assert_near(m.flops_per_token, 260.6e9, 0.02);
    model_release(&m);
}

static void test_hf_config_needs_a_recipe(void **state)
{
    struct model m;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(model_load(HF "qwen3-8b.config.json", &m, NULL, 0, &d),
                     STATUS_USAGE);
    assert_string_equal(d.msg,
                        "tests/data/hf/qwen3-8b.config.json: a Hugging Face "
                        "config.json needs a training recipe for what it "
                        "does not say (-t FILE, e.g. "
                        "data/training/default.ini)");
}

static void test_hf_config_recipe_checked_alone(void **state)
{
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(model_check_training(RECIPE, NULL, 0, &d), STATUS_OK);
    /* A model file is not a recipe: its architecture sections are unknown. */
    assert_int_equal(
        model_check_training("tests/data/tiny-moe.ini", NULL, 0, &d),
        STATUS_PARSE);
    assert_non_null(strstr(d.msg, "unknown section in a training recipe file "
                                  "(accepted: [model] [mtp] [training] "
                                  "[fp8])"));
}

/* ---- Bad and unsupported configs: file and key named ---- */

struct tmp {
    char path[64];
};

/* Writes text to a fresh temporary file. */
static void write_tmp(struct tmp *t, const char *text)
{
    int fd;
    FILE *f;
    snprintf(t->path, sizeof t->path, "/tmp/roofplan-hf-XXXXXX");
    fd = mkstemp(t->path);
    assert_true(fd >= 0);
    f = fdopen(fd, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
}

/* Loads text as a config.json; returns the status, message in d. */
static enum status try_json(const char *text, struct diag *d, struct tmp *t)
{
    struct model m;
    enum status st;
    write_tmp(t, text);
    diag_init(d);
    st = model_load_with_training(t->path, RECIPE, &m, NULL, 0, d);
    if (st == STATUS_OK)
        model_release(&m);
    unlink(t->path);
    return st;
}

/* "PATH: rest" with the temporary file's path. */
static void
expect_msg(const struct diag *d, const struct tmp *t, const char *rest)
{
    char want[DIAG_MSG_MAX];
    snprintf(want, sizeof want, "%s%s", t->path, rest);
    assert_string_equal(d->msg, want);
}

#define LLAMA_BASE                                                         \
    "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"vocab_size\": 100, " \
    "\"num_attention_heads\": 4, \"intermediate_size\": 128"

static void test_hf_config_unknown_architecture(void **state)
{
    struct diag d;
    struct tmp t;
    (void)state;
    assert_int_equal(
        try_json("{\"architectures\": [\"GPT2LMHeadModel\"], " LLAMA_BASE "}",
                 &d, &t),
        STATUS_PARSE);
    expect_msg(&d, &t,
               ": key 'architectures': \"GPT2LMHeadModel\" is not supported "
               "(supported: " HF_CONFIG_SUPPORTED ")");
}

static void test_hf_config_sliding_window(void **state)
{
    struct diag d;
    struct tmp t;
    (void)state;
    assert_int_equal(try_json("{\"architectures\": [\"Qwen2ForCausalLM\"], "
                              "\"use_sliding_window\": true, "
                              "\"sliding_window\": 4096, " LLAMA_BASE "}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'use_sliding_window': true: sliding-window attention "
               "is not modelled (only full causal attention)");
    assert_int_equal(try_json("{\"architectures\": [\"MixtralForCausalLM\"], "
                              "\"sliding_window\": 4096, "
                              "\"num_local_experts\": 8, "
                              "\"num_experts_per_tok\": 2, " LLAMA_BASE "}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'sliding_window': 4096: sliding-window attention is "
               "not modelled (only null, full causal attention)");
    assert_int_equal(try_json("{\"model_type\": \"qwen3\", \"layer_types\": "
                              "[\"full_attention\", \"sliding_attention\"], "
                              "" LLAMA_BASE "}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'layer_types': layer 1 is \"sliding_attention\": only "
               "\"full_attention\" layers are modelled (no sliding-window or "
               "linear attention)");
}

/* The line of a syntax error: the missing comma ends line 3. */
static void test_hf_config_syntax_error_line(void **state)
{
    struct diag d;
    struct tmp t;
    (void)state;
    assert_int_equal(try_json("{\n  \"architectures\": [\"LlamaForCausalLM\"],"
                              "\n  \"hidden_size\": 64\n  \"vocab_size\": 1\n}"
                              "\n",
                              &d, &t),
                     STATUS_PARSE);
    expect_msg(&d, &t, ":4: invalid JSON at column 3: \"\"vocab_size\": 1\"");
    assert_int_equal(try_json("{\"architectures\": [", &d, &t), STATUS_PARSE);
    expect_msg(&d, &t, ":1: invalid JSON: unexpected end of file (column 20)");
    assert_int_equal(try_json("{}\n{}\n", &d, &t), STATUS_PARSE);
    expect_msg(&d, &t, ":2: invalid JSON at column 1: \"{}\"");
}

static void test_hf_config_missing_key(void **state)
{
    struct diag d;
    struct tmp t;
    (void)state;
    assert_int_equal(try_json("{\"architectures\": [\"LlamaForCausalLM\"], "
                              "\"num_hidden_layers\": 2, \"vocab_size\": 100, "
                              "\"num_attention_heads\": 4, "
                              "\"intermediate_size\": 128}",
                              &d, &t),
                     STATUS_PARSE);
    expect_msg(&d, &t,
               ": key 'hidden_size': missing (required for LlamaForCausalLM; "
               "an integer in 1..1000000)");
}

/* A key the reader does not know may change the model: refused. */
static void test_hf_config_unknown_key(void **state)
{
    struct diag d;
    struct tmp t;
    (void)state;
    assert_int_equal(
        try_json("{\"architectures\": [\"LlamaForCausalLM\"], " LLAMA_BASE
                 ", \"linear_attn_config\": {\"kda_layers\": [1]}}",
                 &d, &t),
        STATUS_PARSE);
    expect_msg(&d, &t,
               ": key 'linear_attn_config': not understood for "
               "LlamaForCausalLM (it may describe a feature roofplan does not "
               "model; supported: " HF_CONFIG_SUPPORTED ")");
}

static void test_hf_config_wrong_values(void **state)
{
    struct diag d;
    struct tmp t;
    (void)state;
    assert_int_equal(try_json("{\"model_type\": \"llama\", \"hidden_size\": "
                              "64.5, \"num_hidden_layers\": 2, "
                              "\"vocab_size\": 100, \"num_attention_heads\": "
                              "4, \"intermediate_size\": 128}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'hidden_size': expected an integer in 1..1000000, got "
               "64.5");
    assert_int_equal(try_json("{\"model_type\": \"llama\", \"hidden_act\": "
                              "\"gelu\", " LLAMA_BASE "}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'hidden_act': \"gelu\" is not modelled (only \"silu\": "
               "the SwiGLU MLP)");
    assert_int_equal(try_json("{\"model_type\": \"llama\", "
                              "\"num_key_value_heads\": 3, " LLAMA_BASE "}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'num_key_value_heads': must divide num_attention_heads "
               "(4), got 3");
    assert_int_equal(try_json("{\"model_type\": \"qwen3\", "
                              "\"attention_bias\": true, " LLAMA_BASE "}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'attention_bias': true without MLP biases: biases on "
               "the attention projections alone are not modelled");
    assert_int_equal(try_json("{\"model_type\": \"llama\", \"hidden_size\": "
                              "1, \"hidden_size\": 2}",
                              &d, &t),
                     STATUS_PARSE);
    assert_non_null(strstr(d.msg, ": key 'hidden_size': given twice"));
    /* Text quoted from the file cannot break the message's line. */
    assert_int_equal(try_json("{\"architectures\": [\"A\\nB\"]}", &d, &t),
                     STATUS_PARSE);
    expect_msg(&d, &t,
               ": key 'architectures': \"A?B\" is not supported (supported: "
               "" HF_CONFIG_SUPPORTED ")");
}

/* MoE layouts the model cannot express are refused, not approximated. */
static void test_hf_config_moe_layouts(void **state)
{
    struct diag d;
    struct tmp t;
    (void)state;
    assert_int_equal(try_json("{\"model_type\": \"qwen3_moe\", "
                              "\"num_experts\": 8, \"num_experts_per_tok\": "
                              "2, \"moe_intermediate_size\": 32, "
                              "\"decoder_sparse_step\": 2, " LLAMA_BASE "}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'decoder_sparse_step': 2 (MoE on every 2th layer) is "
               "not modelled; only 1 (every layer MoE, but for leading dense "
               "layers)");
    assert_int_equal(try_json("{\"model_type\": \"qwen3_moe\", "
                              "\"num_experts\": 8, \"num_experts_per_tok\": "
                              "2, \"moe_intermediate_size\": 32, "
                              "\"mlp_only_layers\": [1], " LLAMA_BASE "}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'mlp_only_layers': entry 0 is 1: only leading dense "
               "layers (0, 1, ..., k-1) are modelled");
    /* A leading run is first_dense_layers. */
    assert_int_equal(try_json("{\"model_type\": \"qwen3_moe\", "
                              "\"num_experts\": 8, \"num_experts_per_tok\": "
                              "2, \"moe_intermediate_size\": 32, "
                              "\"mlp_only_layers\": [0], " LLAMA_BASE "}",
                              &d, &t),
                     STATUS_OK);
    assert_int_equal(try_json("{\"model_type\": \"mixtral\", "
                              "\"num_local_experts\": 8, "
                              "\"num_experts_per_tok\": 9, " LLAMA_BASE "}",
                              &d, &t),
                     STATUS_RANGE);
    expect_msg(&d, &t,
               ": key 'num_experts_per_tok': expected at most the 8 experts, "
               "got 9");
}

static void test_hf_config_is_json(void **state)
{
    (void)state;
    assert_true(hf_config_is_json(HF "qwen3-8b.config.json"));
    assert_false(hf_config_is_json("tests/data/snap/models/deepseek-v3.ini"));
    assert_false(hf_config_is_json("tests/data/no-such.json"));
    assert_false(hf_config_is_json("tests/data"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hf_config_deepseek_v3_is_the_ini),
        cmocka_unit_test(test_hf_config_llama_405b_is_the_ini),
        cmocka_unit_test(test_hf_config_kimi_k2_is_the_ini),
        cmocka_unit_test(test_hf_config_qwen3_235b_is_the_ini),
        cmocka_unit_test(test_hf_config_llama_70b_is_the_ini),
        cmocka_unit_test(test_hf_config_mixtral_is_the_ini),
        cmocka_unit_test(test_hf_config_read_deepseek_fields),
        cmocka_unit_test(test_hf_config_qwen2_qkv_bias),
        cmocka_unit_test(test_hf_config_qwen3_qk_norm),
        cmocka_unit_test(test_hf_config_set_reaches_recipe_only),
        cmocka_unit_test(test_hf_config_mtp_only_where_present),
        cmocka_unit_test(test_hf_config_needs_a_recipe),
        cmocka_unit_test(test_hf_config_recipe_checked_alone),
        cmocka_unit_test(test_hf_config_unknown_architecture),
        cmocka_unit_test(test_hf_config_sliding_window),
        cmocka_unit_test(test_hf_config_syntax_error_line),
        cmocka_unit_test(test_hf_config_missing_key),
        cmocka_unit_test(test_hf_config_unknown_key),
        cmocka_unit_test(test_hf_config_wrong_values),
        cmocka_unit_test(test_hf_config_moe_layouts),
        cmocka_unit_test(test_hf_config_is_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
