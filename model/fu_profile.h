/* fu_profile.h: a calibrated machine profile: piecewise alpha-beta curves per (op, link, ranks)
 * plus the scalar costs the simulator needs. Read and written as JSON (format
 * "fusim-profile-1"); one profile is embedded in the binary as the default. */
#ifndef FU_PROFILE_H
#define FU_PROFILE_H

#include "fu_coll.h"
#include "fu_compute.h"
#include "fu_model.h"

/* Segments a stored curve may hold: a fit makes at most FU_FIT_MAX_SEGMENTS (fu_fit.h); the cost
 * model's envelope (fu_cost.c) needs more, its tree lines changing slope at each power of two
 * where NCCL's tree correction changes. */
#define FU_MAX_SEGMENTS 32
#define FU_MAX_CURVES 64
#define FU_PROFILE_NSCALARS 9

typedef struct fu_segment {
  double lo_bytes;           /* segment covers sizes >= lo_bytes ... */
  double hi_bytes;           /* ... and < hi_bytes (the last segment extends to infinity) */
  double alpha_us;           /* fitted fixed cost, microseconds */
  double beta_us_per_byte;   /* fitted inverse bandwidth, microseconds per byte */
  double alpha_ci[2];        /* 95% confidence interval of alpha (lo, hi) */
  double beta_ci[2];         /* 95% confidence interval of beta (lo, hi) */
  double max_rel_err;        /* worst |fit - measured| / measured over the segment's samples */
  int n_samples;             /* samples the segment was fitted on */
  int flags;                 /* FU_SEG_* bits: what the segment should not be trusted for */
  double first_bytes;        /* its smallest and largest sample size (0 unknown): between one */
  double last_bytes;         /* segment's last and the next one's first the time is bridged */
} fu_segment;

enum {
  FU_SEG_CI_SPANS_ZERO = 1,  /* the 95% CI of alpha or beta includes 0 */
  FU_SEG_OVER_LIMIT = 2      /* bandwidth above the link's physical limit (fu_link_limit_gbps) */
};

typedef struct fu_curve {
  char op[24];               /* fu_op name, e.g. "allreduce", "h2d" */
  char link[16];             /* fu_link name, e.g. "nvlink", "pcie_h2d", "hbm" */
  int ranks;                 /* ranks the samples were taken at */
  int nodes;                 /* nodes those ranks ran on (1 when the file gives none) */
  double max_bytes;          /* largest size measured (0 unknown): beyond it the time grows at
                                that size's bandwidth and is marked extrapolated */
  char gpu[64];              /* GPU model the samples came from ("" unknown) */
  int gpus_per_proc;         /* GPUs one process drove in the run measured (0 unknown, or the
                                samples disagree) */
  char algo[16];             /* "" NCCL's own choice / the plain variant, "ring", "tree", "nvls", or
                                a measured variant's label ("pageable", "pack+d2h", "ring/LL128") */
  char source[128];          /* where the samples came from ("published: Azure ...", "calib ...") */
  int nseg;                  /* segments in use */
  fu_segment seg[FU_MAX_SEGMENTS]; /* ascending by lo_bytes; seg[0].lo_bytes is the smallest size */
  double peak_busbw_gbps;    /* highest measured bus bandwidth, GB/s (1e9), for bus_util */
} fu_curve;

typedef struct fu_profile {
  char name[64];             /* profile name, e.g. "h200-default" */
  char gpu[64];              /* GPU model */
  char source[256];          /* provenance of the whole profile */
  int ncurves;               /* curves in use */
  fu_curve curves[FU_MAX_CURVES];
  double launch_us;          /* one kernel launch issued back to back (host cost) */
  double issue_us;           /* host cost to issue one small copy/collective back to back */
  double duplex_factor;      /* bidirectional PCIe bandwidth / (2 x one direction), <= 1 */
  double comm_slowdown;      /* compute time factor (>= 1) while an NCCL kernel runs beside it */
  double copy_slowdown;      /* compute time factor (>= 1) while a copy engine runs beside it */
  double gpu_tflops_bf16;    /* achieved dense bf16 GEMM throughput, TFLOP/s */
  double gpu_tflops_fp32;    /* achieved fp32/tf32 GEMM throughput, TFLOP/s */
  double hbm_gbps;           /* achieved device copy bandwidth, GB/s (bytes copied) */
  double pack_handoff_us;    /* extra cost when a copy waits on the pack kernel before it (pack+copy - pack - copy); 0 = unknown */
  char notes[2048];          /* where the scalars came from (free text, kept in the JSON) */
  char machine[128];         /* the machine: GPU model and host shape ("NVIDIA B200, 2 nodes x 8") */
  char nccl_version[16];     /* the NCCL its collective curves' logs ran, "2.29.2" ("" unknown: they
                                differ or do not say); cost, predict and plan price a job across
                                nodes for it unless --nccl-version names another */
  char scalar_source[FU_PROFILE_NSCALARS][96]; /* where each scalar came from (fu_profile_scalar_name order) */
  fu_cluster cluster;        /* per-link parameters of the collective cost model (fu_coll.h) */
  double gpu_mem_bytes;      /* device memory of one GPU, bytes (0 = unknown) */
  fu_compute compute;        /* per-operation compute tables (GEMM, attention, ops, optimizer) */
} fu_profile;

/* The profile's scalars by index, for sources and --base merging: "launch_us", ...; NULL past
 * the end. *value points into p. */
const char *fu_profile_scalar_name(int i);
double *fu_profile_scalar(fu_profile *p, int i);

/* Sets defaults: no curves; launch_us, issue_us 0; duplex_factor, comm_slowdown and
 * copy_slowdown 1 (no effect); gpu_tflops_* and hbm_gbps 0 meaning unknown. */
void fu_profile_init(fu_profile *p);
int fu_profile_load(const char *path, fu_profile *out);          /* prints file: what is wrong */
int fu_profile_load_default(fu_profile *out);                     /* the embedded profile */
/* An input profile: a path, or the name of a bundled profile in data/profiles ("h200-pcie").
 * NULL arg: the embedded profile. `flag` names the option in the one-line error. */
int fu_profile_load_arg(const char *flag, const char *arg, fu_profile *out);
int fu_profile_parse(const char *json_text, const char *what, fu_profile *out);
int fu_profile_save(const char *path, const fu_profile *p);
/* p's file form into *file (malloc'd; FU_ENOMEM after one line), for a caller that also needs the
 * file's text (fit --out stores the profile as its file reads back); fu_text_save (fu_output.h)
 * writes it as fu_profile_save does. */
int fu_profile_file_text(const fu_profile *p, char **file);
/* The profile as its file form `file` (fu_profile_file_text's) reads back (its reals rounded as
 * the file has them), as compact JSON at full precision into *text (malloc'd): what a command
 * given --profile FILE stores, so that the results database holds one row for it. The file form
 * refused on reading back: its one line, FU_EDATA; else FU_ENOMEM. */
int fu_profile_saved_json(const char *file, char **text);
/* The most gpu_mem_bytes a profile file may hold (the loader refuses more; fit --gpu-mem too). */
#define FU_PROFILE_GPU_MEM_MAX 1e15
/* The same GPU model where one name holds the other ("H100" and "NVIDIA H100 80GB HBM3"). */
int fu_gpu_same(const char *a, const char *b);
/* p's compute.gpu after tables measured on gpu: gpu, or absent ("") where that is p's own GPU
 * (fu_compute.gpu: absent means the profile's own, as every bundled profile writes it). */
void fu_profile_set_compute_gpu(fu_profile *p, const char *gpu);
/* The GPU p's compute tables were measured on where it is not p's own (compute.gpu: fit --out
 * took them from a base of another GPU), else NULL: tables that name none are p's GPU's. */
const char *fu_profile_compute_other_gpu(const fu_profile *p);

/* Adds or replaces the curve with the same (op, link, ranks, algo). */
int fu_profile_put_curve(fu_profile *p, const fu_curve *c);

/* 1 when s can be a curve's algo label: at most 15 characters of letters, digits and _ . : + = / -. */
int fu_algo_label_ok(const char *s);
/* 1 for a curve the simulator may price with: algo "" or an NCCL algorithm fu_algo_parse knows;
 * 0 for a variant label (pageable, pipe, pack+d2h, ring/LL128, ...). */
int fu_curve_is_plain(const fu_curve *c);
/* 1 for a curve forced to NVLS (its algo label one fu_algo_parse reads as NVLS: "nvls",
 * "nvlstree"); 0 for NCCL's own choice ("") and every other label. */
int fu_curve_is_nvls(const fu_curve *c);

/* Curve lookup over plain curves only (fu_curve_is_plain; "" preferred over a forced algorithm)
 * (op and link in any accepted spelling; link NULL or "" = any link): exact
 * (op, link, ranks) if present; else for one rank a 1-rank curve of the op on any link (one rank
 * crosses no link: NCCL copies locally); else the same op and link at the nearest rank count on
 * a log scale, 1-rank curves standing in for multi-rank queries only when nothing else matches
 * (then *rescaled = 1 and times are carried over by fu_segment_carry). NULL if none. */
const fu_curve *fu_profile_find(const fu_profile *p, const char *op, const char *link, int ranks,
                                int *rescaled);

/* Carries a segment fitted at p_from ranks to p_to ranks (its line and both CI bounds) by
 * fu_coll_rescale, but for an NVLS all-reduce carried to 2 ranks: NCCL runs no NVLS on 2 GPUs
 * (nvls.cc), but the ring, whose bus bandwidth is NVLS's algorithm bandwidth / the GPU's NVLS
 * share (fu_coll_nvls_efficiency; a 2-rank all-reduce moves its bytes once), so the time per byte
 * is the share x NVLS's, and the fixed cost NCCL's for that ring (fu_coll_nccl_ring_simple_us),
 * the CIs kept in proportion. gpu names the curve's GPU; where it has no NVLS share the segment is
 * rescaled as the others. Returns the algorithm the carried segment prices. */
fu_algo fu_segment_carry(fu_segment *s, fu_op o, fu_algo a, int p_from, int p_to, const char *gpu);

/* Time of one operation of `bytes` at `ranks`: the segment containing bytes, carried to ranks
 * when needed. lo/hi (may be NULL) bound it from the 95% CIs of alpha and beta. FU_EDATA if no
 * curve matches (message printed). */
int fu_profile_time(const fu_profile *p, const char *op, const char *link, int ranks, double bytes,
                    double *t_us, double *lo_us, double *hi_us);

/* Time from one curve (no lookup). The segment containing bytes (the first below the smallest
 * size, the last above the largest). lo/hi from the CIs of alpha and beta (conservative: both
 * ends together), or +-max_rel_err of the segment where a CI is unknown (2-point segment). */
double fu_curve_time(const fu_curve *c, double bytes, double *lo_us, double *hi_us);

/* 1 when bytes lies beyond the largest size the curve's samples had (priced at that size's
 * bandwidth by fu_curve_time). */
int fu_curve_extrapolated(const fu_curve *c, double bytes);

/* 1 when bytes lies below the smallest size the curve's samples had (its first segment's line
 * carried down: not measured there); 0 where the curve does not record it. */
int fu_curve_below_measured(const fu_curve *c, double bytes);

/* Index of the segment that holds bytes. */
int fu_curve_segment(const fu_curve *c, double bytes);

/* JSON object of one curve / the whole profile (new references; NULL on out of memory). */
struct json_t;
struct json_t *fu_curve_to_json(const fu_curve *c);
struct json_t *fu_profile_to_json(const fu_profile *p);

#endif
