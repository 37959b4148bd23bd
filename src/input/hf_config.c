/*
 * hf_config: a Hugging Face config.json into a model_spec (see the
 * header): the file read and parsed, its keys checked once each, the
 * architecture's reader (hf_arch) run, and every key it did not read
 * refused unless it is one of those read past below.
 */
#include "hf_config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "hf_arch.h"
#include "datafile_value.h"
#include "hf_reader.h"

#define KEYS_MAX 1024 /* top-level keys accepted (a config has ~50) */

/*
 * Keys read past for every architecture: none can change a parameter
 * count, a FLOP count or a saved activation.
 * - bookkeeping and token ids;
 * - RoPE's base, scaling and variants (use_mrope): RoPE has no parameters
 *   and its FLOPs are elementwise, like the norms' (the model counts
 *   neither); the context limit (not the training sequence length, which
 *   is the recipe's) and the RMSNorm epsilon;
 * - pretraining_tp (Llama: slices the head's matmul, same FLOPs);
 * - quantization_config: how the released weights are stored; the
 *   training precisions are the recipe's;
 * - attention_dropout: dropout is the recipe's model.dropout;
 * - router arithmetic and auxiliary losses: the expert count and top-k
 *   fix the FLOPs, not how scores are normalised or balanced;
 * - ep_size: DeepSeek's reference inference code's expert parallelism.
 */
static const char *const read_past[] = {
    "architectures",
    "model_type",
    "auto_map",
    "transformers_version",
    "torch_dtype",
    "dtype",
    "_name_or_path",
    "bos_token_id",
    "eos_token_id",
    "pad_token_id",
    "use_cache",
    "initializer_range",
    "rms_norm_eps",
    "rope_theta",
    "rope_scaling",
    "rope_parameters",
    "rope_interleave",
    "use_mrope",
    "max_position_embeddings",
    "pretraining_tp",
    "quantization_config",
    "attention_dropout",
    "norm_topk_prob",
    "output_router_logits",
    "router_aux_loss_coef",
    "router_jitter_noise",
    "aux_loss_alpha",
    "seq_aux",
    "scoring_func",
    "topk_method",
    "routed_scaling_factor",
    "ep_size",
};

/* ---- Reading the file ---- */

bool hf_config_is_json(const char *path)
{
    char *buf = NULL;
    size_t n, i = 0;
    struct diag d;
    bool json;
    diag_init(&d);
    if (datafile_read(path, &buf, &n, &d) != STATUS_OK)
        return false;
    while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' ||
                     buf[i] == '\r'))
        i++;
    json = i < n && buf[i] == '{';
    free(buf);
    return json;
}
/* ---- The file ---- */

static bool read_past_key(const char *key)
{
    size_t i;
    for (i = 0; i < sizeof read_past / sizeof *read_past; i++)
        if (strcmp(key, read_past[i]) == 0)
            return true;
    return false;
}
/* Every key of obj once; every key known or read past (nest: the key
 * obj is under, for messages, or ""). */
static void check_keys(struct hf_reader *r,
                       const cJSON *obj,
                       const char *nest,
                       bool after_reading)
{
    const cJSON *it, *other;
    size_t i;
    char key[128], raw[96];
    cJSON_ArrayForEach(it, obj)
    {
        bool used = false;
        hf_reader_quote(it->string, 80, raw, sizeof raw);
        snprintf(key, sizeof key, "%s%s%s", nest, *nest ? "." : "", raw);
        if (!after_reading) {
            for (other = obj->child; other != it; other = other->next)
                if (strcmp(other->string, it->string) == 0)
                    diag_add(r->d, STATUS_PARSE, "%s: key '%s': given twice",
                             r->path, key);
            continue;
        }
        for (i = 0; i < r->nused && !used; i++)
            used = r->used[i] == it;
        if (!used && !read_past_key(it->string))
            diag_add(r->d, STATUS_PARSE,
                     "%s: key '%s': not understood for %s (it may describe "
                     "a feature roofplan does not model; supported: "
                     "" HF_CONFIG_SUPPORTED ")",
                     r->path, key, r->arch_name);
    }
}

/* Python's json module writes an infinite float as the bare word
 * Infinity (transformers' Mamba-2 configs: "time_step_limit": [0.0,
 * Infinity]), which JSON has not: outside strings, [-]Infinity becomes
 * [-]1e999 padded with blanks (cJSON reads it as infinite; line and
 * column stay where they were). */
static void python_infinity(char *text, size_t len)
{
    static const char word[] = "Infinity";
    size_t i;
    bool in_string = false;
    for (i = 0; i < len; i++) {
        if (in_string) {
            if (text[i] == '\\' && i + 1 < len)
                i++;
            else if (text[i] == '"')
                in_string = false;
        } else if (text[i] == '"') {
            in_string = true;
        } else if (len - i >= sizeof word - 1 &&
                   memcmp(text + i, word, sizeof word - 1) == 0) {
            memcpy(text + i, "1e999   ", sizeof word - 1);
            i += sizeof word - 2;
        }
    }
}

/* "path:LINE: invalid JSON ..." from the offset cJSON stopped at. */
static void syntax_error(const char *path,
                         const char *text,
                         size_t len,
                         const char *end,
                         struct diag *d)
{
    size_t at =
        end && end >= text && end <= text + len ? (size_t)(end - text) : len;
    size_t i, start = 0, stop;
    long line = 1;
    char raw[32], near[48];
    for (i = 0; i < at; i++)
        if (text[i] == '\n') {
            line++;
            start = i + 1;
        }
    stop = at;
    while (stop < len && stop - at < 24 && text[stop] != '\n' &&
           text[stop] != '\r' && text[stop] != '\0')
        stop++;
    snprintf(raw, sizeof raw, "%.*s", (int)(stop - at), text + at);
    hf_reader_quote(raw, sizeof near - 1, near, sizeof near);
    if (at >= len)
        diag_add(d, STATUS_PARSE,
                 "%s:%ld: invalid JSON: unexpected end of file (column %zu)",
                 path, line, at - start + 1);
    else
        diag_add(d, STATUS_PARSE, "%s:%ld: invalid JSON at column %zu: \"%s\"",
                 path, line, at - start + 1, near);
}

/* The schema's default of every architecture field no key set (the
 * keys of kinds of layer the architecture does not have): not given, so
 * the Assumptions sheet leaves the quiet ones out. */
static void defaults(struct hf_reader *r)
{
    const struct datafile_schema *sc = model_schema();
    size_t i;
    for (i = 0; i < sc->n; i++) {
        const struct datafile_field *f = &sc->fields[i];
        void *at = (char *)r->spec + f->offset;
        double v;
        char why[160];
        if (r->meta->given[i] || model_field_is_training(i) || !f->def ||
            f->type == DATAFILE_LIST)
            continue;
        if (f->type == DATAFILE_STRING) {
            snprintf((char *)at, f->size, "%s", f->def);
            continue;
        }
        if (f->type == DATAFILE_BOOL) {
            *(bool *)at = strcmp(f->def, "true") == 0;
            continue;
        }
        if (!datafile_parse_scalar(f, f->def, &v, why, sizeof why))
            continue; /* the schema's own defaults parse (test_model_schema) */
        if (f->type == DATAFILE_INT)
            *(long *)at = (long)v;
        else if (f->type == DATAFILE_DOUBLE)
            *(double *)at = v;
        else
            *(int *)at = (int)v;
    }
}

enum status hf_config_read(const char *path,
                           struct model_spec *spec,
                           struct datafile_meta *meta,
                           struct diag *d)
{
    struct hf_reader r;
    char *text = NULL;
    size_t len = 0;
    const char *end = NULL;
    cJSON *root;
    enum status st;

    memset(meta, 0, sizeof *meta);
    meta->path = strdup(path);
    if (!meta->path)
        return diag_add(d, STATUS_NOMEM, "%s: out of memory", path);
    meta->schema = model_schema();
    st = datafile_read(path, &text, &len, d);
    if (st != STATUS_OK)
        return st;
    if (memchr(text, '\0', len)) {
        const char *nul = memchr(text, '\0', len), *c;
        long line = 1;
        for (c = text; c < nul; c++)
            line += *c == '\n';
        diag_add(d, STATUS_PARSE, "%s:%ld: holds a NUL byte (not a text file?)",
                 path, line);
        free(text);
        return d->status;
    }
    /* The end pointer, not cJSON_GetErrorPtr(): that is a global, and
     * loading may run beside other threads' parsing. The length includes
     * the terminating NUL, which require_null_terminated looks for. */
    python_infinity(text, len);
    root = cJSON_ParseWithLengthOpts(text, len + 1, &end, true);
    if (!root) {
        syntax_error(path, text, len, end, d);
        free(text);
        diag_finish(d);
        return d->status;
    }
    memset(&r, 0, sizeof r);
    r.path = path;
    r.root = root;
    r.spec = spec;
    r.meta = meta;
    r.d = d;
    if (!cJSON_IsObject(root)) {
        diag_add(d, STATUS_PARSE,
                 "%s: expected a JSON object (a transformers config.json)",
                 path);
        goto done;
    }
    if (cJSON_GetArraySize(root) > KEYS_MAX) {
        diag_add(d, STATUS_PARSE,
                 "%s: %d top-level keys (at most %d): not a transformers "
                 "config.json",
                 path, cJSON_GetArraySize(root), KEYS_MAX);
        goto done;
    }
    check_keys(&r, root, "", false);
    if (!hf_arch_find(&r))
        goto done;
    hf_arch_read(&r);
    defaults(&r);
    if (r.outer) { /* a wrapper: its text_config was read as the model */
        check_keys(&r, r.root, "text_config", false);
        check_keys(&r, r.root, "text_config", true);
    }
    check_keys(&r, root, "", true);
done:
    cJSON_Delete(root);
    free(text);
    diag_finish(d);
    return d->status;
}
