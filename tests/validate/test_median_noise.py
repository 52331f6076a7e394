#!/usr/bin/env python3
"""data/validation/median_noise.py on hand-made rounds: the run median as measured, a prediction
that moves with compute-only's median in a resample, the interval of two variants' difference and
its verdict; bad options give one line and exit 64."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vcheck import ROOT, check, finish  # noqa: E402  (data/validation on sys.path)
import median_noise as mn  # noqa: E402


# One model, three rounds: compute-only 100 / 102 / 98 us, plan p 110 / 112 / 108, plan q 200 each.
# Variant a predicts p 110 and q 190 anchored to compute-only's 100: |errors| 0 and 10 / 200 =
# 5%, run median 2.5%. Variant b predicts p 121 (11 / 110 = 10%) and q 190: median 7.5%.
ROUNDS = {"m": ([100.0, 102.0, 98.0], {"p": [110.0, 112.0, 108.0], "q": [200.0, 200.0, 200.0]})}
A = {"m": {"p": (110.0, 100.0), "q": (190.0, 100.0)}}
B = {"m": {"p": (121.0, 100.0), "q": (190.0, 100.0)}}
got = mn.run_median(A, ROUNDS)
check("run median as measured: 2.5%% (got %r)" % got, abs(got - 0.025) < 1e-12)
# round 1 drawn three times: compute-only's median 102, so p's prediction moves to 112 (its error
# 0), q's to 192 against 200 (4%): median 2%
got = mn.run_median(A, ROUNDS, {"m": [1, 1, 1]})
check("a resample moves the prediction with compute-only's median: 2%% (got %r)" % got,
      abs(got - 0.02) < 1e-12)
ma, mb, (lo, hi) = mn.compare(A, B, ROUNDS, boot=200)
check("variant b 7.5%% against a 2.5%% (got %r, %r)" % (ma, mb),
      abs(ma - 0.025) < 1e-12 and abs(mb - 0.075) < 1e-12)
# b is worse than a in every resample (its p error is 11 / meas, a's 0 or the anchor's shift,
# both below it), so the interval is above 0 and the verdict "worse"
check("b worse in every resample: interval above 0 (got %r, %r)" % (lo, hi), lo > 0 and hi > lo)
check("verdict worse", mn.verdict(lo, hi) == "worse")
ma, mb, (lo, hi) = mn.compare(A, A, ROUNDS, boot=50)
check("the same predictions: interval [0, 0], within noise (got %r, %r)" % (lo, hi),
      lo == hi == 0 and mn.verdict(lo, hi) == "within noise")
check("verdict better", mn.verdict(-0.02, -0.01) == "better")
# bad options: one line on stderr, exit 64, before any run is predicted
tool = os.path.join(ROOT, "data", "validation", "median_noise.py")
for argv in (["--runs", "eleven"], ["--runs", "900-901"]):
    p = subprocess.run([sys.executable, tool] + argv + ["--", "--ddp-spacing"],
                       capture_output=True, text=True)
    check("%r: exit 64, one line (got %d, %r)" % (argv, p.returncode, p.stderr),
          p.returncode == 64 and len(p.stderr.strip().splitlines()) == 1 and not p.stdout)
finish()
