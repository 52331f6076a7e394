#!/usr/bin/env python3
"""hook_carry.py: which factor carries the hook pattern's per-tensor cost measured on the model
(the capture's hk_n over its framework-free step, per tensor) to the validation loop best, for
every committed run 11-27 with hk_n (no GPU). The loop's cost is its `hooks none` backward() CPU
over compute-only per tensor, paired by round [p5, p95 of a bootstrap]; loop / model for each
carry, then per carry the median ratio and the spread of log(ratio) over the model-runs:
  A  the loop's framework-free backward() CPU median over the one beside hk_n (the store's)
  B  none
  C  A with the loop's backward() scaled by store_torch_validation.step_total (the rounds' sum)
  D  the loop's backward() CPU over the capture's whole-step backward() (host block)
  E  the autograd thread's host-speed probe, loop median over the capture's

    python3 data/validation/hook_carry.py   (hook_carry.txt)
    python3 data/validation/hook_carry.py RUNDIR ...   (those runs instead of 11-27)
"""
import json
import math
import os
import re
import statistics as st
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tools"))
import store_torch_validation as stv  # noqa: E402
import torch_runs  # noqa: E402
from copy_paired import paired_loop  # noqa: E402


def main(rundirs):
    logs = {k: [] for k in "ABCDE"}
    for d in rundirs:
        path = torch_runs.find(os.path.join(d, "runs.json"))
        if not os.path.exists(path):
            continue
        n = int(re.search(r"run(\d+)$", os.path.normpath(d)).group(1))
        for m in torch_runs.load(path)["models"]:
            wl = os.path.join(os.path.dirname(path), "wl_%s.json" % m["workload"])
            rows = {r["plan_label"]: r for r in m["rows"]}
            if not os.path.exists(wl) or "hooks none" not in rows:
                continue
            w = json.load(open(wl))
            fm = (w.get("meta") or {}).get("framework_on_model") or {}
            raw = fm.get("raw") or {}
            if not raw.get("hk_n"):
                continue
            P, cpu = fm["P"], m["compute_only_cpu_fwd_bwd_rest_us"]
            mod = st.median(h - z for h, z in zip(raw["hk_n"], raw["none"])) / P
            lb, lci = paired_loop(rows["hooks none"]["cpu_times_us"],
                                  m["compute_only_cpu_times_us"], P)
            cap, loop = w["meta"].get("host_bwd_probes_us"), m.get("host_bwd_probe_us")
            carry = {"A": cpu[1] / fm["bwd_cpu_us"], "B": 1.0,
                     "C": stv.step_total(m)[1] / fm["bwd_cpu_us"],
                     "D": cpu[1] / w["host"]["bwd_cpu_us"],
                     "E": st.median(loop) / st.median(cap) if cap and loop else None}
            line = "run%2d %-28s P%4d loop %6.1f [%6.1f,%6.1f] model %6.1f |" % (
                n, m["workload"][:28], P, lb, lci[0], lci[1], mod)
            for k, c in carry.items():
                if c is None:
                    line += " %s:   - " % k
                    continue
                logs[k].append(math.log(lb / (mod * c)))
                line += " %s:%5.2f" % (k, lb / (mod * c))
            print(line)
    for k, v in logs.items():
        print("%s: %d model-runs, loop / carried model median %.3f, sd of log %.3f, "
              "median |log| %.3f" % (k, len(v), math.exp(st.median(v)), st.pstdev(v), st.median(abs(x) for x in v)))


if __name__ == "__main__":
    main(sys.argv[1:] or [os.path.join(HERE, "torch_h200_run%d" % n) for n in range(11, 28)])
