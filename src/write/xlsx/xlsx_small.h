/*
 * xlsx_small: the short sheets — Rejected (the sweep's combinations that
 * did not run, by reason, with examples; the families none of whose
 * plans fits, the baseline first), Validation (predictions against
 * published measured runs), About (version, command line, inputs and
 * their checksums) and Glossary (the words the report uses).
 */
#ifndef PROJ_XLSX_SMALL_H
#define PROJ_XLSX_SMALL_H

#include "xlsx_book.h"

#define XLSX_REJECTED_SHEET   "Rejected"
#define XLSX_VALIDATION_SHEET "Validation"
#define XLSX_ABOUT_SHEET      "About"
#define XLSX_GLOSSARY_SHEET   "Glossary"

void xlsx_small_rejected(struct xlsx_book *b, struct lxw_worksheet *ws);

void xlsx_small_validation(struct xlsx_book *b, struct lxw_worksheet *ws);

void xlsx_small_about(struct xlsx_book *b, struct lxw_worksheet *ws);

void xlsx_small_glossary(struct xlsx_book *b, struct lxw_worksheet *ws);

#endif
