/*
 * test_comm: collective volumes per link, hand-checked on small groups.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "comm.h"
#include "cost.h"
#include "test_util.h"

struct fixture {
    struct model gpt, ds, tiny;
    struct hardware hw;
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/gpt-korthikanti.ini", &f.gpt, NULL, 0, &d) ||
        model_load("tests/data/snap/models/deepseek-v3.ini", &f.ds, NULL, 0,
                   &d) ||
        model_load("tests/data/tiny-moe.ini", &f.tiny, NULL, 0, &d) ||
        hardware_load("tests/data/snap/hardware/h800.ini", &f.hw, NULL, 0, &d))
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    model_release(&f->gpt);
    model_release(&f->ds);
    model_release(&f->tiny);
    hardware_release(&f->hw);
    return 0;
}

/* Collectives of rank 0 of `text` on model m; returns their count. */
static size_t run(const struct fixture *f,
                  const struct model *m,
                  const char *text,
                  enum comm_model model,
                  struct comm_collective *list,
                  struct comm_totals *tot)
{
    struct plan p;
    struct cost_ctx ctx;
    size_t n;
    util_plan(m, &f->hw, text, &p);
    util_ctx(&ctx, m, &f->hw, model, &p);
    n = comm_rank(m, &f->hw, &p, cost_ctx_partition(&ctx, &p), 0, model,
                  &ctx.ep, &(struct comm_out){list, COMM_LIST_MAX, tot, NULL});
    cost_ctx_release(&ctx);
    return n;
}

static const struct comm_collective *
find(const struct comm_collective *l, size_t n, const char *name)
{
    size_t i;
    for (i = 0; i < n; i++)
        if (strcmp(l[i].name, name) == 0)
            return &l[i];
    fail_msg("no collective \"%s\"", name);
    return NULL;
}

/* GPT-3 parameters, Narayanan et al. 2021 §5.1:
 * P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)). */
static double gpt_params(void)
{
    double l = 96, h = 12288, V = 51200, s = 2048;
    return 12 * l * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * l * h));
}

/*
 * ZeRO-1 weight all-gather over 16 GPUs on 2 nodes of 8, by hand:
 * buffer S = P x 2 bytes. Ring volume per GPU S x 15/16. Topo: the node
 * imports the other node's half, S/2, over its 8 NICs: S/16 per GPU; the
 * node's GPUs then exchange over NVLink S x 7/8. Flat: S x 15/16 on IB.
 */
static void test_comm_all_gather_16_gpus_2_nodes(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    const struct comm_collective *ag;
    double S = gpt_params() * 2;
    size_t n = run(f, &f->gpt, "gpus=16 zero=1 gbs=16", COMM_TOPO, l, &t);
    ag = find(l, n, "weight all-gather (after step)");
    assert_int_equal(ag->span.size, 16);
    assert_int_equal(ag->span.per_node, 8);
    assert_int_equal(ag->span.nodes, 2);
    assert_near(ag->bytes, S * 15 / 16, 1e-6);
    assert_near(ag->ib_bytes, S / 16, 1e-6);
    assert_near(ag->nvlink_bytes, S * 7 / 8, 1e-6);
    n = run(f, &f->gpt, "gpus=16 zero=1 gbs=16", COMM_FLAT, l, &t);
    ag = find(l, n, "weight all-gather (after step)");
    assert_near(ag->ib_bytes, S * 15 / 16, 1e-6);
    assert_near(ag->nvlink_bytes, 0, 1e-9);
    /* FP32 gradients reduce-scattered: twice the bytes of BF16 weights */
    assert_near(find(l, n, "gradient reduce-scatter")->ib_bytes,
                2 * S * 15 / 16, 1e-6);
}

/* Inside one node both models use NVLink only: all-reduce 2 S 7/8. */
static void test_comm_all_reduce_in_node(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    double S = gpt_params() * 4; /* FP32 gradients */
    size_t n = run(f, &f->gpt, "gpus=8 zero=0 gbs=8", COMM_FLAT, l, &t);
    const struct comm_collective *ar = find(l, n, "gradient all-reduce");
    assert_near(ar->nvlink_bytes, 2 * S * 7 / 8, 1e-6);
    assert_near(ar->ib_bytes, 0, 1e-9);
    assert_near(t.ib.bytes, 0, 1e-9);
}

/*
 * Megatron-LM (Narayanan et al. 2021 §3.2): per layer per micro-batch each
 * GPU moves 8 b s h (t-1)/t elements of tensor-parallel traffic; BF16 = 2
 * bytes. Vocab-parallel embedding and head add 4 such collectives.
 */
static void test_comm_tensor_parallel_volume(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    double bsh = 2048.0 * 12288, layers = 96, mb = 2;
    run(f, &f->gpt, "gpus=8 tp=8 gbs=2", COMM_TOPO, l, &t);
    assert_near(t.what_nvlink[COMM_TP].bytes,
                mb * (layers * 8 + 4) * bsh * 7 / 8 * 2, 1e-9);
    assert_near(t.ib.bytes, 0, 1e-9);
}

/* Pipeline: stage 0 of 2 sends each micro-batch's s b h activations
 * (split over tp=8) forward once; stages sit on different nodes. */
static void test_comm_pipeline_send(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    size_t n = run(f, &f->gpt, "gpus=16 tp=8 pp=2 gbs=8", COMM_TOPO, l, &t);
    const struct comm_collective *pp =
        find(l, n, "PP activations (fwd) and gradients (bwd)");
    assert_near(pp->ib_bytes, 8 * 2048.0 * 12288 * 2 / 8, 1e-12);
    assert_near(pp->calls, 8, 0);
}

/*
 * Context parallelism of scan layers (issue 39): tests/data/hybrid-seven.ini
 * has a Mamba-2 layer, state 2 heads x 4 x 2 = 16 plus the convolution's
 * last 3 inputs of 8 + 2 x 2 = 12 channels (36): 52; and a Gated DeltaNet
 * layer, 2 x 4 x 4 = 32 plus 3 x (2 x 4 + 8) = 48: 80; 132 elements a
 * sequence. cp 2 (one rank boundary), 4 micro-batches of 1: forward and
 * backward 2 x 4 x 132 x 4 bytes (FP32) = 4,224 bytes in 2 x 4 x 2 = 16
 * sends, inside one node (NVLink). Its softmax layers (S, C, N) still
 * gather K and V; the block model has no state pass.
 */
static void test_comm_cp_scan_state_pass(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    struct model m;
    struct diag d;
    size_t n, i;
    const struct comm_collective *c;
    diag_init(&d);
    assert_int_equal(model_load("tests/data/hybrid-seven.ini", &m, NULL, 0, &d),
                     STATUS_OK);
    n = run(f, &m, "gpus=2 cp=2 mbs=1 gbs=4 precision=bf16", COMM_TOPO, l, &t);
    c = find(l, n, "CP scan state pass (fwd) and its gradient (bwd)");
    assert_near(c->bytes, 4224, 1e-12);
    assert_near(c->nvlink_bytes, 4224, 1e-12);
    assert_near(c->ib_bytes, 0, 0);
    assert_near(c->calls, 16, 0);
    assert_int_equal(c->kind, COMM_SEND_RECV);
    find(l, n, "CP key/value all-gather");
    n = run(f, &f->gpt, "gpus=16 tp=8 cp=2 gbs=8", COMM_TOPO, l, &t);
    for (i = 0; i < n; i++)
        assert_string_not_equal(
            l[i].name, "CP scan state pass (fwd) and its gradient (bwd)");
    model_release(&m);
}

/*
 * DeepSeek's EP64 over 8 nodes with a 4-node limit, experts drawn
 * uniformly from the 4 allowed nodes (moe.node_routing = uniform): the 8
 * experts of a token are drawn from 4 x 32 = 128; a node is missed with
 * probability C(96,8)/C(128,8) = 0.0927472689 and a GPU (4 experts) with
 * C(124,8)/C(128,8) = 0.7700196850 (Python math.comb). IB copies =
 * 4 (1 - 0.0927...) x 7/8 = 3.1753845589; NVLink = 32 (1 - 0.770...) x 7/8
 * = 6.4394488189.
 */
static void test_comm_ep_node_limited_copies(void **state)
{
    struct fixture *f = *state;
    struct plan_span span = plan_span(64, 1, 8);
    struct model m = f->ds;
    double ib, nv;
    m.spec.node_routing = MODEL_ROUTING_UNIFORM;
    comm_ep_copies(&m, span, &ib, &nv);
    assert_near(ib, 3.175384558872488, 1e-12);
    assert_near(nv, 6.439448818897636, 1e-12);
}

/*
 * Issue 11 item 8: DeepSeek-V3 picks a token's 4 nodes by their top-2
 * expert affinities (arXiv 2412.19437 §2.1.2), so every picked node
 * receives experts: IB copies = 4 x 7/8 = 3.5 (uniform: 3.18, 10% low).
 * NVLink: the 8 experts drawn from the 4 nodes' 128 given each node gets
 * one, by enumerating the counts (k1..k4), each >= 1, summing to 8 with
 * weight prod C(32, ki): E[GPUs hit] = sum_i 8 (1 - C(28,ki)/C(32,ki)) =
 * 7.4602775025 (Python), x 7/8 = 6.5277428147.
 */
static void test_comm_ep_affinity_routing(void **state)
{
    struct fixture *f = *state;
    double ib, nv;
    assert_int_equal(f->ds.spec.node_routing, MODEL_ROUTING_AFFINITY);
    comm_ep_copies(&f->ds, plan_span(64, 1, 8), &ib, &nv);
    assert_near(ib, 3.5, 1e-12);
    assert_near(nv, 6.527742814664306, 1e-12);
    /* EP8 in one node: the limit does not bind, nothing crosses IB */
    comm_ep_copies(&f->ds, plan_span(8, 1, 8), &ib, &nv);
    assert_near(ib, 0, 1e-12);
    /* EP256 over 256 nodes of one GPU: 4 nodes hold 4 experts, fewer than
     * a token's 8, so the limit cannot hold (it gave 0/0, found by
     * fuzz_eval): routing is unlimited, 8 experts drawn from 256 on as
     * many nodes: IB copies 256 (1 - C(255,8)/C(256,8)) x 255/256 =
     * 8 x 255/256; nothing on NVLink (one GPU a node) */
    comm_ep_copies(&f->ds, plan_span(256, 1, 1), &ib, &nv);
    assert_near(ib, 8.0 * 255 / 256, 1e-12);
    assert_near(nv, 0, 0);
}

/*
 * A token with fewer experts than the nodes it may use (top_k 1 or 2
 * under a 4-node limit): not every picked node can receive one (the affinity
 * condition has chance 0: it gave 0/0, found by fuzz_eval in CI), so
 * the experts are drawn from the 4 nodes' 128 as in the uniform case.
 * EP64 over 8 nodes. top_k 1: one expert is one node and one GPU, IB
 * copies 7/8 and NVLink 7/8. top_k 2: a node missed with chance
 * C(96,2)/C(128,2) = 9120/16256, IB copies 4 x 7136/16256 x 7/8; a GPU
 * (4 experts) with C(124,2)/C(128,2) = 15252/16256, NVLink 32 x
 * 1004/16256 x 7/8.
 */
static void test_comm_ep_affinity_fewer_experts_than_nodes(void **state)
{
    struct fixture *f = *state;
    struct model m = f->ds;
    double ib, nv;
    assert_int_equal(m.spec.node_routing, MODEL_ROUTING_AFFINITY);
    assert_int_equal(m.spec.node_limit, 4);
    m.spec.top_k = 1;
    comm_ep_copies(&m, plan_span(64, 1, 8), &ib, &nv);
    assert_near(ib, 7.0 / 8, 1e-12);
    assert_near(nv, 7.0 / 8, 1e-12);
    m.spec.top_k = 2;
    comm_ep_copies(&m, plan_span(64, 1, 8), &ib, &nv);
    assert_near(ib, 4 * 7136.0 / 16256 * 7 / 8, 1e-12);
    assert_near(nv, 32 * 1004.0 / 16256 * 7 / 8, 1e-12);
}

/*
 * Issue 17 item 1: the stack's dispatcher decides the copies of a token.
 * tiny-moe: 16 experts, top_k 2, EP16 over 2 nodes of 8 GPUs (one expert
 * per GPU, 8 per node), topo model.
 * - alltoall (NCCL, one copy per chosen expert): of the 2 experts,
 *   2 x 8/16 = 1 off-node (IB), 2 x 7/16 = 0.875 on the node's other GPUs
 *   (NVLink); volume 2 x 15/16 = 1.875.
 * - allgather (every rank gathers every token of the group): volume
 *   16 - 1 = 15 per own token; hierarchically each of the other node's
 *   8 GPUs gets it once over IB through its rail peer (n - 1 = 1 IB copy
 *   per GPU) and the rest over NVLink: 16 - 2 = 14.
 * - deepep (no node limit: DeepEP de-duplicates per node anyway): IB once
 *   if either expert is off-node, 1 - C(8,2)/C(16,2) = 1 - 28/120 = 23/30;
 *   NVLink once per chosen GPU that is not its node's relay (the GPU of
 *   the sender's local index): 2 x 7/8 = 1.75.
 * - flat: a group across nodes moves the whole volume over IB.
 */
static void test_comm_ep_dispatchers(void **state)
{
    struct fixture *f = *state;
    struct plan_span sp = plan_span(16, 1, 8);
    double v, ib, nv;
    comm_ep_dispatch(&f->tiny, sp, STACK_DISPATCH_ALLTOALL, COMM_TOPO, NULL, &v,
                     &ib, &nv);
    assert_near(v, 1.875, 1e-12);
    assert_near(ib, 1, 1e-12);
    assert_near(nv, 0.875, 1e-12);
    comm_ep_dispatch(&f->tiny, sp, STACK_DISPATCH_ALLGATHER, COMM_TOPO, NULL,
                     &v, &ib, &nv);
    assert_near(v, 15, 1e-12);
    assert_near(ib, 1, 1e-12);
    assert_near(nv, 14, 1e-12);
    comm_ep_dispatch(&f->tiny, sp, STACK_DISPATCH_DEEPEP, COMM_TOPO, NULL, &v,
                     &ib, &nv);
    assert_near(v, 1.875, 1e-12);
    assert_near(ib, 23.0 / 30, 1e-12);
    assert_near(nv, 1.75, 1e-12);
    comm_ep_dispatch(&f->tiny, sp, STACK_DISPATCH_ALLTOALL, COMM_FLAT, NULL, &v,
                     &ib, &nv);
    assert_near(ib, 1.875, 1e-12);
    assert_near(nv, 0, 0);
    comm_ep_dispatch(&f->tiny, sp, STACK_DISPATCH_ALLGATHER, COMM_FLAT, NULL,
                     &v, &ib, &nv);
    assert_near(ib, 15, 1e-12);
    /* inside one node: NVLink only, allgather 7 copies, alltoall 2 x 7/8 */
    comm_ep_dispatch(&f->tiny, plan_span(8, 1, 8), STACK_DISPATCH_ALLGATHER,
                     COMM_TOPO, NULL, &v, &ib, &nv);
    assert_near(ib, 0, 0);
    assert_near(nv, 7, 1e-12);
    comm_ep_dispatch(&f->tiny, plan_span(8, 1, 8), STACK_DISPATCH_ALLTOALL,
                     COMM_TOPO, NULL, &v, &ib, &nv);
    assert_near(ib, 0, 0);
    assert_near(nv, 1.75, 1e-12);
}

/*
 * The plan's EP traffic follows the stack (the dispatcher was parsed and
 * ignored before: every plan was priced as DeepEP). DeepSeek-V3 EP64 on
 * 8 nodes under Megatron's NCCL all-to-all: 8 x 56/64 = 7 IB copies per
 * token (DeepEP, affinity routing: 3.5, test_comm_ep_affinity_routing),
 * x 7168 x (1+2+1+2) bytes x 4096 tokens x 2 micro-batches x 59 MoE
 * blocks; the all-gather dispatcher: 8 - 1 = 7 IB copies too, but
 * 64 - 8 = 56 over NVLink (all-to-all: 8 x 7/64 = 0.875).
 */
static void test_comm_ep_stack_dispatcher(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct cost_result r;
    struct cost_ctx ctx;
    struct stack st;
    struct plan p;
    size_t n, i;
    double ib, nv;
    const double per = 7168.0 * 6 * 4096 * 2 * 59;
    int k;
    const int disp[] = {STACK_DISPATCH_ALLTOALL, STACK_DISPATCH_ALLGATHER,
                        STACK_DISPATCH_DEEPEP};
    const double want_ib[] = {7, 7, 3.5};
    const double want_nv[] = {0.875, 56, 6.527742814664306};
    memset(&st, 0, sizeof st);
    util_plan(&f->ds, &f->hw, "gpus=64 ep=64 zero=1 precision=fp8 gbs=128", &p);
    for (k = 0; k < 3; k++) {
        util_ctx(&ctx, &f->ds, &f->hw, COMM_TOPO, &p);
        st.spec.ep_dispatcher = disp[k];
        ctx.stack = &st;
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
        n = cost_collectives(&ctx, &r, l, COMM_LIST_MAX);
        ib = nv = 0;
        for (i = 0; i < n; i++)
            if (l[i].what == COMM_EP) {
                ib += l[i].ib_bytes;
                nv += l[i].nvlink_bytes;
            }
        assert_near(ib, want_ib[k] * per, 1e-9);
        assert_near(nv, want_nv[k] * per, 1e-9);
        cost_ctx_release(&ctx);
    }
}

/* DeepSeek's EP64 dispatch per token per MoE layer (ISCA'25 §2.3.2:
 * dispatch FP8 1 byte, combine BF16 2 bytes, per hidden element; the
 * backward repeats both): IB bytes = copies x 7168 x (1+2+1+2), with 3.5
 * copies under affinity routing (test_comm_ep_affinity_routing). The 59
 * MoE blocks: 58 layers and the MTP module's. */
static void test_comm_ep_bytes_deepseek(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    /* gpus=64, pp=1: every rank holds all 58 MoE layers; gbs=128: two
     * micro-batches of 4096 tokens per GPU. */
    run(f, &f->ds, "gpus=64 ep=64 zero=1 precision=fp8 gbs=128", COMM_TOPO, l,
        &t);
    assert_near(t.what_ib[COMM_EP].bytes, 3.5 * 7168 * 6 * 4096 * 2 * 59, 1e-9);
}

/*
 * DualPipe: rank 0 also holds rank pp-1's chunk, so its ZeRO group is the
 * dp replicas of both ranks. With gpus=8 pp=2 (dp=4) the whole pipeline
 * sits in one node: 8 GPUs on 1 node, nothing over IB (fuzz_eval found
 * IB bytes here). With gpus=16 the other rank's replicas are on the
 * second node: 8 per node on 2 nodes.
 */
static void test_comm_dualpipe_copy_in_node(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    const char *one = "gpus=8 pp=2 zero=1 schedule=dualpipe gbs=8";
    const struct comm_collective *ag;
    size_t n = run(f, &f->gpt, one, COMM_TOPO, l, &t);
    ag = find(l, n, "weight all-gather (after step)");
    assert_int_equal(ag->span.size, 8);
    assert_int_equal(ag->span.per_node, 8);
    assert_int_equal(ag->span.nodes, 1);
    assert_near(t.ib.bytes, 0, 0);
    run(f, &f->gpt, one, COMM_FLAT, l, &t);
    assert_near(t.ib.bytes, 0, 0);
    n = run(f, &f->gpt, "gpus=16 pp=2 zero=1 schedule=dualpipe gbs=16",
            COMM_TOPO, l, &t);
    ag = find(l, n, "weight all-gather (after step)");
    assert_int_equal(ag->span.size, 16);
    assert_int_equal(ag->span.per_node, 8);
    assert_int_equal(ag->span.nodes, 2);
}

/*
 * sp=0 (issue 11 item 9): Megatron without sequence parallelism
 * all-reduces where SP all-gathers and reduce-scatters: an all-reduce
 * moves 2 S (t-1)/t, the pair S (t-1)/t each: the same bytes as
 * test_comm_tensor_parallel_volume, (96 x 8 + 4) x bsh x 7/8 x 2 x 2
 * micro-batches, in half the calls: 2 micro-batches x (96 x 4 + 2).
 */
static void test_comm_tp_without_sequence_parallel(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    double bsh = 2048.0 * 12288;
    size_t n = run(f, &f->gpt, "gpus=8 tp=8 gbs=2 sp=0", COMM_TOPO, l, &t);
    const struct comm_collective *ar =
        find(l, n, "TP all-reduce (no sequence parallelism)");
    assert_near(t.what_nvlink[COMM_TP].bytes,
                2 * (96 * 8 + 4) * bsh * 7 / 8 * 2, 1e-9);
    assert_near(ar->calls, 2 * (96 * 4 + 2), 1e-12);
}

/*
 * Issue 11 item 10: a MoE layer's routed experts are split over ep, not
 * tp, so it has the attention block's all-gather and reduce-scatter per
 * pass, not the dense FFN's too. tiny-moe (4 MoE layers, no shared
 * experts), tp=2, one micro-batch of 1024 tokens: per pass 4 x 2 + the
 * embedding's and the head's 1 each = 10, both passes 20 calls of
 * s b h x 2 bytes, (t-1)/t = 1/2 of it moved: 20 x 1024 x 1024 x 2 / 2.
 */
static void test_comm_tp_in_moe_layers(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    run(f, &f->tiny, "gpus=2 tp=2 gbs=1", COMM_TOPO, l, &t);
    assert_near(t.what_nvlink[COMM_TP].bytes, 20 * 1024.0 * 1024 * 2 / 2,
                1e-12);
}

/*
 * Megatron-LM's backward re-gather under sequence parallelism
 * (megatron/core/tensor_parallel/layers.py,
 * LinearWithGradAccumulationAndAsyncCommunication.backward: the input
 * shard a column-parallel GEMM saved is all-gathered again for the
 * weight gradient). gpt-korthikanti on tp=8, two micro-batches of 2048
 * tokens, one stage: each of the 96 layers opens two TP-split blocks
 * (attention's QKV, the FFN's up projection), and the head is
 * column-parallel too: 96 x 2 + 1 = 193 all-gathers a micro-batch, 386
 * calls, each of s b h x 2 bytes of which 7/8 move: 386 x bsh x 2 x
 * 7/8. Without sequence parallelism (sp=0) the forward's all-reduce
 * keeps nothing split: none.
 */
static void test_comm_tp_backward_regather(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    double bsh = 2048.0 * 12288;
    size_t n = run(f, &f->gpt, "gpus=8 tp=8 gbs=2", COMM_TOPO, l, &t);
    const struct comm_collective *rg =
        find(l, n, "TP backward re-gather (sequence parallel)");
    assert_non_null(rg);
    assert_near(rg->calls, 386, 1e-12);
    assert_near(t.what_nvlink[COMM_TP_REGATHER].bytes, 386 * bsh * 2 * 7 / 8,
                1e-9);
    run(f, &f->gpt, "gpus=8 tp=8 gbs=2 sp=0", COMM_TOPO, l, &t);
    assert_near(t.what_nvlink[COMM_TP_REGATHER].bytes, 0, 0);
}

/*
 * Issue 11 item 4: ZeRO-2 accumulates gradients unsharded and
 * reduce-scatters them once per step when that memory fits (a speed of
 * light runs the plan the cheapest way), else every micro-batch. GPT-3
 * (Korthikanti's) on 128 H800, tp=8 pp=8: dp=2, 8 micro-batches; rank
 * 0 holds ~2.7B parameters, whose 11 GB of FP32 gradients fit beside
 * the rest: one call. At 1 GiB of HBM they do not: 8 calls and 8 times
 * the bytes.
 */
static void test_comm_zero2_grads_once_or_per_microbatch(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    const struct comm_collective *once, *each;
    struct hardware big = f->hw;
    double once_bytes;
    struct plan p;
    struct cost_ctx ctx;
    size_t n;
    n = run(f, &f->gpt, "gpus=128 tp=8 pp=8 zero=2 gbs=16", COMM_TOPO, l, &t);
    once = find(l, n, "gradient reduce-scatter (per step)");
    assert_near(once->calls, 1, 0);
    once_bytes = once->bytes;
    /* at 1 GiB of HBM nothing fits: per micro-batch, 8 x the bytes */
    big.spec.hbm_gib = 1;
    hardware_derive(&big);
    util_plan(&f->gpt, &big, "gpus=128 tp=8 pp=8 zero=2 gbs=16", &p);
    util_ctx(&ctx, &f->gpt, &big, COMM_TOPO, &p);
    n = comm_rank(&f->gpt, &big, &p, cost_ctx_partition(&ctx, &p), 0, COMM_TOPO,
                  &ctx.ep, &(struct comm_out){l, COMM_LIST_MAX, &t, NULL});
    cost_ctx_release(&ctx);
    each = find(l, n, "gradient reduce-scatter (per micro-batch)");
    assert_near(each->calls, 8, 0);
    assert_near(each->bytes, 8 * once_bytes, 1e-12);
}

/*
 * `moe` in the selective modules (or `full`) redoes the MoE block's
 * forward in the backward pass, its dispatch and combine with it
 * (Megatron-LM checkpoints the whole MoELayer): the forward's bytes
 * twice. DeepSeek, gpus=64 ep=64, 2 micro-batches of 4096 tokens, 59
 * MoE blocks, FP8 dispatch 1 + combine 2 bytes forward, twice, and
 * 1 + 2 backward: 3.5 copies x 7168 x (2 x 3 + 3) x 4096 x 2 x 59.
 */
static void test_comm_moe_recompute_redoes_all_to_all(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    struct model m = f->ds;
    m.selective = 1u << MODEL_MOD_MOE;
    m.layer[MODEL_LAYER_MOE].ep_recompute[MODEL_RECOMPUTE_SELECTIVE] = true;
    m.layer[MODEL_LAYER_MTP].ep_recompute[MODEL_RECOMPUTE_SELECTIVE] = true;
    run(f, &m, "gpus=64 ep=64 zero=1 precision=fp8 gbs=128 recompute=selective",
        COMM_TOPO, l, &t);
    assert_near(t.what_ib[COMM_EP].bytes, 3.5 * 7168 * 9 * 4096 * 2 * 59, 1e-9);
}

/*
 * Issue 11 item 9: an NVLink domain larger than a host (GB200 NVL72: 72
 * GPUs, 4 per host). 128 GPUs are one domain of 72 and a partial one of
 * 56. EP64 from rank 0 sits in the first domain: all NVLink; FSDP over
 * all 128 spans both domains, 64 per domain at most: IB per GPU =
 * S x (1 - 1/2) / 64 for an all-gather of S bytes.
 */
static void test_comm_nvlink_domain(void **state)
{
    struct fixture *f = *state;
    struct hardware nvl = f->hw;
    struct comm_groups g;
    struct plan p;
    nvl.spec.gpus = 128;
    nvl.spec.gpus_per_node = 4;
    nvl.spec.nvlink_domain = 72;
    hardware_derive(&nvl);
    assert_int_equal(nvl.domain, 72);
    util_plan(&f->ds, &nvl, "gpus=128 ep=64 zero=3 gbs=128", &p);
    comm_groups_init(&g, &nvl, &p, COMM_TOPO);
    assert_int_equal(g.ep.span.nodes, 1);
    assert_near(g.ep.ib, 0, 0);
    assert_int_equal(g.dp.span.nodes, 2);
    assert_int_equal(g.dp.span.per_node, 64);
    assert_near(g.dp.ib, 0.5 / 64, 1e-12);
}

/* Each collective's times on its links, carried so that no writer times
 * it (H800 snapshot: IB 50 GB/s, NVLink 160 GB/s, arXiv 2412.19437
 * section 3.2.2; its collectives file's Simple ring steps 3.4 us in a
 * node and 14 us across, tests/data/snap/collectives/nccl.ini): 90 GB
 * over IB at a share of 0.92 (LL128) with 2,000 in-node and 500 network
 * steps charged there is 90 / 46 + 0.0068 + 0.007 s, its latency
 * 0.0138 s, and no NVLink bytes no time; 16 GB over NVLink at the full
 * rate with 100 in-node steps is 0.1 + 0.00034 s (by hand). */
static void test_comm_collective_times_by_hand(void **state)
{
    struct fixture *f = *state;
    struct comm_collective c[2];
    memset(c, 0, sizeof c);
    c[0].ib_bytes = 90e9;
    c[0].calls = 2000;
    c[0].algo.share = 0.92;
    c[0].ib_lat = (struct comm_lat){2000, 500};
    c[1].nvlink_bytes = 16e9;
    c[1].calls = 100;
    c[1].algo.share = 1;
    c[1].nvlink_lat = (struct comm_lat){100, 0};
    comm_collective_times(c, 2, &f->hw);
    assert_near(c[0].ib_s, 90.0 / 46 + 0.0068 + 0.007, 1e-12);
    assert_near(c[0].lat_s, 0.0138, 1e-12);
    assert_near(c[0].nvlink_s, 0, 0);
    assert_near(c[1].ib_s, 0, 0);
    assert_near(c[1].nvlink_s, 0.1 + 100 * 3.4e-6, 1e-12);
}

/* rank 0's collectives' totals of p through `sites` (NULL: none). */
static void view_sites(const struct fixture *f,
                       const struct plan *p,
                       const struct cost_ctx *ctx,
                       struct comm_pick_site *sites,
                       struct comm_totals *tot)
{
    struct comm_groups g;
    struct plan_rank v;
    struct memory mem;
    comm_groups_init(&g, &f->hw, p, COMM_TOPO);
    plan_rank_view(p, cost_ctx_partition(ctx, p), 0, &v);
    memory_view(&f->ds, &f->hw, p, &v, &mem);
    comm_view(&f->ds, p, &v, &g, &ctx->ep, mem.grads_per_step,
              &(struct comm_out){NULL, 0, tot, sites});
}

/*
 * A rank's pick sites (struct comm_out) are keyed by every input of the
 * pick: with a wrong pick planted in every site, the totals are wrong
 * where the keys match (the sites are read) and right again, equal to a
 * view without sites bit for bit, where any one key field differs (a
 * field left out of the key would take the planted pick). DeepSeek-V3,
 * TP 2 x PP 4 x EP 64 on 2048 H800s: TP, EP, PP and DP collectives,
 * inside nodes and across them.
 */
static void test_comm_pick_sites_keyed(void **state)
{
    struct fixture *f = *state;
    struct comm_pick_site sites[COMM_PICK_SITES], planted[COMM_PICK_SITES];
    struct comm_totals cold, warm;
    struct cost_ctx ctx;
    struct plan p;
    size_t i, k, used = 0;
    int field;
    util_plan(&f->ds, &f->hw,
              "gpus=2048 tp=2 pp=4 ep=64 zero=1 precision=fp8 gbs=3072", &p);
    util_ctx(&ctx, &f->ds, &f->hw, COMM_TOPO, &p);
    memset(sites, 0, sizeof sites);
    view_sites(f, &p, &ctx, NULL, &cold);
    view_sites(f, &p, &ctx, sites, &warm);
    assert_memory_equal(&cold, &warm, sizeof cold);
    for (i = 0; i < COMM_PICK_SITES; i++)
        used += sites[i].set;
    assert_true(used >= 4);
    for (i = 0; i < COMM_PICK_SITES; i++) { /* a pick no collective has */
        sites[i].pick.share = sites[i].pick.inv_share = 0.5;
        sites[i].pick.lat.steps = 1e6;
    }
    memcpy(planted, sites, sizeof sites);
    view_sites(f, &p, &ctx, sites, &warm);
    assert_true(memcmp(&cold, &warm, sizeof cold) != 0);
    for (field = 0; field < 7; field++) {
        memcpy(sites, planted, sizeof sites);
        for (k = 0; k < COMM_PICK_SITES; k++) {
            struct comm_pick_site *st = &sites[k];
            if (field == 0)
                st->span.size++;
            else if (field == 1)
                st->span.per_node++;
            else if (field == 2)
                st->span.nodes++;
            else if (field == 3)
                st->kind += 100;
            else if (field == 4)
                st->by += 100;
            else if (field == 5)
                st->bytes *= 2;
            else
                st->link_s *= 2;
        }
        view_sites(f, &p, &ctx, sites, &warm);
        if (memcmp(&cold, &warm, sizeof cold) != 0)
            fail_msg("key field %d of a pick site is not compared", field);
    }
    cost_ctx_release(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comm_all_gather_16_gpus_2_nodes),
        cmocka_unit_test(test_comm_collective_times_by_hand),
        cmocka_unit_test(test_comm_all_reduce_in_node),
        cmocka_unit_test(test_comm_tensor_parallel_volume),
        cmocka_unit_test(test_comm_pipeline_send),
        cmocka_unit_test(test_comm_cp_scan_state_pass),
        cmocka_unit_test(test_comm_ep_node_limited_copies),
        cmocka_unit_test(test_comm_ep_affinity_routing),
        cmocka_unit_test(test_comm_ep_affinity_fewer_experts_than_nodes),
        cmocka_unit_test(test_comm_ep_dispatchers),
        cmocka_unit_test(test_comm_ep_stack_dispatcher),
        cmocka_unit_test(test_comm_tp_without_sequence_parallel),
        cmocka_unit_test(test_comm_tp_in_moe_layers),
        cmocka_unit_test(test_comm_tp_backward_regather),
        cmocka_unit_test(test_comm_zero2_grads_once_or_per_microbatch),
        cmocka_unit_test(test_comm_moe_recompute_redoes_all_to_all),
        cmocka_unit_test(test_comm_nvlink_domain),
        cmocka_unit_test(test_comm_ep_bytes_deepseek),
        cmocka_unit_test(test_comm_dualpipe_copy_in_node),
        cmocka_unit_test(test_comm_pick_sites_keyed),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
