/* fu_memcheck.h: does a plan fit one GPU's memory? What PyTorch allocates at the step's peak with
 * the plan's buffers (the figure torch.cuda.max_memory_allocated reports), and what the device
 * needs beyond it: the caching allocator's reserve, the CUDA context and NCCL's buffers. */
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

/* What the device holds beside PyTorch's tensors, from three out-of-memory reports of PyTorch 2.11
 * (cu130, driver 580, one rank; data/validation/torch_h200_run30/log.txt,
 * torch_h100_run41/device_log.txt, torch_h100_run32/device_log_call1_vitl_oom.txt): "this process
 * has U memory in use. Of the allocated memory A is allocated by PyTorch, and R is reserved by
 * PyTorch but unallocated". U - A - R, the CUDA context with its loaded kernels, was 1.30 GiB all
 * three times, on the H200 and the H100. R / A, blocks the caching allocator could neither hand out
 * nor free after emptying its cache, was 2.25%, 1.12% and 3.17%: the largest, rounded up. */
#define FU_MEM_CONTEXT_BYTES (1.30 * 1073741824.0)
#define FU_MEM_RESERVE_FRAC 0.032
/* NCCL's buffers for one connection of a channel at its defaults (src/init.cc): LL 8 lines x 512
 * threads x 8 steps x 16 B = 512 KiB, LL128 120 x 640 x 8 x 8 B = 4800 KiB, Simple NCCL_BUFFSIZE
 * 4 MiB. A ring rank keeps one connection's worth a channel (the receiver's; with P2P read,
 * Simple's on the sender: the same sum), over at most NCCL_MAX_NCHANNELS 32 channels. NVLS
 * (nvls.cc ncclNvlsBufferSetup) keeps channels x 2 x (Simple buffer + 2 MiB NVLS_MEM_ALIGN_SIZE)
 * for every GPU of the node, at its 16 channels (FU_COLL_NVLS_CHANNELS); vLLM issue 9699 logs that
 * form on 8 H200 (at 24 channels, nvlsTotalSize 2415919104). Newer NCCL sizes NVLS's buffer from
 * its chunk (1 MiB, not 4): a bound there. */
#define FU_MEM_NCCL_CONN_BYTES (524288.0 + 4915200.0 + 4194304.0)
#define FU_MEM_NCCL_CHANNELS 32
#define FU_MEM_NVLS_CHANNEL_BYTES (2 * (4194304.0 + 2097152.0))

/* NCCL's device buffers for data parallelism over `ranks` GPUs, gpus_per_node of them a node;
 * nvls 1 where the node's switch runs NVLS (NCCL uses it above 2 GPUs a node). 0 for one rank. */
double fu_mem_nccl_bytes(int ranks, int gpus_per_node, int nvls);

/* fu_mem_nccl_bytes for the communication target c on prof's machine (NVLS where c's link is
 * NVLink and prof's cluster has NVLS's bandwidth or prof holds an NVLS curve over NVLink). */
struct fu_comm;
struct fu_profile;
double fu_mem_nccl_for(const struct fu_comm *c, const struct fu_profile *prof);

/* What one GPU needs for a step, each part named. */
typedef struct fu_mem_need {
  double allocated;          /* PyTorch's tensors at the peak (fu_mem_allocated) */
  double reserve;            /* the caching allocator's reserve: FU_MEM_RESERVE_FRAC x allocated */
  double context;            /* CUDA context and loaded kernels: FU_MEM_CONTEXT_BYTES */
  double nccl;               /* NCCL's buffers (fu_mem_nccl_bytes) */
  double device;             /* their sum: the fit is decided on it */
} fu_mem_need;

/* The parts for `allocated` (0 unknown: every part 0) beside NCCL's nccl_bytes. */
void fu_mem_need_set(fu_mem_need *n, double allocated, double nccl_bytes);
/* The most PyTorch may allocate on a GPU of gpu_bytes beside NCCL's nccl_bytes. */
double fu_mem_allocatable(double gpu_bytes, double nccl_bytes);

/* need_bytes against gpu_bytes: *fits 1 when it fits; *over_bytes how much it needs above the GPU
 * (<= 0 when it fits). Unknown (need or GPU size 0): *fits = -1, *over_bytes = 0. */
void fu_mem_check(double need_bytes, double gpu_bytes, int *fits, double *over_bytes);

#endif
