/*
 * diag: status names and the bounded, multi-line error message.
 */
#include "diag.h"

#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* Room kept in msg for diag_finish()'s note. */
#define NOTE_ROOM 48

size_t diag_utf8_cut(const char *text, size_t len)
{
    const unsigned char *u = (const unsigned char *)text;
    size_t lead = len, need;
    while (lead > 0 && len - lead < 4 && (u[lead - 1] & 0xC0) == 0x80)
        lead--;
    if (lead == 0)
        return len;
    lead--; /* u[lead] starts the last character */
    need = u[lead] >= 0xF0 ? 4 : u[lead] >= 0xE0 ? 3 : u[lead] >= 0xC0 ? 2 : 1;
    return lead + need > len ? lead : len;
}

int diag_utf8_prec(const char *text, size_t max)
{
    size_t len;
    if (max > INT_MAX)
        max = INT_MAX;
    len = strnlen(text, max);
    if (len == max && text[len] != '\0')
        len = diag_utf8_cut(text, len);
    return (int)len;
}

int diag_snprintf(char *buf, size_t size, const char *fmt, ...)
{
    va_list ap;
    int n;
    if (size == 0)
        return 0;
    va_start(ap, fmt);
    n = vsnprintf(buf, size, fmt, ap);
    va_end(ap);
    if (n < 0)
        buf[0] = '\0';
    else if ((size_t)n >= size)
        buf[diag_utf8_cut(buf, size - 1)] = '\0';
    return n;
}

void diag_init(struct diag *d)
{
    d->status = STATUS_OK;
    d->lines = 0;
    d->dropped = 0;
    d->msg[0] = '\0';
}

/*
 * Appends the '\n'-separated lines of text that fit whole, keeping `keep`
 * bytes free, and counts the others as dropped: a line is never cut, but
 * for a first line longer than msg itself.
 */
static void append_text(struct diag *d, const char *text, size_t keep)
{
    size_t used = strlen(d->msg);
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        size_t need = (used > 0 ? 1 : 0) + len + 1;
        if (used == 0 && need + keep > sizeof d->msg) {
            /* A first line too long for msg: better cut than lost. */
            len = diag_utf8_cut(text, sizeof d->msg - keep - 1);
            memcpy(d->msg, text, len);
            d->msg[len] = '\0';
            used = len;
        } else if (used + need + keep > sizeof d->msg) {
            d->dropped++;
        } else {
            if (used > 0)
                d->msg[used++] = '\n';
            memcpy(d->msg + used, text, len);
            used += len;
            d->msg[used] = '\0';
        }
        if (!nl)
            break;
        text = nl + 1;
    }
}

static void append_line(struct diag *d, const char *fmt, va_list ap)
{
    char line[DIAG_MSG_MAX];
    int n = vsnprintf(line, sizeof line, fmt, ap);
    if (n >= (int)sizeof line) /* cut: not inside a character */
        line[diag_utf8_cut(line, sizeof line - 1)] = '\0';
    append_text(d, line, NOTE_ROOM);
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
    if (d->lines > DIAG_LINES_MAX) {
        d->dropped++;
        return d->status;
    }
    va_start(ap, fmt);
    append_line(d, fmt, ap);
    va_end(ap);
    return d->status;
}

void diag_finish(struct diag *d)
{
    char note[NOTE_ROOM];
    if (d->dropped == 0)
        return;
    snprintf(note, sizeof note, "... and %zu more problem%s", d->dropped,
             d->dropped == 1 ? "" : "s");
    d->dropped = 0;
    append_text(d, note, 0);
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
