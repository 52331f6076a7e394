/* fu_memcheck.h: does a plan fit one GPU's memory? What PyTorch allocates at the step's peak with
 * the plan's buffers (the figure torch.cuda.max_memory_allocated reports). */
#ifndef FU_MEMCHECK_H
#define FU_MEMCHECK_H

#include "fu_workload.h"

/* The bytes PyTorch holds at the step's peak with fusion buffers of buffer_bytes, view_bytes of
 * which are DDP's buckets under gradient_as_bucket_view. Those are the gradients themselves
 * (reducer.cpp makes each .grad a view of its bucket), allocated once with DDP and alive through
 * forward: the step needs max(peak, forward peak + them), where the workload's peak may already
 * hold the gradients (its optimizer step); without the forward peak, peak + them (a bound). The
 * rest, copy mode's buckets beside the .grad tensors and fusion buffers, comes on top of the peak.
 * 0 when m has no peak. O(1). */
double fu_mem_allocated(const fu_mem *m, double buffer_bytes, double view_bytes);

/* need_bytes against gpu_bytes: *fits 1 when it fits; *over_bytes how much it needs above the GPU
 * (<= 0 when it fits). Unknown (need or GPU size 0): *fits = -1, *over_bytes = 0. */
void fu_mem_check(double need_bytes, double gpu_bytes, int *fits, double *over_bytes);

#endif
