/*
 * xlsx_plans: the Plans sheet — the report's sheet rows (figures: the
 * plans that fit, best first, up to the sweep's limit, and each family's
 * best; every kept plan with --all-plans), one row each, in the columns
 * of plans_table: plan and work as values; times, bound, memory, fit,
 * MFU, throughput and cost as live formulas over the Assumptions names
 * (cached with the C values), in an Excel table named PlansTable, with
 * named column ranges (PLANS_PLAN, PLANS_RANK_S, PLANS_FITS, ...) that
 * the Summary's formulas read. The fastest fitting plan's ties are
 * highlighted live. In constant_memory mode (very large reports) only
 * the first XLSX_OUT_BIG_COLUMNS columns, as values, under an autofilter.
 */
#ifndef PROJ_XLSX_PLANS_H
#define PROJ_XLSX_PLANS_H

#include <stddef.h>

#include "xlsx_book.h"

#define XLSX_PLANS_SHEET "Plans"

/* Writes the sheet; in b->big mode at most big_columns columns. */
void xlsx_plans_write(struct xlsx_book *b,
                      struct lxw_worksheet *ws,
                      size_t big_columns);

#endif
