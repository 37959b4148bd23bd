/*
 * trace_classify: kernel names to classes by the kernel file's patterns
 * (trace_classify.h). The file is read whole (datafile_read: a regular
 * text file of at most 1 MiB) and parsed by inih through a line reader
 * that counts lines, so each problem names its line; inih reports only
 * its first malformed line, and the rest of the file is still checked.
 */
#include "trace_classify.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "datafile.h"
#include "datafile_text.h"

/* The one list of classes: section key, table label, communication, and
 * the model's work a class's kernels are timed against (trace_import). */
static const struct {
    const char *key;
    const char *label;
    bool comm;
    const char *work;
} classes[TRACE_CLASSES] = {
    [TRACE_GEMM_FP8] = {"gemm_fp8", "FP8 GEMM", false,
                        "forward and input-gradient FLOPs of the FP8 GEMMs "
                        "not in a class below"},
    [TRACE_GEMM_FP8_GROUPED] = {"gemm_fp8_grouped", "FP8 grouped GEMM", false,
                                "routed experts' forward and input-gradient "
                                "FLOPs"},
    [TRACE_GEMM_FP8_WGRAD] = {"gemm_fp8_wgrad", "FP8 weight-gradient GEMM",
                              false, "weight-gradient FLOPs of FP8 GEMMs"},
    [TRACE_GEMM_BF16] = {"gemm_bf16", "BF16 GEMM", false,
                         "all passes of the GEMMs the recipe keeps in BF16"},
    [TRACE_ATTN_FWD] = {"attn_fwd", "attention forward", false,
                        "the attention core's causal FLOPs; one kernel = "
                        "one layer forward"},
    [TRACE_ATTN_BWD] = {"attn_bwd", "attention backward", false,
                        "bwd_flops_ratio x the forward's FLOPs; one kernel "
                        "= one layer backward"},
    [TRACE_ATTN_AUX] = {"attn_aux", "attention bwd pre/post", false,
                        "counted with attn_bwd"},
    [TRACE_SCAN_LINEAR] = {"scan_linear", "Gated DeltaNet forward", false,
                           "the chunked delta rule's forward FLOPs "
                           "(docs/model.md) of the layers the attention "
                           "kernels count"},
    [TRACE_SCAN_LINEAR_BWD] = {"scan_linear_bwd", "Gated DeltaNet backward",
                               false,
                               "2 x the forward's FLOPs (shown, not "
                               "written)"},
    [TRACE_SCAN_SSD] = {"scan_ssd", "Mamba-2 SSD forward", false,
                        "the chunked SSD scan's forward FLOPs (docs/model.md) "
                        "of the layers the attention kernels count"},
    [TRACE_SCAN_SSD_BWD] = {"scan_ssd_bwd", "Mamba-2 SSD backward", false,
                            "2 x the forward's FLOPs (shown, not written)"},
    [TRACE_NORM] = {"norm", "norms", false,
                    "the norms' bytes, once forward and twice backward"},
    [TRACE_ACTIVATION] = {"activation", "activation (SwiGLU)", false,
                          "the activation's bytes, once forward and twice "
                          "backward"},
    [TRACE_ROPE] = {"rope", "RoPE", false, "counted with copy"},
    [TRACE_FP8_CAST] = {"fp8_cast", "FP8 casts, transposes", false,
                        "none: the FP8 recipe's cost, written as "
                        "fp8_scaling.fine_grained_factor"},
    [TRACE_COPY] = {"copy", "copies, adds, fills", false,
                    "residual adds and RoPE bytes (shown, not written: "
                    "copy_tbps stays the device copy rate)"},
    [TRACE_OTHER] = {"other", "routing, top-k, other", false,
                     "none (timed only)"},
    [TRACE_NCCL_ALL_REDUCE] = {"nccl_all_reduce", "NCCL all-reduce", true,
                               "none: communication, for the overlap"},
    [TRACE_NCCL_ALL_GATHER] = {"nccl_all_gather", "NCCL all-gather", true,
                               "none: communication, for the overlap"},
    [TRACE_NCCL_REDUCE_SCATTER] = {"nccl_reduce_scatter", "NCCL reduce-scatter",
                                   true,
                                   "none: communication, for the overlap"},
    [TRACE_NCCL_ALLTOALL] = {"nccl_alltoall", "NCCL all-to-all", true,
                             "none: communication, for the overlap"},
    [TRACE_NCCL_SENDRECV] = {"nccl_sendrecv", "NCCL send/recv", true,
                             "none: communication, for the overlap"},
    [TRACE_EP_DISPATCH] = {"ep_dispatch", "EP dispatch", true,
                           "none: communication, for the overlap"},
    [TRACE_EP_COMBINE] = {"ep_combine", "EP combine", true,
                          "none: communication, for the overlap"},
    [TRACE_EP_NOTIFY] = {"ep_notify", "EP notify, layout", true,
                         "none: communication, for the overlap"},
    [TRACE_UNKNOWN] = {"unknown", "unknown kernels", false,
                       "(no section: kernels no pattern matches, listed "
                       "by name)"},
};

void trace_classify_markdown(FILE *out)
{
    int c;
    fprintf(out, "| section | key | meaning |\n|---|---|---|\n"
                 "| kernels | source | where the patterns come from "
                 "(required, first section) |\n"
                 "| CLASS | library | the library of the patterns that "
                 "follow (before them) |\n"
                 "| CLASS | pattern | an fnmatch(3) glob over the whole "
                 "kernel name; repeatable; first match wins |\n"
                 "\n| class | label | timed against |\n|---|---|---|\n");
    for (c = 0; c < TRACE_CLASSES; c++)
        fprintf(out, "| %s | %s | %s |\n", classes[c].key, classes[c].label,
                classes[c].work);
}

const char *trace_class_key(int c)
{
    return c >= 0 && c < TRACE_CLASSES ? classes[c].key : NULL;
}

const char *trace_class_label(int c)
{
    return c >= 0 && c < TRACE_CLASSES ? classes[c].label : NULL;
}

bool trace_class_is_comm(int c)
{
    return c >= 0 && c < TRACE_CLASSES && classes[c].comm;
}

struct rule {
    char *pattern;
    size_t library; /* index into libraries */
    int cls;
};

struct trace_rules {
    struct rule *rules;
    size_t n, cap;
    char **libraries;
    size_t nlib, libcap;
    char *source;
};

/* The parse: the text, the line reader's place, the current section. */
struct parse {
    const char *path;
    const char *text;
    size_t len, pos;
    long line;
    struct trace_rules *r;
    struct diag *d;
    bool first_section_seen, in_kernels, nomem;
    int cls;      /* current class section; -1 none */
    long library; /* library of this section occurrence; -1 none */
    char section[64];
};

static char *next_line(char *str, int num, void *stream)
{
    struct parse *p = stream;
    size_t end = p->pos, out = 0;
    if (p->pos >= p->len)
        return NULL;
    while (end < p->len && p->text[end] != '\n')
        end++;
    p->line++;
    while (p->pos < end && (p->text[p->pos] == ' ' || p->text[p->pos] == '\t'))
        p->pos++;
    while (p->pos < end && out + 1 < (size_t)num)
        str[out++] = p->text[p->pos++];
    str[out] = '\0';
    p->pos = end < p->len ? end + 1 : end;
    return str;
}

static bool grow(void **arr, size_t *cap, size_t n, size_t size)
{
    void *p;
    size_t c;
    if (n < *cap)
        return true;
    c = *cap ? *cap * 2 : 16;
    p = realloc(*arr, c * size);
    if (!p)
        return false;
    *arr = p;
    *cap = c;
    return true;
}

/* A new section occurrence: [kernels] or a class. */
static void enter(struct parse *p, const char *section)
{
    int c;
    snprintf(p->section, sizeof p->section, "%s", section);
    p->library = -1;
    p->cls = -1;
    p->in_kernels = strcmp(section, "kernels") == 0;
    if (!p->first_section_seen && !p->in_kernels)
        diag_add(p->d, STATUS_PARSE,
                 "%s:%ld: [%s]: the file must begin with [kernels]", p->path,
                 p->line, section);
    p->first_section_seen = true;
    if (p->in_kernels)
        return;
    for (c = 0; c < TRACE_UNKNOWN; c++)
        if (strcmp(section, classes[c].key) == 0)
            p->cls = c;
    if (p->cls < 0)
        diag_add(p->d, STATUS_PARSE,
                 "%s:%ld: [%s]: unknown kernel class (see data/README.md)",
                 p->path, p->line, section);
}

static int nomem(struct parse *p)
{
    p->nomem = true;
    return 0;
}

/* The text rule of every data file (its text reaches messages, the
 * calibration written and the terminal): false with the problem said,
 * the text shown escaped. */
static bool text_ok(struct parse *p,
                    const char *section,
                    const char *key,
                    const char *value)
{
    const char *part[3] = {section, key, value};
    int i;
    for (i = 0; i < 3; i++) {
        char why[80], qs[80], qk[80];
        size_t col;
        if (datafile_text_check(part[i], strlen(part[i]), &col, why,
                                sizeof why))
            continue;
        datafile_text_quote(section, qs, sizeof qs);
        datafile_text_quote(key, qk, sizeof qk);
        diag_add(p->d, STATUS_PARSE, "%s:%ld: [%s] %s: %s at character %zu",
                 p->path, p->line, qs, qk, why, col);
        return false;
    }
    return true;
}

/* [kernels] source = ...: where the rules come from. */
static int kernels_key(struct parse *p, const char *key, const char *value)
{
    struct trace_rules *r = p->r;
    if (strcmp(key, "source") != 0)
        diag_add(p->d, STATUS_PARSE, "%s:%ld: [kernels] %s: unknown key",
                 p->path, p->line, key);
    else if (!value[0])
        diag_add(p->d, STATUS_PARSE, "%s:%ld: [kernels] source: empty", p->path,
                 p->line);
    else {
        free(r->source);
        r->source = strdup(value);
        if (!r->source)
            return nomem(p);
    }
    return 1;
}

/* A class's library = NAME: the library of the patterns after it. */
static int library_key(struct parse *p, const char *section, const char *value)
{
    struct trace_rules *r = p->r;
    char *copy;
    if (!value[0]) {
        diag_add(p->d, STATUS_PARSE, "%s:%ld: [%s] library: empty", p->path,
                 p->line, section);
        return 1;
    }
    if (!grow((void **)&r->libraries, &r->libcap, r->nlib,
              sizeof *r->libraries))
        return nomem(p);
    copy = strdup(value);
    if (!copy)
        return nomem(p);
    r->libraries[r->nlib] = copy;
    p->library = (long)r->nlib++;
    return 1;
}

/* A class's pattern = GLOB: one rule, of the section's library. */
static int pattern_key(struct parse *p, const char *section, const char *value)
{
    struct trace_rules *r = p->r;
    char *copy;
    int m;
    if (p->library < 0) {
        diag_add(p->d, STATUS_PARSE,
                 "%s:%ld: [%s] pattern: before the section's library", p->path,
                 p->line, section);
        return 1;
    }
    m = fnmatch(value, "", 0);
    if (!value[0] || (m != 0 && m != FNM_NOMATCH)) {
        diag_add(p->d, STATUS_PARSE, "%s:%ld: [%s] pattern: %s \"%s\"", p->path,
                 p->line, section, value[0] ? "malformed" : "empty", value);
        return 1;
    }
    if (!grow((void **)&r->rules, &r->cap, r->n, sizeof *r->rules))
        return nomem(p);
    copy = strdup(value);
    if (!copy)
        return nomem(p);
    r->rules[r->n].pattern = copy;
    r->rules[r->n].library = (size_t)p->library;
    r->rules[r->n].cls = p->cls;
    r->n++;
    return 1;
}

static int
on_value(void *user, const char *section, const char *key, const char *value)
{
    struct parse *p = user;
    if (!text_ok(p, section, key, value))
        return 1;
    if (!p->first_section_seen || strcmp(section, p->section) != 0)
        enter(p, section);
    if (p->in_kernels)
        return kernels_key(p, key, value);
    if (p->cls < 0)
        return 1;
    if (strcmp(key, "library") == 0)
        return library_key(p, section, value);
    if (strcmp(key, "pattern") != 0) {
        diag_add(p->d, STATUS_PARSE,
                 "%s:%ld: [%s] %s: unknown key (library or pattern)", p->path,
                 p->line, section, key);
        return 1;
    }
    return pattern_key(p, section, value);
}

struct trace_rules *trace_rules_load(const char *path, struct diag *d)
{
    struct parse p;
    char *text = NULL;
    size_t len = 0;
    int rc;
    memset(&p, 0, sizeof p);
    if (datafile_read(path, &text, &len, d) != STATUS_OK)
        return NULL;
    p.r = calloc(1, sizeof *p.r);
    if (!p.r) {
        free(text);
        diag_set(d, STATUS_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    p.path = path;
    p.text = text;
    p.len = len;
    p.d = d;
    p.cls = -1;
    p.library = -1;
    rc = ini_parse_stream(next_line, &p, on_value, &p);
    if (rc < 0 || p.nomem)
        diag_set(d, STATUS_NOMEM, "%s: out of memory", path);
    else if (rc > 0)
        diag_add(d, STATUS_PARSE, "%s:%d: not a key = value line or [section]",
                 path, rc);
    if (d->status == STATUS_OK && !p.r->source)
        diag_add(d, STATUS_PARSE, "%s: [kernels] source: missing", path);
    if (d->status == STATUS_OK && p.r->n == 0)
        diag_add(d, STATUS_PARSE, "%s: no pattern (nothing to classify with)",
                 path);
    free(text);
    if (d->status != STATUS_OK) {
        diag_finish(d);
        trace_rules_free(p.r);
        return NULL;
    }
    return p.r;
}

void trace_rules_free(struct trace_rules *rules)
{
    size_t i;
    if (!rules)
        return;
    for (i = 0; i < rules->n; i++)
        free(rules->rules[i].pattern);
    for (i = 0; i < rules->nlib; i++)
        free(rules->libraries[i]);
    free(rules->rules);
    free(rules->libraries);
    free(rules->source);
    free(rules);
}

int trace_rules_classify(const struct trace_rules *rules,
                         const char *name,
                         const char **library)
{
    size_t i;
    for (i = 0; i < rules->n; i++)
        if (fnmatch(rules->rules[i].pattern, name, 0) == 0) {
            if (library)
                *library = rules->libraries[rules->rules[i].library];
            return rules->rules[i].cls;
        }
    if (library)
        *library = "";
    return TRACE_UNKNOWN;
}

const char *trace_rules_source(const struct trace_rules *rules)
{
    return rules->source;
}
