/* fu_pack.h: the fusion buffer's batched pack and unpack (CUDA), shared by calib and validate.
 *
 * Packing copies k tensors, each of its own size and at its own address, into one contiguous
 * buffer in ONE kernel launch; unpacking is the inverse. Tensor i occupies the bytes
 * [off[i], off[i] + size[i]) of the buffer, off has k+1 ascending entries, off[0] = 0 and
 * off[k] = the buffer's total bytes. With no size array the layout is dense (size[i] =
 * off[i+1] - off[i]); a caller that wants each tensor 16-byte aligned inside the buffer rounds
 * the offsets up and passes the sizes (fu_pack_plan_create does this when asked): the gap bytes
 * are left untouched. The buffer must be 16-byte aligned (cudaMalloc's are); tensors may sit at
 * any address.
 *
 * Cost: one launch, then HBM-bound: every byte is read once and written once. The kernel walks
 * the buffer in 16 KiB tiles, one block each (256 threads x 4 x 16-byte vectors), finds the
 * tile's first and last tensor by binary search over off (O(log k), once per tile), and copies
 * with 16-byte loads and stores wherever the tensor's address and the buffer position are both
 * 16-byte aligned, 4-byte otherwise when both are 4-aligned, else byte by byte. Tensors smaller
 * than a tile share a tile. The pointer and offset arrays are read from device memory, so a
 * fusion buffer's layout is uploaded once and every iteration costs only the launch.
 *
 * The buffer may be pinned host memory (cudaHostAlloc: device-addressable under unified
 * addressing): then pack and the copy to the host are one launch, the SMs writing over PCIe
 * (measured on the H200, data/calibration/: 64 x 64 KiB in 1.09x the time of one 4 MiB D2H copy,
 * where pack into device memory then cudaMemcpyAsync takes 1.15x, the copy engine waiting for the
 * kernel; the pack kernel alone moves 2.0 TB/s, 96% of a device-to-device copy, from 32 MiB).
 *
 * Up to 1024 tensors each block stages the layout in shared memory ((3k + 1) x 8 bytes), so
 * finding a tile's tensors costs no dependent global loads; above that it searches global memory.
 *
 * All functions return an fu_status (fu_common.h) and print one line on a CUDA error. They are
 * asynchronous on `stream` except fu_pack_plan_create/destroy, which upload / free the arrays
 * synchronously. Include from C or CUDA C++; needs the CUDA runtime headers. */
#ifndef FU_PACK_H
#define FU_PACK_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Low level: d_srcs (k device pointers), d_off (k+1 offsets, ascending) and d_sizes (k sizes,
 * or NULL for a dense layout) live in DEVICE memory. Packs tensor i (d_srcs[i], size[i] bytes)
 * to dst + off[i]. total_bytes must equal off[k] (the host knows it; the grid is sized from
 * it). k >= 1; total_bytes 0 does nothing. FU_EUSAGE if dst is not 16-byte aligned. */
int fu_pack_launch(void *dst, const void *const *d_srcs, const uint64_t *d_off,
                   const uint64_t *d_sizes, int k, uint64_t total_bytes, cudaStream_t stream);
/* Inverse: copies src + off[i] .. off[i] + size[i] to d_dsts[i]. */
int fu_unpack_launch(void *const *d_dsts, const void *src, const uint64_t *d_off,
                     const uint64_t *d_sizes, int k, uint64_t total_bytes, cudaStream_t stream);

/* Convenience: a fusion buffer layout uploaded once (library-owned). */
typedef struct fu_pack_plan {
  int k;                     /* tensors */
  uint64_t total_bytes;      /* buffer bytes = off[k] (gaps included when aligned) */
  uint64_t *off;             /* host copy of the k+1 offsets (malloc'd) */
  void **d_ptrs;             /* device array of the k tensor pointers */
  uint64_t *d_off;           /* device array of the k+1 offsets */
  uint64_t *d_sizes;         /* device array of the k sizes */
} fu_pack_plan;

/* ptrs[i] (device pointers) and sizes[i] are host arrays of k entries; align is 1 (dense,
 * no gaps) or a power of two (16 recommended: every tensor starts 16-aligned in the buffer).
 * The buffer itself is the caller's: cudaMalloc(plan->total_bytes). */
int fu_pack_plan_create(void *const *ptrs, const size_t *sizes, int k, size_t align,
                        fu_pack_plan **out);
void fu_pack_plan_destroy(fu_pack_plan *plan);  /* accepts NULL */
/* tensors -> buf, and buf -> tensors, with a plan. */
int fu_pack_plan_pack(const fu_pack_plan *plan, void *buf, cudaStream_t stream);
int fu_pack_plan_unpack(const fu_pack_plan *plan, const void *buf, cudaStream_t stream);

#ifdef __cplusplus
}
#endif

#endif
