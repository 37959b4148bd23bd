/*
 * calibration_hardware: a calibration against the hardware file it is
 * used with: the same GPU, no rate above the GPU's peak (the expected step
 * would beat the speed of light), and no rate at the sustained clock above
 * the rate the speed of light prices the same work at (the floor). The
 * file's own checks are calibration.c's.
 */
#include "calibration.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

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
        snprintf(section, sizeof section, "gemm_%s",
                 calibration_gemm_key((enum calibration_gemm)i));
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
        snprintf(section, sizeof section, "gemm_%s",
                 calibration_gemm_key((enum calibration_gemm)i));
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
        snprintf(section, sizeof section, "%s_tbps",
                 calibration_elementwise_key((enum calibration_elementwise)i));
        above_peak(cal, hw, d, "elementwise", section, "", cal->spec.ew_tbps[i],
                   "hbm_peak_tbps", h->hbm_peak_tbps);
    }
    diag_finish(d);
    return d->lines > lines ? STATUS_RANGE : STATUS_OK;
}
