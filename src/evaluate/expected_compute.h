/*
 * expected_compute: the expected step's compute work of one pipeline
 * rank: its GEMMs timed at the measured rates of their shapes (the most
 * loaded expert-parallel rank's and the mean's), its attention kernels at
 * theirs, its elementwise, loss, router and FP8-cast work at the measured
 * bandwidths, the speed of light's time for the same FLOPs (the floor
 * the calibrated times are capped at), and the host's launch work. Part
 * of the expected step (expected.h): expected_fill calls it; the GEMM
 * classes serve the trace import too.
 */
#ifndef PROJ_EXPECTED_COMPUTE_H
#define PROJ_EXPECTED_COMPUTE_H

#include <stdbool.h>

#include "calibration.h"
#include "expected.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "stack.h"

/*
 * The calibration class that times the model's GEMM kind g (enum
 * model_gemm): routed and shared experts' up and down projections the
 * expert classes, the router's logits the attention projections' class
 * (calibration.h says which GEMM goes where).
 */
enum calibration_gemm expected_gemm_class(int g);

/* Whether an FP8 plan runs GEMM kind g in FP8 (the model's [fp8] flags). */
bool expected_gemm_fp8(const struct model_spec *s, int g);

/*
 * Fills x's compute work (gemm_*, attn_*, ew_*, host_s, host_paced_s,
 * expert_host_s) for rank rk of plan p on model m and cluster hw, with
 * calibration cal and stack st (neither NULL), after x->load is set.
 * Looks up and keeps GEMM rates in rk->memo (NULL: none kept).
 */
void expected_compute_fill(const struct model *m,
                           const struct hardware *hw,
                           const struct calibration *cal,
                           const struct stack *st,
                           const struct plan *p,
                           const struct expected_rank *rk,
                           struct expected_work *x);

#endif
