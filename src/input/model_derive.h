/*
 * model_derive: what follows from a model's spec alone: parameters and
 * forward FLOPs per layer kind (dense, MoE, MTP module), by component and
 * by precision; what recomputation redoes; the tensor-parallel collectives
 * per pass; and the model's totals (parameters, active parameters, FLOPs
 * per token for MFU and as run).
 *
 * Owns: the derived fields of struct model (model.h) but the tensor list,
 * and the attention, FFN and MoE formulas. Calls model_inventory for the
 * saved tensors and their bytes; nothing of the cluster or of a plan.
 * model_load() calls it once the spec has passed its checks.
 */
#ifndef PROJ_MODEL_DERIVE_H
#define PROJ_MODEL_DERIVE_H

struct model;

/*
 * Fills m's derived fields (layer[], units, params_*, head_fwd,
 * flops_per_token*, selective, and the inventory via model_inventory)
 * from m->spec, which must have passed model.c's checks (heads divide,
 * top_k within the experts, ...).
 */
void model_derive(struct model *m);

#endif
