/*
 * xlsx_scale: the Scale sheet of a report of several cluster sizes: for
 * each size (each ranked on its own), its recommended plan, step,
 * tokens/s per GPU and scaling efficiency against the smallest size,
 * wall-clock days with their range, GPU-hours, cost and energy
 * (figures/scale.h), the first size under the threshold and a deadline's
 * or budget's answer. Values, not formulas: each row is another sweep.
 */
#ifndef PROJ_XLSX_SCALE_H
#define PROJ_XLSX_SCALE_H

#include "xlsx_book.h"

#define XLSX_SCALE_SHEET "Scale"

/* Whether the report has a Scale sheet: several cluster sizes. */
bool xlsx_scale_wanted(const struct views *r);

/* Writes the sheet from b's views' scale (xlsx_scale_wanted). */
void xlsx_scale_write(struct xlsx_book *b, struct lxw_worksheet *ws);

#endif
