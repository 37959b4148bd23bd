/*
 * out_dir: a report written all at once or not at all. The writers put
 * every file of a report into a private staging directory inside the
 * output directory (".roofplan-XXXXXX", mode 0700, made by mkdtemp so
 * nothing there is followed through a symlink or shared with another
 * run); only when every part succeeded does out_dir_commit() rename them
 * into the output directory, one rename(2) each, and remove the earlier
 * report's files this report does not have. A failure or an abort removes
 * the staging directory and leaves the earlier report as it was.
 *
 * While open, the output directory is locked (flock on the directory
 * itself): a second run into the same directory waits for the first.
 *
 * Part of the common layer: used by main; calls libc only.
 */
#ifndef PROJ_OUT_DIR_H
#define PROJ_OUT_DIR_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"

/* Longest output directory accepted: room for the staging directory and
 * the longest file name within the writers' path buffers. */
#define OUT_DIR_MAX 900

/* Names of report files out_dir_commit() keeps track of. */
#define OUT_DIR_REPORT_MAX 64

struct out_dir {
    char dir[OUT_DIR_MAX + 1];
    char stage[OUT_DIR_MAX + 32]; /* "" when none */
    int lock_fd;                  /* -1 when not locked */
};

/*
 * Creates dir (and its parents) when missing, locks it (waiting for
 * another run to finish; *waited tells whether it had to), and makes the
 * staging directory. Returns STATUS_USAGE for an empty or too long path,
 * STATUS_IO when dir cannot be created, locked or written.
 */
enum status
out_dir_open(struct out_dir *o, const char *dir, bool *waited, struct diag *d);

/* The staged path of report file `name` ("report.xlsx") into buf. */
void out_dir_path(const struct out_dir *o,
                  const char *name,
                  char *buf,
                  size_t size);

/*
 * Moves the staged files named in `report` (the names any report may
 * have; a writer stages nothing else) into the output directory and
 * removes the earlier report's files this report lacks; then removes the
 * staging directory. The earlier files are kept as links until the end:
 * if a rename fails half-way, they are put back, so the directory holds
 * the earlier report, and STATUS_IO is returned.
 */
enum status out_dir_commit(struct out_dir *o,
                           const char *const *report,
                           size_t nreport,
                           struct diag *d);

/*
 * Removes the staging directory and everything in it (for a failure, or
 * from a signal handler thread: it only reads o->stage). Repeats until
 * the directory is gone, so a file a writer creates meanwhile goes too.
 */
void out_dir_abort(struct out_dir *o);

/* Aborts what is still staged and unlocks the directory. */
void out_dir_close(struct out_dir *o);

#endif
