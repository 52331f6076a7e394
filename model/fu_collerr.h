/* fu_collerr.h: how far the collective cost model (fu_coll.h) is off on the logs it was fitted on,
 * by size band, so that a model price's interval (fusim cost, predict) comes from the model's own
 * error rather than a fixed band (sim/fu_cost.h FU_COST_MODEL_BAND).
 *
 * The error of one sample is r = ln(measured / model), the model pricing the sample's op, ranks,
 * nodes, process layout and NCCL as cost would with the measured curve dropped (fit does that,
 * fu_fitgroup_profile). Per band the 2.5%
 * and 97.5% quantiles of r (GSL) bound a 95% interval [t e^lo, t e^hi] of a price t: log space, so
 * a model that runs fast gets a long upper side and a short lower one. Bands: < 1 MiB (the LL
 * lines' latency), 1-64 MiB (where NCCL switches protocol and algorithm and per-call costs show)
 * and >= 64 MiB (the bandwidth): the regimes the model's terms split at, each with at least 6
 * sizes of a power-of-two nccl-tests sweep, so a quantile is not one row (a factor-of-8 band
 * would hold 3). These are in-sample errors: at rank counts the fit never saw the error is larger
 * (README, "What is not done"). */
#ifndef FU_COLLERR_H
#define FU_COLLERR_H

#include <stddef.h>

enum { FU_COLLERR_BANDS = 3 };
/* Jobs on one node (the intra-node link alone) and across nodes (the network as well). */
enum { FU_COLLERR_ONE_NODE = 0, FU_COLLERR_NODES = 1, FU_COLLERR_SCOPES = 2 };
/* The bands' lower edges, bytes; the last runs to infinity. */
#define FU_COLLERR_BAND_EDGES {0.0, 1048576.0, 67108864.0}

/* Where the network is borrowed from a --base profile of another GPU, the fit has no multi-node
 * log of its own, and the job is of a shape no log of this machine measured. On the two public
 * H100 pairs (tests/data: DGX, Lambda), pricing the 2+2 log from a fit on 1-node 2 and 1+1 made
 * the spread's width in log space 1.2-4.6 times (median 2.5) the fit's own: the base's bounds, in
 * log space, times FU_COLLERR_BORROW_WIDEN. A base that recorded none (a network-only profile,
 * which the model cannot price alone) gives FU_COLLERR_BORROW_DEFAULT: per band the widest
 * ln(measured / model) those pairs gave at a shape or on a network their fit never saw (2+2 from
 * 1+1, and each pair's 1+1 and 2+2 priced with the other's 1+1 network): < 1 MiB 0.66-7.8x,
 * 1-64 MiB 0.35-2.7x, >= 64 MiB 0.80-1.21x. Both at least FU_COLLERR_BORROW_MIN either way: no
 * log here measures what another GPU generation changes (its NCCL's algorithms, its node), so a
 * factor of 2 is a stated judgment, not a measurement. */
#define FU_COLLERR_BORROW_WIDEN 2.5
#define FU_COLLERR_BORROW_DEFAULT {{-0.419, 2.055}, {-1.041, 0.992}, {-0.223, 0.188}}
#define FU_COLLERR_BORROW_MIN 0.6931471805599453 /* ln 2: a factor of 2 either way */

typedef struct fu_collerr {
  int n[FU_COLLERR_BANDS];   /* samples in each band (0: nothing recorded there) */
  double lo[FU_COLLERR_BANDS]; /* 2.5% quantile of ln(measured / model) */
  double hi[FU_COLLERR_BANDS]; /* 97.5% quantile of ln(measured / model) */
  int borrowed;              /* 1: the parameters (and lo, hi) are a base's of another GPU: priced
                                widened (FU_COLLERR_BORROW_*), the default where n[] is 0 */
  char source[160];          /* where it came from ("" nothing recorded) */
} fu_collerr;

/* The band of a size (0 .. FU_COLLERR_BANDS - 1). */
int fu_collerr_band(double bytes);

/* The model's error from n samples' sizes and r = ln(measured / model) into *out (n[] 0 in bands
 * without one), labelled source. FU_ENOMEM. O(n log n). */
int fu_collerr_fit(const double *bytes, const double *r, size_t n, const char *source, fu_collerr *out);

/* 1 when e gives the model's error at `bytes` (its band has samples, or e is borrowed). */
int fu_collerr_recorded(const fu_collerr *e, double bytes);

/* The 95% interval of a model price t_us of `bytes` under e: at least t / (1 + band) to
 * t (1 + band), widened to [t e^lo, t e^hi] where e records the size's band (a borrowed e's
 * lo, hi widened, FU_COLLERR_BORROW_*). */
void fu_collerr_interval(const fu_collerr *e, double bytes, double t_us, double band, double *lo_us,
                         double *hi_us);

#endif
