/* fu_build_regnet.c: torchvision's RegNets (regnet.py: regnet_y_400mf .. regnet_y_128gf, regnet_x_400mf
 * .. regnet_x_32gf) operation by operation, priced as fu_build_cnn.c prices the ResNets (fusim
 * workload --cnn builds them through it), their grouped 3x3 convolutions from the profile's grouped
 * conv tables of wider groups (tools/calib_torch.py --parts gconv). */
#define FU_BUILDER_INTERNAL /* fu_builder.h: the builders' shared part */
#include "fu_builder.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "fu_common.h"

/* A RegNet's init params (regnet.py's BlockParams.from_init_params arguments): depth, w_0, w_a,
 * w_m, group_width, and the SE ratio (0.25 for the Y models, 0 for the X models: no SE block);
 * bottleneck_multiplier 1, stem width 32, strides 2. */
typedef struct fu__regnet_cfg {
  const char *name;
  double depth, w0, wa, wm, gw, se;
} fu__regnet_cfg;

static const fu__regnet_cfg fu__regnets[] = {
    {"regnet_y_400mf", 16, 48, 27.89, 2.09, 8, 0.25},      {"regnet_y_800mf", 14, 56, 38.84, 2.4, 16, 0.25},
    {"regnet_y_1_6gf", 27, 48, 20.71, 2.65, 24, 0.25},     {"regnet_y_3_2gf", 21, 80, 42.63, 2.66, 24, 0.25},
    {"regnet_y_8gf", 17, 192, 76.82, 2.19, 56, 0.25},      {"regnet_y_16gf", 18, 200, 106.23, 2.48, 112, 0.25},
    {"regnet_y_32gf", 20, 232, 115.89, 2.53, 232, 0.25},   {"regnet_y_128gf", 27, 456, 160.83, 2.52, 264, 0.25},
    {"regnet_x_400mf", 22, 24, 24.48, 2.54, 16, 0},        {"regnet_x_800mf", 16, 56, 35.73, 2.28, 16, 0},
    {"regnet_x_1_6gf", 18, 80, 34.01, 2.25, 24, 0},        {"regnet_x_3_2gf", 25, 88, 26.31, 2.25, 48, 0},
    {"regnet_x_8gf", 23, 80, 49.56, 2.88, 120, 0},         {"regnet_x_16gf", 22, 216, 55.59, 2.1, 128, 0},
    {"regnet_x_32gf", 23, 320, 69.86, 2.0, 168, 0}};

static const fu__regnet_cfg *fu__regnet_find(const char *model) {
  for (size_t i = 0; i < sizeof fu__regnets / sizeof fu__regnets[0]; i++)
    if (!strcmp(model, fu__regnets[i].name)) return &fu__regnets[i];
  return NULL;
}

int fu__regnet_known(const char *model) { return fu__regnet_find(model) != NULL; }

#define FU__REGNET_MAX_STAGES 8

/* BlockParams.from_init_params: block i's width w_0 x w_m^round(log((i w_a + w_0) / w_0) / log w_m),
 * rounded to a multiple of 8; a stage each run of equal widths (their depths the runs' lengths);
 * then _adjust_widths_groups_compatibilty: the group width at most the stage's, the stage's width
 * _make_divisible by it. torch rounds half to even (torch.round): rint in the default rounding
 * mode does too, and regnet_x_1_6gf's 80 x 2.25 / 8 = 22.5 is such a tie (176, not 184). The
 * stages' widths, depths and group widths; their count (0: more than FU__REGNET_MAX_STAGES). */
static int fu__regnet_stages(const fu__regnet_cfg *c, double w[], double d[], double g[]) {
  int n = 0;
  for (int i = 0; i < (int)c->depth; i++) {
    double cap = rint(log((i * c->wa + c->w0) / c->w0) / log(c->wm));
    double bw = rint(c->w0 * pow(c->wm, cap) / 8) * 8;
    if (n > 0 && w[n - 1] == bw) {
      d[n - 1]++;
      continue;
    }
    if (n == FU__REGNET_MAX_STAGES) return 0;
    w[n] = bw, d[n] = 1, n++;
  }
  for (int s = 0; s < n; s++) {
    g[s] = fmin(c->gw, w[s]);
    w[s] = fu__make_divisible(w[s], g[s]);
  }
  return n;
}

/* A ResBottleneckBlock of win channels in, wout out at stride s, group width gw, SE squeezed to
 * se x win (0: none): the projection (1x1 convolution at the stride, batch norm) where the width or
 * the stride changes, run first (proj(x) + f(x)); f: a (1x1, batch norm, ReLU), b (3x3 grouped at
 * the stride, wout / gw groups: dense where that is 1, batch norm, ReLU), the SE block (ReLU, a
 * sigmoid gate), c (1x1, batch norm); the add and the in-place ReLU. The block's input feeds the
 * projection (or the add) and a: its two gradients are summed; a keeps it (the projection reads
 * the same tensor). p: the block's name prefix. */
static int fu__regnet_block(fu__ctx *x, const char *p, double B, double win, double wout, double s, double gw,
                            double se, double *h) {
  char cn[160], bn[160];
  double hin = *h, t;
  FU__TRY(fu__fanout(x, B * win * hin * hin, x->adt, 2));
  if (win != wout || s != 1) {
    snprintf(cn, sizeof cn, "%sproj.0", p), snprintf(bn, sizeof bn, "%sproj.1", p);
    FU__TRY(fu__conv(x, cn, B, win, wout, 1, s, hin, 0, &t));
    FU__TRY(fu__cnn_bn(x, bn, B, wout, t, 0));
  }
  snprintf(cn, sizeof cn, "%sf.a.0", p), snprintf(bn, sizeof bn, "%sf.a.1", p);
  FU_CHECK(fu__conv_bn(x, cn, bn, B, win, wout, 1, 1, 0, "relu", h));
  snprintf(cn, sizeof cn, "%sf.b.0", p), snprintf(bn, sizeof bn, "%sf.b.1", p);
  FU_CHECK(fu__conv_bn(x, cn, bn, B, wout, wout, 3, s, gw, "relu", h));
  if (se > 0) {
    snprintf(cn, sizeof cn, "%sf.se.", p);
    FU_CHECK(fu__se(x, cn, B, wout, rint(se * win), *h, "relu", "sigmoid"));
  }
  snprintf(cn, sizeof cn, "%sf.c.0", p), snprintf(bn, sizeof bn, "%sf.c.1", p);
  FU_CHECK(fu__conv_bn(x, cn, bn, B, wout, wout, 1, 1, 0, NULL, h));
  double n = B * wout * *h * *h;
  FU__TRY(fu__memop(x, "add", x->adt, n, 0));
  FU__TRY(fu__act(x, "relu", n, 1));
  return FU_OK;
}

/* A RegNet (regnet.py): SimpleStemIN (3x3 convolution at stride 2 to 32 channels, batch norm,
 * ReLU), the stages' ResBottleneckBlocks (the first of each at stride 2), the global average pool
 * (which reads the last ReLU's output, kept for its backward) and fc. */
int fu__regnet_ops(fu__ctx *x, const char *model, double B, double img) {
  const fu__regnet_cfg *c = fu__regnet_find(model);
  double w[FU__REGNET_MAX_STAGES], d[FU__REGNET_MAX_STAGES], g[FU__REGNET_MAX_STAGES], h = img, cin = 32;
  int n = c ? fu__regnet_stages(c, w, d, g) : 0;
  if (!n) return FU_EUSAGE;
  x->layer = -1;
  FU_CHECK(fu__conv_bn(x, "stem.0", "stem.1", B, 3, cin, 3, 2, 0, "relu", &h));
  char p[96];
  for (int s = 0; s < n; s++)
    for (int b = 0; b < (int)d[s]; b++) {
      snprintf(p, sizeof p, "trunk_output.block%d.block%d-%d.", s + 1, s + 1, b);
      FU_CHECK(fu__regnet_block(x, p, B, cin, w[s], b ? 1 : 2, g[s], c->se, &h));
      cin = w[s];
    }
  fu__relu_kept(x, B * cin * h * h); /* into the pool */
  FU__TRY(fu__global_pool(x, B * cin * h * h));
  return fu__cnn_classifier(x, "fc", cin, B, 0) ? FU_OK : FU_ENOMEM;
}
