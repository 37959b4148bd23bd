/*
 * rank: the sweep's evaluation and ranking stage. Runs every combination
 * of a sweep file's space through plan_check() and cost_evaluate() on
 * several threads, and fills a struct ranking (ranking.h): counts
 * of valid, fitting and rejected plans (with examples per reason), the
 * families with their best plan, their lightest plan and their best step
 * at the sweep's sensitivity bandwidths, and the best plans in order
 * (fitting first, then faster, then by plan text, so the order never
 * depends on threads), each row with its times (ranking_row.t), so that
 * no later stage times a plan. A plan fits when its memory leaves the sweep's
 * headroom free (terms_fits). Optionally spills every valid plan to
 * unlinked temporary files so plans.csv can list every plan through a
 * cursor without sweeping again.
 *
 * rank.c holds the sweep's threads, their merge and the ranking;
 * rank_spill.c the spill files and the cursor that reads them back;
 * rank_finish.c what rank hands over besides the rows (rank_finish).
 *
 * Calls: sweep (enumeration), plan, cost, comm, terms, replay, validate.
 * Knows no output format.
 */
#ifndef PROJ_RANK_H
#define PROJ_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cost.h"
#include "diag.h"
#include "ranking.h"
#include "replay.h"
#include "scenario.h"
#include "sweep.h"
#include "validate.h"
#include "validation.h"

struct rank_options {
    size_t top; /* plans kept in order; 0: Excel's row limit, or the Plans
                   sheet's plans with sheet_only */
    /* With top 0: keep only what the Plans sheet needs (the best
     * report.plans_sheet plans and each family's best: rank_keep.c), so
     * memory does not grow with the sweep. */
    bool sheet_only;
    size_t threads; /* 0 or 1: this thread only */
    /* Directory for the spill files of every valid plan (for a CSV of
     * all plans); NULL: no spill. The files are unlinked at creation. */
    const char *spill_dir;
    /* Called from every sweep thread (so it must be thread-safe) about
     * every 4096 combinations that thread has visited, with how many it
     * visited since its last call (may be NULL). */
    void (*progress)(void *user, uint64_t more);
    void *progress_user;
};

/*
 * Sweeps sf's space with ctx (prepared here for every pipeline layout the
 * space needs, hence not const) into r, which must be zero: enumerated,
 * valid, fitting, rejected, examples, rows, nrows, dropped, family[]
 * (name, plans, fitting, best, lightest, sensitivity) and nfamilies, the
 * [report] settings (sens_*_gbps, headroom_pct, tie_pct, plans_sheet),
 * spill, and the templates (rank_templates). Release with
 * ranking_free(). Returns
 * STATUS_RANGE when the space is too large or no combination is valid (the
 * message says why), STATUS_NOMEM, or STATUS_IO when a spill file cannot be
 * written.
 */
enum status rank_run(struct ranking *r,
                     struct cost_ctx *ctx,
                     const struct sweep_file *sf,
                     const struct rank_options *opt,
                     struct diag *d);

/* ---- What rank hands over besides the rows (rank_finish.c) ---- */

/*
 * After rank_run: every time the later stages show that the rows do not
 * carry, evaluated once here (figures and writers evaluate nothing):
 * rank_finish_families, rank_finish_stages, rank_finish_crossovers,
 * rank_finish_other_best, rank_finish_replays.
 * ctx and other (the other communication model) are prepared here for
 * the plans they evaluate; sf is the sweep rank_run ran (its [report]
 * baseline and layouts). STATUS_NOMEM (or a preparation's status) in d.
 */
enum status rank_finish(struct ranking *r,
                        const struct sweep_file *sf,
                        struct cost_ctx *ctx,
                        struct cost_ctx *other,
                        struct diag *d);

/*
 * The templates of every term a row carries, by key (r->templates): the
 * time terms' and the memory terms' (terms_all, terms_memory) and one
 * collective's link times ("ib_s", "nv_s"), as terms_template gives them,
 * so that the workbook writes its live formulas without an evaluate
 * header (ranking_template finds one). rank_run calls it. STATUS_NOMEM.
 */
enum status rank_templates(struct ranking *r, struct diag *d);

/*
 * The waterfall's replay (replay_fill) of every kept row that can be the
 * recommended plan: the fitting rows within r->tie_pct of the fastest
 * (figures picks among them by free memory), or row 0 when it does not
 * fit, on model m and cluster hw; r->replays[i] is row i's, for i <
 * r->nreplays. STATUS_NOMEM.
 */
enum status rank_finish_replays(struct ranking *r,
                                const struct model *m,
                                const struct hardware *hw,
                                struct diag *d);

/*
 * Predicts each validation run with the inputs it names (in[i], read by
 * validation_load_inputs) into r->validation (validate_predict: with ctx
 * and other when the run uses this report's own files) and ranks the
 * runs on these inputs among r->rows (v->rank). A run whose plan does
 * not apply to its inputs is skipped and a note says why
 * (r->validation_notes). After rank_finish.
 */
enum status rank_finish_validations(struct ranking *r,
                                    const struct validation_run *runs,
                                    const struct validation_inputs *in,
                                    size_t n,
                                    struct cost_ctx *ctx,
                                    struct cost_ctx *other,
                                    struct diag *d);

/*
 * Each kept row's scenarios and range (scenario.h: its expected step,
 * the published runs' band on this report's calibration group, the DP
 * overlaps off, and, for the fitting rows rank_finish_other_best timed,
 * the other communication model), r->band; and each placed validation
 * run's band scenarios, of its own group (validation_band_key: its
 * calibration's group and its stack's family), on ctx's model, cluster
 * and stack.
 * band: the rows' band where the caller has it (compare: eval's, from
 * the data directory's runs), else NULL: from the placed runs on hw's
 * calibration group. rank_finish_validations calls it last (NULL; needs
 * the runs placed). STATUS_NOMEM.
 */
enum status rank_finish_scenarios(struct ranking *r,
                                  const struct cost_ctx *ctx,
                                  const struct validation_band *band,
                                  struct diag *d);

/*
 * Each family's best plan under ctx's communication model and the same
 * plan under `other`'s (best, best_other), with their collectives, and
 * r->families_by_step; a plan fits when it leaves r->headroom_pct of HBM
 * free.
 */
enum status rank_finish_families(struct ranking *r,
                                 struct cost_ctx *ctx,
                                 struct cost_ctx *other,
                                 struct diag *d);

/*
 * For a model whose layers are a pattern (ctx->m's model.pattern), every
 * pipeline rank of each family's best plan (r->stages): its chunks'
 * layers in pattern letters (model_units_pattern) and its memory
 * (cost_rank_memory); nothing for a model of blocks. After
 * rank_finish_families. STATUS_NOMEM.
 */
enum status rank_finish_stages(struct ranking *r,
                               const struct cost_ctx *ctx,
                               struct diag *d);

/*
 * Each family's crossovers on both links (f->cross_ib, f->cross_nv: where
 * its best plan turns compute-bound as the link gets faster, and what
 * binds there) on cluster hw and, when none of the baseline's plans fits
 * (sf's [report] baseline), its fastest plan re-timed on the sensitivity
 * grids (sens_unfit). After rank_finish_families.
 */
void rank_finish_crossovers(struct ranking *r,
                            const struct hardware *hw,
                            const struct sweep_file *sf);

/*
 * The fastest fitting kept plan under the other communication model
 * (r->other_best, r->has_other_best; memory does not depend on the
 * model), other prepared here for every layout of sf.
 */
enum status rank_finish_other_best(struct ranking *r,
                                   const struct sweep_file *sf,
                                   struct cost_ctx *other,
                                   struct diag *d);

/*
 * True when plan a ranks before plan b: fitting first, then the faster
 * step, then by the plan's dimensions in enumeration order.
 */
bool rank_before(bool a_fits,
                 double a_step,
                 const struct plan *a,
                 bool b_fits,
                 double b_step,
                 const struct plan *b);

/* ---- Keeping the Plans sheet's plans (rank_keep.c) ---- */

/*
 * The heap's size for the Plans sheet's plans: the sweep's
 * report.plans_sheet (at least 1). The fitting plans rank first, so the
 * best plans_sheet plans hold every fitting plan the sheet shows.
 */
size_t rank_keep_sheet_top(const struct sweep_file *sf);

/*
 * Adds to r->rows each family's best plan (r->family[i].best) that is not
 * there, as a row after the ranked ones (r->nranked: they rank after the
 * best plans kept, and their rank among all plans is not known), in rank
 * order: with the best
 * report.plans_sheet plans, every row figures_sheet_rows() puts on the
 * Plans sheet. A family's best ranks before its other plans, so it is
 * among the rows when any plan of its family is. Updates r->dropped.
 * STATUS_NOMEM when the rows cannot grow.
 */
enum status rank_keep_family_bests(struct ranking *r, struct diag *d);

/* ---- The spill files (rank_spill.c) ---- */

/*
 * Opens one spill file in directory dir for writing and reading back
 * ("w+b"), already unlinked so that it goes with its last descriptor
 * whatever happens; *out receives it (the caller closes it: ranking_free
 * for r->spill). STATUS_IO with the path in d when dir is too long or
 * not writable.
 */
enum status rank_spill_open(const char *dir, FILE **out, struct diag *d);

/*
 * Appends plan `row` met at enumeration index `index` to spill file f, in
 * enumeration order (row->family: its family key, which the cursor maps
 * through r->family_of_key). False when the write fails.
 */
bool rank_spill_write(FILE *f, const struct ranking_row *row, uint64_t index);

/*
 * Builds the pipeline partitions every pp*vpp of the sweep needs (those
 * with more chunks than layers are skipped: plan_check rejects them).
 */
enum status
rank_prepare(const struct sweep_file *sf, struct cost_ctx *ctx, struct diag *d);

#endif
