#!/usr/bin/env python3
"""in_bwd_issue.py: does the hook pattern's in-backward issue measured on the model at capture
(tools/torch_beside.py, meta.beside_d2h.in_bwd_issue_us: backward() CPU time with the 25 MiB
buckets offloaded inside backward minus with them offloaded after it) explain what the loop's
hook-pattern rows miss? (session 21, issue 10, helper torch6)

Per model of each run:
- the loop's own comparison: backward() CPU time of 'hooks 25MiB' minus 'hooks 25MiB overlap
  off' (the same hooks and buckets), against what fusim charges for it, the issue calls
  (buckets x hooks.bucket_us carried by the autograd thread's probe, as store_torch_validation
  carries it); the rest is the loop's excess;
- where the workload has the on-model value: it carried to the loop by the overlap-off plan's
  backward() CPU time in the loop over the capture's (median of the hk_off rounds: the same hooks
  and buckets), and its excess over the same issue calls;
- the two rows' shortfall, measured minus predicted (store.txt), and the part of it that is
  the in-backward plan's alone (25MiB's shortfall minus overlap off's).

Then, per plan of the hook pattern (none, 4 MiB, 25 MiB; --per-plan): the same excess, the
plan's backward() CPU time over overlap off's beyond its issue calls, against the backward host
work left after its first in-backward issue (the first bucket to fill; its last gradient's CPU
offset on the capture's timeline, as a fraction of backward, times the loop's framework-free
backward() CPU time): s = excess / that work, the slowdown it would be if backward's own host
work after the first issue were slowed by a factor.

    python3 data/validation/in_bwd_issue.py data/validation/torch_h200_run{15,16,17}
    python3 data/validation/in_bwd_issue.py --per-plan data/validation/torch_h200_run{11,...,17}
"""
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools"))
import store_torch_validation as S  # noqa: E402
import bad_input  # noqa: E402
import torch_runs  # noqa: E402

ON, OFF = "hooks 25MiB", "hooks 25MiB overlap off"
PLANS = ("hooks none", "hooks 4MiB", ON)
ROW = re.compile(r"^(\S+)\s+(.+?)\s+(\d+)\s+(\d+)\s+[+-][\d.]+%")


def predictions(rd):
    """{(workload, plan): (measured, predicted)} from the run's store.txt."""
    out = {}
    for ln in open(os.path.join(rd, "store.txt")):
        m = ROW.match(ln)
        if m:
            out[(m.group(1), m.group(2))] = (float(m.group(3)), float(m.group(4)))
    return out


def main(dirs):
    print("%-30s %3s %6s | %14s %6s %7s %6s | %19s %6s | %6s %6s %6s"
          % ("workload", "N", "first", "on-model (CI)", "carry", "carried", "excess",
             "loop on-off, charged", "excess", "sh on", "sh off", "on-off"))
    for rd in dirs:
        run = torch_runs.load(rd)
        fc = run.get("framework_costs") or {}
        pred = predictions(rd)
        print("== %s" % os.path.basename(os.path.normpath(rd)))
        for m in run["models"]:
            wl = json.load(open(os.path.join(rd, "wl_%s.json" % m["workload"])))
            R = {r["plan_label"]: r for r in m["rows"]}
            if ON not in R or OFF not in R:
                continue
            bw = lambda lb: R[lb]["cpu_fwd_bwd_rest_us"][1]  # noqa: E731
            n = len(R[ON]["buckets"])
            ff = S.fw_factors(fc, m)
            charged = n * fc["hooks"]["bucket_us"] * (ff[1] if ff else 1.0)
            loop = bw(ON) - bw(OFF)
            b = (wl.get("meta") or {}).get("beside_d2h") or {}
            raw = b.get("raw") or {}
            model = "%30s" % "-"
            if b.get("in_bwd_issue_us") is not None and raw.get("hk_off"):
                carry = bw(OFF) / statistics.median(raw["hk_off"])
                lo, hi = b["ci"]["in_bwd_issue_us"]
                c = b["in_bwd_issue_us"] * carry
                model = "%5.0f (%5.0f,%5.0f) %6.3f %7.0f %6.0f" % (
                    b["in_bwd_issue_us"], lo, hi, carry, c, c - charged)
            sh = [pred[(m["workload"], p)][0] - pred[(m["workload"], p)][1] for p in (ON, OFF)]
            first = raw.get("hk_first_frac")
            print("%-30s %3d %6s | %s | %9.0f %9.0f %6.0f | %6.0f %6.0f %6.0f"
                  % (m["workload"], n, "%.3f" % first if first is not None else "-", model,
                     loop, charged, loop - charged, sh[0], sh[1], sh[0] - sh[1]))


def per_plan(dirs):
    print("%-30s %7s | %s" % ("workload", "bwd", " | ".join(
        "%-5s %3s %4s %6s %6s" % (p.split()[1], "N", "f", "excess", "s") for p in PLANS)))
    for rd in dirs:
        run = torch_runs.load(rd)
        fc = run.get("framework_costs") or {}
        print("== %s" % os.path.basename(os.path.normpath(rd)))
        for m in run["models"]:
            R = {r["plan_label"]: r for r in m["rows"]}
            if any(p not in R for p in PLANS + (OFF,)):
                continue
            wl = json.load(open(os.path.join(rd, "wl_%s.json" % m["workload"])))
            h = wl["host"]
            at = {g["name"]: i for i, g in enumerate(wl["grads"])}
            ff = S.fw_factors(fc, m)
            per = fc["hooks"]["bucket_us"] * (ff[1] if ff else 1.0)
            co = m["compute_only_cpu_fwd_bwd_rest_us"][1]
            out = []
            for p in PLANS:
                bks = R[p]["buckets"]
                f = h["grad_cpu_us"][min(max(at[t] for t in b) for b in bks)] / h["bwd_cpu_us"]
                x = R[p]["cpu_fwd_bwd_rest_us"][1] - R[OFF]["cpu_fwd_bwd_rest_us"][1] - \
                    len(bks) * per
                out.append("%-5s %3d %4.2f %6.0f %6.3f" % ("", len(bks), f, x, x / (co * (1 - f))))
            print("%-30s %7.0f | %s" % (m["workload"], co, " | ".join(out)))


if __name__ == "__main__":
    if sys.argv[1:2] == ["--per-plan"]:
        sys.exit(bad_input.run("in_bwd_issue", per_plan, sys.argv[2:]))
    sys.exit(bad_input.run("in_bwd_issue", main, sys.argv[1:]))
