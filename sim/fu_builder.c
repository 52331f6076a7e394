/* fu_builder.c: transformer workloads from hyper-parameters, priced per operation from the
 * profile's compute tables (see fu_builder.h for the model), and what every builder shares (the
 * operations, the host model, the timelines, the optimizer step: fu_builder.h's internal part);
 * the CNNs are in fu_build_cnn.c. */
#define FU_BUILDER_INTERNAL /* fu_builder.h: the builders' shared part */
#include "fu_builder.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"
#include "fu_output.h"

#define FU__DEFAULT_HBM_GBPS 3840.0 /* roofline: 80% of the H200's 4.8 TB/s datasheet bandwidth */
#define FU__DEFAULT_KERNEL_US 5.0   /* roofline: eager PyTorch host cost per op */

/* ---- operations --------------------------------------------------------------------------- */

fu__op *fu__push(fu__ctx *x) {
  if (x->n == x->cap) {
    size_t nc = x->cap ? 2 * x->cap : 256;
    fu__op *p = realloc(x->ops, nc * sizeof *p);
    if (!p) return NULL;
    x->ops = p;
    x->cap = nc;
  }
  fu__op *o = &x->ops[x->n++];
  memset(o, 0, sizeof *o);
  o->layer = x->layer;
  o->past_block = x->past_block;
  return o;
}

void fu__param(fu__op *o, const char *name, const char *suffix, uint64_t numel) {
  snprintf(o->pname[o->nparams], sizeof o->pname[0], "%.110s%.16s", name, suffix);
  o->numel[o->nparams++] = numel;
}

/* The first operation the profile has no time for, named with its dtype (and shape). */
void fu__miss(fu__ctx *x, const char *fmt, ...) {
  if (!x->missing) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->missing_what, sizeof x->missing_what, fmt, ap);
    va_end(ap);
  }
  x->missing = 1;
}

/* A memory-bound operation from its table (dtype: its input's). */
fu__op *fu__memop(fu__ctx *x, const char *table, const char *dtype, double numel,
                  double saved) {
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  const fu_op_table *t = fu_compute_op(x->c, table, dtype);
  snprintf(o->what, sizeof o->what, "%s", table);
  if (!t) fu__miss(x, "%s (%s)", table, dtype);
  fu__seen(x, t);
  o->fwd_us = fu_op_us(x->c, t, numel, 0);
  o->bwd_us = fu_op_us(x->c, t, numel, 1);
  o->hfwd_us = t ? t->host_fwd_us : 0;
  o->hbwd_us = t ? t->host_bwd_us : 0;
  o->saved = saved;
  o->bytes = numel * 4 * (strcmp(dtype, "fp32") ? 2 : 4); /* roofline: read + write, ~2 tensors */
  o->kernels = 1;
  return o;
}

/* A layer's residual add: under autocast the fp32 residual stream plus a bf16 branch output,
 * which PyTorch adds through its unvectorised type-converting path (add_mixed: the add as
 * autocast runs it, tools/calib_torch.py ops_kv, where the profile has it), else the add table
 * of the residual's dtype. */
static fu__op *fu__resid_add(fu__ctx *x, const char *R, double numel) {
  if (x->autocast && fu_compute_op(x->c, "add_mixed", "bf16"))
    return fu__memop(x, "add_mixed", "bf16", numel, 0);
  return fu__memop(x, "add", R, numel, 0);
}

/* A copy of bytes (a reshape of a transposed tensor): priced as the cast table's traffic
 * (a cast reads 4 and writes 2 bytes per element). */
double fu__copy_us(const fu__ctx *x, double bytes) {
  return fu_op_us(x->c, fu_compute_op(x->c, "cast", "fp32"), bytes / 6.0, 0);
}

/* 1 when the profile carries a GEMM table measured at unaligned sizes for this dtype */
static int fu__has_unaligned(const fu__ctx *x) {
  for (int i = 0; i < x->c->ngemm; i++)
    if (x->c->gemm[i].unaligned && !strcmp(x->c->gemm[i].dtype, x->gdt)) return 1;
  return 0;
}

/* The three products of a layer whose forward is M x N x K (M rows, N outputs, K inputs):
 * forward, the input gradient (M x K over N) and the weight gradient (N x K over M). */
static void fu__gemm3(fu__ctx *x, double M, double N, double K, double *f, double *dg, double *wg) {
  /* the first product without a time is named: a table with untimed points (a sweep cut by its
   * budget) leaves shapes with no timed point around them */
  const char *lay = NULL;
  double m = M, n = N, k = K; /* the product looked up */
  if (fu_compute_gemm_us(x->c, x->gdt, "fwd", M, N, K, f) != FU_OK)
    lay = "fwd";
  else if (fu_compute_gemm_us(x->c, x->gdt, "dgrad", M, K, N, dg) != FU_OK)
    lay = "dgrad", n = K, k = N;
  else if (fu_compute_gemm_us(x->c, x->gdt, "wgrad", N, K, M, wg) != FU_OK)
    lay = "wgrad", m = N, n = K, k = M;
  if (lay) {
    fu__miss(x, "gemm %s %s, %.0f x %.0f x %.0f", x->gdt, lay, m, n, k);
    *f = *dg = *wg = 0;
  }
}

/* tools/calib_torch.py times the host cost of a linear layer and a convolution under autocast
 * with an fp32 input, so it includes the input's cast; where the input is already bf16 that
 * cast (its forward call and its backward node) is not there. */
void fu__no_input_cast(fu__ctx *x, fu__op *o, int in_fp32) {
  const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
  if (!x->autocast || in_fp32 || !cast) return;
  o->hfwd_us = o->hfwd_us > cast->host_fwd_us ? o->hfwd_us - cast->host_fwd_us : 0;
  o->hbwd_us = o->hbwd_us > cast->host_bwd_us ? o->hbwd_us - cast->host_bwd_us : 0;
}

/* A linear layer y = x W^T (+ b), x: T x din. in_fp32: its input is fp32 (autocast casts it to
 * bf16, a copy kept for backward); saved_in: its input is not kept by another operation. */
fu__op *fu__linear(fu__ctx *x, const char *name, double din, double dout, int bias,
                   int in_fp32, int saved_in, int has_weight) {
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  double T = x->T, f, dg, wg;
  snprintf(o->what, sizeof o->what, "linear");
  /* cuBLAS needs 16-byte aligned rows for its fast bf16 kernels; fu_compute_gemm_us prices such
   * a product from the profile's unaligned tables, and without them as if aligned (warned once) */
  if (!strcmp(x->gdt, "bf16") && (fmod(din, 8) != 0 || fmod(dout, 8) != 0) && !fu__has_unaligned(x))
    x->unaligned = fmod(din, 8) != 0 ? din : dout;
  fu__gemm3(x, T, dout, din, &f, &dg, &wg);
  o->fwd_us = f;
  o->bwd_us = dg + wg;
  const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
  const fu_op_table *lin = fu_compute_op(x->c, "linear", x->autocast ? "bf16" : "fp32");
  o->hfwd_us = lin ? lin->host_fwd_us : 0;
  o->hbwd_us = lin ? lin->host_bwd_us : 0;
  if (bias) o->bwd_us += fu_op_us(x->c, fu_compute_op(x->c, "bias_grad", x->adt), T * dout, 0);
  fu__no_input_cast(x, o, in_fp32);
  double in_bytes = x->ab * T * din;
  if (x->autocast && in_fp32) {
    o->fwd_us += fu_op_us(x->c, cast, T * din, 0); /* fp32 input to bf16 */
    o->bwd_us += fu_op_us(x->c, cast, T * din, 1); /* its gradient back to fp32 */
    o->saved += 2 * T * din;                 /* the cast copy is what backward keeps */
  } else if (saved_in) {
    o->saved += in_bytes;
  }
  if (has_weight && x->autocast) {
    o->fwd_us += fu_op_us(x->c, cast, din * dout, 0); /* the weight cast, kept until backward */
    o->tail_us[0] = fu_op_us(x->c, cast, din * dout, 1);
    x->casts += 2 * din * dout;
  }
  /* autocast casts the bias too (F.linear / addmm take all their operands in bf16): a small copy
   * each way (bert_base's forward runs 198 bf16 casts, 16.5 a layer: 6 weights, 6 biases, 4
   * inputs; its backward as many casts back) */
  if (bias && x->autocast) {
    o->fwd_us += fu_op_us(x->c, cast, dout, 0);
    o->tail_us[has_weight ? 1 : 0] = fu_op_us(x->c, cast, dout, 1);
    x->casts += 2 * dout;
  }
  o->flops = 2 * T * din * dout;
  o->bytes = (T * din + T * dout + din * dout) * x->ab;
  o->kernels = 1;
  if (has_weight) fu__param(o, name, ".weight", (uint64_t)(din * dout));
  if (bias) fu__param(o, name, ".bias", (uint64_t)dout);
  if (bias) o->red_rows = T, o->red_cols = dout;
  return o;
}

/* A head tied to the input embedding (emb: the embedding's index in x->ops), numel the shared
 * weight's elements. Under autocast F.linear casts the fp32 weight to bf16 every step (the copy
 * kept for backward: autocast caches it) and its gradient back to fp32; in every precision
 * autograd sums the head's gradient with the embedding's before accumulating it, an fp32 add of
 * the weight's size when the embedding's backward (the last operation) delivers its part.
 * fu__linear prices neither for a head that owns no weight. */
/* An add of numel elements in dtype by the profile's add table (a gradient sum); without the
 * table, 0 and the build's missing table named. */
static double fu__add_us(fu__ctx *x, const char *dtype, double numel) {
  const fu_op_table *t = fu_compute_op(x->c, "add", dtype);
  if (!t) fu__miss(x, "add (%s)", dtype);
  return fu_op_us(x->c, t, numel, 0);
}

static void fu__tied_head(fu__ctx *x, fu__op *head, size_t emb, double numel) {
  if (x->autocast) {
    const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
    head->fwd_us += fu_op_us(x->c, cast, numel, 0);
    head->bwd_us += fu_op_us(x->c, cast, numel, 1);
    x->casts += 2 * numel;
  }
  x->ops[emb].bwd_us += fu__add_us(x, "fp32", numel);
}

/* ---- the transformer ------------------------------------------------------------------------ */

void fu_tf_spec_init(fu_tf_spec *s) {
  memset(s, 0, sizeof *s);
  s->arch = FU_ARCH_CUSTOM;
  s->prec = FU_PREC_BF16;
  s->dropout = -1;
  snprintf(s->optimizer, sizeof s->optimizer, "adamw");
  s->accum = 1;
  s->efficiency = 1.0;
  s->kernel_us = -1;
  s->image = 224;
  s->patch = 16;
}

long fu_vit_seq(const fu_tf_spec *s) {
  if (s->patch < 1 || s->image < s->patch || s->image % s->patch) return 0;
  return (s->image / s->patch) * (s->image / s->patch) + 1;
}

/* --qkv-bias adds biases the architecture's linears lack: custom's --bias gives every linear
 * one already; llama and qwen3 ignore --bias. */
static int fu__qkv_bias_only(const fu_tf_spec *s) {
  return s->qkv_bias && !(s->arch == FU_ARCH_CUSTOM && s->bias);
}

int fu__optimizer_check(const char *name) {
  if (!strcmp(name, "adamw") || !strcmp(name, "adam") || !strcmp(name, "sgd")) return FU_OK;
  fu_error("workload: --optimizer '%s': expected adamw, adam or sgd", name);
  return FU_EUSAGE;
}

static const char *fu__arch_name(fu_arch a);

int fu_tf_spec_check(const fu_tf_spec *s) {
  if (s->arch == FU_ARCH_VIT) {
    if (!fu_vit_seq(s)) {
      fu_error("workload: --arch vit: --patch %ld does not tile --image %ld", s->patch, s->image);
      return FU_EUSAGE;
    }
    if (s->seq != fu_vit_seq(s)) {
      fu_error("workload: --arch vit runs (image / patch)^2 + 1 = %ld tokens, not --seq %ld", fu_vit_seq(s), s->seq);
      return FU_EUSAGE;
    }
    /* nn.MultiheadAttention: every head the same size, no grouped keys, biases on every linear */
    if (s->head_dim > 0 || (s->kv_heads && s->kv_heads != s->heads) || s->qkv_bias || s->tied) {
      fu_error("workload: --arch vit takes none of --head-dim, --kv-heads, --qkv-bias, --tied-embeddings "
               "(torchvision's ViT: hidden / heads per head, biases everywhere, an untied head)");
      return FU_EUSAGE;
    }
  }
  /* the roofline builds the first version's decoder from --arch custom's switches; it built that
     (Llama names, no SwiGLU gate) for --arch gpt2, bert or llama without a word */
  if (s->tflops > 0 && s->arch != FU_ARCH_CUSTOM) {
    fu_error("workload: --arch %s is priced from the profile's tables; the roofline (--tflops, --efficiency, "
             "--hbm-gbps, --kernel-us) builds --arch custom's decoder from its switches (--gated-ffn, "
             "--bias, --layernorm, --tied-embeddings)", fu__arch_name(s->arch));
    return FU_EUSAGE;
  }
  static const char *const need[] = {"layers", "hidden", "heads", "ffn", "vocab", "seq", "micro-batch"};
  const long v[] = {s->layers, s->hidden, s->heads, s->ffn, s->vocab, s->seq, s->batch};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
    if (v[i] < 1) {
      fu_error("workload: --transformer needs --%s of at least 1", need[i]);
      return FU_EUSAGE;
    }
  long kv = s->kv_heads ? s->kv_heads : s->heads;
  /* BERT and GPT-2 split the hidden size over the heads; HF's Llama and Qwen3 configs may state a
   * head size of their own (Qwen3-0.6B: hidden 1024, 16 heads of 128) */
  if (s->head_dim > 0 && (s->arch == FU_ARCH_BERT || s->arch == FU_ARCH_GPT2 || s->arch == FU_ARCH_PHI3)) {
    fu_error("workload: --head-dim is for --arch llama, qwen3, olmo2 or custom (bert, gpt2 and phi3 split --hidden "
             "over --heads)");
    return FU_EUSAGE;
  }
  if (s->qkv_bias && (s->arch == FU_ARCH_BERT || s->arch == FU_ARCH_GPT2 || s->arch == FU_ARCH_PHI3 ||
                      s->arch == FU_ARCH_OLMO2)) {
    fu_error("workload: --qkv-bias is for --arch llama, qwen3 or custom (bert and gpt2 have every bias, phi3 and "
             "olmo2 none)");
    return FU_EUSAGE;
  }
  /* the architectures build their layers as Hugging Face does: custom's switches change none
   * of them, and BERT's and GPT-2's attention has no grouped keys */
  if (s->arch != FU_ARCH_CUSTOM && (s->gated || s->bias || s->layernorm)) {
    fu_error("workload: --gated-ffn, --bias and --layernorm are --arch custom's switches; the other "
             "architectures build their layers as Hugging Face does");
    return FU_EUSAGE;
  }
  if ((s->arch == FU_ARCH_BERT || s->arch == FU_ARCH_GPT2) && s->kv_heads && s->kv_heads != s->heads) {
    fu_error("workload: --kv-heads is for --arch llama, qwen3, phi3, olmo2 or custom (BERT's and GPT-2's "
             "attention has a key and value head for every query head)");
    return FU_EUSAGE;
  }
  if (s->head_dim == 0 && s->hidden % s->heads != 0) {
    fu_error("workload: --hidden %ld is not a multiple of --heads %ld", s->hidden, s->heads);
    return FU_EUSAGE;
  }
  if (kv > s->heads || s->heads % kv != 0) {
    fu_error("workload: --kv-heads %ld does not divide --heads %ld", kv, s->heads);
    return FU_EUSAGE;
  }
  if (!(s->dropout < 1)) {
    fu_error("workload: --dropout %g: expected a probability below 1", s->dropout);
    return FU_EUSAGE;
  }
  FU_CHECK(fu__optimizer_check(s->optimizer));
  /* both carry the profile's host rows to another host; the roofline prices no host rows */
  if (s->tflops > 0 && (s->host_probe_us > 0 || s->host_bwd_probe_us > 0 || s->host_ref_us[0] > 0 ||
                        s->host_ref_us[1] > 0 || s->ready_hook_us > 0)) {
    fu_error("workload: --host-probe(-bwd), --host-ref-fwd/--host-ref-bwd and --ready-hook-us price the "
             "host; the roofline (--tflops, --efficiency, --hbm-gbps, --kernel-us) has no host timeline");
    return FU_EUSAGE;
  }
  /* the roofline keeps no operation listing: --ops would be committed empty over the file */
  if (s->tflops > 0 && s->ops) {
    fu_error("workload: --ops lists the operations priced from the profile's tables; the roofline "
             "(--tflops, --efficiency, --hbm-gbps, --kernel-us) writes none");
    return FU_EUSAGE;
  }
  if (s->tflops > 0 && s->clip_norm > 0) { /* its opt_us is a fused AdamW at HBM speed, no fit */
    fu_error("workload: --clip-grad-norm is priced by the profile's optimizer fits; not with the roofline "
             "(--tflops, --efficiency, --hbm-gbps, --kernel-us)");
    return FU_EUSAGE;
  }
  return FU_OK;
}

void fu__ctx_prec(fu__ctx *x, fu_precision p) {
  x->prec = p;
  x->autocast = p == FU_PREC_AUTOCAST;
  x->gdt = p == FU_PREC_TF32 ? "tf32" : p == FU_PREC_FP32 ? "fp32" : "bf16";
  x->adt = (p == FU_PREC_AUTOCAST || p == FU_PREC_BF16) ? "bf16" : "fp32";
  x->rdt = p == FU_PREC_BF16 ? "bf16" : "fp32";
  x->ab = strcmp(x->adt, "bf16") ? 4 : 2;
  x->rb = strcmp(x->rdt, "bf16") ? 4 : 2;
}

/* An operation whose device time at one element count depends on a second size d too, from
 * tables at the sizes ds[0..nd) (ascending): at ds[i] == base the plain table `name`, else
 * `name`_<axis><ds[i]> (tools/calib_torch.py). The time from the two sizes either side of d,
 * geometric in the size, the nearest beyond them (below the smallest, with extrapolate_below, the
 * two smallest tables' trend carried on, geometric in the size, never faster than the smallest);
 * where the plain table or all the others are missing, o keeps fu__memop's price (the plain
 * table's). */
#define FU__BY_SIZE_MAX 8
static void fu__by_size(const fu__ctx *x, fu__op *o, const char *name, const char *axis, const double *ds,
                        int nd, double base, const char *dtype, double numel, double d,
                        int extrapolate_below) {
  const fu_op_table *t[FU__BY_SIZE_MAX];
  int n = 0, have[FU__BY_SIZE_MAX], has_base = 0;
  for (int i = 0; i < nd && i < FU__BY_SIZE_MAX; i++) {
    char key[48];
    if (ds[i] == base) snprintf(key, sizeof key, "%s", name);
    else snprintf(key, sizeof key, "%s_%s%.0f", name, axis, ds[i]);
    t[i] = fu_compute_op(x->c, key, dtype);
    have[i] = t[i] && !strcmp(t[i]->dtype, dtype);
    n += have[i];
    if (ds[i] == base) has_base = have[i];
  }
  if (n < 2 || !has_base) return;
  int lo = -1, hi = -1;
  for (int i = 0; i < nd && i < FU__BY_SIZE_MAX; i++) {
    if (!have[i]) continue;
    if (ds[i] <= d) lo = i;
    if (ds[i] >= d && hi < 0) hi = i;
  }
  int below = lo < 0 && extrapolate_below;
  if (below) { /* the smallest table and the next: their trend, carried below */
    lo = hi;
    for (hi = lo + 1; hi < nd && hi < FU__BY_SIZE_MAX && !have[hi]; hi++) {}
  }
  if (lo < 0) lo = hi;
  if (hi < 0) hi = lo;
  double f = hi == lo ? 0 : (log(d) - log(ds[lo])) / (log(ds[hi]) - log(ds[lo]));
  fu__seen(x, t[lo]), fu__seen(x, t[hi]);
  for (int b = 0; b < 2; b++) {
    double a = fu_op_us(x->c, t[lo], numel, b), c = fu_op_us(x->c, t[hi], numel, b);
    double v = a > 0 && c > 0 ? exp((1 - f) * log(a) + f * log(c)) : a;
    if (below && v < a) v = a; /* a trend that falls toward fewer: the smallest's time */
    if (b) o->bwd_us = v;
    else o->fwd_us = v;
  }
}

/* LayerNorm's device time at width H: its weight's and bias's gradients reduce over the rows,
 * so at one element count a narrower layer (more rows) takes longer (bert_base's backward at 768
 * wide: 64.5 us in its kernel profile against 52.3 from the 1024-wide table; BERT-large's at
 * 1024: 33.9 against 35.9). From the layernorm_wN tables where the profile has them
 * (tools/calib_torch.py ops_ln; ops_ln_narrow from 96 to 384, ConvNeXt's; "layernorm" is 1024
 * wide). */
static void fu__ln_width(const fu__ctx *x, fu__op *o, const char *dtype, double T, double H) {
  static const double ws[] = {96, 192, 384, 512, 768, 1024, 2048, 4096};
  fu__by_size(x, o, "layernorm", "w", ws, 8, 1024, dtype, T * H, H, 0);
}

/* Batch norm's device time at c channels: its per-channel statistics and gradients reduce over
 * batch x pixels, so at one element count the time depends on c (fp32 forward at 2^24 elements:
 * 62 us at 64 channels, 83 at 256; backward at 2^26: 320 at 64, 428 at 2048). From the
 * batchnorm2d_cN tables where the profile has them (tools/calib_torch.py ops_bn; "batchnorm2d"
 * has 256 channels; 16 and 32, MobileNet's narrow early norms, from ops_bn_small). Below the
 * narrowest table the two narrowest tables' trend is carried on: the statistics and gradient
 * kernels give each channel its own blocks, so with fewer channels than the GPU has SMs fewer of
 * them work (MobileNetV2 b64 bf16's NCHW norms, many of 16-32 channels over 112x112 maps, took
 * 5.9 / 10.1 ms forward / backward in its kernel profile where the tables, held at 64 channels
 * below it, gave 4.3 / 6.8; data/compute/README.md session 43; from 128 to 64 channels the NCHW
 * bf16 table rises 1.6x forward, 1.9x backward). */
void fu__bn_channels(const fu__ctx *x, fu__op *o, const char *dtype, double numel, double c) {
  static const double cs[] = {16, 32, 64, 128, 256, 512, 1024, 2048};
  fu__by_size(x, o, x->nchw ? "batchnorm2d_nchw" : "batchnorm2d", "c", cs, 8, 256, dtype, numel, c, 1);
}

/* A norm (layernorm or the HF RMSNorm composite) over the residual stream. */
fu__op *fu__norm(fu__ctx *x, const char *name, int layernorm, int bias, double H, const char *dtype) {
  double T = x->T, eb = strcmp(dtype, "bf16") ? 4 : 2;
  /* LayerNorm keeps its input (and per-row statistics); the RMSNorm composite keeps its fp32
   * input and the normalized fp32 tensor */
  double saved = layernorm ? eb * T * H + 8 * T : 8 * T * H + 4 * T;
  fu__op *o = fu__memop(x, layernorm ? "layernorm" : "rmsnorm", dtype, T * H, saved);
  if (!o) return NULL;
  if (layernorm) fu__ln_width(x, o, dtype, T, H);
  fu__param(o, name, ".weight", (uint64_t)H);
  if (bias) fu__param(o, name, ".bias", (uint64_t)H);
  /* HF's RMSNorm multiplies by its weight: the weight's gradient is a column sum (LayerNorm's
   * backward kernel reduces its own) */
  if (!layernorm) o->red_rows = T, o->red_cols = H;
  return o;
}

/* Qwen3's RMSNorm over each head's queries or keys (q_norm, k_norm: Qwen3RMSNorm, the composite
 * the rmsnorm table measures), numel elements of the projection's output in dtype, rows x hd:
 * one weight of hd. Priced as the other RMSNorms, by element count; its weight's gradient is a
 * column sum over rows = tokens x heads. Kept for backward: the fp32 copy of its input and the
 * normalised tensor in the input's dtype (what the weight multiplies), 4 bytes a row. */
static fu__op *fu__head_norm(fu__ctx *x, const char *name, double numel, double rows, double hd,
                             const char *dtype) {
  double eb = strcmp(dtype, "bf16") ? 4 : 2;
  fu__op *o = fu__memop(x, "rmsnorm", dtype, numel, (4 + eb) * numel + 4 * rows);
  if (!o) return NULL;
  fu__param(o, name, ".weight", (uint64_t)hd);
  o->red_rows = rows, o->red_cols = hd;
  return o;
}

/* Autograd sums the gradients of a tensor that feeds several operations (a residual stream into
 * its norm and its add, a norm's output into q, k and v): consumers - 1 in-place adds of its
 * size, in backward where the first consumer's backward ends; pushed just before that consumer
 * and priced by the add table. */
fu__op *fu__fanout(fu__ctx *x, double numel, const char *dtype, int consumers) {
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  snprintf(o->what, sizeof o->what, "grad_sum");
  o->bwd_us = (consumers - 1) * fu__add_us(x, dtype, numel);
  return o;
}

/* transformers 5 builds a DynamicCache in a training forward too: each layer concatenates its
 * keys and values onto an empty cache, a copy of each (numel elements) whose output attention
 * uses. GPT-2's keys and values and Llama's values are transposed views (strided reads, the
 * kv_cat table), Llama's keys leave the rotary step contiguous (kv_cat_contig); without those
 * tables, a contiguous copy's traffic. Backward takes slices of the gradient (views, no kernel). */
static fu__op *fu__kv_cache(fu__ctx *x, double numel, int k_strided, const char *kdt) {
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  snprintf(o->what, sizeof o->what, "kv_cache");
  const fu_op_table *t[2] = {fu_compute_op(x->c, k_strided ? "kv_cat" : "kv_cat_contig", kdt),
                             fu_compute_op(x->c, "kv_cat", x->adt)};
  double eb[2] = {strcmp(kdt, "bf16") ? 4 : 2, x->ab};
  for (int i = 0; i < 2; i++) {
    o->fwd_us += t[i] ? fu_op_us(x->c, t[i], numel, 0) : fu__copy_us(x, 2 * eb[i] * numel);
    o->hfwd_us += t[i] ? t[i]->host_fwd_us : 0;
  }
  return o;
}

/* SDPA's kernels work in tiles of 64 positions (PyTorch's memory-efficient fp32 kernel,
 * fmha_cutlassF/B_f32_aligned_64x64; cuDNN's bf16 flash fprop and bprop, 64 x 128 and 64 x 64,
 * data/compute/profiles), a partial tile costing a whole one: a sequence between multiples of 64
 * (a ViT's 197 tokens) is priced at the next multiple, where the table's points sit. */
#define FU__ATTN_TILE 64.0

/* SDPA over the micro-batch; q, k, v and the output kept (outputs of operations before it). H:
 * the queries' width (heads x head size), Hkv the keys' and values'. */
/* 1 where transformers' SDPA call runs PyTorch's math path: keys grouped (enable_gqa) outside bf16,
 * where flash attention takes only 16-bit inputs and the memory-efficient kernel no grouped keys */
static int fu__attn_math(const fu__ctx *x, double H, double Hkv) {
  return strcmp(x->adt, "bf16") && Hkv < H;
}

static fu__op *fu__attn(fu__ctx *x, const fu_tf_spec *s, double H, double Hkv, int causal, double p) {
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  double f, b, hd = H / s->heads, B = (double)s->batch, S = (double)s->seq;
  /* the math path where the profile measured it (else the fused kernels, and a warning); its
   * batched products follow the TF32 switch, so its points are the GEMMs' dtype */
  int math = fu__attn_math(x, H, Hkv) && fu_compute_attn_us(x->c, x->gdt, (int)hd, causal, p, 1, S, B * s->heads,
                                                             &f, &b) == FU_OK;
  snprintf(o->what, sizeof o->what, "attention");
  if (!math && fu_compute_attn_us(x->c, x->adt, (int)hd, causal, p, 0, ceil(S / FU__ATTN_TILE) * FU__ATTN_TILE,
                                  B * s->heads, &f, &b) != FU_OK) {
    fu__miss(x, "attention (%s, head size %.0f)", x->adt, hd);
    f = b = 0;
  }
  if (fu__attn_math(x, H, Hkv) && !math) x->attn_unpriced = 1;
  const char *mark = math ? fu_compute_attn_derived(x->c, x->gdt, 1) : "";
  if (mark[0]) x->attn_derived = mark;
  o->fwd_us = f, o->bwd_us = b;
  const fu_op_table *h = fu_compute_op(x->c, "sdpa", x->autocast ? "bf16" : "fp32");
  o->hfwd_us = h ? h->host_fwd_us : 0;
  o->hbwd_us = h ? h->host_bwd_us : 0;
  /* the fused kernels keep q, k, v, the output and the log-sum-exp; the math path keeps the scaled
   * q, the keys and values repeated to every head, the output, and every score's softmax (fp32) */
  o->saved = math ? x->ab * x->T * 4 * H + 4.0 * B * s->heads * S * S
                  : x->ab * x->T * (2 * H + 2 * Hkv) + 4.0 * B * s->heads * S;
  o->flops = 4.0 * s->batch * s->seq * s->seq * H;
  o->bytes = x->T * (2 * H + 2 * Hkv) * x->ab;
  o->kernels = 1;
  return o;
}

/* A convolution's bias (name.bias, cout of them) over rows output positions: cuDNN's convolution
 * then the bias added over its output, its gradient a column sum. */
void fu__conv_bias(fu__ctx *x, fu__op *o, const char *name, double cout, double rows) {
  o->fwd_us += fu_op_us(x->c, fu_compute_op(x->c, "add", x->adt), rows * cout, 0);
  o->bwd_us += fu_op_us(x->c, fu_compute_op(x->c, "bias_grad", x->adt), rows * cout, 0);
  fu__param(o, name, ".bias", (uint64_t)cout);
  o->red_rows = rows, o->red_cols = cout;
}

/* A ViT layout operation of numel elements from the profile's ops_vit table in dtype
 * (tools/calib_torch.py: copy_t, bias_add, add_t), else fallback_us (a copy's traffic at the
 * cast table's pace, an add table's time): another dtype's table would be off by its element
 * size. */
double fu__vit_op_us(const fu__ctx *x, const char *table, const char *dtype, double numel, double fallback_us) {
  const fu_op_table *t = fu_compute_op(x->c, table, dtype);
  if (!t || strcmp(t->dtype, dtype)) return fallback_us;
  fu__seen(x, t);
  return fu_op_us(x->c, t, numel, 0);
}

/* A copy between (batch, seq) and (seq, batch) order, rows of the hidden size moved whole. */
double fu__vit_copy_us(const fu__ctx *x, const char *dtype, double numel) {
  return fu__vit_op_us(x, "copy_t", dtype, numel, fu__copy_us(x, 2 * (strcmp(dtype, "bf16") ? 4 : 2) * numel));
}

/* A LayerNorm of torchvision's ViT over the residual stream; strided: its input is in (seq,
 * batch) order (fu__vit_ops), so native_layer_norm copies it contiguous, and its backward does
 * again (the saved input, expect_contiguous). */
static fu__op *fu__vit_norm(fu__ctx *x, const char *name, double H, int strided) {
  fu__op *o = fu__norm(x, name, 1, 1, H, x->rdt);
  if (o && strided) {
    double c = fu__vit_copy_us(x, x->rdt, x->T * H);
    o->fwd_us += c, o->bwd_us += c;
  }
  return o;
}

/* A residual add whose operands are in the two orders (TensorIterator's strided path): the
 * add_t table where the step is not under autocast (there, add_mixed's dtypes decide). */
static fu__op *fu__vit_resid_add(fu__ctx *x, double numel, int mixed_order) {
  fu__op *o = fu__resid_add(x, x->rdt, numel);
  if (o && mixed_order && !x->autocast) o->fwd_us = fu__vit_op_us(x, "add_t", x->rdt, numel, o->fwd_us);
  return o;
}

/* The dropout torchvision's ViT applies where its dropout is above 0 (none by default: no
 * kernel, F.dropout returns its input at p = 0). */
static int fu__vit_dropout(fu__ctx *x, double p, const char *dtype, double numel) {
  return p > 0 ? fu__memop(x, "dropout", dtype, numel, numel) != NULL : 1;
}

/* The patch embedding's convolution: torchvision's ViT feeds it the image in PyTorch's default
 * NCHW layout, which cuDNN runs several times slower than the implicit GEMM (0.32 against 0.03 ms
 * for ViT-B/16 b32's forward on an H100); the profile's NCHW table of the class (P, P) where it
 * has one (tools/calib_torch.py --parts conv --conv-format nchw --conv-classes k14s14,k16s16,k32s32),
 * else as any other convolution. */
static double fu__patch_conv_us(fu__ctx *x, const char *layout, int P, double m, double n, double k) {
  double us;
  if (fu_compute_conv_us(x->c, x->gdt, layout, P, P, 1, m, n, k, &us) == FU_OK) return us;
  return fu__conv_us(x, layout, P, P, m, n, k);
}

/* torchvision's VisionTransformer (vision_transformer.py) as PyTorch runs its training step,
 * operation by operation (its aten operations traced with torch.profiler on the CPU, and
 * its kernels profiled on a GPU: data/compute/vit-2026-12-06/profiles, tools/profile_step.py).
 * Besides a BERT-like layer it runs layout copies a language model does not:
 * - nn.MultiheadAttention(batch_first=True) in training takes F.multi_head_attention_forward's
 *   path: its input transposed to (seq, batch), so the packed in_proj's matmul first copies it
 *   contiguous and adds the bias apart (at::linear fuses the bias only for a contiguous input);
 *   q, k and v are split off a contiguous copy of all three; the heads are merged by a copy; the
 *   output is returned transposed, a view. In backward each of q's, k's and v's gradients goes
 *   through select's backward (a zero-filled tensor of all three, a copy into it), two adds sum
 *   them, the unflatten's reshape copies them back, and the output's view is copied contiguous.
 * - The residual add of that transposed view takes the view's layout (TensorIterator orders its
 *   output as the first operand), so from the first block's attention on the residual stream is
 *   in (seq, batch) order: each LayerNorm after it copies its input contiguous in forward and in
 *   backward, and ln_1's gradient, back through the transpose, is copied contiguous too.
 * - The patch embedding is a P x P convolution at stride P (its implicit GEMM: the batch's
 *   patches x hidden x 3 P^2); the class token is concatenated (a copy of the tokens, fp32 under
 *   autocast: torch.cat promotes); the position embedding is added (its gradient a sum over the
 *   batch); the head reads the class token alone (select's backward: a zero-filled gradient of
 *   every token).
 * s->vocab is the number of classes; the loss is over the batch's rows. */
static int fu__vit_ops(fu__ctx *x, const fu_tf_spec *s, double p) {
  double T = x->T, H = (double)s->hidden, F = (double)s->ffn, C = (double)s->vocab, B = (double)s->batch;
  double P = (double)s->patch, img = (double)s->image, np = B * (double)(s->seq - 1), K = 3 * P * P;
  const char *A = x->adt, *R = x->rdt;
  double ab = x->ab, rb = x->rb;
  int fp32_in = x->autocast;
  const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
  char pre[64], nm[110];
  fu__op *o;
#define NM(suffix) (snprintf(nm, sizeof nm, "%s%s", pre, suffix), nm)
  x->layer = -1;
  /* conv_proj: the image (fp32, cast under autocast) has no gradient, so its weight's alone */
  FU__TRY(o = fu__push(x));
  snprintf(o->what, sizeof o->what, "conv");
  o->fwd_us = fu__patch_conv_us(x, "fwd", (int)P, np, H, K);
  o->bwd_us = fu__patch_conv_us(x, "wgrad", (int)P, H, K, np);
  const fu_op_table *h = fu_compute_op(x->c, "conv", x->autocast ? "bf16" : "fp32");
  o->hfwd_us = h ? h->host_fwd_us : 0;
  o->hbwd_us = h ? h->host_bwd_us : 0;
  if (x->autocast) {
    o->fwd_us += fu_op_us(x->c, cast, B * 3 * img * img, 0) + fu_op_us(x->c, cast, H * K + H, 0);
    o->tail_us[0] = fu_op_us(x->c, cast, H * K, 1);
    x->casts += 2 * (H * K + H);
  }
  /* the image for the weight's gradient: its bf16 copy under autocast, else the image itself */
  o->saved = (x->autocast ? 2 : 4) * B * 3 * img * img;
  fu__param(o, "conv_proj", ".weight", (uint64_t)(H * K));
  fu__conv_bias(x, o, "conv_proj", H, np);
  /* the class token concatenated before the patches: a copy of every token; in backward the
   * patches' gradient, a permuted slice, copied contiguous for the convolution (cast to bf16
   * first under autocast) */
  FU__TRY(o = fu__push(x));
  snprintf(o->what, sizeof o->what, "cat");
  o->fwd_us = fu__copy_us(x, (ab + rb) * np * H);
  o->bwd_us = fu__copy_us(x, 2 * ab * np * H) + (x->autocast ? fu_op_us(x->c, cast, np * H, 0) : 0);
  o->hfwd_us = cast ? cast->host_fwd_us : 0;
  o->hbwd_us = cast ? cast->host_bwd_us : 0;
  fu__param(o, "class_token", "", (uint64_t)H);
  /* the position embedding, its gradient a sum over the batch */
  FU__TRY(o = fu__memop(x, "add", R, T * H, 0));
  o->bwd_us += fu_op_us(x->c, fu_compute_op(x->c, "bias_grad", R), T * H, 0);
  fu__param(o, "encoder.pos_embedding", "", (uint64_t)(s->seq * H));
  o->red_rows = B, o->red_cols = (double)s->seq * H;
  FU__TRY(fu__vit_dropout(x, p, R, T * H));
  for (long i = 0; i < s->layers; i++) {
    x->layer = (int)i;
    snprintf(pre, sizeof pre, "encoder.layers.encoder_layer_%ld.", i);
    FU__TRY(fu__fanout(x, T * H, R, 2)); /* the block's input: ln_1, the residual add */
    FU__TRY(o = fu__vit_norm(x, NM("ln_1"), H, i > 0));
    o->bwd_us += fu__vit_copy_us(x, R, T * H); /* its gradient, transposed back */
    FU__TRY(o = fu__linear(x, NM("self_attention.in_proj"), H, 3 * H, 1, fp32_in, 1, 1));
    snprintf(o->pname[0], sizeof o->pname[0], "%sself_attention.in_proj_weight", pre);
    snprintf(o->pname[1], sizeof o->pname[1], "%sself_attention.in_proj_bias", pre);
    /* forward: the transposed input copied, the bias added apart, q, k, v copied contiguous */
    const fu_op_table *add = fu_compute_op(x->c, "add", A);
    o->fwd_us += fu__vit_copy_us(x, A, T * H) + fu__vit_op_us(x, "bias_add", A, T * 3 * H, fu_op_us(x->c, add, T * 3 * H, 0)) +
                 fu__vit_copy_us(x, A, T * 3 * H);
    /* backward: three zero-filled selects of all three (a fill: a copy's writes), their copies,
     * two adds, the reshape */
    o->bwd_us += 3 * fu__copy_us(x, ab * T * 3 * H) + 3 * fu__vit_copy_us(x, A, T * H) +
                 2 * fu_op_us(x->c, add, T * 3 * H, 0) + fu__vit_copy_us(x, A, T * 3 * H);
    FU__TRY(fu__attn(x, s, H, H, 0, 0));
    FU__TRY(o = fu__linear(x, NM("self_attention.out_proj"), H, H, 1, 0, 1, 1));
    o->fwd_us += fu__copy_us(x, 2 * ab * T * H); /* heads merged: a contiguous copy */
    o->bwd_us += fu__vit_copy_us(x, A, T * H); /* the transposed output's gradient, copied */
    FU__TRY(fu__vit_dropout(x, p, A, T * H));
    FU__TRY(fu__vit_resid_add(x, T * H, i == 0)); /* from block 1 on both in (seq, batch) order */
    FU__TRY(fu__fanout(x, T * H, R, 2)); /* ln_2, the residual add */
    FU__TRY(fu__vit_norm(x, NM("ln_2"), H, 1));
    FU__TRY(fu__linear(x, NM("mlp.0"), H, F, 1, fp32_in, 1, 1));
    FU__TRY(fu__memop(x, "gelu", A, T * F, ab * T * F));
    FU__TRY(fu__vit_dropout(x, p, A, T * F));
    FU__TRY(fu__linear(x, NM("mlp.3"), F, H, 1, 0, 1, 1));
    FU__TRY(fu__vit_dropout(x, p, A, T * H));
    FU__TRY(fu__vit_resid_add(x, T * H, 1)); /* the stream in (seq, batch) order, the MLP's not */
  }
  x->layer = -1;
  FU__TRY(fu__vit_norm(x, "encoder.ln", H, s->layers > 0));
  /* the head over the class token: B rows; select's backward fills every token's gradient */
  x->T = B;
  o = fu__linear(x, "heads.head", H, C, 1, fp32_in, 1, 1);
  x->T = T;
  FU__TRY(o);
  o->bwd_us += fu__copy_us(x, rb * T * H) + fu__copy_us(x, 2 * rb * B * H);
  /* CrossEntropyLoss on the logits (under autocast in bf16, as BERT's MLM loss) */
  const char *ce = x->autocast && fu_compute_op(x->c, "cross_entropy_ac", A) ? "cross_entropy_ac" : "cross_entropy";
  FU__TRY(fu__memop(x, ce, A, B * C, 0));
#undef NM
  return FU_OK;
}

/* Phi-3's attention input (Phi3Attention): one product for q, k and v, width Hq + 2 Hkv, sliced
 * into the three (views). Backward runs each slice's SliceBackward: a zero-filled gradient of the
 * whole product (a fill: a copy's writes), the slice's gradient copied into it, and autograd sums
 * the three (two adds), where Llama sums its norm output's three gradients (fu__fanout). Traced
 * with torch.profiler on the CPU (torch 2.15, transformers 5.25, Phi3ForCausalLM against
 * LlamaForCausalLM, tiny sizes): slice_backward, zeros and add_ of these shapes. */
static fu__op *fu__phi3_qkv(fu__ctx *x, const char *name, double H, double Hq, double Hkv, int fp32_in) {
  double W = Hq + 2 * Hkv, T = x->T, ab = x->ab;
  fu__op *o = fu__linear(x, name, H, W, 0, fp32_in, 1, 1);
  if (!o) return NULL;
  o->bwd_us += 3 * fu__copy_us(x, ab * T * W) + fu__copy_us(x, 2 * ab * T * W) + 2 * fu__add_us(x, x->adt, T * W);
  return o;
}

/* Phi-3's rotary step (its apply_rotary_pos_emb) on n elements of q and k: it slices each into
 * the rotated part and the rest (empty at full rotary) and concatenates them again, a copy of the
 * rotated output (fp32 under autocast: q * cos promotes); in backward the empty part's
 * SliceBackward fills a zero gradient of the whole q and k, which autograd adds to the rotated
 * part's (the profiler's slice_backward of width 0, zeros and add_ per q and k). Charged to the
 * rotary operation o. */
static void fu__phi3_rotary_cat(fu__ctx *x, fu__op *o, double n) {
  double eb = x->autocast ? 4 : x->ab;
  o->fwd_us += fu__copy_us(x, 2 * eb * n);
  o->bwd_us += fu__copy_us(x, x->ab * n) + fu__add_us(x, x->adt, n);
}

static int fu__tf_ops(fu__ctx *x, const fu_tf_spec *s, double dropout) {
  double T = x->T, H = (double)s->hidden, F = (double)s->ffn, V = (double)s->vocab;
  double Hkv = H * (s->kv_heads ? s->kv_heads : s->heads) / s->heads;
  const char *A = x->adt, *R = x->rdt;
  int fp32_in = x->autocast; /* GEMM inputs taken from the fp32 residual stream */
  /* a head's size where the config states one (llama, qwen3, custom): the queries' width Hq and
   * the keys' and values' Hkv follow it, o_proj takes Hq back to H */
  double hd = s->head_dim > 0 ? (double)s->head_dim : H / s->heads;
  double Hq = hd * s->heads;
  if (s->head_dim > 0) Hkv = hd * (s->kv_heads ? s->kv_heads : s->heads);
  char p[64], nm[110];
  fu__op *o;
  if (s->arch == FU_ARCH_VIT) return fu__vit_ops(x, s, dropout);
#define NM(suffix) (snprintf(nm, sizeof nm, "%s%s", p, suffix), nm)
  x->layer = -1;
  if (s->arch == FU_ARCH_BERT) {
    const char *e = "bert.embeddings.";
    snprintf(p, sizeof p, "%s", e);
    FU__TRY(o = fu__memop(x, "embedding", R, T * H, 0));
    fu__param(o, NM("word_embeddings"), ".weight", (uint64_t)(V * H));
    o->nidx = T;
    size_t emb = x->n - 1;
    FU__TRY(o = fu__memop(x, "embedding", R, T * H, 0));
    fu__param(o, NM("token_type_embeddings"), ".weight", (uint64_t)(2 * H));
    o->nidx = T; /* its (1, seq) ids expanded to the batch */
    FU__TRY(fu__memop(x, "add", R, T * H, 0));
    FU__TRY(o = fu__memop(x, "embedding", R, T * H, 0));
    fu__param(o, NM("position_embeddings"), ".weight", (uint64_t)(512 > s->seq ? 512 : s->seq) * (uint64_t)H);
    o->nidx = (double)s->seq; /* position ids (1, seq), broadcast over the batch */
    FU__TRY(fu__memop(x, "add", R, T * H, 0));
    FU__TRY(fu__norm(x, "bert.embeddings.LayerNorm", 1, 1, H, R));
    FU__TRY(fu__memop(x, "dropout", R, T * H, T * H));
    for (long i = 0; i < s->layers; i++) {
      x->layer = (int)i;
      snprintf(p, sizeof p, "bert.encoder.layer.%ld.", i);
      FU__TRY(fu__fanout(x, T * H, R, 4)); /* the layer's input: query, key, value, residual */
      FU__TRY(fu__linear(x, NM("attention.self.query"), H, H, 1, fp32_in, 1, 1));
      FU__TRY(fu__linear(x, NM("attention.self.key"), H, Hkv, 1, fp32_in, 0, 1));
      FU__TRY(fu__linear(x, NM("attention.self.value"), H, Hkv, 1, fp32_in, 0, 1));
      FU__TRY(fu__attn(x, s, H, Hkv, 0, dropout));
      FU__TRY(o = fu__linear(x, NM("attention.output.dense"), H, H, 1, 0, 1, 1));
      o->fwd_us += fu__copy_us(x, 2 * x->ab * T * H); /* heads merged: a contiguous copy */
      FU__TRY(fu__memop(x, "dropout", A, T * H, T * H));
      FU__TRY(fu__resid_add(x, R, T * H));
      FU__TRY(fu__norm(x, NM("attention.output.LayerNorm"), 1, 1, H, R));
      FU__TRY(fu__fanout(x, T * H, R, 2)); /* the norm's output: intermediate, residual */
      FU__TRY(fu__linear(x, NM("intermediate.dense"), H, F, 1, fp32_in, 1, 1));
      FU__TRY(fu__memop(x, "gelu", A, T * F, x->ab * T * F));
      FU__TRY(fu__linear(x, NM("output.dense"), F, H, 1, 0, 1, 1));
      FU__TRY(fu__memop(x, "dropout", A, T * H, T * H));
      FU__TRY(fu__resid_add(x, R, T * H));
      FU__TRY(fu__norm(x, NM("output.LayerNorm"), 1, 1, H, R));
    }
    x->layer = -1;
    FU__TRY(fu__linear(x, "cls.predictions.transform.dense", H, H, 1, fp32_in, 1, 1));
    FU__TRY(fu__memop(x, "gelu", A, T * H, x->ab * T * H));
    FU__TRY(fu__norm(x, "cls.predictions.transform.LayerNorm", 1, 1, H, A));
    /* the decoder's weight is word_embeddings' (tied); its bias is cls.predictions.bias */
    FU__TRY(o = fu__linear(x, "cls.predictions.decoder", H, V, 0, fp32_in, 1, 0));
    fu__tied_head(x, o, emb, V * H);
    fu__param(o, "cls.predictions.bias", "", (uint64_t)V);
    o->red_rows = T, o->red_cols = V; /* the bias's gradient: a column sum */
    o->bwd_us += fu_op_us(x->c, fu_compute_op(x->c, "bias_grad", A), T * V, 0);
    if (x->autocast) { /* its bias cast as fu__linear's biases are */
      const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
      o->fwd_us += fu_op_us(x->c, cast, V, 0);
      o->tail_us[0] = fu_op_us(x->c, cast, V, 1);
      x->casts += 2 * V;
    }
  } else if (s->arch == FU_ARCH_GPT2) {
    FU__TRY(o = fu__memop(x, "embedding", R, T * H, 0));
    fu__param(o, "transformer.wte", ".weight", (uint64_t)(V * H));
    o->nidx = T;
    size_t emb = x->n - 1;
    FU__TRY(o = fu__memop(x, "embedding", R, T * H, 0));
    fu__param(o, "transformer.wpe", ".weight", (uint64_t)(1024 > s->seq ? 1024 : s->seq) * (uint64_t)H);
    o->nidx = (double)s->seq; /* position ids (1, seq), broadcast over the batch */
    FU__TRY(fu__memop(x, "add", R, T * H, 0));
    FU__TRY(fu__memop(x, "dropout", R, T * H, T * H));
    for (long i = 0; i < s->layers; i++) {
      x->layer = (int)i;
      snprintf(p, sizeof p, "transformer.h.%ld.", i);
      FU__TRY(fu__fanout(x, T * H, R, 2)); /* the residual stream: ln_1, the add */
      FU__TRY(fu__norm(x, NM("ln_1"), 1, 1, H, R));
      FU__TRY(fu__linear(x, NM("attn.c_attn"), H, H + 2 * Hkv, 1, fp32_in, 1, 1));
      /* c_attn's output is split into q, k and v (views); backward concatenates their three
       * gradients into one tensor: a contiguous copy of it */
      FU__TRY(o = fu__push(x));
      snprintf(o->what, sizeof o->what, "qkv_split");
      o->bwd_us = fu__copy_us(x, 2 * x->ab * T * (H + 2 * Hkv));
      FU__TRY(fu__kv_cache(x, T * Hkv, 1, A));
      FU__TRY(fu__attn(x, s, H, Hkv, 1, dropout));
      FU__TRY(o = fu__linear(x, NM("attn.c_proj"), H, H, 1, 0, 1, 1));
      o->fwd_us += fu__copy_us(x, 2 * x->ab * T * H);
      FU__TRY(fu__memop(x, "dropout", A, T * H, T * H));
      FU__TRY(fu__resid_add(x, R, T * H));
      FU__TRY(fu__fanout(x, T * H, R, 2)); /* the residual stream: ln_2, the add */
      FU__TRY(fu__norm(x, NM("ln_2"), 1, 1, H, R));
      FU__TRY(fu__linear(x, NM("mlp.c_fc"), H, F, 1, fp32_in, 1, 1));
      /* the HF gelu_new composite 0.5x(1 + tanh(k(x + 0.044715 x^3))) keeps x^3's input, tanh's
       * output, 0.5x and 1 + tanh. Under autocast pow runs in fp32 (autocast's fp32 list): its
       * input is cast up and everything after it is fp32, so the composite costs what it does
       * in fp32, its output is fp32 and c_proj casts it back down. The cast up is bf16 -> fp32,
       * which the cast table measured as its backward (x.to(bf16)'s gradient), and its
       * gradient is cast down, as the table's forward (PyTorch's bf16 -> fp32 copy is not the
       * vectorised fp32 -> bf16 one: 1.0-1.6 TB/s in GPT-2 small's profile, 4 for the latter) */
      if (x->autocast && fu_compute_op(x->c, "gelu_new_ac", "bf16")) {
        /* measured as autocast runs it, its casts included (tools/calib_torch.py ops_kv) */
        FU__TRY(fu__memop(x, "gelu_new_ac", "bf16", T * F, (4 + 4 + 2 + 4) * T * F));
      } else if (x->autocast) {
        FU__TRY(o = fu__memop(x, "gelu_new", "fp32", T * F, (4 + 4 + 2 + 4) * T * F));
        const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
        o->fwd_us += fu_op_us(x->c, cast, T * F, 1);
        o->bwd_us += fu_op_us(x->c, cast, T * F, 0);
      } else {
        FU__TRY(fu__memop(x, "gelu_new", A, T * F, 4 * x->ab * T * F));
      }
      FU__TRY(fu__linear(x, NM("mlp.c_proj"), F, H, 1, x->autocast, 1, 1));
      FU__TRY(fu__memop(x, "dropout", A, T * H, T * H));
      FU__TRY(fu__resid_add(x, R, T * H));
    }
    x->layer = -1;
    FU__TRY(fu__norm(x, "transformer.ln_f", 1, 1, H, R));
    FU__TRY(o = fu__linear(x, "lm_head", H, V, 0, fp32_in, 1, 0)); /* tied to wte */
    fu__tied_head(x, o, emb, V * H);
  } else {
    int qwen3 = s->arch == FU_ARCH_QWEN3, phi3 = s->arch == FU_ARCH_PHI3, olmo2 = s->arch == FU_ARCH_OLMO2;
    int llama = s->arch == FU_ARCH_LLAMA || qwen3 || phi3 || olmo2;
    int ln = llama ? 0 : s->layernorm, bias = llama ? 0 : s->bias, gated = llama ? 1 : s->gated;
    int tied = s->tied; /* Llama 3.2 1B and 3B, Qwen3 up to 4B tie theirs */
    int qkv_bias = bias || s->qkv_bias; /* Qwen2: q, k and v projections with biases */
    int qkv_only = fu__qkv_bias_only(s);
    FU__TRY(o = fu__memop(x, "embedding", R, T * H, 0));
    fu__param(o, "model.embed_tokens", ".weight", (uint64_t)(V * H));
    o->nidx = T;
    size_t emb = x->n - 1;
    for (long i = 0; i < s->layers; i++) {
      x->layer = (int)i;
      snprintf(p, sizeof p, "model.layers.%ld.", i);
      if (olmo2) { /* no norm before attention: the residual stream feeds q, k, v and the add */
        FU__TRY(fu__fanout(x, T * H, R, 4));
      } else {
        FU__TRY(fu__fanout(x, T * H, R, 2)); /* the residual stream: the norm, the add */
        FU__TRY(fu__norm(x, NM("input_layernorm"), ln, ln, H, R));
      }
      if (phi3) {
        FU__TRY(fu__phi3_qkv(x, NM("self_attn.qkv_proj"), H, Hq, Hkv, fp32_in));
      } else {
        /* the norm's output (the residual's dtype: HF's RMSNorm and LayerNorm under autocast
         * return fp32) feeds q, k and v */
        if (!olmo2) FU__TRY(fu__fanout(x, T * H, R, 3));
        /* Qwen3: q_norm on q_proj's output, k_norm on k_proj's, in that order (Qwen3Attention),
         * over each head; OLMo 2's over the whole projection (Olmo2Attention), its output cast
         * back to the projection's dtype */
        FU__TRY(o = fu__linear(x, NM("self_attn.q_proj"), H, Hq, qkv_bias, fp32_in, 1, 1));
        o->row_lacks_bias = qkv_only;
        if (qwen3) FU__TRY(fu__head_norm(x, NM("self_attn.q_norm"), T * Hq, T * s->heads, hd, A));
        if (olmo2) FU__TRY(fu__head_norm(x, NM("self_attn.q_norm"), T * Hq, T, Hq, A));
        FU__TRY(o = fu__linear(x, NM("self_attn.k_proj"), H, Hkv, qkv_bias, fp32_in, 0, 1));
        o->row_lacks_bias = qkv_only;
        if (qwen3) FU__TRY(fu__head_norm(x, NM("self_attn.k_norm"), T * Hkv, T * Hkv / hd, hd, A));
        if (olmo2) FU__TRY(fu__head_norm(x, NM("self_attn.k_norm"), T * Hkv, T, Hkv, A));
        FU__TRY(o = fu__linear(x, NM("self_attn.v_proj"), H, Hkv, qkv_bias, fp32_in, 0, 1));
        o->row_lacks_bias = qkv_only;
      }
      /* rotary_hf: measured as HF lays it out (q and k transposed views of their projections,
       * fp32 cos and sin: the strided type-promoting path); else the contiguous rotary table.
       * Qwen3's q and k come out of their norms, whose fp32 weight times the bf16 normalised
       * tensor is fp32 under autocast: the rotary step reads fp32 there */
      const char *rot = fu_compute_op(x->c, "rotary_hf", A) ? "rotary_hf" : "rotary";
      if (x->autocast) {
        /* HF's cos and sin follow the fp32 residual stream's dtype: q * cos promotes to fp32,
         * and autocast casts q and k back to bf16 for SDPA */
        FU__TRY(o = fu__memop(x, rot, strcmp(rot, "rotary") && !qwen3 ? A : "fp32", T * (Hq + Hkv), 0));
        const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
        o->fwd_us += fu_op_us(x->c, cast, T * (Hq + Hkv), 0);
        o->bwd_us += fu_op_us(x->c, cast, T * (Hq + Hkv), 1);
      } else {
        FU__TRY(o = fu__memop(x, rot, A, T * (Hq + Hkv), 0));
      }
      if (phi3) fu__phi3_rotary_cat(x, o, T * (Hq + Hkv));
      /* keys leave the rotary step in its dtype (fp32 under autocast, see above) */
      if (llama) FU__TRY(fu__kv_cache(x, T * Hkv, 0, x->autocast ? "fp32" : A));
      FU__TRY(fu__attn(x, s, Hq, Hkv, 1, dropout));
      FU__TRY(o = fu__linear(x, NM("self_attn.o_proj"), Hq, H, bias, 0, 1, 1));
      o->fwd_us += fu__copy_us(x, 2 * x->ab * T * Hq);
      if (dropout > 0) FU__TRY(fu__memop(x, "dropout", A, T * H, T * H));
      /* OLMo 2 normalises each branch's output before its residual add (in the branch's dtype,
       * cast back to it), and the MLP reads the residual stream itself */
      if (olmo2) FU__TRY(fu__norm(x, NM("post_attention_layernorm"), 0, 0, H, A));
      FU__TRY(fu__resid_add(x, R, T * H));
      if (olmo2) {
        FU__TRY(fu__fanout(x, T * H, R, 3)); /* gate, up, the residual add */
      } else {
        FU__TRY(fu__fanout(x, T * H, R, 2));
        FU__TRY(fu__norm(x, NM("post_attention_layernorm"), ln, ln, H, R));
      }
      if (phi3) {
        /* one product for gate and up; chunk's halves are views, its backward concatenates
         * their gradients (a copy of both) */
        FU__TRY(o = fu__linear(x, NM("mlp.gate_up_proj"), H, 2 * F, 0, fp32_in, 1, 1));
        o->bwd_us += fu__copy_us(x, 2 * x->ab * T * 2 * F);
        FU__TRY(fu__memop(x, "silu_mul", A, T * F, 3 * x->ab * T * F));
      } else if (gated) {
        if (!olmo2) FU__TRY(fu__fanout(x, T * H, R, 2)); /* gate and up share their input */
        FU__TRY(fu__linear(x, NM("mlp.gate_proj"), H, F, bias, fp32_in, 1, 1));
        FU__TRY(fu__linear(x, NM("mlp.up_proj"), H, F, bias, fp32_in, 0, 1));
        /* SiLU keeps the gate, the product keeps SiLU's output and up's */
        FU__TRY(fu__memop(x, "silu_mul", A, T * F, 3 * x->ab * T * F));
      } else {
        FU__TRY(fu__linear(x, NM("mlp.up_proj"), H, F, bias, fp32_in, 1, 1));
        FU__TRY(fu__memop(x, "gelu", A, T * F, x->ab * T * F));
      }
      FU__TRY(fu__linear(x, NM("mlp.down_proj"), F, H, bias, 0, 1, 1));
      if (dropout > 0) FU__TRY(fu__memop(x, "dropout", A, T * H, T * H));
      if (olmo2) FU__TRY(fu__norm(x, NM("post_feedforward_layernorm"), 0, 0, H, A));
      FU__TRY(fu__resid_add(x, R, T * H));
    }
    x->layer = -1;
    FU__TRY(fu__norm(x, "model.norm", ln, ln, H, R));
    FU__TRY(o = fu__linear(x, "lm_head", H, V, 0, fp32_in, 1, !tied));
    if (tied) fu__tied_head(x, o, emb, V * H);
  }
  /* the loss: fp32 log-softmax over the logits, which backward keeps; rows of a vocabulary off
   * the multiple of 8 are misaligned for vector loads (a table of their own where measured) */
  int unal = fmod(V, 8) != 0;
  const char *ce = unal && fu_compute_op(x->c, "cross_entropy_unaligned", A)
                       ? "cross_entropy_unaligned" : "cross_entropy";
  /* HF's GPT-2 and Llama losses cast the logits to fp32 first (the tables above); BERT's MLM
   * loss is CrossEntropyLoss on the bf16 logits, so under autocast log-softmax runs in bf16 and
   * only its output is cast up, for nll_loss (autocast's fp32 list): data/compute/profiles'
   * bert_base runs cunn_SoftMax<BFloat16, float, BFloat16> and one bf16 -> fp32 copy of the
   * logits' size, where gpt2_small runs the fp32 softmax. The _ac tables measure that call. */
  if (s->arch == FU_ARCH_BERT && x->autocast) {
    const char *ac = unal ? "cross_entropy_ac_unal" : "cross_entropy_ac";
    if (fu_compute_op(x->c, ac, A)) ce = ac;
  }
  FU__TRY(fu__memop(x, ce, A, T * V, 0)); /* its kept output: in the loss transient */
#undef NM
  return FU_OK;
}

#define FU__REF_LAYERS 3 /* tools/host_ref.py REF_LAYERS: the reference step's depth */

/* The profile's row `key` measured in the step's mode (autocast: bf16, else fp32); NULL where it
 * has none or only the other mode's, which fu_compute_op falls back to (autocast's casts: the
 * other mode's host time does not carry). */
const fu_op_table *fu__mode_row(const fu__ctx *x, const char *key) {
  const char *mode = x->autocast ? "bf16" : "fp32";
  const fu_op_table *t = fu_compute_op(x->c, key, mode);
  if (!t || strcmp(t->dtype, mode)) return NULL;
  fu__seen(x, t);
  return t;
}

/* Notes t, where the profile marks it derived, among the rows the build prices with. */
void fu__seen(const fu__ctx *x, const fu_op_table *t) {
  if (!t || !t->derived[0] || !x->seen) return;
  for (int i = 0; i < x->seen->n; i++)
    if (x->seen->t[i] == t) return;
  if (x->seen->n < (int)(sizeof x->seen->t / sizeof x->seen->t[0])) x->seen->t[x->seen->n++] = t;
}

/* One line on stderr naming the derived rows the build priced with (fu__seen), if any. */
void fu__warn_derived(const fu__ctx *x, const char *prof_name) {
  char list[512] = "";
  size_t at = 0;
  for (int i = 0; x->seen && i < x->seen->n && at < sizeof list; i++) {
    const fu_op_table *t = x->seen->t[i];
    at += (size_t)snprintf(list + at, sizeof list - at, "%s%s %s (%s)", at ? ", " : "", t->op, t->dtype, t->derived);
  }
  if (x->attn_derived && at < sizeof list)
    at += (size_t)snprintf(list + at, sizeof list - at, "%sattention_gqa %s (%s)", at ? ", " : "", x->gdt,
                           x->attn_derived);
  if (at)
    fu_warn("workload: profile %s prices with rows not measured on its GPU or this architecture: %s",
            prof_name, list);
}

/* The profile's hf_<arch>_layer_tiny row in the step's mode (NULL: none, or another mode's). */
static const fu_op_table *fu__tiny_layer(const fu__ctx *x, const char *arch) {
  char key[48];
  snprintf(key, sizeof key, "hf_%s_layer_tiny", arch);
  return fu__mode_row(x, key);
}

/* A layer's host cost past the reference step's depth: hf_<arch>_deep_tiny (tools/hf_depth.py:
 * the tiny model at FU__REF_LAYERS and at a deeper depth, interleaved rounds, the per-layer cost
 * between them at the profile's host speed), where the profile has it in mode. The _tiny rows'
 * per-layer cost is the slope between 1 and 3 layers, which the captured BERT backward()s of 6-12
 * layers exceeded by 3-23% (data/compute/README.md, cpuB); if the autograd graph's host cost per
 * layer grows with depth, the rows from 1-3 layers cannot show it. deep: the factors for the
 * layer's operations (sums sf, sb), left as they are without a row or with a row not above 0. */
static void fu__deep_row(const fu__ctx *x, const char *arch, double sf, double sb, double deep[2]) {
  char key[48];
  snprintf(key, sizeof key, "hf_%s_deep_tiny", arch);
  const fu_op_table *d = fu__mode_row(x, key);
  if (!d || !(d->host_fwd_us > 0 && d->host_bwd_us > 0)) return;
  if (sf > 0) deep[0] = d->host_fwd_us / sf;
  if (sb > 0) deep[1] = d->host_bwd_us / sb;
}

/* The rest's backward host (fu__scale_host): the rest row's backward row_us over operations
 * whose own costs sum to sb. Where the layer's factor kb_layer is known and the operations at it
 * cost less than the row, *kb becomes kb_layer and the return value is the remainder, backward()'s
 * own host cost at its start; else (no layer row, or a row the operations already fill) *kb is
 * left as it is (the operations scaled to the row) and 0 is returned. */
static double fu__rest_bwd(double row_us, double sb, double kb_layer, double *kb) {
  if (!(kb_layer > 0) || !(sb > 0) || !(row_us > sb * kb_layer)) return 0;
  *kb = kb_layer;
  return row_us - sb * kb_layer;
}

/* An architecture priced only by host rows of its own (Qwen3): the profile's hf_<arch>_layer_tiny
 * and _rest_tiny rows in the step's mode, beside its host-speed probe (fu__scale_host reads the
 * _tiny rows only then), else FU_EDATA and one line naming what to measure. No fallback to
 * Llama's rows: Qwen3's layer runs two more RMSNorm composites, whose host cost inside a layer
 * only a measured layer gives (priced as two standalone composites at Llama's factor, a
 * Qwen3-style capture's backward came out +52.8%: data/compute/README.md, session 35). */
static int fu__own_rows(const fu__ctx *x, const char *arch, const char *prof_name) {
  char l[48], r[48];
  snprintf(l, sizeof l, "hf_%s_layer_tiny", arch);
  snprintf(r, sizeof r, "hf_%s_rest_tiny", arch);
  int has_l = fu__mode_row(x, l) != NULL, has_r = fu__mode_row(x, r) != NULL;
  const char *mode = x->autocast ? "bf16" : "fp32";
  if (has_l && has_r && x->c->host_probe_us > 0) return FU_OK;
  if (has_l && has_r)
    fu_error("workload: --arch %s: profile %s has no host_probe_us beside its %s / %s rows "
             "(tools/calib_torch.py --parts hf_host records it)", arch, prof_name, l, r);
  else
    fu_error("workload: --arch %s: profile %s has no %s%s%s row in %s: a %s layer's host cost is measured, "
             "not taken from another architecture's (on the GPU: python3 tools/calib_torch.py --parts hf_host "
             "--hf-sizes tiny --hf-archs llama,%s, as calib/device_compute_qwen3.sh runs it)", arch, prof_name,
             has_l ? "" : l, !has_l && !has_r ? " / " : "", has_r ? "" : r, mode, arch, arch);
  return FU_EDATA;
}

/* Host costs: where the profile measured the framework's own host time per layer of this
 * architecture (hf_<arch>_layer, hf_<arch>_rest), the operations' host costs are scaled so that
 * each layer, and the rest, add up to it: the per-operation costs give the shape, the
 * framework's measurement the total (module calls, views, autocast bookkeeping). In backward
 * the rest's operations cost what the same operations cost in a layer (the layer's factor), and
 * what the rest row holds beyond them is backward()'s own (the engine's start: its graph task,
 * the dependency walk over the whole graph, the seed gradient, waking the autograd thread; the
 * loss's and casts' extra nodes), charged where backward starts, on the first operation it runs:
 * spread over the rest's operations it put 2.3x a layer's factor on the embeddings at the end
 * of backward, where the host-bound BERT captures' embeddings cost about a layer's
 * (data/compute/README.md, 2026-12-04v). fu__rest_bwd does that. */
static void fu__scale_host(fu__ctx *x, const char *arch) {
  char key[48];
  const char *mode = x->autocast ? "bf16" : "fp32";
  double kb_layer = 0; /* the layer's backward factor (part 0), for the rest's operations */
  int past_ref = 0;      /* a layer past the reference's depth, which the deep row prices */
  for (size_t i = 0; i < x->n && !past_ref; i++) past_ref = x->ops[i].layer >= FU__REF_LAYERS;
  for (int part = 0; part < 2; part++) {
    /* a profile with a host-speed probe: the rows its calibration measured beside the probe
     * (hf_host's _tiny rows, the hf part's method), so that --host-probe scales what the probe
     * describes */
    const fu_op_table *t = NULL;
    if (x->c->host_probe_us > 0) {
      snprintf(key, sizeof key, "hf_%s_%s_tiny", arch, part ? "rest" : "layer");
      t = fu_compute_op(x->c, key, mode);
    }
    /* the rest's forward time before the first layer is called (hf_host's _pre_tiny row,
     * beside the _tiny rows): it delays the layers' first kernels, where the part after the
     * layers hides behind the GPU's backlog */
    const fu_op_table *pre = NULL;
    if (part && t) {
      snprintf(key, sizeof key, "hf_%s_pre_tiny", arch);
      pre = fu__mode_row(x, key);
    }
    snprintf(key, sizeof key, "hf_%s_%s", arch, part ? "rest" : "layer");
    if (!t) t = fu_compute_op(x->c, key, mode);
    if (!t) continue;
    size_t first = 0; /* the first operation of a layer */
    while (first < x->n && x->ops[first].layer < 0) first++;
    /* sums per layer (part 0: every layer alike, take layer 0) or outside the layers (before the
     * first layer and after) */
    double sf = 0, sb = 0, sf_pre = 0;
    for (size_t i = 0; i < x->n; i++) {
      int in = part ? x->ops[i].layer < 0 : x->ops[i].layer == 0;
      if (in) sf += x->ops[i].hfwd_us, sb += x->ops[i].hbwd_us;
      if (in && part && i < first) sf_pre += x->ops[i].hfwd_us;
    }
    double kf = sf > 0 ? t->host_fwd_us / sf : 1, kb = sb > 0 ? t->host_bwd_us / sb : 1, kf_pre = kf;
    if (pre && sf_pre > 0 && sf > sf_pre) {
      double p = pre->host_fwd_us < t->host_fwd_us ? pre->host_fwd_us : t->host_fwd_us;
      kf_pre = p / sf_pre;
      kf = (t->host_fwd_us - p) / (sf - sf_pre);
    }
    if (kf < 0) kf = 0;
    if (kb < 0) kb = 0;
    /* the rest's backward: its operations at the layer's factor, the row's remainder backward()'s
     * own, at its start */
    /* backward at a real shape: hf_<arch>_{layer,rest}_shape (tools/shape_rows.py from
     * tools/hf_shape_pace.py: the layer and the rest of real-size models at the profile's host
     * speed, against the same tiny reference, net of what fu__emb_sort and fu__reduce_split add
     * here) replace the _tiny rows' backward where the profile has them in the step's mode. At
     * real sizes BERT's layer backward cost the host 1.10-1.17x the tiny model's, the rest less
     * (data/compute/README.md, 2026-12-05); forward read no one way. */
    const fu_op_table *shp = NULL;
    if (x->c->host_probe_us > 0) {
      snprintf(key, sizeof key, "hf_%s_%s_shape", arch, part ? "rest" : "layer");
      shp = fu__mode_row(x, key);
      if (shp && !(shp->host_bwd_us > 0)) shp = NULL;
    }
    double row_b = shp ? shp->host_bwd_us : t->host_bwd_us;
    if (shp && sb > 0) kb = row_b / sb;
    double start = part ? fu__rest_bwd(row_b, sb, kb_layer, &kb) : 0;
    if (!part) kb_layer = kb;
    /* layers past the reference's depth: the per-layer cost hf_depth measured beyond it, where
     * the profile has it (fu__deep_row) */
    double deep[2] = {kf, kb};
    if (!part && past_ref && t == fu__tiny_layer(x, arch)) fu__deep_row(x, arch, sf, sb, deep);
    if (!part && shp) deep[1] = kb; /* the shape's row is every layer's backward */
    for (size_t i = 0; i < x->n; i++) {
      int in = part ? x->ops[i].layer < 0 : x->ops[i].layer >= 0;
      int past = !part && x->ops[i].layer >= FU__REF_LAYERS;
      if (in) x->ops[i].hfwd_us *= (part && i < first) ? kf_pre : past ? deep[0] : kf,
              x->ops[i].hbwd_us *= past ? deep[1] : kb;
    }
    if (x->n) x->ops[x->n - 1].hbwd_us += start; /* backward runs the last operation first */
  }
}

/* An embedding's backward above FU__EMB_SORT_IDX indices: PyTorch's embedding_dense_backward_cuda
 * issues one kernel up to 3072 indices and a sort-based path above (radix sort, segment kernels:
 * 21 launches and 10 memsets on the H200, tools/emb_bwd_host.py). The layer and rest rows come
 * from hf_host's models at batch 1 x 16, on the short path, so the long path's extra host time
 * (the profile's embedding_sort row, measured either side of the switch) is added to each
 * embedding past it, after the rows set the totals and before the host's speed carries them. */
#define FU__EMB_SORT_IDX 3072
/* A real-size path's extra backward host time (row t) on operation o, counted apart as well. */
static void fu__add_path(fu__op *o, const fu_op_table *t) {
  o->hbwd_us += t->host_bwd_us;
  o->hbwd_paths_us += t->host_bwd_us;
}
static void fu__emb_sort(fu__ctx *x) {
  const fu_op_table *t = fu_compute_op(x->c, "embedding_sort", x->rdt);
  if (!t) return; /* an older profile: no row, nothing added */
  for (size_t i = 0; i < x->n; i++)
    if (!strcmp(x->ops[i].what, "embedding") && x->ops[i].nidx > FU__EMB_SORT_IDX) fu__add_path(&x->ops[i], t);
}

/* The rows from which PyTorch's column sum over a row-major (rows x cols) tensor splits across
 * thread blocks (ATen's Reduce.cuh, setReduceConfig): outputs vectorised by up to 4 (cols'
 * divisibility), 512 / vec threads a block, block_width min(32, last_pow2(cols / vec)) and
 * block_height the rest; the split when rows / block_height reaches 256 values per thread
 * (ATen rounds it up, so the block_height - 1 rows below this split too; not modelled).
 * Measured on the H200 (tools/bwd_calls.py, x.sum(0), bf16 and fp32): from 1024 rows at widths
 * 384-3072, from 2048 at width 64, as this gives. Grids of at least the GPU's resident blocks
 * stay single-pass; not modelled: on the H200 (132 SMs) from about 16.9k outputs x vec^2 (17k at
 * odd widths, 68k at 2 mod 4, 270k at multiples of 4), so a decoder bias over an odd
 * vocabulary past 17k (RoBERTa's 50265) is charged a row it does not pay. */
static double fu__reduce_split_rows(double cols) {
  int vec = fmod(cols, 4) == 0 ? 4 : fmod(cols, 2) == 0 ? 2 : 1;
  double d0 = cols / vec, bw = 1;
  while (bw * 2 <= d0 && bw < 32) bw *= 2;
  return 256.0 * (512 / vec) / bw;
}

/* A column sum in backward past fu__reduce_split_rows: the split path issues a semaphore
 * memset beside its kernel (tools/bwd_calls.py: per layer 6 in BERT, the bias gradients; 4 in
 * GPT-2; 2 in Llama, its RMSNorm weights). The layer and rest rows come from batch 1 x 16, single-
 * pass, so the profile's reduce_split row (the extra host time measured either side of the
 * switch) is added where it applies, after the rows set the totals and before the host's speed
 * carries them, as fu__emb_sort. */
static void fu__reduce_split(fu__ctx *x) {
  const fu_op_table *t = fu_compute_op(x->c, "reduce_split", x->rdt);
  if (!t) return; /* an older profile: no row, nothing added */
  for (size_t i = 0; i < x->n; i++)
    if (x->ops[i].red_rows > 0 && x->ops[i].red_rows >= fu__reduce_split_rows(x->ops[i].red_cols))
      fu__add_path(&x->ops[i], t);
}

/* The host costs of the biases an architecture's layer row was measured without (--qkv-bias on
 * Llama's or Qwen3's rows): under autocast the bias's cast each way, and in backward its
 * gradient's column sum, a launch each, at the profile's cast and bias_grad rows; added after
 * the rows set the layer's total and before the host's speed carries them, as fu__emb_sort. */
static void fu__bias_host(fu__ctx *x) {
  const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
  const fu_op_table *sum = fu_compute_op(x->c, "bias_grad", x->adt);
  for (size_t i = 0; i < x->n; i++) {
    fu__op *o = &x->ops[i];
    if (!o->row_lacks_bias) continue;
    if (x->autocast && cast) o->hfwd_us += cast->host_fwd_us, o->hbwd_us += cast->host_bwd_us;
    if (sum) o->hbwd_us += sum->host_fwd_us;
  }
}

/* Every operation's host costs times kf (forward) and kb (backward). */
static void fu__scale_ops(fu__ctx *x, double kf, double kb) {
  for (size_t i = 0; i < x->n; i++) x->ops[i].hfwd_us *= kf, x->ops[i].hbwd_us *= kb, x->ops[i].hbwd_paths_us *= kb;
}

/* Where the profile measured the whole model's host time as the framework runs it at a
 * realistic size with the GPU held (tools/calib_torch.py's hf_host: tv_resnet50_held), the
 * operations' host costs are scaled so that the measured model's (ref: its operations, built
 * alike) add up to it, as fu__scale_host does per layer; a model of the same operations with
 * more blocks takes the same factor. start_ref, start_x: backward()'s own start in ref and in x
 * (0: none; fu_build_cnn.c fu__cnn_bwd_start), which the measured backward holds once: taken off
 * it before the factor and charged where x's backward starts, on the first operation it runs
 * (the last), as fu__scale_host charges the rest row's remainder; so ref's total stays the row.
 * FU_EDATA and one line where the start is not below the row's backward. */
int fu__scale_host_whole(fu__ctx *x, const fu__ctx *ref, const char *key, double start_ref, double start_x,
                         const char *prof_name) {
  const fu_op_table *t = fu__mode_row(x, key);
  if (!t) return FU_OK;
  if (start_ref > 0 && !(start_ref < t->host_bwd_us)) {
    fu_error("workload: profile %s: backward()'s start (torch_bwd_start rows) %.1f us is not below %s's "
             "backward %.1f us in %s", prof_name, start_ref, key, t->host_bwd_us, t->dtype);
    return FU_EDATA;
  }
  double sf = 0, sb = 0;
  for (size_t i = 0; i < ref->n; i++) sf += ref->ops[i].hfwd_us, sb += ref->ops[i].hbwd_us;
  double kf = sf > 0 ? t->host_fwd_us / sf : 1, kb = sb > 0 ? (t->host_bwd_us - start_ref) / sb : 1;
  fu__scale_ops(x, kf, kb);
  if (x->n) x->ops[x->n - 1].hbwd_us += start_x;
  return FU_OK;
}

/* The host's speed: host costs measured where the profile's probe read c->host_probe_min_us
 * (the fastest of its readings; older profiles: their median, host_probe_us) are carried to a
 * host whose probe's fastest reading is probe_us (0: left as they are); the probe is a fixed
 * CPU-bound loop of small launches, and the host costs are launches and their dispatch. The
 * fastest reading, because the probe is 1-2 ms of wall time: interference (other tenants,
 * interrupts) only adds to it, and its readings within one capture spread 1.1-2.3x while a step's
 * host cost integrates over tens of ms (data/compute/README.md, 2026-12-04b: across leases the
 * fastest readings' ratio carries forward() CPU time better than the medians'; where a capture
 * read the probe between its steps, their median does better, and tools/compare_compute.py
 * passes that ratio on this scale: 2026-12-05, compute21).
 * bprobe_us > 0: the same probe on the autograd engine's thread (tools/torch_host.bwd_probe), the
 * median of readings taken between the steps, carries backward's host costs instead, over the
 * profile's median probe (host_probe_us; no calibration recorded that thread's, and inside the 41
 * captures with both the two threads' medians agree): backward's launches run on that thread,
 * whose speed moves apart from the main thread's (data/compute/README.md, 2026-12-05 compute21:
 * across 9 leases its median carries the reference step's backward, the main probe's readings do
 * not). */
static int fu__host_speed(fu__ctx *x, double probe_us, double bprobe_us, const char *prof_name) {
  if (!(probe_us > 0)) return FU_OK;
  if (!(x->c->host_probe_us > 0)) {
    fu_error("workload: --host-probe: profile %s has no host_probe_us to scale from "
             "(tools/calib_torch.py --parts hf_host records it)", prof_name);
    return FU_EDATA;
  }
  double k = probe_us / (x->c->host_probe_min_us > 0 ? x->c->host_probe_min_us : x->c->host_probe_us);
  fu__scale_ops(x, k, bprobe_us > 0 ? bprobe_us / x->c->host_probe_us : k);
  x->host_k = k; /* the optimizer's host part too (fu__optim): opt.step() runs on the main thread */
  return FU_OK;
}

/* The host's speed from a reference step (tools/host_ref.py) timed on the host being priced:
 * the work the profile's host rows were measured on, so that the profile gives the same step's
 * time at its own host speed: for a transformer, hf_host's tiny model of the architecture at
 * FU__REF_LAYERS layers (the rows' rest + that many layers, forward and backward apart), for a
 * CNN the held ResNet-50 step (tv_resnet50_held). Forward's host costs are carried by the
 * forward ratio (the main thread), backward's by the backward ratio (the autograd engine's
 * thread, whose speed moves apart from the main thread's: data/compute/README.md 2026-12-04g/h),
 * the optimizer's host part by the forward ratio (opt.step() runs on the main thread). */
static int fu__host_ref(fu__ctx *x, const double ref[2], const char *arch, const char *prof_name) {
  if (!(ref[0] > 0) && !(ref[1] > 0)) return FU_OK;
  if (!(ref[0] > 0 && ref[1] > 0)) {
    fu_error("workload: --host-ref-fwd and --host-ref-bwd go together");
    return FU_EUSAGE;
  }
  const char *mode = x->autocast ? "bf16" : "fp32";
  double pf, pb;
  char key[48];
  if (arch) {
    snprintf(key, sizeof key, "hf_%s_layer_tiny", arch);
    const fu_op_table *l = fu__mode_row(x, key);
    snprintf(key, sizeof key, "hf_%s_rest_tiny", arch);
    const fu_op_table *r = fu__mode_row(x, key);
    if (!l || !r) {
      fu_error("workload: --host-ref: profile %s has no hf_%s_layer_tiny / _rest_tiny rows in %s "
               "(tools/calib_torch.py --parts hf_host)", prof_name, arch, mode);
      return FU_EDATA;
    }
    /* without a probe fu__scale_host took the host costs from other rows than these */
    if (!(x->c->host_probe_us > 0)) {
      fu_error("workload: --host-ref: profile %s has no host_probe_us, so its host costs do not come "
               "from the _tiny rows the reference is priced by (tools/calib_torch.py --parts hf_host)",
               prof_name);
      return FU_EDATA;
    }
    pf = r->host_fwd_us + FU__REF_LAYERS * l->host_fwd_us;
    pb = r->host_bwd_us + FU__REF_LAYERS * l->host_bwd_us;
  } else {
    const fu_op_table *t = fu__mode_row(x, "tv_resnet50_held");
    if (!t) {
      fu_error("workload: --host-ref: profile %s has no tv_resnet50_held row in %s "
               "(tools/calib_torch.py --parts hf_host)", prof_name, mode);
      return FU_EDATA;
    }
    pf = t->host_fwd_us, pb = t->host_bwd_us;
  }
  if (!(pf > 0 && pb > 0)) {
    fu_error("workload: --host-ref: profile %s's reference rows are not positive", prof_name);
    return FU_EDATA;
  }
  double kf = ref[0] / pf, kb = ref[1] / pb;
  fu__scale_ops(x, kf, kb);
  x->ref_kf = kf;
  return FU_OK;
}

/* Carries the profile's host costs to the host the step runs on: by the reference step
 * (--host-ref-fwd/--host-ref-bwd) or by the probes (--host-probe, with --host-probe-bwd), not
 * both. arch: the transformer's reference model (NULL: the CNN's, the held ResNet-50). */
int fu__host_carry(fu__ctx *x, double probe_us, double bprobe_us, const double ref[2],
                   const char *arch, const char *prof_name) {
  if (bprobe_us > 0 && !(probe_us > 0)) {
    fu_error("workload: --host-probe-bwd goes with --host-probe (the main thread's, for forward)");
    return FU_EUSAGE;
  }
  if (!(ref[0] + ref[1] > 0)) return fu__host_speed(x, probe_us, bprobe_us, prof_name);
  if (probe_us > 0) {
    fu_error("workload: give one of --host-ref-fwd/--host-ref-bwd and --host-probe");
    return FU_EUSAGE;
  }
  return fu__host_ref(x, ref, arch, prof_name);
}

/* Runs the host and GPU timelines over the operations; fills w's times and gradients. */
int fu__timeline(const fu__ctx *x, fu_workload *w, double *fwd_out, double *bwd_out,
                 double *lead_out) {
  size_t ng = 0;
  for (size_t i = 0; i < x->n; i++) ng += (size_t)x->ops[i].nparams;
  w->grads = calloc(ng ? ng : 1, sizeof *w->grads);
  if (!w->grads) return FU_ENOMEM;
  double host = 0, gpu = 0;
  for (size_t i = 0; i < x->n; i++) {
    host += x->ops[i].hfwd_us;
    gpu = (host > gpu ? host : gpu) + x->ops[i].fwd_us;
  }
  /* forward ends on the GPU (gpu >= host after every operation); the host calls backward() as
   * soon as it has issued the forward, without waiting for the GPU, so it issues backward's
   * first operations while the GPU still runs the forward's last */
  double fwd = gpu;
  /* gradients by ready time; an operation's params in order, each after its own tail */
  for (size_t i = x->n; i-- > 0;) {
    const fu__op *o = &x->ops[i];
    host += o->hbwd_us;
    gpu = (host > gpu ? host : gpu) + o->bwd_us;
    for (int k = 0; k < o->nparams; k++) {
      fu_grad *g = &w->grads[w->ngrads];
      if (!(g->name = strdup(o->pname[k]))) return FU_ENOMEM;
      w->ngrads++;
      gpu += o->tail_us[k];
      /* a post-accumulate-grad hook runs on the autograd thread before the next node: its host
       * time delays what is issued after it (the GPU waits where the host bounds backward), the
       * operation's next gradient too, whose hook's event the host records only then */
      g->ready_us = (gpu > host ? gpu : host) - fwd;
      host += x->hook_us;
    }
  }
  *fwd_out = fwd;
  *bwd_out = gpu - fwd;
  *lead_out = gpu > host ? gpu - host : 0; /* how far the host is ahead when backward ends */
  return FU_OK;
}

/* Says in the notes (buf, after what it holds) that the times are a hooked step's. */
void fu__hook_note(const fu__ctx *x, char *buf, size_t n) {
  size_t len = strlen(buf);
  if (x->hook_us > 0 && len < n)
    snprintf(buf + len, n - len, " A hook after every gradient costs the host %g us (--ready-hook-us): "
             "backward and the ready times are a hooked step's.", x->hook_us);
}

/* Forward and backward with the host's costs scaled by kf and kb (a scratch timeline). */
static int fu__at_host_speed(const fu__ctx *x, double kf, double kb, double *fwd, double *bwd) {
  fu__ctx y = *x;
  if (!(y.ops = malloc(x->n * sizeof *y.ops))) return FU_ENOMEM;
  memcpy(y.ops, x->ops, x->n * sizeof *y.ops);
  fu__scale_ops(&y, kf, kb);
  fu_workload w;
  fu_workload_init(&w);
  double lead;
  int st = fu__timeline(&y, &w, fwd, bwd, &lead);
  fu_workload_finish(&w);
  free(y.ops);
  return st;
}

/* Which phases the host bounds: where forward's (backward's) host issue costs add up to more
 * than its GPU work, the phase's time is the host's, and follows the host's speed where the step
 * runs, which moved 1.3-1.8x between leases and within one for the same work
 * (data/compute/README.md, 2026-12-04i/j). Says so in buf (a sentence for the notes, "" when
 * neither is) and on stderr, with how the host's speed was set (how); measured: that speed was
 * measured where the step runs (else the profile's host_speed_range gives a what-if). */
void fu__host_bound(const fu__ctx *x, const char *how, int measured, char *buf, size_t n) {
  double hf = 0, df = 0, hb = 0, db = 0;
  for (size_t i = 0; i < x->n; i++) {
    const fu__op *o = &x->ops[i];
    hf += o->hfwd_us, df += o->fwd_us, hb += o->hbwd_us, db += o->bwd_us + o->tail_us[0] + o->tail_us[1];
  }
  buf[0] = 0;
  int f = hf > df, b = hb > db;
  if (!f && !b) return;
  const char *which = f && b ? "forward and backward" : f ? "forward" : "backward";
  snprintf(buf, n,
           " Host-bound: %s (host issue %.1f / %.1f ms against GPU work %.1f / %.1f ms, forward / "
           "backward), so %s follow%s the host's speed, priced at %s.",
           which, hf / 1e3, hb / 1e3, df / 1e3, db / 1e3, f && b ? "their times" : "its time",
           f && b ? "" : "s", how);
  /* a what-if (the host's speed not measured where the step runs): the times at the slowest and
   * fastest host speeds seen inside captures' steps over these rows (the profile's
   * host_speed_range, tools/host_ref_range.py) */
  const double *r = x->c->host_speed_range;
  double f_lo, b_lo, f_hi, b_hi;
  size_t used = strlen(buf);
  if (!measured && r[0] > 0 && used < n && fu__at_host_speed(x, r[0], r[2], &f_lo, &b_lo) == FU_OK &&
      fu__at_host_speed(x, r[1], r[3], &f_hi, &b_hi) == FU_OK)
    snprintf(buf + used, n - used,
             " At the host speeds measured inside captured steps (forward %.2f-%.2fx, backward "
             "%.2f-%.2fx these rows' time): forward %.1f-%.1f ms, backward %.1f-%.1f ms.",
             r[0], r[1], r[2], r[3], f_lo / 1e3, f_hi / 1e3, b_lo / 1e3, b_hi / 1e3);
  fu_warn("workload: %s host-bound (host %.1f / %.1f ms against GPU %.1f / %.1f ms, forward / "
          "backward): the time follows the host's speed where the step runs (priced at %s; "
          "tools/host_ref.py measures it there, --host-ref-fwd/--host-ref-bwd)",
          f && b ? "forward and backward are" : f ? "forward is" : "backward is", hf / 1e3, hb / 1e3,
          df / 1e3, db / 1e3, how);
}

const char *fu__host_how(const double ref[2], double probe_us, double bprobe_us) {
  return ref[0] > 0 ? "the reference step's (--host-ref)"
         : probe_us > 0 && bprobe_us > 0 ? "the two threads' probes' (--host-probe, --host-probe-bwd)"
         : probe_us > 0 ? "the probe's (--host-probe)" : "the profile's own host rows";
}

/* --ops: one CSV row per operation (forward order) with its times and saved bytes, and of its
 * backward host time what the real-size paths add, into of, which the caller commits (a failed
 * write is its one line and FU_EIO there) or aborts: written whole or not at all (fu_output.h). */
int fu__dump_ops(const fu__ctx *x, fu_outfile *of) {
  FILE *f = of->f;
  fprintf(f, "index,layer,op,param,fwd_us,bwd_us,host_fwd_us,host_bwd_us,saved_bytes,host_bwd_paths_us\n");
  for (size_t i = 0; i < x->n; i++) {
    const fu__op *o = &x->ops[i];
    fprintf(f, "%zu,%d,%s,%s,%.3f,%.3f,%.3f,%.3f,%.0f,%.3f\n", i, o->layer, o->what,
            o->nparams ? o->pname[0] : "", o->fwd_us, o->bwd_us + o->tail_us[0] + o->tail_us[1],
            o->hfwd_us, o->hbwd_us, o->saved, o->hbwd_paths_us);
  }
  return FU_OK; /* a write error shows at the caller's commit */
}

/* The roofline of the first version (--tflops): t = max(flops/rate, bytes/HBM, kernels x U). */
static int fu__roofline(const fu__ctx *x, const fu_tf_spec *s, double hbm_gbps, double kernel_us,
                        fu_workload *w, double *fwd_out, double *bwd_out) {
  size_t ng = 0;
  for (size_t i = 0; i < x->n; i++) ng += (size_t)x->ops[i].nparams;
  w->grads = calloc(ng ? ng : 1, sizeof *w->grads);
  if (!w->grads) return FU_ENOMEM;
  double fps = s->tflops * s->efficiency * 1e6, bps = hbm_gbps * 1e3, fwd = 0, tb = 0;
  for (int pass = 0; pass < 2; pass++) {
    double mult = pass ? 2 : 1;
    for (size_t j = 0; j < x->n; j++) {
      size_t i = pass ? x->n - 1 - j : j;
      const fu__op *o = &x->ops[i];
      double tm = o->flops * mult / fps, tbw = o->bytes * mult / bps, tk = o->kernels * mult * kernel_us;
      double t = tm > tbw ? tm : tbw;
      t = t > tk ? t : tk;
      if (!pass) {
        fwd += t;
        continue;
      }
      tb += t;
      for (int k = 0; k < o->nparams; k++) {
        fu_grad *g = &w->grads[w->ngrads];
        if (!(g->name = strdup(o->pname[k]))) return FU_ENOMEM;
        w->ngrads++;
        g->ready_us = tb;
      }
    }
  }
  *fwd_out = fwd;
  *bwd_out = tb;
  return FU_OK;
}

/* The roofline's forward operations: the first version's byte and kernel counts. */
static int fu__roofline_ops(fu__ctx *x, const fu_tf_spec *s) {
  double T = x->T, a = x->ab, H = (double)s->hidden, F = (double)s->ffn, V = (double)s->vocab;
  double Hkv = H * (s->kv_heads ? s->kv_heads : s->heads) / s->heads, Hq = H;
  if (s->head_dim > 0) Hq = (double)s->head_dim * s->heads, Hkv = (double)s->head_dim * (s->kv_heads ? s->kv_heads : s->heads);
  char p[64], nm[110];
  fu__op *o;
#define PUSH(fl, by, k) \
  do { FU__TRY(o = fu__push(x)); o->flops = (fl), o->bytes = (by), o->kernels = (k); } while (0)
#define NORM(name)                                            \
  do {                                                        \
    PUSH(0, 4 * T * H * a, 1);                                \
    fu__param(o, name, ".weight", (uint64_t)H);               \
    if (s->layernorm) fu__param(o, name, ".bias", (uint64_t)H); \
  } while (0)
#define LINB(name, din, dout, b)                                                      \
  do {                                                                                \
    PUSH(2 * T * (din) * (dout), (T * (din) + T * (dout) + (din) * (dout)) * a, 1);   \
    fu__param(o, name, ".weight", (uint64_t)(din) * (uint64_t)(dout));                \
    if (b) fu__param(o, name, ".bias", (uint64_t)(dout));                             \
  } while (0)
#define LIN(name, din, dout) LINB(name, din, dout, s->bias)
#define NM(sfx) (snprintf(nm, sizeof nm, "%s%s", p, sfx), nm)
  PUSH(0, 2 * T * H * a, 1);
  fu__param(o, "model.embed_tokens", ".weight", (uint64_t)(V * H));
  for (long i = 0; i < s->layers; i++) {
    snprintf(p, sizeof p, "model.layers.%ld.", i);
    NORM(NM("input_layernorm"));
    LINB(NM("self_attn.q_proj"), H, Hq, s->bias || s->qkv_bias);
    LINB(NM("self_attn.k_proj"), H, Hkv, s->bias || s->qkv_bias);
    LINB(NM("self_attn.v_proj"), H, Hkv, s->bias || s->qkv_bias);
    PUSH(4 * (double)s->batch * s->seq * s->seq * Hq, T * (2 * Hq + 2 * Hkv) * a, 1);
    LIN(NM("self_attn.o_proj"), Hq, H);
    NORM(NM("post_attention_layernorm"));
    if (s->gated) {
      LIN(NM("mlp.gate_proj"), H, F);
      LIN(NM("mlp.up_proj"), H, F);
      PUSH(0, 3 * T * F * a, 1);
    } else {
      LIN(NM("mlp.up_proj"), H, F);
      PUSH(0, 2 * T * F * a, 1);
    }
    LIN(NM("mlp.down_proj"), F, H);
  }
  NORM("model.norm");
  PUSH(2 * T * H * V, (T * H + T * V + H * V) * a, 1);
  if (!s->tied) fu__param(o, "lm_head", ".weight", (uint64_t)(V * H));
  PUSH(0, 3 * T * V * 4, 2);
#undef PUSH
#undef NORM
#undef LINB
#undef LIN
#undef NM
  return FU_OK;
}

const char *fu_precision_name(fu_precision p) {
  switch (p) {
  case FU_PREC_AUTOCAST: return "autocast-bf16";
  case FU_PREC_BF16: return "bf16";
  case FU_PREC_TF32: return "tf32";
  default: return "fp32";
  }
}

static const char *fu__arch_name(fu_arch a) {
  switch (a) {
  case FU_ARCH_LLAMA: return "llama";
  case FU_ARCH_BERT: return "bert";
  case FU_ARCH_GPT2: return "gpt2";
  case FU_ARCH_QWEN3: return "qwen3";
  case FU_ARCH_PHI3: return "phi3";
  case FU_ARCH_OLMO2: return "olmo2";
  case FU_ARCH_VIT: return "vit";
  default: return "custom";
  }
}

/* Optimizer step and its memory: states per parameter and the step's temporaries. */
double fu__opt_states(const char *opt, fu_precision p) {
  double st = !strcmp(opt, "sgd") ? 4 : 8;  /* momentum; Adam's m and v (fp32) */
  return st + (p == FU_PREC_BF16 ? 4 : 0);  /* fp32 master weights */
}

double fu__opt_temp(const char *opt) {
  /* PyTorch's multi-tensor Adam allocates sqrt(v) for every parameter (4 B each), SGD nothing
   * (tools/calib_torch.py measures it: temp_bytes_per_elem) */
  return !strcmp(opt, "sgd") ? 0 : 4;
}

/* The gradients' element counts in the order the optimizer takes its parameters (the model's:
 * the timeline's order reversed); malloc'd, NULL when out of memory. */
static double *fu__grad_sizes(const fu_workload *w, double elem_bytes) {
  double *v = malloc((w->ngrads ? w->ngrads : 1) * sizeof *v);
  for (size_t i = 0; v && i < w->ngrads; i++) v[i] = (double)w->grads[w->ngrads - 1 - i].bytes / elem_bytes;
  return v;
}

/* The optimizer step's parts in the notes: what a capture's opt_gpu_only_us, cpu_opt_call_us and
 * the GPU's lag when backward() returns are compared with (tools/compare_compute.py --csv). */
static void fu__optim_note(char *note, size_t n, double dev, double host, double lead, int host_bound) {
  snprintf(note, n, " Optimizer step: device %.1f us, host %.1f us, GPU lead %.1f us when backward() "
           "returns (%s).", dev, host, lead, host_bound ? "host-bound" : "device-bound");
}

/* The optimizer step after backward, as the captures time it (from backward's end on the GPU).
 * Where the profile's fit measured the host apart (has_host: opt.step()'s CPU time inside a
 * training step), the host issues the step's kernels while the GPU may still finish backward
 * (lead) and the GPU runs them as they come: the step ends at the later of its device time and
 * the host's issue time beyond the lead plus the last kernel (tail_frac x device), not their
 * sum; with a measured prologue (has_prologue) the device time starts only after the host's
 * Python prologue beyond the lead, and the host-bound end is its last issue plus tail_us. The host
 * part is carried from the row's probe to the step's host speed (probe_us, else
 * the profile's, at which its other host rows are). Older fits (no has_host): the per-element
 * part and base are device time, the per-tensor part the host's, host_k carries it, and the
 * host time beyond the lead adds to the device time. */
static int fu__optim_sized(const fu_optim_fit *o, const fu_compute *c, const double *sizes,
                           size_t ntensors, double lead, double host_k, double probe_us,
                           double ref_kf, double *us, char *note, size_t nnote) {
  if (!o->has_host) {
    double numel = 0;
    for (size_t i = 0; i < ntensors; i++) numel += sizes[i];
    double dev = o->base_us + o->per_elem_us * numel, host = o->per_tensor_us * (double)ntensors;
    if (host_k > 0) host *= host_k;
    *us = dev + (host > lead ? host - lead : 0);
    fu__optim_note(note, nnote, dev, host, lead, host > lead);
    return FU_OK;
  }
  double dev = fu_optim_dev_us(o, sizes, ntensors);
  double host = o->host_base_us + o->host_per_tensor_us * (double)ntensors;
  double at = probe_us > 0 ? probe_us : c->host_probe_min_us > 0 ? c->host_probe_min_us : c->host_probe_us;
  if (o->host_probe_us > 0 && at > 0) host *= at / o->host_probe_us;
  else if (host_k > 0) host *= host_k;
  if (ref_kf > 0) host *= ref_kf; /* --host-ref: from the profile's host speed (at) to the step's */
  if (o->has_prologue) { /* the GPU waits for the prologue beyond the lead, then for the host */
    double pre = o->prologue_frac * host - lead, issued = host - lead + o->tail_us;
    double ran = (pre > 0 ? pre : 0) + dev;
    *us = issued > ran ? issued : ran;
    fu__optim_note(note, nnote, dev, host, lead, issued > ran);
    return FU_OK;
  }
  double issued = host - lead + o->tail_frac * dev;
  *us = issued > dev ? issued : dev;
  fu__optim_note(note, nnote, dev, host, lead, issued > dev);
  return FU_OK;
}

/* --clip-grad-norm: FU_EDATA, said on stderr in one line, where the profile has no
 * "<name>_clip" fit; checked before the build, so that no warning comes before it. */
int fu__clip_fit(const fu_compute *c, const char *name, const char *prof_name) {
  char fit[32];
  snprintf(fit, sizeof fit, "%s_clip", name);
  for (int i = 0; i < c->noptim; i++)
    if (!strcmp(c->optim[i].name, fit)) return FU_OK;
  fu_error("workload: profile %s has no \"%s\" optimizer fit for --clip-grad-norm; measure it with "
           "python3 tools/calib_torch.py --parts optimizer --optimizers %s --out F.json "
           "(calib/device_compute_clip.sh) and merge F.json", prof_name, fit, fit);
  return FU_EDATA;
}

/* The step of w's optimizer (its gradients of elem_bytes per element): FU_EDATA, said on stderr,
 * where the profile has no fit for it. clip > 0: the step clips the gradients' total norm first
 * (torch.nn.utils.clip_grad_norm_), priced by the profile's "<name>_clip" fit, measured with the
 * clip inside the step; never the plain fit in its place. */
int fu__optim(const fu_compute *c, const char *name, double clip, const fu_workload *w,
              double elem_bytes, double lead, double host_k, double probe_us, double ref_kf,
              const char *prof_name, double *us, char *note, size_t nnote) {
  char fit[32];
  snprintf(fit, sizeof fit, "%s%s", name, clip > 0 ? "_clip" : "");
  const fu_optim_fit *o = NULL;
  for (int i = 0; i < c->noptim; i++)
    if (!strcmp(c->optim[i].name, fit)) o = &c->optim[i];
  if (!o && clip > 0) return fu__clip_fit(c, name, prof_name);
  if (!o) {
    fu_error("workload: profile %s has no fit for the %s optimizer", prof_name, name);
    return FU_EDATA;
  }
  if (o->derived[0])
    fu_warn("workload: profile %s's \"%s\" optimizer fit was not measured on its GPU but derived (%s)",
            prof_name, fit, o->derived);
  double *sizes = fu__grad_sizes(w, elem_bytes);
  if (!sizes) return FU_ENOMEM;
  int st = fu__optim_sized(o, c, sizes, w->ngrads, lead, host_k, probe_us, ref_kf, us, note, nnote);
  free(sizes);
  if (st == FU_OK && clip > 0) { /* the notes say what the step holds */
    size_t l = strlen(note);
    if (l < nnote)
      snprintf(note + l, nnote - l, " The step includes torch.nn.utils.clip_grad_norm_(max_norm %g) "
               "before opt.step() (fit %s).", clip, fit);
  }
  return st;
}

int fu__has_tables(const fu_profile *p) {
  return p && p->compute.ngemm > 0 && p->compute.nops > 0;
}

int fu_builder_has_tables(const fu_profile *prof) { return fu__has_tables(prof); }

/* Peak memory: parameters, states, the micro-batch's inputs and the framework's workspaces
 * are there throughout; autocast's casts and forward's activations all at once at the loss,
 * with the logits' transient; the gradients and the optimizer's temporaries at the step. */
void fu__mem_finish(fu_mem *m, double loss_transient, double opt_temp, long accum) {
  double fixed = m->params + m->optimizer + m->inputs + m->workspace;
  /* with gradient accumulation the gradients of the earlier micro-batches are alive through
   * the later ones' forward and loss */
  double at_loss = fixed + m->casts + m->activations + loss_transient + (accum > 1 ? m->grads : 0);
  double at_step = fixed + m->grads + opt_temp;
  m->transient = at_loss >= at_step ? loss_transient : opt_temp;
  m->peak = at_loss >= at_step ? at_loss : at_step;
  m->forward = fixed + m->casts + m->activations + loss_transient; /* no gradient alive */
}

/* An image classifier's micro-batch beside the tensors autograd saves: its int64 labels, and
 * its fp32 images where the stem keeps their bf16 cast (in fp32 it keeps the images themselves,
 * counted as its activation). */
double fu__image_inputs(const fu__ctx *x, double batch, double image) {
  return ((x->autocast ? 4.0 * 3 * image * image : 0) + 8) * batch;
}

/* The loss's most bytes per logit alive at once, beside the activations. GPT-2's and Llama's
 * losses (and every loss in fp32) run log-softmax in fp32 and keep its output for backward (4);
 * in backward its gradient (4) and its input's gradient (4) are alive together: 12. BERT's MLM
 * loss under autocast runs log-softmax on the bf16 logits (its output, 2, kept) and casts that
 * up for nll_loss, which keeps the fp32 copy (4): the forward holds the logits too (2 + 2 + 4),
 * nll_loss's backward the two kept tensors and its fp32 gradient (2 + 4 + 4 = 10), after which
 * autograd frees the copy; the rest is smaller (the cast back and log-softmax's backward: 2 + 4
 * + 2, then 2 + 2 + 2). */
static double fu__loss_bytes(const fu_tf_spec *s, const fu__ctx *x) {
  return s->arch == FU_ARCH_BERT && x->autocast ? 10.0 : 12.0;
}

int fu_build_transformer(const fu_tf_spec *s, const fu_profile *prof, const char *prof_name,
                         fu_workload *w) {
  FU_CHECK(fu_tf_spec_check(s));
  fu__ctx x;
  fu__derived_seen seen = {0};
  memset(&x, 0, sizeof x);
  x.seen = &seen;
  fu__ctx_prec(&x, s->prec);
  x.T = (double)s->batch * s->seq;
  x.roofline = s->tflops > 0;
  if (!x.roofline && !fu__has_tables(prof)) {
    fu_error("workload: profile %s has no compute tables (fusim calib --suite gemm, "
             "tools/calib_torch.py, fusim fit --compute); pass --tflops for the roofline",
             prof_name);
    return FU_EDATA; /* the profile lacks what this command reads, as a missing NCHW table */
  }
  if (prof) x.c = &prof->compute;
  if (!x.roofline && s->clip_norm > 0) FU_CHECK(fu__clip_fit(x.c, s->optimizer, prof_name));
  double dropout = s->dropout >= 0 ? s->dropout : (s->arch == FU_ARCH_BERT || s->arch == FU_ARCH_GPT2) ? 0.1 : 0;
  int st = x.roofline ? fu__roofline_ops(&x, s) : fu__tf_ops(&x, s, dropout);
  if (st != FU_OK) {
    free(x.ops);
    return st;
  }
  if (!x.roofline && x.missing) {
    fu_error("workload: profile %s has no time for %s: no such table, or none of its points around it "
             "timed; recalibrate with tools/calib_torch.py", prof_name, x.missing_what);
    free(x.ops);
    return FU_EDATA;
  }
  if (!x.roofline && (s->arch == FU_ARCH_QWEN3 || s->arch == FU_ARCH_PHI3 || s->arch == FU_ARCH_OLMO2) &&
      fu__own_rows(&x, fu__arch_name(s->arch), prof_name) != FU_OK) {
    free(x.ops);
    return FU_EDATA;
  }
  if (!x.roofline && s->arch != FU_ARCH_CUSTOM) fu__scale_host(&x, fu__arch_name(s->arch));
  if (!x.roofline) fu__emb_sort(&x), fu__reduce_split(&x), fu__bias_host(&x);
  if (!x.roofline && s->arch == FU_ARCH_CUSTOM && s->host_ref_us[0] + s->host_ref_us[1] > 0 &&
      !(s->host_probe_us > 0)) {
    fu_error("workload: --host-ref needs --arch bert, gpt2, llama, qwen3, phi3 or olmo2 (the reference's model)");
    st = FU_EUSAGE;
  } else if (!x.roofline) {
    st = fu__host_carry(&x, s->host_probe_us, s->host_bwd_probe_us, s->host_ref_us, fu__arch_name(s->arch),
                        prof_name);
  }
  x.hook_us = s->ready_hook_us;
  if (st != FU_OK) {
    free(x.ops);
    return st;
  }
  if (!x.roofline && x.unaligned > 0)
    fu_warn("workload: a bf16 GEMM dimension (%.0f) is not a multiple of 8: cuBLAS runs slower, "
            "unaligned kernels for it that the shape sweep does not measure, so its time is optimistic",
            x.unaligned);
  if (!x.roofline) fu__warn_derived(&x, prof_name);
  /* grouped keys outside bf16 run SDPA's math path (fu__attn_math), which materialises every
   * score; without the profile's points of it the fused kernels' price is optimistic
   * (data/compute/README.md, session 50: a TF32 Phi-3 and Mistral forward 27-38% and memory 25-73%
   * over it on an H100) */
  if (!x.roofline && x.attn_unpriced)
    fu_warn("workload: %ld KV heads of %ld in %s: PyTorch's SDPA runs its math path for grouped keys outside "
            "bf16, and profile %s has no attention_gqa points (tools/calib_torch.py --parts attention_gqa): "
            "priced as the fused kernels, forward, backward and memory are optimistic",
            s->kv_heads, s->heads, fu_precision_name(s->prec), prof_name);
  fu_workload_init(w);
  double fwd, bwd, hbm = 0, ku = 0, lead = 0;
  if (x.roofline) {
    hbm = s->hbm_gbps > 0 ? s->hbm_gbps : prof && prof->hbm_gbps > 0 ? prof->hbm_gbps : FU__DEFAULT_HBM_GBPS;
    ku = s->kernel_us >= 0 ? s->kernel_us : prof && prof->launch_us > 0 ? prof->launch_us : FU__DEFAULT_KERNEL_US;
    st = fu__roofline(&x, s, hbm, ku, w, &fwd, &bwd);
  } else {
    st = fu__timeline(&x, w, &fwd, &bwd, &lead);
    if (st == FU_OK && s->ops) st = fu__dump_ops(&x, s->ops);
  }
  char bound[640] = "";
  if (!x.roofline && st == FU_OK)
    fu__host_bound(&x, fu__host_how(s->host_ref_us, s->host_probe_us, s->host_bwd_probe_us),
                   s->host_ref_us[0] > 0 || s->host_probe_us > 0, bound, sizeof bound);
  fu__hook_note(&x, bound, sizeof bound);
  uint64_t nparam = 0;
  double pbytes = (s->prec == FU_PREC_BF16) ? 2 : 4;
  int gb = s->grad_bytes > 0 ? s->grad_bytes : (int)pbytes;
  double act = 0;
  for (size_t i = 0; i < x.n; i++) {
    act += x.ops[i].saved;
    for (int k = 0; k < x.ops[i].nparams; k++) nparam += x.ops[i].numel[k];
  }
  size_t ntensors = w->ngrads;
  { /* gradient bytes, in the timeline's order (operations reversed, params in order) */
    size_t gi = 0;
    for (size_t i = x.n; i-- > 0;)
      for (int k = 0; k < x.ops[i].nparams && gi < w->ngrads; k++)
        w->grads[gi++].bytes = x.ops[i].numel[k] * (uint64_t)gb;
  }
  free(x.ops);
  if (st != FU_OK) {
    fu_workload_finish(w);
    return st;
  }
  w->fwd_us = fwd;
  w->bwd_us = bwd;
  double opt_bytes = 0;
  char optnote[384] = "";
  if (x.roofline) {
    opt_bytes = gb + 24.0 + (s->prec == FU_PREC_BF16 ? 2 : 0);
    w->opt_us = (double)nparam * opt_bytes / (hbm * 1e3);
  } else {
    int ost = fu__optim(x.c, s->optimizer, s->clip_norm, w, gb, lead, x.host_k, s->host_probe_us, x.ref_kf,
                        prof_name, &w->opt_us, optnote, sizeof optnote);
    if (ost != FU_OK) {
      fu_workload_finish(w);
      return ost;
    }
  }
  w->accum_steps = (int)s->accum;
  w->estimated = 1;
  w->compute_rel = x.roofline ? 0 : FU_COMPUTE_REL;
  if (s->name[0]) snprintf(w->name, sizeof w->name, "%s", s->name);
  else if (s->arch == FU_ARCH_VIT)
    snprintf(w->name, sizeof w->name, "vit_l%ld_h%ld_p%ld_i%ld_b%ld", s->layers, s->hidden, s->patch, s->image,
             s->batch);
  else
    snprintf(w->name, sizeof w->name, "transformer_l%ld_h%ld_s%ld_b%ld", s->layers, s->hidden,
             s->seq, s->batch);
  fu_mem *mem = &w->mem;
  memset(mem, 0, sizeof *mem);
  mem->params = (double)nparam * pbytes;
  mem->grads = (double)nparam * gb;
  mem->optimizer = (double)nparam * fu__opt_states(s->optimizer, s->prec);
  mem->casts = x.casts;
  mem->activations = act;
  /* the micro-batch besides what autograd saves: a ViT's images and labels, a language model's
   * token ids and labels (int64) */
  mem->inputs = s->arch == FU_ARCH_VIT ? fu__image_inputs(&x, (double)s->batch, (double)s->image)
                                       : 16.0 * (double)s->batch * (double)s->seq;
  mem->workspace = prof ? prof->compute.workspace_bytes : 0;
  double loss_rows = s->arch == FU_ARCH_VIT ? (double)s->batch : x.T; /* a ViT's loss: one row an image */
  fu__mem_finish(mem, fu__loss_bytes(s, &x) * loss_rows * s->vocab, (double)nparam * fu__opt_temp(s->optimizer),
                 s->accum);
  char notes[4096], vit_shape[64] = "";
  int qkv_only = fu__qkv_bias_only(s);
  if (s->arch == FU_ARCH_VIT)
    snprintf(vit_shape, sizeof vit_shape, " (%ldx%ld images in %ldx%ld patches and a class token)", s->image,
             s->image, s->patch, s->patch);
  /* the roofline's operations count no saved activations: a peak without them passed 964 GiB
     as fitting in 140, so it writes no memory block (no check) and says so */
  if (x.roofline) {
    memset(mem, 0, sizeof *mem);
    snprintf(notes, sizeof notes,
             "ESTIMATE from fusim workload --transformer (roofline): %ld layers, hidden %ld, %ld heads "
             "(%ld kv), ffn %ld%s, vocab %ld, seq %ld, micro-batch %ld, %s; %llu params. Per "
             "operation t = max(flops/(%g TFLOP/s x %g), bytes/(%g GB/s), kernels x %g us); backward "
             "2x forward; opt_us: fused AdamW at HBM speed (%g B/param). Memory not estimated (the "
             "roofline counts no activations; the profile's tables do).",
             s->layers, s->hidden, s->heads, s->kv_heads ? s->kv_heads : s->heads, s->ffn,
             s->gated ? " gated" : "", s->vocab, s->seq, s->batch, fu_precision_name(s->prec),
             (unsigned long long)nparam, s->tflops, s->efficiency, hbm, ku, opt_bytes);
  } else {
    snprintf(notes, sizeof notes,
             "ESTIMATE from fusim workload --transformer: %s architecture, %ld layers, hidden %ld, "
             "%ld heads (%ld kv), ffn %ld, %s %ld%s, seq %ld%s, micro-batch %ld, %s, dropout %g, %s; "
             "%llu params in %zu tensors. Priced per operation from profile %s (compute tables: %s): "
             "GEMMs from the cuBLAS shape sweep (fwd, dgrad, wgrad), attention from SDPA, "
             "memory-bound operations by element count, host issue costs per operation (scaled to "
             "the framework's measured per-layer host time where the profile has it), host and GPU "
             "timelines; optimizer from the profile's fit. Memory (GiB): params %.3f, grads %.3f, "
             "optimizer %.3f, autocast casts %.3f, activations %.3f, inputs %.3f, framework workspace %.3f, "
             "peak %.3f.%s%s",
             fu__arch_name(s->arch), s->layers, s->hidden, s->heads,
             s->kv_heads ? s->kv_heads : s->heads, s->ffn, s->arch == FU_ARCH_VIT ? "classes" : "vocab", s->vocab,
             s->tied && (s->arch == FU_ARCH_LLAMA || s->arch == FU_ARCH_QWEN3 || s->arch == FU_ARCH_PHI3 ||
                         s->arch == FU_ARCH_OLMO2 || s->arch == FU_ARCH_CUSTOM)
                 ? (qkv_only ? " (tied head, q/k/v biases)" : " (tied head)")
                 : (qkv_only ? " (q/k/v biases)" : ""),
             s->seq, vit_shape, s->batch, fu_precision_name(s->prec), dropout, s->optimizer, (unsigned long long)nparam, ntensors,
             prof_name, prof->compute.source[0] ? prof->compute.source : "unnamed",
             mem->params / 1073741824.0, mem->grads / 1073741824.0,
             mem->optimizer / 1073741824.0, mem->casts / 1073741824.0,
             mem->activations / 1073741824.0, mem->inputs / 1073741824.0, mem->workspace / 1073741824.0,
             mem->peak / 1073741824.0, optnote, bound);
  }
  if (!(w->notes = strdup(notes))) {
    fu_workload_finish(w);
    return FU_ENOMEM;
  }
  return FU_OK;
}
