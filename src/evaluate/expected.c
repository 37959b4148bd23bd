/*
 * expected: the expected step's work and its waterfall (see expected.h).
 *
 * Rules, each an assumption stated where it is used:
 * - GEMM rows: a GEMM's M is the tokens one GPU holds per micro-batch
 *   (mbs x seq / (tp cp)); a routed expert's is the tokens its GPU's
 *   experts receive, ep x that x top_k / routed experts (balanced
 *   routing). Tensor parallelism splits N, not M; its GEMMs are taken at
 *   the M of the FLOPs they do (M / tp rows of the full width), the same
 *   FLOPs at a rate measured for full-width GEMMs.
 * - A rate is never above the roofline of a small GEMM: 2 M FLOPs per
 *   weight byte at the measured copy bandwidth (weights dominate the
 *   bytes when M is small), nor above the datasheet peak.
 * - An FP8 recipe with fine-grained scales runs its FP8 GEMMs at the
 *   calibration's factor for its granularity (fp8.scaling = row, block;
 *   fine: the fine-grained factor) of the table rate.
 * - Backward GEMMs run at their forward class's rate (calibration.h);
 *   recomputed forward work at the rank's mean GEMM rate.
 * - Attention: the forward at the forward rate, the backward (the
 *   calibration's FLOP convention: bwd_ratio x forward) at the backward
 *   rate, for the model's real head widths (calibration_attention_s: an
 *   MLA kernel's QK^T at its q/k width's rate, PV at its v width's, unless
 *   the calibration measured that very kernel).
 * - Elementwise work moves its forward's bytes three times in a step
 *   (forward, and about twice that in backward), a fourth time where a
 *   full recomputation reruns the layers' forward (not the loss's); each kind
 * at its measured bandwidth; MoE permute/unpermute (the speed of light's HBM
 *   bytes) at the copy rate; the router twice its measured forward time
 *   per MoE layer and micro-batch.
 * - Network efficiency: a collective's message of b bytes per call runs
 *   at busbw(b) / busbw(largest measured) of the link's achievable rate,
 *   from the calibration's nccl-tests curve for its kind (efficiency 1
 *   where no curve is measured), and over IB at NCCL's share of the
 *   hardware's IB rate (calibration_nccl_ib_share; not DeepEP's kernels).
 * - What the stack overlaps: EP dispatch and combine under DualPipe's
 *   paired chunks (dualpipe, a schedule whose row pairs forward and
 *   backward chunks: paired_fb) or combined 1F1B (any schedule); TP with
 *   tp_comm_overlap; pipeline sends as stack_p2p_hidden says (interleaved:
 *   a schedule of virtual stages, its row's vpp); context-parallel keys
 *   and values with their attention (ring attention overlaps by
 *   construction); per-micro-batch DP (ZeRO-2/3) with dp_grad_overlap;
 *   the step-end sync and gather with one micro-batch's compute when
 *   dp_grad_overlap / dp_param_overlap.
 * - The sustained clock: the calibration's sustained/burst factor on the
 *   compute-bound kernels, in proportion to their share of the kernels'
 *   time and to the step's compute beyond the burst window (terms.c
 *   f_compute says why).
 * - Host work: without CUDA graphs the host spends the stack's
 *   host_us_per_kernel on each of kernels_per_layer kernels per layer and
 *   micro-batch (with graphs: one launch of the forward's graph and one of
 *   the backward's, as Megatron-LM's DeepSeek-V3 GB200 write-up captures
 *   them, L x M x 2 graphs). Launches are asynchronous: the host runs
 *   ahead of the GPU and the GPU waits only where the host's time for a
 *   stretch of kernels is longer than the kernels' own (a layer's: MoE
 *   layers sync host and device per layer for the tokens per expert, the
 *   write-up's "device-host sync"). For layers alike, the sum over layers
 *   of max(host, GPU) is max(host, GPU) of the rank: the compute term
 *   takes the larger of the kernels' time and host_s (terms.c). Where the
 *   framework syncs host and device inside the layer (the stack's
 *   host_sync_share > 0: Megatron's MoE router, dispatcher, permutation
 *   and grouped MLP), the queue the host built under the GEMMs is gone
 *   after each sync, and the short kernels between them run as fast as
 *   the host launches them: that share of the host's time (host_paced_s)
 *   takes the elementwise work's place beside the GEMMs and attention
 *   where it is longer. A grouped GEMM that runs one expert at a time
 *   (the stack's expert_host_us: Transformer Engine's per-expert path)
 *   adds the host's work per local expert in each MoE layer
 *   (expert_host_s), after the layer's read of the token counts: all of
 *   it paced, and part of the host's whole time (terms.c).
 * - Dropless routing (the stack's moe_load_cv > 0): each MoE layer's
 *   routed experts run on the tokens their EP rank received, and the
 *   layer's combine waits for the most loaded rank, so the routed
 *   experts' GEMMs, the permutes and the dispatch and combine all-to-all
 *   take the most loaded rank's tokens, expected_load_factor x the mean
 *   (balanced routing: the mean); the all-to-all on each link the load
 *   its busiest receiver sees (ep_link_loads). The router, shared experts and
 * the experts' activation function are left at the mean (an activation's share
 * of the expert work is not split out of the elementwise rows). The speed of
 * light keeps the mean: a floor for any routing.
 * - The stack's free factors (stack.h) come last in the waterfall: what a
 *   fit to a measured run adds on top of every measured effect.
 */
#include "expected.h"

#include <math.h>
#include <string.h>

#include "cost.h"
#include "terms.h"

enum calibration_gemm expected_gemm_class(int g)
{
    switch (g) {
    case MODEL_GEMM_DENSE_UP:
        return CALIBRATION_GEMM_DENSE_UP;
    case MODEL_GEMM_DENSE_DOWN:
        return CALIBRATION_GEMM_DENSE_DOWN;
    case MODEL_GEMM_EXPERT_UP:
    case MODEL_GEMM_SHARED_UP:
        return CALIBRATION_GEMM_EXPERT_UP;
    case MODEL_GEMM_EXPERT_DOWN:
    case MODEL_GEMM_SHARED_DOWN:
        return CALIBRATION_GEMM_EXPERT_DOWN;
    case MODEL_GEMM_HEAD:
        return CALIBRATION_GEMM_HEAD;
    default: /* attention projections and the router's logits */
        return CALIBRATION_GEMM_ATTN_PROJ;
    }
}

bool expected_gemm_fp8(const struct model_spec *s, int g)
{
    switch (g) {
    case MODEL_GEMM_ATTN:
        return s->fp8_attention_proj;
    case MODEL_GEMM_DENSE_UP:
    case MODEL_GEMM_DENSE_DOWN:
        return s->fp8_ffn;
    case MODEL_GEMM_ROUTER:
        return s->fp8_router;
    case MODEL_GEMM_HEAD:
        return s->fp8_head;
    default:
        return s->fp8_experts;
    }
}

double expected_load_factor(double cv, long ep, long experts)
{
    /* Abramowitz & Stegun 26.2.23: the x with upper tail q (0 < q <= 0.5) */
    static const double c0 = 2.515517, c1 = 0.802853, c2 = 0.010328;
    static const double d1 = 1.432788, d2 = 0.189269, d3 = 0.001308;
    double q, t, z;
    if (cv <= 0 || ep <= 1 || experts < ep)
        return 1;
    q = 0.625 / ((double)ep + 0.25); /* Blom: 1 - (n - 0.375) / (n + 0.25) */
    t = sqrt(-2 * log(q));
    z = t - (c0 + t * (c1 + t * c2)) / (1 + t * (d1 + t * (d2 + t * d3)));
    return 1 + cv * z;
}

/* The lookups of the plan expected_fill is filling (expected_rank.memo),
 * or NULL: per thread, set for the call only. */
static _Thread_local struct expected_memo *memo;

/* FLOP/s of one GEMM kind at M rows: the measured rate, capped by the
 * small-GEMM roofline and the peak; the achievable rate where the
 * calibration has no table for it. */
static double gemm_rate(const struct calibration *cal,
                        const struct hardware *hw,
                        int g,
                        bool fp8,
                        double m_rows,
                        double copy_bps)
{
    double r, peak = fp8 ? hw->fp8_peak_flops : hw->bf16_peak_flops;
    double roof = copy_bps * 2 * m_rows / (fp8 ? 1.0 : 2.0);
    if (memo && memo->gemm[g][fp8].rate > 0 &&
        memo->gemm[g][fp8].m_rows == m_rows)
        return memo->gemm[g][fp8].rate;
    r = calibration_gemm_tflops(cal, expected_gemm_class(g),
                                fp8 ? CALIBRATION_FP8 : CALIBRATION_BF16,
                                m_rows, NULL) *
        1e12;
    if (r <= 0)
        r = fp8 ? hw->fp8_flops : hw->bf16_flops;
    if (r > roof)
        r = roof;
    if (r > peak)
        r = peak;
    if (memo) {
        memo->gemm[g][fp8].m_rows = m_rows;
        memo->gemm[g][fp8].rate = r;
    }
    return r;
}

/* Efficiency of the link for NCCL's collective kind at `bytes` per call:
 * the curve's bus bandwidth there over its largest (1 without a curve),
 * times NCCL's share of the IB rate on the inter-node link. */
static double efficiency(const struct calibration *cal,
                         enum calibration_link link,
                         enum calibration_collective kind,
                         double bytes)
{
    const struct calibration_curve *c =
        cal ? calibration_curve_get(cal, link, kind) : NULL;
    double level = cal && link == CALIBRATION_LINK_INTER
                       ? calibration_nccl_ib_share(cal, kind)
                       : 1;
    double at, top, eff;
    size_t i;
    if (!c || c->n == 0 || bytes <= 0)
        return level;
    if (memo)
        for (i = 0; i < memo->net[link][kind].n; i++)
            if (memo->net[link][kind].bytes[i] == bytes)
                return memo->net[link][kind].eff[i] * level;
    at = calibration_busbw_gbps(cal, link, kind, bytes, NULL);
    top = calibration_busbw_gbps(cal, link, kind, c->bytes[c->n - 1], NULL);
    eff = at <= 0 || top <= 0 ? 1 : at < top ? at / top : 1;
    if (memo) { /* the oldest size gives way */
        i = memo->net[link][kind].next;
        memo->net[link][kind].bytes[i] = bytes;
        memo->net[link][kind].eff[i] = eff;
        memo->net[link][kind].next = (i + 1) % EXPECTED_MEMO_SIZES;
        if (memo->net[link][kind].n < EXPECTED_MEMO_SIZES)
            memo->net[link][kind].n++;
    }
    return eff * level;
}

/* Bytes of one purpose's traffic on a link after the efficiency at its
 * message size (bytes per call). */
static double effective(const struct calibration *cal,
                        enum calibration_link link,
                        enum calibration_collective kind,
                        double bytes,
                        double calls)
{
    if (bytes <= 0)
        return 0;
    return bytes /
           efficiency(cal, link, kind, calls > 0 ? bytes / calls : bytes);
}

/* Adds a purpose's traffic to hidden or exposed: effective bytes (eib,
 * env), as moved (ib, nv), and calls. */
static void add(struct expected_work *x,
                bool hidden,
                double eib,
                double env,
                double ib,
                double ib_calls,
                double nv,
                double nv_calls)
{
    if (hidden) {
        x->hid_ib += eib;
        x->hid_nv += env;
        x->hid_ib_raw += ib;
        x->hid_nv_raw += nv;
        x->hid_ib_calls += ib_calls;
        x->hid_nv_calls += nv_calls;
    } else {
        x->xp_ib += eib;
        x->xp_nv += env;
        x->xp_ib_raw += ib;
        x->xp_nv_raw += nv;
        x->xp_ib_calls += ib_calls;
        x->xp_nv_calls += nv_calls;
    }
}

/* Adds a purpose's traffic to hidden or exposed, raw and effective. */
static void route(struct expected_work *x,
                  const struct calibration *cal,
                  enum calibration_collective kind,
                  bool hidden,
                  double ib,
                  double ib_calls,
                  double nv,
                  double nv_calls)
{
    add(x, hidden, effective(cal, CALIBRATION_LINK_INTER, kind, ib, ib_calls),
        effective(cal, CALIBRATION_LINK_INTRA, kind, nv, nv_calls), ib,
        ib_calls, nv, nv_calls);
}

/*
 * The MoE dispatch and combine by the stack's dispatcher (comm.h
 * comm_ep_dispatch): NCCL all-to-all at the nccl-tests all-to-all curve
 * for its message per peer (nccl-tests' size is the per-rank buffer, one
 * share of it per rank of the measured run: the per-peer message times
 * the curve's ranks, the EP group's where the curve does not say), the
 * all-gather dispatcher at the all-gather curve, DeepEP's kernels at
 * their measured share of each link's rate (the stack's
 * ep_ib_efficiency, ep_nvlink_efficiency), not at NCCL's curves.
 */
static void ep_route(struct expected_work *x,
                     const struct calibration *cal,
                     const struct stack_spec *s,
                     const struct plan *p,
                     long domain,
                     const struct comm_totals *ct,
                     bool hidden)
{
    /* the most loaded rank's tokens (x->load; 1: balanced) */
    double ib = ct->what_ib[COMM_EP] * x->load_ib;
    double nv = ct->what_nvlink[COMM_EP] * x->load_nv;
    double ib_calls = ct->what_ib_calls[COMM_EP];
    double nv_calls = ct->what_nvlink_calls[COMM_EP];
    double ib_scale = 1, nv_scale = 1;
    double *eib = hidden ? &x->hid_ib : &x->xp_ib;
    double *env = hidden ? &x->hid_nv : &x->xp_nv;
    double eib0 = *eib, env0 = *env;
    if (s->ep_dispatcher == STACK_DISPATCH_ALLTOALL) {
        struct plan_span sp = plan_span(p->ep, 1, domain);
        double e = (double)sp.size, g = (double)sp.per_node;
        const struct calibration_curve *ci =
            cal ? calibration_curve_get(cal, CALIBRATION_LINK_INTER,
                                        CALIBRATION_ALLTOALL)
                : NULL;
        const struct calibration_curve *cn =
            cal ? calibration_curve_get(cal, CALIBRATION_LINK_INTRA,
                                        CALIBRATION_ALLTOALL)
                : NULL;
        double ri = ci && ci->ranks > 0 ? (double)ci->ranks : e;
        double rn = cn && cn->ranks > 0 ? (double)cn->ranks : g;
        /* looked up at bytes / (calls x peers / ranks): the message per
         * peer x the curve's ranks */
        if (e > g)
            ib_scale = (e - g) / ri;
        if (g > 1)
            nv_scale = (g - 1) / rn;
        add(x, hidden,
            effective(cal, CALIBRATION_LINK_INTER, CALIBRATION_ALLTOALL, ib,
                      ib_calls * ib_scale),
            effective(cal, CALIBRATION_LINK_INTRA, CALIBRATION_ALLTOALL, nv,
                      nv_calls * nv_scale),
            ib, ib_calls, nv, nv_calls);
    } else if (s->ep_dispatcher == STACK_DISPATCH_ALLGATHER) {
        route(x, cal, CALIBRATION_ALL_GATHER, hidden, ib, ib_calls, nv,
              nv_calls);
    } else {
        double ei = s->ep_ib_efficiency > 0 ? s->ep_ib_efficiency : 1;
        double en = s->ep_nvlink_efficiency > 0 ? s->ep_nvlink_efficiency : 1;
        add(x, hidden, ib / ei, nv / en, ib, ib_calls, nv, nv_calls);
    }
    x->ep_hidden = hidden;
    x->ep_ib = *eib - eib0;
    x->ep_nv = *env - env0;
    x->ep_ib_raw = ib;
    x->ep_nv_raw = nv;
}

/*
 * The HBM traffic, bytes per step on this GPU, of the casts an FP8 recipe
 * runs before its GEMMs, where its calibrated factor does not hold them
 * already (calibration_fp8_casts_counted: a block or fine-grained factor
 * measured from a trace does). Every operand the recipe casts
 * (model_layer's cast_*) is read in BF16 and written in FP8 (one byte;
 * the scales, a byte per 32 elements at most, are left out), from
 * Transformer Engine's documentation (docs/features/low_precision_training):
 * - One scale per tensor ("FP8 Current Scaling"): a current-scaling cast
 *   reads its tensor twice (amax, then cast); where the GEMMs take
 *   K-major operands only (hardware fp8_transpose: Hopper, Ada) the cast
 *   also writes the transposed copy the backward's GEMMs take. With
 *   sequence parallelism a gathered operand is cast on its shard (the
 *   all-gather moves FP8, its scale reduced first) and, as the transposed
 *   tensor cannot be all-gathered, the gathered one is transposed (read
 *   and written, one byte each).
 * - One scale per row: the backward's copy is scaled by columns, so the
 *   tensor is read twice and written twice, and a gathered one is
 *   transposed as above.
 * - Block and fine-grained scales ("MXFP8", "Handling transposes": "rowwise
 *   and columnwise MXFP8 tensors are numerically different ... Both must
 *   be quantized independently from the full-precision data"): read once
 *   (each block's amax in the same pass), written twice on any GPU; both
 *   copies are all-gathered quantized ("All-gather of columnwise tensors
 *   is supported"), so a gathered operand is cast on its shard alone.
 * Without sequence parallelism every TP rank casts the whole replicated
 * tensor. Forward inputs are cast once more where full recomputation
 * reruns the forward. Weights are cast once a step (Megatron-LM passes
 * is_first_microbatch, and Transformer Engine keeps the cast): left out,
 * under 0.1% of a step at any micro-batch count the sweep gives.
 */
static double fp8_cast_bytes(const struct model_spec *s,
                             const struct hardware *hw,
                             const struct calibration *cal,
                             const struct plan *p,
                             const struct model_chunk *c,
                             double t)
{
    bool row = s->fp8_scaling == CALIBRATION_FP8_ROW;
    bool blocks = s->fp8_scaling == CALIBRATION_FP8_FINE ||
                  s->fp8_scaling == CALIBRATION_FP8_BLOCK;
    bool twice = row || (!blocks && s->fp8_amax == MODEL_FP8_AMAX_CURRENT);
    double reads, writes, tp = (double)p->tp, local, gathered;
    double in_passes = p->recompute == MODEL_RECOMPUTE_FULL ? 2 : 1;
    double g = in_passes * c->cast_in_sp + c->cast_grad_sp;
    if (!calibration_fp8_casts_counted(cal, s->fp8_scaling))
        return 0;
    reads = s->activation_bytes * (twice ? 2 : 1);
    writes = row || blocks || hw->spec.fp8_transpose ? 2 : 1;
    local = (in_passes * c->cast_in + c->cast_grad) * (reads + writes);
    if (p->no_sp && p->tp > 1)
        gathered = tp * g * (reads + writes);
    else if (p->tp == 1 || blocks) /* cast where it lies, gathered as is */
        gathered = g * (reads + writes);
    else /* cast on the shard, the gathered tensor transposed */
        gathered =
            g * (reads + 1) + (row || hw->spec.fp8_transpose ? tp * g * 2 : 0);
    return t * (local + gathered);
}

/*
 * The attention kernels' time over the measured rates' (causal, at the
 * calibration's length) for this plan's kernels: without context
 * parallelism one causal kernel over each sequence; with it, a ring
 * (Transformer Engine's p2p, the sequence in 2 cp chunks, a rank holding
 * chunk i and 2cp-1-i: Megatron-LM's load balancing) whose first step is
 * a causal kernel over the rank's seq/cp tokens, 1/cp of its work, and
 * whose other steps attend to other ranks' chunks without a mask: full
 * blocks, at the full rate for seq/cp tokens.
 */
static double attention_length_time(const struct calibration *cal,
                                    const struct model_spec *s,
                                    const struct plan *p)
{
    double cp = (double)p->cp, causal, full, t;
    if (memo && memo->attn_cp == p->cp)
        return memo->attn_time;
    calibration_attention_length_factors(cal, (double)s->seq_len / cp, &causal,
                                         &full);
    t = p->cp <= 1 ? 1 / causal : 1 / (cp * causal) + (1 - 1 / cp) / full;
    if (memo) {
        memo->attn_cp = p->cp;
        memo->attn_time = t;
    }
    return t;
}

/* Compute: GEMMs by shape, attention, elementwise work. */
static void compute_work(const struct model *m,
                         const struct hardware *hw,
                         const struct calibration *cal,
                         const struct plan *p,
                         const struct expected_rank *rk,
                         double copy_bps,
                         struct expected_work *x)
{
    double load = x->load;
    const struct model_spec *s = &m->spec;
    const struct model_chunk *c = rk->c;
    const struct cost_work *w = rk->w;
    double t = rk->tokens * rk->microbatches; /* per step, this GPU */
    double rows = rk->tokens, gemm_flops = 0, total, attn_flops, ratio;
    double permute_s;
    double expert_rows = s->routed_experts > 0
                             ? rk->tokens * (double)p->ep * (double)s->top_k /
                                   (double)s->routed_experts
                             : rk->tokens;
    bool fp8 = p->precision == MODEL_FP8;
    int g, k;
    static const enum calibration_elementwise ew_kind[MODEL_EWS] = {
        CALIBRATION_EW_NORM, CALIBRATION_EW_ACTIVATION, CALIBRATION_EW_COPY,
        CALIBRATION_EW_READ};

    x->gemm_cal_s = x->gemm_bal_s = 0;
    for (g = 0; g < MODEL_GEMMS; g++) {
        double f = 3 * t * c->gemm_fwd[g], at;
        bool eight = fp8 && expected_gemm_fp8(s, g);
        bool routed = g == MODEL_GEMM_EXPERT_UP || g == MODEL_GEMM_EXPERT_DOWN;
        double m_rows = routed ? expert_rows : rows;
        if (f <= 0)
            continue;
        gemm_flops += f;
        /* the rate at the mean load's M (a loaded rank's larger M runs
         * no slower) */
        at = f / (gemm_rate(cal, hw, g, eight, m_rows, copy_bps) *
                  (eight ? calibration_fp8_scaling_factor(cal, s->fp8_scaling)
                         : 1));
        x->gemm_bal_s += at;
        x->gemm_cal_s += routed ? at * load : at;
    }
    /* the forward work recomputation redoes, at the rank's mean rate */
    attn_flops = 3 * t * c->core_fwd;
    total = w->fp8_flops + w->bf16_flops;
    if (gemm_flops > 0 && total > gemm_flops + attn_flops) {
        x->gemm_cal_s *= (total - attn_flops) / gemm_flops;
        x->gemm_bal_s *= (total - attn_flops) / gemm_flops;
    }
    /* the speed of light's time for the same work: its compute less the
     * attention core at the achievable BF16 rate */
    x->attn_sol_s = attn_flops / hw->bf16_flops;
    x->gemm_sol_s = w->bf16_flops / hw->bf16_flops +
                    (w->fp8_flops > 0 ? w->fp8_flops / hw->fp8_flops : 0) -
                    x->attn_sol_s;
    ratio = calibration_attention_bwd_ratio(cal);
    {
        double f = t * c->core_fwd;
        double fwd = calibration_attention_s(
            cal, CALIBRATION_ATTN_FWD, m->attn_head_dim, m->attn_v_head_dim, f);
        double bwd =
            calibration_attention_s(cal, CALIBRATION_ATTN_BWD, m->attn_head_dim,
                                    m->attn_v_head_dim, ratio * f);
        x->attn_cal_s = fwd > 0 && bwd > 0
                            ? (fwd + bwd) * attention_length_time(cal, s, p)
                            : x->attn_sol_s;
    }
    /* No faster than the speed of light (issue 17): the calibrated
     * GEMMs and attention take at least the floor's time for their
     * FLOPs, at the burst clock (f_compute divides them by a clock
     * factor at most 1, which then only lengthens them: the cap holds
     * whatever share of the step the power cap throttles). `check`
     * refuses a calibration above the floor (calibration_check_floor);
     * a --set of the hardware's rates below the calibration's runs
     * capped. */
    if (x->gemm_bal_s < x->gemm_sol_s)
        x->gemm_bal_s = x->gemm_sol_s;
    if (x->gemm_cal_s < x->gemm_sol_s)
        x->gemm_cal_s = x->gemm_sol_s;
    if (x->attn_cal_s < x->attn_sol_s)
        x->attn_cal_s = x->attn_sol_s;
    x->ew_s = w->permute_bytes /
              (calibration_elementwise_tbps(cal, CALIBRATION_EW_COPY) * 1e12);
    permute_s = x->ew_s;
    /* a full recomputation reruns each layer's forward, its elementwise
     * kernels too (not the loss: MODEL_EW_LOSS) */
    for (k = 0; k < MODEL_EWS; k++)
        x->ew_s +=
            (k != MODEL_EW_LOSS && p->recompute == MODEL_RECOMPUTE_FULL ? 4
                                                                        : 3) *
            t * c->ew_fwd[k] /
            (calibration_elementwise_tbps(cal, ew_kind[k]) * 1e12);
    x->ew_s += 2 * (double)c->moe_layers * rk->microbatches *
               calibration_router_s(cal, rk->tokens);
    if (fp8)
        x->ew_s +=
            fp8_cast_bytes(s, hw, cal, p, c, t) /
            (calibration_elementwise_tbps(cal, CALIBRATION_EW_COPY) * 1e12);
    /* Without sequence parallelism the norms and residual adds are not
     * split over the tensor-parallel group: every TP rank runs them on
     * the whole sequence (Korthikanti et al. 2022 §4.2.2), tp times the
     * tokens above. Residual adds: two a layer, two reads and a write of
     * h (model_derive.c). */
    if (p->no_sp && p->tp > 1)
        x->ew_s +=
            (double)(p->tp - 1) *
            (p->recompute == MODEL_RECOMPUTE_FULL ? 4 : 3) * t *
            (c->ew_fwd[MODEL_EW_NORM] /
                 (calibration_elementwise_tbps(cal, CALIBRATION_EW_NORM) *
                  1e12) +
             s->activation_bytes * 2 * 3 * (double)s->hidden *
                 (double)c->count /
                 (calibration_elementwise_tbps(cal, CALIBRATION_EW_COPY) *
                  1e12));
    x->ew_bal_s = x->ew_s;
    x->ew_s += (load - 1) * permute_s;
}

/*
 * The all-to-all's load on each link (x->load_ib, x->load_nv) under
 * dropless routing. What waits is the busiest receiver of each link:
 * - NCCL all-to-all: each copy of a token goes to its expert's GPU, over
 *   IB from another node: both links carry the most loaded rank's share,
 *   x->load.
 * - All-gather: every token goes to every rank, whatever its experts:
 *   no rank receives more than another (1, 1).
 * - DeepEP: a token crosses IB once per destination node, to the GPU of
 *   its sender's index there, which forwards it over NVLink to its
 *   experts' GPUs. A GPU's NVLink receives its own experts' tokens (the
 *   most loaded rank's share); its NIC, its index's share of everything
 *   bound for its node: the node's load, the sum of its `g` EP ranks'
 *   loads, whose spread is cv / sqrt(g) where the ranks' loads vary
 *   independently (the one spread the stack gives is per rank), the most
 *   loaded of the group's nodes 1 + cv / sqrt(g) z(nodes).
 */
static void ep_link_loads(const struct stack_spec *s,
                          const struct plan *p,
                          long domain,
                          long experts,
                          struct expected_work *x)
{
    struct plan_span sp;
    if (x->load <= 1 || s->ep_dispatcher == STACK_DISPATCH_ALLGATHER) {
        x->load_ib = x->load_nv = 1;
        return;
    }
    switch (s->ep_dispatcher) {
    case STACK_DISPATCH_DEEPEP:
        sp = plan_span(p->ep, 1, domain);
        x->load_nv = x->load;
        x->load_ib = sp.nodes > 1
                         ? expected_load_factor(s->moe_load_cv /
                                                    sqrt((double)sp.per_node),
                                                sp.nodes, experts)
                         : 1;
        return;
    default:
        x->load_ib = x->load_nv = x->load;
        return;
    }
}

/* The host's time to launch the rank's kernels for a step: passes
 * (layers x micro-batches) x launches per layer x time per launch. */
static double host_work(const struct stack_spec *s,
                        const struct expected_rank *rk)
{
    double passes = (double)rk->c->count * rk->microbatches;
    double launches = s->cuda_graphs ? 2 : s->kernels_per_layer;
    return passes * launches * s->host_us_per_kernel * 1e-6;
}

/* The host's per-expert work for a step (the stack's expert_host_us):
 * the rank's MoE layers x micro-batches x its local experts. A full
 * recomputation's second forward is not counted (no source splits the
 * figure between the passes). */
static double expert_host_work(const struct model_spec *m,
                               const struct stack_spec *s,
                               const struct plan *p,
                               const struct expected_rank *rk)
{
    if (m->routed_experts <= 0 || s->expert_host_us <= 0)
        return 0;
    return (double)rk->c->moe_layers * rk->microbatches *
           ((double)m->routed_experts / (double)p->ep) * s->expert_host_us *
           1e-6;
}

/* Communication: by purpose, hidden or exposed as the stack says. */
static void comm_work(const struct calibration *cal,
                      const struct stack *st,
                      long domain,
                      const struct plan *p,
                      const struct comm_totals *ct,
                      const struct cost_work *w,
                      struct expected_work *x)
{
    const struct stack_spec *s = &st->spec;
    const struct plan_schedule_row *sch = plan_schedule_of(p->schedule);
    bool ep_hidden =
        (s->ep_a2a_overlap == STACK_EP_DUALPIPE && sch->paired_fb) ||
        s->ep_a2a_overlap == STACK_EP_COMBINED_1F1B;
    bool pp_hidden = stack_p2p_hidden(st, sch->vpp);
    enum calibration_collective sync =
        p->zero == 0 ? CALIBRATION_ALL_REDUCE : CALIBRATION_REDUCE_SCATTER;
    double dp_ib, dp_nv, dp_ib_calls, dp_nv_calls;
    int wt;

    ep_route(x, cal, s, p, domain, ct, ep_hidden);
    route(x, cal, CALIBRATION_ALL_GATHER, s->tp_comm_overlap,
          ct->what_ib[COMM_TP], ct->what_ib_calls[COMM_TP],
          ct->what_nvlink[COMM_TP], ct->what_nvlink_calls[COMM_TP]);
    /* no nccl-tests curve for point-to-point: the link's full rate */
    route(x, NULL, CALIBRATION_ALL_GATHER, pp_hidden, ct->what_ib[COMM_PP],
          ct->what_ib_calls[COMM_PP], ct->what_nvlink[COMM_PP],
          ct->what_nvlink_calls[COMM_PP]);
    route(x, NULL, CALIBRATION_ALL_GATHER, true, ct->what_ib[COMM_CP],
          ct->what_ib_calls[COMM_CP], ct->what_nvlink[COMM_CP],
          ct->what_nvlink_calls[COMM_CP]);
    /* DP with the micro-batches (ZeRO-2/3): what the steady phase holds
     * besides the purposes above */
    dp_ib = ct->phase_ib[COMM_STEADY];
    dp_nv = ct->phase_nvlink[COMM_STEADY];
    dp_ib_calls = ct->phase_ib_calls[COMM_STEADY];
    dp_nv_calls = ct->phase_nvlink_calls[COMM_STEADY];
    for (wt = COMM_TP; wt <= COMM_PP; wt++) {
        dp_ib -= ct->what_ib[wt];
        dp_nv -= ct->what_nvlink[wt];
        dp_ib_calls -= ct->what_ib_calls[wt];
        dp_nv_calls -= ct->what_nvlink_calls[wt];
    }
    route(x, cal, CALIBRATION_ALL_GATHER, s->dp_grad_overlap,
          dp_ib > 0 ? dp_ib : 0, dp_ib_calls > 0 ? dp_ib_calls : 0,
          dp_nv > 0 ? dp_nv : 0, dp_nv_calls > 0 ? dp_nv_calls : 0);
    /* the ramp's own traffic (EP, TP, CP), after efficiency (DeepEP's
     * kernels are not NCCL's: its share of the IB rate is the stack's) */
    x->dep_ib = effective(cal, CALIBRATION_LINK_INTER, CALIBRATION_ALLTOALL,
                          w->ib_dep_bytes, w->ib_dep_calls);
    if (cal && s->ep_dispatcher == STACK_DISPATCH_DEEPEP)
        x->dep_ib *= calibration_nccl_ib_share(cal, CALIBRATION_ALLTOALL);
    x->dep_nv = effective(cal, CALIBRATION_LINK_INTRA, CALIBRATION_ALLTOALL,
                          w->nvlink_dep_bytes, w->nvlink_dep_calls);
    x->sync_ib = effective(cal, CALIBRATION_LINK_INTER, sync, w->ib_sync_bytes,
                           w->ib_sync_calls);
    x->sync_nv = effective(cal, CALIBRATION_LINK_INTRA, sync,
                           w->nvlink_sync_bytes, w->nvlink_sync_calls);
    x->gather_ib =
        effective(cal, CALIBRATION_LINK_INTER, CALIBRATION_ALL_GATHER,
                  w->ib_gather_bytes, w->ib_gather_calls);
    x->gather_nv =
        effective(cal, CALIBRATION_LINK_INTRA, CALIBRATION_ALL_GATHER,
                  w->nvlink_gather_bytes, w->nvlink_gather_calls);
    x->grad_hide = s->dp_grad_overlap ? 1 : 0;
    x->param_hide = s->dp_param_overlap ? 1 : 0;
}

void expected_fill(const struct model *m,
                   const struct hardware *hw,
                   const struct calibration *cal,
                   const struct stack *st,
                   const struct plan *p,
                   const struct expected_rank *rk,
                   struct expected_work *x)
{
    double copy_bps;
    memset(x, 0, sizeof *x);
    if (!cal || !st)
        return;
    copy_bps = calibration_elementwise_tbps(cal, CALIBRATION_EW_COPY) * 1e12;
    x->known = true;
    x->compute_overhead = st->spec.compute_overhead;
    x->network_efficiency = st->spec.network_efficiency;
    memo = rk->memo;
    x->load = expected_load_factor(st->spec.moe_load_cv, p->ep,
                                   m->spec.routed_experts);
    ep_link_loads(&st->spec, p, hw->domain, m->spec.routed_experts, x);
    compute_work(m, hw, cal, p, rk, copy_bps, x);
    x->host_s = host_work(&st->spec, rk);
    x->host_paced_s = x->host_s * st->spec.host_sync_share;
    x->expert_host_s = expert_host_work(&m->spec, &st->spec, p, rk);
    comm_work(cal, st, hw->domain, p, rk->ct, rk->w, x);
    memo = NULL;
    {
        const struct cost_work *w = rk->w;
        x->hbm_bytes = w->hbm_bytes;
        x->optimizer_bytes = w->optimizer_bytes;
        x->bubble_coef = w->bubble_coef;
        x->fwd_share = w->fwd_share;
        x->ib_dep_calls = w->ib_dep_calls;
        x->nv_dep_calls = w->nvlink_dep_calls;
        x->ib_sync_calls = w->ib_sync_calls;
        x->nv_sync_calls = w->nvlink_sync_calls;
        x->ib_gather_calls = w->ib_gather_calls;
        x->nv_gather_calls = w->nvlink_gather_calls;
        x->ib_dep_raw = w->ib_dep_bytes;
        x->nv_dep_raw = w->nvlink_dep_bytes;
        x->ib_sync_raw = w->ib_sync_bytes;
        x->nv_sync_raw = w->nvlink_sync_bytes;
        x->ib_gather_raw = w->ib_gather_bytes;
        x->nv_gather_raw = w->nvlink_gather_bytes;
    }
}

/* Rate set r (the expected one of w) with the effects from `from` on
 * moved to the speed of light's rates, work and overlaps. */
static void switch_off(const struct cost_work *w,
                       const struct hardware *hw,
                       int from,
                       struct terms_rates *r)
{
    const struct expected_work *x = &w->x;
    /* the loaded rank's share beyond the mean (0: balanced), on each
     * link's all-to-all */
    double extra_ib = x->load_ib > 1 ? 1 - 1 / x->load_ib : 0;
    double extra_nv = x->load_nv > 1 ? 1 - 1 / x->load_nv : 0;
    if (from <= EXPECTED_FACTORS) {
        r->compute_overhead = 1;
        r->ib_bps = hw->ib_bps;
        r->nvlink_bps = hw->nvlink_bps;
    }
    if (from <= EXPECTED_LOAD) { /* every EP rank the mean load */
        r->gemm_s = x->gemm_bal_s;
        r->ew_s = x->ew_bal_s;
        /* the all-to-all's bytes after efficiency scaled to the mean (at
         * the loaded message's efficiency) */
        *(x->ep_hidden ? &r->ib_hid : &r->ib_xp) -= x->ep_ib * extra_ib;
        *(x->ep_hidden ? &r->nv_hid : &r->nv_xp) -= x->ep_nv * extra_nv;
    }
    if (from <= EXPECTED_GEMM) { /* the stages' balance moves with it */
        r->gemm_s = x->gemm_sol_s;
        r->ramp_skew = x->sol_ramp_skew;
    }
    if (from <= EXPECTED_ATTN)
        r->attn_s = x->attn_sol_s;
    if (from <= EXPECTED_MEMORY) {
        r->ew_s = 0;
        r->hbm_bps = hw->hbm_bps;
    }
    if (from <= EXPECTED_HOST)
        r->host_s = r->host_paced_s = 0;
    if (from <= EXPECTED_CLOCK)
        r->clock = 1;
    if (from <= EXPECTED_NETWORK) {
        r->ib_hid = x->hid_ib_raw;
        r->nv_hid = x->hid_nv_raw;
        r->ib_xp = x->xp_ib_raw;
        r->nv_xp = x->xp_nv_raw;
        *(x->ep_hidden ? &r->ib_hid : &r->ib_xp) -= x->ep_ib_raw * extra_ib;
        *(x->ep_hidden ? &r->nv_hid : &r->nv_xp) -= x->ep_nv_raw * extra_nv;
        r->ib_dep = x->ib_dep_raw;
        r->nv_dep = x->nv_dep_raw;
        r->ib_sync = x->ib_sync_raw;
        r->nv_sync = x->nv_sync_raw;
        r->ib_gather = x->ib_gather_raw;
        r->nv_gather = x->nv_gather_raw;
    }
    if (from <= EXPECTED_EXPOSED) { /* everything overlapped, as the SOL */
        r->ib_hid += r->ib_xp;
        r->nv_hid += r->nv_xp;
        r->ib_hid_calls += r->ib_xp_calls;
        r->nv_hid_calls += r->nv_xp_calls;
        r->ib_xp = r->nv_xp = r->ib_xp_calls = r->nv_xp_calls = 0;
        r->grad_hide = r->param_hide = 1;
        r->dp_window_core = true;
    }
}

void expected_waterfall(const struct cost_work *w,
                        const struct hardware *hw,
                        const struct model *m,
                        int precision,
                        double *sol,
                        double step[EXPECTED_EFFECTS])
{
    int k;
    struct cost_times t;
    struct terms_env e = {w, hw, m, precision, &t};
    memset(&t, 0, sizeof t);
    terms_step(&e, &t);
    terms_derived(&e, &t);
    for (k = -1; k < EXPECTED_EFFECTS; k++) {
        struct terms_rates r;
        terms_rates_x(w, hw, &r);
        switch_off(w, hw, k + 1, &r);
        terms_expected(&e, &r, &t);
        if (k < 0)
            *sol = t.expected;
        else
            step[k] = t.expected;
    }
}
