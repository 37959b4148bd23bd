/*
 * out_dir_stale: the staging directories of out_dir (out_dir.h) that runs
 * left behind. Who owns one (the pid and the time its name gives, checked
 * against /proc), which live run holds the lock, and the clean-up of
 * those whose run has ended: a commit killed half-way finished from its
 * journal, or a commit that never began removed. All by directory
 * descriptors and plain names: a staging directory is opened without
 * following a link, its owner checked, and only its own entries and the
 * output directory's are unlinked or moved; nothing is followed through
 * a link put in the place of either, and a journal that is no regular
 * file is never opened. Another user's staging directory is left alone,
 * and so is one of the user's own without the mark the run that made it
 * put inside (a directory renamed into a staging directory's name). Also
 * the mark, and the line format the journal shares with the manifest.
 *
 * Part of the common layer: used by out_dir.c only; calls input_file and
 * libc.
 */
#ifndef PROJ_OUT_DIR_STALE_H
#define PROJ_OUT_DIR_STALE_H

#include <stdbool.h>
#include <stddef.h>

#include "out_dir.h"

/* Where a staging directory's name starts, its journal, and its mark. */
#define OUT_DIR_STAGE_PREFIX ".roofplan-"
#define OUT_DIR_JOURNAL      ".commit"
#define OUT_DIR_STAGE_MARK   ".roofplan-stage"

/* Room for a mark's text (out_dir_stale_mark_text) and its NUL. */
#define OUT_DIR_MARK_MAX 160

/* The longest file name a journal or a manifest may hold. */
#define OUT_DIR_NAME_MAX 255

/* A plain file name: no directory, not "." or "..", at most
 * OUT_DIR_NAME_MAX bytes (what a journal or manifest line may name). */
bool out_dir_stale_plain_name(const char *s);

/*
 * Reads the next line of text (up to end) into buf without its newline,
 * advancing *p; a line too long for buf, or holding a NUL, reads as "".
 * False at the end.
 *
 *   for (p = text; out_dir_stale_line(&p, text + len, line, sizeof line);)
 */
bool out_dir_stale_line(const char **p,
                        const char *end,
                        char *buf,
                        size_t size);

/*
 * The mark of the staging directory open as fd, made by run (pid, since)
 * (the pid and time its name gives), into buf (OUT_DIR_MARK_MAX bytes):
 * one line naming the directory's device and inode, as fstat gives them,
 * and the run,
 *
 *   roofplan staging directory: dev 2049 ino 1835011 pid 4242 since 1700000000
 *
 * The run writes it into its staging directory as OUT_DIR_STAGE_MARK
 * first thing; the clean-up removes a stale staging directory only when
 * it holds this very text in a regular file of the run's user. False
 * when fd cannot be looked at.
 */
bool out_dir_stale_mark_text(int fd,
                             long pid,
                             long long since,
                             char *buf,
                             size_t size);

/* The live run that holds the lock of the output directory open as
 * dirfd, as its staging directory names it (the latest one); h->pid 0
 * when there is none. */
void out_dir_stale_holder(int dirfd, struct out_dir_holder *h);

/*
 * Removes the staging directory open as fd, `name` in dirfd: unlinks its
 * entries (its journal first, so a half-removed one is never finished;
 * its mark last, so a half-removed one is still known for a staging
 * directory) where they are, then the directory; repeats while a writer (a
 * gnuplot still running) adds files. False when it stays, or when `name` now
 * names something else than fd's directory (that is left as it is).
 */
bool out_dir_stale_remove(int dirfd, const char *name, int fd);

/*
 * Finishes or removes the staging directories of o's output directory
 * (o->lock_fd, locked) whose run has ended, counting them in o->stale and
 * o->finished; another user's are left alone and counted in o->foreign,
 * and so are the user's own without their run's mark, in o->unmarked
 * (nothing in them is read but the mark). Best effort: one that cannot
 * be read or removed is left.
 */
void out_dir_stale_clean(struct out_dir *o);

#endif
