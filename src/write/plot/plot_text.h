/*
 * plot_text: the growing text of a chart (a script, a data file, one
 * placeholder's value) and the one way text from data files enters a
 * gnuplot script: as a single-quoted string literal.
 *
 * Owns: struct plot_text and plot_text_quote(). Calls only libc. A text
 * that ran out of memory stays valid (what fitted) and says so in
 * `nomem`; the writer checks once at the end instead of after every
 * append.
 */
#ifndef PROJ_PLOT_TEXT_H
#define PROJ_PLOT_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/* Zero-initialise ({0} or memset) before first use. */
struct plot_text {
    char *p;    /* NUL-terminated once anything was added; NULL before */
    size_t len; /* bytes in p, without the NUL */
    size_t cap; /* bytes allocated */
    bool nomem; /* an append failed; later appends are ignored */
};

/* Appends n bytes of s (which may hold NULs). */
void plot_text_add(struct plot_text *t, const char *s, size_t n);

/* Appends printf-formatted text. */
void plot_text_printf(struct plot_text *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends text as a gnuplot single-quoted string (plot_text_quote). */
void plot_text_add_quoted(struct plot_text *t, const char *text);

/* Empties t, keeping its memory and its nomem flag. */
void plot_text_clear(struct plot_text *t);

/* Frees t's memory and zeroes it; t may be reused. */
void plot_text_release(struct plot_text *t);

/*
 * Writes text into buf as a gnuplot single-quoted string literal, quotes
 * included, truncated at a character boundary to fit size. What gnuplot
 * would otherwise not show as written:
 *   - every ' is doubled (gnuplot's escape inside single quotes);
 *   - control characters and DEL become a space (a newline, or a
 *     backslash before one, would end the command and start another);
 *   - "]]>" becomes "]] >": gnuplot's SVG terminal escapes & and < in
 *     text but not >, and "]]>" may not appear in XML character data,
 *     so one such name would make every SVG malformed.
 * Nothing else is special inside single quotes (no backticks, no @macros,
 * no enhanced-text markup under `noenhanced`). Returns false when
 * truncated (or size < 3: buf is then "" when size > 0).
 *
 *   plot_text_quote("it's", buf, sizeof buf);   // buf: 'it''s'
 *
 * A buffer of 2 * strlen(text) + 3 bytes always holds the whole text.
 */
bool plot_text_quote(const char *text, char *buf, size_t size);

#endif
