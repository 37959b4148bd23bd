/*
 * xlsx_summary: the Summary sheet, the one a manager opens — the verdict
 * on the best plan in words, its key figures, the waterfall from its
 * speed of light to its expected step (xlsx_waterfall), notes on the
 * published plan, ZeRO-3 and the sweep — one printed page, laid on the
 * family table's grid (the Families sheet beside it: xlsx_families).
 */
#ifndef PROJ_XLSX_SUMMARY_H
#define PROJ_XLSX_SUMMARY_H

#include "xlsx_book.h"

#define XLSX_SUMMARY_SHEET "Summary"

/* The text a figure on the Summary shows when an input makes it
 * undefined (a rate of 0 divides by zero), instead of #DIV/0! in every
 * cell: a formula's string. */
#define XLSX_SUMMARY_INPUT_ERROR "\"check the inputs on Assumptions\""

/* Defines the workbook name `name` over the Summary's cell at row, column
 * c (0-based). */
void xlsx_summary_define(struct xlsx_book *b,
                         size_t row,
                         size_t c,
                         const char *name);

/* Writes the Summary — the verdict, the key figures, the waterfall table
 * and the notes, printed on one landscape page — and makes it the sheet
 * the workbook opens on. */
void xlsx_summary_write(struct xlsx_book *b, struct lxw_worksheet *ws);

#endif
