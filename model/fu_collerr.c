/* fu_collerr.c: the cost model's error on the logs it was fitted on (see fu_collerr.h). */
#include "fu_collerr.h"

#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

int fu_collerr_band(double bytes) {
  static const double edge[FU_COLLERR_BANDS] = FU_COLLERR_BAND_EDGES;
  int b = 0;
  while (b + 1 < FU_COLLERR_BANDS && bytes >= edge[b + 1]) b++;
  return b;
}

int fu_collerr_fit(const double *bytes, const double *r, size_t n, const char *source, fu_collerr *out) {
  memset(out, 0, sizeof *out);
  double *v = malloc((n ? n : 1) * sizeof *v);
  if (!v) return FU_ENOMEM;
  for (int b = 0; b < FU_COLLERR_BANDS; b++) {
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
      if (fu_collerr_band(bytes[i]) == b && isfinite(r[i])) v[m++] = r[i];
    if (m == 0) continue;
    gsl_sort(v, 1, m);
    out->n[b] = (int)m;
    out->lo[b] = gsl_stats_quantile_from_sorted_data(v, 1, m, 0.025);
    out->hi[b] = gsl_stats_quantile_from_sorted_data(v, 1, m, 0.975);
  }
  free(v);
  snprintf(out->source, sizeof out->source, "%s", source ? source : "");
  return FU_OK;
}

/* The ln bounds at band b: those recorded, or for a borrowed network those widened
 * (FU_COLLERR_BORROW_*); 0 where there are none. */
static int fu__bounds(const fu_collerr *e, int b, double *lo, double *hi) {
  static const double dflt[FU_COLLERR_BANDS][2] = FU_COLLERR_BORROW_DEFAULT;
  if (!e || (!e->n[b] && !e->borrowed)) return 0;
  *lo = e->n[b] ? e->lo[b] : dflt[b][0];
  *hi = e->n[b] ? e->hi[b] : dflt[b][1];
  if (e->borrowed && e->n[b]) {
    *lo *= FU_COLLERR_BORROW_WIDEN;
    *hi *= FU_COLLERR_BORROW_WIDEN;
  }
  if (e->borrowed) {
    *lo = fmin(*lo, -FU_COLLERR_BORROW_MIN);
    *hi = fmax(*hi, FU_COLLERR_BORROW_MIN);
  }
  return 1;
}

int fu_collerr_recorded(const fu_collerr *e, double bytes) {
  double lo, hi;
  return fu__bounds(e, fu_collerr_band(bytes), &lo, &hi);
}

void fu_collerr_interval(const fu_collerr *e, double bytes, double t_us, double band, double *lo_us,
                         double *hi_us) {
  double lo, hi;
  *lo_us = t_us / (1 + band);
  *hi_us = t_us * (1 + band);
  if (fu__bounds(e, fu_collerr_band(bytes), &lo, &hi)) {
    *lo_us = fmin(*lo_us, t_us * exp(lo));
    *hi_us = fmax(*hi_us, t_us * exp(hi));
  }
}
