/*
 * report_inputs: what a report is of, as the cli read it — the model,
 * the cluster (with its calibration and stack), the sweep file, the
 * communication model, every input file with its checksum, the training
 * recipe in words, and the options the writers name (the command line,
 * --all-plans). Filled by the cli before the sweep; rank reads the
 * model, cluster and sweep through its context; figures and the writers
 * read the rest (views.h carries a pointer to it). This module owns the
 * struct, the files' checksums and their release.
 */
#ifndef PROJ_REPORT_INPUTS_H
#define PROJ_REPORT_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "diag.h"
#include "hardware.h"
#include "model.h"
#include "progress.h"
#include "result.h"
#include "sweep.h"

struct report_input {
    char role[16]; /* "model", "training", "hardware", "calibration",
                      "stack", "sweep", "validation" */
    char *path;    /* as given, any length; freed by report_inputs_free() */
    char sha256[65];
};

/* The inputs are borrowed: they outlive the report. */
struct report_inputs {
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
    struct report_input *input; /* [ninputs], in the order added (owned) */
    size_t ninputs, cap;
    /* the training recipe the plans take, in words (cli_recipe_words:
     * whose, its name, sequence, batch, budget, the sweep's batch); the
     * summary on stdout and About (owned, NULL: not said) */
    char *recipe;
    /* the stack the expected step is of and its framework's release, in
     * words ("NAME; release: RELEASE"; owned, NULL: no stack): About */
    char *stack_words;
    bool recipe_json;    /* a config.json model: the recipe is a file */
    bool recipe_default; /* ... and it is the data directory's default,
                            borrowed, not the model's own */
    bool all_plans;      /* --all-plans: every kept plan on the sheet */
    /* where the writers count the rows they write (borrowed; NULL:
     * nowhere): the command begins and ends each step */
    struct progress *progress;
};

/*
 * Records input file `path` (its role: "model", "hardware", "sweep",
 * "validation") and its SHA-256 for the About sheet, the file read
 * through input_file_open(). Returns STATUS_IO when the file cannot be
 * read ("PATH: cannot open: ...", "PATH: not a regular file").
 */
enum status report_inputs_add(struct report_inputs *in,
                              const char *role,
                              const char *path,
                              struct diag *d);

/* Frees what in owns (the files, the recipe, the stack's words); in may be
 * zeroed. */
void report_inputs_free(struct report_inputs *in);

#endif
