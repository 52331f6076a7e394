/* test_profile.c: profile JSON round trip, one clear error per bad file (naming the file and
 * the field), curve lookup with rescaling, and the embedded default profile against the
 * reference data it was fitted from. */
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_profile.h"
#include "fu_test.h"
#include "test_data.h"

static char tmpdir[256];

/* Runs fn with stderr captured into buf. */
static int saved_fd = -1;
static void capture_begin(void) {
  fflush(stderr);
  char path[300];
  snprintf(path, sizeof path, "%s/stderr.txt", tmpdir);
  int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  saved_fd = dup(2);
  dup2(fd, 2);
  close(fd);
}
static void capture_end(char *buf, size_t len) {
  fflush(stderr);
  dup2(saved_fd, 2);
  close(saved_fd);
  char path[300];
  snprintf(path, sizeof path, "%s/stderr.txt", tmpdir);
  FILE *f = fopen(path, "r");
  size_t n = f ? fread(buf, 1, len - 1, f) : 0;
  buf[n] = '\0';
  if (f) fclose(f);
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  fputs(text, f);
  fclose(f);
}

static void make_profile(fu_profile *p) {
  fu_profile_init(p);
  snprintf(p->name, sizeof p->name, "test");
  snprintf(p->gpu, sizeof p->gpu, "NVIDIA H200");
  snprintf(p->notes, sizeof p->notes, "made by test_profile");
  p->launch_us = 3.683;
  p->issue_us = 2.125;
  p->duplex_factor = 0.8975;
  p->hbm_gbps = 2106.9;
  fu_curve c;
  memset(&c, 0, sizeof c);
  snprintf(c.op, sizeof c.op, "allreduce");
  snprintf(c.link, sizeof c.link, "nvlink");
  snprintf(c.algo, sizeof c.algo, "ring");
  snprintf(c.source, sizeof c.source, "hand-made");
  c.ranks = 8;
  c.nseg = 2;
  /* [1 KiB, 1 MiB): 14 us + 1e-5 us/B; [1 MiB, inf): 20 us + 1.75e-6 us/B (CI unknown) */
  c.seg[0] = (fu_segment){1024, 1048576, 14.0, 1e-5, {13.0, 15.0}, {0.9e-5, 1.1e-5}, 0.03, 10};
  c.seg[1] = (fu_segment){1048576, INFINITY, 20.0, 1.75e-6, {NAN, NAN}, {NAN, NAN}, 0.05, 2};
  c.peak_busbw_gbps = 450;
  EXPECT_INT_EQ(fu_profile_put_curve(p, &c), FU_OK);
  snprintf(c.op, sizeof c.op, "h2d");
  snprintf(c.link, sizeof c.link, "pcie_h2d");
  c.algo[0] = '\0';
  c.ranks = 1;
  c.nseg = 1;
  c.seg[0] = (fu_segment){4, INFINITY, 4.4, 1.0 / 55200.0, {4.3, 4.5}, {1.0 / 55300.0, 1.0 / 55100.0}, 0.05, 15};
  EXPECT_INT_EQ(fu_profile_put_curve(p, &c), FU_OK);
  /* putting the same key again replaces */
  c.seg[0].alpha_us = 4.45;
  EXPECT_INT_EQ(fu_profile_put_curve(p, &c), FU_OK);
  EXPECT_INT_EQ(p->ncurves, 2);
}

static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b || fabs(a - b) <= 1e-11 * fabs(b); }

static void test_round_trip(void) {
  fu_profile p, q;
  make_profile(&p);
  char path[300];
  snprintf(path, sizeof path, "%s/p.json", tmpdir);
  EXPECT_INT_EQ(fu_profile_save(path, &p), FU_OK);
  EXPECT_INT_EQ(fu_profile_load(path, &q), FU_OK);
  EXPECT_STR_EQ(q.name, "test");
  EXPECT_STR_EQ(q.gpu, "NVIDIA H200");
  EXPECT_STR_EQ(q.notes, "made by test_profile");
  EXPECT(same(q.launch_us, 3.683) && same(q.issue_us, 2.125) && same(q.duplex_factor, 0.8975));
  EXPECT(same(q.comm_slowdown, 1.0) && same(q.copy_slowdown, 1.0) && same(q.hbm_gbps, 2106.9));
  EXPECT_INT_EQ(q.ncurves, 2);
  for (int i = 0; i < 2 && i < q.ncurves; i++) {
    const fu_curve *a = &p.curves[i], *b = &q.curves[i];
    EXPECT_STR_EQ(b->op, a->op);
    EXPECT_STR_EQ(b->link, a->link);
    EXPECT_STR_EQ(b->algo, a->algo);
    EXPECT_STR_EQ(b->source, a->source);
    EXPECT_INT_EQ(b->ranks, a->ranks);
    EXPECT_INT_EQ(b->nseg, a->nseg);
    EXPECT(same(b->peak_busbw_gbps, a->peak_busbw_gbps));
    for (int s = 0; s < a->nseg; s++) {
      const fu_segment *x = &a->seg[s], *y = &b->seg[s];
      EXPECT(same(y->lo_bytes, x->lo_bytes) && same(y->hi_bytes, x->hi_bytes));
      EXPECT(same(y->alpha_us, x->alpha_us) && same(y->beta_us_per_byte, x->beta_us_per_byte));
      EXPECT(same(y->alpha_ci[0], x->alpha_ci[0]) && same(y->alpha_ci[1], x->alpha_ci[1]));
      EXPECT(same(y->beta_ci[0], x->beta_ci[0]) && same(y->beta_ci[1], x->beta_ci[1]));
      EXPECT(same(y->max_rel_err, x->max_rel_err));
      EXPECT_INT_EQ(y->n_samples, x->n_samples);
    }
  }
  EXPECT(isinf(q.curves[0].seg[1].hi_bytes));
  EXPECT(isnan(q.curves[0].seg[1].alpha_ci[0]));
}

/* A profile text with one thing wrong gives FU_EDATA and one line naming file and field. */
static void bad_case(const char *text, const char *must_contain) {
  char path[300], err[2048];
  snprintf(path, sizeof path, "%s/bad.json", tmpdir);
  write_file(path, text);
  fu_profile p;
  capture_begin();
  int st = fu_profile_load(path, &p);
  capture_end(err, sizeof err);
  EXPECT_INT_EQ(st, FU_EDATA);
  EXPECT(strstr(err, path) != NULL);
  if (!strstr(err, must_contain)) FU_T_FAIL("message lacks \"%s\": %s", must_contain, err);
  else fu_test_passed++;
  int lines = 0;
  for (const char *c = err; *c; c++) lines += *c == '\n';
  EXPECT_INT_EQ(lines, 1);
}

#define HEAD "{\"format\": \"fusim-profile-1\", \"name\": \"x\", "
#define SEG(lo, hi, a) "{\"lo_bytes\": " lo ", \"hi_bytes\": " hi ", \"alpha_us\": " a ", \"beta_us_per_byte\": 1e-5}"
#define CURVE(op, segs) "{\"op\": \"" op "\", \"link\": \"nvlink\", \"ranks\": 8, \"segments\": [" segs "]}"

static void test_errors(void) {
  bad_case("{\"format\": ", "not valid JSON");
  bad_case("[1, 2]", "not a JSON object");
  bad_case("{\"format\": \"fusim-profile-2\", \"curves\": []}", "format");
  bad_case(HEAD "\"launch_us\": \"fast\", \"curves\": []}", "launch_us: not a number");
  bad_case(HEAD "\"duplex_factor\": 1.5, \"curves\": []}", "duplex_factor: 1.5 is out of range");
  bad_case(HEAD "\"comm_slowdown\": 0.5, \"curves\": []}", "comm_slowdown");
  bad_case(HEAD "\"curves\": {}}", "curves: missing or not an array");
  bad_case(HEAD "\"curves\": [" CURVE("allreduce", SEG("0", "null", "\"x\"")) "]}",
           "curves[0].segments[0].alpha_us: not a number");
  bad_case(HEAD "\"curves\": [" CURVE("allreduce", SEG("0", "100", "1") ", " SEG("200", "null", "1")) "]}",
           "curves[0].segments[1].lo_bytes");
  bad_case(HEAD "\"curves\": [" CURVE("allreduce", SEG("0", "100", "1")) "]}",
           "curves[0].segments[0].hi_bytes: the last segment must be open-ended");
  bad_case(HEAD "\"curves\": [" CURVE("allreduce", SEG("100", "50", "1") "," SEG("50", "null", "1")) "]}",
           "hi_bytes: not above lo_bytes");
  bad_case(HEAD "\"curves\": [" CURVE("allsmash", SEG("0", "null", "1")) "]}", "curves[0].op: unknown operation");
  bad_case(HEAD "\"curves\": [" CURVE("allreduce", SEG("0", "null", "1")) ", " CURVE("all_reduce", SEG("0", "null", "2")) "]}",
           "curves[1].op: a second curve");
  bad_case(HEAD "\"curves\": [{\"op\": \"allreduce\", \"link\": \"nvlink\", \"ranks\": 0, \"segments\": []}]}",
           "curves[0].ranks");
  bad_case(HEAD "\"curves\": [{\"op\": \"allreduce\", \"link\": \"nvlink\", \"ranks\": 8, \"segments\": []}]}",
           "curves[0].segments: 0 segments");
  bad_case(HEAD "\"curves\": [{\"op\": \"allreduce\", \"link\": \"warp\", \"ranks\": 8, \"segments\": []}]}",
           "curves[0].link: unknown link class");
  bad_case(HEAD "\"curves\": [{\"op\": \"allreduce\", \"link\": \"nvlink\", \"ranks\": 8, \"segments\": "
                "[{\"lo_bytes\": 0, \"alpha_us\": 1, \"beta_us_per_byte\": 1, \"alpha_ci\": [2, 1]}]}]}",
           "curves[0].segments[0].alpha_ci: lo > hi");

  /* missing file, directory, empty file */
  fu_profile p;
  char path[300], err[1024];
  snprintf(path, sizeof path, "%s/none.json", tmpdir);
  capture_begin();
  EXPECT_INT_EQ(fu_profile_load(path, &p), FU_ENOINPUT);
  capture_end(err, sizeof err);
  EXPECT(strstr(err, path) != NULL);
  capture_begin();
  EXPECT_INT_EQ(fu_profile_load(tmpdir, &p), FU_ENOINPUT);
  capture_end(err, sizeof err);
  EXPECT(strstr(err, "directory") != NULL);
  snprintf(path, sizeof path, "%s/empty.json", tmpdir);
  write_file(path, "");
  capture_begin();
  EXPECT_INT_EQ(fu_profile_load(path, &p), FU_EDATA);
  capture_end(err, sizeof err);
  EXPECT(strstr(err, "empty") != NULL);
  /* unwritable target */
  make_profile(&p);
  capture_begin();
  EXPECT_INT_EQ(fu_profile_save("/nonexistent-dir/p.json", &p), FU_EIO);
  capture_end(err, sizeof err);
  EXPECT(strstr(err, "/nonexistent-dir/p.json") != NULL);
}

static void test_lookup(void) {
  fu_profile p;
  make_profile(&p);
  int rescaled = -1;
  const fu_curve *c = fu_profile_find(&p, "all_reduce_perf", "NVLink", 8, &rescaled);
  EXPECT(c == &p.curves[0]);
  EXPECT_INT_EQ(rescaled, 0);
  c = fu_profile_find(&p, "allreduce", "nvlink", 16, &rescaled);
  EXPECT(c == &p.curves[0]);
  EXPECT_INT_EQ(rescaled, 1);
  EXPECT(fu_profile_find(&p, "allgather", "nvlink", 8, &rescaled) == NULL);
  EXPECT(fu_profile_find(&p, "h2d", NULL, 1, &rescaled) == &p.curves[1]);
  /* one rank of all-reduce "over nvlink": no 1-rank curve here, so the 8-rank one, rescaled */
  EXPECT(fu_profile_find(&p, "allreduce", "nvlink", 1, &rescaled) == &p.curves[0]);
  EXPECT_INT_EQ(rescaled, 1);

  /* segment 0 at 64 KiB: 14 + 65536e-5 = 14.65536; CI 13 + 0.9e-5 n .. 15 + 1.1e-5 n */
  double t, lo, hi;
  EXPECT_INT_EQ(fu_profile_time(&p, "allreduce", "nvlink", 8, 65536, &t, &lo, &hi), FU_OK);
  EXPECT_NEAR(t, 14.65536, 1e-9);
  EXPECT_NEAR(lo, 13.589824, 1e-9);
  EXPECT_NEAR(hi, 15.720896, 1e-9);
  /* segment 1 at exactly 1 MiB (its lo): 20 + 1.75e-6 * 1048576 = 21.835008; no CI -> +-5% */
  EXPECT_INT_EQ(fu_profile_time(&p, "allreduce", "nvlink", 8, 1048576, &t, &lo, &hi), FU_OK);
  EXPECT_NEAR(t, 21.835008, 1e-9);
  EXPECT_NEAR(lo, 21.835008 * 0.95, 1e-9);
  EXPECT_NEAR(hi, 21.835008 * 1.05, 1e-9);
  /* below the smallest size: segment 0's line */
  EXPECT_NEAR(fu_curve_time(&p.curves[0], 8, NULL, NULL), 14.00008, 1e-9);
  /* 16 ranks, ring: alpha 14 -> 14 * 30/14 = 30, beta 1e-5 -> 1e-5 * 1.875/1.75;
   * at 64 KiB: 30 + 65536 * 1.0714285714e-5 = 30.702171429 */
  EXPECT_INT_EQ(fu_profile_time(&p, "allreduce", "nvlink", 16, 65536, &t, &lo, &hi), FU_OK);
  EXPECT_NEAR(t, 30 + 65536 * 1e-5 * 1.875 / 1.75, 1e-9);
  EXPECT(lo <= t && t <= hi);
  /* no curve: FU_EDATA and one message */
  char err[512];
  capture_begin();
  EXPECT_INT_EQ(fu_profile_time(&p, "alltoall", "net", 8, 1e6, &t, NULL, NULL), FU_EDATA);
  capture_end(err, sizeof err);
  EXPECT(strstr(err, "alltoall") != NULL);
}

/* The embedded default reproduces the reference points it was fitted from within 8%. */
static void test_default(void) {
  fu_profile p;
  EXPECT_INT_EQ(fu_profile_load_default(&p), FU_OK);
  EXPECT_STR_EQ(p.name, "h200-default");
  EXPECT(p.launch_us > 3.6 && p.launch_us < 3.8);
  EXPECT_NEAR(p.issue_us, 136.00 / 64, 1e-9);
  EXPECT_NEAR(p.duplex_factor, 99.13 / (55.22 + 55.24), 1e-9);
  EXPECT_NEAR(p.copy_slowdown, 2023.4 / 2020.6, 1e-9);
  double t;
  /* Azure ND H200 v5, 8 ranks NVLS: 1 GiB in 4018.67 us, 1 KiB in 29.87 us */
  EXPECT_INT_EQ(fu_profile_time(&p, "allreduce", "nvlink", 8, 1073741824.0, &t, NULL, NULL), FU_OK);
  EXPECT_REL(t, 4018.67, 0.08);
  EXPECT_INT_EQ(fu_profile_time(&p, "allreduce", "nvlink", 8, 1024, &t, NULL, NULL), FU_OK);
  EXPECT_REL(t, 29.87, 0.08);
  /* H200 PCIe: h2d 256 MiB 4861.63 us, d2h 4 B 3.65 us, d2d 1 GiB 509.63 us */
  EXPECT_INT_EQ(fu_profile_time(&p, "h2d", "pcie_h2d", 1, 268435456.0, &t, NULL, NULL), FU_OK);
  EXPECT_REL(t, 4861.63, 0.08);
  EXPECT_INT_EQ(fu_profile_time(&p, "d2h", "pcie_d2h", 1, 4, &t, NULL, NULL), FU_OK);
  EXPECT_REL(t, 3.65, 0.08);
  EXPECT_INT_EQ(fu_profile_time(&p, "d2d", "hbm", 1, 1073741824.0, &t, NULL, NULL), FU_OK);
  EXPECT_REL(t, 509.63, 0.08);
  /* 1-GPU NCCL all-reduce (out-of-place): 8 B 7.15 us, 512 MiB 255.58 us; asked "over
   * nvlink" at one rank it is still the 1-rank curve (no link crossed), not the 8-rank one */
  EXPECT_INT_EQ(fu_profile_time(&p, "allreduce", NULL, 1, 536870912.0, &t, NULL, NULL), FU_OK);
  EXPECT_REL(t, 255.58, 0.08);
  int rs = -1;
  const fu_curve *one = fu_profile_find(&p, "allreduce", "nvlink", 1, &rs);
  EXPECT(one && one->ranks == 1);
  EXPECT_INT_EQ(rs, 0);

  /* Every reference point, smallest size to largest, within 8% of the bundled profile. */
  static const struct {
    const char *file;        /* under data/reference */
    const char *op, *link;   /* rows and the curve they check */
    int ranks;
  } sets[] = {{"azure-nd-h200-v5-allreduce-nvls-8gpu.csv", "allreduce", "nvlink", 8},
              {"h200-pcie-copies.csv", "h2d", "pcie_h2d", 1},
              {"h200-pcie-copies.csv", "d2h", "pcie_d2h", 1},
              {"h200-pcie-copies.csv", "d2d", "hbm", 1},
              {"h200-1gpu-allreduce-nccl-tests.txt", "allreduce", "hbm", 1}};
  for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
    char path[1024];
    td_set d;
    snprintf(path, sizeof path, "%s/data/reference/%s", td_shared(), sets[k].file);
    long n = strstr(sets[k].file, ".csv") ? td_read_csv(path, sets[k].op, &d) : td_read_nccl(path, 0, &d);
    EXPECT(n >= 14);
    double worst = 0;
    for (size_t i = 0; i < d.n; i++) {
      double tf = NAN, lo, hi;
      EXPECT_INT_EQ(fu_profile_time(&p, sets[k].op, sets[k].link, sets[k].ranks, d.pts[i].bytes, &tf, &lo, &hi), FU_OK);
      double rel = fabs(tf - d.pts[i].t_us) / d.pts[i].t_us;
      if (rel > worst) worst = rel;
      if (rel > 0.08)
        FU_T_FAIL("default profile misses %s %s %.0f bytes: %.4g us vs measured %.4g us (%.1f%%)", sets[k].file,
                  sets[k].op, d.pts[i].bytes, tf, d.pts[i].t_us, 100 * rel);
      else
        fu_test_passed++;
      EXPECT(lo <= tf && tf <= hi);
    }
    fprintf(stderr, "default profile vs %s %s: %zu points, worst %.2f%%\n", sets[k].file, sets[k].op, d.n,
            100 * worst);
  }
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/fusim-test-profile-XXXXXX");
  if (!mkdtemp(tmpdir)) return 1;
  test_round_trip();
  test_errors();
  test_lookup();
  test_default();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  return fu_test_report("test_profile");
}
