/*
 * xlsx_memory: the Memory sheet — memory per GPU on the heaviest
 * pipeline rank of the published plan and of each family's best plan
 * (total, capacity, headroom and fit as formulas), and the model's
 * activation inventory: what one layer saves for backward, kept or
 * recomputed under each precision and recompute policy.
 */
#ifndef PROJ_XLSX_MEMORY_H
#define PROJ_XLSX_MEMORY_H

#include "xlsx_book.h"

#define XLSX_MEMORY_SHEET "Memory"

void xlsx_memory_write(struct xlsx_book *b, struct lxw_worksheet *ws);

#endif
