#!/usr/bin/env python3
"""memory_format.py: fusim workload --cnn --memory-format nchw prices ResNet-50's convolutions from
the profile's NCHW conv tables ("format": "nchw", tools/calib_torch.py --conv-format nchw) and its
batch norms and max pooling from the batchnorm2d_nchw* and maxpool_nchw tables (ops_nchw), by hand
on the --ops listing. Hand-made: the bundled profile plus NCHW tables that are its channels-last
TF32 conv tables at twice the time (the same grids, so every lookup doubles: the interpolation is
log-linear in efficiency) and its batch norm and pooling tables at three times it (geometric
between channel counts, so three times again). In TF32 (no autocast casts beside a conv) every
convolution's forward and backward is then twice the channels-last one's, every batch norm and the
pooling three times, every other operation the same. Refused, one line, exit 65: NCHW on a profile
without NCHW conv tables (the bundled one less its NCHW tables) or without the NCHW batch norm;
exit 64: the option with --transformer; tools/compare_compute.py on an NCHW capture the profile
cannot price (the comparison set: the end, status 70; --others: left out). NCHW tables marked
derived (tools/derive_nchw.py, "derived" in each) price NCHW with one warning line that says so; a
measured table (the hand-made ones, the embedded profile's) gives none.
Usage: memory_format.py FUSIM"""
import copy
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, fails, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
comp = prof["compute"]
# the dense convolutions (the grouped ones, MobileNet's depthwise, play no part here)
comp["conv"] = [t for t in comp["conv"] if t.get("groups", "dense") == "dense"]
channels_last = [t for t in comp["conv"] if t.get("format", "channels_last") == "channels_last"]
cl_ops = [t for t in comp["ops"] if "_nchw" not in t["op"]]
nchw_conv = [dict(copy.deepcopy(t), format="nchw", us=[None if u is None else 2 * u for u in t["us"]])
             for t in channels_last if t["dtype"] == "tf32"]
nchw_ops = [dict(copy.deepcopy(t), op=t["op"].replace("batchnorm2d", "batchnorm2d_nchw").replace("maxpool", "maxpool_nchw"),
                 fwd_us=[3 * v for v in t["fwd_us"]], bwd_us=[3 * v for v in t["bwd_us"]])
            for t in cl_ops if t["op"].startswith(("batchnorm2d", "maxpool"))]
check("channels-last tf32 conv tables to copy (ResNet's 5 classes and ConvNeXt's k2s2 and k4s4 x 3 layouts, less the "
      "two stems' dgrad)", len(nchw_conv), 19, 0)
paths = {}
# the same NCHW tables marked as tools/derive_nchw.py marks them (the GPU whose ratio made them)
nchw_derived = [dict(t, derived="NVIDIA H100 80GB HBM3") for t in nchw_conv]
for name, conv, ops in (("both", nchw_conv, nchw_ops), ("conv_only", nchw_conv, []), ("none", [], []),
                        ("derived", nchw_derived, nchw_ops)):
    p = copy.deepcopy(prof)
    p["compute"]["conv"] = channels_last + conv
    p["compute"]["ops"] = cl_ops + ops
    paths[name] = os.path.join(tmp, name + ".json")
    with open(paths[name], "w") as f:
        json.dump(p, f)

args = ["--cnn", "resnet50", "--micro-batch", "64", "--precision", "tf32"]
_, cl = workload(fusim, args, paths["both"], tmp)
w, nc = workload(fusim, args + ["--memory-format", "nchw"], paths["both"], tmp)
if cl and nc:
    check("the same operations, in order", len(nc), len(cl), 0)
    factor = {"conv": 2.0, "batchnorm2d": 3.0, "maxpool": 3.0}
    counted = {}
    for a, b in zip(cl, nc):
        op = a["op"]
        want_op = {"batchnorm2d": "batchnorm2d_nchw", "maxpool": "maxpool_nchw"}.get(op, op)
        if b["op"] != want_op:
            fails.append("%s: listed as %s, expected %s" % (a["param"], b["op"], want_op))
            continue
        k = factor.get(op, 1.0)
        counted[op] = counted.get(op, 0) + 1
        for col in ("fwd_us", "bwd_us"):
            check("%s %s %s" % (op, a["param"], col), float(b[col]), k * float(a[col]), 1e-3, 1e-6)
    check("convolutions", counted.get("conv", 0), 53, 0)
    check("batch norms", counted.get("batchnorm2d", 0), 53, 0)
    check("max pooling", counted.get("maxpool", 0), 1, 0)
    check("the notes say NCHW", "NCHW" in w["notes"], 1, 0)


def refused(what, argv, prof_path, status, words):
    r = subprocess.run([fusim, "workload"] + argv + (["--profile", prof_path] if prof_path else [])
                       + ["--out", os.path.join(tmp, "no.json")], capture_output=True, text=True)
    check(what + ": exit", r.returncode, status, 0)
    check(what + ": one line", len(r.stderr.strip().splitlines()), 1, 0)
    for word in words:
        check("%s: says %r" % (what, word), word in r.stderr, 1, 0)
    check(what + ": nothing written", os.path.exists(os.path.join(tmp, "no.json")), 0, 0)


refused("a profile without NCHW tables", args + ["--memory-format", "nchw"], paths["none"], 65,
        ["nchw", "--conv-format nchw"])
# derived NCHW tables: priced, with one warning naming the derivation; the hand-made (measured, as
# far as fusim knows) ones and the embedded profile's (measured on the H200 since session 49): none
for label, prof_args, warned in (("derived", ["--profile", paths["derived"]], 1),
                                 ("measured", ["--profile", paths["both"]], 0), ("embedded", [], 0)):
    r = subprocess.run([fusim, "workload"] + args + ["--memory-format", "nchw"] + prof_args +
                       ["--out", os.path.join(tmp, "d.json")], capture_output=True, text=True)
    check(label + " NCHW tables: exit 0", r.returncode, 0, 0)
    check(label + " NCHW tables: a derivation warning", int("derive_nchw" in r.stderr and "derived" in r.stderr),
          warned, 0)
refused("NCHW convolutions without the NCHW batch norm", args + ["--memory-format", "nchw"], paths["conv_only"], 65,
        ["batchnorm2d_nchw"])
refused("--transformer", ["--transformer", "--layers", "2", "--hidden", "64", "--heads", "2", "--ffn", "128",
                          "--vocab", "100", "--seq", "16", "--micro-batch", "1", "--memory-format", "nchw"],
        None, 64, ["--cnn"])
refused("an unknown format", args + ["--memory-format", "nhwc"], None, 64, ["memory-format"])
# tools/compare_compute.py on an NCHW capture (H100 run 36's ResNet-50, its notes say NCHW) with a
# profile without NCHW tables: in the comparison set (the exit status) the end, status 70 and
# fusim's line; among --others left out with fusim's line, the rest compared
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
nchw_dir = os.path.join(tmp, "nchw-captures")
os.makedirs(nchw_dir)
with open(os.path.join(root, "data", "validation", "torch_h100_run36",
                       "wl_resnet50_b64_bf16_adamw_none_torchval.json")) as f, \
        open(os.path.join(nchw_dir, "wl_resnet50.json"), "w") as g:
    g.write(f.read())
cc = [sys.executable, os.path.join(root, "tools", "compare_compute.py"), "--fusim", fusim, "--heldout", "",
      "--profile", paths["none"]]
r = subprocess.run(cc + ["--captures", nchw_dir, "--others", ""], capture_output=True, text=True)
check("compare_compute, NCHW capture in the comparison set: exit 70", r.returncode, 70, 0)
check("compare_compute: fusim's line names the NCHW table", "nchw" in r.stderr and "fusim failed" in r.stderr, 1, 0)
r = subprocess.run(cc + ["--others", nchw_dir], capture_output=True, text=True)
check("compare_compute, NCHW capture among --others: the comparison set's exit 0", r.returncode, 0, 0)
check("compare_compute: left out with fusim's line", "resnet50_b64_bf16_adamw_none_torchval" not in r.stdout and
      "left out: fusim: workload: profile" in r.stderr and "nchw" in r.stderr, 1, 0)
finish()
