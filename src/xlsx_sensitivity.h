/*
 * xlsx_sensitivity: the Sensitivity sheet — the step time of each
 * family's best fitting plan if IB (then NVLink) were faster or slower,
 * coloured by bound, and the bandwidth at which each family's best plan
 * would turn compute-bound.
 */
#ifndef PROJ_XLSX_SENSITIVITY_H
#define PROJ_XLSX_SENSITIVITY_H

#include "xlsx_book.h"

#define XLSX_SENSITIVITY_SHEET "Sensitivity"

void xlsx_sensitivity_write(struct xlsx_book *b, struct lxw_worksheet *ws);

#endif
