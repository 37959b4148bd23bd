/*
 * csv_out: plans.csv from the shared Plans columns.
 */
#include "csv_out.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "out_file.h"
#include "plans_table.h"

bool csv_out_field(FILE *out, const char *s)
{
    const char *c;
    if (strpbrk(s, ",\"\r\n") == NULL)
        return fputs(s, out) >= 0;
    if (fputc('"', out) == EOF)
        return false;
    for (c = s; *c; c++) {
        if (*c == '"' && fputc('"', out) == EOF)
            return false;
        if (fputc(*c, out) == EOF)
            return false;
    }
    return fputc('"', out) != EOF;
}

/* One CSV line of row (rank 0: unranked). */
static void write_row(const struct views *r,
                      FILE *f,
                      const struct ranking_row *row,
                      size_t rank)
{
    size_t n, k;
    const struct plans_column *cols = plans_table_columns(&n);
    if (ferror(f))
        return;
    progress_add(r->in->progress, 1);
    for (k = 0; k < n; k++) {
        struct plans_value v;
        plans_table_value_row(&cols[k], r, row, rank, &row->t, &v);
        if (k > 0)
            fputc(',', f);
        if (v.kind == PLANS_EMPTY)
            continue;
        if (v.kind == PLANS_NUMBER)
            fprintf(f, "%.17g", v.num);
        else if (v.kind == PLANS_BOOL)
            fputs(v.flag ? "TRUE" : "FALSE", f);
        else
            csv_out_field(f, v.str);
    }
    fputs("\r\n", f);
}

/* The plans of `scope` (csv_out.h); false when the spill could not be
 * read back. */
static bool write_rows(const struct views *r, enum csv_out_scope scope, FILE *f)
{
    size_t n, k, rank;
    const struct plans_column *cols = plans_table_columns(&n);
    char head[160];
    struct ranking_cursor c;
    struct ranking_row row;
    bool ok;
    for (k = 0; k < n; k++) {
        plans_table_header(&cols[k], head, sizeof head);
        if (k > 0)
            fputc(',', f);
        csv_out_field(f, head);
    }
    fputs("\r\n", f);
    if (scope == CSV_OUT_SHEET) { /* the Plans sheet's rows, its order */
        for (k = 0; k < r->nsheet && !ferror(f); k++)
            write_row(r, f, &r->rank->rows[r->sheet[k]],
                      ranking_row_rank(r->rank, r->sheet[k]));
        return true;
    }
    if (scope == CSV_OUT_KEPT) {
        for (k = 0; k < r->rank->nrows && !ferror(f); k++)
            write_row(r, f, &r->rank->rows[k], ranking_row_rank(r->rank, k));
        return true;
    }
    ranking_cursor_init(&c, r->rank);
    while (!ferror(f) && ranking_cursor_next(&c, &row, &rank))
        write_row(r, f, &row, rank);
    ok = !c.failed;
    ranking_cursor_release(&c);
    return ok;
}

enum status csv_out_write(const struct views *r,
                          const char *path,
                          enum csv_out_scope scope,
                          struct diag *d)
{
    char tmp[1100];
    FILE *f;
    int err;
    if (out_file_temp(path, tmp, sizeof tmp, d) != STATUS_OK)
        return d->status;
    f = fopen(tmp, "w");
    if (!f) {
        err = errno;
        unlink(tmp);
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(err));
    }
    errno = 0;
    if (!write_rows(r, scope, f) && !ferror(f)) {
        fclose(f);
        unlink(tmp);
        return diag_set(d, STATUS_IO,
                        "%s: cannot read back the list of plans: %s", path,
                        strerror(errno ? errno : EIO));
    }
    err = ferror(f) ? (errno ? errno : EIO) : 0;
    if (fclose(f) != 0 && !err)
        err = errno ? errno : EIO;
    if (err) {
        unlink(tmp);
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(err));
    }
    return out_file_commit(tmp, path, d);
}
