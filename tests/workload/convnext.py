#!/usr/bin/env python3
"""convnext.py: fusim workload --cnn builds torchvision's ConvNeXt (sim/fu_build_convnext.c) as
torchvision 0.29 does:
- parameters: each model's total against torchvision's count (convnext_tiny 28,589,128, _small
  50,223,688, _base 88,591,464, _large 197,767,336) and every tensor by name and size against
  convnext_arch.py's own layer-by-layer description; by hand: convnext_tiny's stem 96 x 3 x 4 x 4,
  a block's layer scale (96), its first Linear 384 x 96, the last downsampling 768 x 384 x 2 x 2;
- operations: convnext_tiny's --ops listing in convnext_arch's order, NCHW (with the stem's layout
  copies) and channels-last (without them);
- activations: convnext_tiny's in TF32 and under autocast against convnext_arch's count;
- under autocast, the classifier's forward by hand (its fp32 input's cast included);
- the permutes' host costs by the view row (46 in convnext_tiny);
- forward by hand: convnext_tiny at batch 2 on 64-pixel images in TF32 on a hand-made profile whose
  conv and GEMM tables are one point at m = n = k = 1 (us x m x n x k), whose memory-bound rows are
  one point at one element (us x numel) and whose host costs are 0: the sum over convnext_arch's
  operation list of those products, in both layouts;
- refused, one line on stderr, exit 65, nothing written: a profile without the k4s4 tables (NCHW:
  the stem), without the k2s2 ones (channels-last: the downsampling; no implicit GEMM stands in),
  without the depthwise 7x7 ones; each line names what is missing and the calibration.
Usage: convnext.py FUSIM"""
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import convnext_arch  # noqa: E402
from mobile_arch import op_row  # noqa: E402
from wlcheck import check, cnn_params, fails, finish, refused, same_order, start  # noqa: E402

fusim, tmp, base = start()
DENSE = {"fwd": 2e-6, "dgrad": 3e-6, "wgrad": 4e-6}      # us per m x n x k, the dense 1x1 and 3x3 classes
GEMM = {"fwd": 5e-6, "dgrad": 6e-6, "wgrad": 7e-6}       # the Linear layers
ROWS = {"layernorm": 3e-4, "add": 5e-4, "gelu": 7e-4, "cross_entropy": 11e-4, "se_scale": 13e-4,
        "avgpool_global": 17e-4, "copy_t": 19e-4, "stochastic_depth": 23e-4, "add_t": 29e-4,
        "bias_grad": 31e-4, "cast": 37e-4}                           # us per element, forward (backward twice)


def profile(name, skip=()):
    """The hand-made profile (less the conv classes skip names) written as name; its path."""
    p = json.loads(json.dumps(base))
    comp = p["compute"]
    comp["conv"] = [convnext_arch.conv_table(dt, lay, k, s, DENSE[lay]) for dt in ("tf32", "bf16") for lay in DENSE
                    for k, s in ((1, 1), (3, 1))]
    convnext_arch.with_convnext_tables(p, tuple(skip))
    comp["gemm"] = [{"dtype": dt, "layout": lay, "m": [1], "n": [1], "k": [1], "us": [us]} for lay, us in GEMM.items()
                    for dt in ("tf32", "bf16")]
    comp["gemm_unaligned"] = []
    # no ResNet-50 host scaling, no LayerNorm by width (one table, by element count), host costs 0
    comp["ops"] = [dict(t, host_fwd_us=0.0, host_bwd_us=0.0) for t in comp["ops"]
                   if not t["op"].startswith(("tv_", "layernorm_w")) and t["op"] not in ROWS]
    comp["ops"] += [op_row(op, dt, us, 2 * us) for op, us in ROWS.items() for dt in ("fp32", "bf16")]
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(p, f)
    return path


def by_hand(net):
    """Forward's device time of convnext_arch's operation list on the hand-made tables."""
    total = 0.0
    for o in net.ops:
        if o["kind"] in ("conv", "gconv"):
            m, k = o["B"] * o["hout"] ** 2, (o["cin"] // o["groups"]) * o["k"] ** 2
            us = 3e-5 if o["kind"] == "gconv" else 1e-6 * (o["k"] + o["s"])   # with_convnext_tables'
            total += us * m * o["cout"] * k + ROWS["add"] * m * o["cout"]     # the bias: an add
        elif o["kind"] == "linear":
            total += GEMM["fwd"] * o["rows"] * o["dout"] * o["din"]
        elif o["kind"] == "copy_t":
            total += o["fwd"] * ROWS["copy_t"] * o["numel"]
        elif o["kind"] != "fanout":   # a gradient sum: backward only
            total += ROWS[o["kind"]] * o["numel"]
    return total


# parameters, all four models (their tables hand-made: the times do not matter here)
full = profile("full")
grads = {}
for model, published in convnext_arch.PUBLISHED.items():
    grads[model] = cnn_params(fusim, model, ["--micro-batch", "8", "--precision", "tf32", "--profile", full],
                              os.path.join(tmp, model + ".json"), published, convnext_arch.build(model).params) or {}
for name, numel in (("features.0.0.weight", 96 * 3 * 16), ("features.1.0.layer_scale", 96),
                    ("features.1.0.block.3.weight", 384 * 96), ("features.6.1.weight", 768 * 384 * 4)):
    check("convnext_tiny " + name, grads.get("convnext_tiny", {}).get(name, -1), numel, 0)

# operations in order and forward by hand, both layouts
LISTED = {"gconv": "conv", "fanout": "grad_sum"}
for layout, nchw in (("NCHW", True), ("channels-last", False)):
    out, ops = os.path.join(tmp, "w.json"), os.path.join(tmp, "ops.csv")
    r = subprocess.run([fusim, "workload", "--cnn", "convnext_tiny", "--micro-batch", "2", "--image", "64", "--precision",
                        "tf32", "--profile", full, "--out", out, "--ops", ops]
                       + (["--memory-format", "nchw"] if nchw else []), capture_output=True, text=True)
    check(layout + ": exit", r.returncode, 0, 0)
    if r.returncode:
        fails.append("stderr: " + r.stderr.strip())
        continue
    net = convnext_arch.build("convnext_tiny", 2, 64, nchw)
    with open(ops) as f:
        rows = list(csv.DictReader(f))
    got = [x["op"] for x in rows]
    want = [LISTED.get(o["kind"], o["kind"]) for o in net.ops]
    same_order(layout, got, want)
    check(layout + ": forward, by hand", json.load(open(out))["fwd_us"], by_hand(net), 1e-3, 1e-6)


# activations by mechanism: TF32 (fp32) and under autocast (the fp32 LayerNorms, the bf16 casts
# the convolutions and Linear layers keep), against convnext_arch's own count
for prec, ac in (("tf32", False), ("autocast-bf16", True)):
    r = subprocess.run([fusim, "workload", "--cnn", "convnext_tiny", "--micro-batch", "2", "--image", "64", "--precision",
                        prec, "--profile", full, "--out", out], capture_output=True, text=True)
    check(prec + ": exit", r.returncode, 0, 0)
    if r.returncode == 0:
        check(prec + ": activations", json.load(open(out))["memory"]["activations_bytes"],
              convnext_arch.build("convnext_tiny", 2, 64, False, ac).saved, 0.5)
# under autocast the classifier's input, LayerNorm2d's fp32 output, is cast to bf16 by the Linear:
# its forward is the GEMM and three casts (the input B x C, the weight C x 1000, the bias)
ops = os.path.join(tmp, "ops.csv")
r = subprocess.run([fusim, "workload", "--cnn", "convnext_tiny", "--micro-batch", "2", "--image", "64", "--precision",
                    "autocast-bf16", "--profile", full, "--out", out, "--ops", ops], capture_output=True, text=True)
check("autocast: exit", r.returncode, 0, 0)
if r.returncode == 0:
    fc = [x for x in csv.DictReader(open(ops)) if x["param"] == "classifier.2.weight"]
    check("autocast: classifier.2 forward", float(fc[0]["fwd_us"]) if fc else -1,
          GEMM["fwd"] * 2 * 1000 * 768 + ROWS["cast"] * (2 * 768 + 768 * 1000 + 1000), 0.01)
# the permutes (views, no kernel): the block's two Permute modules and LayerNorm2d's two (the stem's,
# the three downsamplings', the head's) on the host at the view row: 18 x 2 + 5 x 2 = 46 calls
# forward and as many PermuteBackward nodes; every other host cost of the hand-made profile is 0
pv = json.load(open(full))
pv["compute"]["ops"] = [o for o in pv["compute"]["ops"] if o["op"] != "view"] + [
    {"op": "view", "dtype": dt, "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": 1.0, "host_bwd_us": 2.0}
    for dt in ("fp32", "bf16")]
pvf = os.path.join(tmp, "view.json")
json.dump(pv, open(pvf, "w"))
r = subprocess.run([fusim, "workload", "--cnn", "convnext_tiny", "--micro-batch", "2", "--image", "64", "--precision",
                    "tf32", "--profile", pvf, "--out", out, "--ops", ops], capture_output=True, text=True)
check("permutes: exit", r.returncode, 0, 0)
if r.returncode:
    fails.append("stderr: " + r.stderr.strip())
else:
    rows = list(csv.DictReader(open(ops)))
    check("permutes: host forward", sum(float(x["host_fwd_us"]) for x in rows), 46, 0.01)
    check("permutes: host backward", sum(float(x["host_bwd_us"]) for x in rows), 92, 0.01)
args = ["--cnn", "convnext_tiny", "--micro-batch", "2", "--image", "64", "--precision", "tf32"]
refused(fusim, tmp, "NCHW without k4s4", args + ["--memory-format", "nchw"], profile("no_k4s4", ("k4s4",)),
        ["k4 s4 nchw", "--conv-classes k4s4,k2s2,dw7s1"])
refused(fusim, tmp, "channels-last without k2s2", args, profile("no_k2s2", ("k2s2",)), ["k2 s2", "--conv-classes k4s4,k2s2,dw7s1"])
refused(fusim, tmp, "without the depthwise 7x7", args, profile("no_dw7", ("dw7s1",)), ["grouped conv tf32 fwd k7 s1", "dwconv", "dw7s1"])
finish()
