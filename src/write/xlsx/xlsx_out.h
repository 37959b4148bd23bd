/*
 * xlsx_out: the planning workbook (DESIGN.md §5) — Summary, Glossary,
 * Assumptions, Plans, Memory, Communication, Roofline, Sensitivity,
 * Rejected, Validation, About — from a built report. The public entry:
 * it opens the workbook (xlsx_book), has each sheet module write its
 * sheet, and closes it. It computes nothing new: every number comes from
 * the report (figures), and the formulas of Plans, Summary,
 * Communication, Roofline and Memory repeat the time model's templates
 * (terms) over the Assumptions sheet's named inputs, with the C results
 * as their cached values. Does not include xlsxwriter.h.
 */
#ifndef PROJ_XLSX_OUT_H
#define PROJ_XLSX_OUT_H

#include "diag.h"
#include "views.h"

/* PNG charts to embed, each NULL = none, e.g. out/roofline-ib.png; the
 * files must exist when xlsx_out_write() is called. */
struct xlsx_images {
    const char *roofline_ib;        /* on the Roofline sheet */
    const char *roofline_nvlink;    /* on the Roofline sheet */
    const char *step_breakdown;     /* on the Families sheet */
    const char *memory;             /* on the Memory sheet */
    const char *sensitivity_ib;     /* on the Sensitivity sheet */
    const char *sensitivity_nvlink; /* on the Sensitivity sheet */
    const char *waterfall;          /* on the Families sheet */
};

/* A Plans sheet above this many rows is written in libxlsxwriter's
 * constant_memory mode (about 4 MB instead of ~115 bytes per cell), where
 * Plans gets an autofilter instead of an Excel table and only its first
 * XLSX_OUT_BIG_COLUMNS columns (rank, family, the plan's dimensions, step,
 * expected step with its low and high, bound, fit, free memory, MFU,
 * throughput, days), as
 * values: at a million rows the full sheet with live
 * formulas is 55 million cells and minutes to write (plans.csv keeps every
 * column). */
#define XLSX_OUT_BIG_COLUMNS 22
#ifndef XLSX_OUT_TABLE_ROWS_MAX /* overridable to test the large mode */
#define XLSX_OUT_TABLE_ROWS_MAX 200000
#endif

/*
 * Writes the workbook for r to path. images may be NULL. The file is
 * written to a temporary file in path's directory (libxlsxwriter's
 * scratch files too), checked to be complete (zip_check), and renamed
 * over path only then; on failure the temporary file is removed and an
 * existing file at path is left untouched. Document properties take
 * their date from r->in->generated, so equal reports give byte-identical
 * files. Returns STATUS_OK; STATUS_IO ("path: cannot write: reason",
 * "path: cannot embed PNG: reason", "path: incomplete workbook part
 * xl/worksheets/sheet3.xml (disk full?)"); or STATUS_XLSX ("path:
 * <libxlsxwriter call>: <lxw_strerror>").
 *
 *   struct xlsx_images img = {NULL, NULL, NULL, NULL, NULL, NULL, NULL};
 *   xlsx_out_write(&rep, "out/report.xlsx", &img, &d);
 */
enum status xlsx_out_write(const struct views *r,
                           const char *path,
                           const struct xlsx_images *images,
                           struct diag *d);

/*
 * xlsx_out_write() with its charts still being drawn: writes the sheets
 * that embed no chart (Assumptions and Plans, the bulk of the work), then
 * calls wait(user, img, d) once, which returns when the charts are done
 * and fills *img (zeroed before the call; NULL paths: none), then writes
 * the rest. The sheets are written in xlsx_out_write's order, so the file
 * is the same byte for byte. When wait returns another status than
 * STATUS_OK (d filled), the workbook is dropped and that status returned.
 */
enum status xlsx_out_write_waiting(const struct views *r,
                                   const char *path,
                                   enum status (*wait)(void *user,
                                                       struct xlsx_images *img,
                                                       struct diag *d),
                                   void *user,
                                   struct diag *d);

#endif
