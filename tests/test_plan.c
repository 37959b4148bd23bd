/*
 * test_plan: PLAN parsing, validation reasons, family names, group spans.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"
#include "test_util.h"

struct fixture {
    struct model m;
    struct hardware hw;
    struct plan base;
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
    memset(&f.base, 0, sizeof f.base);
    f.base.gpus = 2048;
    f.base.tp = f.base.pp = f.base.ep = f.base.cp = f.base.vpp = 1;
    f.base.mbs = 1;
    f.base.gbs = 15360;
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

static enum plan_reason
check_text(struct fixture *f, const char *text, struct plan *p, struct diag *d)
{
    char buf[256];
    char *args[1];
    long dp;
    snprintf(buf, sizeof buf, "%s", text);
    args[0] = buf;
    diag_init(d);
    if (plan_parse(args, 1, &f->base, p, &dp, d) != STATUS_OK)
        fail_msg("%s: %s", text, d->msg);
    return plan_check(p, &f->m, &f->hw, false, d);
}

/* DESIGN §2: one argument separated by commas or spaces, or several. */
static void test_plan_parse_forms(void **state)
{
    struct fixture *f = *state;
    struct plan a, b;
    struct diag d;
    char s1[] = "tp=1,pp=16 ep=64", s2[] = "schedule=dualpipe";
    char s3[] = "pp=16", s4[] = "ep=64", s5[] = "schedule=dualpipe";
    char s6[] = "tp=1";
    char *one[] = {s1, s2}, *many[] = {s6, s3, s4, s5};
    long dp;
    diag_init(&d);
    assert_int_equal(plan_parse(one, 2, &f->base, &a, &dp, &d), STATUS_OK);
    assert_int_equal(plan_parse(many, 4, &f->base, &b, &dp, &d), STATUS_OK);
    assert_memory_equal(&a, &b, sizeof a);
    assert_int_equal(a.pp, 16);
    assert_int_equal(a.schedule, PLAN_DUALPIPE);
    assert_int_equal(a.gbs, 15360); /* from the defaults */
}

static void test_plan_parse_rejects_bad_tokens(void **state)
{
    struct fixture *f = *state;
    struct plan p;
    struct diag d;
    long dp;
    char s1[] = "tp=1 bogus=2", s2[] = "tp=x", s3[] = "tp=1,tp=2";
    char s4[] = "schedule=gpipe", s5[] = "pp", s6[] = "zero=4";
    char *a1[] = {s1}, *a2[] = {s2}, *a3[] = {s3}, *a4[] = {s4}, *a5[] = {s5};
    char *a6[] = {s6};
    diag_init(&d);
    assert_int_equal(plan_parse(a1, 1, &f->base, &p, &dp, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "PLAN token 'bogus=2': unknown key 'bogus' "
                               "(keys: gpus tp pp ep cp zero schedule vpp "
                               "precision recompute mbs gbs dp sp pp_first "
                               "pp_last pp_split pp_layout offload)");
    assert_int_equal(plan_parse(a2, 1, &f->base, &p, &dp, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "PLAN token 'tp=x': tp expects an integer in "
                               "1..1000000");
    assert_int_equal(plan_parse(a3, 1, &f->base, &p, &dp, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "PLAN token 'tp=2': tp given twice");
    assert_int_equal(plan_parse(a4, 1, &f->base, &p, &dp, &d), STATUS_USAGE);
    assert_string_equal(d.msg, "PLAN token 'schedule=gpipe': schedule expects "
                               "one of 1f1b|interleaved|zb|dualpipe");
    assert_int_equal(plan_parse(a5, 1, &f->base, &p, &dp, &d), STATUS_USAGE);
    assert_int_equal(plan_parse(a6, 1, &f->base, &p, &dp, &d), STATUS_USAGE);
}

/* DeepSeek's plan derives dp = 2048/16 = 128 and edp = 128/64 = 2
 * (shared/facts §2), 15360/128 = 120 micro-batches. */
static void test_plan_check_deepseek(void **state)
{
    struct fixture *f = *state;
    struct plan p;
    struct diag d;
    assert_int_equal(check_text(f,
                                "pp=16 ep=64 zero=1 schedule=dualpipe "
                                "precision=fp8",
                                &p, &d),
                     PLAN_OK);
    assert_int_equal(p.dp, 128);
    assert_int_equal(p.edp, 2);
    assert_int_equal(p.microbatches, 120);
}

/* Activation offloading: Megatron-Core's TransformerConfig refuses it
 * with pipeline parallelism, with recomputation and for every layer
 * ("CPU offloading can be done only for layers less than" num_layers);
 * roofplan also without the hardware's host link (the snapshot's H800
 * file gives none). DeepSeek-V3: 61 decoder layers. */
static void test_plan_check_offload(void **state)
{
    struct fixture *f = *state;
    struct hardware saved = f->hw;
    struct plan p;
    struct diag d;
    assert_int_equal(
        check_text(f, "gpus=16 pp=2 ep=8 gbs=16 offload=3", &p, &d),
        PLAN_BAD_OFFLOAD);
    assert_string_equal(d.msg, "offload=3 with pp=2: activation offloading "
                               "runs without pipeline parallelism "
                               "(Megatron-Core's rule)");
    assert_int_equal(
        check_text(f, "gpus=8 ep=8 gbs=8 recompute=full offload=3", &p, &d),
        PLAN_BAD_OFFLOAD);
    assert_string_equal(d.msg, "offload=3 with recompute=full: activation "
                               "offloading runs without recomputation "
                               "(Megatron-Core's rule)");
    assert_int_equal(check_text(f, "gpus=8 ep=8 gbs=8 offload=3", &p, &d),
                     PLAN_BAD_OFFLOAD);
    assert_string_equal(d.msg, "offload=3: the hardware file gives no "
                               "gpu.host_link_gbps (the GPU's link to host "
                               "memory)");
    f->hw.spec.host_link_gbps = 55;
    assert_int_equal(check_text(f, "gpus=8 ep=8 gbs=8 offload=61", &p, &d),
                     PLAN_BAD_OFFLOAD);
    assert_string_equal(d.msg, "offload=61 of 61 layers: at most 60 (the last "
                               "layer's activations stay on the GPU)");
    assert_int_equal(check_text(f, "gpus=8 ep=8 gbs=8 offload=60", &p, &d),
                     PLAN_OK);
    assert_int_equal(p.offload, 60);
    assert_int_equal(check_text(f, "gpus=8 ep=8 gbs=8", &p, &d), PLAN_OK);
    assert_int_equal(p.offload, 0);
    f->hw = saved;
}

static void test_plan_check_reasons(void **state)
{
    struct fixture *f = *state;
    struct plan p;
    struct diag d;
    assert_int_equal(check_text(f, "tp=3", &p, &d), PLAN_BAD_DIVIDE);
    assert_string_equal(d.msg, "tp*pp*cp=3 does not divide gpus=2048");
    assert_int_equal(check_text(f, "tp=16 gbs=1536", &p, &d), PLAN_BAD_TP_NODE);
    assert_int_equal(check_text(f, "ep=512 gbs=2048", &p, &d),
                     PLAN_BAD_EP_EXPERTS);
    assert_string_equal(d.msg, "ep=512 does not divide the 256 routed experts");
    assert_int_equal(check_text(f, "gpus=128 pp=64 ep=4 gbs=16", &p, &d),
                     PLAN_BAD_EP_GROUP);
    assert_int_equal(check_text(f, "pp=64 gbs=32", &p, &d), PLAN_BAD_PP_LAYERS);
    /* 61 layers and the MTP module, which always runs (issue 11) and may
     * fill a chunk alone; named apart, not as a 62nd layer (issue 34) */
    assert_string_equal(d.msg, "pp*vpp=64 pipeline chunks for 61 decoder "
                               "layers and 1 MTP module: at most 62 chunks, "
                               "each holding one or more");
    assert_int_equal(check_text(f, "gbs=1000", &p, &d), PLAN_BAD_BATCH);
    assert_string_equal(d.msg, "gbs=1000 is not a multiple of dp*mbs=2048");
    assert_int_equal(check_text(f, "pp=16 schedule=dualpipe gbs=1152", &p, &d),
                     PLAN_BAD_DUALPIPE);
    assert_string_equal(d.msg, "schedule=dualpipe needs an even pp and an "
                               "even number of micro-batches, got pp=16 and 9");
    assert_int_equal(check_text(f,
                                "pp=16 schedule=interleaved vpp=2 "
                                "gbs=1152",
                                &p, &d),
                     PLAN_BAD_INTERLEAVED);
    assert_int_equal(check_text(f, "pp=16 schedule=interleaved", &p, &d),
                     PLAN_BAD_INTERLEAVED);
    assert_int_equal(check_text(f, "vpp=2", &p, &d), PLAN_BAD_VPP);
    assert_int_equal(check_text(f, "gpus=2044 gbs=2044", &p, &d),
                     PLAN_BAD_GPUS);
    assert_int_equal(check_text(f, "cp=3 gpus=24 gbs=8", &p, &d),
                     PLAN_BAD_CP_SEQ);
}

static void test_plan_family_names(void **state)
{
    struct fixture *f = *state;
    struct plan p;
    struct diag d;
    char name[32];
    check_text(f, "zero=3 gbs=16384", &p, &d);
    plan_family(&p, name, sizeof name);
    assert_string_equal(name, "ZeRO-3");
    check_text(f, "zero=3 ep=64 gbs=16384", &p, &d);
    plan_family(&p, name, sizeof name);
    assert_string_equal(name, "ZeRO-3+EP");
    check_text(f, "pp=16 ep=64 zero=1 schedule=dualpipe", &p, &d);
    plan_family(&p, name, sizeof name);
    assert_string_equal(name, "ZeRO-1+PP+EP");
    check_text(f, "tp=8 pp=16 zero=0", &p, &d);
    plan_family(&p, name, sizeof name);
    assert_string_equal(name, "DP+TP+PP");
    check_text(f, "gpus=8 tp=8 gbs=8 zero=0", &p, &d);
    plan_family(&p, name, sizeof name);
    assert_string_equal(name, "TP");
    /* a report's baseline must be a name plan_family writes (issue 34:
     * report.baseline=nonexistent was taken): the data-parallel part (DP,
     * ZeRO-1..3, or none), then TP, CP, PP, EP in that order */
    assert_true(plan_family_known("ZeRO-3"));
    assert_true(plan_family_known("ZeRO-1+PP+EP"));
    assert_true(plan_family_known("DP+TP+CP+PP+EP"));
    assert_true(plan_family_known("TP"));
    assert_true(plan_family_known("single GPU"));
    assert_false(plan_family_known("nonexistent"));
    assert_false(plan_family_known("ZeRO-4"));
    assert_false(plan_family_known("ZeRO-0"));
    assert_false(plan_family_known("ZeRO-1+EP+PP"));
    assert_false(plan_family_known("ZeRO-3+"));
    assert_false(plan_family_known(""));
}

/* Rank order tp, cp, dp: a DP group of 128 at stride 1 fills 16 nodes of
 * 8; at stride 8 (tp=8) each member is on its own node. */
static void test_plan_span(void **state)
{
    struct plan_span s;
    (void)state;
    s = plan_span(128, 1, 8);
    assert_int_equal(s.per_node, 8);
    assert_int_equal(s.nodes, 16);
    s = plan_span(128, 8, 8);
    assert_int_equal(s.per_node, 1);
    assert_int_equal(s.nodes, 128);
    s = plan_span(16, 2, 8); /* 4 per node on 4 nodes */
    assert_int_equal(s.per_node, 4);
    assert_int_equal(s.nodes, 4);
    s = plan_span(4, 1, 8);
    assert_int_equal(s.per_node, 4);
    assert_int_equal(s.nodes, 1);
}

/*
 * sp=0|1 (issue 11 item 9): tensor parallel without sequence parallelism.
 * The default is 1, so DeepSeek's published text (no sp) parses as
 * before and prints without it; sp=0 round-trips through plan_format.
 * Megatron-LM needs SP for MoE with tp > 1 (core/transformer/moe README).
 */
static void test_plan_sp_key(void **state)
{
    struct fixture *f = *state;
    struct plan p, q;
    struct diag d;
    char text[256];
    char *args[1];
    long dp;
    assert_int_equal(check_text(f,
                                "pp=16 ep=64 zero=1 schedule=dualpipe "
                                "precision=fp8",
                                &p, &d),
                     PLAN_OK);
    assert_false(p.no_sp);
    plan_format(&p, text, sizeof text);
    assert_null(strstr(text, "sp="));
    assert_int_equal(check_text(f, "tp=8 sp=0 gbs=256", &p, &d),
                     PLAN_BAD_SP_MOE);
    assert_string_equal(d.msg,
                        "sp=0 with tp=8 on a MoE model: expert layers take "
                        "sequence-parallel tokens (Megatron-LM requires it)");
    assert_int_equal(check_text(f, "sp=0 gbs=2048", &p, &d),
                     PLAN_OK); /* tp=1 */
    assert_true(p.no_sp);
    plan_format(&p, text, sizeof text);
    assert_non_null(strstr(text, " sp=0"));
    args[0] = text;
    assert_int_equal(plan_parse(args, 1, &f->base, &q, &dp, &d), STATUS_OK);
    assert_true(q.no_sp);
    strcpy(text, "sp=2");
    assert_int_equal(plan_parse(args, 1, &f->base, &q, &dp, &d), STATUS_USAGE);
    assert_string_equal(d.msg,
                        "PLAN token 'sp=2': sp expects an integer in 0..1");
}

/*
 * Issue 17 item 2: pp_first / pp_last, Megatron-LM's
 * --decoder-first-pipeline-num-layers / --decoder-last-pipeline-num-layers.
 * DeepSeek-V3's 61 layers on pp=16 with 1 first and 4 last leave 56 for
 * the 14 middle stages: 4 each, accepted; 5 first and none last leave 56
 * for 15 stages, refused (Megatron: the left-over layers must divide
 * evenly over the left-over stages); so are a split with pp=1 or with
 * the interleaved schedule. The keys print only when set, and
 * round-trip.
 */
static void test_plan_pp_split_keys(void **state)
{
    struct fixture *f = *state;
    struct plan p, q;
    struct diag d;
    char text[256];
    char *args[1];
    long dp;
    assert_int_equal(check_text(f,
                                "pp=16 ep=64 zero=1 pp_first=1 pp_last=4 "
                                "gbs=15360",
                                &p, &d),
                     PLAN_OK);
    assert_int_equal(p.pp_first, 1);
    assert_int_equal(p.pp_last, 4);
    plan_format(&p, text, sizeof text);
    assert_non_null(strstr(text, " pp_first=1 pp_last=4"));
    args[0] = text;
    assert_int_equal(plan_parse(args, 1, &f->base, &q, &dp, &d), STATUS_OK);
    assert_int_equal(q.pp_first, 1);
    assert_int_equal(q.pp_last, 4);
    assert_int_equal(check_text(f, "pp=16 ep=64 pp_first=5 gbs=15360", &p, &d),
                     PLAN_BAD_PP_SPLIT);
    assert_string_equal(d.msg,
                        "pp_first=5 pp_last=0: with pp=16 and vpp=1 the other "
                        "56 layers must split equally over the other stages, "
                        "at least one each (Megatron-LM's rule for "
                        "--decoder-first/last-pipeline-num-layers; pp >= 2, "
                        "vpp = 1)");
    assert_int_equal(check_text(f, "ep=64 pp_first=1 gbs=15360", &p, &d),
                     PLAN_BAD_PP_SPLIT);
    assert_int_equal(check_text(f,
                                "pp=4 ep=64 schedule=interleaved vpp=2 "
                                "pp_first=1 pp_last=4 gbs=15360",
                                &p, &d),
                     PLAN_BAD_PP_SPLIT);
    /* unset: printed as before */
    assert_int_equal(check_text(f, "pp=16 ep=64 gbs=15360", &p, &d), PLAN_OK);
    plan_format(&p, text, sizeof text);
    assert_null(strstr(text, "pp_first"));
    assert_null(strstr(text, "pp_split"));
}

/*
 * Issue 34 item 2: an end left to the others' share must get at least one
 * layer. Megatron-LM's TransformerConfig (__post_init__, "Uneven PP")
 * takes the set ends' layers and stages away and refuses "Mismatch: 0
 * middle layers remaining but 1 middle PP stages available": pp=2 with
 * all 61 layers last (or first) is refused, where it gave the first
 * stage no layer. A layout that says so is Megatron's way to ask for it
 * (its pipeline_parallel_layout.md: "Empty stages are allowed"), and is
 * accepted.
 */
static void test_plan_pp_split_leaves_a_stage_empty(void **state)
{
    struct fixture *f = *state;
    struct plan p;
    struct diag d;
    long first, last;
    assert_int_equal(check_text(f, "pp=2 ep=64 pp_last=61 gbs=15360", &p, &d),
                     PLAN_BAD_PP_SPLIT);
    assert_string_equal(d.msg,
                        "pp_first=0 pp_last=61: with pp=2 and vpp=1 the other "
                        "0 layers must split equally over the other stages, "
                        "at least one each (Megatron-LM's rule for "
                        "--decoder-first/last-pipeline-num-layers; pp >= 2, "
                        "vpp = 1)");
    assert_int_equal(check_text(f, "pp=2 ep=64 pp_first=61 gbs=15360", &p, &d),
                     PLAN_BAD_PP_SPLIT);
    /* 60 + 1 on pp=2 is two set ends, each with a layer */
    assert_int_equal(
        check_text(f, "pp=2 ep=64 pp_first=60 pp_last=1 gbs=15360", &p, &d),
        PLAN_OK);
    assert_int_equal(
        check_text(f, "pp=2 ep=64 pp_layout=E|t*61mL gbs=15360", &p, &d),
        PLAN_OK);
    assert_true(plan_split_layers(&p, 61, &first, &last));
    assert_int_equal(first, 0);
    assert_int_equal(last, 61);
}

/*
 * pp_split: Megatron-LM's get_num_layers_to_build counts the embedding
 * and/or the loss as a layer, splits the counted layers equally over the
 * pp*vpp chunks and builds one decoder layer fewer at each counted end.
 * DeepSeek-V3's 61 layers (the fixture), by hand: with the loss, 62 =
 * 2 x 31: 31 first, 30 last; 62 = 31 x 2: 2 first, 1 last, 2 between.
 * With both, 63 = 21 x 3 (pp 7 x vpp 3): 2, 19 x 3, 2. Uniform: 61 is
 * prime, so no pp of 2 to 60 splits it; 63 over 16 chunks does not.
 */
static void test_plan_pp_split_rule(void **state)
{
    struct fixture *f = *state;
    struct plan p, q;
    struct diag d;
    char text[256];
    char *args[1];
    long dp, first, last;
    assert_int_equal(
        check_text(f, "pp=2 ep=64 pp_split=loss gbs=15360", &p, &d), PLAN_OK);
    assert_true(plan_split_layers(&p, 61, &first, &last));
    assert_int_equal(first, 31);
    assert_int_equal(last, 30);
    p.pp = 31;
    assert_true(plan_split_layers(&p, 61, &first, &last));
    assert_int_equal(first, 2);
    assert_int_equal(last, 1);
    assert_int_equal(check_text(f,
                                "gpus=1792 pp=7 ep=64 schedule=interleaved "
                                "vpp=3 pp_split=embedding_loss gbs=14336",
                                &p, &d),
                     PLAN_OK);
    assert_true(plan_split_layers(&p, 61, &first, &last));
    assert_int_equal(first, 2);
    assert_int_equal(last, 2);
    plan_format(&p, text, sizeof text);
    assert_non_null(strstr(text, " pp_split=embedding_loss"));
    args[0] = text;
    assert_int_equal(plan_parse(args, 1, &f->base, &q, &dp, &d), STATUS_OK);
    assert_int_equal(q.pp_split, PLAN_SPLIT_EMBEDDING_LOSS);
    assert_int_equal(check_text(f,
                                "pp=16 ep=64 pp_split=embedding_loss "
                                "gbs=15360",
                                &p, &d),
                     PLAN_BAD_PP_SPLIT);
    assert_string_equal(d.msg,
                        "pp_split=embedding_loss: 61 layers, with the "
                        "embedding and the loss counted as the split counts "
                        "them, do not split equally over pp*vpp=16 chunks, "
                        "at least one decoder layer each in the middle "
                        "(Megatron-LM's rule)");
    assert_int_equal(
        check_text(f, "pp=2 ep=64 pp_split=uniform gbs=15360", &p, &d),
        PLAN_BAD_PP_SPLIT);
    /* with pp = 1, or with pp_first: refused */
    assert_int_equal(check_text(f, "ep=64 pp_split=loss gbs=15360", &p, &d),
                     PLAN_BAD_PP_SPLIT);
    assert_int_equal(check_text(f,
                                "pp=2 ep=64 pp_first=31 pp_split=loss "
                                "gbs=15360",
                                &p, &d),
                     PLAN_BAD_PP_SPLIT);
    /* balanced: no split */
    assert_int_equal(check_text(f, "pp=16 ep=64 gbs=15360", &p, &d), PLAN_OK);
    assert_false(plan_split_layers(&p, 61, &first, &last));
    /* pp_first alone: the last holds the others' share, (61 - 1) / 15 */
    assert_int_equal(check_text(f, "pp=16 ep=64 pp_first=1 gbs=15360", &p, &d),
                     PLAN_OK);
    assert_true(plan_split_layers(&p, 61, &first, &last));
    assert_int_equal(first, 1);
    assert_int_equal(last, 4);
}

/*
 * pp_layout: Megatron-LM's --pipeline-model-parallel-layout. Megatron-
 * Bridge's DeepSeek-V3 H100 recipe (scripts/performance/configs/deepseek/
 * deepseek_workload_base_configs.py, DEEPSEEK_V3_PRETRAIN_CONFIG_H100_V1:
 * pp 8, vpp 4, "Et|(tt|)*30mL") puts, by hand: the embedding and 1
 * decoder layer on the first of 32 chunks, 2 on each of the 30 between,
 * the MTP module and the loss alone on the last: 1 + 60 + 0 = 61. Its
 * GB300 recipe "Et*4|(t*4|)*14tmL" on pp 2 x vpp 8: 4, 14 x 4, 1 + MTP =
 * 61. Printed in the canonical form, which round-trips; refused: a
 * layout of other chunk counts or layer counts than the plan and model,
 * or of shapes the partition cannot place.
 */
static void test_plan_pp_layout(void **state)
{
    struct fixture *f = *state;
    struct plan p, q;
    struct diag d;
    char text[256];
    char *args[1];
    long dp, first, last;
    assert_int_equal(check_text(f,
                                "gpus=1024 pp=8 ep=64 schedule=interleaved "
                                "vpp=4 pp_layout=Et|(tt|)*30mL gbs=8192",
                                &p, &d),
                     PLAN_OK);
    assert_int_equal(p.layout_chunks, 32);
    assert_int_equal(p.layout_first, 1);
    assert_int_equal(p.layout_middle, 2);
    assert_int_equal(p.layout_last, 0);
    assert_int_equal(p.layout_mtp, 1);
    assert_true(plan_split_layers(&p, 61, &first, &last));
    assert_int_equal(first, 1);
    assert_int_equal(last, 0);
    plan_format(&p, text, sizeof text);
    assert_non_null(strstr(text, " pp_layout=Et|(t*2|)*30mL"));
    args[0] = text;
    assert_int_equal(plan_parse(args, 1, &f->base, &q, &dp, &d), STATUS_OK);
    assert_int_equal(q.layout_chunks, 32);
    assert_int_equal(q.layout_first, 1);
    assert_int_equal(q.layout_middle, 2);
    assert_int_equal(q.layout_last, 0);
    assert_int_equal(check_text(f,
                                "gpus=256 pp=2 ep=64 schedule=interleaved "
                                "vpp=8 pp_layout=Et*4|(t*4|)*14tmL gbs=2048",
                                &p, &d),
                     PLAN_OK);
    assert_true(plan_split_layers(&p, 61, &first, &last));
    assert_int_equal(first, 4);
    assert_int_equal(last, 1);
    assert_int_equal(p.layout_middle, 4);
    /* 32 chunks on pp 16 x vpp 1; 62 decoder layers; no MTP module */
    assert_int_equal(check_text(f,
                                "gpus=1024 pp=16 ep=64 pp_layout=Et|(tt|)*30mL "
                                "gbs=8192",
                                &p, &d),
                     PLAN_BAD_PP_SPLIT);
    assert_int_equal(check_text(f,
                                "gpus=1024 pp=8 ep=64 schedule=interleaved "
                                "vpp=4 pp_layout=Et|(tt|)*30tmL gbs=8192",
                                &p, &d),
                     PLAN_BAD_PP_SPLIT);
    assert_string_equal(d.msg, "pp_layout=Et|(t*2|)*30tmL places 62 decoder "
                               "layers; the model has 61");
    assert_int_equal(check_text(f,
                                "gpus=1024 pp=8 ep=64 schedule=interleaved "
                                "vpp=4 pp_layout=Et|(tt|)*30L gbs=8192",
                                &p, &d),
                     PLAN_BAD_PP_SPLIT);
    assert_string_equal(d.msg, "pp_layout=Et|(t*2|)*30L places 0 MTP "
                               "modules ('m'); the model has 1 (Megatron-LM's "
                               "rule)");
    /* shapes the partition cannot place */
    {
        static const char *const bad[][2] = {
            {"tE|(tt|)*30tmL", "'E' must open the first chunk"},
            {"Et|tt|t|(tt|)*28ttmL",
             "must hold equal decoder layers (2 and 1)"},
            {"Etm|(tt|)*30L", "MTP modules ('m') only in the last chunk"},
            {"Et|(tt|)*30mLt", "'L' must end the last chunk"},
            {"EtL|(tt|)*30m", "'L' must end the last chunk"},
            {"Et*61L|", "'L' must end the last chunk"},
            {"Et|(tx|)*30mL", "'x' is not one of"},
            {"Et|(t\333|)*30mL", "'\\xDB' is not one of"},
            {"Et|(tt|*30mL", "'(' without ')'"},
            {"Et|tt)*30mL", "')' without '('"},
            {"Et|(tt|)*0mL", "'*' wants a count"},
            {"EttmL", "at least two chunks"},
            {"Et||ttmL", "a middle chunk without a decoder layer"},
            {"(((((((((t)))))))))", "nests '(' too deep"},
            {"E(t*4096)", "expands past 4096"},
        };
        size_t i;
        for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
            char tok[128];
            char *a[1];
            snprintf(tok, sizeof tok, "pp_layout=%s", bad[i][0]);
            a[0] = tok;
            diag_init(&d);
            assert_int_equal(plan_parse(a, 1, &f->base, &q, &dp, &d),
                             STATUS_USAGE);
            if (!strstr(d.msg, bad[i][1]))
                fail_msg("%s: %s", bad[i][0], d.msg);
        }
    }
}

/*
 * NVLink domains larger than a host (issue 11 item 9): GB200 NVL72 has 72
 * GPUs on one NVLink fabric, 4 per host. gpus need whole hosts, not whole
 * domains (128 = a domain of 72 and a partial one of 56); tp may not
 * exceed a domain, and must divide it so no TP group straddles two (tp=16
 * in 72 would: ranks 64..79).
 */
static void test_plan_nvlink_domain(void **state)
{
    struct fixture *f = *state;
    struct hardware nvl = f->hw;
    struct plan p;
    struct diag d;
    struct plan_span s;
    nvl.spec.gpus = 512;
    nvl.spec.gpus_per_node = 4;
    nvl.spec.nvlink_domain = 72;
    hardware_derive(&nvl);
    memset(&p, 0, sizeof p);
    p.gpus = 128;
    p.tp = p.pp = p.ep = p.cp = p.vpp = p.mbs = 1;
    p.gbs = 128;
    diag_init(&d);
    assert_int_equal(plan_check(&p, &f->m, &nvl, false, &d), PLAN_OK);
    p.gpus = 126; /* not whole hosts of 4 */
    p.gbs = 126;
    assert_int_equal(plan_check(&p, &f->m, &nvl, false, &d), PLAN_BAD_GPUS);
    assert_string_equal(d.msg, "gpus=126 does not fill whole nodes of 4 GPUs");
    p.gpus = 128;
    p.gbs = 128;
    p.tp = 8;
    assert_int_equal(plan_check(&p, &f->m, &nvl, false, &d), PLAN_OK);
    p.tp = 16;
    p.gbs = 8;
    assert_int_equal(plan_check(&p, &f->m, &nvl, false, &d), PLAN_BAD_TP_NODE);
    assert_string_equal(d.msg,
                        "tp=16 does not divide the NVLink domain (72 GPUs): "
                        "some tensor-parallel groups would straddle two");
    /* a DP group of 128 from rank 0: 72 + 56, at most 64 per domain */
    s = plan_span(128, 1, 72);
    assert_int_equal(s.nodes, 2);
    assert_int_equal(s.per_node, 64);
}

/*
 * DualPipe (issue 11 item 1): each direction is a 1F1B pipeline of half
 * the micro-batches, so rank r keeps pp - r micro-batches of its chunk r
 * in flight and r + 1 of chunk pp-1-r: pp + 1 together on every rank, as
 * DualPipe's README counts. pp=16, 120 micro-batches: rank 3 keeps 13
 * and 4.
 */
static void test_plan_dualpipe_inflight_per_chunk(void **state)
{
    struct fixture *f = *state;
    struct plan p;
    struct diag d;
    check_text(f, "pp=16 ep=64 zero=1 schedule=dualpipe precision=fp8", &p, &d);
    assert_near(plan_inflight_chunk(&p, 3, 0), 13, 0);
    assert_near(plan_inflight_chunk(&p, 3, 1), 4, 0);
    assert_near(plan_inflight(&p, 3), 17, 0);
}

/* The schedule rows against the published bubbles, for pp = 16, vpp = 2
 * and a micro-batch split f = 1/3, w = 1/3, b = 2/3 of F+B (F = W = B/2):
 * 1F1B (p-1) = 15 (Narayanan et al. 2021); interleaved (p-1)/v = 7.5
 * (ibid. §2.2); ZB1P (p-1)(1-2w) = 15/3 = 5 (Qi et al. 2024, ZB-H1);
 * DualPipe (p/2-1)(1+b-3w) = 7 (1 + 2/3 - 1) = 14/3 (DualPipe README,
 * (PP/2-1)(F&B+B-3W)). The shape rules: DualPipe needs an even pp and
 * micro-batches a multiple of 2, interleaved a multiple of pp; DualPipe
 * keeps two copies of the weights; only interleaved takes vpp. */
static void test_plan_schedule_rows(void **state)
{
    struct plan p;
    double f = 1.0 / 3, w = 1.0 / 3, b = 2.0 / 3;
    char names[64];
    int i, vpp = 0;
    (void)state;
    memset(&p, 0, sizeof p);
    p.pp = 16;
    p.vpp = 2;
    p.microbatches = 120;
    assert_float_equal(plan_schedule_of(PLAN_1F1B)->bubble(&p, f, w, b), 15,
                       1e-12);
    assert_float_equal(plan_schedule_of(PLAN_INTERLEAVED)->bubble(&p, f, w, b),
                       7.5, 1e-12);
    assert_float_equal(plan_schedule_of(PLAN_ZB)->bubble(&p, f, w, b), 5,
                       1e-12);
    assert_float_equal(plan_schedule_of(PLAN_DUALPIPE)->bubble(&p, f, w, b),
                       14.0 / 3, 1e-12);
    assert_int_equal(plan_schedule_mb_unit(PLAN_1F1B, 16), 1);
    assert_int_equal(plan_schedule_mb_unit(PLAN_ZB, 16), 1);
    assert_int_equal(plan_schedule_mb_unit(PLAN_DUALPIPE, 16), 2);
    assert_int_equal(plan_schedule_mb_unit(PLAN_INTERLEAVED, 16), 16);
    assert_int_equal(plan_schedule_of(PLAN_DUALPIPE)->copies, 2);
    assert_int_equal(plan_schedule_of(PLAN_ZB)->copies, 1);
    assert_true(plan_schedule_of(PLAN_DUALPIPE)->pp_even);
    for (i = 0; i < PLAN_SCHEDULES; i++) {
        vpp += plan_schedule_of(i)->vpp;
        assert_string_equal(plan_schedule_str(i), plan_schedule_of(i)->name);
    }
    assert_int_equal(vpp, 1);
    plan_vpp_schedules(names, sizeof names);
    assert_string_equal(names, "interleaved");
    /* warm-up of rank 0, pp 16: 1F1B pp-1 = 15; Megatron-LM interleaved
     * ((pp-1) 2 + (v-1) pp) / v = (30 + 16) / 2 = 23; DualPipe pp = 16 */
    assert_float_equal(plan_schedule_of(PLAN_1F1B)->warmup(&p, 0), 15, 0);
    assert_float_equal(plan_schedule_of(PLAN_INTERLEAVED)->warmup(&p, 0), 23,
                       0);
    assert_float_equal(plan_schedule_of(PLAN_DUALPIPE)->warmup(&p, 0), 16, 0);
    /* what a stack's overlap switches ask of a schedule: DualPipe alone
     * pairs forward and backward chunks (ep_a2a_overlap = dualpipe); the
     * interleaved schedule alone runs virtual stages (pp_p2p_overlap =
     * interleaved) */
    for (i = 0; i < PLAN_SCHEDULES; i++)
        assert_int_equal(plan_schedule_of(i)->paired_fb, i == PLAN_DUALPIPE);
    assert_true(plan_schedule_of(PLAN_INTERLEAVED)->vpp);
}

/* The schedule-and-vpp rules alone, as a sweep's [defaults] checks them
 * without a model: the same reasons and sentences as plan_check (the
 * README's PLAN keys: vpp only with the interleaved schedule, >= 2). */
static void test_plan_check_vpp_alone(void **state)
{
    struct plan p;
    struct diag d;
    (void)state;
    memset(&p, 0, sizeof p);
    p.schedule = PLAN_ZB;
    p.vpp = 2;
    assert_int_equal(plan_check_vpp(&p, &d), PLAN_BAD_VPP);
    assert_string_equal(
        d.msg, "vpp=2 needs schedule=interleaved (other schedules take vpp=1)");
    p.schedule = PLAN_INTERLEAVED;
    p.vpp = 1;
    assert_int_equal(plan_check_vpp(&p, &d), PLAN_BAD_INTERLEAVED);
    assert_string_equal(d.msg,
                        "schedule=interleaved needs vpp >= 2, got vpp=1");
    p.vpp = 4;
    assert_int_equal(plan_check_vpp(&p, NULL), PLAN_OK);
    p.schedule = PLAN_DUALPIPE;
    p.vpp = 1;
    assert_int_equal(plan_check_vpp(&p, NULL), PLAN_OK);
}

/* ---- plan_reason_fields ---- */

/* A field of struct plan and values for it, some passing and some
 * failing each rule of plan_check. */
struct field_values {
    unsigned field; /* enum plan_field */
    size_t offset;
    char kind; /* 'l' long, 'i' int, 'b' bool */
    long v[8];
    size_t n;
};

#define FV(field, member, kind, ...)                               \
    {                                                              \
        field, offsetof(struct plan, member), kind, {__VA_ARGS__}, \
            sizeof((long[]){__VA_ARGS__}) / sizeof(long)           \
    }

static const struct field_values field_values[] = {
    FV(PLAN_FIELD_GPUS, gpus, 'l', 4, 12, 24, 256, 2048, 2056, 16384),
    FV(PLAN_FIELD_TP, tp, 'l', 1, 2, 3, 8, 16),
    FV(PLAN_FIELD_PP, pp, 'l', 1, 2, 3, 8, 16, 64),
    FV(PLAN_FIELD_EP, ep, 'l', 1, 2, 3, 8, 64, 256, 512),
    FV(PLAN_FIELD_CP, cp, 'l', 1, 2, 3, 4),
    FV(PLAN_FIELD_ZERO, zero, 'l', 0, 1, 2, 3),
    FV(PLAN_FIELD_SCHEDULE,
       schedule,
       'i',
       PLAN_1F1B,
       PLAN_INTERLEAVED,
       PLAN_ZB,
       PLAN_DUALPIPE),
    FV(PLAN_FIELD_VPP, vpp, 'l', 1, 2, 3, 4),
    FV(PLAN_FIELD_PRECISION, precision, 'i', MODEL_BF16, MODEL_FP8),
    FV(PLAN_FIELD_RECOMPUTE, recompute, 'i', 0, 1, 2),
    FV(PLAN_FIELD_SP, no_sp, 'b', 0, 1),
    FV(PLAN_FIELD_PP_FIRST, pp_first, 'l', 0, 1, 3, 4),
    FV(PLAN_FIELD_PP_LAST, pp_last, 'l', 0, 1, 4),
    FV(PLAN_FIELD_PP_SPLIT,
       pp_split,
       'i',
       PLAN_SPLIT_BALANCED,
       PLAN_SPLIT_UNIFORM,
       PLAN_SPLIT_EMBEDDING,
       PLAN_SPLIT_LOSS,
       PLAN_SPLIT_EMBEDDING_LOSS),
    FV(PLAN_FIELD_MBS, mbs, 'l', 1, 2, 3, 8),
    FV(PLAN_FIELD_GBS, gbs, 'l', 15360, 16384, 4096, 3000, 61440, 8),
    FV(PLAN_FIELD_OFFLOAD, offload, 'l', 0, 2, 60, 61, 200),
};

#define NFIELDS (sizeof field_values / sizeof field_values[0])

/* A small linear congruential generator: the same draws on every run. */
static size_t draw(uint64_t *seed, size_t n)
{
    *seed = *seed * 6364136223846793005ULL + 1442695040888963407ULL;
    return (size_t)((*seed >> 33) % n);
}

/* Sets field f of p to a random one of its values, the first (one a
 * valid plan may have) half the time: rejections late in plan_check's
 * order come up too. */
static void
set_random(struct plan *p, const struct field_values *f, uint64_t *seed)
{
    long v = f->v[draw(seed, 2) ? 0 : draw(seed, f->n)];
    char *at = (char *)p + f->offset;
    if (f->kind == 'l')
        memcpy(at, &v, sizeof v);
    else if (f->kind == 'i') {
        int i = (int)v;
        memcpy(at, &i, sizeof i);
    } else {
        bool b = v != 0;
        memcpy(at, &b, sizeof b);
    }
}

/* Plans that differ from p, rejected for r, only outside
 * plan_reason_fields(r) (each such field drawn anew) get the same reason.
 * Counts r in seen. */
static void reason_fields_hold_for(const struct model *m,
                                   const struct hardware *hw,
                                   const struct plan *p,
                                   enum plan_reason r,
                                   bool redundant,
                                   uint64_t *seed,
                                   uint64_t seen[PLAN_REASONS])
{
    unsigned fields = plan_reason_fields(r);
    size_t k, t;
    seen[r]++;
    for (t = 0; t < 8; t++) {
        struct plan q = *p;
        enum plan_reason again;
        for (k = 0; k < NFIELDS; k++)
            if (!(fields & field_values[k].field))
                set_random(&q, &field_values[k], seed);
        again = plan_check(&q, m, hw, redundant, NULL);
        if (again != r) {
            char a[200], b[200];
            plan_format(p, a, sizeof a);
            plan_format(&q, b, sizeof b);
            fail_msg("%s: %s, but %s: %s", a, plan_reason_str(r), b,
                     plan_reason_str(again));
        }
    }
}

/* Random plans on model m and cluster hw: for each rejected one,
 * reason_fields_hold_for. Counts reasons in seen. */
static void reason_fields_hold(const struct model *m,
                               const struct hardware *hw,
                               uint64_t seed,
                               uint64_t seen[PLAN_REASONS])
{
    size_t i, k;
    for (i = 0; i < 40000; i++) {
        struct plan p;
        enum plan_reason r;
        bool redundant = i % 2 == 0;
        memset(&p, 0, sizeof p);
        for (k = 0; k < NFIELDS; k++)
            set_random(&p, &field_values[k], &seed);
        r = plan_check(&p, m, hw, redundant, NULL);
        if (r != PLAN_OK)
            reason_fields_hold_for(m, hw, &p, r, redundant, &seed, seen);
    }
}

/* plan_reason_fields is what a sweep counts blocks of rejected
 * combinations by (sweep_run): a plan differing from a rejected one only
 * in other fields is rejected for the same reason. Drawn over a MoE and a
 * dense model (of 12 heads), a cluster with FP8 and one without; every
 * reason plan_check gives comes up. */
static void test_plan_reason_fields_decide(void **state)
{
    struct fixture *f = *state;
    struct model dense;
    struct hardware a100;
    struct diag d;
    uint64_t seen[PLAN_REASONS] = {0};
    int r;
    diag_init(&d);
    if (model_load("tests/data/snap/models/llama-3-405b.ini", &dense, NULL, 0,
                   &d) ||
        hardware_load("tests/data/snap/hardware/a100.ini", &a100, NULL, 0, &d))
        fail_msg("%s", d.msg);
    assert_true(a100.spec.fp8_peak_tflops <= 0);
    /* heads that tp = 8 does not divide (the shipped models' all do) */
    dense.spec.heads = dense.spec.kv_heads = 12;
    reason_fields_hold(&f->m, &f->hw, 1, seen);
    reason_fields_hold(&f->m, &a100, 2, seen);
    reason_fields_hold(&dense, &f->hw, 3, seen);
    /* a ZeRO stage without data parallelism is rare among random plans
     * (dp = 1 and expert dp = 1: gpus = tp pp, ep = tp), so one is set */
    {
        struct plan p;
        uint64_t seed = 4;
        memset(&p, 0, sizeof p);
        p.gpus = 4;
        p.tp = p.pp = p.ep = 2;
        p.cp = p.vpp = p.mbs = p.zero = 1;
        p.gbs = 8;
        assert_int_equal(plan_check(&p, &f->m, &f->hw, true, NULL),
                         PLAN_SAME_ZERO);
        reason_fields_hold_for(&f->m, &f->hw, &p, PLAN_SAME_ZERO, true, &seed,
                               seen);
    }
    for (r = 1; r < PLAN_REASONS; r++)
        if (r != PLAN_SAME_PLAN && seen[r] == 0)
            fail_msg("no plan drawn was rejected for %s",
                     plan_reason_str((enum plan_reason)r));
    /* the fields of a valid plan, and of one a sweep finds repeated: all */
    assert_int_equal(plan_reason_fields(PLAN_OK), PLAN_FIELDS);
    assert_int_equal(plan_reason_fields(PLAN_SAME_PLAN), PLAN_FIELDS);
    model_release(&dense);
    hardware_release(&a100);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_plan_parse_forms),
        cmocka_unit_test(test_plan_parse_rejects_bad_tokens),
        cmocka_unit_test(test_plan_check_deepseek),
        cmocka_unit_test(test_plan_check_reasons),
        cmocka_unit_test(test_plan_check_offload),
        cmocka_unit_test(test_plan_family_names),
        cmocka_unit_test(test_plan_span),
        cmocka_unit_test(test_plan_sp_key),
        cmocka_unit_test(test_plan_pp_split_keys),
        cmocka_unit_test(test_plan_pp_split_leaves_a_stage_empty),
        cmocka_unit_test(test_plan_pp_split_rule),
        cmocka_unit_test(test_plan_pp_layout),
        cmocka_unit_test(test_plan_nvlink_domain),
        cmocka_unit_test(test_plan_dualpipe_inflight_per_chunk),
        cmocka_unit_test(test_plan_schedule_rows),
        cmocka_unit_test(test_plan_check_vpp_alone),
        cmocka_unit_test(test_plan_reason_fields_decide),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
