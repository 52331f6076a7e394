#!/usr/bin/env python3
"""cnn_deep.py: fusim workload --cnn prices every bottleneck block past ResNet-50's blocks in its
stage (ResNet-101: layer3.6-22; ResNet-152: layer2.4-7 and layer3.6-35) by the profile's
tv_resnet_block_deep row (tools/cnn_depth.py) where it has one in the step's mode, by hand on the
--ops listing (a block's host costs add up to the row). A block in the listing: its input's
fan-out (grad_sum), its convolutions and norms (parameters layerS.B.*), relus, the add; the stem
(conv1, bn1, maxpool) and the head (the average pool's bias_grad, fc, the loss) belong to none.
With a hand-made bf16 row of 111 / 222 us: the 17 (34) blocks past add up to it, every other
block and the stem and head keep what the profile without the row gives; in TF32 (the row is
bf16 only), ResNet-50 (no block past its own), and with a row not above 0 nothing moves; a
reference step (--host-ref) at twice the profile's backward time doubles the deep blocks'
backward too. The ResNeXts are ResNets of grouped conv2s (hand-made grouped tables of wider groups
here): resnext101_32x8d's 17 blocks past ResNet-50's take the row as ResNet-101's do,
resnext50_32x4d none.
Usage: cnn_deep.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regnet_arch  # noqa: E402
from wlcheck import check, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
regnet_arch.with_gconv_tables(prof)
DEEP = (111.0, 222.0)
R50 = {1: 3, 2: 4, 3: 6, 4: 3}  # ResNet-50's blocks per stage
ops = [t for t in prof["compute"]["ops"] if t["op"] != "tv_resnet_block_deep"]
held = {t["dtype"]: t for t in ops if t["op"] == "tv_resnet50_held"}
paths = {}
for name, extra in (("row", [DEEP]), ("none", []), ("zero", [(111.0, 0.0)])):
    prof["compute"]["ops"] = ops + [{"op": "tv_resnet_block_deep", "dtype": "bf16", "numel": [], "fwd_us": [],
                                     "bwd_us": [], "host_fwd_us": f, "host_bwd_us": b} for f, b in extra]
    paths[name] = os.path.join(tmp, name + ".json")
    with open(paths[name], "w") as fh:
        json.dump(prof, fh)
TOL = 0.01  # the listing's 3 decimals over a block's dozen operations


def blocks(model, p, prec="autocast-bf16", extra=()):
    """{block ("layerS.B", or "stem+head"): [host fwd, host bwd] sums} of model at batch 4, 64 px"""
    _, lst = workload(fusim, ["--cnn", model, "--micro-batch", "4", "--image", "64", "--precision", prec]
                      + list(extra), p, tmp)
    out, cur = {}, "stem+head"
    lst = lst or []
    for i, x in enumerate(lst):
        par = x["param"]
        if x["op"] == "grad_sum":  # the next block's input
            nxt = next((y["param"] for y in lst[i + 1:] if y["param"]), "")
            cur = ".".join(nxt.split(".")[:2]) if nxt.startswith("layer") else "stem+head"
        elif par:
            cur = ".".join(par.split(".")[:2]) if par.startswith("layer") else "stem+head"
        elif x["op"] == "bias_grad":  # the average pool, after the last block
            cur = "stem+head"
        s = out.setdefault(cur, [0.0, 0.0])
        s[0] += float(x["host_fwd_us"])
        s[1] += float(x["host_bwd_us"])
    return out


def past(blk):
    s, b = blk[len("layer"):].split(".")
    return int(b) >= R50[int(s)]


for model, npast in (("resnet101", 17), ("resnet152", 34), ("resnet50", 0), ("resnext101_32x8d", 17),
                     ("resnext50_32x4d", 0)):
    base = blocks(model, paths["none"])
    got = blocks(model, paths["row"])
    deep = [k for k in got if k != "stem+head" and past(k)]
    check("%s: blocks past ResNet-50's" % model, len(deep), npast, 0)
    check("%s: the same blocks with and without the row" % model, sorted(got) == sorted(base), True, 0)
    for k in sorted(got):
        for j, what in ((0, "fwd"), (1, "bwd")):
            want = DEEP[j] if k in deep else base.get(k, [0, 0])[j]
            check("%s bf16 row: %s host %s" % (model, k, what), got[k][j], want, TOL)
    for name, prec in (("row", "tf32"), ("zero", "autocast-bf16")):
        other = blocks(model, paths[name], prec)
        ref = blocks(model, paths["none"], prec) if prec != "autocast-bf16" else base
        for k in sorted(ref):
            for j, what in ((0, "fwd"), (1, "bwd")):
                check("%s %s %s: %s host %s unchanged" % (model, name, prec, k, what), other.get(k, [0, 0])[j],
                      ref[k][j], TOL)
# the reference step at twice the profile's backward time: the deep blocks' backward doubles too
h = held["bf16"]
got = blocks("resnet101", paths["row"], extra=["--host-ref-fwd", "%.4f" % h["host_fwd_us"],
                                               "--host-ref-bwd", "%.4f" % (2 * h["host_bwd_us"])])
for k in ("layer3.6", "layer3.22"):
    check("ref x2: %s host bwd" % k, got.get(k, [0, 0])[1], 2 * DEEP[1], 2 * TOL)
    check("ref x2: %s host fwd" % k, got.get(k, [0, 0])[0], DEEP[0], TOL)
finish()
