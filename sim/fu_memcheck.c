/* fu_memcheck.c: see fu_memcheck.h. */
#include "fu_memcheck.h"

#include <string.h>

#include "fu_coll.h"
#include "fu_plan.h"
#include "fu_profile.h"

double fu_mem_allocated(const fu_mem *m, double buffer_bytes, double view_bytes) {
  if (!(m->peak > 0)) return 0;
  double base = m->forward > 0 ? m->forward : m->peak; /* no forward peak: assume no gradient in the peak */
  double with_views = base + view_bytes > m->peak ? base + view_bytes : m->peak;
  return with_views + (buffer_bytes - view_bytes);
}

void fu_mem_check(double need_bytes, double gpu_bytes, int *fits, double *over_bytes) {
  if (!(need_bytes > 0) || !(gpu_bytes > 0)) {
    *fits = -1;
    *over_bytes = 0;
    return;
  }
  *over_bytes = need_bytes - gpu_bytes;
  *fits = *over_bytes <= 0;
}

double fu_mem_nccl_bytes(int ranks, int gpus_per_node, int nvls) {
  if (ranks <= 1) return 0;
  double b = FU_MEM_NCCL_CHANNELS * FU_MEM_NCCL_CONN_BYTES;
  if (nvls && gpus_per_node > 2) b += FU_COLL_NVLS_CHANNELS * FU_MEM_NVLS_CHANNEL_BYTES * gpus_per_node;
  return b;
}

void fu_mem_need_set(fu_mem_need *n, double allocated, double nccl_bytes) {
  if (!(allocated > 0)) {
    *n = (fu_mem_need){0};
    return;
  }
  n->allocated = allocated;
  n->reserve = FU_MEM_RESERVE_FRAC * allocated;
  n->context = FU_MEM_CONTEXT_BYTES;
  n->nccl = nccl_bytes;
  n->device = n->allocated + n->reserve + n->context + n->nccl;
}

double fu_mem_allocatable(double gpu_bytes, double nccl_bytes) {
  return (gpu_bytes - FU_MEM_CONTEXT_BYTES - nccl_bytes) / (1 + FU_MEM_RESERVE_FRAC);
}

/* Whether prof's machine runs NVLS: its cost model has NVLS's rate, or it holds a curve NCCL
 * measured as NVLS over NVLink (the bundled default's published 8 x H200 all-reduce, with no cost
 * model: NCCL allocated NVLS's buffers on that machine all the same). */
static int fu__has_nvls(const fu_profile *prof) {
  if (prof->cluster.nvls_algbw_gbps[0] > 0) return 1;
  for (int i = 0; i < prof->ncurves; i++)
    if (fu_curve_is_nvls(&prof->curves[i]) && !strcmp(prof->curves[i].link, "nvlink")) return 1;
  return 0;
}

double fu_mem_nccl_for(const fu_comm *c, const fu_profile *prof) {
  if (c->kind == FU_COMM_OFFLOAD) return 0;
  int nvls = c->link == FU_LINK_NVLINK && fu__has_nvls(prof);
  return fu_mem_nccl_bytes(c->ranks, c->ranks / (c->nodes > 0 ? c->nodes : 1), nvls);
}
