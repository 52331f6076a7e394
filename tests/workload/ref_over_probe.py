#!/usr/bin/env python3
"""ref_over_probe.py (the test): tools/ref_over_probe.py by hand. A profile whose fastest probe read
5 us, bf16 BERT rows rest 1000 / 2000 us and layer 500 / 1000 (its reference step at 3 layers:
2500 / 5000), tv_resnet50_held fp32 4000 / 5000. A BERT bf16 capture whose probes read 10 and 12
(the fastest, 10, is 2x the profile's) and whose reference took 5000 / 12000 us: forward 5000 /
2500 / 2 = 1.00, backward 12000 / 5000 / 2 = 1.20. A ResNet-50 TF32 capture, probe 5 (1x),
reference 4400 / 4000: 1.10 / 0.80. A capture without a reference is left out. An empty folder:
one stderr line, exit 66. The autograd thread's probe (meta.host_bwd_probes_us) over the
profile's median probe (6 us): BERT's readings 15, 9, 20 (median 15, 2.5x): backward 12000 / 5000
/ 2.5 = 0.96; ResNet-50's 6 (1x): 0.80. The spread of the log over the two: by the main probe
|ln 1.20 - ln 0.80| / 2 = 0.203, by the autograd thread's |ln 0.96 - ln 0.80| / 2 = 0.091;
forward's by the main probe |ln 1.00 - ln 1.10| / 2 = 0.048. A capture that read the probe
between its 2 steps (6 + 2 readings: 5, 5, 5, 9, 11, 20, 20, 20) is priced forward by their median
(10) over the profile's median (6): BERT reference 5000 / 2500 / (10 / 6) = 1.20 forward, and
backward by the fastest (5 over 5): 12000 / 5000 = 2.40."""
import json
import os
import subprocess
import sys
import tempfile

TOOL = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "tools", "ref_over_probe.py")
fails = []


def check(what, got, want):
    if got != want:
        fails.append("%s: got %r, expected %r" % (what, got, want))


def row(op, dtype, f, b):
    return {"op": op, "dtype": dtype, "numel": [], "fwd_us": [], "bwd_us": [], "host_fwd_us": f, "host_bwd_us": b}


with tempfile.TemporaryDirectory() as tmp:
    prof = {"compute": {"host_probe_us": 6.0, "host_probe_min_us": 5.0,
                        "ops": [row("hf_bert_rest_tiny", "bf16", 1000.0, 2000.0),
                                row("hf_bert_layer_tiny", "bf16", 500.0, 1000.0),
                                row("tv_resnet50_held", "fp32", 4000.0, 5000.0)]}}
    caps = {"bert.json": {"arch": "bert", "model": "bert_x", "amp": "bf16", "host_probes_us": [12.0, 10.0],
                          "host_probe_us": 11.0, "host_ref": {"fwd_us": 5000.0, "bwd_us": 12000.0},
                          "host_bwd_probes_us": [15.0, 9.0, 20.0]},
            "r50.json": {"arch": "resnet50", "model": "resnet50_x", "amp": "tf32", "host_probes_us": [5.0],
                         "host_probe_us": 5.0, "host_ref": {"fwd_us": 4400.0, "bwd_us": 4000.0},
                         "host_bwd_probes_us": [6.0]},
            "old.json": {"arch": "bert", "model": "bert_old", "amp": "bf16", "host_probe_us": 7.0}}
    between = {"arch": "bert", "model": "bert_b", "amp": "bf16", "iters": 2,
               "host_probes_us": [5.0, 5.0, 5.0, 9.0, 11.0, 20.0, 20.0, 20.0],
               "host_probe_us": 10.0, "host_ref": {"fwd_us": 5000.0, "bwd_us": 12000.0}}
    os.mkdir(os.path.join(tmp, "c"))
    os.mkdir(os.path.join(tmp, "empty"))
    os.mkdir(os.path.join(tmp, "b"))
    with open(os.path.join(tmp, "b", "between.json"), "w") as f:
        json.dump({"meta": between}, f)
    with open(os.path.join(tmp, "p.json"), "w") as f:
        json.dump(prof, f)
    for name, meta in caps.items():
        with open(os.path.join(tmp, "c", name), "w") as f:
            json.dump({"meta": meta}, f)
    r = subprocess.run([sys.executable, TOOL, "--profile", os.path.join(tmp, "p.json"), os.path.join(tmp, "c")],
                       capture_output=True, text=True)
    check("exit", r.returncode, 0)
    lines = [x.split() for x in r.stdout.splitlines()]
    per = {os.path.basename(x[0]): tuple(x[1:2] + x[3:8:2]) for x in lines if x and x[0].endswith(".json")}
    check("captures listed", sorted(per), ["bert.json", "r50.json"])
    check("BERT", per.get("bert.json"), ("bert", "1.00", "1.20", "0.96"))
    check("ResNet-50", per.get("r50.json"), ("resnet", "1.10", "0.80", "0.80"))
    summ = [" ".join(x) for x in lines if x and not x[0].endswith(".json")]
    check("summary", summ, ["bert fwd median 1.00 (1.00-1.00), 1 captures",
                            "bert bwd median 1.20 (1.20-1.20), 1 captures",
                            "bert bwd/thread median 0.96 (0.96-0.96), 1 captures",
                            "resnet fwd median 1.10 (1.10-1.10), 1 captures",
                            "resnet bwd median 0.80 (0.80-0.80), 1 captures",
                            "resnet bwd/thread median 0.80 (0.80-0.80), 1 captures",
                            "all fwd spread (sd of log) 0.048 by the main thread's probe, 2 captures",
                            "all bwd spread (sd of log) 0.203 by the main thread's probe, 0.091 by the "
                            "autograd thread's, 2 captures"])
    r = subprocess.run([sys.executable, TOOL, "--profile", os.path.join(tmp, "p.json"), os.path.join(tmp, "b")],
                       capture_output=True, text=True)
    x = r.stdout.split()
    check("between the steps", (r.returncode, x[1], x[3], x[5]) if len(x) > 5 else r.stdout, (0, "bert", "1.20", "2.40"))
    r = subprocess.run([sys.executable, TOOL, "--profile", os.path.join(tmp, "p.json"), os.path.join(tmp, "empty")],
                       capture_output=True, text=True)
    check("an empty folder: exit", r.returncode, 66)
    check("an empty folder: one stderr line", len(r.stderr.strip().splitlines()), 1)
for f in fails:
    print("FAIL: " + f, file=sys.stderr)
sys.exit(1 if fails else 0)
