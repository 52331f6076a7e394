/* fu_calib_kernels.cu: small kernels for calib: empty and spin kernels, pattern fill/check for
 * copies and collectives, random data for GEMM. */
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include "fu_calib.h"
#include "fu_calib_gpu.h"

static unsigned fu__blocks(uint64_t n, unsigned threads) {
  uint64_t b = (n + threads - 1) / threads;
  if (b > 132 * 32) b = 132 * 32;  /* grid-stride beyond a few waves */
  return b ? (unsigned)b : 1;
}

__global__ void fu__empty_kernel(void) {}

__global__ void fu__spin_kernel(uint64_t ns) {
  uint64_t t0, t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

__global__ void fu__fill_bytes_kernel(unsigned char *p, uint64_t n, uint32_t seed) {
  uint64_t nw = n / 4;
  for (uint64_t w = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; w < nw;
       w += (uint64_t)gridDim.x * blockDim.x) {
    uint32_t v = fu_pattern_word(w, seed);
    if (((uintptr_t)p & 3) == 0) {
      ((uint32_t *)p)[w] = v;
    } else {
      for (int b = 0; b < 4; b++) p[4 * w + b] = (unsigned char)(v >> (8 * b));
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0)
    for (uint64_t i = nw * 4; i < n; i++) p[i] = fu_pattern_byte(i, seed);
}

__global__ void fu__check_bytes_kernel(const unsigned char *p, uint64_t n, uint32_t seed,
                                       unsigned long long *bad) {
  unsigned long long mine = 0;
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < (n + 3) / 4;
       i += (uint64_t)gridDim.x * blockDim.x) {
    uint32_t v = fu_pattern_word(i, seed);
    for (int b = 0; b < 4 && 4 * i + b < n; b++)
      mine += p[4 * i + b] != (unsigned char)(v >> (8 * b));
  }
  if (mine) atomicAdd(bad, mine);
}

template <typename T> __device__ static T fu__from_double(double v) { return (T)v; }
template <> __device__ __half fu__from_double<__half>(double v) { return __double2half(v); }
template <> __device__ __nv_bfloat16 fu__from_double<__nv_bfloat16>(double v) {
  return __double2bfloat16(v);
}
template <typename T> __device__ static double fu__to_double(T v) { return (double)v; }
template <> __device__ double fu__to_double<__half>(__half v) { return (double)__half2float(v); }
template <> __device__ double fu__to_double<__nv_bfloat16>(__nv_bfloat16 v) {
  return (double)__bfloat162float(v);
}

template <typename T> __global__ void fu__coll_fill_kernel(T *p, uint64_t count, int rank) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
       i += (uint64_t)gridDim.x * blockDim.x)
    p[i] = fu__from_double<T>(fu_coll_value(rank, i));
}

template <typename T>
__global__ void fu__coll_check_kernel(const T *p, uint64_t count, int mode, int rank, int nranks,
                                      uint64_t chunk, double tol, unsigned long long *bad) {
  unsigned long long mine = 0;
  for (uint64_t j = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; j < count;
       j += (uint64_t)gridDim.x * blockDim.x) {
    double want = 0;
    switch (mode) {
    case FU_K_ALLREDUCE:
      for (int r = 0; r < nranks; r++) want += fu_coll_value(r, j);
      break;
    case FU_K_REDUCESCATTER:
      for (int r = 0; r < nranks; r++) want += fu_coll_value(r, (uint64_t)rank * chunk + j);
      break;
    case FU_K_ALLGATHER: want = fu_coll_value((int)(j / chunk), j % chunk); break;
    case FU_K_BROADCAST: want = fu_coll_value(0, j); break;
    case FU_K_SENDRECV: want = fu_coll_value((rank + nranks - 1) % nranks, j); break;
    default: /* FU_K_ALLTOALL */
      want = fu_coll_value((int)(j / chunk), (uint64_t)rank * chunk + j % chunk);
      break;
    }
    double got = fu__to_double<T>(p[j]);
    if (!(fabs(got - want) <= tol * want)) mine++;
  }
  if (mine) atomicAdd(bad, mine);
}

template <typename T> __global__ void fu__random_kernel(T *p, uint64_t count, uint32_t seed) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < count;
       i += (uint64_t)gridDim.x * blockDim.x)
    p[i] = fu__from_double<T>(fu_pattern_word(i, seed) * (2.0 / 4294967296.0) - 1.0);
}

extern "C" {

void fu_pattern_fill_host(void *p, uint64_t n, uint32_t seed) {
  unsigned char *b = (unsigned char *)p;
  uint64_t nw = n / 4;
  for (uint64_t w = 0; w < nw; w++) {
    uint32_t v = fu_pattern_word(w, seed);
    memcpy(b + 4 * w, &v, 4);  /* little-endian: byte i = bits 8*(i&3) */
  }
  for (uint64_t i = nw * 4; i < n; i++) b[i] = fu_pattern_byte(i, seed);
}

uint64_t fu_pattern_check_host(const void *p, uint64_t n, uint32_t seed) {
  const unsigned char *b = (const unsigned char *)p;
  uint64_t bad = 0, nw = n / 4;
  for (uint64_t w = 0; w < nw; w++) {
    uint32_t v = fu_pattern_word(w, seed), g;
    memcpy(&g, b + 4 * w, 4);
    if (g != v)
      for (int k = 0; k < 4; k++) bad += (unsigned char)(g >> (8 * k)) != (unsigned char)(v >> (8 * k));
  }
  for (uint64_t i = nw * 4; i < n; i++) bad += b[i] != fu_pattern_byte(i, seed);
  return bad;
}

int fu_k_empty(cudaStream_t s) {
  fu__empty_kernel<<<1, 1, 0, s>>>();
  return (int)cudaGetLastError();
}

int fu_k_empty_n(int n, cudaStream_t s) {
  for (int i = 0; i < n; i++) fu__empty_kernel<<<1, 1, 0, s>>>();
  return (int)cudaGetLastError();
}

int fu_k_spin(uint64_t ns, cudaStream_t s) {
  fu__spin_kernel<<<1, 1, 0, s>>>(ns);
  return (int)cudaGetLastError();
}

int fu_k_fill_bytes(void *p, uint64_t n, uint32_t seed, cudaStream_t s) {
  if (n == 0) return 0;
  fu__fill_bytes_kernel<<<fu__blocks(n / 4 + 1, 256), 256, 0, s>>>((unsigned char *)p, n, seed);
  return (int)cudaGetLastError();
}

int fu_k_check_bytes(const void *p, uint64_t n, uint32_t seed, unsigned long long *d_bad,
                     cudaStream_t s) {
  if (n == 0) return 0;
  fu__check_bytes_kernel<<<fu__blocks(n / 4 + 1, 256), 256, 0, s>>>((const unsigned char *)p, n,
                                                                    seed, d_bad);
  return (int)cudaGetLastError();
}

int fu_k_coll_fill(void *p, uint64_t count, int dtype, int rank, cudaStream_t s) {
  if (count == 0) return 0;
  unsigned b = fu__blocks(count, 256);
  switch (dtype) {
  case FU_DT_INT8: fu__coll_fill_kernel<int8_t><<<b, 256, 0, s>>>((int8_t *)p, count, rank); break;
  case FU_DT_UINT8: fu__coll_fill_kernel<uint8_t><<<b, 256, 0, s>>>((uint8_t *)p, count, rank); break;
  case FU_DT_INT32: fu__coll_fill_kernel<int32_t><<<b, 256, 0, s>>>((int32_t *)p, count, rank); break;
  case FU_DT_INT64: fu__coll_fill_kernel<int64_t><<<b, 256, 0, s>>>((int64_t *)p, count, rank); break;
  case FU_DT_HALF: fu__coll_fill_kernel<__half><<<b, 256, 0, s>>>((__half *)p, count, rank); break;
  case FU_DT_FLOAT: fu__coll_fill_kernel<float><<<b, 256, 0, s>>>((float *)p, count, rank); break;
  case FU_DT_DOUBLE: fu__coll_fill_kernel<double><<<b, 256, 0, s>>>((double *)p, count, rank); break;
  case FU_DT_BF16:
    fu__coll_fill_kernel<__nv_bfloat16><<<b, 256, 0, s>>>((__nv_bfloat16 *)p, count, rank);
    break;
  default: return (int)cudaErrorInvalidValue;
  }
  return (int)cudaGetLastError();
}

int fu_k_coll_check(const void *p, uint64_t count, int dtype, int mode, int rank, int nranks,
                    uint64_t chunk, unsigned long long *d_bad, cudaStream_t s) {
  if (count == 0) return 0;
  unsigned b = fu__blocks(count, 256);
  if (chunk == 0) chunk = 1;
#define FU__CHECK(T, tol)                                                                     \
  fu__coll_check_kernel<T><<<b, 256, 0, s>>>((const T *)p, count, mode, rank, nranks, chunk, \
                                             tol, d_bad)
  switch (dtype) {
  case FU_DT_INT8: FU__CHECK(int8_t, 0.0); break;
  case FU_DT_UINT8: FU__CHECK(uint8_t, 0.0); break;
  case FU_DT_INT32: FU__CHECK(int32_t, 0.0); break;
  case FU_DT_INT64: FU__CHECK(int64_t, 0.0); break;
  case FU_DT_HALF: FU__CHECK(__half, 1e-3); break;
  case FU_DT_FLOAT: FU__CHECK(float, 0.0); break;
  case FU_DT_DOUBLE: FU__CHECK(double, 0.0); break;
  case FU_DT_BF16: FU__CHECK(__nv_bfloat16, 8e-3); break;
  default: return (int)cudaErrorInvalidValue;
  }
#undef FU__CHECK
  return (int)cudaGetLastError();
}

int fu_k_fill_random(void *p, uint64_t count, int dtype, uint32_t seed, cudaStream_t s) {
  if (count == 0) return 0;
  unsigned b = fu__blocks(count, 256);
  if (dtype == FU_DT_BF16)
    fu__random_kernel<__nv_bfloat16><<<b, 256, 0, s>>>((__nv_bfloat16 *)p, count, seed);
  else
    fu__random_kernel<float><<<b, 256, 0, s>>>((float *)p, count, seed);
  return (int)cudaGetLastError();
}

}  /* extern "C" */
