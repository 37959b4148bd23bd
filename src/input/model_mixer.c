/*
 * model_mixer: the token mixers and what one costs (see the header).
 *
 * Sources of the formulas, per row:
 * - softmax attention: 2 FLOPs per multiply-add; QK^T and PV over the
 *   keys a query sees, half the square for a causal sequence (DeepSeek's
 *   250 GFLOPs/token, ISCA'25 Table 2; Megatron-Bridge's flop_utils.py);
 *   MHA/GQA and MLA projections as transformers' Llama and DeepseekV3
 *   classes build them.
 * - sliding window (GPT-OSS model card, "alternating dense and locally
 *   banded sparse attention ... bandwidth of 128 tokens"): query i sees
 *   min(i + 1, w) keys; summed over the sequence and counted as full
 *   attention is (seq/2 at w = seq), w - w^2/(2 seq) on average.
 * - chunked (Llama 4, transformers' Llama4TextAttention with
 *   attention_chunk_size): a query sees the keys of its own chunk up to
 *   itself: each chunk is a causal square of its own.
 * - sparse (DeepSeek-V3.2, arXiv 2512.02556 §2.1, DeepSeek Sparse
 *   Attention): a lightning indexer scores every preceding key (index_heads
 *   heads of index_head_dim, "complexity O(L^2)" but small), and the core
 *   attends to the index_topk it picks: "reduces the core attention
 *   complexity from O(L^2) to O(Lk)". Under MLA the sparse core runs in
 *   MLA's MQA mode (§2.1: "we implement DSA based on the MQA mode of
 *   MLA"): queries absorbed into the kv latent (kv_lora_rank + rope wide),
 *   the latent the values (kv_lora_rank); the absorbed projections cost
 *   what the up-projections cost. The indexer's projections (DeepSeek's
 *   inference/model.py, class Indexer: wq_b from the query latent, wk and
 *   its LayerNorm, weights_proj) are GEMMs of the attention class.
 * - linear attention (Gated DeltaNet, Yang et al., ICLR 2025; transformers'
 *   Qwen3NextGatedDeltaNet): in_proj_qkvz, in_proj_ba, a depthwise causal
 *   convolution over q, k, v, per-head decay and step (A_log, dt_bias), a
 *   gated RMSNorm of the value head width, out_proj. The chunked delta
 *   rule's FLOPs are counted from its reference (transformers'
 *   torch_chunk_gated_delta_rule, chunk C): per token and value head,
 *   k_beta K^T, Q K^T and the decayed K products (3 C dk multiply-adds),
 *   the two products with values (2 C dv), the triangular solve's row
 *   updates (C^2/3), and the state's three products (3 dk dv): linear in
 *   the sequence.
 * - state space (Mamba-2, Dao & Gu, ICML 2024, the SSD algorithm; its
 *   reference mamba_ssm/modules/ssd_minimal.py, ssd_minimal_discrete):
 *   in_proj to z, x, B, C and dt, a depthwise causal convolution (with
 *   bias) over x, B and C, A_log, D and dt_bias per head, a gated RMSNorm
 *   over the inner width, out_proj. Per token: C B^T within a chunk of Q
 *   (Q N multiply-adds per group), its product with X (Q P per head), the
 *   chunk's state (N P per head) and the state's output (N P per head):
 *   linear in the sequence.
 * Context parallelism: softmax layers gather keys and values (kv_elems);
 * a scan layer passes its state (and its convolution's last inputs) from
 * one rank's part of the sequence to the next (state_elems): a scan, not
 * a ring of key/value blocks.
 */
#include "model_mixer.h"

#include <string.h>

#include "model.h"

void model_operands_column(struct model_operands *o,
                           double k,
                           double n,
                           double times)
{
    o->in_sp += times * k;
    o->grad += times * n;
}

void model_operands_row(struct model_operands *o,
                        double k,
                        double n,
                        double times)
{
    o->in += times * k;
    o->grad_sp += times * n;
}

#define SOFTMAX_ROPE (MODEL_MIXER_SOFTMAX | MODEL_MIXER_ROPE)

static const struct mixer_row {
    char letter;      /* in a pattern */
    const char *word; /* in a kind's name */
    unsigned class;   /* enum model_mixer_class */
} rows[MODEL_MIXERS] = {
    [MODEL_MIX_FULL] = {.letter = 'A',
                        .word = "attention",
                        .class = SOFTMAX_ROPE},
    [MODEL_MIX_NOPE] = {.letter = 'N',
                        .word = "NoPE attention",
                        .class = MODEL_MIXER_SOFTMAX},
    [MODEL_MIX_WINDOW] = {.letter = 'W',
                          .word = "sliding-window attention",
                          .class = SOFTMAX_ROPE},
    [MODEL_MIX_CHUNK] = {.letter = 'C',
                         .word = "chunked attention",
                         .class = SOFTMAX_ROPE},
    [MODEL_MIX_SPARSE] = {.letter = 'S',
                          .word = "sparse attention",
                          .class = SOFTMAX_ROPE | MODEL_MIXER_SPARSE},
    [MODEL_MIX_LINEAR] = {.letter = 'L',
                          .word = "linear attention",
                          .class = MODEL_MIXER_LINEAR},
    [MODEL_MIX_SSM] = {.letter = 'M',
                       .word = "Mamba-2",
                       .class = MODEL_MIXER_SSM},
    [MODEL_MIX_NONE] = {.letter = '.', .word = "", .class = 0},
};

char model_mixer_letter(int mixer)
{
    return mixer >= 0 && mixer < MODEL_MIXERS ? rows[mixer].letter : 0;
}

const char *model_mixer_word(int mixer)
{
    return mixer >= 0 && mixer < MODEL_MIXERS ? rows[mixer].word : NULL;
}

unsigned model_mixer_class(int mixer)
{
    return mixer >= 0 && mixer < MODEL_MIXERS ? rows[mixer].class : 0;
}

double model_norm_params(const struct model_spec *s, double width)
{
    return s->norm == MODEL_LAYERNORM ? 2 * width : width;
}

double model_mixer_kv_heads(const struct model_spec *s)
{
    if (s->attention == MODEL_GQA)
        return (double)s->kv_heads;
    return (double)s->heads;
}

double model_mixer_window_keys(double seq, double w)
{
    if (seq <= w)
        return seq / 2;
    return w - w * w / (2 * seq);
}

double model_mixer_chunk_keys(double seq, double c)
{
    double whole = seq > c ? (double)(long)(seq / c) : 0, rest;
    if (seq <= c)
        return seq / 2;
    rest = seq - whole * c;
    return (whole * c * c / 2 + rest * rest / 2) / seq;
}

/* Keys a query of the softmax row `mixer` sees, on average. */
static double keys(const struct model_spec *s, int mixer)
{
    double seq = (double)s->seq_len;
    switch (mixer) {
    case MODEL_MIX_WINDOW:
        return model_mixer_window_keys(seq, (double)s->window);
    case MODEL_MIX_CHUNK:
        return model_mixer_chunk_keys(seq, (double)s->chunk);
    case MODEL_MIX_SPARSE:
        return model_mixer_window_keys(seq, (double)s->index_topk);
    default:
        return seq / 2; /* causal: mean keys per query */
    }
}

/* MLA's projections: q_a, q_b, kv_a, kv_b, o (DeepSeek-V2/V3). */
static void mla(const struct model_spec *s, struct model_mixer_numbers *a)
{
    double h = (double)s->hidden, n = (double)s->heads;
    double ql = (double)s->q_lora_rank, kl = (double)s->kv_lora_rank;
    double nope = (double)s->qk_nope_head_dim;
    double rope = (double)s->qk_rope_head_dim;
    double v = (double)s->v_head_dim;
    double q_down = ql > 0 ? h * ql : 0;
    double q_up = ql > 0 ? ql * n * (nope + rope) : h * n * (nope + rope);
    double kv_down = h * (kl + rope);
    double kv_up = kl * n * (nope + v);
    double out = n * v * h;
    a->params = q_down + q_up + kv_down + kv_up + out +
                (ql > 0 ? model_norm_params(s, ql) : 0) +
                model_norm_params(s, kl);
    a->up_fwd = 2 * (ql > 0 ? q_up : 0) + 2 * kv_up;
    a->proj_fwd = 2 * (q_down + q_up + kv_down + kv_up + out);
    a->col_fwd = 2 * (ql > 0 ? q_down : q_up) + 2 * kv_down;
    a->qk_dim = nope + rope;
    a->v_dim = v;
    /* down projections from the gathered hidden; up projections from
     * the latents (split as their outputs); the output projection
     * row-parallel */
    if (ql > 0) {
        model_operands_column(&a->cast, h, ql, 1);
        a->cast.in += ql;
        a->cast.grad += n * (nope + rope);
    } else {
        model_operands_column(&a->cast, h, n * (nope + rope), 1);
    }
    model_operands_column(&a->cast, h, kl + rope, 1);
    a->cast.in += kl;
    a->cast.grad += n * (nope + v);
    model_operands_row(&a->cast, n * v, h, 1);
    a->rope_elems = rope * (n + 1);
}

/* MHA/GQA projections: q (with the output gate's half beside it), k,
 * v, o; biases, QK-norm, sinks. */
static void gqa(const struct model_spec *s, struct model_mixer_numbers *a)
{
    double h = (double)s->hidden, n = (double)s->heads;
    double d = (double)(s->head_dim ? s->head_dim : s->hidden / s->heads);
    double kvh = model_mixer_kv_heads(s);
    double gate = s->output_gate ? 2 : 1; /* q_proj's width, in n d */
    double q = h * n * d * gate, kv = 2 * h * kvh * d, out = n * d * h;
    a->params = q + kv + out;
    if (s->linear_bias)
        a->params += gate * n * d + 2 * kvh * d + h;
    else if (s->qkv_bias)
        a->params += gate * n * d + 2 * kvh * d;
    if (s->qk_norm) /* one d-wide norm each for queries and keys */
        a->params += 2 * model_norm_params(s, d);
    if (s->sinks) /* one logit per head */
        a->params += n;
    a->proj_fwd = 2 * (q + kv + out);
    a->col_fwd = 2 * (q + kv);
    /* forward order q, k, v, o (torchtitan's Attention.forward: wq, wk,
     * wv, then wo): the 2nd and 4th are k (half of kv) and o */
    a->mms = 4;
    a->even_fwd = 2 * (kv / 2 + out);
    a->qk_dim = d;
    a->v_dim = d;
    model_operands_column(&a->cast, h, (gate * n + 2 * kvh) * d, 1);
    model_operands_row(&a->cast, n * d, h, 1);
    a->rope_elems = d * (n + kvh) * s->rope_fraction;
    if (s->output_gate) /* sigmoid(gate) x output: two reads, a write */
        a->act_elems += 3 * n * d;
}

/* The lightning indexer (DeepSeek-V3.2): its projections and its scores
 * over every preceding key, per token. */
static void indexer(const struct model_spec *s, struct model_mixer_numbers *a)
{
    double h = (double)s->hidden, hi = (double)s->index_heads;
    double di = (double)s->index_head_dim;
    double from = s->attention == MODEL_MLA && s->q_lora_rank > 0
                      ? (double)s->q_lora_rank
                      : h; /* wq_b reads the query latent */
    double wq = from * hi * di, wk = h * di, ww = h * hi;
    a->params += wq + wk + 2 * di + ww; /* k_norm: a LayerNorm */
    a->proj_fwd += 2 * (wq + wk + ww);
    a->core_fwd += 2 * hi * di * ((double)s->seq_len / 2);
    a->kv_elems += di; /* its keys, gathered like the attention's */
    if (from == h)
        model_operands_column(&a->cast, h, hi * di + di + hi, 1);
    else {
        model_operands_column(&a->cast, h, di + hi, 1);
        a->cast.in += from;
        a->cast.grad += hi * di;
    }
}

static void
softmax(const struct model_spec *s, int mixer, struct model_mixer_numbers *a)
{
    double n = (double)s->heads;
    double ctx = keys(s, mixer);
    bool sparse_mla = mixer == MODEL_MIX_SPARSE && s->attention == MODEL_MLA;
    if (s->attention == MODEL_MLA)
        mla(s, a);
    else
        gqa(s, a);
    if (!(rows[mixer].class & MODEL_MIXER_ROPE))
        a->rope_elems = 0;
    if (sparse_mla) { /* MQA mode: the latent is every head's K and V */
        a->qk_dim = (double)(s->kv_lora_rank + s->qk_rope_head_dim);
        a->v_dim = (double)s->kv_lora_rank;
    }
    a->core_fwd = 2 * n * a->qk_dim * ctx + 2 * n * a->v_dim * ctx;
    a->kv_elems = n * (a->qk_dim + a->v_dim);
    if (s->attention != MODEL_MLA)
        a->kv_elems = model_mixer_kv_heads(s) * (a->qk_dim + a->v_dim);
    if (sparse_mla) /* the shared latent and its RoPE key */
        a->kv_elems = a->qk_dim;
    if (mixer == MODEL_MIX_SPARSE)
        indexer(s, a);
}

/* Gated DeltaNet (see the file's opening comment). */
static void linear(const struct model_spec *s, struct model_mixer_numbers *a)
{
    double h = (double)s->hidden;
    double hk = (double)s->linear_key_heads, hv = (double)s->linear_value_heads;
    double dk = (double)s->linear_key_dim, dv = (double)s->linear_value_dim;
    double taps = (double)s->linear_conv, c = (double)s->linear_chunk;
    double kd = hk * dk, vd = hv * dv, conv = 2 * kd + vd;
    double in = h * (2 * kd + 2 * vd) + h * 2 * hv, out = vd * h;
    a->params = in + conv * taps + 2 * hv + model_norm_params(s, dv) + out;
    a->proj_fwd = 2 * (in + out);
    a->col_fwd = 2 * in;
    a->scan_fwd[MODEL_SCAN_LINEAR] =
        2 * hv * (3 * c * dk + 2 * c * dv + c * c / 3 + 3 * dk * dv) +
        2 * taps * conv;
    a->qk_dim = dk;
    a->v_dim = dv;
    a->state_elems = hv * dk * dv + (taps - 1) * conv;
    /* l2-normed q and k, the gated RMSNorm (output and z in, out) */
    a->norm_elems = 2 * 2 * kd + 3 * vd;
    a->act_elems = 2 * conv; /* the convolution's SiLU */
    model_operands_column(&a->cast, h, 2 * kd + 2 * vd + 2 * hv, 1);
    model_operands_row(&a->cast, vd, h, 1);
}

/* Mamba-2 (see the file's opening comment). */
static void ssm(const struct model_spec *s, struct model_mixer_numbers *a)
{
    double h = (double)s->hidden;
    double nh = (double)s->ssm_heads, p = (double)s->ssm_head_dim;
    double n = (double)s->ssm_state, g = (double)s->ssm_groups;
    double taps = (double)s->ssm_conv, q = (double)s->ssm_chunk;
    double inner = nh * p, conv = inner + 2 * g * n;
    double in = h * (2 * inner + 2 * g * n + nh), out = inner * h;
    a->params =
        in + conv * taps + conv + 3 * nh + model_norm_params(s, inner) + out;
    a->proj_fwd = 2 * (in + out);
    a->col_fwd = 2 * in;
    a->scan_fwd[MODEL_SCAN_SSD] =
        2 * (g * q * n + nh * (q * p + 2 * n * p)) + 2 * taps * conv;
    a->qk_dim = n;
    a->v_dim = p;
    a->state_elems = nh * p * n + (taps - 1) * conv;
    a->norm_elems = 3 * inner; /* the gated RMSNorm: y and z in, out */
    a->act_elems = 2 * conv;   /* the convolution's SiLU */
    model_operands_column(&a->cast, h, 2 * inner + 2 * g * n + nh, 1);
    model_operands_row(&a->cast, inner, h, 1);
}

void model_mixer_numbers(const struct model_spec *s,
                         int mixer,
                         struct model_mixer_numbers *out)
{
    memset(out, 0, sizeof *out);
    if (mixer < 0 || mixer >= MODEL_MIXERS)
        return;
    if (rows[mixer].class & MODEL_MIXER_SOFTMAX)
        softmax(s, mixer, out);
    else if (rows[mixer].class & MODEL_MIXER_LINEAR)
        linear(s, out);
    else if (rows[mixer].class & MODEL_MIXER_SSM)
        ssm(s, out);
}
