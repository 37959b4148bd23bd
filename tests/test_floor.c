/*
 * test_floor: the step-end DP term by hand (terms.c f_dp), where the
 * floor's old compute window put the speed of light above the expected
 * step. The floor over whole sweeps (every plan of the default space on
 * the default inputs and on every validation run's) is the slow tier's:
 * tests/slow/test_floor_sweeps.c (make test-slow).
 *
 * Stage: evaluate (the speed of light's terms: src/evaluate/terms.c)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>

#include <cmocka.h>

#include <string.h>

#include "cost.h"
#include "hardware.h"
#include "model.h"
#include "test_util.h"

/*
 * The step-end DP term by hand (terms.c f_dp), a plan the floor's old
 * compute window got wrong. H800 links (IB 50 GB/s), no latency: IB
 * steady 200 GB (4 s) and a step-end gradient sync of 100 GB (2 s), 4
 * micro-batches, forward a third of the compute.
 * Speed of light: compute 1 s (758 TFLOP BF16 at 758); comm SMs
 * min(1, 4) x 20/132 = 0.15152 s; core max(1.15152, 4) = 4 s, IB-bound.
 * The sync hides under the last micro-batch's backward, the core's
 * share: 4 x (2/3) / 4 = 0.66667 s, so 2 - 0.66667 = 1.33333 s exposed;
 * step 4 + 1.33333 = 5.33333 s.
 * Expected (no calibration: clock 1; the stack hides the steady traffic
 * and the sync): compute 3 s; comm SMs min(3, 4) x 20/132 = 0.45455 s;
 * core max(3.45455, 4) = 4 s; the sync hides under the backward's
 * compute, 3 x (2/3) / 4 = 0.5 s: 1.5 s exposed; expected 5.5 s.
 * The floor's old window (its compute, 1 x (2/3) / 4 = 0.16667 s) left
 * 1.83333 s exposed: a floor of 5.83333 s above the expected 5.5 s.
 */
static void test_floor_dp_term_by_hand(void **state)
{
    struct model m;
    struct hardware hw;
    struct cost_work w;
    struct cost_times t;
    struct diag d;
    (void)state;
    diag_init(&d);
    util_model(&m, "tests/data/snap/models/deepseek-v3.ini", NULL, 0);
    if (hardware_load("tests/data/snap/hardware/h800.ini", &hw, NULL, 0, &d))
        fail_msg("%s", d.msg);
    hw.spec.comm_sms = 20;
    hw.spec.sms = 132;
    hw.spec.clock_derate = 1;
    hw.spec.ib_gbps = 50;
    hardware_derive(&hw);
    memset(&w, 0, sizeof w);
    w.bf16_flops = 758e12;
    w.ib_bytes = 300e9;
    w.ib_steady_bytes = 200e9;
    w.ib_sync_bytes = 100e9;
    w.microbatches = 4;
    w.fwd_share = 1.0 / 3;
    w.tokens = 1e6;
    w.gpus = 8;
    w.model_flops = 758e12;
    w.x.known = true;
    w.x.gemm_cal_s = 3;
    w.x.compute_overhead = w.x.network_efficiency = 1;
    w.x.hid_ib = w.x.hid_ib_raw = 200e9;
    w.x.sync_ib = w.x.ib_sync_raw = 100e9;
    w.x.grad_hide = w.x.param_hide = 1;
    w.x.fwd_share = 1.0 / 3;
    cost_times(&w, &hw, &m, MODEL_BF16, &t);
    assert_near(t.compute, 1, 1e-12);
    assert_near(t.core, 4, 1e-12);
    assert_int_equal(t.bound, COST_IB);
    assert_near(t.sync, 2, 1e-12);
    assert_near(t.dp_exposed, 2 - 4 * (2.0 / 3) / 4, 1e-12);
    assert_near(t.step, 5.0 + 1.0 / 3, 1e-12);
    assert_near(t.x_compute, 3, 1e-12);
    assert_near(t.x_core, 4, 1e-12);
    assert_near(t.x_dp, 1.5, 1e-12);
    assert_near(t.expected, 5.5, 1e-12);
    assert_true(t.expected >= t.step);
    hardware_release(&hw);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_floor_dp_term_by_hand),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
