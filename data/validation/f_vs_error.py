#!/usr/bin/env python3
"""f_vs_error.py: does the carry factor f of the costs measured on the model (the loop's
framework-free backward() CPU over the capture's; store_torch_validation.model_cost_factor) tell
which model-runs are priced too slow? Per model-run, f (as mode_split.py computes it) and the
median and mean signed error of its rows as the store prices them now
(tools/store_torch_validation.py RUNDIR --no-store), sorted by f. Session 33 asked it after two
held-out model-runs with f above 1.2 (run 31's Mistral 1.56, run 33's Swin-B 1.24) were both
priced about 5% too slow.

    python3 data/validation/f_vs_error.py data/validation/torch_h200_run{11..30} \\
        data/validation/torch_h100_run31 data/validation/torch_h100_run32 data/validation/torch_h200_run33
"""
import glob
import json
import os
import re
import statistics as st
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
ROW = re.compile(r"(\S+_torchval)\s+.+?\s{2,}\d+\s+\d+\s+([+-]\d+\.\d+)%")


def carry_factors(rundir):
    """{workload: f} of a run's model-runs that measured costs on the model."""
    loop = {m["workload"]: m for m in json.load(open(os.path.join(rundir, "runs.json")))["models"]}
    out = {}
    for p in sorted(glob.glob(os.path.join(rundir, "wl_*.json"))):
        w = json.load(open(p))
        fm = (w.get("meta") or {}).get("framework_on_model") or {}
        m = loop.get(w["name"])
        if m is not None and fm.get("bwd_cpu_us", 0) > 0:
            out[w["name"]] = m["compute_only_cpu_fwd_bwd_rest_us"][1] / fm["bwd_cpu_us"]
    return out


def signed_errors(rundir):
    """{workload: [signed % error of each row]} as the store prices the run now."""
    text = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "store_torch_validation.py"),
                           rundir, "--no-store"], capture_output=True, text=True, check=True).stdout
    out = {}
    for line in text.splitlines():
        m = ROW.match(line)
        if m:
            out.setdefault(m.group(1), []).append(float(m.group(2)))
    return out


def main(rundirs):
    rows = []
    for d in rundirs:
        run = re.search(r"run(\d+)$", os.path.normpath(d)).group(1)
        errs, fs = signed_errors(d), carry_factors(d)
        rows += [(fs[w], run, w, st.median(e), st.mean(e)) for w, e in errs.items() if w in fs]
    rows.sort()
    for f, run, w, med, mean in rows:
        print("f %.2f  run%-3s %-36s median %+6.2f%%  mean %+6.2f%%" % (f, run, w[:36], med, mean))
    hi = [r for r in rows if r[0] >= 1.195]
    print("%d model-runs; f >= 1.2 in %d: median signed error %s" % (
        len(rows), len(hi), ", ".join("%+.2f" % r[3] for r in hi)))


if __name__ == "__main__":
    main(sys.argv[1:])
