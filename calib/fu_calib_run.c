/* fu_calib_run.c: the calibration run: GPUs and database first, provenance, the suites, the
 * summary. Each size's samples are one transaction, so Ctrl-C loses at most the current size. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <jansson.h>
#ifdef FU_HAVE_MPI
#include <mpi.h>
#endif

#include "fu_calib_gpu.h"
#include "fu_calib_int.h"
#include "fu_import.h"

double fu_calib_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int fu_calib_tx_begin(fu_calib_ctx *c) { return c->db ? fu_db_begin(c->db) : FU_OK; }
int fu_calib_tx_end(fu_calib_ctx *c) { return c->db ? fu_db_commit(c->db) : FU_OK; }

int fu_calib_emit(fu_calib_ctx *c, const fu_sample *s) { return fu_calib_emit_mean(c, s, NAN); }

int fu_calib_emit_mean(fu_calib_ctx *c, const fu_sample *s, double mean_us) {
  if (c->rank != 0) return FU_OK;
  fu_sample v = *s;
  /* The schema keeps times > 0: a time below the event resolution is unknown, not zero. */
  if (!(v.t_min_us > 0)) v.t_min_us = NAN;
  if (!(v.t_median_us > 0)) v.t_median_us = NAN;
  if (!(v.t_p95_us > 0)) v.t_p95_us = NAN;
  if (!(v.busbw_gbps >= 0)) v.busbw_gbps = NAN;
  if (!v.nccl_version[0]) fu_calib_nccl_version(v.nccl_version, sizeof v.nccl_version); /* the NCCL this run used */
  if (c->nsamples == c->cap) {
    size_t cap = c->cap ? 2 * c->cap : 256;
    fu_sample *p = realloc(c->samples, cap * sizeof *p);
    if (p) c->samples = p;
    double *m = realloc(c->mean_us, cap * sizeof *m);
    if (m) c->mean_us = m;
    if (!p || !m) return FU_ENOMEM;
    c->cap = cap;
  }
  c->mean_us[c->nsamples] = mean_us;
  c->samples[c->nsamples++] = v;
  return c->db ? fu_db_sample_insert(c->db, c->run_id, &v) : FU_OK;
}

void fu_calib_step(fu_calib_ctx *c, const char *what) {
  c->steps_done++;
  if (!c->show_progress || !c->bar || c->rank != 0) return;
  long tot = c->steps_total > 0 ? c->steps_total : 1;
  double f = (double)c->steps_done / (double)tot;
  if (f > 1) f = 1;
  int w = 30, fill = (int)(f * w + 0.5);
  char bar[64];
  for (int i = 0; i < w; i++) bar[i] = i < fill ? '#' : '.';
  bar[w] = '\0';
  fprintf(stderr, "\r[%s] %3d%% %6.1f s  %-40.40s", bar, (int)(100 * f),
          fu_calib_now() - c->t_start, what);
  fflush(stderr);
}

void fu_calib_phase(fu_calib_ctx *c, const char *fmt, ...) {
  if (!c->show_progress || c->bar || c->rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "calib: [%5.1f s] ", fu_calib_now() - c->t_start);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

int fu_calib_runs_for(const fu_calib_ctx *c, double t_est_us) {
  int n = c->o->iters;
  int floor_n = n < 5 ? n : 5;
  if (t_est_us > 0 && t_est_us * 1e-6 * n > c->o->budget_s) {
    n = (int)(c->o->budget_s / (t_est_us * 1e-6));
    if (n < floor_n) n = floor_n;
  }
  return n;
}

int fu_calib_time(fu_calib_ctx *c, fu_calib_op op, void *arg, cudaStream_t st, int mode,
                  fu_sample *s) {
  for (int i = 0; i < c->o->warmup; i++) FU_CU(op(arg, st));
  /* One run timed alone sizes the count to the budget. */
  FU_CU(cudaEventRecord(c->ev[0], st));
  FU_CU(op(arg, st));
  FU_CU(cudaEventRecord(c->ev[1], st));
  FU_CU(cudaEventSynchronize(c->ev[1]));
  float ms;
  FU_CU(cudaEventElapsedTime(&ms, c->ev[0], c->ev[1]));
  int n = fu_calib_runs_for(c, 1e3 * ms);
  if (mode == FU_T_QUEUED) {
    /* The spin covers the host's enqueueing of all runs (a few us each), so the GPU finds
     * them all queued and the events time the device alone. */
    FU_CU(fu_k_spin((uint64_t)(200000 + 30000.0 * n), st));
  }
  for (int i = 0; i < n; i++) {
    FU_CU(cudaEventRecord(c->ev[2 * i], st));
    FU_CU(op(arg, st));
    FU_CU(cudaEventRecord(c->ev[2 * i + 1], st));
    if (mode == FU_T_SYNC) FU_CU(cudaEventSynchronize(c->ev[2 * i + 1]));
  }
  FU_CU(cudaStreamSynchronize(st));
  for (int i = 0; i < n; i++) {
    FU_CU(cudaEventElapsedTime(&ms, c->ev[2 * i], c->ev[2 * i + 1]));
    c->times[i] = 1e3 * ms;
  }
  fu_calib_stats(c->times, n, &s->t_min_us, &s->t_median_us, &s->t_p95_us);
  s->count = n;
  return FU_OK;
}

/* ---- provenance ---- */

static void fu__provenance(fu_calib_ctx *c, fu_nvml *nv, const fu_gpu_state *g0, int argc,
                           char **argv, fu_provenance *p) {
  memset(p, 0, sizeof *p);
  gethostname(p->host, sizeof p->host - 1);
  struct cudaDeviceProp prop;
  memset(&prop, 0, sizeof prop);   /* the notes below read it even when the query fails */
  if (cudaGetDeviceProperties(&prop, c->dev) == cudaSuccess) {
    if (c->ngpus > 1 || c->nranks > 1)
      snprintf(p->gpu, sizeof p->gpu, "%.100s x%d", prop.name, c->mpi ? c->nranks : c->ngpus);
    else
      snprintf(p->gpu, sizeof p->gpu, "%.120s", prop.name);
  }
  if (!nv || fu_nvml_driver(nv, p->driver, sizeof p->driver) != FU_OK) {
    int v = 0;
    cudaDriverGetVersion(&v);
    snprintf(p->driver, sizeof p->driver, "CUDA driver API %d.%d", v / 1000, (v % 1000) / 10);
  }
  int rv = 0;
  cudaRuntimeGetVersion(&rv);
  snprintf(p->cuda, sizeof p->cuda, "%d.%d", rv / 1000, (rv % 1000) / 10);
  fu_calib_nccl_version(p->nccl, sizeof p->nccl);
  if (g0->valid)
    snprintf(p->topology, sizeof p->topology,
             "PCIe Gen%u x%u (max Gen%u x%u); NVLink x%u; %d GPU%s%s", g0->pcie_gen,
             g0->pcie_width, g0->pcie_gen_max, g0->pcie_width_max, g0->nvlinks,
             c->mpi ? c->nranks : c->ngpus, (c->mpi ? c->nranks : c->ngpus) > 1 ? "s" : "",
             c->mpi ? " (MPI, one rank per GPU)" : "");
  else
    snprintf(p->topology, sizeof p->topology, "unknown (no NVML); %d GPU%s",
             c->mpi ? c->nranks : c->ngpus, (c->mpi ? c->nranks : c->ngpus) > 1 ? "s" : "");
  char *cmd = fu_join_argv(argc, argv);
  snprintf(p->cmdline, sizeof p->cmdline, "fusim %s", cmd ? cmd : "calib");
  free(cmd);
  snprintf(p->tool, sizeof p->tool, "fusim calib %s", fu_version());
  char st[200];
  fu_gpu_state_format(g0, st, sizeof st);
  snprintf(p->notes, sizeof p->notes, "start: %s; %d SMs, %.0f GB HBM, L2 %d MB", st,
           prop.multiProcessorCount, (double)prop.totalGlobalMem / 1e9, prop.l2CacheSize >> 20);
}

/* ---- summary on stdout ---- */


static void fu__print_summary(const fu_calib_ctx *c, const fu_provenance *p) {
  const fu_calib_opts *o = c->o;
  if (o->format == FU_FORMAT_JSON) {
    json_t *root = json_object(), *arr = json_array();
    json_object_set_new(root, "host", json_string(p->host));
    json_object_set_new(root, "gpu", json_string(p->gpu));
    json_object_set_new(root, "driver", json_string(p->driver));
    json_object_set_new(root, "cuda", json_string(p->cuda));
    json_object_set_new(root, "nccl", json_string(p->nccl));
    json_object_set_new(root, "topology", json_string(p->topology));
    json_object_set_new(root, "cmdline", json_string(p->cmdline));
    json_object_set_new(root, "run_id", json_integer(c->run_id));
    for (size_t i = 0; i < c->nsamples; i++) {
      const fu_sample *s = &c->samples[i];
      json_t *j = json_pack("{s:s, s:s, s:i, s:I, s:s, s:s, s:s, s:b, s:b, s:i, s:i}", "op", s->op,
                            "link", s->link, "ranks", s->ranks, "bytes", (json_int_t)s->bytes,
                            "dtype", s->dtype, "algo", s->algo, "proto", s->proto, "in_place",
                            s->in_place, "graph", s->graph, "count", s->count, "n_wrong",
                            s->n_wrong);
      if (!j) continue;
      if (isfinite(s->t_min_us)) json_object_set_new(j, "t_min_us", json_real(s->t_min_us));
      if (isfinite(s->t_median_us)) json_object_set_new(j, "time_us", json_real(s->t_median_us));
      if (isfinite(s->t_p95_us)) json_object_set_new(j, "t_p95_us", json_real(s->t_p95_us));
      if (isfinite(s->busbw_gbps)) json_object_set_new(j, "busbw_gbps", json_real(s->busbw_gbps));
      if (isfinite(c->mean_us[i])) json_object_set_new(j, "mean_us", json_real(c->mean_us[i]));
      json_array_append_new(arr, j);
    }
    json_object_set_new(root, "samples", arr);
    json_dumpf(root, stdout, JSON_INDENT(1) | JSON_REAL_PRECISION(7));
    fputc('\n', stdout);
    json_decref(root);
    return;
  }
  if (o->format == FU_FORMAT_CSV) {
    printf("# fusim calib: %s\n# host %s; GPU %s; driver %s; CUDA %s; NCCL %s\n# %s\n",
           p->cmdline, p->host, p->gpu, p->driver, p->cuda, p->nccl, p->topology);
    printf("# %s\n# %s\n", p->notes, c->end_note);
    fu_import_csv_header(stdout);
    for (size_t i = 0; i < c->nsamples; i++) fu_import_csv_row(stdout, &c->samples[i], c->mean_us[i]);
    return;
  }
  printf("# %s\n# %s | driver %s | CUDA %s | NCCL %s | %s\n# %s\n# %s\n", p->cmdline, p->gpu,
         p->driver, p->cuda, p->nccl, p->topology, p->notes, c->end_note);
  printf("%-13s %-10s %5s %12s %-6s %-14s %-10s %2s %2s %10s %10s %10s %10s %5s\n", "op", "link",
         "ranks", "bytes", "dtype", "algo", "proto", "ip", "gr", "min_us", "median_us", "p95_us",
         "GB/s", "wrong");
  for (size_t i = 0; i < c->nsamples; i++) {
    const fu_sample *s = &c->samples[i];
    printf("%-13s %-10s %5d %12llu %-6s %-14s %-10s %2d %2d %10.2f %10.2f %10.2f %10.2f %5d\n",
           s->op, s->link, s->ranks, (unsigned long long)s->bytes, s->dtype[0] ? s->dtype : "-",
           s->algo[0] ? s->algo : "-", s->proto[0] ? s->proto : "-", s->in_place, s->graph,
           s->t_min_us, s->t_median_us, s->t_p95_us, s->busbw_gbps, s->n_wrong);
  }
}

/* ---- the run ---- */

#ifdef FU_HAVE_MPI
static int fu__launched_by_mpi(void) {
  return getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK") ||
         getenv("MPI_LOCALNRANKS") || getenv("PMI_RANK");
}
#endif

/* All ranks agree on a status (the worst); without MPI it is st itself. */
static int fu__agree(fu_calib_ctx *c, int st) {
#ifdef FU_HAVE_MPI
  if (c->mpi) {
    int all = st;
    MPI_Allreduce(&st, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
  }
#endif
  (void)c;
  return st;
}

static int fu__setup(fu_calib_ctx *c) {
  FU_CU(cudaSetDevice(c->dev));
  FU_CU(cudaStreamCreateWithFlags(&c->s, cudaStreamNonBlocking));
  FU_CU(cudaStreamCreateWithFlags(&c->s2, cudaStreamNonBlocking));
  c->nev = 2 * c->o->iters + 4;
  c->ev = calloc((size_t)c->nev, sizeof *c->ev);
  c->times = calloc((size_t)c->o->iters + 4, sizeof *c->times);
  if (!c->ev || !c->times) return FU_ENOMEM;
  for (int i = 0; i < c->nev; i++) FU_CU(cudaEventCreate(&c->ev[i]));
  FU_CU(cudaMalloc((void **)&c->d_bad, sizeof *c->d_bad));
  return FU_OK;
}

static void fu__teardown(fu_calib_ctx *c) {
  if (c->ev)
    for (int i = 0; i < c->nev; i++)
      if (c->ev[i]) cudaEventDestroy(c->ev[i]);
  free(c->ev);
  free(c->times);
  if (c->d_bad) cudaFree(c->d_bad);
  if (c->s) cudaStreamDestroy(c->s);
  if (c->s2) cudaStreamDestroy(c->s2);
  free(c->samples);
  free(c->mean_us);
  free(c->sizes);
}

int fu_calib_run(const fu_calib_opts *o, int argc, char **argv) {
  fu_calib_ctx ctx, *c = &ctx;
  memset(c, 0, sizeof *c);
  c->o = o;
  c->nranks = 1;
  c->t_start = fu_calib_now();
  int st = fu_calib_sizes(o, &c->sizes, &c->nsizes);
  if (st != FU_OK) return st;
#ifdef FU_HAVE_MPI
  if (fu__launched_by_mpi()) {
    MPI_Init(&argc, &argv);
    c->mpi = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &c->rank);
    MPI_Comm_size(MPI_COMM_WORLD, &c->nranks);
  }
#endif
  /* GPUs before anything is written. */
  int ndev = 0;
  cudaError_t ce = cudaGetDeviceCount(&ndev);
  if (ce != cudaSuccess || ndev == 0) {
    if (c->rank == 0)
      fu_error("calib: no usable GPU: %s", ce != cudaSuccess ? cudaGetErrorString(ce)
                                                              : "no CUDA device is visible");
    st = FU_ENODEV;
  } else if (c->mpi) {
    int local = 0;
#ifdef FU_HAVE_MPI
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    int nlocal = 1;
    MPI_Comm_rank(node, &local);
    MPI_Comm_size(node, &nlocal);
    MPI_Comm_free(&node);
    if (nlocal > ndev) {
      if (c->rank == 0)
        fu_error("calib: %d MPI ranks on one host but only %d GPU%s visible: one rank per GPU",
                 nlocal, ndev, ndev > 1 ? "s" : "");
      st = FU_EUSAGE;
    }
#endif
    c->dev = local;
    c->ngpus = 1;
    if (o->ngpus > 1 && c->rank == 0) fu_warn("calib: -g is ignored under MPI (one GPU per rank)");
  } else {
    c->ngpus = o->ngpus ? o->ngpus : ndev;
    if (c->ngpus > ndev) {
      fu_error("calib: -g %d: only %d GPU%s visible", o->ngpus, ndev, ndev > 1 ? "s are" : " is");
      st = FU_EUSAGE;
    }
  }
  st = fu__agree(c, st);
  const char *dbpath = fu_db_path_default(o->db_arg);
  if (st == FU_OK && c->rank == 0) st = fu_db_open(dbpath, FU_DB_READWRITE, &c->db);
  st = fu__agree(c, st);
  if (st == FU_OK) st = fu__agree(c, fu__setup(c));

  fu_nvml *nv = NULL;
  fu_gpu_state g0 = {0}, g1 = {0};
  fu_provenance prov;
  memset(&prov, 0, sizeof prov);
  if (st == FU_OK) {
    nv = fu_nvml_create();
    if (nv) fu_nvml_read(nv, c->dev, &g0);
    c->nvlinks = (int)g0.nvlinks;
    fu__provenance(c, nv, &g0, argc, argv, &prov);
    if (c->rank == 0) st = fu_db_run_begin(c->db, "calib", &prov, &c->run_id);
    st = fu__agree(c, st);
  }
  if (st == FU_OK) {
    c->show_progress = o->progress != 0;
    c->bar = o->progress == 1 || (o->progress == -1 && isatty(2));
    if (o->progress == 1 && !isatty(2)) c->bar = 0;
    int r0 = c->rank == 0;
    if (o->suites & FU_CALIB_SUITE_COLL) c->steps_total += fu_calib_coll_steps(c);
    if (r0 && (o->suites & FU_CALIB_SUITE_COPY)) c->steps_total += fu_calib_copy_steps(c);
    if (r0 && (o->suites & FU_CALIB_SUITE_ISSUE)) c->steps_total += 1;
    if (r0 && (o->suites & FU_CALIB_SUITE_PACK)) c->steps_total += fu_calib_pack_steps(c);
    if (r0 && (o->suites & FU_CALIB_SUITE_GEMM)) c->steps_total += fu_calib_gemm_steps(c);
    if (r0 && (o->suites & FU_CALIB_SUITE_OVERLAP)) c->steps_total += fu_calib_overlap_steps(c);
    if (r0)
      fu_calib_phase(c, "%s, %s; driver %s, CUDA %s, NCCL %s; %s -> run %lld in %s", prov.gpu,
                     prov.host, prov.driver, prov.cuda, prov.nccl, prov.topology,
                     (long long)c->run_id, dbpath);
    if (o->suites & FU_CALIB_SUITE_COLL) st = fu_calib_coll(c);
    st = fu__agree(c, st);
    /* The single-GPU suites run on rank 0 while the other ranks wait. */
    if (st == FU_OK && r0 && (o->suites & FU_CALIB_SUITE_COPY)) st = fu_calib_copy(c);
    if (st == FU_OK && r0 && (o->suites & FU_CALIB_SUITE_ISSUE)) st = fu_calib_issue(c);
    if (st == FU_OK && r0 && (o->suites & FU_CALIB_SUITE_PACK)) st = fu_calib_pack(c);
    if (st == FU_OK && r0 && (o->suites & FU_CALIB_SUITE_GEMM)) st = fu_calib_gemm(c);
    if (st == FU_OK && r0 && (o->suites & FU_CALIB_SUITE_OVERLAP)) st = fu_calib_overlap(c);
    st = fu__agree(c, st);
    if (c->bar && r0) fputc('\n', stderr);
    if (nv) fu_nvml_read(nv, c->dev, &g1);
    if (r0 && c->db) {
      char end[200], *note = c->end_note;
      fu_gpu_state_format(&g1, end, sizeof end);
      snprintf(note, sizeof c->end_note, "end: %s; %zu samples in %.1f s%s; %d measurement%s failed",
               end, c->nsamples, fu_calib_now() - c->t_start,
               st == FU_OK ? "" : " (stopped early)", c->nfail, c->nfail == 1 ? "" : "s");
      /* the samples are committed already; a lost end note (the data layer said why) fails
       * the run's status, not its data */
      int nst = fu_db_run_note(c->db, c->run_id, note);
      if (st == FU_OK && nst != FU_OK) st = nst;
      fu__print_summary(c, &prov);
      fu_calib_phase(c, "%zu samples stored as run %lld in %s (%s)", c->nsamples,
                     (long long)c->run_id, dbpath, note);
    }
    if (st == FU_OK && c->nfail) st = FU_EINTERNAL;
  }
  fu_nvml_destroy(nv);
  fu__teardown(c);
  fu_db_close(c->db);
#ifdef FU_HAVE_MPI
  if (c->mpi) MPI_Finalize();
#endif
  return st;
}
