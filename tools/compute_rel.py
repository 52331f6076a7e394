#!/usr/bin/env python3
"""compute_rel.py: the compute model's own 95% relative error, which `fusim workload --transformer/--cnn`
writes into every estimate it prices from the profile's tables ("compute_rel", FU_COMPUTE_REL in
sim/fu_builder.h) and `fusim predict` adds to the interval.

The rows: the 13 H200 captures that tools/compare_compute.py holds to its targets on the default
profile, its comparison set (data/compute/comparison.csv, 7 captures on the calibration's lease)
and its held-out-like set (data/compute/heldout.csv, 6 shapes never in the comparison set, another
lease). Rebuild both with

    python3 tools/compare_compute.py --csv data/compute/comparison.csv --heldout-csv data/compute/heldout.csv

Per row the step's compute error |(fwd+bwd+opt) estimate / (fwd+bwd+opt) captured - 1| (predict
scales all three by one factor), and its 95th percentile with linear interpolation between the
order statistics (statistics.quantiles, method 'inclusive'). fwd+bwd and the optimizer apart give
the same within 0.1 point (printed), so one term. Prints the term rounded to 4 decimals; --check N
exits 1 unless that is N.

Usage: python3 tools/compute_rel.py [--csv FILE ...] [--check N]
"""
import argparse
import csv
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import bad_input  # noqa: E402

CSVS = [os.path.join(ROOT, "data", "compute", f) for f in ("comparison.csv", "heldout.csv")]


def p95(xs):
    return statistics.quantiles(xs, n=20, method="inclusive")[18]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--csv", nargs="+", default=CSVS, help="compare_compute.py's rows (default: both sets)")
    ap.add_argument("--check", type=float, help="exit 1 unless the term is this")
    a = ap.parse_args()
    rows = []
    for path in a.csv:
        with open(path, newline="") as f:
            rows += list(csv.DictReader(f))
    if len(rows) < 2:
        raise ValueError("fewer than 2 rows")

    def err(r, parts):
        return abs(sum(float(r[p + "_est"]) for p in parts) / sum(float(r[p + "_cap"]) for p in parts) - 1)

    step = p95([err(r, ("fwd", "bwd", "opt")) for r in rows])
    print("%d captures: 95th percentile of |err|: fwd+bwd %.2f%%, optimizer %.2f%%, fwd+bwd+opt %.2f%%" % (
        len(rows), 100 * p95([err(r, ("fwd", "bwd")) for r in rows]), 100 * p95([err(r, ("opt",)) for r in rows]),
        100 * step))
    rel = round(step, 4)
    print("compute_rel %.4f" % rel)
    if a.check is not None and a.check != rel:
        print("compute_rel: %g expected, the rows give %.4f" % (a.check, rel), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("compute_rel", main))
