#!/usr/bin/env python3
"""bwd_start.py: fusim workload --cnn charges backward()'s own start (the profile's torch_bwd_start
row in the step's mode, plus torch_bwd_start_node per node, tools/bwd_start.py) where backward
starts, and takes it off tv_resnet50_held's backward before scaling the operations to it, by hand on
the --ops listing. The bundled profile (tv_resnet50_held bf16 backward H = 9100.94 us) with a
hand-made bf16 start S = 1000 us:
  ResNet-50 (batch 1, 32 px: host-bound, so the GPU has caught up when backward starts): every
    operation's backward host cost times (H - S) / H, the last one's (the loss, which backward runs
    first) plus S; the total stays; forward does not move; the first gradient is ready S later less
    what the factor takes off the operations issued before it: S - S / H x their costs.
  VGG-16 (scaled by ResNet-50's factor): its total times (H - S) / H, plus S.
  start 600 + 2 us a node, nodes = operations + parameters: ResNet-50's start off H, each model's own
    on its loss.
  TF32 (the row is bf16 only), a start of 0, no row: the workload as without the row, all but the
  profile's hash. A start not below H: refused (exit 65, one line, nothing written).
Usage: bwd_start.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, fails, finish, host_row, profile_with, refused, start, workload  # noqa: E402

fusim, tmp, prof = start()
ops = [t for t in prof["compute"]["ops"] if not t["op"].startswith("torch_bwd_start")]
H = [t for t in ops if (t["op"], t["dtype"]) == ("tv_resnet50_held", "bf16")][0]["host_bwd_us"]
S = 1000.0
paths = {name: profile_with(prof, tmp, name + ".json", ops, extra) for name, extra in (
    ("none", []), ("row", [host_row("torch_bwd_start", "bf16", 0.0, S)]),
    ("zero", [host_row("torch_bwd_start", "bf16", 0.0, 0.0)]),
    ("node", [host_row("torch_bwd_start", "bf16", 0.0, 600.0), host_row("torch_bwd_start_node", "bf16", 0.0, 2.0)]),
    ("big", [host_row("torch_bwd_start", "bf16", 0.0, H)]))}
SMALL = ["--micro-batch", "1", "--image", "32"]


def cnn(model, name, prec="autocast-bf16"):
    return workload(fusim, ["--cnn", model, "--precision", prec] + SMALL, paths[name], tmp)


def bwd(lst):
    return [float(x["host_bwd_us"]) for x in lst]


def tol(lst):
    return 0.001 * len(lst) + 1e-6  # the listing's 3 decimals a row, in each of two listings


w0, l0 = cnn("resnet50", "none")
w1, l1 = cnn("resnet50", "row")
if l0 and l1:
    k = (H - S) / H
    b0, b1 = bwd(l0), bwd(l1)
    check("resnet50: operations", len(b1), len(b0), 0)
    check("resnet50: backward's host total stays", sum(b1), sum(b0), tol(l0))
    check("resnet50: the sum of the rows is H", sum(b0), H, tol(l0))
    for i in range(len(b0) - 1):
        check("resnet50 op %d (%s): host bwd x (H - S) / H" % (i, l0[i]["op"]), b1[i], b0[i] * k, 0.002)
    check("resnet50 loss: host bwd x (H - S) / H + S", b1[-1], b0[-1] * k + S, 0.002)
    check("resnet50: forward unchanged", w1["fwd_us"], w0["fwd_us"], 1e-6)
    # the first gradient's operation: the last one with parameters (fc); backward runs it second
    first = max(i for i, x in enumerate(l0) if x["param"])
    before = sum(b0[first:])
    check("resnet50: the first gradient is fc's", w0["grads"][0]["name"].startswith("fc."), 1, 0)
    check("resnet50: first gradient ready S - S / H x the costs before it later",
          w1["grads"][0]["ready_us"] - w0["grads"][0]["ready_us"], S - S / H * before, 0.01)
    check("resnet50: the move is most of S", (w1["grads"][0]["ready_us"] - w0["grads"][0]["ready_us"]) / S, 1.0, 0.02)

_, v0 = cnn("vgg16", "none")
_, v1 = cnn("vgg16", "row")
if v0 and v1:
    check("vgg16: total x (H - S) / H + S", sum(bwd(v1)), sum(bwd(v0)) * (H - S) / H + S, tol(v0))
    check("vgg16 loss: + S", bwd(v1)[-1], bwd(v0)[-1] * (H - S) / H + S, 0.002)

# start 600 + 2 us a node: nodes = operations + parameters
wn, ln = cnn("resnet50", "node")
_, vn = cnn("vgg16", "node")
wv, _ = cnn("vgg16", "none")
if l0 and ln and v0 and vn and wv:
    s50 = 600.0 + 2.0 * (len(l0) + len(w0["grads"]))
    sv = 600.0 + 2.0 * (len(v0) + len(wv["grads"]))
    check("resnet50 node: total stays", sum(bwd(ln)), sum(bwd(l0)), tol(l0))
    check("resnet50 node: loss + its start", bwd(ln)[-1], bwd(l0)[-1] * (H - s50) / H + s50, 0.002)
    check("vgg16 node: ResNet-50's start off H, its own on its loss", sum(bwd(vn)),
          sum(bwd(v0)) * (H - s50) / H + sv, tol(v0))

# absent in the step's mode, or 0: as without the row (all but the profile's name and hash)
for model, name, prec in (("resnet50", "row", "tf32"), ("resnet50", "zero", "autocast-bf16"),
                          ("mobilenet_v2", "row", "tf32"), ("densenet121", "zero", "autocast-bf16")):
    a, la = cnn(model, "none", prec)
    b, lb = cnn(model, name, prec)
    if a and b:
        a.pop("priced_with", None), b.pop("priced_with", None)
        a["notes"] = a["notes"].replace(paths["none"], "P")
        b["notes"] = b["notes"].replace(paths[name], "P")
        check("%s %s %s: the workload as without the row" % (model, name, prec), a == b and la == lb, 1, 0)

refused(fusim, tmp, "start not below tv_resnet50_held", ["--cnn", "resnet50", "--precision", "autocast-bf16"] + SMALL,
        paths["big"], ["torch_bwd_start", "tv_resnet50_held"])
if not fails:
    print("bwd_start: ResNet-50's first gradient %.1f us later with S = %.0f us" % (
        w1["grads"][0]["ready_us"] - w0["grads"][0]["ready_us"], S))
finish()
