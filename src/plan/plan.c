/*
 * plan: parsing and formatting a plan, its family name and words, and
 * where its groups and pipeline chunks sit. Its checks are
 * plan_check.c's; how its layers split over chunks, plan_split.c's; the
 * schedules' rows, schedule.c's.
 */
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "datafile.h"
#include "model_partition.h"

/* ---- Parsing ---- */

/* What a PLAN key's value is. */
enum key_kind {
    KEY_COUNT,  /* an integer in min..max, stored as long */
    KEY_WORD,   /* one of word's words, stored as int (its index) */
    KEY_LAYOUT, /* Megatron-LM's layout notation (plan_layout_parse) */
};

struct key {
    const char *name;
    size_t offset; /* into struct plan */
    enum key_kind kind;
    datafile_word_fn *word; /* KEY_WORD */
    long min, max;          /* KEY_COUNT */
};

#define OFF(field) offsetof(struct plan, field)

/* The PLAN keys, in the order messages and --help list them. */
/* clang-format off */
static const struct key keys[] = {
    {.name = "gpus", .offset = OFF(gpus), .kind = KEY_COUNT, .min = 1, .max = 100000000},
    {.name = "tp", .offset = OFF(tp), .kind = KEY_COUNT, .min = 1, .max = 1000000},
    {.name = "pp", .offset = OFF(pp), .kind = KEY_COUNT, .min = 1, .max = 1000000},
    {.name = "ep", .offset = OFF(ep), .kind = KEY_COUNT, .min = 1, .max = 1000000},
    {.name = "cp", .offset = OFF(cp), .kind = KEY_COUNT, .min = 1, .max = 1000000},
    {.name = "zero", .offset = OFF(zero), .kind = KEY_COUNT, .min = 0, .max = PLAN_ZERO_MAX},
    {.name = "schedule", .offset = OFF(schedule), .kind = KEY_WORD, .word = plan_schedule_word},
    {.name = "vpp", .offset = OFF(vpp), .kind = KEY_COUNT, .min = 1, .max = 1000},
    {.name = "precision", .offset = OFF(precision), .kind = KEY_WORD, .word = plan_precision_word},
    {.name = "recompute", .offset = OFF(recompute), .kind = KEY_WORD, .word = plan_recompute_word},
    {.name = "mbs", .offset = OFF(mbs), .kind = KEY_COUNT, .min = 1, .max = 1000000},
    {.name = "gbs", .offset = OFF(gbs), .kind = KEY_COUNT, .min = 1, .max = 1000000000},
    /* dp: checked against gpus/(tp pp cp), not stored (given_dp) */
    {.name = "dp", .offset = OFF(dp), .kind = KEY_COUNT, .min = 1, .max = 100000000},
    /* sp: stored inverted (no_sp), so a zeroed plan has it on */
    {.name = "sp", .offset = OFF(no_sp), .kind = KEY_COUNT, .min = 0, .max = 1},
    {.name = "pp_first", .offset = OFF(pp_first), .kind = KEY_COUNT, .min = 0, .max = 1000000},
    {.name = "pp_last", .offset = OFF(pp_last), .kind = KEY_COUNT, .min = 0, .max = 1000000},
    {.name = "pp_split", .offset = OFF(pp_split), .kind = KEY_WORD, .word = model_split_word},
    {.name = "pp_layout", .offset = OFF(layout_chunks), .kind = KEY_LAYOUT},
    {.name = "offload", .offset = OFF(offload), .kind = KEY_COUNT, .min = 0, .max = 1000000},
};
/* clang-format on */
#undef OFF
#define NKEYS (sizeof keys / sizeof keys[0])

/* "gpus tp pp ...": the keys' names, for messages. */
static void key_names(char *buf, size_t size)
{
    size_t i, used = 0;
    buf[0] = '\0';
    for (i = 0; i < NKEYS && used < size; i++) {
        int n = snprintf(buf + used, size - used, "%s%s", i ? " " : "",
                         keys[i].name);
        if (n < 0)
            break;
        used += (size_t)n;
    }
}

/* Stores the value text val of key k (named name) into out. */
static enum status parse_value(const struct key *k,
                               const char *name,
                               const char *val,
                               const char *shown,
                               struct plan *out,
                               long *given_dp,
                               struct diag *d)
{
    char *at = (char *)out + k->offset;
    char why[96];
    long v;
    int w;
    switch (k->kind) {
    case KEY_LAYOUT:
        if (!plan_layout_parse(val, out, why, sizeof why))
            return diag_set(d, STATUS_USAGE, "PLAN token '%s': %s", shown, why);
        break;
    case KEY_COUNT:
        if (!datafile_parse_long(val, &v) || v < k->min || v > k->max)
            return diag_set(d, STATUS_USAGE,
                            "PLAN token '%s': %s expects an integer in "
                            "%ld..%ld",
                            shown, name, k->min, k->max);
        if (strcmp(name, "dp") == 0)
            *given_dp = v;
        else if (strcmp(name, "sp") == 0) /* stored inverted */
            *(bool *)(void *)at = v == 0;
        else
            *(long *)(void *)at = v;
        break;
    case KEY_WORD:
        w = datafile_word_index(k->word, val);
        if (w < 0) {
            char words[160];
            datafile_words_join(k->word, words, sizeof words);
            return diag_set(d, STATUS_USAGE,
                            "PLAN token '%s': %s expects one of %s", shown,
                            name, words);
        }
        *(int *)(void *)at = w;
        break;
    }
    return STATUS_OK;
}

static enum status parse_token(const char *tok,
                               struct plan *out,
                               bool *seen,
                               long *given_dp,
                               struct diag *d)
{
    const char *eq = strchr(tok, '=');
    char name[32], shown[160], key_shown[140], names[200];
    size_t i;
    /* messages quote the token: control characters shown as \xNN */
    datafile_text_quote(tok, shown, sizeof shown);
    key_names(names, sizeof names);
    if (!eq || eq == tok)
        return diag_set(d, STATUS_USAGE,
                        "PLAN token '%s': expected key=value (keys: %s)", shown,
                        names);
    snprintf(name, sizeof name, "%.*s", (int)(eq - tok), tok);
    for (i = 0; i < NKEYS; i++) {
        if (strcmp(keys[i].name, name) != 0)
            continue;
        if (seen[i])
            return diag_set(d, STATUS_USAGE, "PLAN token '%s': %s given twice",
                            shown, name);
        seen[i] = true;
        return parse_value(&keys[i], name, eq + 1, shown, out, given_dp, d);
    }
    datafile_text_quote(name, key_shown, sizeof key_shown);
    return diag_set(d, STATUS_USAGE,
                    "PLAN token '%s': unknown key '%s' (keys: %s)", shown,
                    key_shown, names);
}

enum status plan_parse(char *const *args,
                       size_t nargs,
                       const struct plan *defaults,
                       struct plan *out,
                       long *given_dp,
                       struct diag *d)
{
    bool seen[NKEYS] = {false};
    size_t a;
    *out = *defaults;
    *given_dp = 0;
    for (a = 0; a < nargs; a++) {
        const char *c = args[a];
        while (*c) {
            char tok[128];
            size_t n = 0;
            while (*c == ' ' || *c == ',' || *c == '\t')
                c++;
            if (!*c)
                break;
            while (c[n] && c[n] != ' ' && c[n] != ',' && c[n] != '\t')
                n++;
            if (n >= sizeof tok) {
                char cut[48];
                datafile_text_quote(c, cut, sizeof cut);
                return diag_set(d, STATUS_USAGE, "PLAN token '%s': too long",
                                cut);
            }
            memcpy(tok, c, n);
            tok[n] = '\0';
            c += n;
            if (parse_token(tok, out, seen, given_dp, d) != STATUS_OK)
                return d->status;
        }
    }
    return STATUS_OK;
}

/* ---- Names ---- */

/* The parallelism a family names after its data-parallel part, in
 * order (plan_family, plan_family_known). */
static const char *const family_parts[] = {"TP", "CP", "PP", "EP"};
#define FAMILY_PARTS (sizeof family_parts / sizeof family_parts[0])

/* The family name of data parallelism with ZeRO stage zero (zero < 0:
 * none) and the family_parts[] whose bit is set in parts. */
static void family_name(long zero, unsigned parts, char *buf, size_t size)
{
    size_t used = 0, k;
    buf[0] = '\0';
    if (zero >= 0) {
        if (zero == 0)
            used = (size_t)snprintf(buf, size, "DP");
        else
            used = (size_t)snprintf(buf, size, "ZeRO-%ld", zero);
    }
    for (k = 0; k < FAMILY_PARTS && used < size; k++)
        if (parts & (1u << k))
            used += (size_t)snprintf(buf + used, size - used, "%s%s",
                                     used ? "+" : "", family_parts[k]);
    if (used == 0)
        snprintf(buf, size, "single GPU");
}

void plan_family(const struct plan *p, char *buf, size_t size)
{
    const long degree[FAMILY_PARTS] = {p->tp, p->cp, p->pp, p->ep};
    unsigned parts = 0;
    size_t k;
    for (k = 0; k < FAMILY_PARTS; k++)
        if (degree[k] > 1)
            parts |= 1u << k;
    family_name(p->dp > 1 ? p->zero : -1, parts, buf, size);
}

bool plan_family_known(const char *name)
{
    long zero;
    unsigned parts;
    char buf[64];
    for (zero = -1; zero <= PLAN_ZERO_MAX; zero++)
        for (parts = 0; parts < 1u << FAMILY_PARTS; parts++) {
            family_name(zero, parts, buf, sizeof buf);
            if (strcmp(buf, name) == 0)
                return true;
        }
    return false;
}

const char *plan_schedule_word(int schedule)
{
    return schedule >= 0 && schedule < PLAN_SCHEDULES
               ? plan_schedule_of(schedule)->name
               : NULL;
}

const char *plan_precision_word(int precision)
{
    static const char *const w[MODEL_PRECISIONS] = {
        [MODEL_BF16] = "bf16", [MODEL_FP8] = "fp8"};
    return DATAFILE_WORD_AT(w, precision);
}

const char *plan_recompute_word(int recompute)
{
    static const char *const w[MODEL_RECOMPUTES] = {
        [MODEL_RECOMPUTE_NONE] = "none",
        [MODEL_RECOMPUTE_SELECTIVE] = "selective",
        [MODEL_RECOMPUTE_FULL] = "full"};
    return DATAFILE_WORD_AT(w, recompute);
}

static const char *or_unknown(const char *word)
{
    return word ? word : "?";
}

const char *plan_schedule_str(int schedule)
{
    return or_unknown(plan_schedule_word(schedule));
}

const char *plan_precision_str(int precision)
{
    return or_unknown(plan_precision_word(precision));
}

const char *plan_recompute_str(int recompute)
{
    return or_unknown(plan_recompute_word(recompute));
}

const char *plan_split_str(int split)
{
    return or_unknown(model_split_word(split));
}

void plan_format(const struct plan *p, char *buf, size_t size)
{
    char split[96] = "", layout[64], offload[32] = "";
    if (p->offload > 0)
        snprintf(offload, sizeof offload, " offload=%ld", p->offload);
    if (p->layout_chunks > 0) {
        plan_layout_format(p, layout, sizeof layout);
        snprintf(split, sizeof split, " pp_layout=%s", layout);
    } else if (p->pp_first > 0 || p->pp_last > 0)
        snprintf(split, sizeof split, " pp_first=%ld pp_last=%ld", p->pp_first,
                 p->pp_last);
    else if (p->pp_split != MODEL_SPLIT_BALANCED)
        snprintf(split, sizeof split, " pp_split=%s",
                 plan_split_str(p->pp_split));
    snprintf(buf, size,
             "gpus=%ld tp=%ld pp=%ld ep=%ld cp=%ld zero=%ld schedule=%s "
             "vpp=%ld precision=%s recompute=%s mbs=%ld gbs=%ld%s%s%s",
             p->gpus, p->tp, p->pp, p->ep, p->cp, p->zero,
             plan_schedule_str(p->schedule), p->vpp,
             plan_precision_str(p->precision), plan_recompute_str(p->recompute),
             p->mbs, p->gbs, p->no_sp ? " sp=0" : "", split, offload);
}

struct plan_span plan_span(long size, long stride, long domain)
{
    struct plan_span s;
    s.size = size;
    if (size <= 1) {
        s.per_node = 1;
        s.nodes = 1;
    } else if (stride >= domain) {
        s.per_node = 1;
        s.nodes = size;
    } else {
        /* ranks 0, stride, 2 stride, ...: domain of rank r is r / domain
         * (a partial last domain changes nothing for the first group).
         * Exact in double (operands below 2^53) and cheaper than two
         * 64-bit integer divisions in the sweep's inner loop. */
        double nodes =
            floor((double)(size - 1) * (double)stride / (double)domain) + 1;
        s.nodes = (long)nodes;
        s.per_node = (long)ceil((double)size / nodes);
    }
    return s;
}

size_t plan_rank_chunks(const struct plan *p,
                        long rank,
                        long *chunk,
                        double *microbatches)
{
    double m = (double)p->microbatches;
    size_t n = 0;
    long j;
    enum plan_layout l = plan_schedule_of(p->schedule)->layout;
    if (l == PLAN_LAYOUT_PAIRED && p->pp >= 2) {
        chunk[0] = rank;
        chunk[1] = p->pp - 1 - rank;
        microbatches[0] = microbatches[1] = m / 2;
        return 2;
    }
    if (l == PLAN_LAYOUT_INTERLEAVED) {
        for (j = 0; j < p->vpp && n < PLAN_RANK_CHUNKS_MAX; j++) {
            chunk[n] = rank + j * p->pp;
            microbatches[n++] = m;
        }
        return n;
    }
    chunk[0] = rank;
    microbatches[0] = m;
    return 1;
}

double plan_inflight(const struct plan *p, long rank)
{
    if (p->pp == 1)
        return 1;
    return plan_schedule_of(p->schedule)->inflight(p, rank);
}

/* DualPipe's in-flight micro-batches through chunk j of a rank (see
 * plan_inflight_chunk). */
static double inflight_paired(const struct plan *p, long rank, size_t j)
{
    double half = (double)p->microbatches / 2;
    double n = (double)(j == 0 ? p->pp - rank : rank + 1);
    return n < half ? n : half;
}

double plan_inflight_chunk(const struct plan *p, long rank, size_t j)
{
    enum plan_layout l = plan_schedule_of(p->schedule)->layout;
    long chunks = 1; /* plan_rank_chunks' count, without the chunks */
    if (l == PLAN_LAYOUT_PAIRED && p->pp >= 2)
        return inflight_paired(p, rank, j);
    if (l == PLAN_LAYOUT_INTERLEAVED) /* vpp, at most the most a rank holds */
        chunks = p->vpp < PLAN_RANK_CHUNKS_MAX ? p->vpp : PLAN_RANK_CHUNKS_MAX;
    if (chunks < 0)
        chunks = 0;
    return plan_inflight(p, rank) / (double)chunks;
}

void plan_inflight_chunks(const struct plan *p, long rank, size_t n, double *in)
{
    size_t j;
    double each;
    if (n == 0)
        return;
    if (plan_schedule_of(p->schedule)->layout == PLAN_LAYOUT_PAIRED &&
        p->pp >= 2) {
        for (j = 0; j < n; j++)
            in[j] = inflight_paired(p, rank, j);
        return;
    }
    each = plan_inflight_chunk(p, rank, 0); /* an equal share each */
    for (j = 0; j < n; j++)
        in[j] = each;
}

void plan_rank_view(const struct plan *p,
                    const struct model_partition *part,
                    long rank,
                    struct plan_rank *out)
{
    long chunk[PLAN_RANK_CHUNKS_MAX];
    double mb[PLAN_RANK_CHUNKS_MAX];
    size_t n = plan_rank_chunks(p, rank, chunk, mb), i;
    memset(out, 0, sizeof *out);
    out->rank = rank;
    out->chunks = (double)n;
    out->mb_share =
        plan_schedule_of(p->schedule)->layout == PLAN_LAYOUT_PAIRED &&
                p->pp >= 2
            ? 0.5
            : 1;
    out->part = part;
    for (i = 0; i < n; i++) {
        out->index[i] = chunk[i];
        model_chunk_add(&out->sum, &part->chunk[chunk[i]]);
        out->layer_dense[i] = part->chunk[chunk[i]].max_layer_dense;
        out->layer_expert[i] = part->chunk[chunk[i]].max_layer_expert;
        /* a chunk sends forward unless last, backward unless first */
        out->pp_sends +=
            (chunk[i] + 1 < part->chunks ? 1 : 0) + (chunk[i] > 0 ? 1 : 0);
    }
}
