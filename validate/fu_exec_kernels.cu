/* fu_exec_kernels.cu: the executor's own kernels (the pack kernel is calib/fu_pack.h's).
 *
 *  - busy: one warp per SM spins on %globaltimer (nanoseconds) until `ns` have passed since its
 *    block started (all blocks start together on an idle GPU); its length does not follow the SM clock, and it leaves the
 *    rest of every SM free for a pack kernel on another stream. The timer's granularity (32 ns
 *    to 1 us by GPU) bounds the error of each kernel.
 *  - fill_u32: word i of a buffer = fu_exec_pattern(seed, i) (offload check);
 *  - fill_f32: element i = a small whole number from (seed, i) (all-reduce check: sums of a
 *    few such numbers are exact in float). */
#include <cuda_runtime.h>
#include <stdint.h>

#include "fu_exec_kernels.h"

__device__ static inline uint64_t fu__gtimer(void) {
  uint64_t t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  return t;
}

__global__ void fu__busy_kernel(uint64_t ns) {
  uint64_t start = fu__gtimer();
  while (fu__gtimer() - start < ns) {
  }
}

__host__ __device__ static inline uint32_t fu__mix(uint32_t seed, uint64_t i) {
  uint64_t x = i * 0x9E3779B97F4A7C15ull + seed * 0xBF58476D1CE4E5B9ull + 1;
  x ^= x >> 31;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 29;
  return (uint32_t)x;
}

__global__ void fu__fill_u32_kernel(uint32_t *p, uint64_t n, uint32_t seed) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
       i += (uint64_t)gridDim.x * blockDim.x)
    p[i] = fu__mix(seed, i);
}

__global__ void fu__fill_f32_kernel(float *p, uint64_t n, uint32_t seed) {
  for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < n;
       i += (uint64_t)gridDim.x * blockDim.x)
    p[i] = (float)(fu__mix(seed, i) & 15u);
}

extern "C" {

uint32_t fu_exec_pattern(uint32_t seed, uint64_t i) { return fu__mix(seed, i); }

int fu_exec_busy(cudaStream_t s, double us, int nblocks) {
  if (us <= 0) return 0;
  fu__busy_kernel<<<nblocks, 32, 0, s>>>((uint64_t)(us * 1000.0 + 0.5));
  return (int)cudaGetLastError();
}

int fu_exec_fill_u32(cudaStream_t s, void *p, uint64_t words, uint32_t seed) {
  if (!words) return 0;
  fu__fill_u32_kernel<<<1024, 256, 0, s>>>((uint32_t *)p, words, seed);
  return (int)cudaGetLastError();
}

int fu_exec_fill_f32(cudaStream_t s, void *p, uint64_t n, uint32_t seed) {
  if (!n) return 0;
  fu__fill_f32_kernel<<<1024, 256, 0, s>>>((float *)p, n, seed);
  return (int)cudaGetLastError();
}

float fu_exec_f32_value(uint32_t seed, uint64_t i) { return (float)(fu__mix(seed, i) & 15u); }

}
