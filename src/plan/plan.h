/*
 * plan: one parallel training plan — how the GPUs are sliced (data,
 * tensor, pipeline, expert and context parallel), the ZeRO stage, the
 * pipeline schedule, precision, recomputation and batch. Parsing from
 * "key=value" text, validation with a reason, the family name, and where
 * each parallel group's GPUs sit (GPUs per NVLink domain, domains
 * spanned: a "node" below is an NVLink domain, hardware.domain).
 *
 * Rank order (innermost first): tp, cp, dp, pp for dense layers; expert
 * layers fold the same tp*cp*dp GPUs of a stage as ep (innermost) x edp.
 */
#ifndef PROJ_PLAN_H
#define PROJ_PLAN_H

#include <stdbool.h>
#include <stddef.h>

#include "diag.h"
#include "hardware.h"
#include "model.h"

/* The pipeline schedules, in the order of their rows in schedule.c. A
 * new schedule is a constant here and a row (with its PLAN word and its
 * bubble rule) there. */
enum plan_schedule {
    PLAN_1F1B, /* the first: with pp = 1 every schedule is this one */
    PLAN_INTERLEAVED,
    PLAN_ZB,
    PLAN_DUALPIPE,
    PLAN_SCHEDULES
};

#define PLAN_ZERO_MAX 3 /* ZeRO stages 0..3 */

/*
 * The fields of a plan, one row each: X(type, name). struct plan is
 * generated from these rows, and so are plan_same() and plan_members(),
 * so a cache keyed by a plan (rank_cache.c) or a test that varies every
 * field (tests/test_rank_cache.c) covers a new field by default.
 */
#define PLAN_MEMBERS(X)                                                       \
    X(long, gpus)                                                             \
    X(long, tp)                                                               \
    X(long, pp)                                                               \
    X(long, ep)                                                               \
    X(long, cp)                                                               \
    X(long, zero)     /* 0..PLAN_ZERO_MAX */                                  \
    X(int, schedule)  /* enum plan_schedule */                                \
    X(long, vpp)      /* virtual stages per GPU (interleaved), else 1 */      \
    X(int, precision) /* enum model_precision */                              \
    X(int, recompute) /* enum model_recompute */                              \
    /* sp=0: tensor parallel without sequence parallelism; false (sp=1,       \
     * the default) so zeroed plans keep it */                                \
    X(bool, no_sp)                                                            \
    /* decoder layers on the first and the last pipeline stage, as            \
     * Megatron-LM's --decoder-first-pipeline-num-layers and                  \
     * --decoder-last-pipeline-num-layers (the other stages an equal share,   \
     * model_partition_split); both 0: roofplan's split balanced by forward   \
     * time (model_partition), or pp_split's rule */                          \
    X(long, pp_first)                                                         \
    X(long, pp_last)                                                          \
    X(int, pp_split) /* enum model_split (with pp_first and pp_last 0) */     \
    /* pp_layout, Megatron-LM's --pipeline-model-parallel-layout of equal     \
     * middle chunks (plan_layout_parse): the decoder layers of the first,    \
     * each middle and the last of layout_chunks chunks, and the MTP modules  \
     * ('m') in the last; layout_chunks 0: no layout */                       \
    X(long, layout_chunks)                                                    \
    X(long, layout_first)                                                     \
    X(long, layout_middle)                                                    \
    X(long, layout_last)                                                      \
    X(long, layout_mtp)                                                       \
    X(long, mbs) /* micro-batch, sequences */                                 \
    X(long, gbs) /* global batch, sequences */                                \
    /* decoder layers whose saved activations wait in host memory between     \
     * their forward and backward (Megatron-Core's cpu_offloading_num_layers, \
     * Transformer Engine's CPU offloading: the first `offload` layers); 0:   \
     * none. pp = 1 and no recomputation (Megatron-Core's rules) */           \
    X(long, offload)                                                          \
    /* Derived by plan_check(): */                                            \
    X(long, dp)           /* gpus / (tp pp cp) */                             \
    X(long, edp)          /* tp cp dp / ep: expert data parallel */           \
    X(long, microbatches) /* per pipeline per step: gbs / (dp mbs) */

struct plan {
#define PLAN_MEMBER_DECLARE(type, name) type name;
    PLAN_MEMBERS(PLAN_MEMBER_DECLARE)
#undef PLAN_MEMBER_DECLARE
};

/* One field of struct plan (plan_members): its name, type, where it
 * sits and how wide it is. */
struct plan_member {
    const char *name; /* "offload" */
    const char *type; /* "long", "int", "bool": as PLAN_MEMBERS spells it */
    size_t offset;    /* offsetof(struct plan, offload) */
    size_t size;      /* sizeof(long) */
};

/* The fields of struct plan in order, one per PLAN_MEMBERS row; *n
 * receives the count. */
const struct plan_member *plan_members(size_t *n);

/* True when plans a and b agree in every field (PLAN_MEMBERS). */
bool plan_same(const struct plan *a, const struct plan *b);

/* Why a plan cannot run; one counter per reason in a sweep. */
enum plan_reason {
    PLAN_OK,
    PLAN_BAD_GPUS,        /* gpus not whole nodes (hosts) */
    PLAN_BAD_DIVIDE,      /* tp pp cp does not divide gpus */
    PLAN_BAD_TP_NODE,     /* tp larger than (or straddling) a node: an
                           * NVLink domain */
    PLAN_BAD_TP_HEADS,    /* tp does not divide the (kv) heads */
    PLAN_BAD_CP_SEQ,      /* cp does not divide the sequence */
    PLAN_BAD_EP_DENSE,    /* ep > 1 on a dense model */
    PLAN_BAD_EP_EXPERTS,  /* ep does not divide the routed experts */
    PLAN_BAD_EP_GROUP,    /* ep does not divide tp cp dp */
    PLAN_BAD_PP_LAYERS,   /* more pipeline chunks than layers */
    PLAN_BAD_BATCH,       /* gbs not a multiple of dp mbs */
    PLAN_BAD_DUALPIPE,    /* DualPipe with odd pp or odd micro-batches */
    PLAN_BAD_INTERLEAVED, /* vpp < 2, or micro-batches not a multiple of pp */
    PLAN_BAD_VPP,         /* vpp != 1 on a non-interleaved schedule */
    PLAN_BAD_NO_FP8,      /* fp8 on a GPU without FP8 */
    PLAN_SAME_SCHEDULE,   /* pp = 1: every schedule is the same plan */
    PLAN_SAME_ZERO,    /* no data parallelism: every ZeRO stage is the same */
    PLAN_SAME_PLAN,    /* a sweep combination that resolves to an earlier one's
                          plan (gbs targets rounding alike; gpus 0 and the
                          cluster's size): set by sweep_run, not plan_check */
    PLAN_BAD_SP_MOE,   /* MoE with tp > 1 but no sequence parallelism */
    PLAN_BAD_PP_SPLIT, /* pp_first/pp_last or pp_split leave the other
                          chunks unequal layers (or none), pp_first/pp_last
                          with vpp > 1 or with pp_split, or either with
                          pp = 1 */
    PLAN_BAD_OFFLOAD,  /* offload with pp > 1 or recomputation, of every
                          layer, or without the hardware's host link */
    PLAN_REASONS
};

/* Which pipeline chunks a rank holds (plan_rank_chunks). */
enum plan_layout {
    PLAN_LAYOUT_SINGLE,      /* chunk rank */
    PLAN_LAYOUT_INTERLEAVED, /* vpp chunks rank + j pp */
    PLAN_LAYOUT_PAIRED       /* chunks rank and pp-1-rank, each half the
                              * micro-batches (with pp >= 2) */
};

/*
 * One pipeline schedule: its words, its shape rules and its rules of
 * time and memory; every caller reads these instead of naming the
 * schedule. The functions are called with pp >= 2 only (with pp = 1 no
 * schedule has a bubble or a warm-up, and one micro-batch is in flight).
 */
struct plan_schedule_row {
    const char *name;  /* PLAN word: "dualpipe" */
    const char *words; /* for a reader: "DualPipe" */
    enum plan_layout layout;
    bool vpp;     /* needs vpp >= 2 (virtual stages); the others vpp = 1 */
    bool pp_even; /* needs an even pp */
    bool mb_even; /* needs an even number of micro-batches */
    bool mb_pp;   /* needs micro-batches a multiple of pp */
    /* the reason plan_check gives when pp_even, mb_even or mb_pp fail */
    enum plan_reason shape_reason;
    /* copies of a rank's weights (and their optimizer state) the
     * schedule keeps in each data-parallel group: 2 where a rank also
     * holds its mirror rank's chunk */
    int copies;
    /* bubble in units of the core time of one micro-batch, from the
     * forward, weight-gradient and backward (1 - forward) shares of it */
    double (*bubble)(const struct plan *p,
                     double fwd,
                     double wgrad,
                     double bwd);
    /* warm-up forward micro-batches of rank `rank` before its first
     * backward (not yet capped at the micro-batches that exist) */
    double (*warmup)(const struct plan *p, long rank);
    /* micro-batches of activations rank `rank` keeps in flight, capped
     * (plan_inflight) */
    double (*inflight)(const struct plan *p, long rank);
    /* runs a forward and a backward chunk of two micro-batches paired in
     * its steady state, each hiding the other's communication: what a
     * stack's ep_a2a_overlap = dualpipe needs (a row's vpp, virtual
     * stages, is what its pp_p2p_overlap = interleaved needs) */
    bool paired_fb;
};

/* The row of a schedule (enum plan_schedule); asserts it is one. */
const struct plan_schedule_row *plan_schedule_of(int schedule);

/* "interleaved": the PLAN words of the schedules with virtual stages
 * (vpp), '|' between them. */
void plan_vpp_schedules(char *buf, size_t size);

/* Micro-batches a step's count must be a multiple of under schedule
 * `schedule` with pp stages: 1, 2 (mb_even), pp (mb_pp), 2 pp. */
long plan_schedule_mb_unit(int schedule, long pp);

/* Short name of a reason ("ep does not divide tp*cp*dp"); never NULL. */
const char *plan_reason_str(enum plan_reason r);

/*
 * Parses PLAN arguments: each argument holds key=value pairs separated by
 * spaces or commas. Keys: gpus tp pp ep cp zero schedule vpp precision
 * recompute mbs gbs dp sp pp_first pp_last pp_split pp_layout offload
 * (sp=0|1: sequence parallelism with tp, default 1; pp_first, pp_last,
 * pp_split, pp_layout, offload: struct plan). Keys not given keep
 * their value from *defaults. `dp`, when given, is checked against gpus/(tp pp
 * cp) by plan_check(). Returns STATUS_USAGE naming the offending token on
 * unknown keys, bad values, duplicates or a missing '='.
 *
 *   plan_parse(argv, argc, &defaults, &plan, &given_dp, &d);
 */
enum status plan_parse(char *const *args,
                       size_t nargs,
                       const struct plan *defaults,
                       struct plan *out,
                       long *given_dp,
                       struct diag *d);

/* What plan_check() refuses besides plans that cannot run. */
enum plan_check_mode {
    PLAN_CHECK_RUNNABLE, /* only plans that cannot run (eval, a run) */
    PLAN_CHECK_DISTINCT  /* also a plan the same as another one (a sweep) */
};

/*
 * Derives dp, edp and microbatches and checks that the plan can run on
 * the model and cluster; with PLAN_CHECK_DISTINCT also plans that are the
 * same as another (pp = 1 with a schedule other than 1f1b; a ZeRO stage
 * > 0 with no data parallelism), as a sweep wants. Returns the reason; when d
 * is not NULL, also a sentence with the values and what is accepted.
 */
enum plan_reason plan_check(struct plan *p,
                            const struct model *m,
                            const struct hardware *hw,
                            enum plan_check_mode mode,
                            struct diag *d);

/* The fields of struct plan a sweep sets, as bits (plan_reason_fields). */
enum plan_field {
    PLAN_FIELD_GPUS = 1 << 0,
    PLAN_FIELD_TP = 1 << 1,
    PLAN_FIELD_PP = 1 << 2,
    PLAN_FIELD_EP = 1 << 3,
    PLAN_FIELD_CP = 1 << 4,
    PLAN_FIELD_ZERO = 1 << 5,
    PLAN_FIELD_SCHEDULE = 1 << 6,
    PLAN_FIELD_VPP = 1 << 7,
    PLAN_FIELD_PRECISION = 1 << 8,
    PLAN_FIELD_RECOMPUTE = 1 << 9,
    PLAN_FIELD_SP = 1 << 10, /* no_sp */
    PLAN_FIELD_PP_FIRST = 1 << 11,
    PLAN_FIELD_PP_LAST = 1 << 12,
    PLAN_FIELD_PP_SPLIT = 1 << 13,
    PLAN_FIELD_MBS = 1 << 14,
    PLAN_FIELD_GBS = 1 << 15,
    PLAN_FIELD_OFFLOAD = 1 << 16,
    PLAN_FIELDS = (1 << 17) - 1 /* every one */
};

/*
 * The fields (enum plan_field bits) whose values decide that plan_check()
 * rejects a plan for reason r, redundant or not, on one model and
 * cluster: those its checks read up to the last one that can give r (the
 * checks before it passed). Two plans that agree in these fields get the
 * same verdict when one of them is rejected for r, so a sweep counts a
 * block of combinations that vary only other fields without checking
 * each one (sweep_run). PLAN_OK and PLAN_SAME_PLAN: PLAN_FIELDS.
 */
unsigned plan_reason_fields(enum plan_reason r);

/*
 * plan_check() in two parts: its first rules, on gpus, tp, pp, cp, sp
 * and ep alone (PLAN_BAD_GPUS to PLAN_BAD_EP_GROUP, deriving dp and
 * edp), and the rest, for a plan whose gpus, tp, pp, cp, sp and ep
 * passed the first (dp and edp as it derived them). A sweep checks the
 * first once for every combination of the inner dimensions (sweep_run).
 * The same reasons and sentences as plan_check.
 */
enum plan_reason plan_check_split(struct plan *p,
                                  const struct model *m,
                                  const struct hardware *hw,
                                  struct diag *d);
enum plan_reason plan_check_rest(struct plan *p,
                                 const struct model *m,
                                 const struct hardware *hw,
                                 enum plan_check_mode mode,
                                 struct diag *d);

/*
 * plan_check()'s last rule, on the plan's offload (PLAN_BAD_OFFLOAD):
 * activation offloading needs pp = 1, no recomputation, fewer layers
 * than the model's and the hardware's host link (gpu.host_link_gbps).
 */
enum plan_reason plan_check_offload(const struct plan *p,
                                    const struct model *m,
                                    const struct hardware *hw,
                                    struct diag *d);

/*
 * The rules of plan_check() on the schedule and vpp alone, with the same
 * reason and sentence: a schedule with virtual stages needs vpp >= 2, the
 * others vpp = 1. A sweep's [defaults] checks them without a model.
 */
enum plan_reason plan_check_vpp(const struct plan *p, struct diag *d);

/*
 * Family of a plan by its non-trivial dimensions, e.g. "ZeRO-3",
 * "ZeRO-1+PP+EP", "DP+TP+PP": the data-parallel flavour first (DP for
 * ZeRO-0, ZeRO-n otherwise, omitted when dp = 1), then TP, CP, PP, EP.
 */
void plan_family(const struct plan *p, char *buf, size_t size);

/*
 * Whether name is one plan_family() can write for some plan (a sweep's
 * report.baseline names one): "ZeRO-3", "DP+TP", "single GPU", ...
 */
bool plan_family_known(const char *name);

/* PLAN words of a schedule, precision, recompute policy ("dualpipe",
 * "fp8", "selective"); "?" when out of range. */
const char *plan_schedule_str(int schedule);
const char *plan_precision_str(int precision);
const char *plan_recompute_str(int recompute);

/* The same words as datafile word functions (datafile_schema.h): NULL
 * past the last, so a schema's enum field and a PLAN key accept the
 * words of the rows (the schedules', enum model_precision's, enum
 * model_recompute's) and messages list them. */
const char *plan_schedule_word(int schedule);
const char *plan_precision_word(int precision);
const char *plan_recompute_word(int recompute);

/*
 * The layer split of plan p's pp*vpp chunks for a model of `layers`
 * decoder layers: false when p's layers are balanced by time (pp_first,
 * pp_last 0 and pp_split balanced); else true with the exact decoder
 * layers of the first and the last chunk (model_partition_split; the
 * others an equal share, which model_partition_split_ok checks). With
 * pp_first or pp_last, 0 stands for the others' share (Megatron's
 * --decoder-first/last-pipeline-num-layers unset).
 */
bool plan_split_layers(const struct plan *p,
                       long layers,
                       long *first,
                       long *last);

/* Whether plan p's layer split keys go together (plan_check's first rule
 * for them): a split needs pp >= 2; pp_first/pp_last need vpp = 1 and
 * pp_split balanced (Megatron takes the counts or the account flags, and
 * the counts without virtual stages); a pp_layout lists pp*vpp chunks and
 * goes with neither. */
bool plan_split_shape_ok(const struct plan *p);

/*
 * Megatron-LM's --pipeline-model-parallel-layout notation, as its
 * PipelineParallelLayerLayout reads it (megatron/core/transformer/
 * pipeline_parallel_layer_layout.py): chunks in virtual-stage order
 * separated by '|', 'E' the embedding, 't' a decoder layer, 'm' an MTP
 * module, 'L' the loss (with the output head), "X*N" and "(...)*N"
 * repeating. roofplan takes the layouts its partition can place: 'E' the
 * first symbol of the first chunk, 'L' the last of the last, 'm' only in
 * the last chunk, and every chunk between the same number of decoder
 * layers (at least one). Fills p's layout_* fields; false with `why`
 * when the text is not such a layout.
 */
bool plan_layout_parse(const char *text,
                       struct plan *p,
                       char *why,
                       size_t why_size);

/* p's layout in the notation (canonical: "Et|(tt|)*30mL"), "" when p
 * names none. */
void plan_layout_format(const struct plan *p, char *buf, size_t size);

/* PLAN word of a layer split ("embedding_loss", model_split_word); "?"
 * when out of range. */
const char *plan_split_str(int split);

/* "tp=1 pp=16 ep=64 ..." in PLAN syntax (round-trips through plan_parse);
 * " sp=0" only when sequence parallelism is off, pp_first and pp_last only
 * when not 0, pp_split only when not balanced. */
void plan_format(const struct plan *p, char *buf, size_t size);

/* Where a parallel group's GPUs sit. */
struct plan_span {
    long size;     /* GPUs in the group */
    long per_node; /* of them in one node */
    long nodes;    /* nodes the group spans */
};

/*
 * Span of a group of `size` ranks `stride` apart, rank 0 first, with
 * `domain` consecutive ranks per NVLink domain (hardware.domain; the
 * cluster's last domain may be partial). The group at rank 0 starts on a
 * domain boundary: where domains do not tile the groups (72-GPU domains,
 * groups of 64), groups further on straddle more domains and are slower;
 * a speed of light takes the best-placed group.
 */
struct plan_span plan_span(long size, long stride, long domain);

#define PLAN_RANK_CHUNKS_MAX 64 /* chunks one GPU holds (vpp or 2) */

/*
 * The pipeline chunks (indexes into a partition of pp*vpp chunks) that
 * pipeline rank `rank` holds, and the micro-batches each one processes
 * per step: 1f1b/zb: {rank}; interleaved: {rank + j pp}; DualPipe:
 * {rank, pp-1-rank}, each with half the micro-batches. Returns the count.
 */
size_t plan_rank_chunks(const struct plan *p,
                        long rank,
                        long *chunk,
                        double *microbatches);

/*
 * What one pipeline rank holds: its chunks summed (model_chunk_add), how
 * many, the share of the step's micro-batches each chunk runs (1, or 1/2
 * under DualPipe) and its pipeline sends per micro-batch per chunk-pass.
 * Depends on pp, vpp and the schedule only, so it can be built once.
 */
struct plan_rank {
    long rank;
    double chunks;
    double mb_share;
    double pp_sends; /* forward and backward sends, per micro-batch */
    struct model_chunk sum;
    /* the chunks themselves (plan_rank_chunks order), in the partition
     * the view was built from, which must outlive it */
    const struct model_partition *part;
    long index[PLAN_RANK_CHUNKS_MAX];
    /* each chunk's largest layer (non-expert, expert params): ZeRO-3
     * gathers one layer at a time */
    double layer_dense[PLAN_RANK_CHUNKS_MAX];
    double layer_expert[PLAN_RANK_CHUNKS_MAX];
};

/* Builds rank `rank`'s view of partition part under plan p's layout. */
void plan_rank_view(const struct plan *p,
                    const struct model_partition *part,
                    long rank,
                    struct plan_rank *out);

/*
 * Micro-batches of activations the rank keeps in flight, in units of
 * one micro-batch through one of its chunks: 1f1b/zb: pp - rank;
 * interleaved: 2(pp - rank - 1) + (vpp - 1) pp + 1 (Megatron-LM's warm-up
 * count; pp + (pp-1)/vpp stages on rank 0, Korthikanti et al. §4.2.3);
 * DualPipe: pp + 1 (DualPipe README, Table); never more than exist.
 */
double plan_inflight(const struct plan *p, long rank);

/*
 * Of plan_inflight(), the micro-batches in flight through the rank's j-th
 * chunk (plan_rank_chunks order). DualPipe: pp - rank through chunk rank
 * and rank + 1 through chunk pp-1-rank, each direction a 1F1B pipeline
 * of half the micro-batches (pp + 1 together, as DualPipe's README
 * counts); other schedules: an equal share.
 */
double plan_inflight_chunk(const struct plan *p, long rank, size_t j);

/* plan_inflight_chunk(p, rank, j) into in[j] for j < n: the same
 * numbers, the schedule looked up once (n at most PLAN_RANK_CHUNKS_MAX). */
void plan_inflight_chunks(const struct plan *p,
                          long rank,
                          size_t n,
                          double *in);

#endif
