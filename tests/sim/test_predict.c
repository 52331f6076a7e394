/* test_predict.c: closed-form cases of the iteration prediction, each derived by hand from
 * one-segment curves (sim_util.h: all-reduce t = 20 us + n / 100 GB/s, HBM copy 5 us + n / 2000
 * GB/s, D2H 4 us + n / 55.2 GB/s), plus monotonicity, the lower bound, intervals, compute
 * slowdown, launch-bound hooks, gradient accumulation, Horovod's cycle, and the trace file. */
#include <jansson.h>
#include <stdint.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_cost.h"
#include "fu_predict.h"
#include "fu_test.h"
#include "fu_trace.h"
#include "sim_util.h"

#define MiB (1024.0 * 1024.0)
enum { NG = 10 };
static const uint64_t BYTES[NG] = {4096, 1 << 20, 65536, 8 << 20, 256, 2 << 20, 16 << 20,
                                   512 << 10, 4 << 20, 1000};
static const double FWD = 1000, BWD = 3000, OPT = 50;
static double READY[NG];

static double predict(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                      const fu_profile *prof, const size_t *counts, size_t nb, fu_result *r) {
  fu_bucket *b = su_buckets(w, counts, nb);
  int st = fu_sim_predict_buckets(w, p, c, prof, b, nb, NULL, r);
  free(b);
  if (st != FU_OK) {
    fprintf(stderr, "predict failed: %s\n", fu_strerror(st));
    return NAN;
  }
  return r->iter_us;
}

static double bsum(const size_t *counts, size_t k) { /* bytes of bucket k */
  size_t at = 0;
  for (size_t j = 0; j < k; j++) at += counts[j];
  double s = 0;
  for (size_t i = at; i < at + counts[k]; i++) s += (double)BYTES[i];
  return s;
}

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

int main(void) {
  const double tol = 1e-6; /* us: sums of ~10 doubles of ~1e4; far below any modelled cost */
  for (int i = 0; i < NG; i++) READY[i] = (i + 1) * 300.0;
  fu_workload w;
  su_workload(&w, NG, BYTES, READY, FWD, BWD, OPT);
  static fu_profile prof; /* ~3.8 MB: not on the stack */
  su_profile(&prof, 1, 1);
  fu_comm ar, off;
  su_comm_ar8(&ar);
  su_comm_offload(&off);
  fu_plan p;
  fu_result r;
  size_t none[NG], three[3] = {3, 3, 4}, single[1] = {NG};
  for (int i = 0; i < NG; i++) none[i] = 1;

  /* fu_cost_bucket by hand: pack and unpack are HBM copies of the bytes, only with copy and
   * more than one tensor; offload has no unpack; issue = op issue + one launch per kernel.
   * Copy curves (D2H, the HBM copy) were timed alone, so they include one issue (2.1 us here)
   * that the host thread pays: the device part is the curve's time less 2.1 us. */
  {
    fu_op_cost oc;
    su_plan(&p, 1, 0, 1);
    prof.launch_us = 3.0;
    prof.issue_us = 2.1;
    EXPECT_INT_EQ(fu_cost_bucket(&prof, &ar, &p, 8 << 20, 4, &oc), FU_OK);
    EXPECT_NEAR(oc.comm_us, su_ar(8 * MiB), 1e-9);
    EXPECT_NEAR(oc.pack_us, su_hbm(8 * MiB) - 2.1, 1e-9);
    EXPECT_NEAR(oc.unpack_us, su_hbm(8 * MiB) - 2.1, 1e-9);
    EXPECT_NEAR(oc.issue_us, 2.1 + 2 * 3.0, 1e-12);
    EXPECT_NEAR(oc.comm_lo_us, 0.9 * su_ar(8 * MiB), 1e-9);
    EXPECT_NEAR(oc.comm_hi_us, 1.1 * su_ar(8 * MiB), 1e-9);
    EXPECT_INT_EQ(fu_cost_bucket(&prof, &ar, &p, 8 << 20, 1, &oc), FU_OK);
    EXPECT_NEAR(oc.pack_us + oc.unpack_us, 0, 0);
    EXPECT_NEAR(oc.issue_us, 2.1, 1e-12);
    EXPECT_INT_EQ(fu_cost_bucket(&prof, &off, &p, 8 << 20, 4, &oc), FU_OK);
    EXPECT_NEAR(oc.comm_us, A_D2H + B_D2H * 8 * MiB - 2.1, 1e-9);
    EXPECT_NEAR(oc.comm_lo_us, 0.9 * (A_D2H + B_D2H * 8 * MiB) - 2.1, 1e-9);
    EXPECT_NEAR(oc.unpack_us, 0, 0);
    EXPECT_NEAR(oc.issue_us, 2.1 + 3.0, 1e-12);
    su_plan(&p, 1, 1, 1);
    EXPECT_INT_EQ(fu_cost_bucket(&prof, &ar, &p, 8 << 20, 4, &oc), FU_OK);
    EXPECT_NEAR(oc.pack_us + oc.unpack_us, 0, 0);
    prof.launch_us = prof.issue_us = 0;
  }

  /* Overlap off, one op per tensor: fwd + bwd + sum of op times + opt, exactly. */
  double sum_ar = 0;
  for (int i = 0; i < NG; i++) sum_ar += su_ar((double)BYTES[i]);
  su_plan(&p, 0, 0, 1);
  EXPECT_NEAR(predict(&w, &p, &ar, &prof, none, NG, &r), FWD + BWD + sum_ar + OPT, tol);
  EXPECT_INT_EQ(r.n_ops, NG);
  EXPECT_INT_EQ(r.fusion_buffer_bytes, 0);
  EXPECT_NEAR(r.compute_us, FWD + BWD + OPT, 0);
  EXPECT_NEAR(r.exposed_comm_us, sum_ar, tol);
  EXPECT_NEAR(r.overlap_frac, 0, 1e-12);
  EXPECT_NEAR(r.comm_us, sum_ar, tol);
  /* The interval: every op at its CI bound (alpha and beta both -10% / +10%). */
  EXPECT_NEAR(r.iter_lo_us, FWD + BWD + 0.9 * sum_ar + OPT, tol);
  EXPECT_NEAR(r.iter_hi_us, FWD + BWD + 1.1 * sum_ar + OPT, tol);
  fu_result_finish(&r);
  /* An estimated workload's compute_rel is a source of its own: every compute task -+10% moves
   * this serial step by 0.1 x (fwd + bwd + opt), the ops' bounds by 0.1 x sum_ar, and the two
   * add in quadrature; the prediction itself stays. */
  w.compute_rel = 0.1;
  double half = sqrt(pow(0.1 * (FWD + BWD + OPT), 2) + pow(0.1 * sum_ar, 2));
  EXPECT_NEAR(predict(&w, &p, &ar, &prof, none, NG, &r), FWD + BWD + sum_ar + OPT, tol);
  EXPECT_NEAR(r.iter_lo_us, FWD + BWD + sum_ar + OPT - half, tol);
  EXPECT_NEAR(r.iter_hi_us, FWD + BWD + sum_ar + OPT + half, tol);
  fu_result_finish(&r);
  w.compute_rel = 0;

  /* Overlap off, buckets 3+3+4 packed: + pack + unpack per bucket; view: without them. */
  double sum3 = 0, pack3 = 0, maxb = 0;
  for (int k = 0; k < 3; k++) {
    sum3 += su_ar(bsum(three, k));
    pack3 += 2 * su_hbm(bsum(three, k));
    if (bsum(three, k) > maxb) maxb = bsum(three, k);
  }
  EXPECT_NEAR(predict(&w, &p, &ar, &prof, three, 3, &r), FWD + BWD + sum3 + pack3 + OPT, tol);
  EXPECT_INT_EQ(r.fusion_buffer_bytes, (uint64_t)maxb);
  fu_result_finish(&r);
  su_plan(&p, 0, 1, 1);
  EXPECT_NEAR(predict(&w, &p, &ar, &prof, three, 3, &r), FWD + BWD + sum3 + OPT, tol);
  EXPECT_INT_EQ(r.fusion_buffer_bytes, 0);
  fu_result_finish(&r);

  /* Overlap off with a host issue cost of 3 us per op: the first issue waits for backward, the
   * rest hide behind the ops before them (each >= 20 us): + 3 us once. */
  prof.issue_us = 3;
  su_plan(&p, 0, 0, 1);
  EXPECT_NEAR(predict(&w, &p, &ar, &prof, none, NG, &r), FWD + BWD + 3 + sum_ar + OPT, tol);
  fu_result_finish(&r);
  prof.issue_us = 0;

  /* One bucket (overlap on; it is ready when backward ends): fwd + bwd + t(all bytes) + pack +
   * unpack + opt; with view fwd + bwd + t(all) + opt. bus_util for one uncontended op is its
   * wire time at peak over its time: (t - alpha) / t here, since algbw 100 = peak 175 / 1.75. */
  double all = bsum(single, 0);
  su_plan(&p, 1, 0, 1);
  EXPECT_NEAR(predict(&w, &p, &ar, &prof, single, 1, &r),
              FWD + BWD + su_ar(all) + 2 * su_hbm(all) + OPT, tol);
  EXPECT_NEAR(r.bus_util, (su_ar(all) - A_AR) / su_ar(all), 1e-9);
  EXPECT_INT_EQ(r.fusion_buffer_bytes, (uint64_t)all);
  EXPECT_INT_EQ(r.n_ops, 1);
  fu_result_finish(&r);
  su_plan(&p, 1, 1, 1);
  EXPECT_NEAR(predict(&w, &p, &ar, &prof, single, 1, &r), FWD + BWD + su_ar(all) + OPT, tol);
  fu_result_finish(&r);

  /* The same through fu_predict_plan with the plan module's "single" bucketing. */
  {
    fu_plan ps = p;
    ps.kind = FU_FUSION_SINGLE;
    EXPECT_INT_EQ(fu_predict_plan(&w, &ps, &ar, &prof, NULL, NULL, &r), FU_OK);
    EXPECT_NEAR(r.iter_us, FWD + BWD + su_ar(all) + OPT, tol);
    fu_result_finish(&r);
  }

  /* A link fast enough to hide communication (alpha and beta / 1000: every op ends long before
   * the next gradient, 300 us later): fwd + bwd + the last bucket's tail + opt. */
  {
    static fu_profile fast; /* ~3.8 MB: not on the stack */
    su_profile(&fast, 1e-3, 1e-3);
    double tail = 1e-3 * su_ar((double)BYTES[NG - 1]);
    su_plan(&p, 1, 0, 1);
    EXPECT_NEAR(predict(&w, &p, &ar, &fast, none, NG, &r), FWD + BWD + tail + OPT, tol);
    EXPECT_NEAR(r.overlap_frac, 1 - tail / r.comm_us, 1e-9);
    fu_result_finish(&r);
    double b2 = bsum(three, 2);
    tail = 1e-3 * su_ar(b2) + 2 * su_hbm(b2);
    EXPECT_NEAR(predict(&w, &p, &ar, &fast, three, 3, &r), FWD + BWD + tail + OPT, tol);
    fu_result_finish(&r);
  }

  /* Offload, overlap off: D2H copies back to back; packed buckets have a pack but no unpack. */
  {
    double s1 = 0, s3 = 0;
    for (int i = 0; i < NG; i++) s1 += A_D2H + B_D2H * (double)BYTES[i];
    for (int k = 0; k < 3; k++) s3 += A_D2H + B_D2H * bsum(three, k) + su_hbm(bsum(three, k));
    su_plan(&p, 0, 0, 1);
    EXPECT_NEAR(predict(&w, &p, &off, &prof, none, NG, &r), FWD + BWD + s1 + OPT, tol);
    EXPECT_NEAR(r.bus_util, 0, 1); /* defined; checked below for range */
    EXPECT(r.bus_util > 0 && r.bus_util <= 1);
    fu_result_finish(&r);
    EXPECT_NEAR(predict(&w, &p, &off, &prof, three, 3, &r), FWD + BWD + s3 + OPT, tol);
    fu_result_finish(&r);
  }

  /* Two streams, overlap off, two single-tensor buckets of B bytes: both start when backward
   * ends; 20 us fixed each (not shared), then the transfers B / 100 GB/s share NVLink at 1/2:
   * both end at 20 + 2 B / 100 GB/s, i.e. one alpha less than one stream. */
  {
    fu_workload w2;
    uint64_t b2[2] = {64 << 20, 64 << 20};
    double r2[2] = {1500, 3000};
    su_workload(&w2, 2, b2, r2, FWD, BWD, OPT);
    size_t c2[2] = {1, 1};
    su_plan(&p, 0, 0, 2);
    double B = 64 * MiB;
    EXPECT_NEAR(predict(&w2, &p, &ar, &prof, c2, 2, &r), FWD + BWD + A_AR + 2 * B * B_AR + OPT, tol);
    fu_result_finish(&r);
    su_plan(&p, 0, 0, 1);
    EXPECT_NEAR(predict(&w2, &p, &ar, &prof, c2, 2, &r), FWD + BWD + 2 * su_ar(B) + OPT, tol);
    fu_result_finish(&r);
    su_workload_free(&w2);
  }

  /* Compute slowdown 1.5 beside NCCL: two gradients of 58e6 bytes (op = 20 + 580 = 600 us),
   * ready at 1000 and 3000 of a 3000 us backward. Op 0 runs 2000..2600; compute does 400 of
   * work in those 600 us; 1600 left: backward ends at 4200; op 1 4200..4800; opt: 4850. */
  {
    fu_workload w2;
    uint64_t b2[2] = {58000000, 58000000};
    double r2[2] = {1000, 3000};
    su_workload(&w2, 2, b2, r2, FWD, BWD, OPT);
    size_t c2[2] = {1, 1};
    prof.comm_slowdown = 1.5;
    su_plan(&p, 1, 0, 1);
    EXPECT_NEAR(predict(&w2, &p, &ar, &prof, c2, 2, &r), 4850.0, tol);
    EXPECT_NEAR(r.exposed_comm_us, 800.0, tol);
    EXPECT_NEAR(r.buckets[0].start_us, 2000.0, tol);
    EXPECT_NEAR(r.buckets[1].ready_us, 4200.0, tol);
    fu_result_finish(&r);
    prof.comm_slowdown = 1;
    su_workload_free(&w2);
  }

  /* Launch-bound (hook_us = 10 per gradient): backward waits for each hook before the next
   * segment: 9 hooks inside backward, the 10th delays the first issue: + 10 x 10 us. */
  {
    w.hook_us = 10;
    su_plan(&p, 0, 0, 1);
    EXPECT_NEAR(predict(&w, &p, &ar, &prof, none, NG, &r), FWD + BWD + 100 + sum_ar + OPT, tol);
    fu_result_finish(&r);
    w.hook_us = 0;
  }

  /* Gradient accumulation over 3 micro-batches, communication on the last only. */
  {
    w.accum_steps = 3;
    su_plan(&p, 0, 0, 1);
    EXPECT_NEAR(predict(&w, &p, &ar, &prof, none, NG, &r), 3 * (FWD + BWD) + sum_ar + OPT, tol);
    EXPECT_NEAR(r.compute_us, 3 * (FWD + BWD) + OPT, 0);
    fu_result_finish(&r);
    w.accum_steps = 1;
  }

  /* Horovod cycle 1000 us from the start of backward (t = 1000): gradient 0 is ready at
   * 1300, so its bucket goes at the tick 2000; gradient 3 (ready 2200) at 3000 at the earliest. */
  {
    su_plan(&p, 1, 1, 1);
    p.kind = FU_FUSION_HOROVOD;
    p.cycle_us = 1000;
    p.cap_bytes = 64 << 20;
    predict(&w, &p, &ar, &prof, none, NG, &r);
    EXPECT_NEAR(r.buckets[0].start_us, 2000.0, tol);
    EXPECT(r.buckets[3].start_us >= 3000.0 - tol);
    fu_result_finish(&r);
  }

  /* Monotone in alpha and in beta, and never below max(compute, pure communication on one
   * stream), for several plans; random workloads for the bound. */
  {
    const double sc[] = {0.1, 0.25, 0.5, 1, 2, 4, 8};
    struct {
      int overlap, view, streams;
      const size_t *counts;
      size_t nb;
      const fu_comm *c;
    } plans[] = {{1, 0, 1, none, NG, &ar},  {1, 0, 2, three, 3, &ar}, {1, 1, 1, single, 1, &ar},
                 {1, 0, 3, none, NG, &ar},  {0, 0, 2, none, NG, &ar}, {1, 0, 1, none, NG, &off},
                 {1, 0, 2, three, 3, &off}};
    int mono = 1;
    for (size_t k = 0; k < sizeof plans / sizeof plans[0]; k++)
      for (int ab = 0; ab < 2; ab++) {
        double prev = 0;
        for (size_t s = 0; s < sizeof sc / sizeof sc[0]; s++) {
          static fu_profile q; /* ~3.8 MB: not on the stack */
          su_profile(&q, ab ? 1 : sc[s], ab ? sc[s] : 1);
          q.comm_slowdown = 1.2;
          su_plan(&p, plans[k].overlap, plans[k].view, plans[k].streams);
          double t = predict(&w, &p, plans[k].c, &q, plans[k].counts, plans[k].nb, &r);
          if (!(t >= prev - 1e-9)) {
            fprintf(stderr, "not monotone: plan %zu %s x%g: %.6f < %.6f\n", k, ab ? "beta" : "alpha",
                    sc[s], t, prev);
            mono = 0;
          }
          if (!(r.iter_lo_us <= t && t <= r.iter_hi_us)) mono = 0;
          prev = t;
          fu_result_finish(&r);
        }
      }
    EXPECT(mono);

    uint64_t seed = 7;
    int bound = 1, cases = 0;
    for (int trial = 0; trial < 200; trial++) {
      size_t n = 1 + lcg(&seed) % 60;
      uint64_t *by = malloc(n * sizeof *by);
      double *rd = malloc(n * sizeof *rd), t = 0;
      for (size_t i = 0; i < n; i++) {
        by[i] = 1 + lcg(&seed) % (32u << 20);
        t += (double)(lcg(&seed) % 2000);
        rd[i] = t;
      }
      fu_workload wr;
      su_workload(&wr, n, by, rd, 100 + lcg(&seed) % 5000, t + lcg(&seed) % 3000, lcg(&seed) % 200);
      size_t *cnt = malloc(n * sizeof *cnt), nb = 0, left = n;
      while (left) {
        size_t c = 1 + lcg(&seed) % (left < 8 ? left : 8);
        cnt[nb++] = c;
        left -= c;
      }
      su_plan(&p, (int)(lcg(&seed) % 2), (int)(lcg(&seed) % 2), 1);
      const fu_comm *c = lcg(&seed) % 3 ? &ar : &off;
      static fu_profile q; /* ~3.8 MB: not on the stack */
      su_profile(&q, 0.5 + (double)(lcg(&seed) % 100) / 20, 0.5 + (double)(lcg(&seed) % 100) / 20);
      q.comm_slowdown = 1 + (double)(lcg(&seed) % 50) / 100;
      q.issue_us = (double)(lcg(&seed) % 5);
      q.launch_us = (double)(lcg(&seed) % 5);
      double it = predict(&wr, &p, c, &q, cnt, nb, &r);
      double pure = 0;
      fu_bucket *bb = su_buckets(&wr, cnt, nb);
      for (size_t k = 0; k < nb; k++) {
        fu_op_cost oc;
        fu_cost_bucket(&q, c, &p, bb[k].bytes, cnt[k], &oc);
        pure += fu_cost_device_us(&oc);
      }
      double lb = r.compute_us > pure ? r.compute_us : pure;
      if (!(it >= lb - 1e-6)) {
        fprintf(stderr, "trial %d: iter %.3f below max(compute %.3f, comm %.3f)\n", trial, it,
                r.compute_us, pure);
        bound = 0;
      }
      cases++;
      fu_result_finish(&r);
      free(bb);
      free(cnt);
      free(by);
      free(rd);
      su_workload_free(&wr);
    }
    EXPECT(bound);
    EXPECT_INT_EQ(cases, 200);
  }

  /* Every feature at once on 300 random cases (streams 1..4, offload or all-reduce, overlap,
   * view, launch-bound hooks, Horovod cycles, accumulation, slowdowns): the engine never gets
   * stuck, lo <= iter <= hi, iter >= compute, and a second run gives the same bits. */
  {
    uint64_t seed = 11;
    int ok = 1;
    for (int trial = 0; trial < 300; trial++) {
      size_t n = 1 + lcg(&seed) % 40;
      uint64_t *by = malloc(n * sizeof *by);
      double *rd = malloc(n * sizeof *rd), t = 0;
      for (size_t i = 0; i < n; i++) {
        by[i] = 1 + lcg(&seed) % (8u << 20);
        t += (double)(lcg(&seed) % 500);
        rd[i] = t;
      }
      fu_workload wr;
      su_workload(&wr, n, by, rd, (double)(lcg(&seed) % 3000), t + (double)(lcg(&seed) % 500),
                  (double)(lcg(&seed) % 100));
      wr.accum_steps = 1 + (int)(lcg(&seed) % 3);
      if (lcg(&seed) % 3 == 0) wr.hook_us = (double)(lcg(&seed) % 20);
      if (lcg(&seed) % 3 == 0) wr.issue_us = (double)(lcg(&seed) % 20);
      size_t *cnt = malloc(n * sizeof *cnt), nb = 0, left = n;
      while (left) {
        size_t k = 1 + lcg(&seed) % (left < 6 ? left : 6);
        cnt[nb++] = k;
        left -= k;
      }
      su_plan(&p, (int)(lcg(&seed) % 2), (int)(lcg(&seed) % 2), 1 + (int)(lcg(&seed) % 4));
      if (lcg(&seed) % 4 == 0) {
        p.kind = FU_FUSION_HOROVOD;
        p.cycle_us = (double)(lcg(&seed) % 3000);
      }
      static fu_profile q; /* ~3.8 MB: not on the stack */
      su_profile(&q, 0.5 + (double)(lcg(&seed) % 40) / 10, 0.5 + (double)(lcg(&seed) % 40) / 10);
      q.comm_slowdown = 1 + (double)(lcg(&seed) % 50) / 100;
      q.copy_slowdown = 1 + (double)(lcg(&seed) % 10) / 100;
      q.issue_us = (double)(lcg(&seed) % 4);
      q.launch_us = (double)(lcg(&seed) % 4);
      const fu_comm *c = lcg(&seed) % 2 ? &ar : &off;
      fu_result r2;
      double a = predict(&wr, &p, c, &q, cnt, nb, &r);
      double b = predict(&wr, &p, c, &q, cnt, nb, &r2);
      if (!(a == b && r.sim_events == r2.sim_events && r.iter_lo_us <= a && a <= r.iter_hi_us &&
            a >= r.compute_us - 1e-6)) {
        fprintf(stderr, "random case %d: iter %.6f / %.6f [%.6f, %.6f] compute %.6f\n", trial, a,
                b, r.iter_lo_us, r.iter_hi_us, r.compute_us);
        ok = 0;
      }
      fu_result_finish(&r);
      fu_result_finish(&r2);
      free(cnt);
      free(by);
      free(rd);
      su_workload_free(&wr);
    }
    EXPECT(ok);
  }

  /* Trace: Chrome JSON that Jansson reads back: a named track per lane, one flow arrow per
   * gradient (an "s" and an "f"), a named slice per bucket, a link counter track. */
  {
    char path[] = "/tmp/fusim_trace_XXXXXX";
    int fd = mkstemp(path);
    close(fd);
    fu_trace *tr;
    EXPECT_INT_EQ(fu_trace_create(path, &tr), FU_OK);
    su_plan(&p, 1, 0, 2);
    fu_bucket *b = su_buckets(&w, three, 3);
    EXPECT_INT_EQ(fu_sim_predict_buckets(&w, &p, &ar, &prof, b, 3, tr, &r), FU_OK);
    free(b);
    EXPECT_INT_EQ(fu_trace_write(tr), FU_OK);
    fu_trace_destroy(tr);
    json_error_t err;
    json_t *root = json_load_file(path, 0, &err);
    EXPECT(root != NULL);
    json_t *evs = json_object_get(root, "traceEvents");
    size_t i, ns = 0, nf = 0, ncomm = 0, nctr = 0;
    int host = 0, s0 = 0, s1 = 0, d2h = 0;
    json_t *ev;
    json_array_foreach(evs, i, ev) {
      const char *ph = json_string_value(json_object_get(ev, "ph"));
      const char *name = json_string_value(json_object_get(ev, "name"));
      if (!ph || !name) continue;
      if (!strcmp(ph, "s")) ns++;
      if (!strcmp(ph, "f")) nf++;
      if (!strcmp(ph, "C") && !strcmp(name, "link nvlink")) nctr++;
      if (!strcmp(ph, "X") && !strncmp(name, "allreduce b", 11)) ncomm++;
      if (!strcmp(ph, "M") && !strcmp(name, "thread_name")) {
        const char *tn = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
        host |= !strcmp(tn, "host thread");
        s0 |= !strcmp(tn, "comm stream 0");
        s1 |= !strcmp(tn, "comm stream 1");
        d2h |= !strcmp(tn, "D2H copy engine");
      }
    }
    EXPECT_INT_EQ(ns, NG);
    EXPECT_INT_EQ(nf, NG);
    EXPECT_INT_EQ(ncomm, 3);
    EXPECT(nctr >= 2);
    EXPECT(host && s0 && s1 && d2h);
    json_decref(root);
    fu_result_finish(&r);
    unlink(path);
  }

  su_workload_free(&w);
  return fu_test_report("test_predict");
}
