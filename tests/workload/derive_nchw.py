#!/usr/bin/env python3
"""derive_nchw.py: tools/derive_nchw.py by hand, and fusim keeping the "derived" mark.
Target (channels-last only): a tf32 fwd k3 s1 conv table on a 2 x 2 x 1 grid, times 10, 20, -, 40
(one point untimed), and a bf16 fwd k1 s1 table; batchnorm2d_c64 bf16 at 2 sizes, forward 2, 4,
backward 1, 1, host 7 / 8. Source: the tf32 key channels-last 5, 5, 5, 5 and NCHW 15, 10, 15, -;
the k1 key on another grid than the target's; batchnorm2d_c64 1, 1 / 1, 1 and batchnorm2d_nchw_c64
3, 2 / 5, 5. Derived: the tf32 NCHW table 30, 40, -, - (a point untimed in any of the three stays
untimed), marked "derived" with the source's GPU; the k1 table left out in one stderr line (other
grid); batchnorm2d_nchw_c64 forward 6, 8, backward 5, 5, the target's host costs 7 / 8. Then fusim
fit --compute merges the file into the bundled profile and writes the mark back; a mark that is
not a string is refused in one line, the profile as it was.
Usage: derive_nchw.py FUSIM"""
import json
import os
import subprocess
import sys
import tempfile

fusim = sys.argv[1]
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
tool = os.path.join(root, "tools", "derive_nchw.py")
fails = []


def conv(dtype, k, m, us, fmt=None):
    t = {"dtype": dtype, "layout": "fwd", "kernel": k, "stride": 1, "m": m, "n": [64, 128], "k": [576],
         "us": us}
    if fmt:
        t["format"] = fmt
    return t


def bn(name, fwd, bwd, host=(0.0, 0.0)):
    return {"op": name, "dtype": "bf16", "numel": [1000, 2000], "fwd_us": fwd, "bwd_us": bwd,
            "host_fwd_us": host[0], "host_bwd_us": host[1]}


target = {"name": "t", "gpu": "GPU T", "compute": {
    "conv": [conv("tf32", 3, [1568, 6272], [10, 20, None, 40]), conv("bf16", 1, [1568, 6272], [1, 1, 1, 1])],
    "ops": [bn("batchnorm2d_c64", [2, 4], [1, 1], (7.0, 8.0))]}}
source = {"name": "s", "gpu": "GPU S", "compute": {
    "conv": [conv("tf32", 3, [1568, 6272], [5, 5, 5, 5]), conv("tf32", 3, [1568, 6272], [15, 10, 15, None], "nchw"),
             conv("bf16", 1, [1568, 25088], [1, 1, 1, 1]), conv("bf16", 1, [1568, 25088], [2, 2, 2, 2], "nchw")],
    "ops": [bn("batchnorm2d_c64", [1, 1], [1, 1]), bn("batchnorm2d_nchw_c64", [3, 2], [5, 5])]}}
with tempfile.TemporaryDirectory() as tmp:
    paths = {}
    for name, obj in (("target", target), ("source", source)):
        paths[name] = os.path.join(tmp, name + ".json")
        with open(paths[name], "w") as f:
            json.dump(obj, f)
    out = os.path.join(tmp, "derived.json")
    r = subprocess.run([sys.executable, tool, out, paths["target"], paths["source"]], capture_output=True, text=True)
    if r.returncode != 0:
        fails.append("derive_nchw.py exit %d: %s" % (r.returncode, r.stderr))
    else:
        d = json.load(open(out))["compute"]
        if [(t["dtype"], t.get("format"), t.get("derived"), t["us"]) for t in d["conv"]] != \
                [("tf32", "nchw", "GPU S", [30.0, 40.0, None, None])]:
            fails.append("conv: %r" % d["conv"])
        if "bf16 fwd k1 s1" not in r.stderr or len(r.stderr.strip().splitlines()) != 1:
            fails.append("the k1 table's other grid not said in one line: %r" % r.stderr)
        if [(o["op"], o["fwd_us"], o["bwd_us"], o["host_fwd_us"], o["host_bwd_us"]) for o in d["ops"]] != \
                [("batchnorm2d_nchw_c64", [6.0, 8.0], [5.0, 5.0], 7.0, 8.0)]:
            fails.append("ops: %r" % d["ops"])
        # fusim keeps the mark: merged into a copy of the bundled profile and written back
        prof = os.path.join(tmp, "prof.json")
        with open(os.path.join(root, "data", "profiles", "h200-default.json")) as f, open(prof, "w") as g:
            g.write(f.read())
        r = subprocess.run([fusim, "fit", "--compute", out, "--merge-into", prof], capture_output=True, text=True)
        kept = [t for t in json.load(open(prof))["compute"]["conv"]
                if t.get("format") == "nchw" and t["dtype"] == "tf32" and t["kernel"] == 3 and t["layout"] == "fwd"
                and t["m"] == [1568, 6272]] if r.returncode == 0 else []
        if len(kept) != 1 or kept[0].get("derived") != "GPU S":
            fails.append("fit --merge-into: exit %d, the derived table %r" % (r.returncode, kept))
        # a mark that is not a string: one line, non-zero, the profile as it was
        d["conv"][0]["derived"] = 1
        bad = os.path.join(tmp, "bad.json")
        with open(bad, "w") as f:
            json.dump({"format": "fusim-compute-1", "compute": d}, f)
        before = open(prof).read()
        r = subprocess.run([fusim, "fit", "--compute", bad, "--merge-into", prof], capture_output=True, text=True)
        if r.returncode == 0 or len(r.stderr.strip().splitlines()) != 1 or "derived" not in r.stderr \
                or open(prof).read() != before:
            fails.append("a derived mark that is not a string: exit %d, %r" % (r.returncode, r.stderr))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
