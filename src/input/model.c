/*
 * model: the model file's loading (an INI file, or a Hugging Face
 * config.json with a training recipe) and the checks across its fields;
 * its schema is model_schema.c's, and model_derive() fills in the numbers
 * that follow (see the header).
 */
#include "model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hf_config.h"
#include "model_derive.h"

/* ---- Validation across fields ---- */

/* Reports "path:line: section.key: problem" for a cross-field check
 * (datafile_meta_where: "path: --set section.key=value" for a --set). */
static void bad(struct model *m,
                struct diag *d,
                const char *section,
                const char *key,
                const char *problem)
{
    long i = datafile_field_index(model_schema(), section, key);
    char where[1200];
    if (i < 0)
        diag_add(d, STATUS_RANGE, "%s: %s.%s: %s", m->meta.path, section, key,
                 problem);
    else
        diag_add(d, STATUS_RANGE, "%s: %s",
                 datafile_meta_where(&m->meta, (size_t)i, where, sizeof where),
                 problem);
}

static void check_spec(struct model *m, struct diag *d)
{
    struct model_spec *s = &m->spec;
    char why[200];

    if (s->attention == MODEL_GQA) {
        if (s->kv_heads == 0)
            bad(m, d, "attention", "kv_heads", "required for type gqa");
        else if (s->heads % s->kv_heads != 0) {
            snprintf(why, sizeof why,
                     "must divide attention.heads (%ld), got %ld", s->heads,
                     s->kv_heads);
            bad(m, d, "attention", "kv_heads", why);
        }
    }
    if (s->attention == MODEL_MLA) {
        if (s->kv_lora_rank == 0)
            bad(m, d, "attention", "kv_lora_rank", "required for type mla");
        if (s->qk_nope_head_dim == 0)
            bad(m, d, "attention", "qk_nope_head_dim", "required for type mla");
        if (s->v_head_dim == 0)
            bad(m, d, "attention", "v_head_dim", "required for type mla");
    } else if (s->head_dim == 0 && s->hidden % s->heads != 0) {
        snprintf(why, sizeof why,
                 "hidden (%ld) is not a multiple of heads (%ld): give "
                 "attention.head_dim",
                 s->hidden, s->heads);
        bad(m, d, "attention", "head_dim", why);
    }
    if (s->routed_experts > 0) {
        if (s->top_k < 1 || s->top_k > s->routed_experts) {
            snprintf(why, sizeof why,
                     "expected 1..routed_experts (%ld), got %ld",
                     s->routed_experts, s->top_k);
            bad(m, d, "moe", "top_k", why);
        }
        if (s->expert_width < 1)
            bad(m, d, "moe", "expert_width",
                "required (> 0) when routed_experts > 0");
        if (s->first_dense_layers > s->layers) {
            snprintf(why, sizeof why, "expected at most layers (%ld), got %ld",
                     s->layers, s->first_dense_layers);
            bad(m, d, "moe", "first_dense_layers", why);
        }
        if (s->first_dense_layers > 0 && s->ffn_width < 1)
            bad(m, d, "ffn", "width",
                "required (> 0) for the leading dense layers");
    } else {
        if (s->ffn_width < 1 && s->pattern[0] == '\0')
            bad(m, d, "ffn", "width", "required (> 0) for a dense model");
        if (s->shared_experts || s->top_k || s->node_limit)
            bad(m, d, "moe", "routed_experts",
                "is 0 (dense model) but other [moe] keys are set");
    }
}

/* A key a kind of layer the pattern has needs: at least 1. */
static void need(struct model *m,
                 struct diag *d,
                 long value,
                 const char *section,
                 const char *key,
                 const char *layers)
{
    char why[200];
    if (value >= 1)
        return;
    snprintf(why, sizeof why, "required (> 0) for %s", layers);
    bad(m, d, section, key, why);
}

/* The pattern's layers against model.layers, and the keys of each kind
 * of layer it has. */
static void check_pattern(struct model *m, struct diag *d)
{
    struct model_spec *s = &m->spec;
    unsigned char mixer[MODEL_UNITS_MAX], mlp[MODEL_UNITS_MAX];
    bool has_mixer[MODEL_MIXERS] = {false}, has_mlp[MODEL_MLPS] = {false};
    size_t n, i;
    char why[300];

    if (s->pattern[0] == '\0')
        return;
    if (!model_pattern_parse(s->pattern, mixer, mlp, MODEL_UNITS_MAX, &n, why,
                             sizeof why)) {
        bad(m, d, "model", "pattern", why);
        return;
    }
    if ((long)n != s->layers) {
        snprintf(why, sizeof why, "gives %zu layers, model.layers is %ld", n,
                 s->layers);
        bad(m, d, "model", "pattern", why);
    }
    if (s->first_dense_layers > 0)
        bad(m, d, "moe", "first_dense_layers",
            "is for block models: with model.pattern, give the dense layers "
            "there (D)");
    for (i = 0; i < n; i++) {
        has_mixer[mixer[i]] = true;
        has_mlp[mlp[i]] = true;
    }
    if (has_mlp[MODEL_MLP_MOE] && s->routed_experts < 1)
        bad(m, d, "moe", "routed_experts",
            "required (> 0): model.pattern has MoE layers (E)");
    need(m, d, has_mlp[MODEL_MLP_DENSE] ? s->ffn_width : 1, "ffn", "width",
         "the pattern's dense layers (D)");
    need(m, d, has_mixer[MODEL_MIX_WINDOW] ? s->window : 1, "attention",
         "window", "sliding-window layers (W)");
    need(m, d, has_mixer[MODEL_MIX_CHUNK] ? s->chunk : 1, "attention", "chunk",
         "chunked-attention layers (C)");
    if (has_mixer[MODEL_MIX_SPARSE]) {
        need(m, d, s->index_heads, "attention", "index_heads",
             "sparse-attention layers (S)");
        need(m, d, s->index_head_dim, "attention", "index_head_dim",
             "sparse-attention layers (S)");
        need(m, d, s->index_topk, "attention", "index_topk",
             "sparse-attention layers (S)");
    }
    if (has_mixer[MODEL_MIX_LINEAR]) {
        need(m, d, s->linear_key_heads, "linear", "key_heads",
             "linear-attention layers (L)");
        need(m, d, s->linear_value_heads, "linear", "value_heads",
             "linear-attention layers (L)");
        need(m, d, s->linear_key_dim, "linear", "key_head_dim",
             "linear-attention layers (L)");
        need(m, d, s->linear_value_dim, "linear", "value_head_dim",
             "linear-attention layers (L)");
        if (s->linear_key_heads > 0 &&
            s->linear_value_heads % s->linear_key_heads != 0) {
            snprintf(why, sizeof why,
                     "must be a multiple of linear.key_heads (%ld), got %ld",
                     s->linear_key_heads, s->linear_value_heads);
            bad(m, d, "linear", "value_heads", why);
        }
    }
    if (has_mixer[MODEL_MIX_SSM]) {
        need(m, d, s->ssm_heads, "ssm", "heads", "Mamba-2 layers (M)");
        need(m, d, s->ssm_head_dim, "ssm", "head_dim", "Mamba-2 layers (M)");
        need(m, d, s->ssm_state, "ssm", "state", "Mamba-2 layers (M)");
        need(m, d, s->ssm_groups, "ssm", "groups", "Mamba-2 layers (M)");
        if (s->ssm_groups > 0 && s->ssm_heads % s->ssm_groups != 0) {
            snprintf(why, sizeof why, "must divide ssm.heads (%ld), got %ld",
                     s->ssm_heads, s->ssm_groups);
            bad(m, d, "ssm", "groups", why);
        }
    }
}

/* ---- Models from a Hugging Face config.json and a training recipe ---- */

/* QK-norm and q/k/v biases are modelled for MHA/GQA projections only. */
static void check_attention_extras(struct model *m, struct diag *d)
{
    if (m->spec.attention != MODEL_MLA)
        return;
    if (m->spec.qk_norm)
        bad(m, d, "attention", "qk_norm",
            "not modelled for type mla (MLA normalises its latents)");
    if (m->spec.qkv_bias)
        bad(m, d, "attention", "qkv_bias", "not modelled for type mla");
    if (m->spec.output_gate)
        bad(m, d, "attention", "output_gate", "not modelled for type mla");
}

/* A training recipe's schema: model_schema()'s training fields, copied with
 * their offsets, so a recipe loads straight into a struct model_spec. */
struct recipe_schema {
    struct datafile_field field[DATAFILE_FIELDS_MAX];
    size_t model_index[DATAFILE_FIELDS_MAX]; /* into model_schema() */
    struct datafile_schema schema;
};

static void recipe_schema_init(struct recipe_schema *r)
{
    size_t i, n = 0;
    for (i = 0; i < model_schema()->n && n < DATAFILE_FIELDS_MAX; i++)
        if (model_field_is_training(i)) {
            r->field[n] = model_schema()->fields[i];
            r->model_index[n++] = i;
        }
    r->schema.kind = "training recipe";
    r->schema.fields = r->field;
    r->schema.n = n;
}

/* --set of an architecture key cannot reach a config.json's values. */
static void reject_architecture_sets(const char *path,
                                     struct datafile_set *sets,
                                     size_t nsets,
                                     struct diag *d)
{
    size_t i;
    for (i = 0; i < nsets; i++) {
        long fi =
            datafile_field_index(model_schema(), sets[i].section, sets[i].key);
        if (fi < 0 || model_field_is_training((size_t)fi))
            continue; /* the recipe's, or unknown: reported by the loader */
        sets[i].used = true;
        diag_add(d, STATUS_USAGE,
                 "--set %s: the architecture comes from %s (a Hugging Face "
                 "config.json): edit the file; --set reaches the training "
                 "recipe (training.*, fp8.*, model.dropout, "
                 "model.flash_attention, mtp.count_in_mfu)",
                 sets[i].arg, path);
    }
}

/* A copy of text the caller frees; NULL for NULL (or out of memory: the
 * source is then not shown, nothing else depends on it). */
static char *copy_text(const char *text)
{
    size_t len;
    char *copy;
    if (!text)
        return NULL;
    len = strlen(text) + 1;
    copy = malloc(len);
    if (copy)
        memcpy(copy, text, len);
    return copy;
}

/* Sources of the recipe's fields: the recipe file and line they came from
 * (the Assumptions sheet shows them), --set, or the schema's default; and
 * its sections' own `source`, as the recipe file names itself (a report
 * says it beside the recipe's values). */
static void merge_recipe_meta(struct model *m,
                              const struct recipe_schema *rs,
                              const struct datafile_meta *t,
                              const char *training_path)
{
    size_t j;
    for (j = 0; j < rs->schema.n; j++) {
        size_t i = rs->model_index[j];
        const char *src = datafile_meta_source(t, j);
        char text[2 * DATAFILE_TEXT_MAX + 600];
        if (t->given[j] && t->line[j] == 0)
            diag_snprintf(text, sizeof text, "%s", src); /* --set */
        else if (t->given[j])
            diag_snprintf(text, sizeof text, "%s:%ld%s%s", training_path,
                          t->line[j], *src ? ": " : "", src);
        else
            diag_snprintf(text, sizeof text, "%s: default%s%s%s", training_path,
                          *src ? " (section source: " : "", src,
                          *src ? ")" : "");
        free(m->meta.source[i]);
        m->meta.source[i] = copy_text(text);
        free(m->meta.section_source[i]);
        m->meta.section_source[i] = copy_text(t->section_source[j]);
        m->meta.given[i] = t->given[j];
        m->meta.line[i] = 0; /* meta.path is the config.json's */
        free(m->meta.set_arg[i]);
        /* messages say the --set (no memory: not) */
        m->meta.set_arg[i] = copy_text(t->set_arg[j]);
    }
}

static enum status load_json(const char *path,
                             const char *training_path,
                             struct model *m,
                             struct datafile_set *sets,
                             size_t nsets,
                             struct diag *d)
{
    struct recipe_schema rs;
    struct datafile_meta tmeta;

    memset(m, 0, sizeof *m);
    memset(&tmeta, 0, sizeof tmeta);
    if (!training_path)
        return diag_add(d, STATUS_USAGE,
                        "%s: a Hugging Face config.json needs a training "
                        "recipe for what it does not say (-t FILE, e.g. "
                        "data/training/default.ini)",
                        path);
    reject_architecture_sets(path, sets, nsets, d);
    recipe_schema_init(&rs);
    datafile_load(training_path, &rs.schema, &m->spec, &tmeta, sets, nsets, d);
    /* Read the config.json even when the recipe failed: report both. */
    hf_config_read(path, &m->spec, &m->meta, d);
    if (d->status != STATUS_OK) {
        datafile_meta_release(&tmeta);
        model_release(m);
        diag_finish(d);
        return d->status;
    }
    merge_recipe_meta(m, &rs, &tmeta, training_path);
    datafile_meta_release(&tmeta);
    check_spec(m, d);
    check_pattern(m, d);
    check_attention_extras(m, d);
    diag_finish(d);
    if (d->status != STATUS_OK) {
        model_release(m);
        return d->status;
    }
    model_derive(m);
    return STATUS_OK;
}

enum status model_load_with_training(const char *path,
                                     const char *training_path,
                                     struct model *m,
                                     struct datafile_set *sets,
                                     size_t nsets,
                                     struct diag *d)
{
    if (hf_config_is_json(path))
        return load_json(path, training_path, m, sets, nsets, d);
    return model_load(path, m, sets, nsets, d);
}

enum status model_check_training(const char *path,
                                 struct datafile_set *sets,
                                 size_t nsets,
                                 struct diag *d)
{
    struct recipe_schema rs;
    struct datafile_meta meta;
    struct model_spec spec;
    enum status st;
    memset(&spec, 0, sizeof spec);
    recipe_schema_init(&rs);
    st = datafile_load(path, &rs.schema, &spec, &meta, sets, nsets, d);
    if (st == STATUS_OK)
        datafile_meta_release(&meta);
    return st;
}

enum status model_load(const char *path,
                       struct model *m,
                       struct datafile_set *sets,
                       size_t nsets,
                       struct diag *d)
{
    enum status st;
    if (hf_config_is_json(path))
        return load_json(path, NULL, m, sets, nsets, d);
    memset(m, 0, sizeof *m);
    st =
        datafile_load(path, model_schema(), &m->spec, &m->meta, sets, nsets, d);
    if (st != STATUS_OK)
        return st;
    check_spec(m, d);
    check_pattern(m, d);
    check_attention_extras(m, d);
    diag_finish(d);
    if (d->status != STATUS_OK) {
        model_release(m);
        return d->status;
    }
    model_derive(m);
    return STATUS_OK;
}

void model_release(struct model *m)
{
    if (m)
        datafile_meta_release(&m->meta);
}
