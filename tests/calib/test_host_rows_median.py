#!/usr/bin/env python3
"""tools/host_rows_median.py on hand-made calibrations: each row carried to the last file's host
speed by the probes' fastest readings, then the median; rows in one file only and device tables
are left out; a file without probe readings is refused (one line, exit 65, nothing written)."""
import json
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "host_rows_median.py")


def cal(path, probes, ops):
    comp = {"ops": ops, "host_probe_us": sorted(probes)[len(probes) // 2], "diag": {"hf_host": {"probes_us": probes}}}
    json.dump({"format": "fusim-compute-1", "compute": comp}, open(path, "w"))


def row(op, f, b, dtype="bf16"):
    return {"op": op, "dtype": dtype, "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": f, "host_bwd_us": b}


fails = []
with tempfile.TemporaryDirectory() as tmp:
    a, b, c, out = (os.path.join(tmp, n) for n in ("a.json", "b.json", "c.json", "out.json"))
    # fastest readings 5, 10, 5 (medians 7, 12, 9): factors to the last file 1, 0.5, 1
    cal(a, [7.0, 5.0, 9.0], [row("hf_bert_layer_tiny", 100.0, 200.0), row("tv_resnet50_held", 8000.0, 9000.0, "fp32"),
                             {"op": "layernorm", "dtype": "bf16", "numel": [1024], "fwd_us": [3.0], "bwd_us": [4.0],
                              "host_fwd_us": 5.0, "host_bwd_us": 6.0}])
    cal(b, [12.0, 10.0, 14.0], [row("hf_bert_layer_tiny", 300.0, 300.0), row("tv_resnet50_held", 12000.0, 20000.0, "fp32")])
    cal(c, [9.0, 5.0, 11.0], [row("hf_bert_layer_tiny", 120.0, 260.0), row("hf_bert_pre_tiny", 50.0, 0.0)])
    r = subprocess.run([sys.executable, TOOL, out, a, b, c], capture_output=True, text=True)
    if r.returncode != 0:
        fails.append("exit %d: %s" % (r.returncode, r.stderr.strip()))
    else:
        comp = json.load(open(out))["compute"]
        got = {(o["op"], o["dtype"]): (o["host_fwd_us"], o["host_bwd_us"]) for o in comp["ops"]}
        # hf_bert_layer_tiny: fwd (100, 150, 120) -> 120, bwd (200, 150, 260) -> 200;
        # tv_resnet50_held fp32 in two files: (8000, 6000) -> 7000, (9000, 10000) -> 9500
        want = {("hf_bert_layer_tiny", "bf16"): (120.0, 200.0), ("tv_resnet50_held", "fp32"): (7000.0, 9500.0)}
        if got != want:
            fails.append("rows %s, expected %s" % (got, want))
        if comp.get("host_probe_us") != 9.0 or comp.get("host_probe_min_us") != 5.0:
            fails.append("probe %s / %s, expected the last file's 9.0 / 5.0" % (comp.get("host_probe_us"), comp.get("host_probe_min_us")))
    # a calibration without probe readings: one line, exit 65, no output
    json.dump({"format": "fusim-compute-1", "compute": {"ops": [row("hf_bert_layer_tiny", 1.0, 1.0)]}}, open(b, "w"))
    os.remove(out)
    r = subprocess.run([sys.executable, TOOL, out, a, b, c], capture_output=True, text=True)
    if r.returncode != 65 or len(r.stderr.strip().splitlines()) != 1 or os.path.exists(out):
        fails.append("no probe: exit %d, stderr %r, output %s" % (r.returncode, r.stderr, os.path.exists(out)))
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
