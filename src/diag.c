/*
 * diag: status names and the bounded, multi-line error message.
 */
#include "diag.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void diag_init(struct diag *d)
{
    d->status = STATUS_OK;
    d->lines = 0;
    d->msg[0] = '\0';
}

/* Appends a formatted line, truncating (never overflowing) the buffer. */
static void append_line(struct diag *d, const char *fmt, va_list ap)
{
    size_t used = strlen(d->msg);
    if (used > 0 && used + 1 < sizeof d->msg) {
        d->msg[used++] = '\n';
        d->msg[used] = '\0';
    }
    if (used + 1 >= sizeof d->msg)
        return;
    vsnprintf(d->msg + used, sizeof d->msg - used, fmt, ap);
}

enum status diag_set(struct diag *d, enum status st, const char *fmt, ...)
{
    va_list ap;
    diag_init(d);
    d->status = st;
    d->lines = 1;
    va_start(ap, fmt);
    append_line(d, fmt, ap);
    va_end(ap);
    return st;
}

enum status diag_add(struct diag *d, enum status st, const char *fmt, ...)
{
    va_list ap;
    if (d->status == STATUS_OK)
        d->status = st;
    d->lines++;
    if (d->lines > DIAG_LINES_MAX)
        return d->status;
    va_start(ap, fmt);
    append_line(d, fmt, ap);
    va_end(ap);
    return d->status;
}

void diag_finish(struct diag *d)
{
    if (d->lines > DIAG_LINES_MAX) {
        size_t more = d->lines - DIAG_LINES_MAX;
        d->lines = DIAG_LINES_MAX; /* so the note is not itself dropped */
        diag_add(d, d->status, "... and %zu more problem%s", more,
                 more == 1 ? "" : "s");
    }
}

const char *status_str(enum status st)
{
    static const char *const names[] = {
        [STATUS_OK] = "success",      [STATUS_USAGE] = "bad usage",
        [STATUS_IO] = "I/O error",    [STATUS_PARSE] = "parse error",
        [STATUS_RANGE] = "bad value", [STATUS_NOMEM] = "out of memory",
        [STATUS_XLSX] = "xlsx error", [STATUS_PLOT] = "gnuplot error",
    };
    if ((size_t)st < sizeof names / sizeof names[0] && names[st])
        return names[st];
    return "unknown error";
}
