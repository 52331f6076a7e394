/* fu_search.c: plan search: the optimal contiguous bucketing by dynamic programming, and
 * MG-WFBP's merge rule. Both price a bucket with the prepared cost model the engine charges
 * (fu_cost_model_bucket), so that with one communication stream and nothing contending the DP's own
 * prediction of when the last bucket finishes is what the simulator reports. */
#include "fu_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fu_common.h"
#include "fu_predict.h"

static int fu__cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static double fu__now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* What the search needs of one candidate bucket: host time to issue it and its time on the
 * communication stream. */
typedef struct fu__price {
  double issue_us;           /* host issue (the op's own + the framework's per-op cost) */
  double device_us;          /* pack + communication + unpack */
} fu__price;

typedef struct fu__ctx {
  const fu_workload *w;      /* workload searched */
  const fu_plan *p;          /* plan (pack, overlap) */
  const fu_comm *c;          /* communication target */
  const fu_profile *prof;    /* profile pricing the operations */
  fu_cost_model cm;          /* the prepared cost model the engine charges (fu_cost.h) */
  uint64_t *prefix;          /* prefix[i] = bytes of gradients [0, i) (n + 1 entries) */
  double *ready;             /* per gradient: iteration-clock time it may be sent */
  uint64_t calls;            /* bucket prices evaluated */
  int monotone;              /* 1 when the price check below ran to the end */
  double slack;              /* largest fall of a bucket's price as it grows, as checked */
  double mu;                 /* us per byte a fused bucket's device time grows at least */
  double mu_slack;           /* largest fall of device - mu * bytes as a bucket grows (fused) */
  double *pts;               /* the check's sizes, ascending (npts) */
  double *gmax;              /* gmax[k]: largest fused device - mu * bytes at sizes <= pts[k] */
  size_t npts;
} fu__ctx;

/* The price of a bucket of ntensors gradients totalling bytes: the cost model's numbers, the
 * workload's per-operation framework cost on top of the issue (as the engine adds it). */
static inline int fu__price_bytes(fu__ctx *x, uint64_t bytes, size_t ntensors, fu__price *out) {
  fu_op_cost oc;
  x->calls++;
  FU_CHECK(fu_cost_model_bucket(&x->cm, bytes, ntensors, &oc));
  out->issue_us = oc.issue_us + x->w->issue_us;
  out->device_us = fu_cost_device_us(&oc);
  if (!isfinite(out->issue_us) || !isfinite(out->device_us)) {
    fu_error("plan search: the cost model gave a non-finite time for %llu bytes",
             (unsigned long long)bytes);
    return FU_EDATA;
  }
  return FU_OK;
}

static int fu__price_range(fu__ctx *x, size_t i, size_t j, fu__price *out) {
  return fu__price_bytes(x, x->prefix[j + 1] - x->prefix[i], j - i + 1, out);
}

/* Adds the points just below and at each segment boundary of curve cv, and at both ends of the
 * straight bridge fu_curve_time lays between one segment's last sample and the next one's first
 * (at 1, p and 1/p times each, for shares), that lie in [lo, total]: between two such points the
 * price follows one line, so the checks below see every fall and every least slope. */
static void fu__boundary_points(const fu_curve *cv, double pr, double lo, double total,
                                double *pts, size_t *np, size_t cap) {
  for (int s = 0; cv && s + 1 < cv->nseg; s++) {
    double edges[] = {cv->seg[s].hi_bytes, cv->seg[s].last_bytes, cv->seg[s + 1].first_bytes};
    for (size_t e = 0; e < 3; e++) {
      double at[] = {edges[e], edges[e] * pr, edges[e] / pr};
      for (size_t k = 0; k < 3; k++)
        if (edges[e] > 0 && at[k] >= lo + 1 && at[k] <= total && *np + 2 <= cap) {
          pts[(*np)++] = ceil(at[k]) - 1;
          pts[(*np)++] = ceil(at[k]);
        }
    }
  }
}

/* The least slope of curve cv over [lo, hi] bytes, extrapolation past its largest size
 * included; 0 where it has none or no curve. */
static double fu__curve_min_slope(const fu_curve *cv, double lo, double hi) {
  double m = INFINITY;
  for (int s = 0; cv && s < cv->nseg; s++)
    if (cv->seg[s].hi_bytes > lo && cv->seg[s].lo_bytes <= hi && cv->seg[s].beta_us_per_byte < m)
      m = cv->seg[s].beta_us_per_byte;
  if (cv && cv->max_bytes > 0 && hi > cv->max_bytes) {
    double ext = fu_curve_time(cv, cv->max_bytes, NULL, NULL) / cv->max_bytes;
    if (ext < m) m = ext;
  }
  return isfinite(m) && m > 0 ? m : 0.0;
}

/* The least rate, in us per byte, at which a fused bucket's device time grows over sizes in
 * [lo, total]: the operation's, and the pack and unpack kernels' on their shares. */
static double fu__device_min_slope(const fu_cost_model *cm, double lo, double total) {
  double mu = cm->moves_nothing ? 0.0 : fu__curve_min_slope(&cm->comm, lo, total);
  if (!cm->packs) return mu;
  double divs[2] = {cm->pack_div, cm->unpack_div};
  for (int k = 0; k < 2; k++) {
    if (!(divs[k] > 0)) continue;
    if (cm->pack_src == FU_PACK_HBM_GBPS) mu += 1.0 / (cm->hbm_gbps * 1e3) / divs[k];
    else mu += fu__curve_min_slope(cm->pack, lo / divs[k], total / divs[k]) / divs[k];
  }
  return mu;
}

/* The search cuts a candidate once its lower bound loses, which is exact if a bucket's price
 * never falls as it grows. Piecewise fits can step down a little at a breakpoint (and fitted
 * betas can be negative over a few bytes), so this measures the largest fall, x->slack: the
 * price (one tensor and several) against the running maximum, on a 1% geometric grid from the
 * smallest gradient to all bytes and just below and at every segment boundary of the curves
 * the cost model reads (the operation's and the pack kernel's). The cut then allows it.
 * The backlog cut (fu__optimal_dp) needs how much fusing two buckets can save. With g1 and
 * g2 the device time of one tensor and of a fused bucket less mu * bytes (mu: the segments'
 * least slopes), it takes the largest fall from either to a later g2, x->mu_slack, and the
 * running maximum of g2, x->gmax, on the same grid. */
static int fu__ctx_check_monotone(fu__ctx *x) {
  uint64_t total = x->prefix[x->w->ngrads], lo = UINT64_MAX;
  for (size_t i = 0; i < x->w->ngrads; i++)
    if (x->w->grads[i].bytes < lo) lo = x->w->grads[i].bytes;
  if (lo == 0) lo = 1;
  size_t cap = (size_t)(log((double)total / (double)lo + 1.0) / log(1.01)) + 16, np = 0;
  cap += 18 * (size_t)x->cm.comm.nseg + (x->cm.pack ? 18 * (size_t)x->cm.pack->nseg : 0);
  double *pts = malloc((cap + 1) * sizeof *pts);
  x->gmax = malloc((cap + 1) * sizeof *x->gmax);
  x->pts = pts;
  if (!pts || !x->gmax) return FU_ENOMEM;
  for (double b = (double)lo; b <= (double)total * 1.0001 && np < cap; b *= 1.01) pts[np++] = floor(b);
  double pr = x->c->ranks > 1 ? x->c->ranks : 1;
  fu__boundary_points(&x->cm.comm, pr, (double)lo, (double)total, pts, &np, cap);
  fu__boundary_points(x->cm.pack, pr, (double)lo, (double)total, pts, &np, cap);
  qsort(pts, np, sizeof *pts, fu__cmp_double);
  double slack = 0;
  int st = FU_OK;
  for (size_t nt = 1; nt <= 2 && st == FU_OK; nt++) {
    double runmax = -INFINITY;
    for (size_t k = 0; k < np; k++) {
      fu__price pc;
      if ((st = fu__price_bytes(x, (uint64_t)pts[k], nt, &pc)) != FU_OK) break;
      double t = pc.issue_us + pc.device_us;
      if (runmax - t > slack) slack = runmax - t;
      if (t > runmax) runmax = t;
    }
  }
  x->slack = slack;
  /* the backlog cut's figures (the grid ends at all bytes, so every bucket lies within it) */
  pts[np++] = (double)total;
  double mu = fu__device_min_slope(&x->cm, (double)lo, (double)total), mu_slack = 0;
  double either = -INFINITY, fused = -INFINITY;
  for (size_t k = 0; k < np && st == FU_OK; k++) {
    fu__price one, two;
    if ((st = fu__price_bytes(x, (uint64_t)pts[k], 1, &one)) != FU_OK) break;
    if ((st = fu__price_bytes(x, (uint64_t)pts[k], 2, &two)) != FU_OK) break;
    double g1 = one.device_us - mu * pts[k], g2 = two.device_us - mu * pts[k];
    either = fmax(either, fmax(g1, g2));
    if (either - g2 > mu_slack) mu_slack = either - g2;
    x->gmax[k] = fused = fmax(fused, g2);
  }
  x->mu = mu;
  x->mu_slack = mu_slack;
  x->npts = np;
  x->monotone = st == FU_OK;
  return st;
}

static int fu__ctx_init(fu__ctx *x, const fu_workload *w, const fu_plan *p, const fu_comm *c,
                        const fu_profile *prof) {
  memset(x, 0, sizeof *x);
  x->w = w;
  x->p = p;
  x->c = c;
  x->prof = prof;
  if (w->ngrads == 0) {
    fu_error("%s: the workload has no gradients", w->source[0] ? w->source : w->name);
    return FU_EDATA;
  }
  FU_CHECK(fu_cost_model_init(&x->cm, prof, c, p));
  x->prefix = malloc((w->ngrads + 1) * sizeof *x->prefix);
  x->ready = malloc(w->ngrads * sizeof *x->ready);
  if (!x->prefix || !x->ready) return FU_ENOMEM;
  double t0 = fu_plan_backward_start_us(w);
  double bwd_end = t0 + w->bwd_us;
  x->prefix[0] = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    x->prefix[i + 1] = x->prefix[i] + w->grads[i].bytes;
    /* Overlap off: nothing is sent before backward ends. */
    x->ready[i] = p->overlap ? t0 + w->grads[i].ready_us : fmax(bwd_end, t0 + w->grads[i].ready_us);
  }
  return FU_OK;
}

static void fu__ctx_finish(fu__ctx *x) {
  free(x->prefix);
  free(x->ready);
  free(x->pts);
  free(x->gmax);
}

/* The most that fusing a bucket of A bytes (one tensor or several) in front of one of B bytes
 * can save in device time, dev(A) + dev(B) - dev(A + B), whatever A; dev_b is dev(B). With
 * g(y) = dev(y) - mu * y, which falls by at most mu_slack from any size to a larger fused one:
 *  - A <= B: dev(A + B) >= dev(B) + mu * A - mu_slack, so the saving is at most
 *    g(A) + mu_slack <= gmax at the first grid size >= B + 2 * mu_slack (A lies below it, and
 *    g(A) exceeds g at the next grid size by at most mu_slack);
 *  - A > B: dev(A + B) >= dev(A) + mu * B - mu_slack: at most dev_b - mu * B + mu_slack. */
static double fu__fuse_saving(const fu__ctx *x, double B, double dev_b) {
  size_t lo = 0, hi = x->npts - 1; /* the first grid size >= B (the last is all bytes) */
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (x->pts[mid] >= B) hi = mid;
    else lo = mid + 1;
  }
  return fmax(x->gmax[lo] + 2 * x->mu_slack, dev_b - x->mu * B + x->mu_slack);
}

/* One way to have communicated a prefix of the gradients. Dominance is componentwise: a state
 * no later in all three coordinates can do everything another can. */
typedef struct fu__state {
  double D;                  /* launch-bound: host issue time so far, by which compute is late */
  double H;                  /* when the host thread finished its last issue */
  double F;                  /* when the communication stream finished the last bucket */
  uint32_t from;             /* prefix length before the last bucket */
  uint32_t from_k;           /* index of the predecessor state in its front */
} fu__state;

#define FU__FRONT_MAX 16     /* states kept per prefix; more are dropped (search then inexact) */

/* Inserts s into front f (size *n) unless dominated; drops the states it dominates. Returns 1
 * if a state had to be dropped for room. */
static int fu__front_add(fu__state *f, uint32_t *n, const fu__state *s) {
  for (uint32_t k = 0; k < *n; k++)
    if (f[k].D <= s->D && f[k].H <= s->H && f[k].F <= s->F) return 0;
  uint32_t m = 0;
  for (uint32_t k = 0; k < *n; k++)
    if (!(s->D <= f[k].D && s->H <= f[k].H && s->F <= f[k].F)) f[m++] = f[k];
  *n = m;
  if (m < FU__FRONT_MAX) {
    f[(*n)++] = *s;
    return 0;
  }
  uint32_t worst = 0; /* full: replace the latest-finishing state if s finishes earlier */
  for (uint32_t k = 1; k < m; k++)
    if (f[k].F > f[worst].F) worst = k;
  if (s->F < f[worst].F) f[worst] = *s;
  return 1;
}

static int fu__optimal_dp(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                          const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                          fu_search_stats *stats) {
  double t_start = fu__now_ms();
  *out = NULL;
  *nbuckets = 0;
  fu__ctx x;
  int st = fu__ctx_init(&x, w, p, c, prof);
  size_t n = w->ngrads;
  /* The engine's model (fu_predict.h), with one stream, no slowdown and no link sharing:
   *  - host runs ahead (no host block): the bucket ending at gradient j is issued at
   *    H' = max(ready_j, H) + issue and runs at F' = max(H', F) + device;
   *  - launch-bound (hook_us or issue_us > 0): compute, hooks and issues alternate, so gradient
   *    j is ready at t0 + r_j + j * hook + D, where D sums the issues before it; H' = ready_j +
   *    hook + issue, D' = D + issue;
   *  - overlap off: issues start once backward (and, launch-bound, its hooks) has ended.
   * The iteration is max(E, F) + opt, with E the end of backward on the compute side
   * (t0 + max(bwd, r_last) + n * hook + D when launch-bound). */
  fu__state *fr = NULL;
  uint32_t *nfr = NULL;
  double *G = NULL;              /* per prefix: the least F of its front */
  uint64_t candidates = 0;
  int lb = w->hook_us > 0 || w->issue_us > 0, dropped = 0;
  double t0 = fu_plan_backward_start_us(w);
  double hook = lb ? w->hook_us : 0.0;
  double r_last = n ? w->grads[n - 1].ready_us : 0.0;
  double bwd_end = t0 + fmax(w->bwd_us, r_last) + (double)n * hook;
  if (st == FU_OK) {
    fr = malloc((n + 1) * FU__FRONT_MAX * sizeof *fr);
    nfr = calloc(n + 1, sizeof *nfr);
    G = malloc((n + 1) * sizeof *G);
    if (!fr || !nfr || !G) st = FU_ENOMEM;
  }
  if (st == FU_OK) st = fu__ctx_check_monotone(&x);
  if (st != FU_OK) goto done;
  fr[0] = (fu__state){0.0, -INFINITY, -INFINITY, 0, 0};
  nfr[0] = 1;
  G[0] = -INFINITY;
  for (size_t j = 0; j < n && st == FU_OK; j++) {
    fu__state *cur = &fr[(j + 1) * FU__FRONT_MAX];
    uint32_t ncur = 0;
    double r0 = t0 + w->grads[j].ready_us + (double)j * hook; /* ready_j with D = 0 */
    for (size_t i = j + 1; i-- > 0;) {
      uint64_t bytes = x.prefix[j + 1] - x.prefix[i];
      if (p->mem_cap_bytes && i < j && bytes > p->mem_cap_bytes) break;
      fu__price pr;
      if ((st = fu__price_range(&x, i, j, &pr)) != FU_OK) break;
      candidates++;
      /* Lower bounds for this bucket and every longer one (price grows as i falls). */
      double lD = lb && p->overlap ? pr.issue_us : 0.0;
      double lH = (p->overlap ? r0 + hook : bwd_end) + pr.issue_us;
      double lF = lH + pr.device_us;
      /* The backlog cut: a longer bucket [i', j], i' < i, made from a state s' of prefix i',
       * against the bucket [i', i - 1] made from s' (which the DP priced, so that it reaches
       * prefix i no earlier than G(i) = G[i]). Both wait for s'.F or their own issue, and the
       * longer one's issue is no earlier (its last gradient is later, its issue no cheaper), so
       *   F(i', s') >= G(i) - dev(i'..i-1) + dev(i'..j) >= G(i) + dev(i..j) - saving,
       * saving being the most that fusing [i', i - 1] in front of [i, j] saves
       * (fu__fuse_saving). The prefix's backlog, G(i) past the bucket's issue, is then in the
       * bound, which lF, the bucket started at its issue, leaves out. */
      double lFb = G[i] + pr.device_us -
                   fu__fuse_saving(&x, (double)bytes, pr.device_us);
      lFb -= 1e-9 * (fabs(lFb) + 1.0); /* rounding: its sums are not the states' own */
      if (x.monotone) {
        int beaten = 0;
        for (uint32_t k = 0; k < ncur && !beaten; k++)
          beaten = cur[k].D <= lD && cur[k].H <= lH && (cur[k].F <= lF - x.slack || cur[k].F <= lFb);
        if (beaten) break;
      }
      const fu__state *prev = &fr[i * FU__FRONT_MAX];
      for (uint32_t k = 0; k < nfr[i]; k++) {
        fu__state s;
        if (!p->overlap) {
          s.D = 0.0;
          s.H = fmax(bwd_end, prev[k].H) + pr.issue_us;
        } else if (lb) {
          s.D = prev[k].D + pr.issue_us;
          s.H = r0 + prev[k].D + hook + pr.issue_us;
        } else {
          s.D = 0.0;
          s.H = fmax(r0, prev[k].H) + pr.issue_us;
        }
        s.F = fmax(s.H, prev[k].F) + pr.device_us;
        s.from = (uint32_t)i;
        s.from_k = k;
        dropped |= fu__front_add(cur, &ncur, &s);
      }
    }
    nfr[j + 1] = ncur;
    G[j + 1] = INFINITY;
    for (uint32_t k = 0; k < ncur; k++) G[j + 1] = fmin(G[j + 1], cur[k].F);
  }
  if (st != FU_OK) goto done;
  /* The best final state, then back through the predecessors. */
  const fu__state *last = &fr[n * FU__FRONT_MAX];
  uint32_t bk = 0;
  double best = INFINITY;
  for (uint32_t k = 0; k < nfr[n]; k++) {
    double e = lb && p->overlap ? bwd_end + last[k].D : bwd_end;
    double it = fmax(e, last[k].F) + w->opt_us;
    if (it < best) best = it, bk = k;
  }
  size_t nb = 0;
  for (size_t e = n, k = bk; e > 0;) {
    const fu__state *s = &fr[e * FU__FRONT_MAX + k];
    nb++;
    e = s->from;
    k = s->from_k;
  }
  fu_bucket *b = calloc(nb, sizeof *b);
  if (!b) {
    st = FU_ENOMEM;
    goto done;
  }
  size_t q = nb;
  for (size_t e = n, k = bk; e > 0;) {
    const fu__state *s = &fr[e * FU__FRONT_MAX + k];
    q--;
    b[q].first = s->from;
    b[q].last = e - 1;
    e = s->from;
    k = s->from_k;
  }
  fu_plan_fill_buckets(w, b, nb);
  *out = b;
  *nbuckets = nb;
  if (stats) {
    stats->predicted_us = best;
    stats->cost_calls = x.calls;
    stats->candidates = candidates;
    stats->elapsed_ms = fu__now_ms() - t_start;
    stats->exact = x.monotone && !dropped;
  }
done:
  free(fr);
  free(nfr);
  free(G);
  fu__ctx_finish(&x);
  return st;
}

/* ---- several element types: a bucket holds one type (fu_bucket) ---- */

#define FU__NONE ((size_t)-1)

/* Each gradient's element type as a small index, in first-seen order (type[i] < *ntypes).
 * O(n * types): a workload has a handful. */
static int fu__dtype_index(const fu_workload *w, uint32_t *type, uint32_t *ntypes) {
  size_t *rep = malloc((w->ngrads ? w->ngrads : 1) * sizeof *rep); /* a gradient of each type */
  if (!rep) return FU_ENOMEM;
  *ntypes = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    uint32_t t = 0;
    while (t < *ntypes && !fu_grad_same_dtype(&w->grads[rep[t]], &w->grads[i])) t++;
    if (t == *ntypes) rep[(*ntypes)++] = i;
    type[i] = t;
  }
  free(rep);
  return FU_OK;
}

typedef int (*fu__search_fn)(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                             const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                             fu_search_stats *stats);

/* Runs a one-type search on each type's gradients alone (a workload of only those, in ready
 * order, with w's other fields; names borrowed) and takes its buckets back to w's indices: each
 * a contiguous run of one type's gradients. They go by their last gradient's ready order, as
 * they fill (DDP's and single's closed buckets go so too, fu_plan.c). Each type's search sees
 * none of the other types' operations on the stream. stats: counts summed, the latest
 * predicted time. O(n * types) beside the searches. */
static int fu__search_per_dtype(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                                const fu_profile *prof, fu__search_fn search, fu_bucket **out,
                                size_t *nbuckets, fu_search_stats *stats) {
  size_t n = w->ngrads, nb = 0;
  uint32_t ntypes = 0;
  uint32_t *type = malloc(n * sizeof *type);
  size_t *ix = malloc(n * sizeof *ix);        /* a type's gradients: their indices in w */
  size_t *first_of = malloc(n * sizeof *first_of); /* per last gradient: its bucket's first */
  fu_workload sub = *w;
  sub.grads = malloc(n * sizeof *sub.grads);
  int st = type && ix && first_of && sub.grads ? FU_OK : FU_ENOMEM;
  if (st == FU_OK) st = fu__dtype_index(w, type, &ntypes);
  fu_search_stats sum;
  memset(&sum, 0, sizeof sum);
  for (size_t i = 0; i < n; i++) first_of[i] = FU__NONE;
  for (uint32_t t = 0; t < ntypes && st == FU_OK; t++) {
    sub.ngrads = 0;
    for (size_t i = 0; i < n; i++)
      if (type[i] == t) ix[sub.ngrads] = i, sub.grads[sub.ngrads++] = w->grads[i];
    fu_bucket *b = NULL;
    size_t m = 0;
    fu_search_stats one;
    memset(&one, 0, sizeof one);
    if ((st = search(&sub, p, c, prof, &b, &m, &one)) != FU_OK) break;
    for (size_t k = 0; k < m; k++) first_of[ix[b[k].last]] = ix[b[k].first];
    nb += m;
    free(b);
    sum.cost_calls += one.cost_calls;
    sum.candidates += one.candidates;
    if (one.predicted_us > sum.predicted_us) sum.predicted_us = one.predicted_us;
  }
  fu_bucket *all = st == FU_OK ? calloc(nb ? nb : 1, sizeof *all) : NULL;
  if (st == FU_OK && !all) st = FU_ENOMEM;
  for (size_t i = 0, k = 0; st == FU_OK && i < n; i++)
    if (first_of[i] != FU__NONE) all[k].first = first_of[i], all[k++].last = i;
  if (st == FU_OK) {
    fu_plan_fill_buckets(w, all, nb);
    *out = all;
    *nbuckets = nb;
    sum.dtypes = ntypes;
    if (stats) *stats = sum;
  }
  free(type);
  free(ix);
  free(first_of);
  free(sub.grads);
  return st;
}

/* ---- polishing by simulation, where the DP's model leaves out what the engine charges ---- */

#define FU__POLISH_ALL_CUTS 8 /* up to this many places to cut, every bucketing is simulated */

typedef struct fu__polish {
  const fu_workload *w;      /* workload */
  const fu_plan *p;          /* the optimal plan (pack, overlap, streams, mem cap) */
  const fu_comm *c;          /* target */
  const fu_profile *prof;    /* profile */
  uint8_t *cut;              /* cut[i] = 1: a bucket of gradient i's type ends at i (so does
                                each type's last gradient's) */
  uint8_t *best_cut;         /* best cuts so far */
  double best_us;            /* their simulated iteration */
  fu_bucket *tmp;            /* scratch buckets (n) */
  uint64_t sims;             /* simulations run */
  uint32_t *type;            /* per gradient: its element type's index (fu__dtype_index) */
  uint32_t ntypes;           /* element types (1: cuts and moves over the whole ready order) */
  size_t *prev, *next;       /* per gradient: the one of its type before / after (FU__NONE) */
  size_t *open;              /* per type, while cuts are read: its open bucket's first */
  uint64_t *open_bytes;      /* per type: that bucket's bytes */
  fu_bucket *fixed;          /* the best when it is a seed sent in its own order (not by last
                                gradient: DDP's, Horovod's), as that seed gave it; else NULL */
  size_t nfixed;             /* its buckets */
} fu__polish;

/* The buckets of cuts into pl->tmp (*nb), by their last gradient, each holding its type's
 * gradients since that type's previous cut; 0 when one breaks the memory cap. */
static int fu__polish_buckets(fu__polish *pl, const uint8_t *cut, size_t *nb) {
  const fu_workload *w = pl->w;
  *nb = 0;
  for (uint32_t t = 0; t < pl->ntypes; t++) pl->open[t] = FU__NONE, pl->open_bytes[t] = 0;
  for (size_t i = 0; i < w->ngrads; i++) {
    uint32_t t = pl->type[i];
    if (pl->open[t] == FU__NONE) pl->open[t] = i;
    pl->open_bytes[t] += w->grads[i].bytes;
    if (cut[i]) {
      if (pl->p->mem_cap_bytes && i > pl->open[t] && pl->open_bytes[t] > pl->p->mem_cap_bytes)
        return 0;
      memset(&pl->tmp[*nb], 0, sizeof pl->tmp[*nb]);
      pl->tmp[*nb].first = pl->open[t];
      pl->tmp[(*nb)++].last = i;
      pl->open[t] = FU__NONE;
      pl->open_bytes[t] = 0;
    }
  }
  return 1;
}

/* Simulates the cuts in pl->cut; +inf when the memory cap is broken. */
static int fu__polish_eval(fu__polish *pl, double *iter) {
  size_t nb = 0;
  *iter = INFINITY;
  if (!fu__polish_buckets(pl, pl->cut, &nb)) return FU_OK;
  pl->sims++;
  return fu_sim_iter_buckets(pl->w, pl->p, pl->c, pl->prof, pl->tmp, nb, iter);
}

/* Tries the cuts in pl->cut; keeps them if they beat the best. */
static int fu__polish_try(fu__polish *pl, int *better) {
  double t;
  FU_CHECK(fu__polish_eval(pl, &t));
  *better = t < pl->best_us * (1 - 1e-12);
  if (*better) {
    pl->best_us = t;
    memcpy(pl->best_cut, pl->cut, pl->w->ngrads);
    free(pl->fixed); /* the best is by last gradient again */
    pl->fixed = NULL;
    pl->nfixed = 0;
  }
  return FU_OK;
}

/* Re-runs the DP on the ready times the engine produced. With compute slowed beside
 * communication, backward stretches by how much communication overlaps it, which the DP does
 * not model; so the DP's buckets are simulated, each gradient's ready time is moved by the
 * stretch observed at the bucket ends around it (linear in between), and the DP runs again on
 * those times; up to 4 rounds while the simulated result improves. Host-runs-ahead workloads
 * only (launch-bound ready times already carry the host's share, which the DP adds itself). */
static int fu__polish_refit(fu__polish *pl, const fu_bucket *dp, size_t ndp) {
  const fu_workload *w = pl->w;
  size_t n = w->ngrads;
  if (w->hook_us > 0 || w->issue_us > 0 || !pl->p->overlap) return FU_OK;
  fu_workload w2 = *w;
  w2.grads = malloc(n * sizeof *w2.grads);
  fu_bucket *cur = malloc(ndp * sizeof *cur);
  if (!w2.grads || !cur) {
    free(w2.grads);
    free(cur);
    return FU_ENOMEM;
  }
  memcpy(cur, dp, ndp * sizeof *cur);
  size_t ncur = ndp;
  double t0 = fu_plan_backward_start_us(w), prev_us = INFINITY;
  int st = FU_OK;
  for (int round = 0; round < 4 && st == FU_OK; round++) {
    fu_result r;
    pl->sims++;
    if ((st = fu_sim_predict_buckets(w, pl->p, pl->c, pl->prof, cur, ncur, NULL, &r)) != FU_OK) break;
    double it = r.iter_us;
    /* Stretch at each bucket end, then per gradient by interpolation in unstretched time. */
    memcpy(w2.grads, w->grads, n * sizeof *w2.grads);
    double s_prev = 0, x_prev = 0, last = 0;
    for (size_t k = 0; k < r.nbuckets; k++) {
      size_t e = r.buckets[k].last;
      double x = w->grads[e].ready_us, s_k = r.buckets[k].ready_us - (t0 + x);
      for (size_t g = r.buckets[k].first; g <= e; g++) {
        double xg = w->grads[g].ready_us;
        double f = x > x_prev ? (xg - x_prev) / (x - x_prev) : 1.0;
        double rg = xg + s_prev + f * (s_k - s_prev);
        if (rg < last) rg = last;
        w2.grads[g].ready_us = last = rg;
      }
      s_prev = s_k, x_prev = x;
    }
    w2.bwd_us = w->bwd_us + (s_prev > 0 ? s_prev : 0);
    if (w2.bwd_us < last) w2.bwd_us = last;
    fu_result_finish(&r);
    if (!(it < prev_us)) break;
    prev_us = it;
    fu_bucket *nb = NULL;
    size_t nnb = 0;
    fu_search_stats ss;
    if ((st = fu__optimal_dp(&w2, pl->p, pl->c, pl->prof, &nb, &nnb, &ss)) != FU_OK) break;
    memset(pl->cut, 0, n);
    for (size_t k = 0; k < nnb; k++) pl->cut[nb[k].last] = 1;
    int better;
    st = fu__polish_try(pl, &better);
    free(cur);
    cur = nb;
    ncur = nnb;
  }
  free(cur);
  free(w2.grads);
  return st;
}

/* Seeds the cuts from another plan kind's buckets. A seed whose buckets do not go by their
 * last gradient (with several types: DDP's open buckets, the type seen last first; Horovod's
 * responses) is simulated in its own order too, and kept as it is where that is the best: the
 * cuts alone would send it by last gradient, which can be slower (fu_search.h). */
static int fu__polish_seed(fu__polish *pl, const fu_plan *q) {
  fu_bucket *b = NULL;
  size_t nb = 0;
  if (q->kind == FU_FUSION_MGWFBP) FU_CHECK(fu_search_mgwfbp(pl->w, q, pl->c, pl->prof, &b, &nb, NULL));
  else FU_CHECK(fu_plan_rule_buckets(pl->w, q, &b, &nb));
  memset(pl->cut, 0, pl->w->ngrads);
  int own_order = 0;
  for (size_t k = 0; k < nb; k++) {
    pl->cut[b[k].last] = 1;
    own_order |= k && b[k].last < b[k - 1].last;
  }
  int better, st = fu__polish_try(pl, &better);
  uint64_t mem_cap = pl->p->mem_cap_bytes;
  if (st == FU_OK && own_order && !pl->p->fill_order && !(mem_cap && fu_buckets_largest_fused(b, nb) > mem_cap)) {
    double t;
    pl->sims++;
    st = fu_sim_iter_buckets(pl->w, pl->p, pl->c, pl->prof, b, nb, &t);
    if (st == FU_OK && t < pl->best_us * (1 - 1e-12)) {
      pl->best_us = t;
      memcpy(pl->best_cut, pl->cut, pl->w->ngrads); /* the moves start from its buckets */
      free(pl->fixed);
      pl->fixed = b;
      pl->nfixed = nb;
      b = NULL;
    }
  }
  free(b);
  return st;
}

/* Several types: the one-type DP's buckets over the whole ready order (as if any two gradients
 * could share one), each sent as one operation per type in it: a cut at each type's last
 * gradient inside each of its buckets. */
static int fu__polish_seed_segments(fu__polish *pl) {
  fu_bucket *b = NULL;
  size_t nb = 0;
  FU_CHECK(fu__optimal_dp(pl->w, pl->p, pl->c, pl->prof, &b, &nb, NULL));
  memset(pl->cut, 0, pl->w->ngrads);
  for (size_t k = 0; k < nb; k++)
    for (size_t i = b[k].first; i <= b[k].last; i++)
      pl->cut[i] = pl->next[i] == FU__NONE || pl->next[i] > b[k].last;
  free(b);
  int better;
  return fu__polish_try(pl, &better);
}

/* Where the engine charges more than the DP models (compute slowed beside communication,
 * several streams or shared links, a cut or Pareto state the DP could not keep), the DP's
 * buckets are a start: the plans `fusim plan` compares and a cap sweep are simulated as seeds,
 * then single boundary moves (drop a cut, move one a gradient left or right; where none helps, add
 * one) are taken while they help. Every candidate is simulated, so the result is never worse than
 * any seed. */
static int fu__polish_run(fu__polish *pl, const fu_bucket *dp, size_t ndp, int moves,
                          double *dp_us) {
  size_t n = pl->w->ngrads;
  memset(pl->cut, 0, n);
  for (size_t k = 0; k < ndp; k++) pl->cut[dp[k].last] = 1;
  double t;
  FU_CHECK(fu__polish_eval(pl, &t));
  pl->best_us = t;
  *dp_us = t;
  memcpy(pl->best_cut, pl->cut, n);
  fu_plan q = *pl->p;
  q.mem_cap_bytes = 0;
  static const fu_fusion_kind kinds[] = {FU_FUSION_NONE, FU_FUSION_SINGLE, FU_FUSION_MGWFBP};
  for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
    q.kind = kinds[k];
    FU_CHECK(fu__polish_seed(pl, &q));
  }
  q.kind = FU_FUSION_HOROVOD;
  q.cap_bytes = FU_HOROVOD_THRESHOLD_BYTES;
  q.cycle_us = FU_HOROVOD_CYCLE_US;
  FU_CHECK(fu__polish_seed(pl, &q));
  q.kind = FU_FUSION_CAP;
  q.cap_bytes = FU_DDP_CAP_BYTES;
  q.first_cap_bytes = FU_DDP_FIRST_BYTES;
  FU_CHECK(fu__polish_seed(pl, &q));
  q.first_cap_bytes = 0;
  for (uint64_t cap = 64 << 10; cap <= (1ull << 30); cap *= 2) {
    q.cap_bytes = cap;
    FU_CHECK(fu__polish_seed(pl, &q));
  }
  if (pl->ntypes > 1) FU_CHECK(fu__polish_seed_segments(pl));
  /* the refit stretches ready times between contiguous buckets: one type only */
  if (moves && pl->ntypes == 1) FU_CHECK(fu__polish_refit(pl, dp, ndp));
  /* A small workload: every contiguous bucketing (2^(n-1), at most 256; with several types,
   * every one of each type's gradients) is simulated, so the result is the engine's best, which
   * single moves can miss where two must be made at once (two streams, a host timeline: 6
   * gradients 1.07% above their best). A cut is free but at a type's last gradient. */
  size_t nfree = n - pl->ntypes;
  if (moves && nfree >= 1 && nfree <= FU__POLISH_ALL_CUTS) {
    for (uint32_t mask = 0; mask < (1u << nfree); mask++) {
      for (size_t i = 0, k = 0; i < n; i++)
        pl->cut[i] = pl->next[i] == FU__NONE ? 1 : (uint8_t)((mask >> k++) & 1);
      int better;
      FU_CHECK(fu__polish_try(pl, &better));
    }
    return FU_OK;
  }
  /* Local moves from the best, first improvement, a bounded number of simulations: 6n + 200,
   * at most 1000, and at most 1e5 / n, so that the moves simulate O(1e5) gradient-tasks in all
   * whatever n is (a count, not a time limit, so the result is deterministic): every move a
   * small workload needs (n <= 100), 253 at BERT-large's 394 gradients, 50 at 2000. On the
   * 2000-gradient benchmark, offload on the H200 profile, 1000 moves gained 0.4 us of 324 ms
   * and cost 350 ms. */
  uint64_t cap = 100000 / (n ? n : 1);
  if (cap > 1000) cap = 1000;
  if (cap < 32) cap = 32;
  uint64_t budget = pl->sims + (moves ? 6 * (uint64_t)n + 200 : 0);
  if (budget > pl->sims + cap) budget = pl->sims + cap;
  int improved = moves;
  while (improved && pl->sims < budget) {
    improved = 0;
    /* a cut moves within its type's gradients (prev, next); a type's last one stays */
    for (size_t i = 0; i < n && pl->sims < budget; i++) {
      size_t before = pl->prev[i], after = pl->next[i];
      if (!pl->best_cut[i] || after == FU__NONE) continue;
      int better = 0;
      memcpy(pl->cut, pl->best_cut, n);
      pl->cut[i] = 0; /* merge the two buckets around this cut */
      FU_CHECK(fu__polish_try(pl, &better));
      if (!better && before != FU__NONE && !pl->best_cut[before]) {
        memcpy(pl->cut, pl->best_cut, n);
        pl->cut[i] = 0, pl->cut[before] = 1;
        FU_CHECK(fu__polish_try(pl, &better));
      }
      if (!better && !pl->best_cut[after]) {
        memcpy(pl->cut, pl->best_cut, n);
        pl->cut[i] = 0, pl->cut[after] = 1;
        FU_CHECK(fu__polish_try(pl, &better));
      }
      improved |= better;
    }
    /* where no cut moved for the better, a split: the moves above never add a bucket (two
       streams: one 8-gradient case 11% slower than its best contiguous bucketing) */
    for (size_t i = 0; !improved && i < n && pl->sims < budget; i++) {
      if (pl->best_cut[i]) continue; /* (a type's last gradient is always cut) */
      memcpy(pl->cut, pl->best_cut, n);
      pl->cut[i] = 1;
      FU_CHECK(fu__polish_try(pl, &improved));
    }
  }
  return FU_OK;
}

/* The polish's scratch: cuts, buckets and each gradient's type and neighbours of its type. */
static int fu__polish_init(fu__polish *pl, const fu_workload *w, const fu_plan *p,
                           const fu_comm *c, const fu_profile *prof) {
  size_t n = w->ngrads;
  *pl = (fu__polish){.w = w, .p = p, .c = c, .prof = prof, .best_us = INFINITY};
  pl->cut = malloc(n);
  pl->best_cut = malloc(n);
  pl->tmp = malloc(n * sizeof *pl->tmp);
  pl->type = malloc(n * sizeof *pl->type);
  pl->prev = malloc(n * sizeof *pl->prev);
  pl->next = malloc(n * sizeof *pl->next);
  pl->open = malloc(n * sizeof *pl->open);
  pl->open_bytes = malloc(n * sizeof *pl->open_bytes);
  if (!pl->cut || !pl->best_cut || !pl->tmp || !pl->type || !pl->prev || !pl->next ||
      !pl->open || !pl->open_bytes)
    return FU_ENOMEM;
  FU_CHECK(fu__dtype_index(w, pl->type, &pl->ntypes));
  for (uint32_t t = 0; t < pl->ntypes; t++) pl->open[t] = FU__NONE; /* last seen of type t */
  for (size_t i = 0; i < n; i++) {
    uint32_t t = pl->type[i];
    pl->prev[i] = pl->open[t];
    pl->next[i] = FU__NONE;
    if (pl->open[t] != FU__NONE) pl->next[pl->open[t]] = i;
    pl->open[t] = i;
  }
  return FU_OK;
}

static void fu__polish_finish(fu__polish *pl) {
  free(pl->cut);
  free(pl->best_cut);
  free(pl->tmp);
  free(pl->type);
  free(pl->prev);
  free(pl->next);
  free(pl->open);
  free(pl->open_bytes);
  free(pl->fixed);
}

int fu_search_optimal(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                      const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                      fu_search_stats *stats) {
  double t_start = fu__now_ms();
  fu_search_stats st0;
  memset(&st0, 0, sizeof st0);
  /* Several types: each type's DP alone, a start the polish (always run) improves on. */
  int mixed = fu_workload_mixed_dtypes(w);
  if (mixed) FU_CHECK(fu__search_per_dtype(w, p, c, prof, fu__optimal_dp, out, nbuckets, &st0));
  else FU_CHECK(fu__optimal_dp(w, p, c, prof, out, nbuckets, &st0));
  st0.dtypes = mixed ? st0.dtypes : 1;
  /* Any contention: the compared plans are simulated as seeds. Material contention (a slowdown
   * over 1%, several streams) or an inexact DP: boundary moves too (their budget above). */
  /* A host timeline (host block v2) and the framework costs it carries are the engine's alone:
   * the DP prices neither (its host model is version 1's hook_us/issue_us), so its plan there is
   * never exact, and so polished (material) whatever the profile's slowdowns. */
  st0.host_timeline = w->host.version >= 2;
  if (st0.host_timeline || mixed) st0.exact = 0;
  int contended = prof->comm_slowdown != 1.0 || prof->copy_slowdown != 1.0 || p->comm_streams > 1;
  int material = prof->comm_slowdown > 1.01 || prof->copy_slowdown > 1.01 ||
                 p->comm_streams > 1 || !st0.exact;
  int st = FU_OK;
  if (contended || material) {
    fu__polish pl;
    st = fu__polish_init(&pl, w, p, c, prof);
    if (st == FU_OK) st = fu__polish_run(&pl, *out, *nbuckets, material, &st0.dp_simulated_us);
    size_t nb = 0;
    fu_bucket *b = NULL;
    if (st == FU_OK && pl.fixed) { /* a seed in its own order */
      b = pl.fixed, nb = pl.nfixed;
      pl.fixed = NULL;
    } else if (st == FU_OK) {
      fu__polish_buckets(&pl, pl.best_cut, &nb); /* the best kept the cap */
      b = malloc(nb * sizeof *b);
      if (!b) st = FU_ENOMEM;
      else memcpy(b, pl.tmp, nb * sizeof *b);
    }
    if (st == FU_OK) {
      fu_plan_fill_buckets(w, b, nb);
      free(*out);
      *out = b;
      *nbuckets = nb;
      st0.simulated_us = pl.best_us;
      st0.sims = pl.sims;
      st0.polished = 1;
    }
    fu__polish_finish(&pl);
    if (st != FU_OK) {
      free(*out);
      *out = NULL;
      *nbuckets = 0;
    }
  }
  st0.elapsed_ms = fu__now_ms() - t_start;
  if (stats) *stats = st0;
  return st;
}

/* MG-WFBP's rule over the whole ready order (one element type). */
static int fu__mgwfbp_one(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                          const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                          fu_search_stats *stats) {
  double t_start = fu__now_ms();
  *out = NULL;
  *nbuckets = 0;
  fu__ctx x;
  int st = fu__ctx_init(&x, w, p, c, prof);
  size_t n = w->ngrads, nb = 0;
  fu_bucket *b = NULL;
  if (st != FU_OK) goto done;
  b = calloc(n, sizeof *b);
  if (!b) {
    st = FU_ENOMEM;
    goto done;
  }
  /* The paper's layers are our gradients in ready order. With a group [s, i] open, its
   * communication starts at tau_c = max(end of the previous group, ready[i] + issue) and lasts
   * t_c; the next gradient is ready at r. Merge it when r < tau_c + t_c (the group would still
   * be communicating) and either tau_c > r (it has not started yet) or the wait r - tau_c is
   * shorter than the start-up time saved by one operation fewer. */
  double prev_end = -INFINITY, last_finish = 0;
  size_t s = 0;
  fu__price g;
  if ((st = fu__price_range(&x, 0, 0, &g)) != FU_OK) goto done;
  for (size_t i = 0; i < n; i++) {
    double tau_c = fmax(prev_end, x.ready[i] + g.issue_us);
    double t_c = g.device_us;
    int merge = 0;
    fu__price next, both;
    if (i + 1 < n) {
      double r = x.ready[i + 1];
      uint64_t bytes = x.prefix[i + 2] - x.prefix[s];
      int fits = !p->mem_cap_bytes || bytes <= p->mem_cap_bytes;
      if (fits && r < tau_c + t_c) {
        if (tau_c > r) {
          merge = 1;
        } else {
          if ((st = fu__price_range(&x, i + 1, i + 1, &next)) != FU_OK) goto done;
          if ((st = fu__price_range(&x, s, i + 1, &both)) != FU_OK) goto done;
          double saved = g.device_us + next.device_us - both.device_us;
          merge = r - tau_c < saved;
        }
      }
    }
    if (merge) {
      if ((st = fu__price_range(&x, s, i + 1, &g)) != FU_OK) goto done;
      continue;
    }
    b[nb].first = s;
    b[nb].last = i;
    nb++;
    prev_end = tau_c + t_c;
    last_finish = prev_end;
    s = i + 1;
    if (s < n && (st = fu__price_range(&x, s, s, &g)) != FU_OK) goto done;
  }
  fu_plan_fill_buckets(w, b, nb);
  *out = b;
  *nbuckets = nb;
  b = NULL;
  if (stats) {
    stats->predicted_us = last_finish;
    stats->cost_calls = x.calls;
    stats->candidates = n;
    stats->elapsed_ms = fu__now_ms() - t_start;
  }
done:
  free(b);
  fu__ctx_finish(&x);
  return st;
}

int fu_search_mgwfbp(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                     const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                     fu_search_stats *stats) {
  if (!fu_workload_mixed_dtypes(w)) {
    FU_CHECK(fu__mgwfbp_one(w, p, c, prof, out, nbuckets, stats));
    if (stats) stats->dtypes = 1;
    return FU_OK;
  }
  double t_start = fu__now_ms();
  FU_CHECK(fu__search_per_dtype(w, p, c, prof, fu__mgwfbp_one, out, nbuckets, stats));
  if (stats) stats->elapsed_ms = fu__now_ms() - t_start;
  return FU_OK;
}
