/*
 * out_dir: staging directory, lock and commit of a report (see out_dir.h).
 */
#include "out_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

/* Creates dir and its parents (mkdir -p). */
static enum status make_dirs(const char *dir, struct diag *d)
{
    char path[OUT_DIR_MAX + 1];
    size_t i, n = strlen(dir);
    struct stat st;
    memcpy(path, dir, n + 1);
    for (i = 1; i <= n; i++) {
        if (path[i] != '/' && path[i] != '\0')
            continue;
        path[i] = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return diag_set(d, STATUS_IO, "%s: cannot create: %s", path,
                            strerror(errno));
        path[i] = i < n ? '/' : '\0';
    }
    if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode))
        return diag_set(d, STATUS_IO, "%s: not a directory", dir);
    return STATUS_OK;
}

enum status
out_dir_open(struct out_dir *o, const char *dir, bool *waited, struct diag *d)
{
    size_t n = strlen(dir);
    memset(o, 0, sizeof *o);
    o->lock_fd = -1;
    *waited = false;
    if (n == 0)
        return diag_set(d, STATUS_USAGE, "--out: empty directory name");
    if (n > OUT_DIR_MAX)
        return diag_set(d, STATUS_USAGE,
                        "--out: the directory name has %zu characters; at "
                        "most %d fit",
                        n, OUT_DIR_MAX);
    memcpy(o->dir, dir, n + 1);
    if (make_dirs(dir, d) != STATUS_OK)
        return d->status;
    o->lock_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (o->lock_fd < 0)
        return diag_set(d, STATUS_IO, "%s: cannot open: %s", dir,
                        strerror(errno));
    if (flock(o->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        *waited = true;
        if (flock(o->lock_fd, LOCK_EX) != 0)
            return diag_set(d, STATUS_IO, "%s: cannot lock: %s", dir,
                            strerror(errno));
    }
    snprintf(o->stage, sizeof o->stage, "%s/.roofplan-XXXXXX", dir);
    if (!mkdtemp(o->stage)) {
        int e = errno;
        o->stage[0] = '\0';
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", dir, strerror(e));
    }
    return STATUS_OK;
}

void out_dir_path(const struct out_dir *o,
                  const char *name,
                  char *buf,
                  size_t size)
{
    snprintf(buf, size, "%s/%s", o->stage, name);
}

/* Removes every entry of the staging directory; false on a failure. */
static bool empty_stage(const char *stage)
{
    DIR *dir = opendir(stage);
    struct dirent *e;
    bool ok = true;
    if (!dir)
        return errno == ENOENT;
    while ((e = readdir(dir)) != NULL) {
        char path[OUT_DIR_MAX + 320];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", stage, e->d_name);
        if (unlink(path) != 0 && errno != ENOENT)
            ok = false;
    }
    closedir(dir);
    return ok;
}

void out_dir_abort(struct out_dir *o)
{
    int tries;
    if (!o->stage[0])
        return;
    for (tries = 0; tries < 100; tries++) {
        if (!empty_stage(o->stage))
            break;
        if (rmdir(o->stage) == 0 || errno == ENOENT)
            break;
    }
    o->stage[0] = '\0';
}

/* Paths of report file `name`: where it goes, where the new one is
 * staged, and the staged link that keeps the earlier one until the
 * commit is done. */
static void paths(const struct out_dir *o,
                  const char *name,
                  char *dest,
                  char *fresh,
                  char *prev,
                  size_t size)
{
    snprintf(dest, size, "%s/%s", o->dir, name);
    snprintf(fresh, size, "%s/%s", o->stage, name);
    snprintf(prev, size, "%s/.prev.%s", o->stage, name);
}

/* Puts back the earlier report after a commit failed half-way: each
 * report file becomes what it was (its kept link), or goes when there was
 * none. */
static void
roll_back(const struct out_dir *o, const char *const *report, size_t n)
{
    char dest[OUT_DIR_MAX + 320], fresh[OUT_DIR_MAX + 320],
        prev[OUT_DIR_MAX + 320];
    size_t i;
    struct stat st;
    for (i = 0; i < n; i++) {
        paths(o, report[i], dest, fresh, prev, sizeof dest);
        if (lstat(prev, &st) == 0)
            rename(prev, dest);
        else if (lstat(fresh, &st) != 0) /* the new one was moved in */
            unlink(dest);
    }
}

enum status out_dir_commit(struct out_dir *o,
                           const char *const *report,
                           size_t nreport,
                           struct diag *d)
{
    char dest[OUT_DIR_MAX + 320], fresh[OUT_DIR_MAX + 320],
        prev[OUT_DIR_MAX + 320];
    size_t i;
    struct stat st;
    int err;
    if (nreport > OUT_DIR_REPORT_MAX)
        nreport = OUT_DIR_REPORT_MAX;
    /* 1. keep a link to every file of the earlier report */
    for (i = 0; i < nreport; i++) {
        paths(o, report[i], dest, fresh, prev, sizeof dest);
        if (lstat(dest, &st) == 0 && S_ISDIR(st.st_mode))
            return diag_set(d, STATUS_IO, "%s: cannot write: %s", dest,
                            strerror(EISDIR));
        if (link(dest, prev) != 0 && errno != ENOENT) {
            err = errno;
            return diag_set(d, STATUS_IO, "%s: cannot replace: %s", dest,
                            strerror(err));
        }
    }
    /* 2. move the new files in; 3. remove the earlier ones it lacks */
    for (i = 0; i < nreport; i++) {
        paths(o, report[i], dest, fresh, prev, sizeof dest);
        if (lstat(fresh, &st) == 0) {
            if (rename(fresh, dest) != 0)
                goto fail;
        } else if (unlink(dest) != 0 && errno != ENOENT) {
            goto fail;
        }
    }
    out_dir_abort(o); /* the staging directory and the kept links */
    return STATUS_OK;
fail:
    err = errno;
    roll_back(o, report, nreport);
    return diag_set(d, STATUS_IO, "%s: cannot write: %s", dest, strerror(err));
}

void out_dir_close(struct out_dir *o)
{
    out_dir_abort(o);
    if (o->lock_fd >= 0)
        close(o->lock_fd); /* releases the lock */
    o->lock_fd = -1;
}
