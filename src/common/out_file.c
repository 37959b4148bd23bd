/*
 * out_file: temporary file beside the target, then rename() (POSIX
 * rename is atomic within one file system, hence "beside").
 */
#include "out_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum status
out_file_temp(const char *path, char *tmp, size_t size, struct diag *d)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    mode_t mask;
    int fd, n;
    n = snprintf(tmp, size, "%.*s.%s.XXXXXX", (int)dir, path, path + dir);
    if (n < 0 || (size_t)n >= size)
        return diag_set(d, STATUS_IO, "%s: cannot write: path too long", path);
    fd = mkstemp(tmp);
    if (fd < 0)
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(errno));
    /* mkstemp makes 0600; give the file what open(O_CREAT, 0666) would. */
    mask = umask(0);
    umask(mask);
    if (fchmod(fd, 0666 & ~mask) != 0 || close(fd) != 0) {
        int e = errno;
        unlink(tmp);
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(e));
    }
    return STATUS_OK;
}

enum status out_file_commit(const char *tmp, const char *path, struct diag *d)
{
    if (rename(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", path,
                        strerror(e));
    }
    return STATUS_OK;
}
