/*
 * hardware: the hardware file's schema, checks and derived SI rates.
 */
#include "hardware.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collectives.h"

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
    {.section = "gpu", .key = "host_op_factor", .type = DATAFILE_DOUBLE, .offset = OFF(host_op_factor), .min = 0, .min_open = true, .max = 100, .def = "1", .quiet = true, .help = "the host CPU's time per framework operation (Python, the framework's operator, the launch) against the x86 server hosts the stacks' host figures (host_us_per_kernel, expert_host_us) were measured on: a Grace host's, as measured against such a host (1: an x86 server host)"},
    {.section = "gpu", .key = "fp8_transpose", .type = DATAFILE_BOOL, .offset = OFF(fp8_transpose), .def = "true", .help = "FP8 GEMMs take K-major operands only (Hopper, Ada: the TN layout): an FP8 recipe writes each operand it casts twice, as is and transposed for the backward, and transposes an all-gathered one after the gather; false where the tensor cores take any layout (Blackwell)"},
    {.section = "gpu", .key = "board_w", .type = DATAFILE_DOUBLE, .offset = OFF(board_w), .max = 1e5, .def = "0", .unit = "W", .help = "one GPU's board power (TDP); 0: not known (no energy unless the cluster gives node_w)"},
    {.section = "cluster", .key = "name", .type = DATAFILE_STRING, .offset = OFF(cluster_name), .size = 128, .required = true, .help = "cluster name shown in reports"},
    {.section = "cluster", .key = "gpus", .type = DATAFILE_INT, .offset = OFF(gpus), .min = 1, .max = 1e7, .required = true, .help = "GPUs in the cluster"},
    {.section = "cluster", .key = "gpus_per_node", .type = DATAFILE_INT, .offset = OFF(gpus_per_node), .min = 1, .max = 1e4, .required = true, .help = "GPUs per host (server); gpus is a multiple"},
    {.section = "cluster", .key = "nvlink_peak_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(nvlink_peak_gbps), .min = 1, .max = 1e6, .required = true, .unit = "GB/s", .help = "NVLink per GPU per direction, specification (at least 1: PCIe 3.0 x16 moves 16)"},
    {.section = "cluster", .key = "nvlink_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(nvlink_gbps), .min = 1, .max = 1e6, .required = true, .unit = "GB/s", .help = "NVLink per GPU per direction, achievable (at least 1, as the peak)"},
    {.section = "cluster", .key = "ib_peak_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(ib_peak_gbps), .min = 0.1, .max = 1e6, .required = true, .unit = "GB/s", .help = "scale-out network per GPU per direction, specification (at least 0.1: 1 Gb/s Ethernet moves 0.125)"},
    {.section = "cluster", .key = "ib_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(ib_gbps), .min = 0.1, .max = 1e6, .required = true, .unit = "GB/s", .help = "scale-out network per GPU per direction, achievable (at least 0.1, as the peak)"},
    {.section = "cluster", .key = "gpu_hour_usd", .type = DATAFILE_DOUBLE, .offset = OFF(gpu_hour_usd), .max = 1e6, .def = "0", .unit = "USD", .help = "rental price of one GPU-hour"},
    {.section = "cluster", .key = "collectives", .type = DATAFILE_STRING, .offset = OFF(collectives), .size = 256, .def = "", .help = "the collectives library's tuning file (data/collectives/NAME.ini: NCCL's, RCCL's), as a path relative to this file: every collective's algorithm, protocol and latency (empty: none, every collective the Simple ring at the link's rate with no latency)"},
    {.section = "cluster", .key = "nvls_share", .type = DATAFILE_DOUBLE, .offset = OFF(nvls_share), .max = 2, .def = "0", .help = "NVLink SHARP (NVSwitch multicast): the bus bandwidth share of the library's NVLS algorithms, nvlsEfficiency x (channels - 1) / channels for the GPU's compute capability (0: no NVLS; NVLS runs inside an NVLink domain, NVLS tree across)"},
    {.section = "cluster", .key = "ll_max_1node_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(ll_max_1node_gbps), .max = 1e6, .def = "0", .unit = "GB/s", .help = "the LL protocol's bus bandwidth cap inside one node (NCCL's llMaxBws by compute capability; 0: none)"},
    {.section = "cluster", .key = "ll_max_2nodes_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(ll_max_2nodes_gbps), .max = 1e6, .def = "0", .unit = "GB/s", .help = "the same across two nodes (NCCL's llMaxBws by host CPU; 0: none)"},
    {.section = "cluster", .key = "ll_max_nodes_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(ll_max_nodes_gbps), .max = 1e6, .def = "0", .unit = "GB/s", .help = "the same across more than two nodes (0: none)"},
    {.section = "cluster", .key = "net_overhead_us", .type = DATAFILE_DOUBLE, .offset = OFF(net_overhead_us), .max = 1e3, .def = "1", .unit = "us", .help = "the host's time to post one network send (NCCL getNetOverhead: 1 on Intel and other CPUs, 2 on AMD x86)"},
    {.section = "cluster", .key = "nvlink_domain", .type = DATAFILE_INT, .offset = OFF(nvlink_domain), .max = 1e6, .def = "0", .help = "GPUs sharing one NVLink fabric, whole hosts (0: gpus_per_node); the last domain may be partial"},
    {.section = "cluster", .key = "failures_per_mgpu_hour", .type = DATAFILE_DOUBLE, .offset = OFF(failures_per_mgpu_hour), .max = 1e6, .def = "0", .unit = "/1M GPU-h", .help = "job interruptions per million GPU-hours, a job of N GPUs failing N times as often (0: none counted, wall-clock days are compute days); needs storage_gbps"},
    {.section = "cluster", .key = "storage_gbps", .type = DATAFILE_DOUBLE, .offset = OFF(storage_gbps), .max = 1e9, .def = "0", .unit = "GB/s", .help = "the checkpoint storage's aggregate write bandwidth (and read, on restart): a checkpoint of the weights and optimizer state takes its size over this"},
    {.section = "cluster", .key = "restart_min", .type = DATAFILE_DOUBLE, .offset = OFF(restart_min), .max = 1e4, .def = "0", .unit = "min", .help = "from a failure to training again, the checkpoint's read excluded: detection, rescheduling, the job's start-up"},
    {.section = "cluster", .key = "node_w", .type = DATAFILE_DOUBLE, .offset = OFF(node_w), .max = 1e7, .def = "0", .unit = "W", .help = "one host's power at load, its GPUs, CPUs, NICs and fans (0: gpus_per_node x gpu.board_w)"},
    {.section = "cluster", .key = "pue", .type = DATAFILE_DOUBLE, .offset = OFF(pue), .min = 1, .max = 10, .def = "1", .help = "power usage effectiveness of the data centre: its power over the IT equipment's (at least 1)"},
    {.section = "cluster", .key = "grid_kg_per_kwh", .type = DATAFILE_DOUBLE, .offset = OFF(grid_kg_per_kwh), .max = 10, .def = "0", .unit = "kg/kWh", .help = "the grid's location-based carbon intensity, kg CO2e per kWh (0: no emissions figure)"},
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
    /* a failure costs a checkpoint's read and write: without a storage
     * bandwidth neither has a time */
    if (s->failures_per_mgpu_hour > 0 && s->storage_gbps <= 0) {
        snprintf(why, sizeof why,
                 "%.15g needs cluster.storage_gbps (> 0): a checkpoint's "
                 "write and read take its size over it",
                 s->failures_per_mgpu_hour);
        bad(h, d, "cluster", "failures_per_mgpu_hour", why);
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
    if (h->coll) {
        const struct collectives_cell *ring =
            &h->coll->spec.cell[COLLECTIVES_RING][COLLECTIVES_SIMPLE];
        h->coll_step_s = ring->nvlink_us * 1e-6;
        h->coll_net_step_s = ring->net_us * 1e-6;
    }
    h->capacity_bytes = s->hbm_gib * 1073741824.0;
    h->domain = s->nvlink_domain > 0 ? s->nvlink_domain : s->gpus_per_node;
}

/* The collectives file h's spec names, relative to the directory of the
 * hardware file at path unless absolute, into h->coll (owned). */
static void load_collectives(struct hardware *h,
                             const char *path,
                             struct datafile_set *sets,
                             size_t nsets,
                             struct diag *d)
{
    const char *name = h->spec.collectives, *slash = strrchr(path, '/');
    size_t dir = name[0] == '/' || !slash ? 0 : (size_t)(slash - path) + 1;
    size_t len = dir + strlen(name) + 1;
    char *file = malloc(len);
    struct collectives *c = malloc(sizeof *c);
    if (!file || !c) {
        free(file);
        free(c);
        diag_set(d, STATUS_NOMEM, "out of memory");
        return;
    }
    memcpy(file, path, dir);
    memcpy(file + dir, name, len - dir);
    if (access(file, R_OK) != 0) { /* name the key, not only the file */
        long i =
            datafile_field_index(hardware_schema(), "cluster", "collectives");
        long line = i < 0 ? 0 : h->meta.line[i];
        diag_set(d, STATUS_IO,
                 "%s:%ld: cluster.collectives: %s: cannot open (%s); the "
                 "path is relative to this file's directory (in a copy of "
                 "a shipped file, give it in full)",
                 path, line, file, strerror(errno));
        free(c);
    } else if (collectives_load(file, c, sets, nsets, d) == STATUS_OK)
        h->coll = c;
    else
        free(c);
    free(file);
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
    if (d->status == STATUS_OK && h->spec.collectives[0])
        load_collectives(h, path, sets, nsets, d);
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
    if (!h)
        return;
    datafile_meta_release(&h->meta);
    if (h->coll) {
        collectives_release(h->coll);
        free(h->coll);
        h->coll = NULL;
    }
}
