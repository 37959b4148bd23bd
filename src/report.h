/*
 * report: the document `roofplan report` writes, filled by the stages in
 * order before anything is written — main (the inputs and their
 * checksums), rank (the sweep's counts, families and ranked plans),
 * figures (each family's best plan under both communication models, the
 * validation runs' predictions). Writers (xlsx_*, plot_*, csv_out) only
 * lay it out. This module owns the struct and a few read-only helpers.
 */
#ifndef PROJ_REPORT_H
#define PROJ_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "comm.h"
#include "cost.h"
#include "hardware.h"
#include "model.h"
#include "plan.h"
#include "sweep.h"

/* Excel's sheet has 1,048,576 rows; one is the header. */
#define REPORT_EXCEL_ROWS      1048575
#define REPORT_FAMILIES_MAX    64
#define REPORT_EXAMPLES        3  /* examples kept per rejection reason */
#define REPORT_SENS_IB         11 /* IB bandwidths, 12.5 .. 400 GB/s */
#define REPORT_SENS_NV         8  /* NVLink bandwidths, 80 .. 900 GB/s */
#define REPORT_VALIDATIONS_MAX 16
#define REPORT_INPUTS_MAX      24
#define REPORT_FAMILY_KEYS     (5 * 16) /* dp flavour x tp cp pp ep */

/* One evaluated plan as kept for output; times follow from work by
 * cost_times(). */
struct report_row {
    struct plan plan;
    struct cost_work work;
    struct memory mem;
    double ep_ratio;
    double step; /* s, for ranking */
    int family;  /* index into report.family */
    bool fits;
    long rank; /* critical pipeline rank */
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
     * (0 = no fitting plan), and its bound. */
    double sens_ib_step[REPORT_SENS_IB];
    int sens_ib_bound[REPORT_SENS_IB];
    double sens_nv_step[REPORT_SENS_NV];
    int sens_nv_bound[REPORT_SENS_NV];
    /* Bandwidth at which the best plan's IB (NVLink) time would fall to
     * its compute time; 0 when it is already below, -1 when latency alone
     * exceeds compute (no bandwidth suffices). */
    double ib_crossover_gbps, nv_crossover_gbps;
};

/* A published measured run and the prediction for it. */
struct report_validation {
    char name[128]; /* "DeepSeek-V3 pre-training (ISCA'25 Table 4)" */
    char source[200];
    char model_path[1024], hardware_path[1024];
    char model_name[128], gpu_name[128];
    struct plan plan;
    double measured_step_s;         /* 0 when not published */
    double measured_tflops_per_gpu; /* 0 when not published */
    double measured_mfu;            /* fraction of BF16 peak; 0 if none */
    double measured_gpu_hours_per_trillion; /* 0 when not published */
    struct cost_result predicted;
    /* When current: the critical rank's collectives, this report's comm
     * model and the other one. */
    struct comm_collective coll[COMM_LIST_MAX], coll_other[COMM_LIST_MAX];
    size_t ncoll, ncoll_other;
    bool current; /* same model and hardware files as this report */
    long rank;    /* its place in this report's ranking (1 = best);
                     0 when not current or not among the kept plans */
    /* The speed of light over every completion of what the run did not
     * publish (its plan with each combination of the `unpublished`
     * choices; just the plan when there are none). */
    char unpublished[200];   /* the choices, as the file gives them */
    size_t completions;      /* valid completions evaluated */
    double sol_min_step_s;   /* the fastest completion's step */
    double sol_max_step_s;   /* the slowest completion's step */
    struct plan slowest;     /* the completion of sol_max_step_s */
    double measured_step_eq; /* the measured step, or model FLOPs per GPU
                                per step / measured TFLOP/s; 0 if neither */
    bool holds; /* every completion's SOL is at or below the measured */
};

struct report_input {
    char role[16]; /* "model", "hardware", "sweep", "validation" */
    char path[512];
    char sha256[65];
};

struct report {
    /* Inputs (borrowed; they outlive the report). */
    const struct model *m;
    const struct hardware *hw;
    const struct sweep_file *sweep;
    enum comm_model comm;
    char command_line[1024];
    char version[32];
    int64_t generated; /* seconds since the epoch (SOURCE_DATE_EPOCH) */
    struct report_input input[REPORT_INPUTS_MAX];
    size_t ninputs;

    /* The sweep. */
    uint64_t enumerated;     /* combinations of the [space] lists */
    uint64_t valid, fitting; /* evaluated; of which fit in memory */
    uint64_t rejected[PLAN_REASONS];
    char examples[PLAN_REASONS][REPORT_EXAMPLES][320];
    size_t nexamples[PLAN_REASONS];
    double elapsed_s;

    /* Ranked plans: fitting first, then by step time; at most `top`. */
    struct report_row *rows;
    size_t nrows;
    uint64_t dropped; /* valid plans not kept (beyond --top or Excel) */

    struct report_family family[REPORT_FAMILIES_MAX];
    size_t nfamilies;
    long families_by_step[REPORT_FAMILIES_MAX]; /* indexes, fastest first */

    double sens_ib_gbps[REPORT_SENS_IB]; /* 12.5 ... 400 */
    double sens_nv_gbps[REPORT_SENS_NV]; /* 80 ... 900 */

    struct report_validation validation[REPORT_VALIDATIONS_MAX];
    size_t nvalidations;
    /* runs left out: "name: skipped, its plan does not apply ...: why" */
    char validation_notes[REPORT_VALIDATIONS_MAX][400];
    size_t nvalidation_notes;

    /* Every valid plan, spilled by rank_run for rank_cursor (NULL: none;
     * one unlinked file per sweep thread), and the family index of each
     * family key their rows carry. */
    FILE **spill;
    size_t nspill;
    int family_of_key[REPORT_FAMILY_KEYS];
};

/*
 * Records input file `path` (its role: "model", "hardware", "sweep",
 * "validation") and its SHA-256 for the About sheet. Returns STATUS_IO
 * when the file cannot be read.
 */
enum status report_add_input(struct report *r,
                             const char *role,
                             const char *path,
                             struct diag *d);

/* Frees what r owns (rows, spill files); r may be zeroed. */
void report_free(struct report *r);

/* Times of a kept row (cost_times with the report's hardware). */
void report_row_times(const struct report *r,
                      const struct report_row *row,
                      struct cost_times *t);

/*
 * Colour of a family as 0xRRGGBB, the same in every chart and in the
 * workbook: colour-blind-safe palettes (Okabe & Ito 2008; Paul Tol's
 * "muted") for the families with a fitting plan, fastest first (past 16
 * they repeat); grey for families where nothing fits, black for ZeRO-3
 * (the FSDP baseline every report compares against).
 */
uint32_t report_family_color(const struct report *r, size_t family);

/* Index of the family named `name`, or -1. */
long report_family_index(const struct report *r, const char *name);

#endif
