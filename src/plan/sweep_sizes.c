/*
 * sweep_sizes: the cluster sizes of a sweep's [space] gpus list, and the
 * space restricted to one of them (see sweep.h). A report of several
 * sizes ranks each size's space on its own.
 */
#include "sweep.h"

size_t
sweep_sizes(const struct sweep_file *sf, const struct hardware *hw, long *out)
{
    size_t i, j, n = 0;
    for (i = 0; i < sf->spec.gpus.n && n < DATAFILE_LIST_MAX; i++) {
        long g =
            sf->spec.gpus.v[i] > 0 ? (long)sf->spec.gpus.v[i] : hw->spec.gpus;
        bool seen = false;
        for (j = 0; j < n; j++)
            seen = seen || out[j] == g;
        if (seen)
            continue;
        /* insertion: ascending */
        for (j = n; j > 0 && out[j - 1] > g; j--)
            out[j] = out[j - 1];
        out[j] = g;
        n++;
    }
    return n;
}

void sweep_at_size(const struct sweep_file *sf,
                   long gpus,
                   struct sweep_file *out)
{
    *out = *sf;
    out->spec.gpus.n = 1;
    out->spec.gpus.v[0] = (double)gpus;
}
