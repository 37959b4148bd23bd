/*
 * out_dir: a report written all at once or not at all. The writers put
 * every file of a report into a private staging directory inside the
 * output directory (".roofplan-PID-SINCE-XXXXXX", mode 0700, made by
 * mkdtemp so nothing there is followed through a symlink or shared with
 * another run; PID and SINCE name the run that owns it and when it took
 * the lock); only when every part succeeded does out_dir_commit() move
 * them into the output directory, with renames only (a hard link is
 * refused where a rename works: fs.protected_hardlinks, another user's
 * file in a shared folder), and remove the earlier report's files this
 * report does not have. A failure or an abort removes the staging
 * directory and leaves the earlier report as it was.
 *
 * The commit is a journal, then one rename per file: the journal
 * (".commit" in the staging directory, complete when it ends with "end")
 * lists every file to move in and every earlier file to remove. A run
 * killed half-way through leaves it behind; the next run into the
 * directory finishes that commit (every new file is either still staged
 * or already in place) before it starts, so the directory then holds
 * that complete report. A staging directory without a journal is a
 * report that was never committed: it is removed, the earlier report is
 * whole. Either way only staging directories whose run has ended are
 * touched, and only the run's user's: in a folder others may write,
 * another user's staging directory is left alone (counted, for the
 * command to say so). A stale one is cleaned before the run makes its
 * own, so that on a full disk the space it held is there for the run.
 *
 * Every file operation after the output directory is opened is relative
 * to a directory descriptor (the output directory's, a staging
 * directory's opened with O_NOFOLLOW and its owner checked), by plain
 * names: a staging directory, or an entry in it, swapped for a symbolic
 * link is never followed, so nothing outside the output directory is
 * emptied, moved in or read. A journal or manifest that is no regular
 * file (a FIFO, a device, a link) is never waited on. The writers too
 * reach the run's staging directory by its descriptor: the path they are
 * given is "/proc/self/fd/N" (o->handle), which the kernel resolves to
 * the directory the run made and opened, wherever it has been renamed
 * and whatever another user has put under its name (Linux; a run where
 * /proc is not mounted refuses to write).
 *
 * A staging directory is known for one by a mark inside it
 * (OUT_DIR_STAGE_MARK: its own device and inode, the run's pid and
 * time), a regular file of the run's user that no other user can put in
 * a directory of that user's they cannot write: a directory merely named
 * like a staging directory (another user can rename one of yours in a
 * folder you share into such a name) is left alone, counted.
 *
 * With each report goes a manifest (OUT_DIR_MANIFEST) listing its files:
 * a later report removes only files the manifest lists, never a file of
 * the user's that merely has a report file's name.
 *
 * While open, the output directory is locked (flock on the directory
 * itself): a second run into the same directory waits for the first, up
 * to a time limit, and can say who holds it.
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

/* The largest manifest or journal a run writes, and so reads: every name
 * of a report and every kept name (OUT_DIR_REPORT_MAX each, each at most
 * 255 bytes with a prefix and a newline), and four more lines. */
#define OUT_DIR_LIST_MAX ((OUT_DIR_REPORT_MAX * 2 + 4) * (255 + 16))

/* The manifest of the report in an output directory. */
#define OUT_DIR_MANIFEST ".roofplan-manifest"

/* How long a run waits for another run's lock by default (seconds). */
#define OUT_DIR_WAIT_DEFAULT_S 60.0

/* The longest --wait accepted (a day). */
#define OUT_DIR_WAIT_MAX_S 86400.0

/* The run that holds an output directory's lock. */
struct out_dir_holder {
    long pid;        /* 0: not known (not a roofplan run, or not yet) */
    long long since; /* when it took the lock, seconds since 1970 */
};

/* How to wait for another run's lock. */
struct out_dir_wait {
    double timeout_s; /* give up after this long; 0: at once */
    /* Called once when the run starts to wait (h->pid 0: holder not
     * known); may be NULL. */
    void (*waiting)(void *user,
                    const char *dir,
                    const struct out_dir_holder *h,
                    double timeout_s);
    void *user;
};

struct out_dir {
    char dir[OUT_DIR_MAX + 1];
    char stage[OUT_DIR_MAX + 64]; /* its path, for messages; "" when none */
    /* "/proc/self/fd/N": the staging directory by its descriptor, where
     * the writers write (also after an abort, until out_dir_close: a
     * removed directory takes no new file); "" when stage_fd is closed */
    char handle[32];
    int lock_fd;     /* the output directory, open and locked; -1 when not */
    int stage_fd;    /* the staging directory, open (when handle is not "") */
    size_t stale;    /* staging directories of ended runs removed by open */
    size_t finished; /* of them, commits finished (journal complete) */
    size_t foreign;  /* of ended runs of another user, left alone */
    size_t unmarked; /* this user's, without the mark of a run: left alone */
};

/*
 * Creates dir (and its parents) when missing, locks it (waiting for
 * another run to finish, as w says, or OUT_DIR_WAIT_DEFAULT_S without a
 * callback when w is NULL; *waited tells whether it had to), finishes or
 * removes the staging directories of this user's runs that ended
 * (o->stale, o->finished; another user's are counted in o->foreign, and
 * this user's directories without a run's mark in o->unmarked), and then
 * makes the staging directory with its mark and opens o->handle. Returns
 * STATUS_USAGE for an empty or too long path, STATUS_IO when dir cannot
 * be created, locked in time or written, or when /proc/self/fd does not
 * reach the staging directory ("DIR: cannot write safely: ...").
 */
enum status out_dir_open(struct out_dir *o,
                         const char *dir,
                         const struct out_dir_wait *w,
                         bool *waited,
                         struct diag *d);

/* The path a writer writes report file `name` ("report.xlsx") at, into
 * buf: "/proc/self/fd/N/report.xlsx", in the staging directory by its
 * descriptor (o->handle). A message that names it is for the user once
 * o->handle and o->stage are replaced by o->dir (cli_unstage). */
void out_dir_path(const struct out_dir *o,
                  const char *name,
                  char *buf,
                  size_t size);

/*
 * Moves the staged files named in `report` (the names any report of this
 * command may have; a writer stages nothing else) into the output
 * directory and removes the files of the earlier report that its
 * manifest lists and this report lacks; writes the new manifest (the
 * earlier one's names outside `report` are kept: another command's
 * files); then removes the staging directory. Renames only: the earlier
 * files are moved into the staging directory until the end; if a rename
 * fails half-way, every file is put back, so the directory holds the
 * earlier report, and STATUS_IO is returned, as it is when the earlier
 * manifest is not a regular file or larger than OUT_DIR_LIST_MAX
 * ("DIR/.roofplan-manifest: not a regular file").
 */
enum status out_dir_commit(struct out_dir *o,
                           const char *const *report,
                           size_t nreport,
                           struct diag *d);

/*
 * Removes the staging directory and everything in it (for a failure, or
 * from a signal handler thread: it only reads o's fields). Repeats until
 * the directory is gone, so a file a writer creates meanwhile goes too.
 * The directory emptied is the one made by out_dir_open(), wherever it
 * now is: its name, if taken by something else since, is left. Its
 * descriptor stays open until out_dir_close(), so that o->handle never
 * comes to name another directory opened meanwhile under the same
 * number: a writer still at work finds no directory to create files in.
 */
void out_dir_abort(struct out_dir *o);

/* Aborts what is still staged, closes the staging directory's
 * descriptor and unlocks the directory. */
void out_dir_close(struct out_dir *o);

#endif
