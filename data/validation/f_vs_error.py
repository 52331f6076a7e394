#!/usr/bin/env python3
"""f_vs_error.py: does the carry factor f of the costs measured on the model (the loop's
framework-free backward() CPU over the capture's; store_torch_validation.model_cost_factor) tell
which model-runs are priced too slow? Per model-run, f (mode_split.model_runs) and the
median and mean signed error of its rows as the store prices them now
(tools/store_torch_validation.py RUNDIR --no-store --csv), sorted by f. Session 33 asked it after two
held-out model-runs with f above 1.2 (run 31's Mistral 1.56, run 33's Swin-B 1.24) were both
priced about 5% too slow.

    python3 data/validation/f_vs_error.py data/validation/torch_h200_run{11..30} \\
        data/validation/torch_h100_run31 data/validation/torch_h100_run32 data/validation/torch_h200_run33
"""
import csv
import os
import re
import statistics as st
import subprocess
import sys
import tempfile

import mode_split

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")


def carry_factors(rundir):
    """{workload: f} of a run's model-runs that measured costs on the model."""
    return {name: f for name, _, _, f in mode_split.model_runs(rundir)}


def errors_from_csv(text):
    """{workload: [signed % error of each row]} from the store's --csv matrix."""
    out = {}
    for row in csv.DictReader(line for line in text.splitlines() if not line.startswith("#")):
        out.setdefault(row["workload"], []).append(100 * float(row["rel_err"]))
    return out


def signed_errors(rundir):
    """{workload: [signed % error of each row]} as the store prices the run now."""
    with tempfile.TemporaryDirectory(prefix="f-vs-error-") as tmp:
        path = os.path.join(tmp, "matrix.csv")
        subprocess.run([sys.executable, os.path.join(ROOT, "tools", "store_torch_validation.py"),
                        rundir, "--no-store", "--csv", path], capture_output=True, check=True)
        with open(path) as f:
            return errors_from_csv(f.read())


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
