/*
 * scale: the recommended plan of each cluster size side by side, and the
 * answer to a deadline or a budget (see scale.h).
 */
#include "scale.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A size's figures from its views (goodput_headline: the days with
 * failures and checkpoints, their range, cost and energy). */
void scale_size_of(const struct views *v, struct scale_size *z)
{
    const struct views_headline *h = &v->headline;
    const struct views_cost *c = h->has_expected ? &h->expected : &h->sol;
    memset(z, 0, sizeof *z);
    z->gpus = v->in->sweep ? (long)v->in->sweep->spec.gpus.v[0] : 0;
    if (z->gpus <= 0)
        z->gpus = v->in->hw->spec.gpus;
    z->any = h->any;
    if (!h->any)
        return;
    z->gpus = h->plan.plan.gpus;
    z->fits = h->fits;
    z->expected = h->has_expected;
    snprintf(z->plan, sizeof z->plan, "%s", h->title);
    z->step_s = c->step_s;
    z->tokens_per_s_per_gpu = c->tokens_per_s_per_gpu;
    goodput_headline(v, &z->f);
    z->wall_hi = z->f.range ? z->f.wall_hi : z->f.wall_days;
    z->cost_hi = z->f.range ? z->f.wall_cost_hi : z->f.wall_cost;
    z->gpu_hours = z->f.wall_days * 24 * (double)z->gpus;
}

static int by_gpus(const void *a, const void *b)
{
    long x = ((const struct scale_size *)a)->gpus;
    long y = ((const struct scale_size *)b)->gpus;
    return (x > y) - (x < y);
}

/* Whether size z meets the deadline and the budget at end e. */
static bool
meets(const struct scale *s, const struct scale_size *z, enum scale_end e)
{
    double days = e == SCALE_HIGH ? z->wall_hi : z->f.wall_days;
    double usd = e == SCALE_HIGH ? z->cost_hi : z->f.wall_cost;
    if (!z->any || !z->fits || !(days > 0))
        return false;
    return (s->days <= 0 || days <= s->days) &&
           (s->budget <= 0 || usd <= s->budget);
}

/* The answer at end e: the smallest size that meets a deadline (with the
 * budget where there is one too), or with a budget alone the fastest
 * within it (the smallest of equal days). */
static long pick(const struct scale *s, enum scale_end e)
{
    size_t i;
    long best = -1;
    for (i = 0; i < s->n; i++) {
        const struct scale_size *z = &s->size[i];
        double days = e == SCALE_HIGH ? z->wall_hi : z->f.wall_days;
        double have;
        if (!meets(s, z, e))
            continue;
        if (s->days > 0)
            return (long)i;
        have = best < 0          ? 0
               : e == SCALE_HIGH ? s->size[best].wall_hi
                                 : s->size[best].f.wall_days;
        if (best < 0 || days < have)
            best = (long)i;
    }
    return best;
}

bool scale_of(const struct scale_size *sizes,
              size_t n,
              double threshold,
              double days,
              double budget,
              struct scale *s)
{
    size_t i;
    double base;
    memset(s, 0, sizeof *s);
    s->below = -1;
    s->pick[SCALE_HIGH] = s->pick[SCALE_EXPECTED] = -1;
    s->size = calloc(n ? n : 1, sizeof *s->size);
    if (!s->size)
        return false;
    s->n = n;
    s->threshold = threshold;
    s->days = days;
    s->budget = budget;
    if (n > 0)
        memcpy(s->size, sizes, n * sizeof *s->size);
    qsort(s->size, n, sizeof *s->size, by_gpus);
    /* tokens/s per GPU against the smallest size's: the share of each
     * added GPU's work that still turns into tokens */
    base = n > 0 && s->size[0].any ? s->size[0].tokens_per_s_per_gpu : 0;
    for (i = 0; i < n; i++) {
        struct scale_size *z = &s->size[i];
        z->efficiency = base > 0 && z->any ? z->tokens_per_s_per_gpu / base : 0;
        if (s->below < 0 && z->any && base > 0 && z->efficiency < threshold)
            s->below = (long)i;
    }
    if (days > 0 || budget > 0) {
        s->pick[SCALE_HIGH] = pick(s, SCALE_HIGH);
        s->pick[SCALE_EXPECTED] = pick(s, SCALE_EXPECTED);
    }
    return true;
}

void scale_free(struct scale *s)
{
    free(s->size);
    memset(s, 0, sizeof *s);
}

/* Dollars in a few characters: $950, $95.0K, $12.3M, $1.20B. */
static void usd(double v, char *buf, size_t size)
{
    if (v >= 1e9)
        snprintf(buf, size, "$%.2fB", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, size, "$%.1fM", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, size, "$%.1fK", v / 1e3);
    else
        snprintf(buf, size, "$%.0f", v);
}

void scale_line(const struct scale *s, char *buf, size_t size)
{
    size_t i, len = 0;
    buf[0] = '\0';
    for (i = 0; i < s->n && len < size; i++) {
        const struct scale_size *z = &s->size[i];
        char money[32];
        int k;
        usd(z->f.wall_cost, money, sizeof money);
        if (!z->any || !z->fits)
            k = snprintf(buf + len, size - len, "%s%ld%s: no plan fits",
                         i ? "; " : "", z->gpus, i ? "" : " GPUs");
        else
            k = snprintf(buf + len, size - len, "%s%ld%s: %.3g days, %s",
                         i ? "; " : "", z->gpus, i ? "" : " GPUs",
                         z->f.wall_days, money);
        if (k < 0)
            return;
        len += (size_t)k;
    }
}

/* What was asked, in words: "within 40 days", "within $20.0M", both. */
static void asked(const struct scale *s, char *buf, size_t size)
{
    char money[32];
    usd(s->budget, money, sizeof money);
    if (s->days > 0 && s->budget > 0)
        snprintf(buf, size, "within %g days and %s", s->days, money);
    else if (s->days > 0)
        snprintf(buf, size, "within %g days", s->days);
    else
        snprintf(buf, size, "fastest within %s", money);
}

/* The fastest size (least wall-clock days at end e), for the message
 * when none meets what was asked; -1 when none fits. */
static long fastest(const struct scale *s, enum scale_end e)
{
    size_t i;
    long best = -1;
    for (i = 0; i < s->n; i++) {
        const struct scale_size *z = &s->size[i];
        double d = e == SCALE_HIGH ? z->wall_hi : z->f.wall_days;
        if (z->any && z->fits && d > 0 &&
            (best < 0 || d < (e == SCALE_HIGH ? s->size[best].wall_hi
                                              : s->size[best].f.wall_days)))
            best = (long)i;
    }
    return best;
}

/* One end's clause: "2048 GPUs (PLAN), 38.1 days, $12.6M at the range's
 * high end" or "no listed size at the range's high end (...)". */
static int
clause(const struct scale *s, enum scale_end e, char *buf, size_t size)
{
    const char *end =
        e == SCALE_HIGH ? "at the range's high end" : "as expected";
    long i = s->pick[e];
    char money[32];
    if (i >= 0) {
        const struct scale_size *z = &s->size[i];
        usd(e == SCALE_HIGH ? z->cost_hi : z->f.wall_cost, money, sizeof money);
        return snprintf(buf, size, "%ld GPUs (%s), %.3g days, %s %s", z->gpus,
                        z->plan, e == SCALE_HIGH ? z->wall_hi : z->f.wall_days,
                        money, end);
    }
    i = fastest(s, e);
    if (i < 0)
        return snprintf(buf, size, "no listed size %s: no plan fits", end);
    usd(e == SCALE_HIGH ? s->size[i].cost_hi : s->size[i].f.wall_cost, money,
        sizeof money);
    return snprintf(
        buf, size,
        "no listed size %s (the fastest, %ld GPUs, takes %.3g "
        "days, %s)",
        end, s->size[i].gpus,
        e == SCALE_HIGH ? s->size[i].wall_hi : s->size[i].f.wall_days, money);
}

void scale_answer(const struct scale *s, char *buf, size_t size)
{
    char what[80], hi[400], ex[400];
    buf[0] = '\0';
    if (!(s->days > 0) && !(s->budget > 0))
        return;
    asked(s, what, sizeof what);
    clause(s, SCALE_HIGH, hi, sizeof hi);
    clause(s, SCALE_EXPECTED, ex, sizeof ex);
    snprintf(buf, size, "%c%s (wall-clock days with failures): %s; %s.",
             what[0] == 'w' ? 'W' : 'F', what + 1, hi, ex);
}

/* One end's brief clause: "4096 GPUs at the range's high end (33.5
 * days)", "4096 as expected (26.8 days)" (first: with " GPUs"), or "no
 * listed size at the range's high end". */
static void brief(const struct scale *s,
                  enum scale_end e,
                  bool first,
                  char *buf,
                  size_t size)
{
    const char *end =
        e == SCALE_HIGH ? "at the range's high end" : "as expected";
    long i = s->pick[e];
    if (i < 0) {
        snprintf(buf, size, "no listed size %s", end);
        return;
    }
    snprintf(buf, size, "%ld%s %s (%.3g days)", s->size[i].gpus,
             first ? " GPUs" : "", end,
             e == SCALE_HIGH ? s->size[i].wall_hi : s->size[i].f.wall_days);
}

void scale_answer_brief(const struct scale *s, char *buf, size_t size)
{
    char what[80], hi[160], ex[160];
    buf[0] = '\0';
    if (!(s->days > 0) && !(s->budget > 0))
        return;
    asked(s, what, sizeof what);
    brief(s, SCALE_HIGH, true, hi, sizeof hi);
    brief(s, SCALE_EXPECTED, s->pick[SCALE_HIGH] < 0, ex, sizeof ex);
    snprintf(buf, size, "%c%s: %s, %s.", what[0] == 'w' ? 'W' : 'F', what + 1,
             hi, ex);
}

size_t scale_main(const struct scale *s, long preferred)
{
    size_t i;
    if (s->pick[SCALE_HIGH] >= 0)
        return (size_t)s->pick[SCALE_HIGH];
    if (s->pick[SCALE_EXPECTED] >= 0)
        return (size_t)s->pick[SCALE_EXPECTED];
    for (i = 0; i < s->n; i++)
        if (s->size[i].gpus == preferred)
            return i;
    return 0;
}
