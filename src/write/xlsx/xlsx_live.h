/*
 * xlsx_live: a sentence built twice, as a formula over live cells and as
 * its value at the report's inputs (the formula's cached result), so
 * that a sheet's words follow an edited input where a formula can say
 * them: "Recommended: ... at "&TEXT(RECOMMENDED_STEP_S,"0.0")&" s".
 * Pieces are appended in order; the caller writes the result.
 */
#ifndef PROJ_XLSX_LIVE_H
#define PROJ_XLSX_LIVE_H

#include <stdbool.h>

struct xlsx_live {
    char f[3072]; /* the formula, without '=' */
    char v[1024]; /* its value at the report's inputs */
    bool over;    /* a buffer ran out: a programming error */
};

/* Literal text: a quoted string in the formula (quotes doubled). */
void xlsx_live_lit(struct xlsx_live *t, const char *s);

/* A number: TEXT(expr, "0.0" or "0.00") in the formula, v printed with
 * the same decimals (1 or 2). */
void xlsx_live_num(struct xlsx_live *t,
                   const char *expr,
                   int decimals,
                   double v);

/* A text expression of the formula, cached as s. */
void xlsx_live_expr(struct xlsx_live *t, const char *expr, const char *s);

/* "$9.87M": the cost in the cell `name`, in millions, two decimals. */
void xlsx_live_usd(struct xlsx_live *t, const char *name, double usd);

#endif
