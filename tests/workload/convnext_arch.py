"""convnext_arch.py: torchvision 0.29's ConvNeXt (convnext.py) written out layer by layer in Python,
independently of fusim's C builder (sim/fu_build_convnext.c), for the tests: each model's
parameters by name, its forward operations in order (a training step's, with the layout copies
torch.profiler shows on the CPU for an NCHW or a channels-last loop) and the bytes autograd keeps
for backward in fp32; and the hand-made tables that stand in for the profile's missing ones."""

# block settings: the stages' channels, blocks, stochastic depth's last probability
NETS = {"convnext_tiny": ((96, 192, 384, 768), (3, 3, 9, 3), 0.1),
        "convnext_small": ((96, 192, 384, 768), (3, 3, 27, 3), 0.4),
        "convnext_base": ((128, 256, 512, 1024), (3, 3, 27, 3), 0.5),
        "convnext_large": ((192, 384, 768, 1536), (3, 3, 27, 3), 0.5)}
PUBLISHED = {"convnext_tiny": 28589128, "convnext_small": 50223688, "convnext_base": 88591464,
             "convnext_large": 197767336}


class Net:
    """ops: dicts with kind and sizes; params by name; saved: the bytes autograd keeps, fp32, or
    under CUDA's autocast (ac): what a bf16 operation keeps (a convolution's, a Linear's input, its
    bf16 cast; GELU's input; the layer scale's branch) 2 bytes an element, LayerNorm (autocast's
    fp32 list) its fp32 input."""

    def __init__(self, batch, image, nchw, ac=False):
        self.B, self.h, self.nchw, self.ops, self.params, self.saved = batch, image, nchw, [], {}, 0
        self.eb = 2 if ac else 4

    def conv(self, name, cin, cout, k, s, groups=1):
        """a convolution with a bias, padding (k - 1) // 2 at odd k, 0 at the patchify ones; keeps its input"""
        pad = (k - 1) // 2 if k % 2 else 0
        hin = self.h
        self.h = (hin + 2 * pad - k) // s + 1
        self.params[name + ".weight"], self.params[name + ".bias"] = cout * (cin // groups) * k * k, cout
        self.ops.append(dict(kind="gconv" if groups > 1 else "conv", name=name, cin=cin, cout=cout, k=k, s=s,
                             groups=groups, hin=hin, hout=self.h, B=self.B))
        self.saved += self.eb * self.B * cin * hin * hin

    def ln(self, name, c, rows):
        """LayerNorm over c channels: keeps its input and two fp32 statistics a row"""
        self.params[name + ".weight"] = self.params[name + ".bias"] = c
        self.ops.append(dict(kind="layernorm", numel=rows * c, c=c, rows=rows))
        self.saved += 4 * rows * c + 8 * rows

    def linear(self, name, din, dout, rows):
        self.params[name + ".weight"], self.params[name + ".bias"] = din * dout, dout
        self.ops.append(dict(kind="linear", name=name, din=din, dout=dout, rows=rows))
        self.saved += self.eb * rows * din

    def op(self, kind, numel, saved=0, **kw):
        self.ops.append(dict(kind=kind, numel=numel, **kw))
        self.saved += saved


def build(model, batch=8, image=224, nchw=True, ac=False):
    dims, depths, sd_last = NETS[model]
    n = Net(batch, image, nchw, ac)
    B = batch
    n.conv("features.0.0", 3, dims[0], 4, 4)
    if nchw:   # LayerNorm2d's copy to NHWC (and again in backward); the stem's gradient back to NCHW
        n.op("copy_t", B * dims[0] * n.h ** 2, fwd=1, bwd=1)
        n.op("copy_t", B * dims[0] * n.h ** 2, fwd=0, bwd=1)
    n.ln("features.0.1", dims[0], B * n.h ** 2)
    total, bid, f = sum(depths), 0, 1
    for s, (c, reps) in enumerate(zip(dims, depths)):
        if s:
            n.ln("features.%d.0" % f, dims[s - 1], B * n.h ** 2)
            n.conv("features.%d.1" % f, dims[s - 1], c, 2, 2)
            f += 1
            if s == 3:   # the last stage's NCHW gradient to channels-last for this convolution
                n.op("copy_t", B * c * n.h ** 2, fwd=0, bwd=1)
        for r in range(reps):
            p, numel, rows = "features.%d.%d." % (f, r), B * c * n.h ** 2, B * n.h ** 2
            sd = sd_last * bid / (total - 1)
            n.op("fanout", numel, mixed=s == 3)
            n.conv(p + "block.0", c, c, 7, 1, groups=c)
            n.ln(p + "block.2", c, rows)
            n.linear(p + "block.3", c, 4 * c, rows)
            n.op("gelu", 4 * numel, n.eb * 4 * numel)
            n.linear(p + "block.5", 4 * c, c, rows)
            if s == 3:   # UnsafeViewBackward's copy of the NCHW gradient
                n.op("copy_t", numel, fwd=0, bwd=1)
            n.params[p + "layer_scale"] = c
            n.op("se_scale", numel, n.eb * numel)   # gamma * branch keeps the branch
            if sd > 0:
                n.op("stochastic_depth", numel, 4 * B)
            n.op("add", numel)
            bid += 1
        f += 1
    n.op("avgpool_global", B * dims[3] * n.h ** 2)
    n.ln("classifier.0", dims[3], B)
    n.linear("classifier.2", dims[3], 1000, B)
    n.op("cross_entropy", B * 1000, 4 * B * 1000)
    return n


CLASSES = ((4, 4), (2, 2))   # the dense patchify classes the builder needs


def conv_table(dtype, layout, kernel, stride, us, grouped=False, nchw=False):
    """mobile_arch.conv_table's hand-made one-point table (us x m x n x k)"""
    import mobile_arch
    return mobile_arch.conv_table(dtype, layout, kernel, stride, us, grouped, nchw)


def with_convnext_tables(prof, skip=()):
    """prof (modified) with hand-made dense k4s4 and k2s2 tables and depthwise 7x7 tables (bf16
    and tf32, all layouts, both formats) in place of any of its own, less those skip names
    ("k4s4", "k2s2", "dw7s1")."""
    comp = prof["compute"]
    comp["conv"] = [t for t in comp["conv"] if not ((t["kernel"], t["stride"]) in CLASSES
                                                    or (t.get("groups") == "grouped" and t["kernel"] == 7))]
    comp["conv"] += [conv_table(dt, lay, k, s, 1e-6 * (k + s), nchw=f) for dt in ("bf16", "tf32")
                     for lay in ("fwd", "dgrad", "wgrad") for k, s in CLASSES for f in (False, True)
                     if "k%ds%d" % (k, s) not in skip]
    comp["conv"] += [conv_table(dt, lay, 7, 1, 3e-5, True, f) for dt in ("bf16", "tf32")
                     for lay in ("fwd", "dgrad", "wgrad") for f in (False, True) if "dw7s1" not in skip]
    return prof


if __name__ == "__main__":
    for m, p in PUBLISHED.items():
        n = build(m)
        print(m, sum(n.params.values()), p, len(n.params), "%.1f MiB" % (n.saved / 2 ** 20))
