/*
 * test_sweep: enumeration counts, batch rounding, rejection reasons,
 * families and ranking of a sweep; the same report for any thread count.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "figures.h"
#include "rank.h"
#include "ranking.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
};

static int setup(void **state)
{
    static struct fixture f;
    struct diag d;
    diag_init(&d);
    if (model_load("tests/data/snap/models/deepseek-v3.ini", &f.m, NULL, 0,
                   &d) ||
        hardware_load("tests/data/snap/hardware/h800.ini", &f.hw, NULL, 0, &d))
        return -1;
    *state = &f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    model_release(&f->m);
    hardware_release(&f->hw);
    return 0;
}

/* Loads the sweep snapshot (tests/data/snap/sweeps/default.ini) with the given
 * overrides. */
static void load_sweep(struct sweep_file *sf, const char *const *sets, size_t n)
{
    struct datafile_set s[16];
    struct diag d;
    size_t i;
    diag_init(&d);
    for (i = 0; i < n; i++)
        if (datafile_parse_set(sets[i], &s[i], &d) != STATUS_OK)
            fail_msg("%s", d.msg);
    if (sweep_load("tests/data/snap/sweeps/default.ini", sf, s, n, &d) !=
        STATUS_OK)
        fail_msg("%s", d.msg);
}

static void build(const struct fixture *f,
                  const struct sweep_file *sf,
                  size_t threads,
                  struct ranking *r,
                  struct cost_ctx *ctx,
                  struct cost_ctx *other)
{
    struct rank_options opt;
    struct diag d;
    diag_init(&d);
    memset(&opt, 0, sizeof opt);
    memset(r, 0, sizeof *r);
    opt.threads = threads;
    if (cost_ctx_init(ctx, &f->m, &f->hw, COMM_TOPO, &d) != STATUS_OK ||
        cost_ctx_init(other, &f->m, &f->hw, COMM_FLAT, &d) != STATUS_OK ||
        rank_run(r, ctx, sf, &opt, &d) != STATUS_OK ||
        rank_finish_families(r, ctx, other, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

/* By hand: tp 2 x pp 2 x zero 2 x (1f1b + zb + interleaved at vpp 2 and 4)
 * x precision 2 x mbs 1 = 2 x 2 x 2 x 4 x 2 = 64 combinations. */
static void test_sweep_count_by_hand(void **state)
{
    struct sweep_file sf;
    static const char *const sets[] = {"space.tp=1 2",
                                       "space.pp=1 2",
                                       "space.ep=1",
                                       "space.zero=0 3",
                                       "space.vpp=2 4",
                                       "space.recompute=full",
                                       "space.mbs=1",
                                       "space.schedule=1f1b zb interleaved",
                                       "space.precision=bf16 fp8",
                                       "space.offload=0 4"};
    (void)state;
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    /* tp 2 x pp 2 x zero 2 x (1f1b, zb, interleaved x vpp 2) 4 x
     * precision 2 x offload 2 */
    assert_int_equal(sweep_count(&sf), 128);
    sweep_release(&sf);
}

/* gbs is a target: 15360 over dp = 2048 (7.5 per rank) rounds up to 8 per
 * rank = 16384; under DualPipe the unit is 2 dp mbs; interleaved pp dp mbs.
 * Every combination is counted once, as valid or by its reason. */
static void test_sweep_batch_rounding_and_reasons(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct ranking r;
    struct cost_ctx ctx, other;
    static const char *const sets[] = {
        "space.tp=1 16",        "space.pp=1 2",
        "space.ep=1 3 64",      "space.zero=1 3",
        "space.recompute=full", "space.mbs=1",
        "space.precision=bf16", "space.schedule=1f1b dualpipe"};
    uint64_t sum = 0;
    size_t i;
    (void)state;
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    build(f, &sf, 1, &r, &ctx, &other);
    assert_int_equal(r.enumerated, 2 * 2 * 3 * 2 * 2);
    for (i = 0; i < PLAN_REASONS; i++)
        sum += r.rejected[i];
    assert_int_equal(sum + r.valid, r.enumerated);
    /* tp=16: larger than a node, for every other choice: 2*3*2*2 */
    assert_int_equal(r.rejected[PLAN_BAD_TP_NODE], 24);
    /* ep=3 with tp=1 (tp=16 fails first): 2*2*2 */
    assert_int_equal(r.rejected[PLAN_BAD_EP_EXPERTS], 8);
    /* pp=1 DualPipe (ep 1, 64; zero 1, 3): 4, an odd pp */
    assert_int_equal(r.rejected[PLAN_BAD_DUALPIPE], 4);
    assert_string_equal(
        r.examples[PLAN_BAD_TP_NODE][0],
        "gpus=2048 tp=16 pp=1 ep=1 cp=1 zero=1 schedule=1f1b vpp=1 "
        "precision=bf16 recompute=full mbs=1 gbs=15360: tp=16 is larger "
        "than a node (8 GPUs): tensor parallelism stays on NVLink");
    for (i = 0; i < r.nrows; i++) {
        const struct plan *p = &r.rows[i].plan;
        long unit = p->dp * p->mbs * (p->schedule == PLAN_DUALPIPE ? 2 : 1);
        assert_int_equal(p->gbs % unit, 0);
        if (p->pp == 1)
            assert_int_equal(p->gbs, 16384);
        else /* dp = 1024: 15 per rank exactly; DualPipe needs 16 */
            assert_int_equal(p->gbs,
                             p->schedule == PLAN_DUALPIPE ? 16384 : 15360);
    }
    ranking_free(&r);
    cost_ctx_release(&ctx);
    cost_ctx_release(&other);
    sweep_release(&sf);
}

/* Fitting plans first, then by step time; families named by dimension. */
static void test_sweep_ranking_and_families(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct ranking r;
    struct cost_ctx ctx, other;
    static const char *const sets[] = {"space.tp=1",
                                       "space.pp=1 16",
                                       "space.ep=1 64",
                                       "space.zero=1 3",
                                       "space.schedule=1f1b dualpipe",
                                       "space.precision=fp8",
                                       "space.recompute=selective",
                                       "space.mbs=1"};
    size_t i;
    (void)state;
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    build(f, &sf, 1, &r, &ctx, &other);
    for (i = 1; i < r.nrows; i++) {
        const struct ranking_row *a = &r.rows[i - 1], *b = &r.rows[i];
        assert_true(a->fits >= b->fits);
        if (a->fits == b->fits)
            assert_true(a->step <= b->step);
    }
    assert_true(ranking_family_index(&r, "ZeRO-3") >= 0);
    assert_true(ranking_family_index(&r, "ZeRO-1+PP+EP") >= 0);
    assert_true(ranking_family_index(&r, "ZeRO-3+PP+EP") >= 0);
    /* DeepSeek's published plan is in this space and ranks */
    assert_int_equal(r.nvalidations, 0);
    ranking_free(&r);
    cost_ctx_release(&ctx);
    cost_ctx_release(&other);
    sweep_release(&sf);
}

/* The merge of thread shards is order-free: 1 and 3 threads agree. */
static void test_sweep_threads_same_report(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct ranking a, b;
    struct cost_ctx c1, o1, c2, o2;
    static const char *const sets[] = {
        "space.tp=1 2", "space.pp=1 4 16", "space.ep=1 8 64",
        "space.recompute=selective full", "space.mbs=1 2"};
    size_t i;
    (void)state;
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    build(f, &sf, 1, &a, &c1, &o1);
    build(f, &sf, 3, &b, &c2, &o2);
    assert_int_equal(a.valid, b.valid);
    assert_int_equal(a.nrows, b.nrows);
    assert_int_equal(a.nfamilies, b.nfamilies);
    assert_memory_equal(a.rows, b.rows, a.nrows * sizeof *a.rows);
    assert_memory_equal(a.rejected, b.rejected, sizeof a.rejected);
    assert_memory_equal(a.examples, b.examples, sizeof a.examples);
    for (i = 0; i < a.nfamilies; i++) {
        assert_string_equal(a.family[i].name, b.family[i].name);
        assert_memory_equal(&a.family[i].best.plan, &b.family[i].best.plan,
                            sizeof a.family[i].best.plan);
        assert_memory_equal(a.family[i].sens_ib_step, b.family[i].sens_ib_step,
                            sizeof a.family[i].sens_ib_step);
    }
    ranking_free(&a);
    ranking_free(&b);
    cost_ctx_release(&c1);
    cost_ctx_release(&o1);
    cost_ctx_release(&c2);
    cost_ctx_release(&o2);
    sweep_release(&sf);
}

/* --top keeps the best N (a bounded heap): the same as the first N of
 * the full ranking. */
static void test_sweep_top_keeps_best(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct ranking all, top;
    struct cost_ctx c1, o1, c2, o2;
    struct rank_options opt;
    struct diag d;
    static const char *const sets[] = {"space.tp=1 2", "space.pp=1 8 16",
                                       "space.mbs=1"};
    (void)state;
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    build(f, &sf, 2, &all, &c1, &o1);
    diag_init(&d);
    memset(&opt, 0, sizeof opt);
    opt.top = 10;
    opt.threads = 2;
    assert_int_equal(cost_ctx_init(&c2, &f->m, &f->hw, COMM_TOPO, &d), 0);
    assert_int_equal(cost_ctx_init(&o2, &f->m, &f->hw, COMM_FLAT, &d), 0);
    memset(&top, 0, sizeof top);
    assert_int_equal(rank_run(&top, &c2, &sf, &opt, &d), STATUS_OK);
    assert_int_equal(top.nrows, 10);
    assert_int_equal(top.dropped, top.valid - 10);
    assert_memory_equal(top.rows, all.rows, 10 * sizeof *top.rows);
    ranking_free(&all);
    ranking_free(&top);
    cost_ctx_release(&c1);
    cost_ctx_release(&o1);
    cost_ctx_release(&c2);
    cost_ctx_release(&o2);
    sweep_release(&sf);
}

/* A space where nothing is valid is an input error naming the reason. */
static void test_sweep_empty_space(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct ranking r;
    struct cost_ctx ctx, other;
    struct rank_options opt;
    struct diag d;
    static const char *const sets[] = {"space.tp=16", "space.pp=1",
                                       "space.mbs=1"};
    (void)state;
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    diag_init(&d);
    memset(&opt, 0, sizeof opt);
    assert_int_equal(cost_ctx_init(&ctx, &f->m, &f->hw, COMM_TOPO, &d), 0);
    assert_int_equal(cost_ctx_init(&other, &f->m, &f->hw, COMM_FLAT, &d), 0);
    memset(&r, 0, sizeof r);
    assert_int_equal(rank_run(&r, &ctx, &sf, &opt, &d), STATUS_RANGE);
    /* 7 ep x 4 zero x 4 schedules (vpp 2 only) x 2 precisions x 3 recompute */
    assert_non_null(strstr(d.msg, "no valid plan: all 672 combinations "
                                  "were rejected (most often: tp larger "
                                  "than a node, 672 times"));
    ranking_free(&r);
    cost_ctx_release(&ctx);
    cost_ctx_release(&other);
    sweep_release(&sf);
}

/* ---- Each plan once; [defaults] checked at load ---- */

/* What sweep_run visited: counts per reason and the valid plans. */
struct seen {
    uint64_t reasons[PLAN_REASONS];
    struct plan valid[64];
    size_t nvalid;
};

static void see(void *user, struct plan *p, enum plan_reason why, uint64_t i)
{
    struct seen *s = user;
    (void)i;
    s->reasons[why]++;
    if (why == PLAN_OK && s->nvalid < 64)
        s->valid[s->nvalid++] = *p;
}

/*
 * On 2048 H800s (8 per node) with tp = pp = cp = 1, dp = 2048 and one
 * micro-batch per rank is the unit. By hand: gbs 15360 (7.5 units, ties
 * up) -> 16384; 16000 (7.8) -> 16384; 30720 (15) -> 30720; 0 (the
 * model's 15360) -> 16384. So of the 4 targets, 2 plans; gpus 0 is the
 * cluster's 2048, the same as the next entry: 2 x 4 = 8 combinations,
 * 2 plans, 6 repeats. large.ini listed one ZeRO-3 plan 4 times this way.
 */
static void test_sweep_lists_each_plan_once(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct seen seen;
    static const char *const sets[] = {
        "space.gpus=0 2048",    "space.tp=1",
        "space.pp=1",           "space.ep=1",
        "space.zero=1",         "space.schedule=1f1b",
        "space.precision=bf16", "space.recompute=full",
        "space.mbs=1",          "space.gbs=15360 16000 30720 0"};
    size_t i, j;
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    assert_int_equal(sweep_count(&sf), 8);
    memset(&seen, 0, sizeof seen);
    sweep_run(&sf, &f->m, &f->hw, 0, 1, see, NULL, &seen);
    assert_int_equal(seen.reasons[PLAN_OK], 2);
    assert_int_equal(seen.reasons[PLAN_SAME_PLAN], 6);
    assert_int_equal(seen.valid[0].gbs, 16384);
    assert_int_equal(seen.valid[1].gbs, 30720);
    for (i = 0; i < seen.nvalid; i++)
        for (j = 0; j < i; j++)
            assert_memory_not_equal(&seen.valid[i], &seen.valid[j],
                                    sizeof seen.valid[i]);
    sweep_release(&sf);
}

/* What sweep_run handed a thread: combinations by reason (visited or
 * skipped), a checksum of the valid plans' places and batches, and the
 * skip calls, the first `refuse` of which ask for visits instead. */
struct tally {
    uint64_t reasons[PLAN_REASONS];
    uint64_t valid_sum;
    uint64_t skips, refuse;
    const struct model *m;     /* each visit's verdict checked against */
    const struct hardware *hw; /* plan_check's on them */
};

static void
tally_visit(void *user, struct plan *p, enum plan_reason why, uint64_t i)
{
    struct tally *t = user;
    struct plan q = *p;
    enum plan_reason again =
        plan_check(&q, t->m, t->hw, PLAN_CHECK_DISTINCT, NULL);
    /* (a repeat is one plan_check accepts) */
    assert_int_equal(again, why == PLAN_SAME_PLAN ? PLAN_OK : why);
    assert_memory_equal(&q, p, sizeof q); /* dp, edp, micro-batches too */
    t->reasons[why]++;
    if (why == PLAN_OK)
        t->valid_sum += i * 2654435761u + (uint64_t)p->gbs;
}

static bool tally_skip(void *user, enum plan_reason why, uint64_t count)
{
    struct tally *t = user;
    assert_int_not_equal(why, PLAN_OK);
    if (t->skips++ < t->refuse)
        return false;
    t->reasons[why] += count;
    return true;
}

/*
 * Blocks of combinations rejected by their outer dimensions (tp*pp*cp not
 * dividing gpus, ep not dividing a stage, more chunks than layers) are
 * counted without visiting each: every thread's share gets the same
 * counts by reason and the same valid plans as visiting every one, also
 * when the skip asks for visits (a shard keeping its examples); each
 * plan visited comes with plan_check's verdict and derived fields (the
 * sweep checks the outer dimensions once for the inner ones).
 */
static void test_sweep_skip_counts_alike(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    static const char *const sets[] = {
        "space.gpus=256 1024 2048",
        "space.tp=1 2 8 16",
        "space.pp=1 2 16 64",
        "space.ep=1 3 64 256",
        "space.cp=1 2",
        "space.zero=0 1",
        "space.schedule=1f1b interleaved dualpipe",
        "space.vpp=2 4",
        "space.precision=bf16 fp8",
        "space.recompute=none full",
        "space.offload=0 3",
        "space.mbs=1 2",
        "space.gbs=15360 16000"};
    size_t threads, thread, r;
    uint64_t refuse, total[PLAN_REASONS] = {0};
    struct hardware saved = f->hw;
    /* offloading plans can run (the snapshot gives no host link) */
    f->hw.spec.host_link_gbps = 55;
    f->hw.host_link_bps = 55e9;
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    for (threads = 1; threads <= 3; threads++)
        for (thread = 0; thread < threads; thread++)
            for (refuse = 0; refuse <= 5; refuse += 5) {
                struct tally each, skipped;
                memset(&each, 0, sizeof each);
                memset(&skipped, 0, sizeof skipped);
                each.m = skipped.m = &f->m;
                each.hw = skipped.hw = &f->hw;
                skipped.refuse = refuse;
                sweep_run(&sf, &f->m, &f->hw, thread, threads, tally_visit,
                          NULL, &each);
                sweep_run(&sf, &f->m, &f->hw, thread, threads, tally_visit,
                          tally_skip, &skipped);
                for (r = 0; r < PLAN_REASONS; r++)
                    assert_int_equal(skipped.reasons[r], each.reasons[r]);
                assert_int_equal(skipped.valid_sum, each.valid_sum);
                assert_true(skipped.skips > refuse); /* some were skipped */
                assert_true(each.reasons[PLAN_OK] > 0);
                for (r = 0; r < PLAN_REASONS; r++)
                    total[r] += each.reasons[r];
            }
    /* the space holds these verdicts (each thread's share some of them) */
    assert_true(total[PLAN_BAD_DIVIDE] > 0);
    assert_true(total[PLAN_BAD_EP_GROUP] > 0);
    assert_true(total[PLAN_BAD_PP_LAYERS] > 0);
    assert_true(total[PLAN_BAD_OFFLOAD] > 0);
    sweep_release(&sf);
    f->hw = saved;
}

/* Loads a layer-split sweep of ok + bad combinations, checks how many
 * plan_check accepts and refuses for their split, and prepares ctx for
 * it (rank_prepare). */
static void sweep_splits(struct fixture *f,
                         const char *const *sets,
                         size_t nsets,
                         long ok,
                         long bad,
                         struct sweep_file *sf,
                         struct seen *seen,
                         struct cost_ctx *ctx)
{
    struct diag d;
    load_sweep(sf, sets, nsets);
    assert_int_equal(sweep_count(sf), ok + bad);
    memset(seen, 0, sizeof *seen);
    sweep_run(sf, &f->m, &f->hw, 0, 1, see, NULL, seen);
    assert_int_equal(seen->reasons[PLAN_OK], ok);
    assert_int_equal(seen->reasons[PLAN_BAD_PP_SPLIT], bad);
    diag_init(&d);
    assert_int_equal(cost_ctx_init(ctx, &f->m, &f->hw, COMM_TOPO, &d),
                     STATUS_OK);
    assert_int_equal(rank_prepare(sf, ctx, &d), STATUS_OK);
}

/*
 * Issue 17 item 2: the sweep tries the balanced split and the framework's.
 * DeepSeek-V3's 61 layers on pp = 16 with pp_first in {0, 1} and pp_last
 * in {0, 4}: (0, 0) balanced; (1, 4) leaves 56 for 14 stages, 4 each;
 * (1, 0) leaves 60 for 15, 4 each; (0, 4) leaves 57 for 15: refused. So
 * 3 plans and 1 uneven split, and each accepted split is prepared and
 * evaluates on its own layer counts.
 */
static void test_sweep_pp_splits(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct seen seen;
    struct cost_ctx ctx;
    static const char *const sets[] = {
        "space.gpus=2048",      "space.tp=1",          "space.pp=16",
        "space.pp_first=0 1",   "space.pp_last=0 4",   "space.ep=64",
        "space.zero=1",         "space.schedule=1f1b", "space.precision=bf16",
        "space.recompute=full", "space.mbs=1",         "space.gbs=15360"};
    size_t i;
    sweep_splits(f, sets, sizeof sets / sizeof *sets, 3, 1, &sf, &seen, &ctx);
    for (i = 0; i < seen.nvalid; i++) {
        const struct plan *p = &seen.valid[i];
        const struct model_partition *part = cost_ctx_partition(&ctx, p);
        assert_non_null(part);
        if (p->pp_first > 0)
            assert_int_equal(part->chunk[0].count, p->pp_first);
        if (p->pp_last > 0) /* and the MTP module */
            assert_int_equal(part->chunk[15].count, p->pp_last + 1);
        if (p->pp_first > 0 || p->pp_last > 0)
            assert_int_equal(part->chunk[1].count, 4);
    }
    cost_ctx_release(&ctx);
    sweep_release(&sf);
}

/*
 * The split word `framework` (issue 17 item 2: the sweep tries roofplan's
 * balanced split and the framework's): the stack's split takes its place,
 * once. By hand: {balanced, framework} with Megatron-LM's uniform gives
 * {balanced, uniform}; with DeepSeek's balanced, {balanced}; {framework,
 * uniform, framework} with uniform, {uniform}; without a stack (-1) the
 * word is dropped, {balanced}; a [defaults] framework takes the stack's.
 */
static void test_sweep_framework_split(void **state)
{
    struct sweep_file sf;
    static const char *const both[] = {"space.pp_split=balanced framework",
                                       "defaults.pp_split=framework"};
    static const char *const thrice[] = {
        "space.pp_split=framework uniform framework"};
    (void)state;
    load_sweep(&sf, both, 1);
    assert_true(sweep_names_framework_split(&sf));
    sweep_use_framework_split(&sf, MODEL_SPLIT_UNIFORM);
    assert_false(sweep_names_framework_split(&sf));
    assert_int_equal(sf.spec.pp_split.n, 2);
    assert_int_equal((int)sf.spec.pp_split.v[0], MODEL_SPLIT_BALANCED);
    assert_int_equal((int)sf.spec.pp_split.v[1], MODEL_SPLIT_UNIFORM);
    sweep_release(&sf);
    load_sweep(&sf, both, 2);
    sweep_use_framework_split(&sf, MODEL_SPLIT_BALANCED);
    assert_int_equal(sf.spec.pp_split.n, 1);
    assert_int_equal((int)sf.spec.pp_split.v[0], MODEL_SPLIT_BALANCED);
    assert_int_equal(sf.spec.d_pp_split, MODEL_SPLIT_BALANCED);
    sweep_release(&sf);
    load_sweep(&sf, thrice, 1);
    sweep_use_framework_split(&sf, MODEL_SPLIT_UNIFORM);
    assert_int_equal(sf.spec.pp_split.n, 1);
    assert_int_equal((int)sf.spec.pp_split.v[0], MODEL_SPLIT_UNIFORM);
    sweep_release(&sf);
    load_sweep(&sf, both, 2);
    sweep_use_framework_split(&sf, -1);
    assert_int_equal(sf.spec.pp_split.n, 1);
    assert_int_equal((int)sf.spec.pp_split.v[0], MODEL_SPLIT_BALANCED);
    assert_true(sweep_names_framework_split(&sf)); /* the default's */
    sweep_release(&sf);
}

/*
 * pp_split's rules (Megatron-LM's get_num_layers_to_build) in a sweep:
 * DeepSeek-V3's 61 layers on pp = 2. Balanced: accepted; loss: 62
 * counted, 31 per stage, 30 decoder layers (and the MTP module) on the
 * last; embedding_loss: 63 over 2, refused; uniform: 61 over 2, refused.
 * Both accepted splits are prepared apart and every plan evaluates on its
 * own partition (two prepared splits once shared a moving array).
 */
static void test_sweep_pp_split_rules(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct seen seen;
    struct cost_ctx ctx;
    struct cost_result r;
    static const char *const sets[] = {
        "space.gpus=2048",
        "space.tp=1",
        "space.pp=2",
        "space.pp_split=balanced loss embedding_loss uniform",
        "space.ep=64",
        "space.zero=1",
        "space.schedule=1f1b",
        "space.precision=bf16",
        "space.recompute=full",
        "space.mbs=1",
        "space.gbs=15360"};
    size_t i;
    sweep_splits(f, sets, sizeof sets / sizeof *sets, 2, 2, &sf, &seen, &ctx);
    for (i = 0; i < seen.nvalid; i++) {
        const struct plan *p = &seen.valid[i];
        const struct model_partition *part = cost_ctx_partition(&ctx, p);
        assert_non_null(part);
        if (p->pp_split == MODEL_SPLIT_LOSS) {
            assert_int_equal(part->chunk[0].count, 31);
            assert_int_equal(part->chunk[1].count, 31); /* 30 and MTP */
            assert_int_equal(part->chunk[1].mtp_units, 1);
        }
        cost_evaluate(&ctx, p, COST_FLOOR | COST_EXPECTED, NULL, &r);
        assert_true(cost_rank_step(&r) > 0);
    }
    cost_ctx_release(&ctx);
    sweep_release(&sf);
}

/*
 * A rounded gbs stays within what `eval` accepts (1e9). gpus = 504000
 * with mbs = 1000: one unit is 5.04e8 sequences; 1e9 is 1.98 units, so
 * the nearest multiple, 2 units = 1.008e9, is over and 1 unit is taken.
 * gpus = 1008000: one unit is 1.008e9, over on its own: the plan keeps
 * the target 1e9, which is not a multiple of dp x mbs, and is rejected.
 */
static void test_sweep_batch_within_plan_range(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct seen seen;
    static const char *const sets[] = {"space.gpus=504000 1008000",
                                       "space.tp=1",
                                       "space.pp=1",
                                       "space.ep=1",
                                       "space.zero=1",
                                       "space.schedule=1f1b",
                                       "space.precision=bf16",
                                       "space.recompute=full",
                                       "space.mbs=1000",
                                       "space.gbs=1000000000"};
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    memset(&seen, 0, sizeof seen);
    sweep_run(&sf, &f->m, &f->hw, 0, 1, see, NULL, &seen);
    assert_int_equal(seen.reasons[PLAN_OK], 1);
    assert_int_equal(seen.valid[0].gbs, 504000000);
    assert_int_equal(seen.reasons[PLAN_BAD_BATCH], 1);
    sweep_release(&sf);
}

/* Loads default.ini with one override; returns the status, message in d. */
static enum status
load_one(const char *set, struct sweep_file *sf, struct diag *d)
{
    struct datafile_set s;
    diag_init(d);
    if (datafile_parse_set(set, &s, d) != STATUS_OK)
        fail_msg("%s", d->msg);
    return sweep_load("tests/data/snap/sweeps/default.ini", sf, &s, 1, d);
}

/* ---- Whose batch a plan takes (issue 37) ---- */

#define SNAP_SWEEP "tests/data/snap/sweeps/default.ini"

/* The batches of the valid plans sweep file `path` (with the overrides
 * `sets`) gives model m on cluster hw, in the order visited, into seen. */
static void batches_of(const char *path,
                       const char *const *sets,
                       size_t nsets,
                       const struct model *m,
                       const struct hardware *hw,
                       struct seen *seen)
{
    struct datafile_set s[16];
    struct sweep_file sf;
    struct diag d;
    size_t i;
    diag_init(&d);
    for (i = 0; i < nsets; i++)
        if (datafile_parse_set(sets[i], &s[i], &d) != STATUS_OK)
            fail_msg("%s", d.msg);
    if (sweep_load(path, &sf, s, nsets, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    memset(seen, 0, sizeof *seen);
    sweep_run(&sf, m, hw, 0, 1, see, NULL, seen);
    sweep_release(&sf);
}

/*
 * Llama 3 405B's file states 2,048 sequences of 8,192 tokens (arXiv
 * 2407.21783 Table 4: 16M tokens per batch); on its 16,384 H100s at tp 8
 * x pp 16, dp = 16384 / 128 = 128 ranks and, at mbs 1 under 1F1B, the
 * batch unit is 128 sequences: 2,048 is 16 units, 15,360 is 120. By hand:
 * - a sweep that says nothing of gbs, or `model`: 2,048 (the model's);
 * - one that names 15,360 (--set, or the snapshot of the old default
 *   sweep, which named it): 15,360, whatever the model says;
 * - `model 15360`: both, the model's first;
 * - `0` is `model`, as before the word.
 * At tp = pp = 1 (dp 16,384) the model's 2,048 is under one sequence per
 * rank: the plan takes the nearest it can run, one unit, 16,384.
 */
static void test_sweep_model_batch_precedence(void **state)
{
    /* the snapshot's space cut to the one plan shape of sweep-no-gbs.ini,
     * with the snapshot's gbs (15360) as it stands */
    static const char *const snap[] = {
        "space.gpus=0",        "space.tp=8",           "space.pp=16",
        "space.ep=1",          "space.cp=1",           "space.zero=1",
        "space.schedule=1f1b", "space.precision=bf16", "space.recompute=full",
        "space.mbs=1",         "space.gbs=model"};
    static const char *const named[] = {"space.gbs=15360"};
    static const char *const both[] = {"space.gbs=model 15360"};
    static const char *const zero[] = {"space.gbs=0"};
    static const char *const flat[] = {"space.tp=1", "space.pp=1"};
    const size_t nsnap = sizeof snap / sizeof *snap;
    struct model m;
    struct hardware hw;
    struct seen seen;
    struct diag d;
    (void)state;
    diag_init(&d);
    if (model_load("tests/data/snap/models/llama-3-405b.ini", &m, NULL, 0,
                   &d) ||
        hardware_load("tests/data/snap/hardware/h100.ini", &hw, NULL, 0, &d))
        fail_msg("%s", d.msg);
    assert_int_equal(m.spec.global_batch, 2048);
    assert_int_equal(hw.spec.gpus, 16384);

    batches_of("tests/data/sweep-no-gbs.ini", NULL, 0, &m, &hw, &seen);
    assert_int_equal(seen.nvalid, 1);
    assert_int_equal(seen.valid[0].gbs, 2048);
    batches_of(SNAP_SWEEP, snap, nsnap, &m, &hw, &seen); /* gbs=model */
    assert_int_equal(seen.nvalid, 1);
    assert_int_equal(seen.valid[0].gbs, 2048);
    batches_of(SNAP_SWEEP, snap, nsnap - 1, &m, &hw, &seen); /* its 15360 */
    assert_int_equal(seen.nvalid, 1);
    assert_int_equal(seen.valid[0].gbs, 15360);
    batches_of("tests/data/sweep-no-gbs.ini", named, 1, &m, &hw, &seen);
    assert_int_equal(seen.nvalid, 1);
    assert_int_equal(seen.valid[0].gbs, 15360);
    batches_of("tests/data/sweep-no-gbs.ini", both, 1, &m, &hw, &seen);
    assert_int_equal(seen.nvalid, 2);
    assert_int_equal(seen.valid[0].gbs, 2048);
    assert_int_equal(seen.valid[1].gbs, 15360);
    batches_of("tests/data/sweep-no-gbs.ini", zero, 1, &m, &hw, &seen);
    assert_int_equal(seen.nvalid, 1);
    assert_int_equal(seen.valid[0].gbs, 2048);
    batches_of("tests/data/sweep-no-gbs.ini", flat, 2, &m, &hw, &seen);
    assert_int_equal(seen.nvalid, 1);
    assert_int_equal(seen.valid[0].gbs, 16384);
    model_release(&m);
    hardware_release(&hw);
}

/* Whether a sweep names a batch of its own: a number, not only `model`. */
static void test_sweep_names_batch(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct diag d;
    (void)f;
    diag_init(&d);
    assert_int_equal(
        sweep_load("tests/data/sweep-no-gbs.ini", &sf, NULL, 0, &d), STATUS_OK);
    assert_false(sweep_names_batch(&sf));
    sweep_release(&sf);
    assert_int_equal(load_one("space.gbs=model", &sf, &d), STATUS_OK);
    assert_false(sweep_names_batch(&sf));
    sweep_release(&sf);
    assert_int_equal(load_one("space.gbs=model,4096", &sf, &d), STATUS_OK);
    assert_true(sweep_names_batch(&sf));
    sweep_release(&sf);
    /* the snapshot of the old default sweep names 15360 */
    assert_int_equal(load_one("space.tp=1", &sf, &d), STATUS_OK);
    assert_true(sweep_names_batch(&sf));
    sweep_release(&sf);
    /* a range of the word means nothing */
    assert_int_equal(load_one("space.gbs=model..4096", &sf, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "--set space.gbs=model..4096: a range "
                               "(\"model..4096\") needs numbers");
}

/* A [defaults] that no PLAN can complete was accepted by `check` and
 * reported by `eval` as "PLAN: ..." with no file or line. default.ini:
 * line 26 schedule = 1f1b, 27 vpp = 1 (gpus and gbs 0: the cluster's
 * and the model's, checked by eval). */
static void test_sweep_defaults_checked_at_load(void **state)
{
    struct sweep_file sf;
    struct diag d;
    (void)state;
    assert_int_equal(load_one("defaults.schedule=interleaved", &sf, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg,
                        "tests/data/snap/sweeps/default.ini:27: defaults.vpp: "
                        "schedule=interleaved needs vpp >= 2, got "
                        "vpp=1");
    assert_int_equal(load_one("defaults.vpp=2", &sf, &d), STATUS_RANGE);
    assert_string_equal(d.msg,
                        "tests/data/snap/sweeps/default.ini:26: defaults.vpp: "
                        "vpp=2 needs schedule=interleaved (other "
                        "schedules take vpp=1)");
    assert_int_equal(load_one("defaults.gpus=48", &sf, &d), STATUS_OK);
    sweep_release(&sf);
    assert_int_equal(load_one("defaults.gbs=1001", &sf, &d), STATUS_OK);
    sweep_release(&sf);
}

/* With gpus and gbs given, the divisions are checked too. */
static void test_sweep_defaults_divisions(void **state)
{
    static const char *const sets[] = {"defaults.gpus=48", "defaults.pp=5",
                                       "defaults.gbs=100"};
    struct datafile_set s[3];
    struct sweep_file sf;
    struct diag d;
    size_t i;
    (void)state;
    diag_init(&d);
    for (i = 0; i < 3; i++)
        datafile_parse_set(sets[i], &s[i], &d);
    assert_int_equal(
        sweep_load("tests/data/snap/sweeps/default.ini", &sf, s, 3, &d),
        STATUS_RANGE);
    /* tp*pp*cp = 1 x 5 x 1 does not divide 48; set by --set: no line, so
     * the line of tp (21), the rule's other key */
    assert_string_equal(d.msg,
                        "tests/data/snap/sweeps/default.ini:21: defaults.gpus: "
                        "tp*pp*cp=5 does not divide gpus=48");
    datafile_parse_set("defaults.pp=4", &s[1], &d);
    diag_init(&d);
    assert_int_equal(
        sweep_load("tests/data/snap/sweeps/default.ini", &sf, s, 3, &d),
        STATUS_RANGE);
    /* dp = 48 / 4 = 12, mbs = 1: 100 is not a multiple of 12 */
    assert_string_equal(d.msg,
                        "tests/data/snap/sweeps/default.ini:30: defaults.gbs: "
                        "gbs=100 is not a multiple of dp*mbs=12");
    datafile_parse_set("defaults.gbs=96", &s[2], &d);
    diag_init(&d);
    assert_int_equal(
        sweep_load("tests/data/snap/sweeps/default.ini", &sf, s, 3, &d),
        STATUS_OK);
    sweep_release(&sf);
}

/* [report]: the shipped values, which are also the defaults. */
static void test_sweep_report_section(void **state)
{
    struct sweep_file sf;
    struct diag d;
    const struct sweep_spec *s = &sf.spec;
    (void)state;
    assert_int_equal(load_one("report.tie_pct=2", &sf, &d), STATUS_OK);
    assert_string_equal(s->r_baseline, "ZeRO-3");
    assert_int_equal(s->r_sens_ib.n, 11);
    assert_true(s->r_sens_ib.v[0] == 12.5 && s->r_sens_ib.v[10] == 400);
    assert_int_equal(s->r_sens_nv.n, 8);
    assert_true(s->r_sens_nv.v[2] == 160);
    assert_true(s->r_headroom_pct == 10 && s->r_tie_pct == 2);
    assert_int_equal(s->r_plans_sheet, 2000);
    sweep_release(&sf);
}

/* A grid must ascend and hold at most 16 bandwidths; the headroom stays
 * below 90%. */
static void test_sweep_report_rejects(void **state)
{
    struct sweep_file sf;
    struct diag d;
    (void)state;
    assert_int_equal(load_one("report.sens_ib_gbps=50 25", &sf, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg, "tests/data/snap/sweeps/default.ini: --set "
                               "report.sens_ib_gbps=50 25: bandwidths must "
                               "ascend, got 25 after 50");
    assert_int_equal(load_one("report.sens_nvlink_gbps=1..17 +1", &sf, &d),
                     STATUS_RANGE);
    assert_string_equal(d.msg, "tests/data/snap/sweeps/default.ini: --set "
                               "report.sens_nvlink_gbps=1..17 +1: expected 1 "
                               "to 16 bandwidths, got 17");
    /* a --set out of range is a usage error naming the argument */
    assert_int_equal(load_one("report.headroom_pct=95", &sf, &d), STATUS_USAGE);
    assert_non_null(strstr(d.msg, "--set report.headroom_pct=95"));
    assert_non_null(strstr(d.msg, "0..90"));
}

/* A plan fits when it leaves the headroom free: with 10% of H800's 79.21
 * GiB, at most 71.289 GiB; each family's lightest plan is the least
 * memory of its plans. */
static void test_sweep_headroom_and_lightest(void **state)
{
    struct fixture *f = *state;
    struct sweep_file sf;
    struct ranking r;
    struct cost_ctx ctx, other;
    static const char *const sets[] = {"space.tp=1 2", "space.pp=1 16",
                                       "space.ep=1 64", "space.mbs=1 2"};
    size_t i, nfit = 0;
    double least[RANKING_FAMILY_KEYS];
    (void)state;
    load_sweep(&sf, sets, sizeof sets / sizeof *sets);
    build(f, &sf, 2, &r, &ctx, &other);
    assert_true(r.headroom_pct == 10);
    for (i = 0; i < r.nfamilies; i++)
        least[i] = INFINITY;
    for (i = 0; i < r.nrows; i++) {
        const struct ranking_row *w = &r.rows[i];
        bool want = w->mem.total <= 0.9 * w->mem.capacity;
        assert_int_equal(w->fits, want);
        nfit += want;
        if (w->mem.total < least[w->family])
            least[w->family] = w->mem.total;
    }
    assert_int_equal(r.fitting, nfit);
    assert_int_equal(r.nrows, r.valid); /* all kept: every plan seen */
    for (i = 0; i < r.nfamilies; i++) {
        assert_true(r.family[i].has_lightest);
        assert_true(r.family[i].lightest_mem.total == least[i]);
    }
    ranking_free(&r);
    cost_ctx_release(&ctx);
    cost_ctx_release(&other);
    sweep_release(&sf);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_report_section),
        cmocka_unit_test(test_sweep_report_rejects),
        cmocka_unit_test(test_sweep_headroom_and_lightest),
        cmocka_unit_test(test_sweep_count_by_hand),
        cmocka_unit_test(test_sweep_batch_rounding_and_reasons),
        cmocka_unit_test(test_sweep_ranking_and_families),
        cmocka_unit_test(test_sweep_threads_same_report),
        cmocka_unit_test(test_sweep_top_keeps_best),
        cmocka_unit_test(test_sweep_empty_space),
        cmocka_unit_test(test_sweep_lists_each_plan_once),
        cmocka_unit_test(test_sweep_skip_counts_alike),
        cmocka_unit_test(test_sweep_pp_splits),
        cmocka_unit_test(test_sweep_pp_split_rules),
        cmocka_unit_test(test_sweep_framework_split),
        cmocka_unit_test(test_sweep_batch_within_plan_range),
        cmocka_unit_test(test_sweep_defaults_checked_at_load),
        cmocka_unit_test(test_sweep_defaults_divisions),
        cmocka_unit_test(test_sweep_model_batch_precedence),
        cmocka_unit_test(test_sweep_names_batch),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
