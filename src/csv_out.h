/*
 * csv_out: plans.csv, the Plans sheet's columns (plans_table) for every
 * kept plan, as RFC 4180 CSV: one header row, CRLF line ends, fields
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

/* Plans beyond r->rows, for a CSV of every plan: each() calls emit(out,
 * row) once per further plan, in a fixed order. */
struct csv_extra {
    void (*each)(void *user,
                 void (*emit)(void *out, const struct report_row *row),
                 void *out);
    void *user;
};

/*
 * Writes r's kept plans (r->rows, best first, ranked) to path, then the
 * plans extra yields (unranked; extra may be NULL). On failure returns
 * STATUS_IO with "path: cannot write: reason" in d, removes its temporary
 * file and leaves an existing file at path untouched.
 *
 *   csv_out_write(&rep, "out/plans.csv", NULL, &d);
 */
enum status csv_out_write(const struct report *r,
                          const char *path,
                          const struct csv_extra *extra,
                          struct diag *d);

/*
 * Writes s to out as one CSV field: as is, or in double quotes with each
 * quote doubled when it holds ',', '"', CR or LF. Returns false on a
 * stream error.
 */
bool csv_out_field(FILE *out, const char *s);

#endif
