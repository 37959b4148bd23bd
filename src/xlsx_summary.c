/*
 * xlsx_summary: the Summary sheet (see xlsx_summary.h). Its columns are
 * those of the family table; the key figures and the paragraphs above it
 * use the same grid (labels under Family, values under the other model's
 * Step, paragraphs merged from Family to Why).
 */
#include "xlsx_summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "eval_out.h"
#include "plans_table.h"
#include "xlsx_table.h"

#define GIB 1073741824.0

/* A little under the width of the columns Family..Why (196 characters),
 * for wrapping the merged paragraphs. */
#define TEXT_WIDTH 190.0

enum col_id {
    S_SWATCH,
    S_FAMILY,
    S_STEP,
    S_BOUND,
    S_RATIO,
    S_STEP_O, /* the other communication model */
    S_BOUND_O,
    S_RATIO_O,
    S_MEM,
    S_FITS,
    S_COUNT,
    S_PLAN,
    S_WHY
};

/* The headers of the six model columns are set when written (they name
 * the models). */
/* clang-format off */
static const struct xlsx_column columns[] = {
    {"swatch", NULL, "", XLSX_FMT_NONE, 0, 2, NULL, S_SWATCH},
    {"family", "Family", "", XLSX_FMT_LABEL, 0, 24, NULL, S_FAMILY},
    {"step", "Step", "s", XLSX_FMT_SEC, 0, 9, NULL, S_STEP},
    {"bound", "Bound", "", XLSX_FMT_TEXT, 0, 8, NULL, S_BOUND},
    {"ratio", "Comm/ compute", "", XLSX_FMT_RAT, 0, 8, NULL, S_RATIO},
    {"step_o", "Step", "s", XLSX_FMT_SEC, 0, 9, NULL, S_STEP_O},
    {"bound_o", "Bound", "", XLSX_FMT_TEXT, 0, 8, NULL, S_BOUND_O},
    {"ratio_o", "Comm/ compute", "", XLSX_FMT_RAT, 0, 8, NULL, S_RATIO_O},
    {"mem", "Memory", "GiB", XLSX_FMT_GIB, 0, 8, NULL, S_MEM},
    {"fits", "Fits", "", XLSX_FMT_OK, 0, 5, NULL, S_FITS},
    {"count", "Fitting / evaluated", "", XLSX_FMT_RIGHT, 0, 11, NULL,
     S_COUNT},
    {"plan", "Best plan", "", XLSX_FMT_SMALL, 0, 34, NULL, S_PLAN},
    {"why", "Why (plain words)", "", XLSX_FMT_SMALL, 0, 64, NULL, S_WHY},
};
/* clang-format on */
#define NCOLS (sizeof columns / sizeof columns[0])

/* Where the key figures go on the same grid. */
#define KV_LABEL "family"
#define KV_VALUE "step_o"
#define KV_NOTE  "bound_o"

/* One family row, prepared before it is written. */
struct fam_row {
    const struct report_family *f;
    char why[900], plan[256], count[80];
    struct lxw_format *swatch;
};

static void text(struct xlsx_value *out, const char *s)
{
    out->kind = XLSX_TEXT;
    out->str = s;
}

static void number(struct xlsx_value *out, double v)
{
    out->kind = XLSX_NUM;
    out->num = v;
}

static void bound(struct xlsx_value *out, int b)
{
    text(out, plans_table_bound_label(b));
    out->fmt = xlsx_book_bound_fmt(b, XLSX_BOUND_TEXT);
}

static void get(const void *item, int id, struct xlsx_value *out)
{
    const struct fam_row *fr = item;
    const struct cost_result *b = &fr->f->best, *o = &fr->f->best_other;
    switch (id) {
    case S_SWATCH:
        text(out, "");
        out->raw = fr->swatch;
        break;
    case S_FAMILY:
        text(out, fr->f->name);
        break;
    case S_STEP:
        number(out, b->t.step);
        break;
    case S_BOUND:
        bound(out, b->t.bound);
        break;
    case S_RATIO:
        number(out, b->t.comm_compute_ratio);
        break;
    case S_STEP_O:
        number(out, o->t.step);
        break;
    case S_BOUND_O:
        bound(out, o->t.bound);
        break;
    case S_RATIO_O:
        number(out, o->t.comm_compute_ratio);
        break;
    case S_MEM:
        number(out, b->mem.total / GIB);
        break;
    case S_FITS:
        text(out, b->fits ? "yes" : "no");
        out->fmt = b->fits ? XLSX_FMT_OK : XLSX_FMT_BAD;
        break;
    case S_COUNT:
        text(out, fr->count);
        break;
    case S_PLAN:
        text(out, fr->plan);
        break;
    default:
        text(out, fr->why);
        break;
    }
}

static const struct xlsx_table table = {columns, NCOLS, XLSX_FMT_HEAD, get};

static size_t col(const char *key)
{
    return xlsx_table_col(&table, key);
}

/* ---- Words ---- */

static const char *schedule_words(int s)
{
    switch (s) {
    case PLAN_INTERLEAVED:
        return "interleaved 1F1B";
    case PLAN_ZB:
        return "zero-bubble (ZB1P)";
    case PLAN_DUALPIPE:
        return "DualPipe";
    default:
        return "1F1B";
    }
}

static const char *recompute_words(int r)
{
    switch (r) {
    case MODEL_RECOMPUTE_SELECTIVE:
        return "selective recomputation";
    case MODEL_RECOMPUTE_FULL:
        return "full recomputation";
    default:
        return "no recomputation";
    }
}

/* A plan in words: "TP 2 x PP 2 (zero-bubble (ZB1P)) x EP 256, ZeRO-1
 * over DP 1024, FP8, no recomputation, micro-batch 1, global batch 15360
 * sequences". */
static void plan_words(const struct plan *p, char *buf, size_t size)
{
    char pp[96] = "", dp[64];
    if (p->pp > 1 && p->schedule == PLAN_INTERLEAVED)
        snprintf(pp, sizeof pp, " x PP %ld (interleaved 1F1B, %ld chunks)",
                 p->pp, p->vpp);
    else if (p->pp > 1)
        snprintf(pp, sizeof pp, " x PP %ld (%s)", p->pp,
                 schedule_words(p->schedule));
    if (p->zero > 0)
        snprintf(dp, sizeof dp, "ZeRO-%ld over DP %ld", p->zero, p->dp);
    else
        snprintf(dp, sizeof dp, "plain DP %ld", p->dp);
    snprintf(buf, size,
             "TP %ld%s x EP %ld%s, %s, %s, %s, micro-batch %ld, global "
             "batch %ld sequences",
             p->tp, pp, p->ep, p->cp > 1 ? " x CP" : "", dp,
             p->precision == MODEL_FP8 ? "FP8" : "BF16",
             recompute_words(p->recompute), p->mbs, p->gbs);
}

/* "TP 2, PP 2 (zb), EP 256, ZeRO-1, FP8, recompute none, mbs 1". */
static void plan_short(const struct plan *p, char *buf, size_t size)
{
    char pp[48] = "", dp[32] = "";
    if (p->pp > 1)
        snprintf(pp, sizeof pp, ", PP %ld (%s)", p->pp,
                 plan_schedule_str(p->schedule));
    if (p->dp > 1 && p->zero > 0)
        snprintf(dp, sizeof dp, ", ZeRO-%ld", p->zero);
    else if (p->dp > 1)
        snprintf(dp, sizeof dp, ", plain DP");
    snprintf(buf, size, "TP %ld%s, EP %ld%s%s, %s, recompute %s, mbs %ld",
             p->tp, pp, p->ep, p->cp > 1 ? ", CP" : "", dp,
             p->precision == MODEL_FP8 ? "FP8" : "BF16",
             plan_recompute_str(p->recompute), p->mbs);
}

/* The plain-words sentence for a family: the verdict under this
 * report's comm model, the other model's when it names another link,
 * and whether the plan fits. */
static void family_why(const struct report *r,
                       const struct report_family *f,
                       char *buf,
                       size_t size)
{
    char v[400], other[200] = "", fit[200] = "";
    eval_out_verdict(&f->best, v, sizeof v);
    if (f->best_other.t.bound != f->best.t.bound)
        snprintf(other, sizeof other, " The %s model says %s-bound (%.2f).",
                 xlsx_book_other_model(r),
                 plans_table_bound_label(f->best_other.t.bound),
                 f->best_other.t.comm_compute_ratio);
    if (!f->best.fits)
        snprintf(fit, sizeof fit,
                 " No plan of this family fits: the fastest needs %.0f GiB "
                 "per GPU.",
                 f->best.mem.total / GIB);
    snprintf(buf, size, "%c%s.%s%s",
             v[0] >= 'a' && v[0] <= 'z' ? (char)(v[0] - 'a' + 'A') : v[0],
             v + 1, other, fit);
}

static const struct report_validation *published(const struct report *r)
{
    size_t i;
    for (i = 0; i < r->nvalidations; i++)
        if (r->validation[i].current)
            return &r->validation[i];
    return NULL;
}

/* ---- Blocks ---- */

/* A label / value / note row of the key figures. */
static void kv(struct xlsx_book *b,
               lxw_worksheet *ws,
               size_t row,
               const char *label,
               double v,
               enum xlsx_fmt f,
               const char *note)
{
    xlsx_book_str(b, ws, row, col(KV_LABEL), label,
                  xlsx_book_fmt(b, XLSX_FMT_LABEL));
    xlsx_book_num(b, ws, row, col(KV_VALUE), v, xlsx_book_fmt(b, f));
    xlsx_book_str(b, ws, row, col(KV_NOTE), note,
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
}

/* A wrapped paragraph over the sheet's width, its row made tall enough. */
static void paragraph(struct xlsx_book *b,
                      lxw_worksheet *ws,
                      size_t row,
                      const char *text_,
                      enum xlsx_fmt f,
                      double pt)
{
    xlsx_book_merge(b, ws, row, col("family"), NCOLS - 1, text_,
                    xlsx_book_fmt(b, f));
    xlsx_book_height(b, ws, row,
                     xlsx_book_text_height(strlen(text_), TEXT_WIDTH, pt));
}

/* The verdict in words. */
static size_t verdict(struct xlsx_book *b,
                      lxw_worksheet *ws,
                      size_t row,
                      const struct report_family *bf)
{
    const struct report *r = b->r;
    const struct cost_result *c = &bf->best;
    char words[400], v[400], text_[1600], t1[48], t2[48];
    double gpus = (double)c->plan.gpus, gpu_hours = c->t.days * 24 * gpus;
    plan_words(&c->plan, words, sizeof words);
    eval_out_verdict(c, v, sizeof v);
    xlsx_book_thousands(c->t.tokens_per_s_per_gpu, t1, sizeof t1);
    xlsx_book_thousands(gpu_hours, t2, sizeof t2);
    if (c->fits)
        snprintf(text_, sizeof text_,
                 "Best plan: %s - %s. It is %s. At the speed of light it "
                 "takes %.2f s per step: %s tokens/s per GPU, MFU %.0f%% of "
                 "the BF16 peak; the %.1fT-token budget takes %.1f days on "
                 "%.0f GPUs (%s GPU-hours, $%.2fM).",
                 bf->name, words, v, c->t.step, t1, 100 * c->t.mfu,
                 r->m->spec.tokens / 1e12, c->t.days, gpus, t2,
                 c->t.cost_usd / 1e6);
    else
        snprintf(text_, sizeof text_,
                 "No plan fits in %.1f GiB per GPU. The fastest, %s (%s), "
                 "needs %.0f GiB; it is %s.",
                 c->mem.capacity / GIB, bf->name, words, c->mem.total / GIB, v);
    paragraph(b, ws, row, text_, XLSX_FMT_HEADLINE, 12);
    return row + 1;
}

static size_t key_figures(struct xlsx_book *b,
                          lxw_worksheet *ws,
                          size_t row,
                          const struct cost_result *c)
{
    const struct report *r = b->r;
    double gpus = (double)c->plan.gpus, gpu_hours = c->t.days * 24 * gpus;
    char note[160];
    xlsx_book_strf(b, ws, row++, col("family"), xlsx_book_fmt(b, XLSX_FMT_H2),
                   "Best plan, key figures (%s model)",
                   comm_model_str(r->comm));
    kv(b, ws, row++, "Step time (s)", c->t.step, XLSX_FMT_SEC,
       "pipeline bubble + optimizer step + the busiest of compute, IB, "
       "NVLink, HBM (overlapped)");
    kv(b, ws, row++, "Tokens/s per GPU", c->t.tokens_per_s_per_gpu,
       XLSX_FMT_CNT, "");
    kv(b, ws, row++, "MFU", c->t.mfu, XLSX_FMT_PCT,
       "model FLOPs over each precision's own peak (FP8 GEMMs at the FP8 "
       "peak, the rest at BF16's): at most 100%");
    kv(b, ws, row++, "MFU, of the BF16 peak (DeepSeek's convention)",
       c->t.mfu_bf16_peak, XLSX_FMT_PCT,
       "model FLOPs / (step x BF16 dense peak), as DeepSeek reports it: an "
       "FP8 plan can exceed 100%");
    snprintf(note, sizeof note,
             "the model's budget of %.1fT tokens on %.0f GPUs",
             r->m->spec.tokens / 1e12, gpus);
    kv(b, ws, row++, "Days for the token budget", c->t.days, XLSX_FMT_DAYS,
       note);
    kv(b, ws, row++, "GPU-hours for the budget", gpu_hours, XLSX_FMT_CNT, "");
    snprintf(note, sizeof note, "at $%.2f per GPU-hour",
             r->hw->spec.gpu_hour_usd);
    kv(b, ws, row++, "Cost for the budget", c->t.cost_usd, XLSX_FMT_USD_M,
       note);
    kv(b, ws, row++, "GPU-hours per 1T tokens", c->t.gpu_hours_per_trillion,
       XLSX_FMT_CNT, "");
    snprintf(note, sizeof note, "heaviest pipeline rank, of %.1f GiB per GPU",
             c->mem.capacity / GIB);
    kv(b, ws, row++, "Memory per GPU (GiB)", c->mem.total / GIB, XLSX_FMT_GIB,
       note);
    return row;
}

/* The verdict and the best plan's key figures; returns the next row. */
static size_t headline(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct report *r = b->r;
    const struct report_family *bf =
        r->nfamilies ? &r->family[r->families_by_step[0]] : NULL;
    xlsx_book_str(b, ws, row++, col("family"), "Verdict",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    if (!bf) {
        xlsx_book_str(b, ws, row++, col("family"), "No plan was evaluated.",
                      xlsx_book_fmt(b, XLSX_FMT_HEADLINE));
        return row;
    }
    row = verdict(b, ws, row, bf) + 1;
    return key_figures(b, ws, row, &bf->best) + 1;
}

/* "ZeRO-3 (FSDP) would turn compute-bound with ...". */
static void zero3_note(const struct report *r,
                       const struct report_family *f,
                       char *buf,
                       size_t size)
{
    char ib[120], nv[120];
    const struct hardware_spec *s = &r->hw->spec;
    if (f->ib_crossover_gbps < 0)
        snprintf(ib, sizeof ib,
                 "no IB bandwidth would do (latency alone exceeds compute)");
    else if (f->ib_crossover_gbps == 0)
        snprintf(ib, sizeof ib, "IB already keeps up");
    else
        snprintf(ib, sizeof ib, "IB at %.0f GB/s per GPU (now %g)",
                 f->ib_crossover_gbps, s->ib_gbps);
    if (f->nv_crossover_gbps < 0)
        snprintf(nv, sizeof nv, "no NVLink bandwidth would do");
    else if (f->nv_crossover_gbps == 0)
        snprintf(nv, sizeof nv, "NVLink already keeps up");
    else
        snprintf(nv, sizeof nv, "NVLink at %.0f GB/s (now %g)",
                 f->nv_crossover_gbps, s->nvlink_gbps);
    snprintf(buf, size,
             "ZeRO-3 (FSDP) would turn compute-bound with %s and %s; its "
             "best plan is %s-bound now, comm/compute %.2f (see "
             "Sensitivity).",
             ib, nv, plans_table_bound_label(f->best.t.bound),
             f->best.t.comm_compute_ratio);
}

static size_t notes(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct report *r = b->r;
    const struct report_validation *v = published(r);
    long z3 = report_family_index(r, "ZeRO-3");
    char a[32], b2[32], c[32], d[32], text_[1200];
    uint64_t rejected =
        r->enumerated >= r->valid ? r->enumerated - r->valid : 0;

    xlsx_book_str(b, ws, row++, col("family"), "Notes",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    if (v) {
        char words[400];
        plan_words(&v->plan, words, sizeof words);
        xlsx_book_thousands((double)r->nrows, b2, sizeof b2);
        if (v->rank > 0)
            snprintf(text_, sizeof text_,
                     "The published plan (%s: %s) ranks %ld of %s: "
                     "predicted %.3f s per step, %s-bound, %s.",
                     v->name, words, v->rank, b2, v->predicted.t.step,
                     plans_table_bound_label(v->predicted.t.bound),
                     v->predicted.fits ? "fits in memory"
                                       : "does not fit in memory");
        else
            snprintf(text_, sizeof text_,
                     "The published plan (%s: %s) is not among the plans "
                     "kept here; predicted %.3f s per step, %s-bound.",
                     v->name, words, v->predicted.t.step,
                     plans_table_bound_label(v->predicted.t.bound));
        paragraph(b, ws, row++, text_, XLSX_FMT_WRAP, 11);
    }
    if (z3 >= 0) {
        zero3_note(r, &r->family[z3], text_, sizeof text_);
        paragraph(b, ws, row++, text_, XLSX_FMT_WRAP, 11);
    }
    xlsx_book_thousands((double)r->enumerated, a, sizeof a);
    xlsx_book_thousands((double)r->valid, b2, sizeof b2);
    xlsx_book_thousands((double)r->fitting, c, sizeof c);
    xlsx_book_thousands((double)rejected, d, sizeof d);
    snprintf(text_, sizeof text_,
             "Sweep: %s combinations, %s valid plans evaluated (%s fit in "
             "memory), %s rejected (see Rejected).",
             a, b2, c, d);
    paragraph(b, ws, row++, text_, XLSX_FMT_WRAP, 11);
    if (r->dropped > 0) {
        xlsx_book_thousands((double)r->dropped, a, sizeof a);
        xlsx_book_thousands((double)r->nrows, b2, sizeof b2);
        snprintf(text_, sizeof text_,
                 "%s valid plans were left out of Plans, which keeps the "
                 "best %s (Excel's row limit or --top).",
                 a, b2);
        paragraph(b, ws, row++, text_, XLSX_FMT_WARN, 11);
    }
    paragraph(b, ws, row++,
              b->big ? "Figures on this sheet are as computed by roofplan. "
                       "With this many plans, Plans holds their first 20 "
                       "columns as values (no live formulas) and an "
                       "autofilter; plans.csv (--csv) has every column."
                     : "Figures on this sheet are as computed by roofplan. "
                       "The Plans sheet re-times every plan live when an "
                       "input on Assumptions changes (e.g. IB_GBPS).",
              XLSX_FMT_NOTE, 11);
    return row + 1;
}

/* The family table, fastest family first. */
static size_t families(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct report *r = b->r;
    const char *cm = comm_model_str(r->comm), *co = xlsx_book_other_model(r);
    struct xlsx_column cols[NCOLS];
    struct xlsx_table t = table;
    char h[6][64];
    static const int model_col[6] = {S_STEP,   S_BOUND,   S_RATIO,
                                     S_STEP_O, S_BOUND_O, S_RATIO_O};
    struct fam_row fr;
    size_t i, k;

    memcpy(cols, columns, sizeof cols);
    for (k = 0; k < 6; k++) { /* "Step, topo (s)", "Bound, flat" */
        snprintf(h[k], sizeof h[k], "%s, %s", columns[model_col[k]].header,
                 k < 3 ? cm : co);
        cols[model_col[k]].header = h[k];
    }
    t.col = cols;
    xlsx_book_str(b, ws, row++, col("family"),
                  "Best plan per family (the fastest that fits, else the "
                  "fastest), fastest first",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_table_header(b, ws, &t, row);
    xlsx_book_height(b, ws, row++, 44);
    for (i = 0; i < r->nfamilies; i++) {
        size_t fi = (size_t)r->families_by_step[i];
        char a[32], b2[32];
        fr.f = &r->family[fi];
        fr.swatch = xlsx_book_fill(b, report_family_color(r, fi));
        family_why(r, fr.f, fr.why, sizeof fr.why);
        plan_short(&fr.f->best.plan, fr.plan, sizeof fr.plan);
        xlsx_book_thousands((double)fr.f->fitting, a, sizeof a);
        xlsx_book_thousands((double)fr.f->plans, b2, sizeof b2);
        snprintf(fr.count, sizeof fr.count, "%s / %s", a, b2);
        xlsx_table_row(b, ws, &t, row, &fr);
        xlsx_book_height(
            b, ws, row,
            fmax(xlsx_book_text_height(strlen(fr.why), columns[S_WHY].width, 9),
                 xlsx_book_text_height(strlen(fr.plan), columns[S_PLAN].width,
                                       9)));
        row++;
    }
    xlsx_book_merge(b, ws, row++, col("family"), NCOLS - 1,
                    "Bound: the resource whose time sets the overlapped step. "
                    "Comm/compute: the busiest link's time over the compute "
                    "time (below 1, communication can hide under compute).",
                    xlsx_book_fmt(b, XLSX_FMT_NOTE));
    return row + 1;
}

void xlsx_summary_write(struct xlsx_book *b,
                        lxw_worksheet *ws,
                        const char *step_png)
{
    const struct report *r = b->r;
    char when[64];
    size_t row = 0, k;

    worksheet_set_tab_color(ws, XLSX_COLOR_SECTION);
    xlsx_book_page(ws, true);
    for (k = 0; k < NCOLS; k++) /* one range each: the layout's grid */
        xlsx_book_width(b, ws, k, k, columns[k].width);
    xlsx_book_when(r, when, sizeof when);
    xlsx_book_strf(b, ws, row++, col("family"),
                   xlsx_book_fmt(b, XLSX_FMT_TITLE),
                   "Parallelism plan for %s on %ld x %s", r->m->spec.name,
                   r->hw->spec.gpus, r->hw->spec.gpu_name);
    xlsx_book_strf(
        b, ws, row++, col("family"), xlsx_book_fmt(b, XLSX_FMT_SUBTITLE),
        "%s; %s communication model (also shown: %s); roofplan %s, %s",
        r->hw->spec.cluster_name, comm_model_str(r->comm),
        xlsx_book_other_model(r), r->version, when);
    row++;
    row = headline(b, ws, row);
    row = notes(b, ws, row);
    row = families(b, ws, row);
    if (step_png) {
        lxw_image_options io;
        memset(&io, 0, sizeof io);
        io.x_scale = io.y_scale = 0.8;
        io.description = "Step-time breakdown per family";
        xlsx_book_str(b, ws, row++, col("family"), "Step time per family",
                      xlsx_book_fmt(b, XLSX_FMT_H2));
        xlsx_book_check(b,
                        worksheet_insert_image_opt(ws, (lxw_row_t)row,
                                                   (lxw_col_t)col("family"),
                                                   step_png, &io),
                        "worksheet_insert_image (step breakdown)");
    }
    worksheet_activate(ws);
}
