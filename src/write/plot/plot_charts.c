/*
 * plot_charts: one chart = fill its placeholders and data, read its
 * template, expand, write the data file and then the script.
 *
 * May call: plot_roofline, plot_bars, plot_sensitivity, plot_waterfall,
 * plot_summary, plot_scale,
 * plot_template, plot_text, report, diag, libc.
 */
#include "plot_charts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "plot_bars.h"
#include "plot_format.h"
#include "plot_roofline.h"
#include "plot_scale.h"
#include "plot_sensitivity.h"
#include "plot_summary.h"
#include "plot_template.h"
#include "plot_text.h"
#include "plot_waterfall.h"

#define PATH_MAX_CHARS 1100 /* a template path: tdir + name + ".gp.in" */

/* Each chart's data and placeholders; the link variants bind their link. */
typedef void fill_fn(const struct views *r,
                     struct plot_template_vars *v,
                     struct plot_text *dat);

static void roofline_ib(const struct views *r,
                        struct plot_template_vars *v,
                        struct plot_text *dat)
{
    plot_roofline_fill(r, HARDWARE_LINK_IB, v, dat);
}

static void roofline_nvlink(const struct views *r,
                            struct plot_template_vars *v,
                            struct plot_text *dat)
{
    plot_roofline_fill(r, HARDWARE_LINK_NVLINK, v, dat);
}

static void sensitivity_ib(const struct views *r,
                           struct plot_template_vars *v,
                           struct plot_text *dat)
{
    plot_sensitivity_fill(r, HARDWARE_LINK_IB, v, dat);
}

static void sensitivity_nvlink(const struct views *r,
                               struct plot_template_vars *v,
                               struct plot_text *dat)
{
    plot_sensitivity_fill(r, HARDWARE_LINK_NVLINK, v, dat);
}

/* One chart: its name (its files' base name and its template's), what
 * fills it, and whether a report has it (NULL: every report). A new chart
 * is a row here (and PLOT_CHARTS one more). */
struct chart {
    const char *name;
    fill_fn *fill;
    bool (*wanted)(const struct views *r);
};

static const struct chart charts[] = {
    {.name = "roofline-ib", .fill = roofline_ib},
    {.name = "roofline-nvlink", .fill = roofline_nvlink},
    {.name = "step-breakdown", .fill = plot_bars_fill_steps},
    {.name = "memory", .fill = plot_bars_fill_memory},
    {.name = "sensitivity-ib", .fill = sensitivity_ib},
    {.name = "sensitivity-nvlink", .fill = sensitivity_nvlink},
    {.name = "waterfall",
     .fill = plot_waterfall_fill,
     .wanted = plot_waterfall_wanted},
    {.name = "summary",
     .fill = plot_summary_fill,
     .wanted = plot_summary_wanted},
    {.name = "scale", .fill = plot_scale_fill, .wanted = plot_scale_wanted},
};
_Static_assert(sizeof charts / sizeof charts[0] == PLOT_CHARTS,
               "PLOT_CHARTS counts the rows of charts[]");

const char *plot_charts_name(size_t c)
{
    return c < PLOT_CHARTS ? charts[c].name : "";
}

bool plot_charts_wanted(const struct views *r, size_t c)
{
    return c < PLOT_CHARTS && (!charts[c].wanted || charts[c].wanted(r));
}

/* Placeholders every template has: footer, output and data paths. */
static void common_vars(const struct views *r,
                        const char *name,
                        struct plot_template_vars *v)
{
    static const char *const keys[] = {"PNG", "SVG", "PDF", "DATA"};
    static const char *const suffix[] = {"png", "svg", "pdf", "dat"};
    char text[1024];
    size_t i;
    struct plot_text footer = {0};
    plot_text_printf(&footer,
                     "roofplan %s, %s communication model, at the inputs of "
                     "%s; model %s, hardware %s, sweep %s",
                     r->in->version, r->in->comm == COMM_TOPO ? "topo" : "flat",
                     r->when, r->in->m->meta.path, r->in->hw->meta.path,
                     r->in->sweep ? r->in->sweep->meta.path : "-");
    plot_template_set_str(v, "FOOTER", footer.p ? footer.p : "");
    plot_text_release(&footer);
    for (i = 0; i < 4; i++) {
        /* Relative to the output directory, where gnuplot runs; "./"
         * keeps gnuplot from reading a leading '|' or '<' as a command. */
        snprintf(text, sizeof text, "./%s.%s", name, suffix[i]);
        plot_template_set_str(v, keys[i], text);
    }
}

/* TITLE_FONT: the font of the chart's TITLE ("',22'"), smaller for a
 * long title so that none is clipped (plot_format_title_pt); SUB1_FONT
 * and SUB2_FONT, the subtitles' ("',15'", plot_format_sub_pt). */
static void title_font(struct plot_template_vars *v)
{
    static const char *const subs[2][2] = {{"SUB1", "SUB1_FONT"},
                                           {"SUB2", "SUB2_FONT"}};
    const char *title = plot_template_var(v, "TITLE")->p;
    char font[32];
    size_t i;
    snprintf(font, sizeof font, ",%g",
             plot_format_title_pt(title ? title : ""));
    plot_template_set_str(v, "TITLE_FONT", font);
    for (i = 0; i < 2; i++) {
        const struct plot_text *t = plot_template_var(v, subs[i][0]);
        snprintf(font, sizeof font, ",%g",
                 plot_format_sub_pt(t && t->p ? t->p : ""));
        plot_template_set_str(v, subs[i][1], font);
    }
}

/* Writes n bytes to path, created (0666 less the umask) or truncated;
 * O_NOFOLLOW: a symbolic link planted under the name is an error, not a
 * way to write elsewhere. */
static enum status
write_file(const char *path, const char *text, size_t n, struct diag *d)
{
    int fd =
        open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    FILE *f;
    bool ok;
    int e;
    if (fd < 0)
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(errno));
    f = fdopen(fd, "wb");
    if (!f) {
        e = errno;
        close(fd);
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(e));
    }
    ok = fwrite(text, 1, n, f) == n;
    ok = !ferror(f) && ok;
    e = errno;
    if (fclose(f) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok)
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(e));
    return STATUS_OK;
}

enum status plot_charts_write(const struct views *r,
                              size_t c,
                              const char *tdir,
                              const char *script_path,
                              const char *data_path,
                              struct diag *d)
{
    struct plot_template_vars v;
    struct plot_text dat = {0}, tpl = {0}, gp = {0};
    const char *name = plot_charts_name(c);
    char tpath[PATH_MAX_CHARS];
    size_t len = strlen(tdir);
    enum status st = STATUS_OK;
    int n;

    memset(&v, 0, sizeof v);
    common_vars(r, name, &v);
    charts[c].fill(r, &v, &dat);
    title_font(&v);
    if (plot_template_vars_nomem(&v) || dat.nomem) {
        st = diag_set(d, STATUS_NOMEM, "out of memory drawing %s", name);
        goto done;
    }
    n = snprintf(tpath, sizeof tpath, "%s%s%s.gp.in", tdir,
                 len > 0 && tdir[len - 1] == '/' ? "" : "/", name);
    if (n < 0 || (size_t)n >= sizeof tpath) {
        st = diag_set(d, STATUS_IO, "%s: path too long", tdir);
        goto done;
    }
    st = plot_template_read(tpath, &tpl, d);
    if (st == STATUS_OK) {
        plot_text_printf(&gp,
                         "# %s.gp: written by roofplan from %s; edit and "
                         "re-run `gnuplot %s.gp` in this directory.\n",
                         name, tpath, name);
        st = plot_template_expand(&tpl, tpath, &v, &gp, d);
    }
    if (st == STATUS_OK)
        st = write_file(data_path, dat.p ? dat.p : "", dat.len, d);
    if (st == STATUS_OK)
        st = write_file(script_path, gp.p, gp.len, d);
done:
    plot_text_release(&gp);
    plot_text_release(&tpl);
    plot_text_release(&dat);
    plot_template_vars_release(&v);
    return st;
}
