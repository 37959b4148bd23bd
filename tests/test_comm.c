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
        model_load("data/models/deepseek-v3.ini", &f.ds, NULL, 0, &d) ||
        model_load("tests/data/tiny-moe.ini", &f.tiny, NULL, 0, &d) ||
        hardware_load("data/hardware/h800.ini", &f.hw, NULL, 0, &d))
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
                  &ctx.ep, list, COMM_LIST_MAX, tot);
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
    assert_near(t.ib_bytes, 0, 1e-9);
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
    assert_near(t.what_nvlink[COMM_TP], mb * (layers * 8 + 4) * bsh * 7 / 8 * 2,
                1e-9);
    assert_near(t.ib_bytes, 0, 1e-9);
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
 * DeepSeek's EP64 over 8 nodes with a 4-node limit: the 8 experts of a
 * token are drawn from 4 x 32 = 128; a node is missed with probability
 * C(96,8)/C(128,8) = 0.0927472689 and a GPU (4 experts) with
 * C(124,8)/C(128,8) = 0.7700196850 (Python math.comb). IB copies =
 * 4 (1 - 0.0927...) x 7/8 = 3.1753845589; NVLink = 32 (1 - 0.770...) x 7/8
 * = 6.4394488189.
 */
static void test_comm_ep_node_limited_copies(void **state)
{
    struct fixture *f = *state;
    struct plan_span span = plan_span(64, 1, 8);
    double ib, nv;
    comm_ep_copies(&f->ds, span, &ib, &nv);
    assert_near(ib, 3.175384558872488, 1e-12);
    assert_near(nv, 6.439448818897636, 1e-12);
}

/* Without a node limit, plain all-to-all: top_k = 2 copies, 8 of the 16
 * peers off-node (IB 2 x 8/16 = 1), 7 on-node others (NVLink 2 x 7/16). */
static void test_comm_ep_plain_all_to_all(void **state)
{
    struct fixture *f = *state;
    double ib, nv;
    comm_ep_copies(&f->tiny, plan_span(16, 1, 8), &ib, &nv);
    assert_near(ib, 1, 1e-12);
    assert_near(nv, 0.875, 1e-12);
}

/* DeepSeek's EP64 dispatch per token per MoE layer (ISCA'25 §2.3.2:
 * dispatch FP8 1 byte, combine BF16 2 bytes, per hidden element; the
 * backward repeats both): IB bytes = copies x 7168 x (1+2+1+2). */
static void test_comm_ep_bytes_deepseek(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    /* gpus=64, pp=1: every rank holds all 58 MoE layers; gbs=128: two
     * micro-batches of 4096 tokens per GPU. */
    run(f, &f->ds, "gpus=64 ep=64 zero=1 precision=fp8 gbs=128", COMM_TOPO, l,
        &t);
    assert_near(t.what_ib[COMM_EP],
                3.175384558872488 * 7168 * 6 * 4096 * 2 * 58, 1e-9);
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
    assert_near(t.ib_bytes, 0, 0);
    run(f, &f->gpt, one, COMM_FLAT, l, &t);
    assert_near(t.ib_bytes, 0, 0);
    n = run(f, &f->gpt, "gpus=16 pp=2 zero=1 schedule=dualpipe gbs=16",
            COMM_TOPO, l, &t);
    ag = find(l, n, "weight all-gather (after step)");
    assert_int_equal(ag->span.size, 16);
    assert_int_equal(ag->span.per_node, 8);
    assert_int_equal(ag->span.nodes, 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comm_all_gather_16_gpus_2_nodes),
        cmocka_unit_test(test_comm_all_reduce_in_node),
        cmocka_unit_test(test_comm_tensor_parallel_volume),
        cmocka_unit_test(test_comm_pipeline_send),
        cmocka_unit_test(test_comm_ep_node_limited_copies),
        cmocka_unit_test(test_comm_ep_plain_all_to_all),
        cmocka_unit_test(test_comm_ep_bytes_deepseek),
        cmocka_unit_test(test_comm_dualpipe_copy_in_node),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
