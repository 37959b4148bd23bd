/*
 * plot_text: a byte buffer that grows by doubling, and gnuplot quoting.
 *
 * May call: libc only.
 */
#include "plot_text.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void plot_text_add(struct plot_text *t, const char *s, size_t n)
{
    if (t->nomem)
        return;
    if (n > SIZE_MAX - t->len - 1) {
        t->nomem = true;
        return;
    }
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 256;
        char *grown;
        while (cap < t->len + n + 1) {
            if (cap > SIZE_MAX / 2) {
                t->nomem = true;
                return;
            }
            cap *= 2;
        }
        grown = realloc(t->p, cap);
        if (!grown) {
            t->nomem = true;
            return;
        }
        t->p = grown;
        t->cap = cap;
    }
    if (n > 0)
        memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = '\0';
}

void plot_text_printf(struct plot_text *t, const char *fmt, ...)
{
    char small[512];
    char *big;
    va_list ap;
    int n;
    va_start(ap, fmt);
    n = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (n < 0) {
        t->nomem = true;
        return;
    }
    if ((size_t)n < sizeof small) {
        plot_text_add(t, small, (size_t)n);
        return;
    }
    big = malloc((size_t)n + 1);
    if (!big) {
        t->nomem = true;
        return;
    }
    va_start(ap, fmt);
    vsnprintf(big, (size_t)n + 1, fmt, ap);
    va_end(ap);
    plot_text_add(t, big, (size_t)n);
    free(big);
}

void plot_text_add_quoted(struct plot_text *t, const char *text)
{
    size_t len = strlen(text), size;
    char *q;
    if (len > (SIZE_MAX - 3) / 2) {
        t->nomem = true;
        return;
    }
    size = 2 * len + 3; /* every byte doubled at worst, and the quotes */
    q = malloc(size);
    if (!q) {
        t->nomem = true;
        return;
    }
    plot_text_quote(text, q, size);
    plot_text_add(t, q, strlen(q));
    free(q);
}

void plot_text_clear(struct plot_text *t)
{
    t->len = 0;
    if (t->p)
        t->p[0] = '\0';
}

void plot_text_release(struct plot_text *t)
{
    free(t->p);
    memset(t, 0, sizeof *t);
}

bool plot_text_quote(const char *text, char *buf, size_t size)
{
    size_t o = 0, i;
    bool whole = true;
    if (size < 3) {
        if (size > 0)
            buf[0] = '\0';
        return false;
    }
    buf[o++] = '\'';
    for (i = 0; text[i] != '\0'; i++) {
        unsigned char c = (unsigned char)text[i];
        /* The '>' of "]]>": the ']'s before it were copied as they are. */
        bool cdata_end =
            c == '>' && i >= 2 && text[i - 1] == ']' && text[i - 2] == ']';
        size_t need = c == '\'' || cdata_end ? 2 : 1;
        /* Stop before a byte that does not fit with the closing quote.
         * When that byte continues a UTF-8 sequence (10xxxxxx), drop the
         * part of the character already copied (back to its lead byte,
         * 11xxxxxx) so no character is ever split. */
        if (o + need + 1 >= size) {
            whole = false;
            if ((c & 0xC0) == 0x80) {
                while (o > 1 && ((unsigned char)buf[o - 1] & 0xC0) == 0x80)
                    o--;
                if (o > 1 && ((unsigned char)buf[o - 1] & 0xC0) == 0xC0)
                    o--;
            }
            break;
        }
        if (c == '\'') {
            buf[o++] = '\'';
            buf[o++] = '\'';
        } else if (c < 0x20 || c == 0x7F) {
            buf[o++] = ' '; /* a newline would end the command */
        } else if (cdata_end) {
            buf[o++] = ' ';
            buf[o++] = '>';
        } else {
            buf[o++] = (char)c;
        }
    }
    buf[o++] = '\'';
    buf[o] = '\0';
    return whole;
}
