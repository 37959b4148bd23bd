/*
 * test_expected: the expected step's work and waterfall, by hand, on a
 * calibration whose rates are flat and half the snapshot H800's
 * achievable ones (tests/data/calibration/flat.ini): every GEMM and the
 * attention core then take exactly twice their speed-of-light time, the
 * sustained clock is 640/800 = 0.8 of the burst, HBM traffic moves at
 * 1.5 TB/s (half of 3), a fine-grained FP8 recipe halves the FP8 GEMM
 * rate, and every NVLink all-reduce runs at 50 of its curve's top 100
 * GB/s. The DeepSeek stack (tests/data/snap/stacks) gives the overlaps.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "cost.h"
#include "expected.h"
#include "stack.h"
#include "test_util.h"

struct fixture {
    struct model gpt, moe;
    struct hardware hw;
    struct calibration cal;
    struct stack stack;
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/gpt-korthikanti.ini", &f.gpt, NULL, 0, &d) ||
        model_load("tests/data/tiny-moe.ini", &f.moe, NULL, 0, &d)) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    if (util_calibrated_cluster(&f.hw, &f.cal, &f.stack) != 0)
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    model_release(&f->gpt);
    model_release(&f->moe);
    util_calibrated_cluster_release(&f->hw, &f->cal, &f->stack);
    return 0;
}

/* Plan `text` of model m evaluated with the fixture's calibration and
 * stack (stack NULL: none). */
static void evaluate(const struct fixture *f,
                     const struct model *m,
                     const char *text,
                     const struct stack *st,
                     struct cost_result *r)
{
    struct plan p;
    struct cost_ctx ctx;
    util_plan(m, &f->hw, text, &p);
    util_ctx(&ctx, m, &f->hw, COMM_TOPO, &p);
    ctx.stack = st;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, r);
    cost_ctx_release(&ctx);
}

/* Plan `text` of the model file at path with one --set (set_text),
 * evaluated as evaluate() does with the fixture's stack. */
static void evaluate_set(const struct fixture *f,
                         const char *path,
                         const char *set_text,
                         const char *text,
                         struct cost_result *r)
{
    struct model m;
    struct datafile_set set;
    struct diag d;
    diag_init(&d);
    assert_int_equal(datafile_parse_set(set_text, &set, &d), STATUS_OK);
    assert_int_equal(model_load(path, &m, &set, 1, &d), STATUS_OK);
    evaluate(f, &m, text, &f->stack, r);
    model_release(&m);
}

/*
 * One GPU, BF16, no communication. GEMMs and attention at half the
 * achievable rate take twice their speed-of-light time; compute is their
 * sum over the clock plus the elementwise work, the clock's loss (1 -
 * 0.8) scaled by their share of the kernels' time (terms.c); HBM traffic
 * and the optimizer's at 1.5 TB/s; the step is the optimizer plus the
 * larger of compute and HBM (no bubble, no DP, no exposed link).
 */
static void test_expected_flat_rates_by_hand(void **state)
{
    struct fixture *f = *state;
    struct cost_result r;
    const struct expected_work *x;
    double compute, bound;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &f->stack, &r);
    x = &r.work.x;
    assert_true(x->known);
    assert_true(x->gemm_sol_s > 0 && x->attn_sol_s > 0 && x->ew_s > 0);
    assert_near(x->gemm_cal_s, 2 * x->gemm_sol_s, 1e-12);
    assert_near(x->attn_cal_s, 2 * x->attn_sol_s, 1e-12);
    /* the speed of light's compute is the same FLOPs at 758 TFLOP/s */
    assert_near(x->gemm_sol_s + x->attn_sol_s,
                (r.work.bf16_flops + r.work.fp8_flops) / 758e12, 1e-12);
    /* the clock's loss, 1 - 0.8, in proportion to the GEMM and attention
     * share of the kernels' time (flat.ini has no burst window) */
    bound = x->gemm_cal_s + x->attn_cal_s;
    compute = bound / (1 - 0.2 * bound / (bound + x->ew_s)) + x->ew_s;
    assert_near(r.t.x_compute, compute, 1e-12);
    assert_true(compute < bound / 0.8 + x->ew_s);
    assert_near(r.t.x_hbm, r.work.hbm_bytes / 1.5e12, 1e-12);
    assert_near(r.t.x_optimizer, r.work.optimizer_bytes / 1.5e12, 1e-12);
    assert_near(r.t.expected,
                r.t.x_optimizer +
                    (r.t.x_compute > r.t.x_hbm ? r.t.x_compute : r.t.x_hbm),
                1e-12);
    /* no calibration work without a stack */
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", NULL, &r);
    assert_false(r.work.x.known);
    assert_near(cost_rank_step(&r), r.t.step, 0);
}

/*
 * The burst window (clock.burst_s): the first burst_s of a step's kernels
 * run at the burst rate, the loss applies beyond it. With the window at
 * half the kernels' time the loss of the flat calibration (1 - 0.8, times
 * the compute-bound share d) halves: clock 1 - 0.2 d / 2; with a window
 * longer than the step there is none, and the waterfall's clock bar is 0.
 */
static void test_expected_clock_burst_window_by_hand(void **state)
{
    struct fixture *f = *state;
    struct hardware hw = f->hw;
    struct calibration cal;
    struct datafile_set set;
    struct diag d;
    struct cost_result r;
    struct plan p;
    struct cost_ctx ctx;
    double bound, kernels, d_share, sol, step[EXPECTED_EFFECTS];
    char text[64];
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &f->stack, &r);
    bound = r.work.x.gemm_cal_s + r.work.x.attn_cal_s;
    kernels = bound + r.work.x.ew_s;
    d_share = bound / kernels;
    diag_init(&d);
    snprintf(text, sizeof text, "clock.burst_s=%.17g", kernels / 2);
    assert_int_equal(datafile_parse_set(text, &set, &d), STATUS_OK);
    assert_int_equal(
        calibration_load("tests/data/calibration/flat.ini", &cal, &set, 1, &d),
        STATUS_OK);
    hw.cal = &cal;
    util_plan(&f->gpt, &hw, "gpus=1 mbs=1 gbs=1", &p);
    util_ctx(&ctx, &f->gpt, &hw, COMM_TOPO, &p);
    ctx.stack = &f->stack;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
    cost_ctx_release(&ctx);
    assert_near(r.t.x_compute,
                bound / (1 - 0.2 * d_share * 0.5) + r.work.x.ew_s, 1e-12);
    calibration_release(&cal);
    snprintf(text, sizeof text, "clock.burst_s=60");
    assert_int_equal(datafile_parse_set(text, &set, &d), STATUS_OK);
    assert_int_equal(
        calibration_load("tests/data/calibration/flat.ini", &cal, &set, 1, &d),
        STATUS_OK);
    assert_true(kernels < 60);
    util_ctx(&ctx, &f->gpt, &hw, COMM_TOPO, &p);
    ctx.stack = &f->stack;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
    cost_ctx_release(&ctx);
    assert_near(r.t.x_compute, kernels, 1e-12);
    expected_waterfall(&r.work, &hw, &f->gpt, r.plan.precision, &sol, step);
    assert_near(step[EXPECTED_CLOCK] - step[EXPECTED_CLOCK - 1], 0, 1e-12);
    calibration_release(&cal);
}

/* Plan `text` of model m with calibration flat.ini and one --set
 * (set_text), with the fixture's stack. */
static void evaluate_cal(const struct fixture *f,
                         const struct model *m,
                         const char *set_text,
                         const char *text,
                         struct cost_result *r)
{
    struct hardware hw = f->hw;
    struct calibration cal;
    struct datafile_set set;
    struct plan p;
    struct cost_ctx ctx;
    struct diag d;
    diag_init(&d);
    assert_int_equal(datafile_parse_set(set_text, &set, &d), STATUS_OK);
    assert_int_equal(
        calibration_load("tests/data/calibration/flat.ini", &cal, &set, 1, &d),
        STATUS_OK);
    hw.cal = &cal;
    util_plan(m, &hw, text, &p);
    util_ctx(&ctx, m, &hw, COMM_TOPO, &p);
    ctx.stack = &f->stack;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, r);
    cost_ctx_release(&ctx);
    calibration_release(&cal);
}

/*
 * The scans' own rates ([scan], issue 39). tests/data/hybrid-seven.ini has
 * one Mamba-2 layer and one Gated DeltaNet layer; forward FLOPs a token
 * (docs/model.md's counts, defaults: chunks 256 and 64, 4 taps):
 * SSD 2(g Q N + h(Q P + 2 N P)) + 2 taps conv = 2(1x256x2 + 2(256x4 +
 * 2x2x4)) + 2x4x12 = 5,280; the delta rule 2 hv (3 C dk + 2 C dv + C^2/3
 * + 3 dk dv) + 2 taps conv = 4(768 + 512 + 4096/3 + 48) + 2x4x16 =
 * 10,901.33. One GPU, 4 sequences of 16: 64 tokens a step, 3 x the
 * forward with the backward. Without [scan] they run at the attention
 * kernel's forward rate (flat: 379 TFLOP/s); at ssd 37.9 and linear 75.8
 * the attention term grows by exactly their FLOPs' extra time, and the
 * GEMMs' does not move (the scans are not in it). The speed of light
 * counts them with the attention core.
 */
static void test_expected_scan_rates_by_hand(void **state)
{
    struct fixture *f = *state;
    struct model m;
    struct cost_result a, b;
    struct diag d;
    const char *plan = "gpus=1 mbs=1 gbs=4 precision=bf16";
    double ssd = 3 * 64 * 5280.0, lin = 3 * 64 * (10773.0 + 1.0 / 3 + 128);
    diag_init(&d);
    assert_int_equal(model_load("tests/data/hybrid-seven.ini", &m, NULL, 0, &d),
                     STATUS_OK);
    evaluate_cal(f, &m, "clock.burst_s=0", plan, &a);
    evaluate_cal(f, &m, "scan.ssd_fwd_tflops=37.9", plan, &b);
    assert_near(b.work.x.attn_cal_s - a.work.x.attn_cal_s,
                ssd * (1 / 37.9e12 - 1 / 379e12), 1e-9);
    evaluate_cal(f, &m, "scan.linear_fwd_tflops=75.8", plan, &b);
    assert_near(b.work.x.attn_cal_s - a.work.x.attn_cal_s,
                lin * (1 / 75.8e12 - 1 / 379e12), 1e-9);
    assert_near(b.work.x.gemm_cal_s, a.work.x.gemm_cal_s, 1e-12);
    /* at the attention rate (half the achievable), as the core is */
    assert_near(a.work.x.attn_cal_s, 2 * a.work.x.attn_sol_s, 1e-12);
    assert_true(a.work.x.attn_sol_s >= (ssd + lin) / 758e12);
    model_release(&m);
}

/*
 * Host launch work (stack host_us_per_kernel x kernels_per_layer): one
 * GPU, one micro-batch of the 96-layer GPT, so 96 layer passes. At 1000
 * kernels of 1000 us a layer the host takes 96 x 1000 x 1e-3 = 96 s,
 * longer than the kernels (about 6 s of GEMMs): compute is the host's
 * time. At 10 kernels of 1 us (0.96 ms) the host runs ahead and compute
 * is the kernels' as without it. With CUDA graphs a layer is 2 launches
 * (its forward and backward graphs): 96 x 2 x 1000 us = 0.192 s. The
 * waterfall's host effect adds exactly the difference.
 */
static void test_expected_host_overhead_by_hand(void **state)
{
    struct fixture *f = *state;
    struct stack st = f->stack;
    struct cost_result r, base;
    double kernels, sol, step[EXPECTED_EFFECTS];
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &f->stack, &base);
    assert_near(base.work.x.host_s, 0, 0); /* the test stack has none */
    kernels = base.t.x_compute;
    st.spec.host_us_per_kernel = 1000;
    st.spec.kernels_per_layer = 1000;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &st, &r);
    assert_near(r.work.x.host_s, 96.0, 1e-12);
    assert_true(kernels < 96.0);
    assert_near(r.t.x_compute, 96.0, 1e-12);
    expected_waterfall(&r.work, &f->hw, &f->gpt, r.plan.precision, &sol, step);
    assert_near(step[EXPECTED_HOST] - step[EXPECTED_HOST - 1],
                r.t.expected - base.t.expected, 1e-9);
    st.spec.host_us_per_kernel = 1;
    st.spec.kernels_per_layer = 10;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &st, &r);
    assert_near(r.work.x.host_s, 96 * 10 * 1e-6, 1e-15);
    assert_near(r.t.x_compute, kernels, 0);
    /* A framework that syncs host and device in each layer: at 50 us x
     * 1000 kernels the host's 4.8 s run under the ~6 s of kernels, but
     * half of them (2.4 s) are launches the GPU waits for beside the
     * GEMMs and attention: compute is those plus the larger of the
     * elementwise time and 2.4 s. */
    st.spec.host_us_per_kernel = 50;
    st.spec.kernels_per_layer = 1000;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &st, &r);
    assert_near(r.work.x.host_s, 4.8, 1e-12);
    assert_near(r.t.x_compute, kernels, 0); /* runs ahead: hidden */
    st.spec.host_sync_share = 0.5;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &st, &r);
    assert_near(r.work.x.host_paced_s, 2.4, 1e-12);
    assert_true(base.work.x.ew_s < 2.4);
    assert_near(r.t.x_compute, kernels - base.work.x.ew_s + 2.4, 1e-9);
    expected_waterfall(&r.work, &f->hw, &f->gpt, r.plan.precision, &sol, step);
    assert_near(step[EXPECTED_HOST] - step[EXPECTED_HOST - 1],
                r.t.expected - base.t.expected, 1e-9);
    st.spec.host_sync_share = 0;
    st.spec.host_us_per_kernel = 1000;
    st.spec.kernels_per_layer = 1000;
    st.spec.cuda_graphs = STACK_GRAPH_BIT(STACK_GRAPH_LAYER);
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &st, &r);
    assert_near(r.work.x.host_s, 96 * 2 * 1e-3, 1e-12);
    assert_near(r.t.x_compute, kernels, 0);
    /* A partial scope (Megatron's attn): half of each dense layer's 1000
     * kernels replayed from a graph a pass, the other 500 launched, 502
     * launches a layer: 96 x 502 x 1 ms = 48.192 s, by hand; with mlp
     * too, the whole layer from two graphs a pass: 96 x 4 x 1 ms. */
    st.spec.cuda_graphs = STACK_GRAPH_BIT(STACK_GRAPH_ATTN);
    st.spec.attn_kernel_share = 0.5;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &st, &r);
    assert_near(r.work.x.host_s, 48.192, 1e-12);
    st.spec.cuda_graphs |= STACK_GRAPH_BIT(STACK_GRAPH_MLP);
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &st, &r);
    assert_near(r.work.x.host_s, 96 * 4 * 1e-3, 1e-12);
    /* A host CPU 2.75x slower per operation than the x86 host the
     * stack's figure is from (the hardware file's host_op_factor): the
     * same launches take 2.75x the time, 96 x 4 x 2.75 ms. */
    f->hw.spec.host_op_factor = 2.75;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &st, &r);
    f->hw.spec.host_op_factor = 1;
    assert_near(r.work.x.host_s, 96 * 4 * 2.75e-3, 1e-12);
}

/*
 * Per-expert host work (the stack's expert_host_us, Transformer Engine's
 * per-expert grouped GEMM): tiny-moe's 4 MoE layers at EP2 leave 8 of its
 * 16 experts on each GPU, and 8 sequences over 2 GPUs are 4 micro-batches
 * a GPU: 4 x 4 x 8 x 10 ms = 1.28 s, by hand. All of it follows the
 * layer's read of the token counts, so the GPU waits for it as for the
 * paced launches: compute is the GEMMs and attention plus the larger of
 * the elementwise time and 1.28 s, though the host's other launches are
 * not modelled in the test stack. The waterfall's host effect holds it; a
 * dense model has no experts and adds none.
 */
static void test_expected_expert_host_by_hand(void **state)
{
    struct fixture *f = *state;
    struct stack st = f->stack;
    struct cost_result r, base;
    double sol, step[EXPECTED_EFFECTS];
    const char *text = "gpus=2 ep=2 zero=1 precision=bf16 mbs=1 gbs=8";
    evaluate(f, &f->moe, text, &st, &base);
    assert_near(base.work.x.expert_host_s, 0, 0); /* one grouped kernel */
    assert_near(base.work.x.host_s, 0, 0);
    st.spec.expert_host_us = 10000;
    evaluate(f, &f->moe, text, &st, &r);
    assert_near(r.work.x.expert_host_s, 1.28, 1e-12);
    assert_true(base.work.x.ew_s < 1.28);
    assert_near(r.t.x_compute, base.t.x_compute - base.work.x.ew_s + 1.28,
                1e-9);
    expected_waterfall(&r.work, &f->hw, &f->moe, r.plan.precision, &sol, step);
    assert_near(step[EXPECTED_HOST] - step[EXPECTED_HOST - 1],
                r.t.expected - base.t.expected, 1e-9);
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1", &st, &r);
    assert_near(r.work.x.expert_host_s, 0, 0);
}

/*
 * Data parallel over the 8 GPUs of one node, ZeRO-0: the gradients'
 * all-reduce at the step's end, one call, runs as NCCL's NVLS (the H800's
 * NVLink SHARP: 2 x 0.85 x 15/16 = 1.59375 of the link's rate at 25 us,
 * tests/data/snap/collectives/nccl.ini, below every ring and tree at this
 * size), and over NVLink at the curve's 50 of its 100 GB/s with the 25 us
 * NVLS latency the curve measured (8 ranks, one node, the same pick)
 * taken out of its time: for b bytes a call, busbw b x 1.75 / (b x 1.75 /
 * 50e9 - 25e-6) over 100e9. So its effective bytes are the bytes at the
 * link's rate (those moved / 1.59375) over that: about twice (by hand).
 */
static void test_expected_network_efficiency_by_hand(void **state)
{
    struct fixture *f = *state;
    struct cost_result r;
    double b, eff;
    evaluate(f, &f->gpt, "gpus=8 mbs=1 gbs=8", &f->stack, &r);
    assert_true(r.work.nvlink_sync_bytes > 0);
    assert_near(r.work.nvlink_sync_calls, 1, 0);
    b = r.work.nvlink_sync_bytes * 1.59375;
    eff = b * 1.75 / (b * 1.75 / 50e9 - 25e-6) / 100e9;
    assert_near(r.work.x.sync_nv, r.work.nvlink_sync_bytes / eff, 1e-12);
    assert_true(eff > 0.5 && eff < 0.5 * (1 + 1e-5));
    assert_near(r.work.x.sync_ib, 0, 0);
}

/*
 * Issue 17 item 1: the MoE all-to-all at its dispatcher's rate. tiny-moe
 * (hidden 1024, 1024 tokens a micro-batch, top_k 2) on EP16 over two
 * nodes of 8, BF16, no TP, PP or ZeRO-2/3: the only traffic with the
 * micro-batches is EP's, exposed (the DeepSeek stack hides it under
 * DualPipe only).
 * - deepep: at the stack's ep_ib_efficiency (0.5 here) and
 *   ep_nvlink_efficiency (0.8) of the links: effective bytes 2x and
 *   1.25x those moved.
 * - alltoall (NCCL): one copy per chosen expert, 2 x 8/16 = 1 over IB a
 *   token: each call moves 1024 x 1024 x 2 B = 2 MiB over IB, 256 KiB to
 *   each of the 8 off-node peers; nccl-tests' size for that message is
 *   256 KiB x the curve's 16 ranks = 4 MiB, where the test curve reads 25
 *   of its top 100 GB/s. The curve's own latency is taken out of its
 *   time: NCCL's all-to-all over its 16 ranks on 2 nodes, Simple (256 KiB
 *   a peer, above 16 KiB), is the Simple ring's base 8.4 us, one NVLink
 *   step 3.4 us, one network step 14 us and the host's post to each of
 *   the 8 off-node peers at 1 x 3 us: 49.8 us
 *   (tests/data/snap/collectives/nccl.ini, hw-h800.ini). Its time at 4
 *   MiB, 4194304 x 15/16 / 25e9 = 157.2864 us, less that is 107.4864 us:
 *   busbw 3932160 / 107.4864 us = 36.5829 GB/s, efficiency 0.365829 of
 *   the top, effective bytes 2.733519x those moved. No intra-node
 *   all-to-all curve: NVLink at its rate.
 */
static void test_expected_ep_dispatcher_rates(void **state)
{
    struct fixture *f = *state;
    struct cost_result r;
    struct stack st = f->stack;
    struct calibration cal = f->cal;
    struct calibration_curve *c =
        &cal.curve[CALIBRATION_LINK_INTER][CALIBRATION_ALLTOALL];
    struct hardware hw = f->hw;
    struct plan p;
    struct cost_ctx ctx;
    const char *text = "gpus=16 ep=16 zero=1 precision=bf16 mbs=1 gbs=16";
    st.spec.ep_dispatcher = STACK_DISPATCH_DEEPEP;
    st.spec.ep_ib_efficiency = 0.5;
    st.spec.ep_nvlink_efficiency = 0.8;
    evaluate(f, &f->moe, text, &st, &r);
    assert_true(r.work.ep_ib_bytes > 0 && r.work.ep_nvlink_bytes > 0);
    assert_near(r.work.x.xp_ib_raw, r.work.ep_ib_bytes, 1e-12);
    assert_near(r.work.x.xp_ib, 2 * r.work.ep_ib_bytes, 1e-12);
    assert_near(r.work.x.xp_nv, 1.25 * r.work.ep_nvlink_bytes, 1e-12);

    memset(c, 0, sizeof *c);
    c->present = true;
    c->n = 2;
    c->bytes[0] = 4194304;
    c->bytes[1] = 4194304.0 * 1024;
    c->busbw_gbps[0] = 25;
    c->busbw_gbps[1] = 100;
    c->ranks = 16;
    c->nodes = 2;
    hw.cal = &cal;
    st.spec.ep_dispatcher = STACK_DISPATCH_ALLTOALL;
    util_plan(&f->moe, &hw, text, &p);
    util_ctx(&ctx, &f->moe, &hw, COMM_TOPO, &p);
    ctx.stack = &st;
    cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
    cost_ctx_release(&ctx);
    /* 1 IB copy a token: 2 MiB a call */
    assert_near(r.work.ib_dep_bytes / r.work.ib_dep_calls, 2097152, 1e-12);
    assert_near(r.work.x.xp_ib_raw, r.work.ep_ib_bytes, 1e-12);
    assert_near(r.work.x.xp_ib,
                r.work.ep_ib_bytes / (3932160 / 107.4864e-6 / 100e9), 1e-12);
    assert_near(r.work.x.xp_nv, r.work.ep_nvlink_bytes, 1e-12);
}

/*
 * NCCL's share of the IB rate by collective (calibration
 * network.<kind>_ib_share): the nccl-tests curves are normalised to their
 * largest message, so their level over IB is this share of the
 * hardware's ib_gbps. All-to-all at 0.8 on the EP16 plan above: NCCL's
 * all-to-all moves its IB bytes at 0.8 x 0.365829 of the rate (the
 * curve's efficiency without its latency, above), effective bytes
 * 3.41690x those moved; DeepEP's kernels keep the stack's 0.5
 * (2x), not NCCL's share; NVLink is untouched. All-reduce at 0.5: data
 * parallel over two nodes (gpt, ZeRO-0, 16 GPUs), the gradients'
 * all-reduce over IB, with no inter-node curve, at half the rate:
 * effective bytes 2x.
 */
static void test_expected_nccl_ib_share_by_hand(void **state)
{
    struct fixture *f = *state;
    struct cost_result r;
    struct stack st = f->stack;
    struct fixture g = *f;
    struct calibration_curve *c =
        &g.cal.curve[CALIBRATION_LINK_INTER][CALIBRATION_ALLTOALL];
    const char *text = "gpus=16 ep=16 zero=1 precision=bf16 mbs=1 gbs=16";
    g.cal.spec.nccl_ib_share[CALIBRATION_ALLTOALL] = 0.8;
    g.cal.spec.nccl_ib_share[CALIBRATION_ALL_REDUCE] = 0.5;
    g.hw.cal = &g.cal;
    assert_near(calibration_nccl_ib_share(&g.cal, CALIBRATION_ALLTOALL), 0.8,
                0);
    assert_near(calibration_nccl_ib_share(&g.cal, CALIBRATION_ALL_GATHER), 1,
                0);
    assert_near(calibration_nccl_ib_share(&f->cal, CALIBRATION_ALLTOALL), 1, 0);

    st.spec.ep_dispatcher = STACK_DISPATCH_DEEPEP;
    st.spec.ep_ib_efficiency = 0.5;
    st.spec.ep_nvlink_efficiency = 0.8;
    evaluate(&g, &g.moe, text, &st, &r);
    assert_near(r.work.x.xp_ib, 2 * r.work.ep_ib_bytes, 1e-12);

    memset(c, 0, sizeof *c);
    c->present = true;
    c->n = 2;
    c->bytes[0] = 4194304;
    c->bytes[1] = 4194304.0 * 1024;
    c->busbw_gbps[0] = 25;
    c->busbw_gbps[1] = 100;
    c->ranks = 16;
    c->nodes = 2;
    st.spec.ep_dispatcher = STACK_DISPATCH_ALLTOALL;
    evaluate(&g, &g.moe, text, &st, &r);
    assert_true(r.work.ep_ib_bytes > 0);
    assert_near(r.work.x.xp_ib,
                r.work.ep_ib_bytes / (0.8 * 3932160 / 107.4864e-6 / 100e9),
                1e-9);
    assert_near(r.work.x.xp_nv, r.work.ep_nvlink_bytes, 1e-12);

    evaluate(&g, &g.gpt, "gpus=16 mbs=1 gbs=16", &f->stack, &r);
    assert_true(r.work.ib_sync_bytes > 0);
    assert_near(r.work.x.sync_ib, 2 * r.work.ib_sync_bytes, 1e-9);
}

/*
 * A fine-grained FP8 recipe runs the FP8 GEMMs at the calibration's
 * factor (0.5) of their rate: their time, fp8 FLOPs / 730 TFLOP/s,
 * doubles; the BF16 GEMMs are unchanged.
 */
static void test_expected_fine_fp8_scaling_by_hand(void **state)
{
    struct fixture *f = *state;
    struct cost_result tensor, scaled;
    evaluate(f, &f->moe, "gpus=8 ep=8 precision=fp8 mbs=1 gbs=8", &f->stack,
             &tensor);
    evaluate_set(f, "tests/data/tiny-moe.ini", "fp8.scaling=fine",
                 "gpus=8 ep=8 precision=fp8 mbs=1 gbs=8", &scaled);
    assert_true(tensor.work.fp8_flops > 0);
    assert_near(scaled.work.x.gemm_cal_s - tensor.work.x.gemm_cal_s,
                tensor.work.fp8_flops / 730e12, 1e-9);
}

/*
 * Issue 17 item 6: the recipe's granularity picks its factor. flat.ini
 * measures fine_grained_factor 0.5 and nothing else; with a block factor
 * of 0.25 set, a block-scaled recipe runs its FP8 GEMMs at a quarter of
 * the table rate: 4x their per-tensor time, 3 x fp8 FLOPs / 730 TFLOP/s
 * more; a row-wise one, with no row factor measured, at the fine-grained
 * 0.5: 1 x fp8 FLOPs / 730 TFLOP/s more; per tensor: 1.
 */
static void test_expected_fp8_recipe_factor_by_hand(void **state)
{
    struct fixture *f = *state;
    struct fixture g = *f;
    struct cost_result tensor, r;
    const char *text = "gpus=8 ep=8 precision=fp8 mbs=1 gbs=8";
    static const char *const kinds[] = {"fp8.scaling=block", "fp8.scaling=row"};
    static const double extra[] = {3, 1};
    int i;
    g.cal.spec.fp8_block_factor = 0.25;
    g.hw.cal = &g.cal;
    assert_near(calibration_fp8_scaling_factor(&g.cal, CALIBRATION_FP8_TENSOR),
                1, 0);
    assert_near(calibration_fp8_scaling_factor(&g.cal, CALIBRATION_FP8_BLOCK),
                0.25, 0);
    assert_near(calibration_fp8_scaling_factor(&g.cal, CALIBRATION_FP8_ROW),
                0.5, 0);
    evaluate(&g, &g.moe, text, &g.stack, &tensor);
    assert_true(tensor.work.fp8_flops > 0);
    for (i = 0; i < 2; i++) {
        evaluate_set(&g, "tests/data/tiny-moe.ini", kinds[i], text, &r);
        assert_near(r.work.x.gemm_cal_s - tensor.work.x.gemm_cal_s,
                    extra[i] * tensor.work.fp8_flops / 730e12, 1e-9);
    }
}

/*
 * Full recomputation reruns every layer's forward in the backward pass
 * (Chen et al. 2016; Korthikanti et al. 2022 §4), its norms, residual
 * adds, activation function and softmax/dropout kernels with it: those
 * bytes move 4 times a step instead of 3 (forward, backward about twice).
 * The loss is not recomputed. gpt-korthikanti on one GPU, one sequence of
 * 2048 tokens, every elementwise rate 1.5 TB/s: the loss moves 2 x vocab
 * 51200 x logits_bytes a token, 3 times; the rest, 4/3 of what it took
 * without recomputation.
 */
static void test_expected_full_recompute_elementwise_by_hand(void **state)
{
    struct fixture *f = *state;
    struct cost_result none, full;
    double loss = 3 * 2048 * 2 * 51200 * f->gpt.spec.logits_bytes / 1.5e12;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1 recompute=none", &f->stack, &none);
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1 recompute=full", &f->stack, &full);
    assert_true(none.work.x.ew_s > loss && loss > 0);
    assert_near(full.work.x.ew_s - loss, (none.work.x.ew_s - loss) * 4 / 3,
                1e-12);
}

/*
 * torchtitan's op-level selective checkpointing (training.selective =
 * alternate_mm) reruns every op of a layer but the saved matmuls and the
 * attention kernel, so its elementwise kernels run a fourth time as under
 * full recomputation: gpt-korthikanti on one GPU, as the test above, its
 * elementwise time less the loss's 4/3 of recompute=none's; the attention
 * kernels as without recomputation (its output is saved).
 */
static void test_expected_alternate_mm_elementwise_by_hand(void **state)
{
    struct fixture *f = *state;
    struct cost_result none, alt;
    double loss = 3 * 2048 * 2 * 51200 * f->gpt.spec.logits_bytes / 1.5e12;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1 recompute=none", &f->stack, &none);
    evaluate_set(f, "tests/data/gpt-korthikanti.ini",
                 "training.selective=alternate_mm",
                 "gpus=1 mbs=1 gbs=1 recompute=selective", &alt);
    assert_true(none.work.x.ew_s > loss && loss > 0);
    assert_near(alt.work.x.ew_s - loss, (none.work.x.ew_s - loss) * 4 / 3,
                1e-12);
    assert_near(alt.work.x.attn_cal_s, none.work.x.attn_cal_s, 1e-15);
}

/*
 * Selective recomputation of the attention core (Korthikanti et al. 2022
 * §5: QK^T, softmax, dropout and attention over V, checkpointed and run
 * again in the backward) reruns that core as what it is. gpt-korthikanti
 * (96 layers, 96 heads, unfused attention with dropout) on one GPU, one
 * sequence of 2048 tokens, the flat calibration (attention 379 TFLOP/s
 * forward and backward, backward 2 x forward; every elementwise rate 1.5
 * TB/s):
 * - attention kernels: forward F, backward 2F, and the rerun forward F:
 *   4/3 of the time without recomputation;
 * - the s x s traffic (Table 2: softmax output 2as, dropout mask as, its
 *   output 2as bytes a token, each written and read: 10as = 10 x 96 x
 *   2048 bytes a token and layer) moves once more: 2048 tokens x 96
 *   layers x 1,966,080 bytes at 1.5 TB/s = 0.2577 s;
 * - the GEMMs: none more (the core's FLOPs are not a GEMM's).
 * Before the fix, the rerun core was timed as GEMM FLOPs at the rank's
 * mean GEMM rate and its s x s traffic not at all.
 */
static void test_expected_selective_core_attn_by_hand(void **state)
{
    struct fixture *f = *state;
    struct cost_result none, sel;
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1 recompute=none", &f->stack, &none);
    evaluate(f, &f->gpt, "gpus=1 mbs=1 gbs=1 recompute=selective", &f->stack,
             &sel);
    assert_true(none.work.x.attn_cal_s > 0);
    assert_near(sel.work.x.attn_cal_s, none.work.x.attn_cal_s * 4 / 3, 1e-12);
    assert_near(sel.work.x.ew_s - none.work.x.ew_s,
                2048.0 * 96 * 10 * 96 * 2048 / 1.5e12, 1e-12);
    assert_near(sel.work.x.ew_s - none.work.x.ew_s, 0.2577, 1e-3);
    assert_near(sel.work.x.gemm_cal_s, none.work.x.gemm_cal_s, 1e-12);
}

/*
 * Without sequence parallelism (sp=0) the norms and residual adds run on
 * the whole sequence on every TP rank (Korthikanti et al. 2022 §4.2.2).
 * gpt-korthikanti (96 layers, h 12288, LayerNorm) on 8 GPUs, tp=8, one
 * sequence of 2048: a rank holds 256 tokens; per token and layer the two
 * norms read and write h BF16 elements (8h bytes) and the two residual
 * adds read two and write one (12h bytes): 20h x 96 bytes a token, moved
 * 3 times a step, by 7 more ranks' worth of tokens, at 1.5 TB/s.
 */
static void test_expected_no_sp_replicates_norms_by_hand(void **state)
{
    struct fixture *f = *state;
    struct cost_result sp, nosp;
    evaluate(f, &f->gpt, "gpus=8 tp=8 mbs=1 gbs=1", &f->stack, &sp);
    evaluate(f, &f->gpt, "gpus=8 tp=8 mbs=1 gbs=1 sp=0", &f->stack, &nosp);
    assert_near(nosp.work.x.ew_s - sp.work.x.ew_s,
                7.0 * 3 * 256 * 20 * 12288 * 96 / 1.5e12, 1e-12);
}

/*
 * Attention by length and mask (expected.c attention_length_time). A
 * curve on the flat calibration, measured at 2048 tokens: causal 250 at
 * 512 and 500 at 2048, full 500 and 1000. gpt-korthikanti's 2048-token
 * sequences on cp=4: a ring whose first step is a causal kernel over 512
 * tokens (1/4 of the work, at 250/500 of the measured rate) and whose
 * other steps are full blocks of 512 (3/4, at 500/500): 1/(4 x 0.5) +
 * 0.75/1 = 1.25 times the kernels' time without the curve. Without
 * context parallelism one causal kernel of 2048 tokens: the measured
 * rate, time unchanged.
 */
static void test_expected_attention_length_by_hand(void **state)
{
    struct fixture *f = *state;
    struct fixture g = *f;
    struct cost_result flat, curve;
    struct calibration_attention *a = &g.cal.attention;
    static const char *const plans[] = {"gpus=4 cp=4 mbs=1 gbs=1",
                                        "gpus=4 tp=4 mbs=1 gbs=1"};
    static const double ratio[] = {1.25, 1};
    int i;
    a->len_n = 2;
    a->len_seq[0] = 512;
    a->len_seq[1] = 2048;
    a->len_causal[0] = 250;
    a->len_causal[1] = 500;
    a->len_full[0] = 500;
    a->len_full[1] = 1000;
    a->len_ln[0] = log(512);
    a->len_ln[1] = log(2048);
    a->len_ref = 500; /* causal at the measured 2048 */
    g.cal.spec.attn_seq_len = 2048;
    g.hw.cal = &g.cal;
    for (i = 0; i < 2; i++) {
        evaluate(f, &f->gpt, plans[i], &f->stack, &flat);
        evaluate(&g, &g.gpt, plans[i], &g.stack, &curve);
        assert_true(flat.work.x.attn_cal_s > 0);
        assert_near(curve.work.x.attn_cal_s, ratio[i] * flat.work.x.attn_cal_s,
                    1e-12 * flat.work.x.attn_cal_s);
    }
}

/*
 * A stack that runs FlashAttention-2 (attention_kernel = flash2,
 * expected_compute.c flash2_times). The length curve of
 * test_expected_attention_length_by_hand, with FlashAttention-2 bars at
 * half the benchmark kernel's forward rates (causal 125 and 250, full 250
 * and 500) and a quarter of its backward's (100 against 400). On the flat
 * calibration (forward and backward both at 379 TFLOP/s, backward 2 x the
 * forward's FLOPs) the forward is A/3 of the kernels' time A without the
 * curve and the backward 2A/3. tp=4 (one causal kernel of 2048 tokens,
 * the measured length): A/3 / 0.5 + 2A/3 / 0.25 = 10A/3. cp=4 (the ring
 * of the length test over 512-token chunks: causal 250/500, full
 * 500/500): forward 1/(4 x 0.5 x 0.5) + 0.75/(1 x 0.5) = 2.5, backward
 * 1.25 / 0.25 = 5: A/3 x 2.5 + 2A/3 x 5 = 12.5A/3. The stack's default
 * kernel (measured) keeps the length test's 1 and 1.25.
 */
static void test_expected_flash2_by_hand(void **state)
{
    struct fixture *f = *state;
    struct fixture g = *f;
    struct stack st = f->stack;
    struct cost_result flat, fa2, measured;
    struct calibration_attention *a = &g.cal.attention;
    static const char *const plans[] = {"gpus=4 tp=4 mbs=1 gbs=1",
                                        "gpus=4 cp=4 mbs=1 gbs=1"};
    static const double ratio[] = {10.0 / 3, 12.5 / 3}, length[] = {1, 1.25};
    int i;
    a->len_n = 2;
    a->len_seq[0] = 512;
    a->len_seq[1] = 2048;
    a->len_ln[0] = log(512);
    a->len_ln[1] = log(2048);
    a->len_causal[0] = 250;
    a->len_causal[1] = 500;
    a->len_full[0] = 500;
    a->len_full[1] = 1000;
    a->len_ref = 500;
    a->len_flash2 = true;
    a->len_f2_causal[0] = 125;
    a->len_f2_causal[1] = 250;
    a->len_f2_full[0] = 250;
    a->len_f2_full[1] = 500;
    a->len_bwd[0] = a->len_bwd[1] = 400;
    a->len_f2_bwd[0] = a->len_f2_bwd[1] = 100;
    g.cal.spec.attn_seq_len = 2048;
    g.hw.cal = &g.cal;
    st.spec.attention_kernel = STACK_ATTN_FLASH2;
    for (i = 0; i < 2; i++) {
        evaluate(f, &f->gpt, plans[i], &f->stack, &flat);
        evaluate(&g, &g.gpt, plans[i], &st, &fa2);
        evaluate(&g, &g.gpt, plans[i], &g.stack, &measured);
        assert_true(flat.work.x.attn_cal_s > 0);
        assert_near(fa2.work.x.attn_cal_s, ratio[i] * flat.work.x.attn_cal_s,
                    1e-12 * flat.work.x.attn_cal_s);
        assert_near(measured.work.x.attn_cal_s,
                    length[i] * flat.work.x.attn_cal_s,
                    1e-12 * flat.work.x.attn_cal_s);
    }
}

/*
 * Megatron-LM's backward re-gather under sequence parallelism
 * (expected_comm.c regather_route): issued before the input-gradient
 * GEMM of the layer it feeds, hidden under it as far as that GEMM lasts.
 * gpt-korthikanti on tp=8 in one node, two micro-batches of 2048 tokens:
 * 386 re-gathers (test_comm_tp_backward_regather), each moving 7/8 of s h
 * x 2 bytes over NVLink (a 50 MB ring all-gather: Simple, its bytes at
 * the link's rate as moved). The input gradient of QKV, 2 x 2048 x 12288
 * x 36864 / 8 = 232 GFLOP, takes about 0.6 ms at the flat calibration's
 * 379 TFLOP/s, its all-gather 44 MB in about 0.28 ms at the fixture's
 * 160 GB/s of NVLink: hidden. So with the stack's tp_regather the hidden NVLink
 * traffic grows by 386 x 2048 x 12288 x 2 x 7/8 bytes and the exposed stays as
 * without it.
 */
static void test_expected_tp_regather_hidden_by_hand(void **state)
{
    struct fixture *f = *state;
    struct stack off = f->stack;
    struct cost_result with, without;
    double bytes = 386 * 2048.0 * 12288 * 2 * 7 / 8;
    off.spec.tp_regather = false;
    evaluate(f, &f->gpt, "gpus=8 tp=8 mbs=1 gbs=2", &f->stack, &with);
    evaluate(f, &f->gpt, "gpus=8 tp=8 mbs=1 gbs=2", &off, &without);
    assert_true(with.work.x.xp_nv_raw > 0);
    assert_near(with.work.x.xp_nv_raw, without.work.x.xp_nv_raw,
                1e-12 * without.work.x.xp_nv_raw);
    assert_near(with.work.x.hid_nv_raw - without.work.x.hid_nv_raw, bytes,
                1e-9 * bytes);
}

/*
 * Context parallelism as the stack moves keys and values
 * (expected_comm.c cp_route). gpt-korthikanti on cp=4 in one node: the
 * CP traffic is on NVLink only: its bytes (hidden plus exposed, whatever
 * the split) take T seconds at the link's expected rate (the hardware's
 * times the stack's network_efficiency). On the flat calibration (no length
 * curve) a ring's first step, the local causal block, is 1/4 of the
 * attention kernels' time A and its three steps over other ranks' blocks
 * 3/4 (1/(4 x 1) + 3/4: attention_length_time). Each word hides T under:
 * ring, the three steps (3A/4: each block sent while the step before
 * computes); allgather_first, the first block only (A/4: PyTorch's one
 * all-gather, waited for at the second block); allgather, nothing (Llama
 * 3's all-gather before the attention). The rest, T less that, is
 * exposed. Here T (about 22 GB of K, V and their gradients) is far above
 * A, so each word exposes some.
 */
static void test_expected_cp_exposed_by_hand(void **state)
{
    struct fixture *f = *state;
    struct stack st = f->stack;
    struct cost_result r;
    static const int words[] = {STACK_CP_RING, STACK_CP_ALLGATHER_FIRST,
                                STACK_CP_ALLGATHER};
    static const double under[] = {0.75, 0.25, 0};
    double rate = f->hw.nvlink_bps * st.spec.network_efficiency;
    int i;
    for (i = 0; i < 3; i++) {
        double bytes, t, a;
        st.spec.cp_comm = words[i];
        evaluate(f, &f->gpt, "gpus=4 cp=4 mbs=1 gbs=1", &st, &r);
        bytes = r.work.x.hid_nv + r.work.x.xp_nv;
        t = bytes / rate;
        a = r.work.x.attn_cal_s;
        assert_true(a > 0 && t > a);
        assert_near(r.work.x.attn_ring_s, 0.75 * a, 1e-12);
        assert_near(r.work.x.xp_nv, (t - under[i] * a) * rate, 1e-12);
        assert_near(r.work.x.hid_nv, under[i] * a * rate, 1e-9);
    }
}

/*
 * The casts of an FP8 recipe (expected.c fp8_cast_bytes; the Transformer
 * Engine docs, "FP8 Current Scaling" and "MXFP8"). gpt-korthikanti (96
 * layers, h 12288, MHA, GeLU 4h) on 8 GPUs, tp=8, one sequence of 2048: a
 * rank holds 256 tokens. Per token and layer the FP8 GEMMs' operands are
 * QKV (reads h gathered, writes 3h), the output projection (reads h,
 * gradient h gathered), FC1 (h gathered, 4h), FC2 (4h, h gathered):
 * 5h + 7h local, 4h gathered. Delayed scaling on a GPU that takes TN
 * operands only (hw-h800.ini's default): a local element is read once in
 * BF16 (2 bytes) and written twice in FP8 (as is and transposed: 2), 48h;
 * a gathered one is cast on its shard (2 + 1, 12h) and the gathered
 * tensor, 8 ranks' tokens, transposed (1 + 1, 8 x 4h x 2 = 64h): 124h a
 * token and layer, moved once a step, at 1.5 TB/s. Current scaling reads
 * each tensor once more (2 bytes on 12h + 4h: 32h more), as row-wise
 * scales do; Blackwell's layouts need no transposed copy (local 36h,
 * shard 12h: 48h). Block scales read once and write the rowwise and the
 * columnwise copy on any GPU, both all-gathered quantized (2 + 2 on 12h
 * local and on the 4h shard: 64h), unless the calibrated factor the
 * recipe takes holds its casts (a trace's: none then, the baseline).
 */
static void test_expected_fp8_casts_by_hand(void **state)
{
    struct fixture *f = *state;
    struct fixture g = *f, held = *f;
    struct cost_result none, r;
    const char *gpt = "tests/data/gpt-korthikanti.ini";
    const char *text = "gpus=8 tp=8 mbs=1 gbs=1 precision=fp8 recompute=none";
    const double per_h = 12288.0 * 96 * 256 / 1.5e12;
    /* flat.ini measures no block factor: block takes fine_grained's */
    held.cal.spec.fp8_fine_casts = true;
    held.hw.cal = &held.cal;
    evaluate_set(&held, gpt, "fp8.scaling=block", text, &none);
    evaluate(f, &f->gpt, text, &f->stack, &r); /* tensor, delayed */
    assert_near(r.work.x.ew_s - none.work.x.ew_s, 124 * per_h, 1e-12);
    g.hw.spec.fp8_transpose = false;
    evaluate(&g, &f->gpt, text, &f->stack, &r);
    assert_near(r.work.x.ew_s - none.work.x.ew_s, 48 * per_h, 1e-12);
    evaluate_set(f, gpt, "fp8.amax=current", text, &r);
    assert_near(r.work.x.ew_s - none.work.x.ew_s, 156 * per_h, 1e-12);
    /* row-wise scales read each tensor twice too (rows, then columns
     * for the backward's copy): the same bytes as current scaling */
    evaluate_set(f, gpt, "fp8.scaling=row", text, &r);
    assert_near(r.work.x.ew_s - none.work.x.ew_s, 156 * per_h, 1e-12);
    /* block scales whose factor times the GEMMs alone, on Hopper and on
     * Blackwell alike; fine-grained ones the same */
    evaluate_set(f, gpt, "fp8.scaling=block", text, &r);
    assert_near(r.work.x.ew_s - none.work.x.ew_s, 64 * per_h, 1e-12);
    evaluate_set(&g, gpt, "fp8.scaling=fine", text, &r);
    assert_near(r.work.x.ew_s - none.work.x.ew_s, 64 * per_h, 1e-12);
    assert_false(
        calibration_fp8_casts_counted(&held.cal, CALIBRATION_FP8_FINE));
    assert_true(
        calibration_fp8_casts_counted(&held.cal, CALIBRATION_FP8_TENSOR));
    assert_true(calibration_fp8_casts_counted(&f->cal, CALIBRATION_FP8_BLOCK));
}

/*
 * The waterfall starts at the speed of light, adds one effect at a time
 * and ends at the expected step; with flat rates every effect costs time
 * (none is negative), and the network bar is the sync's doubled bytes.
 */
static void test_expected_waterfall_sums(void **state)
{
    struct fixture *f = *state;
    static const char *const plans[] = {
        "gpus=8 mbs=1 gbs=8",
        "gpus=8 tp=2 pp=2 mbs=1 gbs=16",
    };
    size_t i;
    for (i = 0; i < sizeof plans / sizeof plans[0]; i++) {
        struct cost_result r;
        double sol, step[EXPECTED_EFFECTS], prev;
        int k;
        evaluate(f, &f->gpt, plans[i], &f->stack, &r);
        expected_waterfall(&r.work, &f->hw, &f->gpt, r.plan.precision, &sol,
                           step);
        assert_near(sol, r.t.step, 1e-9);
        assert_near(step[EXPECTED_EFFECTS - 1], r.t.expected, 1e-12);
        prev = sol;
        for (k = 0; k < EXPECTED_EFFECTS; k++) {
            assert_true(step[k] >= prev - 1e-12);
            prev = step[k];
        }
        assert_true(r.t.expected > r.t.step);
    }
}

/*
 * Dropless routing (the stack's moe_load_cv). The factor: 1 + cv z(ep),
 * z(n) the expected largest of n standard normal draws; the exact z from
 * the tables of normal order statistics (Harter 1961; here by numerical
 * integration of n x phi(x) Phi(x)^(n-1)): z(2) = 0.56419, z(8) =
 * 1.42360, z(32) = 2.06967. Blom's approximation is within 4.5% at n = 2
 * and 0.6% from n = 8. In a plan (tiny-moe, EP16, DeepEP at half the IB
 * rate): the routed experts' GEMMs, the permutes and the all-to-all's
 * bytes take the loaded rank's share, and the waterfall's step before
 * the load bar is the balanced plan's expected step.
 */
static void test_expected_load_by_hand(void **state)
{
    struct fixture *f = *state;
    struct cost_result r0, r;
    struct stack st = f->stack;
    const char *text = "gpus=16 ep=16 zero=1 precision=bf16 mbs=1 gbs=16";
    double load, sol, step[EXPECTED_EFFECTS];
    assert_near(expected_load_factor(0, 8, 256), 1, 0);
    assert_near(expected_load_factor(0.5, 1, 256), 1, 0);
    assert_near(expected_load_factor(1, 2, 256), 1 + 0.56419, 0.56419 * 0.045);
    assert_near(expected_load_factor(1, 8, 256), 1 + 1.42360, 1.42360 * 0.006);
    assert_near(expected_load_factor(0.5, 32, 256), 1 + 0.5 * 2.06967,
                0.5 * 2.06967 * 0.006);

    st.spec.ep_dispatcher = STACK_DISPATCH_DEEPEP;
    st.spec.ep_ib_efficiency = 0.5;
    st.spec.ep_nvlink_efficiency = 0.8;
    evaluate(f, &f->moe, text, &st, &r0);
    st.spec.moe_load_cv = 0.25;
    evaluate(f, &f->moe, text, &st, &r);
    load = expected_load_factor(0.25, 16, f->moe.spec.routed_experts);
    assert_true(load > 1);
    assert_near(r0.work.x.load, 1, 0);
    assert_near(r.work.x.load, load, 0);
    /* DeepEP: IB carries the busier of the group's two nodes, each the
     * sum of 8 ranks: spread 0.25 / sqrt(8), 1 + 0.08839 z(2), z(2) =
     * 0.56419 (Harter) within Blom's 4.5%; NVLink the loaded rank's */
    assert_near(r.work.x.load_ib, 1 + 0.25 / sqrt(8) * 0.56419,
                0.25 / sqrt(8) * 0.56419 * 0.045);
    assert_near(r.work.x.load_nv, load, 0);
    assert_near(r.work.x.xp_ib_raw, r.work.x.load_ib * r.work.ep_ib_bytes,
                1e-9);
    assert_near(r.work.x.xp_ib, 2 * r.work.x.load_ib * r.work.ep_ib_bytes,
                1e-9);
    /* the permutes at the copy rate, 1.5 TB/s */
    assert_true(r.work.permute_bytes > 0);
    assert_near(r.work.x.ew_s - r.work.x.ew_bal_s,
                (load - 1) * r.work.permute_bytes / 1.5e12, 1e-15);
    assert_near(r.work.x.ew_bal_s, r0.work.x.ew_s, 1e-15);
    assert_near(r.work.x.gemm_bal_s, r0.work.x.gemm_cal_s, 1e-15);
    assert_true(r.work.x.gemm_cal_s > r0.work.x.gemm_cal_s &&
                r.work.x.gemm_cal_s < load * r0.work.x.gemm_cal_s);
    expected_waterfall(&r.work, &f->hw, &f->moe, r.plan.precision, &sol, step);
    assert_near(step[EXPECTED_LOAD - 1], r0.t.expected, 1e-12);
    assert_near(step[EXPECTED_LOAD], r.t.expected, 1e-12);
    assert_true(r.t.expected > r0.t.expected);
    assert_near(sol, r0.t.step, 1e-12); /* the floor: balanced */

    /* NCCL all-to-all: each copy straight to its expert's GPU, both links
     * the loaded rank's; all-gather: every token to every rank, neither */
    st.spec.ep_dispatcher = STACK_DISPATCH_ALLTOALL;
    evaluate(f, &f->moe, text, &st, &r);
    assert_near(r.work.x.load_ib, load, 0);
    assert_near(r.work.x.load_nv, load, 0);
    st.spec.ep_dispatcher = STACK_DISPATCH_ALLGATHER;
    evaluate(f, &f->moe, text, &st, &r);
    assert_near(r.work.x.load, load, 0);
    assert_near(r.work.x.load_ib, 1, 0);
    assert_near(r.work.x.load_nv, 1, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expected_flat_rates_by_hand),
        cmocka_unit_test(test_expected_network_efficiency_by_hand),
        cmocka_unit_test(test_expected_ep_dispatcher_rates),
        cmocka_unit_test(test_expected_scan_rates_by_hand),
        cmocka_unit_test(test_expected_host_overhead_by_hand),
        cmocka_unit_test(test_expected_expert_host_by_hand),
        cmocka_unit_test(test_expected_clock_burst_window_by_hand),
        cmocka_unit_test(test_expected_nccl_ib_share_by_hand),
        cmocka_unit_test(test_expected_fine_fp8_scaling_by_hand),
        cmocka_unit_test(test_expected_fp8_recipe_factor_by_hand),
        cmocka_unit_test(test_expected_selective_core_attn_by_hand),
        cmocka_unit_test(test_expected_cp_exposed_by_hand),
        cmocka_unit_test(test_expected_full_recompute_elementwise_by_hand),
        cmocka_unit_test(test_expected_alternate_mm_elementwise_by_hand),
        cmocka_unit_test(test_expected_no_sp_replicates_norms_by_hand),
        cmocka_unit_test(test_expected_fp8_casts_by_hand),
        cmocka_unit_test(test_expected_attention_length_by_hand),
        cmocka_unit_test(test_expected_flash2_by_hand),
        cmocka_unit_test(test_expected_tp_regather_hidden_by_hand),
        cmocka_unit_test(test_expected_waterfall_sums),
        cmocka_unit_test(test_expected_load_by_hand),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
