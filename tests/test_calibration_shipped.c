/*
 * test_calibration_shipped: every shipped cluster has a calibration, and
 * the shipped calibration files read back the figures their sources
 * publish. Like test_anchors, these read data/ itself on purpose (not the
 * snapshots in tests/data/snap/): a data edit that drops a calibration or
 * moves a cited figure fails here. assert_near's tolerance is relative:
 * 1e-4 covers a file's rounding to 0.1 TFLOP/s, 2e-3 to 0.01 TB/s.
 *
 * Stage: input (the shipped calibration files)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "calibration.h"
#include "hardware.h"
#include "test_util.h"

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
                   double m)
{
    bool outside = false;
    return calibration_gemm_tflops(cal, cls, p, m, &outside);
}

/*
 * Every data/hardware/NAME.ini has data/calibration/NAME.ini (the
 * convention calibration_find follows), it loads, and no rate in it is
 * above its GPU's datasheet peaks: GEMM and attention TFLOP/s against the
 * BF16 and FP8 dense peaks, elementwise TB/s against the HBM peak.
 */
static void test_calibration_every_shipped_gpu_has_one(void **state)
{
    DIR *dir = opendir("data/hardware");
    struct dirent *e;
    size_t n = 0;
    (void)state;
    assert_non_null(dir);
    while ((e = readdir(dir)) != NULL) {
        char hw_path[512], cal_path[1300];
        size_t len = strlen(e->d_name);
        struct hardware hw;
        struct calibration cal;
        struct diag d;
        if (len < 5 || e->d_name[0] == '.' ||
            strcmp(e->d_name + len - 4, ".ini") != 0)
            continue;
        snprintf(hw_path, sizeof hw_path, "data/hardware/%s", e->d_name);
        if (!calibration_find(hw_path, "data", cal_path, sizeof cal_path))
            fail_msg("%s has no calibration in data/calibration/", hw_path);
        diag_init(&d);
        if (hardware_load(hw_path, &hw, NULL, 0, &d) != STATUS_OK)
            fail_msg("%s", d.msg);
        load(&cal, cal_path);
        if (calibration_max_tflops(&cal, CALIBRATION_BF16) >
            hw.spec.bf16_peak_tflops)
            fail_msg("%s: BF16 %g above the peak %g", cal_path,
                     calibration_max_tflops(&cal, CALIBRATION_BF16),
                     hw.spec.bf16_peak_tflops);
        if (calibration_max_tflops(&cal, CALIBRATION_FP8) >
            hw.spec.fp8_peak_tflops)
            fail_msg("%s: FP8 %g above the peak %g", cal_path,
                     calibration_max_tflops(&cal, CALIBRATION_FP8),
                     hw.spec.fp8_peak_tflops);
        if (calibration_max_tbps(&cal) > hw.spec.hbm_peak_tbps)
            fail_msg("%s: %g TB/s above the HBM peak %g", cal_path,
                     calibration_max_tbps(&cal), hw.spec.hbm_peak_tbps);
        calibration_release(&cal);
        hardware_release(&hw);
        n++;
    }
    closedir(dir);
    /* a100 b200 gb200-nvl72 h100 h20 h200 h800 mi300x mi355x */
    assert_true(n >= 9);
}

/*
 * B200 and GB200 (sm_100): XLA's measured matmul table
 * (xla/service/gpu/model/matmul_interpolator_data.h, ROCm/xla commit
 * 63ce2981d3f46d47fb25509a2d257f428f3dd275, key "sm_100_B200", b = 1), in
 * FLOP/s: (m 4096, n 4096, k 2048) bf16 1277788708367422; (m 1024, n 4096,
 * k 4096) e4m3 x e4m3 1937615652625049; (m 4096, n 4096, k 4096) bf16
 * 1416867213789406. Halfway between m 512 (990479630095128) and m 1024
 * (1213953447145279) in ln M, at M = sqrt(512 x 1024) = 724.08, the
 * lookup gives the mean, 1102.2 TFLOP/s.
 */
static void test_calibration_sm100_reads_the_xla_table(void **state)
{
    struct calibration b200, gb200;
    (void)state;
    load(&b200, "data/calibration/b200.ini");
    load(&gb200, "data/calibration/gb200-nvl72.ini");
    assert_near(
        gemm(&b200, CALIBRATION_GEMM_EXPERT_DOWN, CALIBRATION_BF16, 4096),
        1277788708367422e-12, 1e-4);
    assert_near(gemm(&b200, CALIBRATION_GEMM_ATTN_PROJ, CALIBRATION_FP8, 1024),
                1937615652625049e-12, 1e-4);
    assert_near(
        gemm(&b200, CALIBRATION_GEMM_EXPERT_UP, CALIBRATION_BF16, 724.0773),
        (990479630095128e-12 + 1213953447145279e-12) / 2, 1e-4);
    /* The GB200 takes the B200's measurements (the same sm_100 GPU). */
    assert_near(gemm(&gb200, CALIBRATION_GEMM_DENSE_UP, CALIBRATION_BF16, 4096),
                1416867213789406e-12, 1e-4);
    calibration_release(&gb200);
    calibration_release(&b200);
}

/*
 * H20: torch.matmul BF16 10240^3 at 142.25 TFLOP/s
 * (zzc0721/torch-performance-test-data #77), held at every M; FP8 =
 * 142.25 x the H200's FP8/BF16 dense-up ratio 1304/687 = 270.0; attention
 * = the H200's 591 TFLOP/s forward (head dim 128) x 142.25/776 = 108.34.
 */
static void test_calibration_h20_derivations(void **state)
{
    struct calibration h20;
    bool outside = false;
    (void)state;
    load(&h20, "data/calibration/h20.ini");
    assert_near(calibration_gemm_tflops(&h20, CALIBRATION_GEMM_EXPERT_UP,
                                        CALIBRATION_BF16, 128, &outside),
                142.25, 1e-9);
    assert_true(outside);
    assert_near(gemm(&h20, CALIBRATION_GEMM_HEAD, CALIBRATION_FP8, 4096),
                142.25 * 1304 / 687, 1e-4);
    assert_near(
        calibration_attention_tflops(&h20, CALIBRATION_ATTN_FWD, 128, &outside),
        591 * 142.25 / 776, 5e-4);
    /* HBM3 4.0 TB/s against the H200's 4.8: copy 4.30 x 4.0/4.8 = 3.583 */
    assert_near(calibration_elementwise_tbps(&h20, CALIBRATION_EW_COPY),
                4.30 * 4.0 / 4.8, 2e-3);
    /* RMSNorm is not HBM-bound on the H200 (2.78 of 4.30 TB/s): bound by
     * the SMs, 78 of the H200's 132: 2.78 x 78/132 = 1.6427 */
    assert_near(calibration_elementwise_tbps(&h20, CALIBRATION_EW_NORM),
                2.78 * 78 / 132, 1e-3);
    calibration_release(&h20);
}

/*
 * MI300X and MI355X: the ml-engineering MAMF table's BF16 rates, 668.4 and
 * 1565.0 TFLOP/s; attention forward at head dim 128 = 591 x 668.4/776 =
 * 509.05; MI355X RMSNorm = the H200's 2.78 TB/s, not scaled by the copy
 * ratio (not HBM-bound on the H200: 2.78 of its 4.30 TB/s copy, issue 17).
 */
static void test_calibration_amd_derivations(void **state)
{
    struct calibration mi300x, mi355x;
    bool outside = false;
    (void)state;
    load(&mi300x, "data/calibration/mi300x.ini");
    load(&mi355x, "data/calibration/mi355x.ini");
    assert_near(
        gemm(&mi300x, CALIBRATION_GEMM_DENSE_DOWN, CALIBRATION_BF16, 8192),
        668.4, 1e-9);
    assert_near(
        gemm(&mi355x, CALIBRATION_GEMM_DENSE_DOWN, CALIBRATION_BF16, 8192),
        1565.0, 1e-9);
    assert_near(calibration_attention_tflops(&mi300x, CALIBRATION_ATTN_FWD, 128,
                                             &outside),
                591 * 668.4 / 776, 1e-4);
    assert_near(calibration_elementwise_tbps(&mi355x, CALIBRATION_EW_NORM),
                2.78, 1e-12);
    calibration_release(&mi355x);
    calibration_release(&mi300x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_calibration_every_shipped_gpu_has_one),
        cmocka_unit_test(test_calibration_sm100_reads_the_xla_table),
        cmocka_unit_test(test_calibration_h20_derivations),
        cmocka_unit_test(test_calibration_amd_derivations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
