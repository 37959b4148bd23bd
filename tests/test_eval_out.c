/*
 * test_eval_out: `roofplan eval`'s text and JSON for one plan, checked
 * against fragments worked out by hand, and the verdict sentence and the
 * JSON string escaping on values set by hand. The plan: tests/data/
 * tiny-moe.ini (4 MoE layers of 16 experts, hand-counted in
 * test_model_derive.c: 119,563,264 parameters, 31,482,880 active,
 * 207,863,808 FLOP/token) on 16 GPUs of the H800 snapshot, tp 1, pp 2,
 * ep 4, 64 sequences of 1: dp = 16 / (1 x 2) = 8, expert dp = 8 / 4 = 2,
 * 64 / 8 = 8 micro-batches.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "eval_out.h"
#include "replay.h"
#include "stack.h"
#include "test_util.h"

#define PLAN "gpus=16 tp=1 pp=2 ep=4 zero=1 precision=bf16 mbs=1 gbs=64"

struct fixture {
    struct model m;
    struct hardware hw;
    struct cost_ctx ctx;
    struct cost_result r;
    struct comm_collective coll[COMM_LIST_MAX];
    size_t ncoll;
    struct memory rank_mem[2]; /* pp 2 */
    struct replay replay;
};

/* The view eval lays out, evaluated as cli_cmd_eval does. */
static struct eval_view view_of(const struct fixture *f)
{
    struct eval_view v;
    memset(&v, 0, sizeof v);
    v.m = f->ctx.m;
    v.hw = f->ctx.hw;
    v.comm = f->ctx.comm;
    v.r = &f->r;
    v.coll = f->coll;
    v.ncoll = f->ncoll;
    v.rank_mem = f->rank_mem;
    v.nrank_mem = 2;
    v.part = cost_result_partition(&f->ctx, &f->r);
    v.replay = &f->replay;
    return v;
}

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct plan p;
    struct diag d;
    diag_init(&d);
    if (!f || model_load("tests/data/tiny-moe.ini", &f->m, NULL, 0, &d) ||
        hardware_load("tests/data/snap/hardware/h800.ini", &f->hw, NULL, 0, &d))
        return -1;
    util_plan(&f->m, &f->hw, PLAN, &p);
    util_ctx(&f->ctx, &f->m, &f->hw, COMM_TOPO, &p);
    cost_evaluate(&f->ctx, &p, COST_FLOOR | COST_EXPECTED, NULL, &f->r);
    f->ncoll = cost_collectives(&f->ctx, &f->r, f->coll, COMM_LIST_MAX);
    plan_family(&p, f->r.family, sizeof f->r.family);
    comm_collective_times(f->coll, f->ncoll, &f->hw);
    cost_rank_memory(&f->ctx, &f->r, 0, &f->rank_mem[0]);
    cost_rank_memory(&f->ctx, &f->r, 1, &f->rank_mem[1]);
    replay_fill(&f->r, &f->m, &f->hw, &f->replay);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    cost_ctx_release(&f->ctx);
    model_release(&f->m);
    hardware_release(&f->hw);
    free(f);
    return 0;
}

static void assert_has(const char *text, const char *part)
{
    if (!strstr(text, part))
        fail_msg("output lacks \"%s\"; it was:\n%s", part, text);
}

/* The text's head: who runs what, the derived plan, the chunks (4 equal
 * layers and the head, 2 x 1024 x 1000 FLOPs: 2 + 2 and the head beats
 * 3 + 1), the model in billions. */
static void test_eval_out_text(void **state)
{
    struct fixture *f = *state;
    struct eval_view v = view_of(f);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    eval_out_text(out, &v);
    assert_int_equal(fclose(out), 0);
    assert_has(text, "tiny MoE on 16 x NVIDIA H800 SXM5 80GB (DeepSeek-V3 "
                     "training cluster), comm model topo\n");
    assert_has(text, "plan    gpus=16 tp=1 pp=2 ep=4 cp=1 zero=1 "
                     "schedule=1f1b vpp=1 precision=bf16 recompute=none "
                     "mbs=1 gbs=64\n");
    assert_has(text, "        family ZeRO-1+PP+EP; dp=8, expert dp=2, 8 "
                     "micro-batches per step\n");
    assert_has(text, "        layers per pipeline chunk: E+2 2+H (E "
                     "embedding, H output head)\n");
    assert_has(text, "model   0.12 B parameters, 0.03 B active per token; "
                     "0.2 GFLOP/token (fwd+bwd, causal)\n");
    assert_has(text, "memory by pipeline rank (GiB)\n");
    /* both ranks' rows, laid out from the view */
    assert_has(text, "\n     0 ");
    assert_has(text, "\n     1 ");
    free(text);
}

/* The JSON: the same plan and model, numbers exact (integers print as
 * integers), no MTP. */
static void test_eval_out_json(void **state)
{
    struct fixture *f = *state;
    struct eval_view v = view_of(f);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    eval_out_json(out, &v);
    assert_int_equal(fclose(out), 0);
    assert_has(text, "{\"plan\":{\"gpus\":16,\"dp\":8,\"tp\":1,\"pp\":2,"
                     "\"ep\":4,\"cp\":1,\"edp\":2,\"zero\":1,\"schedule\":"
                     "\"1f1b\",\"vpp\":1,\"precision\":\"bf16\","
                     "\"recompute\":\"none\",\"sp\":1,\"pp_first\":0,"
                     "\"pp_last\":0,\"pp_split\":\"balanced\",\"pp_layout\":"
                     "null,\"mbs\":1,\"gbs\":64,\"offload\":0,"
                     "\"microbatches\":8},\"family\":\"ZeRO-1+PP+EP\","
                     "\"model\":\"tiny MoE\",\"cluster\":\"DeepSeek-V3 "
                     "training cluster\",\"comm_model\":\"topo\",");
    assert_has(text, "\"params\":{\"total\":119563264,\"active\":31482880,"
                     "\"mtp\":0},\"flops_per_token\":207863808,"
                     "\"flops_per_token_run\":207863808,");
    assert_int_equal(text[len - 1], '\n');
    assert_int_equal(text[len - 2], '}');
    free(text);
}

/* A patterned model's chunks in the JSON (issue 39): tests/data/
 * hybrid-seven.ini's `SE M. .D CD NE LE` split 2 + 4 by the plan's counts
 * gives chunk 0 the first two layers and chunk 1 the other four, as the
 * pattern reads; a model of blocks (the fixture's tiny MoE) has no
 * "chunk_patterns". */
static void test_eval_out_json_chunk_patterns(void **state)
{
    struct fixture *f = *state, g;
    struct eval_view v = view_of(f);
    struct plan p;
    struct diag d;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    eval_out_json(out, &v);
    assert_int_equal(fclose(out), 0);
    assert_null(strstr(text, "chunk_patterns"));
    free(text);

    memset(&g, 0, sizeof g);
    diag_init(&d);
    assert_int_equal(
        model_load("tests/data/hybrid-seven.ini", &g.m, NULL, 0, &d),
        STATUS_OK);
    util_plan(&g.m, &f->hw,
              "gpus=8 tp=1 pp=2 pp_first=2 pp_last=4 mbs=1 gbs=8 "
              "precision=bf16",
              &p);
    util_ctx(&g.ctx, &g.m, &f->hw, COMM_TOPO, &p);
    cost_evaluate(&g.ctx, &p, COST_FLOOR, NULL, &g.r);
    replay_fill(&g.r, &g.m, &f->hw, &g.replay);
    memset(&v, 0, sizeof v);
    v.m = &g.m;
    v.hw = &f->hw;
    v.r = &g.r;
    v.part = cost_result_partition(&g.ctx, &g.r);
    v.replay = &g.replay;
    text = NULL;
    out = open_memstream(&text, &len);
    assert_non_null(out);
    eval_out_json(out, &v);
    assert_int_equal(fclose(out), 0);
    assert_has(text, "\"chunk_patterns\":[{\"chunk\":0,\"layers\":2,"
                     "\"mtp_modules\":0,\"pattern\":\"SE M.\"},"
                     "{\"chunk\":1,\"layers\":4,\"mtp_modules\":0,"
                     "\"pattern\":\".D CD NE LE\"}],");
    free(text);
    cost_ctx_release(&g.ctx);
    model_release(&g.m);
}

/* Issue 38 item 6: the JSON names the stack and the release of its
 * framework the expected step reflects (the snapshot's DeepSeek stack
 * file's framework_release), null without a stack. */
static void test_eval_out_json_names_release(void **state)
{
    struct fixture *f = *state;
    struct eval_view v = view_of(f);
    struct stack st;
    struct diag d;
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    eval_out_json(out, &v);
    assert_int_equal(fclose(out), 0);
    assert_has(text, "\"stack\":null,\"framework_release\":null}");
    free(text);
    diag_init(&d);
    if (stack_load("tests/data/snap/stacks/deepseek-hai.ini", &st, NULL, 0, &d))
        fail_msg("%s", d.msg);
    v.stack = &st;
    out = open_memstream(&text, &len);
    assert_non_null(out);
    eval_out_json(out, &v);
    assert_int_equal(fclose(out), 0);
    assert_has(text, "\"stack\":\"DeepSeek HAI-LLM (DeepSeek-V3 "
                     "pre-training)\",\"framework_release\":\"HAI-LLM as "
                     "it trained DeepSeek-V3 (2024; not released)\"}");
    free(text);
    stack_release(&st);
}

/* JSON strings (RFC 8259 §7): quote and backslash escaped, control
 * characters as \n or \u00XX, UTF-8 as it is. */
static void test_eval_out_json_string(void **state)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    (void)state;
    assert_non_null(out);
    eval_out_json_string(out, "a\"b\\c\n\x01\xc3\xa9");
    assert_int_equal(fclose(out), 0);
    assert_string_equal(text, "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\"");
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_out_text),
        cmocka_unit_test(test_eval_out_json),
        cmocka_unit_test(test_eval_out_json_names_release),
        cmocka_unit_test(test_eval_out_json_chunk_patterns),
        cmocka_unit_test(test_eval_out_json_string),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
