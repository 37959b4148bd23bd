/*
 * figures: what the writers show, derived once (see figures.h) from what
 * rank handed over (rows with their times, families under both
 * communication models, crossovers, validation runs): the views, each
 * from what the earlier ones fixed: the Plans sheet's rows, the
 * recommended plan, colours, the sentences, the charts. This file holds
 * the stage's entry points; the words are figures_headline.c's, the
 * charts figures_charts.c's, the waterfalls figures_waterfall.c's.
 */
#include "figures.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "figures_internal.h"
#include "figures_waterfall.h"

enum status figures_recommend(const struct report_inputs *in,
                              const struct ranking *rank,
                              struct views *v,
                              struct diag *d)
{
    memset(v, 0, sizeof *v);
    v->in = in;
    v->rank = rank;
    return figures_sheet_rows(v, d);
}

enum status figures_views(const struct report_inputs *in,
                          const struct ranking *rank,
                          struct views *r,
                          struct diag *d)
{
    time_t when = (time_t)in->generated;
    struct tm tm;
    size_t i;
    memset(r, 0, sizeof *r); /* v owns nothing yet (see figures.h) */
    r->in = in;
    r->rank = rank;
    if (!gmtime_r(&when, &tm) ||
        strftime(r->when, sizeof r->when, "%Y-%m-%d %H:%M UTC", &tm) == 0)
        snprintf(r->when, sizeof r->when, "%lld", (long long)r->in->generated);
    /* the baseline and the published run on these inputs */
    diag_snprintf(r->baseline.name, sizeof r->baseline.name, "%s",
                  r->in->sweep ? r->in->sweep->spec.r_baseline : "");
    r->baseline.family = ranking_family_index(r->rank, r->baseline.name);
    r->published = -1;
    for (i = 0; i < r->rank->nvalidations && r->published < 0; i++)
        if (r->rank->validation[i].current)
            r->published = (long)i;
    if (figures_sheet_rows(r, d) != STATUS_OK)
        return d->status;
    figures_colors(r);
    figures_family_words(r);
    figures_headline(r);
    figures_waterfall(r);
    figures_baseline_sentence(r);
    figures_notes(r);
    if (figures_charts(r, d) != STATUS_OK)
        return d->status;
    if (!views_finish(r))
        return diag_set(d, STATUS_NOMEM, "out of memory");
    return STATUS_OK;
}
