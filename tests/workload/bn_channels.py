#!/usr/bin/env python3
"""bn_channels.py: fusim workload --cnn prices batch norm at its channel count c from the
batchnorm2d_cN tables (tools/calib_torch.py ops_bn; "batchnorm2d" has 256 channels), by hand on
the --ops listing. Hand-made fp32 tables whose last point is 1e6 elements (beyond it a table is
linear in the element count): per 1e6 elements, fwd / bwd: 64 channels 8 / 16, 256 channels
4 / 8, 1024 channels 1 / 2. A norm of n elements at a table's channel count takes y x n / 1e6;
between two counts geometric in the count (f = ln(c / lo) / ln(hi / lo): y_lo^(1 - f) y_hi^f),
beyond them the nearest. Checked on ResNet-50 in TF32 at batch 64 (every norm above 1e6
elements: the smallest 64 x 512 x 7 x 7): its channel counts 64, 256, 1024 exactly, 128 and 512
between, 2048 at 1024's, and without the channel tables the 256-channel one everywhere.
Usage: bn_channels.py FUSIM"""
import json
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from wlcheck import check, family_profiles, finish, start, workload  # noqa: E402

fusim, tmp, prof = start()
Y = {64: (8.0, 16.0), 256: (4.0, 8.0), 1024: (1.0, 2.0)}
paths = family_profiles(prof, tmp, "batchnorm2d", "fp32", {
    name: [("batchnorm2d" if c == 256 else "batchnorm2d_c%d" % c, Y[c]) for c in counts]
    for name, counts in (("with", (64, 256, 1024)), ("without", (256,)))})


def channels(param):
    """A ResNet-50 norm's channel count from its name: the stem's 64; a stage's width (64 x 2^(stage-1))
    for bn1 and bn2, four times it for bn3 and the shortcut's."""
    m = re.match(r"layer(\d)\.\d+\.(bn\d|downsample\.1)\.weight$", param)
    if not m:
        return 64 if param == "bn1.weight" else None
    width = 64 * 2 ** (int(m.group(1)) - 1)
    return width if m.group(2) in ("bn1", "bn2") else 4 * width


def expected(c):
    if c in Y:
        return Y[c]
    if c > 1024:
        return Y[1024]
    lo, hi = (64, 256) if c < 256 else (256, 1024)
    f = math.log(c / lo) / math.log(hi / lo)
    return tuple(Y[lo][b] ** (1 - f) * Y[hi][b] ** f for b in (0, 1))


seen = {}
for p in ("with", "without"):
    _, rows = workload(fusim, ["--cnn", "resnet50", "--micro-batch", "64", "--precision", "tf32"], paths[p], tmp)
    bn = [r for r in rows or [] if r["op"] == "batchnorm2d"]
    check(p + ": ResNet-50's 53 norms listed", len(bn), 53, 0)
    for r in bn:
        c = channels(r["param"])
        n = float(r["saved_bytes"]) / 4  # it keeps its fp32 input: 4 bytes an element
        y = expected(c) if p == "with" else Y[256]
        seen[c] = seen.get(c, 0) + 1
        check("%s: %s (%d channels) fwd" % (p, r["param"], c), float(r["fwd_us"]), y[0] * n / 1e6, 0.002)
        check("%s: %s (%d channels) bwd" % (p, r["param"], c), float(r["bwd_us"]), y[1] * n / 1e6, 0.002)
check("channel counts seen (64, 128, 256, 512, 1024, 2048)", len(seen), 6, 0)
check("channel counts seen: none unnamed", None in seen, 0, 0)
finish()
