/* test_plan_buckets.c: bucket assignment checked by hand: none, single, DDP's cap with a first
 * bucket, Horovod's threshold + cycle, and explicit bucket files with their errors. */
#include <stdlib.h>

#include "fu_common.h"
#include "fu_search.h"
#include "fu_resolve.h"
#include "fu_test.h"
#include "plan_util.h"

typedef struct range {
  size_t first, last;        /* expected inclusive range */
} range;

static void expect_buckets(const fu_bucket *b, size_t nb, const range *want, size_t nwant,
                           const char *what) {
  if (nb != nwant) {
    FU_T_FAIL("%s: %zu buckets, expected %zu", what, nb, nwant);
    return;
  }
  for (size_t k = 0; k < nb; k++) {
    if (b[k].first != want[k].first || b[k].last != want[k].last)
      FU_T_FAIL("%s: bucket %zu is [%zu, %zu], expected [%zu, %zu]", what, k, b[k].first, b[k].last,
                want[k].first, want[k].last);
    else fu_test_passed++;
  }
}

static int plan_of(const char *s, fu_plan *p) {
  fu_plan_init(p);
  return fu_plan_parse_fusion(s, p);
}

/* Ten gradients; sizes picked so that the DDP limits fall inside, exactly on, and past tensors. */
static const uint64_t sz10[] = {10, 20, 15, 30, 50, 60, 10, 5, 120, 8};
static const double rd10[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};

static void test_none_single(void) {
  fu_workload w;
  pu_workload(&w, 10, sz10, rd10, 100, 50);
  fu_plan p;
  fu_bucket *b;
  size_t nb;
  plan_of("none", &p);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  EXPECT_INT_EQ(nb, 10);
  for (size_t k = 0; k < nb; k++) {
    EXPECT_INT_EQ(b[k].first, k);
    EXPECT_INT_EQ(b[k].last, k);
    EXPECT_INT_EQ(b[k].bytes, sz10[k]);
    EXPECT_NEAR(b[k].ready_us, 100 + rd10[k], 1e-12); /* fwd, then backward's clock */
  }
  free(b);
  plan_of("single", &p);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  EXPECT_INT_EQ(nb, 1);
  EXPECT_INT_EQ(b[0].bytes, 328);
  EXPECT_NEAR(b[0].ready_us, 110, 1e-12);
  free(b);
  /* With 3 micro-batches the communicating backward starts after 2 x (fwd + bwd) + fwd. */
  w.accum_steps = 3;
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  EXPECT_NEAR(b[0].ready_us, 2 * 150 + 100 + 10, 1e-12);
  free(b);
  fu_workload_finish(&w);
}

/* DDP (reducer.cpp, compute_bucket_assignment_by_size): add the tensor, then close the bucket if
 * its size >= the limit; limits are first_cap for the first bucket, cap after.
 *   first 40: 10, 30, 45 >= 40 -> [0,2] (45 bytes)
 *   cap 100:  30, 80, 140 >= 100 -> [3,5] (140)
 *             10, 15, 135 >= 100 -> [6,8] (135)
 *             8 left over         -> [9]  */
static void test_ddp(void) {
  fu_workload w;
  pu_workload(&w, 10, sz10, rd10, 0, 50);
  fu_plan p;
  fu_bucket *b;
  size_t nb;
  EXPECT_INT_EQ(plan_of("cap:100B,first:40B", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want[] = {{0, 2}, {3, 5}, {6, 8}, {9, 9}};
  expect_buckets(b, nb, want, 4, "cap:100B,first:40B");
  if (nb == 4) {
    EXPECT_INT_EQ(b[0].bytes, 45);
    EXPECT_INT_EQ(b[1].bytes, 140);
    EXPECT_INT_EQ(b[2].bytes, 135);
    EXPECT_INT_EQ(b[3].bytes, 8);
    EXPECT_NEAR(b[1].ready_us, 6, 1e-12);
  }
  free(b);
  /* Reaching the limit exactly closes the bucket: first 45 -> [0,2] is exactly 45. Then
   * cap 30: 30 >= 30 -> [3]; 50 -> [4]; 60 -> [5]; 10, 15, 135 -> [6,8]; [9]. */
  EXPECT_INT_EQ(plan_of("cap:30B,first:45B", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want2[] = {{0, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 8}, {9, 9}};
  expect_buckets(b, nb, want2, 6, "cap:30B,first:45B");
  free(b);
  /* No first: every bucket has the cap. cap 46: 10,30,45,75>=46 -> [0,3]; 50 -> [4]; 60 -> [5];
   * 10,15,135 -> [6,8]; [9]. */
  EXPECT_INT_EQ(plan_of("cap:46B", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want3[] = {{0, 3}, {4, 4}, {5, 5}, {6, 8}, {9, 9}};
  expect_buckets(b, nb, want3, 5, "cap:46B");
  free(b);
  /* A cap above everything is one bucket. */
  EXPECT_INT_EQ(plan_of("cap:1GiB,first:1GiB", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want4[] = {{0, 9}};
  expect_buckets(b, nb, want4, 1, "cap:1GiB");
  free(b);
  /* A cap of 0 that slipped past the parser is refused. */
  p.cap_bytes = 0;
  pu_capture cap;
  pu_stderr_begin(&cap);
  int st = fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL);
  const char *m = pu_stderr_end(&cap);
  EXPECT_INT_EQ(st, FU_EUSAGE);
  EXPECT(strstr(m, "cap of 0") != NULL);
  fu_workload_finish(&w);
}

/* DDP's default on sizes in MiB: first bucket 1 MiB, 25 MiB after.
 *   0.25, 0.5, 0.5 -> 1.25 >= 1 closes [0,2]
 *   10, 10, 4 -> 24; + 2 -> 26 >= 25 closes [3,6]
 *   30 -> 30 >= 25 closes [7] alone (a tensor is never split)
 *   1 -> [8] left over */
static void test_ddp_default(void) {
  const uint64_t M = 1ull << 20;
  const uint64_t s[] = {M / 4, M / 2, M / 2, 10 * M, 10 * M, 4 * M, 2 * M, 30 * M, M};
  const double r[] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  fu_workload w;
  pu_workload(&w, 9, s, r, 0, 10);
  fu_plan p;
  fu_bucket *b;
  size_t nb;
  EXPECT_INT_EQ(plan_of("ddp", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want[] = {{0, 2}, {3, 6}, {7, 7}, {8, 8}};
  expect_buckets(b, nb, want, 4, "ddp default");
  free(b);
  fu_workload_finish(&w);
}

/* Horovod, threshold 64 B, cycle 100 us, backward starting at fwd = 1000:
 *   tick 100: g0(16) g1(32) g2(32) ready: 16+32 = 48, +32 = 80 > 64 -> [0,1], [2]
 *   tick 200: g3(8) g4(100) g5(16) g6(16, ready exactly at 200): [3]; [4] alone (over the
 *             threshold); [5,6]
 *   tick 300: g7 -> [7] */
static void test_horovod(void) {
  const uint64_t s[] = {16, 32, 32, 8, 100, 16, 16, 16};
  const double r[] = {10, 50, 90, 120, 150, 199, 200, 201};
  fu_workload w;
  pu_workload(&w, 8, s, r, 1000, 300);
  fu_plan p;
  fu_bucket *b;
  size_t nb;
  EXPECT_INT_EQ(plan_of("horovod:64B,100us", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want[] = {{0, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 6}, {7, 7}};
  expect_buckets(b, nb, want, 6, "horovod:64B,100us");
  double tick[] = {1100, 1100, 1200, 1200, 1200, 1300};
  for (size_t k = 0; k < nb && k < 6; k++) EXPECT_NEAR(b[k].ready_us, tick[k], 1e-9);
  if (nb == 6) {
    EXPECT_INT_EQ(b[0].bytes, 48);
    EXPECT_INT_EQ(b[4].bytes, 32);
  }
  free(b);
  /* A buffer may reach the threshold exactly ("at most THRESHOLD", as Horovod's FuseResponses
   * tests size + next <= threshold): at 48 B, tick 100: 16 + 32 = 48 -> [0,1], [2]; tick 200:
   * [3] (8 + 100 > 48), [4], 16 + 16 -> [5,6]; tick 300: [7]. */
  EXPECT_INT_EQ(plan_of("horovod:48B,100us", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  expect_buckets(b, nb, want, 6, "horovod:48B,100us");
  if (nb == 6) EXPECT_INT_EQ(b[0].bytes, 48);
  free(b);
  /* Cycle 1 us with whole-microsecond ready times: a tick at every ready time, so only
   * simultaneously ready tensors fuse (a cycle of 0 is refused: below 1 us). */
  const double r0[] = {1, 1, 1, 2, 3, 3, 3, 4};
  for (size_t i = 0; i < 8; i++) w.grads[i].ready_us = r0[i];
  EXPECT_INT_EQ(plan_of("horovod:64B,1us", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want0[] = {{0, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 6}, {7, 7}};
  expect_buckets(b, nb, want0, 6, "horovod:64B,1us");
  free(b);
  /* Horovod's defaults: 128 MiB in one 1 ms cycle is one bucket. */
  EXPECT_INT_EQ(plan_of("horovod", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want1[] = {{0, 7}};
  expect_buckets(b, nb, want1, 1, "horovod default");
  if (nb == 1) EXPECT_NEAR(b[0].ready_us, 2000, 1e-9);
  free(b);
  fu_workload_finish(&w);
}

/* tests/plan/mixed_dtypes.json: fp32 biases (8 B) and bf16 weights (40 B) alternate in ready
 * order, fp32 first. Never two types in one bucket. By hand:
 *   DDP cap:64B,first:16B, each type its own open bucket and its own limits (first, then cap),
 *   buckets in the order they close:  #1 bf16 40 >= 16 -> {1};  #2 f32 8+8 >= 16 -> {0,2};
 *   #5 bf16 40+40 >= 64 -> {3,5}; open at the end: bf16 {7}, f32 {4,6}, the type seen last
 *   (bf16) first. tests/plan/ddp_reducer_ref.py gets the same from the Reducer's algorithm.
 *   Horovod 64B, one tick (overlap off): front 0 (f32 8) skips 1 (40: 8+40 fits), fuses 2 (16),
 *   skips 3 (8+80 > 64: stop) -> {0,2}; front 1 (bf16 40): 3 does not fit -> {1}; front 3:
 *   skips 4 (8), 5 does not fit -> {3}; front 4 (f32 8): skips 5, fuses 6, 7 ends it -> {4,6};
 *   then {5}, {7}.
 *   single: one bucket per type, in the order their last gradients are ready: f32 {0..6}, bf16. */
static void test_mixed_dtypes(void) {
  char path[4096];
  snprintf(path, sizeof path, "%s/tests/plan/mixed_dtypes.json", getenv("FUSIM_SOURCE_ROOT"));
  fu_workload w;
  EXPECT_INT_EQ(fu_workload_load(path, 1, &w), FU_OK);
  if (w.ngrads != 8) return;
  EXPECT_STR_EQ(w.grads[0].dtype, "float");
  EXPECT_STR_EQ(w.grads[1].dtype, "bf16");
  fu_plan p;
  fu_bucket *b;
  size_t nb;
  EXPECT_INT_EQ(plan_of("cap:64B,first:16B", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want[] = {{1, 1}, {0, 2}, {3, 5}, {7, 7}, {4, 6}};
  expect_buckets(b, nb, want, 5, "mixed cap:64B,first:16B");
  const uint64_t bytes[] = {40, 16, 80, 40, 16};
  const size_t nt[] = {1, 2, 2, 1, 2};
  for (size_t k = 0; k < nb && k < 5; k++) {
    EXPECT_INT_EQ(b[k].bytes, bytes[k]);
    EXPECT_INT_EQ(b[k].ntensors, nt[k]);
  }
  free(b);
  EXPECT_INT_EQ(plan_of("horovod:64B,1ms", &p), FU_OK);
  p.overlap = 0;
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range wanth[] = {{0, 2}, {1, 1}, {3, 3}, {4, 6}, {5, 5}, {7, 7}};
  expect_buckets(b, nb, wanth, 6, "mixed horovod:64B");
  free(b);
  EXPECT_INT_EQ(plan_of("single", &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range wants[] = {{0, 6}, {1, 7}};
  expect_buckets(b, nb, wants, 2, "mixed single");
  if (nb == 2) EXPECT_INT_EQ(b[0].bytes, 32);
  free(b);
  fu_workload_finish(&w);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static void test_bucket_file(void) {
  const uint64_t s[] = {4, 8, 16, 32, 64};
  const double r[] = {1, 2, 3, 4, 5};
  fu_workload w;
  pu_workload(&w, 5, s, r, 0, 10);
  char dir[] = "/tmp/fusim_plan_test_XXXXXX";
  if (!mkdtemp(dir)) {
    FU_T_FAIL("%s", "mkdtemp");
    return;
  }
  char path[256];
  snprintf(path, sizeof path, "%s/buckets.json", dir);
  fu_plan p;
  fu_bucket *b;
  size_t nb;
  /* Good: buckets listed out of order and tensors within a bucket in any order. */
  write_file(path, "[[\"g3\", \"g4\"], [\"g0\"], [\"g2\", \"g1\"]]");
  char spec[300];
  snprintf(spec, sizeof spec, "buckets:%s", path);
  EXPECT_INT_EQ(plan_of(spec, &p), FU_OK);
  EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
  range want[] = {{0, 0}, {1, 2}, {3, 4}};
  expect_buckets(b, nb, want, 3, "bucket file");
  if (nb == 3) EXPECT_INT_EQ(b[1].bytes, 24);
  free(b);
  /* The object form: "order": "listed" sends them as listed (a bucket waits for those before
     it, fu_predict.h), "fill" (or no order) as above. */
  static const struct {
    const char *json;
    range want[3];
  } forms[] = {
      {"{\"order\": \"listed\", \"buckets\": [[\"g3\", \"g4\"], [\"g0\"], [\"g2\", \"g1\"]]}",
       {{3, 4}, {0, 0}, {1, 2}}},
      {"{\"order\": \"fill\", \"buckets\": [[\"g3\", \"g4\"], [\"g0\"], [\"g2\", \"g1\"]]}",
       {{0, 0}, {1, 2}, {3, 4}}},
      {"{\"buckets\": [[\"g3\", \"g4\"], [\"g0\"], [\"g2\", \"g1\"]]}", {{0, 0}, {1, 2}, {3, 4}}},
  };
  for (size_t i = 0; i < sizeof forms / sizeof forms[0]; i++) {
    write_file(path, forms[i].json);
    fu_plan_finish(&p);
    EXPECT_INT_EQ(plan_of(spec, &p), FU_OK);
    b = NULL, nb = 0;
    EXPECT_INT_EQ(fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL), FU_OK);
    expect_buckets(b, nb, forms[i].want, 3, forms[i].json);
    free(b);
  }
  static const struct {
    const char *json;
    const char *says;
  } bad[] = {
      {"[[\"g0\", \"g1\"], [\"g2\", \"g3\"]]", "tensor 'g4' (ready #4) is in no bucket"},
      {"[[\"g0\", \"g1\"], [\"g1\", \"g2\"], [\"g3\", \"g4\"]]", "bucket 1, item 0: tensor 'g1' repeats (already in bucket 0)"},
      {"[[\"g0\", \"g1\", \"fc.weight\"], [\"g2\", \"g3\", \"g4\"]]", "bucket 0, item 2: 'fc.weight' is not a tensor of workload 'test5'"},
      {"[[\"g0\", \"g2\"], [\"g1\", \"g3\", \"g4\"]]", "bucket 0 is not a contiguous run of the ready order: 'g1'"},
      {"[[\"g0\"], [], [\"g1\", \"g2\", \"g3\", \"g4\"]]", "bucket 1: expected a non-empty list"},
      {"[[\"g0\", 7]]", "bucket 0, item 1: expected a tensor name"},
      {"{\"buckets\": 1}", "expected a non-empty JSON list of buckets"},
      {"{\"order\": \"reversed\", \"buckets\": [[\"g0\"]]}", "\"order\" must be \"listed\""},
      {"{\"order\": \"listed\", \"bucket\": [[\"g0\"]]}", "unknown key 'bucket'"},
      {"[[\"g0\"", "not valid JSON"},
  };
  for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    write_file(path, bad[i].json);
    pu_capture cap;
    b = NULL, nb = 0;
    pu_stderr_begin(&cap);
    /* The file's form is checked when the plan is parsed, its names against the workload when
     * the plan is resolved; either way one line naming the file. */
    fu_plan_finish(&p);
    int st = fu_plan_parse_fusion(spec, &p);
    if (st == FU_OK) st = fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL);
    const char *m = pu_stderr_end(&cap);
    if (st != FU_EDATA) FU_T_FAIL("bucket file %s gave status %d", bad[i].json, st);
    else fu_test_passed++;
    if (!strstr(m, path)) FU_T_FAIL("bucket file %s: message '%s' does not name the file", bad[i].json, m);
    else fu_test_passed++;
    if (!strstr(m, bad[i].says)) FU_T_FAIL("bucket file %s: message '%s' lacks '%s'", bad[i].json, m, bad[i].says);
    else fu_test_passed++;
    EXPECT(b == NULL && nb == 0);
  }
  /* Missing file: no input (66). */
  remove(path);
  pu_capture cap;
  pu_stderr_begin(&cap);
  fu_plan_finish(&p);
  int st = fu_plan_parse_fusion(spec, &p);
  const char *m = pu_stderr_end(&cap);
  EXPECT_INT_EQ(st, FU_ENOINPUT);
  EXPECT(strstr(m, path) != NULL);
  fu_plan_finish(&p);
  rmdir(dir);
  fu_workload_finish(&w);
}

/* The searches need a target and a profile; without them, a usage error, not a crash. */
static void test_search_needs_target(void) {
  fu_workload w;
  pu_workload(&w, 10, sz10, rd10, 0, 50);
  fu_plan p;
  fu_bucket *b;
  size_t nb;
  const char *kinds[] = {"optimal", "mgwfbp"};
  for (size_t k = 0; k < 2; k++) {
    EXPECT_INT_EQ(plan_of(kinds[k], &p), FU_OK);
    pu_capture cap;
    pu_stderr_begin(&cap);
    int st = fu_resolve_buckets(&w, &p, NULL, NULL, &b, &nb, NULL);
    const char *m = pu_stderr_end(&cap);
    EXPECT_INT_EQ(st, FU_EUSAGE);
    EXPECT(strstr(m, "needs a communication target and a profile") != NULL);
  }
  /* No gradients at all. */
  fu_workload e;
  fu_workload_init(&e);
  snprintf(e.source, sizeof e.source, "empty.json");
  plan_of("single", &p);
  pu_capture cap;
  pu_stderr_begin(&cap);
  int st = fu_resolve_buckets(&e, &p, NULL, NULL, &b, &nb, NULL);
  const char *m = pu_stderr_end(&cap);
  EXPECT_INT_EQ(st, FU_EDATA);
  EXPECT(strstr(m, "empty.json") != NULL);
  fu_workload_finish(&w);
}

int main(void) {
  test_search_needs_target();
  test_none_single();
  test_ddp();
  test_ddp_default();
  test_horovod();
  test_bucket_file();
  test_mixed_dtypes();
  return fu_test_report("plan_buckets");
}
