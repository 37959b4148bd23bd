/*
 * plot_labels: greedy label placement in pixels.
 *
 * Every label is placed once, in the order the chart asks, on the first
 * free spot by score: no backtracking, so the result depends only on the
 * order and is the same on every run.
 *
 * May call: plot_text, libm, libc.
 */
#define _GNU_SOURCE /* M_PI */
#include "plot_labels.h"

#include <math.h>
#include <string.h>

#define CANVAS_W  PLOT_LABELS_CANVAS_W
#define CANVAS_H  PLOT_LABELS_CANVAS_H
#define PX_PER_PT PLOT_LABELS_PX_PER_PT

void plot_labels_init(struct plot_labels *L,
                      double l,
                      double r,
                      double b,
                      double t,
                      double xlo,
                      double xhi,
                      double ylo,
                      double yhi)
{
    memset(L, 0, sizeof *L);
    L->l = l;
    L->r = r;
    L->b = b;
    L->t = t;
    L->lx0 = log10(xlo);
    L->lx1 = log10(xhi);
    L->ly0 = log10(ylo);
    L->ly1 = log10(yhi);
}

double plot_labels_px_x(const struct plot_labels *L, double x)
{
    return CANVAS_W *
           (L->l + (L->r - L->l) * (log10(x) - L->lx0) / (L->lx1 - L->lx0));
}

double plot_labels_px_y(const struct plot_labels *L, double y)
{
    return CANVAS_H *
           (1 - L->b - (L->t - L->b) * (log10(y) - L->ly0) / (L->ly1 - L->ly0));
}

double plot_labels_data_x(const struct plot_labels *L, double px)
{
    double f = (px / CANVAS_W - L->l) / (L->r - L->l);
    return pow(10, L->lx0 + f * (L->lx1 - L->lx0));
}

double plot_labels_data_y(const struct plot_labels *L, double py)
{
    double f = (1 - py / CANVAS_H - L->b) / (L->t - L->b);
    return pow(10, L->ly0 + f * (L->ly1 - L->ly0));
}

/* The advances were measured on pngcairo output of DejaVu Sans. */
double plot_labels_text_px(const char *text, double pt)
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

/* Boxes closer than 3 pixels count as touching: text needs air. */
static bool overlaps(const struct plot_box *a, const struct plot_box *b)
{
    const double pad = 3;
    return a->x0 < b->x1 + pad && b->x0 < a->x1 + pad && a->y0 < b->y1 + pad &&
           b->y0 < a->y1 + pad;
}

/* Inside the plot area (4 pixels in from its frame) and on nothing. */
static bool box_free(const struct plot_labels *L, const struct plot_box *b)
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

/* Records b (ignored when the table is full). */
static void take(struct plot_labels *L, const struct plot_box *b, bool text)
{
    if (L->ntaken == PLOT_LABELS_BOXES)
        return;
    L->text[L->ntaken] = text;
    L->taken[L->ntaken++] = *b;
}

void plot_labels_take(struct plot_labels *L, const struct plot_box *b)
{
    take(L, b, false);
}

void plot_labels_take_point(struct plot_labels *L,
                            double px,
                            double py,
                            double w,
                            double h)
{
    struct plot_box b;
    b.x0 = px - w / 2;
    b.x1 = px + w / 2;
    b.y0 = py - h / 2;
    b.y1 = py + h / 2;
    take(L, &b, false);
}

void plot_labels_take_hline(struct plot_labels *L, double x, double y)
{
    struct plot_box b;
    b.x0 = plot_labels_px_x(L, x);
    b.x1 = CANVAS_W * L->r;
    b.y0 = plot_labels_px_y(L, y) - 1;
    b.y1 = b.y0 + 2;
    take(L, &b, false);
}

/* Does the segment s (x0,y0)-(x1,y1) cross box b? (Liang-Barsky
 * clipping: the segment's parameter interval inside b is not empty.) */
static bool segment_hits_box(const struct plot_box *s, const struct plot_box *b)
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

/* Proper crossing of two segments (each one's ends on opposite sides of
 * the other); segments that only touch do not cross. */
static bool segments_cross(const struct plot_box *a, const struct plot_box *b)
{
    double d1 = cross(a->x0, a->y0, a->x1, a->y1, b->x0, b->y0);
    double d2 = cross(a->x0, a->y0, a->x1, a->y1, b->x1, b->y1);
    double d3 = cross(b->x0, b->y0, b->x1, b->y1, a->x0, a->y0);
    double d4 = cross(b->x0, b->y0, b->x1, b->y1, a->x1, a->y1);
    return ((d1 > 0) != (d2 > 0)) && ((d3 > 0) != (d4 > 0));
}

/* A leader may not cross another label or another leader. */
static bool leader_free(const struct plot_labels *L, const struct plot_box *seg)
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

bool plot_labels_place(struct plot_labels *L,
                       struct plot_text *code,
                       const char *text,
                       const char *line2,
                       double x,
                       double y,
                       double pt,
                       double prefer)
{
    static const double dist[] = {8,   20,  34,  50,  70, 95,
                                  125, 160, 200, 250, 310};
    double px = plot_labels_px_x(L, x), py = plot_labels_px_y(L, y);
    double lh = pt * PX_PER_PT * 1.35;
    double w = plot_labels_text_px(text, pt) + 8, h = line2 ? 2 * lh : lh;
    double best_score = INFINITY;
    struct plot_box best = {0, 0, 0, 0}, best_seg = {0, 0, 0, 0};
    size_t i, k;
    if (line2 && plot_labels_text_px(line2, pt) + 8 > w)
        w = plot_labels_text_px(line2, pt) + 8;
    for (i = 0; i < sizeof dist / sizeof dist[0]; i++)
        for (k = 0; k < 16; k++) {
            double ang = (double)k * M_PI / 8, ux = cos(ang), uy = -sin(ang);
            double cx = px + ux * dist[i], cy = py + uy * dist[i], score;
            struct plot_box b, seg;
            /* The box's near side or corner faces the point. */
            cx += ux > 0.38 ? w / 2 : ux < -0.38 ? -w / 2 : 0;
            cy += uy > 0.38 ? h / 2 : uy < -0.38 ? -h / 2 : 0;
            b.x0 = cx - w / 2;
            b.x1 = cx + w / 2;
            b.y0 = cy - h / 2;
            b.y1 = cy + h / 2;
            if (!box_free(L, &b))
                continue;
            /* The leader: from the point to the nearest point of the box. */
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
    take(L, &best, true); /* when full, later labels may overlap it */
    plot_text_printf(code, "set label ");
    plot_text_add_quoted(code, text);
    plot_text_printf(code, " at %.6g, %.6g left front boxed font ',%g'\n",
                     plot_labels_data_x(L, best.x0 + 4),
                     plot_labels_data_y(L, best.y0 + lh / 2), pt);
    if (line2) {
        plot_text_printf(code, "set label ");
        plot_text_add_quoted(code, line2);
        plot_text_printf(code, " at %.6g, %.6g left front boxed font ',%g'\n",
                         plot_labels_data_x(L, best.x0 + 4),
                         plot_labels_data_y(L, best.y0 + 1.5 * lh), pt);
    }
    if (hypot(best_seg.x1 - px, best_seg.y1 - py) > 14) {
        if (L->nleaders < PLOT_LABELS_MAX)
            L->leader[L->nleaders++] = best_seg;
        plot_text_printf(code,
                         "set arrow from %.6g, %.6g to %.6g, %.6g nohead "
                         "front lw 1.2 lc rgb '#333333'\n",
                         x, y, plot_labels_data_x(L, best_seg.x1),
                         plot_labels_data_y(L, best_seg.y1));
    }
    return true;
}

void plot_labels_place_roof(struct plot_labels *L,
                            struct plot_text *code,
                            const char *text,
                            double roof,
                            const char *color)
{
    double w = plot_labels_text_px(text, 13) + 8, h = 13 * PX_PER_PT * 1.3;
    double py = plot_labels_px_y(L, roof);
    int shift, side;
    for (shift = 0; shift < 6; shift++)
        for (side = 0; side < 2; side++) {
            struct plot_box b;
            b.x1 = CANVAS_W * L->r - 6 - shift * (w * 0.5);
            b.x0 = b.x1 - w;
            b.y0 = side == 0 ? py - 5 - h : py + 5;
            b.y1 = b.y0 + h;
            if (!box_free(L, &b))
                continue;
            take(L, &b, false);
            plot_text_printf(code, "set label ");
            plot_text_add_quoted(code, text);
            plot_text_printf(code,
                             " at %.6g, %.6g right front boxed font ',13' "
                             "textcolor rgb '%s'\n",
                             plot_labels_data_x(L, b.x1 - 4),
                             plot_labels_data_y(L, (b.y0 + b.y1) / 2), color);
            return;
        }
}
