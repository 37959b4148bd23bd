/*
 * terms_memory: the memory terms (see terms_memory.h): what a plan needs
 * per GPU beyond the parts memory.c counts, the total, the headroom and
 * the one rule of "fits", each template beside its C expression.
 */
#include "terms_memory.h"

#include <stddef.h>

#define GIB 1073741824.0

/* ---- Memory terms ---- */

double terms_mem_other(const struct hardware_spec *s, const struct memory *m)
{
    return (s->cuda_context_gib + s->nccl_buffers_gib) * GIB +
           s->fragmentation_pct / 100 *
               (m->weights + m->grads + m->optimizer + m->activations);
}

double terms_mem_total(const struct memory *m)
{
    return m->weights + m->grads + m->optimizer + m->activations + m->other;
}

double terms_mem_usable(double capacity, double headroom_pct)
{
    return capacity * (1 - headroom_pct / 100);
}

double terms_mem_headroom(const struct memory *m)
{
    return m->capacity - m->total;
}

/* Each row's C side: the bytes above over 2^30 (exact scaling, so the
 * same number as the GiB sum the template computes, to the last bit
 * where the template's order matches). */
static double m_other(const struct terms_mem_env *e)
{
    return terms_mem_other(&e->hw->spec, e->mem) / GIB;
}

static double m_total(const struct terms_mem_env *e)
{
    return terms_mem_total(e->mem) / GIB;
}

static double m_headroom(const struct terms_mem_env *e)
{
    return terms_mem_headroom(e->mem) / GIB;
}

bool terms_fits(double total, double capacity, double headroom_pct)
{
    return total <= terms_mem_usable(capacity, headroom_pct);
}

static double m_fits(const struct terms_mem_env *e)
{
    return terms_fits(e->mem->total, e->mem->capacity, e->headroom_pct);
}

/* clang-format off */
static const struct terms_mem_term mem_terms[] = {
    /* memory.c: context and buffers, then fragmentation over the
     * allocated bytes (Korthikanti's parts; the logits are inside the
     * activations) */
    {TERMS_MEM_OTHER, "mem_other",
     "CUDA_CONTEXT_GIB+NCCL_BUFFERS_GIB+FRAGMENTATION_PCT/100*"
     "({mem_weights}+{mem_grads}+{mem_opt}+{mem_act})", m_other},
    {TERMS_MEM_TOTAL, "mem_total",
     "{mem_weights}+{mem_grads}+{mem_opt}+{mem_act}+{mem_other}", m_total},
    {TERMS_MEM_HEADROOM, "headroom", "HBM_GIB-{mem_total}", m_headroom},
    /* 1 or 0, not TRUE or FALSE: libxlsxwriter 1.1.4 caches a formula's
     * text or number, never a boolean, and a client that does not
     * recalculate (LibreOffice by default) would read "TRUE" as text in
     * the Summary's array formulas; the cell's number format shows it as
     * TRUE / FALSE */
    {TERMS_MEM_FITS, "fits",
     "IF({mem_total}<=HBM_GIB*(1-HEADROOM_PCT/100),1,0)", m_fits},
};
/* clang-format on */

const struct terms_mem_term *terms_memory(size_t *n)
{
    *n = sizeof mem_terms / sizeof mem_terms[0];
    return mem_terms;
}
