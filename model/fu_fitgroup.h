/* fu_fitgroup.h: the fit driver behind `fusim fit`: samples -> groups (op, link, ranks, variant)
 * -> one piecewise alpha-beta fit each (fu_fit.h), and the printers of the fitted groups.
 *
 * Variants. A sample's algo holds NCCL_ALGO for collectives and, for calib's copies and pack
 * kernel, timing variants (calib/fu_calib.h's table). Its variant is its algo with any "k=K" part
 * dropped (so the pack kernel over every k is one curve of total bytes: "k=4" -> "", and
 * "unpack:k=4" -> "unpack"). Each group uses one proto, one dtype and one graph mode (the given
 * ones, else NCCL's own protocol / the plain timing, float, no graph, where the group has them),
 * and one placement (out-of-place when the group has any, else in-place, unless forced). Without
 * an algo filter only plain variants are fitted: every NCCL algorithm of a collective, and
 * variant "" of the rest; "any" fits every variant. The curve's algo is the variant, with
 * "/PROTO" for a forced protocol or timing variant and "+cg" for CUDA-graph runs. GEMM, issue
 * and launch samples are scalars, not size curves: skipped unless scalar_ops is set. Size-0
 * samples are skipped (counted in n_zero). Data type names compare by their canonical spelling
 * (fu_dtype.h), so "fp32" samples and "float" samples are one type. */
#ifndef FU_FITGROUP_H
#define FU_FITGROUP_H

#include <stdint.h>
#include <stdio.h>

#include "fu_fit.h"
#include "fu_profile.h"

/* One sample, as the driver needs it (the strings belong to the caller). */
typedef struct fu_fitgroup_sample {
  const char *op;            /* fu_op name */
  const char *link;          /* fu_link name */
  const char *algo;          /* NCCL_ALGO or timing variant ("" none) */
  const char *proto;         /* NCCL_PROTO or timing variant ("" none) */
  const char *dtype;         /* data type ("" unknown) */
  int ranks;                 /* ranks taking part */
  int in_place;              /* 1 in-place, 0 out-of-place */
  int graph;                 /* 1 CUDA-graph replay */
  uint64_t bytes;            /* message size */
  double t_us;               /* time of one operation (median, else minimum) */
  int nodes;                 /* nodes the ranks ran on (>= 1) */
  const char *gpu;           /* GPU model ("" unknown) */
  const char *host;          /* host name(s) ("" unknown) */
  int gpus_per_proc;         /* GPUs one process drove (0 unknown) */
  const char *nccl;          /* the NCCL the run used, "2.29.2" ("" unknown) */
  int n_wrong;               /* elements nccl-tests found wrong (#wrong; <= 0 none or unknown) */
} fu_fitgroup_sample;

/* Which samples, and how the curves are labelled. */
typedef struct fu_fitgroup_select {
  int scalar_ops;            /* keep gemm/issue/launch samples (the user named the op) */
  const char *algo;          /* variant to fit, "any", or NULL: the plain variants */
  const char *proto;         /* proto to fit ("" NCCL's own), or NULL: per group */
  const char *dtype;         /* data type to fit, or NULL: float where a group has it */
  int graph;                 /* 0 or 1, or -1: plain launches where a group has them */
  int place;                 /* 1 in-place, 0 out-of-place, -1: out-of-place where present */
  const char *algo_label;    /* algo of curves whose samples name none, or NULL */
  const char *source;        /* source label of the curves, or NULL: "fusim fit of WHAT (...)" */
  const char *what;          /* names the samples in messages (the database path) */
  const char *gpu;           /* only samples whose GPU model contains this (any case), or NULL;
                                samples naming no GPU pass and are taken as this one */
  const char *host;          /* only samples whose host name contains this (any case), or NULL */
} fu_fitgroup_select;

/* One fitted group. */
typedef struct fu_fitgroup {
  fu_curve curve;            /* op, link, ranks, algo, source, segments */
  int in_place;              /* samples used were in-place */
  char dtype[16];            /* data type of the samples used ("" unknown) */
  char proto[16];            /* proto field of the samples used ("" NCCL's own / plain timing) */
  int graph;                 /* samples used were CUDA-graph replays */
  size_t n_zero;             /* size-0 samples skipped */
  size_t n_wrong;            /* samples whose run found wrong results (#wrong > 0) skipped */
  char nccl[16];             /* the NCCL its samples share ("" where one is unknown or they differ) */
  fu_fit_result fit;         /* the fit (owns its arrays) */
} fu_fitgroup;

/* Groups are (op, link, ranks, nodes, variant) of one GPU model: fu_fitgroup_fit refuses
 * (FU_EUSAGE, one line listing the models and the --gpu that picks one) a selection whose
 * samples name more than one GPU model, since a curve and a profile describe one machine.
 * Samples naming none pass with any model.
 *
 * Groups the samples and fits each group. *out (free with fu_fitgroup_free) gets *ng groups;
 * *n_selected counts the samples the selection kept. FU_ENOINPUT with nothing printed when the
 * selection keeps none, or after one line when no group has two sizes; warnings for groups that
 * miss the tolerance or have no bandwidth term. O(samples x groups). */
int fu_fitgroup_fit(const fu_fitgroup_sample *s, size_t n, const fu_fitgroup_select *sel,
                    const fu_fit_options *fo, fu_fitgroup **out, size_t *ng, size_t *n_selected);
void fu_fitgroup_free(fu_fitgroup *g, size_t ng);

/* Flags of a fitted segment (fu_segment.flags): FU_SEG_CI_SPANS_ZERO when the 95% CI of alpha or
 * beta includes 0 (the data do not pin that parameter down), FU_SEG_OVER_LIMIT when its bus
 * bandwidth, even at the slow end of beta's CI, is above the link's physical limit for the GPU
 * (fu_link_limit_gbps; over "net" the lower of NVLink's and the network's for the curve's nodes
 * and GPUs a node). */
void fu_fitgroup_flag(fu_curve *c);
/* "ci_spans_zero,over_link_limit" style text of a segment's flags into buf. */
const char *fu_segment_flags_str(const fu_segment *s, char *buf, size_t len);

/* The profile a fit writes, from the fitted groups and a base profile (may be NULL):
 *   curves   every fitted curve; from the base only curves of an (op, link) the fit has none
 *            of and that are not collectives (copies, pack, d2d: what nccl-tests logs never
 *            cover), their source prefixed "base NAME: ". The base's collectives describe its
 *            own machine and are left out.
 *   scalars  the base's, each source "base NAME" (callers then override from flags); the base's
 *            compute tables likewise.
 *   cluster  the cost model's link parameters (fu_coll.h) fitted from the groups' collectives
 *            (NCCL's own algorithm only, and all-reduces forced to NVLS on one node of a GPU
 *            with NVLS) where they cover them, the base's where not.
 *   machine  "GPU, G GPUs per node[, up to N nodes]" from the groups; gpu the GPU model.
 * prof must be initialised (fu_profile_init); `what` labels the fitted parameters. */
int fu_fitgroup_profile(const fu_fitgroup *g, size_t ng, const fu_profile *base, const char *what,
                        fu_profile *prof);

/* 1 for a curve forced to NVLS (label "nvls": NCCL_ALGO=NVLS, or --label-algo nvls) of an
 * all-reduce over more than 2 ranks on one node: the observation NCCL's own choice gives there
 * on a machine with NVLS at large sizes. */
int fu_fitgroup_forced_nvls(const fu_curve *c);

/* The cost model's view of one fitted collective curve: latency at its smallest sizes, bus
 * bandwidth and the intercept of a line at its largest, those two without any large size whose
 * rate falls more than 5% below both neighbouring sizes' (a stall: note, of len bytes, may be
 * NULL, lists them, "" none). 0 (nothing written) for a curve that is not a plain collective
 * (NCCL's own algorithm) nor one forced to NVLS (fu_fitgroup_forced_nvls); fu_fitgroup_profile
 * passes the latter only where the GPU has an NVLS share (fu_coll_nvls_efficiency). */
int fu_fitgroup_obs(const fu_fitgroup *g, fu_coll_obs *o, char *note, size_t len);

/* The GEMM grid of calib's shape sweep (op gemm, proto fwd|dgrad|wgrad, algo MxNxK; a later
 * sample of one shape replaces an earlier one) into c's tables; *npts counts the points put and
 * gpu (len bytes) gets the GPU the samples name ("" none). FU_ENOINPUT when there are none,
 * FU_EDATA when the tables are full or the samples name two GPUs, one line naming what. */
int fu_fitgroup_gemm_table(const fu_fitgroup_sample *s, size_t n, const char *what, struct fu_compute *c,
                           int *npts, char *gpu, size_t len);

/* Bus bandwidth (GB/s, nccl-tests' definition) of one operation of `bytes` in t_us. */
double fu_fitgroup_busbw(const char *op, int ranks, double bytes, double t_us);

/* Printers: a table with segments and the per-size relative error; CSV (segment and point
 * records; header before the first group); JSON (the curve plus fit details and points). */
void fu_fitgroup_print_table(FILE *out, const fu_fitgroup *g, const fu_fit_options *o);
void fu_fitgroup_print_csv(FILE *out, const fu_fitgroup *g, int header);
struct json_t *fu_fitgroup_json(const fu_fitgroup *g, const fu_fit_options *o);

/* Draws the measured points and fitted curves of the groups (time and bus bandwidth against
 * size, log axes) with gnuplot into out (.png or .svg), whole or not at all. */
int fu_fitgroup_plot(const char *out, const fu_fitgroup *g, size_t ng);

#endif
