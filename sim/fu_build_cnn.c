/* fu_build_cnn.c: torchvision's CNNs (ResNet, Wide ResNet, VGG, DenseNet) operation by operation,
 * priced from the profile's tables (fusim workload --cnn; the depthwise ones: fu_build_mobile.c). */
#define FU_BUILDER_INTERNAL /* fu_builder.h: the builders' shared part */
#include "fu_builder.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fu_common.h"

/* ---- CNN: torchvision ResNet-50 --------------------------------------------------------- */

void fu_cnn_spec_init(fu_cnn_spec *s) {
  memset(s, 0, sizeof *s);
  snprintf(s->model, sizeof s->model, "resnet50");
  s->batch = 64;
  s->image = 224;
  s->prec = FU_PREC_AUTOCAST;
  snprintf(s->optimizer, sizeof s->optimizer, "sgd");
  s->accum = 1;
}

/* One layout of a convolution (m, n, k of its implicit GEMM in that layout): the profile's conv
 * table of its class (kernel, stride) and memory format where there is one (cuDNN as the
 * framework runs it), else, channels-last, the aligned GEMM table of the implicit GEMM. NCHW
 * has no such fallback: cuDNN runs it 1.1-3.4x slower than channels-last at the same shape
 * (an H100 in bf16, tools/calib_torch.py --conv-format nchw), slower still than the GEMM. */
double fu__conv_us(fu__ctx *x, const char *layout, int kernel, int stride, double m, double n,
                   double k) {
  double us;
  if (fu_compute_conv_us(x->c, x->gdt, layout, kernel, stride, x->nchw, m, n, k, &us) == FU_OK) return us;
  if (x->nchw) {
    fu__miss(x, "conv %s %s k%d s%d nchw, %.0f x %.0f x %.0f", x->gdt, layout, kernel, stride, m, n, k);
    return 0;
  }
  /* cuDNN pads channels to a multiple of 8 (the 3-channel image): the aligned GEMM's time */
  m = ceil(m / 8) * 8, n = ceil(n / 8) * 8, k = ceil(k / 8) * 8;
  if (fu_compute_gemm_us(x->c, x->gdt, layout, m, n, k, &us) == FU_OK) return us;
  fu__miss(x, "conv k%d s%d or gemm %s %s, %.0f x %.0f x %.0f", kernel, stride, x->gdt, layout, m, n, k);
  return 0;
}

/* What a convolution op (dense or grouped) adds to its device time: the host row host_row ("conv",
 * or "gconv" for a grouped one of wider groups, "conv" where the profile has no such row; less the
 * input's cast where the input is already bf16: only the image arrives in fp32), under autocast
 * the cast of its wnumel-element weight, and the weight as its parameter. */
void fu__conv_finish(fu__ctx *x, fu__op *o, const char *name, int in_fp32, double wnumel, const char *host_row) {
  snprintf(o->what, sizeof o->what, "conv");
  const char *dt = x->autocast ? "bf16" : "fp32";
  const fu_op_table *h = fu_compute_op(x->c, host_row, dt);
  if (!h) h = fu_compute_op(x->c, "conv", dt);
  o->hfwd_us = h ? h->host_fwd_us : 0;
  o->hbwd_us = h ? h->host_bwd_us : 0;
  fu__no_input_cast(x, o, in_fp32);
  const fu_op_table *cast = fu_compute_op(x->c, "cast", "fp32");
  if (x->autocast) {
    o->fwd_us += fu_op_us(x->c, cast, wnumel, 0);
    o->tail_us[0] = fu_op_us(x->c, cast, wnumel, 1);
    x->casts += 2 * wnumel;
  }
  fu__param(o, name, ".weight", (uint64_t)wnumel);
}

/* A convolution as its implicit GEMM (cuDNN's formulation): forward M = N*Ho*Wo, N = Cout,
 * K = Cin*k*k; the data gradient and the weight gradient in their layouts. Padding k / 2
 * (torchvision's odd kernels). */
fu__op *fu__conv(fu__ctx *x, const char *name, double batch, double cin, double cout, double k,
                 double stride, double hin, int saved_in, double *hout) {
  return fu__conv_pad(x, name, batch, cin, cout, k, stride, floor(k / 2), hin, saved_in, hout);
}

/* fu__conv at padding pad (ConvNeXt's patchify convolutions: 0). */
fu__op *fu__conv_pad(fu__ctx *x, const char *name, double batch, double cin, double cout, double k,
                     double stride, double pad, double hin, int saved_in, double *hout) {
  double ho = fu__conv_out(hin, k, stride, pad);
  *hout = ho;
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  double M = batch * ho * ho, N = cout, K = cin * k * k;
  int kk = (int)k, ss = (int)stride;
  o->fwd_us = fu__conv_us(x, "fwd", kk, ss, M, N, K);
  o->bwd_us = (cin == 3 ? 0 : fu__conv_us(x, "dgrad", kk, ss, M, K, N)) + /* the image needs no gradient */
              fu__conv_us(x, "wgrad", kk, ss, N, K, M);
  fu__conv_finish(x, o, name, cin == 3, cout * K, "conv");
  if (saved_in) o->saved = x->ab * batch * cin * hin * hin; /* its input */
  return o;
}

/* One layout of a grouped convolution from the profile's grouped table of its class (depthwise or
 * of wider groups, as the per-group K asks): no GEMM stands in where there is none (a grouped
 * convolution is no GEMM). */
static double fu__gconv_us(fu__ctx *x, const char *layout, int kernel, int stride, double m, double n,
                           double k) {
  double us;
  if (fu_compute_gconv_us(x->c, x->gdt, layout, kernel, stride, x->nchw, m, n, k, &us) == FU_OK) return us;
  fu__miss(x, "grouped conv %s %s k%d s%d%s, %.0f x %.0f x %.0f", x->gdt, layout, kernel, stride,
           x->nchw ? " nchw" : "", m, n, k);
  return 0;
}

/* A grouped convolution of c channels in and out, gw input channels a group (1: depthwise; no
 * bias, padding (k - 1) / 2) over B x c x hin x hin: as fu__conv with K per group, gw x k x k;
 * it keeps its input for backward. */
fu__op *fu__gconv(fu__ctx *x, const char *name, double B, double c, double gw, double k, double stride,
                  double hin, double *hout) {
  double ho = fu__conv_out(hin, k, stride, floor((k - 1) / 2));
  *hout = ho;
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  double M = B * ho * ho, K = gw * k * k;
  int kk = (int)k, ss = (int)stride;
  o->fwd_us = fu__gconv_us(x, "fwd", kk, ss, M, c, K);
  o->bwd_us = fu__gconv_us(x, "dgrad", kk, ss, M, K, c) + fu__gconv_us(x, "wgrad", kk, ss, c, K, M);
  /* a grouped convolution of wider groups takes its own host row where the profile measured one
   * (calib_torch's host part: "gconv", the "conv" row's call with 4 groups); a depthwise one takes
   * the dense convolution's */
  fu__conv_finish(x, o, name, 0, c * K, gw > 1 ? "gconv" : "conv");
  o->saved = x->ab * B * c * hin * hin;
  return o;
}

/* torchvision's bottleneck ResNets differ only in their stages' block counts, and the wide ones
 * (wide_resnet50_2, wide_resnet101_2: width_per_group 128) in their blocks' inner width, twice
 * the stage's (conv1, conv2, bn1, bn2; conv3's output the same); *widen (where not NULL): 2 for
 * those, else 1. resnet18 and resnet34 are built of basic blocks (two 3x3 convolutions at the
 * stage's width, no expansion): *widen 0 says so. The ResNeXts (resnet.py's resnext50_32x4d,
 * resnext101_32x8d, resnext101_64x4d) are bottleneck ResNets of inner width planes x
 * width_per_group / 64 x groups (*widen 2, 4, 4) whose conv2 is grouped: *groups (where not
 * NULL) 32, 32, 64, else 1. */
static const double *fu__resnet_blocks(const char *model, double *widen, double *groups) {
  static const double r50[4] = {3, 4, 6, 3}, r101[4] = {3, 4, 23, 3}, r152[4] = {3, 8, 36, 3},
                      r18[4] = {2, 2, 2, 2};
  static const struct {
    const char *name;
    const double *blocks;
    double widen, groups;
  } nets[] = {{"resnet18", r18, 0, 1},        {"resnet34", r50, 0, 1},
              {"resnet50", r50, 1, 1},        {"resnet101", r101, 1, 1},       {"resnet152", r152, 1, 1},
              {"wide_resnet50_2", r50, 2, 1}, {"wide_resnet101_2", r101, 2, 1},
              {"resnext50_32x4d", r50, 2, 32}, {"resnext101_32x8d", r101, 4, 32}, {"resnext101_64x4d", r101, 4, 64}};
  for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++)
    if (!strcmp(model, nets[i].name)) {
      if (widen) *widen = nets[i].widen;
      if (groups) *groups = nets[i].groups;
      return nets[i].blocks;
    }
  return NULL;
}

/* The side of a convolution's or pool's output: hin in, kernel k, stride, padding pad each side. */
double fu__conv_out(double hin, double k, double stride, double pad) {
  return floor((hin + 2 * pad - k) / stride) + 1;
}

/* A pooling layer over n_in elements in the CNN's layout, priced by the max pool table; max
 * pooling keeps its input and the int64 indices of its n_idx outputs for backward (0: an average
 * pool, which keeps its input alone). */
fu__op *fu__pool(fu__ctx *x, double n_in, double n_idx) {
  return fu__memop(x, x->nchw ? "maxpool_nchw" : "maxpool", x->adt, n_in, x->ab * n_in + 8 * n_idx);
}

/* The stem's 3x3 max pool at stride 2, padding 1 (ResNet, DenseNet, ShuffleNet) over B x c x *h x
 * *h; keeps its input and int64 indices; *h becomes its output's side. */
fu__op *fu__stem_pool(fu__ctx *x, double B, double c, double *h) {
  double hp = fu__conv_out(*h, 3, 2, 1);
  fu__op *o = fu__pool(x, B * c * *h * *h, B * c * hp * hp);
  *h = hp;
  return o;
}

/* The classifier of a CNN whose features end in a global average pool: one linear layer from the
 * batch's din features to 1000 classes, and the loss (NULL: out of memory). in_fp32: its input is
 * fp32 under autocast (ConvNeXt's LayerNorm2d before it), cast to bf16 by the linear layer. */
fu__op *fu__cnn_classifier(fu__ctx *x, const char *name, double din, double B, int in_fp32) {
  double Tsave = x->T;
  x->T = B;
  fu__op *o = fu__linear(x, name, din, 1000, 1, in_fp32, 1, 1);
  if (o) o = fu__memop(x, "cross_entropy", x->adt, B * 1000, 4 * B * 1000);
  x->T = Tsave;
  return o;
}

/* A CNN's batch norm over c channels of B x h x h (+ an in-place ReLU after it). NCHW batch norm
 * has tables of its own (calib_torch ops_nchw): at 64 channels cuDNN's NCHW batch norm backward
 * takes 5x the channels-last one's time in bf16. */
fu__op *fu__cnn_bn(fu__ctx *x, const char *name, double B, double c, double h, int relu) {
  double n = B * c * h * h;
  fu__op *o = fu__memop(x, x->nchw ? "batchnorm2d_nchw" : "batchnorm2d", x->adt, n, x->ab * n);
  if (!o) return NULL;
  fu__bn_channels(x, o, x->adt, n, c);
  fu__param(o, name, ".weight", (uint64_t)c);
  fu__param(o, name, ".bias", (uint64_t)c);
  if (relu && !fu__memop(x, "relu", x->adt, n, 0)) return NULL;
  return o;
}

/* widen 0: basic blocks (torchvision's BasicBlock: conv1 3x3 at the block's stride, conv2 3x3,
 * a 1x1 downsample where the stride or the width changes); else bottlenecks of that inner width
 * factor, conv2 grouped where groups > 1 (ResNeXt: width / groups input channels a group, from
 * the profile's grouped tables). */
static int fu__resnet_ops(fu__ctx *x, const double *blocks, double widen, double groups, double B, double img) {
  const char *A = x->adt;
  double h, h2, cin = 64;
  char p[64], nm[128];
#define NM(sfx) (snprintf(nm, sizeof nm, "%s%s", p, sfx), nm)
#define BN(name, c, hh, relu) FU__TRY(fu__cnn_bn(x, name, B, c, hh, relu))
  x->layer = -1;
  FU__TRY(fu__conv(x, "conv1", B, 3, 64, 7, 2, img, 1, &h));
  BN("bn1", 64, h, 1);
  FU__TRY(fu__stem_pool(x, B, 64, &h));
  static const double cfg[4][2] = {{64, 1}, {128, 2}, {256, 2}, {512, 2}}; /* width, stride */
  const double *r50 = fu__resnet_blocks("resnet50", NULL, NULL);
  int npast = 0;
  for (int li = 0; li < 4; li++)
    for (int b = 0; b < blocks[li]; b++) {
      double planes = cfg[li][0], width = planes * widen, s = b == 0 ? cfg[li][1] : 1, hin = h, t;
      double cout = widen > 0 ? planes * 4 : planes; /* the block's output channels */
      /* past ResNet-50's bottleneck blocks in this stage (fu__cnn_deep's row is theirs) */
      x->past_block = widen > 0 && b >= r50[li] ? ++npast : 0;
      snprintf(p, sizeof p, "layer%d.%d.", li + 1, b);
      /* the block's input: conv1 and the shortcut (downsample or the add) */
      FU__TRY(fu__fanout(x, B * cin * hin * hin, A, 2));
      if (widen > 0) {
        FU__TRY(fu__conv(x, NM("conv1"), B, cin, width, 1, 1, hin, 1, &t));
        BN(NM("bn1"), width, hin, 1);
        FU__TRY(groups > 1 ? fu__gconv(x, NM("conv2"), B, width, width / groups, 3, s, hin, &h2)
                           : fu__conv(x, NM("conv2"), B, width, width, 3, s, hin, 1, &h2));
        BN(NM("bn2"), width, h2, 1);
        FU__TRY(fu__conv(x, NM("conv3"), B, width, cout, 1, 1, h2, 1, &t));
        BN(NM("bn3"), cout, h2, 0);
      } else {
        FU__TRY(fu__conv(x, NM("conv1"), B, cin, planes, 3, s, hin, 1, &h2));
        BN(NM("bn1"), planes, h2, 1);
        FU__TRY(fu__conv(x, NM("conv2"), B, planes, planes, 3, 1, h2, 1, &t));
        BN(NM("bn2"), planes, h2, 0);
      }
      if (b == 0 && (s != 1 || cin != cout)) {
        FU__TRY(fu__conv(x, NM("downsample.0"), B, cin, cout, 1, s, hin, 0, &t));
        BN(NM("downsample.1"), cout, h2, 0);
      }
      FU__TRY(fu__memop(x, "add", A, B * cout * h2 * h2, 0));
      /* its output is the next block's input, which the next convolution keeps */
      FU__TRY(fu__memop(x, "relu", A, B * cout * h2 * h2, 0));
      h = h2;
      cin = cout;
    }
  x->past_block = 0;
  /* the last block's ReLU output feeds no convolution: the ReLU (and the pool) keep it alone */
  fu__relu_kept(x, B * cin * h * h);
  FU__TRY(fu__memop(x, "bias_grad", A, B * cin * h * h, 0)); /* the average pool: a reduction */
  FU__TRY(fu__cnn_classifier(x, "fc", cin, B, 0));
#undef NM
#undef BN
  return FU_OK;
}

/* torchvision's VGGs: the features' configuration (widths of the 3x3 convolutions, 0 a 2x2
 * max pool at stride 2; vgg.py's cfgs "A", "B", "D", "E") and whether batch norm follows each
 * convolution (the _bn models). NULL for another name. */
static const int *fu__vgg_cfg(const char *model, int *bn) {
  static const int a[] = {64, 0, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0, -1};
  static const int b[] = {64, 64, 0, 128, 128, 0, 256, 256, 0, 512, 512, 0, 512, 512, 0, -1};
  static const int d[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 0, 512, 512, 512, 0, 512, 512, 512, 0, -1};
  static const int e[] = {64, 64, 0, 128, 128, 0, 256, 256, 256, 256, 0, 512, 512, 512, 512, 0,
                          512, 512, 512, 512, 0, -1};
  static const struct {
    const char *name;
    const int *cfg;
  } nets[] = {{"vgg11", a}, {"vgg13", b}, {"vgg16", d}, {"vgg19", e}};
  for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++) {
    size_t n = strlen(nets[i].name);
    if (strncmp(model, nets[i].name, n) != 0) continue;
    if (!strcmp(model + n, "") || !strcmp(model + n, "_bn")) {
      *bn = model[n] != '\0';
      return nets[i].cfg;
    }
  }
  return NULL;
}

/* A VGG (torchvision vgg.py): each 3x3 convolution (padding 1, with a bias: cuDNN's convolution
 * then the bias added over its output, its gradient a column sum) followed by batch norm in the
 * _bn models and an in-place ReLU; 2x2 max pools at stride 2 (priced by the profile's max pool
 * table, by its input's elements); the adaptive average pool to 7x7 (a copy at 224-pixel inputs);
 * the classifier's three linear layers over the batch's rows with ReLU and dropout 0.5 between
 * them (features.N and classifier.N: nn.Sequential's indices, as torchvision names them). */
static int fu__vgg_ops(fu__ctx *x, const int *cfg, int bn, double B, double img) {
  const char *A = x->adt;
  double h = img, cin = 3, t;
  int idx = 0;
  char nm[64];
  fu__op *o;
  x->layer = -1;
  for (const int *v = cfg; *v >= 0; v++) {
    if (*v == 0) { /* max pool 2x2 stride 2: keeps its input and int64 indices */
      double hp = floor(h / 2);
      FU__TRY(fu__pool(x, B * cin * h * h, B * cin * hp * hp));
      h = hp;
      idx++;
      continue;
    }
    double c = *v;
    snprintf(nm, sizeof nm, "features.%d", idx);
    FU__TRY(o = fu__conv(x, nm, B, cin, c, 3, 1, h, 1, &t));
    fu__conv_bias(x, o, nm, c, B * h * h);
    if (bn) {
      snprintf(nm, sizeof nm, "features.%d", ++idx);
      FU__TRY(fu__cnn_bn(x, nm, B, c, h, 1));
    } else {
      FU__TRY(fu__memop(x, "relu", A, B * c * h * h, 0));
    }
    idx += 2;
    cin = c;
  }
  FU__TRY(o = fu__push(x)); /* the adaptive average pool to 7 x 7 */
  snprintf(o->what, sizeof o->what, "avgpool");
  o->fwd_us = o->bwd_us = fu__copy_us(x, 2 * x->ab * B * cin * h * h);
  double Tsave = x->T, feat = cin * 7 * 7;
  x->T = B;
  static const struct {
    const char *name;
    int relu;
  } fc[] = {{"classifier.0", 1}, {"classifier.3", 1}, {"classifier.6", 0}};
  double din = feat;
  for (int i = 0; i < 3; i++) {
    double dout = i < 2 ? 4096 : 1000;
    o = fu__linear(x, fc[i].name, din, dout, 1, 0, 1, 1);
    if (!o) break;
    if (fc[i].relu && (!fu__memop(x, "relu", A, B * dout, 0) || !fu__memop(x, "dropout", A, B * dout, B * dout))) {
      o = NULL;
      break;
    }
    din = dout;
  }
  if (o) o = fu__memop(x, "cross_entropy", A, B * 1000, 4 * B * 1000);
  x->T = Tsave;
  return o ? FU_OK : FU_ENOMEM;
}

/* torchvision's DenseNets (densenet.py): growth rate, initial features and the four blocks'
 * layer counts; NULL for another name. */
static const double *fu__densenet_cfg(const char *model) {
  static const double d121[6] = {32, 64, 6, 12, 24, 16}, d161[6] = {48, 96, 6, 12, 36, 24},
                      d169[6] = {32, 64, 6, 12, 32, 32}, d201[6] = {32, 64, 6, 12, 48, 32};
  static const struct {
    const char *name;
    const double *cfg;
  } nets[] = {{"densenet121", d121}, {"densenet161", d161}, {"densenet169", d169}, {"densenet201", d201}};
  for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++)
    if (!strcmp(model, nets[i].name)) return nets[i].cfg;
  return NULL;
}

/* A DenseNet's torch.cat of k maps (numel elements in all): a copy of them all on the device;
 * on the host the profile's rows (tools/calib_torch.py --parts ops_cat) where it has them: "cat"
 * a cat of one input, "cat_input" each input past the first, forward, and in backward
 * CatBackward's narrow of each input with the gradient add that sums it into its map. The rows
 * are a line measured on one map taken k times (k narrows, k - 1 adds); in a block each map's
 * first gradient needs no add and the block has as many maps as cats (L + 1), so its cats carry
 * exactly its adds. */
fu__op *fu__dense_cat(fu__ctx *x, double k, double numel) {
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  snprintf(o->what, sizeof o->what, "cat");
  o->fwd_us = fu__copy_us(x, 2 * x->ab * numel);
  const fu_op_table *c = fu__mode_row(x, "cat"), *in = fu__mode_row(x, "cat_input");
  if (c && in) {
    o->hfwd_us = c->host_fwd_us + (k - 1) * in->host_fwd_us;
    o->hbwd_us = c->host_bwd_us + (k - 1) * in->host_bwd_us;
  }
  return o;
}

/* A DenseNet (densenet.py, memory_efficient off, dropout 0): the stem (7x7 convolution at
 * stride 2, batch norm, ReLU, 3x3 max pool); four dense blocks, each layer concatenating every
 * feature map before it (torch.cat: a copy of them all), then batch norm, ReLU, a 1x1
 * convolution to 4 x growth channels, batch norm, ReLU, a 3x3 convolution to growth channels; the
 * block's output the concatenation of all its maps. In backward each map's gradient is the sum
 * of what every later concatenation in its block gives it: a gradient add of its size for each
 * consumer past the first (fu__fanout). Between blocks a transition (batch norm, ReLU, 1x1
 * convolution halving the channels, 2x2 average pool: priced by the max pool table, by its
 * input's elements); then batch norm, ReLU, the global average pool and the classifier. */
static int fu__densenet_ops(fu__ctx *x, const double *cfg, double B, double img) {
  const char *A = x->adt;
  double growth = cfg[0], c = cfg[1], h, t;
  char nm[96];
  x->layer = -1;
  FU__TRY(fu__conv(x, "features.conv0", B, 3, c, 7, 2, img, 1, &h));
  FU__TRY(fu__cnn_bn(x, "features.norm0", B, c, h, 1));
  FU__TRY(fu__stem_pool(x, B, c, &h));
  for (int bi = 0; bi < 4; bi++) {
    int L = (int)cfg[2 + bi];
    for (int l = 0; l < L; l++) {
      double cin = c + l * growth, mid = 4 * growth;
      /* the maps so far concatenated; the gradient sums of the block's maps are charged here,
       * where backward reaches the first consumer of the newest map: it feeds the L - l later
       * layers' concatenations and the block's output */
      FU__TRY(fu__fanout(x, B * (l ? growth : c) * h * h, A, L - l + 1));
      FU__TRY(fu__dense_cat(x, l + 1, B * cin * h * h));
      snprintf(nm, sizeof nm, "features.denseblock%d.denselayer%d.", bi + 1, l + 1);
      size_t k = strlen(nm);
      snprintf(nm + k, sizeof nm - k, "norm1");
      FU__TRY(fu__cnn_bn(x, nm, B, cin, h, 1));
      snprintf(nm + k, sizeof nm - k, "conv1");
      FU__TRY(fu__conv(x, nm, B, cin, mid, 1, 1, h, 1, &t));
      snprintf(nm + k, sizeof nm - k, "norm2");
      FU__TRY(fu__cnn_bn(x, nm, B, mid, h, 1));
      snprintf(nm + k, sizeof nm - k, "conv2");
      FU__TRY(fu__conv(x, nm, B, mid, growth, 3, 1, h, 1, &t));
    }
    c += L * growth;
    FU__TRY(fu__dense_cat(x, L + 1, B * c * h * h)); /* the block's output: every map concatenated */
    if (bi == 3) break;
    snprintf(nm, sizeof nm, "features.transition%d.norm", bi + 1);
    FU__TRY(fu__cnn_bn(x, nm, B, c, h, 1));
    snprintf(nm, sizeof nm, "features.transition%d.conv", bi + 1);
    FU__TRY(fu__conv(x, nm, B, c, floor(c / 2), 1, 1, h, 1, &t));
    c = floor(c / 2);
    FU__TRY(fu__pool(x, B * c * h * h, 0)); /* the 2x2 average pool */
    h = floor(h / 2);
  }
  FU__TRY(fu__cnn_bn(x, "features.norm5", B, c, h, 1));
  FU__TRY(fu__memop(x, "bias_grad", A, B * c * h * h, 0)); /* the global average pool: a reduction */
  return fu__cnn_classifier(x, "classifier", c, B, 0) ? FU_OK : FU_ENOMEM;
}

/* torchvision's SqueezeNets (squeezenet.py): 1.1 (1.0 for another name: NULL) for "squeezenet1_1"
 * ("squeezenet1_0"); each Fire module's (inplanes, squeeze, expand1x1, expand3x3), a 0 for a max
 * pool between them, ended by -1; *stem the first convolution's kernel (1.1: 3x3 to 64, 1.0:
 * 7x7 to 96) and *c its channels. */
static const int *fu__squeezenet_cfg(const char *model, int *stem, int *c) {
  static const int v10[] = {96, 16, 64, 64, 128, 16, 64, 64, 128, 32, 128, 128, 0, 256, 32, 128, 128,
                            256, 48, 192, 192, 384, 48, 192, 192, 384, 64, 256, 256, 0, 512, 64, 256, 256, -1};
  static const int v11[] = {64, 16, 64, 64, 128, 16, 64, 64, 0, 128, 32, 128, 128, 256, 32, 128, 128, 0,
                            256, 48, 192, 192, 384, 48, 192, 192, 384, 64, 256, 256, 512, 64, 256, 256, -1};
  if (!strcmp(model, "squeezenet1_0")) return *stem = 7, *c = 96, v10;
  if (!strcmp(model, "squeezenet1_1")) return *stem = 3, *c = 64, v11;
  return NULL;
}

/* The 3x3 max pool at stride 2 with ceil_mode (SqueezeNet's) over B x c x *h x *h: keeps its
 * input and int64 indices; *h becomes its output's side, ceil((h - 3) / 2) + 1. */
static fu__op *fu__ceil_pool(fu__ctx *x, double B, double c, double *h) {
  double hp = ceil((*h - 3) / 2) + 1;
  fu__op *o = fu__pool(x, B * c * *h * *h, B * c * hp * hp);
  *h = hp;
  return o;
}

/* A convolution with its bias and an in-place ReLU after it (SqueezeNet's every convolution),
 * padding pad; *h becomes its output's side. saved_in: the convolution keeps its input (not where
 * another convolution keeps the same tensor); keep_out: the ReLU's output is kept for its backward
 * by it alone (no later operation keeps it: it feeds a concatenation or the average pool). */
static fu__op *fu__conv_relu(fu__ctx *x, const char *name, double B, double cin, double cout, double k,
                             double stride, double pad, double *h, int saved_in, int keep_out) {
  double hin = *h;
  fu__op *o = fu__conv_pad(x, name, B, cin, cout, k, stride, pad, hin, saved_in, h);
  if (!o) return NULL;
  fu__conv_bias(x, o, name, cout, B * *h * *h);
  double n = B * cout * *h * *h;
  return fu__memop(x, "relu", x->adt, n, keep_out ? x->ab * n : 0);
}

/* A SqueezeNet (squeezenet.py): the stem convolution (stride 2, no padding) and ReLU, max pools at
 * stride 2 with ceil_mode, Fire modules (a 1x1 squeeze convolution and ReLU whose output feeds a
 * 1x1 and a 3x3 expand convolution, each with its ReLU, their outputs concatenated: torch.cat, a
 * copy of both; in backward the squeeze output's two gradients summed; the expands' ReLUs keep
 * their outputs, the concatenation keeps nothing, the two expands one input), then the classifier:
 * dropout 0.5, a 1x1 convolution to 1000 classes with its ReLU, the global average pool (a
 * reduction), the loss. features.N and classifier.N: nn.Sequential's indices, as torchvision
 * names them. */
static int fu__squeezenet_ops(fu__ctx *x, const int *cfg, int stem, double c, double B, double img) {
  const char *A = x->adt;
  double h = img;
  int idx = 0;
  char nm[96];
  x->layer = -1;
  FU__TRY(fu__conv_relu(x, "features.0", B, 3, c, stem, 2, 0, &h, 1, 0));
  FU__TRY(fu__ceil_pool(x, B, c, &h));
  idx = 3;
  for (const int *v = cfg; *v >= 0; v++, idx++) {
    if (*v == 0) {
      FU__TRY(fu__ceil_pool(x, B, c, &h));
      continue;
    }
    double in = v[0], sq = v[1], e1 = v[2], e3 = v[3], t = h;
    v += 3;
    snprintf(nm, sizeof nm, "features.%d.squeeze", idx);
    FU__TRY(fu__conv_relu(x, nm, B, in, sq, 1, 1, 0, &t, 1, 0));
    FU__TRY(fu__fanout(x, B * sq * h * h, A, 2)); /* both expand convolutions read it */
    snprintf(nm, sizeof nm, "features.%d.expand1x1", idx);
    FU__TRY(fu__conv_relu(x, nm, B, sq, e1, 1, 1, 0, &t, 1, 1));
    snprintf(nm, sizeof nm, "features.%d.expand3x3", idx);
    t = h;
    FU__TRY(fu__conv_relu(x, nm, B, sq, e3, 3, 1, 1, &t, 0, 1));
    FU__TRY(fu__dense_cat(x, 2, B * (e1 + e3) * h * h));
    c = e1 + e3;
  }
  FU__TRY(fu__memop(x, "dropout", A, B * c * h * h, B * c * h * h));
  FU__TRY(fu__conv_relu(x, "classifier.1", B, c, 1000, 1, 1, 0, &h, 1, 1));
  FU__TRY(fu__memop(x, "bias_grad", A, B * 1000 * h * h, 0)); /* the global average pool: a reduction */
  return fu__memop(x, "cross_entropy", A, B * 1000, 4 * B * 1000) ? FU_OK : FU_ENOMEM;
}

/* A bottleneck block past ResNet-50's blocks (a deeper ResNet's extra blocks): its host costs
 * add up to the profile's tv_resnet_block_deep row in the step's mode (tools/cnn_depth.py:
 * ResNet-101 against ResNet-50, held as tv_resnet50_held is, interleaved rounds, per block at
 * the profile's host speed), where it has one above 0. fu__scale_host_whole gives every block
 * the one factor that makes ResNet-50 add up to its whole step, whose stem, head, loss and
 * backward()'s own start are spread over its 16 blocks; a block past them measured 0.81-0.85x
 * of that (data/compute/README.md, 2026-12-04u). The operations keep their shares of the block. */
static void fu__cnn_deep(fu__ctx *x) {
  const fu_op_table *t = fu__mode_row(x, "tv_resnet_block_deep");
  if (!t || !(t->host_fwd_us > 0 && t->host_bwd_us > 0)) return;
  for (size_t i = 0; i < x->n;) {
    size_t j = i;
    double sf = 0, sb = 0;
    int blk = x->ops[i].past_block;
    for (; j < x->n && x->ops[j].past_block == blk; j++) sf += x->ops[j].hfwd_us, sb += x->ops[j].hbwd_us;
    for (size_t k = i; blk && k < j; k++) {
      if (sf > 0) x->ops[k].hfwd_us *= t->host_fwd_us / sf;
      if (sb > 0) x->ops[k].hbwd_us *= t->host_bwd_us / sb;
    }
    i = j;
  }
}

/* backward()'s own host time before its first node runs (tools/bwd_start.py, GPU idle at the call:
 * the seed gradient, the graph task, the walk over every node reachable, waking the autograd
 * thread): the profile's torch_bwd_start row in the step's mode plus its torch_bwd_start_node row
 * per node, counted as the operations and their parameters (a backward node each and an
 * AccumulateGrad each: roughly autograd's count); 0 without the rows, as before them. The
 * per-operation host rows leave it out (calib_torch's chain_bwd_host takes a baseline backward()
 * off), and scaling them to tv_resnet50_held spread it over every operation, so a capture's first
 * gradient came 0.5-1.5 ms after the estimate where the GPU had caught up with the host (issue 13,
 * 17 of 17 CNN captures). */
static double fu__cnn_bwd_start(const fu__ctx *x) {
  const fu_op_table *s = fu__mode_row(x, "torch_bwd_start"), *n = fu__mode_row(x, "torch_bwd_start_node");
  double nodes = 0, start = s && s->host_bwd_us > 0 ? s->host_bwd_us : 0;
  for (size_t i = 0; i < x->n; i++) nodes += 1 + x->ops[i].nparams;
  if (n && n->host_bwd_us > 0) start += n->host_bwd_us * nodes;
  return start;
}

/* 1 where the profile has a conv table of the step's dtype of this kind (an fu_conv_groups) and
 * memory format, of class kNsS where kernel and stride are above 0 (else of any class). */
int fu__has_conv_table(const fu__ctx *x, int grouped, int nchw, int kernel, int stride) {
  for (int i = 0; i < x->c->nconv; i++) {
    const fu_gemm_table *t = &x->c->conv[i];
    if (t->grouped == grouped && t->nchw == nchw && !strcmp(t->dtype, x->gdt) &&
        (kernel <= 0 || (t->kernel == kernel && t->stride == stride)))
      return 1;
  }
  return 0;
}

/* The "derived" mark of the first conv table of the step's dtype and layout, dense or grouped,
 * that was not measured on this GPU (NULL: none). */
static const char *fu__derived_conv(const fu__ctx *x, int grouped) {
  for (int i = 0; i < x->c->nconv; i++) {
    const fu_gemm_table *t = &x->c->conv[i];
    if (t->grouped == grouped && t->nchw == x->nchw && t->derived[0] && !strcmp(t->dtype, x->gdt))
      return t->derived;
  }
  return NULL;
}

int fu_build_cnn(const fu_cnn_spec *s, const fu_profile *prof, const char *prof_name,
                 fu_workload *w) {
  double widen = 0, groups = 1;
  int vgg_bn = 0;
  const double *blocks = fu__resnet_blocks(s->model, &widen, &groups);
  const int *vgg = blocks ? NULL : fu__vgg_cfg(s->model, &vgg_bn);
  const double *dense = blocks || vgg ? NULL : fu__densenet_cfg(s->model);
  int sq_stem = 0, sq_c = 0;
  const int *squeeze = fu__squeezenet_cfg(s->model, &sq_stem, &sq_c);
  /* the families' names are apart: one of these at most */
  int mobile = fu__mobile_known(s->model), cnx = fu__convnext_known(s->model), regnet = fu__regnet_known(s->model);
  int grouped = groups > 1 || regnet; /* grouped convolutions of wider groups */
  if (!blocks && !vgg && !dense && !squeeze && !mobile && !cnx && !regnet) {
    fu_error("workload: --cnn '%s': the CNN builder knows resnet18, resnet34, resnet50, resnet101, resnet152, "
             "wide_resnet50_2, wide_resnet101_2, resnext50_32x4d, resnext101_32x8d, resnext101_64x4d, vgg11, vgg13, "
             "vgg16, vgg19 and their _bn twins, densenet121, "
             "densenet161, densenet169, densenet201, squeezenet1_0, squeezenet1_1, mobilenet_v2, mobilenet_v3_large, mobilenet_v3_small, "
             "efficientnet_b0 to efficientnet_b7, efficientnet_v2_s, _m, _l, mnasnet0_5, mnasnet0_75, mnasnet1_0, "
             "mnasnet1_3, shufflenet_v2_x0_5, _x1_0, _x1_5, _x2_0, convnext_tiny, _small, _base, _large; "
             "regnet_y_400mf, _800mf, _1_6gf, _3_2gf, _8gf, _16gf, _32gf, _128gf and regnet_x_400mf to regnet_x_32gf",
             s->model);
    return FU_EUSAGE;
  }
  FU_CHECK(fu__optimizer_check(s->optimizer)); /* before any work, as the transformer builder */
  if (s->prec == FU_PREC_BF16) { /* it counted bf16 weights at 4 bytes, priced as autocast */
    fu_error("workload: --cnn --precision bf16: the CNN builder models autocast-bf16 (fp32 weights, "
             "bf16 compute: PyTorch AMP, as the captures ran), tf32 or fp32; bf16 weights and "
             "gradients are the transformer builder's");
    return FU_EUSAGE;
  }
  if (s->batch < 1 || s->image < 32) {
    fu_error("workload: --cnn needs --micro-batch >= 1 and --image >= 32");
    return FU_EUSAGE;
  }
  if (!fu__has_tables(prof)) {
    fu_error("workload: profile %s has no compute tables (fusim calib --suite gemm, "
             "tools/calib_torch.py, fusim fit --compute)", prof_name);
    return FU_EDATA; /* the profile lacks what this command reads, as a missing NCHW table */
  }
  if (s->clip_norm > 0) FU_CHECK(fu__clip_fit(&prof->compute, s->optimizer, prof_name));
  fu__ctx x;
  fu__derived_seen seen = {0};
  memset(&x, 0, sizeof x);
  x.seen = &seen;
  fu__ctx_prec(&x, s->prec);
  x.c = &prof->compute;
  x.T = (double)s->batch;
  x.nchw = s->nchw;
  int st = vgg     ? fu__vgg_ops(&x, vgg, vgg_bn, (double)s->batch, (double)s->image)
           : dense ? fu__densenet_ops(&x, dense, (double)s->batch, (double)s->image)
           : squeeze ? fu__squeezenet_ops(&x, squeeze, sq_stem, sq_c, (double)s->batch, (double)s->image)
           : mobile ? fu__mobile_ops(&x, s->model, (double)s->batch, (double)s->image)
           : cnx    ? fu__convnext_ops(&x, s->model, (double)s->batch, (double)s->image)
           : regnet ? fu__regnet_ops(&x, s->model, (double)s->batch, (double)s->image)
                   : fu__resnet_ops(&x, blocks, widen, groups, (double)s->batch, (double)s->image);
  if (st == FU_OK && x.missing) {
    /* the part that measures what is missing: the grouped tables of wider groups (ResNeXt's,
     * RegNet's) in the step's layout, the mobile rows (RegNet Y's SE blocks) */
    int gmiss = grouped && !strncmp(x.missing_what, "grouped", 7);
    /* channels-last missing where the profile has NCHW tables of wider groups: say so */
    int nchw_has = gmiss && !x.nchw && fu__has_conv_table(&x, FU_CONV_GROUPED, 1, 0, 0);
    fu_error("workload: profile %s has no time for %s: no such table, or none of its points around it "
             "timed; recalibrate with tools/calib_torch.py%s%s%s", prof_name, x.missing_what,
             mobile  ? " --parts dwconv,ops_mobile"
             : cnx   ? " --parts conv,dwconv --conv-classes k4s4,k2s2,dw7s1 (ConvNeXt's stem and downsampling, its 7x7 "
                       "depthwise convolutions)"
             : gmiss ? " --parts gconv"
             : regnet && strncmp(x.missing_what, "conv", 4) ? " --parts ops_mobile"
                                                            : "",
             gmiss ? (x.nchw ? " --conv-format nchw (grouped convolutions of wider groups, NCHW)"
                             : " (grouped convolutions of wider groups)")
             : x.nchw ? " --parts conv,ops_nchw --conv-format nchw (the NCHW tables)" : "",
             nchw_has ? "; its NCHW tables of them price --memory-format nchw" : "");
    st = FU_EDATA;
  }
  /* after the refusal above, which is then the only line */
  const char *dmark = st == FU_OK && x.nchw ? fu__derived_conv(&x, 0) : NULL;
  if (dmark)
    fu_warn("workload: profile %s's NCHW %s convolution tables were not measured on its GPU but "
            "derived from its channels-last ones by %s's NCHW / channels-last ratio (tools/derive_nchw.py)",
            prof_name, x.gdt, dmark);
  for (int kind = FU_CONV_DEPTHWISE; kind <= FU_CONV_GROUPED; kind++) {
    dmark = st == FU_OK && (kind == FU_CONV_DEPTHWISE ? mobile || cnx : grouped) ? fu__derived_conv(&x, kind) : NULL;
    if (dmark)
      fu_warn("workload: profile %s's %s%s %s convolution tables were not measured on its GPU but "
              "derived from another's (%s; tools/derive_gpu_ops.py %s)", prof_name, x.nchw ? "NCHW " : "",
              x.gdt, kind == FU_CONV_DEPTHWISE ? "depthwise" : "grouped", dmark,
              kind == FU_CONV_DEPTHWISE ? "--grouped-conv" : "--conv-classes");
  }
  if (st == FU_OK) { /* the host total was measured on (plain) ResNet-50 */
    fu__ctx r50 = x;
    r50.ops = NULL, r50.n = r50.cap = 0;
    const fu__ctx *ref = &x;
    if (strcmp(s->model, "resnet50") &&
        (st = fu__resnet_ops(&r50, fu__resnet_blocks("resnet50", NULL, NULL), 1, 1, (double)s->batch,
                             (double)s->image)) == FU_OK)
      ref = &r50;
    if (st == FU_OK)
      st = fu__scale_host_whole(&x, ref, "tv_resnet50_held", fu__cnn_bwd_start(ref), fu__cnn_bwd_start(&x),
                                prof_name);
    free(r50.ops);
    fu__cnn_deep(&x);
  }
  if (st == FU_OK)
    st = fu__host_carry(&x, s->host_probe_us, s->host_bwd_probe_us, s->host_ref_us, NULL, prof_name);
  x.hook_us = s->ready_hook_us;
  if (st != FU_OK) {
    free(x.ops);
    return st;
  }
  fu__warn_derived(&x, prof_name);
  fu_workload_init(w);
  double fwd, bwd, act = 0, lead = 0;
  char optnote[384] = "";
  st = fu__timeline(&x, w, &fwd, &bwd, &lead);
  if (st == FU_OK && s->ops) st = fu__dump_ops(&x, s->ops);
  char bound[640] = "";
  if (st == FU_OK)
    fu__host_bound(&x, fu__host_how(s->host_ref_us, s->host_probe_us, s->host_bwd_probe_us),
                   s->host_ref_us[0] > 0 || s->host_probe_us > 0, bound, sizeof bound);
  fu__hook_note(&x, bound, sizeof bound);
  uint64_t nparam = 0;
  size_t gi = 0;
  for (size_t i = x.n; i-- > 0;)
    for (int k = 0; k < x.ops[i].nparams; k++) {
      nparam += x.ops[i].numel[k];
      if (gi < w->ngrads) w->grads[gi++].bytes = x.ops[i].numel[k] * 4;
    }
  for (size_t i = 0; i < x.n; i++) act += x.ops[i].saved;
  free(x.ops);
  if (st == FU_OK) {
    st = fu__optim(&prof->compute, s->optimizer, s->clip_norm, w, 4, lead, x.host_k, s->host_probe_us, x.ref_kf,
                   prof_name, &w->opt_us, optnote, sizeof optnote);
  }
  if (st != FU_OK) {
    fu_workload_finish(w);
    return st;
  }
  w->fwd_us = fwd;
  w->bwd_us = bwd;
  w->accum_steps = (int)s->accum;
  w->estimated = 1;
  w->compute_rel = FU_COMPUTE_REL;
  if (s->name[0]) snprintf(w->name, sizeof w->name, "%s", s->name);
  else snprintf(w->name, sizeof w->name, "%s_b%ld", s->model, s->batch);
  fu_mem *mem = &w->mem;
  memset(mem, 0, sizeof *mem);
  mem->params = (double)nparam * 4;
  mem->grads = (double)nparam * 4;
  mem->optimizer = (double)nparam * fu__opt_states(s->optimizer, s->prec);
  mem->casts = x.casts;
  mem->activations = act;
  mem->inputs = fu__image_inputs(&x, (double)s->batch, (double)s->image);
  mem->workspace = prof->compute.workspace_bytes;
  fu__mem_finish(mem, 0, (double)nparam * fu__opt_temp(s->optimizer), s->accum);
  char notes[2048];
  snprintf(notes, sizeof notes,
           "ESTIMATE from fusim workload --cnn %s: torchvision %s, batch %ld, %ldx%ld images, "
           "%s, %s, %s; %llu params in %zu tensors. Convolutions priced from the cuDNN "
           "tables by kernel and stride (else as implicit GEMMs%s), batch norm, ReLU, pooling, adds "
           "and gradient sums from the memory-bound tables, host issue costs per operation, host "
           "and GPU timelines (profile %s). Memory (GiB): "
           "params %.3f, optimizer %.3f, activations %.3f, inputs %.3f, framework workspace %.3f, peak %.3f.%s%s",
           s->model, s->model, s->batch, s->image, s->image, s->nchw ? "NCHW" : "channels-last",
           fu_precision_name(s->prec), s->optimizer, (unsigned long long)nparam, w->ngrads,
           mobile    ? "; depthwise ones from the grouped tables, activations, SE blocks and stochastic depth from "
                       "their rows"
           : grouped ? "; grouped ones from the grouped tables of wider groups" : "",
           prof_name, mem->params / 1073741824.0,
           mem->optimizer / 1073741824.0, mem->activations / 1073741824.0, mem->inputs / 1073741824.0,
           mem->workspace / 1073741824.0, mem->peak / 1073741824.0, optnote, bound);
  if (!(w->notes = strdup(notes))) {
    fu_workload_finish(w);
    return FU_ENOMEM;
  }
  return FU_OK;
}

