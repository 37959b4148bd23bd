/*
 * xlsx_compare: the workbook of `roofplan compare` — one row per (model,
 * hardware) pair with its best plan, step, throughput, memory and cost
 * side by side (compare.h computes them; this lays them out).
 */
#ifndef PROJ_XLSX_COMPARE_H
#define PROJ_XLSX_COMPARE_H

#include <stddef.h>
#include <stdint.h>

#include "compare.h"
#include "diag.h"

/*
 * Writes rows[0..n) to path (through a temporary file, verified, then
 * renamed, as xlsx_book does). generated dates the document (seconds
 * since the epoch), command_line goes under the table. Returns
 * STATUS_OK, STATUS_IO or STATUS_XLSX with the message in d.
 */
enum status xlsx_compare_write(const struct compare_row *rows,
                               size_t n,
                               const char *path,
                               int64_t generated,
                               const char *command_line,
                               struct diag *d);

#endif
