/*
 * views: what the writers show, derived once by the figures stage
 * (figures_views) from the ranking and the inputs: the Plans sheet's
 * rows, the recommended plan and its headline, the baseline, each
 * family's colour, marker, dash and sentence, the roofline points and
 * roofs with their axis ranges, the families each chart shows, the
 * sensitivity charts, the bars, the waterfalls and every sentence. A
 * writer (csv_out, xlsx_*, plot_*) takes a struct views and lays it out:
 * the views carry the ranking and the inputs they were derived from
 * (borrowed), so this header is the only one of the stages after
 * evaluate a writer needs, and it reaches no evaluate header
 * (scripts/check-layers.py: the include rule alone keeps evaluation
 * before rank). This module owns the struct, its release and the number
 * words the views and their writers share.
 */
#ifndef PROJ_VIEWS_H
#define PROJ_VIEWS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"
#include "ranking.h"
#include "report_inputs.h"
#include "result.h"

#define VIEWS_LABELLED        5  /* families labelled on the rooflines */
#define VIEWS_SERIES_MAX      12 /* families with a native chart series */
#define VIEWS_ROOF_PER_FAMILY 12 /* points per family on a native chart */
#define VIEWS_BARS_MAX        20 /* families of a bar chart */
#define VIEWS_HUES            6  /* a family's colour, marker and dash */
#define VIEWS_MARKERS         6  /* (figures_colors) */
#define VIEWS_DASHES          4

/* A family as the charts and sheets show it (ranking.family[i]'s). */
struct views_family {
    /* the family's colour (0xRRGGBB, the same in every chart and the
     * workbook) */
    uint32_t color;
    int marker;     /* < VIEWS_MARKERS: circle, square, triangle up and down,
                       diamond, pentagon (figures_colors) */
    int dash;       /* < VIEWS_DASHES: solid, dashed, dotted, dash-dot */
    long sheet_row; /* its best plan's row on Plans; -1: not there */
    char *why;      /* the verdict in plain words (owned) */
    char plan_short[256]; /* "TP 2, PP 2 (zb), EP 256, ZeRO-1, ..." */
};

/* What a plan costs for the model's token budget. */
struct views_cost {
    double step_s;
    double tokens_per_s_per_gpu;
    double mfu;           /* each precision's FLOPs over its own peak */
    double mfu_bf16_peak; /* all over the BF16 peak: DeepSeek's convention */
    double days, gpu_hours, cost_usd, gpu_hours_per_trillion;
};

/*
 * The Summary's headline: the recommended plan (among the ties, the one
 * with the most headroom) at the speed of light and, once the time model
 * has calibrated times, as expected (has_expected: figures_headline.c,
 * headline_costs(), is where they are filled), with the sentence on the
 * difference between the two.
 */
struct views_headline {
    bool any;  /* a plan was evaluated */
    bool fits; /* the recommended plan fits (else: nothing fits) */
    long family;
    struct cost_result plan; /* the recommended plan */
    struct views_cost sol;   /* speed of light: a floor */
    bool has_expected;
    struct views_cost expected;
    double memory_gib, capacity_gib, usable_gib, headroom_gib;
    /* the fastest fitting plan, when another than the recommended one */
    bool best_differs;
    struct plan best;
    double best_step_s, best_headroom_gib;
    size_t ties; /* fitting plans within tie_pct of the fastest */
    /* the published run on these inputs: measured over speed of light */
    bool has_ratio;
    double measured_over_sol;
    /* the expected figures' range: the validation runs' smallest and
     * largest measured/expected (validation_range), times the expected */
    bool has_range;
    double range_lo, range_hi; /* measured over expected */
    size_t range_runs;         /* the runs it is over */
    char words[400];           /* the recommended plan in words */
    char title[200]; /* in a few words: "TP 2 × PP 16 zero-bubble × ..." */
    char fastest_words[400]; /* the fastest fitting plan's, when it differs */
    /* Sentences (owned; "" when there is nothing to say): */
    char *verdict;    /* "Recommended plan: ..." */
    char *why;        /* its verdict sentence, capitalised */
    char *difference; /* speed of light against reality */
    char *ties_text;
    /* what its range spans (figures_headline: its scenarios, the band's
     * runs and group), and, where the fastest expected plan is not the
     * recommended one for its range, why, in one sentence ("" else) */
    char *range_words;
    char *choice;
    char *models; /* the best plan under the other model */
};

/* The family every report compares against (the sweep's [report]
 * baseline, pure FSDP by default) and why it loses, in one sentence. */
struct views_baseline {
    char name[32];
    long family;     /* -1: the sweep has no plan of it */
    bool fits;       /* some plan of it fits */
    double slowdown; /* its best step over the recommended plan's */
    double lightest_gib, lightest_weights_gib;
    int bound, bound_other; /* its best plan's, this and the other model */
    /* its best plan on the rooflines when none fits (points are of
     * fitting plans only) */
    bool has_point;
    double x[2], y;
    char *sentence; /* why it loses (owned) */
};

/* A roof of a roofline chart: a compute rate and the link slope it
 * meets. */
struct views_roof {
    char name[32];       /* "FP8 achievable" */
    char rate_name[32];  /* its workbook name: "FP8_TFLOPS_USED"; "" (peak) */
    char ridge_name[32]; /* "RIDGE_IB_FP8"; "" (peak) */
    double tflops;
    double bps;   /* the link's bandwidth it meets, B/s */
    double ridge; /* FLOP/B */
    bool peak;    /* datasheet peak (dashed), else achievable */
};

/* One roofline chart (over IB or over NVLink). */
struct views_roofline {
    const char *link;          /* "IB", "NVLink" */
    const char *bw_name;       /* its bandwidth's workbook name: "IB_GBPS" */
    struct views_roof roof[4]; /* highest first */
    size_t nroofs;
    double slope_bps[2]; /* achievable, then peak when it differs */
    size_t nslopes;
    double top_achievable; /* TFLOP/s: where the achievable slope ends */
    /* Axis ranges of both renderings: x a power of ten at each end, y
     * from a power of ten up to room above the highest roof for its
     * label (yhi_decade: the power of ten at or above yhi). */
    double xlo, xhi, ylo, yhi, yhi_decade;
    size_t npoints; /* fitting plans drawn (with bytes on this link) */
    size_t nobytes; /* fitting plans with no bytes on this link */
};

/* A fitting plan on the roofline charts. */
struct views_point {
    double x[2]; /* FLOP per byte over IB, over NVLink; 0: no bytes */
    double y;    /* executed TFLOP/s per GPU */
    double step; /* s */
    bool fp8;
};

/* A family's points: a block of views.points. */
struct views_block {
    long family;
    size_t first, n;
    bool labelled; /* its best plan is labelled (the best few families) */
    long number;   /* 1-based, fastest first: its key and label */
};

/* A plan on the native charts: its Plans sheet row and its point. */
struct views_pick {
    size_t sheet; /* index into views.sheet */
    double x[2];  /* FLOP per byte over IB, NVLink; 0: no bytes */
    double y;     /* executed TFLOP/s per GPU */
    int bound;
};

/* A native chart series: one family's picked plans, or "other
 * families" (family -1). */
struct views_series {
    long family;
    size_t first, n; /* in views.roof_pick */
    uint32_t color;
};

/* One bar of the step-breakdown and memory charts (the recommended
 * plan, or a family's best). */
struct views_bar {
    long family;
    bool recommended; /* the recommended plan (the first bar) */
    struct memory mem;
    double compute, exposed[4], bubble, optimizer, step, serial; /* s */
    double expected; /* s: the expected step; 0 without a calibration */
    bool fits;
    int bound;
};

/* One sensitivity chart (IB or NVLink). */
struct views_sens_chart {
    const char *link;
    const double *gbps; /* the grid: ranking.sens_*_gbps */
    size_t n;
    double today; /* GB/s */
    long *family; /* drawn, fastest first (owned) */
    size_t nfamilies;
    double ylo, yhi;  /* s, data range of the curves */
    double mark_gbps; /* the baseline's crossover line; 0: none */
    char *line1;      /* what happens to the baseline on this link (owned) */
    char *line2;
};

/*
 * A waterfall from the speed of light to the expected step of one plan
 * (figures: expected_waterfall on the plan's work): effect k's bar is
 * what switching it on adds to the step with the effects before it on,
 * so the bars sum to expected - sol. An effect may subtract (a GEMM
 * shape measured faster than the achievable rate).
 */
struct views_waterfall {
    bool known;       /* the plan has an expected step */
    struct plan plan; /* the plan it is of */
    char name[128];   /* "recommended plan" or the published run's name */
    double sol;       /* s: the plan's speed of light (no effect on), the
                       * one every other place prints */
    /* s: the speed of light of the expected step's pipeline rank, where
     * another rank sets the plan's (rank != floor_rank): the waterfall's
     * first step, rank_sol - sol (<= 0), before the effects; rank_step
     * false and rank_sol == sol else */
    double rank_sol;
    bool rank_step;
    double rank_share; /* (rank_sol - sol) / (expected - sol); 0: no gap */
    double add[EXPECTED_EFFECTS];   /* s: what each effect adds, in order */
    double cum[EXPECTED_EFFECTS];   /* s: the step with effects 0..k on */
    double share[EXPECTED_EFFECTS]; /* add / (expected - sol); 0: no gap */
    double expected;                /* s: cum[EXPECTED_EFFECTS - 1] */
    int largest;                    /* the effect that adds most */
    int effects;     /* the effects shown, 0..effects-1: all, or all but the
                      * stack's factors when they are neutral (1) */
    double measured; /* s: the published run's measured step (or its
                        TFLOP/s as a step); 0: none */
    bool measured_from_tflops; /* the run published TFLOP/s, not a step */
    /* s: the expected step's phases on the critical pipeline rank (enum
     * cost_phase; cost_phases), summing to expected */
    double phases[COST_PHASES];
    long rank;       /* the rank of the expected step (cost_result_rank),
                        whose speed of light rank_sol is */
    long floor_rank; /* the rank of the plan's speed of light */
};

struct scale;

struct views {
    /* What the views are of (borrowed: they outlive the views). */
    const struct report_inputs *in;
    const struct ranking *rank;
    /* Several cluster sizes, or a deadline or budget (scale.h): each
     * size's recommended plan and the answer; NULL: one size, nothing
     * asked (borrowed, set by the cli after figures_views). */
    const struct scale *scale;

    /* each family's colours and words: family[i] is rank->family[i]'s,
     * for i < rank->nfamilies (owned) */
    struct views_family *family;

    char when[40]; /* generated, as "2025-01-31 12:00 UTC" */

    /* The Plans sheet: indexes into rows, in rank order: the fitting
     * plans up to plans_sheet, and every family's best (all kept plans
     * with all_plans). */
    size_t *sheet;
    size_t nsheet;
    uint64_t sheet_left_out; /* fitting kept plans not on the sheet */
    long sheet_best;         /* the fastest fitting plan (index into
                                sheet); -1: none fits */
    long sheet_recommended;  /* among the ties, the most headroom */
    long published;          /* validation run on these inputs, or -1 */
    /* its point on the rooflines (published_x[l] 0: no bytes there) */
    bool has_published_point;
    double published_x[2], published_y;

    struct views_headline headline;
    struct views_baseline baseline;
    char *note_published; /* where the published plan ranks (owned) */
    char *note_sweep;     /* counts of the sweep */
    char *note_left_out;  /* "" or plans not on the sheet */

    /* Rooflines: [0] over IB, [1] over NVLink; every fitting kept plan
     * as a point, one block per family (the recommended plan's family
     * first, then the fastest family first). */
    struct views_roofline roofline[2];
    struct views_point *points;
    size_t npoints;
    struct views_block *blocks; /* owned */
    size_t nblocks;
    /* the recommended plan's point (x[l] 0: no bytes on that link) */
    bool has_recommended_point;
    double recommended_x[2], recommended_y;
    /* The native charts: the best few Plans rows of each family, series
     * by series (the fastest families, the baseline, then the rest). */
    struct views_pick *roof_pick;
    size_t nroof_pick;
    struct views_series series[VIEWS_SERIES_MAX + 1];
    size_t nseries;

    /* The bar charts: the families' best plans, fitting first. */
    struct views_bar bars[VIEWS_BARS_MAX];
    size_t nbars, nbars_fit, bars_omitted;
    double steps_max;        /* s: the competitive families' longest */
    double memory_fit_max;   /* GiB: the fitting panel's longest bar or
                                the capacity line, whichever is longer */
    double memory_unfit_max; /* GiB: the longest bar that does not fit */

    /* Sensitivity: [0] IB, [1] NVLink. */
    struct views_sens_chart sens[2];

    /* From the speed of light to the expected step: [0] the recommended
     * plan, [1] the published run on these inputs (figures_waterfall). */
    struct views_waterfall waterfall[2];

    /* a sentence could not be allocated (views_say): the views are not
     * whole (views_finish) */
    bool nomem;
};

/* Frees what v owns (the sheet's rows, points, picks, the families' and
 * the charts' arrays, every sentence); not what it borrows. v may be
 * zeroed. */
/* The cluster size the report details: its recommended plan's (with
 * several sizes, --gpus, the one the scale picked), else the hardware
 * file's. Every title and page header names this size. */
long views_gpus(const struct views *v);

void views_free(struct views *v);

/*
 * Sets *text, one of v's sentences, to the formatted text (allocated to
 * fit: no sentence is cut), freeing what it held; on failure leaves it
 * NULL and marks v->nomem. Example:
 *
 *   views_say(v, &v->note_sweep, "Sweep: %s combinations", a);
 */
void views_say(struct views *v, char **text, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Once every view is derived: each sentence left unset becomes "" (so a
 * writer reads every one as a string). False when a sentence could not
 * be allocated, now or by views_say.
 */
bool views_finish(struct views *v);

/* The kept row behind Plans sheet row i (0-based, below the header). */
const struct ranking_row *views_sheet_row(const struct views *v, size_t i);

/* v rounded to a whole number with thousands separators ("12,345,678")
 * into buf; "%.3g" when it is not finite or beyond 1e18. For sentences,
 * sheets and charts alike. */
void views_thousands(double v, char *buf, size_t size);

/* v rounded to 3 significant digits, in fixed notation ("16.1", "0.901",
 * "47.5", "1610"), into buf: for the prose's ranges. */
void views_sig3(double v, char *buf, size_t size);

/* A percentage pct (>= 0) into buf for a sentence: whole from 1% on
 * ("6"), one decimal below ("0.3"), "under 0.1" below 0.05: never "0"
 * for a difference that is there. The caller adds the "%". */
void views_pct(double pct, char *buf, size_t size);

#endif
