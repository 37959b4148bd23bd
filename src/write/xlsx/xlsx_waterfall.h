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

/* Where the table goes on the sheet's grid (0-based columns, in
 * ascending order): each field is the first column of its cells, which
 * run up to the next one's; the cumulative step runs to cumulative_last,
 * the heading and the note span effect..note_last. */
struct xlsx_waterfall_cols {
    size_t effect, seconds, share, cumulative, cumulative_last, note_last;
};

/*
 * Writes the table of b->r->waterfall[0] from row `row` in columns c: a
 * heading, the header row, the speed of light, one row per effect, the
 * gap and the expected step, and a note (values, not formulas; how the
 * bars add up; where the rates came from; the published run's expected
 * and measured step). Returns the row after it (with a blank row);
 * `row`, with nothing written, when the recommended plan has no
 * expected step.
 */
size_t xlsx_waterfall_table(struct xlsx_book *b,
                            struct lxw_worksheet *ws,
                            size_t row,
                            const struct xlsx_waterfall_cols *c);

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
