/*
 * zip_check: every entry read through minizip (which checks its CRC when
 * the entry is closed), and every XML part's last bytes compared with
 * its root element's closing tag. Only the first HEAD_MAX bytes (for the
 * root's name) and the last TAIL_MAX bytes of a part are kept, so a
 * part of any size is checked in constant memory.
 */
#include "zip_check.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <minizip/unzip.h>

#define CHUNK     65536
#define HEAD_MAX  4096 /* where the root element must start */
#define TAIL_MAX  512  /* enough for "</root>" and trailing whitespace */
#define NAME_MAX_ 512

/* The ends of one part, as it streams past. */
struct ends {
    char head[HEAD_MAX];
    size_t nhead;
    char tail[TAIL_MAX];
    size_t ntail;
};

static void ends_feed(struct ends *e, const char *buf, size_t n)
{
    size_t h = n < HEAD_MAX - e->nhead ? n : HEAD_MAX - e->nhead;
    memcpy(e->head + e->nhead, buf, h);
    e->nhead += h;
    if (n >= TAIL_MAX) {
        memcpy(e->tail, buf + n - TAIL_MAX, TAIL_MAX);
        e->ntail = TAIL_MAX;
    } else {
        size_t keep = e->ntail + n <= TAIL_MAX ? e->ntail : TAIL_MAX - n;
        memmove(e->tail, e->tail + e->ntail - keep, keep);
        memcpy(e->tail + keep, buf, n);
        e->ntail = keep + n;
    }
}

static bool space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/* Offset of the first s in h[from..n), or n. */
static size_t find(const char *h, size_t n, size_t from, const char *s)
{
    size_t len = strlen(s), i;
    for (i = from; i + len <= n; i++)
        if (memcmp(h + i, s, len) == 0)
            return i;
    return n;
}

/* The root element's name (with its prefix, "c:chartSpace") from the
 * start of a part, past a byte-order mark, the XML declaration,
 * processing instructions, comments and a DOCTYPE; *empty when its start
 * tag closes itself. False when no root starts within the head. */
static bool root_of(const struct ends *e, char *name, size_t size, bool *empty)
{
    const char *h = e->head;
    size_t n = e->nhead, i = 0, start, quote = 0;
    if (n >= 3 && memcmp(h, "\xEF\xBB\xBF", 3) == 0)
        i = 3;
    for (;;) {
        size_t end;
        while (i < n && space(h[i]))
            i++;
        if (i + 1 >= n || h[i] != '<')
            return false;
        if (h[i + 1] == '?')
            end = find(h, n, i, "?>") + 2;
        else if (n - i >= 4 && memcmp(h + i, "<!--", 4) == 0)
            end = find(h, n, i, "-->") + 3;
        else if (h[i + 1] == '!')
            end = find(h, n, i, ">") + 1;
        else
            break;
        if (end > n)
            return false;
        i = end;
    }
    start = ++i;
    while (i < n && !space(h[i]) && h[i] != '>' && h[i] != '/')
        i++;
    if (i == start || i >= n || i - start >= size)
        return false;
    memcpy(name, h + start, i - start);
    name[i - start] = '\0';
    *empty = false;
    for (; i < n; i++) { /* the end of the start tag, past quoted values */
        if (quote) {
            if ((size_t)(unsigned char)h[i] == quote)
                quote = 0;
        } else if (h[i] == '"' || h[i] == '\'') {
            quote = (unsigned char)h[i];
        } else if (h[i] == '>') {
            *empty = h[i - 1] == '/';
            break;
        }
    }
    return true;
}

/* True when the part ends, but for whitespace, with its root's end. */
static bool complete(const struct ends *e)
{
    char name[256], close[260];
    size_t n = e->ntail, len;
    bool empty;
    if (!root_of(e, name, sizeof name, &empty))
        return false;
    while (n > 0 && space(e->tail[n - 1]))
        n--;
    if (empty)
        snprintf(close, sizeof close, "/>");
    else
        snprintf(close, sizeof close, "</%s>", name);
    len = strlen(close);
    return n >= len && memcmp(e->tail + n - len, close, len) == 0;
}

static bool is_xml(const char *name)
{
    size_t n = strlen(name);
    return (n >= 4 && strcmp(name + n - 4, ".xml") == 0) ||
           (n >= 5 && strcmp(name + n - 5, ".rels") == 0);
}

/* Reads the current entry in full; STATUS_IO with the reason in d. */
static enum status check_entry(unzFile uf,
                               const char *shown,
                               char *buf,
                               struct ends *e,
                               struct diag *d)
{
    unz_file_info64 info;
    char name[NAME_MAX_];
    unsigned long long total = 0;
    int rc, n;
    bool xml;

    rc =
        unzGetCurrentFileInfo64(uf, &info, name, sizeof name, NULL, 0, NULL, 0);
    if (rc != UNZ_OK)
        return diag_set(d, STATUS_IO,
                        "%s: cannot read the written workbook: minizip "
                        "error %d",
                        shown, rc);
    xml = is_xml(name);
    e->nhead = e->ntail = 0;
    rc = unzOpenCurrentFile(uf);
    if (rc != UNZ_OK)
        return diag_set(d, STATUS_IO,
                        "%s: corrupt workbook part %s: minizip error %d", shown,
                        name, rc);
    while ((n = unzReadCurrentFile(uf, buf, CHUNK)) > 0) {
        total += (unsigned long long)n;
        if (xml)
            ends_feed(e, buf, (size_t)n);
    }
    rc = unzCloseCurrentFile(uf); /* UNZ_CRCERROR after a full read */
    if (n < 0 || rc != UNZ_OK)
        return diag_set(d, STATUS_IO,
                        "%s: corrupt workbook part %s: %s (minizip error "
                        "%d)",
                        shown, name,
                        rc == UNZ_CRCERROR ? "CRC mismatch" : "cannot inflate",
                        n < 0 ? n : rc);
    if (total != (unsigned long long)info.uncompressed_size)
        return diag_set(d, STATUS_IO,
                        "%s: corrupt workbook part %s: %llu bytes, %llu "
                        "expected",
                        shown, name, total,
                        (unsigned long long)info.uncompressed_size);
    if (xml && !complete(e))
        return diag_set(d, STATUS_IO,
                        "%s: incomplete workbook part %s (disk full?)", shown,
                        name);
    return STATUS_OK;
}

enum status
zip_check_package(const char *path, const char *shown, struct diag *d)
{
    unzFile uf;
    char *buf;
    struct ends *e;
    enum status st = STATUS_OK;
    int rc;

    uf = unzOpen64(path);
    if (!uf)
        return diag_set(d, STATUS_IO,
                        "%s: cannot read the written workbook: not a zip "
                        "file",
                        shown);
    buf = malloc(CHUNK);
    e = malloc(sizeof *e);
    if (!buf || !e) {
        st = diag_set(d, STATUS_NOMEM, "%s: out of memory", shown);
        goto done;
    }
    rc = unzGoToFirstFile(uf);
    while (rc == UNZ_OK) {
        st = check_entry(uf, shown, buf, e, d);
        if (st != STATUS_OK)
            goto done;
        rc = unzGoToNextFile(uf);
    }
    if (rc != UNZ_END_OF_LIST_OF_FILE)
        st = diag_set(d, STATUS_IO,
                      "%s: cannot read the written workbook: minizip error "
                      "%d",
                      shown, rc);
done:
    free(e);
    free(buf);
    unzClose(uf);
    return st;
}
