/*
 * test_hf_config: Hugging Face config.json files as models. A published
 * config and our INI file for the same model (its snapshot in
 * tests/data/snap/) must give the same parameters, FLOPs, memory and
 * step time; the training recipe fills what a config does not say; the
 * file itself is checked (JSON syntax with its line, each key once and
 * understood). Each architecture's keys are test_hf_arch.c's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "datafile_text.h"
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
        for (k = 0; k < l->n && used < size; k++)
            /* a word list: the index's word */
            used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                     k ? " " : "", f->word((int)l->v[k]));
        break;
    }
    case DATAFILE_ENUM: /* the index's word */
        snprintf(buf, size, "%s", f->word(*(const int *)(const void *)at));
        break;
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
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, r);
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

#define LLAMA_BASE                                                         \
    "\"hidden_size\": 64, \"num_hidden_layers\": 2, \"vocab_size\": 100, " \
    "\"num_attention_heads\": 4, \"intermediate_size\": 128"

/* The line of a syntax error: the missing comma ends line 3. */
static void test_hf_config_syntax_error_line(void **state)
{
    struct diag d;
    char t[64];
    (void)state;
    assert_int_equal(
        util_model_text("{\n  \"architectures\": [\"LlamaForCausalLM\"],"
                        "\n  \"hidden_size\": 64\n  \"vocab_size\": 1\n}"
                        "\n",
                        RECIPE, t, sizeof t, &d),
        STATUS_PARSE);
    util_expect_msg(&d, t,
                    ":4: invalid JSON at column 3: \"\"vocab_size\": 1\"");
    assert_int_equal(
        util_model_text("{\"architectures\": [", RECIPE, t, sizeof t, &d),
        STATUS_PARSE);
    util_expect_msg(&d, t,
                    ":1: invalid JSON: unexpected end of file (column 20)");
    assert_int_equal(util_model_text("{}\n{}\n", RECIPE, t, sizeof t, &d),
                     STATUS_PARSE);
    util_expect_msg(&d, t, ":2: invalid JSON at column 1: \"{}\"");
}

/* A key the reader does not know may change the model: refused. */
static void test_hf_config_unknown_key(void **state)
{
    struct diag d;
    char t[64];
    (void)state;
    assert_int_equal(
        util_model_text(
            "{\"architectures\": [\"LlamaForCausalLM\"], " LLAMA_BASE
            ", \"linear_attn_config\": {\"kda_layers\": [1]}}",
            RECIPE, t, sizeof t, &d),
        STATUS_PARSE);
    util_expect_msg(
        &d, t,
        ": key 'linear_attn_config': not understood for "
        "LlamaForCausalLM (it may describe a feature roofplan does not "
        "model; supported: " HF_CONFIG_SUPPORTED ")");
}

/* Each top-level key once: a second one is refused before any is read. */
static void test_hf_config_key_given_twice(void **state)
{
    struct diag d;
    char t[64];
    (void)state;
    assert_int_equal(
        util_model_text("{\"model_type\": \"llama\", \"hidden_size\": "
                        "1, \"hidden_size\": 2}",
                        RECIPE, t, sizeof t, &d),
        STATUS_PARSE);
    assert_non_null(strstr(d.msg, ": key 'hidden_size': given twice"));
}

/*
 * A config.json names its model by its folder; in a folder with a long
 * non-ASCII name, the name is cut to its 127 bytes of room at a character
 * boundary: 100 x "\xD0\xB4" (Cyrillic de, 2 bytes) leaves 63 whole
 * characters (126 bytes), not 63 and a half.
 */
static void test_hf_config_long_name_cut_at_a_character(void **state)
{
    char dir[64] = "/tmp/roofplan-test-XXXXXX", sub[512], path[600];
    char want[128], why[80];
    const char *text =
        "{\"architectures\": [\"LlamaForCausalLM\"], " LLAMA_BASE "}\n";
    size_t i, n, column;
    struct model m;
    struct diag d;
    FILE *f;
    (void)state;
    assert_non_null(mkdtemp(dir));
    n = (size_t)snprintf(sub, sizeof sub, "%s/", dir);
    for (i = 0; i < 100; i++, n += 2)
        memcpy(sub + n, "\xD0\xB4", 2);
    sub[n] = '\0';
    assert_int_equal(mkdir(sub, 0700), 0);
    snprintf(path, sizeof path, "%s/config.json", sub);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    diag_init(&d);
    assert_int_equal(model_load_with_training(path, RECIPE, &m, NULL, 0, &d),
                     STATUS_OK);
    for (i = 0; i < 63; i++)
        memcpy(want + 2 * i, "\xD0\xB4", 2);
    want[126] = '\0';
    assert_string_equal(m.spec.name, want);
    assert_true(datafile_text_check(m.spec.name, strlen(m.spec.name), &column,
                                    why, sizeof why));
    model_release(&m);
    assert_int_equal(util_remove_tree(dir), 0);
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
        cmocka_unit_test(test_hf_config_set_reaches_recipe_only),
        cmocka_unit_test(test_hf_config_mtp_only_where_present),
        cmocka_unit_test(test_hf_config_needs_a_recipe),
        cmocka_unit_test(test_hf_config_recipe_checked_alone),
        cmocka_unit_test(test_hf_config_syntax_error_line),
        cmocka_unit_test(test_hf_config_unknown_key),
        cmocka_unit_test(test_hf_config_key_given_twice),
        cmocka_unit_test(test_hf_config_long_name_cut_at_a_character),
        cmocka_unit_test(test_hf_config_is_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
