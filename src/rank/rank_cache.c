/*
 * rank_cache: a sweep thread's hint from one plan to the next (see
 * rank_cache.h).
 */
#include "rank_cache.h"

/* p with the fields the batch moves set to 0: gbs and the micro-batches
 * it gives (plan_check). */
static void mask_batch(const struct plan *p, struct plan *key)
{
    *key = *p;
    key->gbs = 0;
    key->microbatches = 0;
}

/* Whether rank e's memory still holds under plan p: its chunks'
 * micro-batches in flight (what its memory reads of the batch) are
 * those it was weighed with. */
static bool inflight_same(const struct cost_hint_rank *e, const struct plan *p)
{
    double now[COST_HINT_CHUNKS];
    size_t i, n = (size_t)e->view->chunks;
    plan_inflight_chunks(p, e->view->rank, n, now);
    for (i = 0; i < n; i++)
        if (now[i] != e->inflight[i])
            return false;
    return true;
}

/* Forgets everything: p shares nothing with the last plan. */
static void forget_all(struct rank_cache *c)
{
    int s;
    size_t k;
    c->hint.have = 0;
    for (s = 0; s < 2; s++) {
        struct cost_hint_part *part = &c->hint.part[s];
        c->bound[s].valid = false;
        for (k = 0; k < part->held; k++)
            part->rank[k].have = part->rank[k].need = 0;
        part->held = 0;
    }
}

/* Forgets what the batch moves for p, which differs from the last plan
 * in the batch alone: every rank's FLOPs and work (they scale with the
 * micro-batches) and the memories whose in-flight counts moved. */
static void forget_batch(struct rank_cache *c, const struct plan *p)
{
    int s;
    size_t k;
    c->hint.have &= ~(unsigned)(COST_HAVE_RANKS | COST_HAVE_SLOT);
    for (s = 0; s < 2; s++) {
        struct cost_hint_part *part = &c->hint.part[s];
        c->bound[s].valid = false;
        for (k = 0; k < part->held; k++) {
            struct cost_hint_rank *e = &part->rank[k];
            e->have &= COST_HAVE_MEMORY;
            e->need = 0;
            if (e->have && !inflight_same(e, p))
                e->have = 0;
        }
    }
}

struct cost_hint *rank_cache_hint(struct rank_cache *c, const struct plan *p)
{
    struct plan key;
    mask_batch(p, &key);
    if (!c->used || !plan_same(&key, &c->key)) {
        forget_all(c);
        c->key = key;
        c->used = true;
    } else if (!plan_same(p, &c->plan)) {
        forget_batch(c, p);
    }
    c->plan = *p;
    return &c->hint;
}

void rank_cache_forget(struct rank_cache *c)
{
    forget_all(c);
    c->used = false;
}
