/*
 * xlsx_comm: the Communication sheet (see xlsx_comm.h), one column table
 * under an autofilter, with a subtotal row after each plan's collectives
 * under each model.
 */
#include "xlsx_comm.h"

#include <stdio.h>
#include <string.h>

#include <xlsxwriter.h>

#include "collectives.h"
#include "xlsx_table.h"

enum col_id {
    K_FAMILY,
    K_MODEL,
    K_NAME,
    K_KIND,
    K_GROUP,
    K_PER_NODE,
    K_NODES,
    K_CALLS,
    K_GB,
    K_IB_GB,
    K_NV_GB,
    K_ALGO,
    K_SHARE,
    K_IB_STEPS,
    K_IB_NET_STEPS,
    K_NV_STEPS,
    K_IB_S,
    K_NV_S
};

/* The times are the registry's templates ("ib_s", "nv_s": TERMS_IB_TIME,
 * TERMS_NVLINK_TIME, as the ranking carries them: ranking_template), set
 * by the getter. */
/* clang-format off */
static const struct xlsx_column columns[] = {
    {.key = "family", .header = "Family", .fmt = XLSX_FMT_TEXT, .width = 17, .id = K_FAMILY},
    {.key = "model", .header = "Comm model", .fmt = XLSX_FMT_TEXT, .width = 8, .id = K_MODEL},
    {.key = "name", .header = "Collective", .fmt = XLSX_FMT_TEXT, .width = 44, .id = K_NAME},
    {.key = "kind", .header = "Kind", .fmt = XLSX_FMT_TEXT, .width = 14, .id = K_KIND},
    {.key = "group", .header = "Group", .unit = "GPUs", .fmt = XLSX_FMT_CNT, .width = 10, .id = K_GROUP},
    {.key = "per_node", .header = "GPUs per node", .fmt = XLSX_FMT_CNT, .width = 10, .id = K_PER_NODE},
    {.key = "nodes", .header = "Nodes", .fmt = XLSX_FMT_CNT, .width = 10, .id = K_NODES},
    {.key = "calls", .header = "Calls per step", .fmt = XLSX_FMT_CNT, .width = 10, .id = K_CALLS},
    {.key = "gb", .header = "Volume", .unit = "GB", .fmt = XLSX_FMT_BIG, .width = 10, .id = K_GB},
    {.key = "ib_gb", .header = "IB", .unit = "GB", .fmt = XLSX_FMT_BIG, .width = 10, .id = K_IB_GB},
    {.key = "nv_gb", .header = "NVLink", .unit = "GB", .fmt = XLSX_FMT_BIG, .width = 10, .id = K_NV_GB},
    {.key = "algo", .header = "Algorithm/protocol", .fmt = XLSX_FMT_TEXT, .width = 14, .id = K_ALGO},
    {.key = "share", .header = "Share of link rate", .fmt = XLSX_FMT_RAT, .width = 9, .id = K_SHARE},
    {.key = "ib_steps", .header = "IB latency, in-node steps", .fmt = XLSX_FMT_BIG, .width = 10, .id = K_IB_STEPS},
    {.key = "ib_net_steps", .header = "IB latency, network steps", .fmt = XLSX_FMT_BIG, .width = 10, .id = K_IB_NET_STEPS},
    {.key = "nv_steps", .header = "NVLink latency, in-node steps", .fmt = XLSX_FMT_BIG, .width = 10, .id = K_NV_STEPS},
    {.key = "ib_s", .header = "IB time", .unit = "s", .fmt = XLSX_FMT_SEC, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 10, .id = K_IB_S},
    {.key = "nv_s", .header = "NVLink time", .unit = "s", .fmt = XLSX_FMT_SEC, .head_fmt = XLSX_FMT_HEAD_LIVE, .width = 10, .id = K_NV_S},
};
/* clang-format on */

/* A row: one collective of a plan under a comm model, or (c NULL) the
 * subtotal of the n rows above. */
struct row {
    const char *family, *model;
    const struct ranking *rank; /* the link times' templates */
    const struct comm_collective *c;
    size_t n;
    double sum[4]; /* subtotal: IB GB, NVLink GB, IB s, NVLink s */
    char buf[48];
};

/* The subtotal of the n rows above of column key: SUBTOTAL(9, ...) (a
 * sum that skips other subtotals and filtered rows). */
static void
subtotal(const struct row *r, const char *key, double v, struct xlsx_value *out)
{
    out->kind = XLSX_NUM;
    out->num = v;
    out->fmt = XLSX_FMT_SEC_BOLD;
    snprintf(out->buf, sizeof out->buf, "SUBTOTAL(9,{%s@-%zu}:{%s@-1})", key,
             r->n, key);
    out->formula = out->buf;
}

static void get_total(const struct row *r, int id, struct xlsx_value *out)
{
    switch (id) {
    case K_FAMILY:
        xlsx_value_text(out, r->family);
        out->fmt = XLSX_FMT_BOLD;
        break;
    case K_MODEL:
        xlsx_value_text(out, r->model);
        out->fmt = XLSX_FMT_BOLD;
        break;
    case K_NAME:
        xlsx_value_text(
            out, "Subtotal (links overlap: each link's time is its own)");
        out->fmt = XLSX_FMT_BOLD;
        break;
    case K_IB_GB:
        subtotal(r, "ib_gb", r->sum[0], out);
        out->fmt = XLSX_FMT_BIG;
        break;
    case K_NV_GB:
        subtotal(r, "nv_gb", r->sum[1], out);
        out->fmt = XLSX_FMT_BIG;
        break;
    case K_IB_S:
        subtotal(r, "ib_s", r->sum[2], out);
        break;
    case K_NV_S:
        subtotal(r, "nv_s", r->sum[3], out);
        break;
    default:
        break;
    }
}

static void get(const void *item, int id, struct xlsx_value *out)
{
    const struct row *r = item;
    const struct comm_collective *c = r->c;
    if (!c) {
        get_total(r, id, out);
        return;
    }
    switch (id) {
    case K_FAMILY:
        xlsx_value_text(out, r->family);
        break;
    case K_MODEL:
        xlsx_value_text(out, r->model);
        break;
    case K_NAME:
        xlsx_value_text(out, c->name ? c->name : "?");
        break;
    case K_KIND:
        xlsx_value_text(out, comm_kind_str(c->kind));
        break;
    case K_GROUP:
        xlsx_value_num(out, (double)c->span.size);
        break;
    case K_PER_NODE:
        xlsx_value_num(out, (double)c->span.per_node);
        break;
    case K_NODES:
        xlsx_value_num(out, (double)c->span.nodes);
        break;
    case K_CALLS:
        xlsx_value_num(out, c->calls);
        break;
    case K_GB:
        xlsx_value_num(out, c->bytes / 1e9);
        break;
    case K_IB_GB:
        xlsx_value_num(out, c->ib_bytes / 1e9);
        break;
    case K_NV_GB:
        xlsx_value_num(out, c->nvlink_bytes / 1e9);
        break;
    case K_ALGO:
        xlsx_value_text(out, collectives_pick_name(c->algo.algo, c->algo.proto,
                                                   out->buf, sizeof out->buf));
        break;
    case K_SHARE:
        xlsx_value_num(out, c->algo.share);
        break;
    case K_IB_STEPS:
        xlsx_value_num(out, c->ib_lat.steps);
        break;
    case K_IB_NET_STEPS:
        xlsx_value_num(out, c->ib_lat.net);
        break;
    case K_NV_STEPS:
        xlsx_value_num(out, c->nvlink_lat.steps);
        break;
    case K_IB_S:
        xlsx_value_num(out, c->ib_s);
        out->formula = ranking_template(r->rank, "ib_s");
        break;
    default:
        xlsx_value_num(out, c->nvlink_s);
        out->formula = ranking_template(r->rank, "nv_s");
        break;
    }
}

static const struct xlsx_table table = {
    columns, sizeof columns / sizeof columns[0], XLSX_FMT_HEAD, get};

/* The n collectives c of one plan under one model and their subtotal;
 * returns the next row. */
static size_t rows(struct xlsx_book *b,
                   lxw_worksheet *ws,
                   size_t row,
                   const char *family,
                   const char *model,
                   const struct comm_collective *c,
                   size_t n)
{
    struct row r;
    size_t i;
    if (n == 0)
        return row;
    memset(&r, 0, sizeof r);
    r.family = family;
    r.model = model;
    r.rank = b->r->rank;
    for (i = 0; i < n; i++) {
        r.c = &c[i];
        xlsx_table_row(b, ws, &table, row++, &r);
        r.sum[0] += c[i].ib_bytes / 1e9;
        r.sum[1] += c[i].nvlink_bytes / 1e9;
        r.sum[2] += c[i].ib_s;
        r.sum[3] += c[i].nvlink_s;
    }
    r.c = NULL;
    r.n = n;
    xlsx_table_row(b, ws, &table, row++, &r);
    return row;
}

void xlsx_comm_write(struct xlsx_book *b, lxw_worksheet *ws)
{
    const struct views *r = b->r;
    const char *cm = comm_model_str(r->in->comm),
               *co = xlsx_book_other_model(r);
    const size_t head = 2; /* the header row, under the title and note */
    size_t row = head + 1, i, at = xlsx_table_col(&table, "family");

    xlsx_book_page(b, ws, XLSX_PAGE_TABLE);
    xlsx_table_widths(b, ws, &table);
    xlsx_book_str(b, ws, 0, at,
                  "Communication of each family's best plan and of the "
                  "published plan",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_strf(b, ws, 1, at, xlsx_book_fmt(b, XLSX_FMT_NOTE),
                   "Critical pipeline rank, per GPU per step, under both "
                   "models (%s is this report's); times are formulas over "
                   "IB_GBPS, NVLINK_GBPS and the latencies. Links overlap: "
                   "the plan's IB (NVLink) time is its subtotal of the IB "
                   "(NVLink) column.",
                   cm);
    /* The header first (rows go out in ascending order); the Excel
     * table, when there is one, writes the same header again. */
    xlsx_table_header(b, ws, &table, head);
    xlsx_book_height(b, ws, head, 32);
    for (i = 0; i < r->rank->nfamilies; i++) {
        const struct ranking_family *f =
            &r->rank->family[r->rank->families_by_step[i]];
        row = rows(b, ws, row, f->name, cm, f->coll, f->ncoll);
        row = rows(b, ws, row, f->name, co, f->coll_other, f->ncoll_other);
    }
    for (i = 0; i < r->rank->nvalidations; i++) { /* the published plan's */
        const struct validate_result *v = &r->rank->validation[i];
        if (!v->current)
            continue;
        row = rows(b, ws, row, "published plan", cm, v->coll, v->ncoll);
        row = rows(b, ws, row, "published plan", co, v->coll_other,
                   v->ncoll_other);
    }
    if (row > head + 1)
        xlsx_book_check(b,
                        worksheet_autofilter(ws, (lxw_row_t)head, 0,
                                             (lxw_row_t)(row - 1),
                                             (lxw_col_t)(table.ncols - 1)),
                        "worksheet_autofilter");
    xlsx_book_freeze(b, ws, head + 1, 0);
    xlsx_book_print_area(b, ws, 0, row > head + 1 ? row - 1 : head,
                         table.ncols - 1);
    xlsx_book_repeat_row(b, ws, head);
}
