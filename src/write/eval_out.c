/*
 * eval_out: text and JSON renderings of one evaluated plan.
 */
#include "eval_out.h"

#include <math.h>
#include <string.h>

#include "collectives.h"
#include "figures.h"
#include "report.h"

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
    return v->ctx->m->spec.mtp_depth > 0;
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
    if (v->r->balance_precision != p->precision)
        fprintf(out, "        balanced by FLOPs (the BF16 split): faster "
                     "than the FP8 time balance for this link-bound plan\n");
}

/* The expected step and its waterfall from the speed of light. */
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
    fprintf(out, "expected step, from the speed of light %24s\n", "s");
    if (cost_result_rank(r) == r->rank) {
        row(out, "speed of light (the floor)", sol);
    } else { /* the floor is another rank's: this rank's at the floor */
        char label[64];
        snprintf(label, sizeof label, "speed of light of rank %ld",
                 cost_result_rank(r));
        row(out, label, sol);
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
    if (v->range.n > 0) {
        char a[32], b[32], c[32], e[32], f[32], g[32];
        report_sig3(t->expected * v->range.lo, a, sizeof a);
        report_sig3(t->expected * v->range.hi, b, sizeof b);
        report_sig3(t->x_days * v->range.lo, c, sizeof c);
        report_sig3(t->x_days * v->range.hi, e, sizeof e);
        report_sig3(t->x_cost * v->range.lo / 1e6, f, sizeof f);
        report_sig3(t->x_cost * v->range.hi / 1e6, g, sizeof g);
        fprintf(out,
                "        range %s to %s s, %s to %s days, $%sM to $%sM (the "
                "%zu validation runs took %.2f to %.2fx their expected "
                "step)\n",
                a, b, c, e, f, g, v->range.n, v->range.lo, v->range.hi);
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

void eval_out_text(FILE *out, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    const struct plan *p = &r->plan;
    const struct model *m = v->ctx->m;
    const struct hardware *hw = v->ctx->hw;
    const struct memory *mem = &r->mem;
    const struct cost_times *t = &r->t;
    const struct cost_work *w = &r->work;
    char plan[256], verdict[640], label[96];
    double ib_sum = 0, nv_sum = 0;
    size_t i;

    plan_format(p, plan, sizeof plan);
    figures_verdict(r, verdict, sizeof verdict);
    fprintf(out, "%s on %ld x %s (%s), comm model %s\n", m->spec.name, p->gpus,
            hw->spec.gpu_name, hw->spec.cluster_name,
            comm_model_str(v->ctx->comm));
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

    ranks_text(out, v);
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
    expected_text(out, v);

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

/* A JSON member; a value that is not finite (e.g. days at a bandwidth
 * of almost 0) is null, since JSON has no inf. */
static void num(FILE *out, const char *key, double v, bool comma)
{
    if (isfinite(v))
        fprintf(out, "\"%s\":%.17g%s", key, v, comma ? "," : "");
    else
        fprintf(out, "\"%s\":null%s", key, comma ? "," : "");
}

/* A collective's pick: "algorithm", "protocol" (null where the library
 * picks none: DeepEP's kernels), its share of the link's rate, its time
 * and its latency's (s) and the latency's share of that time. */
static void collective_pick_json(FILE *out, const struct comm_collective *c)
{
    double time = c->ib_s > c->nvlink_s ? c->ib_s : c->nvlink_s;
    fprintf(out, "\"algorithm\":\"%s\",",
            c->algo.proto < 0  ? "DeepEP"
            : c->algo.algo < 0 ? "P2P"
                               : collectives_algo_label(c->algo.algo));
    if (c->algo.proto < 0)
        fputs("\"protocol\":null,", out);
    else
        fprintf(out, "\"protocol\":\"%s\",",
                collectives_proto_label(c->algo.proto));
    num(out, "bandwidth_share", c->algo.share, true);
    num(out, "time_s", time, true);
    num(out, "latency_s", c->lat_s, true);
    num(out, "latency_share", time > 0 ? c->lat_s / time : 0, false);
}

void eval_out_json(FILE *out, const struct eval_view *v)
{
    const struct cost_result *r = v->r;
    const struct plan *p = &r->plan;
    const struct model *m = v->ctx->m;
    const struct hardware *hw = v->ctx->hw;
    const struct memory *mem = &r->mem;
    const struct cost_times *t = &r->t;
    const struct cost_work *w = &r->work;
    size_t i;
    long k;
    char layout[64];

    fputs("{\"plan\":{", out);
    num(out, "gpus", (double)p->gpus, true);
    num(out, "dp", (double)p->dp, true);
    num(out, "tp", (double)p->tp, true);
    num(out, "pp", (double)p->pp, true);
    num(out, "ep", (double)p->ep, true);
    num(out, "cp", (double)p->cp, true);
    num(out, "edp", (double)p->edp, true);
    num(out, "zero", (double)p->zero, true);
    fprintf(out, "\"schedule\":\"%s\",", plan_schedule_str(p->schedule));
    num(out, "vpp", (double)p->vpp, true);
    fprintf(out, "\"precision\":\"%s\",", plan_precision_str(p->precision));
    fprintf(out, "\"recompute\":\"%s\",", plan_recompute_str(p->recompute));
    num(out, "sp", p->no_sp ? 0 : 1, true);
    num(out, "pp_first", (double)p->pp_first, true);
    num(out, "pp_last", (double)p->pp_last, true);
    fprintf(out, "\"pp_split\":\"%s\",", plan_split_str(p->pp_split));
    plan_layout_format(p, layout, sizeof layout);
    fputs("\"pp_layout\":", out);
    if (layout[0])
        eval_out_json_string(out, layout);
    else
        fputs("null", out);
    fputc(',', out);
    num(out, "mbs", (double)p->mbs, true);
    num(out, "gbs", (double)p->gbs, true);
    num(out, "offload", (double)p->offload, true);
    num(out, "microbatches", (double)p->microbatches, false);
    fputs("},\"family\":", out);
    eval_out_json_string(out, r->family);
    fputs(",\"model\":", out);
    eval_out_json_string(out, m->spec.name);
    fputs(",\"cluster\":", out);
    eval_out_json_string(out, hw->spec.cluster_name);
    fprintf(out, ",\"comm_model\":\"%s\",", comm_model_str(v->ctx->comm));
    fputs("\"params\":{", out);
    num(out, "total", m->params_total, true);
    num(out, "active", m->params_active, true);
    num(out, "mtp", m->params_mtp, false);
    fputs("},", out);
    num(out, "flops_per_token", m->flops_per_token, true);
    num(out, "flops_per_token_run", m->flops_per_token_run, true);
    fputs("\"memory_gib\":{", out);
    num(out, "weights", mem->weights / GIB, true);
    num(out, "grads", mem->grads / GIB, true);
    num(out, "optimizer", mem->optimizer / GIB, true);
    num(out, "activations", mem->activations / GIB, true);
    num(out, "logits", mem->logits / GIB, true);
    num(out, "backward_working_set", mem->working / GIB, true);
    num(out, "fp8_copies", mem->fp8_copies / GIB, true);
    num(out, "offloaded", mem->offloaded / GIB, true);
    num(out, "other", mem->other / GIB, true);
    num(out, "total", mem->total / GIB, true);
    num(out, "capacity", mem->capacity / GIB, true);
    num(out, "rank", (double)mem->rank, false);
    fprintf(out, "},\"memory_by_rank\":[");
    for (k = 0; k < p->pp; k++) {
        struct memory rm;
        if ((size_t)k >= v->nrank_mem || v->rank_mem[k].rank < 0)
            break;
        rm = v->rank_mem[k];
        fputs(k ? ",{" : "{", out);
        num(out, "rank", (double)k, true);
        num(out, "weights", rm.weights / GIB, true);
        num(out, "grads", rm.grads / GIB, true);
        num(out, "optimizer", rm.optimizer / GIB, true);
        num(out, "activations", rm.activations / GIB, true);
        num(out, "other", rm.other / GIB, true);
        num(out, "total", rm.total / GIB, false);
        fprintf(out, ",\"grads_reduced\":\"%s\"}",
                rm.grads_per_step ? "per_step" : "per_microbatch");
    }
    fprintf(out, "],\"grads_reduced\":\"%s\",",
            r->grads_per_step ? "per_step" : "per_microbatch");
    fprintf(out, "\"stages_balanced_by\":\"%s\",",
            r->balance_precision == p->precision ? "time" : "flops");
    fprintf(out, "\"fits\":%s,", r->fits ? "true" : "false");
    fputs("\"bytes_per_gpu\":{", out);
    num(out, "ib", w->ib_bytes, true);
    num(out, "nvlink", w->nvlink_bytes, true);
    num(out, "hbm", w->hbm_bytes, true);
    num(out, "hbm_moe_permute", w->permute_bytes, true);
    num(out, "offload_per_microbatch", w->offload_bytes, true);
    num(out, "optimizer", w->optimizer_bytes, false);
    fputs("},\"flops_per_gpu\":{", out);
    num(out, "fp8", w->fp8_flops, true);
    num(out, "bf16", w->bf16_flops, true);
    num(out, "model", w->model_flops, false);
    fputs("},\"time_s\":{", out);
    num(out, "compute", t->compute, true);
    num(out, "ib", t->ib, true);
    num(out, "nvlink", t->nvlink, true);
    num(out, "hbm", t->hbm, true);
    num(out, "optimizer", t->optimizer, true);
    num(out, "sync", t->sync, true);
    num(out, "gather", t->gather, true);
    num(out, "ib_steady", t->ib_steady, true);
    num(out, "nvlink_steady", t->nvlink_steady, true);
    num(out, "comm_sm", t->comm_sm, true);
    num(out, "offload", t->offload, true);
    num(out, "offload_expected", r->work.x.known ? t->x_offload : NAN, true);
    num(out, "core", t->core, true);
    num(out, "ramp", t->ramp, true);
    num(out, "bubble", t->bubble, true);
    num(out, "dp_exposed", t->dp_exposed, true);
    num(out, "ep_all_to_all", t->ep, true);
    num(out, "step", t->step, true);
    num(out, "step_serial", t->step_serial, true);
    /* the expected step: null without a calibration and a stack */
    num(out, "expected", r->work.x.known ? t->expected : NAN, true);
    /* its range: the validation runs' spread of measured over expected */
    num(out, "expected_low",
        r->work.x.known && v->range.n ? t->expected * v->range.lo : NAN, true);
    num(out, "expected_high",
        r->work.x.known && v->range.n ? t->expected * v->range.hi : NAN, true);
    /* its phases on the critical rank, summing to it (cost_phases) */
    if (r->work.x.known) {
        const double *ph = v->replay->phases;
        int ip;
        fputs("\"phases\":{", out);
        for (ip = 0; ip < COST_PHASES; ip++)
            num(out, cost_phase_str(ip), ph[ip], ip + 1 < COST_PHASES);
        fputs("}", out);
    } else {
        fputs("\"phases\":null", out);
    }
    fputs("},\"waterfall\":[", out);
    if (r->work.x.known) {
        const double *step = v->replay->step;
        double sol = v->replay->sol, last;
        int e;
        fprintf(out,
                "{\"effect\":\"speed of light\",\"seconds\":%.17g,"
                "\"rank\":%ld}",
                sol, cost_result_rank(r));
        last = sol;
        for (e = 0; e < EXPECTED_EFFECTS; e++) {
            if (!expected_effect_shown(&r->work.x, e))
                continue;
            fprintf(out, ",{\"effect\":\"%s\",\"seconds\":%.17g}",
                    expected_effect_label(e), step[e] - last);
            last = step[e];
        }
    }
    fprintf(out, "],\"bound\":\"%s\",", cost_bound_str(t->bound));
    num(out, "critical_rank", (double)r->rank, true);
    /* the rank the expected step is of (null without one) */
    num(out, "expected_rank",
        r->work.x.known ? (double)cost_result_rank(r) : NAN, true);
    num(out, "comm_compute_ratio", t->comm_compute_ratio, true);
    num(out, "ep_compute_ratio", r->ep_ratio, true);
    num(out, "tokens_per_s_per_gpu", t->tokens_per_s_per_gpu, true);
    num(out, "mfu", t->mfu, true);
    num(out, "mfu_bf16_peak", t->mfu_bf16_peak, true);
    num(out, "gpu_hours_per_trillion_tokens", t->gpu_hours_per_trillion, true);
    num(out, "days", t->days, true);
    num(out, "cost_usd", t->cost_usd, true);
    /* the same figures at the expected step: null without one */
    fputs("\"expected\":{", out);
    {
        bool x = r->work.x.known;
        num(out, "step_s", x ? t->expected : NAN, true);
        num(out, "tokens_per_s_per_gpu", x ? t->x_tps : NAN, true);
        num(out, "mfu", x ? t->x_mfu : NAN, true);
        num(out, "mfu_bf16_peak",
            x ? t->mfu_bf16_peak * t->step / t->expected : NAN, true);
        num(out, "days", x ? t->x_days : NAN, true);
        num(out, "cost_usd", x ? t->x_cost : NAN, false);
    }
    fputs("},\"collectives\":[", out);
    for (i = 0; i < v->ncoll; i++) {
        const struct comm_collective *c = &v->coll[i];
        fputs(i ? ",{\"name\":" : "{\"name\":", out);
        eval_out_json_string(out, c->name);
        fprintf(out, ",\"kind\":\"%s\",", comm_kind_str(c->kind));
        num(out, "group", (double)c->span.size, true);
        num(out, "gpus_per_node", (double)c->span.per_node, true);
        num(out, "nodes", (double)c->span.nodes, true);
        num(out, "calls", c->calls, true);
        num(out, "bytes", c->bytes, true);
        num(out, "ib_bytes", c->ib_bytes, true);
        num(out, "nvlink_bytes", c->nvlink_bytes, true);
        collective_pick_json(out, c);
        fputc('}', out);
    }
    fputs("]}\n", out);
}
