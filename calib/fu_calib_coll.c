/* fu_calib_coll.c: NCCL collectives, as nccl-tests times them (back-to-back launches, CUDA
 * events around each iteration), over every GPU of this process (ncclCommInitAll, N = 1 too) or
 * one rank per GPU under MPI (the unique id broadcast over MPI). NCCL_ALGO / NCCL_PROTO are
 * read at communicator creation, so the communicator is created anew for each setting. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>
#ifdef FU_HAVE_NCCL
#include <nccl.h>
#endif
#ifdef FU_HAVE_MPI
#include <mpi.h>
#endif

#include "fu_calib_gpu.h"
#include "fu_calib_int.h"
#include "fu_model.h"

const char *fu_calib_nccl_version(char *buf, size_t len) {
#ifdef FU_HAVE_NCCL
  int v = 0;
  if (ncclGetVersion(&v) == ncclSuccess) {
    if (v >= 10000) snprintf(buf, len, "%d.%d.%d", v / 10000, (v % 10000) / 100, v % 100);
    else snprintf(buf, len, "%d.%d.%d", v / 1000, (v % 1000) / 100, v % 100);
    return buf;
  }
#endif
  snprintf(buf, len, "%s", "");
  return buf;
}

#ifndef FU_HAVE_NCCL

long fu_calib_coll_steps(const fu_calib_ctx *c) {
  (void)c;
  return 0;
}
int fu_calib_coll(fu_calib_ctx *c) {
  if (c->rank == 0) fu_warn("calib: built without NCCL: collectives skipped");
  return FU_OK;
}

#else

#define FU_NC(call)                                                                         \
  do {                                                                                      \
    ncclResult_t fu__r = (call);                                                            \
    if (fu__r != ncclSuccess) {                                                             \
      fu_error("calib: %s:%d: %s: %s", __FILE__, __LINE__, #call, ncclGetErrorString(fu__r)); \
      return FU_EINTERNAL;                                                                  \
    }                                                                                       \
  } while (0)

#define FU__MAXLOC 64

static const struct {
  unsigned bit;              /* FU_CALIB_* */
  const char *name;          /* fu_op name */
  fu_op op;                  /* for the bus-bandwidth factor */
  int kmode;                 /* FU_K_* check mode */
  int split;                 /* size divides among ranks (allgather, reducescatter, alltoall) */
  int has_ip;                /* has an in-place form */
} fu__colls[] = {
    {FU_CALIB_ALLREDUCE, "allreduce", FU_OP_ALLREDUCE, FU_K_ALLREDUCE, 0, 1},
    {FU_CALIB_ALLGATHER, "allgather", FU_OP_ALLGATHER, FU_K_ALLGATHER, 1, 1},
    {FU_CALIB_REDUCESCATTER, "reducescatter", FU_OP_REDUCESCATTER, FU_K_REDUCESCATTER, 1, 1},
    {FU_CALIB_BROADCAST, "broadcast", FU_OP_BROADCAST, FU_K_BROADCAST, 0, 1},
    {FU_CALIB_SENDRECV, "sendrecv", FU_OP_SENDRECV, FU_K_SENDRECV, 0, 0},
    {FU_CALIB_ALLTOALL, "alltoall", FU_OP_ALLTOALL, FU_K_ALLTOALL, 1, 0},
};
#define FU__NCOLLS ((int)(sizeof fu__colls / sizeof fu__colls[0]))

static ncclDataType_t fu__nccl_dt(int dt) {
  switch (dt) {
  case FU_DT_INT8: return ncclInt8;
  case FU_DT_UINT8: return ncclUint8;
  case FU_DT_INT32: return ncclInt32;
  case FU_DT_INT64: return ncclInt64;
  case FU_DT_HALF: return ncclFloat16;
  case FU_DT_DOUBLE: return ncclFloat64;
  case FU_DT_BF16: return ncclBfloat16;
  default: return ncclFloat32;
  }
}

typedef struct fu__rank {
  int dev;                   /* CUDA device */
  int rank;                  /* global rank */
  ncclComm_t comm;           /* communicator (per algo/proto setting) */
  cudaStream_t s;            /* stream of the collectives */
  char *send, *recv;         /* buffers of the largest size */
  cudaEvent_t *ev;           /* 2 * iters + 2 events */
  cudaGraphExec_t graph;     /* captured call (graph mode) */
  unsigned long long *d_bad; /* check counter */
} fu__rank;

typedef struct fu__coll {
  fu_calib_ctx *c;           /* the run */
  int nloc;                  /* ranks driven by this process */
  int nranks;                /* ranks in the communicator */
  fu__rank r[FU__MAXLOC];    /* local ranks */
  char link[16];             /* link name stored with the samples */
  int nev;                   /* events per rank */
} fu__coll;

/* One call of collective ci on every local rank (grouped), `bytes` as nccl-tests sizes it. */
static int fu__issue(fu__coll *k, int ci, uint64_t count, int dt, int ip) {
  ncclDataType_t t = fu__nccl_dt(dt);
  size_t e = (size_t)fu_calib_dtype_size(dt);
  int n = k->nranks;
  FU_NC(ncclGroupStart());
  for (int l = 0; l < k->nloc; l++) {
    fu__rank *r = &k->r[l];
    switch (fu__colls[ci].kmode) {
    case FU_K_ALLREDUCE:
      FU_NC(ncclAllReduce(ip ? r->recv : r->send, r->recv, count, t, ncclSum, r->comm, r->s));
      break;
    case FU_K_ALLGATHER: /* count = elements per rank */
      FU_NC(ncclAllGather(ip ? r->recv + (size_t)r->rank * count * e : r->send, r->recv, count, t,
                          r->comm, r->s));
      break;
    case FU_K_REDUCESCATTER: /* count = elements per rank */
      FU_NC(ncclReduceScatter(r->send, ip ? r->send + (size_t)r->rank * count * e : r->recv,
                              count, t, ncclSum, r->comm, r->s));
      break;
    case FU_K_BROADCAST:
      FU_NC(ncclBroadcast(ip ? r->recv : r->send, r->recv, count, t, 0, r->comm, r->s));
      break;
    case FU_K_SENDRECV:
      FU_NC(ncclSend(r->send, count, t, (r->rank + 1) % n, r->comm, r->s));
      FU_NC(ncclRecv(r->recv, count, t, (r->rank + n - 1) % n, r->comm, r->s));
      break;
    default: /* alltoall, count = elements per peer */
      for (int p = 0; p < n; p++) {
        FU_NC(ncclSend(r->send + (size_t)p * count * e, count, t, p, r->comm, r->s));
        FU_NC(ncclRecv(r->recv + (size_t)p * count * e, count, t, p, r->comm, r->s));
      }
      break;
    }
  }
  FU_NC(ncclGroupEnd());
  return FU_OK;
}

/* Fills inputs, poisons outputs, runs once, checks: wrong elements over all ranks. */
static int fu__verify(fu__coll *k, int ci, uint64_t count, int dt, int ip, uint64_t bytes,
                      long long *nwrong) {
  size_t e = (size_t)fu_calib_dtype_size(dt);
  int kmode = fu__colls[ci].kmode, n = k->nranks;
  for (int l = 0; l < k->nloc; l++) {
    fu__rank *r = &k->r[l];
    FU_CU(cudaSetDevice(r->dev));
    FU_CU(cudaMemsetAsync(r->recv, 0xff, bytes, r->s));  /* NaN / -1 in every type */
    FU_CU(cudaMemsetAsync(r->d_bad, 0, sizeof *r->d_bad, r->s));
    switch (kmode) {
    case FU_K_ALLGATHER:
      FU_CU(fu_k_coll_fill(ip ? r->recv + (size_t)r->rank * count * e : r->send, count, dt,
                           r->rank, r->s));
      break;
    case FU_K_REDUCESCATTER:
      FU_CU(fu_k_coll_fill(r->send, count * (uint64_t)n, dt, r->rank, r->s));
      break;
    case FU_K_ALLTOALL:
      FU_CU(fu_k_coll_fill(r->send, count * (uint64_t)n, dt, r->rank, r->s));
      break;
    default:
      FU_CU(fu_k_coll_fill(ip ? r->recv : r->send, count, dt, r->rank, r->s));
      break;
    }
  }
  int st = fu__issue(k, ci, count, dt, ip);
  if (st != FU_OK) return st;
  unsigned long long total = 0;
  for (int l = 0; l < k->nloc; l++) {
    fu__rank *r = &k->r[l];
    FU_CU(cudaSetDevice(r->dev));
    const char *out = r->recv;
    uint64_t cnt = count, chunk = count;
    if (kmode == FU_K_ALLGATHER || kmode == FU_K_ALLTOALL) cnt = count * (uint64_t)n;
    if (kmode == FU_K_REDUCESCATTER && ip) out = r->send + (size_t)r->rank * count * e;
    FU_CU(fu_k_coll_check(out, cnt, dt, kmode, r->rank, n, chunk, r->d_bad, r->s));
    unsigned long long b = 0;
    FU_CU(cudaMemcpyAsync(&b, r->d_bad, sizeof b, cudaMemcpyDeviceToHost, r->s));
    FU_CU(cudaStreamSynchronize(r->s));
    total += b;
  }
#ifdef FU_HAVE_MPI
  if (k->c->mpi) {
    unsigned long long all = 0;
    MPI_Allreduce(&total, &all, 1, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD);
    total = all;
  }
#endif
  *nwrong = (long long)total;
  return FU_OK;
}

static double fu__agree_max(fu__coll *k, double v) {
#ifdef FU_HAVE_MPI
  if (k->c->mpi) {
    double all = v;
    MPI_Allreduce(&v, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
  }
#endif
  (void)k;
  return v;
}

/* One enqueued iteration: the call itself, or its captured graph. */
static int fu__iter(fu__coll *k, int ci, uint64_t count, int dt, int ip, int graph) {
  if (!graph) return fu__issue(k, ci, count, dt, ip);
  for (int l = 0; l < k->nloc; l++) {
    FU_CU(cudaSetDevice(k->r[l].dev));
    FU_CU(cudaGraphLaunch(k->r[l].graph, k->r[l].s));
  }
  return FU_OK;
}

static int fu__sync_all(fu__coll *k) {
  for (int l = 0; l < k->nloc; l++) {
    FU_CU(cudaSetDevice(k->r[l].dev));
    FU_CU(cudaStreamSynchronize(k->r[l].s));
  }
  return FU_OK;
}

static int fu__capture(fu__coll *k, int ci, uint64_t count, int dt, int ip) {
  for (int l = 0; l < k->nloc; l++) {
    FU_CU(cudaSetDevice(k->r[l].dev));
    FU_CU(cudaStreamBeginCapture(k->r[l].s, cudaStreamCaptureModeRelaxed));
  }
  int st = fu__issue(k, ci, count, dt, ip);
  for (int l = 0; l < k->nloc; l++) {
    cudaGraph_t g;
    FU_CU(cudaSetDevice(k->r[l].dev));
    FU_CU(cudaStreamEndCapture(k->r[l].s, &g));
    if (st == FU_OK) FU_CU(cudaGraphInstantiate(&k->r[l].graph, g, 0));
    FU_CU(cudaGraphDestroy(g));
  }
  return st;
}

static void fu__uncapture(fu__coll *k) {
  for (int l = 0; l < k->nloc; l++)
    if (k->r[l].graph) {
      cudaGraphExecDestroy(k->r[l].graph);
      k->r[l].graph = NULL;
    }
}

/* Records event idx on every local rank's stream. */
static int fu__record_all(fu__coll *k, int idx) {
  for (int l = 0; l < k->nloc; l++) {
    FU_CU(cudaSetDevice(k->r[l].dev));
    FU_CU(cudaEventRecord(k->r[l].ev[idx], k->r[l].s));
  }
  return FU_OK;
}

/* n back-to-back iterations between one event pair per rank: *span_us = the slowest rank's
 * span (events 0 and 1); *host_us (may be NULL) = host time per iteration to issue them. */
static int fu__span(fu__coll *k, int ci, uint64_t count, int dt, int ip, int graph, int n,
                    double *span_us, double *host_us) {
  int st = fu__record_all(k, 0);
  double t0 = fu_calib_now();
  for (int i = 0; st == FU_OK && i < n; i++) st = fu__iter(k, ci, count, dt, ip, graph);
  if (host_us) *host_us = (fu_calib_now() - t0) * 1e6 / n;
  if (st == FU_OK) st = fu__record_all(k, 1);
  if (st != FU_OK) return st;
  *span_us = 0;
  for (int l = 0; l < k->nloc; l++) {
    float ms;
    FU_CU(cudaEventSynchronize(k->r[l].ev[1]));
    FU_CU(cudaEventElapsedTime(&ms, k->r[l].ev[0], k->r[l].ev[1]));
    if (1e3 * ms > *span_us) *span_us = 1e3 * ms;
  }
  return FU_OK;
}

/* Times one (collective, size, type, place, graph) point; fills s. host_us: host time to
 * issue one call back to back; mean_us: nccl-tests' time (total of n back-to-back calls / n). */
static int fu__time(fu__coll *k, int ci, uint64_t count, int dt, int ip, int graph, fu_sample *s,
                    double *host_us, double *mean_us) {
  fu_calib_ctx *c = k->c;
  int st;
  for (int i = 0; i < c->o->warmup; i++)
    if ((st = fu__iter(k, ci, count, dt, ip, graph))) return st;
  /* one iteration alone sizes the count (the slowest rank decides, so all agree) */
  double est, total;
  if ((st = fu__span(k, ci, count, dt, ip, graph, 1, &est, NULL))) return st;
  int n = fu_calib_runs_for(c, fu__agree_max(k, est));
  /* pass A, as nccl-tests times: one event pair around n back-to-back calls -> the mean (and
   * the host's issue time per call, with no event recorded between calls) */
  if ((st = fu__span(k, ci, count, dt, ip, graph, n, &total, host_us))) return st;
  *mean_us = fu__agree_max(k, total) / n;
  /* pass B: an event after every call (chained, so back-to-back calls stay back to back):
   * per-iteration times for min, median and p95. Each event costs the host a little, which
   * shows when the host is the bottleneck (small sizes). */
  if ((st = fu__record_all(k, 0))) return st;
  for (int i = 0; i < n; i++) {
    if ((st = fu__iter(k, ci, count, dt, ip, graph))) return st;
    if ((st = fu__record_all(k, i + 1))) return st;
  }
  if ((st = fu__sync_all(k))) return st;
  for (int i = 0; i < n; i++) {
    double t = 0;
    for (int l = 0; l < k->nloc; l++) {
      float ms;
      FU_CU(cudaEventElapsedTime(&ms, k->r[l].ev[i], k->r[l].ev[i + 1]));
      if (1e3 * ms > t) t = 1e3 * ms;
    }
    c->times[i] = t;
  }
#ifdef FU_HAVE_MPI
  if (c->mpi) MPI_Allreduce(MPI_IN_PLACE, c->times, n, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
#endif
  fu_calib_stats(c->times, n, &s->t_min_us, &s->t_median_us, &s->t_p95_us);
  s->count = n;
  return FU_OK;
}

static int fu__comm_init(fu__coll *k, const char *algo, const char *proto) {
  if (algo[0]) setenv("NCCL_ALGO", algo, 1);
  else unsetenv("NCCL_ALGO");
  if (proto[0]) setenv("NCCL_PROTO", proto, 1);
  else unsetenv("NCCL_PROTO");
#ifdef FU_HAVE_MPI
  if (k->c->mpi) {
    ncclUniqueId id;
    memset(&id, 0, sizeof id);
    /* rank 0 says whether it has an id before sending it, so a failure there cannot leave
     * the other ranks waiting in the broadcast */
    ncclResult_t idr = ncclSuccess;
    if (k->c->rank == 0) idr = ncclGetUniqueId(&id);
    int ok = idr == ncclSuccess;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (!ok) {
      if (k->c->rank == 0) fu_error("calib: ncclGetUniqueId: %s", ncclGetErrorString(idr));
      return FU_EINTERNAL;
    }
    MPI_Bcast(&id, (int)sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD);
    FU_CU(cudaSetDevice(k->r[0].dev));
    FU_NC(ncclCommInitRank(&k->r[0].comm, k->nranks, id, k->c->rank));
    return FU_OK;
  }
#endif
  ncclComm_t comms[FU__MAXLOC];
  int devs[FU__MAXLOC];
  for (int l = 0; l < k->nloc; l++) devs[l] = k->r[l].dev;
  FU_NC(ncclCommInitAll(comms, k->nloc, devs));
  for (int l = 0; l < k->nloc; l++) k->r[l].comm = comms[l];
  return FU_OK;
}

static void fu__comm_destroy(fu__coll *k) {
  for (int l = 0; l < k->nloc; l++)
    if (k->r[l].comm) {
      ncclCommDestroy(k->r[l].comm);
      k->r[l].comm = NULL;
    }
}

static int fu__nsettings(const fu_calib_opts *o) { return o->nalgos * o->nprotos; }

static int fu__ncolls(const fu_calib_opts *o) {
  int n = 0;
  for (int i = 0; i < FU__NCOLLS; i++) n += (o->colls & fu__colls[i].bit) != 0;
  return n;
}

long fu_calib_coll_steps(const fu_calib_ctx *c) {
  return (long)fu__nsettings(c->o) * fu__ncolls(c->o) * c->o->ndtypes * c->nsizes;
}

static int fu__setup(fu__coll *k) {
  fu_calib_ctx *c = k->c;
  uint64_t maxb = c->sizes[c->nsizes - 1];
  k->nev = 2 * c->o->iters + 4;
  for (int l = 0; l < k->nloc; l++) {
    fu__rank *r = &k->r[l];
    FU_CU(cudaSetDevice(r->dev));
    FU_CU(cudaStreamCreateWithFlags(&r->s, cudaStreamNonBlocking));
    FU_CU(cudaMalloc((void **)&r->send, maxb + 256));
    FU_CU(cudaMalloc((void **)&r->recv, maxb + 256));
    FU_CU(cudaMalloc((void **)&r->d_bad, sizeof *r->d_bad));
    r->ev = calloc((size_t)k->nev, sizeof *r->ev);
    if (!r->ev) return FU_ENOMEM;
    for (int i = 0; i < k->nev; i++) FU_CU(cudaEventCreate(&r->ev[i]));
  }
  return FU_OK;
}

static void fu__teardown(fu__coll *k) {
  fu__uncapture(k);
  fu__comm_destroy(k);
  for (int l = 0; l < k->nloc; l++) {
    fu__rank *r = &k->r[l];
    cudaSetDevice(r->dev);
    if (r->ev)
      for (int i = 0; i < k->nev; i++)
        if (r->ev[i]) cudaEventDestroy(r->ev[i]);
    free(r->ev);
    if (r->send) cudaFree(r->send);
    if (r->recv) cudaFree(r->recv);
    if (r->d_bad) cudaFree(r->d_bad);
    if (r->s) cudaStreamDestroy(r->s);
  }
  cudaSetDevice(k->c->dev);
}

/* All variants of one size of one collective: one transaction. *need_issue: the host issue
 * cost is still to be measured (at the smallest size that holds an element per rank); cleared
 * once it is. */
static int fu__one_size(fu__coll *k, int ci, int dt, uint64_t size, const char *algo,
                        const char *proto, int *need_issue) {
  fu_calib_ctx *c = k->c;
  const fu_calib_opts *o = c->o;
  uint64_t e = (uint64_t)fu_calib_dtype_size(dt);
  uint64_t count = size / e;
  if (fu__colls[ci].split) count /= (uint64_t)k->nranks;
  if (count == 0) return FU_OK;  /* below one element per rank */
  uint64_t bytes = count * e * (fu__colls[ci].split ? (uint64_t)k->nranks : 1);
  int st = fu_calib_tx_begin(c);
  for (int ip = 0; st == FU_OK && ip < 2; ip++) {
    if (ip ? !o->in_place : !o->out_of_place) continue;
    if (ip && !fu__colls[ci].has_ip) continue;
    long long nwrong = -1;
    if (o->check) st = fu__verify(k, ci, count, dt, ip, bytes, &nwrong);
    if (nwrong > 0) {
      if (c->rank == 0)
        fu_error("calib: %s %s %llu bytes%s: %lld wrong elements", fu__colls[ci].name,
                 fu_calib_dtype_name(dt), (unsigned long long)bytes, ip ? " in-place" : "",
                 nwrong);
      c->nfail++;
    }
    for (int g = 0; st == FU_OK && g < 2; g++) {
      if (g ? !o->graph_on : !o->graph_off) continue;
      if (g) st = fu__capture(k, ci, count, dt, ip);
      fu_sample s;
      fu_sample_init(&s);
      double host_us = NAN, mean_us = NAN;
      if (st == FU_OK) st = fu__time(k, ci, count, dt, ip, g, &s, &host_us, &mean_us);
      fu__uncapture(k);
      if (st != FU_OK) break;
      snprintf(s.op, sizeof s.op, "%s", fu__colls[ci].name);
      snprintf(s.link, sizeof s.link, "%s", k->link);
      snprintf(s.dtype, sizeof s.dtype, "%s", fu_calib_dtype_name(dt));
      snprintf(s.algo, sizeof s.algo, "%s", algo);
      snprintf(s.proto, sizeof s.proto, "%s", proto);
      s.ranks = k->nranks;
      s.in_place = ip;
      s.graph = g;
      s.bytes = bytes;
      s.n_wrong = nwrong > 2000000000LL ? 2000000000 : (int)nwrong;
      s.busbw_gbps = (double)bytes / (s.t_median_us * 1e3) *
                     fu_busbw_factor(fu__colls[ci].op, k->nranks);
      st = fu_calib_emit_mean(c, &s, mean_us);
      if (st == FU_OK && *need_issue && !ip && !g && !algo[0] && !proto[0]) {
        /* host cost of issuing this collective back to back, at the smallest size */
        fu_sample h;
        fu_sample_init(&h);
        snprintf(h.op, sizeof h.op, "issue");
        snprintf(h.link, sizeof h.link, "%s", k->link);
        snprintf(h.dtype, sizeof h.dtype, "%s", fu_calib_dtype_name(dt));
        snprintf(h.algo, sizeof h.algo, "%s", fu__colls[ci].name);
        snprintf(h.proto, sizeof h.proto, "host");
        h.ranks = k->nranks;
        h.bytes = bytes;
        h.t_median_us = host_us;
        h.count = s.count;
        st = fu_calib_emit(c, &h);
        *need_issue = 0;
      }
    }
  }
  if (st == FU_OK) st = fu_calib_tx_end(c);
  else if (c->db) fu_db_rollback(c->db);
  return st;
}

int fu_calib_coll(fu_calib_ctx *c) {
  const fu_calib_opts *o = c->o;
  fu__coll *k = calloc(1, sizeof *k);
  if (!k) return FU_ENOMEM;
  k->c = c;
  k->nloc = c->mpi ? 1 : c->ngpus;
  k->nranks = c->mpi ? c->nranks : c->ngpus;
  if (k->nloc > FU__MAXLOC) {
    fu_error("calib: at most %d GPUs in one process; use MPI for more", FU__MAXLOC);
    free(k);
    return FU_EUSAGE;
  }
  for (int l = 0; l < k->nloc; l++) {
    k->r[l].dev = c->mpi ? c->dev : l;
    k->r[l].rank = c->mpi ? c->rank : l;
  }
  /* the link the samples are stored under */
  int multi_host = 0;
#ifdef FU_HAVE_MPI
  if (c->mpi) {
    MPI_Comm node;
    int nlocal = 1;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nlocal);
    MPI_Comm_free(&node);
    int minlocal = nlocal;
    MPI_Allreduce(&nlocal, &minlocal, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    multi_host = minlocal < c->nranks;
  }
#endif
  if (o->link[0]) snprintf(k->link, sizeof k->link, "%s", o->link);
  else if (k->nranks == 1) snprintf(k->link, sizeof k->link, "hbm");
  else if (multi_host) snprintf(k->link, sizeof k->link, "net");
  else if (c->nvlinks > 0) snprintf(k->link, sizeof k->link, "nvlink");
  else snprintf(k->link, sizeof k->link, "pcie");
  fu_calib_phase(c, "collectives over %d rank%s (%s): %d sizes x %d ops x %d types x %d settings",
                 k->nranks, k->nranks > 1 ? "s" : "", k->link, c->nsizes, fu__ncolls(o),
                 o->ndtypes, fu__nsettings(o));
  int st = fu__setup(k);
  for (int a = 0; st == FU_OK && a < o->nalgos; a++)
    for (int p = 0; st == FU_OK && p < o->nprotos; p++) {
      int ist = fu__comm_init(k, o->algos[a], o->protos[p]);
      if (ist != FU_OK) {
        /* a setting NCCL refuses is reported and skipped, the rest goes on */
        if (c->rank == 0)
          fu_error("calib: NCCL_ALGO=%s NCCL_PROTO=%s: communicator not created; skipped",
                   o->algos[a][0] ? o->algos[a] : "(default)",
                   o->protos[p][0] ? o->protos[p] : "(default)");
        c->nfail++;
        fu__comm_destroy(k);
        c->steps_done += (long)fu__ncolls(o) * o->ndtypes * c->nsizes;
        continue;
      }
      for (int ci = 0; st == FU_OK && ci < FU__NCOLLS; ci++) {
        if (!(o->colls & fu__colls[ci].bit)) continue;
        for (int d = 0; st == FU_OK && d < o->ndtypes; d++) {
          int need_issue = 1;  /* sizes below one element per rank are skipped */
          for (int i = 0; st == FU_OK && i < c->nsizes; i++) {
            char what[64], sz[32];
            snprintf(what, sizeof what, "%s %s %s", fu__colls[ci].name,
                     fu_calib_dtype_name(o->dtypes[d]), fu_format_size(c->sizes[i], sz, sizeof sz));
            st = fu__one_size(k, ci, o->dtypes[d], c->sizes[i], o->algos[a], o->protos[p],
                              &need_issue);
            fu_calib_step(c, what);
          }
        }
      }
      fu__comm_destroy(k);
    }
  unsetenv("NCCL_ALGO");
  unsetenv("NCCL_PROTO");
  fu__teardown(k);
  free(k);
  return st;
}

#endif /* FU_HAVE_NCCL */
