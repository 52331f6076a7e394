/* fu_calib_gemm.c: cuBLAS GEMM throughput over transformer-layer shapes (bf16, tf32, fp32), a
 * shape sweep (the grid the compute model prices every GEMM from: M, N, K over powers of two, in
 * the three layouts a linear layer runs: forward, input gradient, weight gradient), and the
 * slowdown of a GEMM while an NCCL all-reduce or a copy runs beside it on another stream (the
 * vertical-fusion interference factor). Inputs are random, never zeros. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#ifdef FU_HAVE_CUBLAS
#include <cublas_v2.h>
#endif
#ifdef FU_HAVE_NCCL
#include <nccl.h>
#endif

#include "fu_calib_gpu.h"
#include "fu_calib_int.h"
#include "fu_compute.h"

#ifndef FU_HAVE_CUBLAS

long fu_calib_gemm_steps(const fu_calib_ctx *c) {
  (void)c;
  return 0;
}
int fu_calib_gemm(fu_calib_ctx *c) {
  (void)c;
  fu_warn("calib: built without cuBLAS: GEMM skipped");
  return FU_OK;
}
long fu_calib_overlap_steps(const fu_calib_ctx *c) {
  (void)c;
  return 0;
}
int fu_calib_overlap(fu_calib_ctx *c) {
  (void)c;
  fu_warn("calib: built without cuBLAS: GEMM overlap skipped");
  return FU_OK;
}

#else

/* M x N x K: tokens x out-features x in-features of the layers of a transformer block, forward
 * and one weight-gradient product: h = 1024 at 4096 tokens (BERT-large, batch 8 x 512) and
 * h = 4096 at 8192 tokens (a 7B-class model); plus the square 8192 product. */
static const struct {
  int m, n, k;               /* shape */
  int types;                 /* bit 0 bf16, bit 1 tf32, bit 2 fp32 */
  int quick;                 /* in --quick */
} fu__shapes[] = {
    {8192, 8192, 8192, 7, 1},   {4096, 3072, 1024, 7, 0},  {4096, 1024, 1024, 7, 0},
    {4096, 4096, 1024, 7, 1},   {4096, 1024, 4096, 7, 0},  {1024, 4096, 4096, 1, 0},
    {8192, 12288, 4096, 1, 0},  {8192, 4096, 4096, 1, 0},  {8192, 16384, 4096, 1, 0},
    {8192, 4096, 16384, 1, 0},  {4096, 16384, 8192, 1, 0},
};
#define FU__NSHAPES ((int)(sizeof fu__shapes / sizeof fu__shapes[0]))

static const char *const fu__tnames[3] = {"bf16", "tf32", "fp32"};

typedef struct fu__gemm {
  cublasHandle_t h;          /* handle bound to the stream */
  int m, n, k;               /* shape */
  int type;                  /* 0 bf16, 1 tf32, 2 fp32 */
  void *a, *b, *c;           /* operands */
  int layout;                /* -1: plain column-major NN (the fixed shapes); else FU__L_* */
} fu__gemm;

/* The three products of a linear layer, in row-major (PyTorch) terms, with M x N the output and
 * K the inner dimension: fwd Y[M,N] = X[M,K] W[N,K]^T (M tokens); dgrad dX[M,N] = dY[M,K] W[K,N];
 * wgrad dW[M,N] = dY[K,M]^T X[K,N] (K tokens). In cuBLAS's column-major terms each computes
 * C^T (N x M): fwd (T, N), dgrad (N, N), wgrad (N, T), as PyTorch's addmm/mm call it. */
enum { FU__L_FWD, FU__L_DGRAD, FU__L_WGRAD, FU__L_COUNT };
static const char *const fu__lnames[FU__L_COUNT] = {"fwd", "dgrad", "wgrad"};

static int fu__gemm_op(void *arg, cudaStream_t s) {
  fu__gemm *g = arg;
  const float one = 1.0f, zero = 0.0f;
  if (cublasSetStream(g->h, s) != CUBLAS_STATUS_SUCCESS) return (int)cudaErrorUnknown;
  cudaDataType_t t = g->type == 0 ? CUDA_R_16BF : CUDA_R_32F;
  cublasComputeType_t ct = g->type == 1 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
  cublasStatus_t r;
  if (g->layout < 0) {
    r = cublasGemmEx(g->h, CUBLAS_OP_N, CUBLAS_OP_N, g->m, g->n, g->k, &one, g->a, t, g->m, g->b,
                     t, g->k, &zero, g->c, t, g->m, ct, CUBLAS_GEMM_DEFAULT);
  } else {
    cublasOperation_t ta = CUBLAS_OP_N, tb = CUBLAS_OP_N;
    int lda = g->n, ldb = g->k;
    if (g->layout == FU__L_FWD) ta = CUBLAS_OP_T, lda = g->k;
    if (g->layout == FU__L_WGRAD) tb = CUBLAS_OP_T, ldb = g->m;
    r = cublasGemmEx(g->h, ta, tb, g->n, g->m, g->k, &one, g->a, t, lda, g->b, t, ldb, &zero,
                     g->c, t, g->n, ct, CUBLAS_GEMM_DEFAULT);
  }
  return r == CUBLAS_STATUS_SUCCESS ? 0 : (int)cudaErrorUnknown;
}

typedef struct fu__gbufs {
  cublasHandle_t h;          /* cuBLAS handle */
  void *a, *b, *c;           /* operand buffers of the largest shape in fp32 */
  size_t elems;              /* elements each holds */
} fu__gbufs;

/* grid: room for the shape sweep's largest operands too. */
static int fu__gbufs_init(fu_calib_ctx *c, fu__gbufs *g, int quick_only, int grid) {
  memset(g, 0, sizeof *g);
  for (int i = 0; i < FU__NSHAPES; i++) {
    if (quick_only && !fu__shapes[i].quick) continue;
    size_t m = (size_t)fu__shapes[i].m, n = (size_t)fu__shapes[i].n, k = (size_t)fu__shapes[i].k;
    size_t e = m * k > k * n ? m * k : k * n;
    if (m * n > e) e = m * n;
    if (e > g->elems) g->elems = e;
  }
  size_t gmax = (size_t)FU_GEMM_GRID_MAX * FU_GEMM_GRID_MAX;
  if (grid && gmax > g->elems) g->elems = gmax;
  if (cublasCreate(&g->h) != CUBLAS_STATUS_SUCCESS) {
    fu_error("calib: cublasCreate failed");
    return FU_EINTERNAL;
  }
  FU_CU(cudaMalloc(&g->a, g->elems * 4));
  FU_CU(cudaMalloc(&g->b, g->elems * 4));
  FU_CU(cudaMalloc(&g->c, g->elems * 4));
  FU_CU(cudaMemsetAsync(g->c, 0, g->elems * 4, c->s));
  return FU_OK;
}

static void fu__gbufs_free(fu__gbufs *g) {
  if (g->h) cublasDestroy(g->h);
  if (g->a) cudaFree(g->a);
  if (g->b) cudaFree(g->b);
  if (g->c) cudaFree(g->c);
}

/* Random operands in the shape's type (bf16 or fp32 storage). */
static int fu__gemm_fill(fu_calib_ctx *c, fu__gbufs *g, int type, int *filled) {
  if (*filled == (type == 0 ? 1 : 2)) return FU_OK;
  int dt = type == 0 ? FU_DT_BF16 : FU_DT_FLOAT;
  FU_CU(fu_k_fill_random(g->a, g->elems, dt, 11, c->s));
  FU_CU(fu_k_fill_random(g->b, g->elems, dt, 12, c->s));
  FU_CU(cudaStreamSynchronize(c->s));
  *filled = type == 0 ? 1 : 2;
  return FU_OK;
}

static void fu__gemm_sample(fu_sample *s, const fu__gemm *g, const char *proto) {
  fu_sample_init(s);
  snprintf(s->op, sizeof s->op, "gemm");
  snprintf(s->link, sizeof s->link, "hbm");
  snprintf(s->dtype, sizeof s->dtype, "%s", fu__tnames[g->type]);
  snprintf(s->algo, sizeof s->algo, "%dx%dx%d", g->m, g->n, g->k);
  snprintf(s->proto, sizeof s->proto, "%s", proto);
  s->bytes = 2ULL * (uint64_t)g->m * (uint64_t)g->n * (uint64_t)g->k;  /* FLOP */
}

/* The shape sweep: every (M, N, K) of an axis per type, in each layout. bf16 and tf32 (what
 * autocast and fp32 training with TF32 run) over 128 .. 16384 by 2; strict fp32 by 4 from 256.
 * --quick: bf16 only, 256 .. 16384 by 4. The compute model (model/fu_compute.c) interpolates
 * in this grid; a size outside it is priced at the grid's edge (see there). */
static int fu__grid_axis(const fu_calib_ctx *c, int type, int out[FU_GEMM_GRID_AXIS]) {
  int n = 0, lo = 128, step = 2;
  if (c->o->quick) {
    if (type != 0) return 0;
    lo = 256, step = 4;
  } else if (type == 2) {
    lo = 256, step = 4;
  }
  for (int v = lo; v <= FU_GEMM_GRID_MAX && n < FU_GEMM_GRID_AXIS; v *= step) out[n++] = v;
  return n;
}

long fu_calib_gemm_steps(const fu_calib_ctx *c) {
  long n = 0;
  for (int i = 0; i < FU__NSHAPES; i++)
    if (!c->o->quick || fu__shapes[i].quick)
      for (int t = 0; t < 3; t++) n += (fu__shapes[i].types >> t) & 1;
  int ax[FU_GEMM_GRID_AXIS];
  for (int t = 0; t < 3; t++) {
    long a = fu__grid_axis(c, t, ax);
    n += FU__L_COUNT * a * a * a;
  }
  return n;
}

/* One sweep point, timed with the runs queued behind a spin (device time: the host's launch
 * cost is priced separately, by the framework's calibration). */
static int fu__grid_point(fu_calib_ctx *c, fu__gemm *op) {
  fu_sample s;
  fu_sample_init(&s);
  snprintf(s.op, sizeof s.op, "gemm");
  snprintf(s.link, sizeof s.link, "hbm");
  snprintf(s.dtype, sizeof s.dtype, "%s", fu__tnames[op->type]);
  fu_gemm_label(s.algo, sizeof s.algo, op->m, op->n, op->k);
  snprintf(s.proto, sizeof s.proto, "%s", fu__lnames[op->layout]);
  s.bytes = 2ULL * (uint64_t)op->m * (uint64_t)op->n * (uint64_t)op->k;  /* FLOP */
  int st = fu_calib_tx_begin(c);
  if (st == FU_OK) st = fu_calib_time(c, fu__gemm_op, op, c->s, FU_T_QUEUED, &s);
  if (st == FU_OK) {
    s.busbw_gbps = (double)s.bytes / (s.t_median_us * 1e3);  /* GFLOP/s */
    st = fu_calib_emit(c, &s);
  }
  if (st == FU_OK) st = fu_calib_tx_end(c);
  else if (c->db) fu_db_rollback(c->db);
  char what[64];
  snprintf(what, sizeof what, "gemm %s %s %s", fu__tnames[op->type], s.proto, s.algo);
  fu_calib_step(c, what);
  return st;
}

static int fu__gemm_grid(fu_calib_ctx *c, fu__gbufs *g, int *filled) {
  int st = FU_OK;
  for (int t = 0; st == FU_OK && t < 3; t++) {
    int ax[FU_GEMM_GRID_AXIS], na = fu__grid_axis(c, t, ax);
    if (na == 0) continue;
    st = fu__gemm_fill(c, g, t, filled);
    for (int l = 0; st == FU_OK && l < FU__L_COUNT; l++)
      for (int i = 0; st == FU_OK && i < na; i++)
        for (int j = 0; st == FU_OK && j < na; j++)
          for (int q = 0; st == FU_OK && q < na; q++) {
            fu__gemm op = {g->h, ax[i], ax[j], ax[q], t, g->a, g->b, g->c, l};
            st = fu__grid_point(c, &op);
          }
  }
  return st;
}

int fu_calib_gemm(fu_calib_ctx *c) {
  fu__gbufs g;
  fu_calib_phase(c, "GEMM: %ld shape/type points (cuBLAS, random inputs)", fu_calib_gemm_steps(c));
  int st = fu__gbufs_init(c, &g, c->o->quick, 1), filled = 0;
  for (int t = 0; st == FU_OK && t < 3; t++)
    for (int i = 0; st == FU_OK && i < FU__NSHAPES; i++) {
      if ((c->o->quick && !fu__shapes[i].quick) || !((fu__shapes[i].types >> t) & 1)) continue;
      fu__gemm op = {g.h, fu__shapes[i].m, fu__shapes[i].n, fu__shapes[i].k, t, g.a, g.b, g.c, -1};
      fu_sample s;
      fu__gemm_sample(&s, &op, "");
      st = fu__gemm_fill(c, &g, t, &filled);
      if (st == FU_OK) st = fu_calib_tx_begin(c);
      if (st == FU_OK) st = fu_calib_time(c, fu__gemm_op, &op, c->s, FU_T_PIPE, &s);
      if (st == FU_OK) {
        s.busbw_gbps = (double)s.bytes / (s.t_median_us * 1e3);  /* GFLOP/s */
        st = fu_calib_emit(c, &s);
      }
      if (st == FU_OK) st = fu_calib_tx_end(c);
      else if (c->db) fu_db_rollback(c->db);
      char what[64];
      snprintf(what, sizeof what, "gemm %s %s", fu__tnames[t], s.algo);
      fu_calib_step(c, what);
    }
  if (st == FU_OK) {
    fu_calib_phase(c, "GEMM shape sweep: fwd, dgrad, wgrad layouts (device time, queued)");
    st = fu__gemm_grid(c, &g, &filled);
  }
  fu__gbufs_free(&g);
  return st;
}

/* ---- GEMM beside communication ---- */

#define FU__BG_BYTES (256ULL << 20)

enum { FU__BG_ALLREDUCE, FU__BG_D2H, FU__BG_H2D, FU__BG_D2D, FU__BG_COUNT };
static const char *const fu__bg_names[FU__BG_COUNT] = {"+allreduce", "+d2h", "+h2d", "+d2d"};

typedef struct fu__bg {
  int kind;                  /* FU__BG_* */
  void *src, *dst;           /* copy buffers */
  int nloc;                  /* GPUs of the all-reduce */
#ifdef FU_HAVE_NCCL
  ncclComm_t comm[8];        /* 1-process communicator over up to 8 GPUs */
#endif
  cudaStream_t s[8];         /* all-reduce streams (index 0 on the GEMM's GPU) */
  void *snd[8], *rcv[8];     /* all-reduce buffers */
} fu__bg;

static int fu__bg_op(fu__bg *b, cudaStream_t copy_stream) {
  switch (b->kind) {
  case FU__BG_D2H:
    return (int)cudaMemcpyAsync(b->dst, b->src, FU__BG_BYTES, cudaMemcpyDeviceToHost, copy_stream);
  case FU__BG_H2D:
    return (int)cudaMemcpyAsync(b->dst, b->src, FU__BG_BYTES, cudaMemcpyHostToDevice, copy_stream);
  case FU__BG_D2D:
    return (int)cudaMemcpyAsync(b->dst, b->src, FU__BG_BYTES, cudaMemcpyDeviceToDevice,
                                copy_stream);
  default:
#ifdef FU_HAVE_NCCL
    if (ncclGroupStart() != ncclSuccess) return (int)cudaErrorUnknown;
    for (int l = 0; l < b->nloc; l++)
      if (ncclAllReduce(b->snd[l], b->rcv[l], FU__BG_BYTES / 4, ncclFloat32, ncclSum, b->comm[l],
                        b->s[l]) != ncclSuccess)
        return (int)cudaErrorUnknown;
    if (ncclGroupEnd() != ncclSuccess) return (int)cudaErrorUnknown;
    return 0;
#else
    return (int)cudaErrorNotSupported;
#endif
  }
}

static cudaStream_t fu__bg_stream(fu_calib_ctx *c, fu__bg *b) {
  return b->kind == FU__BG_ALLREDUCE ? b->s[0] : c->s2;
}

static int fu__bg_setup(fu_calib_ctx *c, fu__bg *b, int kind) {
  memset(b, 0, sizeof *b);
  b->kind = kind;
  if (kind == FU__BG_D2H || kind == FU__BG_H2D) {
    void *h, *d;
    FU_CU(cudaHostAlloc(&h, FU__BG_BYTES, 0));
    FU_CU(cudaMalloc(&d, FU__BG_BYTES));
    memset(h, 3, FU__BG_BYTES);
    b->src = kind == FU__BG_D2H ? d : h;
    b->dst = kind == FU__BG_D2H ? h : d;
    return FU_OK;
  }
  if (kind == FU__BG_D2D) {
    FU_CU(cudaMalloc(&b->src, FU__BG_BYTES));
    FU_CU(cudaMalloc(&b->dst, FU__BG_BYTES));
    return FU_OK;
  }
#ifdef FU_HAVE_NCCL
  b->nloc = c->mpi ? 1 : (c->ngpus < 8 ? c->ngpus : 8);
  int devs[8];
  for (int l = 0; l < b->nloc; l++) {
    devs[l] = c->mpi ? c->dev : l;
    FU_CU(cudaSetDevice(devs[l]));
    FU_CU(cudaStreamCreateWithFlags(&b->s[l], cudaStreamNonBlocking));
    FU_CU(cudaMalloc(&b->snd[l], FU__BG_BYTES));
    FU_CU(cudaMalloc(&b->rcv[l], FU__BG_BYTES));
    FU_CU(cudaMemsetAsync(b->snd[l], 0, FU__BG_BYTES, b->s[l]));
  }
  FU_CU(cudaSetDevice(c->dev));
  if (ncclCommInitAll(b->comm, b->nloc, devs) != ncclSuccess) {
    fu_error("calib: overlap: cannot create the NCCL communicator");
    return FU_EINTERNAL;
  }
  return FU_OK;
#else
  (void)c;
  return FU_ENODEV;
#endif
}

static void fu__bg_free(fu_calib_ctx *c, fu__bg *b) {
  if (b->kind == FU__BG_D2H || b->kind == FU__BG_H2D) {
    void *h = b->kind == FU__BG_D2H ? b->dst : b->src, *d = b->kind == FU__BG_D2H ? b->src : b->dst;
    if (h) cudaFreeHost(h);
    if (d) cudaFree(d);
  } else if (b->kind == FU__BG_D2D) {
    if (b->src) cudaFree(b->src);
    if (b->dst) cudaFree(b->dst);
  } else {
    for (int l = 0; l < b->nloc; l++) {
      cudaSetDevice(c->mpi ? c->dev : l);
#ifdef FU_HAVE_NCCL
      if (b->comm[l]) ncclCommDestroy(b->comm[l]);
#endif
      if (b->snd[l]) cudaFree(b->snd[l]);
      if (b->rcv[l]) cudaFree(b->rcv[l]);
      if (b->s[l]) cudaStreamDestroy(b->s[l]);
    }
    cudaSetDevice(c->dev);
  }
}

/* Overlap shapes: a long and a short bf16 product. */
static const int fu__ov_shapes[2][3] = {{8192, 8192, 8192}, {4096, 4096, 4096}};

long fu_calib_overlap_steps(const fu_calib_ctx *c) {
  return (c->o->quick ? 1 : 2) * FU__BG_COUNT;
}

/* GEMM alone, then with the background running for the whole of its timed runs. */
static int fu__overlap_one(fu_calib_ctx *c, fu__gbufs *g, fu__bg *b, const int shape[3],
                           cudaEvent_t first_done, cudaEvent_t bg_done, double *pool) {
  fu__gemm op = {g->h, shape[0], shape[1], shape[2], 0, g->a, g->b, g->c, -1};
  fu_sample alone, with;
  fu__gemm_sample(&alone, &op, "alone");
  fu__gemm_sample(&with, &op, fu__bg_names[b->kind]);
  /* alone is timed before and after the runs beside the background, and the two sets pooled:
   * long bf16 products run near the power limit and their clock drifts between sets */
  int st = fu_calib_time(c, fu__gemm_op, &op, c->s, FU_T_PIPE, &alone);
  if (st != FU_OK) return st;
  int n_alone = alone.count;
  memcpy(pool, c->times, sizeof *pool * (size_t)n_alone);
  /* the background's own time, once */
  cudaStream_t bs = fu__bg_stream(c, b);
  float ms;
  FU_CU(fu__bg_op(b, bs));  /* warm-up */
  FU_CU(cudaEventRecord(c->ev[0], bs));
  FU_CU(fu__bg_op(b, bs));
  FU_CU(cudaEventRecord(c->ev[1], bs));
  FU_CU(cudaEventSynchronize(c->ev[1]));
  FU_CU(cudaEventElapsedTime(&ms, c->ev[0], c->ev[1]));
  double t_bg = 1e3 * ms;
  int n = fu_calib_runs_for(c, alone.t_median_us);
  int reps = (int)ceil((1.5 * n * alone.t_median_us + 2000.0) / t_bg) + 1;
  for (int i = 0; i < c->o->warmup; i++) FU_CU(fu__gemm_op(&op, c->s));
  FU_CU(cudaStreamSynchronize(c->s));
  FU_CU(fu__bg_op(b, bs));
  FU_CU(cudaEventRecord(first_done, bs));
  for (int r = 1; r < reps; r++) FU_CU(fu__bg_op(b, bs));
  FU_CU(cudaEventRecord(bg_done, bs));
  FU_CU(cudaStreamWaitEvent(c->s, first_done, 0));
  for (int i = 0; i < n; i++) {
    FU_CU(cudaEventRecord(c->ev[2 * i], c->s));
    FU_CU(fu__gemm_op(&op, c->s));
    FU_CU(cudaEventRecord(c->ev[2 * i + 1], c->s));
  }
  FU_CU(cudaStreamSynchronize(c->s));
  FU_CU(cudaEventSynchronize(bg_done));
  /* runs that ended after the background are not "beside" it: count only the covered ones */
  float tail;
  FU_CU(cudaEventElapsedTime(&tail, c->ev[2 * n - 1], bg_done));
  int covered = n;
  while (covered > 1) {
    float d;
    FU_CU(cudaEventElapsedTime(&d, c->ev[2 * covered - 1], bg_done));
    if (d >= 0) break;
    covered--;
  }
  for (int i = 0; i < covered; i++) {
    FU_CU(cudaEventElapsedTime(&ms, c->ev[2 * i], c->ev[2 * i + 1]));
    c->times[i] = 1e3 * ms;
  }
  fu_calib_stats(c->times, covered, &with.t_min_us, &with.t_median_us, &with.t_p95_us);
  with.count = covered;
  fu_sample again = alone;
  st = fu_calib_time(c, fu__gemm_op, &op, c->s, FU_T_PIPE, &again);
  if (st != FU_OK) return st;
  memcpy(pool + n_alone, c->times, sizeof *pool * (size_t)again.count);
  fu_calib_stats(pool, n_alone + again.count, &alone.t_min_us, &alone.t_median_us,
                 &alone.t_p95_us);
  alone.count = n_alone + again.count;
  with.ranks = b->kind == FU__BG_ALLREDUCE ? b->nloc : 1;
  alone.busbw_gbps = (double)alone.bytes / (alone.t_median_us * 1e3);
  with.busbw_gbps = (double)with.bytes / (with.t_median_us * 1e3);
  if (covered < n)
    fu_warn("calib: overlap %s %s: %d of %d runs outlasted the background", with.algo, with.proto,
            n - covered, n);
  st = fu_calib_tx_begin(c);
  if (st == FU_OK) st = fu_calib_emit(c, &alone);
  if (st == FU_OK) st = fu_calib_emit(c, &with);
  if (st == FU_OK) st = fu_calib_tx_end(c);
  else if (c->db) fu_db_rollback(c->db);
  (void)tail;
  return st;
}

int fu_calib_overlap(fu_calib_ctx *c) {
  fu__gbufs g;
  fu_calib_phase(c, "GEMM beside all-reduce and copies (interference factor)");
  int st = fu__gbufs_init(c, &g, 1, 0), filled = 0;
  if (st == FU_OK) st = fu__gemm_fill(c, &g, 0, &filled);
  double *pool = malloc(sizeof *pool * (size_t)(2 * c->o->iters + 2));  /* alone, twice */
  if (!pool && st == FU_OK) st = FU_ENOMEM;
  cudaEvent_t e1 = NULL, e2 = NULL;
  if (st == FU_OK && (cudaEventCreate(&e1) || cudaEventCreate(&e2))) st = FU_EINTERNAL;
  int nshapes = c->o->quick ? 1 : 2;
  for (int k = 0; st == FU_OK && k < FU__BG_COUNT; k++) {
    fu__bg b;
    int bst = fu__bg_setup(c, &b, k);
    for (int i = 0; st == FU_OK && i < nshapes; i++) {
      if (bst == FU_OK) st = fu__overlap_one(c, &g, &b, fu__ov_shapes[i], e1, e2, pool);
      char what[64];
      snprintf(what, sizeof what, "gemm %s", fu__bg_names[k]);
      fu_calib_step(c, what);
    }
    if (bst != FU_OK && bst != FU_ENODEV) c->nfail++;
    fu__bg_free(c, &b);
  }
  if (e1) cudaEventDestroy(e1);
  if (e2) cudaEventDestroy(e2);
  free(pool);
  fu__gbufs_free(&g);
  return st;
}

#endif /* FU_HAVE_CUBLAS */
