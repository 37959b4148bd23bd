/*
 * fuzz_util: what the libFuzzer targets in tests/fuzz/ share — the entry
 * points libFuzzer calls, an in-memory file (memfd) that the loaders can
 * open by path, paths of the checked-in data files, and a byte consumer
 * (after LLVM's FuzzedDataProvider) for targets that build structured
 * values from the input. Test code only: never linked into roofplan.
 */
#ifndef PROJ_FUZZ_UTIL_H
#define PROJ_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "datafile.h"
#include "diag.h"

/* libFuzzer's entry points, defined once per target. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* An anonymous in-memory file and a path that opens it afresh. */
struct fuzz_file {
    int fd;
    char path[64]; /* "/proc/self/fd/N" */
};

/*
 * Creates the in-memory file; calls abort() when the system cannot (a
 * broken harness, not a finding). Lives for the whole fuzzing process.
 */
void fuzz_file_init(struct fuzz_file *f);

/* Replaces the file's contents with size bytes of data; aborts on error. */
void fuzz_file_write(const struct fuzz_file *f,
                     const uint8_t *data,
                     size_t size);

/*
 * Writes into buf the absolute path of rel ("models/deepseek-v3.ini")
 * under the data directory (ROOFPLAN_DATADIR) and returns buf. Test
 * fixtures ("tests/data/x.ini") are found beside it, under its parent.
 */
const char *fuzz_data_path(const char *rel, char *buf, size_t size);

/* A data-file loader (model_load, hardware_load, sweep_load) without
 * overrides, and the release of what it loaded. */
typedef enum status (*fuzz_loader)(const char *path,
                                   void *dest,
                                   struct diag *d);
typedef void (*fuzz_release)(void *dest);

/* Checks what a loader accepted (fuzz_need_loaded on its parts). */
typedef void (*fuzz_verify)(const void *dest);

/*
 * The loader targets' one test: writes data into f, loads it into a fresh
 * dest of dest_size bytes, and aborts when a load succeeds with a message
 * or fails without one, or fails with a message that is not text
 * (fuzz_need_text); a success is verified (verify may be NULL). Releases
 * and frees dest.
 */
void fuzz_load(const struct fuzz_file *f,
               const uint8_t *data,
               size_t size,
               size_t dest_size,
               fuzz_loader load,
               fuzz_verify verify,
               fuzz_release release);

/*
 * Aborts unless s is text roofplan may print or write: well-formed UTF-8
 * (RFC 3629) without control characters but tab, and newline where
 * `lines` (diag messages, eval output). Written apart from
 * datafile_text_check() so that each checks the other.
 */
void fuzz_need_text(const char *s, bool lines);

/*
 * Aborts unless what a loader accepted keeps its schema's promises: every
 * number finite, not subnormal, within [min, max] (above min when open),
 * integers whole; enum indexes in range; lists of 1 to DATAFILE_LIST_MAX
 * values, none repeated; strings and sources text (fuzz_need_text). spec
 * is the struct the schema's offsets describe (model_spec, ...).
 */
void fuzz_need_loaded(const struct datafile_schema *schema,
                      const void *spec,
                      const struct datafile_meta *meta);

/* A NUL-terminated copy of the input, or NULL; free() it. */
char *fuzz_cstring(const uint8_t *data, size_t size);

/* Reads the input front to back; an exhausted input gives zeros. */
struct fuzz_bytes {
    const uint8_t *data;
    size_t size;
};

uint8_t fuzz_u8(struct fuzz_bytes *b);
uint32_t fuzz_u32(struct fuzz_bytes *b);
bool fuzz_bool(struct fuzz_bytes *b);

/* A value in lo..hi (inclusive; hi - lo < 2^32). */
long fuzz_range(struct fuzz_bytes *b, long lo, long hi);

/* A value in [0, 1). */
double fuzz_unit(struct fuzz_bytes *b);

#endif
