#!/usr/bin/env python3
"""data/validation/miss_sources.py on a hand-made torch_decomp output: the rows above 5% and the sum
of the model-runs' median |error| with each level taken out, derived by hand; bad input."""
import os
import subprocess
import sys
import tempfile

ROOT = os.environ.get("FUSIM_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "data", "validation", "miss_sources.py")
fails = 0


def check(name, ok):
    global fails
    print(("ok   " if ok else "FAIL ") + name)
    fails += not ok


def row(model, plan, err, noise, bwd):
    return ("%-30s %-24s err %+6.2f = noise %+6.2f base  +0.00 fwd  +0.00 bwd %+6.2f rest  +0.00 "
            "other  +0.00\n" % (model, plan, err, noise, bwd))


# Two model-runs of two plans. m1: p1 +6 (noise 1, bwd 5), p2 +8 (noise 1, bwd 7): median +7.
# m2: p1 -1 (noise -1), p2 +1 (bwd 1): median 0.
#   as they are: rows above 5% 2 (6, 8); sum of medians 7 + 1 = 8.0
#   each model-run's median out: m1 -1 / +1, m2 -1 / +1: 0 rows; 1 + 1 = 2.0
#   plan offsets p1 mean(6 - 7, -1 - 0) = -1, p2 +1: m1 7 / 7, m2 0 / 0: 2 rows; 7 + 0 = 7.0
#   noise out: m1 5 / 7 (5 is not above 5), m2 0 / 1: 1 row; 6 + 0.5 = 6.5
#   bwd out: m1 1 / 1, m2 -1 / 0: 0 rows; 1 + 0.5 = 1.5
TEXT = ("% of the measured iteration; error = noise + base + fwd + bwd + rest + other\n"
        "== runA\n" + row("m1", "p1", 6, 1, 5) + row("m1", "p2", 8, 1, 7) +
        "m1 median |part|: err  7.00\n== runB\n" + row("m2", "p1", -1, -1, 0) +
        row("m2", "p2", 1, 0, 1))
want = {"as they are": (2, 8.0), "each model-run's median error out": (0, 2.0),
        "each plan's mean offset over its model out": (2, 7.0), "noise out": (1, 6.5),
        "bwd out": (0, 1.5)}
with tempfile.TemporaryDirectory() as tmp:
    path = os.path.join(tmp, "decomp.txt")
    with open(path, "w") as f:
        f.write(TEXT)
    p = subprocess.run([sys.executable, TOOL, path], capture_output=True, text=True)
    check("exit 0 (got %d, %r)" % (p.returncode, p.stderr), p.returncode == 0)
    got = {}
    for line in p.stdout.splitlines():
        parts = line.rsplit(None, 2)
        if len(parts) == 3 and parts[0].strip() in want:
            got[parts[0].strip()] = (int(parts[1]), float(parts[2]))
    for k, v in want.items():
        check("%s: %r by hand (got %r)" % (k, v, got.get(k)), got.get(k) == v)
    check("4 rows, 2 model-runs", p.stdout.startswith("4 rows, 2 model-runs"))
    # noise's model-run medians: m1 +1, m2 median(-1, 0) = -0.5: one of two below 0, mean +0.25
    check("noise below 0 in 1 of 2 (mean +0.25)",
          "noise's model-run median below 0 in 1 of 2 model-runs (mean +0.25)" in p.stdout)
    # bad input: no decomposed rows (a --summary output) 65, a missing file 66; one line each
    with open(path, "w") as f:
        f.write("== runA\nm1 median |part|: err  7.00\n")
    for arg, code in ((path, 65), (os.path.join(tmp, "missing.txt"), 66)):
        p = subprocess.run([sys.executable, TOOL, arg], capture_output=True, text=True)
        check("%s: exit %d, one line (got %d, %r)" % (os.path.basename(arg), code, p.returncode,
                                                      p.stderr),
              p.returncode == code and len(p.stderr.strip().splitlines()) == 1 and not p.stdout)
sys.exit(1 if fails else 0)
