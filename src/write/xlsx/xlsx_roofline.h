/*
 * xlsx_roofline: the Roofline sheet — two native log-log scatter charts
 * (over IB and over NVLink) of the best few plans of each family, whose
 * roofs are formulas over the Assumptions names (change IB_GBPS and the
 * roof moves), the roofs' table, the plotted points as values, and the
 * gnuplot renderings beside the charts when given.
 */
#ifndef PROJ_XLSX_ROOFLINE_H
#define PROJ_XLSX_ROOFLINE_H

#include "xlsx_book.h"

#define XLSX_ROOFLINE_SHEET "Roofline"

/* Writes the sheet; ib_png and nvlink_png: the gnuplot charts to embed
 * beside the native ones, or NULL. */
void xlsx_roofline_write(struct xlsx_book *b,
                         struct lxw_worksheet *ws,
                         const char *ib_png,
                         const char *nvlink_png);

#endif
