/* fu_fit.h: piecewise Hockney (alpha-beta) fitting of measured (bytes, time) samples.
 *
 * Each segment is a weighted least-squares line t = alpha + beta * n with weights 1/t^2, so the
 * fit minimises the sum of squared RELATIVE errors (times span six decades: a 10 us point and a
 * 30 ms point count alike). The 95% confidence intervals of alpha and beta come from the
 * covariance of that fit scaled by the residual variance (the weights are relative, not known
 * variances) and Student's t with n-2 degrees of freedom. A 2-point segment is an exact line:
 * its CIs are NaN (unknown) and reported as such.
 *
 * Breakpoints come from the data: the sorted distinct sizes are split into contiguous segments
 * by dynamic programming over all split positions (O(K * G^2) for G distinct sizes and at most
 * K segments, after O(G^2 * n) segment fits). Two criteria:
 *   tolerance (default): the fewest segments for which every sample is within `tolerance`
 *     relative error of its segment's line, and among those the split with the least weighted
 *     SSE. When no split of <= K segments meets the tolerance, the split minimising the worst
 *     relative error is kept and met_tolerance is 0.
 *   bic: minimise N ln(SSE/N) + (3k - 1) ln N over k (two parameters per segment plus k-1
 *     breakpoints), for noisy data where the tolerance would chase the noise.
 *   aic: the same with a penalty of 2 per parameter instead of ln N: above 7 samples (ln N > 2)
 *     it keeps more segments than bic on the same data.
 * Segment i covers [lo, hi): lo of segment 0 is the smallest size, hi of the last is +inf; an
 * inner boundary lies between the last size of segment i and the first of segment i+1: where
 * the two lines cross when they do there (so the curve is continuous), else at the end of that
 * gap where the jump between the lines is smaller (1 byte past the last size of segment i, or
 * the first size of segment i+1), so that neither line is carried far outside its samples.
 *
 * A bigger message is not priced below a smaller one unless the samples say so. A line that
 * falls (beta < 0) over a segment whose samples rise somewhere is a constant instead (their
 * weighted mean); one whose samples never rise keeps its falling line (a latency floor still
 * falling). Segments are fitted left to right, and where the mean time does not fall from one
 * segment's last size to the next one's first, the next one's line is the least-squares fit
 * that does not start below the previous line's price at that last size (floored: it passes
 * through (first size, that price) and only beta is fitted, or it is that price where beta
 * would fall; CIs from beta alone). Both rules hold for --robust's bisquare fits as well.
 *
 * alpha is fitted freely. A negative alpha (a segment's line crossing zero left of its sizes,
 * which happens where bandwidth falls with size) is reported in alpha_negative; with
 * nonneg_alpha the segment is refitted through the origin (alpha = 0, CI [0, 0]); a floored
 * segment holds it too: where the floor's line would cross zero, it is the line through the
 * origin that does not start below the floor (its slope the origin's own where that clears the
 * floor, else floor / first size, beta's CI then unknown), alpha_clamped and alpha_negative set.
 * The robust option refits each chosen segment with Tukey bisquare weights on the same
 * relative scale (IRLS over gsl_fit_wlinear, see fu_fit.c); breakpoints are chosen by the
 * least-squares criterion. */
#ifndef FU_FIT_H
#define FU_FIT_H

#include <stddef.h>

#include "fu_profile.h"

/* Most segments one fit makes (a stored curve may hold more: FU_MAX_SEGMENTS). */
#define FU_FIT_MAX_SEGMENTS 8

typedef struct fu_fit_point {
  double bytes;              /* message size, bytes (> 0) */
  double t_us;               /* measured time, microseconds (> 0) */
} fu_fit_point;

typedef enum fu_fit_method { FU_FIT_WLS, FU_FIT_BISQUARE } fu_fit_method;
typedef enum fu_fit_criterion { FU_FIT_TOLERANCE, FU_FIT_BIC, FU_FIT_AIC } fu_fit_criterion;

typedef struct fu_fit_options {
  fu_fit_method method;      /* line fit per segment: weighted least squares or bisquare */
  fu_fit_criterion criterion;/* how the number of segments is chosen */
  int max_segments;          /* at most this many segments (1 .. FU_FIT_MAX_SEGMENTS) */
  int min_points;            /* samples per segment, >= 2 (2 gives an exact line, no CI); 0 auto:
                                3 (2 only for a fit of fewer than 3 samples) */
  double tolerance;          /* target worst relative error (tolerance criterion), e.g. 0.05 */
  int nonneg_alpha;          /* refit a segment through the origin when its alpha is < 0 */
} fu_fit_options;

/* Defaults: WLS, tolerance 0.05, FU_FIT_MAX_SEGMENTS segments, min_points auto, free alpha. */
void fu_fit_options_init(fu_fit_options *o);

typedef struct fu_fit_result {
  int nseg;                  /* segments found */
  fu_segment seg[FU_FIT_MAX_SEGMENTS]; /* the segments, ascending (CIs NaN when unknown) */
  int first[FU_FIT_MAX_SEGMENTS];      /* index into points[] of each segment's first sample */
  int alpha_negative[FU_FIT_MAX_SEGMENTS]; /* 1 when the free fit gave alpha < 0 */
  int alpha_clamped[FU_FIT_MAX_SEGMENTS];  /* 1 when the segment's line is the refit with alpha = 0
                                              (not where the floor replaced it) */
  int floored[FU_FIT_MAX_SEGMENTS];        /* 1 when the segment was held to start at the previous
                                              one's price (see the header comment) */
  size_t n;                  /* samples */
  fu_fit_point *points;      /* the samples sorted by size (owned) */
  double *fitted_us;         /* the fitted time at each sample (owned) */
  int *segment_of;           /* the segment of each sample (owned) */
  double max_rel_err;        /* worst |fit - measured| / measured over all samples */
  size_t worst;              /* index of that sample */
  double sse;                /* weighted SSE: sum of squared relative errors */
  double bic;                /* N ln(SSE/N) + (3k-1) ln N of the chosen split */
  int met_tolerance;         /* 1 when max_rel_err <= options.tolerance */
} fu_fit_result;

/* Fits n samples (any order; several samples per size allowed). FU_EDATA (message printed,
 * naming `what`) for non-positive or non-finite values or too few distinct sizes
 * (fewer than 2); FU_ENOMEM. The result is caller-owned: release with fu_fit_result_finish. */
int fu_fit_piecewise(const fu_fit_point *pts, size_t n, const fu_fit_options *o, const char *what,
                     fu_fit_result *out);
void fu_fit_result_finish(fu_fit_result *r);

/* One line over n samples with its 95% CIs (no breakpoints). seg->lo/hi are set to the
 * smallest size and +inf. *alpha_negative (may be NULL) tells whether the free fit gave a
 * negative alpha (refitted through the origin when nonneg_alpha). FU_EDATA when n < 2 or
 * all sizes are equal. */
int fu_fit_line(const fu_fit_point *pts, size_t n, fu_fit_method method, int nonneg_alpha,
                fu_segment *seg, int *alpha_negative);

/* Name of a method/criterion ("wls", "bisquare"; "tolerance", "bic"). */
const char *fu_fit_method_name(fu_fit_method m);
const char *fu_fit_criterion_name(fu_fit_criterion c);

#endif
