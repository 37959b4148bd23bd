/*
 * xlsx_assumptions: the Assumptions sheet — every input of the hardware
 * and model files with its unit, meaning and source, each a workbook
 * name (IB_GBPS, MODEL_LAYERS, ...) that the formulas of the other
 * sheets use; the rates derived from them as formulas; and the model's
 * derived totals as values.
 */
#ifndef PROJ_XLSX_ASSUMPTIONS_H
#define PROJ_XLSX_ASSUMPTIONS_H

#include "xlsx_book.h"

#define XLSX_ASSUMPTIONS_SHEET "Assumptions"

/* Writes the sheet ws of b and defines the names of its inputs. */
void xlsx_assumptions_write(struct xlsx_book *b, struct lxw_worksheet *ws);

#endif
