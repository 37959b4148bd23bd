/*
 * input_file: open a regular input file without blocking, read it whole
 * (see the header).
 */
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Where open_regular() finds no file and the caller accepts that. */
#define MISSING (-2)

/* Any owner, for open_regular(). */
#define ANY_OWNER ((uid_t)-1)

/*
 * The descriptor of the regular file `name` of dirfd (AT_FDCWD: a path),
 * opened without blocking, its size in *size; -1 with a message naming it
 * as `shown` in d otherwise. With `own` (a file of roofplan's own), a
 * symbolic link is not followed and counts as not a regular file, the
 * type is checked before the open too, and a missing file gives MISSING.
 * An owner other than ANY_OWNER refuses a file of another user's
 * (checked on the descriptor, so no file swapped in since the open).
 */
static int open_regular(int dirfd,
                        const char *name,
                        const char *shown,
                        bool own,
                        uid_t owner,
                        size_t max_bytes,
                        size_t *size,
                        struct diag *d)
{
    struct stat st;
    int fd, flags = O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY;
    if (own) {
        if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
            if (errno == ENOENT)
                return MISSING;
            diag_add(d, STATUS_IO, "%s: cannot open: %s", shown,
                     strerror(errno));
            return -1;
        }
        if (!S_ISREG(st.st_mode)) {
            diag_add(d, STATUS_IO, "%s: not a regular file", shown);
            return -1;
        }
        flags |= O_NOFOLLOW;
    }
    fd = openat(dirfd, name, flags);
    if (fd < 0) {
        if (own && errno == ENOENT)
            return MISSING;
        if (own && errno == ELOOP) /* a link put in its place since */
            diag_add(d, STATUS_IO, "%s: not a regular file", shown);
        else
            diag_add(d, STATUS_IO, "%s: cannot open: %s", shown,
                     strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        diag_add(d, STATUS_IO, "%s: not a regular file", shown);
        return -1;
    }
    if (owner != ANY_OWNER && st.st_uid != owner) {
        close(fd);
        diag_add(d, STATUS_IO, "%s: owned by user %lu, not %lu", shown,
                 (unsigned long)st.st_uid, (unsigned long)owner);
        return -1;
    }
    if (st.st_size < 0 ||
        (max_bytes > 0 && (unsigned long long)st.st_size > max_bytes)) {
        close(fd);
        diag_add(d, STATUS_PARSE, "%s: too large (%lld bytes; at most %zu)",
                 shown, (long long)st.st_size, max_bytes);
        return -1;
    }
    *size = (size_t)st.st_size;
    return fd;
}

enum status input_file_open(const char *path,
                            size_t max_bytes,
                            FILE **out,
                            size_t *size,
                            struct diag *d)
{
    int fd, flags;
    FILE *f;
    *out = NULL;
    fd = open_regular(AT_FDCWD, path, path, false, ANY_OWNER, max_bytes, size,
                      d);
    if (fd < 0)
        return d->status;
    /* A regular file never blocks; a stream reader expects blocking
     * reads all the same. */
    flags = fcntl(fd, F_GETFL);
    if (flags >= 0)
        (void)fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    f = fdopen(fd, "rb");
    if (!f) {
        int e = errno;
        close(fd);
        return diag_add(d, STATUS_IO, "%s: cannot open: %s", path, strerror(e));
    }
    *out = f;
    return STATUS_OK;
}

/* Reads fd (size bytes by fstat) whole into *out, NUL-terminated; closes
 * fd. */
static enum status read_whole(int fd,
                              size_t size,
                              const char *shown,
                              char **out,
                              size_t *len,
                              struct diag *d)
{
    char *buf = malloc(size + 1);
    size_t got = 0;
    if (!buf) {
        close(fd);
        return diag_add(d, STATUS_NOMEM, "%s: out of memory", shown);
    }
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return diag_add(d, STATUS_IO, "%s: cannot read: %s", shown,
                            strerror(e));
        }
        if (n == 0) /* the file shrank since fstat */
            break;
        got += (size_t)n;
    }
    close(fd);
    buf[got] = '\0';
    *out = buf;
    *len = got;
    return STATUS_OK;
}

enum status input_file_read(const char *path,
                            size_t max_bytes,
                            char **out,
                            size_t *len,
                            struct diag *d)
{
    size_t size;
    int fd = open_regular(AT_FDCWD, path, path, false, ANY_OWNER, max_bytes,
                          &size, d);
    if (fd < 0)
        return d->status;
    return read_whole(fd, size, path, out, len, d);
}

enum status input_file_read_at(int dirfd,
                               const char *name,
                               const char *shown,
                               size_t max_bytes,
                               char **out,
                               size_t *len,
                               struct diag *d)
{
    return input_file_read_own_at(dirfd, name, shown, ANY_OWNER, max_bytes, out,
                                  len, d);
}

enum status input_file_read_own_at(int dirfd,
                                   const char *name,
                                   const char *shown,
                                   uid_t owner,
                                   size_t max_bytes,
                                   char **out,
                                   size_t *len,
                                   struct diag *d)
{
    size_t size;
    int fd = open_regular(dirfd, name, shown, true, owner, max_bytes, &size, d);
    *out = NULL;
    *len = 0;
    if (fd == MISSING)
        return STATUS_OK;
    if (fd < 0)
        return d->status;
    return read_whole(fd, size, shown, out, len, d);
}
