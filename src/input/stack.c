/*
 * stack: the stack file's schema and its cross-key rules.
 */
#include "stack.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define OFF(member) offsetof(struct stack_spec, member)

#define P2P_CHOICES      "never|interleaved|always"
#define EP_CHOICES       "none|shared_expert|combined_1f1b|dualpipe"
#define DISPATCH_CHOICES "alltoall|allgather|deepep"

/* clang-format off */
static const struct datafile_field fields[] = {
    {"stack", "name", DATAFILE_STRING, OFF(name), 128, 0, 0, false, true, NULL, "", NULL, "stack name shown in reports"},
    {"stack", "framework", DATAFILE_STRING, OFF(framework), 128, 0, 0, false, true, NULL, "", NULL, "training framework and version the switches are from"},
    {"stack", "dp_grad_overlap", DATAFILE_BOOL, OFF(dp_grad_overlap), 0, 0, 0, false, true, NULL, "", NULL, "DP gradient reduce hidden under the backward pass (Megatron --overlap-grad-reduce)"},
    {"stack", "dp_param_overlap", DATAFILE_BOOL, OFF(dp_param_overlap), 0, 0, 0, false, true, NULL, "", NULL, "distributed-optimizer parameter all-gather hidden under the next forward (Megatron --overlap-param-gather)"},
    {"stack", "dp_exposed_chunks", DATAFILE_INT, OFF(dp_exposed_chunks), 0, 0, 1e6, false, true, NULL, "", NULL, "DP communication chunks left exposed when overlapped (a layer, or a virtual pipeline stage with PP)"},
    {"stack", "tp_comm_overlap", DATAFILE_BOOL, OFF(tp_comm_overlap), 0, 0, 0, false, true, NULL, "", NULL, "TP all-gather/reduce-scatter overlapped with the GEMMs (Megatron --tp-comm-overlap)"},
    {"stack", "pp_p2p_overlap", DATAFILE_ENUM, OFF(pp_p2p_overlap), 0, 0, 0, false, true, NULL, "", P2P_CHOICES, "pipeline send/receive hidden in the steady state: never, with the interleaved schedule only, or always"},
    {"stack", "ramp_comm_overlap", DATAFILE_BOOL, OFF(ramp_comm_overlap), 0, 0, 0, false, true, NULL, "", NULL, "communication hidden in pipeline warm-up and flush too (Megatron --overlap-p2p-communication-warmup-flush)"},
    {"stack", "ep_a2a_overlap", DATAFILE_ENUM, OFF(ep_a2a_overlap), 0, 0, 0, false, true, NULL, "", EP_CHOICES, "what hides the MoE dispatch/combine all-to-all"},
    {"stack", "pp_split", DATAFILE_ENUM, OFF(pp_split), 0, 0, 0, false, false, "balanced", "", STACK_SPLIT_CHOICES, "the framework's own layer split over pipeline chunks, which a sweep's pp_split word `framework` tries: balanced (roofplan's, by forward time, where the framework's is not published), uniform (Megatron-LM's default), embedding, loss, embedding_loss (the ends hold a decoder layer fewer)"},
    {"stack", "ep_dispatcher", DATAFILE_ENUM, OFF(ep_dispatcher), 0, 0, 0, false, true, NULL, "", DISPATCH_CHOICES, "kernel moving tokens to experts: NCCL all-to-all (a copy per chosen expert), all-gather (every token to every EP rank), or DeepEP-style kernels (once per node over IB, then NVLink)"},
    {"stack", "cuda_graphs", DATAFILE_BOOL, OFF(cuda_graphs), 0, 0, 0, false, true, NULL, "", NULL, "each layer's forward and backward captured in CUDA graphs and replayed, one launch each (Megatron --cuda-graph-impl; else every kernel is launched from the host)"},
    {"stack", "host_us_per_kernel", DATAFILE_DOUBLE, OFF(host_us_per_kernel), 0, 0, 1000, false, false, "0", "us", NULL, "host (CPU) time the framework spends per kernel it launches: Python, the framework's operator and the launch call (0: host work not modelled)"},
    {"stack", "kernels_per_layer", DATAFILE_DOUBLE, OFF(kernels_per_layer), 0, 0, 1e5, false, false, "0", "", NULL, "kernels one transformer layer launches per micro-batch, forward and backward, without CUDA graphs (0: host work not modelled)"},
    {"stack", "host_sync_share", DATAFILE_DOUBLE, OFF(host_sync_share), 0, 0, 1, false, false, "0", "", NULL, "share of the kernels the host cannot launch ahead of the GPU where the framework synchronises host and device inside each layer: the kernels besides GEMMs and attention, which wait for their launches while those run, so compute is the GEMMs' and attention's time plus the larger of the elementwise time and this share of the host's (0: the host runs ahead, compute the larger of the kernels' time and the host's)"},
    {"stack", "expert_host_us", DATAFILE_DOUBLE, OFF(expert_host_us), 0, 0, 10000, false, false, "0", "us", NULL, "host (CPU) time per local expert in each MoE layer's forward and backward where the grouped GEMM runs one expert at a time (Transformer Engine's per-expert path: the token counts read on the host, then per expert a split, allocations, quantisation and a GEMM launch), all of it after that sync, so the GPU waits for it (0: one grouped kernel for all experts, no per-expert host work)"},
    {"stack", "delay_wgrad", DATAFILE_BOOL, OFF(delay_wgrad), 0, 0, 0, false, true, NULL, "", NULL, "weight-gradient GEMMs split off and deferred (DualPipe W chunks, Megatron --delay-wgrad-compute)"},
    {"stack", "ep_ib_efficiency", DATAFILE_DOUBLE, OFF(ep_ib_efficiency), 0, 0, 1, true, false, "1", "", NULL, "ep_dispatcher = deepep: share of the IB rate (hardware file) its kernels reach, as published (1: the link's rate)"},
    {"stack", "moe_load_cv", DATAFILE_DOUBLE, OFF(moe_load_cv), 0, 0, 10, false, false, "0", "", NULL, "dropless routing: spread (coefficient of variation) of the tokens one expert-parallel rank receives per micro-batch under the stack's router and balancing loss; each MoE layer waits for the most loaded rank, 1 + cv z(ep) of the mean (0: balanced, as forced or capacity-bound routing)"},
    {"stack", "ep_nvlink_efficiency", DATAFILE_DOUBLE, OFF(ep_nvlink_efficiency), 0, 0, 1, true, false, "1", "", NULL, "ep_dispatcher = deepep: share of the NVLink rate its kernels reach, as published (1: the link's rate)"},
    /* The free factors. Bounds: the calibration times each kernel alone at
     * its best and nccl-tests each collective alone, so a framework can
     * only add (compute_overhead >= 1, network_efficiency <= 1); an
     * overhead that doubles compute or quarters the bandwidth is a fault
     * to find, not a factor to fit. */
    {"stack", "compute_overhead", DATAFILE_DOUBLE, OFF(compute_overhead), 0, 1, 2, false, false, "1", "", NULL, "free factor on the expected compute time: kernel launch gaps, host and Python overhead, stragglers, load imbalance the calibrated kernels do not show (1: none; --calibrate fits it)"},
    {"stack", "network_efficiency", DATAFILE_DOUBLE, OFF(network_efficiency), 0, 0.25, 1, false, false, "1", "", NULL, "free factor: share of the calibrated bus bandwidth the job's collectives get, under contention with each other and with compute (1: as measured alone; --calibrate fits it)"},
};
/* clang-format on */

static const struct datafile_schema schema = {"stack", fields,
                                              sizeof fields / sizeof fields[0]};

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
#define GROUPED                                                             \
    "not given: 0, one grouped kernel for all local experts (no host work " \
    "per expert)"

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

static const char *const p2p_keys[] = {"never", "interleaved", "always"};
static const char *const ep_keys[] = {"none", "shared_expert", "combined_1f1b",
                                      "dualpipe"};
static const char *const dispatch_keys[] = {"alltoall", "allgather", "deepep"};

static void
bad(const struct stack *s, struct diag *d, const char *key, const char *why)
{
    long i = datafile_field_index(stack_schema(), "stack", key);
    char where[1200];
    if (i < 0)
        diag_add(d, STATUS_RANGE, "%s: stack.%s: %s", s->meta.path, key, why);
    else
        diag_add(d, STATUS_RANGE, "%s: %s",
                 datafile_meta_where(&s->meta, (size_t)i, where, sizeof where),
                 why);
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

const char *stack_p2p_overlap_key(enum stack_p2p_overlap v)
{
    return p2p_keys[v];
}

const char *stack_ep_overlap_key(enum stack_ep_overlap v)
{
    return ep_keys[v];
}

const char *stack_ep_dispatcher_key(enum stack_ep_dispatcher v)
{
    return dispatch_keys[v];
}
