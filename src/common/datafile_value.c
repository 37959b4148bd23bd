/*
 * datafile_value: strict numbers, scalars and lists (see the header).
 */
#include "datafile_value.h"

#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * Plain decimal syntax: [+-]digits[.digits][e[+-]digits] (digits on at
 * least one side of the point), or [+-]digits for an integer. strtod and
 * strtol take more: leading blanks, hexadecimal ("0x1p-1074"), "inf" and
 * "nan"; a data file means none of them.
 */
static bool decimal_syntax(const char *s, bool integer)
{
    size_t digits = 0;
    if (*s == '+' || *s == '-')
        s++;
    for (; *s >= '0' && *s <= '9'; s++)
        digits++;
    if (integer)
        return digits > 0 && *s == '\0';
    if (*s == '.')
        for (s++; *s >= '0' && *s <= '9'; s++)
            digits++;
    if (digits == 0)
        return false;
    if (*s == 'e' || *s == 'E') {
        s++;
        if (*s == '+' || *s == '-')
            s++;
        if (!(*s >= '0' && *s <= '9'))
            return false;
        while (*s >= '0' && *s <= '9')
            s++;
    }
    return *s == '\0';
}

bool datafile_parse_double(const char *text, double *out)
{
    char *end;
    double v;
    if (!text || !decimal_syntax(text, false))
        return false;
    errno = 0;
    v = strtod(text, &end);
    /* Subnormals (below DBL_MIN) carry fewer digits than they show and
     * sit where any arithmetic on them overflows or flushes to zero:
     * glibc flags most with ERANGE, not the exact ones, so test. */
    if (end == text || *end != '\0' || errno == ERANGE || !isfinite(v) ||
        (v != 0 && fabs(v) < DBL_MIN))
        return false;
    *out = v;
    return true;
}

bool datafile_parse_long(const char *text, long *out)
{
    char *end;
    long v;
    if (!text || !decimal_syntax(text, true))
        return false;
    errno = 0;
    v = strtol(text, &end, 10);
    if (end == text || *end != '\0' || errno == ERANGE)
        return false;
    *out = v;
    return true;
}

int datafile_word_index(datafile_word_fn *word, const char *text)
{
    int i;
    const char *w;
    for (i = 0; (w = word(i)) != NULL; i++)
        if (strcmp(w, text) == 0)
            return i;
    return -1;
}

void datafile_words_join(datafile_word_fn *word, char *buf, size_t size)
{
    size_t used = 0;
    int i;
    const char *w;
    if (size == 0)
        return;
    buf[0] = '\0';
    for (i = 0; (w = word(i)) != NULL && used + 1 < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i ? "|" : "", w);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Whether f takes whole numbers: integers, and number lists whose
 * minimum is whole (a list of counts). */
static bool is_integral(const struct datafile_field *f)
{
    return f->type == DATAFILE_INT ||
           (f->type == DATAFILE_LIST && !f->word && f->min == floor(f->min));
}

void datafile_describe(const struct datafile_field *f, char *buf, size_t size)
{
    const char *what;
    if (f->type == DATAFILE_BOOL) {
        snprintf(buf, size, "true or false");
        return;
    }
    if (f->type == DATAFILE_STRING && f->max > 0) {
        snprintf(buf, size, "numbers in %s%.15g, %.15g], blank-separated",
                 f->min_open ? "(" : "[", f->min, f->max);
        return;
    }
    if (f->type == DATAFILE_STRING) {
        snprintf(buf, size, "text of at most %zu characters",
                 f->size ? f->size - 1 : 0);
        return;
    }
    if (f->word) {
        char words[DATAFILE_TEXT_MAX];
        datafile_words_join(f->word, words, sizeof words);
        snprintf(buf, size, "one of %s", words);
        return;
    }
    what = is_integral(f) ? "an integer" : "a number";
    if (f->max >= HUGE_VAL)
        snprintf(buf, size, "%s %s %.15g", what,
                 f->min_open ? ">" : ">=", f->min);
    else if (f->min_open)
        snprintf(buf, size, "%s in (%.15g, %.15g]", what, f->min, f->max);
    else
        snprintf(buf, size, "%s in %.15g..%.15g", what, f->min, f->max);
    if (f->zero_word && strlen(buf) + 1 < size)
        snprintf(buf + strlen(buf), size - strlen(buf), ", or %s (0)",
                 f->zero_word);
}

bool datafile_parse_scalar(const struct datafile_field *f,
                           const char *text,
                           double *out,
                           char *why,
                           size_t why_size)
{
    char want[160];
    double v;
    datafile_describe(f, want, sizeof want);
    if (f->word) {
        int i = datafile_word_index(f->word, text);
        if (i < 0) {
            snprintf(why, why_size, "expected %s, got \"%s\"", want, text);
            return false;
        }
        *out = i;
        return true;
    }
    if (f->zero_word && strcmp(text, f->zero_word) == 0) {
        *out = 0;
        return true;
    }
    if (is_integral(f)) {
        long l;
        if (!datafile_parse_long(text, &l)) {
            snprintf(why, why_size, "expected %s, got \"%s\"", want, text);
            return false;
        }
        v = (double)l;
    } else if (!datafile_parse_double(text, &v)) {
        snprintf(why, why_size, "expected %s, got \"%s\"", want, text);
        return false;
    }
    if (v < f->min || (f->min_open && v <= f->min) || v > f->max) {
        snprintf(why, why_size, "expected %s, got %s", want, text);
        return false;
    }
    *out = v;
    return true;
}

/* ---- Lists: "1 2 4", "1,2,4", "1..64 x2", "2..16 +2", "fp8 bf16" ---- */

static bool list_push(struct datafile_list *l, double v)
{
    size_t i;
    for (i = 0; i < l->n; i++)
        if (l->v[i] == v)
            return true; /* duplicates collapse */
    if (l->n == DATAFILE_LIST_MAX)
        return false;
    l->v[l->n++] = v;
    return true;
}

/* Expands "a..b", then an optional "xK" or "+K" word, into l. */
static bool parse_range(const struct datafile_field *f,
                        const char *item,
                        const char *step,
                        struct datafile_list *l,
                        char *why,
                        size_t why_size)
{
    char lo_text[DATAFILE_TEXT_MAX], hi_text[DATAFILE_TEXT_MAX];
    const char *dots = strstr(item, "..");
    double lo, hi, k = 1, v;
    bool mul = false;
    size_t len = (size_t)(dots - item), count = 0;

    snprintf(lo_text, sizeof lo_text, "%.*s", (int)len, item);
    snprintf(hi_text, sizeof hi_text, "%s", dots + 2);
    if (f->word || (f->zero_word && (strcmp(lo_text, f->zero_word) == 0 ||
                                     strcmp(hi_text, f->zero_word) == 0))) {
        snprintf(why, why_size, "a range (\"%s\") needs numbers", item);
        return false;
    }
    if (!datafile_parse_scalar(f, lo_text, &lo, why, why_size) ||
        !datafile_parse_scalar(f, hi_text, &hi, why, why_size))
        return false;
    if (step) {
        mul = step[0] == 'x' || step[0] == '*';
        if ((step[0] != 'x' && step[0] != '*' && step[0] != '+') ||
            !datafile_parse_double(step + 1, &k) || k <= (mul ? 1 : 0)) {
            snprintf(why, why_size,
                     "range step \"%s\": expected xK (K > 1) or +K (K > 0)",
                     step);
            return false;
        }
    }
    /* A fractional step through integers would be truncated into
     * repeats of one value (1..4 +0.5: 1 1 2 2 ...), each a duplicate
     * plan. */
    if (step && is_integral(f) && k != floor(k)) {
        snprintf(why, why_size,
                 "range step \"%s\": expected a whole step (the values are "
                 "integers)",
                 step);
        return false;
    }
    if (hi < lo) {
        snprintf(why, why_size, "range \"%s\" runs backwards", item);
        return false;
    }
    if (mul && lo <= 0) {
        snprintf(why, why_size,
                 "range \"%s %s\": a multiplying range must start above 0 "
                 "(%s never grows)",
                 item, step, lo_text);
        return false;
    }
    for (v = lo; v <= hi * (1 + 1e-12); v = mul ? v * k : v + k) {
        if (++count > DATAFILE_LIST_MAX || !list_push(l, v)) {
            snprintf(why, why_size, "list longer than %d values",
                     DATAFILE_LIST_MAX);
            return false;
        }
    }
    return true;
}

bool datafile_parse_list(const struct datafile_field *f,
                         const char *text,
                         struct datafile_list *l,
                         char *why,
                         size_t why_size)
{
    char buf[DATAFILE_TEXT_MAX];
    char *words[DATAFILE_TEXT_MAX];
    size_t n = 0, i;
    char *c;

    snprintf(buf, sizeof buf, "%s", text);
    l->n = 0;
    for (c = buf; *c;) {
        while (*c == ' ' || *c == '\t' || *c == ',')
            *c++ = '\0';
        if (!*c)
            break;
        words[n++] = c;
        while (*c && *c != ' ' && *c != '\t' && *c != ',')
            c++;
    }
    if (n == 0) {
        snprintf(why, why_size, "empty list");
        return false;
    }
    for (i = 0; i < n; i++) {
        double v;
        if (strstr(words[i], "..")) {
            const char *step = NULL;
            if (i + 1 < n && (words[i + 1][0] == 'x' ||
                              words[i + 1][0] == '*' || words[i + 1][0] == '+'))
                step = words[++i];
            if (!parse_range(f, words[i - (step ? 1 : 0)], step, l, why,
                             why_size))
                return false;
            continue;
        }
        if (!datafile_parse_scalar(f, words[i], &v, why, why_size))
            return false;
        if (!list_push(l, v)) {
            snprintf(why, why_size, "list longer than %d values",
                     DATAFILE_LIST_MAX);
            return false;
        }
    }
    return true;
}
