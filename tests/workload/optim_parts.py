#!/usr/bin/env python3
"""tools/optim_parts.py (no fusim run): the optimizer step from its three parts, as fusim prices it
(max(max(0, prologue_frac x host - lead) + device, host - lead + tail_us)), on values worked by
hand, each part swapped for the estimate's in turn; a capture without a part is skipped; a
folder without captures is one line and exit 66. Given fusim (argv[1]), the tool runs whole on a
committed capture priced by both threads' probes (lease K's BERT h512): exit 0 and its row."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools"))
import optim_parts as op  # noqa: E402

fails = []


def check(what, got, want):
    if abs(got - want) > 1e-9 * max(1.0, abs(want)):
        fails.append("%s: %g, expected %g" % (what, got, want))


# host-bound: max(0.4 x 3000 - 500 + 1000 = 1700, 3000 - 500 + 100 = 2600)
check("host-bound step", op.step_us(1000, 3000, 500, 0.4, 100), 2600)
# a lead that hides the host: max(0 + 2500, 3000 - 2000 + 100 = 1100)
check("device-bound step", op.step_us(2500, 3000, 2000, 0.4, 100), 2500)
row = {"opt_dev_cap": 1000.0, "opt_host_cap": 3000.0, "lag_cap": 500.0,
       "lead_est": 2000.0, "opt_host_est": 4000.0, "opt_dev_est": 1200.0}
s = op.swaps(row, 0.4, 100)
check("own", s["own"], 2600)                 # as above
check("estimated lead", s["lead"], 1100)     # max(0 + 1000, 3000 - 2000 + 100)
check("estimated host", s["host"], 3600)     # max(1600 - 500 + 1000, 4000 - 500 + 100)
check("estimated device", s["dev"], 2600)    # max(700 + 1200, 2600)
# a GPU that waited for the host (lag below 0) counts as no lag: max(1200 + 1000, 3000 + 100)
check("negative lag", op.swaps(dict(row, lag_cap=-100.0), 0.4, 100)["own"], 3100)
if op.swaps(dict(row, opt_host_cap=float("nan")), 0.4, 100) is not None:
    fails.append("a capture without opt.step()'s CPU time: not skipped")
r = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "optim_parts.py"), os.path.join(ROOT, "no-such-dir")],
                   capture_output=True, text=True)
if r.returncode != 66 or len(r.stderr.strip().splitlines()) != 1:
    fails.append("missing folder: exit %d, stderr %r (expected 66, one line)" % (r.returncode, r.stderr))
if len(sys.argv) > 1:
    import tempfile
    import wlcheck
    with tempfile.TemporaryDirectory() as tmp:
        r = wlcheck.run_tool_on_lease_k(ROOT, "optim_parts.py", sys.argv[1], tmp)
        if r.returncode != 0 or "bert_h512_l8_b32_s128_bf16" not in r.stdout:
            fails.append("a whole run: exit %d, stderr %r" % (r.returncode, r.stderr.strip()[-300:]))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
