/*
 * plot_template: read a template, hold its values, expand it in one pass.
 *
 * May call: plot_text, diag, libc.
 */
#include "plot_template.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "input_file.h"

const char *plot_template_dir(void)
{
    return "templates";
}

enum status
plot_template_read(const char *path, struct plot_text *out, struct diag *d)
{
    FILE *f;
    char chunk[8192];
    size_t n, size, start = out->len;
    diag_init(d);
    if (input_file_open(path, 0, &f, &size, d) != STATUS_OK)
        return d->status;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        plot_text_add(out, chunk, n);
        if (out->len - start > PLOT_TEMPLATE_MAX) {
            fclose(f);
            return diag_set(d, STATUS_IO, "%s: larger than %d bytes", path,
                            PLOT_TEMPLATE_MAX);
        }
    }
    if (ferror(f)) {
        int e = errno;
        fclose(f);
        return diag_set(d, STATUS_IO, "%s: cannot read: %s", path, strerror(e));
    }
    fclose(f);
    if (out->len == start)
        plot_text_add(out, "", 0); /* allocates the NUL */
    if (out->nomem)
        return diag_set(d, STATUS_NOMEM, "out of memory reading %s", path);
    return STATUS_OK;
}

struct plot_text *plot_template_var(struct plot_template_vars *v,
                                    const char *name)
{
    size_t i;
    for (i = 0; i < v->n; i++)
        if (strcmp(v->name[i], name) == 0)
            return &v->val[i];
    if (v->n == PLOT_TEMPLATE_VARS_MAX ||
        strlen(name) >= PLOT_TEMPLATE_NAME_MAX) {
        /* The last slot takes the overflow; `full` fails the script. */
        v->full = true;
        return &v->val[PLOT_TEMPLATE_VARS_MAX - 1];
    }
    /* The value is still zero: v was zeroed and release zeroes it. */
    snprintf(v->name[v->n], sizeof v->name[0], "%s", name);
    return &v->val[v->n++];
}

void plot_template_set_num(struct plot_template_vars *v,
                           const char *name,
                           double x)
{
    struct plot_text *t = plot_template_var(v, name);
    plot_text_clear(t);
    plot_text_printf(t, "%.12g", x);
}

void plot_template_set_str(struct plot_template_vars *v,
                           const char *name,
                           const char *text)
{
    struct plot_text *t = plot_template_var(v, name);
    plot_text_clear(t);
    plot_text_add_quoted(t, text);
}

bool plot_template_vars_nomem(const struct plot_template_vars *v)
{
    size_t i;
    for (i = 0; i < v->n; i++)
        if (v->val[i].nomem)
            return true;
    return v->full;
}

void plot_template_vars_release(struct plot_template_vars *v)
{
    size_t i;
    /* With `full`, the last slot may have been used without being named. */
    size_t used = v->full ? PLOT_TEMPLATE_VARS_MAX : v->n;
    for (i = 0; i < used; i++)
        plot_text_release(&v->val[i]);
    v->n = 0;
    v->full = false;
}

static bool is_placeholder_char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

enum status plot_template_expand(const struct plot_text *tpl,
                                 const char *tpath,
                                 const struct plot_template_vars *v,
                                 struct plot_text *out,
                                 struct diag *d)
{
    size_t i = 0, line = 1;
    while (i < tpl->len) {
        size_t j, k;
        if (tpl->p[i] != '@') {
            if (tpl->p[i] == '\n')
                line++;
            plot_text_add(out, &tpl->p[i++], 1);
            continue;
        }
        for (j = i + 1; j < tpl->len && is_placeholder_char(tpl->p[j]); j++)
            ;
        if (j == i + 1 || j >= tpl->len || tpl->p[j] != '@') {
            plot_text_add(out, &tpl->p[i++], 1);
            continue;
        }
        for (k = 0; k < v->n; k++)
            if (strlen(v->name[k]) == j - i - 1 &&
                memcmp(v->name[k], &tpl->p[i + 1], j - i - 1) == 0)
                break;
        if (k == v->n)
            return diag_set(d, STATUS_PARSE,
                            "%s:%zu: unknown placeholder @%.*s@", tpath, line,
                            (int)(j - i - 1), &tpl->p[i + 1]);
        if (v->val[k].len > 0)
            plot_text_add(out, v->val[k].p, v->val[k].len);
        i = j + 1;
    }
    return out->nomem ? diag_set(d, STATUS_NOMEM, "out of memory") : STATUS_OK;
}
