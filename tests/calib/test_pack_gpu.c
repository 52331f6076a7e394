/* test_pack_gpu.c: the batched pack / unpack kernel (calib/fu_pack.h) against a host
 * reference on random layouts: random tensor counts (1 to 3500) and sizes (0 bytes included), tensors at
 * every address alignment, dense (align 1) and 16-byte-aligned buffers. The buffer and the
 * tensors are poisoned first, so an unwritten byte or a byte written into a gap shows.
 * Exit 77 (skipped) without a GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fu_common.h"
#include "fu_pack.h"
#include "fu_test.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rnd(void) {  /* xorshift64* */
  rng_state ^= rng_state >> 12;
  rng_state ^= rng_state << 25;
  rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ULL;
}

#define CK(call)                                                                   \
  do {                                                                             \
    cudaError_t e_ = (call);                                                       \
    if (e_ != cudaSuccess) {                                                       \
      fprintf(stderr, "FAIL %s:%d: %s: %s\n", __FILE__, __LINE__, #call,           \
              cudaGetErrorString(e_));                                             \
      return 1;                                                                    \
    }                                                                              \
  } while (0)

/* One random layout: returns 0 when pack and unpack match the host reference. */
static int one_case(int k, size_t max_size, size_t align, int trial) {
  size_t *sizes = calloc((size_t)k, sizeof *sizes), *shift = calloc((size_t)k, sizeof *shift);
  void **ptrs = calloc((size_t)k, sizeof *ptrs);
  size_t arena_bytes = 0;
  for (int i = 0; i < k; i++) {
    sizes[i] = (rnd() % 8 == 0) ? 0 : (size_t)(rnd() % (max_size + 1));
    shift[i] = (size_t)(rnd() % 16);
    arena_bytes += sizes[i] + 16 + 256;
  }
  unsigned char *arena, *h_arena = malloc(arena_bytes), *h_back = malloc(arena_bytes);
  CK(cudaMalloc((void **)&arena, arena_bytes));
  for (size_t i = 0; i < arena_bytes; i++) h_arena[i] = (unsigned char)rnd();
  CK(cudaMemcpy(arena, h_arena, arena_bytes, cudaMemcpyHostToDevice));
  size_t o = 0;
  for (int i = 0; i < k; i++) {
    ptrs[i] = arena + o + shift[i];
    o += sizes[i] + 16 + 256;
  }
  fu_pack_plan *plan;
  EXPECT_INT_EQ(fu_pack_plan_create(ptrs, sizes, k, align, &plan), FU_OK);
  uint64_t total = plan->total_bytes;
  unsigned char *buf, *h_buf = malloc(total + 1), *want = malloc(total + 1);
  CK(cudaMalloc((void **)&buf, total + 16));
  CK(cudaMemset(buf, 0xC3, total + 16));
  memset(want, 0xC3, total + 1);
  for (int i = 0; i < k; i++)
    memcpy(want + plan->off[i], h_arena + ((unsigned char *)ptrs[i] - arena), sizes[i]);
  EXPECT_INT_EQ(fu_pack_plan_pack(plan, buf, 0), FU_OK);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h_buf, buf, total, cudaMemcpyDeviceToHost));
  int bad = total ? memcmp(h_buf, want, total) != 0 : 0;
  if (bad) FU_T_FAIL("pack: trial %d k %d align %zu: buffer differs", trial, k, align);
  else fu_test_passed++;
  /* packing straight into pinned host memory (device-addressable) gives the same bytes */
  unsigned char *pinned;
  CK(cudaHostAlloc((void **)&pinned, total + 16, cudaHostAllocDefault));
  memset(pinned, 0xC3, total + 16);
  EXPECT_INT_EQ(fu_pack_plan_pack(plan, pinned, 0), FU_OK);
  CK(cudaDeviceSynchronize());
  if (total && memcmp(pinned, want, total) != 0)
    FU_T_FAIL("pack to pinned host: trial %d k %d align %zu: buffer differs", trial, k, align);
  else fu_test_passed++;
  cudaFreeHost(pinned);
  /* unpack into poisoned tensors: every tensor byte restored, nothing else touched */
  CK(cudaMemset(arena, 0x3C, arena_bytes));
  EXPECT_INT_EQ(fu_pack_plan_unpack(plan, buf, 0), FU_OK);
  CK(cudaDeviceSynchronize());
  CK(cudaMemcpy(h_back, arena, arena_bytes, cudaMemcpyDeviceToHost));
  unsigned char *expect_arena = malloc(arena_bytes);
  memset(expect_arena, 0x3C, arena_bytes);
  for (int i = 0; i < k; i++) {
    size_t at = (size_t)((unsigned char *)ptrs[i] - arena);
    memcpy(expect_arena + at, h_arena + at, sizes[i]);
  }
  bad = memcmp(h_back, expect_arena, arena_bytes) != 0;
  if (bad) FU_T_FAIL("unpack: trial %d k %d align %zu: tensors differ", trial, k, align);
  else fu_test_passed++;
  fu_pack_plan_destroy(plan);
  cudaFree(buf);
  cudaFree(arena);
  free(expect_arena);
  free(h_buf);
  free(want);
  free(h_arena);
  free(h_back);
  free(sizes);
  free(shift);
  free(ptrs);
  return 0;
}

int main(void) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    fprintf(stderr, "no GPU: skipped\n");
    return 77;
  }
  /* k <= 1024 takes the shared-memory layout path, larger k the global one: both covered */
  for (int trial = 0; trial < 70; trial++) {
    int k = 1 + (int)(rnd() % (trial < 30 ? 8 : 300));
    if (trial >= 60) k = 1000 + (int)(rnd() % 2500);
    size_t max_size = trial % 3 == 0 ? 40 : (trial % 3 == 1 ? 5000 : 200000);
    if (trial >= 60) max_size = trial % 2 ? 64 : 3000;
    if (one_case(k, max_size, trial % 2 ? 16 : 1, trial)) return 1;
  }
  /* bad arguments are refused, not launched */
  EXPECT_INT_EQ(fu_pack_launch((void *)(uintptr_t)16, NULL, NULL, NULL, 0, 0, 0), FU_EUSAGE);
  void *p;
  if (cudaMalloc(&p, 64) == cudaSuccess) {
    EXPECT_INT_EQ(fu_pack_launch((char *)p + 1, (const void *const *)p, (const uint64_t *)p, NULL,
                                 1, 8, 0), FU_EUSAGE);   /* buffer not 16-aligned */
    cudaFree(p);
  }
  return fu_test_report("pack kernel (GPU)");
}
