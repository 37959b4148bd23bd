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
#include <stdbool.h>
#include <stddef.h>

#include "calibration.h"
#include "cost.h"
#include "plan.h"
#include "plot_template.h"
#include "ranking.h"
#include "report_inputs.h"
#include "stack.h"
#include "sweep.h"
#include "views.h"
#include "xlsx_book.h"

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
 * A report's three parts as `roofplan report` holds them (cli_report.c):
 * the inputs, the ranking and the views derived from them; v.in and
 * v.rank point at in and rank (util_parts_init), so a writer takes &v.
 * Tests that build a report by hand fill in and rank, then call
 * figures_views(&p->in, &p->rank, &p->v, d) or set v's fields.
 */
struct util_parts {
    struct report_inputs in;
    struct ranking rank;
    struct views v;
};

/* Zeroes p and points p->v at p->in and p->rank. */
void util_parts_init(struct util_parts *p);

/* n families in p built by hand: p->rank.family (zeroed) with
 * families_by_step in index order, and their views p->v.family (no row
 * on the Plans sheet). Fails the test on error. */
void util_parts_families(struct util_parts *p, size_t n);

/* Room for n families on hand-made charts: p->v.blocks and both
 * sensitivity charts' p->v.sens[k].family. Fails the test on error. */
void util_parts_charts(struct util_parts *p, size_t n);

/* Points p->v at p->in and p->rank again: after p was copied from another
 * (a shallow copy's views still read the original's parts). */
void util_parts_link(struct util_parts *p);

/* Frees what each part owns; p may be zeroed. */
void util_parts_free(struct util_parts *p);

/*
 * Runs the report's stages as `roofplan report` does (rank_run,
 * rank_finish and, when data_dir is not NULL, the validation runs
 * of data_dir, then figures_views) into *r for the writers' tests;
 * r->in's model, hardware, sweep and About fields are set. Fails the
 * test on error. Release with util_parts_free().
 */
void util_report(struct util_parts *r,
                 struct cost_ctx *ctx,
                 struct cost_ctx *other,
                 const struct sweep_file *sf,
                 size_t top,
                 const char *data_dir,
                 int64_t generated);

/* Writes len bytes of text to a new file made by mkstemp(path) (path: a
 * template ending in XXXXXX, filled in); fails the test on error. */
void util_temp_file(char *path, const char *text, size_t len);

/* The expected-step tests' cluster: tests/data/hw-h800.ini with the
 * flat calibration (tests/data/calibration/flat.ini, hw->cal set) and the
 * DeepSeek stack's snapshot; 0, or -1 with the message on stderr. */
int util_calibrated_cluster(struct hardware *hw,
                            struct calibration *cal,
                            struct stack *st);
void util_calibrated_cluster_release(struct hardware *hw,
                                     struct calibration *cal,
                                     struct stack *st);

/* Writes text to dir/name (to name when dir is NULL), replacing it;
 * fails the test on error. */
void util_write_text(const char *dir, const char *name, const char *text);

/* The whole of dir/name (name when dir is NULL), at most UTIL_TEXT_MAX - 1
 * bytes, in a static buffer the next call reuses; "(none)" when there is
 * no such file. */
#define UTIL_TEXT_MAX 1024
const char *util_read_text(const char *dir, const char *name);

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

/* ---- A spreadsheet evaluator, just enough for the templates ----
 * + - * /, comparisons, MAX, MIN, IF, strings, cell references (column
 * letters of one row) and the registry's inputs by name (terms.h), so
 * that a template compiled as the workbook writes it can be checked
 * against its C value without a spreadsheet. */

enum { UTIL_NUM, UTIL_STR, UTIL_BOOL };

struct util_value {
    int kind; /* UTIL_NUM, UTIL_STR or UTIL_BOOL */
    double num;
    bool flag;
    char str[64];
};

/* One row of cells (column index -> value) and the inputs' values. */
struct util_sheet {
    struct util_value cell[160];
    size_t ncells;
    const struct hardware *hw;
    const struct model *m;
};

/* A number cell. */
struct util_value util_num(double v);

/* Evaluates "=..." (a compiled, expanded formula) on row sh; fails the
 * test with the reason on a syntax error, an unknown name or function,
 * or a reference beyond the row. */
struct util_value util_evaluate(const char *formula,
                                const struct util_sheet *sh);

/* ---- The figures stage's hand-made report ----
 *
 * Four plans of tests/data/tiny-moe.ini on tests/data/hw-h800.ini (IB
 * 50 GB/s and 55 us, NVLink 160 GB/s, HBM 79.21 GiB), each step BF16
 * compute alone. Family A (ZeRO-1+PP+EP) fits: 10.0 s with 60 GiB (and
 * 100 GB over IB in 1000 calls: 2.055 s, hidden), 10.15 s with 40 GiB
 * (within 2%), 10.5 s with 30 GiB. B (the baseline, ZeRO-3) does not:
 * 10 s of compute, 1000 GB over IB in 1000 calls and 3000 GB over NVLink:
 * IB 1000/50 + 1000 x 55 us = 20.055 s, NVLink 3000/160 = 18.75 s, so
 * 20.055 s, IB-bound (NVLink-bound under the flat model). Headroom 10%,
 * ties within 2%, 2 fitting plans on the Plans sheet, IB grid 12.5 50
 * 400 GB/s, NVLink grid 160 900 GB/s, generated at 1700000000 s.
 * util_figures_setup runs figures_views() on it (a cmocka group setup:
 * *state receives the struct util_figures); util_figures_teardown frees
 * it.
 */
struct util_figures {
    struct model m;
    struct hardware hw;
    struct sweep_file sf; /* zeroed: only its [report] baseline is read */
    struct cost_ctx other;
    struct util_parts r;
};

#define UTIL_GIB 1073741824.0

int util_figures_setup(void **state);
int util_figures_teardown(void **state);

/*
 * A report on the snapshots (tests/data/snap): DeepSeek-V3 on 2048 H800,
 * the default sweep narrowed to pure ZeRO and PP16 x EP64 plans in FP8
 * with selective recomputation and micro-batch 1, and the validation
 * runs of tests/data/snap; with expected, the H800 calibration and
 * DeepSeek's stack too (the expected step, the waterfall). For the
 * workbook's sheet tests. Fails the test on error; release with
 * util_snap_free().
 */
struct util_snap {
    struct model m;
    struct hardware hw;
    struct sweep_file sf;
    struct calibration cal;
    struct stack stack;
    struct cost_ctx ctx, other;
    struct util_parts rep;
};

void util_snap_report(struct util_snap *s, bool expected);

void util_snap_free(struct util_snap *s);

/* A chart's placeholder `name` as its script gets it ("" when the value
 * is empty); fails the test when the chart has no such placeholder. */
const char *util_plot_var(const struct plot_template_vars *v, const char *name);

/* A chart's data file without its first two (header) lines. */
const char *util_dat_body(const char *dat);

/*
 * A written workbook read back (tests/util_xlsx.c): xl/workbook.xml (the
 * defined names), the shared strings and one sheet's XML. Cells are A1
 * references ("B12").
 */
struct util_xlsx {
    char *book;
    char *sheet;
    char **strings; /* the shared strings, decoded */
    size_t nstrings;
};

/*
 * A sheet test's fixture: the snapshot report (util_snap_report), a
 * private directory and a workbook written there, its first sheet read
 * back into x.
 */
struct util_book {
    struct util_snap s;
    char dir[64], path[96];
    struct util_xlsx x;
};

/* The fixture for the test file `name`: the report (expected: with the
 * calibration and stack) and the directory /tmp/name.XXXXXX; malloc'd,
 * release with util_book_free(). Fails the test on error. */
struct util_book *util_book_new(const char *name, bool expected);

/* Writes f->path in `mode` (xlsx_book_open): a book on f's report,
 * write(b) adding the sheets, closed, the first sheet read back into
 * f->x. Fails the test on error. */
void util_book_write(struct util_book *f,
                     enum xlsx_book_mode mode,
                     void (*write)(struct xlsx_book *b));

void util_book_free(struct util_book *f);

/* Entry name of the zip at path, malloc'd and NUL-terminated; NULL when
 * the zip has no such entry. Fails the test when path is not a zip. */
char *util_zip_entry(const char *path, const char *name);

/* util_zip_entry, failing the test when the zip has no such entry. */
char *util_zip_part(const char *path, const char *name);

/* Reads the workbook at path and its sheet-th sheet (1-based, in tab
 * order); fails the test when a part is missing. Release with
 * util_xlsx_free(). */
void util_xlsx_read(struct util_xlsx *x, const char *path, int sheet);

void util_xlsx_free(struct util_xlsx *x);

/* The number of cell ref (a value or a formula's cached result); NAN
 * when the cell is missing or holds text. */
double util_xlsx_num(const struct util_xlsx *x, const char *ref);

/* The text of cell ref into buf (a shared or inline string, a formula's
 * text result, TRUE / FALSE, a number as written); "" when the cell is
 * missing or empty. Returns buf. */
const char *
util_xlsx_text(const struct util_xlsx *x, const char *ref, char *buf, size_t n);

/* util_xlsx_num and util_xlsx_text of the cell at column col (one letter)
 * and row (1-based). */
double util_xlsx_num_at(const struct util_xlsx *x, char col, size_t row);

const char *util_xlsx_text_at(const struct util_xlsx *x,
                              char col,
                              size_t row,
                              char *buf,
                              size_t n);

/* The formula of cell ref without '=' and with XML entities decoded into
 * buf; "" when the cell has none. Returns buf. */
const char *util_xlsx_formula(const struct util_xlsx *x,
                              const char *ref,
                              char *buf,
                              size_t n);

/* The first row (1-based) whose cell in column col ("A") has the text
 * text; 0 when none. */
size_t
util_xlsx_find(const struct util_xlsx *x, const char *col, const char *text);

/* The reference of workbook name `name` ("Assumptions!$B$7") into buf;
 * NULL when the name is not defined. */
const char *util_xlsx_name(const struct util_xlsx *x,
                           const char *name,
                           char *buf,
                           size_t n);

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
