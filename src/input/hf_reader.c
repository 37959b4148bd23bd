/*
 * hf_reader: the values of a config.json into a model_spec, with their
 * sources (see the header).
 */
#include "hf_reader.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datafile_text.h"

const char *
hf_reader_quote(const char *text, size_t max, char *buf, size_t size)
{
    /* the data files' rule: text as it is, anything else (control
     * characters, invalid UTF-8) as \xNN, cut at a character boundary */
    datafile_text_quote(text ? text : "", buf, max < size - 1 ? max + 1 : size);
    return buf;
}

void hf_reader_show(const cJSON *it, char *buf, size_t size)
{
    char text[64];
    if (cJSON_IsNumber(it))
        snprintf(buf, size, "%.17g", it->valuedouble);
    else if (cJSON_IsString(it))
        snprintf(buf, size, "\"%s\"",
                 hf_reader_quote(it->valuestring, 60, text, sizeof text));
    else if (cJSON_IsTrue(it))
        snprintf(buf, size, "true");
    else if (cJSON_IsFalse(it))
        snprintf(buf, size, "false");
    else if (cJSON_IsNull(it))
        snprintf(buf, size, "null");
    else if (cJSON_IsArray(it))
        snprintf(buf, size, "an array");
    else
        snprintf(buf, size, "an object");
}

const cJSON *hf_reader_take(struct hf_reader *r, const char *key)
{
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(r->root, key);
    if (it && r->nused < HF_READER_USED_MAX)
        r->used[r->nused++] = it;
    return it;
}

bool hf_reader_absent(const cJSON *it)
{
    return !it || cJSON_IsNull(it);
}

long hf_reader_field(const char *section, const char *key)
{
    return datafile_field_index(model_schema(), section, key);
}

void *hf_reader_slot(struct hf_reader *r, long fi)
{
    return (char *)r->spec + model_schema()->fields[fi].offset;
}

void hf_reader_source(struct hf_reader *r, long fi, const char *fmt, ...)
{
    char text[2 * DATAFILE_TEXT_MAX];
    char *copy;
    int n = snprintf(text, sizeof text, "%s: ", r->path);
    va_list ap;
    size_t len;
    if (n < 0 || (size_t)n >= sizeof text)
        n = 0;
    va_start(ap, fmt);
    vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    va_end(ap);
    len = diag_utf8_cut(text, strlen(text)); /* cut: whole characters */
    text[len++] = '\0';
    copy = malloc(len);
    if (copy)
        memcpy(copy, text, len);
    free(r->meta->source[fi]);
    r->meta->source[fi] = copy;
    r->meta->given[fi] = true;
    r->meta->line[fi] = 0;
}

bool hf_reader_get_int(struct hf_reader *r,
                       const char *key,
                       double min,
                       double max,
                       const char *want,
                       bool *found,
                       long *out)
{
    const cJSON *it = hf_reader_take(r, key);
    char got[96];
    *found = false;
    if (hf_reader_absent(it))
        return true;
    if (!cJSON_IsNumber(it) || !isfinite(it->valuedouble) ||
        it->valuedouble != floor(it->valuedouble) || it->valuedouble < min ||
        it->valuedouble > max) {
        hf_reader_show(it, got, sizeof got);
        diag_add(r->d, STATUS_RANGE, "%s: key '%s': expected %s, got %s",
                 r->path, key, want, got);
        return false;
    }
    *out = (long)it->valuedouble;
    *found = true;
    return true;
}

bool hf_reader_int_field(struct hf_reader *r,
                         const char *key,
                         const char *section,
                         const char *name,
                         enum hf_need need,
                         long def,
                         const char *why)
{
    long fi = hf_reader_field(section, name), v = def;
    const struct datafile_field *f = &model_schema()->fields[fi];
    char want[160];
    bool found;
    datafile_describe(f, want, sizeof want);
    if (!hf_reader_get_int(r, key, f->min, f->max, want, &found, &v))
        return false;
    if (found) {
        *(long *)hf_reader_slot(r, fi) = v;
        hf_reader_source(r, fi, "%s", key);
        return true;
    }
    if (need == HF_REQUIRED) {
        diag_add(r->d, STATUS_PARSE, "%s: key '%s': %s (required for %s; %s)",
                 r->path, key,
                 cJSON_GetObjectItemCaseSensitive(r->root, key) ? "null"
                                                                : "missing",
                 r->arch_name, want);
        return false;
    }
    *(long *)hf_reader_slot(r, fi) = def;
    hf_reader_source(r, fi, "%s %s", key, why);
    return false;
}

void hf_reader_fix_long(struct hf_reader *r,
                        const char *section,
                        const char *name,
                        long v,
                        const char *why)
{
    long fi = hf_reader_field(section, name);
    *(long *)hf_reader_slot(r, fi) = v;
    hf_reader_source(r, fi, "%s", why);
}

void hf_reader_fix_int(struct hf_reader *r,
                       const char *section,
                       const char *name,
                       int v,
                       const char *why)
{
    long fi = hf_reader_field(section, name);
    *(int *)hf_reader_slot(r, fi) = v;
    hf_reader_source(r, fi, "%s", why);
}

void hf_reader_fix_bool(struct hf_reader *r,
                        const char *section,
                        const char *name,
                        bool v,
                        const char *why)
{
    long fi = hf_reader_field(section, name);
    *(bool *)hf_reader_slot(r, fi) = v;
    hf_reader_source(r, fi, "%s", why);
}

bool hf_reader_get_bool(struct hf_reader *r,
                        const char *key,
                        bool def,
                        bool *out)
{
    const cJSON *it = hf_reader_take(r, key);
    char got[96];
    *out = def;
    if (hf_reader_absent(it))
        return true;
    if (!cJSON_IsBool(it)) {
        hf_reader_show(it, got, sizeof got);
        diag_add(r->d, STATUS_RANGE,
                 "%s: key '%s': expected true or false, got %s", r->path, key,
                 got);
        return false;
    }
    *out = cJSON_IsTrue(it);
    return true;
}

void hf_reader_pattern(struct hf_reader *r,
                       const char *key,
                       const unsigned char *mixer,
                       const unsigned char *mlp,
                       size_t n,
                       const char *why)
{
    long fi = hf_reader_field("model", "pattern");
    char *text = hf_reader_slot(r, fi);
    if (!model_pattern_format(mixer, mlp, n, text,
                              model_schema()->fields[fi].size)) {
        text[0] = '\0';
        diag_add(r->d, STATUS_RANGE,
                 "%s: key '%s': %zu layers too irregular to write as a "
                 "pattern of at most %zu characters",
                 r->path, key, n, model_schema()->fields[fi].size - 1);
        return;
    }
    hf_reader_source(r, fi, "%s", why);
    hf_reader_fix_long(r, "moe", "first_dense_layers", 0,
                       "model.pattern holds the dense layers");
}
