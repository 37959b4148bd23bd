/*
 * comm_pick: what the collectives library picks for one call of a
 * collective (its algorithm, protocol, share of the link's rate and
 * latency) and the unit that latency is counted in. The types only:
 * evaluate/comm_algo.c makes the pick; the stages after rank read it off
 * a collective (result.h) and a plan's work (cost_work.h), so it sits
 * below evaluate (docs/ARCHITECTURE.md, "Hand-offs").
 */
#ifndef PROJ_COMM_PICK_H
#define PROJ_COMM_PICK_H

/* A latency in the collectives library's steps: in-node steps (the
 * Simple ring's step inside a node: hw->coll_step_s) and network steps
 * (its step across nodes: hw->coll_net_step_s). */
struct comm_lat {
    double steps, net;
};

/* What the library picks for one call and what it costs. */
struct comm_algo {
    int algo;            /* enum collectives_algo; -1: point-to-point */
    int proto;           /* enum collectives_proto; -1: DeepEP's kernels */
    double share;        /* of the link's rate its bytes move at, > 0 */
    double inv_share;    /* 1 / share */
    struct comm_lat lat; /* per call */
};

#endif
