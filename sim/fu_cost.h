/* fu_cost.h: what one bucket's communication costs, exactly as the engine charges it. The plan
 * search (optimal, MG-WFBP) and the engine (fu_predict.c) read the same prepared cost model, so
 * the search is exact for the simulator when nothing contends, and the two cannot drift apart.
 *
 * Use: fu_cost_model_init once per (profile, target, plan) (O(curves): the curve lookups, rank
 * rescaling and the peak bus bandwidth are done there), then fu_cost_model_bucket per bucket
 * (O(segments), no lookups, no allocation). fu_cost_bucket does both for one bucket. */
#ifndef FU_COST_H
#define FU_COST_H

#include <stddef.h>
#include <stdint.h>

#include "fu_profile.h"
#include "fu_plan.h"

typedef struct fu_op_cost {
  double issue_us;           /* host-thread time to issue the bucket (pack launch + op issue) */
  double pack_us;            /* pack kernel before the operation (0 for view or one tensor) */
  double handoff_us;         /* pack kernel -> dependent operation hand-off (packed buckets) */
  double comm_us;            /* the communication operation itself */
  double comm_lo_us;         /* its 95% lower bound (from the fit's CIs) */
  double comm_hi_us;         /* its 95% upper bound */
  double unpack_us;          /* unpack after (all-reduce; 0 for view, one tensor or offload) */
} fu_op_cost;

/* Which curve times the pack and unpack kernels. */
typedef enum fu_pack_source {
  FU_PACK_CURVE = 0,         /* the profile's measured batched pack kernel ("pack" on "hbm") */
  FU_PACK_D2D = 1,           /* no pack curve: a device copy ("d2d" on "hbm") stands in */
  FU_PACK_HBM_GBPS = 2       /* neither: bytes / hbm_gbps */
} fu_pack_source;

/* The prepared cost of one (profile, communication target, plan). Caller-owned; it keeps a
 * pointer to the profile, which must outlive it. */
typedef struct fu_cost_model {
  const fu_profile *prof;    /* profile (not owned) */
  fu_curve comm;             /* the operation's curve, carried to the target's rank count */
  int comm_rescaled;         /* 1: comm was not measured at this rank and node count */
  int comm_basis;            /* fu_cost_basis of comm: measured, interpolated or predicted */
  double comm_host_us;       /* host issue inside a comm curve's time (offload copies), else 0 */
  int offload;               /* 1: the operation is a D2H copy to pinned host memory */
  int packs;                 /* 1: pack=copy (buckets of more than one tensor are packed) */
  fu_pack_source pack_src;   /* what times pack/unpack */
  const fu_curve *pack;      /* the pack or d2d curve (NULL for FU_PACK_HBM_GBPS) */
  double pack_host_us;       /* host cost inside the pack curve's time (launch_us / issue_us) */
  double hbm_gbps;           /* FU_PACK_HBM_GBPS: device copy bandwidth, GB/s */
  double pack_div;           /* the bucket's bytes / bytes packed (p for all-gather, else 1) */
  double unpack_div;         /* ... / bytes unpacked (p reduce-scatter, 1; 0: none, offload) */
  double issue_us;           /* profile issue_us (host, per operation) */
  double launch_us;          /* profile launch_us (host, per pack/unpack kernel) */
  double handoff_us;         /* profile pack_handoff_us (device, per packed bucket) */
  int moves_nothing;         /* 1: DDP's in-place all-reduce over one rank: no device time */
  double busbw_factor;       /* bus bytes per byte (nccl-tests' factor; 1 for offload) */
  double peak_gbps;          /* best bus bandwidth of comm as charged (see fu_cost.c), GB/s */
} fu_cost_model;

/* Prepares the model. FU_EDATA (message printed) if the profile has no curve for the
 * operation, or pack=copy and it has no way to time a pack; FU_EINTERNAL for NULL args. */
int fu_cost_model_init(fu_cost_model *m, const fu_profile *prof, const fu_comm *c,
                       const fu_plan *p);

/* Cost of communicating `ntensors` gradients totalling `bytes` as one operation. */
int fu_cost_model_bucket(const fu_cost_model *m, uint64_t bytes, size_t ntensors,
                         fu_op_cost *out);

/* One-shot: fu_cost_model_init + fu_cost_model_bucket (O(curves) per call). */
int fu_cost_bucket(const fu_profile *prof, const fu_comm *c, const fu_plan *p, uint64_t bytes,
                   size_t ntensors, fu_op_cost *out);

/* ---- pricing one collective at any rank and node count (fusim cost) ---- */

/* How a price was obtained. */
typedef enum fu_cost_basis {
  FU_BASIS_MEASURED,         /* the profile holds the op at these ranks and nodes */
  FU_BASIS_INTERPOLATED,     /* cost model, between rank counts the profile measured */
  FU_BASIS_PREDICTED         /* cost model, outside them (or the op was never measured) */
} fu_cost_basis;

const char *fu_cost_basis_name(fu_cost_basis b); /* "measured", "interpolated", "predicted" */

/* The least relative half-width of the interval of a cost-model price (no fit CI exists for it:
 * the model's own error on the fit's logs widens it where the profile records one, fu_collerr.h),
 * and of a curve carried to another rank count (its fit's CIs do not cover the carrying: the
 * default's NVLS curve carried to 2 ranks is 34% off at 64 KiB against a DGX H100 pair). A
 * profile fitted before fit recorded the model's error has this band alone. */
#define FU_COST_MODEL_BAND 0.25

/* The communication curve for (op, link, ranks, nodes): the profile's measured plain curve at
 * exactly these ranks and nodes (across nodes: measured at the job's process layout,
 * prof->cluster.job_gpus_per_proc, or at an unknown one, unless the model cannot price it),
 * else the cost model's lower envelope (fu_coll.h) as
 * segments, else (a profile with no link parameters) the nearest rank count carried by
 * fu_segment_carry. *basis says which; *algo (16 bytes) names the measured curve's algo (the
 * carried one's: "ring" for an NVLS all-reduce carried to 2 ranks) or, for the model, "model".
 * link NULL/"" = any; for nodes > 1 the network. FU_EDATA with a message when nothing prices it. */
int fu_cost_comm_curve(const fu_profile *prof, const char *op, const char *link, int ranks,
                       int nodes, fu_curve *out, fu_cost_basis *basis);

typedef struct fu_comm_price {
  double t_us;               /* time of one operation */
  double lo_us, hi_us;       /* its interval (fit CIs; for the model its recorded error, at least
                                FU_COST_MODEL_BAND, as for a carried curve): see interval */
  double busbw_gbps;         /* bus bandwidth: nccl-tests' factor * bytes / time */
  char algo[20];             /* measured curve's algo ("nccl": NCCL's choice) or the model's
                                algorithm and protocol ("ring/Simple") */
  fu_cost_basis basis;       /* measured / interpolated / predicted */
  int extrapolated;          /* 1: beyond the largest size measured (at that size's bandwidth) */
  double below_bytes;        /* > 0: below the smallest size measured, this one (the first
                                segment's line carried down, not a measurement there) */
  int over_link_limit;       /* 1: priced on a segment whose fitted bandwidth is above the
                                link's physical limit (FU_SEG_OVER_LIMIT): not to be trusted */
  const char *interval;      /* what the interval is: "fit" (the measured curve's CIs), "carried"
                                (those, at least FU_COST_MODEL_BAND), "model_error" (the model's
                                own error on the fit's logs, fu_collerr.h, at least the band),
                                "borrowed" (a network borrowed from another GPU: wide), "band"
                                (a model price the profile records no error for) */
} fu_comm_price;

/* Price one operation of `bytes`. */
int fu_cost_comm(const fu_profile *prof, const char *op, const char *link, int ranks, int nodes,
                 double bytes, fu_comm_price *out);

/* Device-side duration of the bucket on its stream: pack + hand-off + comm + unpack. */
static inline double fu_cost_device_us(const fu_op_cost *c) {
  return c->pack_us + c->handoff_us + c->comm_us + c->unpack_us;
}

#endif
