/*
 * hardware: one GPU type and the cluster built from it, read from a
 * hardware data file: peak and achievable FLOP/s, HBM, NVLink and
 * InfiniBand rates, memory the runtime keeps for itself, and the
 * collectives library (collectives.h) whose latencies its links take.
 *
 * "Achievable" rates are the speeds of light the planner uses (measured
 * GEMM and collective bandwidths); peaks are shown beside them on charts.
 */
#ifndef PROJ_HARDWARE_H
#define PROJ_HARDWARE_H

#include <stdbool.h>
#include <stddef.h>

#include "datafile.h"
#include "diag.h"

struct calibration;
struct collectives;
struct stack;

struct hardware_spec {
    char gpu_name[128];
    double bf16_peak_tflops;       /* dense */
    double bf16_achievable_tflops; /* measured GEMM */
    double fp8_peak_tflops;        /* dense; 0 = no FP8 tensor cores */
    double fp8_achievable_tflops;
    double hbm_gib;       /* capacity the CUDA runtime reports */
    double hbm_peak_tbps; /* TB/s = 1e12 B/s */
    double hbm_achievable_tbps;
    long sms;
    long comm_sms;       /* SMs running communication kernels */
    double clock_derate; /* sustained clock under power caps, 0..1 */
    double cuda_context_gib;
    double nccl_buffers_gib;
    double fragmentation_pct; /* of the allocated bytes */
    double host_link_gbps;    /* to host memory, per direction; 0: unknown */
    double host_op_factor;    /* the host CPU's time per framework operation
                                 against an x86 server host's (1) */
    bool fp8_transpose;       /* FP8 GEMMs take K-major operands only (TN) */
    double board_w;           /* one GPU's board power (TDP), W; 0: unknown */
    char cluster_name[128];
    long gpus;
    long gpus_per_node;      /* per host (server) */
    long nvlink_domain;      /* GPUs on one NVLink fabric; 0: gpus_per_node */
    double nvlink_peak_gbps; /* per GPU per direction, GB/s = 1e9 B/s */
    double nvlink_gbps;      /* achievable */
    double ib_peak_gbps;     /* per GPU per direction */
    double ib_gbps;          /* achievable */
    double gpu_hour_usd;
    char collectives[256]; /* the collectives file, relative to this one */
    double nvls_share;     /* NVLS bus bandwidth share; 0: no NVLS */
    /* the LL protocol's bus bandwidth cap on one node, two, more (NCCL's
     * llMaxBws row of this platform; 0: none) */
    double ll_max_1node_gbps, ll_max_2nodes_gbps, ll_max_nodes_gbps;
    double net_overhead_us; /* the host's post per network send */
    /* Goodput and energy (goodput.h): job interruptions per million
     * GPU-hours (0: none counted), the checkpoint storage's aggregate
     * write bandwidth (GB/s), the restart's time without the checkpoint's
     * read (min); one host's power at load (W; 0: gpus_per_node x
     * board_w), the data centre's PUE (>= 1), the grid's location-based
     * intensity (kg CO2e per kWh; 0: unknown). */
    double failures_per_mgpu_hour, storage_gbps, restart_min;
    double node_w, pue, grid_kg_per_kwh;
};

struct hardware {
    struct hardware_spec spec;
    struct datafile_meta meta;
    /* Derived, in SI units (FLOP/s, B/s, s): */
    double bf16_flops; /* achievable x derates */
    double fp8_flops;  /* 0 when the GPU has no FP8 */
    double bf16_peak_flops;
    double fp8_peak_flops;
    double hbm_bps;
    double host_link_bps; /* 0: unknown */
    double nvlink_bps;
    double ib_bps;
    /* the collectives library's Simple ring steps, s: inside a node and
     * across nodes (the units every collective's latency is counted in:
     * struct comm_lat) */
    double coll_step_s, coll_net_step_s;
    double capacity_bytes;
    double compute_derate; /* the clock derate (comm SMs: terms.c) */
    /* The collectives library's tuning model (owned: the file
     * spec.collectives names, loaded with this one). */
    struct collectives *coll;
    /* Measured kernel and network efficiencies for the expected time
     * (borrowed; set by the caller after loading; NULL: none). */
    const struct calibration *cal;
    /* The training stack the report's plans run (borrowed; set by the
     * caller beside cal; NULL: none): the workbook's stack inputs. */
    const struct stack *stack;
    /* Share of HBM a plan keeps free, in % (the sweep's
     * report.headroom_pct; set by the caller beside cal; 0 as loaded): a
     * plan fits when terms_fits() says so, and memory_view() picks how a
     * plan runs by the same rule. */
    double headroom_pct;
    /* GPUs sharing one NVLink fabric (whole hosts; the cluster's last
     * domain may hold fewer): what placement calls a node. NVL72: 72
     * GPUs, 4 per host; an HGX server: its 8. */
    long domain;
};

/*
 * The schema of hardware files (the GPU, the cluster's links and the
 * efficiencies): every section and key with its type, range, unit and default;
 * for loading, `check` and data/README.md. Static: never NULL.
 */
const struct datafile_schema *hardware_schema(void);

/*
 * Loads the hardware file at path with --set overrides of its sections,
 * and the collectives file it names (cluster.collectives, relative to
 * path's directory unless absolute) with theirs; checks cross-field rules
 * (achievable <= peak, comm_sms < sms, whole hosts, NVLink domains of
 * whole hosts) and derives SI rates. On failure h is released.
 */
enum status hardware_load(const char *path,
                          struct hardware *h,
                          struct datafile_set *sets,
                          size_t nsets,
                          struct diag *d);

/* A cluster's two links: NVLink inside an NVLink domain, the scale-out
 * network (InfiniBand, RoCE, EFA: "IB") across domains. */
enum hardware_link {
    HARDWARE_LINK_NVLINK,
    HARDWARE_LINK_IB,
};

/*
 * A shallow copy of hw into out with the bandwidth of `link` set to gbps,
 * the file value and the derived rate alike: the cluster the sensitivity
 * charts re-time plans on. out borrows hw's pointers (calibration,
 * stack); never release it.
 *
 *   hardware_at_link(hw, HARDWARE_LINK_IB, 100, &at);
 */
void hardware_at_link(const struct hardware *hw,
                      enum hardware_link link,
                      double gbps,
                      struct hardware *out);

/* Recomputes the derived rates after spec was changed (sensitivity). */
void hardware_derive(struct hardware *h);

void hardware_release(struct hardware *h);

#endif
