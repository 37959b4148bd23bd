/*
 * out_dir_stale: the staging directories runs left behind (see
 * out_dir_stale.h).
 */
#include "out_dir_stale.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "input_file.h"

#define STALE_MAX 64 /* staging directories looked at by one open */
/* Slack between a process's start time from /proc (whole seconds since
 * boot, rounded) and the time its run took the lock. */
#define START_SLACK_S 2

typedef char name_buf[OUT_DIR_NAME_MAX + 1];

/* A plain file name: no directory, not "." or "..". */
bool out_dir_stale_plain_name(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n <= OUT_DIR_NAME_MAX && !strchr(s, '/') &&
           strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

/* ---- Owners of staging directories ---- */

/* Reads a decimal number at *p (advancing it); false when none. */
static bool read_number(const char **p, long long *v)
{
    long long x = 0;
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return false;
    while (*s >= '0' && *s <= '9') {
        if (x > (1LL << 50))
            return false;
        x = 10 * x + (*s++ - '0');
    }
    *v = x;
    *p = s;
    return true;
}

/* The run a staging directory's name says owns it
 * (".roofplan-PID-SINCE-XXXXXX"); false for another name (a staging
 * directory of an earlier version of roofplan: ".roofplan-XXXXXX"). */
static bool stage_owner(const char *name, struct out_dir_holder *h)
{
    const char *p = name + strlen(OUT_DIR_STAGE_PREFIX);
    long long pid, since;
    if (strncmp(name, OUT_DIR_STAGE_PREFIX, strlen(OUT_DIR_STAGE_PREFIX)) !=
            0 ||
        !read_number(&p, &pid) || *p++ != '-' || !read_number(&p, &since) ||
        *p++ != '-' || strlen(p) != 6 || pid <= 0 || pid > 0x7fffffff)
        return false;
    h->pid = (long)pid;
    h->since = since;
    return true;
}

/* When process pid started, in seconds since 1970, from Linux's /proc;
 * false where that cannot be read. */
static bool process_start(long pid, long long *start)
{
    char path[64], buf[1024], *p;
    unsigned long long ticks, btime = 0;
    long hz = sysconf(_SC_CLK_TCK);
    size_t n;
    int field;
    FILE *f;
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    f = fopen(path, "r");
    if (!f)
        return false;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* the command name (field 2) is in parentheses and may hold spaces;
     * the start time is field 22 (proc(5)): the n-th space after the
     * parenthesis opens field n + 2 */
    p = strrchr(buf, ')');
    if (!p || hz <= 0)
        return false;
    for (field = 2; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (!p || sscanf(p, " %llu", &ticks) != 1)
        return false;
    f = fopen("/proc/stat", "r");
    if (!f)
        return false;
    while (fgets(buf, sizeof buf, f))
        if (sscanf(buf, "btime %llu", &btime) == 1)
            break;
    fclose(f);
    if (btime == 0)
        return false;
    *start = (long long)(btime + ticks / (unsigned long long)hz);
    return true;
}

/* The run that owns a staging directory is still running: its pid is
 * alive and that process started before the run took the lock (not a
 * later process given the same pid). */
static bool owner_alive(const struct out_dir_holder *h)
{
    long long start;
    if (kill((pid_t)h->pid, 0) != 0 && errno != EPERM)
        return false;
    return !process_start(h->pid, &start) || start <= h->since + START_SLACK_S;
}

/* A staging directory of the directory open as dirfd (a directory, not
 * a link to one); its owner into *uid. */
static bool is_stage(int dirfd, const char *name, uid_t *uid)
{
    struct stat st;
    if (strncmp(name, OUT_DIR_STAGE_PREFIX, strlen(OUT_DIR_STAGE_PREFIX)) !=
            0 ||
        fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
        !S_ISDIR(st.st_mode))
        return false;
    *uid = st.st_uid;
    return true;
}

/* A listing of the directory open as dirfd (its own descriptor, so that
 * dirfd stays open and its offset untouched); NULL on a failure. */
static DIR *list_dir(int dirfd)
{
    int fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    DIR *dir;
    if (fd < 0)
        return NULL;
    dir = fdopendir(fd);
    if (!dir)
        close(fd);
    return dir;
}

/* The live run that holds the output directory's lock, as its staging
 * directory names it (the latest one); h->pid 0 when there is none. */
void out_dir_stale_holder(int dirfd, struct out_dir_holder *h)
{
    DIR *dd = list_dir(dirfd);
    struct dirent *e;
    uid_t uid;
    h->pid = 0;
    h->since = 0;
    if (!dd)
        return;
    while ((e = readdir(dd)) != NULL) {
        struct out_dir_holder r;
        if (stage_owner(e->d_name, &r) && is_stage(dirfd, e->d_name, &uid) &&
            r.since >= h->since && owner_alive(&r))
            *h = r;
    }
    closedir(dd);
}

/* ---- Staging directories ---- */

bool out_dir_stale_mark_text(int fd,
                             long pid,
                             long long since,
                             char *buf,
                             size_t size)
{
    struct stat st;
    int n;
    if (fstat(fd, &st) != 0)
        return false;
    n = snprintf(buf, size,
                 "roofplan staging directory: dev %llu ino %llu pid %ld "
                 "since %lld\n",
                 (unsigned long long)st.st_dev, (unsigned long long)st.st_ino,
                 pid, since);
    return n > 0 && (size_t)n < size;
}

/*
 * The directory open as fd, `name` in the output directory, holds the
 * mark of the run its name says made it: a regular file of this user's
 * (read without following a link or waiting on a FIFO) naming this very
 * directory. Another user who may write the output directory can rename
 * a directory of ours into a staging directory's name, but cannot put a
 * file of ours into it, and a mark copied from elsewhere names another
 * directory.
 */
static bool marked(int fd, const char *name)
{
    char want[OUT_DIR_MARK_MAX], *text;
    struct out_dir_holder h;
    struct diag d;
    size_t len;
    bool ok;
    diag_init(&d);
    if (!stage_owner(name, &h) ||
        !out_dir_stale_mark_text(fd, h.pid, h.since, want, sizeof want) ||
        input_file_read_own_at(fd, OUT_DIR_STAGE_MARK, OUT_DIR_STAGE_MARK,
                               geteuid(), sizeof want, &text, &len,
                               &d) != STATUS_OK ||
        !text)
        return false;
    ok = len == strlen(want) && memcmp(text, want, len) == 0;
    free(text);
    return ok;
}

/* Removes every entry of the staging directory open as fd, its journal
 * first (so a half-removed one is never finished) and its mark last (so
 * a half-removed one is still known for one); false on a failure. Each
 * entry is unlinked where it is: a link is never followed. */
static bool empty_stage(int fd)
{
    DIR *dir;
    struct dirent *e;
    bool ok = true;
    if (unlinkat(fd, OUT_DIR_JOURNAL, 0) != 0 && errno != ENOENT)
        ok = false;
    dir = list_dir(fd);
    if (!dir)
        return false;
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            strcmp(e->d_name, OUT_DIR_STAGE_MARK) == 0)
            continue;
        if (unlinkat(fd, e->d_name, 0) != 0 && errno != ENOENT)
            ok = false;
    }
    closedir(dir);
    if (ok && unlinkat(fd, OUT_DIR_STAGE_MARK, 0) != 0 && errno != ENOENT)
        ok = false;
    return ok;
}

/* The entry `name` of dirfd is the directory open as fd, not another one
 * (or a link) put in its place. */
static bool same_dir(int dirfd, const char *name, int fd)
{
    struct stat a, b;
    return fstatat(dirfd, name, &a, AT_SYMLINK_NOFOLLOW) == 0 &&
           fstat(fd, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* Removes the staging directory open as fd, `name` in dirfd; repeats
 * while a writer (a gnuplot still running) adds files. False when it
 * stays, or when `name` now names something else (left as it is). */
bool out_dir_stale_remove(int dirfd, const char *name, int fd)
{
    int tries;
    for (tries = 0; tries < 100; tries++) {
        if (!empty_stage(fd) || !same_dir(dirfd, name, fd))
            return false;
        if (unlinkat(dirfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
            return true;
    }
    return false;
}

/* Reads the next line of text (up to end) into buf without its newline,
 * advancing *p; a line too long for buf, or holding a NUL, reads as "".
 * False at the end. */
bool out_dir_stale_line(const char **p, const char *end, char *buf, size_t size)
{
    const char *s = *p, *nl;
    size_t n;
    if (s >= end)
        return false;
    nl = memchr(s, '\n', (size_t)(end - s));
    n = (size_t)((nl ? nl : end) - s);
    *p = nl ? nl + 1 : end;
    if (n >= size || memchr(s, '\0', n))
        n = 0;
    memcpy(buf, s, n);
    buf[n] = '\0';
    return true;
}

/* One line of a complete journal: "move NAME" moves the file still staged
 * in, "remove NAME" removes the earlier report's file (not a directory).
 * NAME must be a plain name (no '/', not "." or ".."): only entries of
 * the staging and the output directory are touched, never through a
 * link; another line is skipped. False when a move or removal fails. */
static bool replay(int dirfd, int stage_fd, const char *line)
{
    struct stat st;
    const char *name;
    if (strncmp(line, "move ", 5) == 0 && out_dir_stale_plain_name(line + 5)) {
        name = line + 5;
        return fstatat(stage_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
               renameat(stage_fd, name, dirfd, name) == 0;
    }
    if (strncmp(line, "remove ", 7) == 0 &&
        out_dir_stale_plain_name(line + 7)) {
        name = line + 7;
        return fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
               S_ISDIR(st.st_mode) || unlinkat(dirfd, name, 0) == 0;
    }
    return true;
}

/*
 * Finishes the commit a run that ended left in the staging directory open
 * as stage_fd (of the output directory open as dirfd), when its journal
 * is complete: every new file still staged is moved in (replacing the
 * earlier one, wherever the commit stopped), every earlier file to
 * remove is removed. *journal tells whether there was a complete
 * journal. A journal that is no regular file (a FIFO, a link) or larger
 * than any a run writes is not one: the commit never began. False when
 * the journal cannot be read or a move fails: the directory is then kept
 * for a later run.
 */
static bool finish_commit(int dirfd, int stage_fd, bool *journal)
{
    char line[OUT_DIR_NAME_MAX + 16], *text;
    const char *p, *end;
    size_t len;
    bool ended = false, ok = true;
    struct stat st;
    struct diag d;
    *journal = false;
    diag_init(&d);
    if (fstatat(stage_fd, OUT_DIR_JOURNAL, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return errno == ENOENT;
    if (!S_ISREG(st.st_mode) || st.st_size > OUT_DIR_LIST_MAX)
        return true; /* none a run wrote: the commit never began */
    if (input_file_read_at(stage_fd, OUT_DIR_JOURNAL, OUT_DIR_JOURNAL,
                           OUT_DIR_LIST_MAX, &text, &len, &d) != STATUS_OK)
        return false;
    if (!text) /* gone since */
        return true;
    end = text + len;
    for (p = text; !ended && out_dir_stale_line(&p, end, line, sizeof line);)
        ended = strcmp(line, "end") == 0;
    if (ended) { /* else written only in part: the commit never began */
        *journal = true;
        for (p = text; ok && out_dir_stale_line(&p, end, line, sizeof line) &&
                       strcmp(line, "end") != 0;)
            ok = replay(dirfd, stage_fd, line);
    }
    free(text);
    return ok;
}

/* Finishes or removes the stale staging directory `name` (its run has
 * ended), opened without following a link; one of another user's, or
 * one without its run's mark, is left alone and counted. */
static void clean_one(struct out_dir *o, const char *name)
{
    struct stat st;
    bool journal;
    int fd = openat(o->lock_fd, name,
                    O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return;
    if (fstat(fd, &st) != 0) {
        /* gone */
    } else if (st.st_uid != geteuid()) {
        o->foreign++;
    } else if (!marked(fd, name)) {
        o->unmarked++;
    } else if (finish_commit(o->lock_fd, fd, &journal) &&
               out_dir_stale_remove(o->lock_fd, name, fd)) {
        o->stale++;
        o->finished += journal;
    }
    close(fd);
}

/* Finishes or removes the staging directories of the output directory
 * whose run has ended; counts them in o. Best effort: one that cannot be
 * read or removed is left; one of another user's is left alone (in a
 * folder others may write, its journal and its entries are theirs to
 * choose: nothing in it is followed, read or moved in) and counted, and
 * so is one of ours without its run's mark (one of our directories
 * another user renamed into a staging directory's name: its files are
 * ours, not a run's; or an earlier version's, made before the mark). */
void out_dir_stale_clean(struct out_dir *o)
{
    name_buf names[STALE_MAX];
    size_t n = 0, i;
    DIR *dd = list_dir(o->lock_fd);
    struct dirent *e;
    uid_t uid;
    if (!dd)
        return;
    while ((e = readdir(dd)) != NULL && n < STALE_MAX) {
        struct out_dir_holder h;
        if (!is_stage(o->lock_fd, e->d_name, &uid) ||
            strlen(e->d_name) > OUT_DIR_NAME_MAX)
            continue;
        /* no owner in its name: an earlier version's, whose run has
         * ended, as we hold the lock it held (without a mark: left) */
        if (stage_owner(e->d_name, &h) && owner_alive(&h))
            continue;
        if (uid != geteuid()) {
            o->foreign++;
            continue;
        }
        snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(dd);
    for (i = 0; i < n; i++)
        clean_one(o, names[i]);
}
