/*
 * cli_recipe: the training recipe a run plans at, in words (cli.h,
 * cli_recipe_words): whose it is (the model file's own [training], the
 * training file given with -t, or the data directory's default recipe,
 * borrowed), as its file names it (its [training] section's `source`),
 * and what it sets: the sequence length, the global batch in sequences
 * and tokens, the token budget; and the sweep's batch where the sweep
 * names one. Knows no recipe by name: the names are the data files'.
 */
#include "cli.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hf_config.h"
#include "views.h"

/* "16.8M", "62.9M", "14.8T": tokens at three significant digits. */
static void tokens_words(double t, char *buf, size_t size)
{
    static const struct {
        double scale;
        const char *suffix;
    } units[] = {{1e12, "T"}, {1e9, "B"}, {1e6, "M"}, {1e3, "K"}};
    size_t i;
    for (i = 0; i < sizeof units / sizeof units[0]; i++)
        if (t >= units[i].scale) {
            snprintf(buf, size, "%.3g%s", t / units[i].scale, units[i].suffix);
            return;
        }
    snprintf(buf, size, "%.3g", t);
}

/* Appends text to buf (cut at a character where buf is full). */
static void add(char *buf, size_t size, const char *text)
{
    size_t used = strlen(buf);
    if (used + 1 < size)
        diag_snprintf(buf + used, size - used, "%s", text);
}

/* The model field training.KEY's index in the model schema. */
static size_t training_field(const char *key)
{
    long i = datafile_field_index(model_schema(), "training", key);
    return i < 0 ? 0 : (size_t)i;
}

/* " (--set training.KEY=V)" where a --set gave training.KEY, else ""; for
 * the batch of an INI model, its own `global_batch.source` where it has
 * one (what says whether the batch is published or assumed). */
static void value_note(const struct model *m,
                       const char *key,
                       bool own_source,
                       char *buf,
                       size_t size)
{
    size_t i = training_field(key);
    buf[0] = '\0';
    if (m->meta.set_arg[i])
        diag_snprintf(buf, size, " (--set %s)", m->meta.set_arg[i]);
    else if (own_source && m->meta.source[i] && m->meta.source[i][0])
        diag_snprintf(buf, size, " (%s)", m->meta.source[i]);
}

/* Whether the recipe file at tp is the data directory's default one
 * (defaults.ini's), however it was named. */
static bool is_default_recipe(const char *tp)
{
    char def[1300], a[PATH_MAX], b[PATH_MAX];
    struct cli_config none;
    memset(&none, 0, sizeof none); /* no -t: defaults.ini's recipe */
    cli_training_path(&none, def, sizeof def);
    return realpath(tp, a) && realpath(def, b) && strcmp(a, b) == 0;
}

/* Whose recipe it is, with the name its file gives it. */
static void head_words(const struct cli_config *cfg,
                       const struct model *m,
                       enum cli_recipe_origin origin,
                       const char *tp,
                       char *buf,
                       size_t size)
{
    const char *name = m->meta.section_source[training_field("seq_len")];
    char named[DATAFILE_TEXT_MAX + 8] = "";
    if (name && name[0])
        diag_snprintf(named, sizeof named, " (%s)", name);
    if (origin == CLI_RECIPE_OWN)
        diag_snprintf(buf, size, "the model file's own, %s [training]%s%s",
                      m->meta.path, named,
                      cfg->training_path ? "; -t is not read: an INI model "
                                           "file states its own recipe"
                                         : "");
    else if (origin == CLI_RECIPE_FILE)
        diag_snprintf(buf, size, "the training file given with -t, %s%s", tp,
                      named);
    else
        diag_snprintf(buf, size,
                      "BORROWED, not this model's own: the default recipe, "
                      "%s%s, as a config.json does not say how its model "
                      "was trained (pass -t FILE with its own)",
                      tp, named);
}

/* " Global batch from the sweep, not the recipe: ..." where the sweep
 * names one ([space] gbs holds a number), with where it said so: the
 * same batch as the recipe's said as such, a list with `model` as "the
 * recipe's". */
static void sweep_words(const struct model *m,
                        const struct sweep_file *sf,
                        char *buf,
                        size_t size)
{
    const struct datafile_list *l = &sf->spec.gbs;
    long fi = datafile_field_index(sweep_schema(), "space", "gbs");
    char num[32], where[1200] = "";
    bool with_model = false;
    size_t i;
    buf[0] = '\0';
    if (!sweep_names_batch(sf))
        return;
    if (fi >= 0 && sf->meta.schema)
        datafile_meta_where(&sf->meta, (size_t)fi, where, sizeof where);
    for (i = 0; i < l->n; i++)
        with_model = with_model || l->v[i] <= 0;
    if (l->n == 1 && l->v[0] == (double)m->spec.global_batch)
        add(buf, size, " The sweep names the same global batch");
    else {
        add(buf, size,
            with_model ? " Global batches from the sweep: "
            : l->n > 1 ? " Global batches from the sweep, not the "
                         "recipe: "
                       : " Global batch from the sweep, not the "
                         "recipe: ");
        for (i = 0; i < l->n; i++) {
            add(buf, size, i == 0 ? "" : i + 1 < l->n ? ", " : " and ");
            views_thousands(l->v[i], num, sizeof num);
            add(buf, size, l->v[i] > 0 ? num : "the recipe's");
        }
        add(buf, size, " sequences");
        if (l->n == 1) {
            tokens_words(l->v[0] * (double)m->spec.seq_len, num, sizeof num);
            add(buf, size, ", ");
            add(buf, size, num);
            add(buf, size, " tokens per step");
        }
    }
    add(buf, size, " (");
    add(buf, size, where);
    add(buf, size, ").");
}

enum cli_recipe_origin cli_recipe_words(const struct cli_config *cfg,
                                        const struct model *m,
                                        const struct sweep_file *sf,
                                        char *buf,
                                        size_t size)
{
    char path[1300], head[CLI_RECIPE_TEXT], seq[32], batch[32], per[32];
    char budget[32], seq_note[300], batch_note[600], budget_note[300];
    char sweep[CLI_RECIPE_TEXT] = "";
    const char *tp = cli_training_path(cfg, path, sizeof path);
    bool json = hf_config_is_json(m->meta.path);
    enum cli_recipe_origin origin = !json ? CLI_RECIPE_OWN
                                    : is_default_recipe(tp)
                                        ? CLI_RECIPE_BORROWED
                                        : CLI_RECIPE_FILE;

    head_words(cfg, m, origin, tp, head, sizeof head);
    views_thousands((double)m->spec.seq_len, seq, sizeof seq);
    views_thousands((double)m->spec.global_batch, batch, sizeof batch);
    tokens_words((double)m->spec.global_batch * (double)m->spec.seq_len, per,
                 sizeof per);
    tokens_words(m->spec.tokens, budget, sizeof budget);
    value_note(m, "seq_len", false, seq_note, sizeof seq_note);
    value_note(m, "global_batch", !json, batch_note, sizeof batch_note);
    value_note(m, "tokens", false, budget_note, sizeof budget_note);
    if (sf)
        sweep_words(m, sf, sweep, sizeof sweep);
    diag_snprintf(buf, size,
                  "%s. Sequence %s tokens%s; global batch %s sequences, %s "
                  "tokens per step%s; token budget %s tokens%s.%s",
                  head, seq, seq_note, batch, per, batch_note, budget,
                  budget_note, sweep);
    return origin;
}
