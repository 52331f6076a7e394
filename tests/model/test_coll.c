/* test_coll.c: the collective cost model (model/fu_coll.h) against values worked by hand, and its
 * fit recovering the link parameters of observations the model itself generated. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fu_coll.h"
#include "fu_common.h"
#include "fu_test.h"

static fu_cluster hand(void) {
  fu_cluster c;
  fu_cluster_init(&c);
  c.base_us = 2;
  c.intra_step_us = 1;
  c.intra_gbps = 400;
  c.nic_gbps = 50;
  c.net_step_us = 5;
  return c;
}

/* NCCL's choice in its 2.27-on form (fu_coll_nccl_prefers_nvls_tree), worked by hand from
 * src/tuning/{ring,tree,nvls}.cc and tuning.cc's constants for 8 GPUs a node over NVLink with
 * 8 NICs of 50 GB/s (k B_nic = 400), B_intra 720 and A_nvls 480 GB/s (L = min(720, 400) = 400),
 * p = 8N, 16 channels for the per-channel caps. Algorithm bandwidths (GB/s) and latencies (us):
 *   NVLS-tree: bus min(2 x 480 x 15/16 = 900, 400 x (2 on 2 nodes, else 1), 16 x cap) = 800 on 2
 *     nodes, 400 on 3 and 4; x p / (2 (p - 1)): 426.67, 208.70, 206.45; latency
 *     25 + 2 log2i(N) x 20.9 = 66.8 (N = 2, 3), 108.6 (N = 4).
 *   ring/Simple: 400 x p / (2 (p - 1)) (as NVLS-tree's from 3 nodes); latency 8.4 + (2(p-1) -
 *     2(N-1)) x 3.4 + 2(N-1) x 14 = 131.6, 207.2, 282.8, x 1.4 (plateau) from 1024 p bytes.
 *   ring/LL128: min(0.92 x 400, 16 x 40) = 368 x p / (2 (p - 1)) = 192.0 (N = 3), 189.94 (N = 4);
 *     latency 14 + (2(p-1) - 2(N-1)) x 1.9 + 2(N-1) x 4 = 109.8, 144.4.
 *   tree/LL128: min(0.92 x 400 x 120/128 = 345, cap) / 2 = 172.5 (N = 2); latency
 *     14 + 2 (7 x 1.25 + log2i(N) x 8.5) = 48.5.
 * Blackwell (compcap 100) slows NVLS-tree below 1 GiB by the tree correction (Simple: 0.5 at
 * 1 MiB, 0.8 at 64 MiB, 0.9 at 256-512 MiB); Hopper does not. The 2.19 form (2.21.3) rates
 * NVLS-tree min(480, 400) x 5/6 = 333.3 above the ring's 213.3 and tree's 184 at every size. */
static void nccl_choice_27(void) {
  fu_cluster c;
  fu_cluster_init(&c);
  c.base_us = 2, c.intra_step_us = 1, c.net_step_us = 5;
  c.intra_gbps = 720, c.nic_gbps = 50, c.nvls_algbw_gbps[0] = 480;
  snprintf(c.intra_link, sizeof c.intra_link, "nvlink");
  c.job_compcap = 100;
  c.job_nccl_version = 22902;
  double MiB = 1048576.0, GiB = 1073741824.0;
  /* 2 nodes, 1 MiB: NVLS-tree 66.8 + 2^20 / (426.67 x 0.5) us = 71.7 against tree/LL128
   * 48.5 + 2^20 / (172.5 x 0.6) = 58.6 (the tree's LL128 correction); 64 MiB: NVLS-tree 66.8 +
   * 2^26 / (426.67 x 0.8) = 263.4, the ring/LL128 75.2 + 2^26 / 196.27 = 417.1 */
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 16, 2, MiB), 0);
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 16, 2, 64 * MiB), 1);
  /* 3 nodes, 64 MiB: NVLS-tree 66.8 + 2^26 / (208.70 x 0.8) = 468.8 against ring/LL128 109.8 +
   * 2^26 / 192 = 459.3; 1 GiB (no correction): NVLS-tree 66.8 + 2^30 / 208.70 = 5211.8 against the
   * ring/Simple's same bandwidth at 207.2 x 1.4 = 290.1 us */
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 24, 3, 64 * MiB), 0);
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 24, 3, GiB), 1);
  /* 4 nodes, 64 MiB: NVLS-tree 108.6 + 2^26 / (206.45 x 0.8) = 514.9 against ring/LL128 144.4 +
   * 2^26 / 189.94 = 497.7; 1 GiB: NVLS-tree 108.6 against the ring/Simple's 282.8 x 1.4 = 395.9 */
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 32, 4, 64 * MiB), 0);
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 32, 4, GiB), 1);
  /* Hopper: no correction on NVLS-tree, 3 nodes at 64 MiB 66.8 + 2^26 / 208.70 = 388.4 < 459.3 */
  c.job_compcap = 90;
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 24, 3, 64 * MiB), 1);
  /* an unknown version takes the newest form */
  c.job_compcap = 100, c.job_nccl_version = 0;
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 24, 3, 64 * MiB), 0);
  /* where it changes on 3 nodes in [256, 512) MiB (NVLS-tree's correction 0.9: 187.83 GB/s):
   * ring/LL128 overtakes NVLS-tree at 43 / (1 / 187.83 - 1 / 192) x 1e3 = 371.52e6 bytes, and
   * ring/Simple overtakes ring/LL128 at (290.08 - 109.8) / (1 / 192 - 1 / 208.70) x 1e3 =
   * 432.67e6 */
  c.job_nccl_version = 22902;
  double x[8];
  EXPECT_INT_EQ(fu_coll_nccl_choice_breaks(&c, 24, 3, 256 * MiB, 512 * MiB, x, 8), 2);
  EXPECT_REL(x[0], 371520000.0, 1e-6);
  EXPECT_REL(x[1], 432672000.0, 1e-6);
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 24, 3, 371.0e6), 1);
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 24, 3, 372.0e6), 0);
  /* the 2.19-2.26 form: NVLS-tree at every size and node count (as before 2.27) */
  c.job_nccl_version = 22103;
  EXPECT_INT_EQ(fu_coll_nccl_choice_breaks(&c, 24, 3, 256 * MiB, 512 * MiB, x, 8), 0);
  for (int nodes = 2; nodes <= 4; nodes++)
    for (double b = MiB; b <= GiB; b *= 64) EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 8 * nodes, nodes, b), 1);
  /* the lines priced (fu_coll_lines). The model's latencies: LL base 2, NVLink step 1, network
   * step 5 us; Simple 3, 2, 6. 2.21.3 keeps NVLS-tree alone among the Simple lines, LL lines
   * beside it, at 64 MiB and 1 GiB. 2.29.2 prices NCCL's pick alone: on 3 nodes at 64 MiB
   * ring/LL128, LL's latencies in NCCL's LL128 ratios, 2 x 14/6.6 + 40.25 intra-node steps x
   * 1 x 1.9/0.6 + 5.75 network steps x 5 x 4.0/2.7 = 174.29 us, 0.92 of the ring's min(720,
   * 400) GB/s: 1.9167 / 368e3 us a byte; at 1 GiB NVLS-tree in 128 KiB chunks; on 2 nodes at
   * 1 MiB tree/LL128: 2 x 14/6.8 + 2 (7 x 1 x 1.25/0.6 + 5 x 8.5/5.0) = 50.284 us, the tree's
   * max(2 / 720, 1 / 400) / 1e3 at 120/128, over LL128's correction 0.6 at 1 MiB */
  c.simple_base_us = 3, c.simple_intra_step_us = 2, c.simple_net_step_us = 6;
  fu_coll_line l[FU_COLL_MAX_LINES];
  int n;
  c.job_nccl_version = 22103;
  for (int big = 0; big < 2; big++) {
    EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 24, 3, big ? GiB : 64 * MiB, l, &n), FU_OK);
    int nvls_tree = 0, simple = 0;
    for (int i = 0; i < n; i++) {
      nvls_tree += l[i].algorithm == FU_CALGO_NVLS_TREE;
      simple += l[i].proto == FU_PROTO_SIMPLE;
    }
    EXPECT_INT_EQ(nvls_tree, 1);
    EXPECT_INT_EQ(simple, 1);
  }
  c.job_nccl_version = 22902;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 24, 3, 64 * MiB, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 1);
  EXPECT_STR_EQ(l[0].algo, "ring/LL128");
  EXPECT_NEAR(l[0].alpha_us, 2 * 14 / 6.6 + 40.25 * 1.9 / 0.6 + 5.75 * 5 * 4.0 / 2.7, 1e-9);
  EXPECT_REL(l[0].beta_us_per_byte, (46.0 / 24) / 368e3, 1e-12);
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 24, 3, GiB, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 1);
  EXPECT_STR_EQ(l[0].algo, "nvls_tree/Simple");
  EXPECT_NEAR(l[0].chunk_max, FU_COLL_NVLS_CHUNK_BYTES, 0);
  double t;
  char a[20];
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, MiB, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "tree/LL128");
  EXPECT_NEAR(t, 2 * 14 / 6.8 + 2 * (7 * 1.25 / 0.6 + 5 * 8.5 / 5.0) + MiB * (2 / 720e3) / (120.0 / 128) / 0.6, 1e-9);
  /* every candidate, LL128 across nodes among them (2.29.2 only: unknown versions keep the
   * fastest of the lines they had) */
  EXPECT_INT_EQ(fu_coll_lines_all(&c, FU_OP_ALLREDUCE, 16, 2, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 7);
  c.job_nccl_version = 0;
  EXPECT_INT_EQ(fu_coll_lines_all(&c, FU_OP_ALLREDUCE, 16, 2, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 5);
  /* ring/LL across nodes by the job's NCCL, NICs of 5 GB/s (k B_nic = 40, under llMaxBw's 39 x
   * 4): 2.19-2.26 at 1/4 of the link (10 GB/s busbw) with the intra-node step x 1.8, 2 + 26.25 x
   * 1.8 + 3.75 x 5 = 68 us; 2.27 on (ring.cc) at 1/2 (20 GB/s), 2 + 26.25 + 18.75 = 47 us */
  c.nic_gbps = 5;
  for (int v = 0; v < 2; v++) {
    c.job_nccl_version = v ? 22902 : 22103;
    EXPECT_INT_EQ(fu_coll_lines_all(&c, FU_OP_ALLREDUCE, 16, 2, l, &n), FU_OK);
    EXPECT_STR_EQ(l[0].algo, "ring/LL");
    EXPECT_NEAR(l[0].alpha_us, v ? 47 : 68, 1e-9);
    EXPECT_REL(l[0].beta_us_per_byte, 1.875 / (v ? 20e3 : 10e3), 1e-12);
  }
}


/* Fewer NICs than GPUs a node (nics_per_node 2 of 8, 50 GB/s each: 100 GB/s a node), hand()'s
 * 16 ranks on 2 nodes: the ring's busbw min(400, 100) = 100 GB/s, 1.875 / 1e5 us per byte; the
 * tree's max(2 n / 400, n / 100 GB/s) = 1e-5 us per byte. Latencies as with 8 NICs (47, 26 us). */
static void nics_per_node(void) {
  fu_cluster c = hand();
  c.nics_per_node = 2;
  fu_coll_line l[FU_COLL_MAX_LINES];
  int n;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 2);
  EXPECT_NEAR(l[0].alpha_us, 47, 1e-9);
  EXPECT_REL(l[0].beta_us_per_byte, 1.875 / 1e5, 1e-12);
  EXPECT_NEAR(l[1].alpha_us, 26, 1e-9);
  EXPECT_REL(l[1].beta_us_per_byte, 1e-5, 1e-12);
}

/* One-node latencies by least squares over step counts. (1) Two 2-rank all-reduces (two logs of
 * one machine, 7.5 and 8.1 us) share one step count: split as NCCL's ring/LL, 6.6 + 2 x 0.6 =
 * 7.8 us, scaled by their mean, (7.5 + 8.1) / 2 / 7.8 = 1: base 6.6, step 0.6. (2) All-gathers
 * take p - 1 steps (not the all-reduce's 2 (p - 1)): 4 us at 2 ranks (1 step) and 6 us at 4
 * (3 steps) lie on base 3 + 1 us a step. */
static void intra_latency_fit(void) {
  fu_coll_obs two[2] = {{FU_OP_ALLREDUCE, 2, 1, 7.5, 400, 0, 0, 0}, {FU_OP_ALLREDUCE, 2, 1, 8.1, 400, 0, 0, 0}};
  fu_cluster fit;
  int fi, fn;
  fu_cluster_init(&fit);
  EXPECT_INT_EQ(fu_cluster_fit(&fit, two, 2, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT_REL(fit.base_us, 6.6, 1e-9);
  EXPECT_REL(fit.intra_step_us, 0.6, 1e-9);
  fu_coll_obs ag[2] = {{FU_OP_ALLGATHER, 2, 1, 4, 100, 0, 0, 0}, {FU_OP_ALLGATHER, 4, 1, 6, 100, 0, 0, 0}};
  fu_cluster_init(&fit);
  EXPECT_INT_EQ(fu_cluster_fit(&fit, ag, 2, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT_REL(fit.base_us, 3, 1e-9);
  EXPECT_REL(fit.intra_step_us, 1, 1e-9);
}

/* The model's error on the samples it was fitted on (fu_collerr.h), residuals r = ln(measured /
 * model) known by hand (fit's pricing of them: cli_model_error.sh). >= 64 MiB: r = 0.3, -0.2,
 * 0.1, 0, -0.1, sorted -0.2 .. 0.3; GSL's quantile at f lies at (n - 1) f = 0.1 and 3.9 of the
 * sorted list: -0.2 + 0.1 x 0.1 = -0.19 and 0.1 + 0.9 x 0.2 = 0.28. < 1 MiB one sample, r = 0.5:
 * both bounds 0.5. 1-64 MiB none. Borrowed: x2.5 in log space, at least ln 2 either way, the
 * default where the base had no sample (fu_collerr.h). */
static void model_error(void) {
  const double r[] = {0.3, -0.2, 0.1, 0, -0.1, 0.5};
  const double sz[] = {64 * 1048576.0, 128 * 1048576.0, 256 * 1048576.0, 512 * 1048576.0, 1073741824.0, 4096};
  fu_collerr e;
  EXPECT_INT_EQ(fu_collerr_fit(sz, r, 6, "hand", &e), FU_OK);
  EXPECT_INT_EQ(e.n[0], 1);
  EXPECT_INT_EQ(e.n[1], 0);
  EXPECT_INT_EQ(e.n[2], 5);
  EXPECT_NEAR(e.lo[0], 0.5, 1e-12);
  EXPECT_NEAR(e.hi[0], 0.5, 1e-12);
  EXPECT_NEAR(e.lo[2], -0.19, 1e-12);
  EXPECT_NEAR(e.hi[2], 0.28, 1e-12);
  EXPECT_STR_EQ(e.source, "hand");
  /* the interval of a 100 us price: at least /1.25 .. x1.25, e^-0.19 = 0.827 inside it, e^0.28 not */
  double lo, hi;
  fu_collerr_interval(&e, 256 * 1048576.0, 100, 0.25, &lo, &hi);
  EXPECT_NEAR(lo, 80, 1e-9);
  EXPECT_NEAR(hi, 100 * exp(0.28), 1e-9);
  fu_collerr_interval(&e, 4 * 1048576.0, 100, 0.25, &lo, &hi); /* 1-64 MiB: none recorded */
  EXPECT_NEAR(lo, 80, 1e-9);
  EXPECT_NEAR(hi, 125, 1e-9);
  EXPECT(fu_collerr_recorded(&e, 4096) && !fu_collerr_recorded(&e, 4 * 1048576.0));
  /* borrowed: the base's bounds x2.5, at least ln 2 either way, the default where it has none */
  e.borrowed = 1;
  EXPECT(fu_collerr_recorded(&e, 4 * 1048576.0));
  fu_collerr_interval(&e, 256 * 1048576.0, 100, 0.25, &lo, &hi);
  EXPECT_NEAR(lo, 50, 1e-9);               /* 2.5 x -0.19 = -0.475, above -ln 2 */
  EXPECT_NEAR(hi, 100 * exp(0.7), 1e-9);   /* 2.5 x 0.28 */
  fu_collerr_interval(&e, 4096, 100, 0.25, &lo, &hi);
  EXPECT_NEAR(lo, 50, 1e-9);               /* 2.5 x 0.5 = 1.25 is the upper bound; ln 2 below */
  EXPECT_NEAR(hi, 100 * exp(1.25), 1e-9);
  fu_collerr_interval(&e, 4 * 1048576.0, 100, 0.25, &lo, &hi);
  EXPECT_NEAR(lo, 100 * exp(-1.041), 1e-9); /* the default: 0.35x .. 2.7x */
  EXPECT_NEAR(hi, 100 * exp(0.992), 1e-9);
}

int main(void) {
  model_error();
  nccl_choice_27();
  nics_per_node();
  intra_latency_fit();
  fu_cluster c = hand();
  /* all-reduce, 16 ranks on 2 nodes of 8, one NIC per GPU (8 x 50 = 400 GB/s a node):
   * ring: 30 steps, 30 * 2 / 16 = 3.75 on the network: 2 + 26.25 * 1 + 3.75 * 5 = 47 us; busbw
   *   min(400, 400) = 400 GB/s, so 1.875 / 4e5 us per byte.
   * tree: 2 + 2 (7 * 1 + 1 * 5) = 26 us; max(2 n / 400 GB/s, n / 400 GB/s) = 5e-6 us per byte. */
  fu_coll_line l[FU_COLL_MAX_LINES];
  int n;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 2);
  EXPECT_STR_EQ(l[0].algo, "ring");
  EXPECT_NEAR(l[0].alpha_us, 47, 1e-9);
  EXPECT_REL(l[0].beta_us_per_byte, 1.875 / 4e5, 1e-12);
  EXPECT_STR_EQ(l[1].algo, "tree");
  EXPECT_NEAR(l[1].alpha_us, 26, 1e-9);
  EXPECT_REL(l[1].beta_us_per_byte, 5e-6, 1e-12);
  double t;
  char a[20];
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, 1024, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "tree"); /* 26.006 us against the ring's 47.005 */
  /* NCCL's tree correction: 1024 B is 2^4 x 64 B, Simple's factor .9 (a profile with one
   * latency takes Simple's row): 26 + 5e-6 * 1024 / .9 */
  EXPECT_NEAR(t, 26 + 5e-6 * 1024 / 0.9, 1e-9);
  EXPECT_NEAR(fu_coll_tree_corr(FU_CALGO_TREE, FU_PROTO_SIMPLE, 1048576.0), 0.5, 1e-12); /* 2^14: .5 */
  EXPECT_NEAR(fu_coll_tree_corr(FU_CALGO_TREE, FU_PROTO_SIMPLE, 67108864.0), 0.8, 1e-12); /* 2^20 */
  EXPECT_NEAR(fu_coll_tree_corr(FU_CALGO_TREE, FU_PROTO_LL, 65536.0), 0.6, 1e-12);        /* 2^10 */
  EXPECT_NEAR(fu_coll_tree_corr(FU_CALGO_TREE, FU_PROTO_LL, 100), 1.0, 1e-12);    /* below 128 B: 2^0 */
  EXPECT_NEAR(fu_coll_tree_corr(FU_CALGO_TREE, FU_PROTO_SIMPLE, 100), 0.9, 1e-12);
  EXPECT_NEAR(fu_coll_tree_corr(FU_CALGO_TREE, FU_PROTO_SIMPLE, 536870912.0), 1.0, 1e-12); /* past 2^22 */
  EXPECT_NEAR(fu_coll_tree_corr(FU_CALGO_RING, FU_PROTO_SIMPLE, 1048576.0), 1.0, 1e-12);
  /* It moves the choice: at 16 MiB (2^18, factor .7) the tree costs 26 + 83.89 / .7 = 145.8 us,
   * the ring 47 + 78.64 = 125.6: ring, where the uncorrected tree (109.9) would win; at 1 MiB
   * (.5) the tree still wins, 26 + 10.49 / .5 = 46.97 against 51.92. */
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, 16777216.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "ring");
  EXPECT_NEAR(t, 47 + 1.875 * 16777216.0 / 4e5, 1e-9);
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, 1048576.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "tree");
  EXPECT_NEAR(t, 26 + 5e-6 * 1048576.0 / 0.5, 1e-9);
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "ring"); /* 47 + 5033.2 against 26 + 5368.7 */
  EXPECT_NEAR(t, 47 + 1.875 * 1073741824.0 / 4e5, 1e-6);
  /* all-gather on one node of 8: ring only, 7 steps: 2 + 7 = 9 us, 0.875 / 4e5 us per byte */
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLGATHER, 8, 1, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 1);
  EXPECT_NEAR(l[0].alpha_us, 9, 1e-9);
  /* NVLS on one node with the switch's algorithm bandwidth 300 GB/s: 2 + 2 = 4 us, 1 / 3e5 */
  c.nvls_algbw_gbps[0] = 300;
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 8, 1, 1073741824.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "nvls");
  EXPECT_NEAR(t, 4 + 1073741824.0 / 3e5, 1e-6);
  /* NVLS tree on 2 nodes of 8: NCCL's NVLS_TREE efficiency 0.70 * 2 / (2 * 1) = 0.70 of the
   * node's 400 GB/s is 280 GB/s, below the switch's 300: 1 / 2.8e5 us per byte. On 4 nodes
   * 0.70 * 4 / 6 of 400 = 186.67 GB/s. Latency one switch hop each way and the tree's network
   * depth, no chain of 7 hops: 2 + 2 (1 + 5) = 14 us (2 nodes; the tree's is 26). */
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 3);
  EXPECT_STR_EQ(l[2].algo, "nvls_tree");
  EXPECT_NEAR(l[2].alpha_us, 14, 1e-9);
  EXPECT_REL(l[2].beta_us_per_byte, 1.0 / 2.8e5, 1e-12);
  /* NCCL's NVLS-tree chunk ladder, 16 NVLS channels x 8 heads (one per NIC) = 128: the chunk is
   * the full 512 KiB step from 32 x 128 x 512 KiB = 2 GiB, 256 KiB from 16 x 128 x 256 KiB =
   * 512 MiB, 128 KiB from 4 x 128 x 128 KiB = 64 MiB, 64 KiB from 128 x 64 KiB = 8 MiB, 32 KiB
   * below: r = 1, 2, 4, 8, 16 chunks a step, time per byte x 1 + 0.24 (r - 1) = 1, 1.24, 1.72,
   * 2.68, 4.6. The tree and ring have no ladder. */
  EXPECT_NEAR(fu_coll_chunk_slow(&l[2], 2147483648.0), 1, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&l[2], 2147483647.0), 1.24, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&l[2], 536870912.0), 1.24, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&l[2], 536870911.0), 1.72, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&l[2], 67108864.0), 1.72, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&l[2], 33554432.0), 2.68, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&l[2], 4194304.0), 4.6, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&l[1], 1024.0), 1, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&l[0], 1024.0), 1, 1e-12);
  double xb[4];
  EXPECT_INT_EQ(fu_coll_chunk_breaks(&l[2], xb), 4);
  EXPECT_NEAR(xb[0], 8388608.0, 1e-6);
  EXPECT_NEAR(xb[3], 2147483648.0, 1e-3);
  EXPECT_INT_EQ(fu_coll_chunk_breaks(&l[1], xb), 0);
  /* NCCL 2.19 on: NVLS-tree's largest chunk 128 KiB on 2 nodes (r = 4 from 64 MiB: 1.72; 64 KiB
   * from 8 MiB: 2.68; 32 KiB below: 4.6; the rungs at 512 MiB and 2 GiB gone), 64 KiB from 4
   * nodes (2.68 from 8 MiB, 4.6 below) */
  fu_coll_line v = l[2];
  v.chunk_max = FU_COLL_NVLS_CHUNK_BYTES;
  EXPECT_INT_EQ(fu_coll_chunk_breaks(&v, xb), 2);
  EXPECT_NEAR(fu_coll_chunk_slow(&v, 4294967296.0), 1.72, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&v, 67108864.0), 1.72, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&v, 67108863.0), 2.68, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&v, 8388608.0), 2.68, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&v, 8388607.0), 4.6, 1e-12);
  v.chunk_max = FU_COLL_NVLS_CHUNK_4NODES;
  EXPECT_INT_EQ(fu_coll_chunk_breaks(&v, xb), 1);
  EXPECT_NEAR(fu_coll_chunk_slow(&v, 4294967296.0), 2.68, 1e-12);
  EXPECT_NEAR(fu_coll_chunk_slow(&v, 8388607.0), 4.6, 1e-12);
  /* NCCL's choice (NCCL 2.21.3, the 2.19-2.26 form): its tuning rates NVLS-tree min(300, 400)
   * x 5/6 = 250 GB/s above the ring's 400 x 16 / 30 = 213.3 and the tree's 0.92 x 400 / 2 = 184, so the ring and tree
   * lines go (no LL lines in a one-latency profile's: they stay as they are) and NVLS-tree is
   * cut in 128 KiB chunks: 1 GiB at 14 + 1.72 x 2^30 / 2.8e5 us, though the ring is faster */
  /* NCCL versions as NCCL prints them, as NCCL_VERSION_CODE; anything else 0 (unknown) */
  EXPECT_INT_EQ(fu_nccl_version_code("2.29.2"), 22902);
  EXPECT_INT_EQ(fu_nccl_version_code("2.29.2+cuda12.9"), 22902);
  EXPECT_INT_EQ(fu_nccl_version_code("2.18.3"), 21803);
  EXPECT_INT_EQ(fu_nccl_version_code("2.29"), 0);
  EXPECT_INT_EQ(fu_nccl_version_code("3.1.0"), 0);
  EXPECT_INT_EQ(fu_nccl_version_code("2.29.2x"), 0);
  EXPECT_INT_EQ(fu_nccl_version_code("2.+29.2"), 0);
  EXPECT_INT_EQ(fu_nccl_version_code(""), 0);
  EXPECT_INT_EQ(fu_nccl_version_code(NULL), 0);
  c.job_nccl_version = 22103;
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 16, 2, 1073741824.0), 1);
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 3); /* FU_PROTO_ONE lines are not Simple's: NCCL's protocol is the model's */
  c.simple_base_us = 2, c.simple_intra_step_us = 1, c.simple_net_step_us = 5;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  int simple = 0, nvls_tree = -1;
  for (int i = 0; i < n; i++) {
    simple += l[i].proto == FU_PROTO_SIMPLE;
    if (l[i].algorithm == FU_CALGO_NVLS_TREE) nvls_tree = i;
  }
  EXPECT_INT_EQ(simple, 1);
  EXPECT(nvls_tree >= 0 && l[nvls_tree].chunk_max == FU_COLL_NVLS_CHUNK_BYTES);
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "nvls_tree/Simple");
  EXPECT_NEAR(t, 14 + 1.72 * 1073741824.0 / 2.8e5, 1e-6);
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 32, 4, 1073741824.0, l, &n), FU_OK);
  for (int i = 0; i < n; i++)
    if (l[i].algorithm == FU_CALGO_NVLS_TREE) EXPECT_NEAR(l[i].chunk_max, FU_COLL_NVLS_CHUNK_4NODES, 0);
  /* NCCL 2.18 or unknown: the fastest line, all lines kept; and where NCCL's tuning rates NVLS
   * at 250 GB/s (208.3 a NVLS-tree) under the ring's 213.3, no choice is made */
  c.job_nccl_version = 21803;
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "nvls_tree/Simple");
  EXPECT_NEAR(t, 14 + 1.24 * 1073741824.0 / 2.8e5, 1e-6);
  c.job_nccl_version = 22103;
  c.nvls_algbw_gbps[0] = 250;
  EXPECT_INT_EQ(fu_coll_nccl_prefers_nvls_tree(&c, 16, 2, 1073741824.0), 0);
  int n_all;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n_all), FU_OK);
  c.job_nccl_version = 0;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n_all, n);
  c.nvls_algbw_gbps[0] = 300, c.simple_base_us = c.simple_intra_step_us = c.simple_net_step_us = 0;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK); /* the lines above again */
  /* 1 GiB on NVLS-tree: 14 + 1.24 x 2^30 / 2.8e5 = 4769.1 us, faster than the ring's
   * 47 + 1.875 x 2^30 / 4e5 = 5080.2; at 256 MiB NVLS-tree's 14 + 1.72 x 2^28 / 2.8e5 = 1663.0
   * loses to the ring's 47 + 1.875 x 2^28 / 4e5 = 1305.3 */
  EXPECT_NEAR(fu_coll_line_time(&l[2], 1073741824.0), 14 + 1.24 * 1073741824.0 / 2.8e5, 1e-6);
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "nvls_tree");
  EXPECT_NEAR(t, 14 + 1.24 * 1073741824.0 / 2.8e5, 1e-6);
  EXPECT_NEAR(fu_coll_line_time(&l[2], 268435456.0), 14 + 1.72 * 268435456.0 / 2.8e5, 1e-6);
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, 268435456.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "ring");
  EXPECT_NEAR(t, 47 + 1.875 * 268435456.0 / 4e5, 1e-6);
  /* 4 GiB: NVLS-tree 14 + 2^32 / 2.8e5 = 15353.2 us against the ring's 20180.5 */
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 16, 2, 4294967296.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "nvls_tree");
  EXPECT_NEAR(t, 14 + 4294967296.0 / 2.8e5, 1e-6);
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 32, 4, 1073741824.0, l, &n), FU_OK);
  EXPECT_STR_EQ(l[2].algo, "nvls_tree");
  EXPECT_REL(l[2].beta_us_per_byte, 6.0 / (0.70 * 4 * 4e5), 1e-12);
  /* the tree between nodes: a node sends n over its 8 NICs (400 GB/s) on 2 nodes, 2n from 4
   * (inner in one tree with 2 children, a leaf in the other). With an 800 GB/s switch the chain's
   * 2n / 800 GB/s = 2.5e-6 us per byte binds on 2 nodes, the NICs' 2n / 400 GB/s = 5e-6 on 4 */
  fu_cluster fast = hand();
  fast.intra_gbps = 800;
  EXPECT_INT_EQ(fu_coll_lines(&fast, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_STR_EQ(l[1].algo, "tree");
  EXPECT_REL(l[1].beta_us_per_byte, 2.5e-6, 1e-12);
  EXPECT_INT_EQ(fu_coll_lines(&fast, FU_OP_ALLREDUCE, 32, 4, 1073741824.0, l, &n), FU_OK);
  EXPECT_STR_EQ(l[1].algo, "tree");
  EXPECT_REL(l[1].beta_us_per_byte, 5e-6, 1e-12);
  /* latency 2 + 2 (7 x 1 + 2 x 5) = 36 us: two network levels on 4 nodes */
  EXPECT_NEAR(l[1].alpha_us, 36, 1e-9);
  /* on 3 nodes NCCL's trees are chains (0 -> 2 -> 1 and its shift): the busiest node sends
   * 1.5n, 1.5 / 4e5 = 3.75e-6 us per byte; two levels (the root's one child, then its child) */
  EXPECT_INT_EQ(fu_coll_lines(&fast, FU_OP_ALLREDUCE, 24, 3, 1073741824.0, l, &n), FU_OK);
  EXPECT_STR_EQ(l[1].algo, "tree");
  EXPECT_REL(l[1].beta_us_per_byte, 3.75e-6, 1e-12);
  EXPECT_NEAR(l[1].alpha_us, 36, 1e-9);
  /* one GPU per node: every hop is on the network, busbw the NIC's */
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 2, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_REL(l[0].beta_us_per_byte, 1.0 / 5e4, 1e-12);
  /* refused: no network parameters for two nodes; ranks that do not split over the nodes */
  fu_cluster none = hand();
  none.nic_gbps = 0;
  EXPECT_INT_EQ(fu_coll_lines(&none, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_EDATA);
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 3, 1073741824.0, l, &n), FU_EDATA);

  /* The fit recovers what generated the observations: one node at 2 ranks, and 1+1, 2+2, 4+4. */
  fu_cluster truth = hand();
  /* one step count inside a node: the fit splits the latency as NCCL's tuning.cc does (ring/LL
   * base 6.6 us, NVLink step 0.6 us), scaled to it: 7.5 us = 7.5 / 7.8 x (6.6 + 2 x 0.6) */
  truth.base_us = 6.6 * 7.5 / 7.8;
  truth.intra_step_us = 0.6 * 7.5 / 7.8;
  fu_coll_obs obs[4] = {{FU_OP_ALLREDUCE, 2, 1, 0, 0, 0, 0, 0}, {FU_OP_ALLREDUCE, 2, 2, 0, 0, 0, 0, 0},
                        {FU_OP_ALLREDUCE, 4, 2, 0, 0, 0, 0, 0}, {FU_OP_ALLREDUCE, 8, 2, 0, 0, 0, 0, 0}};
  for (int i = 0; i < 4; i++) {
    EXPECT_INT_EQ(fu_coll_lines(&truth, obs[i].op, obs[i].ranks, obs[i].nodes, 1073741824.0, l, &n), FU_OK);
    double al = INFINITY, be = INFINITY;
    for (int k = 0; k < n; k++) al = fmin(al, l[k].alpha_us), be = fmin(be, l[k].beta_us_per_byte);
    obs[i].lat_us = al;
    obs[i].busbw_gbps = fu_busbw_factor(obs[i].op, obs[i].ranks) / be / 1e3;
  }
  fu_cluster fit;
  fu_cluster_init(&fit);
  int fi, fn;
  EXPECT_INT_EQ(fu_cluster_fit(&fit, obs, 4, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT_INT_EQ(fi, 1);
  EXPECT_INT_EQ(fn, 1);
  EXPECT_REL(fit.intra_gbps, 400, 1e-9);
  EXPECT_REL(fit.nic_gbps, 50, 0.005);  /* the grid's step is 0.2% */
  EXPECT_REL(fit.net_step_us, 5, 0.01);
  EXPECT_REL(fit.base_us, 6.6 * 7.5 / 7.8, 1e-9);
  EXPECT_REL(fit.intra_step_us, 0.6 * 7.5 / 7.8, 1e-9);
  EXPECT(fit.simple_base_us == 0); /* no Simple latencies observed: one line per algorithm */

  /* Two protocols: LL at the small-size latency and, as NCCL's tuning.cc charges an all-reduce,
   * a quarter of the bandwidth but at most llMaxBw (87.7 GB/s on one node); Simple at its own
   * latency and the full bandwidth. One node of 2 ranks, all-reduce (2 steps): LL 2 + 2 * 1 =
   * 4 us at 1 / min(0.25 * 4e5, 8.77e4) = 1 / 8.77e4; Simple 20 + 2 * 5 = 30 us at 1 / 4e5; they
   * cross at 26 / (1.14025e-5 - 2.5e-6) = 2.92 MB, so 1 MiB goes LL (4 + 11.96 us against
   * 30 + 2.62) and 64 MiB Simple (30 + 167.8 us). */
  c = hand();
  c.simple_base_us = 20;
  c.simple_intra_step_us = 5;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 2, 1, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 2);
  EXPECT_STR_EQ(l[0].algo, "ring/LL");
  EXPECT(l[0].algorithm == FU_CALGO_RING && l[0].proto == FU_PROTO_LL);
  EXPECT_REL(l[0].beta_us_per_byte, 1.0 / 8.77e4, 1e-12);
  EXPECT_STR_EQ(l[1].algo, "ring/Simple");
  EXPECT_NEAR(l[1].alpha_us, 30, 1e-9);
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 2, 1, 1048576.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "ring/LL");
  EXPECT_NEAR(t, 4 + 1048576.0 / 8.77e4, 1e-9);
  EXPECT_INT_EQ(fu_coll_time(&c, FU_OP_ALLREDUCE, 2, 1, 67108864.0, &t, a, sizeof a), FU_OK);
  EXPECT_STR_EQ(a, "ring/Simple");
  EXPECT_NEAR(t, 30 + 67108864.0 / 4e5, 1e-9);
  /* An all-gather on one node: LL at a third of the bandwidth times the ring share of an
   * all-gather at 8 ranks on LL (one slice a chunk, b = 1: (7/8) / (14/15) = 0.9375), under the
   * cap at 40 GB/s links (0.875 * 3 / (0.9375 * 4e4) us per byte), at the cap at 400 GB/s
   * (400 / 3 x 0.9375 > 87.7: 0.875 / 8.77e4). */
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLGATHER, 8, 1, 1073741824.0, l, &n), FU_OK);
  EXPECT_STR_EQ(l[0].algo, "ring/LL");
  EXPECT_REL(l[0].beta_us_per_byte, 0.875 / 8.77e4, 1e-9);
  c.intra_gbps = 40;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLGATHER, 8, 1, 1073741824.0, l, &n), FU_OK);
  EXPECT_REL(l[0].beta_us_per_byte, 0.875 * 3 / (0.9375 * 4e4), 1e-9);
  /* LL128 on one NVLink node only (fu_coll.h): with Simple latencies, 2 ranks on one node give
   * ring/LL, ring/LL128, ring/Simple; LL128 at LL's 2 + 2 x 1 us scaled by NCCL's ratios,
   * 2 x 14/6.6 + 2 x 1.9/0.6 = 10.576 us, and 1 / (0.92 x 4e5) us per byte; none over PCIe or
   * an unnamed link, none across nodes */
  c.intra_gbps = 400;
  snprintf(c.intra_link, sizeof c.intra_link, "nvlink");
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 2, 1, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 3);
  EXPECT_STR_EQ(l[1].algo, "ring/LL128");
  EXPECT(l[1].proto == FU_PROTO_LL128);
  EXPECT_NEAR(l[1].alpha_us, 2 * 14 / 6.6 + 2 * 1.9 / 0.6, 1e-9);
  EXPECT_REL(l[1].beta_us_per_byte, 1 / (0.92 * 4e5), 1e-12);
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  for (int i = 0; i < n; i++) EXPECT(l[i].proto != FU_PROTO_LL128);
  snprintf(c.intra_link, sizeof c.intra_link, "pcie");
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 2, 1, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 2);
  c.intra_link[0] = '\0';
  /* the ring share by hand: all-reduce 1; all-gather and reduce-scatter (p-1)/(p-1+b) over
   * 2(p-1)/(2(p-1)+b): Simple (b = 1/2) 2 ranks (1/1.5) / (2/2.5) = 5/6, 8 ranks
   * (7/7.5) / (14/14.5) = 29/30; LL (b = 1) 2 ranks (1/2) / (2/3) = 3/4 */
  EXPECT_NEAR(fu_coll_ring_share(FU_OP_ALLREDUCE, 8, FU_PROTO_SIMPLE), 1, 1e-12);
  EXPECT_REL(fu_coll_ring_share(FU_OP_ALLGATHER, 2, FU_PROTO_SIMPLE), 5.0 / 6, 1e-12);
  EXPECT_REL(fu_coll_ring_share(FU_OP_REDUCESCATTER, 8, FU_PROTO_SIMPLE), 29.0 / 30, 1e-12);
  EXPECT_REL(fu_coll_ring_share(FU_OP_ALLGATHER, 2, FU_PROTO_LL), 0.75, 1e-12);
  EXPECT_REL(fu_coll_ring_share(FU_OP_ALLGATHER, 2, FU_PROTO_ONE), 5.0 / 6, 1e-12);
  c.intra_gbps = 400;
  /* Across nodes an intra-node LL step costs 1.8 x: all-reduce 16 ranks on 2 nodes, ring/LL
   * 2 + 26.25 * 1.8 + 3.75 * 5 = 68 us, tree/LL 2 + 2 (7 * 1.8 + 5) = 37.2 us. */
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_STR_EQ(l[0].algo, "ring/LL");
  EXPECT_NEAR(l[0].alpha_us, 68, 1e-9);
  EXPECT_STR_EQ(l[1].algo, "tree/LL");
  EXPECT_NEAR(l[1].alpha_us, 37.2, 1e-9);
  /* Across 2 nodes LL's cap is 39 GB/s of bus bandwidth, across more 20.4. 16 ranks on 2 nodes
   * at 400 GB/s a node: ring/LL min(0.25 * 400, 39) = 39 GB/s, 1.875 / 3.9e4 us per byte;
   * tree/LL max(2 n / 400, n / 400) * 3.8 = 1.9e-5 us per byte, under the cap's 2 / 3.9e4 =
   * 5.13e-5, so the cap: 2 / 3.9e4. 32 ranks on 4 nodes: ring/LL 1.9375 / 2.04e4. */
  EXPECT_REL(l[0].beta_us_per_byte, 1.875 / 3.9e4, 1e-12);
  EXPECT_REL(l[1].beta_us_per_byte, 2 / 3.9e4, 1e-12);
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 32, 4, 1073741824.0, l, &n), FU_OK);
  EXPECT_REL(l[0].beta_us_per_byte, 1.9375 / 2.04e4, 1e-12);
  /* A tree on LL at 1/3.8 of its Simple bandwidth where the cap does not bind: 2 nodes of 4,
   * links 100 GB/s inside and 4 x 10 GB/s out of a node: Simple max(2 / 1e5, 1 / 4e4) = 2.5e-5
   * us per byte, LL 3.8 x that = 9.5e-5 (cap 2 / 3.9e4 = 5.13e-5 is faster); ring/LL
   * min(0.25 * 40, 39) = 10 GB/s, 1.75 / 1e4. */
  fu_cluster slow = c;
  slow.intra_gbps = 100;
  slow.nic_gbps = 10;
  EXPECT_INT_EQ(fu_coll_lines(&slow, FU_OP_ALLREDUCE, 8, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_STR_EQ(l[1].algo, "tree/LL");
  EXPECT(l[1].algorithm == FU_CALGO_TREE && l[1].proto == FU_PROTO_LL);
  EXPECT_REL(l[1].beta_us_per_byte, 3.8 * 2.5e-5, 1e-12);
  EXPECT_REL(l[0].beta_us_per_byte, 1.75 / 1e4, 1e-12);
  EXPECT_STR_EQ(l[3].algo, "tree/Simple");
  EXPECT(l[3].proto == FU_PROTO_SIMPLE);
  EXPECT_REL(l[3].beta_us_per_byte, 2.5e-5, 1e-12);
  EXPECT_STR_EQ(fu_coll_proto_name(FU_PROTO_ONE), "");
  /* NVLS runs on Simple only: one node of 8 with the switch known gives ring/LL, ring/Simple
   * and nvls/Simple, no nvls/LL. */
  c.nvls_algbw_gbps[0] = 300;
  EXPECT_INT_EQ(fu_coll_lines(&c, FU_OP_ALLREDUCE, 8, 1, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 3);
  for (int k = 0; k < n; k++) EXPECT(strcmp(l[k].algo, "nvls/LL") != 0);
  EXPECT_STR_EQ(l[2].algo, "nvls/Simple");

  /* NVLS from the machine (the NVLS / ring share measured by architecture, fu_coll.h: Hopper
   * 0.74, from the published 8x H200 NVLS all-reduce at 8 GiB (busbw 479.98: algbw 274.3) over a
   * DGX H100 pair's ring (368.3): 0.745; Blackwell 0.70; none before Hopper, none on PCIe cards, which
   * have no NVSwitch). */
  EXPECT_NEAR(fu_coll_nvls_efficiency("NVIDIA H100 80GB HBM3"), 0.74, 1e-12);
  EXPECT_NEAR(fu_coll_nvls_efficiency("NVIDIA H200"), 0.74, 1e-12);
  EXPECT_NEAR(fu_coll_nvls_efficiency("NVIDIA B200"), 0.70, 1e-12);
  EXPECT_NEAR(fu_coll_nvls_efficiency("NVIDIA A100-SXM4-80GB"), 0, 1e-12);
  EXPECT_NEAR(fu_coll_nvls_efficiency("NVIDIA H100 PCIe"), 0, 1e-12);
  EXPECT_NEAR(fu_coll_nvls_efficiency("NVIDIA H100 NVL"), 0, 1e-12);
  EXPECT_NEAR(fu_coll_nvls_efficiency(NULL), 0, 1e-12);
  /* NCCL's compute capability, the row its tuning tables take */
  static const struct {
    const char *gpu;
    int cc;
  } cc[] = {{"NVIDIA B200", 100}, {"NVIDIA GeForce RTX 5090", 100}, {"NVIDIA H100 80GB HBM3", 90},
            {"NVIDIA A100-SXM4-80GB", 80}, {"Tesla V100-SXM2-32GB", 0}, {NULL, 0}};
  for (size_t i = 0; i < sizeof cc / sizeof cc[0]; i++) EXPECT_INT_EQ(fu_gpu_compcap(cc[i].gpu), cc[i].cc);
  EXPECT_NEAR(fu_coll_nvls_efficiency("NVIDIA GeForce RTX 5090"), 0, 1e-12); /* no NVSwitch */
  /* An H100 pair over NVLink at 368 GB/s, above half the H100's 450 GB/s of NVLink (all its
   * links reach the peer: an NVSwitch): A_nvls = 0.74 x 368 = 272.32 GB/s. */
  fu_cluster h = hand();
  h.intra_gbps = 368;
  h.nic_gbps = 45;
  snprintf(h.intra_link, sizeof h.intra_link, "nvlink");
  fu_cluster keep = h;
  EXPECT_INT_EQ(fu_cluster_nvls_from_machine(&h, "NVIDIA H100 80GB HBM3"), 1);
  EXPECT_NEAR(h.nvls_algbw_gbps[0], 272.32, 1e-9);
  EXPECT(strstr(h.nvls_source, "0.74") != NULL);
  /* 2 nodes of 8, one 45 GB/s NIC per GPU: nvls_tree at min(272.32, 0.70 x 8 x 45 = 252) GB/s
   * beside ring and tree; 1 node of 8: nvls at 272.32 GB/s, 2 + 2 x 1 = 4 us; with 2 GPUs a node
   * NCCL has no NVLS (nvls.cc: gpuCount <= 2), so 2 nodes of 2 and 1 node of 2 have none. */
  EXPECT_INT_EQ(fu_coll_lines(&h, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 3);
  EXPECT_STR_EQ(l[2].algo, "nvls_tree");
  EXPECT_REL(l[2].beta_us_per_byte, 1.0 / 2.52e5, 1e-12);
  EXPECT_INT_EQ(fu_coll_lines(&h, FU_OP_ALLREDUCE, 8, 1, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 2);
  EXPECT_STR_EQ(l[1].algo, "nvls");
  EXPECT_NEAR(l[1].alpha_us, 4, 1e-9);
  EXPECT_REL(l[1].beta_us_per_byte, 1.0 / 2.7232e5, 1e-12);
  EXPECT_INT_EQ(fu_coll_lines(&h, FU_OP_ALLREDUCE, 4, 2, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 2); /* ring, tree */
  EXPECT_INT_EQ(fu_coll_lines(&h, FU_OP_ALLREDUCE, 2, 1, 1073741824.0, l, &n), FU_OK);
  EXPECT_INT_EQ(n, 1); /* ring */
  /* None where the machine does not have it: an A100; an H100 pair at 200 GB/s (under half its
   * NVLink: GPUs wired directly, no switch); over PCIe; or A_nvls measured (kept as it is). */
  h = keep;
  EXPECT_INT_EQ(fu_cluster_nvls_from_machine(&h, "NVIDIA A100-SXM4-80GB"), 0);
  h.intra_gbps = 200;
  EXPECT_INT_EQ(fu_cluster_nvls_from_machine(&h, "NVIDIA H100 80GB HBM3"), 0);
  h = keep;
  snprintf(h.intra_link, sizeof h.intra_link, "pcie");
  EXPECT_INT_EQ(fu_cluster_nvls_from_machine(&h, "NVIDIA H100 80GB HBM3"), 0);
  h = keep;
  h.nvls_algbw_gbps[0] = 270;
  EXPECT_INT_EQ(fu_cluster_nvls_from_machine(&h, "NVIDIA H100 80GB HBM3"), 0);
  EXPECT_NEAR(h.nvls_algbw_gbps[0], 270, 1e-12);
  /* The fit derives it once the intra-node link is fitted, given the GPU: the observations above
   * (2 ranks on one node at 400 GB/s, no NVLS measured) on an H100 with the link named NVLink:
   * 0.74 x 400 = 296 GB/s; with no GPU named, none. */
  fu_cluster_init(&fit);
  snprintf(fit.intra_link, sizeof fit.intra_link, "nvlink");
  EXPECT_INT_EQ(fu_cluster_fit(&fit, obs, 4, "synthetic", "NVIDIA H100 80GB HBM3", &fi, &fn), FU_OK);
  EXPECT_NEAR(fit.nvls_algbw_gbps[0], 296, 1e-9);
  fu_cluster_init(&fit);
  snprintf(fit.intra_link, sizeof fit.intra_link, "nvlink");
  EXPECT_INT_EQ(fu_cluster_fit(&fit, obs, 4, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT_NEAR(fit.nvls_algbw_gbps[0], 0, 1e-12);
  /* A one-node all-reduce over 8 ranks measured at the ring's rate (busbw 400, not above it:
   * NCCL ran no NVLS there) keeps the machine from adding it. */
  fu_coll_obs obs8[5];
  memcpy(obs8, obs, sizeof obs);
  obs8[4] = (fu_coll_obs){FU_OP_ALLREDUCE, 8, 1, obs[0].lat_us, 400, 0, 0, 0};
  fu_cluster_init(&fit);
  snprintf(fit.intra_link, sizeof fit.intra_link, "nvlink");
  EXPECT_INT_EQ(fu_cluster_fit(&fit, obs8, 5, "synthetic", "NVIDIA H100 80GB HBM3", &fi, &fn), FU_OK);
  EXPECT_NEAR(fit.intra_gbps, 400, 1e-9);
  EXPECT_NEAR(fit.nvls_algbw_gbps[0], 0, 1e-12);
  /* Only a one-node all-reduce over 8 ranks, on a B200 (NVLS share 0.70, NVLink 900 GB/s):
   * NCCL ran it as NVLS, so its algorithm bandwidth 841.3 x 8 / 14 = 480.7 GB/s is A_nvls and
   * the ring reaches 480.7 / 0.70 = 686.8 GB/s (> 450: a switch). Its latencies split as NCCL's:
   * LL 44 us from the ring (NVLS has no LL; 14 steps: scale 44 / (6.6 + 14 x 0.6)), Simple
   * 150 us from NVLS (NCCL's 25 us: scale 6). On an A100 (no NVLS) the curve is the ring's. */
  fu_coll_obs b8 = {FU_OP_ALLREDUCE, 8, 1, 44, 841.3, 150, 0, 0};
  fu_cluster_init(&fit);
  snprintf(fit.intra_link, sizeof fit.intra_link, "nvlink");
  EXPECT_INT_EQ(fu_cluster_fit(&fit, &b8, 1, "synthetic", "NVIDIA B200", &fi, &fn), FU_OK);
  EXPECT_REL(fit.nvls_algbw_gbps[0], 841.3 * 8 / 14, 1e-9);
  EXPECT_REL(fit.intra_gbps, 841.3 * 8 / 14 / 0.70, 1e-9);
  EXPECT_REL(fit.base_us, 44 / 15.0 * 6.6, 1e-9);
  EXPECT_REL(fit.intra_step_us, 44 / 15.0 * 0.6, 1e-9);
  EXPECT_REL(fit.simple_base_us, 6 * 8.4, 1e-9);
  EXPECT_REL(fit.simple_intra_step_us, 6 * 3.4, 1e-9);
  fu_cluster_init(&fit);
  snprintf(fit.intra_link, sizeof fit.intra_link, "nvlink");
  EXPECT_INT_EQ(fu_cluster_fit(&fit, &b8, 1, "synthetic", "NVIDIA A100-SXM4-80GB", &fi, &fn), FU_OK);
  EXPECT_NEAR(fit.nvls_algbw_gbps[0], 0, 1e-12);
  EXPECT_REL(fit.intra_gbps, 841.3, 1e-9);
  /* an all-gather's bus bandwidth stands for the all-reduce ring's / its share: 2 ranks 250 GB/s
   * is a 300 GB/s ring (5/6) */
  fu_coll_obs ag2 = {FU_OP_ALLGATHER, 2, 1, 20, 250, 30, 0, 0};
  fu_cluster_init(&fit);
  EXPECT_INT_EQ(fu_cluster_fit(&fit, &ag2, 1, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT_REL(fit.intra_gbps, 300, 1e-9);

  /* A network fitted from one 1+1 run alone (no one-node curve, so no call base): its floor
   * 14 us is the 2 network steps of a 2-rank ring, 7 us each; its large sizes' intercept 320 us
   * is 2 Simple network steps of 160 us; busbw 49 GB/s. The fit recovers all three (a model
   * latency of 0 was skipped as if it matched, which left both steps at 0). */
  fu_cluster rail;
  fu_cluster_init(&rail);
  fu_coll_obs one = {FU_OP_ALLREDUCE, 2, 2, 14, 49, 320, 0, 0};
  EXPECT_INT_EQ(fu_cluster_fit(&rail, &one, 1, "1+1", NULL, &fi, &fn), FU_OK);
  EXPECT_INT_EQ(fi, 0);
  EXPECT_INT_EQ(fn, 1);
  EXPECT_REL(rail.nic_gbps, 49, 0.005);
  EXPECT_REL(rail.net_step_us, 7, 0.005);
  EXPECT_REL(rail.simple_net_step_us, 160, 0.005);
  EXPECT(fu_cluster_has_simple(&rail));

  /* A Simple hop of a tree's chain in a job that spans nodes (simple_xintra_step_us), fitted
   * where the multi-node curves cover two GPU-per-node counts. Worked by hand: the one-node
   * 2-rank intercept 30 us splits as NCCL's ring/Simple (base 8.4, NVLink step 3.4) scaled,
   * base B = 30 x 8.4 / 15.2, step 30 x 3.4 / 15.2 = 6.71 us; then a chain hop of 30 us and a
   * network step N: 1+1 = B + 2 N = 130 us (no hop inside a node), so N = (130 - B) / 2 =
   * 56.7 us; 2+2 = the tree (its bandwidth is the best, 2 x 50 GB/s against the ring's
   * 100 / 1.5) B + 2 (30 + N) = 190 us; 4+4 = B + 2 (3 x 30 + N) = 310 us. The one-node step
   * alone cannot give them (2+2 and 4+4 differ by 4 hops: 120 us, not 4 x 6.71). */
  fu_coll_obs sx[4] = {{FU_OP_ALLREDUCE, 2, 1, 3, 400, 30, 0, 0}, {FU_OP_ALLREDUCE, 2, 2, 14, 50, 130, 0, 0},
                       {FU_OP_ALLREDUCE, 4, 2, 16, 150, 190, 0, 0}, {FU_OP_ALLREDUCE, 8, 2, 20, 350, 310, 0, 0}};
  fu_cluster xf;
  fu_cluster_init(&xf);
  EXPECT_INT_EQ(fu_cluster_fit(&xf, sx, 4, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT_REL(xf.simple_intra_step_us, 30 * 3.4 / 15.2, 1e-9);
  EXPECT_REL(xf.simple_base_us, 30 * 8.4 / 15.2, 1e-9);
  EXPECT_REL(xf.simple_xintra_step_us, 30, 0.01);
  EXPECT_REL(xf.simple_net_step_us, (130 - 30 * 8.4 / 15.2) / 2, 0.01);
  /* 8+8 priced with the hop: tree/Simple latency B + 2 (7 x 30 + N) = 130 + 14 x 30 = 550 us */
  EXPECT_INT_EQ(fu_coll_lines(&xf, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  int found = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(l[i].algo, "tree/Simple")) {
      found = 1;
      EXPECT_REL(l[i].alpha_us, 550, 0.01);
    }
  EXPECT_INT_EQ(found, 1);
  EXPECT(xf.node_net_gbps == 0); /* 2+2 and 4+4 reach 2 and 4 NICs: the network scales, no cap */

  /* A node network that stops scaling with its GPUs: the same sweep with the 4+4 at 120 GB/s
   * algbw (busbw 1.75 x 120 = 210) where its 4 NICs of 50 would give the tree min(400 / 2,
   * 4 x 50) = 200: the node carries at most 120 GB/s, 2.4 NICs' worth, a cap the fit finds (its
   * grid steps by 0.04%, the NIC's by 0.2%) with the NIC rate of the layouts it does not bind.
   * 8+8 is then priced on the tree at min(200, 120) GB/s, not 200 (2.4 NICs is no NIC count) */
  fu_coll_obs sc[4] = {sx[0], sx[1], sx[2], sx[3]};
  sc[3].busbw_gbps = 210;
  fu_cluster cf;
  fu_cluster_init(&cf);
  EXPECT_INT_EQ(fu_cluster_fit(&cf, sc, 4, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT_REL(cf.node_net_gbps, 120, 0.005);
  EXPECT_REL(cf.nic_gbps, 50, 0.005);
  EXPECT(strstr(cf.node_net_source, "synthetic: allreduce 2x4") == cf.node_net_source);
  EXPECT_INT_EQ(fu_coll_lines(&cf, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  found = 0;
  for (int i = 0; i < n; i++)
    if (l[i].algorithm == FU_CALGO_TREE && l[i].proto == FU_PROTO_SIMPLE) {
      found = 1;
      EXPECT_REL(l[i].beta_us_per_byte, 1 / (cf.node_net_gbps * 1e3), 1e-9);
    }
  EXPECT_INT_EQ(found, 1);
  /* a shortfall within the fit's tolerance (4+4 at 4% below 4 NICs: 336 GB/s busbw) is noise */
  sc[3].busbw_gbps = 336;
  fu_cluster_init(&cf);
  EXPECT_INT_EQ(fu_cluster_fit(&cf, sc, 4, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT(cf.node_net_gbps == 0 && cf.node_net_source[0] == '\0');
  /* the node's rate: min(g, NICs) x 50 GB/s, at most the cap */
  cf.nic_gbps = 50;
  cf.node_net_gbps = 120;
  EXPECT_REL(fu_coll_node_net_gbps(&cf, 1), 50, 1e-12);
  EXPECT_REL(fu_coll_node_net_gbps(&cf, 2), 100, 1e-12);
  EXPECT_REL(fu_coll_node_net_gbps(&cf, 8), 120, 1e-12);
  cf.node_net_gbps = 0;
  cf.nics_per_node = 2;
  EXPECT_REL(fu_coll_node_net_gbps(&cf, 8), 100, 1e-12);

  /* one GPU-per-node count among the multi-node curves (1+1 has no hop): nothing to separate */
  fu_cluster_init(&xf);
  EXPECT_INT_EQ(fu_cluster_fit(&xf, sx, 2, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT(xf.simple_xintra_step_us == 0);
  /* a hop below the one-node step (a base profile's hop beside another machine's one-node fit)
   * is priced at the one-node step: 8+8 tree/Simple 10 + 2 (7 x 50 + 60) = 830 us */
  fu_cluster_init(&xf);
  EXPECT_INT_EQ(fu_cluster_fit(&xf, sx, 4, "synthetic", NULL, &fi, &fn), FU_OK);
  xf.simple_intra_step_us = 50;
  EXPECT_INT_EQ(fu_coll_lines(&xf, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l, &n), FU_OK);
  found = 0;
  for (int i = 0; i < n; i++)
    if (!strcmp(l[i].algo, "tree/Simple")) {
      found = 1;
      EXPECT_REL(l[i].alpha_us, 830, 0.01);
    }
  EXPECT_INT_EQ(found, 1);
  /* a 2+2 faster than the 1+1 would need a hop cheaper than the one-node step: not taken */
  sx[2].lat_simple_us = 100;
  fu_cluster_init(&xf);
  EXPECT_INT_EQ(fu_cluster_fit(&xf, sx, 3, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT(xf.simple_xintra_step_us == 0);

  /* The process layout's cost, c q (q - 1) for q = min(GPUs a process, GPUs a node): c = 10 us
   * gives 560 us at 8 GPUs a process, 120 at 4 (a process of 8 GPUs cannot drive more than a
   * node's 4), 0 with one process per GPU. */
  fu_cluster lay;
  fu_cluster_init(&lay);
  lay.proc_pair_us = 10;
  EXPECT_REL(fu_coll_layout_us(&lay, 8, 8), 560, 1e-12);
  EXPECT_REL(fu_coll_layout_us(&lay, 8, 4), 120, 1e-12);
  EXPECT(fu_coll_layout_us(&lay, 1, 8) == 0 && fu_coll_layout_us(&lay, 0, 8) == 0);
  /* Priced on the Simple lines of a job across nodes alone: the DGX-like profile of the tests
   * above, 2x8 at 8 GPUs a process, against one process per GPU */
  fu_cluster j1 = xf, j8;
  j1.proc_pair_us = 10;
  j8 = j1;
  j8.job_gpus_per_proc = 8;
  fu_coll_line l1[FU_COLL_MAX_LINES], l8[FU_COLL_MAX_LINES];
  int n1, n8;
  EXPECT_INT_EQ(fu_coll_lines(&j1, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l1, &n1), FU_OK);
  EXPECT_INT_EQ(fu_coll_lines(&j8, FU_OP_ALLREDUCE, 16, 2, 1073741824.0, l8, &n8), FU_OK);
  EXPECT_INT_EQ(n1, n8);
  for (int i = 0; i < n1 && i < n8; i++)
    EXPECT_REL(l8[i].alpha_us - l1[i].alpha_us + 1, (l1[i].proto == FU_PROTO_SIMPLE ? 560 : 0) + 1, 1e-9);
  /* one node: no network proxy, no cost */
  EXPECT_INT_EQ(fu_coll_lines(&j8, FU_OP_ALLREDUCE, 8, 1, 1073741824.0, l8, &n8), FU_OK);
  EXPECT_INT_EQ(fu_coll_lines(&j1, FU_OP_ALLREDUCE, 8, 1, 1073741824.0, l1, &n1), FU_OK);
  for (int i = 0; i < n1 && i < n8; i++) EXPECT(l8[i].alpha_us == l1[i].alpha_us);
  /* The fit takes c where the multi-node curves cover two layouts: intercepts worked by hand
   * from a model with c = 20 (base B, network step N = 50 us, hop = the one-node step h):
   * 1+1 at 1 GPU a process B + 2 N, 2+2 and 4+4 at 2 and 4: + 2 (hop + N) + 40, + 2 (3 hop + N)
   * + 240 (the network step within 10%: it absorbs the grid's miss of c). Without layouts (0, unknown: one GPU a process) the same intercepts give c = 0. */
  fu_cluster tl;
  fu_cluster_init(&tl);
  EXPECT_INT_EQ(fu_cluster_fit(&tl, sx, 1, "synthetic", NULL, &fi, &fn), FU_OK); /* one node: B, h */
  double B = tl.simple_base_us, hop = tl.simple_intra_step_us;
  fu_coll_obs so[4] = {sx[0], sx[1], sx[2], sx[3]};
  so[1].lat_simple_us = B + 2 * 50;
  so[2].lat_simple_us = B + 2 * (hop + 50) + 40;
  so[3].lat_simple_us = B + 2 * (3 * hop + 50) + 240;
  for (int i = 1; i < 4; i++) so[i].gpus_per_proc = 1 << (i - 1);
  fu_cluster_init(&tl);
  EXPECT_INT_EQ(fu_cluster_fit(&tl, so, 4, "synthetic", NULL, &fi, &fn), FU_OK);
  /* the fit's grid steps by 2^(1/4) around c: within half a step, 9.05% */
  EXPECT_REL(tl.proc_pair_us, 20, 0.0905);
  EXPECT_REL(tl.simple_net_step_us, 50, 0.10);
  for (int i = 1; i < 4; i++) so[i].gpus_per_proc = 0;
  fu_cluster_init(&tl);
  EXPECT_INT_EQ(fu_cluster_fit(&tl, so, 4, "synthetic", NULL, &fi, &fn), FU_OK);
  EXPECT(tl.proc_pair_us == 0);
  return fu_test_report("test_coll");
}
