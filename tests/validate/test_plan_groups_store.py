#!/usr/bin/env python3
"""test_plan_groups_store.py: a model timed in plan groups (validate_torch.plan_groups: one
runs.json entry a group, the same workload, each with its own compute-only rounds and no probe
runners) is stored and benched as the same model. Held-out run 40c's Falcon-style decoder (12
plans; its probe runners left out, as a grouped loop has none) as one entry and split into two
groups of six: store_torch_validation --no-store prints the same rows, and the bench the same
figures. Then group 2's compute-only rounds made 1000 us slower: each of its rows' measured
overhead (plan less its own group's compute-only) drops by exactly 1000 us, group 1's do not move.
Usage: test_plan_groups_store.py FUSIM"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import torch_runs  # noqa: E402

fusim = sys.argv[1]
RUN = os.path.join(ROOT, "data", "validation", "torch_h100_run40c")
fails = []


def check(what, ok):
    print("%s %s" % ("ok  " if ok else "FAIL", what))
    if not ok:
        fails.append(what)


def folder(tmp, name, models):
    d = os.path.join(tmp, name)
    os.makedirs(d)
    for f in os.listdir(RUN):
        if f.startswith("wl_falcon") or f == "fwcal.jsonl":
            shutil.copy(os.path.join(RUN, f), d)
    json.dump(dict(run, models=models), open(os.path.join(d, "runs.json"), "w"))
    return d


def store(d):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "store_torch_validation.py"), "--fusim", fusim,
                        "--no-store", d], capture_output=True, text=True)
    return r.returncode, r.stdout


def overheads(text):
    """{plan: measured overhead} from the store's row lines."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^\S+\s+(.+?)\s+\d+\s+\d+\s+[+-]\d+\.\d+%\s+ov\s+(-?\d+) /", line)
        if m:
            out[m.group(1).strip()] = int(m.group(2))
    return out


run = torch_runs.load(RUN)
m = dict(run["models"][0], loop_probes=None)
rows = m["rows"]
g1, g2 = dict(m, rows=rows[:6], plan_group=[1, 2]), dict(m, rows=rows[6:], plan_group=[2, 2])
slow = [t + 1000 for t in m["compute_only_times_us"]]
g2_slow = dict(g2, compute_only_us=m["compute_only_us"] + 1000, compute_only_times_us=slow,
               rows=[dict(r, compute_only_us=r["compute_only_us"] + 1000) for r in rows[6:]])  # as run_model writes
with tempfile.TemporaryDirectory() as tmp:
    one, two, moved = folder(tmp, "one", [m]), folder(tmp, "two", [g1, g2]), folder(tmp, "moved", [g1, g2_slow])
    (r1, s1), (r2, s2), (r3, s3) = store(one), store(two), store(moved)
    check("the store runs on each (exit 0, 0, 0; got %d, %d, %d)" % (r1, r2, r3), (r1, r2, r3) == (0, 0, 0))
    check("one entry or two groups: the same 12 rows, line for line", s1 == s2 and len(overheads(s1)) == 12)
    bench = [subprocess.run([sys.executable, os.path.join(ROOT, "tests", "bench", "torch_validation_bench.py"),
                             fusim, d], capture_output=True, text=True).stdout for d in (one, two)]
    figures = [re.sub(r"^\S+ \(", "(", b.strip()) for b in bench]   # less the folder's name
    check("the bench's figures the same", figures[0] == figures[1] and "rows  12" in figures[0])
    o1, o3 = overheads(s1), overheads(s3)
    first, second = [r["plan_label"] for r in rows[:6]], [r["plan_label"] for r in rows[6:]]
    check("group 1's overheads unmoved", all(o3[p] == o1[p] for p in first))
    check("group 2's overheads 1000 us lower against its own slower compute-only: %r"
          % [o1[p] - o3[p] for p in second], all(o1[p] - o3[p] == 1000 for p in second))
print("%d failed" % len(fails))
sys.exit(1 if fails else 0)
