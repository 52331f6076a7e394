#!/usr/bin/env python3
"""tools/derive_gpu_ops.py on hand-made profiles: the source's add table is 10 us at 1e6 elements
and 1000 at 1e8, the target's 5 and 500, so the ratio is 0.5 at every size between (log-log
interpolation of two power laws with one exponent); the source's copy_t (fp32: 20 / 100 us forward,
2 / 4 backward at 1e6 / 1e7) becomes 10 / 50 and 1 / 2 on the target, with the source's host
costs; at 2e8, past both add tables' largest size, both are proportional, so the ratio stays 0.5.
The target's own bf16 copy_t is kept (no table made for it); a profile pair with no add table in
a dtype makes none there. Nothing to make: one line per skipped table, exit 65, no file.
Usage: test_derive_gpu_ops.py"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
tool = os.path.join(ROOT, "tools", "derive_gpu_ops.py")
fails = []


def op(name, dtype, numel, fwd, bwd, host=(3.0, 4.0)):
    return {"op": name, "dtype": dtype, "numel": numel, "fwd_us": fwd, "bwd_us": bwd,
            "host_fwd_us": host[0], "host_bwd_us": host[1]}


with tempfile.TemporaryDirectory() as tmp:
    src, tgt, out = (os.path.join(tmp, n) for n in ("s.json", "t.json", "o.json"))
    json.dump({"name": "src-gpu", "compute": {"ops": [
        op("add", "fp32", [1e6, 1e8], [10.0, 1000.0], [1.0, 1.0]),
        op("copy_t", "fp32", [1e6, 1e7, 2e8], [20.0, 100.0, 400.0], [2.0, 4.0, 8.0]),
        op("copy_t", "bf16", [1e6], [7.0], [7.0])]}}, open(src, "w"))
    json.dump({"compute": {"ops": [op("add", "fp32", [1e6, 1e8], [5.0, 500.0], [1.0, 1.0], (9.0, 9.0)),
                                   op("copy_t", "bf16", [1e6], [3.0], [3.0])]}}, open(tgt, "w"))
    r = subprocess.run([sys.executable, tool, out, tgt, src, "--ops", "copy_t"], capture_output=True, text=True)
    if r.returncode:
        fails.append("exit %d: %s" % (r.returncode, r.stderr.strip()))
    else:
        rows = json.load(open(out))["compute"]["ops"]
        want = op("copy_t", "fp32", [1e6, 1e7, 2e8], [10.0, 50.0, 200.0], [1.0, 2.0, 4.0])
        if len(rows) != 1 or any(abs(a - b) > 1e-3 for k in ("fwd_us", "bwd_us", "numel") for a, b in
                                 zip(rows[0][k], want[k])) or rows[0]["dtype"] != "fp32" or \
                (rows[0]["host_fwd_us"], rows[0]["host_bwd_us"]) != (3.0, 4.0) or "src-gpu" not in rows[0].get("derived", ""):
            fails.append("tables %s, expected [%s] derived from src-gpu" % (rows, want))
        if "bf16" not in r.stderr or "kept" not in r.stderr:
            fails.append("the target's own bf16 copy_t not named as kept: %r" % r.stderr)
    json.dump({"compute": {"ops": []}}, open(tgt, "w"))
    os.remove(out)
    r = subprocess.run([sys.executable, tool, out, tgt, src, "--ops", "copy_t"], capture_output=True, text=True)
    if r.returncode != 65 or os.path.exists(out) or "no table made" not in r.stderr:
        fails.append("nothing to make: exit %d, %r" % (r.returncode, r.stderr))

for f in fails:
    print("FAIL", f)
print("derive_gpu_ops: %d failed" % len(fails))
sys.exit(1 if fails else 0)
