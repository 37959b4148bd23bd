/*
 * xlsx_waterfall: the waterfall from the speed of light to the expected
 * step of the recommended plan, in the workbook — a table (effect,
 * seconds, share of the gap, cumulative) of the report's values
 * (figures_waterfall) and the `waterfall` chart's PNG. The Summary places
 * both; this module lays them out on the grid it is given. Values, not
 * formulas: the expected step's effects are replayed in C (expected.c),
 * and a note on the sheet says so.
 */
#ifndef PROJ_XLSX_WATERFALL_H
#define PROJ_XLSX_WATERFALL_H

#include <stddef.h>

#include "xlsx_book.h"

/*
 * Writes the table of b->r->waterfall[0] from row `row`: a heading in
 * column col, the header row, the speed of light, one row per effect,
 * the gap and the expected step in columns col..col+3, and a note merged
 * over col..last_col (last_col >= col + 3). Returns the row after it
 * (with a blank row); `row`, with nothing written, when the recommended
 * plan has no expected step.
 */
size_t xlsx_waterfall_table(struct xlsx_book *b,
                            struct lxw_worksheet *ws,
                            size_t row,
                            size_t col,
                            size_t last_col);

/*
 * Inserts the chart png (the `waterfall` PNG, 1600x900) below a heading
 * at row in column col, at scale (0..1], as the sheet's other charts;
 * the caller puts a page break above row. Returns the row below the
 * image; `row` when png is NULL (nothing written).
 */
size_t xlsx_waterfall_chart(struct xlsx_book *b,
                            struct lxw_worksheet *ws,
                            size_t row,
                            size_t col,
                            const char *png,
                            double scale);

#endif
