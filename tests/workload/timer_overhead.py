#!/usr/bin/env python3
"""timer_overhead.py: a profile's timer_overhead_us (calib_torch --parts timer: what the
calibration's per-call events add to each call of its tables) comes off every table lookup, by hand
on the --ops listing. The bundled profile with 0 and with 2 us: each priced call is 2 us shorter,
so on ResNet-50 in TF32 at batch 64 a convolution's forward (one conv-table lookup) by 2 and its
backward (data and weight gradients) by 4, the stem's (no data gradient: the image) by 2; a batch
norm's (every ResNet channel count has its own table: no interpolation between two), a relu's and
the max pool's forward and backward by 2 each. On a two-layer BERT in TF32, attention's forward
and backward (one SDPA lookup each) by 2 each. Nothing else moves in the device-free columns
(host issue times, saved bytes).
Usage: timer_overhead.py FUSIM"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, finish, start, tf_args, workload  # noqa: E402

fusim, tmp, prof = start()
B = 2.0
paths = {}
for name, b in (("none", 0.0), ("two", B)):
    prof["compute"]["timer_overhead_us"] = b
    paths[name] = os.path.join(tmp, name + ".json")
    with open(paths[name], "w") as f:
        json.dump(prof, f)

# calls a row's forward and backward price from tables (op -> (fwd, bwd)); the stem apart
CALLS = {"conv": (1, 2), "batchnorm2d": (1, 1), "relu": (1, 1), "maxpool": (1, 1), "attention": (1, 1)}
tf32 = [a if a != "autocast-bf16" else "tf32" for a in tf_args("bert")]
for what, args in (("resnet50", ["--cnn", "resnet50", "--micro-batch", "64", "--precision", "tf32"]),
                   ("bert", tf32)):
    _, a = workload(fusim, args, paths["none"], tmp)
    _, b = workload(fusim, args, paths["two"], tmp)
    if not a or not b:
        continue
    check("%s: same rows" % what, len(a), len(b), 0)
    seen = {}
    for r0, r1 in zip(a, b):
        for col in ("host_fwd_us", "host_bwd_us", "saved_bytes"):
            check("%s row %s %s: %s" % (what, r0["index"], r0["op"], col), float(r1[col]), float(r0[col]), 0)
        if r0["op"] not in CALLS:
            continue
        nf, nb = CALLS[r0["op"]]
        if r0["param"] == "conv1.weight":
            nb = 1
        seen[r0["op"]] = seen.get(r0["op"], 0) + 1
        check("%s row %s %s %s fwd" % (what, r0["index"], r0["op"], r0["param"]),
              float(r0["fwd_us"]) - float(r1["fwd_us"]), nf * B, 0.002)
        check("%s row %s %s %s bwd" % (what, r0["index"], r0["op"], r0["param"]),
              float(r0["bwd_us"]) - float(r1["bwd_us"]), nb * B, 0.002)
    want = {"conv": 53, "batchnorm2d": 53, "relu": 49, "maxpool": 1} if what == "resnet50" else {"attention": 2}
    check("%s: rows checked" % what, sum(seen.values()), sum(want.values()), 0)
finish()
