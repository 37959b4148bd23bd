/*
 * ep_overlap: combined 1F1B's paired layer (see ep_overlap.h).
 */
#include "ep_overlap.h"

static double max2(double a, double b)
{
    return a > b ? a : b;
}

double ep_overlap_paired_s(const struct ep_overlap_layer *l)
{
    double t1 = max2(l->attn_fwd, l->combine_bwd);
    double end_db = max2(l->dispatch_fwd, l->mlp_dgrad) + l->dispatch_bwd;
    double end_mf =
        max2(l->mlp_dgrad + l->mlp_wgrad, l->dispatch_fwd) + l->mlp_fwd;
    double t3 = max2(l->combine_fwd, l->attn_bwd);
    return t1 + max2(end_db, end_mf) + t3;
}

double ep_overlap_exposed_s(const struct ep_overlap_layer *l,
                            double layers,
                            double unpaired)
{
    double comp =
        l->attn_fwd + l->attn_bwd + l->mlp_fwd + l->mlp_dgrad + l->mlp_wgrad;
    double comm =
        l->dispatch_fwd + l->combine_fwd + l->dispatch_bwd + l->combine_bwd;
    double paired = max2(0, ep_overlap_paired_s(l) - comp);
    if (!(layers > 0))
        return 0;
    if (unpaired < 0)
        unpaired = 0;
    if (unpaired > 1)
        unpaired = 1;
    return layers * (unpaired * comm + (1 - unpaired) * paired);
}

double ep_overlap_unpaired(long pp, long vpp, long rank, double microbatches)
{
    double warmup, forwards;
    if (pp <= 1) {
        warmup = 1;
        forwards = microbatches;
    } else if (vpp > 1) {
        warmup = (double)(2 * (pp - rank - 1) + (vpp - 1) * pp + 1);
        forwards = microbatches * (double)vpp;
    } else { /* Megatron asks for vpp with pp > 1; 1F1B's warm-up + 1 */
        warmup = (double)(pp - rank);
        forwards = microbatches;
    }
    if (!(forwards > 0) || warmup >= forwards)
        return 1;
    return warmup < 0 ? 0 : warmup / forwards;
}
