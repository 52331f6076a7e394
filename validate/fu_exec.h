/* fu_exec.h: the validation executor. Runs a workload under fusion plans for real on the GPU.
 *
 * What one iteration executes (per visible GPU; NCCL ties the GPUs together when there are two
 * or more, else gradients are offloaded to pinned host memory over PCIe):
 *   - forward: one busy kernel of the workload's fwd_us (times accum_steps, with backward);
 *   - backward: one busy kernel per gradient interval (from one ready time to the next), so
 *     gradient i is "ready" on the compute stream exactly at its ready_us; the busy kernel holds
 *     one warp on every SM and spins on the global nanosecond timer, so its length does not move
 *     with the SM clock and it leaves room for the pack kernel beside it;
 *   - the framework's host costs, when the workload gives them: the host spins hook_us after
 *     each gradient's kernel is launched and pads every communication operation it issues to
 *     issue_us (the capture measured both in PyTorch);
 *   - communication per bucket (fu_resolve_buckets, the simulator's own assignment): with overlap
 *     on, an event recorded on the compute stream where the bucket's last gradient is ready, a
 *     wait on a communication stream (buckets go round-robin over comm_streams), then pack (one
 *     batched kernel, calib/fu_pack.h) into the preallocated fusion buffer and one D2H copy or
 *     all-reduce (plus unpack for all-reduce); with pack=view the gradients already live in the
 *     bucket (they are slices of one arena in ready order) and the operation runs on them in
 *     place. With overlap off every bucket is issued after backward.
 *   - the optimizer step (opt_us) after all communication, then the end event.
 * Gradients live in one device arena in ready order, each 16-byte aligned; the host copy (the
 * offload target) has the same layout, so a bucket is one contiguous range in both.
 *
 * Costs: create allocates the arena (sum of gradient bytes), pinned host memory of the same
 * size (offload) and, in prepare, comm_streams fusion buffers of the largest packed bucket. */
#ifndef FU_EXEC_H
#define FU_EXEC_H

#include <stddef.h>
#include <stdint.h>

#include "fu_plan.h"
#include "fu_workload.h"

#define FU_EXEC_MAX_DEV 16
#define FU_EXEC_MAX_STREAMS 8

/* The machine, as the executor found it (fu_exec_probe). */
typedef struct fu_exec_info {
  int ndev;                  /* visible GPUs */
  int sm_count;              /* multiprocessors of GPU 0 */
  char gpu[128];             /* GPU 0's name */
  char driver[64];           /* driver version, e.g. "13000" (cudaDriverGetVersion) */
  char cuda[64];             /* runtime version */
  char nccl[64];             /* NCCL version or "" */
  uint64_t mem_free;         /* free device memory of the smallest GPU, bytes */
  uint64_t mem_total;        /* device memory of GPU 0, bytes */
} fu_exec_info;

/* Fills info; FU_ENODEV with one line on stderr when built without CUDA or no GPU is visible.
 * Touches no GPU memory beyond the runtime's own context. */
int fu_exec_probe(fu_exec_info *info);

/* Device bytes the executor needs for w: arena + fusion buffers (max_bucket x streams). */
uint64_t fu_exec_device_bytes(const fu_workload *w, uint64_t max_bucket_bytes, int streams);

typedef struct fu_exec fu_exec;      /* library-owned */

typedef struct fu_exec_opts {
  int ndev;                  /* GPUs to use (<= visible); 1 = offload to host over PCIe */
  int emulate_host;          /* 1: spin the workload's hook_us / issue_us on the host */
  int allreduce;             /* 1: NCCL all-reduce even on one GPU (a check of that path) */
} fu_exec_opts;

/* Allocates the arena, the host buffer, streams and events; sets up NCCL for ndev >= 2. */
int fu_exec_create(const fu_workload *w, const fu_exec_opts *o, fu_exec **out);
void fu_exec_destroy(fu_exec *e);    /* accepts NULL */

/* Registers a plan with its buckets (copied); *slot identifies it in fu_exec_iteration.
 * Buckets must cover the gradients in order. Call before fu_exec_prepare. */
int fu_exec_add_plan(fu_exec *e, const fu_plan *p, const fu_bucket *b, size_t nb, int *slot);
/* Allocates the fusion buffers (largest packed bucket over the plans, x streams) and uploads
 * the pack layouts. */
int fu_exec_prepare(fu_exec *e);

/* One iteration of plan `slot` (-1: compute only, no communication and no host emulation),
 * timed with CUDA events on GPU 0's compute stream; waits for it to finish. */
int fu_exec_iteration(fu_exec *e, int slot, double *iter_us);

/* Correctness of plan `slot`: fills the gradients with a pattern derived from seed, poisons
 * the destination, runs one iteration and checks that the offloaded host copy equals the device
 * gradients byte for byte (offload) or that every reduced element equals ndev x its value
 * (all-reduce). FU_EINTERNAL with msg filled on a mismatch. */
int fu_exec_verify(fu_exec *e, int slot, uint32_t seed, char *msg, size_t len);

/* "offload", "allreduce:N:nvlink", or "allreduce:1:hbm" (NCCL on one GPU, --comm allreduce):
 * what the executor's communication is. */
int fu_exec_comm(const fu_exec *e, fu_comm *c);

/* One row of the fusion microbenchmark: k messages of m bytes D2H from pinned host memory. */
typedef struct fu_fusion_row {
  int k;                     /* messages */
  uint64_t m;                /* bytes per message */
  double separate_us;        /* k copies back to back on one stream (median) */
  double one_copy_us;        /* one copy of k x m contiguous bytes (median) */
  double pack_us;            /* the batched pack kernel alone (median) */
  double pack_copy_us;       /* pack kernel + one copy (median) */
  double pack_host_us;       /* the pack kernel writing straight into pinned host memory */
  double q_separate_us;      /* queued behind a busy kernel (GPU time only): k copies */
  double q_one_copy_us;      /* ... one copy */
  double q_pack_copy_us;     /* ... pack kernel + one copy */
  double peak_gbps;          /* peak D2H bandwidth measured in the same run (GB/s, 1e9) */
} fu_fusion_row;

/* Measures each (k, m) pair; reps timed runs after 3 warm-ups; GPU 0. */
int fu_exec_bench_fusion(const int *k, const uint64_t *m, size_t n, int reps, fu_fusion_row *out);

/* SM clock (MHz) and board power (W) of a GPU, through calib's NVML wrapper (loaded at run
 * time); NAN when NVML is missing. */
typedef struct fu_exec_mon fu_exec_mon;
int fu_exec_mon_open(fu_exec_mon **out);     /* never fails hard: a NULL monitor reads NAN */
void fu_exec_mon_close(fu_exec_mon *m);      /* accepts NULL */
void fu_exec_mon_read(fu_exec_mon *m, int dev, double *sm_mhz, double *power_w);
void fu_exec_mon_driver(fu_exec_mon *m, char *buf, size_t len);  /* "580.159.04", or "" */

#endif
