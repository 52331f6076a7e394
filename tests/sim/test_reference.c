/* test_reference.c: the simulator against measurements it was not fitted on, with the embedded
 * default profile (fitted to fusim calib of one H200; its pack curve is the batched pack
 * kernel's, its pack_handoff_us the back-to-back pack + copy excess). Each "fusion" row (k
 * separate D2H copies of m bytes, one copy of k*m bytes, the pack kernel plus one copy, all
 * timed from an idle start) is predicted as offload with overlap off on a workload of k tensors
 * of m bytes all ready at once (forward, backward and optimizer 0), plans none / single view /
 * single copy. Tolerance per row: 12% or 3.5 us, whichever is larger.
 *  1. data/validation/h200_pcie_fusion_table_run2.csv (`fusim validate --fusion-table`, another
 *     lease of the H200, the same pack kernel as the profile's curve): all three columns.
 *  2. $FUSIM_SHARED/data/reference/h200-pcie-copies.txt (the reference's H200): one copy at every
 *     size, and k separate copies from 1 MiB per message up (copy-bound). With 64 small
 *     messages the separate row is bound by the host's 64 issues, and the reference's host
 *     issued a copy in 2.125 us against the calibration host's 1.30 (data/calibration/README.md:
 *     host submission differed 1.7x between leases of the same day): printed, not checked. Its
 *     pack + copy column timed the reference's naive pack kernel (92.80 us against 90.61 for
 *     fusim's at 64 x 64 KiB), not the kernel the profile's curve measured: printed only.
 * The copy fits' own max_rel_err is about 5% below 64 KiB; back to back, 64 KiB copies measured
 * 2.99 us each against the 2.6 us the D2H line leaves after the issue (a per-copy DMA cost the
 * alpha-beta line does not separate); and the engine issues a bucket in one host step (pack
 * launch + copy issue, as the plan search assumes) before its pack runs. Skips (77) if neither
 * file is there. Prints every row, measured vs predicted. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_predict.h"
#include "fu_test.h"
#include "sim_util.h"

static double run(const fu_profile *prof, size_t k, uint64_t m, int fusion_single, int view) {
  fu_workload w;
  uint64_t *by = malloc(k * sizeof *by);
  double *rd = calloc(k, sizeof *rd);
  for (size_t i = 0; i < k; i++) by[i] = m;
  su_workload(&w, k, by, rd, 0, 0, 0);
  fu_plan p;
  su_plan(&p, 0, view, 1);
  fu_comm c;
  su_comm_offload(&c);
  size_t one = k, *cnt = malloc(k * sizeof *cnt);
  for (size_t i = 0; i < k; i++) cnt[i] = 1;
  fu_bucket *b = fusion_single ? su_buckets(&w, &one, 1) : su_buckets(&w, cnt, k);
  fu_result r;
  double t = NAN;
  if (fu_sim_predict_buckets(&w, &p, &c, prof, b, fusion_single ? 1 : k, NULL, &r) == FU_OK)
    t = r.iter_us;
  fu_result_finish(&r);
  free(b);
  free(cnt);
  free(by);
  free(rd);
  su_workload_free(&w);
  return t;
}

/* Predicts one row and checks the one-copy column and those asked for. */
static void row(const char *what, const fu_profile *prof, unsigned long k, unsigned long long m,
                double sep, double one, double pack, int check_sep, int check_pack) {
  double psep = run(prof, k, m, 0, 0);
  double pone = run(prof, 1, (uint64_t)k * m, 0, 0);
  double ppack = run(prof, k, m, 1, 0);
  fprintf(stderr,
          "%-10s k %3lu m %9llu  separate %9.2f vs %9.2f (%+5.1f%%)  one copy %9.2f vs %9.2f "
          "(%+5.1f%%)  pack+copy %9.2f vs %9.2f (%+5.1f%%)%s%s\n",
          what, k, m, sep, psep, 100 * (psep / sep - 1), one, pone, 100 * (pone / one - 1), pack,
          ppack, 100 * (ppack / pack - 1), check_sep ? "" : " (separate not checked)",
          check_pack ? "" : " (pack not checked)");
  if (check_sep) EXPECT_NEAR(psep, sep, fmax(0.12 * sep, 3.5));
  EXPECT_NEAR(pone, one, fmax(0.12 * one, 3.5));
  if (check_pack) EXPECT_NEAR(ppack, pack, fmax(0.12 * pack, 3.5));
}

int main(void) {
  fu_profile *prof = malloc(sizeof *prof);
  EXPECT_INT_EQ(fu_profile_load_default(prof), FU_OK);
  int files = 0, rows = 0;
  char path[1024], line[1024];
  /* 1. The validation run's fusion table. */
  const char *root = getenv("FUSIM_SOURCE_ROOT");
  snprintf(path, sizeof path, "%s/data/validation/h200_pcie_fusion_table_run2.csv", root ? root : ".");
  FILE *f = fopen(path, "r");
  if (f) {
    files++;
    while (fgets(line, sizeof line, f)) {
      unsigned long k;
      unsigned long long m;
      double sep, one, pack_alone, pack;
      if (line[0] == '#' ||
          sscanf(line, "%lu,%llu,%lf,%lf,%lf,%lf", &k, &m, &sep, &one, &pack_alone, &pack) != 6)
        continue;
      row("validation", prof, k, m, sep, one, pack, 1, 1);
      rows++;
    }
    fclose(f);
    EXPECT(rows >= 5);
  } else {
    fprintf(stderr, "test_reference: %s: missing\n", path);
  }
  /* 2. The reference's rows. */
  const char *shared = getenv("FUSIM_SHARED");
  snprintf(path, sizeof path, "%s/data/reference/h200-pcie-copies.txt", shared ? shared : "../shared");
  f = fopen(path, "r");
  if (f) {
    files++;
    int rrows = 0;
    while (fgets(line, sizeof line, f)) {
      unsigned long k;
      unsigned long long m;
      double sep, one, pack;
      if (sscanf(line, "fusion k %lu m %llu separate_us %lf one_copy_us %lf pack_plus_copy_us %lf",
                 &k, &m, &sep, &one, &pack) != 5)
        continue;
      row("reference", prof, k, m, sep, one, pack, m >= (1u << 20), 0);
      rrows++;
    }
    fclose(f);
    EXPECT(rrows >= 5);
  } else {
    fprintf(stderr, "test_reference: %s: missing\n", path);
  }
  free(prof);
  if (!files) return 77;
  return fu_test_report("test_reference");
}
