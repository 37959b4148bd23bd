/*
 * datafile_text: the text roofplan accepts and how it quotes the rest.
 * Text from data files, --set, file names and PLAN ends up in XML (the
 * workbook), SVG and gnuplot scripts (the charts) and on terminals, so
 * it is checked once, here, and anything else is shown escaped.
 *
 * Owns: the rule (well-formed UTF-8 without control characters). Calls
 * nothing but libc.
 */
#ifndef PROJ_DATAFILE_TEXT_H
#define PROJ_DATAFILE_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Whether text[0..len) is text roofplan can carry into its workbook (XML),
 * its charts (SVG, gnuplot) and a terminal: well-formed UTF-8 (RFC 3629:
 * no overlong forms, surrogates or code points above U+10FFFF) with no
 * control character but tab (C0, DEL and C1 are refused, so are the
 * non-characters U+FFFE and U+FFFF, which XML 1.0 forbids). On a problem
 * returns false, sets *column to its 1-based character position and
 * writes what it is into why ("control character U+001B", "invalid UTF-8
 * (byte 0xFF)"). Data files, --set arguments and input paths are checked
 * with it; callers may check other text (PLAN tokens, output paths).
 */
bool datafile_text_check(const char *text,
                         size_t len,
                         size_t *column,
                         char *why,
                         size_t why_size);

/*
 * Copies the NUL-terminated text into buf (size > 0) for a message: what
 * datafile_text_check() accepts as it is, every byte of anything else as
 * \xNN; when it does not fit, cut at a character boundary and ended
 * with "...". Always NUL-terminates.
 *
 *   datafile_text_quote("a\x1b[2Jb", buf, sizeof buf);  -> a\x1B[2Jb
 */
void datafile_text_quote(const char *text, char *buf, size_t size);

/*
 * The NUL-terminated text as XML (a workbook cell, a chart's name) may
 * carry it: what datafile_text_check() accepts, and newlines, as they
 * are; every byte of anything else as \xNN (invalid UTF-8, such as a
 * Latin-1 path; control characters XML forbids or terminals act on).
 * Writes into buf as much as fits in size bytes with the NUL (buf may
 * be NULL when size is 0) and returns the length of the whole, as
 * snprintf: equal to strlen(text) exactly when nothing is escaped;
 * 4 x strlen(text) + 1 bytes always hold it. Never cuts.
 *
 *   datafile_text_xml("M\xe4rz\n", buf, sizeof buf);  -> M\xE4rz + newline
 */
size_t datafile_text_xml(const char *text, char *buf, size_t size);

#endif
