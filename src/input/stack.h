/*
 * stack: what a training framework overlaps, read from a stack file
 * (data/stacks/NAME.ini, one [stack] section).
 *
 * The speed of light overlaps everything that can be overlapped; a real
 * framework hides only what its schedule and switches hide. A stack file
 * names those switches after the frameworks' own (Megatron-LM's
 * --overlap-grad-reduce, --overlap-param-gather, --tp-comm-overlap,
 * --overlap-p2p-communication, --overlap-moe-expert-parallel-comm;
 * DeepSeek's DualPipe), each value with its source and a sentence of what
 * is assumed. The expected-time model reads them to decide which
 * communication is exposed. This module only loads and checks the file;
 * it knows no plan and computes no time. SMs reserved for communication
 * kernels are the hardware file's gpu.comm_sms.
 *
 * Besides the switches, a stack has free factors: what a real framework
 * adds that the calibrated kernels and collectives do not show (kernel
 * launch gaps, host-side and Python overhead, stragglers, contention
 * between concurrent collectives). Each is bounded, and 1, the neutral
 * value, unless the file sets it or `--calibrate` fits it to a measured
 * run (fit.h).
 */
#ifndef PROJ_STACK_H
#define PROJ_STACK_H

#include <stdbool.h>
#include <stddef.h>

#include "datafile.h"
#include "diag.h"

/* Pipeline point-to-point (activations and their gradients) overlap. */
enum stack_p2p_overlap {
    STACK_P2P_NEVER,       /* every send/receive waits on the critical path */
    STACK_P2P_INTERLEAVED, /* hidden with the interleaved schedule only */
    STACK_P2P_ALWAYS,      /* hidden with every schedule the stack runs */
    STACK_P2P_OVERLAPS
};

/* Expert-parallel dispatch/combine all-to-all overlap. */
enum stack_ep_overlap {
    STACK_EP_NONE,          /* dispatch and combine on the critical path */
    STACK_EP_SHARED_EXPERT, /* only the shared expert's compute hides them */
    STACK_EP_COMBINED_1F1B, /* one micro-batch's all-to-all under an
                               adjacent micro-batch's compute (1F1B steady
                               state; Megatron "combined 1F1B") */
    STACK_EP_DUALPIPE,      /* a forward and a backward chunk paired, each
                               hiding the other's all-to-all (DualPipe) */
    STACK_EP_OVERLAPS
};

/* The kernel that moves tokens to experts (whose bandwidth applies). */
enum stack_ep_dispatcher {
    STACK_DISPATCH_ALLTOALL,  /* NCCL all-to-all (nccl-tests alltoall) */
    STACK_DISPATCH_ALLGATHER, /* all-gather of every token, local select
                                 (Megatron's default dispatcher) */
    STACK_DISPATCH_DEEPEP,    /* DeepEP-style node-limited kernels */
    STACK_DISPATCHERS
};

/* How context parallelism moves keys and values (whether the attention
 * hides it). */
enum stack_cp_comm {
    STACK_CP_RING,            /* a ring: each step's block sent while the step
                                 before computes (Transformer Engine's p2p) */
    STACK_CP_ALLGATHER,       /* keys and values all-gathered before the
                                 attention: on the critical path (Llama 3) */
    STACK_CP_ALLGATHER_FIRST, /* one all-gather under the first (local)
                                 block's attention (PyTorch's
                                 _AllGatherRotater, torchtitan's default) */
    STACK_CP_COMMS
};

/* Which attention kernel the framework runs: the one the calibration's
 * attention rates measured, or FlashAttention-2 (PyTorch
 * scaled_dot_product_attention's flash backend, which the ranking put
 * first on Hopper until cuDNN's was preferred). */
enum stack_attention_kernel {
    STACK_ATTN_MEASURED, /* as the calibration measured it */
    STACK_ATTN_FLASH2,   /* FlashAttention-2: the calibration's rates at
                          * its benchmark's FlashAttention-2 bars over its
                          * own kernel's (calibration_attention_flash2_
                          * factors) */
    STACK_ATTN_KERNELS
};

/* What a stack replays from CUDA graphs, as Megatron-LM's
 * --cuda-graph-scope names the parts (megatron/core/transformer/enums.py,
 * CudaGraphScope), one bit each in stack_spec.cuda_graphs. A layer splits
 * in two for its launches (stack_spec.attn_kernel_share): the attention
 * part (its norm, projections, attention and, in an MoE layer, the router
 * and the dispatch's preprocessing) and the rest (the MLP, or the experts
 * with the dispatch and combine). */
enum stack_graph_scope {
    STACK_GRAPH_NONE,           /* every kernel launched from the host */
    STACK_GRAPH_ATTN,           /* the attention part, one graph a pass */
    STACK_GRAPH_MOE_ROUTER,     /* the router: inside the attention part's
                                   share here, captured with attn */
    STACK_GRAPH_MOE_PREPROCESS, /* the dispatch's preprocessing: as the
                                   router (Megatron requires moe_router) */
    STACK_GRAPH_MLP,            /* a dense layer's MLP */
    STACK_GRAPH_MOE,            /* an MoE layer's experts (drop-and-pad) */
    STACK_GRAPH_LAYER,          /* the whole layer (Megatron's "full", or an
                                   empty scope list): one graph a pass */
    STACK_GRAPH_FULL_ITERATION, /* the whole step: no launch per layer */
    STACK_GRAPH_FALSE,          /* the old boolean false: none */
    STACK_GRAPH_TRUE,           /* the old boolean true: layer */
    STACK_GRAPH_WORDS
};

/* The bit of scope g in stack_spec.cuda_graphs. */
#define STACK_GRAPH_BIT(g) (1u << (unsigned)(g))

struct stack_spec {
    char name[128];
    char framework[128];
    /* the framework's release (version, container or commit) the
     * switches and host figures reflect: a calibration is of one
     * software generation */
    char framework_release[128];
    /* the stacks whose published runs check this one's expected steps
     * together (validation_band_key; "": its own, by its name) */
    char validation_family[64];
    bool dp_grad_overlap;   /* DP gradient reduce hidden under backward */
    bool dp_param_overlap;  /* distributed-optimizer param all-gather
                               hidden under the next forward */
    long dp_exposed_chunks; /* DP chunks left exposed when overlapped: a
                               chunk is one layer's gradients, or one
                               (virtual) pipeline stage's with PP */
    bool tp_comm_overlap;   /* TP all-gather/reduce-scatter inside GEMMs */
    bool tp_regather;       /* under sequence parallelism, a column-parallel
                               GEMM's input kept as its shard and
                               all-gathered again in backward (Megatron-LM);
                               false: the gathered input is kept */
    int pp_p2p_overlap;     /* enum stack_p2p_overlap */
    bool ramp_comm_overlap; /* communication hidden in pipeline warm-up and
                               flush too (else exposed there) */
    int ep_a2a_overlap;     /* enum stack_ep_overlap */
    int ep_dispatcher;      /* enum stack_ep_dispatcher */
    int cp_comm;            /* enum stack_cp_comm */
    int attention_kernel;   /* enum stack_attention_kernel */
    /* the parts replayed from CUDA graphs: STACK_GRAPH_BIT of each
     * enum stack_graph_scope the file names (false and true read as none
     * and layer); 0: none */
    unsigned cuda_graphs;
    struct datafile_list cuda_graph_words; /* the key's words, as read */
    /* the share of a layer's launched kernels in its attention part
     * (what attn replays; the rest is what mlp or moe replays) */
    double attn_kernel_share;
    bool delay_wgrad; /* weight-gradient GEMMs deferred to hide
                         communication (W chunks, --delay-wgrad-compute) */
    int pp_split;     /* the framework's own layer split, enum
                       * model_split (model_split_word): what a sweep's
                       * `framework` split stands for */

    /* the host's work: its time per kernel launched, us, and the kernels
     * a layer launches per micro-batch, forward and backward, without
     * graphs; 0: not modelled */
    double host_us_per_kernel;
    double kernels_per_layer;
    /* the share of those launches the host cannot queue ahead of the GPU
     * because the framework synchronises host and device inside each
     * layer (the kernels besides GEMMs and attention, which then wait for
     * their launches while those run); 0: the host runs ahead */
    double host_sync_share;
    /* the host's work per local expert in each MoE layer's forward and
     * backward, us, where the grouped GEMM runs one expert at a time
     * (Transformer Engine's per-expert path); it follows the layer's read
     * of the token counts, so the GPU waits for all of it; 0: one grouped
     * kernel */
    double expert_host_us;
    /* ep_dispatcher = deepep: the share of each link's achievable rate
     * its kernels reach, as published (NCCL dispatchers take the
     * calibration's nccl-tests curves instead); 1 when not given */
    double ep_ib_efficiency;
    double ep_nvlink_efficiency;
    /* dropless routing: the coefficient of variation of the tokens one
     * expert-parallel rank receives per micro-batch under the stack's
     * router and load-balancing loss (expected_load_factor); 0: balanced */
    double moe_load_cv;
    /* free factors (STACK_FACTORS), 1 when not fitted: */
    double compute_overhead;   /* the expected compute time x this, 1..2 */
    double network_efficiency; /* share of the calibrated bus bandwidth the
                                  job's collectives get, 0.25..1 */
};

/* The free factors, in the order --calibrate considers them. */
enum stack_factor {
    STACK_COMPUTE_OVERHEAD,   /* larger: slower (multiplies compute) */
    STACK_NETWORK_EFFICIENCY, /* smaller: slower (divides bandwidth) */
    STACK_FACTORS
};

struct stack {
    struct stack_spec spec;
    struct datafile_meta meta; /* lines and sources */
};

/*
 * The schema of stack files (what the training framework overlaps):
 * every section and key with its type, range, unit and default; for
 * loading, `check` and data/README.md. Static: never NULL.
 */
const struct datafile_schema *stack_schema(void);

/*
 * Loads the stack file at path with the --set overrides of its [stack]
 * section. Every switch is required: a stack file states each one rather
 * than inheriting a default; a free factor the file does not set is 1 (the
 * neutral value), with a source that says it was not fitted. Cross-key rules,
 * after the frameworks' own: dp_param_overlap needs dp_grad_overlap
 * (Megatron-LM refuses
 * --overlap-param-gather without --overlap-grad-reduce), and
 * ep_a2a_overlap = dualpipe needs delay_wgrad (DualPipe splits each
 * backward chunk into input and weight gradients, the W of its bubble);
 * ep_ib_efficiency and ep_nvlink_efficiency are a deepep dispatcher's.
 * Every problem is reported as "path:line: stack.key: problem"
 * (STATUS_PARSE, STATUS_RANGE or STATUS_IO; s then holds nothing). On
 * success release s with stack_release().
 *
 *   struct stack s;
 *   if (stack_load("data/stacks/megatron-lm.ini", &s, NULL, 0, &d))
 *       return d.status;
 */
enum status stack_load(const char *path,
                       struct stack *s,
                       struct datafile_set *sets,
                       size_t nsets,
                       struct diag *d);

/* Frees what s holds; s may be zeroed or NULL. */
void stack_release(struct stack *s);

/*
 * Whether pipeline point-to-point communication is hidden in the steady
 * state of a schedule; virtual_stages: the plan's schedule runs virtual
 * pipeline stages (its schedule row's vpp, as the interleaved schedule
 * does: pp_p2p_overlap = interleaved hides them there only). (Warm-up and
 * flush follow ramp_comm_overlap.)
 */
bool stack_p2p_hidden(const struct stack *s, bool virtual_stages);

/* The stack file's key of factor f ("compute_overhead"). */
const char *stack_factor_key(enum stack_factor f);

/* Factor f's value in s. */
double stack_factor_get(const struct stack_spec *s, enum stack_factor f);

/* Sets factor f of s to v (the caller keeps v within its bounds). */
void stack_factor_set(struct stack_spec *s, enum stack_factor f, double v);

/* Factor f's bounds, from the schema: *lo and *hi. */
void stack_factor_bounds(enum stack_factor f, double *lo, double *hi);

/* Stable names of the enum values (enum stack_p2p_overlap,
 * stack_ep_overlap, stack_ep_dispatcher, stack_cp_comm), as the stack
 * file writes them;
 * NULL outside the enum (datafile word functions: the schema's fields
 * accept these words). */
const char *stack_p2p_overlap_key(int v);
const char *stack_ep_overlap_key(int v);
const char *stack_ep_dispatcher_key(int v);
const char *stack_cp_comm_key(int v);
const char *stack_attention_kernel_key(int v);
const char *stack_graph_scope_key(int v);

/*
 * The kernels the host launches for one layer's forward and backward of
 * one micro-batch under s's CUDA-graph scope: the kernels no graph
 * replays (kernels_per_layer times the share left eager) and one launch
 * per captured graph and pass. moe_layer: the layer is an MoE layer (moe
 * replays its experts, mlp a dense layer's MLP). Example: 240.75 kernels,
 * attn_kernel_share 0.6934, scope attn: 240.75 x 0.3066 + 2 = 75.8.
 */
double stack_layer_launches(const struct stack_spec *s, bool moe_layer);

#endif
