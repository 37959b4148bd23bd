/*
 * plan_split: how a plan's decoder layers split over its pipeline chunks
 * (plan.h): balanced by time, by Megatron-LM's counts (pp_first,
 * pp_last) or rules (pp_split), or by its pipeline layout notation
 * (pp_layout), parsed and written here.
 */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model_partition.h"

/* ---- Megatron-LM's pipeline layout notation ---- */

/* Longest expanded layout: 4096 symbols (Megatron's layouts for
 * 61-layer models expand to under 100). */
#define LAYOUT_MAX 4096

/* Appends the symbols of text from *at up to its end or a ')' to buf
 * (*n of them so far), each "X*N" and "(...)*N" repeated N times. */
static bool layout_expand(const char **at,
                          char *buf,
                          size_t *n,
                          int depth,
                          char *why,
                          size_t why_size)
{
    while (**at && **at != ')') {
        size_t from = *n, len;
        long times = 1;
        if (**at == '(') {
            if (depth >= 8) {
                snprintf(why, why_size, "pp_layout nests '(' too deep");
                return false;
            }
            (*at)++;
            if (!layout_expand(at, buf, n, depth + 1, why, why_size))
                return false;
            if (**at != ')') {
                snprintf(why, why_size, "pp_layout: '(' without ')'");
                return false;
            }
            (*at)++;
        } else if (strchr("EtmL|", **at)) {
            if (*n + 1 >= LAYOUT_MAX) {
                snprintf(why, why_size, "pp_layout expands past %d symbols",
                         LAYOUT_MAX);
                return false;
            }
            buf[(*n)++] = *(*at)++;
        } else {
            char one[2] = {**at, '\0'}, sym[16];
            datafile_text_quote(one, sym, sizeof sym); /* \xNN: not text */
            snprintf(why, why_size,
                     "pp_layout: '%s' is not one of E t m L | ( ) *N", sym);
            return false;
        }
        if (**at == '*') {
            char *end;
            (*at)++;
            times = strtol(*at, &end, 10);
            if (end == *at || times < 1 || times > LAYOUT_MAX) {
                snprintf(why, why_size, "pp_layout: '*' wants a count 1..%d",
                         LAYOUT_MAX);
                return false;
            }
            *at = end;
        }
        len = *n - from;
        if (len * (size_t)(times - 1) + *n >= LAYOUT_MAX) {
            snprintf(why, why_size, "pp_layout expands past %d symbols",
                     LAYOUT_MAX);
            return false;
        }
        for (; times > 1; times--, *n += len)
            memcpy(buf + *n, buf + from, len);
    }
    return true;
}

/* Reading an expanded layout symbol by symbol: the chunk being read and
 * its decoder layers (t), and what the chunks read so far hold. */
struct layout_walk {
    long chunk, t, first, middle, mtp;
    bool embedding, loss;
};

/* The end of chunk w->chunk ('|' at position i of the n symbols; at n:
 * the last chunk's). */
static bool layout_chunk_end(struct layout_walk *w,
                             size_t i,
                             size_t n,
                             char *why,
                             size_t why_size)
{
    if (w->loss && i != n) {
        snprintf(why, why_size, "pp_layout: 'L' must end the last chunk");
        return false;
    }
    if (w->mtp > 0 && i != n) {
        snprintf(why, why_size,
                 "pp_layout: MTP modules ('m') only in the last "
                 "chunk (roofplan places them with the head)");
        return false;
    }
    if (w->chunk == 0)
        w->first = w->t;
    else if (i != n) {
        if (w->middle >= 0 && w->t != w->middle) {
            snprintf(why, why_size,
                     "pp_layout: the chunks between the first and "
                     "the last must hold equal decoder layers (%ld "
                     "and %ld)",
                     w->middle, w->t);
            return false;
        }
        w->middle = w->t;
    }
    if (i != n) {
        w->chunk++;
        w->t = 0;
    }
    return true;
}

/* Symbol c at position i of the n symbols (n: the closing '|'). */
static bool layout_symbol(struct layout_walk *w,
                          char c,
                          size_t i,
                          size_t n,
                          char *why,
                          size_t why_size)
{
    if (w->loss && c != '|') {
        snprintf(why, why_size, "pp_layout: 'L' must end the last chunk");
        return false;
    }
    if (c == 't')
        w->t++;
    else if (c == 'E') {
        if (w->chunk != 0 || i != 0) {
            snprintf(why, why_size, "pp_layout: 'E' must open the first chunk");
            return false;
        }
        w->embedding = true;
    } else if (c == 'm')
        w->mtp++;
    else if (c == 'L')
        w->loss = true;
    else /* '|': chunk `chunk` ends with t decoder layers */
        return layout_chunk_end(w, i, n, why, why_size);
    return true;
}

bool plan_layout_parse(const char *text,
                       struct plan *p,
                       char *why,
                       size_t why_size)
{
    char buf[LAYOUT_MAX];
    const char *at = text;
    size_t n = 0, i;
    struct layout_walk w = {.first = -1, .middle = -1};
    if (!layout_expand(&at, buf, &n, 0, why, why_size))
        return false;
    if (*at == ')') {
        snprintf(why, why_size, "pp_layout: ')' without '('");
        return false;
    }
    buf[n] = '|'; /* closes the last chunk */
    for (i = 0; i <= n; i++)
        if (!layout_symbol(&w, buf[i], i, n, why, why_size))
            return false;
    if (!w.embedding || !w.loss || w.chunk < 1) {
        snprintf(why, why_size,
                 "pp_layout needs 'E' in the first chunk, 'L' at the end of "
                 "the last and at least two chunks");
        return false;
    }
    if (w.middle == 0) {
        snprintf(why, why_size,
                 "pp_layout: a middle chunk without a decoder layer");
        return false;
    }
    p->layout_chunks = w.chunk + 1;
    p->layout_first = w.first;
    p->layout_middle = w.middle > 0 ? w.middle : 0;
    p->layout_last = w.t;
    p->layout_mtp = w.mtp;
    return true;
}

/* "t", "t*N" or "" for n decoder layers. */
static void layout_layers(long n, char *buf, size_t size)
{
    if (n <= 0)
        buf[0] = '\0';
    else if (n == 1)
        snprintf(buf, size, "t");
    else
        snprintf(buf, size, "t*%ld", n);
}

void plan_layout_format(const struct plan *p, char *buf, size_t size)
{
    char first[24], middle[24], last[24], mid[64] = "", mtp[24] = "";
    if (p->layout_chunks < 2) {
        snprintf(buf, size, "%s", "");
        return;
    }
    layout_layers(p->layout_first, first, sizeof first);
    layout_layers(p->layout_middle, middle, sizeof middle);
    layout_layers(p->layout_last, last, sizeof last);
    if (p->layout_chunks > 2)
        snprintf(mid, sizeof mid, "(%s|)*%ld", middle, p->layout_chunks - 2);
    if (p->layout_mtp == 1)
        snprintf(mtp, sizeof mtp, "m");
    else if (p->layout_mtp > 1)
        snprintf(mtp, sizeof mtp, "m*%ld", p->layout_mtp);
    snprintf(buf, size, "E%s|%s%s%sL", first, mid, last, mtp);
}

bool plan_split_shape_ok(const struct plan *p)
{
    bool counts = p->pp_first > 0 || p->pp_last > 0;
    if (p->layout_chunks > 0)
        return p->pp >= 2 && !counts && p->pp_split == MODEL_SPLIT_BALANCED &&
               p->layout_chunks == p->pp * p->vpp;
    return p->pp >= 2 &&
           !(counts && (p->vpp != 1 || p->pp_split != MODEL_SPLIT_BALANCED));
}

bool plan_split_layers(const struct plan *p,
                       long layers,
                       long *first,
                       long *last)
{
    long chunks = p->pp * p->vpp, counted = layers, each;
    bool embedding = p->pp_split == MODEL_SPLIT_EMBEDDING ||
                     p->pp_split == MODEL_SPLIT_EMBEDDING_LOSS;
    bool loss = p->pp_split == MODEL_SPLIT_LOSS ||
                p->pp_split == MODEL_SPLIT_EMBEDDING_LOSS;
    *first = *last = 0;
    if (chunks < 2)
        return p->pp_first > 0 || p->pp_last > 0 ||
               p->pp_split != MODEL_SPLIT_BALANCED || p->layout_chunks > 0;
    if (p->layout_chunks > 0) {
        /* the layout's ends; its middle chunks must be the others' share
         * (model_partition_split_ok's, checked by plan_check) */
        *first = p->layout_first;
        *last = p->layout_last;
        if (p->layout_chunks != chunks ||
            p->layout_first + p->layout_last +
                    p->layout_middle * (chunks - 2) !=
                layers)
            *first = -1; /* refused by model_partition_split_ok */
        return true;
    }
    if (p->pp_first > 0 || p->pp_last > 0) {
        /* Megatron's --decoder-first/last-pipeline-num-layers: an unset
         * end holds the others' share, at least one layer (Megatron-LM's
         * TransformerConfig: "Mismatch: 0 middle layers remaining but 1
         * middle PP stages available" for pp=2 with every layer last) */
        long fixed = (p->pp_first > 0) + (p->pp_last > 0);
        long share = chunks > fixed ? (layers - p->pp_first - p->pp_last) /
                                          (chunks - fixed)
                                    : 0;
        *first = p->pp_first > 0 ? p->pp_first : share;
        *last = p->pp_last > 0 ? p->pp_last : share;
        if (share * (chunks - fixed) != layers - p->pp_first - p->pp_last ||
            (chunks > fixed && share < 1))
            *first = -1; /* refused by model_partition_split_ok */
        return true;
    }
    if (p->pp_split == MODEL_SPLIT_BALANCED)
        return false;
    /* get_num_layers_to_build: the embedding and the loss count as a
     * layer each, the counted layers split equally, the ends build one
     * decoder layer fewer */
    counted += embedding + loss;
    each = counted / chunks;
    if (counted % chunks != 0)
        each = -1; /* refused by model_partition_split_ok */
    *first = each - embedding;
    *last = each - loss;
    return true;
}
