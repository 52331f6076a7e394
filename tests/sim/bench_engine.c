/* bench_engine.c: engine speed. Builds a backward pass of N gradients as the predictor does
 * (compute segments, host issues, one NCCL op per gradient round-robin over 4 streams sharing
 * NVLink, so link rates change at most events) and times fu_engine_run alone, then
 * fu_sim_predict_buckets end to end (graph build + 3 runs: nominal, lo, hi).
 * Target (issue 3): >= 10 million events per second on one core.
 * Without --grads it measures 2,000 gradients (a large real model; the plan search's size) and
 * 200,000 (a stress case whose tasks no longer fit in cache).
 * Usage: bench_engine [--grads N] [--reps R] [--engine-only]   (callgrind: callgrind_engine.sh)
 * Times are CPU time of this process (the machine is shared). Measured here (2 cores): 2,000
 * gradients 10.6 M events/s (94 ns/event), 200,000 gradients 6.6 M events/s. Superseded completion
 * times are not events (fu_engine.h); counted, as until 2026-12-03, they made 19,267 "events" per
 * run of 8,000 and 22-25 M/s. Instructions per heap entry popped (callgrind_engine.sh,
 * fu_engine_run only, 2,000 gradients): 295, about 710 per event. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fu_common.h"
#include "fu_engine.h"
#include "fu_predict.h"
#include "sim_util.h"

/* CPU time of this process: on a machine shared with other jobs, wall time also counts the
 * time the scheduler gives to others; CPU time is what one core spent on the engine. */
static double now_s(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static uint64_t lcg(uint64_t *s) {
  *s = *s * 6364136223846793005ull + 1442695040888963407ull;
  return *s >> 33;
}

/* Runs the engine on n gradients reps times (after one warm-up run); prints and returns
 * events per second. */
static double bench_engine(long n, long reps) {
  uint64_t seed = 1;
  fu_engine e;
  fu_engine_init(&e);
  fu_engine_set_slowdown(&e, 1.1, 1.0);
  uint32_t host, comp, st[4];
  int link;
  fu_engine_lane_add(&e, "host", &host);
  fu_engine_lane_add(&e, "compute", &comp);
  for (int k = 0; k < 4; k++) fu_engine_lane_add(&e, "comm", &st[k]);
  fu_engine_link_add(&e, "nvlink", &link);
  for (long i = 0; i < n; i++) {
    fu_task_spec s;
    uint32_t seg, iss, op;
    fu_task_spec_init(&s, comp);
    s.cls = FU_TASK_COMPUTE;
    s.work_us = 5 + (double)(lcg(&seed) % 100);
    fu_engine_task_add(&e, &s, &seg);
    fu_task_spec_init(&s, host);
    s.work_us = 2.1;
    fu_engine_task_add(&e, &s, &iss);
    fu_engine_dep(&e, seg, iss);
    fu_task_spec_init(&s, st[i % 4]);
    s.cls = FU_TASK_NCCL;
    s.link = link;
    s.latency_us = 20;
    s.work_us = (double)(lcg(&seed) % 400);
    fu_engine_task_add(&e, &s, &op);
    fu_engine_dep(&e, iss, op);
  }
  if (fu_engine_run(&e) != FU_OK) return 0;
  uint64_t events = 0;
  double t0 = now_s();
  for (long r = 0; r < reps; r++) {
    fu_engine_run(&e);
    events += e.events;
  }
  double dt = now_s() - t0;
  printf("engine: %ld gradients, %zu tasks, %llu events per run, %ld runs: %.3f s, "
         "%.1f M events/s (%.1f ns/event, CPU time)\n",
         n, e.ntasks, (unsigned long long)e.events, reps, dt, events / dt / 1e6, dt / events * 1e9);
  fu_engine_finish(&e);
  return events / dt;
}

int main(int argc, char **argv) {
  long n = 0, reps = 0;
  int engine_only = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--grads") && i + 1 < argc) fu_parse_long(argv[++i], 1, 60000000, &n);
    else if (!strcmp(argv[i], "--reps") && i + 1 < argc) fu_parse_long(argv[++i], 1, 100000, &reps);
    else if (!strcmp(argv[i], "--engine-only")) engine_only = 1;
  }
  double rate;
  if (n == 0) {
    rate = bench_engine(2000, reps ? reps : 2000);
    bench_engine(200000, reps ? reps : 10);
    n = 2000;
    reps = reps ? reps : 300;
  } else {
    rate = bench_engine(n, reps ? reps : 10);
  }
  printf("target >= 10 M events/s: %s\n", rate >= 1e7 ? "met" : "NOT met");
  if (engine_only) return 0;
  uint64_t seed = 2;
  /* End to end through the predictor. */
  uint64_t *by = malloc((size_t)n * sizeof *by);
  double *rd = malloc((size_t)n * sizeof *rd), t = 0;
  size_t *cnt = malloc((size_t)n * sizeof *cnt);
  for (long i = 0; i < n; i++) {
    by[i] = 4096 + lcg(&seed) % (4u << 20);
    t += 5 + (double)(lcg(&seed) % 100);
    rd[i] = t;
    cnt[i] = 1;
  }
  fu_workload w;
  su_workload(&w, (size_t)n, by, rd, 1000, t, 0);
  static fu_profile prof; /* ~3.8 MB: not on the stack */
  su_profile(&prof, 1, 1);
  prof.comm_slowdown = 1.1;
  prof.issue_us = 2.1;
  fu_comm c;
  su_comm_ar8(&c);
  fu_plan p;
  su_plan(&p, 1, 0, 4);
  fu_bucket *b = su_buckets(&w, cnt, (size_t)n);
  fu_result res;
  long preps = reps / 3 > 0 ? reps / 3 : 1;
  uint64_t events = 0;
  double t0 = now_s();
  for (long r = 0; r < preps; r++) {
    if (fu_sim_predict_buckets(&w, &p, &c, &prof, b, (size_t)n, NULL, &res) != FU_OK) return 1;
    events += 3 * res.sim_events;
    if (r + 1 < preps) fu_result_finish(&res);
  }
  double dt = now_s() - t0;
  printf("predict: %ld gradients, %llu events per run x 3 runs, %.3f s per prediction, "
         "%.1f M events/s including graph build\n",
         n, (unsigned long long)res.sim_events, dt / preps,
         (double)events / dt / 1e6);
  fu_result_finish(&res);
  free(b);
  free(cnt);
  free(by);
  free(rd);
  su_workload_free(&w);
  return 0;
}
