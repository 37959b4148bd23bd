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
/* Every top-level key once; every key known or read past. */
static void check_keys(struct hf_reader *r, bool after_reading)
{
    const cJSON *it, *other;
    size_t i;
    char key[96];
    cJSON_ArrayForEach(it, r->root)
    {
        bool used = false;
        hf_reader_quote(it->string, 80, key, sizeof key);
        if (!after_reading) {
            for (other = r->root->child; other != it; other = other->next)
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
    diag_snprintf(meta->path, sizeof meta->path, "%s", path);
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
    check_keys(&r, false);
    if (!hf_arch_find(&r))
        goto done;
    hf_arch_read(&r);
    check_keys(&r, true);
done:
    cJSON_Delete(root);
    free(text);
    diag_finish(d);
    return d->status;
}
