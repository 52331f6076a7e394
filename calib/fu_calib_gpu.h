/* fu_calib_gpu.h: calib's helper kernels (fu_calib_kernels.cu), callable from C. Each launcher
 * returns the cudaError_t of the launch as an int (0 = success). */
#ifndef FU_CALIB_GPU_H
#define FU_CALIB_GPU_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __CUDACC__
#define FU_HD __host__ __device__
#else
#define FU_HD
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* The byte pattern copies are checked against: a hash of the 4-byte word index and a seed. */
static inline FU_HD uint32_t fu_pattern_word(uint64_t w, uint32_t seed) {
  uint32_t x = (uint32_t)(w ^ (w >> 32)) * 0x9E3779B1u + seed;
  x ^= x >> 15;
  x *= 0x85EBCA77u;
  x ^= x >> 13;
  x *= 0xC2B2AE3Du;
  x ^= x >> 16;
  return x;
}
static inline FU_HD unsigned char fu_pattern_byte(uint64_t i, uint32_t seed) {
  return (unsigned char)(fu_pattern_word(i >> 2, seed) >> (8 * (i & 3)));
}

/* Host side of the pattern (O(n)). check returns the count of wrong bytes. */
void fu_pattern_fill_host(void *p, uint64_t n, uint32_t seed);
uint64_t fu_pattern_check_host(const void *p, uint64_t n, uint32_t seed);

int fu_k_empty(cudaStream_t s);                       /* one empty kernel, 1 thread */
int fu_k_empty_n(int n, cudaStream_t s);              /* n of them back to back, one check */
int fu_k_spin(uint64_t ns, cudaStream_t s);           /* a kernel that waits ns nanoseconds */
int fu_k_fill_bytes(void *p, uint64_t n, uint32_t seed, cudaStream_t s);
/* Adds the count of bytes of p that differ from the pattern to *d_bad (device memory). */
int fu_k_check_bytes(const void *p, uint64_t n, uint32_t seed, unsigned long long *d_bad,
                     cudaStream_t s);

/* Collective data: rank r's input element i is fu_coll_value(r, i), a small integer, so sums
 * over ranks are exact in every data type. */
static inline FU_HD double fu_coll_value(int rank, uint64_t i) {
  return (double)((i * 3 + (uint64_t)rank * 5) % 13 + 1);
}
enum { FU_K_ALLREDUCE, FU_K_ALLGATHER, FU_K_REDUCESCATTER, FU_K_BROADCAST, FU_K_SENDRECV,
       FU_K_ALLTOALL };
/* p[i] = value(rank, i) for i < count, in data type dtype (fu_calib_dtype). */
int fu_k_coll_fill(void *p, uint64_t count, int dtype, int rank, cudaStream_t s);
/* Checks count output elements of a collective (mode FU_K_*) on rank `rank` of nranks; chunk
 * is the per-rank element count of allgather / reducescatter / alltoall. Adds the wrong ones
 * to *d_bad. */
int fu_k_coll_check(const void *p, uint64_t count, int dtype, int mode, int rank, int nranks,
                    uint64_t chunk, unsigned long long *d_bad, cudaStream_t s);
/* Uniform random values in [-1, 1) (not zeros: zeros run faster than real data). dtype is
 * FU_DT_FLOAT or FU_DT_BF16. */
int fu_k_fill_random(void *p, uint64_t count, int dtype, uint32_t seed, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
