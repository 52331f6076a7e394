/* fu_build_mobile.c: torchvision's depthwise-convolution CNNs (MobileNetV2, MobileNetV3 large and
 * small, EfficientNet-B0..B7, EfficientNetV2 S/M/L, MNASNet, ShuffleNetV2) operation by operation,
 * priced as fu_build_cnn.c prices the ResNets (fusim workload --cnn builds them through it), their
 * depthwise convolutions from the profile's grouped conv tables. */
#define FU_BUILDER_INTERNAL /* fu_builder.h: the builders' shared part */
#include "fu_builder.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fu_common.h"
#include "fu_compute.h"

/* torchvision's _make_divisible(v, d): the nearest multiple of d, at least d, never 10% below v
 * (RegNet's widths by their group widths) */
double fu__make_divisible(double v, double d) {
  double n = floor((v + d / 2) / d) * d;
  if (n < d) n = d;
  return n < 0.9 * v ? n + d : n;
}

/* _make_divisible(v, 8), the mobile builders' */
double fu__div8(double v) { return fu__make_divisible(v, 8); }

/* An activation of numel elements from its row ("relu", "relu6", "silu", "hardswish", "sigmoid",
 * "hardsigmoid"); inplace as Conv2dNormActivation and the heads run theirs. What backward needs
 * kept: ReLU its output (the next convolution's saved input: nothing more), the others their
 * input (the sigmoid its output, the same size). In place, an activation whose backward needs its
 * input cannot keep it: autograd copies the input first (aten::clone before hardtanh_, silu_,
 * hardswish_; tools/calib_torch.py ops_mobile's "clone" row prices the copy, forward only: no
 * node of its own in backward) and keeps the copy. */
fu__op *fu__act(fu__ctx *x, const char *act, double numel, int inplace) {
  int keeps = strcmp(act, "relu");
  if (inplace && keeps) {
    fu__op *c = fu__memop(x, "clone", x->adt, numel, 0);
    if (!c) return NULL;
    c->bwd_us = c->hbwd_us = 0;
  }
  return fu__memop(x, act, x->adt, numel, keeps ? x->ab * numel : 0);
}

/* An in-place ReLU keeps its output for backward (ReluBackward's saved result), which costs
 * nothing more where the next operation keeps the same tensor (a convolution's input); where
 * none does (a concatenation, the mean over the pixels) the ReLU's output stays for it alone:
 * added to the ReLU just pushed, of numel elements. */
void fu__relu_kept(fu__ctx *x, double numel) {
  if (x->n > 0) x->ops[x->n - 1].saved += x->ab * numel;
}

/* A convolution, its batch norm and activation (NULL: none) as Conv2dNormActivation builds them;
 * cname and bname the convolution's and the norm's names. gw: a grouped convolution's input
 * channels a group (cin = cout; 1: depthwise); 0, or cin (one group), a dense one. */
int fu__conv_bn(fu__ctx *x, const char *cname, const char *bname, double B, double cin, double cout,
                double k, double s, double gw, const char *act, double *h) {
  double hin = *h;
  FU__TRY(gw > 0 && gw < cin ? fu__gconv(x, cname, B, cin, gw, k, s, hin, h)
                             : fu__conv(x, cname, B, cin, cout, k, s, hin, 1, h));
  FU__TRY(fu__cnn_bn(x, bname, B, cout, *h, 0));
  if (act) FU__TRY(fu__act(x, act, B * cout * *h * *h, 1));
  return FU_OK;
}

/* The global average pool (adaptive_avg_pool2d to 1x1, or MNASNet's and ShuffleNet's mean over the
 * pixels: the same reduction) of numel elements, by the row of the step's layout; keeps nothing. */
fu__op *fu__global_pool(fu__ctx *x, double numel) {
  return fu__memop(x, x->nchw ? "avgpool_global_nchw" : "avgpool_global", x->adt, numel, 0);
}

/* The squeeze-and-excitation block (torchvision.ops.SqueezeExcitation) on B x c x h x h: the
 * global average pool, fc1 and fc2 (1x1 convolutions with biases on B x c x 1 x 1, act between
 * them), the gate and x * gate. x feeds the pool and the product: its two gradients are summed. */
int fu__se(fu__ctx *x, const char *p, double B, double c, double sq, double h, const char *act,
           const char *gate) {
  char nm[160];
  double n = B * c * h * h, one = 1, t;
  fu__op *o;
  FU__TRY(fu__fanout(x, n, x->adt, 2));
  FU__TRY(fu__global_pool(x, n));
  snprintf(nm, sizeof nm, "%sfc1", p);
  FU__TRY(o = fu__conv(x, nm, B, c, sq, 1, 1, one, 1, &t));
  fu__conv_bias(x, o, nm, sq, B);
  FU__TRY(fu__act(x, act, B * sq, 0)); /* SqueezeExcitation's own, not in place */
  snprintf(nm, sizeof nm, "%sfc2", p);
  FU__TRY(o = fu__conv(x, nm, B, sq, c, 1, 1, one, 1, &t));
  fu__conv_bias(x, o, nm, c, B);
  FU__TRY(fu__memop(x, gate, x->adt, B * c, x->ab * B * c));
  /* keeps x and the gate; its backward sums the gate's gradient over h x h */
  FU__TRY(fu__memop(x, x->nchw ? "se_scale_nchw" : "se_scale", x->adt, n, x->ab * (n + B * c)));
  return FU_OK;
}

/* How a family names an inverted residual block's modules: torchvision's Conv2dNormActivation
 * ("i.0" the convolution, "i.1" its norm, the SE block "i" between); MobileNetV2's projection is a
 * bare convolution and norm ("i", "i + 1"); MNASNet's block is one flat nn.Sequential. */
typedef enum { FU__NAME_CNA, FU__NAME_V2, FU__NAME_FLAT } fu__naming;

typedef struct fu__mb {
  double cin, exp, cout, k, stride; /* channels in, expanded, out; the depthwise kernel, stride */
  const char *act;           /* the activation after the expansion and the depthwise convolution */
  double sq;                 /* the SE block's squeezed channels (0: no SE block) */
  const char *se_act, *gate; /* the SE block's activation and gate */
  double sd;                 /* stochastic depth's drop probability on the residual branch */
  int fused;                 /* EfficientNetV2's FusedMBConv: a dense k x k convolution at the stride
                              * in place of the expansion and the depthwise one (no SE block) */
} fu__mb;

/* A block's convolution and norm names: module i's "i.0" and "i.1", or, flat, "fc" and "fb". */
static void fu__mb_names(char cn[128], char bn[128], const char *p, int flat, int i, int fc, int fb) {
  if (flat) {
    snprintf(cn, 128, "%s%d", p, fc);
    snprintf(bn, 128, "%s%d", p, fb);
  } else {
    snprintf(cn, 128, "%s%d.0", p, i);
    snprintf(bn, 128, "%s%d.1", p, i);
  }
}

/* An inverted residual block (MobileNetV2's InvertedResidual, MobileNetV3's, EfficientNet's
 * MBConv, MNASNet's _InvertedResidual): the 1x1 expansion (where exp differs from cin), the
 * depthwise convolution, the SE block, the 1x1 projection with no activation; a residual add
 * where the shape is kept, after stochastic depth (training: a per-sample mask, a multiply)
 * where its probability is above 0. p: the block's name prefix. Fused (EfficientNetV2's
 * FusedMBConv): the dense k x k convolution at the stride to exp channels with its norm and
 * activation, then the projection; where exp is cin that convolution alone, to cout. */
static int fu__mb_block(fu__ctx *x, const char *p, fu__naming nm, const fu__mb *b, double B, double *h) {
  char cn[128], bn[128];
  int res = b->stride == 1 && b->cin == b->cout, i = 0, flat = nm == FU__NAME_FLAT;
  if (res) FU__TRY(fu__fanout(x, B * b->cin * *h * *h, x->adt, 2)); /* the input feeds the block and the add */
  if (b->fused) {
    fu__mb_names(cn, bn, p, flat, i, 0, 1);
    double mid = b->exp != b->cin ? b->exp : b->cout;
    FU_CHECK(fu__conv_bn(x, cn, bn, B, b->cin, mid, b->k, b->stride, 0, b->act, h));
  } else {
    if (b->exp != b->cin) {
      fu__mb_names(cn, bn, p, flat, i++, 0, 1);
      FU_CHECK(fu__conv_bn(x, cn, bn, B, b->cin, b->exp, 1, 1, 0, b->act, h));
    }
    fu__mb_names(cn, bn, p, flat, i, 3, 4);
    FU_CHECK(fu__conv_bn(x, cn, bn, B, b->exp, b->exp, b->k, b->stride, 1, b->act, h));
    if (b->sq > 0) {
      snprintf(cn, sizeof cn, "%s%d.", p, ++i);
      FU_CHECK(fu__se(x, cn, B, b->exp, b->sq, *h, b->se_act, b->gate));
    }
  }
  i++;
  if (nm == FU__NAME_V2) fu__mb_names(cn, bn, p, 1, 0, i, i + 1);
  else fu__mb_names(cn, bn, p, flat, i, 6, 7);
  if (!b->fused || b->exp != b->cin) FU_CHECK(fu__conv_bn(x, cn, bn, B, b->exp, b->cout, 1, 1, 0, NULL, h));
  double n = B * b->cout * *h * *h;
  if (res && b->sd > 0) FU__TRY(fu__memop(x, "stochastic_depth", x->adt, n, x->ab * B));
  if (res) FU__TRY(fu__memop(x, "add", x->adt, n, 0));
  return FU_OK;
}

/* The head: the global average pool (MNASNet's mean over the pixels is the same reduction),
 * MobileNetV3's hidden Linear and hardswish (hidden > 0), dropout, the classifier Linear, the
 * loss. */
static int fu__mobile_head(fu__ctx *x, double B, double c, double h, double hidden) {
  FU__TRY(fu__global_pool(x, B * c * h * h));
  if (hidden > 0) {
    FU__TRY(fu__linear(x, "classifier.0", c, hidden, 1, 0, 1, 1));
    FU__TRY(fu__act(x, "hardswish", B * hidden, 1)); /* nn.Hardswish(inplace=True) */
    c = hidden;
  }
  FU__TRY(fu__memop(x, "dropout", x->adt, B * c, B * c));
  return fu__cnn_classifier(x, hidden > 0 ? "classifier.3" : "classifier.1", c, B, 0) ? FU_OK : FU_ENOMEM;
}

/* MobileNetV2 (width 1.0): t, c, n, s of mobilenetv2.py's inverted_residual_setting; ReLU6 */
static int fu__mobilenet_v2(fu__ctx *x, double B, double img) {
  static const double cfg[7][4] = {{1, 16, 1, 1}, {6, 24, 2, 2}, {6, 32, 3, 2}, {6, 64, 4, 2},
                                   {6, 96, 3, 1}, {6, 160, 3, 2}, {6, 320, 1, 1}};
  double h = img, cin = 32;
  char p[64];
  FU_CHECK(fu__conv_bn(x, "features.0.0", "features.0.1", B, 3, cin, 3, 2, 0, "relu6", &h));
  int f = 1;
  for (int g = 0; g < 7; g++)
    for (int r = 0; r < cfg[g][2]; r++, f++) {
      fu__mb b = {cin, round(cin * cfg[g][0]), cfg[g][1], 3, r ? 1 : cfg[g][3], "relu6", 0, NULL, NULL, 0, 0};
      snprintf(p, sizeof p, "features.%d.conv.", f);
      FU_CHECK(fu__mb_block(x, p, FU__NAME_V2, &b, B, &h));
      cin = b.cout;
    }
  char cn[128], bn[128];
  fu__mb_names(cn, bn, "features.", 0, f, 0, 0);
  FU_CHECK(fu__conv_bn(x, cn, bn, B, cin, 1280, 1, 1, 0, "relu6", &h));
  return fu__mobile_head(x, B, 1280, h, 0);
}

/* MobileNetV3 (mobilenetv3.py's _mobilenet_v3_conf, width 1.0): input, kernel, expanded, output
 * channels, SE, hardswish (else ReLU), stride; the SE block squeezes to _make_divisible(exp / 4)
 * with ReLU and a hardsigmoid gate; the last convolution widens 6x, the head's hidden Linear. */
static int fu__mobilenet_v3(fu__ctx *x, int small, double B, double img) {
  static const double large[15][7] = {
      {16, 3, 16, 16, 0, 0, 1},     {16, 3, 64, 24, 0, 0, 2},     {24, 3, 72, 24, 0, 0, 1},
      {24, 5, 72, 40, 1, 0, 2},     {40, 5, 120, 40, 1, 0, 1},    {40, 5, 120, 40, 1, 0, 1},
      {40, 3, 240, 80, 0, 1, 2},    {80, 3, 200, 80, 0, 1, 1},    {80, 3, 184, 80, 0, 1, 1},
      {80, 3, 184, 80, 0, 1, 1},    {80, 3, 480, 112, 1, 1, 1},   {112, 3, 672, 112, 1, 1, 1},
      {112, 5, 672, 160, 1, 1, 2},  {160, 5, 960, 160, 1, 1, 1},  {160, 5, 960, 160, 1, 1, 1}};
  static const double smallc[11][7] = {
      {16, 3, 16, 16, 1, 0, 2},   {16, 3, 72, 24, 0, 0, 2},   {24, 3, 88, 24, 0, 0, 1},
      {24, 5, 96, 40, 1, 1, 2},   {40, 5, 240, 40, 1, 1, 1},  {40, 5, 240, 40, 1, 1, 1},
      {40, 5, 120, 48, 1, 1, 1},  {48, 5, 144, 48, 1, 1, 1},  {48, 5, 288, 96, 1, 1, 2},
      {96, 5, 576, 96, 1, 1, 1},  {96, 5, 576, 96, 1, 1, 1}};
  const double(*cfg)[7] = small ? smallc : large;
  int n = small ? 11 : 15;
  double h = img;
  char p[128];
  FU_CHECK(fu__conv_bn(x, "features.0.0", "features.0.1", B, 3, 16, 3, 2, 0, "hardswish", &h));
  for (int i = 0; i < n; i++) {
    const double *c = cfg[i];
    fu__mb b = {c[0], c[2], c[3], c[1], c[6], c[5] ? "hardswish" : "relu", c[4] ? fu__div8(floor(c[2] / 4)) : 0,
                "relu", "hardsigmoid", 0, 0};
    snprintf(p, sizeof p, "features.%d.block.", i + 1);
    FU_CHECK(fu__mb_block(x, p, FU__NAME_CNA, &b, B, &h));
  }
  double c = cfg[n - 1][3];
  char bn[128];
  fu__mb_names(p, bn, "features.", 0, n + 1, 0, 0);
  FU_CHECK(fu__conv_bn(x, p, bn, B, c, 6 * c, 1, 1, 0, "hardswish", &h));
  return fu__mobile_head(x, B, 6 * c, h, small ? 1024 : 1280);
}

/* An EfficientNet (efficientnet.py): the stages (FusedMBConv, expansion, kernel, stride, input,
 * output channels, blocks) at width w (channels by _make_divisible) and depth d (blocks rounded
 * up); SiLU throughout, the MBConv blocks' SE block squeezed to input / 4 with SiLU and a sigmoid
 * gate (FusedMBConv has none); stochastic depth 0.2 times the block's index over the block count;
 * the last 1x1 convolution to last channels (0: 4x its input). */
static int fu__effnet(fu__ctx *x, const double (*cfg)[7], int ns, double w, double d, double last, double B,
                      double img) {
  double h = img, total = 0, id = 0, cin = fu__div8(cfg[0][4] * w);
  for (int s = 0; s < ns; s++) total += ceil(cfg[s][6] * d);
  char p[64];
  FU_CHECK(fu__conv_bn(x, "features.0.0", "features.0.1", B, 3, cin, 3, 2, 0, "silu", &h));
  for (int s = 0; s < ns; s++) {
    const double *g = cfg[s];
    double cout = fu__div8(g[5] * w);
    for (int r = 0; r < ceil(g[6] * d); r++, id++) {
      fu__mb b = {cin, fu__div8(cin * g[1]), cout, g[2], r ? 1 : g[3], "silu", g[0] ? 0 : fmax(1, floor(cin / 4)),
                  "silu", "sigmoid", 0.2 * id / total, (int)g[0]};
      snprintf(p, sizeof p, "features.%d.%d.block.", s + 1, r);
      FU_CHECK(fu__mb_block(x, p, FU__NAME_CNA, &b, B, &h));
      cin = cout;
    }
  }
  if (last <= 0) last = 4 * cin;
  char cn[128], bn[128];
  fu__mb_names(cn, bn, "features.", 0, ns + 1, 0, 0);
  FU_CHECK(fu__conv_bn(x, cn, bn, B, cin, last, 1, 1, 0, "silu", &h));
  return fu__mobile_head(x, B, last, h, 0);
}

/* EfficientNet-B0..B7: the B0 stages at the model's width and depth multipliers. */
static int fu__efficientnet(fu__ctx *x, int v, double B, double img) {
  static const double mult[8][2] = {{1.0, 1.0}, {1.0, 1.1}, {1.1, 1.2}, {1.2, 1.4},
                                    {1.4, 1.8}, {1.6, 2.2}, {1.8, 2.6}, {2.0, 3.1}};
  static const double stages[7][7] = {{0, 1, 3, 1, 32, 16, 1},   {0, 6, 3, 2, 16, 24, 2},  {0, 6, 5, 2, 24, 40, 2},
                                      {0, 6, 3, 2, 40, 80, 3},   {0, 6, 5, 1, 80, 112, 3}, {0, 6, 5, 2, 112, 192, 4},
                                      {0, 6, 3, 1, 192, 320, 1}};
  return fu__effnet(x, stages, 7, mult[v][0], mult[v][1], 0, B, img);
}

/* EfficientNetV2 S, M, L (_efficientnet_conf): FusedMBConv stages (dense 3x3 convolutions) then
 * MBConv ones, no width or depth multiplier, the last convolution to 1280 channels. Batch norm's
 * eps (1e-3) changes no time. */
static int fu__efficientnet_v2(fu__ctx *x, int v, double B, double img) {
  static const double s_cfg[6][7] = {{1, 1, 3, 1, 24, 24, 2},   {1, 4, 3, 2, 24, 48, 4},   {1, 4, 3, 2, 48, 64, 4},
                                     {0, 4, 3, 2, 64, 128, 6},  {0, 6, 3, 1, 128, 160, 9}, {0, 6, 3, 2, 160, 256, 15}};
  static const double m_cfg[7][7] = {{1, 1, 3, 1, 24, 24, 3},   {1, 4, 3, 2, 24, 48, 5},    {1, 4, 3, 2, 48, 80, 5},
                                     {0, 4, 3, 2, 80, 160, 7},  {0, 6, 3, 1, 160, 176, 14}, {0, 6, 3, 2, 176, 304, 18},
                                     {0, 6, 3, 1, 304, 512, 5}};
  static const double l_cfg[7][7] = {{1, 1, 3, 1, 32, 32, 4},   {1, 4, 3, 2, 32, 64, 7},    {1, 4, 3, 2, 64, 96, 7},
                                     {0, 4, 3, 2, 96, 192, 10}, {0, 6, 3, 1, 192, 224, 19}, {0, 6, 3, 2, 224, 384, 25},
                                     {0, 6, 3, 1, 384, 640, 7}};
  return fu__effnet(x, v == 0 ? s_cfg : v == 1 ? m_cfg : l_cfg, v == 0 ? 6 : 7, 1, 1, 1280, B, img);
}

/* MNASNet (mnasnet.py, version 2): _get_depths(alpha) rounds each depth to a multiple of 8 by
 * _round_to_multiple_of (up unless within 10%: _make_divisible's rule, fu__div8); the stem a 3x3 convolution and a depthwise
 * separable one, then six stacks of inverted residuals (kernel, stride, expansion, repeats),
 * ReLU throughout, no SE. */
static int fu__mnasnet(fu__ctx *x, double alpha, double B, double img) {
  static const double base[8] = {32, 16, 24, 40, 80, 96, 192, 320};
  static const double stacks[6][4] = {{3, 2, 3, 3}, {5, 2, 3, 3}, {5, 2, 6, 3}, {3, 1, 6, 2}, {5, 2, 6, 4}, {3, 1, 6, 1}};
  double dp[8], h = img;
  for (int i = 0; i < 8; i++) dp[i] = fu__div8(base[i] * alpha);
  FU_CHECK(fu__conv_bn(x, "layers.0", "layers.1", B, 3, dp[0], 3, 2, 0, "relu", &h));
  FU_CHECK(fu__conv_bn(x, "layers.3", "layers.4", B, dp[0], dp[0], 3, 1, 1, "relu", &h));
  FU_CHECK(fu__conv_bn(x, "layers.6", "layers.7", B, dp[0], dp[1], 1, 1, 0, NULL, &h));
  char p[64];
  for (int s = 0; s < 6; s++)
    for (int r = 0; r < stacks[s][3]; r++) {
      double cin = r ? dp[s + 2] : dp[s + 1];
      fu__mb b = {cin, cin * stacks[s][2], dp[s + 2], stacks[s][0], r ? 1 : stacks[s][1], "relu", 0, NULL, NULL, 0, 0};
      snprintf(p, sizeof p, "layers.%d.%d.layers.", s + 8, r);
      FU_CHECK(fu__mb_block(x, p, FU__NAME_FLAT, &b, B, &h));
    }
  FU_CHECK(fu__conv_bn(x, "layers.14", "layers.15", B, dp[7], 1280, 1, 1, 0, "relu", &h));
  fu__relu_kept(x, B * 1280 * h * h); /* into the mean */
  return fu__mobile_head(x, B, 1280, h, 0);
}

/* ShuffleNetV2's channel shuffle (shufflenetv2.py channel_shuffle: view, transpose, contiguous,
 * view) of numel elements: the contiguous() is a copy, priced as one ("clone"); its gradient
 * arrives as a transposed view, which the next backward kernel needs contiguous: a copy in
 * backward too. Host: the three views and the copy. Keeps nothing. */
static fu__op *fu__shuffle(fu__ctx *x, double numel) {
  fu__op *o = fu__memop(x, "clone", x->adt, numel, 0);
  if (!o) return NULL;
  snprintf(o->what, sizeof o->what, "shuffle");
  o->bwd_us = o->fwd_us;
  const fu_op_table *v = fu__mode_row(x, "view");
  if (v) o->hfwd_us += 3 * v->host_fwd_us;
  return o;
}

/* x.chunk(2, dim=1) of numel elements: views forward; backward puts the two halves' gradients
 * back into one tensor (a copy of numel). The convolution that keeps the second half keeps a view:
 * the whole tensor stays alive, so the first half is kept here. */
static fu__op *fu__chunk(fu__ctx *x, double numel) {
  fu__op *o = fu__push(x);
  if (!o) return NULL;
  snprintf(o->what, sizeof o->what, "chunk");
  o->saved = x->ab * numel / 2;
  o->bwd_us = fu__copy_us(x, 2 * x->ab * numel);
  const fu_op_table *v = fu__mode_row(x, "view"), *c = fu__mode_row(x, "cat");
  o->hfwd_us = v ? v->host_fwd_us : 0;
  o->hbwd_us = c ? c->host_bwd_us : 0;
  return o;
}

/* ShuffleNetV2 (shufflenetv2.py): the stem (3x3 convolution at stride 2 to 24 channels, batch
 * norm, ReLU, 3x3 max pool at stride 2); three stages of inverted residuals: the first at stride
 * 2 runs two branches on its input (branch1: depthwise 3x3, norm, 1x1, norm, ReLU; branch2: 1x1,
 * norm, ReLU, depthwise 3x3, norm, 1x1, norm, ReLU), the others split the input's channels in two
 * and run branch2 on one half; then the halves are concatenated and shuffled; conv5 (1x1, norm,
 * ReLU), the mean over the pixels, fc. ReLUs in place, no SE. */
static int fu__shufflenet(fu__ctx *x, int v, double B, double img) {
  static const double outs[4][4] = {{48, 96, 192, 1024}, {116, 232, 464, 1024}, {176, 352, 704, 1024},
                                    {244, 488, 976, 2048}};
  static const int repeats[3] = {4, 8, 4};
  const double *oc = outs[v];
  double h = img, cin = 24, t;
  char p[96], cn[128], bn[128];
  FU_CHECK(fu__conv_bn(x, "conv1.0", "conv1.1", B, 3, cin, 3, 2, 0, "relu", &h));
  FU__TRY(fu__stem_pool(x, B, cin, &h));
  for (int s = 0; s < 3; s++) {
    double bf = oc[s] / 2;
    for (int r = 0; r < repeats[s]; r++) {
      double hin = h, in2 = r ? bf : cin;
      if (r == 0) { /* both branches read the block's input */
        FU__TRY(fu__fanout(x, B * cin * h * h, x->adt, 2));
        snprintf(p, sizeof p, "stage%d.0.branch1.", s + 2);
        t = h; /* branch1's resolution, from the block's input */
        snprintf(cn, sizeof cn, "%s0", p), snprintf(bn, sizeof bn, "%s1", p);
        FU_CHECK(fu__conv_bn(x, cn, bn, B, cin, cin, 3, 2, 1, NULL, &t));
        snprintf(cn, sizeof cn, "%s2", p), snprintf(bn, sizeof bn, "%s3", p);
        FU_CHECK(fu__conv_bn(x, cn, bn, B, cin, bf, 1, 1, 0, "relu", &t));
        fu__relu_kept(x, B * bf * t * t); /* into the concatenation */
      } else {
        FU__TRY(fu__chunk(x, B * oc[s] * h * h));
      }
      snprintf(p, sizeof p, "stage%d.%d.branch2.", s + 2, r);
      snprintf(cn, sizeof cn, "%s0", p), snprintf(bn, sizeof bn, "%s1", p);
      /* at stride 2 its input is branch1's, already kept */
      FU__TRY(fu__conv(x, cn, B, in2, bf, 1, 1, h, r ? 1 : 0, &h));
      FU__TRY(fu__cnn_bn(x, bn, B, bf, h, 1));
      snprintf(cn, sizeof cn, "%s3", p), snprintf(bn, sizeof bn, "%s4", p);
      h = hin;
      FU_CHECK(fu__conv_bn(x, cn, bn, B, bf, bf, 3, r ? 1 : 2, 1, NULL, &h));
      snprintf(cn, sizeof cn, "%s5", p), snprintf(bn, sizeof bn, "%s6", p);
      FU_CHECK(fu__conv_bn(x, cn, bn, B, bf, bf, 1, 1, 0, "relu", &h));
      fu__relu_kept(x, B * bf * h * h);
      FU__TRY(fu__dense_cat(x, 2, B * oc[s] * h * h));
      FU__TRY(fu__shuffle(x, B * oc[s] * h * h));
    }
    cin = oc[s];
  }
  FU_CHECK(fu__conv_bn(x, "conv5.0", "conv5.1", B, cin, oc[3], 1, 1, 0, "relu", &h));
  fu__relu_kept(x, B * oc[3] * h * h); /* into the mean */
  FU__TRY(fu__global_pool(x, B * oc[3] * h * h));
  return fu__cnn_classifier(x, "fc", oc[3], B, 0) ? FU_OK : FU_ENOMEM;
}

/* The model's family and variant: 1 mobilenet_v2, 2 mobilenet_v3, 3 efficientnet, 4 mnasnet,
 * 5 shufflenet_v2, 6 efficientnet_v2 (0: none of them); *v the variant (small; B number; alpha x
 * 100; width index; S, M, L). */
static int fu__mobile_family(const char *m, int *v) {
  static const struct {
    const char *name;
    int family, v;
  } nets[] = {{"mobilenet_v2", 1, 0},     {"mobilenet_v3_large", 2, 0}, {"mobilenet_v3_small", 2, 1},
              {"efficientnet_b0", 3, 0},  {"efficientnet_b1", 3, 1},    {"efficientnet_b2", 3, 2},
              {"efficientnet_b3", 3, 3},  {"efficientnet_b4", 3, 4},    {"efficientnet_b5", 3, 5},
              {"efficientnet_b6", 3, 6},  {"efficientnet_b7", 3, 7},    {"mnasnet0_5", 4, 50},
              {"mnasnet0_75", 4, 75},     {"mnasnet1_0", 4, 100},       {"mnasnet1_3", 4, 130},
              {"shufflenet_v2_x0_5", 5, 0}, {"shufflenet_v2_x1_0", 5, 1}, {"shufflenet_v2_x1_5", 5, 2},
              {"shufflenet_v2_x2_0", 5, 3}, {"efficientnet_v2_s", 6, 0}, {"efficientnet_v2_m", 6, 1},
              {"efficientnet_v2_l", 6, 2}};
  for (size_t i = 0; i < sizeof nets / sizeof nets[0]; i++)
    if (!strcmp(m, nets[i].name)) {
      *v = nets[i].v;
      return nets[i].family;
    }
  return 0;
}

int fu__mobile_known(const char *model) {
  int v = 0;
  return fu__mobile_family(model, &v) != 0;
}

int fu__mobile_ops(fu__ctx *x, const char *model, double B, double img) {
  int v = 0, f = fu__mobile_family(model, &v);
  x->layer = -1;
  return f == 1   ? fu__mobilenet_v2(x, B, img)
         : f == 2 ? fu__mobilenet_v3(x, v, B, img)
         : f == 3 ? fu__efficientnet(x, v, B, img)
         : f == 4 ? fu__mnasnet(x, v / 100.0, B, img)
         : f == 5 ? fu__shufflenet(x, v, B, img)
                  : fu__efficientnet_v2(x, v, B, img);
}
