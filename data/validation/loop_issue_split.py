#!/usr/bin/env python3
"""loop_issue_split.py: what the in-backward issue costs inside the validation loop, split into its
own calls and the rest, from tools/loop_issue_probe.py's JSON (issue 10, session 26, torch17).

Per model and hook plan (its buckets a step): whole = the plan's backward() CPU over the 25 MiB
overlap-off plan's (median of same-round differences) over its buckets, the issue's whole cost in
the loop as the runs' rows see it; calls = the issues' own calls timed in the same steps (mean a
step: a step's first issue and the others as they fall); left = whole - calls, backward's own
host work slowed by the issue ((b)). Against the per-tensor plan (an issue every gradient, what
the captures' per-bucket cost measures whole): the rise of whole and of calls, and their ratio
k = rise(whole) / rise(calls), with a bootstrap over rounds (p5, p95).

    python3 data/validation/loop_issue_split.py data/validation/loop_issue_probe_run1/loop_issue_probe.json
"""
import json
import os
import random
import statistics as st
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import bad_input  # noqa: E402
from quantile import quantile  # noqa: E402

PLANS = ("hooks none", "hooks 4MiB", "hooks 25MiB")


def per_issue(runs, rs):
    """{plan: (buckets, whole us an issue, calls us an issue)} over rounds rs."""
    off = runs["hooks 25MiB overlap off"]["cpu"]
    out = {}
    for lab in PLANS:
        x = runs[lab]
        nb = st.median(len(x["issues"][r]) for r in rs)
        whole = st.median(x["cpu"][r][1] - off[r][1] for r in rs) / nb
        calls = st.mean(sum(d for _, d in x["issues"][r]) / 1e3 / len(x["issues"][r]) for r in rs)
        out[lab] = (nb, whole, calls)
    return out


def main(path, boot=500, seed=1):
    with open(path) as f:
        res = json.load(f)
    res["models"][0]["runs"]["compute-only"]["cpu"]  # a loop_issue_probe output, before any line
    rng = random.Random(seed)
    ks = []
    for m in res["models"]:
        runs = m["runs"]
        n = len(runs["compute-only"]["cpu"])
        bwd = st.median(c[1] for c in runs["compute-only"]["cpu"])
        est = per_issue(runs, range(n))
        samples = [per_issue(runs, [rng.randrange(n) for _ in range(n)]) for _ in range(boot)]
        print("%s b%d (P %d, %d rounds, compute-only backward() CPU %.0f us)"
              % (m["model"], m["batch"], m["P"], n, bwd))
        d0 = est["hooks none"]
        for lab in PLANS:
            nb, whole, calls = est[lab]
            line = ("  %-12s %4d buckets %6.0f us apart: whole %6.1f, calls %6.1f, left %6.1f us an issue"
                    % (lab, nb, bwd / nb, whole, calls, whole - calls))
            if lab != "hooks none":
                rw, rc = whole - d0[1], calls - d0[2]
                kk = [(s[lab][1] - s["hooks none"][1]) / (s[lab][2] - s["hooks none"][2])
                      for s in samples if s[lab][2] - s["hooks none"][2] > 0]
                line += ("; rise over per tensor: whole %+6.1f, calls %+6.1f, k %.2f [%.2f, %.2f]"
                         % (rw, rc, rw / rc, quantile(kk, 0.05), quantile(kk, 0.95)))
                if quantile(kk, 0.05) > 0:   # the rounds tell it from none (a plan of 1-4 buckets a
                    ks.append(rw / rc)  # step cannot: its whole cost is a ms-noisy step difference
            print(line)
    if ks:
        print("k where its bootstrap p5 is above 0: %s, median %.2f"
              % (", ".join("%.2f" % k for k in ks), st.median(ks)))
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: loop_issue_split.py LOOP_ISSUE_PROBE.json")
    sys.exit(bad_input.run("loop_issue_split", main, sys.argv[1]))
