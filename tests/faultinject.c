/*
 * faultinject: an LD_PRELOAD library that makes the N-th output
 * operation of a process fail, as SQLite tests its I/O errors. With
 * FAULT_OP=write, the N-th write to a regular file (write, fwrite, fputs,
 * fputc, fprintf, vfprintf, fflush) and every later one fail with ENOSPC
 * (a full disk); with FAULT_OP=close
 * the N-th fclose or close of a regular file fails with EIO (the file is
 * closed, as Linux does); with FAULT_OP=rename the N-th rename, renameat
 * or link fails with EIO. FAULT_AT=N (0: none fails). FAULT_KILL_AT=M kills the
 * process with SIGKILL at the M-th operation of kind FAULT_OP instead (a
 * crash at that point; with FAULT_AT, the N-th fails first). With
 * FAULT_LINK=EPERM every link() fails with EPERM, as the kernel refuses a
 * hard link to another user's file (fs.protected_hardlinks). With
 * FAULT_FORK_DELAY_MS=MS the parent sleeps MS milliseconds after each
 * fork(), as a loaded machine may: a signal then comes while a child is
 * started but not yet known to the parent. With FAULT_FULL_WHILE=PATH
 * the disk is full while PATH exists (the file that fills it): every
 * write to a regular file, and making any directory that does not exist
 * yet (mkdir, mkdirat, mkdtemp), fails with ENOSPC. With
 * FAULT_COUNT=FILE,
 * the number of operations of kind FAULT_OP is written there at exit, so
 * a test knows how many there are to fail. Calls between libraries go
 * through the
 * PLT, so libxlsxwriter's and minizip's stdio calls are caught too; only
 * glibc's calls to itself are not. Every other call passes through.
 *
 * For tests/integration/75_transaction.sh and 76_shared_out.sh only;
 * built by the Makefile.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static long counted; /* operations of kind FAULT_OP so far */

/* The disk is full: FAULT_FULL_WHILE names a file that exists. */
static bool full(void)
{
    const char *path = getenv("FAULT_FULL_WHILE");
    return path && access(path, F_OK) == 0;
}

/* Counts calls of kind op; true when this one is to fail: the N-th
 * close or rename; for writes the N-th and every later one, as a disk
 * that has filled up fails every write from then on (and a library that
 * ignores one failed write cannot be caught from outside: see
 * zip_check.h). */
static bool fault(const char *op)
{
    const char *want = getenv("FAULT_OP"), *at = getenv("FAULT_AT"),
               *kill_at = getenv("FAULT_KILL_AT");
    long n;
    if (!want || (!at && !kill_at) || strcmp(want, op) != 0)
        return false;
    ++counted;
    if (kill_at && strtol(kill_at, NULL, 10) == counted)
        raise(SIGKILL);
    if (!at)
        return false;
    n = strtol(at, NULL, 10);
    return n > 0 && (counted == n || (strcmp(op, "write") == 0 && counted > n));
}

__attribute__((destructor)) static void report_count(void)
{
    const char *path = getenv("FAULT_COUNT");
    FILE *f;
    if (!path)
        return;
    f = fopen(path, "w");
    if (!f)
        return;
    fprintf(f, "%ld\n", counted);
    fclose(f);
}

/* A regular file open for writing (reading an input is not output). */
static bool regular_fd(int fd)
{
    struct stat st;
    int fl;
    if (fd <= 2 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return false;
    fl = fcntl(fd, F_GETFL);
    return fl >= 0 && (fl & O_ACCMODE) != O_RDONLY;
}

static bool regular(FILE *f)
{
    return f && regular_fd(fileno(f));
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

ssize_t write(int fd, const void *buf, size_t n)
{
    if (regular_fd(fd) && (full() || fault("write"))) {
        errno = ENOSPC;
        return -1;
    }
    return REAL("write", ssize_t(*)(int, const void *, size_t))(fd, buf, n);
}

size_t fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
    if (regular(f) && size * n > 0 && (full() || fault("write"))) {
        errno = ENOSPC;
        f->_flags |= 0x20; /* _IO_ERR_SEEN: ferror() reports it */
        return 0;
    }
    return REAL("fwrite", size_t(*)(const void *, size_t, size_t, FILE *))(
        buf, size, n, f);
}

int fputs(const char *s, FILE *f)
{
    if (regular(f) && (full() || fault("write"))) {
        errno = ENOSPC;
        f->_flags |= 0x20;
        return EOF;
    }
    return REAL("fputs", int (*)(const char *, FILE *))(s, f);
}

int fputc(int c, FILE *f)
{
    if (regular(f) && (full() || fault("write"))) {
        errno = ENOSPC;
        f->_flags |= 0x20;
        return EOF;
    }
    return REAL("fputc", int (*)(int, FILE *))(c, f);
}

int vfprintf(FILE *f, const char *fmt, va_list ap)
{
    if (regular(f) && (full() || fault("write"))) {
        errno = ENOSPC;
        f->_flags |= 0x20;
        return -1;
    }
    return REAL("vfprintf", int (*)(FILE *, const char *, va_list))(f, fmt, ap);
}

int fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vfprintf(f, fmt, ap);
    va_end(ap);
    return n;
}

int fflush(FILE *f)
{
    if (regular(f) && (full() || fault("write"))) {
        errno = ENOSPC;
        f->_flags |= 0x20;
        return EOF;
    }
    return REAL("fflush", int (*)(FILE *))(f);
}

/* A file already unlinked (a library's temporary file): closing it after
 * its contents were read back loses nothing, so its close is not a
 * fault point; its writes are. */
static bool unlinked(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_nlink == 0;
}

int fclose(FILE *f)
{
    bool fail = regular(f) && !unlinked(fileno(f)) && fault("close");
    int rc = REAL("fclose", int (*)(FILE *))(f);
    if (fail) {
        errno = EIO;
        return EOF;
    }
    return rc;
}

int close(int fd)
{
    bool fail = regular_fd(fd) && !unlinked(fd) && fault("close");
    int rc = REAL("close", int (*)(int))(fd);
    if (fail) {
        errno = EIO;
        return -1;
    }
    return rc;
}

int rename(const char *from, const char *to)
{
    if (fault("rename")) {
        errno = EIO;
        return -1;
    }
    return REAL("rename", int (*)(const char *, const char *))(from, to);
}

int renameat(int fromfd, const char *from, int tofd, const char *to)
{
    if (fault("rename")) {
        errno = EIO;
        return -1;
    }
    return REAL("renameat", int (*)(int, const char *, int, const char *))(
        fromfd, from, tofd, to);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
    struct stat st;
    if (full() && fstatat(dirfd, path, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        errno = ENOSPC;
        return -1;
    }
    return REAL("mkdirat", int (*)(int, const char *, mode_t))(dirfd, path,
                                                               mode);
}

int mkdir(const char *path, mode_t mode)
{
    return mkdirat(AT_FDCWD, path, mode);
}

char *mkdtemp(char *tmpl)
{
    if (full()) {
        errno = ENOSPC;
        return NULL;
    }
    return REAL("mkdtemp", char *(*)(char *))(tmpl);
}

int link(const char *from, const char *to)
{
    const char *refuse = getenv("FAULT_LINK");
    if (refuse && strcmp(refuse, "EPERM") == 0) {
        errno = EPERM;
        return -1;
    }
    if (fault("rename")) {
        errno = EIO;
        return -1;
    }
    return REAL("link", int (*)(const char *, const char *))(from, to);
}

pid_t fork(void)
{
    pid_t pid = REAL("fork", pid_t(*)(void))();
    const char *delay = getenv("FAULT_FORK_DELAY_MS");
    if (pid > 0 && delay) {
        long ms = strtol(delay, NULL, 10);
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
    }
    return pid;
}
