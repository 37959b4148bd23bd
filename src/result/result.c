/*
 * result: the names of what evaluating a plan gives, and the step and
 * rank a result ranks by (see result.h).
 */
#include "result.h"

const char *comm_kind_str(int kind)
{
    static const char *const names[] = {"all-reduce", "all-gather",
                                        "reduce-scatter", "all-to-all",
                                        "send/recv"};
    if (kind >= 0 && kind <= COMM_SEND_RECV)
        return names[kind];
    return "?";
}

const char *comm_model_str(enum comm_model model)
{
    return model == COMM_FLAT ? "flat" : "topo";
}

const char *cost_bound_label(int bound)
{
    static const char *const names[] = {"compute", "IB", "NVLink", "HBM"};
    if (bound >= COST_COMPUTE && bound <= COST_HBM)
        return names[bound];
    return "?";
}

const char *cost_bound_str(int bound)
{
    static const char *const names[] = {"compute", "ib", "nvlink", "hbm"};
    if (bound >= COST_COMPUTE && bound <= COST_HBM)
        return names[bound];
    return "?";
}

double
cost_binding(double compute, double ib, double nvlink, double hbm, int *bound)
{
    double core = compute;
    *bound = COST_COMPUTE;
    if (ib > core) {
        core = ib;
        *bound = COST_IB;
    }
    if (nvlink > core) {
        core = nvlink;
        *bound = COST_NVLINK;
    }
    if (hbm > core) {
        core = hbm;
        *bound = COST_HBM;
    }
    return core;
}

int cost_expected_bound(const struct cost_result *r)
{
    const struct cost_times *t = &r->t;
    int bound;
    if (!r->work.x.known || !(t->expected > 0))
        return -1;
    /* the expected core's terms (terms.c's T_CORE over the EXP_ set) */
    cost_binding(t->x_compute + t->x_comm_sm + t->x_offload, t->x_ib_hid,
                 t->x_nv_hid, t->x_hbm, &bound);
    return bound;
}

const char *cost_phase_str(int phase)
{
    static const char *const s[COST_PHASES] = {"warmup", "steady", "cooldown",
                                               "bubble", "optimizer"};
    return phase >= 0 && phase < COST_PHASES ? s[phase] : "?";
}

long cost_result_rank(const struct cost_result *r)
{
    return r->work.x.known ? r->work.x.rank : r->rank;
}

double cost_rank_step(const struct cost_result *r)
{
    return r->work.x.known ? r->t.expected : r->t.step;
}

const char *expected_effect_label(int effect)
{
    static const char *const labels[] = {
        "GEMM efficiency by shape",     "attention kernels",
        "elementwise and memory",       "sustained clock (power cap)",
        "host overhead (launches)",     "network efficiency by size",
        "communication not overlapped", "expert load (dropless routing)",
        "stack factors (fitted)"};
    if (effect >= 0 && effect < EXPECTED_EFFECTS)
        return labels[effect];
    return "?";
}

bool expected_effect_shown(const struct expected_work *x, int effect)
{
    return effect != EXPECTED_FACTORS || x->compute_overhead != 1 ||
           x->network_efficiency != 1;
}
