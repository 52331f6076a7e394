#!/usr/bin/env python3
"""optim_parts.py: which input an optimizer miss comes from. A capture's opt_us runs, on the
GPU, from the event after backward() returns to the one after opt.step() returns, so it is
opt.step()'s device time and its host time beyond the GPU's lag at backward's end
(data/compute/README.md 2026-12-05). fusim prices that span from three parts (fu__optim_sized:
max(max(0, prologue_frac x host - lead) + device, host - lead + tail_us), the profile's row) and
prints them in its notes; a capture records the same three: opt_gpu_only_us (device alone),
cpu_opt_call_us (opt.step()'s CPU time) and the lag (fwd + bwd - forward()'s and backward()'s
CPU times; compare_compute.optim_parts). Per capture that records all three, this prints:
  opt_cap   the captured step (us)
  own       the formula on the capture's own three parts (% against opt_cap): how far the
            formula itself is off
  lead, host, dev
            the formula with that one part the estimate's and the other two the capture's (%):
            the miss that part alone brings
  est       compare_compute's optimizer figure (%)
then, over the captures, the median and largest |%| of each column and how many exceed 20%.

Usage: python3 tools/optim_parts.py DIR [DIR...] [--fusim build/fusim] [--profile P]"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import bad_input  # noqa: E402
import compare_compute  # noqa: E402


def step_us(dev, host, lead, prologue_frac, tail_us):
    """The optimizer step as fusim prices it with a measured prologue (fu__optim_sized): the GPU
    waits for the prologue beyond the lead, then runs the device time; where the host is behind,
    the step ends tail_us after its last issue."""
    return max(max(0.0, prologue_frac * host - lead) + dev, host - lead + tail_us)


def swaps(row, prologue_frac, tail_us):
    """{column: step_us} for one compare_compute row: own (the capture's three parts), and each of
    lead, host, dev the estimate's with the other two the capture's; None where the capture lacks
    a part."""
    cap = (row["opt_dev_cap"], row["opt_host_cap"], row["lag_cap"])
    if any(v != v for v in cap):
        return None
    dev, host, lag = cap[0], cap[1], max(0.0, cap[2])
    f = lambda d, h, l: step_us(d, h, l, prologue_frac, tail_us)  # noqa: E731
    return {"own": f(dev, host, lag), "lead": f(dev, host, row["lead_est"]),
            "host": f(dev, row["opt_host_est"], lag), "dev": f(row["opt_dev_est"], host, lag)}


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--fusim", default=os.path.join(os.path.dirname(HERE), "build", "fusim"))
    ap.add_argument("--profile", default=os.path.join(os.path.dirname(HERE), "data", "profiles", "h200-default.json"))
    a = ap.parse_args(argv)
    a.no_host_ref = a.no_host_probe = a.no_bwd_probe = False
    a.by_gpu = False  # one profile: its optimizer rows are read below
    rows_of = {r["name"]: r for r in json.load(open(a.profile))["compute"]["optimizer"]}
    rows, st = compare_compute.compare(a, compare_compute.captures_in(a.dirs))
    if st:
        return st
    cols = ("own", "lead", "host", "dev", "est")
    errs = {c: [] for c in cols}
    print("%-34s %8s %7s %7s %7s %7s %7s" % (("capture", "opt_cap") + cols))
    for r in rows:
        o = rows_of[compare_compute.optimizer_for(r["model"])]
        s = swaps(r, o.get("prologue_frac", 0.0), o.get("tail_us", 0.0))
        if s is None or not r["opt_cap"] > 0:
            continue
        s["est"] = r["opt_est"]
        pct = {c: 100 * (s[c] / r["opt_cap"] - 1) for c in cols}
        for c in cols:
            errs[c].append(abs(pct[c]))
        print("%-34s %8.0f %s" % (r["model"][:34], r["opt_cap"], " ".join("%+6.1f%%" % pct[c] for c in cols)))
    if not errs["own"]:
        print("optim_parts: no capture records its optimizer's three parts", file=sys.stderr)
        return 65
    print("%-34s %8s %s" % ("median |%|", "", " ".join("%6.1f%%" % statistics.median(errs[c]) for c in cols)))
    print("%-34s %8s %s" % ("max |%|", "", " ".join("%6.1f%%" % max(errs[c]) for c in cols)))
    print("%-34s %8s %s" % ("beyond 20%", "", " ".join("%7d" % sum(e > 20 for e in errs[c]) for c in cols)))
    return 0


if __name__ == "__main__":
    sys.exit(bad_input.run("optim_parts", main, sys.argv[1:]))
