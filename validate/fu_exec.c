/* fu_exec.c: the validation executor on CUDA (see fu_exec.h for what an iteration runs).
 *
 * Plain C over the CUDA runtime API; the kernels are in fu_exec_kernels.cu and calib/fu_pack.h.
 * One host thread drives every GPU (NCCL group calls when there are several), as a single-process
 * data-parallel trainer does. Costs per iteration on the host: one launch per gradient interval
 * and per bucket operation, plus the emulated framework costs. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>
#ifdef FU_HAVE_NCCL
#include <nccl.h>
#endif

#include "fu_calib_int.h"
#include "fu_common.h"
#include "fu_exec.h"
#include "fu_exec_kernels.h"
#include "fu_pack.h"

#define FU__ALIGN 16            /* every gradient starts 16-byte aligned in the arena */
#define FU__MIN_KERNEL_US 1.0   /* shorter gradient intervals are carried to the next kernel */

#define FU__CU(call)                                                                      \
  do {                                                                                    \
    cudaError_t fu__e = (call);                                                           \
    if (fu__e != cudaSuccess) {                                                           \
      fu_error("validate: %s: %s (%s:%d)", #call, cudaGetErrorString(fu__e), __FILE__,    \
               __LINE__);                                                                 \
      return fu__e == cudaErrorMemoryAllocation ? FU_ENOMEM : FU_EINTERNAL;               \
    }                                                                                     \
  } while (0)

#define FU__KCHECK(call)                                                                  \
  do {                                                                                    \
    int fu__k = (call);                                                                   \
    if (fu__k != 0) {                                                                     \
      fu_error("validate: %s: %s", #call, cudaGetErrorString((cudaError_t)fu__k));        \
      return FU_EINTERNAL;                                                                \
    }                                                                                     \
  } while (0)

#ifdef FU_HAVE_NCCL
#define FU__NC(call)                                                                      \
  do {                                                                                    \
    ncclResult_t fu__r = (call);                                                          \
    if (fu__r != ncclSuccess) {                                                           \
      fu_error("validate: %s: %s", #call, ncclGetErrorString(fu__r));                     \
      return FU_EINTERNAL;                                                                \
    }                                                                                     \
  } while (0)
#endif

typedef struct fu__bk {
  size_t first, last;        /* gradients, inclusive, in ready order */
  uint64_t off;              /* arena (and host) offset of the first gradient */
  uint64_t span;             /* bytes from off to the end of the last gradient (gaps included) */
  fu_pack_plan *pack[FU_EXEC_MAX_DEV]; /* per GPU; NULL for view or a one-tensor bucket */
} fu__bk;

typedef struct fu__slot {
  fu_plan plan;              /* the plan */
  fu__bk *b;                 /* its buckets (malloc'd) */
  size_t nb;                 /* buckets */
} fu__slot;

typedef struct fu__dev {
  int id;                    /* CUDA device */
  cudaStream_t compute;      /* forward, backward, optimizer */
  cudaStream_t comm[FU_EXEC_MAX_STREAMS]; /* communication streams */
  cudaEvent_t ready;         /* re-recorded where each bucket becomes ready */
  cudaEvent_t pace;          /* launch-bound pacing: the end of the last compute segment */
  cudaEvent_t done[FU_EXEC_MAX_STREAMS];  /* end of a communication stream's work */
  cudaEvent_t start, end;    /* iteration timing (GPU 0) */
  unsigned char *arena;      /* gradients in ready order */
  unsigned char *fusion;     /* streams x fusion_bytes */
#ifdef FU_HAVE_NCCL
  ncclComm_t nccl;           /* communicator (ndev >= 2) */
#endif
} fu__dev;

struct fu_exec {
  const fu_workload *w;      /* the caller's workload (outlives the executor) */
  int ndev;                  /* GPUs driven */
  int nsm;                   /* blocks of a busy kernel (SMs of GPU 0) */
  int emulate_host;          /* spin hook_us / issue_us */
  int nccl;                  /* communication is NCCL all-reduce (else offload to host) */
  uint64_t *off;             /* arena offset of every gradient (malloc'd) */
  uint64_t arena_bytes;      /* arena size */
  unsigned char *host;       /* pinned offload target, arena layout (ndev == 1) */
  unsigned char *check;      /* host scratch for verification (malloc'd) */
  fu__dev dev[FU_EXEC_MAX_DEV]; /* per GPU: streams, events, arena, fusion buffers, NCCL */
  fu__slot *slots;           /* registered plans (malloc'd) */
  size_t nslots;             /* ... how many */
  uint64_t fusion_bytes;     /* one fusion buffer (largest packed bucket) */
  int streams;               /* communication streams allocated */
  int prepared;              /* fu_exec_prepare done */
};

static double fu__now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec * 1e-3;
}

/* Host busy-wait (the framework's own cost is CPU time, not sleep). */
static void fu__spin_until(double t_us) {
  while (fu__now_us() < t_us) {
  }
}

static uint64_t fu__align(uint64_t x) { return (x + FU__ALIGN - 1) & ~(uint64_t)(FU__ALIGN - 1); }

uint64_t fu_exec_device_bytes(const fu_workload *w, uint64_t max_bucket_bytes, int streams) {
  uint64_t a = 0;
  for (size_t i = 0; i < w->ngrads; i++) a = fu__align(a) + w->grads[i].bytes;
  return fu__align(a) + (fu__align(max_bucket_bytes) + (uint64_t)FU__ALIGN * w->ngrads) *
                            (uint64_t)(streams > 0 ? streams : 1);
}

int fu_exec_probe(fu_exec_info *info) {
  memset(info, 0, sizeof *info);
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess || n == 0) {
    fu_error("validate: no usable GPU (%s)",
             e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device is visible");
    return FU_ENODEV;
  }
  struct cudaDeviceProp prop;
  FU__CU(cudaGetDeviceProperties(&prop, 0));
  info->ndev = n;
  info->sm_count = prop.multiProcessorCount;
  snprintf(info->gpu, sizeof info->gpu, "%.127s", prop.name);
  int v = 0;
  FU__CU(cudaDriverGetVersion(&v));
  snprintf(info->driver, sizeof info->driver, "cuda-driver-api %d.%d", v / 1000, (v % 1000) / 10);
  FU__CU(cudaRuntimeGetVersion(&v));
  snprintf(info->cuda, sizeof info->cuda, "%d.%d", v / 1000, (v % 1000) / 10);
#ifdef FU_HAVE_NCCL
  int nv = 0;
  if (ncclGetVersion(&nv) == ncclSuccess)
    snprintf(info->nccl, sizeof info->nccl, "%d.%d.%d", nv / 10000, (nv / 100) % 100, nv % 100);
#endif
  info->mem_free = UINT64_MAX;
  for (int d = 0; d < n && d < FU_EXEC_MAX_DEV; d++) {
    size_t fr = 0, tot = 0;
    FU__CU(cudaSetDevice(d));
    FU__CU(cudaMemGetInfo(&fr, &tot));
    if (fr < info->mem_free) info->mem_free = fr;
    if (d == 0) info->mem_total = tot;
  }
  FU__CU(cudaSetDevice(0));
  return FU_OK;
}

static int fu__set(const fu_exec *e, int d) {
  if (e->ndev > 1) FU__CU(cudaSetDevice(e->dev[d].id));
  return FU_OK;
}

int fu_exec_create(const fu_workload *w, const fu_exec_opts *o, fu_exec **out) {
  *out = NULL;
  if (o->ndev < 1 || o->ndev > FU_EXEC_MAX_DEV) {
    fu_error("validate: %d GPUs asked for (1..%d)", o->ndev, FU_EXEC_MAX_DEV);
    return FU_EUSAGE;
  }
#ifndef FU_HAVE_NCCL
  if (o->ndev > 1 || o->allreduce) {
    fu_error("validate: all-reduce over %d GPU(s) but this fusim was built without NCCL", o->ndev);
    return FU_ENODEV;
  }
#endif
  fu_exec *e = calloc(1, sizeof *e);
  if (!e) return FU_ENOMEM;
  *out = e;                  /* destroy cleans up whatever was made when a step fails */
  e->w = w;
  e->ndev = o->ndev;
  e->emulate_host = o->emulate_host;
  e->nccl = o->ndev > 1 || o->allreduce;
  e->off = malloc((w->ngrads ? w->ngrads : 1) * sizeof *e->off);
  if (!e->off) return FU_ENOMEM;
  uint64_t a = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    a = fu__align(a);
    e->off[i] = a;
    a += w->grads[i].bytes;
  }
  e->arena_bytes = fu__align(a);
  struct cudaDeviceProp prop;
  FU__CU(cudaGetDeviceProperties(&prop, 0));
  e->nsm = prop.multiProcessorCount;
  for (int d = 0; d < e->ndev; d++) {
    fu__dev *dv = &e->dev[d];
    dv->id = d;
    FU__CU(cudaSetDevice(d));
    FU__CU(cudaStreamCreateWithFlags(&dv->compute, cudaStreamNonBlocking));
    FU__CU(cudaEventCreateWithFlags(&dv->ready, cudaEventDisableTiming));
    FU__CU(cudaEventCreateWithFlags(&dv->pace, cudaEventDisableTiming));
    FU__CU(cudaEventCreate(&dv->start));
    FU__CU(cudaEventCreate(&dv->end));
    FU__CU(cudaMalloc((void **)&dv->arena, e->arena_bytes));
    FU__CU(cudaMemset(dv->arena, 0, e->arena_bytes));
  }
  if (!e->nccl) {
    FU__CU(cudaHostAlloc((void **)&e->host, e->arena_bytes, cudaHostAllocDefault));
    memset(e->host, 0, e->arena_bytes);  /* touch every page before timing */
  }
#ifdef FU_HAVE_NCCL
  if (e->nccl) {
    ncclComm_t comms[FU_EXEC_MAX_DEV];
    int devs[FU_EXEC_MAX_DEV];
    for (int d = 0; d < e->ndev; d++) devs[d] = d;
    FU__NC(ncclCommInitAll(comms, e->ndev, devs));
    for (int d = 0; d < e->ndev; d++) e->dev[d].nccl = comms[d];
  }
#endif
  e->check = malloc(e->arena_bytes ? e->arena_bytes : 1);
  if (!e->check) return FU_ENOMEM;
  FU__CU(cudaSetDevice(0));
  FU__CU(cudaDeviceSynchronize());
  return FU_OK;
}

void fu_exec_destroy(fu_exec *e) {
  if (!e) return;
  for (int d = 0; d < e->ndev; d++) {
    fu__dev *dv = &e->dev[d];
    cudaSetDevice(d);
    cudaDeviceSynchronize();
    for (size_t s = 0; s < e->nslots; s++)
      for (size_t k = 0; k < e->slots[s].nb; k++) fu_pack_plan_destroy(e->slots[s].b[k].pack[d]);
#ifdef FU_HAVE_NCCL
    if (dv->nccl) ncclCommDestroy(dv->nccl);
#endif
    for (int s = 0; s < e->streams; s++) {
      if (dv->comm[s]) cudaStreamDestroy(dv->comm[s]);
      if (dv->done[s]) cudaEventDestroy(dv->done[s]);
    }
    if (dv->compute) cudaStreamDestroy(dv->compute);
    if (dv->ready) cudaEventDestroy(dv->ready);
    if (dv->pace) cudaEventDestroy(dv->pace);
    if (dv->start) cudaEventDestroy(dv->start);
    if (dv->end) cudaEventDestroy(dv->end);
    cudaFree(dv->arena);
    cudaFree(dv->fusion);
  }
  if (e->host) cudaFreeHost(e->host);
  for (size_t s = 0; s < e->nslots; s++) free(e->slots[s].b);
  free(e->slots);
  free(e->check);
  free(e->off);
  free(e);
}

int fu_exec_comm(const fu_exec *e, fu_comm *c) {
  memset(c, 0, sizeof *c);
  if (!e->nccl) {
    c->kind = FU_COMM_OFFLOAD;
    c->ranks = c->nodes = 1;
    c->link = FU_LINK_PCIE_D2H;
  } else {
    c->kind = FU_COMM_ALLREDUCE;
    c->ranks = e->ndev;
    c->nodes = 1;
    c->link = e->ndev > 1 ? FU_LINK_NVLINK : FU_LINK_HBM; /* one GPU: NCCL copies in its memory */
  }
  return FU_OK;
}

int fu_exec_add_plan(fu_exec *e, const fu_plan *p, const fu_bucket *b, size_t nb, int *slot) {
  const fu_workload *w = e->w;
  if (e->prepared) {
    fu_error("validate: internal: plan added after prepare");
    return FU_EINTERNAL;
  }
  size_t next = 0;
  for (size_t k = 0; k < nb; k++) {
    if (b[k].first != next || b[k].last < b[k].first || b[k].last >= w->ngrads) {
      fu_error("validate: internal: bucket %zu [%zu, %zu] does not continue the ready order at %zu",
               k, b[k].first, b[k].last, next);
      return FU_EINTERNAL;
    }
    next = b[k].last + 1;
  }
  if (next != w->ngrads) {
    fu_error("validate: internal: buckets cover %zu of %zu gradients", next, w->ngrads);
    return FU_EINTERNAL;
  }
  if (p->comm_streams < 1 || p->comm_streams > FU_EXEC_MAX_STREAMS) {
    fu_error("validate: plan asks for %d communication streams (the executor runs 1..%d)",
             p->comm_streams, FU_EXEC_MAX_STREAMS);
    return FU_EUSAGE;
  }
  fu__slot *ns = realloc(e->slots, (e->nslots + 1) * sizeof *ns);
  if (!ns) return FU_ENOMEM;
  e->slots = ns;
  fu__slot *s = &e->slots[e->nslots];
  memset(s, 0, sizeof *s);
  s->plan = *p;
  s->b = calloc(nb ? nb : 1, sizeof *s->b);
  if (!s->b) return FU_ENOMEM;
  s->nb = nb;
  for (size_t k = 0; k < nb; k++) {
    s->b[k].first = b[k].first;
    s->b[k].last = b[k].last;
    s->b[k].off = e->off[b[k].first];
    s->b[k].span = e->off[b[k].last] + w->grads[b[k].last].bytes - e->off[b[k].first];
  }
  if (p->comm_streams > e->streams) e->streams = p->comm_streams;
  *slot = (int)e->nslots++;
  return FU_OK;
}

int fu_exec_prepare(fu_exec *e) {
  const fu_workload *w = e->w;
  uint64_t fb = 0;
  for (size_t s = 0; s < e->nslots; s++) {
    fu__slot *sl = &e->slots[s];
    if (sl->plan.pack_view) continue;
    for (size_t k = 0; k < sl->nb; k++) {
      fu__bk *bk = &sl->b[k];
      int nt = (int)(bk->last - bk->first + 1);
      if (nt < 2) continue;
      void **pv = malloc((size_t)nt * sizeof *pv);
      size_t *sz = malloc((size_t)nt * sizeof *sz);
      if (!pv || !sz) {
        free(pv);
        free(sz);
        return FU_ENOMEM;
      }
      for (int d = 0; d < e->ndev; d++) {
        for (int i = 0; i < nt; i++) {
          pv[i] = e->dev[d].arena + e->off[bk->first + i];
          sz[i] = w->grads[bk->first + i].bytes;
        }
        int st = fu__set(e, d);
        if (st == FU_OK) st = fu_pack_plan_create(pv, sz, nt, FU__ALIGN, &bk->pack[d]);
        if (st != FU_OK) {
          free(pv);
          free(sz);
          return st;
        }
      }
      free(pv);
      free(sz);
      /* The packed layout must be the arena's (so offload lands in the same host layout). */
      const fu_pack_plan *pp = bk->pack[0];
      for (int i = 0; i < nt; i++)
        if (pp->off[i] != e->off[bk->first + i] - bk->off) {
          fu_error("validate: internal: pack layout differs from the arena at tensor %d", i);
          return FU_EINTERNAL;
        }
      if (pp->total_bytes < bk->span) {
        fu_error("validate: internal: pack buffer shorter than the bucket");
        return FU_EINTERNAL;
      }
      if (pp->total_bytes > fb) fb = pp->total_bytes;
    }
  }
  e->fusion_bytes = fu__align(fb);
  if (e->streams < 1) e->streams = 1;
  for (int d = 0; d < e->ndev; d++) {
    fu__dev *dv = &e->dev[d];
    FU__CU(cudaSetDevice(d));
    for (int s = 0; s < e->streams; s++) {
      FU__CU(cudaStreamCreateWithFlags(&dv->comm[s], cudaStreamNonBlocking));
      FU__CU(cudaEventCreateWithFlags(&dv->done[s], cudaEventDisableTiming));
    }
    if (e->fusion_bytes) {
      /* One preallocated fusion buffer per communication stream, reused every iteration. */
      FU__CU(cudaMalloc((void **)&dv->fusion, e->fusion_bytes * (uint64_t)e->streams));
      FU__CU(cudaMemset(dv->fusion, 0, e->fusion_bytes * (uint64_t)e->streams));
    }
  }
  FU__CU(cudaSetDevice(0));
  FU__CU(cudaDeviceSynchronize());
  e->prepared = 1;
  return FU_OK;
}

static int fu__busy_all(fu_exec *e, double us) {
  if (us <= 0) return FU_OK;
  for (int d = 0; d < e->ndev; d++) {
    FU_CHECK(fu__set(e, d));
    FU__KCHECK(fu_exec_busy(e->dev[d].compute, us, e->nsm));
  }
  return FU_OK;
}

/* Issues bucket k of slot sl: wait for its gradients, pack, communicate (unpack). */
static int fu__issue(fu_exec *e, const fu__slot *sl, size_t k) {
  const fu__bk *bk = &sl->b[k];
  int si = (int)(k % (size_t)sl->plan.comm_streams);
  for (int d = 0; d < e->ndev; d++) {
    fu__dev *dv = &e->dev[d];
    FU_CHECK(fu__set(e, d));
    FU__CU(cudaEventRecord(dv->ready, dv->compute));
    FU__CU(cudaStreamWaitEvent(dv->comm[si], dv->ready, 0));
    if (bk->pack[d]) FU_CHECK(fu_pack_plan_pack(bk->pack[d], dv->fusion + (uint64_t)si * e->fusion_bytes, dv->comm[si]));
  }
  if (!e->nccl) {
    const fu__dev *dv = &e->dev[0];
    const void *src = bk->pack[0] ? (const void *)(dv->fusion + (uint64_t)si * e->fusion_bytes)
                                  : (const void *)(dv->arena + bk->off);
    FU__CU(cudaMemcpyAsync(e->host + bk->off, src, bk->span, cudaMemcpyDeviceToHost, dv->comm[si]));
  } else {
#ifdef FU_HAVE_NCCL
    int f32 = bk->span % 4 == 0;
    FU__NC(ncclGroupStart());
    for (int d = 0; d < e->ndev; d++) {
      fu__dev *dv = &e->dev[d];
      void *buf = bk->pack[d] ? (void *)(dv->fusion + (uint64_t)si * e->fusion_bytes)
                              : (void *)(dv->arena + bk->off);
      FU__NC(ncclAllReduce(buf, buf, f32 ? bk->span / 4 : bk->span, f32 ? ncclFloat : ncclUint8,
                           ncclSum, dv->nccl, dv->comm[si]));
    }
    FU__NC(ncclGroupEnd());
    for (int d = 0; d < e->ndev; d++) {
      fu__dev *dv = &e->dev[d];
      if (!bk->pack[d]) continue;
      FU_CHECK(fu__set(e, d));
      FU_CHECK(fu_pack_plan_unpack(bk->pack[d], dv->fusion + (uint64_t)si * e->fusion_bytes, dv->comm[si]));
    }
#endif
  }
  /* The framework's own cost per operation comes on top of the API calls above (as the
   * simulator charges the workload's issue_us beside the profile's issue and launch costs). */
  if (e->emulate_host && e->w->issue_us > 0) fu__spin_until(fu__now_us() + e->w->issue_us);
  return FU_OK;
}

/* Launch-bound pacing: the host waits until the compute stream has drained (polling, the
 * lowest-latency wait), as a framework whose host thread keeps pace with the device does. */
static int fu__wait_compute(fu_exec *e) {
  for (int d = 0; d < e->ndev; d++) {
    fu__dev *dv = &e->dev[d];
    FU_CHECK(fu__set(e, d));
    FU__CU(cudaEventRecord(dv->pace, dv->compute));
    cudaError_t q;
    while ((q = cudaEventQuery(dv->pace)) == cudaErrorNotReady) {
    }
    FU__CU(q);
  }
  return FU_OK;
}

int fu_exec_iteration(fu_exec *e, int slot, double *iter_us) {
  const fu_workload *w = e->w;
  if (!e->prepared && slot >= 0) FU_CHECK(fu_exec_prepare(e));
  if (slot >= (int)e->nslots) {
    fu_error("validate: internal: no plan slot %d", slot);
    return FU_EINTERNAL;
  }
  const fu__slot *sl = slot >= 0 ? &e->slots[slot] : NULL;
  int emulate = sl && e->emulate_host;
  /* A workload that states host costs is launch-bound (the simulator's reading, fu_predict.h):
   * its host keeps pace with the device, so each backward segment waits for the host work
   * before it. Compute-only iterations are paced the same way, without the host work. */
  int paced = e->emulate_host && (w->hook_us > 0 || w->issue_us > 0);
  int steps = w->accum_steps > 0 ? w->accum_steps : 1;
  FU_CHECK(fu__set(e, 0));
  FU__CU(cudaEventRecord(e->dev[0].start, e->dev[0].compute));
  for (int step = 0; step < steps; step++) {
    FU_CHECK(fu__busy_all(e, w->fwd_us));
    if (step < steps - 1) {
      FU_CHECK(fu__busy_all(e, w->bwd_us));
      continue;
    }
    /* The backward pass that communicates: one kernel per gradient interval. */
    size_t k = 0;
    double t = 0, pending = 0;
    for (size_t i = 0; i < w->ngrads; i++) {
      pending += w->grads[i].ready_us - t;
      t = w->grads[i].ready_us;
      if (pending >= FU__MIN_KERNEL_US) {
        FU_CHECK(fu__busy_all(e, pending));
        pending = 0;
        if (paced) FU_CHECK(fu__wait_compute(e));
      }
      if (emulate && w->hook_us > 0) fu__spin_until(fu__now_us() + w->hook_us);
      if (sl && sl->plan.overlap && k < sl->nb && i == sl->b[k].last) FU_CHECK(fu__issue(e, sl, k++));
    }
    FU_CHECK(fu__busy_all(e, pending + (w->bwd_us - t)));
    if (sl)
      while (k < sl->nb) FU_CHECK(fu__issue(e, sl, k++));
  }
  /* The optimizer waits for every communication stream. */
  int used = sl ? sl->plan.comm_streams : 0;
  for (int d = 0; d < e->ndev; d++) {
    fu__dev *dv = &e->dev[d];
    FU_CHECK(fu__set(e, d));
    for (int s = 0; s < used; s++) {
      FU__CU(cudaEventRecord(dv->done[s], dv->comm[s]));
      FU__CU(cudaStreamWaitEvent(dv->compute, dv->done[s], 0));
    }
  }
  FU_CHECK(fu__busy_all(e, w->opt_us));
  FU_CHECK(fu__set(e, 0));
  FU__CU(cudaEventRecord(e->dev[0].end, e->dev[0].compute));
  FU__CU(cudaEventSynchronize(e->dev[0].end));
  for (int d = 1; d < e->ndev; d++) {
    FU_CHECK(fu__set(e, d));
    FU__CU(cudaStreamSynchronize(e->dev[d].compute));
  }
  float ms = 0;
  FU_CHECK(fu__set(e, 0));
  FU__CU(cudaEventElapsedTime(&ms, e->dev[0].start, e->dev[0].end));
  *iter_us = ms * 1000.0;
  return FU_OK;
}

int fu_exec_verify(fu_exec *e, int slot, uint32_t seed, char *msg, size_t len) {
  const fu_workload *w = e->w;
  if (!e->prepared) FU_CHECK(fu_exec_prepare(e));
  msg[0] = 0;
  for (int d = 0; d < e->ndev; d++) {
    fu__dev *dv = &e->dev[d];
    FU_CHECK(fu__set(e, d));
    if (!e->nccl) FU__KCHECK(fu_exec_fill_u32(dv->compute, dv->arena, e->arena_bytes / 4, seed));
    else FU__KCHECK(fu_exec_fill_f32(dv->compute, dv->arena, e->arena_bytes / 4, seed));
    FU__CU(cudaStreamSynchronize(dv->compute));
  }
  if (!e->nccl) memset(e->host, 0xA5, e->arena_bytes);   /* poison the destination */
  double us;
  FU_CHECK(fu_exec_iteration(e, slot, &us));
  int rc = FU_OK;
  for (int d = 0; d < e->ndev && rc == FU_OK; d++) {
    FU_CHECK(fu__set(e, d));
    FU__CU(cudaMemcpy(e->check, e->dev[d].arena, e->arena_bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < w->ngrads && rc == FU_OK; i++) {
      uint64_t o = e->off[i], n = w->grads[i].bytes;
      if (!e->nccl) {
        /* The device still holds the pattern, and the host holds the same bytes. */
        uint32_t want = fu_exec_pattern(seed, o / 4), have;
        memcpy(&have, e->check + o, sizeof have);
        if (n >= 4 && have != want) {
          snprintf(msg, len, "gradient %s: device word 0 is %08x, the fill wrote %08x",
                   w->grads[i].name, have, want);
          rc = FU_EINTERNAL;
        } else if (memcmp(e->host + o, e->check + o, n) != 0) {
          uint64_t j = 0;
          while (j < n && e->host[o + j] == e->check[o + j]) j++;
          snprintf(msg, len, "gradient %s (%llu bytes): host byte %llu is %02x, device %02x",
                   w->grads[i].name, (unsigned long long)n, (unsigned long long)j,
                   e->host[o + j], e->check[o + j]);
          rc = FU_EINTERNAL;
        }
      } else {
        const float *f = (const float *)(e->check + o);
        for (uint64_t j = 0; j < n / 4; j++) {
          float want = (float)e->ndev * fu_exec_f32_value(seed, o / 4 + j);
          if (f[j] != want) {
            snprintf(msg, len, "GPU %d gradient %s element %llu: %g, expected %d x %g = %g", d,
                     w->grads[i].name, (unsigned long long)j, f[j], e->ndev,
                     fu_exec_f32_value(seed, o / 4 + j), want);
            rc = FU_EINTERNAL;
            break;
          }
        }
      }
    }
  }
  return rc;
}

/* ---- the fusion microbenchmark ------------------------------------------------------------ */

static int fu__cmp_d(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double fu__median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, fu__cmp_d);
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Median D2H bandwidth (GB/s) of `bytes` from dev to pinned host, over reps after 3 warm-ups. */
static int fu__bench_peak(cudaStream_t s, cudaEvent_t a, cudaEvent_t b, unsigned char *host,
                          unsigned char *dev, uint64_t bytes, int reps, double *t, double *gbps) {
  FU__KCHECK(fu_exec_fill_u32(s, dev, bytes / 4, 7));
  for (int r = 0; r < reps + 3; r++) {
    FU__CU(cudaEventRecord(a, s));
    FU__CU(cudaMemcpyAsync(host, dev, bytes, cudaMemcpyDeviceToHost, s));
    FU__CU(cudaEventRecord(b, s));
    FU__CU(cudaEventSynchronize(b));
    float ms;
    FU__CU(cudaEventElapsedTime(&ms, a, b));
    if (r >= 3) t[r - 3] = ms * 1000.0;
  }
  *gbps = bytes / (fu__median(t, reps) * 1e3);
  return FU_OK;
}

/* What the fusion benchmark allocates: owned by fu_exec_bench_fusion, which frees all of it
 * whichever step fails (the steps below return on the first CUDA error). */
typedef struct fu__fbench {
  cudaStream_t s;            /* the one stream */
  cudaEvent_t a, b;          /* timing events around each run */
  unsigned char *host;       /* pinned destination, the largest row or the peak copy */
  unsigned char *fus;        /* device fusion buffer of the same size plus alignment */
  double *t;                 /* 8 x reps times, microseconds */
  void **ptrs;               /* the row's k separate device tensors (NULL when freed) */
  size_t *sz;                /* their sizes */
  int maxk;                  /* entries in ptrs and sz */
  fu_pack_plan *pp;          /* the row's pack plan, or NULL */
  int sm_count;              /* SMs of GPU 0, for the busy kernel */
} fu__fbench;

static int fu__fbench_alloc(fu__fbench *f, uint64_t maxb, int reps) {
  struct cudaDeviceProp prop;
  FU__CU(cudaSetDevice(0));
  FU__CU(cudaGetDeviceProperties(&prop, 0));
  f->sm_count = prop.multiProcessorCount;
  FU__CU(cudaStreamCreateWithFlags(&f->s, cudaStreamNonBlocking));
  FU__CU(cudaEventCreate(&f->a));
  FU__CU(cudaEventCreate(&f->b));
  FU__CU(cudaHostAlloc((void **)&f->host, maxb, cudaHostAllocDefault));
  memset(f->host, 0, maxb);
  FU__CU(cudaMalloc((void **)&f->fus, maxb + (uint64_t)FU__ALIGN * (uint64_t)f->maxk));
  f->t = malloc((size_t)reps * 8 * sizeof *f->t);
  f->ptrs = calloc((size_t)f->maxk, sizeof *f->ptrs);
  f->sz = calloc((size_t)f->maxk, sizeof *f->sz);
  return f->t && f->ptrs && f->sz ? FU_OK : FU_ENOMEM;
}

static void fu__fbench_free(fu__fbench *f) {
  fu_pack_plan_destroy(f->pp);
  for (int i = 0; f->ptrs && i < f->maxk; i++)
    if (f->ptrs[i]) cudaFree(f->ptrs[i]);
  free(f->t);
  free(f->ptrs);
  free(f->sz);
  if (f->fus) cudaFree(f->fus);
  if (f->host) cudaFreeHost(f->host);
  if (f->a) cudaEventDestroy(f->a);
  if (f->b) cudaEventDestroy(f->b);
  if (f->s) cudaStreamDestroy(f->s);
}

/* The rows and the peak before and after them (fu_exec_bench_fusion's work). */
static int fu__fbench_rows(fu__fbench *f, const int *k, const uint64_t *m, size_t n, int reps,
                           fu_fusion_row *out) {
  const uint64_t peak_bytes = 512ull << 20;
  cudaStream_t s = f->s;
  cudaEvent_t a = f->a, b = f->b;
  unsigned char *host = f->host, *fus = f->fus;
  double *t = f->t;
  void **ptrs = f->ptrs;
  size_t *sz = f->sz;
  /* Peak: one large copy, the median of reps (measured before and after the rows; the
   * better one counts, as the first copies of a process can run slow). */
  double peak_gbps = 0;
  FU_CHECK(fu__bench_peak(s, a, b, host, fus, peak_bytes, reps, t, &peak_gbps));
  int rc = FU_OK;
  for (size_t row = 0; row < n && rc == FU_OK; row++) {
    int kk = k[row];
    uint64_t mm = m[row];
    for (int i = 0; i < kk; i++) {
      FU__CU(cudaMalloc(&ptrs[i], mm));   /* separate tensors, as a model's parameters are */
      FU__KCHECK(fu_exec_fill_u32(s, ptrs[i], mm / 4, (uint32_t)i + 1));
      sz[i] = mm;
    }
    FU_CHECK(fu_pack_plan_create(ptrs, sz, kk, FU__ALIGN, &f->pp));
    const fu_pack_plan *pp = f->pp;
    double *ts = t, *t1 = t + reps, *tp = t + 2 * reps, *tpc = t + 3 * reps, *th = t + 4 * reps;
    double *q1 = t + 5 * reps, *qpc = t + 6 * reps, *qs = t + 7 * reps;
    for (int r = 0; r < reps + 3; r++) {
      /* The variants interleaved, so clock drift hits all. 0-4 start on an idle GPU, so the
       * host's launch and issue latency is inside the time; 5-7 are queued behind a 500 us
       * busy kernel first, so the time is the GPU's alone (as in the executor, where a
       * bucket's work waits, already queued, for its gradients' event). */
      for (int v = 0; v < 8; v++) {
        if (v >= 5) FU__KCHECK(fu_exec_busy(s, 500.0, f->sm_count));
        FU__CU(cudaEventRecord(a, s));
        if (v == 0 || v == 7)
          for (int i = 0; i < kk; i++)
            FU__CU(cudaMemcpyAsync(host + (uint64_t)i * mm, ptrs[i], mm, cudaMemcpyDeviceToHost, s));
        if (v == 2 || v == 3 || v == 6) FU_CHECK(fu_pack_plan_pack(f->pp, fus, s));
        if (v == 1 || v == 3 || v == 5 || v == 6)
          FU__CU(cudaMemcpyAsync(host, fus, pp->total_bytes, cudaMemcpyDeviceToHost, s));
        if (v == 4) FU_CHECK(fu_pack_plan_pack(f->pp, host, s));  /* SM stores over PCIe */
        FU__CU(cudaEventRecord(b, s));
        FU__CU(cudaEventSynchronize(b));
        float ms;
        FU__CU(cudaEventElapsedTime(&ms, a, b));
        if (r >= 3) t[v * reps + r - 3] = ms * 1000.0;
      }
    }
    /* The packed buffer holds tensor i at off[i]: check the first and last word of each. */
    FU__CU(cudaMemcpy(host, fus, pp->total_bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < kk && rc == FU_OK; i++) {
      uint32_t w0, wl;
      memcpy(&w0, host + pp->off[i], 4);
      memcpy(&wl, host + pp->off[i] + mm - 4, 4);
      if (w0 != fu_exec_pattern((uint32_t)i + 1, 0) ||
          wl != fu_exec_pattern((uint32_t)i + 1, mm / 4 - 1)) {
        fu_error("validate: fusion bench: packed tensor %d of %d is wrong", i, kk);
        rc = FU_EINTERNAL;
      }
    }
    out[row].k = kk;
    out[row].m = mm;
    out[row].separate_us = fu__median(ts, reps);
    out[row].one_copy_us = fu__median(t1, reps);
    out[row].pack_us = fu__median(tp, reps);
    out[row].pack_copy_us = fu__median(tpc, reps);
    out[row].pack_host_us = fu__median(th, reps);
    out[row].q_one_copy_us = fu__median(q1, reps);
    out[row].q_pack_copy_us = fu__median(qpc, reps);
    out[row].q_separate_us = fu__median(qs, reps);
    fu_pack_plan_destroy(f->pp);
    f->pp = NULL;
    for (int i = 0; i < kk; i++) {
      cudaError_t ce = cudaFree(ptrs[i]);
      ptrs[i] = NULL;
      FU__CU(ce);
    }
  }
  double peak2 = 0;
  if (rc == FU_OK) rc = fu__bench_peak(s, a, b, host, fus, peak_bytes, reps, t, &peak2);
  if (peak2 > peak_gbps) peak_gbps = peak2;
  for (size_t row = 0; row < n; row++) out[row].peak_gbps = peak_gbps;
  return rc;
}

int fu_exec_bench_fusion(const int *k, const uint64_t *m, size_t n, int reps, fu_fusion_row *out) {
  uint64_t maxb = 512ull << 20;   /* the peak copy's size */
  fu__fbench f;
  memset(&f, 0, sizeof f);
  f.maxk = 1;
  for (size_t r = 0; r < n; r++) {
    if ((uint64_t)k[r] * m[r] > maxb) maxb = (uint64_t)k[r] * m[r];
    if (k[r] > f.maxk) f.maxk = k[r];
  }
  if (reps < 1) reps = 1;
  int rc = fu__fbench_alloc(&f, maxb, reps);
  if (rc == FU_OK) rc = fu__fbench_rows(&f, k, m, n, reps, out);
  fu__fbench_free(&f);
  return rc;
}

/* ---- clocks and power: calib's NVML wrapper ------------------------------------------------ */

int fu_exec_mon_open(fu_exec_mon **out) {
  *out = (fu_exec_mon *)fu_nvml_create();
  if (!*out) fu_warn("validate: NVML not available; clocks and power are not recorded");
  return FU_OK;
}

void fu_exec_mon_close(fu_exec_mon *m) { fu_nvml_destroy((fu_nvml *)m); }

void fu_exec_mon_read(fu_exec_mon *m, int dev, double *sm_mhz, double *power_w) {
  fu_gpu_state g;
  memset(&g, 0, sizeof g);
  *sm_mhz = NAN;
  *power_w = NAN;
  if (!m || fu_nvml_read((fu_nvml *)m, dev, &g) != FU_OK || !g.valid) return;
  if (g.sm_mhz) *sm_mhz = g.sm_mhz;
  if (g.power_mw) *power_w = g.power_mw / 1000.0;
}

void fu_exec_mon_driver(fu_exec_mon *m, char *buf, size_t len) {
  if (len) buf[0] = 0;
  if (m && len && fu_nvml_driver((fu_nvml *)m, buf, len) != FU_OK) buf[0] = 0;
}
