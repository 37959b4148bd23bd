/*
 * hardware: the hardware file's schema, checks and derived SI rates.
 */
#include "hardware.h"

#include <stdio.h>
#include <string.h>

#define OFF(member) offsetof(struct hardware_spec, member)

/* clang-format off */
static const struct datafile_field fields[] = {
    {"gpu", "name", DATAFILE_STRING, OFF(gpu_name), 128, 0, 0, false, true, NULL, "", NULL, "GPU model"},
    {"gpu", "bf16_peak_tflops", DATAFILE_DOUBLE, OFF(bf16_peak_tflops), 0, 1, 1e6, false, true, NULL, "TFLOP/s", NULL, "dense BF16 tensor-core peak (at least 1: a 2016 P100 did 19 in FP16)"},
    {"gpu", "bf16_achievable_tflops", DATAFILE_DOUBLE, OFF(bf16_achievable_tflops), 0, 1, 1e6, false, true, NULL, "TFLOP/s", NULL, "measured BF16 GEMM rate (at least 1, as the peak: every time divides by it)"},
    {"gpu", "fp8_peak_tflops", DATAFILE_DOUBLE, OFF(fp8_peak_tflops), 0, 0, 1e6, false, false, "0", "TFLOP/s", NULL, "dense FP8 tensor-core peak (0: no FP8; else at least 1, as BF16)"},
    {"gpu", "fp8_achievable_tflops", DATAFILE_DOUBLE, OFF(fp8_achievable_tflops), 0, 0, 1e6, false, false, "0", "TFLOP/s", NULL, "measured FP8 GEMM rate (0 or at least 1, as the peak)"},
    {"gpu", "hbm_gib", DATAFILE_DOUBLE, OFF(hbm_gib), 0, 1, 1e6, false, true, NULL, "GiB", NULL, "memory the CUDA runtime reports per GPU (at least 1: a 2016 P100 has 16)"},
    {"gpu", "hbm_peak_tbps", DATAFILE_DOUBLE, OFF(hbm_peak_tbps), 0, 0.1, 1e3, false, true, NULL, "TB/s", NULL, "HBM bandwidth, specification (at least 0.1: a 2016 P100 has 0.72)"},
    {"gpu", "hbm_achievable_tbps", DATAFILE_DOUBLE, OFF(hbm_achievable_tbps), 0, 0.1, 1e3, false, true, NULL, "TB/s", NULL, "HBM bandwidth, measured (at least 0.1, as the peak: HBM times divide by it)"},
    {"gpu", "sms", DATAFILE_INT, OFF(sms), 0, 1, 1e5, false, true, NULL, "", NULL, "streaming multiprocessors"},
    {"gpu", "comm_sms", DATAFILE_INT, OFF(comm_sms), 0, 0, 1e5, false, false, "0", "", NULL, "SMs reserved for communication kernels"},
    {"gpu", "clock_derate", DATAFILE_DOUBLE, OFF(clock_derate), 0, 0.1, 1, false, false, "1", "", NULL, "sustained/boost clock under power caps with real data (at least 0.1: capped GPUs sustain over half their boost clock)"},
    {"gpu", "cuda_context_gib", DATAFILE_DOUBLE, OFF(cuda_context_gib), 0, 0, 1e3, false, false, "0", "GiB", NULL, "CUDA context and kernels per process"},
    {"gpu", "nccl_buffers_gib", DATAFILE_DOUBLE, OFF(nccl_buffers_gib), 0, 0, 1e3, false, false, "0", "GiB", NULL, "communication library buffers"},
    {"gpu", "fragmentation_pct", DATAFILE_DOUBLE, OFF(fragmentation_pct), 0, 0, 100, false, false, "0", "%", NULL, "allocator overhead over the allocated bytes"},
    {"gpu", "host_link_gbps", DATAFILE_DOUBLE, OFF(host_link_gbps), 0, 0, 1e4, false, false, "0", "GB/s", NULL, "the GPU's link to its host's memory per direction (PCIe, NVLink-C2C): what activation offloading (the plan's offload) copies over; 0: not known, offloading plans refused"},
    {"gpu", "fp8_transpose", DATAFILE_BOOL, OFF(fp8_transpose), 0, 0, 0, false, false, "true", "", NULL, "FP8 GEMMs take K-major operands only (Hopper, Ada: the TN layout): an FP8 recipe writes each operand it casts twice, as is and transposed for the backward, and transposes an all-gathered one after the gather; false where the tensor cores take any layout (Blackwell)"},
    {"cluster", "name", DATAFILE_STRING, OFF(cluster_name), 128, 0, 0, false, true, NULL, "", NULL, "cluster name shown in reports"},
    {"cluster", "gpus", DATAFILE_INT, OFF(gpus), 0, 1, 1e7, false, true, NULL, "", NULL, "GPUs in the cluster"},
    {"cluster", "gpus_per_node", DATAFILE_INT, OFF(gpus_per_node), 0, 1, 1e4, false, true, NULL, "", NULL, "GPUs per host (server); gpus is a multiple"},
    {"cluster", "nvlink_peak_gbps", DATAFILE_DOUBLE, OFF(nvlink_peak_gbps), 0, 1, 1e6, false, true, NULL, "GB/s", NULL, "NVLink per GPU per direction, specification (at least 1: PCIe 3.0 x16 moves 16)"},
    {"cluster", "nvlink_gbps", DATAFILE_DOUBLE, OFF(nvlink_gbps), 0, 1, 1e6, false, true, NULL, "GB/s", NULL, "NVLink per GPU per direction, achievable (at least 1, as the peak)"},
    {"cluster", "ib_peak_gbps", DATAFILE_DOUBLE, OFF(ib_peak_gbps), 0, 0.1, 1e6, false, true, NULL, "GB/s", NULL, "scale-out network per GPU per direction, specification (at least 0.1: 1 Gb/s Ethernet moves 0.125)"},
    {"cluster", "ib_gbps", DATAFILE_DOUBLE, OFF(ib_gbps), 0, 0.1, 1e6, false, true, NULL, "GB/s", NULL, "scale-out network per GPU per direction, achievable (at least 0.1, as the peak)"},
    {"cluster", "nvlink_latency_us", DATAFILE_DOUBLE, OFF(nvlink_latency_us), 0, 0, 1e6, false, false, "0", "us", NULL, "latency of one collective call inside a node"},
    {"cluster", "ib_latency_us", DATAFILE_DOUBLE, OFF(ib_latency_us), 0, 0, 1e6, false, false, "0", "us", NULL, "latency of one collective call across nodes"},
    {"cluster", "gpu_hour_usd", DATAFILE_DOUBLE, OFF(gpu_hour_usd), 0, 0, 1e6, false, false, "0", "USD", NULL, "rental price of one GPU-hour"},
    {"cluster", "nvlink_domain", DATAFILE_INT, OFF(nvlink_domain), 0, 0, 1e6, false, false, "0", "", NULL, "GPUs sharing one NVLink fabric, whole hosts (0: gpus_per_node); the last domain may be partial"},
};
/* clang-format on */

static const struct datafile_schema schema = {"hardware", fields,
                                              sizeof fields / sizeof fields[0]};

const struct datafile_schema *hardware_schema(void)
{
    return &schema;
}

static void bad(const struct hardware *h,
                struct diag *d,
                const char *section,
                const char *key,
                const char *problem)
{
    long i = datafile_field_index(hardware_schema(), section, key);
    char where[1200];
    if (i < 0)
        diag_add(d, STATUS_RANGE, "%s: %s.%s: %s", h->meta.path, section, key,
                 problem);
    else
        diag_add(d, STATUS_RANGE, "%s: %s",
                 datafile_meta_where(&h->meta, (size_t)i, where, sizeof where),
                 problem);
}

static void not_above(const struct hardware *h,
                      struct diag *d,
                      const char *section,
                      const char *key,
                      double value,
                      const char *peak_key,
                      double peak)
{
    char why[200];
    if (value <= peak)
        return;
    snprintf(why, sizeof why, "%g is above %s.%s (%g)", value, section,
             peak_key, peak);
    bad(h, d, section, key, why);
}

static void check_spec(const struct hardware *h, struct diag *d)
{
    const struct hardware_spec *s = &h->spec;
    char why[200];
    not_above(h, d, "gpu", "bf16_achievable_tflops", s->bf16_achievable_tflops,
              "bf16_peak_tflops", s->bf16_peak_tflops);
    not_above(h, d, "gpu", "fp8_achievable_tflops", s->fp8_achievable_tflops,
              "fp8_peak_tflops", s->fp8_peak_tflops);
    not_above(h, d, "gpu", "hbm_achievable_tbps", s->hbm_achievable_tbps,
              "hbm_peak_tbps", s->hbm_peak_tbps);
    not_above(h, d, "cluster", "nvlink_gbps", s->nvlink_gbps,
              "nvlink_peak_gbps", s->nvlink_peak_gbps);
    not_above(h, d, "cluster", "ib_gbps", s->ib_gbps, "ib_peak_gbps",
              s->ib_peak_gbps);
    /* FP8 rates are 0 (no FP8) or rates like BF16's: at least 1, so the
     * partition weights 1/rate and every time stay finite. */
    if (s->fp8_peak_tflops > 0 && s->fp8_peak_tflops < 1) {
        snprintf(why, sizeof why,
                 "expected 0 (no FP8) or at least 1, got %.15g",
                 s->fp8_peak_tflops);
        bad(h, d, "gpu", "fp8_peak_tflops", why);
    }
    if (s->fp8_achievable_tflops > 0 && s->fp8_achievable_tflops < 1) {
        snprintf(why, sizeof why,
                 "expected 0 (no FP8) or at least 1, got %.15g",
                 s->fp8_achievable_tflops);
        bad(h, d, "gpu", "fp8_achievable_tflops", why);
    } else if (s->fp8_peak_tflops > 0 && s->fp8_achievable_tflops <= 0)
        bad(h, d, "gpu", "fp8_achievable_tflops",
            "required (> 0) when fp8_peak_tflops > 0");
    if (s->comm_sms >= s->sms) {
        snprintf(why, sizeof why, "expected fewer than gpu.sms (%ld), got %ld",
                 s->sms, s->comm_sms);
        bad(h, d, "gpu", "comm_sms", why);
    }
    if (s->nvlink_domain % s->gpus_per_node != 0) {
        snprintf(why, sizeof why,
                 "expected whole hosts: a multiple of gpus_per_node (%ld), "
                 "got %ld",
                 s->gpus_per_node, s->nvlink_domain);
        bad(h, d, "cluster", "nvlink_domain", why);
    }
    if (s->gpus % s->gpus_per_node != 0 && s->gpus > s->gpus_per_node) {
        snprintf(why, sizeof why,
                 "%ld GPUs do not fill whole nodes of %ld (gpus_per_node)",
                 s->gpus, s->gpus_per_node);
        bad(h, d, "cluster", "gpus", why);
    }
}

void hardware_derive(struct hardware *h)
{
    const struct hardware_spec *s = &h->spec;
    /* SMs running communication are charged while it runs (terms.c's
     * comm_sm), not to every plan's compute. */
    h->compute_derate = s->clock_derate;
    h->bf16_flops = s->bf16_achievable_tflops * 1e12 * h->compute_derate;
    h->fp8_flops = s->fp8_achievable_tflops * 1e12 * h->compute_derate;
    h->bf16_peak_flops = s->bf16_peak_tflops * 1e12;
    h->fp8_peak_flops = s->fp8_peak_tflops * 1e12;
    h->hbm_bps = s->hbm_achievable_tbps * 1e12;
    h->host_link_bps = s->host_link_gbps * 1e9;
    h->nvlink_bps = s->nvlink_gbps * 1e9;
    h->ib_bps = s->ib_gbps * 1e9;
    h->nvlink_latency_s = s->nvlink_latency_us * 1e-6;
    h->ib_latency_s = s->ib_latency_us * 1e-6;
    h->capacity_bytes = s->hbm_gib * 1073741824.0;
    h->domain = s->nvlink_domain > 0 ? s->nvlink_domain : s->gpus_per_node;
}

enum status hardware_load(const char *path,
                          struct hardware *h,
                          struct datafile_set *sets,
                          size_t nsets,
                          struct diag *d)
{
    enum status st;
    memset(h, 0, sizeof *h);
    st = datafile_load(path, hardware_schema(), &h->spec, &h->meta, sets, nsets,
                       d);
    if (st != STATUS_OK)
        return st;
    check_spec(h, d);
    diag_finish(d);
    if (d->status != STATUS_OK) {
        hardware_release(h);
        return d->status;
    }
    hardware_derive(h);
    return STATUS_OK;
}

void hardware_at_link(const struct hardware *hw,
                      bool ib,
                      double gbps,
                      struct hardware *out)
{
    *out = *hw;
    if (ib) {
        out->spec.ib_gbps = gbps;
        out->ib_bps = gbps * 1e9;
    } else {
        out->spec.nvlink_gbps = gbps;
        out->nvlink_bps = gbps * 1e9;
    }
}

void hardware_release(struct hardware *h)
{
    if (h)
        datafile_meta_release(&h->meta);
}
