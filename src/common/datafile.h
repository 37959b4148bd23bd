/*
 * datafile: INI files (read with inih) into typed structs, driven by a
 * schema table of the caller's (datafile_schema.h); --set overrides;
 * sources.
 *
 * Loading reports every problem of the file at once, each as
 * "path:line: section.key: problem", and fills the struct only when there
 * is none. Any section may hold `source = text` (the source of every
 * value in it) and any key may have `key.source = text` (its own).
 *
 * Owns: reading a file (datafile_read(), also hf_config's, through
 * input_file), the INI reader, --set and the sources of values. Calls
 * datafile_text (every line is checked text), datafile_value (numbers
 * and lists) and datafile_schema; this header includes those three, so a
 * caller of the data files includes datafile.h alone. This module knows
 * no particular file: model, hardware, sweep, calibration, stack and
 * validation own their schemas. It does not print.
 */
#ifndef PROJ_DATAFILE_H
#define PROJ_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "datafile_schema.h"
#include "datafile_text.h"
#include "datafile_value.h"
#include "diag.h"

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
    char *path; /* the file as given (any length); NULL until loaded */
    const struct datafile_schema *schema;
    long line[DATAFILE_FIELDS_MAX];            /* 0: default or --set */
    bool given[DATAFILE_FIELDS_MAX];           /* in the file or by --set */
    char *source[DATAFILE_FIELDS_MAX];         /* NULL when none given */
    char *section_source[DATAFILE_FIELDS_MAX]; /* per field's section */
    char *set_arg[DATAFILE_FIELDS_MAX]; /* the --set given ("sec.key=val");
                                         * NULL: the file's or default */
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
 * datafile_load() of text[0..len) (text[len] a NUL; borrowed) as if it
 * were the file `name`, without overrides: for text a program wrote and
 * is about to hand out, checked as any file of its kind will be.
 */
enum status datafile_load_text(const char *name,
                               const char *text,
                               size_t len,
                               const struct datafile_schema *schema,
                               void *dest,
                               struct datafile_meta *meta,
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

/*
 * Where field i's value came from, for a message about it (the caller
 * adds ": problem"), into buf: "path:line: sec.key" from a line of the
 * file, "path: --set sec.key=value" (the argument as typed) from the
 * command line, "path: sec.key" for its default. Cut at a character
 * boundary where it does not fit. Returns buf.
 *
 *   datafile_meta_where(&hw->meta, i, buf, sizeof buf);
 *   -> "data/hardware/h800.ini: --set cluster.ib_gbps=60"
 */
const char *datafile_meta_where(const struct datafile_meta *meta,
                                size_t i,
                                char *buf,
                                size_t size);

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

#endif
