"""regnet_arch.py: torchvision's ResNeXts (resnet.py) and RegNets (regnet.py) written out layer by
layer in Python, independently of fusim's C builders (sim/fu_build_cnn.c, sim/fu_build_regnet.c),
for the tests: each model's parameters by name and its forward operations in order (what a
training step runs), on mobile_arch.Net. The RegNets' stage widths, depths and group widths are
computed from regnet.py's formulas here and checked against TORCHVISION_STAGES, what torchvision
0.29's BlockParams.from_init_params gives (printed from /tmp/tv's torchvision, session 45)."""
import math

from mobile_arch import Net, conv_table, make_divisible

# resnet.py: block counts, groups, width_per_group
RESNEXT = {"resnext50_32x4d": ((3, 4, 6, 3), 32, 4), "resnext101_32x8d": ((3, 4, 23, 3), 32, 8),
           "resnext101_64x4d": ((3, 4, 23, 3), 64, 4)}

# regnet.py: depth, w_0, w_a, w_m, group_width, se_ratio
REGNET = {
    "regnet_y_400mf": (16, 48, 27.89, 2.09, 8, 0.25), "regnet_y_800mf": (14, 56, 38.84, 2.4, 16, 0.25),
    "regnet_y_1_6gf": (27, 48, 20.71, 2.65, 24, 0.25), "regnet_y_3_2gf": (21, 80, 42.63, 2.66, 24, 0.25),
    "regnet_y_8gf": (17, 192, 76.82, 2.19, 56, 0.25), "regnet_y_16gf": (18, 200, 106.23, 2.48, 112, 0.25),
    "regnet_y_32gf": (20, 232, 115.89, 2.53, 232, 0.25), "regnet_y_128gf": (27, 456, 160.83, 2.52, 264, 0.25),
    "regnet_x_400mf": (22, 24, 24.48, 2.54, 16, None), "regnet_x_800mf": (16, 56, 35.73, 2.28, 16, None),
    "regnet_x_1_6gf": (18, 80, 34.01, 2.25, 24, None), "regnet_x_3_2gf": (25, 88, 26.31, 2.25, 48, None),
    "regnet_x_8gf": (23, 80, 49.56, 2.88, 120, None), "regnet_x_16gf": (22, 216, 55.59, 2.1, 128, None),
    "regnet_x_32gf": (23, 320, 69.86, 2.0, 168, None)}

# torchvision 0.29's BlockParams.from_init_params(...): widths, depths, group widths
TORCHVISION_STAGES = {
    "regnet_y_400mf": ([48, 104, 208, 440], [1, 3, 6, 6], [8, 8, 8, 8]),
    "regnet_y_800mf": ([64, 144, 320, 784], [1, 3, 8, 2], [16, 16, 16, 16]),
    "regnet_y_1_6gf": ([48, 120, 336, 888], [2, 6, 17, 2], [24, 24, 24, 24]),
    "regnet_y_3_2gf": ([72, 216, 576, 1512], [2, 5, 13, 1], [24, 24, 24, 24]),
    "regnet_y_8gf": ([224, 448, 896, 2016], [2, 4, 10, 1], [56, 56, 56, 56]),
    "regnet_y_16gf": ([224, 448, 1232, 3024], [2, 4, 11, 1], [112, 112, 112, 112]),
    "regnet_y_32gf": ([232, 696, 1392, 3712], [2, 5, 12, 1], [232, 232, 232, 232]),
    "regnet_y_128gf": ([528, 1056, 2904, 7392], [2, 7, 17, 1], [264, 264, 264, 264]),
    "regnet_x_400mf": ([32, 64, 160, 400], [1, 2, 7, 12], [16, 16, 16, 16]),
    "regnet_x_800mf": ([64, 128, 288, 672], [1, 3, 7, 5], [16, 16, 16, 16]),
    "regnet_x_1_6gf": ([72, 168, 408, 912], [2, 4, 10, 2], [24, 24, 24, 24]),
    "regnet_x_3_2gf": ([96, 192, 432, 1008], [2, 6, 15, 2], [48, 48, 48, 48]),
    "regnet_x_8gf": ([80, 240, 720, 1920], [2, 5, 15, 1], [80, 120, 120, 120]),
    "regnet_x_16gf": ([256, 512, 896, 2048], [2, 6, 13, 1], [128, 128, 128, 128]),
    "regnet_x_32gf": ([336, 672, 1344, 2520], [2, 7, 13, 1], [168, 168, 168, 168])}

# torchvision's published parameter counts (checked with torchvision 0.29 on the CPU)
PUBLISHED = {"resnext50_32x4d": 25028904, "resnext101_32x8d": 88791336, "resnext101_64x4d": 83455272,
             "regnet_y_400mf": 4344144, "regnet_y_800mf": 6432512, "regnet_y_1_6gf": 11202430,
             "regnet_y_3_2gf": 19436338, "regnet_y_8gf": 39381472, "regnet_y_16gf": 83590140,
             "regnet_y_32gf": 145046770, "regnet_y_128gf": 644812894, "regnet_x_400mf": 5495976,
             "regnet_x_800mf": 7259656, "regnet_x_1_6gf": 9190136, "regnet_x_3_2gf": 15296552,
             "regnet_x_8gf": 39572648, "regnet_x_16gf": 54278536, "regnet_x_32gf": 107811560}


def regnet_stages(depth, w_0, w_a, w_m, group_width):
    """BlockParams.from_init_params and _adjust_widths_groups_compatibilty (bottleneck multiplier
    1): Python's round() rounds half to even, as torch.round does"""
    caps = [round(math.log((i * w_a + w_0) / w_0) / math.log(w_m)) for i in range(depth)]
    block_widths = [int(round(w_0 * w_m ** c / 8)) * 8 for c in caps]
    widths, depths = [], []
    for w in block_widths:
        if widths and widths[-1] == w:
            depths[-1] += 1
        else:
            widths.append(w)
            depths.append(1)
    groups = [min(group_width, w) for w in widths]
    return [make_divisible(w, g) for w, g in zip(widths, groups)], depths, groups


def residual_end(n, c):
    """a residual block's add and its in-place ReLU, c channels"""
    n.ops.append(dict(kind="add", numel=n.B * c * n.h ** 2))
    n.act("relu", n.B * c * n.h ** 2, inplace=True)


def fc_head(n, pool, c):
    """the global average pool (fusim's row: pool), fc, the loss"""
    n.ops.append(dict(kind=pool, numel=n.B * c * n.h ** 2))
    n.linear("fc", c, 1000)
    n.ops.append(dict(kind="cross_entropy", numel=n.B * 1000))


def resnext(n, blocks, groups, wpg):
    """resnet.py's ResNet of Bottleneck blocks (conv2 grouped): the stem, max pool, four layers,
    the average pool (a reduction: fusim's bias_grad row), fc"""
    n.conv("conv1", 3, 64, 7, 2)
    n.bn("bn1", 64, "relu")
    hp = (n.h + 2 - 3) // 2 + 1
    n.ops.append(dict(kind="maxpool", numel=n.B * 64 * n.h ** 2))
    n.h = hp
    cin = 64
    for li, (planes, reps) in enumerate(zip((64, 128, 256, 512), blocks)):
        for b in range(reps):
            s, p, h = (2 if li and b == 0 else 1), "layer%d.%d." % (li + 1, b), n.h
            width, cout = planes * wpg // 64 * groups, planes * 4
            n.ops.append(dict(kind="fanout", numel=n.B * cin * h ** 2))
            n.conv(p + "conv1", cin, width, 1, 1)
            n.bn(p + "bn1", width, "relu")
            n.conv(p + "conv2", width, width, 3, s, groups=groups)
            n.bn(p + "bn2", width, "relu")
            n.conv(p + "conv3", width, cout, 1, 1)
            n.bn(p + "bn3", cout)
            if b == 0:
                h2, n.h = n.h, h
                n.conv(p + "downsample.0", cin, cout, 1, s)
                n.bn(p + "downsample.1", cout)
                n.h = h2
            residual_end(n, cout)
            cin = cout
    fc_head(n, "bias_grad", cin)


def regnet(n, depth, w_0, w_a, w_m, group_width, se_ratio):
    """regnet.py: SimpleStemIN, the stages' ResBottleneckBlocks (proj(x) + f(x): the projection
    first), AdaptiveAvgPool2d, fc"""
    n.conv_bn("stem", 3, 32, 3, 2, "relu")
    cin = 32
    for si, (w, d, g) in enumerate(zip(*regnet_stages(depth, w_0, w_a, w_m, group_width)), 1):
        for b in range(d):
            s, p, h = (2 if b == 0 else 1), "trunk_output.block%d.block%d-%d." % (si, si, b), n.h
            n.ops.append(dict(kind="fanout", numel=n.B * cin * h ** 2))
            if cin != w or s != 1:
                n.conv_bn(p + "proj", cin, w, 1, s, None)
                n.h = h
            n.conv_bn(p + "f.a", cin, w, 1, 1, "relu")
            n.conv_bn(p + "f.b", w, w, 3, s, "relu", groups=w // g)
            if se_ratio:
                n.se(p + "f.se", w, int(round(se_ratio * cin)), "relu", "sigmoid")
            n.conv_bn(p + "f.c", w, w, 1, 1, None)
            residual_end(n, w)
            cin = w
    fc_head(n, "avgpool_global", cin)


def build(model, batch=8, image=224):
    """Net of torchvision's model at batch x image x image."""
    n = Net(batch, image)
    if model in RESNEXT:
        resnext(n, *RESNEXT[model])
    elif model in REGNET:
        regnet(n, *REGNET[model])
    else:
        raise KeyError(model)
    return n


GCONV_CLASSES = ((3, 1), (3, 2))   # the grouped (kernel, stride) classes of wider groups these models use


def gconv_table(dtype, layout, kernel, stride, us, nchw=False):
    """A hand-made grouped table of wider groups: one grid point at m = n = k = 1 (the per-group
    K axis then holds 1, not kernel x kernel: fusim keys it as wider groups), every (m, n, k)
    costing us x m x n x k."""
    return dict(conv_table(dtype, layout, kernel, stride, us, nchw=nchw), groups="grouped")


def is_wider(t):
    """A profile's grouped table of wider groups (its per-group K axis not kernel x kernel alone)."""
    ax = t["k"] if t["layout"] == "fwd" else t["n"]
    return t.get("groups") == "grouped" and any(v != t["kernel"] ** 2 for v in ax)


def with_gconv_tables(prof, us=lambda k, s: 1e-5 * (k + s + 1)):
    """prof (modified) with hand-made grouped tables of wider groups (both dtypes, layouts and
    formats; us(kernel, stride) per m x n x k) in place of its own."""
    comp = prof["compute"]
    comp["conv"] = [t for t in comp["conv"] if not is_wider(t)]
    comp["conv"] += [gconv_table(dt, lay, k, s, us(k, s), nchw)
                     for dt in ("bf16", "tf32") for lay in ("fwd", "dgrad", "wgrad")
                     for k, s in GCONV_CLASSES for nchw in (False, True)]
    return prof


if __name__ == "__main__":
    for m, p in PUBLISHED.items():
        n = build(m)
        print(m, sum(n.params.values()), p, len(n.params), "OK" if sum(n.params.values()) == p else "BAD")
