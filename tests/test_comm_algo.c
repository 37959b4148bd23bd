/*
 * test_comm_algo: the algorithm, protocol and latency NCCL would pick
 * for a collective, each expected value derived by hand from NCCL's
 * tuning model (NVIDIA/nccl @5067397 src/graph/tuning.cc:
 * ncclTopoTuneModel's latencies and bandwidths, ncclTopoGetAlgoTime's
 * choice) and the numbers of tests/data/snap/collectives/nccl.ini and
 * tests/data/snap/hardware/h800.ini, never from the code under test.
 *
 * The H800 file's values the derivations use: 8 GPUs a node, NVLink 160
 * GB/s, IB 50 GB/s a GPU, nvls_share 0.796875, ll_max 141 (one node) /
 * 39 (two) / 20.4 (more) GB/s, net_overhead_us 1. NCCL's (µs):
 *
 *                base  NVLink  NET   share
 *   ring LL      6.6   0.6     2.7   0.5 (capped at ll_max / busBw)
 *   ring LL128  14.0   1.9     4.0   0.92
 *   ring Simple  8.4   3.4    14.0   1
 *   tree LL      6.8   0.6     5.0   0.2421 x (g - 1) / g
 *   NVLS Simple  -    25       -     0.796875 x 2 (all-reduce)
 *
 * Before issue 36 every call cost one latency per link whatever its
 * group: 55 µs across nodes, 3.5 µs inside one (h800.ini's
 * ib_latency_us, nvlink_latency_us); each test below fails on that.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "collectives.h"
#include "comm.h"
#include "comm_algo.h"
#include "cost.h"
#include "test_util.h"

struct fixture {
    struct model gpt, ds;
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
    hardware_release(&f->hw);
    return 0;
}

/* A group of g ranks, k a node, on n nodes. */
static struct plan_span span(long g, long k, long n)
{
    return (struct plan_span){g, k, n};
}

/* The pick for one call whose busiest link needs link_us at full rate. */
static struct comm_algo pick(const struct fixture *f,
                             struct plan_span span,
                             int kind,
                             int by,
                             double bytes,
                             double link_us)
{
    struct comm_algo a;
    comm_algo_pick(&f->hw, span, kind, by, bytes, link_us * 1e-6, &a);
    return a;
}

static double lat_us(const struct fixture *f, struct comm_lat lat)
{
    return comm_lat_s(&f->hw, lat) * 1e6;
}

/*
 * A ZeRO-3 all-gather over 1024 ranks, 8 a node on 128 nodes. The ring
 * has nsteps = g - 1 = 1023 steps, n - 1 = 127 of them across nodes
 * (tuning.cc:405-411); an in-node step takes at least the host's net
 * overhead (1 µs, x 3 for Simple) as the ring spans nodes:
 *   Simple: 8.4 + 896 x max(3.4, 3) + 127 x 14.0 = 4832.8 µs, share 1
 *   LL128:  14.0 + 896 x max(1.9, 1) + 127 x 4.0 = 2224.4 µs, share 0.92
 *   LL:     6.6 + 896 x max(0.6, 1) + 127 x 2.7 = 1245.5 µs, share
 *           min(0.5, 20.4 / (8 GPUs x 50 GB/s)) = 0.051
 * No tree (all-reduce only), no PAT (one GPU a node only), no NVLS (one
 * node only for all-gather). Least time at link time x (µs):
 *   LL128 below Simple while 2224.4 + x / 0.92 < 4832.8 + x: x < 29997;
 *   LL below LL128 while 1245.5 + x / 0.051 < 2224.4 + x / 0.92: x <
 *   52.85. So 10 µs: LL; 1 ms: LL128; 40 ms: Simple.
 */
static void test_comm_algo_zero3_all_gather_1024_ranks(void **state)
{
    struct fixture *f = *state;
    struct plan_span s = span(1024, 8, 128);
    struct comm_algo a;
    a = pick(f, s, COMM_ALL_GATHER, COMM_BY_LIBRARY, 1e6, 10);
    assert_int_equal(a.algo, COLLECTIVES_RING);
    assert_int_equal(a.proto, COLLECTIVES_LL);
    assert_near(lat_us(f, a.lat), 1245.5, 1e-9);
    assert_near(a.share, 0.051, 1e-9);
    a = pick(f, s, COMM_ALL_GATHER, COMM_BY_LIBRARY, 64e6, 1000);
    assert_int_equal(a.proto, COLLECTIVES_LL128);
    assert_near(lat_us(f, a.lat), 2224.4, 1e-9);
    assert_near(a.share, 0.92, 1e-9);
    /* in steps: (14 + 896 x 1.9) / 3.4 in-node, 127 x 4 / 14 network */
    assert_near(a.lat.steps, (14 + 896 * 1.9) / 3.4, 1e-9);
    assert_near(a.lat.net, 127 * 4.0 / 14, 1e-9);
    a = pick(f, s, COMM_ALL_GATHER, COMM_BY_LIBRARY, 4e9, 40000);
    assert_int_equal(a.proto, COLLECTIVES_SIMPLE);
    assert_near(lat_us(f, a.lat), 4832.8, 1e-9);
    /* reduce-scatter: the same ring */
    a = pick(f, s, COMM_REDUCE_SCATTER, COMM_BY_LIBRARY, 64e6, 1000);
    assert_near(lat_us(f, a.lat), 2224.4, 1e-9);
}

/*
 * The same group in a plan: GPT-3 175B (Korthikanti) on 1024 H800, ZeRO-3
 * over dp = 1024. Its weight all-gather gathers a layer's weights per
 * call: 12 h^2 x 2 bytes = 3.6 GB, whose busiest link needs well within
 * LL128's range (52.85 µs to 30 ms, above), so each call's latency is
 * the LL128 ring's 2224.4 µs, all of it charged to IB (the group spans
 * nodes); it was 55 µs.
 */
static void test_comm_algo_zero3_plan(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct comm_totals t;
    struct cost_ctx ctx;
    struct plan p;
    size_t n, i;
    const struct comm_collective *ag = NULL;
    double per_call_s;
    util_plan(&f->gpt, &f->hw, "gpus=1024 zero=3 gbs=1024", &p);
    util_ctx(&ctx, &f->gpt, &f->hw, COMM_TOPO, &p);
    n = comm_rank(&f->gpt, &f->hw, &p, cost_ctx_partition(&ctx, &p), 0,
                  COMM_TOPO, &ctx.ep,
                  &(struct comm_out){l, COMM_LIST_MAX, &t, NULL});
    cost_ctx_release(&ctx);
    for (i = 0; i < n; i++)
        if (strcmp(l[i].name, "ZeRO-3 weight all-gather (fwd+bwd)") == 0)
            ag = &l[i];
    assert_non_null(ag);
    assert_int_equal(ag->span.size, 1024);
    assert_int_equal(ag->span.nodes, 128);
    per_call_s = (ag->ib_bytes / f->hw.spec.ib_gbps >
                          ag->nvlink_bytes / f->hw.spec.nvlink_gbps
                      ? ag->ib_bytes / f->hw.spec.ib_gbps
                      : ag->nvlink_bytes / f->hw.spec.nvlink_gbps) *
                 1e-9 / ag->calls;
    assert_true(per_call_s > 52.85e-6 && per_call_s < 29.997e-3);
    assert_int_equal(ag->algo.proto, COLLECTIVES_LL128);
    assert_near(lat_us(f, ag->ib_lat) / ag->calls, 2224.4, 1e-9);
    assert_near(lat_us(f, ag->nvlink_lat), 0, 1e-9);
}

/*
 * An all-to-all over 64 ranks, 8 a node on 8 nodes. NCCL runs it as
 * grouped sends and receives to every peer at once (enqueue.cc): one
 * launch (the ring's base), one step in the node, one network step, and
 * the host's post of a send to each of the g - k = 56 peers off the node
 * (net overhead 1 µs, x 3 for Simple; tuning.cc:408):
 *   Simple: 8.4 + 3.4 + 14.0 + 56 x 3 = 193.8 µs
 *   LL (up to 16384 bytes a peer: 63 x 16384 bytes a call): 6.6 + 0.6 +
 *   2.7 + 56 x 1 = 65.9 µs
 * DeepEP's kernels post their own RDMA from the GPU (no host post): base
 * + one step in the node + 2 network steps (counts, then data):
 *   8.4 + 3.4 + 2 x 14.0 = 39.8 µs.
 */
static void test_comm_algo_ep_all_to_all_64_ranks(void **state)
{
    struct fixture *f = *state;
    struct plan_span s = span(64, 8, 8);
    struct comm_algo a;
    a = pick(f, s, COMM_ALL_TO_ALL, COMM_BY_LIBRARY, 30e6, 100);
    assert_int_equal(a.proto, COLLECTIVES_SIMPLE);
    assert_near(lat_us(f, a.lat), 193.8, 1e-9);
    a = pick(f, s, COMM_ALL_TO_ALL, COMM_BY_LIBRARY, 63 * 16384.0, 1);
    assert_int_equal(a.proto, COLLECTIVES_LL);
    assert_near(lat_us(f, a.lat), 65.9, 1e-9);
    a = pick(f, s, COMM_ALL_TO_ALL, COMM_BY_LIBRARY, 63 * 16384.0 + 64, 1);
    assert_int_equal(a.proto, COLLECTIVES_SIMPLE);
    a = pick(f, s, COMM_ALL_TO_ALL, COMM_BY_DEEPEP, 30e6, 100);
    assert_near(lat_us(f, a.lat), 39.8, 1e-9);
    assert_near(a.share, 1, 1e-12);
}

/*
 * The same in a plan: DeepSeek-V3 on 64 H800, EP 64. A dispatch moves
 * tens of MB a call (4096 tokens x 7168 x 8 experts), above LL's 1 MB,
 * so NCCL's all-to-all costs 193.8 µs a call and DeepEP's 39.8 µs (it
 * was 55 µs either way).
 */
static void test_comm_algo_ep_plan(void **state)
{
    struct fixture *f = *state;
    struct comm_collective l[COMM_LIST_MAX];
    struct cost_result r;
    struct cost_ctx ctx;
    struct stack st;
    struct plan p;
    size_t n, i, seen;
    int k;
    const int disp[] = {STACK_DISPATCH_ALLTOALL, STACK_DISPATCH_DEEPEP};
    const double want_us[] = {193.8, 39.8};
    memset(&st, 0, sizeof st);
    util_plan(&f->ds, &f->hw, "gpus=64 ep=64 zero=1 precision=fp8 gbs=128", &p);
    for (k = 0; k < 2; k++) {
        util_ctx(&ctx, &f->ds, &f->hw, COMM_TOPO, &p);
        st.spec.ep_dispatcher = disp[k];
        ctx.stack = &st;
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &r);
        n = cost_collectives(&ctx, &r, l, COMM_LIST_MAX);
        for (i = seen = 0; i < n; i++)
            if (l[i].what == COMM_EP) {
                assert_true(l[i].bytes / l[i].calls > 63 * 16384.0);
                assert_near(lat_us(f, l[i].ib_lat) / l[i].calls, want_us[k],
                            1e-9);
                seen++;
            }
        assert_int_equal(seen, 2);
        cost_ctx_release(&ctx);
    }
}

/*
 * A TP group of 8 in one node (one NVLink domain with NVLink SHARP):
 * all-reduce, nsteps = 2 (g - 1) = 14, no network step:
 *   ring LL: 6.6 + 14 x 0.6 = 15.0 µs, share min(0.5, 141 / 160) = 0.5
 *   ring LL128: 14 + 14 x 1.9 = 40.6 µs, ring Simple 8.4 + 14 x 3.4 =
 *   56.0 µs; tree LL: 6.8 + 2 x 7 x 0.6 = 15.2 µs (above ring LL's)
 *   NVLS: 25 µs (its NVLINK latency alone, tuning.cc:424), share
 *   0.796875 x 2 = 1.59375 (two operations pipelined)
 * A 1 KB call (x ~ 0.01 µs): ring LL, 15.0 µs. A large one (x = 1 ms):
 * NVLS, 25 + 1000 / 1.59375 against ring Simple's 56 + 1000.
 * All-gather (sequence parallel): nsteps 7: ring LL 6.6 + 7 x 0.6 = 10.8
 * µs, LL128 14 + 7 x 1.9 = 27.3, Simple 8.4 + 7 x 3.4 = 32.2 at share 1,
 * NVLS 25 at 0.796875 x (7/8)^2 = 0.61; at 1 ms Simple (1032.2 µs)
 * beats LL128 (27.3 + 1087.0) and NVLS (25 + 1640.9).
 */
static void test_comm_algo_tp_8_in_node(void **state)
{
    struct fixture *f = *state;
    struct plan_span s = span(8, 8, 1);
    struct comm_algo a;
    a = pick(f, s, COMM_ALL_REDUCE, COMM_BY_LIBRARY, 1024, 0.01);
    assert_int_equal(a.algo, COLLECTIVES_RING);
    assert_int_equal(a.proto, COLLECTIVES_LL);
    assert_near(lat_us(f, a.lat), 15.0, 1e-9);
    assert_near(a.share, 0.5, 1e-12);
    a = pick(f, s, COMM_ALL_REDUCE, COMM_BY_LIBRARY, 100e6, 1000);
    assert_int_equal(a.algo, COLLECTIVES_NVLS);
    assert_near(lat_us(f, a.lat), 25, 1e-9);
    assert_near(a.share, 1.59375, 1e-12);
    a = pick(f, s, COMM_ALL_GATHER, COMM_BY_LIBRARY, 100e6, 1000);
    assert_int_equal(a.algo, COLLECTIVES_RING);
    assert_int_equal(a.proto, COLLECTIVES_SIMPLE);
    assert_near(lat_us(f, a.lat), 32.2, 1e-9);
    a = pick(f, s, COMM_ALL_GATHER, COMM_BY_LIBRARY, 1024, 0.01);
    assert_int_equal(a.proto, COLLECTIVES_LL);
    assert_near(lat_us(f, a.lat), 10.8, 1e-9);
}

/*
 * A group of one moves nothing: no latency. Without a collectives file
 * (h800.ini with `collectives` emptied) every call is latency-free.
 */
static void test_comm_algo_no_latency(void **state)
{
    struct fixture *f = *state;
    struct hardware bare = f->hw;
    struct comm_algo a;
    a = pick(f, span(1, 1, 1), COMM_ALL_REDUCE, COMM_BY_LIBRARY, 1e6, 10);
    assert_near(lat_us(f, a.lat), 0, 1e-12);
    bare.coll = NULL;
    comm_algo_pick(&bare, span(1024, 8, 128), COMM_ALL_GATHER, COMM_BY_LIBRARY,
                   64e6, 1e-3, &a);
    assert_near(a.lat.steps + a.lat.net, 0, 1e-12);
    assert_near(a.share, 1, 1e-12);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_comm_algo_zero3_all_gather_1024_ranks),
        cmocka_unit_test(test_comm_algo_zero3_plan),
        cmocka_unit_test(test_comm_algo_ep_all_to_all_64_ranks),
        cmocka_unit_test(test_comm_algo_ep_plan),
        cmocka_unit_test(test_comm_algo_tp_8_in_node),
        cmocka_unit_test(test_comm_algo_no_latency),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
