/*
 * plot_scale: the "scale" chart laid out from the report's scale (see
 * plot_scale.h). The data file has a row per size with a fitting plan;
 * the script gets the x tick labels (the sizes), the axes' ranges and
 * units, the threshold and the sentences.
 *
 * May call: plot_format, plot_template, plot_text, scale, goodput,
 * views, libm, libc.
 */
#include "plot_scale.h"

#include <math.h>
#include <stdio.h>

#include "goodput.h"
#include "plot_format.h"
#include "scale.h"

/* Paul Tol's "vibrant" colours (colour-blind-safe), as the other charts:
 * compute days blue, wall-clock orange, cost teal, the threshold and the
 * first size under it red. */
#define COLOR_COMPUTE   "#0077BB"
#define COLOR_WALL      "#EE7733"
#define COLOR_COST      "#009988"
#define COLOR_EFFICIENT "#0077BB"
#define COLOR_UNDER     "#CC3311"

/* Whether size z has a plan to draw. */
static bool drawn(const struct scale_size *z)
{
    return z->any && z->fits;
}

bool plot_scale_wanted(const struct views *r)
{
    size_t i;
    if (!r->scale || r->scale->n < 2)
        return false;
    for (i = 0; i < r->scale->n; i++)
        if (drawn(&r->scale->size[i]))
            return true;
    return false;
}

/* The x tick labels, one per size (fitting or not), at the size. */
static void xtics(const struct scale *s, struct plot_text *t)
{
    size_t i;
    char num[32];
    plot_text_printf(t, "set xtics (");
    for (i = 0; i < s->n; i++) {
        snprintf(num, sizeof num, "%ld", s->size[i].gpus);
        plot_text_printf(t, "%s", i ? ", " : "");
        plot_text_add_quoted(t, num);
        plot_text_printf(t, " %ld", s->size[i].gpus);
    }
    plot_text_printf(t, ")\n");
}

/* Dollars over a unit that keeps the axis' numbers short. */
static void cost_unit(double usd_max, double *div, const char **unit)
{
    *div = usd_max >= 1e6 ? 1e6 : usd_max >= 1e3 ? 1e3 : 1;
    *unit = usd_max >= 1e6 ? "$M" : usd_max >= 1e3 ? "$K" : "$";
}

/* The three sentences under the title. */
static void sentences(const struct views *r, struct plot_template_vars *v)
{
    const struct scale *s = r->scale;
    char text[600], share[64];
    double lo = 1, hi = 0;
    bool expected = false, failures = false;
    size_t i;
    for (i = 0; i < s->n; i++) {
        const struct scale_size *z = &s->size[i];
        if (!drawn(z))
            continue;
        expected = expected || z->expected;
        failures = failures || z->f.g.failures;
        lo = fmin(lo, z->f.g.share);
        hi = fmax(hi, z->f.g.share);
    }
    snprintf(text, sizeof text,
             "Each size's plans ranked on their own; its recommended plan "
             "(Scale sheet) at the %s. Error bars: the range of the "
             "expected step.",
             expected ? "expected step" : "speed of light (no calibration)");
    plot_template_set_str(v, "SUB1", text);
    snprintf(share, sizeof share, "%.1f%% to %.1f%%", 100 * lo, 100 * hi);
    if (round(1000 * lo) == round(1000 * hi)) /* the same to a tenth */
        snprintf(share, sizeof share, "%.1f%%", 100 * hi);
    if (failures)
        snprintf(text, sizeof text,
                 "Wall-clock: with failures and checkpoints (%s effective "
                 "training, Assumptions). Cost: the wall-clock GPU-hours at "
                 "$%.2f per GPU-hour.",
                 share, r->in->hw->spec.gpu_hour_usd);
    else
        snprintf(text, sizeof text,
                 "Wall-clock: the hardware file gives no failure rate, so "
                 "the compute days. Cost: the GPU-hours at $%.2f per "
                 "GPU-hour.",
                 r->in->hw->spec.gpu_hour_usd);
    plot_template_set_str(v, "SUB2", text);
    if (s->below >= 0)
        snprintf(text, sizeof text,
                 "Scaling efficiency (tokens/s per GPU against %ld GPUs') "
                 "falls under %.0f%% (report.scale_efficiency) from %ld "
                 "GPUs.",
                 s->size[0].gpus, 100 * s->threshold, s->size[s->below].gpus);
    else
        snprintf(text, sizeof text,
                 "Scaling efficiency (tokens/s per GPU against %ld GPUs') "
                 "stays at or above %.0f%% (report.scale_efficiency) at "
                 "every size.",
                 s->size[0].gpus, 100 * s->threshold);
    plot_template_set_str(v, "SUB3", text);
}

/* The data rows, and the largest value each panel shows. */
static void rows(const struct scale *s,
                 struct plot_text *dat,
                 double *days_max,
                 double *usd_max,
                 double *eff_max)
{
    size_t i;
    for (i = 0; i < s->n; i++) {
        const struct scale_size *z = &s->size[i];
        const struct goodput_figures *f = &z->f;
        double wlo = f->range ? f->wall_lo : f->wall_days;
        double clo = f->range ? f->wall_cost_lo : f->wall_cost;
        if (!drawn(z)) {
            plot_text_printf(dat, "# %ld GPUs: no plan fits\n", z->gpus);
            continue;
        }
        plot_text_printf(dat,
                         "%ld %.12g %.12g %.12g %.12g %.12g %.12g %.12g "
                         "%.12g %.12g %.12g %d\n",
                         z->gpus, f->days, f->days_lo, f->days_hi, f->wall_days,
                         wlo, z->wall_hi, f->wall_cost, clo, z->cost_hi,
                         100 * z->efficiency, s->below == (long)i);
        *days_max = fmax(*days_max, fmax(f->days_hi, z->wall_hi));
        *usd_max = fmax(*usd_max, z->cost_hi);
        *eff_max = fmax(*eff_max, 100 * z->efficiency);
    }
}

void plot_scale_fill(const struct views *r,
                     struct plot_template_vars *v,
                     struct plot_text *dat)
{
    const struct scale *s = r->scale;
    double days_max = 0, usd_max = 0, eff_max = 0, div;
    const char *unit;
    char text[600];

    plot_text_printf(dat,
                     "# scale: each cluster size's recommended plan (ranked "
                     "on its own)\n"
                     "# gpus, compute days, low, high, wall-clock days, low, "
                     "high, cost USD (wall-clock), low, high, scaling "
                     "efficiency %%, first size under the threshold (1)\n");
    rows(s, dat, &days_max, &usd_max, &eff_max);
    cost_unit(usd_max, &div, &unit);
    diag_snprintf(text, sizeof text,
                  "%s on %ld to %ld \xC3\x97 %s: how many GPUs",
                  r->in->m->spec.name, s->size[0].gpus, s->size[s->n - 1].gpus,
                  r->in->hw->spec.gpu_name);
    plot_template_set_str(v, "TITLE", text);
    sentences(r, v);
    xtics(s, plot_template_var(v, "XTICS"));
    plot_template_set_num(v, "XMIN", (double)s->size[0].gpus / 1.5);
    plot_template_set_num(v, "XMAX", (double)s->size[s->n - 1].gpus * 1.5);
    /* room above the highest error bar for its value */
    plot_template_set_num(v, "DAYS_MAX", plot_format_nice_ceil(days_max * 1.2));
    plot_template_set_num(v, "COST_DIV", div);
    plot_template_set_num(v, "COST_MAX",
                          plot_format_nice_ceil(usd_max / div * 1.2));
    plot_template_set_num(v, "EFF_MAX",
                          fmax(120, plot_format_nice_ceil(eff_max * 1.2)));
    plot_template_set_num(v, "THRESHOLD", 100 * s->threshold);
    snprintf(text, sizeof text, "cost, %s (wall-clock)", unit);
    plot_template_set_str(v, "COST_LABEL", text);
    snprintf(text, sizeof text, "threshold %.0f%% (report.scale_efficiency)",
             100 * s->threshold);
    plot_template_set_str(v, "THRESHOLD_LABEL", text);
    if (s->below >= 0)
        snprintf(text, sizeof text, "first under %.0f%%: %ld GPUs",
                 100 * s->threshold, s->size[s->below].gpus);
    else
        text[0] = '\0';
    plot_template_set_str(v, "UNDER_LABEL", text);
    plot_template_set_str(v, "C_COMPUTE", COLOR_COMPUTE);
    plot_template_set_str(v, "C_WALL", COLOR_WALL);
    plot_template_set_str(v, "C_COST", COLOR_COST);
    plot_template_set_str(v, "C_EFF", COLOR_EFFICIENT);
    plot_template_set_str(v, "C_UNDER", COLOR_UNDER);
}
