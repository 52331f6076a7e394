#!/usr/bin/env python3
"""data/validation/miss_sources.py on a hand-made torch_decomp output: the rows above 5% and the sum
of the model-runs' median |error| with each level taken out, derived by hand; bad input. And
data/validation/jitter_bias.py on a hand-made run and its decomposition: each row's delta (how far
the plan's median sits above compute-only's median plus its paired overhead) by hand; a
decomposition whose rows are not the run's, or has none: one line, exit 65; a missing file 66."""
import json
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
# data/validation/jitter_bias.py (built on miss_sources.read and score)
JB_TOOL = os.path.join(ROOT, "data", "validation", "jitter_bias.py")
# compute-only 100 / 100 / 130 us. Plan p 110 / 110 / 140: same-round differences 10 each, d 10,
# residuals 0, median 110 = 100 + 10: delta 0 and conv 0. Plan q 112 / 108 / 140: differences
# 12 / 8 / 10, d 10, median 112: delta 112 - 100 - 10 = 2 us, 2 / 112 = 1.786% of its median.
# Mean delta over the two rows: 0.893%.
RUN = {"format": "fusim-torch-validation-1",
       "models": [{"workload": "m_b8_torchval", "compute_only_times_us": [100.0, 100.0, 130.0],
                   "rows": [{"plan_label": "p", "times_us": [110.0, 110.0, 140.0]},
                            {"plan_label": "q", "times_us": [112.0, 108.0, 140.0]}]}]}


def jrow(plan, err):
    return ("%-30s %-24s err %+6.2f = noise  +0.00 base  +0.00 fwd  +0.00 bwd  +0.00 rest  +0.00 "
            "other  +0.00\n" % ("m_b8_torchval", plan, err))


with tempfile.TemporaryDirectory() as tmp:
    os.makedirs(os.path.join(tmp, "runX"))
    with open(os.path.join(tmp, "runX", "runs.json"), "w") as f:
        json.dump(RUN, f)
    dec = os.path.join(tmp, "decomp.txt")
    with open(dec, "w") as f:
        f.write("== runX\n" + jrow("p", 1.0) + jrow("q", -6.0))
    p = subprocess.run([sys.executable, JB_TOOL, dec, tmp], capture_output=True, text=True)
    first = (p.stdout.splitlines() or [""])[0]
    check("exit 0 (got %d, %r)" % (p.returncode, p.stderr), p.returncode == 0)
    check("mean delta +0.89%% by hand (got %r)" % first, first.startswith("rows 2: mean delta +0.89"))
    check("as they are: 1 row above 5%%, sum 3.5 (got %r)" % p.stdout,
          "as they are              rows above 5%    1  sum of medians    3.5" in p.stdout)
    # a row the run does not have
    with open(dec, "w") as f:
        f.write("== runX\n" + jrow("p", 1.0) + jrow("z", -6.0))
    p = subprocess.run([sys.executable, JB_TOOL, dec, tmp], capture_output=True, text=True)
    check("a row not the run's: exit 65, one line (got %d, %r)" % (p.returncode, p.stderr),
          p.returncode == 65 and len(p.stderr.strip().splitlines()) == 1)
    # a run that is not there
    with open(dec, "w") as f:
        f.write("== runY\n" + jrow("p", 1.0))
    p = subprocess.run([sys.executable, JB_TOOL, dec, tmp], capture_output=True, text=True)
    check("a run not there: exit 65, one line (got %d, %r)" % (p.returncode, p.stderr),
          p.returncode == 65 and len(p.stderr.strip().splitlines()) == 1)
    # no decomposed rows 65, a missing file 66: one line each, as miss_sources (no traceback)
    with open(dec, "w") as f:
        f.write("== runX\n")
    for arg, code in ((dec, 65), (os.path.join(tmp, "missing.txt"), 66)):
        p = subprocess.run([sys.executable, JB_TOOL, arg, tmp], capture_output=True, text=True)
        check("jitter_bias %s: exit %d, one line (got %d, %r)" % (os.path.basename(arg), code,
                                                                  p.returncode, p.stderr),
              p.returncode == code and len(p.stderr.strip().splitlines()) == 1 and not p.stdout)
sys.exit(1 if fails else 0)
