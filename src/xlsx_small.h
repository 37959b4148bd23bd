/*
 * xlsx_small: the three short sheets at the end of the workbook —
 * Rejected (the sweep's combinations that did not run, by reason, with
 * examples), Validation (predictions against published measured runs)
 * and About (version, command line, inputs and their checksums).
 */
#ifndef PROJ_XLSX_SMALL_H
#define PROJ_XLSX_SMALL_H

#include "xlsx_book.h"

#define XLSX_REJECTED_SHEET   "Rejected"
#define XLSX_VALIDATION_SHEET "Validation"
#define XLSX_ABOUT_SHEET      "About"

void xlsx_small_rejected(struct xlsx_book *b, struct lxw_worksheet *ws);

void xlsx_small_validation(struct xlsx_book *b, struct lxw_worksheet *ws);

void xlsx_small_about(struct xlsx_book *b, struct lxw_worksheet *ws);

#endif
