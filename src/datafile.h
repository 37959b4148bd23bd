/*
 * datafile: INI files (read with inih) into typed structs, driven by a
 * schema table of the caller's; strict numbers; --set overrides; sources.
 *
 * A schema lists every accepted section and key with its type, unit,
 * range and default. Loading reports every problem of the file at once,
 * each as "path:line: section.key: problem", and fills the struct only
 * when there is none. Any section may hold `source = text` (the source of
 * every value in it) and any key may have `key.source = text` (its own).
 * This module knows no particular file: model, hardware and sweep own
 * their schemas. It does not print.
 */
#ifndef PROJ_DATAFILE_H
#define PROJ_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "diag.h"

enum datafile_type {
    DATAFILE_INT,    /* long, stored at offset */
    DATAFILE_DOUBLE, /* double */
    DATAFILE_BOOL,   /* bool: true|false|yes|no|on|off */
    DATAFILE_STRING, /* char[size] */
    DATAFILE_ENUM,   /* int: index into choices "a|b|c" */
    DATAFILE_LIST    /* struct datafile_list: numbers, ranges or choices */
};

#define DATAFILE_LIST_MAX   256 /* values in one list */
#define DATAFILE_FIELDS_MAX 80  /* fields in one schema */
#define DATAFILE_TEXT_MAX   200 /* a value's text, as inih reads lines */

/* A list value: numbers, or enum indexes when the field has choices. */
struct datafile_list {
    size_t n;
    double v[DATAFILE_LIST_MAX];
};

struct datafile_field {
    const char *section;
    const char *key;
    enum datafile_type type;
    size_t offset;       /* into the destination struct */
    size_t size;         /* DATAFILE_STRING: buffer size */
    double min, max;     /* numbers (each list item too): accepted range */
    bool min_open;       /* true: value must be > min (not >=) */
    bool required;       /* false: def applies when absent */
    const char *def;     /* text of the default, parsed like input */
    const char *unit;    /* e.g. "GB/s", "" for counts */
    const char *choices; /* ENUM and enum LIST: "1f1b|interleaved|zb" */
    const char *help;    /* one line, for data/README.md and Assumptions */
};

struct datafile_schema {
    const char *kind; /* "model", "hardware", "sweep", "validation" */
    const struct datafile_field *fields;
    size_t n;
};

/* A --set override: section.key=value, with the argument kept for errors. */
struct datafile_set {
    char section[64];
    char key[64];
    char value[DATAFILE_TEXT_MAX];
    char arg[DATAFILE_TEXT_MAX + 130]; /* the token as typed */
    bool used;                         /* set by datafile_load on a match */
};

/* Where each field's value came from; owned by the loaded struct. */
struct datafile_meta {
    char path[512];
    const struct datafile_schema *schema;
    long line[DATAFILE_FIELDS_MAX];            /* 0: default or --set */
    bool given[DATAFILE_FIELDS_MAX];           /* in the file or by --set */
    char *source[DATAFILE_FIELDS_MAX];         /* NULL when none given */
    char *section_source[DATAFILE_FIELDS_MAX]; /* per field's section */
};

/*
 * Reads the INI file at path against schema into dest (a struct whose
 * layout the schema's offsets describe), applying the overrides in sets
 * whose section belongs to schema (marking them used). On any problem,
 * returns STATUS_PARSE/STATUS_RANGE/STATUS_IO with every problem found in
 * d, one line each, and leaves dest partly written (callers discard it).
 * meta (may be NULL) receives lines and sources; release it with
 * datafile_meta_release(). path must name a regular file (a FIFO or a
 * device is refused without blocking) of at most 1 MiB, and be text by
 * datafile_text_check(); so must every line of the file (a leading UTF-8
 * byte-order mark is skipped, CRLF line ends are accepted).
 */
enum status datafile_load(const char *path,
                          const struct datafile_schema *schema,
                          void *dest,
                          struct datafile_meta *meta,
                          struct datafile_set *sets,
                          size_t nsets,
                          struct diag *d);

/*
 * Reads the whole file at path (at most 1 MiB) into a NUL-terminated
 * buffer the caller frees: opened without blocking (a FIFO is refused, not
 * waited on), checked to be a regular file, its name checked as text, a
 * leading UTF-8 byte-order mark dropped. Errors are added to d with the
 * path: STATUS_IO, STATUS_PARSE (too large), STATUS_USAGE (a file name
 * that is not text), STATUS_NOMEM.
 */
enum status
datafile_read(const char *path, char **out, size_t *len, struct diag *d);

/* Frees the strings meta holds; meta may be zeroed or NULL. */
void datafile_meta_release(struct datafile_meta *meta);

/*
 * The source text that applies to field i: its own `key.source`, else its
 * section's `source`, else "" (never NULL).
 */
const char *datafile_meta_source(const struct datafile_meta *meta, size_t i);

/* Index of section.key in schema, or -1. */
long datafile_field_index(const struct datafile_schema *schema,
                          const char *section,
                          const char *key);

/*
 * Parses "SEC.KEY=VALUE" (a --set argument) into out. Returns STATUS_USAGE
 * with a message naming the argument when it has no '.', no '=', or an
 * empty part.
 */
enum status
datafile_parse_set(const char *arg, struct datafile_set *out, struct diag *d);

/*
 * Writes into buf the name of the first [section] of the INI file at path
 * ("" if it has none; a byte-order mark before it is skipped), quoted by
 * datafile_text_quote(). For `roofplan check`, to tell a file's kind.
 */
enum status datafile_first_section(const char *path,
                                   char *buf,
                                   size_t size,
                                   struct diag *d);

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
 * Writes schema as a Markdown table (section, key, accepted values, unit,
 * default, meaning) to out: the schema part of data/README.md.
 */
void datafile_schema_markdown(const struct datafile_schema *schema, FILE *out);

/* Describes what f accepts ("an integer in 1..64"), for messages. */
void datafile_describe(const struct datafile_field *f, char *buf, size_t size);

#endif
