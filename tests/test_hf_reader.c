/*
 * test_hf_reader: the value helpers every architecture reader uses, on
 * JSON parsed here: how file text is quoted and values shown in
 * messages, keys taken (and remembered as read), integers checked
 * against model_schema()'s ranges, implied values stored with their
 * sources.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "hf_reader.h"
#include "test_util.h"

struct fixture {
    struct hf_reader r;
    struct model_spec spec;
    struct datafile_meta meta;
    struct diag d;
};

/* A reader over text (a JSON object) named "x.json", for LlamaForCausalLM. */
static void open_reader(struct fixture *f, const char *text)
{
    memset(f, 0, sizeof *f);
    diag_init(&f->d);
    f->r.path = "x.json";
    f->r.root = cJSON_Parse(text);
    assert_non_null(f->r.root);
    f->r.arch_name = "LlamaForCausalLM";
    f->r.spec = &f->spec;
    f->r.meta = &f->meta;
    f->r.d = &f->d;
}

static void close_reader(struct fixture *f)
{
    cJSON_Delete((cJSON *)(void *)f->r.root);
    datafile_meta_release(&f->meta);
}

/* Quoted file text keeps to max bytes and shows control characters as
 * '?' (a newline would split a message's line). */
static void test_hf_reader_quote(void **state)
{
    char buf[16];
    (void)state;
    /* control characters and a stray byte as \xNN (the data files' rule) */
    assert_string_equal(hf_reader_quote("a\nb\x1b", 80, buf, sizeof buf),
                        "a\\x0Ab\\x1B");
    assert_string_equal(hf_reader_quote("k\x8b", 80, buf, sizeof buf),
                        "k\\x8B");
    /* at most max bytes (6): "abc" and "..." */
    assert_string_equal(hf_reader_quote("abcdefgh", 6, buf, sizeof buf),
                        "abc...");
    /* or what buf holds (8 with the NUL): "0123" and "..." */
    assert_string_equal(hf_reader_quote("0123456789abcdefgh", 80, buf, 8),
                        "0123...");
}

/* Each JSON kind as a message shows it. */
static void test_hf_reader_show(void **state)
{
    static const struct {
        const char *json, *shown;
    } cases[] = {{"7168", "7168"},         {"0.5", "0.5"},
                 {"\"gelu\"", "\"gelu\""}, {"true", "true"},
                 {"false", "false"},       {"null", "null"},
                 {"[1]", "an array"},      {"{}", "an object"}};
    char buf[96];
    size_t i;
    (void)state;
    for (i = 0; i < sizeof cases / sizeof *cases; i++) {
        cJSON *it = cJSON_Parse(cases[i].json);
        assert_non_null(it);
        hf_reader_show(it, buf, sizeof buf);
        assert_string_equal(buf, cases[i].shown);
        cJSON_Delete(it);
    }
}

/* A key taken is remembered (so the keys left over can be refused); an
 * absent key is NULL and remembers nothing; null counts as absent. */
static void test_hf_reader_take(void **state)
{
    struct fixture f;
    const cJSON *it;
    (void)state;
    open_reader(&f, "{\"hidden_size\": 64, \"head_dim\": null}");
    it = hf_reader_take(&f.r, "hidden_size");
    assert_non_null(it);
    assert_int_equal(f.r.nused, 1);
    assert_true(f.r.used[0] == it);
    assert_null(hf_reader_take(&f.r, "vocab_size"));
    assert_int_equal(f.r.nused, 1);
    assert_true(hf_reader_absent(hf_reader_take(&f.r, "head_dim")));
    assert_false(hf_reader_absent(it));
    close_reader(&f);
}

/*
 * Integers into model_schema()'s fields: num_hidden_layers into
 * model.layers (1..512, a source naming the key); 64.5 refused with the
 * schema's range; a missing required key names the architecture; an
 * absent optional key takes its default with the reason as source.
 */
static void test_hf_reader_int_field(void **state)
{
    struct fixture f;
    long fi;
    (void)state;
    open_reader(&f, "{\"num_hidden_layers\": 61, \"hidden_size\": 64.5}");
    assert_true(hf_reader_int_field(&f.r, "num_hidden_layers", "model",
                                    "layers", HF_REQUIRED, 0, ""));
    assert_int_equal(f.spec.layers, 61);
    fi = hf_reader_field("model", "layers");
    assert_string_equal(datafile_meta_source(&f.meta, (size_t)fi),
                        "x.json: num_hidden_layers");
    assert_true(f.meta.given[fi]);
    assert_false(hf_reader_int_field(&f.r, "hidden_size", "model", "hidden",
                                     HF_REQUIRED, 0, ""));
    assert_string_equal(f.d.msg, "x.json: key 'hidden_size': expected an "
                                 "integer in 1..1000000, got 64.5");
    diag_init(&f.d);
    assert_false(hf_reader_int_field(&f.r, "vocab_size", "model", "vocab",
                                     HF_REQUIRED, 0, ""));
    assert_string_equal(f.d.msg, "x.json: key 'vocab_size': missing (required "
                                 "for LlamaForCausalLM; an integer in "
                                 "1..100000000)");
    diag_init(&f.d);
    assert_false(hf_reader_int_field(&f.r, "head_dim", "attention", "head_dim",
                                     HF_OPTIONAL, 0, "absent: hidden / heads"));
    assert_int_equal(f.d.status, STATUS_OK);
    assert_int_equal(f.spec.head_dim, 0);
    fi = hf_reader_field("attention", "head_dim");
    assert_string_equal(datafile_meta_source(&f.meta, (size_t)fi),
                        "x.json: head_dim absent: hidden / heads");
    close_reader(&f);
}

/* A bounded integer not tied to a field: found or not, in range or not. */
static void test_hf_reader_get_int(void **state)
{
    struct fixture f;
    bool found;
    long v = -1;
    (void)state;
    open_reader(&f, "{\"n_group\": 8, \"topk_group\": 0, \"x\": null}");
    assert_true(hf_reader_get_int(&f.r, "n_group", 1, 16, "1..16", &found, &v));
    assert_true(found);
    assert_int_equal(v, 8);
    assert_true(hf_reader_get_int(&f.r, "x", 1, 16, "1..16", &found, &v));
    assert_false(found);
    assert_int_equal(v, 8); /* null leaves it alone */
    assert_false(
        hf_reader_get_int(&f.r, "topk_group", 1, 16, "1..16", &found, &v));
    assert_string_equal(f.d.msg, "x.json: key 'topk_group': expected 1..16, "
                                 "got 0");
    close_reader(&f);
}

/* Booleans: absent takes the default; a number is refused. */
static void test_hf_reader_get_bool(void **state)
{
    struct fixture f;
    bool v = false;
    (void)state;
    open_reader(&f, "{\"tie_word_embeddings\": true, \"mlp_bias\": 1}");
    assert_true(hf_reader_get_bool(&f.r, "tie_word_embeddings", false, &v));
    assert_true(v);
    assert_true(hf_reader_get_bool(&f.r, "attention_bias", false, &v));
    assert_false(v);
    assert_false(hf_reader_get_bool(&f.r, "mlp_bias", false, &v));
    assert_string_equal(f.d.msg, "x.json: key 'mlp_bias': expected true or "
                                 "false, got 1");
    close_reader(&f);
}

/* Implied values (no key says them) are stored with the reason as their
 * source, marked given, with no line (a config.json has none per key). */
static void test_hf_reader_fix(void **state)
{
    struct fixture f;
    long fi;
    (void)state;
    open_reader(&f, "{}");
    hf_reader_fix_bool(&f.r, "model", "linear_bias", true, "all biases");
    hf_reader_fix_int(&f.r, "model", "norm", MODEL_RMSNORM, "RMSNorm");
    hf_reader_fix_long(&f.r, "mtp", "depth", 0, "no MTP modules");
    assert_true(f.spec.linear_bias);
    assert_int_equal(f.spec.norm, MODEL_RMSNORM);
    assert_int_equal(f.spec.mtp_depth, 0);
    fi = hf_reader_field("model", "linear_bias");
    assert_string_equal(datafile_meta_source(&f.meta, (size_t)fi),
                        "x.json: all biases");
    assert_true(f.meta.given[fi]);
    assert_int_equal(f.meta.line[fi], 0);
    fi = hf_reader_field("mtp", "depth");
    assert_string_equal(datafile_meta_source(&f.meta, (size_t)fi),
                        "x.json: no MTP modules");
    close_reader(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hf_reader_quote),
        cmocka_unit_test(test_hf_reader_show),
        cmocka_unit_test(test_hf_reader_take),
        cmocka_unit_test(test_hf_reader_int_field),
        cmocka_unit_test(test_hf_reader_get_int),
        cmocka_unit_test(test_hf_reader_get_bool),
        cmocka_unit_test(test_hf_reader_fix),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
