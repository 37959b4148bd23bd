/*
 * test_model_pattern: the layer pattern (parsing with the position of a
 * problem, writing it compactly, a round trip) and the layer kinds a
 * model's units take, among them a synthetic seventh hybrid that combines
 * kinds the published architectures have (tests/data/hybrid-seven.ini),
 * its parameters worked by hand: the kind table needs no code for it.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "model.h"
#include "model_mixer.h"
#include "model_pattern.h"
#include "test_util.h"

#define MAXL 600

static size_t parse_ok(const char *text, unsigned char *x, unsigned char *y)
{
    size_t n;
    char why[200];
    if (!model_pattern_parse(text, x, y, MAXL, &n, why, sizeof why))
        fail_msg("%s: %s", text, why);
    return n;
}

static void parse_bad(const char *text, const char *want)
{
    unsigned char x[MAXL], y[MAXL];
    size_t n = 7;
    char why[200];
    assert_false(model_pattern_parse(text, x, y, MAXL, &n, why, sizeof why));
    assert_string_equal(why, want);
    assert_int_equal(n, 0);
}

/* Runs, groups and nesting expand to one mixer and one MLP a layer. */
static void test_model_pattern_parse_runs_and_groups(void **state)
{
    unsigned char x[MAXL], y[MAXL];
    size_t n, i;
    (void)state;
    n = parse_ok("3AD 58AE", x, y);
    assert_int_equal(n, 61);
    assert_int_equal(x[0], MODEL_MIX_FULL);
    assert_int_equal(y[2], MODEL_MLP_DENSE);
    assert_int_equal(y[3], MODEL_MLP_MOE);
    assert_int_equal(y[60], MODEL_MLP_MOE);
    n = parse_ok("18(WE AE)", x, y);
    assert_int_equal(n, 36);
    for (i = 0; i < n; i++) {
        assert_int_equal(x[i], i % 2 ? MODEL_MIX_FULL : MODEL_MIX_WINDOW);
        assert_int_equal(y[i], MODEL_MLP_MOE);
    }
    n = parse_ok("12(3LE AE)", x, y); /* Qwen3-Next: every 4th full */
    assert_int_equal(n, 48);
    assert_int_equal(x[2], MODEL_MIX_LINEAR);
    assert_int_equal(x[3], MODEL_MIX_FULL);
    assert_int_equal(x[47], MODEL_MIX_FULL);
    n = parse_ok("2(2(M. .D) A.)", x, y); /* nested, blocks alone */
    assert_int_equal(n, 10);
    assert_int_equal(x[0], MODEL_MIX_SSM);
    assert_int_equal(y[0], MODEL_MLP_NONE);
    assert_int_equal(x[1], MODEL_MIX_NONE);
    assert_int_equal(y[1], MODEL_MLP_DENSE);
    assert_int_equal(x[4], MODEL_MIX_FULL);
    assert_int_equal(x[9], MODEL_MIX_FULL);
    assert_int_equal(parse_ok("WEAE", x, y), 2); /* blanks optional */
}

/* Each problem says where it is and what was expected; the letters come
 * from the rows. */
static void test_model_pattern_parse_errors(void **state)
{
    (void)state;
    parse_bad("3XE", "at character 2: expected a mixer letter (A N W C S L "
                     "M .), a count or '(', got 'X'");
    parse_bad("AD A", "at character 5: expected an MLP letter (D E .), got "
                      "the end");
    parse_bad("AD AQ", "at character 5: expected an MLP letter (D E .), got "
                       "'Q'");
    parse_bad("..", "at character 2: a layer of neither mixer nor MLP ('..')");
    parse_bad("2(AD", "at character 5: expected ')'");
    parse_bad("0AD", "at character 2: a count of 0");
    parse_bad("AD)", "at character 3: ')' without its '('");
    parse_bad("", "at character 1: no layers");
    parse_bad("2()", "at character 4: an empty group");
    parse_bad("2(2(2(2(2(AD)))))",
              "at character 10: groups nested more than 4 deep");
    parse_bad("600AD", "at character 3: a count over the most layers a model "
                       "has");
    parse_bad("300AD 301AE", "at character 10: more layers than a model has");
}

static void format_is(const char *text, const char *want)
{
    unsigned char x[MAXL], y[MAXL], x2[MAXL], y2[MAXL];
    size_t n = parse_ok(text, x, y), n2;
    char buf[MODEL_PATTERN_MAX];
    assert_true(model_pattern_format(x, y, n, buf, sizeof buf));
    assert_string_equal(buf, want);
    n2 = parse_ok(buf, x2, y2); /* and back */
    assert_int_equal(n2, n);
    assert_memory_equal(x, x2, n);
    assert_memory_equal(y, y2, n);
}

/* The readers write their per-layer lists compactly: runs counted, the
 * repeating group found. */
static void test_model_pattern_format(void **state)
{
    char buf[8];
    unsigned char x[2] = {MODEL_MIX_FULL, MODEL_MIX_FULL};
    unsigned char y[2] = {MODEL_MLP_DENSE, MODEL_MLP_MOE};
    (void)state;
    format_is("AD AD AD AE AE AE AE", "3AD 4AE");
    format_is("WE AE WE AE WE AE WE AE", "4(WE AE)");
    format_is("12(LE LE LE AE)", "12(3LE AE)");
    format_is("AD", "AD");
    /* Nemotron-H-56B's 118 blocks (tests/data/hf): 4 Mamba blocks each
     * with an MLP block, attention before the 4th MLP; then 9 groups of
     * 5, then 5 pairs: a group of 11 blocks repeats 10 times from the
     * start */
    format_is("3(M. .D) M. A. .D 9(4(M. .D) M. A. .D) 5(M. .D)",
              "10(3(M. .D) M. A. .D M. .D) 4(M. .D)");
    assert_false(model_pattern_format(x, y, 2, buf, 5)); /* "AD AE" */
    assert_true(model_pattern_format(x, y, 2, buf, 6));
    assert_string_equal(buf, "AD AE");
}

/* The kind of each (mixer, MLP) pair is a row of the cross product: the
 * block model's two first, the MTP module third, the rest after. */
static void test_model_pattern_kind_of(void **state)
{
    int mixer, mlp, k;
    struct model m;
    (void)state;
    memset(&m, 0, sizeof m);
    m.mtp_mixer = MODEL_MIX_SPARSE;
    m.mtp_mlp = MODEL_MLP_MOE;
    assert_int_equal(model_layer_kind_of(MODEL_MIX_FULL, MODEL_MLP_DENSE),
                     MODEL_LAYER_DENSE);
    assert_int_equal(model_layer_kind_of(MODEL_MIX_FULL, MODEL_MLP_MOE),
                     MODEL_LAYER_MOE);
    for (mixer = 0; mixer < MODEL_MIXERS; mixer++)
        for (mlp = 0; mlp < MODEL_MLPS; mlp++) {
            int back_mixer, back_mlp;
            k = model_layer_kind_of(mixer, mlp);
            assert_true(k != MODEL_LAYER_MTP && k < MODEL_LAYER_KINDS);
            model_kind_parts(&m, k, &back_mixer, &back_mlp);
            assert_int_equal(back_mixer, mixer);
            assert_int_equal(back_mlp, mlp);
        }
    model_kind_parts(&m, MODEL_LAYER_MTP, &mixer, &mlp);
    assert_int_equal(mixer, MODEL_MIX_SPARSE);
    assert_int_equal(mlp, MODEL_MLP_MOE);
}

/*
 * tests/data/hybrid-seven.ini, `SE M. .D CD NE LE`: hidden 16, vocab 10,
 * GQA 2 heads of 8 with 1 key/value head, FFN 32, 4 experts of 8 (top 1),
 * RMSNorms (a scale each). By hand:
 *   embedding 10 x 16 = 160, head 160, final norm 16;
 *   GQA attention: q 16x16 256, k and v 16x8 each 256, o 256: 768;
 *   the indexer (1 head of 4, from the hidden: no query latent): wq 16x4
 *     64, wk 16x4 64, its LayerNorm 2x4 8, weights 16x1 16: 152;
 *   MoE: 4 experts x 3 x 16 x 8 = 1536, router 4 x 16 = 64; dense FFN
 *     3 x 16 x 32 = 1536; a norm per block: 16;
 *   Mamba-2 (2 heads of 4: inner 8, state 2, 1 group, 4 taps):
 *     in_proj 16 x (2x8 + 2x1x2 + 2) = 352, convolution over 8 + 4 =
 *     12 channels 12x4 + 12 bias = 60, dt_bias, A_log, D 3x2 = 6, gated
 *     norm 8, out_proj 8x16 = 128: 554;
 *   Gated DeltaNet (1 key head, 2 value heads of 4): in_proj_qkvz
 *     16 x (2x4 + 2x8) = 384, in_proj_ba 16 x 4 = 64, convolution
 *     (2x4 + 8) x 4 = 64, dt_bias and A_log 4, gated norm 4, out_proj
 *     8x16 = 128: 648.
 * Layers: SE 768 + 152 + 1536 + 64 + 32 = 2552; M. 554 + 16 = 570;
 * .D 1536 + 16 = 1552; CD 768 + 1536 + 32 = 2336; NE 768 + 1536 + 64 +
 * 32 = 2400; LE 648 + 1536 + 64 + 32 = 2280. Total 336 + 11690 = 12026.
 * Active: each MoE layer one expert of 384, not four: 12026 - 3 x 1152 =
 * 8570.
 */
static void test_model_pattern_seventh_hybrid(void **state)
{
    struct model m;
    long k, n = 0;
    (void)state;
    util_model(&m, "tests/data/hybrid-seven.ini", NULL, 0);
    assert_int_equal(m.units, 6);
    assert_int_equal(model_unit_kind(&m, 0),
                     model_layer_kind_of(MODEL_MIX_SPARSE, MODEL_MLP_MOE));
    assert_int_equal(model_unit_kind(&m, 1),
                     model_layer_kind_of(MODEL_MIX_SSM, MODEL_MLP_NONE));
    assert_int_equal(model_unit_kind(&m, 5),
                     model_layer_kind_of(MODEL_MIX_LINEAR, MODEL_MLP_MOE));
    for (k = 0; k < MODEL_LAYER_KINDS; k++)
        n += model_layer_kind_count(&m, (enum model_layer_kind)k);
    assert_int_equal(n, 6);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_DENSE), 0);
    assert_string_equal(model_layer_kind_name(&m, model_unit_kind(&m, 0)),
                        "sparse attention MoE layer");
    assert_string_equal(model_layer_kind_name(&m, model_unit_kind(&m, 1)),
                        "Mamba-2 block");
    assert_string_equal(model_layer_kind_name(&m, model_unit_kind(&m, 2)),
                        "dense MLP block");
    assert_string_equal(model_layer_kind_name(&m, model_unit_kind(&m, 3)),
                        "chunked attention dense layer");
    assert_string_equal(model_layer_kind_name(&m, model_unit_kind(&m, 4)),
                        "NoPE attention MoE layer");
    assert_string_equal(model_layer_kind_name(&m, MODEL_LAYER_MOE),
                        "MoE layer");
    assert_near(m.params_total, 12026, 0);
    assert_near(m.params_active, 8570, 0);
    /* a scan layer has a state to pass, an attention layer keys */
    assert_true(m.layer[model_unit_kind(&m, 1)].state_elems > 0);
    assert_near(m.layer[model_unit_kind(&m, 1)].kv_elems, 0, 0);
    assert_true(m.layer[model_unit_kind(&m, 3)].kv_elems > 0);
    model_release(&m);
}

/* A pattern that does not fit the model is refused at its key. */
static void test_model_pattern_checked_against_the_model(void **state)
{
    struct model m;
    struct diag d;
    struct datafile_set set;
    (void)state;
    diag_init(&d);
    util_set(&set, "model.pattern=5AD");
    assert_int_equal(model_load("tests/data/hybrid-seven.ini", &m, &set, 1, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg, "tests/data/hybrid-seven.ini: --set "
                               "model.pattern=5AD: gives 5 layers, "
                               "model.layers is 6");
    diag_init(&d);
    util_set(&set, "attention.index_topk=0");
    assert_int_equal(model_load("tests/data/hybrid-seven.ini", &m, &set, 1, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg, "tests/data/hybrid-seven.ini: --set "
                               "attention.index_topk=0: required (> 0) for "
                               "sparse-attention layers (S)");
    diag_init(&d);
    util_set(&set, "model.pattern=3AQ");
    assert_int_equal(model_load("tests/data/hybrid-seven.ini", &m, &set, 1, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg,
                        "tests/data/hybrid-seven.ini: --set model.pattern=3AQ: "
                        "at character 3: expected an MLP letter (D E .), got "
                        "'Q'");
}

/* Without a pattern the units are the blocks they always were: dense
 * layers, MoE layers, MTP modules (DeepSeek-V3's 3, 58 and 1). */
static void test_model_pattern_blocks(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_string_equal(m.spec.pattern, "");
    assert_int_equal(m.units, 62);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_DENSE), 3);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_MOE), 58);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_MTP), 1);
    assert_int_equal(m.mtp_mixer, MODEL_MIX_FULL);
    assert_int_equal(m.mtp_mlp, MODEL_MLP_MOE);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_pattern_parse_runs_and_groups),
        cmocka_unit_test(test_model_pattern_parse_errors),
        cmocka_unit_test(test_model_pattern_format),
        cmocka_unit_test(test_model_pattern_kind_of),
        cmocka_unit_test(test_model_pattern_seventh_hybrid),
        cmocka_unit_test(test_model_pattern_checked_against_the_model),
        cmocka_unit_test(test_model_pattern_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
