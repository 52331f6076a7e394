#!/usr/bin/env python3
"""regnet_handmade.py: fusim workload --cnn prices the ResNeXts' and RegNets' grouped convolutions
from the profile's grouped tables of wider groups, by hand: regnet_y_400mf at batch 2 on 64-pixel
images in TF32 (no autocast casts) on a hand-made profile whose dense conv, GEMM and wider grouped
tables are one grid point at m = n = k = 1 (every product then costs its table's us x m x n x k),
whose memory-bound rows are one point at one element (us x numel) and whose host costs are 0 (no
tv_resnet50_held row). Forward is then the sum over regnet_arch.py's own list of torchvision's
operations (not fusim's) of those products, and so is the --ops listing's; each grouped
convolution's forward (16, 48 x 8 .. 440 x 8 per group) is its table's product (per-group K =
8 x 3 x 3). resnext50_32x4d, regnet_x_400mf and regnet_y_400mf list regnet_arch's operations in
its order.
Refused, one line on stderr, exit 65, nothing written: regnet_x_400mf and resnext50_32x4d on a
profile with the depthwise tables but none of wider groups (the line says "grouped conv" and
"--parts gconv", not "--memory-format nchw"); resnext50_32x4d in channels-last where the profile has
NCHW tables of wider groups alone (the line also offers --memory-format nchw); regnet_y_400mf without
the sigmoid row (names it and "--parts ops_mobile"). A
wider table marked derived draws one warning naming the grouped tables and derive_gpu_ops
--conv-classes; the hand-made ones (measured, as far as fusim knows) none. Host: a grouped
convolution of wider groups costs the "gconv" row where the profile has one, else "conv"'s.
Usage: regnet_handmade.py FUSIM"""
import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import regnet_arch  # noqa: E402
from mobile_arch import conv_table, op_row, with_mobile_tables  # noqa: E402
from wlcheck import check, fails, finish, refused, same_order, start  # noqa: E402

fusim, tmp, base = start()
DENSE = {"fwd": 2e-6, "dgrad": 3e-6, "wgrad": 4e-6}      # us per m x n x k, the dense classes
GEMM = {"fwd": 5e-6, "dgrad": 6e-6, "wgrad": 7e-6}       # fc
ROWS = {"batchnorm2d": 3e-4, "add": 5e-4, "cross_entropy": 11e-4, "relu": 13e-4, "avgpool_global": 17e-4,
        "sigmoid": 19e-4, "se_scale": 23e-4, "maxpool": 29e-4, "bias_grad": 31e-4}   # us per element forward


def gus(k, s):
    """the wider grouped tables' us per m x n x k, by class"""
    return 1e-5 * (k + 2 * s)


def profile(name, wider=True, derived=None, skip=()):
    """The hand-made profile (without the wider grouped tables unless wider; those marked derived
    where given; without the rows skip names) written as name; its path."""
    p = json.loads(json.dumps(base))
    comp = p["compute"]
    comp["conv"] = [conv_table(dt, lay, k, s, DENSE[lay]) for dt in ("tf32", "bf16") for lay in DENSE
                    for k, s in ((1, 1), (1, 2), (3, 2), (7, 2))]
    comp["gemm"] = [{"dtype": "tf32", "layout": lay, "m": [1], "n": [1], "k": [1], "us": [us]} for lay, us in GEMM.items()]
    comp["gemm_unaligned"] = []
    # no ResNet-50 host scaling, no batch norm by channels (one table, by element count)
    comp["ops"] = [t for t in comp["ops"] if not t["op"].startswith(("tv_", "batchnorm2d_c", "batchnorm2d_nchw_c"))]
    with_mobile_tables(p)                       # depthwise tables alone: no stand-in for wider groups
    comp["ops"] = [t for t in comp["ops"] if t["op"] not in ROWS]
    comp["ops"] += [op_row(op, dt, us, 2 * us) for op, us in ROWS.items() for dt in ("fp32", "bf16")]
    comp["ops"] = [t for t in comp["ops"] if t["op"] not in skip]
    comp["ops"] = [dict(t, host_fwd_us=0.0, host_bwd_us=0.0) for t in comp["ops"]]
    if wider:
        regnet_arch.with_gconv_tables(p, gus)
        for t in comp["conv"]:
            if derived and regnet_arch.is_wider(t):
                t["derived"] = derived
    path = os.path.join(tmp, name + ".json")
    with open(path, "w") as f:
        json.dump(p, f)
    return path


def gconv_us(o):
    return gus(o["k"], o["s"]) * o["B"] * o["hout"] ** 2 * o["cout"] * (o["cin"] // o["groups"]) * o["k"] ** 2


def by_hand(net):
    """Forward's device time of regnet_arch's operation list on the hand-made tables."""
    total = 0.0
    for o in net.ops:
        if o["kind"] == "gconv":
            total += gconv_us(o)
        elif o["kind"] == "conv":
            total += DENSE["fwd"] * o["B"] * o["hout"] ** 2 * o["cout"] * o["cin"] * o["k"] ** 2
            if o["bias"]:   # cuDNN's convolution, then the bias added over its output
                total += ROWS["add"] * o["B"] * o["hout"] ** 2 * o["cout"]
        elif o["kind"] == "linear":
            total += GEMM["fwd"] * o["B"] * o["dout"] * o["din"]   # the bias is the GEMM's (cuBLAS's epilogue)
        elif o["kind"] != "fanout":   # a gradient sum: backward only
            total += ROWS[o["kind"]] * o["numel"]
    return total


def run(model, path, extra=()):
    out, ops = os.path.join(tmp, "w.json"), os.path.join(tmp, "ops.csv")
    for f in (out, ops):
        if os.path.exists(f):
            os.remove(f)
    r = subprocess.run([fusim, "workload", "--cnn", model, "--micro-batch", "2", "--image", "64", "--precision", "tf32",
                        "--profile", path, "--out", out, "--ops", ops] + list(extra), capture_output=True, text=True)
    return r, out, ops


full = profile("full")
r, out, ops = run("regnet_y_400mf", full)
check("regnet_y_400mf on the hand-made profile: exit", r.returncode, 0, 0)
if r.returncode == 0:
    net = regnet_arch.build("regnet_y_400mf", 2, 64)
    want = by_hand(net)
    check("forward, by hand", json.load(open(out))["fwd_us"], want, 1e-3, 1e-6)
    with open(ops) as f:
        rows = list(csv.DictReader(f))
    # the listing prints each row to 0.001 us
    check("the listing's forward, by hand", sum(float(x["fwd_us"]) for x in rows), want, 5e-4 * len(rows), 1e-6)
    listed = {x["param"]: float(x["fwd_us"]) for x in rows}
    grouped = [o for o in net.ops if o["kind"] == "gconv"]
    check("grouped convolutions", len(grouped), 16, 0)
    for o in grouped:
        check(o["name"], listed.get(o["name"] + ".weight", -1), gconv_us(o), 1e-3, 1e-6)
else:
    fails.append("stderr: " + r.stderr.strip())

# the operations in order (the SE blocks, gradient sums and pools carry no parameter for
# regnet_params.py to see) against regnet_arch's list
LISTED = {"gconv": "conv", "fanout": "grad_sum"}
for model in ("resnext50_32x4d", "regnet_x_400mf", "regnet_y_400mf"):
    r, out, ops = run(model, full)
    check(model + ": exit", r.returncode, 0, 0)
    if r.returncode == 0:
        with open(ops) as f:
            got = [x["op"] for x in csv.DictReader(f)]
        same_order(model, got, [LISTED.get(o["kind"], o["kind"]) for o in regnet_arch.build(model, 2, 64).ops])

# host: a grouped convolution of wider groups takes the profile's "gconv" row where it has one (else
# the dense "conv" row's), a depthwise or dense one the "conv" row: with gconv at 1 / 2 us and conv
# at 10 / 20 (every other host cost 0, no host scaling), resnext50_32x4d's 16 grouped and 37 dense
# convolutions cost 16 x 1 + 37 x 10 forward, 16 x 2 + 37 x 20 backward; without the gconv row
# all 53 take the conv row's
for label, rows, fwd, bwd in (("with a gconv row", {"gconv": (1.0, 2.0), "conv": (10.0, 20.0)}, 386, 772),
                              ("without", {"conv": (10.0, 20.0)}, 530, 1060)):
    hp = json.load(open(full))
    hp["compute"]["ops"] = [t for t in hp["compute"]["ops"] if t["op"] not in ("conv", "gconv")] + [
        {"op": op, "dtype": dt, "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": h[0], "host_bwd_us": h[1]}
        for op, h in rows.items() for dt in ("fp32", "bf16")]
    path = os.path.join(tmp, "host.json")
    json.dump(hp, open(path, "w"))
    r, out, ops = run("resnext50_32x4d", path)
    check("host " + label + ": exit", r.returncode, 0, 0)
    if r.returncode:
        fails.append("stderr: " + r.stderr.strip())
    else:
        with open(ops) as f:
            listed = list(csv.DictReader(f))
        check("host " + label + ": forward", sum(float(x["host_fwd_us"]) for x in listed), fwd, 0.01)
        check("host " + label + ": backward", sum(float(x["host_bwd_us"]) for x in listed), bwd, 0.01)

no_wider, no_sigmoid = profile("no_wider", wider=False), profile("no_sigmoid", skip=("sigmoid",))
# channels-last refused where the profile has only NCHW tables of wider groups: the line says that
# NCHW prices it (and does not where it has none: the no_wider case below)
nchw_only = json.load(open(full))
nchw_only["compute"]["conv"] = [t for t in nchw_only["compute"]["conv"]
                                if not regnet_arch.is_wider(t) or t.get("format") == "nchw"]
nchw_only_path = os.path.join(tmp, "nchw_only.json")
json.dump(nchw_only, open(nchw_only_path, "w"))
refused(fusim, tmp, "resnext50_32x4d channels-last with NCHW wider tables alone",
        ["--cnn", "resnext50_32x4d", "--micro-batch", "2", "--image", "64", "--precision", "tf32"], nchw_only_path,
        ("grouped conv", "--parts gconv", "--memory-format nchw"))
r = subprocess.run([fusim, "workload", "--cnn", "resnext50_32x4d", "--micro-batch", "2", "--image", "64", "--precision",
                    "tf32", "--profile", no_wider, "--out", os.path.join(tmp, "no.json")], capture_output=True, text=True)
check("without any wider tables: the line does not offer NCHW", "--memory-format nchw" in r.stderr, 0, 0)
for model, path, what, words in (
        ("regnet_x_400mf", no_wider, "without the wider grouped tables", ("grouped conv", "--parts gconv")),
        ("resnext50_32x4d", no_wider, "without the wider grouped tables", ("grouped conv", "--parts gconv")),
        ("regnet_y_400mf", no_sigmoid, "without the sigmoid row", ("sigmoid", "--parts ops_mobile"))):
    refused(fusim, tmp, model + " " + what, ["--cnn", model, "--micro-batch", "2", "--image", "64", "--precision",
                                             "tf32", "--ops", os.path.join(tmp, "no.csv")], path, words)
    check(model + " " + what + ": no listing", os.path.exists(os.path.join(tmp, "no.csv")), 0, 0)

for label, path, warned in (("derived", profile("derived", derived="h100-sxm x add ratio"), 1), ("hand-made", full, 0)):
    r, out, ops = run("regnet_x_400mf", path)
    check(label + ": exit", r.returncode, 0, 0)
    check(label + ": the derived grouped tables' warning",
          sum("grouped convolution tables were not measured" in ln and "--conv-classes" in ln
              for ln in r.stderr.splitlines()), warned, 0)
finish()
