"""mobile_arch.py: torchvision 0.26's depthwise-convolution CNNs (EfficientNetV2: 0.29's) written out layer by layer in
Python, independently of fusim's C builder (sim/fu_build_mobile.c), for the tests: each model's
parameters by name and its forward operations in order (what a training step runs)."""
import math


def make_divisible(v, divisor=8, min_value=None):
    """torchvision.models._utils._make_divisible"""
    min_value = divisor if min_value is None else min_value
    new_v = max(min_value, int(v + divisor / 2) // divisor * divisor)
    return new_v + divisor if new_v < 0.9 * v else new_v


def round_to_multiple_of(val, divisor=8, round_up_bias=0.9):
    """torchvision.models.mnasnet._round_to_multiple_of"""
    new_val = max(divisor, int(val + divisor / 2) // divisor * divisor)
    return new_val if new_val >= round_up_bias * val else new_val + divisor


class Net:
    """The operations of one forward pass: (kind, name, shape facts) tuples; params by name."""

    def __init__(self, batch, image):
        self.B, self.h, self.ops, self.params = batch, image, [], {}

    def conv(self, name, cin, cout, k, s, groups=1, bias=False):
        hin = self.h
        self.h = (hin + 2 * ((k - 1) // 2) - k) // s + 1
        self.params[name + ".weight"] = cout * (cin // groups) * k * k
        if bias:
            self.params[name + ".bias"] = cout
        self.ops.append(dict(kind="gconv" if groups > 1 else "conv", name=name, cin=cin, cout=cout, k=k,
                             s=s, groups=groups, hin=hin, hout=self.h, bias=bias, B=self.B))

    def bn(self, name, c, act=None):
        self.params[name + ".weight"] = self.params[name + ".bias"] = c
        self.ops.append(dict(kind="batchnorm2d", name=name, numel=self.B * c * self.h ** 2, c=c))
        if act:  # Conv2dNormActivation's activation, in place
            self.act(act, self.B * c * self.h ** 2, inplace=True)

    def act(self, kind, numel, inplace=False):
        """in place, an activation whose backward needs its input (all but ReLU) is preceded by
        autograd's copy of that input (aten::clone)"""
        if inplace and kind != "relu":
            self.ops.append(dict(kind="clone", numel=numel))
        self.ops.append(dict(kind=kind, numel=numel))

    def conv_bn(self, name, cin, cout, k, s, act, groups=1, sub=("0", "1")):
        self.conv(name + "." + sub[0], cin, cout, k, s, groups)
        self.bn(name + "." + sub[1], cout, act)

    def se(self, name, c, sq, act, gate):
        """ops.misc.SqueezeExcitation: pool to 1x1, fc1 (bias), act, fc2 (bias), gate, x * gate;
        x feeds the pool and the product (autograd sums its two gradients)"""
        numel, h = self.B * c * self.h ** 2, self.h
        self.ops.append(dict(kind="fanout", numel=numel))
        self.ops.append(dict(kind="avgpool_global", numel=numel))
        self.h = 1
        self.conv(name + ".fc1", c, sq, 1, 1, bias=True)
        self.act(act, self.B * sq)
        self.conv(name + ".fc2", sq, c, 1, 1, bias=True)
        self.act(gate, self.B * c)
        self.h = h
        self.ops.append(dict(kind="se_scale", numel=numel))

    def head(self, c, hidden=None, dropout_first=True):
        """the global average pool, (MobileNetV3: Linear, hardswish,) dropout, Linear, the loss"""
        self.ops.append(dict(kind="avgpool_global", numel=self.B * c * self.h ** 2))
        idx = 0
        if hidden:
            self.linear("classifier.0", c, hidden)
            self.act("hardswish", self.B * hidden, inplace=True)
            c, idx = hidden, 2
        self.ops.append(dict(kind="dropout", numel=self.B * c))
        self.linear("classifier.%d" % (idx + 1), c, 1000)
        self.ops.append(dict(kind="cross_entropy", numel=self.B * 1000))

    def linear(self, name, din, dout):
        self.params[name + ".weight"], self.params[name + ".bias"] = din * dout, dout
        self.ops.append(dict(kind="linear", name=name, din=din, dout=dout, B=self.B))


def mobilenet_v2(n):
    setting = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2), (6, 96, 3, 1), (6, 160, 3, 2),
               (6, 320, 1, 1)]
    cin = 32
    n.conv_bn("features.0", 3, cin, 3, 2, "relu6")
    i = 1
    for t, c, reps, s in setting:
        for r in range(reps):
            stride, hid, p = s if r == 0 else 1, int(round(cin * t)), "features.%d.conv." % i
            res = stride == 1 and cin == c
            if res:
                n.ops.append(dict(kind="fanout", numel=n.B * cin * n.h ** 2))
            j = 0
            if t != 1:
                n.conv_bn(p + "0", cin, hid, 1, 1, "relu6")
                j = 1
            n.conv_bn(p + str(j), hid, hid, 3, stride, "relu6", groups=hid)
            n.conv(p + str(j + 1), hid, c, 1, 1)
            n.bn(p + str(j + 2), c)
            if res:
                n.ops.append(dict(kind="add", numel=n.B * c * n.h ** 2))
            cin, i = c, i + 1
    n.conv_bn("features.%d" % i, cin, 1280, 1, 1, "relu6")
    n.head(1280)


def mobilenet_v3(n, small):
    # (in, kernel, expanded, out, se, activation, stride): mobilenetv3.py's _mobilenet_v3_conf
    if small:
        cfg = [(16, 3, 16, 16, 1, "RE", 2), (16, 3, 72, 24, 0, "RE", 2), (24, 3, 88, 24, 0, "RE", 1),
               (24, 5, 96, 40, 1, "HS", 2), (40, 5, 240, 40, 1, "HS", 1), (40, 5, 240, 40, 1, "HS", 1),
               (40, 5, 120, 48, 1, "HS", 1), (48, 5, 144, 48, 1, "HS", 1), (48, 5, 288, 96, 1, "HS", 2),
               (96, 5, 576, 96, 1, "HS", 1), (96, 5, 576, 96, 1, "HS", 1)]
        last = 1024
    else:
        cfg = [(16, 3, 16, 16, 0, "RE", 1), (16, 3, 64, 24, 0, "RE", 2), (24, 3, 72, 24, 0, "RE", 1),
               (24, 5, 72, 40, 1, "RE", 2), (40, 5, 120, 40, 1, "RE", 1), (40, 5, 120, 40, 1, "RE", 1),
               (40, 3, 240, 80, 0, "HS", 2), (80, 3, 200, 80, 0, "HS", 1), (80, 3, 184, 80, 0, "HS", 1),
               (80, 3, 184, 80, 0, "HS", 1), (80, 3, 480, 112, 1, "HS", 1), (112, 3, 672, 112, 1, "HS", 1),
               (112, 5, 672, 160, 1, "HS", 2), (160, 5, 960, 160, 1, "HS", 1), (160, 5, 960, 160, 1, "HS", 1)]
        last = 1280
    n.conv_bn("features.0", 3, 16, 3, 2, "hardswish")
    for i, (cin, k, exp, cout, se, a, s) in enumerate(cfg, 1):
        act, p, j = "hardswish" if a == "HS" else "relu", "features.%d.block." % i, 0
        res = s == 1 and cin == cout
        if res:
            n.ops.append(dict(kind="fanout", numel=n.B * cin * n.h ** 2))
        if exp != cin:
            n.conv_bn(p + "0", cin, exp, 1, 1, act)
            j = 1
        n.conv_bn(p + str(j), exp, exp, k, s, act, groups=exp)
        if se:
            j += 1
            n.se(p + str(j), exp, make_divisible(exp // 4), "relu", "hardsigmoid")
        n.conv_bn(p + str(j + 1), exp, cout, 1, 1, None)
        if res:
            n.ops.append(dict(kind="add", numel=n.B * cout * n.h ** 2))
    c = cfg[-1][3]
    n.conv_bn("features.%d" % (len(cfg) + 1), c, 6 * c, 1, 1, "hardswish")
    n.head(6 * c, hidden=last)


EFFNET = {"efficientnet_b%d" % i: v for i, v in enumerate(
    [(1.0, 1.0), (1.0, 1.1), (1.1, 1.2), (1.2, 1.4), (1.4, 1.8), (1.6, 2.2), (1.8, 2.6), (2.0, 3.1)])}


def efficientnet(n, width, depth):
    base = [(1, 3, 1, 32, 16, 1), (6, 3, 2, 16, 24, 2), (6, 5, 2, 24, 40, 2), (6, 3, 2, 40, 80, 3),
            (6, 5, 1, 80, 112, 3), (6, 5, 2, 112, 192, 4), (6, 3, 1, 192, 320, 1)]
    cfg = [(e, k, s, make_divisible(i * width), make_divisible(o * width), int(math.ceil(r * depth)))
           for e, k, s, i, o, r in base]
    total, bid = sum(c[5] for c in cfg), 0
    n.conv_bn("features.0", 3, cfg[0][3], 3, 2, "silu")
    for si, (e, k, s, cin0, cout, reps) in enumerate(cfg, 1):
        for r in range(reps):
            cin, stride = (cin0, s) if r == 0 else (cout, 1)
            exp, p, j = make_divisible(cin * e), "features.%d.%d.block." % (si, r), 0
            res = stride == 1 and cin == cout
            sd = 0.2 * bid / total
            if res:
                n.ops.append(dict(kind="fanout", numel=n.B * cin * n.h ** 2))
            if exp != cin:
                n.conv_bn(p + "0", cin, exp, 1, 1, "silu")
                j = 1
            n.conv_bn(p + str(j), exp, exp, k, stride, "silu", groups=exp)
            n.se(p + str(j + 1), exp, max(1, cin // 4), "silu", "sigmoid")
            n.conv_bn(p + str(j + 2), exp, cout, 1, 1, None)
            if res:
                if sd > 0:
                    n.ops.append(dict(kind="stochastic_depth", numel=n.B * cout * n.h ** 2))
                n.ops.append(dict(kind="add", numel=n.B * cout * n.h ** 2))
            bid += 1
    c = cfg[-1][4]
    n.conv_bn("features.%d" % (len(cfg) + 1), c, 4 * c, 1, 1, "silu")
    n.head(4 * c)


# efficientnet.py's _efficientnet_conf for V2: (block, expand ratio, kernel, stride, in, out, layers);
# "F" FusedMBConv, "M" MBConv; the last convolution to 1280 channels
EFFNET_V2 = {
    "efficientnet_v2_s": [("F", 1, 3, 1, 24, 24, 2), ("F", 4, 3, 2, 24, 48, 4), ("F", 4, 3, 2, 48, 64, 4),
                          ("M", 4, 3, 2, 64, 128, 6), ("M", 6, 3, 1, 128, 160, 9), ("M", 6, 3, 2, 160, 256, 15)],
    "efficientnet_v2_m": [("F", 1, 3, 1, 24, 24, 3), ("F", 4, 3, 2, 24, 48, 5), ("F", 4, 3, 2, 48, 80, 5),
                          ("M", 4, 3, 2, 80, 160, 7), ("M", 6, 3, 1, 160, 176, 14), ("M", 6, 3, 2, 176, 304, 18),
                          ("M", 6, 3, 1, 304, 512, 5)],
    "efficientnet_v2_l": [("F", 1, 3, 1, 32, 32, 4), ("F", 4, 3, 2, 32, 64, 7), ("F", 4, 3, 2, 64, 96, 7),
                          ("M", 4, 3, 2, 96, 192, 10), ("M", 6, 3, 1, 192, 224, 19), ("M", 6, 3, 2, 224, 384, 25),
                          ("M", 6, 3, 1, 384, 640, 7)]}


def efficientnet_v2(n, cfg):
    """FusedMBConv: a dense k x k convolution at the stride (BN, SiLU) to the expanded width then
    a 1x1 projection (BN), or at expand ratio 1 the k x k convolution alone to the output (BN,
    SiLU); MBConv as EfficientNet-B0's; stochastic depth 0.2 x block / blocks on the residual"""
    bid = 0   # stochastic depth 0 (no operation) at the first block alone
    n.conv_bn("features.0", 3, cfg[0][4], 3, 2, "silu")
    for si, (kind, e, k, s, cin0, cout, reps) in enumerate(cfg, 1):
        for r in range(reps):
            cin, stride = (cin0, s) if r == 0 else (cout, 1)
            exp, p = make_divisible(cin * e), "features.%d.%d.block." % (si, r)
            res = stride == 1 and cin == cout
            if res:
                n.ops.append(dict(kind="fanout", numel=n.B * cin * n.h ** 2))
            if kind == "F" and exp == cin:
                n.conv_bn(p + "0", cin, cout, k, stride, "silu")
            elif kind == "F":
                n.conv_bn(p + "0", cin, exp, k, stride, "silu")
                n.conv_bn(p + "1", exp, cout, 1, 1, None)
            else:
                n.conv_bn(p + "0", cin, exp, 1, 1, "silu")
                n.conv_bn(p + "1", exp, exp, k, stride, "silu", groups=exp)
                n.se(p + "2", exp, max(1, cin // 4), "silu", "sigmoid")
                n.conv_bn(p + "3", exp, cout, 1, 1, None)
            if res:
                if bid > 0:
                    n.ops.append(dict(kind="stochastic_depth", numel=n.B * cout * n.h ** 2))
                n.ops.append(dict(kind="add", numel=n.B * cout * n.h ** 2))
            bid += 1
    n.conv_bn("features.%d" % (len(cfg) + 1), cfg[-1][5], 1280, 1, 1, "silu")
    n.head(1280)


MNAS = {"mnasnet0_5": 0.5, "mnasnet0_75": 0.75, "mnasnet1_0": 1.0, "mnasnet1_3": 1.3}


def mnasnet(n, alpha):
    d = [round_to_multiple_of(x * alpha) for x in (32, 16, 24, 40, 80, 96, 192, 320)]
    n.conv("layers.0", 3, d[0], 3, 2)
    n.bn("layers.1", d[0], "relu")
    n.conv("layers.3", d[0], d[0], 3, 1, groups=d[0])
    n.bn("layers.4", d[0], "relu")
    n.conv("layers.6", d[0], d[1], 1, 1)
    n.bn("layers.7", d[1])
    stacks = [(3, 2, 3, 3), (5, 2, 3, 3), (5, 2, 6, 3), (3, 1, 6, 2), (5, 2, 6, 4), (3, 1, 6, 1)]
    for si, (k, s, e, reps) in enumerate(stacks):
        for r in range(reps):
            cin, cout, stride = (d[si + 1], d[si + 2], s) if r == 0 else (d[si + 2], d[si + 2], 1)
            p, mid = "layers.%d.%d.layers." % (8 + si, r), cin * e
            res = stride == 1 and cin == cout
            if res:
                n.ops.append(dict(kind="fanout", numel=n.B * cin * n.h ** 2))
            n.conv(p + "0", cin, mid, 1, 1)
            n.bn(p + "1", mid, "relu")
            n.conv(p + "3", mid, mid, k, stride, groups=mid)
            n.bn(p + "4", mid, "relu")
            n.conv(p + "6", mid, cout, 1, 1)
            n.bn(p + "7", cout)
            if res:
                n.ops.append(dict(kind="add", numel=n.B * cout * n.h ** 2))
    n.conv("layers.14", d[7], 1280, 1, 1)
    n.bn("layers.15", 1280, "relu")
    n.head(1280)


SHUFFLE = {"shufflenet_v2_x0_5": (48, 96, 192, 1024), "shufflenet_v2_x1_0": (116, 232, 464, 1024),
           "shufflenet_v2_x1_5": (176, 352, 704, 1024), "shufflenet_v2_x2_0": (244, 488, 976, 2048)}


def shufflenet(n, outs):
    """shufflenetv2.py: conv1 (3x3 s2, BN, ReLU), max pool, stages 2-4 of inverted residuals
    (stride 2 first: branch1 and branch2 on the input; then branch2 on half the channels), cat,
    channel shuffle; conv5, the mean, fc (this list's parameters; the op order is not checked)"""
    n.conv("conv1.0", 3, 24, 3, 2)
    n.bn("conv1.1", 24, "relu")
    n.h = (n.h + 2 - 3) // 2 + 1
    cin = 24
    for si, (reps, c) in enumerate(zip((4, 8, 4), outs[:3])):
        bf = c // 2
        for r in range(reps):
            p, h = "stage%d.%d." % (si + 2, r), n.h
            if r == 0:
                n.conv(p + "branch1.0", cin, cin, 3, 2, groups=cin)
                n.bn(p + "branch1.1", cin)
                n.conv(p + "branch1.2", cin, bf, 1, 1)
                n.bn(p + "branch1.3", bf, "relu")
                n.h = h
            n.conv(p + "branch2.0", cin if r == 0 else bf, bf, 1, 1)
            n.bn(p + "branch2.1", bf, "relu")
            n.conv(p + "branch2.3", bf, bf, 3, 2 if r == 0 else 1, groups=bf)
            n.bn(p + "branch2.4", bf)
            n.conv(p + "branch2.5", bf, bf, 1, 1)
            n.bn(p + "branch2.6", bf, "relu")
        cin = c
    n.conv("conv5.0", cin, outs[3], 1, 1)
    n.bn("conv5.1", outs[3], "relu")
    n.linear("fc", outs[3], 1000)


def build(model, batch=8, image=224):
    """Net of torchvision's model at batch x image x image."""
    n = Net(batch, image)
    if model == "mobilenet_v2":
        mobilenet_v2(n)
    elif model.startswith("mobilenet_v3_"):
        mobilenet_v3(n, model.endswith("small"))
    elif model in EFFNET:
        efficientnet(n, *EFFNET[model])
    elif model in EFFNET_V2:
        efficientnet_v2(n, EFFNET_V2[model])
    elif model in MNAS:
        mnasnet(n, MNAS[model])
    elif model in SHUFFLE:
        shufflenet(n, SHUFFLE[model])
    else:
        raise KeyError(model)
    return n


PUBLISHED = {"mobilenet_v2": 3504872, "mobilenet_v3_large": 5483032, "mobilenet_v3_small": 2542856,
             "efficientnet_b0": 5288548, "efficientnet_b1": 7794184, "efficientnet_b2": 9109994,
             "efficientnet_b3": 12233232, "efficientnet_b4": 19341616, "efficientnet_b5": 30389784,
             "efficientnet_b6": 43040704, "efficientnet_b7": 66347960, "mnasnet0_5": 2218512,
             "mnasnet0_75": 3170208, "mnasnet1_0": 4383312, "mnasnet1_3": 6282256,
             "shufflenet_v2_x0_5": 1366792, "shufflenet_v2_x1_0": 2278604, "shufflenet_v2_x1_5": 3503624,
             "shufflenet_v2_x2_0": 7393996, "efficientnet_v2_s": 21458488, "efficientnet_v2_m": 54139356,
             "efficientnet_v2_l": 118515272}
if __name__ == "__main__":
    for m, p in PUBLISHED.items():
        n = build(m)
        print(m, sum(n.params.values()), p, len(n.params), "OK" if sum(n.params.values()) == p else "BAD")


GROUPED_CLASSES = ((3, 1), (3, 2), (5, 1), (5, 2))   # the depthwise (kernel, stride) these models use
MOBILE_ROWS = ("relu6", "silu", "sigmoid", "hardswish", "hardsigmoid", "se_scale", "avgpool_global",
               "stochastic_depth", "se_scale_nchw", "avgpool_global_nchw", "clone")


def conv_table(dtype, layout, kernel, stride, us, grouped=False, nchw=False):
    """A hand-made conv table of one grid point at m = n = k = 1: every (m, n, k) then costs
    us x m x n x k (fu_compute's efficiency is the point's). grouped: a depthwise table, whose
    per-group K axis (k in fwd, n in dgrad and wgrad) must hold kernel x kernel alone, so the
    point is there at us x kernel^2, the same efficiency."""
    t = {"dtype": dtype, "layout": layout, "kernel": kernel, "stride": stride, "m": [1], "n": [1], "k": [1],
         "us": [us]}
    if grouped:
        t["groups"] = "grouped"
        t["k" if layout == "fwd" else "n"] = [kernel * kernel]
        t["us"] = [us * kernel * kernel]
    if nchw:
        t["format"] = "nchw"
    return t


def op_row(op, dtype, fwd, bwd, host=0.0):
    """A hand-made op row of one point at 1 element: fwd x numel forward, bwd x numel backward."""
    return {"op": op, "dtype": dtype, "numel": [1], "fwd_us": [fwd], "bwd_us": [bwd], "host_fwd_us": host,
            "host_bwd_us": host}


def with_mobile_tables(prof, skip=()):
    """prof (modified) with hand-made grouped tables (both dtypes, layouts and formats) and the
    new op rows (bf16, fp32) in place of its own, less those named in skip ("grouped" drops every
    grouped table)."""
    comp = prof["compute"]
    # the bundled profile's own (derived from the H100's) go first: the hand-made ones alone
    comp["conv"] = [t for t in comp["conv"] if t.get("groups") != "grouped"]
    comp["ops"] = [o for o in comp["ops"] if o["op"] not in MOBILE_ROWS]
    if "grouped" not in skip:
        comp["conv"] += [conv_table(dt, lay, k, s, 1e-5 * (k + s), True, nchw)
                         for dt in ("bf16", "tf32") for lay in ("fwd", "dgrad", "wgrad")
                         for k, s in GROUPED_CLASSES for nchw in (False, True)]
    comp["ops"] += [op_row(op, dt, 1e-4, 2e-4, 5.0) for op in MOBILE_ROWS if op not in skip
                    for dt in ("bf16", "fp32")]
    return prof
