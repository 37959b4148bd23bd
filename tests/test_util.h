/*
 * test_util: helpers shared by the cmocka tests.
 *
 * cmocka 1.1.5's assert_float_equal() works in float and trips
 * -Wconversion; assert_near() compares doubles with a relative tolerance
 * and prints both values on failure.
 */
#ifndef PROJ_TEST_UTIL_H
#define PROJ_TEST_UTIL_H

#include <math.h>

#include "cost.h"
#include "plan.h"
#include "report.h"
#include "sweep.h"

/* Parses PLAN text (omitted keys 1, gpus and gbs required) and checks it
 * on m and hw; fails the test with the message when it is not valid. */
void util_plan(const struct model *m,
               const struct hardware *hw,
               const char *text,
               struct plan *out);

/* A cost context for m and hw prepared for plan p; fails the test on
 * error. Release with cost_ctx_release(). */
void util_ctx(struct cost_ctx *ctx,
              const struct model *m,
              const struct hardware *hw,
              enum comm_model model,
              const struct plan *p);

/*
 * Runs the report's stages as `roofplan report` does (rank_run,
 * figures_families and, when data_dir is not NULL, the validation runs
 * of data_dir) into *r for the writers' tests; r->m, r->hw, r->sweep and
 * the About fields are set. Fails the test on error. Release with
 * report_free().
 */
void util_report(struct report *r,
                 struct cost_ctx *ctx,
                 struct cost_ctx *other,
                 const struct sweep_file *sf,
                 size_t top,
                 const char *data_dir,
                 int64_t generated);

/* Writes len bytes of text to a new file made by mkstemp(path) (path: a
 * template ending in XXXXXX, filled in); fails the test on error. */
void util_temp_file(char *path, const char *text, size_t len);

/* Parses a --set argument into *s; fails the test when it is malformed. */
void util_set(struct datafile_set *s, const char *arg);

/* Loads the model file at path with the overrides; fails the test with
 * the message on error. Release with model_release(). */
void util_model(struct model *m,
                const char *path,
                struct datafile_set *sets,
                size_t nsets);

/*
 * Loads text as a model file (a config.json, with the training recipe at
 * `recipe`) from a temporary file whose name goes to path (size >= 32),
 * and removes it; returns the status, the message in d (initialised
 * here). For the readers' error cases.
 */
enum status util_model_text(const char *text,
                            const char *recipe,
                            char *path,
                            size_t size,
                            struct diag *d);

/* Asserts that d's message is path followed by rest. */
void util_expect_msg(const struct diag *d, const char *path, const char *rest);

/* Removes dir and everything in it (temporary directories of tests);
 * symlinks are removed, not followed. 0 on success. */
int util_remove_tree(const char *dir);

#define assert_near(got, want, rel_tol)                                      \
    do {                                                                     \
        double got_ = (got), want_ = (want), tol_ = (rel_tol);               \
        double err_ = fabs(got_ - want_);                                    \
        double lim_ = tol_ * fabs(want_);                                    \
        if (!(err_ <= lim_) && !(want_ == 0 && fabs(got_) <= tol_))          \
            fail_msg("%s = %.10g, expected %.10g (rel. tolerance %g)", #got, \
                     got_, want_, tol_);                                     \
    } while (0)

#define assert_between(got, lo, hi)                                      \
    do {                                                                 \
        double got_ = (got);                                             \
        if (!(got_ >= (lo) && got_ <= (hi)))                             \
            fail_msg("%s = %.10g, expected within [%g, %g]", #got, got_, \
                     (double)(lo), (double)(hi));                        \
    } while (0)

#endif
