#!/usr/bin/env python3
"""tools/ddp_forward_carry.py on a hand-made run (no GPU). One model: compute-only forward CPU 1000
us every round; DDP plans 1300 and 1500 (+300, +500: the loop's own DDP forward cost is their
median, 400); a hook-pattern plan at 2000 is not DDP and is left out. The capture measured F = 200
with a framework-free forward of 500 us (the loop's 1000: forward factor 2, F x 2 = 400) and
backward() 8000 us (the loop's 4000: factor 0.5, F x 0.5 = 100). Differences from 400: no carry
200, the forward factor 0, backward()'s 300. A folder that is not a run: one line, exit 66."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TOOL = os.path.join(ROOT, "tools", "ddp_forward_carry.py")
fails = []
with tempfile.TemporaryDirectory() as d:
    rounds = lambda f: [[f, 4000.0, 0.0]] * 3  # noqa: E731
    run = {"models": [{"workload": "m", "compute_only_cpu_fwd_bwd_rest_us": [1000.0, 4000.0, 0.0],
                       "compute_only_cpu_times_us": rounds(1000.0),
                       "rows": [{"plan_label": "ddp a", "cpu_times_us": rounds(1300.0)},
                                {"plan_label": "ddp b", "cpu_times_us": rounds(1500.0)},
                                {"plan_label": "hooks none", "cpu_times_us": rounds(2000.0)}]}]}
    wl = {"name": "m", "host": {"ddp": {"forward_us": 200.0}},
          "meta": {"framework_on_model": {"forward_replaced": True, "bwd_cpu_us": 8000.0,
                                          "ddp_forward": {"fwd_cpu_us": 500.0}}}}
    with open(os.path.join(d, "runs.json"), "w") as f:
        json.dump(run, f)
    with open(os.path.join(d, "wl_m.json"), "w") as f:
        json.dump(wl, f)
    p = subprocess.run([sys.executable, TOOL, d], capture_output=True, text=True)
    want = {"no carry": "median |difference| 200 us", "forward factor": "median |difference| 0 us",
            "backward() factor": "median |difference| 300 us"}
    for name, text in want.items():
        line = [x for x in p.stdout.splitlines() if x.startswith(name)]
        if p.returncode != 0 or not line or text not in line[0]:
            fails.append("%s: want %r in %r (exit %d, %s)" % (name, text, line, p.returncode, p.stderr))
    p = subprocess.run([sys.executable, TOOL, os.path.join(d, "none")], capture_output=True, text=True)
    if p.returncode != 66 or len(p.stderr.splitlines()) != 1:
        fails.append("missing folder: exit %d, stderr %r" % (p.returncode, p.stderr))
for f in fails:
    print("FAIL: " + f)
sys.exit(1 if fails else 0)
