/*
 * test_calibration: the calibration files load, every value has a source,
 * lookups interpolate and clamp as calibration.h says (values worked out
 * by hand from the H200 measurements in shared/facts/h200-measured.md),
 * and every bad value is reported with file:line: key.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "calibration.h"
#include "test_util.h"

static void assert_has_line(const char *msg, const char *line)
{
    if (!strstr(msg, line))
        fail_msg("message lacks \"%s\"; it was:\n%s", line, msg);
}

static void load(struct calibration *cal, const char *path)
{
    struct diag d;
    diag_init(&d);
    if (calibration_load(path, cal, NULL, 0, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

static double gemm(const struct calibration *cal,
                   enum calibration_gemm cls,
                   enum calibration_precision p,
                   double m,
                   bool *outside)
{
    *outside = false;
    return calibration_gemm_tflops(cal, cls, p, m, outside);
}

/* Interpolation in ln M between measured points, on the H200 table. */
static void test_calibration_gemm_interpolates_in_log_m(void **state)
{
    struct calibration cal;
    bool out;
    (void)state;
    load(&cal, "tests/data/snap/calibration/h200.ini");
    /* A measured point: expert up+gate, BF16, 1024 tokens: 707. */
    assert_near(
        gemm(&cal, CALIBRATION_GEMM_EXPERT_UP, CALIBRATION_BF16, 1024, &out),
        707, 1e-12);
    assert_false(out);
    /* 256 is halfway between 128 and 512 in ln M (ln 256 - ln 128 =
     * ln 512 - ln 256 = ln 2): (282 + 535) / 2 = 408.5. */
    assert_near(
        gemm(&cal, CALIBRATION_GEMM_EXPERT_UP, CALIBRATION_BF16, 256, &out),
        408.5, 1e-12);
    assert_false(out);
    /* sqrt(2048 x 4096) is halfway between them in ln M; expert down FP8
     * 1125 and 1207 there: (1125 + 1207) / 2 = 1166. */
    assert_near(gemm(&cal, CALIBRATION_GEMM_EXPERT_DOWN, CALIBRATION_FP8,
                     sqrt(2048.0 * 4096.0), &out),
                1166, 1e-12);
    /* A quarter of the way from 512 to 1024 in ln M is 512 x 2^0.25 =
     * 608.9: 535 + (707 - 535) / 4 = 578. */
    assert_near(gemm(&cal, CALIBRATION_GEMM_EXPERT_UP, CALIBRATION_BF16,
                     512 * pow(2, 0.25), &out),
                578, 1e-12);
    calibration_release(&cal);
}

/* Beyond the table the rate is held at the nearest end (clamp rule). */
static void test_calibration_gemm_clamps_beyond_the_table(void **state)
{
    struct calibration cal;
    bool out;
    (void)state;
    load(&cal, "tests/data/snap/calibration/h200.ini");
    assert_near(
        gemm(&cal, CALIBRATION_GEMM_EXPERT_UP, CALIBRATION_BF16, 64, &out), 282,
        1e-12);
    assert_true(out);
    assert_near(
        gemm(&cal, CALIBRATION_GEMM_EXPERT_DOWN, CALIBRATION_BF16, 65536, &out),
        662, 1e-12);
    assert_true(out);
    /* One measured M: every other M is beyond the table. */
    assert_near(gemm(&cal, CALIBRATION_GEMM_HEAD, CALIBRATION_BF16, 4096, &out),
                681, 1e-12);
    assert_false(out);
    assert_near(
        gemm(&cal, CALIBRATION_GEMM_DENSE_DOWN, CALIBRATION_FP8, 2048, &out),
        1311, 1e-12);
    assert_true(out);
    calibration_release(&cal);
}

/*
 * attn_proj is the FLOP-weighted (time-preserving) mean of the five MLA
 * projections at 4096 tokens. Per token, N K: q down 7168 x 1536 =
 * 11010048, q up 1536 x 24576 = 37748736, kv down 7168 x 576 = 4128768,
 * kv up 512 x 32768 = 16777216, out 16384 x 7168 = 117440512; sum
 * 187105280. BF16 time per unit: 11010048/737 + 37748736/734 +
 * 4128768/647 + 16777216/616 + 117440512/794 = 14939.0 + 51428.8 +
 * 6381.4 + 27235.7 + 147910.0 = 247894.9; 187105280 / 247894.9 = 754.78.
 * The file rounds it to 754.8; measure-gpu's renderer writes 754.777.
 */
static void test_calibration_attn_proj_is_the_flop_weighted_mean(void **state)
{
    struct calibration h200, rendered;
    bool out;
    size_t c, i;
    (void)state;
    load(&h200, "tests/data/snap/calibration/h200.ini");
    load(&rendered, "tests/golden/calibration-h200.ini");
    assert_near(
        gemm(&h200, CALIBRATION_GEMM_ATTN_PROJ, CALIBRATION_BF16, 4096, &out),
        754.78, 1e-4);
    /* The renderer's file and the hand-built one agree at every point. */
    for (c = 0; c < CALIBRATION_GEMM_COUNT; c++) {
        const struct calibration_gemm_table *t = &h200.gemm[c];
        assert_int_equal(t->n, rendered.gemm[c].n);
        for (i = 0; i < t->n; i++) {
            assert_near(gemm(&rendered, (enum calibration_gemm)c,
                             CALIBRATION_BF16, t->m_tokens[i], &out),
                        t->tflops[CALIBRATION_BF16][i], 1e-4);
            assert_near(gemm(&rendered, (enum calibration_gemm)c,
                             CALIBRATION_FP8, t->m_tokens[i], &out),
                        t->tflops[CALIBRATION_FP8][i], 1e-4);
        }
    }
    assert_near(calibration_clock_factor(&rendered),
                calibration_clock_factor(&h200), 1e-12);
    calibration_release(&rendered);
    calibration_release(&h200);
}

/*
 * Attention: backward rate R_b = ratio / ((1 + ratio) / R_fb - 1 / R_f).
 * Head dim 128: 2.5 / (3.5/485 - 1/591) = 2.5 / (0.00721649 - 0.00169205)
 * = 452.53. Head dim 192: 2.5 / (3.5/340 - 1/634) = 2.5 / (0.01029412 -
 * 0.00157729) = 286.80. Head dim 160 is halfway: forward (591 + 634) / 2
 * = 612.5, backward (452.53 + 286.80) / 2 = 369.67.
 */
static void test_calibration_attention_by_head_dim(void **state)
{
    struct calibration cal;
    bool out = false;
    (void)state;
    load(&cal, "tests/data/snap/calibration/h200.ini");
    assert_near(
        calibration_attention_tflops(&cal, CALIBRATION_ATTN_FWD, 128, &out),
        591, 1e-12);
    assert_near(
        calibration_attention_tflops(&cal, CALIBRATION_ATTN_BWD, 128, &out),
        452.53, 1e-4);
    assert_near(
        calibration_attention_tflops(&cal, CALIBRATION_ATTN_BWD, 192, &out),
        286.80, 1e-4);
    assert_near(
        calibration_attention_tflops(&cal, CALIBRATION_ATTN_FWD_BWD, 192, &out),
        340, 1e-12);
    assert_false(out);
    assert_near(
        calibration_attention_tflops(&cal, CALIBRATION_ATTN_FWD, 160, &out),
        612.5, 1e-12);
    assert_near(
        calibration_attention_tflops(&cal, CALIBRATION_ATTN_BWD, 160, &out),
        369.67, 1e-4);
    assert_false(out);
    assert_near(
        calibration_attention_tflops(&cal, CALIBRATION_ATTN_FWD, 64, &out), 591,
        1e-12);
    assert_true(out);
    assert_near(calibration_attention_bwd_ratio(&cal), 2.5, 1e-12);
    calibration_release(&cal);
}

/*
 * Attention at the kernel's real widths (issue 17 item 6): the snapshot
 * H200 measured square kernels (forward 591 at 128, 634 at 192; V padded
 * to 192). MLA's q/k 192, v 128 runs QK^T (192/320 of the FLOPs) at 634
 * and PV (128/320) at 591: 1e12 FLOPs take 0.6/634 + 0.4/591 s. A
 * calibration that measured that very kernel (v_head_dims 128 at 192, as
 * the H800 trace did) times all of them at its rate, 1/634 s; so does a
 * square kernel at its width, and v 192 (the padded kernel) too.
 */
static void test_calibration_attention_real_widths(void **state)
{
    struct calibration cal;
    struct datafile_set set;
    struct diag d;
    (void)state;
    load(&cal, "tests/data/snap/calibration/h200.ini");
    assert_near(
        calibration_attention_s(&cal, CALIBRATION_ATTN_FWD, 192, 128, 1e12),
        0.6 / 634 + 0.4 / 591, 1e-12);
    assert_near(
        calibration_attention_s(&cal, CALIBRATION_ATTN_FWD, 192, 192, 1e12),
        1.0 / 634, 1e-12);
    assert_near(
        calibration_attention_s(&cal, CALIBRATION_ATTN_FWD, 128, 128, 2e12),
        2.0 / 591, 1e-12);
    calibration_release(&cal);
    diag_init(&d);
    assert_int_equal(
        datafile_parse_set("attention_kernel.v_head_dims=128 128", &set, &d),
        STATUS_OK);
    assert_int_equal(calibration_load("tests/data/snap/calibration/h200.ini",
                                      &cal, &set, 1, &d),
                     STATUS_OK);
    assert_near(
        calibration_attention_s(&cal, CALIBRATION_ATTN_FWD, 192, 128, 1e12),
        1.0 / 634, 1e-12);
    calibration_release(&cal);
}

/*
 * [attention_length]'s FlashAttention-2 bars: its rate over the
 * benchmark kernel's at the same length and mask. Set on the snapshot
 * H200 with the FlashAttention-3 paper's head-dim-128 H100 bars at 4096,
 * 8192 and 16384 tokens (forward causal FA3 579 602 616, FA2 319 333 335;
 * full FA3 638 646 648, FA2 368 370 370; backward FA3 542 559 561, FA2 310
 * 318 322): at 8192 causal 333/602, full 370/646, backward 318/559.
 * Without the bars: false and 1, 1, 1; three of the four keys refused.
 */
static void test_calibration_attention_flash2(void **state)
{
    struct calibration cal;
    struct datafile_set set[8];
    struct diag d;
    double causal, full, bwd;
    static const char *const sets[] = {
        "attention_kernel.seq_len=4096",
        "attention_length.seq_lens=4096 8192 16384",
        "attention_length.causal_tflops=579 602 616",
        "attention_length.full_tflops=638 646 648",
        "attention_length.flash2_causal_tflops=319 333 335",
        "attention_length.flash2_full_tflops=368 370 370",
        "attention_length.flash2_bwd_tflops=310 318 322",
        "attention_length.bwd_tflops=542 559 561"};
    size_t i;
    (void)state;
    diag_init(&d);
    for (i = 0; i < 8; i++)
        assert_int_equal(datafile_parse_set(sets[i], &set[i], &d), STATUS_OK);
    assert_int_equal(calibration_load("tests/data/snap/calibration/h200.ini",
                                      &cal, set, 4, &d),
                     STATUS_OK);
    assert_false(
        calibration_attention_flash2_factors(&cal, 8192, &causal, &full, &bwd));
    assert_near(causal + full + bwd, 3, 0);
    calibration_release(&cal);
    assert_int_equal(calibration_load("tests/data/snap/calibration/h200.ini",
                                      &cal, set, 8, &d),
                     STATUS_OK);
    assert_true(
        calibration_attention_flash2_factors(&cal, 8192, &causal, &full, &bwd));
    assert_near(causal, 333.0 / 602, 1e-12);
    assert_near(full, 370.0 / 646, 1e-12);
    assert_near(bwd, 318.0 / 559, 1e-12);
    calibration_release(&cal);
    assert_int_equal(calibration_load("tests/data/snap/calibration/h200.ini",
                                      &cal, set, 7, &d),
                     STATUS_RANGE);
    assert_has_line(d.msg, "bwd_tflops: missing");
}

/*
 * [attention_length]: a benchmark's rate by length, causal and full, over
 * its causal rate at the length the kernel rates were measured at. Set
 * on the snapshot H200: lengths 1024 4096 16384, causal 400 500 600, full
 * 550 600 650, measured at 4096. Causal at 4096: 1; full: 600/500; at
 * 8192, half-way in log length: 550/500; beyond the ends, the end's:
 * 650/500 at 65536, 400/500 at 512. Measured at 2048 (half-way from 1024
 * to 4096: 450) a causal kernel there runs at 1. Without the section: 1.
 * A curve without its lengths, a rate list of the wrong length and a
 * curve whose measurement has no length are refused.
 */
static void test_calibration_attention_length(void **state)
{
    struct calibration cal;
    struct datafile_set set[5];
    struct diag d;
    double causal, full;
    static const char *const sets[] = {
        "attention_kernel.seq_len=4096",
        "attention_length.seq_lens=1024 4096 16384",
        "attention_length.causal_tflops=400 500 600",
        "attention_length.full_tflops=550 600 650",
        "attention_kernel.seq_len=2048"};
    size_t i;
    (void)state;
    load(&cal, "tests/data/snap/calibration/h200.ini");
    calibration_attention_length_factors(&cal, 65536, &causal, &full);
    assert_near(causal, 1, 0);
    assert_near(full, 1, 0);
    calibration_release(&cal);
    diag_init(&d);
    for (i = 0; i < 5; i++)
        assert_int_equal(datafile_parse_set(sets[i], &set[i], &d), STATUS_OK);
    assert_int_equal(calibration_load("tests/data/snap/calibration/h200.ini",
                                      &cal, set, 4, &d),
                     STATUS_OK);
    calibration_attention_length_factors(&cal, 4096, &causal, &full);
    assert_near(causal, 1, 1e-15);
    assert_near(full, 1.2, 1e-15);
    calibration_attention_length_factors(&cal, 8192, &causal, &full);
    assert_near(causal, 1.1, 1e-15);
    calibration_attention_length_factors(&cal, 65536, &causal, &full);
    assert_near(full, 1.3, 1e-15);
    calibration_attention_length_factors(&cal, 512, &causal, &full);
    assert_near(causal, 0.8, 1e-15);
    calibration_release(&cal);
    assert_int_equal(calibration_load("tests/data/snap/calibration/h200.ini",
                                      &cal, &set[1], 4, &d),
                     STATUS_OK);
    calibration_attention_length_factors(&cal, 2048, &causal, &full);
    assert_near(causal, 1, 1e-15);
    calibration_release(&cal);

    assert_int_equal(calibration_load("tests/data/snap/calibration/h200.ini",
                                      &cal, &set[2], 1, &d),
                     STATUS_RANGE);
    assert_has_line(d.msg, "h200.ini: --set attention_length.causal_tflops="
                           "400 500 600: rates without seq_lens");
    diag_init(&d);
    assert_int_equal(
        datafile_parse_set("attention_length.full_tflops=550 600", &set[3], &d),
        STATUS_OK);
    assert_int_equal(calibration_load("tests/data/snap/calibration/h200.ini",
                                      &cal, set, 4, &d),
                     STATUS_RANGE);
    assert_has_line(d.msg, "h200.ini: --set attention_length.full_tflops=550 "
                           "600: 2 values for the 3 of "
                           "attention_length.seq_lens");
    diag_init(&d);
    assert_int_equal(datafile_parse_set("attention_length.full_tflops=550 600 "
                                        "650",
                                        &set[3], &d),
                     STATUS_OK);
    assert_int_equal(calibration_load("tests/data/snap/calibration/h200.ini",
                                      &cal, &set[1], 3, &d),
                     STATUS_RANGE);
    assert_has_line(d.msg, "h200.ini: --set attention_length.seq_lens=1024 "
                           "4096 16384: a length curve needs "
                           "attention_kernel.seq_len");
}

/*
 * A factor measured with its recipe's casts (issue 17 item 6): the flag
 * describes a measured factor, so flat.ini (fine_grained_factor only)
 * refuses row_casts and block_casts as --set values, naming them; with
 * fine_grained_casts a block recipe, which takes the fine-grained factor
 * there, counts no casts, and per-tensor scaling always counts them.
 */
static void test_calibration_casts_need_their_factor(void **state)
{
    struct calibration cal;
    struct datafile_set set[2];
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        datafile_parse_set("fp8_scaling.row_casts=true", &set[0], &d),
        STATUS_OK);
    assert_int_equal(
        datafile_parse_set("fp8_scaling.block_casts=true", &set[1], &d),
        STATUS_OK);
    assert_int_equal(
        calibration_load("tests/data/calibration/flat.ini", &cal, set, 2, &d),
        STATUS_RANGE);
    assert_has_line(d.msg, "flat.ini: --set fp8_scaling.row_casts=true: true "
                           "describes a row_factor the file does not give");
    assert_has_line(d.msg, "flat.ini: --set fp8_scaling.block_casts=true: true "
                           "describes a block_factor the file does not give");
    diag_init(&d);
    assert_int_equal(
        datafile_parse_set("fp8_scaling.fine_grained_casts=true", &set[0], &d),
        STATUS_OK);
    assert_int_equal(
        calibration_load("tests/data/calibration/flat.ini", &cal, set, 1, &d),
        STATUS_OK);
    assert_false(calibration_fp8_casts_counted(&cal, CALIBRATION_FP8_BLOCK));
    assert_false(calibration_fp8_casts_counted(&cal, CALIBRATION_FP8_ROW));
    assert_true(calibration_fp8_casts_counted(&cal, CALIBRATION_FP8_TENSOR));
    calibration_release(&cal);
}

/* Memory-bound rates, router time, clock factor and the peak data. */
static void test_calibration_elementwise_router_clock(void **state)
{
    struct calibration h200, h100;
    (void)state;
    load(&h200, "tests/data/snap/calibration/h200.ini");
    load(&h100, "tests/data/snap/calibration/h100.ini");
    assert_near(calibration_elementwise_tbps(&h200, CALIBRATION_EW_NORM), 2.78,
                1e-12);
    assert_true(calibration_elementwise_measured(&h200, CALIBRATION_EW_NORM));
    /* H100: the H200's 4.30 TB/s copy x 3.35/4.8 = 3.0010, rounded 3.00. */
    assert_near(calibration_elementwise_tbps(&h100, CALIBRATION_EW_COPY),
                4.30 * 3.35 / 4.8, 1e-3);
    /* 1.13 x 3.35/4.8 = 0.78865, written 0.789. */
    assert_near(calibration_elementwise_tbps(&h100, CALIBRATION_EW_ACTIVATION),
                1.13 * 3.35 / 4.8, 1e-3);
    /* 68 us at 4096 tokens: held below, linear above. */
    assert_near(calibration_router_s(&h200, 4096), 68e-6, 1e-12);
    assert_near(calibration_router_s(&h200, 1024), 68e-6, 1e-12);
    assert_near(calibration_router_s(&h200, 8192), 136e-6, 1e-12);
    /* 659 sustained over 776 burst = 0.8492 (the facts' 0.85). */
    assert_near(calibration_clock_factor(&h200), 659.0 / 776.0, 1e-12);
    assert_near(calibration_clock_factor(&h100), 659.0 / 776.0, 1e-12);
    /* The highest rates, for the caller's check against the peaks (989
     * BF16, 1979 FP8, 4.8 TB/s): expert up at 4096 tokens, 783 and 1347. */
    assert_near(calibration_max_tflops(&h200, CALIBRATION_BF16), 783, 1e-12);
    assert_near(calibration_max_tflops(&h200, CALIBRATION_FP8), 1347, 1e-12);
    assert_near(calibration_max_tbps(&h200), 4.30, 1e-12);
    /* No network curve measured on the H200: callers fall back. */
    assert_null(calibration_curve_get(&h200, CALIBRATION_LINK_INTRA,
                                      CALIBRATION_ALL_REDUCE));
    assert_near(calibration_busbw_gbps(&h200, CALIBRATION_LINK_INTRA,
                                       CALIBRATION_ALL_REDUCE, 1e6, NULL),
                0, 1e-12);
    calibration_release(&h100);
    calibration_release(&h200);
}

/*
 * Network curves (h100.ini, imported from nccl-tests). Log-log
 * interpolation: halfway in ln(size) is the geometric mean of the two
 * busbw. 2 GiB: 363.783, 8 GiB: 368.69 (the fixture's 40772.4 us:
 * 8589934592 B / 40772.4 us x 1.75 = 368.69); 4 GiB is halfway:
 * sqrt(363.783 x 368.69) = 366.23 (nccl-tests measured 367.31 there).
 * Below the smallest size the time is held: the 2-node all-to-all at
 * 32 MiB is 60.8929 GB/s, so at 16 MiB 30.446. Above, busbw is held.
 */
static void test_calibration_busbw_by_message_size(void **state)
{
    struct calibration cal;
    const struct calibration_curve *cv;
    bool out = false;
    (void)state;
    load(&cal, "tests/data/snap/calibration/h100.ini");
    cv = calibration_curve_get(&cal, CALIBRATION_LINK_INTRA,
                               CALIBRATION_ALL_REDUCE);
    assert_non_null(cv);
    assert_int_equal(cv->ranks, 8);
    assert_int_equal(cv->nodes, 1);
    assert_near(calibration_busbw_gbps(&cal, CALIBRATION_LINK_INTRA,
                                       CALIBRATION_ALL_REDUCE, 8589934592.0,
                                       &out),
                368.69, 1e-5);
    assert_near(calibration_busbw_gbps(&cal, CALIBRATION_LINK_INTRA,
                                       CALIBRATION_ALL_REDUCE, 4294967296.0,
                                       &out),
                sqrt(363.783 * 368.69), 1e-5);
    assert_false(out);
    assert_near(calibration_busbw_gbps(&cal, CALIBRATION_LINK_INTER,
                                       CALIBRATION_ALLTOALL, 16777216.0, &out),
                60.8929 / 2, 1e-5);
    assert_true(out);
    out = false;
    assert_near(calibration_busbw_gbps(&cal, CALIBRATION_LINK_INTER,
                                       CALIBRATION_ALLTOALL, 68719476736.0,
                                       &out),
                75.2152, 1e-5);
    assert_true(out);
    assert_null(calibration_curve_get(&cal, CALIBRATION_LINK_INTER,
                                      CALIBRATION_ALL_REDUCE));
    calibration_release(&cal);
}

/* Every value a shipped calibration file gives has a source. */
static void test_calibration_files_cite_every_value(void **state)
{
    static const char *const files[] = {"tests/data/snap/calibration/h200.ini",
                                        "tests/data/snap/calibration/h100.ini",
                                        "tests/data/snap/calibration/h800.ini"};
    size_t f, i;
    (void)state;
    for (f = 0; f < sizeof files / sizeof files[0]; f++) {
        struct calibration cal;
        size_t given = 0;
        load(&cal, files[f]);
        for (i = 0; i < calibration_schema()->n; i++) {
            if (!cal.meta.given[i])
                continue;
            given++;
            if (!*datafile_meta_source(&cal.meta, i))
                fail_msg("%s: %s.%s has no source", files[f],
                         calibration_schema()->fields[i].section,
                         calibration_schema()->fields[i].key);
        }
        assert_true(given > 30);
        calibration_release(&cal);
    }
}

/* Equal measured rates are data, not duplicates; --set overrides. */
static void test_calibration_equal_rates_and_set(void **state)
{
    char dir[] = "/tmp/roofplan-calib-XXXXXX";
    char path[64];
    struct calibration cal;
    struct datafile_set set;
    struct diag d;
    FILE *f;
    (void)state;
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/c.ini", dir);
    f = fopen(path, "w");
    assert_non_null(f);
    fputs("[calibration]\nsource = test\ngpu = g\nhardware_gpu = g\n"
          "date = 2026-12-01\n"
          "[gemm_expert_up]\nm_tokens = 128, 256 512\n"
          "bf16_tflops = 500 500 500\n"
          "[attention_kernel]\nhead_dims = 128\nfwd_tflops = 591\n"
          "fwd_bwd_tflops = 485\n[elementwise]\ncopy_tbps = 4.3\n"
          "[clock]\nburst_tflops = 776\nsustained_tflops = 659\nrun_s = 20\n",
          f);
    assert_int_equal(fclose(f), 0);
    diag_init(&d);
    assert_int_equal(
        datafile_parse_set("clock.sustained_tflops=698.4", &set, &d),
        STATUS_OK);
    assert_int_equal(calibration_load(path, &cal, &set, 1, &d), STATUS_OK);
    assert_true(set.used);
    assert_int_equal(cal.gemm[CALIBRATION_GEMM_EXPERT_UP].n, 3);
    assert_near(calibration_gemm_tflops(&cal, CALIBRATION_GEMM_EXPERT_UP,
                                        CALIBRATION_BF16, 300, NULL),
                500, 1e-12);
    /* Unmeasured: classes and FP8 give 0, kinds fall back to copy. */
    assert_near(calibration_gemm_tflops(&cal, CALIBRATION_GEMM_HEAD,
                                        CALIBRATION_BF16, 4096, NULL),
                0, 1e-12);
    assert_near(calibration_gemm_tflops(&cal, CALIBRATION_GEMM_EXPERT_UP,
                                        CALIBRATION_FP8, 300, NULL),
                0, 1e-12);
    assert_false(calibration_elementwise_measured(&cal, CALIBRATION_EW_NORM));
    assert_near(calibration_elementwise_tbps(&cal, CALIBRATION_EW_NORM), 4.3,
                1e-12);
    assert_near(calibration_router_s(&cal, 4096), 0, 1e-12);
    /* 698.4 / 776 = 0.9 */
    assert_near(calibration_clock_factor(&cal), 0.9, 1e-12);
    calibration_release(&cal);
    remove(path);
    rmdir(dir);
}

/* Every bad value of the file, one line each, file:line: key: problem. */
static void test_calibration_load_reports_every_bad_value(void **state)
{
    struct calibration cal;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        calibration_load("tests/data/bad/calib-many.ini", &cal, NULL, 0, &d),
        STATUS_RANGE); /* the first problem's status: attn_proj's order */
    assert_has_line(d.msg, "tests/data/bad/calib-many.ini:8: "
                           "gemm_attn_proj.m_tokens: expected strictly "
                           "ascending values, got 2048 after 4096");
    assert_has_line(d.msg, "calib-many.ini:12: gemm_expert_up.m_tokens: "
                           "expected numbers separated by blanks, got "
                           "\"5x12\"");
    assert_has_line(d.msg, "calib-many.ini:17: gemm_head.bf16_tflops: 2 "
                           "values for the 1 of gemm_head.m_tokens");
    assert_has_line(d.msg, "calib-many.ini:20: gemm_dense_up.bf16_tflops: "
                           "rates without m_tokens");
    /* 3.5 x 591 = 2068.5 */
    assert_has_line(d.msg, "calib-many.ini:25: "
                           "attention_kernel.fwd_bwd_tflops: 2100 at head "
                           "dim 128 leaves no time for the backward pass "
                           "(needs < (1 + bwd_flops_ratio) x fwd_tflops = "
                           "2068.5)");
    assert_has_line(d.msg, "calib-many.ini:29: elementwise.router_us: needs "
                           "router_tokens");
    assert_has_line(d.msg, "calib-many.ini:33: clock.sustained_tflops: 776 is "
                           "above clock.burst_tflops (700)");
    assert_has_line(d.msg, "calib-many.ini:40: network_intra_all_reduce.nodes: "
                           "an intra-node curve spans one node, got 2");
    assert_has_line(d.msg, "calib-many.ini:43: network_inter_alltoall.bytes: "
                           "sizes without busbw_gbps");
    assert_int_equal(d.lines, 9);
}

/*
 * Values too small to be measurements, each of which made step times of
 * 1e300 s and "inf days" (issue 20): refused at their line with the
 * bounds of data/README.md. The lists and the "0: not measured" values
 * are checked by calibration_load, the other numbers by the loader.
 */
static void test_calibration_load_bounds_every_value(void **state)
{
    struct calibration cal;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        calibration_load("tests/data/bad/calib-tiny.ini", &cal, NULL, 0, &d),
        STATUS_RANGE);
    assert_has_line(d.msg, "tests/data/bad/calib-tiny.ini:10: "
                           "gemm_attn_proj.bf16_tflops: expected values in "
                           "[0.1, 1e+06], got 1e-300");
    assert_has_line(d.msg, "calib-tiny.ini:15: attention_kernel."
                           "fwd_bwd_tflops: expected values in [0.1, 1e+06], "
                           "got 0.05");
    assert_has_line(d.msg, "calib-tiny.ini:19: elementwise.norm_tbps: "
                           "expected 0 (not measured) or at least 0.01, got "
                           "1e-300");
    assert_has_line(d.msg, "calib-tiny.ini:20: elementwise.router_us: "
                           "expected 0 (not measured) or at least 1, got 0.5");
    assert_has_line(d.msg, "calib-tiny.ini:27: clock.power_w: expected 0 "
                           "(not measured) or at least 10, got 1e-300");
    assert_has_line(d.msg, "calib-tiny.ini:30: network_inter_all_reduce."
                           "bytes: expected values in [1, 1e+15], got 0.5");
    assert_has_line(d.msg, "calib-tiny.ini:35: network_intra_all_reduce."
                           "busbw_gbps: expected values in [1e-06, 1e+06], "
                           "got 1e-300");
    assert_int_equal(d.lines, 7);
    diag_init(&d);
    assert_int_equal(calibration_load("tests/data/bad/calib-tiny-scalars.ini",
                                      &cal, NULL, 0, &d),
                     STATUS_RANGE);
    assert_has_line(d.msg, "calib-tiny-scalars.ini:11: attention_kernel."
                           "bwd_flops_ratio: expected a number in 1..5");
    assert_has_line(d.msg, "calib-tiny-scalars.ini:14: elementwise.copy_tbps: "
                           "expected a number in 0.01..1000");
    assert_has_line(d.msg, "calib-tiny-scalars.ini:17: clock.burst_tflops: "
                           "expected a number in 1..1000000");
    assert_has_line(d.msg, "calib-tiny-scalars.ini:18: clock.sustained_tflops: "
                           "expected a number in 1..1000000");
    assert_has_line(d.msg, "calib-tiny-scalars.ini:19: clock.run_s: expected "
                           "a number in 1e-06..1000000");
    assert_int_equal(d.lines, 5);
}

static void load_hw(struct hardware *hw,
                    const char *path,
                    const char *const *sets,
                    size_t nsets)
{
    struct datafile_set set[8];
    struct diag d;
    size_t i;
    for (i = 0; i < nsets; i++)
        util_set(&set[i], sets[i]);
    diag_init(&d);
    if (hardware_load(path, hw, set, nsets, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

/*
 * A calibration is for one GPU (calibration.hardware_gpu, the hardware
 * file's gpu.name): the H800 calibration with A100 hardware is refused
 * (it was taken silently), and only that is said, as its rates are
 * another GPU's; with its own H800 hardware it is accepted.
 */
static void test_calibration_check_hardware_refuses_another_gpu(void **state)
{
    struct calibration cal;
    struct hardware h800, a100;
    struct diag d;
    (void)state;
    load(&cal, "tests/data/snap/calibration/h800.ini");
    load_hw(&h800, "tests/data/snap/hardware/h800.ini", NULL, 0);
    load_hw(&a100, "tests/data/snap/hardware/a100.ini", NULL, 0);
    diag_init(&d);
    assert_true(calibration_for_gpu(&cal, &h800));
    assert_int_equal(calibration_check_hardware(&cal, &h800, &d), STATUS_OK);
    assert_int_equal(d.lines, 0);
    assert_false(calibration_for_gpu(&cal, &a100));
    assert_int_equal(calibration_check_hardware(&cal, &a100, &d), STATUS_RANGE);
    assert_string_equal(
        d.msg, "tests/data/snap/calibration/h800.ini:20: "
               "calibration.hardware_gpu: \"NVIDIA H800 SXM5 80GB\" is not "
               "the GPU of the hardware it is used with "
               "(tests/data/snap/hardware/a100.ini:5: gpu.name = \"NVIDIA "
               "A100 SXM4 80GB\"): use that GPU's calibration, or measure it "
               "(scripts/measure-gpu)");
    hardware_release(&a100);
    hardware_release(&h800);
    calibration_release(&cal);
}

/*
 * No rate above the GPU's peaks (it would put the expected step below the
 * speed of light). The snapshot H800 file's rates against lowered peaks,
 * by hand: BF16 peak 760 is below expert_up's 783 and the clock's burst
 * 776 (attn_proj 754.8, dense 687 and 664, head 681, expert_down 738,
 * attention 634, its fwd+bwd 485 and derived backward 452.5 are not); FP8
 * peak 1300 is below dense_up's 1304, dense_down's 1311 and expert_up's
 * 1347 (attn_proj 1236.4, expert_down 1207, head 1275 are not); HBM peak
 * 2.98 is below copy's 3.00 (read 2.96 is not).
 */
static void
test_calibration_check_hardware_refuses_rates_above_peak(void **state)
{
    static const char *const sets[] = {
        "gpu.bf16_peak_tflops=760", "gpu.fp8_peak_tflops=1300",
        "gpu.fp8_achievable_tflops=1200", "gpu.hbm_peak_tbps=2.98",
        "gpu.hbm_achievable_tbps=2.9"};
    const char *c = "tests/data/snap/calibration/h800.ini";
    struct calibration cal;
    struct hardware hw;
    struct diag d;
    (void)state;
    load(&cal, c);
    load_hw(&hw, "tests/data/snap/hardware/h800.ini", sets,
            sizeof sets / sizeof sets[0]);
    diag_init(&d);
    assert_int_equal(calibration_check_hardware(&cal, &hw, &d), STATUS_RANGE);
    assert_has_line(d.msg, "h800.ini:58: gemm_expert_up.bf16_tflops: 783 is "
                           "above the GPU's peak "
                           "(tests/data/snap/hardware/h800.ini: --set "
                           "gpu.bf16_peak_tflops = 760)");
    assert_has_line(d.msg, "h800.ini:100: clock.burst_tflops: 776 is above");
    assert_has_line(d.msg, "h800.ini:46: gemm_dense_up.fp8_tflops: 1304 is "
                           "above the GPU's peak "
                           "(tests/data/snap/hardware/h800.ini: --set "
                           "gpu.fp8_peak_tflops = 1300)");
    assert_has_line(d.msg, "h800.ini:52: gemm_dense_down.fp8_tflops: 1311 is "
                           "above");
    assert_has_line(d.msg, "h800.ini:59: gemm_expert_up.fp8_tflops: 1347 is "
                           "above");
    assert_has_line(d.msg, "h800.ini:86: elementwise.copy_tbps: 3 is above "
                           "the GPU's peak "
                           "(tests/data/snap/hardware/h800.ini: --set "
                           "gpu.hbm_peak_tbps = 2.98)");
    assert_int_equal(d.lines, 6);
    hardware_release(&hw);
    calibration_release(&cal);
}

/*
 * No rate above the speed of light's (issue 17: the floor is a floor by
 * construction): at the sustained clock (the snapshot's 659/776 =
 * 0.84923) no GEMM runs faster than the hardware's achievable rate times
 * its clock derate (1 here), and HBM copies no faster than its achievable
 * bandwidth. By hand, with BF16 achievable 600, FP8 1100 and HBM 2.9:
 * BF16 attn_proj 754.8 -> 640.996, expert_up 783 -> 664.945, expert_down
 * 738 -> 626.729 are above 600 (dense_up 583.4, dense_down 563.9, head
 * 578.3 are not); FP8 dense_up 1304 -> 1107.39, dense_down 1311 -> 1113.34,
 * expert_up 1347 -> 1143.9 are above 1100 (attn_proj 1050.0, expert_down
 * 1025.0, head 1082.8 are not); attention's 485 fwd+bwd at the model's
 * count (3 / 3.5 of it, 415.7) -> 353.0 is not; copy 3.00 > 2.9 is.
 */
static void test_calibration_check_floor_refuses_rates_above_floor(void **state)
{
    static const char *const sets[] = {"gpu.bf16_achievable_tflops=600",
                                       "gpu.fp8_achievable_tflops=1100",
                                       "gpu.hbm_achievable_tbps=2.9"};
    const char *c = "tests/data/snap/calibration/h800.ini";
    struct calibration cal;
    struct hardware hw;
    struct diag d;
    (void)state;
    load(&cal, c);
    load_hw(&hw, "tests/data/snap/hardware/h800.ini", sets,
            sizeof sets / sizeof sets[0]);
    diag_init(&d);
    /* within the peaks: check_hardware takes it; the floor does not */
    assert_int_equal(calibration_check_hardware(&cal, &hw, &d), STATUS_OK);
    assert_int_equal(calibration_check_floor(&cal, &hw, &d), STATUS_RANGE);
    assert_has_line(d.msg,
                    "h800.ini:37: gemm_attn_proj.bf16_tflops: 754.8 (640.996 "
                    "at the sustained clock) is above the rate the speed of "
                    "light takes for it (tests/data/snap/hardware/h800.ini: "
                    "--set gpu.bf16_achievable_tflops x clock_derate = "
                    "600)");
    assert_has_line(d.msg, "h800.ini:58: gemm_expert_up.bf16_tflops: 783 "
                           "(664.945 at the sustained clock) is above");
    assert_has_line(d.msg, "h800.ini:64: gemm_expert_down.bf16_tflops: 738 "
                           "(626.729 at the sustained clock) is above");
    assert_has_line(d.msg, "h800.ini:46: gemm_dense_up.fp8_tflops: 1304 "
                           "(1107.39 at the sustained clock) is above");
    assert_has_line(d.msg, "h800.ini:52: gemm_dense_down.fp8_tflops: 1311 "
                           "(1113.34 at the sustained clock) is above");
    assert_has_line(d.msg, "h800.ini:59: gemm_expert_up.fp8_tflops: 1347 "
                           "(1143.91 at the sustained clock) is above");
    assert_has_line(d.msg, "h800.ini:86: elementwise.copy_tbps: (the HBM rate "
                           "of the expected step) 3 (3 at the sustained "
                           "clock) is above");
    assert_int_equal(d.lines, 7);
    hardware_release(&hw);
    calibration_release(&cal);
}

/* Keys and section names are the stable names the files use. */
static void test_calibration_keys(void **state)
{
    char buf[64];
    enum calibration_collective k;
    (void)state;
    assert_string_equal(calibration_gemm_key(CALIBRATION_GEMM_EXPERT_DOWN),
                        "expert_down");
    assert_string_equal(calibration_precision_key(CALIBRATION_FP8), "fp8");
    assert_string_equal(calibration_elementwise_key(CALIBRATION_EW_ACTIVATION),
                        "activation");
    assert_true(calibration_network_section(
        CALIBRATION_LINK_INTER, CALIBRATION_REDUCE_SCATTER, buf, sizeof buf));
    assert_string_equal(buf, "network_inter_reduce_scatter");
    assert_int_not_equal(
        datafile_field_index(calibration_schema(), buf, "busbw_gbps"), -1);
    assert_false(calibration_network_section(CALIBRATION_LINK_INTRA,
                                             CALIBRATION_ALLTOALL, buf, 8));
    assert_true(calibration_collective_from_key("alltoall", &k));
    assert_int_equal(k, CALIBRATION_ALLTOALL);
    assert_false(calibration_collective_from_key("sendrecv", &k));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibration_gemm_interpolates_in_log_m),
        cmocka_unit_test(test_calibration_gemm_clamps_beyond_the_table),
        cmocka_unit_test(test_calibration_attn_proj_is_the_flop_weighted_mean),
        cmocka_unit_test(test_calibration_attention_by_head_dim),
        cmocka_unit_test(test_calibration_elementwise_router_clock),
        cmocka_unit_test(test_calibration_attention_real_widths),
        cmocka_unit_test(test_calibration_attention_length),
        cmocka_unit_test(test_calibration_attention_flash2),
        cmocka_unit_test(test_calibration_busbw_by_message_size),
        cmocka_unit_test(test_calibration_files_cite_every_value),
        cmocka_unit_test(test_calibration_equal_rates_and_set),
        cmocka_unit_test(test_calibration_casts_need_their_factor),
        cmocka_unit_test(test_calibration_load_reports_every_bad_value),
        cmocka_unit_test(test_calibration_load_bounds_every_value),
        cmocka_unit_test(test_calibration_check_hardware_refuses_another_gpu),
        cmocka_unit_test(
            test_calibration_check_hardware_refuses_rates_above_peak),
        cmocka_unit_test(
            test_calibration_check_floor_refuses_rates_above_floor),
        cmocka_unit_test(test_calibration_keys),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
