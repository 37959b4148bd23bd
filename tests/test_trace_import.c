/*
 * Tests of trace_classify (the kernel file) and trace_import (the sums,
 * the overlap, the work of the model and the calibration written), on
 * small traces written here (trace_read's own: test_trace_read.c).
 * Expected values are worked out by hand in the comments.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "calibration.h"
#include "hardware.h"
#include "model.h"
#include "trace_classify.h"
#include "trace_import.h"
#include "test_util.h"

/* ---- trace_classify ---- */

static struct trace_rules *
rules_text(const char *text, struct diag *d, char *path)
{
    strcpy(path, "/tmp/roofplan-kernels-XXXXXX");
    util_temp_file(path, text, strlen(text));
    diag_init(d);
    return trace_rules_load(path, d);
}

static void test_trace_rules_first_match_wins(void **state)
{
    static const char text[] = "[kernels]\nsource = here\n"
                               "[gemm_fp8_grouped]\nlibrary = L1\n"
                               "pattern = *m_grouped_fp8*\n"
                               "[gemm_fp8]\nlibrary = L2\n"
                               "pattern = *fp8*\n";
    char path[64];
    struct diag d;
    struct trace_rules *r = rules_text(text, &d, path);
    const char *lib;
    (void)state;
    assert_non_null(r);
    assert_int_equal(trace_rules_classify(r, "x::m_grouped_fp8_y", &lib),
                     TRACE_GEMM_FP8_GROUPED);
    assert_string_equal(lib, "L1");
    assert_int_equal(trace_rules_classify(r, "fp8_ptp128c", &lib),
                     TRACE_GEMM_FP8);
    assert_string_equal(lib, "L2");
    assert_int_equal(trace_rules_classify(r, "rotary_kernel", &lib),
                     TRACE_UNKNOWN);
    assert_string_equal(lib, "");
    assert_string_equal(trace_rules_source(r), "here");
    trace_rules_free(r);
    unlink(path);
}

/* A key or value that is not text (found by fuzz_readers: a bit flipped
 * in "library" made a message with a byte no terminal should get) is
 * refused by the data files' text rule and shown escaped: 0x01 is a
 * control character, the 1st character of the key "\x01ib". */
static void test_trace_rules_refuse_what_is_not_text(void **state)
{
    static const char text[] = "[kernels]\nsource = here\n"
                               "[norm]\n\x01ib = L\nlibrary = L\n"
                               "pattern = *n\xff*\n";
    char path[64], want[512];
    struct diag d;
    (void)state;
    assert_null(rules_text(text, &d, path));
    snprintf(want, sizeof want,
             "%s:4: [norm] \\x01ib: control character U+0001 at character 1",
             path);
    assert_non_null(strstr(d.msg, want));
    snprintf(want, sizeof want, "%s:6: [norm] pattern: invalid UTF-8", path);
    assert_non_null(strstr(d.msg, want));
    unlink(path);
}

static void test_trace_rules_reports_every_bad_line(void **state)
{
    static const char text[] = "[kernels]\nsource = here\n"
                               "[gemm_fp16]\nlibrary = L\n"
                               "[norm]\npattern = *norm*\n"
                               "library = L\ncolour = red\n";
    char path[64], want[512];
    struct diag d;
    (void)state;
    assert_null(rules_text(text, &d, path));
    assert_int_equal(d.status, STATUS_PARSE);
    snprintf(want, sizeof want,
             "%s:4: [gemm_fp16]: unknown kernel class (see "
             "data/README.md)\n"
             "%s:6: [norm] pattern: before the section's library\n"
             "%s:8: [norm] colour: unknown key (library or pattern)",
             path, path, path);
    assert_string_equal(d.msg, want);
    unlink(path);
}

static void test_trace_rules_shipped_file(void **state)
{
    /* data/kernels.ini on names from DeepSeek's H800 trace
     * (github.com/deepseek-ai/profile-data train.json) */
    static const struct {
        const char *name;
        int cls;
    } cases[] = {
        {"void dpsk::ep::internode::combine<false, 8>(int4*)",
         TRACE_EP_COMBINE},
        {"void dpsk::ep::internode::notify_dispatch<false, 8>(int)",
         TRACE_EP_NOTIFY},
        {"void dpsk::ep::internode::dispatch<false, 8, true, 8>(int4*)",
         TRACE_EP_DISPATCH},
        {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::"
         "fp8_dptp128c_acc::GemmKernel>(Params)",
         TRACE_GEMM_FP8_WGRAD},
        {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::"
         "m_grouped_fp8_ptp128c::GemmKernel>(Params)",
         TRACE_GEMM_FP8_GROUPED},
        {"void cutlass::device_kernel<dpsk::grouped_gemm::cuda::"
         "fp8_ptp128c::GemmKernel>(Params)",
         TRACE_GEMM_FP8},
        {"void dpsk::grouped_gemm::cuda::utils::transpose<512, 128, 4, 4>()",
         TRACE_FP8_CAST},
        {"void cutlass::device_kernel<flash::FlashAttnBwdPreprocess<x>>()",
         TRACE_ATTN_AUX},
        {"void cutlass::device_kernel<flash::FlashAttnBwd<x>>()",
         TRACE_ATTN_BWD},
        {"void flash::compute_attn_ws<Flash_fwd_kernel_traits<192>>()",
         TRACE_ATTN_FWD},
        {"sm90_xmma_gemm_bf16bf16_bf16f32_f32_nn_n_tilesize128x128x64",
         TRACE_GEMM_BF16},
        {"rotary_kernel", TRACE_ROPE},
        {"void layer_norm::ln_fwd_kernel<x>()", TRACE_NORM},
        {"void cuda::swiglu_backward<__nv_bfloat16>()", TRACE_ACTIVATION},
        {"ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgs)",
         TRACE_NCCL_ALL_REDUCE},
        {"ncclDevKernel_SendRecv(ncclDevKernelArgs)", TRACE_NCCL_SENDRECV},
        {"_copy_tensor_kernel", TRACE_COPY},
        /* flash-linear-attention's and mamba_ssm's Triton kernels */
        {"chunk_gated_delta_rule_fwd_kernel_h_blockdim64", TRACE_SCAN_LINEAR},
        {"chunk_gated_delta_rule_bwd_kernel_dhu_blockdim64",
         TRACE_SCAN_LINEAR_BWD},
        {"chunk_bwd_kernel_dv_local", TRACE_SCAN_LINEAR_BWD},
        {"merge_16x16_to_64x64_inverse_kernel", TRACE_SCAN_LINEAR},
        {"_chunk_scan_fwd_kernel", TRACE_SCAN_SSD},
        {"_bmm_chunk_fwd_kernel", TRACE_SCAN_SSD},
        {"_chunk_scan_chunk_state_bwd_dx_kernel", TRACE_SCAN_SSD_BWD},
        {"_state_passing_bwd_kernel", TRACE_SCAN_SSD_BWD},
        {"a_kernel_nobody_wrote", TRACE_UNKNOWN},
    };
    struct diag d;
    struct trace_rules *r;
    size_t i;
    (void)state;
    diag_init(&d);
    r = trace_rules_load("data/kernels.ini", &d);
    if (!r)
        fail_msg("%s", d.msg);
    for (i = 0; i < sizeof cases / sizeof *cases; i++)
        if (trace_rules_classify(r, cases[i].name, NULL) != cases[i].cls)
            fail_msg(
                "%s: class %s, expected %s", cases[i].name,
                trace_class_key(trace_rules_classify(r, cases[i].name, NULL)),
                trace_class_key(cases[i].cls));
    trace_rules_free(r);
}

/* ---- trace_import ---- */

/* A kernel event of duration dur (text) named k. */
#define K(dur) \
    "{\"cat\": \"kernel\", \"name\": \"k\", \"ts\": 1, \"dur\": " dur "}"

struct fixture {
    struct trace_rules *rules;
    struct model m;
    struct hardware hw;
    struct plan p;
};

static int setup(void **state)
{
    struct fixture *f = calloc(1, sizeof *f);
    struct diag d;
    diag_init(&d);
    if (!f)
        return -1;
    f->rules = trace_rules_load("data/kernels.ini", &d);
    if (!f->rules ||
        model_load("data/models/deepseek-v3.ini", &f->m, NULL, 0, &d) !=
            STATUS_OK ||
        hardware_load("data/hardware/h800.ini", &f->hw, NULL, 0, &d) !=
            STATUS_OK) {
        fprintf(stderr, "%s\n", d.msg);
        return -1;
    }
    /* the profiled plan: EP64, TP1, one 4096-token sequence per
     * micro-batch, FP8 */
    f->p.tp = f->p.cp = f->p.mbs = 1;
    f->p.ep = 64;
    f->p.precision = MODEL_FP8;
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    struct fixture *f = *state;
    trace_rules_free(f->rules);
    model_release(&f->m);
    hardware_release(&f->hw);
    free(f);
    return 0;
}

/* One kernel event as JSON. */
static size_t
ev(char *buf, size_t size, const char *name, double ts, double dur, int stream)
{
    return (size_t)snprintf(buf, size,
                            "%s{\"ph\": \"X\", \"cat\": \"kernel\", "
                            "\"name\": \"%s\", \"ts\": %.17g, \"dur\": "
                            "%.17g, \"args\": {\"stream\": %d}}",
                            ts > 0 ? ", " : "", name, ts, dur, stream);
}

static void test_trace_import_overlap_by_hand(void **state)
{
    /* compute on stream 7: [0,10] [10,20] [30,40] µs (plus an attention
     * kernel [40,41] so the layers can be counted); communication on 27:
     * [5,35]. Compute busy 10 + 10 + 10 + 1 = 31 µs; communication 30 µs,
     * of it hidden [5,20] + [30,35] = 20 µs, exposed 10 µs; span 41 µs. */
    struct fixture *f = *state;
    char json[2048];
    size_t n = 0;
    struct trace_import *imp = trace_import_new(f->rules);
    struct trace_import_summary *s = calloc(1, sizeof *s);
    struct diag d;
    assert_non_null(imp);
    assert_non_null(s);
    n += (size_t)snprintf(json, sizeof json, "{\"traceEvents\": [");
    n += ev(json + n, sizeof json - n, "rotary_kernel", 0, 10, 7);
    n += ev(json + n, sizeof json - n, "rotary_kernel", 10, 10, 7);
    n += ev(json + n, sizeof json - n, "ncclDevKernel_SendRecv", 5, 30, 27);
    n += ev(json + n, sizeof json - n, "rotary_kernel", 30, 10, 7);
    n += ev(json + n, sizeof json - n, "flash_fwd_kernel", 40, 1, 7);
    snprintf(json + n, sizeof json - n, "]}");
    diag_init(&d);
    assert_int_equal(
        trace_import_read_mem(imp, json, strlen(json), "o.json", &d),
        STATUS_OK);
    assert_int_equal(
        trace_import_summarize(imp, &f->m, &f->hw, &f->p, NULL, s, &d),
        STATUS_OK);
    assert_int_equal(s->compute_stream, 7);
    assert_near(s->compute_busy_s, 31e-6, 1e-9);
    assert_near(s->comm_busy_s, 30e-6, 1e-9);
    assert_near(s->hidden_s, 20e-6, 1e-9);
    assert_near(s->span_s, 41e-6, 1e-9);
    assert_int_equal(s->cls[TRACE_NCCL_SENDRECV].kernels, 1);
    assert_int_equal(s->cls[TRACE_ROPE].kernels, 3);
    free(s);
    trace_import_free(imp);
}

/* A trace of one layer forward and one backward of DeepSeek-V3's MoE
 * layer at 4096 tokens: one attention kernel each way, the expert GEMMs
 * in one grouped kernel each way plus a weight-gradient kernel, and an
 * unknown kernel. */
static struct trace_import *one_layer(const struct fixture *f,
                                      struct trace_import_summary *s,
                                      struct diag *d)
{
    char json[4096];
    size_t n = 0;
    struct trace_import *imp = trace_import_new(f->rules);
    assert_non_null(imp);
    n += (size_t)snprintf(json, sizeof json, "{\"traceEvents\": [");
    n += ev(json + n, sizeof json - n, "flash_fwd_kernel", 0, 1000, 7);
    n += ev(json + n, sizeof json - n, "flash_bwd_kernel", 1000, 3000, 7);
    n += ev(json + n, sizeof json - n, "m_grouped_fp8_gemm", 4000, 2886, 7);
    n += ev(json + n, sizeof json - n, "m_grouped_fp8_gemm", 7000, 2886, 7);
    n += ev(json + n, sizeof json - n, "fp8_dptp128c_acc", 10000, 5000, 7);
    n += ev(json + n, sizeof json - n, "mystery_kernel", 16000, 250, 7);
    snprintf(json + n, sizeof json - n, "]}");
    diag_init(d);
    assert_int_equal(
        trace_import_read_mem(imp, json, strlen(json), "l.json", d), STATUS_OK);
    assert_int_equal(
        trace_import_summarize(imp, &f->m, &f->hw, &f->p, NULL, s, d),
        STATUS_OK);
    return imp;
}

static void test_trace_import_work_by_hand(void **state)
{
    /* DeepSeek-V3 (arXiv 2412.19437 and its config.json): hidden 7168,
     * expert width 2048, top-8 of 256 routed experts, 128 heads, q/k
     * head 192 (128 + 64 rope), v head 128, seq 4096.
     * Routed experts per token: 8 experts x 3 matrices (gate, up, down)
     * x 2 x 7168 x 2048 = 704.64 MFLOP; x 4096 tokens = 2.8862 TFLOP per
     * layer forward (the facts file's 2.89). The grouped class does the
     * forward and the input gradient: 5.7724 TFLOP in 5.772 ms, so
     * 1000.07 TFLOP/s. Attention core per token, causal (mean 2048
     * keys): 2 x 128 x (192 + 128) x 2048 = 167.77 MFLOP; x 4096 =
     * 687.19 GFLOP forward in 1 ms: 687.19 TFLOP/s. Forward + backward
     * at the calibration's 2.5 x: 3.5 x 687.19 GFLOP in 4 ms = 601.29. */
    struct fixture *f = *state;
    struct trace_import_summary *s = calloc(1, sizeof *s);
    struct trace_import *imp;
    struct diag d;
    double expert = 8 * 3 * 2 * 7168.0 * 2048 * 4096;
    double core = 2 * 128 * (192 + 128) * 2048.0 * 4096;
    assert_non_null(s);
    imp = one_layer(f, s, &d);
    assert_near(s->fwd_passes, 1, 1e-12);
    assert_near(s->bwd_passes, 1, 1e-12);
    assert_near(s->tokens, 4096, 1e-12);
    assert_near(s->cls[TRACE_GEMM_FP8_GROUPED].work, 2 * expert, 1e-9);
    assert_near(s->cls[TRACE_GEMM_FP8_GROUPED].work /
                    s->cls[TRACE_GEMM_FP8_GROUPED].measured_s * 1e-12,
                1000.07, 1e-4);
    assert_near(s->cls[TRACE_ATTN_FWD].work, core, 1e-9);
    assert_near(s->attn_fwd_tflops, 687.19, 1e-4);
    assert_near(s->attn_fwd_bwd_tflops, 601.29, 1e-4);
    assert_near(s->head_dim, 192, 1e-12);
    /* with no base calibration the clock factor is 1 */
    assert_near(s->clock, 1, 1e-12);
    /* the unknown kernel is listed with its time */
    assert_int_equal(s->unknowns, 1);
    assert_string_equal(s->unknown[0].name, "mystery_kernel");
    assert_near(s->unknown[0].measured_s, 250e-6, 1e-9);
    assert_int_equal(s->cls[TRACE_UNKNOWN].kernels, 1);
    free(s);
    trace_import_free(imp);
}

/*
 * The chunked scans' classes on tests/data/trace-scan.json, a synthetic
 * trace of tests/data/scan-hybrid.ini (one attention layer, two Gated
 * DeltaNet layers, one Mamba-2 layer; 256 tokens, tp = cp = 1) with
 * kernels named as flash-linear-attention and mamba_ssm name them. One
 * attention forward: the model's one attention layer ran once, so each
 * scan layer once (stack_passes 1).
 * Gated DeltaNet per token and layer (model_mixer.c, docs/model.md): 4
 * value heads, key and value width 8, chunk 64, 4 taps over 2 x 16 + 32 =
 * 64 channels: 2 x 4 x (3 x 64 x 8 + 2 x 64 x 8 + 64^2/3 + 3 x 8 x 8) +
 * 2 x 4 x 64 = 33,450.667 FLOPs; two layers x 256 tokens = 17,126,741.3
 * FLOPs forward, in 2 x (1 + 10 + 5) = 32 us: 0.53521 TFLOP/s.
 * Mamba-2 SSD: 1 group, chunk 64, state 16, 4 heads of 8, 4 taps over 32
 * + 32 channels: 2 x (64 x 16 + 4 x (64 x 8 + 2 x 16 x 8)) + 2 x 4 x 64 =
 * 8,704 FLOPs; x 256 = 2,228,224 in 1 + 2 + 1 + 1 + 3 = 8 us: 0.278528
 * TFLOP/s. The backward classes: 2 x 40 us and 10 us of kernels, timed
 * against twice the forward's FLOPs. Written as [scan] linear_fwd_tflops
 * and ssd_fwd_tflops, they load back as the calibration's scan rates.
 */
static void test_trace_import_scan_rates_by_hand(void **state)
{
    struct fixture *f = *state;
    struct trace_import_summary *s = calloc(1, sizeof *s);
    struct trace_import *imp = trace_import_new(f->rules);
    struct model m;
    struct plan p = {.tp = 1, .cp = 1, .mbs = 1, .ep = 1};
    struct calibration base, out;
    struct diag d;
    char path[] = "/tmp/roofplan-cal-XXXXXX";
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    double gdn = 2 * 256 *
                 (2 * 4 * (3 * 64 * 8 + 2 * 64 * 8 + 4096.0 / 3 + 3 * 8 * 8) +
                  2 * 4 * 64);
    double ssd = 256 * 8704.0;
    assert_non_null(s);
    assert_non_null(imp);
    diag_init(&d);
    if (model_load("tests/data/scan-hybrid.ini", &m, NULL, 0, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    assert_int_equal(
        trace_import_read(imp, "tests/data/trace-scan.json", NULL, &d),
        STATUS_OK);
    assert_int_equal(trace_import_summarize(imp, &m, &f->hw, &p, NULL, s, &d),
                     STATUS_OK);
    assert_int_equal(s->cls[TRACE_SCAN_LINEAR].kernels, 6);
    assert_int_equal(s->cls[TRACE_SCAN_LINEAR_BWD].kernels, 4);
    assert_int_equal(s->cls[TRACE_SCAN_SSD].kernels, 5);
    assert_int_equal(s->cls[TRACE_SCAN_SSD_BWD].kernels, 2);
    assert_near(s->stack_passes, 1, 1e-12);
    assert_near(s->cls[TRACE_SCAN_LINEAR].work, gdn, 1e-6);
    assert_near(s->cls[TRACE_SCAN_LINEAR_BWD].work, 2 * gdn, 1e-6);
    assert_near(s->scan_fwd_tflops[CALIBRATION_SCAN_LINEAR],
                gdn / 32e-6 * 1e-12, 1e-12);
    assert_near(s->scan_fwd_tflops[CALIBRATION_SCAN_LINEAR], 0.53521, 1e-5);
    assert_near(s->scan_fwd_tflops[CALIBRATION_SCAN_SSD], 0.278528, 1e-9);
    assert_near(s->cls[TRACE_SCAN_SSD].work, ssd, 1e-6);
    assert_int_equal(
        calibration_load("data/calibration/h800.ini", &base, NULL, 0, &d),
        STATUS_OK);
    mem = open_memstream(&text, &len);
    assert_non_null(mem);
    assert_int_equal(
        trace_import_write(s, &base, "h800.ini", "test", &f->hw, mem, &d),
        STATUS_OK);
    assert_int_equal(fclose(mem), 0);
    util_temp_file(path, text, len);
    if (calibration_load(path, &out, NULL, 0, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    assert_near(calibration_scan_tflops(&out, CALIBRATION_SCAN_LINEAR), 0.5352,
                1e-12);
    assert_near(calibration_scan_tflops(&out, CALIBRATION_SCAN_SSD), 0.2785,
                1e-12);
    calibration_release(&out);
    calibration_release(&base);
    unlink(path);
    free(text);
    free(s);
    model_release(&m);
    trace_import_free(imp);
}

static void test_trace_import_write_loads_as_calibration(void **state)
{
    /* what is written loads as a calibration (what `check` runs), with
     * the measured attention rates and the base's clock kept */
    struct fixture *f = *state;
    struct trace_import_summary *s = calloc(1, sizeof *s);
    struct trace_import *imp;
    struct calibration base, out;
    struct diag d;
    char path[] = "/tmp/roofplan-cal-XXXXXX";
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    assert_non_null(s);
    imp = one_layer(f, s, &d);
    diag_init(&d);
    assert_int_equal(
        calibration_load("data/calibration/h800.ini", &base, NULL, 0, &d),
        STATUS_OK);
    mem = open_memstream(&text, &len);
    assert_non_null(mem);
    assert_int_equal(
        trace_import_write(s, &base, "h800.ini", "test", &f->hw, mem, &d),
        STATUS_OK);
    assert_int_equal(fclose(mem), 0);
    util_temp_file(path, text, len);
    if (calibration_load(path, &out, NULL, 0, &d) != STATUS_OK)
        fail_msg("%s", d.msg);
    assert_near(
        calibration_attention_tflops(&out, CALIBRATION_ATTN_FWD, 192, NULL),
        687.19, 1e-3);
    assert_near(calibration_clock_factor(&out), calibration_clock_factor(&base),
                1e-12);
    assert_string_equal(out.spec.gpu, base.spec.gpu);
    calibration_release(&out);
    calibration_release(&base);
    unlink(path);
    free(text);
    free(s);
    trace_import_free(imp);
}

/* A trace of the kernels ks[0..n) (name, ts, dur in µs, stream), read
 * into imp as name; the read's status. */
struct k {
    const char *name;
    double ts, dur;
    int stream;
};

static enum status read_kernels(struct trace_import *imp,
                                const char *name,
                                const struct k *ks,
                                size_t n,
                                struct diag *d)
{
    char json[4096];
    size_t at = 0, i;
    at += (size_t)snprintf(json, sizeof json, "{\"traceEvents\": [");
    for (i = 0; i < n; i++)
        at += (size_t)snprintf(json + at, sizeof json - at,
                               "%s{\"cat\": \"kernel\", \"name\": \"%s\", "
                               "\"ts\": %g, \"dur\": %g, \"args\": "
                               "{\"stream\": %d}}",
                               i ? ", " : "", ks[i].name, ks[i].ts, ks[i].dur,
                               ks[i].stream);
    snprintf(json + at, sizeof json - at, "]}");
    diag_init(d);
    return trace_import_read_mem(imp, json, strlen(json), name, d);
}

static void test_trace_import_bounds_kernels_per_file(void **state)
{
    /* Kept for the overlap: one file's kernels at a time, at most
     * limits.kernels of them (the default, 2^22, would take 96 MiB; it
     * took 80 bytes per kernel of every file, unbounded). Two files of
     * 3 kernels read under a bound of 3; the overlap is each file's,
     * added up. a.json: compute [0,10] on 7, communication [5,15] on 27,
     * attention [20,21]: busy 11, comm 10, hidden 5, span 21. b.json:
     * compute [100,110], communication [100,104] and [108,120]: busy 10,
     * comm 16, hidden 4 + 2 = 6, span 20. A third file of 4 kernels is
     * refused at its 4th. */
    static const struct k a[] = {{"rotary_kernel", 0, 10, 7},
                                 {"ncclDevKernel_SendRecv", 5, 10, 27},
                                 {"flash_fwd_kernel", 20, 1, 7}};
    static const struct k b[] = {{"rotary_kernel", 100, 10, 7},
                                 {"ncclDevKernel_SendRecv", 100, 4, 27},
                                 {"ncclDevKernel_SendRecv", 108, 12, 27}};
    static const struct k c[] = {{"rotary_kernel", 1, 1, 7},
                                 {"rotary_kernel", 2, 1, 7},
                                 {"rotary_kernel", 3, 1, 7},
                                 {"rotary_kernel", 4, 1, 7}};
    struct fixture *f = *state;
    struct trace_import *imp = trace_import_new(f->rules);
    struct trace_import_summary *s = calloc(1, sizeof *s);
    struct trace_import_limits lim = TRACE_IMPORT_LIMITS;
    struct diag d;
    assert_non_null(imp);
    assert_non_null(s);
    assert_int_equal(lim.kernels, 1u << 22);
    lim.kernels = 3;
    trace_import_set_limits(imp, &lim);
    assert_int_equal(read_kernels(imp, "a.json", a, 3, &d), STATUS_OK);
    assert_int_equal(read_kernels(imp, "b.json", b, 3, &d), STATUS_OK);
    assert_int_equal(
        trace_import_summarize(imp, &f->m, &f->hw, &f->p, NULL, s, &d),
        STATUS_OK);
    assert_int_equal(s->compute_stream, 7);
    assert_near(s->compute_busy_s, 21e-6, 1e-9);
    assert_near(s->comm_busy_s, 26e-6, 1e-9);
    assert_near(s->hidden_s, 11e-6, 1e-9);
    assert_near(s->span_s, 41e-6, 1e-9);
    assert_int_equal(read_kernels(imp, "c.json", c, 4, &d), STATUS_RANGE);
    assert_string_equal(d.msg,
                        "c.json: event 3: more than 3 kernels in one trace "
                        "(the overlap keeps each one's interval): profile "
                        "fewer steps (torch.profiler's schedule, active=1)");
    free(s);
    trace_import_free(imp);
}

static void test_trace_import_bounds_names(void **state)
{
    /* distinct names are kept (each classified once): at most
     * limits.names of them and limits.name_bytes of their text, NULs
     * included; a name seen before costs nothing */
    static const struct k three[] = {
        {"aa", 1, 1, 7}, {"bb", 2, 1, 7}, {"aa", 3, 1, 7}, {"cc", 4, 1, 7}};
    struct fixture *f = *state;
    struct trace_import_limits lim = TRACE_IMPORT_LIMITS;
    struct trace_import *imp = trace_import_new(f->rules);
    struct diag d;
    assert_non_null(imp);
    lim.names = 2;
    trace_import_set_limits(imp, &lim);
    assert_int_equal(read_kernels(imp, "n.json", three, 4, &d), STATUS_RANGE);
    assert_string_equal(d.msg, "n.json: event 3: more than 2 distinct kernel "
                               "names (a training step has hundreds)");
    trace_import_free(imp);
    imp = trace_import_new(f->rules);
    assert_non_null(imp);
    lim = (struct trace_import_limits)TRACE_IMPORT_LIMITS;
    lim.name_bytes = 8; /* "aa", "bb" and "cc" take 9 */
    trace_import_set_limits(imp, &lim);
    assert_int_equal(read_kernels(imp, "n.json", three, 4, &d), STATUS_RANGE);
    assert_string_equal(d.msg, "n.json: event 3: distinct kernel names of "
                               "more than 8 bytes (a training step has "
                               "hundreds)");
    trace_import_free(imp);
}

static void test_trace_import_write_refuses_above_peak(void **state)
{
    /* the one layer's attention forward runs at 687.19 TFLOP/s (worked
     * out above): on a GPU whose BF16 peak is 600, what would be written
     * is refused as `check` refuses it, and nothing is written */
    struct fixture *f = *state;
    struct trace_import_summary *s = calloc(1, sizeof *s);
    struct trace_import *imp;
    struct calibration base;
    struct diag d;
    char *text = NULL;
    size_t len = 0;
    FILE *mem;
    assert_non_null(s);
    imp = one_layer(f, s, &d);
    diag_init(&d);
    assert_int_equal(
        calibration_load("data/calibration/h800.ini", &base, NULL, 0, &d),
        STATUS_OK);
    f->hw.spec.bf16_peak_tflops = 600;
    mem = open_memstream(&text, &len);
    assert_non_null(mem);
    assert_int_equal(trace_import_write(s, &base, "h800.ini", "model M, plan P",
                                        &f->hw, mem, &d),
                     STATUS_RANGE);
    assert_int_equal(fclose(mem), 0);
    assert_int_equal(len, 0);
    assert_non_null(strstr(
        d.msg, "import trace: nothing written: the calibration from trace "
               "l.json (model M, plan P) is not one roofplan accepts; are "
               "the trace, the model (-m), the plan (--plan: tp, cp, ep, "
               "mbs, precision) and the GPU (-g) the run's?\n"));
    assert_non_null(strstr(d.msg,
                           ": attention_kernel.fwd_tflops: 687.2 is above the "
                           "GPU's peak (data/hardware/h800.ini:7: "
                           "gpu.bf16_peak_tflops = 600)"));
    calibration_release(&base);
    free(text);
    free(s);
    trace_import_free(imp);
}

static void test_trace_import_needs_attention(void **state)
{
    /* without attention kernels the layers cannot be counted */
    struct fixture *f = *state;
    static const char json[] = "{\"traceEvents\": [" K("1") "]}";
    struct trace_import *imp = trace_import_new(f->rules);
    struct trace_import_summary *s = calloc(1, sizeof *s);
    struct diag d;
    assert_non_null(imp);
    assert_non_null(s);
    diag_init(&d);
    assert_int_equal(
        trace_import_read_mem(imp, json, strlen(json), "n.json", &d),
        STATUS_OK);
    assert_int_equal(
        trace_import_summarize(imp, &f->m, &f->hw, &f->p, NULL, s, &d),
        STATUS_PARSE);
    assert_string_equal(d.msg,
                        "n.json: no attention kernels (classes attn_fwd, "
                        "attn_bwd of the kernel file): the layers the trace "
                        "covers cannot be counted");
    free(s);
    trace_import_free(imp);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_trace_rules_first_match_wins),
        cmocka_unit_test(test_trace_rules_refuse_what_is_not_text),
        cmocka_unit_test(test_trace_rules_reports_every_bad_line),
        cmocka_unit_test(test_trace_rules_shipped_file),
        cmocka_unit_test_setup_teardown(test_trace_import_overlap_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_import_work_by_hand, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(
            test_trace_import_write_loads_as_calibration, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_import_scan_rates_by_hand,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_trace_import_write_refuses_above_peak, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_import_needs_attention,
                                        setup, teardown),
        cmocka_unit_test_setup_teardown(
            test_trace_import_bounds_kernels_per_file, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trace_import_bounds_names, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
