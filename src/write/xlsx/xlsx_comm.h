/*
 * xlsx_comm: the Communication sheet — every collective of each family's
 * best plan and of the published plan, on the critical pipeline rank,
 * under both communication models: group, span, calls, bytes per link,
 * and the time on each link as a formula over the Assumptions names.
 */
#ifndef PROJ_XLSX_COMM_H
#define PROJ_XLSX_COMM_H

#include "xlsx_book.h"

#define XLSX_COMM_SHEET "Communication"

void xlsx_comm_write(struct xlsx_book *b, struct lxw_worksheet *ws);

#endif
