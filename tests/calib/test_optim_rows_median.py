#!/usr/bin/env python3
"""tools/optim_rows_median.py on hand-made calibrations: three files whose probes' fastest
readings are 10, 5 and 5 us; AdamW's host parts (100 + 20 / tensor, 60 + 8, 40 + 12) carried to
the last file's speed (x0.5, x1, x1) are 50 + 10, 60 + 8, 40 + 12: medians 50 and 10; the device
parts and tail_frac are not carried (medians of 1, 2, 3 -> 2). A row without a host part in one
file drops that optimizer; a file without probe readings is one line and exit 65, nothing written."""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
tool = os.path.join(ROOT, "tools", "optim_rows_median.py")
fails = []
with tempfile.TemporaryDirectory() as tmp:
    paths = []
    for i, (probes, hb, hp) in enumerate((([12.0, 10.0], 100.0, 20.0), ([5.0, 7.0], 60.0, 8.0), ([9.0, 5.0], 40.0, 12.0))):
        v = float(i + 1)
        rows = [{"name": "adamw", "base_us": v, "per_tensor_us": v, "per_elem_us": v, "host_base_us": hb,
                 "host_per_tensor_us": hp, "tail_frac": v / 10}]
        rows.append({"name": "sgd", "base_us": 1.0, "per_tensor_us": 1.0, "per_elem_us": 1.0} if i == 1 else
                    {"name": "sgd", "base_us": 1.0, "per_tensor_us": 1.0, "per_elem_us": 1.0, "host_base_us": 1.0,
                     "host_per_tensor_us": 1.0, "tail_frac": 0.5})
        p = os.path.join(tmp, "c%d.json" % i)
        json.dump({"format": "fusim-compute-1", "compute": {"optimizer": rows, "diag": {"optimizer": {"probes_us": probes}}}},
                  open(p, "w"))
        paths.append(p)
    out = os.path.join(tmp, "out.json")
    r = subprocess.run([sys.executable, tool, out] + paths, capture_output=True, text=True)
    if r.returncode != 0:
        fails.append("exit %d: %s" % (r.returncode, r.stderr.strip()))
    else:
        opt = json.load(open(out))["compute"]["optimizer"]
        want = {"name": "adamw", "base_us": 2.0, "per_tensor_us": 2.0, "per_elem_us": 2.0, "host_base_us": 50.0,
                "host_per_tensor_us": 10.0, "tail_frac": 0.2, "host_probe_us": 5.0}
        if len(opt) != 1 or any(opt[0][k] != v if isinstance(v, str) else abs(opt[0][k] - v) > 1e-9
                                for k, v in want.items()):
            fails.append("rows %s, expected [%s]" % (opt, want))
    json.dump({"format": "fusim-compute-1", "compute": {"optimizer": []}}, open(paths[0], "w"))
    bad = os.path.join(tmp, "bad.json")
    r = subprocess.run([sys.executable, tool, bad] + paths, capture_output=True, text=True)
    if r.returncode != 65 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(bad):
        fails.append("no probes: exit %d, stderr %r, written %s" % (r.returncode, r.stderr, os.path.exists(bad)))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
