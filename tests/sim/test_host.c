/* test_host.c: the host timeline (workload host block v2; fu_predict.c's two timelines and the
 * frameworks' costs) on cases small enough to follow by hand, and reading and writing the block.
 *
 * Workload: 2 gradients of 1 and 2 MiB. Host: forward enqueued in 100 us, the hooks fire at 50
 * and 300 us into backward(), backward() returns at 320 us, the optimizer takes 10 us. GPU-only:
 * forward 400 us, gradients ready at 200 and 250 us, backward 260 us, optimizer 20 us. Copies
 * at 10.48576 GB/s (1 MiB: 100 us). Offload over the test profile's D2H curve,
 * t = 4 us + n / 55.2 GB/s (sim_util.h). Every expected time is derived step by step in the
 * comments; the tolerance 1e-6 us is far below any modelled cost (sums of a few doubles). */
#include <jansson.h>
#include <stdint.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_host.h"
#include "fu_predict.h"
#include "fu_test.h"
#include "fu_trace.h"
#include "sim_util.h"

#define MiB 1048576.0
static const uint64_t BYTES[2] = {1 << 20, 2 << 20};
static const double READY[2] = {200, 250};

static void host_workload(fu_workload *w, double cpu1, double bwd_cpu) {
  su_workload(w, 2, BYTES, READY, 400, 260, 20);
  fu_host *h = &w->host;
  h->version = FU_HOST_VERSION;
  h->fwd_cpu_us = 100, h->bwd_cpu_us = bwd_cpu, h->opt_cpu_us = 10;
  h->fwd_gpu_us = 400, h->bwd_gpu_us = 260, h->opt_gpu_us = 20;
  h->copy_gbps = 10.48576; /* 1 MiB in 100 us */
  h->buffers = 3;
  w->grads[0].cpu_us = 50, w->grads[1].cpu_us = cpu1;
  w->grads[0].gpu_us = 200, w->grads[1].gpu_us = 250;
  h->has_ddp = 1;
  h->ddp = (fu_host_ddp){.param_us = 5, .copy_us = 4, .bucket_us = 30, .hook_bucket_us = 60,
                         .finalize_us = 7, .forward_us = 11, .buffer_us = 2};
  h->has_hooks = 1;
  h->hooks = (fu_host_hooks){.hook_us = 9, .bucket_us = 13, .noop_hook_us = 1};
}

static double run(const fu_workload *w, const fu_plan *p, const fu_comm *c, const fu_profile *prof,
                  const size_t *counts, size_t nb, fu_result *r) {
  fu_bucket *b = su_buckets(w, counts, nb);
  fu_result_finish(r); /* the previous case's buckets */
  int st = fu_sim_predict_buckets(w, p, c, prof, b, nb, NULL, r);
  free(b);
  return st == FU_OK ? r->iter_us : -st;
}

static double d2h(double bytes) { return A_D2H + B_D2H * bytes; }

/* Writes a to a scratch file and reads it back, strictly (written in ready order), into b. */
static int save_load(const fu_workload *a, fu_workload *b) {
  char path[] = "/tmp/fusim_test_host_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return FU_EIO;
  close(fd);
  int st = fu_workload_save(path, a);
  if (st == FU_OK) st = fu_workload_load(path, 1, b);
  remove(path);
  return st;
}

/* The "X" slices of a trace of w (one bucket, DDP, offload): for each, the track's name, cat,
 * name and duration, as text lines "track|cat|name|dur" in buf. */
static void trace_lines(const fu_workload *w, const fu_comm *c, const fu_profile *prof, char *buf,
                        size_t cap) {
  char path[] = "/tmp/fusim_test_host_trace_XXXXXX";
  int fd = mkstemp(path);
  buf[0] = '\0';
  if (fd < 0) return;
  close(fd);
  fu_plan p;
  su_plan(&p, 1, 0, 1);
  p.framework = w->host.version == FU_HOST_VERSION ? FU_FRAMEWORK_DDP : FU_FRAMEWORK_IDEAL;
  size_t one[1] = {2};
  fu_bucket *b = su_buckets(w, one, 1);
  fu_trace *tr = NULL;
  fu_result r;
  memset(&r, 0, sizeof r);
  EXPECT_INT_EQ(fu_trace_create(path, &tr), FU_OK);
  EXPECT_INT_EQ(fu_sim_predict_buckets(w, &p, c, prof, b, 1, tr, &r), FU_OK);
  EXPECT_INT_EQ(fu_trace_write(tr), FU_OK);
  fu_trace_destroy(tr);
  fu_result_finish(&r);
  free(b);
  json_t *root = json_load_file(path, 0, NULL), *ev;
  remove(path);
  json_t *evs = json_object_get(root, "traceEvents");
  const char *track[16] = {0};
  size_t i, k = 0;
  json_array_foreach(evs, i, ev) {
    json_int_t tid = json_integer_value(json_object_get(ev, "tid"));
    if (!strcmp(json_string_value(json_object_get(ev, "name")), "thread_name") && tid >= 0 && tid < 16)
      track[tid] = json_string_value(json_object_get(json_object_get(ev, "args"), "name"));
  }
  json_array_foreach(evs, i, ev) {
    json_int_t tid = json_integer_value(json_object_get(ev, "tid"));
    if (strcmp(json_string_value(json_object_get(ev, "ph")), "X") || tid < 0 || tid >= 16) continue;
    k += (size_t)snprintf(buf + k, k < cap ? cap - k : 0, "%s|%s|%s|%g\n", track[tid] ? track[tid] : "?",
                          json_string_value(json_object_get(ev, "cat")),
                          json_string_value(json_object_get(ev, "name")),
                          json_real_value(json_object_get(ev, "dur")));
  }
  json_decref(root);
}

int main(void) {
  const double tol = 1e-6;
  static fu_profile prof; /* ~3.8 MB: not on the stack */
  su_profile(&prof, 1, 1);
  fu_comm off;
  su_comm_offload(&off);
  fu_workload w;
  fu_result r;
  memset(&r, 0, sizeof r);
  fu_plan p;
  size_t one[1] = {2}, two[2] = {1, 1};

  /* 1. Compute alone (the result's compute_us): host fwd [0,100] seg0 [100,150] seg1 [150,400]
   *    tail [400,420] opt [420,430]. GPU: fwd [0,400]; seg0 may start when its enqueue starts
   *    (100) -> [400,600]; seg1 [600,650]; tail [650,660]; opt [660,680]. The GPU is ahead of
   *    nothing: 680 = 400 + 260 + 20. */
  host_workload(&w, 300, 320);
  su_plan(&p, 1, 0, 1);
  p.framework = FU_FRAMEWORK_DDP;
  run(&w, &p, &off, &prof, one, 1, &r);
  EXPECT_NEAR(r.compute_us, 680, tol);

  /* 2. DDP, copy mode, one bucket, offload through a Python comm hook. Host: DDP forward
   *    11 + 3 x 2 = 17 [0,17]; fwd [17,117]; seg0 [117,167]; hook0 5 + 4/2 [167,174]; seg1
   *    [174,424]; hook1 [424,431]; comm hook call 60 [431,491]; tail [491,511]; finalize
   *    7 + 2 x 4/2 [511,522]; opt [522,532]. GPU: fwd [17,417]; seg0 [417,617]; copy0 (launched
   *    at 174) [617,717]; seg1 [717,767]; copy1 (431) [767,967]; the bucket's offload starts
   *    at max(967, 491) and lasts d2h(3 MiB); tail [967,977]; the stream waits for the offload,
   *    copies 3 MiB back (300 us), then the optimizer (20). */
  double t2 = 967 + d2h(3 * MiB) + 300 + 20;
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), t2, tol);
  EXPECT_NEAR(r.compute_us, 680, tol);
  EXPECT_INT_EQ(r.n_ops, 1);
  EXPECT_NEAR(r.buckets[0].start_us, 967, tol);
  /* 2b. The same with a bucket per gradient: DDP's finalize waits and copies back bucket by
   *     bucket. Host: fwd [17,117] seg0 [117,167] hook0 [167,174] comm hook b0 [174,234] seg1
   *     [234,484] hook1 [484,491] comm hook b1 [491,551] tail [551,571] finalize [571,582] opt
   *     [582,592]. GPU: fwd [17,417] seg0 [417,617] copy0 [617,717]; b0's offload from
   *     max(717, 234) to 717 + d2h(1 MiB) = 740.0; seg1 [717,767] copy1 [767,967]; b1's offload
   *     from max(967, 551) to 967 + d2h(2 MiB) = 1009.0; tail [967,977]. Finalize: b0 ended
   *     (740), its copy back 100 [977,1077]; b1 ended (1009), its copy back 200 [1077,1277];
   *     opt 20: 1297 (waiting for both before copying 300 back would give 1009 + 320). */
  EXPECT_NEAR(run(&w, &p, &off, &prof, two, 2, &r), 1297, tol);
  EXPECT_NEAR(r.buckets[1].start_us, 967, tol);
  /* 2c. The same with the model's compute measured at 2x beside a D2H (host.beside_d2h.compute,
   *     in place of the profile's copy_slowdown 1). D1 = d2h(1 MiB), D2 = d2h(2 MiB) (> 20).
   *     seg1 (50) from 717 beside b0's offload [717, 717 + D1] at 1/2: ends 767 + D1/2; copy1
   *     200 to 967 + D1/2; b1's offload from there for D2; the tail (10) beside it at 1/2 ends
   *     987 + D1/2; b0's copy back (100) from there, at 1/2 until the offload ends
   *     (967 + D1/2 + D2), then at 1: ends 1077 + (D1 + D2)/2; b1's copy back 200, opt 20:
   *     1297 + (D1 + D2)/2. */
  w.host.d2h_compute = 2;
  EXPECT_NEAR(run(&w, &p, &off, &prof, two, 2, &r),
              1297 + (d2h(1 * MiB) + d2h(2 * MiB)) / 2, tol);
  w.host.d2h_compute = 0;

  /* 3. The same with bucket views: no copies, hooks 5 us. Host: fwd [17,117] seg0 [117,167]
   *    hook0 [167,172] seg1 [172,422] hook1 [422,427] comm hook [427,487] tail [487,507]
   *    finalize 7 [507,514] opt [514,524]. GPU: fwd [17,417] seg0 [417,617] seg1 [617,667];
   *    offload from max(667, 487); tail [667,677]; wait; opt 20. */
  p.pack_view = 1;
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), 667 + d2h(3 * MiB) + 20, tol);

  /* 3b. The frameworks' kernels at kernel_us = 3 (GPU time of one small kernel) on top of
   *     their bytes. Copy mode, comm hook (case 2): after DDP's forward [0,17] the 3 buffers'
   *     copies [17,26] on the compute stream, fwd [26,426], seg0 [426,626], copy0 103
   *     [626,729], seg1 [729,779], copy1 203 [779,982]; the offload from max(982, 491); the
   *     copy back of 2 gradients 300 + 2 x 3; opt 20. Case 2 + 9 + 3 + 3 + 6. */
  w.host.kernel_us = 3;
  p.pack_view = 0;
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), t2 + 21, tol);
  EXPECT_NEAR(r.buckets[0].start_us, 982, tol);
  /*     Views with a comm hook: DDP launches nothing per gradient; only the buffers' copies
   *     (9 us) before forward move case 3. */
  p.pack_view = 1;
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), 676 + d2h(3 * MiB) + 20, tol);
  /*     Views with DDP's default all-reduce (8 ranks, su_ar): each gradient divided in place,
   *     a kernel over its bytes (100 + 3, 200 + 3) as in copy mode. Host: DDP forward [0,17]
   *     fwd [17,117] seg0 [117,167] hook0 5 [167,172] seg1 [172,422] hook1 [422,427] all-reduce
   *     call 30 [427,457] tail [457,477] finalize 7 [477,484] opt [484,494]. GPU: buffers
   *     [17,26] fwd [26,426] seg0 [426,626] div0 [626,729] seg1 [729,779] div1 [779,982]; the
   *     all-reduce from max(982, 457) for su_ar(3 MiB) > the tail's 10 us; no copy back; opt
   *     20. */
  fu_comm ar;
  su_comm_ar8(&ar);
  EXPECT_NEAR(run(&w, &p, &ar, &prof, one, 1, &r), 982 + su_ar(3 * MiB) + 20, tol);
  EXPECT_NEAR(r.buckets[0].start_us, 982, tol);
  /*     The same over one rank, with a one-rank curve as slow as the 8-rank one: DDP's Reducer
   *     all-reduces in place, and NCCL over one rank in place moves nothing, so the bucket costs
   *     no device time (its call's 30 us on the host stay): the tail [982,992] and opt 20: 1012.
   *     The ideal framework (fusim's own executor) still pays the curve: the same as over 8 ranks,
   *     whose curve this one copies. */
  fu_comm ar1 = ar;
  ar1.ranks = 1;
  su_curve(&prof, "allreduce", "nvlink", 1, A_AR, B_AR, 175.0, 0.1);
  EXPECT_NEAR(run(&w, &p, &ar1, &prof, one, 1, &r), 1012, tol);
  EXPECT_NEAR(r.buckets[0].start_us, 982, tol);
  p.framework = FU_FRAMEWORK_IDEAL;
  double ideal8 = run(&w, &p, &ar, &prof, one, 1, &r);
  EXPECT_NEAR(run(&w, &p, &ar1, &prof, one, 1, &r), ideal8, tol);
  EXPECT_NEAR(r.buckets[0].end_us - r.buckets[0].start_us, su_ar(3 * MiB), tol);
  p.framework = FU_FRAMEWORK_DDP;
  prof.ncurves--;
  w.host.kernel_us = 0;

  /* 4. Host-bound: the second hook fires at 900 us, backward() returns at 1000 us (DDP, views,
   *    one bucket). Host: DDP forward [0,17] fwd [17,117] seg0 [117,167] hook0 [167,172] seg1
   *    850 us [172,1022] hook1 [1022,1027] comm hook [1027,1087] tail 100 us [1087,1187]
   *    finalize [1187,1194] opt [1194,1204]. GPU: seg1 [617,667] cannot end before its enqueue
   *    did (1022); the offload starts when the comm hook has issued it, 1087, and ends at
   *    1087 + d2h(3 MiB) = 1148; the tail [1087,1097] ends with its enqueue, 1187; the wait
   *    follows the finalize (1194); the optimizer [1194,1214] ends after its enqueue (1204). */
  su_workload_free(&w);
  host_workload(&w, 900, 1000);
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), 1214, tol);
  EXPECT_NEAR(r.buckets[0].start_us, 1087, tol);
  /* 4s. With an issue-spacing curve for DDP's offload comm hook over its all-reduce,
   *     [[100, 10], [1000, 100]]: the one bucket is the step's first issue, priced at the curve's
   *     far end (the previous issue was in the previous step), 100, not at the 900 us of
   *     backward's own host work before it (10 + 90 x 800 / 900 = 90), less the curve's anchor:
   *     the one gradient after the first comes 850 us after it, where the curve reads 10 + 90 x
   *     750 / 900 = 85, 75 above its first point. The comm hook's call is bucket_us 30 + 100 - 75
   *     = 55 us in place of hook_bucket_us 60, and everything after it 5 us earlier: the offload
   *     from 1082, 1209. */
  w.host.sp_offload = (fu_host_spacing){.n = 2, .apart_us = {100, 1000}, .us = {10, 100}};
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), 1209, tol);
  EXPECT_NEAR(r.buckets[0].start_us, 1082, tol);
  /*     DDP's default all-reduce is not the comm hook: the curve does not touch it. */
  fu_comm ar4;
  su_comm_ar8(&ar4);
  double with_curve = run(&w, &p, &ar4, &prof, one, 1, &r);
  w.host.sp_offload.n = 0;
  EXPECT_NEAR(run(&w, &p, &ar4, &prof, one, 1, &r), with_curve, tol);
  /* 4a. The broadcast's fixed part (20 us) where the module has buffers: DDP's forward 37 us, every
   *     host task and everything after it 20 us later: 1234. Without buffers neither the fixed
   *     part nor the 3 x 2 us per buffer: forward 11 us, 1214 - 6 = 1208. */
  w.host.ddp.broadcast_us = 20;
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), 1234, tol);
  w.host.buffers = 0;
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), 1208, tol);
  w.host.buffers = 3, w.host.ddp.broadcast_us = 0;

  /* 4b. Its interval. Each source is run on its own at its bounds (the others at their values)
   *     and the deviations from 1214 are summed in quadrature, side by side. d2h(3 MiB) = 61
   *     (the offload below); the offload's CI is the test profile's +-10%.
   *     The step's spread (GPU x 0.9 / 1.2, the host's own work x 0.95 / 1.3, together). High:
   *     host DDP forward 17 [0,17] fwd 130 [17,147] seg0 65 [147,212] hook0 5 [212,217] seg1
   *     1105 [217,1322] hook1 5 [1322,1327] comm hook 60 [1327,1387] tail 130 [1387,1517]
   *     finalize 7 [1517,1524] opt 13; GPU fwd 480 [17,497] seg0 240 seg1 60, enqueued at 1322;
   *     the offload [1387,1448]; the wait follows the finalize (1524); opt 24 [1524,1548]: +334.
   *     Low: 17, 95 [17,112], 47.5 [112,159.5], 5, 807.5 [164.5,972], 5, 60 [977,1037], tail 95
   *     [1037,1132], finalize [1132,1139]; GPU opt 18 [1139,1157]: -57.
   *     The frameworks' spread (x 0.5 / 2.0): DDP's 17 + 5 + 5 + 60 + 7 = 94 us, all on the
   *     critical host path: +94 / -47. The offload's CI: it ends (1087 + 61 x 1.1 = 1154.1) before
   *     the finalize (1194) either way: 0.
   *     High 1214 + sqrt(334^2 + 94^2) = 1560.97, low 1214 - sqrt(57^2 + 47^2) = 1140.12. (All
   *     at their bounds at once, as before, gave 1642 / 1110.) */
  w.host.step_rel_lo = -0.1, w.host.step_rel_hi = 0.2;
  w.host.host_rel_lo = -0.05, w.host.host_rel_hi = 0.3;
  w.host.fw_rel_lo = -0.5, w.host.fw_rel_hi = 1.0;
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), 1214, tol);
  EXPECT_NEAR(r.iter_lo_us, 1140.12, 0.01);
  EXPECT_NEAR(r.iter_hi_us, 1560.97, 0.01);
  /*     A block without the frameworks' spread (older captures: fw_rel = host_rel, as the
   *     reader sets it): 0.3 x 94 = 28.2 and 0.05 x 94 = 4.7: 1214 + sqrt(334^2 + 28.2^2) =
   *     1549.19, 1214 - sqrt(57^2 + 4.7^2) = 1156.81. */
  w.host.fw_rel_lo = w.host.host_rel_lo, w.host.fw_rel_hi = w.host.host_rel_hi;
  run(&w, &p, &off, &prof, one, 1, &r);
  EXPECT_NEAR(r.iter_lo_us, 1156.81, 0.01);
  EXPECT_NEAR(r.iter_hi_us, 1549.19, 0.01);
  /*     With the costs' own bounds (host.ci: DDP's param_us 3..8 around 5, hook_bucket_us
   *     40..100 around 60, the others without bounds) and no spread of their own (fw_rel 0),
   *     each cost a source: param_us, paid twice on the critical host path, -4 / +6;
   *     hook_bucket_us -20 / +40. High 1214 + sqrt(334^2 + 6^2 + 40^2) = 1550.44, low 1214 -
   *     sqrt(57^2 + 4^2 + 20^2) = 1153.46. The nominal run keeps the costs' values. */
  w.host.fw_rel_lo = 0, w.host.fw_rel_hi = 0;
  w.host.has_ci = 1;
  w.host.ddp_lo = w.host.ddp_hi = w.host.ddp;
  w.host.hooks_lo = w.host.hooks_hi = w.host.hooks;
  w.host.ddp_lo.param_us = 3, w.host.ddp_hi.param_us = 8;
  w.host.ddp_lo.hook_bucket_us = 40, w.host.ddp_hi.hook_bucket_us = 100;
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), 1214, tol);
  EXPECT_NEAR(r.iter_lo_us, 1153.46, 0.01);
  EXPECT_NEAR(r.iter_hi_us, 1550.44, 0.01);
  /*     The model's own error (jitter.model_rel 0.1: 121.4 us) in quadrature too: 1214 +
   *     sqrt(113192 + 121.4^2) = 1571.67, 1214 - sqrt(3665 + 121.4^2) = 1078.34. */
  w.host.model_rel = 0.1;
  run(&w, &p, &off, &prof, one, 1, &r);
  EXPECT_NEAR(r.iter_lo_us, 1078.34, 0.01);
  EXPECT_NEAR(r.iter_hi_us, 1571.67, 0.01);
  w.host.model_rel = 0;

  /* 5. The hook pattern, per-tensor buckets, overlap off (course text). Host: fwd [0,100] seg0
   *    [100,150] hook0 9 [150,159] seg1 [159,409] hook1 [409,418] tail [418,438] then the two
   *    issues 13 us each [438,451] [451,464], opt [464,474]. GPU: fwd [0,400] seg0 [400,600]
   *    copy0 [600,700] seg1 [700,750] copy1 [750,950] tail [950,960]; offloads after backward on
   *    the copy engine, one after the other from 960; wait; opt 20. */
  su_workload_free(&w);
  host_workload(&w, 300, 320);
  su_plan(&p, 0, 0, 1);
  p.framework = FU_FRAMEWORK_HOOKS;
  EXPECT_NEAR(run(&w, &p, &off, &prof, two, 2, &r), 960 + d2h(MiB) + d2h(2 * MiB) + 20, tol);

  /* 6. The same, overlap on: bucket 0 is issued after hook0 [159,172] (then seg1 [172,422],
   *    hook1 [422,431], issue b1 [431,444]); its offload runs from max(700, 172) = 700 to
   *    700 + d2h(1 MiB) < 950, bucket 1 from 950 (after copy1) to 950 + d2h(2 MiB); the tail
   *    [950,960] runs beside it; the optimizer waits for the offload. */
  p.overlap = 1;
  EXPECT_NEAR(run(&w, &p, &off, &prof, two, 2, &r), 950 + d2h(2 * MiB) + 20, tol);
  EXPECT_NEAR(r.buckets[0].start_us, 700, tol);

  /* 6s. Host-bound (the second hook at 900 us, backward() returns at 1000), overlap on, with the
   *     hook pattern's issue-spacing curve [[100, 20], [1600, 620]]. Bucket 0, the step's first
   *     issue, 50 us into backward, is priced at the curve's far end (620 us: its previous issue
   *     was in the previous step); bucket 1 after 850 us more of backward's own work: 20 + 0.4 x
   *     750 = 320 us. Both less the curve's anchor, 320 - 20 = 300 (the one gradient after the
   *     first is 850 us after it): 320 and 20 us. Host: fwd [0,100] seg0 [100,150] hook0
   *     [150,159] issue b0 [159,479] seg1 [479,1329] hook1 [1329,1338] issue b1 [1338,1358]
   *     tail [1358,1458] opt [1458,1468]. GPU: copy1 [1338,1538]; b1's offload from its
   *     gradient's copy, 1538, to 1538 + d2h(2 MiB), after the tail's enqueue; the optimizer
   *     waits for it: 1538 + d2h(2 MiB) + 20.
   *     Without the curve (13 us each) the issues end at 172 and 1044, copy1 [1031,1231], b1's
   *     offload [1231, 1231 + d2h(2 MiB)] outlasts the tail's enqueue (1144): 1231 + d2h + 20. */
  su_workload_free(&w);
  host_workload(&w, 900, 1000);
  su_plan(&p, 0, 0, 1);
  p.framework = FU_FRAMEWORK_HOOKS;
  p.overlap = 1;
  EXPECT_NEAR(run(&w, &p, &off, &prof, two, 2, &r), 1231 + d2h(2 * MiB) + 20, tol);
  w.host.sp_hooks = (fu_host_spacing){.n = 2, .apart_us = {100, 1600}, .us = {20, 620}};
  EXPECT_NEAR(run(&w, &p, &off, &prof, two, 2, &r), 1538 + d2h(2 * MiB) + 20, tol);
  EXPECT_NEAR(r.buckets[1].start_us, 1538, tol);
  /*     Overlap off: both issued after backward, at the per-bucket cost (13 us), curve or not. */
  p.overlap = 0;
  double off_curve = run(&w, &p, &off, &prof, two, 2, &r);
  w.host.sp_hooks.n = 0;
  EXPECT_NEAR(run(&w, &p, &off, &prof, two, 2, &r), off_curve, tol);
  su_workload_free(&w);

  /* 6d. DDP's default all-reduce with its issue-spacing curve [[100, 30], [1000, 120]] (first
   *     point at bucket_us 30) on three gradients whose hooks fire 50, 100 and 900 us into
   *     backward (backward() returns at 1000: host-bound). The curve's anchor: the gradients
   *     after the first come 50 and 800 us after the one before, where it reads 30 and
   *     30 + 90 x 700 / 900 = 100, 35 above its first point on average. Buckets {0, 1} and {2}:
   *     bucket 0, the step's first issue, keeps bucket_us, 30 (DDP's finalize, measured with
   *     one bucket for all gradients, holds a step's one far-apart bucket call already; the
   *     curve's far end would give 120 - 35 = 85); bucket 1 after 800 us of backward's own
   *     work: 100 - 35 = 65 in place of 30. Everything after it 35 us later. */
  {
    static const uint64_t b3[3] = {1 << 20, 1 << 20, 2 << 20};
    static const double r3[3] = {150, 200, 250};
    su_workload(&w, 3, b3, r3, 400, 260, 20);
    fu_host *h = &w.host;
    h->version = FU_HOST_VERSION;
    h->fwd_cpu_us = 100, h->bwd_cpu_us = 1000, h->opt_cpu_us = 10;
    h->fwd_gpu_us = 400, h->bwd_gpu_us = 260, h->opt_gpu_us = 20;
    h->copy_gbps = 1e6; /* the copies into the buckets next to nothing: the host leads */
    w.grads[0].cpu_us = 50, w.grads[1].cpu_us = 100, w.grads[2].cpu_us = 900;
    w.grads[0].gpu_us = 150, w.grads[1].gpu_us = 200, w.grads[2].gpu_us = 250;
    h->has_ddp = 1;
    h->ddp = (fu_host_ddp){.param_us = 5, .copy_us = 4, .bucket_us = 30, .hook_bucket_us = 60,
                           .finalize_us = 7, .forward_us = 11};
    su_plan(&p, 1, 0, 1);
    p.framework = FU_FRAMEWORK_DDP;
    size_t c21[2] = {2, 1};
    fu_comm ar;
    su_comm_ar8(&ar);
    double flat = run(&w, &p, &ar, &prof, c21, 2, &r);
    h->sp_ddp = (fu_host_spacing){.n = 2, .apart_us = {100, 1000}, .us = {30, 120}};
    EXPECT_NEAR(run(&w, &p, &ar, &prof, c21, 2, &r), flat + 35, tol);
    /*   One bucket for all: its one issue is the step's first, at bucket_us: as without. */
    size_t c3[1] = {3};
    double one_curve = run(&w, &p, &ar, &prof, c3, 1, &r);
    h->sp_ddp.n = 0;
    EXPECT_NEAR(run(&w, &p, &ar, &prof, c3, 1, &r), one_curve, tol);
    /*   DDP's offload comm hook is not the all-reduce: the curve does not touch it. */
    double off_flat = run(&w, &p, &off, &prof, c21, 2, &r);
    h->sp_ddp.n = 2;
    EXPECT_NEAR(run(&w, &p, &off, &prof, c21, 2, &r), off_flat, tol);
    su_workload_free(&w);
  }
  host_workload(&w, 300, 320);
  su_plan(&p, 1, 0, 1);
  p.framework = FU_FRAMEWORK_HOOKS;

  /* 7. The interval: the run's spread scales GPU and host work, operations at their CI bounds;
   *    with no spread and exact CIs the interval is the point, with spread it holds it. */
  w.host.step_rel_lo = -0.1, w.host.step_rel_hi = 0.2;
  w.host.host_rel_lo = -0.05, w.host.host_rel_hi = 0.3;
  run(&w, &p, &off, &prof, two, 2, &r);
  EXPECT(r.iter_lo_us < r.iter_us && r.iter_us < r.iter_hi_us);
  EXPECT(r.iter_hi_us >= 1.2 * (400 + 260 + 20)); /* the GPU work alone, 20% slower */

  /* 8. Framework costs asked for but not measured: one line, FU_EDATA. */
  w.host.has_hooks = 0;
  EXPECT_NEAR(run(&w, &p, &off, &prof, two, 2, &r), -FU_EDATA, 0);
  su_workload_free(&w);
  su_workload(&w, 2, BYTES, READY, 400, 260, 20); /* no host block at all */
  p.framework = FU_FRAMEWORK_DDP;
  EXPECT_NEAR(run(&w, &p, &off, &prof, two, 2, &r), -FU_EDATA, 0);
  p.framework = FU_FRAMEWORK_IDEAL; /* ideal on such a workload is the old model */
  EXPECT(run(&w, &p, &off, &prof, two, 2, &r) > 0);
  fu_result_finish(&r);
  su_workload_free(&w);

  /* 8b. The launch queue: forward makes 4 launches, backward() 8 (seg0 50/320 of its CPU time:
   *     1.25, seg1 250/320: 6.25, the tail 20/320: 0.5), the optimizer 2; at most 3 pending
   *     behind the running one, so a host task whose first launch follows n made ones cannot
   *     start before the GPU task holding launch n - 3 has ended.
   *     Compute alone (case 1's timeline): fwd host [0,100] (n = 0) GPU [0,400]. seg0's host
   *     (n = 4) waits for launch 1, in the forward task: [400,450]; its GPU [400,600], gate 600.
   *     seg1's host (n = 5.25: launch 2.25, forward's) [450,700]; GPU [600,650], gate at its
   *     enqueue's end 700. The tail's host (n = 11.5: launch 8.5, in seg1, ended 650) [700,720];
   *     GPU [700,710], gate 720. The optimizer's host (n = 12: launch 9, seg1's) [720,730]; GPU
   *     [720,740]. 740 against 680 unbounded: the host lost its lead over forward. */
  su_workload_free(&w);
  host_workload(&w, 300, 320);
  w.host.launches_fwd = 4, w.host.launches_bwd = 8, w.host.launches_opt = 2;
  w.host.queue_depth = 3;
  su_plan(&p, 1, 0, 1);
  p.framework = FU_FRAMEWORK_DDP;
  /*     DDP, copy mode, one bucket, the comm hook (case 2), every copy and the offload one launch.
   *     Host: DDP forward [0,17] (no launch: kernel_us = 0 makes no buffer copies); fwd [17,117]
   *     (GPU [17,417]); seg0 (n = 4, launch 1 in forward) [417,467], GPU [417,617]; hook0 7
   *     [467,474] launches copy0 (n = 5.25: launch 2.25, forward's) [617,717]; seg1 (n = 6.25:
   *     launch 3.25, forward's) [474,724], GPU [717,767]; hook1 (n = 12.5: launch 9.5 in seg1,
   *     ended 767) [767,774], copy1 [774,974]; the comm hook's call (n = 13.5: 10.5, seg1's) 60
   *     [774,834], the offload from copy1's end 974 for d2h(3 MiB); tail (n = 14.5: 11.5, seg1's)
   *     [834,854], GPU [974,984]; finalize 11 [854,865] launches the copy back of 2 gradients
   *     (n = 15: launch 12, seg1's), after the offload: [974 + d2h, + 300]; the optimizer's host
   *     (n = 17: launch 14, the offload's) [974 + d2h, + 10], GPU after the copy back, 20. Case 2
   *     (967 + d2h + 320) + 7: hook1 waited for seg1. */
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), 974 + d2h(3 * MiB) + 320, tol);
  EXPECT_NEAR(r.compute_us, 740, tol);
  /*     11 pending: only the optimizer's host (n = 17: launch 6, copy0's, ended 717) waits,
   *     [717,727] instead of [522,532], still before its GPU work, which follows the copy back
   *     at 967 + d2h + 300; the other tasks wait for forward (ended 417) at most, and start
   *     later anyway: case 2's and case 1's times. */
  w.host.queue_depth = 11;
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), t2, tol);
  EXPECT_NEAR(r.compute_us, 680, tol);
  w.host.queue_depth = 0; /* no bound: as before */
  EXPECT_NEAR(run(&w, &p, &off, &prof, one, 1, &r), t2, tol);
  /*     Three buckets of one gradient, one launch pending at most: DDP's finalize enqueues the
   *     buckets' copies back from its one host task, so the third copy's launch finds the first
   *     one (made by that same task) in the queue. A host task cannot wait for work it enqueued
   *     itself (fu__hg_launch waited for it and the engine stopped: FU_EINTERNAL). A bound on
   *     the queue only delays: no faster than unbounded. */
  {
    static const uint64_t b3[3] = {1 << 20, 1 << 20, 1 << 20};
    static const double r3[3] = {150, 200, 250};
    static const size_t three[3] = {1, 1, 1};
    fu_workload w3;
    su_workload(&w3, 3, b3, r3, 400, 260, 20);
    w3.host = w.host; /* the block above (its arrays stay w's) */
    w3.grads[0].cpu_us = 50, w3.grads[1].cpu_us = 150, w3.grads[2].cpu_us = 300;
    w3.grads[0].gpu_us = 150, w3.grads[1].gpu_us = 200, w3.grads[2].gpu_us = 250;
    w3.host.queue_depth = 0;
    double unbounded = run(&w3, &p, &off, &prof, three, 3, &r);
    w3.host.queue_depth = 1;
    double bounded = run(&w3, &p, &off, &prof, three, 3, &r);
    EXPECT(unbounded > 0);
    EXPECT_NEAR(bounded > 0 ? 0 : bounded, 0, 0); /* -70 (FU_EINTERNAL) before the fix */
    EXPECT(bounded >= unbounded - tol);
    su_workload_free(&w3);
  }

  /* 9. Reading and writing the block. */
  const char *text =
      "{\"format\": \"fusim-workload-1\", \"name\": \"h\", \"fwd_us\": 400, \"bwd_us\": 260,"
      " \"opt_us\": 20, \"grads\": [{\"name\": \"b\", \"bytes\": 8, \"ready_us\": 250},"
      " {\"name\": \"a\", \"bytes\": 4, \"ready_us\": 200}],"
      " \"host\": {\"version\": 2, \"fwd_cpu_us\": 100, \"bwd_cpu_us\": 320, \"opt_cpu_us\": 10,"
      " \"fwd_gpu_us\": 400, \"bwd_gpu_us\": 260, \"opt_gpu_us\": 20, \"buffers\": 3,"
      " \"copy_gbps\": 1900, \"kernel_us\": 2.5, \"fwd_points\": [[10, 50], [60, 300]],"
      " \"grad_cpu_us\": [300, 50], \"grad_gpu_us\": [250, 200],"
      " \"jitter\": {\"step_rel_lo\": -0.02, \"step_rel_hi\": 0.05, \"host_rel_lo\": -0.1,"
      " \"host_rel_hi\": 0.3, \"model_rel\": 0.015},"
      " \"ddp\": {\"param_us\": 5, \"copy_us\": 4, \"bucket_us\": 30, \"hook_bucket_us\": 60,"
      " \"finalize_us\": 7, \"forward_us\": 11, \"buffer_us\": 2, \"broadcast_us\": 15},"
      " \"hooks\": {\"hook_us\": 9, \"bucket_us\": 13, \"noop_hook_us\": 1},"
      " \"launches\": {\"fwd\": 151, \"bwd\": 311, \"opt\": 3}, \"queue_depth\": 1021,"
      " \"beside_d2h\": {\"compute\": 1.016}}}";
  fu_workload a, b;
  EXPECT_INT_EQ(fu_workload_parse(text, "h.json", 0, &a), FU_OK); /* sorted: a first */
  EXPECT_INT_EQ(a.host.version, 2);
  EXPECT_STR_EQ(a.grads[0].name, "a");
  EXPECT_NEAR(a.grads[0].cpu_us, 50, 0); /* the per-gradient times moved with their gradient */
  EXPECT_NEAR(a.grads[0].gpu_us, 200, 0);
  EXPECT_NEAR(a.grads[1].cpu_us, 300, 0);
  EXPECT_INT_EQ((long long)a.host.nfwd, 2);
  EXPECT_NEAR(a.host.fwd_gpu[1], 300, 0);
  EXPECT_NEAR(a.host.ddp.hook_bucket_us, 60, 0);
  EXPECT_NEAR(a.host.hooks.bucket_us, 13, 0);
  EXPECT_NEAR(a.host.host_rel_hi, 0.3, 0);
  EXPECT_NEAR(a.host.fw_rel_lo, -0.1, 0); /* no fw_rel in the block: host_rel's */
  EXPECT_NEAR(a.host.fw_rel_hi, 0.3, 0);
  EXPECT_INT_EQ(a.host.buffers, 3);
  EXPECT_NEAR(a.host.launches_bwd, 311, 0);
  EXPECT_INT_EQ(a.host.queue_depth, 1021);
  EXPECT_INT_EQ(save_load(&a, &b), FU_OK);
  EXPECT_NEAR(b.grads[1].cpu_us, 300, 0);
  EXPECT_NEAR(b.host.fwd_cpu[0], 10, 0);
  EXPECT_NEAR(b.host.ddp.finalize_us, 7, 0);
  EXPECT_NEAR(b.host.ddp.broadcast_us, 15, 0); /* optional: read, and written back */
  EXPECT_NEAR(b.host.copy_gbps, 1900, 0);
  EXPECT_NEAR(b.host.kernel_us, 2.5, 0);
  EXPECT_NEAR(b.host.step_rel_lo, -0.02, 0);
  EXPECT_NEAR(b.host.fw_rel_hi, 0.3, 0); /* written out, so it reads back the same */
  EXPECT_NEAR(b.host.model_rel, 0.015, 0);
  EXPECT_NEAR(b.host.launches_fwd, 151, 0);
  EXPECT_NEAR(b.host.launches_opt, 3, 0);
  EXPECT_INT_EQ(b.host.queue_depth, 1021);
  EXPECT_NEAR(b.host.d2h_compute, 1.016, 0); /* optional: read, and written back */
  fu_workload_finish(&a);
  fu_workload_finish(&b);
  /* The frameworks' own spread, where the block gives it. */
  char withfw[2048];
  const char *jit = "\"host_rel_hi\": 0.3, \"model_rel\": 0.015},";
  const char *at = strstr(text, jit);
  EXPECT(at != NULL);
  if (at) {
    snprintf(withfw, sizeof withfw, "%.*s\"host_rel_hi\": 0.3, \"model_rel\": 0.015, \"fw_rel_lo\": -0.277,"
             " \"fw_rel_hi\": 0.747},%s", (int)(at - text), text, at + strlen(jit));
    EXPECT_INT_EQ(fu_workload_parse(withfw, "h.json", 0, &a), FU_OK);
    EXPECT_NEAR(a.host.fw_rel_lo, -0.277, 0);
    EXPECT_NEAR(a.host.fw_rel_hi, 0.747, 0);
    EXPECT_NEAR(a.host.host_rel_lo, -0.1, 0);
    fu_workload_finish(&a);
  }
  /* The costs' bounds: those given, the others at the cost's value; written back out. */
  const char *hk = "\"hooks\": {";
  at = strstr(text, hk);
  EXPECT(at != NULL);
  if (at) {
    snprintf(withfw, sizeof withfw, "%.*s\"ci\": {\"ddp\": {\"param_us\": [4, 6.5]},"
             " \"hooks\": {\"bucket_us\": [0, 20]}}, %s", (int)(at - text), text, at);
    EXPECT_INT_EQ(fu_workload_parse(withfw, "h.json", 0, &a), FU_OK);
    EXPECT_INT_EQ(a.host.has_ci, 1);
    EXPECT_NEAR(a.host.ddp_lo.param_us, 4, 0);
    EXPECT_NEAR(a.host.ddp_hi.param_us, 6.5, 0);
    EXPECT_NEAR(a.host.ddp.param_us, 5, 0);
    EXPECT_NEAR(a.host.ddp_lo.bucket_us, 30, 0);
    EXPECT_NEAR(a.host.hooks_hi.bucket_us, 20, 0);
    EXPECT_NEAR(a.host.hooks_lo.hook_us, 9, 0);
    EXPECT_INT_EQ(save_load(&a, &b), FU_OK);
    EXPECT_INT_EQ(b.host.has_ci, 1);
    EXPECT_NEAR(b.host.ddp_hi.param_us, 6.5, 0);
    EXPECT_NEAR(b.host.hooks_lo.bucket_us, 0, 0);
    EXPECT_NEAR(b.host.ddp_lo.finalize_us, 7, 0);
    fu_workload_finish(&a);
    fu_workload_finish(&b);
  }
  /* The issue-spacing curves: read, and written back out. */
  at = strstr(text, hk);
  if (at) {
    snprintf(withfw, sizeof withfw, "%.*s\"issue_spacing\": {\"hooks\": [[80, 30], [800, 90]],"
             " \"ddp_offload\": [[100, 40]], \"ddp\": [[90, 35], [900, 95]]}, %s",
             (int)(at - text), text, at);
    EXPECT_INT_EQ(fu_workload_parse(withfw, "h.json", 0, &a), FU_OK);
    EXPECT_INT_EQ((long long)a.host.sp_hooks.n, 2);
    EXPECT_NEAR(a.host.sp_hooks.apart_us[1], 800, 0);
    EXPECT_NEAR(a.host.sp_hooks.us[1], 90, 0);
    EXPECT_INT_EQ((long long)a.host.sp_offload.n, 1);
    EXPECT_INT_EQ(save_load(&a, &b), FU_OK);
    EXPECT_INT_EQ((long long)b.host.sp_hooks.n, 2);
    EXPECT_NEAR(b.host.sp_hooks.us[0], 30, 0);
    EXPECT_NEAR(b.host.sp_offload.apart_us[0], 100, 0);
    EXPECT_NEAR(b.host.sp_offload.us[0], 40, 0);
    EXPECT_INT_EQ((long long)b.host.sp_ddp.n, 2);
    EXPECT_NEAR(b.host.sp_ddp.apart_us[1], 900, 0);
    EXPECT_NEAR(b.host.sp_ddp.us[1], 95, 0);
    fu_workload_finish(&a);
    fu_workload_finish(&b);
  }
  /* The older block still loads, as version 1 (read as before: the ideal framework). */
  EXPECT_INT_EQ(fu_workload_parse("{\"format\": \"fusim-workload-1\", \"fwd_us\": 1, \"bwd_us\": 2,"
                                  " \"grads\": [{\"name\": \"a\", \"bytes\": 4, \"ready_us\": 1}],"
                                  " \"host\": {\"hook_us\": 3, \"issue_us\": 4}}", "old", 1, &a),
                FU_OK);
  EXPECT_INT_EQ(a.host.version, 1);
  EXPECT_NEAR(a.hook_us, 3, 0);
  fu_workload_finish(&a);
  /* Bad blocks: one line naming the field, FU_EDATA. */
  const char *bad[] = {"\"version\": 3", "\"version\": 2, \"fwd_cpu_us\": 1",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1, 2], \"grad_gpu_us\": [1]",
                       "\"version\": 2, \"fwd_cpu_us\": -1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1]",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1], \"jitter\": {\"fw_rel_lo\": 0.2}",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1], \"jitter\": {\"model_rel\": -0.1}",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1], \"kernel_us\": -2",
                       /* a queue depth without the launches it bounds, a fractional depth,
                        * launches without the optimizer's */
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1], \"queue_depth\": 1021",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1], \"queue_depth\": 10.5,"
                       " \"launches\": {\"fwd\": 1, \"bwd\": 1, \"opt\": 1}",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1], \"queue_depth\": 10,"
                       " \"launches\": {\"fwd\": 1, \"bwd\": 1}",
                       /* bounds the wrong way round, an unknown cost, a lone number */
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1],"
                       " \"ci\": {\"ddp\": {\"param_us\": [6, 4]}}",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1],"
                       " \"ci\": {\"hooks\": {\"param_us\": [1, 2]}}",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1],"
                       " \"ci\": {\"ddp\": {\"param_us\": 4}}",
                       /* a slowdown below 1 */
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1],"
                       " \"beside_d2h\": {\"compute\": 0.9}",
                       /* issue-spacing points out of order, a negative cost, none at all */
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1],"
                       " \"issue_spacing\": {\"hooks\": [[800, 30], [80, 90]]}",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1],"
                       " \"issue_spacing\": {\"ddp_offload\": [[80, -1]]}",
                       "\"version\": 2, \"fwd_cpu_us\": 1, \"bwd_cpu_us\": 1, \"opt_cpu_us\": 1,"
                       " \"fwd_gpu_us\": 1, \"bwd_gpu_us\": 1, \"opt_gpu_us\": 1,"
                       " \"grad_cpu_us\": [1], \"grad_gpu_us\": [1],"
                       " \"issue_spacing\": {\"hooks\": []}"};
  for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
    char doc[1024];
    snprintf(doc, sizeof doc,
             "{\"format\": \"fusim-workload-1\", \"fwd_us\": 1, \"bwd_us\": 2, \"grads\": "
             "[{\"name\": \"a\", \"bytes\": 4, \"ready_us\": 1}], \"host\": {%s}}", bad[k]);
    EXPECT_INT_EQ(fu_workload_parse(doc, "bad", 0, &a), FU_EDATA);
  }
  /* The trace of 3 micro-batches. Host timeline: a micro-batch before the last is one host
   * task (forward and backward enqueued: 100 + 320 us) and one GPU task (400 + 260 us), so both
   * are "forward+backward m"; the last's forward is "forward 2" on both tracks (100, 400 us).
   * Every host-thread slice says host in its cat: "host,workload" for the workload's own work,
   * "host" for the framework's costs (DDP's forward, hooks, issues, finalize); the compute
   * stream's say "compute". Without a host block the compute stream has "forward m" and
   * "backward m" (400, 260) as before. */
  {
    static char buf[16384];
    host_workload(&w, 300, 320);
    w.accum_steps = 3;
    trace_lines(&w, &off, &prof, buf, sizeof buf);
    EXPECT(strstr(buf, "host thread|host,workload|forward+backward 0|420\n") != NULL);
    EXPECT(strstr(buf, "host thread|host,workload|forward+backward 1|420\n") != NULL);
    EXPECT(strstr(buf, "compute stream|compute|forward+backward 0|660\n") != NULL);
    EXPECT(strstr(buf, "compute stream|compute|forward+backward 1|660\n") != NULL);
    EXPECT(strstr(buf, "host thread|host,workload|forward 2|100\n") != NULL);
    EXPECT(strstr(buf, "compute stream|compute|forward 2|400\n") != NULL);
    EXPECT(strstr(buf, "host thread|host,workload|bwd -> layer0.weight|50\n") != NULL);
    EXPECT(strstr(buf, "host thread|host,workload|optimizer|10\n") != NULL);
    EXPECT(strstr(buf, "host thread|host|DDP forward|") != NULL);
    EXPECT(strstr(buf, "host thread|host|hook layer0.weight|") != NULL);
    EXPECT(strstr(buf, "host thread|host|issue b0|") != NULL);
    EXPECT(strstr(buf, "|forward 0|") == NULL && strstr(buf, "|backward 0|") == NULL);
    EXPECT(strstr(buf, "host thread|compute|") == NULL);
    su_workload_free(&w);
    host_workload(&w, 300, 320);
    w.accum_steps = 3;
    w.host.version = 0; /* no host timeline */
    trace_lines(&w, &off, &prof, buf, sizeof buf);
    EXPECT(strstr(buf, "compute stream|compute|forward 0|400\n") != NULL);
    EXPECT(strstr(buf, "compute stream|compute|backward 1|260\n") != NULL);
    EXPECT(strstr(buf, "compute stream|compute|forward 2|400\n") != NULL);
    EXPECT(strstr(buf, "forward+backward") == NULL);
    su_workload_free(&w);
  }
  return fu_test_report("sim_host");
}
