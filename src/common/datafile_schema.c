/*
 * datafile_schema: lookups in a schema and its Markdown table (see the
 * header).
 */
#include "datafile_schema.h"

#include <stdio.h>
#include <string.h>

#include "datafile_value.h"

long datafile_field_index(const struct datafile_schema *schema,
                          const char *section,
                          const char *key)
{
    size_t i;
    for (i = 0; i < schema->n; i++)
        if (strcmp(schema->fields[i].section, section) == 0 &&
            strcmp(schema->fields[i].key, key) == 0)
            return (long)i;
    return -1;
}

/* One Markdown table cell: '|' escaped so it does not split the cell. */
static void cell(FILE *out, const char *text)
{
    fputs(" ", out);
    for (; *text; text++) {
        if (*text == '|')
            fputc('\\', out);
        fputc(*text, out);
    }
    fputs(" |", out);
}

void datafile_schema_markdown(const struct datafile_schema *schema, FILE *out)
{
    size_t i;
    fprintf(out, "| section | key | accepts | unit | default | meaning |\n");
    fprintf(out, "|---|---|---|---|---|---|\n");
    for (i = 0; i < schema->n; i++) {
        const struct datafile_field *f = &schema->fields[i];
        char want[160], accepts[200], section[80];
        datafile_describe(f, want, sizeof want);
        snprintf(accepts, sizeof accepts, "%s%s",
                 f->type == DATAFILE_LIST ? "list of " : "", want);
        snprintf(section, sizeof section, "[%s]", f->section);
        fputs("|", out);
        cell(out, section);
        cell(out, f->key);
        cell(out, accepts);
        cell(out, f->unit ? f->unit : "");
        cell(out, f->def ? f->def : "(required)");
        cell(out, f->help);
        fputs("\n", out);
    }
}
