/*
 * figures_charts: what the charts show (see figures_internal.h): the
 * families' colours, where each family's plan turns compute-bound as a
 * link's bandwidth grows and the baseline re-timed on the sensitivity
 * grids, the roofline points, roofs and axis ranges, the native charts'
 * picks, the bars and the sensitivity charts with their sentences.
 */
#include "figures_internal.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GIB 1073741824.0

/* ---- Small helpers ---- */

static double pow10_floor(double x)
{
    return pow(10, floor(log10(x)));
}

static double pow10_ceil(double x)
{
    return pow(10, ceil(log10(x)));
}

/* "IB" or "NVLink". */
static const char *link_name(enum hardware_link which)
{
    return which == HARDWARE_LINK_IB ? "IB" : "NVLink";
}

/* ---- Colours ---- */

/*
 * Each family's style, the same in every chart: the families with a
 * fitting plan, fastest first, take a colour of Okabe & Ito's
 * colour-blind-safe palette (2008; its yellow is too light on white and
 * its black is the baseline's), a marker and a dash, so that no two
 * families differ by hue alone: the n-th takes marker n mod 6 and dash
 * (n / 6) mod 4, a pair no other of the first 24 has, and colour
 * (n + n / 6) mod 6, so the seventh is not the first's blue again. Grey
 * where nothing fits, black for the baseline (every report compares
 * against it).
 */
void figures_colors(struct views *r)
{
    static const uint32_t palette[VIEWS_HUES] = {0x0072B2, 0xD55E00, 0x009E73,
                                                 0xCC79A7, 0xE69F00, 0x56B4E9};
    size_t i, n = 0;
    for (i = 0; i < r->rank->nfamilies; i++) {
        long k = r->rank->families_by_step[i];
        struct views_family *f = &r->family[k];
        f->marker = f->dash = 0;
        if (r->rank->family[k].best.fits) {
            f->color = palette[(n + n / VIEWS_HUES) % VIEWS_HUES];
            f->marker = (int)(n % VIEWS_MARKERS);
            f->dash = (int)(n / VIEWS_MARKERS % VIEWS_DASHES);
            n++;
        } else
            f->color = k == r->baseline.family ? 0x000000 : 0x999999;
    }
}

/* ---- Charts ---- */

/* Executed FLOPs per byte over each link and attained TFLOP/s. */
static bool
point_of(const struct cost_work *w, double step, double x[2], double *y)
{
    double flops = w->fp8_flops + w->bf16_flops;
    if (!(step > 0) || !(flops > 0))
        return false;
    x[0] = w->ib_bytes > 0 ? flops / w->ib_bytes : 0;
    x[1] = w->nvlink_bytes > 0 ? flops / w->nvlink_bytes : 0;
    *y = flops / step / 1e12;
    return true;
}

/* Every fitting kept plan, one block per family: the recommended plan's
 * family first, then the fastest family first; the recommended plan's
 * point. */
static enum status points(struct views *r, struct diag *d)
{
    size_t nf = r->rank->nfamilies;
    size_t *count = calloc(2 * nf + 1, sizeof *count), *at;
    size_t i, j, k, n = 0;
    long rec;
    if (!count)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    at = count + nf;
    for (i = 0; i < r->rank->nrows && r->rank->rows[i].fits; i++)
        if (r->rank->rows[i].family >= 0)
            count[r->rank->rows[i].family]++;
    r->points = malloc((i ? i : 1) * sizeof *r->points);
    r->blocks = malloc((nf ? nf : 1) * sizeof *r->blocks);
    if (!r->points || !r->blocks) {
        free(count);
        return diag_set(d, STATUS_NOMEM, "out of memory");
    }
    r->nblocks = 0;
    /* the recommended plan's family first: number 1 */
    rec = r->headline.any && r->headline.fits ? r->headline.family : -1;
    for (j = 0; j <= r->rank->nfamilies; j++) {
        long f = j == 0 ? rec : r->rank->families_by_step[j - 1];
        struct views_block *b;
        if (f < 0 || (j > 0 && f == rec))
            continue;
        if (count[f] == 0)
            continue;
        b = &r->blocks[r->nblocks];
        b->family = f;
        b->first = n;
        b->n = 0;
        b->number = (long)r->nblocks + 1;
        b->labelled = r->nblocks < VIEWS_LABELLED;
        at[f] = n;
        n += count[f];
        r->nblocks++;
    }
    for (i = 0; i < r->rank->nrows && r->rank->rows[i].fits; i++) {
        const struct ranking_row *row = &r->rank->rows[i];
        struct views_point *p;
        if (row->family < 0)
            continue;
        p = &r->points[at[row->family]++];
        if (!point_of(&row->work, row->t.step, p->x, &p->y))
            p->x[0] = p->x[1] = p->y = 0;
        p->step = row->t.step;
        p->fp8 = row->plan.precision == MODEL_FP8;
    }
    r->npoints = n;
    for (k = 0; k < r->nblocks; k++)
        r->blocks[k].n = count[r->blocks[k].family];
    r->has_recommended_point =
        rec >= 0 && point_of(&r->headline.plan.work, r->headline.plan.t.step,
                             r->recommended_x, &r->recommended_y);
    free(count);
    return STATUS_OK;
}

/* A precision's two roofs ("FP8") on a link ("IB"): its peak over the
 * link's peak bandwidth, and its achievable rate (FP8_TFLOPS_USED, its
 * ridge RIDGE_IB_FP8) over the achievable bandwidth. */
static void precision_roofs(struct views_roofline *o,
                            const char *prec,
                            double peak_flops,
                            double flops,
                            double bw_peak,
                            double bw,
                            const char *link)
{
    struct views_roof *a = &o->roof[o->nroofs++];
    snprintf(a->name, sizeof a->name, "%s peak", prec);
    a->tflops = peak_flops / 1e12;
    a->bps = bw_peak;
    a->peak = true;
    a = &o->roof[o->nroofs++];
    snprintf(a->name, sizeof a->name, "%s achievable", prec);
    snprintf(a->rate_name, sizeof a->rate_name, "%s_TFLOPS_USED", prec);
    snprintf(a->ridge_name, sizeof a->ridge_name, "RIDGE_%s_%s", link, prec);
    a->tflops = flops / 1e12;
    a->bps = bw;
}

/* One roofline's roofs, slopes and axis ranges. */
static void
roofline(struct views *r, enum hardware_link which, struct views_roofline *o)
{
    const bool ib = which == HARDWARE_LINK_IB;
    const struct hardware *hw = r->in->hw;
    double bw = ib ? hw->ib_bps : hw->nvlink_bps;
    double bw_peak =
        1e9 * (ib ? hw->spec.ib_peak_gbps : hw->spec.nvlink_peak_gbps);
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, top = 0;
    size_t i, l = ib ? 0 : 1;
    memset(o, 0, sizeof *o);
    o->link = link_name(which);
    o->bw_name = ib ? "IB_GBPS" : "NVLINK_GBPS";
    /* highest first: the charts place their labels in this order */
    if (hw->fp8_flops > 0)
        precision_roofs(o, "FP8", hw->fp8_peak_flops, hw->fp8_flops, bw_peak,
                        bw, ib ? "IB" : "NVLINK");
    precision_roofs(o, "BF16", hw->bf16_peak_flops, hw->bf16_flops, bw_peak, bw,
                    ib ? "IB" : "NVLINK");
    o->slope_bps[o->nslopes++] = bw;
    if (bw_peak != bw)
        o->slope_bps[o->nslopes++] = bw_peak;
    for (i = 0; i < o->nroofs; i++) {
        struct views_roof *a = &o->roof[i];
        a->ridge = a->tflops * 1e12 / a->bps;
        xlo = fmin(xlo, a->ridge);
        xhi = fmax(xhi, a->ridge);
        top = fmax(top, a->tflops);
        if (!a->peak)
            o->top_achievable = fmax(o->top_achievable, a->tflops);
    }
    for (i = 0; i < r->npoints; i++) {
        const struct views_point *p = &r->points[i];
        if (!(p->x[l] > 0)) {
            o->nobytes++;
            continue;
        }
        o->npoints++;
        xlo = fmin(xlo, p->x[l]);
        xhi = fmax(xhi, p->x[l]);
        ylo = fmin(ylo, p->y);
    }
    if (r->baseline.has_point && r->baseline.x[l] > 0) {
        xlo = fmin(xlo, r->baseline.x[l]);
        xhi = fmax(xhi, r->baseline.x[l]);
        ylo = fmin(ylo, r->baseline.y);
    }
    if (!(ylo < INFINITY))
        ylo = top / 100;
    o->xlo = pow10_floor(xlo / 1.5);
    o->xhi = pow10_ceil(xhi * 1.5);
    if (o->xhi / o->xlo < 1e3)
        o->xhi = o->xlo * 1e3;
    o->ylo = pow10_floor(ylo / 1.5);
    if (o->ylo > top / 100)
        o->ylo = pow10_floor(top / 100);
    o->yhi = top * 2.2; /* room above the highest roof for its label */
    o->yhi_decade = pow10_ceil(o->yhi);
}

/* The native charts' plans: the first few Plans rows of each series'
 * family, the series the fastest families, the baseline, then "other
 * families". */
static enum status picks(struct views *r, struct diag *d)
{
    size_t k, i, n = 0, nf = r->rank->nfamilies;
    size_t *per = calloc(nf ? nf : 1, sizeof *per);
    long *series_of = malloc((nf ? nf : 1) * sizeof *series_of);
    r->roof_pick =
        malloc((nf * VIEWS_ROOF_PER_FAMILY + 1) * sizeof *r->roof_pick);
    if (!per || !series_of || !r->roof_pick) {
        free(per);
        free(series_of);
        return diag_set(d, STATUS_NOMEM, "out of memory");
    }
    r->nseries = 0;
    for (k = 0; k < r->rank->nfamilies && r->nseries < VIEWS_SERIES_MAX - 1;
         k++)
        r->series[r->nseries++].family = r->rank->families_by_step[k];
    for (k = 0; k < r->nseries; k++)
        if (r->series[k].family == r->baseline.family)
            break;
    if (k == r->nseries && r->baseline.family >= 0)
        r->series[r->nseries++].family = r->baseline.family;
    r->series[r->nseries].family = -1; /* the rest */
    for (k = 0; k < nf; k++)
        series_of[k] = (long)r->nseries;
    for (k = 0; k < r->nseries; k++)
        series_of[r->series[k].family] = (long)k;
    for (k = 0; k <= r->nseries; k++) {
        struct views_series *s = &r->series[k];
        s->first = n;
        s->color = s->family >= 0 ? r->family[s->family].color : 0xB0B0B0;
        for (i = 0; i < r->nsheet; i++) {
            const struct ranking_row *row = views_sheet_row(r, i);
            struct views_pick *p = &r->roof_pick[n];
            if (row->family < 0 || series_of[row->family] != (long)k ||
                per[row->family] >= VIEWS_ROOF_PER_FAMILY)
                continue;
            if (!point_of(&row->work, row->t.step, p->x, &p->y))
                continue;
            per[row->family]++;
            p->sheet = i;
            p->bound = row->t.bound;
            n++;
        }
        s->n = n - s->first;
    }
    r->nroof_pick = n;
    free(per);
    free(series_of);
    return STATUS_OK;
}

/* The bar of plan c (of family f): its parts of the speed of light. */
static void bar_of(const struct views *r,
                   const struct cost_result *c,
                   long f,
                   struct views_bar *b)
{
    const struct cost_work *w = &c->work;
    double exposed, ib, nv;
    memset(b, 0, sizeof *b);
    b->family = f;
    b->compute = c->t.compute;
    /* only the binding term's time beyond compute is exposed */
    exposed = c->t.core - c->t.compute;
    if (c->t.bound != COST_COMPUTE)
        b->exposed[c->t.bound] = exposed;
    else /* compute-bound: the SMs lost to overlapped comm stretch it */
        b->compute += exposed;
    /* the step-end DP time one micro-batch does not hide, on the link
     * that carries most of the sync and gather */
    ib = (w->ib_sync_bytes + w->ib_gather_bytes) / r->in->hw->ib_bps;
    nv =
        (w->nvlink_sync_bytes + w->nvlink_gather_bytes) / r->in->hw->nvlink_bps;
    b->exposed[ib >= nv ? COST_IB : COST_NVLINK] += c->t.dp_exposed;
    b->bubble = c->t.bubble;
    b->optimizer = c->t.optimizer;
    b->step = c->t.step;
    b->serial = c->t.step_serial;
    b->expected = c->work.x.known ? c->t.expected : 0;
    b->fits = c->fits;
    b->bound = c->t.bound;
    b->mem = c->mem;
}

/* The bar charts' plans: the recommended plan first (when one fits),
 * then each family's best in the report's order (fitting first, then by
 * step time), its family's left out when its best is the recommended
 * plan: all up to VIEWS_BARS_MAX; past that, the fitting ones first,
 * and the baseline kept. */
static void bars(struct views *r)
{
    long base = r->baseline.family;
    const struct views_headline *h = &r->headline;
    bool rec = h->any && h->fits && h->family >= 0;
    size_t k, have = 0, room = VIEWS_BARS_MAX;
    bool base_in = false;
    double fastest = INFINITY;
    r->nbars = r->nbars_fit = 0;
    if (rec) {
        struct views_bar *b = &r->bars[r->nbars++];
        bar_of(r, &h->plan, h->family, b);
        b->recommended = true;
        r->nbars_fit++;
        have++;
        fastest = cost_rank_step(&h->plan);
    }
    for (k = 0; k < r->rank->nfamilies; k++) {
        long f = r->rank->families_by_step[k];
        if (r->rank->family[f].has_best &&
            !(rec && f == h->family &&
              memcmp(&r->rank->family[f].best.plan, &h->plan.plan,
                     sizeof h->plan.plan) == 0))
            have++;
    }
    if (base >= 0 && have > VIEWS_BARS_MAX) {
        size_t pos = rec ? 1 : 0;
        for (k = 0;
             k < r->rank->nfamilies && r->rank->families_by_step[k] != base;
             k++)
            if (r->rank->family[r->rank->families_by_step[k]].has_best)
                pos++;
        if (pos >= VIEWS_BARS_MAX)
            room--; /* keep a place for it at the end */
    }
    for (k = 0; k < r->rank->nfamilies; k++) {
        long f = r->rank->families_by_step[k];
        const struct cost_result *c = &r->rank->family[f].best;
        struct views_bar *b;
        if (!r->rank->family[f].has_best)
            continue;
        if (rec && f == h->family &&
            memcmp(&c->plan, &h->plan.plan, sizeof c->plan) == 0)
            continue; /* the recommended plan's bar, first */
        if (!(r->nbars < room ||
              (f == base && !base_in && r->nbars < VIEWS_BARS_MAX)))
            continue;
        base_in = base_in || f == base;
        b = &r->bars[r->nbars++];
        bar_of(r, c, f, b);
        if (b->fits)
            r->nbars_fit++;
        fastest = fmin(fastest, cost_rank_step(c));
    }
    r->bars_omitted = have - r->nbars;
    /* the competitive families whole: the step they rank by within 2.5x
     * of the fastest, with their serial marker and expected step */
    r->steps_max = 0;
    r->memory_fit_max = r->in->hw->capacity_bytes / GIB;
    r->memory_unfit_max = 0;
    for (k = 0; k < r->nbars; k++) {
        const struct views_bar *b = &r->bars[k];
        const struct memory *m = &b->mem;
        double rank = b->expected > 0 ? b->expected : b->step;
        if (rank <= 2.5 * fastest)
            r->steps_max =
                fmax(r->steps_max, fmax(b->serial, fmax(b->step, b->expected)));
        if (b->fits)
            r->memory_fit_max = fmax(r->memory_fit_max, m->total / GIB);
        else
            r->memory_unfit_max = fmax(r->memory_unfit_max, m->total / GIB);
    }
}

/* What becomes of the baseline on one link's chart, in two lines. */
static void sens_words(struct views *r,
                       enum hardware_link which,
                       struct views_sens_chart *c)
{
    const bool ib = which == HARDWARE_LINK_IB;
    const struct views_baseline *b = &r->baseline;
    const struct ranking_family *f;
    const struct ranking_crossover *x;
    const char *link = link_name(which);
    char a[32], grid_end[64];
    if (b->family < 0)
        return;
    f = &r->rank->family[b->family];
    x = ib ? &f->cross_ib : &f->cross_nv;
    views_thousands(x->gbps, a, sizeof a);
    snprintf(grid_end, sizeof grid_end, " (beyond this chart's %g GB/s)",
             c->n ? c->gbps[c->n - 1] : 0);
    if (x->state == RANKING_CROSS_LATENCY) {
        views_say(r, &c->line1, "%s: no %s bandwidth makes it compute-bound",
                  b->name, link);
        views_say(r, &c->line2, "its %s latency alone exceeds its compute time",
                  link);
    } else if (x->state == RANKING_CROSS_ALREADY) {
        if (f->best.t.bound == COST_COMPUTE)
            views_say(r, &c->line1, "%s is compute-bound already", b->name);
        else
            views_say(r, &c->line1,
                      "%s: %s does not bind, %s does: no crossover on this "
                      "chart",
                      b->name, link, cost_bound_label(f->best.t.bound));
        views_say(r, &c->line2,
                  "its %s time is at or below its compute time now", link);
    } else if (x->then_bound == COST_COMPUTE) {
        views_say(r, &c->line1, "%s turns compute-bound at %s GB/s of %s%s",
                  b->name, a, link, x->in_range ? "" : grid_end);
        views_say(r, &c->line2, "there its %s time meets its compute time",
                  link);
        if (x->in_range)
            c->mark_gbps = x->gbps;
    } else {
        views_say(r, &c->line1,
                  "%s: no %s bandwidth alone makes it compute-bound", b->name,
                  link);
        views_say(r, &c->line2,
                  "at %s GB/s its %s time meets compute, but %s still binds", a,
                  link, cost_bound_label(x->then_bound));
    }
}

/* One sensitivity chart: the families with a fitting plan, and the
 * baseline re-timed when none of it fits. */
static enum status
sens_chart(struct views *r, enum hardware_link which, struct diag *d)
{
    const bool ib = which == HARDWARE_LINK_IB;
    struct views_sens_chart *c = &r->sens[ib ? 0 : 1];
    size_t k, i;
    memset(c, 0, sizeof *c); /* nothing owned yet: figures_views zeroes v */
    c->family = malloc((r->rank->nfamilies ? r->rank->nfamilies : 1) *
                       sizeof *c->family);
    if (!c->family)
        return diag_set(d, STATUS_NOMEM, "out of memory");
    c->link = link_name(which);
    c->gbps = ib ? r->rank->sens_ib_gbps : r->rank->sens_nv_gbps;
    c->n = ib ? r->rank->nsens_ib : r->rank->nsens_nv;
    c->today = ib ? r->in->hw->spec.ib_gbps : r->in->hw->spec.nvlink_gbps;
    c->ylo = INFINITY;
    for (k = 0; k < r->rank->nfamilies; k++) {
        long f = r->rank->families_by_step[k];
        const struct ranking_family *rf = &r->rank->family[f];
        const double *step = ib ? rf->sens_ib_step : rf->sens_nv_step;
        bool any = false;
        for (i = 0; i < c->n; i++)
            if (step[i] > 0) {
                any = true;
                c->ylo = fmin(c->ylo, step[i]);
                c->yhi = fmax(c->yhi, step[i]);
            }
        if (any)
            c->family[c->nfamilies++] = f;
    }
    if (!(c->ylo < INFINITY)) {
        c->ylo = 1;
        c->yhi = 10;
    }
    sens_words(r, which, c);
    return STATUS_OK;
}

enum status figures_charts(struct views *r, struct diag *d)
{
    if (r->baseline.family >= 0 && !r->baseline.fits) {
        const struct ranking_family *f = &r->rank->family[r->baseline.family];
        r->baseline.has_point = point_of(&f->best.work, f->best.t.step,
                                         r->baseline.x, &r->baseline.y);
    }
    if (r->published >= 0) {
        const struct cost_result *c =
            &r->rank->validation[r->published].predicted;
        r->has_published_point =
            point_of(&c->work, c->t.step, r->published_x, &r->published_y);
    }
    if (points(r, d) != STATUS_OK || picks(r, d) != STATUS_OK)
        return d->status;
    roofline(r, HARDWARE_LINK_IB, &r->roofline[0]);
    roofline(r, HARDWARE_LINK_NVLINK, &r->roofline[1]);
    bars(r);
    if (sens_chart(r, HARDWARE_LINK_IB, d) != STATUS_OK ||
        sens_chart(r, HARDWARE_LINK_NVLINK, d) != STATUS_OK)
        return d->status;
    return STATUS_OK;
}
