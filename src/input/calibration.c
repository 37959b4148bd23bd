/*
 * calibration: the calibration file's schema, its checks and the lookups.
 *
 * Measured lists (M values, rates, message sizes) are read as text and
 * split here rather than as datafile lists: a datafile list folds equal
 * values together, and two equal measured rates are data, not a duplicate.
 */
#include "calibration.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define OFF(member) offsetof(struct calibration_spec, member)
#define TEXT        DATAFILE_TEXT_MAX

/* The least GEMM or attention rate, and why (data/README.md says it). */
#define RATE_MIN 0.1
#define RATE_WHY                                                              \
    "at least 0.1: a one-token GEMM does 1 FLOP per weight byte, 0.1 "        \
    "TFLOP/s on the least HBM a hardware file takes (0.1 TB/s); at most the " \
    "hardware's peak"

/* The least measured bandwidth of a memory-bound kernel, and why. */
#define TBPS_MIN 0.01
#define TBPS_WHY                                                              \
    "at least 0.01, a tenth of the least HBM a hardware file takes; at most " \
    "the hardware's HBM peak"

static const char *const gemm_keys[CALIBRATION_GEMM_COUNT] = {
    "attn_proj", "dense_up", "dense_down", "expert_up", "expert_down", "head"};
static const char *const precision_keys[CALIBRATION_PRECISION_COUNT] = {"bf16",
                                                                        "fp8"};
static const char *const ew_keys[CALIBRATION_EW_COUNT] = {"copy", "read",
                                                          "norm", "activation"};
static const char *const link_keys[CALIBRATION_LINK_COUNT] = {"intra", "inter"};
static const char *const coll_keys[CALIBRATION_COLLECTIVE_COUNT] = {
    "all_reduce", "all_gather", "reduce_scatter", "alltoall"};

/* Three fields per GEMM class: its M list and a rate list per precision. */
#define GEMM_FIELDS(i, name)                                                  \
    {"gemm_" name,                                                            \
     "m_tokens",                                                              \
     DATAFILE_STRING,                                                         \
     OFF(gemm[i].m_tokens),                                                   \
     TEXT,                                                                    \
     1,                                                                       \
     1e9,                                                                     \
     false,                                                                   \
     false,                                                                   \
     "",                                                                      \
     "tokens",                                                                \
     NULL,                                                                    \
     "GEMM rows M measured, whole, ascending (empty: class not measured)"},   \
        {"gemm_" name,                                                        \
         "bf16_tflops",                                                       \
         DATAFILE_STRING,                                                     \
         OFF(gemm[i].bf16_tflops),                                            \
         TEXT,                                                                \
         RATE_MIN,                                                            \
         1e6,                                                                 \
         false,                                                               \
         false,                                                               \
         "",                                                                  \
         "TFLOP/s",                                                           \
         NULL,                                                                \
         "achieved BF16 rate at each M (required with m_tokens; " RATE_WHY    \
         ")"},                                                                \
    {                                                                         \
        "gemm_" name, "fp8_tflops", DATAFILE_STRING, OFF(gemm[i].fp8_tflops), \
            TEXT, RATE_MIN, 1e6, false, false, "", "TFLOP/s", NULL,           \
            "achieved FP8 rate at each M (empty: not measured; " RATE_WHY ")" \
    }

/* Four fields per network curve. */
#define NET_FIELDS(l, c, section)                                           \
    {section,                                                               \
     "bytes",                                                               \
     DATAFILE_STRING,                                                       \
     OFF(net[l][c].bytes),                                                  \
     TEXT,                                                                  \
     1,                                                                     \
     1e15,                                                                  \
     false,                                                                 \
     false,                                                                 \
     "",                                                                    \
     "B",                                                                   \
     NULL,                                                                  \
     "nccl-tests message sizes, ascending (empty: no curve; at most 1e15, " \
     "more than any GPU holds)"},                                           \
        {section,                                                           \
         "busbw_gbps",                                                      \
         DATAFILE_STRING,                                                   \
         OFF(net[l][c].busbw_gbps),                                         \
         TEXT,                                                              \
         1e-6,                                                              \
         1e6,                                                               \
         false,                                                             \
         false,                                                             \
         "",                                                                \
         "GB/s",                                                            \
         NULL,                                                              \
         "nccl-tests out-of-place bus bandwidth at each size (at least "    \
         "1e-6: its 8-byte messages run near 1e-3)"},                       \
        {section,                                                           \
         "ranks",                                                           \
         DATAFILE_INT,                                                      \
         OFF(net[l][c].ranks),                                              \
         0,                                                                 \
         0,                                                                 \
         1e7,                                                               \
         false,                                                             \
         false,                                                             \
         "0",                                                               \
         "",                                                                \
         NULL,                                                              \
         "GPUs in the measured collective (0: "                             \
         "unknown)"},                                                       \
    {                                                                       \
        section, "nodes", DATAFILE_INT, OFF(net[l][c].nodes), 0, 0, 1e6,    \
            false, false, "0", "", NULL,                                    \
            "nodes the collective spanned (0: "                             \
            "unknown)"                                                      \
    }

/* clang-format off */
static const struct datafile_field fields[] = {
    {"calibration", "gpu", DATAFILE_STRING, OFF(gpu), 128, 0, 0, false, true, NULL, "", NULL, "GPU the measurements ran on, as the driver names it"},
    {"calibration", "hardware_gpu", DATAFILE_STRING, OFF(hardware_gpu), 128, 0, 0, false, true, NULL, "", NULL, "the gpu.name of the hardware files these rates are for: with a hardware file that names another GPU the calibration is refused, as it is when a rate is above that GPU's peak"},
    {"calibration", "date", DATAFILE_STRING, OFF(date), 32, 0, 0, false, true, NULL, "", NULL, "date of the measurements (YYYY-MM-DD)"},
    {"calibration", "driver", DATAFILE_STRING, OFF(driver), 64, 0, 0, false, false, "", "", NULL, "NVIDIA driver version"},
    {"calibration", "software", DATAFILE_STRING, OFF(software), TEXT, 0, 0, false, false, "", "", NULL, "framework and library versions (PyTorch, CUDA, cuBLAS)"},
    {"calibration", "derived_from", DATAFILE_STRING, OFF(derived_from), TEXT, 0, 0, false, false, "", "", NULL, "for a derived file: the measured file and the assumption"},
    GEMM_FIELDS(0, "attn_proj"),
    GEMM_FIELDS(1, "dense_up"),
    GEMM_FIELDS(2, "dense_down"),
    GEMM_FIELDS(3, "expert_up"),
    GEMM_FIELDS(4, "expert_down"),
    GEMM_FIELDS(5, "head"),
    {"attention_kernel", "head_dims", DATAFILE_STRING, OFF(head_dims), TEXT, 1, 1e4, false, true, NULL, "", NULL, "head dimensions measured, ascending"},
    {"attention_kernel", "v_head_dims", DATAFILE_STRING, OFF(v_head_dims), TEXT, 1, 1e4, false, false, "", "", NULL, "value (v) head width of the kernel measured at each head dimension, where it is not the q/k width (MLA: v 128 at q/k 192; empty: the same as head_dims)"},
    {"attention_kernel", "fwd_tflops", DATAFILE_STRING, OFF(fwd_tflops), TEXT, RATE_MIN, 1e6, false, true, NULL, "TFLOP/s", NULL, "forward attention rate at each head dimension (at least 0.1, as a GEMM's; at most the hardware's BF16 peak)"},
    {"attention_kernel", "fwd_bwd_tflops", DATAFILE_STRING, OFF(fwd_bwd_tflops), TEXT, RATE_MIN, 1e6, false, true, NULL, "TFLOP/s", NULL, "forward + backward rate at each head dimension (as fwd_tflops)"},
    {"attention_kernel", "bwd_flops_ratio", DATAFILE_DOUBLE, OFF(bwd_flops_ratio), 0, 1, 5, false, false, "2.5", "", NULL, "backward FLOPs per forward FLOP in the rates' counting (at least 1: the backward pass takes the gradient of both operands of each forward product; FlashAttention counts 2.5)"},
    {"attention_kernel", "seq_len", DATAFILE_DOUBLE, OFF(attn_seq_len), 0, 0, 1e8, false, false, "0", "tokens", NULL, "sequence length of the measured rates, causal (0: not said; [attention_length] then cannot scale them)"},
    {"attention_length", "seq_lens", DATAFILE_STRING, OFF(len_seqs), TEXT, 1, 1e8, false, false, "", "tokens", NULL, "sequence lengths of a published attention benchmark, ascending (empty: the measured rates hold at every length and mask)"},
    {"attention_length", "causal_tflops", DATAFILE_STRING, OFF(len_causal), TEXT, RATE_MIN, 1e6, false, false, "", "TFLOP/s", NULL, "the benchmark's rate with a causal mask at each length: what scales the measured (causal) rates to another length"},
    {"attention_length", "full_tflops", DATAFILE_STRING, OFF(len_full), TEXT, RATE_MIN, 1e6, false, false, "", "TFLOP/s", NULL, "the benchmark's rate without a mask at each length: the full blocks of a context-parallel ring, over its causal rate at the measured length"},
    {"elementwise", "copy_tbps", DATAFILE_DOUBLE, OFF(ew_tbps[CALIBRATION_EW_COPY]), 0, TBPS_MIN, 1e3, false, true, NULL, "TB/s", NULL, "device-to-device copy, bytes read + written (" TBPS_WHY ")"},
    {"elementwise", "read_tbps", DATAFILE_DOUBLE, OFF(ew_tbps[CALIBRATION_EW_READ]), 0, 0, 1e3, false, false, "0", "TB/s", NULL, "read-only reduction (0: not measured; else as copy_tbps)"},
    {"elementwise", "norm_tbps", DATAFILE_DOUBLE, OFF(ew_tbps[CALIBRATION_EW_NORM]), 0, 0, 1e3, false, false, "0", "TB/s", NULL, "RMSNorm/LayerNorm forward (0: not measured; else as copy_tbps)"},
    {"elementwise", "activation_tbps", DATAFILE_DOUBLE, OFF(ew_tbps[CALIBRATION_EW_ACTIVATION]), 0, 0, 1e3, false, false, "0", "TB/s", NULL, "SwiGLU/activation forward (0: not measured; else as copy_tbps)"},
    {"elementwise", "router_us", DATAFILE_DOUBLE, OFF(router_us), 0, 0, 1e6, false, false, "0", "us", NULL, "router score function + top-k (0: not measured; else at least 1: a kernel launch alone takes microseconds)"},
    {"elementwise", "router_tokens", DATAFILE_DOUBLE, OFF(router_tokens), 0, 0, 1e9, false, false, "0", "tokens", NULL, "tokens of the router measurement (0, or at least 1 with router_us)"},
    {"clock", "burst_tflops", DATAFILE_DOUBLE, OFF(burst_tflops), 0, 1, 1e6, false, true, NULL, "TFLOP/s", NULL, "GEMM rate in the first ~100 ms of a long run (at least 1, as the hardware file's rates; at most the hardware's peak)"},
    {"clock", "burst_s", DATAFILE_DOUBLE, OFF(burst_s), 0, 0, 60, false, false, "0", "s", NULL, "how long the burst rate held before the power cap lowered the clock: compute stretches shorter than this run at the burst rate (0: not measured)"},
    {"clock", "sustained_tflops", DATAFILE_DOUBLE, OFF(sustained_tflops), 0, 1, 1e6, false, true, NULL, "TFLOP/s", NULL, "the same GEMMs once clock and power settled (at least 1, as burst_tflops)"},
    {"clock", "run_s", DATAFILE_DOUBLE, OFF(run_s), 0, 1e-6, 1e6, false, true, NULL, "s", NULL, "length of the sustained run (at least 1e-6: one kernel)"},
    {"fp8_scaling", "fine_grained_factor", DATAFILE_DOUBLE, OFF(fp8_fine_factor), 0, 0.1, 1, false, false, "1", "", NULL, "rate of an FP8 GEMM with fine-grained (per-row or per-block) scales over one with a per-tensor scale, as the gemm tables measure it"},
    {"fp8_scaling", "row_factor", DATAFILE_DOUBLE, OFF(fp8_row_factor), 0, 0, 1, false, false, "0", "", NULL, "as fine_grained_factor, for one scale per row (fp8.scaling = row); 0: fine_grained_factor"},
    {"fp8_scaling", "block_factor", DATAFILE_DOUBLE, OFF(fp8_block_factor), 0, 0, 1, false, false, "0", "", NULL, "as fine_grained_factor, for 1x128 activation tiles and 128x128 weight blocks (fp8.scaling = block, DeepSeek-V3's recipe); 0: fine_grained_factor"},
    {"fp8_scaling", "fine_grained_casts", DATAFILE_BOOL, OFF(fp8_fine_casts), 0, 0, 0, false, false, "false", "", NULL, "fine_grained_factor was measured from a trace with the recipe's cast and transpose kernels in it: the expected step adds no cast bytes for a recipe that takes it (false: the factor times the GEMMs alone, or is not measured)"},
    {"fp8_scaling", "row_casts", DATAFILE_BOOL, OFF(fp8_row_casts), 0, 0, 0, false, false, "false", "", NULL, "as fine_grained_casts, for row_factor (true needs a row_factor)"},
    {"fp8_scaling", "block_casts", DATAFILE_BOOL, OFF(fp8_block_casts), 0, 0, 0, false, false, "false", "", NULL, "as fine_grained_casts, for block_factor (true needs a block_factor)"},
    {"network", "all_reduce_ib_share", DATAFILE_DOUBLE, OFF(nccl_ib_share[CALIBRATION_ALL_REDUCE]), 0, 0.1, 1, false, false, "1", "", NULL, "share of the hardware file's IB rate (ib_gbps) NCCL's all-reduce reaches over InfiniBand at its largest messages, (0.1, 1] (1: the hardware's rate is NCCL's)"},
    {"network", "all_gather_ib_share", DATAFILE_DOUBLE, OFF(nccl_ib_share[CALIBRATION_ALL_GATHER]), 0, 0.1, 1, false, false, "1", "", NULL, "share of the hardware file's IB rate (ib_gbps) NCCL's all-gather reaches over InfiniBand at its largest messages, (0.1, 1] (1: the hardware's rate is NCCL's)"},
    {"network", "reduce_scatter_ib_share", DATAFILE_DOUBLE, OFF(nccl_ib_share[CALIBRATION_REDUCE_SCATTER]), 0, 0.1, 1, false, false, "1", "", NULL, "share of the hardware file's IB rate (ib_gbps) NCCL's reduce-scatter reaches over InfiniBand at its largest messages, (0.1, 1] (1: the hardware's rate is NCCL's)"},
    {"network", "alltoall_ib_share", DATAFILE_DOUBLE, OFF(nccl_ib_share[CALIBRATION_ALLTOALL]), 0, 0.1, 1, false, false, "1", "", NULL, "share of the hardware file's IB rate (ib_gbps) NCCL's all-to-all reaches over InfiniBand at its largest messages, (0.1, 1] (1: the hardware's rate is NCCL's)"},
    {"clock", "sm_clock_mhz", DATAFILE_DOUBLE, OFF(sm_clock_mhz), 0, 0, 1e4, false, false, "0", "MHz", NULL, "settled SM clock (0: not recorded; else at least 100)"},
    {"clock", "power_w", DATAFILE_DOUBLE, OFF(power_w), 0, 0, 1e4, false, false, "0", "W", NULL, "settled board power (0: not recorded; else at least 10)"},
    {"clock", "power_limit_w", DATAFILE_DOUBLE, OFF(power_limit_w), 0, 0, 1e4, false, false, "0", "W", NULL, "enforced power limit (0: not recorded; else at least 10)"},
    NET_FIELDS(0, 0, "network_intra_all_reduce"),
    NET_FIELDS(0, 1, "network_intra_all_gather"),
    NET_FIELDS(0, 2, "network_intra_reduce_scatter"),
    NET_FIELDS(0, 3, "network_intra_alltoall"),
    NET_FIELDS(1, 0, "network_inter_all_reduce"),
    NET_FIELDS(1, 1, "network_inter_all_gather"),
    NET_FIELDS(1, 2, "network_inter_reduce_scatter"),
    NET_FIELDS(1, 3, "network_inter_alltoall"),
};
/* clang-format on */

static const struct datafile_schema schema = {"calibration", fields,
                                              sizeof fields / sizeof fields[0]};

const struct datafile_schema *calibration_schema(void)
{
    return &schema;
}

/* ---- Checks ---- */

/* One problem, at the line of section.key when the file gave it. */
static void bad(const struct calibration *cal,
                struct diag *d,
                enum status st,
                const char *section,
                const char *key,
                const char *problem)
{
    long i = datafile_field_index(calibration_schema(), section, key);
    char where[1200];
    if (i < 0)
        diag_add(d, st, "%s: %s.%s: %s", cal->meta.path, section, key, problem);
    else
        diag_add(
            d, st, "%s: %s",
            datafile_meta_where(&cal->meta, (size_t)i, where, sizeof where),
            problem);
}

/*
 * Splits text into numbers (blanks or commas between them) into v.
 * Returns the count, or -1 with the problem reported: text that is not a
 * number (STATUS_PARSE), too many values, a value outside the schema's
 * range for section.key (min..max, as data/README.md gives it), or not
 * strictly ascending when ascending is set (STATUS_RANGE).
 */
static long parse_numbers(const struct calibration *cal,
                          struct diag *d,
                          const char *section,
                          const char *key,
                          const char *text,
                          double *v,
                          bool integral,
                          bool ascending)
{
    const struct datafile_field *f =
        &fields[datafile_field_index(calibration_schema(), section, key)];
    char word[TEXT];
    char why[TEXT + 80];
    const char *c = text;
    size_t n = 0;
    while (*c) {
        size_t len = 0;
        double x;
        while (*c == ' ' || *c == '\t' || *c == ',')
            c++;
        if (!*c)
            break;
        while (c[len] && c[len] != ' ' && c[len] != '\t' && c[len] != ',')
            len++;
        snprintf(word, sizeof word, "%.*s", (int)len, c);
        c += len;
        if (!datafile_parse_double(word, &x)) {
            snprintf(why, sizeof why,
                     "expected numbers separated by blanks, got \"%s\"", word);
            bad(cal, d, STATUS_PARSE, section, key, why);
            return -1;
        }
        if (n == CALIBRATION_POINTS_MAX) {
            snprintf(why, sizeof why, "more than %d values",
                     CALIBRATION_POINTS_MAX);
            bad(cal, d, STATUS_RANGE, section, key, why);
            return -1;
        }
        if (!(f->min_open ? x > f->min : x >= f->min) || x > f->max) {
            snprintf(why, sizeof why, "expected values in %s%g, %g], got %g",
                     f->min_open ? "(" : "[", f->min, f->max, x);
            bad(cal, d, STATUS_RANGE, section, key, why);
            return -1;
        }
        if (integral && x != floor(x)) {
            snprintf(why, sizeof why, "expected whole numbers, got %g", x);
            bad(cal, d, STATUS_RANGE, section, key, why);
            return -1;
        }
        if (ascending && n > 0 && !(x > v[n - 1])) {
            snprintf(why, sizeof why,
                     "expected strictly ascending values, got %g after %g", x,
                     v[n - 1]);
            bad(cal, d, STATUS_RANGE, section, key, why);
            return -1;
        }
        v[n++] = x;
    }
    return (long)n;
}

/* A rate list: positive, as many values as the key list (want). */
static bool parse_rates(const struct calibration *cal,
                        struct diag *d,
                        const char *section,
                        const char *key,
                        const char *text,
                        double *v,
                        size_t want,
                        const char *key_list)
{
    char why[160];
    long n = parse_numbers(cal, d, section, key, text, v, false, false);
    if (n < 0)
        return false;
    if ((size_t)n != want) {
        snprintf(why, sizeof why, "%ld values for the %zu of %s.%s", n, want,
                 section, key_list);
        bad(cal, d, STATUS_RANGE, section, key, why);
        return false;
    }
    return true;
}

/* Whether a text value holds anything but separators. */
static bool given(const char *text)
{
    return strspn(text, " \t,") != strlen(text);
}

static void check_gemm(struct calibration *cal, struct diag *d)
{
    char section[64];
    size_t i;
    for (i = 0; i < CALIBRATION_GEMM_COUNT; i++) {
        struct calibration_gemm_table *t = &cal->gemm[i];
        const char *m = cal->spec.gemm[i].m_tokens;
        const char *bf16 = cal->spec.gemm[i].bf16_tflops;
        const char *fp8 = cal->spec.gemm[i].fp8_tflops;
        long n;
        snprintf(section, sizeof section, "gemm_%s", gemm_keys[i]);
        if (!given(m)) {
            if (given(bf16) || given(fp8))
                bad(cal, d, STATUS_RANGE, section,
                    given(bf16) ? "bf16_tflops" : "fp8_tflops",
                    "rates without m_tokens (the M of each rate)");
            continue; /* a class not measured */
        }
        n = parse_numbers(cal, d, section, "m_tokens", m, t->m_tokens, true,
                          true);
        if (n <= 0)
            continue;
        t->n = (size_t)n;
        if (!given(bf16)) {
            bad(cal, d, STATUS_RANGE, section, "m_tokens",
                "M without bf16_tflops (the BF16 rate at each M)");
            continue;
        }
        t->has[CALIBRATION_BF16] =
            parse_rates(cal, d, section, "bf16_tflops", bf16,
                        t->tflops[CALIBRATION_BF16], t->n, "m_tokens");
        if (given(fp8))
            t->has[CALIBRATION_FP8] =
                parse_rates(cal, d, section, "fp8_tflops", fp8,
                            t->tflops[CALIBRATION_FP8], t->n, "m_tokens");
    }
}

/*
 * y at q on the table (x[i], y[i]), linear in ln x (log_x) or in x,
 * held at the nearest end outside it.
 */
static double interp(const double *x,
                     const double *y,
                     size_t n,
                     double q,
                     bool log_x,
                     bool *outside)
{
    size_t i;
    double t;
    if (q <= x[0] || n == 1) {
        if (outside && q != x[0])
            *outside = true;
        return y[0];
    }
    if (q >= x[n - 1]) {
        if (outside && q != x[n - 1])
            *outside = true;
        return y[n - 1];
    }
    i = 1;
    while (x[i] < q) /* stops by x[n - 1], as q < x[n - 1] */
        i++;
    t = log_x ? (log(q) - log(x[i - 1])) / (log(x[i]) - log(x[i - 1]))
              : (q - x[i - 1]) / (x[i] - x[i - 1]);
    return y[i - 1] + t * (y[i] - y[i - 1]);
}

/* [attention_length]: a length list, a causal and a full rate at each,
 * and the measurement's own length to scale from. */
static void check_attention_length(struct calibration *cal, struct diag *d)
{
    struct calibration_attention *a = &cal->attention;
    const char *s = "attention_length";
    const struct calibration_spec *sp = &cal->spec;
    long n;
    size_t i;
    if (!given(sp->len_seqs)) {
        if (given(sp->len_causal) || given(sp->len_full))
            bad(cal, d, STATUS_RANGE, s,
                given(sp->len_causal) ? "causal_tflops" : "full_tflops",
                "rates without seq_lens (the length of each rate)");
        return;
    }
    n = parse_numbers(cal, d, s, "seq_lens", sp->len_seqs, a->len_seq, true,
                      true);
    if (n <= 0)
        return;
    if (!parse_rates(cal, d, s, "causal_tflops", sp->len_causal, a->len_causal,
                     (size_t)n, "seq_lens") ||
        !parse_rates(cal, d, s, "full_tflops", sp->len_full, a->len_full,
                     (size_t)n, "seq_lens"))
        return;
    if (!(sp->attn_seq_len > 0)) {
        bad(cal, d, STATUS_RANGE, s, "seq_lens",
            "a length curve needs attention_kernel.seq_len (the length the "
            "measured rates ran at)");
        return;
    }
    a->len_n = (size_t)n;
    for (i = 0; i < a->len_n; i++)
        a->len_ln[i] = log(a->len_seq[i]);
    a->len_ref = interp(a->len_ln, a->len_causal, a->len_n,
                        log(sp->attn_seq_len), false, NULL);
}

static void check_attention(struct calibration *cal, struct diag *d)
{
    struct calibration_attention *a = &cal->attention;
    const char *s = "attention_kernel";
    double r = cal->spec.bwd_flops_ratio;
    char why[200];
    long n;
    size_t i;
    n = parse_numbers(cal, d, s, "head_dims", cal->spec.head_dims, a->head_dim,
                      true, true);
    if (n == 0)
        bad(cal, d, STATUS_RANGE, s, "head_dims",
            "expected at least one value");
    if (n <= 0)
        return;
    a->n = (size_t)n;
    for (i = 0; i < a->n; i++)
        a->v_head_dim[i] = a->head_dim[i];
    if (given(cal->spec.v_head_dims) &&
        !parse_rates(cal, d, s, "v_head_dims", cal->spec.v_head_dims,
                     a->v_head_dim, a->n, "head_dims"))
        return;
    if (!parse_rates(cal, d, s, "fwd_tflops", cal->spec.fwd_tflops,
                     a->fwd_tflops, a->n, "head_dims") ||
        !parse_rates(cal, d, s, "fwd_bwd_tflops", cal->spec.fwd_bwd_tflops,
                     a->fwd_bwd_tflops, a->n, "head_dims"))
        return;
    for (i = 0; i < a->n; i++) {
        /* t_b = (1 + r) F / R_fb - F / R_f must be positive. */
        double per_flop = (1 + r) / a->fwd_bwd_tflops[i] - 1 / a->fwd_tflops[i];
        if (!(per_flop > 0)) {
            snprintf(why, sizeof why,
                     "%g at head dim %g leaves no time for the backward pass "
                     "(needs < (1 + bwd_flops_ratio) x fwd_tflops = %g)",
                     a->fwd_bwd_tflops[i], a->head_dim[i],
                     (1 + r) * a->fwd_tflops[i]);
            bad(cal, d, STATUS_RANGE, s, "fwd_bwd_tflops", why);
            return;
        }
        a->bwd_tflops[i] = r / per_flop;
    }
    check_attention_length(cal, d);
}

/*
 * Values where 0 says "not measured" and any other value is a measurement
 * with a physical least (as each one's help in the schema says): a
 * bandwidth of 1e-300 TB/s would make times of 1e300 s, not "unmeasured".
 */
static const struct {
    const char *section, *key;
    size_t offset;
    double least;
} zero_or_least[] = {
    {"elementwise", "read_tbps", OFF(ew_tbps[CALIBRATION_EW_READ]), TBPS_MIN},
    {"elementwise", "norm_tbps", OFF(ew_tbps[CALIBRATION_EW_NORM]), TBPS_MIN},
    {"elementwise", "activation_tbps", OFF(ew_tbps[CALIBRATION_EW_ACTIVATION]),
     TBPS_MIN},
    {"elementwise", "router_us", OFF(router_us), 1},
    {"elementwise", "router_tokens", OFF(router_tokens), 1},
    {"clock", "sm_clock_mhz", OFF(sm_clock_mhz), 100},
    {"clock", "power_w", OFF(power_w), 10},
    {"clock", "power_limit_w", OFF(power_limit_w), 10},
};

static void check_scalars(const struct calibration *cal, struct diag *d)
{
    const struct calibration_spec *s = &cal->spec;
    char why[160];
    size_t i;
    for (i = 0; i < sizeof zero_or_least / sizeof zero_or_least[0]; i++) {
        double v = *(const double *)(const void *)((const char *)s +
                                                   zero_or_least[i].offset);
        if (v != 0 && v < zero_or_least[i].least) {
            snprintf(why, sizeof why,
                     "expected 0 (not measured) or at least %g, got %.15g",
                     zero_or_least[i].least, v);
            bad(cal, d, STATUS_RANGE, zero_or_least[i].section,
                zero_or_least[i].key, why);
        }
    }
    if (s->router_us > 0 && !(s->router_tokens >= 1))
        bad(cal, d, STATUS_RANGE, "elementwise", "router_us",
            "needs router_tokens (>= 1), the tokens it was measured at");
    if (s->sustained_tflops > s->burst_tflops) {
        snprintf(why, sizeof why, "%g is above clock.burst_tflops (%g)",
                 s->sustained_tflops, s->burst_tflops);
        bad(cal, d, STATUS_RANGE, "clock", "sustained_tflops", why);
    }
    if (s->fp8_row_casts && !(s->fp8_row_factor > 0))
        bad(cal, d, STATUS_RANGE, "fp8_scaling", "row_casts",
            "true describes a row_factor the file does not give");
    if (s->fp8_block_casts && !(s->fp8_block_factor > 0))
        bad(cal, d, STATUS_RANGE, "fp8_scaling", "block_casts",
            "true describes a block_factor the file does not give");
    if (s->power_w > 0 && s->power_limit_w > 0 &&
        s->power_w > s->power_limit_w) {
        snprintf(why, sizeof why, "%g is above clock.power_limit_w (%g)",
                 s->power_w, s->power_limit_w);
        bad(cal, d, STATUS_RANGE, "clock", "power_w", why);
    }
}

static void check_network(struct calibration *cal, struct diag *d)
{
    size_t l, c;
    char section[64], why[160];
    for (l = 0; l < CALIBRATION_LINK_COUNT; l++) {
        for (c = 0; c < CALIBRATION_COLLECTIVE_COUNT; c++) {
            struct calibration_curve *cv = &cal->curve[l][c];
            const char *bytes = cal->spec.net[l][c].bytes;
            const char *bw = cal->spec.net[l][c].busbw_gbps;
            bool has_bytes = given(bytes);
            bool has_bw = given(bw);
            long n;
            calibration_network_section((enum calibration_link)l,
                                        (enum calibration_collective)c, section,
                                        sizeof section);
            if (!has_bytes && !has_bw)
                continue;
            if (!has_bytes) {
                bad(cal, d, STATUS_RANGE, section, "busbw_gbps",
                    "rates without bytes (the size of each rate)");
                continue;
            }
            n = parse_numbers(cal, d, section, "bytes", bytes, cv->bytes, false,
                              true);
            if (n <= 0)
                continue;
            cv->n = (size_t)n;
            if (!has_bw) {
                bad(cal, d, STATUS_RANGE, section, "bytes",
                    "sizes without busbw_gbps (the rate at each size)");
                continue;
            }
            if (!parse_rates(cal, d, section, "busbw_gbps", bw, cv->busbw_gbps,
                             cv->n, "bytes"))
                continue;
            cv->ranks = cal->spec.net[l][c].ranks;
            cv->nodes = cal->spec.net[l][c].nodes;
            if (l == CALIBRATION_LINK_INTRA && cv->nodes > 1) {
                snprintf(why, sizeof why,
                         "an intra-node curve spans one node, got %ld",
                         cv->nodes);
                bad(cal, d, STATUS_RANGE, section, "nodes", why);
                continue;
            }
            if (cv->ranks > 0 && cv->nodes > cv->ranks) {
                snprintf(why, sizeof why, "%ld nodes for %ld ranks", cv->nodes,
                         cv->ranks);
                bad(cal, d, STATUS_RANGE, section, "nodes", why);
                continue;
            }
            cv->present = true;
        }
    }
}

/* The checks of a calibration datafile has read (the file's own and
 * against each other); on failure cal is released. */
static enum status checked(struct calibration *cal, struct diag *d)
{
    check_gemm(cal, d);
    check_attention(cal, d);
    check_scalars(cal, d);
    check_network(cal, d);
    diag_finish(d);
    if (d->status != STATUS_OK) {
        calibration_release(cal);
        return d->status;
    }
    return STATUS_OK;
}

enum status calibration_load(const char *path,
                             struct calibration *cal,
                             struct datafile_set *sets,
                             size_t nsets,
                             struct diag *d)
{
    enum status st;
    memset(cal, 0, sizeof *cal);
    st = datafile_load(path, calibration_schema(), &cal->spec, &cal->meta, sets,
                       nsets, d);
    return st != STATUS_OK ? st : checked(cal, d);
}

enum status calibration_load_text(const char *name,
                                  const char *text,
                                  size_t len,
                                  struct calibration *cal,
                                  struct diag *d)
{
    enum status st;
    memset(cal, 0, sizeof *cal);
    st = datafile_load_text(name, text, len, calibration_schema(), &cal->spec,
                            &cal->meta, d);
    return st != STATUS_OK ? st : checked(cal, d);
}

void calibration_release(struct calibration *cal)
{
    if (cal)
        datafile_meta_release(&cal->meta);
}

/* ---- Lookups ---- */

double calibration_gemm_tflops(const struct calibration *cal,
                               enum calibration_gemm cls,
                               enum calibration_precision p,
                               double m_tokens,
                               bool *outside)
{
    const struct calibration_gemm_table *t = &cal->gemm[cls];
    if (!t->has[p] || t->n == 0)
        return 0;
    return interp(t->m_tokens, t->tflops[p], t->n, m_tokens, true, outside);
}

double calibration_attention_tflops(const struct calibration *cal,
                                    enum calibration_attention_pass pass,
                                    double head_dim,
                                    bool *outside)
{
    const struct calibration_attention *a = &cal->attention;
    const double *y = pass == CALIBRATION_ATTN_FWD   ? a->fwd_tflops
                      : pass == CALIBRATION_ATTN_BWD ? a->bwd_tflops
                                                     : a->fwd_bwd_tflops;
    if (a->n == 0)
        return 0;
    return interp(a->head_dim, y, a->n, head_dim, false, outside);
}

/* The measured entry whose kernel had q/k width qk and v width v, or -1. */
static long
attention_entry(const struct calibration_attention *a, double qk, double v)
{
    size_t i;
    for (i = 0; i < a->n; i++)
        if (a->head_dim[i] == qk && a->v_head_dim[i] == v)
            return (long)i;
    return -1;
}

double calibration_attention_s(const struct calibration *cal,
                               enum calibration_attention_pass pass,
                               double qk_dim,
                               double v_dim,
                               double flops)
{
    const struct calibration_attention *a = &cal->attention;
    long i = attention_entry(a, qk_dim, v_dim);
    double qk_share = qk_dim / (qk_dim + v_dim), r_qk, r_v;
    if (a->n == 0 || flops <= 0)
        return 0;
    if (i >= 0 || qk_dim == v_dim)
        return flops /
               (calibration_attention_tflops(cal, pass, qk_dim, NULL) * 1e12);
    r_qk = calibration_attention_tflops(cal, pass, qk_dim, NULL);
    r_v = calibration_attention_tflops(cal, pass, v_dim, NULL);
    return flops * qk_share / (r_qk * 1e12) +
           flops * (1 - qk_share) / (r_v * 1e12);
}

void calibration_attention_length_factors(const struct calibration *cal,
                                          double seq,
                                          double *causal,
                                          double *full)
{
    const struct calibration_attention *a = &cal->attention;
    double lq;
    *causal = *full = 1;
    if (a->len_n == 0 || !(seq > 0))
        return;
    lq = log(seq);
    /* linear in ln(seq): interpolated on the lengths' logarithms */
    *causal = interp(a->len_ln, a->len_causal, a->len_n, lq, false, NULL) /
              a->len_ref;
    *full =
        interp(a->len_ln, a->len_full, a->len_n, lq, false, NULL) / a->len_ref;
}

double calibration_attention_bwd_ratio(const struct calibration *cal)
{
    return cal->spec.bwd_flops_ratio;
}

double calibration_elementwise_tbps(const struct calibration *cal,
                                    enum calibration_elementwise kind)
{
    double v = cal->spec.ew_tbps[kind];
    return v > 0 ? v : cal->spec.ew_tbps[CALIBRATION_EW_COPY];
}

bool calibration_elementwise_measured(const struct calibration *cal,
                                      enum calibration_elementwise kind)
{
    return cal->spec.ew_tbps[kind] > 0;
}

double calibration_router_s(const struct calibration *cal, double tokens)
{
    const struct calibration_spec *s = &cal->spec;
    double scale;
    if (!(s->router_us > 0))
        return 0;
    scale = tokens > s->router_tokens ? tokens / s->router_tokens : 1;
    return s->router_us * 1e-6 * scale;
}

double calibration_fp8_fine_factor(const struct calibration *cal)
{
    return cal->spec.fp8_fine_factor > 0 ? cal->spec.fp8_fine_factor : 1;
}

/* The factor a recipe with fine-grained scaling takes (its own where
 * measured, else fine_grained_factor's) and whether that factor holds
 * the recipe's casts. */
static void fp8_factor(const struct calibration *cal,
                       int scaling,
                       double *factor,
                       bool *casts)
{
    const struct calibration_spec *s = &cal->spec;
    *factor = calibration_fp8_fine_factor(cal);
    *casts = s->fp8_fine_casts;
    if (scaling == CALIBRATION_FP8_ROW && s->fp8_row_factor > 0) {
        *factor = s->fp8_row_factor;
        *casts = s->fp8_row_casts;
    } else if (scaling == CALIBRATION_FP8_BLOCK && s->fp8_block_factor > 0) {
        *factor = s->fp8_block_factor;
        *casts = s->fp8_block_casts;
    }
}

double calibration_fp8_scaling_factor(const struct calibration *cal,
                                      int scaling)
{
    double factor;
    bool casts;
    if (scaling == CALIBRATION_FP8_TENSOR)
        return 1;
    fp8_factor(cal, scaling, &factor, &casts);
    return factor;
}

bool calibration_fp8_casts_counted(const struct calibration *cal, int scaling)
{
    double factor;
    bool casts;
    if (scaling == CALIBRATION_FP8_TENSOR)
        return true;
    fp8_factor(cal, scaling, &factor, &casts);
    return !casts;
}

double calibration_nccl_ib_share(const struct calibration *cal,
                                 enum calibration_collective kind)
{
    double v = kind >= 0 && kind < CALIBRATION_COLLECTIVE_COUNT
                   ? cal->spec.nccl_ib_share[kind]
                   : 0;
    return v > 0 ? v : 1;
}

double calibration_burst_s(const struct calibration *cal)
{
    return cal->spec.burst_s;
}

double calibration_clock_factor(const struct calibration *cal)
{
    return cal->spec.sustained_tflops / cal->spec.burst_tflops;
}

double calibration_busbw_gbps(const struct calibration *cal,
                              enum calibration_link link,
                              enum calibration_collective kind,
                              double bytes,
                              bool *outside)
{
    const struct calibration_curve *cv = &cal->curve[link][kind];
    size_t n = cv->n, i;
    double q, lo, hi, t;
    if (!cv->present || !(bytes > 0))
        return 0;
    if (bytes < cv->bytes[0]) {
        /* Latency-bound: the time of the smallest size is the floor. */
        if (outside)
            *outside = true;
        return cv->busbw_gbps[0] * bytes / cv->bytes[0];
    }
    /* Linear in ln bytes and ln busbw, held at the ends (interp on the
     * logs of the table), taking the logs of the bracketing points only:
     * this runs per collective per plan. */
    q = log(bytes);
    lo = log(cv->bytes[0]);
    if (q <= lo || n == 1) {
        if (outside && q != lo)
            *outside = true;
        return exp(log(cv->busbw_gbps[0]));
    }
    hi = log(cv->bytes[n - 1]);
    if (q >= hi) {
        if (outside && q != hi)
            *outside = true;
        return exp(log(cv->busbw_gbps[n - 1]));
    }
    /* the first i >= 1 with ln bytes[i] >= q: ln is monotone, so the
     * first bytes[i] >= bytes is it or follows points of the same log */
    i = 1;
    while (i < n - 1 && cv->bytes[i] < bytes)
        i++;
    while (i > 1 && log(cv->bytes[i - 1]) >= q)
        i--;
    lo = log(cv->bytes[i - 1]);
    hi = log(cv->bytes[i]);
    t = (q - lo) / (hi - lo);
    lo = log(cv->busbw_gbps[i - 1]);
    return exp(lo + t * (log(cv->busbw_gbps[i]) - lo));
}

const struct calibration_curve *
calibration_curve_get(const struct calibration *cal,
                      enum calibration_link link,
                      enum calibration_collective kind)
{
    const struct calibration_curve *cv = &cal->curve[link][kind];
    return cv->present ? cv : NULL;
}

double calibration_max_tflops(const struct calibration *cal,
                              enum calibration_precision p)
{
    double best = 0;
    size_t i, j;
    for (i = 0; i < CALIBRATION_GEMM_COUNT; i++)
        for (j = 0; cal->gemm[i].has[p] && j < cal->gemm[i].n; j++)
            best = fmax(best, cal->gemm[i].tflops[p][j]);
    for (j = 0; p == CALIBRATION_BF16 && j < cal->attention.n; j++) {
        best = fmax(best, cal->attention.fwd_tflops[j]);
        best = fmax(best, cal->attention.bwd_tflops[j]);
    }
    return best;
}

double calibration_max_tbps(const struct calibration *cal)
{
    double best = 0;
    size_t i;
    for (i = 0; i < CALIBRATION_EW_COUNT; i++)
        best = fmax(best, cal->spec.ew_tbps[i]);
    return best;
}

/* ---- Against the hardware it is used with ---- */

bool calibration_for_gpu(const struct calibration *cal,
                         const struct hardware *hw)
{
    return strcmp(cal->spec.hardware_gpu, hw->spec.gpu_name) == 0;
}

/* hw's section.key at its line, "a100.ini:5: gpu.name", or "a100.ini:
 * --set gpu.name" where a --set gave it, into buf. */
static void hw_key(const struct hardware *hw,
                   const char *section,
                   const char *key,
                   char *buf,
                   size_t size)
{
    long i = datafile_field_index(hardware_schema(), section, key);
    long line = i < 0 ? 0 : hw->meta.line[i];
    if (line > 0)
        diag_snprintf(buf, size, "%s:%ld: %s.%s", hw->meta.path, line, section,
                      key);
    else if (i >= 0 && hw->meta.set_arg[i]) /* "= value" follows */
        diag_snprintf(buf, size, "%s: --set %s.%s", hw->meta.path, section,
                      key);
    else
        diag_snprintf(buf, size, "%s: %s.%s", hw->meta.path, section, key);
}

/* A rate of cal at section.key above hw's peak at peak_key. */
static void above_peak(const struct calibration *cal,
                       const struct hardware *hw,
                       struct diag *d,
                       const char *section,
                       const char *key,
                       const char *what,
                       double rate,
                       const char *peak_key,
                       double peak)
{
    char where[700], why[900];
    if (rate <= peak)
        return;
    hw_key(hw, "gpu", peak_key, where, sizeof where);
    if (peak > 0)
        diag_snprintf(why, sizeof why,
                      "%s%.6g is above the GPU's peak (%s = %.15g): the "
                      "expected step would beat the speed of light",
                      what, rate, where, peak);
    else
        diag_snprintf(why, sizeof why, "%s%.6g for a GPU without it (%s = 0)",
                      what, rate, where);
    bad(cal, d, STATUS_RANGE, section, key, why);
}

/* A rate of cal at section.key that, at the sustained clock, is above
 * the rate the speed of light prices the same work at (hw's achievable
 * rate at ach_key, times its clock derate): the expected step would then
 * beat the floor. sustained: the rate as the expected step runs it;
 * rate: as the file states it. */
static void above_floor(const struct calibration *cal,
                        const struct hardware *hw,
                        struct diag *d,
                        const char *section,
                        const char *key,
                        const char *what,
                        double rate,
                        double sustained,
                        const char *ach_key,
                        double floor_rate)
{
    char where[700], why[1000];
    if (sustained <= floor_rate * (1 + 1e-12))
        return;
    hw_key(hw, "gpu", ach_key, where, sizeof where);
    diag_snprintf(why, sizeof why,
                  "%s%.6g (%.6g at the sustained clock) is above the rate the "
                  "speed of light takes for it (%s x clock_derate = %.6g): "
                  "the expected step would beat the floor; raise the "
                  "achievable rate to what was measured or lower this one",
                  what, rate, sustained, where, floor_rate);
    bad(cal, d, STATUS_RANGE, section, key, why);
}

/* The largest of n values. */
static double largest(const double *v, size_t n)
{
    double m = 0;
    size_t i;
    for (i = 0; i < n; i++)
        m = fmax(m, v[i]);
    return m;
}

/*
 * The floor (issue 17): the speed of light prices every FLOP at hw's
 * achievable rates times its clock derate and HBM traffic at its
 * achievable bandwidth; the expected step prices the same work at the
 * calibrated rates times the sustained clock factor and HBM at the copy
 * bandwidth. Where no calibrated rate is above the floor's, the expected
 * compute, HBM and optimizer terms are at least the floor's, term by
 * term. Attention is compared at the model's count (3 FLOPs per forward
 * one, model_derive.c): (1 + bwd_flops_ratio) FLOPs in the kernels'
 * count run at fwd_bwd_tflops, that is 3 / (1 + ratio) x fwd_bwd_tflops
 * of the model's.
 */
enum status calibration_check_floor(const struct calibration *cal,
                                    const struct hardware *hw,
                                    struct diag *d)
{
    static const char *const rate_keys[CALIBRATION_PRECISION_COUNT] = {
        "bf16_tflops", "fp8_tflops"};
    static const char *const ach_keys[CALIBRATION_PRECISION_COUNT] = {
        "bf16_achievable_tflops", "fp8_achievable_tflops"};
    const double floor[CALIBRATION_PRECISION_COUNT] = {hw->bf16_flops / 1e12,
                                                       hw->fp8_flops / 1e12};
    const struct calibration_attention *a = &cal->attention;
    double clock = calibration_clock_factor(cal);
    double attn = largest(a->fwd_bwd_tflops, a->n) * 3 /
                  (1 + calibration_attention_bwd_ratio(cal));
    char section[64];
    size_t i, p, lines = d->lines;
    for (i = 0; i < CALIBRATION_GEMM_COUNT; i++) {
        const struct calibration_gemm_table *t = &cal->gemm[i];
        snprintf(section, sizeof section, "gemm_%s", gemm_keys[i]);
        for (p = 0; p < CALIBRATION_PRECISION_COUNT; p++)
            if (t->has[p]) {
                double r = largest(t->tflops[p], t->n);
                above_floor(cal, hw, d, section, rate_keys[p], "", r, r * clock,
                            ach_keys[p], floor[p]);
            }
    }
    above_floor(cal, hw, d, "attention_kernel", "fwd_bwd_tflops",
                "at the model's count of attention FLOPs, ", attn, attn * clock,
                ach_keys[0], floor[0]);
    above_floor(cal, hw, d, "elementwise", "copy_tbps",
                "(the HBM rate of the expected step) ",
                cal->spec.ew_tbps[CALIBRATION_EW_COPY],
                cal->spec.ew_tbps[CALIBRATION_EW_COPY], "hbm_achievable_tbps",
                hw->hbm_bps / 1e12);
    diag_finish(d);
    return d->lines > lines ? STATUS_RANGE : STATUS_OK;
}

enum status calibration_check_hardware(const struct calibration *cal,
                                       const struct hardware *hw,
                                       struct diag *d)
{
    static const char *const rate_keys[CALIBRATION_PRECISION_COUNT] = {
        "bf16_tflops", "fp8_tflops"};
    static const char *const peak_keys[CALIBRATION_PRECISION_COUNT] = {
        "bf16_peak_tflops", "fp8_peak_tflops"};
    const struct hardware_spec *h = &hw->spec;
    const double peaks[CALIBRATION_PRECISION_COUNT] = {h->bf16_peak_tflops,
                                                       h->fp8_peak_tflops};
    const struct calibration_attention *a = &cal->attention;
    char section[64], where[700], why[1000];
    size_t i, p, lines = d->lines;
    if (!calibration_for_gpu(cal, hw)) {
        hw_key(hw, "gpu", "name", where, sizeof where);
        diag_snprintf(why, sizeof why,
                      "\"%s\" is not the GPU of the hardware it is used with "
                      "(%s = \"%s\"): use that GPU's calibration, or "
                      "measure it (scripts/measure-gpu)",
                      cal->spec.hardware_gpu, where, h->gpu_name);
        bad(cal, d, STATUS_RANGE, "calibration", "hardware_gpu", why);
        diag_finish(d);
        return STATUS_RANGE; /* its rates are another GPU's: not compared */
    }
    for (i = 0; i < CALIBRATION_GEMM_COUNT; i++) {
        const struct calibration_gemm_table *t = &cal->gemm[i];
        snprintf(section, sizeof section, "gemm_%s", gemm_keys[i]);
        for (p = 0; p < CALIBRATION_PRECISION_COUNT; p++)
            if (t->has[p])
                above_peak(cal, hw, d, section, rate_keys[p], "",
                           largest(t->tflops[p], t->n), peak_keys[p], peaks[p]);
    }
    above_peak(cal, hw, d, "attention_kernel", "fwd_tflops", "",
               largest(a->fwd_tflops, a->n), "bf16_peak_tflops",
               h->bf16_peak_tflops);
    above_peak(cal, hw, d, "attention_kernel", "fwd_bwd_tflops", "",
               largest(a->fwd_bwd_tflops, a->n), "bf16_peak_tflops",
               h->bf16_peak_tflops);
    above_peak(cal, hw, d, "attention_kernel", "fwd_bwd_tflops",
               "the backward rate it implies, ", largest(a->bwd_tflops, a->n),
               "bf16_peak_tflops", h->bf16_peak_tflops);
    above_peak(cal, hw, d, "clock", "burst_tflops", "", cal->spec.burst_tflops,
               "bf16_peak_tflops", h->bf16_peak_tflops);
    for (i = 0; i < CALIBRATION_EW_COUNT; i++) {
        snprintf(section, sizeof section, "%s_tbps", ew_keys[i]);
        above_peak(cal, hw, d, "elementwise", section, "", cal->spec.ew_tbps[i],
                   "hbm_peak_tbps", h->hbm_peak_tbps);
    }
    diag_finish(d);
    return d->lines > lines ? STATUS_RANGE : STATUS_OK;
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

bool calibration_find(const char *hardware_path,
                      const char *data_dir,
                      char *buf,
                      size_t size)
{
    const char *slash = strrchr(hardware_path, '/');
    const char *name = slash ? slash + 1 : hardware_path;
    int n = snprintf(buf, size, "%s/calibration/%s", data_dir, name);
    return n > 0 && (size_t)n < size && access(buf, R_OK) == 0;
}
