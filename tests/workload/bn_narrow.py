#!/usr/bin/env python3
"""bn_narrow.py: batch norm with fewer channels than the narrowest batchnorm2d_cN table (MobileNet's
16-32-channel norms) carries the two narrowest tables' trend on, geometric in the channel count,
never below the narrowest table's time; by hand on the --ops listing. Hand-made fp32 tables (as
bn_channels.py: per 1e6 elements, beyond 1e6 linear in the element count), 64 and 256 channels
only: "falling" 8 / 16 and 4 / 8 (fwd / bwd), so at c channels f = ln(c / 64) / ln(256 / 64) and
y = y64^(1 - f) y256^f: 32 channels (f = -0.5) 11.314 / 22.627, 16 (f = -1) 16 / 32; "rising" 4 / 8
and 8 / 16: below 64 the 64-channel time, 4 / 8. Checked on MobileNetV2 in TF32 at batch 64 (its
norms have 16 to 1280 channels; every one of 1e6 elements or more, else skipped), channels from
tests/workload/mobile_arch.py's layer list, the norms at 64 channels and above as bn_channels.py
prices them. Usage: bn_narrow.py FUSIM"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mobile_arch  # noqa: E402
from wlcheck import check, family_profiles, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
mobile_arch.with_mobile_tables(prof)
SETS = {"falling": {64: (8.0, 16.0), 256: (4.0, 8.0)}, "rising": {64: (4.0, 8.0), 256: (8.0, 16.0)}}
paths = family_profiles(prof, tmp, "batchnorm2d", "fp32", {
    name: [("batchnorm2d" if c == 256 else "batchnorm2d_c%d" % c, y) for c, y in ys.items()]
    for name, ys in SETS.items()})
B = 64
norms = {o["name"] + ".weight": o for o in mobile_arch.build("mobilenet_v2", B, 224).ops if o["kind"] == "batchnorm2d"}


def expected(ys, c):
    if c >= 256:
        return ys[256]
    f = math.log(c / 64) / math.log(256 / 64)
    y = tuple(ys[64][b] ** (1 - f) * ys[256][b] ** f for b in (0, 1))
    return y if c >= 64 or y[0] >= ys[64][0] else ys[64]


for name, ys in SETS.items():
    _, rows = workload(fusim, ["--cnn", "mobilenet_v2", "--micro-batch", str(B), "--precision", "tf32"],
                       paths[name], tmp)
    bn = [r for r in rows or [] if r["op"] == "batchnorm2d"]
    check(name + ": MobileNetV2's 52 norms listed", len(bn), 52, 0)
    narrow = 0
    for r in bn:
        o = norms.get(r["param"])
        if o is None:
            check(name + ": " + r["param"] + " in mobile_arch's list", 0, 1, 0)
            continue
        if o["numel"] < 1e6:
            continue
        y = expected(ys, o["c"])
        narrow += o["c"] < 64
        check("%s: %s (%d channels) fwd" % (name, r["param"], o["c"]), float(r["fwd_us"]), y[0] * o["numel"] / 1e6, 0.002)
        check("%s: %s (%d channels) bwd" % (name, r["param"], o["c"]), float(r["bwd_us"]), y[1] * o["numel"] / 1e6, 0.002)
    check(name + ": norms below 64 channels checked (16, 24, 32 at 56-112 pixels)", narrow >= 5, 1, 0)
finish()
