/*
 * csv_out: plans.csv, the Plans sheet's columns (plans_table) for every
 * plan, as RFC 4180 CSV: one header row, CRLF line ends, fields
 * quoted only when they hold a comma, a quote, CR or LF, numbers in
 * "%.17g" so they read back exactly. Written to a temporary file beside
 * the target and renamed into place only when complete.
 */
#ifndef PROJ_CSV_OUT_H
#define PROJ_CSV_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "report.h"

/*
 * Writes every plan of r to path: the kept plans (r->rows, best first,
 * ranked), then, when the sweep spilled every plan (rank_options
 * .spill_dir), the others in enumeration order with an empty rank. On
 * failure returns STATUS_IO with "path: cannot write: reason" in d,
 * removes its temporary file and leaves an existing file at path
 * untouched.
 *
 *   csv_out_write(&rep, "out/plans.csv", &d);
 */
enum status
csv_out_write(const struct report *r, const char *path, struct diag *d);

/*
 * Writes s to out as one CSV field: as is, or in double quotes with each
 * quote doubled when it holds ',', '"', CR or LF. Returns false on a
 * stream error.
 */
bool csv_out_field(FILE *out, const char *s);

#endif
