/*
 * test_hardware: the hardware file — its checks across keys, the lower
 * bounds that keep every time finite, and the SI rates derived from it
 * (by hand from the H800 snapshot, tests/data/snap/hardware/h800.ini).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "hardware.h"
#include "test_util.h"

#define H800 "tests/data/snap/hardware/h800.ini"

static void assert_has_line(const char *msg, const char *line)
{
    if (!strstr(msg, line))
        fail_msg("message lacks \"%s\"; it was:\n%s", line, msg);
}

static void load(struct hardware *h, const char *set_arg)
{
    struct datafile_set s;
    struct diag d;
    diag_init(&d);
    if (set_arg && datafile_parse_set(set_arg, &s, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    if (hardware_load(H800, h, &s, set_arg ? 1 : 0, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
}

/*
 * The H800 by hand: the clock holds (derate 1.0), and the 20 of 132 SMs
 * that run communication are charged only while it runs (terms.c's
 * comm_sm), so the rates are the achievable ones: BF16 758e12 FLOP/s,
 * FP8 1460e12;
 * peaks unchanged (989e12, 1979e12); HBM 3.0 TB/s = 3e12 B/s; NVLink 160
 * GB/s = 1.6e11 B/s, IB 50 GB/s = 5e10 B/s; the collectives file it
 * names (tests/data/snap/collectives/nccl.ini) loaded, its Simple ring's
 * steps 3.4 us in a node and 14 us across nodes;
 * 79.21 GiB = 79.21 x 2^30 = 85,051,089,879 bytes; NVLink domain 0 in the
 * file: a host of 8.
 */
static void test_hardware_load_derives_si_rates(void **state)
{
    struct hardware h;
    (void)state;
    load(&h, NULL);
    assert_near(h.compute_derate, 1, 1e-15);
    assert_near(h.bf16_flops, 758e12, 1e-15);
    assert_near(h.fp8_flops, 1460e12, 1e-15);
    assert_near(h.bf16_peak_flops, 989e12, 1e-15);
    assert_near(h.fp8_peak_flops, 1979e12, 1e-15);
    assert_near(h.hbm_bps, 3e12, 1e-15);
    assert_near(h.nvlink_bps, 1.6e11, 1e-15);
    assert_near(h.ib_bps, 5e10, 1e-15);
    assert_true(h.coll != NULL);
    assert_near(h.coll_step_s, 3.4e-6, 1e-15);
    assert_near(h.coll_net_step_s, 14e-6, 1e-15);
    assert_near(h.capacity_bytes, 85051089879.04, 1e-12);
    assert_int_equal(h.domain, 8);
    hardware_release(&h);
}

/* hardware_derive() follows a changed spec (the sensitivity sheet's
 * re-timing): IB at 25 GB/s is 2.5e10 B/s; a clock at 90% is a compute
 * derate of 0.9. */
static void test_hardware_derive_after_a_change(void **state)
{
    struct hardware h;
    (void)state;
    load(&h, NULL);
    h.spec.ib_gbps = 25;
    h.spec.clock_derate = 0.9;
    hardware_derive(&h);
    assert_near(h.ib_bps, 2.5e10, 1e-15);
    assert_near(h.compute_derate, 0.9, 1e-15);
    hardware_release(&h);
}

/* An NVLink domain of whole hosts is what placement calls a node (72
 * GPUs: 9 hosts of 8); one that splits a host is refused, naming --set
 * (no line: the value came from the command line). */
static void test_hardware_nvlink_domain(void **state)
{
    struct hardware h;
    struct datafile_set s;
    struct diag d;
    (void)state;
    load(&h, "cluster.nvlink_domain=72");
    assert_int_equal(h.domain, 72);
    hardware_release(&h);
    diag_init(&d);
    assert_int_equal(datafile_parse_set("cluster.nvlink_domain=12", &s, &d),
                     STATUS_OK);
    assert_int_equal(hardware_load(H800, &h, &s, 1, &d), STATUS_RANGE);
    assert_string_equal(d.msg, H800 ": --set cluster.nvlink_domain=12: "
                                    "expected whole hosts: a multiple of "
                                    "gpus_per_node (8), got 12");
}

/* A GPU with FP8 peaks needs an achievable FP8 rate. */
static void test_hardware_fp8_rate_required(void **state)
{
    struct hardware h;
    struct datafile_set s;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(datafile_parse_set("gpu.fp8_achievable_tflops=0", &s, &d),
                     STATUS_OK);
    assert_int_equal(hardware_load(H800, &h, &s, 1, &d), STATUS_RANGE);
    assert_string_equal(d.msg, H800 ": --set gpu.fp8_achievable_tflops=0: "
                                    "required (> 0) when fp8_peak_tflops > 0");
}

/* Rules across keys name the key and its line (tests/data/bad/
 * hw-cross.ini: achievable 1000 above the peak 989, 132 SMs for
 * communication of 132, 20 GPUs in nodes of 8). */
static void test_hardware_load_cross_field_checks(void **state)
{
    struct hardware h;
    struct diag d;
    (void)state;
    diag_init(&d);
    assert_int_equal(
        hardware_load("tests/data/bad/hw-cross.ini", &h, NULL, 0, &d),
        STATUS_RANGE);
    assert_has_line(d.msg, "hw-cross.ini:4: gpu.bf16_achievable_tflops: 1000 "
                           "is above gpu.bf16_peak_tflops (989)");
    assert_has_line(d.msg, "hw-cross.ini:9: gpu.comm_sms: expected fewer "
                           "than gpu.sms (132), got 132");
    assert_has_line(d.msg, "hw-cross.ini:12: cluster.gpus: 20 GPUs do not "
                           "fill whole nodes of 8 (gpus_per_node)");
}

/* The physical lower bounds keep every time finite: a clock derate of
 * 3e-308 made the compute time infinite and the step NaN. */
static void test_hardware_rates_have_lower_bounds(void **state)
{
    static const char *const refused[] = {
        "gpu.clock_derate=3e-308",  "gpu.clock_derate=0.09",
        "gpu.bf16_peak_tflops=0.5", "gpu.hbm_achievable_tbps=0.05",
        "cluster.ib_gbps=0.01",     "cluster.nvlink_gbps=0.5",
        "gpu.hbm_gib=0.5",          "gpu.fp8_achievable_tflops=0.5"};
    struct hardware h;
    struct diag d;
    struct datafile_set s;
    size_t i;
    (void)state;
    for (i = 0; i < sizeof refused / sizeof *refused; i++) {
        diag_init(&d);
        assert_int_equal(datafile_parse_set(refused[i], &s, &d), STATUS_OK);
        if (hardware_load(H800, &h, &s, 1, &d) == STATUS_OK) {
            hardware_release(&h);
            fail_msg("%s accepted", refused[i]);
        }
    }
    diag_init(&d);
    datafile_parse_set("gpu.clock_derate=0.1", &s, &d);
    assert_int_equal(hardware_load(H800, &h, &s, 1, &d), STATUS_OK);
    hardware_release(&h);
    diag_init(&d);
    datafile_parse_set("gpu.fp8_achievable_tflops=0.5", &s, &d);
    assert_int_not_equal(hardware_load(H800, &h, &s, 1, &d), STATUS_OK);
    assert_has_line(d.msg, "--set gpu.fp8_achievable_tflops=0.5: expected 0 "
                           "(no FP8) or at least 1, got 0.5");
}

/* The H800 with IB at 400 GB/s (4e11 B/s): only IB moves; NVLink stays
 * 160 GB/s (1.6e11 B/s); and with NVLink at 900 GB/s, IB stays 50. */
static void test_hardware_at_link(void **state)
{
    struct hardware h, at;
    (void)state;
    load(&h, NULL);
    hardware_at_link(&h, HARDWARE_LINK_IB, 400, &at);
    assert_near(at.spec.ib_gbps, 400, 0);
    assert_near(at.ib_bps, 4e11, 1e-15);
    assert_near(at.nvlink_bps, 1.6e11, 1e-15);
    hardware_at_link(&h, HARDWARE_LINK_NVLINK, 900, &at);
    assert_near(at.nvlink_bps, 9e11, 1e-15);
    assert_near(at.ib_bps, 5e10, 1e-15);
    assert_near(h.ib_bps, 5e10, 1e-15); /* the original is untouched */
    hardware_release(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hardware_at_link),
        cmocka_unit_test(test_hardware_load_derives_si_rates),
        cmocka_unit_test(test_hardware_derive_after_a_change),
        cmocka_unit_test(test_hardware_nvlink_domain),
        cmocka_unit_test(test_hardware_fp8_rate_required),
        cmocka_unit_test(test_hardware_load_cross_field_checks),
        cmocka_unit_test(test_hardware_rates_have_lower_bounds),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
