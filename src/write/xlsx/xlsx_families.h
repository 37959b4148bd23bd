/*
 * xlsx_families: the Families sheet — the best plan of every family
 * (under both communication models, with why in plain words), live over
 * the Plans sheet, then the step-time and waterfall charts — and its
 * family table, whose columns are the grid of the Summary too (labels
 * under Family, values under the other model's Step, paragraphs merged
 * from Family to Best plan).
 */
#ifndef PROJ_XLSX_FAMILIES_H
#define PROJ_XLSX_FAMILIES_H

#include "xlsx_book.h"
#include "xlsx_table.h"

#define XLSX_FAMILIES_SHEET "Families"

/* The family table (its columns: the grid of the Families sheet and the
 * Summary); static, never NULL. Its getter reads a family row of its
 * own: lay out other cells on it with xlsx_table_cell. */
const struct xlsx_table *xlsx_families_table(void);

/* Sets ws's column widths to the family table's grid. */
void xlsx_families_grid(struct xlsx_book *b, struct lxw_worksheet *ws);

/* Writes the Families sheet: the best plan of every family, fastest
 * first, then the step-time and waterfall charts, each NULL for none. */
void xlsx_families_write(struct xlsx_book *b,
                         struct lxw_worksheet *ws,
                         const char *step_png,
                         const char *waterfall_png);

#endif
