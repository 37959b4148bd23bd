/*
 * datafile_text: what text roofplan carries, checked and quoted (see the
 * header).
 */
#include "datafile_text.h"

#include <stdio.h>
#include <string.h>

/*
 * Length of the well-formed UTF-8 sequence at s (n > 0 bytes left) with
 * its code point in *cp, or 0 when the bytes are not one. Well-formed as
 * RFC 3629 section 4 (Unicode Table 3-7) has it: no overlong forms, no
 * surrogates (U+D800..U+DFFF), nothing above U+10FFFF.
 */
static size_t utf8_decode(const unsigned char *s, size_t n, unsigned long *cp)
{
    unsigned char c = s[0], lo = 0x80, hi = 0xBF; /* second byte's range */
    size_t len, i;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c < 0xC2 || c > 0xF4)
        return 0;
    if (c < 0xE0) {
        len = 2;
        *cp = c & 0x1Fu;
    } else if (c < 0xF0) {
        len = 3;
        *cp = c & 0x0Fu;
        lo = c == 0xE0 ? 0xA0 : 0x80;
        hi = c == 0xED ? 0x9F : 0xBF;
    } else {
        len = 4;
        *cp = c & 0x07u;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF;
    }
    if (n < len)
        return 0;
    for (i = 1; i < len; i++) {
        unsigned char b = s[i];
        if (b < (i == 1 ? lo : 0x80) || b > (i == 1 ? hi : 0xBF))
            return 0;
        *cp = (*cp << 6) | (b & 0x3Fu);
    }
    return len;
}

/*
 * Whether code point cp may appear in text: not a C0 control but tab
 * (XML 1.0 forbids them; ESC starts terminal escape sequences), not DEL
 * or a C1 control (U+009B is a one-character CSI on some terminals), not
 * U+FFFE or U+FFFF (outside XML 1.0's Char production).
 */
static bool text_char(unsigned long cp)
{
    if (cp == '\t')
        return true;
    if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
        return false;
    return cp != 0xFFFE && cp != 0xFFFF;
}

bool datafile_text_check(const char *text,
                         size_t len,
                         size_t *column,
                         char *why,
                         size_t why_size)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i = 0, col = 1;
    while (i < len) {
        unsigned long cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        if (n == 0) {
            snprintf(why, why_size, "invalid UTF-8 (byte 0x%02X)", s[i]);
            *column = col;
            return false;
        }
        if (!text_char(cp)) {
            if (cp == '\r')
                snprintf(why, why_size,
                         "carriage return (U+000D) that does not end the "
                         "line");
            else if (cp < 0x20 || (cp >= 0x7F && cp <= 0x9F))
                snprintf(why, why_size, "control character U+%04lX", cp);
            else
                snprintf(why, why_size, "non-character U+%04lX", cp);
            *column = col;
            return false;
        }
        i += n;
        col++;
    }
    return true;
}

void datafile_text_quote(const char *text, char *buf, size_t size)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text), i = 0, used = 0;
    size_t cut = 0; /* last piece boundary with room for "..." after it */
    if (size == 0)
        return;
    while (i < len) {
        unsigned long cp;
        size_t n = utf8_decode(s + i, len - i, &cp);
        char piece[20];
        size_t plen = 0;
        if (n == 0 || !text_char(cp)) {
            /* each byte of it as \xNN: invalid sequences show one byte */
            size_t k, bytes = n == 0 ? 1 : n;
            for (k = 0; k < bytes; k++)
                plen += (size_t)snprintf(piece + plen, sizeof piece - plen,
                                         "\\x%02X", s[i++]);
        } else {
            memcpy(piece, s + i, n);
            plen = n;
            i += n;
        }
        if (used + plen + 1 > size) {
            used = cut;
            if (used + 4 <= size) {
                memcpy(buf + used, "...", 3);
                used += 3;
            }
            break;
        }
        memcpy(buf + used, piece, plen);
        used += plen;
        if (used + 4 <= size)
            cut = used;
    }
    buf[used] = '\0';
}

size_t datafile_text_xml(const char *text, char *buf, size_t size)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t len = strlen(text), i = 0, used = 0;
    while (i < len) {
        unsigned long cp;
        size_t n = utf8_decode(s + i, len - i, &cp), k;
        char piece[20];
        size_t plen = 0;
        if (n == 0 || (!text_char(cp) && cp != '\n')) {
            /* each byte of it as \xNN: invalid sequences show one byte */
            for (k = 0; k < (n == 0 ? 1 : n); k++)
                plen += (size_t)snprintf(piece + plen, sizeof piece - plen,
                                         "\\x%02X", s[i + k]);
        } else {
            memcpy(piece, s + i, n);
            plen = n;
        }
        i += n == 0 ? 1 : n;
        for (k = 0; k < plen; k++, used++)
            if (used + 1 < size)
                buf[used] = piece[k];
    }
    if (size > 0)
        buf[used < size ? used : size - 1] = '\0';
    return used;
}
