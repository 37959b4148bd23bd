/*
 * expected_compute: the expected step's compute work of one pipeline rank
 * (see expected_compute.h): its GEMMs at the measured rates of their
 * shapes, its attention kernels at theirs, its elementwise, loss and
 * router work at the measured bandwidths, and the host's launch work.
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
 *   recomputed forward work at the rank's mean GEMM rate, but for the
 *   attention core it reruns: that at the attention's forward rate, with
 *   an unfused core's s x s traffic once more (model_derive.c).
 * - Linear-attention and state-space scans (Gated DeltaNet's chunked
 *   delta rule, Mamba-2's SSD): their FLOPs (model_mixer.c's count, forward
 *   and twice that backward, as a GEMM's) at the calibration's forward
 *   rate for their kernel class ([scan]), counted with the attention
 *   core (a token mixer's kernel). Where the calibration does not give
 *   one, at the attention kernel's forward rate for the scan's head widths
 *   (key and value, state and head for SSD): both are tiled tensor-core
 *   products within a block of the sequence under a causal mask (Dao & Gu
 *   2024, §6: SSD's diagonal blocks are masked attention over a chunk;
 *   Yang et al. 2025, the chunkwise delta rule's intra-chunk products),
 *   the nearest kernel a calibration measures; without an attention table,
 *   at the achievable BF16 rate, as the speed of light takes them.
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
 * - The sustained clock: the calibration's sustained/burst factor on the
 *   compute-bound kernels, in proportion to their share of the kernels'
 *   time and to the step's compute beyond the burst window (terms.c
 *   f_compute says why).
 * - Host work: the host spends the stack's host_us_per_kernel on each
 *   kernel it launches per layer and micro-batch: the kernels_per_layer
 *   no CUDA graph of the stack's scope replays, and one launch of each
 *   captured graph a pass (a whole layer: the forward's graph and the
 *   backward's, L x M x 2; attn: the attention part's share replayed,
 *   the rest launched; stack_layer_launches). Launches are asynchronous: the
 * host runs ahead of the GPU and the GPU waits only where the host's time for a
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
 */
#include "expected_compute.h"

#include <stdbool.h>
#include <stddef.h>

#include "cost_work.h"

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

/* FLOP/s of one GEMM kind at M rows: the measured rate, capped by the
 * small-GEMM roofline and the peak; the achievable rate where the
 * calibration has no table for it. */
static double gemm_rate(struct expected_memo *memo,
                        const struct calibration *cal,
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
static double attention_length_time(struct expected_memo *memo,
                                    const struct calibration *cal,
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

/*
 * Where the stack runs FlashAttention-2 (attention_kernel = flash2) and
 * the calibration's benchmark has its bars: the forward's and the
 * backward's time over the measured rates' (each 1/rate, in units of the
 * measured causal rate at its length), each of attention_length_time's
 * kernels at FlashAttention-2's rate over the benchmark kernel's at the
 * same length and mask (calibration_attention_flash2_factors; the
 * backward's bars are unmasked, so its ratio holds for both masks).
 * Unchanged where either is missing.
 */
static void flash2_times(const struct calibration *cal,
                         const struct model_spec *s,
                         const struct plan *p,
                         double *fwd_t,
                         double *bwd_t)
{
    double cp = (double)p->cp, seq = (double)s->seq_len / cp;
    double causal, full, k_causal, k_full, k_bwd;
    if (!calibration_attention_flash2_factors(cal, seq, &k_causal, &k_full,
                                              &k_bwd))
        return;
    calibration_attention_length_factors(cal, seq, &causal, &full);
    *fwd_t = p->cp <= 1 ? 1 / (causal * k_causal)
                        : 1 / (cp * causal * k_causal) +
                              (1 - 1 / cp) / (full * k_full);
    *bwd_t /= k_bwd;
}

/* The chunked scans' forward FLOPs per step on this GPU (all zero for a
 * model without linear-attention or SSM layers). */
static double scan_flops(const struct expected_rank *rk)
{
    double t = rk->tokens * rk->microbatches, f = 0;
    int k;
    for (k = 0; k < MODEL_SCANS; k++)
        f += t * rk->c->scan_fwd[k];
    return f;
}

/* Seconds of the chunked scans, forward and backward (3 x the forward's
 * FLOPs), at their class's calibrated rate, else as the opening comment
 * says. */
static double scan_time(const struct model_spec *s,
                        const struct hardware *hw,
                        const struct calibration *cal,
                        const struct expected_rank *rk)
{
    static const enum calibration_scan cls[MODEL_SCANS] = {
        [MODEL_SCAN_LINEAR] = CALIBRATION_SCAN_LINEAR,
        [MODEL_SCAN_SSD] = CALIBRATION_SCAN_SSD};
    double t = rk->tokens * rk->microbatches, sec = 0;
    int k;
    for (k = 0; k < MODEL_SCANS; k++) {
        double f = 3 * t * rk->c->scan_fwd[k];
        double r = calibration_scan_tflops(cal, cls[k]) * 1e12, at;
        double qk = k == MODEL_SCAN_SSD ? (double)s->ssm_state
                                        : (double)s->linear_key_dim;
        double v = k == MODEL_SCAN_SSD ? (double)s->ssm_head_dim
                                       : (double)s->linear_value_dim;
        if (f <= 0)
            continue;
        at = r > 0
                 ? f / r
                 : calibration_attention_s(cal, CALIBRATION_ATTN_FWD, qk, v, f);
        sec += at > 0 ? at : f / hw->bf16_flops;
    }
    return sec;
}

/* Of the attention kernels' time, the ring's steps over other ranks'
 * keys and values (attention_length_time's full blocks): each waits for
 * its block, sent while the step before computed. */
static double attention_ring_share(const struct calibration *cal,
                                   const struct model_spec *s,
                                   const struct plan *p)
{
    double cp = (double)p->cp, causal, full;
    if (p->cp <= 1)
        return 0;
    calibration_attention_length_factors(cal, (double)s->seq_len / cp, &causal,
                                         &full);
    return ((1 - 1 / cp) / full) / (1 / (cp * causal) + (1 - 1 / cp) / full);
}

/* The share of a rank's layers that are MoE layers: of the work every
 * layer does alike (attention, norms), what combined 1F1B pairs with an
 * all-to-all (ep_overlap.h). */
static double moe_share(const struct model_chunk *c)
{
    return c->count > 0 ? (double)c->moe_layers / (double)c->count : 0;
}

/* The GEMMs' time by shape into x: at their measured rates (gemm_cal_s:
 * the routed experts' at the most loaded rank's tokens; gemm_bal_s: at
 * the mean load), and the speed of light's time for the same work
 * (gemm_sol_s, attn_sol_s). */
static void gemm_work(const struct model *m,
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
    double rows = rk->tokens, gemm_flops = 0, total, attn_flops;
    double expert_rows = s->routed_experts > 0
                             ? rk->tokens * (double)p->ep * (double)s->top_k /
                                   (double)s->routed_experts
                             : rk->tokens;
    bool fp8 = p->precision == MODEL_FP8;
    double pre = 0, experts = 0; /* combined 1F1B's nodes' GEMMs */
    int g;

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
        at = f / (gemm_rate(rk->memo, cal, hw, g, eight, m_rows, copy_bps) *
                  (eight ? calibration_fp8_scaling_factor(cal, s->fp8_scaling)
                         : 1));
        x->gemm_bal_s += at;
        x->gemm_cal_s += routed ? at * load : at;
        if (routed)
            experts += at * load;
        else if (g == MODEL_GEMM_ATTN)
            pre += at * moe_share(c);
        else if (g != MODEL_GEMM_DENSE_UP && g != MODEL_GEMM_DENSE_DOWN &&
                 g != MODEL_GEMM_HEAD)
            pre += at; /* the router and shared experts: MoE layers' */
    }
    /* the forward work recomputation redoes, at the rank's mean rate;
     * the attention core's (forward, backward, rerun) and the scans are
     * timed apart (attention_work) */
    attn_flops = t * (3 * c->core_fwd + c->recompute_core[p->recompute]) +
                 3 * scan_flops(rk);
    total = w->fp8_flops + w->bf16_flops;
    if (gemm_flops > 0 && total > gemm_flops + attn_flops) {
        x->gemm_cal_s *= (total - attn_flops) / gemm_flops;
        x->gemm_bal_s *= (total - attn_flops) / gemm_flops;
        pre *= (total - attn_flops) / gemm_flops;
        experts *= (total - attn_flops) / gemm_flops;
    }
    /* a GEMM's forward, its data and its weight gradients alike */
    x->pair_attn_fwd_s = pre / 3;
    x->pair_attn_bwd_s = pre * 2 / 3;
    x->pair_mlp_fwd_s = x->pair_mlp_dgrad_s = x->pair_mlp_wgrad_s = experts / 3;
    /* the speed of light's time for the same work: its compute less the
     * attention core and the scans at the achievable BF16 rate */
    x->attn_sol_s = attn_flops / hw->bf16_flops;
    x->gemm_sol_s = w->bf16_flops / hw->bf16_flops +
                    (w->fp8_flops > 0 ? w->fp8_flops / hw->fp8_flops : 0) -
                    x->attn_sol_s;
}

/* The attention kernels' time into x->attn_cal_s: forward and backward
 * at their measured rates for the model's head widths, at the plan's
 * lengths, of the stack's kernel (enum stack_attention_kernel; the speed
 * of light's where the calibration has no rate). Returns the forward's
 * share of it. */
static double attention_work(const struct model *m,
                             const struct hardware *hw,
                             const struct calibration *cal,
                             const struct plan *p,
                             int kernel,
                             const struct expected_rank *rk,
                             struct expected_work *x)
{
    double t = rk->tokens * rk->microbatches; /* per step, this GPU */
    double ratio = calibration_attention_bwd_ratio(cal);
    double f = t * rk->c->core_fwd;
    double rerun = t * rk->c->recompute_core[p->recompute];
    double fwd =
        calibration_attention_s(cal, CALIBRATION_ATTN_FWD, m->attn_head_dim,
                                m->attn_v_head_dim, f + rerun);
    double bwd =
        calibration_attention_s(cal, CALIBRATION_ATTN_BWD, m->attn_head_dim,
                                m->attn_v_head_dim, ratio * f);
    double fwd_t = 0, bwd_t = 0;
    if (fwd > 0 && bwd > 0) {
        fwd_t = bwd_t = attention_length_time(rk->memo, cal, &m->spec, p);
        if (kernel == STACK_ATTN_FLASH2)
            flash2_times(cal, &m->spec, p, &fwd_t, &bwd_t);
    }
    x->attn_cal_s = fwd > 0 && bwd > 0 ? fwd * fwd_t + bwd * bwd_t +
                                             scan_time(&m->spec, hw, cal, rk)
                                       : x->attn_sol_s;
    /* of it, the forward's (the rerun is the backward's: combined 1F1B's
     * nodes); the FLOPs' share where no rate is measured */
    return fwd > 0 && bwd > 0
               ? calibration_attention_s(cal, CALIBRATION_ATTN_FWD,
                                         m->attn_head_dim, m->attn_v_head_dim,
                                         f) *
                     fwd_t / (fwd * fwd_t + bwd * bwd_t)
               : f / (f + rerun + ratio * f);
}

/* Whether the plan's recomputation reruns each layer's elementwise
 * kernels: a full one, or a selective one with torchtitan's op policy
 * (alternate_mm: every op but the saved matmuls and the attention
 * kernel, model_derive.c alternate_mm_flops). */
static bool reruns_elementwise(const struct model *m, const struct plan *p)
{
    return p->recompute == MODEL_RECOMPUTE_FULL ||
           (p->recompute == MODEL_RECOMPUTE_SELECTIVE &&
            (m->selective & (1u << MODEL_MOD_ALTERNATE_MM)) != 0);
}

/* The elementwise, loss and router work into x (ew_s at the most loaded
 * rank's permutes, ew_bal_s at the mean load). */
static void elementwise_work(const struct model *m,
                             const struct hardware *hw,
                             const struct calibration *cal,
                             const struct plan *p,
                             const struct expected_rank *rk,
                             struct expected_work *x)
{
    double load = x->load;
    const struct model_spec *s = &m->spec;
    const struct model_chunk *c = rk->c;
    const struct cost_work *w = rk->w;
    double t = rk->tokens * rk->microbatches; /* per step, this GPU */
    double permute_s, act_s, rest_s;
    bool fp8 = p->precision == MODEL_FP8;
    int k;
    static const enum calibration_elementwise ew_kind[MODEL_EWS] = {
        CALIBRATION_EW_NORM, CALIBRATION_EW_ACTIVATION, CALIBRATION_EW_COPY,
        CALIBRATION_EW_READ};

    x->ew_s = w->permute_bytes /
              (calibration_elementwise_tbps(cal, CALIBRATION_EW_COPY) * 1e12);
    permute_s = x->ew_s;
    /* a full recomputation reruns each layer's forward, its elementwise
     * kernels too (not the loss: MODEL_EW_LOSS); so does torchtitan's
     * op policy */
    for (k = 0; k < MODEL_EWS; k++)
        x->ew_s += (k != MODEL_EW_LOSS && reruns_elementwise(m, p) ? 4 : 3) *
                   t * c->ew_fwd[k] /
                   (calibration_elementwise_tbps(cal, ew_kind[k]) * 1e12);
    /* a selective recomputation of an unfused attention core reruns its
     * s x s traffic (the full one's is in the fourth pass above) */
    if (p->recompute == MODEL_RECOMPUTE_SELECTIVE)
        x->ew_s +=
            t * c->recompute_scores /
            (calibration_elementwise_tbps(cal, CALIBRATION_EW_COPY) * 1e12);
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
            (double)(p->tp - 1) * (reruns_elementwise(m, p) ? 4 : 3) * t *
            (c->ew_fwd[MODEL_EW_NORM] /
                 (calibration_elementwise_tbps(cal, CALIBRATION_EW_NORM) *
                  1e12) +
             s->activation_bytes * 2 * 3 * (double)s->hidden *
                 (double)c->count /
                 (calibration_elementwise_tbps(cal, CALIBRATION_EW_COPY) *
                  1e12));
    x->ew_bal_s = x->ew_s;
    x->ew_s += (load - 1) * permute_s;
    /* combined 1F1B's nodes: the permutes (at the loaded rank's tokens)
     * and the experts' activation with the routed experts, the rest of
     * the MoE layers' before the dispatch; a third forward, two thirds
     * backward, as counted above */
    act_s =
        3 * t * c->ew_fwd[MODEL_EW_ACTIVATION] /
        (calibration_elementwise_tbps(cal, CALIBRATION_EW_ACTIVATION) * 1e12) *
        moe_share(c);
    rest_s = (x->ew_bal_s - permute_s) * moe_share(c) - act_s;
    x->pair_mlp_fwd_s += (load * permute_s + act_s) / 3;
    x->pair_mlp_dgrad_s += (load * permute_s + act_s) * 2 / 3;
    x->pair_attn_fwd_s += rest_s > 0 ? rest_s / 3 : 0;
    x->pair_attn_bwd_s += rest_s > 0 ? rest_s * 2 / 3 : 0;
}

/* Compute: GEMMs by shape, attention, elementwise work. */
static void compute_work(const struct model *m,
                         const struct hardware *hw,
                         const struct calibration *cal,
                         const struct plan *p,
                         int attn_kernel,
                         const struct expected_rank *rk,
                         double copy_bps,
                         struct expected_work *x)
{
    double gemm_s, attn_fwd;
    gemm_work(m, hw, cal, p, rk, copy_bps, x);
    attn_fwd = attention_work(m, hw, cal, p, attn_kernel, rk, x);
    gemm_s = x->gemm_cal_s;
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
    x->attn_ring_s = x->attn_cal_s * attention_ring_share(cal, &m->spec, p);
    if (gemm_s > 0 && x->gemm_cal_s > gemm_s) { /* capped: all alike */
        double k = x->gemm_cal_s / gemm_s;
        x->pair_attn_fwd_s *= k;
        x->pair_attn_bwd_s *= k;
        x->pair_mlp_fwd_s *= k;
        x->pair_mlp_dgrad_s *= k;
        x->pair_mlp_wgrad_s *= k;
    }
    x->pair_attn_fwd_s += x->attn_cal_s * attn_fwd * moe_share(rk->c);
    x->pair_attn_bwd_s += x->attn_cal_s * (1 - attn_fwd) * moe_share(rk->c);
    elementwise_work(m, hw, cal, p, rk, x);
}

/* The host's time to launch the rank's kernels for a step: passes
 * (layers x micro-batches) x launches per layer (what the stack's CUDA
 * graphs leave eager, plus a launch per graph: stack_layer_launches) x
 * time per launch. */
static double host_work(const struct stack_spec *s,
                        const struct expected_rank *rk)
{
    double moe = (double)rk->c->moe_layers;
    double dense = (double)rk->c->count - moe;
    double launches = dense * stack_layer_launches(s, false) +
                      moe * stack_layer_launches(s, true);
    return rk->microbatches * launches * s->host_us_per_kernel * 1e-6;
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

/*
 * Combined 1F1B's nodes with the host's pace (terms.c f_compute: the
 * compute stream runs its short kernels at the host's pace where the
 * framework syncs them, and no faster than the host launches all): the
 * kernels' time of the nodes x the compute term over the kernels' time
 * (clock and overhead apart), the host's waiting spread over the nodes
 * as their kernels' time is.
 */
static void host_into_nodes(struct expected_work *x)
{
    double bound = x->gemm_cal_s + x->attn_cal_s;
    double kernels = bound + x->ew_s;
    double paced = x->host_paced_s + x->expert_host_s;
    double host = x->host_s + x->expert_host_s;
    double with = bound + (x->ew_s > paced ? x->ew_s : paced), k;
    if (host > with)
        with = host;
    if (!(kernels > 0) || !(with > kernels))
        return;
    k = with / kernels;
    x->pair_attn_fwd_s *= k;
    x->pair_attn_bwd_s *= k;
    x->pair_mlp_fwd_s *= k;
    x->pair_mlp_dgrad_s *= k;
    x->pair_mlp_wgrad_s *= k;
}

void expected_compute_fill(const struct model *m,
                           const struct hardware *hw,
                           const struct calibration *cal,
                           const struct stack *st,
                           const struct plan *p,
                           const struct expected_rank *rk,
                           struct expected_work *x)
{
    double copy_bps =
        calibration_elementwise_tbps(cal, CALIBRATION_EW_COPY) * 1e12;
    compute_work(m, hw, cal, p, st->spec.attention_kernel, rk, copy_bps, x);
    /* The stacks' host figures are an x86 server host's: another host
     * CPU scales them by its time per operation (the hardware file's
     * host_op_factor). */
    x->host_s = host_work(&st->spec, rk) * hw->spec.host_op_factor;
    x->host_paced_s = x->host_s * st->spec.host_sync_share;
    x->expert_host_s =
        expert_host_work(&m->spec, &st->spec, p, rk) * hw->spec.host_op_factor;
    host_into_nodes(x);
}
