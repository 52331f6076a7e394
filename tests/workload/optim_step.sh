#!/bin/sh
# fusim workload's optimizer step from a fit whose host part was measured apart (calib_torch's
# optimizer part: device alone, opt.step()'s CPU time inside a training step, the last kernel's
# share, the probe beside them): the step ends at max(device, host - lead + tail_frac x device),
# the host part carried from the row's probe to the step's (or the profile's) host speed; by hand
# on a hand-made AdamW row. Also fit --compute keeping the row's fields, and a bad field; the
# device time in the launch form (PyTorch's multi-tensor launches) counted by hand; the overlap
# (the host's prologue before any launch, a fixed time after its last issue) by hand.
# usage: optim_step.sh FUSIM
fusim=$1
dir=$(mktemp -d) || exit 1
trap 'rm -rf "$dir"' EXIT
root=$(cd "$(dirname "$0")/../.." && pwd)
python3 - "$fusim" "$root" "$dir" <<'PY'
import json, os, re, subprocess, sys
fusim, root, tmp = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "tests", "workload"))
from wlcheck import ADAMW, check, fails, finish, profile, tf_args, workload  # noqa: E402
prof = profile(root)
pf = os.path.join(tmp, "p.json")
def use(**kw):
    row = dict(ADAMW, **kw)
    prof["compute"]["optimizer"] = [f for f in prof["compute"]["optimizer"] if f["name"] != "adamw"] + [row]
    json.dump(prof, open(pf, "w"))

def run(extra=()):
    w, rows = workload(fusim, tf_args() + list(extra), pf, tmp)
    if w is None:
        return None, None, None, None
    # tensors and fp32 elements (the optimizer's parameters, fp32 under autocast)
    return w, rows, len(w["grads"]), sum(g["bytes"] for g in w["grads"]) / 4.0

# 1. host-bound: at --host-probe 5000 (1000x the row's 5) the host issues every operation long
#    after the GPU finished the one before, so when backward() returns the GPU has only the first
#    operation's backward left (lead, tests/workload/host_timeline.sh); the step is the host's
#    1000 x (200 + 20 x tensors) less that lead plus the last kernel, a quarter of the device
#    time 100 + 0.5 x tensors + 1e-5 x elements
use()
w, rows, nt, ne = run(["--host-probe", "5000"])
if w:
    dev = 100 + 0.5 * nt + 1e-5 * ne
    lead = float(rows[0]["bwd_us"])
    check("host-bound step", w["opt_us"], 1000 * (200 + 20 * nt) - lead + 0.25 * dev, 0.05)
    # the notes give the parts the step was priced from (compare_compute.py --csv reads them)
    m = re.search(r"Optimizer step: device ([0-9.]+) us, host ([0-9.]+) us, GPU lead ([0-9.]+) us "
                  r"when backward\(\) returns \((\S+)\)", w["notes"])
    if not m or m.group(4) != "host-bound":
        fails.append("host-bound step: notes without the optimizer's parts: %r" % w["notes"][-300:])
    else:
        check("notes: device", float(m.group(1)), dev, 0.06)
        check("notes: host", float(m.group(2)), 1000 * (200 + 20 * nt), 0.06)
        check("notes: lead", float(m.group(3)), lead, 0.06)
# 2. device-bound: 1 us per element puts the device time far above the host's, which it hides
use(per_elem_us=1.0)
w, rows, nt, ne = run()
if w:
    check("device-bound step", w["opt_us"], 100 + 0.5 * nt + ne, 0.05 + 1e-9 * ne)
    if "(device-bound)." not in w["notes"]:
        fails.append("device-bound step: notes %r" % w["notes"][-300:])
# 3. the host part follows the host speed from the row's probe: with 2000 us a tensor the host
#    is far behind (the step is host - lead + 0.25 x device), and the device time cancels in the
#    differences: a row measured at probe 2.5 priced at the profile's speed (its fastest reading,
#    5) is x2, a row at 5 priced for a step at --host-probe 10 is x2, so each is 200 + 2000 x
#    tensors above the row at 5 priced at the profile's speed, less the change in the GPU's lead
#    when backward() returns (the notes'; the same step's at the same host speed, another at 10)
def lead_of(w):
    m = re.search(r"GPU lead ([0-9.]+) us", w["notes"])
    return float(m.group(1)) if m else float("nan")

use(host_per_tensor_us=2000.0)
base, _, nt, _ = run()
use(host_per_tensor_us=2000.0, host_probe_us=2.5)
slow_row, _, _, _ = run()
use(host_per_tensor_us=2000.0)
slow_step, _, _, _ = run(["--host-probe", "10"])
if base and slow_row and slow_step:
    check("row at probe 2.5, profile 5", slow_row["opt_us"] - base["opt_us"], 200 + 2000.0 * nt, 0.05)
    check("row at probe 2.5: the same lead", lead_of(slow_row), lead_of(base), 0.05)
    check("row at probe 5, step at 10", slow_step["opt_us"] - base["opt_us"],
          200 + 2000.0 * nt - (lead_of(slow_step) - lead_of(base)), 0.1)
# 4. fit --compute keeps the row's fields (and the profile's other optimizer fits)
use()
cal, merged = os.path.join(tmp, "cal.json"), os.path.join(tmp, "merged.json")
json.dump(prof, open(merged, "w"))
json.dump({"format": "fusim-compute-1", "compute": {"optimizer": [ADAMW]}}, open(cal, "w"))
r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", merged], capture_output=True, text=True)
if r.returncode != 0:
    fails.append("fit --compute: exit %d: %s" % (r.returncode, r.stderr.strip()))
else:
    # the fit replaces the one of its name and leaves the others (adam, sgd, any _clip rows)
    got = json.load(open(merged))["compute"]["optimizer"]
    mine = [o for o in got if o["name"] == "adamw"]
    if sorted(o["name"] for o in got) != sorted(o["name"] for o in prof["compute"]["optimizer"]) or \
            any(abs(mine[0].get(k, -1) - v) > 1e-9 for k, v in ADAMW.items() if k != "name"):
        fails.append("fit --compute: optimizer %s, expected the profile's others and %s" % (got, ADAMW))
# 5. a share above 1: one line, non-zero exit, the profile untouched
json.dump({"format": "fusim-compute-1", "compute": {"optimizer": [dict(ADAMW, tail_frac=2.0)]}}, open(cal, "w"))
before = open(merged).read()
r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", merged], capture_output=True, text=True)
if r.returncode == 0 or len(r.stderr.strip().splitlines()) != 1 or open(merged).read() != before:
    fails.append("fit --compute, tail_frac 2: exit %d, stderr %r, profile %s" % (
        r.returncode, r.stderr, "unchanged" if open(merged).read() == before else "changed"))
# 6. the launch form (launch_us > 0): a one-layer Llama of 12 tensors in 17 chunks of 65536 fits
#    every foreach operation in one launch (at most 48 tensors and 320 chunks a launch), so
#    AdamW's 8 operations at 1000 us a launch are 8000 us of device time, far above the host's
#    200 + 20 x 12; per element touched (1e-3 us) adds 14 lists x the elements
small = ["--transformer", "--arch", "llama", "--layers", "1", "--hidden", "256", "--heads", "4", "--ffn", "512",
         "--vocab", "512", "--seq", "64", "--micro-batch", "2", "--precision", "autocast-bf16"]
use(launch_us=1000.0, per_moved_elem_us=0.0, per_chunk_elem_us=0.0)
w, _ = workload(fusim, small, pf, tmp)
if w:
    el = [g["bytes"] / 4.0 for g in w["grads"]]
    if len(el) != 12 or sum(-(-int(e) // 65536) for e in el) != 17:
        fails.append("launch form: %d tensors, %d chunks (expected 12, 17)" % (
            len(el), sum(-(-int(e) // 65536) for e in el)))
    check("launch form, 8 launches", w["opt_us"], 8000.0, 1e-6)
    use(launch_us=1000.0, per_moved_elem_us=1e-3, per_chunk_elem_us=0.0)
    w2, _ = workload(fusim, small, pf, tmp)
    if w2:
        check("launch form, elements touched", w2["opt_us"], 8000.0 + 1e-3 * 14 * sum(el), 1e-6)
# 7. fit --compute keeps the launch form; launch_us without the other two: one line, untouched
row = dict(ADAMW, launch_us=2.0, per_moved_elem_us=1.3e-6, per_chunk_elem_us=8e-5)
json.dump({"format": "fusim-compute-1", "compute": {"optimizer": [row]}}, open(cal, "w"))
r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", merged], capture_output=True, text=True)
got = [o for o in json.load(open(merged))["compute"]["optimizer"] if o["name"] == "adamw"] if r.returncode == 0 else []
if len(got) != 1 or any(abs(got[0].get(k, -1) - v) > 1e-12 for k, v in row.items() if k != "name"):
    fails.append("fit --compute, launch form: exit %d, %s" % (r.returncode, got or r.stderr.strip()))
bad = {k: v for k, v in row.items() if k != "per_chunk_elem_us"}
json.dump({"format": "fusim-compute-1", "compute": {"optimizer": [bad]}}, open(cal, "w"))
before = open(merged).read()
r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", merged], capture_output=True, text=True)
if r.returncode == 0 or len(r.stderr.strip().splitlines()) != 1 or open(merged).read() != before:
    fails.append("fit --compute, launch form without per_chunk_elem_us: exit %d, stderr %r" % (r.returncode, r.stderr))
# 8. the overlap (prologue_frac, tail_us): at --host-probe 5000 the host is far behind (case 1's
#    lead, host 1000 x (200 + 20 x tensors)): the step is the host's less the lead plus tail_us
#    70, not a share of the device time; with 0.1 us per element the device time (above the
#    host's) starts after the prologue, 0.3 of the host's time, beyond the lead
use(prologue_frac=0.3, tail_us=70.0)
w, rows, nt, ne = run(["--host-probe", "5000"])
if w:
    lead, host = float(rows[0]["bwd_us"]), 1000 * (200 + 20 * nt)
    check("overlap, host-bound", w["opt_us"], host - lead + 70.0, 0.05)
    use(prologue_frac=0.3, tail_us=70.0, per_elem_us=0.1)
    w2, _, _, _ = run(["--host-probe", "5000"])
    dev = 100 + 0.5 * nt + 0.1 * ne
    if w2 and not 0.3 * host - lead + dev > host - lead + 70.0:
        fails.append("overlap, device-bound: the hand case is not device-bound (%g elements)" % ne)
    elif w2:
        check("overlap, device-bound", w2["opt_us"], 0.3 * host - lead + dev, 0.05 + 1e-9 * ne)
# 9. prologue_frac without tail_us, or above 1: one line, non-zero exit, the profile untouched
for bad in ({"prologue_frac": 0.3}, {"prologue_frac": 1.5, "tail_us": 70.0}):
    json.dump({"format": "fusim-compute-1", "compute": {"optimizer": [dict(ADAMW, **bad)]}}, open(cal, "w"))
    before = open(merged).read()
    r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", merged], capture_output=True, text=True)
    if r.returncode == 0 or len(r.stderr.strip().splitlines()) != 1 or open(merged).read() != before:
        fails.append("fit --compute, %s: exit %d, stderr %r" % (bad, r.returncode, r.stderr))
# 10. fit --compute keeps the overlap
row = dict(ADAMW, prologue_frac=0.3, tail_us=70.0)
json.dump({"format": "fusim-compute-1", "compute": {"optimizer": [row]}}, open(cal, "w"))
r = subprocess.run([fusim, "fit", "--compute", cal, "--merge-into", merged], capture_output=True, text=True)
got = [o for o in json.load(open(merged))["compute"]["optimizer"] if o["name"] == "adamw"] if r.returncode == 0 else []
if len(got) != 1 or any(abs(got[0].get(k, -1) - v) > 1e-12 for k, v in row.items() if k != "name"):
    fails.append("fit --compute, overlap: exit %d, %s" % (r.returncode, got or r.stderr.strip()))
finish()
PY
