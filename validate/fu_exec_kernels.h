/* fu_exec_kernels.h: launchers of the executor's kernels (fu_exec_kernels.cu), callable from C.
 * Each returns a cudaError_t as int (0 = success) and is asynchronous on its stream. */
#ifndef FU_EXEC_KERNELS_H
#define FU_EXEC_KERNELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A kernel that runs `us` microseconds of wall time on nblocks one-warp blocks. */
int fu_exec_busy(cudaStream_t s, double us, int nblocks);
/* words 32-bit words at p := fu_exec_pattern(seed, i). */
int fu_exec_fill_u32(cudaStream_t s, void *p, uint64_t words, uint32_t seed);
/* n floats at p := fu_exec_f32_value(seed, i), whole numbers 0..15. */
int fu_exec_fill_f32(cudaStream_t s, void *p, uint64_t n, uint32_t seed);
/* The same values computed on the host. */
uint32_t fu_exec_pattern(uint32_t seed, uint64_t i);
float fu_exec_f32_value(uint32_t seed, uint64_t i);

#ifdef __cplusplus
}
#endif

#endif
