/*
 * xlsx_summary: the Summary sheet, the one a manager opens — the verdict
 * on the best plan in words, its key figures, the waterfall from its
 * speed of light to its expected step (xlsx_waterfall), notes on the
 * published plan, ZeRO-3 and the sweep, the best plan of every family
 * (under both communication models, with why in plain words), and the
 * step-time and waterfall charts. Figures are as roofplan computed them
 * (values, not formulas).
 */
#ifndef PROJ_XLSX_SUMMARY_H
#define PROJ_XLSX_SUMMARY_H

#include "xlsx_book.h"

#define XLSX_SUMMARY_SHEET "Summary"

/* Writes the sheet and makes it the one the workbook opens on.
 * step_png, waterfall_png: the step-time and waterfall charts to embed,
 * each NULL for none. */
void xlsx_summary_write(struct xlsx_book *b,
                        struct lxw_worksheet *ws,
                        const char *step_png,
                        const char *waterfall_png);

#endif
