#!/usr/bin/env python3
"""compute_rel.py FUSIM: the builders' "compute_rel" (FU_COMPUTE_REL) is what tools/compute_rel.py
derives from the committed comparison rows (data/compute/comparison.csv, heldout.csv), in a
transformer and a CNN priced from the tables; the roofline, whose error was never measured, writes
none."""
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
fusim = sys.argv[1]
fails = 0


def check(what, ok):
    global fails
    if not ok:
        print("FAIL: " + what, file=sys.stderr)
        fails += 1


r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "compute_rel.py")], capture_output=True, text=True)
m = re.search(r"^compute_rel (\S+)$", r.stdout, re.M)
check("tools/compute_rel.py prints the term: %s" % r.stderr.strip(), r.returncode == 0 and m)
want = float(m.group(1)) if m else None
SHAPE = ["--layers", "2", "--hidden", "1024", "--heads", "8", "--ffn", "2816",
      "--vocab", "32000", "--seq", "512", "--micro-batch", "2"]
TF = ["--transformer", "--arch", "llama"] + SHAPE
with tempfile.TemporaryDirectory() as tmp:
    for name, args, rel in (("transformer", TF, want), ("cnn", ["--cnn", "resnet18", "--micro-batch", "32"], want),
                            ("roofline", ["--transformer", "--gated-ffn", "--tflops", "989.4"] + SHAPE, None)):
        out = os.path.join(tmp, name + ".json")
        r = subprocess.run([fusim, "workload"] + args + ["--out", out], capture_output=True, text=True)
        check("%s builds: %s" % (name, r.stderr.strip()), r.returncode == 0)
        if r.returncode == 0:
            got = json.load(open(out)).get("compute_rel")
            check("%s: compute_rel %s, expected %s" % (name, got, rel), got == rel)
            # workload --info names it where it is set, as a percentage
            r = subprocess.run([fusim, "workload", "--info", out], capture_output=True, text=True)
            line = [l for l in r.stdout.splitlines() if l.startswith("compute error")]
            check("%s: --info's compute error line %s" % (name, line),
                  line == (["compute error      %.2f%% (95%%, compute_rel)" % (100 * rel)] if rel else []))
print("compute_rel: %d failed" % fails, file=sys.stderr)
sys.exit(1 if fails else 0)
