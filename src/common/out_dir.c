/*
 * out_dir: staging directory, lock and commit of a report (see out_dir.h).
 */
#include "out_dir.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Where a staging directory's name starts, and its journal. */
#define STAGE_PREFIX  ".roofplan-"
#define JOURNAL       ".commit"
#define NAME_MAX_LEN  255  /* a file name the journal or manifest may hold */
#define STALE_MAX     64   /* staging directories looked at by one open */
#define POLL_S        0.05 /* how often a waiting run tries the lock */
#define HOLDER_WAIT_S 1.0  /* how long it looks for the holder's name */
/* Slack between a process's start time from /proc (whole seconds since
 * boot, rounded) and the time its run took the lock. */
#define START_SLACK_S 2

/* A path inside a staging directory of the output directory. */
#define PATH_BUF (OUT_DIR_MAX + 2 * NAME_MAX_LEN + 16)

typedef char name_buf[NAME_MAX_LEN + 1];

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

/* A plain file name: no directory, not "." or "..". */
static bool plain_name(const char *s)
{
    size_t n = strlen(s);
    return n > 0 && n <= NAME_MAX_LEN && !strchr(s, '/') &&
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
    const char *p = name + strlen(STAGE_PREFIX);
    long long pid, since;
    if (strncmp(name, STAGE_PREFIX, strlen(STAGE_PREFIX)) != 0 ||
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

/* A staging directory of dir (a directory, not a link to one). */
static bool is_stage(const char *dir, const char *name)
{
    char path[PATH_BUF];
    struct stat st;
    if (strncmp(name, STAGE_PREFIX, strlen(STAGE_PREFIX)) != 0)
        return false;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    return lstat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The live run that holds dir's lock, as its staging directory names it
 * (the latest one); h->pid 0 when there is none. */
static void find_holder(const char *dir, struct out_dir_holder *h)
{
    DIR *dd = opendir(dir);
    struct dirent *e;
    h->pid = 0;
    h->since = 0;
    if (!dd)
        return;
    while ((e = readdir(dd)) != NULL) {
        struct out_dir_holder o;
        if (stage_owner(e->d_name, &o) && is_stage(dir, e->d_name) &&
            o.since >= h->since && owner_alive(&o))
            *h = o;
    }
    closedir(dd);
}

/* ---- Staging directories ---- */

/* Removes every entry of a staging directory, its journal first (so a
 * half-removed one is never finished); false on a failure. */
static bool empty_stage(const char *stage)
{
    char path[PATH_BUF];
    DIR *dir;
    struct dirent *e;
    bool ok = true;
    snprintf(path, sizeof path, "%s/%s", stage, JOURNAL);
    if (unlink(path) != 0 && errno != ENOENT)
        ok = false;
    dir = opendir(stage);
    if (!dir)
        return ok && errno == ENOENT;
    while ((e = readdir(dir)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(path, sizeof path, "%s/%s", stage, e->d_name);
        if (unlink(path) != 0 && errno != ENOENT)
            ok = false;
    }
    closedir(dir);
    return ok;
}

/* Removes a staging directory; repeats while a writer (a gnuplot still
 * running) adds files. False when it stays. */
static bool remove_stage(const char *stage)
{
    int tries;
    for (tries = 0; tries < 100; tries++) {
        if (!empty_stage(stage))
            return false;
        if (rmdir(stage) == 0 || errno == ENOENT)
            return true;
    }
    return false;
}

void out_dir_abort(struct out_dir *o)
{
    if (!o->stage[0])
        return;
    remove_stage(o->stage);
    o->stage[0] = '\0';
}

/* Reads one line of f into buf without its newline; a longer line is
 * skipped (buf ""). False at the end. */
static bool read_line(FILE *f, char *buf, size_t size)
{
    size_t n;
    if (!fgets(buf, (int)size, f))
        return false;
    n = strlen(buf);
    if (n > 0 && buf[n - 1] == '\n') {
        buf[n - 1] = '\0';
    } else if (!feof(f)) {
        int c;
        while ((c = fgetc(f)) != EOF && c != '\n')
            ;
        buf[0] = '\0';
    }
    return true;
}

/*
 * Finishes the commit a run that ended left in staging directory `stage`
 * of dir, when its journal is complete: every new file still staged is
 * moved in (replacing the earlier one, wherever the commit stopped), every
 * earlier file to remove is removed. *journal tells whether there was a
 * complete journal. False when a move failed: the directory is then kept
 * for a later run.
 */
static bool finish_commit(const char *dir, const char *stage, bool *journal)
{
    char path[PATH_BUF], line[NAME_MAX_LEN + 16];
    char from[PATH_BUF], to[PATH_BUF];
    bool ended = false, ok = true;
    FILE *f;
    *journal = false;
    snprintf(path, sizeof path, "%s/%s", stage, JOURNAL);
    f = fopen(path, "r");
    if (!f)
        return errno == ENOENT;
    while (!ended && read_line(f, line, sizeof line))
        ended = strcmp(line, "end") == 0;
    if (!ended) { /* written only in part: the commit never began */
        fclose(f);
        return true;
    }
    *journal = true;
    rewind(f);
    while (ok && read_line(f, line, sizeof line) && strcmp(line, "end") != 0) {
        struct stat st;
        if (strncmp(line, "move ", 5) == 0 && plain_name(line + 5)) {
            snprintf(from, sizeof from, "%s/%.255s", stage, line + 5);
            snprintf(to, sizeof to, "%s/%s", dir, line + 5);
            if (lstat(from, &st) == 0 && rename(from, to) != 0)
                ok = false;
        } else if (strncmp(line, "remove ", 7) == 0 && plain_name(line + 7)) {
            snprintf(to, sizeof to, "%s/%s", dir, line + 7);
            if (lstat(to, &st) == 0 && !S_ISDIR(st.st_mode) && unlink(to) != 0)
                ok = false;
        }
    }
    fclose(f);
    return ok;
}

/* Finishes or removes the staging directories of dir whose run has ended
 * (all but `own`); counts them in o. Best effort: one that cannot be
 * read or removed (another user's) is left. */
static void clean_stale(struct out_dir *o, const char *own)
{
    static name_buf names[STALE_MAX];
    size_t n = 0, i;
    DIR *dd = opendir(o->dir);
    struct dirent *e;
    if (!dd)
        return;
    while ((e = readdir(dd)) != NULL && n < STALE_MAX) {
        struct out_dir_holder h;
        if (strcmp(e->d_name, own) == 0 || !is_stage(o->dir, e->d_name) ||
            strlen(e->d_name) > NAME_MAX_LEN)
            continue;
        /* no owner in its name: an earlier version's, whose run has
         * ended, as we hold the lock it held */
        if (stage_owner(e->d_name, &h) && owner_alive(&h))
            continue;
        snprintf(names[n++], sizeof names[0], "%s", e->d_name);
    }
    closedir(dd);
    for (i = 0; i < n; i++) {
        char stage[OUT_DIR_MAX + NAME_MAX_LEN + 2];
        bool journal;
        snprintf(stage, sizeof stage, "%s/%.255s", o->dir, names[i]);
        if (!finish_commit(o->dir, stage, &journal) || !remove_stage(stage))
            continue;
        o->stale++;
        o->finished += journal;
    }
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
            find_holder(o->dir, &h);
            if (h.pid || t >= HOLDER_WAIT_S || t >= timeout) {
                told = true;
                if (w && w->waiting)
                    w->waiting(w->user, o->dir, &h, timeout);
            }
        }
        if (t >= timeout) {
            find_holder(o->dir, &h);
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

enum status out_dir_open(struct out_dir *o,
                         const char *dir,
                         const struct out_dir_wait *w,
                         bool *waited,
                         struct diag *d)
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
    if (lock_dir(o, w, waited, d) != STATUS_OK)
        return d->status;
    /* who holds the lock, for a run that waits for it */
    snprintf(o->stage, sizeof o->stage, "%s/%s%ld-%lld-XXXXXX", dir,
             STAGE_PREFIX, (long)getpid(), (long long)time(NULL));
    if (!mkdtemp(o->stage)) {
        int e = errno;
        o->stage[0] = '\0';
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", dir, strerror(e));
    }
    clean_stale(o, o->stage + n + 1);
    return STATUS_OK;
}

void out_dir_path(const struct out_dir *o,
                  const char *name,
                  char *buf,
                  size_t size)
{
    snprintf(buf, size, "%s/%s", o->stage, name);
}

/* ---- Commit ---- */

/* One file of the commit and how far it went. */
struct step {
    const char *name;
    bool move;    /* a new file moves in; else an earlier one goes */
    bool old_out; /* the earlier file is in the staging directory */
    bool new_in;  /* the new file is in place */
};

/* Paths of report file `name`: where it goes, where the new one is
 * staged, and where the earlier one is kept until the commit is done. */
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

/* Reads the earlier report's manifest: had[i] for the names of `report`
 * it lists, and its other names still present into carry (another
 * command's files). No manifest: nothing is an earlier report's. */
static enum status read_manifest(const struct out_dir *o,
                                 const char *const *report,
                                 size_t n,
                                 bool *had,
                                 name_buf *carry,
                                 size_t *ncarry,
                                 struct diag *d)
{
    char path[PATH_BUF], line[NAME_MAX_LEN + 2];
    size_t i;
    FILE *f;
    *ncarry = 0;
    snprintf(path, sizeof path, "%s/%s", o->dir, OUT_DIR_MANIFEST);
    f = fopen(path, "r");
    if (!f)
        return errno == ENOENT ? STATUS_OK
                               : diag_set(d, STATUS_IO, "%s: cannot read: %s",
                                          path, strerror(errno));
    while (read_line(f, line, sizeof line)) {
        char file[PATH_BUF];
        struct stat st;
        if (line[0] == '#' || !plain_name(line) ||
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
        snprintf(file, sizeof file, "%s/%s", o->dir, line);
        if (i == *ncarry && i < OUT_DIR_REPORT_MAX && lstat(file, &st) == 0)
            snprintf(carry[(*ncarry)++], sizeof carry[0], "%.255s", line);
    }
    if (ferror(f)) {
        fclose(f);
        return diag_set(d, STATUS_IO, "%s: cannot read: %s", path,
                        strerror(EIO));
    }
    fclose(f);
    return STATUS_OK;
}

/* Writes text (lines) to the staging directory's file `name`. */
static enum status write_staged(const struct out_dir *o,
                                const char *name,
                                const char *text,
                                struct diag *d)
{
    char path[PATH_BUF];
    FILE *f;
    int e = 0;
    snprintf(path, sizeof path, "%s/%s", o->stage, name);
    f = fopen(path, "w");
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
    char dest[PATH_BUF], fresh[PATH_BUF], prev[PATH_BUF];
    while (n-- > 0) {
        paths(o, s[n].name, dest, fresh, prev, sizeof dest);
        if (s[n].new_in)
            rename(dest, fresh);
        if (s[n].old_out)
            rename(prev, dest);
    }
    snprintf(dest, sizeof dest, "%s/%s", o->stage, JOURNAL);
    unlink(dest);
}

enum status out_dir_commit(struct out_dir *o,
                           const char *const *report,
                           size_t nreport,
                           struct diag *d)
{
    static name_buf carry[OUT_DIR_REPORT_MAX];
    /* every name, with a prefix, in the manifest and in the journal */
    static char manifest[(OUT_DIR_REPORT_MAX * 2 + 4) * (NAME_MAX_LEN + 16)],
        journal[(OUT_DIR_REPORT_MAX * 2 + 4) * (NAME_MAX_LEN + 16)];
    char dest[PATH_BUF], fresh[PATH_BUF], prev[PATH_BUF];
    struct step s[OUT_DIR_REPORT_MAX + 1];
    bool had[OUT_DIR_REPORT_MAX] = {false};
    size_t i, ns = 0, ncarry, mlen = 0, jlen = 0;
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
        paths(o, report[i], dest, fresh, prev, sizeof dest);
        if (lstat(fresh, &st) == 0) {
            s[ns].move = true;
            append(manifest, sizeof manifest, &mlen, "", report[i]);
        } else if (had[i]) {
            s[ns].move = false;
        } else {
            continue;
        }
        if (lstat(dest, &st) == 0 && S_ISDIR(st.st_mode))
            return diag_set(d, STATUS_IO, "%s: cannot write: %s", dest,
                            strerror(EISDIR));
        s[ns].name = report[i];
        s[ns].old_out = s[ns].new_in = false;
        ns++;
    }
    if (write_staged(o, OUT_DIR_MANIFEST, manifest, d) != STATUS_OK)
        return d->status;
    /* the manifest moves in after the files it lists */
    for (i = 0; i < ns && s[i].move; i++)
        ;
    memmove(&s[i + 1], &s[i], (ns - i) * sizeof s[0]);
    s[i].name = OUT_DIR_MANIFEST;
    s[i].move = true;
    s[i].old_out = s[i].new_in = false;
    ns++;
    /* the journal: complete (ending in "end") before anything moves */
    for (i = 0; i < ns; i++)
        append(journal, sizeof journal, &jlen, s[i].move ? "move " : "remove ",
               s[i].name);
    append(journal, sizeof journal, &jlen, "", "end");
    if (write_staged(o, JOURNAL, journal, d) != STATUS_OK)
        return d->status;
    /* one file at a time: the earlier one aside, the new one in */
    for (i = 0; i < ns; i++) {
        paths(o, s[i].name, dest, fresh, prev, sizeof dest);
        if (rename(dest, prev) == 0)
            s[i].old_out = true;
        else if (errno != ENOENT)
            goto fail;
        if (s[i].move) {
            if (rename(fresh, dest) != 0)
                goto fail;
            s[i].new_in = true;
        }
    }
    out_dir_abort(o); /* the journal, the earlier files, the staging dir */
    return STATUS_OK;
fail:
    err = errno;
    roll_back(o, s, i + 1);
    return diag_set(d, STATUS_IO, "%s: cannot write: %s", dest, strerror(err));
}

void out_dir_close(struct out_dir *o)
{
    out_dir_abort(o);
    if (o->lock_fd >= 0)
        close(o->lock_fd); /* releases the lock */
    o->lock_fd = -1;
}
