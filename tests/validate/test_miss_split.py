#!/usr/bin/env python3
"""data/validation/miss_split.py on a hand-made --rows CSV (tests/bench/torch_validation_bench.py),
every figure derived by hand; bad input.

Two model-runs of two plans, compute-only 1000 us, every row measured 1000 us:
  m1 (run A, twin 1040): p1 predicted 1100 (+10%, resolved by its run), p2 1020 (+2%);
  m2 (run B, twin 1040): p1 predicted 930 (-7%, not resolved), p2 1000 (0%).
- 4 rows, 2 above 5% (1 too slow, 1 too fast); 1 not resolved by their run, 1 resolved; the
  resolved one is p1's +10.0;
- by plan p1: 2 rows, signed median and mean (10 - 7) / 2 = +1.50%, 2 above 5% (1 / 1), 1 resolved;
- each model-run's median: m1 +6%, m2 -3.5%; squared errors 0.01 + 0.0004 + 0.0049 + 0 = 0.0153,
  their medians' 2 x 0.0036 + 2 x 0.001225 = 0.00965: 63%; with it out the rows are +-4% and
  -+3.5%: 0 above 5%;
- anchored on the twin (+40 us on every prediction): m1 1140 (+14%) and 1060 (+6%), m2 970 (-3%)
  and 1040 (+4%): 2 above 5%, 1 brought within (m2 p1), 1 taken out (m1 p2).
Bad input: a missing file exit 66; a CSV without the `resolved` column or without rows, 65."""
import csv
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.environ.get("FUSIM_SOURCE_ROOT", os.path.join(os.path.dirname(__file__), "..", ".."))
TOOL = os.path.join(ROOT, "data", "validation", "miss_split.py")
fails = 0


def check(name, ok, got=""):
    global fails
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else ": " + got))
    fails += not ok


COLS = ("run", "gpu", "workload", "plan", "n_buckets", "amp", "optimizer", "clip_grad_norm",
        "compute_only_us", "loop_spread", "twin_us", "measured_us", "predicted_us", "rel_err",
        "resolved")


def row(run, model, plan, pred, resolved):
    return dict(run=run, gpu="H200", workload=model, plan=plan, n_buckets=4, amp="bf16",
                optimizer="adamw", clip_grad_norm="", compute_only_us=1000, loop_spread=0.3,
                twin_us=1040, measured_us=1000, predicted_us=pred, rel_err=pred / 1000 - 1,
                resolved=resolved)


def run(path):
    return subprocess.run([sys.executable, TOOL, path], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as d:
    good = os.path.join(d, "rows.csv")
    with open(good, "w", newline="") as f:
        w = csv.DictWriter(f, COLS)
        w.writeheader()
        w.writerows([row("A", "m1", "p1", 1100, 1), row("A", "m1", "p2", 1020, ""),
                     row("B", "m2", "p1", 930, 0), row("B", "m2", "p2", 1000, "")])
    p = run(good)
    out = p.stdout
    check("exit 0", p.returncode == 0, p.stderr)
    check("rows above 5%, resolved",
          "4 rows, 2 above 5% (1 too slow, 1 too fast); 1 not resolved by their run, 1 resolved"
          in out, out)
    check("the resolved row by plan", re.search(r"resolved, p1\s+\+10\.0\n", out) is not None, out)
    check("by plan p1", re.search(r"\n  p1\s+2\s+\+1\.50% /\s+\+1\.50%\s+2 \(1 / 1\)\s+1\n", out)
          is not None, out)
    check("model-run share", "each model-run's median error: 63% of the squared error; rows "
          "above 5% with it taken out: 0" in out, out)
    check("twin anchor", "loops with a baseline twin: 4 rows, 2 above 5%; anchored on the twin's "
          "median instead of compute-only's: 2 (1 brought within 5%, 1 taken out)" in out, out)
    p = run(os.path.join(d, "missing.csv"))
    check("missing file: 66, one line", p.returncode == 66 and len(p.stderr.splitlines()) == 1,
          p.stderr)
    bad = os.path.join(d, "bad.csv")
    with open(bad, "w") as f:
        f.write(",".join(COLS[:-1]) + "\nA,H200,m1,p1,4,bf16,adamw,,1000,0.3,,1000,1100,0.1\n")
    p = run(bad)
    check("no resolved column: 65", p.returncode == 65 and "no column resolved" in p.stderr, p.stderr)
    with open(bad, "w") as f:
        f.write(",".join(COLS) + "\n")
    p = run(bad)
    check("no rows: 65", p.returncode == 65 and "no rows" in p.stderr, p.stderr)
sys.exit(1 if fails else 0)
