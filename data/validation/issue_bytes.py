#!/usr/bin/env python3
"""issue_bytes.py: the hook pattern's per-bucket host cost in real-PyTorch runs, split into a part
per bucket and a part that grows with the bytes offloaded during backward (session 21, issue 10).

For each model of each run: y(plan) = the plan's median backward() CPU time minus the overlap-off
plan's (hooks 25 MiB overlap off: the same hooks, every offload issued after backward) for the
overlap-on plans hooks none / 4 MiB / 25 MiB; the least-squares line y = a x buckets + X gives a,
the cost per bucket issued inside backward, and X, the rest (independent of the bucketing). a is
compared with the tower's hooks.bucket_us carried to the loop by the autograd thread's probe (as
store_torch_validation carries it), X with the bytes offloaded. The same for DDP's offload comm
hook against DDP's default all-reduce at the same caps (two plans: a rough split).

    python3 data/validation/issue_bytes.py data/validation/torch_h200_run{11,12,13,14,15}
"""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import store_torch_validation as S  # noqa: E402
import bad_input  # noqa: E402
import torch_runs  # noqa: E402


def line(xs, ys):
    """Least-squares (slope, intercept)."""
    mx, my = statistics.fmean(xs), statistics.fmean(ys)
    p = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return p, my - p * mx


def main(dirs):
    for rd in dirs:
        run = torch_runs.load(rd)
        fc = run.get("framework_costs") or {}
        print("== %s" % os.path.basename(os.path.normpath(rd)))
        for m in run["models"]:
            wl = json.load(open(os.path.join(rd, "wl_%s.json" % m["workload"])))
            mib = sum(g["bytes"] for g in wl["grads"]) / 2**20
            co = m["compute_only_cpu_fwd_bwd_rest_us"][1]
            R = {r["plan_label"]: r for r in m["rows"]}
            ex = lambda lb: R[lb]["cpu_fwd_bwd_rest_us"][1] - co  # noqa: E731
            nb = lambda lb: len(R[lb]["buckets"])  # noqa: E731
            on = ("hooks none", "hooks 4MiB", "hooks 25MiB")
            a, X = line([nb(p) for p in on], [ex(p) - ex("hooks 25MiB overlap off") for p in on])
            ff = S.fw_factors(fc, m)
            charged = fc["hooks"]["bucket_us"] * (ff[1] if ff else 1.0)
            pairs = (("ddp offload default", "ddp default"), ("ddp offload 4MiB", "ddp 4MiB"))
            ddp = ""
            if all(p in R and q in R for p, q in pairs):   # run 16 ran a shorter matrix
                a2, X2 = line([nb(p) for p, _ in pairs], [ex(p) - ex(q) for p, q in pairs])
                ddp = " | DDP offload over all-reduce: a %6.1f X %6.0f" % (a2, X2)
            print("%-28s %6.0f MiB | hooks: a %6.1f us/bucket (tower %5.1f) X %6.0f us = %5.2f us/MiB%s"
                  % (m["workload"], mib, a, charged, X, X / mib, ddp))


if __name__ == "__main__":
    sys.exit(bad_input.run("issue_bytes", main, sys.argv[1:]))
