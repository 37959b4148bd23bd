/*
 * calibration: loading a calibration file, its own checks and the
 * lookups. Its keys are calibration_schema.c's; the checks against the
 * hardware it is used with, calibration_hardware.c's.
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

#define TEXT DATAFILE_TEXT_MAX

/* ---- Checks ---- */

/* One problem, at the line of section.key when the file gave it. */
static void bad(const struct calibration *cal,
                struct diag *d,
                enum status st,
                const char *section,
                const char *key,
                const char *problem)
{
    datafile_meta_problem(&cal->meta, d, st, section, key, problem);
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
        &calibration_schema()
             ->fields[datafile_field_index(calibration_schema(), section, key)];
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
        snprintf(section, sizeof section, "gemm_%s",
                 calibration_gemm_key((enum calibration_gemm)i));
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

/* [attention_length]'s FlashAttention-2 bars: the four rate lists
 * together or none (a is the section's parsed lengths, n of them). */
static void
check_attention_flash2(struct calibration *cal, struct diag *d, size_t n)
{
    struct calibration_attention *a = &cal->attention;
    const struct calibration_spec *sp = &cal->spec;
    const char *s = "attention_length";
    static const char *const keys[] = {"bwd_tflops", "flash2_causal_tflops",
                                       "flash2_full_tflops",
                                       "flash2_bwd_tflops"};
    const char *text[] = {sp->len_bwd, sp->len_f2_causal, sp->len_f2_full,
                          sp->len_f2_bwd};
    double *v[] = {a->len_bwd, a->len_f2_causal, a->len_f2_full, a->len_f2_bwd};
    size_t k, got = 0;
    for (k = 0; k < 4; k++)
        got += given(text[k]) ? 1 : 0;
    if (got == 0)
        return;
    for (k = 0; k < 4; k++) {
        if (!given(text[k])) {
            bad(cal, d, STATUS_RANGE, s, keys[k],
                "missing: FlashAttention-2's bars need all of bwd_tflops, "
                "flash2_causal_tflops, flash2_full_tflops and "
                "flash2_bwd_tflops");
            return;
        }
        if (!parse_rates(cal, d, s, keys[k], text[k], v[k], n, "seq_lens"))
            return;
    }
    a->len_flash2 = true;
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
        if (given(sp->len_causal) || given(sp->len_full) ||
            given(sp->len_f2_causal))
            bad(cal, d, STATUS_RANGE, s,
                given(sp->len_causal) ? "causal_tflops"
                : given(sp->len_full) ? "full_tflops"
                                      : "flash2_causal_tflops",
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
    check_attention_flash2(cal, d, a->len_n);
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
    double least;
} zero_or_least[] = {
    {.section = "elementwise",
     .key = "read_tbps",
     .least = CALIBRATION_TBPS_MIN},
    {.section = "elementwise",
     .key = "norm_tbps",
     .least = CALIBRATION_TBPS_MIN},
    {.section = "elementwise",
     .key = "activation_tbps",
     .least = CALIBRATION_TBPS_MIN},
    {.section = "elementwise", .key = "router_us", .least = 1},
    {.section = "scan",
     .key = "linear_fwd_tflops",
     .least = CALIBRATION_RATE_MIN},
    {.section = "scan", .key = "ssd_fwd_tflops", .least = CALIBRATION_RATE_MIN},
    {.section = "elementwise", .key = "router_tokens", .least = 1},
    {.section = "clock", .key = "sm_clock_mhz", .least = 100},
    {.section = "clock", .key = "power_w", .least = 10},
    {.section = "clock", .key = "power_limit_w", .least = 10},
};

static void check_scalars(const struct calibration *cal, struct diag *d)
{
    const struct calibration_spec *s = &cal->spec;
    char why[160];
    size_t i;
    for (i = 0; i < sizeof zero_or_least / sizeof zero_or_least[0]; i++) {
        const struct datafile_field *f =
            &calibration_schema()->fields[datafile_field_index(
                calibration_schema(), zero_or_least[i].section,
                zero_or_least[i].key)];
        double v = *(const double *)(const void *)((const char *)s + f->offset);
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

bool calibration_attention_flash2_factors(const struct calibration *cal,
                                          double seq,
                                          double *causal,
                                          double *full,
                                          double *bwd)
{
    const struct calibration_attention *a = &cal->attention;
    double lq;
    *causal = *full = *bwd = 1;
    if (!a->len_flash2 || !(seq > 0))
        return false;
    lq = log(seq);
    *causal = interp(a->len_ln, a->len_f2_causal, a->len_n, lq, false, NULL) /
              interp(a->len_ln, a->len_causal, a->len_n, lq, false, NULL);
    *full = interp(a->len_ln, a->len_f2_full, a->len_n, lq, false, NULL) /
            interp(a->len_ln, a->len_full, a->len_n, lq, false, NULL);
    *bwd = interp(a->len_ln, a->len_f2_bwd, a->len_n, lq, false, NULL) /
           interp(a->len_ln, a->len_bwd, a->len_n, lq, false, NULL);
    return true;
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

double calibration_scan_tflops(const struct calibration *cal,
                               enum calibration_scan k)
{
    return k < CALIBRATION_SCAN_COUNT ? cal->spec.scan_tflops[k] : 0;
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
