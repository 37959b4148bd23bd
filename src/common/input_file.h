/*
 * input_file: the one way roofplan opens a file it reads (data files,
 * config.json, nccl-tests output, templates, the inputs it checksums).
 *
 * A path may name a FIFO, a terminal or a directory: a plain fopen() of a
 * FIFO waits for a writer forever. So the file is opened without blocking,
 * checked to be a regular file with fstat() on the open descriptor (no race
 * with a rename between a stat() and the open), and its size bounded
 * before anything is read.
 *
 * Owns: opening and reading input files. Calls diag and libc.
 */
#ifndef PROJ_INPUT_FILE_H
#define PROJ_INPUT_FILE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "diag.h"

/*
 * Opens the regular file at path for reading and returns it as a stream
 * in *out (the caller fcloses it), its size in *size. The open never
 * blocks: a FIFO, device, socket or directory is refused. max_bytes > 0
 * refuses a larger file; 0 accepts any size (a streamed reader bounds
 * what it keeps itself). Errors are added to d with the path:
 *   STATUS_IO     "PATH: cannot open: No such file or directory"
 *                 "PATH: not a regular file"
 *   STATUS_PARSE  "PATH: too large (N bytes; at most M)"
 * and *out is NULL.
 *
 *   FILE *f;
 *   size_t n;
 *   if (input_file_open("trace.json.gz", 0, &f, &n, d) != STATUS_OK)
 *       return d->status;
 */
enum status input_file_open(const char *path,
                            size_t max_bytes,
                            FILE **out,
                            size_t *size,
                            struct diag *d);

/*
 * Reads the regular file at path whole (as input_file_open() opens it,
 * at most max_bytes, which must be > 0) into a NUL-terminated buffer in
 * *out that the caller frees; its length in *len (a file that shrank
 * while read gives what was there). Errors as input_file_open(), and
 * STATUS_IO "PATH: cannot read: ...", STATUS_NOMEM.
 */
enum status input_file_read(const char *path,
                            size_t max_bytes,
                            char **out,
                            size_t *len,
                            struct diag *d);

/*
 * As input_file_read(), the file `name` of the directory open as dirfd,
 * never through a symbolic link: for a file of roofplan's own in a folder
 * others may write (an output directory's manifest, a staging directory's
 * journal), where a link, a FIFO or a device put in its place must be
 * neither followed nor waited on. A link is "not a regular file"; the
 * type is checked before the open (a FIFO is never opened) and again on
 * the open descriptor. A missing file is no error: STATUS_OK with *out
 * NULL and *len 0. Messages name the file as `shown`.
 *
 *   st = input_file_read_at(dir_fd, ".roofplan-manifest",
 *                           "out/.roofplan-manifest", 65536, &text, &len, d);
 */
enum status input_file_read_at(int dirfd,
                               const char *name,
                               const char *shown,
                               size_t max_bytes,
                               char **out,
                               size_t *len,
                               struct diag *d);

/*
 * As input_file_read_at(), and the file must be user `owner`'s (checked
 * on the open descriptor): one of another user's is refused, STATUS_IO
 * "SHOWN: owned by user N, not M". For a mark roofplan leaves in a
 * directory of its own, where another user cannot have put a file of
 * roofplan's user ((uid_t)-1: any owner).
 *
 *   st = input_file_read_own_at(stage_fd, ".roofplan-stage",
 *                               ".roofplan-stage", geteuid(), 256,
 *                               &text, &len, d);
 */
enum status input_file_read_own_at(int dirfd,
                                   const char *name,
                                   const char *shown,
                                   uid_t owner,
                                   size_t max_bytes,
                                   char **out,
                                   size_t *len,
                                   struct diag *d);

#endif
