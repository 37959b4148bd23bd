/*
 * cli_summary: what `report` prints on stdout (cli.h, cli_print_summary):
 * the training recipe the plans take, the recommended plan in words with
 * its expected figures and their range, the fastest plan of each family,
 * and the validation runs' speed of light beside their measured steps.
 */
#include "cli.h"

#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "goodput.h"
#include "plan.h"
#include "scale.h"
#include "views.h"

/* "16.1 s" or, with the range, "16.1 s (14.5 to 19.2)": v scaled by
 * `scale` (1e6 for $M), prefixed (a "$"), suffixed (" s", "M"). */
static void ranged(const struct views_headline *h,
                   double v,
                   double scale,
                   const char *pre,
                   const char *post,
                   char *buf,
                   size_t size)
{
    char a[32], lo[32], hi[32];
    views_sig3(v / scale, a, sizeof a);
    if (!h->has_range) {
        snprintf(buf, size, "%s%s%s", pre, a, post);
        return;
    }
    views_sig3(v * h->range_lo / scale, lo, sizeof lo);
    views_sig3(v * h->range_hi / scale, hi, sizeof hi);
    snprintf(buf, size, "%s%s%s (%s%s%s to %s%s%s)", pre, a, post, pre, lo,
             pre[0] ? post : "", pre, hi, post);
}

/* Lines of the recipe's words at most this wide where its words allow. */
#define RECIPE_COLUMNS 100

void cli_print_recipe(const char *words)
{
    const char *w = words;
    size_t col;
    if (!w || !w[0])
        return;
    col = (size_t)printf("Recipe:");
    while (*w) {
        size_t len = strcspn(w, " ");
        if (col > 2 && col + 1 + len > RECIPE_COLUMNS)
            col = (size_t)printf("\n ");
        col += (size_t)printf(" %.*s", (int)len, w);
        w += len;
        w += strspn(w, " ");
    }
    printf("\n");
}

/* The recommended plan's batch where it is not the recipe's and the sweep
 * names none: the recipe's is no whole number of the plan's micro-batches
 * over its data-parallel ranks (sweep.h: each plan takes the nearest). */
static void print_rounded_batch(const struct views *r)
{
    const struct plan *p = &r->headline.plan.plan;
    const struct model *m = r->in->m;
    char a[32], b[32];
    if (!m || !r->in->sweep || sweep_names_batch(r->in->sweep) ||
        p->gbs == m->spec.global_batch)
        return;
    views_thousands((double)p->gbs, a, sizeof a);
    views_thousands((double)m->spec.global_batch, b, sizeof b);
    printf("  global batch %s sequences, not the recipe's %s: the nearest "
           "multiple of this plan's DP x micro-batch (x its schedule's "
           "unit)\n",
           a, b);
}

/* From the compute days above (expected, else the speed of light's) to
 * the wall-clock days, what each loss costs (goodput_losses_of). */
static void print_losses(const struct goodput_figures *f)
{
    struct goodput_losses l;
    char words[GOODPUT_LOSSES_TEXT];
    goodput_losses_of(&f->g, f->days, &l);
    if (!(l.wall > 0))
        return;
    goodput_losses_words(&l, words, sizeof words);
    printf("  days by loss: %s\n", words);
}

/* The wall-clock days and cost with failures and checkpoints, and the
 * energy, where the hardware file gives a failure rate and a power
 * (goodput.h). */
static void print_goodput(const struct views *r)
{
    struct goodput_figures f;
    char range[96] = "", cost[96] = "";
    goodput_headline(r, &f);
    if (f.g.failures) {
        if (f.range) {
            snprintf(range, sizeof range, " (%.1f to %.1f)", f.wall_lo,
                     f.wall_hi);
            snprintf(cost, sizeof cost, " ($%.2fM to $%.2fM)",
                     f.wall_cost_lo / 1e6, f.wall_cost_hi / 1e6);
        }
        printf("  wall-clock %.1f days%s, $%.2fM%s with failures and "
               "checkpoints: %.1f%% effective training (a failure every %.1f "
               "h, a %.0f GB checkpoint every %.1f min)\n",
               f.wall_days, range, f.wall_cost / 1e6, cost, 100 * f.g.share,
               f.g.mtbf_h, f.g.checkpoint_gb, f.g.interval_s / 60);
        print_losses(&f);
    }
    if (f.g.energy) {
        char co2[64] = "";
        if (r->in->hw->spec.grid_kg_per_kwh > 0)
            snprintf(co2, sizeof co2, ", %.0f t CO2e", f.tco2e);
        printf("  energy %.0f MWh over those days (%.1f kWh per step, PUE "
               "%.2f)%s\n",
               f.mwh, f.step_kwh, r->in->hw->spec.pue, co2);
    }
}

/* The recommended plan first, in words, with its expected figures and
 * their range and its speed of light; the fastest plan when another. */
static void print_recommended(const struct views *r)
{
    const struct views_headline *h = &r->headline;
    char plan[256], step[160], days[160], cost[160];
    if (!h->any)
        return;
    printf("Recommended: %s (%s)%s\n", h->words, h->plan.family,
           h->fits ? "" : "; no plan fits: the fastest is shown");
    print_rounded_batch(r);
    if (h->has_expected) {
        ranged(h, h->expected.step_s, 1, "", " s", step, sizeof step);
        ranged(h, h->expected.days, 1, "", " days", days, sizeof days);
        ranged(h, h->expected.cost_usd, 1e6, "$", "M", cost, sizeof cost);
        printf("  expected %s per step, %s, %s for the token budget\n", step,
               days, cost);
        if (h->has_range)
            printf("  (range: %s)\n", h->range_words);
    }
    printf("  speed of light %.2f s per step, %.1f days, $%.2fM (a floor: no "
           "run of this plan is faster)\n",
           h->sol.step_s, h->sol.days, h->sol.cost_usd / 1e6);
    print_goodput(r);
    printf("  %.1f GiB per GPU on the heaviest pipeline rank, of %.1f (%.1f "
           "free)\n",
           h->memory_gib, h->capacity_gib, h->headroom_gib);
    plan_format(&h->plan.plan, plan, sizeof plan);
    printf("  eval: %s\n", plan);
    if (h->choice[0])
        printf("  %s\n", h->choice);
    if (h->best_differs && r->sheet_best >= 0 && !h->choice[0]) {
        const struct ranking_row *b = views_sheet_row(r, (size_t)r->sheet_best);
        printf("Fastest: %s (%s), %.3f s %s, %.1f GiB free: within %g%% of "
               "it the recommended plan keeps the most memory free\n",
               h->fastest_words, r->rank->family[b->family].name,
               h->best_step_s, r->in->expected ? "expected" : "speed of light",
               h->best_headroom_gib, r->rank->tie_pct);
    }
    printf("\n");
}

/* Several cluster sizes: each size's recommended plan in one line, the
 * scaling efficiency and where it falls under the threshold; a deadline's
 * or budget's answer. Nothing with one size and nothing asked. */
static void print_scale(const struct views *r)
{
    const struct scale *s = r->scale;
    char line[2048];
    size_t i;
    if (!s)
        return;
    if (s->n > 1) {
        scale_line(s, line, sizeof line);
        printf("Scale (each size ranked on its own; wall-clock days and cost "
               "with failures): %s\n",
               line);
        printf("  tokens/s per GPU against %ld GPUs':", s->size[0].gpus);
        for (i = 0; i < s->n; i++)
            printf(" %.2f", s->size[i].efficiency);
        if (s->below >= 0)
            printf("; under %.2f from %ld GPUs\n", s->threshold,
                   s->size[s->below].gpus);
        else
            printf("; never under %.2f\n", s->threshold);
        printf("  the plan below is %ld GPUs' (the sheets detail it)\n",
               r->headline.any ? r->headline.plan.plan.gpus : 0L);
    }
    scale_answer(s, line, sizeof line);
    if (line[0])
        printf("%s\n", line);
}

void cli_print_summary(const struct views *r)
{
    size_t i;
    cli_print_recipe(r->in->recipe);
    print_scale(r);
    print_recommended(r);
    printf("%-16s %10s %9s %-14s %8s %9s %5s  %s\n", "family", "expected s",
           "SOL s", "bound", "comm/cmp", "mem GiB", "fits",
           "fastest plan of the family (SOL: speed of light; bound a/b: a "
           "at the SOL, b expected, where they differ)");
    for (i = 0; i < r->rank->nfamilies; i++) {
        const struct ranking_family *f =
            &r->rank->family[r->rank->families_by_step[i]];
        char plan[256], x[16] = "-", bound[32];
        int xb = cost_expected_bound(&f->best);
        plan_format(&f->best.plan, plan, sizeof plan);
        if (f->best.work.x.known)
            snprintf(x, sizeof x, "%.3f", f->best.t.expected);
        /* the floor's bound, and the expected step's where it differs
         * (a link-bound floor under slower kernels: issue 36) */
        snprintf(bound, sizeof bound, "%s%s%s", cost_bound_str(f->best.t.bound),
                 xb >= 0 && xb != f->best.t.bound ? "/" : "",
                 xb >= 0 && xb != f->best.t.bound ? cost_bound_str(xb) : "");
        printf("%-16s %10s %9.3f %-14s %8.2f %9.1f %5s  %s\n", f->name, x,
               f->best.t.step, bound, f->best.t.comm_compute_ratio,
               f->best.mem.total / 1073741824.0, f->best.fits ? "yes" : "no",
               plan);
    }
    printf("\nvalidation: speed-of-light prediction (measured, where "
           "published)\n");
    for (i = 0; i < r->rank->nvalidations; i++) {
        const struct validate_result *v = &r->rank->validation[i];
        const struct cost_result *p = &v->predicted;
        char step[32] = "", tflops[32] = "", mfu[32] = "";
        if (v->measured_step_s > 0)
            snprintf(step, sizeof step, " (%.2f)", v->measured_step_s);
        if (v->measured_tflops_per_gpu > 0)
            snprintf(tflops, sizeof tflops, " (%.0f)",
                     v->measured_tflops_per_gpu);
        if (v->measured_mfu > 0)
            snprintf(mfu, sizeof mfu, " (%.1f%%)", 100 * v->measured_mfu);
        printf("  %-48s %6.2f s/step%s, %4.0f TFLOP/s/GPU%s, MFU %5.1f%%%s%s\n",
               v->name, p->t.step, step, p->work.model_flops / p->t.step / 1e12,
               tflops, 100 * p->t.mfu_bf16_peak, mfu,
               p->fits ? "" : "; does not fit");
        if (p->work.x.known)
            printf("  %-48s expected %6.2f s/step, %4.0f TFLOP/s/GPU, MFU "
                   "%5.1f%% (step %+.0f%% off the measured)\n",
                   "", p->t.expected,
                   p->work.model_flops / p->t.expected / 1e12,
                   100 * p->t.mfu_bf16_peak * p->t.step / p->t.expected,
                   v->measured_step_eq > 0
                       ? 100 * (p->t.expected / v->measured_step_eq - 1)
                       : 0);
        if (v->completions > 1)
            printf("  %-48s SOL %.2f-%.2f s over %zu completions of %s\n", "",
                   v->sol_min_step_s, v->sol_max_step_s, v->completions,
                   v->unpublished);
        if (v->measured_step_eq > 0)
            printf("  %-48s %s\n", "",
                   v->holds ? "the speed of light holds: no completion is "
                              "slower than the measured run"
                            : "SPEED OF LIGHT BROKEN: a completion is "
                              "slower than the measured run");
    }
    for (i = 0; i < r->rank->nvalidation_notes; i++)
        printf("  %s\n", r->rank->validation_notes[i]);
}
