/* fu_fit.c: piecewise Hockney fitting (see fu_fit.h for the method). */
#include "fu_fit.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_fit.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

/* gsl_stats_mean reads a sample's times with stride 2 (fu_fit_point is two doubles). */
_Static_assert(sizeof(fu_fit_point) == 2 * sizeof(double), "fu_fit_point is {bytes, t_us}");

void fu_fit_options_init(fu_fit_options *o) {
  memset(o, 0, sizeof *o);
  o->method = FU_FIT_WLS;
  o->criterion = FU_FIT_TOLERANCE;
  o->max_segments = FU_FIT_MAX_SEGMENTS;
  o->min_points = 0;
  o->tolerance = 0.05;
  o->nonneg_alpha = 0;
}

const char *fu_fit_method_name(fu_fit_method m) { return m == FU_FIT_BISQUARE ? "bisquare" : "wls"; }

const char *fu_fit_criterion_name(fu_fit_criterion c) {
  return c == FU_FIT_BIC ? "bic" : c == FU_FIT_AIC ? "aic" : "tolerance";
}

void fu_fit_result_finish(fu_fit_result *r) {
  if (!r) return;
  free(r->points);
  free(r->fitted_us);
  free(r->segment_of);
  memset(r, 0, sizeof *r);
}

/* Summary of one line over a run of samples. */
typedef struct fu__line {
  double alpha, beta;        /* estimates */
  double cov00, cov01, cov11;/* covariance, already scaled by the residual variance */
  int dof;                   /* degrees of freedom left for the CI (0: exact line) */
  double sse;                /* sum of squared relative errors */
  double max_rel;            /* worst relative error */
  int negative;              /* free fit gave alpha < 0 */
  int clamped;               /* refitted with alpha = 0, and kept (not floored) */
  int floored;               /* raised to start at the floor (fu__shape) */
} fu__line;

/* Where a segment may start: its line at x0 (its first size) not below t_us. x0 = 0: none. */
typedef struct fu__floor {
  double x0, t_us;
} fu__floor;

/* 1 when the samples (sorted by size) never rise from one size to the next. */
static int fu__log_falls(const fu_fit_point *p, size_t n) {
  for (size_t i = 1; i < n; i++)
    if (p[i].bytes > p[i - 1].bytes && p[i].t_us > p[i - 1].t_us) return 0;
  return n >= 2;
}

/* Keeps a fitted line from pricing a bigger message below a smaller one where the samples do
 * not (x, y, w: the sizes, times and weights of the fit; x and y are shifted and restored).
 * (1) A falling line (beta < 0: flat sizes with noise, or an outlier at the small end) prices a
 * bigger message below a smaller one at every size it spans, even where the log rises: the
 * segment is a constant instead, the weighted mean of its times (alpha = sum(w t) / sum(w)).
 * Where the samples themselves never rise from one size to the next (a latency floor still
 * falling, such as the H200's D2H copies at 4-64 B), the falling line follows the log and is
 * kept: a constant would miss its first size by the whole fall.
 * (2) A line that starts below the floor (the previous segment's price at its last size) is the
 * weighted least-squares fit under the constraint that it does not: the constraint is active, so
 * the line passes through (x0, floor) and only its slope is fitted (a constant at the floor where
 * that slope falls and the log does not).
 * (3) With nonneg (--nonneg-alpha), a floor's line whose alpha falls below 0 holds alpha >= 0 as
 * well: the least-squares line through the origin whose slope b keeps it at or above the floor,
 * b = max(the origin's own slope, floor / x0) (the objective is a convex parabola in b).
 * *chisq is updated and *k set to the free parameters (2, 1 or 0); the covariance is unscaled
 * (the caller scales it by chisq / dof). */
static void fu__shape(const fu_fit_point *p, double *x, double *y, const double *w, size_t n, int nonneg,
                      const fu__floor *fl, fu__line *l, double *chisq, int *k) {
  int falls = fu__log_falls(p, n);
  *k = l->clamped ? 1 : 2;
  if (l->beta < 0 && !l->clamped && !falls) {
    double sw = 0;
    for (size_t i = 0; i < n; i++) sw += w[i];
    l->alpha = gsl_stats_wmean(w, 1, y, 1, n);
    l->beta = 0;
    l->cov00 = 1.0 / sw;
    l->cov01 = l->cov11 = 0;
    *chisq = gsl_stats_wtss_m(w, 1, y, 1, n, l->alpha);
    *k = 1;
    l->negative = 0;
  }
  if (!fl || !(fl->x0 > 0) || l->alpha + l->beta * fl->x0 >= fl->t_us) return;
  double c1, cov11, ss;
  for (size_t i = 0; i < n; i++) x[i] -= fl->x0, y[i] -= fl->t_us;
  int st = gsl_fit_wmul(x, 1, w, 1, y, 1, n, &c1, &cov11, &ss);
  for (size_t i = 0; i < n; i++) x[i] += fl->x0, y[i] += fl->t_us;
  l->floored = 1;
  l->negative = 0;
  l->clamped = 0; /* the floor's line replaces one through the origin: its own alpha and CI */
  if (st == GSL_SUCCESS && isfinite(c1) && (c1 >= 0 || falls)) {
    l->beta = c1;
    l->alpha = fl->t_us - c1 * fl->x0;
    l->cov11 = cov11;
    l->cov00 = fl->x0 * fl->x0 * cov11;
    l->cov01 = -fl->x0 * cov11;
    l->negative = l->alpha < 0;
    *chisq = ss;
    *k = 1;
  } else { /* at the floor: both constraints active, nothing left free, the CI unknown */
    l->alpha = fl->t_us;
    l->beta = 0;
    l->cov00 = l->cov01 = l->cov11 = NAN;
    *chisq = gsl_stats_wtss_m(w, 1, y, 1, n, l->alpha);
    *k = 0;
  }
  double c0, cov0, ss0;
  if (!nonneg || !(l->alpha < 0) || gsl_fit_wmul(x, 1, w, 1, y, 1, n, &c0, &cov0, &ss0) != GSL_SUCCESS) return;
  l->alpha = 0;
  l->beta = fmax(c0, fl->t_us / fl->x0);
  l->clamped = l->negative = 1; /* the floor's own line had alpha < 0 */
  l->cov00 = l->cov01 = 0;
  l->cov11 = cov0;
  *chisq = ss0;
  *k = 1;
  if (l->beta > c0) { /* at the floor: both constraints active, nothing left free, the CI unknown */
    l->cov00 = l->cov01 = l->cov11 = NAN;
    *chisq = 0;
    for (size_t i = 0; i < n; i++) *chisq += w[i] * (y[i] - l->beta * x[i]) * (y[i] - l->beta * x[i]);
    *k = 0;
  }
}

static void fu__line_errors(const fu_fit_point *p, size_t n, fu__line *l) {
  l->sse = 0;
  l->max_rel = 0;
  for (size_t i = 0; i < n; i++) {
    double r = (l->alpha + l->beta * p[i].bytes - p[i].t_us) / p[i].t_us;
    l->sse += r * r;
    if (fabs(r) > l->max_rel) l->max_rel = fabs(r);
  }
}

/* Weighted least squares with w = 1/t^2, shaped by fu__shape. O(n). x, y and w are scratch
 * arrays of n doubles. */
static int fu__wls(const fu_fit_point *p, size_t n, int nonneg, const fu__floor *fl, double *x, double *y,
                   double *w, fu__line *l) {
  memset(l, 0, sizeof *l);
  for (size_t i = 0; i < n; i++) {
    x[i] = p[i].bytes;
    y[i] = p[i].t_us;
    w[i] = 1.0 / (p[i].t_us * p[i].t_us);
  }
  double chisq;
  if (gsl_fit_wlinear(x, 1, w, 1, y, 1, n, &l->alpha, &l->beta, &l->cov00, &l->cov01, &l->cov11,
                      &chisq) != GSL_SUCCESS ||
      !isfinite(l->alpha) || !isfinite(l->beta))
    return FU_EDATA;
  l->dof = (int)n - 2;
  l->negative = l->alpha < 0;
  if (nonneg && l->alpha < 0) {
    double c1, cov11;
    if (gsl_fit_wmul(x, 1, w, 1, y, 1, n, &c1, &cov11, &chisq) != GSL_SUCCESS) return FU_EDATA;
    l->alpha = 0;
    l->beta = c1;
    l->cov00 = l->cov01 = 0;
    l->cov11 = cov11;
    l->dof = (int)n - 1;
    l->clamped = 1;
  }
  int k;
  fu__shape(p, x, y, w, n, nonneg, fl, l, &chisq, &k);
  l->dof = (int)n - k;
  /* gsl_fit_wlinear's covariance takes the weights as 1/sigma^2; ours are relative, so scale
   * by the residual variance chisq / dof. */
  double s2 = l->dof > 0 ? chisq / l->dof : NAN;
  l->cov00 *= s2;
  l->cov01 *= s2;
  l->cov11 *= s2;
  return FU_OK;
}

/* Tukey bisquare on the relative scale by iteratively reweighted least squares: each pass is
 * gsl_fit_wlinear with weights (1/t^2) * (1 - u^2)^2, u = r / (4.685 s), r the relative
 * residual and s = MAD(r) / 0.6745 (floored at 1e-6 so exact data stays put). Up to 50
 * passes, stopping when alpha and beta move by less than 1e-9 relative. The CIs use the
 * final weighted covariance scaled by chisq / (sum of bisquare weights - free parameters), the
 * line shaped by fu__shape under the final weights. Needs n >= 3.
 * (gsl_multifit_robust works on absolute residuals; on the rows divided by t its scale
 * estimate did not reject a 50% outlier in our tests, hence this loop.) O(50 n log n). */
static int fu__bisquare(const fu_fit_point *p, size_t n, const fu__floor *fl, double *x, double *y,
                        double *w, fu__line *l) {
  double *r = malloc(2 * n * sizeof *r), *bw = r ? r + n : NULL;
  if (!r) return FU_ENOMEM;
  for (size_t i = 0; i < n; i++) {
    x[i] = p[i].bytes;
    y[i] = p[i].t_us;
    bw[i] = 1.0;
  }
  double a = 0, b = 0, c00 = 0, c01 = 0, c11 = 0, chisq = 0;
  int st = FU_OK;
  for (int it = 0; it < 50; it++) {
    for (size_t i = 0; i < n; i++) w[i] = bw[i] / (y[i] * y[i]);
    double na, nb;
    if (gsl_fit_wlinear(x, 1, w, 1, y, 1, n, &na, &nb, &c00, &c01, &c11, &chisq) != GSL_SUCCESS ||
        !isfinite(na) || !isfinite(nb)) {
      st = FU_EDATA;
      break;
    }
    int done = it > 0 && fabs(na - a) <= 1e-9 * fabs(a) + 1e-300 && fabs(nb - b) <= 1e-9 * fabs(b) + 1e-300;
    a = na;
    b = nb;
    if (done) break;
    for (size_t i = 0; i < n; i++) r[i] = fabs((a + b * x[i] - y[i]) / y[i]);
    double *sorted = w; /* w is rebuilt at the top of the next pass */
    memcpy(sorted, r, n * sizeof *r);
    gsl_sort(sorted, 1, n);
    double s = gsl_stats_median_from_sorted_data(sorted, 1, n) / 0.6745;
    if (s < 1e-6) s = 1e-6;
    for (size_t i = 0; i < n; i++) {
      double u = r[i] / (4.685 * s);
      bw[i] = u < 1 ? (1 - u * u) * (1 - u * u) : 0;
    }
  }
  if (st == FU_OK) {
    double neff = 0;
    for (size_t i = 0; i < n; i++) neff += bw[i];
    memset(l, 0, sizeof *l);
    l->alpha = a;
    l->beta = b;
    l->cov00 = c00;
    l->cov01 = c01;
    l->cov11 = c11;
    l->negative = a < 0;
    for (size_t i = 0; i < n; i++) w[i] = bw[i] / (y[i] * y[i]); /* the last pass may have sorted w */
    int k;
    fu__shape(p, x, y, w, n, 0, fl, l, &chisq, &k); /* fu__fit_run refits a negative alpha under nonneg */
    l->dof = neff > k + 0.5 ? (int)floor(neff - k + 0.5) : 0;
    double s2 = neff > k ? chisq / (neff - k) : NAN;
    l->cov00 *= s2;
    l->cov01 *= s2;
    l->cov11 *= s2;
  }
  free(r);
  return st;
}

static void fu__line_to_segment(const fu__line *l, size_t n, fu_segment *s) {
  s->alpha_us = l->alpha;
  s->beta_us_per_byte = l->beta;
  s->n_samples = (int)n;
  s->max_rel_err = l->max_rel;
  if (l->dof > 0 && l->cov00 >= 0 && l->cov11 >= 0) {
    double tq = gsl_cdf_tdist_Pinv(0.975, l->dof);
    double ea = tq * sqrt(l->cov00), eb = tq * sqrt(l->cov11);
    s->alpha_ci[0] = l->alpha - ea;
    s->alpha_ci[1] = l->alpha + ea;
    s->beta_ci[0] = l->beta - eb;
    s->beta_ci[1] = l->beta + eb;
  } else {
    s->alpha_ci[0] = s->alpha_ci[1] = s->beta_ci[0] = s->beta_ci[1] = NAN;
  }
  if (l->clamped) s->alpha_ci[0] = s->alpha_ci[1] = 0;
}

/* Fit one run of sorted samples with the chosen method, starting at or above fl (may be NULL);
 * scratch holds 3n doubles. */
static int fu__fit_run(const fu_fit_point *p, size_t n, fu_fit_method m, int nonneg, const fu__floor *fl,
                       double *scratch, fu__line *l) {
  int st;
  if (m == FU_FIT_BISQUARE && n >= 3) {
    st = fu__bisquare(p, n, fl, scratch, scratch + n, scratch + 2 * n, l);
    if (st == FU_OK && nonneg && l->alpha < 0) st = fu__wls(p, n, 1, fl, scratch, scratch + n, scratch + 2 * n, l);
  } else {
    st = fu__wls(p, n, nonneg, fl, scratch, scratch + n, scratch + 2 * n, l);
  }
  if (st == FU_OK) fu__line_errors(p, n, l);
  return st;
}

static int fu__cmp_point(const void *a, const void *b) {
  const fu_fit_point *x = a, *y = b;
  if (x->bytes != y->bytes) return x->bytes < y->bytes ? -1 : 1;
  if (x->t_us != y->t_us) return x->t_us < y->t_us ? -1 : 1;
  return 0;
}

int fu_fit_line(const fu_fit_point *pts, size_t n, fu_fit_method method, int nonneg_alpha,
                fu_segment *seg, int *alpha_negative) {
  if (n < 2) return FU_EDATA;
  fu_fit_point *p = malloc(n * sizeof *p);
  double *scratch = malloc(3 * n * sizeof *scratch);
  if (!p || !scratch) {
    free(p);
    free(scratch);
    return FU_ENOMEM;
  }
  memcpy(p, pts, n * sizeof *p);
  qsort(p, n, sizeof *p, fu__cmp_point);
  int st = FU_EDATA;
  fu__line l;
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  if (p[0].bytes != p[n - 1].bytes) st = fu__fit_run(p, n, method, nonneg_alpha, NULL, scratch, &l);
  gsl_set_error_handler(old);
  if (st == FU_OK) {
    memset(seg, 0, sizeof *seg);
    fu__line_to_segment(&l, n, seg);
    seg->lo_bytes = p[0].bytes;
    seg->hi_bytes = INFINITY;
    seg->first_bytes = p[0].bytes;
    seg->last_bytes = p[n - 1].bytes;
    if (alpha_negative) *alpha_negative = l.negative;
  }
  free(p);
  free(scratch);
  return st;
}

/* The dynamic programme. Groups are runs of equal sizes; a segment is groups [a, b). */
typedef struct fu__dp {
  size_t G;                  /* distinct sizes */
  size_t *gs;                /* gs[g]: first sample of group g; gs[G] = n */
  double *sse;               /* sse[a * (G+1) + b]: segment cost (INFINITY if not allowed) */
  double *mre;               /* worst relative error of segment [a, b) */
} fu__dp;

#define FU__IDX(dp, a, b) ((a) * ((dp)->G + 1) + (b))

/* Best split into exactly k segments for every k <= K under one of two objectives: the sum of
 * cost (with segments over `cap` worst error disallowed), or the minimax worst error. For
 * each k, val[k] gets the objective (INFINITY when no split exists) and cuts[k][0..k] the
 * split's boundaries as group indices. O(K G^2) time, O(K G) memory. */
static int fu__dp_solve(const fu__dp *dp, int K, int minimax, double cap, double *val, int **cuts) {
  size_t G = dp->G;
  double *f = malloc((size_t)(K + 1) * (G + 1) * sizeof *f);
  size_t *from = malloc((size_t)(K + 1) * (G + 1) * sizeof *from);
  if (!f || !from) {
    free(f);
    free(from);
    return FU_ENOMEM;
  }
  for (size_t i = 0; i < (size_t)(K + 1) * (G + 1); i++) f[i] = INFINITY;
  f[0] = 0; /* zero segments cover zero groups */
  for (int k = 1; k <= K; k++) {
    for (size_t b = 1; b <= G; b++) {
      double best = INFINITY;
      size_t arg = 0;
      for (size_t a = 0; a < b; a++) {
        double prev = f[(size_t)(k - 1) * (G + 1) + a];
        if (!isfinite(prev)) continue;
        double c = dp->sse[FU__IDX(dp, a, b)], e = dp->mre[FU__IDX(dp, a, b)];
        if (!isfinite(c)) continue;
        double v;
        if (minimax) {
          v = prev > e ? prev : e;
        } else {
          if (e > cap) continue;
          v = prev + c;
        }
        if (v < best) {
          best = v;
          arg = a;
        }
      }
      f[(size_t)k * (G + 1) + b] = best;
      from[(size_t)k * (G + 1) + b] = arg;
    }
  }
  for (int k = 1; k <= K; k++) {
    val[k] = f[(size_t)k * (G + 1) + G];
    if (!isfinite(val[k])) continue;
    size_t b = G;
    cuts[k][k] = (int)G;
    for (int j = k; j >= 1; j--) {
      size_t a = from[(size_t)j * (G + 1) + b];
      cuts[k][j - 1] = (int)a;
      b = a;
    }
  }
  free(f);
  free(from);
  return FU_OK;
}

static int fu__fit_piecewise(const fu_fit_point *pts, size_t n, const fu_fit_options *o, const char *what,
                             fu_fit_result *out);

/* min_points 0 (auto): 3 samples per segment, so that every segment has a residual degree of
 * freedom and a CI (a 2-point segment is an exact line: 0% error and nothing learnt); a short
 * sweep that cannot reach the tolerance that way gets fewer, longer segments instead. Only a
 * fit of fewer than 3 samples has a 2-point segment. */
int fu_fit_piecewise(const fu_fit_point *pts, size_t n, const fu_fit_options *o, const char *what,
                     fu_fit_result *out) {
  fu_fit_options def;
  if (!o) {
    fu_fit_options_init(&def);
    o = &def;
  }
  if (o->min_points != 0) return fu__fit_piecewise(pts, n, o, what, out);
  fu_fit_options three = *o;
  three.min_points = n < 3 ? 2 : 3;
  return fu__fit_piecewise(pts, n, &three, what, out);
}

static int fu__fit_piecewise(const fu_fit_point *pts, size_t n, const fu_fit_options *o, const char *what,
                             fu_fit_result *out) {
  if (!what) what = "samples";
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < n; i++)
    if (!(isfinite(pts[i].bytes) && pts[i].bytes > 0 && isfinite(pts[i].t_us) && pts[i].t_us > 0)) {
      fu_error("%s: sample %zu has size %g bytes and time %g us; both must be positive numbers", what,
               i + 1, pts[i].bytes, pts[i].t_us);
      return FU_EDATA;
    }
  if (o->min_points < 2 || o->max_segments < 1 || !(o->tolerance > 0)) {
    fu_error("%s: fit options out of range (min points %d, max segments %d, tolerance %g)", what,
             o->min_points, o->max_segments, o->tolerance);
    return FU_EUSAGE;
  }
  int st = FU_ENOMEM;
  fu__dp dp = {0};
  double *scratch = NULL;
  int *cutbuf = NULL;
  int *cuts[FU_FIT_MAX_SEGMENTS + 1] = {0};
  out->n = n;
  out->points = malloc((n ? n : 1) * sizeof *out->points);
  out->fitted_us = malloc((n ? n : 1) * sizeof *out->fitted_us);
  out->segment_of = malloc((n ? n : 1) * sizeof *out->segment_of);
  scratch = malloc((3 * n + 3) * sizeof *scratch);
  if (!out->points || !out->fitted_us || !out->segment_of || !scratch) goto done;
  if (n) memcpy(out->points, pts, n * sizeof *pts);
  qsort(out->points, n, sizeof *out->points, fu__cmp_point);
  const fu_fit_point *p = out->points;

  /* Groups of equal sizes. */
  dp.gs = malloc((n + 1) * sizeof *dp.gs);
  if (!dp.gs) goto done;
  for (size_t i = 0; i < n; i++)
    if (i == 0 || p[i].bytes != p[i - 1].bytes) dp.gs[dp.G++] = i;
  dp.gs[dp.G] = n;
  if (dp.G < 2) {
    fu_error("%s: %zu sample(s) at %zu distinct size(s); a line needs at least 2 sizes", what, n, dp.G);
    st = FU_EDATA;
    goto done;
  }
  size_t G = dp.G;
  int K = o->max_segments < FU_FIT_MAX_SEGMENTS ? o->max_segments : FU_FIT_MAX_SEGMENTS;
  if ((size_t)K > G / 2) K = (int)(G / 2);
  if (K < 1) K = 1;

  /* Every admissible segment: >= 2 sizes and >= min_points samples. O(G^2 n). */
  dp.sse = malloc(G * (G + 1) * sizeof *dp.sse);
  dp.mre = malloc(G * (G + 1) * sizeof *dp.mre);
  cutbuf = malloc((size_t)(K + 1) * (K + 1) * sizeof *cutbuf);
  if (!dp.sse || !dp.mre || !cutbuf) goto done;
  for (int k = 0; k <= K; k++) cuts[k] = cutbuf + (size_t)k * (K + 1);
  gsl_error_handler_t *old = gsl_set_error_handler_off();
  for (size_t a = 0; a < G; a++)
    for (size_t b = a + 1; b <= G; b++) {
      size_t i0 = dp.gs[a], m = dp.gs[b] - i0;
      dp.sse[FU__IDX(&dp, a, b)] = dp.mre[FU__IDX(&dp, a, b)] = INFINITY;
      if (b - a < 2 || m < (size_t)o->min_points) continue;
      fu__line l;
      if (fu__fit_run(p + i0, m, FU_FIT_WLS, o->nonneg_alpha, NULL, scratch, &l) != FU_OK) continue;
      dp.sse[FU__IDX(&dp, a, b)] = l.sse;
      dp.mre[FU__IDX(&dp, a, b)] = l.max_rel;
    }
  gsl_set_error_handler(old);

  double val_sum[FU_FIT_MAX_SEGMENTS + 1], val_mm[FU_FIT_MAX_SEGMENTS + 1];
  int *cuts_mm[FU_FIT_MAX_SEGMENTS + 1];
  int *cutbuf_mm = malloc((size_t)(K + 1) * (K + 1) * sizeof *cutbuf_mm);
  if (!cutbuf_mm) goto done;
  for (int k = 0; k <= K; k++) cuts_mm[k] = cutbuf_mm + (size_t)k * (K + 1);
  double cap = o->criterion == FU_FIT_TOLERANCE ? o->tolerance : INFINITY;
  if ((st = fu__dp_solve(&dp, K, 0, cap, val_sum, cuts)) != FU_OK ||
      (st = fu__dp_solve(&dp, K, 1, 0, val_mm, cuts_mm)) != FU_OK) {
    free(cutbuf_mm);
    goto done;
  }
  int kbest = 0;
  const int *cut = NULL;
  if (o->criterion == FU_FIT_TOLERANCE) {
    for (int k = 1; k <= K && !kbest; k++)
      if (isfinite(val_sum[k])) kbest = k;
    if (kbest) cut = cuts[kbest];
  } else {
    double best = INFINITY;
    for (int k = 1; k <= K; k++) {
      if (!isfinite(val_sum[k])) continue;
      double pen = o->criterion == FU_FIT_AIC ? 2.0 : log((double)n);
      double b = (double)n * log(fmax(val_sum[k], 1e-300) / (double)n) + (3.0 * k - 1) * pen;
      if (b < best - 1e-9) {
        best = b;
        kbest = k;
      }
    }
    if (kbest) cut = cuts[kbest];
  }
  if (!kbest) { /* nothing within tolerance: the split with the smallest worst error */
    double best = INFINITY;
    for (int k = 1; k <= K; k++)
      if (val_mm[k] < best * (1 - 1e-9)) {
        best = val_mm[k];
        kbest = k;
      }
    if (!kbest) {
      fu_error("%s: no admissible segmentation (%zu samples at %zu sizes, at least %d per segment)",
               what, n, G, o->min_points);
      free(cutbuf_mm);
      st = FU_EDATA;
      goto done;
    }
    memcpy(cutbuf, cuts_mm[kbest], (size_t)(kbest + 1) * sizeof *cutbuf);
    cut = cutbuf;
  }
  int cutv[FU_FIT_MAX_SEGMENTS + 1];
  memcpy(cutv, cut, (size_t)(kbest + 1) * sizeof *cutv);
  free(cutbuf_mm);

  /* Final fits with the chosen method, left to right. Where the samples do not fall from the
   * previous segment's last size to this one's first (mean times per size), this segment does not
   * start below the price the previous one gives that last size: a fit must not invent a fall the
   * data does not show. Where they do fall (NCCL's switch to a faster protocol) nothing is
   * imposed: a floor set from the measured fall would carry its noise into the line. The
   * breakpoints stay those of the unconstrained fits. */
  out->nseg = kbest;
  old = gsl_set_error_handler_off();
  st = FU_OK;
  for (int s = 0; s < kbest && st == FU_OK; s++) {
    size_t i0 = dp.gs[cutv[s]], i1 = dp.gs[cutv[s + 1]];
    fu__floor fl = {0, 0};
    if (s > 0) {
      size_t j0 = dp.gs[cutv[s] - 1]; /* the previous segment's last size: samples j0 .. i0-1 */
      size_t j1 = dp.gs[cutv[s] + 1]; /* this one's first: i0 .. j1-1 */
      const fu_segment *u = &out->seg[s - 1];
      if (gsl_stats_mean(&p[i0].t_us, 2, j1 - i0) >= gsl_stats_mean(&p[j0].t_us, 2, i0 - j0)) {
        fl.x0 = p[i0].bytes;
        fl.t_us = u->alpha_us + u->beta_us_per_byte * p[i0 - 1].bytes;
      }
    }
    fu__line l;
    st = fu__fit_run(p + i0, i1 - i0, o->method, o->nonneg_alpha, &fl, scratch, &l);
    if (st != FU_OK) {
      fu_error("%s: line fit failed over sizes %g..%g bytes", what, p[i0].bytes, p[i1 - 1].bytes);
      break;
    }
    fu__line_to_segment(&l, i1 - i0, &out->seg[s]);
    out->seg[s].first_bytes = p[i0].bytes;
    out->seg[s].last_bytes = p[i1 - 1].bytes;
    out->first[s] = (int)i0;
    out->alpha_negative[s] = l.negative;
    out->alpha_clamped[s] = l.clamped;
    out->floored[s] = l.floored;
    for (size_t i = i0; i < i1; i++) out->segment_of[i] = s;
  }
  gsl_set_error_handler(old);
  if (st != FU_OK) goto done;

  /* Boundaries: where neighbouring lines cross inside the gap between their samples, else the
   * end of the gap with the smaller jump. */
  out->seg[0].lo_bytes = p[0].bytes;
  for (int s = 1; s < kbest; s++) {
    double last = p[out->first[s] - 1].bytes, first = p[out->first[s]].bytes;
    const fu_segment *u = &out->seg[s - 1], *v = &out->seg[s];
    /* Where the lines do not cross in the gap, the jump between them is smallest at one end
     * (the difference is linear): just after the last size of segment s-1, or at the first of s. */
    double just_after = fmin(last + 1, first);
    double j_lo = fabs(u->alpha_us + u->beta_us_per_byte * just_after - v->alpha_us - v->beta_us_per_byte * just_after);
    double j_hi = fabs(u->alpha_us + u->beta_us_per_byte * first - v->alpha_us - v->beta_us_per_byte * first);
    double b = j_lo < j_hi ? just_after : first;
    if (u->beta_us_per_byte != v->beta_us_per_byte) {
      double x = (v->alpha_us - u->alpha_us) / (u->beta_us_per_byte - v->beta_us_per_byte);
      if (x > last && x <= first) b = x;
    }
    out->seg[s - 1].hi_bytes = b;
    out->seg[s].lo_bytes = b;
  }
  out->seg[kbest - 1].hi_bytes = INFINITY;

  out->max_rel_err = 0;
  out->sse = 0;
  for (size_t i = 0; i < n; i++) {
    const fu_segment *s = &out->seg[out->segment_of[i]];
    out->fitted_us[i] = s->alpha_us + s->beta_us_per_byte * p[i].bytes;
    double r = (out->fitted_us[i] - p[i].t_us) / p[i].t_us;
    out->sse += r * r;
    if (fabs(r) > out->max_rel_err) {
      out->max_rel_err = fabs(r);
      out->worst = i;
    }
  }
  out->bic = (double)n * log(fmax(out->sse, 1e-300) / (double)n) + (3.0 * kbest - 1) * log((double)n);
  out->met_tolerance = out->max_rel_err <= o->tolerance;
  st = FU_OK;

done:
  free(dp.gs);
  free(dp.sse);
  free(dp.mre);
  free(cutbuf);
  free(scratch);
  if (st != FU_OK) fu_fit_result_finish(out);
  return st;
}
