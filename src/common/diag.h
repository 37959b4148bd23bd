/*
 * diag: the one status enum of roofplan and the caller-owned error record.
 *
 * Library code never prints or exits: a failing call fills a struct diag
 * and returns its status; main() prints diag.msg and picks the exit code.
 * A diag can hold several lines ("report every bad line of a file"): each
 * diag_add() appends one line; diag_set() starts afresh.
 */
#ifndef PROJ_DIAG_H
#define PROJ_DIAG_H

#include <stddef.h>

enum status {
    STATUS_OK = 0,
    STATUS_USAGE, /* bad command line */
    STATUS_IO,    /* a file could not be read or written */
    STATUS_PARSE, /* malformed input text */
    STATUS_RANGE, /* a well-formed value outside its accepted range */
    STATUS_NOMEM,
    STATUS_XLSX, /* libxlsxwriter failed */
    STATUS_PLOT  /* gnuplot failed */
};

#define DIAG_MSG_MAX   4096
#define DIAG_LINES_MAX 40 /* lines kept; later ones are only counted */

struct diag {
    enum status status;     /* first failing status, STATUS_OK if none */
    size_t lines;           /* lines added (may exceed DIAG_LINES_MAX) */
    size_t dropped;         /* lines not kept: over the cap or no room */
    char msg[DIAG_MSG_MAX]; /* newline-separated, no trailing newline */
};

/* Clears d to STATUS_OK with an empty message. */
void diag_init(struct diag *d);

/*
 * Replaces d's message with one formatted line and sets its status.
 * Returns st so callers can write `return diag_set(d, STATUS_IO, ...)`.
 */
enum status diag_set(struct diag *d, enum status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * Appends one formatted line (or several, '\n'-separated) to d; the first
 * status added is kept. Past DIAG_LINES_MAX lines, or when msg has no room
 * for a whole line, the line is only counted; diag_finish() then adds
 * "... and N more". Returns d->status.
 */
enum status diag_add(struct diag *d, enum status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Adds the "... and N more problems" line when lines were dropped. */
void diag_finish(struct diag *d);

/*
 * len, or less, so that the first len bytes of text (valid UTF-8) do not
 * end inside a character: where to cut text to at most len bytes so that
 * what is kept is still text (a name cut for a fixed buffer, a message
 * cut for its room).
 *
 *   diag_utf8_cut("caf\xC3\xA9", 4)  -> 3 ("caf", not half of the e-acute)
 */
size_t diag_utf8_cut(const char *text, size_t len);

/*
 * The precision to print text with "%.*s" so that at most max bytes of
 * it show, cut at a character boundary (diag_utf8_cut):
 *
 *   snprintf(buf, size, "%.*s on ...", diag_utf8_prec(name, 60), name);
 */
int diag_utf8_prec(const char *text, size_t max);

/*
 * snprintf() into buf (size > 0) that, when the text does not fit, cuts
 * it at a UTF-8 character boundary (diag_utf8_cut) rather than inside a
 * character: every copy of a name into a fixed buffer goes through it.
 * Returns what snprintf returns (the length of the whole text).
 */
int diag_snprintf(char *buf, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Short English name of a status, e.g. "bad input"; never NULL. */
const char *status_str(enum status st);

#endif
