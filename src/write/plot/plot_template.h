/*
 * plot_template: gnuplot script templates (templates/<chart>.gp.in) and
 * their @PLACEHOLDERS@.
 *
 * Owns: finding the template directory, reading a template (bounded),
 * the named values of one script, and expanding @NAME@ into them. A
 * value is inserted verbatim and never scanned again, so an "@x@" inside
 * a model name stays text. What a value holds (a number, a quoted
 * string, whole commands) is the charts' business, not this module's.
 *
 * May call: plot_text, diag, libc.
 */
#ifndef PROJ_PLOT_TEMPLATE_H
#define PROJ_PLOT_TEMPLATE_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "plot_text.h"

#define PLOT_TEMPLATE_MAX      (1 << 20) /* bytes of one template file */
#define PLOT_TEMPLATE_VARS_MAX 48        /* placeholders of one script */
#define PLOT_TEMPLATE_NAME_MAX 24        /* bytes of a name, with NUL */

/* The values of one script's placeholders. Zero-initialise before use;
 * release with plot_template_vars_release(). */
struct plot_template_vars {
    char name[PLOT_TEMPLATE_VARS_MAX][PLOT_TEMPLATE_NAME_MAX];
    struct plot_text val[PLOT_TEMPLATE_VARS_MAX];
    size_t n;  /* names in use */
    bool full; /* a name did not fit: the script is not written */
};

/*
 * The template directory to use when the caller names none: "templates"
 * in the working directory (the command line passes the one it found
 * beside the executable, cli_template_directory). The returned string is
 * static.
 */
const char *plot_template_dir(void);

/*
 * Reads the template at path into out (appended, NUL-terminated even
 * when empty), opened by input_file_open(). Returns STATUS_IO "path:
 * cannot open: reason", "path: not a regular file", "path: cannot read:
 * reason" or "path: larger than N bytes" (PLOT_TEMPLATE_MAX),
 * or STATUS_NOMEM.
 */
enum status
plot_template_read(const char *path, struct plot_text *out, struct diag *d);

/*
 * The value of placeholder `name` (upper-case letters, digits, '_';
 * shorter than PLOT_TEMPLATE_NAME_MAX), created empty on first use, so a
 * chart can append commands to it piece by piece. When the table is full
 * v->full is set and a spare value is returned (never NULL). The pointer
 * lives as long as v.
 */
struct plot_text *plot_template_var(struct plot_template_vars *v,
                                    const char *name);

/* Sets placeholder `name` to x as "%.12g". */
void plot_template_set_num(struct plot_template_vars *v,
                           const char *name,
                           double x);

/* Sets placeholder `name` to text as a quoted gnuplot string
 * (plot_text_quote), the only way text from data files reaches a script. */
void plot_template_set_str(struct plot_template_vars *v,
                           const char *name,
                           const char *text);

/* True when a value ran out of memory or the table overflowed. */
bool plot_template_vars_nomem(const struct plot_template_vars *v);

/* Frees every value; v is empty afterwards. */
void plot_template_vars_release(struct plot_template_vars *v);

/*
 * Appends template tpl (read from tpath, named in messages) to out with
 * each @NAME@ replaced by its value in v. An '@' that does not start a
 * well-formed @NAME@ is copied as it is. Returns STATUS_PARSE
 * "tpath:LINE: unknown placeholder @NAME@" for a name v does not hold,
 * STATUS_NOMEM when out ran out of memory.
 */
enum status plot_template_expand(const struct plot_text *tpl,
                                 const char *tpath,
                                 const struct plot_template_vars *v,
                                 struct plot_text *out,
                                 struct diag *d);

#endif
