/*
 * xlsx_live: sentences whose figures are formulas (see xlsx_live.h).
 */
#include "xlsx_live.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static void
live_append(struct xlsx_live *t, char *dst, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
live_append(struct xlsx_live *t, char *dst, size_t size, const char *fmt, ...)
{
    size_t n = strlen(dst);
    va_list ap;
    int w;
    va_start(ap, fmt);
    w = vsnprintf(dst + n, size - n, fmt, ap);
    va_end(ap);
    if (w < 0 || (size_t)w >= size - n)
        t->over = true;
}

/* Literal text: a quoted string in the formula (quotes doubled). */
void xlsx_live_lit(struct xlsx_live *t, const char *s)
{
    const char *p;
    live_append(t, t->f, sizeof t->f, "%s\"", t->f[0] ? "&" : "");
    for (p = s; *p; p++) {
        char c[2] = {*p, 0};
        live_append(t, t->f, sizeof t->f, "%s", c);
        if (*p == '"')
            live_append(t, t->f, sizeof t->f, "\"");
    }
    live_append(t, t->f, sizeof t->f, "\"");
    live_append(t, t->v, sizeof t->v, "%s", s);
}

/* A number: TEXT(expr, "0", "0.0" or "0.00") in the formula (0, 1, 2 or
 * more decimals), v printed with the same decimals. */
void xlsx_live_num(struct xlsx_live *t,
                   const char *expr,
                   int decimals,
                   double v)
{
    live_append(t, t->f, sizeof t->f, "%sTEXT(%s,\"%s\")", t->f[0] ? "&" : "",
                expr,
                decimals > 1    ? "0.00"
                : decimals == 1 ? "0.0"
                                : "0");
    live_append(t, t->v, sizeof t->v, "%.*f", decimals, v);
}

/* A text expression of the formula, cached as s. */
void xlsx_live_expr(struct xlsx_live *t, const char *expr, const char *s)
{
    live_append(t, t->f, sizeof t->f, "%s%s", t->f[0] ? "&" : "", expr);
    live_append(t, t->v, sizeof t->v, "%s", s);
}

/* "$9.87M": a cost in millions, two decimals. */
void xlsx_live_usd(struct xlsx_live *t, const char *name, double usd)
{
    char e[80];
    snprintf(e, sizeof e, "%s/1E+06", name);
    xlsx_live_lit(t, "$");
    xlsx_live_num(t, e, 2, usd / 1e6);
    xlsx_live_lit(t, "M");
}
