/* fu_predict.h: the simulator: the prediction of one iteration of a workload whose gradients
 * are already assigned to buckets (fu_resolve.h turns a plan into buckets; fu_result.h prints a
 * result).
 *
 * How an iteration compiles to engine tasks (times in microseconds, iteration clock from 0):
 *  - compute stream: accum_steps - 1 micro-batches of fwd_us + bwd_us (no communication), then
 *    the last forward, then backward cut into segments that end where each gradient becomes
 *    ready (ready_us from the start of that backward), then the rest of backward; finally the
 *    optimizer step (opt_us) once every bucket has ended. Compute tasks slow down by the
 *    profile's comm_slowdown while a collective runs beside them (copy_slowdown for copies).
 *  - host thread: when a gradient becomes ready the framework's hook runs (workload hook_us);
 *    when it completes a bucket (overlap on), or once backward has ended (overlap off), the
 *    bucket is issued: workload issue_us + the cost model's issue_us (op issue + pack/unpack
 *    launches; fu_cost.h). Horovod plans issue on their own background thread, on the cycle grid counted
 *    from the start of backward.
 *  - launch-bound workloads: a workload that states its host costs ("host" block: hook_us or
 *    issue_us > 0) is taken to be bound by kernel launches, i.e. its host thread keeps pace with
 *    the device; then every compute segment also waits for the host work queued before it, so
 *    hooks and issues stretch backward. Without a host block the host runs ahead of the device
 *    and only delays communication.
 *  - communication stream (bucket k on stream k mod N): pack -> operation -> unpack. The
 *    operation is the cost model's comm_us, split into a fixed part and a transfer part
 *    bytes * busbw_factor / peak (the time at the peak bus bandwidth of the operation as
 *    charged, fu_cost.c); transfers running at once share their link (processor sharing).
 *    Offload copies run on the one device-to-host copy engine over pcie_d2h (duplex partner
 *    pcie_h2d), which takes the copies of every stream in the order they were issued (FIFO:
 *    the engine's lane holds them in bucket order, which is issue order). A packed bucket's
 *    hand-off (pack_handoff_us) is a task on the operation's executor (the copy engine, or the
 *    stream for a collective) between the pack and the operation: a second stream lets one
 *    bucket's pack kernel run while the engine copies another bucket, but the hand-off keeps
 *    the engine waiting and stays exposed.
 *  - interval: the same graph run again with every operation at its CI bound (comm_lo_us,
 *    comm_hi_us); the prediction is monotone in operation times, so these bound it. An
 *    estimate's compute_rel is a second source: the graph again with every compute task scaled
 *    by 1 -+ compute_rel, its deviation added to the operations' in quadrature per side. With a
 *    host timeline (host block v2) each source (the operations' CIs, the step's spread, the
 *    frameworks' spread, each framework cost's bounds) is run on its own at its bounds and the
 *    deviations are summed in quadrature per side, with host.jitter.model_rel x iter_us.
 *
 * Results: compute_us = accum_steps * (fwd + bwd) + opt; comm_us = the wall time some operation
 * runs, the union of their simulated intervals (operations on several streams at once count
 * once; pack, hand-off and unpack not included: a bucket's pack_us holds those);
 * exposed = iter - compute (>= 0); with a host timeline it splits into host_overhead = free -
 * compute and exposed_comm_only = iter - free, free the same graph run once more with every
 * operation (collective or offload copy) at zero time, all else (host and framework costs,
 * packs, hand-offs, unpacks) as it is, each part clipped to [0, exposed]; overlap_frac = 1 - exposed / (the union of the operations',
 * packs', hand-offs' and unpacks' intervals), clipped to [0, 1]; bus_util = sum of bytes *
 * busbw_factor over comm_us, over the peak bus bandwidth of fu_cost.c (the best the fitted curve gives at any size for
 * that op, link and rank count, as charged, and at least its measured peak_busbw_gbps), so
 * that bus_util <= 1 by construction. */
#ifndef FU_PREDICT_H
#define FU_PREDICT_H

#include <stddef.h>
#include <stdint.h>

#include "fu_plan.h"
#include "fu_profile.h"
#include "fu_workload.h"

typedef struct fu_trace fu_trace;      /* Chrome trace writer (sim/fu_trace.h) */

/* One predicted iteration: everything predict, plan and validate print or store. */
typedef struct fu_result {
  double iter_us;            /* predicted iteration time */
  double iter_lo_us, iter_hi_us; /* 95% interval: the fits' CIs, an estimate's compute_rel,
                                    and the measured spreads of a host timeline ("interval") */
  const char *interval_from; /* what the interval carries, for the table (a static string) */
  double compute_us;         /* fwd + bwd (+ opt) as the workload gives them, x accum steps */
  double comm_us;            /* wall time of communication: the union of the operations' intervals */
  double pack_us;            /* sum of the buckets' pack + hand-off + unpack times */
  double exposed_comm_us;    /* iteration time not hidden behind compute */
  int host_split;            /* 1: a host timeline (host block v2): the two below are printed */
  double host_overhead_us;   /* of exposed_comm_us, the host's overhead: the plan simulated with
                                every operation free, less compute (0 without a host timeline) */
  double exposed_comm_only_us; /* the rest, communication: iter_us less that run */
  double overlap_frac;       /* 1 - exposed / (comm + pack) */
  double bus_util;           /* achieved bus bandwidth over the peak of fu_cost.c (<= 1) */
  size_t n_ops;              /* communication operations */
  uint64_t fusion_buffer_bytes; /* fusion buffers the plan needs: per stream the largest packed
                                   bucket (Horovod: its threshold), 0 for view; DDP: every bucket */
  uint64_t view_buffer_bytes; /* of those, DDP's buckets with gradient_as_bucket_view: the gradients
                                 themselves, no second copy (fu_mem_allocated) */
  uint64_t sim_events;       /* events the engine processed (the nominal run) */
  size_t nbuckets;           /* buckets */
  fu_bucket *buckets;        /* per-bucket timeline (malloc'd) */
  /* What the result is of, for printing and storing: */
  char workload[128];        /* workload name */
  size_t ngrads;             /* its gradients */
  uint64_t grad_bytes;       /* their bytes */
  int estimated;             /* 1: the workload's times are estimates */
  fu_compute_from compute_from; /* where its compute times come from (the workload's from) */
  char plan[704];            /* canonical plan string (fu_plan_string): room for its longest,
                                buckets: and a 511-byte path with every flag, so never cut */
  char comm[64];             /* communication target (fu_comm_string) */
  char profile[64];          /* profile name */
  char comm_basis[16];       /* how the collective was priced: "measured" (the profile's curve at
                                these ranks and nodes), "interpolated" or "predicted" (the cost model) */
  double comm_least_bytes;   /* a measured curve's smallest and largest sizes (0: not a measured */
  double comm_most_bytes;    /* curve, or unknown): buckets outside them are extrapolated */
  int layout_gpus;           /* GPUs a process of a job across nodes: the layout its measured
                                curve was taken at, or the cost model priced it at
                                (fu_coll_layout_us); 0: the job is on one node */
  int layout_given;          /* 1: the command named that layout (else one process per GPU, the
                                default, was assumed) */
  int nccl_version;          /* the NCCL (NCCL_VERSION_CODE) the cost model priced a job across
                                nodes for (fu_cluster.job_nccl_version); 0: unknown, or not priced
                                by the model across nodes */
  int nccl_source;           /* where that NCCL came from (fu_nccl_source; the command sets it) */
  int mem_checked;           /* 1: the command made the memory check (fu_result_mem) */
  int mem_fits;              /* 1 fits the GPU's memory, 0 does not, -1 unknown (fu_mem_check) */
  double mem_need_bytes;     /* PyTorch's tensors at the peak with the plan's buffers, what
                                max_memory_allocated reports (fu_mem_allocated; 0 unknown) */
  double mem_reserve_bytes;  /* the caching allocator's reserve beside them (fu_mem_need) */
  double mem_context_bytes;  /* the CUDA context */
  double mem_nccl_bytes;     /* NCCL's buffers */
  double mem_device_bytes;   /* their sum: what the GPU must hold, the fit's figure */
  double mem_over_bytes;     /* mem_device_bytes - the GPU's memory (> 0 when it does not fit) */
} fu_result;

/* Where the NCCL a job is priced for came from: --nccl-version, the profile's logs (its
 * nccl_version), or nowhere (unknown: the model's fastest line). */
typedef enum { FU_NCCL_UNKNOWN, FU_NCCL_GIVEN, FU_NCCL_PROFILE } fu_nccl_source;
/* "unknown", "given", "profile" (the JSON's nccl_source). */
const char *fu_nccl_source_name(int src);

void fu_result_finish(fu_result *r);  /* frees buckets; accepts a zeroed result */

/* Simulates one iteration with the buckets given, ascending by last gradient. A bucket holds the
 * gradients of its first gradient's element type within [first, last] of the ready order
 * (fu_bucket_has): with several dtypes its range spans other types' gradients, which it leaves
 * out. Bytes are recomputed from the workload. */
int fu_sim_predict_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                           const fu_profile *prof, const fu_bucket *buckets, size_t nbuckets,
                           fu_trace *trace, fu_result *out);

/* The nominal iteration time alone: the same graph as fu_sim_predict_buckets, run once (no
 * interval runs, no per-bucket results). What the plan search's polish compares candidates by. */
int fu_sim_iter_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                        const fu_profile *prof, const fu_bucket *buckets, size_t nbuckets,
                        double *iter_us);

/* When each gradient is ready in the same run, from the start of the communicating backward
 * (ready_us: one per gradient): the ready times as compute slowed beside communication and the
 * host's pace made them. */
int fu_sim_grad_ready(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                      const fu_profile *prof, const fu_bucket *buckets, size_t nbuckets,
                      double *ready_us);

#endif
