/* fu_search.c: plan search: the optimal contiguous bucketing by dynamic programming, and
 * MG-WFBP's merge rule. Both price a bucket with fu_cost_bucket, the function the engine
 * charges, so that with one communication stream and nothing contending the DP's own
 * prediction of when the last bucket finishes is what the simulator reports. */
#include "fu_search.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fu_common.h"

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
  uint64_t *prefix;          /* prefix[i] = bytes of gradients [0, i) (n + 1 entries) */
  double *ready;             /* per gradient: iteration-clock time it may be sent */
  uint64_t calls;            /* fu_cost_bucket evaluations */
  fu_profile *small;         /* the profile cut to the curves this target uses, or NULL */
  int monotone;              /* 1 when a bucket's price was checked to grow with its bytes */
} fu__ctx;

static int fu__price_range(fu__ctx *x, size_t i, size_t j, fu__price *out) {
  fu_op_cost oc;
  x->calls++;
  FU_CHECK(fu_cost_bucket(x->small ? x->small : x->prof, x->c, x->p,
                          x->prefix[j + 1] - x->prefix[i], j - i + 1, &oc));
  out->issue_us = oc.issue_us + x->w->issue_us;
  out->device_us = fu_cost_device_us(&oc);
  if (!isfinite(out->issue_us) || !isfinite(out->device_us)) {
    fu_error("plan search: the cost model gave a non-finite time for %llu bytes",
             (unsigned long long)(x->prefix[j + 1] - x->prefix[i]));
    return FU_EDATA;
  }
  return FU_OK;
}

/* fu_profile_find scans every curve with string compares on each call; the search prices up
 * to n^2 / 2 buckets, so it keeps only the curves fu_cost_bucket can pick for this target (all
 * rank counts of its op and link, and the pack copy's d2d/hbm). Checked against the full
 * profile at a few sizes; on any difference the full profile is used. */
static void fu__ctx_small_profile(fu__ctx *x) {
  static const char *ops[] = {"allreduce", "reducescatter", "allgather", "d2h"};
  const fu_profile *pf = x->prof;
  const char *op = ops[x->c->kind <= FU_COMM_OFFLOAD ? x->c->kind : 0];
  const char *link = x->c->kind == FU_COMM_OFFLOAD ? "pcie_d2h" : x->c->link;
  fu_profile *sp = malloc(sizeof *sp);
  if (!sp) return;
  *sp = *pf;
  sp->ncurves = 0;
  for (int i = 0; i < pf->ncurves; i++) {
    const fu_curve *cv = &pf->curves[i];
    if ((strcmp(cv->op, op) == 0 && strcmp(cv->link, link) == 0) ||
        (strcmp(cv->op, "d2d") == 0 && strcmp(cv->link, "hbm") == 0))
      sp->curves[sp->ncurves++] = *cv;
  }
  static const double probe[] = {1, 4096, 1 << 20, 3e7, 1 << 30};
  for (size_t k = 0; k < sizeof probe / sizeof probe[0]; k++)
    for (size_t nt = 1; nt <= 2; nt++) {
      fu_op_cost a, b;
      if (fu_cost_bucket(pf, x->c, x->p, (uint64_t)probe[k], nt, &a) != FU_OK ||
          fu_cost_bucket(sp, x->c, x->p, (uint64_t)probe[k], nt, &b) != FU_OK ||
          memcmp(&a, &b, sizeof a) != 0) {
        free(sp);
        return;
      }
    }
  x->small = sp;
}

/* The search cuts a candidate once its lower bound loses, which is exact only if a bucket's
 * price never falls as it grows. Piecewise fits can step down at a breakpoint, so this checks
 * the price (one tensor and several) on a 1% geometric grid from the smallest gradient to all
 * bytes, and just below and at every segment boundary of the profile's curves. */
static int fu__ctx_check_monotone(fu__ctx *x) {
  uint64_t total = x->prefix[x->w->ngrads], lo = UINT64_MAX;
  for (size_t i = 0; i < x->w->ngrads; i++)
    if (x->w->grads[i].bytes < lo) lo = x->w->grads[i].bytes;
  const fu_profile *pf = x->small ? x->small : x->prof;
  for (size_t nt = 1; nt <= 2; nt++) {
    double prev = -INFINITY;
    for (double b = lo > 0 ? (double)lo : 1.0; b <= (double)total * 1.0001; b *= 1.01) {
      fu_op_cost oc;
      x->calls++;
      FU_CHECK(fu_cost_bucket(pf, x->c, x->p, (uint64_t)b, nt, &oc));
      double t = oc.issue_us + fu_cost_device_us(&oc);
      if (t < prev - 1e-9 * fabs(prev)) return FU_OK;
      prev = t;
    }
    for (int ci = 0; ci < pf->ncurves; ci++)
      for (int s = 0; s + 1 < pf->curves[ci].nseg; s++) {
        double edge = pf->curves[ci].seg[s].hi_bytes;
        double pr = x->c->ranks > 1 ? x->c->ranks : 1;
        double at[] = {edge, edge * pr, edge / pr};
        for (size_t k = 0; k < 3; k++) {
          if (at[k] < 2 || at[k] > 1.8e19) continue;
          fu_op_cost a, b;
          x->calls += 2;
          FU_CHECK(fu_cost_bucket(pf, x->c, x->p, (uint64_t)at[k] - 1, nt, &a));
          FU_CHECK(fu_cost_bucket(pf, x->c, x->p, (uint64_t)ceil(at[k]), nt, &b));
          double ta = a.issue_us + fu_cost_device_us(&a), tb = b.issue_us + fu_cost_device_us(&b);
          if (tb < ta - 1e-9 * fabs(ta)) return FU_OK;
        }
      }
  }
  x->monotone = 1;
  return FU_OK;
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
  fu__ctx_small_profile(x);
  return FU_OK;
}

static void fu__ctx_finish(fu__ctx *x) {
  free(x->small);
  free(x->prefix);
  free(x->ready);
}

int fu_search_optimal(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                      const fu_profile *prof, fu_bucket **out, size_t *nbuckets,
                      fu_search_stats *stats) {
  double t_start = fu__now_ms();
  *out = NULL;
  *nbuckets = 0;
  fu__ctx x;
  int st = fu__ctx_init(&x, w, p, c, prof);
  size_t n = w->ngrads;
  /* F[j + 1]: earliest finish of gradients [0, j] bucketed contiguously; from[j + 1]: the first
   * gradient of the last bucket in that optimum. F[0] = -inf stands for "stream free". */
  double *F = malloc((n + 1) * sizeof *F);
  size_t *from = malloc((n + 1) * sizeof *from);
  uint64_t candidates = 0;
  if (st == FU_OK && (!F || !from)) st = FU_ENOMEM;
  if (st == FU_OK) st = fu__ctx_check_monotone(&x);
  if (st != FU_OK) goto done;
  F[0] = -INFINITY;
  for (size_t j = 0; j < n && st == FU_OK; j++) {
    double best = INFINITY;
    size_t arg = j;
    /* Bucket [i, j], i from j down to 0. Its price grows as i falls (more bytes, more tensors),
     * so once ready[j] + issue + device alone reaches the best, no smaller i can win. */
    for (size_t i = j + 1; i-- > 0;) {
      uint64_t bytes = x.prefix[j + 1] - x.prefix[i];
      if (p->mem_cap_bytes && i < j && bytes > p->mem_cap_bytes) break;
      fu__price pr;
      if ((st = fu__price_range(&x, i, j, &pr)) != FU_OK) break;
      candidates++;
      double lower = x.ready[j] + pr.issue_us + pr.device_us;
      if (x.monotone && lower >= best) break;
      double fin = fmax(x.ready[j] + pr.issue_us, F[i]) + pr.device_us;
      if (fin < best) {
        best = fin;
        arg = i;
      }
    }
    F[j + 1] = best;
    from[j + 1] = arg;
  }
  if (st != FU_OK) goto done;
  /* Walk back through from[] to count and then fill the buckets in ready order. */
  size_t nb = 0;
  for (size_t e = n; e > 0; e = from[e]) nb++;
  fu_bucket *b = calloc(nb, sizeof *b);
  if (!b) {
    st = FU_ENOMEM;
    goto done;
  }
  size_t k = nb;
  for (size_t e = n; e > 0; e = from[e]) {
    k--;
    b[k].first = from[e];
    b[k].last = e - 1;
  }
  fu_plan_fill_buckets(w, b, nb);
  *out = b;
  *nbuckets = nb;
  if (stats) {
    stats->predicted_us = F[n];
    stats->cost_calls = x.calls;
    stats->candidates = candidates;
    stats->elapsed_ms = fu__now_ms() - t_start;
  }
done:
  free(F);
  free(from);
  fu__ctx_finish(&x);
  return st;
}

int fu_search_mgwfbp(const fu_workload *w, const fu_plan *p, const fu_comm *c,
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
