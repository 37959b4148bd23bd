/*
 * ep_overlap: Megatron Core's combined 1F1B schedule of the MoE
 * all-to-all (--overlap-moe-expert-parallel-comm; a stack's
 * ep_a2a_overlap = combined_1f1b): one layer of one micro-batch's forward
 * run beside the same chunk's layer of another micro-batch's backward,
 * each split into its compute and communication nodes on two CUDA
 * streams. The exposed time is what the compute stream waits for: a sum
 * over the layer's sub-steps of the longer of the paired nodes, not the
 * longer of the two sums.
 *
 * Source: NVIDIA/Megatron-LM @d98e8a64ddf34856e74b24714e3bedb2f5a39553,
 * megatron/core/models/common/model_chunk_schedule_plan.py
 * (TransformerLayerSchedulePlan.run), megatron/core/models/gpt/
 * fine_grained_callables.py (the nodes), megatron/core/pipeline_parallel/
 * schedules.py (the warm-up count); docs/model.md says how each node's
 * time is made.
 */
#ifndef PROJ_EP_OVERLAP_H
#define PROJ_EP_OVERLAP_H

/* One MoE layer's nodes for one micro-batch, in seconds. attn_*: the
 * compute before the dispatch (fine_grained_callables.py's
 * pre_dispatch_computation: attention, the pre-MLP norm, the router, the
 * shared experts, the dispatch's preprocessing), its backward with its
 * weight gradients; mlp_*: the routed experts between dispatch and
 * combine, forward, backward data gradients and (with delay_wgrad) the
 * weight gradients run after them; the four all-to-alls. */
struct ep_overlap_layer {
    double attn_fwd, attn_bwd;
    double mlp_fwd, mlp_dgrad, mlp_wgrad;
    double dispatch_fwd, combine_fwd, dispatch_bwd, combine_bwd;
};

/*
 * The time of one layer of a forward paired with one of a backward, as
 * the two streams run it (model_chunk_schedule_plan.py's run; each node
 * starts when its stream is free and its input is ready):
 *   comm: combine_bwd | dispatch_fwd -> dispatch_bwd       | combine_fwd
 *   comp: attn_fwd    | mlp_dgrad -> mlp_wgrad -> mlp_fwd  | attn_bwd
 * t1 = max(attn_fwd, combine_bwd); from there dispatch_bwd ends at
 * max(dispatch_fwd, mlp_dgrad) + dispatch_bwd and mlp_fwd at
 * max(mlp_dgrad + mlp_wgrad, dispatch_fwd) + mlp_fwd, t2 the later;
 * t3 = max(combine_fwd, attn_bwd). Returns t1 + t2 + t3.
 *
 * Example: attn 1 and 2, mlp 1, 1, 1, each all-to-all 1.5: t1 = 1.5,
 * t2 = max(max(1.5, 1) + 1.5, max(2, 1.5) + 1) = 3, t3 = 2: 6.5 s, of
 * which 6.5 - 6 = 0.5 s the compute stream waits.
 */
double ep_overlap_paired_s(const struct ep_overlap_layer *l);

/*
 * What the compute stream waits for in a rank's step (s): `layers`
 * layer passes of micro-batches alike (a rank's MoE layers x its
 * micro-batches), each of l's times, of which a share `unpaired` runs
 * alone (warm-up forwards and cool-down backwards: all four all-to-alls
 * of such a pass wait) and the rest in pairs (ep_overlap_paired_s less
 * the pair's compute).
 */
double ep_overlap_exposed_s(const struct ep_overlap_layer *l,
                            double layers,
                            double unpaired);

/*
 * The share of a pipeline rank's layer passes that run unpaired under
 * combined 1F1B: its warm-up forwards over all its forwards (schedules.py,
 * get_pp_rank_microbatches: with vpp chunks, 2 (pp - rank - 1) + (vpp - 1)
 * pp + 1, the extra one "to ensure the forward and backward computations
 * are independent in all 1f1b steps"; without pipelining one, the
 * combined_1f1b_schedule_for_no_pipelining's first forward). microbatches
 * per chunk; at most 1.
 */
double ep_overlap_unpaired(long pp, long vpp, long rank, double microbatches);

#endif
