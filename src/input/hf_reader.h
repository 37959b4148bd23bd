/*
 * hf_reader: the generic half of reading a Hugging Face config.json:
 * top-level values taken by key (and remembered as read, so the keys left
 * over can be refused), checked as model_schema() has the field (type and
 * range), stored into a struct model_spec, each with a source that names
 * the file and the key or says why the value is implied.
 *
 * Owns: struct hf_reader and the value helpers. Calls cJSON, datafile (the
 * schema's fields and ranges) and the model schema; knows no architecture
 * (hf_arch reads those with these helpers; hf_config parses the file and
 * checks its keys). It does not print: problems go to the reader's diag,
 * each naming the file and the key.
 */
#ifndef PROJ_HF_READER_H
#define PROJ_HF_READER_H

#include <stdbool.h>
#include <stddef.h>

#include <cjson/cJSON.h>

#include "datafile.h"
#include "diag.h"
#include "model.h"

#define HF_READER_USED_MAX 512 /* top-level keys tracked; more "unknown" */

/* One config.json being read; zero it, then set what hf_config sets. */
struct hf_reader {
    const char *path;
    const cJSON *root;     /* the parsed file, a JSON object */
    int arch;              /* hf_arch's index of the architecture */
    const char *arch_name; /* its class name, for messages */
    struct model_spec *spec;
    struct datafile_meta *meta;
    const cJSON *outer; /* a wrapper's object (Llama 4's), root then its
                         * text_config; NULL when the model is the file */
    const cJSON *used[HF_READER_USED_MAX]; /* keys read (or passed on
                                            * purpose) */
    size_t nused;
    struct diag *d;
};

/* Text from the file as a message may quote it, into buf (size > 0): at
 * most max bytes, as datafile_text_quote() writes it (control characters
 * and invalid UTF-8 as \xNN: a newline would split the message's line,
 * a stray byte would make it not text). Returns buf. */
const char *
hf_reader_quote(const char *text, size_t max, char *buf, size_t size);

/* A JSON value as a message shows it: 7168, "gelu", true, null, an array. */
void hf_reader_show(const cJSON *it, char *buf, size_t size);

/* The top-level value of key (marked as read), or NULL when absent. */
const cJSON *hf_reader_take(struct hf_reader *r, const char *key);

/* Whether a value is absent (NULL) or JSON null. */
bool hf_reader_absent(const cJSON *it);

/* Index of section.key in model_schema(); the caller names a field that
 * exists. */
long hf_reader_field(const char *section, const char *key);

/* Where field fi (model_schema()'s index) lives in r->spec. */
void *hf_reader_slot(struct hf_reader *r, long fi);

/* Records field fi as given by this file, with "path: <text>" as its
 * source (printf format). */
void hf_reader_source(struct hf_reader *r, long fi, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/*
 * The integer at key into *out: false (problem added, naming key and
 * want) when present but not an integer in [min, max]; *found tells
 * whether a number was given (absent and null leave *out alone).
 */
bool hf_reader_get_int(struct hf_reader *r,
                       const char *key,
                       double min,
                       double max,
                       const char *want,
                       bool *found,
                       long *out);

/* Whether a config.json key must be there (hf_reader_int_field). */
enum hf_need {
    HF_OPTIONAL, /* absent or null: a default, with its source */
    HF_REQUIRED  /* absent or null: an error */
};

/*
 * Reads key as an integer into model_schema()'s section.name (its range).
 * Absent or null: an error when HF_REQUIRED (naming r->arch_name), else
 * def with why as source. Returns whether a value was given.
 */
bool hf_reader_int_field(struct hf_reader *r,
                         const char *key,
                         const char *section,
                         const char *name,
                         enum hf_need need,
                         long def,
                         const char *why);

/* A value the architecture implies (no key says it), with why as its
 * source: into a long, an int (enum) or a bool field. */
void hf_reader_fix_long(struct hf_reader *r,
                        const char *section,
                        const char *name,
                        long v,
                        const char *why);
void hf_reader_fix_int(struct hf_reader *r,
                       const char *section,
                       const char *name,
                       int v,
                       const char *why);
void hf_reader_fix_bool(struct hf_reader *r,
                        const char *section,
                        const char *name,
                        bool v,
                        const char *why);

/*
 * Writes the n layers of mixer[] and mlp[] (enum model_mixer, enum
 * model_mlp) as model.pattern, with why as its source, and
 * moe.first_dense_layers 0 (the pattern holds the dense layers). A
 * pattern too irregular for the field is a problem naming key.
 */
void hf_reader_pattern(struct hf_reader *r,
                       const char *key,
                       const unsigned char *mixer,
                       const unsigned char *mlp,
                       size_t n,
                       const char *why);

/* The boolean at key; absent or null: def. False (problem added) on a
 * non-boolean. */
bool hf_reader_get_bool(struct hf_reader *r,
                        const char *key,
                        bool def,
                        bool *out);

#endif
