/* fu_predict.h: the prediction of one iteration (fu_sim_predict in fu_sim.h) split so that tests
 * and the plan search can hand in their own buckets, and the JSON form of a result that
 * `predict` prints and `plan` prints an array of.
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
 *    comm_hi_us); the prediction is monotone in operation times, so these bound it.
 *
 * Results: compute_us = accum_steps * (fwd + bwd) + opt; comm_us = sum of the operations'
 * simulated durations (pack, hand-off and unpack not included; a bucket's pack_us holds those);
 * exposed = iter - compute (>= 0); overlap_frac = 1 - exposed / (comm + pack + unpack),
 * clipped to [0, 1]; bus_util = sum of bytes * busbw_factor over sum of operation durations,
 * over the peak bus bandwidth of fu_cost.c (the best the fitted curve gives at any size for
 * that op, link and rank count, as charged, and at least its measured peak_busbw_gbps), so
 * that bus_util <= 1 by construction. */
#ifndef FU_PREDICT_H
#define FU_PREDICT_H

#include <stddef.h>

#include <jansson.h>

#include "fu_sim.h"

/* As fu_sim_predict, with the buckets given (contiguous ranges of the ready order, ascending by
 * last gradient; bytes are recomputed from the workload). */
int fu_sim_predict_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                           const fu_profile *prof, const fu_bucket *buckets, size_t nbuckets,
                           fu_trace *trace, fu_result *out);

/* The nominal iteration time alone: the same graph as fu_sim_predict_buckets, run once (no
 * interval runs, no per-bucket results). What the plan search's polish compares candidates by. */
int fu_sim_iter_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                        const fu_profile *prof, const fu_bucket *buckets, size_t nbuckets,
                        double *iter_us);

/* predict's JSON object: workload, plan, comm, profile, iter_us, iter_lo_us, iter_hi_us,
 * compute_us, comm_us, exposed_comm_us, overlap_frac, bus_util, n_ops, fusion_buffer_bytes,
 * sim_events, pack_us, buckets[] (index, first, last, tensors, bytes, ready_us, start_us,
 * end_us, pack_us, comm_us, busbw_gbps, last_tensor). New reference; NULL when out of memory. */
json_t *fu_result_to_json(const fu_result *r, const fu_workload *w, const fu_plan *p,
                          const fu_comm *c, const fu_profile *prof);

#endif
