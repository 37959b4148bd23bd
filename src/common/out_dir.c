/*
 * out_dir: staging directory, lock and commit of a report (see out_dir.h);
 * the staging directories runs left behind are out_dir_stale.c's.
 */
#include "out_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "input_file.h"
#include "out_dir_stale.h"

#define POLL_S        0.05 /* how often a waiting run tries the lock */
#define HOLDER_WAIT_S 1.0  /* how long it looks for the holder's name */

/* A path inside a staging directory of the output directory. */
#define PATH_BUF (OUT_DIR_MAX + 2 * OUT_DIR_NAME_MAX + 16)

typedef char name_buf[OUT_DIR_NAME_MAX + 1];

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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_s(double s)
{
    struct timespec ts;
    ts.tv_sec = (time_t)s;
    ts.tv_nsec = (long)((s - (double)ts.tv_sec) * 1e9);
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The run's staging directory's name in the output directory. */
static const char *stage_name(const struct out_dir *o)
{
    return o->stage + strlen(o->dir) + 1;
}

void out_dir_abort(struct out_dir *o)
{
    if (!o->stage[0])
        return;
    /* the descriptor stays open (out_dir_close closes it): a writer
     * still at work through o->handle finds the directory removed, never
     * another directory opened meanwhile under the same number */
    if (o->handle[0])
        out_dir_stale_remove(o->lock_fd, stage_name(o), o->stage_fd);
    o->stage[0] = '\0';
}

/* ---- Lock ---- */

/* The holder named in a message: " (pid N, since TIME)" or "". */
static void holder_text(const struct out_dir_holder *h, char *buf, size_t size)
{
    char when[32] = "?";
    time_t t = (time_t)h->since;
    struct tm tm;
    buf[0] = '\0';
    if (!h->pid)
        return;
    if (gmtime_r(&t, &tm))
        strftime(when, sizeof when, "%Y-%m-%d %H:%M:%S UTC", &tm);
    snprintf(buf, size, " (pid %ld, since %s)", h->pid, when);
}

/* Takes dir's lock, waiting as w says. */
static enum status lock_dir(struct out_dir *o,
                            const struct out_dir_wait *w,
                            bool *waited,
                            struct diag *d)
{
    double t0 = now_s(), timeout = w ? w->timeout_s : OUT_DIR_WAIT_DEFAULT_S;
    bool told = false;
    struct out_dir_holder h = {0, 0};
    char who[96];
    while (flock(o->lock_fd, LOCK_EX | LOCK_NB) != 0) {
        double t;
        if (errno != EWOULDBLOCK && errno != EINTR)
            return diag_set(d, STATUS_IO, "%s: cannot lock: %s", o->dir,
                            strerror(errno));
        t = now_s() - t0;
        *waited = true;
        if (!told && timeout > 0) {
            out_dir_stale_holder(o->lock_fd, &h);
            if (h.pid || t >= HOLDER_WAIT_S || t >= timeout) {
                told = true;
                if (w && w->waiting)
                    w->waiting(w->user, o->dir, &h, timeout);
            }
        }
        if (t >= timeout) {
            out_dir_stale_holder(o->lock_fd, &h);
            holder_text(&h, who, sizeof who);
            return diag_set(d, STATUS_IO,
                            "%s: another run%s is writing a report here; "
                            "gave up after %g s (--wait SECONDS waits longer)",
                            o->dir, who, timeout);
        }
        sleep_s(timeout - t < POLL_S ? timeout - t : POLL_S);
    }
    return STATUS_OK;
}

/* Writes the mark of the run's staging directory, open as o->stage_fd
 * and made by run (pid, since), into it (out_dir_stale.h). */
static enum status
write_mark(const struct out_dir *o, long pid, long long since, struct diag *d)
{
    char text[OUT_DIR_MARK_MAX];
    size_t n;
    int fd, e = 0;
    if (!out_dir_stale_mark_text(o->stage_fd, pid, since, text, sizeof text))
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", o->stage,
                        strerror(errno ? errno : EIO));
    n = strlen(text);
    fd = openat(o->stage_fd, OUT_DIR_STAGE_MARK,
                O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, text, n) != (ssize_t)n)
        e = errno ? errno : EIO;
    if (fd >= 0 && close(fd) != 0 && !e)
        e = errno ? errno : EIO;
    if (e)
        return diag_set(d, STATUS_IO, "%s/%s: cannot write: %s", o->stage,
                        OUT_DIR_STAGE_MARK, strerror(e));
    return STATUS_OK;
}

/* Sets o->handle, the path through /proc that reaches the staging
 * directory by its descriptor, once it is seen to reach that very
 * directory (a system without /proc cannot write safely into a folder
 * another user may write: refused). */
static enum status open_handle(struct out_dir *o, struct diag *d)
{
    char path[sizeof o->handle];
    struct stat a, b;
    snprintf(path, sizeof path, "/proc/self/fd/%d", o->stage_fd);
    if (stat(path, &a) != 0 || fstat(o->stage_fd, &b) != 0 ||
        a.st_dev != b.st_dev || a.st_ino != b.st_ino)
        return diag_set(d, STATUS_IO,
                        "%s: cannot write safely: %s does not reach the "
                        "staging directory (is /proc mounted?)",
                        o->dir, path);
    memcpy(o->handle, path, sizeof path);
    return STATUS_OK;
}

/*
 * Makes the run's staging directory in the output directory and opens
 * it: ".roofplan-PID-SINCE-XXXXXX" (PID and SINCE name the run, for a
 * run that waits for the lock; six random letters), mode 0700, its mark
 * inside. A name already taken (by anything: a link another user put
 * there is not followed) is passed over; the directory opened must be
 * the run's own (its owner, not a link), else it is refused. On a
 * failure after the open, the directory is removed again.
 */
static enum status make_stage(struct out_dir *o, struct diag *d)
{
    static const char letters[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                  "abcdefghijklmnopqrstuvwxyz0123456789";
    char name[63]; /* with the output directory's path, fits o->stage */
    unsigned char rnd[6];
    struct stat st;
    int tries, fd, e = EEXIST;
    long pid = (long)getpid();
    long long since = 0;
    size_t i, n;
    for (tries = 0; tries < 100; tries++) {
        int k;
        since = (long long)time(NULL);
        k = snprintf(name, sizeof name, "%s%ld-%lld-", OUT_DIR_STAGE_PREFIX,
                     pid, since);
        if (k < 0 || (size_t)k + sizeof rnd >= sizeof name)
            return diag_set(d, STATUS_IO, "%s: cannot write: %s", o->dir,
                            strerror(ENAMETOOLONG));
        n = (size_t)k;
        if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
            for (i = 0; i < sizeof rnd; i++) /* no entropy: the clock */
                rnd[i] = (unsigned char)((long)(now_s() * 1e9) >> (5 * i)) ^
                         (unsigned char)tries;
        for (i = 0; i < sizeof rnd; i++)
            name[n + i] = letters[rnd[i] % (sizeof letters - 1)];
        name[n + sizeof rnd] = '\0';
        if (mkdirat(o->lock_fd, name, 0700) == 0)
            break;
        e = errno;
        if (e != EEXIST)
            return diag_set(d, STATUS_IO, "%s: cannot write: %s", o->dir,
                            strerror(e));
    }
    if (tries == 100)
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", o->dir,
                        strerror(e));
    fd = openat(o->lock_fd, name,
                O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_uid != geteuid()) {
        e = fd < 0 ? errno : EPERM;
        if (fd >= 0)
            close(fd);
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", o->dir,
                        strerror(e));
    }
    /* the descriptor and the handle first: a signal's abort needs them
     * with the path, and removes the directory from then on */
    o->stage_fd = fd;
    if (open_handle(o, d) != STATUS_OK) {
        out_dir_stale_remove(o->lock_fd, name, fd); /* empty yet */
        close(fd);
        o->stage_fd = -1;
        return d->status;
    }
    snprintf(o->stage, sizeof o->stage, "%s/%s", o->dir, name);
    if (write_mark(o, pid, since, d) != STATUS_OK) {
        out_dir_abort(o);
        return d->status;
    }
    return STATUS_OK;
}

enum status out_dir_open(struct out_dir *o,
                         const char *dir,
                         const struct out_dir_wait *w,
                         bool *waited,
                         struct diag *d)
{
    size_t n = strlen(dir);
    memset(o, 0, sizeof *o);
    o->lock_fd = -1;
    o->stage_fd = -1;
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
    if (lock_dir(o, w, waited, d) != STATUS_OK)
        return d->status;
    /* the stale ones first: on a full disk the space they hold is what
     * this run's staging directory needs */
    out_dir_stale_clean(o);
    return make_stage(o, d);
}

void out_dir_path(const struct out_dir *o,
                  const char *name,
                  char *buf,
                  size_t size)
{
    snprintf(buf, size, "%s/%s", o->handle, name);
}

/* ---- Commit ---- */

/* One file of the commit and how far it went. */
struct step {
    const char *name;
    bool move;    /* a new file moves in; else an earlier one goes */
    bool old_out; /* the earlier file is in the staging directory */
    bool new_in;  /* the new file is in place */
};

/* The name report file `name`'s earlier version has in the staging
 * directory until the commit is done. */
static void prev_name(const char *name, char *buf, size_t size)
{
    snprintf(buf, size, ".prev.%s", name);
}

/* Reads the earlier report's manifest: had[i] for the names of `report`
 * it lists, and its other names still present into carry (another
 * command's files). No manifest: nothing is an earlier report's. One
 * that is not a regular file (a FIFO, a link: never followed) or larger
 * than any a run writes is refused. */
static enum status read_manifest(const struct out_dir *o,
                                 const char *const *report,
                                 size_t n,
                                 bool *had,
                                 name_buf *carry,
                                 size_t *ncarry,
                                 struct diag *d)
{
    char path[PATH_BUF], line[OUT_DIR_NAME_MAX + 2], *text;
    const char *p, *end;
    size_t i, len;
    struct diag rd;
    *ncarry = 0;
    snprintf(path, sizeof path, "%s/%s", o->dir, OUT_DIR_MANIFEST);
    diag_init(&rd);
    if (input_file_read_at(o->lock_fd, OUT_DIR_MANIFEST, path, OUT_DIR_LIST_MAX,
                           &text, &len, &rd) != STATUS_OK)
        return diag_set(d, STATUS_IO, "%s", rd.msg); /* not bad input */
    if (!text)
        return STATUS_OK;
    end = text + len;
    for (p = text; out_dir_stale_line(&p, end, line, sizeof line);) {
        struct stat st;
        if (line[0] == '#' || !out_dir_stale_plain_name(line) ||
            strcmp(line, OUT_DIR_MANIFEST) == 0)
            continue;
        for (i = 0; i < n && strcmp(line, report[i]) != 0; i++)
            ;
        if (i < n) {
            had[i] = true;
            continue;
        }
        for (i = 0; i < *ncarry && strcmp(line, carry[i]) != 0; i++)
            ;
        if (i == *ncarry && i < OUT_DIR_REPORT_MAX &&
            fstatat(o->lock_fd, line, &st, AT_SYMLINK_NOFOLLOW) == 0)
            snprintf(carry[(*ncarry)++], sizeof carry[0], "%.255s", line);
    }
    free(text);
    return STATUS_OK;
}

/* Writes text (lines) to the staging directory's file `name`. */
static enum status write_staged(const struct out_dir *o,
                                const char *name,
                                const char *text,
                                struct diag *d)
{
    char path[PATH_BUF];
    FILE *f = NULL;
    int e = 0, fd;
    snprintf(path, sizeof path, "%s/%s", o->stage, name);
    fd = openat(o->stage_fd, name,
                O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd >= 0) {
        f = fdopen(fd, "w");
        if (!f)
            close(fd);
    }
    if (!f)
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(errno));
    if (fputs(text, f) == EOF || fflush(f) != 0 || ferror(f))
        e = errno ? errno : EIO;
    if (fclose(f) != 0 && !e)
        e = errno ? errno : EIO;
    if (e)
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(e));
    return STATUS_OK;
}

/* Appends "prefix name\n" to buf (size bytes, used *len). */
static void append(char *buf,
                   size_t size,
                   size_t *len,
                   const char *prefix,
                   const char *name)
{
    int k = snprintf(buf + *len, size - *len, "%s%s\n", prefix, name);
    if (k > 0 && (size_t)k < size - *len)
        *len += (size_t)k;
}

/* Puts the earlier report back after a commit failed half-way: each new
 * file goes back into the staging directory (so that, should this run die
 * now, the next one can still finish the commit from the journal), each
 * earlier file back in place; then the journal goes. */
static void roll_back(const struct out_dir *o, struct step *s, size_t n)
{
    char prev[OUT_DIR_NAME_MAX + 16];
    while (n-- > 0) {
        prev_name(s[n].name, prev, sizeof prev);
        if (s[n].new_in)
            renameat(o->lock_fd, s[n].name, o->stage_fd, s[n].name);
        if (s[n].old_out)
            renameat(o->stage_fd, prev, o->lock_fd, s[n].name);
    }
    unlinkat(o->stage_fd, OUT_DIR_JOURNAL, 0);
}

/* The manifest's step, placed after the files it lists move in (the
 * steps that move come first): the count of steps with it. */
static size_t manifest_step(struct step *s, size_t ns)
{
    size_t i;
    for (i = 0; i < ns && s[i].move; i++)
        ;
    memmove(&s[i + 1], &s[i], (ns - i) * sizeof s[0]);
    s[i].name = OUT_DIR_MANIFEST;
    s[i].move = true;
    s[i].old_out = s[i].new_in = false;
    return ns + 1;
}

/* The journal of the ns steps, staged: complete (ending in "end") before
 * anything moves. */
static enum status write_journal(struct out_dir *o,
                                 const struct step *s,
                                 size_t ns,
                                 struct diag *d)
{
    static char journal[OUT_DIR_LIST_MAX];
    size_t i, jlen = 0;
    for (i = 0; i < ns; i++)
        append(journal, sizeof journal, &jlen, s[i].move ? "move " : "remove ",
               s[i].name);
    append(journal, sizeof journal, &jlen, "", "end");
    return write_staged(o, OUT_DIR_JOURNAL, journal, d);
}

enum status out_dir_commit(struct out_dir *o,
                           const char *const *report,
                           size_t nreport,
                           struct diag *d)
{
    static name_buf carry[OUT_DIR_REPORT_MAX];
    /* every name, with a prefix, in the manifest and in the journal */
    static char manifest[OUT_DIR_LIST_MAX];
    char dest[PATH_BUF], prev[OUT_DIR_NAME_MAX + 16];
    struct step s[OUT_DIR_REPORT_MAX + 1];
    bool had[OUT_DIR_REPORT_MAX] = {false};
    size_t i, ns = 0, ncarry, mlen = 0;
    struct stat st;
    int err;
    if (nreport > OUT_DIR_REPORT_MAX)
        nreport = OUT_DIR_REPORT_MAX;
    if (read_manifest(o, report, nreport, had, carry, &ncarry, d) != STATUS_OK)
        return d->status;
    /* what moves in (the staged files), what goes (the earlier report's
     * files this one lacks), and the manifest of the new report */
    append(manifest, sizeof manifest, &mlen, "",
           "# roofplan: the files of the report in this directory; a later "
           "report");
    append(manifest, sizeof manifest, &mlen, "",
           "# removes only files listed here");
    for (i = 0; i < ncarry; i++)
        append(manifest, sizeof manifest, &mlen, "", carry[i]);
    for (i = 0; i < nreport; i++) {
        if (fstatat(o->stage_fd, report[i], &st, AT_SYMLINK_NOFOLLOW) == 0) {
            s[ns].move = true;
            append(manifest, sizeof manifest, &mlen, "", report[i]);
        } else if (had[i]) {
            s[ns].move = false;
        } else {
            continue;
        }
        if (fstatat(o->lock_fd, report[i], &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            S_ISDIR(st.st_mode)) {
            snprintf(dest, sizeof dest, "%s/%s", o->dir, report[i]);
            return diag_set(d, STATUS_IO, "%s: cannot write: %s", dest,
                            strerror(EISDIR));
        }
        s[ns].name = report[i];
        s[ns].old_out = s[ns].new_in = false;
        ns++;
    }
    if (write_staged(o, OUT_DIR_MANIFEST, manifest, d) != STATUS_OK)
        return d->status;
    ns = manifest_step(s, ns);
    if (write_journal(o, s, ns, d) != STATUS_OK)
        return d->status;
    /* one file at a time: the earlier one aside, the new one in; each
     * between the two directories' descriptors, so that neither is
     * reached through a link put in its place since the open */
    for (i = 0; i < ns; i++) {
        prev_name(s[i].name, prev, sizeof prev);
        if (renameat(o->lock_fd, s[i].name, o->stage_fd, prev) == 0)
            s[i].old_out = true;
        else if (errno != ENOENT)
            goto fail;
        if (s[i].move) {
            if (renameat(o->stage_fd, s[i].name, o->lock_fd, s[i].name) != 0)
                goto fail;
            s[i].new_in = true;
        }
    }
    out_dir_abort(o); /* the journal, the earlier files, the staging dir */
    return STATUS_OK;
fail:
    err = errno;
    roll_back(o, s, i + 1);
    snprintf(dest, sizeof dest, "%s/%s", o->dir, s[i].name);
    return diag_set(d, STATUS_IO, "%s: cannot write: %s", dest, strerror(err));
}

void out_dir_close(struct out_dir *o)
{
    out_dir_abort(o);
    if (o->handle[0])
        close(o->stage_fd);
    o->handle[0] = '\0';
    o->stage_fd = -1;
    if (o->lock_fd >= 0)
        close(o->lock_fd); /* releases the lock */
    o->lock_fd = -1;
}
