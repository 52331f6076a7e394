/* fu_calib_int.h: internals shared by the calib suites (CUDA builds only). */
#ifndef FU_CALIB_INT_H
#define FU_CALIB_INT_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "fu_calib.h"
#include "fu_db.h"

/* Check a CUDA runtime call; on failure print file:line, the call and CUDA's message, and
 * return FU_EINTERNAL from the calling function (nccl-tests' CUDACHECK, returning a status). */
#define FU_CU(call)                                                                   \
  do {                                                                                \
    cudaError_t fu__e = (cudaError_t)(call);                                          \
    if (fu__e != cudaSuccess) {                                                       \
      fu_error("calib: %s:%d: %s: %s", __FILE__, __LINE__, #call,                     \
               cudaGetErrorString(fu__e));                                            \
      return fu__e == cudaErrorMemoryAllocation ? FU_ENOMEM : FU_EINTERNAL;           \
    }                                                                                 \
  } while (0)

/* NVML readings of one GPU (0 where NVML could not say). */
typedef struct fu_gpu_state {
  unsigned sm_mhz;           /* current SM clock */
  unsigned mem_mhz;          /* current memory clock */
  unsigned sm_max_mhz;       /* maximum SM clock */
  unsigned pcie_gen;         /* current PCIe generation */
  unsigned pcie_width;       /* current PCIe lanes */
  unsigned pcie_gen_max;     /* maximum PCIe generation of the link */
  unsigned pcie_width_max;   /* maximum lanes */
  unsigned nvlinks;          /* active NVLink links */
  unsigned power_mw;         /* power draw, milliwatts */
  unsigned temp_c;           /* GPU temperature, Celsius */
  int valid;                 /* 1 when NVML answered */
} fu_gpu_state;

typedef struct fu_nvml fu_nvml;
/* dlopen()s libnvidia-ml.so.1 (the driver's, present wherever a GPU is). NULL when absent:
 * callers then record "unknown". */
fu_nvml *fu_nvml_create(void);
void fu_nvml_destroy(fu_nvml *n);    /* accepts NULL */
int fu_nvml_driver(fu_nvml *n, char *buf, size_t len);
int fu_nvml_read(fu_nvml *n, int cuda_dev, fu_gpu_state *out);
/* "sm 1980/1980 MHz, mem 3201 MHz, 120 W, 35 C, PCIe Gen5 x16" */
void fu_gpu_state_format(const fu_gpu_state *g, char *buf, size_t len);

typedef struct fu_calib_ctx {
  const fu_calib_opts *o;    /* the options */
  fu_db *db;                 /* results database (rank 0 only; NULL elsewhere) */
  int64_t run_id;            /* this calibration's run row */
  int mpi;                   /* 1 when running one rank per GPU under MPI */
  int rank, nranks;          /* MPI rank and size (0 and 1 without MPI) */
  int dev;                   /* this process's GPU (the first of the communicator) */
  int ngpus;                 /* GPUs this process drives in collectives */
  int nvlinks;               /* active NVLink links of dev (for the link name) */
  uint64_t *sizes;           /* the -b..-e sizes */
  int nsizes;                /* entries in sizes */
  cudaStream_t s;            /* main stream on dev */
  cudaStream_t s2;           /* second stream on dev (copies, background work) */
  cudaEvent_t *ev;           /* 2 * iters + 4 timing events on dev */
  int nev;                   /* entries in ev */
  double *times;             /* iters scratch for per-run times, microseconds */
  unsigned long long *d_bad; /* device counter for data checks */
  fu_sample *samples;        /* every sample measured (for the summary) */
  double *mean_us;           /* beside each sample: nccl-tests' mean time, NaN if not taken */
  size_t nsamples, cap;      /* used and allocated entries */
  long steps_total, steps_done; /* progress */
  int bar;                   /* progress as a bar (stderr is a terminal) */
  int show_progress;         /* any progress at all */
  double t_start;            /* monotonic seconds at start */
  int nfail;                 /* measurements that failed but did not stop the run */
  char end_note[320];        /* clocks and counts at the end (stored on the run, printed) */
} fu_calib_ctx;

double fu_calib_now(void);   /* monotonic seconds */

/* Appends a sample to the summary and stores it (rank 0). Call between fu_calib_tx_begin and
 * fu_calib_tx_end: each size is one transaction, so an interrupted run loses at most it. */
int fu_calib_emit(fu_calib_ctx *c, const fu_sample *s);
/* The same with the nccl-tests-style mean (total / runs) beside it, shown in CSV and JSON. */
int fu_calib_emit_mean(fu_calib_ctx *c, const fu_sample *s, double mean_us);
int fu_calib_tx_begin(fu_calib_ctx *c);
int fu_calib_tx_end(fu_calib_ctx *c);

/* Progress: one step done, with what is being measured. */
void fu_calib_step(fu_calib_ctx *c, const char *what);
/* A line for a phase (shown without the bar; with the bar the bar says it). */
void fu_calib_phase(fu_calib_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Timing modes of fu_calib_time. */
enum {
  FU_T_SYNC,     /* each run: event, op, event, synchronise (isolated, as the reference) */
  FU_T_QUEUED,   /* all runs queued behind a spin kernel: device time alone */
  FU_T_PIPE      /* back to back, an event pair around each run, one synchronise at the end */
};
typedef int (*fu_calib_op)(void *arg, cudaStream_t s);  /* enqueue one run; a cudaError_t */

/* Warm-up, then timed runs of op on stream st; the count is -n, cut to the per-size time
 * budget (never under min(-n, 5)). Fills s->t_min_us, t_median_us, t_p95_us and count. */
int fu_calib_time(fu_calib_ctx *c, fu_calib_op op, void *arg, cudaStream_t st, int mode,
                  fu_sample *s);
/* Runs for this estimated time per run (microseconds). */
int fu_calib_runs_for(const fu_calib_ctx *c, double t_est_us);

/* Suites. Each returns an fu_status; a measurement that fails is reported and counted in
 * c->nfail, and only a broken GPU or database stops the run. steps() gives progress units. */
long fu_calib_coll_steps(const fu_calib_ctx *c);
int fu_calib_coll(fu_calib_ctx *c);
long fu_calib_copy_steps(const fu_calib_ctx *c);
int fu_calib_copy(fu_calib_ctx *c);
int fu_calib_issue(fu_calib_ctx *c);
long fu_calib_pack_steps(const fu_calib_ctx *c);
int fu_calib_pack(fu_calib_ctx *c);
long fu_calib_gemm_steps(const fu_calib_ctx *c);
int fu_calib_gemm(fu_calib_ctx *c);
long fu_calib_overlap_steps(const fu_calib_ctx *c);
int fu_calib_overlap(fu_calib_ctx *c);

/* NCCL helpers shared by coll and overlap (no-ops without NCCL). */
const char *fu_calib_nccl_version(char *buf, size_t len);

#endif
