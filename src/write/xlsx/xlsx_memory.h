/*
 * xlsx_memory: the Memory sheet — memory per GPU on the heaviest
 * pipeline rank of the published plan and of each family's best plan
 * (the runtime's share, total, capacity, the memory a plan may use, free
 * memory and fit as the registry's formulas), the model's activation
 * inventory (what one layer saves for backward, kept or recomputed under
 * each precision and recompute policy), and the memory chart.
 */
#ifndef PROJ_XLSX_MEMORY_H
#define PROJ_XLSX_MEMORY_H

#include "xlsx_book.h"

#define XLSX_MEMORY_SHEET "Memory"

/* Writes the sheet; memory_png: the gnuplot memory chart, or NULL. */
void xlsx_memory_write(struct xlsx_book *b,
                       struct lxw_worksheet *ws,
                       const char *memory_png);

#endif
