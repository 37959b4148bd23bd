/*
 * datafile: schema-driven INI loading on top of inih.
 *
 * inih (Debian's build: 200-character lines, multi-line continuation on,
 * inline ';' comments) reports only the first malformed line of a pass, so
 * the file is parsed in passes through our own line reader: each malformed
 * line found is blanked and the file parsed again, until a pass is clean.
 * Line numbers stay true because blanked lines are still counted. The
 * reader also strips leading blanks (so an indented line is never taken as
 * a continuation of the previous value) and rejects over-long lines, NUL
 * bytes, control characters and invalid UTF-8 itself: text from a data
 * file ends up in XML (the workbook), SVG (the charts) and on terminals.
 */
#include "datafile.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "input_file.h"

#define FILE_MAX_BYTES ((size_t)1 << 20)
/* Each malformed line costs a pass over the whole file: list no more
 * than a diag shows (with room for the note that says so), so a hostile
 * file of many bad lines stays linear. */
#define PASSES_MAX (DIAG_LINES_MAX - 1)
#define TEXT_RULE  "data files are UTF-8 text without control characters"

/* One key = value line as inih handed it over: offsets of its three
 * strings in struct parse's string pool. Four 32-bit words, so that a
 * 1 MiB file of "a=1" lines (262,144 entries) costs 4 MiB here and the
 * pool about 1 MiB, where copying the strings into fixed 200-byte arrays
 * cost 160 MB. A file is at most FILE_MAX_BYTES, so offsets and line
 * numbers fit. */
struct entry {
    uint32_t section, key, value;
    uint32_t line;
};

struct parse {
    const char *text; /* the whole file */
    size_t len;
    size_t pos;
    long line;          /* number of the line last handed to inih */
    unsigned char *bad; /* per line (1-based): blank it */
    long nlines;
    struct entry *entries;
    size_t n, cap;
    char *pool; /* the entries' strings, NUL-terminated, one after another */
    size_t pool_len, pool_cap;
    bool nomem;
};
/* ---- Reading ---- */

/*
 * Reads the file at path whole through input_file (a FIFO or a terminal
 * is refused, not waited on). A UTF-8 byte-order mark is dropped (editors
 * on Windows write one), so that the first [section] is seen.
 */
enum status
datafile_read(const char *path, char **out, size_t *len, struct diag *d)
{
    char *buf = NULL, shown[160], why[96];
    size_t got = 0, column;

    if (!datafile_text_check(path, strlen(path), &column, why, sizeof why)) {
        datafile_text_quote(path, shown, sizeof shown);
        return diag_add(d, STATUS_USAGE,
                        "%s: file name: column %zu: %s (roofplan shows file "
                        "names in its reports: rename the file)",
                        shown, column, why);
    }
    if (input_file_read(path, FILE_MAX_BYTES, &buf, &got, d) != STATUS_OK)
        return d->status;
    if (got >= 3 && memcmp(buf, "\xEF\xBB\xBF", 3) == 0) {
        memmove(buf, buf + 3, got - 3);
        got -= 3;
        buf[got] = '\0';
    }
    *out = buf;
    *len = got;
    return STATUS_OK;
}

/* inih's reader callback: the next line, leading blanks stripped. */
static char *next_line(char *str, int num, void *stream)
{
    struct parse *p = stream;
    size_t start, end, out = 0;

    if (p->pos >= p->len)
        return NULL;
    start = p->pos;
    end = start;
    while (end < p->len && p->text[end] != '\n')
        end++;
    p->pos = end < p->len ? end + 1 : end;
    p->line++;
    if (p->line <= p->nlines && p->bad[p->line]) {
        str[0] = '\0';
        return str;
    }
    while (start < end && (p->text[start] == ' ' || p->text[start] == '\t'))
        start++;
    while (start < end && out + 1 < (size_t)num)
        str[out++] = p->text[start++];
    str[out] = '\0';
    return str;
}

/* Appends text with its NUL to the pool; its offset goes to *off. */
static bool pool_add(struct parse *p, const char *text, uint32_t *off)
{
    size_t n = strlen(text) + 1;
    if (p->pool_len + n > p->pool_cap) {
        size_t cap = p->pool_cap ? p->pool_cap : 4096;
        char *grown;
        while (cap < p->pool_len + n)
            cap *= 2;
        grown = realloc(p->pool, cap);
        if (!grown)
            return false;
        p->pool = grown;
        p->pool_cap = cap;
    }
    memcpy(p->pool + p->pool_len, text, n);
    *off = (uint32_t)p->pool_len;
    p->pool_len += n;
    return true;
}

static const char *str(const struct parse *p, uint32_t off)
{
    return p->pool + off;
}

static int
on_value(void *user, const char *section, const char *name, const char *value)
{
    struct parse *p = user;
    struct entry *e;

    if (p->n == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 32;
        struct entry *grown = realloc(p->entries, cap * sizeof *grown);
        if (!grown) {
            p->nomem = true;
            return 0;
        }
        p->entries = grown;
        p->cap = cap;
    }
    e = &p->entries[p->n];
    /* a section's name is stored once, for its first entry */
    if (p->n > 0 && strcmp(str(p, p->entries[p->n - 1].section), section) == 0)
        e->section = p->entries[p->n - 1].section;
    else if (!pool_add(p, section, &e->section)) {
        p->nomem = true;
        return 0;
    }
    if (!pool_add(p, name, &e->key) || !pool_add(p, value, &e->value)) {
        p->nomem = true;
        return 0;
    }
    e->line = (uint32_t)p->line;
    p->n++;
    return 1;
}

/*
 * Marks bad lines and reports each: NUL bytes, over-long lines, and text
 * that is not UTF-8 or holds control characters (a carriage return is
 * allowed only where it ends a line: CRLF files). Counts lines.
 */
static void prescan(struct parse *p, const char *path, struct diag *d)
{
    size_t i = 0;
    long line = 0;
    while (i < p->len) {
        size_t start = i, end, column;
        bool nul = false;
        char why[96];
        line++;
        while (i < p->len && p->text[i] != '\n') {
            if (p->text[i] == '\0')
                nul = true;
            i++;
        }
        end = i > start && p->text[i - 1] == '\r' ? i - 1 : i;
        if (nul) {
            p->bad[line] = 1;
            diag_add(d, STATUS_PARSE,
                     "%s:%ld: line holds a NUL byte (not a text file?)", path,
                     line);
        } else if (i - start >= INI_MAX_LINE - 1) {
            p->bad[line] = 1;
            diag_add(d, STATUS_PARSE,
                     "%s:%ld: line too long (%zu characters; at most %d)", path,
                     line, i - start, INI_MAX_LINE - 2);
        } else if (!datafile_text_check(p->text + start, end - start, &column,
                                        why, sizeof why)) {
            p->bad[line] = 1;
            diag_add(d, STATUS_PARSE, "%s:%ld: column %zu: %s; " TEXT_RULE,
                     path, line, column, why);
        }
        if (i < p->len)
            i++;
    }
}

static long count_lines(const char *text, size_t len)
{
    long n = 0;
    size_t i;
    for (i = 0; i < len; i++)
        if (text[i] == '\n')
            n++;
    if (len > 0 && text[len - 1] != '\n')
        n++;
    return n;
}

/* Parses p->text into entries, one message per malformed line. */
static enum status
parse_entries(struct parse *p, const char *path, struct diag *d)
{
    int passes = 0;
    p->nlines = count_lines(p->text, p->len);
    p->bad = calloc((size_t)p->nlines + 2, 1);
    if (!p->bad)
        return diag_add(d, STATUS_NOMEM, "%s: out of memory", path);
    prescan(p, path, d);
    for (;;) {
        int err;
        p->pos = 0;
        p->line = 0;
        p->n = 0;
        p->pool_len = 0;
        err = ini_parse_stream(next_line, p, on_value, p);
        if (p->nomem)
            return diag_add(d, STATUS_NOMEM, "%s: out of memory", path);
        if (err <= 0 || err > p->nlines || p->bad[err])
            break;
        if (++passes > PASSES_MAX) {
            diag_add(d, STATUS_PARSE,
                     "%s:%d: malformed line; further malformed lines are "
                     "not listed (more than %d)",
                     path, err, PASSES_MAX);
            break;
        }
        p->bad[err] = 1;
        diag_add(d, STATUS_PARSE,
                 "%s:%d: malformed line (expected [section], key = value or "
                 "a ; comment)",
                 path, err);
    }
    return d->status;
}
/* ---- Checking against the schema ---- */
static bool schema_has_section(const struct datafile_schema *schema,
                               const char *section)
{
    size_t i;
    for (i = 0; i < schema->n; i++)
        if (strcmp(schema->fields[i].section, section) == 0)
            return true;
    return false;
}

/* "[a] [b] [c]": the schema's sections, for messages. */
static void
section_names(const struct datafile_schema *schema, char *buf, size_t size)
{
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < schema->n && used < size; i++) {
        const char *s = schema->fields[i].section;
        if (i > 0 && strcmp(schema->fields[i - 1].section, s) == 0)
            continue;
        used += (size_t)snprintf(buf + used, size - used, "%s[%s]",
                                 used ? " " : "", s);
    }
}

static void key_names(const struct datafile_schema *schema,
                      const char *section,
                      char *buf,
                      size_t size)
{
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < schema->n && used < size; i++)
        if (strcmp(schema->fields[i].section, section) == 0)
            used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                     used ? " " : "", schema->fields[i].key);
}

/* Stores the parsed text of field f into dest. */
static bool store(const struct datafile_field *f,
                  const char *text,
                  void *dest,
                  char *why,
                  size_t why_size)
{
    char *at = (char *)dest + f->offset;
    double v;
    switch (f->type) {
    case DATAFILE_STRING:
        if (f->required && text[0] == '\0') {
            /* a required value is one given: an empty name is none */
            char want[160];
            datafile_describe(f, want, sizeof want);
            snprintf(why, why_size, "expected %s, got \"\" (required)", want);
            return false;
        }
        if (strlen(text) + 1 > f->size) {
            snprintf(why, why_size, "text longer than %zu characters",
                     f->size - 1);
            return false;
        }
        memcpy(at, text, strlen(text) + 1);
        return true;
    case DATAFILE_BOOL:
        /* only the words datafile_describe() and the schema's Markdown
         * document ("true or false"): "yes" and "on" were read as true
         * undocumented (issue 34) */
        if (strcmp(text, "true") == 0 || strcmp(text, "false") == 0) {
            *(bool *)(void *)at = text[0] == 't';
            return true;
        }
        snprintf(why, why_size, "expected true or false, got \"%s\"", text);
        return false;
    case DATAFILE_LIST:
        return datafile_parse_list(f, text, (struct datafile_list *)(void *)at,
                                   why, why_size);
    case DATAFILE_INT:
    case DATAFILE_DOUBLE:
    case DATAFILE_ENUM:
        if (!datafile_parse_scalar(f, text, &v, why, why_size))
            return false;
        if (f->type == DATAFILE_INT)
            *(long *)(void *)at = (long)v;
        else if (f->type == DATAFILE_ENUM)
            *(int *)(void *)at = (int)v;
        else
            *(double *)(void *)at = v;
        return true;
    }
    return false;
}

static char *dup_text(const char *s)
{
    size_t n = strlen(s) + 1;
    char *c = malloc(n);
    if (c)
        memcpy(c, s, n);
    return c;
}

/* Section headers seen in the text (inih skips empty sections). */
static void check_sections(const struct parse *p,
                           const struct datafile_schema *schema,
                           const char *path,
                           struct diag *d)
{
    size_t i = 0;
    long line = 0;
    char names[512];
    section_names(schema, names, sizeof names);
    while (i < p->len) {
        size_t start = i, end;
        line++;
        while (i < p->len && p->text[i] != '\n')
            i++;
        end = i;
        if (i < p->len)
            i++;
        while (start < end && (p->text[start] == ' ' || p->text[start] == '\t'))
            start++;
        if (p->bad[line] || start >= end || p->text[start] != '[')
            continue;
        {
            const char *close = memchr(p->text + start, ']', end - start);
            char name[DATAFILE_TEXT_MAX];
            if (!close)
                continue;
            snprintf(name, sizeof name, "%.*s",
                     (int)(close - p->text - (long)start - 1),
                     p->text + start + 1);
            if (!schema_has_section(schema, name))
                diag_add(d, STATUS_PARSE,
                         "%s:%ld: [%s]: unknown section in a %s file "
                         "(accepted: %s)",
                         path, line, name, schema->kind, names);
        }
    }
}

/* Checks each entry's key; fills per-field entries and sources. */
static void check_entries(const struct parse *p,
                          const struct datafile_schema *schema,
                          const char *path,
                          const struct entry **by_field,
                          struct datafile_meta *meta,
                          struct diag *d)
{
    size_t i;
    for (i = 0; i < p->n; i++) {
        const struct entry *e = &p->entries[i];
        const char *section = str(p, e->section), *key = str(p, e->key);
        const char *value = str(p, e->value);
        long line = (long)e->line;
        char base[DATAFILE_TEXT_MAX];
        const char *dot = strrchr(key, '.');
        bool is_source = dot && strcmp(dot, ".source") == 0;
        long fi;
        size_t j;

        if (section[0] == '\0') { /* inih: a key before any header */
            char names[512];
            section_names(schema, names, sizeof names);
            diag_add(d, STATUS_PARSE,
                     "%s:%ld: %s: key before any [section] (accepted in a %s "
                     "file: %s)",
                     path, line, key, schema->kind, names);
            continue;
        }
        if (!schema_has_section(schema, section))
            continue; /* reported by check_sections */
        if (strcmp(key, "source") == 0) {
            for (j = 0; meta && j < schema->n; j++)
                if (strcmp(schema->fields[j].section, section) == 0 &&
                    !meta->section_source[j])
                    meta->section_source[j] = dup_text(value);
            continue;
        }
        snprintf(base, sizeof base, "%.*s",
                 (int)(is_source ? (size_t)(dot - key) : strlen(key)), key);
        fi = datafile_field_index(schema, section, base);
        if (fi < 0) {
            char keys[1024];
            key_names(schema, section, keys, sizeof keys);
            diag_add(d, STATUS_PARSE,
                     "%s:%ld: %s.%s: unknown key (accepted in [%s]: %s)", path,
                     line, section, key, section, keys);
            continue;
        }
        if (is_source) {
            if (meta && !meta->source[fi])
                meta->source[fi] = dup_text(value);
            continue;
        }
        if (by_field[fi]) {
            diag_add(d, STATUS_PARSE,
                     "%s:%ld: %s.%s: duplicate key (first given on line %ld)",
                     path, line, section, key, (long)by_field[fi]->line);
            continue;
        }
        by_field[fi] = e;
    }
}

/* datafile_load() of the text of path, text[len] a NUL (borrowed). */
static enum status load_text(const char *path,
                             const char *text,
                             size_t len,
                             const struct datafile_schema *schema,
                             void *dest,
                             struct datafile_meta *meta,
                             struct datafile_set *sets,
                             size_t nsets,
                             struct diag *d)
{
    struct parse p;
    const struct entry *by_field[DATAFILE_FIELDS_MAX] = {0};
    const char *set_text[DATAFILE_FIELDS_MAX] = {0};
    const char *set_arg[DATAFILE_FIELDS_MAX] = {0};
    size_t i;

    memset(&p, 0, sizeof p);
    if (meta) {
        memset(meta, 0, sizeof *meta);
        meta->schema = schema;
    }
    if (schema->n > DATAFILE_FIELDS_MAX)
        return diag_add(d, STATUS_RANGE, "%s: schema too large", schema->kind);
    p.text = text;
    p.len = len;
    if (parse_entries(&p, path, d) == STATUS_NOMEM)
        goto done;
    check_sections(&p, schema, path, d);
    check_entries(&p, schema, path, by_field, meta, d);

    for (i = 0; i < nsets; i++) {
        long fi;
        if (!schema_has_section(schema, sets[i].section))
            continue;
        fi = datafile_field_index(schema, sets[i].section, sets[i].key);
        sets[i].used = true;
        if (fi < 0) {
            char keys[1024];
            key_names(schema, sets[i].section, keys, sizeof keys);
            diag_add(d, STATUS_USAGE,
                     "--set %s: unknown key '%s' in [%s] (accepted: %s)",
                     sets[i].arg, sets[i].key, sets[i].section, keys);
            continue;
        }
        set_text[fi] = sets[i].value; /* the last --set wins */
        set_arg[fi] = sets[i].arg;
    }

    for (i = 0; i < schema->n; i++) {
        const struct datafile_field *f = &schema->fields[i];
        const char *value = set_text[i]   ? set_text[i]
                            : by_field[i] ? str(&p, by_field[i]->value)
                                          : f->def;
        char why[512];
        if (!value) {
            if (f->required) {
                char want[160];
                datafile_describe(f, want, sizeof want);
                diag_add(d, STATUS_PARSE,
                         "%s: %s.%s: missing (required; %s%s%s)", path,
                         f->section, f->key, want, *f->unit ? ", in " : "",
                         f->unit);
            }
            continue;
        }
        if (!store(f, value, dest, why, sizeof why)) {
            if (set_text[i])
                diag_add(d, STATUS_USAGE, "--set %s: %s", set_arg[i], why);
            else if (by_field[i])
                diag_add(d, STATUS_RANGE, "%s:%ld: %s.%s: %s", path,
                         (long)by_field[i]->line, f->section, f->key, why);
            else
                diag_add(d, STATUS_RANGE, "%s: %s.%s: default: %s", path,
                         f->section, f->key, why);
            continue;
        }
        if (meta) {
            meta->line[i] =
                set_text[i] || !by_field[i] ? 0 : (long)by_field[i]->line;
            meta->given[i] = set_text[i] || by_field[i];
            if (set_arg[i]) {
                meta->set_arg[i] = dup_text(set_arg[i]);
                if (!meta->set_arg[i])
                    diag_add(d, STATUS_NOMEM, "--set %s: out of memory",
                             set_arg[i]);
            }
        }
    }
    if (meta) {
        for (i = 0; i < schema->n; i++)
            if ((meta->source[i] && !*meta->source[i]) || set_text[i]) {
                free(meta->source[i]);
                meta->source[i] = set_text[i] ? dup_text("--set on the "
                                                         "command line")
                                              : NULL;
            }
    }
    /* the path as given, however long: no copy of it is cut */
    if (meta && d->status == STATUS_OK) {
        meta->path = strdup(path);
        if (!meta->path)
            diag_add(d, STATUS_NOMEM, "%s: out of memory", path);
    }
done:
    diag_finish(d);
    free(p.bad);
    free(p.entries);
    free(p.pool);
    if (d->status != STATUS_OK && meta)
        datafile_meta_release(meta);
    return d->status;
}

enum status datafile_load(const char *path,
                          const struct datafile_schema *schema,
                          void *dest,
                          struct datafile_meta *meta,
                          struct datafile_set *sets,
                          size_t nsets,
                          struct diag *d)
{
    char *text = NULL;
    size_t len = 0;
    enum status st;
    if (meta) {
        memset(meta, 0, sizeof *meta);
        meta->schema = schema;
    }
    st = datafile_read(path, &text, &len, d);
    if (st != STATUS_OK)
        return st;
    st = load_text(path, text, len, schema, dest, meta, sets, nsets, d);
    free(text);
    return st;
}

enum status datafile_load_text(const char *name,
                               const char *text,
                               size_t len,
                               const struct datafile_schema *schema,
                               void *dest,
                               struct datafile_meta *meta,
                               struct diag *d)
{
    return load_text(name, text, len, schema, dest, meta, NULL, 0, d);
}

void datafile_meta_release(struct datafile_meta *meta)
{
    size_t i;
    if (!meta)
        return;
    free(meta->path);
    meta->path = NULL;
    for (i = 0; i < DATAFILE_FIELDS_MAX; i++) {
        free(meta->source[i]);
        meta->source[i] = NULL;
        /* section sources are one copy per field: free each */
        free(meta->section_source[i]);
        meta->section_source[i] = NULL;
        free(meta->set_arg[i]);
        meta->set_arg[i] = NULL;
    }
}

const char *datafile_meta_source(const struct datafile_meta *meta, size_t i)
{
    if (!meta || i >= DATAFILE_FIELDS_MAX)
        return "";
    if (meta->source[i])
        return meta->source[i];
    if (meta->section_source[i])
        return meta->section_source[i];
    return "";
}

const char *datafile_meta_where(const struct datafile_meta *meta,
                                size_t i,
                                char *buf,
                                size_t size)
{
    const struct datafile_field *f = &meta->schema->fields[i];
    const char *path = meta->path ? meta->path : meta->schema->kind;
    if (meta->line[i] > 0)
        diag_snprintf(buf, size, "%s:%ld: %s.%s", path, meta->line[i],
                      f->section, f->key);
    else if (meta->set_arg[i])
        diag_snprintf(buf, size, "%s: --set %s", path, meta->set_arg[i]);
    else
        diag_snprintf(buf, size, "%s: %s.%s", path, f->section, f->key);
    return buf;
}

enum status
datafile_parse_set(const char *arg, struct datafile_set *out, struct diag *d)
{
    const char *dot = strchr(arg, '.');
    const char *eq = strchr(arg, '=');
    char why[96], shown[160];
    size_t column;
    memset(out, 0, sizeof *out);
    /* The value may reach the workbook, the charts and the terminal, and
     * the argument every message about it: text only. */
    if (!datafile_text_check(arg, strlen(arg), &column, why, sizeof why)) {
        datafile_text_quote(arg, shown, sizeof shown);
        return diag_set(d, STATUS_USAGE,
                        "--set %s: column %zu: %s; values are UTF-8 text "
                        "without control characters",
                        shown, column, why);
    }
    snprintf(out->arg, sizeof out->arg, "%s", arg);
    if (!dot || !eq || dot > eq || dot == arg || eq == dot + 1)
        return diag_set(d, STATUS_USAGE,
                        "--set %s: expected SECTION.KEY=VALUE "
                        "(e.g. cluster.ib_gbps=100)",
                        arg);
    if ((size_t)(dot - arg) >= sizeof out->section ||
        (size_t)(eq - dot - 1) >= sizeof out->key ||
        strlen(eq + 1) >= sizeof out->value) {
        char cut[64];
        datafile_text_quote(arg, cut, sizeof cut);
        return diag_set(d, STATUS_USAGE, "--set %s: too long", cut);
    }
    snprintf(out->section, sizeof out->section, "%.*s", (int)(dot - arg), arg);
    snprintf(out->key, sizeof out->key, "%.*s", (int)(eq - dot - 1), dot + 1);
    snprintf(out->value, sizeof out->value, "%s", eq + 1);
    return STATUS_OK;
}

enum status
datafile_first_section(const char *path, char *buf, size_t size, struct diag *d)
{
    char *text = NULL;
    size_t len = 0, i = 0;
    enum status st = datafile_read(path, &text, &len, d);
    if (st != STATUS_OK)
        return st;
    buf[0] = '\0';
    while (i < len) {
        size_t start = i;
        while (i < len && text[i] != '\n')
            i++;
        while (start < i && (text[start] == ' ' || text[start] == '\t'))
            start++;
        if (start < i && text[start] == '[') {
            const char *close = memchr(text + start, ']', i - start);
            if (close) {
                /* quoted: a file that is not text shows escapes here */
                char name[DATAFILE_TEXT_MAX];
                snprintf(name, sizeof name, "%.*s",
                         (int)(close - text - (long)start - 1),
                         text + start + 1);
                datafile_text_quote(name, buf, size);
                break;
            }
        }
        if (i < len)
            i++;
    }
    free(text);
    return STATUS_OK;
}
