/*
 * datafile_schema: the tables that describe a data file. A schema lists
 * every accepted section and key with its type, unit, range, default and
 * meaning; the loader (datafile.h) walks it, and so do `roofplan schema`
 * (data/README.md) and the workbook's Assumptions sheet.
 *
 * Owns: the schema types and the Markdown table of a schema. Calls
 * datafile_value for what a field accepts. Knows no particular file:
 * model, hardware, sweep, calibration, stack and validation own their
 * schemas.
 */
#ifndef PROJ_DATAFILE_SCHEMA_H
#define PROJ_DATAFILE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum datafile_type {
    DATAFILE_INT,    /* long, stored at offset */
    DATAFILE_DOUBLE, /* double */
    DATAFILE_BOOL,   /* bool: true|false (no other words) */
    DATAFILE_STRING, /* char[size]; with max > 0, a list of numbers each in
                        min..max that the file's owner splits and checks
                        (a calibration's measured lists) */
    DATAFILE_ENUM,   /* int: the index of one of the field's words */
    DATAFILE_LIST    /* struct datafile_list: numbers, ranges or words */
};

#define DATAFILE_LIST_MAX   256 /* values in one list */
#define DATAFILE_FIELDS_MAX 96  /* fields in one schema */
#define DATAFILE_TEXT_MAX   200 /* a value's text, as inih reads lines */

/* A list value: numbers, or word indexes when the field has words. */
struct datafile_list {
    size_t n;
    double v[DATAFILE_LIST_MAX];
};

/*
 * The words an enum field accepts: the i-th (i = 0, 1, ...), NULL past the
 * last. The table that owns the enum's rows answers (plan_schedule_word
 * reads the schedule rows), so a word is written once, where its thing is
 * described; messages and data/README.md join them with '|'.
 */
typedef const char *datafile_word_fn(int i);

/* The body of most word functions: words[i] of a table of words indexed
 * by the enum's constants ([MODEL_GQA] = "gqa"), NULL outside it. */
#define DATAFILE_WORD_AT(words, i)                                           \
    ((i) >= 0 && (size_t)(i) < sizeof(words) / sizeof(words)[0] ? (words)[i] \
                                                                : NULL)

struct datafile_field {
    const char *section;
    const char *key;
    enum datafile_type type;
    size_t offset;          /* into the destination struct */
    size_t size;            /* DATAFILE_STRING: buffer size */
    double min, max;        /* numbers (each list item too): accepted range */
    bool min_open;          /* true: value must be > min (not >=) */
    bool required;          /* false: def applies when absent */
    const char *def;        /* text of the default, parsed like input */
    const char *unit;       /* e.g. "GB/s", "" for counts */
    datafile_word_fn *word; /* ENUM and enum LIST: the words, else NULL */
    const char *zero_word;  /* INT and number LIST: a word that stands for
                               0 where 0 means "not this file's" (a sweep's
                               gbs: `model`, the model's own), else NULL */
    const char *help;       /* one line, for data/README.md and Assumptions */
    bool quiet;             /* listed on the Assumptions sheet only where a
                               file gives it (the keys of a kind of layer
                               most models do not have) */
};

struct datafile_schema {
    const char *kind; /* "model", "hardware", "sweep", "validation" */
    const struct datafile_field *fields;
    size_t n;
};

/* Index of section.key in schema, or -1. */
long datafile_field_index(const struct datafile_schema *schema,
                          const char *section,
                          const char *key);

/*
 * Writes schema as a Markdown table (section, key, accepted values, unit,
 * default, meaning) to out: the schema part of data/README.md.
 */
void datafile_schema_markdown(const struct datafile_schema *schema, FILE *out);

#endif
