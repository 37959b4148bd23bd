/*
 * test_rank_cache: what a sweep thread keeps from one plan for the next
 * (rank_cache.c, handed to evaluate as a hint) changes no answer. Issue
 * 34 item 12 found the cache keyed by a hand-kept list of plan fields
 * that missed `offload`, so a sweep's answer depended on the order of a
 * list; the cache is now keyed by the whole plan (plan_same, generated
 * with struct plan), and this test makes that class of bug impossible
 * to miss: every field of struct plan, taken from plan_members() (so a
 * new field is covered without editing the test), is varied in turn on a
 * few small plans, and each variant is weighed after its base and the
 * base after it through one cache, and alone (no hint, a forgotten
 * cache): the memories, the bounds rank_prune gives, the speed of light
 * and the expected step must be the same, bit for bit.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calibration.h"
#include "cost.h"
#include "rank_cache.h"
#include "rank_prune.h"
#include "stack.h"
#include "test_util.h"

/* The small plans the fields are varied on, by model: pp = 1 (where
 * offload applies), pipelines of each schedule with context and expert
 * parallelism, and pipelines with a layer split (pp_first and pp_last,
 * pp_split, a layout). Each field's candidate values come from these. */
static const char *const moe_bases[] = {
    "gpus=16 tp=2 pp=1 ep=2 zero=1 precision=fp8 mbs=1 gbs=64 offload=2",
    "gpus=16 tp=1 pp=2 ep=4 cp=2 zero=2 schedule=interleaved vpp=2 "
    "recompute=selective mbs=2 gbs=64",
    "gpus=16 tp=2 pp=4 ep=2 zero=3 schedule=dualpipe precision=fp8 "
    "pp_split=uniform mbs=1 gbs=64",
};
static const char *const dense_bases[] = {
    "gpus=16 tp=2 pp=1 zero=1 sp=0 mbs=2 gbs=64 offload=1",
    "gpus=32 tp=4 pp=4 zero=0 schedule=zb recompute=full mbs=1 gbs=32 "
    "pp_first=1 pp_last=3",
    "gpus=32 tp=2 pp=4 cp=2 zero=2 pp_layout=Et|tt|tt|tttL mbs=1 gbs=64",
    "gpus=16 tp=2 pp=4 zero=1 pp_split=uniform precision=fp8 mbs=1 gbs=64",
};

#define MAX_BASES    4
#define MAX_VARIANTS 6                   /* per base and field */
#define MAX_VALUES   (5 + 3 * MAX_BASES) /* candidates of a field */

/* One model on the GB200 snapshot cluster, with its calibration and
 * DeepSeek's stack, so every plan has an expected step too. */
struct world {
    struct model m;
    struct hardware hw;
    struct calibration cal;
    struct stack st;
    struct cost_ctx ctx;
    struct plan base[MAX_BASES];
    size_t nbase;
};

static struct rank_cache kept, cold; /* zeroed, as a sweep thread's */

static void world_open(struct world *w,
                       const char *model,
                       const char *const *bases,
                       size_t n)
{
    struct diag d;
    size_t i;
    diag_init(&d);
    util_model(&w->m, model, NULL, 0);
    if (hardware_load("tests/data/snap/hardware/gb200-nvl72.ini", &w->hw, NULL,
                      0, &d) ||
        calibration_load("tests/data/snap/calibration/gb200-nvl72.ini", &w->cal,
                         NULL, 0, &d) ||
        stack_load("tests/data/snap/stacks/deepseek-hai.ini", &w->st, NULL, 0,
                   &d) ||
        cost_ctx_init(&w->ctx, &w->m, &w->hw, COMM_TOPO, &d))
        fail_msg("%s", d.msg);
    w->hw.cal = &w->cal;
    w->ctx.stack = &w->st;
    assert_true(n <= MAX_BASES);
    for (i = 0; i < n; i++) {
        util_plan(&w->m, &w->hw, bases[i], &w->base[i]);
        if (cost_ctx_prepare_plan(&w->ctx, &w->base[i], &d) != STATUS_OK)
            fail_msg("%s", d.msg);
    }
    w->nbase = n;
}

static void world_close(struct world *w)
{
    cost_ctx_release(&w->ctx);
    stack_release(&w->st);
    calibration_release(&w->cal);
    hardware_release(&w->hw);
    model_release(&w->m);
}

/* Field f of p, as a long. */
static long get_field(const struct plan *p, const struct plan_member *f)
{
    const char *at = (const char *)p + f->offset;
    if (strcmp(f->type, "long") == 0) {
        long v;
        memcpy(&v, at, sizeof v);
        return v;
    }
    if (strcmp(f->type, "int") == 0) {
        int v;
        memcpy(&v, at, sizeof v);
        return v;
    }
    if (strcmp(f->type, "bool") == 0) {
        bool v;
        memcpy(&v, at, sizeof v);
        return v;
    }
    fail_msg("plan field %s: type %s: teach test_rank_cache its values",
             f->name, f->type);
    return 0;
}

static void set_field(struct plan *p, const struct plan_member *f, long v)
{
    char *at = (char *)p + f->offset;
    if (strcmp(f->type, "long") == 0) {
        memcpy(at, &v, sizeof v);
    } else if (strcmp(f->type, "int") == 0) {
        int x = (int)v;
        memcpy(at, &x, sizeof x);
    } else if (strcmp(f->type, "bool") == 0) {
        bool x = v != 0;
        memcpy(at, &x, sizeof x);
    } else {
        fail_msg("plan field %s: type %s: teach test_rank_cache its values",
                 f->name, f->type);
    }
}

/* Candidate values of field f: 0 to 4, and each base's value, one more
 * and double. */
static size_t
candidates(const struct world *w, const struct plan_member *f, long *out)
{
    long v[MAX_VALUES];
    size_t n = 0, i, j, k = 0;
    for (i = 0; i <= 4; i++)
        v[n++] = (long)i;
    for (i = 0; i < w->nbase; i++) {
        long b = get_field(&w->base[i], f);
        v[n++] = b;
        v[n++] = b + 1;
        v[n++] = 2 * b;
    }
    for (i = 0; i < n; i++) {
        for (j = 0; j < k && out[j] != v[i]; j++)
            ;
        if (j == k)
            out[k++] = v[i];
    }
    return k;
}

/* Whether q's text (plan_format) is a plan a user can write: each of its
 * words and numbers in range (plan_parse), so plan_check may judge it. */
static bool writable(const struct plan *q)
{
    struct plan defaults, parsed;
    char text[512];
    char *args[1];
    struct diag d;
    long dp = 0;
    memset(&defaults, 0, sizeof defaults);
    defaults.tp = defaults.pp = defaults.ep = defaults.cp = 1;
    defaults.vpp = defaults.mbs = 1;
    plan_format(q, text, sizeof text);
    args[0] = text;
    diag_init(&d);
    return plan_parse(args, 1, &defaults, &parsed, &dp, &d) == STATUS_OK;
}

/* q, checked as eval checks a plan; true when it runs and differs from
 * base in field f (a derived field moves with the fields it derives
 * from). */
static bool variant_ok(struct world *w,
                       const struct plan *base,
                       const struct plan_member *f,
                       struct plan *q)
{
    struct diag d;
    diag_init(&d);
    if (!writable(q) ||
        plan_check(q, &w->m, &w->hw, PLAN_CHECK_RUNNABLE, NULL) != PLAN_OK)
        return false;
    if (get_field(q, f) == get_field(base, f))
        return false;
    if (cost_ctx_prepare_plan(&w->ctx, q, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    return true;
}

/* The same numbers, bit for bit: the times, work, memory, ranks and
 * partition of two results of one plan. */
static bool same_result(const struct cost_result *a,
                        const struct cost_result *b)
{
    return memcmp(&a->t, &b->t, sizeof a->t) == 0 &&
           memcmp(&a->work, &b->work, sizeof a->work) == 0 &&
           memcmp(&a->mem, &b->mem, sizeof a->mem) == 0 && a->rank == b->rank &&
           a->balance_precision == b->balance_precision && a->fits == b->fits;
}

static void differs(const struct plan *p, const char *after, const char *what)
{
    char text[300];
    plan_format(p, text, sizeof text);
    fail_msg("%s after %s: %s through the cache is not its value alone", text,
             after, what);
}

/* rank_prune_bounds of p on a forgotten cache. */
static bool cold_bounds(const struct world *w,
                        const struct plan *p,
                        enum rank_prune_depth depth,
                        double at_most,
                        double *step,
                        double *any)
{
    rank_cache_forget(&cold);
    rank_cache_hint(&cold, p);
    return rank_prune_bounds(&w->ctx, p, &cold, depth, at_most, step, any);
}

/* p weighed through the kept cache (as the sweep weighs it: memory,
 * bounds, floor, expected step) and alone; its floor into *floor. */
static void weigh(const struct world *w,
                  const struct plan *p,
                  const char *after,
                  struct cost_result *floor)
{
    struct cost_hint *hint = rank_cache_hint(&kept, p);
    struct cost_memories mk, mc;
    struct cost_result a, b;
    double s1, a1, s0, a0;
    bool k1, k0;
    size_t i;
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    cost_memory(&w->ctx, p, 1e30, NULL, &mc);
    cost_memory(&w->ctx, p, 1e30, hint, &mk);
    if (mk.n != mc.n)
        differs(p, after, "the candidates' count");
    for (i = 0; i < mk.n; i++)
        if (memcmp(&mk.mem[i], &mc.mem[i], sizeof mk.mem[i]) != 0)
            differs(p, after, "a candidate's memory");
    cost_evaluate(&w->ctx, p, COST_FLOOR, NULL, &b);
    *floor = b;
    k0 = cold_bounds(w, p, RANK_PRUNE_COMPUTE, -1, &s0, &a0);
    k1 = rank_prune_bounds(&w->ctx, p, &kept, RANK_PRUNE_COMPUTE, -1, &s1, &a1);
    if (k0 != k1 || (k0 && (s0 != s1 || a0 != a1)))
        differs(p, after, "the bound from compute");
    k0 = cold_bounds(w, p, RANK_PRUNE_FULL, b.t.step * 0.999, &s0, &a0);
    k1 = rank_prune_bounds(&w->ctx, p, &kept, RANK_PRUNE_FULL, b.t.step * 0.999,
                           &s1, &a1);
    if (k0 != k1 || (k0 && (s0 != s1 || a0 != a1)))
        differs(p, after, "the bound from the ranks' work");
    cost_evaluate(&w->ctx, p, COST_FLOOR, hint, &a);
    if (!same_result(&a, &b))
        differs(p, after, "the speed of light");
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    cost_evaluate(&w->ctx, p, COST_FLOOR | COST_EXPECTED, NULL, &b);
    cost_evaluate(&w->ctx, p, COST_FLOOR | COST_EXPECTED, hint, &a);
    if (!same_result(&a, &b))
        differs(p, after, "the expected step");
    assert_true(b.work.x.known); /* the expected step was weighed */
}

/* What varying the fields found, over the worlds. */
struct tally {
    size_t varied[64];  /* by field: variants that run */
    size_t changed[64]; /* by field: of those, a floor other than the
                         * base's (where a stale cache would show) */
    size_t pairs;
};

/* Adds q to the variants of field f of base (at most MAX_VARIANTS:
 * those whose floor differs from the base's first, at most two others);
 * *changed counts the first kind. */
static void keep(struct world *w,
                 const struct cost_result *base_floor,
                 const struct plan *q,
                 struct plan *out,
                 size_t *n,
                 size_t *changed)
{
    struct cost_result r;
    memset(&r, 0, sizeof r);
    cost_evaluate(&w->ctx, q, COST_FLOOR, NULL, &r);
    if (!same_result(&r, base_floor)) {
        if (*changed < MAX_VARIANTS) {
            if (*n == MAX_VARIANTS) /* an unchanged one gives way */
                (*n)--;
            memmove(&out[*changed + 1], &out[*changed],
                    (*n - *changed) * sizeof *out);
            out[(*changed)++] = *q;
            (*n)++;
        }
    } else if (*n - *changed < 2 && *n < MAX_VARIANTS) {
        out[(*n)++] = *q;
    }
}

/* The variants of field i of base: one field changed; where none of
 * those costs other than the base, this field and one other (fields that
 * run only together: a split's layer counts). */
static size_t variants(struct world *w,
                       const struct plan *base,
                       const struct cost_result *base_floor,
                       size_t i,
                       struct plan *out)
{
    size_t nf, g, j, k, nv, nu, n = 0, changed = 0;
    const struct plan_member *f = plan_members(&nf);
    long v[MAX_VALUES], u[MAX_VALUES];
    struct plan q;
    nv = candidates(w, &f[i], v);
    for (j = 0; j < nv; j++) {
        q = *base;
        set_field(&q, &f[i], v[j]);
        if (variant_ok(w, base, &f[i], &q))
            keep(w, base_floor, &q, out, &n, &changed);
    }
    for (g = 0; g < nf && changed == 0; g++) {
        if (g == i)
            continue;
        nu = candidates(w, &f[g], u);
        for (j = 0; j < nv && changed == 0; j++)
            for (k = 0; k < nu && changed == 0; k++) {
                q = *base;
                set_field(&q, &f[i], v[j]);
                set_field(&q, &f[g], u[k]);
                if (variant_ok(w, base, &f[i], &q))
                    keep(w, base_floor, &q, out, &n, &changed);
            }
    }
    return n;
}

/* Varies each field of each base of w and weighs base and variant in
 * both orders through the kept cache, and alone. */
static void vary(struct world *w, struct tally *t)
{
    size_t nf, i, b, j;
    plan_members(&nf);
    assert_true(nf <= 64);
    for (b = 0; b < w->nbase; b++) {
        const struct plan *base = &w->base[b];
        struct cost_result base_floor, floor;
        weigh(w, base, "a plan of another world", &base_floor);
        for (i = 0; i < nf; i++) {
            struct plan q[MAX_VARIANTS];
            size_t n = variants(w, base, &base_floor, i, q);
            for (j = 0; j < n; j++) {
                weigh(w, &q[j], "its base", &floor);
                weigh(w, base, "a variant", &base_floor);
                t->varied[i]++;
                if (!same_result(&floor, &base_floor))
                    t->changed[i]++;
                t->pairs++;
            }
        }
    }
}

/*
 * Every field of struct plan, varied on the small plans above (tiny
 * MoE and dense models, 4 and 8 layers, on 16 or 32 GB200s), gives through the
 * cache what it gives alone, in both orders. Every field must have a
 * variant that runs and costs other than its base, where a stale cache
 * would show (a new field no base can vary fails here: give the bases a
 * plan where it applies); a field that runs only with another (a
 * layout's layer counts, a derived field) is varied with it.
 */
static void test_rank_cache_every_field(void **state)
{
    static struct tally t;
    struct world *w = calloc(2, sizeof *w);
    size_t nf, i;
    const struct plan_member *f = plan_members(&nf);
    (void)state;
    assert_non_null(w);
    world_open(&w[0], "tests/data/tiny-moe.ini", moe_bases,
               sizeof moe_bases / sizeof moe_bases[0]);
    world_open(&w[1], "tests/data/tiny-dense.ini", dense_bases,
               sizeof dense_bases / sizeof dense_bases[0]);
    vary(&w[0], &t);
    rank_cache_forget(&kept); /* another context */
    vary(&w[1], &t);
    for (i = 0; i < nf; i++) {
        if (t.changed[i] == 0)
            fail_msg("plan field %s: %zu variants of the test's plans run, "
                     "none costing other than its base: give the bases a "
                     "plan where it applies",
                     f[i].name, t.varied[i]);
    }
    print_message("%zu plan fields, %zu variant pairs\n", nf, t.pairs);
    world_close(&w[0]);
    world_close(&w[1]);
    free(w);
}

/*
 * A rank's memory kept across plans that differ only in gbs is what
 * weighing it again gives, bit for bit, where the micro-batches in
 * flight move (DualPipe's pp + 1 capped by half the micro-batches: 16
 * stages, 8 or 4 micro-batches each way at gbs 2048 or 1024 on 128
 * data-parallel replicas) and where they do not (15360 and 30720), on
 * both of an FP8 plan's partitions (DeepSeek-V3 on 2048 H800s); the
 * hint holds exactly the ranks memory_view weighs alone, and the plan
 * weighed through it is the plan weighed alone.
 */
static void test_rank_cache_batch_keeps_memories(void **state)
{
    static const long gbs[] = {15360, 2048, 1024, 30720, 15360, 1024};
    struct model m;
    struct hardware hw;
    struct cost_ctx ctx;
    struct plan p;
    struct diag d;
    size_t i, s, k, held = 0;
    (void)state;
    diag_init(&d);
    util_model(&m, "tests/data/snap/models/deepseek-v3.ini", NULL, 0);
    if (hardware_load("tests/data/snap/hardware/h800.ini", &hw, NULL, 0, &d))
        fail_msg("%s", d.msg);
    rank_cache_forget(&kept);
    for (i = 0; i < sizeof gbs / sizeof gbs[0]; i++) {
        struct cost_memories with, without;
        struct cost_result a, b;
        struct cost_hint *hint;
        char text[200];
        snprintf(text, sizeof text,
                 "gpus=2048 tp=1 pp=16 ep=64 zero=1 schedule=dualpipe "
                 "precision=fp8 recompute=selective mbs=1 gbs=%ld",
                 gbs[i]);
        util_plan(&m, &hw, text, &p);
        if (i == 0)
            util_ctx(&ctx, &m, &hw, COMM_TOPO, &p);
        hint = rank_cache_hint(&kept, &p);
        assert_int_equal(cost_memory(&ctx, &p, 1e30, hint, &with),
                         cost_memory(&ctx, &p, 1e30, NULL, &without));
        assert_int_equal(with.n, 2);
        assert_memory_equal(with.mem, without.mem, sizeof with.mem);
        for (s = 0; s < 2; s++)
            for (k = 0; k < hint->part[s].held; k++) {
                const struct cost_hint_rank *e = &hint->part[s].rank[k];
                struct memory alone;
                if (!(e->have & COST_HAVE_MEMORY))
                    continue;
                memory_view(&m, &hw, &p, e->view, &alone);
                assert_memory_equal(&e->mem, &alone, sizeof alone);
                held++;
            }
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, hint, &a);
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &b);
        assert_true(same_result(&a, &b));
    }
    assert_true(held > 2 * sizeof gbs / sizeof gbs[0]); /* both partitions */
    cost_ctx_release(&ctx);
    hardware_release(&hw);
    model_release(&m);
}

/*
 * The partition an FP8 plan runs on (cost_evaluate's choice between the
 * one balanced by time and the FLOP-balanced one, which the hint keeps
 * from the speed of light for the expected step) is forgotten with the
 * batch: DeepSeek-V3 on 2048 H800s, ZeRO-3 over PP 8 x EP 256, runs on
 * the time-balanced partition at gbs 2048 and on the FLOP-balanced one
 * at 3072 (`roofplan eval --json`: stages_balanced_by "time", "flops").
 * Weighed as the sweep weighs it (the speed of light, then with the
 * expected step) through the cache, each batch gives what it gives
 * alone.
 */
static void test_rank_cache_batch_forgets_partition(void **state)
{
    static const long gbs[] = {2048, 3072, 2048, 3072};
    struct model m;
    struct hardware hw;
    struct cost_ctx ctx;
    struct plan p;
    struct diag d;
    size_t i;
    int seen = 0;
    (void)state;
    diag_init(&d);
    util_model(&m, "tests/data/snap/models/deepseek-v3.ini", NULL, 0);
    if (hardware_load("tests/data/snap/hardware/h800.ini", &hw, NULL, 0, &d))
        fail_msg("%s", d.msg);
    rank_cache_forget(&kept);
    for (i = 0; i < sizeof gbs / sizeof gbs[0]; i++) {
        struct cost_result a, b;
        struct cost_hint *hint;
        char text[200];
        snprintf(text, sizeof text,
                 "gpus=2048 tp=1 pp=8 ep=256 zero=3 schedule=1f1b "
                 "precision=fp8 recompute=selective mbs=1 gbs=%ld",
                 gbs[i]);
        util_plan(&m, &hw, text, &p);
        if (i == 0)
            util_ctx(&ctx, &m, &hw, COMM_TOPO, &p);
        hint = rank_cache_hint(&kept, &p);
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        cost_evaluate(&ctx, &p, COST_FLOOR, hint, &a);
        cost_evaluate(&ctx, &p, COST_FLOOR, NULL, &b);
        if (!same_result(&a, &b))
            differs(&p, "another batch", "the speed of light");
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, hint, &a);
        cost_evaluate(&ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &b);
        if (!same_result(&a, &b))
            differs(&p, "another batch", "the expected step");
        seen |= 1 << (b.balance_precision == MODEL_BF16);
    }
    assert_int_equal(seen, 3); /* both partitions ran */
    cost_ctx_release(&ctx);
    hardware_release(&hw);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rank_cache_every_field),
        cmocka_unit_test(test_rank_cache_batch_keeps_memories),
        cmocka_unit_test(test_rank_cache_batch_forgets_partition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
