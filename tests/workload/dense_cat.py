#!/usr/bin/env python3
"""dense_cat.py: a DenseNet's concatenations on the host (fu__dense_cat), by hand. torchvision's
DenseNet-121 concatenates, in block b's layer l, the block's input and the l maps before it
(l + 1 inputs), and at each block's end all L + 1 (L = 6, 12, 24, 16): 62 cats. With the profile's
ops_cat rows (tools/calib_torch.py --parts ops_cat) a cat's host cost is "cat" (one input) +
(k - 1) x "cat_input", forward and backward, times the one factor every CNN operation's host cost
takes (ResNet-50's whole step, which has no cat, so the factor does not depend on these rows).
Two hand-made profiles, the repository's H200 profile with A: cat 1 us, cat_input 0; B: cat 1,
cat_input 1 us (fp32, both directions): every cat costs the same under A, and B / A is its input
count k, cat by cat in the build's order; device times are the same under both. Without the rows (taken out of
the bundled profile) the cats cost no host time, as before session 42; rows in bf16 alone leave a tf32 build as it
is. Usage: dense_cat.py FUSIM"""
import copy
import csv
import json
import os
import subprocess
import sys
import tempfile

fusim = sys.argv[1]
BLOCKS = (6, 12, 24, 16)
fails = []
base = json.load(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "data", "profiles",
                                   "h200-default.json")))
want_k = [k for L in BLOCKS for k in list(range(1, L + 1)) + [L + 1]]


def cats(tmp, rows, dtype="fp32"):
    """densenet121 b32 tf32's cat rows of the --ops listing under the profile with these rows."""
    p = copy.deepcopy(base)
    p["compute"]["ops"] = [o for o in p["compute"]["ops"] if o["op"] not in ("cat", "cat_input")]
    for op, us in rows:
        p["compute"]["ops"].append({"op": op, "dtype": dtype, "numel": [], "fwd_us": [], "bwd_us": [],
                                    "host_fwd_us": us, "host_bwd_us": us})
    prof, out = os.path.join(tmp, "p.json"), os.path.join(tmp, "o.csv")
    json.dump(p, open(prof, "w"))
    r = subprocess.run([fusim, "workload", "--cnn", "densenet121", "--micro-batch", "32", "--precision", "tf32",
                        "--profile", prof, "--ops", out, "--out", os.path.join(tmp, "w.json")],
                       capture_output=True, text=True)
    if r.returncode:
        fails.append("profile %s: exit %d: %s" % (rows, r.returncode, r.stderr.strip()))
        return None
    return [o for o in csv.DictReader(open(out)) if o["op"] == "cat"]


with tempfile.TemporaryDirectory() as tmp:
    a, b = cats(tmp, [("cat", 1.0), ("cat_input", 0.0)]), cats(tmp, [("cat", 1.0), ("cat_input", 1.0)])
    none, bf = cats(tmp, []), cats(tmp, [("cat", 1.0), ("cat_input", 1.0)], "bf16")
    if a is not None and b is not None:
        if len(a) != len(want_k) or len(b) != len(want_k):
            fails.append("%d and %d cats, expected %d" % (len(a), len(b), len(want_k)))
        else:
            unit = float(a[0]["host_fwd_us"])
            if not unit > 0:
                fails.append("cat 1 us: the first cat's host forward is %s" % a[0]["host_fwd_us"])
            for i, (x, y, k) in enumerate(zip(a, b, want_k)):
                for col in ("host_fwd_us", "host_bwd_us"):
                    ka = float(x[col])
                    if abs(ka - float(a[0][col])) > 0.002 or abs(float(y[col]) - k * ka) > 0.002 * k:
                        fails.append("cat %d (%d inputs) %s: A %s, B %s, expected B = %d x A" % (i, k, col, x[col], y[col], k))
                        break
                if x["fwd_us"] != y["fwd_us"]:
                    fails.append("cat %d: device time moved with host rows (%s, %s)" % (i, x["fwd_us"], y["fwd_us"]))
    if none is not None and (len(none) != len(want_k) or
                             any(float(o["host_fwd_us"]) or float(o["host_bwd_us"]) for o in none)):
        fails.append("without ops_cat rows: %d cats, or a cat with host time" % len(none))
    if none is not None and bf is not None and none != bf:
        fails.append("ops_cat rows in bf16 alone changed a tf32 build")

for f in fails:
    print("FAIL", f)
print("dense_cat: %d failed" % len(fails))
sys.exit(1 if fails else 0)
