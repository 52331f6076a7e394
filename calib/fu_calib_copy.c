/* fu_calib_copy.c: PCIe and device copies, per-operation issue cost, and the batched pack
 * kernel against one copy and k copies (the fusion comparison). Sample encoding: fu_calib.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "fu_calib_gpu.h"
#include "fu_calib_int.h"
#include "fu_pack.h"

/* Sizes up to this are also timed queued (device time alone); above it the two agree. */
#define FU__QUEUED_MAX (4ULL << 20)

typedef struct fu__cp {
  void *dst;                 /* destination */
  const void *src;           /* source */
  size_t n;                  /* bytes */
  enum cudaMemcpyKind kind;  /* direction */
} fu__cp;

static int fu__cp_op(void *arg, cudaStream_t s) {
  fu__cp *a = arg;
  return (int)cudaMemcpyAsync(a->dst, a->src, a->n, a->kind, s);
}

typedef struct fu__bidir {
  fu__cp up, down;           /* h2d on the main stream, d2h on the second */
  cudaStream_t s2;           /* the second stream */
  cudaEvent_t fork, join;    /* ordering events (no timing) */
} fu__bidir;

static int fu__bidir_op(void *arg, cudaStream_t s) {
  fu__bidir *b = arg;
  cudaError_t e;
  if ((e = cudaEventRecord(b->fork, s)) || (e = cudaStreamWaitEvent(b->s2, b->fork, 0)) ||
      (e = cudaMemcpyAsync(b->up.dst, b->up.src, b->up.n, b->up.kind, s)) ||
      (e = cudaMemcpyAsync(b->down.dst, b->down.src, b->down.n, b->down.kind, b->s2)) ||
      (e = cudaEventRecord(b->join, b->s2)) || (e = cudaStreamWaitEvent(s, b->join, 0)))
    return (int)e;
  return 0;
}

static void fu__sample(fu_sample *s, const char *op, const char *link, uint64_t bytes,
                       const char *algo, const char *proto) {
  fu_sample_init(s);
  snprintf(s->op, sizeof s->op, "%s", op);
  snprintf(s->link, sizeof s->link, "%s", link);
  snprintf(s->algo, sizeof s->algo, "%s", algo);
  snprintf(s->proto, sizeof s->proto, "%s", proto);
  s->bytes = bytes;
  s->ranks = 1;
}

/* Times op in the given mode, sets GB/s as `moved` bytes over the median, emits. */
static int fu__measure(fu_calib_ctx *c, fu_sample *s, fu_calib_op op, void *arg, int mode,
                       double moved) {
  int st = fu_calib_time(c, op, arg, c->s, mode, s);
  if (st != FU_OK) return st;
  s->busbw_gbps = moved / (s->t_median_us * 1e3);
  return fu_calib_emit(c, s);
}

/* The three timings of one copy (proto "", "pipe", "queued"; see fu_calib.h): synchronised
 * runs (the reference program's way) and back-to-back runs at every size, the device time
 * alone (queued) up to FU__QUEUED_MAX (above it the three agree). */
static int fu__measure3(fu_calib_ctx *c, fu_sample *s, fu_calib_op op, void *arg, double moved,
                        int with_queued) {
  static const struct {
    int mode;                /* FU_T_* */
    const char *proto;       /* stored as */
  } v[3] = {{FU_T_SYNC, ""}, {FU_T_PIPE, "pipe"}, {FU_T_QUEUED, "queued"}};
  int st = FU_OK;
  for (int i = 0; st == FU_OK && i < 3; i++) {
    if (i == 2 && (!with_queued || s->bytes > FU__QUEUED_MAX)) break;
    snprintf(s->proto, sizeof s->proto, "%s", v[i].proto);
    st = fu__measure(c, s, op, arg, v[i].mode, moved);
  }
  return st;
}

static int fu__check_device(fu_calib_ctx *c, const void *p, uint64_t n, uint32_t seed,
                            unsigned long long *bad) {
  FU_CU(cudaMemsetAsync(c->d_bad, 0, sizeof *c->d_bad, c->s));
  FU_CU(fu_k_check_bytes(p, n, seed, c->d_bad, c->s));
  FU_CU(cudaMemcpyAsync(bad, c->d_bad, sizeof *bad, cudaMemcpyDeviceToHost, c->s));
  FU_CU(cudaStreamSynchronize(c->s));
  return FU_OK;
}

long fu_calib_copy_steps(const fu_calib_ctx *c) { return c->nsizes; }

typedef struct fu__bufs {
  unsigned char *h_pin, *h_pin2;   /* pinned host buffers */
  unsigned char *h_page;           /* pageable host buffer */
  unsigned char *d_a, *d_b;        /* device buffers */
} fu__bufs;

static void fu__bufs_free(fu__bufs *b) {
  if (b->h_pin) cudaFreeHost(b->h_pin);
  if (b->h_pin2) cudaFreeHost(b->h_pin2);
  free(b->h_page);
  if (b->d_a) cudaFree(b->d_a);
  if (b->d_b) cudaFree(b->d_b);
}

static int fu__bufs_alloc(fu__bufs *b, uint64_t n) {
  memset(b, 0, sizeof *b);
  FU_CU(cudaHostAlloc((void **)&b->h_pin, n, cudaHostAllocDefault));
  FU_CU(cudaHostAlloc((void **)&b->h_pin2, n, cudaHostAllocDefault));
  FU_CU(cudaMalloc((void **)&b->d_a, n));
  FU_CU(cudaMalloc((void **)&b->d_b, n));
  b->h_page = malloc(n);
  if (!b->h_page) return FU_ENOMEM;
  memset(b->h_page, 1, n);  /* touch every page: first-touch faults stay out of the timing */
  return FU_OK;
}

/* Stores a copy's data check on its sample; wrong bytes are reported and fail the run (as
 * for the collectives and the pack kernel), the timing is still kept. */
static void fu__copy_checked(fu_calib_ctx *c, fu_sample *s, unsigned long long bad) {
  s->n_wrong = bad > 2000000000ULL ? 2000000000 : (int)bad;
  if (!bad) return;
  fu_error("calib: %s%s%s %llu bytes: %llu bytes wrong", s->op, s->algo[0] ? " " : "", s->algo,
           (unsigned long long)s->bytes, bad);
  c->nfail++;
}

static int fu__copy_size(fu_calib_ctx *c, fu__bufs *b, uint64_t n, fu__bidir *bd) {
  fu_sample s;
  unsigned long long bad;
  uint32_t seed = (uint32_t)(n * 16);
  int st;
  /* h2d, pinned then pageable */
  for (int pageable = 0; pageable < 2; pageable++) {
    unsigned char *h = pageable ? b->h_page : b->h_pin;
    fu_pattern_fill_host(h, n, seed + 1 + pageable);
    FU_CU(cudaMemcpyAsync(b->d_a, h, n, cudaMemcpyHostToDevice, c->s));
    if ((st = fu__check_device(c, b->d_a, n, seed + 1 + pageable, &bad))) return st;
    fu__cp cp = {b->d_a, h, n, cudaMemcpyHostToDevice};
    fu__sample(&s, "h2d", "pcie_h2d", n, pageable ? "pageable" : "", "");
    fu__copy_checked(c, &s, bad);
    if ((st = fu__measure3(c, &s, fu__cp_op, &cp, (double)n, !pageable))) return st;
  }
  /* d2h */
  for (int pageable = 0; pageable < 2; pageable++) {
    unsigned char *h = pageable ? b->h_page : b->h_pin2;
    FU_CU(fu_k_fill_bytes(b->d_b, n, seed + 3 + pageable, c->s));
    FU_CU(cudaMemcpyAsync(h, b->d_b, n, cudaMemcpyDeviceToHost, c->s));
    FU_CU(cudaStreamSynchronize(c->s));
    bad = fu_pattern_check_host(h, n, seed + 3 + pageable);
    fu__cp cp = {h, b->d_b, n, cudaMemcpyDeviceToHost};
    fu__sample(&s, "d2h", "pcie_d2h", n, pageable ? "pageable" : "", "");
    fu__copy_checked(c, &s, bad);
    if ((st = fu__measure3(c, &s, fu__cp_op, &cp, (double)n, !pageable))) return st;
  }
  /* d2d: bytes copied (each read once and written once) over the time */
  {
    FU_CU(fu_k_fill_bytes(b->d_a, n, seed + 5, c->s));
    FU_CU(cudaMemcpyAsync(b->d_b, b->d_a, n, cudaMemcpyDeviceToDevice, c->s));
    if ((st = fu__check_device(c, b->d_b, n, seed + 5, &bad))) return st;
    fu__cp cp = {b->d_b, b->d_a, n, cudaMemcpyDeviceToDevice};
    fu__sample(&s, "d2d", "hbm", n, "", "");
    fu__copy_checked(c, &s, bad);
    if ((st = fu__measure3(c, &s, fu__cp_op, &cp, (double)n, 1))) return st;
  }
  /* both directions at once: h_pin -> d_a on s, d_b -> h_pin2 on s2 */
  {
    fu_pattern_fill_host(b->h_pin, n, seed + 6);
    FU_CU(fu_k_fill_bytes(b->d_b, n, seed + 7, c->s));
    FU_CU(cudaStreamSynchronize(c->s));
    bd->up = (fu__cp){b->d_a, b->h_pin, n, cudaMemcpyHostToDevice};
    bd->down = (fu__cp){b->h_pin2, b->d_b, n, cudaMemcpyDeviceToHost};
    FU_CU(fu__bidir_op(bd, c->s));
    if ((st = fu__check_device(c, b->d_a, n, seed + 6, &bad))) return st;
    bad += fu_pattern_check_host(b->h_pin2, n, seed + 7);
    fu__sample(&s, "bidir", "pcie_bidir", n, "", "");
    fu__copy_checked(c, &s, bad);
    if ((st = fu__measure3(c, &s, fu__bidir_op, bd, 2.0 * (double)n, 0))) return st;
  }
  return FU_OK;
}

int fu_calib_copy(fu_calib_ctx *c) {
  uint64_t maxn = c->sizes[c->nsizes - 1];
  fu__bufs b;
  fu__bidir bd;
  memset(&bd, 0, sizeof bd);
  fu_calib_phase(c, "copies: h2d, d2h (pinned, pageable), d2d, both directions; %d sizes",
                 c->nsizes);
  int st = fu__bufs_alloc(&b, maxn);
  bd.s2 = c->s2;
  if (st == FU_OK && (cudaEventCreateWithFlags(&bd.fork, cudaEventDisableTiming) ||
                      cudaEventCreateWithFlags(&bd.join, cudaEventDisableTiming))) {
    fu_error("calib: cannot create events");
    st = FU_EINTERNAL;
  }
  for (int i = 0; st == FU_OK && i < c->nsizes; i++) {
    char what[64], sz[32];
    snprintf(what, sizeof what, "copies %s", fu_format_size(c->sizes[i], sz, sizeof sz));
    st = fu_calib_tx_begin(c);
    if (st == FU_OK) st = fu__copy_size(c, &b, c->sizes[i], &bd);
    if (st == FU_OK) st = fu_calib_tx_end(c);
    else if (c->db) fu_db_rollback(c->db);
    fu_calib_step(c, what);
  }
  if (bd.fork) cudaEventDestroy(bd.fork);
  if (bd.join) cudaEventDestroy(bd.join);
  fu__bufs_free(&b);
  return st;
}

/* ---- per-operation issue cost ---- */

#define FU__ISSUE_COPIES 64
#define FU__LAUNCHES 1000

int fu_calib_issue(fu_calib_ctx *c) {
  const int reps = c->o->quick ? 10 : 30;
  double *host = calloc((size_t)reps, sizeof *host), *dev = calloc((size_t)reps, sizeof *dev);
  unsigned char *h = NULL, *d = NULL;
  int st = (!host || !dev) ? FU_ENOMEM : FU_OK;
  fu_calib_phase(c, "issue cost: %d back-to-back copies, %d empty kernels, isolated launches",
                 FU__ISSUE_COPIES, FU__LAUNCHES);
  if (st == FU_OK && (cudaHostAlloc((void **)&h, 4 * FU__ISSUE_COPIES, 0) ||
                      cudaMalloc((void **)&d, 4 * FU__ISSUE_COPIES))) {
    fu_error("calib: issue: cannot allocate buffers");
    st = FU_EINTERNAL;
  }
  if (st == FU_OK) st = fu_calib_tx_begin(c);
  fu_sample s;
  float ms;
  /* back-to-back 4-byte d2h copies: host time per call, device span per copy */
  for (int r = -2; st == FU_OK && r < reps; r++) {  /* two warm-up rounds */
    if (cudaStreamSynchronize(c->s)) st = FU_EINTERNAL;
    double t0 = fu_calib_now();
    cudaEventRecord(c->ev[0], c->s);
    for (int i = 0; i < FU__ISSUE_COPIES; i++)
      if (cudaMemcpyAsync(h + 4 * i, d + 4 * i, 4, cudaMemcpyDeviceToHost, c->s)) st = FU_EINTERNAL;
    cudaEventRecord(c->ev[1], c->s);
    double t1 = fu_calib_now();
    if (cudaEventSynchronize(c->ev[1]) || cudaEventElapsedTime(&ms, c->ev[0], c->ev[1]))
      st = FU_EINTERNAL;
    if (r >= 0) {
      host[r] = (t1 - t0) * 1e6 / FU__ISSUE_COPIES;
      dev[r] = 1e3 * ms / FU__ISSUE_COPIES;
    }
  }
  for (int k = 0; st == FU_OK && k < 2; k++) {
    fu__sample(&s, "issue", "pcie_d2h", 4, k ? "device" : "host", "");
    fu_calib_stats(k ? dev : host, reps, &s.t_min_us, &s.t_median_us, &s.t_p95_us);
    s.count = reps;
    st = fu_calib_emit(c, &s);
  }
  /* back-to-back empty kernels */
  int lreps = reps < 10 ? reps : 10;
  for (int r = -1; st == FU_OK && r < lreps; r++) {
    if (cudaStreamSynchronize(c->s)) st = FU_EINTERNAL;
    double t0 = fu_calib_now();
    cudaEventRecord(c->ev[0], c->s);
    if (fu_k_empty_n(FU__LAUNCHES, c->s)) st = FU_EINTERNAL;
    cudaEventRecord(c->ev[1], c->s);
    double t1 = fu_calib_now();
    if (cudaEventSynchronize(c->ev[1]) || cudaEventElapsedTime(&ms, c->ev[0], c->ev[1]))
      st = FU_EINTERNAL;
    if (r >= 0) {
      host[r] = (t1 - t0) * 1e6 / FU__LAUNCHES;
      dev[r] = 1e3 * ms / FU__LAUNCHES;
    }
  }
  for (int k = 0; st == FU_OK && k < 2; k++) {
    fu__sample(&s, "launch", "launch", 0, k ? "device" : "host", "");
    fu_calib_stats(k ? dev : host, lreps, &s.t_min_us, &s.t_median_us, &s.t_p95_us);
    s.count = lreps;
    st = fu_calib_emit(c, &s);
  }
  /* the same on the legacy default stream (what a plain kernel<<<>>> uses) */
  for (int r = -1; st == FU_OK && r < lreps; r++) {
    if (cudaDeviceSynchronize()) st = FU_EINTERNAL;
    cudaEventRecord(c->ev[0], 0);
    if (fu_k_empty_n(FU__LAUNCHES, 0)) st = FU_EINTERNAL;
    cudaEventRecord(c->ev[1], 0);
    if (cudaEventSynchronize(c->ev[1]) || cudaEventElapsedTime(&ms, c->ev[0], c->ev[1]))
      st = FU_EINTERNAL;
    if (r >= 0) dev[r] = 1e3 * ms / FU__LAUNCHES;
  }
  if (st == FU_OK) {
    fu__sample(&s, "launch", "launch", 0, "legacy", "");
    fu_calib_stats(dev, lreps, &s.t_min_us, &s.t_median_us, &s.t_p95_us);
    s.count = lreps;
    st = fu_calib_emit(c, &s);
  }
  /* one isolated launch on an idle GPU: host call to completion seen by the host */
  for (int r = -2; st == FU_OK && r < reps; r++) {
    if (cudaStreamSynchronize(c->s)) st = FU_EINTERNAL;
    double t0 = fu_calib_now();
    if (fu_k_empty(c->s) || cudaStreamSynchronize(c->s)) st = FU_EINTERNAL;
    double t1 = fu_calib_now();
    if (r >= 0) host[r] = (t1 - t0) * 1e6;
  }
  if (st == FU_OK) {
    fu__sample(&s, "launch", "launch", 0, "isolated", "");
    fu_calib_stats(host, reps, &s.t_min_us, &s.t_median_us, &s.t_p95_us);
    s.count = reps;
    st = fu_calib_emit(c, &s);
  }
  if (st == FU_OK) st = fu_calib_tx_end(c);
  else {
    if (c->db) fu_db_rollback(c->db);
    fu_error("calib: issue-cost measurement failed: %s", cudaGetErrorString(cudaGetLastError()));
  }
  fu_calib_step(c, "issue cost");
  if (h) cudaFreeHost(h);
  if (d) cudaFree(d);
  free(host);
  free(dev);
  return st;
}

/* ---- batched pack kernel and the fusion comparison ---- */

static const struct {
  int k;                     /* tensors */
  uint64_t m;                /* bytes each */
  int quick;                 /* also in --quick */
} fu__pack_cases[] = {
    {64, 4096, 1},          {64, 65536, 1},           {4, 1 << 20, 1},   {4, 8 << 20, 1},
    {4, 128ULL << 20, 1},   {16, 4096, 0},            {16, 65536, 0},    {16, 1 << 20, 0},
    {256, 4096, 0},         {256, 65536, 0},          {256, 1 << 20, 0}, {1024, 4096, 0},
};
#define FU__NPACK ((int)(sizeof fu__pack_cases / sizeof fu__pack_cases[0]))

static int fu__pack_case_on(const fu_calib_ctx *c, int i) {
  uint64_t total = (uint64_t)fu__pack_cases[i].k * fu__pack_cases[i].m;
  if (c->o->quick && !fu__pack_cases[i].quick) return 0;
  return total <= 4 * c->sizes[c->nsizes - 1] || total <= (1u << 20);
}

long fu_calib_pack_steps(const fu_calib_ctx *c) {
  long n = 1;  /* the odd-layout correctness case */
  for (int i = 0; i < FU__NPACK; i++) n += fu__pack_case_on(c, i);
  return n;
}

typedef struct fu__pk {
  fu_pack_plan *plan;        /* layout */
  unsigned char *buf;        /* device fusion buffer */
  unsigned char *h;          /* pinned host destination */
  void **ptrs;               /* host copy of the tensor pointers */
  size_t *sizes;             /* host copy of the sizes */
  int mode;                  /* 0 pack, 1 unpack, 2 one copy, 3 k copies, 4 pack + copy,
                                5 pack straight into pinned host memory (over PCIe) */
} fu__pk;

static int fu__pk_op(void *arg, cudaStream_t s) {
  fu__pk *p = arg;
  const fu_pack_plan *pl = p->plan;
  switch (p->mode) {
  case 0: return fu_pack_plan_pack(pl, p->buf, s) == FU_OK ? 0 : (int)cudaErrorLaunchFailure;
  case 1: return fu_pack_plan_unpack(pl, p->buf, s) == FU_OK ? 0 : (int)cudaErrorLaunchFailure;
  case 2: return (int)cudaMemcpyAsync(p->h, p->buf, pl->total_bytes, cudaMemcpyDeviceToHost, s);
  case 3:
    for (int i = 0; i < pl->k; i++) {
      cudaError_t e = cudaMemcpyAsync(p->h + pl->off[i], p->ptrs[i], p->sizes[i],
                                      cudaMemcpyDeviceToHost, s);
      if (e) return (int)e;
    }
    return 0;
  case 4:
    if (fu_pack_plan_pack(pl, p->buf, s) != FU_OK) return (int)cudaErrorLaunchFailure;
    return (int)cudaMemcpyAsync(p->h, p->buf, pl->total_bytes, cudaMemcpyDeviceToHost, s);
  default: /* pinned host memory is device-addressable (unified addressing) */
    return fu_pack_plan_pack(pl, p->h, s) == FU_OK ? 0 : (int)cudaErrorLaunchFailure;
  }
}

/* Verifies pack and unpack of the layout: tensor i holds pattern seed 1000 + i. */
static int fu__pack_verify(fu_calib_ctx *c, fu__pk *p, unsigned long long *bad_out) {
  const fu_pack_plan *pl = p->plan;
  unsigned long long bad = 0, b;
  int st;
  for (int i = 0; i < pl->k; i++) FU_CU(fu_k_fill_bytes(p->ptrs[i], p->sizes[i], 1000 + i, c->s));
  FU_CU(cudaMemsetAsync(p->buf, 0xA5, pl->total_bytes, c->s));
  if (fu_pack_plan_pack(pl, p->buf, c->s) != FU_OK) return FU_EINTERNAL;
  for (int i = 0; i < pl->k; i++) {
    if ((st = fu__check_device(c, p->buf + pl->off[i], p->sizes[i], 1000 + i, &b))) return st;
    bad += b;
  }
  for (int i = 0; i < pl->k; i++) FU_CU(cudaMemsetAsync(p->ptrs[i], 0x5A, p->sizes[i], c->s));
  if (fu_pack_plan_unpack(pl, p->buf, c->s) != FU_OK) return FU_EINTERNAL;
  for (int i = 0; i < pl->k; i++) {
    if ((st = fu__check_device(c, p->ptrs[i], p->sizes[i], 1000 + i, &b))) return st;
    bad += b;
  }
  *bad_out = bad;
  return FU_OK;
}

/* k tensors carved from one arena at `stride` bytes apart plus `shift(i)` bytes. */
static int fu__pack_setup(fu__pk *p, int k, const size_t *sizes, uint64_t stride, int odd,
                          unsigned char **arena) {
  uint64_t span = 0;
  for (int i = 0; i < k; i++) span += ((sizes[i] + 16 + 255) / 256) * 256;
  if (stride) span = (uint64_t)k * stride;
  FU_CU(cudaMalloc((void **)arena, span + 64));
  p->ptrs = calloc((size_t)k, sizeof *p->ptrs);
  p->sizes = calloc((size_t)k, sizeof *p->sizes);
  if (!p->ptrs || !p->sizes) return FU_ENOMEM;
  uint64_t o = 0;
  for (int i = 0; i < k; i++) {
    p->sizes[i] = sizes[i];
    p->ptrs[i] = *arena + o + (odd ? (i * 5) % 16 : 0);
    o += stride ? stride : ((sizes[i] + 16 + 255) / 256) * 256;
  }
  int st = fu_pack_plan_create(p->ptrs, p->sizes, k, 1, &p->plan);
  if (st != FU_OK) return st;
  FU_CU(cudaMalloc((void **)&p->buf, p->plan->total_bytes + 16));
  FU_CU(cudaHostAlloc((void **)&p->h, p->plan->total_bytes + 16, 0));
  return FU_OK;
}

static void fu__pack_free(fu__pk *p, unsigned char *arena) {
  fu_pack_plan_destroy(p->plan);
  if (p->buf) cudaFree(p->buf);
  if (p->h) cudaFreeHost(p->h);
  if (arena) cudaFree(arena);
  free(p->ptrs);
  free(p->sizes);
  memset(p, 0, sizeof *p);
}

static int fu__pack_case(fu_calib_ctx *c, int k, uint64_t m) {
  fu__pk p;
  memset(&p, 0, sizeof p);
  unsigned char *arena = NULL;
  size_t *sizes = malloc(sizeof *sizes * (size_t)k);
  if (!sizes) return FU_ENOMEM;
  for (int i = 0; i < k; i++) sizes[i] = m;
  /* tensors 512-aligned with a gap after each, as a caching allocator might place them */
  int st = fu__pack_setup(&p, k, sizes, ((m + 511) / 512) * 512 + 512, 0, &arena);
  free(sizes);
  unsigned long long bad = 0;
  if (st == FU_OK) st = fu__pack_verify(c, &p, &bad);
  if (bad) {
    fu_error("calib: pack k=%d m=%llu: %llu bytes wrong", k, (unsigned long long)m, bad);
    c->nfail++;
  }
  static const struct {
    const char *op, *link, *algo;  /* sample naming (see fu_calib.h) */
  } modes[6] = {{"pack", "hbm", "k=%d"},
                {"pack", "hbm", "unpack:k=%d"},
                {"d2h", "pcie_d2h", "one:k=%d"},
                {"d2h", "pcie_d2h", "separate:k=%d"},
                {"pack", "pcie_d2h", "pack+d2h:k=%d"},
                {"pack", "pcie_d2h", "p2h:k=%d"}};
  uint64_t total = (uint64_t)k * m;
  if (st == FU_OK) st = fu_calib_tx_begin(c);
  for (int md = 0; st == FU_OK && md < 6; md++) {
    fu_sample s;
    char algo[sizeof s.algo]; /* the sample's own size: "separate:k=1024" fits */
    snprintf(algo, sizeof algo, modes[md].algo, k);
    fu__sample(&s, modes[md].op, modes[md].link, total, algo, "");
    s.n_wrong = bad > 2000000000ULL ? 2000000000 : (int)bad;
    p.mode = md;
    st = fu__measure(c, &s, fu__pk_op, &p, FU_T_SYNC, (double)total);
    snprintf(s.proto, sizeof s.proto, "pipe");
    if (st == FU_OK) st = fu__measure(c, &s, fu__pk_op, &p, FU_T_PIPE, (double)total);
    snprintf(s.proto, sizeof s.proto, "queued");
    if (st == FU_OK && md < 2 && total <= FU__QUEUED_MAX)
      st = fu__measure(c, &s, fu__pk_op, &p, FU_T_QUEUED, (double)total);
  }
  if (st == FU_OK) st = fu_calib_tx_end(c);
  else if (c->db) fu_db_rollback(c->db);
  fu__pack_free(&p, arena);
  return st;
}

/* Odd sizes at odd addresses: every path of the kernel (16-byte, 4-byte, byte, boundaries). */
static int fu__pack_odd(fu_calib_ctx *c) {
  enum { K = 37 };
  size_t sizes[K];
  for (int i = 0; i < K; i++) sizes[i] = (size_t)((i * 7919) % 5003 + 1 + (i % 3) * 16384);
  fu__pk p;
  memset(&p, 0, sizeof p);
  unsigned char *arena = NULL;
  int st = fu__pack_setup(&p, K, sizes, 0, 1, &arena);
  unsigned long long bad = 0;
  if (st == FU_OK) st = fu__pack_verify(c, &p, &bad);
  if (st == FU_OK && bad) {
    fu_error("calib: pack of %d odd-sized, misaligned tensors: %llu bytes wrong", K, bad);
    c->nfail++;
  }
  if (st == FU_OK) {
    fu_sample s;
    fu__sample(&s, "pack", "hbm", p.plan->total_bytes, "odd:k=37", "");
    s.n_wrong = bad > 2000000000ULL ? 2000000000 : (int)bad;
    p.mode = 0;
    st = fu_calib_tx_begin(c);
    if (st == FU_OK) st = fu__measure(c, &s, fu__pk_op, &p, FU_T_SYNC, (double)p.plan->total_bytes);
    if (st == FU_OK) st = fu_calib_tx_end(c);
    else if (c->db) fu_db_rollback(c->db);
  }
  fu__pack_free(&p, arena);
  return st;
}

int fu_calib_pack(fu_calib_ctx *c) {
  fu_calib_phase(c, "pack kernel: k tensors of m bytes vs one copy vs k copies (d2h)");
  int st = fu__pack_odd(c);
  fu_calib_step(c, "pack: odd layout");
  for (int i = 0; st == FU_OK && i < FU__NPACK; i++) {
    if (!fu__pack_case_on(c, i)) continue;
    char what[64], sz[32];
    snprintf(what, sizeof what, "pack %d x %s", fu__pack_cases[i].k,
             fu_format_size(fu__pack_cases[i].m, sz, sizeof sz));
    st = fu__pack_case(c, fu__pack_cases[i].k, fu__pack_cases[i].m);
    fu_calib_step(c, what);
  }
  return st;
}
