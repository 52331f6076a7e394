#!/usr/bin/env python3
"""test_validation_bench.py: torch_validation_bench's interval of the fastest-plan gap, by hand.

fastest_interval resamples a run's rounds, each plan's iteration of a round kept with the other's:
- pick [110, 110] against fastest [100, 100]: every resample gives 110 / 100 - 1 = 0.10, so the
  interval is (0.10, 0.10);
- pick [100, 130] against [100, 100]: a resample of two rounds takes round 0 twice (probability
  1/4: medians 100 / 100, gap 0), round 1 twice (1/4: 130 / 100, gap 0.30) or one of each (1/2:
  115 / 100, gap 0.15). The 5th percentile falls in the first quarter (0), the 95th in the last
  (0.30): (0.0, 0.30);
- one round (or none): no interval, None.
unresolved: a model 15% off whose interval is (0, 0.30) reaches 1%: the run cannot resolve it; one
10% off with (0.10, 0.10) is a miss the run resolves; one within 1% is no miss, with or without an
interval; one 2% off without an interval (no rounds) is not counted as unresolved. -> ["a"]."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_validation_bench as tb  # noqa: E402

FAIL = 0


def check(what, got, want, tol=1e-12):
    global FAIL
    if isinstance(want, tuple) and got is not None:
        ok = len(got) == len(want) and all(abs(g - w) <= tol for g, w in zip(got, want))
    else:
        ok = got == want
    print("%s %s: %r (want %r)" % ("ok  " if ok else "FAIL", what, got, want))
    FAIL += not ok


check("fastest_interval, every round 10% slower", tb.fastest_interval([110, 110], [100, 100]),
      (0.10, 0.10))
check("fastest_interval, one round 30% slower", tb.fastest_interval([100, 130], [100, 100]),
      (0.0, 0.30))
check("fastest_interval, one round", tb.fastest_interval([110], [100]), None)
check("unresolved", tb.unresolved({"a": 0.15, "b": 0.10, "c": 0.005, "d": 0.02},
                                  {"a": (0.0, 0.30), "b": (0.10, 0.10), "c": (-0.02, 0.03),
                                   "d": None}), ["a"])
sys.exit(1 if FAIL else 0)
