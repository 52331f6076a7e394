/* fu_sim.h: fusion plans, communication targets and the discrete-event prediction of one
 * training iteration. */
#ifndef FU_SIM_H
#define FU_SIM_H

#include <stddef.h>
#include <stdint.h>

#include "fu_profile.h"
#include "fu_workload.h"

typedef enum fu_fusion_kind {
  FU_FUSION_NONE,            /* one operation per tensor */
  FU_FUSION_SINGLE,          /* one operation for everything */
  FU_FUSION_CAP,             /* DDP-style: close a bucket when it reaches cap (first bucket: first_cap) */
  FU_FUSION_HOROVOD,         /* threshold + cycle time */
  FU_FUSION_BUCKETS,         /* explicit bucket list from a file */
  FU_FUSION_OPTIMAL,         /* dynamic programming over the ready order */
  FU_FUSION_MGWFBP           /* Shi et al., INFOCOM 2019 */
} fu_fusion_kind;

typedef struct fu_plan {
  fu_fusion_kind kind;       /* fusion kind */
  uint64_t cap_bytes;        /* CAP, HOROVOD: bucket size threshold */
  uint64_t first_cap_bytes;  /* CAP: size of the first bucket (0 = same as cap) */
  double cycle_us;           /* HOROVOD: cycle time */
  char buckets_file[512];    /* BUCKETS: file naming tensors per bucket */
  uint64_t mem_cap_bytes;    /* OPTIMAL: largest fusion buffer allowed (0 = none) */
  int overlap;               /* 1: communicate as buckets fill; 0: only after backward */
  int pack_view;             /* 1: gradients live in the bucket (no pack/unpack) */
  int comm_streams;          /* communication streams (>= 1) */
} fu_plan;

void fu_plan_init(fu_plan *p);   /* none, overlap on, pack copy, 1 stream */
/* --fusion value: none|single|cap:SIZE[,first:SIZE]|horovod:SIZE,CYCLE|buckets:FILE|optimal[:MEMCAP]|mgwfbp */
int fu_plan_parse_fusion(const char *s, fu_plan *p);
/* Canonical string, e.g. "cap:25MiB,first:1MiB overlap=on pack=copy streams=1". */
const char *fu_plan_string(const fu_plan *p, char *buf, size_t len);

typedef enum fu_comm_kind { FU_COMM_ALLREDUCE, FU_COMM_REDUCESCATTER, FU_COMM_ALLGATHER, FU_COMM_OFFLOAD } fu_comm_kind;

typedef struct fu_comm {
  fu_comm_kind kind;         /* what each bucket's communication is */
  int ranks;                 /* data-parallel ranks (1 for offload) */
  char link[16];             /* "nvlink", "pcie", "net"; "pcie_d2h" for offload */
} fu_comm;

/* --comm value: allreduce:RANKS:LINK | reducescatter:.. | allgather:.. | offload */
int fu_comm_parse(const char *s, fu_comm *c);
const char *fu_comm_string(const fu_comm *c, char *buf, size_t len);

/* A bucket: gradients [first, last] of the ready order, communicated as one operation. */
typedef struct fu_bucket {
  size_t first, last;        /* inclusive range in ready order */
  uint64_t bytes;            /* sum of the gradients' bytes */
  double ready_us;           /* when its last gradient is ready (iteration clock) */
  double start_us;           /* communication start */
  double end_us;             /* communication end (after unpack) */
  double pack_us;            /* pack + hand-off + unpack time (0 for view or single tensors) */
  double comm_us;            /* the operation's own duration */
} fu_bucket;

/* Assigns gradients to buckets for a plan (what the validation executor also runs).
 * *out is malloc'd. OPTIMAL and MGWFBP need comm and profile; others may pass NULL. */
int fu_plan_buckets(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                    const fu_profile *prof, fu_bucket **out, size_t *nbuckets);

typedef struct fu_result {
  double iter_us;            /* predicted iteration time */
  double iter_lo_us, iter_hi_us; /* interval propagated from the fits' 95% CIs */
  double compute_us;         /* fwd + bwd (+ opt) as the workload gives them, x accum steps */
  double comm_us;            /* sum of communication operation times */
  double exposed_comm_us;    /* iteration time not hidden behind compute */
  double overlap_frac;       /* 1 - exposed / comm */
  double bus_util;           /* achieved bus bandwidth over the peak of fu_cost.c (<= 1) */
  size_t n_ops;              /* communication operations */
  uint64_t fusion_buffer_bytes; /* largest fusion buffer the plan needs (0 for view) */
  uint64_t sim_events;       /* events the engine processed */
  size_t nbuckets;           /* buckets */
  fu_bucket *buckets;        /* per-bucket timeline (malloc'd) */
} fu_result;

void fu_result_finish(fu_result *r);  /* frees buckets */

typedef struct fu_trace fu_trace;      /* Chrome trace writer (sim/fu_trace.h) */

int fu_sim_predict(const fu_workload *w, const fu_plan *p, const fu_comm *c,
                   const fu_profile *prof, fu_trace *trace, fu_result *out);

#endif
