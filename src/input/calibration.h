/*
 * calibration: measured kernel and network efficiencies of one GPU type,
 * read from a calibration file (data/calibration/NAME.ini), and the lookups
 * the expected-time model reads them through.
 *
 * The speed of light uses one achievable rate per resource (hardware.h).
 * A real step runs slower: small GEMMs run far below the large-GEMM rate,
 * attention and elementwise kernels have their own rates, the clock sinks
 * under the power cap, and collectives reach their bus bandwidth only for
 * large messages. A calibration file holds those measurements, each value
 * with a source (scripts/measure-gpu writes one; `roofplan import nccl`
 * writes its network sections). This module loads and checks the file and
 * answers lookups; it computes no step time and knows no particular GPU.
 *
 * Conventions (all lookups):
 * - TFLOP/s = 1e12 FLOP/s, 2 FLOPs per multiply-add; TB/s = 1e12 B/s
 *   counting bytes read plus bytes written; GB/s = 1e9 B/s.
 * - GEMM and attention rates are burst rates (short back-to-back runs);
 *   the sustained clock under the power cap is a separate factor
 *   (calibration_clock_factor) the caller applies to compute-bound time.
 * - Beyond a table the lookups never invent a trend; each documents its
 *   rule and reports through `outside` (may be NULL) that it applied it.
 */
#ifndef PROJ_CALIBRATION_H
#define PROJ_CALIBRATION_H

#include <stdbool.h>
#include <stddef.h>

#include "datafile.h"
#include "diag.h"
#include "hardware.h"

/* The least GEMM or attention rate a calibration takes, TFLOP/s, and the
 * least measured bandwidth of a memory-bound kernel, TB/s (the schema's
 * ranges; its help says why). */
#define CALIBRATION_RATE_MIN 0.1
#define CALIBRATION_TBPS_MIN 0.01

/*
 * GEMM classes. Each has a section [gemm_<key>] with its measured table
 * (a class the model lacks, e.g. experts of a dense model, may be absent).
 * How a GEMM of the model maps to a class (M = rows of the activation
 * matrix: the tokens of one micro-batch on this GPU; with sequence
 * parallelism the gathered sequence, with context parallelism the local
 * chunk):
 *   attn_proj    every projection of the attention block: Q, K, V and
 *                output (MHA/GQA); MLA's q down/up, kv down/up and output.
 *                The router's logits GEMM (hidden x experts) is not
 *                measured on its own and uses this class too.
 *   dense_up     dense FFN up projection (gate and up fused: N = 2 x width
 *                for SwiGLU); dense_down: its down projection.
 *   expert_up    one expert's up (+gate) projection, M = tokens routed to
 *                that expert on this GPU; expert_down: its down projection.
 *                Shared experts use these classes with M = micro-batch
 *                tokens.
 *   head         the output projection to the vocabulary (and MTP heads).
 * Backward GEMMs (activation and weight gradients) have the forward GEMM's
 * FLOPs and its three dimensions permuted; they use the forward GEMM's
 * class and M (an assumption: scripts/measure-gpu times forward GEMMs).
 */
enum calibration_gemm {
    CALIBRATION_GEMM_ATTN_PROJ,
    CALIBRATION_GEMM_DENSE_UP,
    CALIBRATION_GEMM_DENSE_DOWN,
    CALIBRATION_GEMM_EXPERT_UP,
    CALIBRATION_GEMM_EXPERT_DOWN,
    CALIBRATION_GEMM_HEAD,
    CALIBRATION_GEMM_COUNT
};

enum calibration_precision {
    CALIBRATION_BF16,
    CALIBRATION_FP8,
    CALIBRATION_PRECISION_COUNT
};

/* Passes of the attention kernel (scaled dot-product attention). */
enum calibration_attention_pass {
    CALIBRATION_ATTN_FWD,
    CALIBRATION_ATTN_BWD,    /* derived from fwd and fwd+bwd, see below */
    CALIBRATION_ATTN_FWD_BWD /* as measured: (1 + ratio) x fwd FLOPs */
};

/*
 * Memory-bound kernels, each at its measured bandwidth (bytes read +
 * written per second). Suggested mapping of the per-layer work: norms ->
 * NORM; SwiGLU/activation -> ACTIVATION; residual adds, RoPE, MoE
 * permute/unpermute, optimizer step -> COPY (streaming read + write);
 * reductions such as the loss -> READ. A kind not measured falls back to
 * COPY (the device-to-device copy rate).
 */
enum calibration_elementwise {
    CALIBRATION_EW_COPY,
    CALIBRATION_EW_READ,
    CALIBRATION_EW_NORM,
    CALIBRATION_EW_ACTIVATION,
    CALIBRATION_EW_COUNT
};

/* The chunked scans of linear-attention and state-space layers, one
 * kernel class each ([scan]). */
enum calibration_scan {
    CALIBRATION_SCAN_LINEAR, /* Gated DeltaNet's chunked delta rule */
    CALIBRATION_SCAN_SSD,    /* Mamba-2's chunked state-space scan */
    CALIBRATION_SCAN_COUNT
};

enum calibration_link {
    CALIBRATION_LINK_INTRA, /* inside a node (NVLink) */
    CALIBRATION_LINK_INTER, /* across nodes (InfiniBand/RoCE/EFA) */
    CALIBRATION_LINK_COUNT
};

/* The collectives nccl-tests measures that roofplan's plans use. */
enum calibration_collective {
    CALIBRATION_ALL_REDUCE,
    CALIBRATION_ALL_GATHER,
    CALIBRATION_REDUCE_SCATTER,
    CALIBRATION_ALLTOALL,
    CALIBRATION_COLLECTIVE_COUNT
};

#define CALIBRATION_POINTS_MAX 32 /* values in one measured list */

/* One class's GEMM table: rates by M, per precision. */
struct calibration_gemm_table {
    size_t n; /* points; 0: the class was not measured */
    double m_tokens[CALIBRATION_POINTS_MAX]; /* strictly ascending, >= 1 */
    bool has[CALIBRATION_PRECISION_COUNT];   /* FP8 may be unmeasured */
    double tflops[CALIBRATION_PRECISION_COUNT][CALIBRATION_POINTS_MAX];
};

/* Attention rates by head dimension. */
struct calibration_attention {
    size_t n;
    double head_dim[CALIBRATION_POINTS_MAX];       /* ascending */
    double fwd_tflops[CALIBRATION_POINTS_MAX];     /* measured */
    double fwd_bwd_tflops[CALIBRATION_POINTS_MAX]; /* measured */
    double bwd_tflops[CALIBRATION_POINTS_MAX];     /* derived at load */
    double v_head_dim[CALIBRATION_POINTS_MAX];     /* the kernel's v width
                                                      (head_dim unless said) */
    /* A published benchmark's rate by sequence length, with a causal
     * mask and without ([attention_length]; len_n 0: none), and the
     * length the rates above were measured at (causal) */
    size_t len_n;
    double len_seq[CALIBRATION_POINTS_MAX]; /* ascending */
    double len_ln[CALIBRATION_POINTS_MAX];  /* their logarithms */
    double len_causal[CALIBRATION_POINTS_MAX];
    double len_full[CALIBRATION_POINTS_MAX];
    double len_ref; /* the causal rate at attention_kernel.seq_len */
    /* The same benchmark's FlashAttention-2 bars beside its own kernel's
     * (forward causal and full, backward unmasked, and its own kernel's
     * backward), where a stack runs FlashAttention-2 (stack
     * attention_kernel); len_flash2 false: none */
    bool len_flash2;
    double len_bwd[CALIBRATION_POINTS_MAX];
    double len_f2_causal[CALIBRATION_POINTS_MAX];
    double len_f2_full[CALIBRATION_POINTS_MAX];
    double len_f2_bwd[CALIBRATION_POINTS_MAX];
};

/* A bus-bandwidth curve as nccl-tests prints it (out-of-place busbw). */
struct calibration_curve {
    bool present;
    size_t n;
    double bytes[CALIBRATION_POINTS_MAX]; /* nccl-tests "size", ascending */
    double busbw_gbps[CALIBRATION_POINTS_MAX];
    long ranks; /* GPUs in the measured collective; 0: unknown */
    long nodes; /* nodes they spanned; 0: unknown */
};

/* The file's values as datafile reads them (lists as text). */
struct calibration_spec {
    char gpu[128];
    char hardware_gpu[128]; /* the hardware files' gpu.name it is for */
    char date[32];
    char driver[64];
    char software[DATAFILE_TEXT_MAX];
    char derived_from[DATAFILE_TEXT_MAX];
    /* the calibrations whose validation runs check this one's rates
     * (validation_band): files with the same rates on the same SMs share
     * a group; "" is the file's own (its gpu) */
    char validation_group[64];
    struct {
        char m_tokens[DATAFILE_TEXT_MAX];
        char bf16_tflops[DATAFILE_TEXT_MAX];
        char fp8_tflops[DATAFILE_TEXT_MAX];
    } gemm[CALIBRATION_GEMM_COUNT];
    char head_dims[DATAFILE_TEXT_MAX];
    char v_head_dims[DATAFILE_TEXT_MAX];
    char fwd_tflops[DATAFILE_TEXT_MAX];
    char fwd_bwd_tflops[DATAFILE_TEXT_MAX];
    double bwd_flops_ratio; /* backward FLOPs / forward FLOPs */
    double attn_seq_len;    /* tokens of the attention measurement; 0: unsaid */
    char len_seqs[DATAFILE_TEXT_MAX];
    char len_causal[DATAFILE_TEXT_MAX];
    char len_full[DATAFILE_TEXT_MAX];
    char len_bwd[DATAFILE_TEXT_MAX];
    char len_f2_causal[DATAFILE_TEXT_MAX];
    char len_f2_full[DATAFILE_TEXT_MAX];
    char len_f2_bwd[DATAFILE_TEXT_MAX];
    double ew_tbps[CALIBRATION_EW_COUNT]; /* 0: not measured (not COPY) */
    double router_us; /* router sigmoid/softmax + top-k; 0: unmeasured */
    double scan_tflops[CALIBRATION_SCAN_COUNT]; /* forward; 0: unmeasured */
    double router_tokens;                       /* tokens of that measurement */
    double burst_tflops;     /* first ~100 ms of back-to-back GEMMs */
    double sustained_tflops; /* the same GEMMs once the clock settled */
    double run_s;            /* length of the sustained run */
    double burst_s;          /* how long the burst rate held; 0: unknown */
    double fp8_fine_factor;  /* fine-grained FP8 scales / per-tensor, (0, 1] */
    double sm_clock_mhz;     /* settled SM clock; 0: not recorded */
    double power_w;          /* settled board power; 0: not recorded */
    double power_limit_w;    /* enforced limit; 0: not recorded */
    /* NCCL's large-message IB rate / ib_gbps by collective, (0, 1]; 0: 1 */
    double nccl_ib_share[CALIBRATION_COLLECTIVE_COUNT];
    double fp8_row_factor;   /* row-wise scales / per-tensor; 0: fine's */
    double fp8_block_factor; /* block scales / per-tensor; 0: fine's */
    /* each factor measured from a trace with its recipe's cast kernels
     * in it (calibration_fp8_casts_counted) */
    bool fp8_fine_casts, fp8_row_casts, fp8_block_casts;
    struct {
        char bytes[DATAFILE_TEXT_MAX];
        char busbw_gbps[DATAFILE_TEXT_MAX];
        long ranks;
        long nodes;
    } net[CALIBRATION_LINK_COUNT][CALIBRATION_COLLECTIVE_COUNT];
};

struct calibration {
    struct calibration_spec spec;
    struct datafile_meta meta; /* lines and sources, for messages and the
                                  Assumptions sheet */
    struct calibration_gemm_table gemm[CALIBRATION_GEMM_COUNT];
    struct calibration_attention attention;
    struct calibration_curve curve[CALIBRATION_LINK_COUNT]
                                  [CALIBRATION_COLLECTIVE_COUNT];
};

/*
 * The schema of calibration files (measured kernel and network efficiencies):
 * every section and key with its type, range, unit and default; for
 * loading, `check` and data/README.md. Static: never NULL.
 */
const struct datafile_schema *calibration_schema(void);

/*
 * Loads the calibration file at path, applying the --set overrides in
 * sets whose section belongs to it, and checks it: lists parse as numbers
 * (space- or comma-separated, at most CALIBRATION_POINTS_MAX), M, head
 * dims and message sizes strictly ascending, every rate > 0, rate lists as
 * long as their key list, fwd+bwd attention consistent with fwd (a
 * positive backward time), sustained <= burst, power <= limit, network
 * curves complete (bytes with busbw_gbps) and intra-node curves on one
 * node. Every problem is reported as "path:line: section.key: problem";
 * returns STATUS_PARSE (text that is not numbers), STATUS_RANGE (values)
 * or STATUS_IO, and then cal holds nothing to release. That rates stay
 * below the hardware's peaks is the caller's check (see
 * calibration_max_tflops). On success release cal with
 * calibration_release().
 *
 *   struct calibration cal;
 *   if (calibration_load("data/calibration/h200.ini", &cal, NULL, 0, &d))
 *       return d.status;
 */
enum status calibration_load(const char *path,
                             struct calibration *cal,
                             struct datafile_set *sets,
                             size_t nsets,
                             struct diag *d);

/*
 * calibration_load() of text[0..len) (text[len] a NUL; borrowed), named
 * `name` in messages, without overrides: what a program that writes a
 * calibration checks before it hands the text out (`import trace`).
 */
enum status calibration_load_text(const char *name,
                                  const char *text,
                                  size_t len,
                                  struct calibration *cal,
                                  struct diag *d);

/*
 * The calibration file of a cluster: data_dir/calibration/NAME.ini for
 * the hardware file NAME.ini (the convention the shipped files follow),
 * into buf; false when there is none.
 */
bool calibration_find(const char *hardware_path,
                      const char *data_dir,
                      char *buf,
                      size_t size);

/* Frees what cal holds; cal may be zeroed or NULL. */
void calibration_release(struct calibration *cal);

/*
 * Achieved TFLOP/s of a GEMM of class cls in precision p with m_tokens
 * rows (> 0). Between measured M the rate is interpolated linearly in
 * ln M. Beyond the table the rate is held at the nearest end (the
 * clamp rule): above the largest M, large GEMMs have saturated; below the
 * smallest M the held rate is optimistic, and the caller's roofline cap
 * min(peak, intensity x HBM bandwidth) is what limits a memory-bound
 * small GEMM. *outside (if not NULL) is set true when the clamp applied.
 * Returns 0 when cls, or p for cls, was not measured (e.g. no FP8 table).
 *
 * Example (H200 file, expert_up BF16: 282 at M=128, 535 at M=512):
 * M=256 is halfway in ln M, so 408.5 TFLOP/s.
 */
double calibration_gemm_tflops(const struct calibration *cal,
                               enum calibration_gemm cls,
                               enum calibration_precision p,
                               double m_tokens,
                               bool *outside);

/*
 * Achieved attention TFLOP/s for pass at head dimension head_dim (> 0;
 * for MLA the q/k width, nope + rope). FLOPs are counted as the file
 * says: causal attention as half of 4 s^2 d per head forward, and
 * backward = bwd_flops_ratio x forward. The backward rate is derived from
 * the measured forward (R_f) and forward+backward (R_fb) rates:
 * R_b = ratio / ((1 + ratio) / R_fb - 1 / R_f). Interpolated linearly in
 * head_dim between measured dims, held at the nearest end beyond them
 * (*outside set). Rates are taken as independent of sequence length and
 * head count (measured at one of each; an assumption).
 */
double calibration_attention_tflops(const struct calibration *cal,
                                    enum calibration_attention_pass pass,
                                    double head_dim,
                                    bool *outside);

/*
 * Seconds of `flops` attention FLOPs of pass (forward or the derived
 * backward) for a kernel of q/k head width qk_dim and value width v_dim,
 * the FLOPs counted at the real widths (QK^T at qk_dim, PV at v_dim, in
 * the file's causal convention). A measured entry of that very kernel
 * (head_dims with v_head_dims) times all of them at its rate; so does a
 * kernel of equal widths (calibration_attention_tflops at that width).
 * Otherwise each product runs at the rate measured at its own width:
 * the qk_dim / (qk_dim + v_dim) share of the FLOPs at the rate at qk_dim,
 * the rest at the rate at v_dim (MLA, q/k 192 and v 128, against
 * kernels measured with V padded to 192: the PV product is not run
 * padded). 0 without an attention table or FLOPs.
 *
 * Example (H200 file: fwd 591 at 128, 634 at 192): 1e12 forward FLOPs
 * at q/k 192, v 128 take 0.6 / 634 + 0.4 / 591 s = 1.6231 ms.
 */
double calibration_attention_s(const struct calibration *cal,
                               enum calibration_attention_pass pass,
                               double qk_dim,
                               double v_dim,
                               double flops);

/*
 * The rates of attention kernels over sequences of seq tokens, with a
 * causal mask (*causal) and without (*full: the blocks of a
 * context-parallel ring's later steps), over the rate [attention_kernel]
 * measured (causal, at its seq_len): the [attention_length] benchmark's
 * ratio of the two, interpolated in log length and held beyond its ends.
 * 1 and 1 where the file has no such curve.
 */
void calibration_attention_length_factors(const struct calibration *cal,
                                          double seq,
                                          double *causal,
                                          double *full);

/*
 * FlashAttention-2's rate over the benchmark's own kernel's (the one the
 * measured rates stand for) on sequences of seq tokens, from the
 * [attention_length] benchmark's bars at the same length, interpolated in
 * log length and held beyond its ends: forward with a causal mask
 * (*causal), forward without (*full) and backward (*bwd, the benchmark's
 * backward bars, unmasked). Returns false, the three at 1, where the file
 * has no FlashAttention-2 bars.
 *
 * Example (H100 files, FlashAttention-3 paper §4.1, head dim 128): at
 * 8192 tokens causal 333 / 602 = 0.5532, full 370 / 646 = 0.5728,
 * backward 318 / 559 = 0.5689.
 */
bool calibration_attention_flash2_factors(const struct calibration *cal,
                                          double seq,
                                          double *causal,
                                          double *full,
                                          double *bwd);

/* The attention backward FLOPs per forward FLOP the rates assume. */
double calibration_attention_bwd_ratio(const struct calibration *cal);

/*
 * Bandwidth in TB/s (bytes read + written per second) of a memory-bound
 * kernel of the given kind; a kind the file leaves at 0 (not measured)
 * gets the COPY rate. COPY is the device-to-device copy bandwidth the
 * file always has.
 */
double calibration_elementwise_tbps(const struct calibration *cal,
                                    enum calibration_elementwise kind);

/* Whether the file measured kind itself (COPY always is). */
bool calibration_elementwise_measured(const struct calibration *cal,
                                      enum calibration_elementwise kind);

/*
 * Seconds of the MoE router's score function and top-k for `tokens`
 * tokens (>= 0), or 0 when the file has no router measurement. Rule: the
 * measured time is held below the measured token count (launch-bound)
 * and scales linearly above it (one row per token).
 */
double calibration_router_s(const struct calibration *cal, double tokens);

/*
 * The forward rate, TFLOP/s, a chunked scan kernel of class k reached
 * ([scan]), counted as model_mixer.c counts its FLOPs; 0 where the file
 * does not give it (the expected step then takes the attention kernel's
 * rate at the scan's head widths: expected_compute.c says why).
 */
double calibration_scan_tflops(const struct calibration *cal,
                               enum calibration_scan k);

/*
 * The rate of an FP8 GEMM with fine-grained scales (per row or per block,
 * as DeepSeek-V3's recipe) over the per-tensor-scaled rate the gemm
 * tables measure, (0, 1]; 1 when not measured.
 */
double calibration_fp8_fine_factor(const struct calibration *cal);

/* An FP8 recipe's scale granularity, the model file's fp8.scaling (its
 * words in model_schema.c, by these constants). */
enum calibration_fp8_scaling {
    CALIBRATION_FP8_TENSOR, /* one scale per tensor: the tables' rate */
    CALIBRATION_FP8_FINE,   /* fine-grained, kind not said */
    CALIBRATION_FP8_ROW,    /* one scale per row (cuBLAS row-wise) */
    CALIBRATION_FP8_BLOCK   /* 1x128 activation tiles, 128x128 weight blocks */
};

/*
 * The factor on the FP8 GEMM rate of a recipe with scaling: 1 per tensor;
 * the calibration's row_factor or block_factor for those recipes, its
 * fine_grained_factor where that one is not measured (and for `fine`).
 */
double calibration_fp8_scaling_factor(const struct calibration *cal,
                                      int scaling);

/*
 * Whether the expected step counts the HBM bytes of the casts a recipe
 * with scaling runs before its FP8 GEMMs: always for one scale per
 * tensor (the tables time the GEMMs alone); for the others unless the
 * factor the recipe takes (as calibration_fp8_scaling_factor picks it)
 * was measured from a trace with the recipe's cast and transpose kernels
 * in it (fine_grained_casts, row_casts, block_casts: DeepSeek's H800
 * trace). A factor measured on GEMMs alone, or not measured (1), holds
 * no casts.
 */
bool calibration_fp8_casts_counted(const struct calibration *cal, int scaling);

/*
 * The share of the hardware file's achievable IB rate (ib_gbps) that
 * NCCL's collective kind reaches over InfiniBand at its largest messages,
 * in (0, 1]; 1 when not measured (the hardware file's rate is NCCL's).
 * The nccl-tests curves give the shape by message size, normalised to
 * their largest; this gives their level where the hardware's rate is
 * another library's (an H800's IB rate is DeepEP's) or the kind runs
 * below it (all-to-all). Kernels that are not NCCL's (DeepEP) do not take
 * it.
 */
double calibration_nccl_ib_share(const struct calibration *cal,
                                 enum calibration_collective kind);

/*
 * Sustained / burst rate of a long compute-bound GEMM run under the power
 * cap, in (0, 1]: the factor the caller multiplies compute-bound rates by
 * (divides compute-bound time by). Kept apart from the speed of light.
 */
double calibration_clock_factor(const struct calibration *cal);

/* Seconds the burst rate held at the start of the sustained run before
 * the power cap lowered the clock (clock.burst_s), 0 when not measured. */
double calibration_burst_s(const struct calibration *cal);

/*
 * Bus bandwidth in GB/s (nccl-tests' busbw) of collective kind on link
 * for a message of `bytes` (> 0) as nccl-tests counts size: all_reduce
 * the buffer each rank reduces; all_gather the gathered output;
 * reduce_scatter the full input; alltoall each rank's whole send buffer.
 * Time = bytes x bus factor / busbw, the bus factor being nccl-tests':
 * 2(n-1)/n for all_reduce, (n-1)/n for the other three.
 * Interpolated linearly in ln(busbw) against ln(bytes) (busbw spans
 * orders of magnitude, and is a power law of size where latency binds).
 * Below the smallest size the time is held (latency-bound: busbw
 * proportional to size); above the largest the busbw is held; *outside
 * is set when either rule applied. Returns 0 when the file has no curve
 * for (link, kind): the caller falls back to the hardware file's rate.
 * The curve holds for the group it was measured on (ranks, nodes in
 * calibration_curve_get).
 */
double calibration_busbw_gbps(const struct calibration *cal,
                              enum calibration_link link,
                              enum calibration_collective kind,
                              double bytes,
                              bool *outside);

/* The curve of (link, kind), or NULL when the file has none. Borrowed. */
const struct calibration_curve *
calibration_curve_get(const struct calibration *cal,
                      enum calibration_link link,
                      enum calibration_collective kind);

/*
 * The highest measured TFLOP/s in precision p over every GEMM table
 * (and, for BF16, the attention rates, forward and derived backward):
 * what the caller compares with the hardware's peak. 0 when none.
 */
double calibration_max_tflops(const struct calibration *cal,
                              enum calibration_precision p);

/* The highest elementwise bandwidth in TB/s, to compare with HBM peak. */
double calibration_max_tbps(const struct calibration *cal);

/* Whether cal is for hw's GPU: calibration.hardware_gpu is hw's gpu.name. */
bool calibration_for_gpu(const struct calibration *cal,
                         const struct hardware *hw);

/*
 * Checks that cal may time plans on hw: it is for hw's GPU
 * (calibration_for_gpu; if not, that is the one problem reported), and no
 * rate is above hw's peaks — every GEMM
 * rate of a precision at most that precision's peak (FP8 rates only on a
 * GPU with FP8), attention forward, backward (derived) and forward +
 * backward rates and the clock's burst and sustained rates at most the
 * BF16 peak, every elementwise bandwidth at most the HBM peak. A rate
 * above peak would put the expected step below the speed of light.
 * (nccl-tests bus bandwidths are not compared: NVLink SHARP and in-network
 * reductions reach bus bandwidths above a link's one-direction peak.)
 * Each problem is added to d as "cal:line: section.key: problem" naming
 * the hardware file's value; returns STATUS_RANGE when there was one.
 *
 *   if (calibration_check_hardware(&cal, &hw, &d) != STATUS_OK)
 *       return d.status; // "h800.ini:4: calibration.hardware_gpu: ..."
 */
enum status calibration_check_hardware(const struct calibration *cal,
                                       const struct hardware *hw,
                                       struct diag *d);

/*
 * Checks that no rate of cal, as the expected step runs it, is above the
 * rate the speed of light prices the same work at on hw (issue 17: the
 * floor is a lower bound of the expected step): every GEMM rate times the
 * sustained clock factor (sustained / burst) at most hw's achievable rate
 * of its precision times the clock derate, attention at the model's count
 * of its FLOPs (3 / (1 + bwd_flops_ratio) x fwd_bwd_tflops) likewise
 * against BF16, the copy bandwidth at most hw's achievable HBM bandwidth.
 * `roofplan check` refuses such a pair (with cal checked against hw by
 * calibration_check_hardware first); `report` and `eval` time plans with
 * the calibrated work capped at the floor's (expected.c), so a --set of
 * the hardware's achievable rates below the calibration's runs.
 * Each problem is added to d as "cal:line: section.key: problem";
 * returns STATUS_RANGE when there was one.
 */
enum status calibration_check_floor(const struct calibration *cal,
                                    const struct hardware *hw,
                                    struct diag *d);

/* Stable key names: "attn_proj", ..., "bf16"/"fp8", "copy", ...,
 * "intra"/"inter", "all_reduce", "all_gather", "reduce_scatter",
 * "alltoall". Never NULL for a valid enum value. */
const char *calibration_gemm_key(enum calibration_gemm cls);
const char *calibration_precision_key(enum calibration_precision p);
const char *calibration_elementwise_key(enum calibration_elementwise kind);
const char *calibration_link_key(enum calibration_link link);
const char *calibration_collective_key(enum calibration_collective kind);

/* The collective named key ("all_reduce", ...); false if none is. */
bool calibration_collective_from_key(const char *key,
                                     enum calibration_collective *out);

/*
 * Writes the section name of the curve (link, kind) into buf, e.g.
 * "network_intra_all_reduce". Returns false if size is too small.
 */
bool calibration_network_section(enum calibration_link link,
                                 enum calibration_collective kind,
                                 char *buf,
                                 size_t size);

#endif
