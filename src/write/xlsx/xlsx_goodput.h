/*
 * xlsx_goodput: the Assumptions sheet's block of failures, checkpoints
 * and energy (goodput.h's model, cell by cell): the recommended plan's
 * checkpoint, its write and restart, the job's failure rate, the
 * checkpoint interval that loses least time, the effective-training
 * share, the wall-clock days and cost with their range, the energy and
 * emissions. Each a named formula over the inputs above it
 * (FAILURES_PER_MGPU_HOUR, STORAGE_GBPS, ...) and the Summary's
 * RECOMMENDED_* cells, cached with goodput.c's values, so an edited
 * failure rate moves the wall-clock days and cost.
 */
#ifndef PROJ_XLSX_GOODPUT_H
#define PROJ_XLSX_GOODPUT_H

#include <stddef.h>

#include "xlsx_book.h"

/*
 * Writes the block from `row` on ws (the Assumptions sheet: name, value,
 * unit and meaning in its first four columns), defining each value's
 * name; returns the row after it. Nothing when the report has no
 * recommended plan.
 */
size_t
xlsx_goodput_write(struct xlsx_book *b, struct lxw_worksheet *ws, size_t row);

#endif
