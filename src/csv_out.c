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

/* Header and rows; stream errors are caught by the caller's ferror(). */
struct sink {
    const struct report *r;
    FILE *f;
};

/* One CSV line of row (rank 0: unranked). */
static void write_row(const struct report *r,
                      FILE *f,
                      const struct report_row *row,
                      size_t rank)
{
    size_t n, k;
    const struct plans_column *cols = plans_table_columns(&n);
    struct cost_times t;
    if (ferror(f))
        return;
    report_row_times(r, row, &t);
    for (k = 0; k < n; k++) {
        struct plans_value v;
        plans_table_value_row(&cols[k], r, row, rank, &t, &v);
        if (k > 0)
            fputc(',', f);
        if (v.kind == PLANS_NUMBER)
            fprintf(f, "%.17g", v.num);
        else if (v.kind == PLANS_BOOL)
            fputs(v.flag ? "TRUE" : "FALSE", f);
        else
            csv_out_field(f, v.str);
    }
    fputs("\r\n", f);
}

static void emit_extra(void *out, const struct report_row *row)
{
    struct sink *s = out;
    write_row(s->r, s->f, row, 0);
}

static void
write_rows(const struct report *r, FILE *f, const struct csv_extra *extra)
{
    size_t n, i, k;
    const struct plans_column *cols = plans_table_columns(&n);
    char head[160];
    struct sink sink;
    for (k = 0; k < n; k++) {
        plans_table_header(&cols[k], head, sizeof head);
        if (k > 0)
            fputc(',', f);
        csv_out_field(f, head);
    }
    fputs("\r\n", f);
    for (i = 0; i < r->nrows && !ferror(f); i++)
        write_row(r, f, &r->rows[i], i + 1);
    sink.r = r;
    sink.f = f;
    if (extra && extra->each && !ferror(f))
        extra->each(extra->user, emit_extra, &sink);
}

enum status csv_out_write(const struct report *r,
                          const char *path,
                          const struct csv_extra *extra,
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
    write_rows(r, f, extra);
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
