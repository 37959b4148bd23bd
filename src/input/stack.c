/*
 * stack: the stack file's schema and its cross-key rules.
 */
#include "stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_partition.h"

#define OFF(member) offsetof(struct stack_spec, member)

/* clang-format off */
static const struct datafile_field fields[] = {
    {.section = "stack", .key = "name", .type = DATAFILE_STRING, .offset = OFF(name), .size = 128, .required = true, .help = "stack name shown in reports"},
    {.section = "stack", .key = "framework", .type = DATAFILE_STRING, .offset = OFF(framework), .size = 128, .required = true, .help = "training framework and version the switches are from"},
    {.section = "stack", .key = "framework_release", .type = DATAFILE_STRING, .offset = OFF(framework_release), .size = 128, .def = "not named", .help = "the framework's release (version, container or commit) whose switches and measured host figures the file gives: the same plan ran 3.3x faster per GPU on one framework's 2025-11 release than on its 2025-04 one, so a calibration and a stack reflect one software generation (reports print it)"},
    {.section = "stack", .key = "dp_grad_overlap", .type = DATAFILE_BOOL, .offset = OFF(dp_grad_overlap), .required = true, .help = "DP gradient reduce hidden under the backward pass (Megatron --overlap-grad-reduce)"},
    {.section = "stack", .key = "dp_param_overlap", .type = DATAFILE_BOOL, .offset = OFF(dp_param_overlap), .required = true, .help = "distributed-optimizer parameter all-gather hidden under the next forward (Megatron --overlap-param-gather)"},
    {.section = "stack", .key = "dp_exposed_chunks", .type = DATAFILE_INT, .offset = OFF(dp_exposed_chunks), .max = 1e6, .required = true, .help = "DP communication chunks left exposed when overlapped (a layer, or a virtual pipeline stage with PP)"},
    {.section = "stack", .key = "tp_comm_overlap", .type = DATAFILE_BOOL, .offset = OFF(tp_comm_overlap), .required = true, .help = "TP all-gather/reduce-scatter overlapped with the GEMMs (Megatron --tp-comm-overlap)"},
    {.section = "stack", .key = "tp_regather", .type = DATAFILE_BOOL, .offset = OFF(tp_regather), .def = "true", .help = "under sequence parallelism, each column-parallel GEMM's input is kept as its shard and all-gathered again in backward for the weight gradient, issued before the input gradient's GEMM and hidden under it as far as it lasts (Megatron-LM's LinearWithGradAccumulationAndAsyncCommunication); false: the framework keeps the gathered input (autograd over DTensor's all-gather)"},
    {.section = "stack", .key = "pp_p2p_overlap", .type = DATAFILE_ENUM, .offset = OFF(pp_p2p_overlap), .required = true, .word = stack_p2p_overlap_key, .help = "pipeline send/receive hidden in the steady state: never, with the interleaved schedule only, or always"},
    {.section = "stack", .key = "ramp_comm_overlap", .type = DATAFILE_BOOL, .offset = OFF(ramp_comm_overlap), .required = true, .help = "communication hidden in pipeline warm-up and flush too (Megatron --overlap-p2p-communication-warmup-flush)"},
    {.section = "stack", .key = "ep_a2a_overlap", .type = DATAFILE_ENUM, .offset = OFF(ep_a2a_overlap), .required = true, .word = stack_ep_overlap_key, .help = "what hides the MoE dispatch/combine all-to-all"},
    {.section = "stack", .key = "pp_split", .type = DATAFILE_ENUM, .offset = OFF(pp_split), .def = "balanced", .word = model_split_word, .help = "the framework's own layer split over pipeline chunks, which a sweep's pp_split word `framework` tries: balanced (roofplan's, by forward time, where the framework's is not published), uniform (Megatron-LM's default), embedding, loss, embedding_loss (the ends hold a decoder layer fewer)"},
    {.section = "stack", .key = "ep_dispatcher", .type = DATAFILE_ENUM, .offset = OFF(ep_dispatcher), .required = true, .word = stack_ep_dispatcher_key, .help = "kernel moving tokens to experts: NCCL all-to-all (a copy per chosen expert), all-gather (every token to every EP rank), or DeepEP-style kernels (once per node over IB, then NVLink)"},
    {.section = "stack", .key = "cp_comm", .type = DATAFILE_ENUM, .offset = OFF(cp_comm), .def = "ring", .word = stack_cp_comm_key, .help = "how context parallelism moves keys and values: a ring (each step's block sent while the step before computes; what the sends take beyond those steps' attention is exposed) an all-gather before the attention (exposed), or an all-gather under the first (local) block's attention"},
    {.section = "stack", .key = "attention_kernel", .type = DATAFILE_ENUM, .offset = OFF(attention_kernel), .def = "measured", .word = stack_attention_kernel_key, .help = "the attention kernel the framework runs: measured (the calibration's, as measured) or flash2 (FlashAttention-2, PyTorch scaled_dot_product_attention's flash backend: the calibration's rates at its [attention_length] benchmark's FlashAttention-2 bars over its own kernel's, where it has them)"},
    {.section = "stack", .key = "cuda_graphs", .type = DATAFILE_LIST, .offset = OFF(cuda_graph_words), .required = true, .word = stack_graph_scope_key, .help = "the parts of each layer captured in CUDA graphs and replayed, one launch a graph and pass, as Megatron-LM's --cuda-graph-scope names them (with --cuda-graph-impl): none; attn (the attention part, router and dispatch preprocessing included: attn_kernel_share of the kernels), moe_router and moe_preprocess (inside that part, with attn), mlp (a dense layer's MLP), moe (an MoE layer's experts), layer (the whole layer: Megatron's full), full_iteration (the whole step); what no graph replays is launched from the host; false and true, the old boolean, read as none and layer"},
    {.section = "stack", .key = "attn_kernel_share", .type = DATAFILE_DOUBLE, .offset = OFF(attn_kernel_share), .max = 1, .def = "0", .help = "share of a layer's launched kernels in its attention part (norm, projections, attention, and an MoE layer's router and dispatch preprocessing): what an attn graph replays; the rest is the MLP's or the experts' (0: not split, a partial scope is refused)"},
    {.section = "stack", .key = "host_us_per_kernel", .type = DATAFILE_DOUBLE, .offset = OFF(host_us_per_kernel), .max = 1000, .def = "0", .unit = "us", .help = "host (CPU) time the framework spends per kernel it launches: Python, the framework's operator and the launch call (0: host work not modelled)"},
    {.section = "stack", .key = "kernels_per_layer", .type = DATAFILE_DOUBLE, .offset = OFF(kernels_per_layer), .max = 1e5, .def = "0", .help = "kernels one transformer layer launches per micro-batch, forward and backward, without CUDA graphs (0: host work not modelled)"},
    {.section = "stack", .key = "host_sync_share", .type = DATAFILE_DOUBLE, .offset = OFF(host_sync_share), .max = 1, .def = "0", .help = "share of the kernels the host cannot launch ahead of the GPU where the framework synchronises host and device inside each layer: the kernels besides GEMMs and attention, which wait for their launches while those run, so compute is the GEMMs' and attention's time plus the larger of the elementwise time and this share of the host's (0: the host runs ahead, compute the larger of the kernels' time and the host's)"},
    {.section = "stack", .key = "expert_host_us", .type = DATAFILE_DOUBLE, .offset = OFF(expert_host_us), .max = 10000, .def = "0", .unit = "us", .help = "host (CPU) time per local expert in each MoE layer's forward and backward where the grouped GEMM runs one expert at a time (Transformer Engine's per-expert path: the token counts read on the host, then per expert a split, allocations, quantisation and a GEMM launch), all of it after that sync, so the GPU waits for it (0: one grouped kernel for all experts, no per-expert host work)"},
    {.section = "stack", .key = "delay_wgrad", .type = DATAFILE_BOOL, .offset = OFF(delay_wgrad), .required = true, .help = "weight-gradient GEMMs split off and deferred (DualPipe W chunks, Megatron --delay-wgrad-compute)"},
    {.section = "stack", .key = "ep_ib_efficiency", .type = DATAFILE_DOUBLE, .offset = OFF(ep_ib_efficiency), .max = 1, .min_open = true, .def = "1", .help = "ep_dispatcher = deepep: share of the IB rate (hardware file) its kernels reach, as published (1: the link's rate)"},
    {.section = "stack", .key = "moe_load_cv", .type = DATAFILE_DOUBLE, .offset = OFF(moe_load_cv), .max = 10, .def = "0", .help = "dropless routing: spread (coefficient of variation) of the tokens one expert-parallel rank receives per micro-batch under the stack's router and balancing loss; each MoE layer waits for the most loaded rank, 1 + cv z(ep) of the mean (0: balanced, as forced or capacity-bound routing)"},
    {.section = "stack", .key = "ep_nvlink_efficiency", .type = DATAFILE_DOUBLE, .offset = OFF(ep_nvlink_efficiency), .max = 1, .min_open = true, .def = "1", .help = "ep_dispatcher = deepep: share of the NVLink rate its kernels reach, as published (1: the link's rate)"},
    /* The free factors. Bounds: the calibration times each kernel alone at
     * its best and nccl-tests each collective alone, so a framework can
     * only add (compute_overhead >= 1, network_efficiency <= 1); an
     * overhead that doubles compute or quarters the bandwidth is a fault
     * to find, not a factor to fit. */
    {.section = "stack", .key = "compute_overhead", .type = DATAFILE_DOUBLE, .offset = OFF(compute_overhead), .min = 1, .max = 2, .def = "1", .help = "free factor on the expected compute time: kernel launch gaps, host and Python overhead, stragglers, load imbalance the calibrated kernels do not show (1: none; --calibrate fits it)"},
    {.section = "stack", .key = "network_efficiency", .type = DATAFILE_DOUBLE, .offset = OFF(network_efficiency), .min = 0.25, .max = 1, .def = "1", .help = "free factor: share of the calibrated bus bandwidth the job's collectives get, under contention with each other and with compute (1: as measured alone; --calibrate fits it)"},
    {.section = "stack", .key = "validation_family", .type = DATAFILE_STRING, .offset = OFF(validation_family), .size = 64, .def = "", .help = "the stacks whose published runs (data/validation) check this one's expected steps together: frameworks that run a plan the same way (the same overlaps, kernels and host path) name one family; empty: its own, by its name. An expected step's range is as wide as the runs of its calibration's group under its stack's family say (docs/model.md, the expected step's range)"},
};
/* clang-format on */

static const struct datafile_schema schema = {.kind = "stack",
                                              .fields = fields,
                                              .n = sizeof fields /
                                                   sizeof fields[0]};

const struct datafile_schema *stack_schema(void)
{
    return &schema;
}

/* The schema key of each enum stack_factor. */
static const char *const factor_keys[STACK_FACTORS] = {"compute_overhead",
                                                       "network_efficiency"};

/* The source of a factor the file leaves out (the Assumptions sheet
 * shows it). */
#define NOT_FITTED                                                           \
    "not fitted: 1, the neutral value (roofplan report --calibrate RUN.ini " \
    "fits it to a measured run)"

/* The source of a deepep efficiency the file leaves out. */
#define LINK_RATE \
    "not given: 1, the link's achievable rate of the hardware file"

/* The source of a host figure the file leaves out, and of the routing's
 * load spread. */
#define NO_HOST "not given: 0, the host's work per kernel is not modelled"
#define NO_SYNC \
    "not given: 0, the host runs ahead of the GPU (no sync in a layer)"
#define BALANCED \
    "not given: 0, routing taken as balanced (every expert the mean load)"
/* The source of a validation family the file leaves out. */
#define OWN_FAMILY                                                          \
    "not given: its own family, by its name (its runs, if any, band apart " \
    "from every other stack's)"
#define GROUPED                                                             \
    "not given: 0, one grouped kernel for all local experts (no host work " \
    "per expert)"

#define NOT_SPLIT                                                           \
    "not given: 0, a layer's kernels not split by part (cuda_graphs none, " \
    "layer or full_iteration only)"

/* Gives field `key`, when neither set nor cited, the source `why`. */
static void cite_default(struct stack *s,
                         struct diag *d,
                         const char *key,
                         const char *why,
                         size_t len)
{
    long i = datafile_field_index(stack_schema(), "stack", key);
    if (i < 0 || s->meta.given[i] || s->meta.source[i])
        return;
    s->meta.source[i] = malloc(len);
    if (!s->meta.source[i])
        diag_add(d, STATUS_NOMEM, "out of memory");
    else
        memcpy(s->meta.source[i], why, len);
}

static const char *const p2p_keys[STACK_P2P_OVERLAPS] = {
    [STACK_P2P_NEVER] = "never",
    [STACK_P2P_INTERLEAVED] = "interleaved",
    [STACK_P2P_ALWAYS] = "always",
};
static const char *const ep_keys[STACK_EP_OVERLAPS] = {
    [STACK_EP_NONE] = "none",
    [STACK_EP_SHARED_EXPERT] = "shared_expert",
    [STACK_EP_COMBINED_1F1B] = "combined_1f1b",
    [STACK_EP_DUALPIPE] = "dualpipe",
};
static const char *const dispatch_keys[STACK_DISPATCHERS] = {
    [STACK_DISPATCH_ALLTOALL] = "alltoall",
    [STACK_DISPATCH_ALLGATHER] = "allgather",
    [STACK_DISPATCH_DEEPEP] = "deepep",
};

static const char *const cp_keys[STACK_CP_COMMS] = {
    [STACK_CP_RING] = "ring",
    [STACK_CP_ALLGATHER] = "allgather",
    [STACK_CP_ALLGATHER_FIRST] = "allgather_first",
};

static const char *const attn_keys[STACK_ATTN_KERNELS] = {
    [STACK_ATTN_MEASURED] = "measured",
    [STACK_ATTN_FLASH2] = "flash2",
};

static void
bad(const struct stack *s, struct diag *d, const char *key, const char *why)
{
    datafile_meta_problem(&s->meta, d, STATUS_RANGE, "stack", key, why);
}

static const char *const graph_keys[STACK_GRAPH_WORDS] = {
    [STACK_GRAPH_NONE] = "none",
    [STACK_GRAPH_ATTN] = "attn",
    [STACK_GRAPH_MOE_ROUTER] = "moe_router",
    [STACK_GRAPH_MOE_PREPROCESS] = "moe_preprocess",
    [STACK_GRAPH_MLP] = "mlp",
    [STACK_GRAPH_MOE] = "moe",
    [STACK_GRAPH_LAYER] = "layer",
    [STACK_GRAPH_FULL_ITERATION] = "full_iteration",
    [STACK_GRAPH_FALSE] = "false",
    [STACK_GRAPH_TRUE] = "true",
};

/* The scopes that stand alone: none, and the old boolean's words. */
#define GRAPH_ALONE                                                           \
    (STACK_GRAPH_BIT(STACK_GRAPH_NONE) | STACK_GRAPH_BIT(STACK_GRAPH_FALSE) | \
     STACK_GRAPH_BIT(STACK_GRAPH_TRUE))
/* The scopes that capture part of a layer, split by attn_kernel_share. */
#define GRAPH_PARTS                                                         \
    (STACK_GRAPH_BIT(STACK_GRAPH_ATTN) | STACK_GRAPH_BIT(STACK_GRAPH_MLP) | \
     STACK_GRAPH_BIT(STACK_GRAPH_MOE))

/* cuda_graphs' words as bits, the old boolean read as the scope it
 * meant (true: each layer's forward and backward replayed, one launch
 * each), and the rules between the words. */
static void graph_scope(struct stack *s, struct diag *d)
{
    unsigned bits = 0;
    size_t i;
    for (i = 0; i < s->spec.cuda_graph_words.n; i++)
        bits |= STACK_GRAPH_BIT((int)s->spec.cuda_graph_words.v[i]);
    if ((bits & GRAPH_ALONE) && (bits & (bits - 1)) != 0)
        bad(s, d, "cuda_graphs",
            "none, true and false stand alone (a scope list names the parts "
            "captured)");
    if ((bits & STACK_GRAPH_BIT(STACK_GRAPH_MOE_PREPROCESS)) &&
        !(bits & STACK_GRAPH_BIT(STACK_GRAPH_MOE_ROUTER)))
        bad(s, d, "cuda_graphs",
            "moe_preprocess needs moe_router (Megatron-LM: the preprocessing "
            "is captured with the router)");
    if ((bits & (STACK_GRAPH_BIT(STACK_GRAPH_MOE_ROUTER) |
                 STACK_GRAPH_BIT(STACK_GRAPH_MOE_PREPROCESS))) &&
        !(bits & STACK_GRAPH_BIT(STACK_GRAPH_ATTN)))
        bad(s, d, "cuda_graphs",
            "moe_router needs attn here (attn_kernel_share counts the router "
            "in the attention part)");
    if ((bits & GRAPH_PARTS) && s->spec.attn_kernel_share <= 0)
        bad(s, d, "cuda_graphs",
            "attn, mlp and moe need attn_kernel_share (the share of a "
            "layer's kernels each part replays)");
    if (bits & STACK_GRAPH_BIT(STACK_GRAPH_TRUE))
        bits = STACK_GRAPH_BIT(STACK_GRAPH_LAYER);
    s->spec.cuda_graphs = bits & ~GRAPH_ALONE;
}

enum status stack_load(const char *path,
                       struct stack *s,
                       struct datafile_set *sets,
                       size_t nsets,
                       struct diag *d)
{
    enum status st;
    int f;
    memset(s, 0, sizeof *s);
    st =
        datafile_load(path, stack_schema(), &s->spec, &s->meta, sets, nsets, d);
    if (st != STATUS_OK)
        return st;
    if (s->spec.dp_param_overlap && !s->spec.dp_grad_overlap)
        bad(s, d, "dp_param_overlap",
            "true needs dp_grad_overlap = true (Megatron-LM: "
            "--overlap-param-gather needs --overlap-grad-reduce)");
    if (s->spec.ep_a2a_overlap == STACK_EP_DUALPIPE && !s->spec.delay_wgrad)
        bad(s, d, "ep_a2a_overlap",
            "dualpipe needs delay_wgrad = true (DualPipe splits the backward "
            "into input and weight gradients)");
    if (s->spec.ep_dispatcher != STACK_DISPATCH_DEEPEP) {
        if (s->meta.given[datafile_field_index(stack_schema(), "stack",
                                               "ep_ib_efficiency")])
            bad(s, d, "ep_ib_efficiency",
                "applies to ep_dispatcher = deepep only (NCCL dispatchers "
                "run at the calibration's nccl-tests curves)");
        if (s->meta.given[datafile_field_index(stack_schema(), "stack",
                                               "ep_nvlink_efficiency")])
            bad(s, d, "ep_nvlink_efficiency",
                "applies to ep_dispatcher = deepep only (NCCL dispatchers "
                "run at the calibration's nccl-tests curves)");
    }
    graph_scope(s, d);
    if (s->spec.host_us_per_kernel > 0 && s->spec.kernels_per_layer <= 0)
        bad(s, d, "host_us_per_kernel",
            "needs kernels_per_layer (the host's time is per kernel launched)");
    if (s->spec.host_sync_share > 0 && s->spec.host_us_per_kernel <= 0)
        bad(s, d, "host_sync_share",
            "needs host_us_per_kernel and kernels_per_layer (a share of the "
            "host's launch time)");
    for (f = 0; f < STACK_FACTORS && d->status == STATUS_OK; f++)
        cite_default(s, d, factor_keys[f], NOT_FITTED, sizeof NOT_FITTED);
    if (d->status == STATUS_OK)
        cite_default(s, d, "ep_ib_efficiency", LINK_RATE, sizeof LINK_RATE);
    if (d->status == STATUS_OK)
        cite_default(s, d, "ep_nvlink_efficiency", LINK_RATE, sizeof LINK_RATE);
    if (d->status == STATUS_OK)
        cite_default(s, d, "host_us_per_kernel", NO_HOST, sizeof NO_HOST);
    if (d->status == STATUS_OK)
        cite_default(s, d, "kernels_per_layer", NO_HOST, sizeof NO_HOST);
    if (d->status == STATUS_OK)
        cite_default(s, d, "host_sync_share", NO_SYNC, sizeof NO_SYNC);
    if (d->status == STATUS_OK)
        cite_default(s, d, "moe_load_cv", BALANCED, sizeof BALANCED);
    if (d->status == STATUS_OK)
        cite_default(s, d, "expert_host_us", GROUPED, sizeof GROUPED);
    if (d->status == STATUS_OK)
        cite_default(s, d, "attn_kernel_share", NOT_SPLIT, sizeof NOT_SPLIT);
    if (d->status == STATUS_OK)
        cite_default(s, d, "validation_family", OWN_FAMILY, sizeof OWN_FAMILY);
    diag_finish(d);
    if (d->status != STATUS_OK) {
        stack_release(s);
        return d->status;
    }
    return STATUS_OK;
}

void stack_release(struct stack *s)
{
    if (s)
        datafile_meta_release(&s->meta);
}

bool stack_p2p_hidden(const struct stack *s, bool virtual_stages)
{
    return s->spec.pp_p2p_overlap == STACK_P2P_ALWAYS ||
           (s->spec.pp_p2p_overlap == STACK_P2P_INTERLEAVED && virtual_stages);
}

const char *stack_factor_key(enum stack_factor f)
{
    return factor_keys[f];
}

double stack_factor_get(const struct stack_spec *s, enum stack_factor f)
{
    return f == STACK_COMPUTE_OVERHEAD ? s->compute_overhead
                                       : s->network_efficiency;
}

void stack_factor_set(struct stack_spec *s, enum stack_factor f, double v)
{
    if (f == STACK_COMPUTE_OVERHEAD)
        s->compute_overhead = v;
    else
        s->network_efficiency = v;
}

void stack_factor_bounds(enum stack_factor f, double *lo, double *hi)
{
    const struct datafile_field *fd =
        &fields[datafile_field_index(stack_schema(), "stack", factor_keys[f])];
    *lo = fd->min;
    *hi = fd->max;
}

const char *stack_p2p_overlap_key(int v)
{
    return DATAFILE_WORD_AT(p2p_keys, v);
}

const char *stack_ep_overlap_key(int v)
{
    return DATAFILE_WORD_AT(ep_keys, v);
}

const char *stack_ep_dispatcher_key(int v)
{
    return DATAFILE_WORD_AT(dispatch_keys, v);
}

const char *stack_cp_comm_key(int v)
{
    return DATAFILE_WORD_AT(cp_keys, v);
}

const char *stack_attention_kernel_key(int v)
{
    return DATAFILE_WORD_AT(attn_keys, v);
}

const char *stack_graph_scope_key(int v)
{
    return DATAFILE_WORD_AT(graph_keys, v);
}

double stack_layer_launches(const struct stack_spec *s, bool moe_layer)
{
    unsigned g = s->cuda_graphs;
    double captured = 0, graphs = 0;
    if (g & STACK_GRAPH_BIT(STACK_GRAPH_FULL_ITERATION))
        return 0; /* one launch a step, no launch per layer */
    if (g & STACK_GRAPH_BIT(STACK_GRAPH_LAYER))
        return 2; /* the forward's graph and the backward's */
    if (g & STACK_GRAPH_BIT(STACK_GRAPH_ATTN)) {
        captured += s->attn_kernel_share;
        graphs += 2;
    }
    if (g & STACK_GRAPH_BIT(moe_layer ? STACK_GRAPH_MOE : STACK_GRAPH_MLP)) {
        captured += 1 - s->attn_kernel_share;
        graphs += 2;
    }
    return s->kernels_per_layer * (1 - captured) + graphs;
}
