/*
 * fuzz_util: the memfd-backed input file, data paths and the byte
 * consumer shared by the fuzz targets.
 */
/* memfd_create() is a GNU extension of <sys/mman.h>. */
#define _GNU_SOURCE

#include "fuzz_util.h"

#include <float.h>
#include <math.h>
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
               fuzz_verify verify,
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
        if (verify)
            verify(x);
        release(x);
    } else if (d.msg[0] == '\0' || d.status == STATUS_OK) {
        abort(); /* failure without a reason */
    } else {
        fuzz_need_text(d.msg, true); /* what main prints */
    }
    free(x);
}

/* ---- What was accepted ---- */

/* Bytes of the UTF-8 sequence at s that encodes a character other than a
 * control (tab and, if nl, newline allowed) or U+FFFE/U+FFFF; 0 if none.
 * Spelled out by Unicode's Table 3-7 (well-formed byte sequences). */
static size_t text_char(const unsigned char *s, bool nl)
{
    static const struct {
        unsigned char lead_lo, lead_hi, second_lo, second_hi;
        size_t len;
    } forms[] = {
        {0xC2, 0xDF, 0x80, 0xBF, 2}, {0xE0, 0xE0, 0xA0, 0xBF, 3},
        {0xE1, 0xEC, 0x80, 0xBF, 3}, {0xED, 0xED, 0x80, 0x9F, 3},
        {0xEE, 0xEF, 0x80, 0xBF, 3}, {0xF0, 0xF0, 0x90, 0xBF, 4},
        {0xF1, 0xF3, 0x80, 0xBF, 4}, {0xF4, 0xF4, 0x80, 0x8F, 4},
    };
    size_t i, k;
    if (s[0] < 0x80)
        return s[0] >= 0x20 && s[0] != 0x7F           ? 1
               : s[0] == '\t' || (nl && s[0] == '\n') ? 1
                                                      : 0;
    for (i = 0; i < sizeof forms / sizeof *forms; i++) {
        if (s[0] < forms[i].lead_lo || s[0] > forms[i].lead_hi)
            continue;
        if (s[1] < forms[i].second_lo || s[1] > forms[i].second_hi)
            return 0;
        for (k = 2; k < forms[i].len; k++)
            if (s[k] < 0x80 || s[k] > 0xBF)
                return 0;
        if (s[0] == 0xC2 && s[1] <= 0x9F)
            return 0; /* C1 controls, U+0080..U+009F */
        if (s[0] == 0xEF && s[1] == 0xBF && (s[2] == 0xBE || s[2] == 0xBF))
            return 0; /* U+FFFE, U+FFFF */
        return forms[i].len;
    }
    return 0;
}

void fuzz_need_text(const char *s, bool lines)
{
    const unsigned char *u = (const unsigned char *)s;
    while (*u) {
        size_t n = text_char(u, lines);
        if (n == 0) {
            fprintf(stderr, "fuzz: not text at byte %zu of:\n%s\n",
                    (size_t)(u - (const unsigned char *)s), s);
            abort();
        }
        u += n;
    }
}

/* The words an enum field accepts (its word function's). */
static long count_words(datafile_word_fn *word)
{
    long n = 0;
    while (word((int)n))
        n++;
    return n;
}

/* v is a number field f may hold. */
static bool in_range(const struct datafile_field *f, double v, bool integer)
{
    if (f->word)
        return v >= 0 && v < (double)count_words(f->word) && v == floor(v);
    if (!isfinite(v) || (v != 0 && fabs(v) < DBL_MIN))
        return false;
    if (integer && v != floor(v))
        return false;
    return v >= f->min && !(f->min_open && v <= f->min) && v <= f->max;
}

void fuzz_need_loaded(const struct datafile_schema *schema,
                      const void *spec,
                      const struct datafile_meta *meta)
{
    size_t i, j, k;
    for (i = 0; i < schema->n; i++) {
        const struct datafile_field *f = &schema->fields[i];
        const char *at = (const char *)spec + f->offset;
        bool ok = true;
        switch (f->type) {
        case DATAFILE_INT:
            ok = in_range(f, (double)*(const long *)(const void *)at, true);
            break;
        case DATAFILE_DOUBLE:
            ok = in_range(f, *(const double *)(const void *)at, false);
            break;
        case DATAFILE_ENUM:
            ok = in_range(f, *(const int *)(const void *)at, true);
            break;
        case DATAFILE_BOOL:
            break;
        case DATAFILE_STRING:
            ok = memchr(at, '\0', f->size) != NULL;
            if (ok)
                fuzz_need_text(at, false);
            break;
        case DATAFILE_LIST: {
            const struct datafile_list *l = (const void *)at;
            bool integer = !f->word && f->min == floor(f->min);
            ok = l->n >= 1 && l->n <= DATAFILE_LIST_MAX;
            for (j = 0; ok && j < l->n; j++) {
                ok = in_range(f, l->v[j], integer);
                for (k = 0; ok && k < j; k++)
                    ok = l->v[k] != l->v[j]; /* each value once */
            }
            break;
        }
        }
        if (!ok) {
            fprintf(stderr, "fuzz: %s.%s accepted out of its range\n",
                    f->section, f->key);
            abort();
        }
        fuzz_need_text(datafile_meta_source(meta, i), false);
    }
    fuzz_need_text(meta->path, false);
}
