/* fuzz_sim.c: libFuzzer harnesses over the simulator's readers, one per build (-DFUZZ_READER=):
 *   1 workload  the input is a workload file (fu_workload_parse), predicted under several plans;
 *   2 profile   the input is a profile file (fu_profile_parse), pricing a fixed workload;
 *   3 plan      the input is a plan file (fu_plan_parse_json) or, when it is not JSON, a --fusion
 *               value (its first line), applied to a fixed workload;
 *   4 buckets   the input is a bucket file (buckets:FILE, written to a private temporary file),
 *               applied to a fixed workload.
 * Every accepted input drives fu_predict_plan to the end; the harness then checks what a result
 * promises (finite, non-negative times, the interval around the iteration, bus_util <= 1, every
 * gradient in exactly one bucket) and aborts when a promise is broken. A failure must have
 * printed its reason (fu_error), which the harness cannot see; it checks the status instead.
 * Inputs holding a NUL byte are skipped: fu_read_file refuses them before any reader runs.
 * Time limit per input: libFuzzer's -timeout (30 s in tests/fuzz/run_sim.sh: wall time, on a
 * shared machine a 10 s limit fired on an input that runs in 0.1 s), and 10 s of alarm() in
 * replay.c. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_profile.h"
#include "fu_search.h"
#include "fu_resolve.h"
#include "fu_workload.h"

#ifndef FUZZ_READER
#define FUZZ_READER 1
#endif

#if FUZZ_READER != 1
/* The workload every reader but the workload one predicts: six gradients of mixed sizes. */
static const char fu__fixed_workload[] =
    "{\"format\": \"fusim-workload-1\", \"name\": \"fuzz\", \"fwd_us\": 1000, \"bwd_us\": 2000,"
    " \"opt_us\": 100, \"grads\": ["
    "{\"name\": \"a\", \"bytes\": 4096, \"ready_us\": 100},"
    "{\"name\": \"b\", \"bytes\": 1048576, \"ready_us\": 400},"
    "{\"name\": \"c\", \"bytes\": 64, \"ready_us\": 401},"
    "{\"name\": \"d\", \"bytes\": 33554432, \"ready_us\": 1200},"
    "{\"name\": \"e\", \"bytes\": 262144, \"ready_us\": 1900},"
    "{\"name\": \"f\", \"bytes\": 8388608, \"ready_us\": 2000}]}";
#endif

/* Checks what a successful prediction promises; aborts (the fuzzer's finding) otherwise. */
static void fu__check_result(const fu_workload *w, const fu_result *r) {
  const double t[] = {r->iter_us, r->iter_lo_us, r->iter_hi_us, r->compute_us, r->comm_us,
                      r->exposed_comm_us, r->overlap_frac, r->bus_util};
  for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
    if (!isfinite(t[i]) || t[i] < 0) abort();
  /* the interval holds the nominal time (relative slack for rounding in the three runs) */
  double slack = 1e-9 * r->iter_us + 1e-6;
  if (r->iter_lo_us > r->iter_us + slack || r->iter_hi_us < r->iter_us - slack) abort();
  if (r->bus_util > 1 + 1e-9 || r->overlap_frac > 1 + 1e-12) abort();
  if (r->n_ops < 1 || r->nbuckets < 1 || !r->buckets) abort();
  /* the buckets are consecutive runs of the ready order that cover every gradient once */
  size_t next = 0;
  for (size_t k = 0; k < r->nbuckets; k++) {
    const fu_bucket *b = &r->buckets[k];
    if (b->first != next || b->last < b->first || b->last >= w->ngrads) abort();
    next = b->last + 1;
    if (!(b->end_us >= b->start_us) || !isfinite(b->end_us)) abort();
  }
  if (next != w->ngrads) abort();
}

/* Predicts w under p on the given target; a success must keep the promises above. */
static void fu__predict(const fu_workload *w, const fu_plan *p, const char *comm,
                        const fu_profile *prof) {
  fu_comm c;
  if (fu_comm_parse(comm, &c) != FU_OK) abort(); /* the harness's own targets parse */
  fu_result r;
  memset(&r, 0, sizeof r);
  if (fu_predict_plan(w, p, &c, prof, NULL, NULL, &r) == FU_OK) fu__check_result(w, &r);
  fu_result_finish(&r);
}

#if FUZZ_READER != 1
/* The fixed workload and the default profile, parsed once (a parse per input spent most of the
 * time in the allocator, and under load tripped libFuzzer's wall-clock timeout). */
static void fu__load_fixed(const fu_workload **w, const fu_profile **prof) {
  static fu_workload fw;
  static fu_profile fp;
  static int done;
  if (!done) {
    fu_workload_init(&fw);
    if (fu_workload_parse(fu__fixed_workload, "fixed", 1, &fw) != FU_OK) abort();
    if (fu_profile_load_default(&fp) != FU_OK) abort();
    done = 1;
  }
  *w = &fw;
  *prof = &fp;
}
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (memchr(data, '\0', size)) return 0;
  char *text = malloc(size + 1);
  if (!text) return 0;
  memcpy(text, data, size);
  text[size] = '\0';
  fu_plan p;
  fu_plan_init(&p);
#if FUZZ_READER == 1
  static fu_profile prof; /* the default profile, parsed once (300 KB: not on the stack) */
  static int have_prof;
  if (!have_prof && fu_profile_load_default(&prof) != FU_OK) abort();
  have_prof = 1;
  fu_workload w;
  fu_workload_init(&w);
  if (fu_workload_parse(text, "fuzz.json", (int)(size & 1), &w) == FU_OK) {
    static const char *plans[] = {"none", "single", "cap:1MiB,first:64KiB", "horovod:1MiB,1ms",
                                  "horovod:64MiB,1us", "mgwfbp", "optimal"};
    for (size_t i = 0; i < sizeof plans / sizeof plans[0]; i++) {
      /* the searches simulate many candidates: keep them to workloads that finish in time */
      if (i >= 5 && w.ngrads > 64) break;
      fu_plan_finish(&p);
      fu_plan_init(&p);
      if (fu_plan_parse_fusion(plans[i], &p) != FU_OK) abort();
      p.overlap = (int)(i & 1) ^ 1;
      fu__predict(&w, &p, i & 1 ? "allreduce:8:nvlink" : "allreduce:4:nvlink", &prof);
    }
    fu__predict(&w, &p, "offload", &prof);
  }
  fu_workload_finish(&w);
#else
  const fu_workload *fw;
  const fu_profile *dprof;
  fu__load_fixed(&fw, &dprof);
#if FUZZ_READER == 2
  static fu_profile prof; /* 300 KB: not on the stack */
  if (fu_profile_parse(text, "fuzz.json", &prof) == FU_OK) {
    if (fu_plan_parse_fusion("cap:1MiB", &p) != FU_OK) abort();
    fu__predict(fw, &p, "allreduce:8:nvlink", &prof);
    fu__predict(fw, &p, "allreduce:2:nvlink", &prof);
    fu__predict(fw, &p, "allreduce:2x8", &prof);
    fu__predict(fw, &p, "offload", &prof);
    if (fu_plan_parse_fusion("optimal", &p) != FU_OK) abort();
    fu__predict(fw, &p, "allreduce:8:nvlink", &prof);
  }
#elif FUZZ_READER == 3
  int st;
  const char *t = text + strspn(text, " \t\r\n");
  if (*t == '{' || *t == '[') {
    st = fu_plan_parse_json(text, "fuzz-plan.json", NULL, &p);
  } else {
    text[strcspn(text, "\n")] = '\0';
    /* a bucket file named by the input is not the plan reader's to fuzz (reader 4 is) */
    st = strstr(text, "buckets") ? FU_EUSAGE : fu_plan_parse_fusion(text, &p);
  }
  if (st == FU_OK && p.kind != FU_FUSION_BUCKETS) {
    fu__predict(fw, &p, "allreduce:8:nvlink", dprof);
    fu__predict(fw, &p, "offload", dprof);
  }
#elif FUZZ_READER == 4
  char path[] = "/tmp/fuzz-buckets-XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) abort();
  if (write(fd, text, size) != (ssize_t)size) abort();
  close(fd);
  char spec[64];
  snprintf(spec, sizeof spec, "buckets:%s", path);
  if (fu_plan_parse_fusion(spec, &p) == FU_OK) { /* the file is read here */
    fu__predict(fw, &p, "allreduce:8:nvlink", dprof);
    p.overlap = 0;
    p.comm_streams = 2;
    fu__predict(fw, &p, "allreduce:4:nvlink", dprof);
  }
  unlink(path);
#else
#error "FUZZ_READER is 1 (workload), 2 (profile), 3 (plan) or 4 (buckets)"
#endif
#endif
  fu_plan_finish(&p);
  free(text);
  return 0;
}
