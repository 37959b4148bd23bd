/*
 * figures_headline: the words of the report (see figures_internal.h): the
 * Plans sheet's rows with the fastest and the recommended plan and their
 * ties, each family's sentence, the headline (verdict, costs at the speed
 * of light and expected, the difference from published runs, the other
 * communication model's pick), why not the baseline, and the notes.
 */
#include "figures_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "ranking.h"
#include "sweep.h"
#include "terms_memory.h"
#include "validation.h"

#define GIB 1073741824.0

/* ---- Words ---- */

/* The other communication model's name. */
static const char *other_model(const struct views *r)
{
    return comm_model_str(r->in->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO);
}

/* "hierarchical (topo)" / "flat". */
static const char *model_words(enum comm_model comm)
{
    return comm == COMM_TOPO ? "the hierarchical (topo) model"
                             : "the flat model";
}

static const char *recompute_words(int r)
{
    switch (r) {
    case MODEL_RECOMPUTE_SELECTIVE:
        return "selective recomputation";
    case MODEL_RECOMPUTE_FULL:
        return "full recomputation";
    default:
        return "no recomputation";
    }
}

/* "TP 2 x PP 2 (zero-bubble (ZB1P)) x EP 256, ZeRO-1 over DP 1024, FP8,
 * no recomputation, micro-batch 1, global batch 15360 sequences". */
static void plan_words(const struct plan *p, char *buf, size_t size)
{
    char pp[96] = "", dp[64];
    const struct plan_schedule_row *s = plan_schedule_of(p->schedule);
    if (p->pp > 1 && s->vpp)
        snprintf(pp, sizeof pp, " x PP %ld (%s, %ld chunks)", p->pp, s->words,
                 p->vpp);
    else if (p->pp > 1)
        snprintf(pp, sizeof pp, " x PP %ld (%s)", p->pp, s->words);
    if (p->zero > 0)
        snprintf(dp, sizeof dp, "ZeRO-%ld over DP %ld", p->zero, p->dp);
    else
        snprintf(dp, sizeof dp, "plain DP %ld", p->dp);
    snprintf(buf, size,
             "TP %ld%s x EP %ld%s, %s, %s, %s, micro-batch %ld, global "
             "batch %ld sequences",
             p->tp, pp, p->ep, p->cp > 1 ? " x CP" : "", dp,
             p->precision == MODEL_FP8 ? "FP8" : "BF16",
             recompute_words(p->recompute), p->mbs, p->gbs);
}

/* "TP 2 × PP 16 zero-bubble × EP 32, ZeRO-1, FP8": the plan as a
 * headline names it (the degrees, the schedule, the sharding, the
 * precision; the recomputation when there is one). */
static void plan_title(const struct plan *p, char *buf, size_t size)
{
    const struct plan_schedule_row *row = plan_schedule_of(p->schedule);
    char pp[96] = "", cp[32] = "", dp[32], rc[48] = "";
    /* the schedule's words without their parenthesis ("zero-bubble"),
     * with the chunks per rank where it has virtual stages */
    int words = (int)strcspn(row->words, "(");
    while (words > 0 && row->words[words - 1] == ' ')
        words--;
    if (p->pp > 1 && row->vpp)
        snprintf(pp, sizeof pp, " × PP %ld %.*s (%ld chunks)", p->pp, words,
                 row->words, p->vpp);
    else if (p->pp > 1)
        snprintf(pp, sizeof pp, " × PP %ld %.*s", p->pp, words, row->words);
    if (p->cp > 1)
        snprintf(cp, sizeof cp, " × CP %ld", p->cp);
    if (p->zero > 0)
        snprintf(dp, sizeof dp, "ZeRO-%ld", p->zero);
    else
        snprintf(dp, sizeof dp, "plain DP");
    if (p->recompute != MODEL_RECOMPUTE_NONE)
        snprintf(rc, sizeof rc, ", %s", recompute_words(p->recompute));
    diag_snprintf(buf, size, "TP %ld%s × EP %ld%s, %s, %s%s", p->tp, pp, p->ep,
                  cp, dp, p->precision == MODEL_FP8 ? "FP8" : "BF16", rc);
}

/* "TP 2, PP 2 (zb), EP 256, ZeRO-1, FP8, recompute none, mbs 1". */
static void plan_short(const struct plan *p, char *buf, size_t size)
{
    char pp[48] = "", dp[32] = "";
    if (p->pp > 1)
        snprintf(pp, sizeof pp, ", PP %ld (%s)", p->pp,
                 plan_schedule_str(p->schedule));
    if (p->dp > 1 && p->zero > 0)
        snprintf(dp, sizeof dp, ", ZeRO-%ld", p->zero);
    else if (p->dp > 1)
        snprintf(dp, sizeof dp, ", plain DP");
    snprintf(buf, size, "TP %ld%s, EP %ld%s%s, %s, recompute %s, mbs %ld",
             p->tp, pp, p->ep, p->cp > 1 ? ", CP" : "", dp,
             p->precision == MODEL_FP8 ? "FP8" : "BF16",
             plan_recompute_str(p->recompute), p->mbs);
}

void figures_verdict(const struct cost_result *r, char *buf, size_t size)
{
    const struct cost_times *t = &r->t;
    int link = t->ib >= t->nvlink ? COST_IB : COST_NVLINK;
    double comm = link == COST_IB ? t->ib : t->nvlink;
    const struct expected_work *x = &r->work.x;
    char hide[240], dp[200] = "", off[160] = "";
    double steady = fmax(t->ib_steady, t->nvlink_steady) / t->compute;
    double wait = x->known ? t->x_offload : t->offload;
    /* activation offloading: the wait for its copies is inside the
     * compute-bound core, so it is named with its seconds */
    if (r->plan.offload > 0 && wait > 0)
        snprintf(off, sizeof off,
                 "; the GPU waits %.2f s a step for the copies of %ld "
                 "layers' activations to and from host memory",
                 wait, r->plan.offload);
    else if (r->plan.offload > 0)
        snprintf(off, sizeof off,
                 "; the copies of %ld layers' activations to and from host "
                 "memory hide under the passes",
                 r->plan.offload);
    /* the step-end DP time one micro-batch's compute does not hide,
     * named with its seconds: it is not under compute */
    if (t->dp_exposed > 0.001 * t->step)
        snprintf(dp, sizeof dp,
                 "; the step-end %s exposed: %.2f s of the %.2f s step",
                 t->sync > 0 && t->gather > 0
                     ? "gradient sync and weight gather are"
                 : t->gather > 0 ? "weight gather is"
                                 : "gradient sync is",
                 t->dp_exposed, t->step);
    /* "can hide" only for the traffic with the micro-batches (the
     * step-end sync is the dp clause's), and only where the stack
     * overlaps it */
    if (!(steady > 0.001))
        hide[0] = '\0';
    else if (!x->known)
        snprintf(hide, sizeof hide,
                 "; at the speed of light its traffic with the micro-batches "
                 "(%.2f s per second of compute) hides under compute (no "
                 "stack says how much a real run overlaps)",
                 steady);
    else if (t->x_exposed > 0.001 * t->expected)
        snprintf(hide, sizeof hide,
                 "; the stack does not overlap all of its traffic with the "
                 "micro-batches: %.2f s of communication is exposed in the "
                 "expected step",
                 t->x_exposed);
    else
        snprintf(hide, sizeof hide,
                 "; the stack overlaps its traffic with the micro-batches "
                 "(%.2f s per second of compute): it can hide under compute",
                 steady);
    if (t->bound == COST_COMPUTE)
        snprintf(buf, size,
                 "compute-bound: the busiest link (%s) needs %.2f s per "
                 "second of compute%s%s%s",
                 cost_bound_label(link), comm / t->compute, hide, dp, off);
    else if (t->bound == COST_HBM)
        snprintf(buf, size,
                 "HBM-bound: %.2f s of memory traffic per second of "
                 "compute (GEMMs too small to reuse their weights)%s",
                 t->hbm / t->compute, off);
    else if (cost_expected_bound(r) == COST_COMPUTE)
        /* link-bound at the floor, compute-bound at the expected rates:
         * the slower kernels leave the traffic room to hide (issue 36) */
        snprintf(buf, size,
                 "floor %s-bound, expected compute-bound: at the speed of "
                 "light %.1f s of %s traffic per second of compute, the "
                 "GPUs waiting on %s %.0f%% of the overlapped step; at the "
                 "expected rates its %.2f s of %s traffic with the "
                 "micro-batches hides under %.2f s of compute%s%s",
                 cost_bound_label(t->bound), comm / t->compute,
                 cost_bound_label(t->bound), cost_bound_label(t->bound),
                 100 * (t->core - t->compute) / t->core,
                 t->bound == COST_IB ? t->x_ib_hid : t->x_nv_hid,
                 cost_bound_label(t->bound),
                 t->x_compute + t->x_comm_sm + t->x_offload, dp, off);
    else
        snprintf(buf, size,
                 "%s-bound: %.1f s of %s traffic per second of compute; "
                 "the GPUs wait on %s %.0f%% of the overlapped step%s%s",
                 cost_bound_label(t->bound), comm / t->compute,
                 cost_bound_label(t->bound), cost_bound_label(t->bound),
                 100 * (t->core - t->compute) / t->core, dp, off);
}

/* The verdict of c in words, its first letter upper case. */
static void verdict(const struct cost_result *c, char *buf, size_t size)
{
    figures_verdict(c, buf, size);
    if (buf[0] >= 'a' && buf[0] <= 'z')
        buf[0] = (char)(buf[0] - 'a' + 'A');
}

/* ---- The Plans sheet, the fastest and the recommended plan ---- */

enum status figures_families(struct views *r, struct diag *d)
{
    size_t i, n = r->rank->nfamilies;
    free(r->family);
    r->family = calloc(n ? n : 1, sizeof *r->family);
    if (!r->family)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    for (i = 0; i < n; i++)
        r->family[i].sheet_row = -1;
    return STATUS_OK;
}

/* The step a plan is chosen by: the high end of its range (its slowest
 * scenario) where it has one, else the step it ranks by. */
static double robust_step(const struct ranking_row *row)
{
    return scenario_known(&row->sc) ? row->sc.high : row->step;
}

/* The rows of the Plans sheet (see views.h), each family's row on it,
 * the fastest fitting plan and the recommended one: among the fitting
 * plans within tie_pct of the smallest high end of a range, the one with
 * the most memory free. */
enum status figures_sheet_rows(struct views *r, struct diag *d)
{
    size_t i, nfit = 0;
    long best = -1, rec = -1;
    double limit = 0;
    if (figures_families(r, d) != STATUS_OK)
        return d->status;
    r->sheet = malloc((r->rank->nrows ? r->rank->nrows : 1) * sizeof *r->sheet);
    if (!r->sheet)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    r->nsheet = 0;
    r->sheet_left_out = 0;
    for (i = 0; i < r->rank->nrows; i++) {
        const struct ranking_row *row = &r->rank->rows[i];
        /* a family's first row (its best) is on the sheet: the row a
         * family has there is its first */
        bool first = row->family >= 0 &&
                     (size_t)row->family < r->rank->nfamilies &&
                     r->family[row->family].sheet_row < 0;
        bool take = r->in->all_plans || first ||
                    (row->fits && nfit < r->rank->plans_sheet);
        if (row->fits && take)
            nfit++;
        else if (row->fits)
            r->sheet_left_out++;
        if (!take)
            continue;
        if (first)
            r->family[row->family].sheet_row = (long)r->nsheet;
        r->sheet[r->nsheet++] = i;
    }
    /* rows are ranked fitting first: the first is the fastest that fits */
    r->sheet_best = r->nsheet > 0 && r->rank->rows[r->sheet[0]].fits ? 0 : -1;
    best = r->sheet_best;
    r->headline.ties = 0;
    /* the robust choice (docs/model.md): the smallest high end of the
     * range among the fitting plans, then the most memory free among
     * those within tie_pct of it */
    for (i = 0; best >= 0 && i < r->nsheet; i++) {
        const struct ranking_row *row = &r->rank->rows[r->sheet[i]];
        if (row->fits && (limit == 0 || robust_step(row) < limit))
            limit = robust_step(row);
    }
    limit *= 1 + r->rank->tie_pct / 100;
    for (i = 0; best >= 0 && i < r->nsheet; i++) {
        const struct ranking_row *row = &r->rank->rows[r->sheet[i]];
        const struct ranking_row *have;
        if (!row->fits || !(robust_step(row) <= limit))
            continue;
        r->headline.ties++;
        have = rec >= 0 ? &r->rank->rows[r->sheet[rec]] : NULL;
        /* the most free memory; the first (faster) on equal */
        if (!have ||
            terms_mem_headroom(&row->mem) > terms_mem_headroom(&have->mem))
            rec = (long)i;
    }
    r->sheet_recommended = rec >= 0 ? rec : (r->nsheet > 0 ? 0 : -1);
    return STATUS_OK;
}

/* ---- Sentences ---- */

/* The plain-words sentence for a family: the verdict under this
 * report's comm model, the other model's when it names another link,
 * and whether the plan fits. */
static void family_why(struct views *r,
                       const struct ranking_family *f,
                       struct views_family *out)
{
    char v[640], other[200] = "", fit[300] = "";
    verdict(&f->best, v, sizeof v);
    if (f->best_other.t.bound != f->best.t.bound)
        snprintf(other, sizeof other, " The %s model says %s-bound (%.2f).",
                 other_model(r), cost_bound_label(f->best_other.t.bound),
                 f->best_other.t.comm_compute_ratio);
    if (!f->best.fits)
        snprintf(fit, sizeof fit,
                 " No plan of this family fits in %.1f GiB per GPU (%.1f "
                 "less the %g%% headroom): the fastest needs %.0f GiB.",
                 terms_mem_usable(f->best.mem.capacity, r->rank->headroom_pct) /
                     GIB,
                 f->best.mem.capacity / GIB, r->rank->headroom_pct,
                 f->best.mem.total / GIB);
    views_say(r, &out->why, "%s.%s%s", v, other, fit);
    plan_short(&f->best.plan, out->plan_short, sizeof out->plan_short);
}

void figures_family_words(struct views *r)
{
    size_t i;
    for (i = 0; i < r->rank->nfamilies; i++)
        family_why(r, &r->rank->family[i], &r->family[i]);
}

/* What a plan costs for the token budget (the headline's figures). */
static void costs(const struct cost_result *c, struct views_cost *k)
{
    k->step_s = c->t.step;
    k->tokens_per_s_per_gpu = c->t.tokens_per_s_per_gpu;
    k->mfu = c->t.mfu;
    k->mfu_bf16_peak = c->t.mfu_bf16_peak;
    k->days = c->t.days;
    k->gpu_hours = c->t.days * 24 * (double)c->plan.gpus;
    k->cost_usd = c->t.cost_usd;
    k->gpu_hours_per_trillion = c->t.gpu_hours_per_trillion;
}

/*
 * The recommended plan's costs: the speed of light from its times and,
 * where the plan has calibrated times (a calibration and a stack), the
 * expected ones; xlsx_summary then leads with the expected figures and
 * shows the speed of light as the floor beside them.
 */
static void headline_costs(struct views_headline *h)
{
    const struct cost_result *c = &h->plan;
    struct views_cost *k = &h->expected;
    costs(c, &h->sol);
    memset(k, 0, sizeof *k);
    h->has_expected = c->work.x.known && c->t.expected > 0;
    if (!h->has_expected)
        return;
    k->step_s = c->t.expected;
    k->tokens_per_s_per_gpu = c->t.x_tps;
    k->mfu = c->t.x_mfu;
    k->mfu_bf16_peak = c->t.mfu_bf16_peak * c->t.step / c->t.expected;
    k->days = c->t.x_days;
    k->gpu_hours = c->t.x_days * 24 * (double)c->plan.gpus;
    k->cost_usd = c->t.x_cost;
    k->gpu_hours_per_trillion =
        c->t.gpu_hours_per_trillion * c->t.expected / c->t.step;
}

/* The band's part of a range, in words: "the 21 published runs on its
 * calibration's group (hopper-132sm) took 0.83 to 1.25x their expected
 * step", or that none checks it. */
static void band_words(const struct views *r, char *buf, size_t size)
{
    const struct validation_band *b = &r->rank->band;
    const char *group = b->group;
    if (b->runs > 0)
        snprintf(buf, size,
                 "the %zu published runs on its calibration's group (%s), "
                 "%.2f to %.2fx their expected step",
                 b->runs, group, b->lo, b->hi);
    else
        snprintf(buf, size,
                 "no published run checks its calibration (%s): wide, "
                 "%.2f to %.2fx, from the %zu runs on other GPUs",
                 group, b->lo, b->hi, b->all_runs);
}

/* The expected figures' range: the recommended plan's scenarios' span
 * (rank_finish_scenarios), as factors of its expected step, and what it
 * spans in words. */
static void headline_range(struct views *r, struct views_headline *h)
{
    const struct ranking_row *row =
        views_sheet_row(r, (size_t)r->sheet_recommended);
    const struct scenario_steps *sc = &row->sc;
    char band[300] = "", other[160] = "";
    double x = sc->step[SCENARIO_EXPECTED];
    h->has_range = h->has_expected && scenario_known(sc) && x > 0;
    if (!h->has_range)
        return;
    h->range_lo = sc->low / x;
    h->range_hi = sc->high / x;
    h->range_runs = r->rank->has_band ? r->rank->band.runs : 0;
    if (r->rank->has_band)
        band_words(r, band, sizeof band);
    if (sc->have & (1u << SCENARIO_OTHER_COMM))
        snprintf(other, sizeof other, "; %s communication model %.1f s",
                 other_model(r), sc->step[SCENARIO_OTHER_COMM]);
    views_say(r, &h->range_words,
              "the span of its scenarios: %s; the DP overlaps off %.1f s%s; "
              "the slowest: %s (never below the speed of light)",
              band[0] ? band : "no published run on any GPU",
              sc->step[SCENARIO_DP_OVERLAP_OFF], other,
              scenario_words((int)sc->slow));
}

/* Why the recommended plan and not the fastest expected one, where its
 * range and not memory decided (one sentence; "" else). */
static void headline_choice(struct views *r, struct views_headline *h)
{
    const struct ranking_row *b, *c;
    char pct[32];
    if (r->sheet_best < 0 || r->sheet_recommended < 0 ||
        r->sheet_best == r->sheet_recommended)
        return;
    b = views_sheet_row(r, (size_t)r->sheet_best);
    c = views_sheet_row(r, (size_t)r->sheet_recommended);
    if (!scenario_known(&b->sc) || !scenario_known(&c->sc) ||
        b->sc.high <= c->sc.high * (1 + r->rank->tie_pct / 100))
        return;
    views_pct(100 * (c->step / b->step - 1), pct, sizeof pct);
    views_say(r, &h->choice,
              "Chosen over the fastest expected plan (%s, %.1f s) for its "
              "range: at worst %.1f s against %.1f s for that plan (%s), "
              "%s%% slower as expected.",
              r->rank->family[b->family].name, b->step, c->sc.high, b->sc.high,
              scenario_words((int)b->sc.slow), pct);
}

/* The sentence on the difference between the speed of light and what a
 * run takes: the published run on these inputs, else the range over the
 * validation runs that published a step time. */
static void difference(struct views *r, struct views_headline *h)
{
    double lo = INFINITY, hi = 0;
    size_t i, n = 0;
    if (h->has_expected) {
        char x[32], low[32] = "", high[32] = "", range[300] = "";
        views_sig3(h->expected.step_s, x, sizeof x);
        if (h->has_range) {
            views_sig3(h->expected.step_s * h->range_lo, low, sizeof low);
            views_sig3(h->expected.step_s * h->range_hi, high, sizeof high);
            snprintf(range, sizeof range,
                     " (%s to %s s: the published runs here took %.2f to "
                     "%.2fx their expected step, see Validation)",
                     low, high, h->range_lo, h->range_hi);
        }
        views_say(r, &h->difference,
                  "Expected: %s s per step on real kernels and network%s; the "
                  "speed of light, %.2f s, is a floor no run of this plan "
                  "beats (%.2fx apart).",
                  x, range, h->sol.step_s, h->expected.step_s / h->sol.step_s);
        return;
    }
    if (r->published >= 0) {
        const struct validate_result *v = &r->rank->validation[r->published];
        if (v->measured_step_s > 0 && v->predicted.t.step > 0) {
            h->has_ratio = true;
            h->measured_over_sol = v->measured_step_s / v->predicted.t.step;
            views_say(r, &h->difference,
                      "These are speed-of-light figures: a floor, not a "
                      "forecast. The published run on these inputs (%s) took "
                      "%.2f s per step, %.2fx its speed of light of %.2f s "
                      "(see Validation); expect a real run of the recommended "
                      "plan to be slower by a similar factor until expected "
                      "times from a calibration are shown here.",
                      v->name, v->measured_step_s, h->measured_over_sol,
                      v->predicted.t.step);
            return;
        }
    }
    for (i = 0; i < r->rank->nvalidations; i++) {
        const struct validate_result *v = &r->rank->validation[i];
        double q;
        if (!(v->measured_step_s > 0) || !(v->predicted.t.step > 0))
            continue;
        q = v->measured_step_s / v->predicted.t.step;
        lo = fmin(lo, q);
        hi = fmax(hi, q);
        n++;
    }
    if (n > 0)
        views_say(r, &h->difference,
                  "These are speed-of-light figures: a floor, not a forecast. "
                  "Published runs took %.2f to %.2fx their speed of light "
                  "(see Validation); expect a real run to be slower by a "
                  "similar factor.",
                  lo, hi);
    else
        views_say(r, &h->difference,
                  "These are speed-of-light figures: a floor, not a forecast; "
                  "no published run here says how far real runs are from it.");
}

/* The recommended plan as a cost result (this report's model). */
static void sheet_result(const struct views *r, long at, struct cost_result *c)
{
    const struct ranking_row *row = &r->rank->rows[r->sheet[at]];
    ranking_row_result(row, c);
    diag_snprintf(c->family, sizeof c->family, "%s",
                  r->rank->family[row->family].name);
}

/* The fastest fitting plan (sheet row sheet_best) beside the
 * recommended one: the ties within tie_pct, in words. */
static void headline_ties(struct views *r, struct views_headline *h)
{
    const struct ranking_row *b = &r->rank->rows[r->sheet[r->sheet_best]];
    h->best = b->plan;
    h->best_step_s = b->step;
    h->best_headroom_gib = terms_mem_headroom(&b->mem) / GIB;
    h->best_differs = r->sheet_recommended != r->sheet_best;
    if (h->best_differs)
        plan_words(&b->plan, h->fastest_words, sizeof h->fastest_words);
    if (h->best_differs)
        views_say(
            r, &h->ties_text,
            "%zu plans are within %g%% of the fastest fitting plan "
            "(%s, %.3f s%s, %.1f GiB free): ties at this precision. "
            "The recommended one is %.1f%% slower and keeps the most "
            "memory free, %.1f GiB.",
            h->ties, r->rank->tie_pct, r->rank->family[b->family].name, b->step,
            r->in->expected ? " expected" : "", h->best_headroom_gib,
            100 * (cost_rank_step(&h->plan) / b->step - 1), h->headroom_gib);
    else if (h->ties > 1)
        views_say(r, &h->ties_text,
                  "%zu plans are within %g%% of it (ties at this "
                  "precision); it keeps the most memory free of them.",
                  h->ties, r->rank->tie_pct);
    else
        views_say(r, &h->ties_text, "No other plan is within %g%% of it.",
                  r->rank->tie_pct);
}

/* Whether the other communication model picks the same fastest plan
 * (rank_finish_other_best), in words. */
static void headline_models(struct views *r, struct views_headline *h)
{
    const struct cost_result *ob = &r->rank->other_best;
    const struct ranking_row *b = &r->rank->rows[r->sheet[r->sheet_best]];
    char fam[32], sh[256];
    plan_family(&ob->plan, fam, sizeof fam);
    plan_short(&ob->plan, sh, sizeof sh);
    if (memcmp(&ob->plan, &b->plan, sizeof ob->plan) == 0)
        views_say(r, &h->models,
                  "Both communication models pick the same fastest plan "
                  "(%.3f s under %s, %.3f s under %s%s).",
                  b->step, comm_model_str(r->in->comm), cost_rank_step(ob),
                  other_model(r), r->in->expected ? ", expected" : "");
    else
        views_say(r, &h->models,
                  "The fastest plan changes with the communication model: "
                  "under %s the fastest fitting plan is %s (%s), %.3f "
                  "s%s, where %s gives %s.",
                  model_words(r->in->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO),
                  fam, sh, cost_rank_step(ob),
                  r->in->expected ? " expected" : "", model_words(r->in->comm),
                  r->rank->family[b->family].name);
}

void figures_headline(struct views *r)
{
    struct views_headline *h = &r->headline;
    char words[400], v[640];
    double usable;
    if (r->sheet_recommended < 0)
        return;
    h->any = true;
    sheet_result(r, r->sheet_recommended, &h->plan);
    h->fits = h->plan.fits;
    h->family = r->rank->rows[r->sheet[r->sheet_recommended]].family;
    headline_costs(h);
    headline_range(r, h);
    h->memory_gib = h->plan.mem.total / GIB;
    h->capacity_gib = h->plan.mem.capacity / GIB;
    h->usable_gib =
        terms_mem_usable(h->plan.mem.capacity, r->rank->headroom_pct) / GIB;
    h->headroom_gib = terms_mem_headroom(&h->plan.mem) / GIB;
    usable = h->usable_gib;
    plan_words(&h->plan.plan, words, sizeof words);
    snprintf(h->words, sizeof h->words, "%s", words);
    plan_title(&h->plan.plan, h->title, sizeof h->title);
    verdict(&h->plan, v, sizeof v);
    views_say(r, &h->why, "%s", v);
    if (h->fits)
        views_say(r, &h->verdict,
                  "Recommended plan: %s - %s. %s. It needs %.1f of %.1f GiB "
                  "per GPU on its heaviest pipeline rank (%.1f GiB free; a "
                  "plan fits at %.1f GiB or less, keeping %g%% free).",
                  h->plan.family, words, v, h->memory_gib, h->capacity_gib,
                  h->headroom_gib, usable, r->rank->headroom_pct);
    else
        views_say(r, &h->verdict,
                  "No plan fits in %.1f GiB per GPU (%.1f less the %g%% "
                  "headroom). The fastest, %s (%s), needs %.0f GiB. %s.",
                  usable, h->capacity_gib, r->rank->headroom_pct,
                  h->plan.family, words, h->memory_gib, v);
    difference(r, h);
    if (r->sheet_best >= 0)
        headline_ties(r, h);
    headline_choice(r, h);
    if (r->rank->has_other_best && r->sheet_best >= 0)
        headline_models(r, h);
}

/* What the baseline (pure FSDP) is, where the recommended plan is ZeRO-3
 * too but inside other parallelism: "; pure FSDP, ZeRO-3 over every GPU
 * with no TP, PP or EP, where the recommended plan shards with ZeRO-3
 * inside PP 4 x EP 256" ("" else). */
static void baseline_differs(const struct views *r, char *buf, size_t size)
{
    const struct views_headline *h = &r->headline;
    const struct plan *p = &h->plan.plan;
    char dims[120] = "";
    size_t n = 0;
    buf[0] = '\0';
    if (!h->any || p->zero != 3 || h->family == r->baseline.family)
        return;
    if (p->tp > 1)
        n += (size_t)snprintf(dims + n, sizeof dims - n, "TP %ld", p->tp);
    if (p->pp > 1 && n < sizeof dims)
        n += (size_t)snprintf(dims + n, sizeof dims - n, "%sPP %ld",
                              n ? " x " : "", p->pp);
    if (p->ep > 1 && n < sizeof dims)
        n += (size_t)snprintf(dims + n, sizeof dims - n, "%sEP %ld",
                              n ? " x " : "", p->ep);
    if (p->cp > 1 && n < sizeof dims)
        snprintf(dims + n, sizeof dims - n, "%sCP %ld", n ? " x " : "", p->cp);
    snprintf(buf, size,
             "; pure FSDP, ZeRO-3 over every GPU with no TP, PP or EP, "
             "where the recommended plan shards with ZeRO-3 inside %s",
             dims);
}

/* Why not the baseline, in one sentence with numbers. */
void figures_baseline_sentence(struct views *r)
{
    struct views_baseline *b = &r->baseline;
    const struct ranking_family *f;
    const struct views_headline *h = &r->headline;
    char bound[200], mem[300], x[96] = "", what[240];
    double usable;
    if (b->family < 0) {
        views_say(r, &b->sentence,
                  "The sweep has no plan of the baseline family %s (the "
                  "sweep file's report.baseline).",
                  b->name);
        return;
    }
    f = &r->rank->family[b->family];
    b->fits = f->fitting > 0;
    b->bound = f->best.t.bound;
    b->bound_other = f->best_other.t.bound;
    b->slowdown =
        h->any && h->sol.step_s > 0 ? f->best.t.step / h->sol.step_s : 0;
    b->lightest_gib = f->has_lightest ? f->lightest_mem.total / GIB : 0;
    b->lightest_weights_gib =
        f->has_lightest ? f->lightest_mem.weights / GIB : 0;
    usable =
        terms_mem_usable(f->best.mem.capacity, r->rank->headroom_pct) / GIB;
    if (b->bound == b->bound_other)
        snprintf(bound, sizeof bound,
                 "%s-bound under both communication models",
                 cost_bound_label(b->bound));
    else
        snprintf(bound, sizeof bound, "bound by %s under %s and by %s under %s",
                 cost_bound_label(b->bound), model_words(r->in->comm),
                 cost_bound_label(b->bound_other),
                 model_words(r->in->comm == COMM_TOPO ? COMM_FLAT : COMM_TOPO));
    if (!b->fits)
        snprintf(mem, sizeof mem,
                 "it needs %.0f GiB per GPU of the %.1f a plan may use (its "
                 "lightest plan; the weights with the gathered layers alone "
                 "are %.1f GiB)",
                 b->lightest_gib, usable, b->lightest_weights_gib);
    else
        snprintf(mem, sizeof mem,
                 "it fits (its lightest plan needs %.1f of %.1f GiB per GPU)",
                 b->lightest_gib, usable);
    if (h->has_expected && f->best.work.x.known)
        snprintf(x, sizeof x, "; expected %.2f s against %.2f s",
                 f->best.t.expected, h->expected.step_s);
    baseline_differs(r, what, sizeof what);
    views_say(r, &b->sentence,
              "Why not %s (FSDP, the baseline%s): %s, and its best plan is "
              "%.1fx slower than the recommended one at the speed of light "
              "(%.2f s against %.2f s per step%s), %s.",
              b->name, what, mem, b->slowdown, f->best.t.step, h->sol.step_s, x,
              bound);
}

/* Notes under the headline: the published plan and the sweep. */
void figures_notes(struct views *r)
{
    char a[32], b[32], c[32], e[32];
    uint64_t rejected = r->rank->enumerated >= r->rank->valid
                            ? r->rank->enumerated - r->rank->valid
                            : 0;
    if (r->published >= 0) {
        const struct validate_result *v = &r->rank->validation[r->published];
        char words[400], kept[32];
        plan_words(&v->plan, words, sizeof words);
        views_thousands(
            (double)(r->rank->nranked ? r->rank->nranked : r->rank->nrows),
            kept, sizeof kept);
        /* the kept plans are the best of every valid plan, in order: a
         * kept plan's rank is its rank among them all */
        views_thousands((double)r->rank->valid, b, sizeof b);
        if (v->rank > 0)
            views_say(r, &r->note_published,
                      "The published plan (%s: %s) ranks %ld of %s: "
                      "predicted %.3f s per step, %s-bound, %s.",
                      v->name, words, v->rank, b, v->predicted.t.step,
                      cost_bound_label(v->predicted.t.bound),
                      v->predicted.fits ? "fits in its GPUs' memory"
                                        : "does not fit in its GPUs' memory");
        else
            views_say(r, &r->note_published,
                      "The published plan (%s: %s) is not among the %s best "
                      "plans kept here; predicted %.3f s per step, %s-bound.",
                      v->name, words, kept, v->predicted.t.step,
                      cost_bound_label(v->predicted.t.bound));
    }
    views_thousands((double)r->rank->enumerated, a, sizeof a);
    views_thousands((double)r->rank->valid, b, sizeof b);
    views_thousands((double)r->rank->fitting, c, sizeof c);
    views_thousands((double)rejected, e, sizeof e);
    views_say(r, &r->note_sweep,
              "Sweep: %s combinations, %s valid plans evaluated (%s fit with "
              "%g%% of HBM kept free), %s rejected (see Rejected).",
              a, b, c, r->rank->headroom_pct, e);
    /* plans.csv holds the sheet's rows unless --top or --all-plans asks
     * for more (cli_report.c): it never holds the plans left out here
     * by default (issue 37 item 6: "35,420 more are in plans.csv" was
     * false). */
    if (r->rank->dropped > 0 || r->sheet_left_out > 0) {
        views_thousands((double)r->nsheet, a, sizeof a);
        views_thousands((double)r->rank->valid, b, sizeof b);
        views_say(r, &r->note_left_out,
                  "Plans shows %s plans: those that fit, best first, up to "
                  "the sweep's report.plans_sheet, and each family's best; "
                  "plans.csv holds the same rows (with --top N the N best, "
                  "with --all-plans every one of the %s valid plans, the "
                  "sheet every kept plan).",
                  a, b);
    }
}
