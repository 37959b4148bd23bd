/*
 * out_file: atomic replacement of an output file. A writer creates a
 * uniquely named temporary file in the target's directory, writes it, and
 * renames it over the target only on success; on failure the temporary
 * file is removed and an existing target is left as it was. Shared by
 * csv_out and xlsx_book (the workbook).
 */
#ifndef PROJ_OUT_FILE_H
#define PROJ_OUT_FILE_H

#include <stddef.h>

#include "diag.h"

/*
 * Creates an empty temporary file beside `path` (".<name>.XXXXXX" in the
 * same directory) with the permissions a new file would get (0666 less
 * the umask), and writes its name into tmp. Returns STATUS_IO with
 * "path: cannot write: reason" when the directory is not writable.
 */
enum status
out_file_temp(const char *path, char *tmp, size_t size, struct diag *d);

/*
 * Renames tmp over path; on failure removes tmp and returns STATUS_IO
 * with "path: cannot write: reason".
 */
enum status out_file_commit(const char *tmp, const char *path, struct diag *d);

#endif
