#!/usr/bin/env python3
"""mobile_handmade.py: fusim workload --cnn prices a depthwise-convolution CNN from the profile's
grouped conv tables and ops_mobile rows, by hand: mobilenet_v2 at batch 2 on 64-pixel images in
TF32 (no autocast casts) on a hand-made profile whose conv and GEMM tables are one grid point at
m = n = k = 1 (every product then costs its table's us x m x n x k), whose memory-bound rows are
one point at one element (us x numel) and whose host costs are 0 (no tv_resnet50_held row: the
GPU runs the operations back to back). Forward is then the sum over mobile_arch.py's own list of
torchvision's operations (not fusim's) of those products, and so is the --ops listing's; each
depthwise convolution's forward is its grouped table's product. MobileNetV3 large and small,
EfficientNet-B0, MNASNet 0.5 and EfficientNetV2-S list mobile_arch's operations in its order;
EfficientNetV2-S's forward (FusedMBConv's dense 3x3 convolutions, SE biases) by hand too.
Refused, one line on stderr, exit 65, nothing written: a profile without the grouped tables (the
line says "grouped conv"), one without the relu6 row (names it), and NCHW mobilenet_v3_small on a
profile without se_scale_nchw (names it; the channels-last row is no stand-in).
Usage: mobile_handmade.py FUSIM"""
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mobile_arch  # noqa: E402
from mobile_arch import conv_table, op_row  # noqa: E402
from wlcheck import check, fails, finish, refused, same_order, start  # noqa: E402

fusim, tmp, base = start()
DENSE = {"fwd": 2e-6, "dgrad": 3e-6, "wgrad": 4e-6}      # us per m x n x k, the dense classes
GEMM = {"fwd": 5e-6, "dgrad": 6e-6, "wgrad": 7e-6}       # the classifier's Linear
ROWS = {"batchnorm2d": 3e-4, "add": 5e-4, "dropout": 7e-4, "cross_entropy": 11e-4, "relu6": 13e-4,
        "avgpool_global": 17e-4, "clone": 19e-4}                          # us per element, forward (backward twice)


def profile(name, skip=(), nchw=False):
    """The hand-made profile (less what skip names) written as name; its path."""
    p = json.loads(json.dumps(base))
    comp = p["compute"]
    comp["conv"] = [conv_table(dt, lay, k, s, DENSE[lay], nchw=f) for dt in ("tf32", "bf16") for lay in DENSE
                    for k, s in ((1, 1), (3, 1), (3, 2)) for f in ((False, True) if nchw else (False,))]
    comp["gemm"] = [{"dtype": "tf32", "layout": lay, "m": [1], "n": [1], "k": [1], "us": [us]} for lay, us in GEMM.items()]
    comp["gemm_unaligned"] = []
    # host costs 0, no ResNet-50 host scaling, no batch norm by channels (one table, by element count)
    comp["ops"] = [dict(t, host_fwd_us=0.0, host_bwd_us=0.0) for t in comp["ops"]
                   if not t["op"].startswith(("tv_", "batchnorm2d_c", "batchnorm2d_nchw_c")) and t["op"] not in ROWS]
    mobile_arch.with_mobile_tables(p, tuple(skip))
    comp["ops"] = [t for t in comp["ops"] if t["op"] not in ROWS]   # these rows at this file's values
    comp["ops"] += [op_row(op, dt, us, 2 * us) for op, us in ROWS.items() if op not in skip for dt in ("fp32", "bf16")]
    comp["ops"] = [dict(t, host_fwd_us=0.0, host_bwd_us=0.0) for t in comp["ops"]]
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(p, f)
    return path


def by_hand(net):
    """Forward's device time of mobile_arch's operation list on the hand-made tables (the rows this
    file does not set at with_mobile_tables' 1e-4 an element; a convolution's bias an add over its
    output)."""
    total = 0.0
    for o in net.ops:
        if o["kind"] in ("conv", "gconv"):
            m, k = o["B"] * o["hout"] ** 2, (o["cin"] // o["groups"]) * o["k"] ** 2
            us = 1e-5 * (o["k"] + o["s"]) if o["kind"] == "gconv" else DENSE["fwd"]   # with_mobile_tables'
            total += us * m * o["cout"] * k + (ROWS["add"] * m * o["cout"] if o["bias"] else 0)
        elif o["kind"] == "linear":
            total += GEMM["fwd"] * o["B"] * o["dout"] * o["din"]
        elif o["kind"] != "fanout":   # a gradient sum: backward only
            total += ROWS.get(o["kind"], 1e-4) * o["numel"]
    return total


args = ["--cnn", "mobilenet_v2", "--micro-batch", "2", "--image", "64", "--precision", "tf32"]
full = profile("full")
out, ops = os.path.join(tmp, "w.json"), os.path.join(tmp, "ops.csv")
r = subprocess.run([fusim, "workload"] + args + ["--profile", full, "--out", out, "--ops", ops],
                   capture_output=True, text=True)
check("mobilenet_v2 on the hand-made profile: exit", r.returncode, 0, 0)
if r.returncode == 0:
    want = by_hand(mobile_arch.build("mobilenet_v2", 2, 64))
    check("forward, by hand", json.load(open(out))["fwd_us"], want, 1e-3, 1e-6)
    with open(ops) as f:
        rows = list(csv.DictReader(f))
    check("the listing's forward, by hand", sum(float(x["fwd_us"]) for x in rows), want, 1e-3, 1e-6)
    # each depthwise convolution (17) by the grouped table of its class, forward
    listed = {x["param"]: float(x["fwd_us"]) for x in rows}
    dw = [o for o in mobile_arch.build("mobilenet_v2", 2, 64).ops if o["kind"] == "gconv"]
    check("depthwise convolutions", len(dw), 17, 0)
    for o in dw:
        check(o["name"], listed.get(o["name"] + ".weight", -1),
              1e-5 * (o["k"] + o["s"]) * o["B"] * o["hout"] ** 2 * o["cout"] * o["k"] ** 2, 1e-3, 1e-6)
else:
    fails.append("stderr: " + r.stderr.strip())
# efficientnet_v2_s: its FusedMBConv blocks' dense 3x3 convolutions (stride 1 and 2) by the dense
# tables, its MBConv blocks' SE blocks (biases), SiLU and stochastic depth by their rows
v2 = ["--cnn", "efficientnet_v2_s"] + args[2:]
r = subprocess.run([fusim, "workload"] + v2 + ["--profile", full, "--out", out], capture_output=True, text=True)
check("efficientnet_v2_s on the hand-made profile: exit", r.returncode, 0, 0)
if r.returncode == 0:
    check("efficientnet_v2_s forward, by hand", json.load(open(out))["fwd_us"],
          by_hand(mobile_arch.build("efficientnet_v2_s", 2, 64)), 1e-3, 1e-6)
else:
    fails.append("stderr: " + r.stderr.strip())

# every family's operations in order (the SE blocks, stochastic depth and gradient sums carry no
# parameter for mobile_params.py to see) against mobile_arch's list
LISTED = {"gconv": "conv", "fanout": "grad_sum"}
for model in ("mobilenet_v3_large", "mobilenet_v3_small", "efficientnet_b0", "mnasnet0_5", "efficientnet_v2_s"):
    r = subprocess.run([fusim, "workload", "--cnn", model, "--micro-batch", "2", "--image", "64", "--precision", "tf32",
                        "--profile", full, "--out", out, "--ops", ops], capture_output=True, text=True)
    check(model + ": exit", r.returncode, 0, 0)
    if r.returncode == 0:
        with open(ops) as f:
            got = [x["op"] for x in csv.DictReader(f)]
        want = [LISTED.get(o["kind"], o["kind"]) for o in mobile_arch.build(model, 2, 64).ops]
        same_order(model, got, want)


refused(fusim, tmp, "no grouped tables", args, profile("no_grouped", ("grouped",)), ["grouped conv", "dwconv"])
refused(fusim, tmp, "no relu6 row", args, profile("no_relu6", ("relu6",)), ["relu6"])
refused(fusim, tmp, "NCHW without se_scale_nchw", ["--cnn", "mobilenet_v3_small", "--micro-batch", "2", "--image", "64",
                                       "--precision", "tf32", "--memory-format", "nchw"],
        profile("no_se_nchw", ("se_scale_nchw",), nchw=True), ["se_scale_nchw"])
# the embedded profile's depthwise tables are derived from another GPU's: one warning says so; the
# hand-made ones (measured, as far as fusim knows) draw none
for label, prof_args, warned in (("embedded", [], 1), ("hand-made", ["--profile", full], 0)):
    r = subprocess.run([fusim, "workload"] + args + prof_args + ["--out", os.path.join(tmp, "w.json")],
                       capture_output=True, text=True)
    check(label + ": exit", r.returncode, 0, 0)
    check(label + ": the derived depthwise tables' warning",
          sum("depthwise convolution tables were not measured" in ln for ln in r.stderr.splitlines()), warned, 0)
finish()
