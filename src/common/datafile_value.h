/*
 * datafile_value: strict parsing of the values of data files, --set and
 * the command line: numbers in plain decimal only (jq), a field's scalar
 * checked against its range or words, and lists ("1 2 4", "1..64 x2",
 * "2..16 +2", "fp8 bf16").
 *
 * Owns: the number syntax and what a field accepts. Calls nothing but
 * libc; the loader (datafile.h) stores what it parses.
 */
#ifndef PROJ_DATAFILE_VALUE_H
#define PROJ_DATAFILE_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "datafile_schema.h"

/*
 * Strict number parsing (jq): the whole text must be one finite number in
 * plain decimal, [+-]digits[.digits][e[+-]digits] (an integer: [+-]digits).
 * Return false on blanks, trailing text, hexadecimal, overflow, NaN,
 * infinity, and (doubles) subnormal values: below DBL_MIN, 2.2e-308,
 * any nonzero magnitude is refused.
 */
bool datafile_parse_double(const char *text, double *out);
bool datafile_parse_long(const char *text, long *out);

/*
 * Parses one value of field f from text into *out (numbers and enum
 * indexes as double), checking the range. On failure writes the problem
 * ("expected an integer in 1..64, got \"x\"") into why and returns false.
 */
bool datafile_parse_scalar(const struct datafile_field *f,
                           const char *text,
                           double *out,
                           char *why,
                           size_t why_size);

/*
 * Parses a list value of field f ("1 2 4", "1,2,4", "1..64 x2",
 * "2..16 +2", "fp8 bf16": numbers, ranges with a step, or f's words)
 * into *l, each item checked as datafile_parse_scalar() checks it;
 * duplicates collapse. On failure writes the problem into why and
 * returns false.
 */
bool datafile_parse_list(const struct datafile_field *f,
                         const char *text,
                         struct datafile_list *l,
                         char *why,
                         size_t why_size);

/* Describes what f accepts ("an integer in 1..64"), for messages. */
void datafile_describe(const struct datafile_field *f, char *buf, size_t size);

/*
 * The words `word` answers, joined with '|' ("1f1b|interleaved|zb"), into
 * buf (cut at size, always terminated): what a message or data/README.md
 * shows an enum field to accept.
 */
void datafile_words_join(datafile_word_fn *word, char *buf, size_t size);

/* The index of text among the words `word` answers, or -1. */
int datafile_word_index(datafile_word_fn *word, const char *text);

#endif
