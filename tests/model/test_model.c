/* test_model.c: names and parsing, nccl-tests bus-bandwidth factors, step counts and rescaling
 * across rank counts, each against values worked out by hand (see the comments). */
#include <math.h>

#include "fu_common.h"
#include "fu_model.h"
#include "fu_test.h"

static void test_names(void) {
  struct {
    const char *s;           /* spelling */
    fu_op op;                /* what it must parse to */
  } ops[] = {{"allreduce", FU_OP_ALLREDUCE},          {"all_reduce", FU_OP_ALLREDUCE},
             {"all_reduce_perf", FU_OP_ALLREDUCE},    {"AllReduce", FU_OP_ALLREDUCE},
             {"all-reduce", FU_OP_ALLREDUCE},         {"ALLREDUCE", FU_OP_ALLREDUCE},
             {"all_gather_perf", FU_OP_ALLGATHER},    {"AllGather", FU_OP_ALLGATHER},
             {"reduce_scatter_perf", FU_OP_REDUCESCATTER}, {"ReduceScatter", FU_OP_REDUCESCATTER},
             {"broadcast_perf", FU_OP_BROADCAST},     {"reduce_perf", FU_OP_REDUCE},
             {"alltoall_perf", FU_OP_ALLTOALL},       {"sendrecv_perf", FU_OP_SENDRECV},
             {"h2d", FU_OP_H2D},                      {"d2h", FU_OP_D2H},
             {"d2d", FU_OP_D2D},                      {"launch", FU_OP_LAUNCH},
             {"gemm", FU_OP_GEMM}};
  for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++) {
    fu_op o = FU_OP_COUNT;
    EXPECT_INT_EQ(fu_op_parse(ops[i].s, &o), FU_OK);
    EXPECT_INT_EQ(o, ops[i].op);
  }
  fu_op o;
  EXPECT_INT_EQ(fu_op_parse("bogus", &o), FU_EDATA);
  EXPECT_INT_EQ(fu_op_parse("", &o), FU_EDATA);
  EXPECT_INT_EQ(fu_op_parse("perf", &o), FU_EDATA);
  EXPECT_INT_EQ(fu_op_parse(NULL, &o), FU_EDATA);
  EXPECT_STR_EQ(fu_op_name(FU_OP_REDUCESCATTER), "reducescatter");
  EXPECT_STR_EQ(fu_op_name(FU_OP_COUNT), "?");
  for (int i = 0; i < FU_OP_COUNT; i++) { /* every name parses back to itself */
    EXPECT_INT_EQ(fu_op_parse(fu_op_name((fu_op)i), &o), FU_OK);
    EXPECT_INT_EQ(o, i);
  }
  EXPECT(fu_op_is_collective(FU_OP_SENDRECV) && !fu_op_is_collective(FU_OP_H2D));

  fu_link l;
  for (int i = 0; i < FU_LINK_COUNT; i++) {
    EXPECT_INT_EQ(fu_link_parse(fu_link_name((fu_link)i), &l), FU_OK);
    EXPECT_INT_EQ(l, i);
  }
  EXPECT_INT_EQ(fu_link_parse("NVLink", &l), FU_OK);
  EXPECT_INT_EQ(l, FU_LINK_NVLINK);
  EXPECT_INT_EQ(fu_link_parse("pcie-d2h", &l), FU_OK);
  EXPECT_INT_EQ(l, FU_LINK_PCIE_D2H);
  EXPECT_INT_EQ(fu_link_parse("IB", &l), FU_OK);
  EXPECT_INT_EQ(l, FU_LINK_NET);
  EXPECT_INT_EQ(fu_link_parse("carrier pigeon", &l), FU_EDATA);
  EXPECT_STR_EQ(fu_link_name(FU_LINK_PCIE_BIDIR), "pcie_bidir");

  fu_algo a;
  EXPECT_INT_EQ(fu_algo_parse("", &a), FU_OK);
  EXPECT_INT_EQ(a, FU_ALGO_RING);
  EXPECT_INT_EQ(fu_algo_parse("NVLS", &a), FU_OK);
  EXPECT_INT_EQ(a, FU_ALGO_NVLS);
  EXPECT_INT_EQ(fu_algo_parse("collnet", &a), FU_EDATA);
}

static void test_busbw(void) {
  /* nccl-tests (src/all_reduce.cu etc.): allreduce 2(n-1)/n, allgather/reducescatter/alltoall (n-1)/n, else 1 */
  EXPECT_NEAR(fu_busbw_factor(FU_OP_ALLREDUCE, 8), 1.75, 1e-15);
  EXPECT_NEAR(fu_busbw_factor(FU_OP_ALLREDUCE, 2), 1.0, 1e-15);
  EXPECT_NEAR(fu_busbw_factor(FU_OP_ALLREDUCE, 16), 1.875, 1e-15);
  EXPECT_NEAR(fu_busbw_factor(FU_OP_ALLREDUCE, 1), 0.0, 1e-15);
  EXPECT_NEAR(fu_busbw_factor(FU_OP_ALLGATHER, 8), 0.875, 1e-15);
  EXPECT_NEAR(fu_busbw_factor(FU_OP_REDUCESCATTER, 2), 0.5, 1e-15);
  EXPECT_NEAR(fu_busbw_factor(FU_OP_ALLTOALL, 4), 0.75, 1e-15);
  EXPECT_NEAR(fu_busbw_factor(FU_OP_BROADCAST, 8), 1.0, 1e-15);
  EXPECT_NEAR(fu_busbw_factor(FU_OP_REDUCE, 8), 1.0, 1e-15);
  EXPECT_NEAR(fu_busbw_factor(FU_OP_SENDRECV, 8), 1.0, 1e-15);
  EXPECT(isnan(fu_busbw_factor(FU_OP_ALLREDUCE, 0)));
  /* the published A100 row: 1 GiB in 8139.9 us at 8 ranks -> algbw 131.91, busbw 230.84 */
  double algbw = 1073741824.0 / 8139.9 / 1e3;
  EXPECT_NEAR(algbw * fu_busbw_factor(FU_OP_ALLREDUCE, 8), 230.84, 0.01);
}

static void test_steps(void) {
  EXPECT_NEAR(fu_coll_steps(FU_OP_ALLREDUCE, FU_ALGO_RING, 8), 14, 0);   /* 2(p-1) */
  EXPECT_NEAR(fu_coll_steps(FU_OP_ALLREDUCE, FU_ALGO_TREE, 8), 6, 0);    /* 2 log2 8 */
  EXPECT_NEAR(fu_coll_steps(FU_OP_ALLREDUCE, FU_ALGO_TREE, 5), 6, 0);    /* 2 ceil(log2 5) */
  EXPECT_NEAR(fu_coll_steps(FU_OP_ALLREDUCE, FU_ALGO_NVLS, 8), 2, 0);
  EXPECT_NEAR(fu_coll_steps(FU_OP_ALLREDUCE, FU_ALGO_RING, 1), 1, 0);    /* floor of 1 */
  EXPECT_NEAR(fu_coll_steps(FU_OP_ALLREDUCE, FU_ALGO_TREE, 1), 1, 0);
  EXPECT_NEAR(fu_coll_steps(FU_OP_ALLGATHER, FU_ALGO_RING, 8), 7, 0);
  EXPECT_NEAR(fu_coll_steps(FU_OP_REDUCESCATTER, FU_ALGO_TREE, 8), 7, 0); /* no tree: ring */
  EXPECT_NEAR(fu_coll_steps(FU_OP_BROADCAST, FU_ALGO_RING, 8), 7, 0);
  EXPECT_NEAR(fu_coll_steps(FU_OP_BROADCAST, FU_ALGO_TREE, 8), 3, 0);
  EXPECT_NEAR(fu_coll_steps(FU_OP_REDUCE, FU_ALGO_TREE, 9), 4, 0);
  EXPECT_NEAR(fu_coll_steps(FU_OP_ALLTOALL, FU_ALGO_RING, 8), 7, 0);
  EXPECT_NEAR(fu_coll_steps(FU_OP_SENDRECV, FU_ALGO_RING, 8), 1, 0);
  EXPECT_NEAR(fu_coll_steps(FU_OP_H2D, FU_ALGO_RING, 1), 1, 0);
}

static void test_rescale(void) {
  /* ring all-reduce fitted at p = 8: alpha 14 us (1 us per step), beta 1.75e-5 us/B, i.e. the
   * link moves 1 byte per 1e-5 us = 100 GB/s of bus bandwidth. At p = 16: 30 steps -> 30 us;
   * wire factor 1.875 -> beta 1.875e-5. A 1 MB call: 30 + 18.75 = 48.75 us. */
  fu_hockney h = {14.0, 1.75e-5};
  fu_hockney r = fu_coll_rescale(h, FU_OP_ALLREDUCE, FU_ALGO_RING, 8, 16);
  EXPECT_NEAR(r.alpha_us, 30.0, 1e-12);
  EXPECT_NEAR(r.beta_us_per_byte, 1.875e-5, 1e-18);
  EXPECT_NEAR(fu_hockney_time(r, 1e6), 48.75, 1e-9);
  /* and back again */
  fu_hockney b = fu_coll_rescale(r, FU_OP_ALLREDUCE, FU_ALGO_RING, 16, 8);
  EXPECT_NEAR(b.alpha_us, 14.0, 1e-12);
  EXPECT_NEAR(b.beta_us_per_byte, 1.75e-5, 1e-18);
  /* 8 -> 2 ranks: 2 steps -> alpha 2; factor 1.0 -> beta 1e-5 */
  r = fu_coll_rescale(h, FU_OP_ALLREDUCE, FU_ALGO_RING, 8, 2);
  EXPECT_NEAR(r.alpha_us, 2.0, 1e-12);
  EXPECT_NEAR(r.beta_us_per_byte, 1.0e-5, 1e-18);
  /* tree 8 -> 16: 6 -> 8 steps */
  r = fu_coll_rescale(h, FU_OP_ALLREDUCE, FU_ALGO_TREE, 8, 16);
  EXPECT_NEAR(r.alpha_us, 14.0 * 8 / 6, 1e-12);
  /* NVLS 8 -> 4: constant steps, beta by 1.5 / 1.75 */
  r = fu_coll_rescale(h, FU_OP_ALLREDUCE, FU_ALGO_NVLS, 8, 4);
  EXPECT_NEAR(r.alpha_us, 14.0, 1e-12);
  EXPECT_NEAR(r.beta_us_per_byte, 1.5e-5, 1e-18);
  /* all-gather ring 2 -> 8: 1 -> 7 steps, factor 0.5 -> 0.875 */
  fu_hockney g = {10.0, 2e-5};
  r = fu_coll_rescale(g, FU_OP_ALLGATHER, FU_ALGO_RING, 2, 8);
  EXPECT_NEAR(r.alpha_us, 70.0, 1e-12);
  EXPECT_NEAR(r.beta_us_per_byte, 3.5e-5, 1e-18);
  /* from one rank: no link crossed, beta kept; alpha by steps 1 -> 14 */
  r = fu_coll_rescale((fu_hockney){6.5, 5e-7}, FU_OP_ALLREDUCE, FU_ALGO_RING, 1, 8);
  EXPECT_NEAR(r.alpha_us, 91.0, 1e-12);
  EXPECT_NEAR(r.beta_us_per_byte, 5e-7, 1e-20);
  /* send/recv and copies do not depend on p */
  r = fu_coll_rescale(g, FU_OP_SENDRECV, FU_ALGO_RING, 2, 8);
  EXPECT_NEAR(r.alpha_us, 10.0, 0);
  EXPECT_NEAR(r.beta_us_per_byte, 2e-5, 0);
  /* same p: unchanged */
  r = fu_coll_rescale(h, FU_OP_ALLREDUCE, FU_ALGO_RING, 8, 8);
  EXPECT_NEAR(r.alpha_us, 14.0, 0);
}

/* Sizes as tables print them: whole units plain, else three significant digits, never an
 * exponent (1,048,608,768 B printed "1e+03 MiB"). */
static void test_format_size(void) {
  char b[32];
  EXPECT_STR_EQ(fu_format_size(1048576, b, sizeof b), "1 MiB");
  EXPECT_STR_EQ(fu_format_size(1536, b, sizeof b), "1.5 KiB");
  EXPECT_STR_EQ(fu_format_size(1048608768ull, b, sizeof b), "1000 MiB");
  EXPECT_STR_EQ(fu_format_size(1048064, b, sizeof b), "1024 KiB"); /* 1023.5 KiB */
  EXPECT_STR_EQ(fu_format_size(104333312, b, sizeof b), "99.5 MiB");
  EXPECT_STR_EQ(fu_format_size(3ull << 40, b, sizeof b), "3 TiB");
}

int main(void) {
  test_format_size();
  test_names();
  test_busbw();
  test_steps();
  test_rescale();
  return fu_test_report("test_model");
}
