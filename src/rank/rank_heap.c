/*
 * rank_heap: the kept plans (rank_shard.h): a bounded max-heap on "worse"
 * over 16-byte keys into the rows, a thread's own or shared under a lock,
 * and the sort of the kept rows, best first.
 */
#define _GNU_SOURCE /* qsort_r */
#include "rank_shard.h"

#include <stdlib.h>

bool rank_row_better(const struct ranking_row *a, const struct ranking_row *b)
{
    return rank_before(a->fits, a->step, &a->plan, b->fits, b->step, &b->plan);
}

/* True when heap key a ranks before key b (see ranks_before). */
static bool key_before(const struct heap *h,
                       const struct heap_key *a,
                       const struct heap_key *b)
{
    return rank_before(a->fits, a->step, &h->rows[a->slot].plan, b->fits,
                       b->step, &h->rows[b->slot].plan);
}

static void sift_down(struct heap *h, size_t i)
{
    struct heap_key *k = h->keys;
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        struct heap_key t;
        if (l < h->n && key_before(h, &k[w], &k[l]))
            w = l;
        if (r < h->n && key_before(h, &k[w], &k[r]))
            w = r;
        if (w == i)
            return;
        t = k[i];
        k[i] = k[w];
        k[w] = t;
        i = w;
    }
}

static void sift_up(struct heap *h, size_t i)
{
    struct heap_key *k = h->keys;
    while (i > 0) {
        size_t parent = (i - 1) / 2;
        struct heap_key t;
        if (!key_before(h, &k[parent], &k[i]))
            return;
        t = k[i];
        k[i] = k[parent];
        k[parent] = t;
        i = parent;
    }
}

/* Keeps row if it is among the heap's `top` best. */
void rank_heap_push(struct heap *h, const struct ranking_row *row)
{
    struct heap_key key;
    key.step = row->step;
    key.fits = row->fits;
    if (h->n < h->top) {
        if (h->n == h->cap) {
            size_t cap = h->cap ? h->cap * 2 : 1024;
            struct ranking_row *rows;
            struct heap_key *keys;
            if (cap > h->top)
                cap = h->top;
            rows = realloc(h->rows, cap * sizeof *rows);
            if (rows)
                h->rows = rows;
            keys = realloc(h->keys, cap * sizeof *keys);
            if (keys)
                h->keys = keys;
            if (!rows || !keys) {
                h->nomem = true;
                return;
            }
            h->cap = cap;
        }
        h->rows[h->n] = *row;
        key.slot = (uint32_t)h->n;
        h->keys[h->n] = key;
        sift_up(h, h->n++);
        return;
    }
    if (rank_before(row->fits, row->step, &row->plan, h->keys[0].fits,
                    h->keys[0].step, &h->rows[h->keys[0].slot].plan)) {
        key.slot = h->keys[0].slot;
        h->rows[key.slot] = *row;
        h->keys[0] = key;
        sift_down(h, 0);
    }
}

void rank_keep_row(struct shard *b, const struct ranking_row *row)
{
    struct heap *h = b->shared;
    if (!h) {
        rank_heap_push(&b->own, row);
        return;
    }
    /* The shared heap's root only gets better, so a plan no better than
     * a root seen before cannot enter: skip it without the lock. */
    if (b->have_worst && !rank_row_better(row, &b->worst))
        return;
    pthread_mutex_lock(b->lock);
    rank_heap_push(h, row);
    if (h->n == h->top) {
        b->worst = h->rows[h->keys[0].slot];
        b->have_worst = true;
    }
    pthread_mutex_unlock(b->lock);
}

/* qsort_r comparator over heap keys whose rows are `rows`. */
static int compare_keys(const void *x, const void *y, void *rows)
{
    const struct heap_key *a = x, *b = y;
    const struct ranking_row *r = rows;
    if (rank_before(a->fits, a->step, &r[a->slot].plan, b->fits, b->step,
                    &r[b->slot].plan))
        return -1;
    return rank_before(b->fits, b->step, &r[b->slot].plan, a->fits, a->step,
                       &r[a->slot].plan)
               ? 1
               : 0;
}

/*
 * Sorts rows best first, as ranks_before orders them: sorts 16-byte keys,
 * then moves each row once (following the permutation's cycles), instead
 * of qsort moving whole rows about log n times each.
 */
bool rank_sort_rows(struct ranking_row *rows, size_t n)
{
    struct heap_key *k = malloc((n ? n : 1) * sizeof *k);
    size_t i;
    if (!k)
        return false;
    for (i = 0; i < n; i++) {
        k[i].step = rows[i].step;
        k[i].fits = rows[i].fits;
        k[i].slot = (uint32_t)i;
    }
    qsort_r(k, n, sizeof *k, compare_keys, rows);
    /* position i takes the row at k[i].slot */
    for (i = 0; i < n; i++) {
        size_t at = i, from;
        struct ranking_row hold;
        if (k[i].slot == i || k[i].slot == UINT32_MAX)
            continue;
        hold = rows[i];
        while ((from = k[at].slot) != i) {
            rows[at] = rows[from];
            k[at].slot = UINT32_MAX; /* placed */
            at = from;
        }
        rows[at] = hold;
        k[at].slot = UINT32_MAX;
    }
    free(k);
    return true;
}
