#!/usr/bin/env python3
"""data/validation/offload_increment.py on a hand-made run: DDP's offload comm hook over its
all-reduce per bucket in the loop, the hook pattern's issue beside it, fusim's charge from a
trace's issues and the row's error part, by hand; bad input (65)."""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vcheck import ROOT, check, finish  # noqa: E402  (data/validation on sys.path)
import offload_increment as oi  # noqa: E402

TOOL = os.path.join(ROOT, "data", "validation", "offload_increment.py")

# Compute-only's backward() CPU 4000 / 4010 / 3990 us (median 4000). 4 buckets of the same
# parameters in `ddp 4MiB` (backward() +400 us every round) and `ddp offload 4MiB` (+800, and
# the rounds' iterations 10000 / 10100 / 9900, median 10000): the comm hook over the all-reduce
# 400 / 4 = 100 us a bucket, 4000 / 4 = 1000 us apart. The hook pattern: `hooks 4MiB` 5 buckets
# +900 over compute-only, overlap off +400: its issue 500 / 5 = 100 us a bucket.
co = [[1000.0, b, 300.0] for b in (4000.0, 4010.0, 3990.0)]
B = [["a"], ["b", "c"], ["d"], ["e"]]


def row(label, extra, buckets, times=None):
    r = {"plan_label": label, "buckets": buckets,
         "cpu_times_us": [[f, b + extra, x] for f, b, x in co]}
    if times:
        r["times_us"], r["measured_us"] = times, sorted(times)[1]
    return r


m = {"workload": "m", "compute_only_cpu_times_us": co,
     "rows": [row("ddp 4MiB", 400.0, B),
              row("ddp offload 4MiB", 800.0, list(reversed(B)), [10000.0, 10100.0, 9900.0]),
              row("hooks 4MiB", 900.0, [["x"]] * 5),
              row("hooks 25MiB overlap off", 400.0, [["x"]] * 2)]}
# fusim charges the offload's issues 70 us on average, the all-reduce's 30: 40 a bucket, 60 under
# the loop's 100, x 4 buckets = 240 us = 2.4% of the 10000 us iteration, too fast.
charged = {"ddp offload 4MiB": 70.0, "ddp 4MiB": 30.0}
out = oi.increments(m, charged.get)
check("one cap (no default pair) (got %r)" % (out,), len(out) == 1)
cap, n, apart, loop, hk, ch, meas = out[0]
check("4 buckets, 1000 us apart", (cap, n, apart) == ("4MiB", 4, 1000.0))
check("loop off 100 us a bucket (got %r)" % loop, abs(loop - 100.0) < 1e-9)
check("loop hk 100 us a bucket (got %r)" % hk, abs(hk - 100.0) < 1e-9)
check("charged 40 (got %r)" % ch, abs(ch - 40.0) < 1e-9)
check("measured 10000 (got %r)" % meas, meas == 10000.0)
check("own part -2.4%% (got %r)" % oi.own_part(ch, loop, n, meas),
      abs(oi.own_part(ch, loop, n, meas) + 2.4) < 1e-9)
# Buckets that differ between the two plans: no pair.
m2 = json.loads(json.dumps(m))
m2["rows"][1]["buckets"] = [["a", "b"], ["c"], ["d"], ["e"]]
check("different buckets: nothing", oi.increments(m2, charged.get) == [])
# A trace's issues: the host 'issue' tasks only (10 and 30: 20), not other host tasks.
ev = [{"ph": "X", "cat": "host", "name": "issue 0", "dur": 10.0},
      {"ph": "X", "cat": "host", "name": "issue 1", "dur": 30.0},
      {"ph": "X", "cat": "host", "name": "hook 1", "dur": 500.0},
      {"ph": "X", "cat": "comm", "name": "issue x", "dur": 900.0}]
check("issue mean 20", oi.issue_mean(ev) == 20.0)
check("no issues: None", oi.issue_mean(ev[2:3]) is None)

# The capture's view-mode buckets: P 11, none 1000 every round, ddpv_1 +100, ddpv_n +600
# (500 / 10 = 50 a bucket), ddpo_n +1100 (100); every 16: 3 buckets, ddpv_e16 +300 (100 a
# bucket over the 2 beyond ddpv_1's one), ddpo_e16 +400 (150); backward() 3000 / 3 = 1000 apart.
raw = {"none": [1000.0] * 3, "ddpv_1": [1100.0] * 3, "ddpv_n": [1600.0] * 3,
       "ddpo_n": [2100.0] * 3, "ddpv_e16": [1300.0] * 3, "ddpo_e16": [1400.0] * 3}
fm = {"raw": raw, "P": 11, "bwd_cpu_us": 3000.0, "issue_spacing": {"buckets": {"ddpo_e16": 3}}}
c = oi.capture_points(fm)
check("capture points by hand (got %r)" % (c,), c == (11, 50.0, 100.0, 3, 1000.0, 100.0, 150.0))
fm["raw"] = {k: v for k, v in raw.items() if k != "ddpo_e16"}
check("capture without ddpo_e16: None", oi.capture_points(fm) is None)
check("no capture costs: None", oi.capture_points(None) is None)

# Bad input: a folder whose runs.json is not a validation run: one line, 65.
with tempfile.TemporaryDirectory() as d:
    with open(os.path.join(d, "runs.json"), "w") as f:
        f.write("{}")
    p = subprocess.run([sys.executable, TOOL, d], capture_output=True, text=True)
    check("not a run: exit 65, one line (got %d, %r)" % (p.returncode, p.stderr),
          p.returncode == 65 and len(p.stderr.strip().splitlines()) == 1 and p.stdout == "")
finish()
