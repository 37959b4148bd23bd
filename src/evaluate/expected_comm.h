/*
 * expected_comm: the expected step's communication work of one pipeline
 * rank: its collectives' bytes purpose by purpose (EP, TP, PP, CP, DP
 * with the micro-batches, the ramp's own, the step-end sync and gather),
 * hidden under compute or exposed as the stack says, after the network's
 * efficiency at each message's size (the calibration's nccl-tests curves,
 * NCCL's share of the IB rate, DeepEP's measured shares), with dropless
 * routing's load on each link. Part of the expected step (expected.h):
 * expected_fill calls it; nothing else does.
 */
#ifndef PROJ_EXPECTED_COMM_H
#define PROJ_EXPECTED_COMM_H

#include "calibration.h"
#include "expected.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "stack.h"

/*
 * Fills x's communication work (hid_*, xp_*, dep_*, sync_*, gather_*,
 * ep_*, load_ib, load_nv, grad_hide, param_hide) for rank rk of plan p
 * on model m and cluster hw, with calibration cal (NULL: every link at
 * its full rate) and stack st (not NULL), after x->load is set. Looks
 * up and keeps efficiencies in rk->memo (NULL: none kept).
 */
void expected_comm_fill(const struct model *m,
                        const struct hardware *hw,
                        const struct calibration *cal,
                        const struct stack *st,
                        const struct plan *p,
                        const struct expected_rank *rk,
                        struct expected_work *x);

#endif
