/* test_cost.c: the prepared cost model (fu_cost.h) by hand: the pack kernel timed by the
 * profile's "pack" curve less its launch, the pack -> operation hand-off per packed bucket,
 * the fallbacks (d2d curve less an issue, then hbm_gbps); the engine's treatment of the
 * hand-off with one and two streams (offload copies queue on the one D2H engine in issue order,
 * so a second stream hides the pack kernels but not the hand-offs); the peak bus bandwidth
 * (best the charged curve reaches, at least the measured peak) and bus_util <= 1; and a
 * workload's notes kept through load and save. Curves are one or two segments (sim_util.h), so
 * every expected value below is written out from alpha and beta. */
#include <jansson.h>
#include <stdint.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_cost.h"
#include "fu_predict.h"
#include "fu_test.h"
#include "sim_util.h"

#define MiB (1024.0 * 1024.0)
#define A_PACK 6.0             /* pack kernel timed alone: 6 us + n / 1900 GB/s */
#define B_PACK (1.0 / 1900e3)
#define HANDOFF 7.0

static double pack_curve(double n) { return A_PACK + B_PACK * n; }
static double d2h(double n) { return A_D2H + B_D2H * n; }

/* The sim_util profile plus a pack curve, all-gather / reduce-scatter curves and host costs. */
static void profile_pack(fu_profile *p, double launch, double issue, double handoff) {
  su_profile(p, 1, 1);
  su_curve(p, "pack", "hbm", 1, A_PACK, B_PACK, 1900.0, 0.0);
  su_curve(p, "allgather", "nvlink", 8, A_AR, B_AR, 0.0, 0.1);
  su_curve(p, "reducescatter", "nvlink", 8, A_AR, B_AR, 0.0, 0.1);
  p->launch_us = launch;
  p->issue_us = issue;
  p->pack_handoff_us = handoff;
}

static void remove_curve(fu_profile *p, const char *op) {
  int m = 0;
  for (int i = 0; i < p->ncurves; i++)
    if (strcmp(p->curves[i].op, op) != 0) p->curves[m++] = p->curves[i];
  p->ncurves = m;
}

/* A cost model by hand: NVLink nodes (400 GB/s ring), 50 GB/s NICs, 2 us a call, 1 us a step
 * inside a node, 5 us across. */
static void hand_cluster(fu_cluster *c) {
  snprintf(c->intra_link, sizeof c->intra_link, "nvlink");
  c->intra_gbps = 400;
  c->nic_gbps = 50;
  c->base_us = 2;
  c->intra_step_us = 1;
  c->net_step_us = 5;
}

static void test_cost_by_hand(void) {
  static fu_profile prof; /* ~3.8 MB: not on the stack */
  profile_pack(&prof, 3.0, 2.1, HANDOFF);
  fu_comm ar, off, ag, rs;
  su_comm_ar8(&ar);
  su_comm_offload(&off);
  fu_comm_parse("allgather:8:nvlink", &ag);
  fu_comm_parse("reducescatter:8:nvlink", &rs);
  fu_plan p;
  su_plan(&p, 1, 0, 1);
  fu_op_cost oc;
  double n = 8 * MiB;
  /* All-reduce, 4 tensors packed: pack and unpack from the pack curve less one launch (3 us,
   * paid on the host), one hand-off, issue = op issue + two launches. */
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &ar, &p, 8 << 20, 4, &oc), FU_OK);
  EXPECT_NEAR(oc.pack_us, pack_curve(n) - 3.0, 1e-9);
  EXPECT_NEAR(oc.unpack_us, pack_curve(n) - 3.0, 1e-9);
  EXPECT_NEAR(oc.handoff_us, HANDOFF, 0);
  EXPECT_NEAR(oc.comm_us, su_ar(n), 1e-9);
  EXPECT_NEAR(oc.issue_us, 2.1 + 2 * 3.0, 1e-12);
  EXPECT_NEAR(fu_cost_device_us(&oc), 2 * (pack_curve(n) - 3.0) + HANDOFF + su_ar(n), 1e-9);
  /* Offload: a pack, a hand-off, the copy less its issue; no unpack. */
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &off, &p, 8 << 20, 4, &oc), FU_OK);
  EXPECT_NEAR(oc.pack_us, pack_curve(n) - 3.0, 1e-9);
  EXPECT_NEAR(oc.handoff_us, HANDOFF, 0);
  EXPECT_NEAR(oc.comm_us, d2h(n) - 2.1, 1e-9);
  EXPECT_NEAR(oc.unpack_us, 0, 0);
  EXPECT_NEAR(oc.issue_us, 2.1 + 3.0, 1e-12);
  /* All-gather packs its 1/8 share, reduce-scatter unpacks its 1/8 share. */
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &ag, &p, 8 << 20, 4, &oc), FU_OK);
  EXPECT_NEAR(oc.pack_us, pack_curve(n / 8) - 3.0, 1e-9);
  EXPECT_NEAR(oc.unpack_us, pack_curve(n) - 3.0, 1e-9);
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &rs, &p, 8 << 20, 4, &oc), FU_OK);
  EXPECT_NEAR(oc.pack_us, pack_curve(n) - 3.0, 1e-9);
  EXPECT_NEAR(oc.unpack_us, pack_curve(n / 8) - 3.0, 1e-9);
  /* One tensor, or views: nothing packed, no hand-off. */
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &off, &p, 8 << 20, 1, &oc), FU_OK);
  EXPECT_NEAR(oc.pack_us + oc.handoff_us + oc.unpack_us, 0, 0);
  EXPECT_NEAR(oc.issue_us, 2.1, 1e-12);
  su_plan(&p, 1, 1, 1);
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &ar, &p, 8 << 20, 4, &oc), FU_OK);
  EXPECT_NEAR(oc.pack_us + oc.handoff_us + oc.unpack_us, 0, 0);
  EXPECT_NEAR(oc.issue_us, 2.1, 1e-12);
  su_plan(&p, 1, 0, 1);
  /* A small pack whose curve is below the launch cost: the device part is held at 0. */
  prof.launch_us = 10.0;
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &off, &p, 4096, 2, &oc), FU_OK);
  EXPECT_NEAR(oc.pack_us, 0, 0);
  prof.launch_us = 3.0;
  /* Hand-off unknown (0), negative or NaN: none. */
  double bad[] = {0.0, -1.0, NAN};
  for (int i = 0; i < 3; i++) {
    prof.pack_handoff_us = bad[i];
    EXPECT_INT_EQ(fu_cost_bucket(&prof, &off, &p, 8 << 20, 4, &oc), FU_OK);
    EXPECT_NEAR(oc.handoff_us, 0, 0);
  }
  prof.pack_handoff_us = HANDOFF;
  /* No pack curve: the d2d curve less one issue (a copy timed alone). */
  static fu_profile q; /* ~3.8 MB: not on the stack */
  q = prof;
  remove_curve(&q, "pack");
  EXPECT_INT_EQ(fu_cost_bucket(&q, &off, &p, 8 << 20, 4, &oc), FU_OK);
  EXPECT_NEAR(oc.pack_us, su_hbm(n) - 2.1, 1e-9);
  EXPECT_NEAR(oc.handoff_us, HANDOFF, 0);
  /* Neither: bytes / hbm_gbps (2000 GB/s = 2e3 bytes per us). */
  remove_curve(&q, "d2d");
  EXPECT_INT_EQ(fu_cost_bucket(&q, &ar, &p, 8 << 20, 4, &oc), FU_OK);
  EXPECT_NEAR(oc.pack_us, n / 2e6, 1e-9);
  EXPECT_NEAR(oc.unpack_us, n / 2e6, 1e-9);
  /* Nothing to time a pack with: an error for pack=copy, fine for views. */
  q.hbm_gbps = 0;
  fu_cost_model m;
  fprintf(stderr, "(an error line about pack/unpack is expected next)\n");
  EXPECT_INT_EQ(fu_cost_model_init(&m, &q, &ar, &p), FU_EDATA);
  su_plan(&p, 1, 1, 1);
  EXPECT_INT_EQ(fu_cost_model_init(&m, &q, &ar, &p), FU_OK);
  su_plan(&p, 1, 0, 1);
  /* The prepared model gives exactly what the one-shot call gives (it is the same code), also
   * for a rank count the profile has no curve at (4 ranks: carried from 8). */
  fu_comm ar4;
  fu_comm_parse("allreduce:4:nvlink", &ar4);
  const fu_comm *cs[] = {&ar, &off, &ag, &rs, &ar4};
  uint64_t seed = 7;
  for (size_t ci = 0; ci < 5; ci++) {
    EXPECT_INT_EQ(fu_cost_model_init(&m, &prof, cs[ci], &p), FU_OK);
    for (int k = 0; k < 50; k++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      uint64_t b = (seed >> 20) % (1ull << 31);
      size_t nt = 1 + (size_t)(seed >> 60);
      fu_op_cost x, y;
      fu_cost_model_bucket(&m, b, nt, &x);
      fu_cost_bucket(&prof, cs[ci], &p, b, nt, &y);
      EXPECT(memcmp(&x, &y, sizeof x) == 0);
    }
  }
  /* The rescaled 4-rank all-reduce is fu_profile_time's own number. */
  double t;
  EXPECT_INT_EQ(fu_cost_model_init(&m, &prof, &ar4, &p), FU_OK);
  EXPECT_INT_EQ(fu_profile_time(&prof, "allreduce", "nvlink", 4, n, &t, NULL, NULL), FU_OK);
  EXPECT_INT_EQ(fu_cost_model_bucket(&m, 8 << 20, 1, &oc), FU_OK);
  EXPECT_NEAR(oc.comm_us, t, 0);
}

/* Offload, overlap off, buckets of 3 + 3 + 4 gradients, no host costs (launch 0, issue 0, so
 * every curve is device time as it is). With one stream each bucket is pack, hand-off, copy,
 * one after another:
 *   iter = fwd + bwd + sum_k (P_k + H + C_k) + opt.
 * With two streams the packs of buckets 1 and 2 run on their streams while the D2H engine
 * copies the bucket before; the engine takes the hand-offs and copies in issue order, so
 *   iter = fwd + bwd + P_0 + sum_k (H + C_k) + opt,
 * provided P_1 <= P_0 + H + C_0 and P_2 <= H + C_1 (true here: P ~ 6-14 us, C >= 24 us). */
static void test_engine_handoff(void) {
  enum { N = 10 };
  static const uint64_t bytes[N] = {1 << 20, 2 << 20, 512 << 10, 4 << 20, 1 << 20,
                                    3 << 20, 256 << 10, 2 << 20, 1 << 20, 8 << 20};
  double ready[N];
  for (int i = 0; i < N; i++) ready[i] = (i + 1) * 300.0;
  const double FWD = 1000, BWD = 3000, OPT = 50;
  fu_workload w;
  su_workload(&w, N, bytes, ready, FWD, BWD, OPT);
  static fu_profile prof; /* ~3.8 MB: not on the stack */
  profile_pack(&prof, 0, 0, HANDOFF);
  fu_comm off;
  su_comm_offload(&off);
  size_t counts[3] = {3, 3, 4};
  double P[3], C[3];
  for (int k = 0, at = 0; k < 3; k++) {
    double b = 0;
    for (size_t i = 0; i < counts[k]; i++) b += (double)bytes[at++];
    P[k] = pack_curve(b);
    C[k] = d2h(b);
  }
  EXPECT(P[1] <= P[0] + HANDOFF + C[0] && P[2] <= HANDOFF + C[1]);
  fu_bucket *bk = su_buckets(&w, counts, 3);
  fu_plan p;
  fu_result r1, r2;
  const double tol = 1e-6;
  su_plan(&p, 0, 0, 1);
  EXPECT_INT_EQ(fu_sim_predict_buckets(&w, &p, &off, &prof, bk, 3, NULL, &r1), FU_OK);
  double one = FWD + BWD + OPT;
  for (int k = 0; k < 3; k++) one += P[k] + HANDOFF + C[k];
  EXPECT_NEAR(r1.iter_us, one, tol);
  /* A bucket's pack_us holds its pack and hand-off; comm_us the copy alone. */
  for (int k = 0; k < 3; k++) {
    EXPECT_NEAR(r1.buckets[k].pack_us, P[k] + HANDOFF, tol);
    EXPECT_NEAR(r1.buckets[k].comm_us, C[k], tol);
  }
  su_plan(&p, 0, 0, 2);
  EXPECT_INT_EQ(fu_sim_predict_buckets(&w, &p, &off, &prof, bk, 3, NULL, &r2), FU_OK);
  double two = FWD + BWD + OPT + P[0];
  for (int k = 0; k < 3; k++) two += HANDOFF + C[k];
  EXPECT_NEAR(r2.iter_us, two, tol);
  EXPECT_NEAR(r1.iter_us - r2.iter_us, P[1] + P[2], tol); /* the packs hide, the hand-offs not */
  /* FIFO on the one D2H engine: each copy ends a hand-off and its own time after the one before. */
  EXPECT_NEAR(r2.buckets[1].end_us - r2.buckets[0].end_us, HANDOFF + C[1], tol);
  EXPECT_NEAR(r2.buckets[2].end_us - r2.buckets[1].end_us, HANDOFF + C[2], tol);
  fu_result_finish(&r1);
  fu_result_finish(&r2);
  /* Without a hand-off (unknown), two streams hide every pack but the first. */
  prof.pack_handoff_us = 0;
  EXPECT_INT_EQ(fu_sim_predict_buckets(&w, &p, &off, &prof, bk, 3, NULL, &r2), FU_OK);
  EXPECT_NEAR(r2.iter_us, FWD + BWD + OPT + P[0] + C[0] + C[1] + C[2], tol);
  fu_result_finish(&r2);
  /* All-reduce, one stream, overlap off: pack, hand-off, the collective, unpack per bucket. */
  prof.pack_handoff_us = HANDOFF;
  fu_comm ar;
  su_comm_ar8(&ar);
  su_plan(&p, 0, 0, 1);
  EXPECT_INT_EQ(fu_sim_predict_buckets(&w, &p, &ar, &prof, bk, 3, NULL, &r1), FU_OK);
  double arx = FWD + BWD + OPT;
  for (int k = 0, at = 0; k < 3; k++) {
    double b = 0;
    for (size_t i = 0; i < counts[k]; i++) b += (double)bytes[at++];
    arx += 2 * pack_curve(b) + HANDOFF + su_ar(b);
  }
  EXPECT_NEAR(r1.iter_us, arx, tol);
  fu_result_finish(&r1);
  free(bk);
  su_workload_free(&w);
}

/* Peak bus bandwidth and bus_util <= 1. */
static void test_peak(void) {
  fu_plan p;
  su_plan(&p, 1, 1, 1);
  fu_cost_model m;
  /* (a) A measured peak below the fit's asymptote (40 GB/s against 1 / B_D2H = 55.2 GB/s):
   * the peak is the asymptote. One copy of n bytes then has bus_util = B n / (A + B n), which
   * the old denominator (40 GB/s) would have put at 55.2 / 40 times that, above 1. */
  static fu_profile prof; /* ~3.8 MB: not on the stack */
  su_profile(&prof, 1, 1);
  prof.curves[2].peak_busbw_gbps = 40.0; /* d2h */
  fu_comm off;
  su_comm_offload(&off);
  EXPECT_INT_EQ(fu_cost_model_init(&m, &prof, &off, &p), FU_OK);
  EXPECT_NEAR(m.peak_gbps, 55.2, 1e-9);
  enum { N = 3 };
  uint64_t bytes[N] = {256ull << 20, 512ull << 20, 256ull << 20};
  double ready[N] = {1000, 2000, 3000};
  fu_workload w;
  su_workload(&w, N, bytes, ready, 1000, 3000, 50);
  size_t single[1] = {N};
  fu_bucket *b = su_buckets(&w, single, 1);
  fu_result r;
  double n = 1024.0 * MiB;
  EXPECT_INT_EQ(fu_sim_predict_buckets(&w, &p, &off, &prof, b, 1, NULL, &r), FU_OK);
  EXPECT_NEAR(r.bus_util, B_D2H * n / d2h(n), 1e-12);
  EXPECT(r.bus_util <= 1);
  fu_result_finish(&r);
  /* With a host issue of 2.1 us inside the copy curve: the charged time is t - 2.1, the
   * asymptote is unchanged, bus_util = B n / (A - 2.1 + B n). */
  prof.issue_us = 2.1;
  EXPECT_INT_EQ(fu_cost_model_init(&m, &prof, &off, &p), FU_OK);
  EXPECT_NEAR(m.peak_gbps, 55.2, 1e-9);
  EXPECT_INT_EQ(fu_sim_predict_buckets(&w, &p, &off, &prof, b, 1, NULL, &r), FU_OK);
  EXPECT_NEAR(r.bus_util, B_D2H * n / (d2h(n) - 2.1), 1e-12);
  fu_result_finish(&r);
  /* A measured peak above the fit: it stays the peak. */
  prof.curves[2].peak_busbw_gbps = 60.0;
  EXPECT_INT_EQ(fu_cost_model_init(&m, &prof, &off, &p), FU_OK);
  EXPECT_NEAR(m.peak_gbps, 60.0, 0);
  /* (b) Two segments where the first one's upper end is best: 8-rank all-reduce, 2 us +
   * 100 GB/s below 1 MiB, 30 us + 80 GB/s above, no measured peak. Bus bandwidth (factor
   * 2 * 7 / 8 = 1.75): at 1 MiB from below 1.75 * 1048576 / (2 + 10.48576 us) = 146.968 GB/s;
   * asymptote 1.75 * 80 = 140 GB/s; at 1 MiB from above less. The peak is 146.968. */
  static fu_profile two; /* ~3.8 MB: not on the stack */
  fu_profile_init(&two);
  su_curve(&two, "allreduce", "nvlink", 8, 2.0, 1.0 / 100e3, 0.0, 0.0);
  two.curves[0].seg[0].hi_bytes = 1048576;
  two.curves[0].nseg = 2;
  fu_segment *s1 = &two.curves[0].seg[1];
  *s1 = two.curves[0].seg[0];
  s1->lo_bytes = 1048576;
  s1->hi_bytes = INFINITY;
  s1->alpha_us = 30.0;
  s1->beta_us_per_byte = 1.0 / 80e3;
  two.hbm_gbps = 2000; /* times packs in the random plans below */
  fu_comm ar;
  su_comm_ar8(&ar);
  EXPECT_INT_EQ(fu_cost_model_init(&m, &two, &ar, &p), FU_OK);
  double best = 1.75 * 1048576.0 / (2.0 + 1048576.0 / 100e3) / 1e3;
  EXPECT_NEAR(m.peak_gbps, best, 1e-9);
  EXPECT_NEAR(best, 146.968, 1e-3);
  /* Every bucket's achieved bus bandwidth, and bus_util, stay within the peak: random bucket
   * sizes around the breakpoint, views and copies, one to three streams. */
  uint64_t seed = 11;
  int worst_ok = 1;
  double worst = 0;
  for (int rep = 0; rep < 200; rep++) {
    enum { K = 8 };
    uint64_t bb[K];
    double rr[K];
    for (int i = 0; i < K; i++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      bb[i] = 4096 + (seed >> 33) % (3ull << 20);
      rr[i] = (i + 1) * 100.0;
    }
    fu_workload wk;
    su_workload(&wk, K, bb, rr, 100, K * 100.0, 0);
    size_t cnt[K], nb = 0;
    for (size_t left = K; left > 0; nb++) {
      seed = seed * 6364136223846793005ull + 1442695040888963407ull;
      cnt[nb] = 1 + (seed >> 40) % left;
      left -= cnt[nb];
    }
    fu_bucket *bk = su_buckets(&wk, cnt, nb);
    su_plan(&p, rep % 2, rep % 3 == 0, 1 + rep % 3);
    const fu_profile *pf = rep % 4 == 0 ? &prof : &two;
    const fu_comm *c = rep % 4 == 0 ? &off : &ar;
    if (fu_sim_predict_buckets(&wk, &p, c, pf, bk, nb, NULL, &r) == FU_OK) {
      fu_cost_model_init(&m, pf, c, &p);
      for (size_t k = 0; k < nb; k++) {
        double bw = (double)r.buckets[k].bytes * m.busbw_factor / r.buckets[k].comm_us / 1e3;
        if (bw / m.peak_gbps > worst) worst = bw / m.peak_gbps;
        worst_ok &= bw <= m.peak_gbps * (1 + 1e-12);
      }
      worst_ok &= r.bus_util > 0 && r.bus_util <= 1;
      fu_result_finish(&r);
    } else {
      worst_ok = 0;
    }
    free(bk);
    su_workload_free(&wk);
  }
  fprintf(stderr, "peak: highest bucket bus bandwidth / peak over 200 random plans %.6f\n", worst);
  EXPECT(worst_ok);
  /* The bundled profile: "single" offload and all-reduce of a bundled workload. */
  static fu_profile bundled; /* ~3.8 MB: not on the stack */
  const char *root = getenv("FUSIM_SOURCE_ROOT");
  char path[1024];
  snprintf(path, sizeof path, "%s/data/workloads/bert_large.json", root ? root : ".");
  fu_workload bert;
  if (fu_profile_load_default(&bundled) == FU_OK && bundled.ncurves > 0 &&
      fu_workload_load(path, 0, &bert) == FU_OK) {
    fu_plan ps;
    fu_plan_init(&ps);
    ps.kind = FU_FUSION_SINGLE;
    const char *comms[] = {"offload", "allreduce:8:nvlink"};
    for (int i = 0; i < 2; i++) {
      fu_comm c;
      fu_comm_parse(comms[i], &c);
      if (fu_predict_plan(&bert, &ps, &c, &bundled, NULL, NULL, &r) != FU_OK) continue;
      EXPECT(r.bus_util > 0.5 && r.bus_util <= 1);
      fu_result_finish(&r);
    }
    fu_workload_finish(&bert);
  }
  free(b);
  su_workload_free(&w);
}

/* A workload's notes survive load -> save -> load; without notes none are written. */
static void test_notes(void) {
  const char *text =
      "{\"format\": \"fusim-workload-1\", \"name\": \"n\", \"notes\": \"estimated: 70% of peak\","
      " \"fwd_us\": 10, \"bwd_us\": 20, \"grads\": [{\"name\": \"a\", \"bytes\": 4, \"ready_us\": 20}]}";
  fu_workload w;
  EXPECT_INT_EQ(fu_workload_parse(text, "(notes)", 1, &w), FU_OK);
  EXPECT_STR_EQ(w.notes, "estimated: 70% of peak");
  char path[64];
  snprintf(path, sizeof path, "/tmp/fusim_notes_%ld.json", (long)getpid());
  EXPECT_INT_EQ(fu_workload_save(path, &w), FU_OK);
  fu_workload_finish(&w);
  EXPECT(w.notes == NULL);
  EXPECT_INT_EQ(fu_workload_load(path, 1, &w), FU_OK);
  EXPECT_STR_EQ(w.notes, "estimated: 70% of peak");
  free(w.notes);
  w.notes = NULL;
  EXPECT_INT_EQ(fu_workload_save(path, &w), FU_OK);
  fu_workload_finish(&w);
  char *saved = NULL;
  size_t len = 0;
  EXPECT_INT_EQ(fu_read_file(path, &saved, &len), FU_OK);
  EXPECT(saved && strstr(saved, "notes") == NULL);
  free(saved);
  EXPECT_INT_EQ(fu_workload_load(path, 1, &w), FU_OK);
  EXPECT(w.notes == NULL);
  fu_workload_finish(&w);
  remove(path);
  /* A notes value that is not a string is still an error, and leaves nothing behind. */
  const char *bad = "{\"format\": \"fusim-workload-1\", \"notes\": 3, \"fwd_us\": 1, \"bwd_us\": 1,"
                    " \"grads\": [{\"name\": \"a\", \"bytes\": 4, \"ready_us\": 1}]}";
  fprintf(stderr, "(an error line about notes is expected next)\n");
  EXPECT_INT_EQ(fu_workload_parse(bad, "(bad)", 1, &w), FU_EDATA);
  EXPECT(w.notes == NULL);
}

/* Pricing one operation (fu_cost_comm) where the profile's curves do not answer directly, by
 * hand on the sim_util profile (all-reduce over 8 ranks: 20 us + n / 100 GB/s, CIs +-10%). */
static void test_prices(void) {
  static fu_profile prof; /* ~3.8 MB: not on the stack */
  su_profile(&prof, 1, 1);
  fu_comm_price pr;
  /* (a) Carried from 8 ranks to 4 (no link parameters): a model's price, its interval at least
   * the model's band, so exactly t / 1.25 .. 1.25 t (the fit's +-10% is narrower). 1 KiB: the
   * interval is alpha's. */
  for (double n = 1024; n <= 64 * MiB; n *= 65536) {
    EXPECT_INT_EQ(fu_cost_comm(&prof, "allreduce", "nvlink", 4, 1, n, &pr), FU_OK);
    EXPECT_INT_EQ(pr.basis, FU_BASIS_PREDICTED);
    EXPECT_REL(pr.lo_us, pr.t_us / (1 + FU_COST_MODEL_BAND), 1e-12);
    EXPECT_REL(pr.hi_us, pr.t_us * (1 + FU_COST_MODEL_BAND), 1e-12);
  }
  /* (b) NCCL's own choice (algo "") before a curve of one algorithm at the same ranks: a ring
   * curve of 30 us listed first does not price 8 ranks. */
  su_curve(&prof, "allreduce", "nvlink", 8, 30.0, B_AR, 175.0, 0.1);
  snprintf(prof.curves[prof.ncurves - 1].algo, sizeof prof.curves[0].algo, "ring");
  fu_curve ring = prof.curves[prof.ncurves - 1];
  memmove(&prof.curves[1], &prof.curves[0], (size_t)(prof.ncurves - 1) * sizeof prof.curves[0]);
  prof.curves[0] = ring;
  EXPECT_INT_EQ(fu_cost_comm(&prof, "allreduce", "nvlink", 8, 1, MiB, &pr), FU_OK);
  EXPECT_NEAR(pr.t_us, su_ar(MiB), 1e-9);
  /* (c) One rank: busbw has no factor (nccl-tests' 2 (p - 1) / p is 0), so it is the algorithm
   * bandwidth, n / t: 1 MiB in 5 + 1 MiB / 2000 GB/s. */
  su_curve(&prof, "allreduce", "nvlink", 1, A_HBM, B_HBM, 2000.0, 0.1);
  EXPECT_INT_EQ(fu_cost_comm(&prof, "allreduce", "nvlink", 1, 1, MiB, &pr), FU_OK);
  EXPECT_REL(pr.busbw_gbps, MiB / su_hbm(MiB) / 1e3, 1e-12);
  /* (d) DDP's in-place all-reduce moves nothing over one rank, but over 2 it is the curve's:
   * 2 ranks at 20 us + n / 100 GB/s. */
  su_curve(&prof, "allreduce", "nvlink", 2, A_AR, B_AR, 100.0, 0.1);
  fu_plan p;
  su_plan(&p, 1, 1, 1);
  p.framework = FU_FRAMEWORK_DDP;
  fu_comm c;
  fu_op_cost oc;
  fu_comm_parse("allreduce:2:nvlink", &c);
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &c, &p, 1 << 20, 1, &oc), FU_OK);
  EXPECT_NEAR(oc.comm_us, su_ar(MiB), 1e-9);
  fu_comm_parse("allreduce:1", &c);
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &c, &p, 1 << 20, 1, &oc), FU_OK);
  EXPECT_NEAR(oc.comm_us, 0, 0);
  /* (e) Across nodes "net" names the network whatever the machine's own link: the cost model
   * prices 2x8 (NVLink nodes, 50 GB/s NICs). */
  hand_cluster(&prof.cluster);
  fu_curve cv;
  fu_cost_basis basis;
  EXPECT_INT_EQ(fu_cost_comm_curve(&prof, "allreduce", "net", 16, 2, &cv, &basis), FU_OK);
  EXPECT_STR_EQ(cv.algo, "model");
  EXPECT_STR_EQ(cv.link, "net");
}

/* A model price's interval is the model's own error recorded by the fit (fu_collerr.h), at least
 * FU_COST_MODEL_BAND: a 2x8 all-reduce on a profile whose multi-node error at >= 64 MiB is
 * ln(measured / model) in [-0.19, 0.28] is priced in [t / 1.25, t e^0.28] (asymmetric: e^-0.19 =
 * 0.83 lies inside /1.25), and where a band records none, in the nominal [t / 1.25, 1.25 t]. The
 * profile keeps it through its JSON; one without the key (written before it) reads as the band. */
static void test_model_error(void) {
  static fu_profile prof, back; /* ~3.8 MB each: not on the stack */
  fu_profile_init(&prof);
  snprintf(prof.name, sizeof prof.name, "hand");
  hand_cluster(&prof.cluster);
  fu_collerr *e = &prof.cluster.err[FU_COLLERR_NODES];
  e->n[2] = 5;
  e->lo[2] = -0.19;
  e->hi[2] = 0.28;
  snprintf(e->source, sizeof e->source, "hand");
  const double big = 256.0 * MiB, mid = 4.0 * MiB;
  fu_comm_price pr;
  EXPECT_INT_EQ(fu_cost_comm(&prof, "allreduce", "net", 16, 2, big, &pr), FU_OK);
  EXPECT_STR_EQ(pr.interval, "model_error");
  EXPECT_REL(pr.lo_us, pr.t_us / 1.25, 1e-12);
  EXPECT_REL(pr.hi_us, pr.t_us * exp(0.28), 1e-12);
  EXPECT_INT_EQ(fu_cost_comm(&prof, "allreduce", "net", 16, 2, mid, &pr), FU_OK);
  EXPECT_STR_EQ(pr.interval, "band");
  EXPECT_REL(pr.lo_us, pr.t_us / 1.25, 1e-12);
  EXPECT_REL(pr.hi_us, pr.t_us * 1.25, 1e-12);
  /* the engine's bucket interval is the same */
  fu_plan p;
  su_plan(&p, 1, 1, 1);
  fu_comm c;
  fu_op_cost oc;
  EXPECT_INT_EQ(fu_comm_parse("allreduce:2x8:net", &c), FU_OK);
  EXPECT_INT_EQ(fu_cost_bucket(&prof, &c, &p, (uint64_t)big, 1, &oc), FU_OK);
  EXPECT_REL(oc.comm_hi_us, oc.comm_us * exp(0.28), 1e-12);
  /* through the profile's JSON, and without the key */
  json_t *j = fu_profile_to_json(&prof);
  char *text = j ? json_dumps(j, 0) : NULL;
  EXPECT(text && fu_profile_parse(text, "round trip", &back) == FU_OK);
  EXPECT_INT_EQ(back.cluster.err[FU_COLLERR_NODES].n[2], 5);
  EXPECT_NEAR(back.cluster.err[FU_COLLERR_NODES].hi[2], 0.28, 1e-12);
  EXPECT_INT_EQ(fu_cost_comm(&back, "allreduce", "net", 16, 2, big, &pr), FU_OK);
  EXPECT_REL(pr.hi_us, pr.t_us * exp(0.28), 1e-12);
  free(text);
  json_object_del(json_object_get(j, "cluster"), "model_error");
  text = json_dumps(j, 0);
  EXPECT(text && fu_profile_parse(text, "old", &back) == FU_OK);
  EXPECT_INT_EQ(fu_cost_comm(&back, "allreduce", "net", 16, 2, big, &pr), FU_OK);
  EXPECT_STR_EQ(pr.interval, "band");
  EXPECT_REL(pr.lo_us, pr.t_us / 1.25, 1e-12);
  EXPECT_REL(pr.hi_us, pr.t_us * 1.25, 1e-12);
  free(text);
  json_decref(j);
}

int main(void) {
  test_model_error();
  test_cost_by_hand();
  test_engine_handoff();
  test_peak();
  test_notes();
  test_prices();
  return fu_test_report("sim_cost");
}
