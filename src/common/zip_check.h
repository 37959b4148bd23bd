/*
 * zip_check: verifies a finished OOXML package (an .xlsx: a zip of XML
 * parts) before it replaces an earlier file. libxlsxwriter writes each
 * sheet part to a scratch file without checking the writes, then zips
 * whatever it reads back: on a full disk (or over a file-size limit) a
 * part is cut short, yet zipped with a matching CRC and no error. So
 * beyond reading every entry in full (minizip checks each CRC), every
 * .xml and .rels part must end with its root element's closing tag (or
 * be a self-closing root): a truncated part does not. Knows nothing of
 * libxlsxwriter.
 */
#ifndef PROJ_ZIP_CHECK_H
#define PROJ_ZIP_CHECK_H

#include "diag.h"

/*
 * Checks the zip file at path; messages name `shown` (the path the user
 * knows: the final name of a temporary file). Returns STATUS_OK, or
 * STATUS_IO with one of
 *   "shown: incomplete workbook part xl/worksheets/sheet3.xml (disk full?)"
 *   "shown: corrupt workbook part NAME: CRC mismatch (minizip error -105)"
 *   "shown: cannot read the written workbook: not a zip file"
 * (STATUS_NOMEM when a read buffer cannot be had). An archive with no
 * entries passes.
 *
 *   if (zip_check_package(".report.xlsx.X1b2c3", "out/report.xlsx", &d))
 *       ...
 */
enum status
zip_check_package(const char *path, const char *shown, struct diag *d);

#endif
