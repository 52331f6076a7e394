/* fu_pack.cu: batched pack / unpack of k tensors into one fusion buffer in one launch.
 * See fu_pack.h for the layout and the cost. */
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>

extern "C" {
#include "fu_common.h"
}
#include "fu_pack.h"

#define FU__PACK_THREADS 256                                   /* threads per block */
#define FU__PACK_VEC 4                                         /* 16-byte units per thread */
#define FU__PACK_TILE (FU__PACK_THREADS * FU__PACK_VEC * 16)   /* 16 KiB of buffer per block */

/* Up to this many tensors, each block first copies the offsets, sizes and pointers into shared
 * memory (one round of independent, coalesced loads, (3k + 1) x 8 bytes <= 24 KiB), so the
 * binary searches and per-unit lookups cost shared-memory latency. Above it they read global
 * memory: each search step is then a dependent load (~0.5-1 us from HBM), which is what gave
 * the first version a ~6 us floor even for a 256 KiB buffer. */
#define FU__PACK_SMEM_K 1024

/* The layout, wherever it lives (shared or global memory). */
struct fu__layout {
  const uint64_t *off;       /* k + 1 offsets */
  const uint64_t *sizes;     /* k sizes, or NULL: dense */
  char *const *ptrs;         /* k tensor pointers */
};

/* Largest i in [lo, hi] with off[i] <= pos (off ascending, off[lo] <= pos). O(log(hi - lo)). */
__device__ static __forceinline__ int fu__find(const uint64_t *off, int lo, int hi, uint64_t pos) {
  while (lo < hi) {
    int mid = (lo + hi + 1) >> 1;
    if (off[mid] <= pos) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

__device__ static __forceinline__ uint64_t fu__size(const fu__layout &L, int t) {
  return L.sizes ? L.sizes[t] : L.off[t + 1] - L.off[t];
}

/* Unit kinds on the tensor side: the buffer side is always 16-byte aligned. */
enum { FU__U_NONE = 0, FU__U_V16 = 1, FU__U_V4 = 2, FU__U_B1 = 3 };

template <bool PACK, bool SMEM>
__global__ void __launch_bounds__(FU__PACK_THREADS)
    fu__pack_kernel(char *__restrict__ buf, char *const *__restrict__ ptrs,
                    const uint64_t *__restrict__ off, const uint64_t *__restrict__ sizes, int k,
                    uint64_t total) {
  extern __shared__ uint64_t fu__smem[];
  __shared__ int range[2];
  fu__layout L = {off, sizes, ptrs};
  if (SMEM) {
    uint64_t *so = fu__smem, *ss = fu__smem + (k + 1), *sp = ss + k;
    for (int i = threadIdx.x; i <= k; i += FU__PACK_THREADS) so[i] = __ldg(off + i);
    for (int i = threadIdx.x; i < k; i += FU__PACK_THREADS) {
      ss[i] = sizes ? __ldg(sizes + i) : __ldg(off + i + 1) - __ldg(off + i);
      sp[i] = (uint64_t)(uintptr_t)ptrs[i];
    }
    __syncthreads();
    L.off = so;
    L.sizes = ss;
    L.ptrs = (char *const *)sp;
  }
  const uint64_t tile0 = (uint64_t)blockIdx.x * FU__PACK_TILE;
  const uint64_t tile_end = min(tile0 + (uint64_t)FU__PACK_TILE, total);
  if (threadIdx.x == 0) range[0] = fu__find(L.off, 0, k - 1, tile0);
  if (threadIdx.x == 32) range[1] = fu__find(L.off, 0, k - 1, tile_end - 1);
  __syncthreads();
  const int tlo = range[0], thi = range[1];

  uint4 v[FU__PACK_VEC];
  int kind[FU__PACK_VEC];
  char *tp[FU__PACK_VEC];
  /* Phase 1: every load of this thread in flight before the first store. */
#pragma unroll
  for (int j = 0; j < FU__PACK_VEC; j++) {
    const uint64_t p = tile0 + ((uint64_t)j * FU__PACK_THREADS + threadIdx.x) * 16;
    kind[j] = FU__U_NONE;
    tp[j] = NULL;
    if (p >= tile_end) continue;
    int t = tlo == thi ? tlo : fu__find(L.off, tlo, thi, p);
    uint64_t a = L.off[t], n = fu__size(L, t);
    if (p + 16 <= a + n) {  /* the whole unit lies inside tensor t */
      char *q = L.ptrs[t] + (p - a);
      uintptr_t al = (uintptr_t)q & 15;
      kind[j] = al == 0 ? FU__U_V16 : ((al & 3) == 0 ? FU__U_V4 : FU__U_B1);
      tp[j] = q;
      if (PACK) {
        if (kind[j] == FU__U_V16) {
          v[j] = __ldg((const uint4 *)q);
        } else if (kind[j] == FU__U_V4) {
          const unsigned *w = (const unsigned *)q;
          v[j] = make_uint4(__ldg(w), __ldg(w + 1), __ldg(w + 2), __ldg(w + 3));
        } else {
          unsigned char bytes[16];
#pragma unroll
          for (int b = 0; b < 16; b++) bytes[b] = (unsigned char)q[b];
          memcpy(&v[j], bytes, 16);
        }
      } else {
        v[j] = __ldg((const uint4 *)(buf + p));
      }
    } else {
      /* The unit crosses a tensor boundary, a gap or the end: byte by byte (at most 2k such
       * units in the whole buffer). */
      for (int b = 0; b < 16; b++) {
        uint64_t q = p + b;
        if (q >= total) break;
        while (t < thi && L.off[t + 1] <= q) t++;
        a = L.off[t];
        n = fu__size(L, t);
        if (q >= a && q < a + n) {
          if (PACK) buf[q] = L.ptrs[t][q - a];
          else L.ptrs[t][q - a] = buf[q];
        }
      }
    }
  }
  /* Phase 2: stores. */
#pragma unroll
  for (int j = 0; j < FU__PACK_VEC; j++) {
    if (kind[j] == FU__U_NONE) continue;
    const uint64_t p = tile0 + ((uint64_t)j * FU__PACK_THREADS + threadIdx.x) * 16;
    if (PACK) {
      *(uint4 *)(buf + p) = v[j];
    } else if (kind[j] == FU__U_V16) {
      *(uint4 *)tp[j] = v[j];
    } else if (kind[j] == FU__U_V4) {
      unsigned *w = (unsigned *)tp[j];
      w[0] = v[j].x;
      w[1] = v[j].y;
      w[2] = v[j].z;
      w[3] = v[j].w;
    } else {
      unsigned char bytes[16];
      memcpy(bytes, &v[j], 16);
#pragma unroll
      for (int b = 0; b < 16; b++) tp[j][b] = (char)bytes[b];
    }
  }
}

static int fu__pack_common(bool pack, char *buf, char *const *d_ptrs, const uint64_t *d_off,
                           const uint64_t *d_sizes, int k, uint64_t total, cudaStream_t stream) {
  if (k < 1 || !buf || !d_ptrs || !d_off) {
    fu_error("fu_pack: need k >= 1 tensors, a buffer, pointer and offset arrays (k = %d)", k);
    return FU_EUSAGE;
  }
  if ((uintptr_t)buf & 15) {
    fu_error("fu_pack: the fusion buffer %p is not 16-byte aligned", (void *)buf);
    return FU_EUSAGE;
  }
  if (total == 0) return FU_OK;
  uint64_t blocks = (total + FU__PACK_TILE - 1) / FU__PACK_TILE;
  if (blocks > 0x7fffffffULL) {
    fu_error("fu_pack: buffer of %llu bytes is too large", (unsigned long long)total);
    return FU_EUSAGE;
  }
  const unsigned g = (unsigned)blocks;
  if (k <= FU__PACK_SMEM_K) {
    size_t smem = (3 * (size_t)k + 1) * sizeof(uint64_t);
    if (pack)
      fu__pack_kernel<true, true><<<g, FU__PACK_THREADS, smem, stream>>>(buf, d_ptrs, d_off, d_sizes,
                                                                         k, total);
    else
      fu__pack_kernel<false, true><<<g, FU__PACK_THREADS, smem, stream>>>(buf, d_ptrs, d_off,
                                                                          d_sizes, k, total);
  } else {
    if (pack)
      fu__pack_kernel<true, false><<<g, FU__PACK_THREADS, 0, stream>>>(buf, d_ptrs, d_off, d_sizes,
                                                                       k, total);
    else
      fu__pack_kernel<false, false><<<g, FU__PACK_THREADS, 0, stream>>>(buf, d_ptrs, d_off, d_sizes,
                                                                        k, total);
  }
  cudaError_t e = cudaGetLastError();
  if (e != cudaSuccess) {
    fu_error("fu_pack: kernel launch failed: %s", cudaGetErrorString(e));
    return FU_EINTERNAL;
  }
  return FU_OK;
}

extern "C" int fu_pack_launch(void *dst, const void *const *d_srcs, const uint64_t *d_off,
                              const uint64_t *d_sizes, int k, uint64_t total_bytes,
                              cudaStream_t stream) {
  return fu__pack_common(true, (char *)dst, (char *const *)d_srcs, d_off, d_sizes, k, total_bytes,
                         stream);
}

extern "C" int fu_unpack_launch(void *const *d_dsts, const void *src, const uint64_t *d_off,
                                const uint64_t *d_sizes, int k, uint64_t total_bytes,
                                cudaStream_t stream) {
  return fu__pack_common(false, (char *)src, (char *const *)d_dsts, d_off, d_sizes, k,
                         total_bytes, stream);
}

static int fu__cuda_ok(cudaError_t e, const char *what) {
  if (e == cudaSuccess) return FU_OK;
  fu_error("fu_pack: %s: %s", what, cudaGetErrorString(e));
  return e == cudaErrorMemoryAllocation ? FU_ENOMEM : FU_EINTERNAL;
}

extern "C" int fu_pack_plan_create(void *const *ptrs, const size_t *sizes, int k, size_t align,
                                   fu_pack_plan **out) {
  *out = NULL;
  if (k < 1 || !ptrs || !sizes || align == 0 || (align & (align - 1))) {
    fu_error("fu_pack: plan needs k >= 1 tensors and a power-of-two alignment (k = %d, align = "
             "%zu)", k, align);
    return FU_EUSAGE;
  }
  fu_pack_plan *p = (fu_pack_plan *)calloc(1, sizeof *p);
  uint64_t *sz = (uint64_t *)malloc(sizeof(uint64_t) * (size_t)k);
  if (!p || !sz || !(p->off = (uint64_t *)malloc(sizeof(uint64_t) * ((size_t)k + 1)))) {
    free(sz);
    if (p) free(p->off);
    free(p);
    fu_error("fu_pack: out of memory for a plan of %d tensors", k);
    return FU_ENOMEM;
  }
  p->k = k;
  uint64_t o = 0;
  for (int i = 0; i < k; i++) {
    o = (o + align - 1) & ~(uint64_t)(align - 1);
    p->off[i] = o;
    sz[i] = sizes[i];
    o += sizes[i];
  }
  p->off[k] = o;
  p->total_bytes = o;
  int st = fu__cuda_ok(cudaMalloc((void **)&p->d_ptrs, sizeof(void *) * (size_t)k), "cudaMalloc");
  if (st == FU_OK)
    st = fu__cuda_ok(cudaMalloc((void **)&p->d_off, sizeof(uint64_t) * ((size_t)k + 1)),
                     "cudaMalloc");
  if (st == FU_OK)
    st = fu__cuda_ok(cudaMalloc((void **)&p->d_sizes, sizeof(uint64_t) * (size_t)k), "cudaMalloc");
  if (st == FU_OK)
    st = fu__cuda_ok(cudaMemcpy(p->d_ptrs, ptrs, sizeof(void *) * (size_t)k,
                                cudaMemcpyHostToDevice), "cudaMemcpy");
  if (st == FU_OK)
    st = fu__cuda_ok(cudaMemcpy(p->d_off, p->off, sizeof(uint64_t) * ((size_t)k + 1),
                                cudaMemcpyHostToDevice), "cudaMemcpy");
  if (st == FU_OK)
    st = fu__cuda_ok(cudaMemcpy(p->d_sizes, sz, sizeof(uint64_t) * (size_t)k,
                                cudaMemcpyHostToDevice), "cudaMemcpy");
  free(sz);
  if (st != FU_OK) {
    fu_pack_plan_destroy(p);
    return st;
  }
  *out = p;
  return FU_OK;
}

extern "C" void fu_pack_plan_destroy(fu_pack_plan *plan) {
  if (!plan) return;
  cudaFree(plan->d_ptrs);
  cudaFree(plan->d_off);
  cudaFree(plan->d_sizes);
  free(plan->off);
  free(plan);
}

extern "C" int fu_pack_plan_pack(const fu_pack_plan *plan, void *buf, cudaStream_t stream) {
  return fu_pack_launch(buf, (const void *const *)plan->d_ptrs, plan->d_off, plan->d_sizes,
                        plan->k, plan->total_bytes, stream);
}

extern "C" int fu_pack_plan_unpack(const fu_pack_plan *plan, const void *buf,
                                   cudaStream_t stream) {
  return fu_unpack_launch(plan->d_ptrs, buf, plan->d_off, plan->d_sizes, plan->k,
                          plan->total_bytes, stream);
}
