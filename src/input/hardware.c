/*
 * hardware: the hardware file's schema, checks and derived SI rates.
 */
#include "hardware.h"

#include <stdio.h>
#include <string.h>

#define OFF(member) offsetof(struct hardware_spec, member)

/* clang-format off */
static const struct datafile_field fields[] = {
    {.section = "gpu", .key = "name", .type = DATAFILE_STRING, .offset = OFF(gpu_name), .size = 128, .required = true, .help = "GPU model"},
    {.section = "gpu", .key = "bf16_peak_tflops", .type = DATAFILE_DOUBLE, .offset = OFF(bf16_peak_tflops), .min = 1, .max = 1e6, .required = true, .unit = "TFLOP/s", .help = "dense BF16 tensor-core peak (at least 1: a 2016 P100 did 19 in FP16)"},
    {.section = "gpu", .key = "bf16_achievable_tflops", .type = DATAFILE_DOUBLE, .offset = OFF(bf16_achievable_tflops), .min = 1, .max = 1e6, .required = true, .unit = "TFLOP/s", .help = "measured BF16 GEMM rate (at least 1, as the peak: every time divides by it)"},
    {.section = "gpu", .key = "fp8_peak_tflops", .type = DATAFILE_DOUBLE, .offset = OFF(fp8_peak_tflops), .max = 1e6, .def = "0", .unit = "TFLOP/s", .help = "dense FP8 tensor-core peak (0: no FP8; else at least 1, as BF16)"},
    {.section = "gpu", .key = "fp8_achievable_tflops", .type = DATAFILE_DOUBLE, .offset = OFF(fp8_achievable_tflops), .max = 1e6, .def = "0", .unit = "TFLOP/s", .help = "measured FP8 GEMM rate (0 or at least 1, as the peak)"},
    {.section = "gpu", .key = "hbm_gib", .type = DATAFILE_DOUBLE, .offset = OFF(hbm_gib), .min = 1, .max = 1e6, .required = true, .unit = "GiB", .help = "memory the CUDA runtime reports per GPU (at least 1: a 2016 P100 has 16)"},
    {.section = "gpu", .key = "hbm_peak_tbps", .type = DATAFILE_DOUBLE, .offset = OFF(hbm_peak_tbps), .min = 0.1, .max = 1e3, .required = true, .unit = "TB/s", .help = "HBM bandwidth, specification (at least 0.1: a 2016 P100 has 0.72)"},
    {.section = "gpu", .key = "hbm_achievable_tbps", .type = DATAFILE_DOUBLE, .offset = OFF(hbm_achievable_tbps), .min = 0.1, .max = 1e3, .required = true, .unit = "TB/s", .help = "HBM bandwidth, measured (at least 0.1, as the peak: HBM times divide by it)"},
    {.section = "gpu", .key = "sms", .type = DATAFILE_INT, .offset = OFF(sms), .min = 1, .max = 1e5, .required = true, .help = "streaming multiprocessors"},
    {.section = "gpu", .key = "comm_sms", .type = DATAFILE_INT, .offset = OFF(comm_sms), .max = 1e5, .def = "0", .help = "SMs reserved for communication kernels"},
    {.section = "gpu", .key = "clock_derate", .type = DATAFILE_DOUBLE, .offset = OFF(clock_derate), .min = 0.1, .max = 1, .def = "1", .help = "sustained/boost clock under power caps with real data (at least 0.1: capped GPUs sustain over half their boost clock)"},
    {.section = "gpu", .key = "cuda_context_gib", .type = DATAFILE_DOUBLE, .offset = OFF(cuda_context_gib), .max = 1e3, .def = "0", .unit = "GiB", .help = "CUDA context and kernels per process"},
    {.section = "gpu", .key = "nccl_buffers_gib", .type = DATAFILE_DOUBLE, .offset = OFF(nccl_buffers_gib), .max = 1e3, .def = "0", .unit = "GiB", .help = "communication library buffers"},
    {.section = "gpu", .key = "fragmentation_pct", .type = DATAFILE_DOUBLE, .offset = OFF(fragmentation_pct), .max = 100, .def = "0", .unit = "%", .help = "allocator overhead over the allocated bytes"},
    {.section = "gpu", .key = "host_link_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(host_link_gbps), .max = 1e4, .def = "0", .unit = "GB/s", .help = "the GPU's link to its host's memory per direction (PCIe, NVLink-C2C): what activation offloading (the plan's offload) copies over; 0: not known, offloading plans refused"},
    {.section = "gpu", .key = "fp8_transpose", .type = DATAFILE_BOOL, .offset = OFF(fp8_transpose), .def = "true", .help = "FP8 GEMMs take K-major operands only (Hopper, Ada: the TN layout): an FP8 recipe writes each operand it casts twice, as is and transposed for the backward, and transposes an all-gathered one after the gather; false where the tensor cores take any layout (Blackwell)"},
    {.section = "cluster", .key = "name", .type = DATAFILE_STRING, .offset = OFF(cluster_name), .size = 128, .required = true, .help = "cluster name shown in reports"},
    {.section = "cluster", .key = "gpus", .type = DATAFILE_INT, .offset = OFF(gpus), .min = 1, .max = 1e7, .required = true, .help = "GPUs in the cluster"},
    {.section = "cluster", .key = "gpus_per_node", .type = DATAFILE_INT, .offset = OFF(gpus_per_node), .min = 1, .max = 1e4, .required = true, .help = "GPUs per host (server); gpus is a multiple"},
    {.section = "cluster", .key = "nvlink_peak_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(nvlink_peak_gbps), .min = 1, .max = 1e6, .required = true, .unit = "GB/s", .help = "NVLink per GPU per direction, specification (at least 1: PCIe 3.0 x16 moves 16)"},
    {.section = "cluster", .key = "nvlink_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(nvlink_gbps), .min = 1, .max = 1e6, .required = true, .unit = "GB/s", .help = "NVLink per GPU per direction, achievable (at least 1, as the peak)"},
    {.section = "cluster", .key = "ib_peak_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(ib_peak_gbps), .min = 0.1, .max = 1e6, .required = true, .unit = "GB/s", .help = "scale-out network per GPU per direction, specification (at least 0.1: 1 Gb/s Ethernet moves 0.125)"},
    {.section = "cluster", .key = "ib_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(ib_gbps), .min = 0.1, .max = 1e6, .required = true, .unit = "GB/s", .help = "scale-out network per GPU per direction, achievable (at least 0.1, as the peak)"},
    {.section = "cluster", .key = "nvlink_latency_us", .type = DATAFILE_DOUBLE, .offset = OFF(nvlink_latency_us), .max = 1e6, .def = "0", .unit = "us", .help = "latency of one collective call inside a node"},
    {.section = "cluster", .key = "ib_latency_us", .type = DATAFILE_DOUBLE, .offset = OFF(ib_latency_us), .max = 1e6, .def = "0", .unit = "us", .help = "latency of one collective call across nodes"},
    {.section = "cluster", .key = "gpu_hour_usd", .type = DATAFILE_DOUBLE, .offset = OFF(gpu_hour_usd), .max = 1e6, .def = "0", .unit = "USD", .help = "rental price of one GPU-hour"},
    {.section = "cluster", .key = "nvlink_domain", .type = DATAFILE_INT, .offset = OFF(nvlink_domain), .max = 1e6, .def = "0", .help = "GPUs sharing one NVLink fabric, whole hosts (0: gpus_per_node); the last domain may be partial"},
};
/* clang-format on */

static const struct datafile_schema schema = {.kind = "hardware",
                                              .fields = fields,
                                              .n = sizeof fields /
                                                   sizeof fields[0]};

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
    datafile_meta_problem(&h->meta, d, STATUS_RANGE, section, key, problem);
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
                      enum hardware_link link,
                      double gbps,
                      struct hardware *out)
{
    *out = *hw;
    if (link == HARDWARE_LINK_IB) {
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
