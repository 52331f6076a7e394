/* test_reference.c: the simulator against measurements it was not fitted on. The embedded
 * default profile is fitted to the H200 copy curves (h2d, d2h, d2d) and takes issue_us from the
 * 64 x 4 KiB row; the "fusion" rows of $FUSIM_SHARED/data/reference/h200-pcie-copies.txt (k
 * separate D2H copies of m bytes, one copy of k*m bytes, a pack kernel plus one copy) are
 * predicted here as offload with overlap off on a workload of k tensors of m bytes all ready
 * at once (forward, backward and optimizer 0), plans none / single view / single copy.
 * Tolerance per row: 12% or 3.5 us, whichever is larger. The copy fits' own max_rel_err is
 * about 2.4%; back to back, 64 KiB copies measured 2.99 us each against the 2.6 us the D2H line
 * leaves after the issue (a per-copy DMA cost the alpha-beta line does not separate: -10.7% on
 * that row); and the engine issues a bucket in one host step (pack launch + copy issue, as the
 * plan search assumes) before its pack runs, which overstates tiny packed buckets by up to one
 * launch (3.7 us; 64 x 4 KiB: 17.1 us predicted, 13.9 measured). Skips (77) if the reference
 * file is missing. Prints every row, measured vs predicted. (Before fu_cost.c took the issue
 * out of the copy curves, 64 separate 4 KiB copies came out at 64 x 3.65 = 234 us: +72%.) */
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

int main(void) {
  const char *shared = getenv("FUSIM_SHARED");
  char path[1024];
  snprintf(path, sizeof path, "%s/data/reference/h200-pcie-copies.txt", shared ? shared : "../shared");
  FILE *f = fopen(path, "r");
  if (!f) {
    fprintf(stderr, "test_reference: %s: missing, skipped\n", path);
    return 77;
  }
  fu_profile *prof = malloc(sizeof *prof);
  EXPECT_INT_EQ(fu_profile_load_default(prof), FU_OK);
  char line[512];
  int rows = 0;
  while (fgets(line, sizeof line, f)) {
    unsigned long k;
    unsigned long long m;
    double sep, one, pack;
    if (sscanf(line, "fusion k %lu m %llu separate_us %lf one_copy_us %lf pack_plus_copy_us %lf", &k,
               &m, &sep, &one, &pack) != 5)
      continue;
    double psep = run(prof, k, m, 0, 0);
    double pone = run(prof, 1, (uint64_t)k * m, 0, 0);
    double ppack = run(prof, k, m, 1, 0);
    fprintf(stderr,
            "k %3lu m %9llu  separate %9.2f vs %9.2f (%+5.1f%%)  one copy %9.2f vs %9.2f (%+5.1f%%)"
            "  pack+copy %9.2f vs %9.2f (%+5.1f%%)\n",
            k, m, sep, psep, 100 * (psep / sep - 1), one, pone, 100 * (pone / one - 1), pack, ppack,
            100 * (ppack / pack - 1));
    EXPECT_NEAR(psep, sep, fmax(0.12 * sep, 3.5));
    EXPECT_NEAR(pone, one, fmax(0.12 * one, 3.5));
    EXPECT_NEAR(ppack, pack, fmax(0.12 * pack, 3.5));
    rows++;
  }
  fclose(f);
  EXPECT(rows >= 5);
  free(prof);
  return fu_test_report("test_reference");
}
