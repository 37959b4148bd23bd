/*
 * xlsx_memory: the Memory sheet (see xlsx_memory.h): two column tables
 * on one grid of columns, whose widths the wider (the inventory) sets.
 * The memory table's keys are the Plans table's, so the registry's
 * memory templates (terms_memory) compile on both.
 */
#include "xlsx_memory.h"

#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "terms_memory.h"
#include "xlsx_table.h"

#define GIB 1073741824.0

/* ---- Memory per GPU ---- */

enum mem_id {
    M_PLAN,
    M_WEIGHTS,
    M_GRADS,
    M_OPT,
    M_ACT,
    M_LOGITS,
    M_OTHER,
    M_TOTAL,
    M_CAPACITY,
    M_USABLE,
    M_HEADROOM,
    M_FITS,
    M_RANK
};

/* Total sums the parts memory_view() adds: the logits are already inside
 * the activations (memory.c adds them there), so "of which logits" is
 * shown but not summed again. Other, total, free memory and fit are the
 * registry's templates (as the ranking carries them: ranking_template),
 * set by the getter. */
/* clang-format off */
static const struct xlsx_column mem_cols[] = {
    {.key = "plan", .header = "Plan", .fmt = XLSX_FMT_TEXT, .width = 0, .id = M_PLAN},
    {.key = "mem_weights", .header = "Weights", .unit = "GiB", .fmt = XLSX_FMT_GIB, .width = 0, .id = M_WEIGHTS},
    {.key = "mem_grads", .header = "Gradients", .unit = "GiB", .fmt = XLSX_FMT_GIB, .width = 0, .id = M_GRADS},
    {.key = "mem_opt", .header = "Optimizer state", .unit = "GiB", .fmt = XLSX_FMT_GIB, .width = 0, .id = M_OPT},
    {.key = "mem_act", .header = "Activations", .unit = "GiB", .fmt = XLSX_FMT_GIB, .width = 0, .id = M_ACT},
    {.key = "logits", .header = "of which logits", .unit = "GiB", .fmt = XLSX_FMT_GIB, .width = 0, .id = M_LOGITS},
    {.key = "mem_other", .header = "Other", .unit = "GiB", .fmt = XLSX_FMT_GIB, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 0, .id = M_OTHER},
    {.key = "mem_total", .header = "Total", .unit = "GiB", .fmt = XLSX_FMT_GIB, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 0, .id = M_TOTAL},
    {.key = "capacity", .header = "Capacity", .unit = "GiB", .fmt = XLSX_FMT_GIB, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 0, .formula = "HBM_GIB", .id = M_CAPACITY},
    {.key = "usable", .header = "A plan may use", .unit = "GiB", .fmt = XLSX_FMT_GIB, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 0, .formula = "HBM_GIB*(1-HEADROOM_PCT/100)", .id = M_USABLE},
    {.key = "headroom", .header = "Free", .unit = "GiB", .fmt = XLSX_FMT_GIB, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 0, .id = M_HEADROOM},
    {.key = "fits", .header = "Fits", .fmt = XLSX_FMT_FITS, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 0, .id = M_FITS},
    {.key = "rank", .header = "Heaviest PP rank", .fmt = XLSX_FMT_INT, .width = 0, .id = M_RANK},
};
/* clang-format on */

/* A row: a plan's memory under a label. */
struct mem_row {
    const char *label;
    bool published; /* the published plan's row: a bold label */
    const struct cost_result *c;
    const struct ranking *rank; /* the headroom and the templates */
};

static void mem_get(const void *item, int id, struct xlsx_value *out)
{
    const struct mem_row *r = item;
    const struct memory *m = &r->c->mem;
    switch (id) {
    case M_PLAN:
        xlsx_value_text(out, r->label);
        if (r->published)
            out->fmt = XLSX_FMT_LABEL;
        break;
    case M_WEIGHTS:
        xlsx_value_num(out, m->weights / GIB);
        break;
    case M_GRADS:
        xlsx_value_num(out, m->grads / GIB);
        break;
    case M_OPT:
        xlsx_value_num(out, m->optimizer / GIB);
        break;
    case M_ACT:
        xlsx_value_num(out, m->activations / GIB);
        break;
    case M_LOGITS:
        xlsx_value_num(out, m->logits / GIB);
        break;
    case M_OTHER:
        xlsx_value_num(out, m->other / GIB);
        out->formula = ranking_template(r->rank, "mem_other");
        break;
    case M_TOTAL:
        xlsx_value_num(out, m->total / GIB);
        out->formula = ranking_template(r->rank, "mem_total");
        break;
    case M_CAPACITY:
        xlsx_value_num(out, m->capacity / GIB);
        break;
    case M_USABLE:
        xlsx_value_num(
            out, terms_mem_usable(m->capacity, r->rank->headroom_pct) / GIB);
        break;
    case M_HEADROOM:
        xlsx_value_num(out, terms_mem_headroom(m) / GIB);
        out->formula = ranking_template(r->rank, "headroom");
        break;
    case M_FITS:
        out->kind = XLSX_BOOL;
        out->flag = r->c->fits;
        out->formula = ranking_template(r->rank, "fits");
        break;
    default:
        xlsx_value_num(out, (double)m->rank);
        break;
    }
}

static const struct xlsx_table mem_table = {
    mem_cols, sizeof mem_cols / sizeof mem_cols[0], XLSX_FMT_HEAD, mem_get};

/* ---- Layers per pipeline rank (a patterned model) ---- */

enum stage_id { S_PLAN, S_RANK, S_TOTAL, S_ACT, S_LAYERS };

/* One row per pipeline rank of each family's best plan: the columns sit
 * on the inventory's grid (Tensor, then 11-character columns), the
 * layers last, where their text may run on to the right. */
/* clang-format off */
static const struct xlsx_column stage_cols[] = {
    {.key = "plan", .header = "Plan", .fmt = XLSX_FMT_TEXT, .width = 0, .id = S_PLAN},
    {.key = "rank", .header = "PP rank", .fmt = XLSX_FMT_INT, .width = 0, .id = S_RANK},
    {.key = "mem_total", .header = "Total", .unit = "GiB", .fmt = XLSX_FMT_GIB, .width = 0, .id = S_TOTAL},
    {.key = "mem_act", .header = "Activations", .unit = "GiB", .fmt = XLSX_FMT_GIB, .width = 0, .id = S_ACT},
    {.key = "layers", .header = "Layers (model.pattern letters; chunks | )", .fmt = XLSX_FMT_TEXT, .width = 0, .id = S_LAYERS},
};
/* clang-format on */

struct stage_row {
    const struct ranking *rank;
    const struct ranking_stage *st;
};

static void stage_get(const void *item, int id, struct xlsx_value *out)
{
    const struct stage_row *r = item;
    const struct ranking_stage *st = r->st;
    switch (id) {
    case S_PLAN:
        xlsx_value_text(out, r->rank->family[st->family].name);
        break;
    case S_RANK:
        xlsx_value_num(out, (double)st->rank);
        break;
    case S_TOTAL:
        xlsx_value_num(out, st->mem_total / GIB);
        break;
    case S_ACT:
        xlsx_value_num(out, st->mem_act / GIB);
        break;
    default:
        xlsx_value_text(out, st->layers ? st->layers : "?");
        break;
    }
}

static const struct xlsx_table stage_table = {
    stage_cols, sizeof stage_cols / sizeof stage_cols[0], XLSX_FMT_HEAD,
    stage_get};

/* The stage rows, families fastest first as in the memory table, after
 * a heading; nothing for a model of blocks (ranking.stages empty).
 * Returns the next row. */
static size_t stage_rows(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct ranking *rk = b->r->rank;
    size_t i, k, at = xlsx_table_col(&stage_table, "plan");
    if (rk->nstages == 0)
        return row;
    xlsx_book_str(b, ws, row++, at,
                  "Layers of each pipeline rank (model.pattern)",
                  xlsx_book_fmt(b, XLSX_FMT_H2));
    xlsx_book_str(b, ws, row++, at,
                  "Each family's best plan, rank by rank: the layers its "
                  "pipeline chunks hold, two letters a layer (mixer, MLP), "
                  "and its memory.",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    xlsx_table_header(b, ws, &stage_table, row);
    xlsx_book_height(b, ws, row++, 32);
    for (i = 0; i < rk->nfamilies; i++) {
        size_t f = (size_t)rk->families_by_step[i];
        for (k = 0; k < rk->nstages; k++) {
            struct stage_row sr = {rk, &rk->stages[k]};
            if (rk->stages[k].family == f)
                xlsx_table_row(b, ws, &stage_table, row++, &sr);
        }
    }
    return row + 1;
}

/* ---- Activation inventory ---- */

enum inv_id {
    I_TENSOR,
    I_DENSE,
    I_MOE,
    I_ELEMS,
    I_ROUTED,
    I_STORAGE,
    I_TAG,
    I_BF16,
    I_FP8,
    I_POLICY /* + precision x MODEL_RECOMPUTES + recompute */
};

_Static_assert(MODEL_PRECISIONS == 2 && MODEL_RECOMPUTES == 3,
               "one inventory column per precision and recompute policy");

/* clang-format off */
static const struct xlsx_column inv_cols[] = {
    {.key = "tensor", .header = "Tensor", .fmt = XLSX_FMT_TEXT, .width = 46, .id = I_TENSOR},
    {.key = "dense", .header = "Dense layers", .fmt = XLSX_FMT_TEXT, .width = 11, .id = I_DENSE},
    {.key = "moe", .header = "MoE layers", .fmt = XLSX_FMT_TEXT, .width = 11, .id = I_MOE},
    {.key = "elems", .header = "Elements per token", .fmt = XLSX_FMT_CNT, .width = 11, .id = I_ELEMS},
    {.key = "routed", .header = "Routed (x top-k)", .fmt = XLSX_FMT_TEXT, .width = 11, .id = I_ROUTED},
    {.key = "storage", .header = "Storage", .fmt = XLSX_FMT_TEXT, .width = 24, .id = I_STORAGE},
    {.key = "tag", .header = "Tag", .fmt = XLSX_FMT_TEXT, .width = 18, .id = I_TAG},
    {.key = "bytes_bf16", .header = "Bytes/token BF16", .fmt = XLSX_FMT_CNT, .width = 11, .id = I_BF16},
    {.key = "bytes_fp8", .header = "Bytes/token FP8", .fmt = XLSX_FMT_CNT, .width = 11, .id = I_FP8},
    {.key = "bf16_none", .header = "BF16 none", .fmt = XLSX_FMT_TEXT, .width = 11, .id = I_POLICY},
    {.key = "bf16_selective", .header = "BF16 selective", .fmt = XLSX_FMT_TEXT, .width = 11, .id = I_POLICY + 1},
    {.key = "bf16_full", .header = "BF16 full", .fmt = XLSX_FMT_TEXT, .width = 11, .id = I_POLICY + 2},
    {.key = "fp8_none", .header = "FP8 none", .fmt = XLSX_FMT_TEXT, .width = 11, .id = I_POLICY + 3},
    {.key = "fp8_selective", .header = "FP8 selective", .fmt = XLSX_FMT_TEXT, .width = 11, .id = I_POLICY + 4},
    {.key = "fp8_full", .header = "FP8 full", .fmt = XLSX_FMT_TEXT, .width = 11, .id = I_POLICY + 5},
};
/* clang-format on */

/* A row: one tensor, or (tensor NULL) the total of one kind of layer. */
struct inv_row {
    const struct model *m;
    const struct model_tensor *t;
    enum model_layer_kind kind; /* for a total */
};

static const char *dtype_name(int dt)
{
    switch (dt) {
    case MODEL_DT_FP32:
        return "FP32";
    case MODEL_DT_MASK:
        return "mask (1 byte)";
    case MODEL_DT_LIN_IN:
        return "Linear input (FP8-cached)";
    case MODEL_DT_SWIGLU_IN:
        return "SwiGLU input (FP8-cached)";
    case MODEL_DT_ATTN_OUT:
        return "attention output";
    default:
        return "activation dtype";
    }
}

static const char *tag_name(int tag)
{
    static const char *const names[] = {"layer input",
                                        "kept",
                                        "norm output",
                                        "MLA up-projection",
                                        "attention core (s x s)",
                                        "SwiGLU output"};
    return tag >= 0 && tag < MODEL_TAGS ? names[tag] : "?";
}

static const char *yes(bool v)
{
    return v ? "yes" : "-";
}

/* The saved bytes per token of one kind of layer, per policy. */
static void total_get(const struct inv_row *r, int id, struct xlsx_value *out)
{
    if (id == I_TENSOR) {
        snprintf(out->buf, sizeof out->buf, "Saved bytes/token, %s",
                 model_layer_kind_name(r->m, r->kind));
        xlsx_value_text(out, out->buf);
        out->fmt = XLSX_FMT_BOLD;
    } else if (id >= I_POLICY) {
        int p = (id - I_POLICY) / MODEL_RECOMPUTES;
        int rc = (id - I_POLICY) % MODEL_RECOMPUTES;
        xlsx_value_num(out, r->m->layer[r->kind].act_bytes[p][rc]);
        out->fmt = XLSX_FMT_CNT;
    }
}

static void inv_get(const void *item, int id, struct xlsx_value *out)
{
    const struct inv_row *r = item;
    const struct model_tensor *t = r->t;
    if (!t) {
        total_get(r, id, out);
        return;
    }
    switch (id) {
    case I_TENSOR:
        xlsx_value_text(out, t->name ? t->name : "?");
        break;
    case I_DENSE:
        xlsx_value_text(out, yes(t->kinds & (1u << MODEL_LAYER_DENSE)));
        break;
    case I_MOE:
        xlsx_value_text(out, yes(t->kinds & (1u << MODEL_LAYER_MOE)));
        break;
    case I_ELEMS:
        xlsx_value_num(out, t->elems);
        break;
    case I_ROUTED:
        xlsx_value_text(out, yes(t->routed));
        break;
    case I_STORAGE:
        xlsx_value_text(out, dtype_name(t->dtype));
        break;
    case I_TAG:
        xlsx_value_text(out, tag_name(t->tag));
        break;
    case I_BF16:
        xlsx_value_num(out, model_tensor_bytes(r->m, t, MODEL_BF16));
        break;
    case I_FP8:
        xlsx_value_num(out, model_tensor_bytes(r->m, t, MODEL_FP8));
        break;
    default:
        xlsx_value_text(
            out, model_tensor_kept(r->m, t, (id - I_POLICY) / MODEL_RECOMPUTES,
                                   (id - I_POLICY) % MODEL_RECOMPUTES)
                     ? "kept"
                     : "recomputed");
        break;
    }
}

static const struct xlsx_table inv_table = {
    inv_cols, sizeof inv_cols / sizeof inv_cols[0], XLSX_FMT_HEAD, inv_get};

/* ---- The sheet ---- */

/* A conditional format over rows first..last of columns c0..c1. */
static void cond(struct xlsx_book *b,
                 lxw_worksheet *ws,
                 size_t first,
                 size_t last,
                 size_t c0,
                 size_t c1,
                 lxw_conditional_format *cf,
                 const char *what)
{
    if (last >= LXW_ROW_MAX || c1 >= LXW_COL_MAX) {
        xlsx_book_invalid(b, what);
        return;
    }
    xlsx_book_check(
        b,
        worksheet_conditional_format_range(ws, (lxw_row_t)first, (lxw_col_t)c0,
                                           (lxw_row_t)last, (lxw_col_t)c1, cf),
        what);
}

/* The memory rows: the published plan, then each family's best. */
static size_t memory_rows(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct views *r = b->r;
    size_t i, first = row;
    lxw_conditional_format cf;
    for (i = 0; i < r->rank->nvalidations; i++) {
        const struct validate_result *v = &r->rank->validation[i];
        char label[200];
        struct mem_row mr = {label, true, &v->predicted, r->rank};
        if (!v->current)
            continue;
        diag_snprintf(label, sizeof label, "Published: %s (%s)", v->name,
                      v->predicted.family);
        xlsx_table_row(b, ws, &mem_table, row++, &mr);
    }
    for (i = 0; i < r->rank->nfamilies; i++) {
        const struct ranking_family *f =
            &r->rank->family[r->rank->families_by_step[i]];
        struct mem_row mr = {f->name, false, &f->best, r->rank};
        xlsx_table_row(b, ws, &mem_table, row++, &mr);
    }
    if (row == first)
        return row;
    memset(&cf, 0, sizeof cf);
    cf.type = LXW_CONDITIONAL_TYPE_CELL;
    cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
    cf.value_string = "0"; /* 1 / 0 formulas, shown TRUE / FALSE */
    cf.format = xlsx_book_fmt(b, XLSX_FMT_CF_RED);
    i = xlsx_table_col(&mem_table, "fits");
    cond(b, ws, first, row - 1, i, i, &cf,
         "worksheet_conditional_format_range (memory)");
    /* the bar's full length is the HBM capacity, so the plans that fit
     * show theirs (a plan of 9,000 GiB would otherwise set the scale) */
    memset(&cf, 0, sizeof cf);
    cf.type = LXW_CONDITIONAL_DATA_BAR;
    cf.bar_color = 0x9BC2E6;
    cf.bar_solid = 1;
    cf.min_rule_type = LXW_CONDITIONAL_RULE_TYPE_NUMBER;
    cf.min_value = 0;
    cf.max_rule_type = LXW_CONDITIONAL_RULE_TYPE_FORMULA;
    cf.max_value_string = (char *)"=HBM_GIB";
    i = xlsx_table_col(&mem_table, "mem_total");
    cond(b, ws, first, row - 1, i, i, &cf,
         "worksheet_conditional_format_range (memory bar)");
    return row;
}

/* The inventory rows, then the totals of each kind of layer present;
 * returns the next row. */
static size_t inventory_rows(struct xlsx_book *b, lxw_worksheet *ws, size_t row)
{
    const struct model *m = b->r->in->m;
    size_t i, first = row;
    size_t p0 = xlsx_table_col(&inv_table, "bf16_none");
    size_t p1 = xlsx_table_col(&inv_table, "fp8_full");
    struct inv_row ir = {m, NULL, 0};
    lxw_conditional_format cf;
    for (i = 0; i < m->tensors; i++) {
        ir.t = &m->tensor[i];
        xlsx_table_row(b, ws, &inv_table, row++, &ir);
    }
    if (row > first) {
        memset(&cf, 0, sizeof cf);
        cf.type = LXW_CONDITIONAL_TYPE_CELL;
        cf.criteria = LXW_CONDITIONAL_CRITERIA_EQUAL_TO;
        cf.value_string = "\"recomputed\"";
        cf.format = xlsx_book_fmt(b, XLSX_FMT_CF_DROPPED);
        cond(b, ws, first, row - 1, p0, p1, &cf,
             "worksheet_conditional_format_range (inventory)");
        cf.value_string = "\"kept\"";
        cf.format = xlsx_book_fmt(b, XLSX_FMT_CF_KEPT);
        cond(b, ws, first, row - 1, p0, p1, &cf,
             "worksheet_conditional_format_range (inventory)");
    }
    ir.t = NULL;
    for (ir.kind = 0; ir.kind < MODEL_LAYER_KINDS; ir.kind++)
        if (model_layer_kind_count(m, ir.kind) > 0)
            xlsx_table_row(b, ws, &inv_table, row++, &ir);
    return row;
}

void xlsx_memory_write(struct xlsx_book *b,
                       lxw_worksheet *ws,
                       const char *memory_png)
{
    size_t row = 0, at = xlsx_table_col(&mem_table, "plan");

    xlsx_book_page(b, ws, XLSX_PAGE_TABLE);
    xlsx_table_widths(b, ws, &inv_table); /* the wider of the two */
    xlsx_book_str(b, ws, row++, at, "Memory per GPU",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_strf(b, ws, row++, at, xlsx_book_fmt(b, XLSX_FMT_NOTE),
                   "Heaviest pipeline rank of each family's best plan and of "
                   "the published plan. Blue headers are formulas over "
                   "Assumptions (CUDA_CONTEXT_GIB, NCCL_BUFFERS_GIB, "
                   "FRAGMENTATION_PCT, HBM_GIB, HEADROOM_PCT): a plan fits "
                   "when it leaves %g%% of HBM free.",
                   b->r->rank->headroom_pct);
    row++;
    xlsx_table_header(b, ws, &mem_table, row);
    xlsx_book_height(b, ws, row++, 32);
    row = memory_rows(b, ws, row) + 2;
    row = stage_rows(b, ws, row);

    xlsx_book_strf(b, ws, row++, at, xlsx_book_fmt(b, XLSX_FMT_H2),
                   "Activation inventory of %s: what one layer saves for "
                   "backward, per token",
                   b->r->in->m->spec.name);
    xlsx_book_str(b, ws, row++, at,
                  "Kept or recomputed under each precision and recompute "
                  "policy (selective drops the tags listed in the model "
                  "file's training.selective).",
                  xlsx_book_fmt(b, XLSX_FMT_NOTE));
    xlsx_table_header(b, ws, &inv_table, row);
    xlsx_book_height(b, ws, row++, 32);
    row = inventory_rows(b, ws, row) + 1;
    xlsx_book_print_area(b, ws, 0, row, inv_table.ncols - 1);
    if (memory_png) {
        lxw_image_options io;
        memset(&io, 0, sizeof io);
        io.x_scale = io.y_scale = 0.6;
        io.description = "Memory per GPU, best plan of each family";
        xlsx_book_strf(b, ws, row++, at, xlsx_book_fmt(b, XLSX_FMT_H2),
                       "Memory per GPU (chart at the inputs of %s)",
                       b->r->when);
        xlsx_book_check(b,
                        worksheet_insert_image_opt(
                            ws, (lxw_row_t)row, (lxw_col_t)at, memory_png, &io),
                        "worksheet_insert_image (memory)");
    }
}
