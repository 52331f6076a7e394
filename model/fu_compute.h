/* fu_compute.h: the compute side of a profile: per-operation times measured on the machine.
 *
 *   gemm       cuBLAS device time by (dtype, layout, M, N, K) over a grid (fusim calib's shape
 *              sweep); layouts are the three products of a linear layer (fwd, dgrad, wgrad).
 *   attention  the framework's fused attention (PyTorch SDPA: flash / memory-efficient) forward
 *              and backward by dtype, head size, causal mask, dropout and sequence length, for
 *              `bh` (batch x heads) problems, several bh per length (tools/calib_torch.py).
 *   ops        memory-bound operations (norms, activations, dropout, adds, embedding, loss,
 *              casts, ...) as PyTorch runs them: device time by element count, forward and
 *              backward, and the host's cost to issue one (tools/calib_torch.py).
 *   optimizer  one optimizer step (PyTorch's default multi-tensor Adam, AdamW, SGD with momentum):
 *              base + per tensor + per element, fitted to measured steps (tools/calib_torch.py).
 *   conv       cuDNN convolutions (channels-last, benchmark mode) by class (kernel size, stride)
 *              and layout, over the implicit GEMM's (m, n, k): fwd (N Ho Wo, Cout, Cin k k),
 *              dgrad (N Ho Wo, Cin k k, Cout), wgrad (Cout, Cin k k, N Ho Wo) (tools/calib_torch.py);
 *              tables marked "format": "nchw" were measured in PyTorch's default NCHW layout
 *              (calib_torch --conv-format nchw), a key of their own.
 *              "derived": "GPU" marks an NCHW table not measured on this GPU but made from its
 *              channels-last table and GPU's NCHW / channels-last ratio (tools/derive_nchw.py).
 *
 * JSON (the profile's "compute" object; every part optional):
 *   { "source": "..", "gpu": ".." (optional: the GPU the tables were measured on, written by
 *     fit --out where they come from its base; absent, the profile's own GPU),
 *     "gemm": [ {"dtype": "bf16", "layout": "fwd", "m": [..], "n": [..], "k": [..],
 *                "us": [ m-major: us[(i * nn + j) * nk + q] ]}, .. ],
 *     "gemm_unaligned": [ the same, measured with one dimension not a multiple of 8 (the
 *                vocabulary's place in a linear layer: fwd n, dgrad k, wgrad m); replaces the
 *                profile's unaligned tables, leaves the aligned ones ],
 *     "attention": [ {"dtype", "head_dim", "causal", "dropout", "seq", "bh", "fwd_us", "bwd_us"
 *                    [, "derived"]}, ..],
 *     "attention_gqa": [ the same, SDPA's math path for keys in groups of 2 outside bf16 ],
 *     "ops": [ {"op", "dtype", "numel": [..], "fwd_us": [..], "bwd_us": [..], "host_fwd_us",
 *               "host_bwd_us", "kernels_fwd", "kernels_bwd"[, "derived"]}, .. ],
 *              an op row's "derived" says how a row not measured on this GPU or architecture was
 *              made (tools/derive_gpu_ops.py, tools/deep_row_carry.py);
 *     "optimizer": [ {"name", "base_us", "per_tensor_us", "per_elem_us"[, "host_per_tensor_us",
 *                "host_base_us", "tail_frac", "host_probe_us"[, "prologue_frac", "tail_us"]][,
 *                "launch_us", "per_moved_elem_us", "per_chunk_elem_us"[, "hbm_launch_us",
 *                "hbm_per_moved_elem_us", "hbm_sat_blocks", "cache_bytes"]][, "cold_launch_us",
 *                "cold_per_touch_us", "cold_chunk_touches", "warm_per_touch_us",
 *                "warm_chunk_touches", "cache_bytes"][, "derived"]}, .. ]
 *                (fu_optim_fit; "derived": how a fit not measured on this GPU was made,
 *                tools/derive_clip_rows.py, tools/optim_cold_rows.py --carry-from),
 *     "conv": [ {"dtype", "layout", "kernel", "stride", "m", "n", "k", "us"[, "format": "nchw"
 *                (or "channels_last", the default)]}, .. ],
 *     "host_probe_us": tools/torch_host.host_probe's CPU time per launch when the host costs were
 *                measured (calib_torch's hf_host part: the median of its readings), to carry them
 *                to another host speed,
 *     "host_probe_min_us": the fastest of those readings; absent, the fastest of the file's own
 *                record of them ("diag": {"hf_host": {"probes_us": [..]}}),
 *     "timer_overhead_us": the device time the calibration's per-call events add to one call of
 *                the gemm, conv, attention and ops tables, over what the call costs in a stream of
 *                a model's calls (calib_torch --parts timer: model-like streams of calls timed with
 *                one event pair against the sum of their per-call times); every lookup below gives
 *                a table's time less it, not below 0 (absent: 0, the tables as measured),
 *     "workspace_bytes": the device memory the framework holds through a step beside the model's
 *                tensors (calib_torch --parts memory: PyTorch's cuBLAS workspaces, one per handle
 *                and stream, forward's thread and autograd's); absent: 0, none counted,
 *     "host_speed_range": [forward lo, hi, backward lo, hi]: the lowest and highest ratio of a
 *                reference step timed between a capture's steps (tools/host_ref.py) to the same
 *                step by these host rows, over the captures that measured one
 *                (tools/host_ref_range.py): how far a real step's host speed is seen to move }
 * Merging (fu_compute_parse into tables already there): a GEMM, conv or operation table replaces
 * the one of the same key (dtype, layout[, kernel, stride, format, groups]; op, dtype) and leaves the others, so a
 * partial calibration updates what it measured; an optimizer fit replaces the one of its name and
 * leaves the others; "attention" replaces every fused-kernel point, "attention_gqa" every math-path
 * point of grouped keys, each keeping the other kind. */
#ifndef FU_COMPUTE_H
#define FU_COMPUTE_H

#include <stddef.h>

#define FU_GEMM_GRID_AXIS 16      /* most values along one grid axis (calib_torch GEMM_WIDTHS) */
#define FU_GEMM_GRID_MAX 16384    /* largest M, N or K the sweep measures */
#define FU_GEMM_TABLES 18         /* 3 dtypes x 3 layouts, aligned and unaligned */
#define FU_ATTN_MAX 1024          /* attention points (calib_torch: ~500, several bh per length) */
#define FU_OPS_MAX 256            /* memory-bound operation tables and host-only entries */
#define FU_OPS_SIZES 16           /* sizes per operation table (batch norm: 13, tools/calib_torch.py) */
#define FU_OPTIM_MAX 8            /* optimizer fits */
#define FU_CONV_TABLES 224        /* 2 dtypes x 3 layouts x 2 memory formats x (10 dense classes,
                                     5 depthwise, 2 grouped), and room */

/* A convolution table's groups: dense; depthwise (one input channel a group: JSON "groups":
 * "grouped" with a per-group K of kernel x kernel alone); grouped of wider groups (ResNeXt's,
 * RegNet's: the other "grouped" tables). */
enum fu_conv_groups { FU_CONV_DENSE = 0, FU_CONV_DEPTHWISE = 1, FU_CONV_GROUPED = 2 };

typedef struct fu_gemm_table {
  char dtype[8];             /* "bf16", "tf32", "fp32" */
  char layout[8];            /* "fwd", "dgrad", "wgrad" */
  int unaligned;             /* 1: measured with the vocabulary-like dimension not a multiple of 8 */
  int kernel, stride;        /* convolution tables: kernel size and stride (0 in GEMM tables) */
  int nchw;                  /* convolution tables: 1 measured in the NCHW layout, 0 channels-last */
  int grouped;               /* convolution tables: an fu_conv_groups (K: input channels per
                              * group x k x k; depthwise k x k) */
  char derived[48];          /* convolution tables: "" measured; else the GPU whose NCHW over
                              * channels-last ratio, point by point, made this NCHW table from the
                              * profile's own channels-last one (tools/derive_nchw.py) */
  int nm, nn, nk;            /* values along each axis */
  int m[FU_GEMM_GRID_AXIS];  /* ascending M values */
  int n[FU_GEMM_GRID_AXIS];  /* ascending N values */
  int k[FU_GEMM_GRID_AXIS];  /* ascending K values */
  float us[FU_GEMM_GRID_AXIS * FU_GEMM_GRID_AXIS * FU_GEMM_GRID_AXIS]; /* device time; 0 = missing */
} fu_gemm_table;

typedef struct fu_attn_point {
  char dtype[8];             /* "bf16", "fp32" (inputs of SDPA) */
  int head_dim;              /* head size */
  int causal;                /* 1 with a causal mask */
  double dropout;            /* attention dropout probability */
  int seq;                   /* sequence length (queries = keys) */
  int bh;                    /* batch x heads of the measurement */
  double fwd_us;             /* forward device time */
  double bwd_us;             /* backward device time */
  int gqa;                   /* 1: keys in groups of two query heads, SDPA's enable_gqa outside bf16,
                              * which PyTorch runs on its math path (calib_torch --parts
                              * attention_gqa; the profile's "attention_gqa" points) */
  char derived[48];          /* "" measured; else how it was made from other measurements */
} fu_attn_point;

typedef struct fu_op_table {
  char op[24];               /* operation name, e.g. "layernorm", "gelu", "dropout" */
  char dtype[8];             /* input dtype: "bf16" or "fp32" */
  int nsizes;                /* measured sizes (0: host costs only) */
  double numel[FU_OPS_SIZES];   /* ascending element counts of the input */
  double fwd_us[FU_OPS_SIZES];  /* forward device time */
  double bwd_us[FU_OPS_SIZES];  /* backward device time */
  double host_fwd_us;        /* host time to issue the forward (eager PyTorch, back to back) */
  double host_bwd_us;        /* host time of its backward node in the autograd engine */
  char derived[48];          /* "" measured; else how it was made from other measurements */
} fu_op_table;

typedef struct fu_optim_fit {
  char name[16];             /* "adamw", "adam", "sgd" (momentum); "<one>_clip": the step clips first */
  double base_us;            /* fixed cost of one step */
  double per_tensor_us;      /* per parameter tensor */
  double per_elem_us;        /* per parameter element (fp32 parameters) */
  /* With has_host, the three above are device time alone (the step behind a sleep kernel) and
   * the host's are apart: opt.step()'s CPU time inside a training step (after a forward and
   * backward over the same parameters), host_base_us + host_per_tensor_us x tensors, measured at
   * host-speed probe host_probe_us (0: unknown); tail_frac: the device time after the host's
   * last issue (the last kernel) as a share of the device time. Without has_host (older
   * calibrations, a tight loop of steps) per_tensor_us is the host's cost per tensor. */
  int has_host;
  double host_base_us, host_per_tensor_us, tail_frac, host_probe_us;
  /* The device time by PyTorch's multi-tensor (foreach) launches, where launch_us > 0 (it then
   * replaces base + per tensor + per element): each of the optimizer's foreach operations runs
   * its tensors in launches of at most 320 chunks of 65536 elements and a tensor count set by
   * the lists it touches (fu_optim_launches); a launch costs launch_us, plus per_moved_elem_us for
   * each element of each list it touches, plus per_chunk_elem_us for each element of its largest
   * chunk, per list (a block works through one chunk). Fitted to the same measured steps. */
  double launch_us, per_moved_elem_us, per_chunk_elem_us;
  /* The step's host and device overlap, where has_prologue (it then replaces tail_frac): opt.step()
   * runs Python over its parameters before it launches anything (prologue_frac of its host time;
   * the GPU meanwhile runs only what is left of backward), then issues the kernels as the GPU runs
   * them; where the host is behind, tail_us is left after its last issue (a launch or two, less
   * the Python after it: a fixed time, not a share of the device time). From the same steps. */
  int has_prologue;
  double prologue_frac, tail_us;
  /* A step that streams from HBM, where hbm_launch_us > 0: an operation whose lists hold more
   * bytes than the GPU's L2 cache (lists x elements x 4 > cache_bytes) prices each launch as
   * hbm_launch_us + hbm_per_moved_elem_us x lists x max(its elements, hbm_sat_blocks x its
   * largest chunk), in place of the launch form: a block keeps a fixed number of loads in flight,
   * so a launch of fewer full chunks than hbm_sat_blocks runs at the blocks' rate, not HBM's
   * (tools/calib_torch.py fit_optim_hbm). Smaller operations keep the launch form. */
  double hbm_launch_us, hbm_per_moved_elem_us, hbm_sat_blocks, cache_bytes;
  /* The step as a training step runs it, where cold_launch_us > 0 (it then replaces the launch
   * and HBM forms at every size): forward and backward have streamed far more than the L2 since
   * the last step, so each list's first read in the step comes from HBM; an operation whose lists
   * were all touched earlier in the step, within cache_bytes since, reads them from the L2 (warm).
   * Each launch costs cold_launch_us + per_touch_us x hypot(touches x its elements,
   * chunk_touches x its largest chunk), with the cold or warm pair: a block works through its
   * chunk at the memory's latency, and a full launch at its bandwidth (tools/optim_cold_rows.py,
   * from cold steps of the calibration's nets). warm_per_touch_us 0: warm operations priced cold. */
  double cold_launch_us, cold_per_touch_us, cold_chunk_touches, warm_per_touch_us, warm_chunk_touches;
  char derived[48];          /* "" measured; else how it was made from other measurements */
} fu_optim_fit;

typedef struct fu_compute {
  char source[256];          /* where the tables came from */
  char gpu[64];              /* the GPU they were measured on, where fit --out took them from a
                                base's ("": the profile's own GPU, as in every bundled profile) */
  int ngemm;                 /* GEMM tables in use */
  fu_gemm_table gemm[FU_GEMM_TABLES];
  int nattn;                 /* attention points in use */
  fu_attn_point attn[FU_ATTN_MAX];
  int nops;                  /* operation tables in use */
  fu_op_table ops[FU_OPS_MAX];
  int noptim;                /* optimizer fits in use */
  fu_optim_fit optim[FU_OPTIM_MAX];
  int nconv;                 /* convolution tables in use */
  fu_gemm_table conv[FU_CONV_TABLES];
  double host_probe_us;      /* the host-speed probe when the HF host rows were measured (0: none) */
  double host_probe_min_us;  /* the fastest of its readings (0: not recorded) */
  double host_speed_range[4]; /* forward lo, hi, backward lo, hi: the host's speed inside real
                               * training steps over these host rows' (0s: not measured) */
  double timer_us;           /* timer_overhead_us: taken off every table lookup's time (0: none) */
  double workspace_bytes;    /* the framework's device buffers through a step (0: not measured) */
} fu_compute;

void fu_compute_init(fu_compute *c);

/* "MxNxK" with multiples of 1024 written as "16k" (fits a 16-byte sample label); parse accepts
 * both spellings. */
void fu_gemm_label(char *buf, size_t len, int m, int n, int k);
int fu_gemm_label_parse(const char *s, int *m, int *n, int *k);

/* Adds one measured grid point (fusim fit, from calib's sweep samples). FU_EDATA when the
 * tables are full. */
int fu_compute_put_gemm(fu_compute *c, const char *dtype, const char *layout, int m, int n, int k,
                        double us);

/* Device time of a GEMM: the efficiency (FLOP/s) interpolated log-linearly in log M, log N,
 * log K between grid points; a dimension below the grid is priced as the grid's smallest (a
 * small product costs what the smallest measured one does), one above it at the edge's
 * efficiency (time grows with the FLOPs). When M, N or K is not a multiple of 8 and an
 * unaligned table of that dtype and layout exists, it is used (cuBLAS runs slower kernels for
 * such shapes, by up to 2-3x in bf16); otherwise the aligned table. Less c's timer_us, as every
 * lookup here. FU_EDATA (no message) when no table of that dtype and layout exists. */
int fu_compute_gemm_us(const fu_compute *c, const char *dtype, const char *layout, double m,
                       double n, double k, double *us);

/* Device time of a convolution of kernel size x kernel at stride from the conv table of that
 * dtype, layout, kernel, stride and memory format (nchw 1: NCHW, 0: channels-last), (m, n, k)
 * as in the header's "conv", interpolated as fu_compute_gemm_us does. FU_EDATA (no message)
 * when no such table exists (the caller prices the implicit GEMM instead, channels-last) or no
 * measured point surrounds it. */
int fu_compute_conv_us(const fu_compute *c, const char *dtype, const char *layout, int kernel,
                       int stride, int nchw, double m, double n, double k, double *us);

/* The same for a grouped convolution (groups > 1; depthwise: groups = channels) from the grouped
 * table of its class ("groups": "grouped"): fwd (N Ho Wo, Cout, (Cin / groups) k k), dgrad
 * (N Ho Wo, (Cin / groups) k k, Cout), wgrad (Cout, (Cin / groups) k k, N Ho Wo). A per-group K
 * of k x k (depthwise) reads the depthwise table, a larger one the table of wider groups.
 * FU_EDATA (no message) where there is no such table: a grouped convolution is not a GEMM,
 * nothing stands in. */
int fu_compute_gconv_us(const fu_compute *c, const char *dtype, const char *layout, int kernel,
                        int stride, int nchw, double m, double n, double k, double *us);

/* Attention forward and backward for bh problems (query heads) of seq x head_dim: the nearest
 * measured (dtype, head_dim, causal, dropout) among the points of that gqa kind (0: the fused
 * kernels; 1: grouped keys on the math path), log-linear in seq between points; in bh log-linear
 * per problem between the bh a length was timed at, linear above the largest, the smallest's
 * whole time below it (linear where a length has one bh). FU_EDATA when nothing of that dtype and
 * kind is measured. */
int fu_compute_attn_us(const fu_compute *c, const char *dtype, int head_dim, int causal, double dropout,
                       int gqa, double seq, double bh, double *fwd_us, double *bwd_us);

/* The "derived" mark of c's attention points of dtype and gqa kind ("" where the first such point
 * was measured, or none exists): a derivation marks every point it makes. */
const char *fu_compute_attn_derived(const fu_compute *c, const char *dtype, int gqa);

/* The table of an operation (dtype falls back to the other one when missing); NULL if none. */
const fu_op_table *fu_compute_op(const fu_compute *c, const char *op, const char *dtype);

/* Device time of op t (a table of c) at numel elements: log-log interpolation, the smallest
 * size's time below the table, proportional to numel above it, less c's timer_us (c NULL: none).
 * bwd: 0 forward, 1 backward. */
double fu_op_us(const fu_compute *c, const fu_op_table *t, double numel, int bwd);

/* One optimizer step over ntensors tensors of numel elements in all; FU_EDATA when unknown. */
int fu_compute_optim_us(const fu_compute *c, const char *name, double ntensors, double numel,
                        double *us);

/* PyTorch's multi-tensor apply over tensors of numel[0..n) elements, in the optimizer's order,
 * for a foreach operation touching `lists` lists (1..5; scalarlist: 1 when it takes one scalar
 * per tensor): adds its launches, the elements its launches touch summed over lists, and the
 * largest chunk of each launch summed over lists (ATen MultiTensorApply.cuh: chunks of 65536,
 * at most 320 a launch, at most 110 / 64 / 48 / 36 / 30 tensors for 1..5 lists, 96 for one
 * scalarlist); sat (may be NULL): adds lists x max(elements, sat_blocks x largest chunk) of
 * each launch (the HBM form, fu_optim_fit). */
void fu_optim_launches(const double *numel, size_t n, int lists, int scalarlist, double *launches,
                       double *moved, double *chunk, double sat_blocks, double *sat);

/* The device time of optimizer o's step over tensors of numel[0..n) elements (in the order the
 * optimizer takes them): the launch form where o has one (launch_us > 0; the foreach operations
 * of PyTorch's adam / adamw / sgd with momentum), each operation that streams from HBM by the HBM
 * form where o has that too (hbm_launch_us > 0), else base + per tensor + per element. A name
 * "<optimizer>_clip" (adamw_clip, adam_clip, sgd_clip) adds torch.nn.utils.clip_grad_norm_'s
 * operations before the step's: _foreach_norm (one list, half an in-place list's bytes),
 * _foreach_mul_ (one list) and 6 + ceil(tensors / 400) + ceil(tensors / 128) small kernels, a launch each
 * (tools/calib_torch.py optim_ops, clip_small_launches). */
double fu_optim_dev_us(const fu_optim_fit *o, const double *numel, size_t n);

/* JSON (Jansson) of the tables; parse fills c from the "compute" object (what names the file for
 * messages). Parse replaces only the parts present in o. */
struct json_t;
struct json_t *fu_compute_to_json(const fu_compute *c);
int fu_compute_parse(struct json_t *o, const char *what, fu_compute *c);

/* tools/calib_torch.py's JSON (format fusim-compute-1) at path into c (the parts it holds) and,
 * where it says, the GPU's memory into *gpu_mem_bytes and its name into gpu (gpu_len bytes; ""
 * where the file names none); its source label is appended to src ("; " between). One line
 * naming the file on failure (FU_EDATA, FU_ENOINPUT); c is then as it was. */
int fu_compute_load_torch(const char *path, fu_compute *c, double *gpu_mem_bytes, char *gpu, size_t gpu_len,
                          char *src, size_t src_len);

/* The tables' source after an update described by src: src alone when the update replaced
 * every table (replace_all), else appended to the source already there ("; " between). What does
 * not fit the field (the profile loader's limit) is left out by whole entries, fu_list_fit's
 * "; and N more" saying how many. FU_ENOMEM (source unchanged, one line said) when memory runs out. */
int fu_compute_set_source(fu_compute *c, const char *src, int replace_all);

#endif
