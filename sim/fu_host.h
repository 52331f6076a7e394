/* fu_host.h: the host side of a training step (the workload's "host" block, version 2, written
 * by tools/capture_torch.py): the CPU timeline along which the host enqueues forward, backward
 * and the optimizer, the GPU-only times of the same points, the run-to-run spread, and the
 * frameworks' host costs measured by model-independent microbenchmarks (tools/torch_host.py).
 * The simulator (fu_predict.c) runs the host thread along this timeline and charges the costs of
 * the framework that --framework names. An older block {"hook_us", "issue_us"} is version 1:
 * fu_workload keeps reading it as before (launch-bound pacing), as the ideal framework.
 * Optional in version 2: "launches" {"fwd", "bwd", "opt"} and "queue_depth" (the launch-queue
 * bound, tools/torch_launchq.py); a block without them lets the host run ahead without bound.
 * Optional "ci": {"ddp": {COST: [lo, hi]}, "hooks": {COST: [lo, hi]}}: each framework cost's
 * confidence bounds (the uncertainty of its measurement and of carrying it to the run's host
 * speed); the interval's low run takes the low bounds, the high run the high ones. A cost the
 * block gives no bounds for stays at its value in both.
 * Optional "beside_d2h": {"compute": C} (C >= 1): how much longer the model's own backward
 * kernels take while a transfer into host memory (an offload) runs beside them, measured at
 * capture (tools/torch_beside.py); it replaces the profile's copy_slowdown for this workload.
 * Optional "issue_spacing": {"hooks": [[apart_us, us], ...], "ddp_offload": [...],
 * "ddp": [...]}: a bucket issued from inside backward costs more the more of backward's own host
 * work ran since the previous issue: that work evicts the data from the CPU caches
 * (tools/issue_probe.py; tools/torch_modelcost.py times the issues on the model, call by call).
 * Points in increasing apart_us: the hook pattern's issue cost (in place of hooks.bucket_us
 * inside backward), DDP's offload comm hook over its default all-reduce (in place of
 * hook_bucket_us - bucket_us inside backward), and DDP's default all-reduce (in place of
 * ddp.bucket_us inside backward). Between points the cost is interpolated, beyond the ends it is
 * the end's; a step's first issue takes the far end (its previous issue was in the previous
 * step), but DDP's default all-reduce keeps ddp.bucket_us for it (its finalize holds that call);
 * issues after backward keep the per-bucket costs.
 */
#ifndef FU_HOST_H
#define FU_HOST_H

#include <stddef.h>

#include <jansson.h>

#define FU_HOST_VERSION 2    /* the version this code reads and writes */

typedef struct fu_host_ddp {
  double param_us;           /* per parameter: autograd hook, gradient already in a bucket view */
  double copy_us;            /* per parameter, copy mode only: launching the copy into the bucket
                                and the copy back at finalize (charged half and half) */
  double bucket_us;          /* per bucket: the call of DDP's default NCCL all-reduce */
  double hook_bucket_us;     /* per bucket: the call of a Python comm hook (offload) */
  double finalize_us;        /* per iteration: fixed work at the end of backward */
  double forward_us;         /* per iteration: DDP's forward (pre-forward, prepare backward) */
  double buffer_us;          /* per module buffer: its broadcast before forward */
  double broadcast_us;       /* per iteration where the module has buffers: the broadcast's fixed
                                part (one coalesced call; optional, 0 in older blocks) */
} fu_host_ddp;

typedef struct fu_host_hooks {
  double hook_us;            /* per gradient: Python post-accumulate-grad hook + copy launch */
  double bucket_us;          /* per bucket: event record, stream switch, operation issue */
  double noop_hook_us;       /* per gradient: a hook that does nothing (pack view) */
} fu_host_hooks;

#define FU_HOST_SPACING_MAX 8 /* points of an issue-spacing curve */

typedef struct fu_host_spacing {
  size_t n;                              /* points (0: none) */
  double apart_us[FU_HOST_SPACING_MAX];  /* backward's own host work since the previous issue */
  double us[FU_HOST_SPACING_MAX];        /* the cost there */
} fu_host_spacing;

typedef struct fu_host {
  int version;               /* 0 none, 1 {hook_us, issue_us}, 2 this timeline */
  double fwd_cpu_us;         /* CPU time of forward (host enqueue, no framework) */
  double bwd_cpu_us;         /* CPU time of the backward() call */
  double opt_cpu_us;         /* CPU time of the optimizer step */
  double fwd_gpu_us;         /* GPU-only time of forward (no kernel waits for its launch) */
  double bwd_gpu_us;         /* GPU-only time of backward */
  double opt_gpu_us;         /* GPU-only time of the optimizer step */
  size_t nfwd;               /* forward points */
  double *fwd_cpu;           /* per forward point: host time from the start of forward (malloc'd) */
  double *fwd_gpu;           /* per forward point: GPU-only time from the start of forward */
  int buffers;               /* module buffers (DDP broadcasts each before forward) */
  double copy_gbps;          /* device copy bandwidth (bytes copied per second / 1e9) */
  double kernel_us;          /* GPU time of one small kernel queued behind others (0: not measured;
                                the frameworks' per-tensor kernels then cost their bytes alone) */
  double step_rel_lo;        /* p5 of the step's time over its median, minus 1 (<= 0) */
  double step_rel_hi;        /* p95 over the median, minus 1 (>= 0) */
  double host_rel_lo;        /* the same for backward()'s CPU time */
  double host_rel_hi;        /* (>= 0) */
  double fw_rel_lo;          /* the same for the frameworks' host costs (their microbenchmark's */
  double fw_rel_hi;          /* rounds); a block without them: host_rel's, as before */
  double model_rel;          /* the model's own error: the 95% half-width over the prediction
                                (>= 0; 0: none given), added to the interval in quadrature */
  double launches_fwd;       /* launches (kernels, copies, memsets) forward makes (0: not counted) */
  double launches_bwd;       /* the same for backward() */
  double launches_opt;       /* the same for the optimizer step */
  int queue_depth;           /* launches that can be pending behind the one the GPU runs before
                                the host blocks (0: no bound; 1021 measured on the H200) */
  int has_ddp;               /* ddp costs were measured */
  fu_host_ddp ddp;           /* DDP's Reducer */
  int has_hooks;             /* hook pattern costs were measured */
  fu_host_hooks hooks;       /* the Python hook pattern */
  double d2h_compute;        /* compute time factor beside a D2H transfer (0: the profile's) */
  fu_host_spacing sp_hooks;   /* the hook pattern's in-backward issue against its spacing */
  fu_host_spacing sp_offload; /* DDP's offload comm hook over its all-reduce, the same */
  fu_host_spacing sp_ddp;     /* DDP's default all-reduce per bucket, the same */
  int has_ci;                /* the block gives the costs' bounds ("ci") */
  fu_host_ddp ddp_lo, ddp_hi;       /* DDP's costs at their low / high bounds (else = ddp) */
  fu_host_hooks hooks_lo, hooks_hi; /* the hook pattern's (else = hooks) */
} fu_host;

/* A framework cost that host.ci can bound: its key in the block and its offset in fu_host_ddp
 * or fu_host_hooks. The tables list every such cost of DDP and of the hook pattern (*n each). */
typedef struct fu_host_cost {
  const char *key;
  size_t off;
} fu_host_cost;
const fu_host_cost *fu_host_ddp_costs(size_t *n);
const fu_host_cost *fu_host_hooks_costs(size_t *n);
/* The cost at offset off of a framework's costs (a fu_host_ddp or fu_host_hooks). */
double *fu_host_cost_at(void *costs, size_t off);

void fu_host_init(fu_host *h);
void fu_host_finish(fu_host *h);  /* frees the forward points; accepts a zeroed host */
/* Reads a version-2 block. grad_cpu / grad_gpu (ngrads each, the workload's grads order) get
 * the per-gradient times. Errors name the file and the field; FU_EDATA. */
int fu_host_parse(const json_t *obj, const char *what, size_t ngrads, fu_host *h,
                  double *grad_cpu, double *grad_gpu);
/* The block as JSON (version 2), with the per-gradient times given; NULL when out of memory. */
json_t *fu_host_to_json(const fu_host *h, size_t ngrads, const double *grad_cpu,
                        const double *grad_gpu);

#endif
