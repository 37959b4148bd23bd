/*
 * eval_out: text and JSON renderings of one evaluated plan.
 */
#include "eval_out.h"

#include <assert.h>
#include <math.h>
#include <string.h>

#include "collectives.h"
#include "figures.h"
#include "goodput.h"
#include "stack.h"
#include "views.h"

#define GIB 1073741824.0

static void row(FILE *out, const char *label, double value)
{
    fprintf(out, "  %-46s %8.3f\n", label, value);
}

/* Every pipeline rank's memory (v->rank_mem): the heaviest rank's
 * breakdown above does not say how the others compare. */
static void ranks_text(FILE *out, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    long k;
    if (r->plan.pp < 2)
        return;
    fprintf(out,
            "memory by pipeline rank (GiB)\n  %4s %8s %8s %8s %8s %8s "
            "%8s  %s\n",
            "rank", "weights", "grads", "optim", "activ", "other", "total",
            "gradients reduced");
    for (k = 0; k < r->plan.pp; k++) {
        const struct memory *mk =
            (size_t)k < v->nrank_mem ? &v->rank_mem[k] : NULL;
        struct memory m;
        if (!mk || mk->rank < 0)
            return;
        m = *mk;
        fprintf(out, "  %4ld %8.2f %8.2f %8.2f %8.2f %8.2f %8.2f  %s\n", k,
                m.weights / GIB, m.grads / GIB, m.optimizer / GIB,
                m.activations / GIB, m.other / GIB, m.total / GIB,
                m.grads_per_step ? "once per step" : "per micro-batch");
    }
    fputc('\n', out);
}

static void span_text(const struct plan_span *s, char *buf, size_t size)
{
    snprintf(buf, size, "%ld x %ld", s->per_node, s->nodes);
}

static bool m_has_mtp(const struct eval_view *v)
{
    return v->m->spec.mtp_depth > 0;
}

/* A model whose layers are a pattern (model.pattern): each chunk's
 * layers, in its letters, so that a reader sees which kinds each stage
 * holds (block models' chunks say it by their counts alone). */
static void chunk_patterns(FILE *out,
                           const struct model *m,
                           const struct model_partition *part,
                           long shown)
{
    char buf[MODEL_PATTERN_MAX];
    long i;
    if (m->spec.pattern[0] == '\0')
        return;
    fputs("        each chunk's layers (model.pattern):", out);
    for (i = 0; i < shown; i++) {
        const struct model_chunk *c = &part->chunk[i];
        if (!model_units_pattern(m, c->first, c->count, buf, sizeof buf))
            snprintf(buf, sizeof buf, "?");
        fprintf(out, "%s %s%s", i ? " |" : "", buf[0] ? buf : "-",
                c->mtp_units ? " +MTP" : "");
    }
    fprintf(out, "%s\n", shown < part->chunks ? " ..." : "");
}

/* "stages  E+4 4 ... 2+H": layers per pipeline chunk. */
static void stages_text(FILE *out, const struct eval_view *v)
{
    const struct plan *p = &v->r->plan;
    const struct model_partition *part = v->part;
    long i, shown;
    if (p->pp * p->vpp == 1 || !part)
        return;
    shown = part->chunks > 32 ? 32 : part->chunks;
    fputs("        layers per pipeline chunk:", out);
    for (i = 0; i < shown; i++) {
        const struct model_chunk *c = &part->chunk[i];
        fprintf(out, " %s%ld%s", c->has_embedding ? "E+" : "", c->count,
                c->has_head ? "+H" : "");
    }
    fprintf(out, "%s (E embedding, H output head%s)\n",
            shown < part->chunks ? " ..." : "",
            m_has_mtp(v) ? "; the last chunk runs the MTP modules" : "");
    chunk_patterns(out, v->m, part, shown);
    if (v->r->balance_precision != p->precision)
        fprintf(out, "        balanced by FLOPs (the BF16 split): faster "
                     "than the FP8 time balance for this link-bound plan\n");
}

/* Whether the expected step's rank is not the one that sets the plan's
 * speed of light, its own floor then a step of the waterfall (as on the
 * report's, figures_waterfall_of). */
static bool rank_floor_step(const struct eval_view *v)
{
    return cost_result_rank(v->r) != v->r->rank &&
           v->replay->sol != v->r->t.step;
}

/* The expected step and its waterfall from the speed of light. */
/* The expected days with failures and checkpoints, where the hardware
 * file gives a failure rate: from compute to wall-clock days, what each
 * loss costs (goodput.h). */
static void losses_text(FILE *out, const struct eval_view *v)
{
    struct goodput g;
    struct goodput_losses l;
    char words[GOODPUT_LOSSES_TEXT];
    goodput_of(v->m, v->hw, (double)v->r->plan.gpus, &g);
    goodput_losses_of(&g, v->r->t.x_days, &l);
    if (!g.failures || !(l.wall > 0))
        return;
    goodput_losses_words(&l, words, sizeof words);
    fprintf(out,
            "        with failures and checkpoints (%.1f%% effective "
            "training): %s\n",
            100 * g.share, words);
}

static void expected_text(FILE *out, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    const struct cost_times *t = &r->t;
    const double *step = v->replay->step;
    double sol = v->replay->sol, last;
    int k;
    if (!r->work.x.known) {
        fprintf(out, "expected (no calibration or stack for this cluster: "
                     "the speed of light only)\n\n");
        return;
    }
    {
        struct memory rm;
        long xr = cost_result_rank(r);
        memset(&rm, 0, sizeof rm);
        rm.rank = -1;
        if (xr >= 0 && (size_t)xr < v->nrank_mem)
            rm = v->rank_mem[xr];
        fprintf(out,
                "slowest at the expected rates: pipeline rank %ld (%.2f GiB; "
                "at the speed of light rank %ld)\n",
                xr, rm.rank >= 0 ? rm.total / GIB : NAN, r->rank);
    }
    if (v->stack) /* the software generation the figures reflect */
        fprintf(out, "stack: %s; release: %s\n", v->stack->spec.name,
                v->stack->spec.framework_release);
    fprintf(out, "expected step, from the speed of light %24s\n", "s");
    /* the plan's floor, as everywhere; where another rank sets it, the
     * expected step's rank's own floor is the first step (issue 36) */
    row(out, "speed of light (the floor)", t->step);
    if (rank_floor_step(v)) {
        char label[64];
        snprintf(label, sizeof label,
                 "- rank %ld's own floor (rank %ld's is "
                 "the plan's)",
                 cost_result_rank(r), r->rank);
        row(out, label, sol - t->step);
    }
    last = sol;
    for (k = 0; k < EXPECTED_EFFECTS; k++) {
        char label[64];
        if (!expected_effect_shown(&r->work.x, k))
            continue;
        snprintf(label, sizeof label, "+ %s", expected_effect_label(k));
        row(out, label, step[k] - last);
        last = step[k];
    }
    row(out, "expected step", t->expected);
    fprintf(out,
            "        %.0f tokens/s/GPU; MFU %.1f%%; %.1f days, $%.2fM for "
            "the budget (%.2fx the speed of light)\n",
            t->x_tps, 100 * t->x_mfu, t->x_days, t->x_cost / 1e6,
            t->expected / t->step);
    losses_text(out, v);
    if (scenario_known(&v->sc)) {
        char a[32], b[32];
        double lo = v->sc.low / t->expected, hi = v->sc.high / t->expected;
        int s;
        views_sig3(v->sc.low, a, sizeof a);
        views_sig3(v->sc.high, b, sizeof b);
        fprintf(out,
                "        range %s to %s s, %.1f to %.1f days, $%.2fM to "
                "$%.2fM: the span of its scenarios (never below the speed "
                "of light)\n",
                a, b, t->x_days * lo, t->x_days * hi, t->x_cost * lo / 1e6,
                t->x_cost * hi / 1e6);
        for (s = 0; s < SCENARIOS; s++)
            if (v->sc.have & (1u << s))
                fprintf(out, "          %-32s %8.3f s  (%s)\n",
                        scenario_words(s), v->sc.step[s], scenario_source(s));
        if (v->band.all_runs > 0)
            fprintf(out,
                    "          the published runs' band: %zu runs on this "
                    "calibration's group of %zu, %.2f to %.2fx%s\n",
                    v->band.runs, v->band.all_runs, v->band.lo, v->band.hi,
                    v->band.runs ? "" : " (unchecked: wide)");
    }
    fputc('\n', out);
    {
        static const char *const label[COST_PHASES] = {
            "warm-up (forwards before the first backward)",
            "steady (forward and backward paired)",
            "cool-down (backwards after the last forward)",
            "bubble (idle, the other stages' ramps)",
            "optimizer step and exposed step-end DP"};
        const double *ph = v->replay->phases;
        fprintf(out, "phases of the expected step, pipeline rank %ld %9s\n",
                cost_result_rank(r), "s");
        for (k = 0; k < COST_PHASES; k++)
            row(out, label[k], ph[k]);
        fputs("\n", out);
    }
}

/* The plan, its family and chunks, the model's size and FLOPs. */
static void head_text(FILE *out, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    const struct plan *p = &r->plan;
    const struct model *m = v->m;
    const struct hardware *hw = v->hw;
    char plan[256];

    plan_format(p, plan, sizeof plan);
    fprintf(out, "%s on %ld x %s (%s), comm model %s\n", m->spec.name, p->gpus,
            hw->spec.gpu_name, hw->spec.cluster_name, comm_model_str(v->comm));
    fprintf(out, "plan    %s\n", plan);
    fprintf(out,
            "        family %s; dp=%ld, expert dp=%ld, %ld micro-batches "
            "per step\n",
            r->family, p->dp, p->edp, p->microbatches);
    stages_text(out, v);
    fprintf(out,
            "model   %.2f B parameters, %.2f B active per token; %.1f "
            "GFLOP/token (fwd+bwd, causal%s)\n",
            m->params_total / 1e9, m->params_active / 1e9,
            m->flops_per_token / 1e9,
            m->spec.mtp_depth == 0     ? ""
            : m->spec.mtp_count_in_mfu ? ", with MTP"
                                       : ", MTP excluded as MFU counts it");
    if (m->spec.mtp_depth > 0)
        fprintf(out,
                "        %ld MTP module%s: %.2f B parameters, run every "
                "step: %.1f GFLOP/token run\n",
                m->spec.mtp_depth, m->spec.mtp_depth > 1 ? "s" : "",
                m->params_mtp / 1e9, m->flops_per_token_run / 1e9);
    fputc('\n', out);
}

/* The heaviest rank's memory, term by term. */
static void memory_text(FILE *out, const struct cost_result *r)
{
    const struct plan *p = &r->plan;
    const struct memory *mem = &r->mem;
    char label[96];

    fprintf(out, "memory per GPU, pipeline rank %ld (the heaviest) %11s\n",
            mem->rank, "GiB");
    if (mem->fp8_copies > 0)
        snprintf(label, sizeof label, "weights (of which FP8 copies %.2f)",
                 mem->fp8_copies / GIB);
    else
        snprintf(label, sizeof label, "%s",
                 p->zero >= 3 ? "weights (+ gathered layers)" : "weights");
    row(out, label, mem->weights / GIB);
    row(out,
        mem->grads_per_step ? "gradients (reduced once per step)"
                            : "gradients (reduced per micro-batch)",
        mem->grads / GIB);
    row(out, "optimizer state", mem->optimizer / GIB);
    snprintf(label, sizeof label, "activations (logits %.2f, working set %.2f)",
             mem->logits / GIB, mem->working / GIB);
    row(out, label, mem->activations / GIB);
    if (p->offload > 0) {
        snprintf(label, sizeof label,
                 "  on the host instead (offload=%ld layers)", p->offload);
        row(out, label, mem->offloaded / GIB);
    }
    row(out, "other (CUDA context, NCCL, fragmentation)", mem->other / GIB);
    fprintf(out, "  %-46s %8.2f of %.2f: %s\n\n", "total", mem->total / GIB,
            mem->capacity / GIB, r->fits ? "fits" : "DOES NOT FIT");
}

/* The collectives of the slowest rank, with their totals. */
static void comm_text(FILE *out, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    double ib_sum = 0, nv_sum = 0;
    size_t i;

    fprintf(out,
            "communication per GPU per step, pipeline rank %ld (the "
            "slowest%s)\n",
            cost_result_rank(r),
            r->work.x.known ? " at the expected rates" : "");
    fprintf(out, "  %-46s %6s %9s %9s %9s %8s  %-12s %7s\n", "collective",
            "group", "GPUs/node", "IB GB", "NVLink GB", "time s", "algorithm",
            "latency");
    for (i = 0; i < v->ncoll; i++) {
        const struct comm_collective *c = &v->coll[i];
        char span[32];
        ib_sum += c->ib_bytes;
        nv_sum += c->nvlink_bytes;
        double time = c->ib_s, tnv = c->nvlink_s;
        char algo[32];
        span_text(&c->span, span, sizeof span);
        if (tnv > time)
            time = tnv;
        fprintf(out, "  %-46s %6ld %9s %9.1f %9.1f %8.3f  %-12s %6.1f%%\n",
                c->name, c->span.size, span, c->ib_bytes / 1e9,
                c->nvlink_bytes / 1e9, time,
                collectives_pick_name(c->algo.algo, c->algo.proto, algo,
                                      sizeof algo),
                time > 0 ? 100 * c->lat_s / time : 0);
    }
    if (v->ncoll == 0)
        fprintf(out, "  (none: a single GPU)\n");
    /* this rank's (the slowest at the expected rates: maybe not the
     * speed of light's, whose totals are the time terms below) */
    fprintf(out, "  %-46s %6s %9s %9.1f %9.1f\n\n", "total", "", "",
            ib_sum / 1e9, nv_sum / 1e9);
}

/* Every time term of the step at the speed of light. */
static void times_text(FILE *out, const struct cost_result *r)
{
    const struct plan *p = &r->plan;
    const struct cost_times *t = &r->t;
    const struct cost_work *w = &r->work;
    char label[96];

    fprintf(out, "time per step %43s\n", "s");
    snprintf(label, sizeof label, "compute (%.0f TFLOP FP8, %.0f TFLOP BF16)",
             w->fp8_flops / 1e12, w->bf16_flops / 1e12);
    row(out, label, t->compute);
    row(out, "IB", t->ib);
    row(out, "NVLink", t->nvlink);
    row(out, "HBM (weights, gradients, activations, MoE permute)", t->hbm);
    row(out, "  IB with the micro-batches (less step-end DP)", t->ib_steady);
    row(out, "  NVLink with the micro-batches", t->nvlink_steady);
    row(out, "  compute lost to SMs running that comm", t->comm_sm);
    if (p->offload > 0) {
        snprintf(label, sizeof label,
                 "  waiting for offload (%.2f GB per copy)",
                 w->offload_bytes / 1e9);
        row(out, label, t->offload);
    }
    row(out, "overlapped core", t->core);
    row(out, "optimizer step", t->optimizer);
    row(out, "pipeline bubble (ramp unit x coefficient)", t->bubble);
    row(out, "step-end DP sync (gradients), busiest link", t->sync);
    row(out, "step-end DP gather (weights), busiest link", t->gather);
    row(out, "  of which exposed (beyond one micro-batch)", t->dp_exposed);
    row(out, "step, overlapped", t->step);
    row(out, "step, serial (no overlap)", t->step_serial);
    fputc('\n', out);
}

/* The bound, the speed, the budget and the verdict. */
static void verdict_text(FILE *out, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    const struct plan *p = &r->plan;
    const struct model *m = v->m;
    const struct memory *mem = &r->mem;
    const struct cost_times *t = &r->t;
    char verdict[640];

    figures_verdict(r, verdict, sizeof verdict);
    fprintf(out,
            "bound   %s; comm/compute %.2f; MoE all-to-all/compute %.2f "
            "(all pipeline ranks)\n",
            cost_bound_str(t->bound), t->comm_compute_ratio, r->ep_ratio);
    if (p->precision == MODEL_FP8)
        fprintf(out,
                "speed   %.0f tokens/s/GPU; MFU %.1f%% (FP8 GEMMs at the FP8 "
                "peak, the rest at BF16's; %.1f%% of the BF16 peak, "
                "DeepSeek's convention); %.0fK GPU-hours per trillion "
                "tokens\n",
                t->tokens_per_s_per_gpu, 100 * t->mfu, 100 * t->mfu_bf16_peak,
                t->gpu_hours_per_trillion / 1e3);
    else
        fprintf(out,
                "speed   %.0f tokens/s/GPU; MFU %.1f%% of BF16 peak; %.0fK "
                "GPU-hours per trillion tokens\n",
                t->tokens_per_s_per_gpu, 100 * t->mfu,
                t->gpu_hours_per_trillion / 1e3);
    fprintf(out,
            "budget  %.3g tokens: %.1f days on %ld GPUs, %.2fM GPU-hours, "
            "$%.2fM\n",
            m->spec.tokens, t->days, p->gpus,
            t->days * 24 * (double)p->gpus / 1e6, t->cost_usd / 1e6);
    fprintf(out, "verdict %s; %s (%.1f of %.1f GiB)\n", verdict,
            r->fits ? "fits in memory" : "does NOT fit in memory",
            mem->total / GIB, mem->capacity / GIB);
}

void eval_out_text(FILE *out, const struct eval_view *v)
{
    head_text(out, v);
    memory_text(out, v->r);
    ranks_text(out, v);
    comm_text(out, v);
    times_text(out, v->r);
    expected_text(out, v);
    verdict_text(out, v);
}

void eval_out_json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(out, "\\%c", c);
        else if (c == '\n')
            fputs("\\n", out);
        else if (c == '\t')
            fputs("\\t", out);
        else if (c < 0x20)
            fprintf(out, "\\u%04x", c);
        else
            fputc(c, out);
    }
    fputc('"', out);
}

/* ---- JSON ---- */

#define JSON_DEPTH 8 /* nested objects and arrays */

/* A JSON document being written: at each depth, whether a member was
 * written there (the next one takes a comma). */
struct json {
    FILE *out;
    int depth;
    bool more[JSON_DEPTH];
};

/* Starts a member: its comma and its key ("key":), none in an array
 * (key NULL). */
static void json_key(struct json *j, const char *key)
{
    if (j->more[j->depth])
        fputc(',', j->out);
    j->more[j->depth] = true;
    if (key)
        fprintf(j->out, "\"%s\":", key);
}

/* Opens an object ('{') or array ('[') as member key. */
static void json_open(struct json *j, const char *key, char bracket)
{
    json_key(j, key);
    fputc(bracket, j->out);
    assert(j->depth + 1 < JSON_DEPTH);
    j->more[++j->depth] = false;
}

static void json_close(struct json *j, char bracket)
{
    fputc(bracket, j->out);
    j->depth--;
}

/* A number; one that is not finite (e.g. days at a bandwidth of almost
 * 0) is null, since JSON has no inf. */
static void json_num(struct json *j, const char *key, double v)
{
    json_key(j, key);
    if (isfinite(v))
        fprintf(j->out, "%.17g", v);
    else
        fputs("null", j->out);
}

/* A string (escaped); NULL: null. */
static void json_str(struct json *j, const char *key, const char *s)
{
    json_key(j, key);
    if (s)
        eval_out_json_string(j->out, s);
    else
        fputs("null", j->out);
}

static void json_bool(struct json *j, const char *key, bool b)
{
    json_key(j, key);
    fputs(b ? "true" : "false", j->out);
}

static void json_plan(struct json *j, const struct plan *p)
{
    char layout[64];
    plan_layout_format(p, layout, sizeof layout);
    json_open(j, "plan", '{');
    json_num(j, "gpus", (double)p->gpus);
    json_num(j, "dp", (double)p->dp);
    json_num(j, "tp", (double)p->tp);
    json_num(j, "pp", (double)p->pp);
    json_num(j, "ep", (double)p->ep);
    json_num(j, "cp", (double)p->cp);
    json_num(j, "edp", (double)p->edp);
    json_num(j, "zero", (double)p->zero);
    json_str(j, "schedule", plan_schedule_str(p->schedule));
    json_num(j, "vpp", (double)p->vpp);
    json_str(j, "precision", plan_precision_str(p->precision));
    json_str(j, "recompute", plan_recompute_str(p->recompute));
    json_num(j, "sp", p->no_sp ? 0 : 1);
    json_num(j, "pp_first", (double)p->pp_first);
    json_num(j, "pp_last", (double)p->pp_last);
    json_str(j, "pp_split", plan_split_str(p->pp_split));
    json_str(j, "pp_layout", layout[0] ? layout : NULL);
    json_num(j, "mbs", (double)p->mbs);
    json_num(j, "gbs", (double)p->gbs);
    json_num(j, "offload", (double)p->offload);
    json_num(j, "microbatches", (double)p->microbatches);
    json_close(j, '}');
}

static const char *reduced(bool per_step)
{
    return per_step ? "per_step" : "per_microbatch";
}

/* The heaviest rank's memory, then every pipeline rank's. */
static void json_memory(struct json *j, const struct eval_view *v)
{
    const struct memory *mem = &v->r->mem;
    long k;
    json_open(j, "memory_gib", '{');
    json_num(j, "weights", mem->weights / GIB);
    json_num(j, "grads", mem->grads / GIB);
    json_num(j, "optimizer", mem->optimizer / GIB);
    json_num(j, "activations", mem->activations / GIB);
    json_num(j, "logits", mem->logits / GIB);
    json_num(j, "backward_working_set", mem->working / GIB);
    json_num(j, "fp8_copies", mem->fp8_copies / GIB);
    json_num(j, "offloaded", mem->offloaded / GIB);
    json_num(j, "other", mem->other / GIB);
    json_num(j, "total", mem->total / GIB);
    json_num(j, "capacity", mem->capacity / GIB);
    json_num(j, "rank", (double)mem->rank);
    json_close(j, '}');
    json_open(j, "memory_by_rank", '[');
    for (k = 0; k < v->r->plan.pp; k++) {
        struct memory rm;
        if ((size_t)k >= v->nrank_mem || v->rank_mem[k].rank < 0)
            break;
        rm = v->rank_mem[k];
        json_open(j, NULL, '{');
        json_num(j, "rank", (double)k);
        json_num(j, "weights", rm.weights / GIB);
        json_num(j, "grads", rm.grads / GIB);
        json_num(j, "optimizer", rm.optimizer / GIB);
        json_num(j, "activations", rm.activations / GIB);
        json_num(j, "other", rm.other / GIB);
        json_num(j, "total", rm.total / GIB);
        json_str(j, "grads_reduced", reduced(rm.grads_per_step));
        json_close(j, '}');
    }
    json_close(j, ']');
}

/* The bytes and FLOPs one GPU moves and runs per step. */
static void json_work(struct json *j, const struct cost_work *w)
{
    json_open(j, "bytes_per_gpu", '{');
    json_num(j, "ib", w->ib_bytes);
    json_num(j, "nvlink", w->nvlink_bytes);
    json_num(j, "hbm", w->hbm_bytes);
    json_num(j, "hbm_moe_permute", w->permute_bytes);
    json_num(j, "offload_per_microbatch", w->offload_bytes);
    json_num(j, "optimizer", w->optimizer_bytes);
    json_close(j, '}');
    json_open(j, "flops_per_gpu", '{');
    json_num(j, "fp8", w->fp8_flops);
    json_num(j, "bf16", w->bf16_flops);
    json_num(j, "model", w->model_flops);
    json_close(j, '}');
}

/* Every time term; the expected step, its range and its phases are null
 * without a calibration and a stack. */
static void json_times(struct json *j, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    const struct cost_times *t = &r->t;
    bool x = r->work.x.known;
    int ip;
    json_open(j, "time_s", '{');
    json_num(j, "compute", t->compute);
    json_num(j, "ib", t->ib);
    json_num(j, "nvlink", t->nvlink);
    json_num(j, "hbm", t->hbm);
    json_num(j, "optimizer", t->optimizer);
    json_num(j, "sync", t->sync);
    json_num(j, "gather", t->gather);
    json_num(j, "ib_steady", t->ib_steady);
    json_num(j, "nvlink_steady", t->nvlink_steady);
    json_num(j, "comm_sm", t->comm_sm);
    json_num(j, "offload", t->offload);
    json_num(j, "offload_expected", x ? t->x_offload : NAN);
    json_num(j, "core", t->core);
    json_num(j, "ramp", t->ramp);
    json_num(j, "bubble", t->bubble);
    json_num(j, "dp_exposed", t->dp_exposed);
    json_num(j, "ep_all_to_all", t->ep);
    json_num(j, "step", t->step);
    json_num(j, "step_serial", t->step_serial);
    json_num(j, "expected", x ? t->expected : NAN);
    /* its range: the span of its scenarios, each by name */
    json_num(j, "expected_low", scenario_known(&v->sc) ? v->sc.low : NAN);
    json_num(j, "expected_high", scenario_known(&v->sc) ? v->sc.high : NAN);
    if (scenario_known(&v->sc)) {
        json_open(j, "scenarios", '{');
        for (ip = 0; ip < SCENARIOS; ip++)
            if (v->sc.have & (1u << ip))
                json_num(j, scenario_key(ip), v->sc.step[ip]);
        json_close(j, '}');
    } else {
        json_str(j, "scenarios", NULL);
    }
    /* the published runs' band on this calibration's group */
    json_num(j, "band_runs", (double)v->band.runs);
    json_num(j, "band_low", v->band.all_runs ? v->band.lo : NAN);
    json_num(j, "band_high", v->band.all_runs ? v->band.hi : NAN);
    /* its phases on the critical rank, summing to it (cost_phases) */
    if (x) {
        json_open(j, "phases", '{');
        for (ip = 0; ip < COST_PHASES; ip++)
            json_num(j, cost_phase_str(ip), v->replay->phases[ip]);
        json_close(j, '}');
    } else {
        json_str(j, "phases", NULL);
    }
    json_close(j, '}');
}

/* The expected step effect by effect from the speed of light. */
static void json_waterfall(struct json *j, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    double last = v->replay->sol;
    int e;
    json_open(j, "waterfall", '[');
    if (r->work.x.known) {
        json_open(j, NULL, '{');
        json_str(j, "effect", "speed of light");
        json_num(j, "seconds", r->t.step);
        json_num(j, "rank", (double)r->rank);
        json_close(j, '}');
        if (rank_floor_step(v)) { /* the expected step's rank's own */
            json_open(j, NULL, '{');
            json_str(j, "effect", "critical rank's own floor");
            json_num(j, "seconds", v->replay->sol - r->t.step);
            json_num(j, "rank", (double)cost_result_rank(r));
            json_close(j, '}');
        }
        for (e = 0; e < EXPECTED_EFFECTS; e++) {
            if (!expected_effect_shown(&r->work.x, e))
                continue;
            json_open(j, NULL, '{');
            json_str(j, "effect", expected_effect_label(e));
            json_num(j, "seconds", v->replay->step[e] - last);
            json_close(j, '}');
            last = v->replay->step[e];
        }
    }
    json_close(j, ']');
}

/* The bound, the ratios and what the plan costs, at the speed of light
 * and at the expected step (null without one). */
static void json_figures(struct json *j, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    const struct stack *st = v->stack;
    const struct cost_times *t = &r->t;
    bool x = r->work.x.known;
    json_str(j, "bound", cost_bound_str(t->bound));
    json_num(j, "critical_rank", (double)r->rank);
    json_num(j, "expected_rank", x ? (double)cost_result_rank(r) : NAN);
    json_num(j, "comm_compute_ratio", t->comm_compute_ratio);
    json_num(j, "ep_compute_ratio", r->ep_ratio);
    json_num(j, "tokens_per_s_per_gpu", t->tokens_per_s_per_gpu);
    json_num(j, "mfu", t->mfu);
    json_num(j, "mfu_bf16_peak", t->mfu_bf16_peak);
    json_num(j, "gpu_hours_per_trillion_tokens", t->gpu_hours_per_trillion);
    json_num(j, "days", t->days);
    json_num(j, "cost_usd", t->cost_usd);
    json_open(j, "expected", '{');
    json_num(j, "step_s", x ? t->expected : NAN);
    json_num(j, "tokens_per_s_per_gpu", x ? t->x_tps : NAN);
    json_num(j, "mfu", x ? t->x_mfu : NAN);
    json_num(j, "mfu_bf16_peak",
             x ? t->mfu_bf16_peak * t->step / t->expected : NAN);
    json_num(j, "days", x ? t->x_days : NAN);
    json_num(j, "cost_usd", x ? t->x_cost : NAN);
    /* the software generation its stack reflects */
    json_str(j, "stack", st ? st->spec.name : NULL);
    json_str(j, "framework_release", st ? st->spec.framework_release : NULL);
    json_close(j, '}');
}

/* A collective's pick: "algorithm", "protocol" (null where the library
 * picks none: DeepEP's kernels), its share of the link's rate, its time
 * and its latency's (s) and the latency's share of that time. */
static void json_collective_pick(struct json *j,
                                 const struct comm_collective *c)
{
    double time = c->ib_s > c->nvlink_s ? c->ib_s : c->nvlink_s;
    json_str(j, "algorithm",
             c->algo.proto < 0  ? "DeepEP"
             : c->algo.algo < 0 ? "P2P"
                                : collectives_algo_label(c->algo.algo));
    json_str(j, "protocol",
             c->algo.proto < 0 ? NULL : collectives_proto_label(c->algo.proto));
    json_num(j, "bandwidth_share", c->algo.share);
    json_num(j, "time_s", time);
    json_num(j, "latency_s", c->lat_s);
    json_num(j, "latency_share", time > 0 ? c->lat_s / time : 0);
}

static void json_collectives(struct json *j, const struct eval_view *v)
{
    size_t i;
    json_open(j, "collectives", '[');
    for (i = 0; i < v->ncoll; i++) {
        const struct comm_collective *c = &v->coll[i];
        json_open(j, NULL, '{');
        json_str(j, "name", c->name);
        json_str(j, "kind", comm_kind_str(c->kind));
        json_num(j, "group", (double)c->span.size);
        json_num(j, "gpus_per_node", (double)c->span.per_node);
        json_num(j, "nodes", (double)c->span.nodes);
        json_num(j, "calls", c->calls);
        json_num(j, "bytes", c->bytes);
        json_num(j, "ib_bytes", c->ib_bytes);
        json_num(j, "nvlink_bytes", c->nvlink_bytes);
        json_collective_pick(j, c);
        json_close(j, '}');
    }
    json_close(j, ']');
}

/* A model whose layers are a pattern: "chunk_patterns", each pipeline
 * chunk's layers in pattern letters (what the text's "each chunk's
 * layers" line shows); nothing for a model of blocks. */
static void json_chunk_patterns(struct json *j, const struct eval_view *v)
{
    char buf[MODEL_PATTERN_MAX];
    long i;
    if (v->m->spec.pattern[0] == '\0' || !v->part)
        return;
    json_open(j, "chunk_patterns", '[');
    for (i = 0; i < v->part->chunks; i++) {
        const struct model_chunk *c = &v->part->chunk[i];
        if (!model_units_pattern(v->m, c->first, c->count, buf, sizeof buf))
            buf[0] = '\0';
        json_open(j, NULL, '{');
        json_num(j, "chunk", (double)i);
        json_num(j, "layers", (double)(c->count - c->mtp_units));
        json_num(j, "mtp_modules", (double)c->mtp_units);
        json_str(j, "pattern", buf);
        json_close(j, '}');
    }
    json_close(j, ']');
}

void eval_out_json(FILE *out, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    const struct model *m = v->m;
    struct json j = {.out = out};

    json_open(&j, NULL, '{');
    json_plan(&j, &r->plan);
    json_str(&j, "family", r->family);
    json_str(&j, "model", m->spec.name);
    json_str(&j, "cluster", v->hw->spec.cluster_name);
    json_str(&j, "comm_model", comm_model_str(v->comm));
    json_open(&j, "params", '{');
    json_num(&j, "total", m->params_total);
    json_num(&j, "active", m->params_active);
    json_num(&j, "mtp", m->params_mtp);
    json_close(&j, '}');
    json_num(&j, "flops_per_token", m->flops_per_token);
    json_num(&j, "flops_per_token_run", m->flops_per_token_run);
    json_memory(&j, v);
    json_str(&j, "grads_reduced", reduced(r->grads_per_step));
    json_str(&j, "stages_balanced_by",
             r->balance_precision == r->plan.precision ? "time" : "flops");
    json_chunk_patterns(&j, v);
    json_bool(&j, "fits", r->fits);
    json_work(&j, &r->work);
    json_times(&j, v);
    json_waterfall(&j, v);
    json_figures(&j, v);
    json_collectives(&j, v);
    json_close(&j, '}');
    fputc('\n', out);
}
