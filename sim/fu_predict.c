/* fu_predict.c: compiles a workload under a fusion plan into engine tasks, runs it, and turns
 * the timeline into a result (see fu_predict.h for the model, in words). */
#include "fu_predict.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_cost.h"
#include "fu_engine.h"
#include "fu_trace.h"

/* What a task is, for the trace: tag = index * 32 + kind (kinds below 32; an int32 tag holds
 * indices below 2^26, far more gradients than a workload file can hold in memory). */
enum {
  FU__K_FWD = 1, FU__K_BWD, FU__K_SEG, FU__K_TAIL, FU__K_HOOK, FU__K_ISSUE, FU__K_PACK,
  FU__K_COMM, FU__K_UNPACK, FU__K_OPT, FU__K_HANDOFF,
  FU__K_FWCOPY,              /* framework kernel on gradient idx (ngrads: buckets copied back,
                                ngrads + 1: DDP's broadcast buffers copied back) */
  FU__K_FWHOST,              /* framework host work: idx 0 DDP's forward, 1 DDP's finalize */
  FU__K_WAIT,                /* the compute stream waits for every bucket */
  FU__K_GATE,                /* a segment cannot end before the host enqueued it */
  FU__K_FWDBWD               /* a host timeline's micro-batch idx before the last: forward and
                                backward as one host task and one GPU task */
};
/* op_which: every operation (collective or offload copy) at zero time, all else as it is; the
 * run that splits exposed_comm_us into the host's overhead and communication. */
#define FU__OPS_FREE 3
#define FU__TAG(kind, idx) ((int32_t)((idx) * 32 + (kind)))

typedef struct fu__bk {
  fu_op_cost cost;           /* fu_cost_model_bucket's numbers */
  double wire_us;            /* transfer part of comm_us at the curve's peak bus bandwidth */
  double wire_bytes;         /* bytes * busbw factor (for bus_util) */
  size_t ntensors;           /* gradients in the bucket */
  uint64_t bytes;            /* their bytes */
  size_t go;                 /* issued once gradient go is ready: its last, or an earlier bucket's
                                if later (buckets go in order, as DDP's mark_bucket_ready and one
                                host thread issue them; with one element type, its last) */
  uint32_t stream;           /* comm stream index */
  uint32_t t_issue;          /* host task that issues it */
  uint32_t t_first;          /* its first device task (pack or the operation) */
  uint32_t t_pack;           /* pack task or FU_TASK_NONE */
  uint32_t t_handoff;        /* pack -> operation hand-off task or FU_TASK_NONE */
  uint32_t t_comm;           /* the operation */
  uint32_t t_unpack;         /* unpack task or FU_TASK_NONE */
  uint32_t t_last;           /* its last device task */
} fu__bk;

typedef struct fu__sim {
  fu_engine e;               /* the driver */
  uint32_t lane_host;        /* host thread */
  uint32_t lane_hvd;         /* Horovod background thread (Horovod plans only) */
  uint32_t lane_compute;     /* compute stream */
  uint32_t lane_d2h;         /* device-to-host copy engine */
  uint32_t lane_h2d;         /* host-to-device copy engine */
  uint32_t *lane_comm;       /* communication streams (malloc'd) */
  int link_comm;             /* the link the operations run over */
  fu__bk *bk;                /* per bucket (malloc'd) */
  uint32_t *t_seg;           /* per gradient: the compute segment that makes it ready */
  uint32_t t_bwd0;           /* first task of the communicating backward */
  double *lq_end;            /* launch queue: per GPU task in launch order, the launches made up
                                to and including it (malloc'd) */
  uint32_t *lq_task;         /* that GPU task (malloc'd) */
  size_t lq_n, lq_cap;       /* entries used, allocated */
  fu_cost_model cm;          /* the prepared costs (the plan search reads the same) */
  int op_which;              /* a host timeline's run: the operations at 0 nominal, 1 low, 2 high
                                (the interval varies them on their own, fu__interval_v2) or
                                FU__OPS_FREE */
} fu__sim;

static void fu__sim_finish(fu__sim *s) {
  fu_engine_finish(&s->e);
  free(s->lane_comm);
  free(s->bk);
  free(s->t_seg);
  free(s->lq_end);
  free(s->lq_task);
}

static int fu__task(fu__sim *s, uint32_t lane, fu_task_class cls, double work, int32_t tag,
                    uint32_t *id) {
  fu_task_spec sp;
  fu_task_spec_init(&sp, lane);
  sp.cls = cls;
  sp.work_us = work > 0 ? work : 0;
  sp.tag = tag;
  return fu_engine_task_add(&s->e, &sp, id);
}

/* A compute task; when the host keeps pace with the device it waits for host work before it. */
static int fu__compute(fu__sim *s, double work, int32_t tag, uint32_t host_before, uint32_t *id) {
  FU_CHECK(fu__task(s, s->lane_compute, FU_TASK_COMPUTE, work, tag, id));
  if (host_before != FU_TASK_NONE) FU_CHECK(fu_engine_dep(&s->e, host_before, *id));
  return FU_OK;
}

/* Operation timing for one of the runs (0 nominal, 1 lo, 2 hi, FU__OPS_FREE zero). */
static void fu__op_times(const fu__bk *b, int which, double *latency, double *work) {
  double t = which == 1 ? b->cost.comm_lo_us : which == 2 ? b->cost.comm_hi_us
             : which == FU__OPS_FREE ? 0.0 : b->cost.comm_us;
  double w = b->wire_us < t ? b->wire_us : t;
  *latency = t - w;
  *work = w;
}

static int fu__graph_host(fu__sim *s, const fu_workload *w, const fu_plan *p, const fu_comm *c,
                          size_t nb, int which);

/* Every gradient in exactly one bucket (none: compute alone). O(sum of the buckets' ranges). */
static int fu__check_cover(const fu_workload *w, const fu_bucket *bks, size_t nb) {
  if (nb == 0) return FU_OK;
  size_t *owner = malloc((w->ngrads ? w->ngrads : 1) * sizeof *owner);
  if (!owner) return FU_ENOMEM;
  int st = FU_OK;
  for (size_t i = 0; i < w->ngrads; i++) owner[i] = nb;
  for (size_t k = 0; k < nb && st == FU_OK; k++) {
    if (bks[k].first > bks[k].last || bks[k].last >= w->ngrads) {
      fu_error("plan: bucket %zu [%zu, %zu] is outside the %zu gradients", k, bks[k].first,
               bks[k].last, w->ngrads);
      st = FU_EINTERNAL;
    }
    for (size_t i = bks[k].first; st == FU_OK && i <= bks[k].last; i++) {
      if (!fu_bucket_has(w, &bks[k], i)) continue;
      if (owner[i] < nb) {
        fu_error("plan: gradient %zu is in buckets %zu and %zu", i, owner[i], k);
        st = FU_EINTERNAL;
      }
      owner[i] = k;
    }
  }
  for (size_t i = 0; i < w->ngrads && st == FU_OK; i++)
    if (owner[i] == nb) {
      fu_error("plan: gradient %zu (%s) is in no bucket", i, w->grads[i].name);
      st = FU_EINTERNAL;
    }
  free(owner);
  return st;
}

/* Bucket k's issue (work_us of host time): on Horovod's background thread, on the cycle grid
 * counted from backward's start (s->t_bwd0), or on the host thread. */
static void fu__issue_spec(const fu__sim *s, const fu_plan *p, int horovod, size_t k, double work_us,
                           fu_task_spec *sp) {
  fu_task_spec_init(sp, horovod ? s->lane_hvd : s->lane_host);
  sp->work_us = work_us;
  sp->tag = FU__TAG(FU__K_ISSUE, k);
  if (horovod && p->cycle_us > 0) {
    sp->align_us = p->cycle_us;
    sp->align_origin = s->t_bwd0;
  }
}

static int fu__build(fu__sim *s, const fu_workload *w, const fu_plan *p, const fu_comm *c,
                     const fu_profile *prof, const fu_bucket *bks, size_t nb, int which) {
  int offload = c->kind == FU_COMM_OFFLOAD;
  int nstreams = p->comm_streams >= 1 ? p->comm_streams : 1;
  int horovod = p->kind == FU_FUSION_HOROVOD;
  int lb = w->hook_us > 0 || w->issue_us > 0; /* launch-bound: host keeps pace with device */
  fu_engine *e = &s->e;
  FU_CHECK(fu_engine_init(e));
  /* compute beside a D2H: the model's own, where its host block measured it */
  const fu_host *hb = &w->host;
  int v2 = hb->version == FU_HOST_VERSION;
  fu_engine_set_slowdown(e, prof->comm_slowdown,
                         v2 && hb->d2h_compute > 0 ? hb->d2h_compute : prof->copy_slowdown);
  FU_CHECK(fu_engine_lane_add(e, "host thread", &s->lane_host));
  FU_CHECK(fu_engine_lane_add(e, "compute stream", &s->lane_compute));
  s->lane_comm = malloc((size_t)nstreams * sizeof *s->lane_comm);
  s->bk = calloc(nb ? nb : 1, sizeof *s->bk);
  s->t_seg = malloc((w->ngrads ? w->ngrads : 1) * sizeof *s->t_seg);
  if (!s->lane_comm || !s->bk || !s->t_seg) return FU_ENOMEM;
  for (int k = 0; k < nstreams; k++) {
    char name[48];
    snprintf(name, sizeof name, "comm stream %d", k);
    FU_CHECK(fu_engine_lane_add(e, name, &s->lane_comm[k]));
  }
  FU_CHECK(fu_engine_lane_add(e, "D2H copy engine", &s->lane_d2h));
  FU_CHECK(fu_engine_lane_add(e, "H2D copy engine", &s->lane_h2d));
  s->lane_hvd = FU_TASK_NONE;
  if (horovod) FU_CHECK(fu_engine_lane_add(e, "horovod background thread", &s->lane_hvd));
  int l_h2d, l_d2h;
  FU_CHECK(fu_engine_link_add(e, "pcie_h2d", &l_h2d));
  FU_CHECK(fu_engine_link_add(e, "pcie_d2h", &l_d2h));
  double duplex = prof->duplex_factor > 0 && prof->duplex_factor <= 1 ? prof->duplex_factor : 1;
  FU_CHECK(fu_engine_link_pair(e, l_h2d, l_d2h, duplex));
  if (offload) s->link_comm = l_d2h;
  else FU_CHECK(fu_engine_link_add(e, fu_link_name(c->link), &s->link_comm));

  /* Costs per bucket, and the wire part of each operation: its bus bytes at the peak bus
   * bandwidth of the operation as charged (fu_cost.c), so never more than its time. */
  FU_CHECK(fu_cost_model_init(&s->cm, prof, c, p));
  double peak = s->cm.peak_gbps, factor = s->cm.busbw_factor;
  FU_CHECK(fu__check_cover(w, bks, nb));
  for (size_t k = 0; k < nb; k++) {
    fu__bk *b = &s->bk[k];
    fu_bucket_sum(w, &bks[k], &b->ntensors, &b->bytes);
    b->go = k && s->bk[k - 1].go > bks[k].last ? s->bk[k - 1].go : bks[k].last;
    FU_CHECK(fu_cost_model_bucket(&s->cm, b->bytes, b->ntensors, &b->cost));
    b->wire_bytes = (double)b->bytes * factor;
    b->wire_us = peak > 0 ? b->wire_bytes / (peak * 1e3) : 0.0;
    b->stream = (uint32_t)(k % (size_t)nstreams);
  }

  if (w->host.version == FU_HOST_VERSION) return fu__graph_host(s, w, p, c, nb, which);
  if (p->framework != FU_FRAMEWORK_IDEAL) {
    fu_error("%s: no measured host costs for framework %s (a host block of version %d, as "
             "tools/capture_torch.py writes)", w->source[0] ? w->source : w->name,
             p->framework == FU_FRAMEWORK_DDP ? "ddp" : "hooks", FU_HOST_VERSION);
    return FU_EDATA;
  }

  /* Micro-batches before the last: no communication. */
  uint32_t id, host_last = FU_TASK_NONE;
  int K = w->accum_steps > 0 ? w->accum_steps : 1;
  /* At most: per micro-batch 2 computes; per gradient a segment and a hook (each after one
   * task); per bucket issue, pack, hand-off, operation and unpack with 8 edges; tail, optimizer. */
  FU_CHECK(fu_engine_reserve(e, 2 * (size_t)K + 2 * w->ngrads + 5 * nb + 2,
                             2 * w->ngrads + 8 * nb + (size_t)K + 4));
  for (int m = 0; m < K - 1; m++) {
    FU_CHECK(fu__compute(s, w->fwd_us, FU__TAG(FU__K_FWD, m), FU_TASK_NONE, &id));
    FU_CHECK(fu__compute(s, w->bwd_us, FU__TAG(FU__K_BWD, m), FU_TASK_NONE, &id));
  }
  FU_CHECK(fu__compute(s, w->fwd_us, FU__TAG(FU__K_FWD, K - 1), FU_TASK_NONE, &id));

  /* The communicating backward, gradient by gradient. */
  double prev = 0.0;
  size_t next_bk = 0;
  uint32_t t_bwd_end = FU_TASK_NONE;
  for (size_t i = 0; i < w->ngrads; i++) {
    double r = w->grads[i].ready_us;
    FU_CHECK(fu__compute(s, r - prev, FU__TAG(FU__K_SEG, i), lb ? host_last : FU_TASK_NONE,
                         &s->t_seg[i]));
    if (r > prev) prev = r;
    if (i == 0) s->t_bwd0 = s->t_seg[0];
    t_bwd_end = s->t_seg[i];
    if (w->hook_us > 0) {
      FU_CHECK(fu__task(s, s->lane_host, FU_TASK_PLAIN, w->hook_us, FU__TAG(FU__K_HOOK, i), &id));
      FU_CHECK(fu_engine_dep(e, s->t_seg[i], id));
      host_last = id;
    }
    while (p->overlap && next_bk < nb && s->bk[next_bk].go == i) {
      fu__bk *b = &s->bk[next_bk];
      fu_task_spec sp;
      fu__issue_spec(s, p, horovod, next_bk, b->cost.issue_us + w->issue_us, &sp);
      FU_CHECK(fu_engine_task_add(e, &sp, &b->t_issue));
      FU_CHECK(fu_engine_dep(e, s->t_seg[i], b->t_issue));
      if (!horovod) host_last = b->t_issue;
      next_bk++;
    }
  }
  if (w->bwd_us > prev || w->ngrads == 0) {
    FU_CHECK(fu__compute(s, w->bwd_us - prev, FU__TAG(FU__K_TAIL, 0), lb ? host_last : FU_TASK_NONE,
                         &t_bwd_end));
  }
  for (; next_bk < nb; next_bk++) { /* overlap off: issue once backward has ended */
    fu__bk *b = &s->bk[next_bk];
    FU_CHECK(fu__task(s, s->lane_host, FU_TASK_PLAIN, b->cost.issue_us + w->issue_us,
                      FU__TAG(FU__K_ISSUE, next_bk), &b->t_issue));
    FU_CHECK(fu_engine_dep(e, t_bwd_end, b->t_issue));
    host_last = b->t_issue;
  }

  /* Device side of each bucket: pack -> operation -> unpack on its stream; a packed bucket's
   * hand-off runs on the operation's own executor (the D2H copy engine for offload, which
   * serves every stream's copies in the order they were issued), just before the operation. */
  uint32_t *stream_last = malloc((size_t)nstreams * sizeof *stream_last);
  if (!stream_last) return FU_ENOMEM;
  for (int k = 0; k < nstreams; k++) stream_last[k] = FU_TASK_NONE;
  int st = FU_OK;
  for (size_t k = 0; k < nb && st == FU_OK; k++) {
    fu__bk *b = &s->bk[k];
    uint32_t lane = s->lane_comm[b->stream];
    uint32_t ready = p->overlap ? s->t_seg[b->go] : t_bwd_end;
    uint32_t op_lane = offload ? s->lane_d2h : lane, before = FU_TASK_NONE;
    b->t_pack = b->t_handoff = b->t_unpack = FU_TASK_NONE;
    if (b->cost.pack_us > 0) {
      if ((st = fu__task(s, lane, FU_TASK_PLAIN, b->cost.pack_us, FU__TAG(FU__K_PACK, k),
                         &b->t_pack)) != FU_OK)
        break;
      before = b->t_pack;
    }
    if (b->cost.handoff_us > 0) {
      if ((st = fu__task(s, op_lane, FU_TASK_PLAIN, b->cost.handoff_us, FU__TAG(FU__K_HANDOFF, k),
                         &b->t_handoff)) != FU_OK)
        break;
      if (before != FU_TASK_NONE && (st = fu_engine_dep(e, before, b->t_handoff)) != FU_OK) break;
      before = b->t_handoff;
    }
    fu_task_spec sp;
    fu_task_spec_init(&sp, op_lane);
    sp.cls = offload ? FU_TASK_COPY : FU_TASK_NCCL;
    sp.link = s->link_comm;
    fu__op_times(b, 0, &sp.latency_us, &sp.work_us);
    sp.tag = FU__TAG(FU__K_COMM, k);
    if ((st = fu_engine_task_add(e, &sp, &b->t_comm)) != FU_OK) break;
    if (before != FU_TASK_NONE) st = fu_engine_dep(e, before, b->t_comm);
    if (st == FU_OK && b->cost.unpack_us > 0)
      st = fu__task(s, lane, FU_TASK_PLAIN, b->cost.unpack_us, FU__TAG(FU__K_UNPACK, k),
                    &b->t_unpack);
    if (st != FU_OK) break;
    b->t_first = b->t_pack != FU_TASK_NONE ? b->t_pack
                 : b->t_handoff != FU_TASK_NONE ? b->t_handoff : b->t_comm;
    b->t_last = b->t_unpack != FU_TASK_NONE ? b->t_unpack : b->t_comm;
    /* The first device task waits for the gradients and the host's issue; a task on the
     * stream's lane follows its predecessor there anyway, one on a copy engine needs the edge. */
    if ((st = fu_engine_dep(e, b->t_issue, b->t_first)) != FU_OK) break;
    if ((st = fu_engine_dep(e, ready, b->t_first)) != FU_OK) break;
    uint32_t sl = stream_last[b->stream];
    if (sl != FU_TASK_NONE && e->tasks[sl].lane != e->tasks[b->t_first].lane)
      st = fu_engine_dep(e, sl, b->t_first);
    if (st == FU_OK && b->t_unpack != FU_TASK_NONE && offload)
      st = fu_engine_dep(e, b->t_comm, b->t_unpack);
    stream_last[b->stream] = b->t_last;
  }
  free(stream_last);
  FU_CHECK(st);

  /* The optimizer step once every bucket has ended. */
  FU_CHECK(fu__compute(s, w->opt_us, FU__TAG(FU__K_OPT, 0), lb ? host_last : FU_TASK_NONE, &id));
  FU_CHECK(fu_engine_dep(e, t_bwd_end, id));
  for (size_t k = 0; k < nb; k++) FU_CHECK(fu_engine_dep(e, s->bk[k].t_last, id));
  return FU_OK;
}

/* ---- the host timeline (workloads with a version-2 host block) -----------------------------
 * Two timelines. The host thread enqueues the step along the captured CPU timeline (forward
 * points, then backward's gradients in the order their hooks fired, then the optimizer) and pays
 * the framework's costs where they fall; the compute stream runs the GPU-only time of each
 * segment, and a segment cannot start before the host has enqueued it (its host segment ended).
 * With segments as fine as the gradients, this lags the host by at most one segment's GPU time.
 * Framework costs (fu_host.h), charged in order:
 *   ddp   before each micro-batch's forward: forward_us + (with buffers) broadcast_us + buffers x
 *         buffer_us (the broadcast's fixed part and its share per buffer), then on the compute
 *         stream one kernel per buffer (the broadcast copied back); per gradient: param_us
 *         (+ copy_us / 2 in copy mode) and a kernel on the compute stream over its bytes (the
 *         copy into the bucket, or with bucket views and the default all-reduce the in-place
 *         division by the world size; none with views and a comm hook); per bucket, after
 *         the hook that fills it: bucket_us (default all-reduce) or hook_bucket_us (Python comm
 *         hook: offload); after backward's enqueue: finalize_us (+ copy_us / 2 per gradient),
 *         the compute stream waits for every bucket; in copy mode bucket by bucket, each copied
 *         back once its own work has ended (DDP's finalize_backward order);
 *   hooks per gradient: hook_us (noop_hook_us with --pack view) and a device copy into the fusion
 *         buffer; per bucket: bucket_us when it fills (overlap on) or after backward (off); the
 *         compute stream waits for every bucket before the optimizer; after a collective (not an
 *         offload) in copy mode, each bucket is copied back into its gradients as DDP's are;
 *   ideal no framework cost: each bucket is issued at the cost model's issue cost (pack and
 *         unpack as the cost model prices them), when its last gradient is ready.
 * With host.issue_spacing, a bucket of the hook pattern, of DDP's offload hook or of DDP's
 * default all-reduce issued from inside backward costs what its curve gives at backward's own
 * host work since the previous issue inside backward: the issue is dearer the farther apart
 * (its calls find their data evicted from the CPU caches by that work, tools/issue_probe.py).
 * The first issue of a step is priced at the curve's far end: the previous issue was in the
 * previous step, a forward and more ago. The curve is read less its anchor
 * (fu__spacing_anchor), so that a bucket per gradient costs on average the per-bucket cost
 * measured that way. DDP's default all-reduce priced by its own curve
 * (host.issue_spacing.ddp) is the exception to the first issue: it keeps ddp.bucket_us, because
 * DDP's finalize_us, measured with one bucket for all gradients, holds a step's one far-apart
 * bucket call already.
 * A framework kernel takes its bytes at copy_gbps (read and write) plus kernel_us, the GPU time of
 * one small kernel (measured by tools/torch_fwcal.py; 0 in older blocks).
 * Compute kernels beside a transfer into host memory (an offload in flight) take
 * host.beside_d2h.compute times as long: the model's own, measured at capture (without it, the
 * profile's copy_slowdown).
 * The launch queue (host.queue_depth D > 0, with host.launches per phase): the host blocks when
 * D launches are pending behind the one the GPU runs (tools/torch_launchq.py: behind a running
 * sleep kernel the 1022nd copy blocks), so a host task whose first launch is n cannot start
 * before the GPU task holding launch n - D - 1 has finished. A phase's launches are spread over
 * its host segments by their share of the phase's CPU time; every framework kernel, bucket
 * operation, pack and unpack is one launch more. The GPU tasks are as coarse as the host's
 * segments (a gradient's), so the wait is for that task's end, not the launch's own.
 * which = 0 is the nominal run; 1 (low) and 2 (high) scale GPU work by the step's measured
 * spread and the host's own work by backward()'s, the framework costs above by their
 * microbenchmark's (jitter.fw_rel) after taking each at its bound where the block gives them
 * (host.ci); the operations take s->op_which's CI bound. fu__interval_v2 sets one source at a
 * time to its bounds (the others at their values) and combines the runs. */
typedef struct fu__hg {
  fu__sim *s;                /* the simulation being built */
  double fh;                 /* host time factor of this run */
  double ff;                 /* framework host cost factor of this run */
  double fg;                 /* GPU time factor of this run */
  uint32_t prev;             /* the host task before the last one (FU_TASK_NONE: none) */
  uint32_t last;             /* the last host task added */
  int depth;                 /* launch queue depth (0: the host is not bounded) */
  double nl;                 /* launches made so far */
  double sh_hooks, sh_off, sh_ddp; /* the issue-spacing curves' anchors (fu__spacing_anchor) */
  uint32_t seg;              /* the compute task of the last segment (fu__hg_seg) */
} fu__hg;

/* Host task `host` makes n launches whose work is GPU task `gpu`: it cannot start before the
 * task holding launch (its first - depth - 1) has finished; the launches join the queue.
 * O(log tasks) for the look-up (launch counts only grow along the entries). */
static int fu__hg_launch(fu__hg *g, uint32_t host, uint32_t gpu, double n) {
  fu__sim *s = g->s;
  if (g->depth <= 0 || n <= 0) return FU_OK;
  double need = g->nl - g->depth; /* (nl + 1) - depth - 1 */
  if (need > 0 && s->lq_n > 0) {
    size_t lo = 0, hi = s->lq_n - 1;
    while (lo < hi) { /* the first entry whose launches reach `need` */
      size_t mid = (lo + hi) / 2;
      if (s->lq_end[mid] >= need) hi = mid; else lo = mid + 1;
    }
    /* Only a GPU task made before the host task can hold it back: one made after it was
     * enqueued by it or later (DDP's finalize enqueues every bucket's copy back from one host
     * task), and waiting for it would close a cycle. */
    if (s->lq_task[lo] < host) FU_CHECK(fu_engine_dep(&s->e, s->lq_task[lo], host));
  }
  if (s->lq_n == s->lq_cap) {
    size_t cap = s->lq_cap ? 2 * s->lq_cap : 256;
    double *le = realloc(s->lq_end, cap * sizeof *le);
    if (!le) return FU_ENOMEM;
    s->lq_end = le;
    uint32_t *lt = realloc(s->lq_task, cap * sizeof *lt);
    if (!lt) return FU_ENOMEM;
    s->lq_task = lt;
    s->lq_cap = cap;
  }
  g->nl += n;
  s->lq_end[s->lq_n] = g->nl;
  s->lq_task[s->lq_n++] = gpu;
  return FU_OK;
}

/* n of a phase's `total` launches for a host segment of `part` of the phase's `whole` CPU time. */
static double fu__share(double total, double part, double whole) {
  return whole > 0 ? total * part / whole : 0;
}

/* A host task of us at this run's factor f (g->fh for the host's own work, g->ff for a
 * framework cost). */
static int fu__hg_hostf(fu__hg *g, double us, double f, int kind, size_t idx, uint32_t *id) {
  FU_CHECK(fu__task(g->s, g->s->lane_host, FU_TASK_PLAIN, us * f, FU__TAG(kind, idx), id));
  g->prev = g->last;
  g->last = *id;
  return FU_OK;
}

static int fu__hg_host(fu__hg *g, double us, int kind, size_t idx, uint32_t *id) {
  return fu__hg_hostf(g, us, g->fh, kind, idx, id);
}

static int fu__hg_fw(fu__hg *g, double us, int kind, size_t idx, uint32_t *id) {
  return fu__hg_hostf(g, us, g->ff, kind, idx, id);
}

/* An issue-spacing curve at `apart` us of backward's own host work since the previous issue:
 * interpolated between its points, the end's value beyond either end. */
static double fu__spacing_at(const fu_host_spacing *sp, double apart) {
  if (apart <= sp->apart_us[0]) return sp->us[0];
  for (size_t i = 1; i < sp->n; i++)
    if (apart <= sp->apart_us[i])
      return sp->us[i - 1] + (sp->us[i] - sp->us[i - 1]) * (apart - sp->apart_us[i - 1]) /
                                 (sp->apart_us[i] - sp->apart_us[i - 1]);
  return sp->us[sp->n - 1];
}

/* How far a curve's per-tensor reading over this workload lies above its first point: the mean,
 * over the gradients after the first, of the curve at backward's own host work since the one
 * before, less the first point's cost. The first point is the per-bucket cost measured with one
 * bucket per gradient, an average over issues whose spacings spread around it; read issue by
 * issue, the curve charges the far ones more and clamps the near ones at that average, so
 * without this shift a bucket per gradient would cost more than was measured for it. */
static double fu__spacing_anchor(const fu_host_spacing *sp, const fu_workload *w) {
  if (!sp->n || w->ngrads < 2) return 0;
  double sum = 0, pc = w->grads[0].cpu_us;
  for (size_t i = 1; i < w->ngrads; i++) {
    double cc = w->grads[i].cpu_us > pc ? w->grads[i].cpu_us : pc;
    sum += fu__spacing_at(sp, cc - pc);
    pc = cc;
  }
  return sum / (double)(w->ngrads - 1) - sp->us[0];
}

/* The host issue of bucket k: the framework's call, or the cost model's issue (ideal). apart:
 * backward's own host work since the previous issue for an issue from inside backward (< 0:
 * after backward), where the block's issue-spacing curve (host.issue_spacing) prices it. */
static int fu__hg_issue(fu__hg *g, const fu_host *h, fu_framework fw, const fu_comm *c, size_t k,
                        double apart, uint32_t *id) {
  if (fw == FU_FRAMEWORK_IDEAL)
    return fu__hg_host(g, g->s->bk[k].cost.issue_us, FU__K_ISSUE, k, id);
  double us = fw == FU_FRAMEWORK_HOOKS         ? h->hooks.bucket_us
              : c->kind == FU_COMM_OFFLOAD ? h->ddp.hook_bucket_us /* Python comm hook */
                                           : h->ddp.bucket_us;
  if (apart >= 0 && fw == FU_FRAMEWORK_HOOKS && h->sp_hooks.n)
    us = fu__spacing_at(&h->sp_hooks, apart) - g->sh_hooks;
  else if (apart >= 0 && fw == FU_FRAMEWORK_DDP && c->kind == FU_COMM_OFFLOAD && h->sp_offload.n)
    us = h->ddp.bucket_us + fu__spacing_at(&h->sp_offload, apart) - g->sh_off;
  else if (apart >= 0 && !isinf(apart) && fw == FU_FRAMEWORK_DDP && c->kind != FU_COMM_OFFLOAD &&
           h->sp_ddp.n)
    us = fu__spacing_at(&h->sp_ddp, apart) - g->sh_ddp;
  if (us < 0) us = 0;
  return fu__hg_fw(g, us, FU__K_ISSUE, k, id);
}

/* Horovod (overlap on): bucket k is issued by the background thread, not the host thread, on
 * the cycle grid counted from the start of backward (as the graph without a host timeline
 * does), once its last gradient is ready and its hook has run on the host. The host thread
 * goes on meanwhile. */
static int fu__hg_issue_hvd(fu__hg *g, const fu_plan *p, size_t k, uint32_t ready,
                            uint32_t *id) {
  fu__sim *s = g->s;
  fu_task_spec sp;
  fu__issue_spec(s, p, 1, k, s->bk[k].cost.issue_us * g->fh, &sp);
  FU_CHECK(fu_engine_task_add(&s->e, &sp, id));
  FU_CHECK(fu_engine_dep(&s->e, ready, *id));
  if (g->last != FU_TASK_NONE) FU_CHECK(fu_engine_dep(&s->e, g->last, *id));
  return FU_OK;
}

/* n kernels (copies; 0: a stream wait) as one task that host task `host` launched at its end. */
static int fu__hg_gpu(fu__hg *g, double us, int kind, size_t idx, uint32_t host, double n,
                      uint32_t *id) {
  FU_CHECK(fu__task(g->s, g->s->lane_compute, FU_TASK_COMPUTE, us * g->fg, FU__TAG(kind, idx), id));
  if (host != FU_TASK_NONE) FU_CHECK(fu_engine_dep(&g->s->e, host, *id));
  return host != FU_TASK_NONE ? fu__hg_launch(g, host, *id, n) : FU_OK;
}

/* DDP's forward, every micro-batch (under no_sync too, which skips only the gradients' sync):
 * pre-forward, the buffers' broadcast and prepare on the host, then one kernel per buffer on the
 * compute stream (the broadcast copied back). */
static int fu__hg_ddp_forward(fu__hg *g, const fu_host *h, double kus, size_t ngrads) {
  uint32_t hid, gid;
  FU_CHECK(fu__hg_fw(g,
                     h->ddp.forward_us +
                         (h->buffers > 0 ? h->ddp.broadcast_us + h->buffers * h->ddp.buffer_us : 0),
                     FU__K_FWHOST, 0, &hid));
  if (h->buffers > 0 && kus > 0)
    FU_CHECK(fu__hg_gpu(g, h->buffers * kus, FU__K_FWCOPY, ngrads + 1, hid, h->buffers, &gid));
  return FU_OK;
}

/* The GPU side of the segment the last host task enqueued (n launches): its kernels go out while
 * that task runs, so they may start when it starts (the host task before it ended), but the
 * segment ends no earlier than its enqueue did (a zero-length gate on the stream after it).
 * *id: the gate. */
static int fu__hg_seg(fu__hg *g, double us, double n, int kind, size_t idx, uint32_t *id) {
  uint32_t k;
  FU_CHECK(fu__task(g->s, g->s->lane_compute, FU_TASK_COMPUTE, us * g->fg, FU__TAG(kind, idx), &k));
  g->seg = k;
  if (g->prev != FU_TASK_NONE) FU_CHECK(fu_engine_dep(&g->s->e, g->prev, k));
  FU_CHECK(fu__hg_launch(g, g->last, k, n));
  FU_CHECK(fu__task(g->s, g->s->lane_compute, FU_TASK_PLAIN, 0, FU__TAG(FU__K_GATE, idx), id));
  return fu_engine_dep(&g->s->e, g->last, *id);
}

/* The device side of bucket k: [pack ->] operation [-> unpack], after `issue` and `ready`. */
static int fu__hg_bucket(fu__hg *g, const fu_comm *c, size_t k, int packs,
                         uint32_t issue, uint32_t ready, uint32_t *stream_last, int which) {
  fu__sim *s = g->s;
  fu_engine *e = &s->e;
  fu__bk *b = &s->bk[k];
  int offload = c->kind == FU_COMM_OFFLOAD;
  uint32_t lane = s->lane_comm[b->stream], op_lane = offload ? s->lane_d2h : lane;
  uint32_t before = FU_TASK_NONE;
  b->t_pack = b->t_handoff = b->t_unpack = FU_TASK_NONE;
  if (packs && b->cost.pack_us > 0) {
    FU_CHECK(fu__task(s, lane, FU_TASK_PLAIN, b->cost.pack_us * g->fg, FU__TAG(FU__K_PACK, k),
                      &b->t_pack));
    before = b->t_pack;
  }
  if (packs && b->cost.handoff_us > 0) {
    FU_CHECK(fu__task(s, op_lane, FU_TASK_PLAIN, b->cost.handoff_us, FU__TAG(FU__K_HANDOFF, k),
                      &b->t_handoff));
    if (before != FU_TASK_NONE) FU_CHECK(fu_engine_dep(e, before, b->t_handoff));
    before = b->t_handoff;
  }
  fu_task_spec sp;
  fu_task_spec_init(&sp, op_lane);
  sp.cls = offload ? FU_TASK_COPY : FU_TASK_NCCL;
  sp.link = s->link_comm;
  fu__op_times(b, which, &sp.latency_us, &sp.work_us);
  sp.tag = FU__TAG(FU__K_COMM, k);
  FU_CHECK(fu_engine_task_add(e, &sp, &b->t_comm));
  if (before != FU_TASK_NONE) FU_CHECK(fu_engine_dep(e, before, b->t_comm));
  if (packs && b->cost.unpack_us > 0) {
    FU_CHECK(fu__task(s, lane, FU_TASK_PLAIN, b->cost.unpack_us * g->fg,
                      FU__TAG(FU__K_UNPACK, k), &b->t_unpack));
    if (offload) FU_CHECK(fu_engine_dep(e, b->t_comm, b->t_unpack));
  }
  b->t_issue = issue;
  b->t_first = b->t_pack != FU_TASK_NONE ? b->t_pack
               : b->t_handoff != FU_TASK_NONE ? b->t_handoff : b->t_comm;
  b->t_last = b->t_unpack != FU_TASK_NONE ? b->t_unpack : b->t_comm;
  FU_CHECK(fu_engine_dep(e, issue, b->t_first));
  FU_CHECK(fu_engine_dep(e, ready, b->t_first));
  FU_CHECK(fu__hg_launch(g, issue, b->t_comm, 1.0 + (b->t_pack != FU_TASK_NONE) +
                                                   (b->t_unpack != FU_TASK_NONE)));
  uint32_t sl = stream_last[b->stream];
  if (sl != FU_TASK_NONE && e->tasks[sl].lane != e->tasks[b->t_first].lane)
    FU_CHECK(fu_engine_dep(e, sl, b->t_first));
  stream_last[b->stream] = b->t_last;
  return FU_OK;
}

static int fu__graph_host(fu__sim *s, const fu_workload *w, const fu_plan *p, const fu_comm *c,
                          size_t nb, int which) {
  const fu_host *h = &w->host;
  fu_host at; /* the interval's runs: the frameworks' costs at their bounds (host.ci) */
  if (which && h->has_ci) {
    at = *h; /* a shallow copy: it only lives while this graph is built */
    at.ddp = which == 1 ? h->ddp_lo : h->ddp_hi;
    at.hooks = which == 1 ? h->hooks_lo : h->hooks_hi;
    h = &at;
  }
  fu_engine *e = &s->e;
  fu_framework fw = p->framework;
  if ((fw == FU_FRAMEWORK_DDP && !h->has_ddp) || (fw == FU_FRAMEWORK_HOOKS && !h->has_hooks)) {
    fu_error("%s: the host block holds no measured costs for framework %s",
             w->source[0] ? w->source : w->name, fw == FU_FRAMEWORK_DDP ? "ddp" : "hooks");
    return FU_EDATA;
  }
  fu__hg g = {s, 1.0, 1.0, 1.0, FU_TASK_NONE, FU_TASK_NONE, h->queue_depth, 0,
              fu__spacing_anchor(&h->sp_hooks, w), fu__spacing_anchor(&h->sp_offload, w),
              fu__spacing_anchor(&h->sp_ddp, w), FU_TASK_NONE};
  int hvd = p->kind == FU_FUSION_HOROVOD && s->lane_hvd != FU_TASK_NONE;
  s->lq_n = 0;
  if (which == 1) g.fh += h->host_rel_lo, g.ff += h->fw_rel_lo, g.fg += h->step_rel_lo;
  if (which == 2) g.fh += h->host_rel_hi, g.ff += h->fw_rel_hi, g.fg += h->step_rel_hi;
  int copy = !p->pack_view && fw != FU_FRAMEWORK_IDEAL;    /* framework copies gradients */
  double gbps = h->copy_gbps > 0 ? h->copy_gbps : 0, kus = h->kernel_us;
  /* a kernel per gradient: a copy, or DDP's in-place division of a bucket view (Reducer's
   * mark_variable_ready_dense: div_ by the world size unless a comm hook is registered) */
  int pass = copy || (fw == FU_FRAMEWORK_DDP && c->kind != FU_COMM_OFFLOAD && gbps > 0);
  if (copy && gbps <= 0) {
    fu_error("%s: host.copy_gbps: missing (framework %s copies every gradient)",
             w->source[0] ? w->source : w->name, fw == FU_FRAMEWORK_DDP ? "ddp" : "hooks");
    return FU_EDATA;
  }
  uint32_t hid, gid = FU_TASK_NONE;
  int K = w->accum_steps > 0 ? w->accum_steps : 1;
  for (int m = 0; m < K - 1; m++) { /* micro-batches before the last: no communication */
    if (fw == FU_FRAMEWORK_DDP) FU_CHECK(fu__hg_ddp_forward(&g, h, kus, w->ngrads));
    FU_CHECK(fu__hg_host(&g, h->fwd_cpu_us + h->bwd_cpu_us, FU__K_FWDBWD, (size_t)m, &hid));
    FU_CHECK(fu__hg_seg(&g, h->fwd_gpu_us + h->bwd_gpu_us, h->launches_fwd + h->launches_bwd,
                        FU__K_FWDBWD, (size_t)m, &gid));
  }
  if (fw == FU_FRAMEWORK_DDP) FU_CHECK(fu__hg_ddp_forward(&g, h, kus, w->ngrads));
  /* Forward, point by point (times kept non-decreasing). */
  double pc = 0, pg = 0;
  for (size_t k = 0; k <= h->nfwd; k++) {
    double cc = k < h->nfwd ? h->fwd_cpu[k] : h->fwd_cpu_us;
    double cg = k < h->nfwd ? h->fwd_gpu[k] : h->fwd_gpu_us;
    if (cc < pc) cc = pc;
    if (cg < pg) cg = pg;
    FU_CHECK(fu__hg_host(&g, cc - pc, FU__K_FWD, K - 1, &hid));
    FU_CHECK(fu__hg_seg(&g, cg - pg, fu__share(h->launches_fwd, cc - pc, h->fwd_cpu_us), FU__K_FWD,
                        K - 1, &gid));
    pc = cc;
    pg = cg;
  }
  /* Backward, gradient by gradient; buckets are issued as they fill (overlap on). */
  uint32_t *stream_last = malloc((size_t)(p->comm_streams >= 1 ? p->comm_streams : 1) *
                                 sizeof *stream_last);
  if (!stream_last) return FU_ENOMEM;
  for (int k = 0; k < (p->comm_streams >= 1 ? p->comm_streams : 1); k++)
    stream_last[k] = FU_TASK_NONE;
  int st = FU_OK;
  size_t next = 0;
  pc = pg = 0;
  double apart = HUGE_VAL; /* backward's own host work since the last issue (none yet: far) */
  for (size_t i = 0; i < w->ngrads && st == FU_OK; i++) {
    const fu_grad *gr = &w->grads[i];
    double cc = gr->cpu_us > pc ? gr->cpu_us : pc, cg = gr->gpu_us > pg ? gr->gpu_us : pg;
    apart += cc - pc;
    if ((st = fu__hg_host(&g, cc - pc, FU__K_SEG, i, &hid)) != FU_OK) break;
    if ((st = fu__hg_seg(&g, cg - pg, fu__share(h->launches_bwd, cc - pc, h->bwd_cpu_us),
                         FU__K_SEG, i, &s->t_seg[i])) != FU_OK)
      break;
    if (i == 0) s->t_bwd0 = g.seg; /* backward's start on the GPU, not gradient 0's ready */
    pc = cc;
    pg = cg;
    uint32_t ready = s->t_seg[i];
    double hook = fw == FU_FRAMEWORK_DDP
                      ? h->ddp.param_us + (copy ? h->ddp.copy_us / 2 : 0)
                      : fw == FU_FRAMEWORK_HOOKS ? (copy ? h->hooks.hook_us : h->hooks.noop_hook_us)
                                                 : 0;
    if (hook > 0 && (st = fu__hg_fw(&g, hook, FU__K_HOOK, i, &hid)) != FU_OK) break;
    if (pass && (st = fu__hg_gpu(&g, (double)gr->bytes / gbps / 1e3 + kus, FU__K_FWCOPY, i, hid,
                                 1, &ready)) != FU_OK)
      break;
    while (p->overlap && next < nb && s->bk[next].go == i && st == FU_OK) {
      if (hvd) {
        if ((st = fu__hg_issue_hvd(&g, p, next, ready, &hid)) != FU_OK) break;
      } else {
        if ((st = fu__hg_issue(&g, h, fw, c, next, apart, &hid)) != FU_OK) break;
        apart = 0;
      }
      st = fu__hg_bucket(&g, c, next, fw == FU_FRAMEWORK_IDEAL, hid, ready, stream_last,
                         s->op_which);
      next++;
    }
  }
  /* The rest of backward; then the buckets left (overlap off), issued after backward(). */
  uint32_t bwd_end = FU_TASK_NONE;
  if (st == FU_OK) st = fu__hg_host(&g, h->bwd_cpu_us > pc ? h->bwd_cpu_us - pc : 0, FU__K_TAIL,
                                    0, &hid);
  if (st == FU_OK)
    st = fu__hg_seg(&g, h->bwd_gpu_us > pg ? h->bwd_gpu_us - pg : 0,
                    fu__share(h->launches_bwd, h->bwd_cpu_us > pc ? h->bwd_cpu_us - pc : 0,
                              h->bwd_cpu_us),
                    FU__K_TAIL, 0, &bwd_end);
  for (; st == FU_OK && next < nb; next++) {
    if ((st = fu__hg_issue(&g, h, fw, c, next, -1, &hid)) != FU_OK) break;
    st = fu__hg_bucket(&g, c, next, fw == FU_FRAMEWORK_IDEAL, hid, bwd_end, stream_last,
                         s->op_which);
  }
  free(stream_last);
  FU_CHECK(st);
  /* Finalize: the compute stream waits for every bucket (DDP's finalize, the hook pattern's
   * wait_stream, or the optimizer's dependency). DDP in copy mode goes bucket by bucket, in
   * order (Reducer::finalize_backward: wait for the bucket's work, then copy it back), so a
   * bucket whose communication ended early is copied back while later ones are in flight; so
   * does the hook pattern in copy mode after an all-reduce (or any collective: its result is
   * in the fusion buffer, not in the gradients; an offload leaves them as they are). */
  int copy_back = copy && (fw == FU_FRAMEWORK_DDP ||
                           (fw == FU_FRAMEWORK_HOOKS && c->kind != FU_COMM_OFFLOAD));
  if (fw == FU_FRAMEWORK_DDP)
    FU_CHECK(fu__hg_fw(&g, h->ddp.finalize_us + (copy ? w->ngrads * h->ddp.copy_us / 2 : 0),
                       FU__K_FWHOST, 1, &hid));
  uint32_t wait;
  if (copy_back && nb > 0) {
    for (size_t k = 0; k < nb; k++) {
      const fu__bk *b = &s->bk[k];
      FU_CHECK(fu__hg_gpu(&g, 0, FU__K_WAIT, 0, hid, 0, &wait));
      FU_CHECK(fu_engine_dep(e, b->t_last, wait));
      FU_CHECK(fu__hg_gpu(&g, (double)b->bytes / gbps / 1e3 + (double)b->ntensors * kus,
                          FU__K_FWCOPY, w->ngrads, hid, (double)b->ntensors, &wait));
    }
  } else {
    FU_CHECK(fu__hg_gpu(&g, 0, FU__K_WAIT, 0, hid, 0, &wait));
    for (size_t k = 0; k < nb; k++) FU_CHECK(fu_engine_dep(e, s->bk[k].t_last, wait));
  }
  /* The optimizer step. */
  FU_CHECK(fu__hg_host(&g, h->opt_cpu_us, FU__K_OPT, 0, &hid));
  FU_CHECK(fu__hg_seg(&g, h->opt_gpu_us, h->launches_opt, FU__K_OPT, 0, &gid));
  (void)gid;
  return FU_OK;
}

/* Sets every operation to its nominal / lo / hi time. */
static void fu__set_times(fu__sim *s, size_t nb, int which) {
  for (size_t k = 0; k < nb; k++) {
    fu_engine_task *t = &s->e.tasks[s->bk[k].t_comm];
    fu__op_times(&s->bk[k], which, &t->latency_us, &t->work_us);
  }
}

/* The runs of the 95% interval of a graph without a host timeline: its two sources, each alone
 * at its bounds, the operations at their CI bounds (ops[0] low, ops[1] high) and, where the
 * workload's compute is an estimate, every compute task scaled by 1 -+ compute_rel (cmp[0],
 * cmp[1]). Leaves the operations at their nominal times and the compute tasks at their own, for
 * the nominal run that follows. O(tasks) per run. */
static int fu__interval_v1_runs(fu__sim *s, const fu_workload *w, size_t nb, double ops[2],
                                double cmp[2]) {
  fu_engine *e = &s->e;
  for (int side = 1; side <= 2; side++) {
    fu__set_times(s, nb, side);
    FU_CHECK(fu_engine_run(e));
    ops[side - 1] = e->makespan_us;
  }
  fu__set_times(s, nb, 0);
  double r = w->compute_rel;
  if (!(r > 0)) return FU_OK;
  double *work = malloc((e->ntasks ? e->ntasks : 1) * sizeof *work); /* the compute's own times */
  if (!work) return FU_ENOMEM;
  int st = FU_OK;
  for (int side = 0; side < 2 && st == FU_OK; side++) {
    for (size_t i = 0; i < e->ntasks; i++)
      if (e->tasks[i].cls == FU_TASK_COMPUTE) {
        if (side == 0) work[i] = e->tasks[i].work_us;
        e->tasks[i].work_us = work[i] * (side == 0 ? 1 - r : 1 + r);
      }
    st = fu_engine_run(e);
    cmp[side] = e->makespan_us;
  }
  for (size_t i = 0; i < e->ntasks; i++)
    if (e->tasks[i].cls == FU_TASK_COMPUTE) e->tasks[i].work_us = work[i];
  free(work);
  return st;
}

/* The interval from those runs around the nominal iteration nom, combined as fu__interval_v2
 * does: the operations' deviations (each side's as before: the high run's above nom, the low
 * run's below) and the compute's (either way at either bound, as a host timeline's sources: a
 * longer segment can hide an op) in quadrature per side. Without compute_rel the operations'
 * bounds alone, exactly as before. */
static void fu__interval_v1(const fu_workload *w, double nom, const double ops[2],
                            const double cmp[2], double *lo, double *hi) {
  if (!(w->compute_rel > 0)) {
    *lo = ops[0], *hi = ops[1];
    return;
  }
  double d = fmax(0, nom - ops[0]), u = fmax(0, ops[1] - nom);
  double cd = fmax(0, nom - fmin(cmp[0], cmp[1])), cu = fmax(0, fmax(cmp[0], cmp[1]) - nom);
  *lo = fmax(0, nom - sqrt(d * d + cd * cd));
  *hi = nom + sqrt(u * u + cu * cu);
}

/* The trace's events, each slice's name formatted into name (nlen bytes: room for the longest
 * gradient name, so that a name is never cut, and never inside a UTF-8 character, which Jansson
 * would refuse as invalid). */
static int fu__export_trace_into(const fu__sim *s, const fu_workload *w, const fu_comm *c,
                                 const fu_bucket *bks, size_t nb, fu_trace *tr, char *name,
                                 size_t nlen) {
  const fu_engine *e = &s->e;
  FU_CHECK(fu_trace_process_name(tr, w->name[0] ? w->name : "fusim"));
  for (size_t l = 0; l < e->nlanes; l++)
    FU_CHECK(fu_trace_thread_name(tr, (int)l + 1, e->lanes[l].name, (int)l));
  const char *opname = c->kind == FU_COMM_OFFLOAD ? "offload" : fu_op_name(fu_comm_op(c));
  for (size_t i = 0; i < e->ntasks; i++) {
    const fu_engine_task *t = &e->tasks[i];
    int kind = t->tag % 32;
    size_t idx = (size_t)(t->tag / 32);
    char sz[32];
    const char *cat = "compute";
    json_t *args = NULL;
    switch (kind) {
    case FU__K_FWD: snprintf(name, nlen, "forward %zu", idx); break;
    case FU__K_BWD: snprintf(name, nlen, "backward %zu", idx); break;
    case FU__K_FWDBWD: snprintf(name, nlen, "forward+backward %zu", idx); break;
    case FU__K_SEG: snprintf(name, nlen, "bwd -> %s", w->grads[idx].name); break;
    case FU__K_TAIL: snprintf(name, nlen, "bwd (rest)"); break;
    case FU__K_OPT: snprintf(name, nlen, "optimizer"); break;
    case FU__K_HOOK:
      snprintf(name, nlen, "hook %s", w->grads[idx].name);
      cat = "host";
      break;
    case FU__K_ISSUE:
      snprintf(name, nlen, "issue b%zu", idx);
      cat = "host";
      break;
    case FU__K_FWHOST:
      snprintf(name, nlen, "%s", idx == 0 ? "DDP forward" : "DDP finalize");
      cat = "host";
      break;
    case FU__K_FWCOPY:
      if (idx < w->ngrads) snprintf(name, nlen, "copy %s", w->grads[idx].name);
      else if (idx == w->ngrads) snprintf(name, nlen, "copy buckets back");
      else snprintf(name, nlen, "copy buffers back (broadcast)");
      break;
    case FU__K_WAIT: snprintf(name, nlen, "wait for communication"); break;
    case FU__K_GATE: snprintf(name, nlen, "enqueued"); break;
    case FU__K_PACK: case FU__K_COMM: case FU__K_UNPACK: case FU__K_HANDOFF: {
      const fu__bk *b = &s->bk[idx];
      fu_format_size(b->bytes, sz, sizeof sz);
      snprintf(name, nlen, "%s b%zu (%s, %zu tensor%s)",
               kind == FU__K_PACK     ? "pack"
               : kind == FU__K_UNPACK  ? "unpack"
               : kind == FU__K_HANDOFF ? "hand-off"
                                       : opname,
               idx, sz,
               b->ntensors, b->ntensors == 1 ? "" : "s");
      cat = kind == FU__K_COMM ? "comm" : "pack";
      args = json_pack("{s:i, s:I, s:i, s:s, s:s}", "bucket", (int)idx, "bytes",
                       (json_int_t)b->bytes, "tensors", (int)b->ntensors, "first",
                       w->grads[bks[idx].first].name, "last", w->grads[bks[idx].last].name);
      if (args && kind == FU__K_COMM)
        json_object_set_new(args, "transfer_start_us", json_real(t->xfer_us));
      break;
    }
    default: snprintf(name, nlen, "task %zu", i); break;
    }
    /* On the host thread, a slice of the workload's own work (a host timeline's forward,
     * backward, optimizer) is "host,workload"; "host" alone stays the costs a plan adds there
     * (hooks, issues, the framework's), as tools/torch_decomp.py sums them. */
    if (t->lane == s->lane_host && !strcmp(cat, "compute")) cat = "host,workload";
    FU_CHECK(fu_trace_slice(tr, (int)t->lane + 1, name, cat, t->start_us, t->end_us - t->start_us,
                            args));
  }
  /* Flow arrows: each gradient's ready time -> the first device task of its bucket. */
  for (size_t k = 0; k < nb; k++) {
    const fu_engine_task *dst = &e->tasks[s->bk[k].t_first];
    for (size_t i = bks[k].first; i <= bks[k].last; i++) {
      if (!fu_bucket_has(w, &bks[k], i)) continue;
      const fu_engine_task *seg = &e->tasks[s->t_seg[i]];
      double d = seg->end_us - seg->start_us;
      double ts0 = seg->end_us - (d > 0.002 ? 0.001 : d / 2);
      FU_CHECK(fu_trace_flow(tr, (uint64_t)i + 1, "gradient ready", (int)s->lane_compute + 1, ts0,
                             (int)dst->lane + 1, dst->start_us));
    }
  }
  /* Link occupancy as counter tracks. */
  for (size_t j = 0; j < e->nlog; j++) {
    const fu_link_sample *ls = &e->log[j];
    snprintf(name, nlen, "link %s", e->links[ls->link].name);
    FU_CHECK(fu_trace_counter(tr, name, ls->t_us, "transfers", ls->nactive));
  }
  return FU_OK;
}

static int fu__export_trace(const fu__sim *s, const fu_workload *w, const fu_comm *c,
                            const fu_bucket *bks, size_t nb, fu_trace *tr) {
  size_t longest = 0; /* O(ngrads): the longest gradient name */
  for (size_t i = 0; i < w->ngrads; i++) {
    size_t n = w->grads[i].name ? strlen(w->grads[i].name) : 0;
    if (n > longest) longest = n;
  }
  size_t nlen = longest + 192; /* the longest fixed text ("bwd -> ", sizes, counts) and more */
  char *name = malloc(nlen);
  if (!name) return FU_ENOMEM;
  int st = fu__export_trace_into(s, w, c, bks, nb, tr, name, nlen);
  free(name);
  return st;
}

/* What the result is of (names at the edge: the printers and the database row read these). */
static void fu__label(fu_result *r, const fu_workload *w, const fu_plan *p, const fu_comm *c,
                      const fu_profile *prof) {
  snprintf(r->workload, sizeof r->workload, "%s", w->name);
  r->ngrads = w->ngrads;
  r->grad_bytes = fu_workload_total_bytes(w);
  r->estimated = w->estimated;
  r->compute_from = w->from;
  fu_plan_string(p, r->plan, sizeof r->plan);
  fu_comm_string(c, r->comm, sizeof r->comm);
  snprintf(r->profile, sizeof r->profile, "%s", prof->name);
  /* how the collective was priced: measured at this rank and node count, or the cost model */
  fu_curve cv;
  fu_cost_basis basis = FU_BASIS_MEASURED;
  if (c->kind != FU_COMM_OFFLOAD &&
      fu_cost_comm_curve(prof, fu_op_name(fu_comm_op(c)), fu_link_name(c->link), c->ranks,
                         c->nodes > 0 ? c->nodes : 1, &cv, &basis) != FU_OK)
    basis = FU_BASIS_PREDICTED;
  snprintf(r->comm_basis, sizeof r->comm_basis, "%s", fu_cost_basis_name(basis));
  r->comm_least_bytes = r->comm_most_bytes = 0;
  if (c->kind != FU_COMM_OFFLOAD && basis == FU_BASIS_MEASURED && cv.max_bytes > 0 && cv.nseg > 0) {
    r->comm_least_bytes = cv.seg[0].first_bytes;
    r->comm_most_bytes = cv.max_bytes;
  }
  /* a job across nodes is priced at its process layout whether measured or not (the layout
   * picks the measured curve: fu_cost_comm_curve), so the row re-runs alike (report rerun) */
  r->layout_gpus = c->kind != FU_COMM_OFFLOAD && c->nodes > 1 ? (prof->cluster.job_gpus_per_proc > 1 ? prof->cluster.job_gpus_per_proc : 1) : 0;
  r->nccl_version = r->layout_gpus > 0 && basis != FU_BASIS_MEASURED ? prof->cluster.job_nccl_version : 0;
}

/* A time interval [start, end] of the engine's timeline. */
typedef struct fu__span {
  double start_us, end_us;
} fu__span;

static int fu__span_cmp(const void *a, const void *b) {
  double x = ((const fu__span *)a)->start_us, y = ((const fu__span *)b)->start_us;
  return (x > y) - (x < y);
}

/* The length of the union of n intervals (sorted in place where they are not in order already,
 * as one stream's are). O(n log n), O(n) in order. */
static double fu__spans_union_us(fu__span *sp, size_t n) {
  size_t i = 1;
  while (i < n && sp[i].start_us >= sp[i - 1].start_us) i++;
  if (i < n) qsort(sp, n, sizeof *sp, fu__span_cmp);
  double total = 0, lo = 0, hi = -INFINITY;
  for (i = 0; i < n; i++) {
    if (sp[i].start_us > hi) { /* a gap: close the run so far */
      if (hi > lo) total += hi - lo;
      lo = sp[i].start_us;
      hi = sp[i].end_us;
    } else if (sp[i].end_us > hi) {
      hi = sp[i].end_us;
    }
  }
  return hi > lo ? total + hi - lo : total;
}

/* One run of a host-timeline graph (which: the host's side, op_which: the operations'); its
 * iteration time in *iter_us. */
static int fu__run_v2(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                      const fu_profile *prof, const fu_bucket *bks, size_t nb, int which,
                      int op_which, double *iter_us) {
  fu__sim s;
  memset(&s, 0, sizeof s);
  s.op_which = op_which;
  int st = fu__build(&s, w, p, c, prof, bks, nb, which);
  if (st == FU_OK) st = fu_engine_run(&s.e);
  if (st == FU_OK) *iter_us = s.e.makespan_us;
  fu__sim_finish(&s);
  return st;
}

/* The 95% interval of a host timeline around the nominal iteration nom. Its sources are
 * measured apart and vary apart, so each is run on its own at its low and high bounds (the
 * others at their values) and their deviations from nom are summed in quadrature, side by side:
 * the half-width of a sum of independent terms, each bound a 95% one. Running them all at their
 * bounds at once (as before) stacked a dozen 97.5% tails into one far wider interval. The
 * sources: the step's spread (GPU work x step_rel and the host's own work x host_rel together:
 * both from the same compute-only rounds), the frameworks' own spread (fw_rel), the operations'
 * CI bounds, each framework cost the plan's framework pays at its bound (host.ci), and the
 * model's own error (jitter.model_rel x nom). O(2 x sources) runs, at most 2 x 12. */
static int fu__interval_v2(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                           const fu_profile *prof, const fu_bucket *bks, size_t nb, double nom,
                           double *lo, double *hi) {
  const fu_host *h = &w->host;
  int ddp = p->framework == FU_FRAMEWORK_DDP;
  size_t ncost = 0; /* the framework costs host.ci bounds, each a source of its own */
  const fu_host_cost *costs = ddp ? fu_host_ddp_costs(&ncost) : fu_host_hooks_costs(&ncost);
  if (!ddp && p->framework != FU_FRAMEWORK_HOOKS) ncost = 0;
  double down2 = 0, up2 = 0;
  for (size_t src = 0; src < 3 + ncost; src++) {
    fu_workload v = *w; /* a shallow copy: only its host block's spreads and bounds differ */
    fu_host *a = &v.host;
    a->step_rel_lo = a->step_rel_hi = a->host_rel_lo = a->host_rel_hi = 0;
    a->fw_rel_lo = a->fw_rel_hi = 0;
    a->has_ci = 1;
    a->ddp_lo = a->ddp_hi = h->ddp;
    a->hooks_lo = a->hooks_hi = h->hooks;
    int ops = src == 2, set = ops;
    if (src == 0) {
      a->step_rel_lo = h->step_rel_lo, a->step_rel_hi = h->step_rel_hi;
      a->host_rel_lo = h->host_rel_lo, a->host_rel_hi = h->host_rel_hi;
      set = a->step_rel_lo != 0 || a->step_rel_hi != 0 || a->host_rel_lo != 0 || a->host_rel_hi != 0;
    } else if (src == 1) {
      a->fw_rel_lo = h->fw_rel_lo, a->fw_rel_hi = h->fw_rel_hi;
      set = a->fw_rel_lo != 0 || a->fw_rel_hi != 0;
    } else if (src > 2 && h->has_ci) {
      size_t off = costs[src - 3].off; /* h's costs are only read through the casts */
      double nom_k = *fu_host_cost_at(ddp ? (void *)&h->ddp : (void *)&h->hooks, off);
      double *l = fu_host_cost_at(ddp ? (void *)&a->ddp_lo : (void *)&a->hooks_lo, off);
      double *u = fu_host_cost_at(ddp ? (void *)&a->ddp_hi : (void *)&a->hooks_hi, off);
      *l = *fu_host_cost_at(ddp ? (void *)&h->ddp_lo : (void *)&h->hooks_lo, off);
      *u = *fu_host_cost_at(ddp ? (void *)&h->ddp_hi : (void *)&h->hooks_hi, off);
      set = *l != nom_k || *u != nom_k;
    }
    if (!set) continue; /* nothing varies: its runs would give nom */
    double t[2];
    for (int side = 1; side <= 2; side++)
      FU_CHECK(fu__run_v2(&v, p, c, prof, bks, nb, ops ? 0 : side, ops ? side : 0, &t[side - 1]));
    /* a source can move the step either way at either bound (a later issue can fall into a gap) */
    double d = nom - fmin(t[0], t[1]), u = fmax(t[0], t[1]) - nom;
    if (d > 0) down2 += d * d;
    if (u > 0) up2 += u * u;
  }
  double m = h->model_rel * nom;
  *lo = fmax(0, nom - sqrt(down2 + m * m));
  *hi = nom + sqrt(up2 + m * m);
  return FU_OK;
}

int fu_sim_predict_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                           const fu_profile *prof, const fu_bucket *bks, size_t nb,
                           fu_trace *trace, fu_result *out) {
  memset(out, 0, sizeof *out);
  fu__sim s;
  memset(&s, 0, sizeof s);
  int v2 = w->host.version == FU_HOST_VERSION;
  double lo = 0, hi = 0, alone = 0, ops[2] = {0, 0}, cmp[2] = {0, 0};
  int st = FU_OK;
  if (v2) { /* the host timeline scales host and GPU work per run: a graph per run */
    fu_plan q = *p;
    q.framework = FU_FRAMEWORK_IDEAL; /* compute alone: no buckets, no framework */
    st = fu__run_v2(w, &q, c, prof, bks, 0, 0, 0, &alone);
    if (st == FU_OK) st = fu__build(&s, w, p, c, prof, bks, nb, 0);
  } else {
    st = fu__build(&s, w, p, c, prof, bks, nb, 0);
  }
  /* the interval's runs first, so that the nominal timeline stays in the engine */
  if (st == FU_OK && !v2) st = fu__interval_v1_runs(&s, w, nb, ops, cmp);
  if (st == FU_OK) {
    fu__set_times(&s, nb, 0);
    s.e.log_links = trace != NULL;
    st = fu_engine_run(&s.e);
  }
  if (st == FU_OK && !v2) fu__interval_v1(w, s.e.makespan_us, ops, cmp, &lo, &hi);
  if (st == FU_OK && v2) st = fu__interval_v2(w, p, c, prof, bks, nb, s.e.makespan_us, &lo, &hi);
  double free_us = 0; /* the same plan with every operation free: compute and the host's overhead */
  if (st == FU_OK && v2) st = fu__run_v2(w, p, c, prof, bks, nb, 0, FU__OPS_FREE, &free_us);
  if (st == FU_OK) {
    out->buckets = calloc(nb ? nb : 1, sizeof *out->buckets);
    if (!out->buckets) st = FU_ENOMEM;
  }
  if (st != FU_OK) {
    if (st == FU_EINTERNAL) fu_error("simulation of %s failed: %s", w->name, fu_strerror(st));
    fu__sim_finish(&s);
    return st;
  }
  const fu_engine *e = &s.e;
  int K = w->accum_steps > 0 ? w->accum_steps : 1;
  out->iter_us = e->makespan_us;
  out->iter_lo_us = lo < out->iter_us ? lo : out->iter_us;
  out->iter_hi_us = hi > out->iter_us ? hi : out->iter_us;
  out->interval_from = v2                   ? "the fits' CIs and the host block's measured spreads"
                      : w->compute_rel > 0 ? "the fits' CIs and the estimate's compute_rel"
                                           : "the fits' CIs";
  /* With a host timeline, compute is the step simulated without communication or framework
   * (the host may bound it); otherwise the workload's own times. */
  out->compute_us = v2 ? alone : K * (w->fwd_us + w->bwd_us) + w->opt_us;
  double pack = 0, wire = 0;
  /* the intervals of the communication operations, and of those with their packs, hand-offs and
     unpacks: with several communication streams they overlap, and comm_us, overlap_frac and
     bus_util count wall time (a sum counted two concurrent operations twice) */
  fu__span *sp_comm = malloc((nb ? nb : 1) * sizeof *sp_comm);
  fu__span *sp_busy = malloc((nb ? 4 * nb : 1) * sizeof *sp_busy);
  /* a fusion buffer for each communication stream, of the largest packed bucket (the streams'
     packed buckets are alive side by side) */
  uint64_t nstreams = p->comm_streams >= 1 ? (uint64_t)p->comm_streams : 1, largest = 0;
  size_t n_comm = 0, n_busy = 0;
  if (!sp_comm || !sp_busy) {
    free(sp_comm);
    free(sp_busy);
    fu__sim_finish(&s);
    fu_result_finish(out);
    return FU_ENOMEM;
  }
  /* Bus bandwidth of each operation as nccl-tests defines it (algbw for offload copies). */
  double factor = c->kind == FU_COMM_OFFLOAD ? 1.0 : fu_busbw_factor(fu_comm_op(c), c->ranks);
  for (size_t k = 0; k < nb; k++) {
    const fu__bk *b = &s.bk[k];
    fu_bucket *o = &out->buckets[k];
    o->first = bks[k].first;
    o->last = bks[k].last;
    o->ntensors = b->ntensors;
    o->bytes = b->bytes;
    o->ready_us = e->tasks[s.t_seg[o->last]].end_us;
    o->start_us = e->tasks[b->t_first].start_us;
    o->end_us = e->tasks[b->t_last].end_us;
    o->comm_us = e->tasks[b->t_comm].end_us - e->tasks[b->t_comm].start_us;
    const fu_engine_task *op = &e->tasks[b->t_comm];
    sp_comm[n_comm++] = sp_busy[n_busy++] = (fu__span){op->start_us, op->end_us};
    const uint32_t around[3] = {b->t_pack, b->t_handoff, b->t_unpack};
    for (int a = 0; a < 3; a++)
      if (around[a] != FU_TASK_NONE) {
        const fu_engine_task *t = &e->tasks[around[a]];
        o->pack_us += t->end_us - t->start_us;
        sp_busy[n_busy++] = (fu__span){t->start_us, t->end_us};
      }
    o->busbw_gbps = o->comm_us > 0 ? (double)o->bytes * factor / o->comm_us / 1e3 : 0;
    o->last_tensor = w->grads[o->last].name ? w->grads[o->last].name : "";
    pack += o->pack_us;
    wire += b->wire_bytes;
    /* DDP's reducer keeps a flat tensor for every bucket through the step: beside the
     * gradients in copy mode, as the gradients themselves (alive through forward too) with
     * gradient_as_bucket_view; the hook pattern in copy mode a fusion buffer per bucket
     * (tools/torch_host.py HookFuser: one for every bucket, a lone tensor's too, into which
     * each gradient is copied, as the simulation charges); elsewhere a fusion buffer for each
     * communication stream, of the largest packed bucket (the streams' packed buckets are alive
     * at the same time: fusim's executor allocates so, validate/fu_exec.c), and Horovod's of
     * its whole threshold (FusionBufferManager allocates
     * HOROVOD_FUSION_THRESHOLD bytes once a response fuses two tensors) */
    if (p->framework == FU_FRAMEWORK_DDP || (p->framework == FU_FRAMEWORK_HOOKS && !p->pack_view)) {
      out->fusion_buffer_bytes += b->bytes;
      if (p->framework == FU_FRAMEWORK_DDP && p->pack_view) out->view_buffer_bytes += b->bytes;
    } else if (!p->pack_view && b->ntensors > 1) {
      uint64_t need = b->bytes;
      if (p->kind == FU_FUSION_HOROVOD && p->cap_bytes > need) need = p->cap_bytes;
      if (need > largest) largest = need;
    }
  }
  out->fusion_buffer_bytes += largest * nstreams;
  out->nbuckets = nb;
  out->n_ops = nb;
  out->pack_us = pack;
  out->comm_us = fu__spans_union_us(sp_comm, n_comm);
  double busy = fu__spans_union_us(sp_busy, n_busy);
  free(sp_comm);
  free(sp_busy);
  out->exposed_comm_us = out->iter_us > out->compute_us ? out->iter_us - out->compute_us : 0;
  /* its split: the host's overhead (the free run less compute), clipped to [0, exposed] so that
     the two parts sum to it; without a host timeline all of it is communication */
  double host = v2 ? free_us - out->compute_us : 0;
  out->host_split = v2;
  out->host_overhead_us = host < 0 ? 0 : host > out->exposed_comm_us ? out->exposed_comm_us : host;
  out->exposed_comm_only_us = out->exposed_comm_us - out->host_overhead_us;
  out->overlap_frac = busy > 0 ? 1.0 - out->exposed_comm_us / busy : 0.0;
  if (out->overlap_frac < 0) out->overlap_frac = 0;
  if (out->overlap_frac > 1) out->overlap_frac = 1;
  /* Each operation lasts at least its charged time, whose bus bandwidth is at most the peak
   * (fu_cost.c), so this is <= 1; the clip only acts for a fit with no finite peak. */
  double peak = s.cm.peak_gbps;
  out->bus_util = peak > 0 && out->comm_us > 0 ? wire / out->comm_us / (peak * 1e3) : 0;
  if (out->bus_util > 1) out->bus_util = 1;
  out->sim_events = e->events;
  fu__label(out, w, p, c, prof);
  if (trace) st = fu__export_trace(&s, w, c, bks, nb, trace);
  fu__sim_finish(&s);
  if (st != FU_OK) fu_result_finish(out);
  return st;
}

/* One run of the nominal graph: its iteration time and/or each gradient's ready time from the
 * start of the communicating backward (either may be NULL). */
static int fu__run_once(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                        const fu_profile *prof, const fu_bucket *bks, size_t nb, double *iter_us,
                        double *ready_us) {
  fu__sim s;
  memset(&s, 0, sizeof s);
  int st = fu__build(&s, w, p, c, prof, bks, nb, 0);
  if (st == FU_OK) st = fu_engine_run(&s.e);
  if (st == FU_OK && iter_us) *iter_us = s.e.makespan_us;
  if (st == FU_OK && ready_us) {
    double origin = s.e.tasks[s.t_bwd0].start_us; /* Horovod's cycle grid starts here */
    for (size_t i = 0; i < w->ngrads; i++) ready_us[i] = s.e.tasks[s.t_seg[i]].end_us - origin;
  }
  if (st == FU_EINTERNAL) fu_error("simulation of %s failed: %s", w->name, fu_strerror(st));
  fu__sim_finish(&s);
  return st;
}

int fu_sim_iter_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                        const fu_profile *prof, const fu_bucket *bks, size_t nb, double *iter_us) {
  *iter_us = NAN;
  return fu__run_once(w, p, c, prof, bks, nb, iter_us, NULL);
}

int fu_sim_grad_ready(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                      const fu_profile *prof, const fu_bucket *bks, size_t nb, double *ready_us) {
  return fu__run_once(w, p, c, prof, bks, nb, NULL, ready_us);
}

void fu_result_finish(fu_result *r) {
  if (!r) return;
  free(r->buckets);
  r->buckets = NULL;
  r->nbuckets = 0;
}
