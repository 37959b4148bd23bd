/*
 * test_model_mixer: what one layer's token mixer costs, worked by hand
 * for each kind: the keys a query sees (sliding window, chunks, top-k),
 * the sparse layer's indexer, Gated DeltaNet's chunked rule and Mamba-2's
 * SSD scan (their FLOPs counted from the reference implementations the
 * formulas cite), and what context parallelism moves for each.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "model.h"
#include "model_mixer.h"
#include "test_util.h"

/* Keys per query, counted as full attention is (half the square): a
 * window of 128 over 4,096 tokens: the first 128 queries see 1..128 (half
 * of a 128 square, 128^2/2 = 8,192), the other 3,968 see 128 each
 * (507,904): 516,096 / 4,096 = 126; over 131,072: 128 - 128^2 / 262,144
 * = 127.9375. Chunks of 4 over 10 tokens: two whole chunks (8 each) and
 * one of 2 (2): 18 / 10 = 1.8. Shorter than the window or chunk: s/2. */
static void test_model_mixer_keys(void **state)
{
    (void)state;
    assert_near(model_mixer_window_keys(4096, 128), 126, 1e-15);
    assert_near(model_mixer_window_keys(131072, 128), 127.9375, 1e-15);
    assert_near(model_mixer_window_keys(100, 128), 50, 1e-15);
    assert_near(model_mixer_window_keys(128, 128), 64, 1e-15);
    assert_near(model_mixer_chunk_keys(10, 4), 1.8, 1e-15);
    assert_near(model_mixer_chunk_keys(16384, 8192), 4096, 1e-15);
    assert_near(model_mixer_chunk_keys(4096, 8192), 2048, 1e-15);
}

/* The rows: letters and words a pattern and a kind's name use. */
static void test_model_mixer_rows(void **state)
{
    char seen[MODEL_MIXERS + 1];
    int i, j;
    (void)state;
    for (i = 0; i < MODEL_MIXERS; i++) {
        seen[i] = model_mixer_letter(i);
        assert_true(seen[i] != 0);
        for (j = 0; j < i; j++)
            assert_true(seen[j] != seen[i]); /* each letter once */
        assert_non_null(model_mixer_word(i));
    }
    assert_int_equal(model_mixer_letter(MODEL_MIXERS), 0);
    assert_null(model_mixer_word(-1));
    assert_true(model_mixer_class(MODEL_MIX_WINDOW) & MODEL_MIXER_ROPE);
    assert_false(model_mixer_class(MODEL_MIX_NOPE) & MODEL_MIXER_ROPE);
    assert_true(model_mixer_class(MODEL_MIX_SPARSE) & MODEL_MIXER_SPARSE);
    assert_int_equal(model_mixer_class(MODEL_MIX_NONE), 0);
}

/* tests/data/hybrid-seven.ini's widths (seq 16, GQA 2 heads of 8, one
 * key/value head). */
static void tiny(struct model *m)
{
    util_model(m, "tests/data/hybrid-seven.ini", NULL, 0);
}

/*
 * Sparse attention over 16 tokens, top 2: a query sees 2 - 2^2/32 = 1.875
 * keys; QK^T and PV over 2 heads of 8: 2 x 2 x 8 x 1.875 x 2 = 120. The
 * indexer scores every preceding key (16/2 = 8 on average) with 1 head
 * of 4: 2 x 4 x 8 = 64; its projections 2 x (64 + 64 + 16) = 288 beside
 * q, k, v, o's 2 x 768 = 1,536. Context parallelism gathers K and V (1
 * head of 8 each: 16) and the indexer's keys (4).
 */
static void test_model_mixer_sparse(void **state)
{
    struct model m;
    struct model_mixer_numbers a;
    (void)state;
    tiny(&m);
    model_mixer_numbers(&m.spec, MODEL_MIX_SPARSE, &a);
    assert_near(a.core_fwd, 120 + 64, 1e-15);
    assert_near(a.proj_fwd, 1536 + 288, 1e-15);
    assert_near(a.params, 768 + 152, 1e-15);
    assert_near(a.kv_elems, 16 + 4, 1e-15);
    assert_near(a.state_elems, 0, 0);
    /* chunks of 4: 16 tokens in 4 whole chunks, 2 keys a query */
    model_mixer_numbers(&m.spec, MODEL_MIX_CHUNK, &a);
    assert_near(a.core_fwd, 2 * 2 * 8 * 2.0 * 2, 1e-15);
    /* RoPE on queries and keys (3 heads of 8), none without it */
    assert_near(a.rope_elems, 24, 1e-15);
    model_mixer_numbers(&m.spec, MODEL_MIX_NOPE, &a);
    assert_near(a.rope_elems, 0, 0);
    assert_near(a.core_fwd, 2 * 2 * 8 * 8.0 * 2, 1e-15); /* s/2 = 8 */
    model_release(&m);
}

/*
 * Gated DeltaNet, 1 key head and 2 value heads of 4, 4 taps, chunk 64
 * (the default): per value head and token, 3 C dk = 768 (k_beta K^T, Q
 * K^T, the decayed K product), 2 C dv = 512 (with the values), C^2/3 =
 * 1365.33 (the solve's row updates), 3 dk dv = 48 (the state's products):
 * 2,693.33 multiply-adds, x 2 heads x 2 = 10,773.33; the convolution over
 * 2 x 4 + 8 = 16 channels of 4 taps: 2 x 4 x 16 = 128. Projections: 2 x
 * (384 + 64 + 128) = 1,152. The state a context-parallel rank passes on:
 * 2 heads x 4 x 4 = 32, and the convolution's last 3 inputs of 16
 * channels, 48.
 */
static void test_model_mixer_linear(void **state)
{
    struct model m;
    struct model_mixer_numbers a;
    (void)state;
    tiny(&m);
    model_mixer_numbers(&m.spec, MODEL_MIX_LINEAR, &a);
    assert_near(a.scan_fwd[MODEL_SCAN_LINEAR],
                2 * 2 * (768 + 512 + 4096.0 / 3 + 48) + 128, 1e-15);
    assert_near(a.scan_fwd[MODEL_SCAN_SSD], 0, 0);
    assert_near(a.proj_fwd, 1152, 1e-15);
    assert_near(a.params, 648, 1e-15);
    assert_near(a.state_elems, 32 + 48, 1e-15);
    assert_near(a.kv_elems, 0, 0);
    assert_near(a.core_fwd, 0, 0);
    model_release(&m);
}

/*
 * Mamba-2 (SSD), 2 heads of 4, state 2, 1 group, 4 taps, chunk 256 (the
 * default): per token, C B^T within the chunk Q N = 512 for the group,
 * its product with X Q P = 1,024 per head, the chunk state and the
 * state's output 2 N P = 16 per head: 512 + 2 x 1,040 = 2,592
 * multiply-adds, 5,184 FLOPs; the convolution over 8 + 2 x 2 = 12
 * channels: 2 x 4 x 12 = 96. Projections: 2 x (352 + 128) = 960. The
 * state passed on: 2 x 4 x 2 = 16, and the convolution's 3 x 12 = 36.
 */
static void test_model_mixer_ssm(void **state)
{
    struct model m;
    struct model_mixer_numbers a;
    (void)state;
    tiny(&m);
    model_mixer_numbers(&m.spec, MODEL_MIX_SSM, &a);
    assert_near(a.scan_fwd[MODEL_SCAN_SSD], 5184 + 96, 1e-15);
    assert_near(a.proj_fwd, 960, 1e-15);
    assert_near(a.params, 554, 1e-15);
    assert_near(a.state_elems, 16 + 36, 1e-15);
    assert_near(a.rope_elems, 0, 0);
    model_mixer_numbers(&m.spec, MODEL_MIX_NONE, &a);
    assert_near(a.params + a.proj_fwd + a.core_fwd, 0, 0);
    model_release(&m);
}

/* A sparse MLA layer (DeepSeek-V3.2) runs in MLA's MQA mode: queries
 * absorbed into the kv latent of 512 with the 64-wide RoPE key, values
 * the latent: the kernel at 576/512, the latent (and the indexer's 128
 * keys) gathered under context parallelism, 704 elements. */
static void test_model_mixer_sparse_mla(void **state)
{
    struct model m;
    struct model_mixer_numbers a, full;
    struct datafile_set sets[5];
    (void)state;
    util_set(&sets[0], "attention.index_heads=64");
    util_set(&sets[1], "attention.index_head_dim=128");
    util_set(&sets[2], "attention.index_topk=2048");
    util_set(&sets[3], "model.pattern=3SD 58SE");
    util_set(&sets[4], "moe.first_dense_layers=0");
    util_model(&m, "data/models/deepseek-v3.ini", sets, 5);
    model_mixer_numbers(&m.spec, MODEL_MIX_SPARSE, &a);
    model_mixer_numbers(&m.spec, MODEL_MIX_FULL, &full);
    assert_near(a.qk_dim, 576, 0);
    assert_near(a.v_dim, 512, 0);
    assert_near(a.kv_elems, 576 + 128, 0);
    /* the absorbed projections cost what the up-projections do */
    assert_near(a.proj_fwd - full.proj_fwd,
                2 * (1536.0 * 64 * 128 + 7168 * 128 + 7168 * 64), 1e-15);
    assert_near(m.attn_head_dim, 576, 0);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_mixer_keys),
        cmocka_unit_test(test_model_mixer_rows),
        cmocka_unit_test(test_model_mixer_sparse),
        cmocka_unit_test(test_model_mixer_linear),
        cmocka_unit_test(test_model_mixer_ssm),
        cmocka_unit_test(test_model_mixer_sparse_mla),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
