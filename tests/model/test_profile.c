/* test_profile.c: profile JSON round trip, one clear error per bad file (naming the file and
 * the field), curve lookup with rescaling and variant curves, and the embedded default profile
 * against the calibration samples it was fitted from (data/calibration/), its scalars
 * re-derived here from the calibration's CSVs (not the SQL the script used), and, reported
 * only, its deviation from ../shared/data/reference. */
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fu_common.h"
#include "fu_output.h"
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
  p->pack_handoff_us = 6.5;
  fu_curve c;
  memset(&c, 0, sizeof c);
  snprintf(c.op, sizeof c.op, "allreduce");
  snprintf(c.link, sizeof c.link, "nvlink");
  snprintf(c.algo, sizeof c.algo, "ring");
  snprintf(c.source, sizeof c.source, "hand-made");
  c.ranks = 8;
  c.nseg = 2;
  /* [1 KiB, 1 MiB): 14 us + 1e-5 us/B; [1 MiB, inf): 20 us + 1.75e-6 us/B (CI unknown) */
  c.seg[0] = (fu_segment){1024, 1048576, 14.0, 1e-5, {13.0, 15.0}, {0.9e-5, 1.1e-5}, 0.03, 10, 0, 1024, 524288};
  c.seg[1] = (fu_segment){1048576, INFINITY, 20.0, 1.75e-6, {NAN, NAN}, {NAN, NAN}, 0.05, 2, 0, 0, 0};
  c.peak_busbw_gbps = 450;
  EXPECT_INT_EQ(fu_profile_put_curve(p, &c), FU_OK);
  snprintf(c.op, sizeof c.op, "h2d");
  snprintf(c.link, sizeof c.link, "pcie_h2d");
  c.algo[0] = '\0';
  c.ranks = 1;
  c.nseg = 1;
  c.seg[0] = (fu_segment){4, INFINITY, 4.4, 1.0 / 55200.0, {4.3, 4.5}, {1.0 / 55300.0, 1.0 / 55100.0}, 0.05, 15, 0, 0, 0};
  EXPECT_INT_EQ(fu_profile_put_curve(p, &c), FU_OK);
  /* putting the same key again replaces */
  c.seg[0].alpha_us = 4.45;
  EXPECT_INT_EQ(fu_profile_put_curve(p, &c), FU_OK);
  EXPECT_INT_EQ(p->ncurves, 2);
  /* a variant of the same (op, link, ranks): its own curve, kept, never picked by lookups */
  snprintf(c.algo, sizeof c.algo, "pageable/pipe");
  c.seg[0].alpha_us = 9.0;
  EXPECT_INT_EQ(fu_profile_put_curve(p, &c), FU_OK);
  EXPECT_INT_EQ(p->ncurves, 3);
}

static int same(double a, double b) { return (isnan(a) && isnan(b)) || a == b || fabs(a - b) <= 1e-11 * fabs(b); }

static void test_round_trip(void) {
  static fu_profile p, q; /* ~3.8 MB each: not on the stack */
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
  EXPECT(same(q.pack_handoff_us, 6.5));
  EXPECT_INT_EQ(q.ncurves, 3);
  for (int i = 0; i < 3 && i < q.ncurves; i++) {
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
      EXPECT(same(y->first_bytes, x->first_bytes) && same(y->last_bytes, x->last_bytes));
    }
  }
  EXPECT(isinf(q.curves[0].seg[1].hi_bytes));
  EXPECT(isnan(q.curves[0].seg[1].alpha_ci[0]));
  /* fit --out's one dump (fu_profile_file_text): the file fu_profile_save writes, less its line
   * break, byte for byte; fu_text_save writes it alike; the stored row made from it is
   * the compact full-precision JSON of the profile as the file loads back (q) */
  char *file = NULL, *saved = NULL, *row = NULL, *again = NULL;
  EXPECT_INT_EQ(fu_profile_file_text(&p, &file), FU_OK);
  EXPECT_INT_EQ(fu_read_file(path, &saved, NULL), FU_OK);
  if (file && saved) {
    size_t n = strlen(saved);
    EXPECT(n > 0 && saved[n - 1] == '\n');
    saved[n - 1] = '\0';
    EXPECT_STR_EQ(file, saved);
    free(saved);
    char path2[300];
    snprintf(path2, sizeof path2, "%s/p2.json", tmpdir);
    EXPECT_INT_EQ(fu_text_save(path2, file), FU_OK);
    EXPECT_INT_EQ(fu_read_file(path2, &saved, NULL), FU_OK);
    EXPECT_INT_EQ(fu_read_file(path, &again, NULL), FU_OK);
    if (saved && again) EXPECT_STR_EQ(saved, again);
    EXPECT_INT_EQ(fu_profile_saved_json(file, &row), FU_OK);
    json_t *qj = fu_profile_to_json(&q);
    char *want = qj ? json_dumps(qj, JSON_COMPACT | JSON_REAL_PRECISION(17)) : NULL;
    if (row && want) EXPECT_STR_EQ(row, want);
    free(want);
    json_decref(qj);
  }
  free(file);
  free(saved);
  free(again);
  free(row);
  /* pack_handoff_us is optional: absent reads as 0 */
  snprintf(path, sizeof path, "%s/min.json", tmpdir);
  write_file(path, "{\"format\": \"fusim-profile-1\", \"curves\": []}");
  EXPECT_INT_EQ(fu_profile_load(path, &q), FU_OK);
  EXPECT(q.pack_handoff_us == 0);
}

/* A profile text with one thing wrong gives FU_EDATA and one line naming file and field. */
static void bad_case(const char *text, const char *must_contain) {
  char path[300], err[2048];
  snprintf(path, sizeof path, "%s/bad.json", tmpdir);
  write_file(path, text);
  static fu_profile p; /* ~3.8 MB: not on the stack */
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
  bad_case(HEAD "\"pack_handoff_us\": -1, \"curves\": []}", "pack_handoff_us: -1 is out of range");
  bad_case(HEAD "\"curves\": [{\"op\": \"h2d\", \"link\": \"pcie_h2d\", \"ranks\": 1, \"algo\": \"page able\", "
                "\"segments\": [" SEG("0", "null", "1") "]}]}",
           "curves[0].algo: not a label");
  bad_case(HEAD "\"curves\": [{\"op\": \"h2d\", \"link\": \"pcie_h2d\", \"ranks\": 1, \"algo\": "
                "\"pageable/pipe/queued\", \"segments\": [" SEG("0", "null", "1") "]}]}",
           "curves[0].algo: too long");
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
  static fu_profile p; /* ~3.8 MB: not on the stack */
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
  EXPECT_INT_EQ(fu_profile_save("/nonexistent-dir/p.json", &p), FU_EUSAGE);
  capture_end(err, sizeof err);
  EXPECT(strstr(err, "/nonexistent-dir/p.json") != NULL);
}

static void test_lookup(void) {
  static fu_profile p; /* ~3.8 MB: not on the stack */
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
  /* the variant curve (curves[2], pageable/pipe) is never picked, whatever the order */
  static fu_profile q; /* ~3.8 MB: not on the stack */
  q = p;
  q.curves[1] = p.curves[2];
  q.curves[2] = p.curves[1];
  EXPECT(fu_profile_find(&q, "h2d", "pcie_h2d", 1, &rescaled) == &q.curves[2]);
  q.ncurves = 2; /* only the variant left: no curve */
  EXPECT(fu_profile_find(&q, "h2d", "pcie_h2d", 1, &rescaled) == NULL);
  /* NCCL's own choice ("") before a forced algorithm of the same key */
  q = p;
  q.curves[1] = p.curves[0];
  q.curves[1].algo[0] = '\0';
  EXPECT(fu_profile_find(&q, "allreduce", "nvlink", 8, &rescaled) == &q.curves[1]);
  /* one rank of all-reduce "over nvlink": no 1-rank curve here, so the 8-rank one, rescaled */
  EXPECT(fu_profile_find(&p, "allreduce", "nvlink", 1, &rescaled) == &p.curves[0]);
  EXPECT_INT_EQ(rescaled, 1);
  /* a one-GPU profile: a 1-rank all-reduce on hbm and no NVLink curve at all; one rank "over
   * nvlink" crosses no link, so the 1-rank curve, not rescaled; two ranks have none */
  q = p;
  snprintf(q.curves[0].link, sizeof q.curves[0].link, "hbm");
  q.curves[0].ranks = 1;
  EXPECT(fu_profile_find(&q, "allreduce", "nvlink", 1, &rescaled) == &q.curves[0]);
  EXPECT_INT_EQ(rescaled, 0);
  EXPECT(fu_profile_find(&q, "allreduce", "nvlink", 2, &rescaled) == NULL);

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
  EXPECT(strstr(err, "one-GPU curves only") == NULL); /* it has an 8-rank curve */
  /* a profile of one GPU's curves: the line says how to get one of several ranks */
  static fu_profile one; /* ~3.8 MB: not on the stack */
  one = p;
  for (int i = 0; i < one.ncurves; i++) { /* as calib on one GPU fits them: no link crossed */
    one.curves[i].ranks = 1;
    snprintf(one.curves[i].link, sizeof one.curves[i].link, "hbm");
  }
  capture_begin();
  EXPECT_INT_EQ(fu_profile_time(&one, "allreduce", "nvlink", 8, 1e6, &t, NULL, NULL), FU_EDATA);
  capture_end(err, sizeof err);
  EXPECT(strstr(err, "one-GPU curves only") != NULL && strstr(err, "fit --merge-into") != NULL);
  EXPECT(strchr(err, '\n') == strrchr(err, '\n')); /* one line */
}

/* ---- the embedded default against the calibration it was fitted from ---- */

/* The calibration tools/make_default_profile.sh used (data/calibration/CAL_STEM-*). */
#define CAL_STEM "h200-pcie-2026-12-02"

/* One row of a fusim calib CSV (or the copies CSV, which lacks the variant columns). */
typedef struct cal_row {
  char op[24];               /* operation */
  char link[16];             /* link class */
  char dtype[16];            /* data type or "" */
  char algo[24];             /* algo field (variant) or "" */
  char proto[16];            /* proto field or "" */
  int in_place;              /* 1 in-place */
  int graph;                 /* 1 CUDA graph */
  double bytes;              /* size (FLOP for GEMM rows) */
  double t_us;               /* time_us: the median */
} cal_row;

static cal_row cal_rows[3000];

/* Reads data/calibration/CAL_STEM-<suffix> into cal_rows (fields split at every comma: these
 * files quote nothing). Returns the rows read, 0 when missing. */
static size_t cal_read(const char *suffix) {
  const char *root = getenv("FUSIM_SOURCE_ROOT");
  char path[1024], line[1024];
  snprintf(path, sizeof path, "%s/data/calibration/" CAL_STEM "-%s", root && *root ? root : ".", suffix);
  FILE *f = fopen(path, "r");
  if (!f) {
    FU_T_FAIL("%s: cannot open", path);
    return 0;
  }
  enum { C_OP, C_LINK, C_DTYPE, C_ALGO, C_PROTO, C_INPLACE, C_GRAPH, C_BYTES, C_TIME, C_N };
  static const char *names[C_N] = {"op", "link", "dtype", "algo", "proto", "in_place", "graph", "bytes", "time_us"};
  int col[C_N], header = 0;
  size_t n = 0;
  while (fgets(line, sizeof line, f) && n < sizeof cal_rows / sizeof cal_rows[0]) {
    if (line[0] == '#' || line[0] == '\n') continue;
    line[strcspn(line, "\r\n")] = '\0';
    char *fld[32];
    int nf = 0;
    for (char *c = line; nf < 32;) {
      fld[nf++] = c;
      c = strchr(c, ',');
      if (!c) break;
      *c++ = '\0';
    }
    if (!header) {
      for (int k = 0; k < C_N; k++) {
        col[k] = -1;
        for (int i = 0; i < nf; i++)
          if (!strcmp(fld[i], names[k])) col[k] = i;
      }
      header = 1;
      continue;
    }
    cal_row *r = &cal_rows[n];
    memset(r, 0, sizeof *r);
#define CAL_S(k, dst) if (col[k] >= 0 && col[k] < nf) snprintf(dst, sizeof dst, "%s", fld[col[k]])
    CAL_S(C_OP, r->op);
    CAL_S(C_LINK, r->link);
    CAL_S(C_DTYPE, r->dtype);
    CAL_S(C_ALGO, r->algo);
    CAL_S(C_PROTO, r->proto);
#undef CAL_S
    if (col[C_INPLACE] >= 0 && col[C_INPLACE] < nf) r->in_place = atoi(fld[col[C_INPLACE]]);
    if (col[C_GRAPH] >= 0 && col[C_GRAPH] < nf) r->graph = atoi(fld[col[C_GRAPH]]);
    r->bytes = col[C_BYTES] >= 0 && col[C_BYTES] < nf ? atof(fld[col[C_BYTES]]) : NAN;
    r->t_us = col[C_TIME] >= 0 && col[C_TIME] < nf ? atof(fld[col[C_TIME]]) : NAN;
    n++;
  }
  fclose(f);
  EXPECT(n > 0);
  return n;
}

/* Time of the first row matching (op, link or NULL, algo, proto, bytes); NAN if none. */
static double cal_time(size_t n, const char *op, const char *link, const char *algo, const char *proto,
                       double bytes) {
  for (size_t i = 0; i < n; i++) {
    const cal_row *r = &cal_rows[i];
    if (!strcmp(r->op, op) && (!link || !strcmp(r->link, link)) && !strcmp(r->algo, algo) &&
        !strcmp(r->proto, proto) && r->bytes == bytes)
      return r->t_us;
  }
  return NAN;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Every row of rows[0..n) accepted by keep(), through the profile's (op, link, ranks) lookup,
 * within tol. Returns the worst relative error. */
static double check_curve(const fu_profile *p, size_t n, int (*keep)(const cal_row *), const char *op,
                          const char *link, int ranks, double tol, const char *what) {
  double worst = 0;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const cal_row *r = &cal_rows[i];
    if (!keep(r) || r->bytes <= 0) continue;
    double t = NAN, lo, hi;
    EXPECT_INT_EQ(fu_profile_time(p, op, link, ranks, r->bytes, &t, &lo, &hi), FU_OK);
    double rel = fabs(t - r->t_us) / r->t_us;
    if (rel > worst) worst = rel;
    if (rel > tol)
      FU_T_FAIL("default profile misses %s %s %.0f bytes: %.4g us vs measured %.4g us (%.1f%% > %.0f%%)", what, op,
                r->bytes, t, r->t_us, 100 * rel, 100 * tol);
    else
      fu_test_passed++;
    EXPECT(lo <= t && t <= hi);
    m++;
  }
  EXPECT(m >= 10);
  fprintf(stderr, "default profile vs %s %s: %zu samples, worst %.2f%% (target %.0f%%)\n", what, op, m, 100 * worst,
          100 * tol);
  return worst;
}

static const char *keep_op;
static int keep_copy(const cal_row *r) { return !strcmp(r->op, keep_op); }
/* the one-rank all-reduce the default was fitted from: out-of-place float, NCCL's choices */
static int keep_allreduce(const cal_row *r) {
  return !strcmp(r->op, "allreduce") && !strcmp(r->dtype, "float") && !r->algo[0] && !r->proto[0] &&
         !r->in_place && !r->graph;
}
/* the pack kernel, plain variant: algo "k=K", synchronised runs */
static int keep_pack(const cal_row *r) {
  return !strcmp(r->op, "pack") && !strcmp(r->link, "hbm") && !strncmp(r->algo, "k=", 2) && !r->proto[0];
}

static void test_default(void) {
  static fu_profile p;
  EXPECT_INT_EQ(fu_profile_load_default(&p), FU_OK);
  EXPECT_STR_EQ(p.name, "h200-default");
  EXPECT(strstr(p.source, CAL_STEM) != NULL);

  /* Scalars, re-derived from the calibration's CSV rows (time_us has 4 decimals: 1e-4). */
  size_t n = cal_read("rest.csv");
  double launch = cal_time(n, "launch", "launch", "device", "", 0);
  double issue = cal_time(n, "issue", "pcie_d2h", "host", "", 4);
  EXPECT_REL(p.launch_us, launch, 1e-4);
  EXPECT_REL(p.issue_us, issue, 1e-4);
  /* duplex: bidir moves 2 x 256 MiB in t_b; h2d and d2h 256 MiB each alone */
  double tb = cal_time(n, "bidir", NULL, "", "", 268435456.0), th = cal_time(n, "h2d", NULL, "", "", 268435456.0),
         td = cal_time(n, "d2h", NULL, "", "", 268435456.0);
  EXPECT_REL(p.duplex_factor, (2 / tb) / (1 / th + 1 / td), 1e-4);
  EXPECT_REL(p.hbm_gbps, 1073741824.0 / cal_time(n, "d2d", NULL, "", "", 1073741824.0) / 1e3, 1e-4);
  double flop = 2.0 * 8192 * 8192 * 8192;
  for (size_t i = 0; i < n; i++) {
    const cal_row *r = &cal_rows[i];
    if (strcmp(r->op, "gemm") || strcmp(r->algo, "8192x8192x8192") || r->proto[0]) continue;
    EXPECT_NEAR(r->bytes, flop, 0.5);
    if (!strcmp(r->dtype, "bf16")) EXPECT_REL(p.gpu_tflops_bf16, flop / r->t_us / 1e6, 1e-4);
    if (!strcmp(r->dtype, "tf32")) EXPECT_REL(p.gpu_tflops_fp32, flop / r->t_us / 1e6, 1e-4);
  }
  /* slowdowns: each "+X" GEMM over the "alone" run of its shape just before it, averaged */
  double alone = NAN, sum_comm = 0, sum_copy = 0;
  int n_comm = 0, n_copy = 0;
  for (size_t i = 0; i < n; i++) {
    const cal_row *r = &cal_rows[i];
    if (strcmp(r->op, "gemm") != 0) continue;
    if (!strcmp(r->proto, "alone")) alone = r->t_us;
    else if (!strcmp(r->proto, "+allreduce")) sum_comm += r->t_us / alone, n_comm++;
    else if (!strcmp(r->proto, "+d2h") || !strcmp(r->proto, "+h2d")) sum_copy += r->t_us / alone, n_copy++;
  }
  EXPECT_INT_EQ(n_comm, 2);
  EXPECT_INT_EQ(n_copy, 4);
  EXPECT_REL(p.comm_slowdown, sum_comm / n_comm, 1e-4);
  EXPECT_REL(p.copy_slowdown, sum_copy / n_copy, 1e-4);
  /* pack hand-off: (pack + D2H) - D2H - pack, back-to-back timing, totals >= 64 x 64 KiB */
  double h[64];
  int nh = 0;
  for (size_t i = 0; i < n && nh < 64; i++) {
    const cal_row *r = &cal_rows[i];
    if (strcmp(r->op, "pack") || strncmp(r->algo, "pack+d2h:", 9) || strcmp(r->proto, "pipe") || r->bytes < 4194304)
      continue;
    char one[32];
    snprintf(one, sizeof one, "one:%s", r->algo + 9);
    double t1 = cal_time(n, "d2h", NULL, one, "pipe", r->bytes), tp = cal_time(n, "pack", "hbm", r->algo + 9, "pipe", r->bytes);
    EXPECT(isfinite(t1) && isfinite(tp));
    h[nh++] = r->t_us - t1 - tp;
  }
  EXPECT(nh >= 5);
  qsort(h, (size_t)nh, sizeof h[0], cmp_double);
  double med = nh % 2 ? h[nh / 2] : (h[nh / 2 - 1] + h[nh / 2]) / 2;
  EXPECT_NEAR(p.pack_handoff_us, med, 1e-3);
  fprintf(stderr, "default scalars: launch %.3f issue %.3f duplex %.4f hbm %.1f bf16 %.1f tf32 %.1f comm %.3f "
          "copy %.4f handoff %.3f (%d sizes)\n", p.launch_us, p.issue_us, p.duplex_factor, p.hbm_gbps,
          p.gpu_tflops_bf16, p.gpu_tflops_fp32, p.comm_slowdown, p.copy_slowdown, p.pack_handoff_us, nh);

  /* The pack kernel's curve: all k as one line of total bytes. At 4 MiB k = 4, 64 and 1024 took
   * 7.568, 7.632 and 8.816 us, so no curve of bytes alone is within (8.816 - 7.568) /
   * (8.816 + 7.568) = 7.6% of all three; 10% allows that spread (the fit reaches 9.2%). */
  check_curve(&p, n, keep_pack, "pack", "hbm", 1, 0.10, CAL_STEM "-rest.csv");

  /* Issue 4: the fitted PCIe and HBM segments reproduce every measured size within 5%. */
  n = cal_read("copies.csv");
  static const char *copy_ops[][2] = {{"h2d", "pcie_h2d"}, {"d2h", "pcie_d2h"}, {"d2d", "hbm"}};
  for (size_t k = 0; k < 3; k++) {
    keep_op = copy_ops[k][0];
    check_curve(&p, n, keep_copy, copy_ops[k][0], copy_ops[k][1], 1, 0.05, CAL_STEM "-copies.csv");
  }
  /* the one-GPU NCCL all-reduce from the calibration's collectives, within 5% as well; asked
   * "over nvlink" at one rank it is still the 1-rank curve (no link crossed) */
  n = cal_read("coll.csv");
  check_curve(&p, n, keep_allreduce, "allreduce", "hbm", 1, 0.05, CAL_STEM "-coll.csv");
  int rs = -1;
  const fu_curve *one = fu_profile_find(&p, "allreduce", "nvlink", 1, &rs);
  EXPECT(one && one->ranks == 1);
  EXPECT_INT_EQ(rs, 0);

  /* The published 8x H200 NVLS all-reduce: every point within issue 2's 8%. Then, reported
   * only, how far the calibrated curves are from the reference's own measurements. */
  static const struct {
    const char *file;        /* under data/reference */
    const char *op, *link;   /* rows and the curve they check */
    int ranks;
    double tol;              /* a failure beyond this; 0 = report only */
  } sets[] = {{"azure-nd-h200-v5-allreduce-nvls-8gpu.csv", "allreduce", "nvlink", 8, 0.08},
              {"h200-pcie-copies.csv", "h2d", "pcie_h2d", 1, 0},
              {"h200-pcie-copies.csv", "d2h", "pcie_d2h", 1, 0},
              {"h200-pcie-copies.csv", "d2d", "hbm", 1, 0},
              {"h200-1gpu-allreduce-nccl-tests.txt", "allreduce", "hbm", 1, 0}};
  for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++) {
    char path[1024];
    td_set d;
    snprintf(path, sizeof path, "%s/data/reference/%s", td_shared(), sets[k].file);
    long nr = strstr(sets[k].file, ".csv") ? td_read_csv(path, sets[k].op, &d) : td_read_nccl(path, 0, &d);
    EXPECT(nr >= 14);
    double worst = 0, worst_big = 0, worst_at = 0;
    int over3 = 0;
    for (size_t i = 0; i < d.n; i++) {
      double tf = NAN;
      EXPECT_INT_EQ(fu_profile_time(&p, sets[k].op, sets[k].link, sets[k].ranks, d.pts[i].bytes, &tf, NULL, NULL), FU_OK);
      double rel = (tf - d.pts[i].t_us) / d.pts[i].t_us;
      if (fabs(rel) > fabs(worst)) worst = rel, worst_at = d.pts[i].bytes;
      if (d.pts[i].bytes >= 65536 && fabs(rel) > fabs(worst_big)) worst_big = rel;
      over3 += d.pts[i].bytes >= 65536 && fabs(rel) > 0.03;
      if (sets[k].tol > 0 && fabs(rel) > sets[k].tol)
        FU_T_FAIL("default profile misses %s %s %.0f bytes: %.4g us vs %.4g us (%.1f%%)", sets[k].file, sets[k].op,
                  d.pts[i].bytes, tf, d.pts[i].t_us, 100 * rel);
      else if (sets[k].tol > 0)
        fu_test_passed++;
    }
    fprintf(stderr, "default profile vs %s %s (%s): %zu points, worst %+.1f%% at %.0f bytes; from 64 KiB: worst "
            "%+.1f%%, %d beyond 3%%\n", sets[k].file, sets[k].op, sets[k].tol > 0 ? "checked" : "reported only", d.n,
            100 * worst, worst_at, 100 * worst_big, over3);
  }
}

/* fu_segment_carry, by hand: an 8-rank NVLS all-reduce segment (60 us + 4e-6 us/B, CIs 50..70 and
 * 3.8e-6..4.2e-6) carried to 2 ranks on an H200 is NCCL's ring: 15.2 us (8.4 + 2 x 3.4), its CI
 * 15.2 x 50/60 .. 15.2 x 70/60, time per byte x 0.74 (Hopper's NVLS share), CIs likewise. On an
 * A100 (no NVLS share) or to 4 ranks it is rescaled as before (NVLS: 2 steps whatever the ranks,
 * busbw factor 1.5 / 1.75). */
static void test_carry(void) {
  const fu_segment s0 = {.lo_bytes = 0, .hi_bytes = 1e12, .alpha_us = 60, .beta_us_per_byte = 4e-6,
                         .alpha_ci = {50, 70}, .beta_ci = {3.8e-6, 4.2e-6}};
  fu_segment s = s0;
  EXPECT_INT_EQ(fu_segment_carry(&s, FU_OP_ALLREDUCE, FU_ALGO_NVLS, 8, 2, "NVIDIA H200"), FU_ALGO_RING);
  EXPECT_NEAR(s.alpha_us, 15.2, 1e-12);
  EXPECT_NEAR(s.alpha_ci[0], 15.2 * 50 / 60, 1e-12);
  EXPECT_NEAR(s.alpha_ci[1], 15.2 * 70 / 60, 1e-12);
  EXPECT_NEAR(s.beta_us_per_byte, 0.74 * 4e-6, 1e-18);
  EXPECT_NEAR(s.beta_ci[0], 0.74 * 3.8e-6, 1e-18);
  EXPECT_NEAR(s.beta_ci[1], 0.74 * 4.2e-6, 1e-18);
  s = s0;
  EXPECT_INT_EQ(fu_segment_carry(&s, FU_OP_ALLREDUCE, FU_ALGO_NVLS, 8, 2, "NVIDIA A100-SXM4-80GB"), FU_ALGO_NVLS);
  EXPECT_NEAR(s.beta_us_per_byte, 4e-6 * 1.0 / 1.75, 1e-18);
  s = s0;
  EXPECT_INT_EQ(fu_segment_carry(&s, FU_OP_ALLREDUCE, FU_ALGO_NVLS, 8, 4, "NVIDIA H200"), FU_ALGO_NVLS);
  EXPECT_NEAR(s.alpha_us, 60, 1e-12);
  EXPECT_NEAR(s.beta_us_per_byte, 4e-6 * 1.5 / 1.75, 1e-18);
}

/* Between one segment's last sample and the next one's first the time is the straight line
 * between their fitted times, by hand: [1 KiB, 1 MiB) 14 us + 1e-5 us/B sampled to 512 KiB
 * (19.24288 us there), [1 MiB, inf) 20 us + 1.75e-6 us/B sampled from 2 MiB (23.6700160 us).
 * Without the sizes (an older profile) each line as before. */
static void test_bridge(void) {
  fu_curve c;
  memset(&c, 0, sizeof c);
  c.nseg = 2;
  c.seg[0] = (fu_segment){1024, 1048576, 14.0, 1e-5, {13.0, 15.0}, {0.9e-5, 1.1e-5}, 0.03, 10, 0, 1024, 524288};
  c.seg[1] = (fu_segment){1048576, INFINITY, 20.0, 1.75e-6, {NAN, NAN}, {NAN, NAN}, 0.05, 4, 0, 2097152, 8388608};
  double ta = 14.0 + 1e-5 * 524288, tb = 20.0 + 1.75e-6 * 2097152;
  EXPECT_NEAR(fu_curve_time(&c, 524288, NULL, NULL), ta, 1e-9);              /* a sample: its line */
  EXPECT_NEAR(fu_curve_time(&c, 2097152, NULL, NULL), tb, 1e-9);
  EXPECT_NEAR(fu_curve_time(&c, 1048576, NULL, NULL), ta + (tb - ta) / 3, 1e-9); /* a third of the gap */
  EXPECT_NEAR(fu_curve_time(&c, 786432, NULL, NULL), ta + (tb - ta) / 6, 1e-9);  /* in segment 0's range */
  EXPECT_NEAR(fu_curve_time(&c, 4194304, NULL, NULL), 20.0 + 1.75e-6 * 4194304, 1e-9);
  c.seg[0].first_bytes = c.seg[0].last_bytes = c.seg[1].first_bytes = c.seg[1].last_bytes = 0;
  EXPECT_NEAR(fu_curve_time(&c, 786432, NULL, NULL), 14.0 + 1e-5 * 786432, 1e-9);
  EXPECT_NEAR(fu_curve_time(&c, 1048576, NULL, NULL), 20.0 + 1.75e-6 * 1048576, 1e-9);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "/tmp/fusim-test-profile-XXXXXX");
  if (!mkdtemp(tmpdir)) return 1;
  test_round_trip();
  test_errors();
  test_lookup();
  test_default();
  test_carry();
  test_bridge();
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
  return fu_test_report("test_profile");
}
