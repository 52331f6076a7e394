/* fu_validate.h: `fusim validate`: a matrix of workloads x plans executed on the GPU
 * (fu_exec.h), each measured against the simulator's prediction for the same buckets.
 *
 * Order of work, so that bad input fails before the GPU is touched: workloads, profile and
 * plans are read and every plan's buckets computed (a plan naming unknown tensors fails
 * here); then the GPU is probed (none: exit 69) and every workload's memory need checked
 * against free device memory and host memory; then the database is opened; then, per
 * workload, the GPU runs:
 *   1. a few compute-only iterations -> a first scale (measured / nominal compute), with which
 *      time-dependent plans (optimal) are bucketed on the workload as it really runs;
 *   2. one checked iteration per plan (fu_exec_verify);
 *   3. warm-up, then `iters` rounds of every plan and the compute-only iteration interleaved
 *      (C A B C ... so that clock drift hits every plan alike), CUDA events around each
 *      iteration, NVML clock and power read after each;
 *   4. the prediction for each plan on the workload scaled to the compute-only median (fwd,
 *      bwd, opt and every ready time times measured/nominal), with the executed buckets;
 *   5. rows stored (prediction + measurement, one transaction per workload). */
#ifndef FU_VALIDATE_H
#define FU_VALIDATE_H

#include <stddef.h>
#include <stdint.h>

#include "fu_common.h"
#include "fu_plan.h"

typedef struct fu_validate_opts {
  const char *workloads;     /* comma-separated workload names or paths */
  const char *plans;         /* plan file (JSON object or array of objects) or "default" */
  const fu_plan *plan;       /* one plan from the command's flags, in place of plans (or NULL) */
  const char *profile;       /* profile file, or NULL for the bundled default */
  const char *db_path;       /* database, or NULL for no storing */
  const char *plot;          /* gnuplot output (.png/.svg), or NULL */
  const char *cmdline;       /* the command line, for provenance */
  int iters;                 /* timed iterations per plan (>= 1; 20 by default) */
  int warmup;                /* untimed rounds before (>= 0; 3 by default) */
  int emulate_host;          /* spin the workload's host costs */
  int ndev;                  /* GPUs to use (0 = all visible) */
  int allreduce;             /* NCCL all-reduce even on one GPU (else offload there) */
  fu_format format;          /* output format */
} fu_validate_opts;

void fu_validate_opts_init(fu_validate_opts *o);

/* The default plan set: none, single, DDP default (cap:25MiB,first:1MiB), cap:4MiB, cap:100MiB,
 * optimal, each with overlap on and off (12 plans). *out is malloc'd. */
int fu_validate_default_plans(fu_plan **out, size_t *n);
/* Reads a plan file: one JSON object or an array of them (fu_plan_parse_json's keys). */
int fu_validate_load_plans(const char *path, fu_plan **out, size_t *n);

/* Runs the matrix and prints it (stdout). Returns a status (fu_exit_code for the exit). */
int fu_validate_run(const fu_validate_opts *o);

/* Reads results that `fusim validate --format csv` wrote and prints them (o->format) with the
 * summary, and the plot when o->plot is set. No GPU needed. */
int fu_validate_from_csv(const fu_validate_opts *o, const char *path);

/* The classic fusion table (4 messages vs 1 fused at 1, 8, 128 MiB) plus the pack-efficiency
 * rows (64 x 4 KiB, 64 x 64 KiB), over PCIe to pinned host memory; printed in o->format. */
int fu_validate_fusion_table(const fu_validate_opts *o, int reps);

#endif
