/*
 * test_hf_arch_layers: the six architectures whose layers differ from one
 * another, read from their published config.json files (tests/data/hf,
 * README.md there): each one's layer pattern, its parameters worked by hand
 * from the config's keys and checked against the figure its authors
 * publish, and the attention FLOPs per token of a sliding-window and a
 * sparse model at 4K and 128K tokens, derived by hand. Read through
 * model_load_with_training() with the snapshot recipe.
 *
 * Where an author's "active" figure counts a different set of tensors
 * than roofplan's params_active (which counts the embedding and the head
 * too), the comment says which and the test compares like with like.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include "model.h"
#include "model_mixer.h"
#include "model_partition.h"
#include "model_pattern.h"
#include "test_util.h"

#define RECIPE "tests/data/snap/training/default.ini"
#define HF     "tests/data/hf/"

static void load(struct model *m, const char *path, const char *set)
{
    struct diag d;
    struct datafile_set s;
    diag_init(&d);
    if (set)
        util_set(&s, set);
    if (model_load_with_training(path, RECIPE, m, set ? &s : NULL, set ? 1 : 0,
                                 &d) != STATUS_OK)
        fail_msg("%s: %s", path, d.msg);
}

static long kind_count(const struct model *m, int mixer, int mlp)
{
    return model_layer_kind_count(m, model_layer_kind_of(mixer, mlp));
}

static double core_of(const struct model *m, int mixer, int mlp)
{
    return m->layer[model_layer_kind_of(mixer, mlp)].core_fwd;
}

/*
 * gpt-oss-120b. Model card (OpenAI, "gpt-oss-120b & gpt-oss-20b Model
 * Card", arXiv 2508.10925, Table 1): MLP 114.71B, attention 0.96B, embed +
 * unembed 1.16B, active 5.13B, total 116.83B. By hand from the config
 * (hidden 2880, 64 heads of 64, 8 key/value heads, biases, 128 experts of
 * 2880 top-4, vocab 201088, untied):
 *   attention: q and o 2 x 2880 x 4096 = 23,592,960, k and v 2 x 2880 x
 *     512 = 2,949,120, biases 4096 + 1024 + 2880 = 8,000, sinks 64:
 *     26,550,144 a layer, 955,805,184 over 36 (the card's 0.96B);
 *   an expert: gate_up 2880 x 5760 + down 2880 x 2880 + biases 5760 +
 *     2880 = 24,891,840; router 2880 x 128 + 128 = 368,768; MLP a layer
 *     3,186,524,288, x 36 = 114,714,874,368 (the card's 114.71B);
 *   embedding and head 2 x 201088 x 2880 = 1,158,266,880 (1.16B); norms
 *     36 x 2 x 2880 + 2880 = 210,240.
 * Total 116,829,156,672. Active: a layer's attention, 4 experts, router
 * and norms, 126,492,032 x 36 = 4,553,713,152, the head 579,133,440 and
 * the final norm: 5,132,849,472, the card's 5.13B, which leaves out the
 * embedding (a lookup, no FLOPs) and counts the unembedding.
 */
static void test_hf_arch_layers_gpt_oss(void **state)
{
    struct model m;
    (void)state;
    load(&m, HF "gpt-oss-120b.config.json", NULL);
    assert_string_equal(m.spec.pattern, "18(WE AE)");
    assert_int_equal(m.spec.window, 128);
    assert_true(m.spec.sinks);
    assert_int_equal(kind_count(&m, MODEL_MIX_WINDOW, MODEL_MLP_MOE), 18);
    assert_int_equal(kind_count(&m, MODEL_MIX_FULL, MODEL_MLP_MOE), 18);
    assert_near(m.params_total, 116829156672.0, 1e-12);
    assert_near(m.params_total, 116.83e9, 0.01);
    assert_near(m.params_active - m.params_embedding, 5132849472.0, 1e-12);
    assert_near(m.params_active - m.params_embedding, 5.13e9, 0.01);
    model_release(&m);
}

/*
 * GLM-4.5. Report (GLM-4.5 Team, arXiv 2508.06471, Table 1): 355B total,
 * 32B activated; 3 dense layers, 89 MoE layers, 1 MTP layer. By hand
 * (hidden 5120, 96 heads of 128, 8 key/value heads, q/k/v biases, QK-norm,
 * dense FFN 12288, 160 experts of 1536 top-8 and a shared one, vocab
 * 151552, untied):
 *   attention: q and o 2 x 5120 x 12288 = 125,829,120, k and v 2 x 5120
 *     x 1024 = 10,485,760, biases 12288 + 2048, QK-norms 256:
 *     136,329,472;
 *   dense layer: + 3 x 5120 x 12288 = 188,743,680 + norms 10,240:
 *     325,083,392, x 3 = 975,250,176;
 *   MoE layer: + 161 experts x 23,592,960 = 3,798,466,560 + router
 *     819,200 + norms: 3,935,625,472, x 89 = 350,270,667,008;
 *   embedding and head 2 x 151552 x 5120 = 1,551,892,480; final norm.
 * Total (MTP apart, as DeepSeek's 671B) 352,797,814,784: 0.6% under 355B.
 * Active: a MoE layer's attention, 9 experts, router and norms
 * 349,495,552 x 89 + the dense layers + the final norm = 32,080,359,424
 * without embedding and head (the 32B: with them 33.6B).
 */
static void test_hf_arch_layers_glm45(void **state)
{
    struct model m;
    (void)state;
    load(&m, HF "glm-4.5.config.json", NULL);
    /* leading dense layers: a block model, no pattern needed */
    assert_string_equal(m.spec.pattern, "");
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_DENSE), 3);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_MOE), 89);
    assert_near(m.spec.rope_fraction, 0.5, 0);
    assert_int_equal(model_layer_kind_count(&m, MODEL_LAYER_MTP), 1);
    assert_near(m.params_total, 352797814784.0, 1e-12);
    assert_near(m.params_total, 355e9, 0.01);
    assert_near(m.params_active - m.params_embedding - m.params_head,
                32080359424.0, 1e-12);
    assert_near(m.params_active - m.params_embedding - m.params_head, 32e9,
                0.01);
    model_release(&m);
}

/*
 * Llama 4 Maverick (Meta's model card for Llama-4-Maverick-17B-128E: 17B
 * activated, 400B total). By hand (hidden 5120, 40 heads of 128, 8
 * key/value heads, dense FFN 16384 on even layers, 128 experts of 8192
 * top-1 and a shared one on odd layers, vocab 202048, untied):
 *   attention 2 x 5120 x 5120 + 2 x 5120 x 1024 = 62,914,560, x 48 =
 *     3,019,898,880; dense FFN 3 x 5120 x 16384 = 251,658,240, x 24 =
 *     6,039,797,760; an expert 3 x 5120 x 8192 = 125,829,120; MoE layer
 *     129 experts + router 655,360 = 16,232,611,840, x 24 =
 *     389,582,684,160; norms 96 x 5120 + 5120 = 496,640; embedding and
 *     head 2 x 202048 x 5120 = 2,068,971,520.
 * Total 400,711,848,960 (0.18% over 400B). Active: 2 experts and the
 * router a MoE layer, 6,055,526,400, with the rest: 17,184,691,200, 1.09%
 * over the card's "17B", a figure of two significant digits: the test
 * holds it to that figure's rounding (16.5B to 17.5B).
 */
static void test_hf_arch_layers_llama4(void **state)
{
    struct model m;
    (void)state;
    load(&m, HF "llama-4-maverick-17b-128e.config.json", NULL);
    assert_string_equal(m.spec.pattern, "12(CD CE CD NE)");
    assert_int_equal(m.spec.chunk, 8192);
    assert_near(m.params_total, 400711848960.0, 1e-12);
    assert_near(m.params_total, 400e9, 0.01);
    assert_near(m.params_active, 17184691200.0, 1e-12);
    assert_near(m.params_active, 17e9, 0.5 / 17);
    model_release(&m);
}

/*
 * Qwen3-Next-80B-A3B (its model card: "80B in total and 3B activated").
 * By hand (hidden 2048; 12 gated-attention layers of 16 heads of 256, 2
 * key/value heads; 36 Gated DeltaNet layers of 16 key heads and 32 value
 * heads of 128, 4 taps; 512 experts of 512 top-10 and a shared one with
 * its gate; vocab 151936, untied):
 *   attention: q and its gate 2048 x 8192 = 16,777,216, k and v 2 x 2048
 *     x 512 = 2,097,152, o 4096 x 2048 = 8,388,608, QK-norms 512:
 *     27,263,488, x 12 = 327,161,856;
 *   Gated DeltaNet: in_proj_qkvz 2048 x 12288 = 25,165,824, in_proj_ba
 *     2048 x 64 = 131,072, convolution 8192 x 4 = 32,768, dt_bias and
 *     A_log 64, gated norm 128, out_proj 4096 x 2048 = 8,388,608:
 *     33,718,464, x 36 = 1,213,864,704;
 *   MoE: 513 experts x 3,145,728 + router 1,048,576 + the shared
 *     expert's gate 2048 = 1,614,809,088, x 48 = 77,510,836,224;
 *   norms 96 x 2048 + 2048 = 198,656; embedding and head 2 x 151936 x
 *     2048 = 622,329,856.
 * Total 79,674,391,296 (0.4% under 80B). roofplan leaves out the shared
 * expert's gate (2048 a layer, 98,304 in all, 1.2 parts per million):
 * 79,674,292,992. Active without embedding and head: 11 experts and the
 * router a layer, 1,711,276,032, with the mixers and norms:
 * 3,252,501,248, within the rounding of the card's one-digit "3B" (2.5B
 * to 3.5B), not within 1% of it.
 */
static void test_hf_arch_layers_qwen3_next(void **state)
{
    struct model m;
    (void)state;
    load(&m, HF "qwen3-next-80b-a3b-instruct.config.json", NULL);
    assert_string_equal(m.spec.pattern, "12(3LE AE)");
    assert_true(m.spec.output_gate);
    assert_near(m.params_total, 79674292992.0, 1e-12);
    assert_near(m.params_total, 80e9, 0.01);
    assert_near(m.params_active - m.params_embedding - m.params_head,
                3252501248.0, 1e-12);
    assert_near(m.params_active - m.params_embedding - m.params_head, 3e9,
                0.5 / 3);
    /* the scan layers pass a state under context parallelism, not keys */
    assert_true(m.layer[model_layer_kind_of(MODEL_MIX_LINEAR, MODEL_MLP_MOE)]
                    .state_elems > 0);
    assert_near(
        m.layer[model_layer_kind_of(MODEL_MIX_LINEAR, MODEL_MLP_MOE)].kv_elems,
        0, 0);
    model_release(&m);
}

/*
 * DeepSeek-V3.2 (its published config.json): DeepSeek-V3's architecture
 * (the same keys) with a lightning indexer in every layer (arXiv
 * 2512.02556 §2.1; its inference/model.py, class Indexer; the shapes as
 * the checkpoint's tensor list gives them, tests/data/hf/README.md):
 * wq_b 1536 x (64 x 128) =
 * 12,582,912, wk 7168 x 128 = 917,504, k_norm (LayerNorm) 256,
 * weights_proj 7168 x 64 = 458,752: 13,959,424 a layer, 851,524,864 over
 * 61 layers, all of them active. DeepSeek publishes no separate count for
 * V3.2 (its card keeps V3's 671B / 37B): the test checks V3.2 = V3 (the
 * same reader on deepseek-v3.config.json) + the indexers, and the total
 * within 1% of 671B.
 */
static void test_hf_arch_layers_deepseek_v32(void **state)
{
    struct model v3, v32;
    const double indexers = 61 * 13959424.0;
    (void)state;
    load(&v3, HF "deepseek-v3.config.json", NULL);
    load(&v32, HF "deepseek-v3.2.config.json", NULL);
    assert_string_equal(v32.spec.pattern, "3SD 58SE");
    assert_int_equal(v32.spec.index_topk, 2048);
    assert_near(v32.params_total, v3.params_total + indexers, 1e-12);
    assert_near(v32.params_active, v3.params_active + indexers, 1e-12);
    assert_near(v32.params_total, 671e9, 0.01);
    model_release(&v3);
    model_release(&v32);
}

/*
 * Nemotron-H-56B-Base (NVIDIA, arXiv 2504.03624: "Nemotron-H-56B", 118
 * layers: 54 Mamba-2, 10 attention without position embeddings, 54 FFN).
 * By hand (hidden 8192;
 * Mamba-2 256 heads of 64, state 256, 8 groups, 4 taps with bias;
 * attention 64 heads of 128, 8 key/value heads; squared-ReLU FFN 32768;
 * vocab 131072, untied; a norm per block):
 *   Mamba-2: in_proj 8192 x (2 x 16384 + 2 x 8 x 256 + 256) =
 *     304,087,040, convolution 20480 x 4 + 20480 = 102,400, A_log, D,
 *     dt_bias 768, gated norm 16384, out_proj 16384 x 8192 = 134,217,728,
 *     norm 8192: 438,432,512, x 54 = 23,675,355,648;
 *   FFN 2 x 8192 x 32768 + 8192 = 536,879,104, x 54 = 28,991,471,616;
 *   attention 2 x 8192 x 8192 + 2 x 8192 x 1024 + 8192 = 151,003,136,
 *     x 10 = 1,510,031,360;
 *   embedding and head 2 x 131072 x 8192 = 2,147,483,648; final norm.
 * Total 56,324,350,464: 0.58% over 56B. Dense: every parameter active.
 */
static void test_hf_arch_layers_nemotron_h(void **state)
{
    struct model m;
    (void)state;
    load(&m, HF "nemotron-h-56b-base-8k.config.json", NULL);
    assert_int_equal(kind_count(&m, MODEL_MIX_SSM, MODEL_MLP_NONE), 54);
    assert_int_equal(kind_count(&m, MODEL_MIX_NOPE, MODEL_MLP_NONE), 10);
    assert_int_equal(kind_count(&m, MODEL_MIX_NONE, MODEL_MLP_DENSE), 54);
    assert_near(m.params_total, 56324350464.0, 1e-12);
    assert_near(m.params_total, 56e9, 0.01);
    assert_near(m.params_active, m.params_total, 0);
    model_release(&m);
}

/*
 * Sliding windows: linear in the sequence. gpt-oss's W layers see at most
 * 128 keys (model card §2.1, "bandwidth of 128 tokens"); counted as full
 * attention is (half the square), a query sees w - w^2 / (2 s) keys on
 * average: 126 at s = 4096, 127.9375 at s = 131072. Per token, QK^T and PV
 * over 64 heads of 64: 2 x 64 x (64 + 64) = 16,384 FLOPs a key: 2,064,384
 * and 2,096,128 (per token nearly constant: a sequence's FLOPs grow with
 * its length). The A layers: s / 2 keys, 33,554,432 and 1,073,741,824
 * (per token linear: quadratic in the sequence). The model's FLOPs per
 * token (fwd + bwd, 3 x forward) differ between the two lengths by the
 * cores alone: 3 x 18 x ((1,073,741,824 - 33,554,432) + (2,096,128 -
 * 2,064,384)) = 56,171,833,344.
 */
static void test_hf_arch_layers_window_grows_linearly(void **state)
{
    struct model s4k, s128k;
    (void)state;
    load(&s4k, HF "gpt-oss-120b.config.json", NULL);
    load(&s128k, HF "gpt-oss-120b.config.json", "training.seq_len=131072");
    assert_near(core_of(&s4k, MODEL_MIX_WINDOW, MODEL_MLP_MOE), 2064384.0,
                1e-12);
    assert_near(core_of(&s128k, MODEL_MIX_WINDOW, MODEL_MLP_MOE), 2096128.0,
                1e-12);
    assert_near(core_of(&s4k, MODEL_MIX_FULL, MODEL_MLP_MOE), 33554432.0,
                1e-12);
    assert_near(core_of(&s128k, MODEL_MIX_FULL, MODEL_MLP_MOE), 1073741824.0,
                1e-12);
    assert_near(s128k.flops_per_token - s4k.flops_per_token, 56171833344.0,
                1e-9);
    model_release(&s4k);
    model_release(&s128k);
}

/*
 * DeepSeek Sparse Attention: the core O(L k), the indexer O(L^2)
 * (arXiv 2512.02556 §2.1: "reduces the core attention complexity of the
 * main model from O(L^2) to O(Lk)"; the indexer's is O(L^2), cheap). The
 * core runs in MLA's MQA mode: queries of 512 + 64 against the shared
 * latent, values of 512, over 128 heads: 2 x 128 x (576 + 512) = 278,528
 * FLOPs a key; k = 2048 keys counted as a window (2048 - 2048^2 / (2 s)):
 * 1536 at 4K, 2032 at 128K: 427,819,008 and 565,968,896. The indexer's
 * scores, 64 heads of 128 over s / 2 keys: 8192 s, 33,554,432 and
 * 1,073,741,824. Layer core: 461,373,440 and 1,639,710,720, against
 * DeepSeek-V3's full MLA, 2 x 128 x (192 + 128) x s / 2: 167,772,160 and
 * 5,368,709,120 (sparse is 2.75x dearer at 4K, 3.3x cheaper at 128K).
 */
static void test_hf_arch_layers_sparse_core_is_linear(void **state)
{
    struct model s4k, s128k, full;
    (void)state;
    load(&s4k, HF "deepseek-v3.2.config.json", NULL);
    load(&s128k, HF "deepseek-v3.2.config.json", "training.seq_len=131072");
    load(&full, HF "deepseek-v3.config.json", "training.seq_len=131072");
    assert_near(core_of(&s4k, MODEL_MIX_SPARSE, MODEL_MLP_MOE), 461373440.0,
                1e-12);
    assert_near(core_of(&s128k, MODEL_MIX_SPARSE, MODEL_MLP_MOE), 1639710720.0,
                1e-12);
    assert_near(core_of(&full, MODEL_MIX_FULL, MODEL_MLP_MOE), 5368709120.0,
                1e-12);
    model_release(&s4k);
    model_release(&s128k);
    model_release(&full);
}

/*
 * Pipeline balance over unequal layers: Nemotron-H's 118 blocks cost from
 * about 0.37 GFLOP (an attention block at 4K) to 1.07 GFLOP (an MLP block:
 * 2 x 536,870,912) forward. Split by FLOPs into 16 chunks, the largest
 * chunk lies between the mean (no split does better) and the mean plus
 * the dearest block (a greedy walk does no worse); each chunk's layers,
 * in pattern letters, put together give the model's 54 Mamba-2, 10
 * attention and 54 MLP blocks, the first chunk the first 8 blocks.
 */
static void test_hf_arch_layers_pipeline_over_unequal_blocks(void **state)
{
    struct model m;
    struct model_partition p;
    struct diag d;
    char buf[MODEL_PATTERN_MAX];
    double most = 0, sum = 0, dearest = 0;
    long i, k, kinds[MODEL_LAYER_KINDS] = {0};
    (void)state;
    load(&m, HF "nemotron-h-56b-base-8k.config.json", NULL);
    diag_init(&d);
    assert_int_equal(model_partition(&m, 16, 1, 1, MODEL_BALANCE_CHUNK, &p, &d),
                     STATUS_OK);
    for (i = 0; i < p.chunks; i++) {
        double c = model_chunk_cost(&p.chunk[i], 1, 1);
        sum += c;
        most = c > most ? c : most;
        for (k = 0; k < MODEL_LAYER_KINDS; k++)
            kinds[k] += p.chunk[i].kinds[k];
    }
    for (k = 0; k < MODEL_LAYER_KINDS; k++) {
        double c = m.layer[k].fwd_fp8 + m.layer[k].fwd_other;
        if (m.kind_units[k] > 0 && c > dearest)
            dearest = c;
        assert_int_equal(kinds[k], m.kind_units[k]);
    }
    assert_near(dearest, 2 * 536870912.0, 1e-12);
    assert_true(most >= sum / 16 && most <= sum / 16 + dearest);
    assert_int_equal(kinds[model_layer_kind_of(MODEL_MIX_SSM, MODEL_MLP_NONE)],
                     54);
    assert_true(model_units_pattern(&m, p.chunk[0].first, p.chunk[0].count, buf,
                                    sizeof buf));
    assert_string_equal(buf, "3(M. .D) M. N.");
    model_partition_release(&p);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hf_arch_layers_gpt_oss),
        cmocka_unit_test(test_hf_arch_layers_glm45),
        cmocka_unit_test(test_hf_arch_layers_llama4),
        cmocka_unit_test(test_hf_arch_layers_qwen3_next),
        cmocka_unit_test(test_hf_arch_layers_deepseek_v32),
        cmocka_unit_test(test_hf_arch_layers_nemotron_h),
        cmocka_unit_test(test_hf_arch_layers_window_grows_linearly),
        cmocka_unit_test(test_hf_arch_layers_sparse_core_is_linear),
        cmocka_unit_test(test_hf_arch_layers_pipeline_over_unequal_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
