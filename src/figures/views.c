/*
 * views: the release of the views and the number words their sentences
 * and writers share (see views.h).
 */
#include "views.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void views_free(struct views *v)
{
    if (!v)
        return;
    free(v->sheet);
    v->sheet = NULL;
    v->nsheet = 0;
    free(v->points);
    v->points = NULL;
    v->npoints = 0;
    free(v->roof_pick);
    v->roof_pick = NULL;
    v->nroof_pick = 0;
}

const struct ranking_row *views_sheet_row(const struct views *v, size_t i)
{
    return &v->rank->rows[v->sheet[i]];
}

void views_thousands(double v, char *buf, size_t size)
{
    char digits[64], out[96];
    size_t n, i, o = 0;
    if (!isfinite(v) || fabs(v) >= 1e18) {
        snprintf(buf, size, "%.3g", v);
        return;
    }
    snprintf(digits, sizeof digits, "%.0f", fabs(v));
    n = strlen(digits);
    if (v < 0 && digits[0] != '0')
        out[o++] = '-';
    for (i = 0; i < n; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            out[o++] = ',';
        out[o++] = digits[i];
    }
    out[o] = '\0';
    snprintf(buf, size, "%s", out);
}

void views_sig3(double v, char *buf, size_t size)
{
    char e[32];
    double x;
    int decimals;
    if (!isfinite(v) || fabs(v) >= 1e15) {
        snprintf(buf, size, "%.3g", v);
        return;
    }
    snprintf(e, sizeof e, "%.2e", v); /* rounded to 3 significant digits */
    x = strtod(e, NULL);
    decimals = x == 0 ? 0 : 2 - (int)floor(log10(fabs(x)));
    snprintf(buf, size, "%.*f", decimals > 0 ? decimals : 0, x);
}
