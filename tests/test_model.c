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

/*
 * MTP runs whenever mtp.depth > 0 (issue 11 item 2): DeepSeek-V3 trained
 * with its MTP module. From the config (shared/facts §3): main model
 * 250.4 GFLOPs/token, + 10.2 for the MTP module (one MoE block, the 2d x d
 * eh_proj and the shared head run again) = 260.6, the figure frameworks
 * report when they count MTP (Megatron-Bridge flop_utils.py). What MFU
 * counts is the file's convention: DeepSeek's 250 excludes MTP
 * (mtp.count_in_mfu = false); the FLOPs run always include it, and the
 * MTP module is a pipeline unit: 61 layers + 1 = 62.
 */
static void test_model_deepseek_mtp_always_runs(void **state)
{
    struct model m;
    struct datafile_set s;
    (void)state;
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_near(m.flops_per_token, 250.4e9, 0.001);
    assert_near(m.flops_per_token_run, 260.6e9, 0.001);
    assert_near(m.flops_per_token_run - m.flops_per_token_main, 10.2e9, 0.01);
    assert_int_equal(m.units, 62);
    /* README_WEIGHTS.md: MTP has 11.5B unique parameters (we count the
     * eh_proj and norms too: 11.6B, shared/facts §1). */
    assert_near(m.params_mtp, 11.6e9, 0.01);
    model_release(&m);
    set(&s, "mtp.count_in_mfu=true");
    load(&m, "data/models/deepseek-v3.ini", &s, 1);
    assert_near(m.flops_per_token, 260.6e9, 0.001);
    assert_int_equal(m.units, 62);
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

/*
 * Megatron-LM's module names (transformer_config.py recompute_modules):
 * `mlp` recomputes the dense FFN, dropping its internals, the FC1 output
 * (4h elements) and the GeLU output (4h), 2 bytes each: 34h + 5as - 16h
 * bytes per token are left (Korthikanti et al. §4.1 counts 19sbh for the
 * MLP block: its 2sbh input and sbh mask stay). The recompute redoes the
 * FFN's two GEMMs: 2 x 2 x h x 4h = 16h^2 FLOPs per token.
 */
static void test_model_recompute_modules(void **state)
{
    struct model m;
    struct datafile_set s;
    double h = 12288, a = 96, sq = 2048;
    const struct model_layer *L;
    (void)state;
    set(&s, "training.selective=mlp");
    load(&m, "tests/data/gpt-korthikanti.ini", &s, 1);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_SELECTIVE],
                34 * h + 5 * a * sq - 16 * h, 1e-12);
    assert_near(L->recompute_other[MODEL_RECOMPUTE_SELECTIVE] +
                    L->recompute_fp8[MODEL_RECOMPUTE_SELECTIVE],
                16 * h * h, 1e-12);
    /* the FFN's all-gather and reduce-scatter are inside the module */
    assert_near(L->tp_recompute[MODEL_RECOMPUTE_SELECTIVE], 2, 0);
    model_release(&m);
}

/*
 * `moe` recomputes DeepSeek-V3's whole MoE block: it drops, per token,
 * the FP32 router scores (256 x 4 = 1024 B), the shared expert's gate/up
 * and SwiGLU outputs (3 x 2048 x 2 = 12288 B), and per routed copy (x 8)
 * the dispatched token (7168), gate/up (4096) and SwiGLU output (2048),
 * 2 bytes each: 8 x 13312 x 2 = 212992 B; 226304 B in all (BF16). It
 * redoes the router (2 x 256 x 7168 FLOPs) and nine experts
 * (9 x 3 x 7168 x 2048 x 2) and the dispatch and combine all-to-alls.
 */
static void test_model_moe_recompute(void **state)
{
    struct model m;
    struct datafile_set s;
    const struct model_layer *L;
    (void)state;
    set(&s, "training.selective=moe");
    load(&m, "data/models/deepseek-v3.ini", &s, 1);
    L = &m.layer[MODEL_LAYER_MOE];
    assert_near(L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_NONE] -
                    L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_SELECTIVE],
                226304, 1e-12);
    assert_near(L->recompute_fp8[MODEL_RECOMPUTE_SELECTIVE] +
                    L->recompute_other[MODEL_RECOMPUTE_SELECTIVE],
                2.0 * 256 * 7168 + 9.0 * 3 * 7168 * 2048 * 2, 1e-12);
    assert_true(L->ep_recompute[MODEL_RECOMPUTE_SELECTIVE]);
    assert_false(m.layer[MODEL_LAYER_MOE].ep_recompute[MODEL_RECOMPUTE_NONE]);
    model_release(&m);
}

/*
 * Korthikanti et al. 2022 §4.2.2, eq. (2): without sequence parallelism a
 * GPT layer keeps sbh(10 + 24/t + 5as/(ht)): 10h bytes per token lie
 * outside the tensor-parallel regions (the two LayerNorm inputs 2h + 2h,
 * their outputs 2h + 2h, the two dropout masks h + h).
 */
static void test_model_outside_tp_regions(void **state)
{
    struct model m;
    double h = 12288;
    (void)state;
    load(&m, "tests/data/gpt-korthikanti.ini", NULL, 0);
    assert_near(
        m.layer[MODEL_LAYER_DENSE].act_rep[MODEL_BF16][MODEL_RECOMPUTE_NONE],
        10 * h, 1e-12);
    /* full recomputation keeps the layer input alone, outside them */
    assert_near(
        m.layer[MODEL_LAYER_DENSE].act_rep[MODEL_BF16][MODEL_RECOMPUTE_FULL],
        2 * h, 1e-12);
    model_release(&m);
}

/*
 * Issue 11 item 7: a layer's backward rematerialises what recomputation
 * dropped and holds the gradient of its largest tensor beside it. GPT-3
 * (Korthikanti's layer), full recomputation: 34h + 5as - 2h (all but the
 * input) + the softmax output's gradient, a s elements x 2 bytes = 2as
 * (the largest: 2as = 393216 > the FC1 output's 8h = 98304): 32h + 7as
 * bytes per token, 1.55 GiB for a 2048-token sequence.
 */
static void test_model_backward_working_set(void **state)
{
    struct model m;
    double h = 12288, a = 96, sq = 2048;
    const struct model_layer *L;
    (void)state;
    load(&m, "tests/data/gpt-korthikanti.ini", NULL, 0);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->work_bytes[MODEL_BF16][MODEL_RECOMPUTE_FULL],
                32 * h + 7 * a * sq, 1e-12);
    /* selective (core_attn): the 5as of s x s tensors and that gradient */
    assert_near(L->work_bytes[MODEL_BF16][MODEL_RECOMPUTE_SELECTIVE],
                7 * a * sq, 1e-12);
    model_release(&m);
}

/*
 * TP with sequence parallelism: an all-gather and a reduce-scatter around
 * each TP-split block per pass (Korthikanti §4.2.2). A dense layer has
 * two blocks (attention, FFN): 4. Routed experts are split over ep, not
 * tp, so a MoE layer without shared experts (tests/data/tiny-moe.ini)
 * has the attention's 2, and DeepSeek-V3's (one TP-split shared expert,
 * as Megatron-LM's SharedExpertMLP) 4.
 */
static void test_model_tp_collectives_per_layer(void **state)
{
    struct model m;
    (void)state;
    load(&m, "tests/data/tiny-moe.ini", NULL, 0);
    assert_near(m.layer[MODEL_LAYER_MOE].tp_collectives, 2, 0);
    model_release(&m);
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_near(m.layer[MODEL_LAYER_MOE].tp_collectives, 4, 0);
    assert_near(m.layer[MODEL_LAYER_DENSE].tp_collectives, 4, 0);
    model_release(&m);
}

/* Stages cover every unit once, in order, embedding first, head last:
 * 61 layers and the MTP module (62 units). */
static void test_model_partition_covers_layers(void **state)
{
    struct model m;
    struct model_partition p;
    struct diag d;
    long k, next = 0, total = 0;
    (void)state;
    diag_init(&d);
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_int_equal(model_partition(&m, 16, 1, 1, MODEL_BALANCE_CHUNK, &p, &d),
                     STATUS_OK);
    for (k = 0; k < p.chunks; k++) {
        assert_int_equal(p.chunk[k].first, next);
        assert_true(p.chunk[k].count >= 1);
        next += p.chunk[k].count;
        total += p.chunk[k].moe_layers;
    }
    assert_int_equal(next, 62);
    /* 58 MoE layers (61, the first 3 dense) and the MTP module's block */
    assert_int_equal(total, 59);
    assert_int_equal(p.chunk[15].mtp_units, 1);
    assert_true(p.chunk[0].has_embedding);
    assert_true(p.chunk[15].has_head);
    model_partition_release(&p);
    /* 63 chunks for 62 units cannot be made */
    assert_int_equal(model_partition(&m, 63, 1, 1, MODEL_BALANCE_CHUNK, &p, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg,
                        "cannot split 62 layers into 63 pipeline chunks");
    model_release(&m);
}

/* Balanced by FLOPs: 61 near-equal layers, the MTP module (a layer and
 * the head again, ~2.5 layers) and the head (~1.4 layers) over 16 stages,
 * ~4.1 layer-equivalents each: the largest holds 4 layers. */
static void test_model_partition_balanced(void **state)
{
    struct model m;
    struct model_partition p;
    struct diag d;
    long k, most = 0;
    (void)state;
    diag_init(&d);
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_int_equal(model_partition(&m, 16, 1, 1, MODEL_BALANCE_CHUNK, &p, &d),
                     STATUS_OK);
    for (k = 0; k < p.chunks; k++)
        if (p.chunk[k].count > most)
            most = p.chunk[k].count;
    assert_int_equal(most, 4);
    model_partition_release(&p);
    model_release(&m);
}

/* Largest pair (c, n-1-c) of a split of m's units at start[0..n]. */
static double
largest_pair(const double *prefix, double head, const long *start, long n)
{
    double most = 0;
    long c;
    for (c = 0; c < n / 2; c++) {
        double pair = prefix[start[c + 1]] - prefix[start[c]] +
                      prefix[start[n - c]] - prefix[start[n - c - 1]] +
                      (c == 0 ? head : 0);
        if (pair > most)
            most = pair;
    }
    return most;
}

/*
 * Issue 11 item 1: DualPipe's rank c runs chunks c and n-1-c, so the
 * split must minimise the largest pair. Checked against every split of
 * DeepSeek-V3's 62 units into 6 chunks (C(61, 5) = 5,949,147 of them),
 * by FLOPs: each unit's forward FLOPs (an MTP module's with the head run
 * again), the head's on the last chunk. The chunk-balanced split, which
 * the pair split replaces, is no better.
 */
static void test_model_partition_pairs_brute_force(void **state)
{
    struct model m;
    struct model_partition pair, chunk;
    struct diag d;
    double prefix[63], best = HUGE_VAL, head;
    long u, st[7], got[7], k;
    (void)state;
    diag_init(&d);
    load(&m, "data/models/deepseek-v3.ini", NULL, 0);
    head = m.head_fwd;
    prefix[0] = 0;
    for (u = 0; u < 62; u++) {
        const struct model_layer *L = &m.layer[model_unit_kind(&m, u)];
        prefix[u + 1] =
            prefix[u] + L->fwd_fp8 + L->fwd_other + (u >= 61 ? m.head_fwd : 0);
    }
    st[0] = 0;
    st[6] = 62;
    for (st[1] = 1; st[1] < 62; st[1]++)
        for (st[2] = st[1] + 1; st[2] < 62; st[2]++)
            for (st[3] = st[2] + 1; st[3] < 62; st[3]++)
                for (st[4] = st[3] + 1; st[4] < 62; st[4]++)
                    for (st[5] = st[4] + 1; st[5] < 62; st[5]++) {
                        double v = largest_pair(prefix, head, st, 6);
                        if (v < best)
                            best = v;
                    }
    assert_int_equal(
        model_partition(&m, 6, 1, 1, MODEL_BALANCE_PAIR, &pair, &d), STATUS_OK);
    assert_int_equal(
        model_partition(&m, 6, 1, 1, MODEL_BALANCE_CHUNK, &chunk, &d),
        STATUS_OK);
    for (k = 0; k < 6; k++)
        got[k] = pair.chunk[k].first;
    got[6] = 62;
    assert_near(largest_pair(prefix, head, got, 6), best, 1e-9);
    for (k = 0; k < 6; k++)
        got[k] = chunk.chunk[k].first;
    assert_true(largest_pair(prefix, head, got, 6) >= best);
    /* a pair's cost is what model_chunk_cost sums */
    assert_near(model_chunk_cost(&pair.chunk[0], 1, 1) +
                    model_chunk_cost(&pair.chunk[5], 1, 1),
                prefix[pair.chunk[1].first] +
                    (prefix[62] - prefix[pair.chunk[5].first]) + head,
                1e-12);
    model_partition_release(&pair);
    assert_int_equal(
        model_partition(&m, 5, 1, 1, MODEL_BALANCE_PAIR, &pair, &d),
        STATUS_RANGE);
    model_partition_release(&chunk);
    model_release(&m);
}

/*
 * The pair split is never worse than the chunk split, and is a split:
 * every chunk non-empty, in order. DeepSeek-V3 with and without its MTP
 * module, every even chunk count to 32, by FP8 time (weights 1/rate at
 * 1460 and 758 TFLOP/s x 112/132 SMs, as cost_ctx_prepare passes them
 * for the H800). Without MTP at 16 chunks the
 * chunk split is already the best pair split (rounding once left the
 * pair search nothing to walk back: chunks of 0 layers).
 */
static void test_model_partition_pairs_never_worse(void **state)
{
    struct datafile_set s;
    struct diag d;
    int depth;
    (void)state;
    diag_init(&d);
    for (depth = 0; depth <= 1; depth++) {
        struct model m;
        long chunks, k, u;
        double prefix[64];
        double w8 = 132 / (1460e12 * 112), w16 = 132 / (758e12 * 112);
        set(&s, depth ? "mtp.depth=1" : "mtp.depth=0");
        load(&m, "data/models/deepseek-v3.ini", &s, 1);
        prefix[0] = 0;
        for (u = 0; u < m.units; u++) {
            const struct model_layer *L = &m.layer[model_unit_kind(&m, u)];
            prefix[u + 1] = prefix[u] + L->fwd_fp8 * w8 + L->fwd_other * w16 +
                            (u >= 61 ? m.head_fwd * w16 : 0);
        }
        for (chunks = 4; chunks <= 32; chunks += 2) {
            struct model_partition pair, chunk;
            long a[33], b[33];
            assert_int_equal(model_partition(&m, chunks, w8, w16,
                                             MODEL_BALANCE_PAIR, &pair, &d),
                             STATUS_OK);
            assert_int_equal(model_partition(&m, chunks, w8, w16,
                                             MODEL_BALANCE_CHUNK, &chunk, &d),
                             STATUS_OK);
            for (k = 0; k < chunks; k++) {
                assert_true(pair.chunk[k].count >= 1);
                a[k] = pair.chunk[k].first;
                b[k] = chunk.chunk[k].first;
            }
            a[chunks] = b[chunks] = m.units;
            for (k = 0; k < chunks; k++)
                assert_int_equal(a[k] + pair.chunk[k].count, a[k + 1]);
            assert_true(largest_pair(prefix, m.head_fwd * w16, a, chunks) <=
                        largest_pair(prefix, m.head_fwd * w16, b, chunks) *
                            (1 + 1e-9));
            model_partition_release(&pair);
            model_partition_release(&chunk);
        }
        model_release(&m);
    }
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
        cmocka_unit_test(test_model_deepseek_mtp_always_runs),
        cmocka_unit_test(test_model_recompute_modules),
        cmocka_unit_test(test_model_moe_recompute),
        cmocka_unit_test(test_model_outside_tp_regions),
        cmocka_unit_test(test_model_backward_working_set),
        cmocka_unit_test(test_model_tp_collectives_per_layer),
        cmocka_unit_test(test_model_partition_pairs_brute_force),
        cmocka_unit_test(test_model_partition_pairs_never_worse),
        cmocka_unit_test(test_model_qwen3_235b_card),
        cmocka_unit_test(test_model_kimi_k2_card),
        cmocka_unit_test(test_model_mixtral_8x22b_card),
        cmocka_unit_test(test_model_llama31_70b_card),
        cmocka_unit_test(test_model_qk_norm),
        cmocka_unit_test(test_model_qkv_bias),
        cmocka_unit_test(test_model_qk_norm_not_on_mla),
        cmocka_unit_test(test_model_korthikanti_no_recompute),
        cmocka_unit_test(test_model_korthikanti_recompute),
        cmocka_unit_test(test_model_gpt3_params),
        cmocka_unit_test(test_model_llama3_params),
        cmocka_unit_test(test_model_partition_covers_layers),
        cmocka_unit_test(test_model_partition_balanced),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
