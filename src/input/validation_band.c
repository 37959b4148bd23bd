/*
 * validation_band: how wide an expected step's range is on a
 * calibration, from the published runs on the calibrations of its group
 * (validation.h, validation_band_fit): the run-to-run spread every group
 * shares, each group's own mean error, and how well its runs pin that
 * mean down. A random-effects reading of the runs' errors: the spread is
 * what the model leaves out of every run; the mean is the calibration's
 * own bias, known from its runs, unknown without them.
 */
#include "validation.h"

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

const char *validation_group(const struct calibration *cal)
{
    if (!cal)
        return "";
    return cal->spec.validation_group[0] ? cal->spec.validation_group
                                         : cal->spec.gpu;
}

void validation_band_key(const struct calibration *cal,
                         const struct stack *st,
                         char *buf,
                         size_t size)
{
    const char *family = "";
    if (st)
        family = st->spec.validation_family[0] ? st->spec.validation_family
                                               : st->spec.name;
    if (!cal)
        snprintf(buf, size, "%s", "");
    else
        snprintf(buf, size, "%s%s%s", validation_group(cal),
                 family[0] ? "/" : "", family);
}

static bool usable(const struct validation_point *p)
{
    return p->ratio > 0 && isfinite(p->ratio);
}

/* The mean log ratio and count of the runs of `group`. */
static double group_mean(const struct validation_point *pts,
                         size_t n,
                         const char *group,
                         size_t *count)
{
    double sum = 0;
    size_t i;
    *count = 0;
    for (i = 0; i < n; i++)
        if (usable(&pts[i]) && strcmp(pts[i].group, group) == 0) {
            sum += log(pts[i].ratio);
            (*count)++;
        }
    return *count ? sum / (double)*count : 0;
}

/* The stack family of a band key ("hopper-132sm/megatron-class":
 * "megatron-class"; "" without one). */
static const char *key_family(const char *key)
{
    const char *slash = strchr(key, '/');
    return slash ? slash + 1 : "";
}

/* Whether p is counted in the spreads of a band of `family` (NULL: of
 * every family). */
static bool of_family(const struct validation_point *p, const char *family)
{
    return usable(p) && (!family || strcmp(key_family(p->group), family) == 0);
}

/* sigma, k and offset_max of the runs of `family` (NULL: of every run,
 * sigma 0 where no group has two); false (b's fields 0) when a family's
 * runs give no sigma (no group of two). */
static bool spreads(const struct validation_point *pts,
                    size_t n,
                    const char *family,
                    struct validation_band *b)
{
    double ss = 0, df = 0;
    size_t i, nj;
    b->sigma = b->k = b->offset_max = 0;
    for (i = 0; i < n; i++) {
        double m;
        if (!of_family(&pts[i], family))
            continue;
        m = group_mean(pts, n, pts[i].group, &nj);
        ss += pow(log(pts[i].ratio) - m, 2);
        df += 1 - 1.0 / (double)nj; /* sum over a group: n_j - 1 */
        b->offset_max = fmax(b->offset_max, fabs(m));
    }
    if (!(df > 0.5)) { /* every run's: offset_max kept, sigma 0 */
        if (family)
            b->offset_max = 0;
        return !family;
    }
    b->sigma = sqrt(ss / df);
    for (i = 0; b->sigma > 0 && i < n; i++) {
        double m, z;
        if (!of_family(&pts[i], family))
            continue;
        m = group_mean(pts, n, pts[i].group, &nj);
        z = fabs(log(pts[i].ratio) - m) /
            (b->sigma * sqrt(1 + 1.0 / (double)nj));
        b->k = fmax(b->k, z);
    }
    return true;
}

/* How many groups (calibrations) the runs of `family` span. */
static size_t
family_groups(const struct validation_point *pts, size_t n, const char *family)
{
    size_t i, j, count = 0;
    for (i = 0; i < n; i++) {
        if (!of_family(&pts[i], family))
            continue;
        for (j = 0; j < i; j++)
            if (of_family(&pts[j], family) &&
                strcmp(pts[j].group, pts[i].group) == 0)
                break;
        count += j == i; /* the group's first run */
    }
    return count;
}

bool validation_band_fit(const struct validation_point *pts,
                         size_t n,
                         const char *group,
                         struct validation_band *band)
{
    double half;
    size_t i;
    memset(band, 0, sizeof *band);
    snprintf(band->group, sizeof band->group, "%s", group);
    for (i = 0; i < n; i++)
        band->all_runs += usable(&pts[i]);
    if (band->all_runs == 0)
        return false;
    band->mean = group_mean(pts, n, group, &band->runs);
    /* the width and the unchecked offset of the group's own stack family
     * where its runs give a spread, else of every run; an unchecked
     * group's offset (how far another calibration's mean may sit) needs
     * the family checked on two calibrations, else every run's */
    if ((band->runs == 0 && family_groups(pts, n, key_family(group)) < 2) ||
        !spreads(pts, n, key_family(group), band))
        spreads(pts, n, NULL, band);
    if (band->runs > 0) {
        half = band->k * band->sigma * sqrt(1 + 1.0 / (double)band->runs);
    } else {
        half = band->k * band->sigma * sqrt(2) + band->offset_max;
        band->mean = 0;
    }
    band->lo = fmin(1, exp(band->mean - half));
    band->hi = fmax(1, exp(band->mean + half));
    return true;
}
