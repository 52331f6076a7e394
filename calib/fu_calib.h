/* fu_calib.h: `fusim calib`, the GPU microbenchmarks that feed `fusim fit`.
 *
 * Options are parsed and checked (fu_calib_opts.c, CPU only) before any GPU work; the run
 * (fu_calib_run.c and friends) exists only in CUDA builds (FU_HAVE_CUDA).
 *
 * How measurements are stored as samples (data/fu_db.h's fu_sample), by suite:
 *
 *   suite    op             link        bytes            dtype    algo                proto
 *   coll     allreduce ...  nvlink|pcie|hbm|net  nccl-tests size  float..  NCCL_ALGO or ""  NCCL_PROTO or ""
 *            (hbm when ranks = 1: one rank is a device copy inside NCCL; in_place and graph set)
 *   copy     h2d, d2h       pcie_h2d/_d2h  size          ""       "" pinned | "pageable"  "" | "pipe" | "queued"
 *            d2d            hbm           size           ""       ""                  "" | "pipe" | "queued"
 *            bidir          pcie_bidir    per direction  ""       ""                  "" | "pipe"
 *              proto "": each run is event, op, event, synchronise (the reference program's
 *              way; at small sizes it includes the host's submission latency, which differs
 *              between machines); "pipe": runs back to back, an event pair around each, one
 *              synchronise at the end; "queued": the runs queued behind a spin kernel, so the
 *              events time the device alone (up to 4 MiB, where the three differ).
 *              busbw_gbps = bytes / time (bidir: 2 x bytes).
 *   issue    issue          pcie_d2h      4              ""       "host" | "device"   ""
 *              64 back-to-back 4-byte copies: host time per cudaMemcpyAsync call, and the
 *              device span of the 64 divided by 64.
 *            launch         launch        0              ""       "host" | "device" | "legacy" | "isolated"
 *              1000 back-to-back empty kernels: host time per launch, device span / 1000 on
 *              fusim's stream and on the legacy default stream; isolated: host wall time of
 *              one launch + synchronise on an idle GPU.
 *   pack     pack           hbm           k x m          ""       "k=K"               "" | "pipe" | "queued"
 *            pack           hbm           k x m          ""       "unpack:k=K"        (as above)
 *            d2h            pcie_d2h      k x m          ""       "one:k=K" | "separate:k=K"   "" | "pipe"
 *            pack           pcie_d2h      k x m          ""       "pack+d2h:k=K"      "" | "pipe"
 *            pack           pcie_d2h      k x m          ""       "p2h:k=K"           "" | "pipe"
 *              (p2h: the pack kernel writing straight into pinned host memory, no copy engine)
 *              the fusion comparison: one copy of k x m bytes, k copies of m bytes, and the
 *              pack kernel followed by one copy; pack alone (queued: the kernel's device time).
 *            pack           hbm           total          ""       "odd:k=37"          ""
 *              37 odd-sized tensors at odd addresses: a correctness check with a timing.
 *   gemm     gemm           hbm           2*M*N*K (FLOP) bf16|tf32|fp32  "MxNxK"    "" alone
 *   overlap  gemm           hbm           2*M*N*K        bf16     "MxNxK"             "alone" | "+allreduce" | "+d2h" | "+h2d" | "+d2d"
 *              the same GEMM alone and then while a 256 MiB all-reduce (ranks = its GPUs) or
 *              copy runs back to back beside it on another stream: slowdown = "+X" / "alone".
 *              busbw_gbps holds the achieved GFLOP/s (TFLOP/s x 1000) for every GEMM row.
 *   coll     issue          (coll link)   smallest size  dtype    "<collective>"      "host"
 *              host time to issue one collective call back to back (no events in between).
 */
#ifndef FU_CALIB_H
#define FU_CALIB_H

#include <stdint.h>

#include "fu_common.h"
#include "fu_dtype.h"

#define FU_CALIB_MAX_LIST 8

enum {
  FU_CALIB_SUITE_COLL = 1 << 0,    /* NCCL collectives */
  FU_CALIB_SUITE_COPY = 1 << 1,    /* PCIe and device copies */
  FU_CALIB_SUITE_ISSUE = 1 << 2,   /* per-operation issue and launch cost */
  FU_CALIB_SUITE_PACK = 1 << 3,    /* batched pack kernel and the fusion comparison */
  FU_CALIB_SUITE_GEMM = 1 << 4,    /* cuBLAS GEMM throughput */
  FU_CALIB_SUITE_OVERLAP = 1 << 5, /* GEMM slowdown beside a collective or a copy */
  FU_CALIB_SUITE_ALL = (1 << 6) - 1
};

/* Collectives, as bits (FU_CALIB_COLL_ALL = every one). */
enum {
  FU_CALIB_ALLREDUCE = 1 << 0,
  FU_CALIB_ALLGATHER = 1 << 1,
  FU_CALIB_REDUCESCATTER = 1 << 2,
  FU_CALIB_BROADCAST = 1 << 3,
  FU_CALIB_SENDRECV = 1 << 4,
  FU_CALIB_ALLTOALL = 1 << 5,
  FU_CALIB_COLL_ALL = (1 << 6) - 1
};

/* Data types of the collectives (the NCCL ones fusim verifies): model/fu_dtype.h's, whose
 * names every command accepts alike. */
typedef fu_dtype fu_calib_dtype;

const char *fu_calib_dtype_name(int dt);   /* "float", "bf16", ... */
int fu_calib_dtype_size(int dt);           /* bytes per element */
int fu_calib_dtype_parse(const char *s, int *out);

typedef struct fu_calib_opts {
  uint64_t min_bytes;        /* -b: smallest size */
  uint64_t max_bytes;        /* -e: largest size */
  double factor;             /* -f: size multiplier (> 1), used when step_bytes is 0 */
  uint64_t step_bytes;       /* -i: size increment, 0 = use factor */
  int warmup;                /* -w: warm-up runs per size (>= 0) */
  int iters;                 /* -n: timed runs per size (>= 1); large sizes stop earlier on the
                                time budget, never under min(iters, 5) */
  double budget_s;           /* --budget: seconds of timed runs per size and variant */
  int ngpus;                 /* -g: GPUs for single-process collectives, 0 = every visible */
  unsigned suites;           /* --suite: FU_CALIB_SUITE_* bits */
  unsigned colls;            /* --ops: FU_CALIB_* collective bits */
  int dtypes[FU_CALIB_MAX_LIST]; /* -d: data types of the collectives */
  int ndtypes;               /* entries in dtypes */
  char algos[FU_CALIB_MAX_LIST][16];  /* --algo: NCCL_ALGO values; "" = NCCL's choice */
  int nalgos;                /* entries in algos (>= 1) */
  char protos[FU_CALIB_MAX_LIST][16]; /* --proto: NCCL_PROTO values; "" = NCCL's choice */
  int nprotos;               /* entries in protos (>= 1) */
  int out_of_place;          /* run out-of-place collectives */
  int in_place;              /* run in-place collectives */
  int graph_off;             /* time plain launches */
  int graph_on;              /* time CUDA-graph replays of captured calls */
  int check;                 /* -c: verify data once per size (1) or not (0) */
  int quick;                 /* --quick: a reduced sweep (< 1 minute) */
  int progress;              /* -1 auto (a bar on a terminal), 0 off, 1 on */
  char link[16];             /* --link: override the link name of collective samples, or "" */
  const char *db_arg;        /* --db value or NULL */
  fu_format format;          /* --format of the summary on stdout */
} fu_calib_opts;

/* Defaults: the full single-GPU sweep. */
void fu_calib_opts_init(fu_calib_opts *o);

/* Parses argv (argv[0] = "calib"). Prints one line naming the option on error and returns
 * FU_EUSAGE; sets *help and prints the usage on stdout for --help. No GPU is touched. */
int fu_calib_parse(int argc, char **argv, fu_calib_opts *o, int *help);

/* The list of sizes from min to max by factor or step; malloc'd into *sizes. */
int fu_calib_sizes(const fu_calib_opts *o, uint64_t **sizes, int *n);

/* min, median and 95th percentile (nearest rank) of n >= 1 values; sorts t in place. */
void fu_calib_stats(double *t, int n, double *tmin, double *tmed, double *tp95);

/* Checks that the database at path can be written without creating or changing it: an
 * existing file must open read-write, a new one needs a writable folder. Prints the reason. */
int fu_calib_db_writable(const char *path);

/* The whole run (CUDA builds only): returns an fu_status. */
int fu_calib_run(const fu_calib_opts *o, int argc, char **argv);

#endif
