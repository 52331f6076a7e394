#!/usr/bin/env python3
"""plan_bias.py: is any plan mispriced the same way run after run? Each run predicted again by the
fusim under test (tests/bench/torch_validation_bench.matrix: store_torch_validation --no-store),
its rows pooled by plan: rows, median and mean signed error (measured against predicted: + too
slow, - too fast), rows too slow, median |error|. A plan whose median stays near 0 while its
|error| does not misses by the hosts' noise, not by a mechanism of its own.

    python3 data/validation/plan_bias.py build/fusim RUNDIR [RUNDIR ...]
    (runs 11-40: $(ls -d data/validation/torch_h*_run* | grep -v x2 | awk -F'run' '$NF+0 >= 11'))
"""
import os
import statistics
import sys
import tempfile

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "bench"))
import torch_validation_bench as bench  # noqa: E402


def by_plan(rows):
    """{plan: [signed error, ...]} over rows (store rows: plan, rel_err as a fraction)."""
    out = {}
    for r in rows:
        out.setdefault(r["plan"], []).append(r["rel_err"])
    return out


def table(errs):
    """Lines, the plans in order of their median signed error."""
    lines = ["%-28s %5s %8s %8s %6s %8s" % ("plan", "rows", "median", "mean", "slow", "|med|")]
    for plan, e in sorted(errs.items(), key=lambda kv: statistics.median(kv[1])):
        lines.append("%-28s %5d %+7.2f%% %+7.2f%% %6d %7.2f%%"
                     % (plan, len(e), 100 * statistics.median(e), 100 * statistics.mean(e),
                        sum(1 for x in e if x > 0), 100 * statistics.median(abs(x) for x in e)))
    return lines


def main(argv):
    if len(argv) < 3:
        print(__doc__.strip().splitlines()[-2].strip(), file=sys.stderr)
        return 64
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for d in argv[2:]:
            rows += bench.matrix(argv[1], d, tmp)
    print("%d rows of %d runs" % (len(rows), len(argv) - 2))
    print("\n".join(table(by_plan(rows))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
