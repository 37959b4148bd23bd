/*
 * calibration_schema: the calibration file's keys: its schema (every
 * section and key with its type, range, unit, default and meaning) and
 * the words of its kernel classes, precisions, links and collectives,
 * each list written once (GEMM_CLASSES, LINKS, COLLECTIVES below) and the
 * sections named after them derived from it. Loading and checking the
 * values is calibration.c's; the lookups read them.
 */
#include "calibration.h"

#include <stdio.h>
#include <string.h>

#define OFF(member) offsetof(struct calibration_spec, member)
#define TEXT        DATAFILE_TEXT_MAX

/* The least GEMM or attention rate, and why (data/README.md says it). */
#define RATE_WHY                                                              \
    "at least 0.1: a one-token GEMM does 1 FLOP per weight byte, 0.1 "        \
    "TFLOP/s on the least HBM a hardware file takes (0.1 TB/s); at most the " \
    "hardware's peak"

/* The least measured bandwidth of a memory-bound kernel, and why. */
#define TBPS_WHY                                                              \
    "at least 0.01, a tenth of the least HBM a hardware file takes; at most " \
    "the hardware's HBM peak"

/* The GEMM classes, each with its section's word (gemm_<word>). */
#define GEMM_CLASSES(X)                            \
    X(CALIBRATION_GEMM_ATTN_PROJ, "attn_proj")     \
    X(CALIBRATION_GEMM_DENSE_UP, "dense_up")       \
    X(CALIBRATION_GEMM_DENSE_DOWN, "dense_down")   \
    X(CALIBRATION_GEMM_EXPERT_UP, "expert_up")     \
    X(CALIBRATION_GEMM_EXPERT_DOWN, "expert_down") \
    X(CALIBRATION_GEMM_HEAD, "head")

/* The links, each with its word (network_<link>_<collective>). */
#define LINKS(X, ...)                               \
    X(CALIBRATION_LINK_INTRA, "intra", __VA_ARGS__) \
    X(CALIBRATION_LINK_INTER, "inter", __VA_ARGS__)

/* The collectives, each with its key word and its name in a sentence. */
#define COLLECTIVES(X, ...)                                            \
    X(CALIBRATION_ALL_REDUCE, "all_reduce", "all-reduce", __VA_ARGS__) \
    X(CALIBRATION_ALL_GATHER, "all_gather", "all-gather", __VA_ARGS__) \
    X(CALIBRATION_REDUCE_SCATTER, "reduce_scatter", "reduce-scatter",  \
      __VA_ARGS__)                                                     \
    X(CALIBRATION_ALLTOALL, "alltoall", "all-to-all", __VA_ARGS__)

#define GEMM_KEY(c, word)                [c] = word,
#define LINK_KEY(l, word, unused)        [l] = word,
#define COLL_KEY(c, word, words, unused) [c] = word,
static const char *const gemm_keys[CALIBRATION_GEMM_COUNT] = {
    GEMM_CLASSES(GEMM_KEY)};
static const char *const link_keys[CALIBRATION_LINK_COUNT] = {
    LINKS(LINK_KEY, 0)};
static const char *const coll_keys[CALIBRATION_COLLECTIVE_COUNT] = {
    COLLECTIVES(COLL_KEY, 0)};
#undef GEMM_KEY
#undef LINK_KEY
#undef COLL_KEY
static const char *const precision_keys[CALIBRATION_PRECISION_COUNT] =
    {[CALIBRATION_BF16] = "bf16", [CALIBRATION_FP8] = "fp8"};
static const char *const ew_keys[CALIBRATION_EW_COUNT] = {
    [CALIBRATION_EW_COPY] = "copy",
    [CALIBRATION_EW_READ] = "read",
    [CALIBRATION_EW_NORM] = "norm",
    [CALIBRATION_EW_ACTIVATION] = "activation"};

/* clang-format off */
/* Three fields per GEMM class: its M list and a rate list per precision. */
#define GEMM_FIELDS(c, word)                                                  \
    {.section = "gemm_" word, .key = "m_tokens", .type = DATAFILE_STRING, .offset = OFF(gemm[c].m_tokens), .size = TEXT, .min = 1, .max = 1e9, .def = "", .unit = "tokens", .help = "GEMM rows M measured, whole, ascending (empty: class not measured)"}, \
    {.section = "gemm_" word, .key = "bf16_tflops", .type = DATAFILE_STRING, .offset = OFF(gemm[c].bf16_tflops), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .def = "", .unit = "TFLOP/s", .help = "achieved BF16 rate at each M (required with m_tokens; " RATE_WHY ")"}, \
    {.section = "gemm_" word, .key = "fp8_tflops", .type = DATAFILE_STRING, .offset = OFF(gemm[c].fp8_tflops), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .def = "", .unit = "TFLOP/s", .help = "achieved FP8 rate at each M (empty: not measured; " RATE_WHY ")"},

/* A collective's share of the hardware's IB rate. */
#define IB_SHARE_FIELD(c, word, words, unused)                                \
    {.section = "network", .key = word "_ib_share", .type = DATAFILE_DOUBLE, .offset = OFF(nccl_ib_share[c]), .min = 0.1, .max = 1, .def = "1", .help = "share of the hardware file's IB rate (ib_gbps) NCCL's " words " reaches over InfiniBand at its largest messages, (0.1, 1] (1: the hardware's rate is NCCL's)"},

/* Four fields per network curve: a collective over a link. */
#define NET_FIELDS(c, word, words, l, link)                                   \
    {.section = "network_" link "_" word, .key = "bytes", .type = DATAFILE_STRING, .offset = OFF(net[l][c].bytes), .size = TEXT, .min = 1, .max = 1e15, .def = "", .unit = "B", .help = "nccl-tests message sizes, ascending (empty: no curve; at most 1e15, more than any GPU holds)"}, \
    {.section = "network_" link "_" word, .key = "busbw_gbps", .type = DATAFILE_STRING, .offset = OFF(net[l][c].busbw_gbps), .size = TEXT, .min = 1e-6, .max = 1e6, .def = "", .unit = "GB/s", .help = "nccl-tests out-of-place bus bandwidth at each size (at least 1e-6: its 8-byte messages run near 1e-3)"}, \
    {.section = "network_" link "_" word, .key = "ranks", .type = DATAFILE_INT, .offset = OFF(net[l][c].ranks), .max = 1e7, .def = "0", .help = "GPUs in the measured collective (0: unknown)"}, \
    {.section = "network_" link "_" word, .key = "nodes", .type = DATAFILE_INT, .offset = OFF(net[l][c].nodes), .max = 1e6, .def = "0", .help = "nodes the collective spanned (0: unknown)"},
#define NET_FIELDS_OF_LINK(l, link, unused) COLLECTIVES(NET_FIELDS, l, link)

static const struct datafile_field fields[] = {
    {.section = "calibration", .key = "gpu", .type = DATAFILE_STRING, .offset = OFF(gpu), .size = 128, .required = true, .help = "GPU the measurements ran on, as the driver names it"},
    {.section = "calibration", .key = "hardware_gpu", .type = DATAFILE_STRING, .offset = OFF(hardware_gpu), .size = 128, .required = true, .help = "the gpu.name of the hardware files these rates are for: with a hardware file that names another GPU the calibration is refused, as it is when a rate is above that GPU's peak"},
    {.section = "calibration", .key = "date", .type = DATAFILE_STRING, .offset = OFF(date), .size = 32, .required = true, .help = "date of the measurements (YYYY-MM-DD)"},
    {.section = "calibration", .key = "driver", .type = DATAFILE_STRING, .offset = OFF(driver), .size = 64, .def = "", .help = "NVIDIA driver version"},
    {.section = "calibration", .key = "software", .type = DATAFILE_STRING, .offset = OFF(software), .size = TEXT, .def = "", .help = "framework and library versions (PyTorch, CUDA, cuBLAS)"},
    {.section = "calibration", .key = "derived_from", .type = DATAFILE_STRING, .offset = OFF(derived_from), .size = TEXT, .def = "", .help = "for a derived file: the measured file and the assumption"},
    {.section = "calibration", .key = "validation_group", .type = DATAFILE_STRING, .offset = OFF(validation_group), .size = 64, .def = "", .help = "the calibrations whose published runs (data/validation) check this one's rates: files whose rates are the same measurements on the same SMs name one group (a derived file whose rates are scaled has its own); empty: its own, by its gpu. An expected step's range is as wide as its group's runs say (docs/model.md, the expected step's range)"},
    GEMM_CLASSES(GEMM_FIELDS)
    {.section = "attention_kernel", .key = "head_dims", .type = DATAFILE_STRING, .offset = OFF(head_dims), .size = TEXT, .min = 1, .max = 1e4, .required = true, .help = "head dimensions measured, ascending"},
    {.section = "attention_kernel", .key = "v_head_dims", .type = DATAFILE_STRING, .offset = OFF(v_head_dims), .size = TEXT, .min = 1, .max = 1e4, .def = "", .help = "value (v) head width of the kernel measured at each head dimension, where it is not the q/k width (MLA: v 128 at q/k 192; empty: the same as head_dims)"},
    {.section = "attention_kernel", .key = "fwd_tflops", .type = DATAFILE_STRING, .offset = OFF(fwd_tflops), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .required = true, .unit = "TFLOP/s", .help = "forward attention rate at each head dimension (at least 0.1, as a GEMM's; at most the hardware's BF16 peak)"},
    {.section = "attention_kernel", .key = "fwd_bwd_tflops", .type = DATAFILE_STRING, .offset = OFF(fwd_bwd_tflops), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .required = true, .unit = "TFLOP/s", .help = "forward + backward rate at each head dimension (as fwd_tflops)"},
    {.section = "attention_kernel", .key = "bwd_flops_ratio", .type = DATAFILE_DOUBLE, .offset = OFF(bwd_flops_ratio), .min = 1, .max = 5, .def = "2.5", .help = "backward FLOPs per forward FLOP in the rates' counting (at least 1: the backward pass takes the gradient of both operands of each forward product; FlashAttention counts 2.5)"},
    {.section = "attention_kernel", .key = "seq_len", .type = DATAFILE_DOUBLE, .offset = OFF(attn_seq_len), .max = 1e8, .def = "0", .unit = "tokens", .help = "sequence length of the measured rates, causal (0: not said; [attention_length] then cannot scale them)"},
    {.section = "attention_length", .key = "seq_lens", .type = DATAFILE_STRING, .offset = OFF(len_seqs), .size = TEXT, .min = 1, .max = 1e8, .def = "", .unit = "tokens", .help = "sequence lengths of a published attention benchmark, ascending (empty: the measured rates hold at every length and mask)"},
    {.section = "attention_length", .key = "causal_tflops", .type = DATAFILE_STRING, .offset = OFF(len_causal), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .def = "", .unit = "TFLOP/s", .help = "the benchmark's rate with a causal mask at each length: what scales the measured (causal) rates to another length"},
    {.section = "attention_length", .key = "full_tflops", .type = DATAFILE_STRING, .offset = OFF(len_full), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .def = "", .unit = "TFLOP/s", .help = "the benchmark's rate without a mask at each length: the full blocks of a context-parallel ring, over its causal rate at the measured length"},
    {.section = "attention_length", .key = "bwd_tflops", .type = DATAFILE_STRING, .offset = OFF(len_bwd), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .def = "", .unit = "TFLOP/s", .help = "the benchmark's backward rate (unmasked) at each length: what FlashAttention-2's backward bars are set against (with the flash2_* keys, all four or none)"},
    {.section = "attention_length", .key = "flash2_causal_tflops", .type = DATAFILE_STRING, .offset = OFF(len_f2_causal), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .def = "", .unit = "TFLOP/s", .help = "FlashAttention-2's forward rate with a causal mask at each length in the same benchmark: a stack whose attention_kernel is flash2 runs the measured rates at FlashAttention-2's over the benchmark's kernel's (empty: no FlashAttention-2 bars)"},
    {.section = "attention_length", .key = "flash2_full_tflops", .type = DATAFILE_STRING, .offset = OFF(len_f2_full), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .def = "", .unit = "TFLOP/s", .help = "FlashAttention-2's forward rate without a mask at each length, beside full_tflops"},
    {.section = "attention_length", .key = "flash2_bwd_tflops", .type = DATAFILE_STRING, .offset = OFF(len_f2_bwd), .size = TEXT, .min = CALIBRATION_RATE_MIN, .max = 1e6, .def = "", .unit = "TFLOP/s", .help = "FlashAttention-2's backward rate (unmasked) at each length, beside bwd_tflops"},
    {.section = "elementwise", .key = "copy_tbps", .type = DATAFILE_DOUBLE, .offset = OFF(ew_tbps[CALIBRATION_EW_COPY]), .min = CALIBRATION_TBPS_MIN, .max = 1e3, .required = true, .unit = "TB/s", .help = "device-to-device copy, bytes read + written (" TBPS_WHY ")"},
    {.section = "elementwise", .key = "read_tbps", .type = DATAFILE_DOUBLE, .offset = OFF(ew_tbps[CALIBRATION_EW_READ]), .max = 1e3, .def = "0", .unit = "TB/s", .help = "read-only reduction (0: not measured; else as copy_tbps)"},
    {.section = "elementwise", .key = "norm_tbps", .type = DATAFILE_DOUBLE, .offset = OFF(ew_tbps[CALIBRATION_EW_NORM]), .max = 1e3, .def = "0", .unit = "TB/s", .help = "RMSNorm/LayerNorm forward (0: not measured; else as copy_tbps)"},
    {.section = "elementwise", .key = "activation_tbps", .type = DATAFILE_DOUBLE, .offset = OFF(ew_tbps[CALIBRATION_EW_ACTIVATION]), .max = 1e3, .def = "0", .unit = "TB/s", .help = "SwiGLU/activation forward (0: not measured; else as copy_tbps)"},
    {.section = "elementwise", .key = "router_us", .type = DATAFILE_DOUBLE, .offset = OFF(router_us), .max = 1e6, .def = "0", .unit = "us", .help = "router score function + top-k (0: not measured; else at least 1: a kernel launch alone takes microseconds)"},
    {.section = "elementwise", .key = "router_tokens", .type = DATAFILE_DOUBLE, .offset = OFF(router_tokens), .max = 1e9, .def = "0", .unit = "tokens", .help = "tokens of the router measurement (0, or at least 1 with router_us)"},
    {.section = "scan", .key = "linear_fwd_tflops", .type = DATAFILE_DOUBLE, .offset = OFF(scan_tflops[CALIBRATION_SCAN_LINEAR]), .max = 1e6, .def = "0", .unit = "TFLOP/s", .help = "Gated DeltaNet's chunked delta rule, forward, over the FLOPs docs/model.md counts for it (0: not measured: the attention kernel's forward rate at its head widths; else at least 0.1)"},
    {.section = "scan", .key = "ssd_fwd_tflops", .type = DATAFILE_DOUBLE, .offset = OFF(scan_tflops[CALIBRATION_SCAN_SSD]), .max = 1e6, .def = "0", .unit = "TFLOP/s", .help = "Mamba-2's chunked SSD scan, forward, over the FLOPs docs/model.md counts for it (0: not measured, as linear_fwd_tflops)"},
    {.section = "clock", .key = "burst_tflops", .type = DATAFILE_DOUBLE, .offset = OFF(burst_tflops), .min = 1, .max = 1e6, .required = true, .unit = "TFLOP/s", .help = "GEMM rate in the first ~100 ms of a long run (at least 1, as the hardware file's rates; at most the hardware's peak)"},
    {.section = "clock", .key = "burst_s", .type = DATAFILE_DOUBLE, .offset = OFF(burst_s), .max = 60, .def = "0", .unit = "s", .help = "how long the burst rate held before the power cap lowered the clock: compute stretches shorter than this run at the burst rate (0: not measured)"},
    {.section = "clock", .key = "sustained_tflops", .type = DATAFILE_DOUBLE, .offset = OFF(sustained_tflops), .min = 1, .max = 1e6, .required = true, .unit = "TFLOP/s", .help = "the same GEMMs once clock and power settled (at least 1, as burst_tflops)"},
    {.section = "clock", .key = "run_s", .type = DATAFILE_DOUBLE, .offset = OFF(run_s), .min = 1e-6, .max = 1e6, .required = true, .unit = "s", .help = "length of the sustained run (at least 1e-6: one kernel)"},
    {.section = "fp8_scaling", .key = "fine_grained_factor", .type = DATAFILE_DOUBLE, .offset = OFF(fp8_fine_factor), .min = 0.1, .max = 1, .def = "1", .help = "rate of an FP8 GEMM with fine-grained (per-row or per-block) scales over one with a per-tensor scale, as the gemm tables measure it"},
    {.section = "fp8_scaling", .key = "row_factor", .type = DATAFILE_DOUBLE, .offset = OFF(fp8_row_factor), .max = 1, .def = "0", .help = "as fine_grained_factor, for one scale per row (fp8.scaling = row); 0: fine_grained_factor"},
    {.section = "fp8_scaling", .key = "block_factor", .type = DATAFILE_DOUBLE, .offset = OFF(fp8_block_factor), .max = 1, .def = "0", .help = "as fine_grained_factor, for 1x128 activation tiles and 128x128 weight blocks (fp8.scaling = block, DeepSeek-V3's recipe); 0: fine_grained_factor"},
    {.section = "fp8_scaling", .key = "fine_grained_casts", .type = DATAFILE_BOOL, .offset = OFF(fp8_fine_casts), .def = "false", .help = "fine_grained_factor was measured from a trace with the recipe's cast and transpose kernels in it: the expected step adds no cast bytes for a recipe that takes it (false: the factor times the GEMMs alone, or is not measured)"},
    {.section = "fp8_scaling", .key = "row_casts", .type = DATAFILE_BOOL, .offset = OFF(fp8_row_casts), .def = "false", .help = "as fine_grained_casts, for row_factor (true needs a row_factor)"},
    {.section = "fp8_scaling", .key = "block_casts", .type = DATAFILE_BOOL, .offset = OFF(fp8_block_casts), .def = "false", .help = "as fine_grained_casts, for block_factor (true needs a block_factor)"},
    COLLECTIVES(IB_SHARE_FIELD, 0)
    {.section = "clock", .key = "sm_clock_mhz", .type = DATAFILE_DOUBLE, .offset = OFF(sm_clock_mhz), .max = 1e4, .def = "0", .unit = "MHz", .help = "settled SM clock (0: not recorded; else at least 100)"},
    {.section = "clock", .key = "power_w", .type = DATAFILE_DOUBLE, .offset = OFF(power_w), .max = 1e4, .def = "0", .unit = "W", .help = "settled board power (0: not recorded; else at least 10)"},
    {.section = "clock", .key = "power_limit_w", .type = DATAFILE_DOUBLE, .offset = OFF(power_limit_w), .max = 1e4, .def = "0", .unit = "W", .help = "enforced power limit (0: not recorded; else at least 10)"},
    LINKS(NET_FIELDS_OF_LINK, 0)
};
/* clang-format on */

static const struct datafile_schema schema = {.kind = "calibration",
                                              .fields = fields,
                                              .n = sizeof fields /
                                                   sizeof fields[0]};

const struct datafile_schema *calibration_schema(void)
{
    return &schema;
}

/* ---- Names ---- */

const char *calibration_gemm_key(enum calibration_gemm cls)
{
    return gemm_keys[cls];
}

const char *calibration_precision_key(enum calibration_precision p)
{
    return precision_keys[p];
}

const char *calibration_elementwise_key(enum calibration_elementwise kind)
{
    return ew_keys[kind];
}

const char *calibration_link_key(enum calibration_link link)
{
    return link_keys[link];
}

const char *calibration_collective_key(enum calibration_collective kind)
{
    return coll_keys[kind];
}

bool calibration_collective_from_key(const char *key,
                                     enum calibration_collective *out)
{
    size_t i;
    for (i = 0; i < CALIBRATION_COLLECTIVE_COUNT; i++) {
        if (strcmp(key, coll_keys[i]) == 0) {
            *out = (enum calibration_collective)i;
            return true;
        }
    }
    return false;
}

bool calibration_network_section(enum calibration_link link,
                                 enum calibration_collective kind,
                                 char *buf,
                                 size_t size)
{
    int n =
        snprintf(buf, size, "network_%s_%s", link_keys[link], coll_keys[kind]);
    return n >= 0 && (size_t)n < size;
}
