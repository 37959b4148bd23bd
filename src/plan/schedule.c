/*
 * schedule: the pipeline schedules as rows of one table (plan.h, struct
 * plan_schedule_row): the words, the shape rules plan_check applies, and
 * each schedule's bubble, warm-up and in-flight rules, and what a stack's
 * overlap switches ask of it (virtual stages, paired forward and backward
 * chunks). A new schedule is its constant and PLAN word in plan.h and its
 * row here.
 *
 * Bubbles (DualPipe README table; Narayanan et al. 2021 §2.2; Qi et al.
 * 2024), with F, B, W the forward, full backward and weight-gradient
 * times of one micro-batch through one stage:
 *   1F1B (p-1)(F+B); interleaved (p-1)(F+B)/v; ZB1P (p-1)(F+B-2W);
 *   DualPipe (p/2-1)(F&B+B-3W), F&B = F+B (forward and backward chunks
 *   overlapped); each below in units of F+B, with f, w, b = F, W, B over
 *   F+B (cost.c splits F+B by FLOPs).
 */
#include <assert.h>
#include <stdbool.h>

#include "plan.h"

static double bubble_1f1b(const struct plan *p, double f, double w, double b)
{
    (void)f, (void)w, (void)b;
    return (double)p->pp - 1;
}

static double
bubble_interleaved(const struct plan *p, double f, double w, double b)
{
    (void)f, (void)w, (void)b;
    return ((double)p->pp - 1) / (double)p->vpp;
}

static double bubble_zb(const struct plan *p, double f, double w, double b)
{
    (void)f, (void)b;
    return ((double)p->pp - 1) * (1 - 2 * w);
}

static double
bubble_dualpipe(const struct plan *p, double f, double w, double b)
{
    (void)f;
    return ((double)p->pp / 2 - 1) * (1 + b - 3 * w);
}

/* 1F1B and ZB1P: rank r runs pp - r - 1 forwards before its first
 * backward. */
static double warmup_1f1b(const struct plan *p, long rank)
{
    return (double)p->pp - (double)rank - 1;
}

/* Megatron-LM's interleaved warm-up, (pp - r - 1) 2 + (vpp - 1) pp
 * chunk forwards, in micro-batches of the rank's vpp chunks. */
static double warmup_interleaved(const struct plan *p, long rank)
{
    double pp = (double)p->pp, r = (double)rank, v = (double)p->vpp;
    return ((pp - r - 1) * 2 + (v - 1) * pp) / v;
}

/* DualPipe: pp forwards (of both directions) before the steady state. */
static double warmup_dualpipe(const struct plan *p, long rank)
{
    (void)rank;
    return (double)p->pp;
}

static double cap(double n, double m)
{
    return n < m ? n : m;
}

/* 1F1B and ZB1P: pp - rank. */
static double inflight_1f1b(const struct plan *p, long rank)
{
    return cap((double)(p->pp - rank), (double)p->microbatches);
}

/* Megatron-LM's warm-up count: 2(pp - rank - 1) + (vpp - 1) pp + 1 chunk
 * micro-batches (Korthikanti et al. §4.2.3). */
static double inflight_interleaved(const struct plan *p, long rank)
{
    double n = (double)(2 * (p->pp - rank - 1) + (p->vpp - 1) * p->pp + 1);
    return cap(n, (double)p->microbatches * (double)p->vpp);
}

/* DualPipe: pp + 1 (DualPipe README, Table). */
static double inflight_dualpipe(const struct plan *p, long rank)
{
    (void)rank;
    return cap((double)(p->pp + 1), (double)p->microbatches);
}

static const struct plan_schedule_row rows[PLAN_SCHEDULES] = {
    [PLAN_1F1B] = {.name = "1f1b",
                   .words = "1F1B",
                   .layout = PLAN_LAYOUT_SINGLE,
                   .shape_reason = PLAN_OK,
                   .copies = 1,
                   .bubble = bubble_1f1b,
                   .warmup = warmup_1f1b,
                   .inflight = inflight_1f1b},
    [PLAN_INTERLEAVED] = {.name = "interleaved",
                          .words = "interleaved 1F1B",
                          .layout = PLAN_LAYOUT_INTERLEAVED,
                          .vpp = true,
                          .mb_pp = true,
                          .shape_reason = PLAN_BAD_INTERLEAVED,
                          .copies = 1,
                          .bubble = bubble_interleaved,
                          .warmup = warmup_interleaved,
                          .inflight = inflight_interleaved},
    [PLAN_ZB] = {.name = "zb",
                 .words = "zero-bubble (ZB1P)",
                 .layout = PLAN_LAYOUT_SINGLE,
                 .shape_reason = PLAN_OK,
                 .copies = 1,
                 .bubble = bubble_zb,
                 .warmup = warmup_1f1b,
                 .inflight = inflight_1f1b},
    [PLAN_DUALPIPE] = {.name = "dualpipe",
                       .words = "DualPipe",
                       .layout = PLAN_LAYOUT_PAIRED,
                       .pp_even = true,
                       .mb_even = true,
                       .shape_reason = PLAN_BAD_DUALPIPE,
                       .copies = 2,
                       .bubble = bubble_dualpipe,
                       .warmup = warmup_dualpipe,
                       .inflight = inflight_dualpipe,
                       .paired_fb = true},
};

const struct plan_schedule_row *plan_schedule_of(int schedule)
{
    assert(schedule >= 0 && schedule < PLAN_SCHEDULES);
    return &rows[schedule];
}

long plan_schedule_mb_unit(int schedule, long pp)
{
    const struct plan_schedule_row *s = plan_schedule_of(schedule);
    return (s->mb_even ? 2 : 1) * (s->mb_pp ? pp : 1);
}
