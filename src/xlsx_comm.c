/*
 * xlsx_comm: the Communication sheet (see xlsx_comm.h), one column table
 * written as an Excel table named Collectives.
 */
#include "xlsx_comm.h"

#include <xlsxwriter.h>

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
    K_IB_S,
    K_NV_S
};

/* The times repeat cost.c's link time: bytes / bandwidth, plus the
 * per-call latency when the collective uses the link at all. */
/* clang-format off */
static const struct xlsx_column columns[] = {
    {"family", "Family", "", XLSX_FMT_TEXT, 0, 17, NULL, K_FAMILY},
    {"model", "Comm model", "", XLSX_FMT_TEXT, 0, 8, NULL, K_MODEL},
    {"name", "Collective", "", XLSX_FMT_TEXT, 0, 44, NULL, K_NAME},
    {"kind", "Kind", "", XLSX_FMT_TEXT, 0, 14, NULL, K_KIND},
    {"group", "Group", "GPUs", XLSX_FMT_CNT, 0, 10, NULL, K_GROUP},
    {"per_node", "GPUs per node", "", XLSX_FMT_CNT, 0, 10, NULL, K_PER_NODE},
    {"nodes", "Nodes", "", XLSX_FMT_CNT, 0, 10, NULL, K_NODES},
    {"calls", "Calls per step", "", XLSX_FMT_CNT, 0, 10, NULL, K_CALLS},
    {"gb", "Volume", "GB", XLSX_FMT_BIG, 0, 10, NULL, K_GB},
    {"ib_gb", "IB", "GB", XLSX_FMT_BIG, 0, 10, NULL, K_IB_GB},
    {"nv_gb", "NVLink", "GB", XLSX_FMT_BIG, 0, 10, NULL, K_NV_GB},
    {"ib_s", "IB time", "s", XLSX_FMT_SEC, XLSX_FMT_HEAD_LIVE, 10,
     "{ib_gb}/IB_GBPS+IF({ib_gb}>0,{calls}*IB_LATENCY_US*1E-06,0)", K_IB_S},
    {"nv_s", "NVLink time", "s", XLSX_FMT_SEC, XLSX_FMT_HEAD_LIVE, 10,
     "{nv_gb}/NVLINK_GBPS+IF({nv_gb}>0,{calls}*NVLINK_LATENCY_US*1E-06,0)",
     K_NV_S},
};
/* clang-format on */

/* A row: one collective of a plan under a comm model. */
struct row {
    const char *family, *model;
    const struct comm_collective *c;
    const struct hardware *hw;
};

static void number(struct xlsx_value *out, double v)
{
    out->kind = XLSX_NUM;
    out->num = v;
}

static void text(struct xlsx_value *out, const char *s)
{
    out->kind = XLSX_TEXT;
    out->str = s;
}

static void get(const void *item, int id, struct xlsx_value *out)
{
    const struct row *r = item;
    const struct comm_collective *c = r->c;
    const struct hardware *hw = r->hw;
    switch (id) {
    case K_FAMILY:
        text(out, r->family);
        break;
    case K_MODEL:
        text(out, r->model);
        break;
    case K_NAME:
        text(out, c->name ? c->name : "?");
        break;
    case K_KIND:
        text(out, comm_kind_str(c->kind));
        break;
    case K_GROUP:
        number(out, (double)c->span.size);
        break;
    case K_PER_NODE:
        number(out, (double)c->span.per_node);
        break;
    case K_NODES:
        number(out, (double)c->span.nodes);
        break;
    case K_CALLS:
        number(out, c->calls);
        break;
    case K_GB:
        number(out, c->bytes / 1e9);
        break;
    case K_IB_GB:
        number(out, c->ib_bytes / 1e9);
        break;
    case K_NV_GB:
        number(out, c->nvlink_bytes / 1e9);
        break;
    case K_IB_S:
        number(out, c->ib_bytes / hw->ib_bps +
                        (c->ib_bytes > 0 ? c->calls * hw->ib_latency_s : 0));
        break;
    default:
        number(out,
               c->nvlink_bytes / hw->nvlink_bps +
                   (c->nvlink_bytes > 0 ? c->calls * hw->nvlink_latency_s : 0));
        break;
    }
}

static const struct xlsx_table table = {
    columns, sizeof columns / sizeof columns[0], XLSX_FMT_HEAD, get};

/* The n collectives c of one plan under one model; returns the next
 * row. */
static size_t rows(struct xlsx_book *b,
                   lxw_worksheet *ws,
                   size_t row,
                   const char *family,
                   const char *model,
                   const struct comm_collective *c,
                   size_t n)
{
    struct row r = {family, model, NULL, b->r->hw};
    size_t i;
    for (i = 0; i < n; i++) {
        r.c = &c[i];
        xlsx_table_row(b, ws, &table, row++, &r);
    }
    return row;
}

void xlsx_comm_write(struct xlsx_book *b, lxw_worksheet *ws)
{
    const struct report *r = b->r;
    const char *cm = comm_model_str(r->comm), *co = xlsx_book_other_model(r);
    const size_t head = 2; /* the header row, under the title and note */
    size_t row = head + 1, i, at = xlsx_table_col(&table, "family");

    xlsx_book_page(ws, false);
    xlsx_table_widths(b, ws, &table);
    xlsx_book_str(b, ws, 0, at,
                  "Communication of each family's best plan and of the "
                  "published plan",
                  xlsx_book_fmt(b, XLSX_FMT_TITLE));
    xlsx_book_strf(b, ws, 1, at, xlsx_book_fmt(b, XLSX_FMT_NOTE),
                   "Critical pipeline rank, per GPU per step, under both "
                   "models (%s is this report's); times are formulas over "
                   "IB_GBPS, NVLINK_GBPS and the latencies. Links overlap: "
                   "the plan's IB (NVLink) time is the sum of its IB "
                   "(NVLink) column.",
                   cm);
    /* The header first (rows go out in ascending order); the Excel
     * table, when there is one, writes the same header again. */
    xlsx_table_header(b, ws, &table, head);
    xlsx_book_height(b, ws, head, 32);
    for (i = 0; i < r->nfamilies; i++) {
        const struct report_family *f = &r->family[r->families_by_step[i]];
        row = rows(b, ws, row, f->name, cm, f->coll, f->ncoll);
        row = rows(b, ws, row, f->name, co, f->coll_other, f->ncoll_other);
    }
    for (i = 0; i < r->nvalidations; i++) { /* the published plan's */
        const struct report_validation *v = &r->validation[i];
        if (!v->current)
            continue;
        row = rows(b, ws, row, "published plan", cm, v->coll, v->ncoll);
        row = rows(b, ws, row, "published plan", co, v->coll_other,
                   v->ncoll_other);
    }
    if (row > head + 1 && !b->big)
        xlsx_table_excel(b, ws, &table, "Collectives", head, row - 1);
    xlsx_book_freeze(b, ws, head + 1, 0);
    xlsx_book_check(b,
                    worksheet_repeat_rows(ws, (lxw_row_t)head, (lxw_row_t)head),
                    "worksheet_repeat_rows");
}
