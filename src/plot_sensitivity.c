/*
 * plot_sensitivity: the step time of each family's best fitting plan
 * against the InfiniBand bandwidth, from the report's sensitivity grid;
 * ZeRO-3 (pure FSDP) gets its crossover, the bandwidth where its IB time
 * meets its compute time, marked with what binds there.
 *
 * May call: plot_format, plot_template, plot_text, report, cost,
 * hardware, libm, libc.
 */
#include "plot_sensitivity.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"
#include "hardware.h"
#include "plot_format.h"

/* The FAMILIES placeholder: gnuplot arrays of each drawn family's name
 * (with its suffix, when suffix[i] is not NULL) and colour, and NFAM. */
static void family_arrays(const struct report *r,
                          const long *fam,
                          size_t nfam,
                          const char *const *suffix,
                          struct plot_template_vars *v)
{
    struct plot_text *code = plot_template_var(v, "FAMILIES");
    size_t i;
    plot_template_set_num(v, "NFAM", (double)nfam);
    plot_text_printf(code, "array fam_name[%zu]\narray fam_color[%zu]\n",
                     nfam ? nfam : 1, nfam ? nfam : 1);
    for (i = 0; i < nfam; i++) {
        char name[96], hex[16];
        snprintf(name, sizeof name, "%s%s", r->family[fam[i]].name,
                 suffix && suffix[i] ? suffix[i] : "");
        plot_format_color(report_family_color(r, (size_t)fam[i]), hex,
                          sizeof hex);
        plot_text_printf(code, "fam_name[%zu] = ", i + 1);
        plot_text_add_quoted(code, name);
        plot_text_printf(code, "; fam_color[%zu] = ", i + 1);
        plot_text_add_quoted(code, hex);
        plot_text_printf(code, "\n");
    }
}

/* `set ytics (...)` at 1, 2, 5 x 10^k inside [lo, hi]: a log axis that
 * spans less than two decades still gets a few labelled ticks. */
static void log_tics(struct plot_text *code, char axis, double lo, double hi)
{
    static const double mant[] = {1, 2, 5};
    double p;
    bool first = true;
    size_t i;
    plot_text_printf(code, "set %ctics (", axis);
    for (p = plot_format_pow10_floor(lo); p <= hi; p *= 10)
        for (i = 0; i < 3; i++) {
            double t = mant[i] * p;
            if (t < lo || t > hi)
                continue;
            plot_text_printf(code, "%s'%g' %.12g", first ? "" : ", ", t, t);
            first = false;
        }
    plot_text_printf(code, ")\n");
}

void plot_sensitivity_fill(const struct report *r,
                           struct plot_template_vars *v,
                           struct plot_text *dat)
{
    long fam[REPORT_FAMILIES_MAX];
    const char *suffix[REPORT_FAMILIES_MAX];
    long fsdp = report_family_index(r, "ZeRO-3");
    size_t nfam = 0, i, k;
    double ylo = INFINITY, yhi = 0, today = r->hw->spec.ib_gbps;
    double x0 = r->sens_ib_gbps[0], x1 = r->sens_ib_gbps[REPORT_SENS_IB - 1];
    struct plot_text *dash = plot_template_var(v, "DASHED"),
                     *code = plot_template_var(v, "MARKS");
    struct plot_text *tics = plot_template_var(v, "XTICS");
    char text[512], a[32];

    plot_text_printf(
        dat, "# sensitivity-ib: step time of each family's best fitting plan "
             "at each IB bandwidth, one block per family (index i-1 is "
             "fam_name[i])\n"
             "# IB GB/s, step time s, bound (0 compute, 1 IB, 2 NVLink, "
             "3 HBM)\n");
    for (k = 0; k < r->nfamilies; k++) {
        long f = r->families_by_step[k];
        const struct report_family *rf = &r->family[f];
        bool any = false, own = false;
        for (i = 0; i < REPORT_SENS_IB; i++)
            any = any || rf->sens_ib_step[i] > 0;
        if (!any && f == fsdp && rf->has_best)
            own = true; /* no fitting plan: its fastest plan, re-timed */
        if (!any && !own)
            continue;
        plot_text_printf(dat, "# block %zu\n", nfam);
        for (i = 0; i < REPORT_SENS_IB; i++) {
            double step = rf->sens_ib_step[i];
            int bound = rf->sens_ib_bound[i];
            if (own) {
                struct hardware h = *r->hw;
                struct cost_times t;
                h.spec.ib_gbps = r->sens_ib_gbps[i];
                hardware_derive(&h);
                cost_times(&rf->best.work, &h, r->m, rf->best.plan.precision,
                           &t);
                step = t.step;
                bound = t.bound;
            }
            if (!(step > 0))
                continue;
            plot_text_printf(dat, "%.12g %.12g %d\n", r->sens_ib_gbps[i], step,
                             bound);
            plot_format_grow_range(step, &ylo, &yhi);
        }
        plot_text_printf(dat, "\n\n");
        suffix[nfam] = own ? " (fastest plan; does not fit)" : NULL;
        plot_text_printf(dash, "fam_dash[%zu] = %d\n", nfam + 1, own);
        fam[nfam++] = f;
    }
    family_arrays(r, fam, nfam, suffix, v);
    plot_text_printf(plot_template_var(v, "FAMILIES"), "array fam_dash[%zu]\n",
                     nfam ? nfam : 1);
    if (!(ylo < INFINITY)) {
        ylo = 1;
        yhi = 10;
    }
    plot_template_set_num(v, "XMIN", x0 / 1.25);
    plot_template_set_num(v, "XMAX", x1 * 1.25);
    ylo /= 1.25;
    yhi *= 1.25;
    plot_template_set_num(v, "YMIN", ylo);
    plot_template_set_num(v, "YMAX", yhi);
    log_tics(plot_template_var(v, "YTICS"), 'y', ylo, yhi);
    plot_template_set_num(v, "TODAY", today);
    plot_text_printf(tics, "set xtics (");
    for (i = 0; i < REPORT_SENS_IB; i += 2)
        plot_text_printf(tics, "%s'%g' %.12g", i ? ", " : "",
                         r->sens_ib_gbps[i], r->sens_ib_gbps[i]);
    plot_text_printf(tics, ")\n");
    plot_format_num(today, a, sizeof a);
    snprintf(text, sizeof text, "today: %s GB/s", a);
    plot_template_set_str(v, "TODAY_LABEL", text);

    /* ZeRO-3's crossover: the IB bandwidth where its IB time meets its
     * compute time, and what binds there; two lines at the top, beside
     * its vertical line (or at an edge when off the axis). */
    if (fsdp >= 0 && r->family[fsdp].has_best) {
        const struct report_family *z = &r->family[fsdp];
        double g = z->ib_crossover_gbps;
        char color[16], line2[160];
        const char *at = "graph 0.98", *align = "right", *off = "0";
        bool inside = g >= x0 / 1.25 && g <= x1 * 1.25;
        plot_format_color(report_family_color(r, (size_t)fsdp), color,
                          sizeof color);
        line2[0] = '\0';
        if (g > 0) {
            struct hardware h = *r->hw;
            struct cost_times t;
            h.spec.ib_gbps = g;
            hardware_derive(&h);
            cost_times(&z->best.work, &h, r->m, z->best.plan.precision, &t);
            plot_format_num(g, a, sizeof a);
            snprintf(text, sizeof text, "ZeRO-3 crossover: %s GB/s%s", a,
                     inside   ? ""
                     : g > x1 ? " (off the axis)"
                              : "");
            snprintf(line2, sizeof line2, "IB time = compute there%s%s%s",
                     t.bound != COST_COMPUTE ? "; still " : "",
                     t.bound != COST_COMPUTE ? cost_bound_label(t.bound) : "",
                     t.bound != COST_COMPUTE ? "-bound" : "");
            if (inside) {
                plot_text_printf(
                    code,
                    "set arrow from %.12g, graph 0 to %.12g, graph 1 "
                    "nohead lw 3 dt (10,6) lc rgb '%s' back\n",
                    g, g, color);
                plot_text_printf(code, "xcross = %.12g\n", g);
                at = "xcross";
                align = g > today ? "left" : "right";
                off = g > today ? "0.6" : "-0.6";
            }
        } else {
            snprintf(text, sizeof text, "%s",
                     g == 0 ? "ZeRO-3: IB time is already below compute"
                            : "ZeRO-3: IB latency alone exceeds compute");
        }
        plot_text_printf(code, "set label ");
        plot_text_add_quoted(code, text);
        plot_text_printf(code,
                         " at %s, graph 0.97 %s offset %s,0 front boxed font "
                         "'Sans Bold,14' textcolor rgb '#000000'\n",
                         at, align, off);
        if (line2[0]) {
            plot_text_printf(code, "set label ");
            plot_text_add_quoted(code, line2);
            plot_text_printf(code,
                             " at %s, graph 0.97 %s offset %s,-1.3 front boxed "
                             "font ',14'\n",
                             at, align, off);
        }
    }
    plot_format_title(r, "step time against InfiniBand bandwidth", text,
                      sizeof text);
    plot_template_set_str(v, "TITLE", text);
    snprintf(text, sizeof text,
             "The best fitting plan of each family at each bandwidth "
             "(the plan may change along a line); NVLink and compute stay as "
             "today.");
    plot_template_set_str(v, "SUB1", text);
    snprintf(text, sizeof text,
             "Filled dots: compute-bound there; open: bound by a link or "
             "HBM. Flat lines do not need more IB.");
    plot_template_set_str(v, "SUB2", text);
    plot_template_set_str(v, "XLABEL",
                          "InfiniBand bandwidth per GPU, GB/s (log scale)");
    plot_template_set_str(v, "YLABEL", "time per step, s (log scale)");
}
