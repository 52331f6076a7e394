/* test_compute: the profile's compute tables (model/fu_compute.c) against values worked out by
 * hand: GEMM grid interpolation (efficiency log-linear between points, floors and edges, widths
 * between the powers of two), the
 * sweep label, memory-bound operation and attention interpolation, the optimizer fit, the
 * convolution tables by class, merging a partial calibration by key, and the JSON round trip
 * through a profile. */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_compute.h"
#include "fu_fitgroup.h"
#include "fu_profile.h"
#include "fu_test.h"

static void test_label(void) {
  char b[16];
  int m, n, k;
  fu_gemm_label(b, sizeof b, 16384, 128, 4096);
  EXPECT_STR_EQ(b, "16kx128x4k");
  EXPECT_INT_EQ(fu_gemm_label_parse(b, &m, &n, &k), FU_OK);
  EXPECT_INT_EQ(m, 16384);
  EXPECT_INT_EQ(n, 128);
  EXPECT_INT_EQ(k, 4096);
  EXPECT_INT_EQ(fu_gemm_label_parse("8192x3072x1024", &m, &n, &k), FU_OK);
  EXPECT_INT_EQ(n, 3072);
  EXPECT_INT_EQ(fu_gemm_label_parse("12x3", &m, &n, &k), FU_EDATA);
  EXPECT_INT_EQ(fu_gemm_label_parse("0x1x1", &m, &n, &k), FU_EDATA);
  EXPECT_INT_EQ(fu_gemm_label_parse("1x1x1k5", &m, &n, &k), FU_EDATA);
  EXPECT_INT_EQ(fu_gemm_label_parse("-1x1x1", &m, &n, &k), FU_EDATA);
}

/* A 2 x 2 x 2 grid {256, 1024}^3 whose points run at efficiency e(m,n,k) FLOP/us. */
static fu_compute *grid(void) {
  fu_compute *c = malloc(sizeof *c);
  fu_compute_init(c);
  static const int v[2] = {256, 1024};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 2; j++)
      for (int q = 0; q < 2; q++) {
        /* efficiency 1e8 FLOP/us at the small corner, x4 per axis step up in m */
        double eff = 1e8 * (i ? 4 : 1) * (j ? 2 : 1);
        double flops = 2.0 * v[i] * v[j] * v[q];
        EXPECT_INT_EQ(fu_compute_put_gemm(c, "bf16", "fwd", v[i], v[j], v[q], flops / eff), FU_OK);
      }
  return c;
}

static void test_gemm(void) {
  fu_compute *c = grid();
  double us;
  EXPECT_INT_EQ(c->ngemm, 1);
  EXPECT_INT_EQ(c->gemm[0].nm, 2);
  /* on a grid point: the measured time */
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "bf16", "fwd", 1024, 256, 1024, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 1024 * 256 * 1024 / 4e8, 1e-6);
  /* m = 512 is half way in log space: efficiency sqrt(1e8 * 4e8) = 2e8 (n = k = 256) */
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "bf16", "fwd", 512, 256, 256, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 512 * 256 * 256 / 2e8, 1e-6);
  /* above the grid: the edge's efficiency, time grows with the FLOPs (m = 4096: 4e8) */
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "bf16", "fwd", 4096, 256, 256, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 4096 * 256 * 256 / 4e8, 1e-6);
  /* below the grid: the smallest product's time (m = 16 costs what m = 256 does) */
  double t256;
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "bf16", "fwd", 256, 256, 256, &t256), FU_OK);
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "bf16", "fwd", 16, 256, 256, &us), FU_OK);
  EXPECT_REL(us, t256, 1e-9);
  /* points put out of order land sorted */
  EXPECT_INT_EQ(fu_compute_put_gemm(c, "bf16", "fwd", 512, 256, 256, 1.0), FU_OK);
  EXPECT_INT_EQ(c->gemm[0].m[1], 512);
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "bf16", "fwd", 512, 256, 256, &us), FU_OK);
  EXPECT_REL(us, 1.0, 1e-6);
  /* no table of that dtype or layout */
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "tf32", "fwd", 512, 256, 256, &us), FU_EDATA);
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "bf16", "wgrad", 512, 256, 256, &us), FU_EDATA);
  free(c);
}

/* A table sampled at the widths between the powers of two (calib_torch's GEMM_WIDTHS: 16 values
 * along n): a width whose kernels run slower than its neighbours' (here n = 1280 at 0.8x the
 * efficiency of the rest) is priced at its own point, a width between two points log-linearly
 * between them; a 17th value along an axis is refused. */
static void test_widths(void) {
  static const int w[16] = {128, 256, 512, 768, 1024, 1280, 1536, 1792, 2048, 2560, 3072, 4096,
                            5120, 6144, 8192, 16384};
  fu_compute *c = malloc(sizeof *c);
  fu_compute_init(c);
  for (int j = 0; j < 16; j++) {
    double eff = w[j] == 1280 ? 3.2e8 : 4e8, flops = 2.0 * 4096 * w[j] * 1024;
    EXPECT_INT_EQ(fu_compute_put_gemm(c, "tf32", "fwd", 4096, w[j], 1024, flops / eff), FU_OK);
  }
  EXPECT_INT_EQ(c->gemm[0].nn, 16);
  double us;
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "tf32", "fwd", 4096, 1280, 1024, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 4096 * 1280 * 1024 / 3.2e8, 1e-6); /* its own point, not 4e8 */
  /* n = 1152: f = ln(1152/1024) / ln(1280/1024) = 0.52784 of the way, efficiency 4e8 x 0.8^f */
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "tf32", "fwd", 4096, 1152, 1024, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 4096 * 1152 * 1024 / (4e8 * pow(0.8, 0.52784)), 1e-4);
  /* n = 1408, between 1280 and 1536: f = ln(1.1) / ln(1.2) = 0.52276 of the way back up */
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "tf32", "fwd", 4096, 1408, 1024, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 4096 * 1408 * 1024 / (3.2e8 * pow(1.25, 0.52276)), 1e-4);
  /* no room for a 17th value along n */
  EXPECT_INT_EQ(fu_compute_put_gemm(c, "tf32", "fwd", 4096, 11008, 1024, 1.0), FU_EDATA);
  free(c);
  fu_profile *q = malloc(sizeof *q);
  fu_profile_init(q);
  char js[1024];
  int o = snprintf(js, sizeof js, "{\"format\": \"fusim-profile-1\", \"curves\": [], \"compute\": {\"gemm\": "
                                  "[{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"m\": [1], \"k\": [1], \"n\": [");
  for (int j = 1; j <= 17; j++) o += snprintf(js + o, sizeof js - o, "%s%d", j > 1 ? ", " : "", j);
  o += snprintf(js + o, sizeof js - o, "], \"us\": [");
  for (int j = 1; j <= 17; j++) o += snprintf(js + o, sizeof js - o, "%s1", j > 1 ? ", " : "");
  snprintf(js + o, sizeof js - o, "]}]}}");
  EXPECT_INT_EQ(fu_profile_parse(js, "seventeen", q), FU_EDATA);
  free(q);
}

/* Attention timed at several bh per sequence length (calib_torch attn_bhs): seq 512 at bh 16,
 * 64, 256 in 20, 40, 120 us; seq 1024 at 16, 64, 256 in 60, 130, 400 (backward twice that). */
static void test_attn_bh(void) {
  fu_compute *c = malloc(sizeof *c);
  fu_compute_init(c);
  static const int seqs[2] = {512, 1024}, bhs[3] = {16, 64, 256};
  static const double t[2][3] = {{20, 40, 120}, {60, 130, 400}};
  for (int i = 0; i < 2; i++)
    for (int j = 0; j < 3; j++)
      c->attn[c->nattn++] = (fu_attn_point){"bf16", 64, 0, 0.0, seqs[i], bhs[j], t[i][j], 2 * t[i][j], 0, ""};
  c->attn[c->nattn++] = (fu_attn_point){"fp32", 64, 0, 0.0, 512, 1024, 100, 200, 0, ""}; /* one bh */
  double f, b;
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 64, 0, 0.0, 0, 512, 64, &f, &b), FU_OK);
  EXPECT_REL(f, 40, 1e-9); /* a measured point */
  EXPECT_REL(b, 80, 1e-9);
  /* bh 32, half way in log bh: per problem sqrt(20/16 x 40/64) = 0.88388, x 32 */
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 64, 0, 0.0, 0, 512, 32, &f, &b), FU_OK);
  EXPECT_REL(f, 28.2843, 1e-4);
  EXPECT_REL(b, 56.5685, 1e-4);
  /* above the largest bh: its time per problem, 120 / 256 x 512 */
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 64, 0, 0.0, 0, 512, 512, &f, &b), FU_OK);
  EXPECT_REL(f, 240, 1e-9);
  /* below the smallest: the smallest's whole time */
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 64, 0, 0.0, 0, 512, 8, &f, &b), FU_OK);
  EXPECT_REL(f, 20, 1e-9);
  /* between the lengths (seq 724.077 = sqrt(512 x 1024)) at bh 64: per problem
   * sqrt(40/64 x 130/64) = 1.12673, x 64 */
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 64, 0, 0.0, 0, sqrt(512.0 * 1024), 64, &f, &b), FU_OK);
  EXPECT_REL(f, 72.111, 1e-4);
  /* above the longest length (2048, quadratic) at bh 32: 1024's per problem sqrt(60/16 x
   * 130/64) = 2.75994, x 4 x 32 */
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 64, 0, 0.0, 0, 2048, 32, &f, &b), FU_OK);
  EXPECT_REL(f, 353.272, 1e-4);
  /* a length timed at one bh keeps its time per problem at any bh: 100 / 1024 x 16 */
  EXPECT_INT_EQ(fu_compute_attn_us(c, "fp32", 64, 0, 0.0, 0, 512, 16, &f, &b), FU_OK);
  EXPECT_REL(f, 1.5625, 1e-9);
  free(c);
}

/* PyTorch's multi-tensor apply cut by hand (chunks of 65536, 320 a launch, 110 / 64 tensors for
 * 1 / 2 lists, 96 for one scalarlist), and the optimizer's device time in the launch form. */
static void test_optim_launches(void) {
  double l = 0, m = 0, ch = 0;
  /* one tensor of 320 chunks and 10 elements: 320 full chunks, then the 10 */
  double big[1] = {65536.0 * 320 + 10};
  fu_optim_launches(big, 1, 1, 0, &l, &m, &ch, 0, NULL);
  EXPECT_REL(l, 2, 1e-12);
  EXPECT_REL(m, 65536.0 * 320 + 10, 1e-12);
  EXPECT_REL(ch, 65536 + 10, 1e-12);
  /* 111 one-element tensors: 110 + 1 (one list), 64 + 47 (two lists), 96 + 15 (scalarlist) */
  double ones[111];
  for (int i = 0; i < 111; i++) ones[i] = 1;
  l = m = ch = 0;
  fu_optim_launches(ones, 111, 1, 0, &l, &m, &ch, 0, NULL);
  EXPECT_REL(l, 2, 1e-12);
  EXPECT_REL(m, 111, 1e-12);
  EXPECT_REL(ch, 2, 1e-12);
  l = m = ch = 0;
  fu_optim_launches(ones, 111, 2, 0, &l, &m, &ch, 0, NULL);
  EXPECT_REL(l, 2, 1e-12);
  EXPECT_REL(m, 222, 1e-12);
  EXPECT_REL(ch, 4, 1e-12);
  l = m = ch = 0;
  fu_optim_launches(ones, 97, 1, 1, &l, &m, &ch, 0, NULL); /* 96 + 1 */
  EXPECT_REL(l, 2, 1e-12);
  l = m = ch = 0;
  fu_optim_launches(ones, 96, 1, 1, &l, &m, &ch, 0, NULL);
  EXPECT_REL(l, 1, 1e-12);
  /* an empty tensor before 110 one-element ones: ATen skips it (MultiTensorApply.cuh), so the
   * 110 fill one launch; counted as a tensor it would cut them 109 + 1 */
  double zero_ones[111] = {0};
  for (int i = 1; i < 111; i++) zero_ones[i] = 1;
  l = m = ch = 0;
  fu_optim_launches(zero_ones, 111, 1, 0, &l, &m, &ch, 0, NULL);
  EXPECT_REL(l, 1, 1e-12);
  EXPECT_REL(m, 110, 1e-12);
  /* a what-if's huge tensor, 1e17 elements = 2 x 5^17 full chunks = 1525878906250: 4768371582
   * launches of 320 and one of the last 10 chunks, each launch's largest chunk 65536; counted in
   * O(tensors), not a chunk at a time (which took hours) */
  double huge[2] = {1e17, 3};
  l = m = ch = 0;
  fu_optim_launches(huge, 1, 1, 0, &l, &m, &ch, 0, NULL);
  EXPECT_REL(l, 4768371583.0, 1e-12);
  EXPECT_REL(m, 1e17, 1e-12);
  EXPECT_REL(ch, 4768371583.0 * 65536, 1e-12);
  /* the 3-element tensor after it joins the last launch (10 + 1 chunks, 2 tensors) */
  l = m = ch = 0;
  fu_optim_launches(huge, 2, 1, 0, &l, &m, &ch, 0, NULL);
  EXPECT_REL(l, 4768371583.0, 1e-12);
  EXPECT_REL(m, 1e17 + 3, 1e-12);
  /* SGD (mul_ 1 list, add_ 2, add_ 2) over one tensor of 100000 (chunks 65536 + 34464):
   * 3 launches, 100000 x (1 + 2 + 2) touched, largest chunk 65536 x 5:
   * 2 x 3 + 1e-6 x 500000 + 8e-5 x 327680 = 32.7144 us */
  fu_optim_fit o = {.name = "sgd", .base_us = 1000, .per_tensor_us = 1, .per_elem_us = 1,
                    .launch_us = 2, .per_moved_elem_us = 1e-6, .per_chunk_elem_us = 8e-5};
  double one[1] = {100000};
  EXPECT_REL(fu_optim_dev_us(&o, one, 1), 32.7144, 1e-9);
  /* AdamW's 8 operations (lists 1, 2, 1, 3, 2, 1s, 1, 3s): 8 launches, 14 x 100000 touched,
   * 14 x 65536 largest: 16 + 1.4 + 73.40032 */
  snprintf(o.name, sizeof o.name, "adamw");
  EXPECT_REL(fu_optim_dev_us(&o, one, 1), 90.80032, 1e-9);
  /* without the launch form: base + per tensor + per element */
  o.launch_us = 0;
  EXPECT_REL(fu_optim_dev_us(&o, one, 1), 1000 + 1 + 100000, 1e-12);
}

/* The HBM form (fu_optim_fit.hbm_*), by hand: each launch at least sat_blocks full chunks per
 * list, and only for operations whose lists hold more than cache_bytes. */
static void test_optim_hbm(void) {
  /* 320 full chunks + 10 elements, one list, sat_blocks 100: launch 1 max(20971520, 6553600),
   * launch 2 max(10, 100 x 10) */
  double big[1] = {65536.0 * 320 + 10}, l = 0, m = 0, ch = 0, sat = 0;
  fu_optim_launches(big, 1, 1, 0, &l, &m, &ch, 100, &sat);
  EXPECT_REL(sat, 20971520 + 1000, 1e-12);
  /* SGD (lists 1, 2, 2) over 20 tensors of 262144 (4 full chunks each, 80 a launch: one launch
   * per operation, 5242880 elements, largest chunk 65536). The launch form: 3 x 2 + 1.5e-6 x
   * 5 x 5242880 + 6e-5 x 5 x 65536 = 6 + 39.3216 + 19.6608 = 64.9824 us. The HBM form at
   * sat_blocks 100: each launch max(5242880, 6553600) = 6553600 per list: 3 x 5 + 1e-6 x 5 x
   * 6553600 = 47.768 us. */
  double w[20];
  for (int i = 0; i < 20; i++) w[i] = 262144;
  fu_optim_fit o = {.name = "sgd", .launch_us = 2, .per_moved_elem_us = 1.5e-6, .per_chunk_elem_us = 6e-5,
                    .hbm_launch_us = 5, .hbm_per_moved_elem_us = 1e-6, .hbm_sat_blocks = 100,
                    .cache_bytes = 1e6};
  EXPECT_REL(fu_optim_dev_us(&o, w, 20), 47.768, 1e-9);
  /* a cache of 3e7 bytes holds the one-list operation (20971520 bytes) but not the two-list ones
   * (41943040): (2 + 7.86432 + 3.93216) + 2 x (5 + 1e-6 x 2 x 6553600) = 50.01088 us */
  o.cache_bytes = 3e7;
  EXPECT_REL(fu_optim_dev_us(&o, w, 20), 50.01088, 1e-9);
  /* a cache that holds every list: the launch form throughout */
  o.cache_bytes = 1e8;
  EXPECT_REL(fu_optim_dev_us(&o, w, 20), 64.9824, 1e-9);
  /* without the HBM fields: the launch form */
  o.cache_bytes = 1e6, o.hbm_launch_us = 0;
  EXPECT_REL(fu_optim_dev_us(&o, w, 20), 64.9824, 1e-9);
}

/* The cold form (fu_optim_fit.cold_*), by hand: one tensor of 65536 elements (one launch per
 * operation, 65536 elements, largest chunk 65536), so each launch costs cold_launch_us +
 * per_touch_us x 65536 x hypot(touches, chunk_touches). */
static void test_optim_cold(void) {
  double one[1] = {65536};
  /* SGD: mul_ (2 touches), add_ (3), add_ (3), every one cold (each reads a list first):
   * 3 x 2 + 1e-6 x 65536 x (hypot(2, 4) + 2 x hypot(3, 4)) */
  fu_optim_fit o = {.name = "sgd", .launch_us = 9, .per_moved_elem_us = 1, .per_chunk_elem_us = 1,
                    .hbm_launch_us = 9, .hbm_per_moved_elem_us = 1, .hbm_sat_blocks = 1, .cache_bytes = 1e9,
                    .cold_launch_us = 2, .cold_per_touch_us = 1e-6, .cold_chunk_touches = 4,
                    .warm_per_touch_us = 5e-7, .warm_chunk_touches = 0};
  EXPECT_REL(fu_optim_dev_us(&o, one, 1), 6 + 0.065536 * (sqrt(20) + 10), 1e-12);
  /* AdamW with a cache of 1e9: mul_ P, lerp_ A G, mul_ S read lists first (cold: touches 2, 3,
   * 2); addcmul_ S G (3), sqrt S (2), div_ D (2), add_ D (2), addcdiv_ P A D (4) read lists
   * touched since the step began (warm, chunk weight 0): 8 x 2 + 0.065536 x (2 sqrt(20) + 5) +
   * 0.032768 x 13 */
  snprintf(o.name, sizeof o.name, "adamw");
  EXPECT_REL(fu_optim_dev_us(&o, one, 1), 16 + 0.065536 * (2 * sqrt(20) + 5) + 0.032768 * 13, 1e-12);
  /* a cache of two lists (524288 bytes): addcdiv_'s P was last touched before A, G, S and D, so
   * it reads from HBM (cold, hypot(4, 4)); the other warm operations stay warm */
  o.cache_bytes = 2 * 65536 * 4;
  EXPECT_REL(fu_optim_dev_us(&o, one, 1), 16 + 0.065536 * (2 * sqrt(20) + 5 + sqrt(32)) + 0.032768 * 9, 1e-12);
  /* a byte less: addcmul_'s G (touched by lerp_, S since) no longer fits with S: cold too */
  o.cache_bytes = 2 * 65536 * 4 - 1;
  EXPECT_REL(fu_optim_dev_us(&o, one, 1), 16 + 0.065536 * (2 * sqrt(20) + 10 + sqrt(32)) + 0.032768 * 6, 1e-12);
  /* without a warm pair every operation is priced cold */
  o.warm_per_touch_us = 0;
  EXPECT_REL(fu_optim_dev_us(&o, one, 1), 16 + 0.065536 * (5 * sqrt(20) + 10 + sqrt(32)), 1e-12);
  /* SGD clipped: _foreach_norm (1 touch, cold), _foreach_mul_ of the gradients (2, warm: G just
   * read), then SGD's three, where add_ A G finds G warm but A, read by mul_ just before, also
   * warm: warm (chunk 0); 2 + 3 launches + the clip's 8 one-element kernels (6 + 1 + 1) */
  snprintf(o.name, sizeof o.name, "sgd_clip");
  o.warm_per_touch_us = 5e-7, o.cache_bytes = 1e9;
  EXPECT_REL(fu_optim_dev_us(&o, one, 1),
             13 * 2 + 0.065536 * (sqrt(17) + sqrt(20) + 5) + 0.032768 * (2 + 3), 1e-12);
}

static void test_ops_attn_optim(void) {
  fu_compute *c = malloc(sizeof *c);
  fu_compute_init(c);
  fu_op_table *t = &c->ops[c->nops++];
  snprintf(t->op, sizeof t->op, "gelu");
  snprintf(t->dtype, sizeof t->dtype, "bf16");
  t->nsizes = 2;
  t->numel[0] = 1e4, t->numel[1] = 1e6;
  t->fwd_us[0] = 2, t->fwd_us[1] = 200;
  t->bwd_us[0] = 4, t->bwd_us[1] = 400;
  const fu_op_table *g = fu_compute_op(c, "gelu", "fp32"); /* the other dtype stands in */
  EXPECT(g == t);
  EXPECT(fu_compute_op(c, "layernorm", "bf16") == NULL);
  EXPECT_REL(fu_op_us(c, g, 1e5, 0), 20, 1e-9);   /* log-log between 2 us and 200 us */
  EXPECT_REL(fu_op_us(c, g, 1e3, 1), 4, 1e-9);    /* below: the smallest size's time */
  EXPECT_REL(fu_op_us(c, g, 4e6, 0), 800, 1e-9);  /* above: proportional */
  EXPECT_REL(fu_op_us(c, NULL, 4e6, 0), 0, 1e-9);

  fu_attn_point *a = &c->attn[c->nattn++];
  *a = (fu_attn_point){"bf16", 64, 1, 0.0, 512, 1024, 100, 300, 0, ""};
  a = &c->attn[c->nattn++];
  *a = (fu_attn_point){"bf16", 64, 1, 0.0, 2048, 256, 400, 1000, 0, ""};
  double f, b;
  /* seq 1024 between: per problem 100/1024 and 400/256 -> geometric mean; bh 512 */
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 64, 1, 0.0, 0, 1024, 512, &f, &b), FU_OK);
  EXPECT_REL(f, sqrt((100.0 / 1024) * (400.0 / 256)) * 512, 1e-9);
  EXPECT_REL(b, sqrt((300.0 / 1024) * (1000.0 / 256)) * 512, 1e-9);
  /* above the table: quadratic in seq; head size 128 doubles it */
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 128, 1, 0.0, 0, 4096, 256, &f, &b), FU_OK);
  EXPECT_REL(f, 400.0 / 256 * 4 * 256 * 2, 1e-9);
  EXPECT_INT_EQ(fu_compute_attn_us(c, "fp32", 64, 1, 0.0, 0, 512, 1, &f, &b), FU_EDATA);

  fu_optim_fit *o = &c->optim[c->noptim++];
  *o = (fu_optim_fit){.name = "adamw", .base_us = 100, .per_tensor_us = 10, .per_elem_us = 1e-5};
  double us;
  EXPECT_INT_EQ(fu_compute_optim_us(c, "adamw", 200, 1e8, &us), FU_OK);
  EXPECT_REL(us, 100 + 2000 + 1000, 1e-9);
  EXPECT_INT_EQ(fu_compute_optim_us(c, "sgd", 200, 1e8, &us), FU_EDATA);
  free(c);
}

/* The "compute" object in text merged into c (fu_compute_parse). */
static int merge(const char *text, fu_compute *c) {
  json_t *o = json_loads(text, 0, NULL);
  EXPECT(o != NULL);
  int st = fu_compute_parse(o, "test", c);
  json_decref(o);
  return st;
}

/* p written as a profile's JSON and read back into q (the name is set: profiles need one). */
static void roundtrip(fu_profile *p, fu_profile *q) {
  snprintf(p->name, sizeof p->name, "t");
  json_t *j = fu_profile_to_json(p);
  EXPECT(j != NULL);
  char *text = json_dumps(j, 0);
  json_decref(j);
  EXPECT_INT_EQ(fu_profile_parse(text, "roundtrip", q), FU_OK);
  free(text);
}

/* The math path's points for grouped keys ("attention_gqa") are a kind apart: a lookup of one
 * kind never takes the other's, "attention" and "attention_gqa" each replace their own kind when
 * merged, and both survive a profile's round trip. */
static void test_attn_gqa(void) {
  fu_compute *c = malloc(sizeof *c);
  fu_compute_init(c);
  EXPECT_INT_EQ(merge("{\"attention\": [{\"dtype\": \"fp32\", \"head_dim\": 64, \"causal\": 1, \"dropout\": 0, "
                      "\"seq\": 512, \"bh\": 64, \"fwd_us\": 100, \"bwd_us\": 200}], "
                      "\"attention_gqa\": [{\"dtype\": \"fp32\", \"head_dim\": 64, \"causal\": 1, \"dropout\": 0, "
                      "\"seq\": 512, \"bh\": 64, \"fwd_us\": 700, \"bwd_us\": 900}]}", c), FU_OK);
  double f, b;
  EXPECT_INT_EQ(fu_compute_attn_us(c, "fp32", 64, 1, 0.0, 0, 512, 64, &f, &b), FU_OK);
  EXPECT_REL(f, 100, 1e-9);
  EXPECT_INT_EQ(fu_compute_attn_us(c, "fp32", 64, 1, 0.0, 1, 512, 64, &f, &b), FU_OK);
  EXPECT_REL(f, 700, 1e-9);
  EXPECT_REL(b, 900, 1e-9);
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 64, 1, 0.0, 1, 512, 64, &f, &b), FU_EDATA); /* none in bf16 */
  /* a calibration of the fused kernels alone keeps the math path's point, and the reverse */
  EXPECT_INT_EQ(merge("{\"attention\": [{\"dtype\": \"fp32\", \"head_dim\": 64, \"causal\": 1, \"dropout\": 0, "
                      "\"seq\": 512, \"bh\": 64, \"fwd_us\": 150, \"bwd_us\": 250}]}", c), FU_OK);
  EXPECT_INT_EQ(c->nattn, 2);
  EXPECT_INT_EQ(fu_compute_attn_us(c, "fp32", 64, 1, 0.0, 1, 512, 64, &f, &b), FU_OK);
  EXPECT_REL(f, 700, 1e-9);
  EXPECT_INT_EQ(merge("{\"attention_gqa\": []}", c), FU_OK);
  EXPECT_INT_EQ(c->nattn, 1);
  EXPECT_INT_EQ(fu_compute_attn_us(c, "fp32", 64, 1, 0.0, 0, 512, 64, &f, &b), FU_OK);
  EXPECT_REL(f, 150, 1e-9);
  EXPECT_INT_EQ(fu_compute_attn_us(c, "fp32", 64, 1, 0.0, 1, 512, 64, &f, &b), FU_EDATA);
  /* both kinds through a profile's JSON */
  c->attn[c->nattn++] = (fu_attn_point){"fp32", 64, 1, 0.0, 512, 64, 700, 900, 1, "by hand"};
  fu_profile *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  fu_profile_init(p);
  p->compute = *c;
  roundtrip(p, q);
  EXPECT_INT_EQ(q->compute.nattn, 2);
  EXPECT_INT_EQ(fu_compute_attn_us(&q->compute, "fp32", 64, 1, 0.0, 1, 512, 64, &f, &b), FU_OK);
  EXPECT_REL(f, 700, 1e-6);
  EXPECT_STR_EQ(fu_compute_attn_derived(&q->compute, "fp32", 1), "by hand");
  EXPECT_STR_EQ(fu_compute_attn_derived(&q->compute, "fp32", 0), "");
  free(p), free(q), free(c);
}

/* The tables survive a profile's JSON round trip, and bad tables are refused in one line. */
static void test_json(void) {
  fu_profile *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  fu_profile_init(p);
  fu_compute *c = grid();
  p->compute = *c;
  free(c);
  p->gpu_mem_bytes = 150e9;
  snprintf(p->compute.source, sizeof p->compute.source, "hand");
  roundtrip(p, q);
  double a, b;
  EXPECT_INT_EQ(fu_compute_gemm_us(&p->compute, "bf16", "fwd", 700, 300, 900, &a), FU_OK);
  EXPECT_INT_EQ(fu_compute_gemm_us(&q->compute, "bf16", "fwd", 700, 300, 900, &b), FU_OK);
  EXPECT_REL(a, b, 1e-6); /* float storage */
  EXPECT_REL(q->gpu_mem_bytes, 150e9, 1e-12);
  EXPECT_STR_EQ(q->compute.source, "hand");
  /* a grid whose time list is short, an op table with descending sizes */
  EXPECT_INT_EQ(fu_profile_parse("{\"format\": \"fusim-profile-1\", \"curves\": [], \"compute\": {\"gemm\": "
                                 "[{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"m\": [1], \"n\": [1, 2], "
                                 "\"k\": [1], \"us\": [1]}]}}", "bad", q), FU_EDATA);
  EXPECT_INT_EQ(fu_profile_parse("{\"format\": \"fusim-profile-1\", \"curves\": [], \"compute\": {\"ops\": "
                                 "[{\"op\": \"gelu\", \"dtype\": \"bf16\", \"numel\": [10, 5], \"fwd_us\": [1, 1], "
                                 "\"bwd_us\": [1, 1], \"host_fwd_us\": 0, \"host_bwd_us\": 0}]}}", "bad", q), FU_EDATA);
  /* the HBM form read back, and refused without the launch form it falls back to */
  fu_compute *h = malloc(sizeof *h);
  fu_compute_init(h);
  const char *launch = "\"launch_us\": 2, \"per_moved_elem_us\": 1e-6, \"per_chunk_elem_us\": 6e-5, ";
  const char *hbm = "\"hbm_launch_us\": 5, \"hbm_per_moved_elem_us\": 1.5e-6, \"hbm_sat_blocks\": 108, "
                    "\"cache_bytes\": 62914560}]}";
  char text[512];
  snprintf(text, sizeof text, "{\"optimizer\": [{\"name\": \"sgd\", \"base_us\": 1, \"per_tensor_us\": 0, "
           "\"per_elem_us\": 0, %s%s", launch, hbm);
  EXPECT_INT_EQ(merge(text, h), FU_OK);
  EXPECT_REL(h->optim[0].hbm_sat_blocks, 108, 1e-12);
  EXPECT_REL(h->optim[0].cache_bytes, 62914560, 1e-12);
  p->compute = *h;
  roundtrip(p, q);
  EXPECT_REL(q->compute.optim[0].hbm_launch_us, 5, 1e-12);
  EXPECT_REL(q->compute.optim[0].hbm_per_moved_elem_us, 1.5e-6, 1e-12);
  snprintf(text, sizeof text, "{\"optimizer\": [{\"name\": \"sgd\", \"base_us\": 1, \"per_tensor_us\": 0, "
           "\"per_elem_us\": 0, %s", hbm);
  EXPECT_INT_EQ(merge(text, h), FU_EDATA);
  /* the cold form read back with its own cache (no HBM form), and refused without the launch
   * form or with a field out of range */
  const char *cold = "\"cold_launch_us\": 2.5, \"cold_per_touch_us\": 1.4e-6, \"cold_chunk_touches\": 160, "
                     "\"warm_per_touch_us\": 1.9e-6, \"warm_chunk_touches\": 60, \"cache_bytes\": 52428800}]}";
  snprintf(text, sizeof text, "{\"optimizer\": [{\"name\": \"adamw\", \"base_us\": 1, \"per_tensor_us\": 0, "
           "\"per_elem_us\": 0, %s%s", launch, cold);
  fu_compute_init(h);
  EXPECT_INT_EQ(merge(text, h), FU_OK);
  p->compute = *h;
  roundtrip(p, q);
  EXPECT_REL(q->compute.optim[0].cold_per_touch_us, 1.4e-6, 1e-12);
  EXPECT_REL(q->compute.optim[0].warm_chunk_touches, 60, 1e-12);
  EXPECT_REL(q->compute.optim[0].cache_bytes, 52428800, 1e-12);
  snprintf(text, sizeof text, "{\"optimizer\": [{\"name\": \"adamw\", \"base_us\": 1, \"per_tensor_us\": 0, "
           "\"per_elem_us\": 0, %s", cold);
  EXPECT_INT_EQ(merge(text, h), FU_EDATA);
  snprintf(text, sizeof text, "{\"optimizer\": [{\"name\": \"adamw\", \"base_us\": 1, \"per_tensor_us\": 0, "
           "\"per_elem_us\": 0, %s\"cold_launch_us\": 2.5, \"cold_per_touch_us\": 2, \"cold_chunk_touches\": 160, "
           "\"warm_per_touch_us\": 0, \"warm_chunk_touches\": 0, \"cache_bytes\": 1}]}", launch);
  EXPECT_INT_EQ(merge(text, h), FU_EDATA);
  free(h);
  free(p);
  free(q);
}

/* An unaligned table (tools/calib_torch.py's "gemm_unaligned") prices a product with a dimension
 * off the multiple of 8; aligned products keep the sweep's table; both survive the JSON. */
static void test_unaligned(void) {
  fu_profile *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  fu_profile_init(p);
  fu_compute *c = grid();
  p->compute = *c;
  free(c);
  /* one grid point (1024 x 50257 x 1024): a product above it in every axis runs at its efficiency */
  const char *u = "{\"gemm_unaligned\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"m\": [1024], "
                  "\"n\": [50257], \"k\": [1024], \"us\": [1054.0]}]}";
  EXPECT_INT_EQ(merge(u, &p->compute), FU_OK);
  EXPECT_INT_EQ(p->compute.ngemm, 2);
  double eff = 2.0 * 1024 * 50257 * 1024 / 1054.0, us;
  EXPECT_INT_EQ(fu_compute_gemm_us(&p->compute, "bf16", "fwd", 2048, 60001, 2048, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 2048 * 60001 * 2048 / eff, 1e-6);
  /* aligned: the grid's time at a grid point, as in test_gemm */
  EXPECT_INT_EQ(fu_compute_gemm_us(&p->compute, "bf16", "fwd", 1024, 256, 1024, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 1024 * 256 * 1024 / 4e8, 1e-6);
  /* no unaligned table for wgrad: the aligned one would be used; none exists either */
  EXPECT_INT_EQ(fu_compute_gemm_us(&p->compute, "bf16", "wgrad", 50257, 256, 256, &us), FU_EDATA);
  roundtrip(p, q);
  EXPECT_INT_EQ(q->compute.ngemm, 2);
  EXPECT_INT_EQ(fu_compute_gemm_us(&q->compute, "bf16", "fwd", 2048, 60001, 2048, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 2048 * 60001 * 2048 / eff, 1e-6);
  /* a second "gemm" (the sweep again) replaces the aligned tables and keeps the unaligned one */
  EXPECT_INT_EQ(merge("{\"gemm\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"m\": [64], \"n\": [64], "
                      "\"k\": [64], \"us\": [1.0]}]}", &q->compute), FU_OK);
  EXPECT_INT_EQ(q->compute.ngemm, 2);
  EXPECT_INT_EQ(fu_compute_gemm_us(&q->compute, "bf16", "fwd", 2048, 60001, 2048, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 2048 * 60001 * 2048 / eff, 1e-6);
  free(p);
  free(q);
}

/* Convolution tables: looked up by dtype, layout, kernel and stride, interpolated like GEMM
 * tables (efficiency log-linear; a missing point skipped); other classes have none. */
/* A table timed at one value along an axis (a sweep cut short) takes its trend along that axis
 * from the same class in the other layout where that one spans it, not the proportion to its one
 * point. Channels-last 3x3 s2 timed at M 1568 only (10 us); NCHW at 1568 and 6272 (20, 40 us). */
static void test_conv_cut(void) {
  fu_profile *p = malloc(sizeof *p);
  fu_profile_init(p);
  EXPECT_INT_EQ(merge("{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 2, "
                      "\"m\": [1568], \"n\": [64], \"k\": [576], \"us\": [10]}]}", &p->compute), FU_OK);
  double us;
  /* alone: in proportion to its one point (M 6272: 4 x 10) */
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 2, 0, 6272, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 40.0, 1e-6);
  EXPECT_INT_EQ(merge("{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 2, "
                      "\"format\": \"nchw\", \"m\": [1568, 6272], \"n\": [64], \"k\": [576], "
                      "\"us\": [20, 40]}]}", &p->compute), FU_OK);
  /* with the NCHW table: 10 x 40 / 20 at M 6272 */
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 2, 0, 6272, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 20.0, 1e-6);
  /* M 3136, half way in log space: NCHW efficiency sqrt(2) x its 1568 one, time 20 x 2 / sqrt(2) */
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 2, 0, 3136, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 10.0 * sqrt(2.0), 1e-6);
  /* below both grids NCHW costs its smallest's time: the ratio is 1; at its own point, its time */
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 2, 0, 784, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 10.0, 1e-6);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 2, 0, 1568, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 10.0, 1e-6);
  /* the NCHW table spans M: its own interpolation (N and K are single in both: proportion) */
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 2, 1, 6272, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 40.0, 1e-6);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 2, 0, 6272, 128, 576, &us), FU_OK);
  EXPECT_REL(us, 40.0, 1e-6);
  free(p);
}

static void test_conv(void) {
  fu_profile *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  fu_profile_init(p);
  /* 3x3 stride 1, Cout 64, K = 64 * 9 = 576: M 1000 at 1e7 FLOP/us, M 4000 at 4e7 FLOP/us;
   * times 2 * M * 64 * 576 / efficiency = 7.3728 and 7.3728 us; Cout 128 at M 4000 missing */
  const char *cv = "{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 1, "
                   "\"m\": [1000, 4000], \"n\": [64, 128], \"k\": [576], \"us\": [7.3728, 14.7456, 7.3728, null]}]}";
  EXPECT_INT_EQ(merge(cv, &p->compute), FU_OK);
  EXPECT_INT_EQ(p->compute.nconv, 1);
  EXPECT_INT_EQ(p->compute.ngemm, 0);
  double us;
  /* M 2000: half way in log space, efficiency sqrt(1e7 * 4e7) = 2e7 */
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 1, 0, 2000, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 2000 * 64 * 576 / 2e7, 1e-6);
  /* M 2000 and Cout 64 sqrt(2) (half way on both axes): four corners of weight 1/4, the one
   * at M 4000, Cout 128 missing; the other three (1e7, 4e7, 1e7) share the weight */
  double n = 64 * sqrt(2.0);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 1, 0, 2000, n, 576, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 2000 * n * 576 / (1e7 * cbrt(4.0)), 1e-6);
  /* on the missing point nothing surrounds it: none (the builder prices the implicit GEMM) */
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 1, 0, 4000, 128, 576, &us), FU_EDATA);
  /* another class, dtype or layout: none (the builder then prices the implicit GEMM) */
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 1, 1, 0, 2000, 64, 64, &us), FU_EDATA);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 2, 0, 2000, 64, 576, &us), FU_EDATA);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "tf32", "fwd", 3, 1, 0, 2000, 64, 576, &us), FU_EDATA);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "wgrad", 3, 1, 0, 64, 576, 2000, &us), FU_EDATA);
  /* the JSON round trip keeps kernel and stride */
  roundtrip(p, q);
  EXPECT_INT_EQ(q->compute.nconv, 1);
  EXPECT_INT_EQ(q->compute.conv[0].kernel, 3);
  EXPECT_INT_EQ(q->compute.conv[0].stride, 1);
  EXPECT_INT_EQ(fu_compute_conv_us(&q->compute, "bf16", "fwd", 3, 1, 0, 2000, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 2000 * 64 * 576 / 2e7, 1e-6);
  /* a conv table without its kernel is refused */
  EXPECT_INT_EQ(merge("{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"m\": [1], \"n\": [1], "
                      "\"k\": [1], \"us\": [1]}]}", &q->compute), FU_EDATA);
  /* An NCHW table (calib_torch --conv-format nchw) is a key of its own: merged beside the
   * channels-last one of the same class, it leaves that one's times alone, and each format's
   * lookup finds only its own (twice the time here: 4e7 / 2 FLOP/us at M 2000) */
  const char *nchw = "{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 1, "
                     "\"format\": \"nchw\", \"m\": [2000], \"n\": [64], \"k\": [576], \"us\": [14.7456]}]}";
  EXPECT_INT_EQ(merge(nchw, &p->compute), FU_OK);
  EXPECT_INT_EQ(p->compute.nconv, 2);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 1, 1, 2000, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 14.7456, 1e-6);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 1, 0, 2000, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 2.0 * 2000 * 64 * 576 / 2e7, 1e-6);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 1, 1, 1, 2000, 64, 64, &us), FU_EDATA);
  /* "channels_last" spelled out is the default's key (it replaces table 0); the round trip
   * keeps the NCHW mark; any other format is refused */
  EXPECT_INT_EQ(merge("{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 1, "
                      "\"format\": \"channels_last\", \"m\": [2000], \"n\": [64], \"k\": [576], "
                      "\"us\": [3.6864]}]}", &p->compute), FU_OK);
  EXPECT_INT_EQ(p->compute.nconv, 2);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 1, 0, 2000, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 3.6864, 1e-6);
  roundtrip(p, q);
  EXPECT_INT_EQ(q->compute.nconv, 2);
  EXPECT_INT_EQ(fu_compute_conv_us(&q->compute, "bf16", "fwd", 3, 1, 1, 2000, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 14.7456, 1e-6);
  EXPECT_INT_EQ(merge("{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 1, "
                      "\"format\": \"nhwc\", \"m\": [1], \"n\": [1], \"k\": [1], \"us\": [1]}]}",
                      &q->compute), FU_EDATA);
  /* A grouped (depthwise) table (calib_torch --parts dwconv) is a key of its own too: merged
   * beside the dense ones of its class it replaces neither, only fu_compute_gconv_us finds it
   * (k = 9: one input channel a group x 3 x 3), and the round trip keeps its mark; "dense"
   * spelled out is the dense key; any other value is refused */
  const char *dw = "{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 1, "
                   "\"groups\": \"grouped\", \"m\": [2000], \"n\": [64], \"k\": [9], \"us\": [5.5]}]}";
  EXPECT_INT_EQ(merge(dw, &p->compute), FU_OK);
  EXPECT_INT_EQ(p->compute.nconv, 3);
  EXPECT_INT_EQ(fu_compute_gconv_us(&p->compute, "bf16", "fwd", 3, 1, 0, 2000, 64, 9, &us), FU_OK);
  EXPECT_REL(us, 5.5, 1e-6);
  EXPECT_INT_EQ(fu_compute_gconv_us(&p->compute, "bf16", "fwd", 3, 1, 1, 2000, 64, 9, &us), FU_EDATA);
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 1, 0, 2000, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 3.6864, 1e-6);
  roundtrip(p, q);
  EXPECT_INT_EQ(q->compute.nconv, 3);
  EXPECT_INT_EQ(fu_compute_gconv_us(&q->compute, "bf16", "fwd", 3, 1, 0, 2000, 64, 9, &us), FU_OK);
  EXPECT_REL(us, 5.5, 1e-6);
  EXPECT_INT_EQ(merge("{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 1, "
                      "\"groups\": \"dense\", \"m\": [2000], \"n\": [64], \"k\": [576], \"us\": [3.0]}]}",
                      &q->compute), FU_OK);
  EXPECT_INT_EQ(q->compute.nconv, 3);
  EXPECT_INT_EQ(fu_compute_conv_us(&q->compute, "bf16", "fwd", 3, 1, 0, 2000, 64, 576, &us), FU_OK);
  EXPECT_REL(us, 3.0, 1e-6);
  EXPECT_INT_EQ(merge("{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 1, "
                      "\"groups\": 32, \"m\": [1], \"n\": [1], \"k\": [1], \"us\": [1]}]}",
                      &q->compute), FU_EDATA);
  /* A grouped table of wider groups (calib_torch --parts gconv: per-group K 36 and 72, that is 4
   * and 8 input channels a group x 3 x 3) is a key apart from the depthwise one of its class: both
   * stay, a per-group K of 9 reads the depthwise table, a larger one the wider groups'. In dgrad
   * the per-group K is the second axis (n). By hand: fwd at K 36 is the point, 4.0; at K 36 sqrt 2,
   * log halfway between 36 and 72, the efficiency's log average of 2 x 2000 x 128 x 36 / 4 and
   * 2 x 2000 x 128 x 72 / 6 is 2 x 2000 x 128 x sqrt(36 x 72 / 24), so 36 sqrt 2 / sqrt(108) =
   * 4.899 us */
  const char *gw = "{\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 3, \"stride\": 1, "
                   "\"groups\": \"grouped\", \"m\": [2000], \"n\": [128], \"k\": [36, 72], \"us\": [4, 6]}, "
                   "{\"dtype\": \"bf16\", \"layout\": \"dgrad\", \"kernel\": 3, \"stride\": 1, "
                   "\"groups\": \"grouped\", \"m\": [2000], \"n\": [9], \"k\": [64], \"us\": [7]}, "
                   "{\"dtype\": \"bf16\", \"layout\": \"dgrad\", \"kernel\": 3, \"stride\": 1, "
                   "\"groups\": \"grouped\", \"m\": [2000], \"n\": [36], \"k\": [128], \"us\": [8]}]}";
  EXPECT_INT_EQ(merge(gw, &q->compute), FU_OK);
  EXPECT_INT_EQ(q->compute.nconv, 6);
  EXPECT_INT_EQ(fu_compute_gconv_us(&q->compute, "bf16", "fwd", 3, 1, 0, 2000, 64, 9, &us), FU_OK);
  EXPECT_REL(us, 5.5, 1e-6);
  EXPECT_INT_EQ(fu_compute_gconv_us(&q->compute, "bf16", "fwd", 3, 1, 0, 2000, 128, 36, &us), FU_OK);
  EXPECT_REL(us, 4.0, 1e-6);
  EXPECT_INT_EQ(fu_compute_gconv_us(&q->compute, "bf16", "fwd", 3, 1, 0, 2000, 128, 36 * sqrt(2), &us), FU_OK);
  EXPECT_REL(us, 36 * sqrt(2) / sqrt(108), 1e-6);
  EXPECT_INT_EQ(fu_compute_gconv_us(&q->compute, "bf16", "dgrad", 3, 1, 0, 2000, 9, 64, &us), FU_OK);
  EXPECT_REL(us, 7.0, 1e-6);
  EXPECT_INT_EQ(fu_compute_gconv_us(&q->compute, "bf16", "dgrad", 3, 1, 0, 2000, 36, 128, &us), FU_OK);
  EXPECT_REL(us, 8.0, 1e-6);
  roundtrip(q, p);
  EXPECT_INT_EQ(p->compute.nconv, 6);
  EXPECT_INT_EQ(fu_compute_gconv_us(&p->compute, "bf16", "dgrad", 3, 1, 0, 2000, 9, 64, &us), FU_OK);
  EXPECT_REL(us, 7.0, 1e-6);
  EXPECT_INT_EQ(fu_compute_gconv_us(&p->compute, "bf16", "fwd", 3, 1, 0, 2000, 128, 36, &us), FU_OK);
  EXPECT_REL(us, 4.0, 1e-6);
  free(p);
  free(q);
}

/* The calibration's per-call timer overhead ("timer_overhead_us", calib_torch --parts timer) comes
 * off every lookup's time: op, GEMM, conv and attention tables, by hand; never below 0; it survives
 * the JSON and a merge of tables without it; out of range is refused. */
static void test_timer(void) {
  fu_profile *p = malloc(sizeof *p), *q = malloc(sizeof *q);
  fu_profile_init(p);
  const char *doc = "{\"timer_overhead_us\": 0.5, "
                    "\"gemm\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"m\": [64], \"n\": [64], "
                    "\"k\": [64], \"us\": [4.0]}], "
                    "\"conv\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"kernel\": 1, \"stride\": 1, "
                    "\"m\": [64], \"n\": [64], \"k\": [64], \"us\": [6.0]}], "
                    "\"attention\": [{\"dtype\": \"bf16\", \"head_dim\": 64, \"causal\": 0, \"dropout\": 0, "
                    "\"seq\": 128, \"bh\": 16, \"fwd_us\": 8, \"bwd_us\": 16}], "
                    "\"ops\": [{\"op\": \"gelu\", \"dtype\": \"bf16\", \"numel\": [1e4, 1e6], "
                    "\"fwd_us\": [2, 200], \"bwd_us\": [0.25, 400], \"host_fwd_us\": 0, \"host_bwd_us\": 0}]}";
  EXPECT_INT_EQ(merge(doc, &p->compute), FU_OK);
  fu_compute *c = &p->compute;
  EXPECT_REL(c->timer_us, 0.5, 1e-12);
  const fu_op_table *g = fu_compute_op(c, "gelu", "bf16");
  EXPECT_REL(fu_op_us(c, g, 1e5, 0), 20 - 0.5, 1e-9);  /* log-log 20 us, less 0.5 */
  EXPECT_REL(fu_op_us(c, g, 4e6, 0), 800 - 0.5, 1e-9); /* above the table: 800, less 0.5 */
  EXPECT_REL(fu_op_us(c, g, 1e3, 1), 0, 1e-12);        /* 0.25 - 0.5: not below 0 */
  EXPECT_REL(fu_op_us(NULL, g, 1e5, 0), 20, 1e-9);     /* no profile: the table as measured */
  double us, f, b;
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "bf16", "fwd", 64, 64, 64, &us), FU_OK);
  EXPECT_REL(us, 3.5, 1e-6);
  EXPECT_INT_EQ(fu_compute_conv_us(c, "bf16", "fwd", 1, 1, 0, 64, 64, 64, &us), FU_OK);
  EXPECT_REL(us, 5.5, 1e-6);
  EXPECT_INT_EQ(fu_compute_attn_us(c, "bf16", 64, 0, 0.0, 0, 128, 16, &f, &b), FU_OK);
  EXPECT_REL(f, 7.5, 1e-9);
  EXPECT_REL(b, 15.5, 1e-9);
  /* a later partial calibration without the field keeps it; the JSON round trip keeps it */
  EXPECT_INT_EQ(merge("{\"ops\": [{\"op\": \"relu\", \"dtype\": \"bf16\", \"numel\": [10], "
                      "\"fwd_us\": [3], \"bwd_us\": [3], \"host_fwd_us\": 1, \"host_bwd_us\": 1}]}", c), FU_OK);
  EXPECT_REL(c->timer_us, 0.5, 1e-12);
  roundtrip(p, q);
  EXPECT_REL(q->compute.timer_us, 0.5, 1e-12);
  EXPECT_INT_EQ(fu_compute_gemm_us(&q->compute, "bf16", "fwd", 64, 64, 64, &us), FU_OK);
  EXPECT_REL(us, 3.5, 1e-6);
  /* out of range or not a number: refused */
  EXPECT_INT_EQ(merge("{\"timer_overhead_us\": -1}", c), FU_EDATA);
  EXPECT_INT_EQ(merge("{\"timer_overhead_us\": \"1\"}", c), FU_EDATA);
  free(p);
  free(q);
}

/* A partial calibration merged into tables already there: each table replaces the one of its
 * key (GEMM: dtype and layout; op: name and dtype) and leaves the others. */
static void test_merge(void) {
  fu_compute *c = malloc(sizeof *c);
  fu_compute_init(c);
  const char *first = "{\"gemm\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"m\": [64], \"n\": [64], "
                      "\"k\": [64], \"us\": [1.0]}, {\"dtype\": \"tf32\", \"layout\": \"fwd\", \"m\": [64], "
                      "\"n\": [64], \"k\": [64], \"us\": [2.0]}], \"ops\": [{\"op\": \"gelu\", \"dtype\": \"bf16\", "
                      "\"numel\": [10], \"fwd_us\": [1], \"bwd_us\": [1], \"host_fwd_us\": 5, \"host_bwd_us\": 6}, "
                      "{\"op\": \"relu\", \"dtype\": \"bf16\", \"numel\": [10], \"fwd_us\": [3], \"bwd_us\": [3], "
                      "\"host_fwd_us\": 1, \"host_bwd_us\": 1}]}";
  const char *second = "{\"gemm\": [{\"dtype\": \"bf16\", \"layout\": \"fwd\", \"m\": [64], \"n\": [64], "
                       "\"k\": [64], \"us\": [4.0]}], \"ops\": [{\"op\": \"gelu\", \"dtype\": \"bf16\", "
                       "\"numel\": [10], \"fwd_us\": [7], \"bwd_us\": [7], \"host_fwd_us\": 0, \"host_bwd_us\": 0}, "
                       "{\"op\": \"tv_resnet50\", \"dtype\": \"bf16\", \"numel\": [], \"fwd_us\": [], "
                       "\"bwd_us\": [], \"host_fwd_us\": 900, \"host_bwd_us\": 800}]}";
  const char *docs[2] = {first, second};
  for (int i = 0; i < 2; i++) EXPECT_INT_EQ(merge(docs[i], c), FU_OK);
  double us;
  EXPECT_INT_EQ(c->ngemm, 2);
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "bf16", "fwd", 64, 64, 64, &us), FU_OK);
  EXPECT_REL(us, 4.0, 1e-6); /* replaced */
  EXPECT_INT_EQ(fu_compute_gemm_us(c, "tf32", "fwd", 64, 64, 64, &us), FU_OK);
  EXPECT_REL(us, 2.0, 1e-6); /* kept */
  EXPECT_INT_EQ(c->nops, 3);
  EXPECT_REL(fu_op_us(c, fu_compute_op(c, "gelu", "bf16"), 10, 0), 7, 1e-9);  /* replaced */
  EXPECT_REL(fu_op_us(c, fu_compute_op(c, "relu", "bf16"), 10, 0), 3, 1e-9);  /* kept */
  EXPECT_REL(fu_compute_op(c, "tv_resnet50", "bf16")->host_fwd_us, 900, 1e-9); /* added */
  free(c);
}

/* The embedded default carries the H200's tables: every dtype and layout of the sweep, aligned
 * and unaligned, and the convolution classes in bf16 and TF32: channels-last measured (with
 * ConvNeXt's k4s4 and k2s2, session 45); NCHW bf16 every class measured (session 48), NCHW TF32
 * every class measured (k3s2 and k4s4 in session 45, k1s1 in 48, the rest in 49: none derived by
 * tools/derive_nchw.py, which marks the GPU whose ratio made them); the depthwise tables derived
 * from the H100's (tools/derive_gpu_ops.py --grouped-conv: marked h100) but for the channels-last
 * 7x7, measured;
 * the grouped ones of wider groups (calib_torch --parts gconv) measured (channels-last g3s2 in
 * session 48, derived from the H100's before). */
static void test_default(void) {
  fu_profile *p = malloc(sizeof *p);
  EXPECT_INT_EQ(fu_profile_load_default(p), FU_OK);
  EXPECT_INT_EQ(p->compute.ngemm, 15); /* 9 aligned, bf16 and TF32 unaligned */
  /* bf16's and TF32's aligned tables: the token axis (fwd, dgrad m; wgrad k) at the powers of two
   * 128..16384 and the 1.5x steps between (calib_torch GEMM_TOKENS, session 48): 15 values */
  int tok_tables = 0;
  for (int i = 0; i < p->compute.ngemm; i++) {
    const fu_gemm_table *t = &p->compute.gemm[i];
    if (t->unaligned || !strcmp(t->dtype, "fp32")) continue;
    int wg = !strcmp(t->layout, "wgrad"), n = wg ? t->nk : t->nm;
    const int *ax = wg ? t->k : t->m;
    tok_tables += n == 15 && ax[0] == 128 && ax[1] == 192 && ax[11] == 6144 && ax[14] == 16384;
  }
  EXPECT_INT_EQ(tok_tables, 6);
  /* dense: 2 dtypes x (4 classes x 3 layouts + the stem's 2 + k2s2's 3 + k4s4's 2) channels-last;
   * NCHW measured: 2 dtypes x 25 (4 classes x 3, the stem's 2, three patch embeddings' 2, k4s4's 2,
   * k2s2's 3); none derived */
  int measured = 0, derived = 0, nchw_measured = 0, dw = 0, dw_derived = 0, wider = 0, wider_derived = 0;
  for (int i = 0; i < p->compute.nconv; i++) {
    const fu_gemm_table *t = &p->compute.conv[i];
    dw += t->grouped == FU_CONV_DEPTHWISE;
    dw_derived += t->grouped == FU_CONV_DEPTHWISE && strstr(t->derived, "h100") != NULL;
    wider += t->grouped == FU_CONV_GROUPED;
    wider_derived += t->grouped == FU_CONV_GROUPED && t->derived[0];
    measured += !t->grouped && !t->nchw && !t->derived[0];
    derived += !t->grouped && t->nchw && strstr(t->derived, "H100") != NULL;
    nchw_measured += !t->grouped && t->nchw && !t->derived[0];
  }
  EXPECT_INT_EQ(measured, 38);
  EXPECT_INT_EQ(derived, 0);
  EXPECT_INT_EQ(nchw_measured, 50);
  /* depthwise: 2 dtypes x 2 formats x 5 classes x 3 layouts; the channels-last 7x7 measured */
  EXPECT_INT_EQ(dw, 60);
  EXPECT_INT_EQ(dw_derived, 54);
  /* wider groups: 2 dtypes x 2 formats x 2 classes x 3 layouts, all measured */
  EXPECT_INT_EQ(wider, 24);
  EXPECT_INT_EQ(wider_derived, 0);
  EXPECT_INT_EQ(p->compute.nconv, measured + derived + nchw_measured + dw + wider);
  EXPECT(p->compute.nattn > 0 && p->compute.nops > 0);
  EXPECT(p->gpu_mem_bytes > 100e9);
  double us;
  /* the plain steps' fits (the clipped ones, adamw_clip etc., join them once measured) */
  EXPECT(p->compute.noptim >= 3);
  EXPECT_INT_EQ(fu_compute_optim_us(&p->compute, "adamw", 10, 1e6, &us), FU_OK);
  EXPECT_INT_EQ(fu_compute_optim_us(&p->compute, "adam", 10, 1e6, &us), FU_OK);
  EXPECT_INT_EQ(fu_compute_optim_us(&p->compute, "sgd", 10, 1e6, &us), FU_OK);
  /* a grid point of the sweep: 8192^3 bf16 is 1.1 TFLOP; the H200 ran it at 500..1000 TFLOP/s */
  EXPECT_INT_EQ(fu_compute_gemm_us(&p->compute, "bf16", "fwd", 8192, 8192, 8192, &us), FU_OK);
  EXPECT(us > 2.0 * 8192 * 8192 * 8192 / 1e9 && us < 2.0 * 8192 * 8192 * 8192 / 5e8);
  /* ResNet-50's layer3 3x3 (M = 128 x 14 x 14, 256 -> 256): a measured point, between 100 and
   * 1000 TFLOP/s */
  EXPECT_INT_EQ(fu_compute_conv_us(&p->compute, "bf16", "fwd", 3, 1, 0, 25088, 256, 2304, &us), FU_OK);
  EXPECT(us > 2.0 * 25088 * 256 * 2304 / 1e9 && us < 2.0 * 25088 * 256 * 2304 / 1e8);
  free(p);
}

/* A source list longer than its field keeps whole entries and says how many it leaves out
 * (fu_list_fit), through fu_compute_set_source and fit --base's "base NAME: " label. Lengths by
 * hand: A is 103 bytes, B 67, C 117; "A; B" 172, "A; B; C" 291, "; and 1 more" 12. */
static void test_source(void) {
  const char *A = "GEMM: fusim calib --suite gemm sweep in data/calibration/h200-compute-2026-12-02-gemm.sql "
                  "(3264 points)";
  const char *B = "tools/calib_torch.py on NVIDIA H200 (torch 2.11.0+cu130, CUDA 13.0)";
  const char *C = "tools/calib_torch.py --parts gemm_unaligned,ops_unaligned,conv,tv,gemm on NVIDIA H200 "
                  "(torch 2.11.0+cu130, CUDA 13.0)";
  char ab[256], want[512], d[40];
  snprintf(ab, sizeof ab, "%s; %s", A, B);
  static const struct {
    size_t cap;
    const char *list, *want;
  } fit[] = {
      /* 10-byte entries in 32 bytes: "a; and 3 more" is 22, "a; b; and 2 more" 34 */
      {32, "alpha; beta; gamma", "alpha; beta; gamma"},
      {32, "aaaaaaaaaa; bbbbbbbbbb; cccccccccc; dddddddddd", "aaaaaaaaaa; and 3 more"},
      {35, "aaaaaaaaaa; bbbbbbbbbb; cccccccccc; dddddddddd", "aaaaaaaaaa; bbbbbbbbbb; and 2 more"},
      /* a marker already there counts its entries and never ends the kept run */
      {32, "aaaaaaaaaa; and 2 more; cccccccccc", "aaaaaaaaaa; and 3 more"},
      /* a first entry too long even alone: cut, "..." then the marker (8 + 3 + 12 = 23 of 24) */
      {16, "abcdefghijklmnopqrstuvwxyz0123456789", "abcdefghijkl..."},
      {24, "abcdefghijklmnopqrstuvwxyz; x", "abcdefgh...; and 1 more"},
  };
  for (size_t i = 0; i < sizeof fit / sizeof fit[0]; i++) {
    fu_list_fit(d, fit[i].cap, fit[i].list);
    EXPECT_STR_EQ(d, fit[i].want);
  }

  /* the bundled h200-default's case: C no longer fits after "A; B" (291 > 255) */
  fu_compute *c = calloc(1, sizeof *c);
  EXPECT_INT_EQ(fu_compute_set_source(c, ab, 0), FU_OK);
  EXPECT_STR_EQ(c->source, ab);
  EXPECT_INT_EQ(fu_compute_set_source(c, C, 0), FU_OK);
  snprintf(want, sizeof want, "%s; %s; and 1 more", A, B);
  EXPECT_STR_EQ(c->source, want);
  EXPECT_INT_EQ(fu_compute_set_source(c, "D", 0), FU_OK); /* one more left out */
  snprintf(want, sizeof want, "%s; %s; and 2 more", A, B);
  EXPECT_STR_EQ(c->source, want);
  EXPECT_INT_EQ(fu_compute_set_source(c, C, 1), FU_OK); /* replace_all: C alone */
  EXPECT_STR_EQ(c->source, C);
  /* the result loads: the profile loader's limit is 255 bytes */
  fu_profile *p = calloc(1, sizeof *p), *q = calloc(1, sizeof *q);
  fu_profile_init(p);
  snprintf(p->compute.source, sizeof p->compute.source, "%s; %s; and 2 more", A, B);
  roundtrip(p, q);
  EXPECT_STR_EQ(q->compute.source, p->compute.source);

  /* fit --base: "base h200-default: " (19) before today's cut 255 bytes: 274, so "...; and 1 more"
   * after A and B (19 + 172 + 12 = 203) */
  fu_profile_init(p);
  snprintf(p->name, sizeof p->name, "h200-default");
  snprintf(p->compute.source, sizeof p->compute.source, "%s; %s; %.81s", A, B, C);
  EXPECT_INT_EQ(strlen(p->compute.source), 255);
  fu_profile_init(q);
  EXPECT_INT_EQ(fu_fitgroup_profile(NULL, 0, p, "test", q), FU_OK);
  snprintf(want, sizeof want, "base h200-default: %s; %s; and 1 more", A, B);
  EXPECT_STR_EQ(q->compute.source, want);
  free(c);
  free(p);
  free(q);
}

int main(void) {
  test_source();
  test_label();
  test_gemm();
  test_widths();
  test_attn_bh();
  test_attn_gqa();
  test_optim_launches();
  test_optim_hbm();
  test_optim_cold();
  test_ops_attn_optim();
  test_json();
  test_unaligned();
  test_conv();
  test_conv_cut();
  test_merge();
  test_timer();
  test_default();
  return fu_test_report("test_compute");
}
