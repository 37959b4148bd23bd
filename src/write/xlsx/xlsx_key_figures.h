/*
 * xlsx_key_figures: the recommended plan's key figures on the Summary,
 * on the family table's grid (labels under Family, the speed of light's
 * values under the other model's Step, the expected ones under Step, their
 * range under Bound and Comm/compute): live formulas over the Plans
 * sheet's named columns, cached with the C values, and the workbook
 * names over them (FASTEST_PLAN, FASTEST_STEP_S, RECOMMENDED_ROW,
 * RECOMMENDED_STEP_S with _LOW, _HIGH and _SOL, ...).
 */
#ifndef PROJ_XLSX_KEY_FIGURES_H
#define PROJ_XLSX_KEY_FIGURES_H

#include <stddef.h>

#include "xlsx_book.h"

/* Writes the key figures from row `row` of the Summary ws (none when the
 * report has no plan); returns the row after them (with a blank row). */
size_t
xlsx_key_figures(struct xlsx_book *b, struct lxw_worksheet *ws, size_t row);

#endif
