/*
 * model_pattern: each layer's mixer and MLP, the pattern text, and the
 * layer kinds a model's units take (see the header).
 */
#include "model_pattern.h"

#include <stdio.h>
#include <string.h>

#include "model.h"
#include "model_mixer.h"

_Static_assert(MODEL_LAYER_KINDS <= 32,
               "model_tensor.kinds holds a bit per layer kind");
_Static_assert(MODEL_LAYER_KINDS < 256, "unit_kind holds a kind in a byte");

static const struct mlp_row {
    char letter;      /* in a pattern */
    const char *word; /* in a kind's name */
} mlps[MODEL_MLPS] = {
    [MODEL_MLP_DENSE] = {.letter = 'D', .word = "dense"},
    [MODEL_MLP_MOE] = {.letter = 'E', .word = "MoE"},
    [MODEL_MLP_NONE] = {.letter = '.', .word = ""},
};

char model_mlp_letter(int mlp)
{
    return mlp >= 0 && mlp < MODEL_MLPS ? mlps[mlp].letter : 0;
}

const char *model_mlp_word(int mlp)
{
    return mlp >= 0 && mlp < MODEL_MLPS ? mlps[mlp].word : NULL;
}

/* The pairs in row order, the two full-attention ones first (dense and
 * MoE layers: kinds 0 and 1), the MTP module's slot after them. */
enum model_layer_kind model_layer_kind_of(int mixer, int mlp)
{
    int at = mixer * MODEL_MLPS + mlp;
    return (enum model_layer_kind)(at < MODEL_LAYER_MTP ? at : at + 1);
}

void model_kind_parts(const struct model *m, int k, int *mixer, int *mlp)
{
    int at = k < MODEL_LAYER_MTP ? k : k - 1;
    if (k == MODEL_LAYER_MTP) {
        *mixer = m->mtp_mixer;
        *mlp = m->mtp_mlp;
        return;
    }
    *mixer = at / MODEL_MLPS;
    *mlp = at % MODEL_MLPS;
}

/* ---- Parsing ---- */

#define DEPTH_MAX 4 /* groups within groups */

struct parse {
    const char *text, *at;
    unsigned char *mixer, *mlp;
    size_t max, n;
    char *why;
    size_t why_size;
};

static bool fail(struct parse *p, const char *what)
{
    snprintf(p->why, p->why_size, "at character %ld: %s",
             (long)(p->at - p->text) + 1, what);
    return false;
}

static int letter_of(char c, char (*letter)(int), int n)
{
    int i;
    for (i = 0; i < n; i++)
        if (letter(i) == c)
            return i;
    return -1;
}

/* "A N W ...": the letters a message lists. */
static void letters(char (*letter)(int), int n, char *buf, size_t size)
{
    size_t at = 0;
    int i;
    for (i = 0; i < n && at + 3 < size; i++) {
        buf[at++] = letter(i);
        buf[at++] = i + 1 < n ? ' ' : '\0';
    }
    buf[at < size ? at : size - 1] = '\0';
}

static void blanks(struct parse *p)
{
    while (*p->at == ' ' || *p->at == '\t')
        p->at++;
}

/* A count before a layer or a group: 1 when none. */
static bool count(struct parse *p, long *out)
{
    long c = 0;
    *out = 1;
    if (*p->at < '0' || *p->at > '9')
        return true;
    while (*p->at >= '0' && *p->at <= '9') {
        c = c * 10 + (*p->at - '0');
        if (c > MODEL_UNITS_MAX)
            return fail(p, "a count over the most layers a model has");
        p->at++;
    }
    if (c < 1)
        return fail(p, "a count of 0");
    *out = c;
    return true;
}

static bool layer(struct parse *p, long times)
{
    char what[160], set[40];
    int mixer = letter_of(*p->at, model_mixer_letter, MODEL_MIXERS), mlp;
    long i;
    if (mixer < 0) {
        letters(model_mixer_letter, MODEL_MIXERS, set, sizeof set);
        snprintf(what, sizeof what,
                 "expected a mixer letter (%s), a count or '(', got '%c'", set,
                 *p->at);
        return fail(p, what);
    }
    p->at++;
    mlp = letter_of(*p->at, model_mlp_letter, MODEL_MLPS);
    if (mlp < 0) {
        letters(model_mlp_letter, MODEL_MLPS, set, sizeof set);
        if (*p->at)
            snprintf(what, sizeof what, "expected an MLP letter (%s), got '%c'",
                     set, *p->at);
        else
            snprintf(what, sizeof what,
                     "expected an MLP letter (%s), got the end", set);
        return fail(p, what);
    }
    if (mixer == MODEL_MIX_NONE && mlp == MODEL_MLP_NONE)
        return fail(p, "a layer of neither mixer nor MLP ('..')");
    p->at++;
    for (i = 0; i < times; i++) {
        if (p->n == p->max) {
            p->at -= 2; /* at the layer */
            return fail(p, "more layers than a model has");
        }
        p->mixer[p->n] = (unsigned char)mixer;
        p->mlp[p->n++] = (unsigned char)mlp;
    }
    return true;
}

static bool items(struct parse *p, int depth);

/* (items) repeated `times`: parsed once, its layers copied. */
static bool group(struct parse *p, long times, int depth)
{
    size_t first = p->n, len;
    long i;
    if (depth >= DEPTH_MAX)
        return fail(p, "groups nested more than 4 deep");
    p->at++;
    if (!items(p, depth + 1))
        return false;
    if (*p->at != ')')
        return fail(p, "expected ')'");
    p->at++;
    len = p->n - first;
    if (len == 0)
        return fail(p, "an empty group");
    for (i = 1; i < times; i++) {
        if (p->n + len > p->max)
            return fail(p, "more layers than a model has");
        memmove(p->mixer + p->n, p->mixer + first, len);
        memmove(p->mlp + p->n, p->mlp + first, len);
        p->n += len;
    }
    return true;
}

static bool items(struct parse *p, int depth)
{
    for (;;) {
        long times;
        blanks(p);
        if (*p->at == '\0' || *p->at == ')')
            return true;
        if (!count(p, &times))
            return false;
        if (*p->at == '(') {
            if (!group(p, times, depth))
                return false;
        } else if (!layer(p, times)) {
            return false;
        }
    }
}

bool model_pattern_parse(const char *text,
                         unsigned char *mixer,
                         unsigned char *mlp,
                         size_t max,
                         size_t *n,
                         char *why,
                         size_t why_size)
{
    struct parse p = {.text = text,
                      .at = text,
                      .mixer = mixer,
                      .mlp = mlp,
                      .max = max,
                      .why = why,
                      .why_size = why_size};
    *n = 0;
    if (!items(&p, 0))
        return false;
    if (*p.at == ')')
        return fail(&p, "')' without its '('");
    if (p.n == 0)
        return fail(&p, "no layers");
    *n = p.n;
    return true;
}

/* ---- Writing ---- */

#define PERIOD_MAX 12 /* the longest group a pattern is searched for */

struct out {
    char *buf;
    size_t size, at;
    bool ok;
};

static void put(struct out *o, const char *text)
{
    size_t len = strlen(text);
    if (!o->ok || o->at + len >= o->size) {
        o->ok = false;
        return;
    }
    memcpy(o->buf + o->at, text, len + 1);
    o->at += len;
}

static bool same(const unsigned char *x,
                 const unsigned char *y,
                 size_t a,
                 size_t b,
                 size_t len)
{
    return memcmp(x + a, x + b, len) == 0 && memcmp(y + a, y + b, len) == 0;
}

/* Layers [0, n) of x (mixers) and y (MLPs), each item the longest cover
 * of a run of one layer or of a repeated group, the shorter first. */
static void
emit(const unsigned char *x, const unsigned char *y, size_t n, struct out *o)
{
    size_t i = 0;
    while (i < n && o->ok) {
        size_t p, best_p = 1, best_c = 1, c;
        while (i + best_c < n && same(x, y, i, i + best_c, 1))
            best_c++;
        for (p = 2; p <= PERIOD_MAX && i + 2 * p <= n; p++) {
            for (c = 1; i + (c + 1) * p <= n && same(x, y, i, i + c * p, p);)
                c++;
            if (c >= 2 && c * p > best_c * best_p) {
                best_p = p;
                best_c = c;
            }
        }
        if (i > 0)
            put(o, " ");
        if (best_c > 1) {
            char num[24];
            snprintf(num, sizeof num, "%ld", (long)best_c);
            put(o, num);
        }
        if (best_p == 1) {
            char pair[3] = {model_mixer_letter(x[i]), model_mlp_letter(y[i]),
                            '\0'};
            put(o, pair);
        } else {
            put(o, "(");
            emit(x + i, y + i, best_p, o);
            put(o, ")");
        }
        i += best_p * best_c;
    }
}

bool model_pattern_format(const unsigned char *mixer,
                          const unsigned char *mlp,
                          size_t n,
                          char *buf,
                          size_t size)
{
    struct out o = {.buf = buf, .size = size, .at = 0, .ok = size > 0};
    if (size > 0)
        buf[0] = '\0';
    emit(mixer, mlp, n, &o);
    return o.ok;
}

/* ---- A model's units ---- */

static void kind_name(const struct model *m, int k, char *buf, size_t size)
{
    int mixer, mlp;
    if (k == MODEL_LAYER_MTP) {
        snprintf(buf, size, "MTP module");
        return;
    }
    model_kind_parts(m, k, &mixer, &mlp);
    if (mlp == MODEL_MLP_NONE)
        snprintf(buf, size, "%s block", model_mixer_word(mixer));
    else if (mixer == MODEL_MIX_NONE)
        snprintf(buf, size, "%s MLP block", model_mlp_word(mlp));
    else if (mixer == MODEL_MIX_FULL)
        snprintf(buf, size, "%s layer", model_mlp_word(mlp));
    else
        snprintf(buf, size, "%s %s layer", model_mixer_word(mixer),
                 model_mlp_word(mlp));
}

void model_pattern_units(struct model *m)
{
    const struct model_spec *s = &m->spec;
    unsigned char mixer[MODEL_UNITS_MAX], mlp[MODEL_UNITS_MAX];
    size_t n = 0, i;
    long d;
    int k;
    char why[160];

    memset(m->kind_units, 0, sizeof m->kind_units);
    if (s->pattern[0] == '\0' ||
        !model_pattern_parse(s->pattern, mixer, mlp, MODEL_UNITS_MAX, &n, why,
                             sizeof why))
        for (n = 0; n < (size_t)s->layers && n < MODEL_UNITS_MAX; n++) {
            mixer[n] = MODEL_MIX_FULL;
            mlp[n] = s->routed_experts > 0 && (long)n >= s->first_dense_layers
                         ? MODEL_MLP_MOE
                         : MODEL_MLP_DENSE;
        }
    for (i = 0; i < n; i++) {
        k = (int)model_layer_kind_of(mixer[i], mlp[i]);
        m->unit_kind[i] = (unsigned char)k;
        m->kind_units[k]++;
    }
    /* An MTP module is a transformer block of the model's attention
     * (its last layer's, where that is softmax attention) and MLP kind
     * (DeepSeek-V3 §2.2; V3.2's uses its sparse attention). */
    m->mtp_mixer =
        n > 0 && (model_mixer_class(mixer[n - 1]) & MODEL_MIXER_SOFTMAX)
            ? mixer[n - 1]
            : MODEL_MIX_FULL;
    m->mtp_mlp = s->routed_experts > 0 ? MODEL_MLP_MOE : MODEL_MLP_DENSE;
    for (d = 0; d < s->mtp_depth && n < MODEL_UNITS_MAX; d++) {
        m->unit_kind[n++] = MODEL_LAYER_MTP;
        m->kind_units[MODEL_LAYER_MTP]++;
    }
    m->units = (long)n;
    for (k = 0; k < MODEL_LAYER_KINDS; k++)
        kind_name(m, k, m->kind_name[k], sizeof m->kind_name[k]);
}

bool model_units_pattern(const struct model *m,
                         long first,
                         long count,
                         char *buf,
                         size_t size)
{
    unsigned char mixer[MODEL_UNITS_MAX], mlp[MODEL_UNITS_MAX];
    size_t n = 0;
    long u;
    int x, y;
    for (u = first; u < first + count && u < m->units; u++) {
        if (m->unit_kind[u] == MODEL_LAYER_MTP)
            continue;
        model_kind_parts(m, m->unit_kind[u], &x, &y);
        mixer[n] = (unsigned char)x;
        mlp[n++] = (unsigned char)y;
    }
    return model_pattern_format(mixer, mlp, n, buf, size);
}
