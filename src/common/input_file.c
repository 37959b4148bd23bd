/*
 * input_file: open a regular input file without blocking, read it whole
 * (see the header).
 */
#include "input_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/*
 * The descriptor of the regular file at path, opened without blocking,
 * its size in *size; -1 with a message in d otherwise.
 */
static int
open_regular(const char *path, size_t max_bytes, size_t *size, struct diag *d)
{
    struct stat st;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        diag_add(d, STATUS_IO, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        diag_add(d, STATUS_IO, "%s: not a regular file", path);
        return -1;
    }
    if (st.st_size < 0 ||
        (max_bytes > 0 && (unsigned long long)st.st_size > max_bytes)) {
        close(fd);
        diag_add(d, STATUS_PARSE, "%s: too large (%lld bytes; at most %zu)",
                 path, (long long)st.st_size, max_bytes);
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
    fd = open_regular(path, max_bytes, size, d);
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

enum status input_file_read(const char *path,
                            size_t max_bytes,
                            char **out,
                            size_t *len,
                            struct diag *d)
{
    char *buf;
    size_t size, got = 0;
    int fd = open_regular(path, max_bytes, &size, d);
    if (fd < 0)
        return d->status;
    buf = malloc(size + 1);
    if (!buf) {
        close(fd);
        return diag_add(d, STATUS_NOMEM, "%s: out of memory", path);
    }
    while (got < size) {
        ssize_t n = read(fd, buf + got, size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int e = errno;
            free(buf);
            close(fd);
            return diag_add(d, STATUS_IO, "%s: cannot read: %s", path,
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
