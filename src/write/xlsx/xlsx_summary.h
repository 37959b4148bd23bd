/*
 * xlsx_summary: the Summary sheet, the one a manager opens — the verdict
 * on the best plan in words, its key figures, the waterfall from its
 * speed of light to its expected step (xlsx_waterfall), notes on the
 * published plan, ZeRO-3 and the sweep — one printed page; and the
 * Families sheet beside it: the best plan of every family (under both
 * communication models, with why in plain words), the step-time and
 * waterfall charts.
 */
#ifndef PROJ_XLSX_SUMMARY_H
#define PROJ_XLSX_SUMMARY_H

#include "xlsx_book.h"

#define XLSX_SUMMARY_SHEET  "Summary"
#define XLSX_FAMILIES_SHEET "Families"

/* Writes the Summary — the verdict, the key figures, the waterfall table
 * and the notes, printed on one landscape page — and makes it the sheet
 * the workbook opens on. */
void xlsx_summary_write(struct xlsx_book *b, struct lxw_worksheet *ws);

/* Writes the Families sheet: the best plan of every family (on the
 * Summary's column grid), then the step-time and waterfall charts, each
 * NULL for none. */
void xlsx_summary_families(struct xlsx_book *b,
                           struct lxw_worksheet *ws,
                           const char *step_png,
                           const char *waterfall_png);

#endif
