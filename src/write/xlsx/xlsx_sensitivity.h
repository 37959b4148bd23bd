/*
 * xlsx_sensitivity: the Sensitivity sheet — the step time of each
 * family's best fitting plan (and the baseline's, re-timed, when none of
 * it fits) if IB (then NVLink) were faster or slower, coloured by bound;
 * for each family's best plan the bandwidth at which each link's time
 * meets its compute time and what binds there; the two sensitivity
 * charts.
 */
#ifndef PROJ_XLSX_SENSITIVITY_H
#define PROJ_XLSX_SENSITIVITY_H

#include "xlsx_book.h"

#define XLSX_SENSITIVITY_SHEET "Sensitivity"

/* Writes the sheet; ib_png, nvlink_png: the gnuplot sensitivity charts,
 * or NULL. */
void xlsx_sensitivity_write(struct xlsx_book *b,
                            struct lxw_worksheet *ws,
                            const char *ib_png,
                            const char *nvlink_png);

#endif
