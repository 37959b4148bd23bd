/*
 * test_stack: the shipped stack files load with what their sources say
 * (DeepSeek-V3 report §3.2, DualPipe README, Megatron-LM arguments.py),
 * every switch has a source, and the frameworks' cross-switch rules hold.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "model_partition.h"
#include "plan.h"
#include "stack.h"
#include "test_util.h"

static void assert_has_line(const char *msg, const char *line)
{
    if (!strstr(msg, line))
        fail_msg("message lacks \"%s\"; it was:\n%s", line, msg);
}

static void load(struct stack *s, const char *path)
{
    struct diag d;
    diag_init(&d);
    if (stack_load(path, s, NULL, 0, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

static void assert_every_value_cited(const struct stack *s)
{
    size_t i;
    for (i = 0; i < stack_schema()->n; i++) {
        /* every switch is required; the free factors are not */
        assert_true(s->meta.given[i] || !stack_schema()->fields[i].required);
        if (!*datafile_meta_source(&s->meta, i))
            fail_msg("%s: stack.%s has no source", s->meta.path,
                     stack_schema()->fields[i].key);
    }
}

/* DeepSeek: DualPipe pairs chunks (§3.2.1), no TP, DeepEP-style kernels
 * (§3.2.2), W chunks (DualPipe README), unpaired ramp chunks exposed. */
static void test_stack_load_deepseek(void **state)
{
    struct stack s;
    (void)state;
    load(&s, "tests/data/snap/stacks/deepseek-hai.ini");
    assert_int_equal(s.spec.ep_a2a_overlap, STACK_EP_DUALPIPE);
    assert_int_equal(s.spec.ep_dispatcher, STACK_DISPATCH_DEEPEP);
    assert_int_equal(s.spec.pp_p2p_overlap, STACK_P2P_ALWAYS);
    assert_false(s.spec.tp_comm_overlap);
    assert_false(s.spec.ramp_comm_overlap);
    assert_true(s.spec.delay_wgrad);
    assert_true(s.spec.dp_grad_overlap);
    assert_false(s.spec.dp_param_overlap);
    assert_int_equal(s.spec.dp_exposed_chunks, 1);
    assert_true(stack_p2p_hidden(&s, false));
    /* issue 38 item 6: the release the file reflects */
    assert_string_equal(s.spec.framework_release,
                        "HAI-LLM as it trained DeepSeek-V3 (2024; not "
                        "released)");
    assert_every_value_cited(&s);
    stack_release(&s);
}

/* Megatron-LM's switches at their defaults: DP/TP overlap off
 * (store_true flags), P2P overlapped with the interleaved schedule only,
 * warm-up/flush not overlapped, no EP all-to-all overlap. */
static void test_stack_load_megatron(void **state)
{
    struct stack s;
    (void)state;
    load(&s, "tests/data/snap/stacks/megatron-lm.ini");
    assert_false(s.spec.dp_grad_overlap);
    assert_false(s.spec.dp_param_overlap);
    assert_false(s.spec.tp_comm_overlap);
    assert_int_equal(s.spec.pp_p2p_overlap, STACK_P2P_INTERLEAVED);
    assert_true(stack_p2p_hidden(&s, true));
    assert_false(stack_p2p_hidden(&s, false));
    assert_false(s.spec.ramp_comm_overlap);
    assert_int_equal(s.spec.ep_a2a_overlap, STACK_EP_NONE);
    assert_int_equal(s.spec.ep_dispatcher, STACK_DISPATCH_ALLTOALL);
    assert_false(s.spec.delay_wgrad);
    /* get_num_layers_to_build's default: equal decoder layers per chunk */
    assert_int_equal(s.spec.pp_split, MODEL_SPLIT_UNIFORM);
    assert_every_value_cited(&s);
    stack_release(&s);
}

/* The stack's pp_split words are enum model_split's (model_split_word,
 * the one list a plan's and a sweep's pp_split read too): each selects
 * its rule; and a stack that does not publish its split keeps roofplan's
 * balanced one. */
static void test_stack_pp_split_words(void **state)
{
    struct stack s;
    struct datafile_set set;
    struct diag d;
    char text[64];
    int i;
    (void)state;
    diag_init(&d);
    for (i = 0; i < MODEL_SPLITS; i++) {
        snprintf(text, sizeof text, "stack.pp_split=%s", model_split_word(i));
        assert_int_equal(datafile_parse_set(text, &set, &d), STATUS_OK);
        assert_int_equal(stack_load("tests/data/snap/stacks/deepseek-hai.ini",
                                    &s, &set, 1, &d),
                         STATUS_OK);
        assert_int_equal(s.spec.pp_split, i);
        stack_release(&s);
    }
    load(&s, "tests/data/snap/stacks/deepseek-hai.ini");
    assert_int_equal(s.spec.pp_split, MODEL_SPLIT_BALANCED);
    stack_release(&s);
}

/* --set flips a switch, as a user trying a tuned Megatron run would. */
static void test_stack_set_overrides(void **state)
{
    struct stack s;
    struct datafile_set sets[2];
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        datafile_parse_set("stack.dp_grad_overlap=true", &sets[0], &d),
        STATUS_OK);
    assert_int_equal(
        datafile_parse_set("stack.ep_a2a_overlap=combined_1f1b", &sets[1], &d),
        STATUS_OK);
    assert_int_equal(
        stack_load("tests/data/snap/stacks/megatron-lm.ini", &s, sets, 2, &d),
        STATUS_OK);
    assert_true(s.spec.dp_grad_overlap);
    assert_int_equal(s.spec.ep_a2a_overlap, STACK_EP_COMBINED_1F1B);
    assert_string_equal(datafile_meta_source(&s.meta, 3), /* dp_grad_overlap */
                        "--set on the command line");
    stack_release(&s);
}

/* The host's time is per kernel launched: a figure without the count of
 * kernels is refused; neither given, both are 0 (not modelled) with a
 * source that says so. */
static void test_stack_host_figures(void **state)
{
    struct stack s;
    struct datafile_set set;
    struct diag d;
    long i;
    (void)state;
    diag_init(&d);
    load(&s, "tests/data/snap/stacks/megatron-lm.ini");
    assert_false(s.spec.cuda_graphs);
    assert_near(s.spec.host_us_per_kernel, 0, 0);
    assert_near(s.spec.kernels_per_layer, 0, 0);
    i = datafile_field_index(stack_schema(), "stack", "host_us_per_kernel");
    assert_non_null(
        strstr(datafile_meta_source(&s.meta, (size_t)i), "not modelled"));
    stack_release(&s);
    assert_int_equal(
        datafile_parse_set("stack.host_us_per_kernel=19", &set, &d), STATUS_OK);
    assert_int_not_equal(
        stack_load("tests/data/snap/stacks/megatron-lm.ini", &s, &set, 1, &d),
        STATUS_OK);
    assert_has_line(d.msg,
                    "megatron-lm.ini: --set stack.host_us_per_kernel=19: "
                    "needs kernels_per_layer");
    /* the synced share is a share of that time: 0 by default, with a
     * source; alone it is refused */
    load(&s, "tests/data/snap/stacks/megatron-lm.ini");
    assert_near(s.spec.host_sync_share, 0, 0);
    i = datafile_field_index(stack_schema(), "stack", "host_sync_share");
    assert_non_null(
        strstr(datafile_meta_source(&s.meta, (size_t)i), "runs ahead"));
    stack_release(&s);
    diag_init(&d);
    assert_int_equal(datafile_parse_set("stack.host_sync_share=0.5", &set, &d),
                     STATUS_OK);
    assert_int_not_equal(
        stack_load("tests/data/snap/stacks/megatron-lm.ini", &s, &set, 1, &d),
        STATUS_OK);
    assert_has_line(d.msg, "--set stack.host_sync_share=0.5: needs "
                           "host_us_per_kernel");
    /* the host's work per expert: 0 by default (one grouped kernel), with
     * a source; a --set is taken, a negative one refused by the schema */
    load(&s, "tests/data/snap/stacks/megatron-lm.ini");
    assert_near(s.spec.expert_host_us, 0, 0);
    i = datafile_field_index(stack_schema(), "stack", "expert_host_us");
    assert_non_null(
        strstr(datafile_meta_source(&s.meta, (size_t)i), "one grouped kernel"));
    stack_release(&s);
    diag_init(&d);
    assert_int_equal(datafile_parse_set("stack.expert_host_us=51.6", &set, &d),
                     STATUS_OK);
    assert_int_equal(
        stack_load("tests/data/snap/stacks/megatron-lm.ini", &s, &set, 1, &d),
        STATUS_OK);
    assert_near(s.spec.expert_host_us, 51.6, 0);
    stack_release(&s);
    diag_init(&d);
    assert_int_equal(datafile_parse_set("stack.expert_host_us=-1", &set, &d),
                     STATUS_OK);
    assert_int_not_equal(
        stack_load("tests/data/snap/stacks/megatron-lm.ini", &s, &set, 1, &d),
        STATUS_OK);
    assert_has_line(d.msg, "expert_host_us");
}

/* Megatron-LM refuses --overlap-param-gather without
 * --overlap-grad-reduce; DualPipe needs the W split. */
static void test_stack_cross_key_rules(void **state)
{
    struct stack s;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        stack_load("tests/data/bad/stack-cross.ini", &s, NULL, 0, &d),
        STATUS_RANGE);
    assert_has_line(d.msg, "tests/data/bad/stack-cross.ini:7: "
                           "stack.dp_param_overlap: true needs "
                           "dp_grad_overlap = true");
    assert_has_line(d.msg, "stack-cross.ini:12: stack.ep_a2a_overlap: "
                           "dualpipe needs delay_wgrad = true");
    assert_int_equal(d.lines, 2);
}

/* Loads megatron-lm.ini under up to three --set words (NULL: fewer). */
static enum status load_set(struct stack *s,
                            const char *a,
                            const char *b,
                            const char *c,
                            struct diag *d)
{
    const char *words[] = {a, b, c};
    struct datafile_set sets[3];
    size_t n = 0, i;
    for (i = 0; i < 3 && words[i]; i++)
        if (datafile_parse_set(words[i], &sets[n++], d) != STATUS_OK)
            return d->status;
    return stack_load("tests/data/snap/stacks/megatron-lm.ini", s, sets, n, d);
}

/*
 * cuda_graphs is a scope (Megatron-LM's --cuda-graph-scope words), the
 * old boolean read as what it meant: true, each layer's forward and
 * backward replayed from one graph each (2 launches a layer), false none.
 * A partial scope launches what it leaves eager, by hand: 240.75 kernels
 * a layer (DeepSeek's H800 trace, 963 / 4) with 0.6934 of them in the
 * attention part (640 of 923 launches under its attn annotations):
 * attn + moe_router + moe_preprocess leave 240.75 x (1 - 0.6934) =
 * 73.81395 eager, plus a graph forward and one backward: 75.81395, on a
 * dense layer and an MoE layer alike; with mlp a dense layer replays all
 * of it from two graphs a pass (4), an MoE layer still launches its
 * experts (moe is the experts' scope).
 */
static void test_stack_graph_scope(void **state)
{
    struct stack s;
    struct diag d;
    (void)state;
    diag_init(&d);
    load(&s, "tests/data/snap/stacks/megatron-lm.ini");
    assert_int_equal(s.spec.cuda_graphs, 0); /* false: none */
    stack_release(&s);
    assert_int_equal(load_set(&s, "stack.cuda_graphs=true",
                              "stack.kernels_per_layer=240.75", NULL, &d),
                     STATUS_OK);
    assert_int_equal(s.spec.cuda_graphs, STACK_GRAPH_BIT(STACK_GRAPH_LAYER));
    assert_near(stack_layer_launches(&s.spec, true), 2, 0);
    assert_near(stack_layer_launches(&s.spec, false), 2, 0);
    stack_release(&s);
    assert_int_equal(load_set(&s,
                              "stack.cuda_graphs=attn,moe_router,"
                              "moe_preprocess",
                              "stack.attn_kernel_share=0.6934",
                              "stack.kernels_per_layer=240.75", &d),
                     STATUS_OK);
    assert_near(stack_layer_launches(&s.spec, true), 75.81395, 1e-12);
    assert_near(stack_layer_launches(&s.spec, false), 75.81395, 1e-12);
    stack_release(&s);
    assert_int_equal(load_set(&s, "stack.cuda_graphs=attn,mlp",
                              "stack.attn_kernel_share=0.6934",
                              "stack.kernels_per_layer=240.75", &d),
                     STATUS_OK);
    assert_near(stack_layer_launches(&s.spec, false), 4, 1e-12);
    assert_near(stack_layer_launches(&s.spec, true), 75.81395, 1e-12);
    stack_release(&s);
    assert_int_equal(load_set(&s, "stack.cuda_graphs=full_iteration",
                              "stack.kernels_per_layer=240.75", NULL, &d),
                     STATUS_OK);
    assert_near(stack_layer_launches(&s.spec, true), 0, 0);
    stack_release(&s);
    assert_int_equal(
        load_set(&s, "stack.kernels_per_layer=240.75", NULL, NULL, &d),
        STATUS_OK);
    assert_near(stack_layer_launches(&s.spec, true), 240.75, 0);
    stack_release(&s);
}

/* A bad scope: file:line: key: problem, every rule that fails; a word
 * that is no scope names the words there are. */
static void test_stack_graph_scope_errors(void **state)
{
    struct stack s;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        stack_load("tests/data/bad/stack-graph-scope.ini", &s, NULL, 0, &d),
        STATUS_RANGE);
    assert_has_line(d.msg, "tests/data/bad/stack-graph-scope.ini:15: "
                           "stack.cuda_graphs: none, true and false stand "
                           "alone");
    assert_has_line(d.msg, "stack-graph-scope.ini:15: stack.cuda_graphs: "
                           "moe_preprocess needs moe_router");
    assert_has_line(d.msg, "stack-graph-scope.ini:15: stack.cuda_graphs: "
                           "attn, mlp and moe need attn_kernel_share");
    diag_init(&d);
    assert_int_not_equal(
        stack_load("tests/data/bad/stack-graph-word.ini", &s, NULL, 0, &d),
        STATUS_OK);
    assert_has_line(d.msg, "tests/data/bad/stack-graph-word.ini:15: "
                           "stack.cuda_graphs: expected one of none|attn|"
                           "moe_router|moe_preprocess|mlp|moe|layer|"
                           "full_iteration|false|true, got \"yes\"");
    diag_init(&d);
    diag_init(&d);
    assert_int_equal(load_set(&s, "stack.cuda_graphs=moe_router",
                              "stack.attn_kernel_share=0.5", NULL, &d),
                     STATUS_RANGE);
    assert_has_line(d.msg, "megatron-lm.ini: --set stack.cuda_graphs="
                           "moe_router: moe_router needs attn");
}

/* Every key is required, and choices are checked. */
static void test_stack_bad_values(void **state)
{
    struct stack s;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_not_equal(
        stack_load("tests/data/bad/stack-bad-value.ini", &s, NULL, 0, &d),
        STATUS_OK);
    assert_has_line(d.msg, "stack-bad-value.ini:10: stack.pp_p2p_overlap: "
                           "expected one of never|interleaved|always, got "
                           "\"sometimes\"");
    assert_has_line(d.msg, "stack-bad-value.ini: stack.delay_wgrad: missing "
                           "(required");
}

/* The free factors: 1 (neutral) with a "not fitted" source when the file
 * leaves them out; their bounds are the schema's, [1, 2] and [0.25, 1];
 * --set inside the bounds is taken, outside refused. */
static void test_stack_factors_default_and_bounds(void **state)
{
    struct stack s;
    struct datafile_set sets[2];
    struct diag d;
    double lo, hi;
    long i;
    (void)state;
    load(&s, "tests/data/snap/stacks/deepseek-hai.ini");
    assert_true(s.spec.compute_overhead == 1);
    assert_true(s.spec.network_efficiency == 1);
    i = datafile_field_index(stack_schema(), "stack", "compute_overhead");
    assert_false(s.meta.given[i]);
    assert_string_equal(datafile_meta_source(&s.meta, (size_t)i),
                        "not fitted: 1, the neutral value (roofplan report "
                        "--calibrate RUN.ini fits it to a measured run)");
    stack_release(&s);
    stack_factor_bounds(STACK_COMPUTE_OVERHEAD, &lo, &hi);
    assert_true(lo == 1 && hi == 2);
    stack_factor_bounds(STACK_NETWORK_EFFICIENCY, &lo, &hi);
    assert_true(lo == 0.25 && hi == 1);
    assert_string_equal(stack_factor_key(STACK_NETWORK_EFFICIENCY),
                        "network_efficiency");

    diag_init(&d);
    util_set(&sets[0], "stack.compute_overhead=1.25");
    assert_int_equal(
        stack_load("tests/data/snap/stacks/megatron-lm.ini", &s, sets, 1, &d),
        STATUS_OK);
    assert_true(stack_factor_get(&s.spec, STACK_COMPUTE_OVERHEAD) == 1.25);
    stack_factor_set(&s.spec, STACK_NETWORK_EFFICIENCY, 0.5);
    assert_true(s.spec.network_efficiency == 0.5);
    stack_release(&s);
    util_set(&sets[1], "stack.network_efficiency=1.5");
    assert_int_not_equal(stack_load("tests/data/snap/stacks/megatron-lm.ini",
                                    &s, &sets[1], 1, &d),
                         STATUS_OK);
    assert_has_line(d.msg, "--set stack.network_efficiency=1.5: expected a "
                           "number in 0.25..1");
}

static void test_stack_keys(void **state)
{
    (void)state;
    assert_string_equal(stack_p2p_overlap_key(STACK_P2P_INTERLEAVED),
                        "interleaved");
    assert_string_equal(stack_ep_overlap_key(STACK_EP_SHARED_EXPERT),
                        "shared_expert");
    assert_string_equal(stack_ep_dispatcher_key(STACK_DISPATCH_ALLGATHER),
                        "allgather");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stack_load_deepseek),
        cmocka_unit_test(test_stack_load_megatron),
        cmocka_unit_test(test_stack_pp_split_words),
        cmocka_unit_test(test_stack_set_overrides),
        cmocka_unit_test(test_stack_cross_key_rules),
        cmocka_unit_test(test_stack_host_figures),
        cmocka_unit_test(test_stack_graph_scope),
        cmocka_unit_test(test_stack_graph_scope_errors),
        cmocka_unit_test(test_stack_bad_values),
        cmocka_unit_test(test_stack_factors_default_and_bounds),
        cmocka_unit_test(test_stack_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
