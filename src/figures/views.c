/*
 * views: the release of the views and the number words their sentences
 * and writers share (see views.h).
 */
#include "views.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Calls fn on every sentence v owns (the one list of them: views_free and
 * views_finish walk it). */
static bool each_sentence(struct views *v, bool (*fn)(char **text))
{
    char **fixed[] = {&v->headline.verdict,     &v->headline.why,
                      &v->headline.difference,  &v->headline.ties_text,
                      &v->headline.range_words, &v->headline.choice,
                      &v->headline.models,      &v->baseline.sentence,
                      &v->note_published,       &v->note_sweep,
                      &v->note_left_out,        &v->sens[0].line1,
                      &v->sens[0].line2,        &v->sens[1].line1,
                      &v->sens[1].line2};
    size_t i, n = v->family && v->rank ? v->rank->nfamilies : 0;
    bool ok = true;
    for (i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        ok = fn(fixed[i]) && ok;
    for (i = 0; i < n; i++)
        ok = fn(&v->family[i].why) && ok;
    return ok;
}

static bool release(char **text)
{
    free(*text);
    *text = NULL;
    return true;
}

/* An unset sentence becomes "" (allocated, as the others are). */
static bool fill(char **text)
{
    if (!*text)
        *text = calloc(1, 1);
    return *text != NULL;
}

void views_free(struct views *v)
{
    size_t i;
    if (!v)
        return;
    each_sentence(v, release);
    free(v->family);
    v->family = NULL;
    free(v->sheet);
    v->sheet = NULL;
    v->nsheet = 0;
    free(v->points);
    v->points = NULL;
    v->npoints = 0;
    free(v->blocks);
    v->blocks = NULL;
    v->nblocks = 0;
    free(v->roof_pick);
    v->roof_pick = NULL;
    v->nroof_pick = 0;
    for (i = 0; i < 2; i++) {
        free(v->sens[i].family);
        v->sens[i].family = NULL;
        v->sens[i].nfamilies = 0;
    }
}

void views_say(struct views *v, char **text, const char *fmt, ...)
{
    va_list ap;
    int n;
    free(*text);
    *text = NULL;
    va_start(ap, fmt);
    n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n >= 0)
        *text = malloc((size_t)n + 1);
    if (!*text) {
        v->nomem = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(*text, (size_t)n + 1, fmt, ap);
    va_end(ap);
}

bool views_finish(struct views *v)
{
    if (!each_sentence(v, fill))
        v->nomem = true;
    return !v->nomem;
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

void views_pct(double pct, char *buf, size_t size)
{
    if (pct >= 0.95 || !isfinite(pct))
        snprintf(buf, size, "%.0f", pct);
    else if (pct >= 0.05)
        snprintf(buf, size, "%.1f", pct);
    else
        snprintf(buf, size, "under 0.1");
}

long views_gpus(const struct views *v)
{
    long g = v->headline.plan.plan.gpus;
    return g > 0 ? g : v->in->hw->spec.gpus;
}
