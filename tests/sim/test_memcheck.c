/* test_memcheck.c: the device side of the memory check (sim/fu_memcheck.h) by hand: NCCL's
 * buffers with and without NVLS, which jobs get NVLS's, and the fit at its boundary. */
#include "fu_common.h"
#include "fu_memcheck.h"
#include "fu_plan.h"
#include "fu_profile.h"
#include "fu_test.h"

/* 32 channels x (512 KiB LL + 4800 KiB LL128 + 4 MiB Simple) = 32 x 9633792 B: the ring's. */
#define RING_BYTES 308281344.0
/* NVLS: 16 channels x 2 x (4 MiB + 2 MiB) for each of 8 GPUs a node = 1610612736 B, 16/24 of
 * the 2415919104 B vLLM issue 9699 logs at 24 channels on 8 H200 (fu_memcheck.h). */
#define NVLS8_BYTES (2415919104.0 * 16 / 24)

int main(void) {
  EXPECT_NEAR(fu_mem_nccl_bytes(1, 1, 1), 0, 0);
  EXPECT_NEAR(fu_mem_nccl_bytes(8, 8, 0), RING_BYTES, 0);
  EXPECT_NEAR(fu_mem_nccl_bytes(8, 8, 1), RING_BYTES + NVLS8_BYTES, 0);
  /* no NVLS with 2 GPUs a node (NCCL's rule): the ring's alone */
  EXPECT_NEAR(fu_mem_nccl_bytes(16, 2, 1), RING_BYTES, 0);

  /* Through a job: NVLS's buffers where the profile has NVLS and the job runs on NVLink, for
   * the GPUs of one node (2x8: 8, not 16); over PCIe, none. */
  static fu_profile prof; /* ~3.8 MB: not on the stack */
  fu_profile_init(&prof);
  prof.cluster.nvls_algbw_gbps[0] = 480;
  fu_comm c;
  EXPECT_INT_EQ(fu_comm_parse("allreduce:2x8:nvlink", &c), FU_OK);
  EXPECT_NEAR(fu_mem_nccl_for(&c, &prof), RING_BYTES + NVLS8_BYTES, 0);
  EXPECT_INT_EQ(fu_comm_parse("allreduce:8:pcie", &c), FU_OK);
  EXPECT_NEAR(fu_mem_nccl_for(&c, &prof), RING_BYTES, 0);
  EXPECT_INT_EQ(fu_comm_parse("offload", &c), FU_OK);
  EXPECT_NEAR(fu_mem_nccl_for(&c, &prof), 0, 0);
  /* no cost model, but a curve NCCL ran as NVLS over NVLink (the bundled default's published
   * 8 x H200 all-reduce): the machine runs NVLS, and NCCL allocates its buffers */
  static fu_profile curve_only;
  fu_profile_init(&curve_only);
  curve_only.ncurves = 1;
  snprintf(curve_only.curves[0].op, sizeof curve_only.curves[0].op, "allreduce");
  snprintf(curve_only.curves[0].link, sizeof curve_only.curves[0].link, "nvlink");
  snprintf(curve_only.curves[0].algo, sizeof curve_only.curves[0].algo, "nvls");
  curve_only.curves[0].ranks = 8;
  EXPECT_INT_EQ(fu_comm_parse("allreduce:8:nvlink", &c), FU_OK);
  EXPECT_NEAR(fu_mem_nccl_for(&c, &curve_only), RING_BYTES + NVLS8_BYTES, 0);
  snprintf(curve_only.curves[0].algo, sizeof curve_only.curves[0].algo, "ring");
  EXPECT_NEAR(fu_mem_nccl_for(&c, &curve_only), RING_BYTES, 0);

  /* A need of exactly the GPU's bytes fits (over 0); a byte more does not; unknown: -1. */
  int fits;
  double over;
  fu_mem_check(80e9, 80e9, &fits, &over);
  EXPECT_INT_EQ(fits, 1);
  EXPECT_NEAR(over, 0, 0);
  fu_mem_check(80e9 + 1, 80e9, &fits, &over);
  EXPECT_INT_EQ(fits, 0);
  EXPECT_NEAR(over, 1, 0);
  fu_mem_check(0, 80e9, &fits, &over);
  EXPECT_INT_EQ(fits, -1);
  return fu_test_report("test_memcheck");
}
