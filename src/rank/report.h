/*
 * report: the document `roofplan report` writes, filled by the stages in
 * order before anything is written, each field by one stage (the
 * comments in struct report name it; docs/ARCHITECTURE.md, "Hand-offs"):
 * cli (read inputs: the inputs and their checksums), rank (rank_run: the
 * sweep's counts, families and the ranked rows with their times;
 * rank_finish: each family's best plan under both communication models
 * with its collectives and crossovers, the fastest plan under the other
 * model, the waterfall's replays, the validation runs that evaluate
 * predicted, placed), figures (every view the writers show: the Plans
 * sheet's rows, the headline, the baseline, the roofline points and
 * roofs with their axis ranges, the families each chart shows, the
 * sensitivity charts, the bars, the waterfalls, every sentence). Figures
 * and writers evaluate nothing (scripts/check-layers.py); writers
 * (xlsx_*, plot_*, csv_out) only lay it out. This module owns the struct
 * and a few read-only helpers.
 */
#ifndef PROJ_REPORT_H
#define PROJ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "comm.h"
#include "cost.h"
#include "expected.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "progress.h"
#include "scenario.h"
#include "sweep.h"
#include "validate.h"

/* Excel's sheet has 1,048,576 rows; one is the header. */
#define REPORT_EXCEL_ROWS      1048575
#define REPORT_FAMILIES_MAX    64
#define REPORT_EXAMPLES        3 /* examples kept per rejection reason */
#define REPORT_SENS_MAX        SWEEP_SENS_MAX      /* bandwidths of a grid */
#define REPORT_VALIDATIONS_MAX VALIDATION_RUNS_MAX /* every run loaded */
#define REPORT_LABELLED        5    /* families labelled on the rooflines */
#define REPORT_SERIES_MAX      12   /* families with a native chart series */
#define REPORT_ROOF_PER_FAMILY 12   /* points per family on a native chart */
#define REPORT_BARS_MAX        20   /* families of a bar chart */
#define REPORT_TEXT            1600 /* a sentence or two */
#define REPORT_HUES            6    /* a family's colour, marker and dash */
#define REPORT_MARKERS         6    /* (figures_colors) */
#define REPORT_DASHES          4
#define REPORT_INPUTS_MAX      (VALIDATION_RUNS_MAX + 16) /* runs, files */
#define REPORT_FAMILY_KEYS     (5 * 16) /* dp flavour x tp cp pp ep */

/* One evaluated plan as kept for output, with every time the later
 * stages show (rank fills t when it keeps the row: cost_times of work on
 * the report's hardware, as cost_evaluate gave it). */
struct report_row {
    struct plan plan;
    struct cost_work work;
    struct cost_times t;
    struct memory mem;
    double ep_ratio;
    double step; /* s, for ranking */
    int family;  /* index into report.family */
    bool fits;
    long rank; /* critical pipeline rank */
    /* its expected step under the other communication model (0: not
     * evaluated: rank_finish_other_best times the fitting rows) and its
     * scenarios with their span (rank_finish_scenarios; sc.have 0 where
     * it has no expected step) */
    double other_expected;
    struct scenario_steps sc;
};

/* Where a plan turns compute-bound as one link gets faster. */
enum report_cross {
    REPORT_CROSS_ALREADY, /* the link's time is at or below compute now */
    REPORT_CROSS_AT,      /* it meets compute at gbps */
    REPORT_CROSS_LATENCY  /* its per-call latency alone exceeds compute */
};

struct report_crossover {
    int state;      /* enum report_cross */
    double gbps;    /* REPORT_CROSS_AT: the link's bandwidth, GB/s */
    int then_bound; /* what binds there (enum cost_bound): compute when
                       the plan turns compute-bound; else the term that
                       still binds (another link, HBM) */
    bool in_range;  /* gbps inside the sensitivity grid's range */
};

struct report_family {
    char name[32];
    size_t plans, fitting; /* evaluated in this family */
    bool has_best;
    struct cost_result best;       /* fastest fitting plan (else fastest) */
    struct cost_result best_other; /* the same plan, other comm model */
    struct comm_collective coll[COMM_LIST_MAX];
    size_t ncoll;
    struct comm_collective coll_other[COMM_LIST_MAX];
    size_t ncoll_other;
    /* Best fitting step time of the family at each sensitivity point
     * (0 = no fitting plan), and its bound; rank_finish_crossovers fills
     * the baseline's from its fastest plan, re-timed, when none of it
     * fits (sens_unfit). */
    double sens_ib_step[REPORT_SENS_MAX];
    int sens_ib_bound[REPORT_SENS_MAX];
    double sens_nv_step[REPORT_SENS_MAX];
    int sens_nv_bound[REPORT_SENS_MAX];
    bool sens_unfit;
    /* The plan of the family with the least memory (rank). */
    bool has_lightest;
    struct plan lightest;
    struct memory lightest_mem;
    /* Rank (rank_finish_crossovers): where the best plan turns
     * compute-bound as IB (NVLink) gets faster. */
    struct report_crossover cross_ib, cross_nv;
    /* Figures: the family's colour (0xRRGGBB, the same in every chart
     * and the workbook), the best plan's place on the Plans sheet (-1:
     * not there) and the sentences. */
    uint32_t color;
    int marker; /* < REPORT_MARKERS: circle, square, triangle up and down,
                   diamond, pentagon (figures_colors) */
    int dash;   /* < REPORT_DASHES: solid, dashed, dotted, dash-dot */
    long sheet_row;
    char why[REPORT_TEXT]; /* the verdict in plain words */
    char plan_short[256];  /* "TP 2, PP 2 (zb), EP 256, ZeRO-1, ..." */
};

/* What a plan costs for the model's token budget. */
struct report_cost {
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
struct report_headline {
    bool any;  /* a plan was evaluated */
    bool fits; /* the recommended plan fits (else: nothing fits) */
    long family;
    struct cost_result plan; /* the recommended plan */
    struct report_cost sol;  /* speed of light: a floor */
    bool has_expected;
    struct report_cost expected;
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
    char fastest_words[400];   /* the fastest fitting plan's, when it differs */
    char verdict[REPORT_TEXT]; /* "Recommended plan: ..." */
    char why[REPORT_TEXT];     /* its verdict sentence, capitalised */
    char difference[REPORT_TEXT]; /* speed of light against reality */
    char ties_text[REPORT_TEXT];
    /* what its range spans (figures_headline: its scenarios, the band's
     * runs and group), and, where the fastest expected plan is not the
     * recommended one for its range, why, in one sentence ("" else) */
    char range_words[REPORT_TEXT];
    char choice[REPORT_TEXT];
    char models[REPORT_TEXT]; /* the best plan under the other model */
};

/* The family every report compares against (the sweep's [report]
 * baseline, pure FSDP by default) and why it loses, in one sentence. */
struct report_baseline {
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
    char sentence[REPORT_TEXT];
};

/* A roof of a roofline chart: a compute rate and the link slope it
 * meets. */
struct report_roof {
    char name[32];       /* "FP8 achievable" */
    char rate_name[32];  /* its workbook name: "FP8_TFLOPS_USED"; "" (peak) */
    char ridge_name[32]; /* "RIDGE_IB_FP8"; "" (peak) */
    double tflops;
    double bps;   /* the link's bandwidth it meets, B/s */
    double ridge; /* FLOP/B */
    bool peak;    /* datasheet peak (dashed), else achievable */
};

/* One roofline chart (over IB or over NVLink). */
struct report_roofline {
    const char *link;           /* "IB", "NVLink" */
    const char *bw_name;        /* its bandwidth's workbook name: "IB_GBPS" */
    struct report_roof roof[4]; /* highest first */
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
struct report_point {
    double x[2]; /* FLOP per byte over IB, over NVLink; 0: no bytes */
    double y;    /* executed TFLOP/s per GPU */
    double step; /* s */
    bool fp8;
};

/* A family's points: a block of report.points. */
struct report_block {
    long family;
    size_t first, n;
    bool labelled; /* its best plan is labelled (the best few families) */
    long number;   /* 1-based, fastest first: its key and label */
};

/* A plan on the native charts: its Plans sheet row and its point. */
struct report_pick {
    size_t sheet; /* index into report.sheet */
    double x[2];  /* FLOP per byte over IB, NVLink; 0: no bytes */
    double y;     /* executed TFLOP/s per GPU */
    int bound;
};

/* A native chart series: one family's picked plans, or "other
 * families" (family -1). */
struct report_series {
    long family;
    size_t first, n; /* in report.roof_pick */
    uint32_t color;
};

/* One bar of the step-breakdown and memory charts (the recommended
 * plan, or a family's best). */
struct report_bar {
    long family;
    bool recommended; /* the recommended plan (the first bar) */
    struct memory mem;
    double compute, exposed[4], bubble, optimizer, step, serial; /* s */
    double expected; /* s: the expected step; 0 without a calibration */
    bool fits;
    int bound;
};

/* One sensitivity chart (IB or NVLink). */
struct report_sens_chart {
    const char *link;
    const double *gbps; /* the grid: report.sens_*_gbps */
    size_t n;
    double today;                     /* GB/s */
    long family[REPORT_FAMILIES_MAX]; /* drawn, fastest first */
    size_t nfamilies;
    double ylo, yhi;         /* s, data range of the curves */
    double mark_gbps;        /* the baseline's crossover line; 0: none */
    char line1[REPORT_TEXT]; /* what happens to the baseline on this link */
    char line2[REPORT_TEXT];
};

/*
 * A waterfall from the speed of light to the expected step of one plan
 * (figures: expected_waterfall on the plan's work): effect k's bar is
 * what switching it on adds to the step with the effects before it on,
 * so the bars sum to expected - sol. An effect may subtract (a GEMM
 * shape measured faster than the achievable rate).
 */
struct report_waterfall {
    bool known;       /* the plan has an expected step */
    struct plan plan; /* the plan it is of */
    char name[128];   /* "recommended plan" or the published run's name */
    double sol;       /* s: the speed of light (no effect on) */
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
                        whose speed of light sol is */
    long floor_rank; /* the rank of the plan's speed of light */
};

struct report_input {
    char role[16]; /* "model", "training", "hardware", "calibration",
                      "stack", "sweep", "validation" */
    char *path;    /* as given, any length; freed by report_free() */
    char sha256[65];
};

struct report {
    /* ---- Read inputs (cli): borrowed; they outlive the report ---- */
    const struct model *m;
    const struct hardware *hw;
    const struct sweep_file *sweep;
    enum comm_model comm;
    /* the expected step is known (a calibration and a stack): plans rank
     * by it, and the headline leads with it */
    bool expected;
    char command_line[1024];
    char version[32];
    int64_t generated; /* seconds since the epoch (SOURCE_DATE_EPOCH) */
    struct report_input input[REPORT_INPUTS_MAX];
    size_t ninputs;
    /* the training recipe the plans take, in words (cli_recipe_words:
     * whose, its name, sequence, batch, budget, the sweep's batch); the
     * summary on stdout and About */
    char recipe[REPORT_TEXT];
    bool recipe_json;    /* a config.json model: the recipe is a file */
    bool recipe_default; /* ... and it is the data directory's default,
                            borrowed, not the model's own */

    /* ---- Rank (rank_run) ---- */

    /* The sweep. */
    uint64_t enumerated;     /* combinations of the [space] lists */
    uint64_t valid, fitting; /* evaluated; of which fit in memory */
    uint64_t floor_only;     /* valid plans timed at the floor only: it
                                could not enter the kept plans (rank.c) */
    uint64_t rejected[PLAN_REASONS];
    char examples[PLAN_REASONS][REPORT_EXAMPLES][320];
    size_t nexamples[PLAN_REASONS];
    double elapsed_s;

    /* Ranked plans: fitting first, then by step time; at most `top`. */
    struct report_row *rows;
    size_t nrows;
    /* rows[0..nranked-1] are the best plans in order (rank: index + 1);
     * the rows after them, the families' bests beyond those, are not
     * ranked (rank_keep.c). 0: every row is ranked. */
    size_t nranked;
    uint64_t dropped; /* valid plans not kept (beyond --top or Excel) */

    /* rank_run; rank_finish fills each family's best plan under both
     * models with its collectives and crossovers, and families_by_step;
     * figures its colour, marker, dash, sheet row and sentences */
    struct report_family family[REPORT_FAMILIES_MAX];
    size_t nfamilies;
    long families_by_step[REPORT_FAMILIES_MAX]; /* indexes, fastest first */
    /* the fastest fitting kept plan under the other communication model
     * (rank_finish_other_best) */
    bool has_other_best;
    struct cost_result other_best;
    /* the published runs' band on this report's calibration
     * (rank_finish_scenarios; has_band false without a run) */
    bool has_band;
    struct validation_band band;
    /* the waterfall's replay of every plan that can be recommended: the
     * kept rows [0, nreplays), the fitting ones within tie_pct of the
     * fastest (row 0 alone when it does not fit) (rank_finish_replays) */
    struct replay *replays;
    size_t nreplays;

    /* The sweep's [report] settings (rank_run copies them). */
    double sens_ib_gbps[REPORT_SENS_MAX];
    size_t nsens_ib;
    double sens_nv_gbps[REPORT_SENS_MAX];
    size_t nsens_nv;
    double headroom_pct, tie_pct; /* percent */
    size_t plans_sheet;           /* rows of the Plans sheet */
    bool all_plans;               /* --all-plans: every kept plan (main) */
    /* where the writers count the rows they write (borrowed; NULL:
     * nowhere): the command begins and ends each step */
    struct progress *progress;

    /* ---- Rank (rank_finish_validations, from validate_predict) ---- */
    struct validate_result validation[REPORT_VALIDATIONS_MAX];
    size_t nvalidations;
    /* runs left out: "name: skipped, its plan does not apply ...: why" */
    char validation_notes[REPORT_VALIDATIONS_MAX][400];
    size_t nvalidation_notes;

    /* ---- Rank (rank_run) ---- */

    /* Every valid plan, spilled by rank_run for rank_cursor (NULL: none;
     * one unlinked file per sweep thread), and the family index of each
     * family key their rows carry. */
    FILE **spill;
    size_t nspill;
    int family_of_key[REPORT_FAMILY_KEYS];

    /* ---- Figures (figures_views): what the writers lay out ---- */

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

    struct report_headline headline;
    struct report_baseline baseline;
    char note_published[REPORT_TEXT]; /* where the published plan ranks */
    char note_sweep[REPORT_TEXT];     /* counts of the sweep */
    char note_left_out[REPORT_TEXT];  /* "" or plans not on the sheet */

    /* Rooflines: [0] over IB, [1] over NVLink; every fitting kept plan
     * as a point, one block per family (the recommended plan's family
     * first, then the fastest family first). */
    struct report_roofline roofline[2];
    struct report_point *points;
    size_t npoints;
    struct report_block blocks[REPORT_FAMILIES_MAX];
    size_t nblocks;
    /* the recommended plan's point (x[l] 0: no bytes on that link) */
    bool has_recommended_point;
    double recommended_x[2], recommended_y;
    /* The native charts: the best few Plans rows of each family, series
     * by series (the fastest families, the baseline, then the rest). */
    struct report_pick *roof_pick;
    size_t nroof_pick;
    struct report_series series[REPORT_SERIES_MAX + 1];
    size_t nseries;

    /* The bar charts: the families' best plans, fitting first. */
    struct report_bar bars[REPORT_BARS_MAX];
    size_t nbars, nbars_fit, bars_omitted;
    double steps_max;        /* s: the competitive families' longest */
    double memory_fit_max;   /* GiB: the fitting panel's longest bar or
                                the capacity line, whichever is longer */
    double memory_unfit_max; /* GiB: the longest bar that does not fit */

    /* Sensitivity: [0] IB, [1] NVLink. */
    struct report_sens_chart sens[2];

    /* From the speed of light to the expected step: [0] the recommended
     * plan, [1] the published run on these inputs (figures_waterfall). */
    struct report_waterfall waterfall[2];
};

/*
 * Records input file `path` (its role: "model", "hardware", "sweep",
 * "validation") and its SHA-256 for the About sheet, the file read
 * through input_file_open(). Returns STATUS_IO when the file cannot be
 * read ("PATH: cannot open: ...", "PATH: not a regular file").
 */
enum status report_add_input(struct report *r,
                             const char *role,
                             const char *path,
                             struct diag *d);

/* The row a sweep keeps for result c of family `family` (its plan,
 * work, times, memory, fit, critical rank and step), and back: the cost
 * result a row carries (no collectives, no family name). */
void report_row_of(const struct cost_result *c,
                   int family,
                   struct report_row *row);
void report_row_result(const struct report_row *row, struct cost_result *c);

/* Frees what r owns (rows, spill files, the figures' arrays); r may be
 * zeroed. */
void report_free(struct report *r);

/* The rank of r->rows[index]: index + 1, or 0 for a row beyond the
 * ranked ones (nranked). */
size_t report_row_rank(const struct report *r, size_t index);

/* The kept row behind Plans sheet row i (0-based, below the header). */
const struct report_row *report_sheet_row(const struct report *r, size_t i);

/* Index of the family named `name`, or -1. */
long report_family_index(const struct report *r, const char *name);

/* v rounded to a whole number with thousands separators ("12,345,678")
 * into buf; "%.3g" when it is not finite or beyond 1e18. For sentences,
 * sheets and charts alike. */
void report_thousands(double v, char *buf, size_t size);

/* v rounded to 3 significant digits, in fixed notation ("16.1", "0.901",
 * "47.5", "1610"), into buf: for the prose's ranges. */
void report_sig3(double v, char *buf, size_t size);

#endif
