/*
 * rank_spill: the ranking rule (rank_before), and the spill files of
 * every valid plan (see rank.h): one
 * unlinked temporary file per sweep thread, a fixed-size record per plan
 * in enumeration order, and the cursor that reads the kept plans and
 * then every spilled plan back, merged by enumeration index, for
 * plans.csv. The records never leave the process that wrote them.
 */
#include "rank.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One spilled plan: where the enumeration met it, and its row (family:
 * its family key). */
struct rank_record {
    uint64_t index;
    struct ranking_row row;
};

/* ---- The ranking rule (rank.h): the sweep keeps by it, the cursor
 * checks its order by it ---- */

bool rank_before(bool fa,
                 double sa,
                 const struct plan *p,
                 bool fb,
                 double sb,
                 const struct plan *q)
{
    const long ka[] = {p->gpus,      p->tp,        p->pp,       p->cp,
                       p->ep,        p->zero,      p->schedule, p->vpp,
                       p->precision, p->recompute, p->mbs,      p->gbs};
    const long kb[] = {q->gpus,      q->tp,        q->pp,       q->cp,
                       q->ep,        q->zero,      q->schedule, q->vpp,
                       q->precision, q->recompute, q->mbs,      q->gbs};
    size_t i;
    if (fa != fb)
        return fa;
    if (sa != sb)
        return sa < sb;
    for (i = 0; i < sizeof ka / sizeof ka[0]; i++)
        if (ka[i] != kb[i])
            return ka[i] < kb[i];
    return false;
}

/* ---- Writing ---- */

/* Per thread: one unlinked spill file in dir. */
enum status rank_spill_open(const char *dir, FILE **out, struct diag *d)
{
    char path[1100];
    int fd;
    int n = snprintf(path, sizeof path, "%s/.spill.XXXXXX", dir);
    if (n < 0 || (size_t)n >= sizeof path)
        return diag_set(d, STATUS_IO, "%s: path too long", dir);
    fd = mkstemp(path);
    if (fd < 0)
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", dir,
                        strerror(errno));
    unlink(path); /* gone with the last descriptor, whatever happens */
    *out = fdopen(fd, "w+b");
    if (!*out) {
        int err = errno;
        close(fd);
        return diag_set(d, STATUS_IO, "%s: cannot write: %s", dir,
                        strerror(err));
    }
    return STATUS_OK;
}

bool rank_spill_write(FILE *f, const struct ranking_row *row, uint64_t index)
{
    struct rank_record rec;
    memset(&rec, 0, sizeof rec);
    rec.index = index;
    rec.row = *row;
    return fwrite(&rec, sizeof rec, 1, f) == 1;
}

/* ---- Reading every plan back ---- */

void ranking_cursor_init(struct ranking_cursor *c, const struct ranking *r)
{
    memset(c, 0, sizeof c[0]);
    c->r = r;
}

/* Reads spill file k's next record into the cursor's head. */
static void read_head(struct ranking_cursor *c, size_t k)
{
    FILE *f = c->r->spill[k];
    c->have[k] = fread(&c->head[k], sizeof c->head[k], 1, f) == 1;
    if (!c->have[k] && ferror(f))
        c->failed = true;
}

bool ranking_cursor_next(struct ranking_cursor *c,
                         struct ranking_row *row,
                         size_t *rank)
{
    const struct ranking *r = c->r;
    const struct ranking_row *last = r->nrows ? &r->rows[r->nrows - 1] : NULL;
    size_t k;
    if (c->next_row < r->nrows) {
        *row = r->rows[c->next_row++];
        *rank = c->next_row;
        return true;
    }
    if (r->nspill == 0 || c->failed)
        return false;
    if (!c->started) { /* rewind every spill file, read its first record */
        c->started = true;
        c->head = calloc(r->nspill, sizeof *c->head);
        c->have = calloc(r->nspill, sizeof *c->have);
        if (!c->head || !c->have) {
            c->failed = true;
            return false;
        }
        for (k = 0; k < r->nspill; k++) {
            if (fseek(r->spill[k], 0, SEEK_SET) != 0) {
                c->failed = true;
                return false;
            }
            read_head(c, k);
        }
    }
    for (;;) {
        size_t best = r->nspill;
        for (k = 0; k < r->nspill; k++)
            if (c->have[k] &&
                (best == r->nspill || c->head[k].index < c->head[best].index))
                best = k;
        if (best == r->nspill || c->failed)
            return false;
        *row = c->head[best].row;
        read_head(c, best);
        /* the kept plans are those ranking at or before the last kept */
        if (last && !rank_before(last->fits, last->step, &last->plan, row->fits,
                                 row->step, &row->plan))
            continue;
        row->family = r->family_of_key[row->family];
        *rank = 0;
        return true;
    }
}

void ranking_cursor_release(struct ranking_cursor *c)
{
    free(c->head);
    free(c->have);
    c->head = NULL;
    c->have = NULL;
}
