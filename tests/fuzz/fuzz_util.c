/*
 * fuzz_util: the memfd-backed input file, data paths and the byte
 * consumer shared by the fuzz targets.
 */
/* memfd_create() is a GNU extension of <sys/mman.h>. */
#define _GNU_SOURCE

#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef ROOFPLAN_DATADIR
#define ROOFPLAN_DATADIR "data"
#endif

void fuzz_file_init(struct fuzz_file *f)
{
    /* memfd: a regular file in memory, so the loaders' S_ISREG check
     * passes and nothing is left on disk; reopened through /proc. */
    f->fd = memfd_create("roofplan-fuzz", MFD_CLOEXEC);
    if (f->fd < 0) {
        perror("memfd_create");
        abort();
    }
    snprintf(f->path, sizeof f->path, "/proc/self/fd/%d", f->fd);
}

void fuzz_file_write(const struct fuzz_file *f,
                     const uint8_t *data,
                     size_t size)
{
    size_t done = 0;
    if (ftruncate(f->fd, 0) != 0) {
        perror("ftruncate");
        abort();
    }
    while (done < size) {
        ssize_t n = pwrite(f->fd, data + done, size - done, (off_t)done);
        if (n <= 0) {
            perror("pwrite");
            abort();
        }
        done += (size_t)n;
    }
}

const char *fuzz_data_path(const char *rel, char *buf, size_t size)
{
    if (strncmp(rel, "tests/", 6) == 0)
        snprintf(buf, size, "%s/../%s", ROOFPLAN_DATADIR, rel);
    else
        snprintf(buf, size, "%s/%s", ROOFPLAN_DATADIR, rel);
    return buf;
}

char *fuzz_cstring(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return NULL;
    if (size > 0)
        memcpy(s, data, size);
    s[size] = '\0';
    return s;
}

uint8_t fuzz_u8(struct fuzz_bytes *b)
{
    uint8_t v;
    if (b->size == 0)
        return 0;
    v = b->data[0];
    b->data++;
    b->size--;
    return v;
}

uint32_t fuzz_u32(struct fuzz_bytes *b)
{
    uint32_t v = 0;
    int i;
    for (i = 0; i < 4; i++)
        v = (v << 8) | fuzz_u8(b);
    return v;
}

bool fuzz_bool(struct fuzz_bytes *b)
{
    return (fuzz_u8(b) & 1) != 0;
}

long fuzz_range(struct fuzz_bytes *b, long lo, long hi)
{
    unsigned long span;
    if (hi <= lo)
        return lo;
    span = (unsigned long)(hi - lo) + 1;
    return lo + (long)((unsigned long)fuzz_u32(b) % span);
}

double fuzz_unit(struct fuzz_bytes *b)
{
    return (double)fuzz_u32(b) / 4294967296.0;
}

void fuzz_load(const struct fuzz_file *f,
               const uint8_t *data,
               size_t size,
               size_t dest_size,
               fuzz_loader load,
               fuzz_release release)
{
    void *x = malloc(dest_size);
    struct diag d;
    if (!x)
        return;
    diag_init(&d);
    fuzz_file_write(f, data, size);
    if (load(f->path, x, &d) == STATUS_OK) {
        if (d.msg[0] != '\0')
            abort(); /* success with a message */
        release(x);
    } else if (d.msg[0] == '\0' || d.status == STATUS_OK) {
        abort(); /* failure without a reason */
    }
    free(x);
}
