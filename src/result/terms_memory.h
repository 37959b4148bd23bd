/*
 * terms_memory: the memory terms — what a plan needs per GPU beyond the
 * parts memory.c counts (the runtime's share), the total, the usable
 * bytes and the headroom, and the one rule of "fits" — each template
 * beside its C expression, over a struct memory already weighed. Below
 * evaluate (they weigh nothing: they add up parts memory.c counted), so
 * rank, figures and the writers read them over a carried memory.
 */
#ifndef PROJ_TERMS_MEMORY_H
#define PROJ_TERMS_MEMORY_H

#include <stdbool.h>
#include <stddef.h>

#include "hardware.h"
#include "result.h"

enum terms_mem_id {
    TERMS_MEM_OTHER,    /* CUDA context, NCCL buffers, fragmentation */
    TERMS_MEM_TOTAL,    /* the parts summed */
    TERMS_MEM_HEADROOM, /* capacity left free */
    TERMS_MEM_FITS,     /* 1 when total <= capacity x (1 - headroom
                           share), else 0 (shown as TRUE / FALSE) */
    TERMS_MEM_COUNT
};

/* What a memory term's C expression reads: the parts of struct memory in
 * bytes (other and total as memory_view() computed them), the hardware
 * and the sweep's headroom share (percent). */
struct terms_mem_env {
    const struct memory *mem;
    const struct hardware *hw;
    double headroom_pct;
};

/* One memory term: its key (the Plans column that shows it), template
 * over {mem_weights} {mem_grads} {mem_opt} {mem_act} {mem_other}
 * {mem_total} (GiB), and C expression (GiB; fits: 1 or 0). */
struct terms_mem_term {
    int id;              /* enum terms_mem_id */
    const char *key;     /* "mem_total" */
    const char *formula; /* "{mem_weights}+...+{mem_other}" */
    double (*c)(const struct terms_mem_env *e);
};

/* The memory terms, in enum terms_mem_id order; *n receives the count. */
const struct terms_mem_term *terms_memory(size_t *n);

/*
 * Whether total bytes fit in capacity bytes with headroom_pct percent of
 * it kept free: total <= capacity x (1 - headroom_pct / 100). The one
 * rule of "fits" (rank, figures and the Plans formula).
 */
bool terms_fits(double total, double capacity, double headroom_pct);

/*
 * The memory terms in bytes, each written once (the TERMS_MEM_* rows
 * divide these by 2^30, which is exact; a GiB figure elsewhere is one of
 * these over 2^30 too):
 *   other    CUDA context and NCCL buffers (GiB in hw) plus the
 *            fragmentation share of the parts m holds (weights,
 *            gradients, optimizer, activations)
 *   total    those parts and m->other
 *   usable   what a plan may use of capacity, headroom_pct kept free
 *   headroom what m leaves free of m->capacity
 */
double terms_mem_other(const struct hardware_spec *hw, const struct memory *m);
double terms_mem_total(const struct memory *m);
double terms_mem_usable(double capacity, double headroom_pct);
double terms_mem_headroom(const struct memory *m);

#endif
