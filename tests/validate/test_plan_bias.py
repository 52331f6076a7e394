#!/usr/bin/env python3
"""data/validation/plan_bias.py by hand: rows of two plans, signed errors -2%, +1%, +4% (plan A:
median +1%, mean +1%, 2 too slow, median |error| 2%) and -1%, -3% (plan B: median and mean -2%,
none too slow, |error| 2%): B's line first (the lower median), each figure as computed here."""
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "data", "validation"))
import plan_bias  # noqa: E402

rows = [{"plan": "A", "rel_err": e} for e in (-0.02, 0.01, 0.04)] + [{"plan": "B", "rel_err": e} for e in (-0.01, -0.03)]
lines = plan_bias.table(plan_bias.by_plan(rows))
want = ["B                                2   -2.00%   -2.00%      0    2.00%",
        "A                                3   +1.00%   +1.00%      2    2.00%"]
ok = lines[1:] == want and lines[0].split() == ["plan", "rows", "median", "mean", "slow", "|med|"]
print("ok" if ok else "FAIL: %r" % lines)
sys.exit(0 if ok else 1)
