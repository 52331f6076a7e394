/* fu_build_convnext.c: torchvision's ConvNeXt (convnext.py: convnext_tiny, _small, _base, _large)
 * operation by operation, priced as fu_build_cnn.c prices the other CNNs (fusim workload --cnn
 * builds it through it): the depthwise 7x7 convolutions from the profile's grouped tables, the
 * stem's 4x4 stride-4 and the downsampling 2x2 stride-2 convolutions from its dense conv tables of
 * those classes (no implicit GEMM stands in: refused, naming them, where it has none), the
 * blocks' Linear layers from the GEMM tables, LayerNorm, GELU, the layer scale, stochastic depth
 * and the adds from their rows.
 *
 * Which tensors are in which memory order decides where PyTorch copies (its aten operations traced
 * with torch.profiler on the CPU, torch 2.15 / torchvision 0.29, convnext_tiny at batch 2, 224
 * pixels; the layouts follow TensorIterator's and permute's rules, which are the GPU's too):
 * - LayerNorm2d permutes NCHW to NHWC and back (views); native_layer_norm needs its input
 *   contiguous. The stem's convolution gives NCHW in an NCHW training loop, so its LayerNorm2d
 *   copies its input to NHWC (aten::clone under native_layer_norm) and copies it again in
 *   backward (the saved input, under native_layer_norm_backward); its output, permuted back, is
 *   NHWC in memory (channels-last). From there on every tensor is channels-last whatever the loop's
 *   format: the blocks' depthwise convolutions and the downsampling ones run channels-last, the
 *   block's permutes copy nothing (views: a host call and a backward node each, the view row),
 *   its add takes operands of one order, and the stem convolution's backward copies the
 *   channels-last gradient to NCHW (aten::contiguous under convolution_backward). A channels-last
 *   loop has none of those three copies.
 * - The global average pool's backward gives an NCHW gradient (the mean's expanded gradient), so
 *   in the last stage each block's branch gradient reaches the permute in the other order:
 *   UnsafeViewBackward copies it (aten::clone, once a block); the residual gradient (NCHW) and
 *   the depthwise convolution's (channels-last) are summed across orders; the downsampling
 *   convolution before that stage copies its gradient to channels-last. Both loops run these.
 * The copies are priced by the profile's "copy_t" row: ViT's copy between (batch, seq) and (seq,
 * batch) order (tools/calib_torch.py ops_vit), the measured copy that reorders a tensor's axes; an
 * NHWC <-> NCHW copy transposes C x HW planes element by element, which that copy (rows of 768
 * moved whole) does not, so it may run faster than these. The sum across orders by "add_t" (an add
 * of operands in the two orders, the same row's family).
 *
 * Under autocast LayerNorm runs in fp32 (its bf16 input cast first, the cast kept for backward),
 * its fp32 output is cast to bf16 by the Linear (fu__linear's fp32 input), the layer scale (an fp32
 * parameter) promotes the branch to fp32: the residual stream is fp32, its adds fp32, except the
 * first block of a stage after a downsampling convolution, whose input is that convolution's bf16
 * output (the add of a bf16 input to an fp32 branch: add_mixed where the profile has it). */
#define FU_BUILDER_INTERNAL /* fu_builder.h: the builders' shared part */
#include "fu_builder.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fu_common.h"
#include "fu_compute.h"

/* convnext.py's block settings: the four stages' channels and blocks, stochastic depth's last
 * probability (convnext_tiny 0.1, _small 0.4, _base and _large 0.5) */
static const struct {
  const char *name;
  double dims[4], depths[4], sd;
} fu__cnx_nets[] = {{"convnext_tiny", {96, 192, 384, 768}, {3, 3, 9, 3}, 0.1},
                    {"convnext_small", {96, 192, 384, 768}, {3, 3, 27, 3}, 0.4},
                    {"convnext_base", {128, 256, 512, 1024}, {3, 3, 27, 3}, 0.5},
                    {"convnext_large", {192, 384, 768, 1536}, {3, 3, 27, 3}, 0.5}};
#define FU__CNX_N (int)(sizeof fu__cnx_nets / sizeof fu__cnx_nets[0])

static int fu__cnx_find(const char *model) {
  for (int i = 0; i < FU__CNX_N; i++)
    if (!strcmp(model, fu__cnx_nets[i].name)) return i;
  return -1;
}

int fu__convnext_known(const char *model) { return fu__cnx_find(model) >= 0; }

/* Under autocast, an operation's input of numel elements cast (bf16 <-> fp32) before it, its
 * gradient cast back: the cast row's device and host costs added to o. */
static void fu__cnx_cast(fu__ctx *x, fu__op *o, double numel) {
  if (!x->autocast) return;
  const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
  o->fwd_us += fu_op_us(x->c, cast, numel, 0);
  o->bwd_us += fu_op_us(x->c, cast, numel, 1);
  if (cast) o->hfwd_us += cast->host_fwd_us, o->hbwd_us += cast->host_bwd_us;
}

/* n permutes (views: no kernel) charged to o: each a call forward and a PermuteBackward node in
 * backward, on the host, at the profile's "view" row (the block's two Permute modules, LayerNorm2d's
 * two permutes). */
static void fu__cnx_permutes(fu__ctx *x, fu__op *o, int n) {
  const fu_op_table *v = fu__mode_row(x, "view");
  if (v) o->hfwd_us += n * v->host_fwd_us, o->hbwd_us += n * v->host_bwd_us;
}

/* A copy of numel elements of dtype between NCHW and NHWC order (the header says where and why
 * the copy_t row): fwd, bwd how many in each pass. Keeps nothing. */
static fu__op *fu__cnx_copy(fu__ctx *x, const char *dtype, double numel, int fwd, int bwd) {
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  snprintf(o->what, sizeof o->what, "copy_t");
  double us = fu__vit_copy_us(x, dtype, numel);
  const fu_op_table *t = fu_compute_op(x->c, "copy_t", dtype);
  o->fwd_us = fwd * us, o->bwd_us = bwd * us;
  o->hfwd_us = t ? fwd * t->host_fwd_us : 0, o->hbwd_us = t ? bwd * t->host_fwd_us : 0;
  return o;
}

/* A LayerNorm over C channels at rows positions (the block's nn.LayerNorm, LayerNorm2d's), eps
 * 1e-6, in the residual stream's dtype (fp32 under autocast: a bf16 input, in_bf16, is cast first;
 * the cast is what it keeps). */
static fu__op *fu__cnx_ln(fu__ctx *x, const char *name, double rows, double C, int in_bf16) {
  double T = x->T;
  x->T = rows;
  fu__op *o = fu__norm(x, name, 1, 1, C, x->rdt);
  x->T = T;
  if (o && in_bf16) fu__cnx_cast(x, o, rows * C);
  return o;
}

/* A patchify convolution (the stem's k = 4, the downsampling's k = 2: stride k, padding 0, a bias)
 * over B x cin x h x h; its input an fp32 tensor (the image, a LayerNorm's output), which it keeps
 * (under autocast the bf16 cast of the LayerNorm's output, a cast each way priced here; the image's
 * as the other CNNs' stems, by the host row alone). Its class's dense table must be in the profile
 * (no implicit GEMM stands in). */
static fu__op *fu__cnx_patch(fu__ctx *x, const char *name, double B, double cin, double cout, double k, double *h) {
  if (!fu__has_conv_table(x, FU_CONV_DENSE, x->nchw, (int)k, (int)k))
    fu__miss(x, "conv %s k%.0f s%.0f%s (no such table)", x->gdt, k, k, x->nchw ? " nchw" : "");
  double hin = *h;
  fu__op *o = fu__conv_pad(x, name, B, cin, cout, k, k, 0, hin, 1, h);
  if (!o) return NULL;
  fu__conv_bias(x, o, name, cout, B * *h * *h);
  if (cin != 3) fu__cnx_cast(x, o, B * cin * hin * hin);
  return o;
}

/* A CNBlock on B x C x h x h (p: "features.S.R."): the depthwise 7x7 convolution with its bias,
 * LayerNorm, Linear to 4C, GELU, Linear back (rows: the batch's pixels), the layer scale (an fp32
 * parameter of C: y = gamma * branch, keeping the branch), stochastic depth at sd, the add onto
 * the input. in_bf16: the input is a downsampling convolution's bf16 output (else the fp32
 * residual stream). last: the last stage, whose gradients come back in NCHW order (the header). */
static int fu__cnx_block(fu__ctx *x, const char *p, double B, double C, double h, double sd, int in_bf16, int last) {
  double n = B * C * h * h, rows = B * h * h, T = x->T, t;
  const char *idt = in_bf16 ? x->adt : x->rdt;
  char nm[160];
  fu__op *o;
  /* the input feeds the convolution and the add: its two gradients summed, across orders in the
   * last stage */
  FU__TRY(o = fu__fanout(x, n, idt, 2));
  if (last) o->bwd_us = fu__vit_op_us(x, "add_t", idt, n, o->bwd_us);
  snprintf(nm, sizeof nm, "%sblock.0", p);
  FU__TRY(o = fu__gconv(x, nm, B, C, 1, 7, 1, h, &t));
  fu__conv_bias(x, o, nm, C, rows);
  fu__cnx_permutes(x, o, 1); /* block.1: to NHWC */
  if (!in_bf16) fu__cnx_cast(x, o, n); /* the fp32 residual stream into a bf16 convolution */
  snprintf(nm, sizeof nm, "%sblock.2", p);
  FU__TRY(fu__cnx_ln(x, nm, rows, C, 1));
  x->T = rows;
  snprintf(nm, sizeof nm, "%sblock.3", p);
  o = fu__linear(x, nm, C, 4 * C, 1, 1, 1, 1);
  if (o) o = fu__memop(x, "gelu", x->adt, 4 * n, x->ab * 4 * n); /* keeps its input */
  snprintf(nm, sizeof nm, "%sblock.5", p);
  if (o) o = fu__linear(x, nm, 4 * C, C, 1, 0, 1, 1);
  x->T = T;
  FU__TRY(o);
  fu__cnx_permutes(x, o, 1); /* block.6: back to NCHW */
  if (last) FU__TRY(fu__cnx_copy(x, x->adt, n, 0, 1)); /* UnsafeViewBackward's copy of the NCHW gradient */
  /* gamma * branch: the profile's se_scale row (a per-channel factor times a map, the factor's
   * gradient summed over the pixels), channels-last; keeps the branch. Under autocast the fp32
   * gamma promotes the bf16 branch (no kernel forward); in backward the branch's fp32 gradient is
   * cast to bf16 (autograd gives a gradient its input's dtype) */
  FU__TRY(o = fu__memop(x, "se_scale", x->rdt, n, x->ab * n));
  fu__param(o, p, "layer_scale", (uint64_t)C);
  if (x->autocast) o->bwd_us += fu_op_us(x->c, fu_compute_op(x->c, "cast", "fp32"), n, 0);
  if (sd > 0) FU__TRY(fu__memop(x, "stochastic_depth", x->rdt, n, x->rb * B)); /* keeps the mask */
  if (in_bf16 && x->autocast && fu_compute_op(x->c, "add_mixed", "bf16"))
    FU__TRY(fu__memop(x, "add_mixed", "bf16", n, 0));
  else
    FU__TRY(fu__memop(x, "add", x->rdt, n, 0));
  return FU_OK;
}

/* ConvNeXt (convnext.py): the stem (the 4x4 stride-4 convolution with a bias, LayerNorm2d), four
 * stages of CNBlocks, a downsampling between them (LayerNorm2d, the 2x2 stride-2 convolution with a
 * bias), stochastic depth's probability linear in the block's index up to the model's last; the
 * head: the global average pool, LayerNorm2d on B x C x 1 x 1, Flatten, the classifier Linear
 * (fu__cnn_classifier; under autocast its input, LayerNorm's fp32 output, cast to bf16). */
int fu__convnext_ops(fu__ctx *x, const char *model, double B, double img) {
  int m = fu__cnx_find(model), nchw = x->nchw, f = 1;
  if (m < 0) return FU_EUSAGE;
  const double *dims = fu__cnx_nets[m].dims, *depths = fu__cnx_nets[m].depths;
  double total = depths[0] + depths[1] + depths[2] + depths[3], id = 0, h = img;
  char p[64], nm[96];
  x->layer = -1;
  FU__TRY(fu__cnx_patch(x, "features.0.0", B, 3, dims[0], 4, &h));
  /* in an NCHW loop LayerNorm2d copies the stem's output to NHWC, and again in backward (under
   * autocast the fp32 cast of it, which keeps the strides); the stem convolution's gradient back
   * to NCHW (the header) */
  if (nchw) FU__TRY(fu__cnx_copy(x, x->rdt, B * dims[0] * h * h, 1, 1));
  if (nchw) FU__TRY(fu__cnx_copy(x, x->adt, B * dims[0] * h * h, 0, 1));
  fu__op *ln;
  FU__TRY(ln = fu__cnx_ln(x, "features.0.1", B * h * h, dims[0], 1));
  fu__cnx_permutes(x, ln, 2); /* LayerNorm2d's */
  x->nchw = 0; /* channels-last from here on */
  for (int s = 0; s < 4; s++) {
    if (s > 0) { /* downsampling: LayerNorm2d on the fp32 stream, the convolution */
      snprintf(nm, sizeof nm, "features.%d.0", f);
      if (!(ln = fu__cnx_ln(x, nm, B * h * h, dims[s - 1], 0))) break;
      fu__cnx_permutes(x, ln, 2);
      snprintf(nm, sizeof nm, "features.%d.1", f++);
      if (!fu__cnx_patch(x, nm, B, dims[s - 1], dims[s], 2, &h)) break;
      /* before the last stage its gradient arrives in NCHW order: copied to channels-last */
      if (s == 3 && !fu__cnx_copy(x, x->adt, B * dims[s] * h * h, 0, 1)) break;
    }
    for (int r = 0; r < depths[s]; r++, id++) {
      snprintf(p, sizeof p, "features.%d.%d.", f, r);
      int st = fu__cnx_block(x, p, B, dims[s], h, fu__cnx_nets[m].sd * id / (total - 1),
                             x->autocast && s > 0 && r == 0, s == 3);
      if (st != FU_OK) {
        x->nchw = nchw;
        return st;
      }
    }
    f++;
  }
  int st = id == total ? FU_OK : FU_ENOMEM;
  if (st == FU_OK && !fu__global_pool(x, B * dims[3] * h * h)) st = FU_ENOMEM;
  if (st == FU_OK && !(ln = fu__cnx_ln(x, "classifier.0", B, dims[3], 0))) st = FU_ENOMEM;
  if (st == FU_OK) fu__cnx_permutes(x, ln, 2);
  if (st == FU_OK && !fu__cnn_classifier(x, "classifier.2", dims[3], B, 1)) st = FU_ENOMEM;
  x->nchw = nchw;
  return st;
}
