/*
 * test_goodput: failures, checkpoints and energy worked by hand (see
 * goodput.h). The numbers in the comments were worked on paper from the
 * sources they name, never from goodput.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <string.h>

#include "goodput.h"
#include "test_util.h"

/* A dense model of `params` parameters trained in BF16 with FP32 master
 * weights and Adam moments (2 + 4 + 2 x 4 = 14 bytes a parameter), on a
 * cluster of H100 as Llama 3's (data/hardware/h100.ini's values). */
static void llama(double params, struct model *m, struct hardware *hw)
{
    memset(m, 0, sizeof *m);
    memset(hw, 0, sizeof *hw);
    m->params_total = params;
    m->spec.weight_bytes = 2;
    m->spec.master_bytes = 4;
    m->spec.moment_bytes = 4;
    hw->spec.gpus_per_node = 8;
    hw->spec.failures_per_mgpu_hour = 19.73;
    hw->spec.storage_gbps = 2000;
    hw->spec.restart_min = 10;
    hw->spec.board_w = 700;
    hw->spec.pue = 1;
}

/* Llama 3 405B on 16,384 H100 (arXiv 2407.21783): 419 unexpected
 * interruptions in 54 days = 19.73 per million GPU-hours. By hand:
 * checkpoint 405e9 x 14 B = 5670 GB; write 5670 / 2000 = 2.835 s; restart
 * 600 + 2.835 = 602.835 s; lambda = 19.73 x 16384 / 1e6 = 0.32325632 /h,
 * M = 3.09352 h; tau = sqrt(2 x 2.835 x (602.835 + 11136.67) s) = 257.998 s;
 * share = (1 - 0.32325632 x (602.835 + (257.998 + 2.835) / 2) / 3600) /
 * (1 + 2.835 / 257.998) = 0.924005: the paper's "higher than 90%". */
static void test_goodput_llama3_405b(void **state)
{
    struct model m;
    struct hardware hw;
    struct goodput g;
    (void)state;
    llama(405e9, &m, &hw);
    goodput_of(&m, &hw, 16384, &g);
    assert_true(g.failures);
    assert_near(g.checkpoint_gb, 5670, 1e-12);
    assert_near(g.write_s, 2.835, 1e-12);
    assert_near(g.restart_s, 602.835, 1e-12);
    assert_near(g.failures_per_h, 0.32325632, 1e-12);
    assert_near(g.mtbf_h, 3.0935203, 1e-7);
    assert_near(g.interval_s, 257.99808, 1e-6);
    assert_near(g.share, 0.92400544, 1e-7);
    assert_true(g.share > 0.90);
    /* 54 days of compute take 54 / 0.924005 = 58.441 days on the clock */
    assert_near(goodput_wall_days(&g, 54), 58.44122, 1e-6);
}

/* The days by loss of the Llama 3 405B case above, 54 compute days, the
 * wall-clock equation term by term (by hand, from the figures above):
 * checkpoint writes 54 x 2.835 / 257.99808 = 0.593376 days; restarts W
 * lambda R = 58.441214 x 0.32325632 x 602.835 / 3600 = 3.163459 days;
 * lost work W lambda (tau + delta)/2 = 58.441214 x 0.32325632 x (257.99808
 * + 2.835) / 7200 = 0.684379 days; 54 + the three = 58.441214 = W. Shown
 * to a tenth, each step the difference of its rounded running totals
 * (54.0, 54.6, 57.8, 58.4): rounding each step alone would give 0.6, 3.2
 * and 0.7, which add up to 58.5, not the 58.4 wall-clock days shown. */
static void test_goodput_losses_llama3_405b(void **state)
{
    struct model m;
    struct hardware hw;
    struct goodput g;
    struct goodput_losses l;
    char words[GOODPUT_LOSSES_TEXT];
    (void)state;
    llama(405e9, &m, &hw);
    goodput_of(&m, &hw, 16384, &g);
    goodput_losses_of(&g, 54, &l);
    assert_near(l.compute, 54, 0);
    assert_near(l.checkpoints, 0.5933765, 1e-6);
    assert_near(l.restarts, 3.163459, 1e-6);
    assert_near(l.lost_work, 0.6843786, 1e-6);
    assert_near(l.wall, 58.441214, 1e-7);
    assert_near(l.compute + l.checkpoints + l.restarts + l.lost_work, l.wall,
                1e-15);
    goodput_losses_words(&l, words, sizeof words);
    assert_string_equal(words, "54.0 compute + 0.6 checkpoint writes + 3.2 "
                               "restarts and read-back + 0.6 work lost to "
                               "failures = 58.4 wall-clock days");
    /* no failure rate: compute days are the wall-clock days */
    hw.spec.failures_per_mgpu_hour = 0;
    goodput_of(&m, &hw, 16384, &g);
    goodput_losses_of(&g, 54, &l);
    assert_near(l.wall, 54, 0);
    assert_near(l.checkpoints + l.restarts + l.lost_work, 0, 0);
}

/* No failure rate: nothing lost, no interval. */
static void test_goodput_without_failures(void **state)
{
    struct model m;
    struct hardware hw;
    struct goodput g;
    (void)state;
    llama(8e9, &m, &hw);
    hw.spec.failures_per_mgpu_hour = 0;
    goodput_of(&m, &hw, 1024, &g);
    assert_false(g.failures);
    assert_near(g.share, 1, 0);
    assert_near(g.interval_s, 0, 0);
    assert_near(goodput_wall_days(&g, 12.5), 12.5, 0);
    /* the checkpoint's write is still a time: 8e9 x 14 / 2000 GB/s */
    assert_near(g.write_s, 0.056, 1e-12);
}

/* With no restart time Daly's first-order interval sqrt(2 d (R + M))
 * keeps R = the read back of the checkpoint: 1e12 params x 14 B = 14,000
 * GB at 100 GB/s, d = 140 s = R; one GPU at 1e6 failures per million
 * GPU-hours fails once an hour, M = 3600 s: tau = sqrt(2 x 140 x 3740) =
 * 1023.33 s (Young's sqrt(2 d M) would be 1003.99 s). */
static void test_goodput_daly_interval(void **state)
{
    struct model m;
    struct hardware hw;
    struct goodput g;
    (void)state;
    llama(1e12, &m, &hw);
    hw.spec.storage_gbps = 100;
    hw.spec.restart_min = 0;
    hw.spec.failures_per_mgpu_hour = 1e6;
    goodput_of(&m, &hw, 1, &g);
    assert_near(g.interval_s, 1023.3279, 1e-7);
    /* share = (1 - (140 + (1023.328 + 140) / 2) / 3600) /
     * (1 + 140 / 1023.328) = (1 - 721.664 / 3600) / 1.136808 = 0.703318 */
    assert_near(g.share, 0.703318, 1e-6);
}

/* Llama 3.1's model card: 39.3M H100 GPU-hours at 700 W and 11,390 t
 * CO2eq location-based, which is 0.41403 kg per kWh. At PUE 1 and the
 * board's power the energy is 39.3e6 x 0.7 kW = 27,510 MWh and the
 * emissions the card's 11,390 t. */
static void test_goodput_energy_llama_card(void **state)
{
    struct model m;
    struct hardware hw;
    struct goodput g;
    double days = 39.3e6 / 24 / 16384, mwh;
    (void)state;
    llama(405e9, &m, &hw);
    hw.spec.grid_kg_per_kwh = 11390.0 / 27510.0;
    goodput_of(&m, &hw, 16384, &g);
    assert_true(g.energy);
    assert_near(g.gpu_w, 700, 0);
    mwh = goodput_energy_mwh(&g, &hw, days);
    assert_near(mwh, 27510, 1e-12);
    assert_near(goodput_tco2e(&hw, mwh), 11390, 1e-12);
    /* with a node's power (DGX H100: 10.2 kW for 8 GPUs) and PUE 1.1: 1275
     * W x 1.1 a GPU; one 10-s step on 16,384 GPUs: 10 / 3600 h x 16384 x
     * 1.4025 kW = 63.83 kWh */
    hw.spec.node_w = 10200;
    hw.spec.pue = 1.1;
    goodput_of(&m, &hw, 16384, &g);
    assert_near(g.gpu_w, 1275, 0);
    assert_near(goodput_step_kwh(&g, &hw, 10), 63.829333, 1e-7);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_goodput_llama3_405b),
        cmocka_unit_test(test_goodput_losses_llama3_405b),
        cmocka_unit_test(test_goodput_without_failures),
        cmocka_unit_test(test_goodput_daly_interval),
        cmocka_unit_test(test_goodput_energy_llama_card),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
