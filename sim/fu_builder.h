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

typedef struct fu_tf_spec {
  long layers, hidden, heads, kv_heads, ffn, vocab, seq, batch; /* hyper-parameters */
  long head_dim;             /* a head's size (0: hidden / heads); llama, qwen3 and custom only */
  long image, patch;         /* vit: the image's side and the patch's, in pixels (seq follows) */
  fu_arch arch;              /* layer structure and parameter names */
  fu_precision prec;         /* precision of parameters and compute */
  int grad_bytes;            /* bytes per gradient element (0: from prec) */
  int gated, bias, layernorm, tied; /* FU_ARCH_CUSTOM's switches (tied: llama's, qwen3's too) */
  int qkv_bias;              /* biases on q, k and v alone (Qwen2); llama, qwen3 and custom */
  double dropout;            /* dropout probability (< 0: the architecture's default) */
  char optimizer[16];        /* "adamw", "adam", "sgd" */
  long accum;                /* accum_steps */
  double tflops;             /* > 0: the roofline with this throughput (the first version) */
  double efficiency;         /* roofline: fraction of tflops reached */
  double hbm_gbps;           /* roofline: memory bandwidth (0 = profile's) */
  double kernel_us;          /* roofline: per-kernel floor (< 0 = profile's) */
  char name[128];            /* workload name ("" = made up from the shape) */
  const char *ops_csv;       /* write the priced operations here as CSV (NULL: no) */
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

/* Builds the workload (estimated; notes say how it was priced and with which profile) and its
 * memory (w->mem). prof may be NULL for the roofline when tflops > 0. */
int fu_build_transformer(const fu_tf_spec *s, const fu_profile *prof, const char *prof_name,
                         fu_workload *w);

/* A CNN by name (resnet50, resnet101, resnet152, wide_resnet50_2, wide_resnet101_2 as torchvision
 * builds them), at batch x image x image, channels-last unless nchw; SGD with momentum unless
 * optimizer says otherwise. */
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
  const char *ops_csv;       /* write the priced operations here as CSV (NULL: no) */
  double host_probe_us;      /* > 0: host costs scaled from the profile's probe to this one */
  double host_bwd_probe_us;  /* as fu_tf_spec's */
  double host_ref_us[2];     /* as fu_tf_spec's */
  double ready_hook_us;      /* as fu_tf_spec's */
  double clip_norm;          /* as fu_tf_spec's */
} fu_cnn_spec;

void fu_cnn_spec_init(fu_cnn_spec *s);
int fu_build_cnn(const fu_cnn_spec *s, const fu_profile *prof, const char *prof_name,
                 fu_workload *w);

/* Memory of a plan: the workload's memory (its "memory" block: w->mem.peak) plus fusion buffers
 * of fusion_bytes, against gpu_bytes. *fits 1 when it fits; *over_bytes how much it needs above
 * the GPU (<= 0 when it fits). Unknown (no memory in the workload or no GPU size): *fits = -1. */
void fu_mem_check(double need_bytes, double fusion_bytes, double gpu_bytes, int *fits,
                  double *over_bytes);

#endif
