/* fu_builder.h: workloads from a model's hyper-parameters (what `fusim workload --transformer`
 * and `--cnn` write), priced operation by operation from the profile's compute tables
 * (model/fu_compute.h), with the device memory the training step needs.
 *
 * The model is a list of the operations eager PyTorch runs in forward, each with its parameters
 * (names as Hugging Face / torchvision give them), its device time forward and backward (GEMMs
 * from the cuBLAS table in the three layouts of a linear layer, convolutions from the cuDNN
 * tables by kernel and stride, attention from the SDPA table, memory-bound operations from their
 * tables by element count, autograd's sums of the gradients of a tensor used by several
 * operations as adds of its size), the host's time to issue it
 * (forward in Python, backward in the autograd engine) and the bytes it keeps for backward. A
 * timeline runs them as the framework does: the host issues operations one after another, the
 * GPU runs each when the host has issued it and the one before has finished, so a step whose
 * kernels are shorter than their issue cost is host-bound. Backward runs the operations in
 * reverse; a gradient is ready when its operation's backward (and, under autocast, the cast of
 * the gradient back to fp32) ends. The optimizer step comes from the profile's fit.
 *
 * Without compute tables in the profile (or with --tflops/--efficiency given) the first
 * version's roofline is used: t = max(flops / (tflops x efficiency), bytes / HBM, kernels x
 * kernel_us), backward 2x forward. */
#ifndef FU_BUILDER_H
#define FU_BUILDER_H

#include <stdint.h>

#include "fu_profile.h"
#include "fu_workload.h"

typedef enum fu_arch {
  FU_ARCH_LLAMA,             /* HF LlamaForCausalLM: pre-RMSNorm, SwiGLU, rotary, untied head */
  FU_ARCH_BERT,              /* HF BertForMaskedLM: post-LayerNorm, GELU, biases, MLM head, tied */
  FU_ARCH_GPT2,              /* HF GPT2LMHeadModel: pre-LayerNorm, fused c_attn, gelu_new, tied */
  FU_ARCH_QWEN3,             /* HF Qwen3ForCausalLM: Llama's layer plus an RMSNorm on each head's
                              * queries and keys (q_norm, k_norm); host rows of its own */
  FU_ARCH_PHI3,              /* HF Phi3ForCausalLM: Llama's layer with q, k, v in one projection
                              * (qkv_proj) and gate, up in one (gate_up_proj); host rows of its own */
  FU_ARCH_OLMO2,             /* HF Olmo2ForCausalLM: Llama's layer with its norms after attention and
                              * the MLP, an RMSNorm on all of q and all of k; host rows of its own */
  FU_ARCH_VIT,               /* torchvision's VisionTransformer: a patch convolution, a class
                              * token, pre-LayerNorm nn.MultiheadAttention, GELU MLP, a head on the
                              * class token (seq = (image / patch)^2 + 1, vocab = classes) */
  FU_ARCH_CUSTOM             /* the first version's switches (--gated-ffn, --bias, ...) */
} fu_arch;

typedef enum fu_precision {
  FU_PREC_AUTOCAST,          /* fp32 parameters, gradients and states; bf16 autocast compute */
  FU_PREC_BF16,              /* bf16 parameters and gradients; fp32 master weights in the optimizer */
  FU_PREC_TF32,              /* fp32 everything, matrix products in TF32 */
  FU_PREC_FP32               /* fp32 everything, strict fp32 matrix products */
} fu_precision;
/* A precision's name as --precision spells it ("autocast-bf16"; its alias amp-bf16 is not). */
const char *fu_precision_name(fu_precision p);

typedef struct fu_tf_spec {
  long layers, hidden, heads, kv_heads, ffn, vocab, seq, batch; /* hyper-parameters */
  long head_dim;             /* a head's size (0: hidden / heads); llama, qwen3 and custom only */
  long image, patch;         /* vit: the image's side and the patch's, in pixels (seq follows) */
  fu_arch arch;              /* layer structure and parameter names */
  fu_precision prec;         /* precision of parameters and compute */
  int grad_bytes;            /* bytes per gradient element (0: from prec) */
  int gated, bias, layernorm, tied; /* FU_ARCH_CUSTOM's switches (tied: llama's, qwen3's, phi3's too) */
  int qkv_bias;              /* biases on q, k and v alone (Qwen2); llama, qwen3 and custom */
  double dropout;            /* dropout probability (< 0: the architecture's default) */
  char optimizer[16];        /* "adamw", "adam", "sgd" */
  long accum;                /* accum_steps */
  double tflops;             /* > 0: the roofline with this throughput (the first version) */
  double efficiency;         /* roofline: fraction of tflops reached */
  double hbm_gbps;           /* roofline: memory bandwidth (0 = profile's) */
  double kernel_us;          /* roofline: per-kernel floor (< 0 = profile's) */
  char name[128];            /* workload name ("" = made up from the shape) */
  struct fu_outfile *ops;    /* write the priced operations here as CSV, uncommitted: the caller
                                commits it once the workload passed its checks (NULL: no) */
  double host_probe_us;      /* > 0: host costs scaled from the profile's probe to this one */
  double host_bwd_probe_us;  /* > 0 (with host_probe_us): backward's by the autograd thread's probe */
  double host_ref_us[2];     /* > 0: the reference step's forward, backward CPU time on the host
                              * priced for (tools/host_ref.py); host costs carried by them */
  double ready_hook_us;      /* > 0: a hook on every gradient costs the host this much after it
                              * (a capture's ready-time hooks): the times are a hooked step's */
  double clip_norm;          /* > 0: the step clips the gradients' total norm to this first
                              * (torch.nn.utils.clip_grad_norm_), priced by the profile's
                              * "<optimizer>_clip" fit (none: FU_EDATA); not with the roofline */
} fu_tf_spec;


/* Sets the defaults (arch custom, precision bf16, adamw, dropout default, accum 1, roofline
 * off). */
void fu_tf_spec_init(fu_tf_spec *s);

/* Checks hyper-parameters: one line naming the flag and exit status FU_EUSAGE when impossible
 * (zero layers, heads not dividing hidden, kv heads not dividing heads, ...). */
int fu_tf_spec_check(const fu_tf_spec *s);

/* --arch vit: the tokens a ViT's encoder runs, (image / patch)^2 patches and the class token
 * (0 where the patch does not tile the image). */
long fu_vit_seq(const fu_tf_spec *s);

/* The compute model's own 95% relative error, each table-priced estimate's "compute_rel" (predict
 * widens the interval by it): the 95th percentile of |(fwd+bwd+opt) estimate / capture - 1| over
 * the 13 H200 captures tools/compare_compute.py holds to its targets (data/compute/comparison.csv
 * and heldout.csv), derived by `python3 tools/compute_rel.py`. Not measured for the roofline,
 * which writes none. */
#define FU_COMPUTE_REL 0.0975

/* Builds the workload (estimated; notes say how it was priced and with which profile) and its
 * memory (w->mem). prof may be NULL for the roofline when tflops > 0. */
int fu_build_transformer(const fu_tf_spec *s, const fu_profile *prof, const char *prof_name,
                         fu_workload *w);

/* A CNN by name (resnet50, resnet101, resnet152, wide_resnet50_2, wide_resnet101_2, the ResNeXts,
 * the RegNets, ... as torchvision builds them), at batch x image x image, channels-last unless
 * nchw; SGD with momentum unless optimizer says otherwise. */
typedef struct fu_cnn_spec {
  char model[32];            /* "resnet50", ..., "wide_resnet101_2" */
  long batch;                /* micro-batch */
  long image;                /* input height = width */
  int nchw;                  /* 1: PyTorch's default NCHW layout (its own conv, batch norm and
                                pooling tables), 0: channels-last */
  fu_precision prec;         /* autocast or tf32/fp32 */
  char optimizer[16];        /* "sgd" (momentum) by default */
  long accum;                /* accum_steps */
  char name[128];            /* workload name ("" = made up) */
  struct fu_outfile *ops;    /* write the priced operations here as CSV, uncommitted: the caller
                                commits it once the workload passed its checks (NULL: no) */
  double host_probe_us;      /* > 0: host costs scaled from the profile's probe to this one */
  double host_bwd_probe_us;  /* as fu_tf_spec's */
  double host_ref_us[2];     /* as fu_tf_spec's */
  double ready_hook_us;      /* as fu_tf_spec's */
  double clip_norm;          /* as fu_tf_spec's */
} fu_cnn_spec;

void fu_cnn_spec_init(fu_cnn_spec *s);
int fu_build_cnn(const fu_cnn_spec *s, const fu_profile *prof, const char *prof_name,
                 fu_workload *w);

/* 1 when prof has the compute tables a table-priced what-if reads (GEMM and operation tables);
 * without them the builders refuse it (the roofline, --tflops, needs none). */
int fu_builder_has_tables(const fu_profile *prof);

/* ---- inside sim/ only: what the builders share (fu_builder.c: the operations, the transformer
 * builder, the host model, the timelines and the optimizer step; fu_build_cnn.c: the torchvision
 * CNNs; fu_build_mobile.c: the depthwise ones among them; fu_build_convnext.c: ConvNeXt;
 * fu_build_regnet.c: the RegNets). A file that defines FU_BUILDER_INTERNAL
 * before including this header sees it; the interface is the part above. */
#ifdef FU_BUILDER_INTERNAL

/* ---- operations --------------------------------------------------------------------------- */

typedef struct fu__op {
  char what[24];             /* the operation's kind, for --ops listings */
  double fwd_us, bwd_us;     /* device time */
  double hfwd_us, hbwd_us;   /* host time to issue (Python forward, autograd backward) */
  double hbwd_paths_us;      /* of hbwd_us: what the real-size paths add (fu__emb_sort,
                              * fu__reduce_split), listed by --ops for tools/shape_rows.py */
  double saved;              /* bytes kept for backward */
  int layer;                 /* transformer layer it belongs to, -1 outside the layers */
  int past_block;            /* CNN: 1 + which bottleneck block past ResNet-50's it belongs to; 0 none */
  int nparams;               /* parameters it owns (0..2) */
  char pname[2][128];        /* their names, in the order their gradients become ready */
  uint64_t numel[2];         /* their element counts */
  double tail_us[2];         /* backward time after the op's own (gradient casts) per param */
  /* roofline only */
  double flops, bytes;       /* forward FLOPs and HBM bytes */
  int kernels;               /* forward kernels */
  double nidx;               /* an embedding's index count (its backward's path: fu__emb_sort) */
  double red_rows, red_cols; /* a column sum in backward (a bias's gradient, a weight broadcast
                              * over rows): rows summed, outputs (its path: fu__reduce_split) */
  int row_lacks_bias;        /* a bias the architecture's host rows were measured without (Qwen2's
                              * q, k, v on Llama's rows): its host costs added after (fu__bias_host) */
} fu__op;

/* The derived rows (fu_op_table.derived: made from other measurements) a build prices with,
 * named in one warning at its end (fu__warn_derived). */
typedef struct fu__derived_seen {
  const fu_op_table *t[8];
  int n;
} fu__derived_seen;

typedef struct fu__ctx {
  const fu_compute *c;       /* tables */
  fu_precision prec;         /* precision */
  const char *gdt;           /* GEMM table dtype: bf16, tf32, fp32 */
  const char *adt;           /* activation dtype name (bf16 / fp32) */
  const char *rdt;           /* residual stream dtype name */
  double ab, rb;             /* bytes per activation / residual element */
  int autocast;              /* 1 under autocast: fp32 inputs and weights cast to bf16 */
  double T;                  /* tokens (or rows) of the micro-batch */
  int layer;                 /* current layer, -1 outside */
  int past_block;            /* current CNN block past ResNet-50's (fu__op.past_block) */
  fu__op *ops;               /* forward order (malloc'd) */
  size_t n, cap;             /* used, allocated */
  double casts;              /* autocast weight copies, bytes */
  int missing;               /* an operation had no table (priced 0; reported) */
  int attn_unpriced;         /* grouped keys on SDPA's math path priced as the fused kernels (warned) */
  const char *attn_derived;  /* the math path's points priced with, where derived (warned) */
  char missing_what[96];     /* its name, dtype and shape (fu__miss) */
  int roofline;              /* 1: price by the roofline instead */
  double unaligned;          /* a bf16 GEMM dimension that is not a multiple of 8 (0: none) */
  double host_k;             /* --host-probe over the profile's probe (0: not given, as 1) */
  double ref_kf;             /* --host-ref: forward's host speed over the profile's (0: not given) */
  double hook_us;            /* --ready-hook-us: the host's cost of a hook after each gradient */
  int nchw;                  /* CNN in PyTorch's default NCHW layout (else channels-last) */
  fu__derived_seen *seen;    /* derived rows priced with (NULL: not tracked) */
} fu__ctx;

#define FU__TRY(e) \
  do {             \
    if (!(e)) return FU_ENOMEM; \
  } while (0)

/* shared helpers (each documented where it is defined) */
void fu__bn_channels(const fu__ctx *x, fu__op *o, const char *dtype, double numel, double c);
int fu__clip_fit(const fu_compute *c, const char *name, const char *prof_name);
void fu__conv_bias(fu__ctx *x, fu__op *o, const char *name, double cout, double rows);
double fu__copy_us(const fu__ctx *x, double bytes);
void fu__ctx_prec(fu__ctx *x, fu_precision p);
int fu__dump_ops(const fu__ctx *x, struct fu_outfile *of);
fu__op *fu__fanout(fu__ctx *x, double numel, const char *dtype, int consumers);
int fu__has_tables(const fu_profile *p);
void fu__hook_note(const fu__ctx *x, char *buf, size_t n);
void fu__host_bound(const fu__ctx *x, const char *how, int measured, char *buf, size_t n);
int fu__host_carry(fu__ctx *x, double probe_us, double bprobe_us, const double ref[2],
                   const char *arch, const char *prof_name);
const char *fu__host_how(const double ref[2], double probe_us, double bprobe_us);
fu__op *fu__linear(fu__ctx *x, const char *name, double din, double dout, int bias,
                   int in_fp32, int saved_in, int has_weight);
fu__op *fu__norm(fu__ctx *x, const char *name, int layernorm, int bias, double H, const char *dtype);
double fu__vit_op_us(const fu__ctx *x, const char *table, const char *dtype, double numel, double fallback_us);
double fu__vit_copy_us(const fu__ctx *x, const char *dtype, double numel);
void fu__mem_finish(fu_mem *m, double loss_transient, double opt_temp, long accum);
/* One of the optimizers the profiles' fits price (adamw, adam, sgd); else one line, FU_EUSAGE. */
int fu__optimizer_check(const char *name);
double fu__image_inputs(const fu__ctx *x, double batch, double image);
fu__op *fu__memop(fu__ctx *x, const char *table, const char *dtype, double numel,
                  double saved);
void fu__miss(fu__ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
const fu_op_table *fu__mode_row(const fu__ctx *x, const char *key);
void fu__seen(const fu__ctx *x, const fu_op_table *t);
void fu__warn_derived(const fu__ctx *x, const char *prof_name);
void fu__no_input_cast(fu__ctx *x, fu__op *o, int in_fp32);
double fu__opt_states(const char *opt, fu_precision p);
double fu__opt_temp(const char *opt);
int fu__optim(const fu_compute *c, const char *name, double clip, const fu_workload *w,
              double elem_bytes, double lead, double host_k, double probe_us, double ref_kf,
              const char *prof_name, double *us, char *note, size_t nnote);
void fu__param(fu__op *o, const char *name, const char *suffix, uint64_t numel);
fu__op *fu__push(fu__ctx *x);
int fu__scale_host_whole(fu__ctx *x, const fu__ctx *ref, const char *key, double start_ref, double start_x,
                         const char *prof_name);
int fu__timeline(const fu__ctx *x, fu_workload *w, double *fwd_out, double *bwd_out,
                 double *lead_out);
/* fu_build_cnn.c: a convolution by the profile's conv tables (a ViT's patch embedding too), the
 * CNN operations fu_build_mobile.c builds with too */
double fu__conv_us(fu__ctx *x, const char *layout, int kernel, int stride, double m, double n, double k);
fu__op *fu__conv(fu__ctx *x, const char *name, double batch, double cin, double cout, double k,
                 double stride, double hin, int saved_in, double *hout);
fu__op *fu__conv_pad(fu__ctx *x, const char *name, double batch, double cin, double cout, double k,
                     double stride, double pad, double hin, int saved_in, double *hout);
void fu__conv_finish(fu__ctx *x, fu__op *o, const char *name, int in_fp32, double wnumel,
                     const char *host_row);
fu__op *fu__cnn_bn(fu__ctx *x, const char *name, double B, double c, double h, int relu);
fu__op *fu__cnn_classifier(fu__ctx *x, const char *name, double din, double B, int in_fp32);
double fu__conv_out(double hin, double k, double stride, double pad);
fu__op *fu__pool(fu__ctx *x, double n_in, double n_idx);
fu__op *fu__stem_pool(fu__ctx *x, double B, double c, double *h);
fu__op *fu__dense_cat(fu__ctx *x, double k, double numel);
fu__op *fu__gconv(fu__ctx *x, const char *name, double B, double c, double gw, double k, double stride,
                  double hin, double *hout);
int fu__has_conv_table(const fu__ctx *x, int grouped, int nchw, int kernel, int stride);
/* fu_build_mobile.c: torchvision's depthwise-convolution CNNs (1: model is one of them), and their
 * operations other CNNs share (activations, Conv2dNormActivation, the SE block, the global pool) */
int fu__mobile_known(const char *model);
int fu__mobile_ops(fu__ctx *x, const char *model, double B, double img);
fu__op *fu__act(fu__ctx *x, const char *act, double numel, int inplace);
void fu__relu_kept(fu__ctx *x, double numel);
int fu__conv_bn(fu__ctx *x, const char *cname, const char *bname, double B, double cin, double cout,
                double k, double s, double gw, const char *act, double *h);
double fu__div8(double v);
double fu__make_divisible(double v, double d);
fu__op *fu__global_pool(fu__ctx *x, double numel);
int fu__se(fu__ctx *x, const char *p, double B, double c, double sq, double h, const char *act,
           const char *gate);
/* fu_build_convnext.c: torchvision's ConvNeXt (1: model is one of them) */
int fu__convnext_known(const char *model);
int fu__convnext_ops(fu__ctx *x, const char *model, double B, double img);
/* fu_build_regnet.c: torchvision's RegNets (1: model is one of them) */
int fu__regnet_known(const char *model);
int fu__regnet_ops(fu__ctx *x, const char *model, double B, double img);

#endif /* FU_BUILDER_INTERNAL */

#endif
