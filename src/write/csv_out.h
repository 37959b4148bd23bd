/*
 * csv_out: plans.csv, the Plans sheet's columns (plans_table) for the
 * plans the report keeps (by default those of the Plans sheet), as RFC
 * 4180 CSV: one header row, CRLF line ends, fields
 * quoted only when they hold a comma, a quote, CR or LF, numbers in
 * "%.17g" so they read back exactly. Written to a temporary file beside
 * the target and renamed into place only when complete.
 */
#ifndef PROJ_CSV_OUT_H
#define PROJ_CSV_OUT_H

#include <stdbool.h>
#include <stdio.h>

#include "diag.h"
#include "views.h"

/* Which plans plans.csv holds. */
enum csv_out_scope {
    CSV_OUT_SHEET, /* the Plans sheet's rows (r->sheet), in its order */
    CSV_OUT_KEPT,  /* every kept plan (r->rank->rows, best first): --top N */
    CSV_OUT_ALL    /* every plan: the kept ones, then the spilled ones */
};

/*
 * Writes the plans of `scope` to path, each with its rank (its place in
 * r->rank->rows, 1-based). CSV_OUT_ALL: the kept plans (r->rank->rows, best
 * first, ranked), then, when the sweep spilled every plan (rank_options
 * .spill_dir), the others in enumeration order with an empty rank. On
 * failure returns STATUS_IO with "path: cannot write: reason" in d,
 * removes its temporary file and leaves an existing file at path
 * untouched.
 *
 *   csv_out_write(&rep, "out/plans.csv", CSV_OUT_SHEET, &d);
 */
enum status csv_out_write(const struct views *r,
                          const char *path,
                          enum csv_out_scope scope,
                          struct diag *d);

/*
 * Writes s to out as one CSV field: as is, or in double quotes with each
 * quote doubled when it holds ',', '"', CR or LF. Returns false on a
 * stream error.
 */
bool csv_out_field(FILE *out, const char *s);

#endif
