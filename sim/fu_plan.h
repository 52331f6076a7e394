/* fu_plan.h: fusion plans and communication targets: their types, parsing (--fusion, --overlap,
 * --pack, --comm-streams, --framework, --comm, plan files) and canonical strings, the defaults
 * of the frameworks fusim compares against, and the bucket rules that need no search (none,
 * single, cap, horovod, an explicit bucket list).
 *
 * Layering (no cycle): fu_plan <- fu_cost <- fu_predict (the simulator, takes buckets only)
 * <- fu_search (optimal, MG-WFBP) <- fu_resolve (a plan -> buckets -> a prediction).
 *
 * Names are at the edges only: inside, operations and links are enums (fu_comm_kind, fu_link).
 *
 * Sizes in plan specs take a unit, B, KiB, MiB or GiB (K/KB, M/MB, G/GB read as binary too):
 * `cap:25` is an error ("say 25MiB or 25B"), never 25 bytes; hexadecimal is refused. Horovod's
 * cycle takes us, ms or s and defaults to ms, as HOROVOD_CYCLE_TIME does; it must be finite and
 * from 1 us to 1 hour. */
#ifndef FU_PLAN_H
#define FU_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "fu_model.h"
#include "fu_workload.h"

/* Defaults of the frameworks whose plans fusim compares against. */
#define FU_DDP_CAP_BYTES (25ull << 20)        /* PyTorch DDP bucket_cap_mb = 25 */
#define FU_DDP_FIRST_BYTES (1ull << 20)       /* DDP's first bucket (kDefaultFirstBucketBytes) */
/* Horovod since v0.21.0 (release notes: "Changed default cycle time from 5ms to 1ms and fusion
 * threshold from 64MB to 128MB", #2468); docs/tensor-fusion.rst still says 64 MB. */
#define FU_HOROVOD_THRESHOLD_BYTES (128ull << 20) /* HOROVOD_FUSION_THRESHOLD */
#define FU_HOROVOD_CYCLE_US 1000.0            /* HOROVOD_CYCLE_TIME = 1 (ms) */
#define FU_HOROVOD_CYCLE_MIN_US 1.0           /* shortest cycle accepted (1 us) */
#define FU_HOROVOD_CYCLE_MAX_US 3.6e9         /* longest cycle accepted (1 hour) */

typedef enum fu_fusion_kind {
  FU_FUSION_NONE,            /* one operation per tensor */
  FU_FUSION_SINGLE,          /* one operation for everything */
  FU_FUSION_CAP,             /* DDP-style: close a bucket when it reaches cap (first bucket: first_cap) */
  FU_FUSION_HOROVOD,         /* threshold + cycle time */
  FU_FUSION_BUCKETS,         /* explicit bucket list from a file */
  FU_FUSION_OPTIMAL,         /* dynamic programming over the ready order */
  FU_FUSION_MGWFBP           /* Shi et al., INFOCOM 2019 */
} fu_fusion_kind;

/* Whose host-side costs apply (DESIGN.md, --framework). */
typedef enum fu_framework {
  FU_FRAMEWORK_IDEAL,        /* no framework cost */
  FU_FRAMEWORK_DDP,          /* PyTorch DDP's C++ Reducer */
  FU_FRAMEWORK_HOOKS         /* Python post-accumulate-grad hooks filling a fusion buffer */
} fu_framework;

/* The buckets of a bucket file, as read when the plan is parsed: lists of tensor names. Shared
 * by plan copies made with fu_plan_copy (reference counted); fu_plan_finish drops one.
 * A bucket file is a JSON list of buckets, each a list of tensor names, sent in the order they
 * fill (their last gradients' ready order, whatever the listing); or {"order": "listed",
 * "buckets": [...]}, sent in the order listed (as DDP's Reducer launches its buckets, those
 * still open at the end the type seen last first); "order": "fill" (the default) is the list's
 * meaning. */
typedef struct fu_bucket_names {
  int refs;                  /* plans holding it */
  int listed;                /* 1: sent in the file's order; 0: in the order they fill */
  size_t nbuckets;           /* buckets in the file's order */
  size_t *end;               /* bucket k holds names[k ? end[k-1] : 0 .. end[k] - 1] */
  size_t nnames;             /* names in all */
  char **names;              /* tensor names (each malloc'd) */
} fu_bucket_names;

typedef struct fu_plan {
  fu_fusion_kind kind;       /* fusion kind */
  uint64_t cap_bytes;        /* CAP, HOROVOD: bucket size threshold */
  uint64_t first_cap_bytes;  /* CAP: size of the first bucket (0 = same as cap) */
  double cycle_us;           /* HOROVOD: cycle time, in [FU_HOROVOD_CYCLE_MIN_US, _MAX_US] */
  char buckets_file[512];    /* BUCKETS: the file the buckets came from (for the plan string) */
  fu_bucket_names *bucket_list; /* BUCKETS: the file's buckets (read at parse time; counted) */
  uint64_t mem_cap_bytes;    /* OPTIMAL: largest fusion buffer allowed (0 = none) */
  int fill_order;            /* OPTIMAL: buckets sent only in the order they fill, never a seed's
                                own order (validate's executor runs no other; not a flag) */
  int overlap;               /* 1: communicate as buckets fill; 0: only after backward */
  int pack_view;             /* 1: gradients live in the bucket (no pack/unpack) */
  int comm_streams;          /* communication streams (>= 1) */
  fu_framework framework;    /* whose host costs apply (ideal by default) */
} fu_plan;

void fu_plan_init(fu_plan *p);   /* none, overlap on, pack copy, 1 stream, framework ideal */
/* Drops p's reference to its bucket list (frees it with the last); p is then as after init.
 * Only plans made by fu_plan_init / fu_plan_copy / the parsers are finished; a plain struct copy
 * borrows the list of the plan it copies and must not be finished. */
void fu_plan_finish(fu_plan *p);
void fu_plan_copy(fu_plan *dst, const fu_plan *src); /* *dst = *src, sharing the bucket list */

/* --fusion value: none|single|ddp|cap:SIZE[,first:SIZE]|horovod[:SIZE[,CYCLE]]|buckets:FILE|
 * optimal[:MEMCAP]|mgwfbp. buckets:FILE is read here (FU_ENOINPUT / FU_EDATA naming the file).
 * Sets the fusion keys of *p and keeps overlap, pack, streams and framework. One line on
 * stderr naming the flag and the value on failure (FU_EUSAGE). */
int fu_plan_parse_fusion(const char *s, fu_plan *p);
/* --overlap on|off, --pack copy|view, --comm-streams N (1..64), --framework ideal|ddp|hooks.
 * Each prints one line naming the flag and returns FU_EUSAGE on a bad value. */
int fu_plan_parse_overlap(const char *s, fu_plan *p);
int fu_plan_parse_pack(const char *s, fu_plan *p);
int fu_plan_parse_streams(const char *s, fu_plan *p);
int fu_plan_parse_framework(const char *s, fu_plan *p);
/* The same, with messages that start `what` in place of the bare flag: a command passes
 * "CMD: --fusion" so that its usage errors read `fusim: CMD: ...` as all its others do. */
int fu_plan_parse_fusion_as(const char *what, const char *s, fu_plan *p);
int fu_plan_parse_overlap_as(const char *what, const char *s, fu_plan *p);
int fu_plan_parse_pack_as(const char *what, const char *s, fu_plan *p);
int fu_plan_parse_streams_as(const char *what, const char *s, fu_plan *p);
int fu_plan_parse_framework_as(const char *what, const char *s, fu_plan *p);
/* A size with its unit (B, KiB, MiB, GiB, ...), above 0; `what` names the flag in the one-line
 * error ("--mem-cap '25': no unit; say 25MiB or 25B"). FU_EUSAGE. */
int fu_plan_parse_size(const char *what, const char *s, uint64_t *out);

/* A JSON plan file: {"fusion": "cap:25MiB,first:1MiB", "overlap": "on"|true, "pack": "copy",
 * "comm_streams": 2, "framework": "ddp"} (every key optional; others are an error). Values given
 * override those already in *p. A "buckets:FILE" is read beside the plan file when there is
 * such a file, else from the current folder. Errors name the file and key; FU_EDATA /
 * FU_ENOINPUT. fu_plan_parse_json reads buckets files from dir (NULL: the current folder). */
int fu_plan_load(const char *path, fu_plan *p);
int fu_plan_parse_json(const char *json_text, const char *what, const char *dir, fu_plan *p);
/* Same, from a parsed JSON object (a plan inside a list of plans). */
int fu_plan_from_json(json_t *obj, const char *what, const char *dir, fu_plan *p);
/* A file of one plan object or a list of them (validate --plans): *out is malloc'd, each plan
 * to be finished (fu_plan_list_free). An empty list is an error (FU_EDATA). */
int fu_plan_load_list(const char *path, fu_plan **out, size_t *n);
void fu_plan_list_free(fu_plan *plans, size_t n);

/* The inverse of fu_plan_string: "FUSION [overlap=on|off] [pack=copy|view] [streams=N]
 * [framework=F]" (keys left out take their defaults), as stored in the results database and
 * written in a CSV of measured times. One line naming `what` on failure (FU_EDATA). */
int fu_plan_parse_string(const char *s, const char *what, fu_plan *p);

/* Canonical string, e.g. "cap:25MiB,first:1MiB overlap=on pack=copy streams=1" (and
 * " framework=ddp" when the framework is not ideal). Every size has its unit, so the fusion part
 * parses back to the same plan. */
const char *fu_plan_string(const fu_plan *p, char *buf, size_t len);
const char *fu_framework_name(fu_framework f);
/* "ideal", "ddp" or "hooks" into *f; FU_EUSAGE, printing nothing, for any other. */
int fu_framework_parse(const char *s, fu_framework *f);

/* ---- communication targets ---- */

typedef enum fu_comm_kind { FU_COMM_ALLREDUCE, FU_COMM_REDUCESCATTER, FU_COMM_ALLGATHER, FU_COMM_OFFLOAD } fu_comm_kind;

typedef struct fu_comm {
  fu_comm_kind kind;         /* what each bucket's communication is */
  int ranks;                 /* data-parallel ranks in all, nodes x GPUs per node (1 for offload) */
  int nodes;                 /* nodes (1: one node; the intra-node link plus the network above) */
  fu_link link;              /* intra-node link: NVLINK, PCIE, NET (HBM: one GPU); PCIE_D2H for offload */
  int link_given;            /* the spec named LINK (else fu_cmd_layout takes the profile's) */
} fu_comm;

/* --comm value: OP:RANKS[:LINK] with OP allreduce|reducescatter|allgather, RANKS N (>= 1, one
 * node) or NODESxGPUS (2x8), LINK nvlink (default: the profile's, fu_cmd_layout), pcie, net or
 * hbm; or offload. One line naming
 * --comm on failure (FU_EUSAGE). */
int fu_comm_parse(const char *s, fu_comm *c);
/* The same, with messages that start `what` ("predict: --comm") in place of --comm. */
int fu_comm_parse_as(const char *what, const char *s, fu_comm *c);
/* "allreduce:8:nvlink", "allreduce:2x8:nvlink", "offload". */
const char *fu_comm_string(const fu_comm *c, char *buf, size_t len);
/* The profile's operation for the target: allreduce, reducescatter, allgather; d2h (offload). */
fu_op fu_comm_op(const fu_comm *c);

/* ---- buckets ---- */

/* A bucket: the gradients of [first, last] in ready order that have grads[first]'s element type
 * (fu_bucket_has), communicated as one operation. A bucket never mixes two types: NCCL reduces
 * one datatype per call, so DDP keys its buckets by dtype and Horovod fuses one dtype per
 * response; fusim's own plans follow (their buckets then do not depend on --comm). With one
 * type a bucket is the whole range; with several, buckets of different types interleave. */
typedef struct fu_bucket {
  size_t first, last;        /* its first and last gradient in ready order */
  size_t ntensors;           /* its gradients */
  uint64_t bytes;            /* sum of the gradients' bytes */
  double ready_us;           /* when its last gradient is ready (iteration clock) */
  double start_us;           /* communication start */
  double end_us;             /* communication end (after unpack) */
  double pack_us;            /* pack + hand-off + unpack time (0 for view or single tensors) */
  double comm_us;            /* the operation's own duration */
  double busbw_gbps;         /* the operation's bus bandwidth (nccl-tests' factor; algbw for offload) */
  const char *last_tensor;   /* name of its last gradient (borrowed from the workload) */
} fu_bucket;

/* 1 when gradient i is in bucket b: within [first, last] and of grads[first]'s type. */
int fu_bucket_has(const fu_workload *w, const fu_bucket *b, size_t i);

/* The gradients in bucket b (fu_bucket_has) and their bytes. O(last - first). */
void fu_bucket_sum(const fu_workload *w, const fu_bucket *b, size_t *ntensors, uint64_t *bytes);

/* The bytes of the largest bucket of several tensors (ntensors > 1; 0 where none): what a fusion
 * buffer must hold, and what --mem-cap binds. */
uint64_t fu_buckets_largest_fused(const fu_bucket *b, size_t nb);

/* Writes buckets as a bucket file (the form --fusion buckets:FILE reads): a JSON list of lists of
 * tensor names, each bucket's own (fu_bucket_has: one type's), in the order given; where that is
 * not the order they fill, as {"order": "listed", "buckets": [...]}, so that the file sends them
 * as given. Written whole or not at all (fu_output.h). Says on stderr where they went. */
int fu_plan_save_buckets(const char *path, const fu_workload *w, const fu_bucket *b, size_t nb);

/* Buckets of the plans that need no search: none, single, cap, horovod and a bucket list
 * (whose names must be contiguous runs of the ready order covering every tensor once: one line
 * naming the file and the tensor otherwise, FU_EDATA; in the order they fill, or listed). FU_EINTERNAL for optimal and mgwfbp
 * (fu_resolve.h runs their search). *out is malloc'd. O(n) (a bucket list: O(n log n)). */
int fu_plan_rule_buckets(const fu_workload *w, const fu_plan *p, fu_bucket **out,
                         size_t *nbuckets);

/* Iteration-clock time at which the backward pass that communicates begins: the last
 * micro-batch's backward, (accum_steps - 1) * (fwd + bwd) + fwd. Gradient ready times are
 * counted from there. */
double fu_plan_backward_start_us(const fu_workload *w);

/* Fills ntensors, bytes and ready_us of buckets whose first/last are set. */
void fu_plan_fill_buckets(const fu_workload *w, fu_bucket *b, size_t nb);

#endif
