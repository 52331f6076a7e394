/* fu_compute.c: the compute tables of a profile (see fu_compute.h). */
#include "fu_compute.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

void fu_compute_init(fu_compute *c) { memset(c, 0, sizeof *c); }

static void fu__dim_label(char *buf, size_t len, int v) {
  if (v % 1024 == 0) snprintf(buf, len, "%dk", v / 1024);
  else snprintf(buf, len, "%d", v);
}

void fu_gemm_label(char *buf, size_t len, int m, int n, int k) {
  char a[16], b[16], d[16];
  fu__dim_label(a, sizeof a, m);
  fu__dim_label(b, sizeof b, n);
  fu__dim_label(d, sizeof d, k);
  snprintf(buf, len, "%sx%sx%s", a, b, d);
}

/* One dimension: digits, optionally "k" (x 1024); *end past it. */
static int fu__dim_parse(const char *s, const char **end, int *out) {
  if (*s < '0' || *s > '9') return FU_EDATA;
  errno = 0;
  char *e;
  long v = strtol(s, &e, 10);
  if (errno || v <= 0) return FU_EDATA;
  if (*e == 'k') {
    if (v > (1L << 20)) return FU_EDATA;
    v *= 1024, e++;
  }
  if (v > (1L << 30)) return FU_EDATA;
  *out = (int)v;
  *end = e;
  return FU_OK;
}

int fu_gemm_label_parse(const char *s, int *m, int *n, int *k) {
  const char *e;
  if (fu__dim_parse(s, &e, m) != FU_OK || *e != 'x') return FU_EDATA;
  if (fu__dim_parse(e + 1, &e, n) != FU_OK || *e != 'x') return FU_EDATA;
  if (fu__dim_parse(e + 1, &e, k) != FU_OK || *e != '\0') return FU_EDATA;
  return FU_OK;
}

/* ---- GEMM tables ---- */

static int fu__axis_index(int *axis, int *n, int v) {
  for (int i = 0; i < *n; i++)
    if (axis[i] == v) return i;
  if (*n >= FU_GEMM_GRID_AXIS) return -1;
  int i = *n;
  while (i > 0 && axis[i - 1] > v) i--;
  return i; /* insertion point; caller inserts */
}

/* Inserts value v at position p of one axis, moving the time array's planes. O(grid). */
static void fu__axis_insert(fu_gemm_table *t, int which, int p, int v) {
  enum { A = FU_GEMM_GRID_AXIS };
  float old[A * A * A];
  memcpy(old, t->us, sizeof old);
  int *ax = which == 0 ? t->m : which == 1 ? t->n : t->k;
  int *cnt = which == 0 ? &t->nm : which == 1 ? &t->nn : &t->nk;
  int onm = t->nm, onn = t->nn, onk = t->nk;
  memmove(ax + p + 1, ax + p, sizeof *ax * (size_t)(*cnt - p));
  ax[p] = v;
  (*cnt)++;
  memset(t->us, 0, sizeof t->us);
  for (int i = 0; i < onm; i++)
    for (int j = 0; j < onn; j++)
      for (int q = 0; q < onk; q++) {
        int ni = i + (which == 0 && i >= p), nj = j + (which == 1 && j >= p),
            nq = q + (which == 2 && q >= p);
        t->us[(ni * t->nn + nj) * t->nk + nq] = old[(i * onn + j) * onk + q];
      }
}

static fu_gemm_table *fu__gemm_find(fu_compute *c, const char *dtype, const char *layout, int unaligned) {
  for (int i = 0; i < c->ngemm; i++)
    if (!strcmp(c->gemm[i].dtype, dtype) && !strcmp(c->gemm[i].layout, layout) &&
        c->gemm[i].unaligned == unaligned)
      return &c->gemm[i];
  return NULL;
}

int fu_compute_put_gemm(fu_compute *c, const char *dtype, const char *layout, int m, int n, int k,
                        double us) {
  fu_gemm_table *t = fu__gemm_find(c, dtype, layout, 0);
  if (!t) {
    if (c->ngemm >= FU_GEMM_TABLES || strlen(dtype) >= sizeof t->dtype ||
        strlen(layout) >= sizeof t->layout)
      return FU_EDATA;
    t = &c->gemm[c->ngemm++];
    memset(t, 0, sizeof *t);
    snprintf(t->dtype, sizeof t->dtype, "%s", dtype);
    snprintf(t->layout, sizeof t->layout, "%s", layout);
  }
  int vals[3] = {m, n, k}, idx[3];
  for (int w = 0; w < 3; w++) {
    int *ax = w == 0 ? t->m : w == 1 ? t->n : t->k;
    int *cnt = w == 0 ? &t->nm : w == 1 ? &t->nn : &t->nk;
    int p = fu__axis_index(ax, cnt, vals[w]);
    if (p < 0) return FU_EDATA;
    if (p >= *cnt || ax[p] != vals[w]) fu__axis_insert(t, w, p, vals[w]);
    idx[w] = p;
  }
  t->us[(idx[0] * t->nn + idx[1]) * t->nk + idx[2]] = (float)us;
  return FU_OK;
}

/* Position of v on an axis: index i and fraction f in log space between axis[i] and axis[i+1];
 * clamped to the ends. */
static void fu__axis_pos(const int *ax, int n, double v, int *i, double *f) {
  if (n == 1 || v <= ax[0]) {
    *i = 0, *f = 0;
    return;
  }
  if (v >= ax[n - 1]) {
    *i = n - 2, *f = 1;
    return;
  }
  int j = 0;
  while (j + 2 < n && v >= ax[j + 1]) j++;
  *i = j;
  *f = (log(v) - log(ax[j])) / (log(ax[j + 1]) - log(ax[j]));
}

/* Time of (m, n, k) from one table: the efficiency (FLOP per us) log-linear between the
 * surrounding grid points (missing ones skipped), the smallest product's time below the grid. */
static int fu__table_us(const fu_gemm_table *t, double m, double n, double k, double *us) {
  if (t->nm < 1 || t->nn < 1 || t->nk < 1) return FU_EDATA;
  int i[3];
  double f[3];
  fu__axis_pos(t->m, t->nm, m, &i[0], &f[0]);
  fu__axis_pos(t->n, t->nn, n, &i[1], &f[1]);
  fu__axis_pos(t->k, t->nk, k, &i[2], &f[2]);
  /* log efficiency (FLOP per us) at the corners, weighted; missing corners are skipped */
  double acc = 0, wsum = 0;
  for (int corner = 0; corner < 8; corner++) {
    int d[3] = {corner & 1, (corner >> 1) & 1, (corner >> 2) & 1};
    int ii = i[0] + d[0], jj = i[1] + d[1], qq = i[2] + d[2];
    if (ii >= t->nm || jj >= t->nn || qq >= t->nk) continue;
    double w = (d[0] ? f[0] : 1 - f[0]) * (d[1] ? f[1] : 1 - f[1]) * (d[2] ? f[2] : 1 - f[2]);
    if (w <= 0) continue;
    double tu = t->us[(ii * t->nn + jj) * t->nk + qq];
    if (!(tu > 0)) continue;
    double flops = 2.0 * t->m[ii] * t->n[jj] * t->k[qq];
    acc += w * log(flops / tu);
    wsum += w;
  }
  if (!(wsum > 0)) return FU_EDATA;
  double eff = exp(acc / wsum);
  /* below the grid a product costs what the smallest measured one does */
  double mm = m < t->m[0] ? t->m[0] : m, nn = n < t->n[0] ? t->n[0] : n, kk = k < t->k[0] ? t->k[0] : k;
  *us = 2.0 * mm * nn * kk / eff;
  return FU_OK;
}

/* A call's time from a table's: less what the calibration's per-call events added to it. */
static double fu__untimed(const fu_compute *c, double us) {
  double t = c ? us - c->timer_us : us;
  return t > 0 ? t : 0;
}

int fu_compute_gemm_us(const fu_compute *c, const char *dtype, const char *layout, double m,
                       double n, double k, double *us) {
  /* a leading dimension off the multiple of 8 takes the unaligned table where one was measured:
     the two that are not the tokens (fwd and dgrad: n and k; wgrad, which sums over the tokens:
     m and n). The token count is never a leading dimension, and keying on it priced every
     linear layer of 1023 tokens 9x its 1024-token time */
  int wgrad = layout && !strcmp(layout, "wgrad");
  double a = wgrad ? m : n, b = wgrad ? n : k;
  int off = fmod(floor(a + 0.5), 8) != 0 || fmod(floor(b + 0.5), 8) != 0;
  const fu_gemm_table *t = off ? fu__gemm_find((fu_compute *)c, dtype, layout, 1) : NULL;
  if (!t) t = fu__gemm_find((fu_compute *)c, dtype, layout, 0);
  int st = t ? fu__table_us(t, m, n, k, us) : FU_EDATA;
  if (st == FU_OK) *us = fu__untimed(c, *us);
  return st;
}

static const fu_gemm_table *fu__conv_find(const fu_compute *c, int grouped, const char *dtype,
                                          const char *layout, int kernel, int stride, int nchw) {
  for (int i = 0; i < c->nconv; i++) {
    const fu_gemm_table *t = &c->conv[i];
    if (t->kernel == kernel && t->stride == stride && t->nchw == nchw && t->grouped == grouped &&
        !strcmp(t->dtype, dtype) && !strcmp(t->layout, layout))
      return t;
  }
  return NULL;
}

/* A table timed at one value along an axis (a sweep cut short) holds its efficiency beyond it, so
 * a larger shape costs in proportion to that one point: right only where the point runs the GPU
 * full (the H200's channels-last g3s2 bf16 sweep stopped at m 1568, and ResNeXt-50's stride-2
 * grouped layers came out 1.4x the NCHW ones where stride 1 has channels-last 2x faster). Along
 * such an axis the same class in the other layout, where it spans the axis, gives the trend: the
 * time at the cut table's value times the other table's time at q over its time there. */
static int fu__conv_cut_us(const fu_compute *c, const fu_gemm_table *t, double q[3], double *us) {
  const fu_gemm_table *o =
      fu__conv_find(c, t->grouped, t->dtype, t->layout, t->kernel, t->stride, !t->nchw);
  double at[3] = {q[0], q[1], q[2]};
  if (o) {
    const int tn[3] = {t->nm, t->nn, t->nk}, on[3] = {o->nm, o->nn, o->nk};
    const int *tv[3] = {t->m, t->n, t->k};
    for (int a = 0; a < 3; a++)
      if (tn[a] == 1 && on[a] > 1) at[a] = tv[a][0];
  }
  int st = fu__table_us(t, at[0], at[1], at[2], us);
  if (st != FU_OK || (at[0] == q[0] && at[1] == q[1] && at[2] == q[2])) return st;
  double oq, oat;
  if (fu__table_us(o, q[0], q[1], q[2], &oq) == FU_OK && fu__table_us(o, at[0], at[1], at[2], &oat) == FU_OK)
    *us *= oq / oat;
  else
    st = fu__table_us(t, q[0], q[1], q[2], us); /* the other table misses there: the proportion */
  return st;
}

static int fu__conv_table_us(const fu_compute *c, int grouped, const char *dtype, const char *layout,
                             int kernel, int stride, int nchw, double m, double n, double k, double *us) {
  const fu_gemm_table *t = fu__conv_find(c, grouped, dtype, layout, kernel, stride, nchw);
  double q[3] = {m, n, k};
  int st = t ? fu__conv_cut_us(c, t, q, us) : FU_EDATA;
  if (st == FU_OK) *us = fu__untimed(c, *us);
  return st;
}

int fu_compute_conv_us(const fu_compute *c, const char *dtype, const char *layout, int kernel,
                       int stride, int nchw, double m, double n, double k, double *us) {
  return fu__conv_table_us(c, FU_CONV_DENSE, dtype, layout, kernel, stride, nchw, m, n, k, us);
}

int fu_compute_gconv_us(const fu_compute *c, const char *dtype, const char *layout, int kernel,
                        int stride, int nchw, double m, double n, double k, double *us) {
  double per_group_k = strcmp(layout, "fwd") ? n : k;
  int kind = per_group_k <= kernel * kernel ? FU_CONV_DEPTHWISE : FU_CONV_GROUPED;
  return fu__conv_table_us(c, kind, dtype, layout, kernel, stride, nchw, m, n, k, us);
}

/* ---- attention ---- */

static int fu__attn_same(const fu_attn_point *a, const fu_attn_point *v) {
  return !strcmp(a->dtype, v->dtype) && a->head_dim == v->head_dim && a->causal == v->causal &&
         a->dropout == v->dropout && a->gqa == v->gqa;
}

/* Time per problem of variant v at one measured sequence length s for bh problems. Where s was
 * timed at several bh (calib_torch attn_bhs) it is log-linear in log bh between the two around
 * bh: a launch of few problems leaves the GPU part idle, so its time per problem is higher
 * (bf16, seq 1024, head 128: 1.46x at bh 40 against bh 512). Above the largest bh the time per
 * problem stays (the GPU is full); below the smallest of two or more the launch costs what the
 * smallest measured one does. Timed at one bh only (older profiles), its time per problem. */
static void fu__attn_seq(const fu_compute *c, const fu_attn_point *v, int s, double bh, double *pf,
                         double *pb) {
  const fu_attn_point *lo = NULL, *hi = NULL;
  int n = 0;
  for (int i = 0; i < c->nattn; i++) {
    const fu_attn_point *a = &c->attn[i];
    if (!fu__attn_same(a, v) || a->seq != s) continue;
    n++;
    if (a->bh <= bh && (!lo || a->bh > lo->bh)) lo = a;
    if (a->bh >= bh && (!hi || a->bh < hi->bh)) hi = a;
  }
  if (lo && hi && lo != hi) {
    double f = (log(bh) - log(lo->bh)) / (log(hi->bh) - log(lo->bh));
    *pf = exp((1 - f) * log(lo->fwd_us / lo->bh) + f * log(hi->fwd_us / hi->bh));
    *pb = exp((1 - f) * log(lo->bwd_us / lo->bh) + f * log(hi->bwd_us / hi->bh));
  } else if (!lo && n > 1) { /* below the smallest of several: its whole time */
    *pf = hi->fwd_us / bh, *pb = hi->bwd_us / bh;
  } else {
    const fu_attn_point *p = lo ? lo : hi;
    *pf = p->fwd_us / p->bh, *pb = p->bwd_us / p->bh;
  }
}

const char *fu_compute_attn_derived(const fu_compute *c, const char *dtype, int gqa) {
  for (int i = 0; i < c->nattn; i++)
    if (!strcmp(c->attn[i].dtype, dtype) && c->attn[i].gqa == gqa) return c->attn[i].derived;
  return "";
}

int fu_compute_attn_us(const fu_compute *c, const char *dtype, int head_dim, int causal, double dropout,
                       int gqa, double seq, double bh, double *fwd_us, double *bwd_us) {
  /* the nearest variant: same dtype; then head size, causal, dropout (in that order) */
  int best = -1;
  double best_d = INFINITY;
  for (int i = 0; i < c->nattn; i++) {
    const fu_attn_point *a = &c->attn[i];
    if (strcmp(a->dtype, dtype) != 0 || a->gqa != gqa) continue;
    double d = 100.0 * fabs(log((double)a->head_dim / head_dim)) + 10.0 * (a->causal != causal) +
               fabs(a->dropout - dropout) * 10.0;
    if (d < best_d) best_d = d, best = i;
  }
  if (best < 0) return FU_EDATA;
  const fu_attn_point *v = &c->attn[best];
  /* the sequence lengths of that variant around seq: per problem (bh = 1) time, log-log */
  const fu_attn_point *lo = NULL, *hi = NULL;
  for (int i = 0; i < c->nattn; i++) {
    const fu_attn_point *a = &c->attn[i];
    if (!fu__attn_same(a, v)) continue;
    if (a->seq <= seq && (!lo || a->seq > lo->seq)) lo = a;
    if (a->seq >= seq && (!hi || a->seq < hi->seq)) hi = a;
  }
  /* FLOPs grow with the head size, but no kernel runs a head narrower than 32: FlashAttention's
     are built for 32, 64, 96, ... and pad up to them (a head of 1 was priced at 1/64 of one of
     64, so 1024 heads of 1 cost less than 8 of 128) */
  double scale_hd = (head_dim < 32 ? 32.0 : (double)head_dim) / v->head_dim;
  double pf, pb;
  if (lo && hi && lo->seq != hi->seq) {
    double f = (log(seq) - log(lo->seq)) / (log(hi->seq) - log(lo->seq)), lf, lb, hf, hb;
    fu__attn_seq(c, v, lo->seq, bh, &lf, &lb);
    fu__attn_seq(c, v, hi->seq, bh, &hf, &hb);
    pf = exp((1 - f) * log(lf) + f * log(hf));
    pb = exp((1 - f) * log(lb) + f * log(hb));
  } else if (lo && !hi) { /* above the table: quadratic in seq */
    double r = seq / lo->seq;
    fu__attn_seq(c, v, lo->seq, bh, &pf, &pb);
    pf *= r * r, pb *= r * r;
  } else { /* below the table (or exactly on a length): that length's time per problem, scaled */
    const fu_attn_point *p = hi ? hi : lo;
    double r = seq / p->seq;
    if (r > 1) r = r * r;
    fu__attn_seq(c, v, p->seq, bh, &pf, &pb);
    pf *= r, pb *= r;
  }
  *fwd_us = fu__untimed(c, pf * bh * scale_hd);
  *bwd_us = fu__untimed(c, pb * bh * scale_hd);
  return FU_OK;
}

/* ---- memory-bound operations ---- */

const fu_op_table *fu_compute_op(const fu_compute *c, const char *op, const char *dtype) {
  const fu_op_table *other = NULL;
  for (int i = 0; i < c->nops; i++) {
    if (strcmp(c->ops[i].op, op) != 0) continue;
    if (!strcmp(c->ops[i].dtype, dtype)) return &c->ops[i];
    other = &c->ops[i];
  }
  return other;
}

static double fu__op_table_us(const fu_op_table *t, double numel, int bwd) {
  const double *y = bwd ? t->bwd_us : t->fwd_us;
  int n = t->nsizes;
  if (numel <= t->numel[0]) return y[0];
  if (numel >= t->numel[n - 1]) return y[n - 1] * numel / t->numel[n - 1];
  int i = 0;
  while (i + 2 < n && numel >= t->numel[i + 1]) i++;
  double f = (log(numel) - log(t->numel[i])) / (log(t->numel[i + 1]) - log(t->numel[i]));
  return exp((1 - f) * log(y[i]) + f * log(y[i + 1]));
}

double fu_op_us(const fu_compute *c, const fu_op_table *t, double numel, int bwd) {
  if (!t || t->nsizes < 1) return 0;
  return fu__untimed(c, fu__op_table_us(t, numel, bwd));
}

int fu_compute_optim_us(const fu_compute *c, const char *name, double ntensors, double numel,
                        double *us) {
  for (int i = 0; i < c->noptim; i++)
    if (!strcmp(c->optim[i].name, name)) {
      const fu_optim_fit *o = &c->optim[i];
      *us = o->base_us + o->per_tensor_us * ntensors + o->per_elem_us * numel;
      return FU_OK;
    }
  return FU_EDATA;
}

/* Each launch of one foreach operation as ATen's MultiTensorApply.cuh cuts its tensors: chunks of
 * 65536 elements, at most 320 a launch and at most 110 / 64 / 48 / 36 / 30 tensors for 1..5 lists
 * (96 for one list with a scalar list); a tensor cut by the chunk limit carries on in the next.
 * fn gets each launch's elements and largest chunk, and how many such launches in a row. O(n):
 * a tensor's run of full launches is handed over at once, since a what-if's tensor may hold
 * 1e15 elements (a chunk at a time took hours). */
static void fu__each_launch(const double *numel, size_t n, int lists, int scalarlist,
                            void (*fn)(double elements, double chunk, double count, void *arg),
                            void *arg) {
  static const int max_tensors[5] = {110, 64, 48, 36, 30};
  const double kchunk = 65536;
  const double kblocks = 320;
  int max_t = scalarlist && lists == 1 ? 96 : max_tensors[lists < 1 ? 0 : lists > 5 ? 4 : lists - 1];
  int nt = 0;
  double nb = 0, sum = 0, big = 0; /* the launch being filled: its chunks, elements, largest chunk */
  for (size_t i = 0; i < n; i++) {
    double e = numel[i] > 0 ? numel[i] : 0;
    double rem = ceil(e / kchunk); /* chunks of this tensor not yet in a launch */
    if (rem == 0) continue;        /* ATen skips an empty tensor: it takes no tensor slot */
    double last_sz = e - (rem - 1) * kchunk;
    nt++;
    while (rem > 0) {
      if (nb == 0 && rem > kblocks) { /* whole launches of full chunks, the last chunk left over */
        double full = floor((rem - 1) / kblocks);
        fn(kblocks * kchunk, kchunk, full, arg);
        rem -= full * kblocks;
        nt = 1; /* the tensor carries on in the next launch */
        continue;
      }
      double take = fmin(rem, kblocks - nb);
      int last = take == rem;
      double nfull = take - last;
      nb += take, rem -= take;
      sum += nfull * kchunk + (last ? last_sz : 0);
      if (nfull > 0) big = fmax(big, kchunk);
      if (last) big = fmax(big, last_sz);
      if (nb == kblocks || (nt == max_t && last)) { /* launch; a tensor cut mid-way carries on */
        fn(sum, big, 1, arg);
        nb = 0, sum = 0, big = 0;
        nt = last ? 0 : 1;
      }
    }
  }
  if (nb > 0) fn(sum, big, 1, arg);
}

typedef struct fu__launch_sums {
  int lists;
  double sat_blocks, touches, chunk_touches, per_touch_us;
  double launches, moved, chunk, sat, cold_us;
} fu__launch_sums;

static void fu__add_launch(double sum, double big, double count, void *arg) {
  fu__launch_sums *s = arg;
  s->launches += count, s->moved += count * sum * s->lists, s->chunk += count * big * s->lists;
  s->sat += count * s->lists * fmax(sum, s->sat_blocks * big);
  s->cold_us += count * s->per_touch_us * hypot(s->touches * sum, s->chunk_touches * big);
}

void fu_optim_launches(const double *numel, size_t n, int lists, int scalarlist, double *launches,
                       double *moved, double *chunk, double sat_blocks, double *sat) {
  fu__launch_sums s = {.lists = lists, .sat_blocks = sat_blocks};
  fu__each_launch(numel, n, lists, scalarlist, fu__add_launch, &s);
  *launches += s.launches, *moved += s.moved, *chunk += s.chunk;
  if (sat) *sat += s.sat;
}

/* One foreach operation of an optimizer step (torch/optim/adam.py _multi_tensor_adam, sgd.py
 * _multi_tensor_sgd, torch.nn.utils.clip_grad_norm_): the lists it takes (they set the launch
 * cut), whether it takes a scalar list, its byte share in the launch and HBM forms, the times it
 * reads or writes each element (in place: every list read, one written; the same tensor twice
 * reads once), and the lists it reads and the one it creates, as FU__L_* bits (the cold form). */
enum { FU__L_PARAM = 1, FU__L_GRAD = 2, FU__L_AVG = 4, FU__L_SQ = 8, FU__L_DENOM = 16 };
typedef struct fu__foreach_op {
  int lists, scalarlist;
  double share, touches;
  unsigned reads, creates;
} fu__foreach_op;

static const fu__foreach_op fu__sgd_ops[] = {
  {1, 0, 1, 2, FU__L_AVG, 0},               /* mul_ (the momentum buffer) */
  {2, 0, 1, 3, FU__L_AVG | FU__L_GRAD, 0},  /* add_ (buffer += gradient) */
  {2, 0, 1, 3, FU__L_PARAM | FU__L_AVG, 0}, /* add_ (parameter -= lr x buffer) */
};
static const fu__foreach_op fu__adamw_ops[] = {
  {1, 0, 1, 2, FU__L_PARAM, 0},                          /* mul_ (weight decay) */
  {2, 0, 1, 3, FU__L_AVG | FU__L_GRAD, 0},               /* lerp_ */
  {1, 0, 1, 2, FU__L_SQ, 0},                             /* mul_ */
  {3, 0, 1, 3, FU__L_SQ | FU__L_GRAD, 0},                /* addcmul_ (the gradient twice) */
  {2, 0, 1, 2, FU__L_SQ, FU__L_DENOM},                   /* sqrt, into new tensors */
  {1, 1, 1, 2, FU__L_DENOM, 0},                          /* div_ */
  {1, 0, 1, 2, FU__L_DENOM, 0},                          /* add_ (eps) */
  {3, 1, 1, 4, FU__L_PARAM | FU__L_AVG | FU__L_DENOM, 0} /* addcdiv_ */
};
/* clip_grad_norm_ first (tools/calib_torch.py CLIP_FOREACH): _foreach_norm (one list, read
 * only: half the bytes of an in-place one-list operation), _foreach_mul_ (one list, in place) */
static const fu__foreach_op fu__clip_ops[] = {
  {1, 0, 0.5, 1, FU__L_GRAD, 0},
  {1, 0, 1, 2, FU__L_GRAD, 0},
};

/* Whether every list that operation k reads is still in the L2: touched earlier in the step,
 * with its own and the other lists touched since within cache_bytes (the step's first touch of
 * a list reads it from HBM: forward and backward have streamed far more than the cache since) */
static int fu__op_warm(const fu__foreach_op *ops, int k, double list_bytes, double cache_bytes) {
  for (unsigned bit = 1; bit <= FU__L_DENOM; bit <<= 1) {
    if (!(ops[k].reads & bit)) continue;
    int last = k - 1;
    while (last >= 0 && !((ops[last].reads | ops[last].creates) & bit)) last--;
    if (last < 0) return 0;
    unsigned since = 0;
    for (int j = last + 1; j < k; j++) since |= ops[j].reads | ops[j].creates;
    since &= ~bit;
    if ((1 + __builtin_popcount(since)) * list_bytes > cache_bytes) return 0;
  }
  return 1;
}

double fu_optim_dev_us(const fu_optim_fit *o, const double *numel, size_t n) {
  /* "<optimizer>_clip": torch.nn.utils.clip_grad_norm_ first, then the optimizer's operations;
   * besides them the clip runs small kernels, a launch each: the norm's zeroed buffer,
   * vector_norm, + eps, reciprocal, mul, clamp (6), the norm's cleanup (a kernel per 400
   * tensors) and the stack of the norms (a cat kernel per 128; clip_small_launches) */
  fu__foreach_op ops[16];
  const fu__foreach_op *base = NULL;
  size_t nbase = 0, nops = 0, len = strlen(o->name);
  int clipped = len > 5 && !strcmp(o->name + len - 5, "_clip");
  char name[sizeof o->name];
  snprintf(name, sizeof name, "%.*s", (int)(clipped ? len - 5 : len), o->name);
  if (!strcmp(name, "adamw")) base = fu__adamw_ops, nbase = sizeof fu__adamw_ops / sizeof *fu__adamw_ops;
  else if (!strcmp(name, "adam")) base = fu__adamw_ops + 1, nbase = sizeof fu__adamw_ops / sizeof *fu__adamw_ops - 1;
  else if (!strcmp(name, "sgd")) base = fu__sgd_ops, nbase = sizeof fu__sgd_ops / sizeof *fu__sgd_ops;
  if (!(o->launch_us > 0) || !base) {
    double total = 0;
    for (size_t i = 0; i < n; i++) total += numel[i];
    return o->base_us + o->per_tensor_us * (double)n + o->per_elem_us * total;
  }
  if (clipped) for (size_t k = 0; k < 2; k++) ops[nops++] = fu__clip_ops[k];
  for (size_t k = 0; k < nbase; k++) ops[nops++] = base[k];
  double total = 0, us = 0, nonempty = 0;
  for (size_t i = 0; i < n; i++) total += numel[i] > 0 ? numel[i] : 0, nonempty += numel[i] > 0;
  int cold = o->cold_launch_us > 0;
  for (size_t k = 0; k < nops; k++) {
    const fu__foreach_op *op = &ops[k];
    fu__launch_sums s = {.lists = op->lists, .sat_blocks = o->hbm_sat_blocks, .touches = op->touches};
    if (cold) { /* the cold form: one price for every size, the op's lists in the cache or not */
      int warm = o->warm_per_touch_us > 0 && fu__op_warm(ops, (int)k, total * 4, o->cache_bytes);
      s.per_touch_us = warm ? o->warm_per_touch_us : o->cold_per_touch_us;
      s.chunk_touches = warm ? o->warm_chunk_touches : o->cold_chunk_touches;
    }
    fu__each_launch(numel, n, op->lists, op->scalarlist, fu__add_launch, &s);
    if (cold)
      us += o->cold_launch_us * s.launches + s.cold_us;
    else if (o->hbm_launch_us > 0 && op->lists * total * 4 > o->cache_bytes) /* streams from HBM */
      us += o->hbm_launch_us * s.launches + o->hbm_per_moved_elem_us * s.sat * op->share;
    else
      us += o->launch_us * s.launches + (o->per_moved_elem_us * s.moved + o->per_chunk_elem_us * s.chunk) * op->share;
  }
  if (clipped) { /* the one-element kernels, at the launch cost of the clip's one-list operations */
    double small = 6 + ceil(nonempty / 400) + ceil(nonempty / 128);
    us += small * (cold                                                      ? o->cold_launch_us
                   : o->hbm_launch_us > 0 && total * 4 > o->cache_bytes ? o->hbm_launch_us
                                                                           : o->launch_us);
  }
  return us;
}

/* ---- JSON ---- */

static json_t *fu__farr(const double *v, int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++) json_array_append_new(a, json_real(v[i]));
  return a;
}

static json_t *fu__iarr(const int *v, int n) {
  json_t *a = json_array();
  for (int i = 0; a && i < n; i++) json_array_append_new(a, json_integer(v[i]));
  return a;
}

json_t *fu_compute_to_json(const fu_compute *c) {
  json_t *o = json_object(), *g = json_array(), *gu = json_array(), *at = json_array(),
         *atg = json_array(), *ops = json_array(), *opt = json_array(), *cv = json_array();
  if (!o || !g || !gu || !at || !atg || !ops || !opt || !cv) goto oom;
  json_object_set_new(o, "source", json_string(c->source));
  if (c->gpu[0]) json_object_set_new(o, "gpu", json_string(c->gpu)); /* absent: the profile's GPU */
  for (int i = 0; i < c->ngemm + c->nconv; i++) {
    const fu_gemm_table *t = i < c->ngemm ? &c->gemm[i] : &c->conv[i - c->ngemm];
    json_t *us = json_array();
    for (int k = 0; us && k < t->nm * t->nn * t->nk; k++)
      json_array_append_new(us, t->us[k] > 0 ? json_real(t->us[k]) : json_null());
    json_t *e = json_pack("{s:s, s:s, s:o, s:o, s:o, s:o}", "dtype", t->dtype, "layout", t->layout,
                          "m", fu__iarr(t->m, t->nm), "n", fu__iarr(t->n, t->nn), "k",
                          fu__iarr(t->k, t->nk), "us", us);
    if (e && t->kernel > 0) {
      json_object_set_new(e, "kernel", json_integer(t->kernel));
      json_object_set_new(e, "stride", json_integer(t->stride));
      if (t->nchw) json_object_set_new(e, "format", json_string("nchw"));
      if (t->grouped) json_object_set_new(e, "groups", json_string("grouped"));
      if (t->derived[0]) json_object_set_new(e, "derived", json_string(t->derived));
    }
    if (!e || json_array_append_new(t->kernel > 0 ? cv : t->unaligned ? gu : g, e)) goto oom;
  }
  for (int i = 0; i < c->nattn; i++) {
    const fu_attn_point *a = &c->attn[i];
    json_t *e = json_pack("{s:s, s:i, s:i, s:f, s:i, s:i, s:f, s:f}", "dtype", a->dtype, "head_dim",
                          a->head_dim, "causal", a->causal, "dropout", a->dropout, "seq", a->seq,
                          "bh", a->bh, "fwd_us", a->fwd_us, "bwd_us", a->bwd_us);
    if (e && a->derived[0]) json_object_set_new(e, "derived", json_string(a->derived));
    if (!e || json_array_append_new(a->gqa ? atg : at, e)) goto oom;
  }
  for (int i = 0; i < c->nops; i++) {
    const fu_op_table *t = &c->ops[i];
    json_t *e = json_pack("{s:s, s:s, s:o, s:o, s:o, s:f, s:f}", "op", t->op, "dtype", t->dtype,
                          "numel", fu__farr(t->numel, t->nsizes), "fwd_us",
                          fu__farr(t->fwd_us, t->nsizes), "bwd_us", fu__farr(t->bwd_us, t->nsizes),
                          "host_fwd_us", t->host_fwd_us, "host_bwd_us", t->host_bwd_us);
    if (e && t->derived[0]) json_object_set_new(e, "derived", json_string(t->derived));
    if (!e || json_array_append_new(ops, e)) goto oom;
  }
  for (int i = 0; i < c->noptim; i++) {
    const fu_optim_fit *f = &c->optim[i];
    json_t *e = json_pack("{s:s, s:f, s:f, s:f}", "name", f->name, "base_us", f->base_us,
                          "per_tensor_us", f->per_tensor_us, "per_elem_us", f->per_elem_us);
    if (e && f->has_host) {
      json_object_set_new(e, "host_base_us", json_real(f->host_base_us));
      json_object_set_new(e, "host_per_tensor_us", json_real(f->host_per_tensor_us));
      json_object_set_new(e, "tail_frac", json_real(f->tail_frac));
      if (f->host_probe_us > 0) json_object_set_new(e, "host_probe_us", json_real(f->host_probe_us));
    }
    if (e && f->launch_us > 0) {
      json_object_set_new(e, "launch_us", json_real(f->launch_us));
      json_object_set_new(e, "per_moved_elem_us", json_real(f->per_moved_elem_us));
      json_object_set_new(e, "per_chunk_elem_us", json_real(f->per_chunk_elem_us));
    }
    if (e && f->has_prologue) {
      json_object_set_new(e, "prologue_frac", json_real(f->prologue_frac));
      json_object_set_new(e, "tail_us", json_real(f->tail_us));
    }
    if (e && f->hbm_launch_us > 0) {
      json_object_set_new(e, "hbm_launch_us", json_real(f->hbm_launch_us));
      json_object_set_new(e, "hbm_per_moved_elem_us", json_real(f->hbm_per_moved_elem_us));
      json_object_set_new(e, "hbm_sat_blocks", json_real(f->hbm_sat_blocks));
      json_object_set_new(e, "cache_bytes", json_real(f->cache_bytes));
    }
    if (e && f->cold_launch_us > 0) {
      json_object_set_new(e, "cold_launch_us", json_real(f->cold_launch_us));
      json_object_set_new(e, "cold_per_touch_us", json_real(f->cold_per_touch_us));
      json_object_set_new(e, "cold_chunk_touches", json_real(f->cold_chunk_touches));
      json_object_set_new(e, "warm_per_touch_us", json_real(f->warm_per_touch_us));
      json_object_set_new(e, "warm_chunk_touches", json_real(f->warm_chunk_touches));
      if (!(f->hbm_launch_us > 0)) json_object_set_new(e, "cache_bytes", json_real(f->cache_bytes));
    }
    if (e && f->derived[0]) json_object_set_new(e, "derived", json_string(f->derived));
    if (!e || json_array_append_new(opt, e)) goto oom;
  }
  json_object_set_new(o, "gemm", g);
  if (json_array_size(gu) > 0)
    json_object_set_new(o, "gemm_unaligned", gu);
  else
    json_decref(gu);
  json_object_set_new(o, "attention", at);
  if (json_array_size(atg) > 0)
    json_object_set_new(o, "attention_gqa", atg);
  else
    json_decref(atg);
  json_object_set_new(o, "ops", ops);
  json_object_set_new(o, "optimizer", opt);
  if (json_array_size(cv) > 0)
    json_object_set_new(o, "conv", cv);
  else
    json_decref(cv);
  if (c->host_probe_us > 0) json_object_set_new(o, "host_probe_us", json_real(c->host_probe_us));
  if (c->host_probe_min_us > 0) json_object_set_new(o, "host_probe_min_us", json_real(c->host_probe_min_us));
  if (c->timer_us > 0) json_object_set_new(o, "timer_overhead_us", json_real(c->timer_us));
  if (c->workspace_bytes > 0) json_object_set_new(o, "workspace_bytes", json_real(c->workspace_bytes));
  /* o owns the tables by now: on failure it alone is released (not through oom) */
  if (c->host_speed_range[0] > 0 &&
      json_object_set_new(o, "host_speed_range", fu__farr(c->host_speed_range, 4))) {
    json_decref(o);
    return NULL;
  }
  return o;
oom:
  json_decref(o);
  json_decref(g);
  json_decref(gu);
  json_decref(at);
  json_decref(ops);
  json_decref(opt);
  json_decref(cv);
  return NULL;
}

static int fu__bad(const char *what, const char *where, const char *msg) {
  fu_error("%s: compute.%s: %s", what, where, msg);
  return FU_EDATA;
}

/* e's optional "derived" (how a table or fit not measured on this GPU was made) into buf. */
static int fu__derived(json_t *e, const char *what, const char *where, char *buf, size_t n) {
  json_t *d = json_object_get(e, "derived");
  if (d && !(json_is_string(d) && strlen(json_string_value(d)) < n))
    return fu__bad(what, where, "derived must be a string of at most 47 bytes");
  if (d) snprintf(buf, n, "%s", json_string_value(d));
  return FU_OK;
}

/* A finite number of o[key] in [lo, hi]. */
static int fu__num(json_t *o, const char *key, double lo, double hi, double *out) {
  json_t *v = json_object_get(o, key);
  if (!json_is_number(v)) return FU_EDATA;
  double d = json_number_value(v);
  if (!isfinite(d) || d < lo || d > hi) return FU_EDATA;
  *out = d;
  return FU_OK;
}

static int fu__str(json_t *o, const char *key, char *buf, size_t len) {
  json_t *v = json_object_get(o, key);
  if (!json_is_string(v) || strlen(json_string_value(v)) >= len || !json_string_value(v)[0])
    return FU_EDATA;
  snprintf(buf, len, "%s", json_string_value(v));
  return FU_OK;
}

/* An array of n <= max numbers in [lo, hi], ascending when asc; *n its length. */
static int fu__numarr(json_t *o, const char *key, int max, double lo, double hi, int asc, double *v,
                      int *n) {
  json_t *a = json_object_get(o, key);
  if (!json_is_array(a) || json_array_size(a) > (size_t)max) return FU_EDATA;
  *n = (int)json_array_size(a);
  for (int i = 0; i < *n; i++) {
    json_t *e = json_array_get(a, (size_t)i);
    if (!json_is_number(e)) return FU_EDATA;
    v[i] = json_number_value(e);
    if (!isfinite(v[i]) || v[i] < lo || v[i] > hi) return FU_EDATA;
    if (asc && i > 0 && !(v[i] > v[i - 1])) return FU_EDATA;
  }
  return FU_OK;
}

static int fu__parse_gemm(json_t *e, const char *what, char *where, fu_gemm_table *t) {
  memset(t, 0, sizeof *t);
  double ax[3][FU_GEMM_GRID_AXIS];
  int n[3];
  static const char *const keys[3] = {"m", "n", "k"};
  if (fu__str(e, "dtype", t->dtype, sizeof t->dtype) || fu__str(e, "layout", t->layout, sizeof t->layout))
    return fu__bad(what, where, "dtype and layout must be short strings");
  for (int w = 0; w < 3; w++)
    if (fu__numarr(e, keys[w], FU_GEMM_GRID_AXIS, 1, 1 << 30, 1, ax[w], &n[w]) || n[w] < 1)
      return fu__bad(what, where, "m, n, k must be ascending lists of 1 to 16 sizes");
  t->nm = n[0], t->nn = n[1], t->nk = n[2];
  for (int i = 0; i < n[0]; i++) t->m[i] = (int)ax[0][i];
  for (int i = 0; i < n[1]; i++) t->n[i] = (int)ax[1][i];
  for (int i = 0; i < n[2]; i++) t->k[i] = (int)ax[2][i];
  json_t *us = json_object_get(e, "us");
  size_t want = (size_t)n[0] * (size_t)n[1] * (size_t)n[2];
  if (!json_is_array(us) || json_array_size(us) != want)
    return fu__bad(what, where, "us must hold one time (or null) per grid point");
  for (size_t i = 0; i < want; i++) {
    json_t *v = json_array_get(us, i);
    if (json_is_null(v)) continue;
    double d = json_is_number(v) ? json_number_value(v) : -1;
    if (!isfinite(d) || d <= 0 || d > 1e9) return fu__bad(what, where, "a time is not a number above 0");
    t->us[i] = (float)d;
  }
  return FU_OK;
}

static int fu__parse_attn(json_t *e, const char *what, const char *where, fu_attn_point *a) {
  double hd, causal, seq, bh;
  memset(a, 0, sizeof *a);
  if (fu__str(e, "dtype", a->dtype, sizeof a->dtype) || fu__num(e, "head_dim", 1, 65536, &hd) ||
      fu__num(e, "causal", 0, 1, &causal) || fu__num(e, "dropout", 0, 1, &a->dropout) ||
      fu__num(e, "seq", 1, 1e9, &seq) || fu__num(e, "bh", 1, 1e9, &bh) ||
      fu__num(e, "fwd_us", 1e-6, 1e12, &a->fwd_us) || fu__num(e, "bwd_us", 1e-6, 1e12, &a->bwd_us))
    return fu__bad(what, where, "needs dtype, head_dim, causal (0/1), dropout, seq, bh, fwd_us, bwd_us > 0");
  a->head_dim = (int)hd, a->causal = (int)causal, a->seq = (int)seq, a->bh = (int)bh;
  return fu__derived(e, what, where, a->derived, sizeof a->derived);
}

static int fu__parse_op(json_t *e, const char *what, const char *where, fu_op_table *t) {
  memset(t, 0, sizeof *t);
  int n1, n2, n3;
  if (fu__str(e, "op", t->op, sizeof t->op) || fu__str(e, "dtype", t->dtype, sizeof t->dtype))
    return fu__bad(what, where, "op and dtype must be short strings");
  if (fu__numarr(e, "numel", FU_OPS_SIZES, 1, 1e15, 1, t->numel, &n1) ||
      fu__numarr(e, "fwd_us", FU_OPS_SIZES, 1e-6, 1e12, 0, t->fwd_us, &n2) ||
      fu__numarr(e, "bwd_us", FU_OPS_SIZES, 1e-6, 1e12, 0, t->bwd_us, &n3) || n1 != n2 || n1 != n3)
    return fu__bad(what, where, "numel (ascending), fwd_us, bwd_us must be lists of one length (<= 16) of numbers above 0");
  t->nsizes = n1;
  if (fu__num(e, "host_fwd_us", 0, 1e6, &t->host_fwd_us) || fu__num(e, "host_bwd_us", 0, 1e6, &t->host_bwd_us))
    return fu__bad(what, where, "host_fwd_us and host_bwd_us must be numbers >= 0");
  return fu__derived(e, what, where, t->derived, sizeof t->derived);
}

/* Grid points of t with a time. */
static int fu__table_points(const fu_gemm_table *t) {
  int k = 0;
  for (int i = 0; i < t->nm * t->nn * t->nk; i++) k += t->us[i] > 0;
  return k;
}

/* A grouped table's kind: depthwise where its per-group K axis (k in fwd; n in dgrad and wgrad,
 * whose K is their second axis) holds kernel x kernel alone (one input channel a group), else
 * grouped of wider groups. The two are kept apart: cuDNN runs them with other kernels, and
 * calib_torch measures them in parts of their own (dwconv, gconv). */
static int fu__grouped_kind(const fu_gemm_table *t) {
  const int *ax = strcmp(t->layout, "fwd") ? t->n : t->k;
  int n = strcmp(t->layout, "fwd") ? t->nn : t->nk;
  for (int i = 0; i < n; i++)
    if (ax[i] != t->kernel * t->kernel) return FU_CONV_GROUPED;
  return FU_CONV_DEPTHWISE;
}

/* t in place of the table of the same key in arr[0..*n) (dtype, layout, alignment, kernel,
 * stride, memory format, grouped), else appended; FU_EDATA when arr is full. A replacement with fewer
 * timed points than the table it replaces is said on stderr: a sweep cut by its time budget
 * leaves nulls, and shapes with no timed point around them then have no time at all (fit
 * --merge-into). */
static int fu__put_table(fu_gemm_table *arr, int *n, int max, const fu_gemm_table *t, const char *what,
                         const char *where) {
  int i = 0;
  while (i < *n && (strcmp(arr[i].dtype, t->dtype) || strcmp(arr[i].layout, t->layout) ||
                    arr[i].unaligned != t->unaligned || arr[i].kernel != t->kernel ||
                    arr[i].stride != t->stride || arr[i].nchw != t->nchw || arr[i].grouped != t->grouped))
    i++;
  if (i == max) return FU_EDATA;
  if (i < *n && fu__table_points(t) < fu__table_points(&arr[i]))
    fu_warn("%s: %s (%s %s) has %d timed points and replaces a table of %d", what, where, t->dtype,
            t->layout, fu__table_points(t), fu__table_points(&arr[i]));
  arr[i] = *t;
  if (i == *n) (*n)++;
  return FU_OK;
}

int fu_compute_parse(json_t *o, const char *what, fu_compute *c) {
  char where[64];
  if (!json_is_object(o)) return fu__bad(what, "(object)", "not a JSON object");
  json_t *v = json_object_get(o, "source");
  if (v) {
    if (!json_is_string(v) || strlen(json_string_value(v)) >= sizeof c->source)
      return fu__bad(what, "source", "not a string of at most 255 bytes");
    snprintf(c->source, sizeof c->source, "%s", json_string_value(v));
  }
  if ((v = json_object_get(o, "gpu"))) {
    if (!json_is_string(v) || strlen(json_string_value(v)) >= sizeof c->gpu)
      return fu__bad(what, "gpu", "not a string of at most 63 bytes");
    snprintf(c->gpu, sizeof c->gpu, "%s", json_string_value(v));
  }
  json_t *a;
  /* "gemm" (fusim calib's sweep or calib_torch), "gemm_unaligned" and "conv" (calib_torch): each
   * table replaces the one of its key, the others stay */
  static const char *const gkeys[3] = {"gemm", "gemm_unaligned", "conv"};
  for (int u = 0; u < 3; u++) {
    if (!(a = json_object_get(o, gkeys[u]))) continue;
    size_t max = u < 2 ? FU_GEMM_TABLES / 2 : FU_CONV_TABLES;
    if (!json_is_array(a) || json_array_size(a) > max) {
      snprintf(where, sizeof where, "not an array of at most %zu tables", max);
      return fu__bad(what, gkeys[u], where);
    }
    for (size_t i = 0; i < json_array_size(a); i++) {
      fu_gemm_table t;
      json_t *e = json_array_get(a, i);
      snprintf(where, sizeof where, "%s[%zu]", gkeys[u], i);
      FU_CHECK(fu__parse_gemm(e, what, where, &t));
      t.unaligned = u == 1;
      double kernel, stride;
      if (u == 2) {
        if (fu__num(e, "kernel", 1, 64, &kernel) || fu__num(e, "stride", 1, 64, &stride) ||
            kernel != floor(kernel) || stride != floor(stride))
          return fu__bad(what, where, "kernel and stride must be whole numbers from 1 to 64");
        t.kernel = (int)kernel, t.stride = (int)stride;
        json_t *f = json_object_get(e, "format");
        if (f && !(json_is_string(f) && (!strcmp(json_string_value(f), "nchw") ||
                                         !strcmp(json_string_value(f), "channels_last"))))
          return fu__bad(what, where, "format must be \"nchw\" or \"channels_last\"");
        t.nchw = f && !strcmp(json_string_value(f), "nchw");
        json_t *g = json_object_get(e, "groups");
        if (g && !(json_is_string(g) && (!strcmp(json_string_value(g), "grouped") ||
                                         !strcmp(json_string_value(g), "dense"))))
          return fu__bad(what, where, "groups must be \"grouped\" or \"dense\"");
        t.grouped = g && !strcmp(json_string_value(g), "grouped") ? fu__grouped_kind(&t) : FU_CONV_DENSE;
        FU_CHECK(fu__derived(e, what, where, t.derived, sizeof t.derived));
      }
      if (fu__put_table(u == 2 ? c->conv : c->gemm, u == 2 ? &c->nconv : &c->ngemm,
                        u == 2 ? FU_CONV_TABLES : FU_GEMM_TABLES, &t, what, where) != FU_OK)
        return fu__bad(what, where, "too many tables");
    }
  }
  /* the fused kernels' points ("attention") and the math path's for grouped keys
   * ("attention_gqa"): each key replaces its own kind and keeps the other (fit --merge-into) */
  static const char *const attn_keys[] = {"attention", "attention_gqa"};
  for (int gqa = 0; gqa < 2; gqa++) {
    if (!(a = json_object_get(o, attn_keys[gqa]))) continue;
    int kept = 0;
    for (int i = 0; i < c->nattn; i++)
      if (c->attn[i].gqa != gqa) c->attn[kept++] = c->attn[i];
    if (!json_is_array(a) || kept + json_array_size(a) > FU_ATTN_MAX)
      return fu__bad(what, attn_keys[gqa], "not an array of points that fit 1024 in all");
    c->nattn = kept;
    for (size_t i = 0; i < json_array_size(a); i++) {
      snprintf(where, sizeof where, "%s[%zu]", attn_keys[gqa], i);
      FU_CHECK(fu__parse_attn(json_array_get(a, i), what, where, &c->attn[c->nattn]));
      c->attn[c->nattn++].gqa = gqa;
    }
  }
  if ((a = json_object_get(o, "ops"))) {
    if (!json_is_array(a) || json_array_size(a) > FU_OPS_MAX)
      return fu__bad(what, "ops", "not an array of at most 128 tables");
    for (size_t i = 0; i < json_array_size(a); i++) {
      fu_op_table t;
      snprintf(where, sizeof where, "ops[%zu]", i);
      FU_CHECK(fu__parse_op(json_array_get(a, i), what, where, &t));
      int j = 0; /* the table of that op and dtype, else a new one */
      while (j < c->nops && (strcmp(c->ops[j].op, t.op) || strcmp(c->ops[j].dtype, t.dtype))) j++;
      if (j == FU_OPS_MAX) return fu__bad(what, where, "too many operation tables");
      c->ops[j] = t;
      if (j == c->nops) c->nops++;
    }
  }
  if (json_object_get(o, "host_probe_us")) {
    if (fu__num(o, "host_probe_us", 1e-3, 1e6, &c->host_probe_us) != FU_OK)
      return fu__bad(what, "host_probe_us", "not a number from 0.001 to 1e6");
    /* the fastest reading goes with its probe: stated, else the fastest the file recorded */
    c->host_probe_min_us = 0;
    double v[64];
    int n = 0;
    json_t *d = json_object_get(json_object_get(o, "diag"), "hf_host");
    if (json_object_get(o, "host_probe_min_us")) {
      if (fu__num(o, "host_probe_min_us", 1e-3, c->host_probe_us, &c->host_probe_min_us) != FU_OK)
        return fu__bad(what, "host_probe_min_us", "not a number from 0.001 to host_probe_us");
    } else if (d && json_object_get(d, "probes_us")) {
      if (fu__numarr(d, "probes_us", 64, 1e-3, 1e6, 0, v, &n) != FU_OK || n == 0)
        return fu__bad(what, "diag.hf_host.probes_us", "not 1 to 64 numbers from 0.001 to 1e6");
      c->host_probe_min_us = v[0];
      for (int i = 1; i < n; i++)
        if (v[i] < c->host_probe_min_us) c->host_probe_min_us = v[i];
    }
  }
  if (json_object_get(o, "timer_overhead_us") &&
      fu__num(o, "timer_overhead_us", 0, 100, &c->timer_us) != FU_OK)
    return fu__bad(what, "timer_overhead_us", "not a number from 0 to 100");
  if (json_object_get(o, "workspace_bytes") &&
      fu__num(o, "workspace_bytes", 0, 1e12, &c->workspace_bytes) != FU_OK)
    return fu__bad(what, "workspace_bytes", "not a byte count from 0 to 1e12");
  if (json_object_get(o, "host_speed_range")) {
    double v[4];
    int n = 0;
    if (fu__numarr(o, "host_speed_range", 4, 0.01, 100, 0, v, &n) != FU_OK || n != 4 || v[0] > v[1] ||
        v[2] > v[3])
      return fu__bad(what, "host_speed_range", "not 4 numbers from 0.01 to 100: forward lo <= hi, backward lo <= hi");
    memcpy(c->host_speed_range, v, sizeof v);
  }
  if ((a = json_object_get(o, "optimizer"))) {
    if (!json_is_array(a) || json_array_size(a) > FU_OPTIM_MAX)
      return fu__bad(what, "optimizer", "not an array of at most 8 fits");
    for (size_t i = 0; i < json_array_size(a); i++) {
      fu_optim_fit fit, *f = &fit;
      json_t *e = json_array_get(a, i);
      snprintf(where, sizeof where, "optimizer[%zu]", i);
      memset(f, 0, sizeof *f);
      if (fu__str(e, "name", f->name, sizeof f->name) || fu__num(e, "base_us", 0, 1e9, &f->base_us) ||
          fu__num(e, "per_tensor_us", 0, 1e6, &f->per_tensor_us) ||
          fu__num(e, "per_elem_us", 0, 1e3, &f->per_elem_us))
        return fu__bad(what, where, "needs name, base_us, per_tensor_us, per_elem_us (numbers >= 0)");
      if (json_object_get(e, "host_per_tensor_us")) { /* the host's part measured apart */
        f->has_host = 1;
        if (fu__num(e, "host_per_tensor_us", 0, 1e6, &f->host_per_tensor_us) ||
            (json_object_get(e, "host_base_us") && fu__num(e, "host_base_us", 0, 1e9, &f->host_base_us)) ||
            (json_object_get(e, "tail_frac") && fu__num(e, "tail_frac", 0, 1, &f->tail_frac)) ||
            (json_object_get(e, "host_probe_us") && fu__num(e, "host_probe_us", 1e-3, 1e6, &f->host_probe_us)))
          return fu__bad(what, where, "host_per_tensor_us, host_base_us (numbers >= 0), tail_frac (0 to 1), "
                                      "host_probe_us (0.001 to 1e6)");
      }
      if (json_object_get(e, "launch_us") &&
          (fu__num(e, "launch_us", 1e-6, 1e6, &f->launch_us) ||
           fu__num(e, "per_moved_elem_us", 0, 1, &f->per_moved_elem_us) ||
           fu__num(e, "per_chunk_elem_us", 0, 1, &f->per_chunk_elem_us)))
        return fu__bad(what, where, "launch_us (above 0), per_moved_elem_us and per_chunk_elem_us (0 to 1) go together");
      if (json_object_get(e, "prologue_frac") || json_object_get(e, "tail_us")) {
        f->has_prologue = 1;
        if (!f->has_host || fu__num(e, "prologue_frac", 0, 1, &f->prologue_frac) ||
            fu__num(e, "tail_us", 0, 1e6, &f->tail_us))
          return fu__bad(what, where, "prologue_frac (0 to 1) and tail_us (0 to 1e6) go together, with the host part");
      }
      if (json_object_get(e, "hbm_launch_us") &&
          (!(f->launch_us > 0) || fu__num(e, "hbm_launch_us", 1e-6, 1e6, &f->hbm_launch_us) ||
           fu__num(e, "hbm_per_moved_elem_us", 0, 1, &f->hbm_per_moved_elem_us) ||
           fu__num(e, "hbm_sat_blocks", 0, 320, &f->hbm_sat_blocks) ||
           fu__num(e, "cache_bytes", 0, 1e12, &f->cache_bytes)))
        return fu__bad(what, where, "hbm_launch_us (above 0), hbm_per_moved_elem_us (0 to 1), hbm_sat_blocks "
                                    "(0 to 320) and cache_bytes (0 to 1e12) go together, with the launch form");
      if (json_object_get(e, "cold_launch_us") &&
          (!(f->launch_us > 0) || fu__num(e, "cold_launch_us", 1e-6, 1e6, &f->cold_launch_us) ||
           fu__num(e, "cold_per_touch_us", 0, 1, &f->cold_per_touch_us) ||
           fu__num(e, "cold_chunk_touches", 0, 1e4, &f->cold_chunk_touches) ||
           fu__num(e, "warm_per_touch_us", 0, 1, &f->warm_per_touch_us) ||
           fu__num(e, "warm_chunk_touches", 0, 1e4, &f->warm_chunk_touches) ||
           fu__num(e, "cache_bytes", 1, 1e12, &f->cache_bytes)))
        return fu__bad(what, where, "cold_launch_us (above 0), cold_per_touch_us and warm_per_touch_us (0 to 1), "
                                    "cold_chunk_touches and warm_chunk_touches (0 to 1e4) and cache_bytes (1 to "
                                    "1e12) go together, with the launch form");
      FU_CHECK(fu__derived(e, what, where, f->derived, sizeof f->derived));
      /* a fit replaces the one of its name and leaves the others (a calibration of the clipped
       * steps alone keeps the plain ones) */
      int k = 0;
      while (k < c->noptim && strcmp(c->optim[k].name, f->name)) k++;
      if (k == FU_OPTIM_MAX) return fu__bad(what, where, "more than 8 optimizer fits in all");
      c->optim[k] = fit;
      if (k == c->noptim) c->noptim++;
    }
  }
  return FU_OK;
}

int fu_compute_load_torch(const char *path, fu_compute *c, double *gpu_mem_bytes, char *gpu, size_t gpu_len,
                          char *src, size_t src_len) {
  char *text = NULL;
  gpu[0] = '\0';
  int st = fu_read_file(path, &text, NULL);
  json_error_t err;
  json_t *root = st == FU_OK ? json_loads(text, 0, &err) : NULL;
  free(text);
  if (st == FU_OK && !root) {
    fu_error("%s:%d:%d: not valid JSON: %s", path, err.line, err.column, err.text);
    st = FU_EDATA;
  }
  json_t *fmt = root ? json_object_get(root, "format") : NULL;
  if (st == FU_OK && (!json_is_string(fmt) || strcmp(json_string_value(fmt), "fusim-compute-1"))) {
    fu_error("%s: format: missing or not \"fusim-compute-1\" (tools/calib_torch.py writes it)", path);
    st = FU_EDATA;
  }
  if (st == FU_OK) {
    json_t *o = json_object_get(root, "compute");
    fu_compute *tmp = malloc(sizeof *tmp); /* about 3 MB: not on the stack */
    char torch_src[512];
    const char *ts = json_string_value(json_object_get(o, "source"));
    snprintf(torch_src, sizeof torch_src, "%s", ts ? ts : path);
    json_object_del(o, "source"); /* the profile's source says both parts */
    if (!tmp) {
      fu_error("%s: out of memory", path);
      st = FU_ENOMEM;
    } else {
      *tmp = *c;
      st = fu_compute_parse(o, path, tmp);
      if (st == FU_OK) *c = *tmp;
      free(tmp);
    }
    json_t *mem = json_object_get(root, "gpu_mem_bytes");
    if (st == FU_OK && json_is_number(mem) && json_number_value(mem) > 0) *gpu_mem_bytes = json_number_value(mem);
    const char *g = json_string_value(json_object_get(root, "gpu"));
    if (st == FU_OK && g) snprintf(gpu, gpu_len, "%s", g);
    size_t l = strlen(src);
    if (st == FU_OK && l < src_len) snprintf(src + l, src_len - l, "%s%s", l ? "; " : "", torch_src);
  }
  json_decref(root);
  return st;
}

int fu_compute_set_source(fu_compute *c, const char *src, int replace_all) {
  if (!replace_all && !src[0]) return FU_OK;
  const char *old = replace_all ? "" : c->source;
  char *both = malloc(strlen(old) + 2 + strlen(src) + 1);
  if (!both) {
    fu_error("compute tables' source: out of memory");
    return FU_ENOMEM;
  }
  sprintf(both, "%s%s%s", old, old[0] ? "; " : "", src);
  fu_list_fit(c->source, sizeof c->source, both); /* the loader's limit: whole entries, then "; and N more" */
  free(both);
  return FU_OK;
}
