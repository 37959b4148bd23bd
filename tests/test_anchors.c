/*
 * test_anchors: the published-number checks. Unlike the unit tests, which
 * read the snapshots in tests/data/snap/ so that editing a value in data/
 * breaks no test of unrelated code, these read the shipped data/ files on
 * purpose: each asserts that a model file, as shipped, reproduces a figure
 * its authors published (a paper's table, a model card's totals). A data
 * edit that moves such a figure fails here, and only here.
 *
 * Stage: input (the shipped model files against published figures)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "cost.h"
#include "validate.h"
#include "model.h"
#include "test_util.h"
#include "validation.h"

/* DeepSeek-V3 report §4.2 and README_WEIGHTS.md: 671B total, 37B active
 * (36.7B + 0.9B head counted separately = 37.5B with embedding and head:
 * shared/facts §1, "671.0B total, 37.55B active"). */
static void test_anchors_deepseek_v3_params(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_near(m.params_total, 671.0e9, 0.003);
    assert_near(m.params_active, 37.5e9, 0.01);
    /* README_WEIGHTS.md: MTP has 11.5B unique parameters (we count the
     * eh_proj and norms too: 11.6B, shared/facts §1). */
    assert_near(m.params_mtp, 11.6e9, 0.01);
    model_release(&m);
}

/* DeepSeek ISCA'25 (arXiv 2505.09343) Table 2: 250 GFLOPs per token for
 * training DeepSeek-V3 at 4K, causal, MTP excluded; from the config
 * (shared/facts §3): main model 250.4 GFLOPs/token, + 10.2 for the MTP
 * module (one MoE block, the 2d x d eh_proj and the shared head run
 * again) = 260.6, the figure frameworks report when they count MTP
 * (Megatron-Bridge flop_utils.py). The file counts MTP out of MFU, as
 * DeepSeek's 250 does (mtp.count_in_mfu = false). */
static void test_anchors_deepseek_v3_flops(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/deepseek-v3.ini", NULL, 0);
    assert_near(m.flops_per_token, 250e9, 0.02);
    assert_near(m.flops_per_token, 250.4e9, 0.001);
    assert_near(m.flops_per_token_run, 260.6e9, 0.001);
    assert_near(m.flops_per_token_run - m.flops_per_token_main, 10.2e9, 0.01);
    model_release(&m);
}

/*
 * Korthikanti et al. 2022 (arXiv 2205.05198), GPT-3 175B as shipped, with
 * attention as their runs had it (no flash attention: --set). §4.1,
 * eq. (1): a layer with dropout saves s*b*h*(34 + 5*a*s/h) bytes, 34h +
 * 5as per token; Table 2: selective recomputation leaves 34 s*b*h, full
 * recomputation 2 s*b*h. §4.2.2, eq. (2): without sequence parallelism
 * 10 s*b*h of it lie outside the tensor-parallel regions (the layer
 * input alone, 2h, under full recomputation).
 */
static void test_anchors_korthikanti_34sbh(void **state)
{
    struct model m;
    struct datafile_set s;
    const struct model_layer *L;
    double h = 12288, a = 96, sq = 2048;
    (void)state;
    util_set(&s, "model.flash_attention=false");
    util_model(&m, "data/models/gpt3-175b.ini", &s, 1);
    L = &m.layer[MODEL_LAYER_DENSE];
    assert_near(L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_NONE],
                34 * h + 5 * a * sq, 1e-12);
    assert_near(L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_SELECTIVE], 34 * h,
                1e-12);
    assert_near(L->act_bytes[MODEL_BF16][MODEL_RECOMPUTE_FULL], 2 * h, 1e-12);
    assert_near(L->act_rep[MODEL_BF16][MODEL_RECOMPUTE_NONE], 10 * h, 1e-12);
    assert_near(L->act_rep[MODEL_BF16][MODEL_RECOMPUTE_FULL], 2 * h, 1e-12);
    model_release(&m);
}

/* Brown et al. 2020 Table 2.1: GPT-3 175.0B (Megatron-LM Table 2 lists the
 * same shape at 174.6B with its vocabulary). */
static void test_anchors_gpt3_params(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/gpt3-175b.ini", NULL, 0);
    assert_near(m.params_total, 175.0e9, 0.005);
    model_release(&m);
}

/* Llama 3 paper (arXiv 2407.21783) Table 3: 405B parameters. */
static void test_anchors_llama3_405b(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/llama-3-405b.ini", NULL, 0);
    assert_near(m.params_total, 405e9, 0.005);
    /* Llama 3 §3.2.1: 3.8e25 FLOPs for 15.6T tokens = 2.44e12 per token,
     * counted as 6N (no attention scores); causal attention at 8K adds
     * about 4%, the embedding lookup none. */
    assert_near(m.flops_per_token, 3.8e25 / 15.6e12, 0.05);
    model_release(&m);
}

/* Qwen3-235B-A22B's card (huggingface.co/Qwen/Qwen3-235B-A22B): "235B in
 * total and 22B activated", "Non-Embedding: 234B", each within half a unit
 * of its last digit. */
static void test_anchors_qwen3_235b_card(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/qwen3-235b-a22b.ini", NULL, 0);
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
static void test_anchors_kimi_k2_card(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/kimi-k2.ini", NULL, 0);
    assert_near(m.params_total, 1026408209408.0, 1e-15);
    assert_near(m.params_total, 1e12, 0.5 / 10); /* "1T": 1 significant digit */
    assert_near(m.params_active, 32e9, 1.0 / 32); /* within 1B of "32B" */
    assert_near(m.params_active, 32.6e9, 0.01);
    model_release(&m);
}

/* Mistral's announcement (mistral.ai/news/mixtral-8x22b): "39B active
 * parameters out of 141B", within half a unit of the last digit. */
static void test_anchors_mixtral_8x22b_card(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/mixtral-8x22b.ini", NULL, 0);
    assert_near(m.params_total, 141e9, 0.5 / 141);
    assert_near(m.params_active, 39e9, 0.5 / 39);
    model_release(&m);
}

/* Llama 3.1 70B, by hand: per layer q and o 8192x8192, k and v 8192x1024,
 * MLP 3x8192x28672, two norms: 855,654,400; x 80 + final norm 8192 +
 * embedding and head 2x128256x8192 = 70,553,706,496. The card's "70B"
 * names the size; within 1%. */
static void test_anchors_llama31_70b_card(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/llama-3.1-70b.ini", NULL, 0);
    assert_near(m.params_total, 70553706496.0, 1e-15);
    assert_near(m.params_total, 70e9, 0.01);
    model_release(&m);
}

/* Llama 3 8B, by hand (arXiv 2407.21783 Table 3): per layer q and o
 * 4096x4096, k and v 4096x1024, MLP 3x4096x14336, two norms: 218,112,000;
 * x 32 + final norm 4096 + embedding and head 2x128256x4096 =
 * 8,030,261,248, the "8.03B" Hugging Face lists for the checkpoint. */
static void test_anchors_llama3_8b_card(void **state)
{
    struct model m;
    (void)state;
    util_model(&m, "data/models/llama-3-8b.ini", NULL, 0);
    assert_near(m.params_total, 8030261248.0, 1e-15);
    assert_near(m.params_total, 8.03e9, 0.5 / 803);
    model_release(&m);
}

/*
 * A run that was measured ran (issue 17 item 9): each validation run's
 * published plan, on its own files and recipe, fits in its GPUs' memory
 * (cost_evaluate's fits: total <= HBM; the report's planning headroom is
 * not a measured run's). One known exception, left open: Llama 3 405B on
 * 8192 H100 needs 83.1 of 79.2 GiB on its pipeline rank 1, 70.2 GiB of it
 * Megatron's interleaved warm-up (2(16-1-1) + (8-1)16 + 1 = 141 chunk
 * micro-batches of one layer, 533 MB a layer at 8K tokens, TP 8): the
 * paper's own memory optimisations (arXiv 2407.21783 §3.3.2: tensors
 * deallocated by profiling, a tunable schedule) are not modelled.
 */
static void test_anchors_published_plans_fit(void **state)
{
    struct validation_runs all;
    const struct validation_run *runs;
    size_t n, i;
    struct diag d;
    (void)state;
    diag_init(&d);
    if (validation_load_dir("data", &all, &d))
        fail_msg("%s", d.msg);
    runs = all.run;
    n = all.n;
    assert_true(n >= 6);
    for (i = 0; i < n; i++) {
        struct validation_inputs in;
        struct cost_ctx ctx;
        struct cost_result r;
        struct plan p;
        const char *base = strrchr(runs[i].path, '/');
        bool open = base && strcmp(base, "/llama3-405b-h100-8k.ini") == 0;
        if (validation_load_inputs(&runs[i], "data/training/default.ini",
                                   "data", NULL, NULL, &in, &d) ||
            validate_plan(&runs[i], &in, &p, &d) ||
            cost_ctx_init(&ctx, in.m, in.hw, COMM_TOPO, &d) ||
            cost_ctx_prepare_plan(&ctx, &p, &d))
            fail_msg("%s: %s", runs[i].path, d.msg);
        ctx.stack = in.stack;
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
        print_message("%s: %.2f of %.2f GiB%s\n", runs[i].path,
                      r.mem.total / 1073741824.0, r.mem.capacity / 1073741824.0,
                      open ? " (known: does not fit)" : "");
        if (open)
            assert_false(r.fits); /* fixed? drop it from the exception */
        else if (!r.fits)
            fail_msg("%s: its published plan does not fit: %.2f of %.2f GiB",
                     runs[i].path, r.mem.total / 1073741824.0,
                     r.mem.capacity / 1073741824.0);
        cost_ctx_release(&ctx);
        validation_inputs_release(&in);
    }
    validation_runs_release(&all);
}

/* One run's measured and expected step (test_anchors_same_cluster_order). */
struct run_steps {
    const struct validation_run *run;
    long gpus;
    double measured_s, expected_s;
};

static void run_steps(const struct validation_run *run, struct run_steps *out)
{
    struct validation_inputs in;
    struct cost_ctx ctx;
    struct cost_result r;
    struct plan p;
    struct diag d;
    diag_init(&d);
    if (validation_load_inputs(run, "data/training/default.ini", "data", NULL,
                               NULL, &in, &d) ||
        validate_plan(run, &in, &p, &d) ||
        cost_ctx_init(&ctx, in.m, in.hw, COMM_TOPO, &d) ||
        cost_ctx_prepare_plan(&ctx, &p, &d))
        fail_msg("%s: %s", run->path, d.msg);
    ctx.stack = in.stack;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
    out->run = run;
    out->gpus = p.gpus;
    out->measured_s = validation_measured_step(run, r.work.model_flops);
    out->expected_s = r.t.expected;
    cost_ctx_release(&ctx);
    validation_inputs_release(&in);
}

/* The file name of a run's path ("qwen3-235b-h100-a2a.ini"). */
static const char *base_name(const struct validation_run *run)
{
    const char *b = strrchr(run->path, '/');
    return b ? b + 1 : run->path;
}

/*
 * Pairs of runs measured on one cluster (the same `cluster` in data/
 * validation) whose expected steps are still in the other order than
 * measured, each with its cause in docs/validation.md ("The Qwen3-235B
 * pairs still reversed"): the NCCL all-to-all PP32 run's missing 4.9 s
 * (no mechanism the source sizes), which puts it ahead of the DeepEP EP32
 * run and of Megatron-Bridge's FP8 run; and that FP8 run against the BF16
 * DeepEP EP32 run (20.06 against 20.74 s, measured 20.80 and 19.7): both
 * runs under combined 1F1B are 4-8% fast where their twins without it
 * are 5% slow.
 */
static const char *const reversed_known[][2] = {
    {"qwen3-235b-h100-a2a.ini", "qwen3-235b-h100-deepep-ep32.ini"},
    {"qwen3-235b-h100-a2a.ini", "qwen3-235b-h100-mbridge-fp8-a2a.ini"},
    {"qwen3-235b-h100-deepep-ep32.ini", "qwen3-235b-h100-mbridge-fp8-a2a.ini"},
};

static bool known_reversed(const struct run_steps *a, const struct run_steps *b)
{
    size_t k;
    for (k = 0; k < sizeof reversed_known / sizeof reversed_known[0]; k++)
        if ((strcmp(base_name(a->run), reversed_known[k][0]) == 0 &&
             strcmp(base_name(b->run), reversed_known[k][1]) == 0) ||
            (strcmp(base_name(b->run), reversed_known[k][0]) == 0 &&
             strcmp(base_name(a->run), reversed_known[k][1]) == 0))
            return true;
    return false;
}

/*
 * Runs measured on one cluster keep their measured order (issue 36,
 * issue 38 item 7): for every two runs of data/validation naming the same
 * `cluster` (which must be the same model, hardware file and GPU count),
 * the one that measured the longer step has the longer expected step
 * (runs that measured the same step are left out: no order to keep).
 * Each pair still reversed is listed above with its cause; any other
 * reversal fails, and so does a listed pair that is no longer reversed.
 */
static void test_anchors_same_cluster_order(void **state)
{
    struct validation_runs all;
    struct run_steps *st;
    size_t i, j, pairs = 0, known = 0;
    struct diag d;
    (void)state;
    diag_init(&d);
    if (validation_load_dir("data", &all, &d))
        fail_msg("%s", d.msg);
    st = calloc(all.n, sizeof *st);
    assert_non_null(st);
    for (i = 0; i < all.n; i++)
        if (all.run[i].cluster[0])
            run_steps(&all.run[i], &st[i]);
    for (i = 0; i < all.n; i++)
        for (j = i + 1; j < all.n; j++) {
            const struct run_steps *a = &st[i], *b = &st[j];
            bool reversed;
            if (!all.run[i].cluster[0] ||
                strcmp(all.run[i].cluster, all.run[j].cluster) != 0)
                continue;
            if (strcmp(a->run->model_path, b->run->model_path) != 0 ||
                strcmp(a->run->hardware_path, b->run->hardware_path) != 0 ||
                a->gpus != b->gpus)
                fail_msg("%s, %s: one cluster, but not the same model, "
                         "hardware and GPU count",
                         a->run->path, b->run->path);
            assert_true(a->measured_s > 0 && b->measured_s > 0);
            if (a->measured_s == b->measured_s)
                continue;
            pairs++;
            reversed = (a->measured_s - b->measured_s) *
                           (a->expected_s - b->expected_s) <
                       0;
            print_message("%s %s: measured %.2f %.2f s, expected %.2f %.2f "
                          "s%s\n",
                          base_name(a->run), base_name(b->run), a->measured_s,
                          b->measured_s, a->expected_s, b->expected_s,
                          reversed ? ": REVERSED" : "");
            if (known_reversed(a, b)) {
                known++;
                if (!reversed)
                    fail_msg("%s, %s: in order now: drop the pair from "
                             "reversed_known and docs/validation.md",
                             a->run->path, b->run->path);
            } else if (reversed) {
                fail_msg("%s (measured %.2f s, expected %.2f s) and %s "
                         "(%.2f s, %.2f s), measured on one cluster, are in "
                         "the other order",
                         a->run->path, a->measured_s, a->expected_s,
                         b->run->path, b->measured_s, b->expected_s);
            }
        }
    /* every listed pair was met (a renamed file fails here) */
    assert_int_equal(known, sizeof reversed_known / sizeof reversed_known[0]);
    assert_true(pairs > known);
    free(st);
    validation_runs_release(&all);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_anchors_deepseek_v3_params),
        cmocka_unit_test(test_anchors_deepseek_v3_flops),
        cmocka_unit_test(test_anchors_korthikanti_34sbh),
        cmocka_unit_test(test_anchors_gpt3_params),
        cmocka_unit_test(test_anchors_llama3_405b),
        cmocka_unit_test(test_anchors_qwen3_235b_card),
        cmocka_unit_test(test_anchors_kimi_k2_card),
        cmocka_unit_test(test_anchors_mixtral_8x22b_card),
        cmocka_unit_test(test_anchors_llama31_70b_card),
        cmocka_unit_test(test_anchors_llama3_8b_card),
        cmocka_unit_test(test_anchors_published_plans_fit),
        cmocka_unit_test(test_anchors_same_cluster_order),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
