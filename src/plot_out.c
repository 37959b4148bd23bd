/*
 * plot_out: chart data, scripts from templates, and gnuplot runs.
 *
 * A chart is three things written here: <name>.dat (numbers only, one
 * block per family where the chart has families), <name>.gp (the
 * template with every @NAME@ replaced once, never rescanned) and the
 * images gnuplot draws from them. Strings in a script come only from
 * plot_out_quote(); label positions on the rooflines are chosen here
 * (greedily, in pixels of the fixed 1600x900 layout) because gnuplot has
 * no placement that avoids overlaps.
 */
#define _GNU_SOURCE /* posix_spawn_file_actions_addchdir_np, environ */
#include "plot_out.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cost.h"
#include "hardware.h"
#include "plan.h"

#ifndef ROOFPLAN_TEMPLATEDIR
#define ROOFPLAN_TEMPLATEDIR "templates"
#endif

#define GIB          1073741824.0
#define TEMPLATE_MAX (1 << 20) /* bytes of one template */
#define VARS_MAX     48
#define STDERR_KEEP  1200 /* bytes of gnuplot's stderr in the message */
#define LABELS_MAX   (REPORT_FAMILIES_MAX + 16)

/* The fixed layout every template uses (screen fractions of 1600x900);
 * passed to the scripts as @LMARGIN@ ... so both sides agree. */
#define CANVAS_W 1600.0
#define CANVAS_H 900.0
/* Cairo terminals draw a point of font size as 4/3 pixel (96 dpi). */
#define PX_PER_PT (96.0 / 72.0)

/* Colours of the bar segments (Paul Tol's "vibrant", colour-blind-safe);
 * families keep report_family_color(). */
#define COLOR_COMPUTE   "#0077BB"
#define COLOR_IB        "#EE7733"
#define COLOR_NVLINK    "#CC3311"
#define COLOR_HBM       "#EE3377"
#define COLOR_BUBBLE    "#BBBBBB"
#define COLOR_OPTIMIZER "#009988"

static const char *const chart_names[PLOT_CHARTS] = {
    "roofline-ib", "roofline-nvlink", "step-breakdown", "memory",
    "sensitivity-ib"};

/* ---- Growing text ---- */

struct buf {
    char *p;
    size_t len, cap;
    bool nomem;
};

static void buf_add(struct buf *b, const char *s, size_t n)
{
    if (b->nomem)
        return;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        char *grown;
        while (cap < b->len + n + 1) {
            if (cap > SIZE_MAX / 2) {
                b->nomem = true;
                return;
            }
            cap *= 2;
        }
        grown = realloc(b->p, cap);
        if (!grown) {
            b->nomem = true;
            return;
        }
        b->p = grown;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void buf_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void buf_printf(struct buf *b, const char *fmt, ...)
{
    char small[512];
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        b->nomem = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        buf_add(b, small, (size_t)n);
        return;
    }
    {
        char *big = malloc((size_t)n + 1);
        if (!big) {
            b->nomem = true;
            return;
        }
        va_start(ap, fmt);
        vsnprintf(big, (size_t)n + 1, fmt, ap);
        va_end(ap);
        buf_add(b, big, (size_t)n);
        free(big);
    }
}

/* Appends text as a quoted gnuplot string (through plot_out_quote). */
static void buf_quote(struct buf *b, const char *text)
{
    size_t size = 2 * strlen(text) + 3;
    char *q = malloc(size);
    if (!q) {
        b->nomem = true;
        return;
    }
    plot_out_quote(text, q, size);
    buf_add(b, q, strlen(q));
    free(q);
}

static void buf_release(struct buf *b)
{
    free(b->p);
    memset(b, 0, sizeof *b);
}

/* ---- Escaping ---- */

bool plot_out_quote(const char *text, char *buf, size_t size)
{
    size_t o = 0, i;
    bool whole = true;
    if (size < 3) {
        if (size > 0)
            buf[0] = '\0';
        return false;
    }
    buf[o++] = '\'';
    for (i = 0; text[i] != '\0'; i++) {
        unsigned char c = (unsigned char)text[i];
        size_t need = c == '\'' ? 2 : 1;
        /* Stop before a character that does not fit with the closing
         * quote; never split a UTF-8 sequence (continuation bytes are
         * 10xxxxxx). */
        if (o + need + 1 >= size) {
            whole = false;
            while (o > 1 && ((unsigned char)buf[o - 1] & 0xC0) == 0x80)
                o--;
            if (o > 1 && ((unsigned char)buf[o - 1] & 0xC0) == 0xC0)
                o--;
            break;
        }
        if (c == '\'') {
            buf[o++] = '\'';
            buf[o++] = '\'';
        } else if (c < 0x20 || c == 0x7F) {
            buf[o++] = ' '; /* a newline would end the command */
        } else {
            buf[o++] = (char)c;
        }
    }
    buf[o++] = '\'';
    buf[o] = '\0';
    return whole;
}

/* ---- Placeholders ---- */

struct vars {
    char name[VARS_MAX][24];
    struct buf val[VARS_MAX];
    size_t n;
    bool full;
};

/* The value of placeholder name, created empty on first use. */
static struct buf *var(struct vars *v, const char *name)
{
    size_t i;
    for (i = 0; i < v->n; i++)
        if (strcmp(v->name[i], name) == 0)
            return &v->val[i];
    if (v->n == VARS_MAX) {
        v->full = true;
        return &v->val[VARS_MAX - 1];
    }
    snprintf(v->name[v->n], sizeof v->name[0], "%s", name);
    memset(&v->val[v->n], 0, sizeof v->val[0]);
    return &v->val[v->n++];
}

/* The value of placeholder name, emptied: var_num/var_str replace it. */
static struct buf *var_reset(struct vars *v, const char *name)
{
    struct buf *b = var(v, name);
    b->len = 0;
    if (b->p)
        b->p[0] = '\0';
    return b;
}

static void var_num(struct vars *v, const char *name, double x)
{
    buf_printf(var_reset(v, name), "%.12g", x);
}

static void var_str(struct vars *v, const char *name, const char *text)
{
    buf_quote(var_reset(v, name), text);
}

static void vars_release(struct vars *v)
{
    size_t i;
    for (i = 0; i < v->n; i++)
        buf_release(&v->val[i]);
    v->n = 0;
}

static bool vars_nomem(const struct vars *v)
{
    size_t i;
    for (i = 0; i < v->n; i++)
        if (v->val[i].nomem)
            return true;
    return v->full;
}

/* ---- Files ---- */

static enum status read_file(const char *path, struct buf *b, struct diag *d)
{
    FILE *f = fopen(path, "rb");
    char chunk[8192];
    size_t n;
    if (!f)
        return diag_set(d, STATUS_IO, "%s: cannot open: %s", path,
                        strerror(errno));
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        buf_add(b, chunk, n);
        if (b->len > TEMPLATE_MAX) {
            fclose(f);
            return diag_set(d, STATUS_IO, "%s: larger than %d bytes", path,
                            TEMPLATE_MAX);
        }
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        return diag_set(d, STATUS_IO, "%s: cannot read: %s", path, strerror(e));
    }
    fclose(f);
    if (b->nomem)
        return diag_set(d, STATUS_NOMEM, "out of memory reading %s", path);
    if (b->len == 0)
        buf_add(b, "", 0);
    return STATUS_OK;
}

/* Writes n bytes to path through path.tmp and rename(), so a failed run
 * never leaves a half-written file under the final name. */
static enum status
write_file(const char *path, const char *text, size_t n, struct diag *d)
{
    char tmp[PLOT_PATH_MAX + 8];
    FILE *f;
    bool ok;
    int e;
    if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", path) >= sizeof tmp)
        return diag_set(d, STATUS_IO, "%s: path too long", path);
    f = fopen(tmp, "wb");
    if (!f)
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", tmp,
                        strerror(errno));
    ok = fwrite(text, 1, n, f) == n;
    ok = !ferror(f) && ok;
    e = errno;
    if (fclose(f) != 0) {
        ok = false;
        e = errno;
    }
    if (!ok) {
        remove(tmp);
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", tmp, strerror(e));
    }
    if (rename(tmp, path) != 0) {
        e = errno;
        remove(tmp);
        return diag_set(d, STATUS_IO, "%s: cannot rename to %s: %s", tmp, path,
                        strerror(e));
    }
    return STATUS_OK;
}

static bool is_placeholder_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

/*
 * Copies template t (read from tpath) into out with each @NAME@ replaced
 * by its value in v. Values are inserted verbatim and never scanned
 * again, so text inside them (an "@x@" in a model name) stays text. An
 * unknown placeholder is a template error naming its line.
 */
static enum status expand(const struct buf *t,
                          const char *tpath,
                          const struct vars *v,
                          struct buf *out,
                          struct diag *d)
{
    size_t i = 0, line = 1;
    while (i < t->len) {
        size_t j, k;
        if (t->p[i] != '@') {
            if (t->p[i] == '\n')
                line++;
            buf_add(out, &t->p[i++], 1);
            continue;
        }
        for (j = i + 1; j < t->len && is_placeholder_char(t->p[j]); j++)
            ;
        if (j == i + 1 || j >= t->len || t->p[j] != '@') {
            buf_add(out, &t->p[i++], 1);
            continue;
        }
        for (k = 0; k < v->n; k++)
            if (strlen(v->name[k]) == j - i - 1 &&
                memcmp(v->name[k], &t->p[i + 1], j - i - 1) == 0)
                break;
        if (k == v->n)
            return diag_set(d, STATUS_PARSE,
                            "%s:%zu: unknown placeholder @%.*s@", tpath, line,
                            (int)(j - i - 1), &t->p[i + 1]);
        if (v->val[k].len > 0)
            buf_add(out, v->val[k].p, v->val[k].len);
        i = j + 1;
    }
    return out->nomem ? diag_set(d, STATUS_NOMEM, "out of memory") : STATUS_OK;
}

/* ---- Numbers for people ---- */

/* 12870 -> "12,870"; 1.5 -> "1.5" (3 significant digits below 100). */
static void fmt_num(double x, char *buf, size_t size)
{
    char digits[64];
    size_t n, i, o = 0;
    if (!isfinite(x) || fabs(x) < 100) {
        snprintf(buf, size, "%.3g", x);
        return;
    }
    snprintf(digits, sizeof digits, "%.0f", fabs(x));
    n = strlen(digits);
    if (x < 0 && o + 1 < size)
        buf[o++] = '-';
    for (i = 0; i < n && o + 2 < size; i++) {
        buf[o++] = digits[i];
        if ((n - i - 1) % 3 == 0 && i + 1 < n)
            buf[o++] = ',';
    }
    buf[o] = '\0';
}

/* 12870 -> "12.9k", 2.5e6 -> "2.5M": SI prefix, 3 significant digits. */
static void fmt_si(double x, char *buf, size_t size)
{
    static const char prefix[] = " kMGTP";
    size_t p = 0;
    while (fabs(x) >= 999.5 && p + 1 < sizeof prefix - 1) {
        x /= 1000;
        p++;
    }
    if (p == 0)
        snprintf(buf, size, "%.3g", x);
    else
        snprintf(buf, size, "%.3g%c", x, prefix[p]);
}

static double pow10_floor(double x)
{
    return pow(10, floor(log10(x)));
}

static double pow10_ceil(double x)
{
    return pow(10, ceil(log10(x)));
}

/* A round upper bound for a linear axis: 1, 2, 2.5, 5 x 10^k above x. */
static double nice_ceil(double x)
{
    static const double steps[] = {1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10};
    double p = pow10_floor(x);
    size_t i;
    for (i = 0; i < sizeof steps / sizeof steps[0]; i++)
        if (steps[i] * p >= x)
            return steps[i] * p;
    return 10 * p;
}

static void color_hex(uint32_t c, char *buf, size_t size)
{
    snprintf(buf, size, "#%06X", (unsigned)(c & 0xFFFFFFu));
}

/* ---- Common text ---- */

static void
title_text(const struct report *r, const char *what, char *buf, size_t size)
{
    snprintf(buf, size, "%s on %ld \xC3\x97 %s: %s", r->m->spec.name,
             r->hw->spec.gpus, r->hw->spec.gpu_name, what);
}

/* Variables every template has: footer, output and data paths, font. */
static void
common_vars(const struct report *r, const char *name, struct vars *v)
{
    char text[1024];
    const char *exts[] = {"PNG", "SVG", "PDF", "DATA"};
    const char *suffix[] = {"png", "svg", "pdf", "dat"};
    size_t i;
    struct buf footer;
    memset(&footer, 0, sizeof footer);
    buf_printf(&footer,
               "roofplan %s, %s communication model; model %s, hardware %s, "
               "sweep %s",
               r->version, r->comm == COMM_TOPO ? "topo" : "flat",
               r->m->meta.path, r->hw->meta.path,
               r->sweep ? r->sweep->meta.path : "-");
    var_str(v, "FOOTER", footer.p ? footer.p : "");
    buf_release(&footer);
    for (i = 0; i < 4; i++) {
        /* Paths relative to the output directory, where gnuplot runs. */
        snprintf(text, sizeof text, "./%s.%s", name, suffix[i]);
        var_str(v, exts[i], text);
    }
}

/* ---- Label placement on the rooflines ---- */

struct box {
    double x0, y0, x1, y1; /* pixels, y down */
};

struct layout {
    double l, r, b, t;         /* plot area, screen fractions */
    double lx0, lx1, ly0, ly1; /* log10 of the axis ranges */
    struct box taken[LABELS_MAX * 2 + 16];
    bool text[LABELS_MAX * 2 + 16]; /* the box holds a label */
    size_t ntaken;
    struct box leader[LABELS_MAX]; /* segments (x0,y0)-(x1,y1) */
    size_t nleaders;
};

static double px_x(const struct layout *L, double x)
{
    return CANVAS_W *
           (L->l + (L->r - L->l) * (log10(x) - L->lx0) / (L->lx1 - L->lx0));
}

static double px_y(const struct layout *L, double y)
{
    return CANVAS_H *
           (1 - L->b - (L->t - L->b) * (log10(y) - L->ly0) / (L->ly1 - L->ly0));
}

static double data_x(const struct layout *L, double px)
{
    double f = (px / CANVAS_W - L->l) / (L->r - L->l);
    return pow(10, L->lx0 + f * (L->lx1 - L->lx0));
}

static double data_y(const struct layout *L, double py)
{
    double f = (1 - py / CANVAS_H - L->b) / (L->t - L->b);
    return pow(10, L->ly0 + f * (L->ly1 - L->ly0));
}

/* Width of text in pixels at font size pt: an estimate from DejaVu Sans
 * advances (em) by kind of character, measured on pngcairo output. */
static double text_px(const char *text, double pt)
{
    double em = 0;
    for (; *text; text++) {
        unsigned char c = (unsigned char)*text;
        if ((c & 0xC0) == 0x80)
            continue; /* UTF-8 continuation byte */
        if (c == ' ' || c == '.' || c == ',' || c == ':' || c == '\'' ||
            c == 'i' || c == 'l' || c == 'j' || c == '(' || c == ')')
            em += 0.33;
        else if ((c >= 'A' && c <= 'Z') || c == '+' || c == '=' || c == '@' ||
                 c == 'm' || c == 'w' || c >= 0x80)
            em += 0.72;
        else
            em += 0.58;
    }
    return em * pt * PX_PER_PT;
}

static bool overlaps(const struct box *a, const struct box *b)
{
    const double pad = 3;
    return a->x0 < b->x1 + pad && b->x0 < a->x1 + pad && a->y0 < b->y1 + pad &&
           b->y0 < a->y1 + pad;
}

static bool box_free(const struct layout *L, const struct box *b)
{
    size_t i;
    if (b->x0 < CANVAS_W * L->l + 4 || b->x1 > CANVAS_W * L->r - 4 ||
        b->y0 < CANVAS_H * (1 - L->t) + 4 || b->y1 > CANVAS_H * (1 - L->b) - 4)
        return false;
    for (i = 0; i < L->ntaken; i++)
        if (overlaps(b, &L->taken[i]))
            return false;
    return true;
}

static void take(struct layout *L, struct box b)
{
    if (L->ntaken < sizeof L->taken / sizeof L->taken[0]) {
        L->text[L->ntaken] = false;
        L->taken[L->ntaken++] = b;
    }
}

/* Does the segment s (x0,y0)-(x1,y1) cross box b? (Liang-Barsky) */
static bool segment_hits_box(const struct box *s, const struct box *b)
{
    double t0 = 0, t1 = 1, dx = s->x1 - s->x0, dy = s->y1 - s->y0;
    double p[4], q[4];
    size_t i;
    p[0] = -dx, q[0] = s->x0 - b->x0;
    p[1] = dx, q[1] = b->x1 - s->x0;
    p[2] = -dy, q[2] = s->y0 - b->y0;
    p[3] = dy, q[3] = b->y1 - s->y0;
    for (i = 0; i < 4; i++) {
        if (p[i] == 0) {
            if (q[i] < 0)
                return false;
        } else {
            double t = q[i] / p[i];
            if (p[i] < 0 && t > t0)
                t0 = t;
            else if (p[i] > 0 && t < t1)
                t1 = t;
        }
    }
    return t0 < t1 - 1e-9;
}

static double
cross(double ax, double ay, double bx, double by, double cx, double cy)
{
    return (bx - ax) * (cy - ay) - (by - ay) * (cx - ax);
}

static bool segments_cross(const struct box *a, const struct box *b)
{
    double d1 = cross(a->x0, a->y0, a->x1, a->y1, b->x0, b->y0);
    double d2 = cross(a->x0, a->y0, a->x1, a->y1, b->x1, b->y1);
    double d3 = cross(b->x0, b->y0, b->x1, b->y1, a->x0, a->y0);
    double d4 = cross(b->x0, b->y0, b->x1, b->y1, a->x1, a->y1);
    return ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0));
}

/* A leader may not cross another label or another leader. */
static bool leader_free(const struct layout *L, const struct box *seg)
{
    size_t i;
    for (i = 0; i < L->ntaken; i++)
        if (L->text[i] && segment_hits_box(seg, &L->taken[i]))
            return false;
    for (i = 0; i < L->nleaders; i++)
        if (segments_cross(seg, &L->leader[i]))
            return false;
    return true;
}

/* A box of size w x h whose nearest side or corner is `dist` pixels from
 * (px, py) in direction (dx, dy), each of -1, 0, 1. */
static struct box
box_at(double px, double py, int dx, int dy, double dist, double w, double h)
{
    struct box b;
    double d = (dx != 0 && dy != 0) ? dist * 0.7071 : dist;
    double cx = px + dx * (d + w / 2), cy = py + dy * (d + h / 2);
    b.x0 = cx - w / 2;
    b.x1 = cx + w / 2;
    b.y0 = cy - h / 2;
    b.y1 = cy + h / 2;
    return b;
}

/*
 * Places a label (one or two lines) for the point (x, y), in data
 * coordinates, and appends `set label`/`set arrow` commands to code.
 * Candidates lie on rings around the point (16 directions, growing
 * distances); a candidate must not cover another label, marker or roof
 * line or leave the plot; among those, the nearest wins, with a penalty
 * for a leader that crosses another label or leader and for the
 * directions after the preferred ones (`prefer`, radians from the +x axis,
 * y up; NAN: none). Returns false when no spot is free (label dropped).
 */
static bool place_label(struct layout *L,
                        struct buf *code,
                        const char *text,
                        const char *line2,
                        double x,
                        double y,
                        double pt,
                        double prefer)
{
    static const double dist[] = {8,   20,  34,  50,  70, 95,
                                  125, 160, 200, 250, 310};
    double px = px_x(L, x), py = px_y(L, y), lh = pt * PX_PER_PT * 1.35;
    double w = text_px(text, pt) + 8, h = line2 ? 2 * lh : lh;
    double best_score = INFINITY;
    struct box best = {0, 0, 0, 0}, best_seg = {0, 0, 0, 0};
    size_t i, k;
    if (line2 && text_px(line2, pt) + 8 > w)
        w = text_px(line2, pt) + 8;
    for (i = 0; i < sizeof dist / sizeof dist[0]; i++)
        for (k = 0; k < 16; k++) {
            double ang = (double)k * M_PI / 8, ux = cos(ang), uy = -sin(ang);
            double cx = px + ux * dist[i], cy = py + uy * dist[i], score;
            struct box b, seg;
            cx += ux > 0.38 ? w / 2 : ux < -0.38 ? -w / 2 : 0;
            cy += uy > 0.38 ? h / 2 : uy < -0.38 ? -h / 2 : 0;
            b.x0 = cx - w / 2;
            b.x1 = cx + w / 2;
            b.y0 = cy - h / 2;
            b.y1 = cy + h / 2;
            if (!box_free(L, &b))
                continue;
            seg.x0 = px;
            seg.y0 = py;
            seg.x1 = px < b.x0 ? b.x0 : px > b.x1 ? b.x1 : px;
            seg.y1 = py < b.y0 ? b.y0 : py > b.y1 ? b.y1 : py;
            score = dist[i];
            if (i > 1 && !leader_free(L, &seg))
                score += 400;
            if (!isnan(prefer)) {
                double off = fabs(remainder(ang - prefer, 2 * M_PI));
                score += off > M_PI / 3 ? 60 : 0;
            }
            if (score < best_score) {
                best_score = score;
                best = b;
                best_seg = seg;
            }
        }
    if (!(best_score < INFINITY))
        return false;
    take(L, best);
    L->text[L->ntaken - 1] = true;
    buf_printf(code, "set label ");
    buf_quote(code, text);
    buf_printf(code, " at %.6g, %.6g left front boxed font ',%g'\n",
               data_x(L, best.x0 + 4), data_y(L, best.y0 + lh / 2), pt);
    if (line2) {
        buf_printf(code, "set label ");
        buf_quote(code, line2);
        buf_printf(code, " at %.6g, %.6g left front boxed font ',%g'\n",
                   data_x(L, best.x0 + 4), data_y(L, best.y0 + 1.5 * lh), pt);
    }
    if (hypot(best_seg.x1 - px, best_seg.y1 - py) > 14) {
        if (L->nleaders < LABELS_MAX)
            L->leader[L->nleaders++] = best_seg;
        buf_printf(code,
                   "set arrow from %.6g, %.6g to %.6g, %.6g nohead front lw "
                   "1.2 lc rgb '#333333'\n",
                   x, y, data_x(L, best_seg.x1), data_y(L, best_seg.y1));
    }
    return true;
}

/* ---- Roofline over one link ---- */

struct roof {
    const char *name; /* "BF16 achievable" */
    double tflops;    /* the roof */
    double bw;        /* B/s of the slope it meets */
    bool peak;
};

/* Plots of the roofline: the work that crosses the chosen link. */
static double link_bytes(const struct cost_work *w, bool ib)
{
    return ib ? w->ib_bytes : w->nvlink_bytes;
}

/* Executed FLOPs per byte over the link, and FLOP/s attained per GPU. */
static bool roof_point(const struct cost_work *w,
                       const struct cost_times *t,
                       bool ib,
                       double *x,
                       double *y)
{
    double flops = w->fp8_flops + w->bf16_flops, bytes = link_bytes(w, ib);
    if (!(bytes > 0) || !(t->step > 0) || !(flops > 0))
        return false;
    *x = flops / bytes;
    *y = flops / t->step / 1e12;
    return true;
}

static void grow_range(double v, double *lo, double *hi)
{
    if (v < *lo)
        *lo = v;
    if (v > *hi)
        *hi = v;
}

static void family_arrays(const struct report *r,
                          const long *fam,
                          size_t nfam,
                          const char *const *suffix,
                          struct vars *v)
{
    struct buf *code = var(v, "FAMILIES");
    size_t i;
    var_num(v, "NFAM", (double)nfam);
    buf_printf(code, "array fam_name[%zu]\narray fam_color[%zu]\n",
               nfam ? nfam : 1, nfam ? nfam : 1);
    for (i = 0; i < nfam; i++) {
        char name[96], hex[16];
        snprintf(name, sizeof name, "%s%s", r->family[fam[i]].name,
                 suffix && suffix[i] ? suffix[i] : "");
        color_hex(report_family_color(r, (size_t)fam[i]), hex, sizeof hex);
        buf_printf(code, "fam_name[%zu] = ", i + 1);
        buf_quote(code, name);
        buf_printf(code, "; fam_color[%zu] = ", i + 1);
        buf_quote(code, hex);
        buf_printf(code, "\n");
    }
}

/* Registers a roof line (ridge to the right edge) so labels avoid it. */
static void take_hline(struct layout *L, double x, double y)
{
    struct box b;
    b.x0 = px_x(L, x);
    b.x1 = CANVAS_W * L->r;
    b.y0 = px_y(L, y) - 1;
    b.y1 = b.y0 + 2;
    take(L, b);
}

/* The label of a roof: above or below its line at the right end, moved
 * left until it is clear of the other roofs and their labels. */
static void place_roof_label(struct layout *L,
                             struct buf *code,
                             const char *text,
                             double roof,
                             const char *color)
{
    double w = text_px(text, 13) + 8, h = 13 * PX_PER_PT * 1.3;
    double py = px_y(L, roof);
    int shift, side;
    for (shift = 0; shift < 6; shift++)
        for (side = 0; side < 2; side++) {
            struct box b;
            b.x1 = CANVAS_W * L->r - 6 - shift * (w * 0.5);
            b.x0 = b.x1 - w;
            b.y0 = side == 0 ? py - 5 - h : py + 5;
            b.y1 = b.y0 + h;
            if (!box_free(L, &b))
                continue;
            take(L, b);
            buf_printf(code, "set label ");
            buf_quote(code, text);
            buf_printf(code,
                       " at %.6g, %.6g right front boxed font ',13' "
                       "textcolor rgb '%s'\n",
                       data_x(L, b.x1 - 4), data_y(L, (b.y0 + b.y1) / 2),
                       color);
            return;
        }
}

static void
chart_roofline(const struct report *r, bool ib, struct vars *v, struct buf *dat)
{
    const struct hardware *hw = r->hw;
    const char *link = ib ? "IB" : "NVLink";
    double bw = ib ? hw->ib_bps : hw->nvlink_bps;
    double bw_peak =
        1e9 * (ib ? hw->spec.ib_peak_gbps : hw->spec.nvlink_peak_gbps);
    struct roof roofs[4];
    size_t nroofs = 0, i, k, nfam = 0, npoints = 0, nobytes = 0;
    long fam[REPORT_FAMILIES_MAX];
    double xlo = INFINITY, xhi = 0, ylo = INFINITY, yhi = 0, top = 0;
    double top_ach = 0;
    struct layout L;
    struct buf *labels = var(v, "LABELS"), *roof_code = var(v, "ROOFS");
    struct buf *plot = var(v, "ROOF_PLOTS"), *keys = var(v, "FAMILIES");
    char text[512], a[32], b[32], c[32];

    /* Highest first: their labels are placed in this order. */
    if (hw->fp8_flops > 0) {
        roofs[nroofs++] =
            (struct roof){"FP8 peak", hw->fp8_peak_flops / 1e12, bw_peak, true};
        roofs[nroofs++] =
            (struct roof){"FP8 achievable", hw->fp8_flops / 1e12, bw, false};
    }
    roofs[nroofs++] =
        (struct roof){"BF16 peak", hw->bf16_peak_flops / 1e12, bw_peak, true};
    roofs[nroofs++] =
        (struct roof){"BF16 achievable", hw->bf16_flops / 1e12, bw, false};
    for (i = 0; i < nroofs; i++) {
        grow_range(roofs[i].tflops * 1e12 / roofs[i].bw, &xlo, &xhi);
        if (roofs[i].tflops > top)
            top = roofs[i].tflops;
        if (!roofs[i].peak && roofs[i].tflops > top_ach)
            top_ach = roofs[i].tflops;
    }

    /* One block per family with a fitting plan, fastest family first. */
    buf_printf(dat,
               "# %s: every plan that fits in memory, one block per family "
               "(index i-1 is fam_name[i] in the script)\n"
               "# intensity (FLOP per byte over %s per GPU per step), "
               "attained TFLOP/s per GPU (executed FLOPs / step time), "
               "precision (0 bf16, 1 fp8), step time s\n",
               ib ? "roofline-ib" : "roofline-nvlink", link);
    for (k = 0; k < r->nfamilies; k++) {
        long f = r->families_by_step[k];
        size_t count = 0;
        for (i = 0; i < r->nrows; i++) {
            const struct report_row *row = &r->rows[i];
            struct cost_times t;
            double x, y;
            if (row->family != f || !row->fits)
                continue;
            report_row_times(r, row, &t);
            if (!roof_point(&row->work, &t, ib, &x, &y)) {
                nobytes++;
                continue;
            }
            if (count++ == 0)
                buf_printf(dat, "# block %zu\n", nfam);
            buf_printf(dat, "%.12g %.12g %d %.12g\n", x, y,
                       row->plan.precision == MODEL_FP8, t.step);
            grow_range(x, &xlo, &xhi);
            grow_range(y, &ylo, &yhi);
        }
        if (count > 0) {
            fam[nfam++] = f;
            npoints += count;
            buf_printf(dat, "\n\n");
        }
    }
    if (!(ylo < INFINITY))
        ylo = top / 100;
    xlo = pow10_floor(xlo / 1.5);
    xhi = pow10_ceil(xhi * 1.5);
    if (xhi / xlo < 1e3)
        xhi = xlo * 1e3;
    ylo = pow10_floor(ylo / 1.5);
    if (ylo > top / 100)
        ylo = pow10_floor(top / 100);
    yhi = top * 2.2;

    memset(&L, 0, sizeof L);
    L.l = 0.075;
    L.r = 0.735;
    L.b = 0.125;
    L.t = 0.835;
    L.lx0 = log10(xlo);
    L.lx1 = log10(xhi);
    L.ly0 = log10(ylo);
    L.ly1 = log10(yhi);
    var_num(v, "XMIN", xlo);
    var_num(v, "XMAX", xhi);
    var_num(v, "YMIN", ylo);
    var_num(v, "YMAX", yhi);
    var_num(v, "LMARGIN", L.l);
    var_num(v, "RMARGIN", L.r);
    var_num(v, "BMARGIN", L.b);
    var_num(v, "TMARGIN", L.t);

    /* The best plan of each family: a block the template draws large. */
    buf_printf(dat,
               "# block %zu: the best plan of each family above: "
               "intensity, TFLOP/s, colour 0xRRGGBB, precision\n",
               nfam);
    for (i = 0; i < nfam; i++) {
        const struct report_family *f = &r->family[fam[i]];
        double x, y;
        if (!roof_point(&f->best.work, &f->best.t, ib, &x, &y))
            continue;
        buf_printf(dat, "%.12g %.12g %lu %d\n", x, y,
                   (unsigned long)report_family_color(r, (size_t)fam[i]),
                   f->best.plan.precision == MODEL_FP8);
        take(&L, box_at(px_x(&L, x), px_y(&L, y), 0, 0, 0, 22, 22));
    }
    if (nfam == 0) /* keeps `index NFAM` valid: one point off the axes */
        buf_printf(dat, "%.12g %.12g 0 0\n", xlo / 10, ylo / 10);

    /* Families: colour and key text "1  ZeRO-1+TP+PP+EP  7.23 s"; the
     * number also labels the family's best plan on the chart. */
    var_num(v, "NFAM", (double)nfam);
    buf_printf(keys, "array fam_color[%zu]\narray fam_key[%zu]\n",
               nfam ? nfam : 1, nfam ? nfam : 1);
    if (nfam == 0) /* gnuplot evaluates a loop's body once even when it
                    * runs zero times: give it something to read */
        buf_printf(keys, "fam_color[1] = '#000000'; fam_key[1] = ''\n");
    for (i = 0; i < nfam; i++) {
        const struct report_family *f = &r->family[fam[i]];
        color_hex(report_family_color(r, (size_t)fam[i]), a, sizeof a);
        snprintf(text, sizeof text, "%zu  %s  %.2f s", i + 1, f->name,
                 f->best.t.step);
        buf_printf(keys, "fam_color[%zu] = ", i + 1);
        buf_quote(keys, a);
        buf_printf(keys, "; fam_key[%zu] = ", i + 1);
        buf_quote(keys, text);
        buf_printf(keys, "\n");
    }

    /* Roofs right of their ridge; slopes up to their highest roof. */
    for (i = 0; i < nroofs; i++) {
        const struct roof *o = &roofs[i];
        double ridge = o->tflops * 1e12 / o->bw;
        const char *color = o->peak ? "#555555" : "#000000";
        buf_printf(plot,
                   "(x >= %.12g ? %.12g : 1/0) with lines lw %s dt %s lc "
                   "rgb '%s' notitle, \\\n    ",
                   ridge, o->tflops, o->peak ? "2" : "3",
                   o->peak ? "(12,6)" : "1", color);
        buf_printf(roof_code,
                   "set label '' at %.12g, %.12g point pt 7 ps 1.6 lc rgb "
                   "'%s' front\n",
                   ridge, o->tflops, color);
        take_hline(&L, ridge, o->tflops);
        take(&L, box_at(px_x(&L, ridge), px_y(&L, o->tflops), 0, 0, 0, 14, 14));
    }
    for (i = 0; i < 2; i++) {
        double s = i == 0 ? bw : bw_peak;
        if (i == 1 && s == bw)
            break;
        buf_printf(plot,
                   "(x * %.12g < %.12g ? x * %.12g : 1/0) with lines lw "
                   "%s dt %s lc rgb '%s' notitle, \\\n    ",
                   s / 1e12, (i == 0 && bw != bw_peak ? top_ach : top),
                   s / 1e12, i == 0 ? "3" : "2", i == 0 ? "1" : "(12,6)",
                   i == 0 ? "#000000" : "#555555");
    }
    for (i = 0; i < nroofs; i++) {
        const struct roof *o = &roofs[i];
        fmt_num(o->tflops, a, sizeof a);
        snprintf(text, sizeof text, "%s %s TFLOP/s", o->name, a);
        place_roof_label(&L, roof_code, text, o->tflops,
                         o->peak ? "#555555" : "#000000");
    }
    /* The slopes' names along them, in the empty corner above. */
    for (i = 0; i < 2; i++) {
        double s = i == 0 ? bw : bw_peak, ys, xs, ang, cx, cy, w;
        double ppdx = CANVAS_W * (L.r - L.l) / (L.lx1 - L.lx0);
        double ppdy = CANVAS_H * (L.t - L.b) / (L.ly1 - L.ly0);
        /* one line: its name above it; two: achievable below, peak above */
        double side = i == 0 && bw != bw_peak ? -16 : 16;
        struct box bx;
        if (i == 1 && s == bw)
            break;
        fmt_num(s / 1e9, a, sizeof a);
        snprintf(text, sizeof text, "%s %s %s GB/s", link,
                 i == 0 ? "achievable" : "peak", a);
        ys = sqrt(ylo * roofs[nroofs - 1].tflops);
        xs = ys * 1e12 / s;
        if (xs < xlo * 1.5) {
            xs = xlo * 1.5;
            ys = xs * s / 1e12;
        }
        ang = atan(ppdy / ppdx);
        cx = px_x(&L, xs) - sin(ang) * side;
        cy = px_y(&L, ys) - cos(ang) * side;
        w = text_px(text, 14);
        bx.x0 = cx - w / 2 * cos(ang) - 10;
        bx.x1 = cx + w / 2 * cos(ang) + 10;
        bx.y0 = cy - w / 2 * sin(ang) - 10;
        bx.y1 = cy + w / 2 * sin(ang) + 10;
        take(&L, bx);
        buf_printf(roof_code, "set label ");
        buf_quote(roof_code, text);
        buf_printf(roof_code,
                   " at %.6g, %.6g center rotate by %.3g front font ',14' "
                   "textcolor rgb '%s'\n",
                   data_x(&L, cx), data_y(&L, cy), ang * 180 / M_PI,
                   i == 0 ? "#000000" : "#555555");
    }

    /* The published plan, the ridges' values, each family's number. */
    var_num(v, "HAVE_PUBLISHED", 0);
    for (i = 0; i < r->nvalidations; i++) {
        const struct report_validation *val = &r->validation[i];
        double x, y;
        if (!val->current ||
            !roof_point(&val->predicted.work, &val->predicted.t, ib, &x, &y))
            continue;
        buf_printf(labels,
                   "set label '' at %.12g, %.12g point pt 6 ps 4 lw 3 lc rgb "
                   "'#000000' front\n",
                   x, y);
        take(&L, box_at(px_x(&L, x), px_y(&L, y), 0, 0, 0, 40, 40));
        place_label(&L, labels,
                    val->predicted.fits ? "published plan"
                                        : "published plan (does not fit)",
                    val->name, x, y, 14, NAN);
        var_num(v, "HAVE_PUBLISHED", 1);
        break;
    }
    for (i = 0; i < nroofs; i++) {
        const struct roof *o = &roofs[i];
        double ridge = o->tflops * 1e12 / o->bw;
        fmt_si(ridge, a, sizeof a);
        snprintf(text, sizeof text, o->peak ? "%s" : "ridge %s FLOP/B", a);
        place_label(&L, roof_code, text, NULL, ridge, o->tflops, 13,
                    3 * M_PI / 4); /* above-left: the empty side */
    }
    for (i = 0; i < nfam; i++) {
        const struct report_family *f = &r->family[fam[i]];
        double x, y;
        snprintf(text, sizeof text, "%zu", i + 1);
        if (roof_point(&f->best.work, &f->best.t, ib, &x, &y))
            place_label(&L, labels, text, NULL, x, y, 14, NAN);
    }

    snprintf(text, sizeof text, "roofline over %s",
             ib ? "InfiniBand (inter-node)" : "NVLink (intra-node)");
    {
        char title[1024];
        title_text(r, text, title, sizeof title);
        var_str(v, "TITLE", title);
    }
    fmt_num((double)npoints, a, sizeof a);
    fmt_num((double)r->valid, b, sizeof b);
    fmt_num(hw->spec.hbm_gib, c, sizeof c);
    snprintf(text, sizeof text,
             "Each dot is a plan that fits in %s GiB (%s of %s valid "
             "plans%s). Left of a ridge a plan is %s-bound; right of it, "
             "compute can hide its %s traffic.",
             c, a, b, nobytes ? "; those with traffic on this link" : "", link,
             link);
    var_str(v, "SUB1", text);
    fmt_num((double)(hw->spec.sms - hw->spec.comm_sms), a, sizeof a);
    fmt_num((double)hw->spec.sms, b, sizeof b);
    if (hw->compute_derate < 1)
        snprintf(text, sizeof text,
                 "Solid roofs: achievable (measured GEMM on the %s of %s SMs "
                 "left to compute); dashed: datasheet peak. Numbered: the "
                 "best plan of each family.",
                 a, b);
    else
        snprintf(text, sizeof text,
                 "Solid roofs: achievable (measured GEMM); dashed: datasheet "
                 "peak. Numbered: the best plan of each family.");
    var_str(v, "SUB2", text);
    snprintf(text, sizeof text,
             "operational intensity over %s: FLOPs per byte, per GPU per step",
             link);
    var_str(v, "XLABEL", text);
    var_str(v, "YLABEL",
            "attained TFLOP/s per GPU (executed FLOPs / step time)");
}

/* ---- Bar charts: the best plan of each family ---- */

/*
 * The families drawn as bars, in the report's order (fitting first, then
 * by step time): all of them up to PLOT_BARS_MAX; past that, the fitting
 * ones first, and "ZeRO-3" (pure FSDP, the usual reference) kept when
 * present. Returns the count; *nfit of them fit, *omitted are left out.
 */
static size_t
bar_families(const struct report *r, long *rows, size_t *nfit, size_t *omitted)
{
    long fsdp = report_family_index(r, "ZeRO-3");
    size_t k, n = 0, have = 0, room = PLOT_BARS_MAX;
    bool fsdp_in = false;
    *nfit = 0;
    for (k = 0; k < r->nfamilies; k++)
        if (r->family[r->families_by_step[k]].has_best)
            have++;
    if (fsdp >= 0 && have > PLOT_BARS_MAX) {
        size_t pos = 0;
        for (k = 0; k < r->nfamilies && r->families_by_step[k] != fsdp; k++)
            if (r->family[r->families_by_step[k]].has_best)
                pos++;
        if (pos >= PLOT_BARS_MAX)
            room--; /* keep a place for it at the end */
    }
    for (k = 0; k < r->nfamilies; k++) {
        long f = r->families_by_step[k];
        if (!r->family[f].has_best)
            continue;
        if (n < room || (f == fsdp && !fsdp_in && n < PLOT_BARS_MAX)) {
            rows[n++] = f;
            if (f == fsdp)
                fsdp_in = true;
            if (r->family[f].best.fits)
                (*nfit)++;
        }
    }
    *omitted = have - n;
    return n;
}

/* Family names as y tick labels, colour swatches beside them, and the
 * line between the families that fit and those that do not. */
static void bar_axis(const struct report *r,
                     const long *rows,
                     size_t n,
                     size_t nfit,
                     struct vars *v)
{
    struct buf *tics = var(v, "YTICS"), *code = var(v, "SWATCHES");
    size_t i;
    var_num(v, "NROWS", (double)n);
    buf_printf(tics, "set ytics (");
    for (i = 0; i < n; i++) {
        char hex[16];
        double y = (double)(n - i);
        buf_printf(tics, "%s", i ? ", " : "");
        buf_quote(tics, r->family[rows[i]].name);
        buf_printf(tics, " %g", y);
        color_hex(report_family_color(r, (size_t)rows[i]), hex, sizeof hex);
        buf_printf(code,
                   "set object %zu rect from graph -0.014, first %g to graph "
                   "-0.004, first %g fc rgb '%s' fs solid 1.0 noborder front "
                   "noclip\n",
                   i + 1, y - 0.3, y + 0.3, hex);
    }
    buf_printf(tics, ")\n");
    if (nfit > 0 && nfit < n)
        buf_printf(code,
                   "set arrow from graph 0, first %g to graph 1, first %g "
                   "nohead dt (8,6) lw 1.5 lc rgb '#555555' front\n",
                   (double)(n - nfit) + 0.5, (double)(n - nfit) + 0.5);
    var_num(v, "SEPARATOR",
            nfit > 0 && nfit < n ? (double)(n - nfit) + 0.5 : 0);
}

static void chart_steps(const struct report *r, struct vars *v, struct buf *dat)
{
    long rows[REPORT_FAMILIES_MAX];
    size_t nfit, omitted, n = bar_families(r, rows, &nfit, &omitted), i;
    double fastest = INFINITY, xmax = 0;
    char text[512], a[32];

    buf_printf(dat,
               "# step-breakdown: the best plan of each family, fastest "
               "first; seconds per step\n"
               "# y, compute, exposed IB, exposed NVLink, exposed HBM, "
               "pipeline bubble, optimizer, step (overlapped), step (serial), "
               "fits (1/0), bound (0 compute, 1 IB, 2 NVLink, 3 HBM)\n");
    for (i = 0; i < n; i++) {
        const struct cost_times *t = &r->family[rows[i]].best.t;
        double exposed = t->core - t->compute;
        buf_printf(dat,
                   "%zu %.12g %.12g %.12g %.12g %.12g %.12g %.12g %.12g "
                   "%d %d\n",
                   n - i, t->compute, t->bound == COST_IB ? exposed : 0,
                   t->bound == COST_NVLINK ? exposed : 0,
                   t->bound == COST_HBM ? exposed : 0, t->bubble, t->optimizer,
                   t->step, t->step_serial, r->family[rows[i]].best.fits,
                   t->bound);
        if (t->step < fastest)
            fastest = t->step;
    }
    /* A linear axis that shows the competitive families whole (step within
     * 2.5x of the fastest, with their serial marker); slower bars run off
     * the right edge with their value written there. */
    for (i = 0; i < n; i++) {
        const struct cost_times *t = &r->family[rows[i]].best.t;
        if (t->step <= 2.5 * fastest) {
            if (t->step_serial > xmax)
                xmax = t->step_serial;
            if (t->step > xmax)
                xmax = t->step;
        }
    }
    var_num(v, "XMAX", n ? nice_ceil(xmax * 1.12) : 1);
    bar_axis(r, rows, n, nfit, v);
    var_str(v, "C_COMPUTE", COLOR_COMPUTE);
    var_str(v, "C_IB", COLOR_IB);
    var_str(v, "C_NVLINK", COLOR_NVLINK);
    var_str(v, "C_HBM", COLOR_HBM);
    var_str(v, "C_BUBBLE", COLOR_BUBBLE);
    var_str(v, "C_OPTIMIZER", COLOR_OPTIMIZER);
    title_text(r, "where the step time goes (best plan of each family)", text,
               sizeof text);
    var_str(v, "TITLE", text);
    fmt_num(r->hw->spec.hbm_gib, a, sizeof a);
    snprintf(text, sizeof text,
             "Communication overlaps compute: only the part of the binding "
             "link's time beyond compute is exposed. Diamond: the step with "
             "no overlap at all.");
    var_str(v, "SUB1", text);
    if (nfit < n)
        snprintf(text, sizeof text,
                 "Below the dashed line no plan of the family fits in %s GiB "
                 "(its fastest plan is shown).%s",
                 a, omitted ? "" : "");
    else
        snprintf(text, sizeof text,
                 "Every family shown has a plan that fits in %s GiB.", a);
    if (omitted) {
        size_t len = strlen(text);
        snprintf(text + len, sizeof text - len, " %zu more famil%s not shown.",
                 omitted, omitted == 1 ? "y" : "ies");
    }
    var_str(v, "SUB2", text);
    var_str(v, "XLABEL", "time per step, s");
}

static void
chart_memory(const struct report *r, struct vars *v, struct buf *dat)
{
    long rows[REPORT_FAMILIES_MAX];
    size_t nfit, omitted, n = bar_families(r, rows, &nfit, &omitted), i;
    double cap = r->hw->capacity_bytes / GIB, xmax = cap * 1.3;
    char text[512], a[32];

    buf_printf(dat,
               "# memory: per GPU on the heaviest pipeline rank, the best "
               "plan of each family, GiB\n"
               "# y, weights, gradients, optimizer state, activations, other, "
               "total, HBM capacity, fits (1/0)\n");
    for (i = 0; i < n; i++) {
        const struct cost_result *b = &r->family[rows[i]].best;
        const struct memory *m = &b->mem;
        buf_printf(dat, "%zu %.12g %.12g %.12g %.12g %.12g %.12g %.12g %d\n",
                   n - i, m->weights / GIB, m->grads / GIB, m->optimizer / GIB,
                   m->activations / GIB, m->other / GIB, m->total / GIB,
                   m->capacity / GIB, b->fits);
        if (b->fits && m->total / GIB * 1.1 > xmax)
            xmax = m->total / GIB * 1.1;
    }
    var_num(v, "XMAX", nice_ceil(xmax));
    var_num(v, "CAPACITY", cap);
    bar_axis(r, rows, n, nfit, v);
    fmt_num(cap, a, sizeof a);
    snprintf(text, sizeof text, "HBM %s GiB", a);
    var_str(v, "CAP_LABEL", text);
    title_text(r, "memory per GPU (best plan of each family)", text,
               sizeof text);
    var_str(v, "TITLE", text);
    snprintf(text, sizeof text,
             "Bytes on the heaviest pipeline rank: weights, gradients and "
             "optimizer state after ZeRO sharding, activations in flight, "
             "runtime overhead.");
    var_str(v, "SUB1", text);
    snprintf(text, sizeof text,
             "Red totals do not fit in %s GiB; bars past the right edge are "
             "cut.%s",
             a, omitted ? "" : "");
    if (omitted) {
        size_t len = strlen(text);
        snprintf(text + len, sizeof text - len, " %zu more famil%s not shown.",
                 omitted, omitted == 1 ? "y" : "ies");
    }
    var_str(v, "SUB2", text);
    var_str(v, "XLABEL", "memory per GPU, GiB");
    var_str(v, "C_WEIGHTS", "#0077BB");
    var_str(v, "C_GRADS", "#33BBEE");
    var_str(v, "C_OPTIMIZER", "#009988");
    var_str(v, "C_ACTIVATIONS", "#EE7733");
    var_str(v, "C_OTHER", "#BBBBBB");
}

/* ---- Sensitivity to IB bandwidth ---- */

/* `set ytics (...)` at 1, 2, 5 x 10^k inside [lo, hi]: a log axis that
 * spans less than two decades still gets a few labelled ticks. */
static void log_tics(struct buf *code, char axis, double lo, double hi)
{
    static const double mant[] = {1, 2, 5};
    double p;
    bool first = true;
    size_t i;
    buf_printf(code, "set %ctics (", axis);
    for (p = pow10_floor(lo); p <= hi; p *= 10)
        for (i = 0; i < 3; i++) {
            double t = mant[i] * p;
            if (t < lo || t > hi)
                continue;
            buf_printf(code, "%s'%g' %.12g", first ? "" : ", ", t, t);
            first = false;
        }
    buf_printf(code, ")\n");
}

static void
chart_sensitivity(const struct report *r, struct vars *v, struct buf *dat)
{
    long fam[REPORT_FAMILIES_MAX];
    const char *suffix[REPORT_FAMILIES_MAX];
    long fsdp = report_family_index(r, "ZeRO-3");
    size_t nfam = 0, i, k;
    double ylo = INFINITY, yhi = 0, today = r->hw->spec.ib_gbps;
    double x0 = r->sens_ib_gbps[0], x1 = r->sens_ib_gbps[REPORT_SENS_IB - 1];
    struct buf *dash = var(v, "DASHED"), *code = var(v, "MARKS");
    struct buf *tics = var(v, "XTICS");
    char text[512], a[32];

    buf_printf(dat,
               "# sensitivity-ib: step time of each family's best fitting plan "
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
        buf_printf(dat, "# block %zu\n", nfam);
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
            buf_printf(dat, "%.12g %.12g %d\n", r->sens_ib_gbps[i], step,
                       bound);
            grow_range(step, &ylo, &yhi);
        }
        buf_printf(dat, "\n\n");
        suffix[nfam] = own ? " (fastest plan; does not fit)" : NULL;
        buf_printf(dash, "fam_dash[%zu] = %d\n", nfam + 1, own);
        fam[nfam++] = f;
    }
    family_arrays(r, fam, nfam, suffix, v);
    buf_printf(var(v, "FAMILIES"), "array fam_dash[%zu]\n", nfam ? nfam : 1);
    if (!(ylo < INFINITY)) {
        ylo = 1;
        yhi = 10;
    }
    var_num(v, "XMIN", x0 / 1.25);
    var_num(v, "XMAX", x1 * 1.25);
    ylo /= 1.25;
    yhi *= 1.25;
    var_num(v, "YMIN", ylo);
    var_num(v, "YMAX", yhi);
    log_tics(var(v, "YTICS"), 'y', ylo, yhi);
    var_num(v, "TODAY", today);
    buf_printf(tics, "set xtics (");
    for (i = 0; i < REPORT_SENS_IB; i += 2)
        buf_printf(tics, "%s'%g' %.12g", i ? ", " : "", r->sens_ib_gbps[i],
                   r->sens_ib_gbps[i]);
    buf_printf(tics, ")\n");
    fmt_num(today, a, sizeof a);
    snprintf(text, sizeof text, "today: %s GB/s", a);
    var_str(v, "TODAY_LABEL", text);

    /* ZeRO-3's crossover: the IB bandwidth where its IB time meets its
     * compute time, and what binds there; two lines at the top, beside
     * its vertical line (or at an edge when off the axis). */
    if (fsdp >= 0 && r->family[fsdp].has_best) {
        const struct report_family *z = &r->family[fsdp];
        double g = z->ib_crossover_gbps;
        char color[16], line2[160];
        const char *at = "graph 0.98", *align = "right", *off = "0";
        bool inside = g >= x0 / 1.25 && g <= x1 * 1.25;
        color_hex(report_family_color(r, (size_t)fsdp), color, sizeof color);
        line2[0] = '\0';
        if (g > 0) {
            struct hardware h = *r->hw;
            struct cost_times t;
            h.spec.ib_gbps = g;
            hardware_derive(&h);
            cost_times(&z->best.work, &h, r->m, z->best.plan.precision, &t);
            fmt_num(g, a, sizeof a);
            snprintf(text, sizeof text, "ZeRO-3 crossover: %s GB/s%s", a,
                     inside   ? ""
                     : g > x1 ? " (off the axis)"
                              : "");
            snprintf(line2, sizeof line2, "IB time = compute there%s%s%s",
                     t.bound != COST_COMPUTE ? "; still " : "",
                     t.bound != COST_COMPUTE ? cost_bound_label(t.bound) : "",
                     t.bound != COST_COMPUTE ? "-bound" : "");
            if (inside) {
                buf_printf(code,
                           "set arrow from %.12g, graph 0 to %.12g, graph 1 "
                           "nohead lw 3 dt (10,6) lc rgb '%s' back\n",
                           g, g, color);
                buf_printf(code, "xcross = %.12g\n", g);
                at = "xcross";
                align = g > today ? "left" : "right";
                off = g > today ? "0.6" : "-0.6";
            }
        } else {
            snprintf(text, sizeof text, "%s",
                     g == 0 ? "ZeRO-3: IB time is already below compute"
                            : "ZeRO-3: IB latency alone exceeds compute");
        }
        buf_printf(code, "set label ");
        buf_quote(code, text);
        buf_printf(code,
                   " at %s, graph 0.97 %s offset %s,0 front boxed font "
                   "'Sans Bold,14' textcolor rgb '#000000'\n",
                   at, align, off);
        if (line2[0]) {
            buf_printf(code, "set label ");
            buf_quote(code, line2);
            buf_printf(code,
                       " at %s, graph 0.97 %s offset %s,-1.3 front boxed "
                       "font ',14'\n",
                       at, align, off);
        }
    }
    title_text(r, "step time against InfiniBand bandwidth", text, sizeof text);
    var_str(v, "TITLE", text);
    snprintf(text, sizeof text,
             "The best fitting plan of each family at each bandwidth "
             "(the plan may change along a line); NVLink and compute stay as "
             "today.");
    var_str(v, "SUB1", text);
    snprintf(text, sizeof text,
             "Filled dots: compute-bound there; open: bound by a link or "
             "HBM. Flat lines do not need more IB.");
    var_str(v, "SUB2", text);
    var_str(v, "XLABEL", "InfiniBand bandwidth per GPU, GB/s (log scale)");
    var_str(v, "YLABEL", "time per step, s (log scale)");
}

/* ---- Running gnuplot ---- */

/* True when name (with a '/': that file; else a PATH entry) is an
 * executable regular file. */
static bool find_program(const char *name)
{
    const char *path = getenv("PATH"), *p;
    char full[PLOT_PATH_MAX];
    struct stat st;
    if (strchr(name, '/'))
        return access(name, X_OK) == 0 && stat(name, &st) == 0 &&
               S_ISREG(st.st_mode);
    if (!path)
        path = "/usr/bin:/bin";
    for (p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int n = len ? snprintf(full, sizeof full, "%.*s/%s", (int)len, p, name)
                    : snprintf(full, sizeof full, "./%s", name);
        if (n > 0 && (size_t)n < sizeof full && access(full, X_OK) == 0 &&
            stat(full, &st) == 0 && S_ISREG(st.st_mode))
            return true;
        if (!end)
            return false;
        p = end;
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Starts `prog script` in dir, in a process group of its own, stdin from
 * /dev/null, stdout and stderr into a temporary file. */
static enum status spawn_gnuplot(const char *prog,
                                 const char *dir,
                                 const char *script,
                                 struct plot_run *run,
                                 struct diag *d)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    sigset_t none;
    char *argv[3];
    int fd, rc;

    run->err = tmpfile();
    if (!run->err)
        return diag_set(d, STATUS_IO, "cannot create a temporary file: %s",
                        strerror(errno));
    fd = fileno(run->err);
    fcntl(fd, F_SETFD, FD_CLOEXEC); /* other children must not hold it */
    argv[0] = (char *)prog;
    argv[1] = (char *)script;
    argv[2] = NULL;
    sigemptyset(&none);
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&at);
    rc = posix_spawn_file_actions_addchdir_np(&fa, dir);
    if (rc == 0)
        rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, fd, 1);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, fd, 2);
    if (rc == 0)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP |
                                               POSIX_SPAWN_SETSIGMASK);
    if (rc == 0)
        rc = posix_spawnattr_setpgroup(&at, 0);
    if (rc == 0)
        rc = posix_spawnattr_setsigmask(&at, &none);
    if (rc == 0)
        rc = posix_spawnp(&run->pid, prog, &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    if (rc != 0)
        return diag_set(d, STATUS_PLOT, "%s/%s: cannot run %s: %s", dir, script,
                        prog, strerror(rc));
    run->spawned = run->running = true;
    return STATUS_OK;
}

/* Waits for every run until the deadline, then kills the process group
 * of each one still running. */
static void wait_all(struct plot_run *runs, size_t n, double timeout_s)
{
    double deadline = now_s() + timeout_s;
    for (;;) {
        size_t i, running = 0;
        for (i = 0; i < n; i++) {
            pid_t got;
            if (!runs[i].running)
                continue;
            got = waitpid(runs[i].pid, &runs[i].status, WNOHANG);
            if (got == runs[i].pid || (got < 0 && errno != EINTR)) {
                runs[i].running = false;
                if (got < 0)
                    runs[i].status = -1;
            } else {
                running++;
            }
        }
        if (running == 0)
            return;
        if (now_s() >= deadline) {
            for (i = 0; i < n; i++) {
                if (!runs[i].running)
                    continue;
                kill(-runs[i].pid, SIGKILL);
                while (waitpid(runs[i].pid, &runs[i].status, 0) < 0 &&
                       errno == EINTR)
                    ;
                runs[i].running = false;
                runs[i].timed_out = true;
            }
            return;
        }
        nanosleep(&(struct timespec){0, 5000000}, NULL);
    }
}

/* The last STDERR_KEEP bytes the child wrote, trimmed, tabs and other
 * control characters but newlines made spaces. */
static void child_output(FILE *f, char *buf, size_t size)
{
    long end;
    size_t n, i;
    buf[0] = '\0';
    if (!f || fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0)
        return;
    if (size > STDERR_KEEP + 1)
        size = STDERR_KEEP + 1;
    if (fseek(f, end > (long)(size - 1) ? end - (long)(size - 1) : 0,
              SEEK_SET) != 0)
        return;
    n = fread(buf, 1, size - 1, f);
    buf[n] = '\0';
    for (i = 0; i < n; i++)
        if (((unsigned char)buf[i] < 0x20 && buf[i] != '\n') || buf[i] == 0x7F)
            buf[i] = ' ';
    while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
        buf[--n] = '\0';
    for (i = 0; buf[i] == '\n' || buf[i] == ' '; i++)
        ;
    memmove(buf, buf + i, n - i + 1);
}

static bool file_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0;
}

/* ---- Public ---- */

const char *plot_out_template_dir(void)
{
    struct stat st;
    if (stat("templates", &st) == 0 && S_ISDIR(st.st_mode))
        return "templates";
    return ROOFPLAN_TEMPLATEDIR;
}

static enum status path_join(char *buf,
                             const char *dir,
                             const char *name,
                             const char *ext,
                             struct diag *d)
{
    size_t len = strlen(dir);
    const char *sep = len > 0 && dir[len - 1] == '/' ? "" : "/";
    int n = snprintf(buf, PLOT_PATH_MAX, "%s%s%s%s", dir, sep, name, ext);
    if (n < 0 || n >= PLOT_PATH_MAX)
        return diag_set(d, STATUS_IO, "%s: path too long", dir);
    return STATUS_OK;
}

/* Writes chart c's data and script (c names its paths). */
static enum status write_chart(const struct report *r,
                               size_t c,
                               const char *tdir,
                               struct plot_chart *pc,
                               struct diag *d)
{
    struct vars v;
    struct buf dat, tpl, gp;
    char tpath[PLOT_PATH_MAX];
    enum status st = STATUS_OK;

    memset(&v, 0, sizeof v);
    memset(&dat, 0, sizeof dat);
    memset(&tpl, 0, sizeof tpl);
    memset(&gp, 0, sizeof gp);
    common_vars(r, chart_names[c], &v);
    switch (c) {
    case 0:
    case 1:
        chart_roofline(r, c == 0, &v, &dat);
        break;
    case 2:
        chart_steps(r, &v, &dat);
        break;
    case 3:
        chart_memory(r, &v, &dat);
        break;
    default:
        chart_sensitivity(r, &v, &dat);
        break;
    }
    if (vars_nomem(&v) || dat.nomem) {
        st = diag_set(d, STATUS_NOMEM, "out of memory drawing %s",
                      chart_names[c]);
        goto done;
    }
    st = path_join(tpath, tdir, chart_names[c], ".gp.in", d);
    if (st == STATUS_OK)
        st = read_file(tpath, &tpl, d);
    if (st == STATUS_OK) {
        buf_printf(&gp,
                   "# %s.gp: written by roofplan from %s; edit and re-run "
                   "`gnuplot %s.gp` in this directory.\n",
                   chart_names[c], tpath, chart_names[c]);
        st = expand(&tpl, tpath, &v, &gp, d);
    }
    if (st == STATUS_OK)
        st = write_file(pc->data, dat.p ? dat.p : "", dat.len, d);
    if (st == STATUS_OK)
        st = write_file(pc->script, gp.p, gp.len, d);
done:
    buf_release(&gp);
    buf_release(&tpl);
    buf_release(&dat);
    vars_release(&v);
    return st;
}

enum status plot_out_start(const struct report *r,
                           const char *dir,
                           const struct plot_options *opt,
                           struct plot_job *job,
                           struct plot_files *out,
                           struct diag *d)
{
    const char *tdir =
        opt && opt->template_dir ? opt->template_dir : plot_out_template_dir();
    const char *prog = opt && opt->gnuplot ? opt->gnuplot : "gnuplot";
    size_t c;
    enum status st = STATUS_OK;

    memset(out, 0, sizeof *out);
    memset(job, 0, sizeof *job);
    job->timeout_s =
        opt && opt->timeout_s > 0 ? opt->timeout_s : PLOT_TIMEOUT_S;
    snprintf(job->dir, sizeof job->dir, "%s", dir);
    for (c = 0; c < PLOT_CHARTS; c++) {
        struct plot_chart *pc = &out->chart[c];
        char png[PLOT_PATH_MAX], svg[PLOT_PATH_MAX], pdf[PLOT_PATH_MAX];
        snprintf(pc->name, sizeof pc->name, "%s", chart_names[c]);
        if (path_join(pc->script, dir, pc->name, ".gp", d) != STATUS_OK ||
            path_join(pc->data, dir, pc->name, ".dat", d) != STATUS_OK ||
            path_join(png, dir, pc->name, ".png", d) != STATUS_OK ||
            path_join(svg, dir, pc->name, ".svg", d) != STATUS_OK ||
            path_join(pdf, dir, pc->name, ".pdf", d) != STATUS_OK)
            return d->status;
        /* An image left from an earlier run must not pass for this one. */
        remove(png);
        remove(svg);
        remove(pdf);
        st = write_chart(r, c, tdir, pc, d);
        if (st != STATUS_OK)
            return st;
        out->ncharts++;
    }
    if (!find_program(prog)) {
        out->gnuplot_missing = true;
        snprintf(out->warning, sizeof out->warning,
                 "%s not found on PATH: charts not drawn; their scripts and "
                 "data are in %s (draw them with `make plots` or `cd %s && "
                 "gnuplot roofline-ib.gp`)",
                 prog, dir, dir);
        return STATUS_OK;
    }
    job->started = true;
    for (c = 0; c < PLOT_CHARTS && st == STATUS_OK; c++) {
        char script[64];
        snprintf(script, sizeof script, "%s.gp", chart_names[c]);
        st = spawn_gnuplot(prog, dir, script, &job->runs[c], d);
    }
    if (st != STATUS_OK) { /* reap what did start */
        wait_all(job->runs, PLOT_CHARTS, job->timeout_s);
        for (c = 0; c < PLOT_CHARTS; c++)
            if (job->runs[c].err)
                fclose(job->runs[c].err);
        job->started = false;
    }
    return st;
}

enum status
plot_out_finish(struct plot_job *job, struct plot_files *out, struct diag *d)
{
    const char *dir = job->dir;
    double timeout = job->timeout_s;
    struct plot_run *runs = job->runs;
    size_t c;
    enum status st;

    if (!job->started)
        return STATUS_OK; /* no gnuplot: the warning says so */
    job->started = false;
    wait_all(runs, PLOT_CHARTS, timeout);
    for (c = 0; c < PLOT_CHARTS; c++) {
        struct plot_chart *pc = &out->chart[c];
        char msg[STDERR_KEEP + 1], png[PLOT_PATH_MAX], svg[PLOT_PATH_MAX],
            pdf[PLOT_PATH_MAX];
        int s = runs[c].status;
        path_join(png, dir, pc->name, ".png", d);
        path_join(svg, dir, pc->name, ".svg", d);
        path_join(pdf, dir, pc->name, ".pdf", d);
        child_output(runs[c].err, msg, sizeof msg);
        if (runs[c].timed_out)
            diag_add(d, STATUS_PLOT,
                     "%s: gnuplot did not finish within %g s and was "
                     "killed%s%s",
                     pc->script, timeout, msg[0] ? ": " : "", msg);
        else if (s == -1 || !WIFEXITED(s))
            diag_add(d, STATUS_PLOT, "%s: gnuplot died (signal %d)%s%s",
                     pc->script, WIFSIGNALED(s) ? WTERMSIG(s) : 0,
                     msg[0] ? ": " : "", msg);
        else if (WEXITSTATUS(s) != 0)
            diag_add(d, STATUS_PLOT, "%s: gnuplot failed (exit status %d)%s%s",
                     pc->script, WEXITSTATUS(s), msg[0] ? ": " : "", msg);
        else if (!file_exists(png) || !file_exists(svg))
            diag_add(d, STATUS_PLOT, "%s: gnuplot wrote no %s%s%s", pc->script,
                     file_exists(png) ? svg : png, msg[0] ? ": " : "", msg);
        else {
            memcpy(pc->png, png, sizeof png);
            memcpy(pc->svg, svg, sizeof svg);
            if (file_exists(pdf))
                memcpy(pc->pdf, pdf, sizeof pdf);
        }
    }
    st = d->status;
    for (c = 0; c < PLOT_CHARTS; c++)
        if (runs[c].err)
            fclose(runs[c].err);
    out->rendered = st == STATUS_OK;
    diag_finish(d);
    return st;
}

enum status plot_out_write(const struct report *r,
                           const char *dir,
                           const struct plot_options *opt,
                           struct plot_files *out,
                           struct diag *d)
{
    struct plot_job job;
    enum status st = plot_out_start(r, dir, opt, &job, out, d);
    if (st != STATUS_OK)
        return st;
    return plot_out_finish(&job, out, d);
}
